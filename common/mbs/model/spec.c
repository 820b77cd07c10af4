/*
 * spec.c - the mechanism spec as plain data (spec.h): allocation, solver
 * defaults, functions of time, names; and the error list of mbs.h.
 */
#include "mbs/model/spec.h"
#include "mbs/model/expr.h"
#include "mbs/mbs.h"

#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- errors ------------------------------------------------------------------ */

void mbs_err_add(mbs_errlist *el, const char *pointer, const char *fmt, ...)
{
    if (!el)
        return;
    /* a full list only counts what it cannot hold */
    if (el->n < 0 || el->n >= MBS_ERR_MAX) {
        el->dropped++;
        return;
    }
    mbs_error *e = &el->e[el->n++];
    snprintf(e->pointer, sizeof e->pointer, "%s", pointer ? pointer : "");
    e->message[0] = '\0';
    if (!fmt)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    va_end(ap);
}

const char *mbs_strerror(int code)
{
    switch (code) {
    case MBS_OK: return "success";
    case MBS_EINVAL: return "invalid input";
    case MBS_EASSEMBLY: return "initial configuration cannot be assembled";
    case MBS_ESINGULAR: return "singular system";
    case MBS_EDIVERGE: return "integration failed (step size too small)";
    case MBS_ETIMEOUT: return "time limit reached";
    case MBS_ENOMEM: return "out of memory";
    case MBS_ECANCEL: return "cancelled";
    default: return "unknown error";
    }
}

/* ---- spec ------------------------------------------------------------------------ */

void mbs_solver_defaults(mbs_solver_spec *o)
{
    memset(o, 0, sizeof *o);
    o->analysis = MBS_ANALYSIS_DYNAMICS;
    o->integrator = MBS_INT_BDF; /* error-controlled and stiff (docs/accuracy.md) */
    o->t_end = 0;
    o->step = 1e-3;
    o->max_step = 0;
    o->min_step = 1e-12;
    o->tolerance = 1e-6;
    o->abs_tolerance = 0; /* derived from tolerance (accuracy.h) */
    o->max_order = 5;
    o->max_newton = 25;
    o->penalty = 1e9;
    o->baumgarte_alpha = 10;
    o->baumgarte_beta = 10;
    o->assembly_tolerance = 1e-10;
    o->max_assembly_iterations = 50;
    o->contact_deactivation = 1;
    o->energy_projection = 1;
    o->contact_force_unknowns = 0;
    o->lcp_solver = MBS_LCP_AUTO;
    o->lcp_lemke_max = 60;
    o->lcp_tolerance = 1e-10;
    o->lcp_max_iterations = 2000;
    o->lcp_regularization = 0;
    o->time_limit = 0;
}

mbs_spec *mbs_spec_new(void)
{
    mbs_spec *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    mbs_solver_defaults(&s->solver);
    return s;
}

void mbs_spec_free(mbs_spec **sp)
{
    if (!sp || !*sp)
        return;
    mbs_spec *s = *sp;
    free(s->bodies);
    free(s->joints);
    /* drivers and forces own their functions of time */
    if (s->drivers)
        for (int i = 0; i < s->ndriver; i++)
            mbs_fn_clear(&s->drivers[i].motion);
    free(s->drivers);
    if (s->forces)
        for (int i = 0; i < s->nforce; i++)
            for (int k = 0; k < 3; k++)
                mbs_fn_clear(&s->forces[i].value[k]);
    free(s->forces);
    free(s->shapes);
    free(s->contacts);
    free(s->channels);
    if (s->controllers)
        for (int i = 0; i < s->nctrl; i++) {
            mbs_fn_clear(&s->controllers[i].setpoint);
            mbs_fn_clear(&s->controllers[i].feedforward);
        }
    free(s->controllers);
    free(s);
    *sp = NULL;
}

/* ---- functions of time ------------------------------------------------------------ */

void mbs_fn_clear(mbs_fn *f)
{
    if (!f)
        return;
    free(f->c);
    free(f->spline_m);
    mbs_expr_free(&f->expr);
    memset(f, 0, sizeof *f);
    f->kind = MBS_FN_CONSTANT;
}

/* Index i of the table interval [t_i, t_{i+1}] holding t (0 <= i <= n-2);
 * the caller has handled t outside [t_0, t_{n-1}]. */
static int s_table_interval(const mbs_fn *f, double t)
{
    int lo = 0, hi = f->n - 1;
    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        if (f->c[2 * mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Table: linear or natural cubic spline inside the table, its first and
 * last times included (one-sided derivatives there); outside it the end
 * values are held (derivatives zero).  A table starting at t = 0 used to
 * give its held rate 0 at t = 0 and the spline's slope just after: a driver
 * with that jump in its velocity stopped the BDF at its first step (step
 * below min_step), the end likewise at t_end. */
static double s_table_eval(const mbs_fn *f, double t, double *df, double *ddf)
{
    double d = 0, dd = 0, v;
    int n = f->n;
    if (n <= 0 || !f->c) {
        v = 0;
    } else if (n == 1 || t < f->c[0]) {
        v = f->c[1];
    } else if (t > f->c[2 * (n - 1)]) {
        v = f->c[2 * (n - 1) + 1];
    } else {
        int i = s_table_interval(f, t);
        double t0 = f->c[2 * i], v0 = f->c[2 * i + 1];
        double t1 = f->c[2 * i + 2], v1 = f->c[2 * i + 3];
        double h = t1 - t0;
        if (f->spline && f->spline_m) {
            /* natural cubic spline with knot second derivatives m */
            double m0 = f->spline_m[i], m1 = f->spline_m[i + 1];
            double a = (t1 - t) / h, b = (t - t0) / h;
            v = a * v0 + b * v1 + ((a * a * a - a) * m0 + (b * b * b - b) * m1) * h * h / 6;
            d = (v1 - v0) / h - (3 * a * a - 1) * h / 6 * m0 + (3 * b * b - 1) * h / 6 * m1;
            dd = a * m0 + b * m1;
        } else {
            d = (v1 - v0) / h;
            v = t == t1 ? v1 : v0 + d * (t - t0); /* the last row's value exactly */
        }
    }
    if (df)
        *df = d;
    if (ddf)
        *ddf = dd;
    return v;
}

double mbs_fn_eval(const mbs_fn *f, double t, double *df, double *ddf)
{
    double v = 0, d = 0, dd = 0;
    if (!f) {
        if (df)
            *df = 0;
        if (ddf)
            *ddf = 0;
        return 0;
    }
    switch (f->kind) {
    case MBS_FN_CONSTANT:
        v = (f->n > 0 && f->c) ? f->c[0] : 0;
        break;
    case MBS_FN_CONSTANT_SPEED:
        d = (f->n > 0 && f->c) ? f->c[0] : 0;
        v = d * t;
        break;
    case MBS_FN_POLYNOMIAL:
        /* Horner for the value and both derivatives */
        for (int k = f->n - 1; k >= 0 && f->c; k--) {
            dd = dd * t + 2 * d;
            d = d * t + v;
            v = v * t + f->c[k];
        }
        break;
    case MBS_FN_HARMONIC: {
        double c[4] = {0, 0, 0, 0};
        for (int k = 0; k < 4 && k < f->n && f->c; k++)
            c[k] = f->c[k];
        double s = sin(c[1] * t + c[2]), co = cos(c[1] * t + c[2]);
        v = c[0] * s + c[3];
        d = c[0] * c[1] * co;
        dd = -c[0] * c[1] * c[1] * s;
        break;
    }
    case MBS_FN_TABLE:
        v = s_table_eval(f, t, &d, &dd);
        break;
    case MBS_FN_EXPRESSION: {
        /* central differences, step scaled with |t| */
        double h = 1e-5 * (1 + fabs(t));
        double fp = mbs_expr_eval(f->expr, t + h), fm = mbs_expr_eval(f->expr, t - h);
        v = mbs_expr_eval(f->expr, t);
        d = (fp - fm) / (2 * h);
        dd = (fp - 2 * v + fm) / (h * h);
        break;
    }
    }
    if (df)
        *df = d;
    if (ddf)
        *ddf = dd;
    return v;
}

int mbs_fn_kinks(const mbs_fn *f, double t0, double t1, double *out, int max, long *budget)
{
    if (!f || max < 1) return 0;
    int nk = 0;
    if (f->kind == MBS_FN_TABLE && f->c && f->n > 1) {
        /* a linear table's rows; a spline's ends only (it is C2 inside),
         * where the held end value begins */
        for (int i = 0; i < f->n && nk < max; i++) {
            if (f->spline && i > 0 && i < f->n - 1) continue;
            double ti = f->c[2 * i];
            if (ti > t0 && ti <= t1) out[nk++] = ti;
        }
    } else if (f->kind == MBS_FN_EXPRESSION) {
        /* 4096 grid intervals: a ramp's end is found whatever t_end */
        nk = mbs_expr_kinks(f->expr, t0, t1, 4096, out, max, budget);
    }
    return nk;
}

static int s_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int mbs_spec_kinks(const mbs_spec *s, double t0, double t1, double **out)
{
    *out = NULL;
    int cap = MBS_KINKS_MAX, n = 0;
    long budget = MBS_KINKS_WORK; /* operations evaluated, over all inputs */
    double *k = malloc(sizeof(double) * (size_t)cap);
    if (!k) return -1;
    for (int i = 0; i < s->ndriver && n < cap; i++) n += mbs_fn_kinks(&s->drivers[i].motion, t0, t1, k + n, cap - n, &budget);
    for (int i = 0; i < s->nforce; i++)
        for (int c = 0; c < 3 && n < cap; c++) n += mbs_fn_kinks(&s->forces[i].value[c], t0, t1, k + n, cap - n, &budget);
    for (int i = 0; i < s->nctrl && n < cap; i++) {
        n += mbs_fn_kinks(&s->controllers[i].setpoint, t0, t1, k + n, cap - n, &budget);
        if (n < cap) n += mbs_fn_kinks(&s->controllers[i].feedforward, t0, t1, k + n, cap - n, &budget);
    }
    /* sorted, without repeats (within the last bits) and without t1 */
    qsort(k, (size_t)n, sizeof(double), s_cmp_double);
    int u = 0;
    for (int i = 0; i < n; i++) {
        if (k[i] >= t1 * (1 - 1e-12)) break;
        if (u > 0 && k[i] - k[u - 1] <= 1e-12 * fmax(1.0, fabs(k[i]))) continue;
        k[u++] = k[i];
    }
    if (u == 0) { free(k); return 0; }
    *out = k;
    return u;
}

int mbs_fn_prepare(mbs_fn *f)
{
    if (!f || f->kind != MBS_FN_TABLE)
        return 0;
    int n = f->n;
    if (n < 1 || !f->c)
        return -1;
    for (int i = 1; i < n; i++)
        if (!(f->c[2 * i] > f->c[2 * i - 2]))
            return -1;
    free(f->spline_m);
    f->spline_m = NULL;
    if (!f->spline)
        return 0;
    f->spline_m = calloc((size_t)n, sizeof *f->spline_m);
    if (!f->spline_m)
        return -1;
    if (n < 3)
        return 0; /* two points: the natural spline is the straight line */
    /* Tridiagonal system for the interior second derivatives (natural ends:
     * m_0 = m_{n-1} = 0), solved by the Thomas algorithm; `cp` holds the
     * modified super-diagonal. */
    double *cp = malloc((size_t)n * sizeof *cp);
    if (!cp) {
        free(f->spline_m);
        f->spline_m = NULL;
        return -1;
    }
    double *m = f->spline_m;
    for (int i = 1; i < n - 1; i++) {
        double h0 = f->c[2 * i] - f->c[2 * i - 2];
        double h1 = f->c[2 * i + 2] - f->c[2 * i];
        double rhs = 6 * ((f->c[2 * i + 3] - f->c[2 * i + 1]) / h1 -
                          (f->c[2 * i + 1] - f->c[2 * i - 1]) / h0);
        double diag = 2 * (h0 + h1), sub = h0, sup = h1;
        if (i > 1) {
            diag -= sub * cp[i - 1];
            rhs -= sub * m[i - 1];
        }
        cp[i] = sup / diag;
        m[i] = rhs / diag;
    }
    /* back substitution (cp[n-2] multiplies m[n-1] = 0) */
    for (int i = n - 3; i >= 1; i--)
        m[i] -= cp[i] * m[i + 1];
    free(cp);
    return 0;
}

/* ---- names -------------------------------------------------------------------------- */

const char *mbs_joint_type_name(mbs_joint_type t)
{
    static const char *const names[] = {"revolute", "prismatic", "spherical", "universal",
                                        "cylindrical", "fixed", "distance"};
    return (t >= 0 && t < MBS_JOINT_NTYPES) ? names[t] : "unknown";
}

const char *mbs_integrator_name(mbs_integrator i)
{
    static const char *const names[] = {"trapezoidal_al", "bdf", "dopri5", "moreau_jean", "event_driven"};
    return (i >= 0 && i < MBS_INT_NTYPES) ? names[i] : "unknown";
}

int mbs_contact_pair_side(const mbs_spec *s, int k, const char *pa, const char *pb)
{
    const char *na = s->shapes[s->contacts[k].shape[0]].name, *nb = s->shapes[s->contacts[k].shape[1]].name;
    if (fnmatch(pa, na, 0) == 0 && fnmatch(pb, nb, 0) == 0) return 1;
    if (fnmatch(pa, nb, 0) == 0 && fnmatch(pb, na, 0) == 0) return -1;
    return 0;
}
