/*
 * integrator_rel.h - Dormand-Prince 5(4) on the relative-coordinate
 * formulation (formulation/relative/tree.h): y = (q, u) of the spanning
 * tree's joint coordinates and rates, y' = (u, qdd) with qdd from the
 * articulated-body recursion and the chords' index-1 + Baumgarte equations
 * (mbs_rtree_accel).  The relative formulation behind the formulation
 * boundary (formulation/formulation.h): integrator_rel.c implements
 * mbs_ode_form's hooks on the state below and hands it to dopri5.c's one
 * Dormand-Prince driver (mbs_dopri5_run), which owns the stages, the error
 * norm, the step-size control, the stops and the contact-switch retakes.
 *
 * Error control as the natural coordinates' dopri5 (accuracy.h): the local
 * tolerance d->tol.rtol (the user's tolerance times the DOPRI5 factor), the
 * length L = d->tol.L; a revolute coordinate (and a ball's quaternion
 * component) is held to rtol (a link of length L turning by rtol moves its
 * end by rtol L), a prismatic one to rtol L, the rates to the same over
 * t_end plus rtol |u| (with solver.abs_tolerance set: every coordinate
 * to it, every rate to it plus rtol |u|, as accuracy.h's weights without
 * per-variable scales); weighted RMS norm, accepted when <= 1.  A ball's
 * quaternion is integrated with q' = 1/2 (0, w) (x) q, its length left as
 * it drifts (the kinematics normalises it).  Element states z (inductive
 * motors' currents, continuous controllers' states: model.h nz) are
 * integrated with (q, u), their rates computed by the run's hook at each
 * evaluation (z_eval, zd_eval), held to accuracy.h's weights mbs_wz.
 * Sampled controllers: a step ends at each sampling instant
 * (mbs_ctrl_next_stop, the form's next_stop) and, when a held output
 * changed there (mbs_ctrl_sample, the form's sample, on the state the
 * run's stepper mapped to d as for the outputs), the next step's
 * first slope is taken again.  A step size below solver.min_step at a
 * singular position of a loop is reported as such (w->pivot_ratio).  A
 * conservative mechanism's accepted states are scaled onto its starting
 * energy (the `energy` hook below), as the natural coordinates' are.
 *
 * With solver.integrator "bdf" the same hooks go to the BDF through the
 * boundary (bdf_ode.h mbs_bdf_ode_run), with the same weights (their local
 * tolerance the BDF's, accuracy.h), the energy projection included (the
 * natural BDF projects its energy too).  Without it the four-bar's angles
 * were 150 .. 370 x the tolerance off after 10 s at 1e-8 .. 1e-10 in
 * relative bdf (natural bdf 2 x), with it 5 .. 9 x.  A projection onto the
 * loops' constraints as well (Gauss-Newton on Phi = 0, rates onto Phi' = 0,
 * in the kinetic metric) was tried and left out: it stopped the four-bar at
 * tolerance 1e-11 below min_step (t = 2.40 s) and gained nothing once the
 * energy was projected.
 */
#ifndef MBS_INTEGRATOR_REL_H
#define MBS_INTEGRATOR_REL_H

#include "mbs/formulation/relative/tree.h"
#include "mbs/integrate/integrators.h"

/* The integrator's state: the accepted (t, q, u, qdd), the run observes it
 * through the stepper's `done` (which maps it to the natural coordinates
 * of the outputs: run/relative.c). */
typedef struct mbs_rel_state {
    const mbs_rtree *tree;   /* borrowed                                        */
    mbs_rtree_ws *w;         /* borrowed                                        */
    int n, nq, nz;           /* rates, coordinates (tree.h), element states     */
    double t, *q, *u, *qdd;  /* (nq, n, n) accepted state                       */
    double *z, *zd;          /* (nz) accepted element states (a motor's current,
                                a continuous controller's) and their rates    */
    double *k;               /* (7 x (nq + n + nz)) stage slopes (qdot, udd, zd) */
    double *ys, *y0;         /* (nq + n + nz) stage state, step start           */
    double *wq, *wu;         /* (nq, n) absolute error weights                  */
    /* the element states of the evaluation under way and where their rates
     * go: set before each mbs_rtree_accel, read by the run's hook (its
     * `extra`, run/relative.c), which writes the rates */
    const double *z_eval;
    double *zd_eval;
    double alpha, beta;      /* Baumgarte coefficients (1/s)                    */
    /* the run's look at a step before it is accepted: the fraction of the
     * step h from y0 to y1 (q, u) at which a compliant contact starts or
     * ends (1: none; run/relative.c), so that the step is taken again to
     * end just past it, as natural dopri5 does; NULL: none */
    double (*switch_at)(void *ctx, const struct mbs_rel_state *s, const double *y0, const double *y1, double h);
    void *switch_ctx;
    /* the kinetic and potential energy at the accepted state, whose
     * kinematics w holds (run/relative.c: the natural model's energies at
     * the bodies' mapped coordinates); 0, or non-zero when they cannot be
     * had.  Set, a conservative mechanism's accepted states are projected
     * onto its starting energy d->E0 as the natural coordinates' are
     * (dynamics/force.h mbs_energy_project; integrator_rel.c s_project);
     * NULL: none */
    int (*energy)(void *ctx, const struct mbs_rel_state *s, double t, double *T, double *V);
    void *energy_ctx;
} mbs_rel_state;

/* Allocate the state for tree t and nz element states (q, u, qdd, z
 * zero).  0 or MBS_ENOMEM. */
int mbs_rel_state_new(mbs_rel_state *s, const mbs_rtree *t, mbs_rtree_ws *w, int nz);
void mbs_rel_state_free(mbs_rel_state *s);

/* Integrate from s (t, q, u; qdd consistent) to t_end; every accepted step
 * goes to run->done.  Metrics (steps, rejected steps, error estimate) in
 * d->met; the error weights from d->tol (mbs_tol_init first).  0, or
 * MBS_ESINGULAR / MBS_EDIVERGE with a message. */
int mbs_integrate_relative(const mbs_model *m, mbs_data *d, mbs_rel_state *s, mbs_stepper *run, mbs_errlist *err);

#endif
