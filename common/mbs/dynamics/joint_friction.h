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
 * shared by the ends in proportion to |N_k| (F_k = F_T |N_k| / sum |N|;
 * exact while slipping, the chosen split of the statically indeterminate
 * stick force), each acting along the guide's axis at its wall contact point
 * C_k = P_k - s_k (w/2) n_g (s_k = sign N_k, w = slider_width).  A force
 * along the axis may slide along its line of action, so C_k may be taken
 * at P - s_k (w/2) n_g; the generalized force of the pair (virtual work) is
 *     sum_k F_k (W - s_k (w/2) V)^T = F_T (W - (w/2) tau V)^T,
 *     tau = sum_k s_k |N_k| / sum_k |N_k| = (N_1 + N_2) / (|N_1| + |N_2|),
 * with W = ds/dq and V = d/dq [axis_0 . (n_1 - n_0)] (n_b: the guide's
 * normal fixed in body b; V is minus the gradient of the relative angle
 * on the joint's manifold).  docs/clearance-joint.md.
 */
#ifndef MBS_JOINT_FRICTION_H
#define MBS_JOINT_FRICTION_H

#include "mbs/model/data.h"

/* One frictional clearance joint of the model. */
typedef struct {
    int joint;     /* index in spec->joints                                */
    int eq[2];     /* its equations in m->eq: end 1, end 2                  */
    double mu;     /* Coulomb coefficient (kinetic)                         */
    double mus;    /* static coefficient >= mu: the stick limit mu_s Nbar   */
    double hw;     /* half the slider's width (the walls' offset)           */
    mbs_avec nrel; /* n_1 - n_0: the guide's normal fixed in the slider minus
                      the one fixed in the guide (zero at t = 0)            */
} mbs_fjoint;

/* Number of joints with clearance_model "friction" in the model. */
int mbs_fjoint_count(const mbs_model *m);

/* Fill fj (mbs_fjoint_count entries) with the frictional joints and their
 * equations.  Returns 0, or MBS_EINVAL (message in err) when a joint's two
 * equations are not in the model. */
int mbs_fjoint_find(const mbs_model *m, mbs_fjoint *fj, mbs_errlist *err);

/* Sliding kinematics of joint f at (x, v): returns v_t = W v, fills the
 * dense row W (nvar; overwritten) and gam such that the sliding
 * acceleration is a_t = W a + gam; with V non-NULL and f->hw > 0, also the
 * dense row V = d/dq [axis_0 . (n_1 - n_0)] (nvar; overwritten), through
 * which the friction's moment about the slider enters (header comment). */
double mbs_fjoint_slide(const mbs_model *m, const mbs_fjoint *f, const double *x, const double *v, double *W,
                        double *V, double *gam);

#endif
