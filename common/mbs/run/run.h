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

/* Kinematic analysis of a fully driven mechanism at every output time. */
int mbs_kinematics(const mbs_model *m, mbs_data *d, mbs_sampler *smp, mbs_errlist *err);

#endif
