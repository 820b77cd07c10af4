/*
 * force.h - generalized forces of the natural-coordinate model (internal):
 * force elements, compliant contacts, energies, mass products, force
 * Jacobians by finite differences, joint measures.
 */
#ifndef MBS_FORCE_H
#define MBS_FORCE_H

#include "mbs/model/data.h"

/* Generalized applied forces Q(x, v, t) (nvar), gravity included. */
void mbs_force_eval(const mbs_model *m, const mbs_data *d, const double *x, const double *v,
                    double t, double *Q);
/* Finite-difference K = -dQ/dx and C = -dQ/dv of the state-dependent
 * elements, added as add(ctx, i, j, cK K_ij + cC C_ij). */
void mbs_force_jac(const mbs_model *m, mbs_data *d, const double *x, const double *v, double t, double cK,
                   double cC, void (*add)(void *ctx, int i, int j, double v), void *ctx);
/* K and C to separate sinks: addK(ctxK, i, j, cK K_ij) and addC(ctxC, i,
 * j, cC C_ij), each sink receiving the entries of mbs_force_jac(.., cK, 0,
 * addK, ctxK) and of mbs_force_jac(.., 0, cC, addC, ctxC) in the same order
 * (the GGL Newton matrix's K and C blocks); the compliant contacts'
 * geometry and laws are evaluated once for both. */
void mbs_force_jac_split(const mbs_model *m, mbs_data *d, const double *x, const double *v, double t, double cK,
                         void (*addK)(void *ctx, int i, int j, double v), void *ctxK, double cC,
                         void (*addC)(void *ctx, int i, int j, double v), void *ctxC);
/* mbs_force_eval and mbs_force_jac without the compliant contacts: the BDF
 * integrator with solver.contact_force_unknowns carries their forces as
 * unknowns of its Newton matrix (system_contacts.c). */
void mbs_force_eval_noncontact(const mbs_model *m, const mbs_data *d, const double *x, const double *v, double t,
                               double *Q);
void mbs_force_jac_noncontact(const mbs_model *m, mbs_data *d, const double *x, const double *v, double t,
                              double cK, double cC, void (*add)(void *ctx, int i, int j, double v), void *ctx);
/* The torques that the rotors between moving bodies (model.h mbs_rotor)
 * exert on their bodies at accelerations a (nvar), added per body in body
 * coordinates to Qbody (nbody x nb): on body k of a rotor -J c_k (c . th'')
 * about the plane's normal, the inertia of the rotor's motion as the gear
 * and its bearing pass it on (the reaction recovery's body balances). */
/* The spatial rotors (model.h mbs_rotor3) pass on theirs through the
 * multipliers of their equations: lam = (J / 2) e'' on each unit vector's
 * equation (its variable's row), the joint angle's (or slide's) from its
 * massless row, and -lam Phi_q on the bodies A and B. */
void mbs_force_rotor_body(const mbs_model *m, const double *x, const double *a, double *Qbody);
/* The same forces per body in body coordinates (nbody x nb): what each
 * body receives, before variables shared by bodies are summed. */
void mbs_force_eval_body(const mbs_model *m, const mbs_data *d, const double *x, const double *v, double t,
                         double *Qbody);
/* The state of dc_motor element e at (x, v, z, t) (d: the run's data, for
 * a voltage that is a controller's output): its current, torque on
 * the joint, power flows (dcmotor.h); the joint's rate taken as 0 when v is
 * NULL.  z: the element states (model.h nz; the motor's current when its
 * inductance is > 0, read at m->force_z[e]); NULL when nz = 0.
 * The other force functions read the element states from d->z; in
 * mbs_force_jac with d->zkap[k] != 0 a motor's current follows its joint's
 * rate (the BDF's Newton matrix with the current eliminated). */
void mbs_force_motor(const mbs_model *m, const mbs_data *d, int e, const double *x, const double *v, const double *z,
                     double t, mbs_dcmotor_state *st);
/* The rates z' = f(z, x, v, t) of the element states (nz) into zd: the
 * motors' currents and the continuous controllers' states.  d: the run's
 * data (a controller's held output, its angle reference); it may be NULL
 * for a model without controllers, as in mbs_force_motor. */
void mbs_force_zrate(const mbs_model *m, const mbs_data *d, const double *x, const double *v, const double *z, double t,
                     double *zd);
/* Potential energy (gravity + springs) at x. */
double mbs_potential(const mbs_model *m, const double *x, double t);
/* Whether a run of m projects its accepted steps onto the starting energy
 * (mbs_energy_project): conservative (model.h), solver.energy_projection,
 * and no rotational spring (mbs_potential takes its joint angle within
 * +-pi: a spring wound past half a turn would give a wrong energy). */
int mbs_energy_projectable(const mbs_model *m);

/* The factor s = sqrt(target / T) that brings the kinetic energy T of the
 * rates v (n) to target, moved towards 1 so that no rate changes by more
 * than its error weight w(ctx, i, |v_i|); 1 when T or target is not
 * positive or a ratio is not finite.  The rule of the energy projections
 * (mbs_energy_project; the relative formulation's, integrator_rel.c). */
double mbs_energy_scale(double T, double target, const double *v, int n, double (*w)(void *ctx, int i, double av),
                        void *ctx);

/* Scale d->v at the accepted state (d->x, d->t) towards the energy d->E0,
 * by at most each velocity's error weight (docs/accuracy.md, "Conservative
 * mechanisms"); the energy moved is added to d->E_proj.  Returns 1 when v
 * was scaled. */
int mbs_energy_project(const mbs_model *m, mbs_data *d);

/* Kinetic energy 0.5 v^T M v. */
double mbs_kinetic(const mbs_model *m, const double *v);
/* y = M v (nvar). */
void mbs_mass_mul(const mbs_model *m, const double *v, double *y);
/* Force of element e along its own measure (spring tension, torque, ...);
 * z the element states (a motor's current), NULL when nz = 0. */
double mbs_element_force(const mbs_model *m, const mbs_data *d, int e, const double *x, const double *v, const double *z,
                         double t, int comp);
/* Relative coordinate of a revolute (angle, continuous branch not handled)
 * or prismatic (displacement) joint and its rate.  */
double mbs_joint_coord(const mbs_model *m, int j, const double *x, const double *v, double *rate);
/* The rate of that coordinate alone (cheaper: no angle). */
double mbs_joint_rate(const mbs_model *m, int j, const double *x, const double *v);

#endif
