/*
 * reference_test.c - every example against its reference values
 * (tests/reference/<example>.json: published benchmark values and exact
 * analytic solutions, each with the tolerance and why, see
 * docs/benchmarks.md), with each of the three integrators.
 *
 * Usage: reference_test [--quick]   (--quick: trapezoidal AL only and end
 * times capped at 2 s, for the sanitizer build)
 */
#include "check.h"
#include "testutil.h"

#include <dirent.h>
#include <jansson.h>
#include <math.h>

/* Mean spacing of upward zero crossings of a channel (its period). */
static double s_period(const t_run *r, const char *ch)
{
    int c = t_col(r, ch), w = 1 + r->res.nchannel, n = 0;
    double first = NAN, last = NAN;
    for (int i = 1; c > 0 && i < r->res.nsample; i++) {
        double a = r->res.rows[(size_t)(i - 1) * w + c], b = r->res.rows[(size_t)i * w + c];
        if (a < 0 && b >= 0) {
            double ta = r->res.rows[(size_t)(i - 1) * w], tb = r->res.rows[(size_t)i * w];
            double tc = ta + (tb - ta) * (-a) / (b - a);
            if (n == 0) first = tc;
            last = tc;
            n++;
        }
    }
    return n >= 2 ? (last - first) / (n - 1) : NAN;
}

/* Settings per integrator: the example's own for AL; tight tolerances for
 * the error-controlled ones (their error must be well inside the reference
 * tolerances, which are sized for the benchmark accuracy). */
static const char *const INTEG[3][4] = {
    {"solver.integrator=trapezoidal_al", NULL},
    {"solver.integrator=bdf", "solver.tolerance=1e-10", "solver.abs_tolerance=1e-10", NULL},
    {"solver.integrator=dopri5", "solver.tolerance=1e-9", "solver.abs_tolerance=1e-9", NULL},
};
static const char *const INTEG_NAME[3] = {"trapezoidal_al", "bdf", "dopri5"};

/* Combinations that are known not to meet the reference, with the reason;
 * printed on every run (never skipped silently). */
static const struct { const char *example, *integrator, *why; } EXCLUDED[] = {
    {"iftomm_a02_four_bar_n2", "dopri5",
     "index-1 + Baumgarte: the accelerations are undefined at the exact singular positions; measured: the "
     "run leaves the parallelogram branch (error 1300x the tolerance) and needs ~180 AL passes per stage"},
    {"iftomm_a02_four_bar_n40", "dopri5", "same as N = 2"},
};

static const char *s_excluded(const char *example, const char *integ)
{
    for (size_t i = 0; i < sizeof EXCLUDED / sizeof EXCLUDED[0]; i++)
        if (!strcmp(EXCLUDED[i].example, example) && !strcmp(EXCLUDED[i].integrator, integ)) return EXCLUDED[i].why;
    return NULL;
}

static void s_check_example(const char *name, int quick)
{
    char path[1024], refpath[1024];
    snprintf(path, sizeof path, "examples/%.200s.json", name);
    snprintf(refpath, sizeof refpath, "tests/reference/%.200s.json", name);
    json_error_t je;
    json_t *refs = json_load_file(refpath, 0, &je);
    CHECK(refs != NULL && json_is_array(refs));
    if (!refs) return;
    /* end time: the largest reference time, capped */
    double cap = quick ? 2.0 : 100.0, tend = 0;
    size_t i;
    json_t *e;
    json_array_foreach(refs, i, e) {
        json_t *t = json_object_get(e, "t");
        if (json_is_number(t) && json_number_value(t) <= cap) tend = fmax(tend, json_number_value(t));
        /* periods: 20 s of motion, at least three periods even when capped */
        if (json_is_null(t)) tend = fmax(tend, fmax(fmin(cap, 20.0), 3.2 * json_number_value(json_object_get(e, "value"))));
    }
    if (tend <= 0) { json_decref(refs); return; }
    char tset[64];
    snprintf(tset, sizeof tset, "solver.t_end=%.17g", tend);
    for (int k = 0; k < (quick ? 1 : 3); k++) {
        const char *why = s_excluded(name, INTEG_NAME[k]);
        if (why) {
            printf("  %-30s %-15s NOT CHECKED: %s\n", name, INTEG_NAME[k], why);
            continue;
        }
        const char *sets[6] = {tset};
        int ns = 1;
        for (int q = 0; INTEG[k][q]; q++) sets[ns++] = INTEG[k][q];
        sets[ns] = NULL;
        t_run r;
        t_run_file(path, sets, &r);
        if (!CHECK(r.rc == 0)) {
            printf("  %-30s %-15s run failed\n", name, INTEG_NAME[k]);
            t_run_free(&r);
            continue;
        }
        double worst = 0;
        int checked = 0;
        json_array_foreach(refs, i, e) {
            json_t *t = json_object_get(e, "t");
            const char *ch = json_string_value(json_object_get(e, "channel"));
            const char *qty = json_string_value(json_object_get(e, "quantity"));
            double val = json_number_value(json_object_get(e, "value"));
            double tol = json_number_value(json_object_get(e, "tolerance"));
            double got;
            if (json_is_null(t) && qty && !strcmp(qty, "period")) got = s_period(&r, ch);
            else if (json_is_number(t) && json_number_value(t) <= tend) got = t_at(&r, ch, json_number_value(t));
            else continue;
            checked++;
            double ratio = fabs(got - val) / tol;
            if (!(ratio <= worst)) worst = ratio;
            if (!CHECK(fabs(got - val) <= tol))
                printf("    %s %s: %s at t=%s: %.10g vs %.10g (tol %g)\n", name, INTEG_NAME[k], ch,
                       json_is_number(t) ? "" : "period", got, val, tol);
        }
        printf("  %-30s %-15s %2d values, worst error %.3f of tolerance, %ld steps, %.3f s\n", name, INTEG_NAME[k],
               checked, worst, r.met.steps, r.met.wall_seconds);
        t_run_free(&r);
    }
    json_decref(refs);
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && !strcmp(argv[1], "--quick");
    setvbuf(stdout, NULL, _IOLBF, 0);
    DIR *dir = opendir("tests/reference");
    CHECK(dir != NULL);
    if (!dir) return CHECK_SUMMARY("reference_test");
    char names[64][256];
    int n = 0;
    struct dirent *de;
    while ((de = readdir(dir)) && n < 64) {
        size_t l = strlen(de->d_name);
        if (l > 5 && !strcmp(de->d_name + l - 5, ".json")) {
            snprintf(names[n], sizeof names[n], "%.*s", (int)(l - 5 < 200 ? l - 5 : 200), de->d_name);
            n++;
        }
    }
    closedir(dir);
    /* stable order */
    for (int a = 1; a < n; a++)
        for (int b = a; b > 0 && strcmp(names[b - 1], names[b]) > 0; b--) {
            char tmp[256];
            memcpy(tmp, names[b], sizeof tmp);
            memcpy(names[b], names[b - 1], sizeof tmp);
            memcpy(names[b - 1], tmp, sizeof tmp);
        }
    CHECK(n >= 10);
    for (int k = 0; k < n; k++) s_check_example(names[k], quick);
    return CHECK_SUMMARY("reference_test");
}
