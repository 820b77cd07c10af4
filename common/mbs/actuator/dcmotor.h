/*
 * dcmotor.h - the permanent-magnet DC motor of the mechatronic actuators
 * (issue 13, seed 004), as a block between a supply voltage and a joint.
 *
 * Electrical: L di/dt = V - R i - ke w_m (L = 0: the current is algebraic,
 * i = (V - ke w_m) / R), with the supply voltage V limited to +-v_max and
 * the current to +-i_max (L = 0: i clipped; L > 0: the drive lowers its
 * voltage to at most R i_max + ke w_m, the voltage that holds i_max at the
 * motor's speed, so di/dt = min((V - R i - ke w_m) / L, R (i_max - i) / L),
 * mirrored below -i_max: continuous in i, as the implicit integrators need;
 * the reported voltage and input power are the lowered ones).
 * Mechanical, through a gear of ratio N (w_m = N w_joint) and efficiency
 * eta: the torque on the joint is eta N tm, tm = kt i - b w_m - tc sgn(w_m),
 * while the motor drives the load (tm w_m > 0), N tm / eta while the load
 * drives the motor (the gear loses in both directions; the switch is
 * regularised over the power kt ke w_eps^2 / R), the Coulomb friction
 * regularised over the motor speed w_eps (|w_m| << w_eps: viscous-like; the
 * run's error control sees a smooth law); the rotor's
 * inertia reflected to the joint is J N^2 (the caller adds it to the
 * joint's inertia).  On a prismatic joint a lead (m per motor radian)
 * takes the place of 1 / N: w_m = v / lead, force = eta (kt i - ...) / lead
 * (driving).
 *
 * Everything the run needs to put the motor in its equations: the current's
 * rate, the joint torque, their partial derivatives (the Newton matrix's
 * coupling blocks) and the power flows for the energy channels.
 */
#ifndef MBS_DCMOTOR_H
#define MBS_DCMOTOR_H

typedef struct {
    double R, L;         /* armature resistance (ohm) > 0, inductance (H) >= 0   */
    double kt, ke;       /* torque constant (N m / A), back-EMF (V s / rad)      */
    double J;            /* rotor inertia (kg m^2)                              */
    double b, tc;        /* viscous (N m s / rad), Coulomb (N m) friction        */
    double w_eps;        /* Coulomb regularisation speed (rad/s) > 0              */
    double ratio;        /* N: motor speed / joint speed (or 1 / lead)            */
    double eta;          /* gear efficiency in (0, 1]                             */
    double v_max, i_max; /* limits (INFINITY: none)                               */
    double i0;           /* initial current (A), used when L > 0 (the current is
                            then a state of the run's equations)             */
} mbs_dcmotor;

/* Check the parameters (finite, R > 0, L >= 0, ratio != 0, 0 < eta <= 1,
 * limits > 0, w_eps > 0 when tc > 0).  0 or -1. */
int mbs_dcmotor_check(const mbs_dcmotor *m);

/* The motor at supply voltage V, current i (ignored when L = 0) and joint
 * speed wj.  With L > 0 the caller owns i as a state: di is its rate,
 * ddi_di, ddi_dw the Jacobian blocks of that equation, dT_di the torque's
 * dependence on it (the coupling the BDF's Newton matrix takes in). */
typedef struct {
    double i;                /* current (the algebraic one when L = 0)          */
    double di;               /* di/dt (0 when L = 0)                            */
    double torque;           /* on the joint (N m, or N through a lead)          */
    double v;                /* the voltage applied after the limits            */
    /* partial derivatives: of di/dt and of the torque by i, wj and V */
    double ddi_di, ddi_dw, ddi_dV, dT_di, dT_dw, dT_dV;
    /* power flows (W): electrical input V i, copper loss R i^2, friction
     * loss, gear loss, mechanical output torque wj; magnetic energy 1/2 L i^2 (J) */
    double p_in, p_copper, p_friction, p_gear, p_out, e_magnetic;
} mbs_dcmotor_state;

void mbs_dcmotor_eval(const mbs_dcmotor *m, double V, double i, double wj, mbs_dcmotor_state *s);

#endif
