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

/* The sweep runs in slabs (s_slab_sweep) from this many boxes on, when
 * they make at least S_SLAB_MIN_SLABS slabs. */
#define S_SLAB_MIN_BOXES 64
#define S_SLAB_MIN_SLABS 3

/* Partners remembered per box (s_emit_pairs): a ball in a pile overlaps
 * about 5 to 12 others and the walls. */
#define S_MEMO 16

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

/* The pair ids a[0..n) (0 <= a[i] < bound, distinct) in increasing order:
 * least-significant-digit radix sort, 8 bits a pass (3 passes for up to
 * 2^24 declared pairs), with the buffer tmp (n entries): linear in n, where
 * the merge sort's comparisons grew as n log n (the 400-ball box: 2000 ids
 * a step).  Few ids: the merge sort.  Either gives the one sorted list. */
static void s_sort_ids(int *a, int *tmp, int n, int bound)
{
    if (n < 64) {
        s_merge_sort(a, tmp, n, s_less_int, NULL);
        return;
    }
    int *src = a, *dst = tmp;
    for (int shift = 0; shift < 31 && ((bound - 1) >> shift) > 0; shift += 8) {
        int cnt[257];
        memset(cnt, 0, sizeof cnt);
        for (int i = 0; i < n; i++) cnt[((src[i] >> shift) & 255) + 1]++;
        for (int b = 0; b < 256; b++) cnt[b + 1] += cnt[b];
        for (int i = 0; i < n; i++) dst[cnt[(src[i] >> shift) & 255]++] = src[i];
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
    free(bp->adj);
    free(bp->adj_end);
    free(bp->order);
    free(bp->scratch);
    free(bp->sorder);
    free(bp->skey);
    free(bp->sptr);
    free(bp->memo);
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
    bp->adj = malloc((size_t)(nh > 0 ? 2 * nh : 1) * sizeof(int));
    bp->adj_end = malloc((size_t)(nbox > 0 ? 2 * nbox : 1) * sizeof(int));
    int *h0 = calloc((size_t)(nh > 0 ? nh : 1), sizeof(int));
    int *h1 = calloc((size_t)(nh > 0 ? nh : 1), sizeof(int));
    int *cnt = malloc((size_t)(nbox + 1) * sizeof(int));
    if (!bp->adj_ptr || !bp->adj || !bp->adj_end || !h0 || !h1 || !cnt) goto nomem;

    /* Half-edge h = 2k + side belongs to box pairs[h] and points to box
     * pairs[h ^ 1] in pair k = h / 2.  Two stable counting sorts (by partner,
     * then by owner) order them by owner, partner, pair id in O(nbox + npair). */
    for (int h = 0; h < nh; h++) h0[h] = h;
    s_counting_sort(h0, nh, pairs, 1, nbox, cnt, h1);
    s_counting_sort(h1, nh, pairs, 0, nbox, bp->adj_ptr, h0);
    for (int x = 0; x < nh; x++) {
        bp->adj[2 * x] = pairs[h0[x] ^ 1];
        bp->adj[2 * x + 1] = h0[x] >> 1;
    }
    for (int i = 0; i < nbox; i++) {
        int a = bp->adj_ptr[i], b = bp->adj_ptr[i + 1];
        bp->adj_end[2 * i] = a < b ? bp->adj[2 * a] : 0;
        bp->adj_end[2 * i + 1] = a < b ? bp->adj[2 * (b - 1)] : -1;
    }

    /* only boxes with a declared partner take part in the sweep */
    for (int i = 0; i < nbox; i++)
        if (bp->adj_ptr[i + 1] > bp->adj_ptr[i]) bp->nactive++;
    int ns = bp->nactive > npair ? bp->nactive : npair;
    bp->order = malloc((size_t)(bp->nactive > 0 ? bp->nactive : 1) * sizeof(int));
    bp->scratch = malloc((size_t)(ns > 0 ? ns : 1) * sizeof(int));
    bp->sorder = malloc((size_t)(bp->nactive + 1) * sizeof(int));
    bp->skey = malloc((size_t)(bp->nactive + 1) * sizeof(int));
    bp->sptr = malloc((size_t)(bp->nactive + 2) * sizeof(int));
    bp->memo = malloc((size_t)(nbox > 0 ? nbox : 1) * (2 * S_MEMO + 1) * sizeof(int));
    if (!bp->order || !bp->scratch || !bp->sorder || !bp->skey || !bp->sptr || !bp->memo) goto nomem;
    /* no partner remembered yet (partner -1), next place 0 */
    for (int i = 0; i < nbox; i++) {
        int *mm = bp->memo + (size_t)i * (2 * S_MEMO + 1);
        for (int e = 0; e < S_MEMO; e++) mm[2 * e] = -1;
        mm[2 * S_MEMO] = 0;
    }
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
static int s_choose_axis(const mbs_broadphase *bp, const mbs_aabb *box, double var[3])
{
    var[0] = var[1] = var[2] = 0;
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

/* The ids of the declared pairs between boxes i and j into out from n
 * on (returns the new n): the search of j in i's partner list. */
static int s_lookup_pairs(const mbs_broadphase *bp, int i, int j, int *out, int n)
{
    int lo = bp->adj_ptr[i], hi = bp->adj_ptr[i + 1];
    /* first probe where j would be if i's partners were spread evenly
     * between the first and the last (a group declared with every other
     * box: exactly there, or one off), a few steps towards j, then the
     * binary search in what remains: each probe of a long list (400 balls:
     * 404 partners) is a cache miss */
    if (hi - lo > 8) {
        int b0 = bp->adj_end[2 * i], b1 = bp->adj_end[2 * i + 1];
        if (j < b0 || j > b1) return n;
        int g = b1 > b0 ? lo + (int)((long)(j - b0) * (hi - 1 - lo) / (b1 - b0)) : lo;
        for (int st = 0; st < 4 && g + 1 < hi && bp->adj[2 * g] < j; st++) g++;
        for (int st = 0; st < 4 && g > lo && bp->adj[2 * (g - 1)] >= j; st++) g--;
        /* the first entry >= j is after g, g itself, or before g */
        if (bp->adj[2 * g] < j) lo = g + 1;
        else if (g == lo || bp->adj[2 * (g - 1)] < j) lo = hi = g;
        else hi = g;
    }
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (bp->adj[2 * mid] < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (int x = lo; x < bp->adj_ptr[i + 1] && bp->adj[2 * x] == j; x++) out[n++] = bp->adj[2 * x + 1];
    return n;
}

/* Emit the ids of the declared pairs between boxes i and j: binary search
 * of j in the (shorter) partner list of i.  Each box remembers the last
 * S_MEMO partners it was looked up with that make one declared pair, or
 * none, with that pair's id (-1: none): a box pair that overlaps at one
 * sweep mostly overlaps at the next, and the memo (a line or two per box)
 * answers without the probe of the partner list (a cache miss in a list
 * of every declared pair: 2.6 MB for 400 balls).  The memo holds facts
 * of the declaration, never stale; the ids emitted are the same. */
static inline int s_emit_pairs(mbs_broadphase *bp, int i, int j, int *out, int n)
{
    if (bp->adj_ptr[j + 1] - bp->adj_ptr[j] < bp->adj_ptr[i + 1] - bp->adj_ptr[i]) {
        int t = i;
        i = j;
        j = t;
    }
    int *mm = bp->memo + (size_t)i * (2 * S_MEMO + 1);
    for (int e = 0; e < S_MEMO; e++)
        if (mm[2 * e] == j) {
            bp->memo_hits++;
            if (mm[2 * e + 1] >= 0) out[n++] = mm[2 * e + 1];
            return n;
        }
    int n0 = n;
    n = s_lookup_pairs(bp, i, j, out, n);
    /* remember j when it makes at most one pair with i (round robin) */
    if (n - n0 <= 1) {
        int e = mm[2 * S_MEMO];
        mm[2 * e] = j;
        mm[2 * e + 1] = n > n0 ? out[n0] : -1;
        mm[2 * S_MEMO] = e + 1 < S_MEMO ? e + 1 : 0;
    }
    return n;
}

/* Box i against the boxes Y[q0..ny) (in sweep order) while they start
 * within its reach along the axis: the declared pairs of those that overlap
 * it emitted into out from n on; returns the new n. */
static int s_sweep_from(mbs_broadphase *bp, const mbs_aabb *box, int i, const int *Y, int q0, int ny, int axis,
                        double margin, int *out, int n)
{
    double reach = box[i].hi[axis] + margin;
    for (int q = q0; q < ny; q++) {
        int j = Y[q];
        if (!(box[j].lo[axis] <= reach)) break;
        bp->tested++;
        if (!mbs_aabb_overlap(bp->dim, &box[i], &box[j], margin)) continue;
        bp->overlaps++;
        n = s_emit_pairs(bp, i, j, out, n);
    }
    return n;
}

/* The sweep over the boxes list[0..nl) (in sweep order): each box against
 * those after it; returns the new n. */
static int s_sweep_list(mbs_broadphase *bp, const mbs_aabb *box, const int *list, int nl, int axis, double margin,
                        int *out, int n)
{
    for (int p = 0; p < nl; p++) n = s_sweep_from(bp, box, list[p], list, p + 1, nl, axis, margin, out, n);
    return n;
}

/* The pairs of boxes, one of list A and one of list B (each in sweep
 * order), that overlap: each box of A meets the boxes of B after it in the
 * sweep order within its reach, and each box of B those of A after it, so
 * every pair is tested once. */
static int s_sweep_two(mbs_broadphase *bp, const mbs_aabb *box, const int *A, int na, const int *B, int nb,
                       const s_box_key *key, double margin, int *out, int n)
{
    int axis = key->axis;
    for (int pass = 0; pass < 2; pass++) {
        const int *X = pass ? B : A, *Y = pass ? A : B;
        int nx = pass ? nb : na, ny = pass ? na : nb, first = 0;
        for (int p = 0; p < nx; p++) {
            int i = X[p];
            /* the first box of Y after i (both lists sorted: only forward) */
            while (first < ny && s_less_box(key, Y[first], i)) first++;
            n = s_sweep_from(bp, box, i, Y, first, ny, axis, margin, out, n);
        }
    }
    return n;
}

/* The sweep in slabs across axis ax2 (bp->order sorted along key->axis):
 * slabs of width s above the smallest lower bound, s a little more than
 * the widest box along ax2 plus the margin, so that two boxes that overlap
 * have lower bounds less than s apart and lie in the same or in adjacent
 * slabs.  Each slab is swept alone and against the next one; boxes without
 * finite bounds along ax2 (half-spaces) are tested against every box.  The
 * same box pairs as one sweep, hence the same output (sorted at the end).
 * Returns the new n, or -1 when the boxes make fewer than
 * S_SLAB_MIN_SLABS slabs (then nothing was emitted). */
static int s_slab_sweep(mbs_broadphase *bp, const mbs_aabb *box, const s_box_key *key, int ax2, double margin,
                        int *out, int n)
{
    int na = bp->nactive;
    double ext = 0, lmin = INFINITY, lmax = -INFINITY;
    for (int a = 0; a < na; a++) {
        const mbs_aabb *b = &box[bp->order[a]];
        if (!isfinite(b->lo[ax2]) || !isfinite(b->hi[ax2])) continue;
        if (b->hi[ax2] - b->lo[ax2] > ext) ext = b->hi[ax2] - b->lo[ax2];
        if (b->lo[ax2] < lmin) lmin = b->lo[ax2];
        if (b->lo[ax2] > lmax) lmax = b->lo[ax2];
    }
    /* 1 % wider than needed: the slab index of a lower bound is rounded
     * (by far less than 1 % while the coordinates stay below 1e12 slab
     * widths; beyond, one sweep) */
    double s = 1.01 * (ext + margin);
    if (!(s > 0) || !isfinite(s) || !(lmax >= lmin)) return -1;
    if (fmax(fabs(lmin), fabs(lmax)) > 1e12 * s) return -1;
    double span = (lmax - lmin) / s;
    if (!(span + 1 >= S_SLAB_MIN_SLABS)) return -1;
    /* at most na - 1 slabs (the top one then holds the rest: a box's
     * overlapping boxes are still in its own or an adjacent slab) */
    int ns = span + 1 < na - 1 ? (int)span + 1 : na - 1;
    /* the boxes by bucket, each bucket in sweep order (a stable counting
     * sort): bucket 0 the boxes without finite bounds along ax2, bucket
     * k + 1 slab k; ptr[b] the start of bucket b in sorder */
    int nbkt = ns + 1, *ptr = bp->sptr, *pos = bp->scratch;
    memset(ptr, 0, sizeof(int) * (size_t)(nbkt + 1));
    for (int a = 0; a < na; a++) {
        const mbs_aabb *b = &box[bp->order[a]];
        int k = -1;
        if (isfinite(b->lo[ax2]) && isfinite(b->hi[ax2])) {
            double f = floor((b->lo[ax2] - lmin) / s);
            k = f < 0 ? 0 : f > ns - 1 ? ns - 1 : (int)f;
        }
        bp->skey[a] = k;
        ptr[k + 2]++;
    }
    for (int b = 0; b < nbkt; b++) ptr[b + 1] += ptr[b];
    memcpy(pos, ptr, sizeof(int) * (size_t)nbkt);
    for (int a = 0; a < na; a++) bp->sorder[pos[bp->skey[a] + 1]++] = bp->order[a];
    bp->slabs = ns;
    /* half-spaces (bucket 0) against every box after them in sorder */
    int nw = ptr[1];
    for (int p = 0; p < nw; p++) {
        int i = bp->sorder[p];
        for (int q = p + 1; q < na; q++) {
            int j = bp->sorder[q];
            bp->tested++;
            if (!mbs_aabb_overlap(bp->dim, &box[i], &box[j], margin)) continue;
            bp->overlaps++;
            n = s_emit_pairs(bp, i, j, out, n);
        }
    }
    /* each slab alone and against the next one */
    for (int k = 0; k < ns; k++) {
        const int *A = bp->sorder + ptr[k + 1];
        int nA = ptr[k + 2] - ptr[k + 1];
        n = s_sweep_list(bp, box, A, nA, key->axis, margin, out, n);
        if (k + 1 < ns && nA > 0)
            n = s_sweep_two(bp, box, A, nA, bp->sorder + ptr[k + 2], ptr[k + 3] - ptr[k + 2], key, margin, out, n);
    }
    return n;
}

int mbs_bp_sweep(mbs_broadphase *bp, const mbs_aabb *box, double margin, int *out)
{
    int na = bp->nactive, n = 0;
    double var[3];
    int axis = s_choose_axis(bp, box, var);
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
     * bound is within reach of i's upper bound; with many boxes in slabs
     * across the axis of second largest spread */
    bp->tested = bp->overlaps = 0;
    bp->slabs = 0;
    int m = -1;
    if (na >= S_SLAB_MIN_BOXES) {
        int ax2 = -1;
        for (int k = 0; k < bp->dim; k++)
            if (k != axis && (ax2 < 0 || var[k] > var[ax2])) ax2 = k;
        m = s_slab_sweep(bp, box, &key, ax2, margin, out, 0);
    }
    n = m >= 0 ? m : s_sweep_list(bp, box, bp->order, na, axis, margin, out, 0);
    s_sort_ids(out, bp->scratch, n, bp->npair);
    return n;
}

/* The pair (i, j) for mbs_bp_grown: emitted when the growths make its
 * boxes overlap and the margin alone does not. */
static int s_grown_pair(mbs_broadphase *bp, const mbs_aabb *box, double margin, const double *grow, int i, int j,
                        int *out, int n)
{
    double g = grow[i] + grow[j];
    if (!(g > 0) || mbs_aabb_overlap(bp->dim, &box[i], &box[j], margin)) return n;
    if (!mbs_aabb_overlap(bp->dim, &box[i], &box[j], margin + g)) return n;
    return s_emit_pairs(bp, i, j, out, n);
}

int mbs_bp_grown(mbs_broadphase *bp, const mbs_aabb *box, double margin, const double *grow, double gmax,
                 int *out)
{
    int na = bp->nactive, n = 0, axis = bp->axis;
    if (!(gmax > 0) || axis < 0) return 0;
    const int *order = bp->order;
    /* Only a pair with a growing box can be reported: each growing box is
     * swept forward (every box after it in the sweep order within its
     * widened reach, as the one-list sweep would) and backward over the
     * boxes that do not grow (a growing one finds it in its own forward
     * sweep): their lower bounds within ext + margin + g_j + gmax of its
     * own, ext the largest finite extent along the axis, and the boxes
     * without a finite extent (half-spaces; at most a few) tested apart.
     * The box pairs are those the one-list sweep over every box found, hence
     * the same ids after the sort; the cost is the growing boxes'
     * neighbourhoods, not the whole pile's width (a flat pile: every box
     * against the boxes within reach along one axis). */
    double ext = 0;
    int nw = 0, *wide = bp->skey; /* (the slab keys: scratch here) */
    for (int p = 0; p < na; p++) {
        const mbs_aabb *b = &box[order[p]];
        if (!isfinite(b->lo[axis]) || !isfinite(b->hi[axis])) wide[nw++] = p;
        else if (b->hi[axis] - b->lo[axis] > ext) ext = b->hi[axis] - b->lo[axis];
    }
    for (int q = 0; q < na; q++) {
        int j = order[q];
        double gj = grow[j];
        if (!(gj > 0)) continue;
        double reach = box[j].hi[axis] + margin + gj + gmax, low = box[j].lo[axis] - (ext + margin + gj + gmax);
        for (int r = q + 1; r < na; r++) {
            int i = order[r];
            if (!(box[i].lo[axis] <= reach)) break;
            n = s_grown_pair(bp, box, margin, grow, j, i, out, n);
        }
        for (int r = q - 1; r >= 0; r--) {
            int i = order[r];
            double lo = box[i].lo[axis];
            if (!(lo >= low)) break;
            if (grow[i] > 0 || !isfinite(lo) || !isfinite(box[i].hi[axis])) continue;
            n = s_grown_pair(bp, box, margin, grow, i, j, out, n);
        }
        for (int x = 0; x < nw && wide[x] < q; x++) {
            int i = order[wide[x]];
            if (!(grow[i] > 0)) n = s_grown_pair(bp, box, margin, grow, i, j, out, n);
        }
    }
    s_sort_ids(out, bp->scratch, n, bp->npair);
    return n;
}
