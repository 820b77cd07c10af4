/*
 * output.h - sampling output channels on the output grid (internal).
 */
#ifndef MBS_OUTPUT_H
#define MBS_OUTPUT_H

#include "mbs/contact/contact.h"
#include "mbs/model/data.h"

typedef struct {
    const mbs_model *m;
    mbs_data *d;
    mbs_result *res;
    double interval;
    int nsample;     /* samples of the whole run, t = 0 and t_end included   */
    int next;        /* index of the next sample to take                     */
    double *prev;    /* (nchannel) previous value, for angle unwrapping      */
    char *has_prev;
    mbs_avec *pts;   /* (nchannel) point / axis of body channels             */
    double *xs;      /* (3 nvar) interpolated state                          */
    double *zi;      /* (nz) interpolated element states (cubic Hermite)     */
    const double *z; /* the element states of the sample being taken: d->z
                        or zi (read by mbs_channel_value)                  */
    signed char **cmask; /* (nchannel) contact_force channels' pairs, or NULL */
    mbs_avec *body_com;  /* (nbody) centre of mass of each body (poses)      */
    mbs_avec *body_ex;   /* (nbody) body x axis, 2-D (poses)                 */
    double *pose_prev;   /* (nbody x npose) previous frame, for continuity   */
    /* Quadrature channels (a motor's energies, MBS_C_ENERGY_IN ...): each one's
     * integral from 0 to the last accepted state (qacc) and to the sample
     * being taken (qnow), per channel (0 for the others); nquad of them.
     * Carried over each accepted step by 3-point Gauss-Legendre on the
     * step's interpolant (mbs_sample_interval), outside the integrators'
     * error control. */
    double *qacc, *qnow;
    int nquad;
    /* The state of the accepted step at time t (d->tp <= t <= d->t) for the
     * quadratures: positions and velocities (nvar each), element states
     * (nz).  NULL: the sampler's quintic and cubic Hermite between d's two
     * accepted states; the relative formulation interpolates in its joint
     * coordinates over its own step (run/relative.c). */
    void (*state_at)(void *ctx, double t, double *x, double *v, double *z);
    void *state_ctx;
} mbs_sampler;

int mbs_sampler_init(mbs_sampler *s, const mbs_model *m, mbs_data *d, mbs_result *res);
void mbs_sampler_free(mbs_sampler *s);

/* Time of sample k. */
double mbs_sample_time(const mbs_sampler *s, int k);

/* The quintic Hermite basis at u in [0, 1] of a step from (p0, m0, c0) to
 * (p1, m1, c1) (values, h times the slopes, h^2 times the second
 * derivatives): y(u) = H0 p0 + H1 m0 + H2 c0 + H3 c1 + H4 m1 + H5 p1, D its
 * derivative in u, S its second derivative (S may be NULL).  The samplers
 * of both formulations interpolate between accepted steps with it. */
void mbs_quintic_hermite(double u, double H[6], double D[6], double S[6]);

/* Take every sample in (d->tp, d->t] by quintic Hermite interpolation
 * between (xp, vp, ap) and (x, v, a); the element states by cubic Hermite
 * between (zp, zdp) and (z, zd).  Then carry the quadrature channels
 * (a motor's energies) over the step: called once per accepted step,
 * while the held outputs of sampled controllers are those of the step.
 * One step may hold up to MBS_SAMPLES_MAX samples: every 65,536 of them the
 * run's poll (model/data.h mbs_data_poll: time limit, cancel) is asked, and
 * its code returned when it stops the run (its message in err); else 0. */
int mbs_sample_interval(mbs_sampler *s, mbs_errlist *err);

/* Take the next sample at the current state (t = 0, statics). */
void mbs_sample_now(mbs_sampler *s);

/* Value of channel c at a state (element states: s->z). */
double mbs_channel_value(mbs_sampler *s, int c, double t, const double *x, const double *v, const double *a);

/* Joint reaction force (torque = 0) or torque (1) exerted on the joint's
 * body[1] at the joint point, component comp, at the given state. */
double mbs_reaction(const mbs_model *m, mbs_data *d, int joint, int torque, mbs_component comp, double t,
                    const double *x, const double *v, const double *a);

/* The relative formulation's path (run/relative.c): every joint's reaction
 * at the state about to be sampled, computed by the formulation (njoint x 6,
 * as mbs_reaction gives them: force, then torque, on body[1] at the joint
 * point, world axes), returned by the reaction channels instead of the
 * recovery from the natural coordinates until the next call; NULL: back to
 * that recovery.  Nothing when no channel needs reactions (d->rx NULL). */
void mbs_reaction_given(mbs_data *d, const double *wrenches);

/* Workspace of the reaction recovery (sized for the model; NULL on ENOMEM). */
struct mbs_rx_ws *mbs_reaction_ws_new(const mbs_model *m);
void mbs_reaction_ws_free(struct mbs_rx_ws **w);

/* ---- contact_output.c: contact forces at a sample ---------------------------------------- */

/* Every point force of every contact at the sampled state (t, x, v):
 * compliant pairs from their law, rigid ones from the integrator that
 * solves them (d->rigid_forces, data.h).  For the output sampler only
 * (between steps).  rigid_only: skip the compliant pairs. */
void mbs_contact_forces_each(const mbs_model *m, mbs_data *d, double t, const double *x, const double *v,
                             int rigid_only, mbs_cforce_fn fn, void *ctx);

/* The contact_force channel ch's pairs (contact_output.c): per declared
 * pair +1 (reported on B), -1 (reported on A: the pair is declared the
 * other way round) or 0.  NULL without memory; free() it. */
signed char *mbs_contact_channel_mask(const mbs_model *m, const mbs_channel_spec *ch);

/* The value of a contact_force channel at the sampled state: component x,
 * y, z or magnitude of the resultant force on the second pattern's shapes,
 * or (normal) the sum of the pairs' normal components. */
double mbs_contact_channel(const mbs_model *m, mbs_data *d, const signed char *mask, mbs_component comp, double t,
                           const double *x, const double *v);

#endif
