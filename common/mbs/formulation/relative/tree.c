/*
 * tree.c - the relative formulation's tree (tree.h): what it supports, its
 * nodes, inertias and circuit equations from the spec, joint coordinates
 * from body poses.
 */
#include "mbs/formulation/relative/tree_int.h"

#include <stdio.h>
#include <stdlib.h>

/* ---- what is supported ----------------------------------------------------------------- */

int mbs_rtree_supported(const mbs_spec *s, mbs_errlist *err)
{
    int bad = 0;
    const mbs_solver_spec *o = &s->solver;
    int rigid = 0;
    for (int k = 0; k < s->ncontact; k++) rigid += s->contacts[k].law == MBS_LAW_RIGID;
    /* rigid contacts: Moreau-Jean or the event-driven integrator
     * (run/contact_relative.c) */
    if (rigid > 0 && o->integrator != MBS_INT_MOREAU_JEAN && o->integrator != MBS_INT_EVENT_DRIVEN) {
        mbs_err_add(err, "/contacts", "solver.formulation \"relative\" runs rigid contacts (%d pairs) with "
                    "solver.integrator \"moreau_jean\" or \"event_driven\" only; set one, or use the natural "
                    "formulation", rigid);
        bad = 1;
    }
    if (s->ncontact > 0 && o->contact_force_unknowns) {
        mbs_err_add(err, "/solver/contact_force_unknowns", "solver.formulation \"relative\" takes compliant "
                    "contacts as forces: contact_force_unknowns needs the natural formulation");
        bad = 1;
    }
    for (int j = 0; j < s->njoint; j++) {
        const mbs_joint_spec *J = &s->joints[j];
        char ptr[64];
        snprintf(ptr, sizeof ptr, "/joints/%d", j);
        /* the impact model is rigid contacts at the slider's corners (no
         * joint in the graph: sysgraph.c mbs_joint_in_graph), run with
         * moreau_jean; the friction model's end equations and sliding
         * rows (seed 003, the event-driven integrator's) are not written */
        if (J->clearance_model == MBS_CLEARANCE_FRICTION) {
            mbs_err_add(err, ptr, "joint '%s': solver.formulation \"relative\" does not run the friction clearance "
                        "model (clearance_model \"friction\", the event-driven integrator's) yet; use the natural "
                        "formulation", J->name);
            bad = 1;
        }
        /* the format damps revolute and prismatic joints (the parser
         * refuses the others in both formulations); a spec built otherwise */
        if (J->damping > 0 && J->type != MBS_JOINT_REVOLUTE && J->type != MBS_JOINT_PRISMATIC) {
            mbs_err_add(err, ptr, "joint '%s': joint damping applies to revolute and prismatic joints", J->name);
            bad = 1;
        }
    }
    for (int e = 0; e < s->nforce; e++) {
        const mbs_force_spec *F = &s->forces[e];
        char ptr[64];
        snprintf(ptr, sizeof ptr, "/forces/%d", e);
        /* the elements mbs_rtree_applied evaluates; any other is refused
         * rather than left out of the equations */
        if (F->type != MBS_FORCE_SPRING_DAMPER && F->type != MBS_FORCE_POINT_FORCE && F->type != MBS_FORCE_TORQUE &&
            F->type != MBS_FORCE_ROTATIONAL_SPRING_DAMPER && F->type != MBS_FORCE_DC_MOTOR &&
            F->type != MBS_FORCE_JOINT_ACTUATOR) {
            mbs_err_add(err, ptr, "force '%s': solver.formulation \"relative\" does not run this element type yet; "
                        "use the natural formulation", F->name);
            bad = 1;
        }
        if (F->type == MBS_FORCE_DC_MOTOR || F->type == MBS_FORCE_JOINT_ACTUATOR) {
            int jt = F->joint >= 0 ? (int)s->joints[F->joint].type : -1;
            if (jt != MBS_JOINT_REVOLUTE && jt != MBS_JOINT_PRISMATIC) {
                mbs_err_add(err, ptr, "%s '%s': solver.formulation \"relative\" runs it on revolute or prismatic "
                            "joints only (for now); use the natural formulation",
                            F->type == MBS_FORCE_DC_MOTOR ? "dc_motor" : "joint_actuator", F->name);
                bad = 1;
            }
            /* a rotor between moving bodies or on a prismatic joint: in the
             * recursion at its joint's node, a tree joint, or a row of its
             * own on a chord (docs/actuators.md, tree.h mbs_rrotor); the
             * tree keeps a motor's joint out of the chords where its loop
             * allows */
        }
        if (F->type == MBS_FORCE_ROTATIONAL_SPRING_DAMPER) {
            int j = F->joint;
            if (j < 0 || s->joints[j].type != MBS_JOINT_REVOLUTE) {
                mbs_err_add(err, ptr, "rotational spring '%s': solver.formulation \"relative\" needs its joint to be "
                            "a revolute joint", F->name);
                bad = 1;
            }
        }
    }
    for (int d = 0; d < s->ndriver; d++) {
        int j = s->drivers[d].joint;
        char ptr[64];
        snprintf(ptr, sizeof ptr, "/drivers/%d", d);
        if (j < 0 || (s->joints[j].type != MBS_JOINT_REVOLUTE && s->joints[j].type != MBS_JOINT_PRISMATIC)) {
            mbs_err_add(err, ptr, "solver.formulation \"relative\" runs drivers of revolute and prismatic joints "
                        "only (joint '%s')", j >= 0 ? s->joints[j].name : "?");
            bad = 1;
        }
    }
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
    nd->dof = kind == MBS_RN_RIGID ? 0 : kind == MBS_RN_BALL ? 3 : 1;
    nd->coord = nd->dof ? t->n : -1;
    nd->qcoord = nd->dof ? t->nq : -1;
    t->n += nd->dof;
    t->nq += kind == MBS_RN_BALL ? 4 : nd->dof;
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
        if (t->dim == 3) {
            last = s_add_node(t, MBS_RN_PRISMATIC, last, -1, B->com, ez);
            return s_add_node(t, MBS_RN_BALL, last, -1, B->com, ez);
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
    case MBS_JOINT_SPHERICAL: return s_add_node(t, MBS_RN_BALL, pn, j, J->at, ez);
    default: /* fixed */
        return s_add_node(t, MBS_RN_RIGID, pn, j, J->at, ax);
    }
}

static int s_joint_nodes_count(const mbs_spec *s, const mbs_sysgraph *g, int b)
{
    if (g->parent[b] == -2) return s->dim == 3 ? 4 : 3;
    switch (s->joints[g->parent_joint[b]].type) {
    case MBS_JOINT_CYLINDRICAL:
    case MBS_JOINT_UNIVERSAL: return 2;
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
    mbs_req *e = &t->eq[t->nceq++];
    memset(e, 0, sizeof *e);
    e->kind = MBS_REQ_DOT;
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

/* The rheonomic circuit equation of a driver of chord j (see mbs_req):
 * the relative angle of a revolute chord, the slide of a prismatic one,
 * equal to the motion fn. */
static void s_chord_driver_eq(mbs_rtree *t, int j, const mbs_fn *fn)
{
    const mbs_joint_spec *J = &t->spec->joints[j];
    int A = J->body[0], B = J->body[1];
    mbs_req *e = &t->eq[t->nceq++];
    memset(e, 0, sizeof *e);
    e->joint = j;
    e->fn = fn;
    double u[3] = {0, 0, 1}, n1[3] = {1, 0, 0}, n2[3] = {0, 1, 0};
    if (J->type == MBS_JOINT_PRISMATIC) {
        v3unit(J->axis, u);
        if (t->dim == 2) { u[2] = 0; v3unit(u, u); }
        e->kind = MBS_REQ_SLIDE;
        e->a = s_vec(A, u);
        e->b = s_pdiff(B, J->at, A, J->at);
        return;
    }
    if (t->dim == 3) { /* in the plane: the axis z, n1 x, n2 = z x x = y */
        v3unit(J->axis, u);
        s_perp(u, n1, n2);
    }
    e->kind = MBS_REQ_ANGLE;
    e->a = s_vec(A, n1);
    e->a2 = s_vec(A, n2);
    e->b = s_vec(B, n1);
}

void mbs_rtree_free(mbs_rtree *t)
{
    free(t->node); free(t->body_node); free(t->inertia); free(t->eq);
    free(t->drv_coord); free(t->drv_qcoord); free(t->drv_sign); free(t->drv_fn); free(t->rr);
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
    for (int d = 0; d < s->ndriver; d++) neq += s->drivers[d].joint >= 0 && !t->g.branch[s->drivers[d].joint];
    t->node = calloc((size_t)nnode + 1, sizeof *t->node);
    t->body_node = calloc((size_t)nb + 1, sizeof(int));
    t->inertia = calloc((size_t)nb + 1, sizeof *t->inertia);
    t->eq = calloc((size_t)neq + 1, sizeof *t->eq);
    t->drv_coord = calloc((size_t)s->ndriver + 1, sizeof(int));
    t->drv_qcoord = calloc((size_t)s->ndriver + 1, sizeof(int));
    t->drv_sign = calloc((size_t)s->ndriver + 1, sizeof(double));
    t->drv_fn = calloc((size_t)s->ndriver + 1, sizeof(const mbs_fn *));
    t->rr = calloc((size_t)s->nforce + 1, sizeof *t->rr);
    if (!t->rr || !t->node || !t->body_node || !t->inertia || !t->eq || !t->drv_coord || !t->drv_qcoord || !t->drv_sign ||
        !t->drv_fn) {
        mbs_rtree_free(t);
        return MBS_ENOMEM;
    }
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
        /* the rotors of dc_motors on revolute joints from the ground to
         * this body: J N^2 about the joint's axis, as the natural
         * coordinates add them (ncs.c) */
        for (int e = 0; e < s->nforce; e++) {
            const mbs_force_spec *F = &s->forces[e];
            if (F->type != MBS_FORCE_DC_MOTOR || !(F->motor.J > 0) || F->joint < 0) continue;
            const mbs_joint_spec *Jt = &s->joints[F->joint];
            if (Jt->body[0] != b && Jt->body[1] != b) continue;
            /* between moving bodies, and on a prismatic joint: at the
             * joint's node (below) */
            if ((Jt->body[0] != MBS_GROUND && Jt->body[1] != MBS_GROUND) || Jt->type == MBS_JOINT_PRISMATIC) continue;
            double add = F->motor.J * F->motor.ratio * F->motor.ratio;
            if (s->dim == 2) { I->Ic[8] += add; continue; }
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) I->Ic[3 * i + j] += add * Jt->axis[i] * Jt->axis[j];
        }
    }
    /* the rotors between moving bodies (planar revolute tree joints,
     * mbs_rtree_supported): the stator on the joint's body[0]; on
     * prismatic tree joints: an armature J / lead^2 on the joint's rate;
     * in space, on revolute and prismatic tree joints between moving
     * bodies: the rotor's geared rate (tree.h, rotor_J) */
    for (int e = 0; e < s->nforce; e++) {
        const mbs_force_spec *F = &s->forces[e];
        if (F->type != MBS_FORCE_DC_MOTOR || !(F->motor.J > 0) || F->joint < 0) continue;
        const mbs_joint_spec *Jt = &s->joints[F->joint];
        int moving = Jt->body[0] != MBS_GROUND && Jt->body[1] != MBS_GROUND;
        if (t->dim == 3 && moving && !t->g.branch[F->joint]) {
            /* on a chord in space: the spin's row (kind 2, 3) and the
             * disk's transverse inertia J/2 (1 - a a^T) fixed in the
             * stator's body A (tree.h, mbs_rrotor) */
            mbs_rrotor *r = &t->rr[t->nrr++];
            double u[3] = {0, 0, 0};
            v3unit(Jt->axis, u);
            memset(r, 0, sizeof *r);
            r->joint = F->joint;
            r->n = F->motor.ratio;
            r->mu = F->motor.J;
            r->kind = Jt->type == MBS_JOINT_PRISMATIC ? 3 : 2;
            r->a = s_vec(Jt->body[0], u);
            if (r->kind == 3) r->b = s_pdiff(Jt->body[1], Jt->at, Jt->body[0], Jt->at);
            double *Ic = t->inertia[Jt->body[0]].Ic;
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) Ic[3 * i + j] += 0.5 * F->motor.J * ((i == j) - u[i] * u[j]);
            continue;
        }
        if (t->dim == 3 && moving) {
            /* the spatial rotor rides its joint's node */
            for (int i = 0; i < t->nnode; i++) {
                mbs_rnode *nd = &t->node[i];
                if (nd->joint != F->joint || nd->dof != 1 || nd->body < 0) continue;
                /* w_r = w_parent + n q' a: the stator A = body[0] turns
                 * with the parent (n = N) or with the child (n = 1 - N on
                 * a revolute: q' a is A's rate; a prismatic's slide rate is
                 * -q' with the child body[0]: n = -N) */
                double N = F->motor.ratio, n = N;
                if (nd->body == Jt->body[0]) n = Jt->type == MBS_JOINT_PRISMATIC ? -N : 1 - N;
                nd->rotor_J += F->motor.J;
                nd->rotor_Jn += F->motor.J * n;
                nd->rotor_Jn2 += F->motor.J * n * n;
            }
            continue;
        }
        /* on a chord: a row of its own (mbs_rrotor) */
        if (!t->g.branch[F->joint] && (Jt->type == MBS_JOINT_PRISMATIC || moving)) {
            mbs_rrotor *r = &t->rr[t->nrr++];
            memset(r, 0, sizeof *r);
            r->joint = F->joint;
            r->n = F->motor.ratio;
            if (Jt->type == MBS_JOINT_PRISMATIC) {
                double u[3] = {0, 0, 0};
                v3unit(Jt->axis, u);
                if (t->dim == 2) { u[2] = 0; v3unit(u, u); }
                r->kind = 1;
                r->mu = F->motor.J * F->motor.ratio * F->motor.ratio;
                r->a = s_vec(Jt->body[0], u);
                r->b = s_pdiff(Jt->body[1], Jt->at, Jt->body[0], Jt->at);
            } else {
                r->kind = 0;
                r->mu = F->motor.J;
            }
            continue;
        }
        if (Jt->type == MBS_JOINT_PRISMATIC) {
            for (int i = 0; i < t->nnode; i++)
                if (t->node[i].joint == F->joint && t->node[i].kind == MBS_RN_PRISMATIC)
                    t->node[i].rotor_m += F->motor.J * F->motor.ratio * F->motor.ratio;
            continue;
        }
        if (Jt->body[0] == MBS_GROUND || Jt->body[1] == MBS_GROUND) continue;
        for (int i = 0; i < t->nnode; i++) {
            mbs_rnode *nd = &t->node[i];
            if (nd->joint != F->joint || nd->dof != 1 || nd->body < 0) continue;
            double n = nd->body == Jt->body[0] ? 1 - F->motor.ratio : F->motor.ratio;
            nd->rotor_J += F->motor.J;
            nd->rotor_Jn += F->motor.J * n;
            nd->rotor_Jn2 += F->motor.J * n * n;
        }
    }
    for (int c = 0; c < t->g.nchord; c++) s_chord_eqs(t, t->g.chords[c]);
    /* drivers of tree joints: the child's node carries the joint's one
     * freedom; of chords: a rheonomic circuit equation */
    for (int d = 0; d < s->ndriver; d++) {
        int j = s->drivers[d].joint;
        if (j < 0 || (s->joints[j].type != MBS_JOINT_REVOLUTE && s->joints[j].type != MBS_JOINT_PRISMATIC)) {
            mbs_err_add(err, "/drivers", "driver of joint '%s': not a revolute or prismatic joint",
                        j >= 0 ? s->joints[j].name : "?");
            mbs_rtree_free(t);
            return MBS_EINVAL;
        }
        if (!t->g.branch[j]) {
            s_chord_driver_eq(t, j, &s->drivers[d].motion);
            continue;
        }
        const mbs_joint_spec *J = &s->joints[j];
        int child = J->body[1] >= 0 && t->g.parent_joint[J->body[1]] == j ? J->body[1] : J->body[0];
        t->drv_coord[t->ndrv] = t->node[t->body_node[child]].coord;
        t->drv_qcoord[t->ndrv] = t->node[t->body_node[child]].qcoord;
        t->drv_sign[t->ndrv] = child == J->body[1] ? 1.0 : -1.0;
        t->drv_fn[t->ndrv] = &s->drivers[d].motion;
        t->ndrv++;
    }
    t->neq = t->nceq + t->ndrv;
    return 0;
}

int mbs_rtree_ws_new(const mbs_rtree *t, mbs_rtree_ws *w)
{
    memset(w, 0, sizeof *w);
    size_t nn = (size_t)t->nnode + 1, n = (size_t)t->n + 1, m = (size_t)(t->neq + t->nrr) + 1;
    size_t nb = (size_t)t->spec->nbody + 1;
    w->R = malloc(sizeof(double) * 9 * nn);
    w->p = malloc(sizeof(double) * 3 * nn);
    w->S = calloc(n, sizeof(mbs_twist));
    w->V = calloc(nn, sizeof(mbs_twist));
    w->c = calloc(nn, sizeof(mbs_twist));
    w->A = calloc(nn, sizeof(mbs_twist));
    w->pA = calloc(nn, sizeof(mbs_wrench));
    w->fext = calloc(nb, sizeof(mbs_wrench));
    w->IA = malloc(sizeof(double) * 36 * nn);
    w->U = calloc(6 * n, sizeof(double));
    w->Dinv = calloc(9 * nn, sizeof(double));
    w->uu = calloc(n, sizeof(double));
    w->phi = calloc(m, sizeof(double));
    w->phid = calloc(m, sizeof(double));
    w->bias = calloc(m, sizeof(double));
    w->J = calloc(m * n, sizeof(double));
    w->Y = calloc(m * n, sizeof(double));
    w->K = calloc(m * m, sizeof(double));
    w->rhs = calloc(m, sizeof(double));
    w->lam = calloc(m, sizeof(double));
    w->ord = calloc(m, sizeof(int));
    w->Kc = calloc(m * m + m, sizeof(double));
    w->qdd0 = calloc(n, sizeof(double));
    w->tau = calloc(n, sizeof(double));
    w->jq = calloc(9 * n, sizeof(double));
    w->jangle = calloc((size_t)t->spec->njoint + 1, sizeof(double));
    w->fj = calloc(nn, sizeof(mbs_wrench));
    w->fc = calloc(nb, sizeof(mbs_wrench));
    w->fchord = calloc((size_t)t->spec->njoint + 1, sizeof(mbs_wrench));
    if (!w->R || !w->p || !w->S || !w->V || !w->c || !w->A || !w->pA || !w->fext || !w->IA || !w->U || !w->Dinv ||
        !w->uu || !w->phi || !w->phid || !w->bias || !w->J || !w->Y || !w->K || !w->rhs || !w->lam || !w->ord || !w->Kc || !w->qdd0 ||
        !w->tau || !w->jq || !w->jangle || !w->fj || !w->fc || !w->fchord) {
        mbs_rtree_ws_free(w);
        return MBS_ENOMEM;
    }
    w->nchord_eq = t->neq;
    w->pivot_ratio = 1;
    return 0;
}

void mbs_rtree_ws_free(mbs_rtree_ws *w)
{
    free(w->R); free(w->p); free(w->S); free(w->V); free(w->c); free(w->A); free(w->pA); free(w->fext);
    free(w->IA); free(w->U); free(w->Dinv); free(w->uu); free(w->phi); free(w->phid); free(w->bias); free(w->J);
    free(w->Y); free(w->K); free(w->rhs); free(w->lam); free(w->ord); free(w->Kc); free(w->qdd0); free(w->tau); free(w->jq);
    free(w->fj); free(w->fc); free(w->fchord); free(w->jangle);
    memset(w, 0, sizeof *w);
}

/* ---- joint coordinates from poses ------------------------------------------------------ */

int mbs_rtree_from_poses(const mbs_rtree *t, mbs_rtree_ws *w, const double *R, const double *p,
                         const mbs_twist *V, double *q, double *u)
{
    const mbs_spec *s = t->spec;
    int nb = s->nbody;
    memset(q, 0, sizeof(double) * (size_t)(t->nq > 0 ? t->nq : 1));
    memset(u, 0, sizeof(double) * (size_t)(t->n > 0 ? t->n : 1));
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
                q[n0->qcoord] = sft[0];
                q[n0->qcoord + 1] = sft[1];
                q[n0->qcoord + 2] = s_angle_about(RG, ez);
            } else {
                for (int a = 0; a < 3; a++) q[n0->qcoord + a] = sft[a];
                mat_to_quat(RG, q + t->node[last].qcoord); /* w >= 0 */
            }
            continue;
        }
        const mbs_joint_spec *J = &s->joints[t->g.parent_joint[b]];
        switch (J->type) {
        case MBS_JOINT_REVOLUTE: q[n0->qcoord] = s_angle_about(RG, n0->u); break;
        case MBS_JOINT_PRISMATIC: q[n0->qcoord] = v3dot(n0->u, pG); break;
        case MBS_JOINT_CYLINDRICAL: {
            double Rp[3], x[3];
            s_rot(RG, 0, n0->p, Rp);
            for (int a = 0; a < 3; a++) x[a] = pG[a] - (n0->p[a] - Rp[a]);
            q[n0->qcoord] = v3dot(n0->u, x);
            q[n0->qcoord + 1] = s_angle_about(RG, n0->u);
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
            q[n0->qcoord] = al;
            q[n1->qcoord] = s_angle_about(Rr, n1->u);
            break;
        }
        case MBS_JOINT_SPHERICAL: mat_to_quat(RG, q + n0->qcoord); break; /* w >= 0 */
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
        for (int i = t->body_node[b]; i != stop; i = t->node[i].parent)
            for (int a = 0; a < t->node[i].dof && k < 6; a++) idx[k++] = t->node[i].coord + a;
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
            for (int j = c + 1; j < k; j++) acc -= N[c * k + j] * u[idx[j]];
            u[idx[c]] = acc / N[c * k + c];
        }
    }
    return 0;
}

/* ---- coordinates and rates ------------------------------------------------------------- */

/* p (x) q of quaternions w x y z */
static void s_qmul(const double *a, const double *b, double *o)
{
    double r[4] = {a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
                   a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
                   a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
                   a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]};
    memcpy(o, r, sizeof r);
}

void mbs_rtree_qdot(const mbs_rtree *t, const double *q, const double *u, double *qdot)
{
    for (int i = 0; i < t->nnode; i++) {
        const mbs_rnode *nd = &t->node[i];
        if (nd->kind == MBS_RN_BALL) {
            double wq[4] = {0, 0.5 * u[nd->coord], 0.5 * u[nd->coord + 1], 0.5 * u[nd->coord + 2]};
            s_qmul(wq, q + nd->qcoord, qdot + nd->qcoord);
        } else if (nd->dof == 1) {
            qdot[nd->qcoord] = u[nd->coord];
        }
    }
}

void mbs_rtree_qddot(const mbs_rtree *t, const double *q, const double *u, const double *udd, const double *qdot,
                     double *qddot)
{
    for (int i = 0; i < t->nnode; i++) {
        const mbs_rnode *nd = &t->node[i];
        if (nd->kind == MBS_RN_BALL) {
            double aq[4] = {0, 0.5 * udd[nd->coord], 0.5 * udd[nd->coord + 1], 0.5 * udd[nd->coord + 2]};
            double wq[4] = {0, 0.5 * u[nd->coord], 0.5 * u[nd->coord + 1], 0.5 * u[nd->coord + 2]}, x[4], y[4];
            s_qmul(aq, q + nd->qcoord, x);
            s_qmul(wq, qdot + nd->qcoord, y);
            for (int k = 0; k < 4; k++) qddot[nd->qcoord + k] = x[k] + y[k];
        } else if (nd->dof == 1) {
            qddot[nd->qcoord] = udd[nd->coord];
        }
    }
}

void mbs_rtree_rates(const mbs_rtree *t, const double *q, const double *qdot, double *u)
{
    for (int i = 0; i < t->nnode; i++) {
        const mbs_rnode *nd = &t->node[i];
        if (nd->kind == MBS_RN_BALL) {
            const double *qq = q + nd->qcoord;
            double n2 = qq[0] * qq[0] + qq[1] * qq[1] + qq[2] * qq[2] + qq[3] * qq[3];
            double qc[4] = {qq[0], -qq[1], -qq[2], -qq[3]}, x[4];
            s_qmul(qdot + nd->qcoord, qc, x);
            for (int k = 0; k < 3; k++) u[nd->coord + k] = n2 > 0 ? 2 * x[1 + k] / n2 : 0;
        } else if (nd->dof == 1) {
            u[nd->coord] = qdot[nd->qcoord];
        }
    }
}

double mbs_rtree_qscale(const mbs_rtree *t, int i, double length)
{
    for (int k = 0; k < t->nnode; k++) {
        const mbs_rnode *nd = &t->node[k];
        int nq = nd->kind == MBS_RN_BALL ? 4 : nd->dof;
        if (nd->dof && i >= nd->qcoord && i < nd->qcoord + nq) return nd->kind == MBS_RN_PRISMATIC ? length : 1.0;
    }
    return 1.0;
}

double mbs_rtree_uscale(const mbs_rtree *t, int i, double length)
{
    for (int k = 0; k < t->nnode; k++) {
        const mbs_rnode *nd = &t->node[k];
        if (nd->dof && i >= nd->coord && i < nd->coord + nd->dof) return nd->kind == MBS_RN_PRISMATIC ? length : 1.0;
    }
    return 1.0;
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

void mbs_rtree_advance(const mbs_rtree *t, const double *q, const double *u, double s, double *qout)
{
    if (qout != q) memcpy(qout, q, sizeof(double) * (size_t)t->nq);
    for (int i = 0; i < t->nnode; i++) {
        const mbs_rnode *nd = &t->node[i];
        if (nd->dof == 1) {
            qout[nd->qcoord] += s * u[nd->coord];
        } else if (nd->kind == MBS_RN_BALL) {
            /* the rotation by the angle vector s w about the parent's
             * reference axes, before the joint's: q <- exp(s w / 2) (x) q */
            const double *w = u + nd->coord;
            double d[3] = {s * w[0], s * w[1], s * w[2]};
            double th = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]), sh = th > 0 ? sin(0.5 * th) / th : 0.5;
            double e[4] = {cos(0.5 * th), sh * d[0], sh * d[1], sh * d[2]}, o[4];
            s_qmul(e, qout + nd->qcoord, o);
            double nq = sqrt(o[0] * o[0] + o[1] * o[1] + o[2] * o[2] + o[3] * o[3]);
            for (int k = 0; k < 4; k++) qout[nd->qcoord + k] = o[k] / nq;
        }
    }
}

/* s = 1 multiplies exactly: the same arithmetic as the step itself */
void mbs_rtree_q_add(const mbs_rtree *t, double *q, const double *du)
{
    mbs_rtree_advance(t, q, du, 1.0, q);
}
