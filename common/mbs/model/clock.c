/*
 * clock.c - see clock.h.
 */
#include "mbs/model/clock.h"
#include "mbs/model/data.h"

#include <time.h>

double mbs_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int mbs_deadline_check(const mbs_data *d, mbs_errlist *err)
{
    if (!(d->deadline > 0) || mbs_now() <= d->deadline) return 0;
    mbs_err_add(err, "", "time limit of %.3g s reached at t = %.6g (while retaking a rejected step)", d->time_limit,
                d->t);
    return MBS_ETIMEOUT;
}
