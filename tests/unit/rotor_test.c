/*
 * rotor_test.c - a dc_motor's rotor inertia on a planar revolute joint
 * between two moving bodies (docs/actuators.md, "Rotors between moving
 * bodies"): the elbow motor of a two-link arm, carried by the upper link,
 * against the same arm written by hand in absolute angles (the rotor's
 * kinetic energy 1/2 J ((1 - N) w1 + N w2)^2 in the Lagrangian, RK4 at a
 * fine step), with bdf and dopri5 at two tolerances; the kinetic energy
 * channel against the hand formula (rotor included); the unpowered arm's
 * energy conserved; the elbow's reaction force against m2 (a_com2 - g);
 * gear ratio 1 (the stator's side drops out); the relative formulation
 * (the rotor in the articulated-body recursion) against the same
 * reference, and against the natural coordinates with the stator on the
 * tree's child; and the refusals left.
 *
 * Tolerances: the runs are error-controlled; angles are held to 100 x tol
 * (rad) over 2 s of a chaotic-free swing (the accuracy contract, docs/
 * accuracy.md); the reference's RK4 at h = 2e-5 s is accurate to ~1e-11
 * (halving h moves it by less than 1e-12 rad).
 */
#include "check.h"
#include "testutil.h"

#include <math.h>

/* The arm: uniform links along x from the shoulder (ground pivot at the
 * origin), released at rest under gravity; the elbow motor (stator on
 * link1) at constant voltage, L = 0, no friction, efficiency 1. */
static const double L1 = 0.5, L2 = 0.4, M1 = 2, M2 = 1, JR = 1e-4, RK = 0.05, G = 9.81;

static void s_doc(char *buf, size_t n, double N, double V, double R)
{
    snprintf(buf, n,
             "{\"dimension\": 2, \"gravity\": [0, -9.81],"
             " \"bodies\": [{\"name\": \"link1\", \"mass\": %g, \"inertia\": %.17g, \"com\": [%g, 0]},"
             "   {\"name\": \"link2\", \"mass\": %g, \"inertia\": %.17g, \"com\": [%g, 0]}],"
             " \"joints\": [{\"name\": \"shoulder\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"link1\"], \"at\": [0, 0]},"
             "   {\"name\": \"elbow\", \"type\": \"revolute\", \"bodies\": [\"link1\", \"link2\"], \"at\": [%g, 0]}],"
             " \"forces\": [{\"name\": \"m\", \"type\": \"dc_motor\", \"joint\": \"elbow\", \"voltage\": %g,"
             "   \"resistance\": %g, \"torque_constant\": %g, \"back_emf_constant\": %g, \"gear_ratio\": %g,"
             "   \"rotor_inertia\": %g}],"
             " \"solver\": {\"t_end\": 2},"
             " \"outputs\": {\"interval\": 0.01, \"channels\": ["
             "   {\"name\": \"q1\", \"quantity\": \"joint_coordinate\", \"joint\": \"shoulder\"},"
             "   {\"name\": \"q2\", \"quantity\": \"joint_coordinate\", \"joint\": \"elbow\"},"
             "   {\"name\": \"T\", \"quantity\": \"kinetic_energy\"},"
             "   {\"name\": \"E\", \"quantity\": \"energy\"},"
             "   {\"name\": \"Fx\", \"quantity\": \"reaction_force\", \"joint\": \"elbow\", \"component\": \"x\"},"
             "   {\"name\": \"Fy\", \"quantity\": \"reaction_force\", \"joint\": \"elbow\", \"component\": \"y\"}]}}",
             M1, M1 * L1 * L1 / 12, L1 / 2, M2, M2 * L2 * L2 / 12, L1 + L2 / 2, L1, V, R, RK, RK, N, JR);
}

/* The hand-written arm in absolute angles p1, p2 (p2 - p1 the elbow's
 * angle): state s = (p1, p2, w1, w2), ds = its rate; acc = the angular
 * accelerations.  cross = 0 drops the rotor's cross term J N (1 - N) w1 w2
 * (what lumping J N^2 onto link2 and J (1 - N)^2 onto link1 would give). */
typedef struct { double N, V, R, cross; } s_arm;

static void s_rate(const s_arm *a, const double *s, double *ds)
{
    double a1 = L1 / 2, a2 = L2 / 2, I1 = M1 * L1 * L1 / 12, I2 = M2 * L2 * L2 / 12, N = a->N;
    double d = s[1] - s[0], c = M2 * L1 * a2;
    double M11 = M1 * a1 * a1 + I1 + M2 * L1 * L1 + JR * (1 - N) * (1 - N);
    double M22 = M2 * a2 * a2 + I2 + JR * N * N;
    double M12 = c * cos(d) + a->cross * JR * N * (1 - N);
    double tau = N * RK * (a->V - RK * N * (s[3] - s[2])) / a->R;
    double Q1 = -(M1 * a1 + M2 * L1) * G * cos(s[0]) + c * sin(d) * s[3] * s[3] - tau;
    double Q2 = -M2 * a2 * G * cos(s[1]) - c * sin(d) * s[2] * s[2] + tau;
    double det = M11 * M22 - M12 * M12;
    ds[0] = s[2];
    ds[1] = s[3];
    ds[2] = (M22 * Q1 - M12 * Q2) / det;
    ds[3] = (M11 * Q2 - M12 * Q1) / det;
}

/* s_rate for t_rk4_step */
static void s_rate_ctx(const void *a, const double *s, double *ds) { s_rate(a, s, ds); }

/* The reference at the output instants 0, 0.01, ..., 2 s: 201 states. */
static void s_reference(const s_arm *a, double (*out)[4])
{
    double s[4] = {0, 0, 0, 0}, h = 2e-5;
    int per = 500; /* steps per output interval */
    for (int i = 0; i <= 200 * per; i++) {
        if (i % per == 0) memcpy(out[i / per], s, sizeof s);
        t_rk4_step(s_rate_ctx, a, 4, s, h);
    }
}

/* The hand formula of the kinetic energy, rotor included. */
static double s_kinetic(double N, const double *s)
{
    double a1 = L1 / 2, a2 = L2 / 2, I1 = M1 * L1 * L1 / 12, I2 = M2 * L2 * L2 / 12, w1 = s[2], w2 = s[3];
    double wr = (1 - N) * w1 + N * w2;
    return 0.5 * (M1 * a1 * a1 + I1 + M2 * L1 * L1) * w1 * w1 + 0.5 * (M2 * a2 * a2 + I2) * w2 * w2 +
           M2 * L1 * a2 * cos(s[1] - s[0]) * w1 * w2 + 0.5 * JR * wr * wr;
}

/* The arm against its hand-written twin: angles, kinetic energy, and the
 * elbow's reaction on link2, m2 (a_com2 - g), from the reference's state
 * and accelerations. */
static void test_arm_against_hand(double N)
{
    s_arm arm = {N, 6, 1, 1}, lumped = {N, 6, 1, 0};
    static double ref[201][4], refl[201][4];
    s_reference(&arm, ref);
    s_reference(&lumped, refl);
    double lump = 0;
    for (int i = 0; i <= 200; i++) lump = fmax(lump, fabs(ref[i][1] - ref[i][0] - (refl[i][1] - refl[i][0])));
    char doc[4096];
    s_doc(doc, sizeof doc, N, 6, 1);
    const char *integ[] = {"solver.integrator=bdf", "solver.integrator=dopri5", "solver.formulation=relative"};
    const double tols[] = {1e-6, 1e-8};
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 2; b++) {
            char tol[64];
            snprintf(tol, sizeof tol, "solver.tolerance=%g", tols[b]);
            const char *sets[] = {tol, integ[a], NULL};
            t_run r;
            t_run_text(doc, sets, &r);
            CHECK(r.rc == 0);
            if (r.rc) { t_run_free(&r); continue; }
            double eq = 0, eT = 0, eF = 0, Tmax = 0, Fmax = 0;
            for (int i = 0; i <= 200; i++) {
                double t = 0.01 * i, *s = ref[i], ds[4];
                eq = fmax(eq, fabs(t_at(&r, "q1", t) - s[0]));
                eq = fmax(eq, fabs(t_at(&r, "q2", t) - (s[1] - s[0])));
                double T = s_kinetic(N, s);
                Tmax = fmax(Tmax, T);
                eT = fmax(eT, fabs(t_at(&r, "T", t) - T));
                /* the com of link2: elbow + a2 (cos p2, sin p2) */
                s_rate(&arm, s, ds);
                double a2 = L2 / 2, ax = 0, ay = 0;
                ax = L1 * (-sin(s[0]) * ds[2] - cos(s[0]) * s[2] * s[2]) + a2 * (-sin(s[1]) * ds[3] - cos(s[1]) * s[3] * s[3]);
                ay = L1 * (cos(s[0]) * ds[2] - sin(s[0]) * s[2] * s[2]) + a2 * (cos(s[1]) * ds[3] - sin(s[1]) * s[3] * s[3]);
                double Fx = M2 * ax, Fy = M2 * (ay + G);
                Fmax = fmax(Fmax, hypot(Fx, Fy));
                eF = fmax(eF, fmax(fabs(t_at(&r, "Fx", t) - Fx), fabs(t_at(&r, "Fy", t) - Fy)));
            }
            printf("  arm N = %g %-26s tol %g: angles %.2e rad (%.3g x tol), kinetic %.2e J of %.3g, "
                   "elbow reaction %.2e N of %.3g; without the cross term the reference moves by %.2e rad\n",
                   N, integ[a], tols[b], eq, eq / tols[b], eT, Tmax, eF, Fmax, lump);
            CHECK(eq <= 100 * tols[b]);
            CHECK(eT <= 100 * tols[b] * Tmax);
            CHECK(eF <= 1e3 * tols[b] * Fmax);
            t_run_free(&r);
        }
    /* the cross term matters here: dropping it moves the answer by far
     * more than the tolerance (else this test could not tell) */
    if (N != 1) CHECK(lump > 1e4 * 1e-6);
}

/* Unpowered (V = 0, R = 1e9 ohm: the back-EMF's damping N^2 kt ke / R =
 * 1e-9 N m s) the arm is conservative: kinetic (rotor included) plus
 * potential energy stays at its initial 0 to the tolerance. */
static void test_unpowered_energy(void)
{
    char doc[4096];
    s_doc(doc, sizeof doc, 20, 0, 1e9);
    const char *integ[] = {"solver.integrator=bdf", "solver.integrator=dopri5"};
    for (int a = 0; a < 2; a++) {
        const char *sets[] = {"solver.tolerance=1e-8", integ[a], NULL};
        t_run r;
        t_run_text(doc, sets, &r);
        CHECK(r.rc == 0);
        if (r.rc) { t_run_free(&r); continue; }
        double drift = 0, Tmax = 0;
        for (int i = 0; i <= 200; i++) {
            drift = fmax(drift, fabs(t_at(&r, "E", 0.01 * i)));
            Tmax = fmax(Tmax, t_at(&r, "T", 0.01 * i));
        }
        printf("  unpowered %-26s: |kinetic + potential| <= %.2e J (kinetic up to %.3g J)\n", integ[a], drift, Tmax);
        CHECK(Tmax > 1);
        CHECK(drift <= 1e-6 * Tmax);
        t_run_free(&r);
    }
}

/* The stator on the tree's child: the elbow listed as [link2, link1] puts
 * the stator on link2, the rotor turning at (1 - N) w2 + N w1 (another
 * motion: 0.74 rad away); the relative formulation's recursion (the rotor
 * at w_parent + (1 - N) q') and the natural coordinates' angle variables
 * agree, angles, kinetic energy and the elbow's reaction, at 1e-10 (dopri5
 * both). */
static void test_stator_on_child(void)
{
    char doc[4096], rev[4096];
    s_doc(doc, sizeof doc, 20, 6, 1);
    const char *key = "\"bodies\": [\"link1\", \"link2\"]";
    const char *at = strstr(doc, key);
    if (!CHECK(at != NULL)) return;
    snprintf(rev, sizeof rev, "%.*s\"bodies\": [\"link2\", \"link1\"]%s", (int)(at - doc), doc, at + strlen(key));
    const char *nat[] = {"solver.integrator=dopri5", "solver.tolerance=1e-10", NULL};
    const char *rel[] = {"solver.formulation=relative", "solver.tolerance=1e-10", NULL};
    t_run a, b, c;
    t_run_text(rev, nat, &a);
    t_run_text(rev, rel, &b);
    t_run_text(doc, nat, &c);
    CHECK(a.rc == 0 && b.rc == 0 && c.rc == 0);
    if (a.rc == 0 && b.rc == 0 && c.rc == 0) {
        double dq = fmax(t_maxdiff(&a, &b, "q1"), t_maxdiff(&a, &b, "q2")), dT = t_maxdiff(&a, &b, "T");
        double dF = fmax(t_maxdiff(&a, &b, "Fx"), t_maxdiff(&a, &b, "Fy")), other = t_maxdiff(&a, &c, "q1");
        printf("  stator on link2: natural - relative: angles %.1e rad, kinetic %.1e J, elbow reaction %.1e N; "
               "%.2f rad from the stator on link1\n", dq, dT, dF, other);
        CHECK(dq <= 1e-7 && dT <= 1e-7 * 12 && dF <= 1e-6 * 40);
        CHECK(other > 0.1);
    }
    t_run_free(&a);
    t_run_free(&b);
    t_run_free(&c);
}

/* A rotor between moving bodies on a chord: a four-bar whose every joint
 * carries a load (A, B, D damped, the geared motor with its rotor on C: the
 * tree cannot keep C), the rotor a row beside the circuit equations
 * (tree.h mbs_rrotor): relative at 1e-9 against natural bdf at 1e-10 within
 * 2.2e-7 of each channel's range (the contract's bound of relative_test;
 * forces on the largest force's), the rotor itself moving the answer by far
 * more (natural with rotor_inertia 0). */
static const char *const FOUR_ROTOR =
    "{\"dimension\": 2, \"gravity\": [0, -9.81],"
    " \"bodies\": [{\"name\": \"crank\", \"mass\": 1, \"inertia\": 0.1, \"com\": [0, 0.5]},"
    "   {\"name\": \"coupler\", \"mass\": 1, \"inertia\": 0.1, \"com\": [1.5, 1]},"
    "   {\"name\": \"rocker\", \"mass\": 1, \"inertia\": 0.1, \"com\": [3, 0]}],"
    " \"joints\": [{\"name\": \"A\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"crank\"], \"at\": [0, 0]},"
    "   {\"name\": \"B\", \"type\": \"revolute\", \"bodies\": [\"crank\", \"coupler\"], \"at\": [0, 1]},"
    "   {\"name\": \"C\", \"type\": \"revolute\", \"bodies\": [\"coupler\", \"rocker\"], \"at\": [3, 1]},"
    "   {\"name\": \"D\", \"type\": \"revolute\", \"bodies\": [\"rocker\", \"ground\"], \"at\": [3, -1]}],"
    " \"forces\": [{\"type\": \"joint_damping\", \"joint\": \"A\", \"coefficient\": 0.01},"
    "   {\"type\": \"joint_damping\", \"joint\": \"B\", \"coefficient\": 0.01},"
    "   {\"type\": \"joint_damping\", \"joint\": \"D\", \"coefficient\": 0.01},"
    "   {\"name\": \"m\", \"type\": \"dc_motor\", \"joint\": \"C\", \"voltage\": 2, \"resistance\": 1,"
    "   \"torque_constant\": 0.05, \"back_emf_constant\": 0.05, \"gear_ratio\": 20, \"rotor_inertia\": %s}],"
    " \"solver\": {\"t_end\": 3},"
    " \"outputs\": {\"interval\": 0.01, \"channels\": ["
    "   {\"name\": \"th\", \"quantity\": \"joint_coordinate\", \"joint\": \"A\"},"
    "   {\"name\": \"thC\", \"quantity\": \"joint_coordinate\", \"joint\": \"C\"},"
    "   {\"name\": \"T\", \"quantity\": \"kinetic_energy\"}, {\"name\": \"E\", \"quantity\": \"energy\"},"
    "   {\"name\": \"FCx\", \"quantity\": \"reaction_force\", \"joint\": \"C\", \"component\": \"x\"},"
    "   {\"name\": \"FAy\", \"quantity\": \"reaction_force\", \"joint\": \"A\", \"component\": \"y\"},"
    "   {\"name\": \"FBx\", \"quantity\": \"reaction_force\", \"joint\": \"B\", \"component\": \"x\"}]}}";

/* The largest difference of every channel of a and b over the samples, in
 * units of b's range (forces: of b's largest force). */
static double s_worst(const t_run *a, const t_run *b)
{
    double worst = 0, fscale = 0;
    int w = 1 + b->res.nchannel;
    for (int c = 0; c < b->spec->nchannel; c++)
        if (b->spec->channels[c].quantity == MBS_Q_REACTION_FORCE)
            for (int i = 0; i < b->res.nsample; i++) fscale = fmax(fscale, fabs(b->res.rows[(size_t)i * w + c + 1]));
    for (int c = 0; c < b->spec->nchannel; c++) {
        double sc = 0;
        for (int i = 0; i < b->res.nsample; i++) sc = fmax(sc, fabs(b->res.rows[(size_t)i * w + c + 1]));
        if (b->spec->channels[c].quantity == MBS_Q_REACTION_FORCE) sc = fscale;
        worst = fmax(worst, t_maxdiff(a, b, b->spec->channels[c].name) / fmax(sc, 1e-12));
    }
    return worst;
}

static void test_chord_rotor(void)
{
    char doc[8192], doc0[8192];
    snprintf(doc, sizeof doc, FOUR_ROTOR, "1e-4");
    snprintf(doc0, sizeof doc0, FOUR_ROTOR, "0");
    const char *rel[] = {"solver.formulation=relative", "solver.tolerance=1e-9", NULL};
    const char *nat[] = {"solver.integrator=bdf", "solver.tolerance=1e-10", NULL};
    t_run a, b, c;
    t_run_text(doc, rel, &a);
    t_run_text(doc, nat, &b);
    t_run_text(doc0, nat, &c);
    CHECK(a.rc == 0 && b.rc == 0 && c.rc == 0 && a.res.nsample == b.res.nsample && b.res.nsample == c.res.nsample);
    if (!a.rc && !b.rc && !c.rc && a.res.nsample == b.res.nsample && b.res.nsample == c.res.nsample) {
        double e = s_worst(&a, &b), e0 = s_worst(&c, &b);
        printf("  rotor on the chord C (chords '%s'): relative - natural %.2e of the channels' ranges; without the "
               "rotor %.2e\n", a.met.chords, e, e0);
        CHECK(!strcmp(a.met.chords, "C"));
        CHECK(e < 2.2e-7);
        CHECK(e0 > 1e-3);
    }
    t_run_free(&a);
    t_run_free(&b);
    t_run_free(&c);
}

/* A rotor between moving bodies on a spatial revolute joint: taken by
 * both formulations now (the relative one at its joint's node with the
 * gyroscopic moment, tree_dynamics.c; tested in depth on a chain with
 * tilted axes in rotor_space_test.c): here, axes parallel (no gyroscopic
 * moment), the relative run (dopri5) agrees with the natural one (bdf) on
 * both joint angles within 100 x the tolerance 1e-8 over 1 s, and the
 * rotor moves them by far more than that (the run with J = 0). */
static void test_spatial_taken(void)
{
    double d = 0, share = 0;
    t_run r[3];
    for (int k = 0; k < 3; k++) {
        char doc[4096];
        snprintf(doc, sizeof doc,
                 "{\"dimension\": 3,"
                 " \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": [1e-3, 1e-3, 1e-3], \"com\": [0, 0, 0]},"
                 "   {\"name\": \"b\", \"mass\": 1, \"inertia\": [1e-3, 1e-3, 1e-3], \"com\": [1, 0, 0]}],"
                 " \"joints\": [{\"name\": \"p\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"a\"], \"at\": [0, 0, 0],"
                 "   \"axis\": [0, 0, 1]},"
                 "   {\"name\": \"j\", \"type\": \"revolute\", \"bodies\": [\"a\", \"b\"], \"at\": [1, 0, 0], \"axis\": [0, 0, 1]}],"
                 " \"forces\": [{\"name\": \"m\", \"type\": \"dc_motor\", \"joint\": \"j\", \"voltage\": 12,"
                 "   \"resistance\": 1, \"torque_constant\": 0.05, \"back_emf_constant\": 0.05, \"gear_ratio\": 20,"
                 "   \"rotor_inertia\": %g}],"
                 " \"solver\": {\"t_end\": 1, \"tolerance\": 1e-8},"
                 " \"outputs\": {\"interval\": 0.01, \"channels\": ["
                 "   {\"name\": \"qp\", \"quantity\": \"joint_coordinate\", \"joint\": \"p\"},"
                 "   {\"name\": \"qj\", \"quantity\": \"joint_coordinate\", \"joint\": \"j\"}]}}",
                 k == 2 ? 0.0 : 1e-5);
        const char *rel[] = {"solver.formulation=relative", "solver.integrator=dopri5", NULL};
        const char *nat[] = {"solver.integrator=bdf", NULL};
        t_run_text(doc, k == 1 ? nat : rel, &r[k]);
        CHECK(r[k].rc == 0);
    }
    if (r[0].rc == 0 && r[1].rc == 0 && r[2].rc == 0)
        for (int i = 0; i <= 100; i++) {
            const char *q[2] = {"qp", "qj"};
            for (int c = 0; c < 2; c++) {
                d = fmax(d, fabs(t_at(&r[0], q[c], 0.01 * i) - t_at(&r[1], q[c], 0.01 * i)));
                share = fmax(share, fabs(t_at(&r[0], q[c], 0.01 * i) - t_at(&r[2], q[c], 0.01 * i)));
            }
        }
    printf("  spatial rotor between moving bodies: relative against natural %.2e rad, the rotor's share %.3g rad\n",
           d, share);
    CHECK(d <= 100 * 1e-8);
    CHECK(share > 1e4 * 1e-8);
    for (int k = 0; k < 3; k++) t_run_free(&r[k]);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_arm_against_hand(20);
    test_arm_against_hand(1);
    test_unpowered_energy();
    test_stator_on_child();
    test_chord_rotor();
    test_spatial_taken();
    return CHECK_SUMMARY("rotor_test");
}
