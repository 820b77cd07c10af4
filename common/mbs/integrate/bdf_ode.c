/*
 * bdf_ode.c - variable-order, variable-step BDF through the formulation
 * boundary (see bdf_ode.h).
 */
#include "mbs/integrate/bdf_ode.h"

#include "mbs/integrate/bdf_coef.h"
#include "mbs/linalg/linalg.h"
#include "mbs/model/accuracy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* past points kept: order 5 needs 5; the order selection at order k looks at
 * k + 2 (integrator_bdf.c keeps as many, MBS_BDF_HIST) */
#define HIST 7
/* Newton increments are measured against weights no smaller than
 * NEWTON_ROUND |y| (integrator_bdf.c: 4 ulps count as converged) */
#define NEWTON_ROUND (1e3 * 4 * 2.2e-16)
/* the Newton matrix is factorised again when w0 moved by more than this */
#define W0_MOVE 0.25
/* forward-difference increment of column j: SQRT_EPS max(|y_j|, |h k_j|,
 * weight_j, JAC_FLOOR) */
#define SQRT_EPS 1.4901161193847656e-8
#define JAC_FLOOR 1e-3

/* The driver's workspace: the history of accepted points (newest first),
 * the predictor, the BDF's b, the Newton residual and slopes, the
 * Jacobian J (column-major n x n) and the factorised I - J / w0. */
typedef struct {
    int n;
    double *yh[HIST], th[HIST];
    int nhist;
    double *ypred, *b, *r, *fy, *fj, *yj, *kold, *J;
    mbs_mat A;
} s_ws;

static void s_ws_free(s_ws *w)
{
    for (int j = 0; j < HIST; j++) free(w->yh[j]);
    free(w->ypred); free(w->b); free(w->r); free(w->fy); free(w->fj); free(w->yj); free(w->kold); free(w->J);
    mbs_mat_free(&w->A);
}

static int s_ws_new(s_ws *w, int n)
{
    memset(w, 0, sizeof *w);
    w->n = n;
    size_t nb = (size_t)(n > 0 ? n : 1);
    int ok = 1;
    for (int j = 0; j < HIST; j++) ok &= (w->yh[j] = calloc(nb, sizeof(double))) != NULL;
    ok &= (w->ypred = calloc(nb, sizeof(double))) != NULL;
    ok &= (w->b = calloc(nb, sizeof(double))) != NULL;
    ok &= (w->r = calloc(nb, sizeof(double))) != NULL;
    ok &= (w->fy = calloc(nb, sizeof(double))) != NULL;
    ok &= (w->fj = calloc(nb, sizeof(double))) != NULL;
    ok &= (w->yj = calloc(nb, sizeof(double))) != NULL;
    ok &= (w->kold = calloc(nb, sizeof(double))) != NULL;
    ok &= (w->J = calloc(nb * nb, sizeof(double))) != NULL;
    ok = ok && mbs_mat_init(&w->A, MBS_MAT_GEN, n, n - 1, n - 1) == 0;
    if (!ok) { s_ws_free(w); return MBS_ENOMEM; }
    return 0;
}

/* Push the point (t, y) to the front of the history. */
static void s_push(s_ws *w, double t, const double *y)
{
    double *old = w->yh[HIST - 1];
    for (int j = HIST - 1; j > 0; j--) { w->yh[j] = w->yh[j - 1]; w->th[j] = w->th[j - 1]; }
    w->yh[0] = old;
    memcpy(old, y, sizeof(double) * (size_t)w->n);
    w->th[0] = t;
    if (w->nhist < HIST) w->nhist++;
}

/* J = dk/dy at (t, y) with slope fy there, by forward differences column
 * by column; h scales the increments (|h k_j|).  0, or non-zero when a
 * slope failed. */
static int s_jacobian(const mbs_ode_form *f, s_ws *w, double t, const double *y, double h, mbs_data *d)
{
    int n = w->n;
    memcpy(w->yj, y, sizeof(double) * (size_t)n);
    for (int j = 0; j < n; j++) {
        double s = fmax(fmax(fabs(y[j]), fabs(h * w->fy[j])), fmax(f->weight(f->ctx, j, fabs(y[j])), JAC_FLOOR));
        double del = SQRT_EPS * s;
        /* the increment as represented */
        w->yj[j] = y[j] + del;
        del = w->yj[j] - y[j];
        int rc = f->slope(f->ctx, t, w->yj, w->fj);
        w->yj[j] = y[j];
        if (rc) return rc;
        double *col = w->J + (size_t)j * n;
        for (int i = 0; i < n; i++) col[i] = (w->fj[i] - w->fy[i]) / del;
    }
    d->met.jacobian_evaluations++;
    return 0;
}

/* Factorise A = I - J / w0.  0, or non-zero when singular. */
static int s_factor(s_ws *w, double w0, mbs_data *d)
{
    int n = w->n;
    mbs_mat_zero(&w->A);
    for (int j = 0; j < n; j++) {
        const double *col = w->J + (size_t)j * n;
        for (int i = 0; i < n; i++) {
            double v = -col[i] / w0 + (i == j ? 1.0 : 0.0);
            if (v != 0) mbs_mat_add(&w->A, i, j, v);
        }
    }
    d->met.factorizations++;
    return mbs_mat_factor(&w->A);
}

/* Weighted RMS norm of the k-th scaled divided difference of the history
 * plus the new point y at t1: the estimate of order k - 1's error. */
static double s_diff_norm(const mbs_ode_form *f, const s_ws *w, int k, double t1, const double *y)
{
    double tau[HIST + 2], v[HIST + 2], acc = 0;
    tau[0] = t1;
    for (int j = 1; j <= k; j++) tau[j] = w->th[j - 1];
    for (int i = 0; i < w->n; i++) {
        v[0] = y[i];
        for (int j = 1; j <= k; j++) v[j] = w->yh[j - 1][i];
        double e = mbs_bdf_scaled_divdiff(v, tau, k) / f->weight(f->ctx, i, fabs(y[i]));
        acc += e * e;
    }
    return sqrt(acc / (w->n > 0 ? w->n : 1));
}

int mbs_bdf_ode_run(const mbs_model *m, mbs_data *d, const mbs_ode_form *f, mbs_ode_state *st, mbs_stepper *run,
                    mbs_errlist *err)
{
    const mbs_solver_spec *o = &m->spec->solver;
    int n = mbs_ode_size(f);
    size_t yb = sizeof(double) * (size_t)n;
    s_ws w;
    if (s_ws_new(&w, n)) {
        mbs_err_add(err, "", "out of memory for the BDF's Newton matrix (%d unknowns)", n);
        return MBS_ENOMEM;
    }
    double T = o->t_end;
    double hmax = o->max_step > 0 ? o->max_step : run->interval;
    double hmin = o->min_step > 0 ? o->min_step : 1e-12;
    int kmax = o->max_order >= 1 && o->max_order <= 5 ? o->max_order : 5;
    int maxit = o->max_newton > 0 ? (o->max_newton < 6 ? o->max_newton : 6) : 4;
    double h = fmin(o->step > 0 ? o->step : 1e-3, hmax);
    double *y = st->y, *k = st->k;
    double tau[HIST + 2], wd[HIST + 2], we[HIST + 2];
    int order = 1, steps_at_order = 0, fails = 0, at_sample = 0, rc = 0;
    int have_J = 0, J_stale = 1; /* a Jacobian is kept; it is to be evaluated again */
    long naccepted = 0, J_at = -1; /* accepted steps, and their number when J was evaluated */
    double w0_fact = 0;          /* w0 of the factorised matrix (0: none)           */
    double h_free = h;
    s_push(&w, st->t, y);
    while (st->t < T * (1 - 1e-14)) {
        if (st->t + 1.01 * h > T) h = T - st->t;
        /* a sampled controller's next instant, a kink of an input: the
         * step ends there */
        double t_kink = mbs_next_kink(m, st->t);
        double t_stop = fmin(f->next_stop ? f->next_stop(f->ctx) : INFINITY, t_kink);
        h_free = h;
        if (st->t + 1.01 * h > t_stop) h = t_stop - st->t;
        double t1 = h == t_stop - st->t ? t_stop : st->t + h;
        if (f->begin_step) f->begin_step(f->ctx);
        int kk = order < w.nhist ? order : w.nhist;
        if (kk < 1) kk = 1;
        /* predictor: the polynomial through the last kk + 1 points, or a
         * Taylor step from the only one */
        int np = w.nhist < kk + 1 ? w.nhist : kk + 1;
        if (np <= 1) {
            for (int i = 0; i < n; i++) w.ypred[i] = y[i] + h * k[i];
        } else {
            for (int j = 0; j < np; j++) tau[j] = w.th[j];
            mbs_bdf_extrap_weights(tau, np - 1, t1, we);
            for (int i = 0; i < n; i++) {
                double s = 0;
                for (int j = 0; j < np; j++) s += we[j] * w.yh[j][i];
                w.ypred[i] = s;
            }
        }
        /* corrector: y' = w0 y + b on t1 and the last kk points */
        tau[0] = t1;
        for (int j = 1; j <= kk; j++) tau[j] = w.th[j - 1];
        mbs_bdf_deriv_weights(tau, kk, wd);
        double w0 = wd[0];
        for (int i = 0; i < n; i++) {
            double s = 0;
            for (int j = 1; j <= kk; j++) s += wd[j] * w.yh[j - 1][i];
            w.b[i] = s;
        }
        /* modified Newton from the predictor; a second attempt with a
         * fresh Jacobian when the first (with an older one) fails */
        int converged = 0, fresh = 0, bad = 0;
        for (int attempt = 0; attempt < 2 && !converged && !bad; attempt++) {
            if (attempt == 1) {
                /* a J from this step, or from a failed attempt at the same
                 * accepted point, would not be fresher: the step shrinks */
                if (fresh || J_at == naccepted) break;
                J_stale = 1;
            }
            memcpy(y, w.ypred, yb);
            double prev = 0;
            for (int it = 0; it < maxit; it++) {
                if (f->slope(f->ctx, t1, y, w.fy) != 0) { bad = 1; break; }
                if (J_stale || !have_J) {
                    if (s_jacobian(f, &w, t1, y, h, d) != 0) { bad = 1; break; }
                    have_J = 1;
                    J_stale = 0;
                    J_at = naccepted;
                    fresh = 1;
                    w0_fact = 0;
                }
                if (w0_fact == 0 || fabs(w0 / w0_fact - 1) > W0_MOVE) {
                    if (s_factor(&w, w0, d) != 0) { w0_fact = 0; J_stale = 1; break; }
                    w0_fact = w0;
                }
                /* the residual scaled as the matrix: -(w0 y + b - k) / w0 */
                for (int i = 0; i < n; i++) w.r[i] = -(w0 * y[i] + w.b[i] - w.fy[i]) / w0_fact;
                mbs_mat_solve(&w.A, w.r);
                mbs_note_system(d, n);
                d->met.newton_iterations++;
                double dn = 0;
                for (int i = 0; i < n; i++) {
                    y[i] += w.r[i];
                    double wt = fmax(f->weight(f->ctx, i, fabs(y[i])), NEWTON_ROUND * fabs(y[i]));
                    dn = fmax(dn, fabs(w.r[i]) / wt);
                }
                if (!isfinite(dn)) break;
                double rate = it > 0 && prev > 0 ? dn / prev : 0;
                prev = dn;
                if (dn < 1e-3 || (it > 0 && rate < 0.9 && rate / (1 - rate) * dn < 0.05)) {
                    converged = 1;
                    break;
                }
                if (it > 1 && rate > 0.9) break;
            }
        }
        if (bad && f->stage_fail_fatal) {
            rc = f->fail(f->ctx, MBS_ODE_FAIL_STAGE, st->t, h, err);
            break;
        }
        /* local error from the predictor-corrector difference (the first
         * step: the whole difference, as integrator_bdf.c) */
        double en = 1e10;
        if (converged) {
            double c = np <= 1 ? 1.0 : h / (t1 - w.th[np - 1]), acc = 0;
            for (int i = 0; i < n; i++) {
                double e = c * (y[i] - w.ypred[i]) / f->weight(f->ctx, i, fabs(y[i]));
                acc += e * e;
            }
            en = sqrt(acc / (n > 0 ? n : 1));
            if (!isfinite(en)) en = 1e10;
        }
        /* the slope at the accepted state, last: the formulation's
         * evaluation context then holds that state for commit and the run */
        double tn = t1 >= T * (1 - 1e-14) ? T : t1;
        if (converged && en <= 1.0 && f->slope(f->ctx, tn, y, w.fj) != 0) {
            if (f->stage_fail_fatal) {
                rc = f->fail(f->ctx, MBS_ODE_FAIL_STAGE, st->t, h, err);
                break;
            }
            converged = 0;
        }
        if (converged && en <= 1.0) {
            double t0 = st->t;
            st->t = tn;
            memcpy(k, w.fj, yb);
            d->met.steps++;
            mbs_note_error(d, en);
            int retake = 0;
            rc = f->commit(f->ctx, t0, h, &st->t, y, k, &retake, err);
            if (rc) break;
            if (retake) {
                /* the formulation restored (t, y, k): the history restarts
                 * there at order 1 */
                d->met.steps--;
                w.nhist = 0;
                s_push(&w, st->t, y);
                order = 1;
                steps_at_order = 0;
                continue;
            }
            if (f->project) f->project(f->ctx, st->t, y, k);
            if (kk > d->met.order_max_used) d->met.order_max_used = kk;
            /* order selection from scaled divided differences (after kk + 1
             * steps at this order and with enough history) */
            double rk = pow(fmax(en, 1e-10), -1.0 / (kk + 1));
            int knew = kk;
            steps_at_order++;
            if (steps_at_order > kk + 1 && w.nhist >= kk + 2) {
                double eminus = kk > 1 ? s_diff_norm(f, &w, kk, st->t, y) / kk : 1e30;
                double eplus = kk < kmax ? s_diff_norm(f, &w, kk + 2, st->t, y) / (kk + 2) : 1e30;
                double rminus = kk > 1 ? pow(fmax(eminus, 1e-10), -1.0 / kk) : 0;
                double rplus = kk < kmax ? pow(fmax(eplus, 1e-10), -1.0 / (kk + 2)) : 0;
                if (rminus > rk && rminus >= rplus) { knew = kk - 1; rk = rminus; }
                else if (rplus > 1.2 * rk) { knew = kk + 1; rk = rplus; }
                if (knew != kk) steps_at_order = 0;
            }
            order = knew;
            s_push(&w, st->t, y);
            fails = 0;
            naccepted++;
            rc = mbs_step_done(m, d, run, err);
            if (rc) break;
            /* a sampled controller's held output changed here: the slope
             * jumps, the past points move onto the new motion (first-order
             * term of the jump) and the order is kept */
            at_sample = 0;
            if (f->sample && f->sample(f->ctx, st->t, y)) {
                memcpy(w.kold, k, yb);
                if (f->reslope(f->ctx, st->t, y, k) != 0) {
                    rc = f->fail(f->ctx, MBS_ODE_FAIL_RESLOPE, st->t, h, err);
                    break;
                }
                /* the jump dk = k+ - k- and its rate along the motion, about
                 * J dk (the kept Jacobian: the forces' dependence on the
                 * state the same on both sides), into fj */
                for (int i = 0; i < n; i++) w.kold[i] = k[i] - w.kold[i];
                for (int i = 0; i < n; i++) w.fj[i] = 0;
                for (int c = 0; c < n && have_J; c++) {
                    const double *col = w.J + (size_t)c * n;
                    for (int i = 0; i < n; i++) w.fj[i] += col[i] * w.kold[c];
                }
                for (int j = 1; j < w.nhist; j++) {
                    double tau_j = w.th[j] - st->t;
                    for (int i = 0; i < n; i++) w.yh[j][i] += tau_j * w.kold[i] + 0.5 * tau_j * tau_j * w.fj[i];
                }
                at_sample = 1;
            }
            /* step: grow only by a clear margin (keeps the matrix), a step
             * cut short to a stop resumes with the one wanted before */
            h = mbs_bdf_step_after(h, rk);
            if (at_sample) h = fmax(h, h_free);
            /* at an input's kink a derivative of the motion jumps: the
             * history across it stays good to order 2 */
            if (t1 == t_kink) {
                h = fmax(h, h_free);
                if (order > 2) { order = 2; steps_at_order = 0; }
            }
        } else {
            /* from the second rejection in a row the order drops only
             * where the lower one allows a longer step (integrator_bdf.c),
             * judged on the failed attempt's solution before it goes */
            int keep_order = fails >= 1 && converged && kk > 1 && !at_sample &&
                             mbs_bdf_keep_order(en, s_diff_norm(f, &w, kk, t1, y) / kk, kk);
            d->met.rejected_steps++;
            fails++;
            /* the run stopped (time limit, cancel): the workspace is freed
             * below like at every other end */
            int rc_poll = mbs_data_poll(d, err);
            if (rc_poll) { rc = rc_poll; break; }
            memcpy(y, w.yh[0], yb);
            h *= mbs_bdf_step_rejected(converged, en, kk);
            if (fails >= 2) {
                order = kk > 1 && !keep_order ? kk - 1 : kk;
                steps_at_order = 0;
            }
        }
        h = fmin(h, hmax);
        if (h < hmin && st->t < T * (1 - 1e-14)) {
            rc = f->fail(f->ctx, bad ? MBS_ODE_FAIL_STAGE : MBS_ODE_FAIL_MIN_STEP, st->t, h, err);
            break;
        }
    }
    s_ws_free(&w);
    return rc;
}
