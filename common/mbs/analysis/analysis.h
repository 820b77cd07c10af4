/*
 * analysis.h - analyses shared by the integrators (internal).
 */
#ifndef MBS_ANALYSIS_H
#define MBS_ANALYSIS_H

#include "mbs/model/data.h"

/* Penalty factor alpha of the augmented-Lagrangian solves (mass-scaled). */
double mbs_alpha(const mbs_model *m);

/* 1 when the run's method keeps redundant constraint equations (d->eq_on
 * all 1: dynamics with trapezoidal_al, and the kinematic analysis, both
 * solving by augmented-Lagrangian iterations), 0 when it needs an
 * independent set (the BDF's, DOPRI5's and the event-driven integrator's,
 * chosen again along the motion with mbs_reselect_redundant). */
int mbs_keeps_redundant(const mbs_model *m);

/* How close the constraint Jacobian in d->jac is to losing rank against
 * the model's structural rank (neq minus the redundant equations found at
 * assembly): |R_rr| / |R_11| of a QR factorisation with column pivoting of
 * Phi_q^T scaled as every rank analysis here measures it (its length
 * variables in units of the mechanism's length, then each equation's row
 * to about unit length, by powers of two: analysis.c s_jac_fill), r that
 * rank (1 without constraints; 0 on failure).  The scaling makes it a
 * measure of the geometry, not of the equations' units nor the unit of
 * length: a link-length equation's row is
 * 2 sqrt(2) L long, a unit vector's 2, so that unscaled the 12.7 mm links
 * of the roller chain drive gave 0.0037 at every regular position (the
 * singular-position rules fired all the run) and now give 0.21; the
 * N-four-bar's passages stay below 1e-2 (docs/accuracy.md).  Dense: for
 * occasional checks (a singular position), not for every step; a Jacobian
 * that splits into independent blocks (free bodies: N balls on a floor)
 * is factorised block by block (rank_margin.h), linear in the number of
 * blocks; 1 (not measured) when one dense Phi_q^T (or one block's) would
 * exceed 4e6 entries, whose redundancy analysis at assembly is sparse
 * (sparse_qr.h).  The spatial rotors' variables and equations (model.h
 * rotor3: a square block, regular, of their own) are left out: the margin
 * is that of the bodies' equations, dense (not block by block). */
double mbs_rank_margin(const mbs_model *m, mbs_data *d);

/* The factor by which mbs_rank_margin's scaling (analysis.c s_jac_fill)
 * multiplies each entry of d->jac, a power of two, into w (the Jacobian's
 * storage order, m->colpool).  Without memory for the column exponents,
 * 1 everywhere. */
void mbs_rank_entry_scales(const mbs_model *m, mbs_data *d, double *w);

/* Free what mbs_rank_margin keeps in d: the dense QR workspace
 * (d->rank_ws) and the column exponents (d->rank_colexp). */
void mbs_rank_ws_free(mbs_data *d);

/* Choose the independent constraint equations again (d->eq_on) at the
 * Jacobian in d->jac: the first neq - redundant columns of a QR with column
 * pivoting of Phi_q^T, the best conditioned set there.  For the methods
 * that need an independent set (BDF): a set chosen at assembly can
 * degenerate later in the motion (Bricard's at theta1 = pi/2).  Returns 1
 * when the set changed (multipliers of equations switched off are set to
 * 0), 0 when not or on failure.  Dense, like mbs_rank_margin (never for
 * a model above its size limit: 0). */
int mbs_reselect_redundant(const mbs_model *m, mbs_data *d);

/* The constraints at (x, v, t) into d (phi, jac, phit, gam, and Phi_q v in
 * d->r1), and the right-hand side of their Baumgarte-stabilised
 * acceleration equations Phi_q a = -c (integrator_rk.c, integrator_ed.c):
 *     c = gamma + 2 alpha_B (Phi_q v + Phi_t) + beta_B^2 Phi   (ne). */
void mbs_baumgarte_rhs(const mbs_model *m, mbs_data *d, const double *x, const double *v, double t, double ab,
                       double bb, double *c);

/* "joint 'A'", "rigid body 'crank'" or "driver of joint 'A'" for equation i. */
const char *mbs_eq_owner(const mbs_model *m, int i, char *buf, size_t size);

/* Mass-orthogonal projection of vin onto Phi_q v + Phi_t = 0 at (d->x, t);
 * result in d->v. */
int mbs_project_velocity(const mbs_model *m, mbs_data *d, const double *vin, double t);

/* Consistent accelerations and multipliers at (d->x, d->v, t) into d->a and
 * d->lam (index-1 problem solved by augmented-Lagrangian iterations). */
int mbs_accelerations(const mbs_model *m, mbs_data *d, double t);

/* Static equilibrium at time t from d->x: Newton on [Q - Phi_q^T lam = 0,
 * Phi = 0].  0 or MBS_E*. */
int mbs_statics(const mbs_model *m, mbs_data *d, double t, mbs_errlist *err);

#endif
