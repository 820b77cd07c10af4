/*
 * contact.h - compliant contacts between body shapes and contact
 * deactivation (internal; see contact.c and docs/contacts.md).
 */
#ifndef MBS_CONTACT_H
#define MBS_CONTACT_H

#include "mbs/contact/broadphase.h"
#include "mbs/model/data.h"

/* Shapes as body-fixed affine maps; pairs' variables.  0 or MBS_E*. */
int mbs_contact_build(mbs_model *m, mbs_errlist *err);

/* Shape i at state x in world coordinates (body-fixed maps evaluated; box
 * axes re-orthonormalised). */
void mbs_contact_world_shape(const mbs_model *m, int i, const double *x, mbs_shape *out);

/* NCS coordinates c of the material point of body b (b >= 0) that is at the
 * world point p at state x: p = r0 + E c with the current NCS vectors E
 * (zeros when E is singular). */
void mbs_contact_material_point(const mbs_model *m, int b, const double *x, const double *p, double *c);

/* Per-run contact state (impact speeds, active set, broad phase). */
int mbs_contact_data_init(const mbs_model *m, mbs_data *d);
void mbs_contact_data_free(mbs_data *d);

/* The compliant law of contact C at one point (shared by the force-element
 * path of this file and the force unknowns of system_contacts.c): gap g (< 0:
 * penetration), normal relative velocity vn of B with respect to A along n
 * (< 0: approaching), tangential relative velocity components vt[0..ntan)
 * along orthonormal directions normal to n, impact speed vimp
 * (mbs_contact_vimp).  f[0] receives the normal force on B along n (>= 0),
 * f[1..ntan] the friction force components along the same directions; all
 * zero when g >= 0. */
void mbs_contact_point_law(const mbs_contact_spec *C, double g, double vn, const double *vt, int ntan, double vimp,
                     double *f);

/* The impact speed the law of pair k uses at approach speed dd: the one
 * recorded when the pair started touching (d->c_vimp), else dd. */
double mbs_contact_vimp(const mbs_data *d, int k, double dd);

/* Add the contact forces at (x, v) to the generalized forces Q (variables):
 * every declared pair, or only the active set with deactivation. */
void mbs_contact_forces(const mbs_model *m, const mbs_data *d, const double *x, const double *v, double *Q);

/* The same per body in body coordinates (nbody x nb), for the reaction
 * recovery's body balances. */
void mbs_contact_forces_body(const mbs_model *m, const mbs_data *d, const double *x, const double *v,
                             double *Qbody);

/* The force of one contact point: F (world) acts on body[1] at its
 * material point c[1] and -F on body[0] at c[0] (NCS coordinates; body -1
 * is the ground); n is the unit normal from A to B. */
typedef struct mbs_cforce {
    int pair;
    int body[2];
    double c[2][3];
    double n[3];
    double F[3];
} mbs_cforce;
/* mbs_cforce_fn, the receiver of such forces, is declared in data.h */

/* Every point force of the compliant pairs in the system at (x, v) (all
 * declared pairs without deactivation), handed to fn. */
void mbs_contact_compliant_each(const mbs_model *m, const mbs_data *d, const double *x, const double *v,
                                mbs_cforce_fn fn, void *ctx);

/* Stiffness/damping of the compliant pairs in the system (K = -dQ/dx, C =
 * -dQ/dv on each body's block), handed to add(ctx, i, j, cK K_ij + cC C_ij)
 * like mbs_force_jac: analytic, from each touching point's force law and
 * point maps (contact.c, s_pair_jac: the turning of the normal and the
 * point maps' dependence on x are left out). */
void mbs_contact_jac(const mbs_model *m, mbs_data *d, const double *x, const double *v, double t, double cK,
                     double cC, void (*add)(void *ctx, int i, int j, double val), void *ctx);

/* The same with K and C to separate sinks in one pass over the pairs:
 * addK(ctxK, i, j, cK K_ij) and addC(ctxC, i, j, cC C_ij), the entries of
 * mbs_contact_jac(.., cK, 0, addK, ctxK) and then of (.., 0, cC, addC,
 * ctxC), each sink's in the same order, with the pairs' geometry, relative
 * velocities and force laws evaluated once instead of twice (the BDF's
 * Newton matrix: K and C are different blocks). */
void mbs_contact_jac_split(const mbs_model *m, mbs_data *d, const double *x, const double *v, double t, double cK,
                           void (*addK)(void *ctx, int i, int j, double val), void *ctxK, double cC,
                           void (*addC)(void *ctx, int i, int j, double val), void *ctxC);

/* The same by finite differences of the pairs' generalized forces (all
 * terms; a pair evaluation per perturbed coordinate): the check of
 * mbs_contact_jac in contact_test. */
void mbs_contact_jac_fd(const mbs_model *m, mbs_data *d, const double *x, const double *v, double t, double cK,
                        double cC, void (*add)(void *ctx, int i, int j, double val), void *ctx);

/* Switches of compliant contacts within a proposed step of length h from
 * (x0, v0) to (x1, v1): the earliest fraction s in (0, 1) of the step at
 * which a pair in the system that was apart at the last accepted step
 * starts touching, or one that was touching comes apart (root of its gap's
 * cubic Hermite interpolant); 1 when none does.  A variable-step explicit
 * integrator ends its step there: stepping over a switch, where the force's
 * second derivative is unbounded (depth^1.5), spoils its error estimate. */
double mbs_contact_switch(const mbs_model *m, const mbs_data *d, const double *x0, const double *v0, const double *x1,
                          const double *v1, double h);

/* After an accepted step of size h (and once at t = 0): impact speeds of
 * pairs that start touching, the next active set, contact metrics. */
void mbs_contact_step(const mbs_model *m, mbs_data *d, double h);

/* The same with the boxes grown for a next step of h_ahead instead of h
 * (h still the step just taken, for the onset speeds): a run that reports
 * its steps in pieces (the relative formulation's samples inside a step,
 * run/relative.c) looks ahead by the whole step.  mbs_contact_step(m, d, h)
 * is mbs_contact_step_ahead(m, d, h, h). */
void mbs_contact_step_ahead(const mbs_model *m, mbs_data *d, double h, double h_ahead);

/* With deactivation, after a step taken with the active set of the last
 * mbs_contact_step: the declared pairs outside that set whose bounding
 * boxes overlap when each body's boxes are grown by how far the body may
 * have moved, dx[i] >= 0 a bound on the change of coordinate i (nvar),
 * beyond the travel they were grown by (an impulse or a force of the step
 * moved it farther than its velocity and acceleration at the step's start
 * foretold: a ball at rest pushed by a falling one).  Their ids in
 * increasing order in out (room for ncontact); returns how many (0 without
 * deactivation or before the first set).  Moreau-Jean checks them
 * (integrator_mj.c) so that a pair the step brings into contact is in its
 * impulse problem, as it is without deactivation. */
int mbs_contact_missed(const mbs_model *m, mbs_data *d, const double *dx, int *out);

/* Forget the contact state of a previous run (called when a run starts). */
void mbs_contact_reset(const mbs_model *m, mbs_data *d);

#endif
