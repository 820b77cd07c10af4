/*
 * tree_dynamics.c - pass 1 (kinematics), the applied forces, passes 2 and
 * 3 of the articulated-body recursion and its M^-1 products (tree.h).
 */
#include "mbs/formulation/relative/tree_int.h"
#include "mbs/actuator/dcmotor.h"

/* ---- pass 1: kinematics -------------------------------------------------------------- */

void mbs_rtree_kinematics(const mbs_rtree *t, mbs_rtree_ws *w, const double *q, const double *u)
{
    static const double zero3[3] = {0, 0, 0};
    w->q = q;
    w->u = u;
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
        double qi = nd->dof > 0 ? q[nd->qcoord] : 0;
        /* the joint's motion G in the parent's reference coordinates, and its axes in the world */
        if (nd->kind == MBS_RN_REVOLUTE) {
            s_axis_rot(nd->u, qi, RG);
            w->S[nd->coord] = mbs_axis_revolute(pw, uw);
        } else if (nd->kind == MBS_RN_PRISMATIC) {
            memcpy(RG, s_I3, sizeof RG);
            w->S[nd->coord] = mbs_axis_prismatic(uw);
        } else if (nd->kind == MBS_RN_BALL) {
            /* rotation by the quaternion (normalised here: its length is
             * not a coordinate) about the joint point; the rates are the
             * angular velocity in the parent's reference axes */
            const double *qq = q + nd->qcoord;
            double nq = sqrt(qq[0] * qq[0] + qq[1] * qq[1] + qq[2] * qq[2] + qq[3] * qq[3]);
            double qn[4] = {1, 0, 0, 0};
            if (nq > 0) for (int k = 0; k < 4; k++) qn[k] = qq[k] / nq;
            quat_to_mat(qn, RG);
            for (int a = 0; a < 3; a++) {
                double ea[3] = {Rl[a], Rl[3 + a], Rl[6 + a]};
                w->S[nd->coord + a] = mbs_axis_revolute(pw, ea);
            }
        } else {
            memcpy(RG, s_I3, sizeof RG);
        }
        if (nd->kind == MBS_RN_PRISMATIC) {
            v3scale(qi, nd->u, pG);
        } else {
            double Rp[3];
            s_rot(RG, 0, nd->p, Rp);
            v3sub(nd->p, Rp, pG);
        }
        /* pose T_i = T_parent G */
        s_mm(Rl, 0, RG, R);
        s_rot(Rl, 0, pG, p);
        for (int k = 0; k < 3; k++) p[k] += pl[k];
        /* twist and velocity-product term c_i = V_i x S_i u_i */
        mbs_twist Su = s_zero_twist;
        for (int a = 0; a < nd->dof && u; a++) Su = s_taxpy(u[nd->coord + a], &w->S[nd->coord + a], &Su);
        w->V[i] = s_taxpy(1.0, &Su, &Vl);
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

void mbs_rtree_joint_load(const mbs_rtree *t, mbs_rtree_ws *w, int j, double f)
{
    double ax[3], x0[3], x1[3];
    (void)s_joint_rate(t, w, j, ax, x0, x1);
    s_joint_load(t, w, j, f, ax, x0, x1);
}

double mbs_rtree_joint_angle(const mbs_rtree *t, const mbs_rtree_ws *w, int j)
{
    const mbs_joint_spec *J = &t->spec->joints[j];
    double RA[9], RB[9], Rr[9], u[3] = {0, 0, 1};
    if (t->dim == 3) v3unit(J->axis, u);
    mbs_rtree_body(t, w, J->body[0], RA, NULL, NULL, NULL);
    mbs_rtree_body(t, w, J->body[1], RB, NULL, NULL, NULL);
    /* body[1]'s rotation relative to body[0], in body[0]'s reference axes */
    s_mm(RA, 1, RB, Rr);
    double a = s_angle_about(Rr, u), ref = w->jangle[j];
    return ref + remainder(a - ref, 2 * M_PI);
}

void mbs_rtree_track_angles(const mbs_rtree *t, mbs_rtree_ws *w)
{
    const mbs_spec *s = t->spec;
    for (int e = 0; e < s->nforce; e++) {
        int j = s->forces[e].joint;
        if (s->forces[e].type == MBS_FORCE_ROTATIONAL_SPRING_DAMPER && j >= 0 && !t->g.branch[j])
            w->jangle[j] = mbs_rtree_joint_angle(t, w, j);
    }
    /* a spatial rotor's revolute chord: its angle turns the natural
     * coordinates' disk (run/relative.c s_rotor3_vars), kept continuous */
    for (int k = 0; k < t->nrr; k++)
        if (t->rr[k].kind == 2) w->jangle[t->rr[k].joint] = mbs_rtree_joint_angle(t, w, t->rr[k].joint);
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
            /* a revolute joint (mbs_rtree_supported): a tree joint's angle
             * is the node's coordinate, signed from body[0] to body[1]; a
             * chord's is measured from its bodies' poses */
            const mbs_joint_spec *J = &s->joints[F->joint];
            double ax[3], x0[3], x1[3];
            double rate = s_joint_rate(t, w, F->joint, ax, x0, x1), ang;
            if (t->g.branch[F->joint]) {
                int b1 = J->body[1], child = b1 >= 0 && t->g.parent_joint[b1] == F->joint ? b1 : J->body[0];
                double sg = child == b1 ? 1.0 : -1.0;
                ang = sg * w->q[t->node[t->body_node[child]].qcoord];
            } else {
                ang = mbs_rtree_joint_angle(t, w, F->joint);
            }
            s_joint_load(t, w, F->joint, -F->stiffness * (ang - F->free_angle) - F->damping * rate, ax, x0, x1);
            break;
        }
        case MBS_FORCE_DC_MOTOR: {
            if (w->motors_by_run) break;
            double ax[3], x0[3], x1[3];
            double rate = s_joint_rate(t, w, F->joint, ax, x0, x1);
            mbs_dcmotor_state st;
            mbs_dcmotor_eval(&F->motor, mbs_fn_eval(&F->value[0], time, NULL, NULL), 0, rate, &st);
            s_joint_load(t, w, F->joint, st.torque, ax, x0, x1);
            break;
        }
        case MBS_FORCE_JOINT_ACTUATOR: {
            /* its value of time (a controlled one: by the run) */
            if (w->motors_by_run || F->ctrl > 0) break;
            mbs_rtree_joint_load(t, w, F->joint, mbs_fn_eval(&F->value[0], time, NULL, NULL));
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
    /* the spatial rotors on chords: their gyroscopic moment -J om (w_A x
     * a) on the stator's body A (tree.h, mbs_rrotor) */
    for (int k = 0; k < t->nrr; k++) {
        const mbs_rrotor *r = &t->rr[k];
        if (r->kind < 2) continue;
        double a[3], wA[3], wa[3];
        double om = mbs_rtree_chord_rotor_spin(t, w, r, a, wA);
        v3cross(wA, a, wa);
        v3scale(-r->mu * om, wa, wa);
        s_torque_on(w, s->joints[r->joint].body[0], wa);
    }
    if (w->extra) w->extra(w->extra_ctx, t, w, time);
}

/* ---- rotors between moving bodies in space ------------------------------------------ */

const double *mbs_rtree_rotor_axis(const mbs_rtree *t, const mbs_rtree_ws *w, int i)
{
    const mbs_rnode *nd = &t->node[i];
    return nd->kind == MBS_RN_PRISMATIC ? w->S[nd->coord].v : w->S[nd->coord].w;
}

/* The node's rotors (tree.h): w_p the parent's angular velocity, a the
 * axis, q' the node's rate, each rotor k's w_k = w_p + n_k q' a and
 * inertia I_k = J_k / 2 (1 + a a^T).  With e = w_p x a:
 *  w_k x I_k w_k = J_k / 2 (a . w_k) e (I_k a = J_k a, so only the
 *    transverse part of I_k w_k turns), summed: e / 2 (J a . w_p + Jn q');
 *  I_k (c_k - c_i) with the rotor's velocity product c_k = w_p x n_k q' a
 *    and the node's c_i (angular part w_p x s q', s = a revolute, 0
 *    prismatic): q' (n_k - [revolute]) e, normal to a, so I_k acts as J_k
 *    / 2: q' / 2 (Jn - [revolute] J) e. */
void mbs_rtree_rotor_bias(const mbs_rtree *t, const mbs_rtree_ws *w, int i, double mb[3], double Ua[3])
{
    const mbs_rnode *nd = &t->node[i];
    const double *a = mbs_rtree_rotor_axis(t, w, i);
    static const double zero3[3] = {0, 0, 0};
    const double *wp = nd->parent >= 0 ? w->V[nd->parent].w : zero3;
    double qd = w->u ? w->u[nd->coord] : 0, e[3];
    v3cross(wp, a, e);
    double rev = nd->kind == MBS_RN_REVOLUTE ? 1.0 : 0.0;
    double f = 0.5 * (nd->rotor_J * v3dot(a, wp) + nd->rotor_Jn * qd) + 0.5 * qd * (nd->rotor_Jn - rev * nd->rotor_J);
    v3scale(f, e, mb);
    v3scale(nd->rotor_Jn, a, Ua);
}

/* The rotors' inertia on the parent (tree_int.h): what pass 2 adds to
 * the parent's articulated inertia and tree_mass.c to its composite one. */
int mbs_rtree_rotor_inertia(const mbs_rtree *t, const mbs_rtree_ws *w, int i, double a[3], double Ir[9])
{
    const mbs_rnode *nd = &t->node[i];
    if (!(nd->rotor_J > 0) || nd->dof != 1) return 0;
    v3copy(t->dim == 3 ? mbs_rtree_rotor_axis(t, w, i) : w->S[nd->coord].w, a);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            Ir[3 * r + c] = t->dim == 3 ? 0.5 * nd->rotor_J * ((r == c) + a[r] * a[c]) : nd->rotor_J * a[r] * a[c];
    return 1;
}


/* ---- passes 2 and 3: the articulated-body recursion ---------------------------------- */

/* The body inertia of node i in world coordinates (tree_int.h). */
void mbs_rtree_world_rbi(const mbs_rtree *t, const mbs_rtree_ws *w, int i, mbs_rbi *Iw)
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
}

/* The body inertia of node i in world coordinates as a 6 x 6 matrix. */
static void s_world_inertia(const mbs_rtree *t, const mbs_rtree_ws *w, int i, double M[36], mbs_rbi *Iw)
{
    mbs_rtree_world_rbi(t, w, i, Iw);
    mbs_rbi_matrix(Iw, M);
}

/* Pass 3 at node i: its coordinates' accelerations qdd = D^-1 (u - U^T a')
 * from the uu and the factorisation of pass 2, added to a' (in place). */
static void s_node_accel(const mbs_rtree *t, const mbs_rtree_ws *w, int i, mbs_twist *a, double *qdd)
{
    const mbs_rnode *nd = &t->node[i];
    int k = nd->dof, c0 = nd->coord;
    if (k == 0) return;
    const double *Di = w->Dinv + 9 * i;
    double r[3];
    for (int b = 0; b < k; b++) {
        mbs_wrench U = s_6w(w->U + 6 * (c0 + b));
        r[b] = w->uu[c0 + b] - s_power(a, &U);
    }
    double x[3];
    for (int b = 0; b < k; b++) {
        double acc = 0;
        for (int c = 0; c < k; c++) acc += (k == 1 ? Di[0] : Di[3 * b + c]) * r[c];
        x[b] = acc;
    }
    for (int b = 0; b < k; b++) {
        qdd[c0 + b] = x[b];
        *a = s_taxpy(x[b], &w->S[c0 + b], a);
    }
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
        w->pA[i] = s_waxpy(-1.0, &w->fext[b], &g);
    }
    /* inwards: project on each node's axes (D = S^T IA S, 1 x 1 or 3 x 3),
     * hand the rest to the parent */
    for (int i = nn - 1; i >= 0; i--) {
        const mbs_rnode *nd = &t->node[i];
        int k = nd->dof, c0 = nd->coord;
        double *IA = w->IA + 36 * i, Ia[36];
        memcpy(Ia, IA, sizeof Ia);
        mbs_wrench pa;
        if (k > 0) {
            double D[9], *Di = w->Dinv + 9 * i, uu[3];
            mbs_wrench U[3];
            for (int a = 0; a < k; a++) {
                U[a] = s_apply6(IA, &w->S[c0 + a]);
                uu[a] = w->tau[c0 + a] - s_power(&w->S[c0 + a], &w->pA[i]);
                w->uu[c0 + a] = uu[a];
            }
            for (int a = 0; a < k; a++)
                for (int b = a; b < k; b++) D[3 * a + b] = D[3 * b + a] = s_power(&w->S[c0 + a], &U[b]);
            /* rotors geared to this joint with their stators on a moving
             * body (planar, tree.h): each, inertia J about the axis a, turns
             * at w_parent + n q', so the joint sees U = IA S + J n (a, 0)
             * and D = S^T IA S + J n^2, and the parent the rotor's inertia
             * (below); in the plane its velocity-product terms vanish
             * (w_parent parallel to a); in space they are the rotor's bias
             * moment (tree.h, mbs_rtree_rotor_bias) */
            double ra[3] = {0, 0, 0};
            if (nd->rotor_J > 0 && k == 1 && t->dim == 3) {
                /* in space: the rotor's bias moment into this node's pA
                 * (before uu), its J n a into U, J n^2 into D; its
                 * inertia J / 2 (1 + a a^T) into the parent's (below) */
                double mb[3], Ua[3];
                mbs_rtree_rotor_bias(t, w, i, mb, Ua);
                for (int c = 0; c < 3; c++) {
                    w->pA[i].n[c] += mb[c];
                    U[0].n[c] += Ua[c];
                }
                uu[0] = w->tau[c0] - s_power(&w->S[c0], &w->pA[i]);
                w->uu[c0] = uu[0];
                D[0] += nd->rotor_Jn2;
            } else if (nd->rotor_J > 0 && k == 1) {
                v3copy(w->S[c0].w, ra);
                for (int c = 0; c < 3; c++) U[0].n[c] += nd->rotor_Jn * ra[c];
                D[0] += nd->rotor_Jn2 * v3dot(ra, ra);
            }
            /* a prismatic joint's rotors: an armature on its rate (tree.h) */
            if (nd->rotor_m > 0 && k == 1) D[0] += nd->rotor_m;
            for (int a = 0; a < k; a++) s_w6(&U[a], w->U + 6 * (c0 + a));
            if (k == 1) {
                if (!(D[0] > 0) || !isfinite(D[0])) return MBS_ESINGULAR;
                Di[0] = 1 / D[0];
            } else {
                double Dm[9] = {D[0], D[1], D[2], D[3], D[4], D[5], D[6], D[7], D[8]};
                double det = m3inv(Dm, Di);
                if (!(det > 0) || !isfinite(det)) return MBS_ESINGULAR;
                /* exactly symmetric: an ill-conditioned D (a thin link's
                 * axial inertia) turns a rounding asymmetry of D into a
                 * large one of D^-1, which the chain's Schur complements
                 * then grow node by node (x 3.7 per node on a 50-link chain
                 * of spherical joints, until D lost definiteness) */
                for (int r = 0; r < 3; r++)
                    for (int c = r + 1; c < 3; c++) Di[3 * r + c] = Di[3 * c + r] = 0.5 * (Di[3 * r + c] + Di[3 * c + r]);
            }
            /* Ia = IA - U D^-1 U^T */
            for (int a = 0; a < k; a++)
                for (int b = 0; b < k; b++) {
                    const double *ua = w->U + 6 * (c0 + a), *ub = w->U + 6 * (c0 + b);
                    double f = Di[3 * a + b];
                    if (k == 1) f = Di[0];
                    for (int r = 0; r < 6; r++)
                        for (int c = 0; c < 6; c++) Ia[6 * r + c] -= ua[r] * f * ub[c];
                }
            /* the rotors ride on the parent: J a a^T (plane), J / 2 (1 +
             * a a^T) (space, a thin disk; ra the axis) */
            double ax[3], Ir[9];
            if (mbs_rtree_rotor_inertia(t, w, i, ax, Ir))
                for (int r = 0; r < 3; r++)
                    for (int c = 0; c < 3; c++) Ia[6 * r + c] += Ir[3 * r + c];
            /* symmetric to rounding whatever the order of the sums */
            for (int r = 0; r < 6; r++)
                for (int c = r + 1; c < 6; c++) Ia[6 * r + c] = Ia[6 * c + r] = 0.5 * (Ia[6 * r + c] + Ia[6 * c + r]);
            /* pa = pA + Ia c + U D^-1 u */
            mbs_wrench Iac = s_apply6(Ia, &w->c[i]);
            pa = s_waxpy(1.0, &Iac, &w->pA[i]);
            for (int a = 0; a < k; a++) {
                double g = 0;
                for (int b = 0; b < k; b++) g += (k == 1 ? Di[0] : Di[3 * a + b]) * uu[b];
                pa = s_waxpy(g, &U[a], &pa);
            }
        } else {
            mbs_wrench Ic = s_apply6(IA, &w->c[i]);
            pa = s_waxpy(1.0, &Ic, &w->pA[i]);
        }
        if (nd->parent >= 0) {
            double *IP = w->IA + 36 * nd->parent;
            for (int c = 0; c < 36; c++) IP[c] += Ia[c];
            w->pA[nd->parent] = s_waxpy(1.0, &pa, &w->pA[nd->parent]);
        }
    }
    /* outwards: accelerations, gravity as the base's acceleration -g */
    const double *g = t->spec->gravity;
    mbs_twist a0 = {{0, 0, 0}, {-g[0], -g[1], t->dim == 3 ? -g[2] : 0}};
    for (int i = 0; i < nn; i++) {
        const mbs_rnode *nd = &t->node[i];
        mbs_twist al = nd->parent >= 0 ? w->A[nd->parent] : a0;
        mbs_twist a = s_taxpy(1.0, &w->c[i], &al);
        s_node_accel(t, w, i, &a, qdd);
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
        int k = nd->dof, c0 = nd->coord;
        mbs_wrench pa = p[i];
        const double *Di = w->Dinv + 9 * i;
        double uu[3];
        for (int a = 0; a < k; a++) {
            uu[a] = f[c0 + a] - s_power(&w->S[c0 + a], &p[i]);
            w->uu[c0 + a] = uu[a];
        }
        for (int a = 0; a < k; a++) {
            double g = 0;
            for (int b = 0; b < k; b++) g += (k == 1 ? Di[0] : Di[3 * a + b]) * uu[b];
            mbs_wrench U = s_6w(w->U + 6 * (c0 + a));
            pa = s_waxpy(g, &U, &pa);
        }
        if (nd->parent >= 0) p[nd->parent] = s_waxpy(1.0, &pa, &p[nd->parent]);
    }
    for (int i = 0; i < nn; i++) {
        const mbs_rnode *nd = &t->node[i];
        mbs_twist a = nd->parent >= 0 ? w->A[nd->parent] : s_zero_twist;
        s_node_accel(t, w, i, &a, y);
        w->A[i] = a;
    }
}

/* The nodes' true spatial accelerations for rates qdd (base at rest; tree_int.h). */
void mbs_rtree_accel_pass(const mbs_rtree *t, mbs_rtree_ws *w, const double *qdd)
{
    for (int i = 0; i < t->nnode; i++) {
        const mbs_rnode *nd = &t->node[i];
        mbs_twist a = nd->parent >= 0 ? w->A[nd->parent] : s_zero_twist;
        a = s_taxpy(1.0, &w->c[i], &a);
        for (int b = 0; b < nd->dof && qdd; b++) a = s_taxpy(qdd[nd->coord + b], &w->S[nd->coord + b], &a);
        w->A[i] = a;
    }
}

