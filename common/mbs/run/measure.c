/*
 * measure.c - joint reactions measured by continuous controllers
 * (measure.h).
 */
#include "mbs/run/measure.h"
#include "mbs/analysis/analysis.h"
#include "mbs/model/accuracy.h"
#include "mbs/analysis/system.h"
#include "mbs/dynamics/force.h"
#include "mbs/formulation/natural/natural.h"
#include "mbs/dynamics/controller.h"
#include "mbs/output/output.h"
#include "mbs/mbs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mbs_meas {
    mbs_data *S;  /* the shadow: the state measured last, its accelerations */
    int valid;    /* S holds a measured state                              */
    int given;    /* its accelerations were the caller's (not solved)       */
    double y;     /* the looped controller's output S's accelerations were
                     solved under (S->loop_c >= 0)                          */
    int y_ok;     /* y is the loop's solution at S's state                  */
    char why[320]; /* why the loop had no root, last time                   */
};

/* The loop's solution: |y - Y(R(y))| within LOOP_TOL (1 + |y|) (the
 * reaction's recovery rounds at a few 1e-12 of it), in at most LOOP_IT
 * re-linearisations after the first affine solve */
#define LOOP_TOL 1e-10
#define LOOP_IT 30

int mbs_meas_reaction(const mbs_spec *s, int c)
{
    const mbs_ctrl_spec *C = &s->controllers[c];
    return !(C->ts > 0) &&
           (C->measure.quantity == MBS_Q_REACTION_FORCE || C->measure.quantity == MBS_Q_REACTION_TORQUE);
}

/* The looped controller of the spec (at most one: the parser), or -1. */
static int s_looped(const mbs_spec *s)
{
    for (int c = 0; c < s->nctrl; c++)
        if (s->controllers[c].loop && mbs_meas_reaction(s, c)) return c;
    return -1;
}

void mbs_meas_free(struct mbs_meas **pm)
{
    if (!pm || !*pm) return;
    mbs_data_free(&(*pm)->S);
    free(*pm);
    *pm = NULL;
}

/* 1 when S holds the state (t, x, v, z) with accelerations a (NULL: solved). */
static int s_same(const mbs_model *m, const struct mbs_meas *w, double t, const double *x, const double *v,
                  const double *z, const double *a)
{
    const mbs_data *S = w->S;
    size_t nb = sizeof(double) * (size_t)m->nvar, zb = sizeof(double) * (size_t)m->nz;
    if (!w->valid || S->t != t || (a != NULL) != w->given) return 0;
    if (memcmp(S->x, x, nb) || memcmp(S->v, v, nb) || (m->nz > 0 && memcmp(S->z, z, zb))) return 0;
    return !a || !memcmp(S->a, a, nb);
}

/* The accelerations of S's state into S->a from the KKT system [M,
 * Phi_q^T; Phi_q, 0] [a; lam] = [Q; -gamma] (banded LU, analysis/system.c),
 * exact to the matrix's rounding: mbs_accelerations' augmented-Lagrangian
 * iterations on a penalised matrix leave a few 1e-10 of the forces, which
 * the measured reaction, and a loop's root, would carry into the rates and
 * the Newton matrix's differences (a loop's root then wandered by 4e-10
 * between two tries at one state and was not found). */
static int s_accel(const mbs_model *m, mbs_data *S, double t)
{
    int n = m->nvar, ne = m->neq;
    double *rhs = S->w1;
    mbs_cons_eval(m, S->x, t, S->phi, S->jac);
    mbs_cons_gamma(m, S->x, S->v, t, S->gam);
    mbs_force_eval(m, S, S->x, S->v, t, S->Q);
    if (mbs_kkt_build(m, S, 1.0, 0, 0, 0, NULL, S->x, S->v, t) != 0) return -1;
    memcpy(rhs, S->Q, sizeof(double) * (size_t)n);
    for (int i = 0; i < ne; i++) rhs[n + i] = S->eq_on[i] ? -S->gam[i] : 0;
    mbs_kkt_solve(m, S, rhs);
    memcpy(S->a, rhs, sizeof(double) * (size_t)n);
    return 0;
}

/* S at the state (t, x, v, z) with accelerations a, or those solved there
 * (the looped controller's output, if any, at S->loop_y); -1 when the
 * solve fails. */
static int s_load(const mbs_model *m, mbs_data *d, struct mbs_meas *w, double t, const double *x, const double *v,
                  const double *z, const double *a)
{
    mbs_data *S = w->S;
    size_t nb = sizeof(double) * (size_t)m->nvar;
    if (S->x != x) memcpy(S->x, x, nb);
    if (S->v != v) memcpy(S->v, v, nb);
    if (m->nz > 0 && S->z != z) memcpy(S->z, z, sizeof(double) * (size_t)m->nz);
    /* what else the forces read: the independent constraints, the
     * sampled controllers' held outputs, the angle references */
    if (m->neq > 0) memcpy(S->eq_on, d->eq_on, (size_t)m->neq);
    if (m->nctrl > 0) {
        memcpy(S->ctrl_y, d->ctrl_y, sizeof(double) * (size_t)m->nctrl);
        memcpy(S->ctrl_ref, d->ctrl_ref, sizeof(double) * (size_t)m->nctrl);
    }
    S->t = t;
    w->valid = 0;
    S->rep.redundant = d->rep.redundant;
    if (a) memcpy(S->a, a, nb);
    else if (s_accel(m, S, t)) return -1;
    w->valid = 1;
    w->given = a != NULL;
    /* the recovery's cache is keyed by (t, x pointer): S->x's
     * contents changed */
    mbs_reaction_given(S, NULL);
    return 0;
}

/* Controller c's measured reaction in S's state. */
static double s_measured(const mbs_model *m, mbs_data *S, int c)
{
    const mbs_channel_spec *ch = &m->spec->controllers[c].measure;
    return mbs_reaction(m, S, ch->joint, ch->quantity == MBS_Q_REACTION_TORQUE, ch->component, S->t, S->x, S->v,
                        S->a);
}

/* The reaction controller c measures at its output y, at S's state. */
static double s_R_of(const mbs_model *m, mbs_data *d, struct mbs_meas *w, int c, double y)
{
    mbs_data *S = w->S;
    S->loop_c = c;
    S->loop_y = y;
    w->y = y;
    if (s_load(m, d, w, S->t, S->x, S->v, S->z, NULL)) return NAN;
    return s_measured(m, S, c);
}

/* The looped controller c's output at (t, x, v, z): the root of y = Y(R(y))
 * with R the reaction it measures under output y and Y its output (limits
 * included) when it measures R.  At a state the accelerations, so the
 * reaction, are affine in the forces: for a joint_actuator (force y) two
 * evaluations give R(y) = R0 + r y, and y = sat(u0 - g r y) (u0 the output
 * before the limits at R0, g the feed-through) has the root clamp(u0 / (1
 * + g r)) when 1 + g r > 0 (unique: the loop's gain above -1; without
 * limits u0 / (1 + g r) whenever 1 + g r != 0); a motor's torque is affine
 * in its voltage between its limits, so the root is checked and
 * re-linearised (secant slope) until |y - Y(R(y))| is at rounding.  S is
 * left at the root (the measurement's state).  NaN (with a warning) when
 * there is no unique root, or the solve fails. */
static double s_loop_solve(const mbs_model *m, mbs_data *d, struct mbs_meas *w, int c)
{
    mbs_data *S = w->S;
    const mbs_ctrl_spec *C = &m->spec->controllers[c];
    double g = mbs_ctrl_feedthrough(C), lo = -INFINITY, hi = INFINITY;
    if (C->type == MBS_CTRL_PID) lo = C->pid.y_min, hi = C->pid.y_max;
    double t = S->t, *x = S->x, *v = S->v, *z = S->z;
    double R0 = s_R_of(m, d, w, c, 0), y1 = 1, R1 = s_R_of(m, d, w, c, y1), r = R1 - R0, y = NAN;
    for (int it = 0; it <= LOOP_IT && isfinite(R0) && isfinite(R1); it++) {
        double u;
        /* the linearisation at (y1, R1): R(y) = R1 + r (y - y1), and u(R) =
         * u1 - g (R - R1): y = sat(u1 - g r (y - y1)) */
        mbs_ctrl_output_at(m, S, c, t, x, v, z, R1, &u);
        double den = 1 + g * r;
        /* a loop gain of -1 has no output; below -1 a limited output has
         * none or several (an unlimited one has its single root) */
        if (!(den > 0) && (!(fabs(den) > 1e-12) || isfinite(lo) || isfinite(hi))) {
            /* (the same text once: mbs_warn keeps one of each; at the
             * start, where the warnings are reset, mbs_meas_check_start) */
            snprintf(w->why, sizeof w->why, "controller '%s' closes a loop through its measured reaction with gain "
                     "%.2g <= -1 and output limits: no unique output (check the signs of its gains)", C->name,
                     g * r);
            mbs_warn(d, "%s", w->why);
            return NAN;
        }
        y = (u + g * r * y1) / den;
        y = y < lo ? lo : y > hi ? hi : y;
        double R = s_R_of(m, d, w, c, y);
        if (!isfinite(R)) return NAN;
        double Y = mbs_ctrl_output_at(m, S, c, t, x, v, z, R, NULL);
        if (fabs(Y - y) <= LOOP_TOL * (1 + fabs(y))) return y;
        /* a secant slope from points far enough apart that the reaction's
         * rounding does not make it (else the chord's slope is kept) */
        if (fabs(y - y1) > 1e-3 * (1 + fabs(y))) r = (R - R1) / (y - y1);
        y1 = y;
        R1 = R;
    }
    return NAN;
}

/* d->loop_output: the looped controller c's output at (t, x, v, z). */
static double s_loop_output(const mbs_model *m, mbs_data *d, int c, double t, const double *x, const double *v,
                            const double *z)
{
    struct mbs_meas *w = d->meas;
    if (s_same(m, w, t, x, v, z, NULL) && w->y_ok) return w->y;
    w->y_ok = 0;
    /* the state into S once; the tries then solve there */
    mbs_data *S = w->S;
    size_t nb = sizeof(double) * (size_t)m->nvar;
    memcpy(S->x, x, nb);
    memcpy(S->v, v, nb);
    if (m->nz > 0) memcpy(S->z, z, sizeof(double) * (size_t)m->nz);
    S->t = t;
    double y = s_loop_solve(m, d, w, c);
    w->y_ok = isfinite(y);
    if (!w->y_ok) w->valid = 0;
    return y;
}

/* d->reaction_at: the reaction of controller c's measure at (t, x, v, z). */
static double s_reaction_at(const mbs_model *m, mbs_data *d, int c, double t, const double *x, const double *v,
                            const double *z, const double *a)
{
    struct mbs_meas *w = d->meas;
    mbs_data *S = w->S;
    int lc = S->loop_c;
    if (lc >= 0) {
        /* with a looped controller every state's accelerations are solved
         * under its output there */
        if (!isfinite(s_loop_output(m, d, lc, t, x, v, z))) return NAN;
        return s_measured(m, S, c);
    }
    if (!s_same(m, w, t, x, v, z, a) && s_load(m, d, w, t, x, v, z, a)) return NAN;
    return s_measured(m, S, c);
}

int mbs_meas_check_start(const mbs_model *m, mbs_data *d, mbs_errlist *err)
{
    int lc = s_looped(m->spec);
    if (lc < 0 || !d->meas) return 0;
    double y = s_loop_output(m, d, lc, d->t, d->x, d->v, d->z);
    if (isfinite(y)) return 0;
    if (d->meas->why[0]) mbs_err_add(err, "", "t = %.6g: %s", d->t, d->meas->why);
    else mbs_err_add(err, "", "t = %.6g: controller '%s': its algebraic loop through the reaction it measures has no "
                     "solution (singular accelerations)", d->t, m->spec->controllers[lc].name);
    return MBS_ESINGULAR;
}

int mbs_meas_start(const mbs_model *m, mbs_data *d, mbs_errlist *err)
{
    int need = 0, c0 = -1;
    for (int c = 0; c < m->nctrl; c++)
        if (mbs_meas_reaction(m->spec, c)) {
            need = 1;
            if (c0 < 0) c0 = c;
        }
    int lc = s_looped(m->spec);
    if (!need || d->meas) {
        if (need) {
            d->meas->valid = d->meas->y_ok = 0;
            d->meas->S->loop_c = lc;
            d->reaction_at = s_reaction_at;
            d->loop_output = lc >= 0 ? s_loop_output : NULL;
        }
        return 0;
    }
    if (m->spec->ncontact > 0) {
        /* the accelerations of a state with contacts depend on the run's
         * active set and rigid contacts' forces, which the shadow has not */
        mbs_err_add(err, "", "controller '%s' measures a joint reaction continuously, which is not supported in a "
                    "mechanism with contacts (give it a sample_period > 0)", m->spec->controllers[c0].name);
        return MBS_EINVAL;
    }
    struct mbs_meas *w = calloc(1, sizeof *w);
    if (!w) return MBS_ENOMEM;
    w->S = mbs_data_new(m);
    if (w->S) w->S->rx = mbs_reaction_ws_new(m);
    if (!w->S || !w->S->rx) {
        mbs_meas_free(&w);
        return MBS_ENOMEM;
    }
    w->S->loop_c = lc;
    d->meas = w;
    d->reaction_at = s_reaction_at;
    d->loop_output = lc >= 0 ? s_loop_output : NULL;
    return 0;
}
