/*
 * ncs_equations.c - the constraint equations of the natural-coordinate
 * model (see model.h): rigid-body constraints of every NCS, the equations of
 * each joint that elimination did not absorb, and the drivers; then the
 * column pattern of each equation (exact duplicates of shared vectors
 * dropped) and the measures of revolute/prismatic joints.
 */
#include "mbs/model/model.h"
#include "mbs/linalg/vec.h"
#include "mbs/formulation/natural/natural.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- equations --------------------------------------------------------------------- */

/* The equations' affine vectors live in blocks that never move (the
 * equations point into them), so that equations can share one: the 3-D
 * rigid-body equations of a body use its three NCS vectors six times, a
 * joint's equations its axis or point difference twice.  An equation
 * record is then about 150 bytes instead of 3.3 KB with five vectors
 * inline (10,000 spatial bodies: 80,000 equations). */
#define S_AVBLOCK 1024
typedef struct s_avblock {
    struct s_avblock *next;
    int n;
    mbs_avec v[S_AVBLOCK];
} s_avblock;

typedef struct {
    mbs_model *m;
    int n, cap;
    mbs_eq *eq;
    /* counting only (the equations before elimination): nothing is kept,
     * s_eq_new and s_keep hand out scratch records */
    int count_only;
    mbs_eq scratch;
    mbs_avec scratch_av;
} s_eqlist;

static mbs_eq *s_eq_new(s_eqlist *l, mbs_eq_kind kind, int joint)
{
    mbs_eq *e;
    if (l->count_only) {
        l->n++;
        e = &l->scratch;
    } else {
        if (l->n == l->cap) {
            int cap = l->cap ? 2 * l->cap : 64;
            mbs_eq *ne = realloc(l->eq, sizeof(mbs_eq) * (size_t)cap);
            if (!ne) return NULL;
            l->eq = ne; l->cap = cap;
        }
        e = &l->eq[l->n++];
    }
    memset(e, 0, sizeof *e);
    e->kind = kind;
    e->joint = joint;
    e->body = -1;
    e->svar = -1;
    return e;
}

/* A copy of a in the model's pool (NULL when out of memory). */
static const mbs_avec *s_keep(s_eqlist *l, const mbs_avec *a)
{
    if (l->count_only) return &l->scratch_av;
    s_avblock *b = l->m->eqav;
    if (!b || b->n == S_AVBLOCK) {
        s_avblock *nb = malloc(sizeof *nb);
        if (!nb) return NULL;
        nb->next = b;
        nb->n = 0;
        l->m->eqav = b = nb;
    }
    b->v[b->n] = *a;
    return &b->v[b->n++];
}

void mbs_ncs_equations_free(mbs_model *m)
{
    for (s_avblock *b = m->eqav, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    m->eqav = NULL;
}

/* Affine vector of a body point (is_point) or body vector given globally. */
static mbs_avec s_av(const mbs_model *m, int b, const double *g, int is_point)
{
    mbs_avec a;
    memset(&a, 0, sizeof a);
    if (b < 0) {
        v3copy(g, a.c);
        if (m->dim == 2) a.c[2] = 0;
        return a;
    }
    double c[3];
    if (is_point) mbs_local_point(m, b, g, c); else mbs_local_dir(m, b, g, c);
    a.nterm = 1;
    a.t[0].body = b;
    a.t[0].sign = 1;
    mbs_point_map(m, b, c, is_point, a.t[0].L);
    return a;
}

mbs_avec mbs_body_avec(const mbs_model *m, int b, const double *g, int is_point)
{
    return s_av(m, b, g, is_point);
}

/* a - b */
static mbs_avec s_av_sub(mbs_avec a, const mbs_avec *b)
{
    for (int t = 0; t < b->nterm && a.nterm < 2; t++) {
        a.t[a.nterm] = b->t[t];
        a.t[a.nterm].sign = -b->t[t].sign;
        a.nterm++;
    }
    for (int i = 0; i < 3; i++) a.c[i] -= b->c[i];
    return a;
}

/* A DOT equation  p . q = value (constant target) on kept vectors. */
static int s_dot_kept(s_eqlist *l, int joint, const mbs_avec *p, const mbs_avec *q, double value)
{
    if (!p || !q) return MBS_ENOMEM;
    mbs_eq *e = s_eq_new(l, MBS_EQ_DOT, joint);
    if (!e) return MBS_ENOMEM;
    e->nprod = 1;
    e->p[0][0] = p;
    e->p[0][1] = q;
    e->w[0].kind = MBS_TW_CONST;
    e->w[0].base = 1;
    e->g.kind = MBS_TW_CONST;
    e->g.base = value;
    return 0;
}

/* The same with p and q copied into the pool. */
static int s_dot(s_eqlist *l, int joint, mbs_avec p, mbs_avec q, double value)
{
    return s_dot_kept(l, joint, s_keep(l, &p), s_keep(l, &q), value);
}

/* Point coincidence x_0(P) = x_1(P): dim LIN equations on one vector. */
static int s_point_eqs(s_eqlist *l, int joint, const mbs_joint_spec *J, const double *P)
{
    const mbs_model *m = l->m;
    mbs_avec a = s_av(m, J->body[1], P, 1), b = s_av(m, J->body[0], P, 1);
    mbs_avec d = s_av_sub(a, &b);
    const mbs_avec *kd = s_keep(l, &d);
    if (!kd) return MBS_ENOMEM;
    for (int k = 0; k < m->dim; k++) {
        mbs_eq *e = s_eq_new(l, MBS_EQ_LIN, joint);
        if (!e) return MBS_ENOMEM;
        e->a = kd;
        e->comp = k;
        e->g.kind = MBS_TW_CONST;
    }
    return 0;
}

/* Two unit directions perpendicular to u (and to each other). */
static void s_perp(const double *u, double *p, double *r)
{
    double t[3] = {1, 0, 0};
    if (fabs(u[0]) > 0.6) { t[0] = 0; t[1] = 1; }
    v3cross(u, t, p);
    v3unit(p, p);
    v3cross(u, p, r);
    v3unit(r, r);
}

/* Axis of body 0 stays parallel to body 1's axis: u_0 . p_1 = 0, u_0 . r_1 = 0. */
static int s_parallel_eqs(s_eqlist *l, int joint, const mbs_joint_spec *J, const double *u)
{
    const mbs_model *m = l->m;
    double p[3], r[3];
    s_perp(u, p, r);
    mbs_avec u0 = s_av(m, J->body[0], u, 0), p1 = s_av(m, J->body[1], p, 0), r1 = s_av(m, J->body[1], r, 0);
    const mbs_avec *ku0 = s_keep(l, &u0);
    int rc = s_dot_kept(l, joint, ku0, s_keep(l, &p1), 0);
    if (!rc) rc = s_dot_kept(l, joint, ku0, s_keep(l, &r1), 0);
    return rc;
}

/* Point P of body 1 stays on the line (P, u) of body 0. */
static int s_online_eqs(s_eqlist *l, int joint, const mbs_joint_spec *J, const double *P, const double *u)
{
    const mbs_model *m = l->m;
    mbs_avec a = s_av(m, J->body[1], P, 1), b = s_av(m, J->body[0], P, 1);
    mbs_avec d = s_av_sub(a, &b);
    if (m->dim == 2) {
        double n[3] = {-u[1], u[0], 0};
        return s_dot(l, joint, d, s_av(m, J->body[0], n, 0), 0);
    }
    double p[3], r[3];
    s_perp(u, p, r);
    mbs_avec p0 = s_av(m, J->body[0], p, 0), r0 = s_av(m, J->body[0], r, 0);
    const mbs_avec *kd = s_keep(l, &d);
    int rc = s_dot_kept(l, joint, kd, s_keep(l, &p0), 0);
    if (!rc) rc = s_dot_kept(l, joint, kd, s_keep(l, &r0), 0);
    return rc;
}

/* Prismatic joint with clearance, friction model (seed 003): the two ends
 * P_1, P_2 = at -+ (L/2) axis of the slider (body 1) stay on the guide's
 * centre line (at, axis) of body 0:  n_g . (P_k - A) = 0, n_g the guide's
 * unit normal.  The multiplier lam_k of end k is then minus the normal force
 * N_k = -lam_k that the guide exerts on the slider along n_g at that end
 * (joint_friction.h).  Two equations, in the order end 1, end 2. */
static int s_slider_ends_eqs(s_eqlist *l, int joint, const mbs_joint_spec *J)
{
    const mbs_model *m = l->m;
    double n[3] = {-J->axis[1], J->axis[0], 0};
    mbs_avec A = s_av(m, J->body[0], J->at, 1), ng = s_av(m, J->body[0], n, 0);
    const mbs_avec *kng = s_keep(l, &ng);
    for (int k = 0; k < 2; k++) {
        double P[3];
        for (int a = 0; a < 3; a++) P[a] = J->at[a] + (k == 0 ? -0.5 : 0.5) * J->slider_length * J->axis[a];
        mbs_avec d = s_av_sub(s_av(m, J->body[1], P, 1), &A);
        if (s_dot_kept(l, joint, s_keep(l, &d), kng, 0)) return MBS_ENOMEM;
    }
    return 0;
}

static int s_rigid_eqs(s_eqlist *l)
{
    const mbs_model *m = l->m;
    int dim = m->dim, nv = dim == 3 ? 3 : 1;
    for (int b = 0; b < m->nbody; b++) {
        const mbs_body *bd = &m->body[b];
        /* the body's NCS vectors e_k as affine vectors, kept once */
        const mbs_avec *kv[3];
        double e[3][3] = {{0}};
        for (int k = 0; k < nv; k++) {
            double ck[3] = {0};
            for (int a = 0; a < dim; a++)
                e[k][a] = bd->q0[dim * (k + 1) + a] - (bd->vec_is_point[k] ? bd->q0[a] : 0);
            ck[k] = 1;
            mbs_avec p;
            memset(&p, 0, sizeof p);
            p.nterm = 1;
            p.t[0].body = b;
            p.t[0].sign = 1;
            mbs_point_map(m, b, ck, 0, p.t[0].L);
            if (!(kv[k] = s_keep(l, &p))) return MBS_ENOMEM;
        }
        /* e_k . e_kk = value at t = 0 */
        for (int k = 0; k < nv; k++)
            for (int kk = k; kk < nv; kk++) {
                if (s_dot_kept(l, -1, kv[k], kv[kk], v3dot(e[k], e[kk]))) return MBS_ENOMEM;
                if (!l->count_only) l->eq[l->n - 1].body = b;
            }
    }
    return 0;
}

static int s_joint_eqs(s_eqlist *l, const mbs_elim *el)
{
    const mbs_model *m = l->m;
    const mbs_spec *s = m->spec;
    int rc = 0;
    for (int j = 0; j < s->njoint && !rc; j++) {
        const mbs_joint_spec *J = &s->joints[j];
        switch (J->type) {
        case MBS_JOINT_REVOLUTE:
            if (!el[j].point_shared) rc = s_point_eqs(l, j, J, J->at);
            if (!rc && m->dim == 3 && !el[j].axis_shared) rc = s_parallel_eqs(l, j, J, J->axis);
            break;
        case MBS_JOINT_SPHERICAL:
            if (!el[j].point_shared) rc = s_point_eqs(l, j, J, J->at);
            break;
        case MBS_JOINT_UNIVERSAL:
            if (!el[j].point_shared) rc = s_point_eqs(l, j, J, J->at);
            if (!rc) rc = s_dot(l, j, s_av(m, J->body[0], J->axes[0], 0), s_av(m, J->body[1], J->axes[1], 0),
                                v3dot(J->axes[0], J->axes[1]));
            break;
        case MBS_JOINT_CYLINDRICAL:
        case MBS_JOINT_PRISMATIC:
            if (J->clearance_model == MBS_CLEARANCE_FRICTION) {
                rc = s_slider_ends_eqs(l, j, J);
                break;
            }
            if (J->clearance_model == MBS_CLEARANCE_IMPACT)
                break; /* contacts at the slider's corners (parser), no equations */
            if (m->dim == 3 && !el[j].axis_shared) rc = s_parallel_eqs(l, j, J, J->axis);
            if (!rc) rc = s_online_eqs(l, j, J, J->at, J->axis);
            if (!rc && J->type == MBS_JOINT_PRISMATIC) {
                if (m->dim == 2) {
                    double n[3] = {-J->axis[1], J->axis[0], 0};
                    if (!el[j].axis_shared)
                        rc = s_dot(l, j, s_av(m, J->body[0], J->axis, 0), s_av(m, J->body[1], n, 0), 0);
                } else {
                    double p[3], r[3];
                    s_perp(J->axis, p, r);
                    rc = s_dot(l, j, s_av(m, J->body[0], p, 0), s_av(m, J->body[1], r, 0), 0);
                }
            }
            break;
        case MBS_JOINT_FIXED:
            if (!el[j].point_shared) rc = s_point_eqs(l, j, J, J->at);
            if (!rc && m->dim == 2) {
                double ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0};
                rc = s_dot(l, j, s_av(m, J->body[0], ex, 0), s_av(m, J->body[1], ey, 0), 0);
            } else if (!rc) {
                double e[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
                rc = s_dot(l, j, s_av(m, J->body[0], e[0], 0), s_av(m, J->body[1], e[1], 0), 0);
                if (!rc) rc = s_dot(l, j, s_av(m, J->body[0], e[0], 0), s_av(m, J->body[1], e[2], 0), 0);
                if (!rc) rc = s_dot(l, j, s_av(m, J->body[0], e[1], 0), s_av(m, J->body[1], e[2], 0), 0);
            }
            break;
        case MBS_JOINT_DISTANCE: {
            mbs_avec a = s_av(m, J->body[1], J->points[1], 1), b = s_av(m, J->body[0], J->points[0], 1);
            mbs_avec d = s_av_sub(a, &b);
            double dd[3];
            v3sub(J->points[1], J->points[0], dd);
            if (m->dim == 2) dd[2] = 0;
            double L = J->has_length ? J->length : v3norm(dd);
            const mbs_avec *kd = s_keep(l, &d);
            rc = s_dot_kept(l, j, kd, kd, L * L);
            break;
        }
        default:
            break;
        }
    }
    return rc;
}

/* Driver equations: revolute  (u0.u1) sin(phi) - (v0.u1) cos(phi) = 0 with
 * phi = f(t) the relative angle; prismatic (x1(P) - x0(P)) . u0 = f(t). */
static int s_driver_eqs(s_eqlist *l)
{
    const mbs_model *m = l->m;
    const mbs_spec *s = m->spec;
    for (int d = 0; d < s->ndriver; d++) {
        const mbs_joint_spec *J = &s->joints[s->drivers[d].joint];
        const mbs_fn *f = &s->drivers[d].motion;
        if (J->type == MBS_JOINT_REVOLUTE) {
            double u[3], v[3], ax[3] = {0, 0, 1};
            if (m->dim == 3) v3copy(J->axis, ax);
            double r[3];
            s_perp(ax, u, r);
            v3cross(ax, u, v);
            mbs_eq *e = s_eq_new(l, MBS_EQ_DOT, -2 - d);
            if (!e) return MBS_ENOMEM;
            e->nprod = 2;
            mbs_avec u1 = s_av(m, J->body[1], u, 0), u0 = s_av(m, J->body[0], u, 0), v0 = s_av(m, J->body[0], v, 0);
            const mbs_avec *ku1 = s_keep(l, &u1);
            e->p[0][0] = s_keep(l, &u0);
            e->p[0][1] = ku1;
            e->p[1][0] = s_keep(l, &v0);
            e->p[1][1] = ku1;
            if (!e->p[0][0] || !ku1 || !e->p[1][0]) return MBS_ENOMEM;
            e->w[0].kind = MBS_TW_SIN;
            e->w[0].fn = f;
            e->w[1].kind = MBS_TW_NEGCOS;
            e->w[1].fn = f;
            e->g.kind = MBS_TW_CONST;
        } else {
            mbs_avec a = s_av(m, J->body[1], J->at, 1), b = s_av(m, J->body[0], J->at, 1);
            mbs_avec dd = s_av_sub(a, &b);
            if (s_dot(l, -2 - d, dd, s_av(m, J->body[0], J->axis, 0), 0)) return MBS_ENOMEM;
            l->eq[l->n - 1].g.kind = MBS_TW_FN;
            l->eq[l->n - 1].g.fn = f;
        }
    }
    return 0;
}

/* The ANG equation of every body with an angle variable (a rotor between
 * moving bodies turns with it, ncs.c s_rotors): A_x sin th - A_y cos th =
 * 0 with A the body's direction that is global x at t = 0 (unit length),
 * so th is the body's rotation since t = 0, continued through turns. */
static int s_angle_eqs(s_eqlist *l)
{
    mbs_model *m = l->m;
    for (int b = 0; b < m->nbody; b++) {
        if (m->body[b].avar < 0) continue;
        double x[3] = {1, 0, 0};
        mbs_avec a = s_av(m, b, x, 0);
        mbs_eq *e = s_eq_new(l, MBS_EQ_ANG, -1);
        const mbs_avec *k = e ? s_keep(l, &a) : NULL;
        if (!k) return MBS_ENOMEM;
        e->body = b;
        e->a = k;
        e->avar = m->body[b].avar;
        e->g.kind = MBS_TW_CONST;
    }
    return 0;
}

/* The DOT equation of every rotor on a prismatic joint between moving
 * bodies (ncs.c s_rotors): ax_A . (x_B(P) - x_A(P)) - s = 0, so the
 * variable s is the joint's slide since t = 0 (0 there: the points
 * coincide). */
static int s_slide_eqs(s_eqlist *l)
{
    mbs_model *m = l->m;
    const mbs_spec *sp = m->spec;
    for (int r = 0; r < m->nsrotor; r++) {
        const mbs_joint_spec *J = &sp->joints[m->srotor[r].joint];
        mbs_avec ax = s_av(m, J->body[0], J->axis, 0);
        mbs_avec a = s_av(m, J->body[1], J->at, 1), b = s_av(m, J->body[0], J->at, 1);
        mbs_avec d = s_av_sub(a, &b);
        int n0 = l->n;
        int rc = s_dot(l, m->srotor[r].joint, ax, d, 0);
        if (rc) return rc;
        l->eq[n0].svar = m->srotor[r].var;
    }
    return 0;
}

/* A TRIG equation on kept vectors: sum_m (c[m][0] cos k th + c[m][1] sin
 * k th) p[m] . q[m] - x_svar = 0 (svar -1: none). */
static int s_trig(s_eqlist *l, int joint, const mbs_avec *p[2], const mbs_avec *q[2], const double c[2][2],
                  double k, int th, int svar)
{
    if (!p[0] || !p[1] || !q[0] || !q[1]) return MBS_ENOMEM;
    mbs_eq *e = s_eq_new(l, MBS_EQ_TRIG, joint);
    if (!e) return MBS_ENOMEM;
    e->nprod = 2;
    for (int m = 0; m < 2; m++) {
        e->p[m][0] = p[m];
        e->p[m][1] = q[m];
        e->tc[m][0] = c[m][0];
        e->tc[m][1] = c[m][1];
    }
    e->tk = k;
    e->avar = th;
    e->svar = svar;
    e->g.kind = MBS_TW_CONST;
    return 0;
}

/* The equations of every rotor on a spatial joint between moving bodies
 * (ncs.c s_space_rotors), with u0, v0 = a x u0 fixed in the stator's body
 * A normal to the joint's axis a and u1 in B equal to u0 at t = 0: on a
 * revolute joint its angle th by (u0 . u1) sin th - (v0 . u1) cos th = 0
 * (a driver's equation with th a variable); then the rotor's unit vectors
 * e = cos(N th) u0 + sin(N th) v0 and f = -sin(N th) u0 + cos(N th) v0,
 * one equation a component (u0 . E_c with E_c the constant axis c). */
static int s_space_rotor_eqs(s_eqlist *l)
{
    mbs_model *m = l->m;
    const mbs_spec *sp = m->spec;
    for (int r = 0; r < m->nrotor3; r++) {
        const struct mbs_rotor3 *ro = &m->rotor3[r];
        const mbs_joint_spec *J = &sp->joints[ro->joint];
        double ax[3], u[3], w[3], v[3];
        v3copy(J->axis, ax);
        s_perp(ax, u, w);
        v3cross(ax, u, v);
        mbs_avec au0 = s_av(m, J->body[0], u, 0), av0 = s_av(m, J->body[0], v, 0), au1 = s_av(m, J->body[1], u, 0);
        const mbs_avec *u0 = s_keep(l, &au0), *v0 = s_keep(l, &av0);
        if (!u0 || !v0) return MBS_ENOMEM;
        if (!ro->slide) {
            const mbs_avec *u1 = s_keep(l, &au1), *p[2] = {u0, v0}, *q[2] = {u1, u1};
            const double c[2][2] = {{0, 1}, {-1, 0}};
            int rc = s_trig(l, ro->joint, p, q, c, 1, ro->var_th, -1);
            if (rc) return rc;
        }
        for (int k = 0; k < 3; k++) {
            double E[3] = {0, 0, 0};
            E[k] = 1;
            mbs_avec aE = s_av(m, MBS_GROUND, E, 0);
            const mbs_avec *kE = s_keep(l, &aE), *p[2] = {u0, v0}, *q[2] = {kE, kE};
            /* e_k: cos u0_k + sin v0_k; f_k: cos v0_k - sin u0_k */
            const double ce[2][2] = {{1, 0}, {0, 1}}, cf[2][2] = {{0, -1}, {1, 0}};
            int rc = s_trig(l, ro->joint, p, q, ce, ro->N, ro->var_th, ro->var_e + k);
            if (!rc) rc = s_trig(l, ro->joint, p, q, cf, ro->N, ro->var_th, ro->var_e + 3 + k);
            if (rc) return rc;
        }
    }
    return 0;
}

/* Variables touched by an affine vector, appended to cols (may repeat). */
static int s_av_vars(const mbs_model *m, const mbs_avec *a, int *cols, int n)
{
    for (int t = 0; t < a->nterm; t++) {
        const mbs_body *bd = &m->body[a->t[t].body];
        for (int s = 0; s < m->nb; s++) {
            if (bd->var[s] < 0) continue;
            int nz = 0;
            for (int i = 0; i < m->dim; i++) nz |= a->t[t].L[i * m->nb + s] != 0;
            if (nz) cols[n++] = bd->var[s];
        }
    }
    return n;
}

static int s_cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Hash of an equation's column pattern (FNV-1a over the indices). */
static unsigned s_pattern_hash(const int *cols, int n)
{
    unsigned h = 2166136261u;
    for (int k = 0; k < n; k++) {
        unsigned v = (unsigned)cols[k];
        for (int b = 0; b < 4; b++) { h ^= (v >> (8 * b)) & 0xffu; h *= 16777619u; }
    }
    return h ^ (unsigned)n;
}

/* Column pattern of each equation; drop equations that touch no variable
 * (everything constant: fully eliminated) and exact duplicates (a rigid
 * constraint of a vector shared by two bodies appears on both).  The kept
 * rigid-body equations are found again by a hash table on their pattern
 * (a search over all of them was quadratic: 10,000 bodies, 0.2 s). */
static int s_patterns(mbs_model *m, s_eqlist *l)
{
    int total = 0, tmp[4 * 4 * MBS_NB_MAX + 8];
    for (int i = 0; i < l->n; i++) {
        mbs_eq *e = &l->eq[i];
        int n = 0;
        if (e->kind == MBS_EQ_LIN) {
            n = s_av_vars(m, e->a, tmp, 0);
        } else if (e->kind == MBS_EQ_ANG) {
            n = s_av_vars(m, e->a, tmp, 0);
            tmp[n++] = e->avar;
        } else {
            for (int p = 0; p < e->nprod; p++) {
                n = s_av_vars(m, e->p[p][0], tmp, n);
                n = s_av_vars(m, e->p[p][1], tmp, n);
            }
            if (e->svar >= 0) tmp[n++] = e->svar;
            if (e->kind == MBS_EQ_TRIG) tmp[n++] = e->avar;
        }
        total += n; /* upper bound: before removing repeats */
    }
    m->colpool = malloc(sizeof(int) * (size_t)(total > 0 ? total : 1));
    if (!m->colpool) return MBS_ENOMEM;
    /* open addressing, at most half full: kept rigid equations' indices + 1 */
    size_t hcap = 64;
    while (hcap < 2 * (size_t)l->n) hcap *= 2;
    int *htab = calloc(hcap, sizeof(int));
    if (!htab) return MBS_ENOMEM;
    int kept = 0, pos = 0;
    for (int i = 0; i < l->n; i++) {
        mbs_eq e = l->eq[i];
        int n = 0;
        if (e.kind == MBS_EQ_LIN) {
            n = s_av_vars(m, e.a, tmp, 0);
        } else if (e.kind == MBS_EQ_ANG) {
            n = s_av_vars(m, e.a, tmp, 0);
            tmp[n++] = e.avar;
        } else {
            for (int p = 0; p < e.nprod; p++) {
                n = s_av_vars(m, e.p[p][0], tmp, n);
                n = s_av_vars(m, e.p[p][1], tmp, n);
            }
            if (e.svar >= 0) tmp[n++] = e.svar;
            if (e.kind == MBS_EQ_TRIG) tmp[n++] = e.avar;
        }
        qsort(tmp, (size_t)n, sizeof(int), s_cmp_int);
        int u = 0;
        for (int k = 0; k < n; k++)
            if (u == 0 || tmp[u - 1] != tmp[k]) tmp[u++] = tmp[k];
        if (u == 0) continue;                     /* fully eliminated       */
        /* duplicate rigid constraint: same body-slot variables, same value */
        int dup = 0;
        size_t slot = 0;
        if (e.joint == -1) {
            for (slot = s_pattern_hash(tmp, u) & (hcap - 1); htab[slot] && !dup; slot = (slot + 1) & (hcap - 1)) {
                mbs_eq *o = &l->eq[htab[slot] - 1];
                /* the same value up to rounding, relative to the values
                 * (an absolute 1e-12 took a 1 um Bricard's distance and dot
                 * products, both about 1e-12 m^2, for one equation) */
                if (o->nnz != u || fabs(o->g.base - e.g.base) > 1e-12 * (fabs(o->g.base) + fabs(e.g.base))) continue;
                if (memcmp(o->cols, tmp, sizeof(int) * (size_t)u)) continue;
                /* same variables and value: the same product of a shared
                 * vector (both bodies carry it), hence the same equation */
                dup = 1;
            }
        }
        if (dup) continue;
        if (e.joint == -1) htab[slot] = kept + 1; /* the empty slot the probe ended on */
        (void)e.nnz;
        memcpy(m->colpool + pos, tmp, sizeof(int) * (size_t)u);
        e.nnz = u;
        e.cols = m->colpool + pos;
        pos += u;
        l->eq[kept++] = e;
    }
    l->n = kept;
    free(htab);
    return 0;
}

/* Measures of every revolute and prismatic joint (angle, displacement), used
 * by drivers' outputs, rotational springs, joint damping and channels. */
static int s_joint_geom(mbs_model *m)
{
    const mbs_spec *s = m->spec;
    m->jg = calloc((size_t)(s->njoint > 0 ? s->njoint : 1), sizeof(mbs_jgeom));
    if (!m->jg) return MBS_ENOMEM;
    for (int j = 0; j < s->njoint; j++) {
        const mbs_joint_spec *J = &s->joints[j];
        mbs_jgeom *g = &m->jg[j];
        double ax[3] = {0, 0, 1}, u[3], r[3], v[3];
        if (m->dim == 3 || J->type == MBS_JOINT_PRISMATIC) v3copy(J->axis, ax);
        if (m->dim == 2 && J->type == MBS_JOINT_PRISMATIC) {
            double z[3] = {0, 0, 1};
            s_perp(z, u, r);
        } else {
            s_perp(ax, u, r);
        }
        double zax[3] = {0, 0, 1};
        v3cross(m->dim == 3 ? ax : zax, u, v);
        g->u0 = s_av(m, J->body[0], u, 0);
        g->v0 = s_av(m, J->body[0], v, 0);
        g->u1 = s_av(m, J->body[1], u, 0);
        mbs_avec a = s_av(m, J->body[1], J->at, 1), b = s_av(m, J->body[0], J->at, 1);
        g->d = s_av_sub(a, &b);
        g->ax = s_av(m, J->body[0], ax, 0);
    }
    return 0;
}

int mbs_ncs_equations(mbs_model *m, const mbs_elim *el)
{
    const mbs_spec *s = m->spec;
    s_eqlist l = {.m = m};
    int before_joint_eqs = 0;
    int rc = s_rigid_eqs(&l);
    if (!rc) {
        /* count the joint equations the reference formulation has before
         * elimination: the same generator with nothing shared */
        mbs_elim *none = calloc((size_t)(s->njoint > 0 ? s->njoint : 1), sizeof(mbs_elim));
        s_eqlist l0 = {.m = m, .count_only = 1};
        rc = none ? s_joint_eqs(&l0, none) : MBS_ENOMEM;
        before_joint_eqs = l0.n;
        free(none);
    }
    int rigid_before = l.n;
    if (!rc) rc = s_joint_eqs(&l, el);
    if (!rc) rc = s_driver_eqs(&l);
    if (!rc) rc = s_angle_eqs(&l);
    if (!rc) rc = s_slide_eqs(&l);
    if (!rc) rc = s_space_rotor_eqs(&l);
    if (!rc) rc = s_patterns(m, &l);
    if (!rc) rc = s_joint_geom(m);
    if (rc) {
        free(l.eq);
        return rc;
    }
    m->neq = l.n;
    m->eq = l.eq;
    rc = mbs_cons_jac_prepare(m);
    if (rc) return rc;
    /* the eliminated joint equations count as NCCC/NCEC equations of the
     * reference: a shared point is dim equations, a shared axis too */
    m->report0.coords_before = m->nbody * m->nb;
    m->report0.constraints_before = rigid_before + before_joint_eqs + s->ndriver;
    m->report0.coords_after = m->nvar;
    m->report0.constraints_after = m->neq;
    return 0;
}
