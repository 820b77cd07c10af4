/*
 * relative.c - relative-coordinate runs and the bridge to the natural
 * coordinates of the outputs (relative.h).
 */
#include "mbs/run/relative.h"

#include "mbs/contact/contact.h"
#include "mbs/dynamics/force.h"
#include "mbs/formulation/natural/natural.h"
#include "mbs/integrate/integrator_rel.h"
#include "mbs/linalg/vec.h"
#include "mbs/model/accuracy.h"
#include "mbs/output/output.h"
#include "mbs/run/run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The slide variables of rotors on prismatic joints between moving bodies
 * (ncs.c s_slide_rotors: ax_A . (x_B(P) - x_A(P)) - s = 0) at the mapped
 * x, v (and a): s, its rate and acceleration from the joint's vectors. */
static void s_slide_vars(const mbs_model *m, double *x, double *v, double *a)
{
    for (int r = 0; r < m->nsrotor; r++) {
        const mbs_jgeom *g = &m->jg[m->srotor[r].joint];
        double ax[3] = {0}, axd[3] = {0}, axa[3] = {0}, d[3] = {0}, dd[3] = {0}, da[3] = {0};
        mbs_avec_eval(m, &g->ax, x, 0, ax);
        mbs_avec_eval(m, &g->ax, v, 1, axd);
        mbs_avec_eval(m, &g->d, x, 0, d);
        mbs_avec_eval(m, &g->d, v, 1, dd);
        int k = m->srotor[r].var;
        x[k] = v3dot(ax, d);
        v[k] = v3dot(axd, d) + v3dot(ax, dd);
        if (a) {
            mbs_avec_eval(m, &g->ax, a, 1, axa);
            mbs_avec_eval(m, &g->d, a, 1, da);
            a[k] = v3dot(axa, d) + 2 * v3dot(axd, dd) + v3dot(ax, da);
        }
    }
}

/* The spatial rotors' variables (ncs.c s_space_rotors) at the mapped x,
 * v (and a), after s_slide_vars: a revolute joint's angle th (its tree
 * node's coordinate, continuous: e and f turn by N th), its rate a . (w_B
 * - w_A) and acceleration a . (al_B - al_A) + (w_A x a) . (w_B - w_A) with
 * a the joint's axis in A; a slide's th is its slide variable's.  Then e =
 * cos(N th) u0 + sin(N th) v0, f = -sin(N th) u0 + cos(N th) v0 and their
 * derivatives from A's u0, v0. */
static void s_rotor3_vars(const mbs_model *m, const mbs_rtree *t, const mbs_rtree_ws *w, double *x, double *v,
                          double *a)
{
    for (int r = 0; r < m->nrotor3; r++) {
        const struct mbs_rotor3 *ro = &m->rotor3[r];
        const mbs_joint_spec *J = &m->spec->joints[ro->joint];
        int k = ro->var_th;
        if (!ro->slide) {
            double RA[9], ax[3], u[3] = {0, 0, 0}, dw[3], wa[3];
            mbs_twist VA, VB, AA, AB;
            mbs_rtree_body(t, w, J->body[0], RA, NULL, &VA, &AA);
            mbs_rtree_body(t, w, J->body[1], NULL, NULL, &VB, &AB);
            v3unit(J->axis, u);
            for (int i = 0; i < 3; i++) ax[i] = RA[3 * i] * u[0] + RA[3 * i + 1] * u[1] + RA[3 * i + 2] * u[2];
            v3sub(VB.w, VA.w, dw);
            if (t->g.branch[ro->joint] && w->q) {
                int b1 = J->body[1], child = b1 >= 0 && t->g.parent_joint[b1] == ro->joint ? b1 : J->body[0];
                x[k] = (child == b1 ? 1.0 : -1.0) * w->q[t->node[t->body_node[child]].qcoord];
            } else {
                x[k] = mbs_rtree_joint_angle(t, w, ro->joint);
            }
            v[k] = v3dot(ax, dw);
            if (a) {
                double da[3];
                v3sub(AB.w, AA.w, da);
                v3cross(VA.w, ax, wa);
                a[k] = v3dot(ax, da) + v3dot(wa, dw);
            }
        }
        const mbs_jgeom *g = &m->jg[ro->joint];
        double u0[3] = {0}, v0[3] = {0}, du0[3] = {0}, dv0[3] = {0}, au0[3] = {0}, av0[3] = {0};
        mbs_avec_eval(m, &g->u0, x, 0, u0);
        mbs_avec_eval(m, &g->v0, x, 0, v0);
        mbs_avec_eval(m, &g->u0, v, 1, du0);
        mbs_avec_eval(m, &g->v0, v, 1, dv0);
        double ph = ro->N * x[k], c = cos(ph), sn = sin(ph), om = ro->N * v[k];
        double al = a ? ro->N * a[k] : 0;
        if (a) {
            mbs_avec_eval(m, &g->u0, a, 1, au0);
            mbs_avec_eval(m, &g->v0, a, 1, av0);
        }
        for (int i = 0; i < 3; i++) {
            double e = c * u0[i] + sn * v0[i], f = -sn * u0[i] + c * v0[i];
            double ed0 = c * du0[i] + sn * dv0[i], fd0 = -sn * du0[i] + c * dv0[i];
            x[ro->var_e + i] = e;
            x[ro->var_e + 3 + i] = f;
            v[ro->var_e + i] = ed0 + om * f;
            v[ro->var_e + 3 + i] = fd0 - om * e;
            if (a) {
                a[ro->var_e + i] = c * au0[i] + sn * av0[i] + 2 * om * fd0 + al * f - om * om * e;
                a[ro->var_e + 3 + i] = -sn * au0[i] + c * av0[i] - 2 * om * ed0 - al * e - om * om * f;
            }
        }
    }
}

void mbs_rel_to_natural(const mbs_model *m, const mbs_rtree *t, const mbs_rtree_ws *w, double *x, double *v,
                        double *a)
{
    int dim = m->dim;
    for (int b = 0; b < m->nbody; b++) {
        const mbs_body *bd = &m->body[b];
        double R[9], p[3];
        mbs_twist V, A;
        mbs_rtree_body(t, w, b, R, p, &V, &A);
        for (int k = 0; k <= (dim == 3 ? 3 : 1); k++) {
            int is_point = k == 0 || bd->vec_is_point[k - 1];
            double r[3] = {bd->q0[dim * k], bd->q0[dim * k + 1], dim == 3 ? bd->q0[dim * k + 2] : 0};
            double X[3], Xd[3], Xa[3], wv[3];
            /* the slot at the pose, its velocity and acceleration */
            for (int i = 0; i < 3; i++) X[i] = R[3 * i] * r[0] + R[3 * i + 1] * r[1] + R[3 * i + 2] * r[2];
            if (is_point) {
                for (int i = 0; i < 3; i++) X[i] += p[i];
                mbs_twist_point_velocity(&V, X, Xd);
                mbs_twist_point_velocity(&A, X, Xa);
            } else {
                v3cross(V.w, X, Xd);
                v3cross(A.w, X, Xa);
            }
            v3cross(V.w, Xd, wv);
            for (int i = 0; i < 3; i++) Xa[i] += wv[i];
            for (int c = 0; c < dim; c++) {
                int var = bd->var[dim * k + c];
                if (var < 0) continue;
                x[var] = X[c];
                v[var] = Xd[c];
                if (a) a[var] = Xa[c];
            }
        }
        /* a rotor's angle variable (planar): the body's rotation since t =
         * 0 modulo 2 pi (its equation is periodic, its mass acts on the
         * rate only), its rate and acceleration */
        if (bd->avar >= 0) {
            x[bd->avar] = atan2(R[3], R[0]);
            v[bd->avar] = V.w[2];
            if (a) a[bd->avar] = A.w[2];
        }
    }
    s_slide_vars(m, x, v, a);
    s_rotor3_vars(m, t, w, x, v, a);
}

int mbs_rel_from_natural(const mbs_model *m, const mbs_rtree *t, mbs_rtree_ws *w, const double *x, const double *v,
                         double *q, double *u)
{
    int nb = m->nbody, dim = m->dim, rc = 0;
    double *R = malloc(sizeof(double) * 9 * (size_t)(nb > 0 ? nb : 1));
    double *p = malloc(sizeof(double) * 3 * (size_t)(nb > 0 ? nb : 1));
    mbs_twist *V = malloc(sizeof(mbs_twist) * (size_t)(nb > 0 ? nb : 1));
    if (!R || !p || !V) { free(R); free(p); free(V); return -1; }
    for (int b = 0; b < nb && !rc; b++) {
        const mbs_body *bd = &m->body[b];
        double qb[MBS_NB_MAX], qd[MBS_NB_MAX], E[9], Ed[9], E0[9], E0i[9], Ei[9], W[9];
        mbs_gather(m, b, x, 0, qb);
        mbs_gather(m, b, v, 1, qd);
        mbs_ncs_matrix(m, b, qb, E);
        mbs_ncs_matrix(m, b, qd, Ed);
        mbs_ncs_matrix(m, b, bd->q0, E0);
        if (dim == 2) Ed[8] = 0;
        if (m3inv(E0, E0i) == 0 || m3inv(E, Ei) == 0) { rc = -1; break; }
        /* rotation from the reference configuration, and the reference origin's image */
        double *Rb = R + 9 * b, r0[3] = {qb[0], qb[1], dim == 3 ? qb[2] : 0};
        double r0ref[3] = {bd->q0[0], bd->q0[1], dim == 3 ? bd->q0[2] : 0}, rr[3];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                Rb[3 * i + j] = E[3 * i] * E0i[j] + E[3 * i + 1] * E0i[3 + j] + E[3 * i + 2] * E0i[6 + j];
        for (int i = 0; i < 3; i++) rr[i] = Rb[3 * i] * r0ref[0] + Rb[3 * i + 1] * r0ref[1] + Rb[3 * i + 2] * r0ref[2];
        for (int i = 0; i < 3; i++) p[3 * b + i] = r0[i] - rr[i];
        /* angular velocity from E' = [w]x E, the twist at the world origin */
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                W[3 * i + j] = Ed[3 * i] * Ei[j] + Ed[3 * i + 1] * Ei[3 + j] + Ed[3 * i + 2] * Ei[6 + j];
        double om[3] = {0.5 * (W[7] - W[5]), 0.5 * (W[2] - W[6]), 0.5 * (W[3] - W[1])}, wr[3];
        double r0d[3] = {qd[0], qd[1], dim == 3 ? qd[2] : 0};
        v3cross(om, r0, wr);
        v3copy(om, V[b].w);
        for (int i = 0; i < 3; i++) V[b].v[i] = r0d[i] - wr[i];
    }
    if (!rc) rc = mbs_rtree_from_poses(t, w, R, p, V, q, u);
    free(R); free(p); free(V);
    return rc;
}

/* ---- what the run adds to the tree's forces: contacts, motors with states ------------- */

/* What the hook needs: the run, its integrator state (the element states
 * of the evaluation under way), and scratch for the natural state and the
 * per-body generalized forces. */
typedef struct {
    const mbs_model *m;
    mbs_data *d;
    mbs_rel_state *s;
    double *x, *v;  /* (nvar)                                                    */
    double *Qb;     /* (nbody x nb)                                              */
} s_contacts;

/* The compliant contacts' forces at the natural state (c->x, c->v) of w,
 * by the natural coordinates' contact module, each body's generalized
 * forces on its NCS slots turned into the wrench that does the same work
 * in any rigid motion of the body (a point slot X with force Q: force Q
 * and moment X x Q; a unit-vector slot: moment X x Q). */
static void s_contact_wrenches(s_contacts *c, mbs_rtree_ws *w)
{
    const mbs_model *m = c->m;
    int dim = m->dim, nb = m->nb;
    memset(c->Qb, 0, sizeof(double) * (size_t)m->nbody * (size_t)nb);
    mbs_contact_forces_body(m, c->d, c->x, c->v, c->Qb);
    for (int b = 0; b < m->nbody; b++) {
        const mbs_body *bd = &m->body[b];
        const double *Q = c->Qb + (size_t)b * nb;
        double qb[MBS_NB_MAX];
        mbs_gather(m, b, c->x, 0, qb);
        for (int k = 0; k <= (dim == 3 ? 3 : 1); k++) {
            int is_point = k == 0 || bd->vec_is_point[k - 1];
            double X[3] = {qb[dim * k], qb[dim * k + 1], dim == 3 ? qb[dim * k + 2] : 0};
            double F[3] = {Q[dim * k], Q[dim * k + 1], dim == 3 ? Q[dim * k + 2] : 0}, n[3];
            if (F[0] == 0 && F[1] == 0 && F[2] == 0) continue;
            v3cross(X, F, n);
            for (int i = 0; i < 3; i++) {
                w->fext[b].n[i] += n[i];
                if (is_point) w->fext[b].f[i] += F[i];
            }
        }
    }
}

/* The dc_motors and joint actuators at the natural state (c->x, c->v) and
 * the element states of the evaluation under way (c->s->z_eval), by the
 * natural coordinates' motor and controller code (mbs_force_motor: the
 * current a state when the motor has inductance, the voltage a
 * controller's output when it has one; mbs_element_force: an actuator's
 * value or its controller's output): their torques on their joints, and
 * the element states' rates into c->s->zd_eval (mbs_force_zrate). */
static void s_motor_loads(s_contacts *c, const mbs_rtree *t, mbs_rtree_ws *w, double time)
{
    const mbs_model *m = c->m;
    const double *z = c->s->z_eval;
    for (int e = 0; e < m->spec->nforce; e++) {
        const mbs_force_spec *F = &m->spec->forces[e];
        if (F->type == MBS_FORCE_JOINT_ACTUATOR) {
            mbs_rtree_joint_load(t, w, F->joint, mbs_element_force(m, c->d, e, c->x, c->v, z, time, 0));
            continue;
        }
        if (F->type != MBS_FORCE_DC_MOTOR) continue;
        mbs_dcmotor_state st;
        mbs_force_motor(m, c->d, e, c->x, c->v, z, time, &st);
        mbs_rtree_joint_load(t, w, F->joint, st.torque);
    }
    if (m->nz > 0 && c->s->zd_eval) mbs_force_zrate(m, c->d, c->x, c->v, z, time, c->s->zd_eval);
}

/* mbs_rtree_ws.extra: the state of w mapped to the natural coordinates
 * once, then the contacts' and the motors' loads there. */
static void s_run_loads(void *ctx, const mbs_rtree *t, mbs_rtree_ws *w, double time)
{
    s_contacts *c = ctx;
    mbs_rel_to_natural(c->m, t, w, c->x, c->v, NULL);
    if (c->m->spec->ncontact > 0) s_contact_wrenches(c, w);
    if (w->motors_by_run) s_motor_loads(c, t, w, time);
}

/* mbs_rel_state.switch_at: where in the step a compliant contact starts or
 * ends (mbs_contact_switch on the mapped start and end states; the end's
 * kinematics are the last stage's, still in the state's workspace). */
typedef struct {
    const mbs_model *m;
    mbs_data *d;
    mbs_rtree_ws *ws;       /* scratch for the start's kinematics            */
    double *x0, *v0, *x1, *v1; /* (nvar)                                     */
} s_switch;

static double s_switch_at(void *ctx, const mbs_rel_state *s, const double *y0, const double *y1, double h)
{
    s_switch *c = ctx;
    (void)y1;
    mbs_rel_to_natural(c->m, s->tree, s->w, c->x1, c->v1, NULL);
    mbs_rtree_kinematics(s->tree, c->ws, y0, y0 + s->nq);
    mbs_rel_to_natural(c->m, s->tree, c->ws, c->x0, c->v0, NULL);
    return mbs_contact_switch(c->m, c->d, c->x0, c->v0, c->x1, c->v1, h);
}

/* ---- the run ------------------------------------------------------------------------- */

typedef struct {
    mbs_sampler *smp;
    mbs_rel_state *s;
    double tp, *qp, *qdp, *qddp; /* (nq) the previous accepted state: q, q', q'' */
    double *qd, *qdd;            /* (nq) q' and q'' of the step's end          */
    double *qs, *qds, *us, *udds; /* a sample's q, q' (nq), u, u' (n)          */
    mbs_rtree_ws *ws;           /* a sample's evaluations (s->w keeps the step's end) */
    double *rx;                 /* (njoint x 6) the joint reactions of a sample */
    double *zp, *zdp, *zs, *zds; /* (nz) element states and rates: the previous
                                   accepted state's, a sample's            */
    char *on;                   /* (neq) scratch of s_dependent            */
} s_relrun;

/* The joint reactions from the cutset wrenches of the state held by w
 * (after mbs_rtree_accel) handed to the reaction channels (when a channel
 * needs them). */
static void s_give_reactions(mbs_data *d, const mbs_rtree *t, mbs_rtree_ws *w, double *rx)
{
    if (!d->rx || !rx) return;
    mbs_rtree_reactions(t, w, rx);
    mbs_reaction_given(d, rx);
}

/* The energies of the relative state whose kinematics s->w holds: the
 * natural model's, at the bodies' mapped coordinates (the integrator's
 * energy projection, integrator_rel.h). */
typedef struct {
    const mbs_model *m;
    double *x, *v;   /* (nvar) scratch */
} s_energies;

static int s_energy_at(void *ctx, const mbs_rel_state *s, double t, double *T, double *V)
{
    s_energies *e = ctx;
    mbs_rel_to_natural(e->m, s->tree, s->w, e->x, e->v, NULL);
    *T = mbs_kinetic(e->m, e->v);
    *V = mbs_potential(e->m, e->x, t);
    return isfinite(*T) && isfinite(*V) ? 0 : 1;
}

/* The circuit and driver equations the tree's solves drop as dependent
 * (a redundant mechanism's: d->rep.redundant > 0) must still hold at the
 * booked state q (time t): their residual against the kept ones'
 * (mbs_run_dependent_violated).  Evaluated in the samples' workspace
 * r->ws, which the next sample evaluates again. */
static int s_dependent(const mbs_model *m, mbs_data *d, s_relrun *r, const double *q, double t, mbs_errlist *err)
{
    const mbs_rtree *tr = r->s->tree;
    mbs_rtree_ws *w = r->ws;
    if (d->rep.redundant <= 0 || tr->neq == 0) return 0;
    mbs_rtree_kinematics(tr, w, q, NULL);
    mbs_rtree_circuit(tr, w, t);
    mbs_rtree_independent_rows(tr, w, r->on);
    double r_on = 0, r_off = 0;
    for (int i = 0; i < tr->neq; i++) {
        if (r->on[i]) r_on = fmax(r_on, fabs(w->phi[i]));
        else r_off = fmax(r_off, fabs(w->phi[i]));
    }
    return mbs_run_dependent_violated(m, d, r_on, r_off, err) ? MBS_EINVAL : 0;
}

/* The run's book-keeping at the relative state held by w (time t) with
 * element states z, rates zd: mapped to d, then mbs_run_step_done over
 * (d->t, t]. */
static int s_book(const mbs_model *m, mbs_data *d, s_relrun *r, mbs_rtree_ws *w, const double *q, double t,
                  double h, const double *z, const double *zd, mbs_errlist *err)
{
    s_give_reactions(d, r->s->tree, w, r->rx);
    size_t nb = sizeof(double) * (size_t)m->nvar, zb = sizeof(double) * (size_t)m->nz;
    memcpy(d->xp, d->x, nb);
    memcpy(d->vp, d->v, nb);
    memcpy(d->ap, d->a, nb);
    memcpy(d->zp, d->z, zb);
    memcpy(d->zdp, d->zd, zb);
    memcpy(d->z, z, zb);
    memcpy(d->zd, zd, zb);
    d->tp = d->t;
    mbs_rel_to_natural(m, r->s->tree, w, d->x, d->v, d->a);
    d->t = t;
    int rc = s_dependent(m, d, r, q, t, err);
    return rc ? rc : mbs_run_step_done_ahead(m, d, r->smp, h, err);
}

/* The sampler's state_at (output.h): the state at time tg of the step from
 * r->tp to s->t, interpolated as the samples are (quintic Hermite on q,
 * cubic on z), mapped to natural coordinates; the samples' scratch (qs,
 * qds, us, ws) is free while the run's book-keeping runs. */
static void s_state_at(void *ctx, double tg, double *x, double *v, double *z)
{
    s_relrun *r = ctx;
    const mbs_rel_state *s = r->s;
    double t0 = r->tp, h = s->t - t0, u = (tg - t0) / h;
    double H[6], D[6];
    mbs_quintic_hermite(u, H, D, NULL);
    for (int i = 0; i < s->nq; i++) {
        double p0 = r->qp[i], p1 = s->q[i], m0 = h * r->qdp[i], m1 = h * r->qd[i];
        double c0 = h * h * r->qddp[i], c1 = h * h * r->qdd[i];
        r->qs[i] = H[0] * p0 + H[1] * m0 + H[2] * c0 + H[3] * c1 + H[4] * m1 + H[5] * p1;
        r->qds[i] = (D[0] * p0 + D[1] * m0 + D[2] * c0 + D[3] * c1 + D[4] * m1 + D[5] * p1) / h;
    }
    mbs_rtree_rates(s->tree, r->qs, r->qds, r->us);
    mbs_rtree_kinematics(s->tree, r->ws, r->qs, r->us);
    mbs_rel_to_natural(r->smp->m, s->tree, r->ws, x, v, NULL);
    double u2 = u * u, u3 = u2 * u;
    double g0 = 1 - 3 * u2 + 2 * u3, g1 = u - 2 * u2 + u3, g2 = 3 * u2 - 2 * u3, g3 = u3 - u2;
    for (int k = 0; k < s->nz; k++) z[k] = g0 * r->zp[k] + g1 * h * r->zdp[k] + g2 * s->z[k] + g3 * h * s->zd[k];
}

/* 1: a rotational spring-damper or a spatial rotor acts on a chord (its
 * angle is tracked, mbs_rtree_track_angles). */
static int s_chord_springs(const mbs_rtree *t)
{
    for (int e = 0; e < t->spec->nforce; e++) {
        const mbs_force_spec *F = &t->spec->forces[e];
        if (F->type == MBS_FORCE_ROTATIONAL_SPRING_DAMPER && F->joint >= 0 && !t->g.branch[F->joint]) return 1;
    }
    for (int k = 0; k < t->nrr; k++)
        if (t->rr[k].kind == 2) return 1;
    return 0;
}

/* The stepper's `done`: the output samples inside the accepted step are
 * taken at states interpolated in the joint coordinates (quintic Hermite on
 * q with u and qdd at both ends, then the accelerations at that state): a
 * step may turn a body by radians, along which the natural coordinates'
 * unit vectors are far from polynomial (a flywheel at 240 rad/s, steps of
 * 0.01 s: 0.47 rad/s off at the samples when they were interpolated
 * there); each is handed to the run as a step ending at the sample, then
 * the step's end. */
static int s_done(void *ctx, const mbs_model *m, mbs_data *d, mbs_errlist *err)
{
    s_relrun *r = ctx;
    mbs_rel_state *s = r->s;
    const mbs_solver_spec *o = &m->spec->solver;
    int nq = s->nq, rc = 0;
    double t0 = r->tp, t1 = s->t, h = t1 - t0;
    /* the chord springs' angles at the step's end: the branch beyond +-pi
     * that the next step's evaluations follow (both workspaces) */
    if (s_chord_springs(s->tree)) {
        mbs_rtree_kinematics(s->tree, r->ws, s->q, s->u);
        mbs_rtree_track_angles(s->tree, r->ws);
        memcpy(s->w->jangle, r->ws->jangle, sizeof(double) * (size_t)m->spec->njoint);
    }
    /* q' and q'' at the step's end (a ball's quaternion: not u and u') */
    mbs_rtree_qdot(s->tree, s->q, s->u, r->qd);
    mbs_rtree_qddot(s->tree, s->q, s->u, s->qdd, r->qd, r->qdd);
    while (!rc && h > 0 && r->smp->next < r->smp->nsample) {
        double ts = mbs_sample_time(r->smp, r->smp->next);
        if (ts >= t1 * (1 - 1e-13)) break;
        double H[6], D[6];
        mbs_quintic_hermite((ts - t0) / h, H, D, NULL);
        for (int i = 0; i < nq; i++) {
            double p0 = r->qp[i], p1 = s->q[i], m0 = h * r->qdp[i], m1 = h * r->qd[i];
            double c0 = h * h * r->qddp[i], c1 = h * h * r->qdd[i];
            r->qs[i] = H[0] * p0 + H[1] * m0 + H[2] * c0 + H[3] * c1 + H[4] * m1 + H[5] * p1;
            r->qds[i] = (D[0] * p0 + D[1] * m0 + D[2] * c0 + D[3] * c1 + D[4] * m1 + D[5] * p1) / h;
        }
        mbs_rtree_rates(s->tree, r->qs, r->qds, r->us);
        /* element states: cubic Hermite on their values and rates */
        double u = (ts - t0) / h, u2 = u * u, u3 = u2 * u;
        double g0 = 1 - 3 * u2 + 2 * u3, g1 = u - 2 * u2 + u3, g2 = 3 * u2 - 2 * u3, g3 = u3 - u2;
        for (int k = 0; k < s->nz; k++)
            r->zs[k] = g0 * r->zp[k] + g1 * h * r->zdp[k] + g2 * s->z[k] + g3 * h * s->zd[k];
        s->z_eval = r->zs;
        s->zd_eval = r->zds;
        if (mbs_rtree_accel(s->tree, r->ws, ts, r->qs, r->us, o->baumgarte_alpha, o->baumgarte_beta, r->udds) != 0) {
            mbs_err_add(err, "", "t = %.6g: singular articulated-body recursion at an output sample", ts);
            return MBS_ESINGULAR;
        }
        rc = s_book(m, d, r, r->ws, r->qs, ts, h, r->zs, r->zds, err);
    }
    /* the step's end: the integrator's last stage, still in s->w */
    if (!rc) rc = s_book(m, d, r, s->w, s->q, t1, h, s->z, s->zd, err);
    memcpy(r->zp, s->z, sizeof(double) * (size_t)s->nz);
    memcpy(r->zdp, s->zd, sizeof(double) * (size_t)s->nz);
    r->tp = t1;
    memcpy(r->qp, s->q, sizeof(double) * (size_t)nq);
    memcpy(r->qdp, r->qd, sizeof(double) * (size_t)nq);
    memcpy(r->qddp, r->qdd, sizeof(double) * (size_t)nq);
    return rc;
}

/* The kinematic analysis of a fully driven mechanism in joint coordinates
 * (the natural one's, run/kinematics.c, in the tree's): at each output time
 * the positions by Newton on the circuit and driver equations from the
 * previous sample's extrapolation (each step J's minimum-norm solution of
 * J dq = -Phi: a redundant chord equation takes no share), then the rates
 * J u = -Phi_t and the accelerations with the multipliers by
 * mbs_rtree_accel without drift terms (J of full column rank once the
 * mechanism is fully driven: the accelerations of J qdd = -J' u + f''
 * whatever the masses, the multipliers the drivers' forces and the
 * reactions, as the natural analysis recovers them); each sample mapped to
 * d and booked.  q, u, qdd: the state at the first sample (w holds it). */
static int s_kinematics(const mbs_model *m, mbs_data *d, mbs_sampler *smp, const mbs_rtree *t, mbs_rtree_ws *w,
                        double *q, double *u, double *qdd, double *rx, mbs_errlist *err)
{
    if (d->rep.dof > 0) {
        mbs_err_add(err, "/solver/analysis", "kinematic analysis needs a fully driven mechanism: %d degree(s) of "
                    "freedom are not driven (add drivers or use \"dynamics\")", d->rep.dof);
        return MBS_EINVAL;
    }
    const mbs_solver_spec *o = &m->spec->solver;
    int n = t->n, neq = t->neq, maxit = o->max_newton > 0 ? o->max_newton : 25;
    double *dq = calloc((size_t)n + 1, sizeof(double)), *r = calloc((size_t)neq + 1, sizeof(double));
    if (!dq || !r) { free(dq); free(r); return MBS_ENOMEM; }
    /* the equations (lengths, products of unit vectors and lengths,
     * angles) to 1e-11 of the model's size, or of 1 below a size of 1 */
    double tol = 1e-11 * fmax(1.0, m->length_scale);
    int rc = 0;
    for (int k = 1; k < smp->nsample && !rc; k++) {
        double t1 = mbs_sample_time(smp, k), h = t1 - d->t;
        for (int i = 0; i < n; i++) dq[i] = h * u[i] + 0.5 * h * h * qdd[i];
        mbs_rtree_q_add(t, q, dq);
        int ok = 0;
        for (int it = 0; it <= maxit; it++) {
            mbs_rtree_kinematics(t, w, q, NULL);
            mbs_rtree_circuit(t, w, t1);
            double worst = 0;
            for (int i = 0; i < neq; i++) worst = fmax(worst, fabs(w->phi[i]));
            if (worst <= tol) { ok = 1; break; }
            if (it == maxit) break;
            for (int i = 0; i < neq; i++) r[i] = -w->phi[i];
            mbs_rtree_min_norm(t, w, r, dq);
            mbs_rtree_q_add(t, q, dq);
            d->met.newton_iterations++;
        }
        if (!ok) {
            mbs_err_add(err, "", "t = %.6g: the position problem has no solution (the drivers move the mechanism "
                        "out of its reach, or through a lock-up; relative formulation)", t1);
            rc = MBS_EDIVERGE;
            break;
        }
        /* the rates: Phi' at u = 0 is Phi_t */
        for (int i = 0; i < neq; i++) r[i] = -w->phid[i];
        mbs_rtree_min_norm(t, w, r, u);
        if (mbs_rtree_accel(t, w, t1, q, u, 0, 0, qdd) != 0) {
            mbs_err_add(err, "", "t = %.6g: the articulated-body recursion met a zero inertia on a joint axis "
                        "(relative formulation): a body without mass or inertia about a joint's axis", t1);
            rc = MBS_ESINGULAR;
            break;
        }
        mbs_rtree_track_angles(t, w);
        size_t nb = sizeof(double) * (size_t)m->nvar;
        memcpy(d->xp, d->x, nb);
        memcpy(d->vp, d->v, nb);
        memcpy(d->ap, d->a, nb);
        s_give_reactions(d, t, w, rx);
        mbs_rel_to_natural(m, t, w, d->x, d->v, d->a);
        d->t = d->tp = t1; /* sampled exactly at t1 */
        d->met.steps++;
        rc = mbs_run_step_done(m, d, smp, err);
    }
    free(dq);
    free(r);
    return rc;
}

int mbs_run_relative(const mbs_model *m, mbs_data *d, mbs_sampler *smp, mbs_errlist *err)
{
    mbs_rtree t;
    mbs_rtree_ws w;
    mbs_rel_state s;
    int rc = mbs_rtree_build(m->spec, &t, err);
    if (rc) return rc;
    rc = mbs_rtree_ws_new(&t, &w);
    if (rc) { mbs_rtree_free(&t); return rc; }
    rc = mbs_rel_state_new(&s, &t, &w, m->nz);
    if (rc) { mbs_rtree_ws_free(&w); mbs_rtree_free(&t); return rc; }
    /* the run's loads: compliant contacts; dc_motors when the run has
     * element states or controllers (their currents and voltages come from
     * the natural coordinates' motor and controller code) */
    s_contacts sc = {m, d, &s, NULL, NULL, NULL};
    w.motors_by_run = m->nz > 0 || m->nctrl > 0;
    if (m->spec->ncontact > 0 || w.motors_by_run) {
        sc.x = malloc(sizeof(double) * (size_t)(m->nvar + 1));
        sc.v = malloc(sizeof(double) * (size_t)(m->nvar + 1));
        sc.Qb = malloc(sizeof(double) * ((size_t)m->nbody * (size_t)m->nb + 1));
        if (!sc.x || !sc.v || !sc.Qb) rc = MBS_ENOMEM;
        w.extra = s_run_loads;
        w.extra_ctx = &sc;
    }
    memcpy(s.z, d->z, sizeof(double) * (size_t)m->nz);
    s.z_eval = s.z;
    s.zd_eval = s.zd;
    d->met.formulation = "relative";
    mbs_rtree_chord_names(&t, d->met.chords, sizeof d->met.chords);
    /* plain text in the metrics' JSON */
    for (char *c = d->met.chords; *c; c++) if (*c == '"' || *c == '\\' || (unsigned char)*c < 32) *c = '\'';
    d->met.relative_coords = t.n;
    d->met.relative_constraints = t.neq;
    /* the initial state: the natural model's assembly and projected
     * velocities, in joint coordinates */
    if (mbs_rel_from_natural(m, &t, &w, d->x, d->v, s.q, s.u) != 0) {
        mbs_err_add(err, "", "the initial configuration could not be mapped to joint coordinates");
        rc = MBS_EINVAL;
    }
    s.t = d->t;
    /* statics: the equilibrium from the initial configuration, at rest */
    if (!rc && m->spec->solver.analysis == MBS_ANALYSIS_STATICS) {
        memset(s.u, 0, sizeof(double) * (size_t)(t.n > 0 ? t.n : 1));
        /* every declared contact pair, as the natural analysis takes them */
        d->c_ready = 0;
        rc = mbs_rel_statics(m, d, &t, &w, s.q, s.t, err);
    }
    int at_rest = m->spec->solver.analysis == MBS_ANALYSIS_STATICS; /* w holds the equilibrium */
    if (!rc && !at_rest && mbs_rtree_accel(&t, &w, s.t, s.q, s.u, m->spec->solver.baumgarte_alpha,
                               m->spec->solver.baumgarte_beta, s.qdd) != 0) {
        mbs_err_add(err, "", "t = 0: the articulated-body recursion met a zero inertia on a joint axis (relative "
                    "formulation): a body without mass or inertia about a joint's axis");
        rc = MBS_ESINGULAR;
    }
    if (!rc) {
        mbs_rel_to_natural(m, &t, &w, d->x, d->v, d->a);
        memcpy(d->xp, d->x, sizeof(double) * (size_t)m->nvar);
        memcpy(d->vp, d->v, sizeof(double) * (size_t)m->nvar);
        memcpy(d->ap, d->a, sizeof(double) * (size_t)m->nvar);
        size_t njb = sizeof(double) * (6 * (size_t)m->spec->njoint + 1);
        double *rx = malloc(njb);
        if (m->spec->solver.analysis == MBS_ANALYSIS_STATICS) {
            /* at rest: the accelerations of the equilibrium are zero to its
             * tolerance, set to 0 as the natural analysis sets them */
            memset(d->v, 0, sizeof(double) * (size_t)m->nvar);
            memset(d->a, 0, sizeof(double) * (size_t)m->nvar);
        }
        /* rigid contacts: Moreau-Jean or the event-driven integrator on the
         * tree's DAE form and contact rows (contact_relative.c), which take
         * the first sample (the event-driven integrator's modes at t = 0
         * first) */
        if (m->spec->solver.analysis == MBS_ANALYSIS_DYNAMICS && (m->spec->solver.integrator == MBS_INT_MOREAU_JEAN ||
                                                                   m->spec->solver.integrator == MBS_INT_EVENT_DRIVEN)) {
            /* the reaction channels: the natural recovery on the mapped
             * state (its accelerations the velocity change over the step,
             * as in a natural Moreau-Jean run), not the cutset wrenches of
             * the smooth dynamics */
            mbs_reaction_given(d, NULL);
            rc = m->spec->solver.integrator == MBS_INT_MOREAU_JEAN
                     ? mbs_rel_mj_run(m, d, smp, &t, &w, s.q, s.u, s.qdd, err)
                     : mbs_rel_ed_run(m, d, smp, &t, &w, s.q, s.u, s.qdd, err);
            free(rx);
            free(sc.x); free(sc.v); free(sc.Qb);
            mbs_rel_state_free(&s);
            mbs_rtree_ws_free(&w);
            mbs_rtree_free(&t);
            return rc;
        }
        s_give_reactions(d, &t, &w, rx);
        mbs_sample_now(smp);
        if (m->spec->solver.analysis != MBS_ANALYSIS_DYNAMICS) {
            if (m->spec->solver.analysis == MBS_ANALYSIS_KINEMATICS)
                rc = rx ? s_kinematics(m, d, smp, &t, &w, s.q, s.u, s.qdd, rx, err) : MBS_ENOMEM;
            free(rx);
            mbs_reaction_given(d, NULL);
            free(sc.x); free(sc.v); free(sc.Qb);
            mbs_rel_state_free(&s);
            mbs_rtree_ws_free(&w);
            mbs_rtree_free(&t);
            return rc;
        }
        size_t nb = sizeof(double) * (size_t)(t.n + 1), nqb = sizeof(double) * (size_t)(t.nq + 1);
        size_t nzb = sizeof(double) * (size_t)(m->nz + 1);
        mbs_rtree_ws ws;
        int wsrc = mbs_rtree_ws_new(&t, &ws);
        ws.extra = w.extra;
        ws.extra_ctx = w.extra_ctx;
        ws.motors_by_run = w.motors_by_run;
        size_t nv = sizeof(double) * (size_t)(m->nvar + 1);
        s_switch sw = {m, d, &ws, NULL, NULL, NULL, NULL};
        if (m->spec->ncontact > 0 && !wsrc) {
            sw.x0 = malloc(nv); sw.v0 = malloc(nv); sw.x1 = malloc(nv); sw.v1 = malloc(nv);
            if (!sw.x0 || !sw.v0 || !sw.x1 || !sw.v1) wsrc = MBS_ENOMEM;
            s.switch_at = s_switch_at;
            s.switch_ctx = &sw;
        }
        /* conservative mechanisms: the energy projection's energies */
        s_energies en = {m, malloc(nv), malloc(nv)};
        s.energy = s_energy_at;
        s.energy_ctx = &en;
        s_relrun r = {smp, &s, s.t, malloc(nqb), malloc(nqb), malloc(nqb), malloc(nqb), malloc(nqb), malloc(nqb),
                      malloc(nqb), malloc(nb), malloc(nb), &ws, rx, malloc(nzb), malloc(nzb), malloc(nzb), malloc(nzb),
                      malloc((size_t)t.neq + 1)};
        if (!r.on || !en.x || !en.v || !r.zp || !r.zdp || !r.zs || !r.zds || !rx || wsrc || !r.qp || !r.qdp || !r.qddp || !r.qd || !r.qdd || !r.qs || !r.qds || !r.us || !r.udds) {
            rc = MBS_ENOMEM;
        } else {
            memcpy(r.qp, s.q, nqb - sizeof(double));
            memcpy(r.zp, s.z, nzb - sizeof(double));
            memcpy(r.zdp, s.zd, nzb - sizeof(double));
            mbs_rtree_qdot(&t, s.q, s.u, r.qdp);
            mbs_rtree_qddot(&t, s.q, s.u, s.qdd, r.qdp, r.qddp);
            mbs_stepper run = {s_done, &r, smp->interval};
            smp->state_at = s_state_at;
            smp->state_ctx = &r;
            rc = mbs_integrate_relative(m, d, &s, &run, err);
            smp->state_at = NULL;
        }
        free(r.qp); free(r.qdp); free(r.qddp); free(r.qd); free(r.qdd); free(r.qs); free(r.qds); free(r.us);
        free(r.udds); free(rx); free(r.zp); free(r.zdp); free(r.zs); free(r.zds); free(r.on);
        mbs_reaction_given(d, NULL);
        free(sw.x0); free(sw.v0); free(sw.x1); free(sw.v1);
        free(en.x); free(en.v);
        if (!wsrc) mbs_rtree_ws_free(&ws);
    }
    free(sc.x); free(sc.v); free(sc.Qb);
    mbs_rel_state_free(&s);
    mbs_rtree_ws_free(&w);
    mbs_rtree_free(&t);
    return rc;
}
