/*
 * mj_pairs.c - the Moreau-Jean stepper's compact records of the active set
 * (see mj_pairs.h).  The store of every declared pair is the workspace's:
 * w->pi[k] (data and state), w->prev (4 numbers per point slot, from
 * w->pi[k].slot), w->pvars[k] and w->pnv[k] (its variables).
 */
#include "mbs/integrate/mj_pairs.h"

#include <stdlib.h>
#include <string.h>

/* Records allocated at first (grown by doubling when the set is larger). */
#define S_REC_ROOM0 1024

int mbs_mj_recs_init(mbs_mj_ws *w, int ncontact)
{
    w->reccap = ncontact < S_REC_ROOM0 ? (ncontact > 0 ? ncontact : 1) : S_REC_ROOM0;
    w->recmax = ncontact > 0 ? ncontact : 1;
    w->nrec = 0;
    w->rec = malloc(sizeof(mbs_mj_rec) * (size_t)w->reccap);
    return w->rec ? 0 : -1;
}

void mbs_mj_recs_load(const mbs_mj_ws *w, int k, mbs_mj_rec *r)
{
    const mbs_mj_pinfo *pk = &w->pi[k];
    r->p.pair = k;
    r->p.shape[0] = pk->shape[0];
    r->p.shape[1] = pk->shape[1];
    r->p.nv = w->pnv[k];
    memcpy(r->p.vars, w->pvars[k], sizeof(int) * (size_t)r->p.nv);
    r->pi = *pk;
    if (pk->npmax > 0) memcpy(r->imp0, w->prev + 4L * pk->slot, sizeof r->imp0);
    else memset(r->imp0, 0, sizeof r->imp0);
}

/* Record r's state back to the store (the pair leaves the records). */
static void s_store(mbs_mj_ws *w, const mbs_mj_rec *r)
{
    mbs_mj_pinfo *pk = &w->pi[r->p.pair];
    pk->lstep = r->pi.lstep;
    pk->istep = r->pi.istep;
    if (pk->npmax > 0) memcpy(w->prev + 4L * pk->slot, r->imp0, sizeof r->imp0);
}

int mbs_mj_recs_sync(mbs_mj_ws *w, const int *cur, int ncur)
{
    /* room for the new set: twice the old or the set, whichever is larger
     * (a few times in a run: the set grows while a pile forms) */
    if (ncur > w->reccap) {
        int cap = 2L * w->reccap > ncur ? 2 * w->reccap : ncur;
        if (cap > w->recmax) cap = w->recmax;
        if (cap < ncur) cap = ncur;
        mbs_mj_rec *r = realloc(w->rec, sizeof(mbs_mj_rec) * (size_t)cap);
        if (!r) {
            w->recnomem = 1;
            return -1;
        }
        w->rec = r;
        w->reccap = cap;
    }
    mbs_mj_rec *rec = w->rec;
    /* in place: first the records of the pairs that stay, in order (those
     * of the pairs that left go to the store) ... */
    int kept = 0, j = 0;
    for (int i = 0; i < w->nrec; i++) {
        int k = rec[i].p.pair;
        while (j < ncur && cur[j] < k) j++;
        if (j < ncur && cur[j] == k) {
            if (kept != i) rec[kept] = rec[i];
            kept++;
        } else {
            s_store(w, &rec[i]);
        }
    }
    /* ... then from the end, each pair of cur at its place: a kept record
     * moves up (never over one not yet moved: kept <= ncur), a new pair's
     * record is loaded */
    int r = kept - 1;
    for (int q = ncur - 1; q >= 0; q--) {
        if (r >= 0 && rec[r].p.pair == cur[q]) {
            if (r != q) rec[q] = rec[r];
            r--;
        } else {
            mbs_mj_recs_load(w, cur[q], &rec[q]);
        }
    }
    w->nrec = ncur;
    return 0;
}

void mbs_mj_recs_clear(mbs_mj_ws *w)
{
    for (int i = 0; i < w->nrec; i++) s_store(w, &w->rec[i]);
    w->nrec = 0;
}

mbs_mj_rec *mbs_mj_recs_find(const mbs_mj_ws *w, int k)
{
    int lo = 0, hi = w->nrec;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (w->rec[mid].p.pair < k) lo = mid + 1;
        else hi = mid;
    }
    return lo < w->nrec && w->rec[lo].p.pair == k ? &w->rec[lo] : NULL;
}

double mbs_mj_recs_bytes(const mbs_mj_ws *w, int ncontact)
{
    if (ncontact <= 0) return 0;
    double b = (sizeof(mbs_mj_pinfo) + sizeof(int *) + sizeof(int)) * (double)ncontact + 32.0 * w->cap_all;
    if (w->rec) b += sizeof(mbs_mj_rec) * (double)w->reccap;
    return b / ncontact;
}
