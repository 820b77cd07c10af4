/*
 * controller_test.c - controllers closed around the mechanism (issue 13,
 * dynamics/controller.h) against closed forms:
 *  - the flywheel motor (inductance 0) under a continuous PI speed
 *    controller is a linear second-order system, J w'' + (a kp + c) w' +
 *    a ki w = a ki r (a = kt / R, c = kt ke / R + b): its step response in
 *    closed form, with bdf and dopri5 at two tolerances; the same PI as a
 *    transfer function (kp s + ki) / s (an lti block);
 *  - the same loop with a digital PI (zero-order hold, period ts): the
 *    plant sampled exactly, w[k+1] = phi w[k] + g V[k], phi = exp(-c ts /
 *    J), g = (1 - phi) a / c, with the controller's own recursion (backward
 *    Euler integral, control.c mbs_pid_step): the run against that
 *    recursion at every sample, and the output held between samples;
 *  - anti-windup: the PI's output limited to 8 V (the spin-up saturates):
 *    while saturated the speed is the open-loop first order response at 8 V
 *    (closed form); with back-calculation the overshoot after it stays small,
 *    without it (a tracking time of 1e6 s: no back-calculation) the
 *    integral winds up and overshoots several times as much;
 *  - the two examples: the press reaches its cyclic speed, the arm settles
 *    at its setpoint (PD with gravity compensation at the setpoint: the
 *    equilibrium is exact);
 *  - parser errors with their JSON pointers, and the integrators that refuse.
 *
 * Bounds: the runs are error-controlled; a speed is held to K x tol x r (r
 * the setpoint; K = 100, the accuracy contract of docs/accuracy.md that
 * actuator_test also uses); the measured errors are printed.
 */
#include "check.h"
#include "testutil.h"

#include <math.h>

static const char *const FLYWHEEL_PI = "examples/dc_motor_flywheel_pi.json";

/* The example's parameters. */
static const double R = 1, KT = 0.05, J = 1e-3, B = 1e-5, KP = 0.1, KI = 2, RS = 100;

/* The continuous closed loop's speed and voltage at t (step of the setpoint
 * to RS at t = 0 from rest, integral 0). */
static void s_exact_pi(double t, double *w, double *V)
{
    double a = KT / R, c = KT * KT / R + B;
    double wn = sqrt(a * KI / J), zeta = (a * KP + c) / (2 * J * wn), s = zeta * wn, wd = wn * sqrt(1 - zeta * zeta);
    double A = -RS, Bc = (a * KP * RS / J + s * A) / wd;
    double x = exp(-s * t) * (A * cos(wd * t) + Bc * sin(wd * t));
    double xd = exp(-s * t) * ((-s * A + wd * Bc) * cos(wd * t) + (-s * Bc - wd * A) * sin(wd * t));
    *w = RS + x;
    /* J w' = a V - c w */
    *V = (J * xd + c * *w) / a;
}

static void test_pi_closed_form(void)
{
    const char *integ[] = {"solver.integrator=bdf", "solver.integrator=dopri5"};
    const double tols[] = {1e-6, 1e-8};
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++) {
            char tol[64];
            snprintf(tol, sizeof tol, "solver.tolerance=%g", tols[b]);
            const char *sets[] = {tol, integ[a], NULL};
            t_run r;
            t_run_file(FLYWHEEL_PI, sets, &r);
            CHECK(r.rc == 0);
            if (r.rc) { t_run_free(&r); continue; }
            double worst = 0, worst_v = 0;
            for (double t = 0.01; t <= 1.0 + 1e-9; t += 0.01) {
                double w, V;
                s_exact_pi(t, &w, &V);
                worst = fmax(worst, fabs(t_at(&r, "omega", t) - w));
                worst_v = fmax(worst_v, fabs(t_at(&r, "V", t) - V));
                CHECK_NEAR(t_at(&r, "e", t), RS - t_at(&r, "omega", t), 1e-9 * RS);
                /* the output from the error and the integral state */
                CHECK_NEAR(t_at(&r, "V", t), KP * t_at(&r, "e", t) + KI * t_at(&r, "I", t), 1e-9 * KP * RS);
            }
            printf("  PI %-24s tol %g: speed error %.2e rad/s (%.3g x tol x r), voltage %.2e V (%.3g x tol x kp r); "
                   "%ld steps\n", integ[a], tols[b], worst, worst / (tols[b] * RS), worst_v,
                   worst_v / (tols[b] * KP * RS), (long)r.met.steps);
            CHECK(worst <= 100 * tols[b] * RS);
            CHECK(worst_v <= 100 * tols[b] * KP * RS);
            t_run_free(&r);
        }
}

/* The PI as a transfer function (kp s + ki) / s: an lti block with one
 * state (its integral), the same response. */
static void test_lti_pi(void)
{
    char doc[8192];
    int rc = t_splice_file(FLYWHEEL_PI, "\"type\": \"pid\", \"kp\": \"$kp\", \"ki\": \"$ki\",",
                           "\"type\": \"lti\", \"num\": [\"$kp\", \"$ki\"], \"den\": [1, 0],", doc, sizeof doc);
    if (rc) return;
    /* the limits are a PID's: the lti block has none */
    char doc2[8192], doc3[8192];
    if (t_splice(doc, "\"y_min\": \"=-$V_max\",", "", doc2, sizeof doc2)) return;
    if (t_splice(doc2, "\"y_max\": \"$V_max\", ", "", doc3, sizeof doc3)) return;
    const char *sets[] = {"solver.tolerance=1e-8", "solver.integrator=bdf", NULL};
    t_run r;
    t_run_text(doc3, sets, &r);
    CHECK(r.rc == 0);
    if (r.rc) { t_run_free(&r); return; }
    double worst = 0;
    for (double t = 0.01; t <= 1.0 + 1e-9; t += 0.01) {
        double w, V;
        s_exact_pi(t, &w, &V);
        worst = fmax(worst, fabs(t_at(&r, "omega", t) - w));
    }
    printf("  PI as lti (kp s + ki) / s, bdf tol 1e-8: speed error %.2e rad/s (%.3g x tol x r)\n", worst,
           worst / (1e-8 * RS));
    CHECK(worst <= 100 * 1e-8 * RS);
    t_run_free(&r);
}

/* The digital PI (period ts) against the exact recursion of the sampled
 * loop; between samples the held output. */
static void test_discrete_pi(void)
{
    const double ts = 0.01;
    double a = KT / R, c = KT * KT / R + B, phi = exp(-c * ts / J), g = (1 - phi) * a / c;
    double wk[101], Vk[101], s0 = 0, w = 0;
    for (int k = 0; k <= 100; k++) {
        double e = RS - w, I = s0 + ts * e;
        wk[k] = w;
        Vk[k] = KP * e + KI * I;
        s0 = I;
        w = phi * w + g * Vk[k];
    }
    const char *integ[] = {"solver.integrator=bdf", "solver.integrator=dopri5"};
    const double tols[] = {1e-6, 1e-8};
    char doc[8192];
    /* samples every 2.5 ms: the output held between the controller's */
    int rc = t_splice_file(FLYWHEEL_PI, "\"interval\": 0.01", "\"interval\": 0.0025", doc, sizeof doc);
    if (rc) return;
    for (int ai = 0; ai < 2; ai++)
        for (int b = 0; b < 2; b++) {
            char tol[64];
            snprintf(tol, sizeof tol, "solver.tolerance=%g", tols[b]);
            const char *sets[] = {tol, integ[ai], "ts=0.01", NULL};
            t_run r;
            t_run_text(doc, sets, &r);
            CHECK(r.rc == 0);
            if (r.rc) { t_run_free(&r); continue; }
            double worst = 0, worst_v = 0;
            for (int k = 1; k <= 100; k++) worst = fmax(worst, fabs(t_at(&r, "omega", k * ts) - wk[k]));
            /* the held output: V[k] on (k ts, (k + 1) ts); a sample at an
             * instant shows the value held before it */
            for (int k = 0; k < 100; k++)
                for (int q = 1; q <= 4; q++) worst_v = fmax(worst_v, fabs(t_at(&r, "V", k * ts + q * 0.0025) - Vk[k]));
            printf("  digital PI %-24s tol %g: speed error %.2e rad/s (%.3g x tol x r) at the samples, held "
                   "voltage %.2e V; %ld steps\n", integ[ai], tols[b], worst, worst / (tols[b] * RS), worst_v,
                   (long)r.met.steps);
            CHECK(worst <= 100 * tols[b] * RS);
            CHECK(worst_v <= 100 * tols[b] * KP * RS);
            t_run_free(&r);
        }
}

/* The motor with an inductance (0.05 H: its current a state beside the
 * controller's integral, the two coupled through the voltage) under the
 * continuous and the digital PI: no closed form here (third order), bdf
 * and dopri5 against each other at 1e-8 (each within 100 x tol x r of the
 * exact solution by the contract, so within 200 x tol x r of each other). */
static void test_inductive_pi(void)
{
    char doc[8192];
    int rc = t_splice_file(FLYWHEEL_PI, "\"viscous_friction\": \"$b\"}",
                           "\"viscous_friction\": \"$b\", \"inductance\": 0.05}", doc, sizeof doc);
    if (rc) return;
    const char *ts[] = {"ts=0", "ts=0.01"};
    for (int k = 0; k < 2; k++) {
        const char *s1[] = {"solver.tolerance=1e-8", "solver.integrator=bdf", ts[k], NULL};
        const char *s2[] = {"solver.tolerance=1e-8", "solver.integrator=dopri5", ts[k], NULL};
        t_run a, b;
        t_run_text(doc, s1, &a);
        t_run_text(doc, s2, &b);
        CHECK(a.rc == 0 && b.rc == 0);
        if (a.rc == 0 && b.rc == 0) {
            double dw = t_maxdiff(&a, &b, "omega"), di = t_maxdiff(&a, &b, "i");
            printf("  PI on the motor with L = 0.05 H (%s): bdf - dopri5 at 1e-8: speed %.2e rad/s (%.3g x tol x r), "
                   "current %.2e A; bdf %.2f Newton iterations per step\n", ts[k], dw, dw / (1e-8 * RS), di,
                   (double)a.met.newton_iterations / (double)a.met.steps);
            CHECK(dw <= 200 * 1e-8 * RS);
        }
        t_run_free(&a);
        t_run_free(&b);
    }
}

/* Overshoot (%) of the speed over the setpoint in a run of the PI limited
 * to 8 V, tracking time tt; the largest error of the saturated phase
 * against the open-loop response at 8 V into *sat_err. */
static double s_windup_run(const char *tt, double *sat_err)
{
    char doc[8192], repl[128];
    snprintf(repl, sizeof repl, "\"ki\": \"$ki\", \"tt\": %s,", tt);
    int rc = t_splice_file(FLYWHEEL_PI, "\"ki\": \"$ki\",", repl, doc, sizeof doc);
    if (rc) return NAN;
    const char *sets[] = {"V_max=8", "solver.tolerance=1e-8", "solver.t_end=2", NULL};
    t_run r;
    t_run_text(doc, sets, &r);
    CHECK(r.rc == 0);
    if (r.rc) { t_run_free(&r); return NAN; }
    double a = KT / R, c = KT * KT / R + B, wmax = 0, e = 0;
    int w = 1 + r.res.nchannel, cw = t_col(&r, "omega"), cv = t_col(&r, "V");
    for (int i = 0; i < r.res.nsample; i++) {
        double t = r.res.rows[(size_t)i * w], om = r.res.rows[(size_t)i * w + cw];
        wmax = fmax(wmax, om);
        /* saturated from the start while kp e > 8 V: the open-loop step */
        if (r.res.rows[(size_t)i * w + cv] >= 8 && t < 0.2)
            e = fmax(e, fabs(om - 8 * a / c * (1 - exp(-c * t / J))));
    }
    *sat_err = e;
    t_run_free(&r);
    return 100 * (wmax - RS) / RS;
}

static void test_antiwindup(void)
{
    double e_aw, e_no;
    double os_aw = s_windup_run("0", &e_aw), os_no = s_windup_run("1e6", &e_no);
    printf("  anti-windup: output limited to 8 V: overshoot %.2f %% with back-calculation (tt = ti), %.2f %% without "
           "(tt = 1e6 s); saturated phase against the open-loop closed form %.1e, %.1e rad/s\n", os_aw, os_no, e_aw,
           e_no);
    CHECK(e_aw <= 100 * 1e-8 * RS && e_no <= 100 * 1e-8 * RS);
    CHECK(os_aw < 15);
    CHECK(os_no > 2 * os_aw);
}

/* The press: the crank at its setpoint (1 rev/s) on average over the last
 * revolution, the voltage within its limit; the arm at its setpoint. */
static void test_examples(void)
{
    const char *integ[] = {"solver.integrator=bdf", "solver.integrator=dopri5"};
    for (int a = 0; a < 2; a++) {
        const char *sets[] = {integ[a], NULL};
        t_run r;
        t_run_file("examples/dc_motor_press_pi.json", sets, &r);
        CHECK(r.rc == 0);
        if (r.rc == 0) {
            double th2 = t_at(&r, "crank_angle", 3.0), th1 = t_at(&r, "crank_angle", 2.0), vmax = 0;
            int w = 1 + r.res.nchannel, cv = t_col(&r, "V");
            for (int i = 0; i < r.res.nsample; i++) vmax = fmax(vmax, fabs(r.res.rows[(size_t)i * w + cv]));
            printf("  press %s: mean crank speed over the last second %.7f rad/s (setpoint %.7f), |V| <= %.2f V\n",
                   integ[a], th2 - th1, 2 * M_PI, vmax);
            /* the integral action: no mean error over a revolution */
            CHECK(fabs((th2 - th1) - 2 * M_PI) < 1e-3 * 2 * M_PI);
            CHECK(vmax <= 24 + 1e-12);
        }
        t_run_free(&r);
        t_run_file("examples/dc_motor_arm_pd.json", sets, &r);
        CHECK(r.rc == 0);
        if (r.rc == 0) {
            double e1 = t_at(&r, "q1", 2.0) - 1.0, e2 = t_at(&r, "q2", 2.0) - 0.5;
            printf("  arm %s: joint errors at t = 2 s %.1e, %.1e rad; %ld steps\n", integ[a], e1, e2, (long)r.met.steps);
            CHECK(fabs(e1) < 1e-5 && fabs(e2) < 1e-5);
        }
        t_run_free(&r);
    }
}

/* Simpson's rule over the samples of channel `ch` (an even number of equal
 * intervals from t = 0); the number of intervals used in *n. */
static double s_simpson(const t_run *r, const char *ch, int *n_used)
{
    int c = t_col(r, ch), n = r->res.nsample - 1;
    if (c < 0 || n < 2) return NAN;
    if (n % 2) n--;
    const int w = 1 + r->res.nchannel;
    double h = r->res.rows[(size_t)w] - r->res.rows[0], s = 0;
    for (int i = 0; i <= n; i++) {
        double f = r->res.rows[(size_t)i * w + c];
        s += (i == 0 || i == n) ? f : (i % 2 ? 4 * f : 2 * f);
    }
    if (n_used) *n_used = n;
    return s * h / 3;
}

/* The press's energy balance under its controller: the electrical input
 * equals the mechanism's energy gained (kinetic, with the rotor's reflected
 * inertia, and the load spring's) plus the copper loss (no friction, gear
 * efficiency 1), Simpson over 1 ms samples, tolerance 1e-8, to 1e-5 of the
 * copper loss (the largest flow: the input is small, the spring giving back
 * what it took). */
static void test_press_energy(void)
{
    char doc[16384];
    int rc = t_splice_file("examples/dc_motor_press_pi.json", "\"interval\": 0.005", "\"interval\": 0.001", doc,
                           sizeof doc);
    if (rc) return;
    const char *integ[] = {"solver.integrator=bdf", "solver.integrator=dopri5"};
    for (int a = 0; a < 2; a++) {
        const char *sets[] = {"solver.tolerance=1e-8", integ[a], NULL};
        t_run r;
        t_run_text(doc, sets, &r);
        CHECK(r.rc == 0);
        if (r.rc == 0) {
            int n = 0;
            double in = s_simpson(&r, "P_in", &n), cu = s_simpson(&r, "P_copper", NULL);
            int w = 1 + r.res.nchannel, cE = t_col(&r, "E");
            double dE = r.res.rows[(size_t)n * w + cE] - r.res.rows[(size_t)cE], bal = in - dE - cu;
            printf("  press energy (%s): input %.9g J = mechanical %.9g + copper %.9g; imbalance %.2e J (%.1e of the "
                   "copper loss)\n", integ[a], in, dE, cu, bal, fabs(bal) / cu);
            CHECK(cu > 1 && fabs(bal) <= 1e-5 * cu);
        }
        t_run_free(&r);
    }
}

/* The energy balance of the closed-loop flywheel (PI) and of the arm (two
 * motors against gravity; its PD controllers continuous, ts = 0, so that
 * the powers are smooth for Simpson's rule): the motors' electrical input
 * equals the mechanism's energy gained (kinetic and potential) plus their
 * copper and friction losses (gear efficiency 1, L = 0); 1 ms samples,
 * tolerance 1e-8, to 1e-6 of the largest flow. */
static void test_example_energy(void)
{
    static const struct { const char *path, *motors[2]; } ex[] = {
        {"examples/dc_motor_flywheel_pi.json", {"motor", NULL}},
        {"examples/dc_motor_arm_pd.json", {"motor1", "motor2"}},
    };
    for (int k = 0; k < 2; k++) {
        char chans[1024] = "\"channels\": [{\"name\": \"E_mech\", \"quantity\": \"energy\"}";
        for (int j = 0; j < 2 && ex[k].motors[j]; j++) {
            const char *comp[] = {"power_in", "copper_loss", "friction_loss"}, *tag[] = {"Pi", "Pc", "Pf"};
            for (int c = 0; c < 3; c++) {
                size_t n = strlen(chans);
                snprintf(chans + n, sizeof chans - n,
                         ", {\"name\": \"%s%d\", \"quantity\": \"motor\", \"element\": \"%s\", \"component\": \"%s\"}",
                         tag[c], j, ex[k].motors[j], comp[c]);
            }
        }
        strcat(chans, ",");
        char doc1[16384], doc[16384];
        if (t_splice_file(ex[k].path, "\"channels\": [", chans, doc1, sizeof doc1)) continue;
        /* the output interval: 1 ms */
        const char *iv = strstr(doc1, "\"interval\": ");
        if (!CHECK(iv != NULL)) continue;
        const char *end = strpbrk(iv + 12, ",}");
        snprintf(doc, sizeof doc, "%.*s\"interval\": 0.001%s", (int)(iv - doc1), doc1, end);
        const char *integ[] = {"solver.integrator=bdf", "solver.integrator=dopri5"};
        for (int a = 0; a < 2; a++) {
            const char *sets[] = {"ts=0", "solver.tolerance=1e-8", integ[a], NULL};
            t_run r;
            t_run_text(doc, sets, &r);
            CHECK(r.rc == 0);
            if (r.rc) { t_run_free(&r); continue; }
            int n = 0;
            double in = 0, cu = 0, fr = 0;
            for (int j = 0; j < 2 && ex[k].motors[j]; j++) {
                char nm[16];
                snprintf(nm, sizeof nm, "Pi%d", j); in += s_simpson(&r, nm, &n);
                snprintf(nm, sizeof nm, "Pc%d", j); cu += s_simpson(&r, nm, NULL);
                snprintf(nm, sizeof nm, "Pf%d", j); fr += s_simpson(&r, nm, NULL);
            }
            int w = 1 + r.res.nchannel, cE = t_col(&r, "E_mech");
            double dE = r.res.rows[(size_t)n * w + cE] - r.res.rows[(size_t)cE], bal = in - dE - cu - fr;
            double big = fmax(fabs(in), fmax(fabs(dE), cu));
            printf("  %s (%s, ts = 0): input %.9g J = mechanical %.9g + copper %.9g + friction %.3g; imbalance %.2e J "
                   "(%.1e of the largest)\n", ex[k].path, integ[a], in, dE, cu, fr, bal, fabs(bal) / big);
            CHECK(big > 0.1 && fabs(bal) <= 1e-6 * big);
            t_run_free(&r);
        }
    }
}

/* The digital arm's energy balance (PD at 1 kHz, zero-order hold): each
 * motor's voltage jumps at every sample, and with it its current and
 * power, so Simpson's rule runs over each sampling interval [t_k, t_k+1]
 * with its midpoint (outputs every 0.5 ms), the value at t_k+ rebuilt from
 * the channels (a sample at an instant shows the output held before it:
 * the voltage held over the interval is the one shown at t_k+1; the joint
 * rates are continuous, so i(t_k+) = (V - ke N w(t_k)) / R).  The motors'
 * mechanical output, (V - R i) i = kt i N w per motor (L = 0, no friction,
 * efficiency 1), integrates to the mechanism's energy gained, kinetic and
 * potential; bdf and dopri5 at 1e-8, to 1e-6 of the work done. */
static void test_digital_arm_energy(void)
{
    const double N = 50, Rm = 1, kt = 0.05;
    const char *chans = "\"channels\": [{\"name\": \"E_mech\", \"quantity\": \"energy\"},"
                        " {\"name\": \"w1\", \"quantity\": \"joint_velocity\", \"joint\": \"shoulder\"},"
                        " {\"name\": \"w2\", \"quantity\": \"joint_velocity\", \"joint\": \"elbow\"},";
    char doc1[16384], doc[16384];
    if (t_splice_file("examples/dc_motor_arm_pd.json", "\"channels\": [", chans, doc1, sizeof doc1)) return;
    const char *iv = strstr(doc1, "\"interval\": ");
    if (!CHECK(iv != NULL)) return;
    snprintf(doc, sizeof doc, "%.*s\"interval\": 0.0005%s", (int)(iv - doc1), doc1, strpbrk(iv + 12, ",}"));
    const char *integ[] = {"solver.integrator=bdf", "solver.integrator=dopri5"};
    for (int a = 0; a < 2; a++) {
        const char *sets[] = {"solver.tolerance=1e-8", integ[a], NULL};
        t_run r;
        t_run_text(doc, sets, &r);
        CHECK(r.rc == 0 && r.res.nsample == 4001);
        if (r.rc || r.res.nsample != 4001) { t_run_free(&r); continue; }
        int w = 1 + r.res.nchannel, cw[2] = {t_col(&r, "w1"), t_col(&r, "w2")}, cv[2] = {t_col(&r, "V1"), t_col(&r, "V2")};
        const double *y = r.res.rows;
        double work = 0, absw = 0;
        /* the motors' mechanical power kt i N w at sample s, voltage V */
#define S_P(s, V, m) (kt * (((V) - kt * N * y[(size_t)(s) * w + cw[m]]) / Rm) * N * y[(size_t)(s) * w + cw[m]])
        for (int k = 0; k < 2000; k++) {
            int s0 = 2 * k, s1 = s0 + 1, s2 = s0 + 2;
            double f = 0;
            for (int m = 0; m < 2; m++) {
                double V = y[(size_t)s2 * w + cv[m]]; /* held over (t_k, t_k+1] */
                f += S_P(s0, V, m) + 4 * S_P(s1, V, m) + S_P(s2, V, m);
            }
            work += f * 0.0005 / 3;
            absw += fabs(f) * 0.0005 / 3;
        }
#undef S_P
        int cE = t_col(&r, "E_mech");
        double dE = y[(size_t)4000 * w + cE] - y[cE], bal = work - dE;
        printf("  digital arm (%s): motors' work %.9g J (|work| %.4g J) = energy gained %.9g J; imbalance %.2e J "
               "(%.1e of |work|)\n", integ[a], work, absw, dE, bal, fabs(bal) / absw);
        CHECK(absw > 1 && fabs(bal) <= 1e-6 * absw);
        t_run_free(&r);
    }
}

/* The arm with continuous PD controllers (ts = 0: each one's derivative
 * filter state in z), and the press with a PID on the slider's position
 * (a body other than the motor's: the coupled columns of the Newton matrix,
 * build.c s_coupled_vars): bdf against dopri5 at 1e-8. */
static void test_continuous_pid(void)
{
    const char *s1[] = {"ts=0", "solver.tolerance=1e-8", "solver.integrator=bdf", NULL};
    const char *s2[] = {"ts=0", "solver.tolerance=1e-8", "solver.integrator=dopri5", NULL};
    t_run a, b;
    t_run_file("examples/dc_motor_arm_pd.json", s1, &a);
    t_run_file("examples/dc_motor_arm_pd.json", s2, &b);
    CHECK(a.rc == 0 && b.rc == 0);
    if (a.rc == 0 && b.rc == 0) {
        double d = fmax(t_maxdiff(&a, &b, "q1"), t_maxdiff(&a, &b, "q2"));
        printf("  arm, continuous PD: bdf - dopri5 %.1e rad; at t = 2 s %.1e rad from the setpoint; bdf %.2f Newton "
               "iterations per step\n", d, fabs(t_at(&a, "q1", 2.0) - 1.0),
               (double)a.met.newton_iterations / (double)a.met.steps);
        CHECK(d <= 200 * 1e-8);
        CHECK(fabs(t_at(&a, "q1", 2.0) - 1.0) < 1e-5 && fabs(t_at(&a, "q2", 2.0) - 0.5) < 1e-5);
    }
    t_run_free(&a);
    t_run_free(&b);
    /* the press's controller replaced by a PID on the slider's position */
    json_t *doc = json_load_file("examples/dc_motor_press_pi.json", 0, NULL);
    CHECK(doc != NULL);
    if (!doc) return;
    json_t *c = json_array_get(json_object_get(doc, "controllers"), 0);
    json_t *pos = json_pack("{s:s, s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:{s:s, s:s, s:[f, f], s:s}, s:s}", "name",
                            "speed", "type", "pid", "kp", -300.0, "ki", -2000.0, "kd", -20.0, "tf", 0.01, "y_min", -24.0,
                            "y_max", 24.0, "measure", "quantity", "position", "body", "slider", "point", 0.25, 0.0,
                            "component", "x", "setpoint", "=0.2+0.02*sin(2*pi*t)");
    CHECK(pos != NULL && c != NULL);
    if (!pos || !c) { json_decref(pos); json_decref(doc); return; }
    json_object_clear(c);
    json_object_update(c, pos);
    json_decref(pos);
    char *text = json_dumps(doc, 0);
    json_decref(doc);
    const char *p1[] = {"solver.t_end=2", "solver.tolerance=1e-8", "solver.integrator=bdf", NULL};
    const char *p2[] = {"solver.t_end=2", "solver.tolerance=1e-8", "solver.integrator=dopri5", NULL};
    t_run_text(text, p1, &a);
    t_run_text(text, p2, &b);
    free(text);
    CHECK(a.rc == 0 && b.rc == 0);
    if (a.rc == 0 && b.rc == 0) {
        double d = t_maxdiff(&a, &b, "x_slider"), e = 0;
        for (double t = 1.0; t <= 2.0 + 1e-9; t += 0.01) e = fmax(e, fabs(t_at(&a, "e", t)));
        printf("  press, PID on the slider's position: bdf - dopri5 %.1e m; tracking error after 1 s %.1e m; bdf %.2f "
               "Newton iterations per step\n", d, e, (double)a.met.newton_iterations / (double)a.met.steps);
        /* it is the position loop that ran (the error channel is the
         * slider's, in m) */
        CHECK(e > 1e-4 && e < 0.05);
        CHECK(d <= 200 * 1e-8 * 0.25);
    }
    t_run_free(&a);
    t_run_free(&b);
}

/* A PI speed controller on a joint_actuator (an ideal torque) on the
 * flywheel: J w' = u, continuous: J w'' + kp w' + ki w = ki r (the closed
 * form of s_exact_pi with a = 1, c = 0); digital (ts = 10 ms): w[k+1] =
 * w[k] + ts u[k] / J exactly, u from the controller's recursion. */
static const char *const ACTUATOR_DOC =
    "{\"dimension\": 2, \"parameters\": {\"J\": 0.001, \"kp\": 0.005, \"ki\": 0.1, \"r\": 100, \"ts\": 0},"
    " \"bodies\": [{\"name\": \"flywheel\", \"mass\": 2.0, \"inertia\": \"$J\", \"com\": [0, 0]}],"
    " \"joints\": [{\"name\": \"shaft\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"flywheel\"], \"at\": [0, 0]}],"
    " \"controllers\": [{\"name\": \"speed\", \"type\": \"pid\", \"kp\": \"$kp\", \"ki\": \"$ki\", \"sample_period\": \"$ts\","
    "   \"measure\": {\"quantity\": \"joint_velocity\", \"joint\": \"shaft\"}, \"setpoint\": \"$r\"}],"
    " \"forces\": [{\"name\": \"drive\", \"type\": \"joint_actuator\", \"joint\": \"shaft\", \"value\": {\"controller\": \"speed\"}}],"
    " \"solver\": {\"t_end\": 1},"
    " \"outputs\": {\"interval\": 0.01, \"channels\": ["
    "   {\"name\": \"omega\", \"quantity\": \"joint_velocity\", \"joint\": \"shaft\"},"
    "   {\"name\": \"tau\", \"quantity\": \"element_force\", \"element\": \"drive\"}]}}";

static void test_joint_actuator(void)
{
    const double Ja = 1e-3, kp = 0.005, ki = 0.1, ts = 0.01;
    double wn = sqrt(ki / Ja), zeta = kp / (2 * Ja * wn), sg = zeta * wn, wd = wn * sqrt(1 - zeta * zeta);
    double A = -RS, Bc = (kp * RS / Ja + sg * A) / wd;
    /* the digital loop's recursion */
    double wk[101], s0 = 0, w = 0;
    for (int k = 0; k <= 100; k++) {
        double e = RS - w, I = s0 + ts * e;
        wk[k] = w;
        s0 = I;
        w += ts * (kp * e + ki * I) / Ja;
    }
    const char *integ[] = {"solver.integrator=bdf", "solver.integrator=dopri5"};
    for (int a = 0; a < 2; a++)
        for (int dig = 0; dig < 2; dig++) {
            const char *sets[] = {"solver.tolerance=1e-8", integ[a], dig ? "ts=0.01" : "ts=0", NULL};
            t_run r;
            t_run_text(ACTUATOR_DOC, sets, &r);
            CHECK(r.rc == 0);
            if (r.rc) { t_run_free(&r); continue; }
            double worst = 0;
            for (int k = 1; k <= 100; k++) {
                double t = k * 0.01, ex = dig ? wk[k] : RS + exp(-sg * t) * (A * cos(wd * t) + Bc * sin(wd * t));
                worst = fmax(worst, fabs(t_at(&r, "omega", t) - ex));
            }
            printf("  PI on a joint_actuator, %s, %s: speed error %.2e rad/s (%.3g x tol x r)\n", dig ? "digital" : "continuous",
                   integ[a], worst, worst / (1e-8 * RS));
            CHECK(worst <= 100 * 1e-8 * RS);
            t_run_free(&r);
        }
}

/* x = e^(A t) x0 for a 3 x 3 A: Taylor series of e^(A t / 2^k) (||A t /
 * 2^k|| <= 0.5, 30 terms: below rounding) squared k times. */
static void s_expm3_apply(const double A[9], double t, const double x0[3], double x[3])
{
    double nrm = 0;
    for (int i = 0; i < 9; i++) nrm = fmax(nrm, fabs(A[i] * t));
    int k = 0;
    while (3 * nrm / ldexp(1, k) > 0.5) k++;
    double Bs[9], E[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, T[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    for (int i = 0; i < 9; i++) Bs[i] = A[i] * t / ldexp(1, k);
    for (int n = 1; n <= 30; n++) {
        double U[9] = {0};
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                for (int l = 0; l < 3; l++) U[3 * i + j] += T[3 * i + l] * Bs[3 * l + j] / n;
        for (int i = 0; i < 9; i++) { T[i] = U[i]; E[i] += U[i]; }
    }
    for (int s = 0; s < k; s++) {
        double U[9] = {0};
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                for (int l = 0; l < 3; l++) U[3 * i + j] += E[3 * i + l] * E[3 * l + j];
        memcpy(E, U, sizeof U);
    }
    for (int i = 0; i < 3; i++) x[i] = E[3 * i] * x0[0] + E[3 * i + 1] * x0[1] + E[3 * i + 2] * x0[2];
}

/* A full PID (derivative filtered by tf) on the joint_actuator's inertia
 * (J w' = u, setpoint step r at t = 0): the closed loop is linear in (w, the
 * integral s0, the filter state s1), x' = A x + b, and its exact response
 * x(t) = x_ss + e^(A t) (x0 - x_ss), x_ss = (r, 0, 0), is e^(A t) by
 * scaling and squaring (independent of the integrators); the derivative
 * kick at t = 0 included.  Continuous, bdf and dopri5 at 1e-8. */
static void test_pid_closed_form(void)
{
    const double Ja = 1e-3, kp = 0.005, ki = 0.1, kd = 5e-5, tf = 0.01;
    const double A[9] = {(-kp - kd / tf) / Ja, ki / Ja, -kd / (tf * Ja), -1, 0, 0, -1 / tf, 0, -1 / tf};
    const char *key = "\"ki\": \"$ki\",";
    const char *at = strstr(ACTUATOR_DOC, key);
    if (!CHECK(at != NULL)) return;
    char doc[4096];
    snprintf(doc, sizeof doc, "%.*s\"ki\": \"$ki\", \"kd\": %g, \"tf\": %g,%s", (int)(at - ACTUATOR_DOC), ACTUATOR_DOC,
             kd, tf, at + strlen(key));
    const char *integ[] = {"solver.integrator=bdf", "solver.integrator=dopri5"};
    for (int a = 0; a < 2; a++) {
        const char *sets[] = {"solver.tolerance=1e-8", integ[a], NULL};
        t_run r;
        t_run_text(doc, sets, &r);
        CHECK(r.rc == 0);
        if (r.rc) { t_run_free(&r); continue; }
        double worst = 0, peak = 0;
        for (int k = 1; k <= 100; k++) {
            double t = 0.01 * k, y0[3] = {-RS, 0, 0}, y[3];
            s_expm3_apply(A, t, y0, y);
            peak = fmax(peak, RS + y[0]);
            worst = fmax(worst, fabs(t_at(&r, "omega", t) - (RS + y[0])));
        }
        printf("  PID (kd %g, tf %g) on a joint_actuator, %s: speed error %.2e rad/s (%.3g x tol x r), peak %.4g\n", kd,
               tf, integ[a], worst, worst / (1e-8 * RS), peak);
        CHECK(worst <= 100 * 1e-8 * RS);
        t_run_free(&r);
    }
}

/* The BDF's restart at a sample (integrate/bdf_sample.c): a slider (m x'' =
 * u on a prismatic joint: its natural coordinates move linearly, the
 * accelerations do not depend on the state) under a digital P controller
 * on its speed, the setpoint stepping from 0 to r at the first sample after
 * t = 0.  The motion is piecewise quadratic: x[k+1] = x[k] + ts v[k] + ts^2
 * / 2 u[k] / m, v[k+1] = v[k] + ts u[k] / m, u[k] = kp (r - v[k]).  The run
 * reaches the first jump at order 1 (u = 0 before it: nothing to raise the
 * order), whose BDF1 steps leave a position error at the tolerance; after
 * them the history moved onto each new motion is exact here (da = du / m,
 * da' = 0), and BDF of order >= 2 reproduces the quadratics: the error stays
 * what it was after the first sample, to 2e-7 m at tolerance 1e-4 and 2e-10
 * m at 1e-6 (0.005 and 0.0004 x tol x x(0.5 s)).  Restarting at order 1
 * after every sample (the previous restart) added a BDF1 error at every
 * sample: 6.7e-4 and 7.0e-6 m by 0.5 s (17 and 18 x tol x x). */
static const char *const SLIDER_DOC =
    "{\"dimension\": 2, \"parameters\": {\"m\": 2, \"kp\": 20, \"r\": 1, \"ts\": 0.01},"
    " \"bodies\": [{\"name\": \"slider\", \"mass\": \"$m\", \"inertia\": 0.1, \"com\": [0, 0]}],"
    " \"joints\": [{\"name\": \"guide\", \"type\": \"prismatic\", \"bodies\": [\"ground\", \"slider\"], \"at\": [0, 0],"
    "   \"axis\": [1, 0]}],"
    " \"controllers\": [{\"name\": \"speed\", \"type\": \"pid\", \"kp\": \"$kp\", \"sample_period\": \"$ts\","
    "   \"measure\": {\"quantity\": \"joint_velocity\", \"joint\": \"guide\"}, \"setpoint\": \"=$r*min(t/$ts, 1)\"}],"
    " \"forces\": [{\"name\": \"drive\", \"type\": \"joint_actuator\", \"joint\": \"guide\", \"value\": {\"controller\": \"speed\"}}],"
    " \"solver\": {\"t_end\": 0.5},"
    " \"outputs\": {\"interval\": 0.01, \"channels\": ["
    "   {\"name\": \"x\", \"quantity\": \"joint_coordinate\", \"joint\": \"guide\"},"
    "   {\"name\": \"v\", \"quantity\": \"joint_velocity\", \"joint\": \"guide\"}]}}";

static void test_sample_restart(void)
{
    const double m = 2, kp = 20, r = 1, ts = 0.01;
    double xk[51], vk[51], x = 0, v = 0;
    for (int k = 0; k <= 50; k++) {
        double u = k == 0 ? 0 : kp * (r - v);
        xk[k] = x;
        vk[k] = v;
        x += ts * v + 0.5 * ts * ts * u / m;
        v += ts * u / m;
    }
    const char *tols[] = {"solver.tolerance=1e-4", "solver.tolerance=1e-6"};
    for (int a = 0; a < 2; a++) {
        const char *sets[] = {"solver.integrator=bdf", tols[a], NULL};
        t_run rr;
        t_run_text(SLIDER_DOC, sets, &rr);
        CHECK(rr.rc == 0);
        if (rr.rc) { t_run_free(&rr); continue; }
        double e2 = t_at(&rr, "x", 2 * ts) - xk[2], drift = 0, ev = 0;
        for (int k = 2; k <= 50; k++) {
            drift = fmax(drift, fabs(t_at(&rr, "x", k * ts) - xk[k] - e2));
            ev = fmax(ev, fabs(t_at(&rr, "v", k * ts) - vk[k]));
        }
        double tol = a ? 1e-6 : 1e-4;
        printf("  digital P on a slider, bdf %s: x error %.2e m after the first sample, changing by %.2e m (%.2g x tol x "
               "x(0.5 s)) up to 0.5 s; v error %.1e m/s; %ld steps, %ld rejected, for 50 samples\n", tols[a], e2, drift,
               drift / (tol * xk[50]), ev, (long)rr.met.steps, (long)rr.met.rejected_steps);
        CHECK(fabs(e2) <= 100 * tol * xk[50]);
        CHECK(drift <= 0.05 * tol * xk[50]);
        /* a constant acceleration between samples: BDF1 is exact in v too */
        CHECK(ev <= 1e-12 * r);
        t_run_free(&rr);
    }
}

/* Integrators and analyses that do not take controllers refuse them (and
 * the BDF with contact force unknowns). */
static void test_refused(void)
{
    const char *cases[][3] = {{"solver.integrator=trapezoidal_al", NULL, NULL},
                              {"solver.integrator=event_driven", NULL, NULL},
                              {"solver.integrator=moreau_jean", NULL, NULL},
                              {"solver.analysis=statics", NULL, NULL},
                              {"solver.integrator=trapezoidal_al", "ts=0.01", NULL},
                              {"solver.contact_force_unknowns=true", NULL, NULL}};
    /* a compliant contact that never touches, for contact_force_unknowns */
    char doc[8192];
    int rc = t_splice_file(FLYWHEEL_PI, "\"solver\": {",
                           "\"shapes\": [{\"name\": \"rim\", \"body\": \"flywheel\", \"type\": \"circle\", \"center\": [0, 0], "
                           "\"radius\": 0.1}, {\"name\": \"floor\", \"body\": \"ground\", \"type\": \"line\", \"point\": [0, -1], "
                           "\"normal\": [0, 1]}], \"contacts\": [{\"shapes\": [\"rim\", \"floor\"], \"law\": \"hertz\", "
                           "\"stiffness\": 1e6, \"exponent\": 1.5}], \"solver\": {", doc, sizeof doc);
    if (rc) return;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        t_run r;
        t_run_text(doc, cases[c], &r);
        int found = 0;
        for (int e = 0; e < r.err.n; e++)
            found |= strstr(r.err.e[e].message, "controller 'speed'") &&
                     (strstr(r.err.e[e].message, "bdf and dopri5") || strstr(r.err.e[e].message, "contact_force_unknowns"));
        printf("  %s%s%s: rc %d, %s\n", cases[c][0], cases[c][1] ? " " : "", cases[c][1] ? cases[c][1] : "", r.rc,
               r.err.n > 0 ? r.err.e[0].message : "(no message)");
        CHECK(r.rc != 0 && found);
        t_run_free(&r);
    }
}

/* A joint reaction measured by a continuous controller (run/measure.h):
 * an algebraic loop where the output the reaction moves at the same
 * instant drives a force at that instant (a joint_actuator, a dc_motor
 * without inductance): solved at each state when the measuring controller
 * drives the force itself (one such loop per mechanism), refused along a
 * cascade at the measure of the controller that reads the reaction;
 * without a loop where the output reaches the mechanics through a state
 * (an inductance, integral action only, an lti block with D = 0, an inner
 * loop without feed-through) or is sampled.  Accepted cases run by bdf and
 * dopri5; contacts and a loop gain below -1 refuse the run. */
static void test_reaction_loops(void)
{
    static const char *const RX = "\"measure\": {\"quantity\": \"reaction_force\", \"joint\": \"j\", \"component\": \"x\"}";
    static const struct { const char *ctrls, *force, *ptr, *msg; } cases[] = {
        /* refused: feed-through into an instantaneous torque or force
         * through a cascade, or a second such loop */
        {"{\"name\": \"rx\", \"type\": \"pid\", \"kp\": 1, %s, \"setpoint\": 0}, {\"name\": \"c\", \"type\": \"pid\", "
         "\"kp\": 1, \"measure\": {\"quantity\": \"joint_velocity\", \"joint\": \"j\"}, \"setpoint\": {\"controller\": \"rx\"}}",
         "0", "/controllers/0/measure/quantity", "at once via 'c' to dc_motor 'm' (inductance 0): an algebraic loop (use an "
         "inductance > 0, integral-only control or sample_period > 0)"},
        {"{\"name\": \"rx\", \"type\": \"pid\", \"kp\": 1, %s, \"setpoint\": 0}, {\"name\": \"c\", \"type\": \"pid\", "
         "\"kp\": 1, \"measure\": {\"quantity\": \"controller\", \"controller\": \"rx\", \"component\": \"error\"}, \"setpoint\": 0}",
         "0", "/controllers/0/measure/quantity", "an algebraic loop"},
        {"{\"name\": \"c\", \"type\": \"pid\", \"kp\": 1, %s, \"setpoint\": 0}, {\"name\": \"c2\", \"type\": \"pid\", "
         "\"kp\": 2, %s, \"setpoint\": 0}", "two", "/controllers/1/measure/quantity",
         "as controller 'c' does: one such algebraic loop per mechanism is solved"},
        /* accepted, the loop solved at each state: the controller passing the
         * reaction at once to the force it drives */
        {"{\"name\": \"c\", \"type\": \"pid\", \"kp\": 1, \"ki\": 1, %s, \"setpoint\": 0}", "0", NULL, NULL},
        {"{\"name\": \"c\", \"type\": \"pid\", \"kd\": 1, \"tf\": 0.01, %s, \"setpoint\": 0}", "0", NULL, NULL},
        {"{\"name\": \"c\", \"type\": \"lti\", \"num\": [2, 1], \"den\": [1, 1], %s, \"setpoint\": 0}", "0", NULL, NULL},
        {"{\"name\": \"c\", \"type\": \"pid\", \"kp\": 1, %s, \"setpoint\": 0}", "actuator", NULL, NULL},
        /* a loop gain below -1 (positive feedback through the reaction)
         * with output limits: none or several outputs, the run stops with
         * a warning saying so */
        {"{\"name\": \"c\", \"type\": \"pid\", \"kp\": -1, \"y_min\": -10, \"y_max\": 10, %s, \"setpoint\": 0}",
         "actuator", NULL, "no unique output"},
        /* accepted: through a state, or sampled */
        {"{\"name\": \"c\", \"type\": \"pid\", \"kp\": 1, \"ki\": 1, %s, \"setpoint\": 0}", "0.01", NULL, NULL},
        {"{\"name\": \"c\", \"type\": \"pid\", \"ki\": 1, %s, \"setpoint\": 0}", "0", NULL, NULL},
        {"{\"name\": \"c\", \"type\": \"pid\", \"ki\": 1, %s, \"setpoint\": 0}", "actuator", NULL, NULL},
        {"{\"name\": \"c\", \"type\": \"lti\", \"num\": [1], \"den\": [1, 1], %s, \"setpoint\": 0}", "0", NULL, NULL},
        {"{\"name\": \"c\", \"type\": \"pid\", \"kp\": 1, \"sample_period\": 0.001, %s, \"setpoint\": 0}", "0", NULL, NULL},
        {"{\"name\": \"rx\", \"type\": \"pid\", \"kp\": 1, %s, \"setpoint\": 0}, {\"name\": \"c\", \"type\": \"pid\", "
         "\"ki\": 1, \"measure\": {\"quantity\": \"joint_velocity\", \"joint\": \"j\"}, \"setpoint\": {\"controller\": \"rx\"}}",
         "0", NULL, NULL},
        {"{\"name\": \"rx\", \"type\": \"pid\", \"ki\": 1, %s, \"setpoint\": 0}, {\"name\": \"c\", \"type\": \"pid\", "
         "\"kp\": 1, \"measure\": {\"quantity\": \"joint_velocity\", \"joint\": \"j\"}, \"setpoint\": {\"controller\": \"rx\"}}",
         "0", NULL, NULL},
        {"{\"name\": \"c\", \"type\": \"pid\", \"kp\": 1, %s, \"setpoint\": 0}", "0.01 contacts", NULL,
         "not supported in a mechanism with contacts"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char ctrls[1024], doc[8192];
        snprintf(ctrls, sizeof ctrls, cases[i].ctrls, RX, RX);
        int act = !strcmp(cases[i].force, "actuator"), contacts = strstr(cases[i].force, "contacts") != NULL;
        int two = !strcmp(cases[i].force, "two");
        snprintf(doc, sizeof doc,
                 "{\"dimension\": 2, \"gravity\": [0, -9.81],"
                 " \"bodies\": [{\"name\": \"w\", \"mass\": 1, \"inertia\": 1e-2, \"com\": [0.3, -0.4]}],"
                 " \"joints\": [{\"name\": \"j\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"w\"], \"at\": [0, 0]}],"
                 " \"controllers\": [%s],"
                 " \"forces\": [%s\"resistance\": 1, \"torque_constant\": 0.5, \"back_emf_constant\": 0.5, \"inductance\": %s}]%s,"
                 " \"solver\": {\"t_end\": 0.05}}",
                 ctrls,
                 act ? "{\"name\": \"a\", \"type\": \"joint_actuator\", \"joint\": \"j\", \"value\": {\"controller\": \"c\"}},"
                       " {\"name\": \"m\", \"type\": \"dc_motor\", \"joint\": \"j\", \"voltage\": 0, "
                 : two ? "{\"name\": \"a\", \"type\": \"joint_actuator\", \"joint\": \"j\", \"value\": {\"controller\": \"c\"}},"
                         " {\"name\": \"m\", \"type\": \"dc_motor\", \"joint\": \"j\", \"voltage\": {\"controller\": \"c2\"}, "
                     : "{\"name\": \"m\", \"type\": \"dc_motor\", \"joint\": \"j\", \"voltage\": {\"controller\": \"c\"}, ",
                 act || two ? "0" : contacts ? "0.01" : cases[i].force,
                 contacts ? ", \"shapes\": [{\"name\": \"bob\", \"body\": \"w\", \"type\": \"circle\", \"center\": [0.3, -0.4],"
                            " \"radius\": 0.05}, {\"name\": \"floor\", \"body\": \"ground\", \"type\": \"line\", \"point\": [0, -2],"
                            " \"normal\": [0, 1]}], \"contacts\": [{\"shapes\": [\"bob\", \"floor\"], \"law\": \"hertz\","
                            " \"stiffness\": 1e6, \"exponent\": 1.5}]"
                          : "");
        if (cases[i].ptr) {
            if (!CHECK(t_parse_refused(doc, NULL, cases[i].ptr, cases[i].msg))) fprintf(stderr, "  (case %zu)\n", i);
            continue;
        }
        for (int ia = 0; ia < 2; ia++) {
            const char *sets[] = {ia ? "solver.integrator=dopri5" : "solver.integrator=bdf", NULL};
            t_run r;
            t_run_text(doc, sets, &r);
            int said = 0;
            for (int k = 0; k < r.err.n; k++) said |= strstr(r.err.e[k].message, cases[i].msg ? cases[i].msg : "@") != NULL;
            for (int k = 0; k < r.met.nwarning && k < MBS_WARN_MAX; k++)
                said |= strstr(r.met.warning[k], cases[i].msg ? cases[i].msg : "@") != NULL;
            int ok = cases[i].msg ? r.rc != 0 && said : r.rc == 0 && r.met.steps > 0;
            if (!CHECK(ok)) fprintf(stderr, "  (case %zu, %s: rc %d %s)\n", i, sets[0], r.rc, r.err.n ? r.err.e[0].message : "");
            t_run_free(&r);
        }
    }
    printf("  reaction-measuring controllers: %zu cases (2 loops through a cascade and a second loop refused at the "
           "measure; 4 loops solved and 7 loop-free configurations run by bdf and dopri5; a loop gain below -1 and "
           "contacts refused at the run)\n", sizeof cases / sizeof cases[0]);
}

/* Bad controller definitions: each a clear error at its JSON pointer. */
static void test_parser_errors(void)
{
    static const struct { const char *ctrl, *voltage, *channel, *ptr, *msg; } cases[] = {
        /* unknown or unmeasurable signals */
        {"\"type\": \"pid\", \"kp\": 1, \"measure\": {\"quantity\": \"joint_speed\", \"joint\": \"j\"}",
         NULL, NULL, "/controllers/0/measure/quantity", "unknown quantity"},
        {"\"type\": \"pid\", \"kp\": 1, \"measure\": {\"quantity\": \"acceleration\", \"body\": \"w\", \"component\": \"x\"}",
         NULL, NULL, "/controllers/0/measure/quantity", "cannot measure"},
        {"\"type\": \"pid\", \"kp\": 1, \"measure\": {\"quantity\": \"joint_velocity\", \"joint\": \"jj\"}",
         NULL, NULL, "/controllers/0/measure/joint", "unknown joint"},
        {"\"type\": \"pid\", \"kp\": 1, \"measure\": {\"quantity\": \"motor\", \"element\": \"m\", \"component\": \"current\"}",
         NULL, NULL, "/controllers/0/measure/component", "algebraic loop"},
        {"\"type\": \"pid\", \"kp\": 1, \"measure\": {\"name\": \"x\", \"quantity\": \"joint_velocity\", \"joint\": \"j\"}",
         NULL, NULL, "/controllers/0/measure/name", "unknown key"},
        {"\"type\": \"pid\", \"kp\": 1, \"measure\": {\"quantity\": \"element_force\", \"element\": \"a\"}",
         NULL, NULL, "/controllers/0/measure/element", "algebraic loop"},
        /* bad gains */
        {"\"type\": \"pid\", \"kd\": 1, \"measure\": {\"quantity\": \"joint_velocity\", \"joint\": \"j\"}",
         NULL, NULL, "/controllers/0", "'tf' > 0"},
        {"\"type\": \"pid\", \"kd\": 1, \"tf\": -1, \"measure\": {\"quantity\": \"joint_velocity\", \"joint\": \"j\"}",
         NULL, NULL, "/controllers/0/tf", ">= 0"},
        {"\"type\": \"pid\", \"measure\": {\"quantity\": \"joint_velocity\", \"joint\": \"j\"}",
         NULL, NULL, "/controllers/0", "needs a gain"},
        {"\"type\": \"pid\", \"kp\": \"=1/0\", \"measure\": {\"quantity\": \"joint_velocity\", \"joint\": \"j\"}",
         NULL, NULL, "/controllers/0/kp", ""},
        {"\"type\": \"pid\", \"kp\": 1, \"y_min\": 5, \"y_max\": 1, \"measure\": {\"quantity\": \"joint_velocity\", \"joint\": \"j\"}",
         NULL, NULL, "/controllers/0/y_min", "below 'y_max'"},
        {"\"type\": \"pid\", \"kp\": 1, \"sample_period\": -0.001, \"measure\": {\"quantity\": \"joint_velocity\", \"joint\": \"j\"}",
         NULL, NULL, "/controllers/0/sample_period", ">= 0"},
        /* a state-space block without B (the fuzzer's find: the message
         * read the type of the absent key) */
        {"\"type\": \"lti\", \"A\": [[0]], \"C\": [1], \"measure\": {\"quantity\": \"joint_velocity\", \"joint\": \"j\"}",
         NULL, NULL, "/controllers/0/B", "the key is missing"},
        {"\"type\": \"lti\", \"num\": [1, 2, 3], \"den\": [1, 2], \"measure\": {\"quantity\": \"joint_velocity\", \"joint\": \"j\"}",
         NULL, NULL, "/controllers/0/den", "proper"},
        {"\"type\": \"lti\", \"A\": [[0, 1], [-1, 0]], \"B\": [1], \"C\": [1, 0], \"measure\": {\"quantity\": \"joint_velocity\", \"joint\": \"j\"}",
         NULL, NULL, "/controllers/0/B", "2 states"},
        {"\"type\": \"pdi\", \"kp\": 1, \"measure\": {\"quantity\": \"joint_velocity\", \"joint\": \"j\"}",
         NULL, NULL, "/controllers/0/type", "unknown controller type"},
        {"\"type\": \"lti\", \"kp\": 1, \"D\": 1, \"measure\": {\"quantity\": \"joint_velocity\", \"joint\": \"j\"}",
         NULL, NULL, "/controllers/0/kp", "does not apply"},
        /* unknown controller names */
        {"\"type\": \"pid\", \"kp\": 1, \"measure\": {\"quantity\": \"joint_velocity\", \"joint\": \"j\"}",
         "{\"controller\": \"sped\"}", NULL, "/forces/0/voltage/controller", "did you mean 'speed'"},
        {"\"type\": \"pid\", \"kp\": 1, \"measure\": {\"quantity\": \"joint_velocity\", \"joint\": \"j\"}",
         "{\"controller\": \"speed\", \"gain\": 2}", NULL, "/forces/0/voltage", "nothing else"},
        {"\"type\": \"pid\", \"kp\": 1, \"measure\": {\"quantity\": \"joint_velocity\", \"joint\": \"j\"}", NULL,
         "{\"name\": \"c\", \"quantity\": \"controller\", \"controller\": \"nope\", \"component\": \"error\"}",
         "/outputs/channels/0/controller", "no controller named 'nope'"},
        {"\"type\": \"pid\", \"kp\": 1, \"measure\": {\"quantity\": \"joint_velocity\", \"joint\": \"j\"}", NULL,
         "{\"name\": \"c\", \"quantity\": \"controller\", \"controller\": \"speed\", \"component\": \"gain\"}",
         "/outputs/channels/0/component", "\"error\""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char doc[4096];
        snprintf(doc, sizeof doc,
                 "{\"dimension\": 2,"
                 " \"bodies\": [{\"name\": \"w\", \"mass\": 1, \"inertia\": 1e-3, \"com\": [0, 0]}],"
                 " \"joints\": [{\"name\": \"j\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"w\"], \"at\": [0, 0]}],"
                 " \"controllers\": [{\"name\": \"speed\", %s, \"setpoint\": 10}],"
                 " \"forces\": [{\"name\": \"m\", \"type\": \"dc_motor\", \"joint\": \"j\", \"voltage\": %s,"
                 "   \"resistance\": 1, \"torque_constant\": 0.05, \"back_emf_constant\": 0.05},"
                 "   {\"name\": \"a\", \"type\": \"joint_actuator\", \"joint\": \"j\", \"value\": {\"controller\": \"speed\"}}],"
                 " \"solver\": {\"t_end\": 1}%s%s%s}",
                 cases[i].ctrl, cases[i].voltage ? cases[i].voltage : "{\"controller\": \"speed\"}",
                 cases[i].channel ? ", \"outputs\": {\"interval\": 0.1, \"channels\": [" : "",
                 cases[i].channel ? cases[i].channel : "", cases[i].channel ? "]}" : "");
        if (!CHECK(t_parse_refused(doc, NULL, cases[i].ptr, cases[i].msg))) fprintf(stderr, "  (case %zu)\n", i);
    }
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_pi_closed_form();
    test_reaction_loops();
    test_lti_pi();
    test_discrete_pi();
    test_inductive_pi();
    test_antiwindup();
    test_examples();
    test_press_energy();
    test_example_energy();
    test_digital_arm_energy();
    test_continuous_pid();
    test_joint_actuator();
    test_pid_closed_form();
    test_sample_restart();
    test_refused();
    test_parser_errors();
    return CHECK_SUMMARY("controller_test");
}
