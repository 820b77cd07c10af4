/*
 * jsonout.h - JSON values written straight to a stream, for the gateway's
 * responses that are streamed row by row from PostgreSQL instead of being
 * built as jansson trees (tables, envelopes, samples).
 */
#ifndef SVC_JSONOUT_H
#define SVC_JSONOUT_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

/* A number in the fewest significant digits (15, 16 or 17) that read back as
 * the same double (0.1 as "0.1", not "0.10000000000000001"); null when it is
 * not finite (JSON has no NaN or infinity). */
void jsonout_real(FILE *f, double v);

/* The same digits into buf (at least 32 bytes); returns buf. */
char *jsonout_real_text(char *buf, double v);

/* json_dumps(j, flags) with every real number in the fewest digits that read
 * back as the same double (what jansson's 17 digits write as
 * 1.0000000000000001e-05 becomes 1e-05); a real stays a real in the text
 * ("1.0", not "1"), integers and strings are untouched.  For the texts the
 * service stores and answers with (job parameters, response bodies), not for
 * keys compared with other programs' dumps.  Free the result; NULL when
 * json_dumps fails. */
char *jsonout_dumps(const json_t *j, size_t flags);

/* A JSON string: quotes and backslashes escaped, newline, tab and carriage
 * return as \n \t \r, other control bytes as \u00XX; s is UTF-8 and passed
 * through otherwise. */
void jsonout_str(FILE *f, const char *s);

#endif
