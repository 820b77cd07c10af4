/*
 * jsonscan.h - a cheap pre-scan of untrusted JSON text before it reaches
 * jansson: nesting depth (jansson itself recurses without a limit we control)
 * and a sanity check of the byte length.
 */
#ifndef SVC_JSONSCAN_H
#define SVC_JSONSCAN_H

#include <stddef.h>

/* Maximum nesting of objects and arrays outside strings.  Returns the depth
 * reached, stopping early (returning max_depth + 1) once it is exceeded. */
int jsonscan_depth(const char *text, size_t len, int max_depth);

/* What a JSON text would expand to in memory, counted on the text (outside
 * strings) before any allocation: values (numbers, strings, literals,
 * objects and arrays) and containers (objects and arrays, the costly ones:
 * a jansson object with its hash table costs some 400 bytes, an empty {} in
 * the text 2).  Counting stops once either limit is exceeded. */
typedef struct {
    long values;        /* every value, containers included              */
    long containers;    /* objects and arrays                            */
} jsonscan_counts;

/* Count the text's values and containers; returns 1 when either exceeds
 * its limit (counts then partial), else 0. */
int jsonscan_count(const char *text, size_t len, long max_values, long max_containers,
                   jsonscan_counts *out);

#endif
