/*
 * relative_mj_test.c - Moreau-Jean in relative coordinates
 * (run/contact_relative.c, docs/formulations.md "Moreau-Jean in relative
 * coordinates") against closed forms and the natural coordinates' runs:
 *  - a pendulum (one revolute joint) released horizontal onto a wall at
 *    its lowest point, restitution e: the rebound -e times the angular
 *    velocity, the apex after it arccos(1 - e^2) from the vertical; the
 *    same impact step as the natural run;
 *  - a slider-crank (a loop: a chord with circuit equations) whose slider
 *    hits a stop: every velocity of the one-freedom mechanism times -e, the
 *    kinetic energy times e^2, the same impact step as natural; the smooth
 *    stretch before it second order (the velocity-product terms are taken
 *    at a midpoint velocity): the energy drift and the distance to the
 *    natural run quarter when the step halves, the drift of the size of
 *    the natural run's (Stormer-Verlet);
 *  - a body tumbling freely in space (Euler's equations: a ball joint's
 *    velocity products) against natural dopri5: second order;
 *  - the rigid bouncing ball (a free body: six rates, exact free flight)
 *    and the 100-ball box without friction (translations only) as the
 *    natural runs to rounding; the flores impact slider-crank (the impact
 *    clearance model: no joint in the tree) converging to natural at first
 *    order;
 *  - contact deactivation (the reach from the rates' lever arms): the box
 *    with it on and off to the bit;
 *  - the event-driven integrator on planar trees: its three examples as the
 *    natural runs (same steps and events), the pendulum onto the wall;
 *  - the refusals: rigid contacts with dopri5, the friction clearance
 *    model.
 */
#include "check.h"
#include "testutil.h"

#include <math.h>

static const double G = 9.81;

static const char *PEND =
    "{\"dimension\": 2, \"gravity\": [0, -9.81], \"parameters\": {\"e\": 0.8, \"L\": 0.5},"
    " \"bodies\": [{\"name\": \"bob\", \"mass\": 1, \"inertia\": 0.001, \"com\": [\"=-$L\", 0]}],"
    " \"joints\": [{\"name\": \"A\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"bob\"], \"at\": [0, 0]}],"
    " \"shapes\": [{\"name\": \"tip\", \"body\": \"bob\", \"type\": \"circle\", \"center\": [\"=-$L\", 0], \"radius\": 0.02},"
    "   {\"name\": \"wall\", \"body\": \"ground\", \"type\": \"line\", \"point\": [0.02, 0], \"normal\": [-1, 0]}],"
    " \"contacts\": [{\"shapes\": [\"tip\", \"wall\"], \"law\": \"rigid\", \"restitution\": \"$e\"}],"
    " \"solver\": {\"integrator\": \"moreau_jean\", \"t_end\": 1.5, \"step\": 0.001},"
    " \"outputs\": {\"interval\": 0.001, \"channels\": ["
    "   {\"name\": \"th\", \"quantity\": \"joint_coordinate\", \"joint\": \"A\"},"
    "   {\"name\": \"w\", \"quantity\": \"angular_velocity\", \"body\": \"bob\"},"
    "   {\"name\": \"N\", \"quantity\": \"contact_force\", \"shapes\": [\"wall\", \"tip\"], \"component\": \"normal\"}]}}";

static const char *SCSTOP =
    "{\"dimension\": 2, \"gravity\": [0, 0], \"parameters\": {\"e\": 0.5, \"r\": 0.1, \"l\": 0.3, \"omega\": 10},"
    " \"bodies\": [{\"name\": \"crank\", \"mass\": 1, \"inertia\": \"=1*$r^2/12\", \"com\": [\"=$r/2\", 0], \"angle\": 0,"
    "   \"velocity\": [0, \"=$omega*$r/2\"], \"angular_velocity\": \"$omega\"},"
    "  {\"name\": \"rod\", \"mass\": 2, \"inertia\": \"=2*$l^2/12\", \"com\": [\"=$r+$l/2\", 0], \"angle\": 0,"
    "   \"velocity\": [0, \"=$omega*$r/2\"], \"angular_velocity\": \"=-$omega*$r/$l\"},"
    "  {\"name\": \"slider\", \"mass\": 1, \"inertia\": 0.01, \"com\": [\"=$r+$l\", 0], \"angle\": 0, \"velocity\": [0, 0],"
    "   \"angular_velocity\": 0}],"
    " \"joints\": [{\"name\": \"A\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"crank\"], \"at\": [0, 0]},"
    "  {\"name\": \"crankpin\", \"type\": \"revolute\", \"bodies\": [\"crank\", \"rod\"], \"at\": [\"$r\", 0]},"
    "  {\"name\": \"wristpin\", \"type\": \"revolute\", \"bodies\": [\"rod\", \"slider\"], \"at\": [\"=$r+$l\", 0]},"
    "  {\"name\": \"guide\", \"type\": \"prismatic\", \"bodies\": [\"ground\", \"slider\"], \"at\": [\"=$r+$l\", 0],"
    "   \"axis\": [1, 0]}],"
    " \"shapes\": [{\"name\": \"s\", \"body\": \"slider\", \"type\": \"circle\", \"center\": [\"=$r+$l\", 0], \"radius\": 0.01},"
    "   {\"name\": \"stop\", \"body\": \"ground\", \"type\": \"line\", \"point\": [0.29, 0], \"normal\": [1, 0]}],"
    " \"contacts\": [{\"shapes\": [\"s\", \"stop\"], \"law\": \"rigid\", \"restitution\": \"$e\"}],"
    " \"solver\": {\"integrator\": \"moreau_jean\", \"t_end\": 0.5, \"step\": 0.0005},"
    " \"outputs\": {\"interval\": 0.0005, \"channels\": ["
    "   {\"name\": \"w\", \"quantity\": \"angular_velocity\", \"body\": \"crank\"},"
    "   {\"name\": \"x\", \"quantity\": \"position\", \"body\": \"slider\", \"component\": \"x\"},"
    "   {\"name\": \"T\", \"quantity\": \"kinetic_energy\"}]}}";

/* Value of channel c (t_col) at sample i. */
static double s_val(const t_run *r, int c, int i)
{
    return r->res.rows[(size_t)i * (1 + r->res.nchannel) + c];
}

/* The first sample i after which channel `w` reverses (an impact): the
 * first i with w[i] w[i - 1] < 0; -1 when none. */
static int s_reversal(const t_run *r, const char *w)
{
    int c = t_col(r, w);
    for (int i = 1; c > 0 && i < r->res.nsample; i++)
        if (s_val(r, c, i) * s_val(r, c, i - 1) < 0) return i;
    return -1;
}

static void test_pendulum(void)
{
    const char *rel[] = {"solver.formulation=relative", NULL};
    t_run a, b;
    t_run_text(PEND, NULL, &a);
    t_run_text(PEND, rel, &b);
    CHECK(a.rc == 0 && b.rc == 0);
    CHECK_STR(b.met.formulation, "relative");
    CHECK(b.met.relative_coords == 1);
    int ia = s_reversal(&a, "w"), ib = s_reversal(&b, "w"), cw = t_col(&b, "w"), ct = t_col(&b, "th");
    CHECK(ia > 0 && ia == ib);
    if (ib <= 1 || cw < 0 || ct < 0) { t_run_free(&a); t_run_free(&b); return; }
    /* Newton's law at the wall: w+ = -e w-.  Bound: gravity's torque m g L
     * sin(th) acts over the step with |th| <= w h at the impact step, so
     * the samples around it differ from the impact's velocities by at most
     * m g L w h^2 / I_O: over w, 2 g L h^2 / (L^2 + I/m) ... taken as
     * m g L w h^2 / (I_O w) = 2.0e-5 for L = 0.5, h = 1e-3. */
    double L = 0.5, IO = 1 * L * L + 0.001, h = 1e-3;
    double ratio = s_val(&b, cw, ib) / s_val(&b, cw, ib - 1), bound = G * L * h * h / IO;
    double wimp = sqrt(2 * G * L / IO);
    printf("  pendulum: impact at t = %.3f s in both; w before %.9f (closed form %.9f), rebound ratio %.12f "
           "(-e = -0.8, bound %.1e); natural %.12f\n", a.res.rows[(size_t)ia * (1 + a.res.nchannel)],
           s_val(&b, cw, ib - 1), wimp, ratio, bound, s_val(&a, cw, ia) / s_val(&a, cw, ia - 1));
    CHECK_NEAR(ratio, -0.8, bound);
    /* the speed at the wall: energy m g L = 1/2 I_O w^2, to the step's
     * change of w near the bottom (|w'| <= m g L w h / I_O there) */
    CHECK_NEAR(s_val(&b, cw, ib - 1), wimp, G * L * wimp * h / IO);
    /* the apex after the rebound: 1 - cos(th1) = e^2 (1 - cos(pi/2)), the
     * joint coordinate pi/2 - th1 at its smallest.  Bound: Newton's law
     * acts up to w h / 2 from the wall (the index set's half step), where
     * the potential differs by m g L (w h / 2)^2 / 2; over the apex's
     * m g L sin(th1): (w h)^2 / (8 sin th1), plus the samples' spacing,
     * (w_apex = 0) 1/2 |th''| h^2. */
    double th1 = acos(1 - 0.64), want = M_PI / 2 - th1, apex = INFINITY, apex_nat = INFINITY;
    for (int i = ib; i < b.res.nsample; i++) apex = fmin(apex, s_val(&b, ct, i));
    for (int i = ia; i < a.res.nsample; i++) apex_nat = fmin(apex_nat, s_val(&a, ct, i));
    double abound = pow(wimp * h, 2) / (8 * sin(th1)) + 0.5 * G * L / IO * h * h;
    printf("  pendulum: apex %.9f rad (closed form %.9f, bound %.1e; natural %.9f)\n", apex, want, abound, apex_nat);
    CHECK_NEAR(apex, want, abound);
    /* the contact force output (the natural witness points): the same
     * impulse over h as the natural run's, to the rebound's difference */
    double Nmax_a = 0, Nmax_b = 0;
    for (int i = 0; i < a.res.nsample; i++) Nmax_a = fmax(Nmax_a, s_val(&a, t_col(&a, "N"), i));
    for (int i = 0; i < b.res.nsample; i++) Nmax_b = fmax(Nmax_b, s_val(&b, t_col(&b, "N"), i));
    printf("  pendulum: largest normal force %.6g N (natural %.6g)\n", Nmax_b, Nmax_a);
    CHECK(Nmax_b > 0);
    CHECK_NEAR(Nmax_b / Nmax_a, 1.0, 1e-3);
    CHECK(b.met.impacts >= 1 && b.met.max_complementarity_error < 1e-8);
    t_run_free(&a);
    t_run_free(&b);
}

static void test_slider_stop(void)
{
    const char *rel[] = {"solver.formulation=relative", NULL};
    t_run a, b;
    t_run_text(SCSTOP, NULL, &a);
    t_run_text(SCSTOP, rel, &b);
    CHECK(a.rc == 0 && b.rc == 0);
    CHECK(b.met.relative_coords == 3 && b.met.relative_constraints == 2);
    int ia = s_reversal(&a, "w"), ib = s_reversal(&b, "w"), cw = t_col(&b, "w"), cT = t_col(&b, "T");
    CHECK(ia > 0 && ia == ib);
    if (ib <= 2 || cw < 0 || cT < 0) { t_run_free(&a); t_run_free(&b); return; }
    /* one freedom: the impact scales every velocity by -e, the kinetic
     * energy by e^2.  Bound: the samples around the impact step include up
     * to one step of the smooth motion: twice the largest change of w per
     * step in the three steps before it (over w) */
    double dw = 0;
    for (int i = ib - 3 > 1 ? ib - 3 : 1; i < ib; i++) dw = fmax(dw, fabs(s_val(&b, cw, i) - s_val(&b, cw, i - 1)));
    double w0 = s_val(&b, cw, ib - 1), ratio = s_val(&b, cw, ib) / w0, bound = 2 * dw / fabs(w0);
    double Tr = s_val(&b, cT, ib) / s_val(&b, cT, ib - 1);
    printf("  slider stop: impact at t = %.4f s in both; w ratio %.6f (-e = -0.5, bound %.1e), T ratio %.6f (e^2 = "
           "0.25)\n", b.res.rows[(size_t)ib * (1 + b.res.nchannel)], ratio, bound, Tr);
    CHECK_NEAR(ratio, -0.5, bound);
    CHECK_NEAR(Tr, 0.25, 2 * bound * 0.25);
    CHECK(b.met.max_constraint_violation < 1e-10);
    t_run_free(&a);
    t_run_free(&b);

    /* the smooth stretch before the impact: second order.  The kinetic
     * energy (no gravity, no damping: constant) drifts by O(h^2) and the
     * slider's position approaches the natural run's (itself second order)
     * at O(h^2): halving the step quarters both (ratios within 3.6 .. 4.4;
     * measured 4.00, 4.00; with the velocity products at v0 they were 2.0,
     * drift 9.0e-4 J at 0.5 ms, 91 times the natural run's) */
    double drift[3], dx[3], dnat[3];
    const char *steps[3] = {"solver.step=0.0005", "solver.step=0.00025", "solver.step=0.000125"};
    for (int k = 0; k < 3; k++) {
        const char *sn[] = {"solver.t_end=0.2", steps[k], NULL};
        const char *sr[] = {"solver.t_end=0.2", steps[k], "solver.formulation=relative", NULL};
        t_run_text(SCSTOP, sn, &a);
        t_run_text(SCSTOP, sr, &b);
        CHECK(a.rc == 0 && b.rc == 0);
        drift[k] = fabs(t_at(&b, "T", 0.2) - 0.5);
        dnat[k] = fabs(t_at(&a, "T", 0.2) - 0.5);
        dx[k] = fabs(t_at(&b, "x", 0.2) - t_at(&a, "x", 0.2));
        printf("  slider stop, %s: energy drift %.3e J (natural %.3e), slider x - natural's %.3e m\n", steps[k],
               drift[k], dnat[k], dx[k]);
        t_run_free(&a);
        t_run_free(&b);
    }
    for (int k = 0; k < 2; k++) {
        CHECK(drift[k] / drift[k + 1] > 3.6 && drift[k] / drift[k + 1] < 4.4);
        CHECK(dx[k] / dx[k + 1] > 3.6 && dx[k] / dx[k + 1] < 4.4);
    }
    /* the same size as the natural coordinates' error: the drift within
     * twice the natural run's at every step (measured 0.41 times) */
    for (int k = 0; k < 3; k++) CHECK(drift[k] > 0 && drift[k] < 2 * dnat[k]);
}

/* A free ball: six rates (three slides, a ball joint), free flight exact in
 * both; the same motion as the natural run to rounding. */
static void test_ball(void)
{
    const char *rel[] = {"solver.formulation=relative", NULL};
    t_run a, b;
    t_run_file("examples/bouncing_ball_rigid.json", NULL, &a);
    t_run_file("examples/bouncing_ball_rigid.json", rel, &b);
    CHECK(a.rc == 0 && b.rc == 0);
    CHECK(b.met.relative_coords == 6);
    double dz = t_maxdiff(&a, &b, "z"), dv = t_maxdiff(&a, &b, "vz"), dN = t_maxdiff(&a, &b, "N");
    printf("  bouncing_ball_rigid: relative - natural: z %.2e m, vz %.2e m/s, N %.2e N; impacts %ld, %ld\n", dz, dv,
           dN, a.met.impacts, b.met.impacts);
    CHECK(dz < 1e-10 && dv < 1e-10 && dN < 1e-8);
    CHECK(a.met.impacts == b.met.impacts);
    t_run_free(&a);
    t_run_free(&b);
}

static void s_no_friction(mbs_spec *s, void *ctx)
{
    (void)ctx;
    for (int k = 0; k < s->ncontact; k++) s->contacts[k].friction = 0;
}

/* 100 balls without friction: translations only (the rotations, where
 * the natural unit vectors move linearly and the quaternions by the
 * exponential map, stay at rest), impulses converged by PGS to 1e-12 (its
 * iterates differ: the natural free bodies' reduced unknowns, the tree's
 * islands of six rates), both without contact deactivation (which the
 * relative run does not use; the natural run with it differs here by one
 * impact and 1.1e-3 J at 0.1 s): the natural run to rounding. */
static void test_box(void)
{
    char *text = t_slurp("examples/balls_in_box_100.json", NULL);
    CHECK(text != NULL);
    if (!text) return;
    const char *nat[] = {"solver.t_end=0.1", "solver.lcp_tolerance=1e-12", "solver.lcp_max_iterations=5000",
                         "solver.contact_deactivation=false", NULL};
    const char *rel[] = {"solver.t_end=0.1", "solver.lcp_tolerance=1e-12", "solver.lcp_max_iterations=5000",
                         "solver.contact_deactivation=false", "solver.formulation=relative", NULL};
    t_run a, b;
    t_run_text_with(text, nat, s_no_friction, NULL, &a);
    t_run_text_with(text, rel, s_no_friction, NULL, &b);
    CHECK(a.rc == 0 && b.rc == 0);
    CHECK(b.met.relative_coords == 600);
    double dz = t_maxdiff(&a, &b, "z0"), dE = t_maxdiff(&a, &b, "E"), dF = t_maxdiff(&a, &b, "Fz_floor");
    printf("  balls_in_box_100, no friction, 0.1 s: relative - natural: z0 %.2e m, E %.2e J, Fz_floor %.2e N "
           "(impacts %ld, %ld)\n", dz, dE, dF, a.met.impacts, b.met.impacts);
    CHECK(dz < 1e-9 && dE < 1e-7 && dF < 1e-6);
    CHECK(a.met.impacts == b.met.impacts);
    t_run_free(&a);
    t_run_free(&b);
    free(text);
}

/* Contact deactivation in relative coordinates: the active set from the
 * run's broad phase on the mapped state, the pairs' reach and the check
 * after a solve from the rates' lever arms (body_speeds, missed): the 100-ball
 * box (PGS) with it on and off to the bit, far fewer unknowns with it. */
static void test_deactivation(void)
{
    const char *on[] = {"solver.t_end=0.3", "solver.formulation=relative", "solver.contact_deactivation=true", NULL};
    const char *off[] = {"solver.t_end=0.3", "solver.formulation=relative", "solver.contact_deactivation=false", NULL};
    t_run a, b;
    t_run_file("examples/balls_in_box_100.json", on, &a);
    t_run_file("examples/balls_in_box_100.json", off, &b);
    CHECK(a.rc == 0 && b.rc == 0);
    double worst = 0;
    for (int k = 0; a.spec && k < a.spec->nchannel; k++)
        worst = fmax(worst, t_maxdiff(&a, &b, a.spec->channels[k].name));
    printf("  balls_in_box_100, relative, 0.3 s: deactivation on - off %.1e over every channel; mean LCP dimension "
           "%.0f on, %.0f off; impacts %ld, %ld\n", worst, a.met.mean_lcp_dimension, b.met.mean_lcp_dimension,
           a.met.impacts, b.met.impacts);
    CHECK(worst == 0);
    CHECK(a.met.impacts == b.met.impacts);
    CHECK(a.met.mean_lcp_dimension < 0.2 * b.met.mean_lcp_dimension);
    t_run_free(&a);
    t_run_free(&b);
}

/* The event-driven integrator on planar trees (q' = u): the examples that
 * name it with rigid contacts take the same steps and events as natural,
 * every channel within 1e-6 of its scale (both at the examples' tolerance,
 * the same steps: what is left is rounding in two coordinate sets carried
 * through the events' location, measured 3.7e-8); the pendulum onto the
 * wall: Newton's law at the event, the same impact as natural. */
static void test_event_driven(void)
{
    const char *ex[] = {"bouncing_ball_planar_event", "cam_follower_rigid", "stick_slip_belt_rigid"};
    const char *rel[] = {"solver.formulation=relative", NULL};
    for (int e = 0; e < 3; e++) {
        char path[128];
        snprintf(path, sizeof path, "examples/%s.json", ex[e]);
        t_run a, b;
        t_run_file(path, NULL, &a);
        t_run_file(path, rel, &b);
        CHECK(a.rc == 0 && b.rc == 0);
        CHECK(b.spec && b.spec->solver.integrator == MBS_INT_EVENT_DRIVEN && b.met.formulation &&
              !strcmp(b.met.formulation, "relative"));
        CHECK(a.met.steps == b.met.steps && a.met.events == b.met.events && a.met.impacts == b.met.impacts);
        double worst = 0;
        const char *wn = "-";
        for (int k = 0; a.spec && b.spec && a.res.nsample == b.res.nsample && k < a.spec->nchannel; k++) {
            double sc = 0, dk = t_maxdiff(&a, &b, a.spec->channels[k].name);
            int c = t_col(&a, a.spec->channels[k].name);
            for (int i = 0; i < a.res.nsample; i++) sc = fmax(sc, fabs(s_val(&a, c, i)));
            if (!(dk <= worst * fmax(sc, 1e-300))) { worst = dk / fmax(sc, 1e-300); wn = a.spec->channels[k].name; }
        }
        printf("  %s, event_driven: relative - natural %.1e of the scale (%s); steps %ld, %ld; events %ld, %ld\n",
               ex[e], worst, wn, a.met.steps, b.met.steps, a.met.events, b.met.events);
        CHECK(a.res.nsample == b.res.nsample && worst < 1e-6);
        t_run_free(&a);
        t_run_free(&b);
    }
    const char *edn[] = {"solver.integrator=event_driven", NULL};
    const char *edr[] = {"solver.integrator=event_driven", "solver.formulation=relative", NULL};
    t_run a, b;
    t_run_text(PEND, edn, &a);
    t_run_text(PEND, edr, &b);
    CHECK(a.rc == 0 && b.rc == 0);
    int ib = s_reversal(&b, "w"), cw = t_col(&b, "w");
    CHECK(ib > 0 && ib == s_reversal(&a, "w"));
    double dth = t_maxdiff(&a, &b, "th");
    printf("  pendulum onto the wall, event_driven: impacts %ld, %ld; th relative - natural %.1e rad\n",
           a.met.impacts, b.met.impacts, dth);
    CHECK(b.met.impacts >= 1 && dth < 1e-6);
    if (ib > 1 && cw > 0) {
        /* between the samples around the impact the pendulum swings by
         * gravity for under a sample interval: the ratio within the
         * pendulum's bound above */
        double ratio = s_val(&b, cw, ib) / s_val(&b, cw, ib - 1);
        CHECK_NEAR(ratio, -0.8, G * 0.5 * 1e-6 / 0.251 + 1e-9);
    }
    t_run_free(&a);
    t_run_free(&b);
}

/* The impact clearance model: the guide is no joint of the tree (three
 * rates, no chord); first order towards the natural run at 5 ms. */
static void test_flores(void)
{
    double d[3];
    const char *steps[3] = {"solver.step=1e-5", "solver.step=5e-6", "solver.step=2.5e-6"};
    for (int k = 0; k < 3; k++) {
        const char *sn[] = {"solver.t_end=0.005", steps[k], NULL};
        const char *sr[] = {"solver.t_end=0.005", steps[k], "solver.formulation=relative", NULL};
        char *text = t_slurp("examples/flores_slider_crank_impact.json", NULL), buf[16384];
        CHECK(text && t_splice(text, "\"interval\": 0.001", "\"interval\": 0.0005", buf, sizeof buf) == 0);
        free(text);
        t_run a, b;
        t_run_text(buf, sn, &a);
        t_run_text(buf, sr, &b);
        CHECK(a.rc == 0 && b.rc == 0);
        CHECK(b.met.relative_coords == 3 && b.met.relative_constraints == 0);
        d[k] = fabs(t_at(&a, "crank_angle", 0.005) - t_at(&b, "crank_angle", 0.005));
        printf("  flores impact, %s: crank angle at 5 ms, relative - natural %.3e rad\n", steps[k], d[k]);
        t_run_free(&a);
        t_run_free(&b);
    }
    for (int k = 0; k < 2; k++) CHECK(d[k] / d[k + 1] > 1.7 && d[k] / d[k + 1] < 2.3);
}

static void test_refusals(void)
{
    const char *rk[] = {"solver.formulation=relative", "solver.integrator=dopri5", NULL};
    mbs_errlist el;
    memset(&el, 0, sizeof el);
    t_sets ts;
    t_sets_parse(&ts, rk);
    mbs_spec *s = mech_parse(PEND, strlen(PEND), ts.ov, ts.n, &el);
    /* the natural checks may refuse dopri5 with rigid contacts first: any
     * refusal naming moreau_jean */
    int found = 0;
    for (int e = 0; e < el.n; e++) found |= strstr(el.e[e].message, "moreau_jean") != NULL;
    CHECK(s == NULL && found);
    mbs_spec_free(&s);
    char *text = t_slurp("examples/flores_slider_crank_friction.json", NULL);
    CHECK(text != NULL);
    const char *fr[] = {"solver.formulation=relative", "solver.integrator=moreau_jean", NULL};
    if (text) CHECK(t_parse_refused(text, fr, NULL, "clearance"));
    free(text);
}

/* A body tumbling freely in space (principal moments 2, 3, 4 x 1e-4 kg m^2,
 * spun about all three axes): Euler's equations, the velocity products
 * w x I w of a ball joint's rates (its quaternion advanced by the
 * exponential map).  Moreau-Jean in relative coordinates against an
 * independent reference, natural coordinates with dopri5 at tolerance
 * 1e-11: second order (the angular velocity's error quarters when h
 * halves; measured 2.69e-7, 6.72e-8, 1.68e-8 rad/s, ratios 4.00; with the
 * velocity products at v0 it was 2.7e-4, 1.4e-4, 6.8e-5, first order), of
 * the size of the natural Moreau-Jean run's (measured 2.2 times it; 1.23e-7,
 * 3.08e-8, 7.70e-9 rad/s). */
static const char *TUMBLE =
    "{\"dimension\": 3, \"gravity\": [0, 0, -9.81],"
    " \"bodies\": [{\"name\": \"b\", \"mass\": 0.1, \"inertia\": [0.0002, 0.0003, 0.0004], \"com\": [0, 0, 1],"
    "   \"velocity\": [0.5, 0, 1], \"angular_velocity\": [3, 0.2, 1]}],"
    " \"solver\": {\"integrator\": \"moreau_jean\", \"t_end\": 0.3, \"step\": 0.001, \"tolerance\": 1e-11},"
    " \"outputs\": {\"interval\": 0.05, \"channels\": ["
    "   {\"name\": \"wx\", \"quantity\": \"angular_velocity\", \"body\": \"b\", \"component\": \"x\"},"
    "   {\"name\": \"wy\", \"quantity\": \"angular_velocity\", \"body\": \"b\", \"component\": \"y\"},"
    "   {\"name\": \"wz\", \"quantity\": \"angular_velocity\", \"body\": \"b\", \"component\": \"z\"}]}}";

/* Largest |a - b| over the three angular velocity channels at the samples. */
static double s_werr(const t_run *a, const t_run *b)
{
    static const char *ch[3] = {"wx", "wy", "wz"};
    double e = 0;
    for (int k = 1; k <= 6; k++)
        for (int c = 0; c < 3; c++) e = fmax(e, fabs(t_at(a, ch[c], 0.05 * k) - t_at(b, ch[c], 0.05 * k)));
    return e;
}

static void test_tumble(void)
{
    const char *sref[] = {"solver.integrator=dopri5", NULL};
    t_run ref;
    t_run_text(TUMBLE, sref, &ref);
    CHECK(ref.rc == 0);
    double er[3], en[3];
    const char *steps[3] = {"solver.step=0.001", "solver.step=0.0005", "solver.step=0.00025"};
    for (int k = 0; k < 3; k++) {
        const char *sn[] = {steps[k], NULL};
        const char *sr[] = {steps[k], "solver.formulation=relative", NULL};
        t_run a, b;
        t_run_text(TUMBLE, sn, &a);
        t_run_text(TUMBLE, sr, &b);
        CHECK(a.rc == 0 && b.rc == 0);
        CHECK(b.met.relative_coords == 6);
        en[k] = s_werr(&a, &ref);
        er[k] = s_werr(&b, &ref);
        printf("  tumbling body, %s: angular velocity within %.3e rad/s of the reference (natural %.3e)\n", steps[k],
               er[k], en[k]);
        t_run_free(&a);
        t_run_free(&b);
    }
    t_run_free(&ref);
    for (int k = 0; k < 2; k++) CHECK(er[k] / er[k + 1] > 3.6 && er[k] / er[k + 1] < 4.4);
    for (int k = 0; k < 3; k++) CHECK(er[k] > 0 && er[k] < 5 * en[k]);
}

int main(void)
{
    test_pendulum();
    test_slider_stop();
    test_tumble();
    test_ball();
    test_box();
    test_deactivation();
    test_event_driven();
    test_flores();
    test_refusals();
    return CHECK_SUMMARY("relative_mj_test");
}
