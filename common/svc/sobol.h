/*
 * sobol.h - Sobol' low-discrepancy points in up to SOBOL_MAXDIM dimensions,
 * with the direction numbers of Joe and Kuo (new-joe-kuo-6.21201), optionally
 * scrambled: a random lower-triangular linear matrix scramble of every
 * dimension's direction numbers (Matousek's variant of Owen scrambling)
 * followed by a random digital shift, both drawn from a seed.
 *
 * Points are generated in Gray-code order; the unscrambled sequence starts at
 * the origin (0, 0, ...), then (0.5, 0.5, ...).
 */
#ifndef SVC_SOBOL_H
#define SVC_SOBOL_H

#include <stdint.h>

#define SOBOL_MAXDIM 26
#define SOBOL_BITS   32

typedef struct {
    int dim;
    uint64_t index;                       /* points generated so far          */
    uint32_t v[SOBOL_MAXDIM][SOBOL_BITS]; /* direction numbers (dim x bits)   */
    uint32_t x[SOBOL_MAXDIM];             /* current point, integer form      */
    uint32_t shift[SOBOL_MAXDIM];         /* digital shift (0 if unscrambled) */
} sobol_t;

/* Prepare a generator.  Returns 0, or -1 if dim is outside 1..SOBOL_MAXDIM. */
int sobol_init(sobol_t *s, int dim, int scramble, uint64_t seed);

/* Write the next point (dim values in [0, 1)) into out. */
void sobol_next(sobol_t *s, double *out);

#endif
