/*
 * fuzz_design.c - libFuzzer target for the sweep design expansion
 * (common/svc/design.c), which the gateway runs on every sweep a client
 * posts: validation, job count and the jobs themselves.
 *
 * The input is a sweep specification (examples/sweeps/ are the seeds); the
 * model's parameter defaults are taken from its "model_parameters" object
 * when it has one (names checked), else any name is allowed.  Whatever the
 * input, the expansion must return a count, an over-limit or an invalid
 * result with a pointer and a message: never crash, leak, hit UBSan or take
 * unbounded time (jobs limited to 20,000 as a gateway would be configured
 * for a small service), and the jobs emitted must match the count returned.
 * Mutations keep most inputs valid JSON (json_mutator.c).
 *
 *   make fuzz
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json_mutator.h"
#include "svc/design.h"

#define JOB_LIMIT 20000

typedef struct { long n, last; } count_t;

/* every job: indices in order, parameters and solver options as objects */
static int s_emit(long idx, json_t *params, json_t *solver, void *user)
{
    count_t *c = user;
    if (idx != c->last + 1 || !json_is_object(params) || !json_is_object(solver)) abort();
    c->last = idx;
    c->n++;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_error_t je;
    json_t *spec = json_loadb((const char *)data, size, 0, &je);
    if (!spec) return 0;
    json_t *defaults = json_object_get(spec, "model_parameters");
    if (!json_is_object(defaults)) defaults = NULL;
    design_err err;
    memset(&err, 0, sizeof err);
    long n = design_expand(spec, defaults, JOB_LIMIT, NULL, NULL, &err);
    if (n < 0) {
        /* refused: it says why */
        if (n != DESIGN_EINVAL && n != DESIGN_ELIMIT) abort();
        if (!err.message[0]) abort();
    } else {
        if (n > JOB_LIMIT) abort();
        count_t c = { 0, -1 };
        design_err err2;
        memset(&err2, 0, sizeof err2);
        long n2 = design_expand(spec, defaults, JOB_LIMIT, s_emit, &c, &err2);
        if (n2 != n || c.n != n) abort();     /* counting and emitting agree */
    }
    json_decref(spec);
    return 0;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    return json_mutate(data, size, max_size, seed);
}
