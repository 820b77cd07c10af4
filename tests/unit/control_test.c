/*
 * control_test.c - the controller blocks of the mechatronic actuators
 * (common/mbs/actuator/control.h) against closed forms: step responses of transfer
 * functions in s (first order, second order, a biproper lead) and of an
 * exactly discretised first order in z; the PID's Jacobian against finite
 * differences, in and out of saturation; a PI loop around a first-order
 * plant (zero steady-state error; back-calculation anti-windup cuts the
 * overshoot after saturation); the digital PID against the continuous one
 * at a short sample period.  The DC motor (common/mbs/actuator/dcmotor.h): the
 * speed of an unloaded motor against its closed form, the power balance,
 * the Jacobian blocks against finite differences, the limits.
 */
#include "check.h"
#include "mbs/actuator/control.h"
#include "mbs/actuator/dcmotor.h"

#include <math.h>
#include <stdio.h>

/* Step response y(T) of a continuous block, classic RK4 at step h. */
static double s_step_response(const mbs_lti *b, double T, double h)
{
    double x[MBS_LTI_MAX] = {0}, k1[MBS_LTI_MAX], k2[MBS_LTI_MAX], k3[MBS_LTI_MAX], k4[MBS_LTI_MAX], y[MBS_LTI_MAX];
    int n = b->n;
    long N = lround(T / h);
    for (long s = 0; s < N; s++) {
        mbs_lti_rhs(b, x, 1, k1);
        for (int i = 0; i < n; i++) y[i] = x[i] + 0.5 * h * k1[i];
        mbs_lti_rhs(b, y, 1, k2);
        for (int i = 0; i < n; i++) y[i] = x[i] + 0.5 * h * k2[i];
        mbs_lti_rhs(b, y, 1, k3);
        for (int i = 0; i < n; i++) y[i] = x[i] + h * k3[i];
        mbs_lti_rhs(b, y, 1, k4);
        for (int i = 0; i < n; i++) x[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
    }
    return mbs_lti_output(b, x, 1);
}

static void test_transfer_functions(void)
{
    mbs_lti b;
    double tau = 0.2;
    /* 1 / (tau s + 1) */
    double n1[] = {1}, d1[] = {tau, 1};
    CHECK(mbs_lti_from_tf(n1, 1, d1, 2, &b) == 0 && b.n == 1 && b.D == 0);
    double e1 = fabs(s_step_response(&b, tau, 1e-4) - (1 - exp(-1)));
    /* w^2 / (s^2 + 2 zeta w s + w^2) */
    double w = 5, z = 0.3, wd = w * sqrt(1 - z * z), T = 0.7;
    double n2[] = {w * w}, d2[] = {1, 2 * z * w, w * w};
    CHECK(mbs_lti_from_tf(n2, 1, d2, 3, &b) == 0 && b.n == 2);
    double y2 = 1 - exp(-z * w * T) * (cos(wd * T) + z / sqrt(1 - z * z) * sin(wd * T));
    double e2 = fabs(s_step_response(&b, T, 1e-4) - y2);
    /* (s + 2) / (s + 1): biproper, D = 1, y = 2 - e^-t */
    double n3[] = {1, 2}, d3[] = {1, 1};
    CHECK(mbs_lti_from_tf(n3, 2, d3, 2, &b) == 0 && b.D == 1);
    double e3 = fabs(s_step_response(&b, 1.5, 1e-4) - (2 - exp(-1.5)));
    printf("  step responses against closed forms: first order %.1e, second order %.1e, lead %.1e\n", e1, e2, e3);
    CHECK(e1 < 1e-12 && e2 < 1e-12 && e3 < 1e-12);
    /* refused: improper, leading zero, non-finite, too many states */
    double n4[] = {1, 0, 0}, d4[] = {1, 1}, d5[] = {0, 1}, n6[] = {NAN}, d7[MBS_LTI_MAX + 2] = {1};
    CHECK(mbs_lti_from_tf(n4, 3, d4, 2, &b) == -1);
    CHECK(mbs_lti_from_tf(n1, 1, d5, 2, &b) == -1);
    CHECK(mbs_lti_from_tf(n6, 1, d1, 2, &b) == -1);
    CHECK(mbs_lti_from_tf(n1, 1, d7, MBS_LTI_MAX + 2, &b) == -1);
    /* discrete: the exact zero-order-hold equivalent of 1 / (tau s + 1) at
     * period ts, (1 - a) / (z - a) with a = e^(-ts / tau): y[k] = 1 - a^k */
    double ts = 0.01, a = exp(-ts / tau), nz[] = {1 - a}, dz[] = {1, -a}, x[MBS_LTI_MAX] = {0}, worst = 0;
    CHECK(mbs_lti_from_tf(nz, 1, dz, 2, &b) == 0);
    for (int k = 0; k < 100; k++) worst = fmax(worst, fabs(mbs_lti_step(&b, x, 1) - (1 - pow(a, k))));
    printf("  discrete first order against 1 - a^k: %.1e\n", worst);
    CHECK(worst < 1e-14);
}

/* The PID's Jacobian against central differences at (s, e). */
static double s_jac_error(const mbs_pid *p, double s0, double s1, double e)
{
    double s[2] = {s0, s1}, sd[2], J[9], worst = 0, h = 1e-6;
    mbs_pid_rhs(p, s, e, sd, J);
    for (int k = 0; k < 3; k++) {
        double sp[2] = {s0, s1}, sm[2] = {s0, s1}, ep = e, em = e, dp[2], dm[2];
        if (k < 2) { sp[k] += h; sm[k] -= h; } else { ep += h; em -= h; }
        double yp = mbs_pid_rhs(p, sp, ep, dp, NULL), ym = mbs_pid_rhs(p, sm, em, dm, NULL);
        worst = fmax(worst, fabs((yp - ym) / (2 * h) - J[k]));
        for (int r = 0; r < 2; r++) worst = fmax(worst, fabs((dp[r] - dm[r]) / (2 * h) - J[3 + 3 * r + k]));
    }
    return worst;
}

/* PI(D) loop around the plant z' = (y - z) / tau, setpoint 1, RK4 at h;
 * the largest z (overshoot) and z(T). */
static void s_loop(const mbs_pid *p, double T, double *zmax, double *zend)
{
    double tau = 0.5, h = 1e-4, z = 0, s[2] = {0, 0};
    *zmax = 0;
    for (long k = 0; k < lround(T / h); k++) {
        double st[3] = {z, s[0], s[1]}, kk[4][3];
        for (int q = 0; q < 4; q++) {
            double c = q == 0 ? 0 : q == 3 ? 1 : 0.5, w[3];
            for (int i = 0; i < 3; i++) w[i] = st[i] + (q ? c * h * kk[q - 1][i] : 0);
            double sd[2], y = mbs_pid_rhs(p, w + 1, 1 - w[0], sd, NULL);
            kk[q][0] = (y - w[0]) / tau;
            kk[q][1] = sd[0];
            kk[q][2] = sd[1];
        }
        for (int i = 0; i < 3; i++) st[i] += h / 6 * (kk[0][i] + 2 * kk[1][i] + 2 * kk[2][i] + kk[3][i]);
        z = st[0]; s[0] = st[1]; s[1] = st[2];
        *zmax = fmax(*zmax, z);
    }
    *zend = z;
}

static void test_pid(void)
{
    mbs_pid p = {.kp = 2, .ki = 4, .kd = 0.1, .tf = 0.01, .y_min = -INFINITY, .y_max = INFINITY};
    CHECK(mbs_pid_init(&p) == 0);
    CHECK(fabs(p.tt - sqrt(0.5 * 0.05)) < 1e-15); /* sqrt(ti td), ti = kp / ki, td = kd / kp */
    double e_lin = s_jac_error(&p, 0.3, -0.2, 0.5);
    mbs_pid q = p;
    q.y_max = 1.5;
    double e_sat = s_jac_error(&q, 0.3, -0.2, 2.0); /* u = 4 + 1.2 + 10 * 2.2 > 1.5 */
    printf("  PID Jacobian against central differences: linear %.1e, saturated %.1e\n", e_lin, e_sat);
    CHECK(e_lin < 1e-7 && e_sat < 1e-7);
    /* invalid sets */
    mbs_pid bad = {.kp = 1, .kd = 1, .tf = 0, .y_min = -1, .y_max = 1};
    CHECK(mbs_pid_init(&bad) == -1);
    mbs_pid bad2 = {.kp = 1, .y_min = 1, .y_max = -1};
    CHECK(mbs_pid_init(&bad2) == -1);
    /* PI on a first-order plant: zero steady-state error; saturated at 1.2,
     * back-calculation against none (tt huge) */
    mbs_pid pi = {.kp = 0.5, .ki = 8, .y_min = -1.2, .y_max = 1.2};
    CHECK(mbs_pid_init(&pi) == 0);
    double zmax, zend, zmax0, zend0;
    s_loop(&pi, 10, &zmax, &zend);
    mbs_pid wind = pi;
    wind.tt = 1e9;
    s_loop(&wind, 10, &zmax0, &zend0);
    printf("  PI loop, output limited to 1.2: overshoot %.1f %% with anti-windup, %.1f %% without; |1 - z(10 s)| = %.1e\n",
           100 * (zmax - 1), 100 * (zmax0 - 1), fabs(1 - zend));
    CHECK(fabs(1 - zend) < 1e-6);
    CHECK(zmax - 1 < 0.5 * (zmax0 - 1));
    /* the digital PID at ts = 1 ms follows the continuous one (first-order
     * discretisation: differences of order ts) */
    mbs_pid dp = p;
    dp.ts = 1e-3;
    double sc[2] = {0, 0}, sd[2] = {0, 0}, worst = 0;
    for (int k = 1; k <= 1000; k++) {
        double t = k * 1e-3, e = sin(3 * t), d[2];
        double yd = mbs_pid_step(&dp, sd, e);
        /* the continuous states, exactly: integral (1 - cos 3t) / 3; the
         * filter state's response to sin 3t */
        double w = 3, tf = p.tf, den = 1 + w * w * tf * tf;
        sc[0] = (1 - cos(w * t)) / w;
        sc[1] = (sin(w * t) - w * tf * cos(w * t) + w * tf * exp(-t / tf)) / den;
        double yc = mbs_pid_rhs(&p, sc, e, d, NULL);
        worst = fmax(worst, fabs(yd - yc));
    }
    printf("  digital PID (ts = 1 ms) against the continuous one on e = sin 3t: largest difference %.2e\n", worst);
    CHECK(worst < 0.05);
}

/* Largest error of the motor's partial derivatives against central
 * differences at (V, i, w). */
static double s_motor_jac(const mbs_dcmotor *m, double V, double i, double w)
{
    mbs_dcmotor_state s, p, q;
    mbs_dcmotor_eval(m, V, i, w, &s);
    double h = 1e-6, worst = 0;
    const double an[3][2] = {{s.ddi_di, s.dT_di}, {s.ddi_dw, s.dT_dw}, {s.ddi_dV, s.dT_dV}};
    for (int k = 0; k < 3; k++) {
        mbs_dcmotor_eval(m, V + (k == 2) * h, i + (k == 0) * h, w + (k == 1) * h, &p);
        mbs_dcmotor_eval(m, V - (k == 2) * h, i - (k == 0) * h, w - (k == 1) * h, &q);
        double sc = 1 + fabs(an[k][0]) + fabs(an[k][1]);
        worst = fmax(worst, fabs((p.di - q.di) / (2 * h) - an[k][0]) / sc);
        worst = fmax(worst, fabs((p.torque - q.torque) / (2 * h) - an[k][1]) / sc);
    }
    return worst;
}

static void test_dcmotor(void)
{
    /* a small servo motor: kt = ke (SI), through a 10:1 gear */
    mbs_dcmotor m = {.R = 2, .L = 0, .kt = 0.05, .ke = 0.05, .J = 2e-5, .ratio = 10, .eta = 1,
                     .v_max = INFINITY, .i_max = INFINITY};
    CHECK(mbs_dcmotor_check(&m) == 0);
    /* unloaded, L = 0, no friction, rotor inertia only (J N^2 at the
     * joint): w(t) = V / (ke N) (1 - exp(-t / tm)), tm = R J / (kt ke) */
    double V = 12, Jj = m.J * m.ratio * m.ratio, w = 0, h = 1e-6, T = 0.05, tm = m.R * m.J / (m.kt * m.ke);
    for (long k = 0; k < lround(T / h); k++) {
        mbs_dcmotor_state s1, s2, s3, s4;
        mbs_dcmotor_eval(&m, V, 0, w, &s1);
        mbs_dcmotor_eval(&m, V, 0, w + 0.5 * h * s1.torque / Jj, &s2);
        mbs_dcmotor_eval(&m, V, 0, w + 0.5 * h * s2.torque / Jj, &s3);
        mbs_dcmotor_eval(&m, V, 0, w + h * s3.torque / Jj, &s4);
        w += h / 6 * (s1.torque + 2 * s2.torque + 2 * s3.torque + s4.torque) / Jj;
    }
    double wex = V / (m.ke * m.ratio) * (1 - exp(-T / tm));
    printf("  DC motor, unloaded: joint speed at %.3f s %.9f rad/s, closed form %.9f (tm = %.3f s)\n", T, w, wex, tm);
    CHECK(fabs(w - wex) < 1e-9 * wex);
    /* power balance at random states, L > 0, friction, gear losses:
     * V i = R i^2 + L i di/dt + friction + gear loss + output */
    mbs_dcmotor g = {.R = 1.5, .L = 2e-3, .kt = 0.08, .ke = 0.08, .J = 1e-5, .b = 1e-4, .tc = 5e-3, .w_eps = 1,
                     .ratio = 20, .eta = 0.8, .v_max = 24, .i_max = 10};
    CHECK(mbs_dcmotor_check(&g) == 0);
    double worst_p = 0, worst_j = 0;
    for (int k = 0; k < 50; k++) {
        double Vk = -20 + 0.8 * k, ik = -5 + 0.2 * k, wk = -30 + 1.3 * k;
        mbs_dcmotor_state s;
        mbs_dcmotor_eval(&g, Vk, ik, wk, &s);
        double bal = s.p_in - (s.p_copper + g.L * s.i * s.di + s.p_friction + s.p_gear + s.p_out);
        worst_p = fmax(worst_p, fabs(bal) / (1 + fabs(s.p_in)));
        worst_j = fmax(worst_j, s_motor_jac(&g, Vk, ik, wk));
        worst_j = fmax(worst_j, s_motor_jac(&m, Vk, ik, wk));
    }
    printf("  DC motor power balance %.1e (relative), Jacobian blocks %.1e\n", worst_p, worst_j);
    CHECK(worst_p < 1e-12);
    CHECK(worst_j < 1e-6);
    /* limits: the voltage (the current's limit out of the way); the current
     * (L = 0 clipped; L > 0: the drive lowers its voltage to R i_max + ke
     * w_m, so the current approaches the limit with the time constant L / R,
     * and the power balance holds with the lowered voltage) */
    mbs_dcmotor_state s;
    mbs_dcmotor gv = g;
    gv.i_max = INFINITY;
    mbs_dcmotor_eval(&gv, 100, 0, 0, &s);
    CHECK(s.v == 24 && s.ddi_dV == 0);
    mbs_dcmotor_eval(&g, 24, 4, 0, &s);
    CHECK_NEAR(s.v, g.R * g.i_max, 1e-12);
    CHECK_NEAR(s.di, g.R * (g.i_max - 4) / g.L, 1e-9);
    CHECK(s.ddi_dV == 0 && s.ddi_dw == 0 && s.ddi_di == -g.R / g.L);
    CHECK(fabs(s.p_in - (s.p_copper + g.L * s.i * s.di + s.p_friction + s.p_gear + s.p_out)) < 1e-12 * s.p_in);
    mbs_dcmotor c = m;
    c.i_max = 1;
    mbs_dcmotor_eval(&c, 12, 0, 0, &s);
    CHECK(s.i == 1 && s.torque == c.kt * c.ratio);
    mbs_dcmotor_eval(&g, 24, 10, 0, &s);
    CHECK(s.di == 0);
    mbs_dcmotor_eval(&g, -24, 10, 0, &s);
    CHECK(s.di < 0); /* back from the limit */
    /* invalid parameters */
    mbs_dcmotor bad = m;
    bad.R = 0;
    CHECK(mbs_dcmotor_check(&bad) == -1);
    bad = g;
    bad.w_eps = 0;
    CHECK(mbs_dcmotor_check(&bad) == -1);
    bad = g;
    bad.eta = 1.5;
    CHECK(mbs_dcmotor_check(&bad) == -1);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_transfer_functions();
    test_pid();
    test_dcmotor();
    return CHECK_SUMMARY("control_test");
}
