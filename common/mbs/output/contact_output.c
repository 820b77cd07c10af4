/*
 * contact_output.c - contact forces at an output sample, whatever the law:
 * compliant pairs from their law at the sampled state, rigid pairs from the
 * integrator that solved them (Moreau-Jean: the step's impulses / h;
 * event-driven: the forces of the step's modes), which hands them over as
 * d->rigid_forces.  Used by the reaction recovery (rigid forces enter the
 * body balances) and by the contact_force output channel
 * (docs/mechanism-format.md).
 */
#include "mbs/output/output.h"
#include "mbs/linalg/vec.h"

#include <math.h>
#include <stdlib.h>

void mbs_contact_forces_each(const mbs_model *m, mbs_data *d, double t, const double *x, const double *v,
                             int rigid_only, mbs_cforce_fn fn, void *ctx)
{
    if (m->spec->ncontact == 0) return;
    if (!rigid_only) mbs_contact_compliant_each(m, d, x, v, fn, ctx);
    /* the rigid pairs' forces from the integrator that solved them */
    if (d->rigid_forces) d->rigid_forces(m, d, t, x, v, fn, ctx);
}

signed char *mbs_contact_channel_mask(const mbs_model *m, const mbs_channel_spec *ch)
{
    const mbs_spec *s = m->spec;
    signed char *mask = calloc((size_t)(s->ncontact > 0 ? s->ncontact : 1), 1);
    if (!mask) return NULL;
    /* the force is reported on the shapes matching the second pattern: on B
     * for a pair declared in that order, on A (-F) for the reverse */
    for (int k = 0; k < s->ncontact; k++) mask[k] = (signed char)mbs_contact_pair_side(s, k, ch->contact[0], ch->contact[1]);
    return mask;
}

typedef struct {
    const signed char *mask;
    double F[3];  /* resultant on the second pattern's shapes */
    double fn;    /* sum of the normal components            */
} s_sum;

static void s_add(void *ctx, const mbs_cforce *f)
{
    s_sum *s = ctx;
    int sg = s->mask[f->pair];
    if (!sg) return;
    for (int a = 0; a < 3; a++) s->F[a] += sg * f->F[a];
    s->fn += v3dot(f->F, f->n);
}

double mbs_contact_channel(const mbs_model *m, mbs_data *d, const signed char *mask, mbs_component comp, double t,
                           const double *x, const double *v)
{
    s_sum s = {mask, {0, 0, 0}, 0};
    mbs_contact_forces_each(m, d, t, x, v, 0, s_add, &s);
    switch (comp) {
    case MBS_C_X: return s.F[0];
    case MBS_C_Y: return s.F[1];
    case MBS_C_Z: return s.F[2];
    case MBS_C_MAGNITUDE: return v3norm(s.F);
    case MBS_C_NORMAL: return s.fn;
    default: return NAN;
    }
}
