/*
 * model.h - internal layout of the natural-coordinate model (not public).
 *
 * Natural-coordinate system (NCS) of a body (seed 000, Zhang 2012):
 *   3-D: origin r0 and three non-coplanar vectors e1, e2, e3 (12 coordinates).
 *   2-D: origin r0 and one vector e1 (4 coordinates); the second axis is
 *        e2 = P e1 with P the rotation by +90 degrees, which is linear in e1.
 * Each vector slot holds either a free vector (e_k = a_k) or a point
 * (e_k = a_k - r0), so that joint points can be coordinates of the NCS.  Any
 * body-fixed point is x = r0 + sum_k c_k e_k: LINEAR in the body coordinates,
 * hence a constant mass matrix  M_b = int B(c)^T B(c) dm.
 *
 * Elimination.  Every body coordinate ("slot") maps to a global variable or
 * to a constant.  A joint point that is an NCS point of two bodies makes the
 * slots of both map to the same variables (NCEC: equal coordinates); a joint
 * point on the ground makes them constants (NCCC).  Those joint equations are
 * never generated, which is exactly the row/column elimination of the
 * reference, done when the model is built.
 *
 * Constraint equations are sums of terms over "affine vectors" A(q) = sum of
 * (linear maps of body coordinates) + constant:
 *   LIN:  A(q)[k] - g(t) = 0
 *   DOT:  sum_m w_m(t) A_m1(q) . A_m2(q) - g(t) = 0      (m <= 2)
 * which covers rigid-body constraints, every joint and the drivers (and
 * ANG and TRIG below, with an angle variable, for the rotors).
 */
#ifndef MBS_MODEL_H
#define MBS_MODEL_H

#include "mbs/mbs.h"

#include <math.h>

#define MBS_NB_MAX 12 /* body coordinates, 3-D */

/* A linear map from one body's coordinates to a dim-vector: x = L qb. */
typedef struct {
    int body;                 /* body index (never ground)                   */
    double sign;              /* +1 or -1                                    */
    double L[3 * MBS_NB_MAX]; /* dim x nb, row-major                         */
} mbs_lterm;

/* Affine vector: up to two body terms plus a constant (ground data). */
typedef struct {
    int nterm;
    mbs_lterm t[2];
    double c[3];
} mbs_avec;

/* ANG (rotors between moving bodies, docs/actuators.md): a body's rotation
 * angle th since t = 0 as a variable of its own, tied to the body's
 * direction A(q) (global x at t = 0) by  A_x sin th - A_y cos th = 0.
 * TRIG (spatial rotors between moving bodies): a DOT equation whose
 * products are weighted by trigonometric functions of a variable th,
 *   sum_m (c_m cos k th + s_m sin k th) P_m(q).Q_m(q) - x_svar = 0
 * (constant c_m, s_m, k; no time dependence). */
typedef enum { MBS_EQ_LIN = 0, MBS_EQ_DOT, MBS_EQ_ANG, MBS_EQ_TRIG } mbs_eq_kind;

/* Time-dependent target or weight: value = base + scale * fn(t) (fn may be
 * NULL for a constant), or for angle drivers sin/cos of (base + fn(t)). */
typedef enum { MBS_TW_CONST = 0, MBS_TW_FN, MBS_TW_SIN, MBS_TW_NEGCOS } mbs_tw_kind;
typedef struct {
    mbs_tw_kind kind;
    double base;
    const mbs_fn *fn; /* points into the model's spec copy */
} mbs_tw;

/* One variable's column of an affine vector's (constant) Jacobian: the
 * variable, its position in its equation's row, the dim components. */
typedef struct {
    int var, pos;
    double col[3];
} mbs_jcol;

typedef struct {
    mbs_eq_kind kind;
    int joint;           /* joint index, -1 rigid-body constraint, or
                            -2 - d for driver d                            */
    int body;            /* rigid-body constraint: its body                  */
    /* The affine vectors are kept once in the model's pool (several
     * equations share them: a body's NCS vectors, a joint's axis) */
    /* LIN (and ANG: the body's direction) */
    const mbs_avec *a;
    int comp;
    /* ANG, TRIG: the angle variable and its position in the row */
    int avar, apos;
    /* TRIG: the weights' coefficients (tc[m][0] of cos k th, tc[m][1] of
     * sin k th) and the multiple k */
    double tc[2][2], tk;
    /* DOT; svar >= 0: minus that variable is a further term (a slide
     * variable, ncs.c s_rotors), spos its position in the row */
    int svar, spos;
    int nprod;
    const mbs_avec *p[2][2]; /* products *p[m][0] . *p[m][1]                 */
    mbs_tw w[2];         /* weights                                          */
    mbs_tw g;            /* target                                           */
    int tconst;          /* 1: the target (and a DOT's weights) constant in
                            time, Phi_t = -0 (mbs_cons_jac_prepare)         */
    /* Jacobian row pattern: variables touched (sorted, unique)            */
    int nnz;
    int *cols;           /* into the model's column pool                     */
    /* the affine vectors' Jacobian columns (constraint.c
     * mbs_cons_jac_prepare): LIN a in [0][0], DOT p[m][s] in [m][s];
     * into the model's jcol pool                                          */
    mbs_jcol *jc[2][2];
    int njc[2][2];
} mbs_eq;

/* Per-body data of the natural-coordinate system. */
typedef struct {
    int nb;                    /* 4 (2-D) or 12 (3-D)                         */
    int vec_is_point[3];       /* s_k: vector slot k holds a point            */
    int var[MBS_NB_MAX];       /* global variable of each slot, -1 constant  */
    double cst[MBS_NB_MAX];    /* value of constant slots                     */
    double q0[MBS_NB_MAX];     /* slot values at t = 0 (input geometry)       */
    double E0inv[9];           /* inverse of [e1 e2 (e3)] at t = 0 (dim x dim) */
    double R0[9];              /* body-frame orientation at t = 0 (dim x dim) */
    double Mb[MBS_NB_MAX * MBS_NB_MAX]; /* constant body mass matrix          */
    double Qg[MBS_NB_MAX];     /* gravity generalized force (constant)        */
    double c_com[3];           /* NCS coordinates of the centre of mass       */
    int avar;                  /* the body's angle variable (a rotor between
                                  moving bodies turns with it: docs/
                                  actuators.md), -1 none                     */
    char origin_desc[96];      /* what the NCS was adapted to (report)        */
} mbs_body;

/* Measures of a revolute / prismatic joint: relative angle from
 * cos = u0.u1, sin = v0.u1 (u0, v0 fixed in body 0, u1 in body 1, equal to u0
 * at t = 0); prismatic displacement d . ax with d = x1(P) - x0(P). */
typedef struct {
    mbs_avec u0, v0, u1;
    mbs_avec d, ax;
} mbs_jgeom;

/* A contact shape fixed in its body: points and directions as affine maps
 * of the body coordinates (kind: mbs_shape_kind of contact_geom.h). */
typedef struct {
    int body;
    int kind;
    mbs_avec p, q;       /* centre / first point; second point or normal      */
    mbs_avec ax[3];      /* box axes                                          */
    double radius, half[3];
} mbs_cshape;

struct mbs_model {
    const mbs_spec *spec; /* borrowed (see mbs_model_new)                      */
    int dim, nb;         /* dimension, coordinates per body                   */
    int nbody;
    mbs_body *body;

    int nvar;            /* integration variables after elimination           */
    double *x0;          /* (nvar) initial values from the input geometry     */
    double *v0;          /* (nvar) initial velocities from the input          */

    int neq;             /* constraint equations kept                         */
    mbs_eq *eq;
    int *colpool;
    void *eqav;          /* pool of the equations' affine vectors (ncs_equations.c) */
    mbs_jcol *jcpool;    /* the equations' Jacobian columns (mbs_eq jc)       */

    /* Mass matrix on the variables: CSR of the upper+lower pattern (sym). */
    int *M_ptr, *M_col; double *M_val;
    /* The bodies' gravity forces (mbs_body Qg) summed on the variables, body
     * by body from zero: mbs_force_eval's starting vector (nvar). */
    double *Qg_var;

    /* Ordering: perm[k] = variable placed at position k; iperm inverse.
     * Band of the SPD matrix M + Phi_q^T Phi_q in that order. */
    int *perm, *iperm;
    int kd;              /* half-bandwidth (SPD), in the permuted order      */

    /* KKT ordering for the index-3 BDF: unknowns (vars, multipliers). */
    int nkkt;
    int *kperm, *kiperm; /* kperm[k] = unknown at position k                 */
    int kkl, kku;        /* band of the KKT matrix in that order             */

    /* Stabilised index-2 (GGL) BDF system: unknowns (q, v, lam, mu), nodes
     * q_i = i, v_i = n + i, lam_r = 2n + r, mu_r = 2n + m + r. */
    int nggl;
    int *gperm, *giperm;
    int gkl, gku;

    mbs_jgeom *jg;       /* (njoint)                                          */

    /* Rotors of dc_motors on planar revolute joints between two moving
     * bodies A (the stator's, the joint's first) and B: the rotor turns at
     * (1 - N) w_A + N w_B, so its kinetic energy 1/2 J (c_A th_A' + c_B
     * th_B')^2 is a constant form in the bodies' angle variables (var[k]
     * the variable of side k, -1 where c_k = 0; mbs_body avar). */
    int nrotor;
    struct mbs_rotor {
        int force, body[2], var[2];
        double J, c[2];
    } *rotor;            /* (nrotor)                                          */
    /* Rotors of dc_motors on planar prismatic joints between two moving
     * bodies: the rotor turns at s' / lead relative to the stator's body A,
     * which turns about an axis normal to the screw's, so its kinetic
     * energy is 1/2 (J / lead^2) s'^2 with s the slide: a variable of its
     * own (var), tied to the bodies by the DOT equation ax_A . d - s = 0
     * (d = x_B(P) - x_A(P)), with the constant mass ms = J / lead^2. */
    int nsrotor;
    struct mbs_srotor {
        int force, joint, var;
        double ms;
    } *srotor;           /* (nsrotor)                                         */
    /* Rotors of dc_motors on spatial revolute or prismatic joints between
     * two moving bodies: the rotor turns about the joint's axis a (fixed in
     * the stator's body A) at w_A . a + N th', th the joint's angle (or
     * slide, N = 1 / lead).  It is a thin disk (polar inertia J, transverse
     * J / 2, its mass in A's) with two unit vectors of its own, e =
     * cos(N th) u0 + sin(N th) v0 and f = -sin(N th) u0 + cos(N th) v0 (u0,
     * v0 = a x u0 fixed in A, normal to a): its kinetic energy is 1/4 J
     * (|e'|^2 + |f'|^2) = 1/2 J (w_r . a)^2 + 1/4 J |w_A x a|^2, a constant
     * mass J / 2 on the six variables (e, f) = var_e .. var_e + 5; th is
     * var_th (a revolute joint's angle: a TRIG equation of its own; a
     * prismatic joint's slide: the srotor's variable).  ncs.c
     * s_space_rotors, docs/actuators.md. */
    int nrotor3;
    struct mbs_rotor3 {
        int force, joint, var_th, var_e, slide;
        double J, N;
    } *rotor3;           /* (nrotor3)                                         */

    /* Force elements: application points (2 per element: spring ends, or
     * the point of a point force in [2e]); initial spring lengths. */
    mbs_avec *fpts;      /* (2 nforce)                                        */
    double *spring_len0; /* (nforce)                                          */
    /* State-dependent elements and the variables they touch (for the
     * finite-difference stiffness and damping matrices). */
    int nstate_el;
    struct mbs_fel {
        int force, joint, has_rate, nvar, split;
        int vars[2 * MBS_NB_MAX];
        /* an element whose force depends on element states or controller
         * outputs when the model has controllers (a motor with a current
         * state or a controlled voltage): the further variables its force
         * depends on through them (the measured signals' bodies), columns
         * of its finite-difference blocks beside vars (owned by the model;
         * NULL, 0 otherwise) */
        int *cvars, ncvar;
    } *stel;
    /* Element states (issue 13, docs/actuators.md): first-order states z of
     * force elements, z' = f(z, q, v, t), beside the mechanical ones; today
     * the current of each dc_motor with inductance > 0 (controller states
     * can join: an element owns nz_el consecutive entries).  Integrated by
     * bdf and dopri5 only (the others refuse a model with nz > 0). */
    int nz;
    int *z_force;        /* (nz) force element owning each state, -1: a
                            controller's                                    */
    int *force_z;        /* (nforce) its first state, -1: none               */
    /* Controllers (spec->controllers, docs/actuators.md): the states of a
     * continuous one follow the motors' currents in z (a PID's integral and
     * derivative filter, a linear block's x); a discrete one keeps its
     * state and held output in the run's data (data.h ctrl_s, ctrl_y). */
    int nctrl;
    int *ctrl_z;         /* (nctrl) first state of each, -1: none            */
    int *ctrl_nz;        /* (nctrl) its number of states in z                */
    int *z_ctrl;         /* (nz) controller owning each state, -1: a motor's */
    mbs_avec *ctrl_pts;  /* (nctrl) point / body axis of a measured body
                            quantity (as the sampler's channels)            */

    /* Contacts (contact.c): shapes, the variables of each pair, and the
     * pairs as shape index pairs for the broad phase. */
    mbs_cshape *cshape;  /* (nshape)                                          */
    struct mbs_fel *cfel;/* (ncontact)                                        */
    int *cpairs;         /* (2 ncontact)                                      */

    /* The kinks of the inputs' functions of time in (0, t_end)
     * (mbs_spec_kinks, sorted): the integrators end their steps there
     * (mbs_next_kink). */
    double *kinks;
    int nkink;

    /* Force-element metadata. */
    int conservative;    /* no damping, no time-dependent forces, no drivers */
    int has_stiffness;   /* any spring or state-dependent force              */

    mbs_report report0;  /* counts of the build (before initialisation)      */
    double length_scale; /* characteristic length for tolerances             */
    double mass_scale;   /* mean diagonal of M                               */
};

/* The first kink of the model's inputs after t (m->kinks; a kink within
 * 1e-12 relative of t counts as passed), INFINITY when none is left. */
static inline double mbs_next_kink(const mbs_model *m, double t)
{
    int lo = 0, hi = m->nkink; /* first index with kinks[i] > t + margin */
    double tt = t + 1e-12 * (t > 1 ? t : 1);
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (m->kinks[mid] > tt) hi = mid;
        else lo = mid + 1;
    }
    return lo < m->nkink ? m->kinks[lo] : INFINITY;
}

/* Joint parts removed by elimination (ncs.c), for equation generation and
 * reports. */
typedef struct {
    int point_shared; /* the joint point is an NCS point of both sides      */
    int axis_shared;  /* the axis is a free NCS vector of both sides        */
} mbs_elim;

/* The functions on this layout are declared with their layers:
 * formulation/natural/natural.h (ncs.c, ncs_equations.c, constraint.c) and
 * dynamics/force.h (force.c). */
typedef struct mbs_fel mbs_fel;

#endif
