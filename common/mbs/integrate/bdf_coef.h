/*
 * bdf_coef.h - the coefficients of a variable-step BDF on the actual times
 * of its points, shared by the natural coordinates' BDF
 * (integrator_bdf.c) and the BDF through the formulation boundary
 * (bdf_ode.c).  Static inline so that each integrator keeps its own
 * compiled copy (the natural BDF's results stayed bit for bit when they
 * moved here).
 */
#ifndef MBS_BDF_COEF_H
#define MBS_BDF_COEF_H

/* Derivative weights at tau[0] of the Lagrange basis on nodes tau[0..k]:
 * y'(tau[0]) = sum_j w[j] y(tau[j]) for the polynomial through them. */
static inline void mbs_bdf_deriv_weights(const double *tau, int k, double *w)
{
    double s0 = 0;
    for (int i = 1; i <= k; i++) s0 += 1.0 / (tau[0] - tau[i]);
    w[0] = s0;
    for (int j = 1; j <= k; j++) {
        double num = 1, den = 1;
        for (int i = 0; i <= k; i++) {
            if (i == j) continue;
            if (i != 0) num *= tau[0] - tau[i];
            den *= tau[j] - tau[i];
        }
        w[j] = num / den;
    }
}

/* Lagrange extrapolation weights at t of the polynomial through tau[0..k]. */
static inline void mbs_bdf_extrap_weights(const double *tau, int k, double t, double *w)
{
    for (int j = 0; j <= k; j++) {
        double l = 1;
        for (int i = 0; i <= k; i++)
            if (i != j) l *= (t - tau[i]) / (tau[j] - tau[i]);
        w[j] = l;
    }
}

/* The k-th divided difference, scaled to a backward difference, of the
 * values y[0..k] at the times tau[0..k] (tau[0] the newest; y is
 * overwritten): k! h^k y[tau_0, ..., tau_k], h = tau[0] - tau[1].  On equal
 * steps it is the binomial backward difference sum_j (-1)^j C(k, j) y_j; on
 * unequal ones it stays an estimate of h^k y^(k) (the binomial sum is not:
 * steps shrinking by 1e-5 a step made the third difference of BDF1's linear
 * velocity 8 times its weight, and the order never rose from 1 on a
 * pendulum released from rest: 211 steps at order 1 put 3.6e-8 m into a run
 * held to 1e-10). */
static inline double mbs_bdf_scaled_divdiff(double *y, const double *tau, int k)
{
    for (int j = 1; j <= k; j++)
        for (int i = k; i >= j; i--) y[i] = (y[i - 1] - y[i]) / (tau[i - j] - tau[i]);
    double h = tau[0] - tau[1], f = 1;
    for (int j = 1; j <= k; j++) f *= j * h;
    return f * y[k];
}

#endif
