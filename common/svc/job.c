/* job.c - see job.h. */
#include "job.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void job_overrides_build(const json_t *params, const json_t *solver, job_overrides *o)
{
    size_t cap = json_object_size(params) + json_object_size(solver);
    const char *k; json_t *v;
    memset(o, 0, sizeof *o);
    o->ov = calloc(cap + 1, sizeof *o->ov);
    o->text = calloc(2 * cap + 2, sizeof *o->text);
    /* parameters: numbers printed with full precision */
    json_object_foreach((json_t *)params, k, v) {
        char num[40];
        snprintf(num, sizeof num, "%.17g", json_number_value(v));
        o->text[2 * o->n] = strdup(k);
        o->text[2 * o->n + 1] = strdup(num);
        o->n++;
    }
    /* solver options: "solver.NAME" = true|false|number|name */
    json_object_foreach((json_t *)solver, k, v) {
        char name[96], val[64];
        snprintf(name, sizeof name, "solver.%s", k);
        if (json_is_boolean(v)) snprintf(val, sizeof val, "%s", json_is_true(v) ? "true" : "false");
        else if (json_is_number(v)) snprintf(val, sizeof val, "%.17g", json_number_value(v));
        else snprintf(val, sizeof val, "%s", json_string_value(v) ? json_string_value(v) : "");
        o->text[2 * o->n] = strdup(name);
        o->text[2 * o->n + 1] = strdup(val);
        o->n++;
    }
    for (int i = 0; i < o->n; i++) { o->ov[i].name = o->text[2 * i]; o->ov[i].value = o->text[2 * i + 1]; }
}

void job_overrides_free(job_overrides *o)
{
    for (int i = 0; i < 2 * o->n; i++) free(o->text[i]);
    free(o->text); free(o->ov);
    memset(o, 0, sizeof *o);
}

static const char *s_kinds[] = { "max", "min", "final", "mean", "rms", "argmax",
                                 "integral", "rise_time", "settling_time", "overshoot" };
#define S_NKIND ((int)(sizeof s_kinds / sizeof s_kinds[0]))
enum { K_MAX, K_MIN, K_FINAL, K_MEAN, K_RMS, K_ARGMAX, K_INTEGRAL, K_RISE, K_SETTLE, K_OVERSHOOT };

int job_reduce_kind(const char *name)
{
    for (int i = 0; i < S_NKIND; i++) if (name && !strcmp(name, s_kinds[i])) return i;
    return -1;
}

/* The optional keys of a step-response reduction: band (settling_time),
 * limits (rise_time), target (the three step measures).  0, or -1 with the
 * key's name in *key and a message. */
static int s_step_options_check(const json_t *r, int kind, const char **key, char *msg, size_t msize)
{
    const json_t *band = json_object_get(r, "band"), *lim = json_object_get(r, "limits"),
                 *target = json_object_get(r, "target");
    if (band && kind != K_SETTLE) { *key = "band"; snprintf(msg, msize, "band is an option of settling_time only"); return -1; }
    if (lim && kind != K_RISE) { *key = "limits"; snprintf(msg, msize, "limits is an option of rise_time only"); return -1; }
    if (target && kind != K_RISE && kind != K_SETTLE && kind != K_OVERSHOOT) {
        *key = "target";
        snprintf(msg, msize, "target is an option of rise_time, settling_time and overshoot only");
        return -1;
    }
    if (band && !(json_is_number(band) && json_number_value(band) > 0 && json_number_value(band) < 1)) {
        *key = "band"; snprintf(msg, msize, "band must be a number in (0, 1): a fraction of the step"); return -1;
    }
    if (lim) {
        double lo = json_number_value(json_array_get(lim, 0)), hi = json_number_value(json_array_get(lim, 1));
        if (!json_is_array(lim) || json_array_size(lim) != 2 || !json_is_number(json_array_get(lim, 0)) ||
            !json_is_number(json_array_get(lim, 1)) || !(lo >= 0 && lo < hi && hi <= 1)) {
            *key = "limits";
            snprintf(msg, msize, "limits must be [lower, upper] with 0 <= lower < upper <= 1 (fractions of the step)");
            return -1;
        }
    }
    if (target && !(json_is_number(target) && isfinite(json_number_value(target)))) {
        *key = "target"; snprintf(msg, msize, "target must be a finite number"); return -1;
    }
    return 0;
}

int job_responses_check(const json_t *resp, const char *const *channels, int nchannel,
                        char *pointer, size_t psize, char *msg, size_t msize)
{
    size_t i; json_t *r;
    if (!resp) return 0;
    if (!json_is_array(resp)) { snprintf(pointer, psize, "/responses"); snprintf(msg, msize, "must be an array"); return -1; }
    if (json_array_size(resp) > JOB_MAX_RESPONSES) {
        snprintf(pointer, psize, "/responses");
        snprintf(msg, msize, "at most %d responses per sweep", JOB_MAX_RESPONSES);
        return -1;
    }
    json_array_foreach(resp, i, r) {
        const char *k; json_t *v;
        snprintf(pointer, psize, "/responses/%zu", i);
        if (!json_is_object(r)) { snprintf(msg, msize, "must be an object"); return -1; }
        json_object_foreach(r, k, v)
            if (strcmp(k, "name") && strcmp(k, "channel") && strcmp(k, "reduce") && strcmp(k, "band") &&
                strcmp(k, "limits") && strcmp(k, "target")) {
                snprintf(msg, msize, "unknown key \"%s\"", k); return -1;
            }
        const char *name = json_string_value(json_object_get(r, "name"));
        const char *ch = json_string_value(json_object_get(r, "channel"));
        const char *red = json_string_value(json_object_get(r, "reduce"));
        if (!name || !*name || strlen(name) > 63) { snprintf(msg, msize, "name must be a string of 1..63 characters"); return -1; }
        /* names become CSV columns and JSON keys: no control characters, no repeats */
        for (const char *p = name; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f) {
                snprintf(pointer, psize, "/responses/%zu/name", i);
                snprintf(msg, msize, "name must not contain control characters (newline, tab, ...)"); return -1;
            }
        for (size_t j = 0; j < i; j++)
            if (!strcmp(name, json_string_value(json_object_get(json_array_get(resp, j), "name")))) {
                snprintf(pointer, psize, "/responses/%zu/name", i);
                snprintf(msg, msize, "response name \"%s\" is given twice", name); return -1;
            }
        if (!ch) { snprintf(msg, msize, "channel must be a string"); return -1; }
        int kind = job_reduce_kind(red);
        if (kind < 0) {
            snprintf(msg, msize, "reduce must be one of max, min, final, mean, rms, argmax, integral, rise_time, "
                     "settling_time, overshoot");
            return -1;
        }
        const char *key = NULL;
        if (s_step_options_check(r, kind, &key, msg, msize)) {
            snprintf(pointer, psize, "/responses/%zu/%s", i, key);
            return -1;
        }
        if (channels) {
            int found = 0;
            for (int c = 0; c < nchannel; c++) if (!strcmp(channels[c], ch)) found = 1;
            if (!found) { snprintf(pointer, psize, "/responses/%zu/channel", i);
                          snprintf(msg, msize, "no output channel \"%s\" in the model", ch); return -1; }
        }
    }
    return 0;
}

/* The first time at which column col, followed from sample i0 on, reaches
 * level (crossing it in direction dir = +1 upward, -1 downward), linear
 * between samples; NAN when it never does. */
static double s_first_reach(const double *rows, int nsample, int ncol, int col, int i0, double level, int dir)
{
    for (int i = i0; i < nsample; i++) {
        double y = rows[i * ncol + col];
        if (dir * (y - level) < 0) continue;
        if (i == 0) return rows[0];
        double y0 = rows[(i - 1) * ncol + col], t0 = rows[(i - 1) * ncol], t1 = rows[i * ncol];
        return y == y0 ? t1 : t0 + (t1 - t0) * (level - y0) / (y - y0);
    }
    return NAN;
}

/* Step-response measures (MATLAB stepinfo's definitions) of column col:
 * y0 the first sample, yf the target (NAN: the last sample). */
static double s_step_measure(int kind, const double *rows, int nsample, int ncol, int col, double target,
                             double band, double lo, double hi)
{
    double y0 = rows[col], yf = isfinite(target) ? target : rows[(nsample - 1) * ncol + col], step = yf - y0;
    if (!(fabs(step) > 0)) return NAN; /* no step */
    int dir = step > 0 ? 1 : -1;
    if (kind == K_RISE) {
        double tl = s_first_reach(rows, nsample, ncol, col, 0, y0 + lo * step, dir);
        if (!isfinite(tl)) return NAN;
        double th = s_first_reach(rows, nsample, ncol, col, 0, y0 + hi * step, dir);
        return th - tl;
    }
    if (kind == K_OVERSHOOT) {
        double ext = 0;
        for (int i = 0; i < nsample; i++) ext = fmax(ext, dir * (rows[i * ncol + col] - yf));
        return 100 * ext / fabs(step);
    }
    /* settling: the last sample outside the band; the time the signal
     * re-entered it for good, interpolated on the band's edge it crossed */
    double w = band * fabs(step);
    int last = -1;
    for (int i = 0; i < nsample; i++)
        if (fabs(rows[i * ncol + col] - yf) > w) last = i;
    if (last < 0) return 0;
    if (last == nsample - 1) return NAN; /* not settled within the run */
    double ya = rows[last * ncol + col], yb = rows[(last + 1) * ncol + col];
    double edge = ya > yf ? yf + w : yf - w, ta = rows[last * ncol], tb = rows[(last + 1) * ncol];
    return (ta + (tb - ta) * (edge - ya) / (yb - ya)) - rows[0];
}

/* One reduction of column `col` (1-based after time). */
static double s_reduce(int kind, const double *rows, int nsample, int ncol, int col)
{
    double best = -INFINITY, low = INFINITY, tbest = NAN, sum = 0, sum2 = 0;
    if (nsample <= 0) return NAN;
    for (int i = 0; i < nsample; i++) {
        double y = rows[i * ncol + col];
        if (y > best) { best = y; tbest = rows[i * ncol]; }
        if (y < low) low = y;
        /* trapezoid in time for mean and rms */
        if (i > 0) {
            double dt = rows[i * ncol] - rows[(i - 1) * ncol], y0 = rows[(i - 1) * ncol + col];
            sum += 0.5 * dt * (y + y0);
            sum2 += 0.5 * dt * (y * y + y0 * y0);
        }
    }
    double span = rows[(nsample - 1) * ncol] - rows[0];
    switch (kind) {
    case 0: return best;
    case 1: return low;
    case 2: return rows[(nsample - 1) * ncol + col];
    case 3: return span > 0 ? sum / span : rows[col];
    case 4: return span > 0 ? sqrt(sum2 / span) : fabs(rows[col]);
    case 5: return tbest;
    case K_INTEGRAL: return sum;
    }
    return NAN;
}

json_t *job_responses_eval(const json_t *resp, const char *const *channels, int nchannel,
                           const double *rows, int nsample)
{
    json_t *out = json_object(), *r;
    size_t i;
    json_array_foreach(resp, i, r) {
        const char *name = json_string_value(json_object_get(r, "name"));
        const char *ch = json_string_value(json_object_get(r, "channel"));
        int kind = job_reduce_kind(json_string_value(json_object_get(r, "reduce"))), col = -1;
        double v = NAN;
        for (int c = 0; c < nchannel && ch; c++) if (!strcmp(channels[c], ch)) col = c + 1;
        if (name && col > 0 && nsample > 0 && (kind == K_RISE || kind == K_SETTLE || kind == K_OVERSHOOT)) {
            const json_t *tg = json_object_get(r, "target"), *band = json_object_get(r, "band"),
                         *lim = json_object_get(r, "limits");
            v = s_step_measure(kind, rows, nsample, nchannel + 1, col, tg ? json_number_value(tg) : NAN,
                               band ? json_number_value(band) : 0.02,
                               lim ? json_number_value(json_array_get(lim, 0)) : 0.1,
                               lim ? json_number_value(json_array_get(lim, 1)) : 0.9);
        } else if (name && col > 0 && kind >= 0) {
            v = s_reduce(kind, rows, nsample, nchannel + 1, col);
        }
        if (name) json_object_set_new(out, name, isfinite(v) ? json_real(v) : json_null());
    }
    return out;
}

static json_t *s_num(double x) { return isfinite(x) ? json_real(x) : json_null(); }

json_t *job_metrics_json(const mbs_metrics *m)
{
    json_t *o = json_object();
#define R(f) json_object_set_new(o, #f, s_num(m->f))
#define I(f) json_object_set_new(o, #f, json_integer((json_int_t)m->f))
    json_object_set_new(o, "integrator", m->integrator ? json_string(m->integrator) : json_null());
    /* the formulation (issue 12); joint coordinates and chord equations in
       relative coordinates only (null in natural ones) */
    json_object_set_new(o, "formulation", json_string(m->formulation ? m->formulation : "natural"));
    int rel = m->formulation && !strcmp(m->formulation, "relative");
    json_object_set_new(o, "relative_coordinates", rel ? json_integer(m->relative_coords) : json_null());
    json_object_set_new(o, "relative_constraints", rel ? json_integer(m->relative_constraints) : json_null());
    R(wall_seconds); R(cpu_seconds); I(steps); I(rejected_steps);
    I(newton_iterations); I(jacobian_evaluations); I(factorizations);
    R(mean_system_dimension); I(max_system_dimension);
    I(coords_before); I(coords_after); I(constraints_before); I(constraints_after);
    R(max_constraint_violation); R(max_velocity_violation); R(energy_drift);
    json_object_set_new(o, "conservative", json_boolean(m->conservative));
    R(mean_active_contacts); I(max_active_contacts);
    I(contact_activations); I(contact_deactivations);
    R(contact_detection_seconds); R(linear_algebra_seconds);
    I(peak_memory_bytes); I(order_max_used); I(singular_steps); I(slow_multiplier_steps);
    json_object_set_new(o, "contact_method", json_string(m->contact_method ? m->contact_method : "none"));
    R(mean_lcp_dimension); I(max_lcp_dimension); I(lcp_solves); I(lcp_failures);
    I(events); I(impacts); I(zeno_closures); R(max_penetration); R(max_complementarity_error);
    I(nonsmooth_steps); R(nonsmooth_error_estimate);
    json_object_set_new(o, "kept_set_reselections", json_integer((json_int_t)m->reselections));
    /* accuracy: error_estimate is null where the method has no estimate */
    R(tolerance); R(abs_tolerance); R(error_estimate);
    json_object_set_new(o, "tolerance_met", json_boolean(m->tolerance_met));
    json_object_set_new(o, "warning_count", json_integer(m->nwarning));
    json_t *w = json_array();
    for (int i = 0; i < m->nwarning && i < MBS_WARN_MAX; i++) {
        char text[sizeof m->warning[0] + 1];
        /* bounded copy: a stored warning is NUL-terminated within its buffer */
        memcpy(text, m->warning[i], sizeof m->warning[0]);
        text[sizeof m->warning[0]] = 0;
        json_t *t = json_string(text);   /* NULL if not UTF-8 */
        json_array_append_new(w, t ? t : json_string("(warning text not UTF-8)"));
    }
    json_object_set_new(o, "warnings", w);
#undef R
#undef I
    return o;
}
