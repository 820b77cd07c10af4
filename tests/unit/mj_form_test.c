/*
 * mj_form_test.c - Moreau-Jean time stepping through the formulation
 * boundary (formulation/dae_form.h and formulation/contact_rows.h) on a
 * formulation written here, not the natural coordinates: a ball of mass m
 * and radius R as a point mass in Cartesian coordinates q = (x, y, z),
 * M = m I, Q = (0, 0, -m g), no constraints, one rigid contact with the
 * floor z = 0: gap z - R, normal row (0, 0, 1), tangent rows along -x and
 * -y (the ball is side A, the floor side B: n = (0, 0, -1) points from A to
 * B, the rows are t^T (v_B - v_A)).  mbs_mj_run runs it on a workspace made
 * by mbs_mj_ws_make from these two tables.
 *
 * Checked against the time-stepping scheme's exact behaviour (Moreau-Jean
 * with theta = 1/2, docs/contacts.md), which for this system is known in
 * closed form:
 * - a ball dropped from rest at height h0 (restitution e, no friction): in
 *   free flight z follows the trapezoidal rule on the exact velocity, so
 *   z(t_k) = z0 - g t_k^2 / 2 to round-off before the impact; the step of the
 *   impact leaves at v_z = -e v_z(before) exactly (Newton's law on the index
 *   set); the first apex is e^2 (h0 - R) + R within the position the time
 *   grid can miss, |v| h at impact;
 * - a ball sliding on the floor at u0 with friction mu: the normal impulse
 *   is m g h per step and the friction impulse mu m g h, so v_x falls by
 *   exactly mu g h per step until it stops (then 0, sticking: the friction
 *   needed in the last step is below the cone), z stays R,
 *   y stays 0;
 * - the hooks are called per step (points once, forces once), never per
 *   contact or per sweep (counted).
 *
 * The same ball on a second formulation with a configuration-dependent mass
 * and q' = G(q) v (dae_form.h mass_eval, nq, advance): cylindrical
 * coordinates with the angle as a unit complex number (a quaternion's
 * planar counterpart), q = (r, cos phi, sin phi, z), v = (r', phi', z'),
 * M(q) = diag(m, m r^2, m), Q = (m r phi'^2, -2 m r r' phi', -m g), the
 * floor's rows through the point's Jacobian (the tangent rows depend on
 * q).  Checked against the closed forms of the same motions and against
 * the Cartesian run above at the same step:
 * - free flight (thrown sideways, not through the axis r = 0): the height
 *   as in Cartesian coordinates to round-off, the horizontal position
 *   converging to the straight line at second order (error ratio near 4
 *   when h halves: Moreau-Jean takes the velocity products of a form with
 *   M(q) at a midpoint velocity);
 * - an impact with restitution: Newton's law at the impact to round-off
 *   (the normal's B column is (0, 0, 1/m) at any q), the same impact step
 *   and apex as the Cartesian run;
 * - sliding with friction along a line off the axis: stops where u0^2 /
 *   (2 mu g) puts it, at first order in h; and held on that line by a
 *   bilateral equation r sin phi = y0 (nonlinear in q: the projections
 *   onto Phi = 0 correct q through advance), y within 2e-12 of it;
 * - M(q) evaluated once per step, the coordinates advanced twice per step,
 *   the forces twice per step.
 *
 * The model and run data come from examples/bouncing_ball_rigid.json (a
 * sphere and a plane, one rigid pair, Moreau-Jean): the integrator reads
 * only its solver options and the contact's law, restitution and friction;
 * its arrays have room for three coordinates.
 */
#include "check.h"
#include "testutil.h"
#include "mbs/integrate/integrators.h"
#include "mbs/model/accuracy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MASS 0.1
#define GRAV 9.81
#define RAD 0.05

typedef struct {
    long n_forces, n_points, n_pairs, n_steps;
    /* the run as it goes */
    double zmax_after, vz_before, vz_after, t_impact;
    int bounced;
    double worst_free;  /* largest |z - (z0 - g t^2 / 2)| before the impact */
    double worst_vx;    /* sliding: largest |v_x - max(u0 - mu g t, 0)|      */
    double worst_z, worst_y;
    double z0, u0, mu;
} s_ball;

/* ---- the formulation ------------------------------------------------------------------- */

static const int s_vars[3] = {0, 1, 2};
static const int s_mptr[4] = {0, 1, 2, 3}, s_mcol[3] = {0, 1, 2};
static const double s_mval[3] = {MASS, MASS, MASS};

static void s_mass_mul(void *ctx, const double *v, double *y)
{
    (void)ctx;
    for (int i = 0; i < 3; i++) y[i] = MASS * v[i];
}

static void s_forces(void *ctx, const double *q, const double *v, double t, double *Q)
{
    (void)q; (void)v; (void)t;
    ((s_ball *)ctx)->n_forces++;
    Q[0] = Q[1] = 0;
    Q[2] = -MASS * GRAV;
}

/* no constraints: nothing to evaluate */
static void s_constraints(void *ctx, const double *q, double t, double *phi, double *jac)
{
    (void)ctx; (void)q; (void)t; (void)phi; (void)jac;
}
static void s_phi_t(void *ctx, const double *q, double t, double *phit) { (void)ctx; (void)q; (void)t; (void)phit; }
static void s_jv(void *ctx, const double *jac, const double *v, double *y) { (void)ctx; (void)jac; (void)v; (void)y; }

static void s_body_vars(void *ctx, int b, int *vars)
{
    (void)ctx; (void)b;
    for (int i = 0; i < 3; i++) vars[i] = i;
}
static int s_max_points(void *ctx, int k) { (void)ctx; (void)k; return 1; }
static const int *s_pair_vars(void *ctx, int k) { (void)ctx; (void)k; return s_vars; }

static void s_points(void *ctx, const double *q, long stamp, const int *pairs, int npairs, const double *reach,
                     mbs_rpoint *out, int *count, double *gmin)
{
    s_ball *c = ctx;
    (void)stamp;
    c->n_points++;
    c->n_pairs += npairs;
    int np = 0;
    for (int j = 0; j < npairs; j++) {
        mbs_rpoint *P = out + np;
        memset(P, 0, sizeof *P);
        P->pair = pairs[j];
        P->nv = 3;
        P->g = q[2] - RAD;
        double n[3] = {0, 0, -1}, t1[3] = {1, 0, 0}, t2[3] = {0, -1, 0}; /* t1 x t2 = n */
        for (int a = 0; a < 3; a++) {
            P->n[a] = n[a];
            P->t[0][a] = t1[a];
            P->t[1][a] = t2[a];
            /* rows r^T (v_B - v_A) with v_B = 0, v_A = v */
            P->G[0][a] = -n[a];
            P->G[1][a] = -t1[a];
            P->G[2][a] = -t2[a];
        }
        P->body[0] = 0;
        P->body[1] = -1;
        if (reach && P->g > reach[j]) {
            count[j] = -1;
            gmin[j] = P->g;
            continue;
        }
        count[j] = 1;
        np++;
    }
}

static int s_missed(void *ctx, const double *dq, int *out) { (void)ctx; (void)dq; (void)out; return 0; }

/* ---- the run --------------------------------------------------------------------------- */

static int s_done(void *ctx, const mbs_model *m, mbs_data *d, mbs_errlist *err)
{
    s_ball *c = ctx;
    (void)m; (void)err;
    c->n_steps++;
    if (c->mu > 0) {
        /* sliding: v_x = u0 - mu g t while it slides, then 0 */
        double vx = fmax(c->u0 - c->mu * GRAV * d->t, 0);
        c->worst_vx = fmax(c->worst_vx, fabs(d->v[0] - vx));
        c->worst_z = fmax(c->worst_z, fabs(d->x[2] - RAD));
        c->worst_y = fmax(c->worst_y, fabs(d->x[1]));
        return 0;
    }
    if (!c->bounced && d->v[2] > 0) {
        c->bounced = 1;
        c->vz_before = d->vp[2];
        c->vz_after = d->v[2];
        c->t_impact = d->t;
    }
    if (!c->bounced) c->worst_free = fmax(c->worst_free, fabs(d->x[2] - (c->z0 - 0.5 * GRAV * d->t * d->t)));
    else if (d->t < c->t_impact + 2 * c->vz_after / GRAV) c->zmax_after = fmax(c->zmax_after, d->x[2]);
    return 0;
}

/* The host of a run: examples/bouncing_ball_rigid.json (one rigid floor
 * contact, its ball's model and data) to t_end with step h and friction mu,
 * deactivation off; the test's formulation then replaces its workspace.
 * 0, or -100 (no file), -101 (not parsed), -102 (not built). */
static int s_host(double t_end, double h, double mu, mbs_spec **sp, mbs_model **mp, mbs_data **dp)
{
    char tend[64], step[64];
    snprintf(tend, sizeof tend, "solver.t_end=%.17g", t_end);
    snprintf(step, sizeof step, "solver.step=%.17g", h);
    const char *sets[] = {tend, step, "solver.contact_deactivation=false", NULL};
    t_sets ts;
    t_sets_parse(&ts, sets);
    char *doc = t_slurp("examples/bouncing_ball_rigid.json", NULL);
    if (!doc) return -100;
    mbs_errlist el = {0};
    mbs_spec *s = mech_parse(doc, strlen(doc), ts.ov, ts.n, &el);
    free(doc);
    if (!s) return -101;
    s->contacts[0].friction = mu;
    mbs_model *m = mbs_model_new(s, NULL, &el);
    mbs_data *d = m ? mbs_data_new(m) : NULL;
    if (!d) return -102;
    *sp = s;
    *mp = m;
    *dp = d;
    return 0;
}

/* The Cartesian point ball's DAE form and contact rows on context c. */
static void s_cart_form(s_ball *c, mbs_dae_form *f, mbs_contact_rows *r)
{
    *f = (mbs_dae_form){.name = "point ball", .n = 3, .ne = 0, .length_scale = 1, .mass_scale = MASS, .ctx = c,
                        .mass_ptr = s_mptr, .mass_col = s_mcol, .mass_val = s_mval, .mass_mul = s_mass_mul,
                        .forces = s_forces, .forces_noncontact = s_forces, .constraints = s_constraints,
                        .phi_t = s_phi_t, .jv = s_jv};
    *r = (mbs_contact_rows){.nbody = 1, .body_nv = 3, .ctx = c, .body_vars = s_body_vars,
                            .max_points = s_max_points, .pair_vars = s_pair_vars, .points = s_points,
                            .missed = s_missed};
}

/* One run from z0 at rest (mu = 0) or from the floor at u0 along x (mu >
 * 0), to t_end with step h; 0 or the integrator's code. */
static int s_run(s_ball *c, double z0, double u0, double mu, double t_end, double h, mbs_metrics *met)
{
    mbs_spec *s;
    mbs_model *m;
    mbs_data *d;
    int hrc = s_host(t_end, h, mu, &s, &m, &d);
    if (hrc) return hrc;
    mbs_errlist el = {0};
    CHECK(m->spec->ncontact == 1 && m->spec->contacts[0].law == MBS_LAW_RIGID && m->nvar >= 3);
    mbs_tol_init(m, d);
    memset(c, 0, sizeof *c);
    c->z0 = z0;
    c->u0 = u0;
    c->mu = mu;
    /* the workspace of this formulation instead of the example's */
    mbs_mj_ws_free(d);
    mbs_dae_form f;
    mbs_contact_rows r;
    s_cart_form(c, &f, &r);
    CHECK(mbs_mj_ws_make(&f, &r, m, d) == 0);
    d->t = 0;
    d->x[0] = d->x[1] = 0;
    d->x[2] = z0;
    d->v[0] = u0;
    d->v[1] = d->v[2] = 0;
    d->a[0] = d->a[1] = 0;
    d->a[2] = -GRAV;
    memset(&d->met, 0, sizeof d->met);
    mbs_stepper run = {s_done, c, 0.01};
    int rc = mbs_mj_run(m, d, &run, &el);
    if (rc) printf("  run failed: %s\n", el.n > 0 ? el.e[0].message : "?");
    *met = d->met;
    mbs_data_free(&d);
    mbs_model_free(&m);
    mbs_spec_free(&s);
    return rc;
}

/* ---- the same ball in cylindrical coordinates: M(q), q' = G(q) v ------------------------- */

#define S_REC_MAX 8192

typedef struct {
    long n_mass, n_advance, n_forces, n_points;
    double yline;  /* > 0: the ball held on the line y = yline (one equation) */
} s_cyl;

/* A run's record, in Cartesian coordinates, one entry per step (the
 * stepper's context; polar: the state is q = (r, c, s, z), v = (r', w, z')). */
typedef struct {
    int polar;
    long n;
    double t[S_REC_MAX], X[S_REC_MAX][3], V[S_REC_MAX][3];
} s_rec;

static const int s_cptr[4] = {0, 1, 2, 3}, s_ccol[3] = {0, 1, 2};

static void s_cyl_mass(void *ctx, const double *q, double *val)
{
    ((s_cyl *)ctx)->n_mass++;
    val[0] = MASS;
    val[1] = MASS * q[0] * q[0];
    val[2] = MASS;
}

/* M v at the last q would be ambiguous: Moreau-Jean forms M(q_m) v from
 * s_cyl_mass's values, so this is never called (counted as a failure). */
static void s_cyl_mass_mul(void *ctx, const double *v, double *y)
{
    (void)v;
    ((s_cyl *)ctx)->n_mass += 1000000;
    y[0] = y[1] = y[2] = NAN;
}

/* Lagrange's equations of T = m/2 (r'^2 + r^2 phi'^2 + z'^2), V = m g z:
 * the velocity terms on the right-hand side. */
static void s_cyl_forces(void *ctx, const double *q, const double *v, double t, double *Q)
{
    (void)t;
    ((s_cyl *)ctx)->n_forces++;
    Q[0] = MASS * q[0] * v[1] * v[1];
    Q[1] = -2 * MASS * q[0] * v[0] * v[1];
    Q[2] = -MASS * GRAV;
}

/* q + s G(q) v on the manifold: the angle turned exactly by s phi', which
 * keeps (c, s) of unit length (a quaternion's exponential map in the plane). */
static void s_cyl_advance(void *ctx, const double *q, const double *v, double s, double *qout)
{
    ((s_cyl *)ctx)->n_advance++;
    double a = s * v[1], ca = cos(a), sa = sin(a);
    double r = q[0] + s * v[0], c = q[1] * ca - q[2] * sa, sn = q[2] * ca + q[1] * sa, z = q[3] + s * v[2];
    qout[0] = r;
    qout[1] = c;
    qout[2] = sn;
    qout[3] = z;
}

/* The line y = yline as a bilateral constraint Phi = r sin phi - yline,
 * its row on v (sin phi, r cos phi, 0). */
static const int s_lcols[3] = {0, 1, 2};
static void s_line_row(void *ctx, int r, int *off, int *nnz)
{
    (void)ctx; (void)r;
    *off = 0;
    *nnz = 3;
}
static void s_line(void *ctx, const double *q, double t, double *phi, double *jac)
{
    (void)t;
    phi[0] = q[0] * q[2] - ((s_cyl *)ctx)->yline;
    if (!jac) return;
    jac[0] = q[2];
    jac[1] = q[0] * q[1];
    jac[2] = 0;
}
static void s_line_phit(void *ctx, const double *q, double t, double *phit) { (void)ctx; (void)q; (void)t; phit[0] = 0; }
static void s_line_jv(void *ctx, const double *jac, const double *v, double *y)
{
    (void)ctx;
    y[0] = jac[0] * v[0] + jac[1] * v[1] + jac[2] * v[2];
}

/* The floor under the ball: gap z - R; the rows -d^T J v with J the
 * point's Jacobian (Cartesian velocity = J v), d = n, t1, t2 as in s_points. */
static void s_cyl_points(void *ctx, const double *q, long stamp, const int *pairs, int npairs, const double *reach,
                         mbs_rpoint *out, int *count, double *gmin)
{
    s_cyl *c = ctx;
    (void)stamp;
    c->n_points++;
    double r = q[0], co = q[1], si = q[2];
    double J[3][3] = {{co, -r * si, 0}, {si, r * co, 0}, {0, 0, 1}};
    int np = 0;
    for (int j = 0; j < npairs; j++) {
        mbs_rpoint *P = out + np;
        memset(P, 0, sizeof *P);
        P->pair = pairs[j];
        P->nv = 3;
        P->g = q[3] - RAD;
        double dir[3][3] = {{0, 0, -1}, {1, 0, 0}, {0, -1, 0}};
        for (int a = 0; a < 3; a++) {
            P->n[a] = dir[0][a];
            P->t[0][a] = dir[1][a];
            P->t[1][a] = dir[2][a];
        }
        for (int k = 0; k < 3; k++)
            for (int col = 0; col < 3; col++)
                P->G[k][col] = -(dir[k][0] * J[0][col] + dir[k][1] * J[1][col] + dir[k][2] * J[2][col]);
        P->body[0] = 0;
        P->body[1] = -1;
        if (reach && P->g > reach[j]) {
            count[j] = -1;
            gmin[j] = P->g;
            continue;
        }
        count[j] = 1;
        np++;
    }
}

/* The stepper: the state in Cartesian coordinates after each step. */
static int s_record(void *ctx, const mbs_model *m, mbs_data *d, mbs_errlist *err)
{
    s_rec *R = ctx;
    (void)m; (void)err;
    if (R->n >= S_REC_MAX) return MBS_EINVAL;
    long k = R->n++;
    R->t[k] = d->t;
    if (!R->polar) {
        for (int a = 0; a < 3; a++) { R->X[k][a] = d->x[a]; R->V[k][a] = d->v[a]; }
        return 0;
    }
    double r = d->x[0], c = d->x[1], s = d->x[2];
    R->X[k][0] = r * c;
    R->X[k][1] = r * s;
    R->X[k][2] = d->x[3];
    R->V[k][0] = d->v[0] * c - r * s * d->v[1];
    R->V[k][1] = d->v[0] * s + r * c * d->v[1];
    R->V[k][2] = d->v[2];
    return 0;
}

/* One Moreau-Jean run of the ball from the Cartesian position X0 and
 * velocity V0 (X0 off the axis) with friction mu, to t_end with step h,
 * in cylindrical coordinates (polar; held on the line y = yline by one
 * equation when yline > 0) or in the Cartesian formulation above; the
 * record in R, the hooks' counts in cy (polar).  0 or the integrator's
 * code. */
static int s_run_cyl_line(int polar, double yline, const double X0[3], const double V0[3], double mu, double t_end,
                          double h, s_rec *R, s_cyl *cy)
{
    mbs_spec *s;
    mbs_model *m;
    mbs_data *d;
    int hrc = s_host(t_end, h, mu, &s, &m, &d);
    if (hrc) return hrc;
    mbs_errlist el = {0};
    CHECK(m->nvar >= 4);
    mbs_tol_init(m, d);
    memset(R, 0, sizeof *R);
    memset(cy, 0, sizeof *cy);
    cy->yline = yline;
    R->polar = polar;
    static s_ball cart;
    memset(&cart, 0, sizeof cart);
    mbs_mj_ws_free(d);
    mbs_dae_form f;
    mbs_contact_rows rw;
    s_cart_form(&cart, &f, &rw);
    if (polar) {
        f = (mbs_dae_form){.name = "cylindrical ball", .n = 3, .nq = 4, .ne = 0, .length_scale = 1,
                           .mass_scale = MASS, .ctx = cy, .mass_ptr = s_cptr, .mass_col = s_ccol,
                           .mass_eval = s_cyl_mass, .advance = s_cyl_advance, .mass_mul = s_cyl_mass_mul,
                           .forces = s_cyl_forces, .forces_noncontact = s_cyl_forces,
                           .constraints = s_constraints, .phi_t = s_phi_t, .jv = s_jv};
        rw.ctx = cy;
        rw.points = s_cyl_points;
        if (yline > 0) {
            f.ne = 1;
            f.jac_nnz = 3;
            f.jac_cols = s_lcols;
            f.jac_row = s_line_row;
            f.constraints = s_line;
            f.phi_t = s_line_phit;
            f.jv = s_line_jv;
        }
    }
    CHECK(mbs_mj_ws_make(&f, &rw, m, d) == 0);
    d->t = 0;
    d->eq_on[0] = 1;
    if (polar) {
        /* q = (r, cos phi, sin phi, z), v = (r', phi', z') of X0, V0 */
        double r = hypot(X0[0], X0[1]), c = X0[0] / r, sn = X0[1] / r;
        d->x[0] = r;
        d->x[1] = c;
        d->x[2] = sn;
        d->x[3] = X0[2];
        d->v[0] = c * V0[0] + sn * V0[1];
        d->v[1] = (c * V0[1] - sn * V0[0]) / r;
        d->v[2] = V0[2];
    } else {
        for (int a = 0; a < 3; a++) { d->x[a] = X0[a]; d->v[a] = V0[a]; }
    }
    for (int a = 0; a < 3; a++) d->a[a] = 0;
    memset(&d->met, 0, sizeof d->met);
    mbs_stepper run = {s_record, R, 0.01};
    int rc = mbs_mj_run(m, d, &run, &el);
    if (rc) printf("  run failed: %s\n", el.n > 0 ? el.e[0].message : "?");
    mbs_data_free(&d);
    mbs_model_free(&m);
    mbs_spec_free(&s);
    return rc;
}

static int s_run_cyl(int polar, const double X0[3], const double V0[3], double mu, double t_end, double h, s_rec *R,
                     s_cyl *cy)
{
    return s_run_cyl_line(polar, 0, X0, V0, mu, t_end, h, R, cy);
}

/* Largest |horizontal position - the straight line X0 + V0 t| over the
 * record (free flight), and largest |Z - (Z0 - g t^2 / 2)|. */
static void s_flight_err(const s_rec *R, const double X0[3], const double V0[3], double *exy, double *ez)
{
    *exy = *ez = 0;
    for (long k = 0; k < R->n; k++) {
        double t = R->t[k];
        *exy = fmax(*exy, hypot(R->X[k][0] - (X0[0] + V0[0] * t), R->X[k][1] - (X0[1] + V0[1] * t)));
        *ez = fmax(*ez, fabs(R->X[k][2] - (X0[2] - 0.5 * GRAV * t * t)));
    }
}

/* Forms the integrators cannot run are refused when the workspace is made
 * (-1): no mass values and no mass_eval; nq != n without advance; and the
 * event-driven integrator's dopri5 stages with advance (q' = v only). */
static void s_refusals(void)
{
    char *doc = t_slurp("examples/bouncing_ball_rigid.json", NULL);
    CHECK(doc != NULL);
    if (!doc) return;
    mbs_errlist el = {0};
    mbs_spec *s = mech_parse(doc, strlen(doc), NULL, 0, &el);
    free(doc);
    mbs_model *m = s ? mbs_model_new(s, NULL, &el) : NULL;
    mbs_data *d = m ? mbs_data_new(m) : NULL;
    CHECK(d != NULL);
    if (!d) return;
    static s_cyl cy;
    mbs_dae_form f = {.name = "cylindrical ball", .n = 3, .nq = 4, .ne = 0, .length_scale = 1, .mass_scale = MASS,
                      .ctx = &cy, .mass_ptr = s_cptr, .mass_col = s_ccol, .mass_eval = s_cyl_mass,
                      .advance = s_cyl_advance, .forces = s_cyl_forces, .constraints = s_constraints,
                      .phi_t = s_phi_t, .jv = s_jv};
    mbs_contact_rows rw = {.nbody = 1, .body_nv = 3, .ctx = &cy, .body_vars = s_body_vars,
                           .max_points = s_max_points, .pair_vars = s_pair_vars, .points = s_cyl_points,
                           .missed = s_missed};
    mbs_dae_form g = f;
    g.mass_eval = NULL;
    mbs_mj_ws_free(d);
    CHECK(mbs_mj_ws_make(&g, &rw, m, d) == -1);
    mbs_mj_ws_free(d);
    g = f;
    g.advance = NULL;
    CHECK(mbs_mj_ws_make(&g, &rw, m, d) == -1);
    mbs_mj_ws_free(d);
    CHECK(mbs_mj_ws_make(&f, &rw, m, d) == 0);
    mbs_mj_ws_free(d);
    mbs_ed_data_free(d);
    CHECK(mbs_ed_ws_make(&f, &rw, m, d) == -1);
    mbs_data_free(&d);
    mbs_model_free(&m);
    mbs_spec_free(&s);
}

/* The configuration-dependent mass: free flight, impact, sliding. */
static void s_cylinder_tests(void)
{
    static s_rec R, Rc;
    s_cyl cy;
    const double e = 0.8;

    /* free flight, thrown sideways past the axis (closest 1 m) for 0.5 s */
    const double X0[3] = {1.0, 0.5, 2.0}, V0[3] = {0.8, -0.6, 0};
    double exy[3], ez[3];
    for (int j = 0; j < 3; j++) {
        double h = 1e-3 / (1 << j);
        CHECK(s_run_cyl(1, X0, V0, 0, 0.5, h, &R, &cy) == 0);
        s_flight_err(&R, X0, V0, &exy[j], &ez[j]);
        printf("  cylindrical free flight, h = %.2e s: horizontal within %.3e m of the line, height within %.1e m; "
               "%ld steps: %ld mass, %ld advance, %ld forces, %ld points calls\n", h, exy[j], ez[j], R.n, cy.n_mass,
               cy.n_advance, cy.n_forces, cy.n_points);
        /* M(q_m) once per step (s_cyl_mass_mul never: it would add 1e6),
         * q_m and q_1 through advance, the forces twice (at v0 for the
         * half step's velocity, at that midpoint velocity for the step) */
        CHECK(cy.n_mass == R.n && cy.n_advance == 2 * R.n && cy.n_forces == 2 * R.n && cy.n_points == R.n);
        /* the height's scheme is the Cartesian one: exact to round-off */
        CHECK(ez[j] < 1e-12);
    }
    /* second order (the centrifugal and Coriolis terms at the midpoint
     * velocity): the error quarters when h halves (ratios measured 4.00;
     * with the velocity products at v0 they were 2.0, 6.7e-5 m at 1 ms) */
    printf("  free flight error ratios: %.3f, %.3f\n", exy[0] / exy[1], exy[1] / exy[2]);
    CHECK(exy[0] / exy[1] > 3.6 && exy[0] / exy[1] < 4.4 && exy[1] / exy[2] > 3.6 && exy[1] / exy[2] < 4.4);
    /* and of the size of a second-order method's global error: below h^2 T
     * |V0|^3 / r_min^2 (the polar coordinates' third derivatives along the
     * line scale as |V|^3 / r^2; closest approach r_min = 1 m; measured
     * 5.5e-8 m at 1 ms against this 5e-7 m) */
    double vh = hypot(V0[0], V0[1]);
    CHECK(exy[0] > 0 && exy[0] < 1e-6 * 0.5 * vh * vh * vh / (1.0 * 1.0));

    /* a drop with a sideways velocity onto the floor, no friction: against
     * the Cartesian run at the same step */
    const double Xd[3] = {0.6, -0.8, 1.0 + RAD}, Vd[3] = {0.3, 0.4, 0};
    const double h = 1e-3;
    CHECK(s_run_cyl(1, Xd, Vd, 0, 1.2, h, &R, &cy) == 0);
    CHECK(s_run_cyl(0, Xd, Vd, 0, 1.2, h, &Rc, &cy) == 0);
    CHECK(R.n == Rc.n);
    long kimp = -1, kc = -1;
    for (long k = 1; k < R.n && kimp < 0; k++)
        if (R.V[k][2] > 0) kimp = k;
    for (long k = 1; k < Rc.n && kc < 0; k++)
        if (Rc.V[k][2] > 0) kc = k;
    double apex = 0, apex_c = 0, dz = 0;
    for (long k = kimp; k >= 0 && k < R.n && R.t[k] < R.t[kimp] + 2 * R.V[kimp][2] / GRAV; k++) {
        apex = fmax(apex, R.X[k][2]);
        apex_c = fmax(apex_c, Rc.X[k][2]);
    }
    for (long k = 0; k < R.n; k++) dz = fmax(dz, fabs(R.X[k][2] - Rc.X[k][2]));
    printf("  cylindrical drop: impact at step %ld (Cartesian %ld), v_z %.6f -> %.6f m/s (ratio %.15f), apex %.6f m "
           "(Cartesian %.6f), heights within %.1e m of the Cartesian run\n", kimp, kc, R.V[kimp - 1][2],
           R.V[kimp][2], -R.V[kimp][2] / R.V[kimp - 1][2], apex, apex_c, dz);
    CHECK(kimp > 0 && kimp == kc);
    CHECK(fabs(R.V[kimp][2] + e * R.V[kimp - 1][2]) < 1e-12 * sqrt(2 * GRAV));
    CHECK(dz < 1e-12);
    CHECK(fabs(apex - apex_c) < 1e-12);

    /* sliding at u0 along x at y = 0.5 with friction mu: stops at
     * x0 + u0^2 / (2 mu g), y unchanged; the Cartesian run exact to the
     * scheme's step, the cylindrical one at first order */
    const double u0 = 2.0, mu = 0.4, Xs[3] = {1.0, 0.5, RAD}, Vs[3] = {u0, 0, 0};
    double xstop = Xs[0] + u0 * u0 / (2 * mu * GRAV), es[3];
    for (int j = 0; j < 3; j++) {
        double hj = 1e-3 / (1 << j);
        CHECK(s_run_cyl(1, Xs, Vs, mu, 0.8, hj, &R, &cy) == 0);
        const double *Xe = R.X[R.n - 1], *Ve = R.V[R.n - 1];
        es[j] = hypot(Xe[0] - xstop, Xe[1] - Xs[1]);
        printf("  cylindrical sliding, h = %.2e s: rest at (%.6f, %.6f) m (exact (%.6f, %.6f)), off by %.3e m, "
               "end speed %.1e m/s, |z - R| %.1e m\n", hj, Xe[0], Xe[1], xstop, Xs[1], es[j], hypot(Ve[0], Ve[1]),
               fabs(Xe[2] - RAD));
        /* at rest (sticking) at the end, on the floor */
        CHECK(hypot(Ve[0], Ve[1]) < 1e-12 && fabs(Xe[2] - RAD) < 1e-12);
    }
    CHECK(s_run_cyl(0, Xs, Vs, mu, 0.8, 1e-3, &Rc, &cy) == 0);
    double ec = fabs(Rc.X[Rc.n - 1][0] - xstop);
    printf("  sliding error ratios: %.3f, %.3f (Cartesian run at h = 1e-3 off by %.3e m)\n", es[0] / es[1],
           es[1] / es[2], ec);
    /* a fifth of one step's travel u0 h at h = 1e-3 (measured 2.0e-4 m) */
    CHECK(es[0] > 0 && es[0] < 0.2 * u0 * 1e-3);
    CHECK(es[0] / es[1] > 1.6 && es[0] / es[1] < 2.4 && es[1] / es[2] > 1.6 && es[1] / es[2] < 2.4);

    /* the same slide held on its line y = 0.5 by a bilateral equation
     * (nonlinear in q): the projections onto Phi = 0 correct q through
     * advance; y stays on the line to their tolerance (1e-12 L), the stop
     * converges at first order */
    double el[3];
    for (int j = 0; j < 3; j++) {
        double hj = 1e-3 / (1 << j);
        CHECK(s_run_cyl_line(1, Xs[1], Xs, Vs, mu, 0.8, hj, &R, &cy) == 0);
        double ymax = 0;
        for (long k = 0; k < R.n; k++) ymax = fmax(ymax, fabs(R.X[k][1] - Xs[1]));
        const double *Xe = R.X[R.n - 1];
        el[j] = fabs(Xe[0] - xstop);
        printf("  on the line y = %.1f, h = %.2e s: rest at x = %.6f m (exact %.6f), off by %.3e m, |y - %.1f| <= "
               "%.1e m; %ld steps, %ld advance calls\n", Xs[1], hj, Xe[0], xstop, el[j], Xs[1], ymax, R.n,
               cy.n_advance);
        /* the projection's tolerance 1e-12 L (L = 1 m) plus round-off of
         * r sin phi; without the projection |y - 0.5| grows as h^2 per step */
        CHECK(ymax < 2e-12);
        /* more than q_m and q_1: the projection's corrections */
        CHECK(cy.n_advance > 2 * R.n && cy.n_mass == R.n);
        CHECK(fabs(Xe[2] - RAD) < 1e-12);
    }
    printf("  on the line: error ratios %.3f, %.3f\n", el[0] / el[1], el[1] / el[2]);
    CHECK(el[0] > 0 && el[0] < 0.2 * u0 * 1e-3);
    CHECK(el[0] / el[1] > 1.6 && el[0] / el[1] < 2.4 && el[1] / el[2] > 1.6 && el[1] / el[2] < 2.4);
}

int main(void)
{
    static s_ball c;
    mbs_metrics met;
    const double e = 0.8, h0 = 1.0, h = 1e-3;

    /* a drop from rest: free flight, Newton's law at the impact, the apex */
    double z0 = h0 + RAD;
    CHECK(s_run(&c, z0, 0, 0, 1.2, h, &met) == 0);
    double vimp = sqrt(2 * GRAV * h0), apex = e * e * h0 + RAD;
    printf("  drop from %.2f m: %ld steps, impact at t = %.4f s (exact %.4f), v_z %.6f -> %.6f m/s (ratio %.15f), "
           "first apex %.5f m (e^2 h0 + R = %.5f), free flight within %.2e m; hooks: %ld forces, %ld points calls "
           "(%ld pairs)\n", h0, c.n_steps, c.t_impact, sqrt(2 * h0 / GRAV), c.vz_before, c.vz_after,
           -c.vz_after / c.vz_before, c.zmax_after, apex, c.worst_free, c.n_forces, c.n_points, c.n_pairs);
    CHECK(c.bounced);
    CHECK(c.worst_free < 1e-12);
    CHECK(fabs(c.vz_after + e * c.vz_before) < 1e-12 * vimp);
    CHECK(fabs(c.t_impact - sqrt(2 * h0 / GRAV)) < 2 * h);
    CHECK(fabs(c.zmax_after - apex) < 2 * vimp * h);
    /* per step: one force evaluation, one points call for the one pair */
    CHECK(c.n_forces == c.n_steps && c.n_points == c.n_steps && c.n_pairs == c.n_steps);
    CHECK(met.impacts >= 1);

    /* sliding with friction mu = 0.4 from 2 m/s: stops at t = u0 / (mu g) */
    double u0 = 2.0, mu = 0.4, tstop = u0 / (mu * GRAV);
    CHECK(s_run(&c, RAD, u0, mu, 1.0, h, &met) == 0);
    printf("  sliding at %.1f m/s, mu = %.1f: v_x within %.2e m/s of u0 - mu g t (stop at %.4f s), |z - R| %.1e m, "
           "|y| %.1e m; %ld steps, %ld points calls\n", u0, mu, c.worst_vx, tstop, c.worst_z, c.worst_y, c.n_steps,
           c.n_points);
    /* v_x falls by mu g h per step and is 0 from the step in which it
     * stops (the friction needed there is below mu m g h: it sticks):
     * exact up to round-off */
    CHECK(c.worst_vx < 1e-12 * u0);
    CHECK(c.worst_z < 1e-12 && c.worst_y < 1e-15);
    CHECK(c.n_points == c.n_steps);

    /* the same ball with a configuration-dependent mass and q' = G(q) v */
    s_cylinder_tests();
    s_refusals();
    return CHECK_SUMMARY("mj_form_test");
}
