/*
 * bdf_ode.h - variable-order (1..5), variable-step BDF through the
 * formulation boundary (formulation/formulation.h): the implicit integrator
 * of y' = k(t, y) for a formulation that closes its constraints inside the
 * slope (the relative coordinates' articulated-body recursion with the
 * chords' index-1 + Baumgarte equations, integrator_rel.c).  It includes no
 * formulation: the natural coordinates could run through it too (their own
 * BDF, integrator_bdf.c, works on the stabilised index-2 form instead).
 *
 * The method is the natural BDF's (integrator_bdf.c), on y:
 *  - the BDF derivative at t_{n+1} of the polynomial through the new point
 *    and the last k points, on their actual times: y' = w0 y + b
 *    (bdf_coef.h); the corrector G(y) = w0 y + b - k(t_{n+1}, y) = 0 by
 *    modified Newton from the predictor (the polynomial through the last
 *    k + 1 points extrapolated; at the first step y + h k);
 *  - Newton matrix I - J / w0, J = dk/dy by forward differences column by
 *    column through f->slope (n slopes, the iterate's own reused), dense LU
 *    (linalg.h mbs_mat: LAPACKE above 32 unknowns).  J is evaluated at the
 *    first step and again only when Newton fails (no convergence within
 *    the iterations, or a contraction rate above 0.9: slow) with a J from
 *    an earlier step (not one evaluated at the same accepted point by a failed
 *    attempt: the step shrinks instead); the step is then retried from the
 *    predictor with the fresh J.  The matrix is factorised again with the kept J when w0 moved
 *    by more than 25 % (a change of step or order).  Refreshing J also
 *    after each step that needed 3 (or 4) iterations cost the roller chain
 *    31.5 s (18 s) instead of 8.7 s, the flyball and the four-bar the same;
 *  - Newton converged when the largest increment is below 1e-3 of its
 *    error weight (no smaller than NEWTON_ROUND |y|) or the contraction
 *    rate predicts the rest below 0.05 of it; at most solver.max_newton
 *    iterations (default 4, at most 6);
 *  - local error from the predictor-corrector difference (times h / (t_{n+1}
 *    - oldest point of the predictor), weighted RMS under f->weight at |y|,
 *    accepted when <= 1; order selection from the scaled divided
 *    differences of orders k - 1 and k + 1 after k + 1 steps at an order;
 *    the step grows only by a factor >= 1.5 (at most 2), shrinks to no less
 *    than half after an accepted step, to 0.2 .. 0.9 en^(-1/(k+1)) after a
 *    rejected one and to a quarter after a Newton failure; from the second
 *    rejection in a row the order drops by one (DASSL's rule);
 *  - the run's stops as the other drivers: a step ends at a sampled
 *    controller's instant (f->next_stop) and at an input's kink (after which the order is
 *    at most 2: a derivative of the motion jumps there); when a held
 *    output changed at a sample (f->sample) the slope is taken again
 *    (f->reslope) and the past points are moved onto the new motion by the
 *    Taylor terms of the jump, y_j += tau dk + tau^2 / 2 J dk (tau = t_j -
 *    t_s, dk = k+ - k-, its rate along the motion taken as J dk with the
 *    kept Jacobian), so that the order is kept (bdf_sample.c moves the
 *    natural BDF's history likewise).  On the 1 kHz arm (dc_motor_arm_pd)
 *    the second term took relative bdf from 10495 steps (3788 rejected) to
 *    4360 (599), natural bdf 2706.
 * Hooks used: slope, weight, begin_step, commit (with retake: the history
 * restarts at order 1 from the restored state), reslope, project (after
 * commit, before the point joins the history: the natural BDF's energy
 * projection sits there), fail.  Not used: error (Dormand-Prince's norm)
 * and switch_at (the natural BDF takes no retakes at contact onsets either:
 * the error control sees them).  A slope that fails inside Newton rejects
 * the step (quartered), or ends the run when f->stage_fail_fatal.
 *
 * Sizes: the Newton matrix is dense, N = nq + nv + nz unknowns, N slopes
 * per Jacobian (O(N) each for the relative formulation: O(N^2)) and N^3 / 3
 * flops per factorisation.  Meant for the examples' trees, N up to about
 * 200 (the flyball 8, the N = 40 four-bar 162, the roller chain 210).  A
 * large fast-moving tree is not its case: bench/relative_chain.py's 50-rod
 * spherical chain (N = 350) reached t = 0.54 s of 1 s in 15 s CPU (4870
 * steps, 1436 Jacobians: its Jacobian changes faster than modified Newton
 * follows) where relative dopri5 takes 0.56 s for the whole run
 * (bench/README.md, "rel12d").
 */
#ifndef MBS_BDF_ODE_H
#define MBS_BDF_ODE_H

#include "mbs/formulation/formulation.h"
#include "mbs/integrate/dopri5.h"
#include "mbs/integrate/integrators.h"
#include "mbs/model/data.h"

/* Integrate the formulation f from st (t, y and in st->k the slope at (t,
 * y); st->ys is not used) to solver.t_end by the BDF above.  Each accepted
 * step goes to f->commit with the slope at the accepted state (evaluated
 * there last, so that the formulation's evaluation context holds that
 * state), f->project, then run->done.  Metrics in d->met (steps, rejected
 * steps, Newton iterations, Jacobian evaluations, factorisations, system
 * size, highest order).  The driver makes and frees its own workspace.  0,
 * MBS_ENOMEM, or the code of f->fail / of the stepper. */
int mbs_bdf_ode_run(const mbs_model *m, mbs_data *d, const mbs_ode_form *f, mbs_ode_state *st, mbs_stepper *run,
                    mbs_errlist *err);

#endif
