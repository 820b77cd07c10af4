/*
 * tree_jac.c - kinematic maps of the relative formulation's tree (tree.h)
 * for contact rows: a body point's Jacobian on the rates of the joints on
 * its path to the root and its rate term J' u (the coordinates' step
 * q + s G(q) u, Moreau-Jean's `advance`, is mbs_rtree_advance in tree.c,
 * beside mbs_rtree_q_add, which it serves).
 */
#include "mbs/formulation/relative/tree_int.h"

int mbs_rtree_point_nrates(const mbs_rtree *t, int b)
{
    int nc = 0;
    for (int i = b >= 0 ? t->body_node[b] : -1; i >= 0; i = t->node[i].parent) nc += t->node[i].dof;
    return nc;
}

int mbs_rtree_point_rows(const mbs_rtree *t, const mbs_rtree_ws *w, int b, const double r[3], int *cols,
                         double *rows, double x[3], double jdu[3])
{
    double R[9], p[3], rr[3] = {r[0], r[1], t->dim == 3 ? r[2] : 0};
    mbs_twist V;
    mbs_rtree_body(t, w, b, R, p, &V, NULL);
    s_rot(R, 0, rr, x);
    for (int k = 0; k < 3; k++) x[k] += p[k];
    int nc = mbs_rtree_point_nrates(t, b);
    /* the path's rates, root first: a rate's column is the velocity of the
     * point under its unit twist, S.v + S.w x x */
    int at = nc;
    mbs_twist Ab = s_zero_twist;
    for (int i = b >= 0 ? t->body_node[b] : -1; i >= 0; i = t->node[i].parent) {
        const mbs_rnode *nd = &t->node[i];
        at -= nd->dof;
        for (int a = 0; a < nd->dof; a++) {
            const mbs_twist *S = &w->S[nd->coord + a];
            double c[3];
            v3cross(S->w, x, c);
            cols[at + a] = nd->coord + a;
            for (int k = 0; k < 3; k++) rows[k * nc + at + a] = S->v[k] + c[k];
        }
        /* the bias acceleration (qdd = 0, base at rest) is the sum of the
         * velocity-product terms c_i = V_i x S_i u_i on the path */
        Ab = s_taxpy(1.0, &w->c[i], &Ab);
    }
    /* J' u: the point's acceleration at qdd = 0 from the body's spatial
     * acceleration Ab: Ab.v + Ab.w x x + w x v_x, v_x = V.v + V.w x x */
    if (jdu) {
        double vx[3], a1[3], a2[3];
        mbs_twist_point_velocity(&V, x, vx);
        v3cross(Ab.w, x, a1);
        v3cross(V.w, vx, a2);
        for (int k = 0; k < 3; k++) jdu[k] = Ab.v[k] + a1[k] + a2[k];
    }
    return nc;
}
