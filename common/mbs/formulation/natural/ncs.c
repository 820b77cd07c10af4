/*
 * ncs.c - natural-coordinate systems: self-adaptation to the joints, the
 * elimination of constant (NCCC) and equal (NCEC) coordinates, the constant
 * mass matrix and the body geometry maps.  See model.h for the layout.
 *
 * Self-adaptation (seed 000, four steps):
 *  1. every joint attached to a body offers "empty positions": its feature
 *     points (revolute, spherical, universal, fixed, distance ends) and
 *     feature vectors (revolute / prismatic / cylindrical axes, universal
 *     axes), each with weight 1 (a little more when the other side is the
 *     ground, since a constant coordinate leaves the system entirely);
 *  2. coinciding positions are merged and their weights added;
 *  3. the origin takes the heaviest point, the vector slots the heaviest
 *     positions that keep the vectors independent (points before vectors on
 *     ties, since a shared point removes a whole point equation);
 *  4. empty slots are filled from the standard system (centre of mass and
 *     body axes), so a body without joints keeps the standard NCS.
 */
#include "mbs/model/model.h"
#include "mbs/linalg/vec.h"
#include "mbs/formulation/natural/natural.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- step 1-2: candidate positions ------------------------------------------ */

typedef struct {
    int is_point;
    double p[3];   /* point or unit direction */
    double w;
} s_cand;

typedef struct {
    int n, cap;
    s_cand *c;
} s_candlist;

static int s_cand_add(s_candlist *l, int is_point, const double *p, double w, double tol)
{
    /* merge with an existing position (step 2) */
    for (int i = 0; i < l->n; i++) {
        s_cand *c = &l->c[i];
        if (c->is_point != is_point) continue;
        double d[3];
        if (is_point) {
            v3sub(c->p, p, d);
            if (v3norm(d) <= tol) { c->w += w; return 0; }
        } else if (fabs(fabs(v3dot(c->p, p)) - 1) < 1e-12) {
            c->w += w;
            return 0;
        }
    }
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 8;
        s_cand *nc = realloc(l->c, sizeof(s_cand) * (size_t)cap);
        if (!nc) return -1;
        l->c = nc; l->cap = cap;
    }
    s_cand *c = &l->c[l->n++];
    c->is_point = is_point;
    if (is_point) v3copy(p, c->p); else v3unit(p, c->p);
    c->w = w;
    return 0;
}

/* Offer the features of every joint to its two bodies. */
static int s_collect(const mbs_model *m, s_candlist *cl, double tol)
{
    const mbs_spec *s = m->spec;
    for (int j = 0; j < s->njoint; j++) {
        const mbs_joint_spec *J = &s->joints[j];
        for (int side = 0; side < 2; side++) {
            int b = J->body[side];
            if (b < 0) continue;
            double w = J->body[1 - side] < 0 ? 1.5 : 1.0;
            s_candlist *l = &cl[b];
            int rc = 0;
            switch (J->type) {
            case MBS_JOINT_REVOLUTE:
                rc |= s_cand_add(l, 1, J->at, w, tol);
                if (m->dim == 3) rc |= s_cand_add(l, 0, J->axis, w * 0.9, tol);
                break;
            case MBS_JOINT_SPHERICAL:
            case MBS_JOINT_FIXED:
                rc |= s_cand_add(l, 1, J->at, w, tol);
                break;
            case MBS_JOINT_UNIVERSAL:
                rc |= s_cand_add(l, 1, J->at, w, tol);
                rc |= s_cand_add(l, 0, J->axes[side], 0.5, tol);
                break;
            case MBS_JOINT_PRISMATIC:
            case MBS_JOINT_CYLINDRICAL:
                rc |= s_cand_add(l, 0, J->axis, w * 0.9, tol);
                break;
            case MBS_JOINT_DISTANCE:
                rc |= s_cand_add(l, 1, J->points[side], 0.5, tol);
                break;
            default:
                break;
            }
            if (rc) return -1;
        }
    }
    return 0;
}

/* ---- step 3-4: choosing the slots ---------------------------------------------- */

/* Direction a slot candidate gives relative to the origin. */
static void s_cand_dir(const s_cand *c, const double *origin, double *d)
{
    if (c->is_point) v3sub(c->p, origin, d); else v3copy(c->p, d);
}

/* Distance of unit(d) from the span of the first k unit vectors in E (rows,
 * orthonormalised in place into Q). Returns the residual norm in [0, 1]. */
static double s_indep(const double Q[3][3], int k, const double *d, double *resid)
{
    double u[3] = {0, 0, 0};
    if (v3unit(d, u) == 0) return 0;
    for (int i = 0; i < k; i++) {
        double p = v3dot(u, Q[i]);
        for (int a = 0; a < 3; a++) u[a] -= p * Q[i][a];
    }
    v3copy(u, resid);
    return v3norm(u);
}

static void s_choose(mbs_model *m, int b, const s_candlist *l)
{
    const mbs_body_spec *B = &m->spec->bodies[b];
    mbs_body *bd = &m->body[b];
    int dim = m->dim, nvec = dim == 3 ? 3 : 1;
    double origin[3] = {0, 0, 0};
    int used[64] = {0};
    int ncand = l->n < 64 ? l->n : 64;

    /* origin: heaviest point, else the centre of mass */
    int best = -1;
    for (int i = 0; i < ncand; i++)
        if (l->c[i].is_point && (best < 0 || l->c[i].w > l->c[best].w)) best = i;
    if (best >= 0) {
        v3copy(l->c[best].p, origin);
        used[best] = 1;
        snprintf(bd->origin_desc, sizeof bd->origin_desc, "origin at a joint point");
    } else {
        v3copy(B->com, origin);
        snprintf(bd->origin_desc, sizeof bd->origin_desc, "standard (origin at the centre of mass)");
    }
    v3copy(origin, bd->q0);

    /* vector slots: heaviest independent candidates (points win ties) */
    double Q[3][3];
    int k = 0;
    while (k < nvec) {
        int pick = -1;
        double pickw = -1, r[3];
        for (int i = 0; i < ncand; i++) {
            if (used[i]) continue;
            double d[3];
            s_cand_dir(&l->c[i], origin, d);
            double len = v3norm(d);
            if (len < 1e-9 * m->length_scale) continue;
            if (dim == 2 && d[2] != 0) continue;
            if (s_indep(Q, k, d, r) < 0.05) continue; /* nearly coplanar */
            double w = l->c[i].w + (l->c[i].is_point ? 0.01 : 0);
            if (w > pickw) { pickw = w; pick = i; }
        }
        if (pick < 0) break;
        used[pick] = 1;
        double d[3];
        s_cand_dir(&l->c[pick], origin, d);
        s_indep(Q, k, d, r);
        v3unit(r, Q[k]);
        bd->vec_is_point[k] = l->c[pick].is_point;
        v3copy(l->c[pick].p, &bd->q0[3 * (k + 1)]);
        k++;
    }
    /* fill from the body axes (standard system), most independent first */
    while (k < nvec) {
        int bestax = -1;
        double bestr = -1, r[3];
        for (int ax = 0; ax < dim; ax++) {
            double e[3] = {bd->R0[ax], bd->R0[3 + ax], dim == 3 ? bd->R0[6 + ax] : 0};
            double res = s_indep(Q, k, e, r);
            if (res > bestr) { bestr = res; bestax = ax; }
        }
        double e[3] = {bd->R0[bestax], bd->R0[3 + bestax], dim == 3 ? bd->R0[6 + bestax] : 0};
        s_indep(Q, k, e, r);
        v3unit(r, Q[k]);
        bd->vec_is_point[k] = 0;
        v3unit(r, &bd->q0[3 * (k + 1)]); /* unit free vector */
        k++;
    }
}

/* Slot values packed as nb coordinates: 3-D [r0 a1 a2 a3], 2-D [r0x r0y ax ay].
 * bd->q0 above uses a 3-stride layout; pack it. */
static void s_pack(const mbs_model *m, mbs_body *bd)
{
    if (m->dim == 3) return;
    double t[12];
    memcpy(t, bd->q0, sizeof t);
    bd->q0[0] = t[0]; bd->q0[1] = t[1]; bd->q0[2] = t[3]; bd->q0[3] = t[4];
    for (int i = 4; i < MBS_NB_MAX; i++) bd->q0[i] = 0;
}

/* NCS vectors at t = 0 as columns of E0 (dim x dim, row-major). */
static void s_E0(const mbs_model *m, const mbs_body *bd, double *E)
{
    double E3[9];
    mbs_ncs_matrix(m, (int)(bd - m->body), bd->q0, E3);
    if (m->dim == 3) {
        memcpy(E, E3, sizeof E3);
    } else {
        E[0] = E3[0]; E[1] = E3[1]; E[2] = E3[3]; E[3] = E3[4]; /* [e1, P e1] */
    }
}

/* ---- geometry maps (public within the library) ----------------------------------- */

void mbs_local_point(const mbs_model *m, int b, const double p[3], double c[3])
{
    const mbs_body *bd = &m->body[b];
    double d[3] = {p[0] - bd->q0[0], p[1] - bd->q0[1], m->dim == 3 ? p[2] - bd->q0[2] : 0};
    mbs_local_dir(m, b, d, c);
}

void mbs_local_dir(const mbs_model *m, int b, const double v[3], double c[3])
{
    const double *A = m->body[b].E0inv;
    if (m->dim == 3) {
        for (int i = 0; i < 3; i++) c[i] = A[3 * i] * v[0] + A[3 * i + 1] * v[1] + A[3 * i + 2] * v[2];
    } else {
        c[0] = A[0] * v[0] + A[1] * v[1];
        c[1] = A[2] * v[0] + A[3] * v[1];
        c[2] = 0;
    }
}

void mbs_point_map(const mbs_model *m, int b, const double c[3], int is_point, double *L)
{
    const mbs_body *bd = &m->body[b];
    int nb = m->nb;
    if (m->dim == 2 && nb == 4) {
        /* the plane, every entry written (the roller chain asks for two
         * maps per touching point and evaluation): the values of the
         * general branch below */
        double s = bd->vec_is_point[0], p = is_point ? 1.0 : 0.0;
        L[0] = p - s * c[0];   L[1] = 0.0 - s * -c[1]; L[2] = c[0];  L[3] = -c[1];
        L[4] = 0.0 - s * c[1]; L[5] = p - s * c[0];    L[6] = c[1];  L[7] = c[0];
        return;
    }
    memset(L, 0, sizeof(double) * (size_t)m->dim * (size_t)nb);
    if (m->dim == 3) {
        double w0 = is_point ? 1.0 : 0.0;
        for (int k = 0; k < 3; k++) w0 -= bd->vec_is_point[k] * c[k];
        for (int a = 0; a < 3; a++) {
            L[a * nb + a] = w0;
            for (int k = 0; k < 3; k++) L[a * nb + 3 + 3 * k + a] = c[k];
        }
    } else {
        /* x = r0 + C (a - s r0), C = [[c1, -c2], [c2, c1]] */
        double C[4] = {c[0], -c[1], c[1], c[0]};
        double s = bd->vec_is_point[0];
        for (int a = 0; a < 2; a++)
            for (int k = 0; k < 2; k++) {
                L[a * nb + k] = (is_point && a == k ? 1.0 : 0.0) - s * C[2 * a + k];
                L[a * nb + 2 + k] = C[2 * a + k];
            }
    }
}

void mbs_ncs_matrix(const mbs_model *m, int b, const double *qb, double *E)
{
    const mbs_body *bd = &m->body[b];
    if (m->dim == 3) {
        for (int k = 0; k < 3; k++)
            for (int a = 0; a < 3; a++) E[3 * a + k] = qb[3 + 3 * k + a] - (bd->vec_is_point[k] ? qb[a] : 0);
        return;
    }
    double s = bd->vec_is_point[0], ex = qb[2] - s * qb[0], ey = qb[3] - s * qb[1];
    E[0] = ex; E[1] = -ey; E[2] = 0;
    E[3] = ey; E[4] = ex;  E[5] = 0;
    E[6] = 0;  E[7] = 0;   E[8] = 1;
}

void mbs_gather(const mbs_model *m, int b, const double *x, int is_rate, double *qb)
{
    const mbs_body *bd = &m->body[b];
    for (int s = 0; s < m->nb; s++)
        qb[s] = bd->var[s] >= 0 ? x[bd->var[s]] : (is_rate ? 0.0 : bd->cst[s]);
}

void mbs_avec_eval(const mbs_model *m, const mbs_avec *a, const double *x, int is_rate, double *out)
{
    int dim = m->dim, nb = m->nb;
    if (dim == 2 && nb == 4) {
        /* the plane, written out (the chain drive evaluates millions): the
         * same sums in the same order as the general loop below */
        out[0] = is_rate ? 0.0 : a->c[0];
        out[1] = is_rate ? 0.0 : a->c[1];
        for (int t = 0; t < a->nterm; t++) {
            double qb[4];
            mbs_gather(m, a->t[t].body, x, is_rate, qb);
            const double *L = a->t[t].L;
            double acc0 = 0, acc1 = 0;
            acc0 += L[0] * qb[0]; acc0 += L[1] * qb[1]; acc0 += L[2] * qb[2]; acc0 += L[3] * qb[3];
            acc1 += L[4] * qb[0]; acc1 += L[5] * qb[1]; acc1 += L[6] * qb[2]; acc1 += L[7] * qb[3];
            out[0] += a->t[t].sign * acc0;
            out[1] += a->t[t].sign * acc1;
        }
        return;
    }
    if (dim == 3 && nb == MBS_NB_MAX) {
        /* space (12 body coordinates), with constant trip counts: the same
         * sums in the same order as the general loop below */
        out[0] = is_rate ? 0.0 : a->c[0];
        out[1] = is_rate ? 0.0 : a->c[1];
        out[2] = is_rate ? 0.0 : a->c[2];
        for (int t = 0; t < a->nterm; t++) {
            double qb[MBS_NB_MAX];
            mbs_gather(m, a->t[t].body, x, is_rate, qb);
            const double *L = a->t[t].L;
            for (int i = 0; i < 3; i++) {
                double acc = 0;
                for (int s = 0; s < MBS_NB_MAX; s++) acc += L[i * MBS_NB_MAX + s] * qb[s];
                out[i] += a->t[t].sign * acc;
            }
        }
        return;
    }
    for (int i = 0; i < dim; i++) out[i] = is_rate ? 0.0 : a->c[i];
    for (int t = 0; t < a->nterm; t++) {
        double qb[MBS_NB_MAX];
        mbs_gather(m, a->t[t].body, x, is_rate, qb);
        for (int i = 0; i < dim; i++) {
            double acc = 0;
            for (int s = 0; s < nb; s++) acc += a->t[t].L[i * nb + s] * qb[s];
            out[i] += a->t[t].sign * acc;
        }
    }
}

/* ---- mass matrix ------------------------------------------------------------------ */

/* M_b = int L(c)^T L(c) dm with L affine in c: L = L0 + sum_k c_k Lk, so only the
 * mass, the first moments and the second moments S = int c c^T dm are needed. */
static void s_body_mass(mbs_model *m, int b)
{
    const mbs_body_spec *B = &m->spec->bodies[b];
    mbs_body *bd = &m->body[b];
    int dim = m->dim, nb = m->nb;
    double zero[3] = {0, 0, 0}, L0[3 * MBS_NB_MAX], Lk[3][3 * MBS_NB_MAX];
    mbs_point_map(m, b, zero, 1, L0);
    for (int k = 0; k < dim; k++) {
        double e[3] = {0, 0, 0};
        e[k] = 1;
        mbs_point_map(m, b, e, 1, Lk[k]);
        for (int i = 0; i < dim * nb; i++) Lk[k][i] -= L0[i];
    }
    /* rotors of dc_motors on revolute and prismatic joints from ground to
     * this body (those between moving bodies are s_rotors'): on a revolute joint each adds
     * J N^2 about the joint's axis, on a prismatic one a mass J N^2 (N = 1 /
     * lead) along its axis (tra: the body translates, so every point's
     * velocity is the com's, and the term is 1/2 J N^2 (axis . v_com)^2) */
    double rotor = 0, rax[9] = {0}, tra[9] = {0};
    for (int e = 0; e < m->spec->nforce; e++) {
        const mbs_force_spec *F = &m->spec->forces[e];
        if (F->type != MBS_FORCE_DC_MOTOR || !(F->motor.J > 0) || F->joint < 0) continue;
        const mbs_joint_spec *Jt = &m->spec->joints[F->joint];
        if (Jt->body[0] != b && Jt->body[1] != b) continue;
        /* between two moving bodies: the bodies' angle variables (s_rotors) */
        if (Jt->body[0] != MBS_GROUND && Jt->body[1] != MBS_GROUND) continue;
        double add = F->motor.J * F->motor.ratio * F->motor.ratio;
        int slide = Jt->type == MBS_JOINT_PRISMATIC;
        if (!slide) rotor += add;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) (slide ? tra : rax)[3 * i + j] += add * Jt->axis[i] * Jt->axis[j];
    }
    /* second moment about the NCS origin, global axes: Jc + m d d^T */
    double Jc[9] = {0}, d[3];
    v3sub(B->com, bd->q0, d);
    if (dim == 3) d[2] = B->com[2] - bd->q0[2]; else d[2] = 0;
    if (dim == 3) {
        const double *I = B->inertia;
        double Ib[9] = {I[0], I[3], I[4], I[3], I[1], I[5], I[4], I[5], I[2]}, Ig[9] = {0}, T[9] = {0};
        const double *R = bd->R0;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                for (int k = 0; k < 3; k++) T[3 * i + j] += R[3 * i + k] * Ib[3 * k + j];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                for (int k = 0; k < 3; k++) Ig[3 * i + j] += T[3 * i + k] * R[3 * j + k];
        for (int i = 0; i < 9; i++) Ig[i] += rax[i];
        double tr = Ig[0] + Ig[4] + Ig[8];
        for (int i = 0; i < 9; i++) Jc[i] = -Ig[i];
        for (int i = 0; i < 3; i++) Jc[4 * i] += tr / 2;
    } else {
        /* planar: only the trace (polar moment) enters rigid kinetic energy */
        Jc[0] = Jc[4] = (B->inertia[0] + rotor) / 2;
    }
    double Jr[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) Jr[3 * i + j] = Jc[3 * i + j] + B->mass * d[i] * d[j];
    /* to NCS coordinates: S = A Jr A^T, cbar = A d */
    double S[9] = {0}, cbar[3];
    mbs_local_point(m, b, B->com, cbar);
    const double *A = bd->E0inv;
    for (int i = 0; i < dim; i++)
        for (int j = 0; j < dim; j++) {
            double acc = 0;
            for (int k = 0; k < dim; k++)
                for (int l = 0; l < dim; l++) acc += A[dim * i + k] * Jr[3 * k + l] * A[dim * j + l];
            S[3 * i + j] = acc;
        }
    v3copy(cbar, bd->c_com);
    /* assemble */
    double mass = B->mass;
    for (int r = 0; r < nb; r++)
        for (int c = 0; c < nb; c++) {
            double acc = 0;
            for (int a = 0; a < dim; a++) {
                double l0r = L0[a * nb + r], l0c = L0[a * nb + c];
                acc += mass * l0r * l0c;
                for (int k = 0; k < dim; k++)
                    acc += mass * cbar[k] * (l0r * Lk[k][a * nb + c] + Lk[k][a * nb + r] * l0c);
                for (int k = 0; k < dim; k++)
                    for (int l = 0; l < dim; l++)
                        acc += S[3 * k + l] * Lk[k][a * nb + r] * Lk[l][a * nb + c];
            }
            bd->Mb[r * nb + c] = acc;
        }
    double Lc[3 * MBS_NB_MAX];
    mbs_point_map(m, b, cbar, 1, Lc);
    /* the prismatic rotors' mass along their axes, at the com's velocity */
    for (int r = 0; r < nb; r++)
        for (int c = 0; c < nb; c++)
            for (int a = 0; a < dim; a++)
                for (int k = 0; k < dim; k++) bd->Mb[r * nb + c] += Lc[a * nb + r] * tra[3 * a + k] * Lc[k * nb + c];
    /* gravity: Q = L(c_com)^T m g */
    for (int s = 0; s < nb; s++) {
        double acc = 0;
        for (int a = 0; a < dim; a++) acc += Lc[a * nb + s] * m->spec->gravity[a];
        bd->Qg[s] = mass * acc;
    }
}

/* ---- elimination: union-find over body slots ------------------------------------- */

typedef struct {
    int *parent;
    int *is_const;     /* root is bound to a constant value                 */
} s_uf;

static int s_find(s_uf *u, int i)
{
    while (u->parent[i] != i) {
        u->parent[i] = u->parent[u->parent[i]];
        i = u->parent[i];
    }
    return i;
}

static void s_union(s_uf *u, int a, int b)
{
    a = s_find(u, a);
    b = s_find(u, b);
    if (a == b) return;
    if (a > b) { int t = a; a = b; b = t; }
    u->parent[b] = a;
    u->is_const[a] |= u->is_const[b];
}

/* Slot index (coordinate offset within the body, dim coordinates) of the NCS
 * point at p, or -1: the origin, or a vector slot holding that point. */
static int s_point_slot(const mbs_model *m, int b, const double *p, double tol)
{
    const mbs_body *bd = &m->body[b];
    int dim = m->dim;
    double d[3];
    double o[3] = {bd->q0[0], bd->q0[1], dim == 3 ? bd->q0[2] : 0};
    v3sub(o, p, d);
    if (dim == 2) d[2] = 0;
    if (v3norm(d) <= tol) return 0;
    for (int k = 0; k < (dim == 3 ? 3 : 1); k++) {
        if (!bd->vec_is_point[k]) continue;
        double q[3] = {bd->q0[dim * (k + 1)], bd->q0[dim * (k + 1) + 1], dim == 3 ? bd->q0[dim * (k + 1) + 2] : 0};
        v3sub(q, p, d);
        if (dim == 2) d[2] = 0;
        if (v3norm(d) <= tol) return dim * (k + 1);
    }
    return -1;
}

/* Slot offset of the free NCS vector equal to the unit vector u, or -1. */
static int s_vector_slot(const mbs_model *m, int b, const double *u)
{
    const mbs_body *bd = &m->body[b];
    int dim = m->dim;
    for (int k = 0; k < (dim == 3 ? 3 : 1); k++) {
        if (bd->vec_is_point[k]) continue;
        const double *q = &bd->q0[dim * (k + 1)];
        double dd = 0;
        for (int a = 0; a < dim; a++) dd += (q[a] - u[a]) * (q[a] - u[a]);
        if (sqrt(dd) < 1e-12) return dim * (k + 1);
    }
    return -1;
}


/* Link slots of the two sides of a joint at a point (or an axis): share the
 * variables (NCEC) or fix them to the ground value (NCCC). */
static int s_link(mbs_model *m, s_uf *u, const mbs_joint_spec *J, int is_axis, const double *p, double tol)
{
    int dim = m->dim, nb = m->nb, off[2] = {-1, -1};
    for (int side = 0; side < 2; side++) {
        int b = J->body[side];
        if (b < 0) continue;
        off[side] = is_axis ? s_vector_slot(m, b, p) : s_point_slot(m, b, p, tol);
        if (off[side] < 0) return 0;
    }
    for (int a = 0; a < dim; a++) {
        if (J->body[0] >= 0 && J->body[1] >= 0) {
            s_union(u, J->body[0] * nb + off[0] + a, J->body[1] * nb + off[1] + a);
        } else {
            int side = J->body[0] >= 0 ? 0 : 1;
            u->is_const[s_find(u, J->body[side] * nb + off[side] + a)] = 1;
        }
    }
    return 1;
}

static int mbs_eliminate(mbs_model *m, mbs_elim *el, double tol)
{
    const mbs_spec *s = m->spec;
    int nb = m->nb, nslot = m->nbody * nb;
    s_uf u;
    u.parent = malloc(sizeof(int) * (size_t)nslot);
    u.is_const = calloc((size_t)nslot, sizeof(int));
    int *varof = malloc(sizeof(int) * (size_t)nslot);
    if (!u.parent || !u.is_const || !varof) { free(u.parent); free(u.is_const); free(varof); return MBS_ENOMEM; }
    for (int i = 0; i < nslot; i++) u.parent[i] = i;

    for (int j = 0; j < s->njoint; j++) {
        const mbs_joint_spec *J = &s->joints[j];
        memset(&el[j], 0, sizeof el[j]);
        switch (J->type) {
        case MBS_JOINT_REVOLUTE:
            el[j].point_shared = s_link(m, &u, J, 0, J->at, tol);
            if (m->dim == 3) el[j].axis_shared = s_link(m, &u, J, 1, J->axis, tol);
            break;
        case MBS_JOINT_SPHERICAL:
        case MBS_JOINT_UNIVERSAL:
        case MBS_JOINT_FIXED:
            el[j].point_shared = s_link(m, &u, J, 0, J->at, tol);
            break;
        case MBS_JOINT_PRISMATIC:
        case MBS_JOINT_CYLINDRICAL:
            /* a joint with clearance keeps its equations (the multipliers
             * are its normal forces) or has none (impact model): the
             * slider's axis must stay free to tilt */
            if (J->clearance_model == MBS_CLEARANCE_NONE)
                el[j].axis_shared = s_link(m, &u, J, 1, J->axis, tol);
            break;
        default:
            break;
        }
    }
    /* number the free roots; count constants and merges */
    int nvar = 0, ncst = 0, nmerge = 0;
    for (int i = 0; i < nslot; i++) varof[i] = -1;
    for (int i = 0; i < nslot; i++) {
        int r = s_find(&u, i);
        if (u.is_const[r]) { ncst++; continue; }
        if (r != i) { nmerge++; continue; }
        varof[r] = nvar++;
    }
    m->nvar = nvar;
    m->report0.eliminated_constant = ncst;
    m->report0.eliminated_equal = nmerge;
    for (int b = 0; b < m->nbody; b++)
        for (int k = 0; k < nb; k++) {
            int r = s_find(&u, b * nb + k);
            m->body[b].var[k] = u.is_const[r] ? -1 : varof[r];
            m->body[b].cst[k] = m->body[b].q0[k];
        }
    free(u.parent); free(u.is_const); free(varof);
    return 0;
}

/* ---- initial velocities from the body input ------------------------------------------- */

static void s_initial_velocities(mbs_model *m)
{
    int dim = m->dim, nb = m->nb;
    double *cnt = calloc((size_t)(m->nvar > 0 ? m->nvar : 1), sizeof(double));
    if (!cnt) return;
    for (int b = 0; b < m->nbody; b++) {
        const mbs_body_spec *B = &m->spec->bodies[b];
        const mbs_body *bd = &m->body[b];
        double w[3] = {0, 0, 0};
        if (dim == 3) v3copy(B->angular_velocity, w); else w[2] = B->angular_velocity[2];
        for (int k = 0; k <= (dim == 3 ? 3 : 1); k++) {
            double x[3] = {0, 0, 0}, v[3], r[3];
            for (int a = 0; a < dim; a++) x[a] = bd->q0[dim * k + a];
            int is_point = k == 0 || bd->vec_is_point[k - 1];
            if (is_point) {
                v3sub(x, B->com, r);
                if (dim == 2) r[2] = 0;
                v3cross(w, r, v);
                for (int a = 0; a < 3; a++) v[a] += B->velocity[a];
            } else {
                v3cross(w, x, v);
            }
            for (int a = 0; a < dim; a++) {
                int var = bd->var[dim * k + a];
                if (var < 0) continue;
                m->v0[var] += v[a];
                cnt[var] += 1;
            }
        }
    }
    for (int i = 0; i < m->nvar; i++)
        if (cnt[i] > 0) m->v0[i] /= cnt[i];
    free(cnt);
    (void)nb;
}

/* ---- rotors between moving bodies ----------------------------------------------------- */

/* The rotor of a dc_motor on a planar revolute joint between two moving
 * bodies A (bodies[0], the stator's) and B turns at w_A + N (w_B - w_A),
 * so its kinetic energy is 1/2 J ((1 - N) w_A + N w_B)^2.  Its cross term
 * w_A w_B is configuration dependent in the natural coordinates (u_A' .
 * u_B' = w_A w_B cos(th_B - th_A)); with each body's rotation angle th as
 * a variable of its own (one ANG equation ties it to the body's direction,
 * ncs_equations.c) the energy is a constant quadratic form in (th_A',
 * th_B'), and the mass matrix stays constant (build.c s_mass adds J c c^T
 * on those variables).  Appends the angle variables after the bodies'
 * (th = 0 at t = 0, th' the body's initial angular velocity). */
static int s_slide_rotors(mbs_model *m);
static int s_space_rotors(mbs_model *m);

static int s_rotors(mbs_model *m)
{
    const mbs_spec *s = m->spec;
    int n = 0;
    int rc = s_slide_rotors(m);
    if (!rc) rc = s_space_rotors(m);
    if (rc) return rc;
    for (int e = 0; e < s->nforce; e++) {
        const mbs_force_spec *F = &s->forces[e];
        if (F->type != MBS_FORCE_DC_MOTOR || !(F->motor.J > 0) || F->joint < 0 || m->dim != 2) continue;
        const mbs_joint_spec *Jt = &s->joints[F->joint];
        if (Jt->type == MBS_JOINT_REVOLUTE && Jt->body[0] != MBS_GROUND && Jt->body[1] != MBS_GROUND) n++;
    }
    if (n == 0) return 0;
    m->rotor = calloc((size_t)n, sizeof *m->rotor);
    if (!m->rotor) return MBS_ENOMEM;
    for (int e = 0; e < s->nforce; e++) {
        const mbs_force_spec *F = &s->forces[e];
        if (F->type != MBS_FORCE_DC_MOTOR || !(F->motor.J > 0) || F->joint < 0 || m->dim != 2) continue;
        const mbs_joint_spec *Jt = &s->joints[F->joint];
        if (Jt->type != MBS_JOINT_REVOLUTE || Jt->body[0] == MBS_GROUND || Jt->body[1] == MBS_GROUND) continue;
        struct mbs_rotor *r = &m->rotor[m->nrotor++];
        double N = F->motor.ratio;
        r->force = e;
        r->J = F->motor.J;
        r->c[0] = 1 - N;
        r->c[1] = N;
        for (int k = 0; k < 2; k++) {
            int b = Jt->body[k];
            r->body[k] = b;
            r->var[k] = -1;
            if (r->c[k] == 0) continue;
            if (m->body[b].avar < 0) m->body[b].avar = m->nvar++;
            r->var[k] = m->body[b].avar;
        }
    }
    return 0;
}

/* The rotor of a dc_motor on a planar prismatic joint between two moving
 * bodies A (bodies[0], the stator's and the screw axis's) and B: it turns
 * at s' / lead relative to A, whose rotation (about the plane's normal) is
 * normal to the screw, so its kinetic energy is 1/2 (J / lead^2) s'^2, s
 * the joint's slide.  s is a variable of its own, tied to the bodies by a
 * DOT equation (ncs_equations.c s_slide_eqs), with the constant mass J /
 * lead^2 (build.c s_mass).  Appends the variables after the bodies'.  In
 * space the slide is a variable too, with no mass of its own: the rotor's
 * vectors carry its energy (s_space_rotors). */
static int s_slide_rotors(mbs_model *m)
{
    const mbs_spec *s = m->spec;
    int n = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int e = 0; e < s->nforce; e++) {
            const mbs_force_spec *F = &s->forces[e];
            if (F->type != MBS_FORCE_DC_MOTOR || !(F->motor.J > 0) || F->joint < 0) continue;
            const mbs_joint_spec *Jt = &s->joints[F->joint];
            if (Jt->type != MBS_JOINT_PRISMATIC || Jt->body[0] == MBS_GROUND || Jt->body[1] == MBS_GROUND) continue;
            if (pass == 0) { n++; continue; }
            struct mbs_srotor *r = &m->srotor[m->nsrotor++];
            r->force = e;
            r->joint = F->joint;
            r->var = m->nvar++;
            r->ms = m->dim == 2 ? F->motor.J * F->motor.ratio * F->motor.ratio : 0;
        }
        if (pass == 0) {
            if (n == 0) return 0;
            m->srotor = calloc((size_t)n, sizeof *m->srotor);
            if (!m->srotor) return MBS_ENOMEM;
        }
    }
    return 0;
}

/* The rotor of a dc_motor on a spatial revolute or prismatic joint
 * between two moving bodies A (bodies[0], the stator's) and B turns about
 * the joint's axis a at w_A . a + N th' (th the joint's angle, or its
 * slide with N = 1 / lead).  In space w_A . a is the rate of no function
 * of the configuration, so no angle variable makes 1/2 J (w_A . a + N
 * th')^2 a constant form, as the plane's do (s_rotors); a configuration-
 * dependent mass block would enter every integrator's matrices.  Instead
 * the rotor is a body of its own in natural coordinates, which keeps the
 * mass matrix constant: two unit vectors e, f normal to a turning with it
 * (six variables, mass J / 2 on each: build.c s_mass), tied to A's u0, v0
 * and th by e = cos(N th) u0 + sin(N th) v0, f = -sin(N th) u0 + cos(N th)
 * v0 (six TRIG equations, ncs_equations.c s_space_rotor_eqs); th is a
 * variable too (a revolute joint's: one TRIG equation; a prismatic's: the
 * slide variable of s_slide_rotors).  Its kinetic energy 1/4 J (|e'|^2 +
 * |f'|^2) is that of a thin disk, polar inertia J about a (1/2 J (w_r .
 * a)^2, the gyroscopic moments included) and transverse J / 2 about the
 * joint's point, where its mass (in A's) sits: the least transverse
 * inertia of any rotor (J_x + J_y >= J_z).  Appends 1 + 6 (revolute) or 6
 * (prismatic) variables. */
static int s_space_rotors(mbs_model *m)
{
    const mbs_spec *s = m->spec;
    if (m->dim != 3) return 0;
    for (int pass = 0; pass < 2; pass++) {
        int n = 0;
        for (int e = 0; e < s->nforce; e++) {
            const mbs_force_spec *F = &s->forces[e];
            if (F->type != MBS_FORCE_DC_MOTOR || !(F->motor.J > 0) || F->joint < 0) continue;
            const mbs_joint_spec *Jt = &s->joints[F->joint];
            if (Jt->type != MBS_JOINT_REVOLUTE && Jt->type != MBS_JOINT_PRISMATIC) continue;
            if (Jt->body[0] == MBS_GROUND || Jt->body[1] == MBS_GROUND) continue;
            if (pass == 0) { n++; continue; }
            struct mbs_rotor3 *r = &m->rotor3[m->nrotor3++];
            r->force = e;
            r->joint = F->joint;
            r->J = F->motor.J;
            r->N = F->motor.ratio;
            r->slide = Jt->type == MBS_JOINT_PRISMATIC;
            r->var_th = -1;
            for (int k = 0; r->slide && k < m->nsrotor; k++)
                if (m->srotor[k].force == e) r->var_th = m->srotor[k].var;
            if (!r->slide) r->var_th = m->nvar++;
            r->var_e = m->nvar;
            m->nvar += 6;
        }
        if (pass == 0) {
            if (n == 0) return 0;
            m->rotor3 = calloc((size_t)n, sizeof *m->rotor3);
            if (!m->rotor3) return MBS_ENOMEM;
        }
    }
    return 0;
}

/* The spatial rotors' variables at t = 0 (s_space_rotors): th = 0 at the
 * joint's rate (v0 . u1' + v0' . u1, the equation's Phi_q v = 0 at th =
 * 0; a slide's rate is set with the slide variables), e = u0, f = v0 at
 * the rates u0' + N th' v0 and v0' - N th' u0. */
static void s_space_rotors_initial(mbs_model *m)
{
    for (int r = 0; r < m->nrotor3; r++) {
        const struct mbs_rotor3 *ro = &m->rotor3[r];
        const mbs_jgeom *g = &m->jg[ro->joint];
        double u0[3], v0[3], u1[3], du0[3], dv0[3], du1[3];
        mbs_avec_eval(m, &g->u0, m->x0, 0, u0);
        mbs_avec_eval(m, &g->v0, m->x0, 0, v0);
        mbs_avec_eval(m, &g->u1, m->x0, 0, u1);
        mbs_avec_eval(m, &g->u0, m->v0, 1, du0);
        mbs_avec_eval(m, &g->v0, m->v0, 1, dv0);
        mbs_avec_eval(m, &g->u1, m->v0, 1, du1);
        if (!ro->slide) {
            m->x0[ro->var_th] = 0;
            m->v0[ro->var_th] = v3dot(v0, du1) + v3dot(dv0, u1);
        }
        double w = ro->N * m->v0[ro->var_th];
        for (int k = 0; k < 3; k++) {
            m->x0[ro->var_e + k] = u0[k];
            m->x0[ro->var_e + 3 + k] = v0[k];
            m->v0[ro->var_e + k] = du0[k] + w * v0[k];
            m->v0[ro->var_e + 3 + k] = dv0[k] - w * u0[k];
        }
    }
}

/* ---- the build ------------------------------------------------------------------------ */

int mbs_ncs_build(mbs_model *m, mbs_errlist *err)
{
    const mbs_spec *s = m->spec;
    int dim = m->dim;
    m->nb = dim == 3 ? 12 : 4;
    m->nbody = s->nbody;
    m->body = calloc((size_t)(s->nbody > 0 ? s->nbody : 1), sizeof(mbs_body));
    s_candlist *cl = calloc((size_t)(s->nbody > 0 ? s->nbody : 1), sizeof(s_candlist));
    mbs_elim *el = calloc((size_t)(s->njoint > 0 ? s->njoint : 1), sizeof(mbs_elim));
    if (!m->body || !cl || !el) { free(cl); free(el); return MBS_ENOMEM; }

    /* characteristic length: extent of the geometry */
    double ext = 0;
    for (int b = 0; b < s->nbody; b++)
        for (int a = 0; a < dim; a++) ext = fmax(ext, fabs(s->bodies[b].com[a]));
    for (int j = 0; j < s->njoint; j++)
        for (int a = 0; a < dim; a++) ext = fmax(ext, fabs(s->joints[j].at[a]));
    m->length_scale = ext > 0 ? ext : 1.0;
    double tol = 1e-9 * m->length_scale;

    /* body frames at t = 0 */
    for (int b = 0; b < s->nbody; b++) {
        mbs_body *bd = &m->body[b];
        if (dim == 3) {
            quat_to_mat(s->bodies[b].quat, bd->R0);
        } else {
            double c = cos(s->bodies[b].angle), sn = sin(s->bodies[b].angle);
            bd->R0[0] = c; bd->R0[1] = -sn; bd->R0[3] = sn; bd->R0[4] = c; bd->R0[8] = 1;
        }
    }
    int rc = s_collect(m, cl, tol);
    for (int b = 0; b < s->nbody && !rc; b++) {
        s_choose(m, b, &cl[b]);
        s_pack(m, &m->body[b]);
        double E[9] = {0}, det;
        s_E0(m, &m->body[b], E);
        if (dim == 3) {
            det = m3inv(E, m->body[b].E0inv);
        } else {
            det = E[0] * E[3] - E[1] * E[2];
            if (det != 0) {
                double *A = m->body[b].E0inv;
                A[0] = E[3] / det; A[1] = -E[1] / det; A[2] = -E[2] / det; A[3] = E[0] / det;
            }
        }
        /* independence relative to the vectors' lengths (the product of E's
         * column norms bounds |det|): an absolute 1e-12 refused a 2D body
         * whose two points are 1 um apart (det = |e1|^2 = 1e-12) */
        double cn = 1;
        for (int c = 0; c < dim; c++) {
            double s2 = 0;
            for (int r = 0; r < dim; r++) s2 += E[r * dim + c] * E[r * dim + c];
            cn *= sqrt(s2);
        }
        if (!(fabs(det) >= 1e-12 * cn) || cn == 0) {
            mbs_err_add(err, "", "body '%s': could not build an independent natural-coordinate system",
                        s->bodies[b].name);
            rc = MBS_EINVAL;
        }
    }
    for (int b = 0; b < s->nbody && !rc; b++) s_body_mass(m, b);
    if (!rc) rc = mbs_eliminate(m, el, tol);
    for (int b = 0; b < s->nbody; b++) m->body[b].avar = -1;
    if (!rc) rc = s_rotors(m);

    /* equations: rigid-body, joints, drivers (ncs_equations.c) */
    if (!rc) rc = mbs_ncs_equations(m, el);
    if (!rc) {
        m->x0 = calloc((size_t)(m->nvar > 0 ? m->nvar : 1), sizeof(double));
        m->v0 = calloc((size_t)(m->nvar > 0 ? m->nvar : 1), sizeof(double));
        if (!m->x0 || !m->v0) rc = MBS_ENOMEM;
    }
    if (!rc) {
        for (int b = 0; b < m->nbody; b++)
            for (int k = 0; k < m->nb; k++)
                if (m->body[b].var[k] >= 0) m->x0[m->body[b].var[k]] = m->body[b].q0[k];
        s_initial_velocities(m);
        /* the angle variables: 0 at t = 0, at the body's angular velocity */
        for (int b = 0; b < m->nbody; b++)
            if (m->body[b].avar >= 0) m->v0[m->body[b].avar] = s->bodies[b].angular_velocity[2];
        /* the slide variables: 0 at t = 0, at the joint's sliding rate
         * ax_A . (v_B(P) - v_A(P)) (d = 0 there) */
        for (int r = 0; r < m->nsrotor; r++) {
            const mbs_jgeom *g = &m->jg[m->srotor[r].joint];
            double ax[3] = {0}, dv[3] = {0};
            mbs_avec_eval(m, &g->ax, m->x0, 0, ax);
            mbs_avec_eval(m, &g->d, m->v0, 1, dv);
            m->v0[m->srotor[r].var] = ax[0] * dv[0] + ax[1] * dv[1] + ax[2] * dv[2];
        }
        s_space_rotors_initial(m);
    }
    for (int b = 0; b < s->nbody; b++) free(cl[b].c);
    free(cl);
    free(el);
    return rc;
}

/* ---- force elements ------------------------------------------------------------------ */

/* The variables of body b (none for the ground) appended to f->vars once
 * each: what a force element (built by run/build.c) or a contact pair
 * (contact.c) acts on. */
void mbs_fel_add_body(const mbs_model *m, mbs_fel *f, int b)
{
    if (b < 0) return;
    for (int s = 0; s < m->nb; s++) {
        int v = m->body[b].var[s], k = 0;
        if (v < 0) continue;
        while (k < f->nvar && f->vars[k] != v) k++;
        if (k == f->nvar && f->nvar < 2 * MBS_NB_MAX) f->vars[f->nvar++] = v;
    }
}
