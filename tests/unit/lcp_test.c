/*
 * lcp_test.c - tests of common/mbs/linalg/lcp.c (Lemke, projected Gauss-Seidel,
 * boxed PGS with friction, residuals).
 *
 *   - 1x1 cases, the textbook 2x2 M = [[2,1],[1,2]], q = [-5,-6] ->
 *     z = [4/3, 7/3], one active and one inactive index, degenerate cases
 *     (q_i = 0 with w_i = z_i = 0, all-tied q on a cyclic P-matrix,
 *     singular PSD M);
 *   - random symmetric positive definite M (fixed seed), n = 2..50: Lemke
 *     residual <= 1e-10 |q|, PGS (converged) agrees with Lemke to 1e-8;
 *   - nonsymmetric P-matrices (triangular, not positive definite; random
 *     positive definite nonsymmetric) against the unique solution found by
 *     enumerating all 2^n complementary bases; heavily degenerate integer
 *     problems (ties in every ratio test) against the same;
 *   - ray termination (M = [[-1]], q = [-1]) with its message, pivot and
 *     iteration limits, invalid input;
 *   - friction PGS: a block on an incline, sticking when tan a <= mu and
 *     sliding with |tangent impulse| = mu * normal impulse otherwise, for a
 *     point mass and for a body whose contact point couples normal and
 *     tangent through the rotation.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mbs/linalg/lcp.h"
#include "mbs/mbs.h"

/* ---- helpers ------------------------------------------------------------------- */

static uint64_t s_rng = 0x2545F4914F6CDD1Dull;

/* xorshift64*: uniform in [0, 1) */
static double t_rand(void)
{
    s_rng ^= s_rng >> 12;
    s_rng ^= s_rng << 25;
    s_rng ^= s_rng >> 27;
    return (double)((s_rng * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

static double t_amax(int n, const double *a)
{
    double m = 0.0;
    for (int i = 0; i < n; i++) m = fmax(m, fabs(a[i]));
    return m;
}

/* Lemke with a freshly allocated workspace; w may be NULL. */
/* M = A A^T + diag I (n x n, column-major): symmetric positive definite
 * for diag > 0. */
static void t_gram(int n, const double *A, double diag, double *M)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = (i == j) ? diag : 0.0;
            for (int k = 0; k < n; k++) s += A[i + n * k] * A[j + n * k];
            M[i + n * j] = s;
        }
}

static int t_lemke(int n, const double *M, const double *q, double *z, double *w,
                   const mbs_lcp_opts *opt, mbs_lcp_status *st)
{
    void *work = malloc(mbs_lcp_lemke_worksize(n));
    int rc = mbs_lcp_lemke(n, M, q, z, w, opt, work, st);
    free(work);
    return rc;
}

static int t_pgs(int n, const double *M, const double *q, double *z, const mbs_lcp_opts *opt,
                 mbs_lcp_status *st)
{
    void *work = malloc(mbs_lcp_pgs_worksize(n));
    int rc = mbs_lcp_pgs(n, M, q, z, opt, work, st);
    free(work);
    return rc;
}

static int t_pgs_fric(int n, const double *M, const double *q, const int *normal,
                      const double *mu, double *z, const mbs_lcp_opts *opt, mbs_lcp_status *st)
{
    void *work = malloc(mbs_lcp_pgs_worksize(n));
    int rc = mbs_lcp_pgs_friction(n, M, q, normal, mu, z, opt, work, st);
    free(work);
    return rc;
}

/* Solve A x = b (n <= 8, column-major A with leading dimension lda) by
 * Gaussian elimination with partial pivoting; 0, or -1 when singular. */
static int t_solve_small(int n, const double *A, int lda, const double *b, double *x)
{
    double a[8][9];
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) a[i][j] = A[i + lda * j];
        a[i][n] = b[i];
    }
    for (int k = 0; k < n; k++) {
        int p = k;
        for (int i = k + 1; i < n; i++)
            if (fabs(a[i][k]) > fabs(a[p][k])) p = i;
        if (fabs(a[p][k]) < 1e-13) return -1;
        for (int j = 0; j <= n; j++) {
            double t = a[k][j];
            a[k][j] = a[p][j];
            a[p][j] = t;
        }
        for (int i = k + 1; i < n; i++) {
            double f = a[i][k] / a[k][k];
            for (int j = k; j <= n; j++) a[i][j] -= f * a[k][j];
        }
    }
    for (int i = n - 1; i >= 0; i--) {
        double s = a[i][n];
        for (int j = i + 1; j < n; j++) s -= a[i][j] * x[j];
        x[i] = s / a[i][i];
    }
    return 0;
}

/* The solution of LCP(M, q) by enumerating the complementary bases
 * (n <= 8): for each set B, z_B = -M_BB^-1 q_B, z_N = 0, feasible when
 * z >= 0 and w >= 0 (to 1e-10).  Returns 0 when there is none, 1 when
 * every feasible basis gives the first solution found (z receives it), 2
 * when another one differs. */
static int t_enumerate(int n, const double *M, const double *q, double *z)
{
    int found = 0;
    for (unsigned mask = 0; mask < (1u << n); mask++) {
        int idx[8], m = 0;
        for (int i = 0; i < n; i++)
            if (mask & (1u << i)) idx[m++] = i;
        double A[64], b[8], x[8], zz[8] = {0};
        for (int a = 0; a < m; a++) {
            b[a] = -q[idx[a]];
            for (int c = 0; c < m; c++) A[a + m * c] = M[idx[a] + n * idx[c]];
        }
        if (m > 0 && t_solve_small(m, A, m, b, x) != 0) continue;
        for (int a = 0; a < m; a++) zz[idx[a]] = x[a];
        double neg;
        double res = mbs_lcp_residual(n, M, q, zz, &neg);
        if (res <= 1e-10 && neg >= -1e-10) {
            /* degenerate bases (a basic z_i = 0) repeat a solution: count
             * distinct ones */
            double d = 0.0;
            for (int i = 0; found && i < n; i++) d = fmax(d, fabs(zz[i] - z[i]));
            if (!found) memcpy(z, zz, sizeof(double) * (size_t)n);
            if (!found || d > 1e-9) found++;
        }
    }
    return found;
}

/* ---- small cases with known solutions ---------------------------------------------- */

static void test_small(void)
{
    mbs_lcp_status st;
    double z[3], w[3];

    /* 1x1: 2 z - 4 = 0 -> z = 2 */
    {
        double M[1] = {2}, q[1] = {-4};
        CHECK(t_lemke(1, M, q, z, w, NULL, &st) == MBS_LCP_SOLVED);
        CHECK_NEAR(z[0], 2.0, 1e-15);
        CHECK_NEAR(w[0], 0.0, 1e-15);
        CHECK(st.pivots == 2);
        CHECK(strstr(st.message, "solved") != NULL);
    }
    /* 1x1 trivial: q >= 0 gives z = 0 without pivots (also q = 0) */
    {
        double M[1] = {2}, q[1] = {3};
        z[0] = 7;
        CHECK(t_lemke(1, M, q, z, w, NULL, &st) == MBS_LCP_SOLVED);
        CHECK(z[0] == 0.0 && w[0] == 3.0 && st.pivots == 0);
        q[0] = 0.0;
        CHECK(t_lemke(1, M, q, z, NULL, NULL, &st) == MBS_LCP_SOLVED);
        CHECK(z[0] == 0.0 && st.pivots == 0);
    }
    /* textbook 2x2: M = [[2,1],[1,2]], q = [-5,-6] -> z = [4/3, 7/3], w = 0 */
    {
        double M[4] = {2, 1, 1, 2}, q[2] = {-5, -6};
        CHECK(t_lemke(2, M, q, z, w, NULL, &st) == MBS_LCP_SOLVED);
        CHECK_NEAR(z[0], 4.0 / 3.0, 1e-14);
        CHECK_NEAR(z[1], 7.0 / 3.0, 1e-14);
        CHECK_NEAR(w[0], 0.0, 1e-14);
        CHECK_NEAR(w[1], 0.0, 1e-14);
        CHECK(st.residual <= 1e-14);
        double zp[2] = {0, 0};
        mbs_lcp_opts o = {0};
        o.tol = 1e-14;
        CHECK(t_pgs(2, M, q, zp, &o, &st) == MBS_LCP_SOLVED);
        CHECK_NEAR(zp[0], 4.0 / 3.0, 1e-12);
        CHECK_NEAR(zp[1], 7.0 / 3.0, 1e-12);
        CHECK(st.iterations > 1);
        CHECK(strstr(st.message, "converged") != NULL);
    }
    /* one active, one inactive: q = [-2, 3] -> z = [1, 0], w = [0, 4] */
    {
        double M[4] = {2, 1, 1, 2}, q[2] = {-2, 3};
        CHECK(t_lemke(2, M, q, z, w, NULL, &st) == MBS_LCP_SOLVED);
        CHECK_NEAR(z[0], 1.0, 1e-15);
        CHECK(z[1] == 0.0);
        CHECK_NEAR(w[0], 0.0, 1e-15);
        CHECK_NEAR(w[1], 4.0, 1e-15);
        double zp[2] = {5, 5}; /* a poor warm start */
        CHECK(t_pgs(2, M, q, zp, NULL, &st) == MBS_LCP_SOLVED);
        CHECK_NEAR(zp[0], 1.0, 1e-9);
        CHECK(zp[1] == 0.0);
    }
    /* degenerate: q_1 = 0 gives z_1 = w_1 = 0 (M = I, q = [-1, 0]) */
    {
        double M[4] = {1, 0, 0, 1}, q[2] = {-1, 0};
        CHECK(t_lemke(2, M, q, z, w, NULL, &st) == MBS_LCP_SOLVED);
        CHECK_NEAR(z[0], 1.0, 1e-15);
        CHECK(z[1] == 0.0 && w[1] == 0.0);
    }
    /* degenerate: all q tied on the cyclic P-matrix [[1,2,0],[0,1,2],[2,0,1]],
     * q = -e -> z = e / 3 (every ratio test has ties; with ties broken by
     * the right-hand side and the row index alone, Lemke fails here) */
    {
        double M[9] = {1, 0, 2, 2, 1, 0, 0, 2, 1}, q[3] = {-1, -1, -1};
        CHECK(t_lemke(3, M, q, z, w, NULL, &st) == MBS_LCP_SOLVED);
        for (int i = 0; i < 3; i++) {
            CHECK_NEAR(z[i], 1.0 / 3.0, 1e-14);
            CHECK_NEAR(w[i], 0.0, 1e-14);
        }
        /* the same with M = I: three tied rows, z = e */
        double I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
        CHECK(t_lemke(3, I3, q, z, w, NULL, &st) == MBS_LCP_SOLVED);
        for (int i = 0; i < 3; i++) CHECK_NEAR(z[i], 1.0, 1e-15);
    }
    /* degenerate, singular PSD M = [[1,1],[1,1]], q = [-1,-1]: solutions are
     * z1 + z2 = 1, z >= 0 (not unique); check the residual */
    {
        double M[4] = {1, 1, 1, 1}, q[2] = {-1, -1}, neg;
        CHECK(t_lemke(2, M, q, z, w, NULL, &st) == MBS_LCP_SOLVED);
        CHECK_NEAR(z[0] + z[1], 1.0, 1e-14);
        CHECK(mbs_lcp_residual(2, M, q, z, &neg) <= 1e-14 && neg >= -1e-14);
    }
    /* residual function on a wrong candidate: z = [1, -0.5] for the textbook
     * problem: w = [-3.5, -6]; |min| = [3.5, 6], most negative -6 */
    {
        double M[4] = {2, 1, 1, 2}, q[2] = {-5, -6}, zz[2] = {1, -0.5}, neg = 0;
        CHECK_NEAR(mbs_lcp_residual(2, M, q, zz, &neg), 6.0, 1e-15);
        CHECK_NEAR(neg, -6.0, 1e-15);
        CHECK_NEAR(mbs_lcp_box_residual(2, M, q, NULL, NULL, zz), 6.0, 1e-15);
    }
}

/* ---- random symmetric positive definite problems ---------------------------------- */

static void test_random_spd(void)
{
    int bad_res = 0, bad_agree = 0, bad_rc = 0, nprob = 0;
    double worst_res = 0.0, worst_diff = 0.0;
    long pivots = 0, sweeps = 0;
    for (int n = 2; n <= 50; n++) {
        for (int rep = 0; rep < 2; rep++) {
            double *A = malloc(sizeof(double) * (size_t)n * (size_t)n);
            double *M = malloc(sizeof(double) * (size_t)n * (size_t)n);
            double *q = malloc(sizeof(double) * (size_t)n), *z = malloc(sizeof(double) * (size_t)n);
            double *zp = calloc((size_t)n, sizeof(double)), *w = malloc(sizeof(double) * (size_t)n);
            /* M = A A^T + 0.5 I, A uniform in [-1, 1]; q uniform in [-1, 1] */
            for (int k = 0; k < n * n; k++) A[k] = 2.0 * t_rand() - 1.0;
            t_gram(n, A, 0.5, M);
            for (int i = 0; i < n; i++) q[i] = 2.0 * t_rand() - 1.0;
            double qs = t_amax(n, q);

            mbs_lcp_status st;
            int rc = t_lemke(n, M, q, z, w, NULL, &st);
            double neg;
            double res = mbs_lcp_residual(n, M, q, z, &neg);
            if (rc != MBS_LCP_SOLVED) bad_rc++;
            if (!(res <= 1e-10 * qs) || neg < -1e-10 * qs) bad_res++;
            worst_res = fmax(worst_res, res / qs);
            pivots += st.pivots;

            mbs_lcp_opts o = {0};
            o.tol = 1e-14;
            o.max_iter = 200000;
            rc = t_pgs(n, M, q, zp, &o, &st);
            if (rc != MBS_LCP_SOLVED) bad_rc++;
            sweeps += st.iterations;
            double diff = 0.0;
            for (int i = 0; i < n; i++) diff = fmax(diff, fabs(z[i] - zp[i]));
            diff /= fmax(1.0, t_amax(n, z));
            worst_diff = fmax(worst_diff, diff);
            if (!(diff <= 1e-8)) bad_agree++;
            nprob++;
            free(A), free(M), free(q), free(z), free(zp), free(w);
        }
    }
    CHECK(bad_rc == 0);
    CHECK(bad_res == 0);
    CHECK(bad_agree == 0);
    printf("  random SPD n = 2..50 (%d problems): worst Lemke residual %.2e |q|, worst "
           "|z_Lemke - z_PGS| %.2e; %ld pivots, %ld PGS sweeps in all\n",
           nprob, worst_res, worst_diff, pivots, sweeps);

    /* over-relaxation gives the same solution (n = 20) */
    {
        int n = 20;
        double M[400], q[20], z1[20] = {0}, z2[20] = {0}, A[400];
        for (int k = 0; k < n * n; k++) A[k] = 2.0 * t_rand() - 1.0;
        t_gram(n, A, 1.0, M);
        for (int i = 0; i < n; i++) q[i] = 2.0 * t_rand() - 1.0;
        mbs_lcp_status s1, s2;
        mbs_lcp_opts o = {0};
        o.tol = 1e-13;
        o.max_iter = 100000;
        CHECK(t_pgs(n, M, q, z1, &o, &s1) == MBS_LCP_SOLVED);
        o.omega = 1.5;
        CHECK(t_pgs(n, M, q, z2, &o, &s2) == MBS_LCP_SOLVED);
        double d = 0.0;
        for (int i = 0; i < n; i++) d = fmax(d, fabs(z1[i] - z2[i]));
        CHECK(d <= 1e-9);
        printf("  PGS n = 20: %d sweeps with omega = 1, %d with omega = 1.5\n", s1.iterations,
               s2.iterations);
    }
}

/* ---- nonsymmetric P-matrices --------------------------------------------------------- */

static void test_pmatrix(void)
{
    mbs_lcp_status st;
    /* [[1,-3],[0,1]]: a P-matrix (minors 1, 1, 1) that is not positive
     * definite (x = [1,1] gives x^T M x = -1).  Several q, each against the
     * unique solution by enumeration. */
    {
        double M[4] = {1, 0, -3, 1};
        double qs[5][2] = {{-1, -1}, {2, -1}, {-1, 2}, {-4, -1}, {0.5, -2}};
        for (int c = 0; c < 5; c++) {
            double z[2], ze[2];
            CHECK(t_enumerate(2, M, qs[c], ze) == 1);
            CHECK(t_lemke(2, M, qs[c], z, NULL, NULL, &st) == MBS_LCP_SOLVED);
            CHECK_NEAR(z[0], ze[0], 1e-13);
            CHECK_NEAR(z[1], ze[1], 1e-13);
        }
    }
    /* upper triangular with positive diagonal and large off-diagonal entries:
     * a P-matrix far from symmetric; random q */
    {
        double M[9] = {1, 0, 0, -4, 2, 0, 5, -3, 1};
        int bad = 0;
        for (int c = 0; c < 50; c++) {
            double q[3], z[3], ze[3];
            for (int i = 0; i < 3; i++) q[i] = 4.0 * t_rand() - 2.0;
            if (t_enumerate(3, M, q, ze) != 1) bad++;
            if (t_lemke(3, M, q, z, NULL, NULL, &st) != MBS_LCP_SOLVED) bad++;
            for (int i = 0; i < 3; i++)
                if (fabs(z[i] - ze[i]) > 1e-12 * fmax(1.0, fabs(ze[i]))) bad++;
        }
        CHECK(bad == 0);
    }
    /* random nonsymmetric positive definite (hence P) M = A A^T + I + S with S
     * skew-symmetric and large, n = 2..8, 20 each */
    {
        int bad = 0;
        for (int n = 2; n <= 8; n++)
            for (int c = 0; c < 20; c++) {
                double A[64], M[64], q[8], z[8], ze[8];
                for (int k = 0; k < n * n; k++) A[k] = 2.0 * t_rand() - 1.0;
                t_gram(n, A, 1.0, M);
                for (int i = 0; i < n; i++)
                    for (int j = i + 1; j < n; j++) {
                        double s = 6.0 * t_rand() - 3.0;
                        M[i + n * j] += s;
                        M[j + n * i] -= s;
                    }
                for (int i = 0; i < n; i++) q[i] = 2.0 * t_rand() - 1.0;
                if (t_enumerate(n, M, q, ze) != 1) bad++;
                if (t_lemke(n, M, q, z, NULL, NULL, &st) != MBS_LCP_SOLVED) bad++;
                for (int i = 0; i < n; i++)
                    if (fabs(z[i] - ze[i]) > 1e-10 * fmax(1.0, t_amax(n, ze))) bad++;
            }
        CHECK(bad == 0);
    }
}

/* Heavily degenerate problems: integer SPD M = A A^T + I with A in {-1,0,1}
 * and q in {-1,0,1}, so that ratio tests tie and basic variables are zero
 * often; the lexicographic rule must still end at the unique solution. */
static void test_degenerate_random(void)
{
    int bad = 0, nties = 0;
    mbs_lcp_status st;
    for (int n = 2; n <= 8; n++)
        for (int c = 0; c < 40; c++) {
            double A[64], M[64], q[8], z[8], ze[8];
            for (int k = 0; k < n * n; k++) A[k] = floor(3.0 * t_rand()) - 1.0;
            t_gram(n, A, 1.0, M);
            for (int i = 0; i < n; i++) q[i] = floor(3.0 * t_rand()) - 1.0;
            for (int i = 1; i < n; i++) nties += q[i] == q[0];
            if (t_enumerate(n, M, q, ze) != 1) bad++;
            if (t_lemke(n, M, q, z, NULL, NULL, &st) != MBS_LCP_SOLVED) bad++;
            for (int i = 0; i < n; i++)
                if (fabs(z[i] - ze[i]) > 1e-12 * fmax(1.0, t_amax(n, ze))) bad++;
        }
    CHECK(bad == 0);
    CHECK(nties > 100);
}

/* ---- failures and invalid input ------------------------------------------------------ */

static void test_failures(void)
{
    mbs_lcp_status st;
    double z[2], w[2];
    /* no solution: -z - 1 >= 0 is impossible for z >= 0 */
    {
        double M[1] = {-1}, q[1] = {-1};
        CHECK(t_lemke(1, M, q, z, w, NULL, &st) == MBS_LCP_RAY);
        CHECK(strstr(st.message, "ray termination") != NULL);
        CHECK(strstr(st.message, "no solution") != NULL);
        CHECK(st.pivots == 1);
        printf("  ray: %s\n", st.message);
    }
    /* a 2x2 without solution: M = [[0,-1],[-1,0]] ... w1 = -z2 - 1 < 0 always */
    {
        double M[4] = {0, -1, -1, 0}, q[2] = {-1, -1};
        CHECK(t_lemke(2, M, q, z, w, NULL, &st) == MBS_LCP_RAY);
        CHECK(st.pivots >= 1);
    }
    /* pivot limit */
    {
        double M[4] = {2, 1, 1, 2}, q[2] = {-5, -6};
        mbs_lcp_opts o = {0};
        o.max_pivots = 1;
        CHECK(t_lemke(2, M, q, z, w, &o, &st) == MBS_LCP_LIMIT);
        CHECK(st.pivots == 1);
        CHECK(strstr(st.message, "pivot limit") != NULL);
        /* PGS iteration limit */
        o.max_iter = 2;
        o.tol = 1e-15;
        z[0] = z[1] = 0.0;
        CHECK(t_pgs(2, M, q, z, &o, &st) == MBS_LCP_LIMIT);
        CHECK(st.iterations == 2 && st.residual > 0.0);
        CHECK(strstr(st.message, "iteration limit") != NULL);
    }
    /* invalid input */
    {
        double M[4] = {2, 1, 1, 2}, q[2] = {-5, -6}, work[64];
        CHECK(mbs_lcp_lemke(-1, M, q, z, w, NULL, work, &st) == MBS_EINVAL);
        CHECK(mbs_lcp_lemke(2, NULL, q, z, w, NULL, work, &st) == MBS_EINVAL);
        CHECK(mbs_lcp_lemke(2, M, q, z, w, NULL, NULL, &st) == MBS_EINVAL);
        CHECK(strstr(st.message, "NULL") != NULL);
        CHECK(mbs_lcp_lemke(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL) == MBS_LCP_SOLVED);
        double qn[2] = {-1, NAN};
        CHECK(mbs_lcp_lemke(2, M, qn, z, w, NULL, work, &st) == MBS_EINVAL);
        CHECK(mbs_lcp_pgs(2, M, qn, z, NULL, work, &st) == MBS_EINVAL);
        CHECK(strstr(st.message, "non-finite") != NULL);
        mbs_lcp_opts o = {0};
        o.omega = 2.5;
        CHECK(mbs_lcp_pgs(2, M, q, z, &o, work, &st) == MBS_EINVAL);
        double M0[4] = {0, 1, 1, 2};
        CHECK(mbs_lcp_pgs(2, M0, q, z, NULL, work, &st) == MBS_EINVAL);
        CHECK(strstr(st.message, "not positive") != NULL);
        int nrm_bad[2] = {1, 0}; /* 0 -> 1 and 1 -> 0: neither is a normal */
        double mu[2] = {0.5, 0.5};
        CHECK(mbs_lcp_pgs_friction(2, M, q, nrm_bad, mu, z, NULL, work, &st) == MBS_EINVAL);
        int nrm[2] = {-1, 0};
        CHECK(mbs_lcp_pgs_friction(2, M, q, nrm, NULL, z, NULL, work, &st) == MBS_EINVAL);
        double mu_neg[2] = {0, -1};
        CHECK(mbs_lcp_pgs_friction(2, M, q, nrm, mu_neg, z, NULL, work, &st) == MBS_EINVAL);
        CHECK(mbs_lcp_lemke_worksize(2) <= sizeof work);
    }
}

/* ---- friction: block on an incline ------------------------------------------------- */

/* One contact on an incline of angle a (time step h, gravity g, at rest
 * before the step), unknowns z = [normal impulse, tangent impulse] with the
 * tangent pointing down the slope.  W = G M^-1 G^T is the Delassus matrix
 * of a planar body (mass m, inertia J) touching at the offset (rt, rn) from
 * its centre of mass in the (tangent, normal) frame: rows
 * G_n = [0, 1, rt], G_t = [1, 0, -rn] on (v_t, v_n, omega);
 * q = G v_free with v_free = h g [sin a, -cos a, 0].
 * Exact impulses: sticking solves W z = -q, valid when |z_t| <= mu z_n;
 * otherwise sliding down with z_t = -mu z_n and
 * z_n = -q_n / (W_nn - mu W_nt). */
static void t_incline(double a_deg, double mu, double m, double J, double rt, double rn,
                      int *nstick, int *nslide)
{
    const double g = 9.81, h = 0.01, a = a_deg * M_PI / 180.0;
    double Wnn = 1.0 / m + rt * rt / J, Wtt = 1.0 / m + rn * rn / J, Wnt = -rt * rn / J;
    double W[4] = {Wnn, Wnt, Wnt, Wtt}; /* column-major, symmetric */
    double q[2] = {-h * g * cos(a), h * g * sin(a)};
    int normal[2] = {-1, 0};
    double muv[2] = {0.0, mu};

    /* expected */
    double det = Wnn * Wtt - Wnt * Wnt;
    double zn = (-q[0] * Wtt + q[1] * Wnt) / det, zt = (-q[1] * Wnn + q[0] * Wnt) / det;
    int stick = fabs(zt) <= mu * zn;
    if (!stick) {
        zn = -q[0] / (Wnn - mu * Wnt);
        zt = -mu * zn;
    }
    *nstick += stick;
    *nslide += !stick;

    double z[2] = {0, 0};
    mbs_lcp_status st;
    mbs_lcp_opts o = {0};
    o.tol = 1e-14;
    CHECK(t_pgs_fric(2, W, q, normal, muv, z, &o, &st) == MBS_LCP_SOLVED);
    double sc = m * h * g;
    CHECK_NEAR(z[0], zn, 1e-12 * sc);
    CHECK_NEAR(z[1], zt, 1e-12 * sc);
    CHECK(mbs_lcp_box_residual(2, W, q, normal, muv, z) <= 1e-13 * h * g);
    /* velocities after the step: no normal velocity; sticking: no slip;
     * sliding: slip down the slope, opposed by the friction impulse */
    double wn = Wnn * z[0] + Wnt * z[1] + q[0], wt = Wnt * z[0] + Wtt * z[1] + q[1];
    CHECK(fabs(wn) <= 1e-12 * h * g);
    if (stick)
        CHECK(fabs(wt) <= 1e-12 * h * g);
    else
        CHECK(wt > 0.0 && z[1] < 0.0);
}

static void test_friction(void)
{
    int nstick = 0, nslide = 0;
    /* point mass (no rotation coupling): z_n = m h g cos a; sticking
     * z_t = -m h g sin a when tan a <= mu, else z_t = -mu z_n; the slip
     * velocity is h g (sin a - mu cos a) */
    {
        const double m = 2.0, g = 9.81, h = 0.01, mu = 0.5; /* atan 0.5 = 26.57 deg */
        double angles[6] = {0.0, 10.0, 20.0, 26.0, 30.0, 45.0};
        for (int k = 0; k < 6; k++) {
            double a = angles[k] * M_PI / 180.0;
            double W[4] = {1.0 / m, 0, 0, 1.0 / m}, q[2] = {-h * g * cos(a), h * g * sin(a)};
            int normal[2] = {-1, 0};
            double muv[2] = {0, mu}, z[2] = {0, 0};
            mbs_lcp_status st;
            CHECK(t_pgs_fric(2, W, q, normal, muv, z, NULL, &st) == MBS_LCP_SOLVED);
            CHECK_NEAR(z[0], m * h * g * cos(a), 1e-13);
            if (tan(a) <= mu)
                CHECK_NEAR(z[1], -m * h * g * sin(a), 1e-13);
            else
                CHECK_NEAR(z[1], -mu * m * h * g * cos(a), 1e-13);
            double wt = z[1] / m + q[1];
            CHECK_NEAR(wt, tan(a) <= mu ? 0.0 : h * g * (sin(a) - mu * cos(a)), 1e-13);
            t_incline(angles[k], mu, m, 1e9, 0.0, 0.0, &nstick, &nslide);
        }
    }
    /* a body touching at a corner: rotation couples normal and tangent */
    {
        double angles[5] = {5.0, 15.0, 25.0, 35.0, 50.0};
        for (int k = 0; k < 5; k++) {
            t_incline(angles[k], 0.4, 1.5, 0.02, -0.1, -0.05, &nstick, &nslide);
            t_incline(angles[k], 0.8, 1.5, 0.02, 0.1, -0.05, &nstick, &nslide);
        }
    }
    CHECK(nstick >= 4 && nslide >= 4);
    printf("  incline: %d sticking and %d sliding cases\n", nstick, nslide);

    /* mu = 0 with no friction indices is the plain LCP: agrees with Lemke */
    {
        double M[4] = {2, 1, 1, 2}, q[2] = {-5, -6}, z[2] = {0, 0}, muv[2] = {0, 0};
        int normal[2] = {-1, -1};
        mbs_lcp_opts o = {0};
        o.tol = 1e-14;
        CHECK(t_pgs_fric(2, M, q, normal, muv, z, &o, NULL) == MBS_LCP_SOLVED);
        CHECK_NEAR(z[0], 4.0 / 3.0, 1e-12);
        CHECK_NEAR(z[1], 7.0 / 3.0, 1e-12);
    }
    /* q = 0: z = 0 at once, whatever the start */
    {
        double M[4] = {2, 1, 1, 2}, q[2] = {0, 0}, z[2] = {3, -1}, muv[2] = {0, 0.5};
        int normal[2] = {-1, 0};
        mbs_lcp_status st;
        CHECK(t_pgs_fric(2, M, q, normal, muv, z, NULL, &st) == MBS_LCP_SOLVED);
        CHECK(z[0] == 0.0 && z[1] == 0.0 && st.iterations == 0);
    }
}

int main(void)
{
    test_small();
    test_random_spd();
    test_pmatrix();
    test_degenerate_random();
    test_failures();
    test_friction();
    return CHECK_SUMMARY("lcp_test");
}
