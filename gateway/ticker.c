/*
 * ticker.c - a periodic background thread of the gateway (ticker.h).
 */
#include "ticker.h"

#include "svc/log.h"

#include <time.h>

int gw_ticker_start(gw_ticker *t, void *(*fn)(void *), const char *what)
{
    t->stop = 0;
    t->woken = 0;
    if (pthread_create(&t->thread, NULL, fn, t)) { log_error("%s: cannot start its thread", what); return -1; }
    t->running = 1;
    return 0;
}

int gw_ticker_wait(gw_ticker *t, int ms)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += ms / 1000;
    until.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) { until.tv_sec++; until.tv_nsec -= 1000000000L; }
    pthread_mutex_lock(&t->lock);
    while (!t->stop && !t->woken && pthread_cond_timedwait(&t->wake, &t->lock, &until) == 0) {}
    t->woken = 0;
    int stop = t->stop;
    pthread_mutex_unlock(&t->lock);
    return stop;
}

int gw_ticker_stopping(gw_ticker *t)
{
    pthread_mutex_lock(&t->lock);
    int stop = t->stop;
    pthread_mutex_unlock(&t->lock);
    return stop;
}

void gw_ticker_wake(gw_ticker *t)
{
    pthread_mutex_lock(&t->lock);
    t->woken = 1;
    pthread_cond_signal(&t->wake);
    pthread_mutex_unlock(&t->lock);
}

void gw_ticker_stop(gw_ticker *t, void (*at_stop)(void))
{
    if (!t->running) return;
    pthread_mutex_lock(&t->lock);
    t->stop = 1;
    pthread_cond_signal(&t->wake);
    if (at_stop) at_stop();
    pthread_mutex_unlock(&t->lock);
    pthread_join(t->thread, NULL);
    t->running = 0;
}

void gw_ticker_lock(gw_ticker *t) { pthread_mutex_lock(&t->lock); }
void gw_ticker_unlock(gw_ticker *t) { pthread_mutex_unlock(&t->lock); }
