/*
 * system_ggl_red.c - the BDF's GGL Newton system with the velocity
 * increments eliminated, for the sparse (KLU) path (see system_ggl.h).
 *
 * The GGL matrix of analysis/system.c (mbs_ggl_emit) in the unknowns
 * (dq, dv, dlam, dmu), n variables and ne equations, G = Phi_q (rows of the
 * equations switched on), w0 the BDF's weight:
 *
 *     F1 rows:  [ I       -I/w0   0     -G^T ]
 *     F2 rows:  [ A_q      A_v    G^T    0   ]      A_q = (K + H)/w0
 *     F3 rows:  [ G        0      0      0   ]      A_v = M + C/w0
 *     F4 rows:  [ J_vq     G      0      0   ]      J_vq = d(G v)/dq
 *
 * The first block row is linear in dv with the pivot block -I/w0, so
 *
 *     dv = w0 (dq - G^T dmu - F1)
 *
 * and the other rows R = (F2, F3, F4) with the columns C = (q, lam, mu) keep
 * the Schur complement S = A_RC + w0 A_Rv [I, 0, -G^T] and the right-hand
 * side b_R + w0 A_Rv F1, where A_Rv is the v columns of those rows (A_v in
 * the F2 rows, G in the F4 rows, nothing in F3):
 *
 *     F2 rows:  [ A_q + w0 A_v    G^T   -w0 A_v G^T ]
 *     F3 rows:  [ G               0      0          ]
 *     F4 rows:  [ J_vq + w0 G     0     -w0 G G^T   ]
 *
 * n + 2 ne unknowns instead of 2 n + 2 ne (the roller chain drive: 414
 * against 620, L + U 7588 against 12 724 entries).  The fill is in the mu columns: a row of A_v (a body's
 * mass block, its contacts' damping) reaches every equation on a variable
 * of its columns, and G G^T couples equations sharing a variable.  Exact
 * algebra: the solution is the full system's up to rounding (KLU pivots
 * differently), checked against the banded LU in ggl_sparse_test.  dv
 * carries w0 times the rounding of dq - G^T dmu - F1: negligible for the
 * Newton right-hand sides, whose dq is of the size dv/w0 (every block to
 * 1e-13 in the test), not for an arbitrary one (a constraint residual of
 * 1 m at w0 = 1e7: dv 3.5e-8 off, relative).
 *
 * Kept when it pays: the first build factorises the full matrix too and
 * keeps the reduced one when its L + U holds at most RED_LU_RATIO times
 * the full one's entries (measured: bench/README.md, chain14g).
 *
 * Assembly: mbs_ggl_emit's entries (the values' first blocks by s_fixed,
 * the rest block by block through mbs_ggl_emit_blocks; the pattern's
 * through s_pattern) with the F1 rows dropped (their blocks are the fixed
 * ones above, G from d->jac), the q, lam and mu columns kept, and a
 * v-column entry a at (i, c) recorded as w0 a;
 * s_spread then sums the recorded entries by row and adds each row's
 * w0 A_Rv to the q columns and its product -w0 A_Rv G^T, gathered in a
 * dense row, to the mu columns.  w0 A_Rv by rows and G are kept as the
 * factorised matrix holds them (the Newton iterations that reuse it
 * evaluate G anew) for the right-hand side and the back-substitution of
 * every solve with it.
 */
#include "mbs/integrate/system_ggl.h"
#include "mbs/analysis/system.h"
#include "mbs/linalg/sparse.h"
#include "mbs/model/clock.h"
#include "mbs/model/accuracy.h"
#include "mbs/formulation/natural/natural.h"

#include <stdlib.h>
#include <string.h>

typedef struct mbs_ggl_red mbs_ggl_red;

/* the reduced system's L + U against the full one's at the first
 * factorisation at or below which the reduced one is kept */
#define RED_LU_RATIO 0.7

struct mbs_ggl_red {
    int n, ne, N;               /* variables, equations, reduced unknowns   */
    int *gt_ptr, *gt_eq, *gt_pos; /* G^T by variable: equation, index in d->jac */
    double *gt_val;             /* G's entries of the factorised matrix (0 off) */
    long av_cap, nav;           /* w0 A_Rv's entries of the last matrix as  */
    int *av_i, *av_j;           /* emitted (row, variable, value), then by  */
    double *av_x;               /* row (CSR, duplicates summed):            */
    int *ar_ptr, *ar_j;         /* (N + 1), (av_cap)                        */
    double *ar_x;
    int *ar_rows, nar_rows;     /* (N) the rows with entries, in order      */
    int *cur;                   /* (N) fill cursors                         */
    int *mark;                  /* (n) a variable's last place in ar_j      */
    double *acc;                /* (ne) a row of -w0 A_Rv G^T               */
    int *touched;               /* (ne) its equations                       */
    char *in_row;               /* (ne) 1 for an equation in touched        */
    int overflow;               /* more A_Rv entries than av_cap            */
    double w0;                  /* the weight of the factorised matrix      */
    mbs_sparse *full;           /* the full matrix until the first build    */
    double *x;                  /* (N) the reduced right-hand side          */
};

/* The reduction of one matrix's entries into the sink S (s_pattern: the
 * pattern; s_fixed and the block sinks: the values at the weight w0). */
typedef struct {
    mbs_ggl_red *r;
    mbs_sparse *S;
    double w0;
} s_red;

/* Record w0 A_Rv's entry a at (row ri, variable col) for s_spread. */
static inline void s_record(mbs_ggl_red *r, int ri, int col, double a)
{
    if (r->nav >= r->av_cap) { r->overflow = 1; return; }
    r->av_i[r->nav] = ri;
    r->av_j[r->nav] = col;
    r->av_x[r->nav] = a;
    r->nav++;
}

/* A place (i, j) of the full matrix's pattern (mbs_ggl_pattern) into the
 * reduced one, every entry 1: the F1 rows dropped, the q, lam and mu
 * columns kept, a v column becoming its q column and the mu columns of
 * the equations on its variable. */
static void s_pattern(void *ctx, int i, int j, double v)
{
    (void)v;
    s_red *c = ctx;
    mbs_ggl_red *r = c->r;
    int n = r->n, mu0 = n + r->ne;
    if (i < n) return; /* F1 rows: the fixed blocks */
    int ri = i - n;
    if (j < n || j >= 2 * n) {
        mbs_sparse_add(c->S, ri, j < n ? j : j - n, 1.0);
        return;
    }
    int col = j - n;
    mbs_sparse_add(c->S, ri, col, 1.0);
    for (int p = r->gt_ptr[col]; p < r->gt_ptr[col + 1]; p++) mbs_sparse_add(c->S, ri, mu0 + r->gt_eq[p], 1.0);
}

/* The values of mbs_ggl_emit's first blocks, reduced: the q rows (F1)
 * dropped; the mass (v columns) recorded as w0 M; for each equation on,
 * Phi_q^T in the lambda columns and Phi_q in the lambda rows added to S,
 * Phi_q in the mu rows' v columns recorded as w0 Phi_q; for one off, the
 * two unit diagonals: the emitter's entries in its order, without a call
 * per entry. */
static void s_fixed(const mbs_model *m, const mbs_data *d, mbs_ggl_red *r, mbs_sparse *S, double w0)
{
    int n = r->n, ne = r->ne;
    for (int i = 0; i < n; i++)
        for (int k = m->M_ptr[i]; k < m->M_ptr[i + 1]; k++) s_record(r, i, m->M_col[k], w0 * m->M_val[k]);
    for (int q = 0; q < ne; q++) {
        if (!d->eq_on[q]) {
            mbs_sparse_add(S, n + q, n + q, 1.0);
            mbs_sparse_add(S, n + ne + q, n + ne + q, 1.0);
            continue;
        }
        const mbs_eq *e = &m->eq[q];
        const double *row = d->jac + (e->cols - m->colpool);
        for (int a = 0; a < e->nnz; a++) {
            int c = e->cols[a];
            mbs_sparse_add(S, c, n + q, row[a]);
            mbs_sparse_add(S, n + q, c, row[a]);
            s_record(r, n + ne + q, c, w0 * row[a]);
        }
    }
}

/* mbs_ggl_emit_blocks' sinks, the reduction of each block's values: K and
 * H (the v rows' q columns) and d(Phi_q v)/dq (the mu rows' q columns)
 * added to S, C (the v rows' v columns) recorded as w0 C. */
static void s_blk_q(void *ctx, int i, int j, double v)
{
    s_red *c = ctx;
    mbs_sparse_add(c->S, i, j, v);
}

static void s_blk_v(void *ctx, int i, int j, double v)
{
    s_red *c = ctx;
    s_record(c->r, i, j, c->w0 * v);
}

static void s_blk_mu(void *ctx, int i, int j, double v)
{
    s_red *c = ctx;
    mbs_sparse_add(c->S, c->r->n + c->r->ne + i, j, v);
}

/* The recorded w0 A_Rv by rows, duplicates summed (ar_*), and into S its
 * entries in the q columns and, row by row through the dense accumulator
 * acc, its product with -G^T in the mu columns: one add to S per entry of
 * the product rather than one per term. */
static void s_spread(mbs_ggl_red *r, mbs_sparse *S)
{
    int NR = r->N, mu0 = r->n + r->ne;
    int *ptr = r->ar_ptr, *cur = r->cur;
    /* bucket by row in the order of emission */
    memset(ptr, 0, sizeof(int) * (size_t)(NR + 1));
    for (long k = 0; k < r->nav; k++) ptr[r->av_i[k] + 1]++;
    for (int i = 0; i < NR; i++) ptr[i + 1] += ptr[i];
    memcpy(cur, ptr, sizeof(int) * (size_t)NR);
    for (long k = 0; k < r->nav; k++) {
        int p = cur[r->av_i[k]]++;
        r->ar_j[p] = r->av_j[k];
        r->ar_x[p] = r->av_x[k];
    }
    /* each row: duplicates summed in place (compacted forwards), then its
     * entries and its product row */
    int w = 0;
    r->nar_rows = 0;
    for (int i = 0; i < NR; i++) {
        int start = ptr[i], end = ptr[i + 1], row0 = w;
        ptr[i] = w;
        if (end > start) r->ar_rows[r->nar_rows++] = i;
        for (int p = start; p < end; p++) {
            int j = r->ar_j[p], q = r->mark[j];
            if (q >= row0 && q < w && r->ar_j[q] == j) {
                r->ar_x[q] += r->ar_x[p];
                continue;
            }
            r->mark[j] = w;
            r->ar_j[w] = j;
            r->ar_x[w] = r->ar_x[p];
            w++;
        }
        int nt = 0;
        for (int p = row0; p < w; p++) {
            int j = r->ar_j[p];
            double a = r->ar_x[p];
            mbs_sparse_add(S, i, j, a);
            for (int g = r->gt_ptr[j]; g < r->gt_ptr[j + 1]; g++) {
                if (r->gt_val[g] == 0) continue;
                int e = r->gt_eq[g];
                if (!r->in_row[e]) {
                    r->in_row[e] = 1;
                    r->touched[nt++] = e;
                    r->acc[e] = 0;
                }
                r->acc[e] -= a * r->gt_val[g];
            }
        }
        for (int k = 0; k < nt; k++) {
            int e = r->touched[k];
            mbs_sparse_add(S, i, mu0 + e, r->acc[e]);
            r->in_row[e] = 0;
        }
    }
    ptr[NR] = w;
}

void mbs_ggl_red_free(mbs_data *d)
{
    mbs_ggl_red *r = d->ggl_red;
    if (!r) return;
    free(r->gt_ptr); free(r->gt_eq); free(r->gt_pos); free(r->gt_val);
    free(r->av_i); free(r->av_j); free(r->av_x);
    free(r->ar_ptr); free(r->ar_j); free(r->ar_x); free(r->ar_rows); free(r->cur); free(r->mark);
    free(r->acc); free(r->touched); free(r->in_row);
    free(r->x);
    mbs_sparse_free(&r->full);
    free(r);
    d->ggl_red = NULL;
}

/* G^T's index by variable: for variable c the equations on it and the
 * place of their entry in d->jac (the model's column pool). */
static int s_gt_index(const mbs_model *m, mbs_ggl_red *r)
{
    int n = m->nvar, ne = m->neq;
    long nnz = 0;
    for (int e = 0; e < ne; e++) nnz += m->eq[e].nnz;
    r->gt_ptr = calloc((size_t)n + 1, sizeof(int));
    r->gt_eq = malloc(sizeof(int) * (size_t)(nnz + 1));
    r->gt_pos = malloc(sizeof(int) * (size_t)(nnz + 1));
    r->gt_val = malloc(sizeof(double) * (size_t)(nnz + 1));
    if (!r->gt_ptr || !r->gt_eq || !r->gt_pos || !r->gt_val) return MBS_ENOMEM;
    for (int e = 0; e < ne; e++)
        for (int a = 0; a < m->eq[e].nnz; a++) r->gt_ptr[m->eq[e].cols[a] + 1]++;
    for (int c = 0; c < n; c++) r->gt_ptr[c + 1] += r->gt_ptr[c];
    int *fill = malloc(sizeof(int) * (size_t)(n + 1));
    if (!fill) return MBS_ENOMEM;
    memcpy(fill, r->gt_ptr, sizeof(int) * (size_t)n);
    for (int e = 0; e < ne; e++)
        for (int a = 0; a < m->eq[e].nnz; a++) {
            int p = fill[m->eq[e].cols[a]]++;
            r->gt_eq[p] = e;
            r->gt_pos[p] = (int)(m->eq[e].cols - m->colpool) + a;
        }
    free(fill);
    return 0;
}

int mbs_ggl_red_new(const mbs_model *m, mbs_data *d)
{
    if (!d->ggl_sp || d->ggl_red) return MBS_EINVAL;
    mbs_ggl_red *r = calloc(1, sizeof *r);
    if (!r) return MBS_ENOMEM;
    d->ggl_red = r;
    r->n = m->nvar;
    r->ne = m->neq;
    r->N = m->nvar + 2 * m->neq;
    if (s_gt_index(m, r)) goto nomem;
    /* the full sink's capacity bounds the entries of one matrix (with as
     * many outside its pattern as in it); a v-column entry becomes one
     * entry per equation on its variable and one more */
    long full = mbs_sparse_capacity(d->ggl_sp);
    int deg = 0;
    for (int c = 0; c < r->n; c++)
        if (r->gt_ptr[c + 1] - r->gt_ptr[c] > deg) deg = r->gt_ptr[c + 1] - r->gt_ptr[c];
    r->av_cap = full;
    r->av_i = malloc(sizeof(int) * (size_t)full);
    r->av_j = malloc(sizeof(int) * (size_t)full);
    r->av_x = malloc(sizeof(double) * (size_t)full);
    r->x = malloc(sizeof(double) * (size_t)r->N);
    r->ar_ptr = malloc(sizeof(int) * (size_t)(r->N + 1));
    r->ar_j = malloc(sizeof(int) * (size_t)full);
    r->ar_x = malloc(sizeof(double) * (size_t)full);
    r->ar_rows = malloc(sizeof(int) * (size_t)r->N);
    r->cur = malloc(sizeof(int) * (size_t)r->N);
    r->mark = malloc(sizeof(int) * (size_t)(r->n + 1));
    r->acc = malloc(sizeof(double) * (size_t)(r->ne + 1));
    r->touched = malloc(sizeof(int) * (size_t)(r->ne + 1));
    r->in_row = calloc((size_t)r->ne + 1, 1);
    if (!r->av_i || !r->av_j || !r->av_x || !r->x || !r->ar_ptr || !r->ar_j || !r->ar_x || !r->ar_rows || !r->cur ||
        !r->mark || !r->acc || !r->touched || !r->in_row)
        goto nomem;
    for (int c = 0; c < r->n; c++) r->mark[c] = -1;
    memset(r->ar_ptr, 0, sizeof(int) * (size_t)(r->N + 1));
    mbs_sparse *S = mbs_sparse_new(r->N, full * (1L + deg));
    if (!S) goto nomem;
    /* the reduced pattern: the full one's entries through the reduction */
    mbs_sparse_begin(S, r->N);
    s_red c = {r, S, 1.0};
    mbs_ggl_pattern(m, d, s_pattern, &c);
    if (mbs_sparse_fix_pattern(S)) {
        mbs_sparse_free(&S);
        goto nomem;
    }
    r->full = d->ggl_sp;
    d->ggl_sp = S;
    return 0;
nomem:
    mbs_ggl_red_free(d);
    return MBS_ENOMEM;
}

int mbs_ggl_red_build(const mbs_model *m, mbs_data *d, double w0, const double *x, const double *v, double t)
{
    mbs_ggl_red *r = d->ggl_red;
    double t0 = mbs_now();
    /* the first build: the full matrix too, for the choice below */
    int full_info = r->full ? mbs_ggl_sp_full_factor(m, d, r->full, w0, x, v, t) : 0;
    mbs_sparse_begin(d->ggl_sp, r->N);
    r->nav = 0;
    r->overflow = 0;
    r->w0 = w0;
    /* G as the matrix holds it: the solves of this factorisation use it */
    for (int p = 0; p < r->gt_ptr[r->n]; p++) r->gt_val[p] = d->eq_on[r->gt_eq[p]] ? d->jac[r->gt_pos[p]] : 0.0;
    s_red c = {r, d->ggl_sp, w0};
    /* mbs_ggl_emit's entries: its first blocks placed here, the rest
     * block by block into S or the record */
    s_fixed(m, d, r, d->ggl_sp, w0);
    mbs_ggl_blocks blk = {s_blk_q, &c, s_blk_v, &c, s_blk_q, &c, s_blk_mu, &c};
    mbs_ggl_emit_blocks(m, d, w0, x, v, t, 1, &blk);
    if (!r->overflow) s_spread(r, d->ggl_sp);
    int info = r->overflow ? MBS_SPARSE_EFULL : mbs_sparse_factor(d->ggl_sp, NULL);
    if (r->full) {
        /* keep the reduced system when its factors are enough smaller: the
         * elimination costs a pass over w0 A_Rv and G per solve, which a
         * small saving in L + U does not repay (bench/README.md, chain14g:
         * the N = 40 four-bar at 0.78 of the full L + U ran 8 % slower, the
         * flyball at 1.2 3 %; the chain at 0.60, Bricard's mechanism at
         * 0.61 and the spatial slider-crank at 0.65 faster) */
        long lf = full_info ? -1 : mbs_sparse_lu_nnz(r->full), lr = info ? -1 : mbs_sparse_lu_nnz(d->ggl_sp);
        if (lr >= 0 && (lf < 0 || (double)lr <= RED_LU_RATIO * (double)lf)) {
            mbs_sparse_free(&r->full);
        } else {
            mbs_sparse *F = r->full;
            r->full = NULL;
            mbs_sparse_free(&d->ggl_sp);
            mbs_ggl_red_free(d);
            d->ggl_sp = F;
            info = full_info;
        }
    }
    d->met.jacobian_evaluations++;
    d->met.factorizations++;
    mbs_note_system(d, m->nggl); /* the GGL system's dimension, as without the elimination */
    d->met.linear_algebra_seconds += mbs_now() - t0;
    return info;
}

int mbs_ggl_red_solve(mbs_data *d, double *rhs)
{
    mbs_ggl_red *r = d->ggl_red;
    int n = r->n, ne = r->ne, mu0 = n + ne;
    const double *F1 = rhs;
    double *x = r->x, w0 = r->w0;
    /* b_R + w0 A_Rv F1 */
    memcpy(x, rhs + n, sizeof(double) * (size_t)r->N);
    for (int k = 0; k < r->nar_rows; k++) {
        int i = r->ar_rows[k];
        double sum = 0;
        for (int p = r->ar_ptr[i]; p < r->ar_ptr[i + 1]; p++) sum += r->ar_x[p] * F1[r->ar_j[p]];
        x[i] += sum;
    }
    int info = mbs_sparse_solve(d->ggl_sp, x);
    if (info) return info;
    /* dv = w0 (dq - G^T dmu - F1), then dq, dlam, dmu in place */
    for (int c = 0; c < n; c++) {
        double gm = 0;
        for (int p = r->gt_ptr[c]; p < r->gt_ptr[c + 1]; p++) gm += r->gt_val[p] * x[mu0 + r->gt_eq[p]];
        rhs[n + c] = w0 * (x[c] - gm - F1[c]);
    }
    memcpy(rhs, x, sizeof(double) * (size_t)n);
    memcpy(rhs + 2 * n, x + n, sizeof(double) * (size_t)(2 * ne));
    return 0;
}
