/*
 * broadphase.c - sort and sweep over the boxes of declared contact pairs
 * (see broadphase.h).
 */
#include "mbs/contact/broadphase.h"
#include "mbs/linalg/status.h" /* MBS_EINVAL, MBS_ENOMEM */

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* An axis replaces the current sweep axis only when its spread (variance of
 * the box centres) is this much larger, so the order is not thrown away by
 * axes that take turns. */
#define S_AXIS_HYSTERESIS 1.2

/* ---- sorting (no allocation: the caller gives the buffer) ------------------------------ */

/* Strict order of two array entries. */
typedef int (*s_less_fn)(const void *ctx, int x, int y);

/* Boxes by lower bound on the sweep axis, ties by index (a total order, so
 * the sweep order does not depend on the sorting algorithm). */
typedef struct {
    const mbs_aabb *box;
    int axis;
} s_box_key;

static int s_less_box(const void *ctx, int x, int y)
{
    const s_box_key *k = ctx;
    double a = k->box[x].lo[k->axis], b = k->box[y].lo[k->axis];
    return a < b || (a == b && x < y);
}

static int s_less_int(const void *ctx, int x, int y)
{
    (void)ctx;
    return x < y;
}

/* Insertion sort that gives up after `budget` moves (returns 0 when sorted,
 * -1 when it gave up; the array is a permutation of the input either way). */
static int s_insertion_sort(int *a, int n, long budget, s_less_fn less, const void *ctx)
{
    long moves = 0;
    for (int i = 1; i < n; i++) {
        int v = a[i], j = i;
        while (j > 0 && less(ctx, v, a[j - 1])) {
            a[j] = a[j - 1];
            j--;
            if (++moves > budget) {
                a[j] = v;
                return -1;
            }
        }
        a[j] = v;
    }
    return 0;
}

/* Bottom-up merge sort of a[0..n) with the buffer tmp (n entries); stable. */
static void s_merge_sort(int *a, int *tmp, int n, s_less_fn less, const void *ctx)
{
    int *src = a, *dst = tmp;
    for (int w = 1; w < n; w *= 2) {
        for (int lo = 0; lo < n; lo += 2 * w) {
            int mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            int i = lo, j = mid, k = lo;
            while (i < mid && j < hi) dst[k++] = less(ctx, src[j], src[i]) ? src[j++] : src[i++];
            while (i < mid) dst[k++] = src[i++];
            while (j < hi) dst[k++] = src[j++];
        }
        int *t = src;
        src = dst;
        dst = t;
    }
    if (src != a) memcpy(a, src, (size_t)n * sizeof *a);
}

/* ---- init / free ------------------------------------------------------------------------- */

void mbs_bp_free(mbs_broadphase *bp)
{
    free(bp->adj_ptr);
    free(bp->adj_box);
    free(bp->adj_pair);
    free(bp->order);
    free(bp->scratch);
    memset(bp, 0, sizeof *bp);
    bp->axis = -1;
}

static int s_check_pairs(int nbox, int npair, const int *pairs)
{
    for (int k = 0; k < npair; k++) {
        int i = pairs[2 * k], j = pairs[2 * k + 1];
        if (i < 0 || i >= nbox || j < 0 || j >= nbox || i == j) return -1;
    }
    return 0;
}

/* Stable counting sort of the half-edges in[0..nh) by key(h) in [0, nbox);
 * cnt has nbox + 1 entries and ends as the CSR pointer of the keys. */
static void s_counting_sort(const int *in, int nh, const int *pairs, int partner_key, int nbox,
                            int *cnt, int *out)
{
    memset(cnt, 0, (size_t)(nbox + 1) * sizeof *cnt);
    for (int x = 0; x < nh; x++) cnt[pairs[in[x] ^ partner_key] + 1]++;
    for (int b = 0; b < nbox; b++) cnt[b + 1] += cnt[b];
    /* place, advancing cnt[key] to the end of each key's range ... */
    for (int x = 0; x < nh; x++) out[cnt[pairs[in[x] ^ partner_key]]++] = in[x];
    /* ... and shift back to the starts */
    for (int b = nbox; b > 0; b--) cnt[b] = cnt[b - 1];
    cnt[0] = 0;
}

int mbs_bp_init(mbs_broadphase *bp, int dim, int nbox, int npair, const int *pairs)
{
    memset(bp, 0, sizeof *bp);
    bp->axis = -1;
    if ((dim != 2 && dim != 3) || nbox < 0 || npair < 0 || npair > INT_MAX / 2 - 1 ||
        nbox == INT_MAX || (npair > 0 && !pairs) || s_check_pairs(nbox, npair, pairs) != 0)
        return MBS_EINVAL;
    int nh = 2 * npair;
    bp->dim = dim;
    bp->nbox = nbox;
    bp->npair = npair;
    bp->adj_ptr = malloc((size_t)(nbox + 1) * sizeof(int));
    bp->adj_box = malloc((size_t)(nh > 0 ? nh : 1) * sizeof(int));
    bp->adj_pair = malloc((size_t)(nh > 0 ? nh : 1) * sizeof(int));
    int *h0 = calloc((size_t)(nh > 0 ? nh : 1), sizeof(int));
    int *h1 = calloc((size_t)(nh > 0 ? nh : 1), sizeof(int));
    int *cnt = malloc((size_t)(nbox + 1) * sizeof(int));
    if (!bp->adj_ptr || !bp->adj_box || !bp->adj_pair || !h0 || !h1 || !cnt) goto nomem;

    /* Half-edge h = 2k + side belongs to box pairs[h] and points to box
     * pairs[h ^ 1] in pair k = h / 2.  Two stable counting sorts (by partner,
     * then by owner) order them by owner, partner, pair id in O(nbox + npair). */
    for (int h = 0; h < nh; h++) h0[h] = h;
    s_counting_sort(h0, nh, pairs, 1, nbox, cnt, h1);
    s_counting_sort(h1, nh, pairs, 0, nbox, bp->adj_ptr, h0);
    for (int x = 0; x < nh; x++) {
        bp->adj_box[x] = pairs[h0[x] ^ 1];
        bp->adj_pair[x] = h0[x] >> 1;
    }

    /* only boxes with a declared partner take part in the sweep */
    for (int i = 0; i < nbox; i++)
        if (bp->adj_ptr[i + 1] > bp->adj_ptr[i]) bp->nactive++;
    int ns = bp->nactive > npair ? bp->nactive : npair;
    bp->order = malloc((size_t)(bp->nactive > 0 ? bp->nactive : 1) * sizeof(int));
    bp->scratch = malloc((size_t)(ns > 0 ? ns : 1) * sizeof(int));
    if (!bp->order || !bp->scratch) goto nomem;
    for (int i = 0, a = 0; i < nbox; i++)
        if (bp->adj_ptr[i + 1] > bp->adj_ptr[i]) bp->order[a++] = i;
    free(h0);
    free(h1);
    free(cnt);
    return 0;

nomem:
    free(h0);
    free(h1);
    free(cnt);
    mbs_bp_free(bp);
    return MBS_ENOMEM;
}

/* ---- queries ------------------------------------------------------------------------------- */

int mbs_aabb_overlap(int dim, const mbs_aabb *a, const mbs_aabb *b, double m)
{
    for (int k = 0; k < dim; k++)
        if (!(b->lo[k] <= a->hi[k] + m && a->lo[k] <= b->hi[k] + m)) return 0;
    return 1;
}

int mbs_bp_direct(int dim, int npair, const int *pairs, const mbs_aabb *box, double margin,
                  int *out)
{
    int n = 0;
    for (int k = 0; k < npair; k++)
        if (mbs_aabb_overlap(dim, &box[pairs[2 * k]], &box[pairs[2 * k + 1]], margin)) out[n++] = k;
    return n;
}

/* The axis along which the finite box centres of the active boxes spread
 * most, keeping the current axis unless another spreads clearly more. */
static int s_choose_axis(const mbs_broadphase *bp, const mbs_aabb *box)
{
    double var[3] = {0, 0, 0};
    for (int k = 0; k < bp->dim; k++) {
        double s = 0, s2 = 0;
        long n = 0;
        for (int a = 0; a < bp->nactive; a++) {
            const mbs_aabb *b = &box[bp->order[a]];
            double c = 0.5 * (b->lo[k] + b->hi[k]);
            if (!isfinite(b->lo[k]) || !isfinite(b->hi[k])) continue;
            s += c;
            s2 += c * c;
            n++;
        }
        if (n > 0) var[k] = s2 / n - (s / n) * (s / n);
    }
    int best = 0;
    for (int k = 1; k < bp->dim; k++)
        if (var[k] > var[best]) best = k;
    if (bp->axis >= 0 && var[best] <= S_AXIS_HYSTERESIS * var[bp->axis]) return bp->axis;
    return best;
}

/* Emit the ids of the declared pairs between boxes i and j: binary search
 * of j in the (shorter) partner list of i. */
static inline int s_emit_pairs(const mbs_broadphase *bp, int i, int j, int *out, int n)
{
    if (bp->adj_ptr[j + 1] - bp->adj_ptr[j] < bp->adj_ptr[i + 1] - bp->adj_ptr[i]) {
        int t = i;
        i = j;
        j = t;
    }
    int lo = bp->adj_ptr[i], hi = bp->adj_ptr[i + 1];
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (bp->adj_box[mid] < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (int x = lo; x < bp->adj_ptr[i + 1] && bp->adj_box[x] == j; x++) out[n++] = bp->adj_pair[x];
    return n;
}

int mbs_bp_sweep(mbs_broadphase *bp, const mbs_aabb *box, double margin, int *out)
{
    int na = bp->nactive, n = 0;
    int axis = s_choose_axis(bp, box);
    s_box_key key = {box, axis};

    /* re-sort the previous order: insertion sort while the boxes moved
     * little, merge sort when that would cost more than a few moves each */
    bp->resorted = 0;
    if (axis != bp->axis || s_insertion_sort(bp->order, na, 4L * na + 16, s_less_box, &key) != 0) {
        s_merge_sort(bp->order, bp->scratch, na, s_less_box, &key);
        bp->resorted = 1;
    }
    bp->axis = axis;

    /* sweep: box j (after i in the order) can overlap i only while its lower
     * bound is within reach of i's upper bound */
    bp->tested = bp->overlaps = 0;
    for (int p = 0; p < na; p++) {
        int i = bp->order[p];
        double reach = box[i].hi[axis] + margin;
        for (int q = p + 1; q < na; q++) {
            int j = bp->order[q];
            if (!(box[j].lo[axis] <= reach)) break;
            bp->tested++;
            if (!mbs_aabb_overlap(bp->dim, &box[i], &box[j], margin)) continue;
            bp->overlaps++;
            n = s_emit_pairs(bp, i, j, out, n);
        }
    }
    s_merge_sort(out, bp->scratch, n, s_less_int, NULL);
    return n;
}

int mbs_bp_grown(mbs_broadphase *bp, const mbs_aabb *box, double margin, const double *grow, double gmax,
                 int *out)
{
    int na = bp->nactive, n = 0, axis = bp->axis;
    if (!(gmax > 0) || axis < 0) return 0;
    /* the sweep of mbs_bp_sweep with the reach widened by the growths; box
     * pairs that overlap without them were reported by that sweep */
    for (int p = 0; p < na; p++) {
        int i = bp->order[p];
        double gi = grow[i], reach = box[i].hi[axis] + margin + gi + gmax;
        for (int q = p + 1; q < na; q++) {
            int j = bp->order[q];
            if (!(box[j].lo[axis] <= reach)) break;
            double g = gi + grow[j];
            if (!(g > 0) || mbs_aabb_overlap(bp->dim, &box[i], &box[j], margin)) continue;
            if (!mbs_aabb_overlap(bp->dim, &box[i], &box[j], margin + g)) continue;
            n = s_emit_pairs(bp, i, j, out, n);
        }
    }
    s_merge_sort(out, bp->scratch, n, s_less_int, NULL);
    return n;
}
