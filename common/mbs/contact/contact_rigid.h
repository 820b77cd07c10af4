/*
 * contact_rigid.h - the points of a rigid contact pair and their Jacobian
 * rows on the natural coordinates (internal; see contact_rigid.c,
 * docs/contacts.md): what the natural coordinates hand Moreau-Jean and the
 * event-driven integrator as their contact rows (formulation/contact_rows.h,
 * integrate/contact_natural.c), and what the BDF's contact force unknowns
 * use (integrate/system_contacts.c).
 */
#ifndef MBS_CONTACT_RIGID_H
#define MBS_CONTACT_RIGID_H

#include "mbs/contact/contact.h"
#include "mbs/formulation/contact_rows.h"

/* mbs_rpoint, one contact point with its Jacobian rows (here on the pair's
 * variables m->cfel[pair].vars), is declared with the contact rows of the
 * formulation boundary (formulation/contact_rows.h). */

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

/* The same with the pair's shapes (shape[0] of A, shape[1] of B, as
 * contacts[k].shape) and variables (vars[0 .. nv), as m->cfel[k]) given:
 * a caller holding them in a compact record (contact_rows.h mbs_rpair)
 * reads nothing of the declared pair. */
int mbs_rigid_pair_points_rec(const mbs_model *m, int k, const int *shape, int nv, const int *vars, const double *x,
                              const mbs_shape *A, const mbs_shape *B, mbs_rpoint *out);

#endif
