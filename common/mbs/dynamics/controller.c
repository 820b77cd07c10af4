/*
 * controller.c - the controllers of a run (controller.h).
 */
#include "mbs/dynamics/controller.h"
#include "mbs/dynamics/force.h"
#include "mbs/dynamics/quantity.h"
#include "mbs/model/accuracy.h"

#include <math.h>
#include <string.h>

int mbs_ctrl_discrete(const mbs_model *m, int c)
{
    return m->spec->controllers[c].ts > 0;
}

/* 1 when controller c's measured signal is an angle (continued between
 * steps through d->ctrl_ref). */
static int s_is_angle(const mbs_model *m, const mbs_ctrl_spec *C)
{
    const mbs_channel_spec *ch = &C->measure;
    return ch->quantity == MBS_Q_ANGLE ||
           (ch->quantity == MBS_Q_JOINT_COORDINATE && m->spec->joints[ch->joint].type == MBS_JOINT_REVOLUTE);
}

double mbs_ctrl_measure(const mbs_model *m, const mbs_data *d, int c, double t, const double *x, const double *v,
                        const double *z)
{
    const mbs_ctrl_spec *C = &m->spec->controllers[c];
    /* another controller's channel (the parser refuses cycles) */
    if (C->measure.quantity == MBS_Q_CONTROLLER)
        return mbs_ctrl_channel(m, d, C->measure.element, C->measure.component, t, x, v, z);
    /* a joint reaction: a continuous controller's at the state (t, x, v,
     * z), by the run's d->reaction_at (run/measure.h), 0 inside the
     * generalized forces (d->rx_skip: none depends on it at the same
     * instant, the parser refuses that loop); a sampled one's at the
     * accepted state, its accelerations given by the output held over the
     * step; the recovery's workspace is the run's */
    if (C->measure.quantity == MBS_Q_REACTION_FORCE || C->measure.quantity == MBS_Q_REACTION_TORQUE) {
        if (!(C->ts > 0)) {
            if (!d || d->rx_skip > 0 || !d->reaction_at) return 0;
            return d->reaction_at(m, (mbs_data *)d, c, t, x, v, z, d->meas_a);
        }
        if (!d || !d->reaction) return NAN;
        return d->reaction(m, (mbs_data *)d, C->measure.joint, C->measure.quantity == MBS_Q_REACTION_TORQUE,
                           C->measure.component, t, x, v, d->meas_a ? d->meas_a : d->a);
    }
    double y = mbs_quantity_value(m, d, &C->measure, &m->ctrl_pts[c], t, x, v, z);
    if (s_is_angle(m, C) && d) y = d->ctrl_ref[c] + remainder(y - d->ctrl_ref[c], 2 * M_PI);
    return y;
}

/* The setpoint of controller c: a function of time, or in a cascade the
 * output of the controller it names, at the same state. */
static double s_setpoint(const mbs_model *m, const mbs_data *d, int c, double t, const double *x, const double *v,
                         const double *z)
{
    const mbs_ctrl_spec *C = &m->spec->controllers[c];
    if (C->sp_ctrl > 0) return mbs_ctrl_output(m, d, C->sp_ctrl - 1, t, x, v, z, NULL);
    return mbs_fn_eval(&C->setpoint, t, NULL, NULL);
}

/* A PID with the feed-forward ff folded into its limits: y = ff +
 * sat(u, y_min - ff, y_max - ff) = sat(ff + u, y_min, y_max). */
static mbs_pid s_pid_ff(const mbs_ctrl_spec *C, double ff)
{
    mbs_pid p = C->pid;
    p.y_min -= ff;
    p.y_max -= ff;
    return p;
}

/* The two PID states of continuous controller c from z (0 for a state the
 * PID does not have: no integral or no derivative action). */
static void s_pid_states(const mbs_model *m, int c, const double *z, double s[2], int idx[2])
{
    const mbs_pid *p = &m->spec->controllers[c].pid;
    int k = m->ctrl_z[c];
    idx[0] = p->ki != 0 ? k++ : -1;
    idx[1] = p->kd != 0 ? k : -1;
    s[0] = idx[0] >= 0 ? z[idx[0]] : 0;
    s[1] = idx[1] >= 0 ? z[idx[1]] : 0;
}

/* Controller c's law (its PID or linear block with the feedforward ff)
 * for the error err at the element states z: the output within its
 * limits; u, when given, the output before the limits (as mbs_pid_rhs
 * forms it). */
static double s_law_output(const mbs_model *m, int c, const double *z, double err, double ff, double *u)
{
    const mbs_ctrl_spec *C = &m->spec->controllers[c];
    if (C->type == MBS_CTRL_PID) {
        mbs_pid p = s_pid_ff(C, ff);
        double s[2], sd[2];
        int idx[2];
        s_pid_states(m, c, z, s, idx);
        double y = ff + mbs_pid_rhs(&p, s, err, sd, NULL);
        if (u) u[0] = ff + (p.kp * err + p.ki * s[0] + (p.kd != 0 ? p.kd / p.tf : 0) * (err - s[1]));
        return y;
    }
    const double *xs = C->lti.n > 0 ? z + m->ctrl_z[c] : NULL;
    double y = ff + mbs_lti_output(&C->lti, xs, err);
    if (u) u[0] = y;
    return y;
}

double mbs_ctrl_output_at(const mbs_model *m, const mbs_data *d, int c, double t, const double *x, const double *v,
                          const double *z, double meas, double *u)
{
    const mbs_ctrl_spec *C = &m->spec->controllers[c];
    double err = s_setpoint(m, d, c, t, x, v, z) - meas;
    return s_law_output(m, c, z, err, mbs_fn_eval(&C->feedforward, t, NULL, NULL), u);
}

double mbs_ctrl_feedthrough(const mbs_ctrl_spec *C)
{
    if (C->type == MBS_CTRL_PID) return C->pid.kp + (C->pid.kd != 0 ? C->pid.kd / C->pid.tf : 0);
    return C->lti.D;
}

double mbs_ctrl_output(const mbs_model *m, const mbs_data *d, int c, double t, const double *x, const double *v,
                       const double *z, double *e)
{
    const mbs_ctrl_spec *C = &m->spec->controllers[c];
    if (C->ts > 0 && !e) return d->ctrl_y[c];
    /* an algebraic loop through a reaction (mbs_ctrl_spec.loop): the
     * output the run solves at this state, or, in the run's shadow solving
     * it, the output tried */
    if (C->loop && d && d->loop_c == c) {
        if (e) *e = s_setpoint(m, d, c, t, x, v, z) - mbs_ctrl_measure(m, d, c, t, x, v, z);
        return d->loop_y;
    }
    if (C->loop && d && d->loop_output && !(C->ts > 0)) {
        if (e) *e = s_setpoint(m, d, c, t, x, v, z) - mbs_ctrl_measure(m, d, c, t, x, v, z);
        return d->loop_output(m, (mbs_data *)d, c, t, x, v, z);
    }
    double err = s_setpoint(m, d, c, t, x, v, z) - mbs_ctrl_measure(m, d, c, t, x, v, z);
    if (e) *e = err;
    if (C->ts > 0) return d->ctrl_y[c];
    return s_law_output(m, c, z, err, mbs_fn_eval(&C->feedforward, t, NULL, NULL), NULL);
}

void mbs_ctrl_zrate(const mbs_model *m, const mbs_data *d, const double *x, const double *v, const double *z,
                    double t, double *zd)
{
    for (int c = 0; c < m->nctrl; c++) {
        if (m->ctrl_nz[c] == 0) continue;
        const mbs_ctrl_spec *C = &m->spec->controllers[c];
        double err = s_setpoint(m, d, c, t, x, v, z) - mbs_ctrl_measure(m, d, c, t, x, v, z);
        if (C->type == MBS_CTRL_PID) {
            mbs_pid p = s_pid_ff(C, mbs_fn_eval(&C->feedforward, t, NULL, NULL));
            double s[2], sd[2];
            int idx[2];
            s_pid_states(m, c, z, s, idx);
            mbs_pid_rhs(&p, s, err, sd, NULL);
            if (idx[0] >= 0) zd[idx[0]] = sd[0];
            if (idx[1] >= 0) zd[idx[1]] = sd[1];
        } else {
            mbs_lti_rhs(&C->lti, z + m->ctrl_z[c], err, zd + m->ctrl_z[c]);
        }
    }
}

double mbs_ctrl_channel(const mbs_model *m, const mbs_data *d, int c, mbs_component comp, double t, const double *x,
                        const double *v, const double *z)
{
    const mbs_ctrl_spec *C = &m->spec->controllers[c];
    switch (comp) {
    case MBS_C_SETPOINT: return s_setpoint(m, d, c, t, x, v, z);
    case MBS_C_MEASUREMENT: return mbs_ctrl_measure(m, d, c, t, x, v, z);
    case MBS_C_ERROR: {
        double e;
        mbs_ctrl_output(m, d, c, t, x, v, z, &e);
        return e;
    }
    case MBS_C_OUTPUT: return mbs_ctrl_output(m, d, c, t, x, v, z, NULL);
    case MBS_C_STATE: {
        /* a pid's integral (0 without integral action), an lti's x_1 */
        if (C->ts > 0) return d->ctrl_s[(size_t)c * MBS_LTI_MAX];
        if (C->type == MBS_CTRL_PID && C->pid.ki == 0) return 0;
        return m->ctrl_nz[c] > 0 ? z[m->ctrl_z[c]] : 0;
    }
    default: return NAN;
    }
}

/* One sample of discrete controller c at the state in d. */
static double s_sample(const mbs_model *m, mbs_data *d, int c)
{
    const mbs_ctrl_spec *C = &m->spec->controllers[c];
    double e;
    mbs_ctrl_output(m, d, c, d->t, d->x, d->v, d->z, &e);
    double ff = mbs_fn_eval(&C->feedforward, d->t, NULL, NULL), *s = d->ctrl_s + (size_t)c * MBS_LTI_MAX;
    if (C->type == MBS_CTRL_PID) {
        mbs_pid p = s_pid_ff(C, ff);
        return ff + mbs_pid_step(&p, s, e);
    }
    return ff + mbs_lti_step(&C->lti, s, e);
}

int mbs_ctrl_start(const mbs_model *m, mbs_data *d)
{
    int held = 0;
    for (int c = 0; c < m->nctrl; c++) {
        const mbs_ctrl_spec *C = &m->spec->controllers[c];
        for (int k = 0; k < m->ctrl_nz[c]; k++) d->z[m->ctrl_z[c] + k] = 0;
        memset(d->ctrl_s + (size_t)c * MBS_LTI_MAX, 0, sizeof(double) * MBS_LTI_MAX);
        d->ctrl_y[c] = 0;
        d->ctrl_ref[c] = 0;
        if (s_is_angle(m, C)) d->ctrl_ref[c] = mbs_quantity_value(m, d, &C->measure, &m->ctrl_pts[c], d->t, d->x, d->v, d->z);
        d->ctrl_k[c] = 0;
        held |= C->ts > 0;
    }
    /* the first samples, every sampled controller's at t = 0, in depth order */
    if (held) mbs_ctrl_sample(m, d);
    return held;
}

double mbs_ctrl_next_stop(const mbs_model *m, const mbs_data *d)
{
    double T = m->spec->solver.t_end, next = INFINITY;
    for (int c = 0; c < m->nctrl; c++) {
        double ts = m->spec->controllers[c].ts;
        if (ts > 0) next = fmin(next, (double)d->ctrl_k[c] * ts);
    }
    return next < T * (1 - 1e-12) ? next : INFINITY;
}

int mbs_ctrl_sample(const mbs_model *m, mbs_data *d)
{
    int changed = 0;
    /* in increasing depth: a cascade's inner controller, sampled at the
     * same instant, takes the outer one's new output (as a digital loop
     * computes them one after the other in the same tick) */
    for (int lev = 0, more = 1; more; lev++) {
        more = 0;
        for (int c = 0; c < m->nctrl; c++) {
            const mbs_ctrl_spec *C = &m->spec->controllers[c];
            more |= C->depth > lev;
            if (C->depth != lev || !(C->ts > 0) || d->t < (double)d->ctrl_k[c] * C->ts - 1e-9 * C->ts) continue;
            double y = s_sample(m, d, c);
            changed |= y != d->ctrl_y[c];
            d->ctrl_y[c] = y;
            d->ctrl_k[c]++;
        }
    }
    return changed;
}

void mbs_ctrl_step_done(const mbs_model *m, mbs_data *d)
{
    for (int c = 0; c < m->nctrl; c++)
        if (s_is_angle(m, &m->spec->controllers[c])) d->ctrl_ref[c] = mbs_ctrl_measure(m, d, c, d->t, d->x, d->v, d->z);
}

/* ---- element states eliminated as a block ------------------------------------------- */

/* Solve LU x = b in place (LU and pivots of s_lu). */
static void s_lu_solve(int n, const double *LU, const int *piv, double *b)
{
    for (int i = 0; i < n; i++) {
        double t = b[piv[i]];
        b[piv[i]] = b[i];
        b[i] = t;
        for (int j = 0; j < i; j++) b[i] -= LU[i * n + j] * b[j];
    }
    for (int i = n - 1; i >= 0; i--) {
        for (int j = i + 1; j < n; j++) b[i] -= LU[i * n + j] * b[j];
        b[i] /= LU[i * n + i];
    }
}

/* LU with partial pivoting of the n x n row-major A in place; piv[i] the
 * row swapped with i at step i.  0, or -1 when singular. */
static int s_lu(int n, double *A, int *piv)
{
    for (int k = 0; k < n; k++) {
        int p = k;
        for (int i = k + 1; i < n; i++)
            if (fabs(A[i * n + k]) > fabs(A[p * n + k])) p = i;
        piv[k] = p;
        if (!(A[p * n + k] != 0) || !isfinite(A[p * n + k])) return -1;
        if (p != k)
            for (int j = 0; j < n; j++) { double t = A[k * n + j]; A[k * n + j] = A[p * n + j]; A[p * n + j] = t; }
        for (int i = k + 1; i < n; i++) {
            double l = A[i * n + k] /= A[k * n + k];
            for (int j = k + 1; j < n; j++) A[i * n + j] -= l * A[k * n + j];
        }
    }
    return 0;
}

int mbs_zelim_build(const mbs_model *m, mbs_data *d, const double *x, const double *v, double t, double w0)
{
    int nz = m->nz, n = m->nvar;
    double *f0 = d->zt + nz, *f1 = d->zt + 2 * (size_t)nz, *zt = d->zt, *D = d->zD;
    double *xp = d->fd_x, *vp = d->fd_v;
    mbs_force_zrate(m, d, x, v, d->z, t, f0);
    /* D = w0 I - df/dz */
    memcpy(zt, d->z, sizeof(double) * (size_t)nz);
    for (int j = 0; j < nz; j++) {
        double h = 1e-7 * (1 + fabs(zt[j]));
        zt[j] += h;
        mbs_force_zrate(m, d, x, v, zt, t, f1);
        zt[j] = d->z[j];
        for (int i = 0; i < nz; i++) D[i * nz + j] = -(f1[i] - f0[i]) / h + (i == j ? w0 : 0);
    }
    if (s_lu(nz, D, d->zpiv)) return -1;
    /* K = D^-1 df/dx, D^-1 df/dv, column by column */
    memcpy(xp, x, sizeof(double) * (size_t)n);
    memcpy(vp, v, sizeof(double) * (size_t)n);
    for (int pass = 0; pass < 2; pass++) {
        double *y = pass == 0 ? xp : vp, *K = pass == 0 ? d->zKx : d->zKv;
        for (int j = 0; j < n; j++) {
            double h = 1e-7 * (1 + fabs(y[j]));
            y[j] += h;
            mbs_force_zrate(m, d, xp, vp, d->z, t, f1);
            y[j] = pass == 0 ? x[j] : v[j];
            for (int i = 0; i < nz; i++) f1[i] = (f1[i] - f0[i]) / h;
            s_lu_solve(nz, D, d->zpiv, f1);
            for (int i = 0; i < nz; i++) K[(size_t)i * n + j] = f1[i];
        }
    }
    return 0;
}

double mbs_zelim_pre(const mbs_model *m, mbs_data *d, const double *x, const double *v, double t, double w0,
                     const double *bz)
{
    int nz = m->nz;
    double *r = d->zt + nz, dn = 0;
    mbs_force_zrate(m, d, x, v, d->z, t, r);
    for (int k = 0; k < nz; k++) r[k] -= w0 * d->z[k] + bz[k];
    s_lu_solve(nz, d->zD, d->zpiv, r);
    for (int k = 0; k < nz; k++) {
        d->z[k] += r[k];
        dn = fmax(dn, fabs(r[k]) / mbs_wz(d, k, fabs(d->z[k])));
    }
    return dn;
}

double mbs_zelim_post(const mbs_model *m, mbs_data *d, const double *dx, const double *dv)
{
    int nz = m->nz, n = m->nvar;
    double dn = 0;
    for (int k = 0; k < nz; k++) {
        const double *kx = d->zKx + (size_t)k * n, *kv = d->zKv + (size_t)k * n;
        double dz = 0;
        for (int j = 0; j < n; j++) dz += kx[j] * dx[j] + kv[j] * dv[j];
        d->z[k] += dz;
        dn = fmax(dn, fabs(dz) / mbs_wz(d, k, fabs(d->z[k])));
    }
    return dn;
}
