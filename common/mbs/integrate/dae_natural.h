/*
 * dae_natural.h - the natural coordinates' side of the DAE-form boundary
 * (formulation/dae_form.h): their mass products, forces, constraints and AL
 * matrix as the hooks of an mbs_dae_form, and the entry points that run the
 * implicit integrators on them (integrators.h mbs_integrate_al).
 *
 * In the integrate layer rather than under formulation/natural because the
 * hooks call the force elements and compliant contacts (dynamics/force.h)
 * and the AL matrix (analysis/system.h), which are above the formulation
 * layer (common/mbs/README.md), as integrator_rk.c does for the ODE form.
 */
#ifndef MBS_DAE_NATURAL_H
#define MBS_DAE_NATURAL_H

#include "mbs/formulation/dae_form.h"

/* The context of the natural coordinates' hooks: the model and the run's
 * data (whose scratch the force Jacobians and the AL matrix use). */
typedef struct mbs_dae_nat {
    const mbs_model *m;
    mbs_data *d;
} mbs_dae_nat;

/* Fill f with the natural coordinates' DAE form of m, evaluating with the
 * run's data d; c is its context (the caller's storage, alive while f is
 * used). */
void mbs_dae_natural(const mbs_model *m, mbs_data *d, mbs_dae_nat *c, mbs_dae_form *f);

#endif
