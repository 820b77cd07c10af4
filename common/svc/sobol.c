/* sobol.c - see sobol.h. */
#include "sobol.h"
#include "rng.h"

#include <string.h>

/* Joe-Kuo table, dimensions 2..SOBOL_MAXDIM: degree s, coefficient a, m_1..m_s. */
static const struct { int s, a, m[8]; } s_jk[SOBOL_MAXDIM - 1] = {
    {1, 0, {1}},                 {2, 1, {1, 3}},              {3, 1, {1, 3, 1}},
    {3, 2, {1, 1, 1}},           {4, 1, {1, 1, 3, 3}},        {4, 4, {1, 3, 5, 13}},
    {5, 2, {1, 1, 5, 5, 17}},    {5, 4, {1, 1, 5, 5, 5}},     {5, 7, {1, 1, 7, 11, 19}},
    {5, 11, {1, 1, 5, 1, 1}},    {5, 13, {1, 1, 1, 3, 11}},   {5, 14, {1, 3, 5, 5, 31}},
    {6, 1, {1, 3, 3, 9, 7, 49}}, {6, 13, {1, 1, 1, 15, 21, 21}}, {6, 16, {1, 3, 1, 13, 27, 49}},
    {6, 19, {1, 1, 1, 15, 7, 5}}, {6, 22, {1, 3, 1, 15, 13, 25}}, {6, 25, {1, 1, 5, 5, 19, 61}},
    {7, 1, {1, 3, 7, 11, 23, 15, 103}}, {7, 4, {1, 3, 7, 13, 13, 15, 69}},
    {7, 7, {1, 1, 3, 13, 7, 35, 63}},   {7, 8, {1, 3, 5, 9, 1, 25, 53}},
    {7, 14, {1, 3, 1, 13, 9, 35, 107}}, {7, 19, {1, 3, 1, 5, 27, 61, 31}},
    {7, 21, {1, 1, 5, 11, 19, 41, 61}},
};

/* Direction numbers of dimension j (0-based) as 32-bit integers, MSB first. */
static void s_directions(int j, uint32_t *v)
{
    if (j == 0) {
        for (int k = 0; k < SOBOL_BITS; k++) v[k] = 1u << (31 - k);
        return;
    }
    int s = s_jk[j - 1].s;
    unsigned a = (unsigned)s_jk[j - 1].a;
    for (int k = 0; k < s && k < SOBOL_BITS; k++) v[k] = (uint32_t)s_jk[j - 1].m[k] << (31 - k);
    /* recurrence of the primitive polynomial x^s + a_1 x^(s-1) + ... + 1 */
    for (int k = s; k < SOBOL_BITS; k++) {
        uint32_t x = v[k - s] ^ (v[k - s] >> s);
        for (int i = 1; i < s; i++)
            if ((a >> (s - 1 - i)) & 1u) x ^= v[k - i];
        v[k] = x;
    }
}

/* Apply a random lower-triangular (unit diagonal) binary matrix to the bits
 * of every direction number: bit i of the result (MSB = bit 0) is the parity
 * of row i of L and the bits 0..i of the input. */
static void s_scramble(uint32_t *v, rng_t *r)
{
    uint32_t L[SOBOL_BITS];
    for (int i = 0; i < SOBOL_BITS; i++) {
        uint32_t above = (i == 0) ? 0 : (uint32_t)(rng_next(r) >> 32) & ~(0xffffffffu >> i);
        L[i] = above | (1u << (31 - i));
    }
    for (int k = 0; k < SOBOL_BITS; k++) {
        uint32_t y = 0;
        for (int i = 0; i < SOBOL_BITS; i++)
            if (__builtin_parity(L[i] & v[k])) y |= 1u << (31 - i);
        v[k] = y;
    }
}

int sobol_init(sobol_t *s, int dim, int scramble, uint64_t seed)
{
    rng_t r;
    if (dim < 1 || dim > SOBOL_MAXDIM) return -1;
    memset(s, 0, sizeof *s);
    s->dim = dim;
    rng_seed(&r, seed);
    for (int j = 0; j < dim; j++) {
        s_directions(j, s->v[j]);
        if (scramble) {
            s_scramble(s->v[j], &r);
            s->shift[j] = (uint32_t)(rng_next(&r) >> 32);
        }
    }
    return 0;
}

void sobol_next(sobol_t *s, double *out)
{
    /* Gray-code update: point i differs from point i-1 by one direction */
    if (s->index > 0) {
        int c = __builtin_ctzll(s->index);
        for (int j = 0; j < s->dim; j++) s->x[j] ^= s->v[j][c];
    }
    for (int j = 0; j < s->dim; j++)
        out[j] = (double)(s->x[j] ^ s->shift[j]) * 0x1.0p-32;
    s->index++;
}
