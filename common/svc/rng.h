/*
 * rng.h - a small seeded random generator (xoshiro256**, seeded through
 * splitmix64) so that every sweep design is reproducible from its seed on
 * any machine.
 */
#ifndef SVC_RNG_H
#define SVC_RNG_H

#include <stdint.h>

typedef struct { uint64_t s[4]; } rng_t;

void rng_seed(rng_t *r, uint64_t seed);
uint64_t rng_next(rng_t *r);
/* Uniform double in [0, 1) with 53 random bits. */
double rng_uniform(rng_t *r);
/* Uniform integer in [0, n) (n > 0), without modulo bias. */
uint64_t rng_below(rng_t *r, uint64_t n);

#endif
