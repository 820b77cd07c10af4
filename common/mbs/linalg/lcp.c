/*
 * lcp.c - Lemke's algorithm and projected Gauss-Seidel for linear
 * complementarity problems (see lcp.h for the contract).
 */
#include "mbs/linalg/lcp.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "mbs/linalg/status.h"

/* ---- helpers ---------------------------------------------------------------- */

static void s_msg(mbs_lcp_status *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void s_msg(mbs_lcp_status *st, const char *fmt, ...)
{
    if (!st) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st->message, sizeof st->message, fmt, ap);
    va_end(ap);
}

/* 1 if every entry of a (len) is finite. */
static int s_finite(size_t len, const double *a)
{
    for (size_t k = 0; k < len; k++)
        if (!isfinite(a[k])) return 0;
    return 1;
}

/* max_k |a_k| */
static double s_amax(size_t len, const double *a)
{
    double m = 0.0;
    for (size_t k = 0; k < len; k++)
        if (fabs(a[k]) > m) m = fabs(a[k]);
    return m;
}

/* Common argument checks; writes the message and returns MBS_EINVAL, or 0. */
static int s_check_args(const char *who, int n, const double *M, const double *q,
                        const double *z, const void *work, mbs_lcp_status *st)
{
    if (n < 0) {
        s_msg(st, "%s: negative size n = %d", who, n);
        return MBS_EINVAL;
    }
    if (n > 0 && (!M || !q || !z || !work)) {
        s_msg(st, "%s: NULL M, q, z or workspace", who);
        return MBS_EINVAL;
    }
    if (n > 0 && (!s_finite((size_t)n * (size_t)n, M) || !s_finite((size_t)n, q))) {
        s_msg(st, "%s: M or q has a non-finite entry", who);
        return MBS_EINVAL;
    }
    return 0;
}

/* ---- residuals ---------------------------------------------------------------- */

double mbs_lcp_residual(int n, const double *M, const double *q, const double *z,
                        double *most_negative)
{
    double res = 0.0, neg = 0.0;
    for (int i = 0; i < n; i++) {
        double w = q[i];
        for (int j = 0; j < n; j++) w += M[i + (size_t)n * j] * z[j];
        double r = fabs(fmin(z[i], w));
        if (r > res || isnan(r)) res = r;
        if (z[i] < neg) neg = z[i];
        if (w < neg) neg = w;
    }
    if (most_negative) *most_negative = neg;
    return res;
}

/* Bounds of index i of the boxed problem at the current z. */
static void s_bounds(int i, const int *normal, const double *mu, const double *z, double *lo,
                     double *hi)
{
    if (!normal || normal[i] < 0) {
        *lo = 0.0;
        *hi = INFINITY;
    } else {
        double b = mu[i] * fmax(z[normal[i]], 0.0);
        *lo = -b;
        *hi = b;
    }
}

static double s_clamp(double x, double lo, double hi) { return x < lo ? lo : (x > hi ? hi : x); }

double mbs_lcp_box_residual(int n, const double *M, const double *q, const int *normal,
                            const double *mu, const double *z)
{
    double res = 0.0;
    for (int i = 0; i < n; i++) {
        double w = q[i];
        for (int j = 0; j < n; j++) w += M[i + (size_t)n * j] * z[j];
        double lo, hi;
        s_bounds(i, normal, mu, z, &lo, &hi);
        double r = fabs(z[i] - s_clamp(z[i] - w, lo, hi));
        if (r > res || isnan(r)) res = r;
    }
    return res;
}

/* ---- Lemke -------------------------------------------------------------------- */

/* The tableau of Lemke: n rows, columns 0..n-1 the w_i, n..2n-1 the z_j,
 * 2n the artificial z0, 2n+1 the right-hand side; column-major. */
typedef struct {
    int n;
    double *T;    /* n x (2n + 2)                                             */
    double *col;  /* n: copy of the pivot column, then refinement residual    */
    double *dx;   /* n: refinement correction                                 */
    int *basis;   /* n: variable basic in row i                               */
} s_tableau;

#define S_T(tb, i, j) ((tb)->T[(size_t)(i) + (size_t)(tb)->n * (size_t)(j)])

size_t mbs_lcp_lemke_worksize(int n)
{
    if (n <= 0) return sizeof(double); /* a valid non-NULL block */
    size_t nd = (size_t)n * (2 * (size_t)n + 2) + 2 * (size_t)n;
    return nd * sizeof(double) + (size_t)n * sizeof(int);
}

/* Equality of two ratio entries up to rounding. */
static int s_tie(double a, double b)
{
    double s = fmax(1.0, fmax(fabs(a), fabs(b)));
    return fabs(a - b) <= 1e-12 * s;
}

/* Lexicographic comparison of the rows i and j of (q | B^-1) divided by
 * their entries d_i, d_j (> 0) of the entering column: < 0 when row i is
 * lexicographically smaller.  The right-hand side comes first, then the
 * basis-inverse columns 0..n-1 in order. */
static int s_lexcmp(const s_tableau *tb, int i, double di, int j, double dj)
{
    int n = tb->n;
    double a = S_T(tb, i, 2 * n + 1) / di, b = S_T(tb, j, 2 * n + 1) / dj;
    if (!s_tie(a, b)) return a < b ? -1 : 1;
    for (int k = 0; k < n; k++) {
        a = S_T(tb, i, k) / di;
        b = S_T(tb, j, k) / dj;
        if (!s_tie(a, b)) return a < b ? -1 : 1;
    }
    return i < j ? -1 : (i > j ? 1 : 0); /* rows of B^-1 are independent: unreachable */
}

/* Gauss-Jordan pivot on T(r, c): row r divided by the pivot, column c
 * eliminated from every other row (all 2n + 2 columns). */
static void s_pivot(s_tableau *tb, int r, int c)
{
    int n = tb->n, ncol = 2 * n + 2;
    for (int i = 0; i < n; i++) tb->col[i] = S_T(tb, i, c);
    double inv = 1.0 / tb->col[r];
    for (int j = 0; j < ncol; j++) {
        double t = S_T(tb, r, j) * inv;
        S_T(tb, r, j) = t;
        if (t == 0.0) continue;
        for (int i = 0; i < n; i++)
            if (i != r) S_T(tb, i, j) -= tb->col[i] * t;
    }
    /* the entering column becomes exactly the unit vector e_r */
    for (int i = 0; i < n; i++) S_T(tb, i, c) = 0.0;
    S_T(tb, r, c) = 1.0;
}

/* Name of variable v for messages (0-based): w[i], z[j], or the artificial z0. */
static void s_varname(int n, int v, char *buf, size_t size)
{
    if (v < n)
        snprintf(buf, size, "w[%d]", v);
    else if (v < 2 * n)
        snprintf(buf, size, "z[%d]", v - n);
    else
        snprintf(buf, size, "z0 (artificial)");
}

/* Iterative refinement of the basic solution x = T(:, 2n+1) of B x = q'
 * (scaled data M' = M / sm, q' = q / sq): r = q' - B x from the original
 * data, x += B^-1 r with B^-1 = T(:, 0..n-1).  Two steps. */
static void s_refine(s_tableau *tb, const double *M, const double *q, double sm, double sq)
{
    int n = tb->n;
    double *r = tb->col;
    for (int step = 0; step < 2; step++) {
        for (int k = 0; k < n; k++) r[k] = q[k] / sq;
        /* r -= B x: the basic column of w_j is e_j, of z_j is -M'(:, j), of z0 is -e */
        for (int i = 0; i < n; i++) {
            int v = tb->basis[i];
            double x = S_T(tb, i, 2 * n + 1);
            if (v < n) {
                r[v] -= x;
            } else if (v < 2 * n) {
                const double *mc = M + (size_t)n * (size_t)(v - n);
                for (int k = 0; k < n; k++) r[k] += mc[k] / sm * x;
            } else {
                for (int k = 0; k < n; k++) r[k] += x;
            }
        }
        for (int i = 0; i < n; i++) {
            double s = 0.0;
            for (int k = 0; k < n; k++) s += S_T(tb, i, k) * r[k];
            tb->dx[i] = s;
        }
        for (int i = 0; i < n; i++) S_T(tb, i, 2 * n + 1) += tb->dx[i];
    }
}

/* z from the basic variables (scaled back), w = M z + q from the data. */
static void s_extract(const s_tableau *tb, const double *M, const double *q, double scale,
                      double *z, double *w)
{
    int n = tb->n;
    for (int j = 0; j < n; j++) z[j] = 0.0;
    for (int i = 0; i < n; i++) {
        int v = tb->basis[i];
        if (v >= n && v < 2 * n) z[v - n] = fmax(S_T(tb, i, 2 * n + 1), 0.0) * scale;
    }
    if (w) {
        for (int i = 0; i < n; i++) w[i] = q[i];
        for (int j = 0; j < n; j++) {
            if (z[j] == 0.0) continue;
            for (int i = 0; i < n; i++) w[i] += M[i + (size_t)n * j] * z[j];
        }
    }
}

int mbs_lcp_lemke(int n, const double *M, const double *q, double *z, double *w,
                  const mbs_lcp_opts *opt, void *work, mbs_lcp_status *st)
{
    if (st) memset(st, 0, sizeof *st);
    int rc = s_check_args("lemke", n, M, q, z, work, st);
    if (rc) return rc;
    int max_pivots = (opt && opt->max_pivots > 0) ? opt->max_pivots : 50 * n;
    double ptol = (opt && opt->pivot_tol > 0.0) ? opt->pivot_tol : 1e-12;
    if (!(ptol < 1.0)) {
        s_msg(st, "lemke: pivot_tol %g must be < 1", ptol);
        return MBS_EINVAL;
    }

    /* Trivial case: q >= 0 is solved by z = 0, w = q. */
    int imin = 0;
    for (int i = 1; i < n; i++)
        if (q[i] < q[imin]) imin = i;
    if (n == 0 || q[imin] >= 0.0) {
        for (int i = 0; i < n; i++) {
            z[i] = 0.0;
            if (w) w[i] = q[i];
        }
        s_msg(st, "lemke: q >= 0, z = 0 (no pivots)");
        return MBS_LCP_SOLVED;
    }

    /* Workspace layout: tableau, two vectors, then the basis (ints). */
    s_tableau tb;
    tb.n = n;
    tb.T = (double *)work;
    tb.col = tb.T + (size_t)n * (2 * (size_t)n + 2);
    tb.dx = tb.col + n;
    tb.basis = (int *)(void *)(tb.dx + n);

    /* Tableau [I | -M' | -e | q'] with M' = M / sm, q' = q / sq, so that the
     * tolerances are relative; z = z' sq / sm undoes the scaling. */
    double sm = s_amax((size_t)n * (size_t)n, M), sq = s_amax((size_t)n, q);
    if (sm == 0.0) sm = 1.0;
    int ncol = 2 * n + 2, cz0 = 2 * n, cq = 2 * n + 1;
    for (int j = 0; j < ncol; j++)
        for (int i = 0; i < n; i++) {
            double v;
            if (j < n) v = (i == j) ? 1.0 : 0.0;
            else if (j < 2 * n) v = -M[i + (size_t)n * (j - n)] / sm;
            else if (j == cz0) v = -1.0;
            else v = q[i] / sq;
            S_T(&tb, i, j) = v;
        }
    for (int i = 0; i < n; i++) tb.basis[i] = i;

    /* First pivot: z0 enters and replaces the most negative q_i, which makes
     * every right-hand side >= 0.  Ties go to the lexicographic minimum of
     * (q_i, B^-1_i) (B^-1 = I here: the largest tied index), which keeps the
     * tableau lexicographically feasible. */
    int r = 0;
    for (int i = 1; i < n; i++)
        if (s_lexcmp(&tb, i, 1.0, r, 1.0) < 0) r = i;
    s_pivot(&tb, r, cz0);
    int leaving = tb.basis[r];
    tb.basis[r] = cz0;
    int pivots = 1;
    char name[32];

    for (;;) {
        /* the complement of the variable that just left enters */
        int c = leaving < n ? leaving + n : leaving - n;
        if (pivots >= max_pivots) {
            s_extract(&tb, M, q, sq / sm, z, w);
            s_varname(n, c, name, sizeof name);
            s_msg(st, "lemke: pivot limit %d reached (next entering %s); z is not a solution",
                  max_pivots, name);
            if (st) {
                st->pivots = pivots;
                st->residual = mbs_lcp_residual(n, M, q, z, NULL);
            }
            return MBS_LCP_LIMIT;
        }

        /* Minimum-ratio test over the rows with a positive entry in column c:
         * lexicographic minimum; z0 leaves whenever its row ties for the
         * smallest right-hand-side ratio. */
        r = -1;
        int rz0 = -1;
        for (int i = 0; i < n; i++) {
            double d = S_T(&tb, i, c);
            if (d <= ptol) continue;
            if (tb.basis[i] == cz0) rz0 = i;
            if (r < 0 || s_lexcmp(&tb, i, d, r, S_T(&tb, r, c)) < 0) r = i;
        }
        if (r < 0) {
            /* Ray termination: c can grow without bound along the almost-
             * complementary ray; Lemke cannot find a solution (for a
             * copositive-plus M this proves that none exists). */
            double z0 = 0.0;
            for (int i = 0; i < n; i++)
                if (tb.basis[i] == cz0) z0 = S_T(&tb, i, cq) * sq;
            s_extract(&tb, M, q, sq / sm, z, w);
            s_varname(n, c, name, sizeof name);
            s_msg(st,
                  "lemke: ray termination after %d pivots: entering %s has no blocking row "
                  "(artificial z0 = %g); no solution found",
                  pivots, name, z0);
            if (st) {
                st->pivots = pivots;
                st->residual = mbs_lcp_residual(n, M, q, z, NULL);
            }
            return MBS_LCP_RAY;
        }
        if (rz0 >= 0 && rz0 != r &&
            s_tie(S_T(&tb, rz0, cq) / S_T(&tb, rz0, c), S_T(&tb, r, cq) / S_T(&tb, r, c)))
            r = rz0;

        s_pivot(&tb, r, c);
        leaving = tb.basis[r];
        tb.basis[r] = c;
        pivots++;
        if (leaving == cz0) break;
    }

    /* z0 left: the basis is complementary.  Refine and extract. */
    s_refine(&tb, M, q, sm, sq);
    s_extract(&tb, M, q, sq / sm, z, w);
    if (st) {
        st->pivots = pivots;
        st->residual = mbs_lcp_residual(n, M, q, z, NULL);
    }
    s_msg(st, "lemke: solved in %d pivots, residual %.3g", pivots,
          st ? st->residual : 0.0);
    return MBS_LCP_SOLVED;
}

/* ---- projected Gauss-Seidel ------------------------------------------------------ */

size_t mbs_lcp_pgs_worksize(int n) { return (size_t)(n > 0 ? n : 1) * sizeof(double); }

/* w = M z + q, column by column. */
static void s_mulvec(int n, const double *M, const double *q, const double *z, double *w)
{
    for (int i = 0; i < n; i++) w[i] = q[i];
    for (int j = 0; j < n; j++) {
        if (z[j] == 0.0) continue;
        const double *mc = M + (size_t)n * j;
        for (int i = 0; i < n; i++) w[i] += mc[i] * z[j];
    }
}

/* Natural-map residual from a given w (bounds from z). */
static double s_box_res_w(int n, const int *normal, const double *mu, const double *z,
                          const double *w)
{
    double res = 0.0;
    for (int i = 0; i < n; i++) {
        double lo, hi;
        s_bounds(i, normal, mu, z, &lo, &hi);
        double r = fabs(z[i] - s_clamp(z[i] - w[i], lo, hi));
        if (r > res || isnan(r)) res = r;
    }
    return res;
}

/* The PGS iteration shared by both entry points (normal == NULL: plain LCP). */
static int s_pgs(const char *who, int n, const double *M, const double *q, const int *normal,
                 const double *mu, double *z, const mbs_lcp_opts *opt, void *work,
                 mbs_lcp_status *st)
{
    if (st) memset(st, 0, sizeof *st);
    int rc = s_check_args(who, n, M, q, z, work, st);
    if (rc) return rc;
    int max_iter = (opt && opt->max_iter > 0) ? opt->max_iter : 1000;
    double tol = (opt && opt->tol > 0.0) ? opt->tol : 1e-10;
    double omega = (opt && opt->omega > 0.0) ? opt->omega : 1.0;
    if (!(omega < 2.0)) {
        s_msg(st, "%s: omega = %g is not in (0, 2)", who, omega);
        return MBS_EINVAL;
    }
    /* the diagonal must be positive; a friction index must point to a normal */
    for (int i = 0; i < n; i++) {
        if (!(M[i + (size_t)n * i] > 0.0)) {
            s_msg(st, "%s: M[%d][%d] = %g is not positive", who, i, i, M[i + (size_t)n * i]);
            return MBS_EINVAL;
        }
        if (!normal || normal[i] < 0) continue;
        int k = normal[i];
        if (k >= n || k == i || normal[k] >= 0) {
            s_msg(st, "%s: friction index %d refers to %d, which is not a normal index", who,
                  i, k);
            return MBS_EINVAL;
        }
        if (!mu || !(mu[i] >= 0.0) || !isfinite(mu[i])) {
            s_msg(st, "%s: friction index %d needs a finite mu >= 0", who, i);
            return MBS_EINVAL;
        }
    }
    if (!s_finite((size_t)n, z)) {
        s_msg(st, "%s: the start z has a non-finite entry", who);
        return MBS_EINVAL;
    }

    /* Project the start onto the bounds: normals first, then the friction
     * indices (their bounds depend on the normals). */
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++) {
            int fric = normal && normal[i] >= 0;
            if (fric != pass) continue;
            double lo, hi;
            s_bounds(i, normal, mu, z, &lo, &hi);
            z[i] = s_clamp(z[i], lo, hi);
        }

    double *w = (double *)work;
    double qs = s_amax((size_t)n, q);
    double target = tol * qs;
    /* q = 0: z = 0 is a solution (0 lies within every box) */
    if (qs == 0.0)
        for (int i = 0; i < n; i++) z[i] = 0.0;
    s_mulvec(n, M, q, z, w);
    double res = s_box_res_w(n, normal, mu, z, w);
    int it = 0;
    while (res > target && it < max_iter) {
        /* One sweep: update z_i in order, then w by column i of M. */
        for (int i = 0; i < n; i++) {
            const double *mc = M + (size_t)n * i;
            double lo, hi;
            s_bounds(i, normal, mu, z, &lo, &hi);
            double zi = s_clamp(z[i] - omega * w[i] / mc[i], lo, hi);
            double dz = zi - z[i];
            if (dz == 0.0) continue;
            z[i] = zi;
            for (int k = 0; k < n; k++) w[k] += mc[k] * dz;
        }
        it++;
        res = s_box_res_w(n, normal, mu, z, w);
        /* accept convergence only with a freshly computed w (no drift) */
        if (res <= target) {
            s_mulvec(n, M, q, z, w);
            res = s_box_res_w(n, normal, mu, z, w);
        }
    }
    if (st) {
        st->iterations = it;
        st->residual = res;
    }
    if (res > target) {
        s_msg(st, "%s: iteration limit %d reached, residual %.3g > %.3g", who, max_iter, res,
              target);
        return MBS_LCP_LIMIT;
    }
    s_msg(st, "%s: converged in %d sweeps, residual %.3g", who, it, res);
    return MBS_LCP_SOLVED;
}

int mbs_lcp_pgs(int n, const double *M, const double *q, double *z, const mbs_lcp_opts *opt,
                void *work, mbs_lcp_status *st)
{
    return s_pgs("pgs", n, M, q, NULL, NULL, z, opt, work, st);
}

int mbs_lcp_pgs_friction(int n, const double *M, const double *q, const int *normal,
                         const double *mu, double *z, const mbs_lcp_opts *opt, void *work,
                         mbs_lcp_status *st)
{
    return s_pgs("pgs_friction", n, M, q, normal, mu, z, opt, work, st);
}
