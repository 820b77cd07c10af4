/*
 * mj_error.h - the local error estimate of Moreau-Jean's smooth steps
 * (mj_error.c).  Internal to common/mbs/integrate/: integrator_mj.c calls
 * mbs_mj_error_start before its first step, mbs_mj_error_step after each
 * accepted step and mbs_mj_error_finish at the end of the run; the state
 * lives in the workspace (mbs_mj_ws.est) and goes with mbs_mj_error_free.
 */
#ifndef MBS_MJ_ERROR_H
#define MBS_MJ_ERROR_H

#include "mbs/model/data.h"

struct mbs_mj_ws;

/* Reset the estimate's state for a run (allocated on the first call).
 * Returns 0, or -1 when out of memory. */
int mbs_mj_error_start(struct mbs_mj_ws *w);

/* After an accepted step `step` (1, 2, ...) of size h with np contact
 * points (w->pt, w->lam, the pairs' index-set steps current) and d->a the
 * step's mean acceleration (v1 - v0) / h, d->ap the last step's: record
 * the step's contact status per island, and the weighted local error of
 * the variables whose island has had the same status for the last three
 * steps (mbs_note_error); counts d->met.nonsmooth_steps. */
void mbs_mj_error_step(mbs_data *d, struct mbs_mj_ws *w, long step, double h, int np, int ncomp);

/* End of a run: when no variable could be estimated, error_estimate is NaN
 * and a warning says why. */
void mbs_mj_error_finish(mbs_data *d, const struct mbs_mj_ws *w);

void mbs_mj_error_free(struct mbs_mj_ws *w);

#endif
