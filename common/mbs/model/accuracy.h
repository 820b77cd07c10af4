/*
 * accuracy.h - the accuracy contract of a run (DESIGN §2): the error
 * weights every error-controlled integrator uses, and the error estimate,
 * tolerance_met flag and warnings every run reports in its metrics.
 *
 * Tolerances.  solver.tolerance (rtol) is the one knob: unless
 * solver.abs_tolerance is set, a point's coordinate is held to rtol x L (L
 * the size of the largest moving body, mbs_tolerance_length; no term in
 * |x|: where the global origin lies does not matter), a unit vector's to
 * rtol, and their rates to the same over t_end plus rtol |v| (the speed that covers L in the run; a running maximum
 * of |v| was tried and let impacts of compliant contacts through with 40
 * times the velocity error).  So tightening rtol tightens everything, in the units of
 * the mechanism (a fixed absolute 1e-8 used to cap the accuracy of runs
 * asking for 1e-10 near 1e-7 m, and to waste steps on a 1 mm mechanism).
 *
 * Global targets.  solver.tolerance and abs_tolerance are what the user
 * wants of the ANSWER (tolerance proportionality, issue 9: global position
 * error within 100 x tolerance x L).  Local errors add up over the steps
 * (the phase error of an oscillation grows with every step), so the
 * variable-step methods hold their local error to a fraction of the
 * tolerance (mbs_local_tolerance_factor), as RADAU5 transforms its
 * tolerance; d->tol holds the local weights, the metrics the user's.
 */
#ifndef MBS_ACCURACY_H
#define MBS_ACCURACY_H

#include "mbs/model/data.h"

/* The largest factor by which a variable-step integrator grows its step
 * from one accepted step to the next (DOPRI5 and the event-driven one 5,
 * the BDF 2): the contact broad phase inflates its boxes by the travel over
 * the next step, which may be this much longer than the last. */
#define MBS_STEP_GROWTH_MAX 5.0

/* The largest factor by which the run's integrator may grow its step (1 for
 * the fixed-step ones, 2 for the BDF, MBS_STEP_GROWTH_MAX for DOPRI5 and the
 * event-driven one): how far ahead the contact broad phase must look. */
double mbs_step_growth_max(const mbs_solver_spec *o);

/* The local error tolerance of `integrator` (mbs_integrator) as a fraction
 * of the user's relative tolerance rtol: BDF 0.06 (rtol / 1e-3)^0.15 below
 * 1e-3 (its global error grows faster than the tolerance shrinks: more
 * steps, each adding its local error), DOPRI5 and the event-driven
 * integrator (DOPRI5 steps between events) 0.3, 1 for the others
 * (fixed-step methods compare their estimate with the tolerance itself).
 * Calibrated on tolerance_test's mechanisms (docs/accuracy.md). */
double mbs_local_tolerance_factor(int integrator, double rtol);

/* Fill d->tol for a run of m (relative and absolute weights), reset the
 * accuracy metrics (tolerance, abs_tolerance, error_estimate, warnings). */
void mbs_tol_init(const mbs_model *m, mbs_data *d);

/* For each variable (nvar), the exponent e with 2^e nearest to the length
 * L (mbs_tolerance_length) when the variable is a length (a point's
 * coordinate, a prismatic rotor's slide, a spatial rotor's slide), 0 when
 * it is dimensionless (a unit vector's coordinate, an angle): the rank
 * analyses (analysis.h) measure Phi_q with its length columns times 2^e,
 * i.e. in units of L, so that a mechanism and the same one scaled by any
 * factor get the same answers (a 20 um slider-crank had an equation
 * dropped as redundant).  The classification is s_var_weights's. */
void mbs_var_length_exps(const mbs_model *m, int *e);

/* The length that scales the derived absolute tolerance: the size of the
 * largest moving body (largest distance between its centre of mass, joint
 * points, spring and force points; its shapes' diameters; for a free body,
 * held by no joint and no spring, also its gap to each ground shape: how
 * far it travels before it meets them); the extent of the geometry when no
 * body has a size. */
double mbs_tolerance_length(const mbs_model *m);

/* The current that scales the absolute weight of element state k (a
 * motor's current, model.h nz): the stall current V_max / R of the largest
 * supply voltage over the run (65 points, after the voltage limit), capped
 * by the current limit, at least |initial_current|; 1 A when all are 0.
 * The weight of z_k is rtol (V_max / R) + rtol |z_k| (local rtol): the
 * current held to the tolerance relative to the scale the supply can drive
 * it to, as a position is held to rtol L. */
double mbs_tolerance_current(const mbs_model *m, int k);

/* The scale y_c of controller c's output: the largest |kp r(t)| +
 * |feedforward(t)| (|D r| for a linear block) on 65 points of the run,
 * at most its bound (a PID's limits when both are finite, the voltage
 * limits of the motors it drives); the bound when that is 0, 1 when
 * neither is there.  A continuous controller's state k is
 * weighted (mbs_tolerance_current, which returns the state's scale for
 * it) so that its error moves the output by rtol y_c: the scale is y_c /
 * |ki| for a PID's integral, y_c tf / |kd| for its derivative filter,
 * y_c / max |C_j| for a linear block's states; a controlled motor's current
 * scale takes y_c as its supply voltage. */
double mbs_tolerance_ctrl_output(const mbs_model *m, int c);

/* Weight of element state k at magnitude |z|. */
static inline double mbs_wz(const mbs_data *d, int k, double az) { return d->tol.az[k] + d->tol.rtol * az; }

/* How far configuration y is from x, in the mechanism's units: the largest
 * change of a point coordinate over the length L (mbs_tolerance_length), or
 * of a unit-vector coordinate (about the angle turned, for small turns).
 * Variables of no body slot are not counted. */
double mbs_config_change(const mbs_model *m, double L, const double *x, const double *y);

/* Weights of position / velocity variable i at magnitudes |x|, |v|. */
static inline double mbs_tol_wx(const mbs_tol *t, int i, double ax)
{
    return t->per_var ? t->ax[i] + t->rx[i] * ax : t->atol_x + t->rtol * ax;
}
static inline double mbs_tol_wv(const mbs_tol *t, int i, double av)
{
    return t->per_var ? t->av[i] + t->rtol * av : t->atol_v + t->rtol * av;
}
static inline double mbs_wx(const mbs_data *d, int i, double ax) { return mbs_tol_wx(&d->tol, i, ax); }
static inline double mbs_wv(const mbs_data *d, int i, double av) { return mbs_tol_wv(&d->tol, i, av); }

/* Record the error estimate of an accepted step (units of the tolerance). */
static inline void mbs_note_error(mbs_data *d, double en)
{
    if (!(en <= d->met.error_estimate)) d->met.error_estimate = en;
}

/* Add a warning to the run's metrics (printf-style; stored up to
 * MBS_WARN_MAX, counted beyond).  Clears tolerance_met.  A warning with the
 * same text as a stored one is counted once. */
void mbs_warn(mbs_data *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* End of a run: a run whose estimate exceeds `limit` (units of the
 * tolerance) gets a warning saying by how much (which clears
 * tolerance_met, as every warning does). */
void mbs_accuracy_finish(mbs_data *d, double limit);

#endif
