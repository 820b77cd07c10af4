/*
 * integrators.h - the time integrators (internal).  Each runs from the
 * initialised state in d to t_end, calling mbs_step_done after every
 * accepted step (which samples the outputs and updates the metrics).
 */
#ifndef MBS_INTEGRATORS_H
#define MBS_INTEGRATORS_H

#include "mbs/contact/contact.h"
#include "mbs/output/output.h"

int mbs_integrate_al(const mbs_model *m, mbs_data *d, mbs_sampler *smp, mbs_errlist *err);
int mbs_integrate_bdf(const mbs_model *m, mbs_data *d, mbs_sampler *smp, mbs_errlist *err);
int mbs_integrate_dopri5(const mbs_model *m, mbs_data *d, mbs_sampler *smp, mbs_errlist *err);
/* Rigid contacts (and the impact model of the clearance joint): Moreau-Jean
 * time stepping, integrator_mj.c. */
int mbs_integrate_moreau_jean(const mbs_model *m, mbs_data *d, mbs_sampler *smp, mbs_errlist *err);
/* Its workspace (islands, contact points, impulses, LCP), sized at data
 * creation for every rigid pair: d->mj.  0, or -1 without memory (the
 * partial workspace is freed by mbs_mj_ws_free). */
int mbs_mj_ws_new(const mbs_model *m, mbs_data *d);
void mbs_mj_ws_free(mbs_data *d);
/* Planar event-driven integration: rigid contacts and the frictional
 * clearance joint of seed 003, integrator_ed.c. */
int mbs_integrate_event_driven(const mbs_model *m, mbs_data *d, mbs_sampler *smp, mbs_errlist *err);
/* Its workspace in d->ed (modes, dense KKT matrix, mode LCP), sized for
 * the model's frictional clearance joints: 0 or -1 (no memory). */
int mbs_ed_data_init(const mbs_model *m, mbs_data *d);
void mbs_ed_data_free(mbs_data *d);
/* Start of a run (mbs_simulate): modes to be chosen again. */
void mbs_ed_reset(mbs_data *d);
/* Start of an event-driven run (before the first sample): the modes of the
 * frictional joints and contacts at t = 0, impacts of contacts closing at
 * t = 0, and the accelerations d->a and multipliers d->lam of those modes.
 * 0 (also for a model the integrator will refuse: it says why), or an
 * error code with a message. */
int mbs_ed_start(const mbs_model *m, mbs_data *d, mbs_errlist *err);
/* Forces of the frictional clearance joint `joint` of an event-driven run
 * at the state (t, x, v) in the current modes (x = NULL: at the last
 * solve): normal forces N[2] of the guide on the slider along the guide's
 * normal at its two ends, friction force FT along the guide's axis,
 * sliding velocity vt, mode (0 stick, +1/-1 slip direction).  Any output
 * may be NULL.  Uses the integrator's scratch: call between steps only
 * (the output sampler).  Returns 0, or -1 when it is not such a joint, the
 * run is not event-driven, or the system is singular. */
int mbs_ed_forces_at(const mbs_model *m, mbs_data *d, int joint, double t, const double *x, const double *v,
                     double N[2], double *FT, double *vt, int *mode);
int mbs_kinematics(const mbs_model *m, mbs_data *d, mbs_sampler *smp, mbs_errlist *err);

/* Book-keeping after an accepted step from (d->tp, xp, vp, ap) to
 * (d->t, x, v, a): constraint and energy metrics, continuous joint angles,
 * output samples, progress, time limit.  Non-zero stops the run. */
int mbs_step_done(const mbs_model *m, mbs_data *d, mbs_sampler *smp, mbs_errlist *err);

/* Rigid-contact forces of a Moreau-Jean run at the last accepted step: the
 * step's impulses divided by its length, applied at the contact points of
 * the step's midpoint, material points of their bodies (contact.h
 * mbs_cforce).  Nothing for other runs.  For the output sampler (between
 * steps only). */
void mbs_mj_point_forces(const mbs_model *m, const mbs_data *d, mbs_cforce_fn fn, void *ctx);

/* Rigid-contact forces of an event-driven run at the state (t, x, v) in the
 * modes of the step being sampled (normal and friction forces of the
 * contact points).  Nothing for other runs.  Uses the integrator's scratch:
 * between steps only (the output sampler). */
void mbs_ed_point_forces(const mbs_model *m, mbs_data *d, double t, const double *x, const double *v,
                         mbs_cforce_fn fn, void *ctx);

#endif
