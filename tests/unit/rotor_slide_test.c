/*
 * rotor_slide_test.c - a dc_motor's rotor inertia on a planar prismatic
 * joint between two moving bodies (docs/actuators.md, "Rotors between
 * moving bodies"): a lead-screw motor on a rotating arm drives a slider
 * along the arm, the stator (and the screw) on the arm.  The rotor turns at
 * s' / lead relative to the arm, whose rotation is normal to the screw, so
 * its kinetic energy is 1/2 (J / lead^2) s'^2: with r = r0 + s the
 * slider's distance from the pivot, phi the arm's angle,
 *
 *   T = 1/2 (I_A + I_B + m_B r^2) phi'^2 + 1/2 (m_B + J / lead^2) s'^2,
 *   V = g sin(phi) (m_A c_A + m_B r),
 *
 * the hand-written Lagrangian integrated by RK4 at h = 2e-5 s (halving h
 * moves it by less than 1e-12).  Checked with bdf and dopri5 at 1e-6 and
 * 1e-8: the arm's angle and the slide within 100 x tol (rad, m: lengths of
 * order 1), the kinetic energy channel against T within 100 x tol x its
 * largest value, the prismatic joint's reaction on the slider, m_B (a_B -
 * g) - (F - (J / lead^2) s'') ax (the screw's force F less what the rotor
 * takes to spin up), within 1e3 x tol x its largest; lumping the rotor's
 * J / lead^2 into the slider's mass (it then also turns with the arm) moves
 * the reference by far more than the tolerance.  The relative formulation
 * (dopri5; the rotor an armature J / lead^2 on the slide's rate in the
 * articulated-body recursion, tree.h) against the same reference and
 * bounds, with the stator on the tree's parent and on its child (the joint
 * listed [slider, arm]); and a slider on a prismatic joint to ground driven
 * by the same motor (no gravity along it) against its closed form, (m + J /
 * lead^2) s'' = N kt (V - ke N s') / R: s' = v (1 - exp(-t / tau)), v = V /
 * (ke N), tau = (m + J / lead^2) R / (N^2 kt ke), in both formulations.
 */
#include "check.h"
#include "testutil.h"

#include <math.h>
#include <string.h>

static const double MA = 1, CA = 0.5, IA = 0.02, MB = 1, IB = 1e-3, R0 = 1, G = 9.81;
static const double JR = 1e-5, LEAD = 0.01, KT = 0.05, RES = 1, V = 1;

static void s_doc(char *buf, size_t n, int swapped)
{
    snprintf(buf, n,
             "{\"dimension\": 2, \"gravity\": [0, -9.81],"
             " \"bodies\": [{\"name\": \"arm\", \"mass\": %g, \"inertia\": %g, \"com\": [%g, 0]},"
             "   {\"name\": \"slider\", \"mass\": %g, \"inertia\": %g, \"com\": [%g, 0]}],"
             " \"joints\": [{\"name\": \"p\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"arm\"], \"at\": [0, 0]},"
             "   {\"name\": \"j\", \"type\": \"prismatic\", \"bodies\": %s, \"at\": [%g, 0],"
             "    \"axis\": [%d, 0]}],"
             " \"forces\": [{\"name\": \"m\", \"type\": \"dc_motor\", \"joint\": \"j\", \"voltage\": %g,"
             "   \"resistance\": %g, \"torque_constant\": %g, \"back_emf_constant\": %g, \"rotor_inertia\": %g,"
             "   \"lead\": %g}],"
             " \"solver\": {\"t_end\": 1},"
             " \"outputs\": {\"interval\": 0.01, \"channels\": ["
             "   {\"name\": \"phi\", \"quantity\": \"joint_coordinate\", \"joint\": \"p\"},"
             "   {\"name\": \"s\", \"quantity\": \"joint_coordinate\", \"joint\": \"j\"},"
             "   {\"name\": \"T\", \"quantity\": \"kinetic_energy\"},"
             "   {\"name\": \"Fx\", \"quantity\": \"reaction_force\", \"joint\": \"j\", \"component\": \"x\"},"
             "   {\"name\": \"Fy\", \"quantity\": \"reaction_force\", \"joint\": \"j\", \"component\": \"y\"}]}}",
             MA, IA, CA, MB, IB, R0, swapped ? "[\"slider\", \"arm\"]" : "[\"arm\", \"slider\"]", R0,
             swapped ? -1 : 1, V, RES, KT, KT, JR, LEAD);
}

/* The screw's force on the slider at slide rate sd (L = 0, no friction,
 * efficiency 1): N kt (V - ke N sd) / R, N = 1 / lead. */
static double s_force(double sd)
{
    double N = 1 / LEAD;
    return N * KT * (V - KT * N * sd) / RES;
}

/* State y = (phi, s, phi', s'); lumped: the rotor's mass on the slider. */
static void s_rate(int lumped, const double *y, double *dy)
{
    double ms = JR / (LEAD * LEAD), mb = lumped ? MB + ms : MB, r = R0 + y[1];
    double Itot = IA + MA * CA * CA + IB + mb * r * r;
    dy[0] = y[2];
    dy[1] = y[3];
    dy[2] = (-2 * mb * r * y[3] * y[2] - G * cos(y[0]) * (MA * CA + mb * r)) / Itot;
    dy[3] = (mb * r * y[2] * y[2] - mb * G * sin(y[0]) + s_force(y[3])) / (MB + ms);
}

/* s_rate for t_rk4_step (ctx: the lumped flag) */
static void s_rate_ctx(const void *lumped, const double *y, double *dy) { s_rate(*(const int *)lumped, y, dy); }

static void s_reference(int lumped, double (*out)[4])
{
    double y[4] = {0, 0, 0, 0}, h = 2e-5;
    int per = 500;
    for (int i = 0; i <= 100 * per; i++) {
        if (i % per == 0) memcpy(out[i / per], y, sizeof y);
        t_rk4_step(s_rate_ctx, &lumped, 4, y, h);
    }
}

static void test_against_hand(void)
{
    static double ref[101][4], refl[101][4];
    s_reference(0, ref);
    s_reference(1, refl);
    double lump = 0;
    for (int i = 0; i <= 100; i++) lump = fmax(lump, fabs(ref[i][0] - refl[i][0]));
    char doc[4096];
    const char *integ[] = {"solver.integrator=bdf", "solver.integrator=dopri5", "solver.integrator=dopri5",
                           "solver.integrator=dopri5"};
    const double tols[] = {1e-6, 1e-8}, ms = JR / (LEAD * LEAD);
    /* a: natural bdf, natural dopri5, relative, relative with the joint
     * listed [slider, arm] (its slide and reaction signs the same: the
     * axis reversed with the bodies) */
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 2; b++) {
            char tol[64];
            snprintf(tol, sizeof tol, "solver.tolerance=%g", tols[b]);
            s_doc(doc, sizeof doc, a == 3);
            const char *sets[] = {tol, integ[a], a >= 2 ? "solver.formulation=relative" : NULL, NULL};
            t_run r;
            t_run_text(doc, sets, &r);
            CHECK(r.rc == 0);
            if (r.rc) { t_run_free(&r); continue; }
            double eq = 0, eT = 0, eF = 0, Tmax = 0, Fmax = 0;
            for (int i = 0; i <= 100; i++) {
                double t = 0.01 * i, *y = ref[i], dy[4], rr = R0 + y[1];
                eq = fmax(eq, fmax(fabs(t_at(&r, "phi", t) - y[0]), fabs(t_at(&r, "s", t) - y[1])));
                double T = 0.5 * (IA + MA * CA * CA + IB + MB * rr * rr) * y[2] * y[2] + 0.5 * (MB + ms) * y[3] * y[3];
                Tmax = fmax(Tmax, T);
                eT = fmax(eT, fabs(t_at(&r, "T", t) - T));
                /* the slider's com (at the joint point): radial s'' - r phi'^2,
                 * tangential r phi'' + 2 s' phi' */
                s_rate(0, y, dy);
                double c = cos(y[0]), sn = sin(y[0]);
                double ar = dy[3] - rr * y[2] * y[2], at = rr * dy[2] + 2 * y[3] * y[2];
                double ax = ar * c - at * sn, ay = ar * sn + at * c, f = s_force(y[3]) - ms * dy[3];
                double Fx = MB * ax - f * c, Fy = MB * (ay + G) - f * sn;
                if (a == 3) { Fx = -Fx; Fy = -Fy; } /* the reaction on body[1], the arm */
                Fmax = fmax(Fmax, hypot(Fx, Fy));
                eF = fmax(eF, fmax(fabs(t_at(&r, "Fx", t) - Fx), fabs(t_at(&r, "Fy", t) - Fy)));
            }
            printf("  lead-screw rotor on the arm (%s%s, tol %g): angle and slide %.2e (%.3g x tol), kinetic %.2e J of "
                   "%.3g, slide reaction %.2e N of %.3g; the rotor lumped into the slider moves the angle by %.2e "
                   "rad\n", integ[a], a == 2 ? ", relative" : a == 3 ? ", relative, [slider, arm]" : "", tols[b], eq, eq / tols[b], eT, Tmax, eF, Fmax, lump);
            CHECK(eq <= 100 * tols[b]);
            CHECK(eT <= 100 * tols[b] * Tmax);
            CHECK(eF <= 1e3 * tols[b] * Fmax);
            t_run_free(&r);
        }
    CHECK(lump > 1e4 * 1e-6);
}

static void test_grounded_slide(void)
{
    const double m = 2, N = 1 / LEAD, mr = JR * N * N, vinf = V / (KT * N), tau = (m + mr) * RES / (N * N * KT * KT);
    char doc[4096];
    snprintf(doc, sizeof doc,
             "{\"dimension\": 2, \"gravity\": [0, -9.81],"
             " \"bodies\": [{\"name\": \"s\", \"mass\": %g, \"inertia\": 0.01, \"com\": [0, 0]}],"
             " \"joints\": [{\"name\": \"j\", \"type\": \"prismatic\", \"bodies\": [\"ground\", \"s\"], \"at\": [0, 0],"
             "   \"axis\": [1, 0]}],"
             " \"forces\": [{\"name\": \"m\", \"type\": \"dc_motor\", \"joint\": \"j\", \"voltage\": %g,"
             "   \"resistance\": %g, \"torque_constant\": %g, \"back_emf_constant\": %g, \"rotor_inertia\": %g,"
             "   \"lead\": %g}],"
             " \"solver\": {\"t_end\": 0.5, \"tolerance\": 1e-8, \"integrator\": \"dopri5\"},"
             " \"outputs\": {\"interval\": 0.01, \"channels\": ["
             "   {\"name\": \"v\", \"quantity\": \"joint_velocity\", \"joint\": \"j\"},"
             "   {\"name\": \"T\", \"quantity\": \"kinetic_energy\"}]}}",
             m, V, RES, KT, KT, JR, LEAD);
    for (int rel = 0; rel < 2; rel++) {
        const char *sets[] = {rel ? "solver.formulation=relative" : NULL, NULL};
        t_run r;
        t_run_text(doc, sets, &r);
        CHECK(r.rc == 0);
        CHECK(r.met.formulation && !strcmp(r.met.formulation, rel ? "relative" : "natural"));
        double ev = 0, eT = 0;
        for (int i = 0; i <= 50 && r.rc == 0; i++) {
            double t = 0.01 * i, v = vinf * (1 - exp(-t / tau));
            ev = fmax(ev, fabs(t_at(&r, "v", t) - v));
            eT = fmax(eT, fabs(t_at(&r, "T", t) - 0.5 * (m + mr) * v * v));
        }
        printf("  slider on ground, lead-screw rotor (%s): speed %.2e m/s of %.3g (tau %.3g s), kinetic %.2e J\n",
               rel ? "relative" : "natural", ev, vinf, tau, eT);
        CHECK(ev <= 100 * 1e-8 * vinf);
        CHECK(eT <= 100 * 1e-8 * 0.5 * (m + mr) * vinf * vinf);
        t_run_free(&r);
    }
}

/* The lead-screw rotor on a chord: the arm's slider also held by a rod
 * hinged to the ground (one loop, one freedom) whose every joint carries a
 * load (p, g2, rs damped, listed before the motor's j: the tree keeps rs, j
 * is the chord), the rotor a row beside the circuit equations (tree.h
 * mbs_rrotor): relative at 1e-9 against natural bdf at 1e-10 within 2.2e-7
 * of each channel's range (forces: of the largest force), the chord's
 * reaction the screw's force less the rotor's as natural's; without the
 * rotor the answer moves by far more. */
static void test_chord_slide(void)
{
    static const char *const DOC =
        "{\"dimension\": 2, \"gravity\": [0, -9.81],"
        " \"bodies\": [{\"name\": \"arm\", \"mass\": 1, \"inertia\": 0.02, \"com\": [0.5, 0]},"
        "   {\"name\": \"slider\", \"mass\": 1, \"inertia\": 0.001, \"com\": [1, 0]},"
        "   {\"name\": \"rod\", \"mass\": 0.5, \"inertia\": 0.04, \"com\": [1, -0.5]}],"
        " \"joints\": [{\"name\": \"p\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"arm\"], \"at\": [0, 0]},"
        "   {\"name\": \"g2\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"rod\"], \"at\": [1, -1]},"
        "   {\"name\": \"rs\", \"type\": \"revolute\", \"bodies\": [\"rod\", \"slider\"], \"at\": [1, 0]},"
        "   {\"name\": \"j\", \"type\": \"prismatic\", \"bodies\": [\"arm\", \"slider\"], \"at\": [1, 0], \"axis\": [1, 0]}],"
        " \"forces\": [{\"type\": \"joint_damping\", \"joint\": \"p\", \"coefficient\": 0.01},"
        "   {\"type\": \"joint_damping\", \"joint\": \"g2\", \"coefficient\": 0.01},"
        "   {\"type\": \"joint_damping\", \"joint\": \"rs\", \"coefficient\": 0.01},"
        "   {\"name\": \"m\", \"type\": \"dc_motor\", \"joint\": \"j\", \"voltage\": 1, \"resistance\": 1,"
        "   \"torque_constant\": 0.05, \"back_emf_constant\": 0.05, \"rotor_inertia\": %s, \"lead\": 0.01}],"
        " \"solver\": {\"t_end\": 2},"
        " \"outputs\": {\"interval\": 0.01, \"channels\": ["
        "   {\"name\": \"phi\", \"quantity\": \"joint_coordinate\", \"joint\": \"p\"},"
        "   {\"name\": \"s\", \"quantity\": \"joint_coordinate\", \"joint\": \"j\"},"
        "   {\"name\": \"T\", \"quantity\": \"kinetic_energy\"},"
        "   {\"name\": \"Fjx\", \"quantity\": \"reaction_force\", \"joint\": \"j\", \"component\": \"x\"},"
        "   {\"name\": \"Fjy\", \"quantity\": \"reaction_force\", \"joint\": \"j\", \"component\": \"y\"},"
        "   {\"name\": \"Fpx\", \"quantity\": \"reaction_force\", \"joint\": \"p\", \"component\": \"x\"}]}}";
    char doc[8192], doc0[8192];
    snprintf(doc, sizeof doc, DOC, "1e-5");
    snprintf(doc0, sizeof doc0, DOC, "0");
    const char *rel[] = {"solver.formulation=relative", "solver.tolerance=1e-9", NULL};
    const char *nat[] = {"solver.integrator=bdf", "solver.tolerance=1e-10", NULL};
    t_run a, b, c;
    t_run_text(doc, rel, &a);
    t_run_text(doc, nat, &b);
    t_run_text(doc0, nat, &c);
    CHECK(a.rc == 0 && b.rc == 0 && c.rc == 0 && a.res.nsample == b.res.nsample && b.res.nsample == c.res.nsample);
    if (!a.rc && !b.rc && !c.rc && a.res.nsample == b.res.nsample && b.res.nsample == c.res.nsample) {
        static const char *const ch[] = {"phi", "s", "T", "Fjx", "Fjy", "Fpx"};
        double fscale = 0, e = 0, e0 = 0;
        for (int k = 3; k < 6; k++)
            for (int i = 0; i <= 200; i++) fscale = fmax(fscale, fabs(t_at(&b, ch[k], 0.01 * i)));
        for (int k = 0; k < 6; k++) {
            double sc = 0;
            for (int i = 0; i <= 200; i++) sc = fmax(sc, fabs(t_at(&b, ch[k], 0.01 * i)));
            if (k >= 3) sc = fscale;
            e = fmax(e, t_maxdiff(&a, &b, ch[k]) / sc);
            e0 = fmax(e0, t_maxdiff(&c, &b, ch[k]) / sc);
        }
        printf("  lead-screw rotor on the chord j (chords '%s'): relative - natural %.2e of the channels' ranges; "
               "without the rotor %.2e\n", a.met.chords, e, e0);
        CHECK(!strcmp(a.met.chords, "j"));
        CHECK(e < 2.2e-7);
        CHECK(e0 > 1e-3);
    }
    t_run_free(&a);
    t_run_free(&b);
    t_run_free(&c);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_against_hand();
    test_grounded_slide();
    test_chord_slide();
    return CHECK_SUMMARY("rotor_slide_test");
}
