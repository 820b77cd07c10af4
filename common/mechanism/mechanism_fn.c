/*
 * mechanism_fn.c - functions of time in the mechanism format: driver
 * motions and force/torque components.
 *
 *   3.5, "$p", "=2*$a"          constant
 *   "=sin(2*pi*t)"              expression of t
 *   {"kind": "constant" | "constant_speed" | "polynomial" | "harmonic" |
 *            "table" | "expression", ...}
 */
#include "mechanism/mechanism_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const s_kinds[] = {"constant", "constant_speed", "polynomial", "harmonic",
                                      "table", "expression", NULL};
static const char *const s_kind_keys[6][6] = {
    {"kind", "value", NULL},
    {"kind", "speed", NULL},
    {"kind", "coefficients", NULL},
    {"kind", "amplitude", "frequency", "phase", "offset", NULL},
    {"kind", "points", "interpolation", NULL},
    {"kind", "value", NULL},
};
static const char *const s_fn_all[] = {"kind", "value", "speed", "coefficients", "amplitude",
                                       "frequency", "phase", "offset", "points",
                                       "interpolation", NULL};

int mech_fn_constant(mech_ctx *c, mbs_fn *out, double v, const char *ptr)
{
    mbs_fn_clear(out);
    out->c = malloc(sizeof *out->c);
    if (!out->c) {
        mech_err(c, ptr, "out of memory");
        return -1;
    }
    out->kind = MBS_FN_CONSTANT;
    out->n = 1;
    out->c[0] = v;
    return 0;
}

/* Allocate n coefficients for `out` of the given kind. */
static int s_alloc(mech_ctx *c, mbs_fn *out, mbs_fn_kind kind, size_t n, const char *ptr)
{
    out->c = calloc(n ? n : 1, sizeof *out->c);
    if (!out->c) {
        mech_err(c, ptr, "out of memory");
        return -1;
    }
    out->kind = kind;
    out->n = (int)n;
    return 0;
}

/* An expression of t: kept when it uses t, folded to a constant otherwise. */
static int s_expression(mech_ctx *c, const char *text, const char *ptr, int keep,
                        mbs_fn *out)
{
    mbs_expr *e = mech_compile(c, text, 1, ptr);
    if (!e)
        return -1;
    if (keep || mbs_expr_uses_t(e)) {
        if (mech_check_finite_t(c, e, ptr)) {
            mbs_expr_free(&e);
            return -1;
        }
        out->kind = MBS_FN_EXPRESSION;
        out->expr = e;
        return 0;
    }
    double v = mbs_expr_eval(e, 0);
    mbs_expr_free(&e);
    if (!isfinite(v)) {
        mech_err(c, ptr, "expression evaluates to %s; expected a finite number",
                 isnan(v) ? "NaN (not a number)" : v > 0 ? "infinity" : "-infinity");
        return -1;
    }
    return mech_fn_constant(c, out, v, ptr);
}

/* {"kind": "table", "points": [[t, v], ...], "interpolation": ...} */
static int s_table(mech_ctx *c, json_t *obj, const char *ptr, mbs_fn *out)
{
    char kp[MECH_PTR_MAX], ip[MECH_PTR_MAX], tp[MECH_PTR_MAX];
    int rc = 0;
    json_t *v = json_object_get(obj, "interpolation");
    if (v) {
        const char *s = json_string_value(v);
        mech_ptr_key(kp, ptr, "interpolation");
        if (s && strcmp(s, "spline") == 0)
            out->spline = 1;
        else if (!s || strcmp(s, "linear") != 0) {
            mech_err(c, kp, "'interpolation' must be \"linear\" or \"spline\"");
            rc = -1;
        }
    }
    v = json_object_get(obj, "points");
    mech_ptr_key(kp, ptr, "points");
    if (!v) {
        mech_err(c, ptr, "missing required key 'points' (rows [t, value])");
        return -1;
    }
    long n = mech_array(c, v, kp, "an array of rows [t, value]");
    if (n < 0)
        return -1;
    if (n < 2) {
        mech_err(c, kp, "a table needs at least 2 rows [t, value], got %ld", n);
        return -1;
    }
    if (s_alloc(c, out, MBS_FN_TABLE, 2 * (size_t)n, ptr))
        return -1;
    out->n = (int)n; /* rows */
    int rows_ok = 1;
    for (long i = 0; i < n; i++) {
        mech_ptr_idx(ip, kp, (size_t)i);
        if (mech_vec(c, json_array_get(v, (size_t)i), ip, 2, "a row [t, value]",
                     &out->c[2 * i])) {
            rows_ok = 0;
            continue;
        }
        /* strictly increasing times */
        if (rows_ok && i > 0 && !(out->c[2 * i] > out->c[2 * i - 2])) {
            mech_ptr_idx(tp, ip, 0);
            mech_err(c, tp, "table times must be strictly increasing: t = %g follows t = %g",
                     out->c[2 * i], out->c[2 * i - 2]);
            rows_ok = 0;
        }
    }
    if (!rows_ok || rc)
        return -1;
    if (mbs_fn_prepare(out)) {
        mech_err(c, kp, "out of memory");
        return -1;
    }
    return 0;
}

/* A function object {"kind": ...}. */
static int s_fn_object(mech_ctx *c, json_t *obj, const char *ptr, mbs_fn *out)
{
    char kp[MECH_PTR_MAX], ip[MECH_PTR_MAX], b[48];
    json_t *v = json_object_get(obj, "kind");
    int kind = -1;
    mech_ptr_key(kp, ptr, "kind");
    if (!v) {
        mech_err(c, ptr, "missing required key 'kind' (constant, constant_speed, polynomial, "
                 "harmonic, table or expression)");
    } else if (!json_is_string(v)) {
        mech_err(c, kp, "expected a function kind (a string), got %s", mech_type_name(v));
    } else {
        for (int k = 0; s_kinds[k]; k++)
            if (strcmp(json_string_value(v), s_kinds[k]) == 0)
                kind = k;
        if (kind < 0) {
            const char *sug = mech_suggest(json_string_value(v), s_kinds);
            mech_clip(b, sizeof b, json_string_value(v), 40);
            mech_err(c, kp, "unknown function kind '%s'%s%s%s (expected constant, "
                     "constant_speed, polynomial, harmonic, table or expression)", b,
                     sug ? "; did you mean '" : "", sug ? sug : "", sug ? "'?" : "");
        }
    }
    if (kind < 0) {
        mech_check_keys(c, obj, ptr, s_fn_all, NULL, NULL);
        return -1;
    }
    char why[48];
    snprintf(why, sizeof why, "to a '%s' function", s_kinds[kind]);
    mech_check_keys(c, obj, ptr, s_kind_keys[kind], s_fn_all, why);

    double x[4] = {0, 0, 0, 0};
    switch (kind) {
    case 0: /* constant */
        if (mech_num_key(c, obj, ptr, "value", MECH_REQ, 0, &x[0]) < 0)
            return -1;
        return mech_fn_constant(c, out, x[0], ptr);
    case 1: /* constant_speed */
        if (mech_num_key(c, obj, ptr, "speed", MECH_REQ, 0, &x[0]) < 0 ||
            s_alloc(c, out, MBS_FN_CONSTANT_SPEED, 1, ptr))
            return -1;
        out->c[0] = x[0];
        return 0;
    case 2: { /* polynomial */
        v = json_object_get(obj, "coefficients");
        mech_ptr_key(kp, ptr, "coefficients");
        if (!v) {
            mech_err(c, ptr, "missing required key 'coefficients' ([c0, c1, ...])");
            return -1;
        }
        long n = mech_array(c, v, kp, "an array of coefficients [c0, c1, ...]");
        if (n < 0)
            return -1;
        if (n == 0) {
            mech_err(c, kp, "a polynomial needs at least one coefficient");
            return -1;
        }
        if (s_alloc(c, out, MBS_FN_POLYNOMIAL, (size_t)n, ptr))
            return -1;
        int rc = 0;
        for (long i = 0; i < n; i++) {
            mech_ptr_idx(ip, kp, (size_t)i);
            rc |= mech_num(c, json_array_get(v, (size_t)i), ip, &out->c[i]);
        }
        return rc;
    }
    case 3: { /* harmonic: c = amplitude, 2 pi f, phase, offset */
        int r0 = mech_num_key(c, obj, ptr, "amplitude", MECH_REQ, 0, &x[0]);
        int r1 = mech_num_key(c, obj, ptr, "frequency", MECH_REQ, 0, &x[1]);
        int r2 = mech_num_key(c, obj, ptr, "phase", 0, 0, &x[2]);
        int r3 = mech_num_key(c, obj, ptr, "offset", 0, 0, &x[3]);
        if (r0 < 0 || r1 < 0 || r2 < 0 || r3 < 0 || s_alloc(c, out, MBS_FN_HARMONIC, 4, ptr))
            return -1;
        out->c[0] = x[0];
        out->c[1] = 2 * M_PI * x[1];
        out->c[2] = x[2];
        out->c[3] = x[3];
        return 0;
    }
    case 4:
        return s_table(c, obj, ptr, out);
    default: /* expression */
        v = json_object_get(obj, "value");
        mech_ptr_key(kp, ptr, "value");
        if (!v) {
            mech_err(c, ptr, "missing required key 'value' (an \"=expression\" of t)");
            return -1;
        }
        if (!json_is_string(v) || json_string_value(v)[0] != '=' ||
            strlen(json_string_value(v)) != json_string_length(v)) {
            mech_err(c, kp, "expected an \"=expression\" string of t, e.g. \"=sin(2*pi*t)\"");
            return -1;
        }
        return s_expression(c, json_string_value(v) + 1, kp, 1, out);
    }
}

int mech_fn(mech_ctx *c, json_t *v, const char *ptr, mbs_fn *out)
{
    mbs_fn_clear(out);
    int rc;
    if (json_is_object(v)) {
        rc = s_fn_object(c, v, ptr, out);
    } else if (json_is_string(v) && json_string_value(v)[0] == '=' &&
               strlen(json_string_value(v)) == json_string_length(v)) {
        rc = s_expression(c, json_string_value(v) + 1, ptr, 0, out);
    } else if (json_is_number(v) || json_is_string(v)) {
        double x;
        rc = mech_num(c, v, ptr, &x);
        if (rc == 0)
            rc = mech_fn_constant(c, out, x, ptr);
    } else {
        mech_err(c, ptr, "expected a number, an \"=expression\" of t or a function object "
                 "{\"kind\": ...}, got %s", mech_type_name(v));
        rc = -1;
    }
    /* a failed function owns nothing */
    if (rc)
        mbs_fn_clear(out);
    return rc;
}
