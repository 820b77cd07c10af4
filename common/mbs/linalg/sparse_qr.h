/*
 * sparse_qr.h - rank-revealing sparse QR of a constraint Jacobian, for the
 * redundancy analysis of large mechanisms (issue 11: a 10,000-body model
 * checked in under a second and 200 MB, where the dense QR with column
 * pivoting of analysis.c needs an n x neq matrix).
 *
 * SuiteSparseQR (Debian libsuitesparse-dev, the library KLU comes from)
 * with a COLAMD fill-reducing ordering and Heath's rank detection: a column
 * whose remaining 2-norm is at most tol during the factorisation is
 * dependent on the columns before it.  Unlike column pivoting it does not
 * order the columns by size, so it finds exact (structural) dependencies as
 * reliably but says less about near-dependencies; analysis.c keeps the
 * dense QR with column pivoting where the dense matrix is small (every
 * example) and uses this one above a size limit.
 */
#ifndef MBS_SPARSE_QR_H
#define MBS_SPARSE_QR_H

/* Rank analysis of the nrow x ncol matrix A given by columns (CSC:
 * colptr[ncol + 1], rowind, val; row indices need not be sorted).  Columns
 * whose remaining norm is at most rtol x the largest column norm count as
 * dependent (analysis.c's dense test is |R_kk| <= rtol |R_11|, and |R_11|
 * is the largest column norm there).
 * Returns the rank r, or -1 on failure (out of memory, non-finite entries).
 * Outputs (each may be NULL):
 *   live[ncol]   1 for the r independent columns, 0 for the dependent ones;
 *   rdiag_ratio  min |R_kk| / max |R_kk| over the independent columns (a
 *                rough conditioning figure: no column pivoting);
 *   combo        for each dependent column c (in increasing order), the
 *                independent columns it combines from, with coefficients
 *                above combo_tol in magnitude, are marked combo[col] = 1
 *                (combo[ncol], zeroed by the caller; the joints to report
 *                as redundant). */
int mbs_sparse_qr_rank(int nrow, int ncol, const int *colptr, const int *rowind, const double *val, double rtol,
                       char *live, double *rdiag_ratio, char *combo, double combo_tol);

#endif
