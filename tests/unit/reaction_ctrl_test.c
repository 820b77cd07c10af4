/*
 * reaction_ctrl_test.c - continuous controllers measuring a joint reaction
 * (issue 13, "signals from any output channel"; run/measure.h), against
 * independent references:
 *
 * - a lift: a car (m1) on a vertical prismatic rail driven through a rack
 *   (lead) by an inductive dc_motor, carrying a load (m2) on a fixed joint,
 *   whose reaction along the rail is m2 (g + a) = m2 F / (m1 + m2) = c i
 *   exactly (F = kt i / lead, no friction, c = m2 kt / (lead (m1 + m2))).
 *   A PI on that reaction (gains kp, ki, setpoint m2 g) must give the run of
 *   a PI on the motor's current with gains c kp, c ki and setpoint m2 g / c
 *   (a path without any reaction), to the integrators' tolerance, and hover:
 *   the reaction at m2 g, the current at (m1 + m2) g lead / kt, the
 *   acceleration 0 (the closed-form steady state).  bdf and dopri5, natural
 *   and relative coordinates;
 * - a pendulum whose pivot's horizontal reaction (not a linear function of
 *   the state: centripetal and tangential terms) an inductive motor on the
 *   pivot regulates under a PI: bdf and dopri5 at tolerance 1e-8, both
 *   formulations, against dopri5 at 1e-11; and against the same controller
 *   sampled (the reaction at each accepted state, output held), whose
 *   difference to the continuous one falls as the sample period (first
 *   order) from 4e-4 to 1e-4 s;
 * - an integral-only controller on the pendulum's reaction driving a motor
 *   without inductance (no feed-through: no loop), against dopri5 at 1e-11;
 * - the true loop (the controller passing the reaction at once to the
 *   force it drives), solved at each state: a P on the pendulum's pivot
 *   reaction through a joint_actuator, unlimited and at its limit, against
 *   the closed form at rest, bdf / dopri5 x natural / relative against
 *   dopri5 at 1e-11 and the sampled runs' first-order convergence; a PI
 *   through a dc_motor without inductance, the same;
 * - moreau_jean and event_driven (both formulations) and trapezoidal_al
 *   refuse it, naming bdf and dopri5;
 * - the parser's refusals and acceptances are in controller_test.c.
 */
#include "check.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const double G = 9.81, M1 = 2, M2 = 1, LEAD = 0.01, KT = 0.05;

/* The lift; $meas the measured signal: 0 the load's reaction, 1 the
 * motor's current (the controller's gains and setpoint given). */
static void s_lift(char *doc, size_t size, int meas, double kp, double ki, double sp)
{
    snprintf(doc, size,
             "{\"name\": \"lift\", \"dimension\": 2, \"gravity\": [0, -%g],"
             " \"bodies\": [{\"name\": \"car\", \"mass\": %g, \"inertia\": 0.1, \"com\": [0, 0]},"
             "   {\"name\": \"load\", \"mass\": %g, \"inertia\": 0.05, \"com\": [0.1, 0.2]}],"
             " \"joints\": [{\"name\": \"rail\", \"type\": \"prismatic\", \"bodies\": [\"ground\", \"car\"],"
             "   \"at\": [0, 0], \"axis\": [0, 1]},"
             "  {\"name\": \"mount\", \"type\": \"fixed\", \"bodies\": [\"car\", \"load\"], \"at\": [0, 0.1]}],"
             " \"controllers\": [{\"name\": \"ctl\", \"type\": \"pid\", \"kp\": %.17g, \"ki\": %.17g, \"setpoint\": %.17g,"
             "   \"measure\": %s}],"
             " \"forces\": [{\"name\": \"motor\", \"type\": \"dc_motor\", \"joint\": \"rail\","
             "   \"voltage\": {\"controller\": \"ctl\"}, \"resistance\": 1, \"inductance\": 0.01,"
             "   \"torque_constant\": %g, \"back_emf_constant\": %g, \"lead\": %g}],"
             " \"solver\": {\"t_end\": 3},"
             " \"outputs\": {\"interval\": 0.01, \"channels\": ["
             "   {\"name\": \"y\", \"quantity\": \"position\", \"body\": \"car\", \"component\": \"y\"},"
             "   {\"name\": \"vy\", \"quantity\": \"velocity\", \"body\": \"car\", \"component\": \"y\"},"
             "   {\"name\": \"ay\", \"quantity\": \"acceleration\", \"body\": \"car\", \"component\": \"y\"},"
             "   {\"name\": \"i\", \"quantity\": \"motor\", \"element\": \"motor\", \"component\": \"current\"},"
             "   {\"name\": \"u\", \"quantity\": \"controller\", \"controller\": \"ctl\", \"component\": \"output\"},"
             "   {\"name\": \"Ry\", \"quantity\": \"reaction_force\", \"joint\": \"mount\", \"component\": \"y\"}]}}",
             G, M1, M2,  kp, ki, sp,
             meas == 0 ? "{\"quantity\": \"reaction_force\", \"joint\": \"mount\", \"component\": \"y\"}"
                       : "{\"quantity\": \"motor\", \"element\": \"motor\", \"component\": \"current\"}",
             KT, KT, LEAD);
}

static void test_lift(void)
{
    const double c = M2 * KT / (LEAD * (M1 + M2)), kpi = 2, kii = 40, i_ss = (M1 + M2) * G * LEAD / KT;
    const char *integ[4][3] = {{"solver.integrator=bdf", NULL}, {"solver.integrator=dopri5", NULL},
                               {"solver.integrator=bdf", "solver.formulation=relative", NULL},
                               {"solver.integrator=dopri5", "solver.formulation=relative", NULL}};
    for (int ia = 0; ia < 4; ia++) {
        t_run rr, ri;
        char doc[8192];
        const char *sets[5] = {"solver.tolerance=1e-8", integ[ia][0], integ[ia][1], NULL};
        s_lift(doc, sizeof doc, 0, kpi / c, kii / c, M2 * G);
        t_run_text(doc, sets, &rr);
        s_lift(doc, sizeof doc, 1, kpi, kii, M2 * G / c);
        t_run_text(doc, sets, &ri);
        CHECK(rr.rc == 0 && ri.rc == 0);
        if (rr.rc || ri.rc || rr.res.nsample != ri.res.nsample) {
            t_run_free(&rr);
            t_run_free(&ri);
            continue;
        }
        /* the two runs, sample by sample; the reaction against c i */
        double dy = t_maxdiff(&rr, &ri, "y"), di = t_maxdiff(&rr, &ri, "i"), du = t_maxdiff(&rr, &ri, "u");
        double dci = 0;
        for (int k = 0; k < rr.res.nsample; k++) {
            double t = rr.res.rows[(size_t)k * (1 + rr.res.nchannel)];
            dci = fmax(dci, fabs(t_at(&rr, "Ry", t) - c * t_at(&rr, "i", t)));
        }
        double ymax = 0;
        for (int k = 0; k < rr.res.nsample; k++) ymax = fmax(ymax, fabs(t_at(&rr, "y", rr.res.rows[(size_t)k * (1 + rr.res.nchannel)])));
        double Ry = t_at(&rr, "Ry", 3), i3 = t_at(&rr, "i", 3), a3 = t_at(&rr, "ay", 3);
        printf("  lift (%s%s%s): PI on the reaction against PI on the current: y %.2e m (|y| <= %.3g), i %.2e A, "
               "u %.2e V; Ry - c i %.1e N; at t = 3 Ry %.10g (m2 g %.10g), i %.10g (%.10g), a %.2e; %ld steps, "
               "%ld Newton iterations (on the current: %ld, %ld)\n",
               integ[ia][0] + 18, integ[ia][1] ? ", " : "", integ[ia][1] ? integ[ia][1] + 7 : "", dy, ymax, di, du,
               dci, Ry, M2 * G, i3, i_ss, a3, rr.met.steps, rr.met.newton_iterations, ri.met.steps,
               ri.met.newton_iterations);
        /* the same trajectory: 100 x tol relative to the signals' sizes */
        CHECK(dy <= 100 * 1e-8 * fmax(ymax, 0.01));
        CHECK(di <= 100 * 1e-8 * i_ss);
        CHECK(du <= 100 * 1e-8 * (kpi * i_ss + 1));
        /* the recovered reaction is exactly c i (to the recovery's rounding
         * and the acceleration solve's tolerance) */
        CHECK(dci <= 1e-7 * M2 * G);
        /* the closed-form steady state (the PI's slowest mode has decayed
         * by e^-9 at t = 3) */
        CHECK_NEAR(Ry, M2 * G, 1e-3 * M2 * G);
        CHECK_NEAR(i3, i_ss, 1e-3 * i_ss);
        CHECK(fabs(a3) <= 1e-3 * G);
        /* the same equations in other variables: the BDF's Newton matrix
         * with the reaction's full columns (finite differences through the
         * accelerations of the state) converges as with the current's */
        if (ia % 2 == 0) CHECK(rr.met.newton_iterations <= ri.met.newton_iterations + ri.met.steps / 10);
        t_run_free(&rr);
        t_run_free(&ri);
    }
}

/* A pendulum (1 kg, com at (0.3, -0.4) from the pivot) with an inductive
 * motor on the pivot whose voltage is a PI ($kp, $ki) on the pivot's
 * horizontal reaction, setpoint $sp; sampled every $ts (0: continuous);
 * $L the motor's inductance. */
static const char *const PENDULUM =
    "{\"name\": \"rxc\", \"dimension\": 2, \"gravity\": [0, -9.81],"
    " \"parameters\": {\"kp\": 1, \"ki\": 10, \"sp\": 0, \"ts\": 0, \"L\": 0.01},"
    " \"bodies\": [{\"name\": \"bob\", \"mass\": 1.0, \"inertia\": 0.01, \"com\": [0.3, -0.4], \"angle\": 0}],"
    " \"joints\": [{\"name\": \"pivot\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"bob\"], \"at\": [0, 0]}],"
    " \"controllers\": [{\"name\": \"rx\", \"type\": \"pid\", \"kp\": \"$kp\", \"ki\": \"$ki\", \"sample_period\": \"$ts\","
    "   \"measure\": {\"quantity\": \"reaction_force\", \"joint\": \"pivot\", \"component\": \"x\"}, \"setpoint\": \"$sp\"}],"
    " \"forces\": [{\"name\": \"motor\", \"type\": \"dc_motor\", \"joint\": \"pivot\", \"voltage\": {\"controller\": \"rx\"},"
    "   \"resistance\": 1, \"inductance\": \"$L\", \"torque_constant\": 0.5, \"back_emf_constant\": 0.5}],"
    " \"solver\": {\"t_end\": 2},"
    " \"outputs\": {\"interval\": 0.01, \"channels\": ["
    "   {\"name\": \"theta\", \"quantity\": \"joint_coordinate\", \"joint\": \"pivot\"},"
    "   {\"name\": \"w\", \"quantity\": \"joint_velocity\", \"joint\": \"pivot\"},"
    "   {\"name\": \"Rx\", \"quantity\": \"reaction_force\", \"joint\": \"pivot\", \"component\": \"x\"},"
    "   {\"name\": \"u\", \"quantity\": \"controller\", \"controller\": \"rx\", \"component\": \"output\"}]}}";

static void test_pendulum(void)
{
    const char *ref_sets[] = {"solver.integrator=dopri5", "solver.tolerance=1e-11", NULL};
    t_run ref;
    t_run_text(PENDULUM, ref_sets, &ref);
    CHECK(ref.rc == 0);
    if (ref.rc) { t_run_free(&ref); return; }
    double wmax = 0, rmax = 0;
    for (int k = 0; k < ref.res.nsample; k++) {
        double t = ref.res.rows[(size_t)k * (1 + ref.res.nchannel)];
        wmax = fmax(wmax, fabs(t_at(&ref, "w", t)));
        rmax = fmax(rmax, fabs(t_at(&ref, "Rx", t)));
    }
    printf("  pendulum, PI on the pivot's Rx (reference dopri5 1e-11): |w| <= %.3g rad/s, |Rx| <= %.3g N, "
           "Rx(2) %.3g N (setpoint 0), w(2) %.3g rad/s, theta(2) %.6g rad\n", wmax, rmax, t_at(&ref, "Rx", 2),
           t_at(&ref, "w", 2), t_at(&ref, "theta", 2));
    /* the controller drives the reaction to its setpoint: the swing dies
     * out (no acceleration of the com, the motor holding the pendulum) */
    CHECK(fabs(t_at(&ref, "Rx", 2)) <= 0.01 * rmax);
    CHECK(fabs(t_at(&ref, "w", 2)) <= 0.01 * wmax);
    const char *integ[4][3] = {{"solver.integrator=bdf", NULL}, {"solver.integrator=dopri5", NULL},
                               {"solver.integrator=bdf", "solver.formulation=relative", NULL},
                               {"solver.integrator=dopri5", "solver.formulation=relative", NULL}};
    for (int ia = 0; ia < 4; ia++) {
        const char *sets[] = {"solver.tolerance=1e-8", integ[ia][0], integ[ia][1], NULL};
        t_run r;
        t_run_text(PENDULUM, sets, &r);
        CHECK(r.rc == 0 && r.res.nsample == ref.res.nsample);
        if (r.rc || r.res.nsample != ref.res.nsample) { t_run_free(&r); continue; }
        double dth = t_maxdiff(&r, &ref, "theta"), drx = t_maxdiff(&r, &ref, "Rx"), du = t_maxdiff(&r, &ref, "u");
        printf("  pendulum (%s%s%s, tol 1e-8) against the reference: theta %.2e rad, Rx %.2e N, u %.2e V; %ld steps, "
               "%ld Newton iterations\n", integ[ia][0] + 18, integ[ia][1] ? ", " : "",
               integ[ia][1] ? integ[ia][1] + 7 : "", dth, drx, du, r.met.steps, r.met.newton_iterations);
        CHECK(dth <= 100 * 1e-8 * 1);
        CHECK(drx <= 100 * 1e-8 * fmax(rmax, 1));
        CHECK(du <= 100 * 1e-8 * fmax(rmax, 1));
        t_run_free(&r);
    }
    /* sampled, the reaction at each accepted state (the existing path):
     * its distance to the continuous run falls as the period */
    double dist[3];
    const char *ts[3] = {"ts=4e-4", "ts=2e-4", "ts=1e-4"};
    for (int k = 0; k < 3; k++) {
        const char *sets[] = {"solver.integrator=dopri5", "solver.tolerance=1e-10", ts[k], NULL};
        t_run r;
        t_run_text(PENDULUM, sets, &r);
        CHECK(r.rc == 0);
        dist[k] = r.rc ? NAN : t_maxdiff(&r, &ref, "theta");
        t_run_free(&r);
    }
    printf("  sampled PI on Rx against the continuous one: theta %.3e, %.3e, %.3e rad at ts 4e-4, 2e-4, 1e-4 s "
           "(ratios %.3f, %.3f)\n", dist[0], dist[1], dist[2], dist[0] / dist[1], dist[1] / dist[2]);
    /* first order in ts: halving it halves the distance (1.8 .. 2.2) */
    CHECK(dist[0] / dist[1] > 1.8 && dist[0] / dist[1] < 2.2);
    CHECK(dist[1] / dist[2] > 1.8 && dist[1] / dist[2] < 2.2);
    CHECK(dist[2] < 1e-2);
    t_run_free(&ref);
}

/* No feed-through: an integral-only controller on the reaction driving a
 * motor without inductance (the output is the controller's state): bdf
 * against dopri5 at 1e-11. */
static void test_integral_only(void)
{
    const char *ref_sets[] = {"solver.integrator=dopri5", "solver.tolerance=1e-11", "kp=0", "L=0", NULL};
    const char *sets[] = {"solver.integrator=bdf", "solver.tolerance=1e-8", "kp=0", "L=0", NULL};
    t_run ref, r;
    t_run_text(PENDULUM, ref_sets, &ref);
    t_run_text(PENDULUM, sets, &r);
    CHECK(ref.rc == 0 && r.rc == 0);
    if (!ref.rc && !r.rc) {
        double dth = t_maxdiff(&r, &ref, "theta"), drx = t_maxdiff(&r, &ref, "Rx");
        printf("  I-only on Rx, motor L = 0 (bdf 1e-8 against dopri5 1e-11): theta %.2e rad, Rx %.2e N, Rx(2) "
               "%.6g\n", dth, drx, t_at(&ref, "Rx", 2));
        CHECK(dth <= 100 * 1e-8);
        CHECK(drx <= 100 * 1e-8 * 10);
    }
    t_run_free(&ref);
    t_run_free(&r);
}

/* The true loop, solved at each state (run/measure.h): a pendulum whose
 * pivot torque is a controller's output on the pivot's horizontal
 * reaction, through a joint_actuator (motor 0) or a dc_motor without
 * inductance (motor 1); $kp, $ki, $ymax, $ts. */
static void s_loop_doc(char *doc, size_t size, int motor)
{
    snprintf(doc, size,
             "{\"name\": \"loop\", \"dimension\": 2, \"gravity\": [0, -9.81],"
             " \"parameters\": {\"kp\": 1, \"ki\": 0, \"ts\": 0, \"ymax\": 1e9},"
             " \"bodies\": [{\"name\": \"bob\", \"mass\": 1.0, \"inertia\": 0.01, \"com\": [0.3, -0.4], \"angle\": 0}],"
             " \"joints\": [{\"name\": \"pivot\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"bob\"], \"at\": [0, 0]}],"
             " \"controllers\": [{\"name\": \"rx\", \"type\": \"pid\", \"kp\": \"$kp\", \"ki\": \"$ki\", \"y_max\": \"$ymax\","
             "   \"sample_period\": \"$ts\","
             "   \"measure\": {\"quantity\": \"reaction_force\", \"joint\": \"pivot\", \"component\": \"x\"}, \"setpoint\": 0}],"
             " \"forces\": [%s],"
             " \"solver\": {\"t_end\": 1},"
             " \"outputs\": {\"interval\": 0.01, \"channels\": ["
             "   {\"name\": \"theta\", \"quantity\": \"joint_coordinate\", \"joint\": \"pivot\"},"
             "   {\"name\": \"Rx\", \"quantity\": \"reaction_force\", \"joint\": \"pivot\", \"component\": \"x\"},"
             "   {\"name\": \"m\", \"quantity\": \"controller\", \"controller\": \"rx\", \"component\": \"measurement\"},"
             "   {\"name\": \"u\", \"quantity\": \"controller\", \"controller\": \"rx\", \"component\": \"output\"}]}}",
             motor ? "{\"name\": \"drive\", \"type\": \"dc_motor\", \"joint\": \"pivot\", \"voltage\": {\"controller\": \"rx\"},"
                     " \"resistance\": 1, \"torque_constant\": 0.5, \"back_emf_constant\": 0.5}"
                   : "{\"name\": \"drive\", \"type\": \"joint_actuator\", \"joint\": \"pivot\", \"value\": {\"controller\": \"rx\"}}");
}

/* The loop's run against independent references: at rest the closed form
 * (I_p alpha = u - 0.3 m g, R_x = 0.4 m alpha, u = sat(-kp R_x): u(0) = kp
 * 0.12 m^2 g / (I_p + 0.4 kp m), or the limit); bdf and dopri5 in both
 * formulations at 1e-8 against dopri5 at 1e-11; the same controller
 * sampled (the reaction at each accepted state under the output held: no
 * loop to solve) converging to it at first order in the period. */
static void test_loop(void)
{
    /* kp r < 1 (r = dR_x / du, 1.54 through the actuator, 0.77 through the
     * motor): the sampled loop (u_k = -kp R(u_k-1) at once) is stable */
    const char *cases[3][3] = {{"kp=0.5", NULL}, {"kp=0.5", "ymax=1"}, {"kp=1", "ki=10"}};
    for (int cs = 0; cs < 3; cs++) {
        int motor = cs == 2;
        const char *k0 = cases[cs][0], *k1 = cases[cs][1];
        char doc[8192];
        s_loop_doc(doc, sizeof doc, motor);
        const char *ref_sets[] = {"solver.integrator=dopri5", "solver.tolerance=1e-11", k0, k1, NULL};
        t_run ref;
        t_run_text(doc, ref_sets, &ref);
        CHECK(ref.rc == 0);
        if (ref.rc) { t_run_free(&ref); continue; }
        double u0 = t_at(&ref, "u", 0), loopeq = 0, thmax = 0;
        for (int k = 0; k < ref.res.nsample; k++) {
            double t = ref.res.rows[(size_t)k * (1 + ref.res.nchannel)];
            thmax = fmax(thmax, fabs(t_at(&ref, "theta", t)));
        }
        printf("  loop %s%s%s (%s): u(0) %.12g, |theta| <= %.3g rad\n", k0, k1 ? ", " : "", k1 ? k1 : "",
               motor ? "dc_motor, L = 0" : "joint_actuator", u0, thmax);
        if (!motor) {
            double kp = 0.5, ex = kp * 0.12 * 9.81 / (0.26 + 0.4 * kp);
            if (cs == 1) ex = 1;
            CHECK_NEAR(u0, ex, 1e-12 * ex);
            /* the loop's equation at every sample: u = sat(-kp x the
             * measurement) */
            for (int k = 0; k < ref.res.nsample; k++) {
                double t = ref.res.rows[(size_t)k * (1 + ref.res.nchannel)];
                loopeq = fmax(loopeq, fabs(t_at(&ref, "u", t) - fmin(cs == 1 ? 1 : 1e9, -kp * t_at(&ref, "m", t))));
            }
            CHECK(loopeq <= 1e-9 * ex);
        }
        const char *integ[4][2] = {{"solver.integrator=bdf", NULL}, {"solver.integrator=dopri5", NULL},
                                   {"solver.integrator=bdf", "solver.formulation=relative"},
                                   {"solver.integrator=dopri5", "solver.formulation=relative"}};
        for (int ia = 0; ia < 4; ia++) {
            const char *sets[] = {"solver.tolerance=1e-8", k0, integ[ia][0], k1 ? k1 : integ[ia][1],
                                  k1 ? integ[ia][1] : NULL, NULL};
            t_run r;
            t_run_text(doc, sets, &r);
            CHECK(r.rc == 0 && r.res.nsample == ref.res.nsample);
            if (r.rc || r.res.nsample != ref.res.nsample) { t_run_free(&r); continue; }
            double dth = t_maxdiff(&r, &ref, "theta"), du = t_maxdiff(&r, &ref, "u");
            printf("    %s%s%s at 1e-8 against dopri5 at 1e-11: theta %.2e rad, u %.2e; %ld steps, %ld Newton "
                   "iterations\n", integ[ia][0] + 18, integ[ia][1] ? ", " : "", integ[ia][1] ? integ[ia][1] + 7 : "",
                   dth, du, r.met.steps, r.met.newton_iterations);
            CHECK(dth <= 100 * 1e-8 * fmax(thmax, 0.1));
            CHECK(du <= 100 * 1e-8 * fmax(fabs(u0), 1));
            t_run_free(&r);
        }
        double dist[3];
        const char *ts[3] = {"ts=4e-4", "ts=2e-4", "ts=1e-4"};
        for (int k = 0; k < 3; k++) {
            const char *sets[] = {"solver.integrator=dopri5", "solver.tolerance=1e-10", ts[k], k0, k1, NULL};
            t_run r;
            t_run_text(doc, sets, &r);
            CHECK(r.rc == 0);
            dist[k] = r.rc ? NAN : t_maxdiff(&r, &ref, "theta");
            t_run_free(&r);
        }
        printf("    sampled at 4e-4, 2e-4, 1e-4 s against it: theta %.3e, %.3e, %.3e rad (ratios %.3f, %.3f)\n", dist[0],
               dist[1], dist[2], dist[0] / dist[1], dist[1] / dist[2]);
        CHECK(dist[0] / dist[1] > 1.8 && dist[0] / dist[1] < 2.2);
        CHECK(dist[1] / dist[2] > 1.8 && dist[1] / dist[2] < 2.2);
        t_run_free(&ref);
    }
}

/* The integrators that do not take controllers refuse a reaction-measuring
 * one in both formulations, saying which do (moreau_jean and event_driven
 * run relative coordinates too; trapezoidal_al natural only). */
static void test_refused_integrators(void)
{
    char doc[8192];
    const double c = M2 * KT / (LEAD * (M1 + M2));
    s_lift(doc, sizeof doc, 0, 2 / c, 40 / c, M2 * G);
    const char *integ[5][2] = {{"solver.integrator=moreau_jean", NULL},
                               {"solver.integrator=moreau_jean", "solver.formulation=relative"},
                               {"solver.integrator=event_driven", NULL},
                               {"solver.integrator=event_driven", "solver.formulation=relative"},
                               {"solver.integrator=trapezoidal_al", NULL}};
    int n = 0;
    for (int ia = 0; ia < 5; ia++) {
        const char *sets[] = {integ[ia][0], integ[ia][1], NULL};
        t_run r;
        t_run_text(doc, sets, &r);
        int said = 0;
        for (int k = 0; k < r.err.n; k++) said |= strstr(r.err.e[k].message, "bdf and dopri5") != NULL;
        CHECK(r.rc != 0 && said);
        n += r.rc != 0 && said;
        t_run_free(&r);
    }
    printf("  a PI on the lift's reaction refused by %d of 5 integrator/formulation pairs without controllers\n", n);
}

int main(void)
{
    test_lift();
    test_pendulum();
    test_integral_only();
    test_loop();
    test_refused_integrators();
    return CHECK_SUMMARY("reaction_ctrl_test");
}
