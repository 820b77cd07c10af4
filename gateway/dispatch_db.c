/*
 * dispatch_db.c - the dispatcher's SQL.  Every state change of a job is one
 * atomic UPDATE fenced by (id, attempt, status = 'running'): a late message
 * from a worker that lost its lease changes nothing.
 */
#include "dispatch.h"
#include "sweep_sql.h"
#include "svc/db.h"
#include "svc/jsonout.h"
#include "svc/log.h"
#include "mbs/mbs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* {1,2,3} (dispatch.h) */
char *ds_int_array(const long long *v, const int *iv, int n)
{
    char *buf = NULL; size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fputc('{', f);
    for (int i = 0; i < n; i++) fprintf(f, "%s%lld", i ? "," : "", v ? v[i] : (long long)iv[i]);
    fputc('}', f);
    fclose(f);
    return buf;
}

/* Text array literal with quoting: {"a","b"}. */
static char *s_text_array(char **v, int n)
{
    char *buf = NULL; size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fputc('{', f);
    for (int i = 0; i < n; i++) {
        fputs(i ? ",\"" : "\"", f);
        for (const char *p = v[i]; *p; p++) { if (*p == '"' || *p == '\\') fputc('\\', f); fputc(*p, f); }
        fputc('"', f);
    }
    fputc('}', f);
    fclose(f);
    return buf;
}

/* The claim.  top: the first 2n queued jobs in priority order, taken per
 * runnable sweep from its own queue index (jobs_sweep_queue_idx) and merged,
 * so that a claim reads about n index entries per sweep, however many jobs
 * wait or sit in paused sweeps; cand: of those, the first n not locked by
 * another gateway, locked (twice as many candidates as needed, so that a
 * second gateway claiming at the same moment still finds some); upd: each
 * becomes running with its owner ($2, one per job in order) and a lease.
 * cand finds its rows by primary key: "(status = 'queued') IS TRUE" keeps
 * the planner off the partial index jobs_sweep_queue_idx, whose dead entries
 * (the jobs claimed since the last vacuum) it would otherwise walk each
 * time.  (The global queue index, which the planner took for top when one
 * sweep was runnable, is dropped for the same reason: sql/013.) */
/* The sweeps' 'queued' -> 'running' mark skips a sweep row another
 * transaction holds: this statement already holds the claimed jobs' rows,
 * and a cancel holds its sweep's row while it waits for that sweep's jobs,
 * so waiting here would deadlock (PostgreSQL aborted one of the two: seen
 * when a 10,000-job sweep was cancelled as its first jobs were claimed).  A
 * sweep left 'queued' is marked by the next claim; one being cancelled
 * needs no mark. */
static db_stmt s_claim = { "ds_claim",
    "WITH top AS (SELECT q.id FROM sweeps s CROSS JOIN LATERAL "
    "               (SELECT j.id, j.priority FROM jobs j "
    "                WHERE j.sweep_id = s.id AND j.status = 'queued' AND j.not_before <= now() "
    "                ORDER BY j.priority DESC, j.id LIMIT 2 * $1::int) q "
    "             WHERE s.status IN ('queued','running') "
    "             ORDER BY q.priority DESC, q.id LIMIT 2 * $1::int), "
    "     cand AS (SELECT j.id FROM jobs j WHERE j.id IN (SELECT id FROM top) AND (j.status = 'queued') IS TRUE "
    "              ORDER BY j.priority DESC, j.id LIMIT $1::int FOR UPDATE OF j SKIP LOCKED), "
    "     num AS (SELECT id, row_number() OVER (ORDER BY id) AS rn FROM cand), "
    "     upd AS (UPDATE jobs j SET status = 'running', attempt = j.attempt + 1, "
    "                    lease_owner = ($2::text[])[num.rn], "
    "                    lease_expires = now() + $3::float8 * interval '1 second', "
    "                    started_at = now(), finished_at = NULL "
    "             FROM num WHERE j.id = num.id "
    "             RETURNING j.id, j.attempt, j.lease_owner, j.sweep_id, j.parameters, j.solver_overrides), "
    "     st AS (UPDATE sweeps SET status = 'running', started_at = coalesce(started_at, now()) "
    "            WHERE id IN (SELECT id FROM sweeps WHERE id IN (SELECT sweep_id FROM upd) AND status = 'queued' "
    "                         FOR UPDATE SKIP LOCKED)) "
    "SELECT upd.id, upd.attempt, upd.lease_owner, s.model_id, upd.parameters::text, "
    "       upd.solver_overrides::text, coalesce(s.spec->'responses', '[]')::text, "
    "       coalesce((s.spec->>'time_limit')::float8, $4::float8) "
    "FROM upd JOIN sweeps s ON s.id = upd.sweep_id ORDER BY upd.id", 0 };

int ds_claim(PGconn **db, char **owners, int n, double lease, double time_limit,
             ds_claimed **out, int *nout)
{
    char nb[16], lb[32], tb[32];
    char *arr = s_text_array(owners, n);
    snprintf(nb, sizeof nb, "%d", n);
    snprintf(lb, sizeof lb, "%.3f", lease);
    snprintf(tb, sizeof tb, "%.3f", time_limit);
    const char *p[] = { nb, arr, lb, tb };
    /* lock candidates in priority order, skipping rows another gateway holds */
    PGresult *r = db_execp(db, &s_claim, 4, p, NULL, NULL, 0);
    free(arr);
    *out = NULL; *nout = 0;
    if (!db_ok(r)) { log_warn("dispatch: claim: %s", PQresultErrorMessage(r)); PQclear(r); return -1; }
    int rows = PQntuples(r);
    ds_claimed *c = calloc((size_t)rows + 1, sizeof *c);
    for (int i = 0; i < rows; i++) {
        c[i].id = atoll(PQgetvalue(r, i, 0));
        c[i].attempt = atoi(PQgetvalue(r, i, 1));
        snprintf(c[i].owner, sizeof c[i].owner, "%s", PQgetvalue(r, i, 2));
        snprintf(c[i].model, sizeof c[i].model, "%s", PQgetvalue(r, i, 3));
        c[i].params = strdup(PQgetvalue(r, i, 4));
        c[i].solver = strdup(PQgetvalue(r, i, 5));
        c[i].responses = strdup(PQgetvalue(r, i, 6));
        c[i].time_limit = atof(PQgetvalue(r, i, 7));
    }
    PQclear(r);
    *out = c; *nout = rows;
    return 0;
}

void ds_claimed_free(ds_claimed *c, int n)
{
    for (int i = 0; i < n; i++) { free(c[i].params); free(c[i].solver); free(c[i].responses); }
    free(c);
}

static db_stmt s_unclaim = { "ds_unclaim",
    "UPDATE jobs SET status = 'queued', attempt = attempt - 1, lease_owner = NULL, lease_expires = NULL, "
    "started_at = NULL WHERE id = $1::bigint AND attempt = $2::int AND status = 'running'", 0 };

int ds_unclaim(PGconn **db, long long id, int attempt)
{
    char ib[24], ab[16];
    snprintf(ib, sizeof ib, "%lld", id); snprintf(ab, sizeof ab, "%d", attempt);
    const char *p[] = { ib, ab };
    return db_cmdp(db, "unclaim", &s_unclaim, 2, p);
}

/* Results and failures go in batches of at most this many rows per
 * statement (all the batches of one ds_write in one transaction). */
#define WRITE_BATCH 1000

/* The fenced result write of a batch: per row, job done + result + metrics
 * + responses (+ poses), or nothing; a row counts only if the job is still
 * running with that attempt and leased to the worker that sent it (ok: a
 * running job has no result yet, a job that is done never runs again, so
 * the rows of ok are exactly the results stored; ON CONFLICT guards all the
 * same).  The metrics record is built once per row in FROM: "(f(x)).*" in
 * the select list would call f once per column of metrics.  $1: the
 * rows as a JSON array (id, att, owner, ch, ns, resp, met, ps); $2 and $3:
 * each row's samples and pose frames (bytea[], binary, in the same order);
 * $4: the job ids again, as an array, so that the jobs are found by primary
 * key.  "(status = 'running') IS TRUE" is status = 'running' that the planner
 * cannot match with the partial index jobs_lease_idx: with stale statistics
 * it would rather walk that index, whose dead entries (every job that ran
 * since the last vacuum) make each write cost as much as the whole sweep. */
static db_stmt s_results = { "ds_results",
    "WITH u AS (SELECT * FROM ROWS FROM ( "
    "             jsonb_to_recordset($1::jsonb) AS (id bigint, att int, owner text, ch jsonb, ns int, "
    "                                               resp jsonb, met jsonb, ps jsonb), "
    "             unnest($2::bytea[]), unnest($3::bytea[])) "
    "           AS u(id, att, owner, ch, ns, resp, met, ps, smp, fr)), "
    "     j AS (UPDATE jobs SET status = 'done', finished_at = now(), lease_owner = NULL, "
    "                  lease_expires = NULL, error = NULL "
    "           FROM u WHERE jobs.id = ANY($4::bigint[]) AND jobs.id = u.id AND jobs.attempt = u.att "
    "             AND (jobs.status = 'running') IS TRUE "
    "             AND jobs.lease_owner = u.owner "
    "           RETURNING jobs.id, jobs.attempt), "
    "     ok AS (SELECT u.* FROM u JOIN j ON j.id = u.id AND j.attempt = u.att), "
    "     r AS (INSERT INTO results (job_id, channels, nsample, samples, responses, worker_id) "
    "           SELECT id, ARRAY(SELECT jsonb_array_elements_text(ch)), ns, coalesce(smp, ''::bytea), resp, owner "
    "           FROM ok ON CONFLICT (job_id) DO NOTHING RETURNING job_id), "
    "     m AS (INSERT INTO metrics SELECT x.* FROM ok, "
    "             jsonb_populate_record(NULL::metrics, ok.met || jsonb_build_object('job_id', ok.id)) x "
    "           ON CONFLICT (job_id) DO NOTHING), "
    "     s AS (INSERT INTO responses (job_id, name, value) "
    "           SELECT ok.id, e.key, CASE WHEN jsonb_typeof(e.value) = 'number' THEN (e.value #>> '{}')::float8 END "
    "           FROM ok, jsonb_each(ok.resp) e ON CONFLICT DO NOTHING), "
    "     p AS (INSERT INTO poses (job_id, bodies, npose, nframe, frames, contact_frames, contacts) "
    "           SELECT ok.id, ARRAY(SELECT jsonb_array_elements_text(ok.ps->'bodies')), "
    "                  (ok.ps->>'npose')::int, (ok.ps->>'nframe')::int, "
    "                  substring(ok.fr FROM 1 FOR (ok.ps->>'fb')::int), (ok.ps->>'cnf')::int, "
    "                  CASE WHEN ok.ps ? 'cnf' THEN substring(ok.fr FROM (ok.ps->>'fb')::int + 1) END "
    "           FROM ok WHERE ok.fr IS NOT NULL ON CONFLICT (job_id) DO NOTHING) "
    "SELECT count(*) FROM r", 0 };

/* The poses of a result (msg.h): their description when the payload holds
 * exactly the samples and then the frames it announces (and the contact
 * records it announces), else NULL (no poses stored; the samples are kept).
 * *nsbytes: the samples' bytes.  A new object: the worker's with "fb", the
 * frames' bytes (the rest of the poses' part are the contact records), and
 * "cnf", the frames with contact points, when there are contacts. */
static json_t *s_poses(json_t *b, size_t bloblen, size_t *nsbytes)
{
    json_t *ps = json_object_get(b, "poses");
    size_t ncol = json_array_size(json_object_get(b, "channels")) + 1;
    json_int_t ns = json_integer_value(json_object_get(b, "nsample"));
    *nsbytes = ns > 0 ? (size_t)ns * ncol * 8 : 0;
    if (*nsbytes > bloblen) *nsbytes = bloblen;
    if (!json_is_object(ps)) return NULL;
    json_t *bodies = json_object_get(ps, "bodies");
    json_int_t np = json_integer_value(json_object_get(ps, "npose"));
    json_int_t nf = json_integer_value(json_object_get(ps, "nframe"));
    size_t nb = json_array_size(bodies);
    int ok = json_is_array(bodies) && nb > 0 && (np == 3 || np == 7) && nf >= 1 && nf <= 100000;
    for (size_t i = 0; ok && i < nb; i++) ok = json_is_string(json_array_get(bodies, i));
    size_t fb = (size_t)nf * (1 + nb * (size_t)np) * 8, cb = 0;
    json_t *cs = json_object_get(b, "contacts");
    json_int_t cnf = json_integer_value(json_object_get(cs, "nframe"));
    json_int_t nrec = json_integer_value(json_object_get(cs, "nrec"));
    if (cs) {
        ok = ok && cnf >= 0 && cnf <= nf && nrec >= 0 && nrec <= MBS_CONTACT_RECS_MAX;
        cb = (size_t)nrec * MBS_CONTACT_REC * 8;
    }
    if (ok) ok = bloblen - *nsbytes == fb + cb;
    if (!ok) {
        log_warn("dispatch: job %lld: poses that do not match the payload, not stored",
                 (long long)json_integer_value(json_object_get(b, "job")));
        return NULL;
    }
    json_t *out = json_deep_copy(ps);
    json_object_set_new(out, "fb", json_integer((json_int_t)fb));
    if (cs) json_object_set_new(out, "cnf", json_integer(cnf));
    return out;
}

/* Append a big-endian 32-bit integer. */
static void s_put32(FILE *f, long v)
{
    unsigned char b[4] = { (unsigned char)(v >> 24), (unsigned char)(v >> 16), (unsigned char)(v >> 8), (unsigned char)v };
    fwrite(b, 1, 4, f);
}

/* A bytea[] parameter in PostgreSQL's binary array format (array_recv):
 * one dimension of n elements, each its length and bytes, or -1 for NULL
 * (v[i] == NULL).  malloc'd, its size in *size. */
static char *s_bytea_array(const void *const *v, const size_t *len, int n, int *size)
{
    char *buf = NULL; size_t blen = 0;
    int nulls = 0;
    for (int i = 0; i < n; i++) nulls |= v[i] == NULL;
    FILE *f = open_memstream(&buf, &blen);
    /* ndim, has-nulls flag, element type (bytea, oid 17), then size and lower bound */
    s_put32(f, 1); s_put32(f, nulls); s_put32(f, 17); s_put32(f, n); s_put32(f, 1);
    for (int i = 0; i < n; i++) {
        s_put32(f, v[i] ? (long)len[i] : -1);
        if (v[i] && len[i]) fwrite(v[i], 1, len[i], f);
    }
    fclose(f);
    *size = (int)blen;
    return buf;
}

/* Write the RESULTs among p[0..n) in one statement.  0, or -1 (logged). */
static int s_write_results(PGconn **db, ds_pending *p, int n)
{
    json_t *rows = json_array();
    long long *ids = calloc((size_t)n + 1, sizeof *ids);
    const void **smp = calloc((size_t)n + 1, sizeof *smp), **fr = calloc((size_t)n + 1, sizeof *fr);
    size_t *slen = calloc((size_t)n + 1, sizeof *slen), *flen = calloc((size_t)n + 1, sizeof *flen);
    int k = 0, rc = 0;
    for (int i = 0; i < n; i++) {
        if (p[i].failed) continue;
        json_t *b = p[i].m.body;
        size_t nsbytes;
        json_t *ps = s_poses(b, p[i].m.bloblen, &nsbytes);
        json_t *row = json_pack("{s:O,s:O,s:s,s:O,s:O,s:O,s:O,s:O?}", "id", json_object_get(b, "job"),
            "att", json_object_get(b, "attempt"), "owner", p[i].worker, "ch", json_object_get(b, "channels"),
            "ns", json_object_get(b, "nsample"), "resp", json_object_get(b, "responses"),
            "met", json_object_get(b, "metrics"), "ps", ps);
        int has_ps = ps != NULL;
        json_decref(ps); /* the row holds it (O?), or it is dropped */
        if (!row) continue;   /* not a valid RESULT (dispatch_msg.c lets none through) */
        json_array_append_new(rows, row);
        ids[k] = json_integer_value(json_object_get(b, "job"));
        /* the payload: samples first, then the frames when the poses hold */
        smp[k] = p[i].m.blob ? p[i].m.blob : ""; slen[k] = nsbytes;
        fr[k] = has_ps ? (const char *)p[i].m.blob + nsbytes : NULL; flen[k] = has_ps ? p[i].m.bloblen - nsbytes : 0;
        k++;
    }
    if (k) {
        int ssize, fsize;
        /* responses and metrics as stored and answered: the fewest digits
         * that read back (about 1 us per real, 20 a result, beside 0.15 ms
         * of gateway CPU per job measured before, bench/README.md "Throughput") */
        char *txt = jsonout_dumps(rows, JSON_COMPACT);
        char *sa = s_bytea_array(smp, slen, k, &ssize), *fa = s_bytea_array(fr, flen, k, &fsize);
        char *ia = ds_int_array(ids, NULL, k);
        const char *prm[] = { txt, sa, fa, ia };
        int len[4] = { 0, ssize, fsize, 0 }, fmt[4] = { 0, 1, 1, 0 };
        PGresult *r = db_execp(db, &s_results, 4, prm, len, fmt, 0);
        if (!db_ok(r)) { log_warn("dispatch: write results: %s", PQresultErrorMessage(r)); rc = -1; }
        PQclear(r);
        free(txt); free(sa); free(fa); free(ia);
    }
    json_decref(rows);
    free(ids); free(smp); free(fr); free(slen); free(flen);
    return rc;
}

/* The failures of a batch: each retried after a doubling delay while
 * attempts remain (when the worker says a retry may help: a deterministic
 * failure fails at once); fenced as results are.  $1: rows (id, att, retry,
 * error, owner) as a JSON array; $2: the back-off (s); $3: the job ids (as
 * for results). */
static db_stmt s_failures = { "ds_failures",
    "UPDATE jobs SET "
    "  status = CASE WHEN u.retry AND jobs.attempt < jobs.max_attempts THEN 'queued' ELSE 'failed' END, "
    "  not_before = CASE WHEN u.retry AND jobs.attempt < jobs.max_attempts "
    "               THEN now() + $2::float8 * power(2, jobs.attempt - 1) * interval '1 second' ELSE jobs.not_before END, "
    "  finished_at = CASE WHEN u.retry AND jobs.attempt < jobs.max_attempts THEN NULL ELSE now() END, "
    "  error = u.error, lease_owner = NULL, lease_expires = NULL "
    "FROM jsonb_to_recordset($1::jsonb) AS u(id bigint, att int, retry bool, error text, owner text) "
    "WHERE jobs.id = ANY($3::bigint[]) AND jobs.id = u.id AND jobs.attempt = u.att "
    "  AND (jobs.status = 'running') IS TRUE AND jobs.lease_owner = u.owner", 0 };

/* Write the FAILEDs among p[0..n) in one statement.  0, or -1 (logged). */
static int s_write_failures(PGconn **db, ds_pending *p, int n, double backoff)
{
    json_t *rows = json_array();
    long long *ids = calloc((size_t)n + 1, sizeof *ids);
    int rc = 0, k = 0;
    for (int i = 0; i < n; i++) {
        if (!p[i].failed) continue;
        json_t *b = p[i].m.body;
        const char *err = json_string_value(json_object_get(b, "error"));
        json_t *row = json_pack("{s:O,s:O,s:b,s:s,s:s}", "id", json_object_get(b, "job"),
            "att", json_object_get(b, "attempt"), "retry", json_is_true(json_object_get(b, "retry")),
            "error", err ? err : "failed", "owner", p[i].worker);
        if (!row) continue;
        json_array_append_new(rows, row);
        ids[k++] = json_integer_value(json_object_get(b, "job"));
    }
    if (k) {
        char bb[32], *txt = json_dumps(rows, JSON_COMPACT), *ia = ds_int_array(ids, NULL, k);
        snprintf(bb, sizeof bb, "%.3f", backoff);
        const char *prm[] = { txt, bb, ia };
        rc = db_cmdp(db, "write failures", &s_failures, 3, prm);
        free(txt); free(ia);
    }
    json_decref(rows);
    free(ids);
    return rc;
}

/* One statement of each kind per WRITE_BATCH messages of p[0..n). */
static int s_write_batches(PGconn **db, ds_pending *p, int n, double backoff)
{
    for (int i = 0; i < n; i += WRITE_BATCH) {
        int m = n - i < WRITE_BATCH ? n - i : WRITE_BATCH;
        if (s_write_results(db, p + i, m) || s_write_failures(db, p + i, m, backoff)) return -1;
    }
    return 0;
}

int ds_write(PGconn **db, ds_pending *p, int n, double backoff)
{
    int nfailed = 0;
    if (n == 0) return 0;
    for (int i = 0; i < n; i++) nfailed += p[i].failed;
    if (n <= WRITE_BATCH && (nfailed == 0 || nfailed == n)) {
        /* one statement (the usual case): atomic by itself, no BEGIN and
           COMMIT round trips */
        if (s_write_batches(db, p, n, backoff) == 0) return 0;
        if (PQstatus(*db) != CONNECTION_OK) return -1; /* keep them for later */
    } else {
        /* the whole batch in one transaction (one commit for many results) */
        if (db_cmd(db, "begin", "BEGIN", 0, NULL)) return -1;
        if (s_write_batches(db, p, n, backoff) == 0 && db_cmd(db, "commit", "COMMIT", 0, NULL) == 0) return 0;
        if (PQstatus(*db) != CONNECTION_OK) return -1; /* keep them for later */
        db_cmd(db, "rollback", "ROLLBACK", 0, NULL);
    }
    /* a bad row spoilt the batch: write one by one, dropping what fails */
    for (int i = 0; i < n; i++) {
        if (s_write_batches(db, &p[i], 1, backoff) == 0) continue;
        if (PQstatus(*db) != CONNECTION_OK) return -1;
        log_error("dispatch: dropping a message of job %lld",
                  (long long)json_integer_value(json_object_get(p[i].m.body, "job")));
    }
    return 0;
}

/* The heartbeat's lease extension; jobs by primary key (see s_results). */
static db_stmt s_extend = { "ds_extend",
    "UPDATE jobs j SET lease_expires = now() + $3::float8 * interval '1 second' "
    "FROM unnest($1::bigint[], $2::int[]) AS u(id, att) "
    "WHERE j.id = u.id AND j.attempt = u.att AND (j.status = 'running') IS TRUE", 0 };

int ds_extend(PGconn **db, const long long *ids, const int *att, int n, double lease)
{
    char lb[32];
    if (n == 0) return 0;
    char *ia = ds_int_array(ids, NULL, n), *aa = ds_int_array(NULL, att, n);
    snprintf(lb, sizeof lb, "%.3f", lease);
    const char *p[] = { ia, aa, lb };
    int rc = db_cmdp(db, "extend leases", &s_extend, 3, p);
    free(ia); free(aa);
    return rc;
}

static db_stmt s_expire = { "ds_expire",
    "UPDATE jobs SET status = CASE WHEN attempt >= max_attempts THEN 'failed' ELSE 'queued' END, "
    "  error = 'lease expired: worker ' || coalesce(lease_owner, '?') || ' stopped answering', "
    "  finished_at = CASE WHEN attempt >= max_attempts THEN now() END, "
    "  not_before = now() + $1::float8 * power(2, attempt - 1) * interval '1 second', "
    "  lease_owner = NULL, lease_expires = NULL "
    "WHERE status = 'running' AND lease_expires < now() RETURNING id, status", 0 };

int ds_expire(PGconn **db, double backoff)
{
    char bb[32];
    snprintf(bb, sizeof bb, "%.3f", backoff);
    const char *p[] = { bb };
    PGresult *r = db_execp(db, &s_expire, 1, p, NULL, NULL, 0);
    if (!db_ok(r)) { log_warn("dispatch: expire: %s", PQresultErrorMessage(r)); PQclear(r); return -1; }
    for (int i = 0; i < PQntuples(r); i++)
        log_warn("dispatch: job %s lease expired -> %s", PQgetvalue(r, i, 0), PQgetvalue(r, i, 1));
    PQclear(r);
    return 0;
}

static db_stmt s_gone = { "ds_gone",
    "SELECT u.ord - 1 FROM unnest($1::bigint[], $2::int[]) WITH ORDINALITY AS u(id, att, ord) "
    "LEFT JOIN jobs j ON j.id = u.id "
    "WHERE j.id IS NULL OR j.status <> 'running' OR j.attempt <> u.att", 0 };

int ds_gone(PGconn **db, const long long *ids, const int *att, int n, int **gone, int *ngone)
{
    *gone = NULL; *ngone = 0;
    if (n == 0) return 0;
    char *ia = ds_int_array(ids, NULL, n), *aa = ds_int_array(NULL, att, n);
    const char *p[] = { ia, aa };
    PGresult *r = db_execp(db, &s_gone, 2, p, NULL, NULL, 0);
    free(ia); free(aa);
    if (!db_ok(r)) { log_warn("dispatch: check jobs: %s", PQresultErrorMessage(r)); PQclear(r); return -1; }
    *ngone = PQntuples(r);
    *gone = calloc((size_t)*ngone + 1, sizeof **gone);
    for (int i = 0; i < *ngone; i++) (*gone)[i] = atoi(PQgetvalue(r, i, 0));
    PQclear(r);
    return 0;
}

/* Sweeps whose jobs are all finished (and verified) become done, or stay
 * cancelled, with their design counts; a sweep set done by hand without
 * counts (a bulk load) gets them.  Any stored summary is dropped
 * (summary_at NULL: counted live until ds_summarise makes a new one), so a
 * sweep finished again is never shown with an older summary. */
static db_stmt s_finish = { "ds_finish_sweeps",
    "UPDATE sweeps s SET "
    "  status = CASE WHEN s.status = 'cancelled' THEN 'cancelled' ELSE 'done' END, "
    "  finished_at = coalesce(s.finished_at, now()), "
    "  counts = (SELECT jsonb_object_agg(status, n) FROM "
    "            (SELECT status, count(*) AS n FROM jobs WHERE sweep_id = s.id AND kind = 'design' "
    "             GROUP BY status) c), "
    "  summary_at = NULL "
    "WHERE (s.status IN ('queued','running') OR (s.status IN ('cancelled','done') AND s.counts IS NULL)) "
    "  AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.sweep_id = s.id AND j.status IN ('queued','running')) "
    "  AND NOT EXISTS (SELECT 1 " DS_SQL_UNVERIFIED("v.sweep_id = s.id") ")", 0 };

int ds_finish_sweeps(PGconn **db)
{
    PGresult *r = db_execp(db, &s_finish, 0, NULL, NULL, NULL, 0);
    int n = db_ok(r) ? atoi(PQcmdTuples(r)) : -1;
    if (n < 0) log_warn("db: finish sweeps: %s", PQresultErrorMessage(r));
    PQclear(r);
    return n;
}

/* Finished sweeps without a summary for their finished_at, newest first. */
static db_stmt s_unsummarised = { "ds_unsummarised",
    "SELECT id::text, finished_at::text FROM sweeps "
    "WHERE status IN ('done','cancelled') AND counts IS NOT NULL AND finished_at IS NOT NULL "
    "  AND summary_at IS DISTINCT FROM finished_at "
    "ORDER BY finished_at DESC LIMIT 16", 0 };

/* One sweep's summary, for the finished_at read (nothing if it changed). */
static db_stmt s_summarise = { "ds_summarise",
    "UPDATE sweeps s SET summary = " SQL_SUMMARY("s.id", "s.spec") ", summary_at = s.finished_at "
    "WHERE s.id = $1::uuid AND s.status IN ('done','cancelled') AND s.counts IS NOT NULL "
    "  AND s.finished_at::text = $2", 0 };

/* "sweep|finished_at" whose summary failed (a statement timeout): not tried
 * again by this gateway, so a sweep too large to summarise costs one attempt
 * and is counted live.  A ring; only the summary thread (summary.c) uses it. */
#define SUMMARY_TRIED 32
static char s_failed[SUMMARY_TRIED][96];
static int s_nfailed;

int ds_summarise(PGconn **db)
{
    PGresult *r = db_execp(db, &s_unsummarised, 0, NULL, NULL, NULL, 0);
    if (!db_ok(r)) { log_warn("dispatch: sweeps to summarise: %s", PQresultErrorMessage(r)); PQclear(r); return -1; }
    int rc = 0;
    for (int i = 0; i < PQntuples(r) && rc == 0; i++) {
        char key[96];
        snprintf(key, sizeof key, "%s|%s", PQgetvalue(r, i, 0), PQgetvalue(r, i, 1));
        int tried = 0;
        for (int k = 0; k < SUMMARY_TRIED; k++) if (!strcmp(s_failed[k], key)) tried = 1;
        if (tried) continue;
        const char *p[] = { PQgetvalue(r, i, 0), PQgetvalue(r, i, 1) };
        if (db_cmdp(db, "summarise sweep", &s_summarise, 2, p)) {
            snprintf(s_failed[s_nfailed], sizeof s_failed[0], "%s", key);
            s_nfailed = (s_nfailed + 1) % SUMMARY_TRIED;
            rc = -1;
        } else rc = 1;   /* one sweep per call: the statement stays bounded */
    }
    PQclear(r);
    return rc;
}

/* Sweeps with more rows of differences than this get them folded (the
 * dispatcher appends two or three per claim and per result write: about
 * 600 a second at 10,000 jobs/s). */
#define FOLD_MIN "32"

/* The fold: each chosen sweep's rows deleted and their sums (when not 0)
 * inserted, in one statement.  A row appended meanwhile by another
 * transaction is not in this statement's snapshot: it is neither deleted
 * nor summed, so every sum stays the same; a second gateway folding the
 * same sweep at once deletes only the rows the first did not (a row
 * deleted by a concurrent transaction is skipped, READ COMMITTED). */
static db_stmt s_fold = { "ds_fold_counts",
    "WITH f AS (SELECT sweep_id FROM sweep_counts GROUP BY sweep_id HAVING count(*) > " FOLD_MIN " LIMIT 16), "
    "     d AS (DELETE FROM sweep_counts c USING f WHERE c.sweep_id = f.sweep_id "
    "           RETURNING c.sweep_id, c.kind, c.status, c.n), "
    "     i AS (INSERT INTO sweep_counts (sweep_id, kind, status, n) "
    "           SELECT sweep_id, kind, status, sum(n) FROM d GROUP BY sweep_id, kind, status HAVING sum(n) <> 0) "
    "SELECT count(*) FROM f", 0 };

int ds_fold_counts(PGconn **db)
{
    PGresult *r = db_execp(db, &s_fold, 0, NULL, NULL, NULL, 0);
    int n = db_ok(r) && PQntuples(r) == 1 ? atoi(PQgetvalue(r, 0, 0)) : -1;
    if (n < 0) log_warn("db: fold sweep counts: %s", PQresultErrorMessage(r));
    PQclear(r);
    return n;
}

int ds_workers_upsert(PGconn **db, ds_worker **w, int n, const char *gateway)
{
    if (n == 0) return 0;
    json_t *a = json_array();
    for (int i = 0; i < n; i++) {
        json_t *o = json_pack("{s:s,s:s,s:i,s:s,s:I,s:i}", "id", w[i]->name, "host", w[i]->host,
                              "pid", w[i]->pid, "version", w[i]->version, "done", (json_int_t)w[i]->done_delta,
                              "slots", w[i]->slots);
        if (w[i]->key[0]) json_object_set_new(o, "key", json_string(w[i]->key));
        json_array_append_new(a, o);
    }
    char *txt = json_dumps(a, JSON_COMPACT);
    json_decref(a);
    const char *p[] = { txt, gateway };
    int rc = db_cmd(db, "workers",
        "INSERT INTO workers AS w (id, host, pid, gateway, version, last_heartbeat, jobs_done, public_key, slots) "
        "SELECT x.id, x.host, nullif(x.pid, 0), $2, nullif(x.version, ''), now(), x.done, x.key, x.slots "
        "FROM jsonb_to_recordset($1::jsonb) AS x(id text, host text, pid int, version text, done bigint, key text, "
        "                                        slots int) "
        "ON CONFLICT (id) DO UPDATE SET host = coalesce(nullif(EXCLUDED.host, ''), w.host), "
        "  pid = coalesce(EXCLUDED.pid, w.pid), gateway = EXCLUDED.gateway, "
        "  version = coalesce(EXCLUDED.version, w.version), last_heartbeat = now(), "
        "  jobs_done = w.jobs_done + EXCLUDED.jobs_done, public_key = EXCLUDED.public_key, slots = EXCLUDED.slots", 2, p);
    free(txt);
    if (rc == 0) for (int i = 0; i < n; i++) w[i]->done_delta = 0;
    return rc;
}

char *ds_model_text(PGconn **db, const char *id)
{
    const char *p[] = { id };
    PGresult *r = db_exec(db, "SELECT definition::text FROM models WHERE id = $1", 1, p);
    char *s = db_ok(r) && PQntuples(r) == 1 ? strdup(PQgetvalue(r, 0, 0)) : NULL;
    if (!db_ok(r)) log_warn("dispatch: model %s: %s", id, PQresultErrorMessage(r));
    PQclear(r);
    return s;
}
