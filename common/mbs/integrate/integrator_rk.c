/*
 * integrator_rk.c - explicit embedded Runge-Kutta (Dormand-Prince 5(4)) on
 * the index-1 equations with Baumgarte stabilisation (seed 003):
 *
 *   M a + Phi_q^T lam = Q,
 *   Phi_q a = -gamma - 2 alpha_B (Phi_q v + Phi_t) - beta_B^2 Phi,
 *
 * so that a drift of the constraints decays as a damped oscillator instead of
 * growing.  The accelerations at each stage come from augmented-Lagrangian
 * iterations on the SPD matrix M + alpha Phi_q^T Phi_q (banded for chains)
 * over an independent set of the equations: a mechanism with redundant ones
 * chooses the best-conditioned set again at every step when small, or when
 * an iteration slows down at a regular position (then the step is retaken
 * with the new set), so that the choice made at assembly, which depends on
 * rounding, cannot degenerate along the motion.  Step size by the embedded
 * 4th-order error estimate (error weights of accuracy.h).
 *
 * Singular positions.  Where the constraint Jacobian loses rank for an
 * instant (the N-four-bar's cranks horizontal), the index-1 accelerations
 * are not determined: the branches of the mechanism meet there and this
 * form has nothing that keeps the motion on its own (measured: the
 * N-four-bar at tolerance 1e-9 leaves its parallelogram branch at the
 * fourth passage, the cranks locked horizontal, energy 35.8 -> 9.1 J).  An
 * accepted step one of whose stages had a slow multiplier iteration gets a
 * rank check at its slowest stage (QR with column pivoting of Phi_q^T,
 * against the structural rank found at assembly, so that redundant
 * constraints such as Bricard's do not count); a margin below
 * RK_RANK_MARGIN puts a warning in the run's metrics (once, with the time):
 * the run says that it passed a singular position that this method cannot
 * resolve, instead of leaving the branch silently.
 *
 * The steps themselves are dopri5.c's one driver (mbs_dopri5_run), shared
 * with the relative formulation; this file is the natural coordinates' side
 * of the formulation boundary (formulation/formulation.h): the slope, the
 * error norm, and the checks at each accepted step (s_nat_*).
 */
#include "mbs/integrate/integrators.h"
#include "mbs/model/accuracy.h"
#include "mbs/analysis/analysis.h"
#include "mbs/contact/contact.h"
#include "mbs/integrate/dopri5.h"
#include "mbs/analysis/system.h"
#include "mbs/formulation/natural/natural.h"
#include "mbs/dynamics/force.h"
#include "mbs/dynamics/controller.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Rank margin (R_rr / R_11 at the structural rank, mbs_rank_margin) below
 * which the slowest stage of a step was at a singular position.  Measured
 * (tolerance 1e-3 .. 1e-9): the N-four-bar's passages 4.7e-4 .. 8.4e-3 (N = 2
 * and 40); Bricard's regular steps, whose multiplier iteration is slow
 * because of its redundant constraint, 0.137 at the least. */
#define RK_RANK_MARGIN 3e-2
#define RK_CHECK_EVERY 8
/* Mechanisms with redundant equations and at most this many entries in
 * Phi_q^T choose their independent set again along the motion (larger ones
 * when an iteration slows down) ... */
#define RK_RESELECT_EVERY_STEP 1e5
/* ... once the mechanism has moved this far since the last choice
 * (mbs_config_change: 5 % of its length, or about 3 degrees).  Bricard,
 * 1000 steps to 10 s: 1000 choices at every step, about 200 at this
 * distance, 9 % of the run's CPU time down to 2 %; its error at tolerance
 * 1e-9 stays 5e-11 m (OpenBLAS) and 5e-11 .. 9e-11 m (reference BLAS),
 * where the choice made at assembly alone gives 1.1e-8 m. */
#define RK_RESELECT_MOVE 0.05
/* A step in whose last RK_ONSET_PAST a compliant contact starts or ends is
 * accepted; one with an earlier switch is retaken to end half that fraction
 * past it (the gap's interpolant locates the switch only to the step's
 * accuracy, and a step ending just short of it would see it again at its
 * very start). */
#define RK_ONSET_PAST 1e-3

/* Refinement of the stage accelerations.  The multiplier iteration's
 * answer carries the round-off of M + alpha Phi_q^T Phi_q, whose condition
 * grows with the spread of M's entries, alpha being scaled to mass_scale: on
 * the spatial slider-crank (a rod of 5e-6 kg m^2 beside a 2 kg slider) 1e-7
 * of |a| on average and 4e-6 at worst, from one stage to the next, so that
 * the embedded estimate falls like h instead of h^5 and the step size
 * collapses below tolerance 1e-8 (at 1e-10: 6,336 steps, 2,629 rejected,
 * the slider 5e-8 m off at 1 s).  One step of iterative refinement on the
 * equations themselves, M a + Phi_q^T lam = Q and Phi_q a = -c, whose
 * residual involves no alpha, solved by the same iteration on the same
 * factorisation, removes it (732 steps, none rejected, 1e-10 m).  Elsewhere
 * the correction is 1e-13 to 1e-9 of |a| (Bricard, the flyball, Andrews,
 * the pendulums) and a pass more per stage would cost 15 to 30 % for
 * nothing: a correction below RK_REFINE_BELOW x tolerance x |a| doubles the
 * distance to the next stage that refines, up to RK_REFINE_PROBE stages, so
 * that a run refines only where and while its mechanism needs it.  With
 * 0.1 the pendulums and the flyball refined at 1e-9 too (+9 to 21 %
 * multiplier passes; bench/before_after.py put A01 and the double pendulum
 * at 1.13 to 1.23 x the CPU before); with 1 the slider-crank refined only
 * every other stage at 1e-7 .. 1e-9 and stayed at 5 to 13 x tol x L
 * (0.5 to 2.3 with 0.3, the pendulums +1 to 2.5 % passes). */
#define RK_REFINE_BELOW 0.3
#define RK_REFINE_PROBE 64

static void s_refine(const mbs_model *m, mbs_data *d, const double *c, double alpha, double tol, double *a)
{
    if (d->rk_ref_wait > 0) { d->rk_ref_wait--; return; }
    int n = m->nvar, ne = m->neq;
    /* d->w1 (2 (n + ne) + 1): residuals rf (n), rc (ne), corrections dy (n), ds (ne) */
    double *rf = d->w1, *rc = rf + n, *dy = rc + ne, *ds = dy + n;
    mbs_mass_mul(m, a, rf);
    for (int i = 0; i < n; i++) rf[i] = d->Q[i] - rf[i];
    for (int i = 0; i < ne; i++) ds[i] = d->eq_on[i] ? -d->lam[i] : 0;
    mbs_cons_jtl(m, d->jac, ds, rf);
    mbs_cons_jv(m, d->jac, a, rc);
    for (int i = 0; i < ne; i++) { rc[i] += c[i]; ds[i] = 0; }
    int it = mbs_al_solve(m, d, rf, rc, alpha, tol, 10, dy, ds);
    d->met.newton_iterations += it > 0 ? it : 10;
    if (it < 0) return; /* keep the unrefined answer */
    double dn = 0, an = 0;
    for (int i = 0; i < n; i++) {
        dn = fmax(dn, fabs(dy[i]));
        an = fmax(an, fabs(a[i]));
        a[i] += dy[i];
    }
    for (int i = 0; i < ne; i++) d->lam[i] += ds[i];
    if (dn > RK_REFINE_BELOW * m->spec->solver.tolerance * an) d->rk_ref_gap = 0;
    else d->rk_ref_gap = d->rk_ref_gap > 0 ? (d->rk_ref_gap < RK_REFINE_PROBE ? 2 * d->rk_ref_gap : RK_REFINE_PROBE) : 1;
    d->rk_ref_wait = d->rk_ref_gap;
}

/* Acceleration of the index-1 + Baumgarte problem at (t, x, v) into a (an
 * mbs_accel_fn of dopri5.h; ctx unused). */
static int s_accel(const mbs_model *m, mbs_data *d, double t, const double *x, const double *v, double *a, void *ctx)
{
    (void)ctx;
    const mbs_solver_spec *o = &m->spec->solver;
    double alpha = mbs_alpha(m), ab = o->baumgarte_alpha, bb = o->baumgarte_beta;
    double *c = d->w2;
    mbs_baumgarte_rhs(m, d, x, v, t, ab, bb, c);
    mbs_force_eval(m, d, x, v, t, d->Q);
    if (mbs_spd_build(m, d, 1.0, alpha, 0, 0, x, v, t) != 0) return MBS_ESINGULAR;
    double qn = 0;
    for (int i = 0; i < m->nvar; i++) qn = fmax(qn, fabs(d->Q[i]));
    double tol = 1e-12 * (1 + qn / m->mass_scale);
    int it = mbs_al_solve(m, d, d->Q, c, alpha, tol, 30, a, d->lam);
    d->met.newton_iterations += it > 0 ? it : 30;
    /* (near a singular position, below, the accelerations are not
     * determined and a refinement has nothing to improve) */
    if (it > 0 && it <= 3) s_refine(m, d, c, alpha, tol, a);
    /* a slow or failed multiplier iteration (it contracts by ~1e-6 per pass
     * on a well-conditioned Jacobian) means Phi_q is nearly rank deficient:
     * the accelerations are barely determined; flagged for the step's
     * warning */
    if (it < 0 || it > 10) {
        /* the slowest stage of the step: its positions are checked for a
         * rank loss if the step is accepted */
        int sev = it < 0 ? 1000 : it;
        if (sev > d->rk_worst) {
            d->rk_worst = sev;
            d->rk_worst_t = t;
            memcpy(d->rk + 14 * (size_t)m->nvar, x, sizeof(double) * (size_t)m->nvar);
        }
        d->rk_singular = 1;
    }
    return 0;
}

/* ---- the natural coordinates behind the formulation boundary ---------------------------- */

/* The natural form's context: y = (x, v, z) of the driver (dopri5.h
 * mbs_dopri5_run); d keeps the accepted state (x, v, a, z, zd), the
 * previous one (xp, vp, ap, zp, zdp) and in d->zs the accepted z, d->z
 * being where the forces read each stage's. */
typedef struct {
    const mbs_model *m;
    mbs_data *d;
    double *xsel;        /* positions at the last choice of the independent set */
    int warned_singular, skip_checks;
    double retake_t;     /* start of the last step retaken after a re-selection */
} s_nat;

/* mbs_ode_form.slope: k = (v, a, z') at (t, y), the stage's z put in d->z */
static int s_nat_slope(void *ctx, double t, const double *y, double *k)
{
    s_nat *c = ctx;
    const mbs_model *m = c->m;
    mbs_data *d = c->d;
    int n = m->nvar, nz = m->nz;
    memcpy(d->z, y + 2 * n, sizeof(double) * (size_t)nz);
    memcpy(k, y + n, sizeof(double) * (size_t)n);
    int rc = s_accel(m, d, t, y, y + n, k + n, NULL);
    if (rc) return rc;
    /* a reaction a continuous controller measures: at this stage's
     * accelerations (controller.h) */
    d->meas_a = k + n;
    if (nz > 0) mbs_force_zrate(m, d, y, y + n, d->z, t, k + 2 * n);
    d->meas_a = NULL;
    return 0;
}

static void s_nat_begin(void *ctx)
{
    s_nat *c = ctx;
    c->d->rk_singular = 0;
    c->d->rk_worst = 0;
}

/* mbs_ode_form.error: accuracy.h's weights, each position with its rate
 * (the order of the sums before the boundary, so that runs stay bit for
 * bit), then the element states */
static double s_nat_error(void *ctx, double h, double *const k[7], const double *y0, const double *y1)
{
    s_nat *c = ctx;
    const mbs_tol *tol = &c->d->tol;
    int n = c->m->nvar, nz = c->m->nz;
    double e2 = 0;
    for (int i = 0; i < n; i++) {
        double ex = 0, ev = 0;
        for (int s = 0; s < 7; s++) { ex += mbs_dp5_e[s] * k[s][i]; ev += mbs_dp5_e[s] * k[s][n + i]; }
        ex *= h; ev *= h;
        double wx = mbs_tol_wx(tol, i, fmax(fabs(y0[i]), fabs(y1[i])));
        double wv = mbs_tol_wv(tol, i, fmax(fabs(y0[n + i]), fabs(y1[n + i])));
        e2 += (ex / wx) * (ex / wx) + (ev / wv) * (ev / wv);
    }
    for (int j = 0; j < nz; j++) {
        double ez = 0;
        for (int s = 0; s < 7; s++) ez += mbs_dp5_e[s] * k[s][2 * n + j];
        ez *= h;
        double wz = tol->az[j] + tol->rtol * fmax(fabs(y0[2 * n + j]), fabs(y1[2 * n + j]));
        e2 += (ez / wz) * (ez / wz);
    }
    double en = sqrt(e2 / (2.0 * (n > 0 ? n : 1) + nz));
    return isfinite(en) ? en : 1e10;
}

/* mbs_ode_form.weight (unused while s_nat_error is set: the same weights) */
static double s_nat_weight(void *ctx, int i, double ay)
{
    s_nat *c = ctx;
    int n = c->m->nvar;
    if (i < n) return mbs_tol_wx(&c->d->tol, i, ay);
    if (i < 2 * n) return mbs_tol_wv(&c->d->tol, i - n, ay);
    return mbs_wz(c->d, i - 2 * n, ay);
}

static double s_nat_switch(void *ctx, const double *y0, const double *y1, double h)
{
    s_nat *c = ctx;
    int n = c->m->nvar;
    return mbs_contact_switch(c->m, c->d, y0, y0 + n, y1, y1 + n, h);
}

/* mbs_ode_form.commit: the accepted state into d (the previous one kept
 * for the samples' interpolation), then the singular-position and
 * redundancy checks of the header comment; a re-selection of the
 * independent set at a slow step restores the step's start for a retake */
static int s_nat_commit(void *ctx, double t0, double h, double *t, double *y, double *k, int *retake,
                        mbs_errlist *err)
{
    s_nat *c = ctx;
    const mbs_model *m = c->m;
    mbs_data *d = c->d;
    int n = m->nvar, nz = m->nz;
    size_t nb = sizeof(double) * (size_t)n, zb = sizeof(double) * (size_t)nz;
    double T = m->spec->solver.t_end;
    /* the last stage (FSAL, c = 1) evaluated Phi and Phi_q at the
     * 5th-order solution, the state about to be accepted */
    int cons_fresh = t0 + h < T * (1 - 1e-14);
    memcpy(d->xp, d->x, nb);
    memcpy(d->vp, d->v, nb);
    memcpy(d->ap, d->a, nb);
    d->tp = t0;
    memcpy(d->x, y, nb);
    memcpy(d->v, y + n, nb);
    memcpy(d->a, k + n, nb);
    memcpy(d->zp, d->zs, zb);
    memcpy(d->zdp, d->zd, zb);
    memcpy(d->z, y + 2 * n, zb);
    memcpy(d->zd, k + 2 * n, zb);
    memcpy(d->zs, d->z, zb);
    d->t = *t;
    if (d->rk_singular) d->met.singular_steps++;
    if (d->rk_singular && !c->warned_singular && c->skip_checks > 0) c->skip_checks--;
    else if (d->rk_singular && !c->warned_singular) {
        /* the slowest stage: how close to losing rank was Phi_q?  A margin
         * far above the threshold (slow iterations at regular positions:
         * redundant constraints) is checked again only every
         * RK_CHECK_EVERY slow steps (Bricard: +5 % CPU with a check at
         * each) */
        mbs_cons_eval(m, d->rk + 14 * (size_t)n, d->rk_worst_t, d->phi, d->jac);
        cons_fresh = 0;
        double margin = mbs_rank_margin(m, d);
        /* a slow iteration at a regular position of a mechanism with
         * redundant equations: the independent set chosen earlier has
         * degenerated (Bricard's at theta1 = pi/2, where the reference
         * BLAS and OpenBLAS had chosen different sets).  Choose it again
         * where the iteration was slowest and retake the step from its
         * start with the new set, so that no step is computed with a
         * degenerate set, whichever set the assembly's rounding picked. */
        if (margin > 4 * RK_RANK_MARGIN && d->rep.redundant > 0 && d->tp != c->retake_t &&
            mbs_reselect_redundant(m, d)) {
            c->retake_t = d->tp; /* once per step: no flipping between two sets */
            d->met.reselections++;
            memcpy(d->x, d->xp, nb);
            memcpy(d->v, d->vp, nb);
            memcpy(d->z, d->zp, zb);
            memcpy(d->zd, d->zdp, zb);
            memcpy(d->zs, d->zp, zb);
            d->t = d->tp;
            d->met.singular_steps--;
            if (s_accel(m, d, d->t, d->x, d->v, d->a, NULL) != 0) {
                mbs_err_add(err, "", "t = %.6g: singular mass/constraint matrix after choosing the "
                            "independent constraints again", d->t);
                return MBS_ESINGULAR;
            }
            *t = d->t;
            memcpy(y, d->x, nb);
            memcpy(y + n, d->v, nb);
            memcpy(y + 2 * n, d->z, zb);
            memcpy(k, d->v, nb);
            memcpy(k + n, d->a, nb);
            memcpy(k + 2 * n, d->zd, zb);
            *retake = 1;
            return 0;
        }
        if (margin > 4 * RK_RANK_MARGIN) c->skip_checks = RK_CHECK_EVERY - 1;
        if (margin < RK_RANK_MARGIN) {
            c->warned_singular = 1;
            mbs_warn(d, "t = %.4g: passed a singular position (constraint Jacobian rank margin %.1e): dopri5 "
                     "on the index-1 form cannot tell the branches apart there and may have left the "
                     "mechanism's branch; use bdf", d->rk_worst_t, margin);
        }
    }
    /* a small mechanism with redundant equations keeps the best
     * conditioned independent set along the motion (a QR of its Jacobian,
     * microseconds for Bricard's 24 x 24, whenever it has moved
     * RK_RESELECT_MOVE since the last one): a set that is merely
     * ill-conditioned costs accuracy long before its iterations slow down
     * (Bricard at tolerance 1e-9: 1.1e-8 m with the reference BLAS's
     * choice, 5e-11 m with OpenBLAS's) */
    if (d->rep.redundant > 0 && (double)n * m->neq <= RK_RESELECT_EVERY_STEP &&
        mbs_config_change(m, d->tol.L, d->x, c->xsel) > RK_RESELECT_MOVE) {
        memcpy(c->xsel, d->x, nb);
        if (!cons_fresh) mbs_cons_eval(m, d->x, d->t, d->phi, d->jac);
        cons_fresh = 1;
        if (mbs_reselect_redundant(m, d)) d->met.reselections++;
    }
    d->cons_at_state = cons_fresh;
    return 0;
}

/* mbs_ode_form.project: a conservative mechanism's accepted state onto its
 * starting energy (force.h mbs_energy_project: the velocities scaled by at
 * most their error weights); y's rates and the positions' slope follow.
 * DOPRI5 drifts in energy as the BDF does, and on the A01 pendulum the
 * phase that drift builds up was most of its error at 10 s. */
static void s_nat_project(void *ctx, double t, double *y, double *k)
{
    s_nat *c = ctx;
    const mbs_model *m = c->m;
    mbs_data *d = c->d;
    int n = m->nvar;
    (void)t;
    if (!mbs_energy_project(m, d)) return;
    memcpy(y + n, d->v, sizeof(double) * (size_t)n);
    memcpy(k, d->v, sizeof(double) * (size_t)n);
}

/* mbs_ode_form.reslope: after a sampled controller's jump */
static int s_nat_reslope(void *ctx, double t, const double *y, double *k)
{
    s_nat *c = ctx;
    const mbs_model *m = c->m;
    mbs_data *d = c->d;
    int n = m->nvar, nz = m->nz;
    if (s_accel(m, d, t, y, y + n, d->a, NULL) != 0) return 1;
    memcpy(k + n, d->a, sizeof(double) * (size_t)n);
    mbs_force_zrate(m, d, d->x, d->v, d->z, d->t, d->zd);
    memcpy(k + 2 * n, d->zd, sizeof(double) * (size_t)nz);
    return 0;
}

/* mbs_ode_form.next_stop and sample: the discrete controllers on the
 * accepted state in d (commit put it there) */
static double s_nat_next_stop(void *ctx)
{
    s_nat *c = ctx;
    return mbs_ctrl_next_stop(c->m, c->d);
}

static int s_nat_sample(void *ctx, double t, const double *y)
{
    (void)t; (void)y;
    s_nat *c = ctx;
    return mbs_ctrl_sample(c->m, c->d);
}

static int s_nat_fail(void *ctx, int why, double t, double h, mbs_errlist *err)
{
    (void)ctx;
    if (why == MBS_ODE_FAIL_STAGE) {
        mbs_err_add(err, "", "t = %.6g: singular mass/constraint matrix (at a singular position of the mechanism "
                    "dopri5 on the index-1 form cannot continue; use bdf)", t);
        return MBS_ESINGULAR;
    }
    if (why == MBS_ODE_FAIL_RESLOPE) {
        mbs_err_add(err, "", "t = %.6g: singular mass/constraint matrix after a controller's sample", t);
        return MBS_ESINGULAR;
    }
    mbs_err_add(err, "", "t = %.6g: step size %.3g below solver.min_step: the solution diverges or the "
                "problem is too stiff for an explicit method (try \"bdf\")", t, h);
    return MBS_EDIVERGE;
}

int mbs_integrate_dopri5(const mbs_model *m, mbs_data *d, mbs_stepper *run, mbs_errlist *err)
{
    int n = m->nvar, nz = m->nz, n2 = 2 * n + nz;
    size_t nb = sizeof(double) * (size_t)n, zb = sizeof(double) * (size_t)nz;
    /* the driver's arrays: y, the stage state, 7 slopes */
    double *buf = malloc(sizeof(double) * (size_t)(9 * n2 + 1));
    if (!buf) return MBS_ENOMEM;
    s_nat c = {m, d, d->rk + 15 * (size_t)n, 0, 0, -1};
    memcpy(c.xsel, d->x, nb);
    mbs_ode_form f = {.name = "natural", .nq = n, .nv = n, .nz = nz, .stage_fail_fatal = 1, .ctx = &c,
                      .slope = s_nat_slope, .weight = s_nat_weight, .begin_step = s_nat_begin, .error = s_nat_error,
                      .commit = s_nat_commit, .reslope = s_nat_reslope,
                      .next_stop = m->nctrl > 0 ? s_nat_next_stop : NULL,
                      .sample = m->nctrl > 0 ? s_nat_sample : NULL,
                      .switch_at = m->spec->ncontact > 0 ? s_nat_switch : NULL, .fail = s_nat_fail,
                      .project = mbs_energy_projectable(m) ? s_nat_project : NULL};
    mbs_ode_state st = {.t = d->t, .y = buf, .ys = buf + n2, .k = buf + 2 * (size_t)n2};
    /* the accepted state and its slope (FSAL); d->zs keeps the accepted z */
    memcpy(st.y, d->x, nb);
    memcpy(st.y + n, d->v, nb);
    memcpy(st.y + 2 * n, d->z, zb);
    memcpy(st.k, d->v, nb);
    memcpy(st.k + n, d->a, nb);
    memcpy(st.k + 2 * n, d->zd, zb);
    memcpy(d->zs, d->z, zb);
    int rc = mbs_dopri5_run(m, d, &f, &st, run, err);
    free(buf);
    return rc;
}
