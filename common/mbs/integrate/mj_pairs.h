/*
 * mj_pairs.h - the Moreau-Jean stepper's compact records of the contact
 * deactivation's active set (internal to common/mbs/integrate/; see
 * mj_pairs.c and docs/contacts.md, "Cost").
 *
 * A model may declare tens of thousands of pairs (a group of 400 balls:
 * 81,800) of which a few thousand are in the active set.  What a step reads
 * of a pair (its shapes and variables, which the contact rows' points_rec
 * reads too, the stepper's data of the pair: law, friction, restitution,
 * islands, B column length, and its state: the steps it was last in the
 * system and in the index set, its first point's warm-start impulses) is
 * copied into a record when the pair enters the set, kept there while it
 * stays (records in the set's order, contiguous), and the state copied
 * back to the declared pair's store (w->pi, w->prev) when it leaves.  A
 * step then reads its pairs in one sequential sweep, not scattered over
 * arrays of every declared pair.
 *
 * Kept when the run uses contact deactivation and the contact rows give
 * pair_nv and points_rec (the natural coordinates do); the records start
 * with room for a thousand pairs and are doubled when the set outgrows
 * them, a few times in a run, so that their memory follows the largest
 * active set, not the declared pairs.
 */
#ifndef MBS_MJ_PAIRS_H
#define MBS_MJ_PAIRS_H

#include "mbs/integrate/integrator_mj_ws.h"

/* The record of one pair of the active set. */
typedef struct mbs_mj_rec {
    mbs_rpair p;               /* id, shapes, variables (contact_rows.h)      */
    mbs_mj_pinfo pi;           /* the declared pair's w->pi[k], while in the
                                  set (its state: lstep, istep)              */
    double imp0[4];            /* its first point's warm-start impulses (its
                                  w->prev slot; the other points' stay there:
                                  pairs of more than one point are few)      */
} mbs_mj_rec;

/* The records of w (w->rec, w->nrec, w->reccap): room for the first
 * S_REC_ROOM0 pairs (at most the declared ones).  0 or -1 (out of memory). */
int mbs_mj_recs_init(mbs_mj_ws *w, int ncontact);

/* Fill r with pair k's data and state from the store (what entering the
 * active set copies). */
void mbs_mj_recs_load(const mbs_mj_ws *w, int k, mbs_mj_rec *r);

/* The active set is now cur[0 .. ncur) (pair ids in increasing order; the
 * records follow the set of the last call): records of the pairs that stay
 * are kept, those of the pairs that left have their state copied to the
 * store, new pairs' records are loaded.  The records then follow cur (they
 * may have moved: pointers into them are void).  0, or -1 when the room
 * could not grow (w->recnomem set; the records are left as they were). */
int mbs_mj_recs_sync(mbs_mj_ws *w, const int *cur, int ncur);

/* Drop the records, their state copied to the store first. */
void mbs_mj_recs_clear(mbs_mj_ws *w);

/* Pair k's record, NULL when it is not in the records (binary search). */
mbs_mj_rec *mbs_mj_recs_find(const mbs_mj_ws *w, int k);

/* Bytes per declared pair of the store (w->pi, w->prev, w->pvars) and the
 * records' room (for the report of bench/README.md). */
double mbs_mj_recs_bytes(const mbs_mj_ws *w, int ncontact);

#endif
