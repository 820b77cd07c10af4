/*
 * api_health.c - GET /healthz, GET /metrics (Prometheus text format),
 * GET /api/v1/workers.
 */
#include "gw.h"
#include "svc/db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int api_healthz(gw_req *r)
{
    PGconn **db = gw_db();
    PGresult *res = db ? db_exec(db, "SELECT max(version) FROM schema_migrations", 0, NULL) : NULL;
    int ok = res && db_ok(res);
    json_t *out = json_pack("{s:s,s:s,s:i}", "status", ok ? "ok" : "degraded",
                            "database", ok ? "ok" : "unavailable",
                            "workers", gw_dispatch_workers_alive());
    if (ok) json_object_set_new(out, "schema_version", json_integer(atoi(PQgetvalue(res, 0, 0))));
    if (gw_cfg.dispatch) gw_dispatch_health(out);
    PQclear(res);
    return gw_reply_json(r, ok ? 200 : 503, out);
}

int api_metrics(gw_req *r)
{
    static const char *states[] = { "queued", "running", "done", "failed", "cancelled" };
    char *buf = NULL; size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    PGconn **db = gw_db();
    /* jobs by state, and the queued jobs of active sweeps, from the counts
     * the triggers of sql/015_sweep_counts.sql keep (a scan of every job
     * before, at every scrape) */
    PGresult *res = db ? db_exec(db,
        "SELECT (SELECT json_object_agg(status, n) FROM (SELECT status, sum(n)::bigint n FROM sweep_counts "
        "        WHERE status <> 'warned' GROUP BY status HAVING sum(n) <> 0) s)::text, "
        "       (SELECT coalesce(sum(c.n), 0)::bigint FROM sweep_counts c JOIN sweeps w ON w.id = c.sweep_id "
        "        WHERE c.status = 'queued' AND w.status IN ('queued','running')), "
        "       (SELECT count(*) FROM workers WHERE last_heartbeat > now() - interval '30 seconds'), "
        "       (SELECT count(*) FROM sweeps WHERE status IN ('queued','running','paused'))", 0, NULL) : NULL;
    int up = res && db_ok(res);
    fprintf(f, "# HELP mbsweep_up Whether the gateway reaches its database.\n# TYPE mbsweep_up gauge\nmbsweep_up %d\n", up);
    if (up) {
        json_t *by = json_loads(PQgetisnull(res, 0, 0) ? "{}" : PQgetvalue(res, 0, 0), 0, NULL);
        fprintf(f, "# HELP mbsweep_jobs Jobs by state.\n# TYPE mbsweep_jobs gauge\n");
        for (int i = 0; i < 5; i++)
            fprintf(f, "mbsweep_jobs{state=\"%s\"} %lld\n", states[i],
                    (long long)json_integer_value(json_object_get(by, states[i])));
        json_decref(by);
        fprintf(f, "# HELP mbsweep_queue_depth Queued jobs of active sweeps.\n# TYPE mbsweep_queue_depth gauge\n"
                   "mbsweep_queue_depth %s\n", PQgetvalue(res, 0, 1));
        fprintf(f, "# HELP mbsweep_workers_seen Workers with a heartbeat in the last 30 s (all gateways).\n"
                   "# TYPE mbsweep_workers_seen gauge\nmbsweep_workers_seen %s\n", PQgetvalue(res, 0, 2));
        fprintf(f, "# HELP mbsweep_sweeps_active Sweeps queued, running or paused.\n"
                   "# TYPE mbsweep_sweeps_active gauge\nmbsweep_sweeps_active %s\n", PQgetvalue(res, 0, 3));
    }
    PQclear(res);
    fprintf(f, "# HELP mbsweep_workers_alive Workers connected to this gateway.\n# TYPE mbsweep_workers_alive gauge\n"
               "mbsweep_workers_alive %d\n", gw_dispatch_workers_alive());
    if (gw_cfg.dispatch) gw_dispatch_metrics(f);
    gw_stats_write(f);
    fclose(f);
    return gw_reply_text(r, 200, "text/plain; version=0.0.4; charset=utf-8", buf, len);
}

int api_workers_list(gw_req *r)
{
    PGconn **db = gw_db();
    if (!db) return gw_reply_db_error(r, NULL);
    return gw_reply_row_json(r, db_exec(db,
        "SELECT json_build_object('items', coalesce(json_agg(t), '[]'))::text FROM ("
        "  SELECT id, host, pid, gateway, version, first_seen, last_heartbeat, jobs_done, slots, "
        "         last_heartbeat > now() - interval '30 seconds' AS alive "
        "  FROM workers ORDER BY last_heartbeat DESC LIMIT 1000) t", 0, NULL), 200, "workers");
}
