/*
 * tree_statics.c - what the static equilibrium of the tree needs (tree.h):
 * the generalized forces at rest, and an independent set of the circuit
 * and driver equations.
 */
#include "mbs/formulation/relative/tree_int.h"

void mbs_rtree_gen_forces(const mbs_rtree *t, mbs_rtree_ws *w, double *Q)
{
    const double *g = t->spec->gravity;
    /* gravity as the base accelerating at -g (as in pass 3): each body's
     * wrench I (-g) - f_ext, summed inwards into the wrench each node's
     * joint must transmit to hold its subtree at rest */
    mbs_twist ag = {{0, 0, 0}, {-g[0], -g[1], t->dim == 3 ? -g[2] : 0}};
    static const mbs_wrench zero = {{0, 0, 0}, {0, 0, 0}};
    for (int i = 0; i < t->nnode; i++) w->fj[i] = zero;
    for (int i = t->nnode - 1; i >= 0; i--) {
        const mbs_rnode *nd = &t->node[i];
        if (nd->body >= 0) {
            mbs_rbi Iw;
            mbs_rtree_world_rbi(t, w, i, &Iw);
            mbs_wrench f = mbs_rbi_apply(&Iw, &ag);
            f = s_waxpy(-1.0, &w->fext[nd->body], &f);
            w->fj[i] = s_waxpy(1.0, &f, &w->fj[i]);
        }
        /* the node's rates: their joint forces less what the axis carries */
        for (int a = 0; a < nd->dof; a++) Q[nd->coord + a] = w->tau[nd->coord + a] - s_power(&w->S[nd->coord + a], &w->fj[i]);
        if (nd->parent >= 0) w->fj[nd->parent] = s_waxpy(1.0, &w->fj[i], &w->fj[nd->parent]);
    }
}
