/*
 * workspace.c - each integrator's own workspace, made with the run's data
 * and freed with it (see integrators.h), and the forces the integrator
 * hands to the output sampler through d's hooks.
 */
#include "mbs/integrate/integrators.h"

int mbs_integrator_ws_new(const mbs_model *m, mbs_data *d)
{
    int rc = 0;
    /* by the integrator of the spec, whatever the analysis (statics and
     * kinematics runs sample the same channels) */
    switch (m->spec->solver.integrator) {
    case MBS_INT_BDF:
        rc = mbs_bdf_ws_new(m, d);
        break;
    case MBS_INT_EVENT_DRIVEN:
        rc = mbs_ed_data_init(m, d);
        d->rigid_forces = mbs_ed_point_forces;
        d->clearance_forces = mbs_ed_forces_at;
        break;
    case MBS_INT_MOREAU_JEAN:
        rc = mbs_mj_ws_new(m, d);
        d->rigid_forces = mbs_mj_point_forces;
        break;
    default:
        break;
    }
    if (rc) {
        mbs_integrator_ws_free(d);
        return MBS_ENOMEM;
    }
    return 0;
}

void mbs_integrator_ws_free(mbs_data *d)
{
    mbs_bdf_ws_free(d);
    mbs_ed_data_free(d);
    mbs_mj_ws_free(d);
    d->rigid_forces = NULL;
    d->clearance_forces = NULL;
}
