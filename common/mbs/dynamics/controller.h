/*
 * controller.h - the controllers of a run (issue 13, docs/actuators.md):
 * the blocks of actuator/control.h closed around the mechanism.  A
 * controller measures a state quantity (quantity.h), another controller's
 * channel, or a joint reaction, compares it with its setpoint (a
 * function of time or, in a cascade, another controller's output), and
 * its output (plus a feed-forward function of time) is the supply voltage
 * of the dc_motors that name it.  Controllers reading each other are
 * evaluated along the chain, recursively (the parser refuses cycles and
 * orders them: mbs_ctrl_spec.depth).
 *
 * Continuous controllers: their states (a PID's integral and derivative
 * filter state, a linear block's x) are element states z (model.h), under
 * the run's error control, integrated by bdf and dopri5; their output is
 * evaluated wherever the forces are, at the state being evaluated (a
 * stage's, a Newton iterate's).  Discrete ones: state and held output in
 * the run's data, changed only at the sampling instants k ts, where bdf
 * and dopri5 stop (mbs_ctrl_next_stop, mbs_ctrl_sample).
 *
 * The BDF's Newton matrix with controllers: every element state is
 * eliminated as a block (mbs_zelim_*), see integrator_bdf.c.
 */
#ifndef MBS_CONTROLLER_H
#define MBS_CONTROLLER_H

#include "mbs/model/data.h"

/* Output of controller c at (t, x, v, z) (z: the element states, where a
 * continuous controller's are read); *e (may be NULL) the error setpoint -
 * measurement, the setpoint another controller's output in a cascade.  A
 * discrete controller returns its held output; one in an algebraic loop
 * through a reaction (mbs_ctrl_spec.loop) the run's solution at that state
 * (d->loop_output), or d->loop_y in the shadow trying it (d->loop_c). */
double mbs_ctrl_output(const mbs_model *m, const mbs_data *d, int c, double t, const double *x, const double *v,
                       const double *z, double *e);

/* The output of continuous controller c at (t, x, v, z) when its measured
 * signal reads meas (the setpoint, feed-forward and states as
 * mbs_ctrl_output's); *u (may be NULL) the output before the limits.  For
 * the run's solution of an algebraic loop (run/measure.h). */
double mbs_ctrl_output_at(const mbs_model *m, const mbs_data *d, int c, double t, const double *x, const double *v,
                          const double *z, double meas, double *u);

/* The direct feed-through of controller C: d(output)/d(error) before the
 * limits (kp + kd / tf; an lti's D). */
double mbs_ctrl_feedthrough(const mbs_ctrl_spec *C);

/* The measured signal of controller c (a revolute angle continued next to
 * the last accepted step's value; another controller's channel at the same
 * state; a joint reaction: a sampled controller's through d->reaction with
 * the accelerations d->meas_a, or d->a when NULL; a continuous one's through
 * d->reaction_at at (t, x, v, z) with the accelerations d->meas_a, or those
 * solved at that state when NULL, and 0 while d->rx_skip > 0). */
double mbs_ctrl_measure(const mbs_model *m, const mbs_data *d, int c, double t, const double *x, const double *v,
                        const double *z);

/* The rates of the continuous controllers' states into zd (the entries
 * of m->ctrl_z; the motors' are left alone). */
void mbs_ctrl_zrate(const mbs_model *m, const mbs_data *d, const double *x, const double *v, const double *z,
                    double t, double *zd);

/* A controller channel's value: component MBS_C_ERROR, _OUTPUT, _SETPOINT,
 * _MEASUREMENT or _STATE (a pid's integral of the error, an lti's x_1; a
 * sampled one's after its last sample). */
double mbs_ctrl_channel(const mbs_model *m, const mbs_data *d, int c, mbs_component comp, double t, const double *x,
                        const double *v, const double *z);

/* Start of a run at the initialised state (d->t = 0): initial states (0),
 * angle references, the discrete controllers' first sample at t = 0.
 * Returns 1 when a held output was set (the caller computes the
 * accelerations again), 0 otherwise. */
int mbs_ctrl_start(const mbs_model *m, mbs_data *d);

/* The next sampling instant of any discrete controller after d->t, before
 * t_end; INFINITY when none. */
double mbs_ctrl_next_stop(const mbs_model *m, const mbs_data *d);

/* At an accepted state: sample the discrete controllers due at d->t (their
 * instant k ts within rounding), in increasing depth (a cascade's inner
 * controller after the outer one it reads).  Returns 1 when a held output changed (a
 * discontinuity of the forces: the integrator restarts from d), else 0. */
int mbs_ctrl_sample(const mbs_model *m, mbs_data *d);

/* After an accepted step: the measured angles' references follow. */
void mbs_ctrl_step_done(const mbs_model *m, mbs_data *d);

/* 1 when controller c is discrete (sample period > 0). */
int mbs_ctrl_discrete(const mbs_model *m, int c);

/* ---- the BDF Newton matrix with element states eliminated as a block ------------------ */

/* At (x, v, z = d->z, t) and BDF coefficient w0: D = w0 I - df/dz (LU) and
 * the gains K = D^-1 df/dx, D^-1 df/dv, all by forward differences of the
 * rates (mbs_force_zrate).  0, or -1 when D is singular. */
int mbs_zelim_build(const mbs_model *m, mbs_data *d, const double *x, const double *v, double t, double w0);

/* The states' own Newton step at fixed (x, v): dz = D^-1 (f - (w0 z + bz)),
 * z += dz; returns max |dz| over the error weights. */
double mbs_zelim_pre(const mbs_model *m, mbs_data *d, const double *x, const double *v, double t, double w0,
                     const double *bz);

/* After the mechanical Newton step (dx, dv): z += Kx dx + Kv dv; returns
 * max |dz| over the error weights. */
double mbs_zelim_post(const mbs_model *m, mbs_data *d, const double *dx, const double *dv);

#endif
