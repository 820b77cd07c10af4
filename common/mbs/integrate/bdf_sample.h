/*
 * bdf_sample.h - the BDF's restart at a discrete controller's sample
 * (issue 13, docs/actuators.md "Sampled controllers").
 */
#ifndef MBS_BDF_SAMPLE_H
#define MBS_BDF_SAMPLE_H

#include "mbs/model/data.h"
#include "mbs/formulation/dae_form.h"

/* Scratch doubles the restart needs in d->bdf_smp (made with the BDF's
 * workspace when the model has controllers), for the DAE form f of m. */
size_t mbs_bdf_sample_size(const mbs_dae_form *f, const mbs_model *m);

/* At an accepted BDF point (d->t, x, v, z, the front of the history):
 * sample the discrete controllers due now (mbs_ctrl_sample).  When a held
 * output changed, the forces jump while q, v and z stay continuous: the
 * history points are moved onto the backward continuation of the motion
 * under the new outputs (Taylor terms of the jump in the derivatives up to
 * the third in q), d->a, d->lam and d->ha become the accelerations and
 * multipliers after the jump, d->zd the states' rates, and the run goes on
 * at the same order.  h: the last step (with the history's mean step, it
 * scales the difference quotients).
 * 1 after a restart, 0 when no held output changed (nothing done), or
 * MBS_ESINGULAR when the accelerations cannot be solved. */
int mbs_bdf_sample(const mbs_dae_form *f, const mbs_model *m, mbs_data *d, double h);

#endif
