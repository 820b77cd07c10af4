/*
 * dispatch_lease.c - the dispatcher's SQL about who holds a job: re-queue
 * the jobs of a worker declared dead, fail a job at once, check which jobs a
 * (re)connecting worker really holds, and whether a worker name is free for
 * a key.  Every write is fenced by (id, attempt, status = 'running',
 * lease_owner): it cannot touch a job another worker holds.
 */
#include "dispatch.h"
#include "svc/db.h"
#include "svc/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ds_requeue(PGconn **db, const long long *ids, const int *att, int n, const char *owner,
               double backoff, const char *why)
{
    char bb[32];
    if (n == 0) return 0;
    char *ia = ds_int_array(ids, NULL, n), *aa = ds_int_array(NULL, att, n);
    snprintf(bb, sizeof bb, "%.3f", backoff);
    const char *p[] = { ia, aa, owner, bb, why };
    PGresult *r = db_exec(db,
        "UPDATE jobs j SET status = CASE WHEN j.attempt >= j.max_attempts THEN 'failed' ELSE 'queued' END, "
        "  error = $5, finished_at = CASE WHEN j.attempt >= j.max_attempts THEN now() END, "
        "  not_before = now() + $4::float8 * power(2, j.attempt - 1) * interval '1 second', "
        "  lease_owner = NULL, lease_expires = NULL "
        "FROM unnest($1::bigint[], $2::int[]) AS u(id, att) "
        "WHERE j.id = u.id AND j.attempt = u.att AND j.status = 'running' AND j.lease_owner = $3 "
        "RETURNING j.id, j.status", 5, p);
    free(ia); free(aa);
    if (!db_ok(r)) { log_warn("dispatch: re-queue: %s", PQresultErrorMessage(r)); PQclear(r); return -1; }
    for (int i = 0; i < PQntuples(r); i++)
        log_warn("dispatch: job %s re-queued -> %s: %s", PQgetvalue(r, i, 0), PQgetvalue(r, i, 1), why);
    PQclear(r);
    return 0;
}

int ds_fail(PGconn **db, long long id, int attempt, const char *owner, const char *why)
{
    char ib[24], ab[16];
    snprintf(ib, sizeof ib, "%lld", id); snprintf(ab, sizeof ab, "%d", attempt);
    const char *p[] = { ib, ab, owner, why };
    int rc = db_cmd(db, "fail job",
        "UPDATE jobs SET status = 'failed', finished_at = now(), error = $4, lease_owner = NULL, "
        "  lease_expires = NULL "
        "WHERE id = $1::bigint AND attempt = $2::int AND status = 'running' AND lease_owner = $3", 4, p);
    if (rc == 0) log_warn("dispatch: job %lld failed: %s", id, why);
    return rc;
}

int ds_owned(PGconn **db, const char *owner, const long long *ids, const int *att, int n, double def,
             int *ok, double *limit)
{
    char tb[32];
    memset(ok, 0, sizeof *ok * (size_t)n);
    if (n == 0) return 0;
    char *ia = ds_int_array(ids, NULL, n), *aa = ds_int_array(NULL, att, n);
    snprintf(tb, sizeof tb, "%.3f", def);
    const char *p[] = { ia, aa, owner, tb };
    PGresult *r = db_exec(db,
        "SELECT u.ord - 1, coalesce((s.spec->>'time_limit')::float8, $4::float8) "
        "FROM unnest($1::bigint[], $2::int[]) WITH ORDINALITY AS u(id, att, ord) "
        "JOIN jobs j ON j.id = u.id AND j.attempt = u.att AND j.status = 'running' AND j.lease_owner = $3 "
        "JOIN sweeps s ON s.id = j.sweep_id", 4, p);
    free(ia); free(aa);
    if (!db_ok(r)) { log_warn("dispatch: held jobs: %s", PQresultErrorMessage(r)); PQclear(r); return -1; }
    for (int i = 0; i < PQntuples(r); i++) {
        int k = atoi(PQgetvalue(r, i, 0));
        if (k >= 0 && k < n) { ok[k] = 1; limit[k] = atof(PQgetvalue(r, i, 1)); }
    }
    PQclear(r);
    return 0;
}

int ds_name_free(PGconn **db, const char *name, const char *key, double stale)
{
    char sb[32];
    snprintf(sb, sizeof sb, "%.3f", stale);
    const char *p[] = { name, key[0] ? key : NULL, sb };
    PGresult *r = db_exec(db,
        "SELECT public_key IS NOT DISTINCT FROM $2 OR last_heartbeat < now() - $3::float8 * interval '1 second' "
        "FROM workers WHERE id = $1", 3, p);
    if (!db_ok(r)) { log_warn("dispatch: worker name: %s", PQresultErrorMessage(r)); PQclear(r); return -1; }
    int free_ = PQntuples(r) == 0 || !strcmp(PQgetvalue(r, 0, 0), "t");
    PQclear(r);
    return free_;
}
