/*
 * dae_form_test.c - the implicit integrators through the DAE-form boundary
 * (formulation/dae_form.h) on a formulation written here, not the natural
 * coordinates: a point mass on a massless rod in Cartesian coordinates,
 * q = (x, y), M = m I, Q = (0, -m g), Phi = (x^2 + y^2 - L^2) / 2, so that
 * Phi_q = (x, y), Phi_t = 0, gamma = vx^2 + vy^2 (Phi_q v' + gamma = 0).  The trapezoidal AL
 * (mbs_al_run) and the BDF on the GGL form (mbs_bdf_run) run it from 60
 * degrees at rest to t = 1 s; the reference is the angle's own equation
 * theta'' = -(g / L) sin(theta), integrated here by classical RK4 at
 * 1e-5 s (error far below what is checked).  Checked: the AL's error falls
 * by about 4 for half the step (second order) and stays below 1e-5 L at
 * 1e-3 s (measured 2.4e-6 L; a sign error in gamma, the first version of
 * this test, gave 2.4e-3 L and first order), its constraint holds to the
 * Newton tolerance; the BDF's error
 * stays within 100 tol L at 1e-6 and 1e-9 and falls with the tolerance;
 * the hooks the integrators call are the form's (counted).  The model and
 * run data come from examples/pendulum.json (its arrays have room for two
 * coordinates and one equation); the integrators read only its solver
 * options, tolerances and metrics.
 */
#include "check.h"
#include "testutil.h"
#include "mbs/integrate/integrators.h"
#include "mbs/model/accuracy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MASS 2.0
#define GRAV 9.81
#define LEN 1.5
#define TH0 (M_PI / 3)

typedef struct {
    mbs_data *d;
    double A[36];         /* the factorised matrix (LU, pivots in piv)   */
    int piv[6], nA;
    long n_forces, n_cons, n_factor, n_solve;
    double worst, worst_phi; /* largest position error and |Phi| at the accepted steps */
    double ref_t[1001], ref_th[1001]; /* reference angle every 1 ms */
} s_pend;

/* ---- the formulation --------------------------------------------------------------------- */

static void s_mass_mul(void *ctx, const double *v, double *y)
{
    (void)ctx;
    y[0] = MASS * v[0];
    y[1] = MASS * v[1];
}

static void s_forces(void *ctx, const double *q, const double *v, double t, double *Q)
{
    (void)q; (void)v; (void)t;
    ((s_pend *)ctx)->n_forces++;
    Q[0] = 0;
    Q[1] = -MASS * GRAV;
}

static void s_constraints(void *ctx, const double *q, double t, double *phi, double *jac)
{
    (void)t;
    ((s_pend *)ctx)->n_cons++;
    phi[0] = 0.5 * (q[0] * q[0] + q[1] * q[1] - LEN * LEN);
    jac[0] = q[0];
    jac[1] = q[1];
}

static void s_phi_t(void *ctx, const double *q, double t, double *phit)
{
    (void)ctx; (void)q; (void)t;
    phit[0] = 0;
}

static void s_gamma(void *ctx, const double *q, const double *v, double t, double *gam)
{
    (void)ctx; (void)q; (void)t;
    gam[0] = v[0] * v[0] + v[1] * v[1];
}

static void s_jv(void *ctx, const double *jac, const double *v, double *y)
{
    (void)ctx;
    y[0] = jac[0] * v[0] + jac[1] * v[1];
}

static void s_jtl(void *ctx, const double *jac, const double *l, double *z)
{
    (void)ctx;
    z[0] += jac[0] * l[0];
    z[1] += jac[1] * l[0];
}

/* LU with partial pivoting of the nA x nA matrix in c->A (row major) */
static int s_lu(s_pend *c)
{
    int n = c->nA;
    double *A = c->A;
    c->n_factor++;
    for (int k = 0; k < n; k++) {
        int p = k;
        for (int i = k + 1; i < n; i++) if (fabs(A[i * n + k]) > fabs(A[p * n + k])) p = i;
        if (A[p * n + k] == 0) return 1;
        c->piv[k] = p;
        for (int j = 0; j < n; j++) { double s = A[k * n + j]; A[k * n + j] = A[p * n + j]; A[p * n + j] = s; }
        for (int i = k + 1; i < n; i++) {
            double l = A[i * n + k] /= A[k * n + k];
            for (int j = k + 1; j < n; j++) A[i * n + j] -= l * A[k * n + j];
        }
    }
    return 0;
}

static void s_lu_solve(s_pend *c, double *b)
{
    int n = c->nA;
    const double *A = c->A;
    c->n_solve++;
    for (int k = 0; k < n; k++) { double s = b[k]; b[k] = b[c->piv[k]]; b[c->piv[k]] = s; }
    for (int i = 0; i < n; i++) for (int j = 0; j < i; j++) b[i] -= A[i * n + j] * b[j];
    for (int i = n - 1; i >= 0; i--) {
        for (int j = i + 1; j < n; j++) b[i] -= A[i * n + j] * b[j];
        b[i] /= A[i * n + i];
    }
}

/* A = cM M + cP Phi_q^T Phi_q (Q is constant: no K, C) */
static int s_al_factor(void *ctx, double cM, double cP, double cK, double cC, const double *q, const double *v,
                       double t)
{
    s_pend *c = ctx;
    (void)cK; (void)cC; (void)q; (void)v; (void)t;
    const double *J = c->d->jac;
    c->nA = 2;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) c->A[i * 2 + j] = (i == j ? cM * MASS : 0) + cP * J[i] * J[j];
    return s_lu(c);
}

static void s_al_solve(void *ctx, double *b) { s_lu_solve(ctx, b); }

static int s_ggl_prepare(void *ctx) { (void)ctx; return 0; }

/* The GGL matrix of integrator_bdf.c's header on the unknowns (x, y, vx,
 * vy, lam / w0, mu / w0); H = d(Phi_q^T lam)/dq = lam I */
static int s_ggl_factor(void *ctx, double w0, const double *q, const double *v, double t)
{
    s_pend *c = ctx;
    (void)q; (void)v; (void)t;
    const double *J = c->d->jac;
    double lam = c->d->lam[0], *A = c->A;
    c->nA = 6;
    memset(A, 0, sizeof c->A);
    for (int i = 0; i < 2; i++) {
        A[i * 6 + i] = 1;             /* F1 on q   */
        A[i * 6 + 2 + i] = -1 / w0;   /* F1 on v   */
        A[i * 6 + 5] = -J[i];         /* F1 on mu  */
        A[(2 + i) * 6 + i] = lam / w0; /* F2 on q: H / w0 */
        A[(2 + i) * 6 + 2 + i] = MASS; /* F2 on v: M */
        A[(2 + i) * 6 + 4] = J[i];    /* F2 on lam */
        A[4 * 6 + i] = J[i];          /* F3 = Phi on q */
        A[5 * 6 + 2 + i] = J[i];      /* F4 = Phi_q v on v */
    }
    return s_lu(c);
}

static int s_ggl_solve(void *ctx, double *rhs)
{
    s_lu_solve(ctx, rhs);
    return 0;
}

static double s_rank_margin(void *ctx)
{
    const double *J = ((s_pend *)ctx)->d->jac;
    return hypot(J[0], J[1]) > 0 ? 1.0 : 0.0;
}

static int s_reselect(void *ctx) { (void)ctx; return 0; }
static int s_accel_none(void *ctx, double t) { (void)ctx; (void)t; return 1; }
static void s_zrate(void *ctx, const double *q, const double *v, const double *z, double t, double *zd)
{
    (void)ctx; (void)q; (void)v; (void)z; (void)t; (void)zd;
}

/* ---- the reference and the stepper --------------------------------------------------------- */

static void s_rhs(const double y[2], double k[2])
{
    k[0] = y[1];
    k[1] = -GRAV / LEN * sin(y[0]);
}

/* theta(t) every 1 ms to 1 s by RK4 at 1e-5 s */
static void s_reference(s_pend *c)
{
    double y[2] = {TH0, 0}, h = 1e-5;
    c->ref_t[0] = 0;
    c->ref_th[0] = TH0;
    for (int k = 1; k <= 100000; k++) {
        double k1[2], k2[2], k3[2], k4[2], yt[2];
        s_rhs(y, k1);
        for (int i = 0; i < 2; i++) yt[i] = y[i] + 0.5 * h * k1[i];
        s_rhs(yt, k2);
        for (int i = 0; i < 2; i++) yt[i] = y[i] + 0.5 * h * k2[i];
        s_rhs(yt, k3);
        for (int i = 0; i < 2; i++) yt[i] = y[i] + h * k3[i];
        s_rhs(yt, k4);
        for (int i = 0; i < 2; i++) y[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
        if (k % 100 == 0) { c->ref_t[k / 100] = k * h; c->ref_th[k / 100] = y[0]; }
    }
}

/* theta at t by cubic Lagrange interpolation of the 1 ms table (its error,
 * ~ h^4 theta'''' / 24 ~ 1e-12 rad, far below the checks) */
static double s_ref_at(const s_pend *c, double t)
{
    int i = (int)floor(t / 1e-3) - 1;
    if (i < 0) i = 0;
    if (i > 996) i = 996;
    double s = 0;
    for (int a = 0; a < 4; a++) {
        double l = 1;
        for (int b = 0; b < 4; b++) if (b != a) l *= (t - c->ref_t[i + b]) / (c->ref_t[i + a] - c->ref_t[i + b]);
        s += l * c->ref_th[i + a];
    }
    return s;
}

static int s_done(void *ctx, const mbs_model *m, mbs_data *d, mbs_errlist *err)
{
    s_pend *c = ctx;
    (void)m; (void)err;
    double th = s_ref_at(c, d->t);
    double ex = d->x[0] - LEN * sin(th), ey = d->x[1] + LEN * cos(th);
    c->worst = fmax(c->worst, hypot(ex, ey));
    c->worst_phi = fmax(c->worst_phi, fabs(0.5 * (d->x[0] * d->x[0] + d->x[1] * d->x[1] - LEN * LEN)));
    return 0;
}

/* ---- runs ------------------------------------------------------------------------------------ */

/* One run of the pendulum to t = 1 by the integrator and settings in sets
 * (al: mbs_al_run, else mbs_bdf_run); 0 or the integrator's code, the
 * position error into c->worst */
static int s_run(s_pend *c, const char *const *sets, int al, mbs_metrics *met)
{
    t_sets ts;
    t_sets_parse(&ts, sets);
    char *doc = t_slurp("examples/pendulum.json", NULL);
    if (!doc) return -100;
    mbs_errlist el = {0};
    mbs_spec *s = mech_parse(doc, strlen(doc), ts.ov, ts.n, &el);
    free(doc);
    mbs_model *m = s ? mbs_model_new(s, NULL, &el) : NULL;
    mbs_data *d = m ? mbs_data_new(m) : NULL;
    if (!d) return -101;
    /* the example's arrays have room for this form: 2 coordinates, 1 equation, 2 Jacobian entries */
    CHECK(m->nvar >= 2 && m->neq >= 1);
    mbs_tol_init(m, d);
    c->d = d;
    c->n_forces = c->n_cons = c->n_factor = c->n_solve = 0;
    c->worst = c->worst_phi = 0;
    mbs_dae_form f = {.name = "cartesian pendulum", .n = 2, .ne = 1, .has_stiffness = 0, .length_scale = LEN,
                      .mass_scale = MASS, .jac_nnz = 2, .nggl = 6, .ctx = c, .mass_mul = s_mass_mul,
                      .forces = s_forces, .forces_noncontact = s_forces, .constraints = s_constraints,
                      .phi_t = s_phi_t, .gamma = s_gamma, .jv = s_jv, .jtl = s_jtl, .al_factor = s_al_factor,
                      .al_solve = s_al_solve, .ggl_prepare = s_ggl_prepare, .ggl_factor = s_ggl_factor,
                      .ggl_solve = s_ggl_solve, .rank_margin = s_rank_margin, .reselect = s_reselect,
                      .accelerations = s_accel_none, .zrate = s_zrate, .joint_rate = NULL, .energy_project = NULL};
    /* the initial state: at rest, the acceleration of the rod's equation
     * (a = g sin(th) along the tangent), lam from the radial balance */
    d->t = 0;
    d->x[0] = LEN * sin(TH0);
    d->x[1] = -LEN * cos(TH0);
    d->v[0] = d->v[1] = 0;
    double at = -GRAV * sin(TH0); /* tangential, along (cos th, sin th) */
    d->a[0] = at * cos(TH0);
    d->a[1] = at * sin(TH0);
    /* m a = Q - Phi_q^T lam, radially: 0 = m g cos(th) / L ... lam = m g cos(th) / L at rest */
    d->lam[0] = MASS * GRAV * cos(TH0) / LEN;
    d->eq_on[0] = 1;
    s_constraints(c, d->x, 0, d->phi, d->jac);
    memset(&d->met, 0, sizeof d->met);
    /* the BDF's workspace (history, rank-margin copy) is the example's,
     * made by mbs_data_new for its integrator (bdf), sized for at least this form */
    mbs_stepper run = {s_done, c, 0.01};
    int rc = al ? mbs_al_run(&f, m, d, &run, &el) : mbs_bdf_run(&f, m, d, &run, &el);
    if (rc) printf("  run failed: %s\n", el.n > 0 ? el.e[0].message : "?");
    if (rc == 0) CHECK(fabs(d->t - 1.0) < 1e-12);
    *met = d->met;
    mbs_data_free(&d);
    mbs_model_free(&m);
    mbs_spec_free(&s);
    return rc;
}

int main(void)
{
    static s_pend c;
    s_reference(&c);
    mbs_metrics met;

    /* the trapezoidal AL at 1e-3 and 5e-4 s: second order */
    double e_al[2];
    const char *steps[2] = {"solver.step=1e-3", "solver.step=5e-4"};
    for (int k = 0; k < 2; k++) {
        const char *sets[] = {"solver.t_end=1", "solver.integrator=trapezoidal_al", steps[k], NULL};
        CHECK(s_run(&c, sets, 1, &met) == 0);
        e_al[k] = c.worst;
        printf("  AL %s: %ld steps, %ld Newton iterations, position error %.3e m, |Phi| %.2e m^2; "
               "hooks: %ld forces, %ld constraints, %ld factorisations, %ld solves\n", steps[k], met.steps,
               met.newton_iterations, c.worst, c.worst_phi, c.n_forces, c.n_cons, c.n_factor, c.n_solve);
        CHECK(met.steps == (k ? 2000 : 1000));
        CHECK(c.worst < 1e-5 * LEN);
        /* the Newton tolerance on positions is 1e-2 tol L (integrator_al.c) */
        CHECK(c.worst_phi < 1e-6 * LEN * LEN);
        CHECK(c.n_forces >= met.newton_iterations && c.n_cons > met.steps && c.n_factor > 0 &&
              c.n_solve >= met.newton_iterations + 2 * met.steps);
    }
    printf("  AL error ratio for half the step: %.2f (second order: 4)\n", e_al[0] / e_al[1]);
    CHECK(e_al[0] / e_al[1] > 3.2 && e_al[0] / e_al[1] < 4.8);

    /* the BDF at two tolerances: within 100 tol L, and more accurate at the tighter one */
    double e_bdf[2];
    const char *tols[2] = {"solver.tolerance=1e-6", "solver.tolerance=1e-9"};
    for (int k = 0; k < 2; k++) {
        const char *sets[] = {"solver.t_end=1", "solver.integrator=bdf", tols[k], NULL};
        CHECK(s_run(&c, sets, 0, &met) == 0);
        e_bdf[k] = c.worst;
        double tol = k ? 1e-9 : 1e-6;
        printf("  BDF %s: %ld steps (%ld rejected), %ld Newton iterations, position error %.3e m (%.2f tol L), "
               "|Phi| %.2e m^2; hooks: %ld factorisations, %ld solves\n", tols[k], met.steps, met.rejected_steps,
               met.newton_iterations, c.worst, c.worst / (tol * LEN), c.worst_phi, c.n_factor, c.n_solve);
        CHECK(c.worst < 100 * tol * LEN);
        CHECK(c.n_solve == met.newton_iterations && c.n_factor > 0);
    }
    CHECK(e_bdf[1] < 1e-2 * e_bdf[0]);
    return CHECK_SUMMARY("dae_form_test");
}
