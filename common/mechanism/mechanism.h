/*
 * mechanism.h - the JSON mechanism format (api/mechanism.schema.json) to an
 * mbs_spec, with validation.
 *
 * Every problem is reported with the JSON pointer of the offending value and
 * as many problems as can be found are reported at once.  Unknown keys are
 * errors.  Parameters ("$name") and "=" expressions are evaluated here;
 * overrides replace parameter defaults by name, or set a solver option with
 * the name "solver.OPTION" (e.g. "solver.step", "solver.integrator").
 */
#ifndef MECHANISM_H
#define MECHANISM_H

#include <stddef.h>
#include "mbs/mbs.h"

typedef struct {
    const char *name;   /* parameter name, or "solver.OPTION"                  */
    const char *value;  /* text: a number, true/false, or an option's name     */
} mech_override;

/* Parse and validate a mechanism.  Returns a new spec (caller frees with
 * mbs_spec_free) or NULL with the errors in `err`. */
mbs_spec *mech_parse(const char *text, size_t len, const mech_override *ov, int nov,
                     mbs_errlist *err);

/* Limits applied while parsing (hostile input). */
#define MECH_MAX_BYTES   (16u << 20)  /* 16 MiB of JSON                        */
#define MECH_MAX_DEPTH   32           /* nesting depth                          */
#define MECH_MAX_ITEMS   100000       /* bodies, joints, ... each               */

#endif
