/*
 * system.h - assembling and solving the solver's linear systems (internal).
 *
 * The SPD matrix  A = cM M + cP Phi_q^T Phi_q (+ symmetrised cK K + cC C)
 * is the workhorse of the augmented-Lagrangian integrator, the mass-
 * orthogonal projections, the assembly and the index-1 accelerations.  The
 * KKT matrix [cM M + cK K + cC C + H, Phi_q^T; Phi_q, 0] serves the BDF
 * integrator and static equilibrium.  Both live in mbs_data, in the RCM order
 * chosen by the model.
 */
#ifndef MBS_SYSTEM_H
#define MBS_SYSTEM_H

#include "mbs/model/data.h"

/* Build and factor the SPD matrix from d->jac (current Jacobian), skipping
 * equations switched off (d->eq_on).  With cK or cC non-zero the force
 * Jacobians at (x, v, t) are added, symmetrised.  Returns 0, or the LAPACK
 * info (> 0) when the matrix is not positive definite. */
int mbs_spd_build(const mbs_model *m, mbs_data *d, double cM, double cP, double cK, double cC,
                  const double *x, const double *v, double t);

/* Solve with the factored SPD matrix, b in variable order (in place). */
void mbs_spd_solve(const mbs_model *m, mbs_data *d, double *b);

/* Augmented-Lagrangian solve of   min 1/2 y^T cM M y - f^T y
 * subject to Phi_q y + c = 0, with the SPD matrix already built with
 * (cM, alpha):   A y = f - Phi_q^T (sigma + alpha c),
 *                sigma += alpha (Phi_q y + c)   until |Phi_q y + c| <= tol.
 * sigma (neq) holds the multipliers (in: start, out: final).  Returns the
 * iterations used, or -1 without convergence in maxit. */
int mbs_al_solve(const mbs_model *m, mbs_data *d, const double *f, const double *c, double alpha, double tol,
                 int maxit, double *y, double *sigma);

/* Build and factor the KKT matrix  [cM M + cK K + cC C + cH H(lam), Phi_q^T;
 * Phi_q, 0] (H: constraint Hessian weighted by lam).  Removed equations get
 * a unit diagonal.  Returns 0 or the LAPACK info. */
int mbs_kkt_build(const mbs_model *m, mbs_data *d, double cM, double cK, double cC, double cH, const double *lam,
                  const double *x, const double *v, double t);

/* Solve with the factored KKT matrix: rhs = [r_q (n); r_lam (ne)] in place. */
void mbs_kkt_solve(const mbs_model *m, mbs_data *d, double *rhs);

/* Where matrix entries go: add(ctx, row, column, value), repeated entries
 * summed. */
typedef void (*mbs_add_fn)(void *ctx, int i, int j, double v);

/* Every entry of the stabilised index-2 (GGL) BDF matrix at (x, v, t) for
 * the weight w0, handed to add(ctx, i, j, value) with i, j the nodes q_i = i,
 * v_i = n + i, lam_r = 2n + r, mu_r = 2n + ne + r (model.h), d->jac current.
 * contacts: 1 includes the compliant contacts' finite-difference stiffness
 * and damping (contacts as force elements), 0 leaves them out (contacts with
 * force unknowns, system_contacts.c).  The banded build and the sparse build
 * share this emitter.  With bound != NULL nothing is emitted: *bound is
 * increased by an upper bound of the number of entries (structural counts;
 * every multiplier on), for sizing a sparse sink once. */
void mbs_ggl_emit(const mbs_model *m, mbs_data *d, double w0, const double *x, const double *v, double t,
                  int contacts, mbs_add_fn add, void *ctx, long *bound);

/* The last part of mbs_ggl_emit, the entries that depend on the state
 * through derivatives, each block into its own sink, the same entries in
 * the same order (no counting mode): the force elements' (and with
 * contacts the compliant contacts') stiffness and damping, the constraint
 * Hessian weighted by the multipliers, d(Phi_q v)/dq.  mbs_ggl_emit places
 * them after its identity, mass and Phi_q blocks (I, -I/w0 and -Phi_q^T in
 * the q rows, M and Phi_q^T in the v rows, Phi_q in the lambda and mu rows,
 * a unit diagonal for an equation switched off); a sink that places those
 * first blocks itself (system_ggl_red.c) takes these alone.  Each sink is
 * handed the entries in its block's own indices (variables, or equation and
 * variable): kq the stiffness K/w0 (the v rows' q columns: node (n + i, j)),
 * kv the damping C/w0 (node (n + i, n + j)), hq the constraint Hessian
 * (node (n + i, j)), jq d(Phi_q v)/dq (node (2n + ne + r, j)). */
typedef struct {
    mbs_add_fn kq; void *kq_ctx;
    mbs_add_fn kv; void *kv_ctx;
    mbs_add_fn hq; void *hq_ctx;
    mbs_add_fn jq; void *jq_ctx;
} mbs_ggl_blocks;

void mbs_ggl_emit_blocks(const mbs_model *m, mbs_data *d, double w0, const double *x, const double *v, double t,
                         int contacts, const mbs_ggl_blocks *b);

/* The structural blocks of the GGL matrix, as (row, column) places handed to
 * add(ctx, i, j) (nodes as for mbs_ggl_emit), in a fixed order: q-v
 * coupling, the mass pattern, force elements with a state on their (and
 * their controllers' measured) variables, the bodies carrying contact
 * shapes, the constraint rows; with hess_superset every pair of an
 * equation's columns on its v rows as well (a superset of the constraint
 * Hessian's places, for the ordering's graph; the sparse pattern takes the
 * Hessian's own places from the functions instead).  Shared by the RCM
 * ordering (build.c, whose edges must keep this order) and the KLU pattern
 * (system_ggl.c). */
void mbs_ggl_structure(const mbs_model *m, int hess_superset, void (*add)(void *ctx, int i, int j), void *ctx);

/* Build and factor the stabilised index-2 (GGL) BDF matrix at (x, v, t) for
 * the BDF weight w0 (unknowns q, v, lam/w0, mu/w0; see integrator_bdf.c),
 * with d->jac current.  0 or the LAPACK info. */
int mbs_ggl_build(const mbs_model *m, mbs_data *d, double w0, const double *x, const double *v, double t);

/* Solve with the factored GGL matrix, rhs = [F1; F2; F3; F4] in place. */
void mbs_ggl_solve(const mbs_model *m, mbs_data *d, double *rhs);

/* Infinity norm of the active constraint residuals in d->phi. */
double mbs_phi_norm(const mbs_data *d);


#endif
