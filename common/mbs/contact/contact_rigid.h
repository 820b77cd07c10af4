/*
 * contact_rigid.h - the geometry the Moreau-Jean time stepper needs from a
 * rigid contact pair (internal; see contact_rigid.c, docs/contacts.md).
 */
#ifndef MBS_CONTACT_RIGID_H
#define MBS_CONTACT_RIGID_H

#include "mbs/contact/contact.h"

/* One contact point of a rigid pair at a configuration x.  The Jacobian
 * rows act on the pair's variables m->cfel[pair].vars (nv of them):
 *   G[0] = n^T  (L(c_B) - L(c_A))   normal:   dg = G[0] dx,  gamma = G[0] v
 *   G[1] = t1^T (L(c_B) - L(c_A))   tangents (G[2] in space only)
 * with c_A, c_B the NCS coordinates of the witness points, frozen as
 * material points of their bodies. */
typedef struct {
    int pair;                    /* declared contact index                    */
    int nv;                      /* m->cfel[pair].nvar                         */
    double g;                    /* gap (< 0: penetration)                     */
    double n[3], t[2][3];        /* unit normal A -> B, tangents (t1, t2, n)  */
    double G[3][2 * MBS_NB_MAX]; /* rows: normal, t1, t2                       */
    int body[2];                 /* A, B (-1: the ground)                      */
    double c[2][3];              /* NCS coordinates of the witness points      */
} mbs_rpoint;

/* Most points pair k can report (box-plane 4, capsule pairs 2, others 1). */
int mbs_rigid_max_points(const mbs_model *m, int k);

/* Every point the narrow phase reports for pair k at x with an infinite
 * margin (a pair far apart still gives its closest points), written to out
 * (room for mbs_rigid_max_points(m, k)).  Returns the number of points. */
int mbs_rigid_pair_points(const mbs_model *m, int k, const double *x, mbs_rpoint *out);

/* The same with the world shapes of the pair's two shapes given (A of
 * contacts[k].shape[0], B of shape[1], both from mbs_contact_world_shape at
 * x): a caller that evaluates many pairs forms each shape's once. */
int mbs_rigid_pair_points_ws(const mbs_model *m, int k, const double *x, const mbs_shape *A, const mbs_shape *B,
                             mbs_rpoint *out);

#endif
