/*
 * api_sweep_ctl.c - POST /api/v1/sweeps/{id}/cancel | pause | resume.
 *
 * Cancel: the sweep and its queued and running jobs become cancelled in one
 * transaction; the dispatcher notices that jobs it has sent are no longer
 * running and sends their workers CANCEL.  Pause keeps queued jobs from being
 * claimed (running ones finish); resume makes them claimable again.
 */
#include "gw.h"
#include "svc/db.h"

#include <string.h>

/* 404 if the sweep does not exist, else 409 with its status. */
static int s_conflict(gw_req *r, PGconn **db, const char *what)
{
    const char *p[] = { r->param[0] };
    PGresult *res = db_exec(db, "SELECT status FROM sweeps WHERE id = $1::uuid", 1, p);
    if (!db_ok(res)) { gw_reply_db_error(r, res); PQclear(res); return 0; }
    if (PQntuples(res) == 0) { PQclear(res); return gw_reply_error(r, 404, "not_found", "no such sweep", NULL); }
    char msg[160];
    snprintf(msg, sizeof msg, "cannot %s a sweep that is %s", what, PQgetvalue(res, 0, 0));
    PQclear(res);
    return gw_reply_error(r, 409, "conflict", msg, NULL);
}

int api_sweeps_cancel(gw_req *r)
{
    if (!gw_is_uuid(r->param[0])) return gw_reply_error(r, 404, "not_found", "no such sweep", NULL);
    const char *p[] = { r->param[0] };
    PGconn **db = gw_db();
    if (!db) return gw_reply_db_error(r, NULL);
    /* both updates in one statement: atomic without an explicit transaction */
    PGresult *res = db_exec(db,
        "WITH s AS (UPDATE sweeps SET status = 'cancelled', finished_at = now() "
        "           WHERE id = $1::uuid AND status IN ('queued','running','paused') RETURNING id), "
        "     j AS (UPDATE jobs SET status = 'cancelled', finished_at = now(), lease_owner = NULL, "
        "                  error = 'cancelled' "
        "           WHERE sweep_id IN (SELECT id FROM s) AND status IN ('queued','running') RETURNING 1) "
        "SELECT (SELECT count(*) FROM s), (SELECT count(*) FROM j)", 1, p);
    if (!db_ok(res)) { gw_reply_db_error(r, res); PQclear(res); return 0; }
    if (PQgetvalue(res, 0, 0)[0] == '0') { PQclear(res); return s_conflict(r, db, "cancel"); }
    json_int_t n = strtoll(PQgetvalue(res, 0, 1), NULL, 10);
    PQclear(res);
    return gw_reply_json(r, 200, json_pack("{s:s,s:s,s:I}", "id", r->param[0], "status", "cancelled", "jobs_cancelled", n));
}

static int s_set(gw_req *r, const char *sql, const char *what, const char *status)
{
    if (!gw_is_uuid(r->param[0])) return gw_reply_error(r, 404, "not_found", "no such sweep", NULL);
    const char *p[] = { r->param[0] };
    PGconn **db = gw_db();
    if (!db) return gw_reply_db_error(r, NULL);
    PGresult *res = db_exec(db, sql, 1, p);
    if (!db_ok(res)) { gw_reply_db_error(r, res); PQclear(res); return 0; }
    if (PQntuples(res) == 0) { PQclear(res); return s_conflict(r, db, what); }
    json_t *out = json_pack("{s:s,s:s}", "id", r->param[0], "status", PQgetvalue(res, 0, 0));
    PQclear(res);
    (void)status;
    gw_dispatch_kick();
    return gw_reply_json(r, 200, out);
}

int api_sweeps_pause(gw_req *r)
{
    return s_set(r, "UPDATE sweeps SET status = 'paused' WHERE id = $1::uuid AND status IN ('queued','running') "
                    "RETURNING status", "pause", "paused");
}

int api_sweeps_resume(gw_req *r)
{
    return s_set(r, "UPDATE sweeps SET status = CASE WHEN started_at IS NULL THEN 'queued' ELSE 'running' END "
                    "WHERE id = $1::uuid AND status = 'paused' RETURNING status", "resume", "running");
}
