/*
 * ode_form_test.c - the Dormand-Prince driver through the formulation
 * boundary (integrate/dopri5.h mbs_dopri5_run, formulation/formulation.h)
 * on a formulation written in the tests (ode_stub.h): the harmonic oscillator q'' = -w^2 q,
 * q(0) = 1, v(0) = 0, against its exact solution cos(w t); a stage that
 * fails once (the step is taken again, or the run ends when the
 * formulation says so), a commit that asks for a retake, weights no step
 * can meet (the min-step failure).  The model and run data come from an
 * example; the driver reads only their solver options and metrics.
 */
#include "check.h"
#include "testutil.h"
#include "ode_stub.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
        s_ode c = {.w = 3, .atol = k ? 1e-9 : 1e-6};
        CHECK(s_run_ode(m, d, &c, 0, 0, &met) == 0);
        worst[k] = c.worst;
        steps[k] = met.steps;
        printf("  oscillator atol %.0e: %ld steps, %ld rejected, largest error %.2e (%.2f atol)\n", c.atol, met.steps,
               met.rejected_steps, c.worst, c.worst / c.atol);
        CHECK(c.worst < 100 * c.atol);
        CHECK(c.monotone && c.done == met.steps);
    }
    CHECK(worst[0] / worst[1] > 100);
    CHECK(steps[1] > 3 * steps[0]);

    /* a failed stage, a retake (ode_stub.h); the retaken step is computed
     * again from the restored state */
    s_ode cr;
    s_check_fail_paths(m, d, 0, &cr, &met);
    CHECK(met.steps == steps[1]);
    CHECK(cr.worst == worst[1]); /* the same steps again: the same numbers */

    /* weights no step can meet: the step falls below solver.min_step */
    s_ode cm = {.w = 3, .atol = 1e-300};
    CHECK(s_run_ode(m, d, &cm, 0, 0, &met) == MBS_EDIVERGE);
    CHECK(cm.fail_why == MBS_ODE_FAIL_MIN_STEP);
    CHECK(cm.done == 0);

    mbs_data_free(&d);
    mbs_model_free(&m);
    mbs_spec_free(&s);
    return CHECK_SUMMARY("ode_form_test");
}
