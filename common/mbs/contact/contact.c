/*
 * contact.c - compliant contacts between body shapes (issue 3, first part):
 * Hertz, Hunt-Crossley and Lankarani-Nikravesh normal laws with regularised
 * Coulomb friction, evaluated as applied forces on the natural coordinates,
 * and contact deactivation.
 *
 * Shapes are fixed in their bodies: their points and directions are affine
 * maps of the body coordinates (like every body point in natural
 * coordinates), so the world geometry at any state is a few small products.
 * The pair geometry (gap, normal, witness points) comes from contact_geom.c.
 *
 * Deactivation (solver.contact_deactivation): after every accepted step a
 * sort-and-sweep broad phase over the shapes' bounding boxes, inflated by the
 * pair margin plus twice the distance the fastest point can travel in a step,
 * selects the pairs that can touch before the next check; only those are
 * evaluated by the force evaluations and enter the force Jacobian of the
 * implicit integrators.  Without deactivation every declared pair is
 * evaluated and differentiated at every evaluation: the baseline of seed 002.
 * Pairs that are far apart produce no force either way, so both settings give
 * the same motion; what changes is the cost.
 */
#include "mbs/contact/contact.h"
#include "mbs/model/accuracy.h"
#include "mbs/formulation/natural/natural.h"
#include "mbs/model/clock.h"
#include "mbs/linalg/vec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- model build ------------------------------------------------------------------ */

static mbs_shape_kind s_geom_kind(mbs_shape_spec_kind k)
{
    switch (k) {
    case MBS_SHAPE_SPEC_POINT: return MBS_SHAPE_POINT2;
    case MBS_SHAPE_SPEC_CIRCLE: return MBS_SHAPE_CIRCLE;
    case MBS_SHAPE_SPEC_SEGMENT: return MBS_SHAPE_SEGMENT2;
    case MBS_SHAPE_SPEC_LINE: return MBS_SHAPE_LINE2;
    case MBS_SHAPE_SPEC_SPHERE: return MBS_SHAPE_SPHERE;
    case MBS_SHAPE_SPEC_PLANE: return MBS_SHAPE_PLANE;
    case MBS_SHAPE_SPEC_BOX: return MBS_SHAPE_BOX;
    default: return MBS_SHAPE_CAPSULE;
    }
}

int mbs_contact_build(mbs_model *m, mbs_errlist *err)
{
    const mbs_spec *s = m->spec;
    if (s->nshape == 0) return 0;
    m->cshape = calloc((size_t)s->nshape, sizeof(mbs_cshape));
    m->cfel = calloc((size_t)(s->ncontact > 0 ? s->ncontact : 1), sizeof(mbs_fel));
    m->cpairs = calloc((size_t)(2 * s->ncontact + 1), sizeof(int));
    if (!m->cshape || !m->cfel || !m->cpairs) return MBS_ENOMEM;
    for (int i = 0; i < s->nshape; i++) {
        const mbs_shape_spec *S = &s->shapes[i];
        mbs_cshape *c = &m->cshape[i];
        c->body = S->body;
        c->kind = s_geom_kind(S->kind);
        c->radius = S->radius;
        v3copy(S->half, c->half);
        c->p = mbs_body_avec(m, S->body, S->p, 1);
        int q_is_point = S->kind == MBS_SHAPE_SPEC_SEGMENT || S->kind == MBS_SHAPE_SPEC_CAPSULE;
        c->q = mbs_body_avec(m, S->body, S->q, q_is_point);
        if (S->kind == MBS_SHAPE_SPEC_BOX) {
            double R[9];
            quat_to_mat(S->quat, R);
            for (int k = 0; k < 3; k++) {
                double axis[3] = {R[k], R[3 + k], R[6 + k]};
                c->ax[k] = mbs_body_avec(m, S->body, axis, 0);
            }
        }
    }
    for (int k = 0; k < s->ncontact; k++) {
        const mbs_contact_spec *C = &s->contacts[k];
        m->cpairs[2 * k] = C->shape[0];
        m->cpairs[2 * k + 1] = C->shape[1];
        m->cfel[k].force = -1;
        m->cfel[k].joint = -1;
        m->cfel[k].has_rate = 1;
        mbs_fel_add_body(m, &m->cfel[k], s->shapes[C->shape[0]].body);
        m->cfel[k].split = m->cfel[k].nvar; /* vars[0..split) belong to A */
        mbs_fel_add_body(m, &m->cfel[k], s->shapes[C->shape[1]].body);
        if (!mbs_contact_supported(m->cshape[C->shape[0]].kind, m->cshape[C->shape[1]].kind)) {
            mbs_err_add(err, "", "contact %d: unsupported shape pair", k);
            return MBS_EINVAL;
        }
    }
    /* rigid pairs add no force (their impulses come from the time stepper) */
    int ncompliant = 0;
    for (int k = 0; k < s->ncontact; k++) ncompliant += s->contacts[k].law != MBS_LAW_RIGID;
    m->conservative = m->conservative && s->ncontact == 0;
    m->has_stiffness = m->has_stiffness || ncompliant > 0;
    return 0;
}

/* ---- world geometry ----------------------------------------------------------------- */

void mbs_contact_world_shape(const mbs_model *m, int i, const double *x, mbs_shape *out)
{
    const mbs_cshape *c = &m->cshape[i];
    double p[3] = {0, 0, 0}, q[3] = {0, 0, 0};
    mbs_avec_eval(m, &c->p, x, 0, p);
    /* the second point or direction: only the shapes that have one (a
     * circle's was half of the chain drive's shape evaluations) */
    if (c->kind == MBS_SHAPE_SEGMENT2 || c->kind == MBS_SHAPE_LINE2 || c->kind == MBS_SHAPE_PLANE ||
        c->kind == MBS_SHAPE_CAPSULE)
        mbs_avec_eval(m, &c->q, x, 0, q);
    memset(out, 0, sizeof *out);
    out->kind = c->kind;
    switch (c->kind) {
    case MBS_SHAPE_POINT2: out->point2.p[0] = p[0]; out->point2.p[1] = p[1]; break;
    case MBS_SHAPE_CIRCLE: out->circle.c[0] = p[0]; out->circle.c[1] = p[1]; out->circle.r = c->radius; break;
    case MBS_SHAPE_SEGMENT2:
        for (int k = 0; k < 2; k++) { out->segment2.a[k] = p[k]; out->segment2.b[k] = q[k]; }
        break;
    case MBS_SHAPE_LINE2: {
        double nn = hypot(q[0], q[1]);
        for (int k = 0; k < 2; k++) { out->line2.p[k] = p[k]; out->line2.n[k] = nn > 0 ? q[k] / nn : 0; }
        break;
    }
    case MBS_SHAPE_SPHERE: v3copy(p, out->sphere.c); out->sphere.r = c->radius; break;
    case MBS_SHAPE_PLANE: v3copy(p, out->plane.p); v3unit(q, out->plane.n); break;
    case MBS_SHAPE_CAPSULE: v3copy(p, out->capsule.a); v3copy(q, out->capsule.b); out->capsule.r = c->radius; break;
    case MBS_SHAPE_BOX: {
        /* body-fixed axes, re-orthonormalised (Gram-Schmidt) against drift */
        double a[3][3];
        for (int k = 0; k < 3; k++) mbs_avec_eval(m, &c->ax[k], x, 0, a[k]);
        v3unit(a[0], a[0]);
        double d = v3dot(a[1], a[0]);
        for (int k = 0; k < 3; k++) a[1][k] -= d * a[0][k];
        v3unit(a[1], a[1]);
        v3cross(a[0], a[1], a[2]);
        v3copy(p, out->box.c);
        for (int r = 0; r < 3; r++)
            for (int k = 0; k < 3; k++) out->box.R[3 * r + k] = a[k][r];
        v3copy(c->half, out->box.h);
        break;
    }
    default:
        break;
    }
}

void mbs_contact_material_point(const mbs_model *m, int b, const double *x, const double *p, double *c)
{
    double qb[MBS_NB_MAX], E[9], Ei[9], d[3] = {0, 0, 0};
    mbs_gather(m, b, x, 0, qb);
    mbs_ncs_matrix(m, b, qb, E); /* in 2-D completed by the z axis */
    for (int a = 0; a < m->dim; a++) d[a] = p[a] - qb[a];
    if (m3inv(E, Ei) == 0) { c[0] = c[1] = c[2] = 0; return; }
    for (int i = 0; i < 3; i++) c[i] = Ei[3 * i] * d[0] + Ei[3 * i + 1] * d[1] + Ei[3 * i + 2] * d[2];
}

/* The world shapes of one evaluation at one state, each computed once: a
 * shape is in several pairs of a set (a chain's roller against the teeth
 * near it, a tooth against the rollers near it).  stamp[i] == tag: sh[i]
 * holds shape i at the state of the current evaluation. */
struct mbs_shape_cache {
    unsigned tag;
    unsigned *stamp; /* (nshape) */
    mbs_shape *sh;   /* (nshape) */
    /* the same for the bodies' frames (material points of touching points:
     * a sprocket is in every pair of its teeth): bstamp[b] == tag, bq[b]
     * its coordinates, bEi[b] the inverse of its NCS matrix, bsing[b] 1 when
     * that is singular */
    unsigned *bstamp;          /* (nbody) */
    double (*bq)[MBS_NB_MAX];  /* (nbody) */
    double (*bEi)[9];          /* (nbody) */
    char *bsing;               /* (nbody) */
    /* mbs_contact_missed's scratch: each body's displacement beyond its
     * travel, each shape's box growth */
    double *bex;               /* (nbody) */
    double *sgrow;             /* (nshape) */
};

/* A new evaluation (a new state) for the cache (NULL: none). */
static struct mbs_shape_cache *s_wc_begin(const mbs_model *m, struct mbs_shape_cache *wc)
{
    if (!wc) return NULL;
    if (++wc->tag == 0) {
        memset(wc->stamp, 0, sizeof(unsigned) * (size_t)m->spec->nshape);
        memset(wc->bstamp, 0, sizeof(unsigned) * (size_t)m->nbody);
        wc->tag = 1;
    }
    return wc;
}

/* NCS coordinates c of the material point of body b (>= 0) at world p at
 * state x, as mbs_contact_material_point, with the body's frame from the
 * cache of an evaluation at x (or computed, wc NULL). */
static void s_material_point(const mbs_model *m, struct mbs_shape_cache *wc, int b, const double *x,
                             const double *p, double *c)
{
    if (!wc) {
        mbs_contact_material_point(m, b, x, p, c);
        return;
    }
    if (wc->bstamp[b] != wc->tag) {
        double E[9];
        mbs_gather(m, b, x, 0, wc->bq[b]);
        mbs_ncs_matrix(m, b, wc->bq[b], E); /* in 2-D completed by the z axis */
        wc->bsing[b] = m3inv(E, wc->bEi[b]) == 0;
        wc->bstamp[b] = wc->tag;
    }
    const double *qb = wc->bq[b], *Ei = wc->bEi[b];
    double d[3] = {0, 0, 0};
    for (int a = 0; a < m->dim; a++) d[a] = p[a] - qb[a];
    if (wc->bsing[b]) { c[0] = c[1] = c[2] = 0; return; }
    for (int i = 0; i < 3; i++) c[i] = Ei[3 * i] * d[0] + Ei[3 * i + 1] * d[1] + Ei[3 * i + 2] * d[2];
}

/* Shape i at x: from the cache of the current evaluation (x must be its
 * state), or computed into tmp without a cache. */
static const mbs_shape *s_world(const mbs_model *m, struct mbs_shape_cache *wc, int i, const double *x,
                                mbs_shape *tmp)
{
    if (!wc) {
        mbs_contact_world_shape(m, i, x, tmp);
        return tmp;
    }
    if (wc->stamp[i] != wc->tag) {
        mbs_contact_world_shape(m, i, x, &wc->sh[i]);
        wc->stamp[i] = wc->tag;
    }
    return &wc->sh[i];
}

/* Velocity (out) of the material point at world p of body b; L receives its
 * point map (for the generalized force). Ground: zero.  wc: the cache of an
 * evaluation at x, or NULL. */
static void s_point_velocity(const mbs_model *m, struct mbs_shape_cache *wc, int b, const double *x,
                             const double *v, const double *p, double *out, double *L)
{
    out[0] = out[1] = out[2] = 0;
    if (b < 0) return;
    double c[3], qd[MBS_NB_MAX];
    s_material_point(m, wc, b, x, p, c);
    mbs_point_map(m, b, c, 1, L);
    mbs_gather(m, b, v, 1, qd);
    if (m->dim == 2 && m->nb == 4) {
        /* the plane written out: the same sums in the same order */
        for (int i = 0; i < 2; i++) {
            const double *Li = L + 4 * i;
            out[i] += Li[0] * qd[0]; out[i] += Li[1] * qd[1]; out[i] += Li[2] * qd[2]; out[i] += Li[3] * qd[3];
        }
        return;
    }
    for (int i = 0; i < m->dim; i++)
        for (int s = 0; s < m->nb; s++) out[i] += L[i * m->nb + s] * qd[s];
}

/* The contact set of pair k at configuration x (points within margin); wc
 * the cache of an evaluation at x, or NULL. */
static int s_pair_set(const mbs_model *m, int k, const double *x, double margin, struct mbs_shape_cache *wc,
                      mbs_contact_set *set)
{
    const mbs_contact_spec *C = &m->spec->contacts[k];
    mbs_shape A, B;
    const mbs_shape *a = s_world(m, wc, C->shape[0], x, &A), *b = s_world(m, wc, C->shape[1], x, &B);
    return mbs_contact_shapes(a, b, margin, set);
}

/* Velocity of contact point c's material point on B relative to A's (rel),
 * and the two point maps (L[0] on A, L[1] on B). */
static void s_rel_velocity(const mbs_model *m, int k, const double *x, const double *v, const mbs_contact *c,
                           struct mbs_shape_cache *wc, double L[2][3 * MBS_NB_MAX], double *rel)
{
    const mbs_contact_spec *C = &m->spec->contacts[k];
    double va[3], vb[3];
    s_point_velocity(m, wc, m->cshape[C->shape[0]].body, x, v, c->pa, va, L[0]);
    s_point_velocity(m, wc, m->cshape[C->shape[1]].body, x, v, c->pb, vb, L[1]);
    v3sub(vb, va, rel);
}

/* ---- forces -------------------------------------------------------------------------- */

/* The damping coefficient of the law: the normal force is k d^e (1 + c dd /
 * v0), v0 the impact speed (Hunt-Crossley, Lankarani-Nikravesh; 0: Hertz). */
static double s_damping_coef(const mbs_contact_spec *C)
{
    if (C->law == MBS_LAW_HUNT_CROSSLEY) return 1.5 * (1 - C->restitution);
    if (C->law == MBS_LAW_LANKARANI_NIKRAVESH) return 0.75 * (1 - C->restitution * C->restitution);
    return 0;
}

/* Normal force of the law at penetration d >= 0, rate dd (approach > 0). */
static double s_normal_force(const mbs_contact_spec *C, double d, double dd, double vimp)
{
    double f = C->stiffness * pow(d, C->exponent), c = s_damping_coef(C);
    double v0 = mbs_fmax(vimp, 1e-3); /* resting contacts: a floor on the impact speed */
    if (c != 0) f *= 1 + c * dd / v0;
    return f > 0 ? f : 0; /* no adhesion */
}

/* The same force and its derivatives by the penetration d and its rate dd
 * (0 where the force is 0: apart, or the damping term would pull). */
static double s_normal_force_d(const mbs_contact_spec *C, double d, double dd, double vimp, double *f_d, double *f_dd)
{
    double a = s_damping_coef(C) / mbs_fmax(vimp, 1e-3);
    double e = C->exponent, kd = C->stiffness * pow(d, e), f = kd * (1 + a * dd);
    if (!(f > 0)) { *f_d = *f_dd = 0; return 0; }
    *f_d = C->stiffness * e * pow(d, e - 1) * (1 + a * dd);
    *f_dd = kd * a;
    return f;
}

void mbs_contact_point_law(const mbs_contact_spec *C, double g, double vn, const double *vt, int ntan, double vimp,
                     double *f)
{
    for (int i = 0; i <= ntan; i++) f[i] = 0;
    if (!(g < 0)) return;
    double fn = s_normal_force(C, -g, -vn, vimp);
    f[0] = fn;
    if (!(C->friction > 0)) return;
    /* regularised Coulomb: -mu fn vt / sqrt(|vt|^2 + vs^2), any orthonormal
     * components of vt */
    double vt2 = 0;
    for (int i = 0; i < ntan; i++) vt2 += vt[i] * vt[i];
    double s = sqrt(vt2 + C->slip_velocity * C->slip_velocity);
    for (int i = 0; i < ntan; i++) f[1 + i] = -(C->friction * fn * vt[i] / s);
}

double mbs_contact_vimp(const mbs_data *d, int k, double dd)
{
    return d && d->c_vimp && d->c_on[k] ? d->c_vimp[k] : dd;
}

/* Add the generalized forces of pair k at (x, v) into Q (variables; or per
 * body in body coordinates, nbody x nb, with body_space) and report its
 * largest approach speed of penetrating points (*approach). */
static void s_pair_q(const mbs_model *m, const mbs_data *d, int k, const double *x, const double *v, double *Q,
                     int body_space, double *approach, int *touching, mbs_cforce_fn each, void *ctx,
                     struct mbs_shape_cache *wc)
{
    const mbs_contact_spec *C = &m->spec->contacts[k];
    if ((Q || each) && C->law == MBS_LAW_RIGID) return; /* impulses: integrator_mj.c */
    int ba = m->cshape[C->shape[0]].body, bb = m->cshape[C->shape[1]].body;
    mbs_contact_set set;
    if (s_pair_set(m, k, x, 0.0, wc, &set) <= 0) return;
    for (int i = 0; i < set.n; i++) {
        const mbs_contact *c = &set.c[i];
        if (!(c->g < 0)) continue;
        if (touching) *touching = 1;
        double L[2][3 * MBS_NB_MAX], rel[3];
        s_rel_velocity(m, k, x, v, c, wc, L, rel);
        double vn = v3dot(rel, c->n), dd = -vn; /* approach speed */
        if (approach && dd > *approach) *approach = dd;
        if (!Q && !each) continue;
        /* the law, with the tangential velocity in world components */
        double vt[3], fl[4], F[3];
        for (int a = 0; a < 3; a++) vt[a] = rel[a] - vn * c->n[a];
        mbs_contact_point_law(C, c->g, vn, vt, 3, mbs_contact_vimp(d, k, dd), fl);
        for (int a = 0; a < 3; a++) F[a] = fl[0] * c->n[a] + fl[1 + a];
        if (each) {
            mbs_cforce f = {k, {ba, bb}, {{0, 0, 0}, {0, 0, 0}}, {c->n[0], c->n[1], c->n[2]}, {F[0], F[1], F[2]}};
            if (ba >= 0) mbs_contact_material_point(m, ba, x, c->pa, f.c[0]);
            if (bb >= 0) mbs_contact_material_point(m, bb, x, c->pb, f.c[1]);
            each(ctx, &f);
        }
        if (!Q) continue;
        /* +F on B at pb, -F on A at pa */
        for (int side = 0; side < 2; side++) {
            int b = side ? bb : ba;
            if (b < 0) continue;
            const double *Ls = L[side];
            double sg = side ? 1.0 : -1.0;
            const mbs_body *bd = &m->body[b];
            for (int s = 0; s < m->nb; s++) {
                if (!body_space && bd->var[s] < 0) continue;
                double acc = 0;
                if (m->dim == 2) {
                    /* the plane: the loop below written out */
                    acc += Ls[s] * F[0];
                    acc += Ls[m->nb + s] * F[1];
                } else {
                    for (int a = 0; a < m->dim; a++) acc += Ls[a * m->nb + s] * F[a];
                }
                Q[body_space ? b * m->nb + s : bd->var[s]] += sg * acc;
            }
        }
    }
}

static void s_pair(const mbs_model *m, const mbs_data *d, int k, const double *x, const double *v, double *Q,
                   double *approach, int *touching, struct mbs_shape_cache *wc)
{
    s_pair_q(m, d, k, x, v, Q, 0, approach, touching, NULL, NULL, wc);
}

void mbs_contact_forces_body(const mbs_model *m, const mbs_data *d, const double *x, const double *v,
                             double *Qbody)
{
    for (int k = 0; k < m->spec->ncontact; k++) {
        if (d && m->spec->solver.contact_deactivation && d->c_ready && !d->c_inset[k]) continue;
        s_pair_q(m, d, k, x, v, Qbody, 1, NULL, NULL, NULL, NULL, NULL);
    }
}

void mbs_contact_compliant_each(const mbs_model *m, const mbs_data *d, const double *x, const double *v,
                                mbs_cforce_fn fn, void *ctx)
{
    int nc = m->spec->ncontact;
    if (d && m->spec->solver.contact_deactivation && d->c_ready) {
        /* (a rigid pair has no point force here: told by the compact flags,
         * not the declared pair's spec, a cache miss among 81800) */
        for (int i = 0; i < d->c_nactive; i++)
            if (!d->c_rigid[d->c_active[i]]) s_pair_q(m, d, d->c_active[i], x, v, NULL, 0, NULL, NULL, fn, ctx, NULL);
        return;
    }
    for (int k = 0; k < nc; k++) s_pair_q(m, d, k, x, v, NULL, 0, NULL, NULL, fn, ctx, NULL);
}

void mbs_contact_forces(const mbs_model *m, const mbs_data *d, const double *x, const double *v, double *Q)
{
    int nc = m->spec->ncontact;
    if (nc == 0) return;
    struct mbs_shape_cache *wc = d ? s_wc_begin(m, d->c_wc) : NULL;
    if (d && m->spec->solver.contact_deactivation && d->c_ready) {
        /* (a rigid pair adds no force: s_pair returns at once; told here by
         * the compact flags without reading the declared pair's spec) */
        for (int i = 0; i < d->c_nactive; i++)
            if (!d->c_rigid[d->c_active[i]]) s_pair(m, d, d->c_active[i], x, v, Q, NULL, NULL, wc);
        return;
    }
    for (int k = 0; k < nc; k++) s_pair(m, d, k, x, v, Q, NULL, NULL, wc);
}

/* Finite-difference Jacobian of the pairs in the system (see force.c). */
void mbs_contact_jac_fd(const mbs_model *m, mbs_data *d, const double *x, const double *v, double t, double cK,
                     double cC, void (*add)(void *ctx, int i, int j, double val), void *ctx)
{
    int nc = m->spec->ncontact, n = m->nvar;
    if (nc == 0) return;
    int use_active = m->spec->solver.contact_deactivation && d->c_ready;
    int cnt = use_active ? d->c_nactive : nc;
    double *xp = d->fd_x, *vp = d->fd_v, *Q0 = d->fd_q0, *Q1 = d->fd_q1;
    memcpy(xp, x, sizeof(double) * (size_t)n);
    memcpy(vp, v, sizeof(double) * (size_t)n);
    (void)t;
    for (int i = 0; i < cnt; i++) {
        int k = use_active ? d->c_active[i] : i;
        if (m->spec->contacts[k].law == MBS_LAW_RIGID) continue;
        const mbs_fel *el = &m->cfel[k];
        for (int r = 0; r < el->nvar; r++) Q0[el->vars[r]] = 0;
        s_pair(m, d, k, x, v, Q0, NULL, NULL, NULL);
        for (int pass = 0; pass < 2; pass++) {
            double c = pass == 0 ? cK : cC;
            if (c == 0) continue;
            double *z = pass == 0 ? xp : vp;
            for (int a = 0; a < el->nvar; a++) {
                int var = el->vars[a];
                double z0 = z[var], h = 1e-7 * (1 + fabs(z0));
                for (int r = 0; r < el->nvar; r++) Q1[el->vars[r]] = 0;
                z[var] = z0 + h;
                s_pair(m, d, k, xp, vp, Q1, NULL, NULL, NULL);
                /* restore exactly ((z + h) - h can differ from z in the last
                 * bit): otherwise every pair differentiated before shifts the
                 * state the next pairs see, and the Jacobian would depend on
                 * how many pairs are in the system (deactivation on/off) */
                z[var] = z0;
                /* body-diagonal blocks only: two bodies in contact are any two
                 * bodies, and their coupling would break the band of the
                 * ordered matrices; Newton stays convergent (modified) */
                for (int r = 0; r < el->nvar; r++) {
                    if ((r < el->split) != (a < el->split)) continue;
                    int row = el->vars[r];
                    double dq = (Q1[row] - Q0[row]) / h;
                    if (dq != 0) add(ctx, row, var, -c * dq);
                }
            }
        }
    }
}

/* Stiffness and damping of pair k at (x, v), analytic: each touching point's
 * force F (normal law and regularised Coulomb friction) as a function of the
 * relative displacement and velocity of the two material points, dF = D_x
 * (dp_b - dp_a) + D_v (dv_b - dv_a), with dg = n . (dp_b - dp_a) and the
 * friction's velocity dependence across the tangent plane; on each body's
 * block K = L^T D_x L, C = L^T D_v L (L its point map).  Left out: the
 * turning of the normal and the tangent plane, the contact point sliding
 * over the shapes, and the point maps' own dependence on the coordinates
 * (terms of the size of F, and of the damping times the body's spin,
 * against the stiffness's k d^(e-1)); body-diagonal blocks only, as the
 * finite differences were.  On a body's rigid motions it is the finite
 * differences' matrix (mbs_contact_jac_fd) up to those terms (contact_test:
 * 1.3e-2 of the largest entry for a ball spinning at 3 rad/s); the
 * matrices only steer the modified Newton iteration. */
/* A receiver of Jacobian entries: add(ctx, i, j, -(cK K_ij + cC C_ij)). */
typedef struct {
    double cK, cC;
    void (*add)(void *ctx, int i, int j, double val);
    void *ctx;
} s_jac_sink;

static void s_pair_jac(const mbs_model *m, const mbs_data *d, int k, const double *x, const double *v,
                       const s_jac_sink *sink, int nsink, struct mbs_shape_cache *wc)
{
    const mbs_contact_spec *C = &m->spec->contacts[k];
    int dim = m->dim, nb = m->nb;
    int bs[2] = {m->cshape[C->shape[0]].body, m->cshape[C->shape[1]].body};
    mbs_contact_set set;
    if (s_pair_set(m, k, x, 0.0, wc, &set) <= 0) return;
    for (int i = 0; i < set.n; i++) {
        const mbs_contact *c = &set.c[i];
        if (!(c->g < 0)) continue;
        double L[2][3 * MBS_NB_MAX], rel[3];
        s_rel_velocity(m, k, x, v, c, wc, L, rel);
        double vn = v3dot(rel, c->n), f_d, f_dd;
        double fn = s_normal_force_d(C, -c->g, -vn, mbs_contact_vimp(d, k, -vn), &f_d, &f_dd);
        if (!(fn > 0)) continue;
        /* u = n + friction direction per unit normal force: dF = u dfn + fn d(friction dir) */
        double vt[3], u[3], Dx[3][3], Dv[3][3], sl = 0, mu = C->friction > 0 ? C->friction : 0;
        for (int a = 0; a < 3; a++) vt[a] = rel[a] - vn * c->n[a];
        if (mu > 0) sl = sqrt(v3dot(vt, vt) + C->slip_velocity * C->slip_velocity);
        for (int a = 0; a < 3; a++) u[a] = c->n[a] - (mu > 0 ? mu * vt[a] / sl : 0);
        /* the dim x dim block that L^T D L below reads (the plane: 4 of
         * the 9 entries; each computed as before, over all 3 q) */
        for (int a = 0; a < dim; a++)
            for (int b = 0; b < dim; b++) {
                /* dfn/dg = -f_d, dfn/dvn = -f_dd */
                Dx[a][b] = -f_d * u[a] * c->n[b];
                Dv[a][b] = -f_dd * u[a] * c->n[b];
                if (mu > 0) {
                    /* -mu fn d(vt / sl)/d rel = -mu fn (I / sl - vt vt^T / sl^3) (I - n n^T) */
                    double acc = 0;
                    for (int q = 0; q < 3; q++) {
                        double pqb = (q == b) - c->n[q] * c->n[b];
                        acc += ((a == q) / sl - vt[a] * vt[q] / (sl * sl * sl)) * pqb;
                    }
                    Dv[a][b] -= mu * fn * acc;
                }
            }
        /* body blocks L^T D L */
        for (int side = 0; side < 2; side++) {
            int b = bs[side];
            if (b < 0) continue;
            const mbs_body *bd = &m->body[b];
            const double *Ls = L[side];
            for (int r = 0; r < nb; r++) {
                if (bd->var[r] < 0) continue;
                double tx[3] = {0, 0, 0}, tv[3] = {0, 0, 0}; /* row r of L^T D */
                for (int a = 0; a < dim; a++)
                    for (int q = 0; q < dim; q++) {
                        tx[q] += Ls[a * nb + r] * Dx[a][q];
                        tv[q] += Ls[a * nb + r] * Dv[a][q];
                    }
                for (int col = 0; col < nb; col++) {
                    if (bd->var[col] < 0) continue;
                    double kx = 0, kv = 0;
                    for (int q = 0; q < dim; q++) { kx += tx[q] * Ls[q * nb + col]; kv += tv[q] * Ls[q * nb + col]; }
                    /* K = -dQ/dx, C = -dQ/dv; each sink its own weights
                     * (a K-only sink's cC is 0: the same -(cK kx + 0 kv)
                     * as a pass of its own computed) */
                    for (int s = 0; s < nsink; s++) {
                        double val = -(sink[s].cK * kx + sink[s].cC * kv);
                        if (val != 0) sink[s].add(sink[s].ctx, bd->var[r], bd->var[col], val);
                    }
                }
            }
        }
    }
}

/* The pairs in the system (every declared pair without deactivation), each
 * pair's entries to the nsink sinks. */
static void s_contact_jac(const mbs_model *m, mbs_data *d, const double *x, const double *v, const s_jac_sink *sink,
                          int nsink)
{
    int nc = m->spec->ncontact;
    if (nc == 0) return;
    int use_active = m->spec->solver.contact_deactivation && d->c_ready;
    int cnt = use_active ? d->c_nactive : nc;
    struct mbs_shape_cache *wc = s_wc_begin(m, d->c_wc);
    for (int i = 0; i < cnt; i++) {
        int k = use_active ? d->c_active[i] : i;
        if (m->spec->contacts[k].law != MBS_LAW_RIGID) s_pair_jac(m, d, k, x, v, sink, nsink, wc);
    }
}

void mbs_contact_jac(const mbs_model *m, mbs_data *d, const double *x, const double *v, double t, double cK,
                     double cC, void (*add)(void *ctx, int i, int j, double val), void *ctx)
{
    (void)t;
    s_jac_sink sink = {cK, cC, add, ctx};
    s_contact_jac(m, d, x, v, &sink, 1);
}

void mbs_contact_jac_split(const mbs_model *m, mbs_data *d, const double *x, const double *v, double t, double cK,
                           void (*addK)(void *ctx, int i, int j, double val), void *ctxK, double cC,
                           void (*addC)(void *ctx, int i, int j, double val), void *ctxC)
{
    (void)t;
    s_jac_sink sink[2] = {{cK, 0.0, addK, ctxK}, {0.0, cC, addC, ctxC}};
    s_contact_jac(m, d, x, v, sink, 2);
}

/* ---- per-step bookkeeping: impact speeds, active set, metrics ------------------------------- */

/* The deepest point of pair k at (x, v) among those within `margin`: its
 * signed gap *g and gap rate *gd (relative normal velocity, < 0 when
 * approaching).  0 when no point is that close. */
static int s_pair_gap(const mbs_model *m, int k, const double *x, const double *v, double margin, double *g,
                      double *gd)
{
    mbs_contact_set set;
    if (s_pair_set(m, k, x, margin, NULL, &set) <= 0) return 0;
    int best = 0;
    for (int i = 1; i < set.n; i++)
        if (set.c[i].g < set.c[best].g) best = i;
    const mbs_contact *c = &set.c[best];
    double L[2][3 * MBS_NB_MAX], rel[3];
    s_rel_velocity(m, k, x, v, c, NULL, L, rel);
    *g = c->g;
    *gd = v3dot(rel, c->n);
    return isfinite(*g) && isfinite(*gd);
}

/* The approach speed of pair k at the instant it started touching within
 * the step just accepted (length h, from d->xp, d->vp to d->x, d->v), or
 * `fallback` (the approach speed at the step's end) when the start of the
 * step does not show the pair apart and approaching.  The gap over the
 * step is the cubic Hermite interpolant of its values and rates at both
 * ends; its root is the onset.  The speed at the step's end would depend
 * on where the step happened to end (the ball has decelerated since the
 * onset): the impact speed in the damping law, hence the restitution,
 * would change with the step size to first order, and no tolerance could
 * make two integrators agree after a few bounces (2e-5 m apart at tol
 * 1e-13 on bouncing_ball). */
/* The root s in (0, 1) of the cubic Hermite interpolant of a gap over a
 * step of length h, from (g0 > 0, rate gd0) to (g1 < 0, rate gd1), by
 * bisection; *rate the gap rate there. */
static double s_hermite_root(double g0, double gd0, double g1, double gd1, double h, double *rate)
{
    double lo = 0, hi = 1, s = 0.5;
    for (int it = 0; it < 60; it++) {
        s = 0.5 * (lo + hi);
        double s2 = s * s, s3 = s2 * s;
        double gs = (2 * s3 - 3 * s2 + 1) * g0 + (s3 - 2 * s2 + s) * h * gd0 + (-2 * s3 + 3 * s2) * g1 +
                    (s3 - s2) * h * gd1;
        if (gs > 0) lo = s; else hi = s;
    }
    double s2 = s * s;
    *rate = ((6 * s2 - 6 * s) * g0 + (-6 * s2 + 6 * s) * g1) / h + (3 * s2 - 4 * s + 1) * gd0 + (3 * s2 - 2 * s) * gd1;
    return s;
}

/* The margin within which a pair apart at (x0, v0) may touch by the end of
 * a step of length h (velocities vmax at most). */
static double s_step_reach(const mbs_model *m, double vmax, double h)
{
    return 4 * vmax * h * (1 + m->length_scale) + 1e-12;
}

/* The largest velocity component at either end of the step just accepted
 * (d->vp, d->v): the bound of s_step_reach. */
static double s_step_vmax(const mbs_model *m, const mbs_data *d)
{
    double vmax = 0;
    for (int i = 0; i < m->nvar; i++) vmax = fmax(vmax, fmax(fabs(d->v[i]), fabs(d->vp[i])));
    return vmax;
}

/* *vmax: s_step_vmax of the step, computed by the first onset of the step
 * that needs it (NAN before): once per step, not once per pair that starts
 * touching (a pile has O(N) onsets per step, each O(N) to bound) */
static double s_onset_speed(const mbs_model *m, const mbs_data *d, int k, double h, double fallback, double *vmax_step)
{
    if (!(h > 0) || !d->xp || !d->vp) return fallback;
    if (isnan(*vmax_step)) *vmax_step = s_step_vmax(m, d);
    double vmax = *vmax_step;
    double g0, gd0, g1, gd1, rate;
    if (!s_pair_gap(m, k, d->xp, d->vp, s_step_reach(m, vmax, h), &g0, &gd0) || !(g0 > 0)) return fallback;
    if (!s_pair_gap(m, k, d->x, d->v, 0.0, &g1, &gd1) || !(g1 < 0)) return fallback;
    s_hermite_root(g0, gd0, g1, gd1, h, &rate);
    double speed = -rate;
    return isfinite(speed) && speed > 0 ? speed : fallback;
}

double mbs_contact_switch(const mbs_model *m, const mbs_data *d, const double *x0, const double *v0, const double *x1,
                          const double *v1, double h)
{
    int nc = m->spec->ncontact;
    if (nc == 0 || !d->c_ready || !(h > 0)) return 1.0;
    int use_active = m->spec->solver.contact_deactivation;
    int cnt = use_active ? d->c_nactive : nc;
    double vmax = 0, first = 1.0;
    for (int i = 0; i < m->nvar; i++) vmax = fmax(vmax, fmax(fabs(v0[i]), fabs(v1[i])));
    double reach = s_step_reach(m, vmax, h);
    for (int a = 0; a < cnt; a++) {
        int k = use_active ? d->c_active[a] : a;
        if (m->spec->contacts[k].law == MBS_LAW_RIGID) continue;
        double g0, gd0, g1, gd1, rate;
        /* the side of the pair at the step's end decides which switch to
         * look for: apart -> touching (onset) or touching -> apart */
        int on = d->c_on[k];
        if (!s_pair_gap(m, k, x1, v1, on ? reach : 0.0, &g1, &gd1)) continue;
        if (on ? !(g1 > 0) : !(g1 < 0)) continue;
        if (!s_pair_gap(m, k, x0, v0, on ? 0.0 : reach, &g0, &gd0)) continue;
        if (on ? !(g0 < 0) : !(g0 > 0)) continue;
        double s = on ? s_hermite_root(-g0, -gd0, -g1, -gd1, h, &rate) : s_hermite_root(g0, gd0, g1, gd1, h, &rate);
        first = fmin(first, s);
    }
    return first;
}

int mbs_contact_data_init(const mbs_model *m, mbs_data *d)
{
    int nc = m->spec->ncontact, ns = m->spec->nshape;
    if (nc == 0) return 0;
    d->c_vimp = calloc((size_t)nc, sizeof(double));
    d->c_on = calloc((size_t)nc, 1);
    d->c_inset = calloc((size_t)nc, 1);
    d->c_active = calloc((size_t)nc, sizeof(int));
    d->c_prev = calloc((size_t)nc, sizeof(int));
    d->c_onlist = calloc((size_t)nc, sizeof(int));
    d->c_rigid = malloc((size_t)nc);
    d->c_travel = calloc((size_t)(m->nbody > 0 ? m->nbody : 1), sizeof(double));
    d->c_wc = calloc(1, sizeof *d->c_wc);
    if (d->c_wc) {
        size_t nbd = (size_t)(m->nbody > 0 ? m->nbody : 1);
        d->c_wc->stamp = calloc((size_t)ns, sizeof(unsigned));
        d->c_wc->sh = calloc((size_t)ns, sizeof(mbs_shape));
        d->c_wc->bstamp = calloc(nbd, sizeof(unsigned));
        d->c_wc->bq = calloc(nbd, sizeof *d->c_wc->bq);
        d->c_wc->bEi = calloc(nbd, sizeof *d->c_wc->bEi);
        d->c_wc->bsing = calloc(nbd, 1);
        d->c_wc->bex = calloc(nbd, sizeof(double));
        d->c_wc->sgrow = calloc((size_t)ns, sizeof(double));
    }
    d->c_aabb = calloc((size_t)ns, sizeof(mbs_aabb));
    d->c_bp = calloc(1, sizeof(mbs_broadphase));
    if (!d->c_vimp || !d->c_on || !d->c_inset || !d->c_active || !d->c_prev || !d->c_onlist || !d->c_rigid ||
        !d->c_travel ||
        !d->c_wc || !d->c_wc->stamp || !d->c_wc->sh || !d->c_wc->bstamp || !d->c_wc->bq || !d->c_wc->bEi ||
        !d->c_wc->bsing || !d->c_wc->bex || !d->c_wc->sgrow || !d->c_aabb || !d->c_bp)
        return MBS_ENOMEM;
    d->c_margin = 0;
    for (int k = 0; k < nc; k++) {
        d->c_margin = fmax(d->c_margin, m->spec->contacts[k].margin);
        d->c_rigid[k] = m->spec->contacts[k].law == MBS_LAW_RIGID;
    }
    if (mbs_bp_init(d->c_bp, m->dim, ns, nc, m->cpairs) != 0) return MBS_ENOMEM;
    return 0;
}

void mbs_contact_data_free(mbs_data *d)
{
    free(d->c_vimp); free(d->c_on); free(d->c_inset); free(d->c_active); free(d->c_aabb);
    free(d->c_prev); free(d->c_onlist); free(d->c_rigid); free(d->c_travel);
    if (d->c_wc) {
        free(d->c_wc->stamp); free(d->c_wc->sh);
        free(d->c_wc->bstamp); free(d->c_wc->bq); free(d->c_wc->bEi); free(d->c_wc->bsing);
        free(d->c_wc->bex); free(d->c_wc->sgrow);
    }
    free(d->c_wc);
    if (d->c_bp) mbs_bp_free(d->c_bp);
    free(d->c_bp);
}

void mbs_contact_step(const mbs_model *m, mbs_data *d, double h)
{
    mbs_contact_step_ahead(m, d, h, h);
}

void mbs_contact_step_ahead(const mbs_model *m, mbs_data *d, double h, double h_ahead)
{
    int nc = m->spec->ncontact, ns = m->spec->nshape;
    if (nc == 0) return;
    double t0 = mbs_now();
    /* impact speeds: recorded when a pair starts touching, kept while it
     * touches.  With deactivation only the pairs in the active set and those
     * touching at the last step can touch (a touching pair's boxes overlap):
     * the set's list, then the touching pairs outside it; every declared
     * pair is visited only without deactivation (O(active) per step, not
     * O(declared): the chain drive's 8000 declared pairs cost it 10 % of
     * its run) */
    int deact = m->spec->solver.contact_deactivation;
    int nvisit = deact ? d->c_nactive + d->c_non : nc, non = 0;
    struct mbs_shape_cache *wc = s_wc_begin(m, d->c_wc);
    double vmax_step = NAN;
    /* Moreau-Jean: a rigid pair has no force law, whether it touches and
     * its onset speed are read by nothing (the step finds its points; the
     * switch search and the onset speed serve the compliant laws), so its
     * touching test (a narrow phase per pair of the set) is left out */
    int skip_rigid = m->spec->solver.integrator == MBS_INT_MOREAU_JEAN;
    for (int i = 0; i < nvisit; i++) {
        int k = !deact ? i : i < d->c_nactive ? d->c_active[i] : d->c_onlist[i - d->c_nactive];
        if (deact && i >= d->c_nactive && d->c_inset[k]) continue; /* visited in the set */
        if (skip_rigid && d->c_rigid[k]) continue;
        double approach = 0;
        int touching = 0;
        s_pair(m, d, k, d->x, d->v, NULL, &approach, &touching, wc);
        if (touching && !d->c_on[k]) d->c_vimp[k] = s_onset_speed(m, d, k, h, approach, &vmax_step);
        d->c_on[k] = (char)touching;
        if (touching) d->c_onlist[non++] = k;
    }
    d->c_non = non;
    /* the active set for the next step; the BDF with contact force
     * unknowns also computes it without deactivation (then it only decides
     * when the Newton matrix is refreshed, system_contacts.c) */
    if (deact || (m->spec->solver.contact_force_unknowns && m->spec->solver.integrator == MBS_INT_BDF)) {
        double margin = d->c_margin;
        /* a body point moves at most ~ |v|_inf h + |a|_inf h^2 / 2 times the
         * coordinate map's size (the NCS vectors are O(1)) over a step h,
         * with |v|_inf, |a|_inf over that body's coordinates: each shape's
         * box grows by its own body's travel (a pile at rest beside one
         * falling ball keeps its boxes tight; with the fastest body's travel
         * for every box the 100-ball box had 613 pairs in its systems,
         * with each body's own, 432);
         * the next step may be longer than the last by the integrator's
         * growth bound (mbs_step_growth_max: with twice the last, DOPRI5,
         * which grows by up to 5, grew its step past a ball's onset of
         * contact: the ball fell 9e-6 m into the floor with no force, and
         * the bounce depended on where the steps fell; a fixed step does
         * not grow, and 5 steps ahead put 3100 pairs instead of 1000 into
         * the 100-ball box's Moreau-Jean systems); the acceleration term
         * matters for a body at rest or at the apex of a small bounce */
        double hn = mbs_step_growth_max(&m->spec->solver) * fmax(h_ahead, 1e-6);
        /* each body's travel once (a body carries many shapes: the
         * sprockets 80 each); NaN marks a body not yet done this step */
        double *travel = d->c_travel;
        for (int b = 0; b < m->nbody; b++) travel[b] = NAN;
        for (int i = 0; i < ns; i++) {
            mbs_shape tmp;
            const mbs_shape *S = s_world(m, wc, i, d->x, &tmp);
            int b = m->cshape[i].body;
            double tr = 0;
            if (b >= 0 && b < m->nbody && !isnan(travel[b])) {
                tr = travel[b];
            } else {
                double vmax = 0, amax = 0;
                for (int sl = 0; b >= 0 && b < m->nbody && sl < m->nb; sl++) {
                    int v = m->body[b].var[sl];
                    if (v < 0 || v >= m->nvar) continue;
                    /* (comparisons, not fmax: a library call) */
                    double av = fabs(d->v[v]), aa = fabs(d->a[v]);
                    if (av > vmax) vmax = av;
                    if (aa > amax) amax = aa;
                }
                tr = (vmax * hn + amax * hn * hn) * (1 + m->length_scale);
                if (b >= 0 && b < m->nbody) travel[b] = tr;
            }
            mbs_shape_aabb(S, tr, &d->c_aabb[i]);
        }
        /* the set before the sweep (c_inset[k] == 1 exactly for its pairs) */
        int nprev = d->c_nset;
        memcpy(d->c_prev, d->c_active, sizeof(int) * (size_t)nprev);
        int nnew = mbs_bp_sweep(d->c_bp, d->c_aabb, margin, d->c_active);
        if (nnew < 0) nnew = 0;
        /* switches: pairs entering / leaving the system (c_on marks are not
         * touched: a pair leaves only when its boxes are apart, hence after
         * it stopped touching, with zero force) */
        for (int i = 0; i < nnew; i++) {
            int k = d->c_active[i];
            if (d->c_inset[k] == 0 && deact) d->met.contact_activations++;
            d->c_inset[k] = 2;
        }
        for (int i = 0; i < nprev; i++) {
            int k = d->c_prev[i];
            if (d->c_inset[k] == 1) { d->met.contact_deactivations += deact; d->c_inset[k] = 0; }
        }
        for (int i = 0; i < nnew; i++) d->c_inset[d->c_active[i]] = 1;
        d->c_nset = nnew;
        d->c_nactive = deact ? nnew : nc;
    } else {
        d->c_nactive = nc;
    }
    int active = m->spec->solver.contact_deactivation ? d->c_nactive : nc;
    d->c_active_sum += active;
    d->c_active_count++;
    if (active > d->met.max_active_contacts) d->met.max_active_contacts = active;
    d->c_ready = 1;
    d->met.contact_detection_seconds += mbs_now() - t0;
}

int mbs_contact_missed(const mbs_model *m, mbs_data *d, const double *dx, int *out)
{
    int nc = m->spec->ncontact, ns = m->spec->nshape;
    if (nc == 0 || !m->spec->solver.contact_deactivation || !d->c_ready || !d->c_wc) return 0;
    /* each body's displacement in the units of its travel
     * (mbs_contact_step_ahead: a coordinate's change times the coordinate
     * map's size), beyond the travel its boxes were grown by */
    double *bex = d->c_wc->bex, *grow = d->c_wc->sgrow, gmax = 0;
    for (int b = 0; b < m->nbody; b++) {
        double dmax = 0;
        for (int sl = 0; sl < m->nb; sl++) {
            int v = m->body[b].var[sl];
            if (v >= 0 && v < m->nvar && dx[v] > dmax) dmax = dx[v];
        }
        double ex = dmax * (1 + m->length_scale) - d->c_travel[b];
        bex[b] = ex > 0 ? ex : 0; /* also a body without shapes (travel NaN) */
        if (bex[b] > gmax) gmax = bex[b];
    }
    if (!(gmax > 0)) return 0;
    for (int i = 0; i < ns; i++) {
        int b = m->cshape[i].body;
        grow[i] = b >= 0 && b < m->nbody ? bex[b] : 0;
    }
    /* the box pairs that overlap with those growths and did not without */
    int n = mbs_bp_grown(d->c_bp, d->c_aabb, d->c_margin, grow, gmax, out), k = 0;
    for (int i = 0; i < n; i++)
        if (!d->c_inset[out[i]]) out[k++] = out[i];
    return k;
}

void mbs_contact_reset(const mbs_model *m, mbs_data *d)
{
    int nc = m->spec->ncontact;
    if (nc == 0) return;
    memset(d->c_on, 0, (size_t)nc);
    memset(d->c_inset, 0, (size_t)nc);
    memset(d->c_vimp, 0, sizeof(double) * (size_t)nc);
    d->c_nactive = 0;
    d->c_nset = 0;
    d->c_non = 0;
    d->c_ready = 0;
    d->c_active_sum = 0;
    d->c_active_count = 0;
}
