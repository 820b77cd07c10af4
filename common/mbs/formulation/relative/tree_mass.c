/*
 * tree_mass.c - the joint-space mass matrix M(q) of the relative
 * formulation's tree (tree.h): its sparsity pattern on the rates, its
 * entries by the composite-rigid-body algorithm, and the product M v by the
 * inverse dynamics at zero rates and zero gravity.  What Moreau-Jean's
 * `mass_eval` hook needs (docs/formulations.md, "A configuration-dependent
 * mass").
 *
 * Everything is in world coordinates, as the articulated-body recursion of
 * tree_dynamics.c: a node's composite inertia (its subtree's bodies as one
 * rigid body) is the plain sum of its bodies' world inertias, and M's entry
 * for rates a (node i) and b (node j, i or an ancestor of i) is
 * S_b . (IC_i S_a), no transformation along the path.
 */
#include "mbs/formulation/relative/tree_int.h"

#include <stdlib.h>

/* The rates on node i's path above it (its ancestors'). */
static int s_anc_rates(const mbs_rtree *t, int i)
{
    int n = 0;
    for (int j = t->node[i].parent; j >= 0; j = t->node[j].parent) n += t->node[j].dof;
    return n;
}

int mbs_rtree_mass_nnz(const mbs_rtree *t)
{
    /* each node's block, and each (node, ancestor) pair's block twice */
    int nnz = 0;
    for (int i = 0; i < t->nnode; i++) {
        int k = t->node[i].dof;
        nnz += k * (k + 2 * s_anc_rates(t, i));
    }
    return nnz;
}

int mbs_rtree_mass_pattern(const mbs_rtree *t, int *ptr, int *col)
{
    /* mark[k]: node k is node i or below it; nodes follow their parents,
     * so one sweep from i marks its subtree */
    char *mark = malloc((size_t)t->nnode + 1);
    if (!mark) return MBS_ENOMEM;
    ptr[0] = 0;
    for (int i = 0; i < t->nnode; i++) {
        const mbs_rnode *nd = &t->node[i];
        if (nd->dof == 0) continue;
        /* the row: the ancestors' rates (root first: ascending, as rates
         * follow the node order), then those of i and its subtree */
        int *row = col + ptr[nd->coord], nc = s_anc_rates(t, i), at = nc;
        for (int j = nd->parent; j >= 0; j = t->node[j].parent) {
            at -= t->node[j].dof;
            for (int b = 0; b < t->node[j].dof; b++) row[at + b] = t->node[j].coord + b;
        }
        memset(mark, 0, (size_t)t->nnode);
        mark[i] = 1;
        for (int k = i; k < t->nnode; k++) {
            if (k > i) mark[k] = t->node[k].parent >= i && mark[t->node[k].parent];
            if (!mark[k]) continue;
            for (int b = 0; b < t->node[k].dof; b++) row[nc++] = t->node[k].coord + b;
        }
        /* the node's other rates: the same row */
        for (int a = 0; a < nd->dof; a++) {
            ptr[nd->coord + a + 1] = ptr[nd->coord + a] + nc;
            if (a > 0) memcpy(col + ptr[nd->coord + a], row, sizeof(int) * (size_t)nc);
        }
    }
    free(mark);
    return 0;
}

/* Row r's lower part (columns <= r) is its node's ancestors' rates, root
 * first, then its node's rates up to r: rates are numbered in node order
 * and parents come before children (tree.c), so the positions follow from
 * the path alone, no search.  Pass 1 fills the lower parts by the
 * composite-rigid-body recursion; pass 2 copies each lower entry (r, c)
 * to (c, r): visiting the rows r in ascending order meets row c's upper
 * columns in their ascending order, so a cursor per row (w->uu) places
 * them. */
void mbs_rtree_mass_eval(const mbs_rtree *t, mbs_rtree_ws *w, const int *ptr, const int *col, double *val)
{
    int nn = t->nnode;
    /* composite inertias start as the nodes' own bodies' (world, 6 x 6) */
    for (int i = 0; i < nn; i++) {
        double *IC = w->IA + 36 * i;
        if (t->node[i].body < 0) {
            memset(IC, 0, sizeof(double) * 36);
        } else {
            mbs_rbi Iw;
            mbs_rtree_world_rbi(t, w, i, &Iw);
            mbs_rbi_matrix(&Iw, IC);
        }
    }
    /* pass 1, leaves to root: node i's subtree is complete when it is
     * reached (children follow their parents in the node order) */
    for (int i = nn - 1; i >= 0; i--) {
        const mbs_rnode *nd = &t->node[i];
        const double *IC = w->IA + 36 * i;
        int k = nd->dof, c0 = nd->coord, anc = 0;
        for (int j = nd->parent; j >= 0; j = t->node[j].parent) anc += t->node[j].dof;
        double ra[3] = {0, 0, 0}, Ir[9];
        int rot = mbs_rtree_rotor_inertia(t, w, i, ra, Ir);
        mbs_wrench F[3];
        for (int a = 0; a < k; a++) F[a] = s_apply6(IC, &w->S[c0 + a]);
        for (int a = 0; a < k; a++) {
            int r = c0 + a, pos = ptr[r] + anc;
            /* the node's own block (a rotor's diagonal J n^2, a prismatic
             * joint's armature: tree_dynamics.c's D) */
            for (int b = 0; b <= a; b++) {
                double x = s_power(&w->S[c0 + b], &F[a]);
                if (a == b && k == 1) x += (rot ? nd->rotor_Jn2 : 0) + nd->rotor_m;
                val[pos + b] = x;
            }
            w->uu[r] = pos + a + 1;
            /* the ancestors' columns: S_b . F with F = IC S_a plus the
             * geared rotors' J n (a, 0) (tree.h), the wrench that a unit
             * rate a asks of every joint on the path */
            mbs_wrench Fa = F[a];
            if (rot)
                for (int c = 0; c < 3; c++) Fa.n[c] += nd->rotor_Jn * ra[c];
            for (int j = nd->parent; j >= 0; j = t->node[j].parent) {
                const mbs_rnode *nj = &t->node[j];
                pos -= nj->dof;
                for (int b = 0; b < nj->dof; b++) val[pos + b] = s_power(&w->S[nj->coord + b], &Fa);
            }
        }
        /* hand the subtree (and the rotors riding on the parent: Ir) to
         * the parent */
        if (nd->parent >= 0) {
            double *IP = w->IA + 36 * nd->parent;
            for (int c = 0; c < 36; c++) IP[c] += IC[c];
            if (rot)
                for (int r = 0; r < 3; r++)
                    for (int c = 0; c < 3; c++) IP[6 * r + c] += Ir[3 * r + c];
        }
    }
    /* pass 2: the upper parts by symmetry (w->uu[r]: the position of row
     * r's next upper entry, its diagonal's plus one at first) */
    for (int r = 0; r < t->n; r++) {
        int diag = (int)w->uu[r] - 1;
        for (int p = ptr[r]; p < diag; p++) {
            int c = col[p], to = (int)w->uu[c];
            val[to] = val[p];
            w->uu[c] = to + 1;
        }
    }
}

void mbs_rtree_mass_mul(const mbs_rtree *t, mbs_rtree_ws *w, const double *v, double *y)
{
    int nn = t->nnode;
    mbs_wrench *F = w->pA;
    /* outwards: the accelerations A_i = A_parent + S_i v_i (no rates, no
     * gravity), each body's I_i A_i */
    for (int i = 0; i < nn; i++) {
        const mbs_rnode *nd = &t->node[i];
        mbs_twist A = nd->parent >= 0 ? w->A[nd->parent] : s_zero_twist;
        for (int a = 0; a < nd->dof; a++) A = s_taxpy(v[nd->coord + a], &w->S[nd->coord + a], &A);
        w->A[i] = A;
        memset(&F[i], 0, sizeof F[i]);
        if (nd->body >= 0) {
            mbs_rbi Iw;
            mbs_rtree_world_rbi(t, w, i, &Iw);
            F[i] = mbs_rbi_apply(&Iw, &A);
        }
    }
    /* inwards: each joint's share of its subtree's wrench */
    for (int i = nn - 1; i >= 0; i--) {
        const mbs_rnode *nd = &t->node[i];
        int k = nd->dof, c0 = nd->coord;
        for (int a = 0; a < k; a++) y[c0 + a] = s_power(&w->S[c0 + a], &F[i]);
        mbs_wrench Fp = F[i];
        if (k == 1) y[c0] += nd->rotor_m * v[c0];
        double ra[3], Ir[9];
        if (mbs_rtree_rotor_inertia(t, w, i, ra, Ir)) {
            /* the rotors' angular accelerations w'_parent + n v_i ra: their
             * moment Ir w'_parent + J n v_i ra to the parent, and n ra . of
             * it (Ir ra = J ra) to the joint */
            static const double zero3[3] = {0, 0, 0};
            const double *ap = nd->parent >= 0 ? w->A[nd->parent].w : zero3;
            double m[3];
            s_rot(Ir, 0, ap, m);
            y[c0] += nd->rotor_Jn * v3dot(ra, ap) + nd->rotor_Jn2 * v[c0];
            for (int c = 0; c < 3; c++) Fp.n[c] += m[c] + nd->rotor_Jn * v[c0] * ra[c];
        }
        if (nd->parent >= 0) F[nd->parent] = s_waxpy(1.0, &Fp, &F[nd->parent]);
    }
}
