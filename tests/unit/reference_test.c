/*
 * reference_test.c - every example against its reference values
 * (tests/reference/<example>.json: published benchmark values and exact
 * analytic solutions, each with the tolerance and why, see
 * docs/benchmarks.md), with each of the three integrators and as written
 * ("default": the examples leave the integrator, step and tolerance to the
 * defaults, so this is what a user gets without tuning).
 *
 * Usage: reference_test [--quick]   (--quick: trapezoidal AL only and end
 * times capped at 2 s, for the sanitizer build)
 */
#include "check.h"
#include "testutil.h"

#include <dirent.h>
#include <jansson.h>
#include <math.h>

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
    double tend = t_ref_tend(refs, quick ? 2.0 : 100.0);
    if (tend <= 0) { json_decref(refs); return; }
    char tset[64];
    snprintf(tset, sizeof tset, "solver.t_end=%.17g", tend);
    for (int k = 0; k < (quick ? 1 : T_NINTEG); k++) {
        const char *why = t_excluded(name, t_integ_name(k));
        if (why) {
            printf("  %-30s %-15s NOT CHECKED: %s\n", name, t_integ_name(k), why);
            continue;
        }
        const char *sets[6] = {tset};
        int ns = 1;
        for (int q = 0; t_integ_sets(k, name)[q]; q++) sets[ns++] = t_integ_sets(k, name)[q];
        sets[ns] = NULL;
        t_run r;
        t_run_file(path, sets, &r);
        if (!CHECK(r.rc == 0)) {
            printf("  %-30s %-15s run failed: %s\n", name, t_integ_name(k), r.err.n ? r.err.e[0].message : "(no message)");
            t_run_free(&r);
            continue;
        }
        char label[128];
        snprintf(label, sizeof label, "%.80s %s", name, t_integ_name(k));
        int checked;
        double worst = t_check_refs(&r, refs, tend, label, &checked);
        printf("  %-30s %-15s %2d values, worst error %.3f of tolerance, %ld steps, %.3f s\n", name, t_integ_name(k),
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
