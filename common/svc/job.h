/*
 * job.h - what a job means to the solver, shared by gateway (validation) and
 * worker (execution): overrides for mech_parse, response reductions over the
 * sampled channels, and the metrics as a JSON object whose keys are the
 * columns of the metrics table.
 */
#ifndef SVC_JOB_H
#define SVC_JOB_H

#include <jansson.h>
#include "mechanism/mechanism.h"

/* Overrides from a job's parameters {name: number} and solver options
 * {option: value} ("solver." prefixed).  Owns its strings. */
typedef struct {
    int n;
    mech_override *ov;  /* (n)                       */
    char **text;        /* (2n) owned names/values   */
} job_overrides;

void job_overrides_build(const json_t *params, const json_t *solver, job_overrides *o);
void job_overrides_free(job_overrides *o);

/* Reductions: max, min, final, mean (time-weighted trapezoid), rms, argmax
 * (time of the maximum), integral (trapezoid); the step-response measures
 * of control studies (MATLAB stepinfo's definitions, y0 the first sample,
 * yf the response's "target" or the last sample): rise_time (from
 * limits[0] to limits[1] of the way, default 10 % to 90 %), settling_time
 * (from the start until |y - yf| stays within band x |yf - y0|, default
 * 2 %), overshoot (percent of the step beyond yf).  Undefined values (no
 * step, a level never reached, not settled) are null.  Returns -1 for an
 * unknown name. */
int job_reduce_kind(const char *name);

/* Responses of one sweep, at most (each is a CSV column and a stored key). */
#define JOB_MAX_RESPONSES 1000

/* Check a "responses" array: [{name, channel, reduce, and for the step
 * measures band, limits, target}] (at most
 * JOB_MAX_RESPONSES, names of 1..63 characters without control characters,
 * each name once).  With a channel list
 * (NULL: skip the check) the channel must exist.  Returns 0 or -1 with a
 * JSON pointer (relative, "/responses/i/...") and a message. */
int job_responses_check(const json_t *resp, const char *const *channels, int nchannel,
                        char *pointer, size_t psize, char *msg, size_t msize);

/* Evaluate the responses over rows (nsample x (1 + nchannel), time first).
 * Returns a new object {name: number or null}. */
json_t *job_responses_eval(const json_t *resp, const char *const *channels, int nchannel,
                           const double *rows, int nsample);

/* The solver metrics as {column: value}; NaN and infinities become null.
 * Accuracy: tolerance, abs_tolerance, error_estimate (null without an
 * estimate), tolerance_met (boolean), warning_count (all warnings raised)
 * and warnings (array of the first MBS_WARN_MAX texts); Moreau-Jean's
 * nonsmooth_steps and nonsmooth_error_estimate (left out of the accuracy
 * above), the BDF's kept_set_reselections (mbs_metrics.reselections). */
json_t *job_metrics_json(const mbs_metrics *m);

#endif
