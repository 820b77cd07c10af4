/*
 * wk.h - the worker's parts: the job as received, and the compute side
 * (run.c) that turns a job into a RESULT or FAILED message.
 *
 * Threads: the main thread owns the DEALER socket (gateway) and does all
 * network I/O and heartbeats; one compute thread runs the solver and hands
 * its finished message to the main thread over an inproc PAIR socket, so
 * a long simulation never delays heartbeats.
 */
#ifndef WK_H
#define WK_H

#include <stdatomic.h>
#include <jansson.h>
#include "svc/msg.h"

typedef struct wk_job {
    long long id;
    int attempt;
    char model[17];             /* model id (content hash prefix)            */
    char *definition;           /* mechanism JSON text (owned)               */
    json_t *params, *solver, *responses; /* owned                           */
    double time_limit;          /* seconds, 0 = none                          */
    double max_frame;           /* the gateway's largest frame it accepts
                                   (bytes, --zmq-max-message), 0 = none    */
    atomic_int cancel;          /* set by the main thread                      */
} wk_job;

void wk_job_free(wk_job *j);

/* Run one job; `out` receives the RESULT or FAILED message for the gateway
 * (caller clears it with msg_clear).  delay_ms: test aid, an extra wait
 * before the run (cancellable). */
void wk_run(wk_job *j, int delay_ms, msg_t *out);

/* Free the model cache (compute thread, at exit). */
void wk_cache_clear(void);

#endif
