/*
 * clock.h - the wall clock of the run's time metrics (internal).
 */
#ifndef MBS_CLOCK_H
#define MBS_CLOCK_H

#include "mbs/mbs.h"

/* Monotonic wall clock in seconds. */
double mbs_now(void);

/* The run's wall-clock limit (solver.time_limit, d->deadline) checked from
 * inside an integrator: MBS_ETIMEOUT with the run's message once it has
 * passed, else 0.  The run checks it after every accepted step
 * (run/simulate.c); the integrators call this where they retake a rejected
 * step, so that a run rejecting step after step without reaching min_step
 * stops at its limit too. */
int mbs_deadline_check(const mbs_data *d, mbs_errlist *err);

#endif
