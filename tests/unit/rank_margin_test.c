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

/* The definition: |R_rr| / |R_11| of one pivoted QR of the dense Phi_q^T at
 * the rank r = neq - redundant. */
static double s_dense_margin(const mbs_model *m, const mbs_data *d)
{
    int n = m->nvar, ne = m->neq, r0 = ne - d->rep.redundant;
    double *A = calloc((size_t)n * (size_t)ne, sizeof(double));
    int *jp = calloc((size_t)ne, sizeof(int));
    double *rd = calloc((size_t)(ne < n ? ne : n) + 1, sizeof(double));
    for (int r = 0; r < ne; r++) {
        const mbs_eq *e = &m->eq[r];
        const double *row = d->jac + (e->cols - m->colpool);
        for (int k = 0; k < e->nnz; k++) A[(size_t)r * n + e->cols[k]] = row[k];
    }
    double margin = mbs_qrcp_rank(n, ne, A, jp, rd, 1e-9) >= 0 && rd[0] > 0 ? rd[r0 - 1] / rd[0] : -1;
    free(A); free(jp); free(rd);
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
    mbs_errlist err = {0};
    mbs_spec *spec = text ? mech_parse(text, strlen(text), NULL, 0, &err) : NULL;
    free(text);
    if (!CHECK(spec != NULL)) return;
    mbs_report rep;
    mbs_model *m = mbs_model_new(spec, &rep, &err);
    mbs_data *d = m ? mbs_data_new(m) : NULL;
    CHECK(d != NULL && mbs_initialize(m, d, &rep, &err) == 0);
    if (!d) { mbs_model_free(&m); mbs_spec_free(&spec); return; }
    /* the assembly's redundancy analysis (block by block for free bodies
     * of full rank): dof, redundancy and the smallest |R_kk| ratio as one
     * dense QR gives them at the initial configuration */
    mbs_cons_eval(m, d->x, 0.0, d->phi, d->jac);
    double ref0 = s_dense_margin(m, d);
    CHECK(d->rep.redundant == 0 && d->rep.dof == m->nvar - m->neq);
    CHECK(fabs(d->rep.min_singular_ratio - ref0) <= 1e-12 * ref0);
    double *x = malloc(sizeof(double) * (size_t)m->nvar);
    unsigned seed = 12345u + (unsigned)m->nvar;
    double worst = 0, mmin = INFINITY;
    for (int trial = 0; trial <= ntrial; trial++) {
        for (int i = 0; i < m->nvar; i++) x[i] = d->x[i] + (trial ? amp * s_rand(&seed) : 0.0);
        mbs_cons_eval(m, x, d->t, d->phi, d->jac);
        double got = mbs_rank_margin(m, d), ref = s_dense_margin(m, d);
        CHECK(ref > 0);
        /* one block: mbs_rank_margin's own dense QR, the same arithmetic */
        if (exact) {
            CHECK(mbs_rank_margin_blocks(m, d->jac, m->neq - d->rep.redundant, 4e6) == MBS_RANK_ONE_BLOCK);
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
    mbs_data_free(&d);
    mbs_model_free(&m);
    mbs_spec_free(&spec);
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
    return CHECK_SUMMARY("rank_margin_test");
}
