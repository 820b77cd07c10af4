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
    long n_points, n_pairs, n_steps;
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

/* ---- the run --------------------------------------------------------------------------- */

static int s_done(void *ctx, const mbs_model *m, mbs_data *d, mbs_errlist *err)
{
    s_disc *c = ctx;
    (void)m; (void)err;
    c->n_steps++;
    if (c->mu > 0) {
        double vx = fmax(c->u0 - c->mu * GRAV * d->t, 0);
        c->worst_vx = fmax(c->worst_vx, fabs(d->v[0] - vx));
        c->worst_y = fmax(c->worst_y, fabs(d->x[1] - RAD));
        c->x_end = d->x[0];
        /* the slip event ends a step where v_x is 0 to the event's time
         * tolerance (mu g 1e-12 t_end) */
        if (c->t_stop == 0 && fabs(d->v[0]) < 1e-9 * c->u0) c->t_stop = d->t;
        return 0;
    }
    /* an impact: a step ends at the event approaching (d->v), the impact
     * LCP turns the velocity after the book-keeping, and the next step
     * starts from the rebound (d->vp) */
    if (c->nimp < 2 && c->n_steps > 1 && c->vy_last < 0 && d->vp[1] > 0 && d->tp == c->t_last) {
        c->t_imp[c->nimp] = d->tp;
        c->v_before[c->nimp] = c->vy_last;
        c->v_after[c->nimp] = d->vp[1];
        c->nimp++;
    }
    c->t_last = d->t;
    c->vy_last = d->v[1];
    return 0;
}

/* One run from (x, y) = (0, y0) at (u0, 0), friction mu, to t_end; 0 or the
 * integrator's code. */
static int s_run(s_disc *c, double y0, double u0, double mu, double t_end, mbs_metrics *met)
{
    char tend[64];
    snprintf(tend, sizeof tend, "solver.t_end=%.17g", t_end);
    const char *sets[] = {tend, "solver.contact_deactivation=false", NULL};
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
    CHECK(mbs_ed_ws_make(&f, &r, m, d) == 0);
    d->t = 0;
    d->x[0] = 0;
    d->x[1] = y0;
    d->v[0] = u0;
    d->v[1] = 0;
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
    return CHECK_SUMMARY("ed_form_test");
}
