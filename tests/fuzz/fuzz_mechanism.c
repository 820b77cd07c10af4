/*
 * fuzz_mechanism.c - libFuzzer target for the mechanism parser.
 *
 * Each input is parsed twice: as it is, and with one solver override.  The
 * parser must never crash, hang or leak, whatever the bytes; a spec it
 * returns must be freed cleanly and hold sane counts.
 *
 *   make fuzz   (build/fuzz_mechanism over tests/fuzz/corpus and examples/)
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "mechanism/mechanism.h"

/* Parse once; check the result is consistent and free it. */
static void s_run(const uint8_t *data, size_t size, const mech_override *ov, int nov)
{
    mbs_errlist err = {0};
    mbs_spec *spec = mech_parse((const char *)data, size, ov, nov, &err);
    /* a spec and errors are exclusive; a failure always says why */
    if (spec && err.n != 0)
        abort();
    if (!spec && err.n == 0)
        abort();
    if (err.n > MBS_ERR_MAX || err.dropped < 0)
        abort();
    if (spec) {
        if (spec->nbody <= 0 || (spec->dim != 2 && spec->dim != 3) || !(spec->solver.t_end > 0))
            abort();
        /* evaluate every function of time once (exercises mbs_fn_eval) */
        for (int i = 0; i < spec->ndriver; i++)
            (void)mbs_fn_eval(&spec->drivers[i].motion, 0.5, NULL, NULL);
        for (int i = 0; i < spec->nforce; i++)
            for (int k = 0; k < 3; k++) {
                double d, dd;
                (void)mbs_fn_eval(&spec->forces[i].value[k], 0.25, &d, &dd);
            }
    }
    mbs_spec_free(&spec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const mech_override ov[] = {{"solver.step", "0.01"}};
    s_run(data, size, NULL, 0);
    s_run(data, size, ov, 1);
    return 0;
}
