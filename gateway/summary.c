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
 */
#include "dispatch.h"
#include "gw.h"
#include "svc/db.h"
#include "svc/log.h"

#include <pthread.h>
#include <time.h>

#define SUMMARY_PERIOD_MS 1000
/* statement timeout: a summary of 10^5 jobs takes about 0.5 s; a sweep too
 * large for this is counted live (ds_summarise does not try it again) */
#define SUMMARY_TIMEOUT_MS 30000

static pthread_t s_thread;
static int s_running;
static int s_stop, s_woken;
static pthread_mutex_t s_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t s_wake = PTHREAD_COND_INITIALIZER;
static PGcancel *s_cancel;   /* for the thread's connection (under s_lock): stop cancels */

/* Keep the cancel object of db (NULL: none); made again after each use of
 * db, since a reconnection (PQreset) gives a new backend. */
static void s_set_cancel(PGconn *db)
{
    PGcancel *c = db ? PQgetCancel(db) : NULL;
    pthread_mutex_lock(&s_lock);
    PGcancel *old = s_cancel;
    s_cancel = c;
    pthread_mutex_unlock(&s_lock);
    if (old) PQfreeCancel(old);
}

/* Sleep up to ms unless woken or stopped; 1 when stopping. */
static int s_wait(int ms)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += ms / 1000;
    until.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) { until.tv_sec++; until.tv_nsec -= 1000000000L; }
    pthread_mutex_lock(&s_lock);
    while (!s_stop && !s_woken && pthread_cond_timedwait(&s_wake, &s_lock, &until) == 0) {}
    s_woken = 0;
    int stop = s_stop;
    pthread_mutex_unlock(&s_lock);
    return stop;
}

static int s_stopping(void)
{
    pthread_mutex_lock(&s_lock);
    int stop = s_stop;
    pthread_mutex_unlock(&s_lock);
    return stop;
}

static void *s_main(void *arg)
{
    (void)arg;
    PGconn *db = NULL;
    while (!s_wait(SUMMARY_PERIOD_MS)) {
        if (!db) {
            db = db_connect(gw_cfg.db, "mbsweep-summary", SUMMARY_TIMEOUT_MS, 0);
            s_set_cancel(db);
        }
        if (!db) continue;
        /* one sweep per statement, until none is left (or one failed); at
         * most 64 per round, then the wait (a check on every round) */
        for (int k = 0; k < 64 && !s_stopping() && ds_summarise(&db) > 0; k++) {}
        s_set_cancel(db);
    }
    s_set_cancel(NULL);
    if (db) PQfinish(db);
    return NULL;
}

int gw_summary_start(void)
{
    s_stop = 0;
    if (pthread_create(&s_thread, NULL, s_main, NULL)) { log_error("summary: cannot start its thread"); return -1; }
    s_running = 1;
    return 0;
}

void gw_summary_wake(void)
{
    pthread_mutex_lock(&s_lock);
    s_woken = 1;
    pthread_cond_signal(&s_wake);
    pthread_mutex_unlock(&s_lock);
}

void gw_summary_stop(void)
{
    if (!s_running) return;
    pthread_mutex_lock(&s_lock);
    s_stop = 1;
    pthread_cond_signal(&s_wake);
    /* a summary under way is cancelled: stopping does not wait for it */
    if (s_cancel) {
        char err[256];
        PQcancel(s_cancel, err, sizeof err);
    }
    pthread_mutex_unlock(&s_lock);
    pthread_join(s_thread, NULL);
    s_running = 0;
}
