/*
 * relative_bdf_test.c - the BDF through the formulation boundary
 * (integrate/bdf_ode.h mbs_bdf_ode_run) and the relative formulation run
 * by it (solver.formulation "relative", solver.integrator "bdf").
 *
 *  1. the driver on formulations written here: the harmonic oscillator
 *     q'' = -w^2 q against cos(w t) at absolute weights 1e-6 and 1e-9
 *     (global error within 100 x the weight over 2 s, the accuracy
 *     contract's factor, docs/accuracy.md; falling with the weight); a stiff
 *     scalar equation (Prothero-Robinson, y' = -lambda (y - cos t) - sin t,
 *     lambda = 1e4, exact cos t) where dopri5 needs more than 10 x the
 *     steps; a slope failing once (the step is taken again, or the run ends
 *     when the formulation says so); a commit asking for a retake; weights
 *     no step can meet (the min-step failure);
 *  2. relative bdf on tolerance_test's mechanisms that the relative
 *     formulation runs, against the same references (exact solutions,
 *     Andrews' published values, high-accuracy runs) at tolerances 1e-6
 *     and 1e-9: position error within 100 x tol x L;
 *  3. a stiff spring (the spring_mass_damper example, k = 1e4 N/m, c = 1e4
 *     N s/m: modes at -1.0001 and -9999 1/s) against its closed form at
 *     tolerances 1e-6 and 1e-9 (within 100 x tol x x0); relative dopri5
 *     needs more than 10 x the steps of relative bdf;
 *  4. the flyball governor (examples/iftomm_a05_flyball.json) in relative
 *     bdf against natural bdf, both at tolerance 1e-10: every channel (but
 *     the constraint violation) within B = 2 x 100 x (1e-10 + 1e-10) of its
 *     scale (max |y|), or, where natural bdf's own error is the larger one,
 *     within B + 2 x that error (its larger distance to natural bdf at
 *     1e-11 and 1e-12): formulations_test's rule;
 *  5. the parser: relative with another integrator is refused naming both.
 */
#define TOLERANCE_TEST_NO_MAIN
#include "tolerance_test.c"

#include "ode_stub.h"

/* ---- 1. the driver on formulations written here (ode_stub.h) -------------------------- */

static void test_driver(void)
{
    const char *sets[] = {"solver.t_end=2", "solver.integrator=bdf", NULL};
    t_sets ts;
    t_sets_parse(&ts, sets);
    char *doc = t_slurp("examples/spring_mass_damper.json", NULL);
    CHECK(doc != NULL);
    if (!doc) return;
    mbs_errlist el = {0};
    mbs_spec *s = mech_parse(doc, strlen(doc), ts.ov, ts.n, &el);
    free(doc);
    mbs_model *m = s ? mbs_model_new(s, NULL, &el) : NULL;
    mbs_data *d = m ? mbs_data_new(m) : NULL;
    CHECK(d != NULL);
    if (!d) return;
    mbs_metrics met;

    /* the oscillator: global error over 2 s within 100 x the weight, and
     * falling with it */
    double worst[2];
    long steps[2];
    for (int k = 0; k < 2; k++) {
        s_ode c = {.w = 3, .atol = k ? 1e-9 : 1e-6};
        CHECK(s_run_ode(m, d, &c, 1, 0, &met) == 0);
        worst[k] = c.worst;
        steps[k] = met.steps;
        printf("  oscillator atol %.0e: %ld steps, %ld rejected, %ld Newton, %ld Jacobians, order <= %d, "
               "largest error %.2e (%.2f atol)\n", c.atol, met.steps, met.rejected_steps, met.newton_iterations,
               met.jacobian_evaluations, met.order_max_used, c.worst, c.worst / c.atol);
        CHECK(c.worst < 100 * c.atol);
        CHECK(c.monotone && c.done == met.steps);
        CHECK(met.order_max_used >= 4); /* the order rises on a smooth solution */
    }
    CHECK(worst[0] / worst[1] > 100);
    CHECK(steps[1] > 3 * steps[0]);

    /* stiff: lambda = 1e4; dopri5's stability bound (h <= 3.3 / lambda)
     * costs it thousands of steps, BDF's step follows the smooth cos t */
    for (int k = 0; k < 2; k++) {
        double atol = k ? 1e-9 : 1e-6;
        s_ode cb = {.stiff = 1, .lambda = 1e4, .atol = atol}, cd = cb;
        mbs_metrics mb, md;
        CHECK(s_run_ode(m, d, &cb, 1, 0, &mb) == 0);
        CHECK(s_run_ode(m, d, &cd, 0, 0, &md) == 0);
        printf("  stiff (lambda 1e4) atol %.0e: bdf %ld steps (error %.2e = %.2f atol), dopri5 %ld steps "
               "(%.2f atol)\n", atol, mb.steps, cb.worst, cb.worst / atol, md.steps, cd.worst / atol);
        CHECK(cb.worst < 100 * atol);
        CHECK(md.steps > 10 * mb.steps);
    }

    /* a slope failing once, a retake (ode_stub.h): the history restarted
     * from the restored state, the run within the bound */
    s_ode cr;
    s_check_fail_paths(m, d, 1, &cr, &met);
    CHECK(cr.worst < 100 * cr.atol);

    /* weights no step can meet: below solver.min_step */
    s_ode cm = {.w = 3, .atol = 1e-300};
    CHECK(s_run_ode(m, d, &cm, 1, 0, &met) == MBS_EDIVERGE);
    CHECK(cm.fail_why == MBS_ODE_FAIL_MIN_STEP);

    mbs_data_free(&d);
    mbs_model_free(&m);
    mbs_spec_free(&s);
}

/* ---- 2. tolerance_test's mechanisms in relative bdf ----------------------------------------- */

static void test_tolerance(void)
{
    const double tols[] = {1e-6, 1e-9};
    for (int i = 0; i < TP_NMECH; i++) {
        const tp_mech *mc = &TP_MECH[i];
        /* the N-four-bars stop at their singular positions in relative
         * coordinates (index 1 + Baumgarte: docs/formulations.md) */
        if (!strncmp(mc->name, "four_bar_n", 10)) continue;
        tp_refs rf;
        if (!CHECK(tp_load_refs(mc, &rf) > 0)) continue;
        for (int k = 0; k < 2; k++) {
            tp_result r;
            tp_run(mc, "bdf", tols[k], &rf, "solver.formulation=relative", &r);
            double bound = TP_FACTOR * tols[k] * mc->L;
            printf("  %-16s tol %.0e: %5ld steps %4ld rejected, error %.2e = %.3f x the bound (%s at t=%g), "
                   "%.3f s%s%s\n", mc->name, tols[k], r.steps, r.rejected, r.err, r.err / bound,
                   r.worst_chan ? r.worst_chan : "-", r.worst_t, r.cpu, r.msg[0] ? "; " : "", r.msg);
            CHECK(r.rc == 0);
            CHECK(r.err <= bound);
        }
    }
}

/* ---- 3. a stiff spring against its closed form ----------------------------------------- */

/* x(t) - L0 of the spring_mass_damper block released at rest from x0:
 * roots r1, r2 of m r^2 + c r + k = 0 (real: overdamped) */
static double s_spring_exact(double m, double k, double c, double x0, double t)
{
    double D = sqrt(c * c - 4 * m * k), r1 = (-c + D) / (2 * m), r2 = (-c - D) / (2 * m);
    /* A + B = x0, r1 A + r2 B = 0 */
    double A = x0 * r2 / (r2 - r1), B = x0 - A;
    return A * exp(r1 * t) + B * exp(r2 * t);
}

static void test_stiff_spring(void)
{
    const double tols[] = {1e-6, 1e-9};
    const double mass = 1, k = 1e4, c = 1e4, x0 = 0.1, L0 = 1;
    for (int j = 0; j < 2; j++) {
        char s_tol[64];
        snprintf(s_tol, sizeof s_tol, "solver.tolerance=%g", tols[j]);
        const char *bdf[] = {"k=1e4", "c=1e4", "solver.t_end=3", "solver.formulation=relative",
                             "solver.integrator=bdf", s_tol, NULL};
        const char *dop[] = {"k=1e4", "c=1e4", "solver.t_end=3", "solver.formulation=relative",
                             "solver.integrator=dopri5", s_tol, NULL};
        t_run rb, rd;
        CHECK(t_run_file("examples/spring_mass_damper.json", bdf, &rb) == 0);
        CHECK(t_run_file("examples/spring_mass_damper.json", dop, &rd) == 0);
        CHECK(rb.rc == 0 && rd.rc == 0);
        if (rb.rc || rd.rc) { t_run_free(&rb); t_run_free(&rd); continue; }
        int cx = t_col(&rb, "x"), w = 1 + rb.res.nchannel;
        CHECK(cx > 0);
        double err = 0;
        for (int i = 0; cx > 0 && i < rb.res.nsample; i++) {
            double t = rb.res.rows[(size_t)i * w];
            err = fmax(err, fabs(rb.res.rows[(size_t)i * w + cx] - L0 - s_spring_exact(mass, k, c, x0, t)));
        }
        double bound = 100 * tols[j] * x0;
        printf("  stiff spring tol %.0e: relative bdf %ld steps, %ld Newton, %ld Jacobians, error %.2e = %.3f x "
               "100 tol x0; relative dopri5 %ld steps (%.0f x)\n", tols[j], rb.met.steps, rb.met.newton_iterations,
               rb.met.jacobian_evaluations, err, err / bound, rd.met.steps,
               (double)rd.met.steps / (double)rb.met.steps);
        CHECK(err <= bound);
        CHECK(rd.met.steps > 10 * rb.met.steps);
        t_run_free(&rb);
        t_run_free(&rd);
    }
}

/* ---- 4. the flyball: relative bdf against natural bdf --------------------------------------- */

/* Largest |a - b| of column j over the samples, over the scale of a's. */
static double s_chan_diff(const t_run *a, const t_run *b, int j)
{
    int w = 1 + a->res.nchannel;
    double scale = 0, diff = 0;
    for (int i = 0; i < a->res.nsample; i++) scale = fmax(scale, fabs(a->res.rows[(size_t)i * w + j]));
    for (int i = 0; i < a->res.nsample; i++)
        diff = fmax(diff, fabs(a->res.rows[(size_t)i * w + j] - b->res.rows[(size_t)i * w + j]));
    return scale > 0 ? diff / scale : diff;
}

static void test_flyball(void)
{
    const char *nat[] = {"solver.tolerance=1e-10", "solver.integrator=bdf", NULL};
    const char *rel[] = {"solver.tolerance=1e-10", "solver.integrator=bdf", "solver.formulation=relative", NULL};
    const char *nat11[] = {"solver.tolerance=1e-11", "solver.integrator=bdf", NULL};
    const char *nat12[] = {"solver.tolerance=1e-12", "solver.integrator=bdf", NULL};
    t_run a, b, a11, a12;
    int tight = 0; /* natural at 1e-11 and 1e-12 run (when a channel exceeds B) */
    CHECK(t_run_file("examples/iftomm_a05_flyball.json", nat, &a) == 0);
    CHECK(t_run_file("examples/iftomm_a05_flyball.json", rel, &b) == 0);
    CHECK(a.rc == 0 && b.rc == 0);
    CHECK(a.res.nsample == b.res.nsample && a.res.nchannel == b.res.nchannel);
    if (a.rc || b.rc || a.res.nsample != b.res.nsample || a.res.nchannel != b.res.nchannel) {
        t_run_free(&a);
        t_run_free(&b);
        return;
    }
    const double B = 2 * 100 * (1e-10 + 1e-10);
    double worst = 0;
    const char *wname = "-";
    for (int j = 1; j <= a.res.nchannel; j++) {
        const char *name = a.spec->channels[j - 1].name;
        if (!strcmp(name, "cv")) continue; /* constraint violation: not compared */
        double d = s_chan_diff(&a, &b, j), bound = B;
        if (d > B) {
            if (!tight) {
                CHECK(t_run_file("examples/iftomm_a05_flyball.json", nat11, &a11) == 0 && a11.rc == 0);
                CHECK(t_run_file("examples/iftomm_a05_flyball.json", nat12, &a12) == 0 && a12.rc == 0);
                tight = 1;
            }
            double own = fmax(s_chan_diff(&a, &a11, j), s_chan_diff(&a, &a12, j));
            bound = B + 2 * own;
            printf("    %s: %.2e of its scale > B = %.1e; natural bdf's own error %.2e: bound %.2e\n", name, d, B,
                   own, bound);
        }
        if (d / bound > worst) { worst = d / bound; wname = name; }
        if (!CHECK(d <= bound)) printf("    flyball %s: %.3e of its scale (bound %.2e)\n", name, d, bound);
    }
    printf("  flyball at 1e-10: natural bdf %ld steps %.3f s, relative bdf %ld steps %.3f s; worst channel %s at "
           "%.3f x its bound\n", a.met.steps, a.met.cpu_seconds, b.met.steps, b.met.cpu_seconds, wname, worst);
    if (tight) { t_run_free(&a11); t_run_free(&a12); }
    t_run_free(&a);
    t_run_free(&b);
}

/* ---- 5. the parser ------------------------------------------------------------------------ */

static void test_parser(void)
{
    char *doc = t_slurp("examples/pendulum.json", NULL);
    CHECK(doc != NULL);
    if (!doc) return;
    const char *al[] = {"solver.formulation=relative", "solver.integrator=trapezoidal_al", NULL};
    CHECK(t_parse_refused(doc, al, "/solver/integrator", "integrates with dopri5, bdf, moreau_jean or event_driven only"));
    /* bdf and dopri5 parse; dopri5 is the default there */
    const char *ok[] = {"solver.formulation=relative", "solver.integrator=bdf", NULL};
    t_run r;
    CHECK(t_run_text(doc, ok, &r) == 0 && r.rc == 0);
    CHECK(r.met.integrator && !strcmp(r.met.integrator, "bdf"));
    t_run_free(&r);
    free(doc);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("the BDF driver through the formulation boundary:\n");
    test_driver();
    printf("relative bdf on tolerance_test's mechanisms (error <= %g x tol x L):\n", TP_FACTOR);
    test_tolerance();
    printf("a stiff spring, relative bdf against the closed form:\n");
    test_stiff_spring();
    printf("the flyball governor, relative bdf against natural bdf:\n");
    test_flyball();
    test_parser();
    return CHECK_SUMMARY("relative_bdf_test");
}
