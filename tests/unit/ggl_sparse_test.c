/*
 * ggl_sparse_test.c - the BDF's GGL Newton matrix factorised by KLU
 * (integrate/system_ggl.c) and the fixed-pattern mode of linalg/sparse.c it
 * rests on:
 *  - fixed pattern: values summed in place, KLU analyses once, an entry
 *    outside the pattern grows it (analysed again), overflow refused; every
 *    solution against the exact one; the places of the adds (the columns'
 *    slot tables and the search beyond their capacity) against the same
 *    adds on a plain array, bit for bit;
 *  - the roller chain drive's GGL matrix at its initial state with one
 *    roller pushed into a tooth (contact stiffness in the matrix): the rule
 *    picks KLU for it, and the KLU solution of a right-hand side equals the
 *    banded LU's (analysis/system.c) to rounding: both recover a solution
 *    of Newton's kind from its right-hand side, and so does the system with
 *    the velocities eliminated (system_ggl_red.c), kept for the chain;
 *  - the N = 40 four-bar, whose reduced factors are not small enough: the
 *    full sparse matrix kept at the first factorisation.
 */
#include "check.h"
#include "testutil.h"
#include "mbs/linalg/sparse.h"
#include "mbs/linalg/linalg.h"
#include "mbs/analysis/system.h"
#include "mbs/analysis/analysis.h"
#include "mbs/contact/contact.h"
#include "mbs/formulation/natural/natural.h"
#include "mbs/integrate/system_ggl.h"
#include "mbs/integrate/integrators.h"
#include "mbs/model/model.h"
#include "mbs/model/data.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A = [0 2 0 1; 3 0 0 0; 0 1 4 0; 1 0 0 5] (zero diagonal at (0, 0): KLU
 * pivots), x = (1, 2, 3, 4); the pattern is fixed without A(3, 0). */
static void test_fixed_pattern(void)
{
    static const int ti[] = {0, 0, 1, 2, 2, 3, 3};
    static const int tj[] = {1, 3, 0, 1, 2, 0, 3};
    static const double tv[] = {2, 1, 3, 1, 4, 1, 5};
    const double x[4] = {1, 2, 3, 4};
    mbs_sparse *s = mbs_sparse_new(4, 14);
    CHECK(s != NULL);
    if (!s) return;
    mbs_sparse_begin(s, 4);
    for (int k = 0; k < 7; k++)
        if (!(ti[k] == 3 && tj[k] == 0)) mbs_sparse_add(s, ti[k], tj[k], 99.0); /* values do not matter */
    CHECK(mbs_sparse_fix_pattern(s) == 0);
    CHECK(mbs_sparse_nnz(s) == 6);
    /* the matrix without A(3, 0), its entries split in two: summed in place */
    int analysed = -1;
    for (int round = 0; round < 2; round++) {
        mbs_sparse_begin(s, 4);
        for (int k = 0; k < 7; k++) {
            if (ti[k] == 3 && tj[k] == 0) continue;
            mbs_sparse_add(s, ti[k], tj[k], 0.25 * tv[k]);
            mbs_sparse_add(s, ti[k], tj[k], 0.75 * tv[k]);
        }
        CHECK(mbs_sparse_triplets(s) == 0);
        CHECK(mbs_sparse_factor(s, &analysed) == 0);
        CHECK(analysed == (round == 0)); /* analysed once, then refactorised */
        double b[4] = {2 * 2 + 4, 3 * 1, 2 + 4 * 3, 5 * 4};
        CHECK(mbs_sparse_solve(s, b) == 0);
        for (int i = 0; i < 4; i++) CHECK_NEAR(b[i], x[i], 1e-14 * 5);
    }
    /* A(3, 0) outside the pattern: the pattern grows, analysed again */
    mbs_sparse_begin(s, 4);
    for (int k = 0; k < 7; k++) mbs_sparse_add(s, ti[k], tj[k], tv[k]);
    CHECK(mbs_sparse_triplets(s) == 1);
    CHECK(mbs_sparse_factor(s, &analysed) == 0 && analysed == 1);
    CHECK(mbs_sparse_nnz(s) == 7 && mbs_sparse_get(s, 3, 0) == 1.0);
    double b[4] = {2 * 2 + 4, 3 * 1, 2 + 4 * 3, 1 + 5 * 4};
    CHECK(mbs_sparse_solve(s, b) == 0);
    for (int i = 0; i < 4; i++) CHECK_NEAR(b[i], x[i], 1e-14 * 5);
    /* and stays: no further analysis */
    mbs_sparse_begin(s, 4);
    for (int k = 0; k < 7; k++) mbs_sparse_add(s, ti[k], tj[k], tv[k]);
    CHECK(mbs_sparse_factor(s, &analysed) == 0 && analysed == 0);
    /* more entries outside the pattern than the sink holds: refused */
    mbs_sparse_begin(s, 4);
    for (int k = 0; k < 15; k++) mbs_sparse_add(s, 1, (k % 3) + 1, 1.0);
    CHECK(mbs_sparse_factor(s, &analysed) == MBS_SPARSE_EFULL);
    mbs_sparse_free(&s);
    CHECK(s == NULL);
}

/* y += A x* entry by entry (an emitter's sink) */
typedef struct {
    const double *x;
    double *y;
} s_matvec;

static void s_mv_add(void *ctx, int i, int j, double v)
{
    s_matvec *c = ctx;
    c->y[i] += v * c->x[j];
}

/* The GGL matrix of an example at its initial state with a contact
 * touching, for the BDF weight w0: KLU against the banded LU on a
 * right-hand side of generic values. */
static void s_compare(const char *path, const char *const *sets, double w0)
{
    char *text = t_slurp(path, NULL);
    t_model tm;
    int rc = t_model_text(text, sets, &tm);
    free(text);
    if (rc) return;
    const mbs_spec *spec = tm.spec;
    mbs_model *m = tm.m;
    mbs_data *d = tm.d;
    /* the rule picks KLU for this model (the matrix is made at the BDF's
     * first step, or here) */
    CHECK(mbs_bdf_ggl_ws(m, d) == 0);
    CHECK(d->ggl_sp != NULL);
    /* contacts in the system: the active set at the initial state, and the
     * pair of it closest to touching pushed 20 um into contact (the body of
     * its shape B translated along the normal: the joints' residuals do not
     * matter to a matrix) */
    mbs_contact_step(m, d, 1e-5);
    int kmin = -1;
    double gmin = INFINITY, nmin[3] = {0, 0, 0};
    for (int i = 0; i < d->c_nactive; i++) {
        int k = d->c_active[i];
        mbs_shape A, B;
        mbs_contact_set set;
        mbs_contact_world_shape(m, spec->contacts[k].shape[0], d->x, &A);
        mbs_contact_world_shape(m, spec->contacts[k].shape[1], d->x, &B);
        if (mbs_contact_shapes(&A, &B, 1.0, &set) > 0 && set.c[0].g < gmin) {
            gmin = set.c[0].g;
            kmin = k;
            memcpy(nmin, set.c[0].n, sizeof nmin);
        }
    }
    CHECK(kmin >= 0);
    if (kmin >= 0) {
        const mbs_body *bd = &m->body[m->cshape[spec->contacts[kmin].shape[1]].body];
        for (int sl = 0; sl < (m->dim == 3 ? 4 : 2); sl++) {
            if (sl > 0 && !bd->vec_is_point[sl - 1]) continue;
            for (int a = 0; a < m->dim; a++)
                if (bd->var[m->dim * sl + a] >= 0) d->x[bd->var[m->dim * sl + a]] -= (gmin + 2e-5) * nmin[a];
        }
    }
    mbs_contact_step(m, d, 1e-5);
    int touching = 0;
    for (int k = 0; k < spec->ncontact; k++) touching += d->c_on[k];
    printf("  %s: %d unknowns, %d pairs in the system, %d touching\n", path, m->nggl, d->c_nactive, touching);
    CHECK(touching > 0);
    /* a solution of Newton's kind: generic dv and dlam, dq and the scaled
     * dmu of the size w0 makes them (dq - dv/w0 - G^T dmu = F1, the q
     * residual over w0), and its right-hand side b = A x* through the
     * emitter of both matrices */
    int N = m->nggl, n = m->nvar, ne = m->neq;
    double *xs = malloc(sizeof(double) * (size_t)N), *b1 = malloc(sizeof(double) * (size_t)N),
           *b2 = malloc(sizeof(double) * (size_t)N), *b3 = malloc(sizeof(double) * (size_t)N);
    for (int i = 0; i < N; i++) {
        xs[i] = 0.3 + 0.7 * (double)((i * 7919) % 101) / 101.0;
        if (i < n || i >= 2 * n + ne) xs[i] /= w0;
        b1[i] = 0;
    }
    mbs_cons_eval(m, d->x, d->t, d->phi, d->jac);
    s_matvec mv = {xs, b1};
    mbs_ggl_emit(m, d, w0, d->x, d->v, d->t, 1, s_mv_add, &mv, NULL);
    memcpy(b2, b1, sizeof(double) * (size_t)N);
    memcpy(b3, b1, sizeof(double) * (size_t)N);
    /* the default sparse path: the velocities eliminated */
    CHECK(d->ggl_red != NULL);
    CHECK(mbs_ggl_sp_build(m, d, w0, d->x, d->v, d->t) == 0);
    CHECK(d->ggl_red != NULL); /* kept: L + U well below the full one's */
    CHECK(mbs_ggl_sp_solve(d, b1) == 0);
    long lu_red = mbs_sparse_lu_nnz(d->ggl_sp);
    int n_red = mbs_sparse_dim(d->ggl_sp);
    mbs_ggl_sp_free(d);
    CHECK(mbs_ggl_sp_new(m, d) == 0 && d->ggl_red == NULL);
    CHECK(mbs_ggl_sp_build(m, d, w0, d->x, d->v, d->t) == 0);
    CHECK(mbs_ggl_sp_solve(d, b3) == 0);
    printf("  KLU: %d unknowns, %ld entries in L + U with the velocities eliminated; %d, %ld without\n", n_red,
           lu_red, mbs_sparse_dim(d->ggl_sp), mbs_sparse_lu_nnz(d->ggl_sp));
    CHECK(n_red == n + 2 * ne && mbs_sparse_dim(d->ggl_sp) == N);
    /* the banded matrix of the same emitter */
    CHECK(mbs_mat_init(&d->ggl, MBS_MAT_GEN, m->nggl, m->gkl, m->gku) == 0);
    CHECK(mbs_ggl_build(m, d, w0, d->x, d->v, d->t) == 0);
    mbs_ggl_solve(m, d, b2);
    /* each recovers x* block by block (dq, dv, dlam, dmu).  The reduced
     * system to 1e-10 of each block's largest entry (measured: 2e-12); the
     * full ones resolve dmu, of size 1/w0 (the GGL multiplier, near zero),
     * only to their rounding relative to the q and v blocks (measured 1e-7
     * and 5e-7 of its size at w0 = 1e7, the other blocks 3e-9 at most) */
    printf("  w0 = %g, largest difference from x* over each block's largest entry (dq, dv, dlam, dmu):\n", w0);
    int off[5] = {0, n, 2 * n, 2 * n + ne, N};
    for (int k = 0; k < 4; k++) {
        double d1 = 0, d2 = 0, d3 = 0, bb = 0;
        for (int i = off[k]; i < off[k + 1]; i++) {
            d1 = fmax(d1, fabs(b1[i] - xs[i]));
            d2 = fmax(d2, fabs(b2[i] - xs[i]));
            d3 = fmax(d3, fabs(b3[i] - xs[i]));
            bb = fmax(bb, fabs(xs[i]));
        }
        printf("    block %d: KLU reduced %.3g, KLU full %.3g, banded LU %.3g\n", k, d1 / bb, d3 / bb, d2 / bb);
        CHECK(d1 <= 1e-10 * bb);
        CHECK(d2 <= (k == 3 ? 1e-5 : 1e-8) * bb && d3 <= (k == 3 ? 1e-5 : 1e-8) * bb);
    }
    free(b3);
    free(xs);
    free(b1);
    free(b2);
    t_model_free(&tm);
}

/* The N = 40 four-bar takes the sparse path, but its reduced system's L +
 * U is 0.78 of the full one's: the first factorisation keeps the full
 * matrix (system_ggl_red.c), which then solves like the banded LU. */
static void test_fallback(void)
{
    char *text = t_slurp("examples/iftomm_a02_four_bar_n40.json", NULL);
    t_model tm;
    int rc = t_model_text(text, NULL, &tm);
    free(text);
    if (rc) return;
    mbs_model *m = tm.m;
    mbs_data *d = tm.d;
    CHECK(mbs_bdf_ggl_ws(m, d) == 0);
    CHECK(d->ggl_sp != NULL && d->ggl_red != NULL);
    mbs_cons_eval(m, d->x, d->t, d->phi, d->jac);
    CHECK(mbs_ggl_sp_build(m, d, 1e5, d->x, d->v, d->t) == 0);
    CHECK(d->ggl_red == NULL && d->ggl_sp != NULL && mbs_sparse_dim(d->ggl_sp) == m->nggl);
    int N = m->nggl;
    double *b1 = malloc(sizeof(double) * (size_t)N), *b2 = malloc(sizeof(double) * (size_t)N);
    for (int i = 0; i < N; i++) b1[i] = b2[i] = 0.3 + 0.7 * (double)((i * 7919) % 101) / 101.0;
    CHECK(mbs_ggl_sp_solve(d, b1) == 0);
    CHECK(mbs_mat_init(&d->ggl, MBS_MAT_GEN, m->nggl, m->gkl, m->gku) == 0);
    CHECK(mbs_ggl_build(m, d, 1e5, d->x, d->v, d->t) == 0);
    mbs_ggl_solve(m, d, b2);
    double diff = 0, big = 0;
    for (int i = 0; i < N; i++) {
        diff = fmax(diff, fabs(b1[i] - b2[i]));
        big = fmax(big, fabs(b2[i]));
    }
    printf("  N = 40 four-bar: full sparse matrix kept (%d unknowns), against the banded LU %.3g of %.3g\n", N, diff,
           big);
    CHECK(big > 0 && diff <= 1e-9 * big);
    free(b1);
    free(b2);
    t_model_free(&tm);
}

/* The fixed pattern's adds find their places through per-column tables,
 * or by a search in the columns whose row spans do not fit the tables'
 * capacity: n = 2000 with every column holding its diagonal, a row near
 * it, row 0 and the last row (spans of the whole matrix: about half the
 * columns beyond the capacity).  Each entry is added three times in a
 * scrambled order; every sum must equal, bit for bit, the same adds made
 * in the same order on a plain array, and so after the pattern grew by an
 * entry outside it (the tables made again). */
static void test_fixed_slots(void)
{
    enum { N = 2000, PER = 4 };
    int *ri = malloc(sizeof(int) * N * PER), *ci = malloc(sizeof(int) * N * PER), *ord = malloc(sizeof(int) * 3 * N * PER);
    double *ref = malloc(sizeof(double) * N * PER), *val = malloc(sizeof(double) * 3 * N * PER);
    mbs_sparse *s = mbs_sparse_new(N, 2L * N * PER);
    CHECK(ri && ci && ord && ref && val && s);
    if (!ri || !ci || !ord || !ref || !val || !s) goto done;
    /* the pattern: (j, j), (j + 7 mod N, j), (0, j), (N - 1, j), duplicates
     * dropped (column 0's diagonal is row 0, the last column's row N - 1) */
    int ne = 0;
    for (int j = 0; j < N; j++) {
        int rows[PER] = {j, (j + 7) % N, 0, N - 1};
        for (int a = 0; a < PER; a++) {
            int dup = 0;
            for (int b = 0; b < a; b++) dup |= rows[b] == rows[a];
            if (dup) continue;
            ri[ne] = rows[a];
            ci[ne] = j;
            ne++;
        }
    }
    mbs_sparse_begin(s, N);
    for (int k = 0; k < ne; k++) mbs_sparse_add(s, ri[k], ci[k], 1.0);
    CHECK(mbs_sparse_fix_pattern(s) == 0);
    CHECK(mbs_sparse_nnz(s) == ne);
    /* three adds per entry in a scrambled order (a linear congruential
     * sequence), values of varied sizes */
    unsigned long lcg = 12345;
    for (int k = 0; k < 3 * ne; k++) ord[k] = k % ne;
    for (int k = 3 * ne - 1; k > 0; k--) {
        lcg = lcg * 6364136223846793005UL + 1442695040888963407UL;
        int r = (int)((lcg >> 33) % (unsigned long)(k + 1)), t = ord[k];
        ord[k] = ord[r];
        ord[r] = t;
    }
    for (int k = 0; k < 3 * ne; k++) {
        lcg = lcg * 6364136223846793005UL + 1442695040888963407UL;
        val[k] = ((double)(lcg >> 11) / 9007199254740992.0 - 0.5) * pow(10.0, (double)(k % 7) - 3);
    }
    for (int grown = 0; grown < 2; grown++) {
        mbs_sparse_begin(s, N);
        for (int k = 0; k < ne; k++) ref[k] = 0;
        for (int k = 0; k < 3 * ne; k++) {
            mbs_sparse_add(s, ri[ord[k]], ci[ord[k]], val[k]);
            ref[ord[k]] += val[k];
        }
        if (grown) CHECK(mbs_sparse_triplets(s) == 0);
        int same = 1;
        for (int k = 0; k < ne; k++) same &= mbs_sparse_get(s, ri[k], ci[k]) == ref[k];
        CHECK(same);
        if (grown) break;
        /* (1, N - 2) outside the pattern: added as a triplet, the pattern
         * grows at the factorisation and the tables are made again */
        mbs_sparse_add(s, 1, N - 2, 0.5);
        CHECK(mbs_sparse_triplets(s) == 1);
        mbs_sparse_factor(s, NULL); /* the pattern's growth; the values are not a regular matrix's */
        CHECK(mbs_sparse_nnz(s) == ne + 1 && mbs_sparse_get(s, 1, N - 2) == 0.5);
    }
done:
    mbs_sparse_free(&s);
    free(ri); free(ci); free(ord); free(ref); free(val);
}

int main(void)
{
    test_fallback();
    test_fixed_pattern();
    test_fixed_slots();
    const char *chain[] = {NULL};
    s_compare("examples/roller_chain_drive.json", chain, 1e5);
    s_compare("examples/roller_chain_drive.json", chain, 1e7);
    return CHECK_SUMMARY("ggl_sparse_test");
}
