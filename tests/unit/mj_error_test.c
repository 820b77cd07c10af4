/*
 * mj_error_test.c - Moreau-Jean's error estimate (integrate/mj_error.c)
 * against real errors.
 *
 *  - smooth runs (pendulum, four-bar and double pendulum with moreau_jean,
 *    no contacts): the estimate is a number (the code before mj_error.c
 *    reported NaN and the warning "has no error estimate"), it falls like
 *    the scheme's local error, h^3 (a factor 6 .. 10 per halving of the
 *    step), and it bounds the error of the first three steps against a
 *    BDF run at tolerance 1e-12: (error of 3 steps) / 3 <= 2 x estimate x
 *    abs_tolerance (measured 0.08, 0.92 .. 1.45 and 0.0014 x);
 *  - tolerance_met: the four-bar to 1 s at tolerance 1e-6 with h = 2e-3 (its
 *    positions end 9 x tol L off the BDF reference) is flagged, with h =
 *    2.5e-4 (0.15 x tol L) it is not;
 *  - the rigid bouncing ball: flight under gravity is integrated exactly by
 *    the scheme (estimate below 1e-6), the steps around the impacts are
 *    counted in nonsmooth_steps (at least one per impact) and left out; the
 *    impacts' O(h) error of z (against a run at h / 8, Richardson) is
 *    bounded by nonsmooth_error_estimate x abs_tolerance within a factor 3
 *    (measured 3.3e-3 m and 4.0e-3 m at h = 1e-3);
 *  - the 100-ball box to 0.3 s (PGS): the estimate falls by more than 4
 *    per halving of the step (measured 2.5, 0.14, 0.023 at h = 2e-3, 1e-3,
 *    5e-4); with the velocities of the PGS-solved contact groups in it, it
 *    read 10, 46, 18 (the iterate's residual, not the step's error);
 *  - a run too short to form the estimate reports NaN and says why.
 */
#include "check.h"
#include "testutil.h"

/* Largest |a - b| of channels ch at time t of two runs. */
static double s_err_at(const t_run *a, const t_run *b, const char *const *ch, double t)
{
    double e = 0;
    for (int i = 0; ch[i]; i++) e = fmax(e, fabs(t_at(a, ch[i], t) - t_at(b, ch[i], t)));
    return e;
}

typedef struct {
    const char *name, *path;
    const char *ch[3]; /* position channels */
} s_case;

static const s_case CASES[] = {
    {"pendulum", "examples/pendulum.json", {"x", "y", NULL}},
    {"four_bar", "examples/four_bar.json", {"xB", "yB", NULL}},
    {"double_pendulum", "examples/double_pendulum.json", {"x_tip", "y_tip", NULL}},
};

/* Run `path` with moreau_jean at step h to t_end T (tolerance 1e-6). */
static int s_mj(const char *path, double h, double T, t_run *r)
{
    char hs[64], ts[64];
    snprintf(hs, sizeof hs, "solver.step=%.17g", h);
    snprintf(ts, sizeof ts, "solver.t_end=%.17g", T);
    const char *sets[] = {"solver.integrator=moreau_jean", "solver.tolerance=1e-6", hs, ts, NULL};
    return t_run_file(path, sets, r);
}

static int s_bdf(const char *path, double T, t_run *r)
{
    char ts[64];
    snprintf(ts, sizeof ts, "solver.t_end=%.17g", T);
    const char *sets[] = {"solver.integrator=bdf", "solver.tolerance=1e-12", ts, NULL};
    return t_run_file(path, sets, r);
}

/* The order of the estimate and its bound on the first steps' error. */
static void test_smooth(void)
{
    for (int c = 0; c < (int)(sizeof CASES / sizeof CASES[0]); c++) {
        const s_case *C = &CASES[c];
        /* h^3: three steps to 1 s */
        double est[3];
        for (int k = 0; k < 3; k++) {
            t_run r;
            CHECK(s_mj(C->path, 1e-3 / (1 << k), 1.0, &r) == 0 && r.rc == 0);
            est[k] = r.met.error_estimate;
            CHECK(isfinite(est[k]) && est[k] > 0);
            CHECK(r.met.nonsmooth_steps == 0);
            t_run_free(&r);
        }
        printf("  %-16s estimate at h = 1e-3, 5e-4, 2.5e-4: %.3g %.3g %.3g (ratios %.2f %.2f)\n", C->name, est[0],
               est[1], est[2], est[0] / est[1], est[1] / est[2]);
        for (int k = 0; k < 2; k++) CHECK(est[k] / est[k + 1] > 6 && est[k] / est[k + 1] < 10);
        /* the first three steps' error: one estimate (step 3) */
        for (int k = 0; k < 2; k++) {
            double h = 1e-2 / (1 << k), T = 3 * h;
            t_run r, ref;
            CHECK(s_mj(C->path, h, T, &r) == 0 && r.rc == 0);
            CHECK(s_bdf(C->path, T, &ref) == 0 && ref.rc == 0);
            double e = s_err_at(&r, &ref, C->ch, T) / 3, b = r.met.error_estimate * r.met.abs_tolerance;
            printf("  %-16s h = %g: error of 3 steps / 3 = %.3g, estimate x abs_tolerance = %.3g (ratio %.3g)\n",
                   C->name, h, e, b, e / b);
            CHECK(isfinite(b) && e <= 2 * b);
            t_run_free(&r);
            t_run_free(&ref);
        }
    }
}

/* tolerance_met: false when the step is too large for the tolerance. */
static void test_flag(void)
{
    const char *ch[] = {"xB", "yB", NULL};
    t_run ref;
    CHECK(s_bdf("examples/four_bar.json", 1.0, &ref) == 0 && ref.rc == 0);
    double hs[2] = {2e-3, 2.5e-4};
    for (int k = 0; k < 2; k++) {
        t_run r;
        CHECK(s_mj("examples/four_bar.json", hs[k], 1.0, &r) == 0 && r.rc == 0);
        double e = t_maxdiff(&r, &ref, ch[0]);
        e = fmax(e, t_maxdiff(&r, &ref, ch[1]));
        printf("  four_bar h = %g: estimate %.3g, tolerance_met %d, position error %.3g x abs_tolerance\n", hs[k],
               r.met.error_estimate, r.met.tolerance_met, e / r.met.abs_tolerance);
        if (k == 0) {
            CHECK(!r.met.tolerance_met && r.met.error_estimate > 2 && e > 5 * r.met.abs_tolerance);
            CHECK(r.met.nwarning >= 1 && strstr(r.met.warning[0], "estimated local error") != NULL);
        } else {
            CHECK(r.met.tolerance_met && r.met.error_estimate < 1 && e < r.met.abs_tolerance);
            CHECK(r.met.nwarning == 0);
        }
        t_run_free(&r);
    }
    t_run_free(&ref);
}

/* Impacts: counted apart; flight is exact for the scheme. */
static void test_bouncing(void)
{
    t_run r;
    const char *sets[] = {NULL};
    CHECK(t_run_file("examples/bouncing_ball_rigid.json", sets, &r) == 0 && r.rc == 0);
    printf("  bouncing_ball_rigid: estimate %.3g, %ld nonsmooth steps of %ld, %ld impacts, tolerance_met %d\n",
           r.met.error_estimate, r.met.nonsmooth_steps, r.met.steps, r.met.impacts, r.met.tolerance_met);
    CHECK(isfinite(r.met.error_estimate) && r.met.error_estimate < 1e-6);
    CHECK(r.met.impacts > 0 && r.met.nonsmooth_steps >= r.met.impacts && r.met.nonsmooth_steps < r.met.steps / 10);
    CHECK(r.met.tolerance_met && r.met.nwarning == 0);
    /* the impacts' error, O(h): z against a run at h / 8 (Richardson: the
     * error of the h run is 8/7 of the difference), bounded by
     * nonsmooth_error_estimate (h/2 |velocity jump|) within a factor 3 */
    const char *fine_sets[] = {"solver.step=1.25e-4", NULL};
    t_run f;
    CHECK(t_run_file("examples/bouncing_ball_rigid.json", fine_sets, &f) == 0 && f.rc == 0);
    double err = t_maxdiff(&r, &f, "z") * 8 / 7, bound = r.met.nonsmooth_error_estimate * r.met.abs_tolerance;
    printf("  bouncing_ball_rigid: z error of the h = 1e-3 run %.3g m, nonsmooth_error_estimate %.4g x abs_tolerance "
           "= %.3g m (ratio %.2f); at h / 8: %.4g\n", err, r.met.nonsmooth_error_estimate, bound, bound / err,
           f.met.nonsmooth_error_estimate);
    CHECK(err <= bound && bound <= 3 * err);
    CHECK(f.met.nonsmooth_error_estimate < r.met.nonsmooth_error_estimate / 6);
    t_run_free(&f);
    t_run_free(&r);
}

/* The 100-ball box: the estimate converges with the step. */
static void test_box(void)
{
    double est[3];
    for (int k = 0; k < 3; k++) {
        char hs[64];
        snprintf(hs, sizeof hs, "solver.step=%.17g", 2e-3 / (1 << k));
        const char *sets[] = {"solver.t_end=0.3", hs, NULL};
        t_run r;
        CHECK(t_run_file("examples/balls_in_box_100.json", sets, &r) == 0 && r.rc == 0);
        est[k] = r.met.error_estimate;
        CHECK(isfinite(est[k]) && r.met.nonsmooth_steps > 0);
        t_run_free(&r);
    }
    printf("  balls_in_box_100 to 0.3 s, h = 2e-3, 1e-3, 5e-4: estimate %.3g %.3g %.3g\n", est[0], est[1], est[2]);
    CHECK(est[0] > 4 * est[1] && est[1] > 4 * est[2]);
}

/* Two steps: no estimate, and the warning says why. */
static void test_too_short(void)
{
    t_run r;
    const char *sets[] = {"solver.integrator=moreau_jean", "solver.step=0.01", "solver.t_end=0.02", NULL};
    CHECK(t_run_file("examples/pendulum.json", sets, &r) == 0 && r.rc == 0);
    CHECK(isnan(r.met.error_estimate) && !r.met.tolerance_met);
    CHECK(r.met.nwarning == 1 && strstr(r.met.warning[0], "needs 3") != NULL);
    if (r.met.nwarning) printf("  two steps: %s\n", r.met.warning[0]);
    t_run_free(&r);
}

int main(void)
{
    test_smooth();
    test_flag();
    test_bouncing();
    test_box();
    test_too_short();
    return CHECK_SUMMARY("mj_error_test");
}
