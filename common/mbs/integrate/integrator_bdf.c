/*
 * integrator_bdf.c - variable-order (1..5), variable-step BDF (Gear)
 * predictor-corrector with modified Newton, on the stabilised index-2 form of
 * Gear, Gupta and Leimkuhler (GGL; the "SI2" setting of ADAMS GSTIFF):
 *
 *     q' = v + Phi_q^T mu,   M v' = Q - Phi_q^T lam,
 *     Phi(q, t) = 0,         Phi_q v + Phi_t = 0,
 *
 * so that positions AND velocities satisfy their constraints and both are
 * under error control (the plain index-3 form loses the velocities when the
 * step varies).  The BDF derivative at t_{n+1} of the polynomial through the
 * new point and the last k points (coefficients from the actual times) gives
 *     q' = w0 q + bq,   v' = w0 v + bv.
 * Newton unknowns (q, v, lam/w0, mu/w0); equations scaled by 1/w0:
 *     F1 = (w0 q + bq - v - Phi_q^T mu) / w0,  F2 = (M v' + Phi_q^T lam - Q) / w0,
 *     F3 = Phi,                                F4 = Phi_q v + Phi_t,
 * whose matrix  [I, -I/w0, 0, -Phi_q^T; (K+H)/w0, M + C/w0, Phi_q^T, 0;
 * Phi_q, 0, 0, 0; 0, Phi_q, 0, 0]  stays well conditioned as h -> 0 (banded
 * LU after reverse Cuthill-McKee; the second derivative of Phi_q v is left
 * out: modified Newton).  The matrix is kept between iterations and steps
 * and refreshed when the convergence is slow or w0 moved by more than 25 %.
 * Local error from the predictor-corrector difference of q and v.
 *
 * Singular positions (the constraint Jacobian loses rank for an instant,
 * e.g. the N-four-bar with its cranks horizontal; issue 9).  q and v stay
 * smooth through them, but the multipliers have a pole (|lam| ~ F / sigma,
 * sigma the vanishing singular value) and the degenerate components of the
 * Newton solution are fixed only to rounding / sigma^2.  "Near a singular
 * position" below means: the rank margin of the constraint Jacobian
 * (mbs_rank_margin: QR with column pivoting against the structural rank;
 * spatial rotors' block left out, docs/accuracy.md) is below
 * SING_RANK_MARGIN; it is computed only when one of the three situations
 * arises, so regular mechanisms run as before, and taken from the
 * last one computed while the Jacobian has barely moved and that margin is
 * far from the threshold asked (s_margin_below).  Three rules make
 * the passage independent of rounding:
 *  - a step ending near a singular position whose converged multipliers
 *    jumped by more than SING_LAM_JUMP (against the last accepted step's and
 *    their running mean) is retaken with half the step, and the following
 *    steps keep their end at least SING_MARGIN x h away from that time: a
 *    point in the history whose velocities are fixed only by rounding made
 *    every later step fail its error test until h fell below min_step;
 *  - near a singular position, Newton iterates whose q, v increments have
 *    stagnated at a fraction (NEWTON_NOISE) of the error weights are
 *    accepted: that is the rounding floor of the degenerate components, and
 *    asking for 1e-3 of the weights there could not succeed;
 *  - near a singular position (at the last accepted point), a second
 *    rejection in a row lowers the order by one, a third to 1 (DASSL's
 *    rule; elsewhere the order still goes to 1 at the second): going
 *    straight to BDF1 at the step of BDF5 made the error estimate explode
 *    and the step collapse into the singular position.
 * Without any one of the three, runs still failed under some rounding
 * (measured: 1e-12 perturbed initial conditions, 30 seeds, reference BLAS
 * and OpenBLAS; docs/accuracy.md).  At tight tolerances a fourth:
 *  - after a rejection at a local tolerance below NOISE_RTOL, the Newton
 *    and error weights are multiplied by max(1, NOISE_C eps / (r^2 rtol)),
 *    r the rank margin at the step's last iterate, and follow r at every
 *    accepted step until the factor is back to 1: the rounding noise of
 *    the degenerate components (velocities fixed to about eps / r^2) is no
 *    error the step control can reduce.  Without it, local tolerances
 *    below 1e-10 stopped at the N-four-bar's first passage.
 *
 * Redundant constraints: the independent set (d->eq_on) chosen at assembly
 * is chosen again (mbs_reselect_redundant) after a Newton failure, since it
 * can degenerate at a regular position of the mechanism (Bricard's at
 * theta1 = pi/2).
 *
 * Element states z (a motor's current when its inductance is > 0, model.h
 * nz): z' = f(z, q, v, t) joins as G = w0 z + bz - f = 0 with z' from the
 * same BDF formula, z in the history, predictor and error estimate under
 * its own weights (accuracy.h mbs_tolerance_current).  In Newton each
 * state's row is eliminated (Schur complement of its scalar pivot D = w0 -
 * df/dz): dz = (r_z + df/dw dw) / D, so the mechanical rows see the torque
 * through the current as T(z + r_z / D + kappa (w(q, v) - w)), kappa =
 * (df/dw) / D: the right-hand side takes the forces at z + r_z / D, and the
 * Newton matrix's finite-difference stiffness and damping let the current
 * follow the joint's rate by kappa (force.c, d->zkap).  That is the exact
 * Newton matrix of the coupled system (no lagging of the coupling), with
 * the banded GGL layout and its ordering unchanged: extra rows and columns
 * for z would have meant a new ordering and band for every model with a
 * motor, for a block that is one scalar per motor.  After the mechanical
 * solve z moves by kappa times the change of the joint's rate.
 *
 * With solver.contact_force_unknowns the compliant contacts' force
 * components f are Newton unknowns too (ADAMS' form): F2 gets - G^T f in
 * place of the contacts' part of Q, and F5 = f - law(q, v) is added, the
 * whole matrix going to KLU (system_contacts.c).  f is predicted by the law
 * at the predicted state and converges under the multipliers' test.
 */
#include "mbs/integrate/integrators.h"
#include "mbs/model/accuracy.h"
#include "mbs/integrate/system_contacts.h"
#include "mbs/integrate/system_ggl.h"
#include "mbs/integrate/bdf_sample.h"
#include "mbs/integrate/bdf_coef.h"
#include "mbs/linalg/vec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Singular positions (see the header): a converged max |lam| more than
 * SING_LAM_JUMP times the last accepted step's marks a step ending near a
 * singular position; later steps end at least SING_MARGIN x h away from
 * it; at most SING_RETRIES retakes per step.  NEWTON_NOISE: q, v increments
 * (units of the error weights) below which a stagnating Newton iteration
 * is at its rounding floor. */
#define SING_LAM_JUMP 10.0
#define SING_MARGIN 0.25
#define SING_RETRIES 2
#define NEWTON_NOISE 0.2
/* Newton increments are measured against weights no smaller than
 * NEWTON_ROUND |x|: an increment of 4 ulps of the coordinate counts as
 * 1e-3 of its weight, i.e. converged.  Local tolerances reach 1e-13 x L
 * (accuracy.c's floor) while a coordinate may be 40 L from the origin (the
 * N = 40 four-bar's far end: ulp 7e-15 > 1e-3 x 6e-13): the absolute test
 * could then never be met, only the contraction test, which rounding noise
 * makes a coin flip (reference_test's N = 40 run at tolerance 1e-10 stopped
 * at t = 3.22 s under some settings and BLAS, Newton failing at every step
 * size down to min_step). */
#define NEWTON_ROUND (1e3 * 4 * 2.2e-16)
/* Rounding noise near a singular position: the degenerate components of
 * the Newton solution (velocities in particular) are fixed only to about
 * eps / r^2 relative, r the rank margin; the weights of the Newton and error
 * tests are kept above NOISE_C times that (at r = 3e-3, 1e-10: with local
 * tolerances of 1e-12 the N-four-bar's passages could be neither converged
 * nor passed; at regular positions, r > 0.1, it is below 1e-13). */
#define NOISE_C 4.0
/* only below this local tolerance can the noise reach the weights at a
 * rank margin above 3e-4 (the rank margin costs a QR of the Jacobian) */
#define NOISE_RTOL 1e-8
/* rank margin (mbs_rank_margin) below which a point is near a singular
 * position (measured at dopri5's slowest stages: the N-four-bar's passages
 * 4.7e-4 .. 8.4e-3; Bricard's regular positions >= 0.137) */
#define SING_RANK_MARGIN 3e-2

/* Push the accepted state to the front of the history. */
static void s_push(mbs_data *d, int n)
{
    double *oq = d->qh[MBS_BDF_HIST - 1], *ov = d->vh[MBS_BDF_HIST - 1], *ol = d->lh[MBS_BDF_HIST - 1];
    double *oz = d->zh[MBS_BDF_HIST - 1];
    for (int h = MBS_BDF_HIST - 1; h > 0; h--) {
        d->qh[h] = d->qh[h - 1]; d->vh[h] = d->vh[h - 1]; d->lh[h] = d->lh[h - 1]; d->th[h] = d->th[h - 1];
        d->zh[h] = d->zh[h - 1];
    }
    d->qh[0] = oq; d->vh[0] = ov; d->lh[0] = ol; d->zh[0] = oz;
    memcpy(d->zh[0], d->z, sizeof(double) * (size_t)d->m->nz);
    memcpy(d->qh[0], d->x, sizeof(double) * (size_t)n);
    memcpy(d->vh[0], d->v, sizeof(double) * (size_t)n);
    if (d->ne > 0) memcpy(d->lh[0], d->lam, sizeof(double) * (size_t)d->ne);
    d->th[0] = d->t;
    if (d->nhist < MBS_BDF_HIST) d->nhist++;
}

/* Weighted RMS norm of the k-th backward difference (mbs_bdf_scaled_divdiff, bdf_coef.h) of
 * the history plus the new point (xn, vn, d->z at time t1): positions,
 * velocities and element states, the estimate of order k - 1's error.  The
 * positions' and velocities' tables go through mbs_bdf_divdiff_rows in
 * d->bdf_dd (the same bits as one sequence at a time). */
static double s_diff_norm(mbs_data *d, int n, int k, double t1, const double *xn, const double *vn)
{
    double tau[8], y[8];
    tau[0] = t1;
    for (int j = 1; j <= k; j++) tau[j] = d->th[j - 1];
    size_t nb = sizeof(double) * (size_t)n;
    double *X = d->bdf_dd, *V = d->bdf_dd + (size_t)(k + 1) * (size_t)n;
    memcpy(X, xn, nb);
    memcpy(V, vn, nb);
    for (int j = 1; j <= k; j++) {
        memcpy(X + (size_t)j * (size_t)n, d->qh[j - 1], nb);
        memcpy(V + (size_t)j * (size_t)n, d->vh[j - 1], nb);
    }
    mbs_bdf_divdiff_rows(X, n, tau, k);
    mbs_bdf_divdiff_rows(V, n, tau, k);
    double f = mbs_bdf_divdiff_scale(tau, k);
    const double *xk = X + (size_t)k * (size_t)n, *vk = V + (size_t)k * (size_t)n;
    double acc = 0;
    for (int i = 0; i < n; i++) {
        double dx = f * xk[i], dv = f * vk[i];
        double wx = mbs_wx(d, i, fabs(xn[i])), wv = mbs_wv(d, i, fabs(vn[i]));
        acc += (dx / wx) * (dx / wx) + (dv / wv) * (dv / wv);
    }
    /* the element states (d->z: the new point) */
    int nz = d->m->nz;
    for (int q = 0; q < nz; q++) {
        y[0] = d->z[q];
        for (int j = 1; j <= k; j++) y[j] = d->zh[j - 1][q];
        double dz = mbs_bdf_scaled_divdiff(y, tau, k);
        double wz = mbs_wz(d, q, fabs(d->z[q]));
        acc += (dz / wz) * (dz / wz);
    }
    return sqrt(acc / (2.0 * (n > 0 ? n : 1) + nz));
}


/* Whether the rank margin of the Jacobian in d->jac (mbs_rank_margin) is
 * below thr.  The dense QR with column pivoting that the margin takes is
 * skipped when the last margin computed (d->rm_val, at the Jacobian kept in
 * d->rm_jac) answers the question: no entry of the Jacobian has moved by
 * more than RM_MOVE x that margin x the length of its row then, both in
 * the units the margin measures them (f->rank_scales: each entry times a
 * power of two; d->rm_tol holds each entry's bound), and that margin is
 * more than a factor RM_GAP away from thr either way.  R's diagonal moves
 * with the matrix by about the size of the change (the singular values by
 * at most its norm; with the pivoting this is the usual behaviour, not a
 * proven bound), so the margin has moved by about 5 % of itself, and the
 * answer is the one a fresh QR gives unless the margin sat within 50 % of
 * thr (ten times that).  fresh_below: a margin below thr is always
 * computed afresh (the caller reads it in d->rm_val).  A form without
 * f->jac_row computes it afresh every time. */
#define RM_MOVE 5e-2
#define RM_GAP 1.5
static int s_margin_below(const mbs_dae_form *f, mbs_data *d, double thr, int fresh_below)
{
    double rc = d->rm_val;
    int nnz = f->jac_nnz;
    if (d->rm_jac && f->jac_row && rc > 0 && (rc > RM_GAP * thr || (rc * RM_GAP < thr && !fresh_below))) {
        int i = 0;
        while (i < nnz && fabs(d->jac[i] - d->rm_jac[i]) <= d->rm_tol[i]) i++;
        if (i == nnz) return rc < thr;
    }
    double r = f->rank_margin(f->ctx);
    if (d->rm_jac && f->jac_row) {
        memcpy(d->rm_jac, d->jac, sizeof(double) * (size_t)nnz);
        /* each entry's scale into rm_tol, then its bound: RM_MOVE r times
         * its scaled row's length, back in the entry's own units */
        double *w = d->rm_tol;
        if (f->rank_scales) f->rank_scales(f->ctx, w);
        else for (int k = 0; k < nnz; k++) w[k] = 1.0;
        for (int e = 0; e < f->ne; e++) {
            int off, cnt;
            double s2 = 0;
            f->jac_row(f->ctx, e, &off, &cnt);
            for (int k = off; k < off + cnt; k++) s2 += (d->jac[k] * w[k]) * (d->jac[k] * w[k]);
            double len = sqrt(s2);
            for (int k = off; k < off + cnt; k++) w[k] = w[k] > 0 ? RM_MOVE * r * len / w[k] : 0;
        }
        d->rm_val = r;
    }
    return !(r >= thr);
}

/* The factor (>= 1) by which the weights must grow so that rounding noise
 * near a singular position (NOISE_C eps / r^2, r the rank margin of the
 * Jacobian in d->jac) stays below them at local tolerance rtol. */
static double s_noise_gain(const mbs_dae_form *f, mbs_data *d, double rtol)
{
    /* no gain above the margin sqrt(NOISE_C eps / rtol) */
    if (!s_margin_below(f, d, sqrt(NOISE_C * 2.2e-16 / rtol), 1)) return 1.0;
    double r = d->rm_val;
    if (!(r > 0)) return 1e6;
    return fmax(1.0, NOISE_C * 2.2e-16 / (r * r * rtol));
}

/* The joint rate of the element owning element state q (a motor's joint). */
static double s_motor_rate(const mbs_dae_form *f, const mbs_model *m, int q, const double *x, const double *v)
{
    return f->joint_rate(f->ctx, m->spec->forces[m->z_force[q]].joint, x, v);
}

/* ---- workspace ------------------------------------------------------------------------ */

int mbs_bdf_ws_make(const mbs_dae_form *f, const mbs_model *m, mbs_data *d)
{
    int nn = f->n > 0 ? f->n : 1, nq = f->ne > 0 ? f->ne : 1, ok = 1;
    /* the past points: positions, velocities, multipliers */
    for (int h = 0; h < MBS_BDF_HIST; h++) {
        d->qh[h] = calloc((size_t)nn, sizeof(double));
        d->vh[h] = calloc((size_t)nn, sizeof(double));
        d->lh[h] = calloc((size_t)nq, sizeof(double));
        d->zh[h] = calloc((size_t)(m->nz > 0 ? m->nz : 1), sizeof(double));
        ok &= d->qh[h] && d->vh[h] && d->lh[h] && d->zh[h];
    }
    ok &= (d->rm_jac = calloc((size_t)f->jac_nnz + 1, sizeof(double))) != NULL;
    /* the order selection's divided-difference tables (s_diff_norm): up to
     * MBS_BDF_HIST + 1 rows of positions and of velocities */
    ok &= (d->bdf_dd = calloc(2 * (MBS_BDF_HIST + 1) * (size_t)nn, sizeof(double))) != NULL;
    ok &= (d->rm_tol = calloc((size_t)f->jac_nnz + 1, sizeof(double))) != NULL;
    d->rm_val = -1;
    /* the restart at a controller's sample (bdf_sample.c) */
    if (ok && m->nctrl > 0) ok = (d->bdf_smp = calloc(mbs_bdf_sample_size(f, m), sizeof(double))) != NULL;
    /* the stabilised index-2 matrix is made by the first BDF run
     * (f->ggl_prepare), not here, so that a model check does not pay for
     * it; the contact force unknowns */
    int cu = m->spec->solver.contact_force_unknowns;
    if (ok && cu && mbs_cu_ws_new(m, d)) ok = 0;
    return ok ? 0 : -1;
}

void mbs_bdf_ws_free(mbs_data *d)
{
    for (int h = 0; h < MBS_BDF_HIST; h++) {
        free(d->qh[h]); free(d->vh[h]); free(d->lh[h]); free(d->zh[h]);
        d->qh[h] = d->vh[h] = d->lh[h] = d->zh[h] = NULL;
    }
    free(d->bdf_smp);
    d->bdf_smp = NULL;
    free(d->bdf_dd);
    d->bdf_dd = NULL;
    free(d->rm_jac);
    free(d->rm_tol);
    d->rm_jac = d->rm_tol = NULL;
    mbs_mat_free(&d->ggl);
    mbs_ggl_sp_free(d);
    mbs_cu_ws_free(d);
}

/* ---- the integrator --------------------------------------------------------------------- */

int mbs_bdf_run(const mbs_dae_form *f, const mbs_model *m, mbs_data *d, mbs_stepper *run, mbs_errlist *err)
{
    if (f->ggl_prepare(f->ctx)) {
        mbs_err_add(err, "", "out of memory for the BDF's Newton matrix (%d unknowns)", f->nggl);
        return MBS_ENOMEM;
    }
    const mbs_solver_spec *o = &m->spec->solver;
    int n = f->n, ne = f->ne;
    double T = o->t_end;
    double rtol = d->tol.rtol;
    /* A given abs_tolerance may be far tighter than rtol (the N = 40
     * four-bar written with abs_tolerance 1e-9, run at tolerance 1e-6: local
     * 2e-8 relative, 5e-13 of its 40 m extent absolute): the rounding noise
     * at a passage then reaches the absolute weights while the relative ones
     * stay above it, and Newton failed there (t = 2.687 s).  The noise test
     * below also looks at the absolute tolerance relative to the length
     * scale (atol_rel); the absolute tolerances alone are raised above the
     * noise (a_sing, at most to rtol L: beyond, g_sing takes over), since
     * loosening every weight by g_sing would give away the accuracy that the
     * relative ones hold (measured: 2.2 x the criterion at abs_tolerance
     * 1e-12).  Derived weights (per variable, rtol L) need none of this. */
    int abs_given = !d->tol.per_var && d->tol.L > 0 && d->tol.atol_x < rtol * d->tol.L;
    double atol_rel = abs_given ? d->tol.atol_x / d->tol.L : rtol;
    double atol0_x = d->tol.atol_x, atol0_v = d->tol.atol_v, a_sing = 1;
    double hmax = o->max_step > 0 ? o->max_step : run->interval;
    double hmin = o->min_step > 0 ? o->min_step : 1e-12;
    int kmax = o->max_order >= 1 && o->max_order <= 5 ? o->max_order : 5;
    int maxit = o->max_newton > 0 ? (o->max_newton < 6 ? o->max_newton : 6) : 4;
    double h = fmin(o->step > 0 ? o->step : 1e-3, hmax);
    /* work vectors */
    double *xpred = d->rk, *vpred = d->rk + n, *bv = d->rk + 2 * (size_t)n, *ba = d->rk + 3 * (size_t)n;
    struct mbs_cu_ws *cu = d->cu; /* contact force unknowns (NULL: force elements) */
    double *rhs = cu ? cu->rhs : d->w1, *lam_s = d->rk + 4 * (size_t)n; /* lam_s: multipliers saved for a retry */
    double *mu = lam_s + (ne > 0 ? ne : 1);               /* GGL multipliers of Phi_q v + Phi_t */
    double *lam_pred = mu + (ne > 0 ? ne : 1);            /* predicted multipliers              */
    double tau[MBS_BDF_HIST + 1], w[MBS_BDF_HIST + 1], we[MBS_BDF_HIST + 1];
    /* element states: predictor, bz, pivots D, gains kappa and the joint
     * rates before a mechanical solve (see the header) */
    int nz = m->nz;
    size_t zb = sizeof(double) * (size_t)nz;
    double *zpred = d->zs, *bz = d->zk, *zD = d->zk + nz, *zkap = d->zk + 2 * (size_t)nz;
    double *zw = d->zk + 3 * (size_t)nz, *zV = d->zk + 4 * (size_t)nz;
    int k = 1, steps_at_order = 0, fails = 0;
    /* discrete controllers: the step before it was cut to a sample, and
     * whether the last accepted point is a sample (the history moved onto
     * the new motion: bdf_sample.c) */
    double h_free = 0;
    int at_sample = 0;
    /* singular positions: max |lam| of the last accepted step with
     * converged multipliers and its running mean (the floor of the jump test:
     * a multiplier passing near zero, a pendulum's rod at the top, is no
     * jump), the end time of the last step retaken for landing near one
     * (-1: none), retakes of the current step */
    double lam_ref = 0, lam_mean = 0, t_sing = -1;
    double g_sing = 1; /* weights' factor for rounding noise (NOISE_C), >= 1 */
    int sing_retakes = 0;
    for (int i = 0; i < ne; i++) lam_ref = fmax(lam_ref, fabs(d->lam[i]));
    lam_mean = lam_ref;
    memcpy(d->ha, d->a, sizeof(double) * (size_t)n); /* acceleration of the last point */
    d->rm_val = -1; /* no rank margin computed yet (s_margin_below) */
    double w0_fact = 0; /* w0 of the factorised matrix (0: none)             */
    d->nhist = 0;
    s_push(d, n);
    while (d->t < T * (1 - 1e-14)) {
        /* keep the step's end off a singular position found before: just
         * past it by half the distance when that is a modest increase, else
         * short of it; never past it right after a rejection (growing back
         * to the step just rejected retook that step for ever: a fuzzed
         * Bricard, tests/fuzz/fuzz_solve.c) */
        if (t_sing > d->t && fabs(d->t + h - t_sing) < SING_MARGIN * h) {
            double D = t_sing - d->t;
            h = fails == 0 && 1.5 * D <= 1.3 * h && 1.5 * D <= hmax ? 1.5 * D : 0.6 * D;
        }
        if (d->t + h > T || d->t + 1.01 * h > T) h = T - d->t;
        /* a discrete controller's next sample, a kink of an input: the
         * step ends there */
        double t_kink = mbs_next_kink(m, d->t);
        double t_stop = fmin(f->next_stop ? f->next_stop(f->ctx) : INFINITY, t_kink);
        h_free = h;
        if (d->t + 1.01 * h > t_stop) h = t_stop - d->t;
        double t1 = h == t_stop - d->t ? t_stop : d->t + h;
        /* contact force unknowns: the pairs in the system for this step (a
         * new layout makes the factorised matrix stale) */
        if (cu && mbs_cu_layout(m, d)) w0_fact = 0;
        int kk = k < d->nhist ? k : d->nhist; /* order limited by history     */
        if (kk < 1) kk = 1;
        /* predictor: extrapolate x, v through the last kk+1 points (or a
         * Taylor step when only one point is known) */
        int np = d->nhist < kk + 1 ? d->nhist : kk + 1;
        if (np <= 1) {
            for (int i = 0; i < n; i++) {
                xpred[i] = d->x[i] + h * d->v[i] + 0.5 * h * h * d->a[i];
                vpred[i] = d->v[i] + h * d->a[i];
            }
            for (int q = 0; q < nz; q++) zpred[q] = d->z[q] + h * d->zd[q];
        } else {
            for (int j = 0; j < np; j++) tau[j] = d->th[j];
            mbs_bdf_extrap_weights(tau, np - 1, t1, we);
            for (int i = 0; i < n; i++) {
                double sx = 0, sv = 0;
                for (int j = 0; j < np; j++) { sx += we[j] * d->qh[j][i]; sv += we[j] * d->vh[j][i]; }
                xpred[i] = sx;
                vpred[i] = sv;
            }
            for (int q = 0; q < nz; q++) {
                double sz = 0;
                for (int j = 0; j < np; j++) sz += we[j] * d->zh[j][q];
                zpred[q] = sz;
            }
        }
        /* multipliers extrapolated like q and v, linearly, or
         * quadratically on a smooth stretch: order >= 4 and no contacts
         * (they are one order less accurate than q, and jump where contact
         * forces switch).  Starting Newton from the last step's values cost
         * a first correction 1e4 times the tolerance and 5 iterations a
         * step on a pendulum: the stale matrix spread it into q and v.
         * Linear extrapolation still left a median first correction of
         * 1.3e4 times the multipliers' weights on the N = 40 four-bar at
         * 1e-8 (quadratic: 270): the examples' Newton iterations fell by 5
         * to 45 %.  Quadratic at every order doubled the rejected steps of
         * a flywheel spinning up to 240 rad/s and slowed the contact
         * examples (block on incline +29 %). */
        if (np >= 2) {
            int nl = np >= 3 && kk >= 4 && !cu && m->spec->ncontact == 0 ? 3 : 2;
            double tau2[3] = {d->th[0], d->th[1], nl > 2 ? d->th[2] : 0}, we2[3];
            mbs_bdf_extrap_weights(tau2, nl - 1, t1, we2);
            for (int i = 0; i < ne; i++) {
                double s2 = 0;
                for (int j = 0; j < nl; j++) s2 += we2[j] * d->lh[j][i];
                lam_pred[i] = s2;
            }
        } else {
            memcpy(lam_pred, d->lam, sizeof(double) * (size_t)(ne > 0 ? ne : 1));
        }
        /* corrector weights on t1, t_n, ..., t_{n+1-kk} */
        tau[0] = t1;
        for (int j = 1; j <= kk; j++) tau[j] = d->th[j - 1];
        mbs_bdf_deriv_weights(tau, kk, w);
        double w0 = w[0];
        for (int i = 0; i < n; i++) {
            double sx = 0, sv = 0;
            for (int j = 1; j <= kk; j++) { sx += w[j] * d->qh[j - 1][i]; sv += w[j] * d->vh[j - 1][i]; }
            bv[i] = sx;
            ba[i] = sv;
        }
        for (int q = 0; q < nz; q++) {
            double sz = 0;
            for (int j = 1; j <= kk; j++) sz += w[j] * d->zh[j - 1][q];
            bz[q] = sz;
        }
        /* Newton (modified) on the GGL system: q, v from the predictor, lam
         * from the last step, mu = 0 (it vanishes on the exact solution) */
        memcpy(d->x, xpred, sizeof(double) * (size_t)n);
        memcpy(d->v, vpred, sizeof(double) * (size_t)n);
        memcpy(d->z, zpred, zb);
        memcpy(lam_s, d->lam, sizeof(double) * (size_t)(ne > 0 ? ne : 1));
        memcpy(d->lam, lam_pred, sizeof(double) * (size_t)(ne > 0 ? ne : 1));
        memset(mu, 0, sizeof(double) * (size_t)(ne > 0 ? ne : 1));
        int converged = 0, fresh = 0, lam_conv = 0; /* lam_conv: the multipliers converged too */
        double prev = 0, prev_qv = 0;
        for (int attempt = 0; attempt < 2 && !converged; attempt++) {
            if (attempt == 1) {
                if (fresh) break; /* fresh matrix did not help: cut the step */
                memcpy(d->x, xpred, sizeof(double) * (size_t)n);
                memcpy(d->v, vpred, sizeof(double) * (size_t)n);
                memcpy(d->z, zpred, zb);
                /* the retry starts the multipliers from the last step's:
                 * near a degenerate kept set (Bricard's) the extrapolated
                 * ones can send Newton away */
                memcpy(d->lam, lam_s, sizeof(double) * (size_t)(ne > 0 ? ne : 1));
                memset(mu, 0, sizeof(double) * (size_t)(ne > 0 ? ne : 1));
                w0_fact = 0;
            }
            /* contact forces predicted by the law at the predicted state */
            if (cu) {
                mbs_cu_eval(m, d, d->x, d->v);
                mbs_cu_predict(d);
            }
            for (int it = 0; it < maxit; it++) {
                for (int i = 0; i < n; i++) d->a[i] = w0 * d->v[i] + ba[i];
                f->constraints(f->ctx, d->x, t1, d->phi, d->jac);
                if (cu) mbs_cu_eval(m, d, d->x, d->v);
                if (w0_fact == 0 || fabs(w0 / w0_fact - 1) > 0.25) {
                    /* element states: pivots and gains at this iterate, the
                     * gains seen by the finite differences (force.c); with
                     * controllers the states are eliminated as a block */
                    if (m->nctrl > 0 && nz > 0 && f->zelim_build(f->ctx, d->x, d->v, t1, w0)) {
                        w0_fact = 0;
                        break;
                    }
                    for (int q = 0; q < nz && m->nctrl == 0; q++) {
                        mbs_dcmotor_state st;
                        f->motor(f->ctx, m->z_force[q], d->x, d->v, d->z, t1, &st);
                        zD[q] = w0 - st.ddi_di;
                        zkap[q] = st.ddi_dw / zD[q];
                    }
                    if (m->nctrl == 0) memcpy(d->zkap, zkap, zb);
                    d->zgen = m->nctrl > 0;
                    int info = cu          ? mbs_cu_build(m, d, w0, d->x, d->v, t1)
                                           : f->ggl_factor(f->ctx, w0, d->x, d->v, t1);
                    d->zgen = 0;
                    memset(d->zkap, 0, zb);
                    if (info == MBS_SPARSE_EFULL) {
                        mbs_err_add(err, "", "t = %.6g: the sparse Newton matrix%s has more entries than its sink "
                                    "was sized for (internal error)", t1, cu ? " with contact force unknowns" : "");
                        return MBS_EINVAL;
                    }
                    if (info) {
                        w0_fact = 0;
                        break;
                    }
                    w0_fact = w0;
                    fresh = 1;
                } else {
                    mbs_note_system(d, f->nggl + (cu ? cu->nf : 0));
                }
                /* element states: their own Newton step at fixed q, v (dz0 =
                 * r_z / D), before the mechanical residual sees them; the
                 * joint's rate kept for the step after the solve */
                double dz_n = m->nctrl > 0 && nz > 0 ? f->zelim_pre(f->ctx, d->x, d->v, t1, w0, bz) : 0;
                for (int q = 0; q < nz && m->nctrl == 0; q++) {
                    /* the joint's rate at this iterate: at the first, else
                     * kept from the last update (below); the voltage of t1 */
                    if (it == 0) {
                        zw[q] = s_motor_rate(f, m, q, d->x, d->v);
                        zV[q] = mbs_fn_eval(&m->spec->forces[m->z_force[q]].value[0], t1, NULL, NULL);
                    }
                    mbs_dcmotor_state st;
                    mbs_dcmotor_eval(&m->spec->forces[m->z_force[q]].motor, zV[q], d->z[q], zw[q], &st);
                    double dz0 = (st.di - (w0 * d->z[q] + bz[q])) / zD[q];
                    d->z[q] += dz0;
                    dz_n = fmax(dz_n, fabs(dz0) / mbs_wz(d, q, fabs(d->z[q])));
                }
                /* residuals, scaled as the matrix (see the file header) */
                double *F1 = rhs, *F2 = rhs + n, *F3 = rhs + 2 * n, *F4 = rhs + 2 * n + ne;
                for (int i = 0; i < n; i++) F1[i] = w0 * d->x[i] + bv[i] - d->v[i];
                for (int i = 0; i < ne; i++) d->r2[i] = d->eq_on[i] ? -mu[i] : 0;
                f->jtl(f->ctx, d->jac, d->r2, F1);
                /* with force unknowns the contacts enter as - G^T f (F2) and
                 * F5 = f - law (unscaled: its matrix block is I) */
                if (cu) f->forces_noncontact(f->ctx, d->x, d->v, t1, d->Q);
                else f->forces(f->ctx, d->x, d->v, t1, d->Q);
                f->mass_mul(f->ctx, d->a, F2);
                for (int i = 0; i < n; i++) F2[i] -= d->Q[i];
                if (cu) mbs_cu_residual(m, d, F2, rhs + f->nggl);
                for (int i = 0; i < ne; i++) d->r2[i] = d->eq_on[i] ? d->lam[i] : 0;
                f->jtl(f->ctx, d->jac, d->r2, F2);
                f->phi_t(f->ctx, d->x, t1, d->phit);
                f->jv(f->ctx, d->jac, d->v, F4);
                for (int i = 0; i < n; i++) { F1[i] = -F1[i] / w0_fact; F2[i] = -F2[i] / w0_fact; }
                for (int i = 0; i < ne; i++) {
                    F3[i] = d->eq_on[i] ? -d->phi[i] : 0;
                    F4[i] = d->eq_on[i] ? -(F4[i] + d->phit[i]) : 0;
                }
                if (cu) {
                    if (mbs_cu_solve(m, d, rhs)) break;
                } else if (f->ggl_solve(f->ctx, rhs)) {
                    break;
                }
                d->met.newton_iterations++;
                /* updates; convergence measured on q, v and the scaled
                 * multipliers (units of M v) */
                double dn = 0;
                for (int i = 0; i < n; i++) {
                    d->x[i] += F1[i];
                    d->v[i] += F2[i];
                    double wx = mbs_fmax(mbs_wx(d, i, fabs(d->x[i])), NEWTON_ROUND * fabs(d->x[i]));
                    double wv = mbs_fmax(mbs_wv(d, i, fabs(d->v[i])), NEWTON_ROUND * fabs(d->v[i]));
                    dn = mbs_fmax(dn, fabs(F1[i]) / wx);
                    dn = mbs_fmax(dn, fabs(F2[i]) / wv);
                }
                if (cu) dn = fmax(dn, mbs_cu_update(m, d, rhs + f->nggl, w0_fact, rtol, d->tol.atol_x));
                /* element states follow the joint's rate (the eliminated row) */
                if (m->nctrl > 0 && nz > 0) dz_n = fmax(dz_n, f->zelim_post(f->ctx, F1, F2));
                for (int q = 0; q < nz && m->nctrl == 0; q++) {
                    double w_new = s_motor_rate(f, m, q, d->x, d->v), dz1 = zkap[q] * (w_new - zw[q]);
                    zw[q] = w_new;
                    d->z[q] += dz1;
                    dz_n = fmax(dz_n, fabs(dz1) / mbs_wz(d, q, fabs(d->z[q])));
                }
                dn = fmax(dn, dz_n);
                /* the multipliers, in units of M v */
                double dl = 0;
                for (int i = 0; i < ne; i++) {
                    if (!d->eq_on[i]) continue;
                    double wt = f->mass_scale * (d->tol.atol_x + rtol * d->tol.L) + rtol * fabs(d->lam[i] / w0_fact);
                    dl = mbs_fmax(dl, fabs(F3[i]) / wt);
                    d->lam[i] += F3[i] * w0_fact;
                    mu[i] += F4[i] * w0_fact;
                }
                if (!isfinite(dn) || !isfinite(dl)) break;
                dn /= g_sing;
                dl /= g_sing;
                double all = fmax(dn, dl);
                double rate = it > 0 && prev > 0 ? all / prev : 0, rate_qv = it > 0 && prev_qv > 0 ? dn / prev_qv : 0;
                double dn_prev = prev_qv;
                prev = all;
                prev_qv = dn;
                if (all < 1e-3 || (it > 0 && rate < 0.9 && rate / (1 - rate) * all < 0.05)) {
                    converged = lam_conv = 1;
                    break;
                }
                /* the step is decided on the positions and velocities: the
                 * multipliers are algebraic, and near a singular position
                 * they are undetermined along the Jacobian's left null space
                 * (where they exert no force) and may not settle.  When q and
                 * v have converged but the multipliers have not by the last
                 * iteration (the balance of forces in the outputs needs them
                 * wherever they can converge), the step is accepted and
                 * counted.  A test on the
                 * multipliers alone made whether the N-four-bar passes its
                 * singular positions depend on the last bits of the BLAS
                 * (issue 9) */
                int qv_ok = !cu && (dn < 1e-3 || (it > 0 && rate_qv < 0.9 && rate_qv / (1 - rate_qv) * dn < 0.05));
                /* q and v at their rounding floor near a singular position
                 * (the degenerate components are fixed only to rounding /
                 * sigma^2 there): two increments in a row within
                 * NEWTON_NOISE of the weights, no longer contracting, and
                 * the Jacobian (at the iterate) within 4 x SING_RANK_MARGIN
                 * of a rank loss (the N = 40 four-bar's iterates stagnated
                 * at 3-5 % of the weights at a margin of 0.039, the noise
                 * factor just back to 1, and the run stopped there) */
                int qv_last = qv_ok && it == maxit - 1; /* accepted whatever the floor: its QR is not needed */
                int qv_floor = !qv_last && !cu && it > 0 && dn <= NEWTON_NOISE && dn_prev <= NEWTON_NOISE &&
                               rate_qv >= 0.5 && s_margin_below(f, d, 4 * SING_RANK_MARGIN, 0);
                if (qv_last || qv_floor) {
                    converged = 1;
                    if (qv_floor) d->met.singular_steps++;
                    else d->met.slow_multiplier_steps++;
                    break;
                }
                if (it > 1 && rate > 0.9 && rate_qv > 0.9) break;
            }
        }
        if (converged)
            for (int i = 0; i < n; i++) d->a[i] = w0 * d->v[i] + ba[i];
        /* local error from the predictor-corrector difference */
        double en = 1e10;
        if (converged) {
            /* first step: the Taylor predictor is one order better than
             * BDF1, so the difference is BDF1's whole error (c = 1) */
            double c = np <= 1 ? 1.0 : h / (t1 - d->th[np - 1]);
            double acc = 0;
            for (int i = 0; i < n; i++) {
                /* positions and velocities, each against its own scale */
                double ex = c * (d->x[i] - xpred[i]), ev = c * (d->v[i] - vpred[i]);
                double wx = mbs_wx(d, i, fabs(d->x[i])), wv = mbs_wv(d, i, fabs(d->v[i]));
                acc += (ex / wx) * (ex / wx) + (ev / wv) * (ev / wv);
            }
            for (int q = 0; q < nz; q++) {
                double ez = c * (d->z[q] - zpred[q]) / mbs_wz(d, q, fabs(d->z[q]));
                acc += ez * ez;
            }
            en = sqrt(acc / (2.0 * (n > 0 ? n : 1) + nz));
            en /= g_sing;
        }
        /* a step ending near a singular position: its converged multipliers
         * jumped (pole |lam| ~ F / sigma); retaken with half the step, and
         * later steps keep off that time */
        int sing_land = 0;
        if (converged && lam_conv && !cu && sing_retakes < SING_RETRIES && lam_ref > 0) {
            double lm = 0;
            for (int i = 0; i < ne; i++) lm = fmax(lm, fabs(d->lam[i]));
            /* and the Jacobian (at the last iterate) near a rank loss: a
             * multiplier may jump for other reasons (a sudden load) */
            sing_land = lm > SING_LAM_JUMP * fmax(lam_ref, lam_mean) && s_margin_below(f, d, SING_RANK_MARGIN, 0);
        }
        if (sing_land) {
            d->met.rejected_steps++;
            sing_retakes++;
            int rc_poll = mbs_data_poll(d, err);
            if (rc_poll) return rc_poll;
            t_sing = t1;
            memcpy(d->x, d->qh[0], sizeof(double) * (size_t)n);
            memcpy(d->v, d->vh[0], sizeof(double) * (size_t)n);
            memcpy(d->a, d->ha, sizeof(double) * (size_t)n);
            memcpy(d->z, d->zh[0], zb);
            memcpy(d->lam, lam_s, sizeof(double) * (size_t)(ne > 0 ? ne : 1));
            h *= 0.5;
            w0_fact = 0;
        } else if (converged && en <= 1.0) {
            /* accept */
            memcpy(d->xp, d->qh[0], sizeof(double) * (size_t)n);
            memcpy(d->vp, d->vh[0], sizeof(double) * (size_t)n);
            d->tp = d->th[0];
            /* ap: acceleration of the previous point kept in d->ha */
            memcpy(d->ap, d->ha, sizeof(double) * (size_t)n);
            memcpy(d->zp, d->zh[0], zb);
            memcpy(d->zdp, d->zd, zb);
            sing_retakes = 0;
            if (lam_conv) {
                double lm = 0;
                for (int i = 0; i < ne; i++) lm = fmax(lm, fabs(d->lam[i]));
                /* mean over about the last 20 steps, a pole's values capped */
                lam_mean += 0.05 * (fmin(lm, SING_LAM_JUMP * fmax(lam_mean, lam_ref)) - lam_mean);
                lam_ref = lm;
            }
            d->t = t1 >= T * (1 - 1e-14) ? T : t1;
            if (f->energy_project) f->energy_project(f->ctx);
            f->zrate(f->ctx, d->x, d->v, d->z, d->t, d->zd);
            d->met.steps++;
            mbs_note_error(d, en);
            if (kk > d->met.order_max_used) d->met.order_max_used = kk;
            /* order selection from backward differences (after kk+1 steps at
             * this order and with enough history) */
            double rk = pow(fmax(en, 1e-10), -1.0 / (kk + 1));
            int knew = kk;
            steps_at_order++;
            if (steps_at_order > kk + 1 && d->nhist >= kk + 2) {
                double eminus = kk > 1 ? s_diff_norm(d, n, kk, d->t, d->x, d->v) / kk : 1e30;
                double eplus = kk < kmax && d->nhist >= kk + 2 ? s_diff_norm(d, n, kk + 2, d->t, d->x, d->v) / (kk + 2) : 1e30;
                double rminus = kk > 1 ? pow(fmax(eminus, 1e-10), -1.0 / kk) : 0;
                double rplus = kk < kmax ? pow(fmax(eplus, 1e-10), -1.0 / (kk + 2)) : 0;
                if (rminus > rk && rminus >= rplus) { knew = kk - 1; rk = rminus; }
                else if (rplus > 1.2 * rk) { knew = kk + 1; rk = rplus; }
                if (knew != kk) steps_at_order = 0;
            }
            k = knew;
            /* leaving a singular position: the noise factor follows */
            if (g_sing > 1) g_sing = s_noise_gain(f, d, rtol);
            if (a_sing > 1) {
                a_sing = fmin(s_noise_gain(f, d, atol_rel), rtol / atol_rel);
                d->tol.atol_x = a_sing * atol0_x;
                d->tol.atol_v = a_sing * atol0_v;
            }
            s_push(d, n);
            memcpy(d->ha, d->a, sizeof(double) * (size_t)n);
            fails = 0;
            int rc = mbs_step_done(m, d, run, err);
            if (rc) return rc;
            /* a discrete controller's sample: the forces jump, the history
             * moves onto the motion under the new outputs (bdf_sample.c) */
            at_sample = 0;
            if (m->nctrl > 0 && (at_sample = mbs_bdf_sample(f, m, d, h)) < 0) {
                mbs_err_add(err, "", "t = %.6g: accelerations after a controller's sample: singular system", d->t);
                return MBS_ESINGULAR;
            }
            /* step: grow only by a clear margin (keeps the matrix fresh);
             * a step cut short to a sample resumes with the step wanted
             * before the cut */
            h = mbs_bdf_step_after(h, rk);
            if (at_sample) h = fmax(h, h_free);
            /* at an input's kink a derivative of the motion jumps (the
             * third, for a kink of a force): the history across it stays
             * good to order 2 (whose error term is that derivative), the
             * higher orders start again from points past it */
            if (t1 == t_kink) {
                h = fmax(h, h_free);
                if (k > 2) { k = 2; steps_at_order = 0; }
            }
        } else {
            /* the order rule below (from the second rejection in a row),
             * judged on the failed attempt's solution before it goes */
            int keep_order = fails >= 1 && converged && kk > 1 && !at_sample &&
                             mbs_bdf_keep_order(en, s_diff_norm(d, n, kk, t1, d->x, d->v) / kk, kk);
            d->met.rejected_steps++;
            fails++;
            int rc_poll = mbs_data_poll(d, err);
            if (rc_poll) return rc_poll;
            memcpy(d->x, d->qh[0], sizeof(double) * (size_t)n);
            memcpy(d->v, d->vh[0], sizeof(double) * (size_t)n);
            memcpy(d->a, d->ha, sizeof(double) * (size_t)n);
            memcpy(d->z, d->zh[0], zb);
            memcpy(d->lam, lam_s, sizeof(double) * (size_t)(ne > 0 ? ne : 1));
            /* a rejection may come from rounding noise near a singular
             * position (rank margin at the step's last iterate) */
            double g_new = !cu && rtol < NOISE_RTOL ? s_noise_gain(f, d, rtol) : 1.0;
            double a_new = !cu && abs_given && atol_rel < NOISE_RTOL ? fmin(s_noise_gain(f, d, atol_rel), rtol / atol_rel)
                                                                    : 1.0;
            int noise = g_new > 1.5 * g_sing || a_new > 1.5 * a_sing;
            g_sing = fmax(g_sing, g_new);
            if (a_new > a_sing) {
                a_sing = a_new;
                d->tol.atol_x = a_sing * atol0_x;
                d->tol.atol_v = a_sing * atol0_v;
            }
            /* a noise rejection retakes the same step with the new weights */
            if (!noise) h *= mbs_bdf_step_rejected(converged, en, kk);
            if (fails >= 2) {
                /* down by one order at every rejection from the second on
                 * (DASSL's rule); to order 1 at the third near a singular
                 * position (rank margin of the last accepted point).  The
                 * order used to go to 1 at the second rejection anywhere
                 * else: on the four-bar at tolerance 1e-10 an order-5 step
                 * failing with en = 2.05, then 1.16, was retried at order 1
                 * with the same step (en = 1.6e7), the step collapsed from
                 * 2.9e-4 to 6.5e-8 s and 30 low-order steps followed, whose
                 * accelerations put a joint reaction sampled among them
                 * 3e-7 of its scale off.  Just after a sample, down by one
                 * at every rejection too: the oldest history points, the
                 * least accurately moved (bdf_sample.c), go first (BDF1
                 * cannot follow the transient the jump starts: its step
                 * collapsed to 1e-6 s on the arm) */
                int to_one = 0;
                if (fails >= 3 && kk > 1 && !at_sample) {
                    f->constraints(f->ctx, d->x, d->t, d->phi, d->jac);
                    to_one = s_margin_below(f, d, SING_RANK_MARGIN, 0);
                }
                k = to_one || kk <= 1 ? 1 : kk - 1;
                /* ... but not where the lower order's own estimate allows
                 * no longer step than this one's (DASSL estimates the order
                 * on a failure too; not just after a sample, see above): at
                 * tight tolerances a lower order is the worse choice unless
                 * the motion lost smoothness.  The blind drop was seen
                 * taking a pendulum at 1e-6 from order 5 to 1 in four
                 * rejections whose estimates grew as h fell (2.1, 1.0, 4.2,
                 * 38, 16, 413); on the roller chain 219 of 868 rejections
                 * were third to seventh in a row. */
                if (!to_one && keep_order) k = kk;
                steps_at_order = 0;
            }
            /* Newton failed where the mechanism has redundant equations:
             * the kept set may have degenerated (Bricard's at theta1 =
             * pi/2, a regular position); choose it again at the last
             * accepted point, whose multipliers start the retry */
            if (!converged && !cu && d->rep.redundant > 0) {
                f->constraints(f->ctx, d->x, d->t, d->phi, d->jac);
                if (f->reselect(f->ctx)) {
                    d->met.reselections++;
                    for (int i = 0; i < ne; i++)
                        if (!d->eq_on[i]) for (int j = 0; j < d->nhist; j++) d->lh[j][i] = 0;
                }
            }
            w0_fact = 0;
        }
        h = fmin(h, hmax);
        if (h < hmin && d->t < T * (1 - 1e-14)) {
            mbs_err_add(err, "", "t = %.6g: step size %.3g below solver.min_step (Newton %s); the mechanism may "
                        "lock up or the solution diverges", d->t, h, converged ? "converged" : "failed");
            return MBS_EDIVERGE;
        }
    }
    return 0;
}
