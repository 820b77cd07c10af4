/*
 * ed_form_test.c - the event-driven integrator through the formulation
 * boundary (formulation/dae_form.h and formulation/contact_rows.h) on a
 * formulation written here, not the natural coordinates: a disc of mass m
 * and radius R in the plane as a point mass in Cartesian coordinates
 * q = (x, y), M = m I, Q = (0, -m g), no constraints, one rigid contact
 * with the floor y = 0: gap y - R, normal row (0, 1), tangent row (-1, 0)
 * (the disc is side A, the floor side B: n = (0, -1) points from A to B, the
 * rows are r^T (v_B - v_A)).  mbs_ed_run runs it on a workspace made by
 * mbs_ed_ws_make from these two tables.
 *
 * Checked against closed forms, which the integrator meets to round-off
 * here (its smooth phases are Dormand-Prince steps on motions of constant
 * acceleration, exact; its events are located on the event functions to
 * 1e-12 t_end):
 * - a disc dropped from rest at height h0 with restitution e: the impact at
 *   t = sqrt(2 (h0 - R) / g) (gap event), the rebound at -e times the
 *   impact velocity (the impact LCP), the next impact 2 e v / g later;
 * - a disc sliding on the floor at u0 with friction mu: v_x = u0 - mu g t
 *   (slip mode), the stop at t = u0 / (mu g) (the slip event) at
 *   x = u0^2 / (2 mu g), then sticking (the mode LCP) with v_x = 0 and x
 *   unchanged, y = R throughout;
 * - the contact rows' points called a few times per step (the stages and
 *   the dG v differences), never per contact within an evaluation (counted:
 *   one pair per call here).
 *
 * The same disc in polar coordinates q = (r, phi), v = q' (a configuration-
 * dependent mass, dae_form.h mass_eval, with q' = v): M(q) = diag(m, m r^2),
 * Q = (m r phi'^2 - m g sin phi, -2 m r r' phi' - m g r cos phi), gap
 * r sin phi - R and rows through the point's Jacobian: the drop (sideways
 * too) and the sliding disc meet the same closed forms, now to the
 * Dormand-Prince tolerance (the smooth phases are no longer exact:
 * solver.tolerance 1e-10, bounds 1e-8: 100 times it), with M(q) evaluated once per
 * evaluation of the equations (counted against the forces).
 *
 * The model and run data come from examples/bouncing_ball_planar_event.json
 * (a circle and a line, one rigid pair, event_driven): the integrator reads
 * only its solver options and the contact's law, restitution and friction;
 * its arrays have room for two coordinates.
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
    int polar;  /* the state in polar coordinates (r, phi)                   */
    long n_points, n_pairs, n_steps, n_mass, n_forces;
    double mu, u0;
    /* drop: the first two impacts (v_y turning from - to +), the last
     * accepted state's time and v_y */
    int nimp;
    double t_imp[2], v_before[2], v_after[2], t_last, vy_last;
    /* sliding */
    double worst_vx, worst_y, x_end, t_stop;
} s_disc;

/* ---- the formulation ------------------------------------------------------------------- */

static const int s_vars[2] = {0, 1};
static const int s_mptr[3] = {0, 1, 2}, s_mcol[2] = {0, 1};
static const double s_mval[2] = {MASS, MASS};

static void s_mass_mul(void *ctx, const double *v, double *y)
{
    (void)ctx;
    y[0] = MASS * v[0];
    y[1] = MASS * v[1];
}

static void s_forces(void *ctx, const double *q, const double *v, double t, double *Q)
{
    (void)ctx; (void)q; (void)v; (void)t;
    Q[0] = 0;
    Q[1] = -MASS * GRAV;
}

/* no constraints */
static void s_constraints(void *ctx, const double *q, double t, double *phi, double *jac)
{
    (void)ctx; (void)q; (void)t; (void)phi; (void)jac;
}
static void s_baumgarte(void *ctx, const double *q, const double *v, double t, double alpha, double beta, double *c)
{
    (void)ctx; (void)q; (void)v; (void)t; (void)alpha; (void)beta; (void)c;
}
static double s_rank_margin(void *ctx) { (void)ctx; return 1; }

static int s_max_points(void *ctx, int k) { (void)ctx; (void)k; return 1; }
static const int *s_pair_vars(void *ctx, int k) { (void)ctx; (void)k; return s_vars; }

static void s_points(void *ctx, const double *q, long stamp, const int *pairs, int npairs, const double *reach,
                     mbs_rpoint *out, int *count, double *gmin)
{
    s_disc *c = ctx;
    (void)stamp; (void)reach; (void)gmin;
    c->n_points++;
    c->n_pairs += npairs;
    for (int j = 0; j < npairs; j++) {
        mbs_rpoint *P = out + j;
        memset(P, 0, sizeof *P);
        P->pair = pairs[j];
        P->nv = 2;
        P->g = q[1] - RAD;
        P->n[1] = -1;
        P->t[0][0] = 1;
        P->G[0][1] = 1;  /* -n^T v_A  */
        P->G[1][0] = -1; /* -t1^T v_A */
        P->body[0] = 0;
        P->body[1] = -1;
        count[j] = 1;
    }
}

/* ---- the same disc in polar coordinates ----------------------------------------------- */

static void s_pol_mass(void *ctx, const double *q, double *val)
{
    ((s_disc *)ctx)->n_mass++;
    val[0] = MASS;
    val[1] = MASS * q[0] * q[0];
}

/* Lagrange's equations of T = m/2 (r'^2 + r^2 phi'^2), V = m g r sin phi. */
static void s_pol_forces(void *ctx, const double *q, const double *v, double t, double *Q)
{
    (void)t;
    ((s_disc *)ctx)->n_forces++;
    double c = cos(q[1]), sn = sin(q[1]);
    Q[0] = MASS * q[0] * v[1] * v[1] - MASS * GRAV * sn;
    Q[1] = -2 * MASS * q[0] * v[0] * v[1] - MASS * GRAV * q[0] * c;
}

/* The floor: gap y - R = r sin phi - R; rows -d^T J v with the Jacobian J
 * of (x, y) = r (cos phi, sin phi), d = n = (0, -1) and t1 = (1, 0). */
static void s_pol_points(void *ctx, const double *q, long stamp, const int *pairs, int npairs, const double *reach,
                         mbs_rpoint *out, int *count, double *gmin)
{
    s_disc *c = ctx;
    (void)stamp; (void)reach; (void)gmin;
    c->n_points++;
    c->n_pairs += npairs;
    double r = q[0], co = cos(q[1]), sn = sin(q[1]);
    for (int j = 0; j < npairs; j++) {
        mbs_rpoint *P = out + j;
        memset(P, 0, sizeof *P);
        P->pair = pairs[j];
        P->nv = 2;
        P->g = r * sn - RAD;
        P->n[1] = -1;
        P->t[0][0] = 1;
        P->G[0][0] = sn;      /* the y row of J  */
        P->G[0][1] = r * co;
        P->G[1][0] = -co;     /* minus the x row */
        P->G[1][1] = r * sn;
        P->body[0] = 0;
        P->body[1] = -1;
        count[j] = 1;
    }
}

/* The Cartesian position X and velocity V of a state (x, v). */
static void s_cart(const s_disc *c, const double *x, const double *v, double X[2], double V[2])
{
    if (!c->polar) {
        X[0] = x[0]; X[1] = x[1];
        V[0] = v[0]; V[1] = v[1];
        return;
    }
    double co = cos(x[1]), sn = sin(x[1]);
    X[0] = x[0] * co;
    X[1] = x[0] * sn;
    V[0] = v[0] * co - x[0] * sn * v[1];
    V[1] = v[0] * sn + x[0] * co * v[1];
}

/* ---- the run --------------------------------------------------------------------------- */

static int s_done(void *ctx, const mbs_model *m, mbs_data *d, mbs_errlist *err)
{
    s_disc *c = ctx;
    (void)m; (void)err;
    c->n_steps++;
    double X[2], V[2], Xp[2], Vp[2];
    s_cart(c, d->x, d->v, X, V);
    s_cart(c, d->xp, d->vp, Xp, Vp);
    if (c->mu > 0) {
        double vx = fmax(c->u0 - c->mu * GRAV * d->t, 0);
        c->worst_vx = fmax(c->worst_vx, fabs(V[0] - vx));
        c->worst_y = fmax(c->worst_y, fabs(X[1] - RAD));
        c->x_end = X[0];
        /* the slip event ends a step where v_x is 0 to the event's time
         * tolerance (mu g 1e-12 t_end) */
        if (c->t_stop == 0 && fabs(V[0]) < 1e-9 * c->u0) c->t_stop = d->t;
        return 0;
    }
    /* an impact: a step ends at the event approaching (d->v), the impact
     * LCP turns the velocity after the book-keeping, and the next step
     * starts from the rebound (d->vp) */
    if (c->nimp < 2 && c->n_steps > 1 && c->vy_last < 0 && Vp[1] > 0 && d->tp == c->t_last) {
        c->t_imp[c->nimp] = d->tp;
        c->v_before[c->nimp] = c->vy_last;
        c->v_after[c->nimp] = Vp[1];
        c->nimp++;
    }
    c->t_last = d->t;
    c->vy_last = V[1];
    return 0;
}

/* One run from (x, y) = (x0, y0) at (u0, 0), friction mu, to t_end, in
 * Cartesian or polar coordinates (polar, at solver.tolerance 1e-10); 0 or
 * the integrator's code. */
static int s_run_in(s_disc *c, int polar, double x0, double y0, double u0, double mu, double t_end,
                    mbs_metrics *met)
{
    char tend[64];
    snprintf(tend, sizeof tend, "solver.t_end=%.17g", t_end);
    const char *sets[] = {tend, "solver.contact_deactivation=false", polar ? "solver.tolerance=1e-10" : NULL, NULL};
    t_sets ts;
    t_sets_parse(&ts, sets);
    char *doc = t_slurp("examples/bouncing_ball_planar_event.json", NULL);
    if (!doc) return -100;
    mbs_errlist el = {0};
    mbs_spec *s = mech_parse(doc, strlen(doc), ts.ov, ts.n, &el);
    free(doc);
    if (!s) return -101;
    s->contacts[0].friction = s->contacts[0].friction_static = mu;
    mbs_model *m = mbs_model_new(s, NULL, &el);
    mbs_data *d = m ? mbs_data_new(m) : NULL;
    if (!d) return -102;
    CHECK(m->dim == 2 && m->spec->ncontact == 1 && m->spec->contacts[0].law == MBS_LAW_RIGID && m->nvar >= 2);
    mbs_tol_init(m, d);
    memset(c, 0, sizeof *c);
    c->polar = polar;
    c->mu = mu;
    c->u0 = u0;
    /* the workspace of this formulation instead of the example's */
    mbs_ed_data_free(d);
    mbs_dae_form f = {.name = "point disc", .n = 2, .ne = 0, .length_scale = 1, .mass_scale = MASS, .ctx = c,
                      .mass_ptr = s_mptr, .mass_col = s_mcol, .mass_val = s_mval, .mass_mul = s_mass_mul,
                      .forces = s_forces, .forces_noncontact = s_forces, .constraints = s_constraints,
                      .baumgarte_rhs = s_baumgarte, .rank_margin = s_rank_margin};
    mbs_contact_rows r = {.nbody = 1, .body_nv = 2, .ctx = c, .max_points = s_max_points, .pair_vars = s_pair_vars,
                          .points = s_points};
    if (polar) {
        /* M(q) by mass_eval (no constant values, no M v: never called) */
        f.mass_val = NULL;
        f.mass_mul = NULL;
        f.mass_eval = s_pol_mass;
        f.forces = f.forces_noncontact = s_pol_forces;
        r.points = s_pol_points;
    }
    CHECK(mbs_ed_ws_make(&f, &r, m, d) == 0);
    d->t = 0;
    if (polar) {
        /* (r, phi) and their rates of the Cartesian state */
        double rr = hypot(x0, y0), co = x0 / rr, sn = y0 / rr;
        d->x[0] = rr;
        d->x[1] = atan2(y0, x0);
        d->v[0] = co * u0;
        d->v[1] = -sn * u0 / rr;
    } else {
        d->x[0] = x0;
        d->x[1] = y0;
        d->v[0] = u0;
        d->v[1] = 0;
    }
    memset(&d->met, 0, sizeof d->met);
    mbs_ed_reset(d);
    mbs_stepper run = {s_done, c, 0.01};
    int rc = mbs_ed_start(m, d, &el);
    if (!rc) rc = mbs_ed_run(m, d, &run, &el);
    if (rc) printf("  run failed: %s\n", el.n > 0 ? el.e[0].message : "?");
    *met = d->met;
    mbs_data_free(&d);
    mbs_model_free(&m);
    mbs_spec_free(&s);
    return rc;
}

static int s_run(s_disc *c, double y0, double u0, double mu, double t_end, mbs_metrics *met)
{
    return s_run_in(c, 0, 0, y0, u0, mu, t_end, met);
}

/* The polar disc: a drop (from x0 = 0.6 m, with a sideways velocity 0.3
 * m/s) and a slide from x0 = 0.5 m, against the closed forms. */
static void s_polar_tests(void)
{
    static s_disc c;
    mbs_metrics met;
    const double h0 = 1.0, e = 0.8, x0 = 0.6, ud = 0.3;
    CHECK(s_run_in(&c, 1, x0, h0 + RAD, ud, 0, 1.2, &met) == 0);
    double t1 = sqrt(2 * h0 / GRAV), v1 = sqrt(2 * GRAV * h0), t2 = t1 + 2 * e * v1 / GRAV;
    printf("  polar drop: %ld steps, %ld events, impacts at t = %.12f and %.12f s (exact %.12f, %.12f), v_y %.12f -> "
           "%.12f m/s (exact %.12f -> %.12f); %ld mass, %ld forces calls\n", c.n_steps, met.events, c.t_imp[0],
           c.t_imp[1], t1, t2, c.v_before[0], c.v_after[0], -v1, e * v1, c.n_mass, c.n_forces);
    CHECK(c.nimp == 2);
    CHECK(fabs(c.t_imp[0] - t1) < 1e-8 && fabs(c.t_imp[1] - t2) < 1e-8);
    CHECK(fabs(c.v_before[0] + v1) < 1e-8 * v1 && fabs(c.v_after[0] - e * v1) < 1e-8 * v1);
    /* M(q) once with each evaluation of the forces */
    CHECK(c.n_mass == c.n_forces && c.n_mass > c.n_steps);

    const double u0 = 2.0, mu = 0.4, ts = u0 / (mu * GRAV), xs = 0.5 + u0 * u0 / (2 * mu * GRAV);
    CHECK(s_run_in(&c, 1, 0.5, RAD, u0, mu, 1.0, &met) == 0);
    printf("  polar sliding: v_x within %.2e m/s of max(u0 - mu g t, 0), stopped at t = %.12f s (exact %.12f), "
           "x = %.12f m at the end (exact %.12f), |y - R| %.1e m; %ld steps, %ld events\n", c.worst_vx, c.t_stop, ts,
           c.x_end, xs, c.worst_y, c.n_steps, met.events);
    CHECK(c.worst_vx < 1e-8 * u0);
    CHECK(fabs(c.t_stop - ts) < 1e-8);
    CHECK(fabs(c.x_end - xs) < 1e-8);
    CHECK(c.worst_y < 1e-8);
}

int main(void)
{
    static s_disc c;
    mbs_metrics met;

    /* a drop from 1 m (the example's restitution, 0.8) */
    const double h0 = 1.0, e = 0.8;
    CHECK(s_run(&c, h0 + RAD, 0, 0, 1.2, &met) == 0);
    double t1 = sqrt(2 * h0 / GRAV), v1 = sqrt(2 * GRAV * h0), t2 = t1 + 2 * e * v1 / GRAV;
    printf("  drop from %.1f m: %ld steps, %ld events, impacts at t = %.12f and %.12f s (exact %.12f, %.12f), "
           "v_y %.12f -> %.12f m/s (exact %.12f -> %.12f); %ld points calls for %ld pairs\n", h0, c.n_steps,
           met.events, c.t_imp[0], c.t_imp[1], t1, t2, c.v_before[0], c.v_after[0], -v1, e * v1, c.n_points,
           c.n_pairs);
    CHECK(c.nimp == 2);
    CHECK(fabs(c.t_imp[0] - t1) < 1e-9 && fabs(c.t_imp[1] - t2) < 1e-9);
    CHECK(fabs(c.v_before[0] + v1) < 1e-9 * v1 && fabs(c.v_after[0] - e * v1) < 1e-9 * v1);
    CHECK(met.impacts >= 2);
    /* the points of the one pair in each call: the calls are per
     * evaluation (stages, dG v), not per contact */
    CHECK(c.n_pairs == c.n_points && c.n_points > c.n_steps);

    /* sliding from 2 m/s with mu = 0.4: stops at 0.5097 s */
    const double u0 = 2.0, mu = 0.4, ts = u0 / (mu * GRAV), xs = u0 * u0 / (2 * mu * GRAV);
    CHECK(s_run(&c, RAD, u0, mu, 1.0, &met) == 0);
    printf("  sliding at %.1f m/s, mu = %.1f: v_x within %.2e m/s of max(u0 - mu g t, 0), stopped at t = %.12f s "
           "(exact %.12f), x = %.12f m at the end (exact %.12f), |y - R| %.1e m; %ld steps, %ld events\n", u0, mu,
           c.worst_vx, c.t_stop, ts, c.x_end, xs, c.worst_y, c.n_steps, met.events);
    CHECK(c.worst_vx < 1e-9 * u0);
    CHECK(fabs(c.t_stop - ts) < 1e-9);
    CHECK(fabs(c.x_end - xs) < 1e-9);
    CHECK(c.worst_y < 1e-12);
    CHECK(met.events >= 1);

    /* a configuration-dependent mass: the same motions in polar coordinates */
    s_polar_tests();
    return CHECK_SUMMARY("ed_form_test");
}
