/*
 * accuracy.c - error weights, error estimate and warnings of a run
 * (accuracy.h).
 */
#include "accuracy.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "spec.h"

double mbs_local_tolerance_factor(int integrator, double rtol)
{
    /* calibration (docs/accuracy.md, tolerance_test): the largest global
     * error / (tol L) over Andrews, the spatial slider-crank, Bricard, the
     * flyball, the double pendulum and two pendulums at tol 1e-3 ... 1e-9
     * was 1140 (bdf) and 342 (dopri5) with factor 1; it is 50 and 96 with
     * these factors. */
    if (integrator == MBS_INT_BDF) return 0.1 * pow(fmin(rtol, 1e-3) / 1e-3, 0.15);
    if (integrator == MBS_INT_DOPRI5) return 0.3;
    return 1.0;
}

void mbs_tol_init(const mbs_model *m, mbs_data *d)
{
    const mbs_solver_spec *o = &m->spec->solver;
    mbs_tol *t = &d->tol;
    double rtol = o->tolerance > 0 ? o->tolerance : 1e-6, atol_x, atol_v;
    if (!(o->abs_tolerance > 0)) {
        /* derived: L the characteristic length, L / t_end its speed */
        double L = m->length_scale > 0 ? m->length_scale : 1.0;
        atol_x = rtol * L;
        atol_v = rtol * L / (o->t_end > 0 ? o->t_end : 1.0);
    } else {
        atol_x = atol_v = o->abs_tolerance;
    }
    /* the user's tolerances are global targets; the step control holds
     * the local error to a fraction of them */
    double f = o->analysis == MBS_ANALYSIS_DYNAMICS ? mbs_local_tolerance_factor(o->integrator, rtol) : 1.0;
    /* not below 1e-10 unless asked for: Newton's tests scale with the
     * weights, and at 1e-11 BDF's iteration no longer converges through the
     * N-four-bar's singular positions (measured: N = 2 stops at t = 5.1 at
     * tolerance 1e-9 with the local 1.3e-11) */
    if (f * rtol < 1e-10) f = fmin(1.0, 1e-10 / rtol);
    t->rtol = f * rtol;
    t->atol_x = f * atol_x;
    t->atol_v = f * atol_v;
    d->met.tolerance = rtol;
    d->met.abs_tolerance = atol_x;
    d->met.error_estimate = 0;
    d->met.tolerance_met = 1;
    d->met.nwarning = 0;
}

void mbs_warn(mbs_data *d, const char *fmt, ...)
{
    char text[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    /* plain text in the metrics' JSON: no quotes or backslashes */
    for (char *p = text; *p; p++) if (*p == '"' || *p == '\\' || (unsigned char)*p < 32) *p = '\'';
    d->met.tolerance_met = 0;
    for (int i = 0; i < d->met.nwarning && i < MBS_WARN_MAX; i++)
        if (!strcmp(d->met.warning[i], text)) return;
    if (d->met.nwarning < MBS_WARN_MAX) snprintf(d->met.warning[d->met.nwarning], sizeof d->met.warning[0], "%s", text);
    d->met.nwarning++;
}

void mbs_accuracy_finish(mbs_data *d, double limit)
{
    double e = d->met.error_estimate;
    if (!(isfinite(e) && e > limit)) return;
    if (d->tol.rtol < d->met.tolerance)
        mbs_warn(d, "the estimated local error reached %.3g times the local tolerance %.3g (tolerance %.3g)", e,
                 d->tol.rtol, d->met.tolerance);
    else
        mbs_warn(d, "the estimated local error reached %.3g times the tolerance %.3g", e, d->tol.rtol);
}
