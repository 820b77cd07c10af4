/*
 * relative.h - runs in the relative-coordinate formulation
 * (solver.formulation "relative"; formulation/relative/tree.h) and the
 * bridge between its joint coordinates and the natural coordinates that
 * the outputs, energies and metrics are written on.
 *
 * The bridge.  A body's natural-coordinate slots are body-fixed points and
 * unit vectors (formulation/natural/ncs.c): slot values at t = 0 are q0, so
 * at a pose (R, p) a point slot is R q0 + p and a vector slot R q0, their
 * rates and accelerations those of a body point / vector with the body's
 * twist and spatial acceleration.  Every existing output channel then works
 * unchanged on d->x, d->v, d->a.  Back: a body's pose from its slots
 * (rotation E E0^-1 with E the NCS matrix), its twist from their rates.
 */
#ifndef MBS_RUN_RELATIVE_H
#define MBS_RUN_RELATIVE_H

#include "mbs/formulation/relative/tree.h"
#include "mbs/output/output.h"

/* The natural coordinates x, v (and a, unless NULL) of the state held by w
 * (after mbs_rtree_accel or mbs_rtree_kinematics; a needs the former). */
void mbs_rel_to_natural(const mbs_model *m, const mbs_rtree *t, const mbs_rtree_ws *w, double *x, double *v,
                        double *a);

/* Joint coordinates q and rates u of the natural state (x, v).  0, or -1. */
int mbs_rel_from_natural(const mbs_model *m, const mbs_rtree *t, mbs_rtree_ws *w, const double *x, const double *v,
                         double *q, double *u);

/* Static equilibrium at time `time` in joint coordinates from q (nq, the
 * initial configuration's; the result in place): Newton on [Q(q) + J^T lam
 * = 0, Phi(q) = 0] over an independent set of the circuit and driver
 * equations, the tangent dQ/dq + d(J^T lam)/dq by forward differences,
 * each step at most 0.2 of the model's size along a slide, 0.2 rad along an
 * angle; where the tangent is singular (a freedom without stiffness) the
 * natural analysis's pseudo-transient continuation, mu M subtracted from it
 * (M the tree's mass matrix) so that the steps go downhill.  Converged: the
 * force residual within 1e-9 of the applied forces' scale, the equations
 * within 1e-10 of the model's size.  Newton iterations into d's metrics.
 * 0 or an MBS_E* code with a message. */
int mbs_rel_statics(const mbs_model *m, mbs_data *d, const mbs_rtree *t, mbs_rtree_ws *w, double *q, double time,
                    mbs_errlist *err);

/* The dynamics of a run in the relative formulation from the initialised
 * natural state in d (assembly and velocity projection by mbs_initialize):
 * its first sample, then dopri5 on the joint coordinates, every accepted
 * step mapped to d and handed to mbs_run_step_done (the element states
 * into d->z with the joint coordinates; the joint reactions of the reaction
 * channels from the cutset wrenches, mbs_rtree_reactions).  The compliant
 * contacts, and the dc_motors and joint actuators when the run has element
 * states or controllers, are evaluated by the natural coordinates' code on
 * the mapped state and enter the tree as wrenches.  Metrics: formulation
 * and chords.  0 or an MBS_E* code with a message. */
int mbs_run_relative(const mbs_model *m, mbs_data *d, mbs_sampler *smp, mbs_errlist *err);

/* Moreau-Jean time stepping on the joint coordinates (contact_relative.c),
 * from the state q (nq), u and u' (n) of the tree t (w: its run's
 * workspace, whose `extra` loads the forces take) at d->t, after the first
 * sample: the tree's DAE form and contact rows run by mbs_mj_run, every
 * accepted step mapped to d and handed to mbs_run_step_done.  0 or an MBS_E*
 * code with a message (what it refuses: contact_relative.c). */
int mbs_rel_mj_run(const mbs_model *m, mbs_data *d, mbs_sampler *smp, const mbs_rtree *t, mbs_rtree_ws *w,
                   const double *q, const double *u, const double *udd, mbs_errlist *err);

/* The same with the event-driven integrator (planar trees: no ball joint,
 * q' = u), its accelerations mapped with the state. */
int mbs_rel_ed_run(const mbs_model *m, mbs_data *d, mbs_sampler *smp, const mbs_rtree *t, mbs_rtree_ws *w,
                   const double *q, const double *u, const double *udd, mbs_errlist *err);

#endif
