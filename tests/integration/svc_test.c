/*
 * svc_test.c - unit tests of common/svc: Sobol' points (unscrambled values
 * from the Joe-Kuo table, stratification of the scrambled ones), design
 * expansion (counts, order, reproducibility, limits, errors), the JSON depth
 * pre-scan, little-endian sample encoding and the response reductions.
 */
#include "svc/design.h"
#include "svc/jsonscan.h"
#include "svc/job.h"
#include "svc/msg.h"
#include "svc/sobol.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int s_fail;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #c); s_fail++; } } while (0)

static void test_sobol(void)
{
    /* the first points of dimensions 1..3, known values */
    static const double want[8][3] = { {0, 0, 0}, {.5, .5, .5}, {.75, .25, .25}, {.25, .75, .75},
                                       {.375, .375, .625}, {.875, .875, .125}, {.625, .125, .875}, {.125, .625, .375} };
    sobol_t s; double x[SOBOL_MAXDIM];
    CHECK(sobol_init(&s, 3, 0, 0) == 0);
    for (int i = 0; i < 8; i++) { sobol_next(&s, x); for (int j = 0; j < 3; j++) CHECK(x[j] == want[i][j]); }
    CHECK(sobol_init(&s, SOBOL_MAXDIM + 1, 0, 0) == -1);
    /* scrambled: 2^k points stay a (0,k,1)-net in every dimension (one per
       interval of width 2^-k), and differ between seeds */
    for (int seed = 1; seed <= 3; seed++) {
        int seen[SOBOL_MAXDIM][64] = { { 0 } };
        sobol_init(&s, SOBOL_MAXDIM, 1, (uint64_t)seed);
        for (int i = 0; i < 64; i++) {
            sobol_next(&s, x);
            for (int j = 0; j < SOBOL_MAXDIM; j++) { CHECK(x[j] >= 0 && x[j] < 1); seen[j][(int)(x[j] * 64)]++; }
        }
        for (int j = 0; j < SOBOL_MAXDIM; j++) for (int k = 0; k < 64; k++) CHECK(seen[j][k] == 1);
        /* pairs of dimensions: 16 points fill the 4x4 grid once ((0,4,2)-net, t = 0 for dims 1-2) */
        int grid[4][4] = { { 0 } };
        sobol_init(&s, 2, 1, (uint64_t)seed);
        for (int i = 0; i < 16; i++) { sobol_next(&s, x); grid[(int)(x[0] * 4)][(int)(x[1] * 4)]++; }
        for (int a = 0; a < 4; a++) for (int b = 0; b < 4; b++) CHECK(grid[a][b] == 1);
    }
}

typedef struct { int n; double first_L; json_t *rows; } collect;
static int s_collect(long idx, json_t *params, json_t *solver, void *user)
{
    collect *c = user;
    json_t *row = json_pack("{s:O,s:O}", "p", params, "s", solver);
    json_array_append_new(c->rows, row);
    c->n++;
    (void)idx;
    return 0;
}

static long s_expand(const char *spec, const char *defaults, long limit, collect *c, design_err *e)
{
    json_t *s = json_loads(spec, 0, NULL), *d = defaults ? json_loads(defaults, 0, NULL) : NULL;
    c->n = 0; c->rows = json_array();
    long n = design_expand(s, d, limit, s_collect, c, e);
    json_decref(s); json_decref(d);
    return n;
}

static void test_design(void)
{
    collect c, c2; design_err e;
    const char *defs = "{\"L\":1,\"m\":2}";
    /* grid x solver pairs: 3*2 rows x 2 = 12, solver fastest */
    CHECK(s_expand("{\"parameters\":{\"L\":{\"min\":1,\"max\":2,\"levels\":3},\"m\":{\"values\":[1,5]}},"
                   "\"solver\":{\"contact_deactivation\":[true,false]}}", defs, 100, &c, &e) == 12);
    CHECK(json_is_true(json_object_get(json_object_get(json_array_get(c.rows, 0), "s"), "contact_deactivation")));
    CHECK(json_is_false(json_object_get(json_object_get(json_array_get(c.rows, 1), "s"), "contact_deactivation")));
    CHECK(json_equal(json_object_get(json_array_get(c.rows, 0), "p"), json_object_get(json_array_get(c.rows, 1), "p")));
    CHECK(json_real_value(json_object_get(json_object_get(json_array_get(c.rows, 11), "p"), "L")) == 2);
    json_decref(c.rows);
    /* limit */
    CHECK(s_expand("{\"parameters\":{\"L\":{\"min\":1,\"max\":2,\"levels\":100},\"m\":{\"min\":1,\"max\":2,\"levels\":100}}}",
                   defs, 9999, &c, &e) == DESIGN_ELIMIT);
    json_decref(c.rows);
    /* reproducible random designs, different seeds differ; lhs stratified */
    const char *kinds[] = { "random", "lhs", "sobol" };
    for (int k = 0; k < 3; k++) {
        char spec[256], spec2[256];
        snprintf(spec, sizeof spec, "{\"design\":{\"kind\":\"%s\",\"samples\":16,\"seed\":7},\"parameters\":{\"L\":{\"min\":0,\"max\":1}}}", kinds[k]);
        snprintf(spec2, sizeof spec2, "{\"design\":{\"kind\":\"%s\",\"samples\":16,\"seed\":8},\"parameters\":{\"L\":{\"min\":0,\"max\":1}}}", kinds[k]);
        CHECK(s_expand(spec, defs, 100, &c, &e) == 16);
        CHECK(s_expand(spec, defs, 100, &c2, &e) == 16);
        CHECK(json_equal(c.rows, c2.rows));
        json_decref(c2.rows);
        CHECK(s_expand(spec2, defs, 100, &c2, &e) == 16);
        CHECK(!json_equal(c.rows, c2.rows));
        if (k > 0) { /* lhs and sobol: one point per 1/16 stratum */
            int seen[16] = { 0 };
            for (int i = 0; i < 16; i++)
                seen[(int)(16 * json_real_value(json_object_get(json_object_get(json_array_get(c.rows, i), "p"), "L")))]++;
            for (int i = 0; i < 16; i++) CHECK(seen[i] == 1);
        }
        json_decref(c.rows); json_decref(c2.rows);
    }
    /* oat: defaults, then each factor alone (default levels skipped) */
    CHECK(s_expand("{\"design\":{\"kind\":\"oat\"},\"parameters\":{\"L\":{\"values\":[1,2,3]},\"m\":{\"values\":[1,2]}}}",
                   defs, 100, &c, &e) == 4);
    json_decref(c.rows);
    /* list */
    CHECK(s_expand("{\"design\":{\"kind\":\"list\",\"rows\":[{\"L\":1},{\"L\":2,\"m\":3}]}}", defs, 100, &c, &e) == 2);
    json_decref(c.rows);
    /* errors with pointers */
    CHECK(s_expand("{\"parameters\":{\"Q\":{\"values\":[1]}}}", defs, 100, &c, &e) == DESIGN_EINVAL);
    CHECK(!strcmp(e.pointer, "/parameters/Q"));
    json_decref(c.rows);
    CHECK(s_expand("{\"design\":{\"kind\":\"sobol\"},\"parameters\":{\"L\":{\"min\":0,\"max\":1}}}", defs, 100, &c, &e) == DESIGN_EINVAL);
    CHECK(!strcmp(e.pointer, "/design/samples"));
    json_decref(c.rows);
    CHECK(s_expand("{\"design\":{\"kind\":\"grid\"},\"parameters\":{\"L\":{\"min\":0,\"max\":1}}}", defs, 100, &c, &e) == DESIGN_EINVAL);
    json_decref(c.rows);
}

static void test_misc(void)
{
    /* depth pre-scan ignores brackets inside strings */
    CHECK(jsonscan_depth("{\"a\":[[1]]}", 11, 10) == 3);
    CHECK(jsonscan_depth("{\"a\":\"[[[[[[\"}", 14, 3) == 1);
    CHECK(jsonscan_depth("[[[[[", 5, 3) == 4);
    /* little-endian round trip */
    double v[3] = { 1.5, -0.0, 1e-300 }, w[3]; unsigned char b[24];
    msg_put_f64le(b, v, 3);
    CHECK(b[6] == 0xf8 && b[7] == 0x3f); /* 1.5 = 0x3ff8000000000000 */
    msg_get_f64le(w, b, 3);
    CHECK(!memcmp(v, w, sizeof v));
    /* reductions over t = 0, 1, 2 and y = 0, 2, 1 */
    double rows[] = { 0, 0, 1, 2, 2, 1 };
    const char *names[] = { "y" };
    json_t *spec = json_loads("[{\"name\":\"a\",\"channel\":\"y\",\"reduce\":\"max\"},{\"name\":\"b\",\"channel\":\"y\",\"reduce\":\"min\"},"
                              "{\"name\":\"c\",\"channel\":\"y\",\"reduce\":\"final\"},{\"name\":\"d\",\"channel\":\"y\",\"reduce\":\"mean\"},"
                              "{\"name\":\"e\",\"channel\":\"y\",\"reduce\":\"rms\"},{\"name\":\"f\",\"channel\":\"y\",\"reduce\":\"argmax\"}]", 0, NULL);
    char ptr[64], msg[128];
    CHECK(job_responses_check(spec, names, 1, ptr, sizeof ptr, msg, sizeof msg) == 0);
    json_t *r = job_responses_eval(spec, names, 1, rows, 3);
    CHECK(json_real_value(json_object_get(r, "a")) == 2);
    CHECK(json_real_value(json_object_get(r, "b")) == 0);
    CHECK(json_real_value(json_object_get(r, "c")) == 1);
    CHECK(fabs(json_real_value(json_object_get(r, "d")) - 1.25) < 1e-15);   /* (1 + 1.5) / 2 */
    CHECK(fabs(json_real_value(json_object_get(r, "e")) - sqrt(2.25)) < 1e-15); /* (2 + 2.5) / 2 */
    CHECK(json_real_value(json_object_get(r, "f")) == 1);
    json_decref(r); json_decref(spec);
}

int main(void)
{
    test_sobol();
    test_design();
    test_misc();
    if (s_fail) { fprintf(stderr, "svc_test: %d check(s) failed\n", s_fail); return 1; }
    printf("svc_test: all checks passed\n");
    return 0;
}
