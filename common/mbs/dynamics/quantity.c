/*
 * quantity.c - state quantities of the output channels and of the
 * controllers' measured signals (quantity.h).
 */
#include "mbs/dynamics/quantity.h"
#include "mbs/dynamics/force.h"
#include "mbs/formulation/natural/natural.h"
#include "mbs/linalg/vec.h"

#include <math.h>
#include <string.h>

int mbs_quantity_is_state(mbs_quantity q)
{
    switch (q) {
    case MBS_Q_POSITION: case MBS_Q_VELOCITY: case MBS_Q_ANGLE: case MBS_Q_ANGULAR_VELOCITY:
    case MBS_Q_ORIENTATION: case MBS_Q_JOINT_COORDINATE: case MBS_Q_JOINT_VELOCITY: case MBS_Q_ELEMENT_FORCE:
    case MBS_Q_MOTOR: case MBS_Q_KINETIC_ENERGY: case MBS_Q_POTENTIAL_ENERGY: case MBS_Q_TOTAL_ENERGY:
        return 1;
    default:
        return 0;
    }
}

mbs_avec mbs_quantity_avec(const mbs_model *m, const mbs_channel_spec *ch)
{
    mbs_avec a;
    memset(&a, 0, sizeof a);
    if (ch->body < 0) return a;
    double cc[3];
    int is_point = ch->quantity == MBS_Q_POSITION || ch->quantity == MBS_Q_VELOCITY ||
                   ch->quantity == MBS_Q_ACCELERATION;
    if (is_point) {
        mbs_local_point(m, ch->body, ch->point, cc);
    } else {
        /* the body x axis as a body-fixed vector */
        const double *R = m->body[ch->body].R0;
        double ex[3] = {R[0], R[3], m->dim == 3 ? R[6] : 0};
        mbs_local_dir(m, ch->body, ex, cc);
    }
    a.nterm = 1;
    a.t[0].body = ch->body;
    a.t[0].sign = 1;
    mbs_point_map(m, ch->body, cc, is_point, a.t[0].L);
    return a;
}

static double s_comp(const double *v, int dim, mbs_component c)
{
    if (c == MBS_C_MAGNITUDE) return dim == 3 ? v3norm(v) : hypot(v[0], v[1]);
    if (c >= MBS_C_X && c <= MBS_C_Z) return v[c];
    return v[0];
}

/* NCS vector matrix E (3x3 row-major, columns e_k) of body b at x. */
static void s_E(const mbs_model *m, int b, const double *x, int rate, double *E)
{
    double qb[MBS_NB_MAX];
    mbs_gather(m, b, x, rate, qb);
    mbs_ncs_matrix(m, b, qb, E);
}

/* R(t) = E(t) E0^-1 R0, orthonormalised through the quaternion. */
void mbs_body_quat(const mbs_model *m, int b, const double *x, double q[4])
{
    const mbs_body *bd = &m->body[b];
    double E[9], T[9] = {0}, R[9] = {0};
    s_E(m, b, x, 0, E);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++) T[3 * i + j] += E[3 * i + k] * bd->E0inv[3 * k + j];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++) R[3 * i + j] += T[3 * i + k] * bd->R0[3 * k + j];
    mat_to_quat(R, q);
    double nq = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; i++) q[i] /= nq;
}

double mbs_quantity_value(const mbs_model *m, const mbs_data *d, const mbs_channel_spec *ch, const mbs_avec *pt,
                          double t, const double *x, const double *v, const double *z)
{
    int dim = m->dim;
    double r[3] = {0, 0, 0};
    switch (ch->quantity) {
    case MBS_Q_POSITION:
        mbs_avec_eval(m, pt, x, 0, r);
        return s_comp(r, dim, ch->component);
    case MBS_Q_VELOCITY:
        mbs_avec_eval(m, pt, v, 1, r);
        return s_comp(r, dim, ch->component);
    case MBS_Q_ANGLE:
        mbs_avec_eval(m, pt, x, 0, r);
        return atan2(r[1], r[0]);
    case MBS_Q_ANGULAR_VELOCITY: {
        if (dim == 2) {
            double u[3], ud[3];
            mbs_avec_eval(m, pt, x, 0, u);
            mbs_avec_eval(m, pt, v, 1, ud);
            return (u[0] * ud[1] - u[1] * ud[0]) / (u[0] * u[0] + u[1] * u[1]);
        }
        /* omega = 1/2 sum_k f_k x de_k/dt with f_k the dual basis */
        double E[9], Ed[9], Ei[9], w[3] = {0, 0, 0};
        s_E(m, ch->body, x, 0, E);
        s_E(m, ch->body, v, 1, Ed);
        if (m3inv(E, Ei) == 0) return NAN;
        for (int k = 0; k < 3; k++) {
            double f[3] = {Ei[3 * k], Ei[3 * k + 1], Ei[3 * k + 2]}, ed[3] = {Ed[k], Ed[3 + k], Ed[6 + k]}, cr[3];
            v3cross(f, ed, cr);
            for (int i = 0; i < 3; i++) w[i] += 0.5 * cr[i];
        }
        return s_comp(w, 3, ch->component);
    }
    case MBS_Q_ORIENTATION: {
        double q[4];
        mbs_body_quat(m, ch->body, x, q);
        int idx = ch->component == MBS_C_W ? 0 : 1 + (int)ch->component;
        return q[idx];
    }
    case MBS_Q_JOINT_COORDINATE:
        return mbs_joint_coord(m, ch->joint, x, NULL, NULL);
    case MBS_Q_JOINT_VELOCITY: {
        double rate = 0;
        mbs_joint_coord(m, ch->joint, x, v, &rate);
        return rate;
    }
    case MBS_Q_ELEMENT_FORCE:
        return mbs_element_force(m, d, ch->element, x, v, z, t, ch->component);
    case MBS_Q_MOTOR: {
        const mbs_force_spec *F = &m->spec->forces[ch->element];
        if (ch->component == MBS_C_SPEED) {
            double rate = 0;
            mbs_joint_coord(m, F->joint, x, v, v ? &rate : NULL);
            return F->motor.ratio * rate;
        }
        mbs_dcmotor_state st;
        /* with an inductance only the voltage and the input power depend
         * on the supply voltage: the others without it (a controller on its
         * own motor's current would otherwise evaluate its output to
         * measure its input, without end) */
        int k = m->force_z ? m->force_z[ch->element] : -1;
        if (k >= 0 && z && ch->component != MBS_C_VOLTAGE && ch->component != MBS_C_POWER_IN)
            mbs_dcmotor_eval(&F->motor, 0, z[k], v ? mbs_joint_rate(m, F->joint, x, v) : 0, &st);
        else
            mbs_force_motor(m, d, ch->element, x, v, z, t, &st);
        switch (ch->component) {
        case MBS_C_CURRENT: return st.i;
        case MBS_C_MAGNETIC_ENERGY: return st.e_magnetic;
        case MBS_C_VOLTAGE: return st.v;
        case MBS_C_TORQUE: return st.torque;
        case MBS_C_POWER_IN: return st.p_in;
        case MBS_C_COPPER_LOSS: return st.p_copper;
        case MBS_C_FRICTION_LOSS: return st.p_friction;
        case MBS_C_GEAR_LOSS: return st.p_gear;
        case MBS_C_POWER_OUT: return st.p_out;
        default: return NAN;
        }
    }
    case MBS_Q_KINETIC_ENERGY:
        return mbs_kinetic(m, v);
    case MBS_Q_POTENTIAL_ENERGY:
        return mbs_potential(m, x, t);
    case MBS_Q_TOTAL_ENERGY:
        return mbs_kinetic(m, v) + mbs_potential(m, x, t);
    default:
        return NAN;
    }
}
