/*
 * contact_rigid.c - contact points and their Jacobian rows on the natural
 * coordinates, for the rigid contacts of the Moreau-Jean time stepper.
 *
 * A body point with NCS coordinates c is x = L(c) q_b, linear in the body's
 * coordinates (model.h), so a witness point frozen as a material point of
 * its body has the velocity L(c) q_b' and the relative velocity of the two
 * witness points along a unit direction u is u^T (L(c_B) q_B' - L(c_A) q_A').
 * The gap varies to first order like the relative normal velocity (the
 * witness points sliding over the surfaces do not change it: envelope
 * theorem, docs/contacts.md), which gives the rows G below.
 */
#include "mbs/contact/contact_rigid.h"
#include "mbs/linalg/vec.h"
#include "mbs/formulation/natural/natural.h"

#include <math.h>
#include <string.h>

int mbs_rigid_max_points(const mbs_model *m, int k)
{
    const mbs_contact_spec *C = &m->spec->contacts[k];
    int a = m->cshape[C->shape[0]].kind, b = m->cshape[C->shape[1]].kind;
    if (a == MBS_SHAPE_BOX || b == MBS_SHAPE_BOX) return (a == MBS_SHAPE_PLANE || b == MBS_SHAPE_PLANE) ? 4 : 1;
    if (a == MBS_SHAPE_CAPSULE || b == MBS_SHAPE_CAPSULE) return 2;
    return 1;
}

/* Add sign * u_r^T L(c) of body b's material point c (NCS coordinates)
 * into the rows G[r] (over the pair's variables vars[0..nv)) for the nu
 * directions u_r; L(c) is formed once for all of them. */
static void s_rows_add(const mbs_model *m, int b, const double *c, const double *const *u, int nu, double sign,
                       const int *vars, int nv, double (*G)[2 * MBS_NB_MAX])
{
    if (b < 0) return;
    double L[3 * MBS_NB_MAX];
    mbs_point_map(m, b, c, 1, L);
    const mbs_body *bd = &m->body[b];
    int nb = m->nb, dim = m->dim, jn = 0;
    for (int s = 0; s < nb; s++) {
        int var = bd->var[s];
        if (var < 0) continue;
        /* the variable's place in the pair's list (a variable shared by the
         * two bodies appears once and receives both contributions): the
         * list holds a body's variables in slot order, so the search starts
         * after the last one found and wraps round once */
        int j = jn;
        while (j < nv && vars[j] != var) j++;
        if (j == nv) {
            j = 0;
            while (j < jn && vars[j] != var) j++;
            if (j == jn) continue;
        }
        jn = j + 1;
        /* L(c) has one non-zero per column in space (a coordinate of a
         * point or vector slot enters one component): the zero entries are
         * left out of the sums, which changes no bit for finite values */
        if (dim == 3 && nb == MBS_NB_MAX) {
            /* in space the non-zero of column s is in row s mod 3
             * (mbs_point_map: L[a][a] = w0, L[a][3 + 3 k + a] = c_k) */
            int a = s % 3;
            double l = L[a * nb + s];
            for (int r = 0; r < nu; r++) {
                double acc = 0;
                if (l != 0) acc += u[r][a] * l;
                G[r][j] += sign * acc;
            }
            continue;
        }
        for (int r = 0; r < nu; r++) {
            double acc = 0;
            for (int a = 0; a < dim; a++) {
                double l = L[a * nb + s];
                if (l != 0) acc += u[r][a] * l;
            }
            G[r][j] += sign * acc;
        }
    }
}

int mbs_rigid_pair_points(const mbs_model *m, int k, const double *x, mbs_rpoint *out)
{
    const mbs_contact_spec *C = &m->spec->contacts[k];
    mbs_shape A, B;
    mbs_contact_world_shape(m, C->shape[0], x, &A);
    mbs_contact_world_shape(m, C->shape[1], x, &B);
    return mbs_rigid_pair_points_ws(m, k, x, &A, &B, out);
}

int mbs_rigid_pair_points_ws(const mbs_model *m, int k, const double *x, const mbs_shape *A, const mbs_shape *B,
                             mbs_rpoint *out)
{
    const mbs_fel *el = &m->cfel[k];
    /* the shapes from the packed pair list (8 bytes a pair), not the
     * contact spec: with 81800 declared pairs (400 balls) each spec read is
     * a cache miss */
    return mbs_rigid_pair_points_rec(m, k, m->cpairs + 2 * k, el->nvar, el->vars, x, A, B, out);
}

int mbs_rigid_pair_points_rec(const mbs_model *m, int k, const int *shape, int nv, const int *vars, const double *x,
                              const mbs_shape *A, const mbs_shape *B, mbs_rpoint *out)
{
    int ba = m->cshape[shape[0]].body, bb = m->cshape[shape[1]].body;
    mbs_contact_set set;
    if (mbs_contact_shapes(A, B, INFINITY, &set) <= 0) return 0;
    int ntan = m->dim == 3 ? 2 : 1;
    for (int i = 0; i < set.n; i++) {
        const mbs_contact *c = &set.c[i];
        mbs_rpoint *P = &out[i];
        memset(P, 0, sizeof *P);
        P->pair = k;
        P->nv = nv;
        P->g = c->g;
        v3copy(c->n, P->n);
        mbs_contact_tangents(m->dim, c->n, P->t[0], P->t[1]);
        P->body[0] = ba;
        P->body[1] = bb;
        if (ba >= 0) mbs_contact_material_point(m, ba, x, c->pa, P->c[0]);
        if (bb >= 0) mbs_contact_material_point(m, bb, x, c->pb, P->c[1]);
        /* rows for the normal and the tangents: B side +, A side - */
        const double *u[3] = {P->n, P->t[0], P->t[1]};
        s_rows_add(m, bb, P->c[1], u, 1 + ntan, 1.0, vars, nv, P->G);
        s_rows_add(m, ba, P->c[0], u, 1 + ntan, -1.0, vars, nv, P->G);
    }
    return set.n;
}
