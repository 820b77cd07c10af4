/*
 * sweep_verify.c - the verification plan of a new sweep ("verify": f, see
 * common/svc/verify.h): which design jobs get a verification job, and that
 * job's solver overrides.
 *
 * The tolerances and the step a job runs with are those of the solver after
 * a parse of the model with the job's overrides (the parser knows the
 * defaults, e.g. moreau_jean with rigid contacts, and evaluates expressions);
 * the parse is cached by the job's solver overrides (and its parameters too
 * when the model's solver section holds expressions), so a sweep crossing
 * few solver settings parses the model a few times, not once per job.
 */
#include "gw.h"
#include "mechanism/mechanism.h"
#include "svc/design.h"
#include "svc/job.h"
#include "svc/verify.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *def;         /* the model's definition (JSON text)            */
    json_t *def_solver;      /* its "solver" object (borrowed)                */
    int solver_exprs;        /* that object holds "$name" or "=..." strings   */
    const long *pick;        /* design indices to verify, increasing (k)      */
    long k, next, n;
    json_t *cache;           /* {key: effective options or null}              */
    json_t *plan;            /* [{idx, vidx, solver}]                         */
} plan_ctx;

/* The solver options in force for one job, or NULL when the model does not
 * parse with its overrides (that job is not verified: it fails anyway). */
static json_t *s_effective(plan_ctx *c, const json_t *params, const json_t *solver)
{
    job_overrides ov;
    mbs_errlist *el = calloc(1, sizeof *el);
    job_overrides_build(params, solver, &ov);
    mbs_spec *spec = el ? mech_parse(c->def, strlen(c->def), ov.ov, ov.n, el) : NULL;
    job_overrides_free(&ov);
    free(el);
    if (!spec) return NULL;
    mbs_solver_spec dflt, *o = &spec->solver;
    mbs_solver_defaults(&dflt);
    json_t *eff = json_pack("{s:s,s:f,s:f,s:f,s:f}", "integrator", mbs_integrator_name(o->integrator),
                            "tolerance", o->tolerance > 0 ? o->tolerance : dflt.tolerance,
                            "abs_tolerance", o->abs_tolerance, "step", o->step, "min_step", o->min_step);
    mbs_spec_free(&spec);
    return eff;
}

/* design_emit_fn: a plan entry for each chosen design index. */
static int s_emit(long idx, json_t *params, json_t *solver, void *user)
{
    plan_ctx *c = user;
    if (c->next >= c->k) return 1;              /* all chosen: stop the expansion */
    if (idx != c->pick[c->next]) return 0;
    c->next++;
    char *key = json_dumps(solver, JSON_COMPACT | JSON_SORT_KEYS);
    if (c->solver_exprs) {
        char *p = json_dumps(params, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
        size_t len = strlen(key) + strlen(p) + 2;
        char *both = malloc(len);
        snprintf(both, len, "%s|%s", key, p);
        free(key); free(p);
        key = both;
    }
    json_t *eff = json_object_get(c->cache, key);
    if (!eff) {
        eff = s_effective(c, params, solver);
        if (!eff) eff = json_null();
        json_object_set_new(c->cache, key, eff);
    }
    free(key);
    if (json_is_null(eff)) return 0;
    verify_solver_in in = {
        .integrator = json_string_value(json_object_get(eff, "integrator")),
        .tolerance = json_real_value(json_object_get(eff, "tolerance")),
        .abs_tolerance = json_real_value(json_object_get(eff, "abs_tolerance")),
        .step = json_real_value(json_object_get(eff, "step")),
        .min_step = json_real_value(json_object_get(eff, "min_step")),
        /* set by the user: in the job's solver overrides or in the model */
        .abs_set = json_object_get(solver, "abs_tolerance") || json_object_get(c->def_solver, "abs_tolerance"),
        .step_set = json_object_get(solver, "step") || json_object_get(c->def_solver, "step"),
    };
    json_array_append_new(c->plan, json_pack("{s:I,s:I,s:o}", "idx", (json_int_t)idx,
                                             "vidx", (json_int_t)(c->n + (long)json_array_size(c->plan)),
                                             "solver", verify_solver(solver, &in)));
    return 0;
}

/* Does the solver object hold parameter references or expressions? */
static int s_has_exprs(const json_t *solver)
{
    const char *k; json_t *v;
    json_object_foreach((json_t *)solver, k, v) {
        const char *s = json_string_value(v);
        if (s && (s[0] == '$' || s[0] == '=')) return 1;
    }
    return 0;
}

/* The plan: [{"idx": design index, "vidx": the verification job's index
 * (n, n+1, ...), "solver": its overrides}] for ceil(f n) design jobs chosen
 * from the design's seed (fewer when some do not parse).  spec has been
 * validated and expanded to n jobs.  Caller owns the result; NULL when
 * memory runs out. */
json_t *gw_verify_plan(const json_t *spec, const json_t *defaults, const char *def, long n, long limit)
{
    json_t *v = json_object_get(spec, "verify"), *plan = json_array();
    double f = json_is_number(v) ? json_number_value(v) : 0;
    long k = verify_count(f, n);
    if (k == 0) return plan;
    json_t *seed = json_object_get(json_object_get(spec, "design"), "seed");
    long *pick = malloc(sizeof *pick * (size_t)k);
    json_t *root = json_loads(def, 0, NULL);
    if (!pick || !root ||
        verify_pick((uint64_t)(json_is_integer(seed) ? json_integer_value(seed) : 0), n, k, pick)) {
        free(pick); json_decref(root); json_decref(plan);
        return NULL;
    }
    plan_ctx c = { .def = def, .def_solver = json_object_get(root, "solver"), .pick = pick, .k = k, .n = n,
                   .cache = json_object(), .plan = plan };
    c.solver_exprs = s_has_exprs(c.def_solver);
    design_err de;
    design_expand(spec, defaults, limit, s_emit, &c, &de);
    json_decref(c.cache); json_decref(root);
    free(pick);
    return plan;
}
