/*
 * contact_relative.h - the relative formulation's DAE form and contact rows
 * for the contact integrators (contact_relative.c), used by their runs
 * (contact_relative_run.c: relative.h mbs_rel_mj_run, mbs_rel_ed_run).
 * Internal to the run layer.
 */
#ifndef MBS_CONTACT_RELATIVE_H
#define MBS_CONTACT_RELATIVE_H

#include "mbs/formulation/contact_rows.h"
#include "mbs/formulation/dae_form.h"
#include "mbs/run/relative.h"

/* The tree t's DAE form f and contact rows r (the context r->ctx, freed by
 * r->release): M(q) and its pattern, Q - C u, the circuit equations with
 * dense rows, advance (left out, with the index-1 right-hand side and the
 * rank margin added, when ed: the event-driven integrator, q' = u), the
 * rows of the rigid pairs and deactivation's reach and check (on the run's
 * natural data dn, its broad phase); the forces take run_w's `extra`
 * loads, the mass scale is M's mean diagonal at q0.  0, MBS_ENOMEM, or
 * MBS_EINVAL with the message in err (an island above 240 rates and
 * equations, a pair on more than 24 rates). */
int mbs_rel_contact_new(const mbs_model *m, const mbs_rtree *t, const mbs_rtree_ws *run_w, const double *q0, int ed,
                        mbs_data *dn, mbs_dae_form *f, mbs_contact_rows *r, mbs_errlist *err);

/* The integrator's data dr, where baumgarte_rhs leaves Phi and its rows and
 * rank_margin reads them (before the integrator runs). */
void mbs_rel_contact_data(const mbs_contact_rows *r, mbs_data *dr);

#endif
