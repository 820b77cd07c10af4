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
    mbs_progress_fn progress;
    void *user;
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
} mbs_sampler;

int mbs_sampler_init(mbs_sampler *s, const mbs_model *m, mbs_data *d, mbs_result *res, mbs_progress_fn progress,
                     void *user);
void mbs_sampler_free(mbs_sampler *s);

/* Time of sample k. */
double mbs_sample_time(const mbs_sampler *s, int k);

/* Take every sample in (d->tp, d->t] by quintic Hermite interpolation
 * between (xp, vp, ap) and (x, v, a); the element states by cubic Hermite
 * between (zp, zdp) and (z, zd). */
int mbs_sample_interval(mbs_sampler *s);

/* Take the next sample at the current state (t = 0, statics). */
void mbs_sample_now(mbs_sampler *s);

/* Value of channel c at a state (element states: s->z). */
double mbs_channel_value(mbs_sampler *s, int c, double t, const double *x, const double *v, const double *a);

/* Joint reaction force (torque = 0) or torque (1) exerted on the joint's
 * body[1] at the joint point, component comp, at the given state. */
double mbs_reaction(const mbs_model *m, mbs_data *d, int joint, int torque, mbs_component comp, double t,
                    const double *x, const double *v, const double *a);

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
