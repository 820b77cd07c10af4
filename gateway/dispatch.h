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
#define DS_MAX_SLOTS   8

typedef struct {
    long long id;
    int attempt;
    double sent_at;       /* monotonic seconds                            */
    int cancelling;       /* CANCEL sent, waiting for the worker to drop it */
} ds_job;

typedef struct {
    unsigned char ident[256]; size_t idlen;
    char name[160];       /* printable identity, the lease owner           */
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
 * sweep whose verification pairs are not all written yet is not finished. */
int ds_finish_sweeps(PGconn **db);
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
/* Upsert the workers table. */
int ds_workers_upsert(PGconn **db, ds_worker **w, int n, const char *gateway);
/* Model definition text by id (cached by the caller).  NULL on error. */
char *ds_model_text(PGconn **db, const char *id);

#endif
