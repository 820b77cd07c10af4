/*
 * tree.c - tree kinematics, articulated-body forward dynamics and circuit
 * equations of the relative-coordinate formulation (tree.h).
 */
#include "mbs/formulation/relative/tree.h"

#include "mbs/actuator/dcmotor.h"
#include "mbs/linalg/vec.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- small helpers ------------------------------------------------------------------- */

/* y = R x (trans 0) or R^T x (trans 1); y may alias x */
static void s_rot(const double R[9], int trans, const double x[3], double y[3])
{
    double o[3];
    for (int i = 0; i < 3; i++)
        o[i] = trans ? R[i] * x[0] + R[3 + i] * x[1] + R[6 + i] * x[2]
                     : R[3 * i] * x[0] + R[3 * i + 1] * x[1] + R[3 * i + 2] * x[2];
    v3copy(o, y);
}

/* C = A B (trans_a: A^T B) */
static void s_mm(const double A[9], int trans_a, const double B[9], double C[9])
{
    double o[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double acc = 0;
            for (int k = 0; k < 3; k++) acc += (trans_a ? A[3 * k + i] : A[3 * i + k]) * B[3 * k + j];
            o[3 * i + j] = acc;
        }
    memcpy(C, o, sizeof o);
}

/* Rotation by angle th about the unit vector u (Rodrigues). */
static void s_axis_rot(const double u[3], double th, double R[9])
{
    double c = cos(th), s = sin(th), k = 1 - c;
    R[0] = c + k * u[0] * u[0];        R[1] = k * u[0] * u[1] - s * u[2]; R[2] = k * u[0] * u[2] + s * u[1];
    R[3] = k * u[1] * u[0] + s * u[2]; R[4] = c + k * u[1] * u[1];        R[5] = k * u[1] * u[2] - s * u[0];
    R[6] = k * u[2] * u[0] - s * u[1]; R[7] = k * u[2] * u[1] + s * u[0]; R[8] = c + k * u[2] * u[2];
}

/* Two unit vectors completing u to a right-handed orthonormal triad. */
static void s_perp(const double u[3], double n1[3], double n2[3])
{
    double a[3] = {0, 0, 0};
    int k = fabs(u[0]) <= fabs(u[1]) && fabs(u[0]) <= fabs(u[2]) ? 0 : fabs(u[1]) <= fabs(u[2]) ? 1 : 2;
    a[k] = 1;
    double d = v3dot(a, u);
    for (int i = 0; i < 3; i++) a[i] -= d * u[i];
    v3unit(a, n1);
    v3cross(u, n1, n2);
}

/* The angle of the rotation R about the unit vector u (R a rotation about u). */
static double s_angle_about(const double R[9], const double u[3])
{
    double a[3], b[3], Ra[3], ua[3];
    s_perp(u, a, b);
    s_rot(R, 0, a, Ra);
    v3cross(u, a, ua);
    return atan2(v3dot(ua, Ra), v3dot(a, Ra));
}

static const double s_I3[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
static const mbs_twist s_zero_twist = {{0, 0, 0}, {0, 0, 0}};

/* The 6-vector of a twist or wrench and back (order w v / n f). */
static void s_t6(const mbs_twist *t, double x[6]) { v3copy(t->w, x); v3copy(t->v, x + 3); }
static void s_w6(const mbs_wrench *f, double x[6]) { v3copy(f->n, x); v3copy(f->f, x + 3); }
static mbs_wrench s_6w(const double x[6])
{
    mbs_wrench f;
    v3copy(x, f.n); v3copy(x + 3, f.f);
    return f;
}

/* The wrench I t of a 6 x 6 (articulated) inertia. */
static mbs_wrench s_apply6(const double I[36], const mbs_twist *t)
{
    double x[6], y[6];
    s_t6(t, x);
    for (int i = 0; i < 6; i++) {
        double acc = 0;
        for (int j = 0; j < 6; j++) acc += I[6 * i + j] * x[j];
        y[i] = acc;
    }
    return s_6w(y);
}

/* ---- what is supported ----------------------------------------------------------------- */

int mbs_rtree_supported(const mbs_spec *s, mbs_errlist *err)
{
    int n0 = err ? err->n + err->dropped : 0, bad = 0;
    const mbs_solver_spec *o = &s->solver;
    if (o->analysis != MBS_ANALYSIS_DYNAMICS) {
        mbs_err_add(err, "/solver/analysis", "solver.formulation \"relative\" runs the dynamics analysis only (for "
                    "now); use the natural formulation for statics and kinematics");
        bad = 1;
    }
    if (s->ndriver > 0) {
        mbs_err_add(err, "/drivers", "solver.formulation \"relative\" does not run drivers yet (%d given); use the "
                    "natural formulation", s->ndriver);
        bad = 1;
    }
    if (s->ncontact > 0) {
        mbs_err_add(err, "/contacts", "solver.formulation \"relative\" does not run contacts yet (%d pairs); use the "
                    "natural formulation", s->ncontact);
        bad = 1;
    }
    mbs_sysgraph g;
    int have_g = mbs_sysgraph_build(s, &g) == 0;
    for (int j = 0; j < s->njoint; j++) {
        const mbs_joint_spec *J = &s->joints[j];
        char ptr[64];
        snprintf(ptr, sizeof ptr, "/joints/%d", j);
        if (J->clearance_model != MBS_CLEARANCE_NONE) {
            mbs_err_add(err, ptr, "joint '%s': solver.formulation \"relative\" does not run joints with clearance "
                        "yet; use the natural formulation", J->name);
            bad = 1;
        }
        if (J->damping > 0 && J->type != MBS_JOINT_REVOLUTE && J->type != MBS_JOINT_PRISMATIC) {
            mbs_err_add(err, ptr, "joint '%s': solver.formulation \"relative\" damps revolute and prismatic joints "
                        "only (for now)", J->name);
            bad = 1;
        }
    }
    for (int e = 0; e < s->nforce; e++) {
        const mbs_force_spec *F = &s->forces[e];
        char ptr[64];
        snprintf(ptr, sizeof ptr, "/forces/%d", e);
        if (F->type == MBS_FORCE_DC_MOTOR) {
            int jt = F->joint >= 0 ? (int)s->joints[F->joint].type : -1;
            if (F->motor.L > 0 || F->motor.J > 0 || (jt != MBS_JOINT_REVOLUTE && jt != MBS_JOINT_PRISMATIC)) {
                mbs_err_add(err, ptr, "dc_motor '%s': solver.formulation \"relative\" runs dc motors without "
                            "inductance and rotor_inertia on revolute or prismatic joints only (for now); use the "
                            "natural formulation", F->name);
                bad = 1;
            }
        }
        if (F->type == MBS_FORCE_ROTATIONAL_SPRING_DAMPER) {
            int j = F->joint;
            if (j < 0 || s->joints[j].type != MBS_JOINT_REVOLUTE || (have_g && !g.branch[j])) {
                mbs_err_add(err, ptr, "rotational spring '%s': solver.formulation \"relative\" needs its joint to be "
                            "a revolute joint of the spanning tree, not a chord (for now)", F->name);
                bad = 1;
            }
        }
    }
    if (have_g) mbs_sysgraph_free(&g);
    (void)n0;
    return bad ? MBS_EINVAL : 0;
}

/* ---- build ---------------------------------------------------------------------------- */

static int s_add_node(mbs_rtree *t, mbs_rnode_kind kind, int parent, int joint, const double p[3], const double u[3])
{
    mbs_rnode *nd = &t->node[t->nnode];
    memset(nd, 0, sizeof *nd);
    nd->kind = kind;
    nd->parent = parent;
    nd->body = -1;
    nd->joint = joint;
    nd->coord = kind == MBS_RN_RIGID ? -1 : t->n++;
    if (p) v3copy(p, nd->p);
    if (u) v3unit(u, nd->u);
    return t->nnode++;
}

/* Nodes of a body's joint to its parent node pn (see tree.h). */
static int s_joint_nodes(mbs_rtree *t, int b, int pn)
{
    const mbs_spec *s = t->spec;
    const mbs_body_spec *B = &s->bodies[b];
    static const double ex[3] = {1, 0, 0}, ey[3] = {0, 1, 0}, ez[3] = {0, 0, 1};
    int j = t->g.parent_joint[b], last = pn;
    if (t->g.parent[b] == -2) {
        /* a floating root: translations, then rotations about its centre of mass */
        last = s_add_node(t, MBS_RN_PRISMATIC, -1, -1, B->com, ex);
        last = s_add_node(t, MBS_RN_PRISMATIC, last, -1, B->com, ey);
        if (t->dim == 3) last = s_add_node(t, MBS_RN_PRISMATIC, last, -1, B->com, ez);
        if (t->dim == 3) {
            last = s_add_node(t, MBS_RN_REVOLUTE, last, -1, B->com, ex);
            last = s_add_node(t, MBS_RN_REVOLUTE, last, -1, B->com, ey);
            t->gimbal[t->node[last].coord] = 1;
        }
        return s_add_node(t, MBS_RN_REVOLUTE, last, -1, B->com, ez);
    }
    const mbs_joint_spec *J = &s->joints[j];
    double ax[3] = {0, 0, 1};
    if (J->type == MBS_JOINT_PRISMATIC || (J->type == MBS_JOINT_REVOLUTE && t->dim == 3) ||
        J->type == MBS_JOINT_CYLINDRICAL)
        v3copy(J->axis, ax);
    if (t->dim == 2) ax[2] = J->type == MBS_JOINT_PRISMATIC ? 0 : ax[2];
    switch (J->type) {
    case MBS_JOINT_REVOLUTE: return s_add_node(t, MBS_RN_REVOLUTE, pn, j, J->at, ax);
    case MBS_JOINT_PRISMATIC: return s_add_node(t, MBS_RN_PRISMATIC, pn, j, J->at, ax);
    case MBS_JOINT_CYLINDRICAL:
        last = s_add_node(t, MBS_RN_PRISMATIC, pn, j, J->at, ax);
        return s_add_node(t, MBS_RN_REVOLUTE, last, j, J->at, ax);
    case MBS_JOINT_UNIVERSAL: {
        int first = J->body[0] == b ? 1 : 0; /* the axis fixed in the parent first */
        last = s_add_node(t, MBS_RN_REVOLUTE, pn, j, J->at, J->axes[first]);
        return s_add_node(t, MBS_RN_REVOLUTE, last, j, J->at, J->axes[1 - first]);
    }
    case MBS_JOINT_SPHERICAL:
        last = s_add_node(t, MBS_RN_REVOLUTE, pn, j, J->at, ex);
        last = s_add_node(t, MBS_RN_REVOLUTE, last, j, J->at, ey);
        t->gimbal[t->node[last].coord] = 1;
        return s_add_node(t, MBS_RN_REVOLUTE, last, j, J->at, ez);
    default: /* fixed */
        return s_add_node(t, MBS_RN_RIGID, pn, j, J->at, ax);
    }
}

static int s_joint_nodes_count(const mbs_spec *s, const mbs_sysgraph *g, int b)
{
    if (g->parent[b] == -2) return s->dim == 3 ? 6 : 3;
    switch (s->joints[g->parent_joint[b]].type) {
    case MBS_JOINT_CYLINDRICAL:
    case MBS_JOINT_UNIVERSAL: return 2;
    case MBS_JOINT_SPHERICAL: return 3;
    default: return 1;
    }
}

/* Circuit-equation vectors. */
static mbs_rvec s_vec(int body, const double r[3])
{
    mbs_rvec v;
    memset(&v, 0, sizeof v);
    v.n = 1;
    v.t[0].kind = 0;
    v.t[0].body = body;
    v3copy(r, v.t[0].r);
    return v;
}

static mbs_rvec s_pdiff(int b1, const double r1[3], int b0, const double r0[3])
{
    mbs_rvec v;
    memset(&v, 0, sizeof v);
    v.n = 2;
    v.t[0].kind = v.t[1].kind = 1;
    v.t[0].body = b1; v3copy(r1, v.t[0].r);
    v.t[1].body = b0; v3copy(r0, v.t[1].r);
    return v;
}

/* The reference value of a vector (all bodies at q = 0). */
static void s_vec_ref(const mbs_rvec *v, double x[3])
{
    if (v->n == 1) { v3copy(v->t[0].r, x); return; }
    v3sub(v->t[0].r, v->t[1].r, x);
}

static void s_add_eq(mbs_rtree *t, int j, mbs_rvec a, mbs_rvec b, int distance)
{
    mbs_req *e = &t->eq[t->neq++];
    e->a = a;
    e->b = b;
    e->joint = j;
    double xa[3], xb[3];
    s_vec_ref(&a, xa);
    s_vec_ref(&b, xb);
    const mbs_joint_spec *J = &t->spec->joints[j];
    if (distance) {
        double d[3];
        v3sub(J->points[1], J->points[0], d);
        double L = J->has_length ? J->length : v3norm(d);
        e->c = L * L;
    } else {
        e->c = v3dot(xa, xb); /* holds at the input configuration: 0 for the joints' perpendiculars */
    }
}

/* The circuit equations of chord j (see tree.h). */
static void s_chord_eqs(mbs_rtree *t, int j)
{
    const mbs_joint_spec *J = &t->spec->joints[j];
    int A = J->body[0], B = J->body[1], dim = t->dim;
    static const double E[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    double u[3] = {0, 0, 1}, n1[3], n2[3];
    if (J->type == MBS_JOINT_PRISMATIC || J->type == MBS_JOINT_CYLINDRICAL || (J->type == MBS_JOINT_REVOLUTE && dim == 3))
        v3unit(J->axis, u);
    if (dim == 2) {
        u[2] = J->type == MBS_JOINT_PRISMATIC ? 0 : u[2];
        n1[0] = -u[1]; n1[1] = u[0]; n1[2] = 0; /* in-plane normal of a prismatic axis */
        n2[0] = n2[1] = 0; n2[2] = 1;
    } else {
        s_perp(u, n1, n2);
    }
    mbs_rvec pd = s_pdiff(B, J->at, A, J->at);
    int point = J->type == MBS_JOINT_REVOLUTE || J->type == MBS_JOINT_SPHERICAL || J->type == MBS_JOINT_UNIVERSAL ||
                J->type == MBS_JOINT_FIXED;
    if (point)
        for (int k = 0; k < dim; k++) s_add_eq(t, j, s_vec(MBS_GROUND, E[k]), pd, 0);
    switch (J->type) {
    case MBS_JOINT_REVOLUTE:
        if (dim == 3) {
            s_add_eq(t, j, s_vec(A, u), s_vec(B, n1), 0);
            s_add_eq(t, j, s_vec(A, u), s_vec(B, n2), 0);
        }
        break;
    case MBS_JOINT_UNIVERSAL:
        s_add_eq(t, j, s_vec(A, J->axes[0]), s_vec(B, J->axes[1]), 0);
        break;
    case MBS_JOINT_FIXED:
        s_add_eq(t, j, s_vec(A, E[0]), s_vec(B, E[1]), 0);
        if (dim == 3) {
            s_add_eq(t, j, s_vec(A, E[0]), s_vec(B, E[2]), 0);
            s_add_eq(t, j, s_vec(A, E[1]), s_vec(B, E[2]), 0);
        }
        break;
    case MBS_JOINT_PRISMATIC:
    case MBS_JOINT_CYLINDRICAL:
        s_add_eq(t, j, s_vec(A, n1), pd, 0);
        if (dim == 3) s_add_eq(t, j, s_vec(A, n2), pd, 0);
        s_add_eq(t, j, s_vec(A, n1), s_vec(B, u), 0);
        if (dim == 3) s_add_eq(t, j, s_vec(A, n2), s_vec(B, u), 0);
        if (dim == 3 && J->type == MBS_JOINT_PRISMATIC) s_add_eq(t, j, s_vec(A, n1), s_vec(B, n2), 0);
        break;
    case MBS_JOINT_DISTANCE: {
        mbs_rvec d = s_pdiff(B, J->points[1], A, J->points[0]);
        s_add_eq(t, j, d, d, 1);
        break;
    }
    default: /* spherical: the point only */
        break;
    }
}

void mbs_rtree_free(mbs_rtree *t)
{
    free(t->node); free(t->body_node); free(t->inertia); free(t->eq); free(t->gimbal);
    mbs_sysgraph_free(&t->g);
    memset(t, 0, sizeof *t);
}

int mbs_rtree_build(const mbs_spec *s, mbs_rtree *t, mbs_errlist *err)
{
    memset(t, 0, sizeof *t);
    t->spec = s;
    t->dim = s->dim;
    if (mbs_sysgraph_build(s, &t->g) != 0) return MBS_ENOMEM;
    int nb = s->nbody, nnode = 0;
    for (int b = 0; b < nb; b++) nnode += s_joint_nodes_count(s, &t->g, b);
    int neq = 0;
    for (int c = 0; c < t->g.nchord; c++) {
        const mbs_joint_spec *J = &s->joints[t->g.chords[c]];
        neq += J->type == MBS_JOINT_DISTANCE ? 1 : (s->dim == 3 ? 6 : 3) - mbs_joint_dof(J->type, s->dim);
    }
    t->node = calloc((size_t)nnode + 1, sizeof *t->node);
    t->body_node = calloc((size_t)nb + 1, sizeof(int));
    t->inertia = calloc((size_t)nb + 1, sizeof *t->inertia);
    t->eq = calloc((size_t)neq + 1, sizeof *t->eq);
    t->gimbal = calloc((size_t)nnode + 1, sizeof(int));
    if (!t->node || !t->body_node || !t->inertia || !t->eq || !t->gimbal) { mbs_rtree_free(t); return MBS_ENOMEM; }
    /* nodes, parents first (the graph's breadth-first order) */
    for (int k = 0; k < nb; k++) {
        int b = t->g.order[k], pb = t->g.parent[b];
        int pn = pb >= 0 ? t->body_node[pb] : -1;
        int last = s_joint_nodes(t, b, pn);
        t->node[last].body = b;
        t->body_node[b] = last;
    }
    /* inertias about the reference origin, reference (global t = 0) axes */
    for (int b = 0; b < nb; b++) {
        const mbs_body_spec *B = &s->bodies[b];
        mbs_rbi *I = &t->inertia[b];
        I->m = B->mass;
        v3copy(B->com, I->c);
        if (s->dim == 2) I->c[2] = 0;
        memset(I->Ic, 0, sizeof I->Ic);
        if (s->dim == 3) {
            const double *in = B->inertia;
            double Ib[9] = {in[0], in[3], in[4], in[3], in[1], in[5], in[4], in[5], in[2]}, R0[9], T[9];
            quat_to_mat(B->quat, R0);
            s_mm(R0, 0, Ib, T);
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++)
                    I->Ic[3 * i + j] = T[3 * i] * R0[3 * j] + T[3 * i + 1] * R0[3 * j + 1] + T[3 * i + 2] * R0[3 * j + 2];
        } else {
            I->Ic[8] = B->inertia[0];
        }
    }
    for (int c = 0; c < t->g.nchord; c++) s_chord_eqs(t, t->g.chords[c]);
    (void)err;
    return 0;
}

int mbs_rtree_ws_new(const mbs_rtree *t, mbs_rtree_ws *w)
{
    memset(w, 0, sizeof *w);
    size_t nn = (size_t)t->nnode + 1, n = (size_t)t->n + 1, m = (size_t)t->neq + 1, nb = (size_t)t->spec->nbody + 1;
    w->R = malloc(sizeof(double) * 9 * nn);
    w->p = malloc(sizeof(double) * 3 * nn);
    w->S = calloc(nn, sizeof(mbs_twist));
    w->V = calloc(nn, sizeof(mbs_twist));
    w->c = calloc(nn, sizeof(mbs_twist));
    w->A = calloc(nn, sizeof(mbs_twist));
    w->pA = calloc(nn, sizeof(mbs_wrench));
    w->fext = calloc(nb, sizeof(mbs_wrench));
    w->IA = malloc(sizeof(double) * 36 * nn);
    w->U = calloc(6 * nn, sizeof(double));
    w->D = calloc(nn, sizeof(double));
    w->uu = calloc(nn, sizeof(double));
    w->phi = calloc(m, sizeof(double));
    w->phid = calloc(m, sizeof(double));
    w->bias = calloc(m, sizeof(double));
    w->J = calloc(m * n, sizeof(double));
    w->Y = calloc(m * n, sizeof(double));
    w->K = calloc(m * m, sizeof(double));
    w->rhs = calloc(m, sizeof(double));
    w->lam = calloc(m, sizeof(double));
    w->qdd0 = calloc(n, sizeof(double));
    w->tau = calloc(n, sizeof(double));
    w->jq = calloc(6 * n, sizeof(double));
    if (!w->R || !w->p || !w->S || !w->V || !w->c || !w->A || !w->pA || !w->fext || !w->IA || !w->U || !w->D ||
        !w->uu || !w->phi || !w->phid || !w->bias || !w->J || !w->Y || !w->K || !w->rhs || !w->lam || !w->qdd0 ||
        !w->tau || !w->jq) {
        mbs_rtree_ws_free(w);
        return MBS_ENOMEM;
    }
    w->nchord_eq = t->neq;
    return 0;
}

void mbs_rtree_ws_free(mbs_rtree_ws *w)
{
    free(w->R); free(w->p); free(w->S); free(w->V); free(w->c); free(w->A); free(w->pA); free(w->fext);
    free(w->IA); free(w->U); free(w->D); free(w->uu); free(w->phi); free(w->phid); free(w->bias); free(w->J);
    free(w->Y); free(w->K); free(w->rhs); free(w->lam); free(w->qdd0); free(w->tau); free(w->jq);
    memset(w, 0, sizeof *w);
}

/* ---- pass 1: kinematics -------------------------------------------------------------- */

void mbs_rtree_kinematics(const mbs_rtree *t, mbs_rtree_ws *w, const double *q, const double *u)
{
    static const double zero3[3] = {0, 0, 0};
    w->q = q;
    for (int i = 0; i < t->nnode; i++) {
        const mbs_rnode *nd = &t->node[i];
        const double *Rl = nd->parent >= 0 ? w->R + 9 * nd->parent : s_I3;
        const double *pl = nd->parent >= 0 ? w->p + 3 * nd->parent : zero3;
        mbs_twist Vl = nd->parent >= 0 ? w->V[nd->parent] : s_zero_twist;
        double *R = w->R + 9 * i, *p = w->p + 3 * i;
        double uw[3], pw[3], RG[9], pG[3];
        s_rot(Rl, 0, nd->u, uw);
        s_rot(Rl, 0, nd->p, pw);
        for (int k = 0; k < 3; k++) pw[k] += pl[k];
        double qi = nd->coord >= 0 ? q[nd->coord] : 0, ui = nd->coord >= 0 && u ? u[nd->coord] : 0;
        /* the joint's motion G in the parent's reference coordinates, and its axis in the world */
        if (nd->kind == MBS_RN_REVOLUTE) {
            s_axis_rot(nd->u, qi, RG);
            double Rp[3];
            s_rot(RG, 0, nd->p, Rp);
            v3sub(nd->p, Rp, pG);
            w->S[i] = mbs_axis_revolute(pw, uw);
        } else if (nd->kind == MBS_RN_PRISMATIC) {
            memcpy(RG, s_I3, sizeof RG);
            v3scale(qi, nd->u, pG);
            w->S[i] = mbs_axis_prismatic(uw);
        } else {
            memcpy(RG, s_I3, sizeof RG);
            pG[0] = pG[1] = pG[2] = 0;
            w->S[i] = s_zero_twist;
        }
        /* pose T_i = T_parent G */
        s_mm(Rl, 0, RG, R);
        s_rot(Rl, 0, pG, p);
        for (int k = 0; k < 3; k++) p[k] += pl[k];
        /* twist and velocity-product term c_i = V_i x S_i u_i */
        mbs_twist Su = mbs_twist_axpy(ui, &w->S[i], &s_zero_twist);
        w->V[i] = mbs_twist_axpy(1.0, &Su, &Vl);
        w->c[i] = mbs_twist_cross(&w->V[i], &Su);
    }
}

void mbs_rtree_body(const mbs_rtree *t, const mbs_rtree_ws *w, int b, double R[9], double p[3], mbs_twist *V,
                    mbs_twist *A)
{
    int i = b >= 0 ? t->body_node[b] : -1;
    if (R) memcpy(R, i >= 0 ? w->R + 9 * i : s_I3, sizeof(double) * 9);
    if (p) {
        if (i >= 0) v3copy(w->p + 3 * i, p); else p[0] = p[1] = p[2] = 0;
    }
    if (V) *V = i >= 0 ? w->V[i] : s_zero_twist;
    if (A) *A = i >= 0 ? w->A[i] : s_zero_twist;
}

/* ---- applied forces ------------------------------------------------------------------ */

/* World position and velocity of body b's point with reference coordinates r. */
static void s_point(const mbs_rtree *t, const mbs_rtree_ws *w, int b, const double r[3], double x[3], double v[3])
{
    double R[9], p[3];
    mbs_twist V;
    double rr[3] = {r[0], r[1], t->dim == 3 ? r[2] : 0};
    mbs_rtree_body(t, w, b, R, p, &V, NULL);
    s_rot(R, 0, rr, x);
    for (int k = 0; k < 3; k++) x[k] += p[k];
    if (v) mbs_twist_point_velocity(&V, x, v);
}

/* Add a force F at world point x on body b (nothing for the ground). */
static void s_force_at(const mbs_rtree *t, mbs_rtree_ws *w, int b, const double x[3], const double F[3])
{
    (void)t;
    if (b < 0) return;
    double n[3];
    v3cross(x, F, n);
    for (int k = 0; k < 3; k++) { w->fext[b].n[k] += n[k]; w->fext[b].f[k] += F[k]; }
}

static void s_torque_on(mbs_rtree_ws *w, int b, const double tau[3])
{
    if (b < 0) return;
    for (int k = 0; k < 3; k++) w->fext[b].n[k] += tau[k];
}

/* A joint's measure rate (revolute: the angle of body[1] relative to
 * body[0] about the axis fixed in body[0]; prismatic: the slide of body[1]'s
 * joint point along it), its world axis, and the two joint points. */
static double s_joint_rate(const mbs_rtree *t, const mbs_rtree_ws *w, int j, double ax[3], double x0[3],
                           double x1[3])
{
    const mbs_joint_spec *J = &t->spec->joints[j];
    double R0[9], p0[3], u[3] = {0, 0, 1};
    mbs_twist V0, V1;
    mbs_rtree_body(t, w, J->body[0], R0, p0, &V0, NULL);
    mbs_rtree_body(t, w, J->body[1], NULL, NULL, &V1, NULL);
    if (J->type == MBS_JOINT_PRISMATIC || t->dim == 3) v3unit(J->axis, u);
    if (t->dim == 2 && J->type == MBS_JOINT_PRISMATIC) u[2] = 0;
    s_rot(R0, 0, u, ax);
    double v0[3], v1[3];
    s_point(t, w, J->body[0], J->at, x0, v0);
    s_point(t, w, J->body[1], J->at, x1, v1);
    if (J->type == MBS_JOINT_PRISMATIC) {
        double d[3], dd[3], wa[3];
        v3sub(x1, x0, d);
        v3sub(v1, v0, dd);
        v3cross(V0.w, ax, wa);
        return v3dot(dd, ax) + v3dot(d, wa);
    }
    double dw[3];
    v3sub(V1.w, V0.w, dw);
    return v3dot(dw, ax);
}

/* Equal and opposite load f along joint j's coordinate (torque about the
 * axis, or force along it at the joint points): + on body[1]. */
static void s_joint_load(const mbs_rtree *t, mbs_rtree_ws *w, int j, double f, const double ax[3], const double x0[3],
                         const double x1[3])
{
    const mbs_joint_spec *J = &t->spec->joints[j];
    double F[3];
    v3scale(f, ax, F);
    if (J->type == MBS_JOINT_PRISMATIC) {
        s_force_at(t, w, J->body[1], x1, F);
        v3scale(-f, ax, F);
        s_force_at(t, w, J->body[0], x0, F);
        return;
    }
    s_torque_on(w, J->body[1], F);
    v3scale(-f, ax, F);
    s_torque_on(w, J->body[0], F);
}

/* Body b's body-frame vector vb (the body's input axes) in the world now. */
static void s_body_dir(const mbs_rtree *t, const mbs_rtree_ws *w, int b, const double vb[3], double g[3])
{
    const mbs_body_spec *B = &t->spec->bodies[b];
    double R0[9], R[9], r[3];
    if (t->dim == 3) {
        quat_to_mat(B->quat, R0);
    } else {
        double c = cos(B->angle), s = sin(B->angle);
        double R2[9] = {c, -s, 0, s, c, 0, 0, 0, 1};
        memcpy(R0, R2, sizeof R0);
    }
    s_rot(R0, 0, vb, r);
    mbs_rtree_body(t, w, b, R, NULL, NULL, NULL);
    s_rot(R, 0, r, g);
}

void mbs_rtree_applied(const mbs_rtree *t, mbs_rtree_ws *w, double time)
{
    const mbs_spec *s = t->spec;
    int dim = t->dim;
    memset(w->fext, 0, sizeof(mbs_wrench) * (size_t)(s->nbody > 0 ? s->nbody : 1));
    memset(w->tau, 0, sizeof(double) * (size_t)(t->n > 0 ? t->n : 1));
    for (int e = 0; e < s->nforce; e++) {
        const mbs_force_spec *F = &s->forces[e];
        switch (F->type) {
        case MBS_FORCE_SPRING_DAMPER: {
            double x0[3], x1[3], v0[3], v1[3], d[3], dv[3], dir[3];
            s_point(t, w, F->body[0], F->points[0], x0, v0);
            s_point(t, w, F->body[1], F->points[1], x1, v1);
            v3sub(x1, x0, d);
            v3sub(v1, v0, dv);
            double L = v3norm(d);
            if (L == 0) break;
            v3scale(1.0 / L, d, dir);
            double r[3];
            v3sub(F->points[1], F->points[0], r);
            if (dim == 2) r[2] = 0;
            double L0 = F->has_free_length ? F->free_length : v3norm(r);
            double T = F->stiffness * (L - L0) + F->damping * v3dot(dv, dir) + F->preload;
            double f[3];
            v3scale(-T, dir, f); /* tension pulls point 1 towards point 0 */
            s_force_at(t, w, F->body[1], x1, f);
            v3scale(T, dir, f);
            s_force_at(t, w, F->body[0], x0, f);
            break;
        }
        case MBS_FORCE_POINT_FORCE: {
            double val[3] = {0, 0, 0}, g[3], x[3];
            for (int i = 0; i < dim; i++) val[i] = mbs_fn_eval(&F->value[i], time, NULL, NULL);
            if (F->body_frame) s_body_dir(t, w, F->body[0], val, g); else v3copy(val, g);
            s_point(t, w, F->body[0], F->at, x, NULL);
            s_force_at(t, w, F->body[0], x, g);
            break;
        }
        case MBS_FORCE_TORQUE: {
            double val[3] = {0, 0, 0}, g[3] = {0, 0, 0};
            if (dim == 2) {
                g[2] = mbs_fn_eval(&F->value[0], time, NULL, NULL);
            } else {
                for (int i = 0; i < 3; i++) val[i] = mbs_fn_eval(&F->value[i], time, NULL, NULL);
                if (F->body_frame) s_body_dir(t, w, F->body[0], val, g); else v3copy(val, g);
            }
            s_torque_on(w, F->body[0], g);
            break;
        }
        case MBS_FORCE_ROTATIONAL_SPRING_DAMPER: {
            /* a tree revolute joint (mbs_rtree_supported): its angle is the
             * node's coordinate, signed from body[0] to body[1] */
            const mbs_joint_spec *J = &s->joints[F->joint];
            int b1 = J->body[1], child = b1 >= 0 && t->g.parent_joint[b1] == F->joint ? b1 : J->body[0];
            int node = t->body_node[child];
            double sg = child == b1 ? 1.0 : -1.0;
            double ax[3], x0[3], x1[3];
            double rate = s_joint_rate(t, w, F->joint, ax, x0, x1);
            double ang = sg * w->q[t->node[node].coord];
            s_joint_load(t, w, F->joint, -F->stiffness * (ang - F->free_angle) - F->damping * rate, ax, x0, x1);
            break;
        }
        case MBS_FORCE_DC_MOTOR: {
            double ax[3], x0[3], x1[3];
            double rate = s_joint_rate(t, w, F->joint, ax, x0, x1);
            mbs_dcmotor_state st;
            mbs_dcmotor_eval(&F->motor, mbs_fn_eval(&F->value[0], time, NULL, NULL), 0, rate, &st);
            s_joint_load(t, w, F->joint, st.torque, ax, x0, x1);
            break;
        }
        default:
            break;
        }
    }
    for (int j = 0; j < s->njoint; j++) {
        double c = s->joints[j].damping;
        if (c <= 0) continue;
        double ax[3], x0[3], x1[3];
        double rate = s_joint_rate(t, w, j, ax, x0, x1);
        s_joint_load(t, w, j, -c * rate, ax, x0, x1);
    }
}

/* ---- passes 2 and 3: the articulated-body recursion ---------------------------------- */

/* The body inertia of node i in world coordinates as a 6 x 6 matrix. */
static void s_world_inertia(const mbs_rtree *t, const mbs_rtree_ws *w, int i, double M[36], mbs_rbi *Iw)
{
    const mbs_rbi *I = &t->inertia[t->node[i].body];
    const double *R = w->R + 9 * i, *p = w->p + 3 * i;
    Iw->m = I->m;
    s_rot(R, 0, I->c, Iw->c);
    for (int k = 0; k < 3; k++) Iw->c[k] += p[k];
    double T[9];
    s_mm(R, 0, I->Ic, T);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) Iw->Ic[3 * a + b] = T[3 * a] * R[3 * b] + T[3 * a + 1] * R[3 * b + 1] + T[3 * a + 2] * R[3 * b + 2];
    mbs_rbi_matrix(Iw, M);
}

int mbs_rtree_forward(const mbs_rtree *t, mbs_rtree_ws *w, double *qdd)
{
    int nn = t->nnode;
    /* body inertias and bias wrenches V x* I V - f_ext */
    for (int i = 0; i < nn; i++) {
        double *IA = w->IA + 36 * i;
        int b = t->node[i].body;
        if (b < 0) {
            memset(IA, 0, sizeof(double) * 36);
            memset(&w->pA[i], 0, sizeof(mbs_wrench));
            continue;
        }
        mbs_rbi Iw;
        s_world_inertia(t, w, i, IA, &Iw);
        mbs_wrench h = mbs_rbi_apply(&Iw, &w->V[i]);
        mbs_wrench g = mbs_twist_cross_wrench(&w->V[i], &h);
        w->pA[i] = mbs_wrench_axpy(-1.0, &w->fext[b], &g);
    }
    /* inwards: project on each axis, hand the rest to the parent */
    for (int i = nn - 1; i >= 0; i--) {
        const mbs_rnode *nd = &t->node[i];
        double *IA = w->IA + 36 * i;
        mbs_wrench Ic = s_apply6(IA, &w->c[i]);
        mbs_wrench pa = mbs_wrench_axpy(1.0, &Ic, &w->pA[i]);
        double Ia[36];
        memcpy(Ia, IA, sizeof Ia);
        if (nd->coord >= 0) {
            mbs_wrench U = s_apply6(IA, &w->S[i]);
            double D = mbs_power(&w->S[i], &U);
            if (!(D > 0) || !isfinite(D)) return MBS_ESINGULAR;
            double uu = w->tau[nd->coord] - mbs_power(&w->S[i], &w->pA[i]);
            double *u6 = w->U + 6 * i;
            s_w6(&U, u6);
            w->D[i] = D;
            w->uu[i] = uu;
            for (int r = 0; r < 6; r++)
                for (int c = 0; c < 6; c++) Ia[6 * r + c] -= u6[r] * u6[c] / D;
            /* pa = pA + Ia c + U u / D */
            mbs_wrench Iac = s_apply6(Ia, &w->c[i]);
            pa = mbs_wrench_axpy(1.0, &Iac, &w->pA[i]);
            pa = mbs_wrench_axpy(uu / D, &U, &pa);
        }
        if (nd->parent >= 0) {
            double *IP = w->IA + 36 * nd->parent;
            for (int k = 0; k < 36; k++) IP[k] += Ia[k];
            w->pA[nd->parent] = mbs_wrench_axpy(1.0, &pa, &w->pA[nd->parent]);
        }
    }
    /* outwards: accelerations, gravity as the base's acceleration -g */
    const double *g = t->spec->gravity;
    mbs_twist a0 = {{0, 0, 0}, {-g[0], -g[1], t->dim == 3 ? -g[2] : 0}};
    for (int i = 0; i < nn; i++) {
        const mbs_rnode *nd = &t->node[i];
        mbs_twist al = nd->parent >= 0 ? w->A[nd->parent] : a0;
        mbs_twist a = mbs_twist_axpy(1.0, &w->c[i], &al);
        if (nd->coord >= 0) {
            mbs_wrench U = s_6w(w->U + 6 * i);
            double x = (w->uu[i] - mbs_power(&a, &U)) / w->D[i];
            qdd[nd->coord] = x;
            a = mbs_twist_axpy(x, &w->S[i], &a);
        }
        w->A[i] = a;
    }
    return 0;
}

void mbs_rtree_minv(const mbs_rtree *t, mbs_rtree_ws *w, const double *f, double *y)
{
    int nn = t->nnode;
    /* pA and A serve as scratch: the bias wrenches start at zero */
    mbs_wrench *p = w->pA;
    memset(p, 0, sizeof(mbs_wrench) * (size_t)nn);
    for (int i = nn - 1; i >= 0; i--) {
        const mbs_rnode *nd = &t->node[i];
        mbs_wrench pa = p[i];
        if (nd->coord >= 0) {
            mbs_wrench U = s_6w(w->U + 6 * i);
            double uu = f[nd->coord] - mbs_power(&w->S[i], &p[i]);
            w->uu[i] = uu;
            pa = mbs_wrench_axpy(uu / w->D[i], &U, &pa);
        }
        if (nd->parent >= 0) p[nd->parent] = mbs_wrench_axpy(1.0, &pa, &p[nd->parent]);
    }
    for (int i = 0; i < nn; i++) {
        const mbs_rnode *nd = &t->node[i];
        mbs_twist a = nd->parent >= 0 ? w->A[nd->parent] : s_zero_twist;
        if (nd->coord >= 0) {
            mbs_wrench U = s_6w(w->U + 6 * i);
            double x = (w->uu[i] - mbs_power(&a, &U)) / w->D[i];
            y[nd->coord] = x;
            a = mbs_twist_axpy(x, &w->S[i], &a);
        }
        w->A[i] = a;
    }
}

/* The nodes' true spatial accelerations for rates qdd (base at rest). */
static void s_accel_pass(const mbs_rtree *t, mbs_rtree_ws *w, const double *qdd)
{
    for (int i = 0; i < t->nnode; i++) {
        const mbs_rnode *nd = &t->node[i];
        mbs_twist a = nd->parent >= 0 ? w->A[nd->parent] : s_zero_twist;
        a = mbs_twist_axpy(1.0, &w->c[i], &a);
        if (nd->coord >= 0 && qdd) a = mbs_twist_axpy(qdd[nd->coord], &w->S[i], &a);
        w->A[i] = a;
    }
}

/* ---- circuit equations --------------------------------------------------------------- */

/* A vector of an equation at the current state: value x, rate xd, bias
 * acceleration xb (w->A holds the bias accelerations), and its rate's
 * Jacobian rows Jx (3 x n, overwritten). */
static void s_vec_eval(const mbs_rtree *t, const mbs_rtree_ws *w, const mbs_rvec *v, double x[3], double xd[3],
                       double xb[3], double *Jx)
{
    int n = t->n;
    memset(x, 0, sizeof(double) * 3);
    memset(xd, 0, sizeof(double) * 3);
    memset(xb, 0, sizeof(double) * 3);
    memset(Jx, 0, sizeof(double) * 3 * (size_t)n);
    for (int k = 0; k < v->n; k++) {
        const mbs_rterm *tm = &v->t[k];
        double sg = k == 0 ? 1.0 : -1.0;
        double R[9], p[3], y[3], yd[3], yb[3], rr[3] = {tm->r[0], tm->r[1], t->dim == 3 ? tm->r[2] : 0};
        mbs_twist V, A;
        mbs_rtree_body(t, w, tm->body, R, p, &V, &A);
        s_rot(R, 0, rr, y);
        if (tm->kind == 1) {
            for (int a = 0; a < 3; a++) y[a] += p[a];
            mbs_twist_point_velocity(&V, y, yd);
            double ay[3], wv[3];
            mbs_twist_point_velocity(&A, y, ay);
            v3cross(V.w, yd, wv);
            for (int a = 0; a < 3; a++) yb[a] = ay[a] + wv[a];
        } else {
            double ay[3], wv[3];
            v3cross(V.w, y, yd);
            v3cross(A.w, y, ay);
            v3cross(V.w, yd, wv);
            for (int a = 0; a < 3; a++) yb[a] = ay[a] + wv[a];
        }
        for (int a = 0; a < 3; a++) { x[a] += sg * y[a]; xd[a] += sg * yd[a]; xb[a] += sg * yb[a]; }
        /* rows: the path's axes moving the term */
        for (int i = tm->body >= 0 ? t->body_node[tm->body] : -1; i >= 0; i = t->node[i].parent) {
            int c = t->node[i].coord;
            if (c < 0) continue;
            double col[3];
            if (tm->kind == 1) mbs_twist_point_velocity(&w->S[i], y, col);
            else v3cross(w->S[i].w, y, col);
            for (int a = 0; a < 3; a++) Jx[(size_t)a * n + c] += sg * col[a];
        }
    }
}

void mbs_rtree_circuit(const mbs_rtree *t, mbs_rtree_ws *w)
{
    int n = t->n;
    if (t->neq == 0) return;
    s_accel_pass(t, w, NULL); /* bias accelerations: qdd = 0, base at rest */
    double *Ja = w->jq, *Jb = w->jq + 3 * (size_t)n;
    for (int r = 0; r < t->neq; r++) {
        const mbs_req *e = &t->eq[r];
        double a[3], ad[3], ab[3], b[3], bd[3], bb[3];
        s_vec_eval(t, w, &e->a, a, ad, ab, Ja);
        s_vec_eval(t, w, &e->b, b, bd, bb, Jb);
        w->phi[r] = v3dot(a, b) - e->c;
        w->phid[r] = v3dot(ad, b) + v3dot(a, bd);
        w->bias[r] = v3dot(ab, b) + 2 * v3dot(ad, bd) + v3dot(a, bb);
        double *row = w->J + (size_t)r * n;
        for (int c = 0; c < n; c++)
            row[c] = b[0] * Ja[c] + b[1] * Ja[n + c] + b[2] * Ja[2 * n + c] + a[0] * Jb[c] + a[1] * Jb[n + c] +
                     a[2] * Jb[2 * n + c];
    }
}

/* Solve the symmetric positive semi-definite K x = r (m x m) by LDL^T
 * without pivoting; a pivot below eps times the largest diagonal (a
 * dependent equation) gets x = 0 in its place.  K is overwritten. */
static int s_ldl_solve(int m, double *K, double *r)
{
    double dmax = 0;
    for (int i = 0; i < m; i++) dmax = fmax(dmax, fabs(K[i * m + i]));
    double eps = 1e-11 * (dmax > 0 ? dmax : 1);
    int dropped = 0;
    for (int j = 0; j < m; j++) {
        double d = K[j * m + j];
        for (int k = 0; k < j; k++) d -= K[j * m + k] * K[j * m + k] * K[k * m + k];
        if (!(d > eps)) { d = 0; dropped++; }
        K[j * m + j] = d;
        for (int i = j + 1; i < m; i++) {
            double s = K[i * m + j];
            for (int k = 0; k < j; k++) s -= K[i * m + k] * K[j * m + k] * K[k * m + k];
            K[i * m + j] = d > 0 ? s / d : 0;
        }
    }
    for (int i = 0; i < m; i++)
        for (int k = 0; k < i; k++) r[i] -= K[i * m + k] * r[k];
    for (int i = 0; i < m; i++) r[i] = K[i * m + i] > 0 ? r[i] / K[i * m + i] : 0;
    for (int i = m - 1; i >= 0; i--)
        for (int k = i + 1; k < m; k++) r[i] -= K[k * m + i] * r[k];
    return dropped;
}

int mbs_rtree_accel(const mbs_rtree *t, mbs_rtree_ws *w, double time, const double *q, const double *u,
                    double alpha, double beta, double *qdd)
{
    int n = t->n, m = t->neq;
    mbs_rtree_kinematics(t, w, q, u);
    mbs_rtree_applied(t, w, time);
    int rc = mbs_rtree_forward(t, w, w->qdd0);
    if (rc) return rc;
    if (m == 0) {
        memcpy(qdd, w->qdd0, sizeof(double) * (size_t)n);
        s_accel_pass(t, w, qdd);
        return 0;
    }
    mbs_rtree_circuit(t, w);
    /* Y = M^-1 J^T, K = J Y */
    for (int k = 0; k < m; k++) mbs_rtree_minv(t, w, w->J + (size_t)k * n, w->Y + (size_t)k * n);
    for (int i = 0; i < m; i++) {
        const double *Ji = w->J + (size_t)i * n;
        for (int k = 0; k < m; k++) {
            const double *Yk = w->Y + (size_t)k * n;
            double acc = 0;
            for (int c = 0; c < n; c++) acc += Ji[c] * Yk[c];
            w->K[i * m + k] = acc;
        }
        double jq = 0;
        for (int c = 0; c < n; c++) jq += Ji[c] * w->qdd0[c];
        w->rhs[i] = -w->bias[i] - 2 * alpha * w->phid[i] - beta * beta * w->phi[i] - jq;
    }
    s_ldl_solve(m, w->K, w->rhs);
    memcpy(w->lam, w->rhs, sizeof(double) * (size_t)m);
    for (int c = 0; c < n; c++) {
        double acc = w->qdd0[c];
        for (int k = 0; k < m; k++) acc += w->Y[(size_t)k * n + c] * w->lam[k];
        qdd[c] = acc;
    }
    s_accel_pass(t, w, qdd);
    return 0;
}

/* ---- joint coordinates from poses ------------------------------------------------------ */

/* XYZ angles of R = Rx(a) Ry(b) Rz(c). */
static void s_euler_xyz(const double R[9], double e[3])
{
    e[1] = asin(fmax(-1.0, fmin(1.0, R[2])));
    e[0] = atan2(-R[5], R[8]);
    e[2] = atan2(-R[1], R[0]);
}

int mbs_rtree_from_poses(const mbs_rtree *t, mbs_rtree_ws *w, const double *R, const double *p,
                         const mbs_twist *V, double *q, double *u)
{
    const mbs_spec *s = t->spec;
    int nb = s->nbody;
    memset(q, 0, sizeof(double) * (size_t)t->n);
    memset(u, 0, sizeof(double) * (size_t)t->n);
    static const double ez[3] = {0, 0, 1};
    for (int b = 0; b < nb; b++) {
        int pb = t->g.parent[b] >= 0 ? t->g.parent[b] : -1;
        const double *Rl = pb >= 0 ? R + 9 * pb : s_I3;
        double pl[3] = {0, 0, 0};
        if (pb >= 0) v3copy(p + 3 * pb, pl);
        /* the relative motion G = T_parent^-1 T_b */
        double RG[9], pG[3], d[3];
        s_mm(Rl, 1, R + 9 * b, RG);
        v3sub(p + 3 * b, pl, d);
        s_rot(Rl, 1, d, pG);
        /* this body's nodes: from the last back to the parent's */
        int last = t->body_node[b], first = last;
        int stop = pb >= 0 ? t->body_node[pb] : -1;
        while (t->node[first].parent != stop) first = t->node[first].parent;
        const mbs_rnode *n0 = &t->node[first];
        if (t->g.parent[b] == -2) {
            /* floating root: translation of the centre of mass, then rotation about it */
            const double *c0 = t->spec->bodies[b].com;
            double Rc[3], sft[3];
            double cc[3] = {c0[0], c0[1], t->dim == 3 ? c0[2] : 0};
            s_rot(RG, 0, cc, Rc);
            for (int a = 0; a < 3; a++) sft[a] = pG[a] - (cc[a] - Rc[a]);
            if (t->dim == 2) {
                q[n0->coord] = sft[0];
                q[n0->coord + 1] = sft[1];
                q[n0->coord + 2] = s_angle_about(RG, ez);
            } else {
                double e[3];
                s_euler_xyz(RG, e);
                for (int a = 0; a < 3; a++) { q[n0->coord + a] = sft[a]; q[n0->coord + 3 + a] = e[a]; }
            }
            continue;
        }
        const mbs_joint_spec *J = &s->joints[t->g.parent_joint[b]];
        switch (J->type) {
        case MBS_JOINT_REVOLUTE: q[n0->coord] = s_angle_about(RG, n0->u); break;
        case MBS_JOINT_PRISMATIC: q[n0->coord] = v3dot(n0->u, pG); break;
        case MBS_JOINT_CYLINDRICAL: {
            double Rp[3], x[3];
            s_rot(RG, 0, n0->p, Rp);
            for (int a = 0; a < 3; a++) x[a] = pG[a] - (n0->p[a] - Rp[a]);
            q[n0->coord] = v3dot(n0->u, x);
            q[n0->coord + 1] = s_angle_about(RG, n0->u);
            break;
        }
        case MBS_JOINT_UNIVERSAL: {
            const mbs_rnode *n1 = &t->node[last];
            double Rb[3], ab[3], R1[9], Rr[9];
            s_rot(RG, 0, n1->u, Rb);
            v3cross(n0->u, n1->u, ab);
            double al = atan2(v3dot(ab, Rb), v3dot(n1->u, Rb));
            s_axis_rot(n0->u, al, R1);
            s_mm(R1, 1, RG, Rr);
            q[n0->coord] = al;
            q[n1->coord] = s_angle_about(Rr, n1->u);
            break;
        }
        case MBS_JOINT_SPHERICAL: {
            double e[3];
            s_euler_xyz(RG, e);
            for (int a = 0; a < 3; a++) q[n0->coord + a] = e[a];
            break;
        }
        default:
            break;
        }
    }
    /* rates: each joint's relative twist on its axes (least squares) */
    mbs_rtree_kinematics(t, w, q, NULL);
    for (int b = 0; b < nb; b++) {
        int pb = t->g.parent[b] >= 0 ? t->g.parent[b] : -1;
        mbs_twist dV = V[b];
        if (pb >= 0) dV = mbs_twist_axpy(-1.0, &V[pb], &dV);
        int idx[6], k = 0, stop = pb >= 0 ? t->body_node[pb] : -1;
        for (int i = t->body_node[b]; i != stop && k < 6; i = t->node[i].parent)
            if (t->node[i].coord >= 0) idx[k++] = i;
        if (k == 0) continue;
        double N[36], r[6];
        for (int a = 0; a < k; a++) {
            double sa[6], dv[6];
            s_t6(&w->S[idx[a]], sa);
            s_t6(&dV, dv);
            r[a] = 0;
            for (int c = 0; c < 6; c++) r[a] += sa[c] * dv[c];
            for (int bb = 0; bb < k; bb++) {
                double sb[6];
                s_t6(&w->S[idx[bb]], sb);
                double acc = 0;
                for (int c = 0; c < 6; c++) acc += sa[c] * sb[c];
                N[a * k + bb] = acc;
            }
        }
        /* Gaussian elimination with partial pivoting on the k x k normal equations */
        for (int c = 0; c < k; c++) {
            int piv = c;
            for (int i = c + 1; i < k; i++) if (fabs(N[i * k + c]) > fabs(N[piv * k + c])) piv = i;
            if (!(fabs(N[piv * k + c]) > 1e-14)) return -1;
            if (piv != c) {
                for (int j = 0; j < k; j++) { double tmp = N[c * k + j]; N[c * k + j] = N[piv * k + j]; N[piv * k + j] = tmp; }
                double tmp = r[c]; r[c] = r[piv]; r[piv] = tmp;
            }
            for (int i = c + 1; i < k; i++) {
                double f = N[i * k + c] / N[c * k + c];
                for (int j = c; j < k; j++) N[i * k + j] -= f * N[c * k + j];
                r[i] -= f * r[c];
            }
        }
        for (int c = k - 1; c >= 0; c--) {
            double acc = r[c];
            for (int j = c + 1; j < k; j++) acc -= N[c * k + j] * u[t->node[idx[j]].coord];
            u[t->node[idx[c]].coord] = acc / N[c * k + c];
        }
    }
    return 0;
}

int mbs_rtree_gimbal_check(const mbs_rtree *t, const double *q, double margin)
{
    for (int i = 0; i < t->n; i++)
        if (t->gimbal[i] && fabs(cos(q[i])) < margin) return 1 + i;
    return 0;
}

int mbs_rtree_chord_names(const mbs_rtree *t, char *buf, size_t size)
{
    size_t len = 0;
    if (buf && size) buf[0] = '\0';
    for (int c = 0; c < t->g.nchord; c++) {
        int w = snprintf(buf && len < size ? buf + len : NULL, buf && len < size ? size - len : 0, "%s%s",
                         c ? ", " : "", t->spec->joints[t->g.chords[c]].name);
        if (w > 0) len += (size_t)w;
    }
    return (int)len;
}
