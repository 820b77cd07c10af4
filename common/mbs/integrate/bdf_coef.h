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
#include <math.h>
#include <string.h>

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
static inline double mbs_bdf_divdiff_scale(const double *tau, int k)
{
    double h = tau[0] - tau[1], f = 1;
    for (int j = 1; j <= k; j++) f *= j * h;
    return f;
}
static inline double mbs_bdf_scaled_divdiff(double *y, const double *tau, int k)
{
    for (int j = 1; j <= k; j++)
        for (int i = k; i >= j; i--) y[i] = (y[i - 1] - y[i]) / (tau[i - j] - tau[i]);
    return mbs_bdf_divdiff_scale(tau, k) * y[k];
}

/* The divided differences of mbs_bdf_scaled_divdiff for n sequences at
 * once: Y holds k + 1 rows of n values (row r the values at tau[r];
 * overwritten), and row k returns each sequence's k-th divided difference,
 * to be multiplied by mbs_bdf_divdiff_scale(tau, k).  Each value takes the
 * same operations in the same order as there (the same bits), in loops over
 * the n sequences that share a denominator: the roller chain's order
 * selection ran the 21 dependent divisions of each of its 824 sequences one
 * after another (4.8 % of the run). */
typedef double mbs_v2d __attribute__((vector_size(16)));
static inline void mbs_bdf_divdiff_rows(double *Y, int n, const double *tau, int k)
{
    for (int j = 1; j <= k; j++)
        for (int i = k; i >= j; i--) {
            double den = tau[i - j] - tau[i];
            double *restrict yi = Y + (size_t)i * (size_t)n;
            const double *restrict yp = Y + (size_t)(i - 1) * (size_t)n;
            /* two lanes at a time (GCC vector extension: each lane an IEEE
             * subtraction and division, as the scalar code) */
            mbs_v2d dd = {den, den};
            int v = 0;
            for (; v + 2 <= n; v += 2) {
                mbs_v2d a, b;
                memcpy(&a, yp + v, sizeof a);
                memcpy(&b, yi + v, sizeof b);
                b = (a - b) / dd;
                memcpy(yi + v, &b, sizeof b);
            }
            for (; v < n; v++) yi[v] = (yp[v] - yi[v]) / den;
        }
}

/* The step after an accepted one of size h, rk the factor the error
 * estimate allows at the order chosen: grown only by a clear margin (at
 * least 1.5 times, at most twice: a step kept keeps the factorised Newton
 * matrix), cut at once when the estimate asks, at most halved.  Shared by
 * both BDFs (integrator_bdf.c, bdf_ode.c). */
static inline double mbs_bdf_step_after(double h, double rk)
{
    double fac = 0.9 * rk;
    if (fac >= 1.5) return h * fmin(fac, 2.0);
    if (fac < 1.0) return h * fmax(0.5, fac);
    return h;
}

/* After a failed attempt at order kk > 1: whether to keep that order rather
 * than go down one, i.e. whether the lower order's error estimate e_lower
 * (the kk-th scaled divided difference of the attempt's solution over kk,
 * in units of the tolerance, as the order selection after an accepted step
 * takes it) allows no longer a step than the failing order's estimate en.
 * Shared by both BDFs (integrator_bdf.c, bdf_ode.c) from the second
 * rejection in a row. */
static inline int mbs_bdf_keep_order(double en, double e_lower, int kk)
{
    return pow(fmax(e_lower, 1e-10), -1.0 / kk) <= pow(fmax(en, 1e-10), -1.0 / (kk + 1));
}

/* The factor on a rejected step: from the error estimate en of order kk
 * (at most 5 times smaller), a quarter when Newton did not converge. */
static inline double mbs_bdf_step_rejected(int converged, double en, int kk)
{
    return converged ? fmax(0.2, 0.9 * pow(en, -1.0 / (kk + 1))) : 0.25;
}

#endif
