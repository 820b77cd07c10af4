/*
 * robustness_test.c - issue 9 item 3: the mechanisms with singular passages
 * and redundant constraints give the right answer whatever the last bits of
 * their initial conditions and whatever BLAS/LAPACK or compiler flags built
 * them.
 *
 * The N-four-bar (N = 2 and 40: singular positions twice per revolution),
 * Bricard's mechanism (redundant constraints, degenerate kept set at
 * theta1 = pi/2) and the stiff flyball governor, each with every integrator
 * (trapezoidal_al with the example's own settings, bdf and dopri5 with the
 * tight tolerances of reference_test), under initial conditions perturbed by
 * 1e-12 relative with a fixed-seed generator (3 seeds): after parsing, every
 * body's position (com), angle or orientation, velocity and angular velocity
 * in the mbs_spec moves by 1e-12 * u * max(|value|, scale), u uniform in
 * [-1, 1], scale = the mechanism's length L (max |com|, |joint point|, as the
 * model's length_scale), 1 rad, 1 (quaternion components, renormalised), the
 * velocity scale V (largest |v| or L |omega| of the input, else sqrt(g L)),
 * V / L.  Natural coordinates take their points from the joints, so a
 * perturbed com moves the mass distribution and the point velocities
 * (v + omega x (x - com)); angles and orientations move the unit vectors.
 *
 * Each run is checked against tests/reference/<example>.json exactly as
 * reference_test does (same end time, same tolerances, periods included).
 * A combination excluded from those checks (t_excluded: dopri5 on the
 * N-four-bar) must say so instead: its run (seed 1, the first 5 s) fails
 * or carries a warning.
 * While tests/reference/iftomm_a05_flyball.json does not exist, the flyball
 * runs are checked against each other (see s_check_flyball_pair).
 *
 * The first lines name the BLAS and LAPACK that the process really calls
 * (the libraries that define dgemv_ and dgetrf_, from dladdr) and every
 * BLAS/LAPACK file mapped (/proc/self/maps): tests/suite_variants.sh checks
 * them against the variant it claims to run.
 *
 * Usage: robustness_test [--quick] [EXAMPLE]   (--quick: seed 1 only; EXAMPLE: that one only)
 */
#include "check.h"
#include "testutil.h"

#include <dlfcn.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <unistd.h>

static const char *const EXAMPLES[] = {
    "iftomm_a02_four_bar_n2", "iftomm_a02_four_bar_n40", "iftomm_a04_bricard", "iftomm_a05_flyball",
};
#define NSEED 3
#define REL 1e-12

/* ---- which BLAS / LAPACK this process calls ------------------------------------ */

/* Runs that fail today under some builds, with the reason (issue 9's note
 * says what is left).  Counted and printed, not passed.  None at present:
 * the N-four-bar N = 40 with bdf, listed here until BDF kept off its singular
 * positions (integrator_bdf.c), stopped for 5 seeds in 10 under the reference
 * BLAS and 2 in 10 under OpenBLAS. */
static int s_nknown;
static const char *s_known_failure(const char *example, const char *integrator)
{
    (void)example;
    (void)integrator;
    return NULL;
}

static void s_print_linalg(void)
{
    const char *sym[2][2] = {{"blas", "dgemv_"}, {"lapack", "dgetrf_"}};
    for (int k = 0; k < 2; k++) {
        void *p = dlsym(RTLD_DEFAULT, sym[k][1]);
        Dl_info info;
        char real[4096] = "?";
        if (p && dladdr(p, &info) && info.dli_fname && !realpath(info.dli_fname, real))
            snprintf(real, sizeof real, "%s", info.dli_fname);
        printf("linalg: %s %s from %s\n", sym[k][0], sym[k][1], p ? real : "(not found)");
        CHECK(p != NULL);
    }
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096], seen[16][1024];
    int nseen = 0;
    while (f && fgets(line, sizeof line, f)) {
        char *path = strchr(line, '/');
        if (!path) continue;
        path[strcspn(path, "\n")] = 0;
        const char *base = strrchr(path, '/') + 1;
        if (!strstr(base, "blas") && !strstr(base, "lapack")) continue;
        int dup = 0;
        for (int i = 0; i < nseen; i++) dup |= !strcmp(seen[i], path);
        if (dup || nseen == 16) continue;
        snprintf(seen[nseen++], sizeof seen[0], "%s", path);
        printf("linalg: mapped %s\n", path);
    }
    if (f) fclose(f);
}

/* ---- the perturbation ------------------------------------------------------------- */

typedef struct { uint64_t s; } s_rng;

/* splitmix64: a fixed sequence per seed, the same on every machine */
static double s_uniform(s_rng *g)
{
    uint64_t z = (g->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) * 0x1.0p-53 * 2.0 - 1.0;
}

static void s_nudge(s_rng *g, double *x, double scale)
{
    *x += REL * s_uniform(g) * fmax(fabs(*x), scale);
}

static void s_perturb(mbs_spec *s, void *ctx)
{
    s_rng *g = ctx;
    int dim = s->dim;
    double L = 0, V = 0;
    for (int b = 0; b < s->nbody; b++)
        for (int a = 0; a < dim; a++) L = fmax(L, fabs(s->bodies[b].com[a]));
    for (int j = 0; j < s->njoint; j++)
        for (int a = 0; a < dim; a++) L = fmax(L, fabs(s->joints[j].at[a]));
    if (L <= 0) L = 1;
    for (int b = 0; b < s->nbody; b++) {
        const mbs_body_spec *B = &s->bodies[b];
        double v = 0, w = 0;
        for (int a = 0; a < 3; a++) v += B->velocity[a] * B->velocity[a], w += B->angular_velocity[a] * B->angular_velocity[a];
        V = fmax(V, fmax(sqrt(v), L * sqrt(w)));
    }
    if (V <= 0) {
        double gn = sqrt(s->gravity[0] * s->gravity[0] + s->gravity[1] * s->gravity[1] + s->gravity[2] * s->gravity[2]);
        V = gn > 0 ? sqrt(gn * L) : L;
    }
    for (int b = 0; b < s->nbody; b++) {
        mbs_body_spec *B = &s->bodies[b];
        for (int a = 0; a < dim; a++) s_nudge(g, &B->com[a], L);
        if (dim == 2) {
            s_nudge(g, &B->angle, 1.0);
        } else {
            double n = 0;
            for (int a = 0; a < 4; a++) s_nudge(g, &B->quat[a], 1.0), n += B->quat[a] * B->quat[a];
            for (int a = 0; a < 4; a++) B->quat[a] /= sqrt(n);
        }
        for (int a = 0; a < dim; a++) s_nudge(g, &B->velocity[a], V);
        if (dim == 2) s_nudge(g, &B->angular_velocity[2], V / L);
        else for (int a = 0; a < 3; a++) s_nudge(g, &B->angular_velocity[a], V / L);
    }
}

/* One run of example `name` with integrator k, perturbed with `seed`
 * (0: unperturbed), to t_end (<= 0: the example's own). */
static void s_run(const char *name, int k, int seed, double t_end, const char *const *extra, t_run *r)
{
    char path[512], tset[64];
    snprintf(path, sizeof path, "examples/%.200s.json", name);
    const char *sets[12];
    int ns = 0;
    if (t_end > 0) {
        snprintf(tset, sizeof tset, "solver.t_end=%.17g", t_end);
        sets[ns++] = tset;
    }
    for (int q = 0; t_integ_sets(k, name)[q]; q++) sets[ns++] = t_integ_sets(k, name)[q];
    for (int q = 0; extra && extra[q] && ns < 11; q++) sets[ns++] = extra[q];
    sets[ns] = NULL;
    char *text = t_slurp(path, NULL);
    if (!text) { memset(r, 0, sizeof *r); r->rc = -99; fprintf(stderr, "cannot read %s\n", path); return; }
    s_rng g = {0x5EED0000ull + (uint64_t)seed};
    t_run_text_with(text, sets, seed ? s_perturb : NULL, &g, r);
    free(text);
}

/* ---- against tests/reference/<example>.json (as reference_test) ------------------ */

static void s_check_reference(const char *name, json_t *refs, int nseed)
{
    /* end time: reference_test's rule without --quick (cap 100 s) */
    double tend = t_ref_tend(refs, 100.0);
    if (!CHECK(tend > 0)) return;
    for (int k = 0; k < 3; k++) {
        const char *why = t_excluded(name, t_integ_name(k));
        if (why) {
            printf("  %-26s %-15s NOT CHECKED: %s\n", name, t_integ_name(k), why);
            /* but the run must say so (issue 9): fail, or carry a warning
             * (tolerance_met false); seed 1, the first 5 s (CI budget: the
             * N-four-bar N = 2 with dopri5 leaves its branch at 3.2 s and
             * then needs some 7000 steps per second) */
            t_run r;
            double tsay = fmin(tend, 5.0);
            s_run(name, k, 1, tsay, NULL, &r);
            int says = r.rc != 0 || (r.met.nwarning > 0 && !r.met.tolerance_met);
            CHECK(says);
            printf("  %-26s %-15s seed 1, t <= %g s: %s: %s\n", name, t_integ_name(k), tsay,
                   says ? "the run says so" : "SILENT (no error, no warning)",
                   r.rc ? (r.err.n ? r.err.e[r.err.n - 1].message : "(no message)")
                        : r.met.nwarning ? r.met.warning[0] : "-");
            t_run_free(&r);
            continue;
        }
        for (int seed = 1; seed <= nseed; seed++) {
            t_run r;
            s_run(name, k, seed, tend, NULL, &r);
            /* a known open defect (issue 9): printed on every run, counted
             * apart, never reported as a pass */
            if (r.rc != 0 && s_known_failure(name, t_integ_name(k))) {
                printf("  %-26s %-15s seed %d  KNOWN FAILURE (issue 9 open: %s): %s\n", name, t_integ_name(k), seed,
                       s_known_failure(name, t_integ_name(k)), r.err.n ? r.err.e[r.err.n - 1].message : "(no message)");
                s_nknown++;
                t_run_free(&r);
                continue;
            }
            if (!CHECK(r.rc == 0)) {
                printf("  %-26s %-15s seed %d  run failed: %s\n", name, t_integ_name(k), seed,
                       r.err.n ? r.err.e[r.err.n - 1].message : "(no message)");
                t_run_free(&r);
                continue;
            }
            char label[128];
            snprintf(label, sizeof label, "%.80s %s seed %d", name, t_integ_name(k), seed);
            int checked;
            double worst = t_check_refs(&r, refs, tend, label, &checked);
            printf("  %-26s %-15s seed %d %2d values, worst error %.3f of tolerance, %ld steps, %.3f s\n", name,
                   t_integ_name(k), seed, checked, worst, r.met.steps, r.met.wall_seconds);
            t_run_free(&r);
        }
    }
}

/* ---- a given abs_tolerance far tighter than the tolerance ------------------------ */

/* The N-four-bars written with abs_tolerance 1e-9 (as the examples are) and
 * run at another tolerance: with tolerance 1e-6 the BDF's test for rounding
 * noise at the passages looked at the relative tolerance only (local 2e-8,
 * above its threshold) while the absolute one held the coordinates to 5e-13
 * of N = 40's extent, and Newton failed at t = 2.687 s (tolerance 1e-6 with
 * abs_tolerance 1e-9 or 1e-12; integrator_bdf.c, a_sing).  Each run must
 * reach 10 s and hold xB0, yB0 within twice 100 x tolerance x 1 m (the
 * criterion of tolerance_test, L = the 1 m links) at the reference times:
 * with given absolute tolerances the error depends on the build more than
 * with derived ones (measured, worst ratio to the criterion over the six
 * cases: 0.55 to 0.71 under OpenBLAS -O2 and the reference BLAS, 1.23 with
 * -O3 -march=native at tolerance 1e-5 / 1e-12, where derived weights give
 * 0.43); the bug this guards against made the run stop. */
static void s_check_mixed_tolerances(const char *name, json_t *refs)
{
    static const char *const tols[] = {"1e-5", "1e-6", "1e-7"};
    static const char *const atols[] = {"1e-9", "1e-12"};
    for (size_t i = 0; i < sizeof tols / sizeof tols[0]; i++)
        for (size_t j = 0; j < sizeof atols / sizeof atols[0]; j++) {
            char a[64], b[64];
            snprintf(a, sizeof a, "solver.tolerance=%s", tols[i]);
            snprintf(b, sizeof b, "solver.abs_tolerance=%s", atols[j]);
            const char *extra[] = {a, b, NULL};
            t_run r;
            s_run(name, 1, 0, 10.0, extra, &r);
            double worst = 0;
            if (r.rc == 0) {
                size_t q;
                json_t *e;
                json_array_foreach(refs, q, e) {
                    const char *ch = json_string_value(json_object_get(e, "channel"));
                    double t = json_number_value(json_object_get(e, "t"));
                    if (!ch || (strcmp(ch, "xB0") && strcmp(ch, "yB0")) || !(t > 0) || t > 10) continue;
                    double err = fabs(t_at(&r, ch, t) - json_number_value(json_object_get(e, "value")));
                    worst = fmax(worst, err / (100 * atof(tols[i])));
                }
            }
            CHECK(r.rc == 0 && worst <= 2.0);
            printf("  %-26s %-15s tolerance %s, abs_tolerance %s, t <= 10 s: %s, worst error %.3f of 100 x tol x L (bound 2), "
                   "%ld steps\n", name, t_integ_name(1), tols[i], atols[j],
                   r.rc ? (r.err.n ? r.err.e[r.err.n - 1].message : "failed") : "ran", worst, r.met.steps);
            t_run_free(&r);
        }
}

/* ---- the flyball without a reference file: its runs against each other ----------- */

/* Largest |a - b| / bound over every channel and sample of two runs on the same
 * grid, bound = rel * (largest |value| of the channel in `ref`) + 1e-9 (the
 * absolute floor keeps rounding-level channels, such as the constraint
 * violation at 1e-14 .. 4e-12, from asking for zero).  Names the worst
 * channel. */
static double s_pair_ratio(const t_run *ref, const t_run *b, double rel, char *worst_ch, size_t len)
{
    if (ref->res.nsample != b->res.nsample || ref->res.nsample == 0) {
        snprintf(worst_ch, len, "(sample grids differ: %d vs %d)", ref->res.nsample, b->res.nsample);
        return INFINITY;
    }
    int w = 1 + ref->res.nchannel;
    double worst = 0;
    snprintf(worst_ch, len, "-");
    for (int c = 1; c < w; c++) {
        double scale = 0;
        for (int i = 0; i < ref->res.nsample; i++) scale = fmax(scale, fabs(ref->res.rows[(size_t)i * w + c]));
        double bound = rel * scale + 1e-9;
        const char *nm = ref->spec->channels[c - 1].name;
        double d = t_maxdiff(ref, b, nm) / bound;
        if (!(d <= worst)) {
            worst = d;
            snprintf(worst_ch, len, "%s (%.3g vs bound %.3g)", nm, d * bound, bound);
        }
    }
    return worst;
}

/* Without tests/reference/iftomm_a05_flyball.json: per seed, bdf and dopri5
 * both at tolerance (and abs_tolerance) 1e-10 must agree on every output
 * channel at every sample within 1e-4 of the channel's largest magnitude.
 * Why 1e-4: the channel that limits the agreement is the spring force
 * F = k e + c e' (k = 8e5 N/m, c = 4e4 N s/m), which turns a 1e-8 m/s
 * velocity difference (what the proportionality contract of the issue,
 * 100 x tol x L per unit time, allows at 1e-10) into 4e-4 N, 1e-5 of its
 * 44 N scale.  Measured on the unperturbed example: bdf at 1e-10 against bdf
 * at 1e-12 differs by 1.1e-5 of the scale on F (4.6e-8 on s, 2.6e-7 on the
 * ball's x), dopri5 at 1e-10 by 8e-7; bdf against dopri5 under a perturbation
 * 3.6e-6.  1e-4 leaves a margin of about 10 over the measured and stays 10
 * times inside the benchmark level (1e-3, the IFToMM 'high precision' limit
 * the other references use), the level at which a run that leaves the branch
 * or passes a configuration wrongly shows.  The trapezoidal AL with the
 * example's own settings is held to that benchmark level: 1e-3 of each
 * channel's scale against the seed's bdf run. */
static void s_check_flyball_pair(const char *name, int nseed)
{
    printf("  %-26s no tests/reference/%s.json yet: bdf and dopri5 at tolerance 1e-10 checked against each "
           "other (every channel and sample within 1e-4 of the channel's scale), trapezoidal_al against bdf "
           "(1e-3 of the scale)\n", name, name);
    static const char *const tight[] = {"solver.tolerance=1e-10", "solver.abs_tolerance=1e-10", NULL};
    for (int seed = 1; seed <= nseed; seed++) {
        t_run r[3];
        int ok[3];
        for (int k = 0; k < 3; k++) {
            ok[k] = 0;
            memset(&r[k], 0, sizeof r[k]);
            const char *why = t_excluded(name, t_integ_name(k));
            if (why) {
                if (seed == 1) printf("  %-26s %-15s NOT CHECKED: %s\n", name, t_integ_name(k), why);
                continue;
            }
            s_run(name, k, seed, 0, k ? tight : NULL, &r[k]);
            ok[k] = CHECK(r[k].rc == 0);
            if (!ok[k])
                printf("  %-26s %-15s seed %d  run failed: %s\n", name, t_integ_name(k), seed,
                       r[k].err.n ? r[k].err.e[r[k].err.n - 1].message : "(no message)");
        }
        char ch[256];
        if (ok[1] && ok[2]) {
            double q = s_pair_ratio(&r[1], &r[2], 1e-4, ch, sizeof ch);
            CHECK(q <= 1);
            printf("  %-26s %-15s seed %d  against dopri5: worst %.3f of bound, %s; %ld / %ld steps, %.3f / %.3f s%s\n",
                   name, "bdf", seed, q, ch, r[1].met.steps, r[2].met.steps, r[1].met.wall_seconds,
                   r[2].met.wall_seconds, q <= 1 ? "" : "  FAILED");
        }
        if (ok[0] && ok[1]) {
            double q = s_pair_ratio(&r[1], &r[0], 1e-3, ch, sizeof ch);
            CHECK(q <= 1);
            printf("  %-26s %-15s seed %d  against bdf: worst %.3f of bound, %s; %ld steps, %.3f s%s\n", name,
                   "trapezoidal_al", seed, q, ch, r[0].met.steps, r[0].met.wall_seconds, q <= 1 ? "" : "  FAILED");
        }
        for (int k = 0; k < 3; k++) t_run_free(&r[k]);
    }
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && !strcmp(argv[1], "--quick");
    const char *only = argc > 1 + quick ? argv[1 + quick] : NULL; /* one example (for a rerun) */
    int nseed = quick ? 1 : NSEED;
    setvbuf(stdout, NULL, _IOLBF, 0);
    s_print_linalg();
    printf("initial conditions perturbed by %g relative, seeds 1..%d\n", REL, nseed);
    for (size_t x = 0; x < sizeof EXAMPLES / sizeof EXAMPLES[0]; x++) {
        if (only && strcmp(only, EXAMPLES[x])) continue;
        char refpath[512];
        snprintf(refpath, sizeof refpath, "tests/reference/%s.json", EXAMPLES[x]);
        if (access(refpath, R_OK) != 0 && !strcmp(EXAMPLES[x], "iftomm_a05_flyball")) {
            s_check_flyball_pair(EXAMPLES[x], nseed);
            continue;
        }
        json_error_t je;
        json_t *refs = json_load_file(refpath, 0, &je);
        if (!CHECK(refs != NULL && json_is_array(refs))) {
            printf("  %-26s cannot read %s: %s\n", EXAMPLES[x], refpath, je.text);
            json_decref(refs);
            continue;
        }
        s_check_reference(EXAMPLES[x], refs, nseed);
        if (!strncmp(EXAMPLES[x], "iftomm_a02_four_bar_n", 21)) s_check_mixed_tolerances(EXAMPLES[x], refs);
        json_decref(refs);
    }
    if (s_nknown) printf("robustness_test: %d KNOWN FAILURE(S) of issue 9, listed above (not counted as passed)\n", s_nknown);
    return CHECK_SUMMARY("robustness_test");
}
