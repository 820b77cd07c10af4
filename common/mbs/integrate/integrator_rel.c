/*
 * integrator_rel.c - the relative coordinates behind the formulation
 * boundary (formulation/formulation.h): the hooks of mbs_ode_form on an
 * mbs_rel_state, run by dopri5.c's one Dormand-Prince driver
 * (integrator_rel.h).
 */
#include "mbs/integrate/integrator_rel.h"
#include "mbs/integrate/bdf_ode.h"
#include "mbs/integrate/dopri5.h"
#include "mbs/dynamics/controller.h"
#include "mbs/dynamics/force.h"
#include "mbs/model/accuracy.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int mbs_rel_state_new(mbs_rel_state *s, const mbs_rtree *t, mbs_rtree_ws *w, int nz)
{
    memset(s, 0, sizeof *s);
    s->tree = t;
    s->w = w;
    s->n = t->n;
    s->nq = t->nq;
    s->nz = nz;
    size_t n = (size_t)t->n + 1, nq = (size_t)t->nq + 1, z = (size_t)nz + 1;
    s->q = calloc(nq, sizeof(double));
    s->u = calloc(n, sizeof(double));
    s->qdd = calloc(n, sizeof(double));
    s->z = calloc(z, sizeof(double));
    s->zd = calloc(z, sizeof(double));
    s->k = calloc(7 * (n + nq + z), sizeof(double));
    s->ys = calloc(n + nq + z, sizeof(double));
    s->y0 = calloc(n + nq + z, sizeof(double));
    s->wq = calloc(nq, sizeof(double));
    s->wu = calloc(n, sizeof(double));
    if (!s->q || !s->u || !s->qdd || !s->z || !s->zd || !s->k || !s->ys || !s->y0 || !s->wq || !s->wu) {
        mbs_rel_state_free(s);
        return MBS_ENOMEM;
    }
    return 0;
}

void mbs_rel_state_free(mbs_rel_state *s)
{
    free(s->q); free(s->u); free(s->qdd); free(s->z); free(s->zd); free(s->k); free(s->ys); free(s->y0); free(s->wq); free(s->wu);
    memset(s, 0, sizeof *s);
}

/* mbs_ode_form.slope at (t, y = (q, u, z)): k = (qdot, udd, zd). */
static int s_slope(void *ctx, double t, const double *y, double *k)
{
    mbs_rel_state *s = ctx;
    int nq = s->nq, n = s->n;
    s->z_eval = y + nq + n;
    s->zd_eval = k + nq + n;
    mbs_rtree_qdot(s->tree, y, y + nq, k);
    return mbs_rtree_accel(s->tree, s->w, t, y, y + nq, s->alpha, s->beta, k + nq);
}

/* mbs_ode_form.weight: a coordinate's absolute weight, a rate's plus rtol
 * |u|, an element state's of accuracy.h (integrator_rel.h) */
typedef struct {
    mbs_rel_state *s;
    mbs_data *d;
    const char *integrator; /* its name, for the messages */
    const mbs_model *m;
} s_form_ctx;

static double s_weight(void *ctx, int i, double ay)
{
    s_form_ctx *c = ctx;
    const mbs_rel_state *s = c->s;
    if (i < s->nq) return s->wq[i];
    if (i < s->nq + s->n) return s->wu[i - s->nq] + c->d->tol.rtol * ay;
    return mbs_wz(c->d, i - s->nq - s->n, ay);
}

/* a rate's weight, its index among the rates (mbs_energy_scale) */
static double s_rate_weight(void *ctx, int i, double av) { return s_weight(ctx, ((s_form_ctx *)ctx)->s->nq + i, av); }

/* the hooks below take the s_form_ctx; slope the state itself */
/* each slope solves for the n joint accelerations and the neq loop and
 * driver multipliers: the run's system dimension (metrics) */
static int s_slope_c(void *ctx, double t, const double *y, double *k)
{
    s_form_ctx *c = ctx;
    mbs_note_system(c->d, c->s->n + c->s->tree->neq);
    return s_slope(c->s, t, y, k);
}

/* mbs_ode_form.commit: the accepted state where the run reads it (s->w
 * holds the last stage's kinematics and accelerations: this state's) */
static int s_commit(void *ctx, double t0, double h, double *tp, double *y, double *k, int *retake, mbs_errlist *err)
{
    (void)t0; (void)h; (void)retake; (void)err;
    double t = *tp;
    mbs_rel_state *s = ((s_form_ctx *)ctx)->s;
    int nq = s->nq, n = s->n;
    size_t zb = sizeof(double) * (size_t)s->nz;
    s->t = t;
    memcpy(s->q, y, sizeof(double) * (size_t)nq);
    memcpy(s->u, y + nq, sizeof(double) * (size_t)n);
    memcpy(s->qdd, k + nq, sizeof(double) * (size_t)n);
    memcpy(s->z, y + nq + n, zb);
    memcpy(s->zd, k + nq + n, zb);
    return 0;
}

/* mbs_ode_form.reslope: the slope at the accepted state after a sampled
 * controller's jump, its accelerations and rates where the run reads them */
static int s_reslope(void *ctx, double t, const double *y, double *k)
{
    mbs_rel_state *s = ((s_form_ctx *)ctx)->s;
    if (s_slope(s, t, y, k) != 0) return 1;
    memcpy(s->qdd, k + s->nq, sizeof(double) * (size_t)s->n);
    memcpy(s->zd, k + s->nq + s->n, sizeof(double) * (size_t)s->nz);
    return 0;
}

/* mbs_ode_form.next_stop and sample: the discrete controllers measure the
 * natural coordinates' state in d, which the run's stepper (`done`,
 * run/relative.c) has mapped from the accepted (q, u, z), as for the
 * outputs, before the driver samples */
static double s_next_stop(void *ctx)
{
    s_form_ctx *c = ctx;
    return mbs_ctrl_next_stop(c->m, c->d);
}

static int s_sample(void *ctx, double t, const double *y)
{
    (void)t; (void)y;
    s_form_ctx *c = ctx;
    return mbs_ctrl_sample(c->m, c->d);
}

/* mbs_ode_form.project: a conservative mechanism's accepted state onto its
 * starting energy, as the natural coordinates' (dynamics/force.c
 * mbs_energy_project, whose reasons hold here): the rates scaled by
 * s = sqrt((E0 - V) / T), which keeps the chords' J u = 0 and scales T by
 * s^2, by at most each rate's error weight; the energy moved is summed in
 * d->E_proj (the energy_drift metric counts it back).  The slope and the
 * kinematics in w are then taken again at the scaled rates (the run reads
 * the state's velocities from w, and the next step's first stage is this
 * slope).  Without it relative dopri5 at the default tolerance drifted the
 * spatial slider-crank's crank speed by 2.8e-4 of its scale in 5 s. */
static void s_project(void *ctx, double t, double *y, double *k)
{
    s_form_ctx *c = ctx;
    mbs_rel_state *s = c->s;
    mbs_data *d = c->d;
    int nq = s->nq, n = s->n;
    double T, V;
    /* not next to a singular position of a loop (the chords' equations
     * nearly dependent: the pivot ratio of s_fail's message), where a
     * change of the rates may carry the run onto the other branch */
    if (s->tree->neq > 0 && s->w->pivot_ratio < 1e-6) return;
    if (s->energy(s->energy_ctx, s, t, &T, &V) != 0) return;
    double sc = mbs_energy_scale(T, d->E0 - V, y + nq, n, s_rate_weight, ctx);
    if (sc == 1) return;
    for (int i = 0; i < n; i++) y[nq + i] *= sc;
    /* the slope at the scaled state; kept unscaled if it fails (it did not
     * at the unscaled one, and the change is within the error weights) */
    if (s_reslope(ctx, t, y, k) != 0) {
        for (int i = 0; i < n; i++) y[nq + i] /= sc;
        (void)s_reslope(ctx, t, y, k);
        return;
    }
    d->E_proj += T * (1 - sc * sc);
    memcpy(s->u, y + nq, sizeof(double) * (size_t)n);
}

static double s_switch(void *ctx, const double *y0, const double *y1, double h)
{
    mbs_rel_state *s = ((s_form_ctx *)ctx)->s;
    return s->switch_at(s->switch_ctx, s, y0, y1, h);
}

static int s_fail(void *ctx, int why, double t, double h, mbs_errlist *err)
{
    s_form_ctx *c = ctx;
    mbs_rel_state *s = c->s;
    if (why == MBS_ODE_FAIL_STAGE) {
        mbs_err_add(err, "", "t = %.6g: the articulated-body recursion met a zero inertia on a joint axis "
                    "(relative formulation): a body without mass or inertia about a joint's axis", t);
        return MBS_ESINGULAR;
    }
    if (why == MBS_ODE_FAIL_RESLOPE) {
        mbs_err_add(err, "", "t = %.6g: singular articulated-body recursion after a controller's sample", t);
        return MBS_ESINGULAR;
    }
    /* at a singular position of a loop say so: the common cause */
    if (s->tree->neq > 0 && s->w->pivot_ratio < 1e-6)
        mbs_err_add(err, "", "t = %.6g: step size %.3g below solver.min_step (relative formulation, %s) at "
                    "a singular position (loop equations nearly dependent, pivot ratio %.1e); natural bdf "
                    "passes it", t, h, c->integrator, s->w->pivot_ratio);
    else
        mbs_err_add(err, "", "t = %.6g: step size %.3g below solver.min_step (relative formulation, %s)", t, h,
                    c->integrator);
    return MBS_EDIVERGE;
}

int mbs_integrate_relative(const mbs_model *m, mbs_data *d, mbs_rel_state *s, mbs_stepper *run, mbs_errlist *err)
{
    const mbs_solver_spec *o = &m->spec->solver;
    int n = s->n, nq = s->nq, nz = s->nz;
    double T = o->t_end;
    s->alpha = o->baumgarte_alpha;
    s->beta = o->baumgarte_beta;
    /* error weights (integrator_rel.h) */
    double rtol = d->tol.rtol, L = d->tol.L > 0 ? d->tol.L : 1.0;
    for (int i = 0; i < nq; i++) s->wq[i] = rtol * mbs_rtree_qscale(s->tree, i, L);
    for (int i = 0; i < n; i++) s->wu[i] = rtol * mbs_rtree_uscale(s->tree, i, L) / T;
    /* solver.abs_tolerance given: every coordinate and rate to it, as the
     * natural coordinates hold theirs (points and unit vectors alike) */
    if (!d->tol.per_var) {
        for (int i = 0; i < nq; i++) s->wq[i] = d->tol.atol_x;
        for (int i = 0; i < n; i++) s->wu[i] = d->tol.atol_v;
    }
    int bdf = o->integrator == MBS_INT_BDF;
    s_form_ctx c = {s, d, bdf ? "bdf" : "dopri5", m};
    mbs_ode_form f = {.name = "relative", .nq = nq, .nv = n, .nz = nz, .ctx = &c, .slope = s_slope_c,
                      .weight = s_weight, .commit = s_commit, .reslope = s_reslope,
                      .next_stop = m->nctrl > 0 ? s_next_stop : NULL, .sample = m->nctrl > 0 ? s_sample : NULL,
                      .switch_at = s->switch_at ? s_switch : NULL,
                      .project = s->energy && mbs_energy_projectable(m) ? s_project : NULL, .fail = s_fail};
    /* the driver's state: y = (q, u, z) in s->y0, the stage state s->ys,
     * FSAL: the first slope is the current state's */
    mbs_ode_state st = {.t = s->t, .y = s->y0, .ys = s->ys, .k = s->k};
    memcpy(s->y0, s->q, sizeof(double) * (size_t)nq);
    memcpy(s->y0 + nq, s->u, sizeof(double) * (size_t)n);
    memcpy(s->y0 + nq + n, s->z, sizeof(double) * (size_t)nz);
    mbs_rtree_qdot(s->tree, s->q, s->u, s->k);
    memcpy(s->k + nq, s->qdd, sizeof(double) * (size_t)n);
    memcpy(s->k + nq + n, s->zd, sizeof(double) * (size_t)nz);
    return bdf ? mbs_bdf_ode_run(m, d, &f, &st, run, err) : mbs_dopri5_run(m, d, &f, &st, run, err);
}
