/*
 * integrators.h - the time integrators (internal).  Each runs from the
 * initialised state in d to t_end and hands every accepted step to the run
 * through an mbs_stepper (which samples the outputs and updates the
 * metrics: run/simulate.c).  Each integrator makes, sizes and frees its own
 * workspace (mbs_integrator_ws_new / _free, called with the run's data by
 * mbs_data_new / mbs_data_free).
 */
#ifndef MBS_INTEGRATORS_H
#define MBS_INTEGRATORS_H

#include "mbs/model/data.h"
#include "mbs/formulation/dae_form.h"
#include "mbs/formulation/contact_rows.h"

/* What the run gives an integrator: `done` is the book-keeping after an
 * accepted step from (d->tp, xp, vp, ap) to (d->t, x, v, a) (constraint and
 * energy metrics, continuous joint angles, output samples, progress, time
 * limit; non-zero stops the run), called with `run`; `interval` is the
 * output interval, the default largest step. */
typedef struct {
    int (*done)(void *run, const mbs_model *m, mbs_data *d, mbs_errlist *err);
    void *run;
    double interval;
} mbs_stepper;

/* The book-keeping of one accepted step (see mbs_stepper). */
static inline int mbs_step_done(const mbs_model *m, mbs_data *d, mbs_stepper *s, mbs_errlist *err)
{
    return s->done(s->run, m, d, err);
}

/* Trapezoidal index-3 AL on the natural coordinates (dae_natural.c: their
 * DAE form run by mbs_al_run); no element states (model.h nz = 0: the run
 * refuses a model with them, run/simulate.c). */
int mbs_integrate_al(const mbs_model *m, mbs_data *d, mbs_stepper *run, mbs_errlist *err);
/* The trapezoidal index-3 AL (integrator_al.c) on the DAE form f of the
 * model m (formulation/dae_form.h), from the state in d (x, v, a, lam;
 * arrays of f->n and f->ne entries) to t_end; m only for the solver
 * options and the stepper.  0, or an error code with a message in err. */
int mbs_al_run(const mbs_dae_form *f, const mbs_model *m, mbs_data *d, mbs_stepper *run, mbs_errlist *err);
/* Variable-order BDF on the GGL form (integrator_bdf.c) and Dormand-Prince
 * 5(4) + Baumgarte (integrator_rk.c): the two that integrate element states
 * (a motor's current, d->z) with the mechanical ones, from d->z and d->zd
 * at the start. */
int mbs_integrate_bdf(const mbs_model *m, mbs_data *d, mbs_stepper *run, mbs_errlist *err);
/* The variable-order BDF on the GGL form (integrator_bdf.c) of the DAE form
 * f of m (formulation/dae_form.h), from the state in d to t_end;
 * mbs_integrate_bdf runs it on the natural coordinates (dae_natural.c).  m
 * for the solver options, the element states, controllers and contact force
 * unknowns, and the stepper.  0, or an error code with a message in err. */
int mbs_bdf_run(const mbs_dae_form *f, const mbs_model *m, mbs_data *d, mbs_stepper *run, mbs_errlist *err);
int mbs_integrate_dopri5(const mbs_model *m, mbs_data *d, mbs_stepper *run, mbs_errlist *err);
/* Rigid contacts (and the impact model of the clearance joint): Moreau-Jean
 * time stepping (integrator_mj.c) on the natural coordinates (contact_natural.c). */
int mbs_integrate_moreau_jean(const mbs_model *m, mbs_data *d, mbs_stepper *run, mbs_errlist *err);
/* Moreau-Jean time stepping (integrator_mj.c) on the DAE form and the
 * contact rows its workspace d->mj was made from (mbs_mj_ws_make), from the
 * state in d to t_end.  m for the solver options, the contacts' laws and
 * the stepper.  0, or an error code with a message in err. */
int mbs_mj_run(const mbs_model *m, mbs_data *d, mbs_stepper *run, mbs_errlist *err);
/* Planar event-driven integration: rigid contacts and the frictional
 * clearance joint of seed 003 (integrator_ed.c) on the natural coordinates
 * (contact_natural.c). */
int mbs_integrate_event_driven(const mbs_model *m, mbs_data *d, mbs_stepper *run, mbs_errlist *err);
/* The event-driven integrator (integrator_ed.c) on the DAE form and the
 * contact rows its workspace d->ed was made from (mbs_ed_ws_make), from the
 * state in d to t_end.  m for the solver options, the contacts' laws, names
 * in messages and the stepper.  0, or an error code with a message in err. */
int mbs_ed_run(const mbs_model *m, mbs_data *d, mbs_stepper *run, mbs_errlist *err);

/* ---- each integrator's workspace ------------------------------------------------------ */

/* The workspace of the integrator of m's solver spec (whatever the
 * analysis), made with the data (mbs_data_new), before any run: BDF: its history and the GGL matrix,
 * with solver.contact_force_unknowns the contact unknowns (d->cu);
 * event-driven: d->ed; Moreau-Jean: d->mj; none for the others.  The
 * integrators with forces only they know hand them to the output sampler
 * here (d->rigid_forces, d->clearance_forces).  0, or MBS_ENOMEM (what was
 * made is freed). */
int mbs_integrator_ws_new(const mbs_model *m, mbs_data *d);
/* Free it and clear the hooks (nothing if there is none). */
void mbs_integrator_ws_free(mbs_data *d);

/* Each integrator's part of the above: 0, or -1 without memory (the
 * partial workspace is then freed by the matching _free). */
int mbs_bdf_ws_new(const mbs_model *m, mbs_data *d);
/* The BDF's workspace sized from the DAE form f of m (mbs_bdf_ws_new makes
 * the natural coordinates' form and calls it, dae_natural.c). */
int mbs_bdf_ws_make(const mbs_dae_form *f, const mbs_model *m, mbs_data *d);
/* The BDF's Newton (GGL) matrix, made at its first run rather than with the
 * workspace (a model check need not pay for judging a sparse pattern): sparse
 * by KLU when its band is wasteful, else banded (system_ggl.c).  0, or
 * MBS_ENOMEM; does nothing once made. */
int mbs_bdf_ggl_ws(const mbs_model *m, mbs_data *d);
void mbs_bdf_ws_free(mbs_data *d);
/* Moreau-Jean: islands, contact points, impulses, LCP, sized for every
 * rigid pair. */
int mbs_mj_ws_new(const mbs_model *m, mbs_data *d);
/* Moreau-Jean's workspace sized from the DAE form f (its mass matrix's
 * pattern f->mass_ptr given, with constant values f->mass_val or the hook
 * f->mass_eval of M(q); f->advance required when f->nq differs from f->n:
 * else -1) and the contact rows r of m, both kept in it
 * for the runs (their contexts must live as long; r->release frees r's
 * with the workspace, also when this fails).  mbs_mj_ws_new makes the
 * natural coordinates' and calls it (contact_natural.c). */
int mbs_mj_ws_make(const mbs_dae_form *f, const mbs_contact_rows *r, const mbs_model *m, mbs_data *d);
void mbs_mj_ws_free(mbs_data *d);
/* Event-driven: modes, dense KKT matrix, mode LCP, sized for the model's
 * frictional clearance joints and rigid contacts. */
int mbs_ed_data_init(const mbs_model *m, mbs_data *d);
/* The event-driven workspace sized from the DAE form f (its mass matrix
 * constant, f->mass_val; q' = v: no f->advance; else -1) and the contact rows r of m (rigid pairs, clearance joints),
 * both kept in it as mbs_mj_ws_make keeps them (r->release frees r's
 * context with the workspace, also when this fails); mbs_ed_data_init makes
 * the natural coordinates' and calls it (contact_natural.c). */
int mbs_ed_ws_make(const mbs_dae_form *f, const mbs_contact_rows *r, const mbs_model *m, mbs_data *d);
void mbs_ed_data_free(mbs_data *d);

/* ---- event-driven runs ------------------------------------------------------------------- */

/* Start of a run (mbs_simulate): modes to be chosen again. */
void mbs_ed_reset(mbs_data *d);
/* Start of an event-driven run (before the first sample): the modes of the
 * frictional joints and contacts at t = 0, impacts of contacts closing at
 * t = 0, and the accelerations d->a and multipliers d->lam of those modes.
 * 0 (also for a model the integrator will refuse: it says why), or an
 * error code with a message. */
int mbs_ed_start(const mbs_model *m, mbs_data *d, mbs_errlist *err);

/* ---- forces only the integrator knows (handed to the sampler as d's hooks) ----------------- */

/* Forces of the frictional clearance joint `joint` of an event-driven run
 * at the state (t, x, v) in the current modes (x = NULL: at the last
 * solve): normal forces N[2] of the guide on the slider along the guide's
 * normal at its two ends, friction force FT along the guide's axis,
 * sliding velocity vt, mode (0 stick, +1/-1 slip direction).  Any output
 * may be NULL.  Uses the integrator's scratch: call between steps only
 * (the output sampler).  Returns 0, or -1 when it is not such a joint, the
 * run is not event-driven, or the system is singular.  d->clearance_forces
 * of event-driven runs. */
int mbs_ed_forces_at(const mbs_model *m, mbs_data *d, int joint, double t, const double *x, const double *v,
                     double N[2], double *FT, double *vt, int *mode);

/* Rigid-contact forces of a Moreau-Jean run at the last accepted step: the
 * step's impulses divided by its length, applied at the contact points of
 * the step's midpoint, material points of their bodies (contact.h
 * mbs_cforce); (t, x, v) are not used.  Nothing for other runs.  Between
 * steps only.  d->rigid_forces of Moreau-Jean runs. */
void mbs_mj_point_forces(const mbs_model *m, mbs_data *d, double t, const double *x, const double *v,
                         mbs_cforce_fn fn, void *ctx);

/* Rigid-contact forces of an event-driven run at the state (t, x, v) in the
 * modes of the step being sampled (normal and friction forces of the
 * contact points).  Nothing for other runs.  Uses the integrator's scratch:
 * between steps only.  d->rigid_forces of event-driven runs. */
void mbs_ed_point_forces(const mbs_model *m, mbs_data *d, double t, const double *x, const double *v,
                         mbs_cforce_fn fn, void *ctx);

#endif
