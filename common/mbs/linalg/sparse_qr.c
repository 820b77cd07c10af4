/*
 * sparse_qr.c - rank-revealing sparse QR by SuiteSparseQR (sparse_qr.h).
 */
#include "mbs/linalg/sparse_qr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <suitesparse/SuiteSparseQR_C.h>

/* Dependent columns beyond this many are marked dead without the analysis
 * of which independent columns they combine from (each costs a triangular
 * solve with the independent part of R). */
#define SQR_MAX_COMBOS 256

/* The squeezed R of a rank-deficient factorisation (rank rows, every
 * column): row i's leading entry lies in column piv[i], increasing with i;
 * the columns that hold a leading entry are the independent ones.  Fills
 * piv (rank) and returns how many rows have a pivot (rank when consistent). */
static long s_pivots(const cholmod_sparse *R, long rank, long *piv)
{
    const SuiteSparse_long *p = R->p, *ri = R->i;
    const double *x = R->x;
    long next = 0;
    for (long k = 0; k < (long)R->ncol && next < rank; k++)
        for (SuiteSparse_long q = p[k]; q < p[k + 1]; q++)
            if (ri[q] == next && x[q] != 0) { piv[next++] = k; break; }
    return next;
}

/* For dependent column k of R: y = R_live^-1 R(:, k) by back substitution
 * over the pivot columns; marks combo[orig(piv[i])] where |y_i| > ctol. */
static void s_combo(const cholmod_sparse *R, long rank, const long *piv, const SuiteSparse_long *E, long k,
                    double *w, char *combo, double ctol)
{
    const SuiteSparse_long *p = R->p, *ri = R->i;
    const double *x = R->x;
    memset(w, 0, sizeof(double) * (size_t)rank);
    for (SuiteSparse_long q = p[k]; q < p[k + 1]; q++)
        if (ri[q] < rank) w[ri[q]] += x[q];
    for (long i = rank - 1; i >= 0; i--) {
        if (w[i] == 0) continue;
        long c = piv[i];
        double d = 0;
        for (SuiteSparse_long q = p[c]; q < p[c + 1]; q++) if (ri[q] == i) d = x[q];
        if (d == 0) continue;
        double y = w[i] / d;
        if (fabs(y) > ctol) combo[E ? E[c] : c] = 1;
        for (SuiteSparse_long q = p[c]; q < p[c + 1]; q++)
            if (ri[q] < i) w[ri[q]] -= y * x[q];
    }
}

int mbs_sparse_qr_rank(int nrow, int ncol, const int *colptr, const int *rowind, const double *val, double rtol,
                       char *live, double *rdiag_ratio, char *combo, double combo_tol)
{
    if (ncol == 0) return 0;
    cholmod_common cc;
    if (!cholmod_l_start(&cc)) return -1;
    cc.print = 0;
    long nnz = colptr[ncol], rank = -1;
    cholmod_sparse *A = cholmod_l_allocate_sparse((size_t)nrow, (size_t)ncol, (size_t)(nnz > 0 ? nnz : 1), 0, 1, 0,
                                                  CHOLMOD_REAL, &cc);
    cholmod_sparse *R = NULL;
    SuiteSparse_long *E = NULL;
    long *piv = NULL;
    double *w = NULL;
    if (!A) goto done;
    /* the columns, and the largest column norm for the tolerance */
    SuiteSparse_long *Ap = A->p, *Ai = A->i;
    double *Ax = A->x, cmax = 0;
    for (int c = 0; c <= ncol; c++) Ap[c] = colptr[c];
    for (long q = 0; q < nnz; q++) {
        if (!isfinite(val[q])) goto done;
        Ai[q] = rowind[q];
        Ax[q] = val[q];
    }
    for (int c = 0; c < ncol; c++) {
        double s = 0;
        for (long q = colptr[c]; q < colptr[c + 1]; q++) s += val[q] * val[q];
        cmax = fmax(cmax, sqrt(s));
    }
    rank = SuiteSparseQR_C(SPQR_ORDERING_COLAMD, rtol * cmax, 0, 0, A, NULL, NULL, NULL, NULL, &R, &E, NULL, NULL,
                           NULL, &cc);
    if (rank < 0 || !R) { rank = -1; goto done; }
    piv = malloc(sizeof(long) * (size_t)(rank > 0 ? rank : 1));
    w = malloc(sizeof(double) * (size_t)(rank > 0 ? rank : 1));
    if (!piv || !w || s_pivots(R, rank, piv) != rank) { rank = -1; goto done; }
    /* independent columns (in the caller's numbering) and |R_kk| */
    char *isp = calloc((size_t)ncol, 1);
    if (!isp) { rank = -1; goto done; }
    double dmin = INFINITY, dmax = 0;
    for (long i = 0; i < rank; i++) {
        long c = piv[i];
        isp[c] = 1;
        for (SuiteSparse_long q = ((SuiteSparse_long *)R->p)[c]; q < ((SuiteSparse_long *)R->p)[c + 1]; q++)
            if (((SuiteSparse_long *)R->i)[q] == i) {
                double d = fabs(((double *)R->x)[q]);
                dmin = fmin(dmin, d);
                dmax = fmax(dmax, d);
            }
    }
    if (rdiag_ratio) *rdiag_ratio = rank > 0 && dmax > 0 ? dmin / dmax : 0;
    if (live)
        for (long k = 0; k < ncol; k++) live[E ? E[k] : k] = isp[k];
    /* which independent columns each dependent one combines from */
    long ncombo = 0;
    for (long k = 0; combo && k < ncol; k++) {
        if (isp[k]) continue;
        combo[E ? E[k] : k] = 1;
        if (ncombo++ < SQR_MAX_COMBOS && rank > 0) s_combo(R, rank, piv, E, k, w, combo, combo_tol);
    }
    free(isp);
done:
    free(piv);
    free(w);
    if (R) cholmod_l_free_sparse(&R, &cc);
    if (E) cholmod_l_free((size_t)ncol, sizeof(SuiteSparse_long), E, &cc);
    if (A) cholmod_l_free_sparse(&A, &cc);
    cholmod_l_finish(&cc);
    return (int)rank;
}
