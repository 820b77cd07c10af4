/* design.c - see design.h. */
#include "design.h"
#include "rng.h"
#include "sobol.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One swept parameter. */
typedef struct {
    const char *name;
    int nlevel;          /* discrete levels (values, or min..max in levels)  */
    double *level;       /* (nlevel)                                          */
    int continuous;      /* min/max given: random designs draw in [min, max] */
    double min, max, def;
} factor;

typedef struct {
    const json_t *sweep, *defaults;
    const char *kind;
    uint64_t seed;
    int nfactor; factor *f;
    int nsolver; const char **sname; json_t **svals; /* option -> array    */
    long nrow;   double *row;                          /* nrow x nfactor     */
    const json_t *list_rows;                           /* kind = list        */
    design_err *err;
} ctx;

/* Fill err with a pointer built from `seg` (escaped) under `base`. */
static int s_fail(ctx *c, const char *base, const char *seg, const char *fmt, ...)
{
    char esc[96]; size_t k = 0;
    va_list ap;
    for (const char *p = seg; p && *p && k + 3 < sizeof esc; p++) {
        if (*p == '~') { esc[k++] = '~'; esc[k++] = '0'; }
        else if (*p == '/') { esc[k++] = '~'; esc[k++] = '1'; }
        else esc[k++] = *p;
    }
    esc[k] = 0;
    snprintf(c->err->pointer, sizeof c->err->pointer, "%s%s%s", base, seg ? "/" : "", esc);
    va_start(ap, fmt);
    vsnprintf(c->err->message, sizeof c->err->message, fmt, ap);
    va_end(ap);
    return DESIGN_EINVAL;
}

static int s_finite_number(const json_t *v) { return json_is_number(v) && isfinite(json_number_value(v)); }

/* Parse "parameters" into factors. */
static int s_factors(ctx *c)
{
    const json_t *ps = json_object_get(c->sweep, "parameters");
    const char *name; json_t *spec;
    if (!ps) return 0;
    if (!json_is_object(ps)) return s_fail(c, "/parameters", NULL, "must be an object");
    c->f = calloc(json_object_size(ps) + 1, sizeof *c->f);
    json_object_foreach((json_t *)ps, name, spec) {
        factor *f = &c->f[c->nfactor++];
        const json_t *dv = c->defaults ? json_object_get(c->defaults, name) : NULL;
        f->name = name;
        if (c->defaults && !dv) return s_fail(c, "/parameters", name, "unknown parameter (not in the model's parameters)");
        /* a plain number: fixed value */
        if (json_is_number(spec)) {
            if (!s_finite_number(spec)) return s_fail(c, "/parameters", name, "must be finite");
            f->nlevel = 1; f->level = malloc(sizeof(double));
            f->level[0] = f->def = f->min = f->max = json_number_value(spec);
            continue;
        }
        if (!json_is_object(spec)) return s_fail(c, "/parameters", name, "must be a number or an object");
        const char *key; json_t *v;
        json_object_foreach(spec, key, v)
            if (strcmp(key, "values") && strcmp(key, "min") && strcmp(key, "max") &&
                strcmp(key, "levels") && strcmp(key, "default"))
                return s_fail(c, "/parameters", name, "unknown key \"%s\"", key);
        const json_t *vals = json_object_get(spec, "values");
        const json_t *mn = json_object_get(spec, "min"), *mx = json_object_get(spec, "max");
        const json_t *lv = json_object_get(spec, "levels"), *df = json_object_get(spec, "default");
        if (vals) {
            /* explicit levels */
            if (mn || mx || lv) return s_fail(c, "/parameters", name, "give either values or min/max/levels");
            if (!json_is_array(vals) || json_array_size(vals) == 0 || json_array_size(vals) > 100000)
                return s_fail(c, "/parameters", name, "values must be a non-empty array");
            f->nlevel = (int)json_array_size(vals);
            f->level = malloc(sizeof(double) * f->nlevel);
            for (int i = 0; i < f->nlevel; i++) {
                const json_t *x = json_array_get(vals, i);
                if (!s_finite_number(x)) return s_fail(c, "/parameters", name, "values[%d] must be a finite number", i);
                f->level[i] = json_number_value(x);
            }
            f->min = f->level[0]; f->max = f->level[f->nlevel - 1];
        } else {
            /* a range, with levels for grid and oat */
            if (!s_finite_number(mn) || !s_finite_number(mx))
                return s_fail(c, "/parameters", name, "needs values, or finite min and max");
            f->min = json_number_value(mn); f->max = json_number_value(mx);
            if (f->min > f->max) return s_fail(c, "/parameters", name, "min > max");
            /* the width must be a finite number too: min + (max - min) u */
            if (!isfinite(f->max - f->min))
                return s_fail(c, "/parameters", name, "max - min overflows: the range is too wide");
            f->continuous = 1;
            /* levels checked as a 64-bit integer before it is narrowed */
            if (lv && (!json_is_integer(lv) || json_integer_value(lv) < 1 || json_integer_value(lv) > 100000))
                return s_fail(c, "/parameters", name, "levels must be an integer in 1..100000");
            f->nlevel = lv ? (int)json_integer_value(lv) : 0;
            if (f->nlevel > 0) {
                f->level = malloc(sizeof(double) * f->nlevel);
                for (int i = 0; i < f->nlevel; i++)
                    f->level[i] = f->nlevel == 1 ? f->min
                                  : f->min + (f->max - f->min) * i / (f->nlevel - 1);
            }
        }
        /* default: explicit, the model's, or the middle of the range */
        if (df && !s_finite_number(df)) return s_fail(c, "/parameters", name, "default must be a finite number");
        f->def = df ? json_number_value(df) : s_finite_number(dv) ? json_number_value(dv)
                                                                   : 0.5 * (f->min + f->max);
    }
    return 0;
}

/* Parse "solver" into options, each a non-empty array of values. */
static int s_solver(ctx *c)
{
    const json_t *so = json_object_get(c->sweep, "solver");
    const char *name; json_t *v;
    if (!so) return 0;
    if (!json_is_object(so)) return s_fail(c, "/solver", NULL, "must be an object");
    c->sname = calloc(json_object_size(so) + 1, sizeof *c->sname);
    c->svals = calloc(json_object_size(so) + 1, sizeof *c->svals);
    json_object_foreach((json_t *)so, name, v) {
        json_t *arr = json_is_array(v) ? json_incref(v) : json_pack("[O]", v);
        if (json_array_size(arr) == 0) { json_decref(arr); return s_fail(c, "/solver", name, "empty list"); }
        for (size_t i = 0; i < json_array_size(arr); i++) {
            json_t *x = json_array_get(arr, i);
            if (!(json_is_boolean(x) || json_is_string(x) || s_finite_number(x))) {
                json_decref(arr);
                return s_fail(c, "/solver", name, "values must be booleans, finite numbers or names");
            }
        }
        c->sname[c->nsolver] = name;
        c->svals[c->nsolver++] = arr;
    }
    return 0;
}

/* Number of samples of random designs. */
static long s_samples(ctx *c, const json_t *design, long limit)
{
    const json_t *n = json_object_get(design, "samples");
    if (!json_is_integer(n) || json_integer_value(n) < 1)
        return s_fail(c, "/design/samples", NULL, "a positive integer is required for %s", c->kind);
    if (json_integer_value(n) > limit) return limit + 1;
    return (long)json_integer_value(n);
}

/* Map u in [0,1) to a factor value (continuous range or a discrete level). */
static double s_pick(const factor *f, double u)
{
    if (f->continuous) return f->min + (f->max - f->min) * u;
    int i = (int)(u * f->nlevel);
    return f->level[i < f->nlevel ? i : f->nlevel - 1];
}

/* Build the design rows (c->row, c->nrow).  Returns 0, DESIGN_EINVAL, or
 * DESIGN_ELIMIT when the rows alone exceed the limit. */
static int s_rows(ctx *c, long limit)
{
    const json_t *design = json_object_get(c->sweep, "design");
    int nf = c->nfactor;
    rng_t r;
    rng_seed(&r, c->seed);
    if (!strcmp(c->kind, "grid") || !strcmp(c->kind, "oat")) {
        for (int j = 0; j < nf; j++)
            if (c->f[j].nlevel == 0)
                return s_fail(c, "/parameters", c->f[j].name, "levels (or values) required for %s", c->kind);
    }
    if (!strcmp(c->kind, "grid")) {
        /* full factorial, last factor fastest */
        double n = 1;
        for (int j = 0; j < nf; j++) n *= c->f[j].nlevel;
        if (n > limit) return DESIGN_ELIMIT;
        c->nrow = (long)n;
        c->row = malloc(sizeof(double) * (c->nrow * nf + 1));
        for (long i = 0; i < c->nrow; i++) {
            long q = i;
            for (int j = nf - 1; j >= 0; j--) {
                c->row[i * nf + j] = c->f[j].level[q % c->f[j].nlevel];
                q /= c->f[j].nlevel;
            }
        }
    } else if (!strcmp(c->kind, "oat")) {
        /* the defaults, then each factor alone through its levels */
        long n = 1;
        for (int j = 0; j < nf; j++) n += c->f[j].nlevel;
        if (n > limit) return DESIGN_ELIMIT;
        c->row = malloc(sizeof(double) * (n * nf + 1));
        for (int j = 0; j < nf; j++) c->row[j] = c->f[j].def;
        c->nrow = 1;
        for (int j = 0; j < nf; j++)
            for (int l = 0; l < c->f[j].nlevel; l++) {
                if (c->f[j].level[l] == c->f[j].def) continue;
                double *row = c->row + c->nrow * nf;
                for (int k = 0; k < nf; k++) row[k] = c->f[k].def;
                row[j] = c->f[j].level[l];
                c->nrow++;
            }
    } else if (!strcmp(c->kind, "random") || !strcmp(c->kind, "lhs") || !strcmp(c->kind, "sobol")) {
        long n = s_samples(c, design, limit);
        if (n < 0) return (int)n;
        if (n > limit) return DESIGN_ELIMIT;
        c->nrow = n;
        c->row = malloc(sizeof(double) * (n * nf + 1));
        if (!strcmp(c->kind, "random")) {
            for (long i = 0; i < n; i++)
                for (int j = 0; j < nf; j++) c->row[i * nf + j] = s_pick(&c->f[j], rng_uniform(&r));
        } else if (!strcmp(c->kind, "lhs")) {
            /* one random permutation of the n strata per factor, jittered */
            long *perm = malloc(sizeof(long) * n);
            for (int j = 0; j < nf; j++) {
                for (long i = 0; i < n; i++) perm[i] = i;
                for (long i = n - 1; i > 0; i--) {
                    long k = (long)rng_below(&r, (uint64_t)i + 1), t = perm[i];
                    perm[i] = perm[k]; perm[k] = t;
                }
                for (long i = 0; i < n; i++)
                    c->row[i * nf + j] = s_pick(&c->f[j], (perm[i] + rng_uniform(&r)) / n);
            }
            free(perm);
        } else {
            const json_t *sc = json_object_get(design, "scramble");
            sobol_t *s = malloc(sizeof *s);
            double u[SOBOL_MAXDIM];
            if (nf > SOBOL_MAXDIM) {
                free(s);
                return s_fail(c, "/parameters", NULL, "sobol supports at most %d parameters", SOBOL_MAXDIM);
            }
            sobol_init(s, nf > 0 ? nf : 1, sc ? json_is_true(sc) : 1, c->seed);
            for (long i = 0; i < n; i++) {
                sobol_next(s, u);
                for (int j = 0; j < nf; j++) c->row[i * nf + j] = s_pick(&c->f[j], u[j]);
            }
            free(s);
        }
    } else if (!strcmp(c->kind, "list")) {
        /* explicit rows: validated here, emitted as given */
        const json_t *rows = json_object_get(design, "rows");
        size_t i; json_t *row;
        if (!json_is_array(rows) || json_array_size(rows) == 0)
            return s_fail(c, "/design/rows", NULL, "a non-empty array of objects is required for list");
        if ((long)json_array_size(rows) > limit) return DESIGN_ELIMIT;
        json_array_foreach(rows, i, row) {
            const char *k; json_t *v;
            char base[48];
            snprintf(base, sizeof base, "/design/rows/%zu", i);
            if (!json_is_object(row)) return s_fail(c, base, NULL, "must be an object");
            json_object_foreach(row, k, v) {
                if (!s_finite_number(v)) return s_fail(c, base, k, "must be a finite number");
                if (c->defaults && !json_object_get(c->defaults, k)) return s_fail(c, base, k, "unknown parameter");
            }
        }
        c->list_rows = rows;
        c->nrow = (long)json_array_size(rows);
    } else {
        return s_fail(c, "/design/kind", NULL, "unknown design \"%s\" (grid, random, lhs, sobol, oat, list)", c->kind);
    }
    return 0;
}

/* Cross every row with every solver combination and emit. */
static long s_emit(ctx *c, long limit, design_emit_fn emit, void *user)
{
    double ncomb = 1;
    for (int k = 0; k < c->nsolver; k++) ncomb *= (double)json_array_size(c->svals[k]);
    if ((double)c->nrow * ncomb > limit) return DESIGN_ELIMIT;
    long total = (long)(c->nrow * ncomb), idx = 0;
    if (!emit) return total;
    for (long i = 0; i < c->nrow; i++) {
        json_t *params = c->list_rows ? json_deep_copy(json_array_get(c->list_rows, i)) : json_object();
        for (int j = 0; j < c->nfactor && !c->list_rows; j++)
            json_object_set_new(params, c->f[j].name, json_real(c->row[i * c->nfactor + j]));
        for (long m = 0; m < (long)ncomb; m++) {
            /* mixed radix over the solver options, the last fastest */
            json_t *solver = json_object();
            long q = m;
            for (int k = c->nsolver - 1; k >= 0; k--) {
                size_t nk = json_array_size(c->svals[k]);
                json_object_set(solver, c->sname[k], json_array_get(c->svals[k], q % nk));
                q /= (long)nk;
            }
            int rc = emit(idx++, params, solver, user);
            json_decref(solver);
            if (rc) { json_decref(params); return DESIGN_EABORT; }
        }
        json_decref(params);
    }
    return total;
}

long design_expand(const json_t *sweep, const json_t *defaults, long limit,
                   design_emit_fn emit, void *user, design_err *err)
{
    ctx c = { .sweep = sweep, .defaults = defaults, .err = err };
    const json_t *design = json_object_get(sweep, "design");
    long rc;
    memset(err, 0, sizeof *err);
    c.kind = "grid";
    /* the design object and its keys */
    if (design) {
        const char *k; json_t *v;
        if (!json_is_object(design)) { rc = s_fail(&c, "/design", NULL, "must be an object"); goto out; }
        json_object_foreach((json_t *)design, k, v)
            if (strcmp(k, "kind") && strcmp(k, "seed") && strcmp(k, "samples") &&
                strcmp(k, "scramble") && strcmp(k, "rows")) {
                rc = s_fail(&c, "/design", k, "unknown key");
                goto out;
            }
        const json_t *kind = json_object_get(design, "kind"), *seed = json_object_get(design, "seed");
        if (kind && !json_is_string(kind)) { rc = s_fail(&c, "/design/kind", NULL, "must be a string"); goto out; }
        if (kind) c.kind = json_string_value(kind);
        if (seed && (!json_is_integer(seed) || json_integer_value(seed) < 0)) {
            rc = s_fail(&c, "/design/seed", NULL, "must be a non-negative integer");
            goto out;
        }
        c.seed = seed ? (uint64_t)json_integer_value(seed) : 0;
    }
    if ((rc = s_factors(&c)) || (rc = s_solver(&c)) || (rc = s_rows(&c, limit))) goto out;
    rc = s_emit(&c, limit, emit, user);
out:
    if (rc == DESIGN_ELIMIT) {
        snprintf(err->pointer, sizeof err->pointer, "/design");
        snprintf(err->message, sizeof err->message, "the sweep expands to more than %ld jobs (the limit per sweep)", limit);
    }
    for (int j = 0; j < c.nfactor; j++) free(c.f[j].level);
    for (int k = 0; k < c.nsolver; k++) json_decref(c.svals[k]);
    free(c.f); free(c.sname); free(c.svals); free(c.row);
    return rc;
}
