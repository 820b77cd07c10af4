/*
 * integrator_rel.c - Dormand-Prince 5(4) on the relative coordinates
 * (integrator_rel.h).  The tableau is dopri5.c's; the stages are written
 * here because dopri5.c's run on the natural coordinates' arrays of d.
 */
#include "mbs/integrate/integrator_rel.h"
#include "mbs/dynamics/controller.h"
#include "mbs/integrate/dopri5.h"
#include "mbs/model/accuracy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A step in whose last REL_ONSET_PAST a compliant contact starts or ends is
 * accepted; one with an earlier switch is taken again (integrator_rk.c's
 * RK_ONSET_PAST). */
#define REL_ONSET_PAST 1e-3

int mbs_rel_state_new(mbs_rel_state *s, const mbs_rtree *t, mbs_rtree_ws *w, int nz)
{
    memset(s, 0, sizeof *s);
    s->tree = t;
    s->w = w;
    s->n = t->n;
    s->nq = t->nq;
    s->nz = nz;
    size_t n = (size_t)t->n + 1, nq = (size_t)t->nq + 1, z = (size_t)nz + 1;
    s->q = calloc(nq, sizeof(double));
    s->u = calloc(n, sizeof(double));
    s->qdd = calloc(n, sizeof(double));
    s->z = calloc(z, sizeof(double));
    s->zd = calloc(z, sizeof(double));
    s->k = calloc(7 * (n + nq + z), sizeof(double));
    s->ys = calloc(n + nq + z, sizeof(double));
    s->y0 = calloc(n + nq + z, sizeof(double));
    s->wq = calloc(nq, sizeof(double));
    s->wu = calloc(n, sizeof(double));
    if (!s->q || !s->u || !s->qdd || !s->z || !s->zd || !s->k || !s->ys || !s->y0 || !s->wq || !s->wu) {
        mbs_rel_state_free(s);
        return MBS_ENOMEM;
    }
    return 0;
}

void mbs_rel_state_free(mbs_rel_state *s)
{
    free(s->q); free(s->u); free(s->qdd); free(s->z); free(s->zd); free(s->k); free(s->ys); free(s->y0); free(s->wq); free(s->wu);
    memset(s, 0, sizeof *s);
}

/* Slope at (t, y = (q, u, z)): k = (qdot, udd, zd). */
static int s_slope(mbs_rel_state *s, double t, const double *y, double *k)
{
    int nq = s->nq, n = s->n;
    s->z_eval = y + nq + n;
    s->zd_eval = k + nq + n;
    mbs_rtree_qdot(s->tree, y, y + nq, k);
    return mbs_rtree_accel(s->tree, s->w, t, y, y + nq, s->alpha, s->beta, k + nq);
}

int mbs_integrate_relative(const mbs_model *m, mbs_data *d, mbs_rel_state *s, mbs_stepper *run, mbs_errlist *err)
{
    const mbs_solver_spec *o = &m->spec->solver;
    int n = s->n, nq = s->nq, nz = s->nz, n2 = nq + n + nz;
    size_t zb = sizeof(double) * (size_t)nz;
    double T = o->t_end;
    double hmax = o->max_step > 0 ? o->max_step : run->interval;
    double hmin = o->min_step > 0 ? o->min_step : 1e-12;
    double h = fmin(o->step > 0 ? o->step : 1e-3, hmax);
    s->alpha = o->baumgarte_alpha;
    s->beta = o->baumgarte_beta;
    /* error weights (integrator_rel.h) */
    double rtol = d->tol.rtol, L = d->tol.L > 0 ? d->tol.L : 1.0;
    for (int i = 0; i < nq; i++) s->wq[i] = rtol * mbs_rtree_qscale(s->tree, i, L);
    for (int i = 0; i < n; i++) s->wu[i] = rtol * mbs_rtree_uscale(s->tree, i, L) / T;
    /* solver.abs_tolerance given: every coordinate and rate to it, as the
     * natural coordinates hold theirs (points and unit vectors alike) */
    if (!d->tol.per_var) {
        for (int i = 0; i < nq; i++) s->wq[i] = d->tol.atol_x;
        for (int i = 0; i < n; i++) s->wu[i] = d->tol.atol_v;
    }
    double *k[7];
    for (int st = 0; st < 7; st++) k[st] = s->k + (size_t)st * n2;
    /* FSAL: the first slope is the current state's */
    mbs_rtree_qdot(s->tree, s->q, s->u, k[0]);
    memcpy(k[0] + nq, s->qdd, sizeof(double) * (size_t)n);
    memcpy(k[0] + nq + n, s->zd, zb);
    int rejected_in_row = 0;
    while (s->t < T * (1 - 1e-14)) {
        if (s->t + 1.01 * h > T) h = T - s->t;
        /* a sampled controller's next instant, a kink of an input: the
         * step ends there (the run keeps d->t at the accepted state) */
        double t_stop = fmin(m->nctrl > 0 ? mbs_ctrl_next_stop(m, d) : INFINITY, mbs_next_kink(m, s->t));
        if (s->t + 1.01 * h > t_stop) h = t_stop - s->t;
        memcpy(s->y0, s->q, sizeof(double) * (size_t)nq);
        memcpy(s->y0 + nq, s->u, sizeof(double) * (size_t)n);
        memcpy(s->y0 + nq + n, s->z, zb);
        /* stages 2..7; the 7th is at the 5th-order solution.  A stage
         * whose recursion fails (a non-positive or non-finite pivot: a
         * state thrown far by too long a step) rejects the step; the run
         * fails only when the step falls below solver.min_step for it */
        int bad = 0;
        for (int st = 1; st < 7 && !bad; st++) {
            for (int i = 0; i < n2; i++) {
                double acc = 0;
                for (int j = 0; j < st; j++) acc += mbs_dp5_a[st][j] * k[j][i];
                s->ys[i] = s->y0[i] + h * acc;
            }
            bad = s_slope(s, s->t + mbs_dp5_c[st] * h, s->ys, k[st]) != 0;
        }
        if (bad) {
            d->met.rejected_steps++;
            rejected_in_row++;
            h *= 0.25;
            if (h < hmin) {
                mbs_err_add(err, "", "t = %.6g: the articulated-body recursion met a zero inertia on a joint axis "
                            "(relative formulation): a body without mass or inertia about a joint's axis", s->t);
                return MBS_ESINGULAR;
            }
            continue;
        }
        /* the embedded error estimate, weighted RMS */
        double e2 = 0;
        for (int i = 0; i < n2; i++) {
            double e = 0;
            for (int st = 0; st < 7; st++) e += mbs_dp5_e[st] * k[st][i];
            e *= h;
            double ay = fmax(fabs(s->y0[i]), fabs(s->ys[i]));
            double wgt = i < nq ? s->wq[i] : i < nq + n ? s->wu[i - nq] + rtol * ay : mbs_wz(d, i - nq - n, ay);
            e2 += (e / wgt) * (e / wgt);
        }
        double en = sqrt(e2 / (n2 > 0 ? n2 : 1));
        if (!isfinite(en)) en = 1e10;
        double fac = en > 0 ? 0.9 * pow(en, -0.2) : 5.0;
        /* a compliant contact starting or ending within the step: taken
         * again to end just past the switch (integrator_rk.c's rule) */
        if (en <= 1.0 && s->switch_at) {
            double sw = s->switch_at(s->switch_ctx, s, s->y0, s->ys, h);
            if (sw < 1 - REL_ONSET_PAST && sw * h > 2 * hmin) {
                h *= sw * (1 + 0.5 * REL_ONSET_PAST);
                d->met.events++;
                continue;
            }
        }
        if (en <= 1.0) {
            s->t = s->t + h >= T * (1 - 1e-14) ? T : s->t + h;
            memcpy(s->q, s->ys, sizeof(double) * (size_t)nq);
            memcpy(s->u, s->ys + nq, sizeof(double) * (size_t)n);
            memcpy(s->qdd, k[6] + nq, sizeof(double) * (size_t)n);
            memcpy(s->z, s->ys + nq + n, zb);
            memcpy(s->zd, k[6] + nq + n, zb);
            memcpy(k[0], k[6], sizeof(double) * (size_t)n2);
            d->met.steps++;
            mbs_note_error(d, en);
            /* s->w holds the last stage's kinematics and accelerations: the
             * accepted state's, which the run maps to its outputs */
            int rc = mbs_step_done(m, d, run, err);
            if (rc) return rc;
            /* a sampled controller's held output changed at this state (the
             * run mapped it to d): the first slope of the next step (FSAL)
             * is taken again after the jump */
            if (m->nctrl > 0 && mbs_ctrl_sample(m, d)) {
                if (s_slope(s, s->t, s->ys, k[0]) != 0) {
                    mbs_err_add(err, "", "t = %.6g: singular articulated-body recursion after a controller's sample",
                                s->t);
                    return MBS_ESINGULAR;
                }
                memcpy(s->qdd, k[0] + nq, sizeof(double) * (size_t)n);
                memcpy(s->zd, k[0] + nq + n, zb);
            }
            h *= fmin(MBS_STEP_GROWTH_MAX, fmax(0.2, fac));
            if (rejected_in_row) h = fmin(h, h / fmax(fac, 1.0));
            rejected_in_row = 0;
        } else {
            d->met.rejected_steps++;
            rejected_in_row++;
            h *= fmax(0.1, fac);
        }
        h = fmin(h, hmax);
        if (h < hmin && s->t < T * (1 - 1e-14)) {
            /* at a singular position of a loop say so: the common cause */
            if (s->tree->neq > 0 && s->w->pivot_ratio < 1e-6)
                mbs_err_add(err, "", "t = %.6g: step size %.3g below solver.min_step (relative formulation, dopri5) at "
                            "a singular position (loop equations nearly dependent, pivot ratio %.1e); natural bdf "
                            "passes it", s->t, h, s->w->pivot_ratio);
            else
                mbs_err_add(err, "", "t = %.6g: step size %.3g below solver.min_step (relative formulation, dopri5)",
                            s->t, h);
            return MBS_EDIVERGE;
        }
    }
    return 0;
}
