/*
 * contact_relative_run.c - Moreau-Jean and the event-driven integrator on
 * the relative formulation's tree (relative.h mbs_rel_mj_run,
 * mbs_rel_ed_run): the tree's form and rows (contact_relative.c) handed to
 * integrate/integrator_mj.c / integrator_ed.c on a data of joint
 * coordinates, every accepted step mapped to the natural coordinates of
 * the run's data for the outputs (docs/formulations.md "Moreau-Jean (and
 * the event-driven integrator) in relative coordinates").
 */
#include "mbs/run/contact_relative.h"

#include "mbs/integrate/integrators.h"
#include "mbs/run/run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the run ----------------------------------------------------------------------------- */

/* The run's data d and the integrator's: the same run with arrays on the
 * joint coordinates (dr), whose accepted steps are mapped into d. */
typedef struct {
    mbs_data *d;
    mbs_sampler *smp;
    const mbs_rtree *t;
    mbs_rtree_ws *w;
    int ed;                  /* event-driven: the accelerations are the state's */
} s_mjrun;

/* The metrics live in both data; the one that wrote last is copied. */
static void s_sync(mbs_data *to, const mbs_data *from)
{
    to->met = from->met;
    to->sysdim_sum = from->sysdim_sum;
    to->sysdim_count = from->sysdim_count;
}

/* The stepper's done: the accepted state mapped to the natural coordinates
 * (Moreau-Jean's accelerations as its own, the velocity change over the
 * step; the event-driven integrator's those of the state, through the
 * tree's acceleration pass), then the run's book-keeping on d. */
static int s_mj_done(void *ctx, const mbs_model *m, mbs_data *dr, mbs_errlist *err)
{
    s_mjrun *r = ctx;
    mbs_data *d = r->d;
    size_t nb = sizeof(double) * (size_t)m->nvar;
    if (r->ed) {
        /* the integrator's previous state too (after an event, the state
         * just after the impulse, not the last step's end), both with the
         * state's accelerations */
        mbs_rtree_kinematics(r->t, r->w, dr->xp, dr->vp);
        mbs_rtree_accel_pass(r->t, r->w, dr->ap);
        mbs_rel_to_natural(m, r->t, r->w, d->xp, d->vp, d->ap);
        mbs_rtree_kinematics(r->t, r->w, dr->x, dr->v);
        mbs_rtree_accel_pass(r->t, r->w, dr->a);
        mbs_rel_to_natural(m, r->t, r->w, d->x, d->v, d->a);
        d->t = dr->tp;
    } else {
        memcpy(d->xp, d->x, nb);
        memcpy(d->vp, d->v, nb);
        memcpy(d->ap, d->a, nb);
        mbs_rtree_kinematics(r->t, r->w, dr->x, dr->v);
        mbs_rel_to_natural(m, r->t, r->w, d->x, d->v, NULL);
        double h = dr->t - d->t;
        for (int i = 0; i < m->nvar; i++) d->a[i] = h > 0 ? (d->v[i] - d->vp[i]) / h : 0;
    }
    d->tp = d->t;
    d->t = dr->t;
    s_sync(d, dr);
    int rc = mbs_run_step_done(m, d, r->smp, err);
    s_sync(dr, d);
    /* the active set of contact deactivation: the run's broad phase on the
     * mapped state (its arrays are d's, shared by the copy) */
    dr->c_ready = d->c_ready;
    dr->c_nactive = d->c_nactive;
    return rc;
}

/* The integrator's data: arrays of joint coordinates (x, xp of nq; v, a, Q
 * of n; phi, jac of ne and ne x n; the event-driven integrator's stages),
 * the error weights of integrator_rel.c; the rest is d's.  0 or MBS_ENOMEM. */
typedef struct { double *tw; } s_shadow;

static void s_shadow_free(mbs_data *dr, s_shadow *sh)
{
    free(dr->x); free(dr->xp); free(dr->v); free(dr->vp); free(dr->a); free(dr->ap); free(dr->Q); free(dr->phi);
    free(dr->phit); free(dr->gam); free(dr->lam); free(dr->jac); free(dr->eq_on); free(dr->r1); free(dr->r2);
    free(dr->r3); free(dr->r4); free(dr->rk); free(dr->w1); free(dr->w2); free(dr->hv); free(dr->ha); free(sh->tw);
}

static int s_shadow_new(const mbs_model *m, const mbs_data *d, const mbs_rtree *t, mbs_data *dr, s_shadow *sh)
{
    int n = t->n, nq = t->nq, ne = t->neq, nn = n > 0 ? n : 1, nqq = nq > 0 ? nq : 1;
    size_t nr = (size_t)(n > ne ? n : ne) + (size_t)n + (size_t)ne + 1;
    *dr = *d;
    dr->n = n;
    dr->ne = ne;
    dr->mj = NULL;
    dr->ed = NULL;
    dr->c_ready = d->c_ready;
    dr->cons_at_state = 0;
    dr->x = calloc((size_t)nqq, sizeof(double)); dr->xp = calloc((size_t)nqq, sizeof(double));
    dr->v = calloc((size_t)nn, sizeof(double)); dr->vp = calloc((size_t)nn, sizeof(double));
    dr->a = calloc((size_t)nn, sizeof(double)); dr->ap = calloc((size_t)nn, sizeof(double));
    dr->Q = calloc((size_t)nn, sizeof(double));
    dr->phi = calloc((size_t)ne + 1, sizeof(double)); dr->phit = calloc((size_t)ne + 1, sizeof(double));
    dr->gam = calloc((size_t)ne + 1, sizeof(double)); dr->lam = calloc((size_t)ne + 1, sizeof(double));
    dr->jac = calloc((size_t)ne * nn + 1, sizeof(double));
    dr->eq_on = calloc((size_t)ne + 1, 1);
    dr->r1 = calloc(nr, sizeof(double)); dr->r2 = calloc(nr, sizeof(double));
    dr->r3 = calloc(nr, sizeof(double)); dr->r4 = calloc(nr, sizeof(double));
    dr->rk = calloc(16 * (size_t)nn, sizeof(double));
    dr->w1 = calloc(nr, sizeof(double)); dr->w2 = calloc(nr, sizeof(double));
    dr->hv = calloc((size_t)nn, sizeof(double)); dr->ha = calloc((size_t)nn, sizeof(double));
    /* error weights on the joint coordinates, as relative dopri5 takes them
     * (integrator_rel.c): angles in radians, slides in the model's length */
    sh->tw = calloc(3 * (size_t)nqq + 3, sizeof(double));
    if (d->tol.per_var && sh->tw) {
        double rtol = d->tol.rtol, L = d->tol.L > 0 ? d->tol.L : 1.0, T = m->spec->solver.t_end;
        dr->tol.ax = sh->tw;
        dr->tol.rx = sh->tw + nqq + 1;
        dr->tol.av = sh->tw + 2 * (size_t)nqq + 2;
        for (int i = 0; i < nq; i++) {
            int iu = i < n ? i : n - 1;
            dr->tol.ax[i] = rtol * mbs_rtree_uscale(t, iu, L);
            dr->tol.rx[i] = rtol;
            dr->tol.av[i] = rtol * mbs_rtree_uscale(t, iu, L) / (T > 0 ? T : 1.0);
        }
    }
    if (!dr->x || !dr->xp || !dr->v || !dr->vp || !dr->a || !dr->ap || !dr->Q || !dr->phi || !dr->phit ||
        !dr->gam || !dr->lam || !dr->jac || !dr->eq_on || !dr->r1 || !dr->r2 || !dr->r3 || !dr->r4 || !dr->rk ||
        !dr->w1 || !dr->w2 || !dr->hv || !dr->ha || !sh->tw)
        return MBS_ENOMEM;
    return 0;
}

/* The event-driven run under way in this thread (its contact force outputs:
 * d->rigid_forces has no context of its own, as simulate.c's run). */
typedef struct {
    mbs_data *dr;
    const mbs_rtree *t;
    mbs_rtree_ws *w;
    double *q, *u;           /* (nq), (n) a sample's joint coordinates       */
} s_edfr;
static _Thread_local s_edfr *s_ed_cur;

/* d->rigid_forces of a relative event-driven run: the sampled natural state
 * (x, v) in joint coordinates, the integrator's point forces there (it
 * solves its contact modes at the state). */
static void s_ed_forces(const mbs_model *m, mbs_data *d, double t, const double *x, const double *v, mbs_cforce_fn fn,
                        void *ctx)
{
    (void)d;
    s_edfr *e = s_ed_cur;
    if (!e || mbs_rel_from_natural(m, e->t, e->w, x, v, e->q, e->u) != 0) return;
    /* a revolute node's angle on the integrator's branch (the poses give it
     * modulo 2 pi; a driver's equation is not periodic) */
    for (int i = 0; i < e->t->nnode; i++) {
        const mbs_rnode *nd = &e->t->node[i];
        if (nd->kind != MBS_RN_REVOLUTE) continue;
        double d2 = e->dr->x[nd->qcoord] - e->q[nd->qcoord];
        e->q[nd->qcoord] += 2 * M_PI * round(d2 / (2 * M_PI));
    }
    mbs_ed_point_forces(m, e->dr, t, e->q, e->u, fn, ctx);
}

/* Moreau-Jean (ed 0) or the event-driven integrator (ed 1) on the tree. */
static int s_rel_run(const mbs_model *m, mbs_data *d, mbs_sampler *smp, const mbs_rtree *t, mbs_rtree_ws *w,
                     const double *q, const double *u, const double *udd, int ed, mbs_errlist *err)
{
    const char *iname = ed ? "event_driven" : "moreau_jean";
    if (t->nrr > 0) {
        mbs_err_add(err, "/forces", "%s in relative coordinates: a dc_motor's rotor on a chord joint (its inertia is "
                    "not in the tree's mass matrix); use the natural formulation", iname);
        return MBS_EINVAL;
    }
    if (m->nz > 0 || m->nctrl > 0) {
        mbs_err_add(err, "/forces", "%s in relative coordinates: element states (a motor's inductance) or "
                    "controllers are not integrated by it; use the natural formulation", iname);
        return MBS_EINVAL;
    }
    /* the event-driven integrator's stages take q += h v: no ball joint */
    if (ed && t->nq != t->n) {
        mbs_err_add(err, "/solver/integrator", "event_driven in relative coordinates: a ball joint's quaternion "
                    "(its dopri5 stages take q += h v); use moreau_jean or the natural formulation");
        return MBS_EINVAL;
    }
    mbs_dae_form f;
    mbs_contact_rows rows;
    int rc = mbs_rel_contact_new(m, t, w, q, ed, d, &f, &rows, err);
    if (rc) return rc;
    mbs_data dr;
    s_shadow sh = {NULL};
    rc = s_shadow_new(m, d, t, &dr, &sh);
    mbs_rel_contact_data(&rows, &dr);
    if (rc && rows.release) rows.release(rows.ctx);
    mbs_mj_ws *nat = d->mj;
    struct mbs_ed_ws *nated = d->ed;
    (void)nated;
    if (!rc) {
        memcpy(dr.x, q, sizeof(double) * (size_t)t->nq);
        memcpy(dr.v, u, sizeof(double) * (size_t)t->n);
        memcpy(dr.a, udd, sizeof(double) * (size_t)t->n);
        /* the independent equations at the initial configuration */
        mbs_rtree_kinematics(t, w, q, NULL);
        mbs_rtree_circuit(t, w, d->t);
        mbs_rtree_independent_rows(t, w, dr.eq_on);
        if (ed ? mbs_ed_ws_make(&f, &rows, m, &dr) : mbs_mj_ws_make(&f, &rows, m, &dr)) {
            mbs_err_add(err, "", "%s in relative coordinates: out of memory", iname);
            rc = MBS_ENOMEM;
        }
    }
    /* the first sample: with the event-driven integrator's modes at t = 0
     * (impacts of contacts closing then, the accelerations of the modes) */
    if (!rc && ed) {
        rc = mbs_ed_start(m, &dr, err);
        if (!rc) {
            mbs_rtree_kinematics(t, w, dr.x, dr.v);
            mbs_rtree_accel_pass(t, w, dr.a);
            mbs_rel_to_natural(m, t, w, d->x, d->v, d->a);
            size_t nb = sizeof(double) * (size_t)m->nvar;
            memcpy(d->xp, d->x, nb);
            memcpy(d->vp, d->v, nb);
            memcpy(d->ap, d->a, nb);
        }
    }
    if (!rc) {
        /* the contact force outputs read the workspace of d (its points'
         * witness points are NCS coordinates: the natural ones) */
        void (*natforces)(const mbs_model *, mbs_data *, double, const double *, const double *, mbs_cforce_fn,
                          void *) = d->rigid_forces;
        s_edfr efr = {&dr, t, NULL, calloc((size_t)t->nq + 1, sizeof(double)),
                      calloc((size_t)t->n + 1, sizeof(double))};
        mbs_rtree_ws wsf;
        int wsrc = ed ? mbs_rtree_ws_new(t, &wsf) : 0;
        if (ed) {
            /* the event-driven integrator's point forces are solved at the
             * sampled state: mapped back to joint coordinates first */
            efr.w = &wsf;
            if (wsrc || !efr.q || !efr.u) rc = MBS_ENOMEM;
            s_ed_cur = &efr;
            d->rigid_forces = s_ed_forces;
        } else {
            d->mj = dr.mj;
        }
        s_mjrun r = {d, smp, t, w, ed};
        mbs_stepper run = {s_mj_done, &r, smp->interval};
        if (!rc) mbs_sample_now(smp);
        if (!rc) rc = ed ? mbs_ed_run(m, &dr, &run, err) : mbs_mj_run(m, &dr, &run, err);
        s_sync(d, &dr);
        d->mj = nat;
        d->ed = nated;
        d->rigid_forces = natforces;
        s_ed_cur = NULL;
        if (ed && !wsrc) mbs_rtree_ws_free(&wsf);
        free(efr.q);
        free(efr.u);
    }
    if (ed) mbs_ed_data_free(&dr);
    else mbs_mj_ws_free(&dr);
    s_shadow_free(&dr, &sh);
    return rc;
}

int mbs_rel_mj_run(const mbs_model *m, mbs_data *d, mbs_sampler *smp, const mbs_rtree *t, mbs_rtree_ws *w,
                   const double *q, const double *u, const double *udd, mbs_errlist *err)
{
    return s_rel_run(m, d, smp, t, w, q, u, udd, 0, err);
}

int mbs_rel_ed_run(const mbs_model *m, mbs_data *d, mbs_sampler *smp, const mbs_rtree *t, mbs_rtree_ws *w,
                   const double *q, const double *u, const double *udd, mbs_errlist *err)
{
    return s_rel_run(m, d, smp, t, w, q, u, udd, 1, err);
}
