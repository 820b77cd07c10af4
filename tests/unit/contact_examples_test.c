/*
 * contact_examples_test.c - the contact examples of issue 3 (examples/ *.json
 * with contacts):
 *  - every one runs with contact deactivation on and off and gives the same
 *    output, channel by channel and sample by sample (data-driven: new
 *    examples with contacts are picked up by name; long ones get a short
 *    t_end in SHORT[] below);
 *  - cam and flat follower: the contact holds below the critical speed
 *    omega_c (minimum contact force as derived in the example) and a gap
 *    opens above it;
 *  - stick-slip on a belt: first stick phase, then harmonic oscillation about
 *    mu m g / k with amplitude v_b / omega and period 2 pi / omega;
 *  - block on an incline: creep of the regularised friction law when
 *    tan a <= mu, acceleration g (sin a - mu cos a) when tan a > mu;
 *  - the roller chain drive: the span tensions carry the tensioner force
 *    and the load torque.
 * Timings are printed, not checked (speed is for bench/contact_examples.sh).
 */
#include "check.h"
#include "testutil.h"

#include <dirent.h>

#define G 9.81

/* Examples whose full run is too long for a unit test, with the t_end used
 * here (the whole program must stay under ~30 s).  Others run to
 * min(t_end, DEFAULT_T_END). */
static const struct {
    const char *name;
    const char *t_end;
} SHORT[] = {
    {"roller_chain_drive", "0.004"}, /* 4 ms: the load ramp, ~3 s without deactivation */
    {"balls_in_box", "0.12"},        /* the balls land at 0.1 s */
    {"bouncing_ball", "1.0"},        /* two bounces */
    {"stick_slip_belt", "1.0"},      /* stick, then more than one slip cycle */
    {"stick_slip_belt_rigid", "1.0"}, /* the same with the rigid law */
    {"cam_follower", "0.1"},         /* one and a half turns */
};
#define DEFAULT_T_END 0.3

/* Number of a row's value: column c (1-based channel) of sample i. */
static double s_val(const t_run *r, int i, int c)
{
    return r->res.rows[(size_t)i * (size_t)(1 + r->res.nchannel) + (size_t)c];
}

/* The t_end override for an example (text in buf), from SHORT[] or the
 * default, never below the output interval (an error) nor above t_end. */
static void s_short_t_end(const char *name, const mbs_spec *sp, char *buf, size_t n)
{
    for (size_t i = 0; i < sizeof SHORT / sizeof SHORT[0]; i++)
        if (!strcmp(SHORT[i].name, name)) { snprintf(buf, n, "solver.t_end=%s", SHORT[i].t_end); return; }
    double t = fmin(sp->solver.t_end, DEFAULT_T_END);
    snprintf(buf, n, "solver.t_end=%.9g", fmax(t, sp->out_interval));
}

/* One example: deactivation on and off give the same outputs. */
static void s_on_off(const char *path, const char *name, const mbs_spec *sp)
{
    char tset[64];
    s_short_t_end(name, sp, tset, sizeof tset);
    const char *on[] = {tset, "solver.contact_deactivation=true", NULL};
    const char *off[] = {tset, "solver.contact_deactivation=false", NULL};
    t_run a, b;
    t_run_file(path, on, &a);
    t_run_file(path, off, &b);
    printf("  %s (%s, %d pairs): on %.2f s, off %.2f s, active pairs %.1f / %.1f\n", name, tset + 7, sp->ncontact,
           a.met.wall_seconds, b.met.wall_seconds, a.met.mean_active_contacts, b.met.mean_active_contacts);
    CHECK(a.rc == 0 && b.rc == 0);
    CHECK(a.res.nsample == b.res.nsample && a.res.nsample > 1);
    if (a.rc || b.rc || a.res.nsample != b.res.nsample) { t_run_free(&a); t_run_free(&b); return; }
    /* Inactive pairs (bounding boxes apart by more than the margin plus
     * twice the distance the fastest point moves in a step) carry no force
     * and no Jacobian entries, and the active pairs are evaluated in the same
     * order either way, so both runs take the same steps with the same
     * arithmetic: equal up to rounding (measured: bit for bit).  1e-6 of the
     * channel's largest magnitude is the agreement issue 3 asks of the chain
     * drive; it is used for every example. */
    for (int c = 1; c <= a.res.nchannel; c++) {
        double diff = 0, scale = 0;
        for (int i = 0; i < a.res.nsample; i++) {
            double x = s_val(&a, i, c), y = s_val(&b, i, c);
            if (!(fabs(x - y) <= diff)) diff = fabs(x - y);
            scale = fmax(scale, fabs(x));
        }
        printf("    %-12s largest difference %.3g (of %.3g)\n", sp->channels[c - 1].name, diff, scale);
        CHECK(diff <= 1e-6 * scale + 1e-12);
    }
    /* compliant laws: with deactivation, fewer pairs in the system; without,
     * all of them (the rigid methods report their own sizes: LCP metrics) */
    if (a.met.contact_method && !strcmp(a.met.contact_method, "compliant")) {
        CHECK(a.met.mean_active_contacts <= b.met.mean_active_contacts);
        CHECK(b.met.max_active_contacts == sp->ncontact);
    }
    t_run_free(&a);
    t_run_free(&b);
}

/* The 100-ball box without friction (one unknown a point, so that a step
 * with deactivation may have few enough for Lemke) to 0.1 s: deactivation
 * on and off give the same outputs, as for the examples.  With Lemke taken
 * for small systems whatever lcp_regularization said, the balls rebounding
 * from a wall at t = 0.008 s met the unregularised Newton law with
 * deactivation and the regularised one without: energy 2.9e-5 of its size
 * apart. */
static void test_frictionless_box_on_off(void)
{
    char *text = t_slurp("examples/balls_in_box_100.json", NULL);
    char a1[1 << 18], a2[1 << 18];
    int ok = text && t_splice(text, "\"friction\": 0.3", "\"friction\": 0", a1, sizeof a1) == 0 &&
             t_splice(a1, "\"friction\": 0.3", "\"friction\": 0", a2, sizeof a2) == 0;
    free(text);
    if (!CHECK(ok)) return;
    const char *on[] = {"solver.t_end=0.1", "solver.contact_deactivation=true", NULL};
    const char *off[] = {"solver.t_end=0.1", "solver.contact_deactivation=false", NULL};
    t_run a, b;
    t_run_text(a2, on, &a);
    t_run_text(a2, off, &b);
    CHECK(a.rc == 0 && b.rc == 0 && a.res.nsample == b.res.nsample && a.res.nsample > 1);
    for (int c = 1; c <= a.res.nchannel && a.rc == 0 && b.rc == 0 && a.res.nsample == b.res.nsample; c++) {
        double diff = 0, scale = 0;
        for (int i = 0; i < a.res.nsample; i++) {
            double x = s_val(&a, i, c), y = s_val(&b, i, c);
            if (!(fabs(x - y) <= diff)) diff = fabs(x - y);
            scale = fmax(scale, fabs(x));
        }
        printf("  frictionless 100-ball box, on/off: %-10s largest difference %.3g (of %.3g)\n",
               a.spec->channels[c - 1].name, diff, scale);
        CHECK(diff <= 1e-6 * scale + 1e-12);
    }
    t_run_free(&a);
    t_run_free(&b);
}

static int s_cmp_name(const void *a, const void *b)
{
    return strcmp(a, b);
}

/* Every examples/ *.json that declares contacts; returns how many. */
static int test_deactivation_on_off(void)
{
    DIR *dir = opendir("examples");
    CHECK(dir != NULL);
    if (!dir) return 0;
    char names[64][128];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir)) && n < 64) {
        size_t len = strlen(e->d_name);
        if (len > 5 && len < 128 && !strcmp(e->d_name + len - 5, ".json")) snprintf(names[n++], 128, "%s", e->d_name);
    }
    closedir(dir);
    qsort(names, (size_t)n, sizeof names[0], s_cmp_name);
    int found = 0;
    for (int i = 0; i < n; i++) {
        char path[512], name[128];
        snprintf(path, sizeof path, "examples/%.127s", names[i]);
        snprintf(name, sizeof name, "%.*s", (int)strlen(names[i]) - 5, names[i]);
        size_t len;
        char *text = t_slurp(path, &len);
        mbs_errlist err = {0};
        mbs_spec *sp = text ? mech_parse(text, len, NULL, 0, &err) : NULL;
        free(text);
        CHECK(sp != NULL); /* every example parses */
        if (!sp) printf("  %s: %s %s\n", path, err.n ? err.e[0].pointer : "", err.n ? err.e[0].message : "");
        if (sp && sp->ncontact > 0) {
            found++;
            s_on_off(path, name, sp);
        }
        mbs_spec_free(&sp);
    }
    return found;
}

/* Smallest and largest contact force and gap of a cam-follower run after
 * t0 (N = m a - T_spring + m g, gap = face - top of the cam). */
static void s_cam_extremes(const t_run *r, double t0, double *nmin, double *nmax, double *gmax)
{
    const double m = 0.5, Rc = 0.04;
    int cy = t_col(r, "y"), ca = t_col(r, "a"), cc = t_col(r, "y_cam"), cf = t_col(r, "F_spring");
    *nmin = INFINITY, *nmax = -INFINITY, *gmax = -INFINITY;
    for (int i = 0; i < r->res.nsample; i++) {
        if (s_val(r, i, 0) < t0) continue;
        double N = m * s_val(r, i, ca) - s_val(r, i, cf) + m * G;
        double gap = s_val(r, i, cy) - (s_val(r, i, cc) + Rc);
        *nmin = fmin(*nmin, N);
        *nmax = fmax(*nmax, N);
        *gmax = fmax(*gmax, gap);
    }
}

/* Cam and flat follower at 0.9 and 1.1 times the critical speed. */
static void test_cam_follower(void)
{
    const double m = 0.5, k = 2000, e = 0.01, d0 = 0.01;
    const double wc = sqrt((k * (2 * e + d0) + m * G) / (m * e));
    const char *below[] = {"omega==0.9*$omega_c", "solver.t_end=0.2", NULL};
    const char *above[] = {"omega==1.1*$omega_c", "solver.t_end=0.2", NULL};
    t_run r;
    double nmin, nmax, gmax;
    t_run_file("examples/cam_follower.json", below, &r);
    CHECK(r.rc == 0);
    /* after the first 20 ms (the contact settles from zero penetration) */
    s_cam_extremes(&r, 0.02, &nmin, &nmax, &gmax);
    double w = 0.9 * wc, pmin = 2 * k * e + k * d0 + m * G - m * e * w * w, pmax = m * e * w * w + k * d0 + m * G;
    printf("  cam 0.9 omega_c = %.2f rad/s: contact force %.3f..%.3f N (exact %.3f..%.3f), largest gap %.3g m\n", w,
           nmin, nmax, pmin, pmax, gmax);
    /* the compliance (penetration N / K <= 8 um) changes the lift and hence
     * the spring and inertia forces by < 0.05 N; 0.2 N leaves room for the
     * contact's own vibration (HC damped) */
    CHECK(nmin > 0);
    CHECK_NEAR(nmin, pmin, 0.2);
    CHECK_NEAR(nmax, pmax, 0.2);
    CHECK(gmax <= 0); /* never apart */
    t_run_free(&r);

    t_run_file("examples/cam_follower.json", above, &r);
    CHECK(r.rc == 0);
    s_cam_extremes(&r, 0.02, &nmin, &nmax, &gmax);
    printf("  cam 1.1 omega_c: largest gap %.3g m (the follower flies), smallest force %.3f N\n", gmax, nmin);
    /* the rigid prediction is N < 0 at the top: the follower leaves the cam
     * and lands again; a gap of at least 0.1 mm (0.01 e) must open */
    CHECK(gmax > 1e-4);
    t_run_free(&r);
}

/* Stick-slip block on a belt. */
static void test_stick_slip(void)
{
    const double m = 1, k = 100, mu = 0.3, vb = 0.1, w = sqrt(k / m);
    const double xeq = mu * m * G / k, amp = vb / w, period = 2 * M_PI / w, t1 = xeq / vb;
    t_run r;
    t_run_file("examples/stick_slip_belt.json", NULL, &r);
    CHECK(r.rc == 0);
    int cx = t_col(&r, "x"), cv = t_col(&r, "vx");
    /* first stick phase: moves with the belt until x = xeq; the regularised
     * law creeps at vs q / sqrt(1 - q^2) at the force ratio q = k x / (mu m g)
     * (2e-4 m/s at q = 0.9, 2e-5 m in all by then) */
    CHECK_NEAR(t_at(&r, "x", 0.9 * t1), 0.9 * t1 * vb, 1e-4);
    CHECK_NEAR(t_at(&r, "vx", 0.9 * t1), vb, 1e-3);
    /* then harmonic: extremes after the first slip starts and the times of
     * the maxima (vx falling through 0) */
    double xmin = INFINITY, xmax = -INFINITY, tmax[16];
    int nmax = 0;
    for (int i = 1; i < r.res.nsample; i++) {
        double t = s_val(&r, i, 0);
        if (t < t1 + 0.05) continue;
        xmin = fmin(xmin, s_val(&r, i, cx));
        xmax = fmax(xmax, s_val(&r, i, cx));
        double v0 = s_val(&r, i - 1, cv), v1 = s_val(&r, i, cv);
        if (v0 > 0 && v1 <= 0 && nmax < 16) tmax[nmax++] = s_val(&r, i - 1, 0) + (s_val(&r, i, 0) - s_val(&r, i - 1, 0)) * v0 / (v0 - v1);
    }
    double per = nmax > 1 ? (tmax[nmax - 1] - tmax[0]) / (nmax - 1) : 0;
    printf("  stick-slip: x in [%.5f, %.5f] (exact [%.5f, %.5f]), period %.4f s (exact %.4f) over %d maxima\n", xmin,
           xmax, xeq - amp, xeq + amp, per, period, nmax);
    /* the regularisation weakens friction near zero slip at the end of each
     * cycle (|v_rel| ~ vs = 1e-4 m/s of v_b = 0.1): 3 % of the amplitude, 1 %
     * of the period */
    CHECK_NEAR(xmax, xeq + amp, 0.03 * amp);
    CHECK_NEAR(xmin, xeq - amp, 0.03 * amp);
    CHECK(nmax >= 3);
    CHECK_NEAR(per, period, 0.01 * period);
    t_run_free(&r);
}

/* Displacement down the slope between two times. */
static double s_down(const t_run *r, double a, double ta, double tb)
{
    return -((t_at(r, "x", tb) - t_at(r, "x", ta)) * cos(a) + (t_at(r, "y", tb) - t_at(r, "y", ta)) * sin(a));
}

/* Blocks on a 30-degree incline: sticking (mu 0.7) and sliding (mu 0.3). */
static void test_incline(void)
{
    const double a = M_PI / 6, vs = 1e-4;
    t_run r;
    t_run_file("examples/block_on_incline_stick.json", NULL, &r);
    CHECK(r.rc == 0);
    /* regularised Coulomb F = mu N v / sqrt(v^2 + vs^2): holding the block
     * needs F / (mu N) = tan a / mu = q, reached at the creep speed
     * vs q / sqrt(1 - q^2) (1.46e-4 m/s); 2 % for the settling */
    double q = tan(a) / 0.7, creep = vs * q / sqrt(1 - q * q), s = s_down(&r, a, 0.5, 1.0);
    printf("  incline stick: creep %.4g m/s (regularised law: %.4g m/s), moved %.3g m in 1 s\n", s / 0.5, creep,
           s_down(&r, a, 0, 1.0));
    CHECK_NEAR(s / 0.5, creep, 0.02 * creep);
    CHECK(fabs(s_down(&r, a, 0, 1.0)) < 1e-3);
    t_run_free(&r);

    t_run_file("examples/block_on_incline_slide.json", NULL, &r);
    CHECK(r.rc == 0);
    double acc = G * (sin(a) - 0.3 * cos(a)), s1 = s_down(&r, a, 0, 1.0);
    printf("  incline slide: %.5f m in 1 s (exact %.5f m)\n", s1, 0.5 * acc);
    /* 0.5 %: the compliant contact settles (penetration ~ 1 um) in the first
     * milliseconds, the rest is exact for a block that does not tip */
    CHECK_NEAR(s1, 0.5 * acc, 0.005 * 0.5 * acc);
    /* the energy lost is the friction work mu m g cos a * s (1 %) */
    double W = 0.3 * G * cos(a) * s1, dE = t_at(&r, "E", 0) - t_at(&r, "E", 1.0);
    CHECK_NEAR(dE, W, 0.01 * W);
    t_run_free(&r);
}

/* Chain drive: after the load ramp, the mean span tensions are
 * (F_tension +- T_load / R) / 2: tight 112 N, slack 38 N. */
static void test_chain_tensions(void)
{
    const char *sets[] = {"solver.t_end=0.03", NULL};
    t_run r;
    t_run_file("examples/roller_chain_drive.json", sets, &r);
    CHECK(r.rc == 0);
    double R = 0.0127 / (2 * sin(M_PI / 20)), dT = 3.0 / R;
    int ct = t_col(&r, "F_top"), cb = t_col(&r, "F_bottom"), co = t_col(&r, "omega2");
    double st = 0, sb = 0, so = 0;
    int n = 0;
    for (int i = 0; i < r.res.nsample; i++) {
        if (s_val(&r, i, 0) < 0.015) continue;
        st += s_val(&r, i, ct), sb += s_val(&r, i, cb), so += s_val(&r, i, co), n++;
    }
    st /= n, sb /= n, so /= n;
    printf("  chain: mean span forces %.1f / %.1f N (statics %.1f / %.1f), driven speed %.3f rad/s (driver %.3f)\n",
           st, sb, 75 + dT / 2, 75 - dT / 2, so, 10 * M_PI);
    /* chordal action makes the spans vibrate and the span weight (3 N) adds
     * to the joint force: 10 % of the tight-span force */
    CHECK_NEAR(st, 75 + dT / 2, 11);
    CHECK_NEAR(sb, 75 - dT / 2, 11);
    /* equal sprockets: the mean speeds agree within the chordal speed
     * variation (1 - cos(pi / z) = 1.2 %) */
    CHECK_NEAR(so, 10 * M_PI, 0.012 * 10 * M_PI);
    t_run_free(&r);
}

/* The contact_force channels of the examples against the balance of the
 * body they act on and the contact law. */
static void test_contact_force_channels(void)
{
    t_run r;
    /* cam: the follower's balance m a = N - T_spring - m g holds at every
     * sample; the channel evaluates the law at the sampled state, the
     * acceleration is interpolated: 1e-5 N (measured 3e-7 N compliant,
     * 1.4e-6 N event-driven) */
    const char *cams[] = {"examples/cam_follower.json", "examples/cam_follower_rigid.json"};
    for (int k = 0; k < 2; k++) {
        const char *sets[] = {"solver.t_end=0.1", NULL};
        t_run_file(cams[k], sets, &r);
        CHECK(r.rc == 0);
        int cn = t_col(&r, "N"), ca = t_col(&r, "a"), cf = t_col(&r, "F_spring");
        double worst = 0;
        for (int i = 0; i < r.res.nsample; i++) {
            if (s_val(&r, i, 0) < 0.02) continue;
            double bal = 0.5 * s_val(&r, i, ca) - s_val(&r, i, cf) + 0.5 * G;
            worst = fmax(worst, fabs(s_val(&r, i, cn) - bal));
        }
        printf("  %s: contact_force channel against the follower's balance: %.3g N\n", cams[k], worst);
        CHECK(worst < 1e-5);
        t_run_free(&r);
    }
    /* belt: sliding, the friction force is mu N v / sqrt(v^2 + vs^2) of the
     * relative velocity (regularised law, to round-off) and exactly mu N with
     * the rigid law; sticking (first 0.25 s) it equals the spring force */
    const char *belts[] = {"examples/stick_slip_belt.json", "examples/stick_slip_belt_rigid.json"};
    for (int k = 0; k < 2; k++) {
        t_run_file(belts[k], NULL, &r);
        CHECK(r.rc == 0);
        int cv = t_col(&r, "vx"), cF = t_col(&r, "F_belt"), cN = t_col(&r, "N"), cs = t_col(&r, "F_spring");
        double worst = 0, wstick = 0;
        int nslip = 0;
        for (int i = 1; i < r.res.nsample; i++) {
            double vrel = s_val(&r, i, cv) - 0.1, N = s_val(&r, i, cN), F = s_val(&r, i, cF);
            if (s_val(&r, i, 0) < 0.25) wstick = fmax(wstick, fabs(F - fabs(s_val(&r, i, cs))));
            if (fabs(vrel) < 1e-2) continue;
            double law = k == 0 ? 0.3 * N * fabs(vrel) / sqrt(vrel * vrel + 1e-8) : 0.3 * N;
            /* friction drags the block towards the belt's velocity */
            worst = fmax(worst, fabs(F - (vrel < 0 ? law : -law)));
            nslip++;
            CHECK_NEAR(N, G, 1e-3);
        }
        printf("  %s: friction channel against the law over %d sliding samples: %.3g N, stick %.3g N\n", belts[k],
               nslip, worst, wstick);
        CHECK(nslip > 50);
        CHECK(worst < 1e-6);
        /* sticking, F_belt - F_spring = m a: the regularised block creeps
         * and accelerates slightly (2e-3 N measured); 1e-2 N = 0.3 % of mu m g */
        CHECK(wstick < 1e-2);
        t_run_free(&r);
    }
    /* incline (1 kg, 30 deg): sliding, normal m g cos a and friction 0.3 N up
     * the slope; sticking, the slope carries the weight (after 0.1 s: the
     * compliant contact settles) */
    const double a = M_PI / 6, N = G * cos(a);
    t_run_file("examples/block_on_incline_slide.json", NULL, &r);
    CHECK(r.rc == 0);
    CHECK_NEAR(t_at(&r, "N", 0.5), N, 1e-4 * N);
    /* resultant = N n + 0.3 N t, n = (-sin a, cos a), t = (cos a, sin a) up */
    CHECK_NEAR(t_at(&r, "Fx_slope", 0.5), -N * sin(a) + 0.3 * N * cos(a), 1e-4 * N);
    CHECK_NEAR(t_at(&r, "Fy_slope", 0.5), N * cos(a) + 0.3 * N * sin(a), 1e-4 * N);
    t_run_free(&r);
    t_run_file("examples/block_on_incline_stick.json", NULL, &r);
    CHECK(r.rc == 0);
    CHECK_NEAR(t_at(&r, "Fx_slope", 1.0), 0.0, 1e-4 * G);
    CHECK_NEAR(t_at(&r, "Fy_slope", 1.0), G, 1e-4 * G);
    t_run_free(&r);
}

int main(void)
{
    int n = test_deactivation_on_off();
    CHECK(n >= 6); /* bouncing ball, balls in a box and the examples below */
    test_frictionless_box_on_off();
    test_cam_follower();
    test_stick_slip();
    test_incline();
    test_chain_tensions();
    test_contact_force_channels();
    return CHECK_SUMMARY("contact_examples_test");
}
