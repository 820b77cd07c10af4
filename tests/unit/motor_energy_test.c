/*
 * motor_energy_test.c - a dc_motor's energies as output channels (issue
 * 13): energy_in, copper_energy, friction_energy, gear_energy and
 * energy_out, the integrals of the motor's powers from t = 0 that the
 * output sampler carries over each accepted step (3-point Gauss-Legendre on
 * the step's interpolant, output.c).
 *
 * - The flywheel's spin-up (examples/dc_motor_flywheel.json, L = 0): with
 *   w = w_ss (1 - e^(-t/tau)) and i = a + b e^(-t/tau) (a = (V - ke w_ss) /
 *   R, b = ke w_ss / R), E_in = V (a t + b tau (1 - e^(-t/tau))) and E_cu =
 *   R (a^2 t + 2 a b tau (1 - e^(-t/tau)) + b^2 tau / 2 (1 - e^(-2t/tau))),
 *   E_out the kinetic energy gained, E_fr = E_in - E_cu - E_out.  An error
 *   dw of the speed moves P_in by V ke / R dw and P_cu by 2 i ke dw, so
 *   the accuracy contract on the speed (100 x tol x w_ss) allows E_in to
 *   be off by 100 tol w_ss V ke t / R and E_cu by twice that; the check
 *   takes these bounds.  The quadrature itself, apart from the state's
 *   error: the channel against Simpson's rule over the run's own power
 *   samples every 1 ms (the same interpolated motion), to 1e-2 x tol x
 *   E_in (Simpson's own error where the interpolant's slope jumps between
 *   steps: 1e-9 to 2e-9 of E_in at tol 1e-6; a step left out or a wrong
 *   weight would be off by P h ~ 1e-3 of it).
 * - The energy balance of every mechatronic example written with the
 *   channels, as written (the arm's PD digital at 1 kHz: its powers jump
 *   at every sample) with bdf and dopri5, and in the relative formulation:
 *   per motor E_in = E_cu + E_fr + E_gear + E_out + the magnetic energy
 *   stored, and over the mechanism the motors' E_out = the kinetic and
 *   potential (gravity, springs) energy gained; tolerance 1e-8, to 1e-6 of
 *   the largest flow.
 * - A controller may not measure them (not states of the equations).
 */
#include "check.h"
#include "testutil.h"

#include <math.h>
#include <string.h>

/* examples/dc_motor_flywheel.json's parameters */
static const double V = 12, R = 1, KT = 0.05, J = 1e-3, B = 1e-5;

static const char *const COMP[] = {"energy_in", "copper_energy", "friction_energy", "gear_energy", "energy_out",
                                   "magnetic_energy", "power_in", "copper_loss"};
static const char *const TAG[] = {"Ei", "Ec", "Ef", "Eg", "Eo", "Em", "Pi", "Pc"};
#define NCOMP 8

/* doc: the example at path with, per motor j, the channels TAG[c] j (the
 * components COMP) and E_mech (the energy), samples every `interval`. */
static int s_doc(const char *path, const char *const *motors, int nm, const char *interval, char *doc, size_t size)
{
    char chans[4096] = "\"channels\": [{\"name\": \"E_mech\", \"quantity\": \"energy\"}";
    for (int j = 0; j < nm; j++)
        for (int c = 0; c < NCOMP; c++) {
            size_t n = strlen(chans);
            snprintf(chans + n, sizeof chans - n,
                     ", {\"name\": \"%s%d\", \"quantity\": \"motor\", \"element\": \"%s\", \"component\": \"%s\"}",
                     TAG[c], j, motors[j], COMP[c]);
        }
    strcat(chans, ",");
    char doc1[32768];
    if (t_splice_file(path, "\"channels\": [", chans, doc1, sizeof doc1)) return -1;
    const char *iv = strstr(doc1, "\"interval\": ");
    if (!CHECK(iv != NULL)) return -1;
    int n = snprintf(doc, size, "%.*s\"interval\": %s%s", (int)(iv - doc1), doc1, interval, strpbrk(iv + 12, ",}"));
    return CHECK(n > 0 && (size_t)n < size) ? 0 : -1;
}

/* The value of channel TAG[c] j at sample s. */
static double s_val(const t_run *r, int c, int j, int s)
{
    char nm[16];
    snprintf(nm, sizeof nm, "%s%d", TAG[c], j);
    int col = t_col(r, nm);
    return col < 0 ? NAN : r->res.rows[(size_t)s * (size_t)(1 + r->res.nchannel) + (size_t)col];
}

/* Simpson's rule over samples 0..n (n even) of channel TAG[c] 0. */
static double s_simpson(const t_run *r, int c, int n)
{
    double h = r->res.rows[1 + r->res.nchannel] - r->res.rows[0], s = 0;
    for (int i = 0; i <= n; i++) {
        double f = s_val(r, c, 0, i);
        s += (i == 0 || i == n) ? f : (i % 2 ? 4 * f : 2 * f);
    }
    return s * h / 3;
}

static void test_spinup_energies(void)
{
    double k = KT * KT + B * R, wss = KT * V / k, tau = J * R / k;
    double a = (V - KT * wss) / R, b = KT * wss / R;
    const char *motors[] = {"motor"};
    char doc[32768];
    if (s_doc("examples/dc_motor_flywheel.json", motors, 1, "0.001", doc, sizeof doc)) return;
    const char *integ[] = {"solver.integrator=bdf", "solver.integrator=dopri5", "solver.formulation=relative"};
    const double tols[] = {1e-6, 1e-8};
    for (int ia = 0; ia < 3; ia++)
        for (int it = 0; it < 2; it++) {
            char tol[64];
            snprintf(tol, sizeof tol, "solver.tolerance=%g", tols[it]);
            const char *sets[] = {tol, integ[ia], NULL};
            t_run r;
            t_run_text(doc, sets, &r);
            CHECK(r.rc == 0 && r.res.nsample == 2001);
            if (r.rc || r.res.nsample != 2001) { t_run_free(&r); continue; }
            double ein = 0, ecu = 0, ein_r = 0, ecu_r = 0, bal = 0;
            for (int s = 0; s <= 2000; s++) {
                double t = r.res.rows[(size_t)s * (size_t)(1 + r.res.nchannel)], e = 1 - exp(-t / tau);
                double Ein = V * (a * t + b * tau * e);
                double Ecu = R * (a * a * t + 2 * a * b * tau * e + b * b * tau / 2 * (1 - exp(-2 * t / tau)));
                double bound = 100 * tols[it] * wss * V * KT / R * t;
                double din = fabs(s_val(&r, 0, 0, s) - Ein), dcu = fabs(s_val(&r, 1, 0, s) - Ecu);
                ein = fmax(ein, din);
                ecu = fmax(ecu, dcu);
                if (t > 0) ein_r = fmax(ein_r, din / bound), ecu_r = fmax(ecu_r, dcu / (2 * bound));
                /* the motor's own balance (L = 0, efficiency 1: no gear loss) */
                bal = fmax(bal, fabs(s_val(&r, 0, 0, s) - s_val(&r, 1, 0, s) - s_val(&r, 2, 0, s) -
                                     s_val(&r, 3, 0, s) - s_val(&r, 4, 0, s)));
            }
            /* the quadrature against Simpson over the run's own power samples */
            double qin = fabs(s_val(&r, 0, 0, 2000) - s_simpson(&r, 6, 2000));
            double qcu = fabs(s_val(&r, 1, 0, 2000) - s_simpson(&r, 7, 2000));
            double Ein2 = s_val(&r, 0, 0, 2000);
            printf("  spin-up energies (%s, tol %g): E_in(2 s) %.9g J, against the closed form %.2e J (%.2g of its "
                   "bound), E_cu %.2e J (%.2g); against Simpson on the powers %.1e / %.1e J; motor balance %.1e J\n",
                   integ[ia], tols[it], Ein2, ein, ein_r, ecu, ecu_r, qin, qcu, bal);
            CHECK(ein_r <= 1 && ecu_r <= 1);
            CHECK(qin <= 1e-2 * tols[it] * Ein2 && qcu <= 1e-2 * tols[it] * Ein2);
            CHECK(bal <= 1e-12 * Ein2);
            CHECK(fabs(s_val(&r, 3, 0, 2000)) <= 1e-12 * Ein2);
            t_run_free(&r);
        }
}

/* The energy balance of each mechatronic example with the channels. */
static void test_example_balances(void)
{
    static const struct { const char *path, *motors[2]; int nm; } ex[] = {
        {"examples/dc_motor_flywheel.json", {"motor"}, 1},
        {"examples/dc_motor_flywheel_inductive.json", {"motor"}, 1},
        {"examples/dc_motor_flywheel_pi.json", {"motor"}, 1},
        {"examples/dc_motor_four_bar.json", {"motor"}, 1},
        {"examples/dc_motor_press_pi.json", {"motor"}, 1},
        {"examples/dc_motor_arm_pd.json", {"motor1", "motor2"}, 2},
    };
    const char *integ[] = {"solver.integrator=bdf", "solver.integrator=dopri5", "solver.formulation=relative"};
    for (size_t k = 0; k < sizeof ex / sizeof ex[0]; k++) {
        char doc[32768];
        if (s_doc(ex[k].path, ex[k].motors, ex[k].nm, "0.01", doc, sizeof doc)) continue;
        for (int ia = 0; ia < 3; ia++) {
            const char *sets[] = {"solver.tolerance=1e-8", integ[ia], NULL};
            t_run r;
            t_run_text(doc, sets, &r);
            CHECK(r.rc == 0);
            if (r.rc) { t_run_free(&r); continue; }
            int s = r.res.nsample - 1, w = 1 + r.res.nchannel, cE = t_col(&r, "E_mech");
            double dE = r.res.rows[(size_t)s * w + cE] - r.res.rows[(size_t)cE];
            double in = 0, loss = 0, mag = 0, out = 0, motor_bal = 0, big = fabs(dE);
            for (int j = 0; j < ex[k].nm; j++) {
                double ei = s_val(&r, 0, j, s), l = s_val(&r, 1, j, s) + s_val(&r, 2, j, s) + s_val(&r, 3, j, s);
                double em = s_val(&r, 5, j, s) - s_val(&r, 5, j, 0), eo = s_val(&r, 4, j, s);
                motor_bal = fmax(motor_bal, fabs(ei - l - em - eo));
                in += ei, loss += l, mag += em, out += eo;
                big = fmax(big, fmax(fabs(ei), fmax(fabs(eo), s_val(&r, 1, j, s))));
            }
            double mech_bal = out - dE;
            printf("  %s (%s): E_in %.9g J = losses %.9g + magnetic %.3g + E_out %.9g (imbalance %.1e of the largest "
                   "flow); E_out = energy gained %.9g (%.1e)\n", ex[k].path, integ[ia], in, loss, mag, out,
                   motor_bal / big, dE, fabs(mech_bal) / big);
            CHECK(big > 0.1);
            CHECK(motor_bal <= 1e-6 * big);
            CHECK(fabs(mech_bal) <= 1e-6 * big);
            t_run_free(&r);
        }
    }
}

/* A controller measuring a motor's energy is refused at the component. */
static void test_refused(void)
{
    char doc[32768];
    if (t_splice_file("examples/dc_motor_flywheel_pi.json", "{\"quantity\": \"joint_velocity\", \"joint\": \"shaft\"}",
                      "{\"quantity\": \"motor\", \"element\": \"motor\", \"component\": \"energy_in\"}", doc, sizeof doc))
        return;
    CHECK(t_parse_refused(doc, NULL, "/controllers/0/measure/component", "cannot measure a motor's energy"));
    if (t_splice_file("examples/dc_motor_flywheel.json", "\"component\": \"current\"", "\"component\": \"energy\"",
                      doc, sizeof doc))
        return;
    CHECK(t_parse_refused(doc, NULL, "/outputs/channels/2/component", "\"energy_in\", \"copper_energy\""));
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_spinup_energies();
    test_example_balances();
    test_refused();
    return CHECK_SUMMARY("motor_energy_test");
}
