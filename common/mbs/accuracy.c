/*
 * accuracy.c - error weights, error estimate and warnings of a run
 * (accuracy.h).
 */
#include "accuracy.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void mbs_tol_init(const mbs_model *m, mbs_data *d)
{
    const mbs_solver_spec *o = &m->spec->solver;
    mbs_tol *t = &d->tol;
    t->rtol = o->tolerance > 0 ? o->tolerance : 1e-6;
    if (!(o->abs_tolerance > 0)) {
        /* derived: L the characteristic length, L / t_end its speed */
        double L = m->length_scale > 0 ? m->length_scale : 1.0;
        t->atol_x = t->rtol * L;
        t->atol_v = t->rtol * L / (o->t_end > 0 ? o->t_end : 1.0);
    } else {
        t->atol_x = t->atol_v = o->abs_tolerance;
    }
    d->met.tolerance = t->rtol;
    d->met.abs_tolerance = t->atol_x;
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
    if (isfinite(e) && e > limit)
        mbs_warn(d, "the estimated local error reached %.3g times the tolerance %.3g", e, d->tol.rtol);
}
