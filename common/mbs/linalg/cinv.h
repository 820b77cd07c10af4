/*
 * cinv.h - the constrained inverse of a small dense saddle-point system by
 * its Schur complement (issue 14: the islands of Moreau-Jean time stepping).
 *
 * For M (n x n, symmetric positive definite, constant) and A (m x n, full
 * row rank) the system
 *     [M  A^T] [v ]   [f]
 *     [A  0  ] [mu] = [e]
 * has the solution
 *     v = P f + X^T S^-1 e,   X = A M^-1 (m x n),   S = A M^-1 A^T (m x m),
 *     P = M^-1 - X^T S^-1 X   (the constrained inverse, n x n, symmetric).
 * M^-1 is given once (mbs_cinv_set_minv: the mass matrix of natural
 * coordinates does not change); each new A costs X, S, its Cholesky factor
 * and P, about 2 n^2 m + n m^2 flops (n = 12, m = 6 for a free body: 2.5
 * kflop, against 3.9 kflop for an LU factor of the 18 x 18 KKT matrix and
 * 650 flops per solve with it), after which P g costs n^2 and P is at hand
 * for the Delassus blocks.  A row of A may be marked off (a switched-off
 * equation): it is left out (mu = 0 for it).
 *
 * No allocation after mbs_cinv_init; nothing printed.
 */
#ifndef MBS_CINV_H
#define MBS_CINV_H

typedef struct {
    int n, m;
    double *Minv; /* (n x n) M^-1, row-major                       */
    double *X;    /* (m x n) A M^-1                                 */
    double *Z;    /* (m x n) L^-1 X                                 */
    double *S;    /* (m x m) Cholesky factor L of S (lower, row-major) */
    double *P;    /* (n x n) constrained inverse                    */
    double *U;    /* (n x r) P = U U^T, row-major (range factor)    */
    int r;        /* rank of P: n - (rows switched on)              */
    double *t;    /* (m + n) scratch                                */
    double *W;    /* (n x n) scratch                                */
    int *mnz;     /* (n x n) row k of M^-1: its non-zero columns ... */
    int *mnzc;    /* (n) ... and their count (mbs_cinv_set_minv)     */
    int *anz;     /* (n) scratch: the non-zero columns of a row of A */
} mbs_cinv;

/* Allocate for n variables and m equations (m may be 0).  0 or -1 (out of
 * memory; then call mbs_cinv_free). */
int mbs_cinv_init(mbs_cinv *c, int n, int m);

void mbs_cinv_free(mbs_cinv *c);

/* M^-1 from the symmetric matrix M (n x n, row-major, full storage) by a
 * Cholesky factorisation.  0, or 1 when M is not positive definite (then
 * the constrained inverse cannot be formed this way). */
int mbs_cinv_set_minv(mbs_cinv *c, const double *M);

/* Form X, S and P for the constraint matrix A (m x n, row-major); on[r] = 0
 * leaves row r out (on may be NULL: all rows in), and the range factor
 * U (n x r, r = n - rows on) with P = U U^T by a pivoted Cholesky
 * factorisation of P (r outer-product steps, each on the largest remaining
 * diagonal entry; P is positive semidefinite of rank r): velocities
 * P f = U (U^T f) live in r numbers.  0, or 1 when S is not positive
 * definite (dependent rows) or P has a smaller rank than r. */
int mbs_cinv_factor(mbs_cinv *c, const double *A, const int *on);

/* v = P f + X^T S^-1 e (the v part of the saddle-point solution); f (n) or
 * e (m) may be NULL for zero; v (n) must not alias f. */
void mbs_cinv_solve(const mbs_cinv *c, const double *f, const double *e, double *v);

#endif
