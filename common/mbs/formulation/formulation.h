/*
 * formulation.h - the formulation boundary for explicit integrators
 * (issue 12, docs/formulations.md): what an ODE-form integrator such as
 * Dormand-Prince (integrate/dopri5.h) needs from a formulation of the
 * equations of motion, and nothing else.
 *
 * A formulation presents its equations as a first-order system
 *
 *   y = (q, v, z),   y' = k(t, y) = (q'(q, v), v'(t, q, v, z), z'(t, q, v, z)),
 *
 * q its nq position coordinates (natural coordinates; or joint coordinates
 * with a ball's quaternion), v its nv rates, z the model's nz element states
 * (a motor's current, a continuous controller's state: model.h nz), with
 * the constraints closed inside the slope: the natural coordinates' index-1
 * + Baumgarte accelerations by augmented-Lagrangian iterations
 * (integrator_rk.c), the relative formulation's articulated-body recursion
 * with the chords' circuit equations (formulation/relative/tree.h).  The
 * integrator owns the arrays (y, stage states, slopes); the formulation
 * owns whatever it evaluates with (ctx).
 *
 * What stays outside the boundary (formulation independent, the run's
 * business): the run's data d (time, metrics, tolerance), the inputs'
 * kinks, the stepper that observes each accepted step.  The sampled
 * controllers measure the state in the natural coordinates (their
 * channels, dynamics/controller.h), so the driver reaches their stops and
 * samples through the hooks next_stop and sample below.
 *
 * Rank: this header is part of the model layer (common/mbs/README.md), below
 * both formulations, so that either may implement it.
 */
#ifndef MBS_FORMULATION_H
#define MBS_FORMULATION_H

#include "mbs/model/data.h"

/* Why an integrator gives up, handed to mbs_ode_form.fail for the message
 * (the formulation knows the likely cause). */
enum {
    MBS_ODE_FAIL_STAGE = 1, /* a stage's slope failed (and the step fell below min_step) */
    MBS_ODE_FAIL_MIN_STEP,  /* the error control drove the step below min_step        */
    MBS_ODE_FAIL_RESLOPE    /* the slope after a sampled controller's jump failed      */
};

typedef struct mbs_ode_form {
    const char *name; /* "natural", "relative"                                   */
    int nq, nv, nz;   /* layout of y: q [0, nq), v [nq, nq + nv), z [nq + nv, ..) */
    int stage_fail_fatal; /* a failed stage ends the run at once (natural: a
                             singular matrix); 0: the step is taken again
                             with a quarter of its size (relative)       */
    void *ctx;        /* the formulation's evaluation context, passed to each hook */

    /* The slope k = (q', v', z') at (t, y), constraints closed.  Non-zero:
     * the evaluation failed at this state (a non-positive pivot of a state
     * thrown far by too long a step), the integrator rejects the step. */
    int (*slope)(void *ctx, double t, const double *y, double *k);

    /* Absolute-plus-relative error weight of component i of y, at the
     * magnitude ay = max(|y_i| at the step's start, at its end) (the
     * tolerances of model/accuracy.h as this formulation scales them). */
    double (*weight)(void *ctx, int i, double ay);

    /* Optional (NULL: none).  Called before each step's stages. */
    void (*begin_step)(void *ctx);

    /* Optional (NULL: the weighted RMS norm of f->weight in the order of
     * y).  The embedded error estimate's norm of a step of size h from y0
     * to y1 with slopes k[0..6], 1e10 when not finite: a formulation whose
     * norm sums its components in another order (the natural coordinates:
     * each position with its rate) keeps its results bit for bit. */
    double (*error)(void *ctx, double h, double *const k[7], const double *y0, const double *y1);

    /* An accepted step of size h from t0 ends at (*t, y) with slope k (k's
     * state: the last stage's, FSAL): the formulation stores it where its
     * run reads it, and may check it.  Setting *retake asks for the step
     * to be taken again from the state the formulation restored in (*t,
     * y, k[0]) (the natural coordinates after choosing their independent
     * constraints again) with the same step size; the stepper then does
     * not see it, nor d->met.steps count it.  0, or an
     * error code with a message in err.  Called before the stepper's
     * `done`. */
    int (*commit)(void *ctx, double t0, double h, double *t, double *y, double *k, int *retake, mbs_errlist *err);

    /* The slope at the accepted state (t, y), taken again after a sampled
     * controller's held output jumped there, into k and where the run
     * reads it; non-zero: failed (MBS_ODE_FAIL_RESLOPE). */
    int (*reslope)(void *ctx, double t, const double *y, double *k);

    /* Optional (NULL: the run has no controllers).  The next sampling
     * instant of a discrete controller after the accepted state, before
     * t_end; INFINITY when none: the step ends there. */
    double (*next_stop)(void *ctx);

    /* Optional (NULL as next_stop).  After the stepper's `done` at the
     * accepted state (t, y): sample the discrete controllers due at t, on
     * the state as the natural coordinates see it (the relative
     * formulation's: mapped by its run, as its outputs are).  1 when a
     * held output changed (the forces jump: the driver calls reslope),
     * else 0. */
    int (*sample)(void *ctx, double t, const double *y);

    /* Optional (NULL: none).  After commit: bring y back to its manifold
     * (a quaternion's length, a projection on the constraints) and update
     * k if it changed.  The natural coordinates' DOPRI5 uses it for the
     * energy projection of conservative mechanisms (dynamics/force.h
     * mbs_energy_project), the relative formulation for the same
     * projection on its joint rates (integrator_rel.c; Baumgarte holds its
     * loops, the kinematics normalise a ball's quaternion where they read
     * it). */
    void (*project)(void *ctx, double t, double *y, double *k);

    /* Optional (NULL: none).  The fraction of a step of size h from y0 to
     * y1, both with their slopes' kinematics as the last stage left them,
     * at which a compliant contact starts or ends (1: none): a step that
     * switches early is taken again to end just past it. */
    double (*switch_at)(void *ctx, const double *y0, const double *y1, double h);

    /* The message for a failure (MBS_ODE_FAIL_*) at time t, step h; returns
     * the run's error code (MBS_ESINGULAR, MBS_EDIVERGE). */
    int (*fail)(void *ctx, int why, double t, double h, mbs_errlist *err);
} mbs_ode_form;

/* Entries of y: nq + nv + nz. */
static inline int mbs_ode_size(const mbs_ode_form *f) { return f->nq + f->nv + f->nz; }

#endif
