/*
 * summary.c - makes the stored summaries of finished sweeps
 * (sweeps.summary, sql/012_sweep_summary.sql) off the dispatcher's path.
 *
 * Making the summary of a sweep of 10^5 jobs takes about 0.5 s of
 * PostgreSQL; made in the dispatcher's pass (as before), that pass, and so
 * every claim and result write of every other sweep, waited for it.  Here one
 * thread with its own database connection (application_name
 * "mbsweep-summary") runs ds_summarise: every SUMMARY_PERIOD_MS, and at once
 * when the dispatcher has finished a sweep (gw_summary_wake).  It makes one
 * summary per statement and goes on while there are more, so a burst of
 * finished sweeps is caught up without waiting a period for each.  Started
 * with the dispatcher (a gateway that finishes sweeps).
 *
 * Each round it also folds the rows of differences that the triggers of
 * sql/015_sweep_counts.sql append to sweep_counts (ds_fold_counts), so that
 * a poll of a running sweep reads a few of them.
 */
#include "dispatch.h"
#include "gw.h"
#include "svc/db.h"
#include "svc/log.h"
#include "ticker.h"

#define SUMMARY_PERIOD_MS 1000
/* statement timeout: a summary of 10^5 jobs takes about 0.5 s; a sweep too
 * large for this is counted live (ds_summarise does not try it again) */
#define SUMMARY_TIMEOUT_MS 30000

static gw_ticker s_tick = GW_TICKER_INIT;
static PGcancel *s_cancel;   /* for the thread's connection (under the ticker's lock): stop cancels */

/* Keep the cancel object of db (NULL: none); made again after each use of
 * db, since a reconnection (PQreset) gives a new backend. */
static void s_set_cancel(PGconn *db)
{
    PGcancel *c = db ? PQgetCancel(db) : NULL;
    gw_ticker_lock(&s_tick);
    PGcancel *old = s_cancel;
    s_cancel = c;
    gw_ticker_unlock(&s_tick);
    if (old) PQfreeCancel(old);
}

static void *s_main(void *arg)
{
    (void)arg;
    PGconn *db = NULL;
    while (!gw_ticker_wait(&s_tick, SUMMARY_PERIOD_MS)) {
        if (!db) {
            db = db_connect(gw_cfg.db, "mbsweep-summary", SUMMARY_TIMEOUT_MS, 0);
            s_set_cancel(db);
        }
        if (!db) continue;
        /* the running sweeps' counts kept short (sql/015), then the
         * summaries: one sweep per statement, until none is left (or one
         * failed); at most 64 per round, then the wait (a check on every
         * round) */
        ds_fold_counts(&db);
        for (int k = 0; k < 64 && !gw_ticker_stopping(&s_tick) && ds_summarise(&db) > 0; k++) {}
        s_set_cancel(db);
    }
    s_set_cancel(NULL);
    if (db) PQfinish(db);
    return NULL;
}

int gw_summary_start(void)
{
    return gw_ticker_start(&s_tick, s_main, "summary");
}

void gw_summary_wake(void)
{
    gw_ticker_wake(&s_tick);
}

/* under the ticker's lock at stop: a summary under way is cancelled, so
 * stopping does not wait for it */
static void s_cancel_now(void)
{
    if (s_cancel) {
        char err[256];
        PQcancel(s_cancel, err, sizeof err);
    }
}

void gw_summary_stop(void)
{
    gw_ticker_stop(&s_tick, s_cancel_now);
}
