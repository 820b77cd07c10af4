/*
 * clock.h - the wall clock of the run's time metrics (internal).
 */
#ifndef MBS_CLOCK_H
#define MBS_CLOCK_H

/* Monotonic wall clock in seconds. */
double mbs_now(void);

#endif
