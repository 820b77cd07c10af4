/*
 * svc_test.c - unit tests of common/svc: Sobol' points (unscrambled values
 * from the Joe-Kuo table, stratification of the scrambled ones), design
 * expansion (counts, order, reproducibility, limits, errors), the JSON depth
 * pre-scan, little-endian sample encoding, the response reductions, the
 * metrics as JSON (accuracy fields included) and the verification helpers
 * (how many jobs, which ones, their solver options, the differences).
 */
#include "svc/design.h"
#include "svc/jsonout.h"
#include "svc/jsonscan.h"
#include "svc/job.h"
#include "svc/msg.h"
#include "svc/sobol.h"
#include "svc/verify.h"

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

static void test_step_measures(void);

static void test_misc(void)
{
    /* jsonout: the shortest digits that read back, null for what JSON lacks, escapes */
    {
        static const char want[] = "0.1 1e-05 0.30000000000000004 0.3333333333333333 -2.5e+300 0 null null "
                                   "\"a\\\"b\\\\c\\nd\\te\\u0001\"";
        char *txt = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&txt, &len);
        const double v[] = { 0.1, 1e-5, 0.1 + 0.2, 1.0 / 3.0, -2.5e300, 0.0, NAN, INFINITY };
        for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) { jsonout_real(f, v[k]); fputc(' ', f); }
        jsonout_str(f, "a\"b\\c\nd\te\x01");
        fclose(f);
        CHECK(!strcmp(txt, want));
        if (strcmp(txt, want)) fprintf(stderr, "jsonout wrote: %s\n", txt);
        free(txt);
    }
    /* jsonout_dumps: reals in the fewest digits that read back, a real stays a
       real, integers, strings (with number-like text and escaped quotes) and
       keys untouched, and the text parses back to the same values */
    {
        json_t *j = json_pack("{s:f,s:f,s:f,s:f,s:I,s:s,s:[f,f,b,n],s:f}", "tol", 1e-5, "one", 1.0, "sum", 0.1 + 0.2,
                              "big", -2.5e300, "n", (json_int_t)12345678901234, "s", "0.10000000000000001 \"1e-05",
                              "a", 0.1, 2.0 / 3.0, 1, "k0.1", 1e22);
        char *t = jsonout_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
        static const char want[] = "{\"a\":[0.1,0.6666666666666666,true,null],\"big\":-2.5e+300,\"k0.1\":1e22,"
                                   "\"n\":12345678901234,\"one\":1.0,\"s\":\"0.10000000000000001 \\\"1e-05\","
                                   "\"sum\":0.30000000000000004,\"tol\":1e-05}";
        CHECK(t && !strcmp(t, want));
        if (t && strcmp(t, want)) fprintf(stderr, "jsonout_dumps wrote: %s\n", t);
        json_t *back = t ? json_loads(t, 0, NULL) : NULL;
        CHECK(back && json_equal(back, j));
        CHECK(back && json_is_real(json_object_get(back, "one")));
        json_decref(back);
        free(t);
        json_decref(j);
    }
    /* depth pre-scan ignores brackets inside strings */
    CHECK(jsonscan_depth("{\"a\":[[1]]}", 11, 10) == 3);
    CHECK(jsonscan_depth("{\"a\":\"[[[[[[\"}", 14, 3) == 1);
    CHECK(jsonscan_depth("[[[[[", 5, 3) == 4);
    /* value and container counts (keys are values; strings hide brackets) */
    jsonscan_counts jc;
    const char *jt = "{\"a\":[1, 2.5e3,true,\"[{\"]}";
    CHECK(jsonscan_count(jt, strlen(jt), 100, 100, &jc) == 0);
    CHECK(jc.values == 7 && jc.containers == 2);
    CHECK(jsonscan_count("[{},{},{}]", 10, 100, 3, &jc) == 1);
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
    test_step_measures();
}

/* The control-study reductions against closed forms: integral of y = t;
 * a first-order lag y = 1 - exp(-t / tau) (rise 10-90 %: tau ln 9,
 * settling 2 %: tau ln 50, no overshoot); an underdamped second-order step
 * (zeta = 0.5: overshoot 100 exp(-pi zeta / sqrt(1 - zeta^2)) = 16.303 %);
 * a falling step; undefined cases give null; bad options name their key. */
static void test_step_measures(void)
{
    enum { N = 20001 };
    double *rows = malloc(sizeof(double) * 2 * N), tau = 0.5, zeta = 0.5, wn = 4;
    const char *names[] = { "y" };
    char ptr[64], msg[200];
    /* first-order lag over 10 tau */
    for (int i = 0; i < N; i++) { double t = 10 * tau * i / (N - 1); rows[2 * i] = t; rows[2 * i + 1] = 1 - exp(-t / tau); }
    json_t *spec = json_loads("[{\"name\":\"tr\",\"channel\":\"y\",\"reduce\":\"rise_time\",\"target\":1},"
                              "{\"name\":\"ts\",\"channel\":\"y\",\"reduce\":\"settling_time\",\"target\":1},"
                              "{\"name\":\"ts5\",\"channel\":\"y\",\"reduce\":\"settling_time\",\"band\":0.05,\"target\":1},"
                              "{\"name\":\"tr2\",\"channel\":\"y\",\"reduce\":\"rise_time\",\"limits\":[0,0.5],\"target\":1},"
                              "{\"name\":\"os\",\"channel\":\"y\",\"reduce\":\"overshoot\",\"target\":1},"
                              "{\"name\":\"i\",\"channel\":\"y\",\"reduce\":\"integral\"}]", 0, NULL);
    CHECK(job_responses_check(spec, names, 1, ptr, sizeof ptr, msg, sizeof msg) == 0);
    json_t *r = job_responses_eval(spec, names, 1, rows, N);
    /* linear interpolation on a step of tau / 2000: errors of order 1e-8 */
    CHECK(fabs(json_real_value(json_object_get(r, "tr")) - tau * log(9)) < 1e-6);
    CHECK(fabs(json_real_value(json_object_get(r, "ts")) - tau * log(50)) < 1e-6);
    CHECK(fabs(json_real_value(json_object_get(r, "ts5")) - tau * log(20)) < 1e-6);
    CHECK(fabs(json_real_value(json_object_get(r, "tr2")) - tau * log(2)) < 1e-6);
    CHECK(json_real_value(json_object_get(r, "os")) == 0);
    printf("step measures, first-order lag tau = 0.5: rise %.9f (tau ln 9 = %.9f), settling %.9f (tau ln 50 = %.9f)\n",
           json_real_value(json_object_get(r, "tr")), tau * log(9), json_real_value(json_object_get(r, "ts")),
           tau * log(50));
    /* integral: 10 tau - tau (1 - e^-10) */
    CHECK(fabs(json_real_value(json_object_get(r, "i")) - (10 * tau - tau * (1 - exp(-10)))) < 1e-7);
    json_decref(r);
    /* underdamped second order over 5 s; its own last sample as yf */
    double wd = wn * sqrt(1 - zeta * zeta);
    for (int i = 0; i < N; i++) {
        double t = 5.0 * i / (N - 1);
        rows[2 * i] = t;
        rows[2 * i + 1] = 1 - exp(-zeta * wn * t) * (cos(wd * t) + zeta / sqrt(1 - zeta * zeta) * sin(wd * t));
    }
    json_t *os = json_loads("[{\"name\":\"os\",\"channel\":\"y\",\"reduce\":\"overshoot\",\"target\":1}]", 0, NULL);
    r = job_responses_eval(os, names, 1, rows, N);
    CHECK(fabs(json_real_value(json_object_get(r, "os")) - 100 * exp(-M_PI * zeta / sqrt(1 - zeta * zeta))) < 1e-4);
    json_decref(r);
    /* the same step falling from 1 to 0: the same measures */
    for (int i = 0; i < N; i++) rows[2 * i + 1] = 1 - rows[2 * i + 1];
    json_t *fall = json_loads("[{\"name\":\"os\",\"channel\":\"y\",\"reduce\":\"overshoot\",\"target\":0},"
                              "{\"name\":\"tr\",\"channel\":\"y\",\"reduce\":\"rise_time\",\"target\":0}]", 0, NULL);
    r = job_responses_eval(fall, names, 1, rows, N);
    CHECK(fabs(json_real_value(json_object_get(r, "os")) - 100 * exp(-M_PI * zeta / sqrt(1 - zeta * zeta))) < 1e-4);
    CHECK(json_real_value(json_object_get(r, "tr")) > 0);
    json_decref(r);
    /* undefined: a flat signal (no step); a level never reached; never settled */
    for (int i = 0; i < N; i++) rows[2 * i + 1] = 0.3;
    r = job_responses_eval(spec, names, 1, rows, N);
    CHECK(json_is_null(json_object_get(r, "os")) == 0); /* target 1 from 0.3: a step, no overshoot */
    CHECK(json_is_null(json_object_get(r, "tr")));      /* never reaches 10 % of the way */
    CHECK(json_is_null(json_object_get(r, "ts")));      /* never within 2 % of 1 */
    json_decref(r);
    json_t *flat = json_loads("[{\"name\":\"ts\",\"channel\":\"y\",\"reduce\":\"settling_time\"}]", 0, NULL);
    r = job_responses_eval(flat, names, 1, rows, N);
    CHECK(json_is_null(json_object_get(r, "ts")));      /* y0 = yf: no step */
    json_decref(r);
    /* option errors: pointer at the key */
    const char *bad[][2] = {
        { "[{\"name\":\"a\",\"channel\":\"y\",\"reduce\":\"rise_time\",\"band\":0.1}]", "/responses/0/band" },
        { "[{\"name\":\"a\",\"channel\":\"y\",\"reduce\":\"rise_time\",\"limits\":[0.9,0.1]}]", "/responses/0/limits" },
        { "[{\"name\":\"a\",\"channel\":\"y\",\"reduce\":\"rise_time\",\"limits\":[0.1]}]", "/responses/0/limits" },
        { "[{\"name\":\"a\",\"channel\":\"y\",\"reduce\":\"settling_time\",\"band\":1.5}]", "/responses/0/band" },
        { "[{\"name\":\"a\",\"channel\":\"y\",\"reduce\":\"max\",\"target\":1}]", "/responses/0/target" },
        { "[{\"name\":\"a\",\"channel\":\"y\",\"reduce\":\"overshoot\",\"target\":\"x\"}]", "/responses/0/target" },
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        json_t *b = json_loads(bad[k][0], 0, NULL);
        CHECK(b && job_responses_check(b, names, 1, ptr, sizeof ptr, msg, sizeof msg) == -1);
        CHECK(!strcmp(ptr, bad[k][1]));
        json_decref(b);
    }
    json_decref(spec); json_decref(os); json_decref(fall); json_decref(flat);
    free(rows);
}

/* job_metrics_json: the accuracy fields and their JSON types. */
static void test_metrics_json(void)
{
    mbs_metrics m;
    memset(&m, 0, sizeof m);
    m.integrator = "trapezoidal_al";
    m.tolerance = 1e-6; m.abs_tolerance = 1e-8; m.error_estimate = NAN;
    m.tolerance_met = 0; m.nwarning = MBS_WARN_MAX + 2;
    for (int i = 0; i < MBS_WARN_MAX; i++) snprintf(m.warning[i], sizeof m.warning[i], "warning %d, with a comma", i);
    json_t *o = job_metrics_json(&m);
    CHECK(json_real_value(json_object_get(o, "tolerance")) == 1e-6);
    CHECK(json_real_value(json_object_get(o, "abs_tolerance")) == 1e-8);
    CHECK(json_is_null(json_object_get(o, "error_estimate")));          /* no estimate: null */
    CHECK(json_is_false(json_object_get(o, "tolerance_met")));
    CHECK(json_integer_value(json_object_get(o, "warning_count")) == MBS_WARN_MAX + 2); /* all raised */
    json_t *w = json_object_get(o, "warnings");
    CHECK(json_is_array(w) && json_array_size(w) == MBS_WARN_MAX);       /* the stored ones */
    CHECK(!strcmp(json_string_value(json_array_get(w, 3)), "warning 3, with a comma"));
    json_decref(o);
    /* a run that met its tolerance: a number, true, no warnings; a text
       filling its buffer without a terminator is cut, not overrun */
    m.error_estimate = 0.25; m.tolerance_met = 1; m.nwarning = 0;
    o = job_metrics_json(&m);
    CHECK(json_real_value(json_object_get(o, "error_estimate")) == 0.25);
    CHECK(json_is_true(json_object_get(o, "tolerance_met")));
    CHECK(json_integer_value(json_object_get(o, "warning_count")) == 0);
    CHECK(json_array_size(json_object_get(o, "warnings")) == 0);
    json_decref(o);
    m.nwarning = 1; memset(m.warning[0], 'x', sizeof m.warning[0]);
    o = job_metrics_json(&m);
    CHECK(strlen(json_string_value(json_array_get(json_object_get(o, "warnings"), 0))) == sizeof m.warning[0]);
    json_decref(o);
}

/* The service's metrics (job_metrics_json, stored by name into the metrics
 * table) and the CLI's (mbs_metrics_json) are written by two functions: they
 * name the same metrics, but for the spellings the table kept (the CLI's
 * max_order_used is order_max_used there), the CLI's chord list (text, not
 * a metric) and the service's conservative flag.  A metric added to one and
 * not the other fails here. */
static void test_metrics_names(void)
{
    mbs_metrics m;
    memset(&m, 0, sizeof m);
    m.integrator = "bdf";
    m.formulation = "relative"; /* the relative fields in both */
    m.contact_method = "compliant";
    char buf[16384];
    int len = mbs_metrics_json(&m, buf, sizeof buf);
    CHECK(len > 0 && len < (int)sizeof buf);
    json_t *cli = json_loads(buf, 0, NULL), *svc = job_metrics_json(&m);
    CHECK(cli && svc);
    if (!cli || !svc) { json_decref(cli); json_decref(svc); return; }
    static const char *const alias[][2] = {{"max_order_used", "order_max_used"}};
    const char *key;
    json_t *val;
    int missing = 0;
    json_object_foreach(cli, key, val) {
        const char *k = key;
        for (size_t a = 0; a < sizeof alias / sizeof alias[0]; a++) if (!strcmp(k, alias[a][0])) k = alias[a][1];
        if (strcmp(k, "chords") && !json_object_get(svc, k)) { printf("  CLI metric %s: not in the service's\n", key); missing++; }
    }
    json_object_foreach(svc, key, val) {
        const char *k = key;
        for (size_t a = 0; a < sizeof alias / sizeof alias[0]; a++) if (!strcmp(k, alias[a][1])) k = alias[a][0];
        if (strcmp(k, "conservative") && !json_object_get(cli, k)) { printf("  service metric %s: not in the CLI's\n", key); missing++; }
    }
    CHECK(missing == 0);
    CHECK(json_object_get(svc, "slow_multiplier_steps") && json_object_get(cli, "slow_multiplier_steps"));
    json_decref(cli);
    json_decref(svc);
}

static void test_verify(void)
{
    /* how many: ceil(f n), products that are integers up to rounding kept */
    CHECK(verify_count(0.5, 4) == 2);
    CHECK(verify_count(0.1, 30) == 3);      /* 0.1 * 30 = 3.0000000000000004 */
    CHECK(verify_count(0.34, 3) == 2);
    CHECK(verify_count(1e-9, 5) == 1);
    CHECK(verify_count(1, 7) == 7);
    CHECK(verify_count(0, 10) == 0);
    /* which: reproducible, distinct, increasing, in range; another seed another choice */
    long a[10], b[10], all[5];
    CHECK(verify_pick(7, 100, 10, a) == 0 && verify_pick(7, 100, 10, b) == 0);
    CHECK(!memcmp(a, b, sizeof a));
    for (int i = 0; i < 10; i++) CHECK(a[i] >= 0 && a[i] < 100 && (i == 0 || a[i] > a[i - 1]));
    CHECK(verify_pick(8, 100, 10, b) == 0 && memcmp(a, b, sizeof a));
    CHECK(verify_pick(1, 5, 5, all) == 0);
    for (int i = 0; i < 5; i++) CHECK(all[i] == i);
    /* uniform: over many seeds each of 4 indices is chosen about half the time for k = 2 */
    int hits[4] = { 0 };
    for (int seed = 0; seed < 4000; seed++) { long p[2]; verify_pick((uint64_t)seed, 4, 2, p); hits[p[0]]++; hits[p[1]]++; }
    for (int i = 0; i < 4; i++) CHECK(hits[i] > 1800 && hits[i] < 2200);
    /* the verification run's solver options */
    json_t *solver = json_loads("{\"contact_deactivation\":true}", 0, NULL), *o;
    verify_solver_in in = { .integrator = "trapezoidal_al", .tolerance = 1e-6, .abs_tolerance = 0, .step = 0.05,
                            .min_step = 1e-12, .abs_set = 0, .step_set = 1 };
    CHECK(verify_fixed_step(&in));
    o = verify_solver(solver, &in);
    CHECK(json_is_true(json_object_get(o, "contact_deactivation")));       /* the job's own options kept */
    CHECK(fabs(json_real_value(json_object_get(o, "tolerance")) - 1e-7) < 1e-22);
    CHECK(!json_object_get(o, "abs_tolerance"));                            /* not set: derived by the solver */
    CHECK(fabs(json_real_value(json_object_get(o, "step")) - 0.05 / sqrt(10)) < 1e-17);
    CHECK(!json_object_get(o, "min_step"));
    json_decref(o);
    in.abs_set = 1; in.abs_tolerance = 1e-8; in.integrator = "moreau_jean"; in.min_step = 0.01;
    o = verify_solver(solver, &in);
    CHECK(fabs(json_real_value(json_object_get(o, "abs_tolerance")) - 1e-9) < 1e-24);
    CHECK(fabs(json_real_value(json_object_get(o, "step")) - 0.005) < 1e-17);  /* first order: / 10 */
    CHECK(fabs(json_real_value(json_object_get(o, "min_step")) - 0.005) < 1e-17);
    json_decref(o);
    in.integrator = "bdf";                                                  /* variable step: step untouched */
    CHECK(!verify_fixed_step(&in));
    o = verify_solver(solver, &in);
    CHECK(!json_object_get(o, "step"));
    json_decref(o);
    in.integrator = "trapezoidal_al"; in.step_set = 0;                      /* default step: error-controlled */
    CHECK(!verify_fixed_step(&in));
    json_decref(solver);
    /* response differences */
    json_t *v = json_loads("{\"a\":1.5,\"b\":0,\"c\":2,\"d\":null,\"e\":3}", 0, NULL);
    json_t *ref = json_loads("{\"a\":1.0,\"b\":0,\"c\":0,\"d\":1,\"e\":3}", 0, NULL);
    json_t *d = verify_response_diff(v, ref);
    CHECK(json_real_value(json_object_get(json_object_get(d, "a"), "abs_diff")) == 0.5);
    CHECK(json_real_value(json_object_get(json_object_get(d, "a"), "rel_diff")) == 0.5);
    CHECK(json_real_value(json_object_get(json_object_get(d, "b"), "rel_diff")) == 0);    /* equal zeros */
    CHECK(json_is_null(json_object_get(json_object_get(d, "c"), "rel_diff")));           /* reference 0 */
    CHECK(json_real_value(json_object_get(json_object_get(d, "c"), "abs_diff")) == 2);
    CHECK(json_is_null(json_object_get(json_object_get(d, "d"), "abs_diff")));           /* missing value */
    CHECK(json_real_value(json_object_get(json_object_get(d, "e"), "rel_diff")) == 0);
    json_decref(v); json_decref(ref); json_decref(d);
    /* channel differences: per channel; NULL when the blocks do not line up */
    json_t *ch = json_loads("[\"x\",\"y\"]", 0, NULL), *ch2 = json_loads("[\"x\"]", 0, NULL);
    double ra[] = { 0, 1, 2, 0.5, 1, 4 }, rb[] = { 0, 1, 2.5, 0.5, 0.75, 4 }, rc[] = { 0, 1, 2, 0.6, 1, 4 };
    d = verify_channel_diff(ch, ra, 2, ch, rb, 2);
    CHECK(d && json_real_value(json_object_get(d, "x")) == 0.25 && json_real_value(json_object_get(d, "y")) == 0.5);
    json_decref(d);
    CHECK(verify_channel_diff(ch, ra, 2, ch, rc, 2) == NULL);   /* other sample times */
    CHECK(verify_channel_diff(ch, ra, 2, ch, rb, 1) == NULL);   /* other count */
    CHECK(verify_channel_diff(ch, ra, 2, ch2, rb, 2) == NULL);  /* other channels */
    json_decref(ch); json_decref(ch2);
}

int main(void)
{
    test_sobol();
    test_design();
    test_misc();
    test_metrics_json();
    test_metrics_names();
    test_verify();
    if (s_fail) { fprintf(stderr, "svc_test: %d check(s) failed\n", s_fail); return 1; }
    printf("svc_test: all checks passed\n");
    return 0;
}
