/*
 * integrator_ed.c - placeholder while the event_driven integrator is being written
 * (issue 3): the run fails with a clear message.
 */
#include "integrators.h"

int mbs_integrate_event_driven(const mbs_model *m, mbs_data *d, mbs_sampler *smp, mbs_errlist *err)
{
    (void)m; (void)d; (void)smp;
    mbs_err_add(err, "/solver/integrator", "the event_driven integrator is not available yet");
    return MBS_EINVAL;
}
