/*
 * ode_stub.h - formulations written in the tests behind the formulation
 * boundary (formulation/formulation.h mbs_ode_form), for the drivers that
 * run any formulation: the harmonic oscillator q'' = -w^2 q, q(0) = 1,
 * v(0) = 0 (exact cos(w t)), or the stiff Prothero-Robinson equation
 * y' = -lambda (y - cos t) - sin t, y(0) = 1 (exact cos t); a slope that
 * fails once, a commit that asks for a retake once, absolute weights atol.
 * s_run_ode runs one to t_end = 2 by the BDF (bdf_ode.h) or DOPRI5
 * (dopri5.h).  Included by ode_form_test.c and relative_bdf_test.c after
 * check.h and testutil.h.
 */
#ifndef ODE_STUB_H
#define ODE_STUB_H
#include "mbs/integrate/bdf_ode.h"
#include "mbs/integrate/dopri5.h"

#include <math.h>
#include <string.h>

typedef struct {
    int stiff;           /* 0 oscillator (q, v); 1 Prothero-Robinson (y)   */
    double w, lambda, atol;
    int fail_once;       /* a slope in (0.3, 0.35) fails once              */
    int retake_once;     /* the first commit past t = 0.5 asks a retake    */
    int fails, retakes, fail_why;
    double t_prev, y_prev[2], k_prev[2]; /* the last committed state       */
    double *y;
    double worst, t_last;
    int done, monotone;
} s_ode;

static int s_slope(void *ctx, double t, const double *y, double *k)
{
    s_ode *c = ctx;
    if (c->fail_once && t > 0.3 && t < 0.35) { c->fail_once = 0; c->fails++; return 1; }
    if (c->stiff) {
        k[0] = -c->lambda * (y[0] - cos(t)) - sin(t);
        return 0;
    }
    k[0] = y[1];
    k[1] = -c->w * c->w * y[0];
    return 0;
}

static double s_weight(void *ctx, int i, double ay)
{
    (void)i; (void)ay;
    return ((s_ode *)ctx)->atol;
}

static int s_commit(void *ctx, double t0, double h, double *t, double *y, double *k, int *retake, mbs_errlist *err)
{
    s_ode *c = ctx;
    (void)t0; (void)h; (void)err;
    size_t nb = sizeof(double) * (c->stiff ? 1 : 2);
    if (c->retake_once && *t > 0.5) {
        c->retake_once = 0;
        c->retakes++;
        *t = c->t_prev;
        memcpy(y, c->y_prev, nb);
        memcpy(k, c->k_prev, nb);
        *retake = 1;
        return 0;
    }
    c->t_prev = *t;
    memcpy(c->y_prev, y, nb);
    memcpy(c->k_prev, k, nb);
    return 0;
}

static int s_reslope(void *ctx, double t, const double *y, double *k) { return s_slope(ctx, t, y, k); }

static int s_fail(void *ctx, int why, double t, double h, mbs_errlist *err)
{
    ((s_ode *)ctx)->fail_why = why;
    mbs_err_add(err, "", "t = %g, h = %g: failed (%d)", t, h, why);
    return why == MBS_ODE_FAIL_MIN_STEP ? MBS_EDIVERGE : MBS_ESINGULAR;
}

/* the stepper: the accepted state against the exact solution */
static int s_done(void *ctx, const mbs_model *m, mbs_data *d, mbs_errlist *err)
{
    s_ode *c = ctx;
    (void)m; (void)d; (void)err;
    double t = c->t_prev;
    if (c->stiff) {
        c->worst = fmax(c->worst, fabs(c->y[0] - cos(t)));
    } else {
        c->worst = fmax(c->worst, fabs(c->y[0] - cos(c->w * t)));
        c->worst = fmax(c->worst, fabs(c->y[1] + c->w * sin(c->w * t)) / c->w);
    }
    if (!(t > c->t_last)) c->monotone = 0;
    c->t_last = t;
    c->done++;
    return 0;
}

/* One run to t_end = 2 by the BDF (bdf = 1) or dopri5; the return code,
 * the metrics in *met. */
static int s_run_ode(const mbs_model *m, mbs_data *d, s_ode *c, int bdf, int fatal, mbs_metrics *met)
{
    double buf[2 + 2 + 14];
    int nq = 1, nv = c->stiff ? 0 : 1;
    mbs_ode_form f = {.name = c->stiff ? "prothero-robinson" : "oscillator", .nq = nq, .nv = nv, .nz = 0,
                      .stage_fail_fatal = fatal, .ctx = c, .slope = s_slope, .weight = s_weight,
                      .commit = s_commit, .reslope = s_reslope, .fail = s_fail};
    mbs_ode_state st = {.t = 0, .y = buf, .ys = buf + 2, .k = buf + 4};
    buf[0] = 1; buf[1] = 0;
    s_slope(c, 0, buf, st.k);
    c->y = st.y;
    c->t_prev = 0; c->y_prev[0] = 1; c->y_prev[1] = 0; memcpy(c->k_prev, st.k, sizeof c->k_prev);
    c->worst = 0; c->t_last = 0; c->done = 0; c->monotone = 1;
    memset(&d->met, 0, sizeof d->met);
    mbs_stepper run = {s_done, c, 0.1};
    mbs_errlist el = {0};
    int rc = bdf ? mbs_bdf_ode_run(m, d, &f, &st, &run, &el) : mbs_dopri5_run(m, d, &f, &st, &run, &el);
    *met = d->met;
    if (rc == 0) CHECK(st.t == 2.0);
    return rc;
}

/* A poll that stops the run at its first call (counted). */
static int s_polls;
static int s_poll_stop(mbs_data *d, mbs_errlist *err)
{
    (void)d;
    s_polls++;
    mbs_err_add(err, "", "cancelled");
    return MBS_ECANCEL;
}

/* The driver's failure paths, alike for the BDF (bdf = 1) and dopri5: a
 * slope failing once (the step taken again a quarter as long; with a fatal
 * failure the run ends with the formulation's message), and a commit asking
 * for a retake once (the step counted and observed once).  The retake's run
 * is left in *cr and its metrics in *met for the caller's own checks. */
static void s_check_fail_paths(const mbs_model *m, mbs_data *d, int bdf, s_ode *cr, mbs_metrics *met)
{
    s_ode c = {.w = 3, .atol = 1e-9, .fail_once = 1};
    CHECK(s_run_ode(m, d, &c, bdf, 0, met) == 0);
    printf("  a slope failing once (%s): %ld steps, %ld rejected, largest error %.2e\n", bdf ? "bdf" : "dopri5",
           met->steps, met->rejected_steps, c.worst);
    CHECK(c.fails == 1);
    CHECK(met->rejected_steps >= 1);
    CHECK(c.worst < 100 * c.atol);
    s_ode cf = {.w = 3, .atol = 1e-9, .fail_once = 1};
    CHECK(s_run_ode(m, d, &cf, bdf, 1, met) == MBS_ESINGULAR);
    CHECK(cf.fail_why == MBS_ODE_FAIL_STAGE);
    CHECK(cf.t_last > 0.2 && cf.t_last < 0.35);
    /* a run stopped where a rejected step is retaken (a time limit, a
     * cancel: d->poll) ends with the poll's code and its message, and frees
     * what it holds (the sanitizer suite runs this) */
    s_ode cs = {.w = 3, .atol = 1e-9, .fail_once = 1};
    d->poll = s_poll_stop;
    s_polls = 0;
    CHECK(s_run_ode(m, d, &cs, bdf, 0, met) == MBS_ECANCEL);
    d->poll = NULL;
    /* stopped at the first rejection: at the failing slope (dopri5) or at
     * an earlier rejected step (the BDF's first steps) */
    CHECK(s_polls == 1 && cs.t_last < 0.35 && (bdf || (cs.fails == 1 && cs.t_last > 0.2)));
    *cr = (s_ode){.w = 3, .atol = 1e-9, .retake_once = 1};
    CHECK(s_run_ode(m, d, cr, bdf, 0, met) == 0);
    CHECK(cr->retakes == 1);
    CHECK(cr->monotone && cr->done == met->steps);
}

#endif
