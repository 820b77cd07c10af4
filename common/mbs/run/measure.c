/*
 * measure.c - joint reactions measured by continuous controllers
 * (measure.h).
 */
#include "mbs/run/measure.h"
#include "mbs/analysis/analysis.h"
#include "mbs/output/output.h"
#include "mbs/mbs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct mbs_meas {
    mbs_data *S;  /* the shadow: the state measured last, its accelerations */
    int valid;    /* S holds a measured state                              */
    int given;    /* its accelerations were the caller's (not solved)       */
};

int mbs_meas_reaction(const mbs_spec *s, int c)
{
    const mbs_ctrl_spec *C = &s->controllers[c];
    return !(C->ts > 0) &&
           (C->measure.quantity == MBS_Q_REACTION_FORCE || C->measure.quantity == MBS_Q_REACTION_TORQUE);
}

void mbs_meas_free(struct mbs_meas **pm)
{
    if (!pm || !*pm) return;
    mbs_data_free(&(*pm)->S);
    free(*pm);
    *pm = NULL;
}

/* 1 when S holds the state (t, x, v, z) with accelerations a (NULL: solved). */
static int s_same(const mbs_model *m, const struct mbs_meas *w, double t, const double *x, const double *v,
                  const double *z, const double *a)
{
    const mbs_data *S = w->S;
    size_t nb = sizeof(double) * (size_t)m->nvar, zb = sizeof(double) * (size_t)m->nz;
    if (!w->valid || S->t != t || (a != NULL) != w->given) return 0;
    if (memcmp(S->x, x, nb) || memcmp(S->v, v, nb) || (m->nz > 0 && memcmp(S->z, z, zb))) return 0;
    return !a || !memcmp(S->a, a, nb);
}

/* d->reaction_at: the reaction of controller c's measure at (t, x, v, z). */
static double s_reaction_at(const mbs_model *m, mbs_data *d, int c, double t, const double *x, const double *v,
                            const double *z, const double *a)
{
    struct mbs_meas *w = d->meas;
    mbs_data *S = w->S;
    const mbs_channel_spec *ch = &m->spec->controllers[c].measure;
    if (!s_same(m, w, t, x, v, z, a)) {
        size_t nb = sizeof(double) * (size_t)m->nvar;
        memcpy(S->x, x, nb);
        memcpy(S->v, v, nb);
        if (m->nz > 0) memcpy(S->z, z, sizeof(double) * (size_t)m->nz);
        /* what else the forces read: the independent constraints, the
         * sampled controllers' held outputs, the angle references */
        if (m->neq > 0) memcpy(S->eq_on, d->eq_on, (size_t)m->neq);
        if (m->nctrl > 0) {
            memcpy(S->ctrl_y, d->ctrl_y, sizeof(double) * (size_t)m->nctrl);
            memcpy(S->ctrl_ref, d->ctrl_ref, sizeof(double) * (size_t)m->nctrl);
        }
        S->t = t;
        w->valid = 0;
        if (a) memcpy(S->a, a, nb);
        else if (mbs_accelerations(m, S, t)) return NAN;
        w->valid = 1;
        w->given = a != NULL;
        /* the recovery's cache is keyed by (t, x pointer): S->x's
         * contents changed */
        mbs_reaction_given(S, NULL);
    }
    return mbs_reaction(m, S, ch->joint, ch->quantity == MBS_Q_REACTION_TORQUE, ch->component, t, S->x, S->v,
                        S->a);
}

int mbs_meas_start(const mbs_model *m, mbs_data *d, mbs_errlist *err)
{
    int need = 0, c0 = -1;
    for (int c = 0; c < m->nctrl; c++)
        if (mbs_meas_reaction(m->spec, c)) {
            need = 1;
            if (c0 < 0) c0 = c;
        }
    if (!need || d->meas) {
        if (need) {
            d->meas->valid = 0;
            d->reaction_at = s_reaction_at;
        }
        return 0;
    }
    if (m->spec->ncontact > 0) {
        /* the accelerations of a state with contacts depend on the run's
         * active set and rigid contacts' forces, which the shadow has not */
        mbs_err_add(err, "", "controller '%s' measures a joint reaction continuously, which is not supported in a "
                    "mechanism with contacts (give it a sample_period > 0)", m->spec->controllers[c0].name);
        return MBS_EINVAL;
    }
    struct mbs_meas *w = calloc(1, sizeof *w);
    if (!w) return MBS_ENOMEM;
    w->S = mbs_data_new(m);
    if (w->S) w->S->rx = mbs_reaction_ws_new(m);
    if (!w->S || !w->S->rx) {
        mbs_meas_free(&w);
        return MBS_ENOMEM;
    }
    d->meas = w;
    d->reaction_at = s_reaction_at;
    return 0;
}
