/*
 * integrator_mj.c - placeholder while the moreau_jean integrator is being written
 * (issue 3): the run fails with a clear message.
 */
#include "integrators.h"

int mbs_integrate_moreau_jean(const mbs_model *m, mbs_data *d, mbs_sampler *smp, mbs_errlist *err)
{
    (void)m; (void)d; (void)smp;
    mbs_err_add(err, "/solver/integrator", "the moreau_jean integrator is not available yet");
    return MBS_EINVAL;
}
