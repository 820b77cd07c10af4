/*
 * jsonout.h - JSON values written straight to a stream, for the gateway's
 * responses that are streamed row by row from PostgreSQL instead of being
 * built as jansson trees (tables, envelopes, samples).
 */
#ifndef SVC_JSONOUT_H
#define SVC_JSONOUT_H

#include <stdio.h>

/* A number in the fewest significant digits (15, 16 or 17) that read back as
 * the same double (0.1 as "0.1", not "0.10000000000000001"); null when it is
 * not finite (JSON has no NaN or infinity). */
void jsonout_real(FILE *f, double v);

/* A JSON string: quotes and backslashes escaped, newline, tab and carriage
 * return as \n \t \r, other control bytes as \u00XX; s is UTF-8 and passed
 * through otherwise. */
void jsonout_str(FILE *f, const char *s);

#endif
