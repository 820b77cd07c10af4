/*
 * cinv.c - constrained inverse by the Schur complement (see cinv.h).
 */
#include "mbs/linalg/cinv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int mbs_cinv_init(mbs_cinv *c, int n, int m)
{
    memset(c, 0, sizeof *c);
    c->n = n;
    c->m = m;
    size_t nn = (size_t)n * (size_t)n, mm = (size_t)m * (size_t)m, mn = (size_t)m * (size_t)n;
    c->Minv = calloc(nn + 1, sizeof(double));
    c->P = calloc(nn + 1, sizeof(double));
    c->X = calloc(mn + 1, sizeof(double));
    c->S = calloc(mm + 1, sizeof(double));
    c->Z = calloc(mn + 1, sizeof(double));
    c->U = calloc(nn + 1, sizeof(double));
    c->W = calloc(nn + 1, sizeof(double));
    c->t = calloc((size_t)m + (size_t)n + 1, sizeof(double));
    c->mnz = calloc(nn + 1, sizeof(int));
    c->mnzc = calloc((size_t)n + 1, sizeof(int));
    c->anz = calloc((size_t)n + 1, sizeof(int));
    return c->Minv && c->P && c->X && c->Z && c->S && c->t && c->U && c->W && c->mnz && c->mnzc && c->anz ? 0 : -1;
}

void mbs_cinv_free(mbs_cinv *c)
{
    free(c->Minv);
    free(c->P);
    free(c->X);
    free(c->Z);
    free(c->U);
    free(c->W);
    free(c->S);
    free(c->t);
    free(c->mnz);
    free(c->mnzc);
    free(c->anz);
    memset(c, 0, sizeof *c);
}

/* In-place Cholesky factor of the symmetric k x k matrix L (row-major, the
 * lower triangle is read and replaced by the factor; the upper is zeroed).
 * 0, or 1 when a pivot is not positive (relative to the diagonal's size). */
static int s_chol(int k, double *L)
{
    double dmax = 0;
    for (int i = 0; i < k; i++) dmax = fmax(dmax, fabs(L[i * k + i]));
    for (int j = 0; j < k; j++) {
        double s = L[j * k + j];
        for (int p = 0; p < j; p++) s -= L[j * k + p] * L[j * k + p];
        if (!(s > 1e-14 * dmax)) return 1;
        double d = sqrt(s);
        L[j * k + j] = d;
        for (int i = j + 1; i < k; i++) {
            double t = L[i * k + j];
            for (int p = 0; p < j; p++) t -= L[i * k + p] * L[j * k + p];
            L[i * k + j] = t / d;
        }
        for (int i = 0; i < j; i++) L[i * k + j] = 0;
    }
    return 0;
}

/* Functions of the sizes inlined with the constants of a free body in
 * space (n = 12 coordinates, m = 6 equations) where they are called often
 * (mbs_cinv_solve): the compiler unrolls the loops of constant trip count.
 * Every entry's sum keeps its order: the answers are the same to the bit. */
#define S_INLINE static inline __attribute__((always_inline))

/* x <- (L L^T)^-1 x for the Cholesky factor L (k x k, row-major). */
S_INLINE void s_chol_solve(int k, const double *L, double *x)
{
    for (int i = 0; i < k; i++) {
        double s = x[i];
        for (int p = 0; p < i; p++) s -= L[i * k + p] * x[p];
        x[i] = s / L[i * k + i];
    }
    for (int i = k - 1; i >= 0; i--) {
        double s = x[i];
        for (int p = i + 1; p < k; p++) s -= L[p * k + i] * x[p];
        x[i] = s / L[i * k + i];
    }
}

int mbs_cinv_set_minv(mbs_cinv *c, const double *M)
{
    int n = c->n;
    /* factor M in P's storage, then M^-1 column by column */
    memcpy(c->P, M, sizeof(double) * (size_t)n * (size_t)n);
    if (s_chol(n, c->P)) return 1;
    double *col = c->t + c->m;
    for (int j = 0; j < n; j++) {
        for (int i = 0; i < n; i++) col[i] = i == j;
        s_chol_solve(n, c->P, col);
        for (int i = 0; i < n; i++) c->Minv[i * n + j] = col[i];
    }
    /* symmetric to the last bit */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++) {
            double a = 0.5 * (c->Minv[i * n + j] + c->Minv[j * n + i]);
            c->Minv[i * n + j] = c->Minv[j * n + i] = a;
        }
    memcpy(c->P, c->Minv, sizeof(double) * (size_t)n * (size_t)n);
    /* the non-zeros of each row (a body in natural coordinates: M is
     * M_4 (x) I_3 up to the order, so 4 of 12) */
    for (int k = 0; k < n; k++) {
        c->mnzc[k] = 0;
        for (int j = 0; j < n; j++)
            if (c->Minv[k * n + j] != 0) c->mnz[k * n + c->mnzc[k]++] = j;
    }
    return 0;
}

/* The range factor U of P (see cinv.h).  0, or 1 when a pivot of the
 * first r steps is not positive (relative to P's largest diagonal). */
static int s_range(mbs_cinv *c, const int *on)
{
    int n = c->n, r = n;
    for (int k = 0; k < c->m; k++) r -= !on || on[k];
    c->r = r;
    double *A = c->W, dmax = 0;
    memcpy(A, c->P, sizeof(double) * (size_t)n * (size_t)n);
    for (int i = 0; i < n; i++) dmax = fmax(dmax, A[i * n + i]);
    for (int k = 0; k < r; k++) {
        int j = 0;
        for (int i = 1; i < n; i++)
            if (A[i * n + i] > A[j * n + j]) j = i;
        double piv = A[j * n + j];
        if (!(piv > 1e-13 * dmax)) return 1;
        double s = 1 / sqrt(piv);
        for (int i = 0; i < n; i++) c->U[i * r + k] = A[i * n + j] * s;
        for (int i = 0; i < n; i++) {
            double ui = c->U[i * r + k];
            if (ui == 0) continue;
            for (int l = 0; l < n; l++) A[i * n + l] -= ui * c->U[l * r + k];
        }
    }
    return 0;
}

int mbs_cinv_factor(mbs_cinv *c, const double *A, const int *on)
{
    int n = c->n, m = c->m;
    /* X = A M^-1, skipping the zeros of A (a row of a free body's
     * constraint touches 3 to 6 of its 12 coordinates) and of M^-1 (8 of
     * 12 in a row): a left-out term is an exact zero, x + 0 = x for the
     * finite x (never -0: it starts at +0), so X is the same to the bit */
    memset(c->X, 0, sizeof(double) * (size_t)m * (size_t)n);
    for (int r = 0; r < m; r++) {
        if (on && !on[r]) continue;
        double *x = c->X + (size_t)r * n;
        for (int k = 0; k < n; k++) {
            double a = A[(size_t)r * n + k];
            if (a == 0) continue;
            const double *mi = c->Minv + (size_t)k * n;
            const int *nz = c->mnz + (size_t)k * n;
            for (int q = 0; q < c->mnzc[k]; q++) x[nz[q]] += a * mi[nz[q]];
        }
    }
    /* S = X A^T (lower triangle), identity on the rows left out; the sums
     * over the non-zeros of A's row s, in order (the same to the bit) */
    for (int s = 0; s < m; s++) {
        const double *a = A + (size_t)s * n;
        int na = 0;
        if (!on || on[s])
            for (int k = 0; k < n; k++)
                if (a[k] != 0) c->anz[na++] = k;
        for (int r = s; r < m; r++) {
            double v = 0;
            if ((!on || on[r]) && (!on || on[s])) {
                const double *x = c->X + (size_t)r * n;
                for (int q = 0; q < na; q++) v += x[c->anz[q]] * a[c->anz[q]];
            } else if (r == s) {
                v = 1;
            }
            c->S[r * m + s] = v;
        }
    }
    if (s_chol(m, c->S)) return 1;
    /* P = M^-1 - X^T S^-1 X = M^-1 - Z^T Z with Z = L^-1 X (m x n) */
    double *Z = c->Z;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double s = c->X[(size_t)i * n + j];
            for (int p = 0; p < i; p++) s -= c->S[i * m + p] * Z[(size_t)p * n + j];
            Z[(size_t)i * n + j] = s / c->S[i * m + i];
        }
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++) {
            double s = c->Minv[i * n + j];
            for (int r = 0; r < m; r++) s -= Z[(size_t)r * n + i] * Z[(size_t)r * n + j];
            c->P[i * n + j] = c->P[j * n + i] = s;
        }
    return s_range(c, on);
}

/* v = P f + X^T S^-1 e; P f column by column (P is symmetric to the bit:
 * the same sums in the same order as row by row) */
S_INLINE void s_solve(const mbs_cinv *c, const double *f, const double *e, double *restrict v, int n, int m)
{
    for (int i = 0; i < n; i++) v[i] = 0;
    if (f)
        for (int j = 0; j < n; j++) {
            const double *restrict pj = c->P + (size_t)j * n;
            double fj = f[j];
            for (int i = 0; i < n; i++) v[i] += pj[i] * fj;
        }
    if (!e || m == 0) return;
    double *y = c->t;
    memcpy(y, e, sizeof(double) * (size_t)m);
    s_chol_solve(m, c->S, y);
    for (int r = 0; r < m; r++) {
        if (y[r] == 0) continue;
        const double *restrict x = c->X + (size_t)r * n;
        double yr = y[r];
        for (int i = 0; i < n; i++) v[i] += x[i] * yr;
    }
}

void mbs_cinv_solve(const mbs_cinv *c, const double *f, const double *e, double *v)
{
    if (c->n == 12 && c->m == 6) s_solve(c, f, e, v, 12, 6);
    else s_solve(c, f, e, v, c->n, c->m);
}
