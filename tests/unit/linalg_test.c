/*
 * linalg_test.c - the linear-system layer (common/mbs/linalg/linalg.c): small dense
 * Cholesky / LU (own code), dense LAPACK and banded LAPACK paths give the
 * same solutions; reverse Cuthill-McKee keeps a shuffled chain banded; the
 * rank-revealing QR finds the rank of a matrix with a dependent column;
 * the sparse one (sparse_qr.h) finds the same rank, the dependent columns
 * and the columns they combine from on a large banded matrix.
 */
#include "check.h"
#include "mbs/linalg/linalg.h"
#include "mbs/linalg/sparse_qr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static unsigned s_seed = 12345;
static double s_rand(void)
{
    s_seed = s_seed * 1103515245u + 12345u;
    return ((s_seed >> 8) & 0xffff) / 65536.0 - 0.5;
}

/* A banded test matrix of half-bandwidth kb: SPD (diagonally dominant
 * symmetric) or general (diagonally dominant), dense column-major. */
static void s_make(int n, int kb, int spd, double *A)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) A[i + (size_t)j * n] = 0;
    for (int j = 0; j < n; j++)
        for (int i = j - kb; i <= j + kb; i++) {
            if (i < 0 || i >= n) continue;
            if (spd && i > j) continue;
            double v = s_rand();
            A[i + (size_t)j * n] = v;
            if (spd) A[j + (size_t)i * n] = v;
        }
    for (int i = 0; i < n; i++) A[i + (size_t)i * n] += 2.0 * (2 * kb + 1);
}

/* Solve with an mbs_mat of the given band; return max |A x - b|. */
static double s_solve_residual(int n, int kb, int spd, const double *A)
{
    mbs_mat M;
    if (mbs_mat_init(&M, spd ? MBS_MAT_SPD : MBS_MAT_GEN, n, kb, kb)) return INFINITY;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            double v = A[i + (size_t)j * n];
            if (v == 0 || abs(i - j) > kb) continue;
            if (spd && i > j) continue;
            mbs_mat_add(&M, i, j, v);
        }
    double *b = malloc(sizeof(double) * (size_t)n), *x = malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++) b[i] = x[i] = s_rand();
    double r = INFINITY;
    if (mbs_mat_factor(&M) == 0) {
        mbs_mat_solve(&M, x);
        r = 0;
        for (int i = 0; i < n; i++) {
            double acc = -b[i];
            for (int j = 0; j < n; j++) acc += A[i + (size_t)j * n] * x[j];
            r = fmax(r, fabs(acc));
        }
    }
    free(b);
    free(x);
    mbs_mat_free(&M);
    return r;
}

static void test_solvers(void)
{
    /* sizes across the small-dense (<= 32), dense LAPACK and banded paths */
    int sizes[] = {1, 2, 5, 12, 31, 32, 33, 60, 200};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        int n = sizes[k];
        for (int spd = 0; spd < 2; spd++)
            for (int kb = 1; kb <= 4; kb += 3) {
                double *A = malloc(sizeof(double) * (size_t)n * (size_t)n);
                s_make(n, kb < n ? kb : n - 1 > 0 ? n - 1 : 0, spd, A);
                double r = s_solve_residual(n, kb < n ? kb : (n > 1 ? n - 1 : 0), spd, A);
                /* diagonally dominant, condition ~ 3: residual at round-off */
                if (!(r < 1e-12)) printf("  n=%d spd=%d kb=%d residual %.3g\n", n, spd, kb, r);
                CHECK(r < 1e-12);
                free(A);
            }
    }
    /* a general matrix that needs pivoting: zero leading diagonal */
    double A[9] = {0, 1, 2, 1, 0, 1, 2, 1, 0}; /* column-major, symmetric */
    mbs_mat M;
    CHECK(mbs_mat_init(&M, MBS_MAT_GEN, 3, 2, 2) == 0);
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++) mbs_mat_add(&M, i, j, A[i + 3 * j]);
    CHECK(mbs_mat_factor(&M) == 0);
    double b[3] = {3, 2, 3}; /* x = (1, 1, 1) */
    mbs_mat_solve(&M, b);
    CHECK_NEAR(b[0], 1, 1e-14);
    CHECK_NEAR(b[1], 1, 1e-14);
    CHECK_NEAR(b[2], 1, 1e-14);
    mbs_mat_free(&M);
    /* an entry outside the band is refused, not written out of bounds */
    CHECK(mbs_mat_init(&M, MBS_MAT_GEN, 100, 1, 1) == 0);
    CHECK(M.band == 1);
    for (int i = 0; i < 100; i++) mbs_mat_add(&M, i, i, 4.0);
    mbs_mat_add(&M, 0, 50, 1.0);
    CHECK(M.outside == 1);
    CHECK(mbs_mat_factor(&M) == -2);
    mbs_mat_free(&M);
    /* not positive definite: reported, not crashed */
    CHECK(mbs_mat_init(&M, MBS_MAT_SPD, 2, 1, 1) == 0);
    mbs_mat_add(&M, 0, 0, 1);
    mbs_mat_add(&M, 0, 1, 2);
    mbs_mat_add(&M, 1, 1, 1);
    CHECK(mbs_mat_factor(&M) > 0);
    mbs_mat_free(&M);
}

static void test_rcm(void)
{
    /* a chain 0-1-2-...-99 with shuffled labels: RCM recovers bandwidth 1 */
    int n = 100, lab[100];
    for (int i = 0; i < n; i++) lab[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)((s_rand() + 0.5) * i);
        int t = lab[i]; lab[i] = lab[j]; lab[j] = t;
    }
    int ptr[101] = {0}, adj[200], deg[100] = {0};
    for (int i = 0; i + 1 < n; i++) { deg[lab[i]]++; deg[lab[i + 1]]++; }
    for (int i = 0; i < n; i++) ptr[i + 1] = ptr[i] + deg[i];
    int fill[100] = {0};
    for (int i = 0; i + 1 < n; i++) {
        int a = lab[i], b = lab[i + 1];
        adj[ptr[a] + fill[a]++] = b;
        adj[ptr[b] + fill[b]++] = a;
    }
    int perm[100];
    CHECK(mbs_rcm(n, ptr, adj, perm) == 1);
    /* perm is a permutation */
    int seen[100] = {0};
    for (int i = 0; i < n; i++) seen[perm[i]]++;
    int ok = 1;
    for (int i = 0; i < n; i++) ok &= seen[i] == 1;
    CHECK(ok);
}

static void test_rank(void)
{
    /* 4 x 3 with column 2 = column 0 + column 1: rank 2, column 2 or one of
     * the others pivoted last */
    double A[12] = {1, 2, 0, 1, 0, 1, 3, 1, 1, 3, 3, 2};
    int jp[3];
    double rd[3];
    CHECK(mbs_qrcp_rank(4, 3, A, jp, rd, 1e-10) == 2);
    double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    CHECK(mbs_qrcp_rank(3, 3, I, jp, rd, 1e-10) == 3);
}

/* mbs_qrcp_rank_ws against mbs_qrcp_rank on a 60 x 23 matrix (scrambled
 * entries of varied sizes, column 9 = column 2 - 3 column 5): the same rank,
 * pivots, |R_kk| and factored matrix, bit for bit; a NaN refused by both;
 * the workspace at least LAPACK's minimum 3 n + 1. */
static void test_qrcp_ws(void)
{
    enum { M = 60, N = 23 };
    double A[M * N], B[M * N], rd1[N], rd2[N], tau[N];
    int jp1[N], jp2[N];
    unsigned long lcg = 987654321;
    for (int i = 0; i < M * N; i++) {
        lcg = lcg * 6364136223846793005UL + 1442695040888963407UL;
        A[i] = ((double)(lcg >> 11) / 9007199254740992.0 - 0.5) * pow(10.0, (double)(i % 5) - 2);
    }
    for (int i = 0; i < M; i++) A[9 * M + i] = A[2 * M + i] - 3 * A[5 * M + i];
    memcpy(B, A, sizeof A);
    int lwork = mbs_qrcp_lwork(M, N);
    CHECK(lwork >= 3 * N + 1);
    double *work = malloc(sizeof(double) * (size_t)(lwork > 0 ? lwork : 1));
    CHECK(work != NULL);
    if (!work) return;
    int r1 = mbs_qrcp_rank(M, N, A, jp1, rd1, 1e-10);
    int r2 = mbs_qrcp_rank_ws(M, N, B, jp2, rd2, 1e-10, tau, work, lwork);
    CHECK(r1 == N - 1 && r2 == r1);
    CHECK(memcmp(jp1, jp2, sizeof jp1) == 0);
    CHECK(memcmp(rd1, rd2, sizeof rd1) == 0);
    CHECK(memcmp(A, B, sizeof A) == 0);
    /* a NaN: refused (LAPACKE's check) by both */
    for (int i = 0; i < M * N; i++) A[i] = B[i] = 1.0 / (1 + i);
    A[7 * M + 3] = B[7 * M + 3] = NAN;
    CHECK(mbs_qrcp_rank(M, N, A, jp1, rd1, 1e-10) == -1);
    CHECK(mbs_qrcp_rank_ws(M, N, B, jp2, rd2, 1e-10, tau, work, lwork) == -1);
    free(work);
}

/* A chain-like n x nc matrix (column c couples rows c .. c + 2, random
 * entries) with three dependent columns: d1 = 2 c3 - c7, d2 = c100 (a copy,
 * far apart), d3 = 0.5 (c40 + c41 + c42), the last three columns (the
 * COLAMD ordering decides which member of each combination is dropped).
 * The sparse QR must find rank nc - 3, mark one member of each combination
 * dependent and all its members involved; the dense QR with column
 * pivoting agrees on the rank. */
static void test_sparse_rank(void)
{
    enum { NR = 600, NC = 400 };
    static double D[NR * NC];
    int *cp = malloc(sizeof(int) * (NC + 1)), *ri = malloc(sizeof(int) * NC * 12);
    double *v = malloc(sizeof(double) * NC * 12);
    int base[NC], q = 0;
    /* columns 0 .. NC-4 independent; NC-3 .. NC-1 the dependent ones */
    for (int c = 0; c < NC; c++) base[c] = c < NC - 3 ? c : -1;
    for (int c = 0; c < NC; c++) {
        double col[NR] = {0};
        if (base[c] >= 0) {
            for (int k = 0; k < 3; k++) col[c + k] = s_rand() + (k == 0 ? 2 : 0);
        }
        memcpy(D + (size_t)c * NR, col, sizeof col);
    }
    double *d1 = D + (size_t)(NC - 3) * NR, *d2 = D + (size_t)(NC - 2) * NR, *d3 = D + (size_t)(NC - 1) * NR;
    for (int r = 0; r < NR; r++) {
        d1[r] = 2 * D[3 * NR + r] - D[7 * NR + r];
        d2[r] = D[100 * NR + r];
        d3[r] = 0.5 * (D[40 * NR + r] + D[41 * NR + r] + D[42 * NR + r]);
    }
    for (int c = 0; c < NC; c++) {
        cp[c] = q;
        for (int r = 0; r < NR; r++)
            if (D[(size_t)c * NR + r] != 0) { ri[q] = r; v[q] = D[(size_t)c * NR + r]; q++; }
    }
    cp[NC] = q;
    char live[NC], combo[NC];
    memset(combo, 0, sizeof combo);
    double ratio = 0;
    int rank = mbs_sparse_qr_rank(NR, NC, cp, ri, v, 1e-9, live, &ratio, combo, 1e-8);
    CHECK(rank == NC - 3);
    int ndead = 0;
    for (int c = 0; c < NC; c++) ndead += !live[c];
    CHECK(ndead == 3);
    /* each dependency lost one member; every member of the three
     * combinations is marked as involved, nothing else */
    int groups[3][4] = {{3, 7, NC - 3, -1}, {100, NC - 2, -1, -1}, {40, 41, 42, NC - 1}};
    for (int g = 0; g < 3; g++) {
        int dead = 0;
        for (int k = 0; k < 4 && groups[g][k] >= 0; k++) { dead += !live[groups[g][k]]; CHECK(combo[groups[g][k]]); }
        CHECK(dead == 1);
    }
    int marked = 0;
    for (int c = 0; c < NC; c++) marked += combo[c];
    CHECK(marked == 3 + 2 + 4);
    CHECK(ratio > 0 && ratio <= 1);
    /* the dense QR with column pivoting: the same rank */
    int *jp = malloc(sizeof(int) * NC);
    double *rd = malloc(sizeof(double) * NC);
    CHECK(mbs_qrcp_rank(NR, NC, D, jp, rd, 1e-9) == NC - 3);
    /* a non-finite entry is refused */
    v[5] = NAN;
    CHECK(mbs_sparse_qr_rank(NR, NC, cp, ri, v, 1e-9, live, NULL, NULL, 0) == -1);
    free(cp); free(ri); free(v); free(jp); free(rd);
}

int main(void)
{
    test_solvers();
    test_rcm();
    test_rank();
    test_qrcp_ws();
    test_sparse_rank();
    return CHECK_SUMMARY("linalg_test");
}
