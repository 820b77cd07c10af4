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

/* One run from z0 at rest (mu = 0) or from the floor at u0 along x (mu >
 * 0), to t_end with step h; 0 or the integrator's code. */
static int s_run(s_ball *c, double z0, double u0, double mu, double t_end, double h, mbs_metrics *met)
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
    CHECK(m->spec->ncontact == 1 && m->spec->contacts[0].law == MBS_LAW_RIGID && m->nvar >= 3);
    mbs_tol_init(m, d);
    memset(c, 0, sizeof *c);
    c->z0 = z0;
    c->u0 = u0;
    c->mu = mu;
    /* the workspace of this formulation instead of the example's */
    mbs_mj_ws_free(d);
    mbs_dae_form f = {.name = "point ball", .n = 3, .ne = 0, .length_scale = 1, .mass_scale = MASS, .ctx = c,
                      .mass_ptr = s_mptr, .mass_col = s_mcol, .mass_val = s_mval, .mass_mul = s_mass_mul,
                      .forces = s_forces, .forces_noncontact = s_forces, .constraints = s_constraints,
                      .phi_t = s_phi_t, .jv = s_jv};
    mbs_contact_rows r = {.nbody = 1, .body_nv = 3, .ctx = c, .body_vars = s_body_vars, .max_points = s_max_points,
                          .pair_vars = s_pair_vars, .points = s_points, .missed = s_missed};
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
    return CHECK_SUMMARY("mj_form_test");
}
