/*
 * linalg.c - see linalg.h.
 */
#include "mbs/linalg/linalg.h"

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int mbs_mat_init(mbs_mat *A, mbs_mat_kind kind, int n, int kl, int ku)
{
    memset(A, 0, sizeof *A);
    A->kind = kind;
    A->n = n;
    if (kind == MBS_MAT_SPD) kl = ku;
    /* Band storage pays off only when the band is narrow against n. */
    A->band = (n >= 24 && 3 * (kl + ku + 1) < n);
    A->kl = kl;
    A->ku = ku;
    if (!A->band) {
        A->ld = n > 0 ? n : 1;
    } else if (kind == MBS_MAT_SPD) {
        A->ld = ku + 1;              /* upper band: row kd + i - j          */
    } else {
        A->ld = 2 * kl + ku + 1;     /* dgbtrf needs kl extra rows for fill */
    }
    A->a = calloc((size_t)A->ld * (size_t)(n > 0 ? n : 1), sizeof(double));
    if (kind == MBS_MAT_GEN) A->ipiv = calloc((size_t)(n > 0 ? n : 1), sizeof(int));
    if (!A->a || (kind == MBS_MAT_GEN && !A->ipiv)) {
        mbs_mat_free(A);
        return -1;
    }
    return 0;
}

void mbs_mat_free(mbs_mat *A)
{
    free(A->a);
    free(A->ipiv);
    A->a = NULL;
    A->ipiv = NULL;
}

void mbs_mat_zero(mbs_mat *A)
{
    A->outside = 0;
    memset(A->a, 0, sizeof(double) * (size_t)A->ld * (size_t)(A->n > 0 ? A->n : 1));
}

void mbs_mat_add(mbs_mat *A, int i, int j, double v)
{
    if (!A->band) {
        if (A->kind == MBS_MAT_SPD && i > j) return;
        A->a[i + (size_t)j * A->ld] += v;
        return;
    }
    if (A->kind == MBS_MAT_SPD) {
        if (i > j) return;
        if (j - i > A->ku) { A->outside++; return; }
        A->a[(A->ku + i - j) + (size_t)j * A->ld] += v;
    } else {
        if (i - j > A->kl || j - i > A->ku) { A->outside++; return; }
        A->a[(A->kl + A->ku + i - j) + (size_t)j * A->ld] += v;
    }
}

/* Small dense systems (the planar mechanisms of real-time use) are factorised
 * here: below ~32 unknowns the call overhead of an optimised LAPACK/BLAS
 * (argument checks, blocking, thread locks) costs more than the arithmetic. */
#define S_SMALL 32

/* Cholesky A = U^T U of the upper triangle, column-major, in place. */
static int s_chol_small(int n, double *a, int ld)
{
    for (int j = 0; j < n; j++) {
        double d = a[j + (size_t)j * ld];
        for (int k = 0; k < j; k++) d -= a[k + (size_t)j * ld] * a[k + (size_t)j * ld];
        if (!(d > 0)) return j + 1;
        d = sqrt(d);
        a[j + (size_t)j * ld] = d;
        for (int i = j + 1; i < n; i++) {
            double v = a[j + (size_t)i * ld];
            for (int k = 0; k < j; k++) v -= a[k + (size_t)j * ld] * a[k + (size_t)i * ld];
            a[j + (size_t)i * ld] = v / d;
        }
    }
    return 0;
}

static void s_chol_solve_small(int n, const double *a, int ld, double *b)
{
    for (int i = 0; i < n; i++) { /* U^T y = b */
        double v = b[i];
        for (int k = 0; k < i; k++) v -= a[k + (size_t)i * ld] * b[k];
        b[i] = v / a[i + (size_t)i * ld];
    }
    for (int i = n - 1; i >= 0; i--) { /* U x = y */
        double v = b[i];
        for (int k = i + 1; k < n; k++) v -= a[i + (size_t)k * ld] * b[k];
        b[i] = v / a[i + (size_t)i * ld];
    }
}

/* LU with partial pivoting, column-major, in place; ipiv 0-based. */
static int s_lu_small(int n, double *a, int ld, int *ipiv)
{
    for (int j = 0; j < n; j++) {
        int p = j;
        for (int i = j + 1; i < n; i++)
            if (fabs(a[i + (size_t)j * ld]) > fabs(a[p + (size_t)j * ld])) p = i;
        ipiv[j] = p;
        if (a[p + (size_t)j * ld] == 0) return j + 1;
        if (p != j)
            for (int k = 0; k < n; k++) {
                double t = a[j + (size_t)k * ld];
                a[j + (size_t)k * ld] = a[p + (size_t)k * ld];
                a[p + (size_t)k * ld] = t;
            }
        double inv = 1.0 / a[j + (size_t)j * ld];
        for (int i = j + 1; i < n; i++) a[i + (size_t)j * ld] *= inv;
        for (int k = j + 1; k < n; k++) {
            double f = a[j + (size_t)k * ld];
            if (f == 0) continue;
            for (int i = j + 1; i < n; i++) a[i + (size_t)k * ld] -= a[i + (size_t)j * ld] * f;
        }
    }
    return 0;
}

static void s_lu_solve_small(int n, const double *a, int ld, const int *ipiv, double *b)
{
    /* the factorisation swapped whole rows: P A = L U, so all the swaps
     * first, then L y = P b */
    for (int j = 0; j < n; j++)
        if (ipiv[j] != j) { double t = b[j]; b[j] = b[ipiv[j]]; b[ipiv[j]] = t; }
    for (int j = 0; j < n; j++)
        for (int i = j + 1; i < n; i++) b[i] -= a[i + (size_t)j * ld] * b[j];
    for (int i = n - 1; i >= 0; i--) {
        double v = b[i];
        for (int k = i + 1; k < n; k++) v -= a[i + (size_t)k * ld] * b[k];
        b[i] = v / a[i + (size_t)i * ld];
    }
}

int mbs_mat_factor(mbs_mat *A)
{
    int n = A->n;
    if (n == 0) return 0;
    if (A->outside) return -2;
    if (!A->band && n <= S_SMALL)
        return A->kind == MBS_MAT_SPD ? s_chol_small(n, A->a, A->ld) : s_lu_small(n, A->a, A->ld, A->ipiv);
    if (A->kind == MBS_MAT_SPD) {
        if (A->band)
            return LAPACKE_dpbtrf_work(LAPACK_COL_MAJOR, 'U', n, A->ku, A->a, A->ld);
        return LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'U', n, A->a, A->ld);
    }
    if (A->band)
        return LAPACKE_dgbtrf_work(LAPACK_COL_MAJOR, n, n, A->kl, A->ku, A->a, A->ld, A->ipiv);
    return LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, A->a, A->ld, A->ipiv);
}

void mbs_mat_solve(const mbs_mat *A, double *b)
{
    int n = A->n;
    if (n == 0) return;
    if (!A->band && n <= S_SMALL) {
        if (A->kind == MBS_MAT_SPD) s_chol_solve_small(n, A->a, A->ld, b);
        else s_lu_solve_small(n, A->a, A->ld, A->ipiv, b);
        return;
    }
    if (A->kind == MBS_MAT_SPD) {
        if (A->band)
            LAPACKE_dpbtrs_work(LAPACK_COL_MAJOR, 'U', n, A->ku, 1, A->a, A->ld, b, n);
        else
            LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'U', n, 1, A->a, A->ld, b, n);
        return;
    }
    if (A->band)
        LAPACKE_dgbtrs_work(LAPACK_COL_MAJOR, 'N', n, A->kl, A->ku, 1, A->a, A->ld, A->ipiv, b, n);
    else
        LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'N', n, 1, A->a, A->ld, A->ipiv, b, n);
}

/* Breadth-first Cuthill-McKee from a pseudo-peripheral start, per connected
 * component, then reversed. */
int mbs_rcm(int n, const int *ptr, const int *adj, int *perm)
{
    if (n <= 0) return 0;
    int *deg = malloc(sizeof(int) * (size_t)n);
    char *seen = calloc((size_t)n, 1);
    int *level = malloc(sizeof(int) * (size_t)n);
    if (!deg || !seen || !level) {
        for (int i = 0; i < n; i++) perm[i] = i;
        free(deg); free(seen); free(level);
        return n - 1;
    }
    for (int i = 0; i < n; i++) deg[i] = ptr[i + 1] - ptr[i];
    int head = 0, tail = 0;
    for (int comp = 0; tail < n; comp++) {
        /* start: unvisited node of minimum degree, then walk to the far end of
         * a BFS twice (George-Liu pseudo-peripheral node). */
        int s = -1;
        for (int i = 0; i < n; i++)
            if (!seen[i] && (s < 0 || deg[i] < deg[s])) s = i;
        for (int pass = 0; pass < 2; pass++) {
            int h = tail, t = tail;
            perm[t++] = s; seen[s] = 1;
            while (h < t) {
                int u = perm[h++];
                for (int k = ptr[u]; k < ptr[u + 1]; k++)
                    if (!seen[adj[k]]) { seen[adj[k]] = 1; perm[t++] = adj[k]; }
            }
            int far = perm[t - 1];
            for (int k = tail; k < t; k++) seen[perm[k]] = 0;
            s = far;
        }
        /* Cuthill-McKee BFS with neighbours by increasing degree. */
        head = tail;
        perm[tail++] = s; seen[s] = 1;
        while (head < tail) {
            int u = perm[head++];
            int first = tail;
            for (int k = ptr[u]; k < ptr[u + 1]; k++)
                if (!seen[adj[k]]) { seen[adj[k]] = 1; perm[tail++] = adj[k]; }
            for (int a = first + 1; a < tail; a++) { /* insertion sort by degree */
                int v = perm[a], b = a - 1;
                while (b >= first && deg[perm[b]] > deg[v]) { perm[b + 1] = perm[b]; b--; }
                perm[b + 1] = v;
            }
        }
    }
    /* reverse and measure the bandwidth */
    for (int i = 0; i < n / 2; i++) { int tmp = perm[i]; perm[i] = perm[n - 1 - i]; perm[n - 1 - i] = tmp; }
    for (int i = 0; i < n; i++) level[perm[i]] = i;
    int bw = 0;
    for (int u = 0; u < n; u++)
        for (int k = ptr[u]; k < ptr[u + 1]; k++) {
            int dlt = abs(level[u] - level[adj[k]]);
            if (dlt > bw) bw = dlt;
        }
    free(deg); free(seen); free(level);
    return bw;
}

/* After dgeqp3 on the m x n matrix A: 0-based pivots, |R_ii| into rdiag
 * (k = min(m, n) of them) and the numerical rank (|R_ii| > tol |R_00|). */
static int s_qrcp_finish(int m, int n, int k, const double *A, int *jpvt, double *rdiag, double tol)
{
    for (int j = 0; j < n; j++) jpvt[j] -= 1;
    double r0 = 0;
    for (int i = 0; i < k; i++) {
        rdiag[i] = A[i + (size_t)i * m] < 0 ? -A[i + (size_t)i * m] : A[i + (size_t)i * m];
        if (i == 0) r0 = rdiag[0];
    }
    int rank = 0;
    for (int i = 0; i < k; i++)
        if (rdiag[i] > tol * r0 && rdiag[i] > 0) rank++;
    return rank;
}

int mbs_qrcp_lwork(int m, int n)
{
    double q = 0, dummy = 0;
    int jp = 0;
    if (m < 1 || n < 1) return 1;
    int info = LAPACKE_dgeqp3_work(LAPACK_COL_MAJOR, m, n, &dummy, m, &jp, &dummy, &q, -1);
    return info == 0 && q >= 1 ? (int)q : -1;
}

int mbs_qrcp_rank_ws(int m, int n, double *A, int *jpvt, double *rdiag, double tol, double *tau, double *work,
                     int lwork)
{
    int k = m < n ? m : n;
    if (k == 0) return 0;
    /* LAPACKE_dgeqp3's check: a NaN anywhere refuses the matrix */
    if (LAPACKE_get_nancheck())
        for (size_t i = 0; i < (size_t)m * (size_t)n; i++)
            if (isnan(A[i])) return -1;
    for (int j = 0; j < n; j++) jpvt[j] = 0;
    if (LAPACKE_dgeqp3_work(LAPACK_COL_MAJOR, m, n, A, m, jpvt, tau, work, lwork) != 0) return -1;
    return s_qrcp_finish(m, n, k, A, jpvt, rdiag, tol);
}

int mbs_qrcp_rank(int m, int n, double *A, int *jpvt, double *rdiag, double tol)
{
    int k = m < n ? m : n;
    if (k == 0) return 0;
    double *tau = malloc(sizeof(double) * (size_t)k);
    if (!tau) return -1;
    for (int j = 0; j < n; j++) jpvt[j] = 0;
    int info = LAPACKE_dgeqp3(LAPACK_COL_MAJOR, m, n, A, m, jpvt, tau);
    free(tau);
    if (info != 0) return -1;
    return s_qrcp_finish(m, n, k, A, jpvt, rdiag, tol);
}

int mbs_lstsq(int m, int n, double *A, double *b)
{
    int ldb = m > n ? m : n;
    int rank;
    double *s = malloc(sizeof(double) * (size_t)(m < n ? m : n) + sizeof(double));
    if (!s) return -1;
    int info = LAPACKE_dgelsd(LAPACK_COL_MAJOR, m, n, 1, A, m, b, ldb, s, 1e-12, &rank);
    free(s);
    return info == 0 ? 0 : -1;
}

int mbs_lstsq_query(int m, int n, int *lwork, int *liwork)
{
    double wq = 0, dummy = 0, sv = 0;
    int iq = 0, rank = 0, ldb = m > n ? m : n;
    int info = LAPACKE_dgelsd_work(LAPACK_COL_MAJOR, m, n, 1, &dummy, m > 0 ? m : 1, &dummy, ldb > 0 ? ldb : 1, &sv,
                                   1e-12, &rank, &wq, -1, &iq);
    if (info != 0) return -1;
    *lwork = (int)wq + 1 + (m < n ? m : n);
    *liwork = iq > 0 ? iq : 1;
    return 0;
}

int mbs_lstsq_ws(int m, int n, double *A, double *b, double *work, int lwork, int *iwork)
{
    int k = m < n ? m : n, rank = 0, ldb = m > n ? m : n;
    double *sv = work, *w = work + k;
    int info = LAPACKE_dgelsd_work(LAPACK_COL_MAJOR, m, n, 1, A, m, b, ldb, sv, 1e-12, &rank, w, lwork - k, iwork);
    return info == 0 ? 0 : -1;
}
