/*
 * tree_reaction.c - the joint reactions of the relative formulation from its
 * cutset wrenches (tree.h, mbs_rtree_reactions).
 *
 * A tree joint.  Cutting it separates the tree into the subtree beyond it
 * and the rest (seed 001's cutset); the wrench the joint transmits into the
 * subtree balances the subtree's bodies: the sum of their inertial wrenches
 * I (a - g) + V x* I V less the wrenches applied to them (force elements,
 * contacts) and the chords' constraint wrenches on them.  One inward pass
 * over the nodes with the final accelerations (the transmitted wrenches of
 * the articulated-body recursion once the loops' multipliers are in the
 * accelerations) gives every node's; a joint of several nodes (universal,
 * cylindrical) transmits the same wrench through its massless intermediate
 * node, so the joint's is the one into its child body's node.  A driven
 * joint's wrench has the driver's force along its axis (the multiplier of
 * the driver's row enters only through the accelerations); an undriven
 * one's axis component is zero to rounding: its joint loads (damping,
 * motors, springs) are applied wrenches, as the natural coordinates'
 * reactions leave them out too.
 *
 * A chord joint.  Circuit equation r, a . b - c = 0 with multiplier lam_r,
 * does the work lam_r (a' . b + a . b') in a virtual motion: a point term y
 * of a (sign s) on body B carries the force lam_r s b at y, a free-vector
 * term the moment lam_r s y x b (and the same with a and b swapped).  The
 * chord's reaction on its body[1] is the sum over its equations (a
 * driven chord's driver equation among them: its driving force or torque,
 * as a driven tree joint's wrench has it); a chord
 * whose body[1] is the ground: minus the sum on body[0].  Dependent chord
 * equations (Bricard) have zero multipliers (tree_circuit.c), so a
 * statically indeterminate mechanism's reactions are one of its admissible
 * distributions, not the natural coordinates' minimum-norm one.
 */
#include "mbs/formulation/relative/tree_int.h"

/* Add to w->fc the wrenches that multiplier lam of the vector v's terms
 * (dotted with the other vector's value o) exert on their bodies; the
 * wrench on body `only` (>= 0) also into *acc when acc is given. */
static void s_term_wrenches(const mbs_rtree *t, mbs_rtree_ws *w, const mbs_rvec *v, const double o[3], double lam,
                            int only, mbs_wrench *acc)
{
    for (int k = 0; k < v->n; k++) {
        const mbs_rterm *tm = &v->t[k];
        if (tm->body < 0) continue;
        double R[9], p[3], y[3], rr[3] = {tm->r[0], tm->r[1], t->dim == 3 ? tm->r[2] : 0};
        mbs_rtree_body(t, w, tm->body, R, p, NULL, NULL);
        s_rot(R, 0, rr, y);
        double s = (k == 0 ? 1.0 : -1.0) * lam;
        mbs_wrench f = {{0, 0, 0}, {0, 0, 0}};
        if (tm->kind == 1) {
            for (int a = 0; a < 3; a++) { y[a] += p[a]; f.f[a] = s * o[a]; }
            v3cross(y, f.f, f.n);
        } else {
            double yo[3];
            v3cross(y, o, yo);
            v3scale(s, yo, f.n);
        }
        w->fc[tm->body] = s_waxpy(1.0, &f, &w->fc[tm->body]);
        if (acc && tm->body == only) *acc = s_waxpy(1.0, &f, acc);
    }
}

/* The value of a vector of the circuit equations at the current poses. */
static void s_vec_value(const mbs_rtree *t, const mbs_rtree_ws *w, const mbs_rvec *v, double x[3])
{
    x[0] = x[1] = x[2] = 0;
    for (int k = 0; k < v->n; k++) {
        const mbs_rterm *tm = &v->t[k];
        double R[9], p[3], y[3], rr[3] = {tm->r[0], tm->r[1], t->dim == 3 ? tm->r[2] : 0};
        mbs_rtree_body(t, w, tm->body, R, p, NULL, NULL);
        s_rot(R, 0, rr, y);
        if (tm->kind == 1) for (int a = 0; a < 3; a++) y[a] += p[a];
        for (int a = 0; a < 3; a++) x[a] += (k == 0 ? 1.0 : -1.0) * y[a];
    }
}

/* World position now of the point with reference coordinates r on body b. */
static void s_point_now(const mbs_rtree *t, const mbs_rtree_ws *w, int b, const double r[3], double x[3])
{
    double R[9], p[3], rr[3] = {r[0], r[1], t->dim == 3 ? r[2] : 0};
    mbs_rtree_body(t, w, b, R, p, NULL, NULL);
    s_rot(R, 0, rr, x);
    for (int a = 0; a < 3; a++) x[a] += p[a];
}

static mbs_wrench s_neg(const mbs_wrench *W)
{
    mbs_wrench o;
    for (int a = 0; a < 3; a++) { o.n[a] = -W->n[a]; o.f[a] = -W->f[a]; }
    return o;
}

/* out (6): the wrench W (about the world origin) as force and moment about
 * the point x. */
static void s_about(const mbs_wrench *W, const double x[3], double out[6])
{
    double xf[3];
    v3cross(x, W->f, xf);
    for (int a = 0; a < 3; a++) { out[a] = W->f[a]; out[3 + a] = W->n[a] - xf[a]; }
}

/* The spatial rotors of node i (on its joint): sum N_k (a . M_k), what
 * the gear passes to them from B (each rotor's axial moment a . M_k = J_k
 * a . al_k = J_k (a . al_p + n_k q''), n_k as mbs_rtree_build sets it). */
static double s_rotor_gear(const mbs_rtree *t, const mbs_rtree_ws *w, int i, double qdd)
{
    const mbs_spec *s = t->spec;
    const mbs_rnode *nd = &t->node[i];
    const mbs_joint_spec *Jt = &s->joints[nd->joint];
    double aap = v3dot(mbs_rtree_rotor_axis(t, w, i), w->A[nd->parent].w), sum = 0;
    for (int e = 0; e < s->nforce; e++) {
        const mbs_force_spec *F = &s->forces[e];
        if (F->type != MBS_FORCE_DC_MOTOR || F->joint != nd->joint || !(F->motor.J > 0)) continue;
        double N = F->motor.ratio, n = N;
        if (nd->body == Jt->body[0]) n = Jt->type == MBS_JOINT_PRISMATIC ? -N : 1 - N;
        sum += N * F->motor.J * (aap + n * qdd);
    }
    return sum;
}

/* The spatial rotors of node i: their inertial moment M_r = sum I_k al_k +
 * w_k x I_k w_k (massless: no force), the moment their bearing and gear
 * pass to them, from the final accelerations: al_k = al_p + n_k (q'' a +
 * q' w_p x a), w_k = w_p + n_k q' a, I_k = J_k / 2 (1 + a a^T). */
static void s_rotor_moment(const mbs_rtree *t, const mbs_rtree_ws *w, int i, double M[3], double *qdd_out)
{
    const mbs_rnode *nd = &t->node[i];
    const double *a = mbs_rtree_rotor_axis(t, w, i);
    const mbs_twist *Vp = &w->V[nd->parent], *Ap = &w->A[nd->parent];
    int pri = nd->kind == MBS_RN_PRISMATIC;
    /* the node's rate and acceleration from its twist and acceleration */
    double dv[3], da[3], e[3];
    for (int c = 0; c < 3; c++) {
        dv[c] = pri ? w->V[i].v[c] - Vp->v[c] : w->V[i].w[c] - Vp->w[c];
        da[c] = pri ? w->A[i].v[c] - Ap->v[c] - w->c[i].v[c] : w->A[i].w[c] - Ap->w[c] - w->c[i].w[c];
    }
    double qd = v3dot(a, dv), qdd = v3dot(a, da);
    if (qdd_out) *qdd_out = qdd;
    v3cross(Vp->w, a, e);
    double J = nd->rotor_J, Jn = nd->rotor_Jn;
    /* sum J_k al_k, its axial part, and the gyroscopic moments (tree_dynamics.c) */
    double sal[3];
    for (int c = 0; c < 3; c++) sal[c] = J * Ap->w[c] + Jn * (qdd * a[c] + qd * e[c]);
    double aal = v3dot(a, sal);
    double gy = 0.5 * (J * v3dot(a, Vp->w) + Jn * qd);
    for (int c = 0; c < 3; c++) M[c] = 0.5 * (sal[c] + aal * a[c]) + gy * e[c];
}

void mbs_rtree_reactions(const mbs_rtree *t, mbs_rtree_ws *w, double *out)
{
    const mbs_spec *s = t->spec;
    int nj = s->njoint;
    static const mbs_wrench zero = {{0, 0, 0}, {0, 0, 0}};
    memset(out, 0, sizeof(double) * 6 * (size_t)(nj > 0 ? nj : 1));
    for (int b = 0; b < s->nbody; b++) w->fc[b] = zero;
    /* the chords' constraint wrenches on the bodies, and each chord's on its
     * body[1] (or, body[1] the ground, on its body[0]) */
    for (int j = 0; j < nj; j++) w->fchord[j] = zero;
    for (int r = 0; r < t->nceq; r++) {
        const mbs_req *e = &t->eq[r];
        const mbs_joint_spec *J = &s->joints[e->joint];
        int side = J->body[1] >= 0 ? J->body[1] : J->body[0];
        double a[3], b[3];
        s_vec_value(t, w, &e->a, a);
        s_vec_value(t, w, &e->b, b);
        if (e->kind != MBS_REQ_ANGLE) {
            s_term_wrenches(t, w, &e->a, b, w->lam[r], side, &w->fchord[e->joint]);
            s_term_wrenches(t, w, &e->b, a, w->lam[r], side, &w->fchord[e->joint]);
            continue;
        }
        /* a driven revolute chord's angle atan2(a2 . b, a . b): its row is
         * c/rr that of a2 . b less s/rr that of a . b (tree_circuit.c), and
         * so is its multiplier's wrench (the driving torque) */
        double a2[3];
        s_vec_value(t, w, &e->a2, a2);
        double c = v3dot(a, b), sn = v3dot(a2, b), rr = c * c + sn * sn;
        if (!(rr > 0)) rr = 1;
        double lc = -w->lam[r] * sn / rr, ls = w->lam[r] * c / rr;
        s_term_wrenches(t, w, &e->a, b, lc, side, &w->fchord[e->joint]);
        s_term_wrenches(t, w, &e->b, a, lc, side, &w->fchord[e->joint]);
        s_term_wrenches(t, w, &e->a2, b, ls, side, &w->fchord[e->joint]);
        s_term_wrenches(t, w, &e->b, a2, ls, side, &w->fchord[e->joint]);
    }
    /* the rotors on chords: their forces (the rows' multipliers) on the
     * bodies as their rows' generalized forces; not in the chord's reaction,
     * its circuit equations' force (the screw's force less what spins the
     * rotor up: the natural coordinates' reaction) */
    for (int k = 0; k < t->nrr; k++) {
        const mbs_rrotor *r = &t->rr[k];
        const mbs_joint_spec *J = &s->joints[r->joint];
        double lam = sqrt(r->mu) * w->lam[t->neq + k]; /* the row was scaled by sqrt(mu) */
        if (r->kind == 1) {
            double a[3], b[3];
            s_vec_value(t, w, &r->a, a);
            s_vec_value(t, w, &r->b, b);
            s_term_wrenches(t, w, &r->a, b, lam, -1, NULL);
            s_term_wrenches(t, w, &r->b, a, lam, -1, NULL);
            continue;
        }
        if (r->kind >= 2) {
            /* in space: the row's moments about the axis a, (1 - n) lam a
             * on A and n lam a on B (kind 2), lam a on A and n lam on the
             * slide's terms (kind 3) */
            double a[3], wA[3];
            mbs_rtree_chord_rotor_spin(t, w, r, a, wA);
            double fa = r->kind == 2 ? 1 - r->n : 1, fb = r->kind == 2 ? r->n : 0;
            for (int e = 0; e < 2; e++) {
                int b = J->body[e];
                double f = (e ? fb : fa) * lam;
                if (b < 0 || f == 0) continue;
                mbs_wrench m = {{f * a[0], f * a[1], f * a[2]}, {0, 0, 0}};
                w->fc[b] = s_waxpy(1.0, &m, &w->fc[b]);
            }
            if (r->kind == 3) {
                double b[3];
                s_vec_value(t, w, &r->b, b);
                s_term_wrenches(t, w, &r->a, b, r->n * lam, -1, NULL);
                s_term_wrenches(t, w, &r->b, a, r->n * lam, -1, NULL);
            }
            continue;
        }
        for (int e = 0; e < 2; e++) {
            int b = J->body[e];
            if (b < 0) continue;
            mbs_wrench f = {{0, 0, (e ? r->n : 1 - r->n) * lam}, {0, 0, 0}};
            w->fc[b] = s_waxpy(1.0, &f, &w->fc[b]);
        }
    }
    /* inwards: each node's transmitted wrench, its body's balance plus its
     * children's (gravity as the base's acceleration -g, as in pass 3) */
    const double *g = s->gravity;
    mbs_twist ag = {{0, 0, 0}, {-g[0], -g[1], t->dim == 3 ? -g[2] : 0}};
    for (int i = 0; i < t->nnode; i++) w->fj[i] = zero;
    for (int i = t->nnode - 1; i >= 0; i--) {
        const mbs_rnode *nd = &t->node[i];
        if (nd->body >= 0) {
            mbs_rbi Iw;
            mbs_rtree_world_rbi(t, w, i, &Iw);
            mbs_twist a = s_taxpy(1.0, &ag, &w->A[i]);
            mbs_wrench ia = mbs_rbi_apply(&Iw, &a), h = mbs_rbi_apply(&Iw, &w->V[i]);
            mbs_wrench vh = mbs_twist_cross_wrench(&w->V[i], &h);
            mbs_wrench f = s_waxpy(1.0, &ia, &vh);
            f = s_waxpy(-1.0, &w->fext[nd->body], &f);
            f = s_waxpy(-1.0, &w->fc[nd->body], &f);
            w->fj[i] = s_waxpy(1.0, &f, &w->fj[i]);
        }
        /* a spatial rotor's inertial moment M_r: the parent's side takes it */
        if (nd->rotor_J > 0 && t->dim == 3 && nd->dof == 1 && nd->parent >= 0) {
            double M[3];
            s_rotor_moment(t, w, i, M, NULL);
            for (int a = 0; a < 3; a++) w->fj[nd->parent].n[a] += M[a];
        }
        if (nd->parent >= 0) w->fj[nd->parent] = s_waxpy(1.0, &w->fj[i], &w->fj[nd->parent]);
    }
    /* each joint's wrench on its body[1], about its point there */
    for (int j = 0; j < nj; j++) {
        const mbs_joint_spec *J = &s->joints[j];
        int b1 = J->body[1], b0 = J->body[0];
        mbs_wrench W;
        if (t->g.branch[j]) {
            /* the tree joint's child body: the wrench into it is + on the child */
            int child = b1 >= 0 && t->g.parent_joint[b1] == j ? b1 : b0;
            int ci = t->body_node[child];
            W = w->fj[ci];
            /* a prismatic joint's rotors: their armature force m_r q'' along
             * the axis (at the child's node), which the screw spends on them
             * before the joint (the natural coordinates' slide multiplier) */
            const mbs_rnode *cn = &t->node[ci];
            if (cn->rotor_m > 0 && cn->kind == MBS_RN_PRISMATIC) {
                const mbs_twist *Ap = cn->parent >= 0 ? &w->A[cn->parent] : NULL;
                const double *ax = w->S[cn->coord].v;
                double acc[3], f[3], xf[3], x[3];
                for (int a = 0; a < 3; a++) acc[a] = w->A[ci].v[a] - (Ap ? Ap->v[a] : 0) - w->c[ci].v[a];
                v3scale(cn->rotor_m * v3dot(ax, acc), ax, f);
                s_point_now(t, w, child, J->at, x);
                v3cross(x, f, xf);
                for (int a = 0; a < 3; a++) { W.f[a] += f[a]; W.n[a] += xf[a]; }
            }
            /* a spatial rotor's loads on the joint's bodies are not the
             * joint's (the natural coordinates apply its equations'
             * forces to the bodies): on B = body[1], through the gear,
             * -N (a . M_r) along the axis (a torque, or a force at its
             * joint point); on A the rest, -M_r less that */
            if (cn->rotor_J > 0 && t->dim == 3 && cn->dof == 1 && cn->parent >= 0) {
                double M[3], L[3], x[3], qdd;
                const double *ax = mbs_rtree_rotor_axis(t, w, ci);
                s_rotor_moment(t, w, ci, M, &qdd);
                v3scale(-s_rotor_gear(t, w, ci, qdd), ax, L); /* B's load */
                mbs_wrench ld = {{0, 0, 0}, {0, 0, 0}};
                if (cn->kind == MBS_RN_PRISMATIC) {
                    s_point_now(t, w, child, J->at, x);
                    v3copy(L, ld.f);
                    v3cross(x, L, ld.n);
                } else {
                    v3copy(L, ld.n);
                }
                if (child != b1) {
                    /* the child is A: its load -M_r - (B's) */
                    for (int a = 0; a < 3; a++) { ld.n[a] = -M[a] - ld.n[a]; ld.f[a] = -ld.f[a]; }
                }
                W = s_waxpy(-1.0, &ld, &W);
            }
            if (child != b1) W = s_neg(&W); /* the child is body[0]: body[1] takes the opposite */
        } else {
            W = w->fchord[j];
            if (b1 < 0) W = s_neg(&W);
        }
        double x[3];
        if (J->type == MBS_JOINT_DISTANCE) s_point_now(t, w, b1 >= 0 ? b1 : b0, J->points[b1 >= 0 ? 1 : 0], x);
        else s_point_now(t, w, b1 >= 0 ? b1 : b0, J->at, x);
        s_about(&W, x, out + 6 * j);
        /* a distance joint carries a force along the rod only: no moment
         * about its end (rounding), as the natural recovery gives it */
        if (J->type == MBS_JOINT_DISTANCE) out[6 * j + 3] = out[6 * j + 4] = out[6 * j + 5] = 0;
    }
}
