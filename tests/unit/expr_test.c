/*
 * expr_test.c - tests of common/mbs/model/expr.c (expressions) and of the
 * functions of time in common/mbs/model/spec.c (mbs_fn_eval, mbs_fn_prepare).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mbs/model/expr.h"
#include "mbs/mbs.h"
#include "mbs/model/spec.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* Parameters of the tests: L = 2, f = 0.5, w = 3. */
static int s_lookup(const char *name, double *value, void *user)
{
    (void)user;
    if (strcmp(name, "L") == 0)
        *value = 2;
    else if (strcmp(name, "f") == 0)
        *value = 0.5;
    else if (strcmp(name, "w") == 0)
        *value = 3;
    else
        return -1;
    return 0;
}

/* Compile and evaluate at t; NAN (and a message in msg) when it fails. */
static double s_eval(const char *text, int allow_t, double t, char *msg, size_t size)
{
    mbs_expr *e = mbs_expr_compile(text, allow_t, s_lookup, NULL, msg, size);
    if (!e)
        return NAN;
    double v = mbs_expr_eval(e, t);
    mbs_expr_free(&e);
    return v;
}

static double s_v(const char *text)
{
    char msg[256] = "";
    double v = s_eval(text, 1, 0.25, msg, sizeof msg);
    if (msg[0])
        fprintf(stderr, "  (\"%s\": %s)\n", text, msg);
    return v;
}

/* The compile error of `text` contains `want`. */
static int s_fails_with(const char *text, int allow_t, const char *want)
{
    char msg[256] = "";
    mbs_expr *e = mbs_expr_compile(text, allow_t, s_lookup, NULL, msg, sizeof msg);
    if (e) {
        mbs_expr_free(&e);
        fprintf(stderr, "  \"%s\" compiled, expected an error with \"%s\"\n", text, want);
        return 0;
    }
    if (!strstr(msg, want)) {
        fprintf(stderr, "  \"%s\": message \"%s\" lacks \"%s\"\n", text, msg, want);
        return 0;
    }
    return 1;
}

static void test_arithmetic(void)
{
    CHECK_NEAR(s_v("1+2*3"), 7, 1e-15);
    CHECK_NEAR(s_v("(1+2)*3"), 9, 1e-15);
    CHECK_NEAR(s_v("10-4-3"), 3, 1e-15);       /* left associative */
    CHECK_NEAR(s_v("8/4/2"), 1, 1e-15);
    CHECK_NEAR(s_v("2^3^2"), 512, 1e-12);      /* right associative */
    CHECK_NEAR(s_v("(2^3)^2"), 64, 1e-12);
    CHECK_NEAR(s_v("-2^2"), -4, 1e-15);        /* unary minus below ^ */
    CHECK_NEAR(s_v("2^-1"), 0.5, 1e-15);
    CHECK_NEAR(s_v("--3"), 3, 1e-15);
    CHECK_NEAR(s_v("+3 - -2"), 5, 1e-15);
    CHECK_NEAR(s_v("2*-3"), -6, 1e-15);
    CHECK_NEAR(s_v("1.5e3 + .5 + 2E-1"), 1500.7, 1e-12);
    CHECK_NEAR(s_v("  7  "), 7, 0);
    CHECK_NEAR(s_v("2*3^2"), 18, 1e-15);
    CHECK_NEAR(s_v("-(1+2)*4"), -12, 1e-15);
}

static void test_functions(void)
{
    CHECK_NEAR(s_v("pi"), M_PI, 1e-15);
    CHECK_NEAR(s_v("sin(pi/2)"), 1, 1e-15);
    CHECK_NEAR(s_v("cos(0)"), 1, 1e-15);
    CHECK_NEAR(s_v("tan(pi/4)"), 1, 1e-15);
    CHECK_NEAR(s_v("asin(1)"), M_PI / 2, 1e-15);
    CHECK_NEAR(s_v("acos(1)"), 0, 1e-15);
    CHECK_NEAR(s_v("atan(1)"), M_PI / 4, 1e-15);
    CHECK_NEAR(s_v("atan2(1, -1)"), 3 * M_PI / 4, 1e-15);
    CHECK_NEAR(s_v("sqrt(16)"), 4, 1e-15);
    CHECK_NEAR(s_v("exp(1)"), exp(1), 1e-15);
    CHECK_NEAR(s_v("log(exp(2))"), 2, 1e-15);
    CHECK_NEAR(s_v("abs(-3)"), 3, 0);
    CHECK_NEAR(s_v("min(3, 1)"), 1, 0);
    CHECK_NEAR(s_v("max(3, 1, 7, 2)"), 7, 0);
    CHECK_NEAR(s_v("min(4, 2, 9)"), 2, 0);
    CHECK_NEAR(s_v("max(1,2)*min(5,6)+sqrt(abs(-9))"), 13, 1e-15);
}

static void test_params_and_t(void)
{
    char msg[256];
    CHECK_NEAR(s_v("$L/2"), 1, 0);
    CHECK_NEAR(s_v("2*pi*$f"), M_PI, 1e-15);
    CHECK_NEAR(s_eval("sin($w*t)", 1, 0.5, msg, sizeof msg), sin(1.5), 1e-15);
    CHECK_NEAR(s_eval("t^2 + $L*t", 1, 3, msg, sizeof msg), 15, 1e-12);

    mbs_expr *e = mbs_expr_compile("$L*t", 1, s_lookup, NULL, msg, sizeof msg);
    CHECK(e != NULL);
    CHECK(mbs_expr_uses_t(e) == 1);
    CHECK_NEAR(mbs_expr_eval(e, 4), 8, 0);
    mbs_expr_free(&e);
    CHECK(e == NULL);
    mbs_expr_free(&e); /* NULL is fine */

    e = mbs_expr_compile("$L*2", 0, s_lookup, NULL, msg, sizeof msg);
    CHECK(e != NULL && mbs_expr_uses_t(e) == 0);
    mbs_expr_free(&e);

    /* a name that merely starts with t is not t */
    CHECK(s_fails_with("tt+1", 1, "unknown name 'tt'"));
    /* NaN and infinity are values, not compile errors */
    CHECK(isnan(s_v("0/0")));
    CHECK(isinf(s_v("1/0")));
    CHECK(isnan(s_v("sqrt(-1)")));
    CHECK(isnan(s_v("max(1, 0/0)")));
}

static void test_errors(void)
{
    CHECK(s_fails_with("foo(1)", 0, "unknown function 'foo' at position 1"));
    CHECK(s_fails_with("2*sinh(1)", 0, "unknown function 'sinh' at position 3"));
    CHECK(s_fails_with("$nope + 1", 0, "unknown parameter '$nope' at position 1"));
    CHECK(s_fails_with("1 + $x", 0, "unknown parameter '$x' at position 5"));
    CHECK(s_fails_with("1 2", 0, "unexpected '2' after the expression at position 3"));
    CHECK(s_fails_with("1+2)", 0, "unbalanced ')' at position 4"));
    CHECK(s_fails_with("(1+2", 0, "unbalanced '(' (opened at position 1): expected ')' at position 5"));
    CHECK(s_fails_with("((1)", 0, "position 5"));
    CHECK(s_fails_with("", 0, "empty expression"));
    CHECK(s_fails_with("   ", 0, "empty expression"));
    CHECK(s_fails_with("1+", 0, "expected a value at position 3"));
    CHECK(s_fails_with("*2", 0, "unexpected '*' at position 1"));
    CHECK(s_fails_with("sin(t)", 0, "time variable t is not allowed"));
    CHECK(s_fails_with("atan2(1)", 0, "atan2() takes 2 arguments, got 1"));
    CHECK(s_fails_with("sin(1, 2)", 0, "sin() takes 1 argument, got 2"));
    CHECK(s_fails_with("min(1)", 0, "two or more arguments"));
    CHECK(s_fails_with("sin 1", 0, "expected '(' after the function sin"));
    CHECK(s_fails_with("x", 0, "unknown name 'x'"));
    CHECK(s_fails_with("$", 0, "'$' must be followed by a parameter name"));
    CHECK(s_fails_with("1e", 0, "malformed exponent"));
    CHECK(s_fails_with("0x10", 0, "unexpected 'x' after the expression at position 2"));
    CHECK(s_fails_with("1e999", 0, "number out of range"));
    CHECK(s_fails_with("inf", 0, "unknown name 'inf'"));
    CHECK(s_fails_with("2 # 3", 0, "unexpected '#' after the expression at position 3"));
    CHECK(s_fails_with("sin(1", 0, "expected ',' or ')'"));
    /* control characters are not echoed into messages */
    CHECK(s_fails_with("1 \x01x", 0, "unexpected '?' after the expression at position 3 "
                                     "(near \"?x\")"));

    /* hostile nesting is refused, not a stack overflow */
    size_t n = 100000;
    char *deep = malloc(2 * n + 2);
    CHECK(deep != NULL);
    if (deep) {
        memset(deep, '(', n);
        deep[n] = '1';
        memset(deep + n + 1, ')', n);
        deep[2 * n + 1] = '\0';
        CHECK(s_fails_with(deep, 0, "nested too deeply"));
        memset(deep, '-', n);
        deep[n] = '1';
        deep[n + 1] = '\0';
        CHECK(s_fails_with(deep, 0, "nested too deeply"));
        free(deep);
    }
    /* a long flat sum is fine */
    char *flat = malloc(4001);
    if (flat) {
        for (int i = 0; i < 2000; i++)
            memcpy(flat + 2 * i, "1+", 2);
        flat[3999] = '\0'; /* "1+1+...+1": the last '+' cut */
        CHECK_NEAR(s_v(flat), 2000, 0);
        free(flat);
    }
    /* a small message buffer truncates safely; NULL is allowed */
    char tiny[8];
    CHECK(mbs_expr_compile("foo(", 0, NULL, NULL, tiny, sizeof tiny) == NULL);
    CHECK(strlen(tiny) < sizeof tiny);
    CHECK(mbs_expr_compile("foo(", 0, NULL, NULL, NULL, 0) == NULL);
    CHECK(mbs_expr_compile("$L", 0, NULL, NULL, NULL, 0) == NULL);
}

/* ---- functions of time (spec.c) ------------------------------------------------ */

static void test_fn_analytic(void)
{
    double d, dd;
    double c1[1] = {2.5};
    mbs_fn f = {.kind = MBS_FN_CONSTANT, .n = 1, .c = c1};
    CHECK_NEAR(mbs_fn_eval(&f, 3, &d, &dd), 2.5, 0);
    CHECK(d == 0 && dd == 0);

    f.kind = MBS_FN_CONSTANT_SPEED;
    CHECK_NEAR(mbs_fn_eval(&f, 2, &d, &dd), 5, 0);
    CHECK_NEAR(d, 2.5, 0);
    CHECK_NEAR(dd, 0, 0);

    double cp[3] = {1, 2, 3}; /* 1 + 2t + 3t^2 */
    mbs_fn p = {.kind = MBS_FN_POLYNOMIAL, .n = 3, .c = cp};
    CHECK_NEAR(mbs_fn_eval(&p, 2, &d, &dd), 17, 1e-14);
    CHECK_NEAR(d, 14, 1e-14);
    CHECK_NEAR(dd, 6, 1e-14);
    CHECK_NEAR(mbs_fn_eval(&p, 2, NULL, NULL), 17, 1e-14);

    double ch[4] = {2, 3, 0.5, 1}; /* 2 sin(3t + 0.5) + 1 */
    mbs_fn h = {.kind = MBS_FN_HARMONIC, .n = 4, .c = ch};
    CHECK_NEAR(mbs_fn_eval(&h, 0.7, &d, &dd), 2 * sin(2.6) + 1, 1e-14);
    CHECK_NEAR(d, 6 * cos(2.6), 1e-14);
    CHECK_NEAR(dd, -18 * sin(2.6), 1e-13);
}

static void test_fn_table(void)
{
    double d, dd;
    /* linear: (0,0) (1,2) (3,0) */
    mbs_fn f = {.kind = MBS_FN_TABLE, .n = 3};
    f.c = malloc(6 * sizeof *f.c);
    double rows[6] = {0, 0, 1, 2, 3, 0};
    memcpy(f.c, rows, sizeof rows);
    CHECK(mbs_fn_prepare(&f) == 0);
    CHECK_NEAR(mbs_fn_eval(&f, 0.5, &d, &dd), 1, 1e-15);
    CHECK_NEAR(d, 2, 1e-15);
    CHECK_NEAR(dd, 0, 0);
    CHECK_NEAR(mbs_fn_eval(&f, 2, &d, &dd), 1, 1e-15);
    CHECK_NEAR(d, -1, 1e-15);
    CHECK_NEAR(mbs_fn_eval(&f, 1, &d, NULL), 2, 1e-15); /* knot: right interval */
    CHECK_NEAR(mbs_fn_eval(&f, -1, &d, NULL), 0, 0);    /* held outside */
    CHECK_NEAR(d, 0, 0);
    CHECK_NEAR(mbs_fn_eval(&f, 9, &d, NULL), 0, 0);
    /* the first and last times belong to the table: one-sided slopes
     * (a driver from t = 0 must start with the table's rate, not 0) */
    CHECK_NEAR(mbs_fn_eval(&f, 0, &d, NULL), 0, 0);
    CHECK_NEAR(d, 2, 1e-15);
    CHECK_NEAR(mbs_fn_eval(&f, 3, &d, NULL), 0, 1e-15);
    CHECK_NEAR(d, -1, 1e-15);

    /* natural spline through the same rows: interpolates, zero curvature at
     * the ends, continuous slope inside */
    f.spline = 1;
    CHECK(mbs_fn_prepare(&f) == 0);
    CHECK(f.spline_m != NULL);
    if (f.spline_m) {
        CHECK_NEAR(f.spline_m[0], 0, 0);
        CHECK_NEAR(f.spline_m[2], 0, 0);
        /* m1 from 2(h0+h1) m1 = 6((0-2)/2 - (2-0)/1) = -18 -> m1 = -3 */
        CHECK_NEAR(f.spline_m[1], -3, 1e-14);
    }
    CHECK_NEAR(mbs_fn_eval(&f, 1, &d, &dd), 2, 1e-14);
    CHECK_NEAR(dd, -3, 1e-14);
    CHECK_NEAR(mbs_fn_eval(&f, 3, NULL, NULL), 0, 1e-14);
    /* the slope at the first time is the spline's (the limit from inside) */
    double d0, dh;
    mbs_fn_eval(&f, 0, &d0, NULL);
    mbs_fn_eval(&f, 1e-9, &dh, NULL);
    CHECK(fabs(d0) > 1);
    CHECK_NEAR(d0, dh, 1e-6);
    /* derivative continuity at the inner knot, from both sides */
    double dl, dr;
    mbs_fn_eval(&f, 1 - 1e-9, &dl, NULL);
    mbs_fn_eval(&f, 1 + 1e-9, &dr, NULL);
    CHECK_NEAR(dl, dr, 1e-6);
    /* derivative against a difference quotient */
    double h = 1e-6, v1 = mbs_fn_eval(&f, 0.4 + h, NULL, NULL),
           v0 = mbs_fn_eval(&f, 0.4 - h, NULL, NULL);
    mbs_fn_eval(&f, 0.4, &d, NULL);
    CHECK_NEAR(d, (v1 - v0) / (2 * h), 1e-6);

    /* a straight line sampled at 5 points is reproduced exactly */
    double line[10] = {0, 1, 0.5, 2, 1.5, 4, 2, 5, 4, 9};
    memcpy(f.c = realloc(f.c, sizeof line), line, sizeof line);
    f.n = 5;
    CHECK(mbs_fn_prepare(&f) == 0);
    CHECK_NEAR(mbs_fn_eval(&f, 3, &d, &dd), 7, 1e-12);
    CHECK_NEAR(d, 2, 1e-12);
    CHECK_NEAR(dd, 0, 1e-12);

    /* decreasing times are refused */
    f.c[4] = 0.25;
    CHECK(mbs_fn_prepare(&f) == -1);
    mbs_fn_clear(&f);
    CHECK(f.c == NULL && f.spline_m == NULL);
}

static void test_fn_expression(void)
{
    char msg[128];
    double d, dd;
    mbs_fn f = {.kind = MBS_FN_EXPRESSION};
    f.expr = mbs_expr_compile("sin($w*t)", 1, s_lookup, NULL, msg, sizeof msg);
    CHECK(f.expr != NULL);
    double t = 0.8;
    CHECK_NEAR(mbs_fn_eval(&f, t, &d, &dd), sin(3 * t), 1e-15);
    CHECK_NEAR(d, 3 * cos(3 * t), 1e-8);
    CHECK_NEAR(dd, -9 * sin(3 * t), 1e-4);
    /* large t: the step scales with |t| */
    mbs_fn g = {.kind = MBS_FN_EXPRESSION};
    g.expr = mbs_expr_compile("t^2", 1, NULL, NULL, msg, sizeof msg);
    CHECK_NEAR(mbs_fn_eval(&g, 1000, &d, &dd), 1e6, 1e-6);
    CHECK_NEAR(d, 2000, 1e-4);
    CHECK_NEAR(dd, 2, 1e-2);
    mbs_fn_clear(&f);
    mbs_fn_clear(&g);
    CHECK(f.expr == NULL);
    mbs_fn_clear(NULL);
}

static void test_errlist_and_names(void)
{
    mbs_errlist el;
    memset(&el, 0, sizeof el);
    for (int i = 0; i < MBS_ERR_MAX + 5; i++)
        mbs_err_add(&el, "/bodies/0", "error %d", i);
    CHECK(el.n == MBS_ERR_MAX);
    CHECK(el.dropped == 5);
    CHECK_STR(el.e[3].message, "error 3");
    CHECK_STR(el.e[3].pointer, "/bodies/0");
    mbs_err_add(NULL, "", "ignored");
    memset(&el, 0, sizeof el);
    mbs_err_add(&el, NULL, "%s", "x");
    CHECK_STR(el.e[0].pointer, "");
    CHECK(strcmp(mbs_strerror(MBS_EASSEMBLY), "unknown error") != 0);
    CHECK_STR(mbs_strerror(12345), "unknown error");
    CHECK_STR(mbs_joint_type_name(MBS_JOINT_UNIVERSAL), "universal");
    CHECK_STR(mbs_joint_type_name(MBS_JOINT_DISTANCE), "distance");
    CHECK_STR(mbs_integrator_name(MBS_INT_BDF), "bdf");
    CHECK_STR(mbs_integrator_name(MBS_INT_DOPRI5), "dopri5");

    mbs_solver_spec o;
    mbs_solver_defaults(&o);
    CHECK(o.integrator == MBS_INT_BDF && o.analysis == MBS_ANALYSIS_DYNAMICS);
    CHECK(o.t_end == 0 && o.step == 1e-3 && o.max_step == 0 && o.min_step == 1e-12);
    CHECK(o.tolerance == 1e-6 && o.abs_tolerance == 0 && o.max_order == 5); /* 0: derived (accuracy.h) */
    /* the penalty default belongs to the AL integrator (1e7 in the first
     * contract, since raised by the solver's author): only its sign is ours */
    CHECK(o.max_newton == 25 && o.penalty > 0 && o.baumgarte_alpha == 10);
    CHECK(o.baumgarte_beta == 10 && o.assembly_tolerance == 1e-10);
    CHECK(o.max_assembly_iterations == 50 && o.contact_deactivation == 1 && o.time_limit == 0);

    mbs_spec *s = mbs_spec_new();
    CHECK(s != NULL && s->solver.step == 1e-3);
    mbs_spec_free(&s);
    CHECK(s == NULL);
    mbs_spec_free(&s);
    mbs_spec_free(NULL);
}

/* Kinks of the inputs (mbs_expr_kinks, mbs_fn_kinks, mbs_spec_kinks): the
 * times where min, max or abs switch branch, a table's corners; the
 * integrators end their steps there. */
static int s_cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static void test_kinks(void)
{
    char msg[128];
    double k[64];
    /* a ramp's end, bisected to the last bits */
    mbs_expr *e = mbs_expr_compile("2*min(t/0.3, 1)", 1, NULL, NULL, msg, sizeof msg);
    CHECK(e != NULL);
    int n = mbs_expr_kinks(e, 0, 3, 4096, k, 64, NULL);
    CHECK(n == 1 && fabs(k[0] - 0.3) <= 2e-16);
    /* outside the interval */
    CHECK(mbs_expr_kinks(e, 0.5, 3, 4096, k, 64, NULL) == 0);
    mbs_expr_free(&e);
    /* abs of a sine: every zero, whether or not it falls on the grid */
    e = mbs_expr_compile("abs(sin(2*pi*t)) + max(t - 1.25, 0)", 1, NULL, NULL, msg, sizeof msg);
    n = mbs_expr_kinks(e, 0, 2, 4096, k, 64, NULL);
    qsort(k, (size_t)n, sizeof(double), s_cmpd);
    static const double want[] = {0.5, 1, 1.25, 1.5};
    CHECK(n == 4);
    for (int i = 0; i < n && i < 4; i++) CHECK(fabs(k[i] - want[i]) <= 1e-14);
    n = mbs_expr_kinks(e, 0, 2, 4096, k, 2, NULL); /* at most max */
    CHECK(n == 2);
    mbs_expr_free(&e);
    /* the work is bounded: 3,000 switching operations in a program of 15,000
     * (4.5e7 per grid point) are not scanned within 5e7 operations; a
     * small budget coarsens the grid of a short one (a kink still found) */
    {
        size_t cap = 3000 * 16 + 16;
        char *big = malloc(cap);
        size_t len = 0;
        for (int i = 0; i < 3000; i++) len += (size_t)snprintf(big + len, cap - len, "%smin(t,1)", i ? "+" : "");
        e = mbs_expr_compile(big, 1, NULL, NULL, msg, sizeof msg);
        CHECK(e != NULL);
        long budget = 50000000L;
        CHECK(mbs_expr_kinks(e, 0, 2, 4096, k, 64, &budget) == 0 && budget == 50000000L);
        mbs_expr_free(&e);
        free(big);
        e = mbs_expr_compile("min(t, 1)", 1, NULL, NULL, msg, sizeof msg);
        budget = 200; /* 4 operations: 49 intervals, then the bisection */
        n = mbs_expr_kinks(e, 0, 2, 4096, k, 64, &budget);
        CHECK(n == 1 && fabs(k[0] - 1) <= 1e-15);
        CHECK(budget < 0 && budget > -300);
        mbs_expr_free(&e);
    }
    /* smooth, or constant in t: none */
    e = mbs_expr_compile("sin(t) + min(1, 2)", 1, NULL, NULL, msg, sizeof msg);
    CHECK(mbs_expr_kinks(e, 0, 10, 4096, k, 64, NULL) == 0);
    mbs_expr_free(&e);
    /* tables: a linear one's rows inside (t0, t1], a spline's ends */
    double rows[] = {0, 0, 0.5, 1, 1, 3, 2, 4};
    mbs_fn f = {.kind = MBS_FN_TABLE, .n = 4, .c = rows};
    n = mbs_fn_kinks(&f, 0, 1.5, k, 64, NULL);
    CHECK(n == 2 && k[0] == 0.5 && k[1] == 1);
    f.spline = 1;
    n = mbs_fn_kinks(&f, 0, 3, k, 64, NULL);
    CHECK(n == 1 && k[0] == 2);
    /* a spec: sorted, repeats merged, t_end left out */
    mbs_spec *sp = mbs_spec_new();
    CHECK(sp != NULL);
    sp->nctrl = 1;
    sp->controllers = calloc(1, sizeof *sp->controllers);
    sp->controllers[0].setpoint.kind = MBS_FN_EXPRESSION;
    sp->controllers[0].setpoint.expr = mbs_expr_compile("max(min(t/0.3, 1), 0.5) + abs(t - 2)", 1, NULL, NULL, msg,
                                                        sizeof msg);
    sp->controllers[0].feedforward.kind = MBS_FN_EXPRESSION;
    sp->controllers[0].feedforward.expr = mbs_expr_compile("min(t, 0.3)", 1, NULL, NULL, msg, sizeof msg);
    double *ks = NULL;
    n = mbs_spec_kinks(sp, 0, 2, &ks);
    CHECK(n == 2 && ks && fabs(ks[0] - 0.15) <= 1e-15 && fabs(ks[1] - 0.3) <= 1e-15);
    printf("  kinks: ramp end %.17g; spec's list", n > 0 ? ks[0] : NAN);
    for (int i = 0; i < n; i++) printf(" %.17g", ks[i]);
    printf("\n");
    free(ks);
    mbs_spec_free(&sp);
}

int main(void)
{
    test_arithmetic();
    test_functions();
    test_params_and_t();
    test_errors();
    test_fn_analytic();
    test_fn_table();
    test_fn_expression();
    test_kinks();
    test_errlist_and_names();
    return CHECK_SUMMARY("expr_test");
}
