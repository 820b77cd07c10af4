/*
 * rank_margin_test.c - mbs_rank_margin computed block by block
 * (analysis/rank_margin.c) against one dense QR with column pivoting of the
 * whole Phi_q^T (the definition, written out here): free bodies, and free
 * bodies beside a chain of spherical joints (shared points: a block per
 * body as well), at configurations whose natural coordinates are perturbed
 * (non-orthonormal vectors: every block has its own conditioning); a model
 * that is one block (the four-bar's closed loop) takes the dense path
 * (equal bit for bit).  Also the assembly's redundancy analysis (dof,
 * smallest |R_kk| ratio), block by block for free bodies.
 */
#include "check.h"
#include "testutil.h"
#include "mbs/analysis/analysis.h"
#include "mbs/analysis/rank_margin.h"
#include "mbs/formulation/natural/natural.h"
#include "mbs/linalg/linalg.h"
#include "mbs/model/accuracy.h"
#include "mbs/model/data.h"
#include "mbs/model/model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* nfree free bodies, then a chain of nchain bodies on spherical joints
 * hanging from the ground (3-D). */
static char *s_model(int nfree, int nchain)
{
    size_t cap = 4096 + 400 * (size_t)(nfree + 2 * nchain), len = 0;
    char *t = malloc(cap);
    len += (size_t)snprintf(t + len, cap - len, "{\"name\": \"blocks\", \"dimension\": 3, \"bodies\": [");
    for (int i = 0; i < nfree + nchain; i++)
        len += (size_t)snprintf(t + len, cap - len,
                                "%s{\"name\": \"b%d\", \"mass\": 1, \"inertia\": [0.01, 0.02, 0.03], "
                                "\"com\": [%g, %g, 0]}", i ? ", " : "", i,
                                i < nfree ? 3.0 + i : (i - nfree) + 0.5, i < nfree ? 2.0 : 0.0);
    len += (size_t)snprintf(t + len, cap - len, "], \"joints\": [");
    for (int j = 0; j < nchain; j++) {
        char prev[32];
        if (j == 0) snprintf(prev, sizeof prev, "ground");
        else snprintf(prev, sizeof prev, "b%d", nfree + j - 1);
        len += (size_t)snprintf(t + len, cap - len,
                                "%s{\"name\": \"j%d\", \"type\": \"spherical\", \"bodies\": [\"%s\", \"b%d\"], "
                                "\"at\": [%d, 0, 0]}", j ? ", " : "", j, prev, nfree + j, j);
    }
    snprintf(t + len, cap - len, "], \"solver\": {\"t_end\": 0.01}}");
    return t;
}

/* The definition: |R_rr| / |R_11| of one pivoted QR of the dense Phi_q^T,
 * when scaled as every rank analysis measures it (analysis.c s_jac_fill:
 * each length variable's entries times 2^e, 2^e nearest the mechanism's
 * length, accuracy.h mbs_var_length_exps; then each equation's row by a
 * power of two to a length in [0.5, 1)), at the rank r = neq - redundant;
 * unscaled otherwise (what they measured before). */
static double s_dense_margin(const mbs_model *m, const mbs_data *d, int scaled)
{
    int n = m->nvar, ne = m->neq, r0 = ne - d->rep.redundant;
    double *A = calloc((size_t)n * (size_t)ne, sizeof(double));
    int *jp = calloc((size_t)ne, sizeof(int));
    double *rd = calloc((size_t)(ne < n ? ne : n) + 1, sizeof(double));
    int *ce = calloc((size_t)n + 1, sizeof(int));
    if (scaled) mbs_var_length_exps(m, ce);
    for (int r = 0; r < ne; r++) {
        const mbs_eq *e = &m->eq[r];
        const double *row = d->jac + (e->cols - m->colpool);
        int er = scaled ? mbs_rank_row_exp(e, row, ce) : 0;
        for (int k = 0; k < e->nnz; k++) A[(size_t)r * n + e->cols[k]] = ldexp(row[k], ce[e->cols[k]] + er);
    }
    double margin = mbs_qrcp_rank(n, ne, A, jp, rd, 1e-9) >= 0 && rd[0] > 0 ? rd[r0 - 1] / rd[0] : -1;
    free(A); free(jp); free(rd); free(ce);
    return margin;
}

/* Deterministic values in [-1, 1). */
static double s_rand(unsigned *s)
{
    *s = *s * 1664525u + 1013904223u;
    return (double)(*s >> 8) / (double)(1u << 23) - 1.0;
}

/* The model's margins at its initial configuration and at ntrial
 * perturbed ones (each coordinate moved by up to amp): block by block
 * against the dense definition, relative to 1e-12; *lo the smallest. */
static void s_compare(const char *what, char *text, int ntrial, double amp, int exact, double *lo)
{
    t_model tm;
    int rc = t_model_text(text, NULL, &tm);
    free(text);
    if (rc) return;
    mbs_model *m = tm.m;
    mbs_data *d = tm.d;
    /* the assembly's redundancy analysis (block by block for free bodies
     * of full rank): dof, redundancy and the smallest |R_kk| ratio as one
     * dense QR of the scaled Jacobian gives them at the initial
     * configuration */
    mbs_cons_eval(m, d->x, 0.0, d->phi, d->jac);
    double ref0 = s_dense_margin(m, d, 1);
    CHECK(d->rep.redundant == 0 && d->rep.dof == m->nvar - m->neq);
    CHECK(fabs(d->rep.min_singular_ratio - ref0) <= 1e-12 * ref0);
    double *x = malloc(sizeof(double) * (size_t)m->nvar);
    unsigned seed = 12345u + (unsigned)m->nvar;
    double worst = 0, mmin = INFINITY;
    for (int trial = 0; trial <= ntrial; trial++) {
        for (int i = 0; i < m->nvar; i++) x[i] = d->x[i] + (trial ? amp * s_rand(&seed) : 0.0);
        mbs_cons_eval(m, x, d->t, d->phi, d->jac);
        double got = mbs_rank_margin(m, d), ref = s_dense_margin(m, d, 1);
        CHECK(ref > 0);
        /* one block: mbs_rank_margin's own dense QR, the same arithmetic */
        if (exact) {
            int *ce = calloc((size_t)m->nvar + 1, sizeof(int));
            mbs_var_length_exps(m, ce);
            CHECK(mbs_rank_margin_blocks(m, d->jac, m->neq - d->rep.redundant, 4e6, ce) == MBS_RANK_ONE_BLOCK);
            free(ce);
            CHECK(got == ref);
        }
        double rel = fabs(got - ref) / ref;
        if (rel > worst) worst = rel;
        if (got < mmin) mmin = got;
    }
    printf("  %s: %d configurations, margins from %.3g, largest relative difference to one dense QR %.2g\n", what,
           ntrial + 1, mmin, worst);
    CHECK(worst <= 1e-12);
    *lo = mmin;
    free(x);
    t_model_free(&tm);
}

/* The four-bar in space (axes along x) with a dc_motor on every joint,
 * each with a spatial rotor (J > 0: seven variables and equations of its
 * own, model.h rotor3) or none (J = 0), the document of
 * bench/chord_rotor.py. */
static char *s_rotor_four_bar(double J)
{
    size_t cap = 8192;
    char *t = malloc(cap), forces[2048] = "";
    static const char *jn[4] = {"cA", "AB", "BD", "DC"};
    const double V[4] = {6, -4, 3, 2}, N[4] = {20, 15, 25, 10}, Jr[4] = {1e-4, 2e-4, 1e-4, 3e-4};
    for (int k = 0; k < 4; k++) {
        size_t l = strlen(forces);
        snprintf(forces + l, sizeof forces - l, "%s{\"name\": \"m%d\", \"type\": \"dc_motor\", \"joint\": \"%s\", "
                 "\"voltage\": %g, \"resistance\": 1, \"torque_constant\": 0.05, \"back_emf_constant\": 0.05, "
                 "\"gear_ratio\": %g, \"rotor_inertia\": %g}", k ? ", " : "", k + 1, jn[k], V[k], N[k], J * Jr[k]);
    }
    snprintf(t, cap,
             "{\"dimension\": 3, \"gravity\": [0, 0, -9.81], \"bodies\": ["
             "{\"name\": \"C\", \"mass\": 2, \"inertia\": [0.05, 0.04, 0.06], \"com\": [0.05, 0.2, 0.3]},"
             "{\"name\": \"A\", \"mass\": 1, \"inertia\": [0.004, 0.003, 0.002], \"com\": [0, 0.05, 0.4]},"
             "{\"name\": \"B\", \"mass\": 1.5, \"inertia\": [0.02, 0.01, 0.015], \"com\": [0, 0.3, 0.55]},"
             "{\"name\": \"D\", \"mass\": 1.2, \"inertia\": [0.01, 0.008, 0.006], \"com\": [0, 0.45, 0.45]}],"
             " \"joints\": [{\"name\": \"base\", \"type\": \"fixed\", \"bodies\": [\"ground\", \"C\"], \"at\": [0, 0, 0]},"
             "{\"name\": \"cA\", \"type\": \"revolute\", \"bodies\": [\"C\", \"A\"], \"at\": [0, 0, 0.3], \"axis\": [1, 0, 0]},"
             "{\"name\": \"AB\", \"type\": \"revolute\", \"bodies\": [\"A\", \"B\"], \"at\": [0, 0.1, 0.5], \"axis\": [1, 0, 0]},"
             "{\"name\": \"BD\", \"type\": \"revolute\", \"bodies\": [\"B\", \"D\"], \"at\": [0, 0.5, 0.6], \"axis\": [1, 0, 0]},"
             "{\"name\": \"DC\", \"type\": \"revolute\", \"bodies\": [\"D\", \"C\"], \"at\": [0, 0.4, 0.3], \"axis\": [1, 0, 0]}],"
             " \"forces\": [%s], \"solver\": {\"t_end\": 1.5}}", forces);
    return t;
}

/* mbs_rank_margin of the four-bar with a spatial rotor on every joint and
 * of the same four-bar without them, at its initial configuration: equal
 * (the rotors' block of the Jacobian is square and regular, analysis.c
 * s_rank_margin_rotors; their rows and columns left out, the rest is the
 * same matrix up to the order of its rows and columns); the whole
 * matrix's margin without the rows' scaling, which the BDF used to take
 * (1.5e-4: a singular position all the run, docs/accuracy.md), is far
 * below. */
static void test_rotor_margin(void)
{
    double got[2] = {0, 0}, whole = 0;
    int nvar[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        char *text = s_rotor_four_bar(k == 0 ? 1 : 0);
        t_model tm;
        int rc = t_model_text(text, NULL, &tm);
        free(text);
        if (rc) return;
        mbs_model *m = tm.m;
        mbs_data *d = tm.d;
        {
            mbs_cons_eval(m, d->x, 0.0, d->phi, d->jac);
            got[k] = mbs_rank_margin(m, d);
            nvar[k] = m->nvar;
            if (k == 0) {
                whole = s_dense_margin(m, d, 0);
                CHECK(m->nrotor3 == 4 && d->rep.redundant == 1 && d->rep.dof == 1);
            }
        }
        t_model_free(&tm);
    }
    printf("  four-bar in space, a rotor on every joint: margin %.6g (%d variables), without the rotors %.6g (%d); "
           "the whole matrix's %.3g\n", got[0], nvar[0], got[1], nvar[1], whole);
    CHECK(nvar[0] == nvar[1] + 28);
    CHECK(got[1] > 1e-2 && got[1] < 1);
    CHECK(fabs(got[0] - got[1]) <= 1e-12 * got[1]);
    CHECK(whole > 0 && whole < 1e-2 * got[1]);
}

/* The roller chain drive at its initial configuration (a regular one: the
 * links' rows are 2 sqrt(2) x 12.7 mm long, a unit vector's 2): the margin
 * of the scaled Jacobian (analysis.c s_jac_fill) is that of a regular mechanism, the
 * unscaled one (what mbs_rank_margin measured before, 0.0037 all the run)
 * is below the BDF's singular-position threshold (0.03). */
static void test_chain_margin(void)
{
    t_model tm;
    char *text = t_slurp("examples/roller_chain_drive.json", NULL);
    int rc = text ? t_model_text(text, NULL, &tm) : -1;
    free(text);
    CHECK(rc == 0);
    if (rc) return;
    mbs_model *m = tm.m;
    mbs_data *d = tm.d;
    mbs_cons_eval(m, d->x, 0.0, d->phi, d->jac);
    double got = mbs_rank_margin(m, d), unit = s_dense_margin(m, d, 1), raw = s_dense_margin(m, d, 0);
    printf("  roller chain drive (%d equations): margin %.4g (scaled), %.4g unscaled\n", m->neq, got, raw);
    CHECK(fabs(got - unit) <= 1e-12 * unit);
    CHECK(got > 0.1 && got < 1);
    CHECK(raw > 0 && raw < 0.01);
    t_model_free(&tm);
}

int main(void)
{
    double lo_mixed = 0, lo_one = 0, lo_free = 0;
    /* blocks: 5 free bodies and a chain of 3 (its spherical joints are
     * shared points: each body's rigid-body equations are a block too) */
    s_compare("5 free bodies + a chain of 3", s_model(5, 3), 40, 0.3, 0, &lo_mixed);
    /* free bodies only (N balls on a floor), near their orthonormal axes */
    s_compare("12 free bodies", s_model(12, 0), 10, 0.05, 0, &lo_free);
    /* one block (a closed loop): the dense path itself */
    s_compare("examples/four_bar.json", t_slurp("examples/four_bar.json", NULL), 10, 0.05, 1, &lo_one);
    /* perturbed bodies give margins below 1: the comparison is not of a
     * constant (an identity block of every body would give 1 everywhere) */
    CHECK(lo_mixed < 0.9 && lo_free < 1.0 && lo_one < 1.0);
    test_rotor_margin();
    test_chain_margin();
    return CHECK_SUMMARY("rank_margin_test");
}
