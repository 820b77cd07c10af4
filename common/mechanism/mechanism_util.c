/*
 * mechanism_util.c - helpers shared by the mechanism parser's files
 * (mechanism_int.h): errors and JSON pointers, the name map, "did you mean"
 * suggestions, key checks, names, numbers, parameters and expressions.
 */
#include "mechanism/mechanism_int.h"

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
    /* an absent key (json_object_get gives NULL, which json_typeof reads) */
    if (!v) return "nothing (the key is missing)";
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
const char *mech_clip(char *buf, size_t size, const char *src, size_t max)
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

int mech_in_list(const char *key, const char *const *list)
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
        if (mech_in_list(key, allowed))
            continue;
        char kp[MECH_PTR_MAX], kb[64];
        mech_ptr_key(kp, ptr, key);
        mech_clip(kb, sizeof kb, key, 40);
        n++;
        if (known && mech_in_list(key, known)) {
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
            for (const char *const *a = allowed; *a; a++) {
                /* a list too long for the message ends with "..." rather
                 * than a cut name */
                if (len + strlen(*a) + 2 + 5 >= sizeof list) {
                    snprintf(list + len, sizeof list - len, ", ...");
                    break;
                }
                len += (size_t)snprintf(list + len, sizeof list - len, "%s%s",
                                        a == allowed ? "" : ", ", *a);
            }
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
                 mech_clip(b, sizeof b, s, 24), len, MBS_NAME_MAX - 1);
        return -1;
    }
    /* names end up in CSV headers and comma-separated lists */
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch < 0x20 || ch == 0x7f || ch == '"' || ch == ',' || ch == '\\') {
            char b[80];
            mech_err(c, ptr, "name '%s' contains a comma, quote, backslash or control "
                     "character, which names may not", mech_clip(b, sizeof b, s, 63));
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
void mech_report_compile(mech_ctx *c, const char *ptr, const char *text, const char *msg)
{
    char eb[48];
    const char *sug = c->unknown_param[0] ? mech_suggest_map(c->unknown_param, &c->params)
                                          : NULL;
    mech_clip(eb, sizeof eb, text, 32);
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
        mech_report_compile(c, ptr, text, msg);
    return e;
}

/* Report a non-finite value of an expression. */
void mech_not_finite(mech_ctx *c, const char *ptr, const char *text, double v)
{
    char eb[48];
    mech_err(c, ptr, "expression \"=%s\" evaluates to %s; expected a finite number",
             mech_clip(eb, sizeof eb, text, 32),
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
int mech_is_ident(const char *s)
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
        if (!mech_is_ident(s + 1) || json_string_length(v) != strlen(s)) {
            mech_err(c, ptr, "\"%s\" is not a parameter reference; write \"$name\", or "
                     "\"=...\" for an expression", mech_clip(b, sizeof b, s, 32));
            return -1;
        }
        int i = mech_map_get(&c->params, s + 1);
        if (i < 0 || c->pstate[i] == MECH_P_PENDING) {
            const char *sug = mech_suggest_map(s + 1, &c->params);
            if (sug)
                mech_err(c, ptr, "unknown parameter '%s'; did you mean '%s'?",
                         mech_clip(b, sizeof b, s + 1, 32), sug);
            else
                mech_err(c, ptr, "unknown parameter '%s' (not defined in \"parameters\")",
                         mech_clip(b, sizeof b, s + 1, 32));
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
            mech_not_finite(c, ptr, s + 1, x);
            return -1;
        }
        *out = x;
        return 0;
    }
    mech_err(c, ptr, "expected a number, a \"$parameter\" or an \"=expression\", got the "
             "string \"%s\"", mech_clip(b, sizeof b, s, 32));
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

