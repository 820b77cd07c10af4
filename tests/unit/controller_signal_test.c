/*
 * controller_signal_test.c - what a controller may measure besides the
 * joint, body and motor quantities (issue 13, "signals from any output
 * channel"), against closed forms:
 *
 * - a cascade (the common servo structure): a P position loop (kpo) whose
 *   output is the setpoint of a P speed loop (kpi) driving the flywheel's
 *   motor (L = 0): J th'' + (a kpi + c) th' + a kpi kpo th = a kpi kpo r
 *   (a = kt / R, c = kt ke / R + b), underdamped here (w_n = 14.1 rad/s,
 *   zeta = 0.44), continuous with bdf, dopri5 and the relative formulation
 *   within 10 x tol x r at tolerance 1e-8 (the accuracy contract's 100,
 *   tightened: the loop is smooth); both loops digital at 1 ms against the
 *   exact recursion of the sampled plant (x[k+1] = Phi x[k] + Gamma V[k]
 *   with V[k] = kpi (kpo (r - th[k]) - w[k]): the inner loop takes the
 *   outer's output of the same instant), the inner controller listed first
 *   so that sampling in the array's order would be wrong (by 7.6e-3 rad);
 * - another controller's output as the measured signal: a P controller with
 *   setpoint 0 measuring the position loop's output reports its negative;
 * - the kinetic energy as the measured signal: J w' = a kp (T_r - J w^2 /
 *   2) - c w, a Riccati equation w' = -C (w - w1)(w - w2) with the closed
 *   form w = (w1 - q w2) / (1 - q), q = (w1 / w2) e^(-C (w1 - w2) t);
 * - a joint reaction measured by a sampled controller (a P on a pendulum's
 *   pivot reaction): the first output against the static closed form, the
 *   later ones against the reaction channel at the sample before;
 *   continuous, the algebraic loop solved at each state: its first output
 *   against the closed form, the loop's equation at every sample;
 * - a quantity of a motor another controller drives (its current at L =
 *   0 depends on that controller's voltage) as the measured signal;
 * - the refusals: a cycle of controllers (an algebraic loop) at the
 *   reference that closes it, a controller measuring itself, an unknown
 *   controller as a setpoint, a chain deeper than 16.
 */
#include "check.h"
#include "testutil.h"

#include <math.h>
#include <string.h>

static const double R = 1, KT = 0.05, J = 1e-3, B = 1e-5;

/* The flywheel with a cascade: "speed" (listed first) takes "position"'s
 * output as its setpoint; both sample every $ts (0: continuous). */
static const char *const CASCADE =
    "{\"name\": \"cascade\", \"dimension\": 2, \"gravity\": [0, -9.81],"
    " \"parameters\": {\"R\": 1.0, \"kt\": 0.05, \"J\": 0.001, \"b\": 1e-5, \"kpi\": 0.2, \"kpo\": 20, \"r\": 1,"
    "  \"ts\": 0},"
    " \"bodies\": [{\"name\": \"flywheel\", \"mass\": 2.0, \"inertia\": \"$J\", \"com\": [0, 0], \"angle\": 0}],"
    " \"joints\": [{\"name\": \"shaft\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"flywheel\"], \"at\": [0, 0]}],"
    " \"controllers\": ["
    "  {\"name\": \"speed\", \"type\": \"pid\", \"kp\": \"$kpi\", \"sample_period\": \"$ts\","
    "   \"measure\": {\"quantity\": \"joint_velocity\", \"joint\": \"shaft\"}, \"setpoint\": {\"controller\": \"position\"}},"
    "  {\"name\": \"position\", \"type\": \"pid\", \"kp\": \"$kpo\", \"sample_period\": \"$ts\","
    "   \"measure\": {\"quantity\": \"joint_coordinate\", \"joint\": \"shaft\"}, \"setpoint\": \"$r\"},"
    "  {\"name\": \"mirror\", \"type\": \"pid\", \"kp\": 1, \"setpoint\": 0,"
    "   \"measure\": {\"quantity\": \"controller\", \"controller\": \"position\", \"component\": \"output\"}}"
    " ],"
    " \"forces\": [{\"name\": \"motor\", \"type\": \"dc_motor\", \"joint\": \"shaft\", \"voltage\": {\"controller\": \"speed\"},"
    "  \"resistance\": \"$R\", \"torque_constant\": \"$kt\", \"back_emf_constant\": \"$kt\", \"viscous_friction\": \"$b\"}],"
    " \"solver\": {\"t_end\": 1},"
    " \"outputs\": {\"interval\": 0.001, \"channels\": ["
    "  {\"name\": \"theta\", \"quantity\": \"joint_coordinate\", \"joint\": \"shaft\"},"
    "  {\"name\": \"w_ref\", \"quantity\": \"controller\", \"controller\": \"position\", \"component\": \"output\"},"
    "  {\"name\": \"r_in\", \"quantity\": \"controller\", \"controller\": \"speed\", \"component\": \"setpoint\"},"
    "  {\"name\": \"mirror\", \"quantity\": \"controller\", \"controller\": \"mirror\", \"component\": \"output\"}]}}";

static void test_cascade_continuous(void)
{
    const double kpi = 0.2, kpo = 20, r = 1, a = KT / R, c = KT * KT / R + B;
    double p1 = (a * kpi + c) / J, p0 = a * kpi * kpo / J, sig = p1 / 2, wd = sqrt(p0 - sig * sig);
    const char *integ[] = {"solver.integrator=bdf", "solver.integrator=dopri5", "solver.formulation=relative"};
    for (int ia = 0; ia < 3; ia++) {
        const char *sets[] = {"solver.tolerance=1e-8", integ[ia], NULL};
        t_run run;
        t_run_text(CASCADE, sets, &run);
        CHECK(run.rc == 0 && run.res.nsample == 1001);
        if (run.rc || run.res.nsample != 1001) { t_run_free(&run); continue; }
        double worst = 0, same = 0;
        for (int s = 0; s <= 1000; s++) {
            double t = 0.001 * s, ex = r * (1 - exp(-sig * t) * (cos(wd * t) + sig / wd * sin(wd * t)));
            worst = fmax(worst, fabs(t_at(&run, "theta", t) - ex));
            same = fmax(same, fabs(t_at(&run, "w_ref", t) - t_at(&run, "r_in", t)) +
                                  fabs(t_at(&run, "w_ref", t) + t_at(&run, "mirror", t)));
        }
        printf("  cascade P-P (%s, tol 1e-8): angle against the closed form %.2e rad (%.3g x tol x r); inner "
               "setpoint = outer output, mirror = -output to %.1e\n", integ[ia], worst, worst / 1e-8, same);
        CHECK(worst <= 10 * 1e-8 * r);
        CHECK(same <= 1e-12 * kpo * r);
        t_run_free(&run);
    }
}

static void test_cascade_digital(void)
{
    const double kpi = 0.2, kpo = 20, r = 1, ts = 0.001, a = KT / R, c = KT * KT / R + B;
    const double be = c / J, e = exp(-be * ts), g = (1 - e) / be;
    const char *integ[] = {"solver.integrator=bdf", "solver.integrator=dopri5"};
    for (int ia = 0; ia < 2; ia++) {
        const char *sets[] = {"ts=0.001", "solver.tolerance=1e-8", integ[ia], NULL};
        t_run run;
        t_run_text(CASCADE, sets, &run);
        CHECK(run.rc == 0 && run.res.nsample == 1001);
        if (run.rc || run.res.nsample != 1001) { t_run_free(&run); continue; }
        double th = 0, w = 0, worst = 0;
        for (int k = 0; k <= 1000; k++) {
            worst = fmax(worst, fabs(t_at(&run, "theta", k * ts) - th));
            double V = kpi * (kpo * (r - th) - w);
            double th1 = th + g * w + a / J * (ts - g) / be * V;
            w = e * w + a / J * g * V;
            th = th1;
        }
        printf("  digital cascade at 1 ms (%s, tol 1e-8): angle against the exact recursion %.2e rad (%.3g x tol x "
               "r)\n", integ[ia], worst, worst / 1e-8);
        CHECK(worst <= 10 * 1e-8 * r);
        t_run_free(&run);
    }
}

/* The flywheel's P controller on its kinetic energy. */
static void test_energy_measured(void)
{
    const double kp = 1, Tr = 10, a = KT / R, c = KT * KT / R + B;
    double A = a * kp * Tr / J, Bc = c / J, C = a * kp / 2;
    double w1 = (-Bc + sqrt(Bc * Bc + 4 * A * C)) / (2 * C), w2 = (-Bc - sqrt(Bc * Bc + 4 * A * C)) / (2 * C);
    char doc[16384];
    if (t_splice_file("examples/dc_motor_flywheel_pi.json",
                      "\"measure\": {\"quantity\": \"joint_velocity\", \"joint\": \"shaft\"}, \"setpoint\": \"$r\"",
                      "\"measure\": {\"quantity\": \"kinetic_energy\"}, \"setpoint\": 10", doc, sizeof doc))
        return;
    const char *integ[] = {"solver.integrator=bdf", "solver.integrator=dopri5", "solver.formulation=relative"};
    for (int ia = 0; ia < 3; ia++) {
        const char *sets[] = {"kp=1", "ki=0", "solver.tolerance=1e-8", integ[ia], NULL};
        t_run run;
        t_run_text(doc, sets, &run);
        CHECK(run.rc == 0);
        if (run.rc) { t_run_free(&run); continue; }
        double worst = 0;
        for (double t = 0.01; t <= 1 + 1e-9; t += 0.01) {
            double q = w1 / w2 * exp(-C * (w1 - w2) * t), ex = (w1 - q * w2) / (1 - q);
            worst = fmax(worst, fabs(t_at(&run, "omega", t) - ex));
        }
        printf("  P on the kinetic energy (%s, tol 1e-8): speed against the Riccati closed form %.2e rad/s (%.3g x "
               "tol x w_ss), w_ss %.6g rad/s\n", integ[ia], worst, worst / (1e-8 * w1), w1);
        CHECK(worst <= 10 * 1e-8 * w1);
        t_run_free(&run);
    }
}

/* A pendulum (1 kg, inertia 0.01 kg m^2 about its com, com at (0.3, -0.4)
 * from the pivot) whose pivot torque is a sampled P controller (1 kHz) on
 * the pivot's horizontal reaction force. */
static const char *const PENDULUM =
    "{\"name\": \"rx\", \"dimension\": 2, \"gravity\": [0, -9.81], \"parameters\": {\"kp\": 0.02, \"ts\": 0.001},"
    " \"bodies\": [{\"name\": \"bob\", \"mass\": 1.0, \"inertia\": 0.01, \"com\": [0.3, -0.4], \"angle\": 0}],"
    " \"joints\": [{\"name\": \"pivot\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"bob\"], \"at\": [0, 0]}],"
    " \"controllers\": [{\"name\": \"rx\", \"type\": \"pid\", \"kp\": \"$kp\", \"sample_period\": \"$ts\","
    "   \"measure\": {\"quantity\": \"reaction_force\", \"joint\": \"pivot\", \"component\": \"x\"}, \"setpoint\": 0}],"
    " \"forces\": [{\"name\": \"drive\", \"type\": \"joint_actuator\", \"joint\": \"pivot\","
    "   \"value\": {\"controller\": \"rx\"}}],"
    " \"solver\": {\"t_end\": 1},"
    " \"outputs\": {\"interval\": 0.001, \"channels\": ["
    "   {\"name\": \"theta\", \"quantity\": \"joint_coordinate\", \"joint\": \"pivot\"},"
    "   {\"name\": \"Rx\", \"quantity\": \"reaction_force\", \"joint\": \"pivot\", \"component\": \"x\"},"
    "   {\"name\": \"u\", \"quantity\": \"controller\", \"controller\": \"rx\", \"component\": \"output\"},"
    "   {\"name\": \"m\", \"quantity\": \"controller\", \"controller\": \"rx\", \"component\": \"measurement\"}]}}";

/* A sampled controller measuring a reaction: the first sample, at rest
 * under no torque, measures R_x = m r_y alpha with alpha = m g r_x / I_p
 * (I_p = 0.01 + 0.25), so its output is kp m 0.4 g 0.3 / 0.26; every later
 * held output (shown at t_k+1) is -kp times the reaction channel at t_k
 * (the state after the step, under the output held over it: what the
 * controller measures), to 1e-12; bdf, dopri5 and the
 * relative formulation agree on the final angle to 100 x tol rad. */
static void test_reaction_sampled(void)
{
    const double kp = 0.02;
    const char *integ[] = {"solver.integrator=bdf", "solver.integrator=dopri5", "solver.formulation=relative"};
    double th[3] = {0, 0, 0};
    for (int ia = 0; ia < 3; ia++) {
        const char *sets[] = {"solver.tolerance=1e-8", integ[ia], NULL};
        t_run run;
        t_run_text(PENDULUM, sets, &run);
        CHECK(run.rc == 0 && run.res.nsample == 1001);
        if (run.rc || run.res.nsample != 1001) { t_run_free(&run); continue; }
        double u0 = t_at(&run, "u", 0.001), ex0 = kp * 1.0 * 0.4 * 9.81 * 0.3 / 0.26, worst = 0;
        for (int k = 1; k < 1000; k++)
            worst = fmax(worst, fabs(t_at(&run, "u", 0.001 * (k + 1)) + kp * t_at(&run, "Rx", 0.001 * k)));
        th[ia] = t_at(&run, "theta", 1);
        printf("  sampled P on a reaction (%s): first output %.12g (closed form %.12g), held outputs against -kp "
               "x the reaction channel %.1e, final angle %.10g rad\n", integ[ia], u0, ex0, worst, th[ia]);
        CHECK_NEAR(u0, ex0, 1e-12);
        CHECK(worst <= 1e-12);
        t_run_free(&run);
    }
    CHECK(fabs(th[0] - th[1]) <= 100 * 1e-8 && fabs(th[2] - th[1]) <= 100 * 1e-8);
    /* continuous: an algebraic loop (the torque moves the reaction at
     * once), solved at each state (run/measure.h): at rest I_p alpha = u -
     * 0.3 m g and R_x = 0.4 m alpha with u = -kp R_x, so u(0) = kp 0.12 m^2 g
     * / (I_p + 0.4 kp m); at every sample u = -kp x the measurement */
    for (int ia = 0; ia < 2; ia++) {
        const char *cont[] = {"ts=0", "kp=1", "solver.tolerance=1e-8", integ[ia], NULL};
        t_run run;
        t_run_text(PENDULUM, cont, &run);
        CHECK(run.rc == 0 && run.res.nsample == 1001);
        if (run.rc || run.res.nsample != 1001) { t_run_free(&run); continue; }
        double u0 = t_at(&run, "u", 0), ex0 = 1 * 0.12 * 9.81 / (0.26 + 0.4 * 1), worst = 0;
        for (int k = 0; k <= 1000; k++)
            worst = fmax(worst, fabs(t_at(&run, "u", 0.001 * k) + t_at(&run, "m", 0.001 * k)));
        printf("  continuous P on a reaction into a joint_actuator (%s, kp 1): the loop solved, first output %.12g "
               "(closed form %.12g), u + kp x measurement %.1e\n", integ[ia], u0, ex0, worst);
        CHECK_NEAR(u0, ex0, 1e-12);
        CHECK(worst <= 1e-9 * ex0);
        t_run_free(&run);
    }
}

/* A controller measuring a quantity of a motor another controller drives
 * (a cascade through the motor: its current at L = 0 depends on that
 * controller's voltage): a P monitor with setpoint 0 on the PI flywheel's
 * current reports -i at every sample, with bdf and dopri5; the monitor's
 * output as the speed loop's setpoint closes a cycle, refused. */
static void test_motor_through_controller(void)
{
    char doc[16384];
    if (t_splice_file("examples/dc_motor_flywheel_pi.json", "\"controllers\": [",
                      "\"controllers\": [{\"name\": \"mon\", \"type\": \"pid\", \"kp\": 1, \"setpoint\": 0,"
                      " \"measure\": {\"quantity\": \"motor\", \"element\": \"motor\", \"component\": \"current\"}},",
                      doc, sizeof doc))
        return;
    char doc2[16384];
    if (t_splice(doc, "\"channels\": [",
                 "\"channels\": [{\"name\": \"mon\", \"quantity\": \"controller\", \"controller\": \"mon\","
                 " \"component\": \"output\"},", doc2, sizeof doc2))
        return;
    const char *integ[] = {"solver.integrator=bdf", "solver.integrator=dopri5"};
    for (int ia = 0; ia < 2; ia++) {
        const char *sets[] = {"solver.tolerance=1e-8", integ[ia], NULL};
        t_run run;
        t_run_text(doc2, sets, &run);
        CHECK(run.rc == 0);
        if (run.rc) { t_run_free(&run); continue; }
        double worst = 0, imax = 0;
        for (double t = 0; t <= 1 + 1e-9; t += 0.01) {
            worst = fmax(worst, fabs(t_at(&run, "mon", t) + t_at(&run, "i", t)));
            imax = fmax(imax, fabs(t_at(&run, "i", t)));
        }
        printf("  P monitor on the PI-driven motor's current (%s): output + current %.1e A (current up to %.3g A)\n",
               integ[ia], worst, imax);
        CHECK(imax > 1 && worst <= 1e-12 * imax);
        t_run_free(&run);
    }
    char doc3[16384];
    if (t_splice(doc, "\"setpoint\": \"$r\"", "\"setpoint\": {\"controller\": \"mon\"}", doc3, sizeof doc3)) return;
    CHECK(t_parse_refused(doc3, NULL, "/controllers/1/setpoint/controller", "a cycle of controllers"));
}

static void test_refused(void)
{
    char doc[16384];
    /* position takes speed's output as its setpoint: a cycle */
    if (t_splice(CASCADE, "\"setpoint\": \"$r\"", "\"setpoint\": {\"controller\": \"speed\"}", doc, sizeof doc)) return;
    CHECK(t_parse_refused(doc, NULL, "/controllers/1/setpoint/controller", "a cycle of controllers"));
    /* a controller measuring itself */
    if (t_splice(CASCADE, "\"controller\": \"position\", \"component\": \"output\"}}",
                 "\"controller\": \"mirror\", \"component\": \"output\"}}", doc, sizeof doc))
        return;
    CHECK(t_parse_refused(doc, NULL, "/controllers/2/measure/controller", "a cycle of controllers"));
    /* an unknown controller as the setpoint */
    if (t_splice(CASCADE, "{\"controller\": \"position\"}", "{\"controller\": \"positon\"}", doc, sizeof doc)) return;
    CHECK(t_parse_refused(doc, NULL, "/controllers/0/setpoint/controller", "did you mean 'position'"));
    /* a chain of 20 controllers, each the setpoint of the one before:
     * deeper than 16 is refused (the outputs are evaluated along it) */
    char chain[8192] = "\"controllers\": [";
    for (int i = 0; i < 20; i++) {
        size_t n = strlen(chain);
        char sp[64];
        if (i < 19) snprintf(sp, sizeof sp, "{\"controller\": \"c%d\"}", i + 1);
        else snprintf(sp, sizeof sp, "0");
        snprintf(chain + n, sizeof chain - n, "{\"name\": \"c%d\", \"type\": \"pid\", \"kp\": 1, \"setpoint\": %s, "
                 "\"measure\": {\"quantity\": \"joint_velocity\", \"joint\": \"shaft\"}}, ", i, sp);
    }
    if (t_splice(CASCADE, "\"controllers\": [", chain, doc, sizeof doc)) return;
    CHECK(t_parse_refused(doc, NULL, NULL, "more than 16 deep"));
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_cascade_continuous();
    test_cascade_digital();
    test_energy_measured();
    test_reaction_sampled();
    test_motor_through_controller();
    test_refused();
    return CHECK_SUMMARY("controller_signal_test");
}
