/*
 * dopri5.h - Dormand-Prince 5(4) (internal): the tableau; one step's
 * stages on the natural coordinates' arrays of d, shared by the index-1 +
 * Baumgarte integrator (integrator_rk.c) and the smooth phases of the
 * event-driven integrator (integrator_ed.c), which differ only in how they
 * get the accelerations at a stage; and the whole driver through the
 * formulation boundary (formulation/formulation.h, mbs_dopri5_run), which
 * runs the relative formulation (integrator_rel.c) and is where the natural
 * coordinates' dopri5 is to move next (docs/formulations.md).
 */
#ifndef MBS_DOPRI5_H
#define MBS_DOPRI5_H

#include "mbs/formulation/formulation.h"
#include "mbs/integrate/integrators.h"
#include "mbs/model/data.h"

/* The Dormand-Prince 5(4) tableau: nodes c, stage coefficients a (row s:
 * the weights of slopes 0..s-1; row 6 the 5th-order solution, FSAL), and e
 * = 5th- minus 4th-order weights (the embedded error estimate).  Shared by
 * the natural coordinates' stages below and mbs_dopri5_run. */
extern const double mbs_dp5_c[7];
extern const double mbs_dp5_a[7][6];
extern const double mbs_dp5_e[7];

/* Accelerations a at (t, x, v); non-zero aborts the step. */
typedef int (*mbs_accel_fn)(const mbs_model *m, mbs_data *d, double t, const double *x, const double *v,
                            double *a, void *ctx);

/* The 7 velocity slopes kx[s] and acceleration slopes kv[s] of a step, in
 * d->rk (16 n doubles). */
void mbs_dopri5_slots(const mbs_data *d, int n, double *kx[7], double *kv[7]);

/* Stages 2..7 of a step of size h from (t, x, v) of the DAE form f's n
 * coordinates and rates (the event-driven integrator's smooth phases), with kx[0] = v and
 * kv[0] = a set by the caller (FSAL).  The 5th-order solution ends in
 * (xs, vs), its acceleration in kv[6].  Element states (m->nz > 0): the
 * step starts from d->zs with slope d->zk[0..nz) = z' there (set by the
 * caller); each stage's z is put in d->z (where the forces read it) and its
 * slope (f->zrate) in d->zk + s nz, so that d->z ends at the 5th-order
 * solution and d->zk + 6 nz has its rate.  Returns 0, or the first non-zero code of
 * accel. */
int mbs_dopri5_stages(const mbs_dae_form *f, const mbs_model *m, mbs_data *d, double t, const double *x,
                      const double *v, double h, double *kx[7], double *kv[7], double *xs, double *vs,
                      mbs_accel_fn accel, void *ctx);

/* Scaled norm of the embedded error estimate (positions and velocities,
 * weights of tol (accuracy.h) at max(|start|, |end|); the nz element
 * states with slopes kz (7 nz), from z0 to z1, under tol->az, none when
 * nz = 0); 1e10 when not finite. */
double mbs_dopri5_error(int n, double h, double *kx[7], double *kv[7], const double *x, const double *v,
                        const double *xs, const double *vs, const mbs_tol *tol, int nz, const double *kz,
                        const double *z0, const double *z1);

/* The state of a Dormand-Prince run through the formulation boundary: the
 * accepted time t and state y (mbs_ode_size entries), the stage state ys
 * (same), the 7 stage slopes k (7 x size, k[0] the slope at (t, y) set by
 * the caller: FSAL).  Arrays owned by the caller. */
typedef struct mbs_ode_state {
    double t;
    double *y, *ys, *k;
} mbs_ode_state;

/* Integrate the formulation f from st (t, y, k[0]) to solver.t_end by
 * Dormand-Prince 5(4): the stages on y, the embedded estimate as a weighted
 * RMS norm (f->weight), accepted when <= 1; each step ends at the run's
 * stops (a sampled controller's instant, f->next_stop; an input's
 * kink, mbs_next_kink); a step in whose early part a contact switches
 * (f->switch_at) is taken again to end just past it; a step whose stage
 * failed is taken again with a quarter of its size.  Each accepted step
 * goes to f->commit (which may ask for it to be taken again), f->project,
 * then run->done; when a sampled
 * controller's held output changed there (f->sample), the next
 * step's first slope is taken again (f->reslope).  Metrics in d->met.  0, or the code
 * of f->fail / of the stepper. */
int mbs_dopri5_run(const mbs_model *m, mbs_data *d, const mbs_ode_form *f, mbs_ode_state *st, mbs_stepper *run,
                   mbs_errlist *err);

#endif
