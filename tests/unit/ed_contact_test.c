/*
 * ed_contact_test.c - planar rigid contacts in the event-driven integrator
 * (integrator_ed.c, ed_contacts.c, docs/contacts.md "Event-driven rigid
 * contacts") against analytic results and against Moreau-Jean:
 *  - bouncing ball (circle on a line), e = 0.8: apex heights e^(2n) h_0,
 *    rest after the accumulation point t_inf = t_0 (1 + e) / (1 - e);
 *  - block (two corner points) on a 30-degree incline: slides at
 *    g (sin a - mu cos a) for mu = 0.2, sticks for mu = 0.7;
 *  - block on a belt held by a spring (examples/stick_slip_belt_rigid.json):
 *    stick -> slip and slip -> stick events against the exact piecewise
 *    solution (stick, then the harmonic slip orbit about mu m g / k);
 *  - cam and flat follower (examples/cam_follower_rigid.json): the exact
 *    contact force below omega_c, detachment and flight above it;
 *  - a disc thrown obliquely at the floor with friction: rolls after the
 *    impact when the sticking impulse fits in the cone, slides with
 *    |Lambda_t| = mu Lambda_n otherwise;
 *  - deactivation on/off: the same motion;
 *  - event_driven against moreau_jean on the incline and the first bounces;
 *  - 3-D rigid contacts with event_driven: a clear error.
 */
#include "check.h"
#include "testutil.h"

#include <math.h>

static const double G = 9.81;

static const char *BALL =
    "{\"dimension\": 2, \"gravity\": [0, -9.81], \"parameters\": {\"e\": 0.8},"
    " \"bodies\": [{\"name\": \"ball\", \"mass\": 0.1, \"inertia\": 1e-4, \"com\": [0, 1.05]}],"
    " \"shapes\": [{\"name\": \"b\", \"body\": \"ball\", \"type\": \"circle\", \"center\": [0, 1.05], \"radius\": 0.05},"
    "   {\"name\": \"floor\", \"body\": \"ground\", \"type\": \"line\", \"point\": [0, 0], \"normal\": [0, 1]},"
    "   {\"name\": \"wall\", \"body\": \"ground\", \"type\": \"line\", \"point\": [3, 0], \"normal\": [-1, 0]}],"
    " \"contacts\": [{\"between\": [\"b\", \"*l*\"], \"law\": \"rigid\", \"restitution\": \"$e\"}],"
    " \"solver\": {\"integrator\": \"event_driven\", \"t_end\": 5, \"step\": 0.001},"
    " \"outputs\": {\"interval\": 0.001, \"channels\": ["
    "   {\"name\": \"y\", \"quantity\": \"position\", \"body\": \"ball\", \"component\": \"y\"},"
    "   {\"name\": \"vy\", \"quantity\": \"velocity\", \"body\": \"ball\", \"component\": \"y\"},"
    "   {\"name\": \"E\", \"quantity\": \"energy\"}]}}";

/* Apexes from the energy: between bounces the energy is constant, E_n =
 * m g (r + h_n) with the apex h_n above the floor (exact, no sampling
 * error); distinct plateaus in order. */
static int s_plateaus(const t_run *r, double *h, int max)
{
    int c = t_col(r, "E"), w = 1 + r->res.nchannel, n = 0;
    double last = INFINITY;
    for (int i = 0; c > 0 && i < r->res.nsample && n < max; i++) {
        double E = r->res.rows[(size_t)i * w + c];
        if (E < last * (1 - 1e-6)) { h[n++] = E / (0.1 * G) - 0.05; last = E; }
    }
    return n;
}

static void test_bouncing(void)
{
    t_run r;
    t_run_text(BALL, NULL, &r);
    CHECK(r.rc == 0);
    double h[24];
    int n = s_plateaus(&r, h, 24);
    CHECK(n >= 12);
    /* Newton's law at located events: free flight is exact for DOPRI5
     * (quadratic in t), so the only error is the impact taken just past the
     * root (at most 1e-12 s 5 s, a few 1e-11 m below the floor), which adds
     * ~1e-11 m per bounce (measured: 6.9e-11 m absolute after ten, 6e-9
     * relative to h_10 = 0.0115 m): 1e-8 relative over ten bounces */
    double worst = 0;
    for (int i = 1; i < n && i <= 10; i++) { worst = fmax(worst, fabs(h[i] / pow(0.8, 2 * i) - 1)); }
    printf("  ball: %d energy plateaus, apex h_10 = %.10f m (e^20 = %.10f), worst relative error %.2g\n", n,
           n > 10 ? h[10] : NAN, pow(0.8, 20), worst);
    CHECK(worst < 1e-8);
    /* at rest after t_inf = t_0 (1 + e)/(1 - e), t_0 = sqrt(2 h_0 / g); the
     * Zeno rule stops the bounces below vzeno = 1e3 abs_tolerance = 1e-5
     * m/s, which cuts the remaining flight time 2 vzeno e / (g (1 - e)) <
     * 1e-5 s */
    double t0 = sqrt(2 * 1.0 / G), tinf = t0 * 1.8 / 0.2;
    int c = t_col(&r, "vy"), w = 1 + r.res.nchannel;
    double trest = NAN;
    for (int i = r.res.nsample - 1; i > 0; i--)
        if (fabs(r.res.rows[(size_t)i * w + c]) > 1e-6) { trest = r.res.rows[(size_t)i * w]; break; }
    printf("  ball: last |vy| > 1e-6 at t = %.4f s, t_inf = %.4f s; impacts %ld, Zeno closures %ld, events %ld,"
           " penetration %.2g m, complementarity %.2g\n", trest, tinf, r.met.impacts, r.met.zeno_closures,
           r.met.events, r.met.max_penetration, r.met.max_complementarity_error);
    /* the last sample with a speed above 1e-6 m/s lies within the sampling
     * interval of t_inf (the bounce sequence shrinks to it) */
    CHECK(fabs(trest - tinf) < 2e-3);
    CHECK_NEAR(t_at(&r, "y", 5.0), 0.05, 1e-9);
    CHECK(fabs(t_at(&r, "vy", 5.0)) < 1e-9);
    CHECK(r.met.zeno_closures == 1);
    CHECK(r.met.impacts > 40);
    CHECK(r.met.max_penetration < 1e-9);
    CHECK(r.met.max_complementarity_error < 1e-6);
    CHECK_STR(r.met.contact_method, "event_driven_lemke");
    CHECK(r.met.lcp_failures == 0);

    /* Moreau-Jean on the first bounces: within its h V_1 / 2 bound */
    const char *mj[] = {"solver.integrator=moreau_jean", NULL};
    t_run q;
    t_run_text(BALL, mj, &q);
    CHECK(q.rc == 0);
    double hq[4];
    int nq = s_plateaus(&q, hq, 4);
    double bound = 0.001 * sqrt(2 * G) / 2;
    CHECK(nq >= 4);
    for (int i = 1; i < nq && i < 4; i++) {
        printf("  bounce %d: event_driven %.8f m, moreau_jean %.8f m\n", i, h[i], hq[i]);
        CHECK_NEAR(hq[i], h[i], bound);
    }
    t_run_free(&q);

    /* deactivation off: the far wall's gap is an event function at every
     * step; the motion is the same (equal step sequences, the event location
     * iterates only on crossed functions) */
    const char *off[] = {"solver.contact_deactivation=false", NULL};
    t_run_text(BALL, off, &q);
    CHECK(q.rc == 0);
    double dy = t_maxdiff(&r, &q, "y"), dv = t_maxdiff(&r, &q, "vy");
    printf("  deactivation on/off: largest difference y %.3g m, vy %.3g m/s; steps %ld / %ld\n", dy, dv, r.met.steps,
           q.met.steps);
    CHECK(dy < 1e-12 && dv < 1e-12);
    CHECK(r.met.steps == q.met.steps);
    t_run_free(&q);
    /* larger steps (max_step 0.002): the small bounces near t_inf start at
     * an apex where the velocity is ~0, so the active set must cover the
     * travel under gravity (contact.c's a h^2 term); the ball still comes
     * to rest on the floor */
    const char *big[] = {"solver.max_step=0.002", NULL};
    t_run_text(BALL, big, &q);
    CHECK(q.rc == 0);
    CHECK_NEAR(t_at(&q, "y", 5.0), 0.05, 1e-9);
    CHECK(q.met.max_penetration < 1e-9 && q.met.zeno_closures == 1);
    t_run_free(&q);
    t_run_free(&r);
}

/* Rigid stick-slip on a belt (examples/stick_slip_belt_rigid.json): block
 * m = 1 kg, spring k = 100 N/m, mu = 0.3 (static = kinetic), belt v_b = 0.1
 * m/s; w = sqrt(k/m), x_eq = mu m g / k, A = v_b / w.  While slipping slower
 * than the belt, m x'' = mu m g - k x: a harmonic orbit about x_eq.  While
 * sticking, x' = v_b, until k x = mu m g (x = x_eq).
 *  - v0 = v_b: stick until t_s = x_eq / v_b (stick -> slip event), then
 *    x = x_eq + A sin(w (t - t_s)).  This orbit returns to v = v_b at x_eq
 *    with zero relative acceleration (grazing, every 2 pi / w): the slip
 *    state is kept (docs/contacts.md: grazing is not an event), which is the
 *    exact motion here, since sticking at x_eq would end at once.
 *  - v0 = 0 (a clean slip -> stick): x = x_eq (1 - cos wt) until v = v_b at
 *    t_1 = asin(v_b / (x_eq w)) / w with k x_1 < mu m g (a transversal
 *    crossing: the block sticks), stick to x_eq at t_2 = t_1 + (x_eq - x_1)
 *    / v_b, then the same orbit from t_2. */
static double s_belt_exact(double t, double v0, double *v)
{
    const double w = 10, vb = 0.1, xeq = 0.3 * G / 100, A = vb / w;
    double t1 = 0, x1 = 0;
    if (v0 < vb) {
        t1 = asin(vb / (xeq * w)) / w, x1 = xeq * (1 - cos(w * t1));
        if (t < t1) { *v = xeq * w * sin(w * t); return xeq * (1 - cos(w * t)); }
    }
    double t2 = t1 + (xeq - x1) / vb;
    if (t < t2) { *v = vb; return x1 + vb * (t - t1); }
    *v = vb * cos(w * (t - t2));
    return xeq + A * sin(w * (t - t2));
}

static void test_belt(void)
{
    const double w = 10, vb = 0.1, xeq = 0.3 * G / 100, A = vb / w;
    for (int run = 0; run < 2; run++) {
        double v0 = run ? 0 : vb;
        const char *sets[] = {run ? "v0=0" : "v0=0.1", NULL};
        t_run r;
        t_run_file("examples/stick_slip_belt_rigid.json", sets, &r);
        CHECK(r.rc == 0);
        if (r.rc) { t_run_free(&r); continue; }
        int cx = t_col(&r, "x"), cv = t_col(&r, "vx"), wd = 1 + r.res.nchannel;
        double ex = 0, ea = 0, phi0 = NAN, phi = 0, t0 = 0, tl = 0, xmin = INFINITY, xmax = -INFINITY;
        for (int i = 0; i < r.res.nsample; i++) {
            const double *row = r.res.rows + (size_t)i * wd;
            double ve, xe = s_belt_exact(row[0], v0, &ve);
            ex = fmax(ex, fmax(fabs(row[cx] - xe), fabs(row[cv] - ve) / w));
            if (row[0] < 0.35) continue; /* on the orbit from here (t_2 = 0.311 s) */
            /* orbit amplitude and phase from the state: the extremes x_eq +- A
             * without sampling error, and the period from the phase rate */
            double u = (row[cx] - xeq) * w, p = atan2(u, row[cv]);
            ea = fmax(ea, fabs(hypot(u, row[cv]) / w - A));
            xmin = fmin(xmin, row[cx]), xmax = fmax(xmax, row[cx]);
            if (isnan(phi0)) { phi0 = phi = p; t0 = row[0]; }
            phi += remainder(p - phi, 2 * M_PI);
            tl = row[0];
        }
        double per = 2 * M_PI * (tl - t0) / (phi - phi0);
        /* events: the transitions only, all before the orbit (the rest of
         * the run has none: a short run to 0.35 s counts the same) */
        const char *early[] = {sets[0], "solver.t_end=0.35", NULL};
        t_run q;
        t_run_file("examples/stick_slip_belt_rigid.json", early, &q);
        CHECK(q.rc == 0);
        printf("  belt v0 = %g: |x - exact| (and |v - exact| / w) <= %.3g m, amplitude %.12f m (exact %.12f),"
               " x in [%.8f, %.8f] (exact [%.8f, %.8f]), period %.12f s (exact %.12f); events %ld (%ld by 0.35 s),"
               " LCPs %ld, complementarity %.2g, penetration %.2g m\n", v0, ex, A + ea, A, xmin, xmax, xeq - A,
               xeq + A, per, 2 * M_PI / w, r.met.events, q.met.events, r.met.lcp_solves,
               r.met.max_complementarity_error, r.met.max_penetration);
        /* the piecewise solution at every sample: the events are located to
         * 1e-12 s and both phases are smooth, so the error is DOPRI5's: the
         * steps are capped at the output interval (w h <= 0.02), a global
         * error ~ A (w h)^5 w T = 1e-9 m over T = 3 s (measured 1.7e-11) */
        CHECK(ex < 1e-9);
        CHECK(ea < 1e-9);
        /* sampled extremes: within A (1 - cos(w dt / 2)) = 5e-7 m of the
         * orbit's, dt = 0.002 s the output interval */
        CHECK_NEAR(xmax, xeq + A, 5.1e-7);
        CHECK_NEAR(xmin, xeq - A, 5.1e-7);
        /* period from the phase advance over ~4 cycles: phase errors of
         * 1e-9 m / A = 1e-7 rad over 25 rad */
        CHECK(fabs(per * w / (2 * M_PI) - 1) < 1e-8);
        /* v0 = 0 has one clean slip -> stick event first; the stick -> slip
         * transition of the two corners is one event: their stick reserve
         * is the group's (the sum of the cones less the total friction,
         * ed_contacts.h), so both fire at t_s together and both slip (it
         * was a cascade of up to 6 events while each corner had its own,
         * split-dependent reserve) */
        CHECK(r.met.events == 1 + run);
        CHECK(q.met.events == r.met.events);
        CHECK(r.met.impacts == 0 && r.met.lcp_failures == 0);
        CHECK(r.met.max_complementarity_error < 1e-6);
        CHECK(r.met.max_penetration < 1e-9);
        CHECK_STR(r.met.contact_method, "event_driven_lemke");
        if (run) {
            /* the slip -> stick event alone by t_1 + 5 ms */
            const char *one[] = {"v0=0", "solver.t_end=0.04", NULL};
            t_run_free(&q);
            t_run_file("examples/stick_slip_belt_rigid.json", one, &q);
            CHECK(q.rc == 0 && q.met.events == 1);
            CHECK_NEAR(t_at(&q, "vx", 0.04), vb, 1e-9);
        }
        t_run_free(&q);
        t_run_free(&r);
    }
}

/* The classic stick-slip cycle: the belt example with static friction
 * mu_s = 0.5 > mu = 0.3 (x_s = mu_s m g / k, x_k = mu m g / k, d = x_s -
 * x_k).  From v0 = v_b and x = 0 the block sticks until x_s (t_s = x_s /
 * v_b), slips on x = x_k + d cos(w tau) + (v_b / w) sin(w tau) until its
 * velocity is v_b again at w tau_1 = 2 pi - 2 atan2(d w, v_b), at the mirror
 * point 2 x_k - x_s (the spring force there, k (2 x_k - x_s), is within mu_s
 * m g: it sticks), and sticks for 2 d / v_b back to x_s: the period is
 * tau_1 + 2 d / v_b.  Each cycle is two events. */
static void test_belt_static(void)
{
    const double w = 10, vb = 0.1, xs = 0.5 * G / 100, xk = 0.3 * G / 100, d = xs - xk;
    const double ts = xs / vb, tau1 = (2 * M_PI - 2 * atan2(d * w, vb)) / w, per = tau1 + 2 * d / vb;
    const char *sets[] = {"mu_s=0.5", "solver.t_end=2.5", NULL};
    t_run r;
    t_run_file("examples/stick_slip_belt_rigid.json", sets, &r);
    CHECK(r.rc == 0);
    if (r.rc) { t_run_free(&r); return; }
    /* the exact cycle at every sample */
    int cx = t_col(&r, "x"), cv = t_col(&r, "vx"), wd = 1 + r.res.nchannel;
    double ex = 0;
    for (int i = 0; i < r.res.nsample; i++) {
        const double *row = r.res.rows + (size_t)i * wd;
        double t = row[0], x, v;
        if (t < ts) { x = vb * t, v = vb; }
        else {
            double c = fmod(t - ts, per);
            if (c < tau1) { x = xk + d * cos(w * c) + vb / w * sin(w * c); v = -d * w * sin(w * c) + vb * cos(w * c); }
            else { x = 2 * xk - xs + vb * (c - tau1); v = vb; }
        }
        ex = fmax(ex, fmax(fabs(row[cx] - x), fabs(row[cv] - v) / w));
    }
    /* cycles completed by 2.5 s: stick 0.4905 s, then (2.5 - t_s) / per =
     * 2.5 cycles: events at t_s + k per (stick -> slip) and t_s + tau_1 + k
     * per (slip -> stick) */
    long want = 0;
    for (int k = 0; k < 4; k++) want += (ts + k * per < 2.5) + (ts + tau1 + k * per < 2.5);
    printf("  belt, mu_s 0.5 > mu 0.3: |x - exact| (and |v - exact| / w) <= %.3g m over %.2f cycles of %.9f s; "
           "events %ld (exact %ld), complementarity %.2g\n", ex, (2.5 - ts) / per, per, r.met.events, want,
           r.met.max_complementarity_error);
    /* events located to 1e-12 s, DOPRI5 in between (as test_belt): 1e-9 m */
    CHECK(ex < 1e-9);
    CHECK(r.met.events == want);
    CHECK(r.met.lcp_failures == 0 && r.met.max_complementarity_error < 1e-6);
    t_run_free(&r);
}

/* Cam and flat follower with a rigid frictionless contact
 * (examples/cam_follower_rigid.json; derivation in cam_follower.json): lift
 * e (1 - cos wt), contact force N(t) = m e w^2 cos wt + k e (1 - cos wt) + k
 * d0 + m g, which first reaches zero (at the top side) only above omega_c =
 * sqrt((k (2 e + d0) + m g) / (m e)), at cos wt_d = -(k e + k d0 + m g) /
 * (m e w^2 - k e). */
static void test_cam(void)
{
    const double m = 0.5, k = 2000, e = 0.01, d0 = 0.01, Rc = 0.04;
    const double wc = sqrt((k * (2 * e + d0) + m * G) / (m * e));
    for (int run = 0; run < 2; run++) {
        const double f = run ? 1.1 : 0.9, w = f * wc;
        const char *sets[] = {run ? "omega==1.1*$omega_c" : "omega==0.9*$omega_c", NULL};
        double td = run ? acos(-(k * e + k * d0 + m * G) / (m * e * w * w - k * e)) / w : INFINITY;
        t_run r;
        t_run_file("examples/cam_follower_rigid.json", sets, &r);
        CHECK(r.rc == 0);
        if (r.rc) { t_run_free(&r); continue; }
        int cy = t_col(&r, "y"), ca = t_col(&r, "a"), cc = t_col(&r, "y_cam"), cf = t_col(&r, "F_spring");
        int wd = 1 + r.res.nchannel;
        double en = 0, gmax = -INFINITY, gmin = INFINITY;
        for (int i = 1; i < r.res.nsample; i++) {
            const double *row = r.res.rows + (size_t)i * wd;
            double gap = row[cy] - (row[cc] + Rc);
            gmax = fmax(gmax, gap), gmin = fmin(gmin, gap);
            if (row[0] >= td) continue;
            double c = cos(w * row[0]), N = m * row[ca] - row[cf] + m * G;
            en = fmax(en, fabs(N - (m * e * w * w * c + k * e * (1 - c) + k * d0 + m * G)));
        }
        printf("  cam %.1f omega_c = %.2f rad/s: |N - exact| <= %.3g N%s, gap in [%.3g, %.3g] m; events %ld,"
               " impacts %ld, Zeno closures %ld, complementarity %.2g\n", f, w, en, run ? " before t_d" : "", gmin,
               gmax, r.met.events, r.met.impacts, r.met.zeno_closures, r.met.max_complementarity_error);
        /* while closed the follower's motion is the exact lift (Baumgarte
         * keeps the gap below 2e-9 m), so N = m a + spring + m g follows
         * from DOPRI5's acceleration: 1e-4 N of forces up to 80 N */
        CHECK(en < 1e-4);
        CHECK(gmin > -2e-9);
        CHECK(r.met.lcp_failures == 0 && r.met.max_complementarity_error < 1e-6);
        if (!run) {
            /* never apart, no event at all */
            CHECK(gmax < 1e-9);
            CHECK(r.met.events == 0 && r.met.impacts == 0);
        } else {
            /* leaves the cam at t_d (detachment event) and lands again
             * (impacts); the flight opens a gap of 0.1 e at least */
            CHECK(gmax > 1e-3);
            CHECK(r.met.events >= 2 && r.met.impacts >= 1);
            double g0 = t_at(&r, "y", td - 5e-4) - t_at(&r, "y_cam", td - 5e-4) - Rc;
            double g1 = t_at(&r, "y", td + 2e-3) - t_at(&r, "y_cam", td + 2e-3) - Rc;
            printf("  cam 1.1 omega_c: t_d = %.5f s, gap %.3g m 0.5 ms before, %.3g m 2 ms after\n", td, g0, g1);
            /* after t_d the relative acceleration grows linearly, the gap as
             * dN/dt tau^3 / (6 m) ~ 1e-5 m at tau = 2 ms */
            CHECK(g0 < 1e-9 && g1 > 1e-6);
        }
        t_run_free(&r);
    }
}

/* A disc (m = 0.1 kg, r = 0.05 m, I = 0.4 m r^2) thrown at (2, -3) m/s from
 * 0.05 m above the floor: Newton restitution 0.5 with Coulomb friction. */
static const char *THROW =
    "{\"dimension\": 2, \"gravity\": [0, -9.81], \"parameters\": {\"mu\": 0.5},"
    " \"bodies\": [{\"name\": \"ball\", \"mass\": 0.1, \"inertia\": 1e-4, \"com\": [0, 0.1], \"velocity\": [2, -3]}],"
    " \"shapes\": [{\"name\": \"b\", \"body\": \"ball\", \"type\": \"circle\", \"center\": [0, 0.1], \"radius\": 0.05},"
    "   {\"name\": \"floor\", \"body\": \"ground\", \"type\": \"line\", \"point\": [0, 0], \"normal\": [0, 1]}],"
    " \"contacts\": [{\"shapes\": [\"b\", \"floor\"], \"law\": \"rigid\", \"restitution\": 0.5, \"friction\": \"$mu\"}],"
    " \"solver\": {\"integrator\": \"event_driven\", \"t_end\": 0.05, \"step\": 0.001},"
    " \"outputs\": {\"interval\": 0.001, \"channels\": ["
    "   {\"name\": \"vx\", \"quantity\": \"velocity\", \"body\": \"ball\", \"component\": \"x\"},"
    "   {\"name\": \"vy\", \"quantity\": \"velocity\", \"body\": \"ball\", \"component\": \"y\"},"
    "   {\"name\": \"w\", \"quantity\": \"angular_velocity\", \"body\": \"ball\"}]}}";

/* Impact with friction.  Normal impulse Lambda_n = m (1 + e) |v_y-| (the
 * normal passes through the centre).  The contact point slides at v_t =
 * v_x + w r; stopping it takes Lambda_stick = -v_t / (1/m + r^2/I).  If
 * |Lambda_stick| <= mu Lambda_n the disc leaves rolling: v_x+ = v_x -
 * v_t/(1 + m r^2 / I) (5/7 v_x from w = 0), w+ = -v_x+ / r; otherwise it
 * slides: Lambda_t = -mu Lambda_n sign(v_t), v_x+ = v_x + Lambda_t / m,
 * w+ = r Lambda_t / I.  Here Lambda_n = 0.1 1.5 |v_y-| (|v_y-| = 3.16 m/s)
 * and |Lambda_stick| = 0.0571 N s: mu = 0.5 rolls, mu = 0.05 slides. */
static void test_throw(void)
{
    const double m = 0.1, r = 0.05, I = 1e-4, e = 0.5, vx = 2;
    /* impact time and speed from 0.05 = 3 t + g t^2 / 2 */
    double ti = (-3 + sqrt(9 + 2 * G * 0.05)) / G, vy = -3 - G * ti;
    for (int run = 0; run < 2; run++) {
        double mu = run ? 0.05 : 0.5, Ln = m * (1 + e) * -vy, Lst = -vx / (1 / m + r * r / I), vxp, wp;
        int rolls = fabs(Lst) <= mu * Ln;
        if (rolls) { vxp = vx + Lst / m; wp = -vxp / r; }
        else { double Lt = -mu * Ln; vxp = vx + Lt / m; wp = r * Lt / I; }
        const char *sets[] = {run ? "mu=0.05" : "mu=0.5", NULL};
        t_run q;
        t_run_text(THROW, sets, &q);
        CHECK(q.rc == 0);
        double t1 = 0.04, ax = t_at(&q, "vx", t1), aw = t_at(&q, "w", t1), ay = t_at(&q, "vy", t1);
        printf("  throw mu %.2f (%s): after the impact vx %.10f (exact %.10f), w %.10f (exact %.10f), vy %.10f"
               " (exact %.10f); impacts %ld\n", mu, rolls ? "rolls" : "slides", ax, vxp, aw, wp, ay,
               -e * vy - G * (t1 - ti), q.met.impacts);
        /* one impact LCP, exact up to the located time (1e-12 s) and
         * DOPRI5's exact free flight: 1e-9 */
        CHECK(q.met.impacts == 1);
        CHECK_NEAR(ax, vxp, 1e-9);
        CHECK_NEAR(aw, wp, 1e-8);
        CHECK_NEAR(ay, -e * vy - G * (t1 - ti), 1e-9);
        /* the tangential impulse within the cone: |m dvx| <= mu Lambda_n */
        CHECK(fabs(m * (ax - vx)) <= mu * Ln * (1 + 1e-9));
        t_run_free(&q);
    }
}

/* A planar block with two corner points on a 30-degree incline, at rest. */
static const char *INCLINE =
    "{\"dimension\": 2, \"gravity\": [0, -9.81], \"parameters\": {\"mu\": 0.2, \"a\": \"=pi/6\"},"
    " \"bodies\": [{\"name\": \"blk\", \"mass\": 1, \"inertia\": 0.01,"
    "   \"com\": [\"=-0.1*sin($a)\", \"=0.1*cos($a)\"], \"angle\": \"=$a\"}],"
    " \"shapes\": [{\"name\": \"c1\", \"body\": \"blk\", \"type\": \"point\", \"at\": [\"=-0.1*cos($a)\", \"=-0.1*sin($a)\"]},"
    "   {\"name\": \"c2\", \"body\": \"blk\", \"type\": \"point\", \"at\": [\"=0.1*cos($a)\", \"=0.1*sin($a)\"]},"
    "   {\"name\": \"slope\", \"body\": \"ground\", \"type\": \"line\", \"point\": [0, 0], \"normal\": [\"=-sin($a)\", \"=cos($a)\"]}],"
    " \"contacts\": [{\"between\": [\"c*\", \"slope\"], \"law\": \"rigid\", \"restitution\": 0, \"friction\": \"$mu\"}],"
    " \"solver\": {\"integrator\": \"event_driven\", \"t_end\": 1, \"step\": 0.001},"
    " \"outputs\": {\"interval\": 0.01, \"channels\": ["
    "   {\"name\": \"x\", \"quantity\": \"position\", \"body\": \"blk\", \"component\": \"x\"},"
    "   {\"name\": \"z\", \"quantity\": \"position\", \"body\": \"blk\", \"component\": \"y\"},"
    "   {\"name\": \"E\", \"quantity\": \"energy\"}]}}";

static void test_incline(void)
{
    double a = M_PI / 6;
    t_run r, q;
    const char *slide[] = {"mu=0.2", NULL};
    t_run_text(INCLINE, slide, &r);
    CHECK(r.rc == 0);
    /* constant acceleration: DOPRI5 is exact to round-off and Baumgarte
     * keeps the corners on the line, so 1e-10 m */
    double acc = G * (sin(a) - 0.2 * cos(a)), s1 = -(t_at(&r, "x", 1.0) - t_at(&r, "x", 0.0)) / cos(a);
    printf("  incline mu 0.2: slid %.10f m, predicted %.10f m; LCPs %ld (size %d), complementarity %.2g\n", s1,
           0.5 * acc, r.met.lcp_solves, r.met.max_lcp_dimension, r.met.max_complementarity_error);
    CHECK_NEAR(s1, 0.5 * acc, 1e-10);
    CHECK_NEAR(t_at(&r, "E", 0.0) - t_at(&r, "E", 1.0), 0.2 * G * cos(a) * s1, 1e-9);
    CHECK(r.met.max_complementarity_error < 1e-8);
    /* Moreau-Jean slides the same distance (its midpoint update is exact
     * for a constant acceleration) */
    const char *mj[] = {"mu=0.2", "solver.integrator=moreau_jean", NULL};
    t_run_text(INCLINE, mj, &q);
    CHECK(q.rc == 0);
    double dmj = fabs(t_at(&q, "x", 1.0) - t_at(&r, "x", 1.0));
    printf("  incline mu 0.2: |x_ed - x_mj| at 1 s = %.3g m\n", dmj);
    CHECK(dmj < 1e-8);
    t_run_free(&q);
    t_run_free(&r);
    const char *stick[] = {"mu=0.7", NULL};
    t_run_text(INCLINE, stick, &r);
    CHECK(r.rc == 0);
    double creep = fabs(t_at(&r, "x", 1.0) - t_at(&r, "x", 0.0)) + fabs(t_at(&r, "z", 1.0) - t_at(&r, "z", 0.0));
    printf("  incline mu 0.7: moved %.3g m, events %ld, complementarity %.2g\n", creep, r.met.events,
           r.met.max_complementarity_error);
    /* sticking: the Baumgarte-stabilised stick constraint lets the block
     * creep by round-off only */
    CHECK(creep < 1e-9);
    CHECK(r.met.events == 0);
    CHECK(r.met.max_complementarity_error < 1e-5);
    t_run_free(&r);
}

/* Rigid contacts in space need moreau_jean. */
static void test_3d_error(void)
{
    const char *doc =
        "{\"dimension\": 3, \"gravity\": [0, 0, -9.81],"
        " \"bodies\": [{\"name\": \"ball\", \"mass\": 0.1, \"inertia\": [1e-4, 1e-4, 1e-4], \"com\": [0, 0, 1]}],"
        " \"shapes\": [{\"name\": \"b\", \"body\": \"ball\", \"type\": \"sphere\", \"center\": [0, 0, 1], \"radius\": 0.05},"
        "   {\"name\": \"floor\", \"body\": \"ground\", \"type\": \"plane\", \"point\": [0, 0, 0], \"normal\": [0, 0, 1]}],"
        " \"contacts\": [{\"shapes\": [\"b\", \"floor\"], \"law\": \"rigid\"}],"
        " \"solver\": {\"integrator\": \"event_driven\", \"t_end\": 0.1},"
        " \"outputs\": {\"interval\": 0.01, \"channels\": [{\"name\": \"E\", \"quantity\": \"energy\"}]}}";
    t_run r;
    t_run_text(doc, NULL, &r);
    CHECK(r.rc == MBS_EINVAL);
    CHECK(r.err.n >= 1 && strstr(r.err.e[r.err.n - 1].message, "moreau_jean") != NULL);
    t_run_free(&r);
}

int main(void)
{
    test_bouncing();
    test_incline();
    test_belt();
    test_belt_static();
    test_cam();
    test_throw();
    test_3d_error();
    return CHECK_SUMMARY("ed_contact_test");
}
