/*
 * design.h - expansion of a sweep specification (DESIGN section 4) into jobs.
 *
 *   "design":     { "kind": grid|random|lhs|sobol|oat|list, "seed": n,
 *                   "samples": n (random, lhs, sobol), "scramble": bool (sobol),
 *                   "rows": [ {name: number, ...}, ... ] (list) }
 *   "parameters": { name: number                       fixed value
 *                 | { "values": [numbers] }            discrete levels
 *                 | { "min": a, "max": b, "levels": n, "default": d } }
 *   "solver":     { option: value | [values] }          crossed with every row
 *
 * Every design point (a row of parameter values) is crossed with every
 * combination of the solver options, the solver combinations varying fastest,
 * so contact_deactivation [true, false] gives adjacent pairs.  Same seed, same
 * jobs.  The library needs jansson only.
 */
#ifndef SVC_DESIGN_H
#define SVC_DESIGN_H

#include <jansson.h>

typedef struct {
    char pointer[128];  /* JSON pointer inside the sweep spec */
    char message[256];
} design_err;

enum { DESIGN_EINVAL = -1, DESIGN_ELIMIT = -2, DESIGN_EABORT = -3 };

/* Called for every job in order.  params: {name: number}; solver: {option:
 * value}; both borrowed (valid during the call).  Non-zero aborts. */
typedef int (*design_emit_fn)(long idx, json_t *params, json_t *solver, void *user);

/* Validate and expand `sweep`.  `defaults` is the model's "parameters" object
 * (names allowed and their defaults; NULL: any name allowed).  Returns the
 * number of jobs; DESIGN_EINVAL or DESIGN_ELIMIT (more than `limit` jobs)
 * with `err` filled; DESIGN_EABORT when emit returned non-zero.  emit may be
 * NULL to count and validate only. */
long design_expand(const json_t *sweep, const json_t *defaults, long limit,
                   design_emit_fn emit, void *user, design_err *err);

#endif
