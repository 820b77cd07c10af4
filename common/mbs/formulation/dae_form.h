/*
 * dae_form.h - the formulation boundary for the implicit integrators (issue
 * 12, docs/formulations.md "The DAE form"): what an integrator of the
 * equations of motion in their DAE form
 *
 *   M(q) v' = Q(q, v, t) - Phi_q^T lambda,    q' = v,    Phi(q, t) = 0,
 *
 * (Moreau-Jean also takes q' = G(q) v and a configuration-dependent M:
 * advance, nq, mass_eval below),
 *
 * needs from a formulation, and nothing else: sizes and scales, products
 * with the mass matrix, the generalized forces, the constraints Phi, Phi_q,
 * Phi_t, gamma and the products of Phi_q with a vector, and the linear
 * systems on them (the augmented-Lagrangian matrix's factorisation and
 * solves, the stabilised index-2 (GGL) Newton matrix's), the rank margin of
 * Phi_q and the choice of independent equations, the consistent
 * accelerations, the element states' rates and the energy projection.  The
 * trapezoidal index-3 AL (integrate/integrator_al.c, mbs_al_run) and the
 * BDF on the GGL form (integrate/integrator_bdf.c, mbs_bdf_run, with
 * bdf_sample.c) run through it, and so does Moreau-Jean's time stepping
 * (integrate/integrator_mj.c, mbs_mj_run) and the event-driven integrator
 * (integrate/integrator_ed.c, mbs_ed_run), which take the rigid contacts
 * and clearance joints from formulation/contact_rows.h; formulation/formulation.h is the ODE form of
 * the explicit integrators (and of bdf_ode.c), this the DAE form of the
 * implicit ones.
 *
 * Arrays: q, v, Q and the rows of M v have f->n entries (the coordinates and
 * their rates share one layout); phi, phit, gamma and multipliers f->ne.
 * The constraint Jacobian Phi_q is in the formulation's own layout, kept by
 * the integrators in the run's d->jac (filled by `constraints`, read by
 * `jtl` and `al_factor`): the integrator only passes it on.  Which equations are active (the rest
 * redundant, left out) is d->eq_on (model/data.h), of f->ne entries.
 *
 * The integrator owns its arrays (the run's data d, model/data.h); the
 * formulation owns whatever it evaluates with (ctx).
 *
 * Rank: model layer (common/mbs/README.md), like formulation.h, so that
 * either formulation may implement it.  The natural coordinates implement it
 * in integrate/dae_natural.c (not under formulation/natural: their forces
 * include the compliant contacts and the force elements of dynamics/, and
 * the AL matrix is analysis/system.c's, both above the formulation layer).
 */
#ifndef MBS_DAE_FORM_H
#define MBS_DAE_FORM_H

#include "mbs/model/data.h"

typedef struct mbs_dae_form {
    const char *name;     /* "natural"                                            */
    int n;                /* coordinates q (and rates v)                          */
    int ne;               /* constraint equations, rows of Phi                    */
    int has_stiffness;    /* Q depends on q or v (springs, dampers, contacts...):
                             the AL tangent takes their Jacobians                 */
    double length_scale;  /* the model's characteristic length (tolerances)       */
    double mass_scale;    /* the mean diagonal of M (penalty scaling)             */
    int jac_nnz;          /* entries of the Jacobian storage d->jac               */
    int nggl;             /* unknowns of the GGL Newton matrix (q, v, lam, mu)    */
    void *ctx;            /* the formulation's evaluation context, passed to each hook */

    /* The pattern of Phi_q (Moreau-Jean's islands and their KKT blocks):
     * row r's entries are d->jac[off .. off + nnz) (jac_row), in the columns
     * jac_cols[off .. off + nnz).  Read when a workspace is made. */
    const int *jac_cols;
    void (*jac_row)(void *ctx, int r, int *off, int *nnz);

    /* The mass matrix in compressed rows: row i's entries in the columns
     * mass_col[mass_ptr[i] .. mass_ptr[i + 1]), a pattern fixed for the run
     * (NULL: none given; Moreau-Jean and the event-driven integrator then
     * refuse the form).  mass_val: its values when M is constant (the
     * natural coordinates: Moreau-Jean forms its free bodies' M^-1 once);
     * NULL when M depends on q, whose values mass_eval gives. */
    const int *mass_ptr, *mass_col;
    const double *mass_val;

    /* With mass_val NULL: the values of M(q) in the pattern above into val
     * (mass_ptr[n] entries).  Moreau-Jean calls it once per step, at the
     * step's midpoint q_m, and factorises its islands' KKT matrices
     * [M(q_m) Phi_q^T; Phi_q 0] with these values (the islands too large
     * for a dense block go through kkt_factor, which takes q).  NULL with
     * a constant M (mass_val given). */
    void (*mass_eval)(void *ctx, const double *q, double *val);

    /* Coordinates q when they are not the velocities' layout (a ball
     * joint's quaternion: 4 coordinates for 3 rates): nq entries in q and
     * in every position array the integrator keeps (d->x, d->xp); 0 means
     * n.  With nq != n, advance is required. */
    int nq;

    /* q' = G(q) v: qout = q + s G(q) v to first order in s, on the
     * coordinates' manifold (a formulation may take the exact map, e.g. a
     * quaternion rotated by s w, and normalise); qout (nq) may be q.  NULL:
     * q' = v, and the integrator adds s v itself (the natural coordinates).
     * Moreau-Jean calls it a few times per step (the midpoint, the step's
     * end, each correction of the projection onto Phi = 0, whose dq is in
     * the velocities' layout), never per contact. */
    void (*advance)(void *ctx, const double *q, const double *v, double s, double *qout);

    /* y = M v (M constant or at the last q the formulation was given; with
     * mass_eval, Moreau-Jean forms M(q_m) v from mass_eval's values instead). */
    void (*mass_mul)(void *ctx, const double *v, double *y);

    /* The generalized forces Q(q, v, t) (applied, velocity terms, compliant
     * contacts), n entries. */
    void (*forces)(void *ctx, const double *q, const double *v, double t, double *Q);

    /* The same without the compliant contacts (the BDF with contact force
     * unknowns adds them as unknowns of its own). */
    void (*forces_noncontact)(void *ctx, const double *q, const double *v, double t, double *Q);

    /* Phi(q, t) into phi (ne) and Phi_q into the formulation's jac. */
    void (*constraints)(void *ctx, const double *q, double t, double *phi, double *jac);

    /* Phi_t(q, t) into phit (ne). */
    void (*phi_t)(void *ctx, const double *q, double t, double *phit);

    /* The acceleration term gamma = (Phi_q v)_q v + 2 Phi_qt v + Phi_tt
     * into gam (ne), so that the acceleration constraint is
     * Phi_q v' + gamma = 0 (natural.h's sign). */
    void (*gamma)(void *ctx, const double *q, const double *v, double t, double *gam);

    /* The index-1 right-hand side with Baumgarte's terms,
     *   c = gamma + 2 alpha (Phi_q v + Phi_t) + beta^2 Phi   (ne entries),
     * at (q, v, t); Phi and Phi_q are left in d->phi and d->jac (the
     * event-driven integrator's smooth phases: Phi_q a = -c). */
    void (*baumgarte_rhs)(void *ctx, const double *q, const double *v, double t, double alpha, double beta,
                          double *c);

    /* y = Phi_q v (jac from `constraints`, y of ne entries). */
    void (*jv)(void *ctx, const double *jac, const double *v, double *y);

    /* z += Phi_q^T l (jac from `constraints`, l of ne entries). */
    void (*jtl)(void *ctx, const double *jac, const double *l, double *z);

    /* The SPD matrix A = cM M + cP Phi_q^T Phi_q + cK K + cC C (K, C the
     * Jacobians -dQ/dq, -dQ/dv at (q, v, t), symmetrised; left out when both
     * cK and cC are 0), with the Jacobian of the last `constraints` into
     * d->jac and the
     * active equations of d->eq_on: built and factorised.  0, or non-zero
     * when A is not positive definite. */
    int (*al_factor)(void *ctx, double cM, double cP, double cK, double cC, const double *q, const double *v,
                     double t);

    /* b = A^-1 b with the last factorisation (n entries, in place). */
    void (*al_solve)(void *ctx, double *b);

    /* The KKT matrix [M Phi_q^T; Phi_q 0] at the Jacobian in d->jac and the
     * active equations of d->eq_on (an inactive equation's row is the unit
     * row): built and factorised (0, or the LAPACK info when singular);
     * solved in place on rhs = [velocities (n); equations (ne)].
     * Moreau-Jean's islands too large for a dense block of their own. */
    int (*kkt_factor)(void *ctx, const double *q, const double *v, double t);
    void (*kkt_solve)(void *ctx, double *rhs);

    /* The stabilised index-2 (GGL) BDF matrix (integrator_bdf.c's header)
     * for the weight w0 at (q, v, t), Jacobian in d->jac: made (storage, at
     * the first run: 0 or MBS_ENOMEM), built and factorised (0; non-zero:
     * singular, or MBS_SPARSE_EFULL when a sparse sink overflowed), solved
     * in place on rhs = [F1; F2; F3; F4] of nggl entries (0; non-zero:
     * failed). */
    int (*ggl_prepare)(void *ctx);
    int (*ggl_factor)(void *ctx, double w0, const double *q, const double *v, double t);
    int (*ggl_solve)(void *ctx, double *rhs);

    /* The rank margin of Phi_q in d->jac against its structural rank (small
     * near a singular position; analysis.h mbs_rank_margin). */
    double (*rank_margin)(void *ctx);
    /* The factor by which the margin's factorisation multiplies each entry
     * of d->jac (jac_nnz values into w; analysis.h mbs_rank_entry_scales),
     * so that a caller can measure how far the Jacobian moved in the
     * margin's own units; NULL: the entries as they are. */
    void (*rank_scales)(void *ctx, double *w);

    /* Choose the independent equations again at the Jacobian in d->jac
     * (d->eq_on): 1 when the set changed. */
    int (*reselect)(void *ctx);

    /* The consistent accelerations d->a and multipliers d->lam at the
     * state (d->x, d->v, d->z) and time t: 0, or non-zero when singular. */
    int (*accelerations)(void *ctx, double t);

    /* The element states' rates zd at (q, v, z, t) (model.h nz entries). */
    void (*zrate)(void *ctx, const double *q, const double *v, const double *z, double t, double *zd);

    /* The rate of joint j at (q, v) (a motor's joint, for the element
     * states' Newton step). */
    double (*joint_rate)(void *ctx, int j, const double *q, const double *v);

    /* The state of force element e, a dc motor (its current's rate and the
     * rate's derivatives: actuator/dcmotor.h), at (q, v, z, t). */
    void (*motor)(void *ctx, int e, const double *q, const double *v, const double *z, double t,
                  mbs_dcmotor_state *st);

    /* With controllers, the element states eliminated from the BDF's
     * Newton system as a block (dynamics/controller.h mbs_zelim_*): at
     * (q, v, d->z, t) and weight w0 the pivots and gains (0, or non-zero
     * when singular); the states' own Newton step at fixed (q, v) with the
     * history term bz (returns max |dz| over the error weights); after the
     * mechanical step (dq, dv), the states following it (the same). */
    int (*zelim_build)(void *ctx, const double *q, const double *v, double t, double w0);
    double (*zelim_pre)(void *ctx, const double *q, const double *v, double t, double w0, const double *bz);
    double (*zelim_post)(void *ctx, const double *dq, const double *dv);

    /* NULL when the model has no energy projection (dynamics/force.h
     * mbs_energy_projectable); else the accepted state in d projected
     * onto the energy of t = 0. */
    void (*energy_project)(void *ctx);

    /* Optional (NULL: the run has no sampled controllers), as the ODE
     * form's (formulation.h): the next sampling instant of a discrete
     * controller after the accepted state in d (INFINITY: none), and the
     * sample at the accepted state d->t (the controllers due then measure
     * d's state; 1 when a held output changed). */
    double (*next_stop)(void *ctx);
    int (*sample)(void *ctx);
} mbs_dae_form;

#endif
