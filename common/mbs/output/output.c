/*
 * output.c - output channels and their sampling.
 *
 * Samples are taken at multiples of the output interval, independently of
 * the integrator's steps: between two accepted states the motion is the
 * quintic Hermite polynomial matching positions, velocities and
 * accelerations at both ends (error O(h^6) in positions), so sampling never
 * forces a step onto the output grid.
 */
#include "mbs/output/output.h"
#include "mbs/analysis/analysis.h"
#include "mbs/analysis/system.h"
#include "mbs/linalg/vec.h"
#include "mbs/formulation/natural/natural.h"
#include "mbs/dynamics/force.h"
#include "mbs/dynamics/quantity.h"
#include "mbs/dynamics/controller.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- sampler set-up ------------------------------------------------------------------- */

/* Frames of the body poses (see mbs_result in mbs.h): the stride over the
 * samples that keeps within both bounds, the arrays, and each body's centre
 * of mass (and x axis in 2-D) as affine vectors. */
static int s_poses_init(mbs_sampler *s)
{
    const mbs_model *m = s->m;
    mbs_result *res = s->res;
    int nb = m->nbody, np = m->dim == 3 ? 7 : 3;
    if (nb <= 0) return 0;
    long per = 1 + (long)nb * np;
    long fmax = MBS_POSE_VALUES_MAX / per;
    if (fmax > MBS_POSE_FRAMES_MAX) fmax = MBS_POSE_FRAMES_MAX;
    if (fmax < 3) return 0; /* too many bodies: no poses */
    /* frames at 0, every, 2 every, ... (at most fmax - 1) and the last sample */
    int every = 1;
    if (s->nsample > fmax) every = (int)((s->nsample - 1 + fmax - 3) / (fmax - 2));
    res->nbody = nb;
    res->npose = np;
    res->frame_every = every;
    res->frame_cap = (s->nsample - 1) / every + 2;
    res->frames = malloc(sizeof(double) * (size_t)res->frame_cap * (size_t)per);
    s->body_com = calloc((size_t)nb, sizeof(mbs_avec));
    s->body_ex = calloc((size_t)nb, sizeof(mbs_avec));
    s->pose_prev = calloc((size_t)nb * (size_t)np, sizeof(double));
    if (!res->frames || !s->body_com || !s->body_ex || !s->pose_prev) return MBS_ENOMEM;
    for (int b = 0; b < nb; b++) {
        const double *R = m->body[b].R0;
        double ex[3] = {R[0], R[3], 0};
        s->body_com[b] = mbs_body_avec(m, b, m->spec->bodies[b].com, 1);
        s->body_ex[b] = mbs_body_avec(m, b, ex, 0);
    }
    return 0;
}

/* 1 when channel ch is an integral carried by the sampler. */
static int s_is_quad(const mbs_channel_spec *ch)
{
    return ch->quantity == MBS_Q_MOTOR && ch->component >= MBS_C_ENERGY_IN && ch->component <= MBS_C_ENERGY_OUT;
}

int mbs_sampler_init(mbs_sampler *s, const mbs_model *m, mbs_data *d, mbs_result *res)
{
    memset(s, 0, sizeof *s);
    s->m = m;
    s->d = d;
    s->res = res;
    const mbs_spec *sp = m->spec;
    double T = sp->solver.t_end;
    s->interval = sp->out_interval > 0 ? sp->out_interval : T / 100;
    /* the parser keeps t_end / interval within MBS_SAMPLES_MAX; a spec made
     * otherwise is refused here before the count overflows */
    if (!(T / s->interval <= MBS_SAMPLES_MAX)) return MBS_EINVAL;
    s->nsample = (int)floor(T / s->interval * (1 + 1e-12)) + 1;
    /* the last sample is t_end itself when the grid does not land on it */
    if ((s->nsample - 1) * s->interval < T * (1 - 1e-12)) s->nsample++;
    s->next = 0;
    int nc = sp->nchannel;
    s->prev = calloc((size_t)(nc > 0 ? nc : 1), sizeof(double));
    s->has_prev = calloc((size_t)(nc > 0 ? nc : 1), 1);
    s->pts = calloc((size_t)(nc > 0 ? nc : 1), sizeof(mbs_avec));
    s->xs = malloc(sizeof(double) * (size_t)(3 * (m->nvar > 0 ? m->nvar : 1)));
    s->cmask = calloc((size_t)(nc > 0 ? nc : 1), sizeof(signed char *));
    s->zi = calloc((size_t)(m->nz > 0 ? m->nz : 1), sizeof(double));
    s->z = d->z;
    s->qacc = calloc((size_t)(nc > 0 ? nc : 1), sizeof(double));
    s->qnow = calloc((size_t)(nc > 0 ? nc : 1), sizeof(double));
    if (!s->prev || !s->has_prev || !s->pts || !s->xs || !s->cmask || !s->zi || !s->qacc || !s->qnow)
        return MBS_ENOMEM;
    for (int c = 0; c < nc; c++) s->nquad += s_is_quad(&sp->channels[c]);
    for (int c = 0; c < nc; c++)
        if (sp->channels[c].quantity == MBS_Q_CONTACT_FORCE && !(s->cmask[c] = mbs_contact_channel_mask(m, &sp->channels[c])))
            return MBS_ENOMEM;
    /* precompute the affine vector of each point channel / body axis */
    for (int c = 0; c < nc; c++) s->pts[c] = mbs_quantity_avec(m, &sp->channels[c]);
    /* reaction channels and controllers measuring a reaction: workspace
     * once, so sampling never allocates */
    for (int c = 0; c < nc + sp->nctrl && !d->rx; c++) {
        mbs_quantity q = c < nc ? sp->channels[c].quantity : sp->controllers[c - nc].measure.quantity;
        if (q == MBS_Q_REACTION_FORCE || q == MBS_Q_REACTION_TORQUE) {
            d->rx = mbs_reaction_ws_new(m);
            if (!d->rx) return MBS_ENOMEM;
        }
    }
    d->reaction = mbs_reaction;
    if (res) {
        memset(res, 0, sizeof *res);
        res->nchannel = nc;
        res->cap = s->nsample;
        res->rows = malloc(sizeof(double) * (size_t)res->cap * (size_t)(1 + nc));
        if (!res->rows) return MBS_ENOMEM;
        return s_poses_init(s);
    }
    return 0;
}

void mbs_sampler_free(mbs_sampler *s)
{
    free(s->prev); free(s->has_prev); free(s->pts); free(s->xs); free(s->zi); free(s->qacc); free(s->qnow);
    for (int c = 0; s->cmask && c < s->m->spec->nchannel; c++) free(s->cmask[c]);
    free(s->cmask);
    free(s->body_com); free(s->body_ex); free(s->pose_prev);
    memset(s, 0, sizeof *s);
}

void mbs_quintic_hermite(double u, double H[6], double D[6], double S[6])
{
    double u2 = u * u, u3 = u2 * u, u4 = u3 * u, u5 = u4 * u;
    const double h[6] = {1 - 10 * u3 + 15 * u4 - 6 * u5, u - 6 * u3 + 8 * u4 - 3 * u5,
                         0.5 * u2 - 1.5 * u3 + 1.5 * u4 - 0.5 * u5, 0.5 * u3 - u4 + 0.5 * u5,
                         -4 * u3 + 7 * u4 - 3 * u5, 10 * u3 - 15 * u4 + 6 * u5};
    const double dd[6] = {-30 * u2 + 60 * u3 - 30 * u4, 1 - 18 * u2 + 32 * u3 - 15 * u4,
                          u - 4.5 * u2 + 6 * u3 - 2.5 * u4, 1.5 * u2 - 4 * u3 + 2.5 * u4,
                          -12 * u2 + 28 * u3 - 15 * u4, 30 * u2 - 60 * u3 + 30 * u4};
    for (int k = 0; k < 6; k++) { H[k] = h[k]; D[k] = dd[k]; }
    if (!S) return;
    const double s[6] = {-60 * u + 180 * u2 - 120 * u3, -36 * u + 96 * u2 - 60 * u3,
                         1 - 9 * u + 18 * u2 - 10 * u3, 3 * u - 12 * u2 + 10 * u3,
                         -24 * u + 84 * u2 - 60 * u3, 60 * u - 180 * u2 + 120 * u3};
    for (int k = 0; k < 6; k++) S[k] = s[k];
}

double mbs_sample_time(const mbs_sampler *s, int k)
{
    double t = k * s->interval, T = s->m->spec->solver.t_end;
    return (k == s->nsample - 1 || t > T) ? T : t;
}

/* ---- channel values ------------------------------------------------------------------- */

/* Continuous version of an angle next to the previous sample of the channel. */
static double s_unwrap(mbs_sampler *s, int c, double a)
{
    if (s->has_prev[c]) a = s->prev[c] + remainder(a - s->prev[c], 2 * M_PI);
    s->prev[c] = a;
    s->has_prev[c] = 1;
    return a;
}

static double s_comp(const double *v, int dim, mbs_component c)
{
    if (c == MBS_C_MAGNITUDE) return dim == 3 ? v3norm(v) : hypot(v[0], v[1]);
    if (c >= MBS_C_X && c <= MBS_C_Z) return v[c];
    return v[0];
}

/* One frame of body poses at state x into the result (see mbs.h): angles
 * unwrapped and quaternion signs kept next to the previous frame, so that
 * a viewer may interpolate between frames. */
static void s_store_pose(mbs_sampler *s, double t, const double *x)
{
    const mbs_model *m = s->m;
    mbs_result *res = s->res;
    int np = res->npose;
    double *row = res->frames + (size_t)res->nframe * (size_t)(1 + res->nbody * np);
    row[0] = t;
    for (int b = 0; b < res->nbody; b++) {
        double *p = row + 1 + b * np, *prev = s->pose_prev + b * np, r[3] = {0, 0, 0};
        mbs_avec_eval(m, &s->body_com[b], x, 0, r);
        if (np == 3) {
            double e[3] = {0, 0, 0};
            mbs_avec_eval(m, &s->body_ex[b], x, 0, e);
            double a = atan2(e[1], e[0]);
            if (res->nframe > 0) a = prev[2] + remainder(a - prev[2], 2 * M_PI);
            p[0] = r[0]; p[1] = r[1]; p[2] = a;
        } else {
            double q[4];
            mbs_body_quat(m, b, x, q);
            double dot = q[0] * prev[3] + q[1] * prev[4] + q[2] * prev[5] + q[3] * prev[6];
            double sg = res->nframe > 0 && dot < 0 ? -1 : 1;
            p[0] = r[0]; p[1] = r[1]; p[2] = r[2];
            for (int i = 0; i < 4; i++) p[3 + i] = sg * q[i];
        }
        memcpy(prev, p, sizeof(double) * (size_t)np);
    }
    res->nframe++;
}

/* The collector of one frame's contact points (mbs_contact_forces_each). */
typedef struct {
    const mbs_model *m;
    mbs_result *res;
    const double *x;
    int frame;
    int full;  /* a record did not fit */
} s_crec;

static void s_crec_add(void *ctx, const mbs_cforce *f)
{
    s_crec *c = ctx;
    mbs_result *res = c->res;
    /* a point of the active set that carries nothing is not drawn */
    if (c->full || (f->F[0] == 0 && f->F[1] == 0 && f->F[2] == 0)) return;
    if (res->ncontact_rec >= res->contact_cap) {
        int cap = res->contact_cap ? 2 * res->contact_cap : 64;
        if (cap > MBS_CONTACT_RECS_MAX) cap = MBS_CONTACT_RECS_MAX;
        double *p = cap > res->contact_cap ? realloc(res->contacts, sizeof(double) * MBS_CONTACT_REC * (size_t)cap) : NULL;
        if (!p) { c->full = 1; return; }
        res->contacts = p;
        res->contact_cap = cap;
    }
    /* the force on body B at its point, or -F on A when B is the ground */
    int side = f->body[1] >= 0 ? 1 : 0, b = f->body[side];
    if (b < 0) return;
    double sg = side ? 1.0 : -1.0, qb[MBS_NB_MAX], E[9];
    double *r = res->contacts + (size_t)res->ncontact_rec * MBS_CONTACT_REC;
    r[0] = c->frame; r[1] = f->pair; r[2] = b; r[3] = f->body[1 - side];
    /* the material point from its NCS coordinates: p = r0 + E c */
    mbs_gather(c->m, b, c->x, 0, qb);
    mbs_ncs_matrix(c->m, b, qb, E);
    for (int a = 0; a < 3; a++) {
        const double *cc = f->c[side];
        r[4 + a] = (a < c->m->dim ? qb[a] : 0) + E[3 * a] * cc[0] + E[3 * a + 1] * cc[1] + E[3 * a + 2] * cc[2];
        r[7 + a] = sg * f->F[a];
    }
    if (c->m->dim == 2) r[6] = r[9] = 0;
    res->ncontact_rec++;
}

/* The contact points of the frame about to be stored (see mbs.h): all of
 * them, or none and no more once they do not fit. */
static void s_store_contacts(mbs_sampler *s, double t, const double *x, const double *v)
{
    mbs_result *res = s->res;
    if (s->m->spec->ncontact == 0 || res->contact_frames < res->nframe) return;
    int n0 = res->ncontact_rec;
    s_crec c = {s->m, res, x, res->nframe, 0};
    mbs_contact_forces_each(s->m, s->d, t, x, v, 0, s_crec_add, &c);
    if (c.full) { res->ncontact_rec = n0; return; }
    res->contact_frames = res->nframe + 1;
}

double mbs_channel_value(mbs_sampler *s, int c, double t, const double *x, const double *v, const double *a)
{
    const mbs_model *m = s->m;
    mbs_data *d = s->d;
    const mbs_channel_spec *ch = &m->spec->channels[c];
    int dim = m->dim;
    double r[3] = {0, 0, 0};
    switch (ch->quantity) {
    case MBS_Q_ACCELERATION:
        mbs_avec_eval(m, &s->pts[c], a, 1, r);
        return s_comp(r, dim, ch->component);
    case MBS_Q_ANGLE:
        return s_unwrap(s, c, mbs_quantity_value(m, d, ch, &s->pts[c], t, x, v, s->z));
    case MBS_Q_JOINT_COORDINATE: {
        double val = mbs_quantity_value(m, d, ch, &s->pts[c], t, x, v, s->z);
        if (m->spec->joints[ch->joint].type == MBS_JOINT_REVOLUTE) val = s_unwrap(s, c, val);
        return val;
    }
    case MBS_Q_REACTION_FORCE:
    case MBS_Q_REACTION_TORQUE: {
        /* the body balances take the forces at the sample's element states
         * (a motor's current between two steps), which the forces read
         * from d->z */
        double *z_run = d->z, val;
        d->z = (double *)s->z;
        val = mbs_reaction(m, d, ch->joint, ch->quantity == MBS_Q_REACTION_TORQUE, ch->component, t, x, v, a);
        d->z = z_run;
        return val;
    }
    case MBS_Q_CONTROLLER:
        return mbs_ctrl_channel(m, d, ch->element, ch->component, t, x, v, s->z);
    case MBS_Q_MOTOR:
        if (s_is_quad(ch)) return s->qnow[c];
        return mbs_quantity_value(m, d, ch, &s->pts[c], t, x, v, s->z);
    case MBS_Q_NORMAL_FORCE:
    case MBS_Q_FRICTION_FORCE: {
        double N[2], FT;
        /* from the event-driven integrator, which hands them over */
        if (!d->clearance_forces || d->clearance_forces(m, d, ch->joint, t, x, v, N, &FT, NULL, NULL) != 0)
            return NAN;
        if (ch->quantity == MBS_Q_FRICTION_FORCE) return FT;
        return ch->component == MBS_C_X ? N[0] : ch->component == MBS_C_Y ? N[1] : fabs(N[0]) + fabs(N[1]);
    }
    case MBS_Q_CONTACT_FORCE:
        return mbs_contact_channel(m, d, s->cmask[c], ch->component, t, x, v);
    case MBS_Q_CONSTRAINT_VIOLATION: {
        mbs_cons_eval(m, x, t, d->r1, NULL);
        double mx = 0;
        for (int i = 0; i < m->neq; i++)
            if (d->eq_on[i] && fabs(d->r1[i]) > mx) mx = fabs(d->r1[i]);
        return mx;
    }
    default:
        /* the state quantities, as a controller measures them */
        if (mbs_quantity_is_state(ch->quantity)) return mbs_quantity_value(m, d, ch, &s->pts[c], t, x, v, s->z);
        return NAN;
    }
}

/* ---- sampling between two accepted states ---------------------------------------------- */

static void s_store(mbs_sampler *s, double t, const double *x, const double *v, const double *a)
{
    mbs_result *res = s->res;
    s->d->meas_a = a; /* a sampled controller's measured reaction, at this state */
    if (res && res->nsample < res->cap) {
        double *row = res->rows + (size_t)res->nsample * (size_t)(1 + res->nchannel);
        row[0] = t;
        for (int c = 0; c < res->nchannel; c++) row[1 + c] = mbs_channel_value(s, c, t, x, v, a);
        /* a frame at every frame_every-th sample and at the last one */
        int k = s->next;
        if (res->frames && res->nframe < res->frame_cap && (k % res->frame_every == 0 || k == s->nsample - 1)) {
            s_store_contacts(s, t, x, v);
            s_store_pose(s, t, x);
        }
        res->nsample++;
    } else if (!res) {
        for (int c = 0; c < s->m->spec->nchannel; c++) (void)mbs_channel_value(s, c, t, x, v, a);
    }
    s->d->meas_a = NULL;
    s->next++;
}

/* The state at u in [0, 1] of the last step (d->tp to d->t) into s->xs
 * (x, v, a: quintic Hermite) and s->zi (cubic Hermite on z, z'). */
static void s_interp(mbs_sampler *s, double u)
{
    const mbs_data *d = s->d;
    int n = s->m->nvar;
    double h = d->t - d->tp;
    double H[6], D[6], S[6];
    mbs_quintic_hermite(u, H, D, S);
    double *xs = s->xs, *vs = s->xs + n, *as = s->xs + 2 * n;
    for (int i = 0; i < n; i++) {
        double p0 = d->xp[i], p1 = d->x[i], m0 = h * d->vp[i], m1 = h * d->v[i];
        double c0 = h * h * d->ap[i], c1 = h * h * d->a[i];
        xs[i] = H[0] * p0 + H[1] * m0 + H[2] * c0 + H[3] * c1 + H[4] * m1 + H[5] * p1;
        vs[i] = (D[0] * p0 + D[1] * m0 + D[2] * c0 + D[3] * c1 + D[4] * m1 + D[5] * p1) / h;
        as[i] = (S[0] * p0 + S[1] * m0 + S[2] * c0 + S[3] * c1 + S[4] * m1 + S[5] * p1) / (h * h);
    }
    /* element states: cubic Hermite on their values and rates */
    double u2 = u * u, u3 = u2 * u;
    double g0 = 1 - 3 * u2 + 2 * u3, g1 = u - 2 * u2 + u3, g2 = 3 * u2 - 2 * u3, g3 = u3 - u2;
    for (int k = 0; k < s->m->nz; k++)
        s->zi[k] = g0 * d->zp[k] + g1 * h * d->zdp[k] + g2 * d->z[k] + g3 * h * d->zd[k];
}

/* The quadrature channels' integrals from d->tp to ta (<= d->t): qnow =
 * qacc + the integral; with accept, qacc as well.  3-point Gauss-Legendre
 * (exact for polynomials of degree 5) on the powers at the interpolated
 * states: its points are inside the step, so a sampled controller's jump
 * at d->tp (the step's held output applies from it on) is taken right. */
static void s_quad(mbs_sampler *s, double ta, int accept)
{
    if (s->nquad == 0) return;
    const mbs_model *m = s->m;
    mbs_data *d = s->d;
    double t0 = d->tp, h = d->t - t0, ha = ta - t0;
    static const double gx[3] = {0.1127016653792583115, 0.5, 0.8872983346207416885};
    static const double gw[3] = {5.0 / 18, 8.0 / 18, 5.0 / 18};
    int n = m->nvar, nc = m->spec->nchannel;
    for (int c = 0; c < nc; c++) s->qnow[c] = s->qacc[c];
    if (h > 0 && ha > 0)
        for (int g = 0; g < 3; g++) {
            double tg = t0 + gx[g] * ha;
            if (s->state_at) s->state_at(s->state_ctx, tg, s->xs, s->xs + n, s->zi);
            else s_interp(s, (tg - t0) / h);
            /* one evaluation per motor: channels of the same motor share it */
            mbs_dcmotor_state st;
            int last = -1;
            for (int c = 0; c < nc; c++) {
                const mbs_channel_spec *ch = &m->spec->channels[c];
                if (!s_is_quad(ch)) continue;
                if (ch->element != last) mbs_force_motor(m, d, ch->element, s->xs, s->xs + n, s->zi, tg, &st);
                last = ch->element;
                const double p[5] = {st.p_in, st.p_copper, st.p_friction, st.p_gear, st.p_out};
                s->qnow[c] += gw[g] * ha * p[ch->component - MBS_C_ENERGY_IN];
            }
        }
    if (accept)
        for (int c = 0; c < nc; c++) s->qacc[c] = s->qnow[c];
}

int mbs_sample_interval(mbs_sampler *s, mbs_errlist *err)
{
    mbs_data *d = s->d;
    const mbs_model *m = s->m;
    int n = m->nvar;
    double t0 = d->tp, t1 = d->t, h = t1 - t0;
    for (long taken = 1; s->next < s->nsample; taken++) {
        double ts = mbs_sample_time(s, s->next);
        if (ts > t1 * (1 + 1e-13) + 1e-300) break;
        if (taken % 65536 == 0) {
            int rc = mbs_data_poll(d, err);
            if (rc) return rc;
        }
        if (h <= 0 || ts >= t1) {
            s_quad(s, t1, 0);
            s->z = d->z;
            s_store(s, ts, d->x, d->v, d->a);
            continue;
        }
        double u = (ts - t0) / h;
        if (u < 0) u = 0;
        s_quad(s, ts, 0);
        s_interp(s, u);
        s->z = s->zi;
        s_store(s, ts, s->xs, s->xs + n, s->xs + 2 * n);
    }
    s->z = d->z;
    /* the quadratures to the accepted state */
    if (h > 0) s_quad(s, t1, 1);
    return 0;
}

void mbs_sample_now(mbs_sampler *s)
{
    s->z = s->d->z;
    if (s->next < s->nsample) s_store(s, s->d->t, s->d->x, s->d->v, s->d->a);
}
