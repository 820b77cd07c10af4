/*
 * tree_int.h - what the files of the relative formulation's tree share
 * (tree.c, tree_dynamics.c, tree_circuit.c); not for other layers.
 */
#ifndef MBS_TREE_INT_H
#define MBS_TREE_INT_H

#include "mbs/formulation/relative/tree.h"
#include "mbs/linalg/vec.h"

#include <math.h>
#include <string.h>

/* y = R x (trans 0) or R^T x (trans 1); y may alias x */
static inline void s_rot(const double R[9], int trans, const double x[3], double y[3])
{
    double o[3];
    for (int i = 0; i < 3; i++)
        o[i] = trans ? R[i] * x[0] + R[3 + i] * x[1] + R[6 + i] * x[2]
                     : R[3 * i] * x[0] + R[3 * i + 1] * x[1] + R[3 * i + 2] * x[2];
    v3copy(o, y);
}

/* C = A B (trans_a: A^T B) */
static inline void s_mm(const double A[9], int trans_a, const double B[9], double C[9])
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
static inline void s_axis_rot(const double u[3], double th, double R[9])
{
    double c = cos(th), s = sin(th), k = 1 - c;
    R[0] = c + k * u[0] * u[0];        R[1] = k * u[0] * u[1] - s * u[2]; R[2] = k * u[0] * u[2] + s * u[1];
    R[3] = k * u[1] * u[0] + s * u[2]; R[4] = c + k * u[1] * u[1];        R[5] = k * u[1] * u[2] - s * u[0];
    R[6] = k * u[2] * u[0] - s * u[1]; R[7] = k * u[2] * u[1] + s * u[0]; R[8] = c + k * u[2] * u[2];
}

/* Two unit vectors completing u to a right-handed orthonormal triad. */
static inline void s_perp(const double u[3], double n1[3], double n2[3])
{
    double a[3] = {0, 0, 0};
    int k = fabs(u[0]) <= fabs(u[1]) && fabs(u[0]) <= fabs(u[2]) ? 0 : fabs(u[1]) <= fabs(u[2]) ? 1 : 2;
    a[k] = 1;
    double d = v3dot(a, u);
    for (int i = 0; i < 3; i++) a[i] -= d * u[i];
    n1[0] = n1[1] = n1[2] = 0;
    v3unit(a, n1);
    v3cross(u, n1, n2);
}

/* The angle of the rotation R about the unit vector u (R a rotation about u). */
static inline double s_angle_about(const double R[9], const double u[3])
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
static inline void s_t6(const mbs_twist *t, double x[6]) { v3copy(t->w, x); v3copy(t->v, x + 3); }
static inline void s_w6(const mbs_wrench *f, double x[6]) { v3copy(f->n, x); v3copy(f->f, x + 3); }
static inline mbs_wrench s_6w(const double x[6])
{
    mbs_wrench f;
    v3copy(x, f.n); v3copy(x + 3, f.f);
    return f;
}

/* The wrench I t of a 6 x 6 (articulated) inertia. */
static inline mbs_wrench s_apply6(const double I[36], const mbs_twist *t)
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

/* Inline copies of motor.h's sums and products for the recursion's inner
 * loops (the same arithmetic; motor.c's are calls across files). */
static inline mbs_twist s_taxpy(double a, const mbs_twist *x, const mbs_twist *y)
{
    mbs_twist o;
    for (int i = 0; i < 3; i++) { o.w[i] = a * x->w[i] + y->w[i]; o.v[i] = a * x->v[i] + y->v[i]; }
    return o;
}
static inline mbs_wrench s_waxpy(double a, const mbs_wrench *x, const mbs_wrench *y)
{
    mbs_wrench o;
    for (int i = 0; i < 3; i++) { o.n[i] = a * x->n[i] + y->n[i]; o.f[i] = a * x->f[i] + y->f[i]; }
    return o;
}
static inline double s_power(const mbs_twist *t, const mbs_wrench *f)
{
    return t->w[0] * f->n[0] + t->w[1] * f->n[1] + t->w[2] * f->n[2] + t->v[0] * f->f[0] + t->v[1] * f->f[1] +
           t->v[2] * f->f[2];
}

/* The nodes' true spatial accelerations w->A for rates qdd (NULL: zero,
 * the bias accelerations), base at rest, after mbs_rtree_kinematics. */
void mbs_rtree_accel_pass(const mbs_rtree *t, mbs_rtree_ws *w, const double *qdd);

/* The body inertia of node i (a node carrying a body) in world coordinates,
 * after mbs_rtree_kinematics. */
void mbs_rtree_world_rbi(const mbs_rtree *t, const mbs_rtree_ws *w, int i, mbs_rbi *Iw);

/* A node's spatial rotors (tree.h rotor_J, dim 3): the world axis a
 * (a revolute node's S.w, a prismatic's S.v), after mbs_rtree_kinematics. */
const double *mbs_rtree_rotor_axis(const mbs_rtree *t, const mbs_rtree_ws *w, int i);

/* Their bias moment mb (world), what the recursion adds to the node's pA
 * as it projects on the node's axis (w x I w of each rotor plus I (c_r -
 * c_i): the rotor's velocity product less the node's), and Ua = sum J n
 * a, their share of U = IA S + sum I_k g_k (g_k = n_k (a, 0)). */
void mbs_rtree_rotor_bias(const mbs_rtree *t, const mbs_rtree_ws *w, int i, double mb[3], double Ua[3]);

/* Node i's geared rotors (tree.h rotor_J: a one-freedom node, after
 * mbs_rtree_kinematics): their world axis a and the sum of their inertias
 * Ir (3 x 3), as the articulated-body recursion takes them (tree.h,
 * tree_dynamics.c pass 2): J a a^T in the plane (a = S.w), a thin disk
 * J / 2 (1 + a a^T) in space (a = mbs_rtree_rotor_axis: a revolute's S.w,
 * a prismatic's S.v).  Each turns at w_parent + n q' a, and Ir a = J a,
 * so the node's rate sees J n^2 on its diagonal and J n (a, 0) in its
 * column's wrench.  0 when the node has none. */
int mbs_rtree_rotor_inertia(const mbs_rtree *t, const mbs_rtree_ws *w, int i, double a[3], double Ir[9]);

/* A spatial rotor on a chord (tree.h mbs_rrotor, kind 2 or 3), after
 * mbs_rtree_kinematics: its world axis a (fixed in the stator's body A),
 * A's angular velocity wA, and the return value its spin om = c . u
 * ((1 - n) a . w_A + n a . w_B, or a . w_A + n s'; 0 rates when w->u is
 * NULL) (tree_circuit.c). */
double mbs_rtree_chord_rotor_spin(const mbs_rtree *t, const mbs_rtree_ws *w, const mbs_rrotor *r, double a[3],
                                  double wA[3]);

#endif
