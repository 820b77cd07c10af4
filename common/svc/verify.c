/* verify.c - see verify.h. */
#include "verify.h"
#include "rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Mixed into the design seed so that the choice of verified jobs does not
 * repeat the design's own random draws. */
#define VERIFY_SALT 0x7665726966790000ull   /* "verify" */

long verify_count(double f, long n)
{
    if (!(f > 0) || n <= 0) return 0;
    double x = f * (double)n;
    long k = (long)ceil(x);
    /* 0.1 x 30 = 3.0000000000000004 is 3 jobs, not 4 */
    if (k > 1 && x - (double)(k - 1) <= 1e-9 * x) k--;
    if (k < 1) k = 1;
    return k > n ? n : k;
}

static int s_cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return x < y ? -1 : x > y;
}

int verify_pick(uint64_t seed, long n, long k, long *out)
{
    if (k <= 0) return 0;
    if (k > n) k = n;
    long *perm = malloc(sizeof *perm * (size_t)n);
    if (!perm) return -1;
    rng_t r;
    rng_seed(&r, seed ^ VERIFY_SALT);
    for (long i = 0; i < n; i++) perm[i] = i;
    /* partial Fisher-Yates: the first k places get a uniform k-subset */
    for (long i = 0; i < k; i++) {
        long j = i + (long)rng_below(&r, (uint64_t)(n - i));
        long t = perm[i]; perm[i] = perm[j]; perm[j] = t;
    }
    memcpy(out, perm, sizeof *out * (size_t)k);
    free(perm);
    qsort(out, (size_t)k, sizeof *out, s_cmp_long);
    return 0;
}

int verify_fixed_step(const verify_solver_in *in)
{
    return in->step_set && in->integrator &&
           (!strcmp(in->integrator, "trapezoidal_al") || !strcmp(in->integrator, "moreau_jean"));
}

json_t *verify_solver(const json_t *solver, const verify_solver_in *in)
{
    json_t *o = solver ? json_deep_copy(solver) : json_object();
    if (!o) o = json_object();
    /* ten times tighter tolerances */
    json_object_set_new(o, "tolerance", json_real(in->tolerance / 10));
    if (in->abs_set && in->abs_tolerance > 0)
        json_object_set_new(o, "abs_tolerance", json_real(in->abs_tolerance / 10));
    /* fixed step: the error of an order-p method goes with h^p */
    if (verify_fixed_step(in) && in->step > 0) {
        double h = !strcmp(in->integrator, "trapezoidal_al") ? in->step / sqrt(10.0) : in->step / 10;
        json_object_set_new(o, "step", json_real(h));
        if (in->min_step > h) json_object_set_new(o, "min_step", json_real(h));
    }
    return o;
}

static json_t *s_num(double x) { return isfinite(x) ? json_real(x) : json_null(); }

json_t *verify_response_diff(const json_t *value, const json_t *reference)
{
    json_t *out = json_object(), *v;
    const char *k;
    json_object_foreach((json_t *)value, k, v) {
        json_t *r = json_object_get(reference, k);
        double a = json_is_number(v) ? json_number_value(v) : NAN;
        double b = json_is_number(r) ? json_number_value(r) : NAN;
        double abs_diff = fabs(a - b), rel = NAN;
        if (isfinite(abs_diff)) rel = abs_diff == 0 ? 0 : b != 0 ? abs_diff / fabs(b) : NAN;
        json_object_set_new(out, k, json_pack("{s:o,s:o,s:o,s:o}", "value", s_num(a), "reference", s_num(b),
                                              "abs_diff", s_num(abs_diff), "rel_diff", s_num(rel)));
    }
    return out;
}

json_t *verify_channel_diff(const json_t *channels_a, const double *rows_a, long nsample_a,
                            const json_t *channels_b, const double *rows_b, long nsample_b)
{
    size_t nch = json_array_size(channels_a), ncol = nch + 1;
    if (!json_is_array(channels_a) || !json_equal(channels_a, channels_b) || nsample_a != nsample_b ||
        nsample_a <= 0)
        return NULL;
    double *worst = calloc(nch + 1, sizeof *worst);
    for (long i = 0; i < nsample_a; i++) {
        /* the same output times (both runs sample at the output interval) */
        double ta = rows_a[i * ncol], tb = rows_b[i * ncol];
        if (!(fabs(ta - tb) <= 1e-9 * (1 + fabs(ta)))) { free(worst); return NULL; }
        for (size_t c = 1; c < ncol; c++) {
            double d = fabs(rows_a[i * ncol + c] - rows_b[i * ncol + c]);
            if (d > worst[c - 1] || isnan(d)) worst[c - 1] = d;
        }
    }
    json_t *out = json_object();
    for (size_t c = 0; c < nch; c++)
        json_object_set_new(out, json_string_value(json_array_get(channels_a, c)), s_num(worst[c]));
    free(worst);
    return out;
}
