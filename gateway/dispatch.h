/*
 * dispatch.h - internals of the dispatcher thread shared by dispatch.c (the
 * ZeroMQ loop and the workers' state) and dispatch_db.c (its SQL).
 *
 * The dispatcher owns one ROUTER socket and one database connection.  It
 * knows the workers connected to this gateway (by ZeroMQ identity), how many
 * more jobs each may take (credit = slots - jobs in hand), and which jobs it
 * sent to whom (with the attempt number, the fence of every write).
 */
#ifndef GW_DISPATCH_H
#define GW_DISPATCH_H

#include <libpq-fe.h>
#include <jansson.h>
#include "svc/msg.h"

#define DS_MAX_WORKERS 1024
/* Jobs one worker may hold (its credit window): as many as the jobs a
 * READY or HEARTBEAT may list (dispatch_msg.c), so that a worker can
 * always name every job it holds. */
#define DS_MAX_SLOTS   64

typedef struct {
    long long id;
    int attempt;
    double sent_at;       /* monotonic seconds                            */
    double limit;         /* seconds it may stay in hand (time limit x slots) */
    int cancelling;       /* CANCEL sent, waiting for the worker to drop it */
} ds_job;

typedef struct {
    unsigned char ident[256]; size_t idlen;
    char name[160];       /* printable identity, the lease owner           */
    char key[48];         /* its CurveZMQ public key (Z85, from ZAP), "" open */
    char host[64], version[32];
    int pid, slots;
    ds_job jobs[DS_MAX_SLOTS]; int njobs;
    double last_seen, last_ping;
    long done_delta;      /* results since the last workers-table update   */
} ds_worker;

/* A RESULT or FAILED waiting to be written. */
typedef struct {
    int failed;
    msg_t m;              /* owned                                         */
    char worker[160];
} ds_pending;

/* Claimed jobs, one row each (see ds_claim). */
typedef struct {
    long long id; int attempt;
    char owner[160], model[17];
    char *params, *solver, *responses;
    double time_limit;
} ds_claimed;

/* ---- SQL (dispatch_db.c); each returns 0 or -1 (logged) ---------------------- */

/* Claim up to n jobs for the owners (one owner per job, in order). */
int ds_claim(PGconn **db, char **owners, int n, double lease, double time_limit,
             ds_claimed **out, int *nout);
void ds_claimed_free(ds_claimed *c, int n);
/* Undo a claim whose JOB could not be sent. */
int ds_unclaim(PGconn **db, long long id, int attempt);
/* Write results and failures in one transaction (one by one if it fails). */
int ds_write(PGconn **db, ds_pending *p, int n, double backoff);
/* Extend the leases of the jobs in hand of live workers. */
int ds_extend(PGconn **db, const long long *ids, const int *att, int n, double lease);
/* Requeue (or fail) the jobs whose lease expired. */
int ds_expire(PGconn **db, double backoff);
/* Of the given jobs, those no longer running with that attempt (cancelled,
 * re-queued...): their indexes in *gone (caller frees). */
int ds_gone(PGconn **db, const long long *ids, const int *att, int n, int **gone, int *ngone);
/* Mark finished sweeps done and record their counts (of design jobs).  A
 * sweep whose verification pairs are not all written yet is not finished.
 * Returns the number of sweeps finished, or -1 on a database error. */
int ds_finish_sweeps(PGconn **db);
/* Store the summary of one finished sweep that has none for its finished_at
 * (sweeps.summary, sql/012_sweep_summary.sql; read by GET /sweeps and GET
 * /sweeps/{id}), newest first; one whose summary failed is not tried again.
 * Returns 1 if one was stored, 0 if none was left, -1 on a database error.
 * Called by the summary thread only (summary.c), on its own connection. */
int ds_summarise(PGconn **db);
/* Fold the rows of sweep_counts (sql/015_sweep_counts.sql) of up to 16
 * sweeps that have more than FOLD_MIN (dispatch_db.c) into one per kind and
 * state, so that reading a sweep's counts stays a few rows.  Returns the
 * number of sweeps folded, or -1 on a database error.  Called by the
 * summary thread (summary.c), on its own connection. */
int ds_fold_counts(PGconn **db);

/* ---- the summary thread (summary.c) ------------------------------------------------- */
/* Start the thread that makes the summaries of finished sweeps (ds_summarise)
 * on its own connection, off the dispatcher's path; 0 or -1. */
int gw_summary_start(void);
/* Ask it to look now (the dispatcher finished a sweep); never blocks long. */
void gw_summary_wake(void);
/* Stop it (a summary under way is cancelled) and wait for it. */
void gw_summary_stop(void);
/* Write the differences of up to `limit` design/verification job pairs that
 * are both done (dispatch_verify.c).  0, or -1 on a database error. */
int ds_verify(PGconn **db, int limit);
/* SQL: the verification pairs (v, d) whose jobs are both done, with their
 * results rd, rv, and no verification row yet, in the sweeps selected by the
 * condition `where` on v.sweep_id (a FROM ... WHERE fragment). */
#define DS_SQL_UNVERIFIED(where) \
    "FROM jobs v JOIN jobs d ON d.id = v.verifies " \
    "JOIN results rd ON rd.job_id = d.id JOIN results rv ON rv.job_id = v.id " \
    "WHERE " where " AND v.kind = 'verify' AND v.status = 'done' AND d.status = 'done' " \
    "  AND NOT EXISTS (SELECT 1 FROM verifications x WHERE x.job_id = d.id) "
/* A PostgreSQL array literal of integers, {1,2,3}, from v (or, when v is
 * NULL, iv); malloc'd (open_memstream). */
char *ds_int_array(const long long *v, const int *iv, int n);
/* Upsert the workers table (host, pid and version kept when not known). */
int ds_workers_upsert(PGconn **db, ds_worker **w, int n, const char *gateway);
/* Model definition text by id (cached by the caller).  NULL on error. */
char *ds_model_text(PGconn **db, const char *id);

/* ---- leases (dispatch_lease.c) ------------------------------------------------- */

/* Put back the jobs (id, attempt) leased to `owner` now, as an expired lease
 * would (queued with back-off, or failed after max_attempts), with `why`. */
int ds_requeue(PGconn **db, const long long *ids, const int *att, int n, const char *owner,
               double backoff, const char *why);
/* Fail one job leased to `owner` (attempt fenced) at once, with `why`. */
int ds_fail(PGconn **db, long long id, int attempt, const char *owner, const char *why);
/* Of the jobs a worker says it holds, those leased to it in the database
 * (running, same attempt, lease_owner = owner): *ok[i] = 1, and their time
 * limits in *limit[i] (seconds; the sweep's or `def`).  0 or -1. */
int ds_owned(PGconn **db, const char *owner, const long long *ids, const int *att, int n, double def,
             int *ok, double *limit);
/* May a new connection use the worker name `name` with key `key`?  Yes if
 * no worker of that name is known, it had the same key, or it has been
 * silent for more than `stale` seconds (its leases are gone).  1, 0, or -1
 * on a database error. */
int ds_name_free(PGconn **db, const char *name, const char *key, double stale);

/* ---- incoming messages (dispatch_msg.c) ------------------------------------------ */

/* Why a message from a worker is not well-formed for its command (NULL if it
 * is): types and ranges of every field the dispatcher reads, and a RESULT's
 * payload of exactly nsample x (1 + channels) doubles. */
const char *ds_msg_invalid(const msg_t *m);

#endif
