/*
 * warm.c - makes the /columns bodies of a large sweep when it finishes, so
 * that the first opening of its view in the front end finds them (in table
 * reply_cache and in memory, api_table.c) instead of making them then: about
 * 0.8 s of the database's and the gateway's CPU for 10^5 jobs, on the
 * critical path of the page.
 *
 * One thread with its own database connection (gw_db), started with the
 * dispatcher (a gateway that finishes sweeps) unless --no-warm.  Every
 * GW_WARM_PERIOD_MS it looks for sweeps finished within a day with at least
 * GW_WARM_MIN_JOBS design jobs and no row in reply_cache for their current
 * finished_at, newest first, and makes the parts the front end asks for
 * (web/src/Sweep.jsx: the first GW_COLUMNS_PART jobs and the rest).  Bounded:
 * one sweep per round; a sweep it has tried is not tried again (the last
 * WARM_TRIED kept), so a body that cannot be stored costs one attempt.
 * Several gateways on one database may each make a body once; the first row
 * stored wins (ON CONFLICT DO NOTHING).
 */
#include "gw.h"
#include "svc/db.h"
#include "svc/log.h"
#include "ticker.h"

#include <stdio.h>
#include <string.h>

#define WARM_TRIED 64

static gw_ticker s_tick = GW_TICKER_INIT; /* its lock also guards s_made */
static char s_tried[WARM_TRIED][128];   /* "sweep|finished_at" tried, a ring */
static int s_ntried;
static unsigned long long s_made;

static int s_was_tried(const char *k)
{
    for (int i = 0; i < WARM_TRIED; i++)
        if (!strcmp(s_tried[i], k)) return 1;
    return 0;
}

static void *s_main(void *arg)
{
    char minj[24];
    (void)arg;
    snprintf(minj, sizeof minj, "%d", GW_WARM_MIN_JOBS);
    while (!gw_ticker_wait(&s_tick, GW_WARM_PERIOD_MS)) {
        PGconn **db = gw_db();
        if (!db) continue;
        const char *p[] = { minj };
        PGresult *res = db_exec(db,
            "SELECT s.id::text, s.finished_at::text FROM sweeps s "
            "WHERE s.status IN ('done','failed','cancelled') AND s.finished_at > now() - interval '1 day' "
            "  AND s.njobs >= $1::int "
            "  AND NOT EXISTS (SELECT 1 FROM reply_cache c WHERE c.sweep_id = s.id AND c.finished_at = s.finished_at) "
            "ORDER BY s.finished_at DESC LIMIT 16", 1, p);
        char id[64] = "", key[128];
        if (db_ok(res))
            for (int i = 0; i < PQntuples(res) && !id[0]; i++) {
                snprintf(key, sizeof key, "%s|%s", PQgetvalue(res, i, 0), PQgetvalue(res, i, 1));
                if (s_was_tried(key)) continue;
                snprintf(s_tried[s_ntried++ % WARM_TRIED], sizeof s_tried[0], "%s", key);
                snprintf(id, sizeof id, "%s", PQgetvalue(res, i, 0));
            }
        PQclear(res);
        if (!id[0]) continue;
        /* the two parts of web/src/Sweep.jsx's loadTable */
        int ok = gw_columns_warm(id, -1, GW_COLUMNS_PART) == 0 &&
                 gw_columns_warm(id, GW_COLUMNS_PART - 1, GW_COLUMNS_MAX) == 0;
        if (ok) { gw_ticker_lock(&s_tick); s_made++; gw_ticker_unlock(&s_tick); }
        log_info("warm: the sweep view of %s %s", id, ok ? "made" : "not made");
    }
    return NULL;
}

int gw_warm_start(void)
{
    return gw_ticker_start(&s_tick, s_main, "warm");
}

void gw_warm_stop(void)
{
    gw_ticker_stop(&s_tick, NULL);
}

unsigned long long gw_warm_made(void)
{
    gw_ticker_lock(&s_tick);
    unsigned long long n = s_made;
    gw_ticker_unlock(&s_tick);
    return n;
}
