/*
 * fuzz_solve.c - libFuzzer target for the whole solver: every mechanism the
 * parser accepts is built and run for a short time.
 *
 * The parser's own target (fuzz_mechanism.c) stops at the spec; this one goes
 * on through the model build (natural coordinates, elimination, orderings),
 * the initial analyses and a run of 0.01 s with a wall-time limit, in the
 * formulation and integrator the input names.  Whatever the numbers (zero or
 * huge masses, coincident points, degenerate shapes, stiff springs, NaN-prone
 * functions of time), each stage must end with a result or with an error that
 * says why: never a crash, a hang, a leak or undefined behaviour (built with
 * ASan and UBSan, which abort on the first report).
 *
 * Each input runs as written and again in the relative formulation.
 * Inputs above 40 bodies, 64 shapes or 256 contact pairs are parsed only:
 * their build would take most of the time the fuzzer has for thousands of
 * small inputs (the examples' large models run in the solver suites).
 *
 * Mutations keep most inputs valid JSON (json_mutator.c): extreme numbers,
 * swapped names, removed keys and elements reach the model and the solver.
 *
 *   make fuzz   (both targets over tests/fuzz/corpus and examples/)
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "json_mutator.h"
#include "mbs/mbs.h"
#include "mechanism/mechanism.h"

/* Parse, build and run with the overrides; every failure must say why. */
static void s_run(const uint8_t *data, size_t size, const mech_override *ov, int nov)
{
    mbs_errlist err = {0};
    mbs_spec *spec = mech_parse((const char *)data, size, ov, nov, &err);
    if (!spec) {
        if (err.n == 0) abort();            /* a refusal always says why */
        return;
    }
    if (spec->nbody > 40 || spec->nshape > 64 || spec->ncontact > 256) {
        mbs_spec_free(&spec);
        return;
    }
    mbs_report rep;
    mbs_model *m = mbs_model_new(spec, &rep, &err);
    if (!m) {
        if (err.n == 0) abort();
        mbs_spec_free(&spec);
        return;
    }
    mbs_data *d = mbs_data_new(m);
    if (d) {
        mbs_result res;
        mbs_metrics met;
        mbs_errlist run_err = {0};
        int rc = mbs_simulate(m, d, &res, &met, NULL, NULL, &run_err);
        /* a failed run says why */
        if (rc != MBS_OK && run_err.n == 0) abort();
        mbs_result_free(&res);
        mbs_data_free(&d);
    }
    mbs_model_free(&m);
    mbs_spec_free(&spec);
}

/* Each input as it is, then in the relative formulation (refused with a
 * reason where it does not run the model), so that every mutated mechanism
 * reaches both formulations. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const mech_override ov[] = {{"solver.t_end", "0.01"}, {"solver.time_limit", "0.5"},
                                       {"solver.formulation", "relative"}, {"solver.integrator", "dopri5"}};
    s_run(data, size, ov, 2);
    s_run(data, size, ov, 4);
    return 0;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    return json_mutate(data, size, max_size, seed);
}
