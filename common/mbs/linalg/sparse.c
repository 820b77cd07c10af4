/*
 * sparse.c - see sparse.h.
 *
 * Compression: the triplets are bucketed by row (counting sort), then the
 * rows are walked in order and scattered into their columns, so every
 * column receives its rows in increasing order and a duplicate (i, j) is
 * always next to its twin: it is summed in place.  Two passes of O(nnz + n),
 * no comparison sort.
 *
 * With a given order (mbs_sparse_set_order) KLU runs without its BTF
 * pre-ordering and without row scaling, and every factorisation is a fresh
 * klu_factor (partial pivoting from the values): the arithmetic then
 * depends only on the values and the relative order of the unknowns, not
 * on unknowns whose rows are identity rows (system_contacts.c relies on
 * this for deactivation on/off to agree).  klu_refactor, which reuses the
 * pivots of an earlier matrix, is used only without a given order.
 *
 * Fixed-pattern mode (mbs_sparse_fix_pattern): the CSC arrays (ap, ai) hold
 * the pattern and ax the values of the matrix being assembled; an entry
 * found in its column (the column's slot table, or a binary search in the
 * columns beyond the tables' capacity) is summed in place, one outside it
 * goes to the triplet list, and the next factorisation merges the pattern's
 * entries and those triplets by the same compression (the pattern grows,
 * KLU analyses again).
 */
#include "mbs/linalg/sparse.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <suitesparse/klu.h>

struct mbs_sparse {
    int nmax, cap;
    int n, nt, overflow;   /* current dimension, triplets, dropped entries   */
    int *ti, *tj;          /* (cap) triplets                                  */
    double *tv;
    int *rp, *rj;          /* (nmax + 1), (cap) row buckets                   */
    double *rx;
    int *ap, *ai;          /* (nmax + 1), (cap) CSC of the current matrix     */
    double *ax;
    int *wk;               /* (nmax + 1) fill pointers                        */
    int pn, *pp, *pi;      /* pattern of the factorised matrix (pn = -1: none) */
    const int *order;      /* given elimination order (NULL: KLU's BTF + AMD) */
    int fixed;             /* fixed-pattern mode: (ap, ai) the pattern        */
    int *slot;             /* fixed pattern: column j's entry of row i at     */
    int *sbase, *slo, *slen; /* slot[sbase[j] + i - slo[j]] (-1: not stored),  */
    long scap;             /* for i - slo[j] < slen[j]; sbase[j] < 0: search  */
    klu_common kc;
    klu_symbolic *sym;
    klu_numeric *num;
};

mbs_sparse *mbs_sparse_new(int nmax, long cap)
{
    if (nmax < 1) nmax = 1;
    if (cap < 1) cap = 1;
    if (cap > INT_MAX / 2) return NULL; /* KLU indexes with int */
    mbs_sparse *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->nmax = nmax;
    s->cap = (int)cap;
    s->pn = -1;
    size_t c = (size_t)cap, n1 = (size_t)nmax + 1;
    s->ti = malloc(c * sizeof(int)); s->tj = malloc(c * sizeof(int)); s->tv = malloc(c * sizeof(double));
    s->rp = malloc(n1 * sizeof(int)); s->rj = malloc(c * sizeof(int)); s->rx = malloc(c * sizeof(double));
    s->ap = malloc(n1 * sizeof(int)); s->ai = malloc(c * sizeof(int)); s->ax = malloc(c * sizeof(double));
    s->wk = malloc(n1 * sizeof(int)); s->pp = malloc(n1 * sizeof(int)); s->pi = malloc(c * sizeof(int));
    if (!s->ti || !s->tj || !s->tv || !s->rp || !s->rj || !s->rx || !s->ap || !s->ai || !s->ax || !s->wk || !s->pp ||
        !s->pi) {
        mbs_sparse_free(&s);
        return NULL;
    }
    klu_defaults(&s->kc);
    return s;
}

void mbs_sparse_free(mbs_sparse **ps)
{
    if (!ps || !*ps) return;
    mbs_sparse *s = *ps;
    if (s->num) klu_free_numeric(&s->num, &s->kc);
    if (s->sym) klu_free_symbolic(&s->sym, &s->kc);
    free(s->ti); free(s->tj); free(s->tv);
    free(s->rp); free(s->rj); free(s->rx);
    free(s->ap); free(s->ai); free(s->ax);
    free(s->wk); free(s->pp); free(s->pi);
    free(s->slot); free(s->sbase); free(s->slo); free(s->slen);
    free(s);
    *ps = NULL;
}

void mbs_sparse_set_order(mbs_sparse *s, const int *order)
{
    s->order = order;
    s->kc.btf = order ? 0 : 1;
    s->kc.scale = order ? 0 : 2;
    s->pn = -1; /* analyse again */
}

void mbs_sparse_begin(mbs_sparse *s, int n)
{
    s->nt = 0;
    s->overflow = 0;
    if (s->fixed) {
        memset(s->ax, 0, sizeof(double) * (size_t)s->ap[s->n]);
        return;
    }
    s->n = n < s->nmax ? n : s->nmax;
}

void mbs_sparse_add(mbs_sparse *s, int i, int j, double v)
{
    if (s->fixed && i >= 0 && j >= 0 && i < s->n && j < s->n) {
        /* the column's slot table: the place of the row at once */
        int b = s->sbase[j];
        if (b >= 0) {
            unsigned k = (unsigned)(i - s->slo[j]);
            int p = k < (unsigned)s->slen[j] ? s->slot[b + (int)k] : -1;
            if (p >= 0) { s->ax[p] += v; return; }
            goto outside;
        }
        /* else the row in column j's sorted rows */
        int lo = s->ap[j], hi = s->ap[j + 1] - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >> 1, r = s->ai[mid];
            if (r == i) { s->ax[mid] += v; return; }
            if (r < i) lo = mid + 1; else hi = mid - 1;
        }
    }
outside:
    if (s->nt >= s->cap || i < 0 || j < 0 || i >= s->n || j >= s->n) { s->overflow = 1; return; }
    s->ti[s->nt] = i;
    s->tj[s->nt] = j;
    s->tv[s->nt] = v;
    s->nt++;
}

void mbs_sparse_add_cb(void *ctx, int i, int j, double v)
{
    mbs_sparse_add(ctx, i, j, v);
}

/* Triplets -> CSC (ap, ai, ax) with rows sorted and duplicates summed. */
static void s_compress(mbs_sparse *s)
{
    int n = s->n, nt = s->nt;
    /* bucket by row */
    memset(s->rp, 0, sizeof(int) * (size_t)(n + 1));
    for (int k = 0; k < nt; k++) s->rp[s->ti[k] + 1]++;
    for (int i = 0; i < n; i++) s->rp[i + 1] += s->rp[i];
    memcpy(s->wk, s->rp, sizeof(int) * (size_t)n);
    for (int k = 0; k < nt; k++) {
        int p = s->wk[s->ti[k]]++;
        s->rj[p] = s->tj[k];
        s->rx[p] = s->tv[k];
    }
    /* column counts (upper bound: duplicates counted) and fill pointers */
    memset(s->ap, 0, sizeof(int) * (size_t)(n + 1));
    for (int k = 0; k < nt; k++) s->ap[s->rj[k] + 1]++;
    for (int j = 0; j < n; j++) s->ap[j + 1] += s->ap[j];
    memcpy(s->wk, s->ap, sizeof(int) * (size_t)n);
    /* rows in increasing order: a duplicate is the last entry of its column */
    for (int i = 0; i < n; i++)
        for (int p = s->rp[i]; p < s->rp[i + 1]; p++) {
            int j = s->rj[p], q = s->wk[j];
            if (q > s->ap[j] && s->ai[q - 1] == i) { s->ax[q - 1] += s->rx[p]; continue; }
            s->ai[q] = i;
            s->ax[q] = s->rx[p];
            s->wk[j] = q + 1;
        }
    /* close the gaps the duplicates left */
    int w = 0;
    for (int j = 0; j < n; j++) {
        int start = s->ap[j];
        s->ap[j] = w;
        for (int p = start; p < s->wk[j]; p++) { s->ai[w] = s->ai[p]; s->ax[w] = s->ax[p]; w++; }
    }
    s->ap[n] = w;
}

/* The fixed pattern's slot tables (see mbs_sparse_add): for each column
 * the places of its rows from its first to its last row, within the
 * capacity scap (the columns beyond it are searched).  The same place as
 * the search: the same additions in the same order. */
static void s_slots(mbs_sparse *s)
{
    long used = 0;
    for (int j = 0; j < s->n; j++) {
        int p0 = s->ap[j], p1 = s->ap[j + 1];
        s->sbase[j] = -1;
        if (p1 == p0) continue;
        int lo = s->ai[p0], len = s->ai[p1 - 1] - lo + 1;
        if (used + len > s->scap) continue;
        s->sbase[j] = (int)used;
        s->slo[j] = lo;
        s->slen[j] = len;
        for (int k = 0; k < len; k++) s->slot[used + k] = -1;
        for (int p = p0; p < p1; p++) s->slot[used + s->ai[p] - lo] = p;
        used += len;
    }
}

int mbs_sparse_fix_pattern(mbs_sparse *s)
{
    if (s->overflow || s->fixed) return MBS_SPARSE_EFULL;
    s_compress(s);
    /* the slot tables: allocated once, here (a grown pattern is tabled
     * again within the same capacity) */
    long nnz = s->ap[s->n];
    /* a column's span reaches from its body's rows to its equations'
     * (the chain drive's reduced GGL matrix: 414 unknowns, 3562 entries,
     * 82 944 slots); the capacity bounds the tables of larger models to
     * 16 MB, their other columns searched */
    s->scap = 64 * nnz + 64L * s->n;
    if (s->scap > (1L << 22)) s->scap = 1L << 22;
    s->slot = malloc(sizeof(int) * (size_t)(s->scap > 0 ? s->scap : 1));
    s->sbase = malloc(sizeof(int) * (size_t)s->nmax);
    s->slo = malloc(sizeof(int) * (size_t)s->nmax);
    s->slen = malloc(sizeof(int) * (size_t)s->nmax);
    if (!s->slot || !s->sbase || !s->slo || !s->slen) return MBS_SPARSE_EFULL;
    s_slots(s);
    memset(s->ax, 0, sizeof(double) * (size_t)s->ap[s->n]);
    s->nt = 0;
    s->fixed = 1;
    s->pn = -1; /* analysed at the first factorisation */
    return 0;
}

/* 1 when the compressed pattern equals the factorised one. */
static int s_same_pattern(const mbs_sparse *s)
{
    if (s->pn != s->n || !s->sym || !s->num) return 0;
    if (memcmp(s->pp, s->ap, sizeof(int) * (size_t)(s->n + 1)) != 0) return 0;
    return memcmp(s->pi, s->ai, sizeof(int) * (size_t)s->ap[s->n]) == 0;
}

int mbs_sparse_factor(mbs_sparse *s, int *analysed)
{
    if (analysed) *analysed = 0;
    if (s->overflow) return MBS_SPARSE_EFULL;
    if (s->fixed && s->nt > 0) {
        /* entries outside the pattern: the pattern's entries join them as
         * triplets and the compression makes the grown pattern */
        int nnz = s->ap[s->n];
        if ((long)s->nt + nnz > s->cap) return MBS_SPARSE_EFULL;
        for (int j = 0; j < s->n; j++)
            for (int p = s->ap[j]; p < s->ap[j + 1]; p++) {
                s->ti[s->nt] = s->ai[p];
                s->tj[s->nt] = j;
                s->tv[s->nt] = s->ax[p];
                s->nt++;
            }
        s_compress(s);
        s_slots(s);
        s->nt = 0;
    } else if (!s->fixed) {
        s_compress(s);
    }
    int same = s_same_pattern(s);
    if (same && s->order) {
        /* given order: fresh pivoting on the kept analysis */
        klu_free_numeric(&s->num, &s->kc);
    } else if (same) {
        /* same pattern: refactor with the kept pivot order; a pivot that
         * became small (rcond, the ratio of the smallest to the largest
         * diagonal of U) calls for a fresh pivoting factorisation */
        if (klu_refactor(s->ap, s->ai, s->ax, s->sym, s->num, &s->kc) && klu_rcond(s->sym, s->num, &s->kc) &&
            s->kc.rcond > 1e-12 && isfinite(s->kc.rcond))
            return 0;
        klu_free_numeric(&s->num, &s->kc);
    } else {
        if (s->num) klu_free_numeric(&s->num, &s->kc);
        if (s->sym) klu_free_symbolic(&s->sym, &s->kc);
        s->pn = -1;
        s->sym = s->order ? klu_analyze_given(s->n, s->ap, s->ai, (int *)s->order, (int *)s->order, &s->kc)
                          : klu_analyze(s->n, s->ap, s->ai, &s->kc);
        if (!s->sym) return s->kc.status < 0 ? s->kc.status : -1;
        if (analysed) *analysed = 1;
    }
    s->num = klu_factor(s->ap, s->ai, s->ax, s->sym, &s->kc);
    if (!s->num) return s->kc.status != KLU_OK ? s->kc.status : -1;
    /* remember the pattern that the symbolic object belongs to */
    s->pn = s->n;
    memcpy(s->pp, s->ap, sizeof(int) * (size_t)(s->n + 1));
    memcpy(s->pi, s->ai, sizeof(int) * (size_t)s->ap[s->n]);
    return s->kc.status == KLU_SINGULAR ? 1 : 0;
}

int mbs_sparse_solve(mbs_sparse *s, double *b)
{
    if (!s->sym || !s->num) return -1;
    return klu_solve(s->sym, s->num, s->n, 1, b, &s->kc) ? 0 : (s->kc.status < 0 ? s->kc.status : -1);
}

double mbs_sparse_condest(mbs_sparse *s)
{
    if (!s->sym || !s->num || !klu_condest(s->ap, s->ax, s->sym, s->num, &s->kc)) return INFINITY;
    return isfinite(s->kc.condest) ? s->kc.condest : INFINITY;
}

long mbs_sparse_lu_nnz(const mbs_sparse *s)
{
    return s->num ? (long)s->num->lnz + (long)s->num->unz : -1;
}

int mbs_sparse_dim(const mbs_sparse *s) { return s->n; }
long mbs_sparse_nnz(const mbs_sparse *s) { return s->ap[s->n]; }
long mbs_sparse_triplets(const mbs_sparse *s) { return s->nt; }
long mbs_sparse_capacity(const mbs_sparse *s) { return s->cap; }

double mbs_sparse_get(const mbs_sparse *s, int i, int j)
{
    if (j < 0 || j >= s->n) return 0;
    for (int p = s->ap[j]; p < s->ap[j + 1]; p++)
        if (s->ai[p] == i) return s->ax[p];
    return 0;
}
