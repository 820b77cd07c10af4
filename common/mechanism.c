/*
 * mechanism.c - the JSON mechanism format to an mbs_spec (mechanism.h).
 *
 * This file holds the entry point (size and depth limits, JSON parsing,
 * top-level keys), the shared helpers of mechanism_int.h (errors, JSON
 * pointers, names, numbers, expressions), the parameters with their
 * dependency order, the overrides and the solver options.  Bodies, joints,
 * forces and drivers are in mechanism_model.c, functions of time in
 * mechanism_fn.c, outputs in mechanism_out.c.
 *
 * Every check reports at the JSON pointer of the offending value and parsing
 * goes on, so one pass finds as many problems as it can.
 */
#include "mechanism_int.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- errors and pointers ------------------------------------------------------- */

void mech_err(mech_ctx *c, const char *ptr, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    c->nerr++;
    mbs_err_add(c->err, ptr, "%s%s", c->prefix, msg);
}

/* Append src to out (capacity MECH_PTR_MAX) escaping '~' and '/' (RFC 6901). */
static void s_ptr_append(char *out, size_t len, const char *src)
{
    for (; *src && len + 3 < MECH_PTR_MAX; src++) {
        if (*src == '~') {
            out[len++] = '~';
            out[len++] = '0';
        } else if (*src == '/') {
            out[len++] = '~';
            out[len++] = '1';
        } else {
            out[len++] = *src;
        }
    }
    out[len] = '\0';
}

void mech_ptr_key(char *out, const char *base, const char *key)
{
    /* base may alias out */
    size_t len = strlen(base);
    if (len + 2 >= MECH_PTR_MAX)
        len = MECH_PTR_MAX - 2;
    memmove(out, base, len);
    out[len++] = '/';
    s_ptr_append(out, len, key);
}

void mech_ptr_idx(char *out, const char *base, size_t i)
{
    char num[32];
    snprintf(num, sizeof num, "%zu", i);
    mech_ptr_key(out, base, num);
}

const char *mech_type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER:
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "an unknown value";
}

/* Copy at most max bytes of src into buf for a message: control characters
 * become '?', and "..." marks a cut. */
static const char *s_clip(char *buf, size_t size, const char *src, size_t max)
{
    size_t i = 0;
    if (max + 4 > size)
        max = size - 4;
    for (; src[i] && i < max; i++)
        buf[i] = ((unsigned char)src[i] < 0x20 || src[i] == 0x7f) ? '?' : src[i];
    if (src[i]) {
        memcpy(buf + i, "...", 3);
        i += 3;
    }
    buf[i] = '\0';
    return buf;
}

/* ---- name map ------------------------------------------------------------------------ */

static uint64_t s_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

int mech_map_put(mech_map *m, const char *key, int val)
{
    /* grow at half load */
    if (2 * (m->n + 1) > m->cap) {
        size_t ncap = m->cap ? 2 * m->cap : 16;
        const char **nkey = calloc(ncap, sizeof *nkey);
        int *nval = calloc(ncap, sizeof *nval);
        if (!nkey || !nval) {
            free(nkey);
            free(nval);
            return -2;
        }
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->key[i])
                continue;
            size_t j = s_hash(m->key[i]) & (ncap - 1);
            while (nkey[j])
                j = (j + 1) & (ncap - 1);
            nkey[j] = m->key[i];
            nval[j] = m->val[i];
        }
        free(m->key);
        free(m->val);
        m->key = nkey;
        m->val = nval;
        m->cap = ncap;
    }
    size_t j = s_hash(key) & (m->cap - 1);
    while (m->key[j]) {
        if (strcmp(m->key[j], key) == 0)
            return m->val[j];
        j = (j + 1) & (m->cap - 1);
    }
    m->key[j] = key;
    m->val[j] = val;
    m->n++;
    return -1;
}

int mech_map_get(const mech_map *m, const char *key)
{
    if (!m->cap)
        return -1;
    size_t j = s_hash(key) & (m->cap - 1);
    while (m->key[j]) {
        if (strcmp(m->key[j], key) == 0)
            return m->val[j];
        j = (j + 1) & (m->cap - 1);
    }
    return -1;
}

void mech_map_free(mech_map *m)
{
    free(m->key);
    free(m->val);
    memset(m, 0, sizeof *m);
}

/* ---- suggestions --------------------------------------------------------------------- */

/* Optimal string alignment distance (adjacent transpositions count 1),
 * for short words only. */
static int s_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return 99;
    int d[65][65];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int cost = a[i - 1] != b[j - 1];
            int v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < v)
                v = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[la][lb];
}

const char *mech_suggest(const char *word, const char *const *cands)
{
    const char *best = NULL;
    int bestd = 3;
    for (; cands && *cands; cands++) {
        int d = s_edit_distance(word, *cands);
        if (d < bestd) {
            bestd = d;
            best = *cands;
        }
    }
    return best;
}

const char *mech_suggest_map(const char *word, const mech_map *m)
{
    /* a user's names: only worth the time for a modest number of them */
    if (m->n > 1000)
        return NULL;
    const char *best = NULL;
    int bestd = 3;
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->key[i])
            continue;
        int d = s_edit_distance(word, m->key[i]);
        if (d < bestd) {
            bestd = d;
            best = m->key[i];
        }
    }
    return best;
}

static int s_in_list(const char *key, const char *const *list)
{
    for (; list && *list; list++)
        if (strcmp(key, *list) == 0)
            return 1;
    return 0;
}

int mech_check_keys(mech_ctx *c, json_t *obj, const char *ptr, const char *const *allowed,
                    const char *const *known, const char *why)
{
    const char *key;
    json_t *val;
    int n = 0;
    json_object_foreach(obj, key, val) {
        if (s_in_list(key, allowed))
            continue;
        char kp[MECH_PTR_MAX], kb[64];
        mech_ptr_key(kp, ptr, key);
        s_clip(kb, sizeof kb, key, 40);
        n++;
        if (known && s_in_list(key, known)) {
            mech_err(c, kp, "key '%s' does not apply %s", kb, why ? why : "here");
            continue;
        }
        const char *sug = mech_suggest(key, allowed);
        if (sug) {
            mech_err(c, kp, "unknown key '%s'; did you mean '%s'?", kb, sug);
        } else {
            /* list what is allowed */
            char list[200];
            size_t len = 0;
            list[0] = '\0';
            for (const char *const *a = allowed; *a && len + 2 < sizeof list; a++)
                len += (size_t)snprintf(list + len, sizeof list - len, "%s%s",
                                        a == allowed ? "" : ", ", *a);
            mech_err(c, kp, "unknown key '%s' (expected one of: %s)", kb, list);
        }
    }
    return n;
}

/* ---- names, numbers and expressions ----------------------------------------------------- */

int mech_name(mech_ctx *c, json_t *v, const char *ptr, char *out, size_t size)
{
    if (!json_is_string(v)) {
        mech_err(c, ptr, "expected a name (a string), got %s", mech_type_name(v));
        return -1;
    }
    const char *s = json_string_value(v);
    size_t len = json_string_length(v);
    if (len == 0) {
        mech_err(c, ptr, "a name must not be empty");
        return -1;
    }
    if (len >= MBS_NAME_MAX || len >= size) {
        char b[48];
        mech_err(c, ptr, "name '%s' is too long (%zu bytes; at most %d)",
                 s_clip(b, sizeof b, s, 24), len, MBS_NAME_MAX - 1);
        return -1;
    }
    /* names end up in CSV headers and comma-separated lists */
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch < 0x20 || ch == 0x7f || ch == '"' || ch == ',' || ch == '\\') {
            char b[80];
            mech_err(c, ptr, "name '%s' contains a comma, quote, backslash or control "
                     "character, which names may not", s_clip(b, sizeof b, s, 63));
            return -1;
        }
    }
    if (out)
        memcpy(out, s, len + 1);
    return 0;
}

/* Parameter lookup for compiled expressions: values of evaluated parameters. */
static int s_lookup(const char *name, double *value, void *user)
{
    mech_ctx *c = user;
    int i = mech_map_get(&c->params, name);
    if (i < 0 || c->pstate[i] == MECH_P_PENDING) {
        snprintf(c->unknown_param, sizeof c->unknown_param, "%s", name);
        return -1;
    }
    if (c->pstate[i] == MECH_P_FAILED) {
        /* its own error is reported already: stay silent about this use */
        c->bad_ref = 1;
        *value = 0;
        return 0;
    }
    *value = c->pval[i];
    return 0;
}

/* Report a failed compilation of `text` with the compiler's message. */
static void s_report_compile(mech_ctx *c, const char *ptr, const char *text, const char *msg)
{
    char eb[48];
    const char *sug = c->unknown_param[0] ? mech_suggest_map(c->unknown_param, &c->params)
                                          : NULL;
    s_clip(eb, sizeof eb, text, 32);
    if (sug)
        mech_err(c, ptr, "invalid expression \"=%s\": %s; did you mean '$%s'?", eb, msg, sug);
    else
        mech_err(c, ptr, "invalid expression \"=%s\": %s", eb, msg);
}

mbs_expr *mech_compile(mech_ctx *c, const char *text, int allow_t, const char *ptr)
{
    char msg[200];
    c->bad_ref = 0;
    c->unknown_param[0] = '\0';
    mbs_expr *e = mbs_expr_compile(text, allow_t, s_lookup, c, msg, sizeof msg);
    if (e && c->bad_ref) {
        mbs_expr_free(&e);
        return NULL;
    }
    if (!e && !c->bad_ref)
        s_report_compile(c, ptr, text, msg);
    return e;
}

/* Report a non-finite value of an expression. */
static void s_not_finite(mech_ctx *c, const char *ptr, const char *text, double v)
{
    char eb[48];
    mech_err(c, ptr, "expression \"=%s\" evaluates to %s; expected a finite number",
             s_clip(eb, sizeof eb, text, 32),
             isnan(v) ? "NaN (not a number)" : v > 0 ? "infinity" : "-infinity");
}

int mech_check_finite_t(mech_ctx *c, const mbs_expr *e, const char *ptr)
{
    /* t = 0 and 16 samples up to t_end (when known) */
    int ns = c->t_end > 0 ? 16 : 0;
    for (int k = 0; k <= ns; k++) {
        double t = ns ? c->t_end * k / ns : 0;
        double v = mbs_expr_eval(e, t);
        if (!isfinite(v)) {
            mech_err(c, ptr, "expression is not finite at t = %g s (it evaluates to %s)", t,
                     isnan(v) ? "NaN" : v > 0 ? "infinity" : "-infinity");
            return -1;
        }
    }
    return 0;
}

/* 1 when s is a parameter name [A-Za-z_][A-Za-z0-9_]*. */
static int s_is_ident(const char *s)
{
    if (!(isalpha((unsigned char)*s) || *s == '_'))
        return 0;
    for (s++; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_'))
            return 0;
    return 1;
}

int mech_num(mech_ctx *c, json_t *v, const char *ptr, double *out)
{
    char b[48];
    if (json_is_number(v)) {
        double x = json_number_value(v);
        if (!isfinite(x)) {
            mech_err(c, ptr, "expected a finite number");
            return -1;
        }
        *out = x;
        return 0;
    }
    if (!json_is_string(v)) {
        mech_err(c, ptr, "expected a number, got %s", mech_type_name(v));
        return -1;
    }
    const char *s = json_string_value(v);
    if (s[0] == '$') {
        /* "$name": a parameter's value */
        if (!s_is_ident(s + 1) || json_string_length(v) != strlen(s)) {
            mech_err(c, ptr, "\"%s\" is not a parameter reference; write \"$name\", or "
                     "\"=...\" for an expression", s_clip(b, sizeof b, s, 32));
            return -1;
        }
        int i = mech_map_get(&c->params, s + 1);
        if (i < 0 || c->pstate[i] == MECH_P_PENDING) {
            const char *sug = mech_suggest_map(s + 1, &c->params);
            if (sug)
                mech_err(c, ptr, "unknown parameter '%s'; did you mean '%s'?",
                         s_clip(b, sizeof b, s + 1, 32), sug);
            else
                mech_err(c, ptr, "unknown parameter '%s' (not defined in \"parameters\")",
                         s_clip(b, sizeof b, s + 1, 32));
            return -1;
        }
        if (c->pstate[i] == MECH_P_FAILED)
            return -1; /* reported where the parameter is defined */
        *out = c->pval[i];
        return 0;
    }
    if (s[0] == '=') {
        if (json_string_length(v) != strlen(s)) {
            mech_err(c, ptr, "expression contains a NUL character");
            return -1;
        }
        mbs_expr *e = mech_compile(c, s + 1, 0, ptr);
        if (!e)
            return -1;
        double x = mbs_expr_eval(e, 0);
        mbs_expr_free(&e);
        if (!isfinite(x)) {
            s_not_finite(c, ptr, s + 1, x);
            return -1;
        }
        *out = x;
        return 0;
    }
    mech_err(c, ptr, "expected a number, a \"$parameter\" or an \"=expression\", got the "
             "string \"%s\"", s_clip(b, sizeof b, s, 32));
    return -1;
}

int mech_num_key(mech_ctx *c, json_t *obj, const char *optr, const char *key, int flags,
                 double def, double *out)
{
    json_t *v = json_object_get(obj, key);
    if (!v) {
        if (flags & MECH_REQ) {
            mech_err(c, optr, "missing required key '%s'", key);
            return -1;
        }
        *out = def;
        return 0;
    }
    char ptr[MECH_PTR_MAX];
    mech_ptr_key(ptr, optr, key);
    double x;
    if (mech_num(c, v, ptr, &x) != 0)
        return -1;
    if ((flags & MECH_POS) && !(x > 0)) {
        mech_err(c, ptr, "'%s' must be > 0, got %g", key, x);
        return -1;
    }
    if ((flags & MECH_NONNEG) && !(x >= 0)) {
        mech_err(c, ptr, "'%s' must be >= 0, got %g", key, x);
        return -1;
    }
    if ((flags & MECH_INT) && (x != floor(x) || fabs(x) > 1e9)) {
        mech_err(c, ptr, "'%s' must be an integer, got %g", key, x);
        return -1;
    }
    *out = x;
    return 1;
}

long mech_array(mech_ctx *c, json_t *v, const char *ptr, const char *what)
{
    if (!json_is_array(v)) {
        mech_err(c, ptr, "expected %s, got %s", what, mech_type_name(v));
        return -1;
    }
    size_t n = json_array_size(v);
    if (n > MECH_MAX_ITEMS) {
        mech_err(c, ptr, "too many entries (%zu; at most %d)", n, MECH_MAX_ITEMS);
        return -1;
    }
    return (long)n;
}

int mech_vec(mech_ctx *c, json_t *v, const char *ptr, int n, const char *what, double *out)
{
    if (!json_is_array(v)) {
        mech_err(c, ptr, "expected %s, got %s", what, mech_type_name(v));
        return -1;
    }
    if (json_array_size(v) != (size_t)n) {
        mech_err(c, ptr, "expected %s (%d numbers), got %zu entr%s", what, n,
                 json_array_size(v), json_array_size(v) == 1 ? "y" : "ies");
        return -1;
    }
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char ip[MECH_PTR_MAX];
        mech_ptr_idx(ip, ptr, (size_t)i);
        if (mech_num(c, json_array_get(v, (size_t)i), ip, &out[i]) != 0)
            rc = -1;
    }
    return rc;
}

/* ---- overrides -------------------------------------------------------------------------- */

/* Solver options: key, type, checks, where in mbs_solver_spec. */
typedef enum { S_NUM, S_INT, S_BOOL, S_ENUM } s_optkind;

static const char *const s_analysis_names[] = {"dynamics", "statics", "kinematics", NULL};
static const char *const s_integrator_names[] = {"trapezoidal_al", "bdf", "dopri5", NULL};

static const struct {
    const char *key;
    s_optkind kind;
    int flags;          /* MECH_* range checks                                */
    double lo, hi;      /* S_INT bounds                                       */
    size_t offset;
    const char *const *names; /* S_ENUM                                       */
    const char *doc;    /* for the missing-key message                       */
} s_opts[] = {
#define O(f) offsetof(mbs_solver_spec, f)
    {"analysis", S_ENUM, 0, 0, 0, O(analysis), s_analysis_names, NULL},
    {"integrator", S_ENUM, 0, 0, 0, O(integrator), s_integrator_names, NULL},
    {"t_end", S_NUM, MECH_REQ | MECH_POS, 0, 0, O(t_end), NULL, "the end time in s, > 0"},
    {"step", S_NUM, MECH_POS, 0, 0, O(step), NULL, NULL},
    {"max_step", S_NUM, MECH_NONNEG, 0, 0, O(max_step), NULL, NULL},
    {"min_step", S_NUM, MECH_POS, 0, 0, O(min_step), NULL, NULL},
    {"tolerance", S_NUM, MECH_POS, 0, 0, O(tolerance), NULL, NULL},
    {"abs_tolerance", S_NUM, MECH_POS, 0, 0, O(abs_tolerance), NULL, NULL},
    {"max_order", S_INT, 0, 1, 5, O(max_order), NULL, NULL},
    {"max_newton", S_INT, 0, 1, 1000, O(max_newton), NULL, NULL},
    {"penalty", S_NUM, MECH_POS, 0, 0, O(penalty), NULL, NULL},
    {"baumgarte_alpha", S_NUM, MECH_NONNEG, 0, 0, O(baumgarte_alpha), NULL, NULL},
    {"baumgarte_beta", S_NUM, MECH_NONNEG, 0, 0, O(baumgarte_beta), NULL, NULL},
    {"assembly_tolerance", S_NUM, MECH_POS, 0, 0, O(assembly_tolerance), NULL, NULL},
    {"max_assembly_iterations", S_INT, 0, 1, 10000, O(max_assembly_iterations), NULL, NULL},
    {"contact_deactivation", S_BOOL, 0, 0, 0, O(contact_deactivation), NULL, NULL},
    {"time_limit", S_NUM, MECH_NONNEG, 0, 0, O(time_limit), NULL, NULL},
#undef O
};
_Static_assert(sizeof(mbs_analysis) == sizeof(int) && sizeof(mbs_integrator) == sizeof(int),
               "enum options are stored as int");
#define S_NOPTS ((int)(sizeof s_opts / sizeof s_opts[0]))

static const char *const s_opt_keys[] = {
    "analysis", "integrator", "t_end", "step", "max_step", "min_step", "tolerance",
    "abs_tolerance", "max_order", "max_newton", "penalty", "baumgarte_alpha",
    "baumgarte_beta", "assembly_tolerance", "max_assembly_iterations",
    "contact_deactivation", "time_limit", NULL};

static int s_opt_index(const char *key)
{
    for (int i = 0; i < S_NOPTS; i++)
        if (strcmp(s_opts[i].key, key) == 0)
            return i;
    return -1;
}

/* Parse override text as a number; returns 0 and *x, or -1. */
static int s_text_number(const char *s, double *x)
{
    char *end;
    while (isspace((unsigned char)*s))
        s++;
    if (!*s)
        return -1;
    /* decimal numbers only (no hex, inf or nan) */
    for (const char *q = s; *q; q++)
        if (!(isdigit((unsigned char)*q) || strchr("+-.eE \t", *q)))
            return -1;
    *x = strtod(s, &end);
    while (isspace((unsigned char)*end))
        end++;
    return (*end || end == s || !isfinite(*x)) ? -1 : 0;
}

/* The JSON value an override's text stands for, for an option of kind
 * `kind` (names: enum names) or a parameter (kind S_NUM).  NULL when the
 * text does not fit (reported). */
static json_t *s_override_value(mech_ctx *c, const mech_override *o, s_optkind kind,
                                const char *const *names)
{
    char vb[48];
    double x;
    const char *t = o->value;
    if (kind == S_BOOL) {
        if (strcmp(t, "true") == 0 || strcmp(t, "1") == 0)
            return json_true();
        if (strcmp(t, "false") == 0 || strcmp(t, "0") == 0)
            return json_false();
        mech_err(c, "", "override '%s': invalid value '%s'; expected true or false", o->name,
                 s_clip(vb, sizeof vb, t, 32));
        return NULL;
    }
    if (kind == S_ENUM) {
        if (s_in_list(t, names))
            return json_string(t); /* names are ASCII */
        char list[120];
        size_t len = 0;
        list[0] = '\0';
        for (const char *const *a = names; *a; a++)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s",
                                    a == names ? "" : ", ", *a);
        mech_err(c, "", "override '%s': invalid value '%s'; expected one of: %s", o->name,
                 s_clip(vb, sizeof vb, t, 32), list);
        return NULL;
    }
    if (s_text_number(t, &x) == 0)
        return json_real(x);
    /* parameters and expressions are parsed like document values */
    if ((t[0] == '=' || t[0] == '$') && t[1]) {
        json_t *js = json_string(t);
        if (js)
            return js;
        mech_err(c, "", "override '%s': value is not valid UTF-8", o->name);
        return NULL;
    }
    mech_err(c, "", "override '%s': invalid value '%s'; expected a number or an "
             "\"=expression\"", o->name, s_clip(vb, sizeof vb, t, 32));
    return NULL;
}

/* Apply overrides to the document: a parameter's value or a solver option
 * is replaced by the override's value.  opt_ov[i] / c->poverride record which
 * override set what, so later errors point at the override. */
static void s_apply_overrides(mech_ctx *c, json_t *root, const mech_override *ov, int nov,
                              int *opt_ov)
{
    json_t *params = json_object_get(root, "parameters");
    json_t *solver = json_object_get(root, "solver");
    char nb[80];
    for (int i = 0; i < nov; i++) {
        const mech_override *o = &ov[i];
        if (!o->name || !o->value) {
            mech_err(c, "", "override %d has no name or no value", i);
            continue;
        }
        if (strncmp(o->name, "solver.", 7) == 0) {
            int k = s_opt_index(o->name + 7);
            if (k < 0) {
                const char *sug = mech_suggest(o->name + 7, s_opt_keys);
                mech_err(c, "", "unknown solver option '%s' in override%s%s%s",
                         s_clip(nb, sizeof nb, o->name + 7, 48), sug ? "; did you mean '" : "",
                         sug ? sug : "", sug ? "'?" : "");
                continue;
            }
            json_t *jv = s_override_value(c, o, s_opts[k].kind, s_opts[k].names);
            if (!jv)
                continue;
            if (json_is_object(solver)) {
                json_object_set_new(solver, s_opts[k].key, jv);
                opt_ov[k] = i + 1;
            } else {
                json_decref(jv);
            }
            continue;
        }
        json_t *cur = json_is_object(params) ? json_object_get(params, o->name) : NULL;
        if (!cur) {
            mech_err(c, "", "unknown parameter '%s' in override",
                     s_clip(nb, sizeof nb, o->name, 48));
            continue;
        }
        json_t *jv = s_override_value(c, o, S_NUM, NULL);
        if (jv)
            json_object_set_new(params, o->name, jv);
    }
}

/* ---- parameters ------------------------------------------------------------------------------ */

/* Dependencies recorded while compiling a parameter's expression. */
typedef struct {
    mech_ctx *c;
    int *deps;
    int n, cap;
    int oom;
} s_deps;

static int s_lookup_dep(const char *name, double *value, void *user)
{
    s_deps *d = user;
    int i = mech_map_get(&d->c->params, name);
    if (i < 0) {
        snprintf(d->c->unknown_param, sizeof d->c->unknown_param, "%s", name);
        return -1;
    }
    if (d->n == d->cap) {
        int ncap = d->cap ? 2 * d->cap : 8;
        int *nd = realloc(d->deps, (size_t)ncap * sizeof *nd);
        if (!nd) {
            d->oom = 1;
            return -1;
        }
        d->deps = nd;
        d->cap = ncap;
    }
    d->deps[d->n++] = i;
    *value = 1;
    return 0;
}

/* Pointer of parameter i, and the override prefix when one set it. */
static void s_param_where(mech_ctx *c, int i, char *ptr, const mech_override *ov)
{
    if (c->poverride[i]) {
        ptr[0] = '\0';
        snprintf(c->prefix, sizeof c->prefix, "override '%.60s': ",
                 ov[c->poverride[i] - 1].name);
    } else {
        mech_ptr_key(ptr, "/parameters", c->pname[i]);
        c->prefix[0] = '\0';
    }
}

/* Evaluate parameter i (its dependencies are done or failed). */
static void s_param_eval(mech_ctx *c, int i, const char *ptr)
{
    json_t *v = c->pjson[i];
    const char *s = json_string_value(v);
    const char *text = s[0] == '=' ? s + 1 : s;
    mbs_expr *e = mech_compile(c, text, 0, ptr);
    if (!e) {
        c->pstate[i] = MECH_P_FAILED;
        return;
    }
    double x = mbs_expr_eval(e, 0);
    mbs_expr_free(&e);
    if (!isfinite(x)) {
        s_not_finite(c, ptr, text, x);
        c->pstate[i] = MECH_P_FAILED;
        return;
    }
    c->pval[i] = x;
    c->pstate[i] = MECH_P_DONE;
}

/* Report the dependency cycles among the parameters still pending.  Every
 * pending parameter has a pending dependency; following them from any start
 * ends in a cycle. */
static void s_param_cycles(mech_ctx *c, int **deps, int *ndeps, const mech_override *ov)
{
    int *stamp = calloc((size_t)c->nparam, sizeof *stamp);
    if (!stamp) {
        mech_err(c, "/parameters", "out of memory");
        return;
    }
    for (int s = 0; s < c->nparam; s++) {
        if (c->pstate[s] != MECH_P_PENDING || stamp[s])
            continue;
        /* walk until a parameter repeats */
        int u = s;
        for (;;) {
            stamp[u] = s + 1;
            int next = -1;
            for (int k = 0; k < ndeps[u] && next < 0; k++)
                if (c->pstate[deps[u][k]] == MECH_P_PENDING)
                    next = deps[u][k];
            if (next < 0 || (stamp[next] && stamp[next] != s + 1))
                break; /* leads into a cycle reported before */
            if (stamp[next] == s + 1) {
                /* a new cycle: next -> ... -> next */
                char path[200];
                size_t len = 0;
                int w = next, steps = 0;
                do {
                    len += (size_t)snprintf(path + len, sizeof path - len, "%.40s -> ",
                                            c->pname[w]);
                    if (len >= sizeof path)
                        len = sizeof path - 1;
                    int nx = -1;
                    for (int k = 0; k < ndeps[w] && nx < 0; k++)
                        if (c->pstate[deps[w][k]] == MECH_P_PENDING &&
                            stamp[deps[w][k]] == s + 1)
                            nx = deps[w][k];
                    w = nx;
                } while (w >= 0 && w != next && ++steps < 1000000);
                snprintf(path + len, sizeof path - len, "%.40s", c->pname[next]);
                char ptr[MECH_PTR_MAX];
                s_param_where(c, next, ptr, ov);
                mech_err(c, ptr, "parameter cycle: %s", path);
                c->prefix[0] = '\0';
                break;
            }
            u = next;
        }
    }
    for (int s = 0; s < c->nparam; s++)
        if (c->pstate[s] == MECH_P_PENDING)
            c->pstate[s] = MECH_P_FAILED;
    free(stamp);
}

/* Read "parameters", apply overrides, evaluate in dependency order (Kahn). */
static void s_parse_params(mech_ctx *c, json_t *root, const mech_override *ov, int nov)
{
    json_t *params = json_object_get(root, "parameters");
    if (!params)
        return;
    if (!json_is_object(params)) {
        mech_err(c, "/parameters", "expected an object of name -> value, got %s",
                 mech_type_name(params));
        return;
    }
    size_t n = json_object_size(params);
    if (n > MECH_MAX_ITEMS) {
        mech_err(c, "/parameters", "too many parameters (%zu; at most %d)", n, MECH_MAX_ITEMS);
        return;
    }
    c->pname = calloc(n + 1, sizeof *c->pname);
    c->pjson = calloc(n + 1, sizeof *c->pjson);
    c->pval = calloc(n + 1, sizeof *c->pval);
    c->pstate = calloc(n + 1, sizeof *c->pstate);
    c->poverride = calloc(n + 1, sizeof *c->poverride);
    int **deps = calloc(n + 1, sizeof *deps);
    int *ndeps = calloc(n + 1, sizeof *ndeps);
    int *indeg = calloc(n + 1, sizeof *indeg);
    int *queue = calloc(n + 1, sizeof *queue);
    int *rstart = calloc(n + 2, sizeof *rstart);
    int *radj = NULL;
    if (!c->pname || !c->pjson || !c->pval || !c->pstate || !c->poverride || !deps ||
        !ndeps || !indeg || !queue || !rstart) {
        mech_err(c, "/parameters", "out of memory");
        goto done;
    }

    /* names, in document order */
    const char *key;
    json_t *val;
    int np = 0;
    char ptr[MECH_PTR_MAX], b[80];
    json_object_foreach(params, key, val) {
        int i = np++;
        c->pname[i] = key;
        c->pjson[i] = val;
        mech_ptr_key(ptr, "/parameters", key);
        if (!s_is_ident(key) || strlen(key) >= sizeof c->unknown_param) {
            mech_err(c, ptr, "invalid parameter name '%s': expected a letter or '_' then "
                     "letters, digits or '_' (at most 63)", s_clip(b, sizeof b, key, 48));
            c->pstate[i] = MECH_P_FAILED;
            continue;
        }
        if (mech_map_put(&c->params, key, i) == -2) {
            mech_err(c, ptr, "out of memory");
            c->pstate[i] = MECH_P_FAILED;
        }
    }
    c->nparam = np;
    for (int k = 0; k < nov; k++) {
        int i = ov[k].name ? mech_map_get(&c->params, ov[k].name) : -1;
        if (i >= 0 && strncmp(ov[k].name, "solver.", 7) != 0)
            c->poverride[i] = k + 1;
    }

    /* values: numbers now, expressions after their dependencies */
    int nedge = 0;
    for (int i = 0; i < np; i++) {
        if (c->pstate[i] != MECH_P_PENDING)
            continue;
        json_t *v = c->pjson[i];
        s_param_where(c, i, ptr, ov);
        if (json_is_number(v)) {
            c->pval[i] = json_number_value(v);
            c->pstate[i] = MECH_P_DONE;
        } else if (json_is_string(v) && json_string_length(v) == strlen(json_string_value(v)) &&
                   (json_string_value(v)[0] == '=' ||
                    (json_string_value(v)[0] == '$' && s_is_ident(json_string_value(v) + 1)))) {
            /* dependencies: compile once, recording the names it looks up */
            const char *s = json_string_value(v);
            s_deps d = {.c = c};
            char msg[200];
            c->unknown_param[0] = '\0';
            mbs_expr *e = mbs_expr_compile(s[0] == '=' ? s + 1 : s, 0, s_lookup_dep, &d, msg,
                                           sizeof msg);
            if (!e) {
                if (d.oom)
                    mech_err(c, ptr, "out of memory");
                else
                    s_report_compile(c, ptr, s[0] == '=' ? s + 1 : s, msg);
                free(d.deps);
                c->pstate[i] = MECH_P_FAILED;
            } else {
                mbs_expr_free(&e);
                deps[i] = d.deps;
                ndeps[i] = d.n;
                indeg[i] = d.n;
                nedge += d.n;
            }
        } else if (json_is_string(v)) {
            mech_err(c, ptr, "expected a number or an \"=expression\", got the string \"%s\"",
                     s_clip(b, sizeof b, json_string_value(v), 32));
            c->pstate[i] = MECH_P_FAILED;
        } else {
            mech_err(c, ptr, "expected a number or an \"=expression\", got %s",
                     mech_type_name(v));
            c->pstate[i] = MECH_P_FAILED;
        }
        c->prefix[0] = '\0';
    }

    /* reverse edges (who depends on whom) in compressed rows */
    radj = calloc((size_t)nedge + 1, sizeof *radj);
    if (!radj) {
        mech_err(c, "/parameters", "out of memory");
        goto done;
    }
    for (int i = 0; i < np; i++)
        for (int k = 0; k < ndeps[i]; k++)
            rstart[deps[i][k] + 1]++;
    for (int i = 0; i < np; i++)
        rstart[i + 1] += rstart[i];
    int *fill = indeg; /* reuse as a cursor below, then recompute */
    for (int i = 0; i < np; i++)
        fill[i] = 0;
    for (int i = 0; i < np; i++)
        for (int k = 0; k < ndeps[i]; k++) {
            int j = deps[i][k];
            radj[rstart[j] + fill[j]++] = i;
        }
    for (int i = 0; i < np; i++)
        indeg[i] = c->pstate[i] == MECH_P_PENDING ? ndeps[i] : 0;

    /* Kahn: evaluate each parameter once all it uses are settled */
    int qh = 0, qt = 0;
    for (int i = 0; i < np; i++)
        if (indeg[i] == 0)
            queue[qt++] = i;
    while (qh < qt) {
        int u = queue[qh++];
        if (c->pstate[u] == MECH_P_PENDING) {
            int dep_failed = 0;
            for (int k = 0; k < ndeps[u]; k++)
                dep_failed |= c->pstate[deps[u][k]] == MECH_P_FAILED;
            if (dep_failed) {
                c->pstate[u] = MECH_P_FAILED; /* the cause is reported */
            } else {
                s_param_where(c, u, ptr, ov);
                s_param_eval(c, u, ptr);
                c->prefix[0] = '\0';
            }
        }
        for (int k = rstart[u]; k < rstart[u + 1]; k++) {
            int w = radj[k];
            if (c->pstate[w] == MECH_P_PENDING && --indeg[w] == 0)
                queue[qt++] = w;
        }
    }
    s_param_cycles(c, deps, ndeps, ov);

done:
    if (deps)
        for (size_t i = 0; i < n; i++)
            free(deps[i]);
    free(deps);
    free(ndeps);
    free(indeg);
    free(queue);
    free(rstart);
    free(radj);
}

/* ---- solver ------------------------------------------------------------------------------------ */

static void s_parse_solver(mech_ctx *c, json_t *root, const int *opt_ov,
                           const mech_override *ov)
{
    json_t *solver = json_object_get(root, "solver");
    mbs_solver_spec *o = &c->spec->solver;
    if (!solver) {
        mech_err(c, "", "missing required key 'solver' (an object with at least 't_end')");
        return;
    }
    if (!json_is_object(solver)) {
        mech_err(c, "/solver", "expected an object, got %s", mech_type_name(solver));
        return;
    }
    mech_check_keys(c, solver, "/solver", s_opt_keys, NULL, NULL);
    for (int k = 0; k < S_NOPTS; k++) {
        json_t *v = json_object_get(solver, s_opts[k].key);
        char *field = (char *)o + s_opts[k].offset;
        if (!v) {
            if (s_opts[k].flags & MECH_REQ)
                mech_err(c, "/solver", "missing required key '%s' (%s)", s_opts[k].key,
                         s_opts[k].doc);
            continue;
        }
        /* a value set by an override is reported at the override */
        char ptr[MECH_PTR_MAX];
        if (opt_ov[k]) {
            ptr[0] = '\0';
            snprintf(c->prefix, sizeof c->prefix, "override '%.60s': ",
                     ov[opt_ov[k] - 1].name);
        } else {
            mech_ptr_key(ptr, "/solver", s_opts[k].key);
        }
        double x;
        switch (s_opts[k].kind) {
        case S_ENUM: {
            const char *s = json_string_value(v);
            int idx = -1;
            for (int j = 0; s && s_opts[k].names[j]; j++)
                if (strcmp(s, s_opts[k].names[j]) == 0)
                    idx = j;
            if (idx < 0) {
                char b[48];
                const char *const *nm = s_opts[k].names;
                mech_err(c, ptr, "invalid %s %s%s%s; expected \"%s\", \"%s\" or \"%s\"",
                         s_opts[k].key, s ? "'" : "", s ? s_clip(b, sizeof b, s, 32) : "(not a string)",
                         s ? "'" : "", nm[0], nm[1], nm[2]);
            } else {
                memcpy(field, &(int){idx}, sizeof(int));
            }
            break;
        }
        case S_BOOL:
            if (!json_is_boolean(v))
                mech_err(c, ptr, "'%s' must be true or false, got %s", s_opts[k].key,
                         mech_type_name(v));
            else
                memcpy(field, &(int){json_is_true(v) ? 1 : 0}, sizeof(int));
            break;
        case S_INT:
            if (mech_num(c, v, ptr, &x) != 0)
                break;
            if (x != floor(x) || x < s_opts[k].lo || x > s_opts[k].hi)
                mech_err(c, ptr, "'%s' must be an integer from %g to %g, got %g",
                         s_opts[k].key, s_opts[k].lo, s_opts[k].hi, x);
            else
                memcpy(field, &(int){(int)x}, sizeof(int));
            break;
        case S_NUM:
            if (mech_num(c, v, ptr, &x) != 0)
                break;
            if ((s_opts[k].flags & MECH_POS) && !(x > 0))
                mech_err(c, ptr, "'%s' must be > 0, got %g", s_opts[k].key, x);
            else if ((s_opts[k].flags & MECH_NONNEG) && !(x >= 0))
                mech_err(c, ptr, "'%s' must be >= 0, got %g", s_opts[k].key, x);
            else
                memcpy(field, &x, sizeof x);
            break;
        }
        c->prefix[0] = '\0';
    }
    /* consistency between options */
    if (o->step < o->min_step)
        mech_err(c, "/solver", "'step' (%g) must not be smaller than 'min_step' (%g)", o->step,
                 o->min_step);
    if (o->max_step > 0 && o->max_step < o->min_step)
        mech_err(c, "/solver", "'max_step' (%g) must not be smaller than 'min_step' (%g)",
                 o->max_step, o->min_step);
    c->t_end = o->t_end;
}

/* ---- top level ----------------------------------------------------------------------------------- */

static const char *const s_top_keys[] = {
    "name", "description", "dimension", "gravity", "parameters", "bodies", "joints",
    "forces", "drivers", "contacts", "solver", "outputs", NULL};

/* Deepest nesting of arrays and objects, counting brackets outside strings;
 * stops counting past `limit`. */
static int s_depth(const char *text, size_t len, int limit)
{
    int depth = 0, max = 0, in_str = 0;
    for (size_t i = 0; i < len; i++) {
        char ch = text[i];
        if (in_str) {
            if (ch == '\\')
                i++; /* skip the escaped character */
            else if (ch == '"')
                in_str = 0;
        } else if (ch == '"') {
            in_str = 1;
        } else if (ch == '[' || ch == '{') {
            if (++depth > max) {
                max = depth;
                if (max > limit)
                    return max;
            }
        } else if ((ch == ']' || ch == '}') && depth > 0) {
            depth--;
        }
    }
    return max;
}

/* "dimension": 2 or 3.  When it is missing or wrong, guess from the first
 * body's com (or the gravity) so the rest can still be checked. */
static void s_parse_dimension(mech_ctx *c, json_t *root)
{
    json_t *v = json_object_get(root, "dimension");
    if (json_is_integer(v) && (json_integer_value(v) == 2 || json_integer_value(v) == 3)) {
        c->dim = (int)json_integer_value(v);
        c->spec->dim = c->dim;
        return;
    }
    if (json_is_real(v) && (json_real_value(v) == 2 || json_real_value(v) == 3)) {
        c->dim = (int)json_real_value(v);
        c->spec->dim = c->dim;
        return;
    }
    if (!v)
        mech_err(c, "", "missing required key 'dimension' (2 for planar, 3 for spatial)");
    else
        mech_err(c, "/dimension", "'dimension' must be 2 (planar) or 3 (spatial)");
    json_t *b0 = json_array_get(json_object_get(root, "bodies"), 0);
    json_t *com = json_object_get(b0, "com");
    json_t *g = json_object_get(root, "gravity");
    if (json_is_array(com) && json_array_size(com) == 2)
        c->dim = 2;
    else if (!json_is_array(com) && json_is_array(g) && json_array_size(g) == 2)
        c->dim = 2;
    else
        c->dim = 3;
    c->spec->dim = c->dim;
}

static void s_parse_top(mech_ctx *c, json_t *root)
{
    json_t *v = json_object_get(root, "name");
    snprintf(c->spec->name, sizeof c->spec->name, "mechanism");
    if (v) {
        if (!json_is_string(v))
            mech_err(c, "/name", "expected a string, got %s", mech_type_name(v));
        else if (json_string_length(v) >= sizeof c->spec->name)
            mech_err(c, "/name", "name is too long (%zu bytes; at most %zu)",
                     json_string_length(v), sizeof c->spec->name - 1);
        else if (strlen(json_string_value(v)) != json_string_length(v))
            mech_err(c, "/name", "name contains a NUL character");
        else
            snprintf(c->spec->name, sizeof c->spec->name, "%s", json_string_value(v));
    }
    v = json_object_get(root, "description");
    if (v && !json_is_string(v))
        mech_err(c, "/description", "expected a string, got %s", mech_type_name(v));

    v = json_object_get(root, "gravity");
    if (v) {
        c->gravity_given = 1;
        double g[3] = {0, 0, 0};
        if (mech_vec(c, v, "/gravity", c->dim,
                     c->dim == 2 ? "a vector [gx, gy]" : "a vector [gx, gy, gz]", g) == 0)
            memcpy(c->spec->gravity, g, sizeof g);
    }

    v = json_object_get(root, "contacts");
    if (v) {
        if (!json_is_array(v))
            mech_err(c, "/contacts", "expected an array, got %s", mech_type_name(v));
        else if (json_array_size(v) > 0)
            mech_err(c, "/contacts", "contacts are not supported by this solver version; "
                     "remove them or leave the array empty");
    }
}

mbs_spec *mech_parse(const char *text, size_t len, const mech_override *ov, int nov,
                     mbs_errlist *err)
{
    mech_ctx c = {.err = err};
    if (!text && len) {
        mech_err(&c, "", "no document");
        return NULL;
    }
    if (!text)
        text = "";
    if (len > MECH_MAX_BYTES) {
        mech_err(&c, "", "document too large (%zu bytes; at most %u)", len, MECH_MAX_BYTES);
        return NULL;
    }
    /* jansson recurses per nesting level: refuse deep documents first */
    if (s_depth(text, len, MECH_MAX_DEPTH) > MECH_MAX_DEPTH) {
        mech_err(&c, "", "JSON nested too deeply (more than %d levels of arrays and objects)",
                 MECH_MAX_DEPTH);
        return NULL;
    }
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        mech_err(&c, "", "invalid JSON at line %d, column %d: %s", jerr.line, jerr.column,
                 jerr.text);
        return NULL;
    }
    if (!json_is_object(root)) {
        mech_err(&c, "", "a mechanism must be a JSON object, got %s", mech_type_name(root));
        json_decref(root);
        return NULL;
    }
    c.spec = mbs_spec_new();
    if (!c.spec) {
        mech_err(&c, "", "out of memory");
        json_decref(root);
        return NULL;
    }
    if (nov < 0 || (nov > 0 && !ov))
        nov = 0;

    /* the sections, in the order their values are needed */
    int opt_ov[S_NOPTS];
    memset(opt_ov, 0, sizeof opt_ov);
    mech_check_keys(&c, root, "", s_top_keys, NULL, NULL);
    s_parse_dimension(&c, root);
    s_apply_overrides(&c, root, ov, nov, opt_ov);
    s_parse_params(&c, root, ov, nov);
    s_parse_solver(&c, root, opt_ov, ov);
    s_parse_top(&c, root);
    mech_parse_bodies(&c, root);
    mech_parse_joints(&c, root);
    mech_parse_forces(&c, root);
    mech_parse_drivers(&c, root);
    mech_parse_outputs(&c, root);

    mbs_spec *spec = c.spec;
    if (c.nerr)
        mbs_spec_free(&spec);
    mech_map_free(&c.params);
    mech_map_free(&c.bodies);
    mech_map_free(&c.joints);
    mech_map_free(&c.forces);
    free(c.pname);
    free(c.pjson);
    free(c.pval);
    free(c.pstate);
    free(c.poverride);
    free(c.force_doc_to_spec);
    free(c.joint_driven);
    free(c.joint_damped);
    json_decref(root);
    return spec;
}
