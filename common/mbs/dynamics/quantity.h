/*
 * quantity.h - the values of the output quantities that are functions of
 * the state (t, x, v, z) alone (internal): shared by the output channels
 * (output.c) and the controllers' measured signals (controller.c), so
 * that a controller measures exactly what a channel of the same keys
 * reports.
 */
#ifndef MBS_QUANTITY_H
#define MBS_QUANTITY_H

#include "mbs/model/data.h"

/* 1 when quantity q (with component comp) is a function of (t, x, v, z):
 * positions, velocities, body angles and angular velocities, orientations,
 * joint coordinates and rates, element forces, motor quantities (not a
 * motor's energies since t = 0: integrals the output sampler carries,
 * output.h; mbs_quantity_value gives NAN for them), energies.
 * Not: accelerations, reactions, contact forces, the clearance joint's
 * forces, the constraint violation, controllers (they need the
 * accelerations, the integrator or a controller's output). */
int mbs_quantity_is_state(mbs_quantity q);

/* The value of channel ch (a state quantity) at (t, x, v, z): pt is the
 * affine vector of its body point (position, velocity) or body x axis
 * (angle, angular velocity in 2-D), see mbs_quantity_avec.  Angles are
 * atan2's branch (the caller makes them continuous).  d: the run's data
 * (a motor's voltage may be a controller's output), NULL when the model has
 * no controllers. */
double mbs_quantity_value(const mbs_model *m, const mbs_data *d, const mbs_channel_spec *ch, const mbs_avec *pt,
                          double t, const double *x, const double *v, const double *z);

/* The affine vector of channel ch's body point or body x axis (zero when
 * it has no body). */
mbs_avec mbs_quantity_avec(const mbs_model *m, const mbs_channel_spec *ch);

/* Unit quaternion (w x y z) of body b's frame at x (3-D). */
void mbs_body_quat(const mbs_model *m, int b, const double *x, double q[4]);

#endif
