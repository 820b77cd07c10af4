/*
 * ticker.h - a background thread of the gateway that wakes periodically
 * (and on demand) until it is stopped: the shared machinery of the
 * summary thread (summary.c) and the view warmer (warm.c).
 *
 * The thread's function loops on gw_ticker_wait; the owner starts it,
 * wakes it, and stops it (joining it).  The ticker's lock may also guard the
 * owner's own shared fields (gw_ticker_lock / gw_ticker_unlock).
 */
#ifndef GW_TICKER_H
#define GW_TICKER_H

#include <pthread.h>

typedef struct {
    pthread_t thread;
    int running;            /* started and not yet joined                  */
    int stop, woken;        /* under lock                                  */
    pthread_mutex_t lock;
    pthread_cond_t wake;
} gw_ticker;

#define GW_TICKER_INIT { .lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER }

/* Start fn(t) on its own thread; what names it in the log.  0, or -1
 * (logged) when the thread cannot be made. */
int gw_ticker_start(gw_ticker *t, void *(*fn)(void *), const char *what);

/* In the thread: sleep up to ms unless woken or stopped; 1 when stopping. */
int gw_ticker_wait(gw_ticker *t, int ms);

/* In the thread: whether a stop was asked. */
int gw_ticker_stopping(gw_ticker *t);

/* Wake the thread now (its wait returns). */
void gw_ticker_wake(gw_ticker *t);

/* Ask the thread to stop and join it; at_stop (NULL: none) runs under the
 * lock once the stop is set (e.g. to cancel a statement under way).  Does
 * nothing when not running. */
void gw_ticker_stop(gw_ticker *t, void (*at_stop)(void));

void gw_ticker_lock(gw_ticker *t);
void gw_ticker_unlock(gw_ticker *t);

#endif
