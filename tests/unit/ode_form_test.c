/*
 * ode_form_test.c - the Dormand-Prince driver through the formulation
 * boundary (integrate/dopri5.h mbs_dopri5_run, formulation/formulation.h)
 * on a formulation written here: the harmonic oscillator q'' = -w^2 q,
 * q(0) = 1, v(0) = 0, against its exact solution cos(w t); a stage that
 * fails once (the step is taken again, or the run ends when the
 * formulation says so), a commit that asks for a retake, weights no step
 * can meet (the min-step failure).  The model and run data come from an
 * example; the driver reads only their solver options and metrics.
 */
#include "check.h"
#include "testutil.h"
#include "mbs/integrate/dopri5.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    double w, atol;
    int fail_once;       /* a slope in (0.3, 0.35) fails once              */
    int retake_once;     /* the first commit past t = 0.5 asks a retake    */
    int fails, retakes;  /* what happened                                  */
    int fail_why;        /* the last fail hook's reason                    */
    double t_prev, y_prev[2], k_prev[2]; /* the last committed state       */
    double *y;           /* the driver's accepted state                    */
    double worst, t_last;
    int done, monotone;
} s_osc;

static int s_slope(void *ctx, double t, const double *y, double *k)
{
    s_osc *c = ctx;
    if (c->fail_once && t > 0.3 && t < 0.35) { c->fail_once = 0; c->fails++; return 1; }
    k[0] = y[1];
    k[1] = -c->w * c->w * y[0];
    return 0;
}

static double s_weight(void *ctx, int i, double ay)
{
    (void)i; (void)ay;
    return ((s_osc *)ctx)->atol;
}

static int s_commit(void *ctx, double t0, double h, double *t, double *y, double *k, int *retake, mbs_errlist *err)
{
    s_osc *c = ctx;
    (void)t0; (void)h; (void)err;
    if (c->retake_once && *t > 0.5) {
        c->retake_once = 0;
        c->retakes++;
        *t = c->t_prev;
        memcpy(y, c->y_prev, sizeof c->y_prev);
        memcpy(k, c->k_prev, sizeof c->k_prev);
        *retake = 1;
        return 0;
    }
    c->t_prev = *t;
    memcpy(c->y_prev, y, sizeof c->y_prev);
    memcpy(c->k_prev, k, sizeof c->k_prev);
    return 0;
}

static int s_reslope(void *ctx, double t, const double *y, double *k) { return s_slope(ctx, t, y, k); }

static int s_fail(void *ctx, int why, double t, double h, mbs_errlist *err)
{
    ((s_osc *)ctx)->fail_why = why;
    mbs_err_add(err, "", "t = %g, h = %g: oscillator failed (%d)", t, h, why);
    return why == MBS_ODE_FAIL_MIN_STEP ? MBS_EDIVERGE : MBS_ESINGULAR;
}

/* the stepper: the accepted state against cos(w t) */
static int s_done(void *ctx, const mbs_model *m, mbs_data *d, mbs_errlist *err)
{
    s_osc *c = ctx;
    (void)m; (void)d; (void)err;
    double t = c->t_prev;
    c->worst = fmax(c->worst, fabs(c->y[0] - cos(c->w * t)));
    c->worst = fmax(c->worst, fabs(c->y[1] + c->w * sin(c->w * t)) / c->w);
    if (!(t > c->t_last)) c->monotone = 0;
    c->t_last = t;
    c->done++;
    return 0;
}

/* One run of the oscillator to t_end = 2 with absolute weights atol; the
 * driver's return code, the metrics in *met. */
static int s_run(const mbs_model *m, mbs_data *d, s_osc *c, int fatal, mbs_metrics *met)
{
    double buf[2 + 2 + 14];
    mbs_ode_form f = {.name = "oscillator", .nq = 1, .nv = 1, .nz = 0, .stage_fail_fatal = fatal, .ctx = c,
                      .slope = s_slope, .weight = s_weight, .commit = s_commit, .reslope = s_reslope, .fail = s_fail};
    mbs_ode_state st = {.t = 0, .y = buf, .ys = buf + 2, .k = buf + 4};
    buf[0] = 1; buf[1] = 0;
    s_slope(c, 0, buf, st.k);
    c->y = st.y;
    c->t_prev = 0; c->y_prev[0] = 1; c->y_prev[1] = 0; memcpy(c->k_prev, st.k, sizeof c->k_prev);
    c->worst = 0; c->t_last = 0; c->done = 0; c->monotone = 1;
    memset(&d->met, 0, sizeof d->met);
    mbs_stepper run = {s_done, c, 0.1};
    mbs_errlist el = {0};
    int rc = mbs_dopri5_run(m, d, &f, &st, &run, &el);
    *met = d->met;
    if (rc == 0) CHECK(st.t == 2.0);
    return rc;
}

int main(void)
{
    const char *sets[] = {"solver.t_end=2", "solver.integrator=dopri5", NULL};
    t_sets ts;
    t_sets_parse(&ts, sets);
    char *doc = t_slurp("examples/spring_mass_damper.json", NULL);
    CHECK(doc != NULL);
    if (!doc) return CHECK_SUMMARY("ode_form_test");
    mbs_errlist el = {0};
    mbs_spec *s = mech_parse(doc, strlen(doc), ts.ov, ts.n, &el);
    free(doc);
    mbs_model *m = s ? mbs_model_new(s, NULL, &el) : NULL;
    mbs_data *d = m ? mbs_data_new(m) : NULL;
    CHECK(d != NULL);
    if (!d) return CHECK_SUMMARY("ode_form_test");
    mbs_metrics met;

    /* accuracy: the global error of DOPRI5 over 2 s (about 1 to 3
     * periods of local errors below atol each) stays within 100 atol, and
     * falls with atol (5th order: about 10^3 for 10^3) */
    double worst[2];
    long steps[2];
    for (int k = 0; k < 2; k++) {
        s_osc c = {.w = 3, .atol = k ? 1e-9 : 1e-6};
        CHECK(s_run(m, d, &c, 0, &met) == 0);
        worst[k] = c.worst;
        steps[k] = met.steps;
        printf("  oscillator atol %.0e: %ld steps, %ld rejected, largest error %.2e (%.2f atol)\n", c.atol, met.steps,
               met.rejected_steps, c.worst, c.worst / c.atol);
        CHECK(c.worst < 100 * c.atol);
        CHECK(c.monotone && c.done == met.steps);
    }
    CHECK(worst[0] / worst[1] > 100);
    CHECK(steps[1] > 3 * steps[0]);

    /* a failed stage: the step is taken again, a quarter as long */
    s_osc c = {.w = 3, .atol = 1e-9, .fail_once = 1};
    CHECK(s_run(m, d, &c, 0, &met) == 0);
    printf("  a stage failing once: %ld steps, %ld rejected, largest error %.2e\n", met.steps, met.rejected_steps,
           c.worst);
    CHECK(c.fails == 1);
    CHECK(met.rejected_steps >= 1);
    CHECK(c.worst < 100 * c.atol);
    /* ... or the run ends with the formulation's message */
    s_osc cf = {.w = 3, .atol = 1e-9, .fail_once = 1};
    CHECK(s_run(m, d, &cf, 1, &met) == MBS_ESINGULAR);
    CHECK(cf.fail_why == MBS_ODE_FAIL_STAGE);
    CHECK(cf.t_last > 0.2 && cf.t_last < 0.35);

    /* a retake: the step is computed again from the restored state, the
     * stepper and the step count see it once */
    s_osc cr = {.w = 3, .atol = 1e-9, .retake_once = 1};
    CHECK(s_run(m, d, &cr, 0, &met) == 0);
    CHECK(cr.retakes == 1);
    CHECK(cr.monotone && cr.done == met.steps);
    CHECK(met.steps == steps[1]);
    CHECK(cr.worst == worst[1]); /* the same steps again: the same numbers */

    /* weights no step can meet: the step falls below solver.min_step */
    s_osc cm = {.w = 3, .atol = 1e-300};
    CHECK(s_run(m, d, &cm, 0, &met) == MBS_EDIVERGE);
    CHECK(cm.fail_why == MBS_ODE_FAIL_MIN_STEP);
    CHECK(cm.done == 0);

    mbs_data_free(&d);
    mbs_model_free(&m);
    mbs_spec_free(&s);
    return CHECK_SUMMARY("ode_form_test");
}
