/*
 * measure.h - joint reactions measured by continuous controllers (internal,
 * issue 13, docs/actuators.md "Cascades and other measured signals").
 *
 * When a continuous controller's output reaches the mechanics only through
 * a state (a dc_motor with inductance > 0, or a controller without direct
 * feed-through: integral only, an lti block with D = 0), the reaction it
 * measures is a function of the state (t, x, v, z): the accelerations and
 * the body balances of that state, recovered as the reaction channels
 * recover them (output.h mbs_reaction).  The parser refuses the other case
 * (mechanism_ctrl.c), a true algebraic loop.
 *
 * The run keeps a second data (a shadow of the model's data) in which the
 * accelerations of any state are solved (analysis.h mbs_accelerations) and
 * the reactions recovered, so that a measurement inside an integrator's
 * stage or Newton iteration, or inside the finite differences of the BDF's
 * Newton matrix (controller.h mbs_zelim_build), never touches the
 * integrator's own workspace.  The last state measured is kept: the motor's
 * voltage and the controller's rate at the same state take one solve.
 *
 * Where the measuring controller passes the reaction at once to a force it
 * drives (a joint_actuator, a dc_motor without inductance: an algebraic
 * loop, mbs_ctrl_spec.loop, one per mechanism) its output is solved at
 * each state (d->loop_output): the reaction is affine in that force at a
 * state, so two tries give the line and the controller's limits are taken
 * exactly; a motor's piecewise law is followed by re-linearisation.
 */
#ifndef MBS_MEASURE_H
#define MBS_MEASURE_H

#include "mbs/model/data.h"
#include "mbs/model/spec.h"

/* 1 when continuous controller c measures a joint reaction. */
int mbs_meas_reaction(const mbs_spec *s, int c);

/* At the start of a run: when a continuous controller measures a reaction,
 * make d->meas and set d->reaction_at; nothing otherwise.  0, MBS_ENOMEM,
 * or MBS_EINVAL (with the message in err) for a model the measurement
 * does not support (contacts: their active set is the run's). */
int mbs_meas_start(const mbs_model *m, mbs_data *d, mbs_errlist *err);

/* After the initial accelerations: the looped controller's output at the
 * initial state (d) exists, else MBS_ESINGULAR with the reason in err. */
int mbs_meas_check_start(const mbs_model *m, mbs_data *d, mbs_errlist *err);

/* Free d->meas (mbs_data_free). */
void mbs_meas_free(struct mbs_meas **pm);

#endif
