/*
 * force.c - applied forces as generalized forces on the natural coordinates,
 * energies, joint measures, and the finite-difference force Jacobians used by
 * the implicit integrators.
 *
 * A force F at a body point with NCS coordinates c does virtual work
 * F . L(c) dq, so its generalized force is L(c)^T F.  A torque tau on a body
 * is represented by generalized forces on the NCS vectors whose virtual work
 * under any rigid motion is tau . omega (see s_torque_q).
 */
#include "mbs/dynamics/force.h"
#include "mbs/model/accuracy.h"
#include "mbs/dynamics/controller.h"
#include "mbs/contact/contact.h"
#include "mbs/formulation/natural/natural.h"
#include "mbs/linalg/vec.h"

#include <math.h>
#include <string.h>

/* ---- small helpers on affine vectors ------------------------------------------ */

/* Add L^T F (a point or vector map of one body) into Qb. */
static void s_add_LtF(const mbs_model *m, const mbs_lterm *t, const double *F, double *Qb)
{
    int nb = m->nb, dim = m->dim;
    for (int s = 0; s < nb; s++) {
        double acc = 0;
        for (int a = 0; a < dim; a++) acc += t->L[a * nb + s] * F[a];
        Qb[s] += t->sign * acc;
    }
}

/* Where generalized forces go: the variable vector (nvar), or per body in
 * body coordinates (nbody x nb) for reaction recovery. */
typedef struct {
    double *q;
    int body_space;
} s_sink;

/* Scatter a body-space generalized force into the sink. */
static void s_scatter(const mbs_model *m, int b, const double *Qb, const s_sink *Q)
{
    const mbs_body *bd = &m->body[b];
    if (Q->body_space) {
        for (int s = 0; s < m->nb; s++) Q->q[b * m->nb + s] += Qb[s];
        return;
    }
    for (int s = 0; s < m->nb; s++)
        if (bd->var[s] >= 0) Q->q[bd->var[s]] += Qb[s];
}

/* Generalized force of a torque on body b (global vector; 2-D: tau[2]). */
static void s_torque_q(const mbs_model *m, int b, const double *x, const double *tau, double *Qb)
{
    const mbs_body *bd = &m->body[b];
    double qb[MBS_NB_MAX], E[9], Ei[9];
    mbs_gather(m, b, x, 0, qb);
    mbs_ncs_matrix(m, b, qb, E);
    if (m->dim == 2) {
        /* Q_a = tau P e1 / |e1|^2, Q_r0 = -s Q_a */
        double s = bd->vec_is_point[0];
        double e[2] = {E[0], E[3]};
        double n2 = e[0] * e[0] + e[1] * e[1];
        double qa[2] = {-tau[2] * e[1] / n2, tau[2] * e[0] / n2};
        Qb[2] += qa[0]; Qb[3] += qa[1];
        Qb[0] -= s * qa[0]; Qb[1] -= s * qa[1];
        return;
    }
    /* 3-D: Q_k = 1/2 tau x f_k with f_k the dual basis (rows of E^-1) */
    if (m3inv(E, Ei) == 0) return;
    for (int k = 0; k < 3; k++) {
        double f[3] = {Ei[3 * k], Ei[3 * k + 1], Ei[3 * k + 2]}, q[3];
        v3cross(tau, f, q);
        for (int a = 0; a < 3; a++) {
            Qb[3 + 3 * k + a] += 0.5 * q[a];
            Qb[a] -= bd->vec_is_point[k] * 0.5 * q[a];
        }
    }
}

/* Apply a global force F through an affine vector of one body term. */
static void s_force_on(const mbs_model *m, const mbs_avec *a, const double *F, const s_sink *Q)
{
    for (int t = 0; t < a->nterm; t++) {
        double Qb[MBS_NB_MAX] = {0};
        s_add_LtF(m, &a->t[t], F, Qb);
        s_scatter(m, a->t[t].body, Qb, Q);
    }
}

/* Evaluate a body-fixed direction at x (body frame vectors for forces). */
static void s_dir_now(const mbs_model *m, int b, const double *vbody, const double *x, double *out)
{
    const mbs_body *bd = &m->body[b];
    double g[3] = {0, 0, 0}, c[3], L[3 * MBS_NB_MAX], qb[MBS_NB_MAX];
    /* body frame -> global at t = 0 -> NCS coordinates */
    for (int i = 0; i < m->dim; i++)
        for (int k = 0; k < m->dim; k++) g[i] += bd->R0[3 * i + k] * vbody[k];
    mbs_local_dir(m, b, g, c);
    mbs_point_map(m, b, c, 0, L);
    mbs_gather(m, b, x, 0, qb);
    for (int i = 0; i < m->dim; i++) {
        out[i] = 0;
        for (int s = 0; s < m->nb; s++) out[i] += L[i * m->nb + s] * qb[s];
    }
}

/* ---- joint measures ------------------------------------------------------------------ */

/* The joint's coordinate (when coord) and its rate (when rate != NULL):
 * the rate alone skips the angle's atan2 (a motor needs only the rate). */
static double s_joint_measure(const mbs_model *m, int j, const double *x, const double *v, double *rate, int coord)
{
    const mbs_jgeom *g = &m->jg[j];
    const mbs_joint_spec *J = &m->spec->joints[j];
    int dim = m->dim;
    if (J->type == MBS_JOINT_PRISMATIC || J->type == MBS_JOINT_CYLINDRICAL) {
        double d[3], a[3], dd[3], ad[3];
        mbs_avec_eval(m, &g->d, x, 0, d);
        mbs_avec_eval(m, &g->ax, x, 0, a);
        double s = 0;
        for (int i = 0; i < dim; i++) s += d[i] * a[i];
        if (rate) {
            mbs_avec_eval(m, &g->d, v, 1, dd);
            mbs_avec_eval(m, &g->ax, v, 1, ad);
            double r = 0;
            for (int i = 0; i < dim; i++) r += dd[i] * a[i] + d[i] * ad[i];
            *rate = r;
        }
        return s;
    }
    double u0[3], v0[3], u1[3];
    mbs_avec_eval(m, &g->u0, x, 0, u0);
    mbs_avec_eval(m, &g->v0, x, 0, v0);
    mbs_avec_eval(m, &g->u1, x, 0, u1);
    double c = 0, s = 0;
    for (int i = 0; i < dim; i++) { c += u0[i] * u1[i]; s += v0[i] * u1[i]; }
    if (rate) {
        double u0d[3], v0d[3], u1d[3], cd = 0, sd = 0;
        mbs_avec_eval(m, &g->u0, v, 1, u0d);
        mbs_avec_eval(m, &g->v0, v, 1, v0d);
        mbs_avec_eval(m, &g->u1, v, 1, u1d);
        for (int i = 0; i < dim; i++) {
            cd += u0d[i] * u1[i] + u0[i] * u1d[i];
            sd += v0d[i] * u1[i] + v0[i] * u1d[i];
        }
        double n2 = c * c + s * s;
        *rate = n2 > 0 ? (c * sd - s * cd) / n2 : 0;
    }
    return coord ? atan2(s, c) : 0;
}

double mbs_joint_coord(const mbs_model *m, int j, const double *x, const double *v, double *rate)
{
    return s_joint_measure(m, j, x, v, rate, 1);
}

double mbs_joint_rate(const mbs_model *m, int j, const double *x, const double *v)
{
    double rate = 0;
    s_joint_measure(m, j, x, v, &rate, 0);
    return rate;
}

/* Continuous joint angle: branch chosen next to the reference in d. */
static double s_joint_angle_cont(const mbs_model *m, const mbs_data *d, int j, const double *x,
                                 const double *v, double *rate)
{
    double a = mbs_joint_coord(m, j, x, v, rate);
    const mbs_joint_spec *J = &m->spec->joints[j];
    if (J->type != MBS_JOINT_REVOLUTE || !d) return a;
    double ref = d->jangle_ref[j];
    return ref + remainder(a - ref, 2 * M_PI);
}

/* Apply an equal and opposite generalized "joint force" f along the joint
 * coordinate: torque about the axis (revolute), force along the axis
 * (prismatic). Positive f drives the joint coordinate up. */
static void s_joint_load(const mbs_model *m, int j, const double *x, double f, const s_sink *Q)
{
    const mbs_joint_spec *J = &m->spec->joints[j];
    const mbs_jgeom *g = &m->jg[j];
    if (J->type == MBS_JOINT_PRISMATIC) {
        /* zeroed: in 2-D mbs_avec_eval writes only x and y, and a third
         * component left from the stack went into |ax| (a motor's force on
         * a prismatic joint came out 4 % short) */
        double ax[3] = {0, 0, 0}, F[3];
        mbs_avec_eval(m, &g->ax, x, 0, ax);
        double n = v3norm(ax);
        if (n == 0) return;
        v3scale(f / n, ax, F);
        /* +F on body 1 at the joint point, -F on body 0 */
        s_force_on(m, &g->d, F, Q);
        return;
    }
    double tau[3] = {0, 0, 0};
    if (m->dim == 2) {
        tau[2] = f;
    } else {
        double ax[3] = {0, 0, 0};
        mbs_avec_eval(m, &g->ax, x, 0, ax);
        double n = v3norm(ax);
        if (n == 0) return;
        v3scale(f / n, ax, tau);
    }
    for (int side = 0; side < 2; side++) {
        int b = J->body[side];
        if (b < 0) continue;
        double Qb[MBS_NB_MAX] = {0}, t[3];
        v3scale(side == 1 ? 1.0 : -1.0, tau, t);
        s_torque_q(m, b, x, t, Qb);
        s_scatter(m, b, Qb, Q);
    }
}

/* Spring-damper: end points, length, rate and tension. */
static double s_spring(const mbs_model *m, int e, const double *x, const double *v, double *dir, double *len)
{
    const mbs_force_spec *F = &m->spec->forces[e];
    double p0[3], p1[3], d[3] = {0, 0, 0}, dv[3] = {0, 0, 0};
    mbs_avec a0 = m->fpts[2 * e], a1 = m->fpts[2 * e + 1];
    mbs_avec_eval(m, &a0, x, 0, p0);
    mbs_avec_eval(m, &a1, x, 0, p1);
    for (int i = 0; i < m->dim; i++) d[i] = p1[i] - p0[i];
    double L = v3norm(d);
    *len = L;
    if (L == 0) { dir[0] = dir[1] = dir[2] = 0; return 0; }
    v3scale(1.0 / L, d, dir);
    double Ld = 0;
    if (v) {
        double v0[3], v1[3];
        mbs_avec_eval(m, &a0, v, 1, v0);
        mbs_avec_eval(m, &a1, v, 1, v1);
        for (int i = 0; i < m->dim; i++) dv[i] = v1[i] - v0[i];
        Ld = v3dot(dv, dir);
    }
    double L0 = F->has_free_length ? F->free_length : m->spring_len0[e];
    return F->stiffness * (L - L0) + F->damping * Ld + F->preload;
}

/* ---- DC motors ------------------------------------------------------------------------ */

/* The motor of element e at joint rate `rate` and current i (a state when
 * L > 0, ignored otherwise); its supply voltage a function of time, or the
 * output of its controller at (t, x, v, z). */
static void s_motor_at(const mbs_model *m, const mbs_data *d, int e, double rate, double i, double t, const double *x,
                       const double *v, const double *z, mbs_dcmotor_state *st)
{
    const mbs_force_spec *F = &m->spec->forces[e];
    double V = F->ctrl > 0 ? mbs_ctrl_output(m, d, F->ctrl - 1, t, x, v, z, NULL) : mbs_fn_eval(&F->value[0], t, NULL, NULL);
    mbs_dcmotor_eval(&F->motor, V, i, rate, st);
}

void mbs_force_motor(const mbs_model *m, const mbs_data *d, int e, const double *x, const double *v, const double *z,
                     double t, mbs_dcmotor_state *st)
{
    const mbs_force_spec *F = &m->spec->forces[e];
    double rate = v ? mbs_joint_rate(m, F->joint, x, v) : 0;
    int k = m->force_z ? m->force_z[e] : -1;
    s_motor_at(m, d, e, rate, k >= 0 && z ? z[k] : 0, t, x, v, z, st);
}

void mbs_force_zrate(const mbs_model *m, const mbs_data *d, const double *x, const double *v, const double *z, double t,
                     double *zd)
{
    for (int k = 0; k < m->nz; k++) {
        if (m->z_force[k] < 0) continue;
        mbs_dcmotor_state st;
        mbs_force_motor(m, d, m->z_force[k], x, v, z, t, &st);
        zd[k] = st.di;
    }
    if (m->nctrl > 0) mbs_ctrl_zrate(m, d, x, v, z, t, zd);
}

/* A joint actuator's torque (force): a function of time or its
 * controller's output at (t, x, v, z). */
static double s_actuator_value(const mbs_model *m, const mbs_data *d, int e, const double *x, const double *v,
                               const double *z, double t)
{
    const mbs_force_spec *F = &m->spec->forces[e];
    return F->ctrl > 0 ? mbs_ctrl_output(m, d, F->ctrl - 1, t, x, v, z, NULL) : mbs_fn_eval(&F->value[0], t, NULL, NULL);
}

/* ---- generalized forces ------------------------------------------------------------- */

/* A generalized force never depends on a joint reaction a continuous
 * controller measures at the same instant (the parser refuses that loop:
 * mechanism_ctrl.c): while a motor's or an actuator's force is evaluated
 * such a measurement reads 0 (controller.c) instead of solving the
 * accelerations of the state (run/measure.h). */
static void s_rx_skip(const mbs_data *d, int k)
{
    if (d) ((mbs_data *)d)->rx_skip += k;
}

static void s_element_q(const mbs_model *m, const mbs_data *d, int e, const double *x, const double *v,
                        const double *z, double t, const s_sink *Q)
{
    const mbs_force_spec *F = &m->spec->forces[e];
    switch (F->type) {
    case MBS_FORCE_SPRING_DAMPER: {
        double dir[3], L, f[3];
        double T = s_spring(m, e, x, v, dir, &L);
        /* tension pulls point 1 towards point 0 */
        v3scale(-T, dir, f);
        s_force_on(m, &m->fpts[2 * e + 1], f, Q);
        v3scale(T, dir, f);
        s_force_on(m, &m->fpts[2 * e], f, Q);
        break;
    }
    case MBS_FORCE_ROTATIONAL_SPRING_DAMPER: {
        double rate;
        double th = s_joint_angle_cont(m, d, F->joint, x, v, &rate);
        s_joint_load(m, F->joint, x, -F->stiffness * (th - F->free_angle) - F->damping * rate, Q);
        break;
    }
    case MBS_FORCE_DC_MOTOR: {
        mbs_dcmotor_state st;
        s_rx_skip(d, 1);
        mbs_force_motor(m, d, e, x, v, z, t, &st);
        s_rx_skip(d, -1);
        s_joint_load(m, F->joint, x, st.torque, Q);
        break;
    }
    case MBS_FORCE_JOINT_ACTUATOR:
        s_rx_skip(d, 1);
        s_joint_load(m, F->joint, x, s_actuator_value(m, d, e, x, v, z, t), Q);
        s_rx_skip(d, -1);
        break;
    case MBS_FORCE_POINT_FORCE: {
        double val[3] = {0, 0, 0}, g[3];
        for (int i = 0; i < m->dim; i++) val[i] = mbs_fn_eval(&F->value[i], t, NULL, NULL);
        if (F->body_frame) s_dir_now(m, F->body[0], val, x, g); else v3copy(val, g);
        s_force_on(m, &m->fpts[2 * e], g, Q);
        break;
    }
    case MBS_FORCE_TORQUE: {
        double val[3] = {0, 0, 0}, g[3] = {0, 0, 0}, Qb[MBS_NB_MAX] = {0};
        if (m->dim == 2) {
            g[2] = mbs_fn_eval(&F->value[0], t, NULL, NULL);
        } else {
            for (int i = 0; i < 3; i++) val[i] = mbs_fn_eval(&F->value[i], t, NULL, NULL);
            if (F->body_frame) s_dir_now(m, F->body[0], val, x, g); else v3copy(val, g);
        }
        s_torque_q(m, F->body[0], x, g, Qb);
        s_scatter(m, F->body[0], Qb, Q);
        break;
    }
    default:
        break;
    }
}

/* All applied forces into a sink (cleared first). */
static void s_all_forces(const mbs_model *m, const mbs_data *d, const double *x, const double *v, double t,
                         const s_sink *Q)
{
    if (Q->body_space) {
        memset(Q->q, 0, sizeof(double) * (size_t)m->nbody * (size_t)m->nb);
        for (int b = 0; b < m->nbody; b++) s_scatter(m, b, m->body[b].Qg, Q);
    } else if (m->Qg_var) {
        /* the scatter below, summed once by the model's build */
        memcpy(Q->q, m->Qg_var, sizeof(double) * (size_t)m->nvar);
    } else {
        memset(Q->q, 0, sizeof(double) * (size_t)m->nvar);
        for (int b = 0; b < m->nbody; b++) s_scatter(m, b, m->body[b].Qg, Q);
    }
    for (int e = 0; e < m->spec->nforce; e++) s_element_q(m, d, e, x, v, d ? d->z : NULL, t, Q);
    /* viscous joint damping */
    for (int j = 0; j < m->spec->njoint; j++) {
        double c = m->spec->joints[j].damping;
        if (c <= 0) continue;
        double rate;
        mbs_joint_coord(m, j, x, v, &rate);
        s_joint_load(m, j, x, -c * rate, Q);
    }
}

void mbs_force_eval(const mbs_model *m, const mbs_data *d, const double *x, const double *v, double t, double *Q)
{
    s_sink sk = {Q, 0};
    s_all_forces(m, d, x, v, t, &sk);
    mbs_contact_forces(m, d, x, v, Q);
}

void mbs_force_eval_noncontact(const mbs_model *m, const mbs_data *d, const double *x, const double *v, double t,
                               double *Q)
{
    s_sink sk = {Q, 0};
    s_all_forces(m, d, x, v, t, &sk);
}

void mbs_force_eval_body(const mbs_model *m, const mbs_data *d, const double *x, const double *v, double t,
                         double *Qbody)
{
    s_sink sk = {Qbody, 1};
    s_all_forces(m, d, x, v, t, &sk);
    mbs_contact_forces_body(m, d, x, v, Qbody);
}

/* -lam Phi_q of a DOT or TRIG equation e at x on the bodies' coordinates
 * (Qbody, nbody x nb); returns Phi's derivative in e's angle variable
 * (TRIG; 0 for DOT). */
static double s_eq_body_force(const mbs_model *m, const mbs_eq *e, const double *x, double lam, double *Qbody)
{
    double W[2] = {1, 1}, W1[2] = {0, 0}, dth = 0;
    if (e->kind == MBS_EQ_TRIG) mbs_cons_trig_w(e, x[e->avar], W, W1);
    else
        for (int p = 0; p < e->nprod; p++) W[p] = e->w[p].base;
    for (int p = 0; p < e->nprod; p++) {
        double P[3] = {0}, Q[3] = {0}, fP[3], fQ[3];
        mbs_avec_eval(m, e->p[p][0], x, 0, P);
        mbs_avec_eval(m, e->p[p][1], x, 0, Q);
        dth += W1[p] * (P[0] * Q[0] + P[1] * Q[1] + P[2] * Q[2]);
        for (int k = 0; k < 3; k++) fP[k] = -lam * W[p] * Q[k], fQ[k] = -lam * W[p] * P[k];
        const mbs_avec *ap = e->p[p][0], *aq = e->p[p][1];
        for (int t = 0; t < ap->nterm; t++) s_add_LtF(m, &ap->t[t], fP, Qbody + (size_t)ap->t[t].body * m->nb);
        for (int t = 0; t < aq->nterm; t++) s_add_LtF(m, &aq->t[t], fQ, Qbody + (size_t)aq->t[t].body * m->nb);
    }
    return dth;
}

/* The spatial rotors' share of mbs_force_rotor_body (model.h mbs_rotor3):
 * each unit vector's equation Phi = ... - e_c carries lam = (J / 2) e_c''
 * (its variable's row M e'' + Phi_e^T lam = 0 with Phi_e = -1); the joint
 * angle th is massless, so its own equation's multiplier balances the
 * others' Phi_th lam in th's row (a slide's equation ax . d - s: Phi_s =
 * -1).  Each equation passes -lam Phi_q to the bodies. */
static void s_rotor3_body(const mbs_model *m, const double *x, const double *a, double *Qbody)
{
    for (int r = 0; r < m->nrotor3; r++) {
        const struct mbs_rotor3 *ro = &m->rotor3[r];
        const mbs_eq *eth = NULL;
        double sum = 0;
        for (int i = 0; i < m->neq; i++) {
            const mbs_eq *e = &m->eq[i];
            if (e->kind == MBS_EQ_TRIG && e->svar >= ro->var_e && e->svar < ro->var_e + 6) {
                double lam = ro->J / 2 * a[e->svar];
                sum += lam * s_eq_body_force(m, e, x, lam, Qbody);
            } else if (e->kind == MBS_EQ_TRIG && e->svar < 0 && e->avar == ro->var_th) {
                eth = e;
            } else if (e->kind == MBS_EQ_DOT && ro->slide && e->svar == ro->var_th) {
                eth = e;
            }
        }
        if (!eth) continue;
        if (eth->kind == MBS_EQ_DOT) {
            s_eq_body_force(m, eth, x, sum, Qbody);
        } else {
            /* Phi_th of the angle's equation at x (1 where it holds at th = 0) */
            double W[2], W1[2], dth = 0;
            mbs_cons_trig_w(eth, x[eth->avar], W, W1);
            for (int p = 0; p < eth->nprod; p++) {
                double P[3] = {0}, Q[3] = {0};
                mbs_avec_eval(m, eth->p[p][0], x, 0, P);
                mbs_avec_eval(m, eth->p[p][1], x, 0, Q);
                dth += W1[p] * (P[0] * Q[0] + P[1] * Q[1] + P[2] * Q[2]);
            }
            s_eq_body_force(m, eth, x, -sum / dth, Qbody);
        }
    }
}

void mbs_force_rotor_body(const mbs_model *m, const double *x, const double *a, double *Qbody)
{
    s_rotor3_body(m, x, a, Qbody);
    /* a rotor on a prismatic joint between moving bodies: its slide
     * equation ax . d - s = 0 carries the multiplier lam = (J / lead^2) s''
     * (the slide variable's row), and -lam Phi_q on the bodies: ax's
     * gradient times d, d's times ax (ncs.c s_slide_rotors) */
    for (int r = 0; r < m->nsrotor; r++) {
        const struct mbs_srotor *ro = &m->srotor[r];
        const mbs_jgeom *g = &m->jg[ro->joint];
        double lam = ro->ms * a[ro->var], ax[3] = {0}, d[3] = {0};
        mbs_avec_eval(m, &g->ax, x, 0, ax);
        mbs_avec_eval(m, &g->d, x, 0, d);
        for (int k = 0; k < 3; k++) ax[k] *= -lam, d[k] *= -lam;
        for (int t = 0; t < g->ax.nterm; t++) s_add_LtF(m, &g->ax.t[t], d, Qbody + (size_t)g->ax.t[t].body * m->nb);
        for (int t = 0; t < g->d.nterm; t++) s_add_LtF(m, &g->d.t[t], ax, Qbody + (size_t)g->d.t[t].body * m->nb);
    }
    for (int r = 0; r < m->nrotor; r++) {
        const struct mbs_rotor *ro = &m->rotor[r];
        /* the rotor's angular acceleration c . th'' */
        double acc = 0;
        for (int k = 0; k < 2; k++)
            if (ro->var[k] >= 0) acc += ro->c[k] * a[ro->var[k]];
        for (int k = 0; k < 2; k++) {
            double tau[3] = {0, 0, -ro->J * ro->c[k] * acc};
            if (ro->c[k] != 0) s_torque_q(m, ro->body[k], x, tau, Qbody + (size_t)ro->body[k] * m->nb);
        }
    }
}

/* Finite-difference Jacobians of the state-dependent forces:
 *   K = -dQ/dx, C = -dQ/dv, handed to add(i, j, cK*K_ij + cC*C_ij).
 * Perturbs only the variables each element touches. */
void mbs_force_jac(const mbs_model *m, mbs_data *d, const double *x, const double *v, double t, double cK,
                   double cC, void (*add)(void *ctx, int i, int j, double v), void *ctx)
{
    mbs_force_jac_noncontact(m, d, x, v, t, cK, cC, add, ctx);
    mbs_contact_jac(m, d, x, v, t, cK, cC, add, ctx);
}

void mbs_force_jac_split(const mbs_model *m, mbs_data *d, const double *x, const double *v, double t, double cK,
                         void (*addK)(void *ctx, int i, int j, double v), void *ctxK, double cC,
                         void (*addC)(void *ctx, int i, int j, double v), void *ctxC)
{
    mbs_force_jac_noncontact(m, d, x, v, t, cK, 0.0, addK, ctxK);
    mbs_force_jac_noncontact(m, d, x, v, t, 0.0, cC, addC, ctxC);
    /* the contacts' K and C in one pass over the pairs */
    mbs_contact_jac_split(m, d, x, v, t, cK, addK, ctxK, cC, addC, ctxC);
}

/* A motor whose current z_k is a state, as the BDF's Newton matrix sees it
 * once the current's row is eliminated (integrator_bdf.c): the current
 * follows the joint's rate by the gain d->zkap[k] from its value at the
 * base rate w_base, so the finite differences below take in the torque's
 * dependence through the current (dT_di x gain), on q and on v. */
static void s_motor_coupled_q(const mbs_model *m, const mbs_data *d, int e, int k, double w_base, const double *x,
                              const double *v, double t, const s_sink *Q)
{
    const mbs_force_spec *F = &m->spec->forces[e];
    double rate;
    mbs_joint_coord(m, F->joint, x, v, &rate);
    mbs_dcmotor_state st;
    s_rx_skip(d, 1);
    s_motor_at(m, d, e, rate, d->z[k] + d->zkap[k] * (rate - w_base), t, x, v, d->z, &st);
    s_rx_skip(d, -1);
    s_joint_load(m, F->joint, x, st.torque, Q);
}

/* A force element of a model with controllers whose force depends on the
 * element states or a controller's output (el->cvars), as the BDF's Newton
 * matrix sees it with the states eliminated as a block (controller.h
 * mbs_zelim_build, d->zgen): perturbing x_j (v_j) by h moves z by h times
 * column j of d->zKx (d->zKv), and a continuous controller's output
 * follows its measured signal at the perturbed state; columns: the
 * element's variables and el->cvars, rows: its variables. */
static void s_coupled_jac(const mbs_model *m, mbs_data *d, const mbs_fel *el, const double *x, const double *v,
                          double t, double cK, double cC, void (*add)(void *ctx, int i, int j, double v), void *ctx)
{
    int nv = m->nvar, nz = m->nz;
    double *xp = d->fd_x, *vp = d->fd_v, *Q0 = d->fd_q0, *Q1 = d->fd_q1, *zt = d->zt;
    s_sink k0 = {Q0, 0}, k1 = {Q1, 0};
    memset(Q0, 0, sizeof(double) * (size_t)nv);
    s_element_q(m, d, el->force, x, v, d->z, t, &k0);
    for (int pass = 0; pass < 2; pass++) {
        double c = pass == 0 ? cK : cC;
        if (c == 0) continue;
        double *y = pass == 0 ? xp : vp;
        const double *K = pass == 0 ? d->zKx : d->zKv;
        for (int k = 0; k < el->nvar + el->ncvar; k++) {
            int var = k < el->nvar ? el->vars[k] : el->cvars[k - el->nvar];
            double h = 1e-7 * (1 + fabs(y[var]));
            y[var] += h;
            for (int q = 0; q < nz; q++) zt[q] = d->z[q] + K[(size_t)q * nv + var] * h;
            memset(Q1, 0, sizeof(double) * (size_t)nv);
            s_element_q(m, d, el->force, xp, vp, zt, t, &k1);
            y[var] -= h;
            for (int r = 0; r < el->nvar; r++) {
                int row = el->vars[r];
                double dq = (Q1[row] - Q0[row]) / h;
                if (dq != 0) add(ctx, row, var, -c * dq);
            }
        }
    }
}

void mbs_force_jac_noncontact(const mbs_model *m, mbs_data *d, const double *x, const double *v, double t,
                              double cK, double cC, void (*add)(void *ctx, int i, int j, double v), void *ctx)
{
    int nv = m->nvar;
    double *xp = d->fd_x, *vp = d->fd_v, *Q0 = d->fd_q0, *Q1 = d->fd_q1;
    memcpy(xp, x, sizeof(double) * (size_t)nv);
    memcpy(vp, v, sizeof(double) * (size_t)nv);
    for (int e = 0; e < m->nstate_el; e++) {
        const mbs_fel *el = &m->stel[e];
        s_sink k0 = {Q0, 0}, k1 = {Q1, 0};
        if (d->zgen && el->cvars) {
            s_coupled_jac(m, d, el, x, v, t, cK, cC, add, ctx);
            continue;
        }
        memset(Q0, 0, sizeof(double) * (size_t)nv);
        if (el->force >= 0) s_element_q(m, d, el->force, x, v, d->z, t, &k0);
        else {
            double rate; int j = el->joint;
            mbs_joint_coord(m, j, x, v, &rate);
            s_joint_load(m, j, x, -m->spec->joints[j].damping * rate, &k0);
        }
        /* a motor's current coupled to the joint's rate (BDF Newton matrix) */
        int kz = el->force >= 0 && m->force_z ? m->force_z[el->force] : -1;
        double w_base = 0;
        if (kz >= 0 && d->zkap[kz] != 0) mbs_joint_coord(m, m->spec->forces[el->force].joint, x, v, &w_base);
        else kz = -1;
        for (int pass = 0; pass < 2; pass++) {
            if (pass == 0 && cK == 0) continue;
            if (pass == 1 && (cC == 0 || !el->has_rate)) continue;
            for (int k = 0; k < el->nvar; k++) {
                int var = el->vars[k];
                double *z = pass == 0 ? xp : vp;
                double h = 1e-7 * (1 + fabs(z[var]));
                z[var] += h;
                memset(Q1, 0, sizeof(double) * (size_t)nv);
                if (kz >= 0) s_motor_coupled_q(m, d, el->force, kz, w_base, xp, vp, t, &k1);
                else if (el->force >= 0) s_element_q(m, d, el->force, xp, vp, d->z, t, &k1);
                else {
                    double rate; int j = el->joint;
                    mbs_joint_coord(m, j, xp, vp, &rate);
                    s_joint_load(m, j, xp, -m->spec->joints[j].damping * rate, &k1);
                }
                z[var] -= h;
                double c = pass == 0 ? cK : cC;
                for (int r = 0; r < el->nvar; r++) {
                    int row = el->vars[r];
                    double dq = (Q1[row] - Q0[row]) / h;
                    if (dq != 0) add(ctx, row, var, -c * dq);
                }
            }
        }
    }
}

/* ---- energies ------------------------------------------------------------------------ */

/* A conservative mechanism keeps its energy E0; the BDF loses a little at
 * every step (its numerical damping), DOPRI5 drifts, and the lost energy
 * changes the motion's timing: on the N = 40 four-bar, whose crank creeps
 * over the top at every turn, the BDF's lag grew with each passage, to
 * 131..185 x tol x L by 20 s at tolerances 1e-5, 1e-6, 1e-8.  After each
 * accepted step the velocities are scaled by s = sqrt((E0 - V(q)) / T(v))
 * (the projection onto the energy surface along dH/dv = M v, which keeps
 * Phi_q v = 0 of the scleronomic constraints; Hairer, Lubich & Wanner,
 * Geometric Numerical Integration, IV.4), by at most each velocity's error
 * weight (the correction is of the size of the step's own error; near a
 * turning point, T -> 0, the full one is not, and the rest is taken at the
 * following steps).  The energy moved is summed in d->E_proj, so the
 * energy_drift metric still reports what the integration alone drifted. */
int mbs_energy_projectable(const mbs_model *m)
{
    int ok = m->conservative && m->spec->solver.energy_projection;
    for (int e = 0; e < m->spec->nforce && ok; e++)
        if (m->spec->forces[e].type == MBS_FORCE_ROTATIONAL_SPRING_DAMPER) ok = 0;
    return ok;
}

double mbs_energy_scale(double T, double target, const double *v, int n, double (*w)(void *ctx, int i, double av),
                        void *ctx)
{
    if (!(T > 0) || !(target > 0)) return 1;
    double sc = sqrt(target / T), big = 0;
    for (int i = 0; i < n; i++) big = fmax(big, fabs((sc - 1) * v[i]) / w(ctx, i, fabs(v[i])));
    if (!isfinite(big)) return 1;
    return big > 1 ? 1 + (sc - 1) / big : sc;
}

/* a velocity's error weight (accuracy.h), as mbs_energy_scale asks */
static double s_wv(void *ctx, int i, double av) { return mbs_wv(ctx, i, av); }

int mbs_energy_project(const mbs_model *m, mbs_data *d)
{
    int n = m->nvar;
    double ke = mbs_kinetic(m, d->v), pe = mbs_potential(m, d->x, d->t);
    double sc = mbs_energy_scale(ke, d->E0 - pe, d->v, n, s_wv, d);
    if (sc == 1) return 0;
    d->E_proj += ke * (1 - sc * sc);
    for (int i = 0; i < n; i++) d->v[i] *= sc;
    return 1;
}

double mbs_kinetic(const mbs_model *m, const double *v)
{
    double acc = 0;
    for (int i = 0; i < m->nvar; i++)
        for (int k = m->M_ptr[i]; k < m->M_ptr[i + 1]; k++) acc += v[i] * m->M_val[k] * v[m->M_col[k]];
    return 0.5 * acc;
}

void mbs_mass_mul(const mbs_model *m, const double *v, double *y)
{
    for (int i = 0; i < m->nvar; i++) {
        double acc = 0;
        for (int k = m->M_ptr[i]; k < m->M_ptr[i + 1]; k++) acc += m->M_val[k] * v[m->M_col[k]];
        y[i] = acc;
    }
}

double mbs_potential(const mbs_model *m, const double *x, double t)
{
    (void)t;
    double V = 0;
    /* gravity: V = -m g . x_com = -Qg . qb */
    for (int b = 0; b < m->nbody; b++) {
        double qb[MBS_NB_MAX];
        mbs_gather(m, b, x, 0, qb);
        for (int s = 0; s < m->nb; s++) V -= m->body[b].Qg[s] * qb[s];
    }
    for (int e = 0; e < m->spec->nforce; e++) {
        const mbs_force_spec *F = &m->spec->forces[e];
        if (F->type == MBS_FORCE_SPRING_DAMPER) {
            double dir[3], L;
            s_spring(m, e, x, NULL, dir, &L);
            double L0 = F->has_free_length ? F->free_length : m->spring_len0[e];
            V += 0.5 * F->stiffness * (L - L0) * (L - L0) + F->preload * L;
        } else if (F->type == MBS_FORCE_ROTATIONAL_SPRING_DAMPER) {
            double th = mbs_joint_coord(m, F->joint, x, NULL, NULL);
            V += 0.5 * F->stiffness * (th - F->free_angle) * (th - F->free_angle);
        }
    }
    return V;
}

double mbs_element_force(const mbs_model *m, const mbs_data *d, int e, const double *x, const double *v, const double *z,
                         double t, int comp)
{
    const mbs_force_spec *F = &m->spec->forces[e];
    switch (F->type) {
    case MBS_FORCE_SPRING_DAMPER: {
        double dir[3], L;
        return s_spring(m, e, x, v, dir, &L);
    }
    case MBS_FORCE_ROTATIONAL_SPRING_DAMPER: {
        double rate, th = mbs_joint_coord(m, F->joint, x, v, &rate);
        return -F->stiffness * (th - F->free_angle) - F->damping * rate;
    }
    case MBS_FORCE_DC_MOTOR: {
        mbs_dcmotor_state st;
        mbs_force_motor(m, d, e, x, v, z, t, &st);
        return st.torque;
    }
    case MBS_FORCE_JOINT_ACTUATOR:
        return s_actuator_value(m, d, e, x, v, z, t);
    case MBS_FORCE_POINT_FORCE:
    case MBS_FORCE_TORQUE: {
        double val[3] = {0, 0, 0};
        int n = (F->type == MBS_FORCE_TORQUE && m->dim == 2) ? 1 : m->dim;
        for (int i = 0; i < n; i++) val[i] = mbs_fn_eval(&F->value[i], t, NULL, NULL);
        if (comp == MBS_C_MAGNITUDE) return v3norm(val);
        if (comp >= 0 && comp < 3) return (n == 1) ? val[0] : val[comp];
        return val[0];
    }
    default:
        return 0;
    }
}
