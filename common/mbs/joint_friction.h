/*
 * joint_friction.h - the frictional translational joint with clearance of
 * seed 003 (Zhuang & Wang 2012), planar (internal).
 *
 * The joint stays bilateral: its two equations (ncs_equations.c) hold the
 * slider's end points P_1, P_2 = at -+ (L/2) axis on the guide's centre line,
 *     Phi_k = n_g . (P_k - A) = 0,   k = 1, 2,
 * so their multipliers lam_k are the normal forces at the slider's ends:
 * the guide pushes the slider with N_k n_g at end k, N_k = -lam_k.  The sign
 * of N_k says which wall carries end k (N_k > 0: the wall on the -n_g side).
 * Friction is set-valued Coulomb on the sliding velocity v_t (the rate of
 * the joint's displacement s = (x_1(P) - x_0(P)) . axis_0):
 *     F_T in -mu (|N_1| + |N_2|) Sign(v_t),
 * acting along the guide's axis; it enters the equations of motion as the
 * generalized force W^T F_T with W = ds/dq (virtual work F_T ds).
 */
#ifndef MBS_JOINT_FRICTION_H
#define MBS_JOINT_FRICTION_H

#include "data.h"

/* One frictional clearance joint of the model. */
typedef struct {
    int joint;     /* index in spec->joints                                */
    int eq[2];     /* its equations in m->eq: end 1, end 2                  */
    double mu;     /* Coulomb coefficient                                   */
} mbs_fjoint;

/* Number of joints with clearance_model "friction" in the model. */
int mbs_fjoint_count(const mbs_model *m);

/* Fill fj (mbs_fjoint_count entries) with the frictional joints and their
 * equations.  Returns 0, or MBS_EINVAL (message in err) when a joint's two
 * equations are not in the model. */
int mbs_fjoint_find(const mbs_model *m, mbs_fjoint *fj, mbs_errlist *err);

/* Sliding kinematics of joint f at (x, v): returns v_t = W v, fills the
 * dense row W (nvar; overwritten) and gam such that the sliding
 * acceleration is a_t = W a + gam. */
double mbs_fjoint_slide(const mbs_model *m, const mbs_fjoint *f, const double *x, const double *v, double *W,
                        double *gam);

#endif
