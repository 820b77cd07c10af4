/*
 * solver_test.c - the solver against analytic solutions.
 *
 * Each check states its tolerance and why it is defensible: either the
 * integrator's error estimate (order p, step h: error ~ C h^p, measured by a
 * refinement study) or round-off.
 */
#include "check.h"
#include "testutil.h"
#include "mbs/model/data.h"
#include "mbs/output/output.h"

#include <math.h>

static const double G = 9.81;

/* ---- free fall: every integrator is exact on a quadratic ------------------------ */

static const char *FREE_FALL =
    "{\"dimension\": 2, \"gravity\": [0, -9.81],"
    " \"bodies\": [{\"name\": \"b\", \"mass\": 2, \"inertia\": 0.1, \"com\": [0, 10], \"velocity\": [1, 0],"
    "   \"angular_velocity\": 0.5}],"
    " \"solver\": {\"t_end\": 1},"
    " \"outputs\": {\"interval\": 0.25, \"channels\": ["
    "   {\"name\": \"x\", \"quantity\": \"position\", \"body\": \"b\", \"component\": \"x\"},"
    "   {\"name\": \"y\", \"quantity\": \"position\", \"body\": \"b\", \"component\": \"y\"},"
    "   {\"name\": \"ay\", \"quantity\": \"acceleration\", \"body\": \"b\", \"component\": \"y\"},"
    "   {\"name\": \"th\", \"quantity\": \"angle\", \"body\": \"b\"},"
    "   {\"name\": \"w\", \"quantity\": \"angular_velocity\", \"body\": \"b\"}]}}";

static void test_free_fall(void)
{
    const char *integ[] = {"solver.integrator=trapezoidal_al", "solver.integrator=bdf", "solver.integrator=dopri5"};
    /* the translation is quadratic: trapezoidal and RK are exact, BDF is
     * exact from order 2 on, its order-1 start leaves an error of the size
     * of the local tolerance; the rotation (circular motion of the NCS
     * vector) is integrated with the tolerance: 1e-10 -> 1e-8 margins */
    const double ytol[] = {1e-9, 1e-5, 1e-9};
    for (int i = 0; i < 3; i++) {
        const char *sets[] = {integ[i], "solver.tolerance=1e-10", "solver.abs_tolerance=1e-10", NULL};
        t_run r;
        t_run_text(FREE_FALL, sets, &r);
        CHECK(r.rc == 0);
        CHECK(r.res.nsample == 5);
        CHECK_NEAR(t_at(&r, "y", 1.0), 10 - 0.5 * G, ytol[i]);
        CHECK_NEAR(t_at(&r, "x", 1.0), 1.0, ytol[i]);
        CHECK_NEAR(t_at(&r, "ay", 0.5), -G, 1e-5);
        CHECK_NEAR(t_at(&r, "th", 1.0), 0.5, 1e-7);
        CHECK_NEAR(t_at(&r, "w", 0.75), 0.5, 1e-7);
        t_run_free(&r);
    }
}

/* ---- spring-mass-damper: frequency and decay -------------------------------------- */

static const char *SMD =
    "{\"dimension\": 2, \"parameters\": {\"k\": 100, \"c\": 2},"
    " \"bodies\": [{\"name\": \"m\", \"mass\": 1, \"inertia\": 0.01, \"com\": [0.1, 0]}],"
    " \"joints\": [{\"name\": \"slide\", \"type\": \"prismatic\", \"bodies\": [\"ground\", \"m\"], \"at\": [0.1, 0],"
    "   \"axis\": [1, 0]}],"
    " \"forces\": [{\"type\": \"spring_damper\", \"name\": \"s\", \"bodies\": [\"ground\", \"m\"],"
    "   \"points\": [[-1, 0], [0.1, 0]], \"stiffness\": \"$k\", \"damping\": \"$c\", \"free_length\": 1}],"
    " \"solver\": {\"integrator\": \"trapezoidal_al\", \"t_end\": 3, \"step\": 0.0005, \"tolerance\": 1e-10},"
    " \"outputs\": {\"interval\": 0.01, \"channels\": ["
    "   {\"name\": \"x\", \"quantity\": \"position\", \"body\": \"m\", \"component\": \"x\"},"
    "   {\"name\": \"F\", \"quantity\": \"element_force\", \"element\": \"s\"},"
    "   {\"name\": \"s\", \"quantity\": \"joint_coordinate\", \"joint\": \"slide\"}]}}";

static double smd_exact(double t)
{
    /* x'' + 2 x' + 100 x = 0, x(0) = 0.1, x'(0) = 0: underdamped */
    double z = 1.0, wd = sqrt(100.0 - 1.0);
    return 0.1 * exp(-z * t) * (cos(wd * t) + z / wd * sin(wd * t));
}

static void test_spring_mass_damper(void)
{
    const char *integ[] = {"solver.integrator=trapezoidal_al", "solver.integrator=bdf", "solver.integrator=dopri5"};
    const char *tols[] = {"solver.tolerance=1e-10", "solver.tolerance=1e-9", "solver.tolerance=1e-10"};
    for (int i = 0; i < 3; i++) {
        const char *sets[] = {integ[i], tols[i], NULL};
        t_run r;
        t_run_text(SMD, sets, &r);
        CHECK(r.rc == 0);
        /* trapezoidal phase error ~ w^3 h^2 t / 12 = 1e3 * 2.5e-7 * 3 / 12 ~ 6e-5
         * relative, on a 0.1 m amplitude: 2e-5 m; BDF/DOPRI at 1e-9..1e-10 */
        double tol = i == 0 ? 2e-5 : 2e-5;
        for (double t = 0.5; t <= 3.0; t += 0.5) CHECK_NEAR(t_at(&r, "x", t), smd_exact(t), tol);
        /* spring force = -k x - c xdot at the start: -10 N */
        CHECK_NEAR(t_at(&r, "F", 0), 10.0, 1e-9);
        CHECK_NEAR(t_at(&r, "s", 3.0), smd_exact(3.0) - 0.1, tol);
        t_run_free(&r);
    }
}

/* ---- pendulum: small-angle period, energy, second-order convergence -------------------- */

static const char *PENDULUM =
    "{\"dimension\": 2, \"gravity\": [0, -9.81], \"parameters\": {\"th0\": 0.5},"
    " \"bodies\": [{\"name\": \"bob\", \"mass\": 1, \"inertia\": 0, \"com\": [\"=sin($th0)\", \"=-cos($th0)\"]}],"
    " \"joints\": [{\"name\": \"pin\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"bob\"], \"at\": [0, 0]}],"
    " \"solver\": {\"integrator\": \"trapezoidal_al\", \"t_end\": 2, \"step\": 0.002, \"tolerance\": 1e-12},"
    " \"outputs\": {\"interval\": 0.001, \"channels\": ["
    "   {\"name\": \"th\", \"quantity\": \"joint_coordinate\", \"joint\": \"pin\"},"
    "   {\"name\": \"E\", \"quantity\": \"energy\"},"
    "   {\"name\": \"Fy\", \"quantity\": \"reaction_force\", \"joint\": \"pin\", \"component\": \"y\"},"
    "   {\"name\": \"cv\", \"quantity\": \"constraint_violation\"}]}}";

/* First downward zero crossing of th(t) + th0 (th is relative to the start). */
static double first_crossing(const t_run *r, double th0)
{
    int c = t_col(r, "th"), w = 1 + r->res.nchannel;
    for (int i = 1; i < r->res.nsample; i++) {
        double a = r->res.rows[(size_t)(i - 1) * w + c] + th0, b = r->res.rows[(size_t)i * w + c] + th0;
        if (a > 0 && b <= 0) {
            double ta = r->res.rows[(size_t)(i - 1) * w], tb = r->res.rows[(size_t)i * w];
            return ta + (tb - ta) * a / (a - b);
        }
    }
    return NAN;
}

static void test_pendulum(void)
{
    /* small angle: quarter period ~ (pi/2) sqrt(L/g) (1 + th0^2/16) */
    const char *sets[] = {"th0=0.01", NULL};
    t_run r;
    t_run_text(PENDULUM, sets, &r);
    CHECK(r.rc == 0);
    double quarter = M_PI / 2 * sqrt(1 / G) * (1 + 0.01 * 0.01 / 16);
    /* trapezoidal period error w^2 h^2 / 12 relative = 8e-6 * 0.5 s; sampling
     * interpolation 1e-6 s */
    CHECK_NEAR(first_crossing(&r, 0.01), quarter, 2e-5);
    t_run_free(&r);

    /* 0.5 rad: energy conservation and tension = m g cos th at rest */
    t_run_text(PENDULUM, NULL, &r);
    CHECK(r.rc == 0);
    double E0 = t_at(&r, "E", 0);
    CHECK_NEAR(E0, -G * cos(0.5), 1e-12);
    /* trapezoidal rule on a conservative system: bounded O(h^2) energy error */
    for (double t = 0.1; t <= 2.0; t += 0.1) CHECK_NEAR(t_at(&r, "E", t), E0, 1e-4);
    /* reaction on the bob at rest: T = m g cos(th), vertical part T cos(th) */
    CHECK_NEAR(t_at(&r, "Fy", 0), G * cos(0.5) * cos(0.5), 1e-8);
    CHECK(r.met.max_constraint_violation < 1e-10);
    CHECK(r.met.energy_drift < 1e-4);
    CHECK(r.met.singular_steps == 0); /* a pendulum is never singular */
    t_run_free(&r);

    /* released from rest at the pivot's height, E(0) = 0: the drift is
     * measured against the run's largest kinetic energy (it was 1, the
     * ratio of the first step's error to its tiny kinetic energy), and it
     * falls with the tolerance */
    double drift[2];
    for (int k = 0; k < 2; k++) {
        const char *a01[] = {"solver.t_end=10", k ? "solver.tolerance=1e-9" : "solver.tolerance=1e-6", NULL};
        t_run_file("examples/iftomm_a01_pendulum.json", a01, &r);
        CHECK(r.rc == 0);
        CHECK(r.met.conservative);
        drift[k] = r.met.energy_drift;
        t_run_free(&r);
    }
    printf("  A01 released at E(0) = 0, 10 s: energy drift %.3g (tol 1e-6), %.3g (tol 1e-9)\n", drift[0], drift[1]);
    CHECK(drift[0] > 0 && drift[0] < 1e-4);
    CHECK(drift[1] < drift[0] / 30);

    /* the N-four-bar passes its singular positions: counted as warnings */
    const char *nfb[] = {"solver.t_end=2", NULL};
    t_run_file("examples/iftomm_a02_four_bar_n2.json", nfb, &r);
    CHECK(r.rc == 0);
    CHECK(r.met.singular_steps > 0);
    t_run_free(&r);
    /* the BDF on it: its passages are met by the floor rule (singular_steps)
     * apart from the steps whose multipliers alone were slow */
    const char *nfb_bdf[] = {"solver.t_end=2", "solver.integrator=bdf", NULL};
    t_run_file("examples/iftomm_a02_four_bar_n2.json", nfb_bdf, &r);
    CHECK(r.rc == 0);
    CHECK(r.met.singular_steps > 0);
    t_run_free(&r);
    /* the roller chain drive is a regular mechanism: with the rank margin of
     * rows scaled by powers of two (analysis.h) the singular-position rules
     * leave it alone (the unscaled margin, 0.0037, put 7 % of its steps under
     * them), and the steps whose multipliers alone were slow are counted
     * apart (they were singular_steps) */
    const char *chain[] = {"solver.t_end=0.005", NULL};
    t_run_file("examples/roller_chain_drive.json", chain, &r);
    printf("  roller chain drive, 0.005 s: %ld steps, %ld singular, %ld with slow multipliers\n", r.met.steps,
           r.met.singular_steps, r.met.slow_multiplier_steps);
    CHECK(r.rc == 0);
    CHECK(r.met.singular_steps * 100 <= r.met.steps);
    CHECK(r.met.singular_steps + r.met.slow_multiplier_steps <= r.met.steps + r.met.rejected_steps);
    t_run_free(&r);

    /* second-order convergence of the trapezoidal rule: error(h)/error(h/2) ~ 4 */
    const char *ref_sets[] = {"solver.integrator=dopri5", "solver.tolerance=1e-13", "solver.abs_tolerance=1e-14", NULL};
    t_run ref;
    t_run_text(PENDULUM, ref_sets, &ref);
    double th_ref = t_at(&ref, "th", 2.0);
    double err[3];
    const char *steps[] = {"solver.step=0.004", "solver.step=0.002", "solver.step=0.001"};
    for (int i = 0; i < 3; i++) {
        const char *s2[] = {steps[i], NULL};
        t_run_text(PENDULUM, s2, &r);
        err[i] = fabs(t_at(&r, "th", 2.0) - th_ref);
        t_run_free(&r);
    }
    double p1 = log2(err[0] / err[1]), p2 = log2(err[1] / err[2]);
    printf("  trapezoidal AL convergence order: %.3f, %.3f (errors %.3g %.3g %.3g)\n", p1, p2, err[0], err[1], err[2]);
    CHECK(p1 > 1.8 && p1 < 2.2);
    CHECK(p2 > 1.8 && p2 < 2.2);
    t_run_free(&ref);
}

/* ---- four-bar: integrators agree, elimination counts --------------------------------------- */

static void test_four_bar(void)
{
    const char *file = "examples/four_bar.json";
    const char *al[] = {"solver.t_end=2", "solver.step=0.0005", NULL};
    const char *bdf[] = {"solver.t_end=2", "solver.integrator=bdf", "solver.tolerance=1e-11",
                         "solver.abs_tolerance=1e-11", NULL};
    const char *rk[] = {"solver.t_end=2", "solver.integrator=dopri5", "solver.tolerance=1e-10", NULL};
    t_run a, b, c;
    t_run_file(file, al, &a);
    t_run_file(file, bdf, &b);
    t_run_file(file, rk, &c);
    CHECK(a.rc == 0 && b.rc == 0 && c.rc == 0);
    /* natural coordinates of the four-bar: 3 bodies x 4 = 12 coordinates;
     * the ground pins fix 4 (NCCC), the moving pins merge 4 (NCEC): 4 left,
     * 3 distance constraints, 1 dof */
    CHECK(a.rep.coords_before == 12);
    CHECK(a.rep.coords_after == 4);
    CHECK(a.rep.constraints_after == 3);
    CHECK(a.rep.dof == 1);
    for (int k = 0; k < a.spec->nchannel; k++) {
        const char *ch = a.spec->channels[k].name;
        double dab = t_maxdiff(&a, &b, ch), dac = t_maxdiff(&a, &c, ch);
        double scale = 1;
        for (int i = 0; i < a.res.nsample; i++)
            scale = fmax(scale, fabs(a.res.rows[(size_t)i * (1 + a.res.nchannel) + k + 1]));
        /* the trapezoidal error at h = 5e-4 over 2 s is 1e-4 rad in the crank
         * angle (measured against h = 6.25e-5): 3e-4 relative for motion
         * channels; reactions come from accelerations, which carry that
         * error times omega^2: 1e-3 relative */
        double rel = a.spec->channels[k].quantity == MBS_Q_REACTION_FORCE ? 1e-3 : 3e-4;
        if (!(dab <= rel * scale && dac <= rel * scale))
            printf("  channel %s: |AL-BDF| %.3g, |AL-RK| %.3g (scale %.3g)\n", ch, dab, dac, scale);
        CHECK(dab <= rel * scale);
        CHECK(dac <= rel * scale);
    }
    t_run_free(&a); t_run_free(&b); t_run_free(&c);
}

/* ---- Bricard: one redundant constraint, named joints, motion proceeds ------------------------ */

static void test_bricard(void)
{
    const char *sets[] = {"solver.t_end=1", NULL};
    t_run r;
    t_run_file("examples/iftomm_a04_bricard.json", sets, &r);
    CHECK(r.rc == 0);
    CHECK(r.rep.redundant == 1);
    CHECK(r.rep.dof == 1);
    CHECK(strlen(r.rep.redundant_joints) > 0);
    printf("  Bricard: %d redundant, joints involved: %s\n", r.rep.redundant, r.rep.redundant_joints);
    /* energy conserved although the equations were redundant */
    CHECK(r.met.energy_drift < 1e-5);
    t_run_free(&r);
    /* dopri5 integrates with an independent set chosen again at every step
     * (integrator_rk.c): through theta1 = pi/2, where the set chosen at
     * assembly degenerates (the reference BLAS's choice does, OpenBLAS's
     * does not), P3 stays within 4e-9 m of the high-accuracy reference at
     * 5 and 10 s whichever BLAS runs (measured 1.1e-9 m with both; with
     * every equation kept in the AL solves, 6.9e-9 and 1.3e-8 m: their
     * disagreeing drift corrections) */
    const char *d5[] = {"solver.t_end=10", "solver.integrator=dopri5", "solver.tolerance=1e-6", NULL};
    t_run_file("examples/iftomm_a04_bricard.json", d5, &r);
    CHECK(r.rc == 0);
    static const double ref[2][4] = {{5.0, 0.999932742309037, -0.999999997738352, -6.72554291630494e-05},
                                     {10.0, 0.999730987319579, -0.99999996382582, -0.000268976496508261}};
    double e = 0;
    for (int k = 0; k < 2; k++)
        e = fmax(e, fmax(fabs(t_at(&r, "xP3", ref[k][0]) - ref[k][1]),
                         fmax(fabs(t_at(&r, "yP3", ref[k][0]) - ref[k][2]), fabs(t_at(&r, "zP3", ref[k][0]) - ref[k][3]))));
    printf("  Bricard dopri5 at 1e-6: P3 at 5 and 10 s within %.2e m of the reference, %ld re-selections\n", e,
           r.met.reselections);
    CHECK(e < 4e-9);
    t_run_free(&r);
}

/* ---- flyball governor (IFToMM A05): no published values; invariants ------------ */

static void test_flyball(void)
{
    const char *f = "examples/iftomm_a05_flyball.json";
    /* without dampers the governor is conservative: energy through the stiff
     * springs (8e5 N/m) is kept by both implicit integrators */
    const char *bdf0[] = {"solver.t_end=2", "c=0", "solver.tolerance=1e-9", "solver.abs_tolerance=1e-10", NULL};
    const char *al0[] = {"solver.t_end=2", "c=0", "solver.integrator=trapezoidal_al", "solver.step=0.0002", NULL};
    t_run a, b;
    t_run_file(f, bdf0, &a);
    t_run_file(f, al0, &b);
    CHECK(a.rc == 0 && b.rc == 0);
    CHECK(a.met.energy_drift < 1e-6);
    CHECK(b.met.energy_drift < 1e-6);
    t_run_free(&a);
    t_run_free(&b);
    /* with dampers: BDF (1e-9) and AL (h = 2e-4) agree on the slider within
     * 1e-4 m (the AL phase error of the 400 rad/s spring mode; measured 5e-5) */
    const char *bdf[] = {"solver.t_end=2", "solver.tolerance=1e-9", "solver.abs_tolerance=1e-10", NULL};
    const char *al[] = {"solver.t_end=2", "solver.integrator=trapezoidal_al", "solver.step=0.0002", NULL};
    t_run_file(f, bdf, &a);
    t_run_file(f, al, &b);
    CHECK(a.rc == 0 && b.rc == 0);
    CHECK(t_maxdiff(&a, &b, "s") < 1e-4);
    /* the governor lifts the slider as it spins: s grows from 0.5 m */
    CHECK(t_at(&a, "s", 2.0) > 0.5 + 1e-3);
    t_run_free(&a);
    t_run_free(&b);
}

/* ---- models that cannot work fail clearly ---------------------------------------------------- */

static void test_impossible(void)
{
    /* two rods whose pins cannot meet: 1 m apart with 0.2 m total reach */
    const char *bad =
        "{\"dimension\": 2, \"bodies\": ["
        "  {\"name\": \"a\", \"mass\": 1, \"inertia\": 0.1, \"com\": [0.05, 0]},"
        "  {\"name\": \"b\", \"mass\": 1, \"inertia\": 0.1, \"com\": [0.95, 0]}],"
        " \"joints\": ["
        "  {\"name\": \"A\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"a\"], \"at\": [0, 0]},"
        "  {\"name\": \"B\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"b\"], \"at\": [1, 0]},"
        "  {\"name\": \"C\", \"type\": \"distance\", \"bodies\": [\"a\", \"b\"], \"points\": [[0.1, 0], [0.9, 0]],"
        "   \"length\": 0.05}],"
        " \"solver\": {\"t_end\": 1}}";
    t_run r;
    t_run_text(bad, NULL, &r);
    CHECK(r.rc == MBS_EASSEMBLY);
    CHECK(r.err.n > 0 && strstr(r.err.e[0].message, "cannot assemble") != NULL);
    CHECK(r.err.n > 0 && strstr(r.err.e[0].message, "joint 'C'") != NULL);
    t_run_free(&r);

    /* kinematic analysis of a mechanism with a free dof */
    const char *sets[] = {"solver.analysis=kinematics", "solver.t_end=0.1", NULL};
    t_run_file("examples/four_bar.json", sets, &r);
    CHECK(r.rc == MBS_EINVAL);
    CHECK(r.err.n > 0 && strstr(r.err.e[0].message, "degree") != NULL);
    t_run_free(&r);

    /* two drivers of the four-bar's one freedom that disagree (A at 1
     * rad/s, D at 0.5): the kinematic analysis keeps every equation and
     * finds no position, naming the drivers (it used to switch D's off at
     * assembly and follow A alone, silently) */
    char fb2[8192];
    if (t_splice_file("examples/four_bar.json", "\"forces\": []", "\"drivers\": ["
                      "{\"joint\": \"A\", \"motion\": {\"kind\": \"constant_speed\", \"speed\": 1}}, "
                      "{\"joint\": \"D\", \"motion\": {\"kind\": \"constant_speed\", \"speed\": 0.5}}], "
                      "\"forces\": []", fb2, sizeof fb2) == 0) {
        t_run_text(fb2, sets, &r);
        printf("  four-bar with two disagreeing drivers, kinematics: %s\n", r.err.n ? r.err.e[0].message : "ran");
        CHECK(r.rc == MBS_EDIVERGE && r.err.n > 0 && strstr(r.err.e[0].message, "contradict") != NULL &&
              strstr(r.err.e[0].message, "A (driver)") != NULL && strstr(r.err.e[0].message, "D (driver)") != NULL);
        t_run_free(&r);
    }
}

/* ---- kinematics and statics ------------------------------------------------------------------- */

static void test_kinematics_statics(void)
{
    /* the driven slider-crank, kinematically: same motion as dynamically */
    const char *kin[] = {"solver.analysis=kinematics", "solver.t_end=0.5", NULL};
    const char *dyn[] = {"solver.t_end=0.5", NULL};
    t_run a, b;
    t_run_file("examples/slider_crank.json", kin, &a);
    t_run_file("examples/slider_crank.json", dyn, &b);
    CHECK(a.rc == 0 && b.rc == 0);
    CHECK(t_maxdiff(&a, &b, "x_slider") < 1e-8);
    t_run_free(&a); t_run_free(&b);

    /* statics of the spring-mass on an incline: k x = m g sin(30 deg) */
    const char *inc =
        "{\"dimension\": 2, \"gravity\": [0, -9.81],"
        " \"bodies\": [{\"name\": \"m\", \"mass\": 2, \"inertia\": 0.01, \"com\": [1, 0]}],"
        " \"joints\": [{\"name\": \"s\", \"type\": \"prismatic\", \"bodies\": [\"ground\", \"m\"], \"at\": [1, 0],"
        "   \"axis\": [\"=cos(pi/6)\", \"=-sin(pi/6)\"]}],"
        " \"forces\": [{\"type\": \"spring_damper\", \"bodies\": [\"ground\", \"m\"], \"points\": [[0, 0], [1, 0]],"
        "   \"stiffness\": 500, \"free_length\": 1}],"
        " \"solver\": {\"t_end\": 1, \"analysis\": \"statics\"},"
        " \"outputs\": {\"channels\": [{\"name\": \"d\", \"quantity\": \"joint_coordinate\", \"joint\": \"s\"}]}}";
    t_run r;
    t_run_text(inc, NULL, &r);
    CHECK(r.rc == 0);
    /* the spring is along the x axis, not the incline: solve the 1-D balance
     * numerically: k (L(d) - 1) dL/dd = m g sin30, L(d) = |(1 + d c, -d s)| */
    double c = cos(M_PI / 6), s = sin(M_PI / 6), dd = 0;
    for (int it = 0; it < 100; it++) {
        double L = hypot(1 + dd * c, dd * s), dL = ((1 + dd * c) * c + dd * s * s) / L;
        double f = 500 * (L - 1) * dL - 2 * G * s;
        double h = 1e-7, L2 = hypot(1 + (dd + h) * c, (dd + h) * s);
        double dL2 = ((1 + (dd + h) * c) * c + (dd + h) * s * s) / L2;
        double f2 = 500 * (L2 - 1) * dL2 - 2 * G * s;
        dd -= f * h / (f2 - f);
    }
    CHECK_NEAR(t_at(&r, "d", 0), dd, 1e-8);
    t_run_free(&r);

    /* statics from a position without stiffness: the double pendulum lies
     * horizontal, where gravity's moments are stationary and the tangent
     * is singular (it failed there); the continuation finds the hanging
     * position (stable), not the upright one */
    const char *st[] = {"solver.analysis=statics", NULL};
    t_run_file("examples/double_pendulum.json", st, &r);
    CHECK(r.rc == 0);
    printf("  double pendulum statics from horizontal: tip (%.3g, %.12g), phi1 %.12g, phi2 %.3g, %ld iterations\n",
           t_at(&r, "x_tip", 0), t_at(&r, "y_tip", 0), t_at(&r, "phi1", 0), t_at(&r, "phi2", 0),
           r.met.newton_iterations);
    CHECK_NEAR(t_at(&r, "x_tip", 0), 0, 1e-9);
    CHECK_NEAR(t_at(&r, "y_tip", 0), -2, 1e-9);
    CHECK_NEAR(t_at(&r, "phi1", 0), -M_PI / 2, 1e-9);
    CHECK_NEAR(t_at(&r, "phi2", 0), 0, 1e-9);
    t_run_free(&r);

    /* a ball 1 m above the floor comes to rest on it, with contact
     * deactivation on (the default: its active set at t = 0 holds no pair):
     * Hunt-Crossley k d^1.5 = m g, d = (m g / k)^(2/3) = 2.13e-5 m */
    t_run_file("examples/bouncing_ball.json", st, &r);
    CHECK(r.rc == 0);
    double depth = pow(0.1 * G / 1e7, 2.0 / 3.0);
    printf("  ball statics: z %.12g (closed form %.12g), N %.12g\n", t_at(&r, "z", 0), 0.05 - depth, t_at(&r, "N", 0));
    CHECK_NEAR(t_at(&r, "z", 0), 0.05 - depth, 1e-12);
    CHECK_NEAR(t_at(&r, "N", 0), 0.1 * G, 1e-9);
    t_run_free(&r);

    /* rigid contacts are refused by statics (they were ignored: the rigid
     * cam follower's spring carried the weight through the cam) */
    t_run_file("examples/cam_follower_rigid.json", st, &r);
    CHECK(r.rc != 0 && r.err.n > 0 && strstr(r.err.e[0].message, "compliant contacts only"));
    t_run_free(&r);
}

/* ---- drivers that contradict each other in dynamics ------------------------------------------ */

/* The BDF through contact onsets (Hunt-Crossley bouncing ball, 3 s, L =
 * 1.05 m): the height at every sample within the accuracy contract's 100
 * tol L of natural DOPRI5 at 1e-12 (itself within 1e-10 of the scale of
 * relative-coordinate DOPRI5 at 1e-11), and 10x tighter tolerance at least
 * 3x closer, in both formulations.  When two failures in a row lowered the
 * order one step at a time to 1 whatever the estimates said, every onset
 * ended at order 1 and the error stopped falling with the tolerance: z 1.4e-7,
 * 5.3e-8 m at 1e-9, 1e-10 (100 tol L: 1.05e-7, 1.05e-8), vz 1.6e-5 of its scale
 * even at 1e-12. */
static void test_bdf_contact_onsets(void)
{
    const char *ref_sets[] = {"solver.integrator=dopri5", "solver.tolerance=1e-12", NULL};
    t_run ref;
    if (t_run_file("examples/bouncing_ball.json", ref_sets, &ref) != 0) return;
    CHECK(ref.rc == 0);
    const double L = 1.05;
    for (int rel = 0; rel < 2 && ref.rc == 0; rel++) {
        double err[2];
        for (int k = 0; k < 2; k++) {
            char tol[64];
            snprintf(tol, sizeof tol, "solver.tolerance=%g", k ? 1e-10 : 1e-9);
            const char *sets[] = {"solver.integrator=bdf", tol,
                                  rel ? "solver.formulation=relative" : "solver.formulation=natural", NULL};
            t_run r;
            if (t_run_file("examples/bouncing_ball.json", sets, &r) != 0) return;
            CHECK(r.rc == 0);
            err[k] = t_maxdiff(&r, &ref, "z");
            printf("  bouncing ball, %s bdf at %s: z within %.2e m of DOPRI5 at 1e-12 (%.1f tol L), vz %.2e m/s; "
                   "%ld steps, %ld rejected\n", rel ? "relative" : "natural", tol + 17, err[k],
                   err[k] / ((k ? 1e-10 : 1e-9) * L), t_maxdiff(&r, &ref, "vz"), r.met.steps, r.met.rejected_steps);
            CHECK(err[k] <= 100 * (k ? 1e-10 : 1e-9) * L);
            t_run_free(&r);
        }
        CHECK(err[1] < err[0] / 3);
    }
    t_run_free(&ref);
}

/* The slider-crank driven at its crank (2 pi rad/s) and, a second time, at
 * its guide: the two drivers make one equation dependent on the others,
 * which the integrators drop (natural coordinates) or spread a
 * contradiction over (relative).  Driven along the exact slider position
 * r cos wt + sqrt(l^2 - r^2 sin^2 wt) - (r + l) they agree: every
 * integrator runs, and the slider follows that closed form to the
 * tolerance's order.  Driven along a second crank speed (3 rad/s at the
 * crankpin) they contradict each other: every integrator stops within the
 * first 0.05 s with a message naming the joints.  Before, bdf followed one
 * driver, dopri5 the other and the relative formulation neither, each to
 * t_end without a word (only trapezoidal_al stopped, on a Newton failure). */
static void test_contradicting_drivers(void)
{
    static const char *const AGREE = "\"drivers\": [{\"joint\": \"guide\", \"motion\": {\"kind\": \"expression\", "
        "\"value\": \"=0.2*cos(2*pi*t)+sqrt(0.36-0.04*sin(2*pi*t)^2)-0.8\"}},";
    static const char *const FIGHT = "\"drivers\": [{\"joint\": \"crankpin\", \"motion\": {\"kind\": "
        "\"constant_speed\", \"speed\": 3}},";
    char agree[8192], fight[8192];
    if (t_splice_file("examples/slider_crank.json", "\"drivers\": [", AGREE, agree, sizeof agree) != 0 ||
        t_splice_file("examples/slider_crank.json", "\"drivers\": [", FIGHT, fight, sizeof fight) != 0)
        return;
    static const struct {
        const char *integ, *form, *step;
    } runs[] = {{"bdf", "natural", NULL},      {"dopri5", "natural", NULL}, {"trapezoidal_al", "natural", "1e-3"},
                {"dopri5", "relative", NULL},  {"bdf", "relative", NULL}};
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
        char s1[64], s2[64], s3[64];
        snprintf(s1, sizeof s1, "solver.integrator=%s", runs[k].integ);
        snprintf(s2, sizeof s2, "solver.formulation=%s", runs[k].form);
        snprintf(s3, sizeof s3, "solver.step=%s", runs[k].step ? runs[k].step : "0");
        const char *sets[] = {s1, s2, "solver.t_end=1", runs[k].step ? s3 : NULL, NULL};
        t_run r;
        t_run_text(agree, sets, &r);
        CHECK(r.rc == 0 && r.rep.redundant == 1);
        double worst = 0;
        int w = 1 + r.res.nchannel, cx = r.rc == 0 ? t_col(&r, "x_slider") : 0;
        for (int i = 0; r.rc == 0 && i < r.res.nsample; i++) {
            double t = r.res.rows[(size_t)i * w], sn = sin(2 * M_PI * t);
            double x = 0.2 * cos(2 * M_PI * t) + sqrt(0.36 - 0.04 * sn * sn);
            worst = fmax(worst, fabs(r.res.rows[(size_t)i * w + cx] - x));
        }
        CHECK(r.rc != 0 || r.res.nsample > 100);
        printf("  consistent redundant drivers, %-8s %-14s: slider within %.1e m of the closed form, constraint "
               "violation %.1e\n", runs[k].form, runs[k].integ, worst, r.met.max_constraint_violation);
        CHECK(worst < 1e-6);
        t_run_free(&r);

        t_run_text(fight, sets, &r);
        const char *msg = r.err.n ? r.err.e[0].message : "";
        double at = r.err.n && strncmp(msg, "t = ", 4) == 0 ? atof(msg + 4) : 1;
        printf("  contradicting drivers, %-8s %-14s: rc %d at t = %.3g: %.90s...\n", runs[k].form, runs[k].integ,
               r.rc, at, msg);
        CHECK(r.rc != 0 && strstr(msg, "contradict each other") && strstr(msg, "crankpin") && strstr(msg, "A"));
        CHECK(at < 0.05);
        t_run_free(&r);
    }
}

/* ---- initial velocities that disagree with the drivers -------------------------------------- */

/* The four-bar driven at C by a harmonic whose rate is 0 at t = 0, its crank
 * given 5 rad/s (w0): fully driven, so every velocity is 0 at t = 0 and the
 * given ones must be projected away.  Every integrator starts from the
 * consistent state (the first sample's crank speed and kinetic energy at
 * rounding), says so in a warning (which clears tolerance_met), and follows
 * the relative formulation's kinematic analysis of the same drivers (an
 * independent reference: joint coordinates, exact to 1e-11) within 100 x
 * the tolerance x each channel's scale, the contract's global bound.
 * Before, the projection stopped at 1e-12 (1 + L) of the velocity
 * equations, 4.9e-12 m/s left, 30 x the BDF's local velocity weight at
 * 1e-10: natural bdf stopped at t = 0 below solver.min_step at 1e-10 (and
 * below).  The same model started at rest: no warning. */
static void test_inconsistent_start(void)
{
    static const char *const DRV =
        "\"drivers\": [{\"joint\": \"C\", \"motion\": {\"kind\": \"harmonic\", \"amplitude\": 0.3, \"frequency\": 0.5, "
        "\"phase\": \"=pi/2\", \"offset\": -0.3}}], \"forces\": []";
    char doc[8192], rest[8192];
    if (t_splice_file("examples/four_bar.json", "\"forces\": []", DRV, doc, sizeof doc) != 0 ||
        t_splice(doc, "\"w0\": 5.0", "\"w0\": 0", rest, sizeof rest) != 0)
        return;
    const char *kin[] = {"solver.analysis=kinematics", "solver.formulation=relative", "solver.t_end=2", NULL};
    t_run ref;
    t_run_text(doc, kin, &ref);
    CHECK(ref.rc == 0 && ref.res.nsample == 201);
    static const char *const ch[] = {"crank_angle", "rocker_angle", "crank_omega", "xB", "yB", "T"};
    static const struct {
        const char *integ, *form, *tol, *step;
    } runs[] = {{"bdf", "natural", "1e-9", NULL},         {"bdf", "natural", "1e-10", NULL},
                {"bdf", "natural", "1e-11", NULL},        {"dopri5", "natural", "1e-9", NULL},
                {"dopri5", "natural", "1e-10", NULL},     {"trapezoidal_al", "natural", "1e-9", "1e-4"},
                {"dopri5", "relative", "1e-9", NULL},     {"dopri5", "relative", "1e-10", NULL},
                {"bdf", "relative", "1e-9", NULL},        {"bdf", "relative", "1e-10", NULL}};
    for (size_t k = 0; k < sizeof runs / sizeof runs[0] && ref.rc == 0; k++) {
        char s1[64], s2[64], s3[64], s4[64];
        snprintf(s1, sizeof s1, "solver.integrator=%s", runs[k].integ);
        snprintf(s2, sizeof s2, "solver.formulation=%s", runs[k].form);
        snprintf(s3, sizeof s3, "solver.tolerance=%s", runs[k].tol);
        snprintf(s4, sizeof s4, "solver.step=%s", runs[k].step ? runs[k].step : "0");
        const char *sets[] = {s1, s2, s3, "solver.t_end=2", runs[k].step ? s4 : NULL, NULL};
        t_run r;
        t_run_text(doc, sets, &r);
        CHECK(r.rc == 0 && r.res.nsample == ref.res.nsample);
        if (r.rc || r.res.nsample != ref.res.nsample) {
            printf("  inconsistent start, %s %s at %s: %s\n", runs[k].form, runs[k].integ, runs[k].tol,
                   r.err.n ? r.err.e[0].message : "samples");
            t_run_free(&r);
            continue;
        }
        double worst = 0, tol = atof(runs[k].tol);
        const char *wch = "";
        for (int c = 0; c < 6; c++) {
            int col = t_col(&ref, ch[c]);
            double scale = 0;
            for (int i = 0; i < ref.res.nsample; i++)
                scale = fmax(scale, fabs(ref.res.rows[(size_t)i * (1 + ref.res.nchannel) + col]));
            double e = t_maxdiff(&r, &ref, ch[c]) / scale;
            if (e > worst) { worst = e; wch = ch[c]; }
        }
        int warned = r.met.nwarning >= 1 && strstr(r.met.warning[0], "initial velocities") != NULL;
        printf("  inconsistent start, %-8s %-14s at %-5s: crank speed at t = 0 %.1e rad/s, T %.1e J; %.1e x tol of the "
               "kinematics' scale (%s); %d warning(s): %s\n", runs[k].form, runs[k].integ, runs[k].tol,
               t_at(&r, "crank_omega", 0), t_at(&r, "T", 0), worst / tol, wch, r.met.nwarning,
               r.met.nwarning ? r.met.warning[0] : "");
        CHECK(fabs(t_at(&r, "crank_omega", 0)) < 1e-12);
        CHECK(t_at(&r, "T", 0) < 1e-20);
        CHECK(worst < 100 * tol);
        CHECK(warned && r.met.nwarning == 1 && r.met.tolerance_met == 0);
        t_run_free(&r);
    }
    t_run_free(&ref);
    /* started at rest, as the drivers want: nothing to warn about */
    const char *bdf[] = {"solver.tolerance=1e-10", "solver.t_end=2", NULL};
    t_run r;
    t_run_text(rest, bdf, &r);
    CHECK(r.rc == 0 && r.met.nwarning == 0 && r.met.tolerance_met == 1);
    t_run_free(&r);
}

/* The accuracy contract (issue 9): the default is the error-controlled
 * BDF with the absolute tolerances derived from the relative one; every run
 * reports an estimate, tolerance_met and warnings.  The flyball governor's
 * stiff spring rings under the fixed-step trapezoidal rule (not L-stable):
 * that run must say so; the default run meets its tolerance. */
static void test_accuracy_report(void)
{
    t_run r;
    /* a pendulum with only t_end */
    const char *doc = "{\"dimension\": 2, \"gravity\": [0, -9.81],"
                      " \"bodies\": [{\"name\": \"bob\", \"mass\": 1, \"inertia\": 0, \"com\": [1, 0]}],"
                      " \"joints\": [{\"name\": \"pivot\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"bob\"], \"at\": [0, 0]}],"
                      " \"solver\": {\"t_end\": 2}}";
    t_run_text(doc, NULL, &r);
    CHECK(r.rc == 0);
    CHECK(r.met.tolerance > 0 && r.met.abs_tolerance > 0);
    CHECK(r.met.error_estimate > 0 && r.met.error_estimate <= 2.0);
    CHECK(r.met.tolerance_met == 1 && r.met.nwarning == 0);
    char buf[4096];
    int len = mbs_metrics_json(&r.met, buf, sizeof buf);
    CHECK(len > 0 && (size_t)len < sizeof buf);
    CHECK(strstr(buf, "\"tolerance_met\": true") && strstr(buf, "\"warnings\": []"));
    t_run_free(&r);

    const char *al[] = {"solver.t_end=1", "solver.integrator=trapezoidal_al", NULL};
    t_run_file("examples/iftomm_a05_flyball.json", al, &r);
    CHECK(r.rc == 0);
    printf("  flyball, trapezoidal AL at h = 1e-3: error estimate %.3g x tolerance, %d warning(s)\n",
           r.met.error_estimate, r.met.nwarning);
    CHECK(r.met.error_estimate > 100 && r.met.tolerance_met == 0 && r.met.nwarning >= 1);
    CHECK(strstr(r.met.warning[0], "estimated local error") != NULL);
    len = mbs_metrics_json(&r.met, buf, sizeof buf);
    CHECK(strstr(buf, "\"tolerance_met\": false") && strstr(buf, "\"warning_count\": 1"));
    t_run_free(&r);

    const char *bdf[] = {"solver.t_end=1", NULL};
    t_run_file("examples/iftomm_a05_flyball.json", bdf, &r);
    CHECK(r.rc == 0 && !strcmp(r.met.integrator, "bdf"));
    CHECK(r.met.error_estimate <= 2.0 && r.met.tolerance_met == 1);
    t_run_free(&r);

    /* the velocity part of the fixed-step estimate: the same model at a
     * step 30 times smaller is 30^2..30^3 times more accurate */
    const char *al2[] = {"solver.t_end=1", "solver.integrator=trapezoidal_al", "solver.step=3.3333333333e-5", NULL};
    t_run_file("examples/iftomm_a05_flyball.json", al2, &r);
    CHECK(r.rc == 0);
    printf("  flyball, trapezoidal AL at h = 3.3e-5: error estimate %.3g x tolerance\n", r.met.error_estimate);
    CHECK(r.met.error_estimate < 10);
    t_run_free(&r);
}

/* The derived absolute tolerance is in the mechanism's units and does not
 * depend on where the global origin lies (docs/accuracy.md, One knob). */
static void test_tolerance_scale(void)
{
    t_run r;
    /* N = 2 four-bar: 1 m links, 2 m extent; the derived position
     * tolerance is tolerance x 1 m */
    const char *n2[] = {"solver.t_end=0.05", "solver.tolerance=1e-6", NULL};
    t_run_file("examples/iftomm_a02_four_bar_n2.json", n2, &r);
    CHECK(r.rc == 0);
    printf("  N = 2 four-bar: derived abs_tolerance %.3g (tolerance 1e-6, links 1 m, extent 2 m)\n",
           r.met.abs_tolerance);
    CHECK(fabs(r.met.abs_tolerance / 1e-6 - 1) < 1e-9);
    t_run_free(&r);
    /* the same pendulum 1000 m away from the origin: the same steps (with
     * weights in |x| it was held 1000 times looser) */
    long steps[2];
    for (int k = 0; k < 2; k++) {
        char doc[600];
        double x0 = k ? 1000 : 0;
        snprintf(doc, sizeof doc,
                 "{\"dimension\": 2, \"gravity\": [0, -9.81],"
                 " \"bodies\": [{\"name\": \"bob\", \"mass\": 1, \"inertia\": 0.01, \"com\": [%g, 0]}],"
                 " \"joints\": [{\"name\": \"pivot\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"bob\"],"
                 " \"at\": [%g, 0]}], \"solver\": {\"t_end\": 2}}", x0 + 1, x0);
        t_run_text(doc, NULL, &r);
        CHECK(r.rc == 0);
        CHECK(fabs(r.met.abs_tolerance / 1e-6 - 1) < 1e-9);
        steps[k] = r.met.steps;
        t_run_free(&r);
    }
    printf("  pendulum at the origin: %ld steps, 1000 m away: %ld steps\n", steps[0], steps[1]);
    CHECK(labs(steps[1] - steps[0]) <= steps[0] / 50 + 2);
}

/* A driver given as a table from t = 0 to t_end: the first and last times
 * belong to the table (spec.c s_table_eval).  They used to give the held
 * rate 0 there, and the velocity's jump stopped the BDF at its first step
 * ("step size below min_step" at t = 0; at t_end for a table ending
 * there).  A spline table (a linear one has a kink at each inner row: its
 * acceleration is impulsive there, a different matter): every integrator
 * runs it, and the crank passes through the rows. */
static void test_table_driver(void)
{
    char text[16384];
    if (t_splice_file("examples/slider_crank.json", "{\"kind\": \"constant_speed\", \"speed\": \"$omega\"}",
                      "{\"kind\": \"table\", \"interpolation\": \"spline\", "
                      "\"points\": [[0, 0], [0.5, 1], [1, 3], [2, 4]]}",
                      text, sizeof text) != 0)
        return;
    static const char *const integ[] = {"solver.integrator=bdf", "solver.integrator=dopri5",
                                        "solver.integrator=trapezoidal_al"};
    static const double row_t[] = {0.5, 1, 2}, row_v[] = {1, 3, 4};
    for (int k = 0; k < 3; k++) {
        const char *sets[] = {integ[k], NULL};
        t_run r;
        t_run_text(text, sets, &r);
        CHECK(r.rc == 0);
        double worst = 0;
        for (int i = 0; i < 3; i++) worst = fmax(worst, fabs(t_at(&r, "crank_angle", row_t[i]) - row_v[i]));
        CHECK(worst <= 1e-6);
        printf("  spline table driver from t = 0 to t_end, %s: rc %d, largest angle error at the rows %.2e rad, "
               "%ld steps\n", integ[k], r.rc, worst, r.met.steps);
        t_run_free(&r);
    }
}

/* A kink of an input function of time (model/spec.c mbs_spec_kinks): a
 * block on a spring (k = 100 N/m, m = 1 kg, no damping, no gravity) pushed
 * by F min(t / T, 1), the ramp ending at T = 0.3 s.  Closed form, u from
 * the equilibrium: (F/k)(t/T - sin(w t)/(w T)) up to T, (F/k)(1 - (sin(w t)
 * - sin(w (t - T)))/(w T)) after.  The integrators end a step at T: with
 * the kink inside a step the output sample at T is interpolated across it
 * (dc_motor_press_pi's current at the end of its ramp was 1.3e-3 of its
 * scale off at tolerance 1e-6, 40 times the rest of the run). */
static double s_ramp_u(double t)
{
    const double F = 10, k = 100, w = 10, T = 0.3;
    return t <= T ? F / k * (t / T - sin(w * t) / (w * T))
                  : F / k * (1 - (sin(w * t) - sin(w * (t - T))) / (w * T));
}
static void test_input_kink(void)
{
    static const char *text =
        "{\"name\": \"ramp_spring\", \"dimension\": 2, \"gravity\": [0, 0],"
        " \"parameters\": {\"F\": 10, \"T\": 0.3},"
        " \"bodies\": [{\"name\": \"block\", \"mass\": 1, \"inertia\": 0.01, \"com\": [1, 0]}],"
        " \"joints\": [{\"name\": \"slide\", \"type\": \"prismatic\", \"bodies\": [\"ground\", \"block\"], \"at\": [1, 0],"
        "   \"axis\": [1, 0]}],"
        " \"forces\": [{\"type\": \"spring_damper\", \"name\": \"spring\", \"bodies\": [\"ground\", \"block\"],"
        "   \"points\": [[0, 0], [1, 0]], \"stiffness\": 100, \"free_length\": 1},"
        "  {\"type\": \"force\", \"name\": \"push\", \"body\": \"block\", \"value\": [\"=$F*min(t/$T, 1)\", 0]}],"
        " \"solver\": {\"t_end\": 1},"
        " \"outputs\": {\"interval\": 0.05, \"channels\": ["
        "   {\"name\": \"u\", \"quantity\": \"joint_coordinate\", \"joint\": \"slide\"}]}}";
    static const char *const integ[] = {"solver.integrator=bdf", "solver.integrator=dopri5"};
    static const char *const tols[] = {"solver.tolerance=1e-6", "solver.tolerance=1e-9"};
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < 2; j++) {
            const char *sets[] = {integ[k], tols[j], NULL};
            t_run r;
            t_run_text(text, sets, &r);
            CHECK(r.rc == 0);
            double worst = 0, at_T = fabs(t_at(&r, "u", 0.3) - s_ramp_u(0.3));
            for (int i = 1; i <= 20; i++) worst = fmax(worst, fabs(t_at(&r, "u", 0.05 * i) - s_ramp_u(0.05 * i)));
            /* the accuracy contract: 100 x tol x L, L = 1 m (the spring) */
            double tol = atof(strchr(tols[j], '=') + 1);
            CHECK(worst <= 100 * tol);
            printf("  ramp force ending at T = 0.3 s, %s %s: error at T %.2e m, largest %.2e m (bound %.0e), %ld "
                   "steps\n", integ[k], tols[j], at_T, worst, 100 * tol, r.met.steps);
            t_run_free(&r);
        }
    /* the speed-controlled press: its PI controller's setpoint ramps up in
     * 0.3 s (min(t/t_ramp, 1)); the motor current against a run at 1e-10,
     * every sample, within 100 x tol of its scale at the example's 1e-6 */
    t_run a, b;
    const char *ref[] = {"solver.tolerance=1e-10", NULL};
    t_run_file("examples/dc_motor_press_pi.json", NULL, &a);
    t_run_file("examples/dc_motor_press_pi.json", ref, &b);
    CHECK(a.rc == 0 && b.rc == 0 && a.res.nsample == b.res.nsample && a.res.nsample > 0);
    int c = t_col(&a, "i"), w = 1 + a.res.nchannel;
    double d = 0, scale = 0, t_worst = 0;
    for (int i = 0; c >= 0 && i < a.res.nsample && a.res.nsample == b.res.nsample; i++) {
        double ya = a.res.rows[(size_t)i * w + c], yb = b.res.rows[(size_t)i * w + c];
        scale = fmax(scale, fabs(yb));
        if (fabs(ya - yb) > d) { d = fabs(ya - yb); t_worst = a.res.rows[(size_t)i * w]; }
    }
    CHECK(c >= 0 && scale > 0 && d <= 100 * 1e-6 * scale);
    printf("  PI press, setpoint ramp ending at 0.3 s: motor current at tolerance 1e-6 within %.2e of its scale %.2f A "
           "of the 1e-10 run (worst at t = %g s; bound 1e-4)\n", d / scale, scale, t_worst);
    t_run_free(&a);
    t_run_free(&b);
}

/* The BDF's energy projection on a conservative mechanism (docs/accuracy.md,
 * "Conservative mechanisms"): the IFToMM pendulum released from the
 * horizontal, 100 s (42 periods) at tolerance 1e-6.  With it the energy
 * channel stays at E0 = 0 and the point's position at 100 s within 100 x tol
 * x L of the exact value; with solver.energy_projection false the energy
 * drifts; energy_drift reports the integration's own drift in both. */
static void test_energy_projection(void)
{
    static const char *on[] = {"solver.t_end=100", NULL};
    static const char *off[] = {"solver.t_end=100", "solver.energy_projection=false", NULL};
    t_run a, b;
    t_run_file("examples/iftomm_a01_pendulum.json", on, &a);
    t_run_file("examples/iftomm_a01_pendulum.json", off, &b);
    CHECK(a.rc == 0 && b.rc == 0);
    double ea = 0, eb = 0;
    for (int i = 0; i <= 2000; i++) {
        ea = fmax(ea, fabs(t_at(&a, "E", 0.05 * i)));
        eb = fmax(eb, fabs(t_at(&b, "E", 0.05 * i)));
    }
    /* exact x(P1) at 100 s: tests/reference/iftomm_a01_pendulum.json */
    double xa = t_at(&a, "xP1", 100), xb = t_at(&b, "xP1", 100), xref = NAN;
    json_error_t je;
    json_t *ref = json_load_file("tests/reference/iftomm_a01_pendulum.json", 0, &je);
    size_t k;
    json_t *e;
    json_array_foreach(ref, k, e) {
        if (!json_object_get(e, "quantity") && json_is_string(json_object_get(e, "channel")) &&
            !strcmp(json_string_value(json_object_get(e, "channel")), "xP1") &&
            json_number_value(json_object_get(e, "t")) == 100)
            xref = json_number_value(json_object_get(e, "value"));
    }
    json_decref(ref);
    CHECK(isfinite(xref));
    CHECK(fabs(xa - xref) <= 100 * 1e-6);
    CHECK(ea < 0.1 * eb);
    CHECK(a.met.energy_drift > 0.1 * b.met.energy_drift && a.met.energy_drift < 10 * b.met.energy_drift);
    printf("  A01 pendulum to 100 s at 1e-6: energy projection on / off: largest |E - E0| %.2e / %.2e J, x(100 s) "
           "error %.2e / %.2e m, energy_drift %.2e / %.2e, %ld / %ld steps\n", ea, eb, fabs(xa - xref),
           fabs(xb - xref), a.met.energy_drift, b.met.energy_drift, a.met.steps, b.met.steps);
    t_run_free(&a);
    t_run_free(&b);
}

/* ---- a run stopped inside one long interval of samples ------------------------------ */

static int s_npoll;
static int s_stop_poll(mbs_data *d, mbs_errlist *err)
{
    (void)d;
    s_npoll++;
    mbs_err_add(err, "", "stopped");
    return MBS_ECANCEL;
}

/* One accepted step may hold up to MBS_SAMPLES_MAX samples; the run's poll
 * (time limit, cancel) is asked every 65,536 of them, so a stop is not
 * postponed to the step's end (found by fuzz_solve: a million samples of one
 * step ran 10 s past a 0.5 s limit under the sanitizers). */
static void test_sampling_poll(void)
{
    char text[4096];
    CHECK(t_splice(FREE_FALL, "\"interval\": 0.25", "\"interval\": 1e-6", text, sizeof text) == 0);
    mbs_errlist err = {0};
    mbs_report rep;
    mbs_spec *spec = mech_parse(text, strlen(text), NULL, 0, &err);
    CHECK(spec != NULL);
    if (!spec) return;
    mbs_model *m = mbs_model_new(spec, &rep, &err);
    mbs_data *d = m ? mbs_data_new(m) : NULL;
    CHECK(d && mbs_initialize(m, d, &rep, &err) == 0);
    mbs_result res = {0};
    mbs_sampler smp;
    CHECK(d && mbs_sampler_init(&smp, m, d, &res) == 0);
    if (d) {
        mbs_sample_now(&smp);
        /* an accepted step from 0 to 0.5 s at rest: 500,000 samples due */
        d->tp = 0;
        d->t = 0.5;
        d->poll = s_stop_poll;
        s_npoll = 0;
        int rc = mbs_sample_interval(&smp, &err);
        printf("  sampling stopped by the poll after %d of %d samples (rc %d)\n", smp.next, smp.nsample, rc);
        CHECK(rc == MBS_ECANCEL && s_npoll == 1);
        CHECK(smp.next == 65536);
        d->poll = NULL;
        mbs_sampler_free(&smp);
        mbs_result_free(&res);
    }
    mbs_data_free(&d);
    mbs_model_free(&m);
    mbs_spec_free(&spec);
}

int main(void)
{
    test_sampling_poll();
    test_energy_projection();
    test_input_kink();
    test_free_fall();
    test_spring_mass_damper();
    test_pendulum();
    test_four_bar();
    test_bricard();
    test_flyball();
    test_accuracy_report();
    test_tolerance_scale();
    test_impossible();
    test_kinematics_statics();
    test_inconsistent_start();
    test_contradicting_drivers();
    test_bdf_contact_onsets();
    test_table_driver();
    return CHECK_SUMMARY("solver_test");
}
