/*
 * relative_accuracy_test.c - the relative formulation's global error per
 * tolerance on a long chain that is not chaotic (issue 12, item "error
 * control on positions"; the contract of docs/accuracy.md: 100 x tol x L).
 *
 * The 40-rod coil of bench/relative_chain.py is chaotic: a difference of
 * 1e-9 grows by orders of magnitude in 1 s, so its tip error per tolerance
 * measures the chaos as much as the error control.  Here: 40 uniform rods
 * of 0.1 m (L = 0.1 m, the largest body) and 0.1 kg on revolute joints,
 * released horizontal under gravity, each joint damped (0.001 and 0.005
 * N m s/rad: the motion decays instead of folding into a coil, so a
 * perturbation does not grow exponentially), 2 s.  The tip against the
 * relative formulation at tolerance 1e-12, itself checked against natural
 * bdf at 1e-11 (an independent solver: they must agree far below the
 * bounds), at tolerances 1e-3 ... 1e-9, relative and natural bdf: the
 * largest tip distance over the samples must stay within 100 x tol x L.
 * And a spatial one: 20 thin rods on spherical joints (the coil's rods),
 * hanging, swung as a rigid pendulum, 2 s: a large motion that stays
 * regular (the balls' quaternions under the same error control).
 */
#include "check.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NROD 40
#define LINK 0.1

/* The chain's document with joint damping c into buf. */
static void s_chain(double c, char *buf, size_t size)
{
    size_t n = (size_t)snprintf(buf, size, "{\"name\": \"chain%d\", \"dimension\": 2, \"gravity\": [0, -9.81], \"bodies\": [",
                                NROD);
    double it = 0.1 * LINK * LINK / 12;
    for (int i = 0; i < NROD; i++)
        n += (size_t)snprintf(buf + n, size - n, "%s{\"name\": \"r%d\", \"mass\": 0.1, \"inertia\": %.17g, \"com\": [%.17g, 0]}",
                              i ? ", " : "", i, it, LINK * i + LINK / 2);
    n += (size_t)snprintf(buf + n, size - n, "], \"joints\": [");
    for (int i = 0; i < NROD; i++) {
        char parent[16];
        snprintf(parent, sizeof parent, i ? "r%d" : "ground", i - 1);
        n += (size_t)snprintf(buf + n, size - n,
                              "%s{\"name\": \"j%d\", \"type\": \"revolute\", \"bodies\": [\"%s\", \"r%d\"], \"at\": [%.17g, 0]}",
                              i ? ", " : "", i, parent, i, LINK * i);
    }
    n += (size_t)snprintf(buf + n, size - n, "], \"forces\": [");
    for (int i = 0; i < NROD; i++)
        n += (size_t)snprintf(buf + n, size - n, "%s{\"type\": \"joint_damping\", \"joint\": \"j%d\", \"coefficient\": %g}",
                              i ? ", " : "", i, c);
    n += (size_t)snprintf(buf + n, size - n,
                          "], \"solver\": {\"t_end\": 2}, \"outputs\": {\"interval\": 0.05, \"channels\": ["
                          "{\"name\": \"tx\", \"quantity\": \"position\", \"body\": \"r%d\", \"point\": [%.17g, 0], \"component\": \"x\"},"
                          "{\"name\": \"ty\", \"quantity\": \"position\", \"body\": \"r%d\", \"point\": [%.17g, 0], \"component\": \"y\"}]}}",
                          NROD - 1, LINK * NROD, NROD - 1, LINK * NROD);
    CHECK(n < size);
}

/* A spatial chain of nrod thin rods (0.1 m, 0.1 kg, axial inertia 1/667 of
 * the transverse) on spherical joints, hanging, set swinging as a rigid
 * pendulum at w0 rad/s about x (the tip reaches 1.5 m sideways at w0 = 2,
 * 20 rods): large, non-chaotic motion over 2 s. */
static void s_chain3(int nrod, double w0, char *buf, size_t size)
{
    double it = 0.1 * LINK * LINK / 12;
    size_t n = (size_t)snprintf(buf, size, "{\"name\": \"hang%d\", \"dimension\": 3, \"gravity\": [0, 0, -9.81], \"bodies\": [",
                                nrod);
    for (int i = 0; i < nrod; i++) {
        double z = -(LINK * i + LINK / 2);
        n += (size_t)snprintf(buf + n, size - n,
                              "%s{\"name\": \"r%d\", \"mass\": 0.1, \"inertia\": [%.17g, %.17g, 1.25e-6, 0, 0, 0], "
                              "\"com\": [0, 0, %.17g], \"velocity\": [0, %.17g, 0], \"angular_velocity\": [%.17g, 0, 0]}",
                              i ? ", " : "", i, it, it, z, -w0 * z, -w0);
    }
    n += (size_t)snprintf(buf + n, size - n, "], \"joints\": [");
    for (int i = 0; i < nrod; i++) {
        char parent[16];
        snprintf(parent, sizeof parent, i ? "r%d" : "ground", i - 1);
        n += (size_t)snprintf(buf + n, size - n,
                              "%s{\"name\": \"j%d\", \"type\": \"spherical\", \"bodies\": [\"%s\", \"r%d\"], \"at\": [0, 0, %.17g]}",
                              i ? ", " : "", i, parent, i, -LINK * i);
    }
    n += (size_t)snprintf(buf + n, size - n,
                          "], \"solver\": {\"t_end\": 2}, \"outputs\": {\"interval\": 0.05, \"channels\": ["
                          "{\"name\": \"tx\", \"quantity\": \"position\", \"body\": \"r%d\", \"point\": [0, 0, %.17g], \"component\": \"x\"},"
                          "{\"name\": \"ty\", \"quantity\": \"position\", \"body\": \"r%d\", \"point\": [0, 0, %.17g], \"component\": \"y\"},"
                          "{\"name\": \"tz\", \"quantity\": \"position\", \"body\": \"r%d\", \"point\": [0, 0, %.17g], \"component\": \"z\"}]}}",
                          nrod - 1, -LINK * nrod, nrod - 1, -LINK * nrod, nrod - 1, -LINK * nrod);
    CHECK(n < size);
}

/* Largest tip distance between two runs over their samples. */
static double s_tip(const t_run *a, const t_run *b)
{
    int ax = t_col(a, "tx"), ay = t_col(a, "ty"), bx = t_col(b, "tx"), by = t_col(b, "ty");
    int az = t_col(a, "tz"), bz = t_col(b, "tz");
    if (ax < 0 || bx < 0 || a->res.nsample != b->res.nsample) return INFINITY;
    double mx = 0;
    for (int i = 0; i < a->res.nsample; i++) {
        const double *ra = a->res.rows + (size_t)i * (1 + a->res.nchannel);
        const double *rb = b->res.rows + (size_t)i * (1 + b->res.nchannel);
        double dz = az >= 0 && bz >= 0 ? ra[az] - rb[bz] : 0;
        double d = sqrt((ra[ax] - rb[bx]) * (ra[ax] - rb[bx]) + (ra[ay] - rb[by]) * (ra[ay] - rb[by]) + dz * dz);
        if (!(d <= mx)) mx = d;
    }
    return mx;
}

static void s_run(const char *doc, const char *form, const char *tol, t_run *r)
{
    char f[64], t[64];
    snprintf(f, sizeof f, "solver.formulation=%s", form);
    snprintf(t, sizeof t, "solver.tolerance=%s", tol);
    const char *sets[] = {f, t, NULL};
    t_run_text(doc, sets, r);
    CHECK(r->rc == 0);
}

static void test_chain(const char *doc, const char *what)
{
    t_run ref, nat;
    s_run(doc, "relative", "1e-12", &ref);
    s_run(doc, "natural", "1e-11", &nat);
    double agree = s_tip(&ref, &nat);
    printf("  %s: reference (relative at 1e-12) against natural bdf at 1e-11: %.2e m\n", what, agree);
    CHECK(agree < 1e-9);
    static const char *const tols[] = {"1e-3", "1e-5", "1e-7", "1e-9"};
    for (int f = 0; f < 2; f++) {
        const char *form = f ? "natural" : "relative";
        printf("    %-8s tip error / (tol x L):", form);
        for (size_t k = 0; k < sizeof tols / sizeof tols[0]; k++) {
            t_run r;
            s_run(doc, form, tols[k], &r);
            double e = s_tip(&r, &ref) / (atof(tols[k]) * LINK);
            printf("  %s: %.3g (%ld steps)", tols[k], e, r.met.steps);
            CHECK(e < 100);
            t_run_free(&r);
        }
        printf("\n");
    }
    t_run_free(&ref);
    t_run_free(&nat);
}

int main(void)
{
    static char doc[65536];
    s_chain(0.005, doc, sizeof doc);
    test_chain(doc, "40 planar rods, joint damping 0.005 N m s");
    s_chain(0.001, doc, sizeof doc);
    test_chain(doc, "40 planar rods, joint damping 0.001 N m s");
    s_chain3(20, 2.0, doc, sizeof doc);
    test_chain(doc, "20 thin rods on spherical joints swinging");
    return CHECK_SUMMARY("relative_accuracy_test");
}
