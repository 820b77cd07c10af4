/*
 * control.h - controller blocks of the mechatronic actuators (issue 13,
 * seed 004): linear single-input single-output blocks and PID controllers,
 * continuous (first-order states of the run's DAE, under its error control,
 * with their exact Jacobian blocks) or discrete (a digital controller: its
 * state changes only at the sampling instants, where the integrators stop,
 * and its output is held in between: zero-order hold).
 *
 * A block maps one input signal u (e.g. the error setpoint - measurement)
 * to one output y (e.g. a motor voltage).  Continuous linear blocks are
 * x' = A x + B u, y = C x + D u, built from state-space matrices or from a
 * proper transfer function num(s) / den(s) (controllable canonical form).
 * Discrete linear blocks are x[k+1] = A x[k] + B u[k], y[k] = C x[k] + D u[k]
 * with the same builders in z.
 *
 * PID: y = kp e + ki integral(e) + kd de/dt filtered by a first-order lag of
 * time constant tf (tf > 0 when kd != 0: an unfiltered derivative is not
 * realisable), output limited to [y_min, y_max], anti-windup by back-
 * calculation (the integrator is driven by (y_sat - y) / tt as well; tt = 0:
 * sqrt(ti td) or ti as Astrom & Hagglund suggest, see mbs_pid_init).
 * Continuous states: the integral and the derivative filter's state.  The
 * discrete PID is the same law discretised as a digital controller does it
 * (backward Euler for the integral and the filter) at period ts.
 */
#ifndef MBS_CONTROL_H
#define MBS_CONTROL_H

#define MBS_LTI_MAX 8 /* states of a linear block */

typedef struct {
    int n;                              /* states, 0 .. MBS_LTI_MAX */
    double A[MBS_LTI_MAX * MBS_LTI_MAX]; /* row-major */
    double B[MBS_LTI_MAX], C[MBS_LTI_MAX], D;
} mbs_lti;

/* From a transfer function num / den, coefficients in descending powers
 * (num[0] s^(nn-1) + ...), den[0] != 0, nn <= nd (proper), nd - 1 <=
 * MBS_LTI_MAX.  Returns 0, or -1 (improper, leading zero, too large). */
int mbs_lti_from_tf(const double *num, int nn, const double *den, int nd, mbs_lti *b);

/* Continuous: the state derivative and the output at state x, input u. */
void mbs_lti_rhs(const mbs_lti *b, const double *x, double u, double *xdot);
double mbs_lti_output(const mbs_lti *b, const double *x, double u);

/* Discrete: one sample, x <- A x + B u; returns the output of the sample
 * (C x + D u with the state before the update). */
double mbs_lti_step(const mbs_lti *b, double *x, double u);

typedef struct {
    double kp, ki, kd, tf;   /* gains, derivative filter time constant (s)        */
    double y_min, y_max;     /* output limits (-inf, +inf: none)                  */
    double tt;               /* anti-windup tracking time (s), > 0                */
    double ts;               /* discrete: sample period (s); 0: continuous        */
} mbs_pid;

/* Fill the defaults: tt = sqrt(ti td) with ti = kp / ki, td = kd / kp when
 * both exist, else ti (or 1 s without integral action).  Returns 0, or -1
 * for an invalid set (kd != 0 with tf <= 0, ts < 0, y_min > y_max, a
 * non-finite gain). */
int mbs_pid_init(mbs_pid *p);

/* Continuous PID, states s[0] = integral, s[1] = derivative filter state
 * (the filtered derivative is (e - s[1]) / tf): the output (limited) and
 * the state derivatives at error e.  Jacobian (may be NULL): J[0..1] =
 * d(y_sat)/d(s0, s1), J[2] = d(y_sat)/de, J[3..8] = d(sdot)/d(s0, s1, e)
 * row-major (2 x 3). */
double mbs_pid_rhs(const mbs_pid *p, const double s[2], double e, double sdot[2], double J[9]);

/* Discrete PID, one sample at error e: returns the (held) output and
 * updates s (integral, filter state) as a digital controller does. */
double mbs_pid_step(const mbs_pid *p, double s[2], double e);

#endif
