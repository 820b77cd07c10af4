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

#endif
