/*
 * cinv_test.c - tests of common/mbs/linalg/cinv.c (constrained inverse by
 * the Schur complement) against an independent dense solve of the saddle-
 * point system [M A^T; A 0] [v; mu] = [f; e] by Gaussian elimination with
 * partial pivoting written here:
 *   - random SPD M and full-rank A (fixed seed), n = 1..20, m = 0..n-1:
 *     v agrees to 1e-10 relative; A P = 0, P symmetric, P M P = P, and
 *     the range factor U (n - m columns) gives U U^T = P;
 *   - a row switched off equals the system without that row;
 *   - dependent rows and an indefinite M are refused (return 1).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mbs/linalg/cinv.h"

static uint64_t s_rng = 0x9E3779B97F4A7C15ull;

/* xorshift64*: uniform in [-1, 1) */
static double t_rand(void)
{
    s_rng ^= s_rng >> 12;
    s_rng ^= s_rng << 25;
    s_rng ^= s_rng >> 27;
    return (double)((s_rng * 2685821657736338717ull) >> 11) / 9007199254740992.0 * 2 - 1;
}

/* Solve the k x k system K x = b (row-major, destroyed) by Gaussian
 * elimination with partial pivoting; b is replaced by x. */
static void t_gauss(int k, double *K, double *b)
{
    for (int j = 0; j < k; j++) {
        int p = j;
        for (int i = j + 1; i < k; i++)
            if (fabs(K[i * k + j]) > fabs(K[p * k + j])) p = i;
        for (int c = 0; c < k; c++) { double t = K[j * k + c]; K[j * k + c] = K[p * k + c]; K[p * k + c] = t; }
        double t = b[j]; b[j] = b[p]; b[p] = t;
        for (int i = j + 1; i < k; i++) {
            double f = K[i * k + j] / K[j * k + j];
            for (int c = j; c < k; c++) K[i * k + c] -= f * K[j * k + c];
            b[i] -= f * b[j];
        }
    }
    for (int i = k - 1; i >= 0; i--) {
        double s = b[i];
        for (int c = i + 1; c < k; c++) s -= K[i * k + c] * b[c];
        b[i] = s / K[i * k + i];
    }
}

/* Random SPD M = R R^T + n I / 10 (n x n) and A (m x n). */
static void t_problem(int n, int m, double *M, double *A)
{
    double R[400];
    for (int i = 0; i < n * n; i++) R[i] = t_rand();
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = i == j ? 0.1 * n : 0;
            for (int k = 0; k < n; k++) s += R[i * n + k] * R[j * n + k];
            M[i * n + j] = s;
        }
    for (int i = 0; i < m * n; i++) A[i] = t_rand();
}

/* The reference v of the saddle-point system with the rows on[r] != 0. */
static void t_reference(int n, int m, const double *M, const double *A, const int *on, const double *f,
                        const double *e, double *v)
{
    int ma = 0, rows[20];
    for (int r = 0; r < m; r++)
        if (on[r]) rows[ma++] = r;
    int k = n + ma;
    double K[40 * 40], b[40];
    memset(K, 0, sizeof K);
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) K[i * k + j] = M[i * n + j];
        b[i] = f[i];
    }
    for (int a = 0; a < ma; a++) {
        for (int j = 0; j < n; j++) K[(n + a) * k + j] = K[j * k + n + a] = A[rows[a] * n + j];
        b[n + a] = e[rows[a]];
    }
    t_gauss(k, K, b);
    memcpy(v, b, sizeof(double) * (size_t)n);
}

static void t_random(void)
{
    double worst = 0, worst_ap = 0, worst_sym = 0, worst_pmp = 0, worst_u = 0;
    int cases = 0;
    for (int n = 1; n <= 20; n++)
        for (int m = 0; m < n; m++) {
            double M[400], A[400], f[20], e[20], v[20], vr[20];
            int on[20];
            t_problem(n, m, M, A);
            for (int i = 0; i < n; i++) f[i] = t_rand();
            for (int r = 0; r < m; r++) { e[r] = t_rand(); on[r] = 1; }
            mbs_cinv c;
            CHECK(mbs_cinv_init(&c, n, m) == 0);
            CHECK(mbs_cinv_set_minv(&c, M) == 0);
            CHECK(mbs_cinv_factor(&c, A, on) == 0);
            mbs_cinv_solve(&c, f, e, v);
            t_reference(n, m, M, A, on, f, e, vr);
            double scale = 0, diff = 0;
            for (int i = 0; i < n; i++) {
                scale = fmax(scale, fabs(vr[i]));
                diff = fmax(diff, fabs(v[i] - vr[i]));
            }
            worst = fmax(worst, diff / scale);
            /* A P = 0, P = P^T, P M P = P (relative to max |P|) */
            double pmax = 0;
            for (int i = 0; i < n * n; i++) pmax = fmax(pmax, fabs(c.P[i]));
            for (int r = 0; r < m; r++)
                for (int j = 0; j < n; j++) {
                    double s = 0, amax = 0;
                    for (int k = 0; k < n; k++) { s += A[r * n + k] * c.P[k * n + j]; amax = fmax(amax, fabs(A[r * n + k])); }
                    worst_ap = fmax(worst_ap, fabs(s) / (amax * pmax));
                }
            /* the range factor: P = U U^T with r = n - m columns */
            CHECK(c.r == n - m);
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++) {
                    double s = 0;
                    for (int k = 0; k < c.r; k++) s += c.U[i * c.r + k] * c.U[j * c.r + k];
                    worst_u = fmax(worst_u, fabs(s - c.P[i * n + j]) / pmax);
                }
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++) {
                    worst_sym = fmax(worst_sym, fabs(c.P[i * n + j] - c.P[j * n + i]) / pmax);
                    double s = 0;
                    for (int k = 0; k < n; k++)
                        for (int l = 0; l < n; l++) s += c.P[i * n + k] * M[k * n + l] * c.P[l * n + j];
                    worst_pmp = fmax(worst_pmp, fabs(s - c.P[i * n + j]) / pmax);
                }
            mbs_cinv_free(&c);
            cases++;
        }
    printf("  %d random saddle-point systems: v against Gaussian elimination %.2g (relative), |A P| %.2g, "
           "|P - P^T| %.2g, |P M P - P| %.2g, |U U^T - P| %.2g\n", cases, worst, worst_ap, worst_sym, worst_pmp,
           worst_u);
    CHECK(worst <= 1e-10);
    CHECK(worst_ap <= 1e-10);
    CHECK(worst_sym == 0);
    CHECK(worst_pmp <= 1e-9);
    CHECK(worst_u <= 1e-12);
}

/* A row switched off: the system without it; dependent rows and an
 * indefinite M: refused. */
static void t_off_and_refusals(void)
{
    int n = 12, m = 6;
    double M[144], A[72], f[12], e[6], v[12], vr[12];
    int on[6] = {1, 1, 0, 1, 1, 1};
    t_problem(n, m, M, A);
    for (int i = 0; i < n; i++) f[i] = t_rand();
    for (int r = 0; r < m; r++) e[r] = t_rand();
    mbs_cinv c;
    CHECK(mbs_cinv_init(&c, n, m) == 0);
    CHECK(mbs_cinv_set_minv(&c, M) == 0);
    CHECK(mbs_cinv_factor(&c, A, on) == 0);
    mbs_cinv_solve(&c, f, e, v);
    t_reference(n, m, M, A, on, f, e, vr);
    double diff = 0;
    for (int i = 0; i < n; i++) diff = fmax(diff, fabs(v[i] - vr[i]));
    printf("  row 2 of 6 switched off: difference to the system without it %.2g\n", diff);
    CHECK(diff <= 1e-11);
    /* row 4 = 2 row 1 - row 0: dependent */
    for (int j = 0; j < n; j++) A[4 * n + j] = 2 * A[1 * n + j] - A[0 * n + j];
    on[2] = 1;
    CHECK(mbs_cinv_factor(&c, A, on) == 1);
    on[4] = 0;
    CHECK(mbs_cinv_factor(&c, A, on) == 0);
    /* an indefinite M */
    M[0] = -1;
    CHECK(mbs_cinv_set_minv(&c, M) == 1);
    mbs_cinv_free(&c);
}

int main(void)
{
    t_random();
    t_off_and_refusals();
    return CHECK_SUMMARY("cinv_test");
}
