/*
 * run.h - the parts of a whole run (internal): the book-keeping after an
 * accepted step (simulate.c) and the kinematic analysis (kinematics.c),
 * which steps on the output grid itself.
 */
#ifndef MBS_RUN_H
#define MBS_RUN_H

#include "mbs/output/output.h"

/* Book-keeping after an accepted step from (d->tp, xp, vp, ap) to
 * (d->t, x, v, a): constraint and energy metrics, continuous joint angles,
 * output samples, progress, time limit.  Non-zero stops the run.  The
 * integrators reach it through their mbs_stepper. */
int mbs_run_step_done(const mbs_model *m, mbs_data *d, mbs_sampler *smp, mbs_errlist *err);

/* The same for a piece of a step (the relative formulation's samples inside
 * a step): the contacts' active set looks ahead by h_ahead, the whole
 * step, instead of the piece d->t - d->tp. */
int mbs_run_step_done_ahead(const mbs_model *m, mbs_data *d, mbs_sampler *smp, double h_ahead, mbs_errlist *err);

/* Whether a mechanism with dependent equations (d->rep.redundant > 0)
 * has equations that contradict each other: the largest residual of the
 * equations its solves keep (r_on) or drop as dependent (r_off) above
 * max(100 tol, 1e-6) (1 + L), tol solver.tolerance, L the model's length
 * scale: the constraints off by more than the accuracy contract's global
 * bound.  Consistent redundant equations hold far below it (Bricard's
 * 9e-13 at tolerance 1e-6, 8e-8 at 1e-3, 1.5e-6 in relative coordinates at
 * 1e-3; the relative formulation's dropped row near a slider-crank's dead
 * centre 4.5e-6 at 1e-6, where a test of r_off against r_on alone would
 * stop it); contradicting ones (two drivers moving one freedom
 * differently) grow from the first step.  1: the run stops with
 * MBS_EINVAL and err names the joints involved. */
int mbs_run_dependent_violated(const mbs_model *m, const mbs_data *d, double r_on, double r_off, mbs_errlist *err);

/* Kinematic analysis of a fully driven mechanism at every output time. */
int mbs_kinematics(const mbs_model *m, mbs_data *d, mbs_sampler *smp, mbs_errlist *err);

#endif
