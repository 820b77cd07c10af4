/*
 * dbconn.c - one PostgreSQL connection per HTTP pool thread, created on first
 * use and kept for the thread's life (registered so that shutdown closes
 * them).  Each connection has statement_timeout set, which bounds the time a
 * handler can hold its thread.
 */
#include "gw.h"
#include "svc/db.h"

#include <pthread.h>

#define MAX_CONNS 256

static __thread PGconn *tl_conn;
static pthread_mutex_t s_lock = PTHREAD_MUTEX_INITIALIZER;
static PGconn *s_all[MAX_CONNS]; /* the connections themselves: a thread's
                                     TLS is gone once it exited */
static int s_n;

PGconn **gw_db(void)
{
    if (tl_conn) return &tl_conn;
    tl_conn = db_connect(gw_cfg.db, "mbsweep-gateway", gw_cfg.statement_timeout_ms, 0);
    if (!tl_conn) return NULL;
    pthread_mutex_lock(&s_lock);
    if (s_n < MAX_CONNS) s_all[s_n++] = tl_conn;
    pthread_mutex_unlock(&s_lock);
    return &tl_conn;
}

void gw_db_close_all(void)
{
    /* called after the HTTP threads stopped: nobody else touches them */
    pthread_mutex_lock(&s_lock);
    for (int i = 0; i < s_n; i++) { PQfinish(s_all[i]); s_all[i] = NULL; }
    s_n = 0;
    pthread_mutex_unlock(&s_lock);
}
