/*
 * broadphase.h - broad phase for declared contact pairs (issue 3): which of
 * the declared pairs have bounding boxes within the margin of each other.
 *
 * A model declares its candidate pairs once (by pair, or by groups of shapes,
 * so there may be thousands).  Each step the caller computes one axis-aligned
 * box per shape (mbs_shape_aabb in contact_geom.h) and asks which declared
 * pairs may touch; only those go to the narrow phase.
 *
 * Sort and sweep: the boxes that take part in at least one declared pair are
 * sorted by their lower bound along one axis (the axis along which the box
 * centres spread most; it changes only when another axis spreads 20 % more)
 * and swept; each pair of boxes that overlaps on every axis is looked up
 * in a per-box sorted list of declared partners.  With many boxes the sweep
 * runs in slabs across the axis of second largest spread (slabs as wide as
 * the largest box there plus the margin): a box meets only the boxes of its
 * own and the next slab, so a pile spread over two axes costs about N, not
 * N times its width.  The order of the previous
 * call is kept and re-sorted by insertion sort (nearly linear when the boxes
 * moved a little); when that would take too many moves, a merge sort takes
 * over.  Cost: about N log N (N when coherent) plus the box pairs that
 * overlap along the sweep axis (within a slab and the next one), plus the
 * sort of the result (a radix sort of the pair ids: linear).
 *
 * Overlap with margin m: boxes i and j overlap when, on every axis k < dim,
 *     lo_j[k] <= hi_i[k] + m  and  lo_i[k] <= hi_j[k] + m.
 * With tight boxes (inflate 0) and m = the contact margin, every pair whose
 * narrow-phase gap is <= m is reported (the distance between two shapes is
 * never less than the distance between their boxes along any axis).  Boxes
 * may have infinite bounds (half-spaces); they must not contain NaN.
 *
 * All memory is allocated by mbs_bp_init; mbs_bp_sweep does not allocate.
 */
#ifndef MBS_BROADPHASE_H
#define MBS_BROADPHASE_H

#include "mbs/contact/contact_geom.h" /* mbs_aabb */

typedef struct mbs_broadphase {
    int dim;        /* 2 or 3                                                  */
    int nbox;       /* number of boxes (shapes)                                */
    int npair;      /* number of declared pairs                                */
    /* declared partners of each box, sorted by partner then pair id:
     * entries adj_ptr[i] .. adj_ptr[i+1]-1 */
    int *adj_ptr;   /* nbox + 1                                                */
    int *adj;       /* 4 npair: entry x is partner box adj[2x], pair id adj[2x+1]
                       (side by side: one cache line for both)                 */
    int *adj_end;   /* 2 nbox: first and last partner box of each box          */
    int nactive;    /* boxes with at least one declared pair                   */
    int *order;     /* nactive: those boxes, in sweep order of the last call   */
    int *scratch;   /* max(nactive, npair): merge-sort buffer                  */
    int axis;       /* sweep axis of the last call (-1 before the first)       */
    /* slabs across a second axis (mbs_bp_sweep; see broadphase.c) */
    int *sorder;    /* nactive: the boxes by slab, each slab in sweep order    */
    int *skey;      /* nactive: slab of each box of order (-1: no slab)        */
    int *sptr;      /* nactive + 2: start of each slab in sorder               */
    int slabs;      /* number of slabs of the last call (0: one sweep)         */
    int *memo;      /* nbox (2 S_MEMO + 1): per box its last partners looked
                       up (partner, pair id or -1) and the next place
                       (broadphase.c s_emit_pairs)                             */
    /* statistics of the last call */
    long tested;    /* box pairs overlapping on the sweep axis                 */
    long overlaps;  /* box pairs overlapping on every axis                     */
    long memo_hits; /* box pairs answered by the memo (since mbs_bp_init)      */
    int resorted;   /* 1 if the last call needed a full merge sort             */
} mbs_broadphase;

/* Prepare for nbox boxes of dimension dim (2 or 3) and npair declared pairs
 * pairs[2k], pairs[2k+1] (box indices, distinct, in [0, nbox)).  The same
 * pair may be declared more than once (each id is reported).  Returns 0,
 * MBS_EINVAL (-1) for bad arguments or MBS_ENOMEM (-6); on failure bp is
 * left empty (mbs_bp_free is still safe). */
int mbs_bp_init(mbs_broadphase *bp, int dim, int nbox, int npair, const int *pairs);

void mbs_bp_free(mbs_broadphase *bp);

/* The ids of the declared pairs whose boxes overlap with margin `margin`,
 * written to out (room for npair ids) in increasing order; returns their
 * number.  box[i] is the box of shape i (nbox entries). */
int mbs_bp_sweep(mbs_broadphase *bp, const mbs_aabb *box, double margin, int *out);

/* After mbs_bp_sweep with the same boxes and margin: the ids of the
 * declared pairs whose boxes overlap only when each box i is grown by
 * grow[i] >= 0 on every side (overlap with margin + grow[i] + grow[j]), i.e.
 * those the sweep did not report, in increasing order (out: room for npair
 * ids).  gmax is the largest grow[i]; 0 returns 0 at once.  Uses the sweep
 * order of the last call (no re-sort): O(active boxes + the boxes within
 * reach along the sweep axis of each growing box). */
int mbs_bp_grown(mbs_broadphase *bp, const mbs_aabb *box, double margin, const double *grow, double gmax,
                 int *out);

/* The same result by testing every declared pair directly: npair box tests,
 * no state.  For few pairs, or to check the sweep. */
int mbs_bp_direct(int dim, int npair, const int *pairs, const mbs_aabb *box, double margin,
                  int *out);

/* 1 if boxes a and b overlap with margin m on the first dim axes. */
int mbs_aabb_overlap(int dim, const mbs_aabb *a, const mbs_aabb *b, double m);

#endif
