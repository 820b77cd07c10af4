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

static const char *s_kinds[] = { "max", "min", "final", "mean", "rms", "argmax" };

int job_reduce_kind(const char *name)
{
    for (int i = 0; i < 6; i++) if (name && !strcmp(name, s_kinds[i])) return i;
    return -1;
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
            if (strcmp(k, "name") && strcmp(k, "channel") && strcmp(k, "reduce")) {
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
        if (job_reduce_kind(red) < 0) {
            snprintf(msg, msize, "reduce must be one of max, min, final, mean, rms, argmax"); return -1;
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
        if (name && col > 0 && kind >= 0) v = s_reduce(kind, rows, nsample, nchannel + 1, col);
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
    R(wall_seconds); R(cpu_seconds); I(steps); I(rejected_steps);
    I(newton_iterations); I(jacobian_evaluations); I(factorizations);
    R(mean_system_dimension); I(max_system_dimension);
    I(coords_before); I(coords_after); I(constraints_before); I(constraints_after);
    R(max_constraint_violation); R(max_velocity_violation); R(energy_drift);
    json_object_set_new(o, "conservative", json_boolean(m->conservative));
    R(mean_active_contacts); I(max_active_contacts);
    I(contact_activations); I(contact_deactivations);
    R(contact_detection_seconds); R(linear_algebra_seconds);
    I(peak_memory_bytes); I(order_max_used); I(singular_steps);
    json_object_set_new(o, "contact_method", json_string(m->contact_method ? m->contact_method : "none"));
    R(mean_lcp_dimension); I(max_lcp_dimension); I(lcp_solves); I(lcp_failures);
    I(events); I(impacts); I(zeno_closures); R(max_penetration); R(max_complementarity_error);
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
