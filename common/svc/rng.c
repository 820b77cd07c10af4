/* rng.c - xoshiro256** by Blackman and Vigna (public domain), see rng.h. */
#include "rng.h"

static uint64_t s_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void rng_seed(rng_t *r, uint64_t seed)
{
    /* splitmix64 spreads any seed (even 0) over the 256-bit state */
    for (int i = 0; i < 4; i++) {
        uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        r->s[i] = z ^ (z >> 31);
    }
}

uint64_t rng_next(rng_t *r)
{
    uint64_t *s = r->s;
    uint64_t result = s_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
    s[2] ^= t; s[3] = s_rotl(s[3], 45);
    return result;
}

double rng_uniform(rng_t *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }

uint64_t rng_below(rng_t *r, uint64_t n)
{
    /* rejection of the incomplete last block */
    uint64_t lim = UINT64_MAX - UINT64_MAX % n, x;
    do x = rng_next(r); while (x >= lim);
    return x % n;
}
