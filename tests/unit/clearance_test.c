/*
 * clearance_test.c - the prismatic joint with clearance: the seed 003
 * friction model with the event-driven integrator (integrator_ed.c,
 * joint_friction.c) against analytic solutions, its complementarity and
 * Baumgarte checks, and the impact model's expansion into contacts
 * (mechanism_clearance.c).
 */
#include "check.h"
#include "testutil.h"

#include <math.h>
#include <string.h>

static const double G = 9.81;

/* Remove the first occurrence of `what` from text (in place); 0 if absent. */
static int s_cut(char *text, const char *what)
{
    char *p = strstr(text, what);
    if (!p) return 0;
    size_t n = strlen(what);
    memmove(p, p + n, strlen(p + n) + 1);
    return 1;
}

/* Largest value of a channel over samples with t in [t0, t1]. */
static double s_max_in(const t_run *r, const char *name, double t0, double t1)
{
    int c = t_col(r, name), w = 1 + r->res.nchannel;
    double mx = 0;
    for (int i = 0; c > 0 && i < r->res.nsample; i++) {
        double t = r->res.rows[(size_t)i * w], v = fabs(r->res.rows[(size_t)i * w + c]);
        if (t >= t0 - 1e-12 && t <= t1 + 1e-12 && v > mx) mx = v;
    }
    return mx;
}

/* ---- stick-slip oscillator in a guide ----------------------------------------------- */

/* examples/stick_slip_guide.json: m = 1, k = 100, mu = 0.1, x0 = 0.1.
 * Slip half-cycle n (t in [t_{n-1}, t_n], t_n = n pi / w) runs about the
 * centre c_n = +-Delta (friction opposes the motion):
 *   x = c_n + (x_{n-1} - c_n) cos(w (t - t_{n-1})),  x_n = 2 c_n - x_{n-1},
 * until the first reversal with |x_n| <= Delta; then x stays at x_n. */
static double s_stick_slip_x(double t, double *v_out)
{
    const double m = 1, k = 100, mu = 0.1, x0 = 0.1, w = sqrt(k / m), D = mu * m * G / k;
    double x = x0, tn = 0;
    for (int n = 1; n < 100; n++) {
        if (fabs(x) <= D) break;             /* stuck for good */
        double c = x > 0 ? D : -D;           /* moving towards -sign(x) */
        double te = tn + M_PI / w;
        if (t <= te) {
            if (v_out) *v_out = -(x - c) * w * sin(w * (t - tn));
            return c + (x - c) * cos(w * (t - tn));
        }
        x = 2 * c - x;
        tn = te;
    }
    if (v_out) *v_out = 0;
    return x;
}

static void test_stick_slip(void)
{
    t_run r;
    t_run_file("examples/stick_slip_guide.json", NULL, &r);
    CHECK(r.rc == 0);
    /* DOPRI5 at tolerance 1e-10 (abs 1e-12) with the events located to
     * 1e-12 s: the phases are smooth between events, so the sampled
     * position follows the piecewise-harmonic solution to ~1e-9 m; 1e-7 m
     * (1e-6 of the amplitude) leaves a margin for the interpolation of the
     * samples (quintic Hermite) */
    int w = 1 + r.res.nchannel, cx = t_col(&r, "x"), cv = t_col(&r, "v");
    double ex = 0, ev = 0;
    for (int i = 0; i < r.res.nsample; i++) {
        const double *row = r.res.rows + (size_t)i * w;
        double v, x = s_stick_slip_x(row[0], &v) - 0.1; /* joint coordinate: from x0 */
        ex = fmax(ex, fabs(row[cx] - x));
        ev = fmax(ev, fabs(row[cv] - v));
    }
    printf("  stick-slip: max |x - exact| = %.3g m, |v - exact| = %.3g m/s, events %ld, LCPs %ld\n", ex, ev,
           r.met.events, r.met.lcp_solves);
    CHECK(ex < 1e-7);
    CHECK(ev < 1e-6);
    /* five reversals (slip events), the last one sticking; one LCP each
     * plus the one at t = 0 (at rest: stick or slip?) */
    CHECK(r.met.events == 5);
    CHECK(r.met.lcp_solves == 6);
    CHECK(r.met.lcp_failures == 0);
    CHECK_STR(r.met.contact_method, "event_driven_lemke");
    /* final position -1.9 mm, held by static friction = spring force */
    double xf = t_at(&r, "x", 2.5) + 0.1;
    CHECK_NEAR(xf, -(0.1 - 10 * 0.1 * G / 100), 1e-7);
    CHECK_NEAR(t_at(&r, "F_friction", 2.5), t_at(&r, "F_spring", 2.5), 1e-7);
    /* sliding friction mu m g against the motion at t = 0.5 (v > 0); the
     * normal forces carry the weight, m g / 2 each, shifted by the moment
     * of the friction acting on the lower wall (w/2 = 0.025 m below the
     * axis; the spring acts on the axis): N_1 + N_2 = m g and
     * (L/2) (N_2 - N_1) + (w/2) F = 0, so N_2 - N_1 = -F w / L
     * (= mu m g w / L = 0.49 N while sliding forward) */
    const double w_L = 0.05 / 0.1;
    CHECK_NEAR(t_at(&r, "F_friction", 0.5), -0.1 * G, 1e-9);
    CHECK_NEAR(t_at(&r, "N1", 0.5), 0.5 * G * (1 - 0.1 * w_L), 1e-9);
    CHECK_NEAR(t_at(&r, "N2", 0.5), 0.5 * G * (1 + 0.1 * w_L), 1e-9);
    /* at every sample, slipping or sticking: exact while slipping (the
     * friction force is mu (N_1 + N_2)); sticking, the stick constraint's
     * Baumgarte term at the interpolated sample states leaves ~1e-9 N */
    double em = 0;
    for (int i = 0; i < r.res.nsample; i++) {
        const double *row = r.res.rows + (size_t)i * w;
        double N1 = row[t_col(&r, "N1")], N2 = row[t_col(&r, "N2")], F = row[t_col(&r, "F_friction")];
        em = fmax(em, fabs(N1 + N2 - G) + fabs(N2 - N1 + F * w_L));
    }
    printf("  stick-slip: friction moment: max |N_2 - N_1 + F w/L| + |N_1 + N_2 - m g| = %.3g N\n", em);
    CHECK(em < 1e-8);
    CHECK(r.met.max_complementarity_error < 1e-8);
    t_run_free(&r);
}

/* ---- the moment of the friction: ends on opposite walls ----------------------------- */

/* A 1 kg slider (L = 0.1 m, w = 0.05 m, mu = 0.1) in a horizontal guide
 * under its weight, a torque T = -2 N m that cocks it across the gap (end 1
 * on the upper wall, N_1 < 0; end 2 on the lower, N_2 > 0) and a push
 * P = 1 N along the axis, launched at v0 = 0.1 m/s.  Friction at end k
 * acts at the wall point P_k - s_k (w/2) n; its moment about the slider is
 * (w/2) sum s_k F_k.  Balances (D = N_2 - N_1 = |N_1| + |N_2|):
 *   N_1 + N_2 = m g,   (L/2) D + T + (w/2) sum s_k F_k = 0.
 * Slip (F_k = -mu |N_k|): sum s_k F_k = -mu (N_1 + N_2) = -mu m g, so
 *   D = (-2 T + w mu m g) / L,  deceleration (mu D - P) / m, stop at
 *   s = v0^2 / (2 (mu D - P) / m).
 * Stick (F = -P shared in proportion to |N_k|): sum s_k F_k = -P m g / D,
 *   (L/2) D^2 + T D - (w/2) P m g = 0 (the positive root).
 * Without the moment both would be D = -2 T / L = 40 N: the moment changes
 * D by 0.49 N (slip) and 0.12 N (stick). */
static const char *COCKED =
    "{\"dimension\": 2, \"gravity\": [0, -9.81], \"parameters\": {\"w\": 0.05},"
    " \"bodies\": [{\"name\": \"s\", \"mass\": 1, \"inertia\": 0.001, \"com\": [0, 0], \"angle\": 0,"
    "   \"velocity\": [0.1, 0]}],"
    " \"joints\": [{\"name\": \"g\", \"type\": \"prismatic\", \"bodies\": [\"ground\", \"s\"], \"at\": [0, 0],"
    "   \"axis\": [1, 0], \"clearance\": 0.001, \"friction\": 0.1, \"slider_length\": 0.1, \"slider_width\": \"$w\"}],"
    " \"forces\": [{\"type\": \"torque\", \"body\": \"s\", \"value\": -2},"
    "   {\"type\": \"force\", \"body\": \"s\", \"value\": [1, 0]}],"
    " \"solver\": {\"integrator\": \"event_driven\", \"t_end\": 0.1, \"step\": 0.001, \"tolerance\": 1e-10,"
    "   \"abs_tolerance\": 1e-12, \"baumgarte_alpha\": 10, \"baumgarte_beta\": 10},"
    " \"outputs\": {\"interval\": 0.005, \"channels\": ["
    "   {\"name\": \"s\", \"quantity\": \"joint_coordinate\", \"joint\": \"g\"},"
    "   {\"name\": \"N1\", \"quantity\": \"normal_force\", \"joint\": \"g\", \"component\": \"x\"},"
    "   {\"name\": \"N2\", \"quantity\": \"normal_force\", \"joint\": \"g\", \"component\": \"y\"},"
    "   {\"name\": \"F\", \"quantity\": \"friction_force\", \"joint\": \"g\"}]}}";

static void test_friction_moment(void)
{
    const double m = 1, L = 0.1, w = 0.05, mu = 0.1, T = -2, P = 1, v0 = 0.1;
    const double Ds = (-2 * T + w * mu * m * G) / L, dec = (mu * Ds - P) / m;
    const double Dk = (-T + sqrt(T * T + L * w * P * m * G)) / L;
    t_run r;
    t_run_text(COCKED, NULL, &r);
    CHECK(r.rc == 0);
    /* sliding (t = 0.02 s < v0 / dec = 0.0328 s): the normal forces and the
     * friction are constant, s(t) a parabola: exact up to round-off and the
     * Baumgarte terms (1e-12 relative) */
    double t1 = 0.02;
    CHECK_NEAR(t_at(&r, "N1", t1), 0.5 * (m * G - Ds), 1e-9);
    CHECK_NEAR(t_at(&r, "N2", t1), 0.5 * (m * G + Ds), 1e-9);
    CHECK_NEAR(t_at(&r, "F", t1), -mu * Ds, 1e-9);
    CHECK_NEAR(t_at(&r, "s", t1), v0 * t1 - 0.5 * dec * t1 * t1, 1e-12);
    /* stuck after one event at the stop, with the friction arm of the
     * proportional split (a fixed point in the normal forces) */
    double t2 = 0.1;
    printf("  friction moment, ends on opposite walls: D slip %.9g (exact %.9g), stick %.9g (exact %.9g; "
           "without the moment 40), events %ld, LCPs %ld\n", t_at(&r, "N2", t1) - t_at(&r, "N1", t1), Ds,
           t_at(&r, "N2", t2) - t_at(&r, "N1", t2), Dk, r.met.events, r.met.lcp_solves);
    CHECK(r.met.events == 1);
    CHECK_NEAR(t_at(&r, "s", t2), 0.5 * v0 * v0 / dec, 1e-12);
    CHECK_NEAR(t_at(&r, "F", t2), -P, 1e-9);
    CHECK_NEAR(t_at(&r, "N1", t2), 0.5 * (m * G - Dk), 1e-9);
    CHECK_NEAR(t_at(&r, "N2", t2), 0.5 * (m * G + Dk), 1e-9);
    CHECK(r.met.max_complementarity_error < 1e-8);
    t_run_free(&r);
    /* a narrow slider (w = 0): the friction on the axis, D = -2 T / L */
    const char *narrow[] = {"w=0", NULL};
    t_run_text(COCKED, narrow, &r);
    CHECK(r.rc == 0);
    CHECK_NEAR(t_at(&r, "N2", t1) - t_at(&r, "N1", t1), -2 * T / L, 1e-9);
    CHECK_NEAR(t_at(&r, "N2", t2) - t_at(&r, "N1", t2), -2 * T / L, 1e-9);
    t_run_free(&r);
}

/* The same slider held cocked by a large push and a small torque, friction
 * beyond the self-locking limit mu w / L = 1 (the drawer effect): it sticks,
 * with D = N_2 - N_1 the positive root of (L/2) D^2 + T D - (w/2) P m g = 0.
 * Here the friction's own moment carries most of the cocking, and the
 * normal forces are a fixed point whose plain iteration contracts slowly
 * (the relaxed passes settle it; 1e-9 N).  Pushed harder with more
 * friction (T = -0.05, P = 77.5 N, mu = 4) the stick/slip LCP has no
 * solution: the run fails with a message naming the joint. */
static void test_self_locking(void)
{
    const double m = 1, L = 0.1, w = 0.05, T = -0.3, P = 57.1;
    const double D = (-T + sqrt(T * T + L * w * P * m * G)) / L;
    const char *jam[] = {"mu=3", "T=-0.3", "P=57.1", NULL}, *jam2[] = {"mu=4", "T=-0.05", "P=77.5", NULL};
    static const char *DOC =
        "{\"dimension\": 2, \"gravity\": [0, -9.81], \"parameters\": {\"mu\": 3, \"T\": -0.3, \"P\": 57.1},"
        " \"bodies\": [{\"name\": \"s\", \"mass\": 1, \"inertia\": 0.001, \"com\": [0, 0], \"angle\": 0}],"
        " \"joints\": [{\"name\": \"g\", \"type\": \"prismatic\", \"bodies\": [\"ground\", \"s\"], \"at\": [0, 0],"
        "   \"axis\": [1, 0], \"clearance\": 0.001, \"friction\": \"$mu\", \"slider_length\": 0.1, \"slider_width\": 0.05}],"
        " \"forces\": [{\"type\": \"torque\", \"body\": \"s\", \"value\": \"$T\"},"
        "   {\"type\": \"force\", \"body\": \"s\", \"value\": [\"$P\", 0]}],"
        " \"solver\": {\"integrator\": \"event_driven\", \"t_end\": 0.05, \"step\": 0.001, \"tolerance\": 1e-10,"
        "   \"abs_tolerance\": 1e-12, \"baumgarte_alpha\": 10, \"baumgarte_beta\": 10},"
        " \"outputs\": {\"interval\": 0.01, \"channels\": ["
        "   {\"name\": \"s\", \"quantity\": \"joint_coordinate\", \"joint\": \"g\"},"
        "   {\"name\": \"N1\", \"quantity\": \"normal_force\", \"joint\": \"g\", \"component\": \"x\"},"
        "   {\"name\": \"N2\", \"quantity\": \"normal_force\", \"joint\": \"g\", \"component\": \"y\"},"
        "   {\"name\": \"F\", \"quantity\": \"friction_force\", \"joint\": \"g\"}]}}";
    t_run r;
    t_run_text(DOC, jam, &r);
    CHECK(r.rc == 0);
    printf("  self-locking (mu w / L = 1.5): stuck, D = %.9g N (exact %.9g)\n", t_at(&r, "N2", 0.05) - t_at(&r, "N1", 0.05),
           D);
    CHECK(fabs(t_at(&r, "s", 0.05)) < 1e-12);
    CHECK_NEAR(t_at(&r, "N1", 0.05), 0.5 * (m * G - D), 1e-9);
    CHECK_NEAR(t_at(&r, "N2", 0.05), 0.5 * (m * G + D), 1e-9);
    CHECK_NEAR(t_at(&r, "F", 0.05), -P, 1e-9);
    t_run_free(&r);
    t_run_text(DOC, jam2, &r);
    CHECK(r.rc != 0);
    CHECK(r.err.n >= 1 && strstr(r.err.e[0].message, "joint 'g'") != NULL);
    t_run_free(&r);
}

/* ---- slider on an inclined guide ---------------------------------------------------- */

/* A 2 kg slider on a guide at angle a (parameter, degrees) to the
 * horizontal, axis pointing up the slope, launched at v0 along the axis
 * (default at rest); friction mu, static friction mu + dmu. */
static const char *INCLINE =
    "{\"dimension\": 2, \"gravity\": [0, -9.81], \"parameters\": {\"a\": 30, \"mu\": 0.2, \"dmu\": 0, \"v0\": 0},"
    " \"bodies\": [{\"name\": \"s\", \"mass\": 2, \"inertia\": 0.01, \"com\": [0, 0], \"angle\": \"=$a*pi/180\","
    "   \"velocity\": [\"=$v0*cos($a*pi/180)\", \"=$v0*sin($a*pi/180)\"]}],"
    " \"joints\": [{\"name\": \"g\", \"type\": \"prismatic\", \"bodies\": [\"ground\", \"s\"], \"at\": [0, 0],"
    "   \"axis\": [\"=cos($a*pi/180)\", \"=sin($a*pi/180)\"], \"clearance\": 0.001, \"friction\": \"$mu\","
    "   \"friction_static\": \"=$mu+$dmu\", \"slider_length\": 0.2}],"
    " \"solver\": {\"integrator\": \"event_driven\", \"t_end\": 1, \"step\": 0.01, \"tolerance\": 1e-10,"
    "   \"abs_tolerance\": 1e-12, \"baumgarte_alpha\": 10, \"baumgarte_beta\": 10},"
    " \"outputs\": {\"interval\": 0.05, \"channels\": ["
    "   {\"name\": \"s\", \"quantity\": \"joint_coordinate\", \"joint\": \"g\"},"
    "   {\"name\": \"N\", \"quantity\": \"normal_force\", \"joint\": \"g\", \"component\": \"magnitude\"},"
    "   {\"name\": \"F\", \"quantity\": \"friction_force\", \"joint\": \"g\"},"
    "   {\"name\": \"E\", \"quantity\": \"energy\"}]}}";

/* The slider of INCLINE (mass m, slope a) released at rest with the
 * parameters sets: it sticks without any event, static friction m g sin a
 * holding it (round-off of the stick constraint: 1e-12 m, 1e-9 N). */
static void s_check_stuck(const char *const *sets, double m, double a)
{
    t_run r;
    t_run_text(INCLINE, sets, &r);
    CHECK(r.rc == 0);
    CHECK(fabs(t_at(&r, "s", 1.0)) < 1e-12);
    CHECK_NEAR(t_at(&r, "F", 1.0), m * G * sin(a), 1e-9);
    CHECK(r.met.events == 0);
    CHECK(r.met.max_complementarity_error < 1e-8);
    t_run_free(&r);
}

static void test_incline(void)
{
    const double m = 2, a = 30 * M_PI / 180;
    /* tan 30 deg = 0.577 > 0.2: slides down at g (sin a - mu cos a) */
    {
        const char *sets[] = {"mu=0.2", NULL};
        t_run r;
        t_run_text(INCLINE, sets, &r);
        CHECK(r.rc == 0);
        double acc = G * (sin(a) - 0.2 * cos(a));
        double emax = 0, wmax = 0;
        for (int i = 1; i <= 20; i++) {
            double t = 0.05 * i, s = t_at(&r, "s", t);
            emax = fmax(emax, fabs(s + 0.5 * acc * t * t));
            /* energy lost = friction work mu N |s| with N = m g cos a */
            double lost = t_at(&r, "E", 0) - t_at(&r, "E", t);
            wmax = fmax(wmax, fabs(lost - 0.2 * m * G * cos(a) * fabs(s)));
        }
        printf("  incline slide: max |s - exact| = %.3g m, |lost energy - friction work| = %.3g J\n", emax, wmax);
        /* a quadratic is integrated exactly by DOPRI5 up to round-off and
         * the constraint stabilisation: 1e-9 m / 1e-8 J */
        CHECK(emax < 1e-9);
        CHECK(wmax < 1e-8);
        CHECK_NEAR(t_at(&r, "N", 0.5), m * G * cos(a), 1e-8);
        CHECK_NEAR(t_at(&r, "F", 0.5), 0.2 * m * G * cos(a), 1e-8);
        CHECK(r.met.max_complementarity_error < 1e-8);
        t_run_free(&r);
    }
    /* mu = 0.7 > tan a: sticks, static friction m g sin a holds it */
    {
        const char *sets[] = {"mu=0.7", NULL};
        s_check_stuck(sets, m, a);
    }
    /* just above the limit (mu = tan a - 0.01): slides, slowly */
    {
        char set[64];
        snprintf(set, sizeof set, "mu=%.17g", tan(a) - 0.01);
        const char *sets[] = {set, NULL};
        t_run r;
        t_run_text(INCLINE, sets, &r);
        double acc = G * (sin(a) - (tan(a) - 0.01) * cos(a));
        CHECK(r.rc == 0);
        CHECK_NEAR(t_at(&r, "s", 1.0), -0.5 * acc, 1e-9);
        t_run_free(&r);
    }
}

/* Static above kinetic friction on the incline: mu = 0.4 < tan 30 deg =
 * 0.577 < mu_s = 0.7.  At rest the slider sticks (it needs m g sin a, and
 * mu_s m g cos a holds it); moving down the slope it keeps sliding,
 * accelerating at g (sin a - mu cos a); moving up it stops after
 * v0 / (g (sin a + mu cos a)) and sticks.  With mu_s = mu it slides from
 * rest.  Quadratics are exact for DOPRI5 and the stop is located to 1e-12 s
 * (a position error of 1e-12 v0): 1e-9 m and 1e-9 N leave the margin of
 * the constraint stabilisation. */
static void test_static_friction(void)
{
    const double m = 2, a = 30 * M_PI / 180, mu = 0.4, v0 = 0.5;
    const double N = m * G * cos(a), adown = G * (sin(a) - mu * cos(a)), aup = G * (sin(a) + mu * cos(a));
    /* at rest: sticks, no event */
    const char *rest[] = {"mu=0.4", "dmu=0.3", NULL};
    s_check_stuck(rest, m, a);
    t_run r;
    /* the same coefficients, moving down: slides with mu throughout */
    const char *down[] = {"mu=0.4", "dmu=0.3", "v0=-0.5", NULL};
    t_run_text(INCLINE, down, &r);
    CHECK(r.rc == 0);
    double e = 0;
    for (int i = 1; i <= 20; i++) {
        double t = 0.05 * i;
        e = fmax(e, fabs(t_at(&r, "s", t) - (-v0 * t - 0.5 * adown * t * t)));
    }
    printf("  static friction 0.7 > tan a > 0.4: at rest sticks; moving down slides, max |s - exact| = %.3g m",
           e);
    CHECK(e < 1e-9);
    CHECK_NEAR(t_at(&r, "F", 0.5), mu * N, 1e-9);
    CHECK(r.met.events == 0);
    CHECK(r.met.max_complementarity_error < 1e-8);
    t_run_free(&r);
    /* moving up: stops at t1 and sticks there (one event) */
    const char *up[] = {"mu=0.4", "dmu=0.3", "v0=0.5", NULL};
    t_run_text(INCLINE, up, &r);
    CHECK(r.rc == 0);
    double t1 = v0 / aup, s1 = 0.5 * v0 * v0 / aup;
    printf("; moving up stops at %.6f m (exact %.6f), events %ld\n", t_at(&r, "s", 1.0), s1, r.met.events);
    CHECK_NEAR(t_at(&r, "s", 0.05), v0 * 0.05 - 0.5 * aup * 0.05 * 0.05, 1e-9);
    CHECK(t1 < 0.1);
    CHECK_NEAR(t_at(&r, "s", 1.0), s1, 1e-9);
    CHECK_NEAR(t_at(&r, "F", 1.0), m * G * sin(a), 1e-9);
    CHECK(r.met.events == 1);
    CHECK(r.met.max_complementarity_error < 1e-8);
    t_run_free(&r);
    /* mu_s = mu: slides from rest */
    const char *same[] = {"mu=0.4", NULL};
    t_run_text(INCLINE, same, &r);
    CHECK(r.rc == 0);
    CHECK_NEAR(t_at(&r, "s", 1.0), -0.5 * adown, 1e-9);
    t_run_free(&r);
}

/* Stick -> slip under a growing push: a 1 kg slider on a horizontal guide
 * (mu = 0.2, mu_s = mu + dmu), pushed along its axis by P = c t (c = 10
 * N/s).  It sticks until c t_s = mu_s m g, then slides with mu:
 *   s(t) = c (t - t_s)^3 / 6 + (c t_s - mu m g) (t - t_s)^2 / 2.
 * One event; at the located root the push exceeds the cone by round-off
 * only, so the joint must be sent to slip, not re-stuck by the LCP's
 * tolerance (it then stayed stuck with the friction outside its cone). */
static const char *RAMP =
    "{\"dimension\": 2, \"gravity\": [0, -9.81], \"parameters\": {\"dmu\": 0},"
    " \"bodies\": [{\"name\": \"s\", \"mass\": 1, \"inertia\": 0.001, \"com\": [0, 0], \"angle\": 0}],"
    " \"joints\": [{\"name\": \"g\", \"type\": \"prismatic\", \"bodies\": [\"ground\", \"s\"], \"at\": [0, 0],"
    "   \"axis\": [1, 0], \"clearance\": 0.001, \"friction\": 0.2, \"friction_static\": \"=0.2+$dmu\","
    "   \"slider_length\": 0.1, \"slider_width\": 0.05}],"
    " \"forces\": [{\"type\": \"force\", \"body\": \"s\", \"value\": [\"=10*t\", 0]}],"
    " \"solver\": {\"integrator\": \"event_driven\", \"t_end\": 0.5, \"step\": 0.001, \"tolerance\": 1e-10,"
    "   \"abs_tolerance\": 1e-12, \"baumgarte_alpha\": 10, \"baumgarte_beta\": 10},"
    " \"outputs\": {\"interval\": 0.01, \"channels\": ["
    "   {\"name\": \"s\", \"quantity\": \"joint_coordinate\", \"joint\": \"g\"},"
    "   {\"name\": \"F\", \"quantity\": \"friction_force\", \"joint\": \"g\"}]}}";

static void test_ramp(void)
{
    const double c = 10, mu = 0.2;
    for (int k = 0; k < 2; k++) {
        double dmu = k ? 0.1 : 0, ts = (mu + dmu) * G / c, T = 0.5;
        const char *sets[] = {k ? "dmu=0.1" : "dmu=0", NULL};
        t_run r;
        t_run_text(RAMP, sets, &r);
        CHECK(r.rc == 0);
        double se = c * pow(T - ts, 3) / 6 + (c * ts - mu * G) * (T - ts) * (T - ts) / 2;
        printf("  push c t, mu_s %.1f: s(0.5) %.12f (exact %.12f), events %ld, complementarity %.2g\n", mu + dmu,
               t_at(&r, "s", T), se, r.met.events, r.met.max_complementarity_error);
        /* a cubic in each phase (exact for DOPRI5), the switch located to
         * 1e-12 s: 1e-10 m */
        CHECK_NEAR(t_at(&r, "s", T), se, 1e-10);
        CHECK(fabs(t_at(&r, "s", ts - 0.01)) < 1e-12);
        CHECK_NEAR(t_at(&r, "F", ts - 0.01), -c * (ts - 0.01), 1e-9);
        CHECK_NEAR(t_at(&r, "F", T), -mu * G, 1e-9);
        CHECK(r.met.events == 1);
        CHECK(r.met.max_complementarity_error < 1e-8);
        t_run_free(&r);
    }
}

/* The parser's checks of friction_static. */
static void test_static_friction_parse(void)
{
    static const struct { const char *keys, *integ, *ptr, *msg; } cases[] = {
        {"\"friction\": 0.1, \"friction_static\": 0.05", "event_driven", "/joints/0/friction_static",
         "'friction_static' (0.05) must be >= 'friction' (0.1)"},
        {"\"friction\": 0.1, \"friction_static\": -1", "event_driven", "/joints/0/friction_static", "must be >= 0"},
        {"\"clearance_model\": \"impact\", \"slider_width\": 0.05, \"friction_static\": 0.3", "moreau_jean",
         "/joints/0/friction_static", "applies to clearance_model \"friction\" only"},
        {"\"friction_static\": 0.3", "dopri5", "/joints/0/friction", "needs solver.integrator \"event_driven\""},
        {"\"friction\": 0.1, \"friction_static\": 0.3, \"slider_width\": 0", "event_driven", NULL, NULL},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "{\"dimension\": 2, \"bodies\": [{\"name\": \"b\", \"mass\": 1, \"inertia\": 1, \"com\": [0, 0]}],"
                 " \"joints\": [{\"name\": \"J\", \"type\": \"prismatic\", \"bodies\": [\"ground\", \"b\"],"
                 " \"axis\": [1, 0], \"clearance\": 0.001, \"slider_length\": 0.1, %s}],"
                 " \"solver\": {\"integrator\": \"%s\", \"t_end\": 1}}", cases[k].keys, cases[k].integ);
        mbs_errlist err;
        memset(&err, 0, sizeof err);
        mbs_spec *s = mech_parse(text, strlen(text), NULL, 0, &err);
        if (!cases[k].msg) {
            CHECK(s != NULL && err.n == 0);
            if (s) {
                CHECK_NEAR(s->joints[0].friction_static, 0.3, 0);
                CHECK_NEAR(s->joints[0].slider_width, 0, 0);
            }
        } else {
            int found = 0;
            for (int i = 0; i < err.n; i++)
                found |= !strcmp(err.e[i].pointer, cases[k].ptr) && strstr(err.e[i].message, cases[k].msg);
            if (!found) printf("  case %zu: expected %s: %s; got %d errors, first '%s' %s\n", k, cases[k].ptr,
                               cases[k].msg, err.n, err.n ? err.e[0].pointer : "", err.n ? err.e[0].message : "");
            CHECK(s == NULL && found);
        }
        mbs_spec_free(&s);
    }
}

/* ---- the Flores slider-crank -------------------------------------------------------- */

/* The Flores example with an ideal prismatic joint (clearance keys and the
 * clearance-joint channels removed).  Caller frees. */
static char *s_flores_ideal(void)
{
    char *text = t_slurp("examples/flores_slider_crank_friction.json", NULL);
    if (!text) return NULL;
    int ok = s_cut(text, ",\n     \"clearance_model\": \"friction\", \"clearance\": \"$c\", \"friction\": \"$mu\", "
                         "\"slider_length\": \"=2*$a\", \"slider_width\": \"=2*$b\"");
    ok &= s_cut(text, "      {\"name\": \"N1\", \"quantity\": \"normal_force\", \"joint\": \"guide\", \"component\": \"x\"},\n");
    ok &= s_cut(text, "      {\"name\": \"N2\", \"quantity\": \"normal_force\", \"joint\": \"guide\", \"component\": \"y\"},\n");
    ok &= s_cut(text, "      {\"name\": \"F_friction\", \"quantity\": \"friction_force\", \"joint\": \"guide\"},\n");
    if (!ok) { free(text); return NULL; }
    return text;
}

static void test_flores(void)
{
    char *ideal_text = s_flores_ideal();
    CHECK(ideal_text != NULL);
    if (!ideal_text) return;
    /* reference: the ideal joint by BDF at a tight tolerance */
    const char *bdf[] = {"solver.integrator=bdf", "solver.tolerance=1e-10", "solver.abs_tolerance=1e-12", NULL};
    t_run ideal, f0, f1;
    t_run_text(ideal_text, bdf, &ideal);
    CHECK(ideal.rc == 0);
    /* mu = 0: the two end equations replace the ideal joint's, no friction:
     * the same motion within the integration error (DOPRI5 at 1e-8 and BDF
     * at 1e-10 over five crank turns: measured 1.5e-4 rad/s of 150) */
    const char *mu0[] = {"mu=0", NULL};
    t_run_file("examples/flores_slider_crank_friction.json", mu0, &f0);
    CHECK(f0.rc == 0);
    double dw = t_maxdiff(&ideal, &f0, "crank_speed"), dx = t_maxdiff(&ideal, &f0, "x_slider");
    printf("  Flores mu = 0 vs ideal joint (bdf): max |crank speed diff| %.3g rad/s, |slider x diff| %.3g m\n", dw, dx);
    CHECK(dw < 1e-3);
    CHECK(dx < 1e-6);
    CHECK(f0.met.events == 0);
    /* mu = 0.01: runs to the end; friction only dissipates, so the energy
     * never rises beyond the integration error (1e-6 of E: the mu = 0 drift
     * is 1.7e-7), and it ends below the ideal run's */
    t_run_file("examples/flores_slider_crank_friction.json", NULL, &f1);
    CHECK(f1.rc == 0);
    /* friction makes it non-conservative: no energy drift reported as an
     * error measure (it was 2.3e-2, the energy friction took); with mu = 0
     * the same model is conservative and its drift is the integration's */
    CHECK(!f1.met.conservative && isnan(f1.met.energy_drift));
    CHECK(f0.met.conservative && f0.met.energy_drift < 1e-5);
    printf("  Flores energy drift: mu = 0.01 %s (not conservative), mu = 0 %.3g\n",
           f1.met.conservative ? "conservative?" : "none", f0.met.energy_drift);
    CHECK(f1.res.nsample > 0 && fabs(f1.res.rows[(size_t)(f1.res.nsample - 1) * (1 + f1.res.nchannel)] - 0.2) < 1e-12);
    int w = 1 + f1.res.nchannel, ce = t_col(&f1, "E");
    double E0 = f1.res.rows[ce], rise = 0;
    for (int i = 1; i < f1.res.nsample; i++)
        rise = fmax(rise, f1.res.rows[(size_t)i * w + ce] - f1.res.rows[(size_t)(i - 1) * w + ce]);
    double Eend = t_at(&f1, "E", 0.2);
    printf("  Flores mu = 0.01: E %.6g -> %.6g J, largest rise between samples %.3g J, crank speed at 0.2 s "
           "%.5g (ideal %.5g) rad/s, events %ld, LCPs %ld, steps %ld\n", E0, Eend, rise, t_at(&f1, "crank_speed", 0.2),
           t_at(&ideal, "crank_speed", 0.2), f1.met.events, f1.met.lcp_solves, f1.met.steps);
    CHECK(rise < 1e-6 * E0);
    CHECK(Eend < E0 * (1 - 1e-3));
    /* the friction force is mu sum |N| at every sample (sliding; the slider
     * never sticks here) */
    double fe = 0;
    for (int i = 0; i < f1.res.nsample; i++) {
        const double *row = f1.res.rows + (size_t)i * w;
        double nb = fabs(row[t_col(&f1, "N1")]) + fabs(row[t_col(&f1, "N2")]);
        fe = fmax(fe, fabs(fabs(row[t_col(&f1, "F_friction")]) - 0.01 * nb));
    }
    CHECK(fe < 1e-12 * 100);
    CHECK(f1.met.max_complementarity_error < 1e-8);
    CHECK(f1.met.lcp_failures == 0);
    CHECK(f1.met.events > 0);
    /* the impact model of the same joint (Moreau-Jean): the slider stays in
     * the gap (|y| <= clearance, up to the penetration), the rigid contacts
     * with restitution 0.4 and mu 0.01 only dissipate (energy rises by at
     * most 1e-6 E between samples: measured 1e-7, the projection of the
     * time stepping); the crank speeds of the two models are printed */
    t_run im;
    t_run_file("examples/flores_slider_crank_impact.json", NULL, &im);
    CHECK(im.rc == 0);
    if (im.rc == 0) {
        int wi = 1 + im.res.nchannel, cei = t_col(&im, "E");
        double irise = 0;
        for (int i = 1; i < im.res.nsample; i++)
            irise = fmax(irise, im.res.rows[(size_t)i * wi + cei] - im.res.rows[(size_t)(i - 1) * wi + cei]);
        double dwi = t_maxdiff(&im, &f1, "crank_speed");
        printf("  Flores impact model: crank speed at 0.2 s %.5g rad/s, largest |crank speed diff| to the friction "
               "model %.3g rad/s, E -> %.6g J, %ld impacts, max penetration %.3g m\n", t_at(&im, "crank_speed", 0.2),
               dwi, t_at(&im, "E", 0.2), im.met.impacts, im.met.max_penetration);
        CHECK(irise < 1e-6 * E0);
        CHECK(s_max_in(&im, "y_slider", 0, 0.2) <= 0.001 + im.met.max_penetration + 1e-12);
        CHECK(im.met.max_penetration < 1e-5);
        CHECK(im.met.impacts > 0);
    }
    t_run_free(&im);
    t_run_free(&ideal);
    t_run_free(&f0);
    t_run_free(&f1);
    free(ideal_text);
}

/* No drift under Baumgarte: over the Flores run the constraint violation
 * without stabilisation grows steadily (the integration error accumulates:
 * measured 7e-9 at 0.1 s, 2.9e-8 at 0.2 s), while alpha = beta = 20 1/s
 * keep it bounded at a few 1e-9 (damped within 1/20 s). */
static void test_baumgarte(void)
{
    const char *off[] = {"solver.baumgarte_alpha=0", "solver.baumgarte_beta=0", NULL};
    t_run a, b;
    t_run_file("examples/flores_slider_crank_friction.json", NULL, &a);
    t_run_file("examples/flores_slider_crank_friction.json", off, &b);
    CHECK(a.rc == 0 && b.rc == 0);
    double a1 = s_max_in(&a, "cv", 0, 0.1), a2 = s_max_in(&a, "cv", 0.1, 0.2);
    double b1 = s_max_in(&b, "cv", 0, 0.1), b2 = s_max_in(&b, "cv", 0.1, 0.2);
    printf("  Baumgarte 20/20: max |Phi| %.3g (first half) %.3g (second); none: %.3g, %.3g\n", a1, a2, b1, b2);
    CHECK(a.met.max_constraint_violation < 1e-8);
    CHECK(a2 < 2 * a1);
    CHECK(b2 > 3 * b1);
    CHECK(b2 > 5 * a2);
    t_run_free(&a);
    t_run_free(&b);
}

/* ---- the impact model ---------------------------------------------------------------- */

static void test_impact_expansion(void)
{
    char *text = t_slurp("examples/flores_slider_crank_impact.json", NULL);
    CHECK(text != NULL);
    if (!text) return;
    mbs_errlist err;
    memset(&err, 0, sizeof err);
    mbs_spec *s = mech_parse(text, strlen(text), NULL, 0, &err);
    CHECK(s != NULL);
    if (s) {
        /* 2 walls + 4 corners, one rigid contact per corner against the
         * wall on its side, the joint keeps no equations: 3 dof */
        CHECK(s->nshape == 6);
        CHECK(s->ncontact == 4);
        const mbs_joint_spec *J = &s->joints[3];
        CHECK(J->clearance_model == MBS_CLEARANCE_IMPACT);
        for (int c = 0; c < s->ncontact; c++) {
            const mbs_contact_spec *C = &s->contacts[c];
            const mbs_shape_spec *P = &s->shapes[C->shape[0]], *L = &s->shapes[C->shape[1]];
            CHECK(C->law == MBS_LAW_RIGID);
            CHECK_NEAR(C->restitution, 0.4, 0);
            CHECK_NEAR(C->friction, 0.01, 0);
            CHECK(P->kind == MBS_SHAPE_SPEC_POINT && P->body == 2);
            CHECK(L->kind == MBS_SHAPE_SPEC_LINE && L->body == MBS_GROUND);
            /* corner at +-0.05 along, +-0.025 across; wall 1 mm beyond it,
             * its normal pointing back towards the corner */
            CHECK_NEAR(fabs(P->p[0] - 0.459), 0.05, 1e-15);
            CHECK_NEAR(fabs(P->p[1]), 0.025, 1e-15);
            double gap = (P->p[1] - L->p[1]) * L->q[1];
            CHECK_NEAR(gap, 0.001, 1e-15);
        }
        mbs_report rep;
        mbs_model *m = mbs_model_new(s, &rep, &err);
        CHECK(m != NULL);
        if (m) {
            mbs_data *d = mbs_data_new(m);
            CHECK(mbs_initialize(m, d, &rep, &err) == 0);
            CHECK(rep.dof == 3);
            mbs_data_free(&d);
            mbs_model_free(&m);
        }
        mbs_spec_free(&s);
    }
    free(text);
}

int main(void)
{
    test_stick_slip();
    test_friction_moment();
    test_self_locking();
    test_incline();
    test_static_friction();
    test_ramp();
    test_static_friction_parse();
    test_flores();
    test_baumgarte();
    test_impact_expansion();
    return CHECK_SUMMARY("clearance_test");
}
