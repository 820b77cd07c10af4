/*
 * rank_margin.c - the rank margin of a constraint Jacobian that splits into
 * independent blocks (see rank_margin.h).
 */
#include "mbs/analysis/rank_margin.h"
#include "mbs/linalg/linalg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Root of variable v in the union-find forest par (path halving). */
static int s_root(int *par, int v)
{
    while (par[v] != v) {
        par[v] = par[par[v]];
        v = par[v];
    }
    return v;
}

/* Descending order of doubles (qsort). */
static int s_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* The blocks: blk[v] for each variable (-1: in no equation), eblk[r] for
 * each equation (-1: an empty row), numbered 0..nblk-1 in order of their
 * first variable.  Returns nblk, or -1 without memory. */
static int s_blocks(const mbs_model *m, int *blk, int *eblk)
{
    int n = m->nvar, ne = m->neq, nblk = 0;
    int *par = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    if (!par) return -1;
    for (int v = 0; v < n; v++) par[v] = v;
    for (int r = 0; r < ne; r++) {
        const mbs_eq *e = &m->eq[r];
        for (int k = 1; k < e->nnz; k++) {
            int a = s_root(par, e->cols[0]), b = s_root(par, e->cols[k]);
            if (a != b) par[a < b ? b : a] = a < b ? a : b;
        }
    }
    /* mark the roots of the equations' variables (-2), number them in
     * order (-3 - id), then give every variable its root's number */
    for (int v = 0; v < n; v++) blk[v] = -1;
    for (int r = 0; r < ne; r++)
        if (m->eq[r].nnz > 0) blk[s_root(par, m->eq[r].cols[0])] = -2;
    for (int v = 0; v < n; v++)
        if (par[v] == v && blk[v] == -2) blk[v] = -3 - nblk++;
    for (int v = 0; v < n; v++) par[v] = s_root(par, v);
    /* a root is the smallest variable of its set (unions keep the smaller
     * root), so it is decoded (-3 - id -> id) before the set's other
     * variables read it; they copy the decoded number */
    for (int v = 0; v < n; v++) {
        int b = blk[par[v]];
        blk[v] = b <= -3 ? -3 - b : b >= 0 ? b : -1;
    }
    for (int r = 0; r < ne; r++) eblk[r] = m->eq[r].nnz > 0 ? blk[m->eq[r].cols[0]] : -1;
    free(par);
    return nblk;
}

int mbs_blocks_rdiag(const mbs_model *m, const double *jac, double dense_max, const int *ce, double *rd_out)
{
    int n = m->nvar, ne = m->neq;
    int *blk = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    int *eblk = malloc(sizeof(int) * (size_t)(ne > 0 ? ne : 1));
    int nblk = blk && eblk ? s_blocks(m, blk, eblk) : -1;
    if (nblk <= 1) {
        free(blk);
        free(eblk);
        return nblk;
    }
    /* each block's equations (eptr/eqs) in increasing order, by counting
     * sort, and its variables' counts (vptr); loc: a variable's row in its
     * block (the block's variables in increasing order) */
    int *vptr = calloc((size_t)nblk + 1, sizeof(int)), *eptr = calloc((size_t)nblk + 1, sizeof(int));
    int *eqs = malloc(sizeof(int) * (size_t)ne);
    int *loc = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    double big = 0, *A = NULL, *rd = NULL;
    int *jp = NULL, nall = 0, ret = -1;
    if (!vptr || !eptr || !eqs || !loc) goto out;
    for (int v = 0; v < n; v++) if (blk[v] >= 0) vptr[blk[v] + 1]++;
    for (int r = 0; r < ne; r++) if (eblk[r] >= 0) eptr[eblk[r] + 1]++;
    for (int b = 0; b < nblk; b++) { vptr[b + 1] += vptr[b]; eptr[b + 1] += eptr[b]; }
    for (int b = 0; b < nblk; b++) {
        int nv = vptr[b + 1] - vptr[b], nq = eptr[b + 1] - eptr[b];
        if ((double)nv * nq > big) big = (double)nv * nq;
    }
    /* a block too large for a dense QR: not done */
    if (big > dense_max) { ret = 0; goto out; }
    /* a dominant block (over a quarter of the whole matrix's entries) is
     * left to the one dense QR (ret 1): little to gain, and where its
     * columns nearly tie (the roller chain's 100 equal links, margin
     * unscaled 0.0037) a QR of the block alone pivots in another order than the
     * whole matrix's and moves its |R_kk| (0.00373 -> 0.00378) */
    if (4 * big > (double)n * ne) { ret = 1; goto out; }
    {
        int *vfill = calloc((size_t)nblk, sizeof(int)), *efill = calloc((size_t)nblk, sizeof(int));
        if (!vfill || !efill) { free(vfill); free(efill); goto out; }
        for (int v = 0; v < n; v++)
            if (blk[v] >= 0) loc[v] = vfill[blk[v]]++;
        for (int r = 0; r < ne; r++)
            if (eblk[r] >= 0) eqs[eptr[eblk[r]] + efill[eblk[r]]++] = r;
        free(vfill);
        free(efill);
    }
    /* empty rows: zero columns of Phi_q^T, zero diagonals */
    for (int r = 0; r < ne; r++) if (eblk[r] < 0) rd_out[nall++] = 0;
    /* each block's Phi_q^T (its variables x its equations, column-major),
     * QR with column pivoting: its diagonals join the others; a block with
     * more equations than variables adds zeros for the rest */
    A = malloc(sizeof(double) * (size_t)(big > 0 ? big : 1));
    jp = malloc(sizeof(int) * (size_t)ne);
    rd = malloc(sizeof(double) * (size_t)ne);
    if (!A || !jp || !rd) goto out;
    for (int b = 0; b < nblk; b++) {
        int nv = vptr[b + 1] - vptr[b], nq = eptr[b + 1] - eptr[b], mn = nv < nq ? nv : nq;
        memset(A, 0, sizeof(double) * (size_t)nv * (size_t)nq);
        for (int c = 0; c < nq; c++) {
            const mbs_eq *e = &m->eq[eqs[eptr[b] + c]];
            const double *row = jac + (e->cols - m->colpool);
            int er = mbs_rank_row_exp(e, row, ce);
            for (int k = 0; k < e->nnz; k++) A[(size_t)c * nv + loc[e->cols[k]]] = ldexp(row[k], ce[e->cols[k]] + er);
        }
        if (mbs_qrcp_rank(nv, nq, A, jp, rd, 1e-9) < 0) goto out;
        for (int k = 0; k < mn; k++) rd_out[nall++] = rd[k];
        for (int k = mn; k < nq; k++) rd_out[nall++] = 0;
    }
    /* the pivoted QR of the whole (block-diagonal) matrix takes the largest
     * remaining column at each step, so its |R_kk| are these values in
     * decreasing order */
    qsort(rd_out, (size_t)nall, sizeof(double), s_desc);
    ret = nblk;
out:
    free(blk); free(eblk); free(vptr); free(eptr); free(eqs); free(loc); free(A); free(jp); free(rd);
    return ret;
}

double mbs_rank_margin_blocks(const mbs_model *m, const double *jac, int r0, double dense_max, const int *ce)
{
    double *rd = malloc(sizeof(double) * (size_t)(m->neq > 0 ? m->neq : 1));
    int nb = rd ? mbs_blocks_rdiag(m, jac, dense_max, ce, rd) : -1;
    double margin = nb == 1 ? MBS_RANK_ONE_BLOCK : nb == 0 ? 1 : 0;
    if (nb >= 2 && r0 <= m->neq && rd[0] > 0) margin = rd[r0 - 1] / rd[0];
    free(rd);
    return margin;
}
