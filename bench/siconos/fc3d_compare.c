/*
 * fc3d_compare.c - our projected Gauss-Seidel (PGS + NNCG) beside Siconos
 * numerics 4.4 (Debian libsiconos-numerics-dev) fc3d NSGS on the same local
 * contact problems (issue 14).
 *
 *   build/bench/siconos_fc3d [--every K] [--tol T] [--max M] [example.json]
 *
 * The example (default examples/balls_in_box_100.json) runs as users run it
 * (mech_parse, mbs_model_new, mbs_data_new, mbs_simulate); the Moreau-Jean
 * workspace's probe (integrator_mj_ws.h) is called around every PGS solve.
 * At every K-th solve (default 100) the probe exports the step's local
 * problem u = W r + q from the workspace, before our solver runs:
 *   W = a b^T over the points' shared islands (the 3 x 3 blocks of the
 *       Delassus matrix G M~^-1 G^T on the PGS unknowns of Schur islands),
 *       plus eps diag(W) (solver.lcp_regularization: the problem our PGS
 *       solves), 3 rows per point (normal, t1, t2), built dense here and
 *       handed to Siconos in its sparse (triplet) storage;
 *   q = G v_f + the targets (Newton's restitution, 2 g / h, the regularised
 *       contacts' position feedback), so that w = W r + q is the velocity
 *       the complementarity conditions act on;
 *   mu per point, and the warm start r0 (the previous step's impulses).
 * Only problems whose points all sit on Schur (reduced) islands or the
 * ground are exported (the box: 100 free balls, 5 walls).  After our solve
 * (its wall time from the probe) Siconos' fc3d_driver with the NSGS solver
 * (SICONOS_FRICTION_3D_NSGS; fc3d_nsgs called directly returned at once
 * without iterating) solves the same W, q, mu
 * from the same r0 with tolerance T (default 1e-6, its relative normal-map
 * error) and at most M iterations (default 2000), timed with the same clock.
 *
 * The cones differ: ours is the pyramid (box |r_ti| <= mu r_n, the documented
 * polyhedral approximation), Siconos' fc3d the circular Coulomb cone with De
 * Saxce's modified velocity.  Each answer is shown against both: "box res."
 * is the largest change that one projected Jacobi step of the box problem
 * would make, W_ii |r_i - proj_i(r_i - u_i / W_ii)| over the rows, relative
 * to |q|_inf (0 at the box problem's solution); "fc3d err." is Siconos'
 * fc3d_compute_error (circular cone, relative to |q|_2; 0 at its solution).
 * Markdown on stdout.
 */
#include "mechanism/mechanism.h"
#include "mbs/integrate/integrator_mj_ws.h"
#include "mbs/mbs.h"

#include <FrictionContactProblem.h>
#include <Friction_cst.h>
#include <NumericsMatrix.h>
#include <SolverOptions.h>
#include <fc3d_Solvers.h>
#include <fc3d_compute_error.h>
#include <NonSmoothDrivers.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    int every, maxit, calls, exported, skipped;
    double tol, eps;
    /* the exported problem of the current solve (n = 3 np rows) */
    int np, n, have;
    double *W, *q, *mu, *r0;
    /* sums over the exported problems, for the summary row */
    double t_ours, t_sico;
    long it_sico;
} s_ctx;

static double s_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The a (or b) coefficients of point i, component c, side s: the side's
 * slice of the point's row (integrator_mj_pgs.c s_ldot / s_laxpy). */
static const double *s_coef(const mbs_mj_ws *w, const double *store, int i, int c, int s)
{
    return store + w->boff[i] + (long)c * w->pstr[i] + (s ? w->pzlen[2 * i] : 0);
}

/* Export the local problem of the np points (see the header); 0 when a
 * point has a side on an LU island or no friction (not handled). */
static int s_export(s_ctx *x, const mbs_mj_ws *w, int np)
{
    int n = 3 * np;
    for (int i = 0; i < np; i++) {
        if (!(w->pmu[i] > 0)) return 0;
        for (int s = 0; s < 2; s++)
            if (w->pisl[2 * i + s] >= 0 && !w->isl_red[w->pisl[2 * i + s]]) return 0;
    }
    free(x->W); free(x->q); free(x->mu); free(x->r0);
    x->W = calloc((size_t)n * (size_t)n, sizeof(double));
    x->q = malloc(sizeof(double) * (size_t)n);
    x->mu = malloc(sizeof(double) * (size_t)np);
    x->r0 = malloc(sizeof(double) * (size_t)n);
    if (!x->W || !x->q || !x->mu || !x->r0) { fprintf(stderr, "siconos_fc3d: out of memory\n"); exit(1); }
    /* W (column-major) over the pairs of point
     * sides on one island: W_(ic),(je) = a_ic . b_je on that island's slice */
    for (int i = 0; i < np; i++)
        for (int si = 0; si < 2; si++) {
            int I = w->pisl[2 * i + si];
            if (I < 0) continue;
            for (int j = 0; j < np; j++)
                for (int sj = 0; sj < 2; sj++) {
                    if (w->pisl[2 * j + sj] != I) continue;
                    int len = w->pzlen[2 * i + si];
                    for (int c = 0; c < 3; c++)
                        for (int e = 0; e < 3; e++) {
                            const double *a = s_coef(w, w->astore, i, c, si), *b = s_coef(w, w->bzstore, j, e, sj);
                            double sum = 0;
                            for (int k = 0; k < len; k++) sum += a[k] * b[k];
                            x->W[(size_t)(3 * j + e) * (size_t)n + (size_t)(3 * i + c)] += sum;
                        }
                }
        }
    for (int r = 0; r < n; r++) x->W[(size_t)r * (size_t)n + (size_t)r] *= 1 + x->eps;
    for (int i = 0; i < np; i++) {
        x->mu[i] = w->pmu[i];
        for (int c = 0; c < 3; c++) {
            x->q[3 * i + c] = w->qz[3 * i + c] + w->bt[3 * i + c];
            x->r0[3 * i + c] = w->lam[3 * i + c];
        }
    }
    x->np = np;
    x->n = n;
    return 1;
}

/* u = W r + q. */
static void s_vel(const s_ctx *x, const double *r, double *u)
{
    for (int a = 0; a < x->n; a++) u[a] = x->q[a];
    for (int b = 0; b < x->n; b++) {
        if (r[b] == 0) continue;
        const double *col = x->W + (size_t)b * (size_t)x->n;
        for (int a = 0; a < x->n; a++) u[a] += col[a] * r[b];
    }
}

/* The box problem's residual of r (see the header). */
static double s_box_res(const s_ctx *x, const double *r)
{
    double *u = malloc(sizeof(double) * (size_t)x->n), res = 0, qn = 0;
    s_vel(x, r, u);
    for (int a = 0; a < x->n; a++) qn = fmax(qn, fabs(x->q[a]));
    for (int i = 0; i < x->np; i++) {
        double rn = r[3 * i];
        for (int c = 0; c < 3; c++) {
            int a = 3 * i + c;
            double Wd = x->W[(size_t)a * (size_t)x->n + (size_t)a], p = r[a] - u[a] / Wd;
            if (c == 0) p = fmax(p, 0);
            else p = fmin(fmax(p, -x->mu[i] * rn), x->mu[i] * rn);
            res = fmax(res, Wd * fabs(r[a] - p));
        }
    }
    free(u);
    return qn > 0 ? res / qn : res;
}

/* Siconos' error of r on the circular cone, relative to |q|_2. */
static double s_fc3d_err(s_ctx *x, FrictionContactProblem *P, SolverOptions *o, const double *r)
{
    double *u = malloc(sizeof(double) * (size_t)x->n), *rr = malloc(sizeof(double) * (size_t)x->n), qn = 0, e = 0;
    memcpy(rr, r, sizeof(double) * (size_t)x->n);
    s_vel(x, r, u);
    for (int a = 0; a < x->n; a++) qn += x->q[a] * x->q[a];
    fc3d_compute_error(P, rr, u, x->tol, o, sqrt(qn), &e);
    free(u);
    free(rr);
    return e;
}

static void s_probe(void *ctx, const mbs_mj_ws *w, int np, int ncomp, int after, double seconds)
{
    s_ctx *x = ctx;
    if (ncomp != 3) return;
    if (!after) {
        x->have = ++x->calls % x->every == 0 && np > 0 && s_export(x, w, np);
        if (x->calls % x->every == 0 && !x->have) x->skipped++;
        return;
    }
    if (!x->have) return;
    x->have = 0;
    /* ours: the solve's answer */
    double *ours = malloc(sizeof(double) * (size_t)x->n), *r = malloc(sizeof(double) * (size_t)x->n);
    double *u = calloc((size_t)x->n, sizeof(double));
    memcpy(ours, w->lam, sizeof(double) * (size_t)x->n);
    /* Siconos NSGS from the same warm start */
    /* W in Siconos' sparse storage (its NSGS works on a row's non-zero 3 x 3
     * blocks; with the dense storage every local update costs a full row) */
    NumericsMatrix *M = NM_create(NM_SPARSE, x->n, x->n);
    long nnz = 0;
    for (size_t k = 0; k < (size_t)x->n * (size_t)x->n; k++) nnz += x->W[k] != 0;
    NM_triplet_alloc(M, nnz);
    for (int b = 0; b < x->n; b++)
        for (int a = 0; a < x->n; a++) {
            double v = x->W[(size_t)b * (size_t)x->n + (size_t)a];
            if (v != 0) NM_zentry(M, a, b, v, 0);
        }
    FrictionContactProblem *P = frictionContactProblem_new_with_data(3, x->np, M, x->q, x->mu);
    SolverOptions *o = solver_options_create(SICONOS_FRICTION_3D_NSGS);
    o->iparam[SICONOS_IPARAM_MAX_ITER] = x->maxit;
    o->dparam[SICONOS_DPARAM_TOL] = x->tol;
    memcpy(r, x->r0, sizeof(double) * (size_t)x->n);
    int info = 0;
    double t0 = s_now();
    info = fc3d_driver(P, r, u, o);
    double ts = s_now() - t0;
    int its = o->iparam[SICONOS_IPARAM_ITER_DONE];
    printf("| %d | %d | %d | %.3f | %.1e | %.1e | %.3f | %d%s | %.1e | %.1e |\n", x->calls, x->np, x->n, 1e3 * seconds,
           s_box_res(x, ours), s_fc3d_err(x, P, o, ours), 1e3 * ts, its, info ? " (not converged)" : "",
           s_box_res(x, r), s_fc3d_err(x, P, o, r));
    fflush(stdout);
    x->t_ours += seconds;
    x->t_sico += ts;
    x->it_sico += its;
    x->exported++;
    solver_options_delete(o);
    /* the arrays are ours: detach them before Siconos frees its structs */
    P->M = NULL; P->q = NULL; P->mu = NULL;
    frictionContactProblem_free(P);
    NM_free(M);
    free(ours);
    free(r);
    free(u);
}

static char *s_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *t = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (t && fread(t, 1, (size_t)n, f) != (size_t)n) { free(t); t = NULL; }
    fclose(f);
    if (t) { t[n] = 0; *len = (size_t)n; }
    return t;
}

int main(int argc, char **argv)
{
    const char *path = "examples/balls_in_box_100.json";
    s_ctx x = {.every = 100, .maxit = 2000, .tol = 1e-6};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--every") && i + 1 < argc) x.every = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--tol") && i + 1 < argc) x.tol = atof(argv[++i]);
        else if (!strcmp(argv[i], "--max") && i + 1 < argc) x.maxit = atoi(argv[++i]);
        else if (argv[i][0] == '-') {
            fprintf(stderr, "usage: siconos_fc3d [--every K] [--tol T] [--max M] [example.json]\n");
            return 2;
        } else path = argv[i];
    }
    if (x.every < 1 || !(x.tol > 0) || x.maxit < 1) {
        fprintf(stderr, "siconos_fc3d: --every and --max must be >= 1, --tol > 0\n");
        return 2;
    }
    size_t len = 0;
    char *text = s_slurp(path, &len);
    if (!text) { fprintf(stderr, "siconos_fc3d: cannot read %s\n", path); return 1; }
    mbs_errlist err;
    memset(&err, 0, sizeof err);
    mbs_spec *spec = mech_parse(text, len, NULL, 0, &err);
    free(text);
    if (!spec) { fprintf(stderr, "siconos_fc3d: %s: %s\n", path, err.n ? err.e[0].message : "parse error"); return 1; }
    if (spec->solver.integrator != MBS_INT_MOREAU_JEAN) {
        fprintf(stderr, "siconos_fc3d: %s does not use moreau_jean\n", path);
        return 1;
    }
    mbs_report rep;
    memset(&rep, 0, sizeof rep);
    mbs_model *m = mbs_model_new(spec, &rep, &err);
    if (!m) { fprintf(stderr, "siconos_fc3d: %s: %s\n", path, err.n ? err.e[0].message : "model error"); return 1; }
    mbs_data *d = mbs_data_new(m);
    if (!d || !d->mj) { fprintf(stderr, "siconos_fc3d: no Moreau-Jean workspace\n"); return 1; }
    x.eps = spec->solver.lcp_regularization;
    d->mj->probe = s_probe;
    d->mj->probe_ctx = &x;
    printf("Ours (PGS + NNCG, lcp_tolerance %g, warm start) and Siconos %s fc3d NSGS (tolerance %g, at most %d "
           "iterations, same warm start) on the local problems of every %d-th PGS solve of %s "
           "(W + %g diag W, Siconos' sparse storage)\n\n", spec->solver.lcp_tolerance, "4.4", x.tol, x.maxit, x.every, path, x.eps);
    printf("| solve | points | unknowns | ours (ms) | ours box res. | ours fc3d err. | Siconos NSGS (ms) | NSGS "
           "iterations | NSGS box res. | NSGS fc3d err. |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    mbs_result res;
    mbs_metrics met;
    memset(&res, 0, sizeof res);
    memset(&met, 0, sizeof met);
    int rc = mbs_simulate(m, d, &res, &met, NULL, NULL, &err);
    printf("\n%d problems compared (%d skipped: LU islands or frictionless points): ours %.1f ms in all, Siconos "
           "NSGS %.1f ms (%ld iterations)\n", x.exported, x.skipped, 1e3 * x.t_ours, 1e3 * x.t_sico, x.it_sico);
    if (rc) fprintf(stderr, "siconos_fc3d: the run failed: %s\n", err.n ? err.e[0].message : "?");
    free(x.W); free(x.q); free(x.mu); free(x.r0);
    mbs_result_free(&res);
    mbs_data_free(&d);
    mbs_model_free(&m);
    mbs_spec_free(&spec);
    return rc ? 1 : 0;
}
