/*
 * rigid_test.c - rigid contacts by Moreau-Jean time stepping against
 * analytic results (integrator_mj.c, docs/contacts.md):
 *  - bouncing ball, e = 0.8: apex heights e^(2n) h_0 within the bound of an
 *    impact applied up to half a step away from the floor;
 *  - e = 0: the ball comes to rest, no drift, penetration below the bound;
 *  - a box (4 corners) on an incline, and a planar block (2 corner points on
 *    a line): sticks when tan a <= mu, slides at g (sin a - mu cos a)
 *    otherwise, energy lost = friction work; Lemke and PGS agree;
 *  - Newton's cradle (3 balls, e = 1): the simultaneous-impact outcome,
 *    momentum and energy conserved;
 *  - deactivation on/off: the same motion, a larger system without; a ball
 *    at rest pushed into a wall within one step, and the 100-ball box over
 *    its second: on and off to the bit;
 *  - a column of 8 resting balls: converged impulses (at rest, no drift)
 *    within a bounded number of sweeps;
 *  - a square pyramid of 14 balls in a box (hyperstatic with friction):
 *    the regularised PGS converges where the plain one stalls, and the
 *    regularisation's meaning holds exactly (sink velocities eps W Lambda
 *    summing to eps times the weight impulse);
 *  - the format: rigid law fields, integrator default and errors.
 * Every run checks the complementarity error of every step.
 */
#include "check.h"
#include "testutil.h"

#include <math.h>

static const double G = 9.81;

/* Relative complementarity violation accepted: PGS stops at a velocity
 * change of lcp_tolerance (1e-10) of the velocity scale per sweep, Lemke
 * is exact to round-off. */
static const double COMPL_TOL = 1e-8;

static const char *BALL =
    "{\"dimension\": 3, \"gravity\": [0, 0, -9.81], \"parameters\": {\"e\": 0.8},"
    " \"bodies\": [{\"name\": \"ball\", \"mass\": 0.1, \"inertia\": [1e-4, 1e-4, 1e-4], \"com\": [0, 0, 1.05]}],"
    " \"shapes\": [{\"name\": \"b\", \"body\": \"ball\", \"type\": \"sphere\", \"center\": [0, 0, 1.05], \"radius\": 0.05},"
    "   {\"name\": \"floor\", \"body\": \"ground\", \"type\": \"plane\", \"point\": [0, 0, 0], \"normal\": [0, 0, 1]}],"
    " \"contacts\": [{\"shapes\": [\"b\", \"floor\"], \"law\": \"rigid\", \"restitution\": \"$e\"}],"
    " \"solver\": {\"t_end\": 3, \"step\": 0.001},"
    " \"outputs\": {\"interval\": 0.001, \"channels\": ["
    "   {\"name\": \"z\", \"quantity\": \"position\", \"body\": \"ball\", \"component\": \"z\"},"
    "   {\"name\": \"vz\", \"quantity\": \"velocity\", \"body\": \"ball\", \"component\": \"z\"},"
    "   {\"name\": \"E\", \"quantity\": \"energy\"}]}}";

static void test_bouncing(void)
{
    t_run r;
    t_run_text(BALL, NULL, &r);
    CHECK(r.rc == 0);
    double h[8];
    int n = t_maxima(&r, "z", h, 8);
    CHECK(n >= 5);
    /* Bound: free flight is exact (the midpoint rule integrates constant
     * gravity exactly), so the only error is where Newton's law acts: at a
     * midpoint q_m with |g| <= h V / 2 (the point enters the index set when
     * it closes within the half step, or touches).  Restarting at height g
     * with e times the speed there gives the apex e^2 H + g (1 - e^2), an
     * error <= h V / 2 (1 - e^2); errors shrink by e^2 per bounce, so after
     * any number of bounces |error| <= h V_1 / 2 (sum of the geometric
     * series), V_1 = sqrt(2 g h_0).  Samples every h: + g h^2 / 8. */
    double V1 = sqrt(2 * G * 1.0), bound = 0.001 * V1 / 2 + G * 1e-6 / 8;
    for (int i = 0; i < n && i < 5; i++) {
        double want = pow(0.8, 2 * (i + 1)) * 1.0;
        printf("  bounce %d: apex %.5f m above the floor, e^2n h0 = %.5f (bound %.1e)\n", i + 1, h[i] - 0.05, want,
               bound);
        CHECK_NEAR(h[i] - 0.05, want, bound);
    }
    CHECK(r.met.impacts >= 5);
    CHECK(r.met.max_complementarity_error < COMPL_TOL);
    CHECK_STR(r.met.contact_method, "moreau_jean_lemke");
    /* midpoint penetration <= h V / 2 */
    CHECK(r.met.max_penetration <= 0.001 * V1 / 2 * 1.01);
    t_run_free(&r);

    /* e = 0: the ball stops at the first impact and stays */
    const char *e0[] = {"e=0", NULL};
    t_run_text(BALL, e0, &r);
    CHECK(r.rc == 0);
    double z1 = t_at(&r, "z", 1.0), z3 = t_at(&r, "z", 3.0);
    printf("  e = 0: z(1 s) - r = %.3g m, z(3 s) - r = %.3g m, penetration %.3g m\n", z1 - 0.05, z3 - 0.05,
           r.met.max_penetration);
    /* at rest: no drift over 2 s (round-off only) */
    CHECK_NEAR(z3, z1, 1e-12);
    CHECK(fabs(t_at(&r, "vz", 3.0)) < 1e-12);
    /* resting on the floor: the last approach before rest is stopped at the
     * end of a step (2 g / h target) and the next step's Newton law holds
     * it at the midpoint: |gap| <= h/2 * g h */
    CHECK(fabs(z3 - 0.05) <= 0.5 * 0.001 * G * 0.001 * 1.01);
    CHECK(r.met.max_complementarity_error < COMPL_TOL);
    t_run_free(&r);
}

/* A box on a 30-degree incline (4 corner points), mu = 0.2 slides, mu = 0.7
 * sticks (tan 30 = 0.577); the block starts at rest, touching. */
static const char *INCLINE3 =
    "{\"dimension\": 3, \"gravity\": [0, 0, -9.81], \"parameters\": {\"mu\": 0.2, \"a\": \"=pi/6\"},"
    " \"bodies\": [{\"name\": \"blk\", \"mass\": 1, \"inertia\": [0.01, 0.01, 0.01],"
    "   \"com\": [\"=-0.1*sin($a)\", 0, \"=0.1*cos($a)\"], \"orientation\": [\"=cos($a/2)\", 0, \"=-sin($a/2)\", 0]}],"
    " \"shapes\": [{\"name\": \"box\", \"body\": \"blk\", \"type\": \"box\", \"center\": [\"=-0.1*sin($a)\", 0, \"=0.1*cos($a)\"],"
    "   \"half_extents\": [0.1, 0.1, 0.1], \"orientation\": [\"=cos($a/2)\", 0, \"=-sin($a/2)\", 0]},"
    "   {\"name\": \"slope\", \"body\": \"ground\", \"type\": \"plane\", \"point\": [0, 0, 0], \"normal\": [\"=-sin($a)\", 0, \"=cos($a)\"]}],"
    " \"contacts\": [{\"shapes\": [\"box\", \"slope\"], \"law\": \"rigid\", \"restitution\": 0, \"friction\": \"$mu\"}],"
    " \"solver\": {\"t_end\": 1, \"step\": 0.001},"
    " \"outputs\": {\"interval\": 0.01, \"channels\": ["
    "   {\"name\": \"x\", \"quantity\": \"position\", \"body\": \"blk\", \"component\": \"x\"},"
    "   {\"name\": \"z\", \"quantity\": \"position\", \"body\": \"blk\", \"component\": \"z\"},"
    "   {\"name\": \"E\", \"quantity\": \"energy\"}]}}";

/* The same in the plane: a block with two corner points on a line. */
static const char *INCLINE2 =
    "{\"dimension\": 2, \"gravity\": [0, -9.81], \"parameters\": {\"mu\": 0.2, \"a\": \"=pi/6\"},"
    " \"bodies\": [{\"name\": \"blk\", \"mass\": 1, \"inertia\": 0.01,"
    "   \"com\": [\"=-0.1*sin($a)\", \"=0.1*cos($a)\"], \"angle\": \"=$a\"}],"
    " \"shapes\": [{\"name\": \"c1\", \"body\": \"blk\", \"type\": \"point\", \"at\": [\"=-0.1*cos($a)\", \"=-0.1*sin($a)\"]},"
    "   {\"name\": \"c2\", \"body\": \"blk\", \"type\": \"point\", \"at\": [\"=0.1*cos($a)\", \"=0.1*sin($a)\"]},"
    "   {\"name\": \"slope\", \"body\": \"ground\", \"type\": \"line\", \"point\": [0, 0], \"normal\": [\"=-sin($a)\", \"=cos($a)\"]}],"
    " \"contacts\": [{\"between\": [\"c*\", \"slope\"], \"law\": \"rigid\", \"restitution\": 0, \"friction\": \"$mu\"}],"
    " \"solver\": {\"t_end\": 1, \"step\": 0.001},"
    " \"outputs\": {\"interval\": 0.01, \"channels\": ["
    "   {\"name\": \"x\", \"quantity\": \"position\", \"body\": \"blk\", \"component\": \"x\"},"
    "   {\"name\": \"z\", \"quantity\": \"position\", \"body\": \"blk\", \"component\": \"y\"},"
    "   {\"name\": \"E\", \"quantity\": \"energy\"}]}}";

static void s_incline(const char *doc, const char *what)
{
    double a = M_PI / 6;
    for (int s = 0; s < 2; s++) {
        const char *slide[] = {"mu=0.2", s ? "solver.lcp_solver=pgs" : "solver.lcp_solver=auto", NULL};
        t_run r[2];
        t_run_text(doc, slide, &r[0]);
        CHECK(r[0].rc == 0);
        /* the trapezoidal position update of Moreau-Jean is exact for a
         * constant acceleration: s = a t^2 / 2 to round-off (1e-9 covers
         * the PGS tolerance 1e-10 of the velocity scale per step) */
        double acc = G * (sin(a) - 0.2 * cos(a)), s1 = -(t_at(&r[0], "x", 1.0) - t_at(&r[0], "x", 0.0)) / cos(a);
        printf("  %s %s mu 0.2: slid %.9f m, predicted %.9f m\n", what, s ? "pgs" : "lemke", s1, 0.5 * acc);
        CHECK_NEAR(s1, 0.5 * acc, 1e-9);
        /* energy lost = friction work mu m g cos a * s */
        double dE = t_at(&r[0], "E", 0.0) - t_at(&r[0], "E", 1.0);
        CHECK_NEAR(dE, 0.2 * G * cos(a) * s1, 1e-8);
        CHECK(r[0].met.max_complementarity_error < COMPL_TOL);
        CHECK_STR(r[0].met.contact_method, s ? "moreau_jean_pgs" : "moreau_jean_lemke");
        CHECK(r[0].met.lcp_failures == 0);
        const char *stick[] = {"mu=0.7", s ? "solver.lcp_solver=pgs" : "solver.lcp_solver=auto", NULL};
        t_run_text(doc, stick, &r[1]);
        CHECK(r[1].rc == 0);
        double creep = fabs(t_at(&r[1], "x", 1.0) - t_at(&r[1], "x", 0.0)) + fabs(t_at(&r[1], "z", 1.0) - t_at(&r[1], "z", 0.0));
        printf("  %s %s mu 0.7: moved %.3g m\n", what, s ? "pgs" : "lemke", creep);
        CHECK(creep < 1e-9);
        CHECK(r[1].met.max_complementarity_error < COMPL_TOL);
        t_run_free(&r[0]);
        t_run_free(&r[1]);
    }
}

static void test_incline(void)
{
    s_incline(INCLINE3, "box (3-D)");
    s_incline(INCLINE2, "block (2-D)");
}

/* Newton's cradle: three equal circles in a row, touching, the first one
 * arriving at V.  Moreau-Jean treats the two impacts as simultaneous: the
 * LCP with Newton's law (e = 1) on both contacts gives
 * (-V/3, 2V/3, 2V/3) (the sequential cradle gives (0, 0, V); both keep
 * momentum, and for three equal balls both keep the energy:
 * 1/9 + 4/9 + 4/9 = 1). */
static void test_cradle(void)
{
    const char *doc =
        "{\"dimension\": 2, \"gravity\": [0, 0],"
        " \"bodies\": [{\"name\": \"b0\", \"mass\": 1, \"inertia\": 0.001, \"com\": [-0.3, 0], \"velocity\": [1, 0]},"
        "   {\"name\": \"b1\", \"mass\": 1, \"inertia\": 0.001, \"com\": [0, 0]},"
        "   {\"name\": \"b2\", \"mass\": 1, \"inertia\": 0.001, \"com\": [0.1, 0]}],"
        " \"shapes\": [{\"name\": \"s0\", \"body\": \"b0\", \"type\": \"circle\", \"center\": [-0.3, 0], \"radius\": 0.05},"
        "   {\"name\": \"s1\", \"body\": \"b1\", \"type\": \"circle\", \"center\": [0, 0], \"radius\": 0.05},"
        "   {\"name\": \"s2\", \"body\": \"b2\", \"type\": \"circle\", \"center\": [0.1, 0], \"radius\": 0.05}],"
        " \"contacts\": [{\"between\": [\"s*\", \"s*\"], \"law\": \"rigid\", \"restitution\": 1}],"
        " \"solver\": {\"t_end\": 0.5, \"step\": 0.001},"
        " \"outputs\": {\"interval\": 0.01, \"channels\": ["
        "   {\"name\": \"v0\", \"quantity\": \"velocity\", \"body\": \"b0\", \"component\": \"x\"},"
        "   {\"name\": \"v1\", \"quantity\": \"velocity\", \"body\": \"b1\", \"component\": \"x\"},"
        "   {\"name\": \"v2\", \"quantity\": \"velocity\", \"body\": \"b2\", \"component\": \"x\"},"
        "   {\"name\": \"E\", \"quantity\": \"energy\"}]}}";
    for (int s = 0; s < 2; s++) {
        const char *set[] = {s ? "solver.lcp_solver=pgs" : "solver.lcp_solver=lemke", NULL};
        t_run r;
        t_run_text(doc, set, &r);
        CHECK(r.rc == 0);
        double v0 = t_at(&r, "v0", 0.5), v1 = t_at(&r, "v1", 0.5), v2 = t_at(&r, "v2", 0.5);
        printf("  cradle (%s): velocities %.6f %.6f %.6f, energy %.9f J\n", s ? "pgs" : "lemke", v0, v1, v2,
               t_at(&r, "E", 0.5));
        /* momentum and energy: round-off (Lemke) or the PGS tolerance */
        CHECK_NEAR(v0 + v1 + v2, 1.0, 1e-9);
        CHECK_NEAR(t_at(&r, "E", 0.5), 0.5, 1e-9);
        CHECK_NEAR(v0, -1.0 / 3, 1e-9);
        CHECK_NEAR(v1, 2.0 / 3, 1e-9);
        CHECK_NEAR(v2, 2.0 / 3, 1e-9);
        CHECK(r.met.max_complementarity_error < COMPL_TOL);
        t_run_free(&r);
    }
}

/* Balls with friction bouncing on a floor and against each other:
 * deactivation on and off, Lemke and PGS. */
static void s_balls_doc(char *doc, size_t size, int nb)
{
    int len = snprintf(doc, size, "{\"dimension\": 3, \"gravity\": [0, 0, -9.81], \"bodies\": [");
    for (int i = 0; i < nb; i++)
        len += snprintf(doc + len, size - (size_t)len,
                        "%s{\"name\": \"b%d\", \"mass\": 0.1, \"inertia\": [1e-4, 1e-4, 1e-4], \"com\": [%g, 0, %g],"
                        " \"velocity\": [%g, 0, 0]}", i ? ", " : "", i, 0.3 * i, 0.2 + 0.15 * i, i % 2 ? 0.5 : -0.5);
    len += snprintf(doc + len, size - (size_t)len, "], \"shapes\": [");
    for (int i = 0; i < nb; i++)
        len += snprintf(doc + len, size - (size_t)len,
                        "{\"name\": \"s%d\", \"body\": \"b%d\", \"type\": \"sphere\", \"center\": [%g, 0, %g], \"radius\": 0.05}, ",
                        i, i, 0.3 * i, 0.2 + 0.15 * i);
    snprintf(doc + len, size - (size_t)len,
             "{\"name\": \"floor\", \"body\": \"ground\", \"type\": \"plane\", \"point\": [0, 0, 0], \"normal\": [0, 0, 1]}],"
             " \"contacts\": [{\"between\": [\"s*\", \"s*\"], \"law\": \"rigid\", \"restitution\": 0.7, \"friction\": 0.3},"
             "   {\"between\": [\"s*\", \"floor\"], \"law\": \"rigid\", \"restitution\": 0.7, \"friction\": 0.3}],"
             " \"solver\": {\"t_end\": 1, \"step\": 0.001},"
             " \"outputs\": {\"interval\": 0.01, \"channels\": ["
             "   {\"name\": \"z0\", \"quantity\": \"position\", \"body\": \"b0\", \"component\": \"z\"},"
             "   {\"name\": \"x3\", \"quantity\": \"position\", \"body\": \"b3\", \"component\": \"x\"},"
             "   {\"name\": \"z5\", \"quantity\": \"position\", \"body\": \"b5\", \"component\": \"z\"},"
             "   {\"name\": \"wy2\", \"quantity\": \"angular_velocity\", \"body\": \"b2\", \"component\": \"y\"},"
             "   {\"name\": \"E\", \"quantity\": \"energy\"}]}}");
}

static void test_deactivation_and_solvers(void)
{
    static char doc[16384];
    s_balls_doc(doc, sizeof doc, 6);
    const char *ch[] = {"z0", "x3", "z5", "wy2", "E"};
    /* PGS both ways: far pairs keep Lambda = 0 and never change the
     * velocity, and the stopping test does not look at them, so the
     * iterates are the same: equal to round-off */
    const char *on[] = {"solver.contact_deactivation=true", "solver.lcp_solver=pgs", NULL};
    const char *off[] = {"solver.contact_deactivation=false", "solver.lcp_solver=pgs", NULL};
    t_run a, b, c;
    t_run_text(doc, on, &a);
    t_run_text(doc, off, &b);
    CHECK(a.rc == 0 && b.rc == 0);
    double worst = 0;
    for (int k = 0; k < 5; k++) worst = fmax(worst, t_maxdiff(&a, &b, ch[k]));
    printf("  deactivation on/off (pgs): largest output difference %.3g; system %.1f vs %.1f, LCP %.1f vs %.1f; "
           "impacts %ld\n", worst, a.met.mean_system_dimension, b.met.mean_system_dimension, a.met.mean_lcp_dimension,
           b.met.mean_lcp_dimension, a.met.impacts);
    CHECK(worst <= 1e-12);
    CHECK(a.met.impacts == b.met.impacts && a.met.impacts > 6);
    CHECK(a.met.mean_system_dimension < b.met.mean_system_dimension);
    CHECK(b.met.max_lcp_dimension == 3 * 21);
    CHECK(a.met.max_complementarity_error < COMPL_TOL && b.met.max_complementarity_error < COMPL_TOL);
    /* Lemke with deactivation (small LCPs) against PGS: the same motion to
     * the PGS tolerance, amplified by the impacts that follow (1e-7) */
    const char *lem[] = {"solver.contact_deactivation=true", "solver.lcp_solver=lemke", NULL};
    t_run_text(doc, lem, &c);
    CHECK(c.rc == 0);
    double wl = 0;
    for (int k = 0; k < 4; k++) wl = fmax(wl, t_maxdiff(&a, &c, ch[k]));
    printf("  lemke vs pgs: largest difference %.3g (lemke failures %ld, complementarity %.3g)\n", wl, c.met.lcp_failures, c.met.max_complementarity_error);
    CHECK(wl < 1e-7);
    CHECK_STR(c.met.contact_method, "moreau_jean_lemke");
    CHECK(c.met.max_complementarity_error < COMPL_TOL);
    t_run_free(&a);
    t_run_free(&b);
    t_run_free(&c);
}

/* A ball at rest 0.2 mm from a wall, hit by another at 1 m/s (e = 0.5,
 * equal masses): in the first step it takes 0.75 m/s and would travel
 * 0.375 mm, into the wall.  Its boxes for that step were grown by its
 * travel at rest (none), so the wall pair is outside the active set; the
 * step's check (mbs_contact_missed, s_recheck) finds it and solves the step
 * again with it, as the run without deactivation solves it from the start.
 * On and off must agree to the bit (before the check: 0.375 mm of
 * penetration and a different motion with deactivation). */
static void test_deactivation_pushed(void)
{
    const char *doc =
        "{\"dimension\": 3, \"gravity\": [0, 0, 0],"
        " \"bodies\": [{\"name\": \"a\", \"mass\": 0.1, \"inertia\": [1e-4, 1e-4, 1e-4], \"com\": [0, 0, 0],"
        "   \"velocity\": [1, 0, 0]},"
        "  {\"name\": \"b\", \"mass\": 0.1, \"inertia\": [1e-4, 1e-4, 1e-4], \"com\": [0.1, 0, 0]}],"
        " \"shapes\": [{\"name\": \"sa\", \"body\": \"a\", \"type\": \"sphere\", \"center\": [0, 0, 0], \"radius\": 0.05},"
        "   {\"name\": \"sb\", \"body\": \"b\", \"type\": \"sphere\", \"center\": [0.1, 0, 0], \"radius\": 0.05},"
        "   {\"name\": \"wall\", \"body\": \"ground\", \"type\": \"plane\", \"point\": [0.1502, 0, 0],"
        "    \"normal\": [-1, 0, 0]}],"
        " \"contacts\": [{\"between\": [\"s*\", \"s*\"], \"law\": \"rigid\", \"restitution\": 0.5},"
        "   {\"between\": [\"s*\", \"wall\"], \"law\": \"rigid\", \"restitution\": 0.5}],"
        " \"solver\": {\"t_end\": 0.02, \"step\": 0.001, \"lcp_solver\": \"pgs\"},"
        " \"outputs\": {\"interval\": 0.001, \"channels\": ["
        "   {\"name\": \"xa\", \"quantity\": \"position\", \"body\": \"a\", \"component\": \"x\"},"
        "   {\"name\": \"xb\", \"quantity\": \"position\", \"body\": \"b\", \"component\": \"x\"},"
        "   {\"name\": \"vb\", \"quantity\": \"velocity\", \"body\": \"b\", \"component\": \"x\"}]}}";
    const char *on[] = {"solver.contact_deactivation=true", NULL};
    const char *off[] = {"solver.contact_deactivation=false", NULL};
    t_run a, b;
    t_run_text(doc, on, &a);
    t_run_text(doc, off, &b);
    CHECK(a.rc == 0 && b.rc == 0);
    double worst = fmax(t_maxdiff(&a, &b, "xa"), fmax(t_maxdiff(&a, &b, "xb"), t_maxdiff(&a, &b, "vb")));
    printf("  pushed into the wall within a step: on/off difference %.3g, penetration %.3g / %.3g mm\n", worst,
           1e3 * a.met.max_penetration, 1e3 * b.met.max_penetration);
    CHECK(worst == 0);
    CHECK(a.met.max_penetration == b.met.max_penetration);
    /* the wall acts in the step b is hit: its linearised end gap closes,
     * vb = 2 gap / h = 0.4 m/s (0.75 without the wall; a then moves back
     * at 0.1 m/s from the restitution condition vb - va = e 1 m/s) */
    double vb1 = t_at(&a, "vb", 0.001), xa1 = t_at(&a, "xa", 0.001);
    printf("  after the first step: vb %.9g m/s (0.4), xa %.9g m\n", vb1, xa1);
    CHECK(fabs(vb1 - 0.4) < 1e-8);
    CHECK(a.met.impacts == b.met.impacts);
    t_run_free(&a);
    t_run_free(&b);
}

/* The 100-ball box (examples/balls_in_box_100.json) over its whole second,
 * deactivation on and off: the same iterates, so the same outputs to the
 * bit.  Before the check of integrator_mj.c they parted at t = 0.792 s (a
 * ball at rest pushed into a wall outside the active set) and, with only
 * the end-of-step check, at 0.98 s (a wall pair outside the set taking an
 * impulse for a few PGS sweeps of the run without deactivation, 0 at the
 * end).  The run without deactivation is the expensive part (~3 s). */
static void test_deactivation_box100(void)
{
    const char *on[] = {"solver.contact_deactivation=true", NULL};
    const char *off[] = {"solver.contact_deactivation=false", NULL};
    t_run a, b;
    t_run_file("examples/balls_in_box_100.json", on, &a);
    t_run_file("examples/balls_in_box_100.json", off, &b);
    CHECK(a.rc == 0 && b.rc == 0);
    const char *ch[] = {"z0", "x0", "E", "Fz_floor"};
    double worst = 0;
    for (int k = 0; k < 4; k++) worst = fmax(worst, t_maxdiff(&a, &b, ch[k]));
    printf("  100-ball box, 1 s: on/off difference %.3g; LCP %.0f vs %.0f unknowns, impacts %ld / %ld\n", worst,
           a.met.mean_lcp_dimension, b.met.mean_lcp_dimension, a.met.impacts, b.met.impacts);
    CHECK(worst == 0);
    CHECK(a.met.impacts == b.met.impacts && a.met.lcp_failures == b.met.lcp_failures);
    CHECK(a.met.max_penetration == b.met.max_penetration);
    CHECK(a.met.mean_lcp_dimension < 0.1 * b.met.mean_lcp_dimension);
    t_run_free(&a);
    t_run_free(&b);
}

/* A column of 8 balls resting on each other on the floor (touching at t =
 * 0): the impulse at the contact below ball k must carry the weight of the
 * balls above, (8 - k) m g h, which only a converged solution gives; then
 * every ball stays at rest.  The PGS-type Delassus of a column is a 1-D
 * Laplacian (condition ~ n^2), the slow case of plain Gauss-Seidel: it
 * needed 344 sweeps at lcp_tolerance 1e-6 on the first steps; the NNCG
 * accelerated solver must reach 1e-10 within 150 sweeps at every step. */
static void test_column(void)
{
    static char doc[8192];
    int len = snprintf(doc, sizeof doc, "{\"dimension\": 3, \"gravity\": [0, 0, -9.81], \"bodies\": [");
    for (int i = 0; i < 8; i++)
        len += snprintf(doc + len, sizeof doc - (size_t)len,
                        "%s{\"name\": \"b%d\", \"mass\": 0.1, \"inertia\": [1e-4, 1e-4, 1e-4], \"com\": [0, 0, %g]}",
                        i ? ", " : "", i, 0.05 + 0.1 * i);
    len += snprintf(doc + len, sizeof doc - (size_t)len, "], \"shapes\": [");
    for (int i = 0; i < 8; i++)
        len += snprintf(doc + len, sizeof doc - (size_t)len,
                        "{\"name\": \"s%d\", \"body\": \"b%d\", \"type\": \"sphere\", \"center\": [0, 0, %g], \"radius\": 0.05}, ",
                        i, i, 0.05 + 0.1 * i);
    snprintf(doc + len, sizeof doc - (size_t)len,
             "{\"name\": \"floor\", \"body\": \"ground\", \"type\": \"plane\", \"point\": [0, 0, 0], \"normal\": [0, 0, 1]}],"
             " \"contacts\": [{\"between\": [\"s*\", \"s*\"], \"law\": \"rigid\", \"restitution\": 0.5, \"friction\": 0.3},"
             "   {\"between\": [\"s*\", \"floor\"], \"law\": \"rigid\", \"restitution\": 0.5, \"friction\": 0.3}],"
             " \"solver\": {\"t_end\": 0.2, \"step\": 0.002, \"lcp_solver\": \"pgs\", \"lcp_tolerance\": 1e-10,"
             "   \"lcp_max_iterations\": 150},"
             " \"outputs\": {\"interval\": 0.01, \"channels\": ["
             "   {\"name\": \"z0\", \"quantity\": \"position\", \"body\": \"b0\", \"component\": \"z\"},"
             "   {\"name\": \"z7\", \"quantity\": \"position\", \"body\": \"b7\", \"component\": \"z\"},"
             "   {\"name\": \"v0\", \"quantity\": \"velocity\", \"body\": \"b0\", \"component\": \"z\"},"
             "   {\"name\": \"v7\", \"quantity\": \"velocity\", \"body\": \"b7\", \"component\": \"z\"}]}}");
    t_run r;
    t_run_text(doc, NULL, &r);
    CHECK(r.rc == 0);
    double z0 = t_at(&r, "z0", 0.2), z7 = t_at(&r, "z7", 0.2);
    printf("  column of 8: z0 - r = %.3g m, z7 - 7.5 d = %.3g m, v7 = %.3g m/s, %ld of %ld solves at the limit, "
           "complementarity %.3g\n", z0 - 0.05, z7 - 0.75, t_at(&r, "v7", 0.2), r.met.lcp_failures, r.met.lcp_solves,
           r.met.max_complementarity_error);
    /* every step converged within the sweep limit */
    CHECK(r.met.lcp_solves >= 100 && r.met.lcp_failures == 0);
    CHECK(r.met.max_complementarity_error < COMPL_TOL);
    /* at rest: a velocity left by an impulse error of the tolerance (1e-10
     * of the velocity scale g h = 0.02 m/s) per step, 100 steps: < 1e-9 */
    CHECK(fabs(t_at(&r, "v0", 0.2)) < 1e-9 && fabs(t_at(&r, "v7", 0.2)) < 1e-9);
    /* the first step lets each contact close by at most its share of the
     * free fall of the half step (the midpoint sits g h^2 / 4 lower for
     * every ball; the Newton law then holds it): 8 contacts, each
     * <= g h^2 / 2 = 2e-5 m; no drift afterwards (1e-12 m) */
    CHECK(fabs(z7 - 0.75) <= 8 * G * 0.002 * 0.002 / 2);
    CHECK_NEAR(t_at(&r, "z7", 0.1), z7, 1e-12);
    CHECK_NEAR(t_at(&r, "z0", 0.1), z0, 1e-12);
    t_run_free(&r);
}

/* A square pyramid of 14 balls (3 x 3, 2 x 2, 1) at rest in a box whose
 * walls touch the bottom layer; the walls' friction is wall_mu.  With
 * friction on the walls and between the balls the pile is hyperstatic (W
 * singular). */
static void s_pyramid_doc(char *doc, size_t size, double wall_mu)
{
    double r = 0.05, dz = sqrt(0.005); /* layer spacing of touching balls */
    double c[14][3];
    int nb = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) { c[nb][0] = -0.1 + 0.1 * i; c[nb][1] = -0.1 + 0.1 * j; c[nb++][2] = r; }
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) { c[nb][0] = -0.05 + 0.1 * i; c[nb][1] = -0.05 + 0.1 * j; c[nb++][2] = r + dz; }
    c[nb][0] = c[nb][1] = 0;
    c[nb++][2] = r + 2 * dz;
    int len = snprintf(doc, size, "{\"dimension\": 3, \"gravity\": [0, 0, -9.81], \"bodies\": [");
    for (int i = 0; i < nb; i++)
        len += snprintf(doc + len, size - (size_t)len,
                        "%s{\"name\": \"b%d\", \"mass\": 0.1, \"inertia\": [1e-4, 1e-4, 1e-4], \"com\": [%.17g, %.17g, %.17g]}",
                        i ? ", " : "", i, c[i][0], c[i][1], c[i][2]);
    len += snprintf(doc + len, size - (size_t)len, "], \"shapes\": [");
    for (int i = 0; i < nb; i++)
        len += snprintf(doc + len, size - (size_t)len,
                        "{\"name\": \"s%d\", \"body\": \"b%d\", \"type\": \"sphere\", \"center\": [%.17g, %.17g, %.17g], "
                        "\"radius\": 0.05}, ", i, i, c[i][0], c[i][1], c[i][2]);
    len += snprintf(doc + len, size - (size_t)len,
             "{\"name\": \"wf\", \"body\": \"ground\", \"type\": \"plane\", \"point\": [0, 0, 0], \"normal\": [0, 0, 1]},"
             "{\"name\": \"w1\", \"body\": \"ground\", \"type\": \"plane\", \"point\": [-0.15, 0, 0], \"normal\": [1, 0, 0]},"
             "{\"name\": \"w2\", \"body\": \"ground\", \"type\": \"plane\", \"point\": [0.15, 0, 0], \"normal\": [-1, 0, 0]},"
             "{\"name\": \"w3\", \"body\": \"ground\", \"type\": \"plane\", \"point\": [0, -0.15, 0], \"normal\": [0, 1, 0]},"
             "{\"name\": \"w4\", \"body\": \"ground\", \"type\": \"plane\", \"point\": [0, 0.15, 0], \"normal\": [0, -1, 0]}],"
             " \"contacts\": [{\"between\": [\"s*\", \"s*\"], \"law\": \"rigid\", \"restitution\": 0, \"friction\": 0.3},"
             "   {\"between\": [\"s*\", \"wf\"], \"law\": \"rigid\", \"restitution\": 0, \"friction\": 0.3},"
             "   {\"between\": [\"s*\", \"w?\"], \"law\": \"rigid\", \"restitution\": 0, \"friction\": %g}],"
             " \"solver\": {\"t_end\": 1, \"step\": 0.002, \"lcp_solver\": \"pgs\", \"lcp_tolerance\": 1e-6,"
             "   \"lcp_max_iterations\": 500},"
             " \"outputs\": {\"interval\": 0.05, \"channels\": ["
             "   {\"name\": \"z13\", \"quantity\": \"position\", \"body\": \"b13\", \"component\": \"z\"}", wall_mu);
    for (int i = 0; i < 9; i++)
        len += snprintf(doc + len, size - (size_t)len,
                        ", {\"name\": \"v%d\", \"quantity\": \"velocity\", \"body\": \"b%d\", \"component\": \"z\"}"
                        ", {\"name\": \"z%d\", \"quantity\": \"position\", \"body\": \"b%d\", \"component\": \"z\"}", i, i, i, i);
    snprintf(doc + len, size - (size_t)len, "]}}");
}

static void test_pyramid(void)
{
    static char doc[16384];
    const double h = 0.002, eps = 1e-2;
    /* (1) friction on the walls too: plain PGS (NNCG) stalls on the
     * hyperstatic pile (59 of 500 steps reached 200 sweeps when measured);
     * with the regularisation eps = 1e-2 every step converges within the
     * limit.  The unregularised complementarity is then violated by the
     * rows' velocity eps W_ii Lambda_i: relative to the velocity scale
     * (here the step's largest velocity, about the g h = 0.02 m/s the free
     * step adds) at most eps (1 + e) W_ii Lambda_i / v_scale with W_ii
     * Lambda_i <= the 2 weights' g h the centre ball carries: < 3 eps. */
    s_pyramid_doc(doc, sizeof doc, 0.3);
    const char *plain[] = {"solver.lcp_max_iterations=200", NULL};
    const char *reg[] = {"solver.lcp_regularization=1e-2", NULL};
    t_run a, b;
    t_run_text(doc, plain, &a);
    t_run_text(doc, reg, &b);
    CHECK(a.rc == 0 && b.rc == 0);
    printf("  pyramid of 14, walls with friction: plain PGS %ld of %ld steps at the limit (200 sweeps); "
           "eps = %g: %ld of %ld (500 sweeps), complementarity %.3g\n", a.met.lcp_failures, a.met.lcp_solves, eps,
           b.met.lcp_failures, b.met.lcp_solves, b.met.max_complementarity_error);
    CHECK(a.met.lcp_failures > 20);
    CHECK(b.met.lcp_solves == 500 && b.met.lcp_failures == 0);
    CHECK(b.met.max_complementarity_error < 3 * eps);
    t_run_free(&a);
    t_run_free(&b);
    /* (2) frictionless walls: the only vertical external impulses are the
     * floor's.  In the steady state (every velocity zero) they carry the
     * weight, sum Lambda_floor = 14 m g h, and each floor row (a persistent
     * contact, penetration g_i < 0) holds
     *     G_n v + beta g_i / h + eps W_nn Lambda_n = 0,   G_n v = 0,
     * with W_nn = 1/m (a normal through the centre moves the ball only) and
     * beta = 0.2 (S_REG_BETA): the penetrations sum exactly to
     * -14 eps g h^2 / beta.  The bottom balls' heights are r + g_i at the
     * end of a step at rest.  Checked to 1e-4 relative (the PGS stops at a
     * velocity change of lcp_tolerance = 1e-6 of the velocity scale g h per
     * sweep, i.e. 1e-6 h g h per step against eps g h^2 / beta ~ 2e-6 m per
     * ball).  Without regularisation the same pile does not move beyond the
     * tolerance's velocity (1e-6 of g h) over 1 s: 2e-8 m. */
    s_pyramid_doc(doc, sizeof doc, 0.0);
    t_run c, e0;
    t_run_text(doc, reg, &c);
    t_run_text(doc, NULL, &e0);
    CHECK(c.rc == 0 && e0.rc == 0);
    double vsum = 0, pen = 0, beta = 0.2;
    for (int i = 0; i < 9; i++) {
        char ch[16];
        snprintf(ch, sizeof ch, "v%d", i);
        vsum += t_at(&c, ch, 1.0);
        snprintf(ch, sizeof ch, "z%d", i);
        pen += t_at(&c, ch, 1.0) - 0.05;
    }
    double want = -14 * eps * G * h * h / beta, drift = t_at(&c, "z13", 1.0) - t_at(&c, "z13", 0.0);
    printf("  pyramid, frictionless walls, eps = %g: floor penetrations sum %.9g m (predicted %.9g), bottom velocities "
           "sum %.3g m/s, top ball moved %.3g m in 1 s; eps = 0: %.3g m, %ld failures\n", eps, pen, want, vsum, drift,
           t_at(&e0, "z13", 1.0) - t_at(&e0, "z13", 0.0), e0.met.lcp_failures);
    CHECK(c.met.lcp_failures == 0 && e0.met.lcp_failures == 0);
    CHECK_NEAR(pen, want, 1e-4 * fabs(want));
    /* settled: no sinking (without the penetration feedback the bottom balls
     * sank at velocities summing to -14 eps g h = -2.7e-3 m/s) */
    CHECK(fabs(vsum) < 1e-6 * 14 * eps * G * h);
    /* the top ball rests on three levels of such penetrations, each below
     * the floor's total */
    CHECK(drift < 0 && -drift < 3 * fabs(want));
    CHECK(fabs(t_at(&e0, "z13", 1.0) - t_at(&e0, "z13", 0.0)) < 1e-6 * G * h * 1.0);
    t_run_free(&c);
    t_run_free(&e0);
}

/* The format: compliant fields are errors with the rigid law, smooth
 * integrators are refused, moreau_jean is the default. */
static void test_format(void)
{
    mbs_errlist err;
    char doc[4096];
    snprintf(doc, sizeof doc, "%s", BALL);
    mbs_spec *s = mech_parse(doc, strlen(doc), NULL, 0, &err);
    CHECK(s && s->solver.integrator == MBS_INT_MOREAU_JEAN && s->contacts[0].law == MBS_LAW_RIGID);
    mbs_spec_free(&s);
    mech_override bdf = {"solver.integrator", "bdf"};
    memset(&err, 0, sizeof err);
    s = mech_parse(doc, strlen(doc), &bdf, 1, &err);
    CHECK(!s && err.n >= 1);
    CHECK(err.n >= 1 && strstr(err.e[0].message, "moreau_jean") != NULL);
    mbs_spec_free(&s);
    /* stiffness with the rigid law */
    char *p = strstr(doc, "\"law\": \"rigid\"");
    CHECK(p != NULL);
    if (p) {
        char doc2[4200];
        snprintf(doc2, sizeof doc2, "%.*s\"stiffness\": 1e6, %s", (int)(p - doc), doc, p);
        memset(&err, 0, sizeof err);
        s = mech_parse(doc2, strlen(doc2), NULL, 0, &err);
        CHECK(!s && err.n >= 1 && strcmp(err.e[0].pointer, "/contacts/0/stiffness") == 0);
        mbs_spec_free(&s);
    }
}

int main(void)
{
    test_format();
    test_bouncing();
    test_incline();
    test_cradle();
    test_deactivation_and_solvers();
    test_deactivation_pushed();
    test_deactivation_box100();
    test_column();
    test_pyramid();
    return CHECK_SUMMARY("rigid_test");
}
