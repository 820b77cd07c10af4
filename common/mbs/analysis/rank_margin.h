/*
 * rank_margin.h - the rank margin (mbs_rank_margin) of a constraint
 * Jacobian that splits into independent blocks: variables linked by no
 * equation, e.g. free bodies in natural coordinates, each with its own
 * rigid-body equations.  One dense QR of the whole Phi_q^T costs
 * O(n neq^2) (N balls on a floor: 2400 x 1200 entries for 200 balls, 40 %
 * of the run); block by block it is linear in the number of blocks.
 * Internal to common/mbs/analysis/.
 */
#ifndef MBS_RANK_MARGIN_H
#define MBS_RANK_MARGIN_H

#include "mbs/model/model.h"

#include <math.h>

/* The exponent e such that 2^e sqrt(s2) lies in [0.5, 1): an equation's
 * row of squared length s2 is scaled by 2^e before every rank analysis's
 * QR (analysis.c s_jac_fill: the margin, the redundancy analysis), exactly, so that rows of equal length stay equal and
 * the pivoting order among them is the unscaled one's (a scaling to unit
 * length made near ties of exact ones and the margin depend on rounding:
 * 12 % between two orders of the same QR); 0 for s2 = 0 or not finite. */
static inline int mbs_rank_scale(double s2)
{
    int e = 0;
    if (!(s2 > 0) || !isfinite(s2)) return 0;
    (void)frexp(sqrt(s2), &e);
    return -e;
}

/* The exponent by which row (the values of equation e in the Jacobian's
 * storage) is scaled after its variables' entries were scaled by 2^ce[v]:
 * mbs_rank_scale of the scaled row's squared length (analysis.c
 * s_jac_fill, where the scaling is explained). */
static inline int mbs_rank_row_exp(const mbs_eq *e, const double *row, const int *ce)
{
    double s2 = 0;
    for (int k = 0; k < e->nnz; k++) {
        double a = ldexp(row[k], ce[e->cols[k]]);
        s2 += a * a;
    }
    return mbs_rank_scale(s2);
}

/* Returned by mbs_rank_margin_blocks for a Jacobian that is one block. */
#define MBS_RANK_ONE_BLOCK (-1.0)

/* The |R_kk| of a QR with column pivoting of Phi_q^T (the model's pattern,
 * values jac, scaled as every rank analysis measures it: variable v's
 * entries times 2^ce[v], then each equation's row by the power of two
 * mbs_rank_scale gives; analysis.c s_jac_fill), computed block by block: each block's |R_kk| are those the
 * pivoted QR of the whole matrix finds (it takes the largest remaining
 * column, and the blocks' columns are orthogonal), so together, in
 * decreasing order, they are its diagonal (up to rounding): into rd (neq
 * values, zeros for empty rows and a block's equations beyond its
 * variables).  Returns the number of blocks (>= 2) when done; 1 when the
 * matrix is one block or one block holds over a quarter of its entries
 * (then the pivot order of its own QR can differ from the whole's where
 * its columns nearly tie: the caller's dense QR decides), 0 when a block's dense matrix has more than
 * dense_max entries, -1 on failure (rd not filled). */
int mbs_blocks_rdiag(const mbs_model *m, const double *jac, double dense_max, const int *ce, double *rd);

/* |R_rr| / |R_11| at rank r0 (1 <= r0 <= min(nvar, neq)) of a QR with
 * column pivoting of Phi_q^T from mbs_blocks_rdiag (ce passed on).  MBS_RANK_ONE_BLOCK
 * when that returns 1 (the caller's dense QR decides); 1 (not
 * measured) when a block's dense matrix has more than dense_max entries;
 * 0 on failure. */
double mbs_rank_margin_blocks(const mbs_model *m, const double *jac, int r0, double dense_max, const int *ce);

#endif
