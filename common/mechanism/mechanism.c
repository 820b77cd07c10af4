/*
 * mechanism.c - the JSON mechanism format to an mbs_spec (mechanism.h).
 *
 * This file holds the entry point (size and depth limits, JSON parsing,
 * top-level keys), the overrides, the parameters with their dependency
 * order and the solver options.  Bodies and joints are in
 * mechanism_model.c, force elements and drivers in mechanism_forces.c,
 * contact shapes and pairs in mechanism_contacts.c, functions of time in
 * mechanism_fn.c, outputs in mechanism_out.c, and the shared helpers
 * (errors, pointers, numbers, expressions) in mechanism_util.c.
 *
 * Every check reports at the JSON pointer of the offending value and parsing
 * goes on, so one pass finds as many problems as it can.
 */
#include "mechanism/mechanism_int.h"
#include "mbs/formulation/relative/tree.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- overrides -------------------------------------------------------------------------- */

/* Solver options: key, type, checks, where in mbs_solver_spec. */
typedef enum { S_NUM, S_INT, S_BOOL, S_ENUM } s_optkind;

static const char *const s_analysis_names[] = {"dynamics", "statics", "kinematics", NULL};
static const char *const s_integrator_names[] = {"trapezoidal_al", "bdf", "dopri5", "moreau_jean", "event_driven",
                                                NULL};
static const char *const s_lcp_names[] = {"auto", "lemke", "pgs", NULL};
static const char *const s_formulation_names[] = {"natural", "relative", NULL};

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
    {"contact_force_unknowns", S_BOOL, 0, 0, 0, O(contact_force_unknowns), NULL, NULL},
    {"time_limit", S_NUM, MECH_NONNEG, 0, 0, O(time_limit), NULL, NULL},
    {"lcp_solver", S_ENUM, 0, 0, 0, O(lcp_solver), s_lcp_names, NULL},
    {"lcp_lemke_max", S_INT, 0, 1, 2000, O(lcp_lemke_max), NULL, NULL},
    {"lcp_tolerance", S_NUM, MECH_POS, 0, 0, O(lcp_tolerance), NULL, NULL},
    {"lcp_max_iterations", S_INT, 0, 1, 1000000, O(lcp_max_iterations), NULL, NULL},
    {"lcp_regularization", S_NUM, MECH_NONNEG, 0, 0, O(lcp_regularization), NULL, NULL},
    {"formulation", S_ENUM, 0, 0, 0, O(formulation), s_formulation_names, NULL},
    {"energy_projection", S_BOOL, 0, 0, 0, O(energy_projection), NULL, NULL},
#undef O
};
_Static_assert(sizeof(mbs_analysis) == sizeof(int) && sizeof(mbs_integrator) == sizeof(int) &&
               sizeof(mbs_lcp_choice) == sizeof(int) && sizeof(mbs_formulation_kind) == sizeof(int),
               "enum options are stored as int");
#define S_NOPTS ((int)(sizeof s_opts / sizeof s_opts[0]))

static const char *const s_opt_keys[] = {
    "analysis", "integrator", "t_end", "step", "max_step", "min_step", "tolerance",
    "abs_tolerance", "max_order", "max_newton", "penalty", "baumgarte_alpha",
    "baumgarte_beta", "assembly_tolerance", "max_assembly_iterations",
    "contact_deactivation", "contact_force_unknowns", "time_limit", "lcp_solver", "lcp_lemke_max", "lcp_tolerance",
    "lcp_max_iterations", "lcp_regularization", "formulation", "energy_projection", NULL};

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
    char vb[48], nb[64];
    const char *name = mech_clip(nb, sizeof nb, o->name, 48);
    double x;
    const char *t = o->value;
    if (kind == S_BOOL) {
        if (strcmp(t, "true") == 0 || strcmp(t, "1") == 0)
            return json_true();
        if (strcmp(t, "false") == 0 || strcmp(t, "0") == 0)
            return json_false();
        mech_err(c, "", "override '%s': invalid value '%s'; expected true or false", name,
                 mech_clip(vb, sizeof vb, t, 32));
        return NULL;
    }
    if (kind == S_ENUM) {
        if (mech_in_list(t, names))
            return json_string(t); /* names are ASCII */
        char list[120];
        size_t len = 0;
        list[0] = '\0';
        for (const char *const *a = names; *a && len + 2 < sizeof list; a++)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s",
                                    a == names ? "" : ", ", *a);
        mech_err(c, "", "override '%s': invalid value '%s'; expected one of: %s", name,
                 mech_clip(vb, sizeof vb, t, 32), list);
        return NULL;
    }
    if (s_text_number(t, &x) == 0)
        return json_real(x);
    /* parameters and expressions are parsed like document values */
    if ((t[0] == '=' || t[0] == '$') && t[1]) {
        json_t *js = json_string(t);
        if (js)
            return js;
        mech_err(c, "", "override '%s': value is not valid UTF-8", name);
        return NULL;
    }
    mech_err(c, "", "override '%s': invalid value '%s'; expected a number or an "
             "\"=expression\"", name, mech_clip(vb, sizeof vb, t, 32));
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
                         mech_clip(nb, sizeof nb, o->name + 7, 48), sug ? "; did you mean '" : "",
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
                     mech_clip(nb, sizeof nb, o->name, 48));
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
        char nb[64];
        snprintf(c->prefix, sizeof c->prefix, "override '%s': ",
                 mech_clip(nb, sizeof nb, ov[c->poverride[i] - 1].name, 48));
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
        mech_not_finite(c, ptr, text, x);
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
        if (!mech_is_ident(key) || strlen(key) >= sizeof c->unknown_param) {
            mech_err(c, ptr, "invalid parameter name '%s': expected a letter or '_' then "
                     "letters, digits or '_' (at most 63)", mech_clip(b, sizeof b, key, 48));
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
                    (json_string_value(v)[0] == '$' && mech_is_ident(json_string_value(v) + 1)))) {
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
                    mech_report_compile(c, ptr, s[0] == '=' ? s + 1 : s, msg);
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
                     mech_clip(b, sizeof b, json_string_value(v), 32));
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
    c->integrator_named = json_object_get(solver, "integrator") != NULL;
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
            char nb[64];
            snprintf(c->prefix, sizeof c->prefix, "override '%s': ",
                     mech_clip(nb, sizeof nb, ov[opt_ov[k] - 1].name, 48));
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
                if (!nm[2])
                    mech_err(c, ptr, "invalid %s %s%s%s; expected \"%s\" or \"%s\"", s_opts[k].key,
                             s ? "'" : "", s ? mech_clip(b, sizeof b, s, 32) : "(not a string)",
                             s ? "'" : "", nm[0], nm[1]);
                else
                    mech_err(c, ptr, "invalid %s %s%s%s; expected \"%s\", \"%s\" or \"%s\"",
                             s_opts[k].key, s ? "'" : "", s ? mech_clip(b, sizeof b, s, 32) : "(not a string)",
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
    "forces", "drivers", "shapes", "contacts", "controllers", "solver", "outputs", NULL};

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
}

/* solver.formulation "relative" (issue 12): dopri5 (the default there), bdf,
 * moreau_jean or event_driven integrate it (another one named is refused), and what the formulation
 * does not run yet is refused with the reason (mbs_rtree_supported). */
static void s_check_relative(mech_ctx *c)
{
    mbs_solver_spec *o = &c->spec->solver;
    if (!c->integrator_named)
        o->integrator = MBS_INT_DOPRI5;
    else if (o->integrator != MBS_INT_DOPRI5 && o->integrator != MBS_INT_BDF && o->integrator != MBS_INT_MOREAU_JEAN &&
             o->integrator != MBS_INT_EVENT_DRIVEN)
        mech_err(c, "/solver/integrator", "solver.formulation \"relative\" integrates with dopri5, bdf, "
                 "moreau_jean or event_driven only, not '%s': set solver.integrator to \"dopri5\" (the default "
                 "there), \"bdf\", or \"moreau_jean\" or \"event_driven\" (rigid contacts)",
                 mbs_integrator_name(o->integrator));
    mbs_errlist *el = calloc(1, sizeof *el);
    if (!el) {
        mech_err(c, "", "out of memory");
        return;
    }
    if (mbs_rtree_supported(c->spec, el) != 0)
        for (int i = 0; i < el->n; i++) {
            /* its pointers name spec->forces entries: the document's index
             * differs when joint_damping or gravity entries come before */
            char ptr[MECH_PTR_MAX];
            const char *p = el->e[i].pointer;
            int si = -1, used = 0;
            if (c->force_doc_to_spec && sscanf(p, "/forces/%d%n", &si, &used) == 1 && si >= 0) {
                for (int d = 0; d < c->nforce_doc; d++)
                    if (c->force_doc_to_spec[d] == si) {
                        snprintf(ptr, sizeof ptr, "/forces/%d%s", d, p + used);
                        p = ptr;
                        break;
                    }
            }
            mech_err(c, p, "%s", el->e[i].message);
        }
    free(el);
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
    mech_register_controllers(&c, root);
    mech_parse_forces(&c, root);
    mech_parse_drivers(&c, root);
    mech_parse_contacts(&c, root);
    if (!c.nerr)
        mech_expand_clearance(&c);
    mech_parse_controllers(&c, root);
    mech_parse_outputs(&c, root);
    if (!c.nerr && c.spec->solver.formulation == MBS_FORM_RELATIVE)
        s_check_relative(&c);

    mbs_spec *spec = c.spec;
    if (c.nerr)
        mbs_spec_free(&spec);
    mech_map_free(&c.params);
    mech_map_free(&c.bodies);
    mech_map_free(&c.joints);
    mech_map_free(&c.forces);
    mech_map_free(&c.ctrls);
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
