/*
 * dopri5.c - the Dormand-Prince 5(4) tableau and one step (see dopri5.h).
 */
#include "mbs/integrate/dopri5.h"

#include <math.h>

#include "mbs/model/accuracy.h"
#include <string.h>

/* A step in whose last ODE_ONSET_PAST a compliant contact starts or ends is
 * accepted; one with an earlier switch is taken again to end half that
 * fraction past it (integrator_rk.c's RK_ONSET_PAST). */
#define ODE_ONSET_PAST 1e-3

const double mbs_dp5_c[7] = {0, 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9, 1, 1};
const double mbs_dp5_a[7][6] = {
    {0},
    {1.0 / 5},
    {3.0 / 40, 9.0 / 40},
    {44.0 / 45, -56.0 / 15, 32.0 / 9},
    {19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729},
    {9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656},
    {35.0 / 384, 0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84}};
const double mbs_dp5_e[7] = {71.0 / 57600, 0, -71.0 / 16695, 71.0 / 1920, -17253.0 / 339200, 22.0 / 525, -1.0 / 40};
void mbs_dopri5_slots(const mbs_data *d, int n, double *kx[7], double *kv[7])
{
    for (int s = 0; s < 7; s++) { kx[s] = d->rk + (size_t)(2 * s) * n; kv[s] = d->rk + (size_t)(2 * s + 1) * n; }
}

int mbs_dopri5_stages(const mbs_dae_form *f, const mbs_model *m, mbs_data *d, double t, const double *x,
                      const double *v, double h, double *kx[7], double *kv[7], double *xs, double *vs,
                      mbs_accel_fn accel, void *ctx)
{
    int n = f->n, nz = m->nz;
    for (int s = 1; s < 7; s++) {
        for (int i = 0; i < n; i++) {
            double sx = 0, sv = 0;
            for (int j = 0; j < s; j++) { sx += mbs_dp5_a[s][j] * kx[j][i]; sv += mbs_dp5_a[s][j] * kv[j][i]; }
            xs[i] = x[i] + h * sx;
            vs[i] = v[i] + h * sv;
        }
        /* element states at the stage, where the forces read them (d->z),
         * from the step's start d->zs */
        for (int k = 0; k < nz; k++) {
            double sz = 0;
            for (int j = 0; j < s; j++) sz += mbs_dp5_a[s][j] * d->zk[j * nz + k];
            d->z[k] = d->zs[k] + h * sz;
        }
        memcpy(kx[s], vs, sizeof(double) * (size_t)n);
        int rc = accel(m, d, t + mbs_dp5_c[s] * h, xs, vs, kv[s], ctx);
        if (rc) return rc;
        if (nz > 0) f->zrate(f->ctx, xs, vs, d->z, t + mbs_dp5_c[s] * h, d->zk + s * nz);
    }
    return 0;
}

double mbs_dopri5_error(int n, double h, double *kx[7], double *kv[7], const double *x, const double *v,
                        const double *xs, const double *vs, const mbs_tol *tol, int nz, const double *kz,
                        const double *z0, const double *z1)
{
    double e2 = 0;
    for (int i = 0; i < n; i++) {
        double ex = 0, ev = 0;
        for (int s = 0; s < 7; s++) { ex += mbs_dp5_e[s] * kx[s][i]; ev += mbs_dp5_e[s] * kv[s][i]; }
        ex *= h; ev *= h;
        double wx = mbs_tol_wx(tol, i, fmax(fabs(x[i]), fabs(xs[i])));
        double wv = mbs_tol_wv(tol, i, fmax(fabs(v[i]), fabs(vs[i])));
        e2 += (ex / wx) * (ex / wx) + (ev / wv) * (ev / wv);
    }
    /* element states: weights az + rtol |z| (accuracy.h) */
    for (int k = 0; k < nz; k++) {
        double ez = 0;
        for (int s = 0; s < 7; s++) ez += mbs_dp5_e[s] * kz[s * nz + k];
        ez *= h;
        double wz = tol->az[k] + tol->rtol * fmax(fabs(z0[k]), fabs(z1[k]));
        e2 += (ez / wz) * (ez / wz);
    }
    double en = sqrt(e2 / (2.0 * (n > 0 ? n : 1) + nz));
    return isfinite(en) ? en : 1e10;
}

/* The embedded error estimate of a step of size h from y to ys, weighted
 * RMS under f->weight; 1e10 when not finite. */
static double s_ode_error(const mbs_ode_form *f, double h, double *const k[7], const double *y, const double *ys)
{
    int n2 = mbs_ode_size(f);
    double e2 = 0;
    for (int i = 0; i < n2; i++) {
        double e = 0;
        for (int st = 0; st < 7; st++) e += mbs_dp5_e[st] * k[st][i];
        e *= h;
        double wgt = f->weight(f->ctx, i, fmax(fabs(y[i]), fabs(ys[i])));
        e2 += (e / wgt) * (e / wgt);
    }
    double en = sqrt(e2 / (n2 > 0 ? n2 : 1));
    return isfinite(en) ? en : 1e10;
}

int mbs_dopri5_run(const mbs_model *m, mbs_data *d, const mbs_ode_form *f, mbs_ode_state *st, mbs_stepper *run,
                   mbs_errlist *err)
{
    const mbs_solver_spec *o = &m->spec->solver;
    int n2 = mbs_ode_size(f);
    size_t yb = sizeof(double) * (size_t)n2;
    double T = o->t_end;
    double hmax = o->max_step > 0 ? o->max_step : run->interval;
    double hmin = o->min_step > 0 ? o->min_step : 1e-12;
    double h = fmin(o->step > 0 ? o->step : 1e-3, hmax);
    double *k[7], *y = st->y, *ys = st->ys;
    for (int s = 0; s < 7; s++) k[s] = st->k + (size_t)s * n2;
    int rejected_in_row = 0;
    while (st->t < T * (1 - 1e-14)) {
        if (st->t + 1.01 * h > T) h = T - st->t;
        /* a sampled controller's next instant, a kink of an input: the
         * step ends there (the run keeps d->t at the accepted state) */
        double t_stop = fmin(f->next_stop ? f->next_stop(f->ctx) : INFINITY, mbs_next_kink(m, st->t));
        if (st->t + 1.01 * h > t_stop) h = t_stop - st->t;
        /* stages 2..7; the 7th is at the 5th-order solution.  A stage
         * whose slope fails rejects the step; the run fails only when the
         * step falls below solver.min_step for it */
        if (f->begin_step) f->begin_step(f->ctx);
        int bad = 0;
        for (int s = 1; s < 7 && !bad; s++) {
            for (int i = 0; i < n2; i++) {
                double acc = 0;
                for (int j = 0; j < s; j++) acc += mbs_dp5_a[s][j] * k[j][i];
                ys[i] = y[i] + h * acc;
            }
            bad = f->slope(f->ctx, st->t + mbs_dp5_c[s] * h, ys, k[s]) != 0;
        }
        if (bad && f->stage_fail_fatal) return f->fail(f->ctx, MBS_ODE_FAIL_STAGE, st->t, h, err);
        if (bad) {
            d->met.rejected_steps++;
            rejected_in_row++;
            int rc_poll = mbs_data_poll(d, err);
            if (rc_poll) return rc_poll;
            h *= 0.25;
            if (h < hmin) return f->fail(f->ctx, MBS_ODE_FAIL_STAGE, st->t, h, err);
            continue;
        }
        double en = f->error ? f->error(f->ctx, h, k, y, ys) : s_ode_error(f, h, k, y, ys);
        double fac = en > 0 ? 0.9 * pow(en, -0.2) : 5.0;
        /* a compliant contact starting or ending within the step: taken
         * again to end just past the switch */
        if (en <= 1.0 && f->switch_at) {
            double sw = f->switch_at(f->ctx, y, ys, h);
            if (sw < 1 - ODE_ONSET_PAST && sw * h > 2 * hmin) {
                h *= sw * (1 + 0.5 * ODE_ONSET_PAST);
                d->met.events++;
                continue;
            }
        }
        if (en <= 1.0) {
            double t0 = st->t;
            st->t = t0 + h >= T * (1 - 1e-14) ? T : h == t_stop - t0 ? t_stop : t0 + h;
            memcpy(y, ys, yb);
            memcpy(k[0], k[6], yb);
            d->met.steps++;
            mbs_note_error(d, en);
            int retake = 0;
            int rc = f->commit(f->ctx, t0, h, &st->t, y, k[0], &retake, err);
            if (rc) return rc;
            if (retake) { d->met.steps--; continue; }
            if (f->project) f->project(f->ctx, st->t, y, k[0]);
            rc = mbs_step_done(m, d, run, err);
            if (rc) return rc;
            /* a sampled controller's held output changed at this state (the
             * form samples it as the natural coordinates see it): the first
             * slope of the next step (FSAL) is taken again after the jump */
            if (f->sample && f->sample(f->ctx, st->t, y)) {
                if (f->reslope(f->ctx, st->t, y, k[0]) != 0) return f->fail(f->ctx, MBS_ODE_FAIL_RESLOPE, st->t, h, err);
            }
            h *= fmin(MBS_STEP_GROWTH_MAX, fmax(0.2, fac));
            if (rejected_in_row) h = fmin(h, h / fmax(fac, 1.0));
            rejected_in_row = 0;
        } else {
            d->met.rejected_steps++;
            rejected_in_row++;
            h *= fmax(0.1, fac);
            int rc_poll = mbs_data_poll(d, err);
            if (rc_poll) return rc_poll;
        }
        h = fmin(h, hmax);
        if (h < hmin && st->t < T * (1 - 1e-14)) return f->fail(f->ctx, MBS_ODE_FAIL_MIN_STEP, st->t, h, err);
    }
    return 0;
}
