/*
 * contact_rows.h - the rigid contacts as a formulation gives them to a
 * contact integrator (issue 12, docs/formulations.md "The contact rows"):
 * which velocities move each body, and for a declared rigid pair at a
 * configuration q its contact points, each with its gap and its normal and
 * tangent rows on the velocities (a unilateral constraint as a kinematic
 * map: g(q + dq) = g + G_n dq to first order, the relative velocity along
 * n, t1, t2 is G v), in the sparse pattern of the pair (the velocities its
 * rows act on, fixed for the run).
 *
 * The frictional clearance joints of seed 003 come through it too: their end
 * equations, coefficients and sliding rows.
 *
 * Beside formulation/dae_form.h, which gives the equations of motion (mass,
 * forces, constraints, their linear systems), this gives the contacts; the
 * Moreau-Jean time stepper (integrate/integrator_mj.c, mbs_mj_run) and the
 * event-driven integrator (integrate/integrator_ed.c, mbs_ed_run, with
 * ed_contacts.c) see the mechanism only through the two.  The natural
 * coordinates implement it in integrate/contact_natural.c (its points come
 * from contact/contact_rigid.c and its sliding rows from
 * dynamics/joint_friction.c, above the formulation layer, hence not under
 * formulation/natural).
 *
 * Cost: hooks are called when the integrator's workspace is made (bodies,
 * pairs) or once per step with arrays (the points of a list of pairs), never
 * per contact or per iteration of a solver: a step of the 100-ball box
 * visits some 400 pairs and each point many times in its PGS sweeps.
 *
 * Rank: model layer (common/mbs/README.md), so that either formulation may
 * implement it.
 */
#ifndef MBS_CONTACT_ROWS_H
#define MBS_CONTACT_ROWS_H

#include "mbs/model/data.h"

/* One contact point of a rigid pair at a configuration q.  Its rows act on
 * the pair's velocities (mbs_contact_rows.pair_vars, nv of them):
 *   G[0] = the normal row:   dg = G[0] dq,  the normal velocity G[0] v
 *   G[1], G[2] = the tangent rows along t1 (and t2 in space)
 * The natural coordinates' rows are n^T (L(c_B) - L(c_A)) with c_A, c_B the
 * NCS coordinates of the witness points, frozen as material points of their
 * bodies (contact/contact_rigid.c). */
typedef struct {
    int pair;                    /* declared contact index                    */
    int nv;                      /* velocities the rows act on                */
    double g;                    /* gap (< 0: penetration)                     */
    double n[3], t[2][3];        /* unit normal A -> B, tangents (t1, t2, n)  */
    double G[3][2 * MBS_NB_MAX]; /* rows: normal, t1, t2                       */
    int body[2];                 /* A, B (-1: the ground)                      */
    double c[2][3];              /* the witness points in their bodies' own
                                    coordinates (natural: NCS coordinates),
                                    for the contact force outputs            */
} mbs_rpoint;

/* One frictional clearance joint (seed 003, dynamics/joint_friction.h) as
 * the event-driven integrator sees it: its two end equations among the
 * constraints (their multipliers are the normal forces at the slider's
 * ends), its friction coefficients and the walls' offset. */
typedef struct {
    int joint;     /* index in spec->joints                                */
    int eq[2];     /* its end equations (rows of Phi): end 1, end 2         */
    double mu;     /* Coulomb coefficient (kinetic)                         */
    double mus;    /* static coefficient >= mu: the stick limit mu_s Nbar   */
    double hw;     /* half the slider's width (the walls' offset)           */
} mbs_clearance;

typedef struct mbs_contact_rows {
    int nbody;          /* bodies of the spec                                     */
    int body_nv;        /* entries of body_vars: at most this many velocities
                           move one body                                          */
    void *ctx;          /* the formulation's context, passed to each hook         */

    /* At workspace creation.  The velocities that move body b into vars
     * (body_nv entries, -1 where none). */
    void (*body_vars)(void *ctx, int b, int *vars);

    /* The most points declared pair k can report. */
    int (*max_points)(void *ctx, int k);

    /* The velocities the rows of pair k act on (mbs_rpoint.nv of them),
     * fixed for the run; the array stays the formulation's. */
    const int *(*pair_vars)(void *ctx, int k);

    /* Once per step.  The points of the npairs rigid pairs of `pairs` (in
     * that order) at q, at the stamp `stamp` (a number that changes with q:
     * the formulation may keep what it evaluated at q for other pairs of the
     * same stamp, e.g. each shape's world shape), written one pair after
     * the other from out (room for the pairs' max_points): count[j] of pair
     * j.  A pair all of whose points have a gap above reach[j] (reach NULL:
     * none) is left out: count[j] = -1, its smallest gap in gmin[j], and
     * the next pair's points take their place.  A NaN gap is never above. */
    void (*points)(void *ctx, const double *q, long stamp, const int *pairs, int npairs, const double *reach,
                   mbs_rpoint *out, int *count, double *gmin);

    /* Contact deactivation's check after a solve: the pairs outside the
     * active set (model/data.h d->c_active) that the displacements dq (one
     * per velocity, >= 0) could bring into contact, written to out; their
     * number. */
    int (*missed)(void *ctx, const double *dq, int *out);

    /* The frictional clearance joints (the event-driven integrator's).
     * nclear of them; clearance_find fills cj (nclear entries) at the start
     * of a run: 0, or MBS_EINVAL with the message in err when a joint's end
     * equations are not in the model. */
    int nclear;
    int (*clearance_find)(void *ctx, mbs_clearance *cj, mbs_errlist *err);

    /* Once per evaluation of the equations, for every clearance joint f:
     * its sliding velocity vt[f] = W_f v, the dense row W_f = ds/dq (n
     * entries at W + f n) and gam[f] with a_t = W_f a + gam[f]; with V
     * non-NULL also the dense row V_f of the friction's moment (at V + f n;
     * dynamics/joint_friction.h). */
    void (*clearance_slide)(void *ctx, const double *q, const double *v, double *W, double *V, double *gam,
                            double *vt);

    /* Free ctx (called when the integrator's workspace is freed), or NULL. */
    void (*release)(void *ctx);

    /* Contact deactivation's reach, for velocities that are not points'
     * and vectors' rates (NULL: the rule on body_vars, a point of a body
     * moves at most max |v| (1 + L) over its velocities; the natural
     * coordinates).  Once per step, and once more per check after a solve:
     * a bound on the speed of every point of each body's shapes at the
     * configuration q and velocities v into speed (nbody entries; e.g. the
     * sum over a joint path of |rate| x the rate's lever arm).  missed()'s
     * displacements are then bounded by the formulation the same way. */
    void (*body_speeds)(void *ctx, const double *q, const double *v, double *speed);
} mbs_contact_rows;

#endif
