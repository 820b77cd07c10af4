/*
 * accuracy.c - error weights, error estimate and warnings of a run
 * (accuracy.h).
 */
#include "mbs/model/accuracy.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbs/model/spec.h"
#include "mbs/linalg/vec.h"

double mbs_local_tolerance_factor(int integrator, double rtol)
{
    /* calibration (docs/accuracy.md, tolerance_test): the largest global
     * error / (tol L) over Andrews, the spatial slider-crank, Bricard, the
     * flyball, the double pendulum and two pendulums at tol 1e-3 ... 1e-9
     * was 1140 (bdf) and 342 (dopri5) with factor 1; it is 38 and 69 with
     * these factors, 45 with the N-four-bars (N = 40 up to 10 s) and 20
     * with the bouncing ball, under the reference BLAS and OpenBLAS alike.
     * Base 0.08 left N = 40 at 1.2 x the limit at 1e-9 on OpenBLAS: its
     * errors at tight tolerances come from the singular passages
     * (integrator_bdf.c).  Since the BDF's order selection uses divided
     * differences (session 10) its largest ratio within 10 s was 54, the
     * bouncing ball at 1e-9; 13.1 (Andrews at 1e-6) since the order on
     * repeated rejections follows the estimates (docs/accuracy.md). */
    if (integrator == MBS_INT_BDF) return 0.06 * pow(fmin(rtol, 1e-3) / 1e-3, 0.15);
    /* the event-driven integrator takes the same DOPRI5 steps between
     * events (Andrews at 1e-6 was 1.5 x the limit with factor 1) */
    if (integrator == MBS_INT_DOPRI5 || integrator == MBS_INT_EVENT_DRIVEN) return 0.3;
    return 1.0;
}

/* Grow a body's list of attachment points (at most 64 kept: the size is a
 * max over pairs, and a body with more points is already measured). */
typedef struct { int n; double p[64][3]; } s_pts;
static void s_add(s_pts *P, const double x[3])
{
    if (P->n < 64) { memcpy(P->p[P->n], x, sizeof(double) * 3); P->n++; }
}

/* The point of ground shape S nearest to x (3-D; z = 0 in 2-D): where a
 * free body falling or flying towards it would meet it. */
static void s_ground_nearest(const mbs_shape_spec *S, const double x[3], double out[3])
{
    double d[3] = {x[0] - S->p[0], x[1] - S->p[1], x[2] - S->p[2]};
    switch (S->kind) {
    case MBS_SHAPE_SPEC_LINE:
    case MBS_SHAPE_SPEC_PLANE: { /* q: the unit normal */
        double dn = d[0] * S->q[0] + d[1] * S->q[1] + d[2] * S->q[2];
        for (int k = 0; k < 3; k++) out[k] = x[k] - dn * S->q[k];
        return;
    }
    case MBS_SHAPE_SPEC_SEGMENT:
    case MBS_SHAPE_SPEC_CAPSULE: { /* the axis p -> q */
        double a[3] = {S->q[0] - S->p[0], S->q[1] - S->p[1], S->q[2] - S->p[2]};
        double aa = a[0] * a[0] + a[1] * a[1] + a[2] * a[2];
        double s = aa > 0 ? fmin(1, fmax(0, (d[0] * a[0] + d[1] * a[1] + d[2] * a[2]) / aa)) : 0;
        for (int k = 0; k < 3; k++) out[k] = S->p[k] + s * a[k];
        return;
    }
    case MBS_SHAPE_SPEC_BOX: { /* clamp into the box, in its own axes */
        double R[9], y[3];
        quat_to_mat(S->quat, R);
        for (int k = 0; k < 3; k++) {
            double c = R[k] * d[0] + R[3 + k] * d[1] + R[6 + k] * d[2];
            y[k] = fmin(S->half[k], fmax(-S->half[k], c));
        }
        for (int k = 0; k < 3; k++) out[k] = S->p[k] + R[3 * k] * y[0] + R[3 * k + 1] * y[1] + R[3 * k + 2] * y[2];
        return;
    }
    default: /* point, circle, sphere: the centre (the radius is a size) */
        memcpy(out, S->p, sizeof(double) * 3);
        return;
    }
}

double mbs_tolerance_length(const mbs_model *m)
{
    const mbs_spec *s = m->spec;
    double L = 0;
    s_pts *P = malloc(sizeof *P);
    if (!P) return m->length_scale > 0 ? m->length_scale : 1.0;
    for (int b = 0; b < s->nbody; b++) {
        /* the points body b is attached by: centre of mass, joint points,
         * spring ends, point-force points; plus its shapes' sizes */
        P->n = 0;
        s_add(P, s->bodies[b].com);
        int jointed = 0; /* held by a joint or a spring */
        for (int j = 0; j < s->njoint; j++) {
            const mbs_joint_spec *J = &s->joints[j];
            for (int k = 0; k < 2; k++)
                if (J->body[k] == b) { s_add(P, J->type == MBS_JOINT_DISTANCE ? J->points[k] : J->at); jointed = 1; }
        }
        for (int f = 0; f < s->nforce; f++) {
            const mbs_force_spec *F = &s->forces[f];
            if (F->type == MBS_FORCE_SPRING_DAMPER) {
                for (int k = 0; k < 2; k++) if (F->body[k] == b) { s_add(P, F->points[k]); jointed = 1; }
            } else if (F->type == MBS_FORCE_POINT_FORCE && F->body[0] == b) {
                s_add(P, F->at);
            }
        }
        /* a free body (no joint, no spring: it moves under gravity,
         * point forces and contacts) travels towards the ground's shapes:
         * its gap to each is a length of its motion (a 0.1 m ball dropped
         * from 1 m was held to rtol x 0.1 m and came back 280 x tol L off) */
        for (int h = 0; h < s->nshape && !jointed; h++) {
            if (s->shapes[h].body != MBS_GROUND) continue;
            double g[3];
            s_ground_nearest(&s->shapes[h], s->bodies[b].com, g);
            if (isfinite(g[0] + g[1] + g[2])) s_add(P, g);
        }
        double size = 0;
        for (int i = 0; i < P->n; i++)
            for (int k = i + 1; k < P->n; k++) {
                double dx = P->p[i][0] - P->p[k][0], dy = P->p[i][1] - P->p[k][1], dz = P->p[i][2] - P->p[k][2];
                size = fmax(size, sqrt(dx * dx + dy * dy + dz * dz));
            }
        for (int h = 0; h < s->nshape; h++) {
            const mbs_shape_spec *S = &s->shapes[h];
            if (S->body != b) continue;
            size = fmax(size, 2 * S->radius);
            size = fmax(size, 2 * sqrt(S->half[0] * S->half[0] + S->half[1] * S->half[1] + S->half[2] * S->half[2]));
        }
        L = fmax(L, size);
    }
    free(P);
    return L > 0 && isfinite(L) ? L : (m->length_scale > 0 ? m->length_scale : 1.0);
}

double mbs_step_growth_max(const mbs_solver_spec *o)
{
    if (o->analysis != MBS_ANALYSIS_DYNAMICS) return 1.0;
    switch (o->integrator) {
    case MBS_INT_BDF: return 2.0;
    case MBS_INT_DOPRI5:
    case MBS_INT_EVENT_DRIVEN: return MBS_STEP_GROWTH_MAX;
    default: return 1.0; /* fixed steps: trapezoidal AL, Moreau-Jean */
    }
}

/* Per-variable weights: a coordinate of a point (the NCS origin, a vector
 * slot holding a point) is a length, weighted absolutely by rtol L whatever
 * its distance from the origin (the error of a position does not depend on
 * where the global frame is: with rtol |x| a 40-link chain's far end was
 * held 40 times looser than its first link); a coordinate of a free vector
 * (unit length) is dimensionless, weighted by rtol (a link of length L
 * turning by rtol moves its end by rtol L).  Velocities: the same scales
 * over t_end, plus rtol |v|.  Variables of no body slot (force states) keep
 * atol + rtol |x|. */
/* Whether slot sl of body B holds a coordinate of a point (the NCS
 * origin, or a vector slot holding a point) rather than of a unit vector. */
static int s_slot_is_point(const mbs_model *m, const mbs_body *B, int sl)
{
    return sl < m->dim || B->vec_is_point[(sl - m->dim) / m->dim];
}

void mbs_var_length_exps(const mbs_model *m, int *e)
{
    int n = m->nvar;
    double L = mbs_tolerance_length(m);
    int eL = L > 0 && isfinite(L) ? (int)lround(log2(L)) : 0;
    for (int i = 0; i < n; i++) e[i] = 0;
    for (int b = 0; b < m->nbody; b++) {
        const mbs_body *B = &m->body[b];
        for (int sl = 0; sl < m->nb; sl++) {
            int v = B->var[sl];
            if (v >= 0 && v < n && s_slot_is_point(m, B, sl)) e[v] = eL;
        }
    }
    for (int r = 0; r < m->nsrotor; r++) e[m->srotor[r].var] = eL;
    for (int r = 0; r < m->nrotor3; r++)
        if (m->rotor3[r].slide) e[m->rotor3[r].var_th] = eL;
}

static void s_var_weights(const mbs_model *m, mbs_tol *t, double rtol, double L, double T)
{
    int n = m->nvar;
    for (int i = 0; i < n; i++) { t->ax[i] = t->atol_x; t->rx[i] = rtol; t->av[i] = t->atol_v; }
    for (int b = 0; b < m->nbody; b++) {
        const mbs_body *B = &m->body[b];
        for (int sl = 0; sl < m->nb; sl++) {
            int v = B->var[sl];
            if (v < 0 || v >= n) continue;
            if (s_slot_is_point(m, B, sl)) {
                t->ax[v] = rtol * L; t->rx[v] = 0; t->av[v] = rtol * L / T;
            } else {
                t->ax[v] = rtol; t->rx[v] = 0; t->av[v] = rtol / T;
            }
        }
        /* a body's angle variable (a rotor's, ncs.c s_rotors): radians, as
         * the body's unit vectors */
        if (B->avar >= 0 && B->avar < n) {
            t->ax[B->avar] = rtol; t->rx[B->avar] = 0; t->av[B->avar] = rtol / T;
        }
    }
    /* a prismatic rotor's slide variable (ncs.c s_slide_rotors): a length */
    for (int r = 0; r < m->nsrotor; r++) {
        int v = m->srotor[r].var;
        t->ax[v] = rtol * L; t->rx[v] = 0; t->av[v] = rtol * L / T;
    }
    /* a spatial rotor (ncs.c s_space_rotors): its joint angle in radians;
     * its unit vectors turn N times as fast as the joint (1 / lead per
     * metre of slide), so they are held as the joint is, to N rtol (N rtol
     * L on a slide), not tighter */
    for (int r = 0; r < m->nrotor3; r++) {
        const struct mbs_rotor3 *ro = &m->rotor3[r];
        if (!ro->slide) { t->ax[ro->var_th] = rtol; t->rx[ro->var_th] = 0; t->av[ro->var_th] = rtol / T; }
        double w = rtol * fmax(1, fabs(ro->N) * (ro->slide ? L : 1));
        for (int c = 0; c < 6; c++) {
            int v = ro->var_e + c;
            t->ax[v] = w; t->rx[v] = 0; t->av[v] = w / T;
        }
    }
    t->per_var = 1;
}

double mbs_config_change(const mbs_model *m, double L, const double *x, const double *y)
{
    int n = m->nvar;
    double c = 0, inv_l = L > 0 ? 1 / L : 1;
    for (int b = 0; b < m->nbody; b++) {
        const mbs_body *B = &m->body[b];
        for (int sl = 0; sl < m->nb; sl++) {
            int v = B->var[sl];
            if (v < 0 || v >= n) continue;
            double dv = fabs(x[v] - y[v]);
            c = fmax(c, s_slot_is_point(m, B, sl) ? dv * inv_l : dv);
        }
    }
    return c;
}

double mbs_tolerance_ctrl_output(const mbs_model *m, int c)
{
    const mbs_spec *s = m->spec;
    const mbs_ctrl_spec *C = &s->controllers[c];
    /* the bound of the output: its limits, the driven motors' voltage limits */
    double lim = INFINITY;
    if (C->type == MBS_CTRL_PID && isfinite(C->pid.y_min) && isfinite(C->pid.y_max))
        lim = fmax(fabs(C->pid.y_min), fabs(C->pid.y_max));
    for (int e = 0; e < s->nforce; e++)
        if (s->forces[e].ctrl == c + 1) lim = fmin(lim, s->forces[e].motor.v_max);
    /* the direct term on the setpoint, and the feed-forward, over the run */
    double T = s->solver.t_end > 0 ? s->solver.t_end : 1.0, g = C->type == MBS_CTRL_PID ? C->pid.kp : C->lti.D;
    double y = 0, rc = 0;
    /* a cascade: the setpoint is the outer controller's output, on its scale */
    if (C->sp_ctrl > 0) rc = fabs(g) * mbs_tolerance_ctrl_output(m, C->sp_ctrl - 1);
    for (int j = 0; j <= 64; j++) {
        double r = (C->sp_ctrl > 0 ? rc : fabs(g * mbs_fn_eval(&C->setpoint, T * j / 64.0, NULL, NULL))) +
                   fabs(mbs_fn_eval(&C->feedforward, T * j / 64.0, NULL, NULL));
        if (isfinite(r)) y = fmax(y, r);
    }
    if (y > 0) return fmin(y, lim);
    return isfinite(lim) && lim > 0 ? lim : 1.0;
}

/* The absolute scale of controller state k (model.h z_ctrl): the change
 * of the state that moves the output by its scale y_c
 * (mbs_tolerance_ctrl_output): y_c / |ki| for a PID's integral, y_c tf /
 * kd for its derivative filter, y_c / max |C_j| for a linear block. */
static double s_tolerance_ctrl_state(const mbs_model *m, int k)
{
    int c = m->z_ctrl[k], i = k - m->ctrl_z[c];
    const mbs_ctrl_spec *C = &m->spec->controllers[c];
    double y = mbs_tolerance_ctrl_output(m, c), g = 0;
    if (C->type == MBS_CTRL_PID) g = i == 0 && C->pid.ki != 0 ? fabs(C->pid.ki) : fabs(C->pid.kd) / C->pid.tf;
    else
        for (int j = 0; j < C->lti.n; j++) g = fmax(g, fabs(C->lti.C[j]));
    return g > 0 && isfinite(y / g) ? y / g : 1.0;
}

double mbs_tolerance_current(const mbs_model *m, int k)
{
    if (m->z_force[k] < 0) return s_tolerance_ctrl_state(m, k);
    const mbs_force_spec *F = &m->spec->forces[m->z_force[k]];
    const mbs_dcmotor *mo = &F->motor;
    double T = m->spec->solver.t_end > 0 ? m->spec->solver.t_end : 1.0, vmax = 0;
    /* the largest supply voltage on 65 points of the run (after the limit);
     * a controller's output scale */
    if (F->ctrl > 0) vmax = fmin(mbs_tolerance_ctrl_output(m, F->ctrl - 1), mo->v_max);
    for (int j = 0; j <= 64 && F->ctrl == 0; j++) {
        double V = fabs(mbs_fn_eval(&F->value[0], T * j / 64.0, NULL, NULL));
        if (isfinite(V)) vmax = fmax(vmax, fmin(V, mo->v_max));
    }
    double ic = fmin(vmax / mo->R, mo->i_max);
    ic = fmax(ic, fabs(mo->i0));
    return ic > 0 ? ic : 1.0;
}

void mbs_tol_init(const mbs_model *m, mbs_data *d)
{
    const mbs_solver_spec *o = &m->spec->solver;
    mbs_tol *t = &d->tol;
    double rtol = o->tolerance > 0 ? o->tolerance : 1e-6, atol_x, atol_v;
    double T = o->t_end > 0 ? o->t_end : 1.0, L = mbs_tolerance_length(m);
    int derived = !(o->abs_tolerance > 0);
    if (derived) {
        /* derived: L the characteristic length, L / t_end its speed */
        atol_x = rtol * L;
        atol_v = rtol * L / T;
    } else {
        atol_x = atol_v = o->abs_tolerance;
    }
    /* the user's tolerances are global targets; the step control holds
     * the local error to a fraction of them */
    double f = o->analysis == MBS_ANALYSIS_DYNAMICS ? mbs_local_tolerance_factor(o->integrator, rtol) : 1.0;
    /* not below 1e-13: rounding (the last digits of a coordinate of order
     * L).  Near singular positions the BDF keeps its weights above the
     * rounding noise of the degenerate components itself (integrator_bdf.c,
     * NOISE_C); a floor of 1e-10 here used to stand for that, and left tol
     * 1e-9 looser than calibrated. */
    if (f * rtol < 1e-13) f = fmin(1.0, 1e-13 / rtol);
    t->rtol = f * rtol;
    t->atol_x = f * atol_x;
    t->atol_v = f * atol_v;
    t->per_var = 0;
    t->L = L;
    if (derived && t->ax && t->rx && t->av) s_var_weights(m, t, f * rtol, L, T);
    /* element states: a motor's current against its characteristic current
     * (also with abs_tolerance, which is a length) */
    for (int k = 0; k < m->nz && t->az; k++) t->az[k] = f * rtol * mbs_tolerance_current(m, k);
    d->met.tolerance = rtol;
    d->met.abs_tolerance = atol_x;
    d->met.error_estimate = 0;
    d->met.tolerance_met = 1;
    d->met.nwarning = 0;
}

void mbs_warn(mbs_data *d, const char *fmt, ...)
{
    char text[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    /* plain text in the metrics' JSON: no quotes or backslashes */
    for (char *p = text; *p; p++) if (*p == '"' || *p == '\\' || (unsigned char)*p < 32) *p = '\'';
    d->met.tolerance_met = 0;
    for (int i = 0; i < d->met.nwarning && i < MBS_WARN_MAX; i++)
        if (!strcmp(d->met.warning[i], text)) return;
    if (d->met.nwarning < MBS_WARN_MAX) snprintf(d->met.warning[d->met.nwarning], sizeof d->met.warning[0], "%s", text);
    d->met.nwarning++;
}

void mbs_accuracy_finish(mbs_data *d, double limit)
{
    double e = d->met.error_estimate;
    if (!(isfinite(e) && e > limit)) return;
    /* the fixed-step methods (their step is the user's): say what lowers
     * it, a smaller step (second order: the local error about 8 times
     * smaller when the step halves) */
    const mbs_solver_spec *o = &d->m->spec->solver;
    char fix[160] = "";
    if (o->integrator == MBS_INT_MOREAU_JEAN || o->integrator == MBS_INT_TRAPEZOIDAL_AL)
        snprintf(fix, sizeof fix, "; %s takes the fixed step solver.step = %g: halving it makes the local error "
                 "about 8 times smaller", mbs_integrator_name(o->integrator), o->step);
    if (d->tol.rtol < d->met.tolerance)
        mbs_warn(d, "the estimated local error reached %.3g times the local tolerance %.3g (tolerance %.3g)%s", e,
                 d->tol.rtol, d->met.tolerance, fix);
    else
        mbs_warn(d, "the estimated local error reached %.3g times the tolerance %.3g%s", e, d->tol.rtol, fix);
}
