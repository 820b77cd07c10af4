/*
 * data.h - the mutable state of a run (internal).  Everything a time step
 * needs is allocated by mbs_data_new (run/build.c), the workspace of the
 * spec's integrator by that integrator (integrate/integrators.h,
 * mbs_integrator_ws_new, called by mbs_data_new); no step allocates, but
 * for the Moreau-Jean stepper with contact deactivation, whose points'
 * arrays and active-set records grow (doubling) when a step's system
 * outgrows them: a few times in a run (docs/contacts.md, "Cost").
 */
#ifndef MBS_DATA_H
#define MBS_DATA_H

#include "mbs/linalg/linalg.h"
#include "mbs/model/model.h"

#define MBS_BDF_HIST 7 /* past points kept by the BDF integrator (order <= 5) */

typedef struct mbs_mj_ws mbs_mj_ws;
/* types of higher layers that the state only points to */
struct mbs_aabb;       /* contact/contact_geom.h */
struct mbs_broadphase; /* contact/broadphase.h   */
struct mbs_cforce;     /* contact/contact.h      */

/* Receives the force of one contact point (contact.h mbs_cforce). */
typedef void (*mbs_cforce_fn)(void *ctx, const struct mbs_cforce *f);

/* Error weights of a run (accuracy.h): weight of a position x_i is
 * ax[i] + rx[i] |x_i|, of a velocity av[i] + rtol |v_i| (per variable: a
 * point's coordinate and a unit vector's are weighted in their own units);
 * with ax == NULL, atol_x + rtol |x_i| and atol_v + rtol |v_i|. */
typedef struct {
    double rtol, atol_x, atol_v;
    double L;             /* the length the weights are in (mbs_tolerance_length) */
    double *ax, *rx, *av; /* (n), used when per_var is set                    */
    int per_var;
    double *az;           /* (nz) absolute weights of the element states: the
                             weight of z_k is az[k] + rtol |z_k| (accuracy.h) */
} mbs_tol;

struct mbs_data {
    const mbs_model *m;
    int n, ne;            /* nvar, neq                                         */

    /* state at the current time */
    double t;
    /* the run's progress report, cancellation and wall-clock limit, set by
     * the run (run/simulate.c); integrators call it through mbs_data_poll */
    int (*poll)(mbs_data *d, mbs_errlist *err);
    double *x, *v, *a;    /* (n) positions, velocities, accelerations         */
    double *lam;          /* (ne) multipliers                                 */
    char *eq_on;          /* (ne) 0: dependent equation removed (redundancy)  */

    /* previous accepted state, for output interpolation */
    double tp;
    double *xp, *vp, *ap;

    /* element states (model.h nz; each array sized max(nz, 1)):
     * z is what the force evaluation reads (the accepted state between
     * steps, a stage's or Newton iterate's inside one), zd = z' at the
     * accepted state; zp, zdp the same at the previous one (output
     * interpolation, cubic Hermite) */
    double *z, *zd, *zp, *zdp;
    double *zs;           /* (nz) integrator scratch: a step's start (DOPRI5),
                             the predictor (BDF)                              */
    double *zk;           /* (7 nz) DOPRI5's stage slopes of z; BDF: bz, the
                             Newton gains and pivots (integrator_bdf.c)      */
    double *zkap;         /* (nz) coupling gain dz/domega of the BDF Newton
                             matrix being built (force.c's finite
                             differences let z follow the joint's rate by
                             it; 0: z held fixed, every other caller)      */

    /* controllers (model.h nctrl): a discrete one's state (MBS_LTI_MAX
     * each; a PID's integral and filter state in the first two) and held
     * output, the index of its next sample; every controller's reference
     * for a measured angle (the continuous branch next to the last
     * accepted step's value) */
    double *ctrl_s, *ctrl_y, *ctrl_ref;
    long *ctrl_k;
    /* models with controllers: the element states eliminated from the BDF
     * Newton matrix as a block (dynamics/controller.h mbs_zelim_*): the LU
     * factors of D = w0 I - df/dz (nz x nz) and its pivots, and the gains
     * K = D^-1 df/dx, D^-1 df/dv (nz x n each, row-major); zgen set while
     * the force Jacobians let z follow by K (force.c) */
    double *zD, *zKx, *zKv;
    double *zt;           /* (3 nz) its scratch: a perturbed z, two rates   */
    int *zpiv, zgen;

    /* constraint work arrays */
    double *phi, *jac, *phit, *gam; /* (ne), (nnz), (ne), (ne)                 */
    int cons_at_state;    /* set by an integrator just before mbs_step_done
                             when phi and jac already hold the constraints at
                             the accepted (x, t) (DOPRI5's last stage is
                             there); mbs_step_done then skips evaluating them
                             again and clears the flag                        */

    /* force work */
    double *Q;            /* (n)                                               */
    double *fd_x, *fd_v, *fd_q0, *fd_q1; /* (n) finite-difference scratch   */

    /* integrator-owned vectors (never used as scratch elsewhere) */
    double *hv, *ha, *w1, *w2; /* (n)                                          */
    double *rk;           /* (16 n) Runge-Kutta stages and BDF predictor      */
    int rk_singular;      /* a stage of the current RK step met a singular
                             constraint Jacobian (counted warning)           */
    int rk_worst;         /* the slowest multiplier iteration of the current
                             RK step's stages (passes, 1000 = failed; 0: none
                             slow); its stage's time and positions are kept in
                             rk_worst_t and rk + 14 n (integrator_rk.c)      */
    double rk_worst_t;
    int rk_ref_gap, rk_ref_wait; /* stages between refinements of DOPRI5's
                             accelerations, and left until the next
                             (integrator_rk.c s_refine)                      */

    /* generic scratch vectors */
    double *r1, *r2, *r3, *r4; /* (max(n, ne) + n + ne)                       */

    /* linear systems */
    mbs_mat spd;          /* M + alpha Phi_q^T Phi_q (+ h terms), ordered      */
    mbs_mat kkt;          /* [J  Phi_q^T; Phi_q 0], ordered                     */
    mbs_mat ggl;          /* stabilised index-2 BDF system (BDF runs only; made
                             by the BDF integrator's workspace)              */
    double al_cm, al_cp;  /* cM, cP of the factorised SPD matrix (refinement)  */

    /* BDF history: times, positions and velocities of past points (made by
     * the BDF integrator's workspace) */
    int nhist;
    double th[MBS_BDF_HIST];
    double *qh[MBS_BDF_HIST], *vh[MBS_BDF_HIST];
    double *lh[MBS_BDF_HIST]; /* multipliers of the past points (BDF's predictor) */
    double *zh[MBS_BDF_HIST]; /* element states of the past points (nz)         */
    double *bdf_dd;       /* the order selection's divided-difference tables
                             (integrator_bdf.c s_diff_norm)                 */
    double *bdf_smp;      /* models with controllers: the restart's scratch at
                             a sample (integrate/bdf_sample.h)               */
    double *rm_jac;       /* (the Jacobian's entries) the Jacobian of the last
                             rank margin (mbs_rank_margin) the BDF computed,
                             each entry's bound on its move (rm_tol) and the
                             margin (rm_val < 0: none; integrator_bdf.c)     */
    double *rm_tol, rm_val;
    int *rank_colexp;     /* (nvar) the rank analyses' column exponents
                             (accuracy.h mbs_var_length_exps), made at the
                             first analysis (analysis.c)                    */
    struct mbs_rank_ws *rank_ws; /* mbs_rank_margin's dense QR workspace
                             (analysis.c), made at its first dense margin  */

    /* output bookkeeping: continuous angles */
    double *jangle_ref;   /* (njoint) last accepted revolute angles           */

    /* reaction recovery workspace (reaction.c), made by the sampler when a
     * reaction channel exists */
    struct mbs_rx_ws *rx;

    /* contacts (contact.c) */
    double *c_vimp;       /* (ncontact) impact speed recorded at first touch   */
    char *c_on;           /* (ncontact) touching at the last accepted step      */
    char *c_inset;        /* (ncontact) in the active set                       */
    int *c_active;        /* (ncontact) the active set (pair ids)               */
    int c_nactive;
    int *c_prev;          /* (ncontact) the swept set before the last sweep     */
    int c_nset;           /* pairs of the last sweep (c_inset[k] == 1)          */
    int *c_onlist;        /* (ncontact) the pairs with c_on set                 */
    char *c_rigid;        /* (ncontact) 1: law rigid (compact: the spec of one
                             of 81800 declared pairs is a cache miss)        */
    int c_non;
    double c_margin;      /* the largest pair margin of the spec                */
    double *c_travel;     /* (nbody) scratch: each body's travel in a step      */
    struct mbs_shape_cache *c_wc; /* world shapes of one evaluation (contact.c) */
    int c_ready;          /* the active set has been computed this run        */
    struct mbs_aabb *c_aabb;     /* (nshape) bounding boxes                     */
    struct mbs_broadphase *c_bp; /* sort-and-sweep state                        */
    double c_active_sum;
    long c_active_count;

    /* The integrators' own workspaces, made, sized and freed by them
     * (integrators.h mbs_integrator_ws_new), like the BDF history and
     * matrix above.  Event-driven (integrator_ed.c): */
    struct mbs_ed_ws *ed;
    /* Moreau-Jean time stepping (integrator_mj.c), NULL for other integrators */
    struct mbs_mj_ws *mj;
    /* BDF with contact force unknowns (system_contacts.c), NULL otherwise */
    struct mbs_cu_ws *cu;
    /* BDF: the GGL matrix factorised by KLU (system_ggl.c) when the model's
     * band is wasteful, NULL when it is banded (ggl above) */
    struct mbs_sparse *ggl_sp;
    /* ... and, when the velocity increments are eliminated from it
     * (system_ggl_red.c), what its solves need; NULL otherwise */
    struct mbs_ggl_red *ggl_red;

    /* Forces that only the running integrator knows, handed by it to the
     * output sampler (output/contact_output.c, output/output.c) with its
     * workspace; NULL for integrators without them.  Between steps only.
     * rigid_forces: the rigid contacts' point forces at the state (t, x, v)
     * (Moreau-Jean, event-driven); clearance_forces: a frictional clearance
     * joint's normal and friction forces, sliding velocity and mode, 0 or
     * -1 when it has none (event-driven; integrators.h mbs_ed_forces_at). */
    void (*rigid_forces)(const mbs_model *m, mbs_data *d, double t, const double *x, const double *v,
                         mbs_cforce_fn fn, void *ctx);
    int (*clearance_forces)(const mbs_model *m, mbs_data *d, int joint, double t, const double *x, const double *v,
                            double N[2], double *FT, double *vt, int *mode);

    /* Reactions measured by sampled controllers (dynamics/controller.c):
     * the reaction recovery (output.h mbs_reaction), set by the run, and
     * the accelerations that go with the state being measured (NULL: d->a,
     * the accepted state's at a sample; the output sampler points it at its
     * interpolated ones while it takes a sample). */
    double (*reaction)(const mbs_model *m, mbs_data *d, int joint, int torque, mbs_component comp, double t,
                       const double *x, const double *v, const double *a);
    const double *meas_a;

    /* Reactions measured by continuous controllers (no algebraic loop:
     * the parser refuses one, mechanism_ctrl.c): the reaction of the
     * measure of controller c as a function of the state (t, x, v, z),
     * with the accelerations a of that state when the caller has them
     * (NULL: solved at that state), set by the run (run/measure.h) with its
     * workspace meas; NULL when no continuous controller measures one.
     * rx_skip > 0 while the generalized forces are evaluated (force.c):
     * no force depends on such a measurement at the same instant, which
     * reads 0 there instead of a solve. */
    double (*reaction_at)(const mbs_model *m, mbs_data *d, int c, double t, const double *x, const double *v,
                          const double *z, const double *a);
    struct mbs_meas *meas;
    int rx_skip;
    /* A continuous controller in an algebraic loop through the reaction it
     * measures (mbs_ctrl_spec.loop): its output solved at a state, set by
     * the run (run/measure.h); in the shadow data that solves it, loop_c
     * (-1: none) is the controller whose output reads loop_y. */
    double (*loop_output)(const mbs_model *m, mbs_data *d, int c, double t, const double *x, const double *v,
                          const double *z);
    int loop_c;
    double loop_y;

    /* metrics accumulated by the integrators */
    mbs_tol tol;          /* error weights of the run (accuracy.h)            */
    mbs_metrics met;
    double sysdim_sum;
    long sysdim_count;
    double E0;            /* energy at t = 0                                   */
    double E_proj;        /* energy the BDF's projections took out or put back
                             (sum of E - E0 before each; integrator_bdf.c)     */
    mbs_report rep;
};

/* Record the size of a linear system solved (metrics). */
static inline void mbs_note_system(mbs_data *d, int dim)
{
    d->sysdim_sum += dim;
    d->sysdim_count++;
    if (dim > d->met.max_system_dimension) d->met.max_system_dimension = dim;
}

/* Record one complementarity problem of `dim` unknowns (metrics; the sum is
 * turned into the mean when the run ends). */
static inline void mbs_note_lcp(mbs_data *d, int dim, int failed)
{
    d->met.mean_lcp_dimension += dim;
    d->met.lcp_solves++;
    if (failed) d->met.lcp_failures++;
    if (dim > d->met.max_lcp_dimension) d->met.max_lcp_dimension = dim;
}

/* The run's progress, cancellation and wall-clock limit (solver.time_limit,
 * or the caller's through its progress callback), asked from inside an
 * integrator: non-zero (MBS_ETIMEOUT, MBS_ECANCEL, with the message) stops
 * the integration.  The run asks after every accepted step; integrators ask
 * too where they retake a rejected step, so that a run rejecting step after
 * step without reaching min_step stops at its limit or when cancelled. */
static inline int mbs_data_poll(mbs_data *d, mbs_errlist *err)
{
    return d->poll ? d->poll(d, err) : 0;
}

#endif
