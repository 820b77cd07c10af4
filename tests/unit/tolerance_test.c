/*
 * tolerance_test.c - tolerance proportionality (issue 9, item 2).
 *
 * For every error-controlled integrator (bdf, dopri5, event_driven on the
 * planar mechanisms, and the default one: the example run with no
 * solver.integrator at all) and the tolerances
 * 1e-3 ... 1e-9, the global error of the position channels at the reference
 * times must stay within 100 x tolerance x L, L the mechanism's
 * characteristic length (defined below from its geometry).  Only
 * solver.tolerance is set: the example's own integrator, step, tolerance,
 * abs_tolerance and max_step are removed from its solver block, so the
 * absolute tolerance is whatever the solver derives from the relative one.
 *
 * References (docs/benchmarks.md): exact solutions (pendulums, the
 * N-four-bar's reduced ODE, cross-checked here by a standalone RK4
 * integration), Andrews' Test-Set values (PSIDE, rtol = atol = 1e-14) and
 * high-accuracy values computed by bdf and dopri5 at 1e-12 / 1e-13
 * (tests/reference/high_accuracy/, `build/bench/work_precision --refs`).
 *
 * Prints one row per (mechanism, integrator, tolerance): error,
 * error / (tol L), steps, CPU s; every failure with its numbers; every
 * skipped or shortened case with the reason.
 *
 * Usage: tolerance_test [--quick]   (--quick: tolerances 1e-3, 1e-6, 1e-9)
 *
 * bench/work_precision.c includes this file (TOLERANCE_TEST_NO_MAIN) for the
 * mechanism table, the references and the runs.
 */
#include "check.h"
#include "testutil.h"

#include <jansson.h>
#include <math.h>

#define TP_MAXREF 64
#define TP_FACTOR 100.0 /* the criterion: error <= TP_FACTOR x tol x L */

typedef struct {
    const char *name, *example;
    double L;             /* characteristic length (m) */
    const char *L_why;
    const char *refs;     /* reference file */
    const char *kind;     /* entries of this "kind" only */
    const char *chan[4];  /* position channels */
    double tmax;          /* reference times up to tmax (all of the file's when 0) */
    const char *tmax_why; /* why the later reference times are left out (printed) */
} tp_mech;

static const tp_mech TP_MECH[] = {
    {"andrews", "examples/iftomm_a03_andrews.json", 0.04,
     "longest link |AG| = |AH| = 0.04 m (Hairer & Wanner zt, u)", "tests/reference/iftomm_a03_andrews.json",
     "published", {"xF", "yF"}, 0, NULL},
    {"slider_crank_3d", "examples/iftomm_spatial_slider_crank.json", 0.3, "connecting rod BC 0.3 m",
     "tests/reference/high_accuracy/iftomm_spatial_slider_crank.json", "computed", {"x_slider"}, 0, NULL},
    {"four_bar_n2", "examples/iftomm_a02_four_bar_n2.json", 1.0, "every link 1 m",
     "tests/reference/iftomm_a02_four_bar_n2.json", "analytic", {"xB0", "yB0"}, 0, NULL},
    {"four_bar_n40", "examples/iftomm_a02_four_bar_n40.json", 1.0, "every link 1 m",
     "tests/reference/iftomm_a02_four_bar_n40.json", "analytic", {"xB0", "yB0"}, 10,
     "t <= 10 s here (reference times 1, 2.5, 5, 10 s); four_bar_n40_20s below runs the IFToMM horizon, 20 s"},
    {"four_bar_n40_20s", "examples/iftomm_a02_four_bar_n40.json", 1.0, "every link 1 m",
     "tests/reference/iftomm_a02_four_bar_n40.json", "analytic", {"xB0", "yB0"}, 0, NULL},
    {"bricard", "examples/iftomm_a04_bricard.json", 1.0, "every rod 1 m",
     "tests/reference/high_accuracy/iftomm_a04_bricard.json", "computed", {"xP3", "yP3", "zP3"}, 0, NULL},
    {"flyball", "examples/iftomm_a05_flyball.json", 1.0, "shaft and rods 1 m",
     "tests/reference/high_accuracy/iftomm_a05_flyball.json", "computed", {"s", "ballR_x", "ballR_z"}, 0, NULL},
    {"double_pendulum", "examples/double_pendulum.json", 1.0, "each rod 1 m",
     "tests/reference/high_accuracy/double_pendulum.json", "computed", {"x_tip", "y_tip"}, 0, NULL},
    {"bouncing_ball", "examples/bouncing_ball.json", 1.05, "dropped from 1.05 m (its gap to the floor, accuracy.c)",
     "tests/reference/high_accuracy/bouncing_ball.json", "computed", {"z"}, 0, NULL},
    {"pendulum", "examples/pendulum.json", 1.0, "rod 1 m", "tests/reference/pendulum.json", "analytic",
     {"x", "y"}, 0, NULL},
    {"a01_pendulum", "examples/iftomm_a01_pendulum.json", 1.0, "rod 1 m", "tests/reference/iftomm_a01_pendulum.json",
     "analytic", {"xP1", "yP1"}, 10,
     "t <= 10 s (IFToMM A01 runs 2000 s; the 100 and 2000 s values are for the example's own settings)"},
};
#define TP_NMECH ((int)(sizeof TP_MECH / sizeof TP_MECH[0]))

/* NULL = the default integrator (no solver.integrator in the document);
 * event_driven (DOPRI5 steps between events) runs the planar mechanisms
 * only (tp_skipped) */
static const char *const TP_INTEG[] = {NULL, "bdf", "dopri5", "event_driven"};
#define TP_NINTEG 4
#define TP_INTEG_NAME(k) (TP_INTEG[k] ? TP_INTEG[k] : "default")

/* Cases that fail today, with the reason (issue 9's note says what is
 * left): printed as KNOWN FAILURE on every run, never counted as passed; a
 * listed case that passes is reported so the list can shrink. */
__attribute__((unused)) static const char *tp_known_failure(const char *mech, const char *integ, double tol)
{
    if (!strncmp(mech, "four_bar_n", 10) && integ && !strcmp(integ, "dopri5"))
        return "DOPRI5 on the index-1 form leaves the parallelogram branch at the singular positions and says so "
               "(a warning in its metrics, robustness_test); reference_test excludes it";
    if (!strncmp(mech, "four_bar_n", 10) && integ && !strcmp(integ, "event_driven"))
        return "the event-driven integrator takes DOPRI5 steps on the index-1 form (dense KKT, no redundancy "
               "re-selection): it cannot follow the branch through the singular positions either";
    return NULL;
}

/* Why integrator integ is not run on mechanism m (NULL: it is): the
 * event-driven one is planar only (it refuses spatial models with a clear
 * error). */
__attribute__((unused)) static const char *tp_skipped(const tp_mech *m, const char *integ)
{
    /* the index-1 methods fail the N = 40 four-bar within 10 s already
     * (four_bar_n40's known failures): 20 more seconds add nothing */
    if (!strcmp(m->name, "four_bar_n40_20s") && integ && (!strcmp(integ, "dopri5") || !strcmp(integ, "event_driven")))
        return "index-1 form: a known failure within 10 s already (four_bar_n40)";
    if (!integ || strcmp(integ, "event_driven")) return NULL;
    json_error_t je;
    json_t *doc = json_load_file(m->example, 0, &je);
    int planar = doc && json_integer_value(json_object_get(doc, "dimension")) == 2;
    json_decref(doc);
    return planar ? NULL : "planar only, this mechanism is spatial";
}

typedef struct {
    int n;
    const char *chan[TP_MAXREF];
    double t[TP_MAXREF], value[TP_MAXREF];
    double tend;
} tp_refs;

/* The reference values of mechanism m: entries of its kind, one of its
 * position channels, 0 < t <= tmax.  0 when none were found. */
static int tp_load_refs(const tp_mech *m, tp_refs *rf)
{
    memset(rf, 0, sizeof *rf);
    json_error_t je;
    json_t *a = json_load_file(m->refs, 0, &je);
    if (!json_is_array(a)) {
        printf("  %s: cannot read %s: %s\n", m->name, m->refs, je.text);
        json_decref(a);
        return 0;
    }
    size_t i;
    json_t *e;
    json_array_foreach(a, i, e) {
        const char *ch = json_string_value(json_object_get(e, "channel"));
        const char *kind = json_string_value(json_object_get(e, "kind"));
        json_t *t = json_object_get(e, "t");
        if (!ch || !kind || strcmp(kind, m->kind) || !json_is_number(t) || json_object_get(e, "quantity")) continue;
        double tv = json_number_value(t);
        if (tv <= 0 || (m->tmax > 0 && tv > m->tmax + 1e-12)) continue;
        for (int c = 0; c < 4 && m->chan[c]; c++)
            if (!strcmp(ch, m->chan[c]) && rf->n < TP_MAXREF) {
                rf->chan[rf->n] = m->chan[c]; /* static storage */
                rf->t[rf->n] = tv;
                rf->value[rf->n] = json_number_value(json_object_get(e, "value"));
                rf->tend = fmax(rf->tend, tv);
                rf->n++;
            }
    }
    json_decref(a);
    return rf->n;
}

/* The example's text with the accuracy settings of its solver block removed
 * (integrator, step, max_step, tolerance, abs_tolerance): a user's "only
 * t_end" document.  Caller frees. */
static char *tp_plain_text(const char *path)
{
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    if (!doc) return NULL;
    json_t *s = json_object_get(doc, "solver");
    const char *strip[] = {"integrator", "step", "max_step", "tolerance", "abs_tolerance"};
    for (size_t k = 0; json_is_object(s) && k < sizeof strip / sizeof strip[0]; k++) json_object_del(s, strip[k]);
    char *text = json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(17));
    json_decref(doc);
    return text;
}

typedef struct {
    int rc;          /* run status (0 = finished) */
    double err;      /* largest |position - reference| at the reference times */
    const char *worst_chan;
    double worst_t;
    long steps, rejected;
    double cpu;      /* CPU seconds of the run */
    char msg[240];   /* first error or warning */
} tp_result;

/* One run of mechanism m with integrator integ (NULL: default) at relative
 * tolerance tol to rf->tend; extra: one more "NAME=VALUE" override or NULL. */
static void tp_run(const tp_mech *m, const char *integ, double tol, const tp_refs *rf, const char *extra,
                   tp_result *out)
{
    memset(out, 0, sizeof *out);
    out->err = NAN;
    char *text = tp_plain_text(m->example);
    if (!text) { out->rc = -99; snprintf(out->msg, sizeof out->msg, "cannot read %s", m->example); return; }
    char s_tend[64], s_tol[64], s_int[64];
    snprintf(s_tend, sizeof s_tend, "solver.t_end=%.17g", rf->tend);
    snprintf(s_tol, sizeof s_tol, "solver.tolerance=%.17g", tol);
    const char *sets[6] = {s_tend, s_tol};
    int ns = 2;
    if (integ) { snprintf(s_int, sizeof s_int, "solver.integrator=%s", integ); sets[ns++] = s_int; }
    if (extra) sets[ns++] = extra;
    sets[ns] = NULL;
    t_run r;
    t_run_text(text, sets, &r);
    free(text);
    out->rc = r.rc;
    out->steps = r.met.steps;
    out->rejected = r.met.rejected_steps;
    out->cpu = r.met.cpu_seconds;
    if (r.rc && r.err.n) snprintf(out->msg, sizeof out->msg, "%.200s", r.err.e[0].message);
    else if (r.met.nwarning > 0) snprintf(out->msg, sizeof out->msg, "warning: %.190s", r.met.warning[0]);
    if (r.rc == 0) {
        out->err = 0;
        for (int i = 0; i < rf->n; i++) {
            double d = fabs(t_at(&r, rf->chan[i], rf->t[i]) - rf->value[i]);
            if (!(d <= out->err)) { out->err = d; out->worst_chan = rf->chan[i]; out->worst_t = rf->t[i]; }
        }
    }
    t_run_free(&r);
}

/* The N-four-bar's exact reduced ODE on the parallelogram branch: every
 * crank at angle phi from the vertical, J phi'' = K sin phi with
 * J = (N+1)/3 + N, K = g ((N+1)/2 + N), phi(0) = 0, phi'(0) = 1 rad/s,
 * B0 = (sin phi, cos phi).  Classic RK4 with step h to time t. */
static void tp_fourbar_exact(int N, double t, double h, double *x, double *y)
{
    double J = (N + 1) / 3.0 + N, K = 9.81 * ((N + 1) / 2.0 + N), c = K / J;
    double p = 0, w = 1;
    long n = lround(t / h);
    h = t / n;
    for (long i = 0; i < n; i++) {
        double k1p = w, k1w = c * sin(p);
        double k2p = w + 0.5 * h * k1w, k2w = c * sin(p + 0.5 * h * k1p);
        double k3p = w + 0.5 * h * k2w, k3w = c * sin(p + 0.5 * h * k2p);
        double k4p = w + h * k3w, k4w = c * sin(p + h * k3p);
        p += h / 6 * (k1p + 2 * k2p + 2 * k3p + k4p);
        w += h / 6 * (k1w + 2 * k2w + 2 * k3w + k4w);
    }
    *x = sin(p);
    *y = cos(p);
}

/* Cross-check of the stored N-four-bar values against the reduced ODE:
 * RK4 at h = 1e-4 and 5e-5 (their difference bounds the RK4 error, about
 * 1e-13 m); returns the largest difference from the stored values. */
__attribute__((unused)) static double tp_check_fourbar(const tp_mech *m, int N, const tp_refs *rf)
{
    double worst = 0, rk = 0;
    for (int i = 0; i < rf->n; i++) {
        double x1, y1, x2, y2;
        tp_fourbar_exact(N, rf->t[i], 1e-4, &x1, &y1);
        tp_fourbar_exact(N, rf->t[i], 5e-5, &x2, &y2);
        double v = !strcmp(rf->chan[i], "xB0") ? x2 : y2, v1 = !strcmp(rf->chan[i], "xB0") ? x1 : y1;
        rk = fmax(rk, fabs(v - v1));
        worst = fmax(worst, fabs(v - rf->value[i]));
    }
    printf("  %s: stored exact values vs a standalone RK4 integration of the reduced ODE: largest difference "
           "%.2e m (RK4 h = 1e-4 vs 5e-5: %.2e m)\n", m->name, worst, rk);
    return worst;
}

#ifndef TOLERANCE_TEST_NO_MAIN
int main(int argc, char **argv)
{
    int quick = argc > 1 && !strcmp(argv[1], "--quick");
    setvbuf(stdout, NULL, _IOLBF, 0);
    const double tols_all[] = {1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9};
    const double tols_quick[] = {1e-3, 1e-6, 1e-9};
    const double *tols = quick ? tols_quick : tols_all;
    int ntol = quick ? 3 : 7;
    printf("tolerance proportionality: error of the position channels at the reference times <= %g x tol x L\n"
           "(only solver.tolerance set; integrator 'default' = no solver.integrator in the document;\n"
           " every run is stopped after 120 s wall clock, solver.time_limit, a guard against a hang, and then counts as a failure)\n",
           TP_FACTOR);
    int npass = 0, nfail = 0, nknown = 0, nfixed = 0;
    char failures[256][300];
    int nfl = 0;
    for (int mi = 0; mi < TP_NMECH; mi++) {
        const tp_mech *m = &TP_MECH[mi];
        tp_refs rf;
        printf("\n%s (%s): L = %g m (%s)\n", m->name, m->example, m->L, m->L_why);
        if (!CHECK(tp_load_refs(m, &rf) > 0)) { printf("  NO REFERENCES in %s: not checked\n", m->refs); continue; }
        printf("  %d reference values (%s, kind '%s') up to t = %g s\n", rf.n, m->refs, m->kind, rf.tend);
        if (m->tmax_why) printf("  SHORTENED: %s\n", m->tmax_why);
        if (!strncmp(m->name, "four_bar_n", 10)) CHECK(tp_check_fourbar(m, atoi(m->name + 10), &rf) < 1e-10);
        printf("  %-10s %8s %12s %12s %8s %9s  %s\n", "integrator", "tol", "error (m)", "err/(tol L)", "steps",
               "CPU s", "result");
        for (int k = 0; k < TP_NINTEG; k++) {
            const char *skip = tp_skipped(m, TP_INTEG[k]);
            if (skip) {
                printf("  %-10s SKIPPED: %s (not counted)\n", TP_INTEG_NAME(k), skip);
                continue;
            }
            for (int ti = 0; ti < ntol; ti++) {
                double tol = tols[ti], lim = TP_FACTOR * tol * m->L;
                tp_result res;
                const char *known = tp_known_failure(m->name, TP_INTEG[k], tol);
                /* a known failure only has to show that it still fails: 20 s
                 * (DOPRI5 off the N-four-bar's branch at 1e-9 wanders for
                 * minutes) */
                tp_run(m, TP_INTEG[k], tol, &rf, known ? "solver.time_limit=20" : "solver.time_limit=120", &res);
                int ok = res.rc == 0 && res.err <= lim;
                /* one check per case (a listed known failure passes it by
                 * failing as listed), so that the count says how many ran */
                CHECK(ok || known);
                if (known && !ok) nknown++;
                else if (ok) npass++;
                else nfail++;
                if (known && ok) nfixed++;
                printf("  %-10s %8.0e %12.3e %12.3g %8ld %9.3f  %s%s\n", TP_INTEG_NAME(k), tol, res.err,
                       res.err / (tol * m->L), res.steps, res.cpu,
                       ok ? (known ? "pass (listed as a known failure)" : "pass") : known ? "KNOWN FAILURE" : "FAIL",
                       res.rc ? " (run failed)" : "");
                if (known && !ok) {
                    if (nfl < 256) snprintf(failures[nfl++], 300, "KNOWN %s %s tol %.0e: %.200s", m->name,
                                            TP_INTEG_NAME(k), tol, known);
                } else if (!ok && nfl < 256) {
                    if (res.rc)
                        snprintf(failures[nfl++], 300, "%s %s tol %.0e: run failed (status %d) after %ld steps: %.200s",
                                 m->name, TP_INTEG_NAME(k), tol, res.rc, res.steps, res.msg);
                    else
                        snprintf(failures[nfl++], 300,
                                 "%s %s tol %.0e: error %.3e m (%s at t = %g) > %g x %.0e x %g = %.1e m (%.3g x the limit)",
                                 m->name, TP_INTEG_NAME(k), tol, res.err, res.worst_chan, res.worst_t, TP_FACTOR, tol,
                                 m->L, lim, res.err / lim);
                }
            }
        }
    }
    if (quick) printf("\n--quick: tolerances 1e-3, 1e-6, 1e-9 only (1e-4, 1e-5, 1e-7, 1e-8 skipped)\n");
    printf("\n%d cases pass, %d FAIL, %d KNOWN FAILURES (not counted as passed)\n", npass, nfail, nknown);
    if (nfixed) printf("%d listed known failures now pass (shorten tp_known_failure if they always do)\n", nfixed);
    for (int i = 0; i < nfl; i++) printf("%s%s\n", strncmp(failures[i], "KNOWN ", 6) ? "FAIL " : "", failures[i]);
    return CHECK_SUMMARY("tolerance_test");
}
#endif
