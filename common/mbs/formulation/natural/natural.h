/*
 * natural.h - the natural-coordinate formulation (internal): building the
 * coordinates of a model (model.h's layout), the maps of body points and
 * vectors, and the constraint equations Phi, Phi_q, Phi_t, gamma.
 */
#ifndef MBS_NATURAL_H
#define MBS_NATURAL_H

#include "mbs/model/model.h"

/* ---- ncs.c: choosing and building the natural coordinates ---------------- */

/* Build bodies, variables, mass matrix and equations. 0 or MBS_E*. */
int mbs_ncs_build(mbs_model *m, mbs_errlist *err);

/* ncs_equations.c: the equations of rigid bodies, joints (el: what
 * elimination absorbed, per joint) and drivers; patterns, joint measures,
 * counts in m->report0.  0 or MBS_ENOMEM. */
int mbs_ncs_equations(mbs_model *m, const mbs_elim *el);
/* Free the pool of the equations' affine vectors (m->eqav); NULL after. */
void mbs_ncs_equations_free(mbs_model *m);

/* NCS coordinates of a global point / direction of body b at t = 0. */
void mbs_local_point(const mbs_model *m, int b, const double p[3], double c[3]);
void mbs_local_dir(const mbs_model *m, int b, const double v[3], double c[3]);

/* Linear map of a body point (is_point = 1) or body vector (0) with NCS
 * coordinates c: fills L (dim x nb, row-major). */
void mbs_point_map(const mbs_model *m, int b, const double c[3], int is_point, double *L);

/* The NCS vectors of body b from its coordinates (or their rates) qb, as the
 * columns of E (3 x 3, row-major): 3-D e1 e2 e3; 2-D e1, P e1 and the z axis
 * (E is then a scaled rotation with det |e1|^2). */
void mbs_ncs_matrix(const mbs_model *m, int b, const double *qb, double *E);

/* Gather body coordinates qb from the global vector x (constants filled).
 * With is_rate = 1 the constants are replaced by 0 (velocities, accels). */
void mbs_gather(const mbs_model *m, int b, const double *x, int is_rate, double *qb);

/* Affine vector of a body point (is_point) or body vector given globally at
 * t = 0; ground (b < 0) gives the constant. */
mbs_avec mbs_body_avec(const mbs_model *m, int b, const double *g, int is_point);

/* Evaluate an affine vector at x (out: dim), or its rate for velocities. */
void mbs_avec_eval(const mbs_model *m, const mbs_avec *a, const double *x, int is_rate, double *out);

/* ---- constraint.c ---------------------------------------------------------- */

/* The equations' affine vectors' Jacobian columns, computed once (they are
 * constant) into m->jcpool and each equation's jc / njc.  0 or
 * MBS_ENOMEM.  Called by mbs_ncs_build. */
int mbs_cons_jac_prepare(mbs_model *m);

/* Phi (and Jacobian if jac != NULL) at (x, t). */
void mbs_cons_eval(const mbs_model *m, const double *x, double t, double *phi, double *jac);
/* Phi_t at (x, t). */
void mbs_cons_phit(const mbs_model *m, const double *x, double t, double *phit);
/* gamma(x, v, t) such that Phi_q a + gamma = 0 is the acceleration constraint. */
void mbs_cons_gamma(const mbs_model *m, const double *x, const double *v, double t, double *gam);
/* A TRIG equation's weights (model.h) at th: W[m] = c_m cos k th + s_m sin
 * k th and W1[m] = dW_m/dth, m < 2. */
void mbs_cons_trig_w(const mbs_eq *e, double th, double *W, double *W1);
/* y += scale * Phi_q^T lambda-weighted Hessian times dx:
 *   y += scale * sum_i lam_i d/dx(Phi_q,i^T) dx  (second derivatives). */
void mbs_cons_hess_add(const mbs_model *m, const double *x, double t, const double *lam,
                       double scale, void (*add)(void *ctx, int i, int j, double v), void *ctx);
/* add(ctx, r, j, scale * d(Phi_q v)_r / dx_j): the position derivative of
 * the velocity constraint (for the stabilised index-2 BDF matrix). */
void mbs_cons_jvq_add(const mbs_model *m, const double *x, const double *v, double t, double scale,
                      void (*add)(void *ctx, int row, int col, double val), void *ctx);
/* y = Phi_q v (neq) and z += Phi_q^T l (nvar). */
void mbs_cons_jv(const mbs_model *m, const double *jac, const double *v, double *y);
void mbs_cons_jtl(const mbs_model *m, const double *jac, const double *l, double *z);

/* ---- ncs.c: force elements ------------------------------------------------ */

/* Append the variables of body b (none for the ground) to f->vars, once each. */
void mbs_fel_add_body(const mbs_model *m, mbs_fel *f, int b);

#endif
