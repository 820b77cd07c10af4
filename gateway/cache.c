/*
 * cache.c - a small cache of reply bodies that cannot change: the /columns
 * table of a finished sweep (done, failed or cancelled: its design jobs take
 * no more results, docs/service.md), plain and gzip-compressed.  The front
 * end's sweep view of 10^5 jobs reads 8.9 MB that take the database and the
 * gateway about 0.8 s of CPU to make; served from here they cost a copy.
 *
 * The key names everything the body depends on (the sweep, the query, and
 * the sweep's status, finished_at and njobs, which change should it run
 * again), so an entry is never stale, only unused; a deleted sweep is
 * answered 404 before the cache is looked at.  Bounded: at most
 * GW_CACHE_ENTRIES bodies and GW_CACHE_BYTES in all (least recently used
 * dropped first), a body above GW_CACHE_BODY_MAX is never kept.  One mutex;
 * a hit copies the body out (a few milliseconds for 9 MB), so no entry is
 * shared with a reply in flight.
 */
#include "gw.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char key[GW_CACHE_KEY_MAX];
    char *body;                   /* owned; NULL: a free slot              */
    size_t len;
    unsigned long long used;      /* clock of the last get or put          */
} s_entry;

static s_entry s_entries[GW_CACHE_ENTRIES];
static size_t s_bytes;            /* sum of the bodies held                */
static unsigned long long s_clock;
static unsigned long long s_hits, s_misses;
static pthread_mutex_t s_lock = PTHREAD_MUTEX_INITIALIZER;

static void s_drop(s_entry *e)
{
    s_bytes -= e->len;
    free(e->body);
    e->body = NULL; e->len = 0; e->key[0] = 0;
}

char *gw_cache_get(const char *key, size_t *len)
{
    char *out = NULL;
    pthread_mutex_lock(&s_lock);
    for (int i = 0; i < GW_CACHE_ENTRIES; i++) {
        s_entry *e = &s_entries[i];
        if (!e->body || strcmp(e->key, key)) continue;
        out = malloc(e->len ? e->len : 1);
        if (out) { memcpy(out, e->body, e->len); *len = e->len; e->used = ++s_clock; }
        break;
    }
    if (out) s_hits++; else s_misses++;
    pthread_mutex_unlock(&s_lock);
    return out;
}

void gw_cache_put(const char *key, const char *body, size_t len)
{
    if (len > GW_CACHE_BODY_MAX || strlen(key) >= GW_CACHE_KEY_MAX) return;
    char *copy = malloc(len ? len : 1);
    if (!copy) return;
    memcpy(copy, body, len);
    pthread_mutex_lock(&s_lock);
    /* the same key (two requests raced): replace it */
    for (int i = 0; i < GW_CACHE_ENTRIES; i++)
        if (s_entries[i].body && !strcmp(s_entries[i].key, key)) s_drop(&s_entries[i]);
    /* room: drop the least recently used until the body fits and a slot is free */
    for (;;) {
        int free_slot = -1, lru = -1;
        for (int i = 0; i < GW_CACHE_ENTRIES; i++) {
            if (!s_entries[i].body) { if (free_slot < 0) free_slot = i; continue; }
            if (lru < 0 || s_entries[i].used < s_entries[lru].used) lru = i;
        }
        if (free_slot >= 0 && s_bytes + len <= GW_CACHE_BYTES) {
            s_entry *e = &s_entries[free_slot];
            snprintf(e->key, sizeof e->key, "%s", key);
            e->body = copy; e->len = len; e->used = ++s_clock;
            s_bytes += len;
            copy = NULL;
            break;
        }
        if (lru < 0) break;                       /* cannot happen: len <= the bound */
        s_drop(&s_entries[lru]);
    }
    pthread_mutex_unlock(&s_lock);
    free(copy);
}

void gw_cache_stats(size_t *bytes, int *entries, unsigned long long *hits, unsigned long long *misses)
{
    pthread_mutex_lock(&s_lock);
    *bytes = s_bytes; *entries = 0;
    for (int i = 0; i < GW_CACHE_ENTRIES; i++) *entries += s_entries[i].body != NULL;
    *hits = s_hits; *misses = s_misses;
    pthread_mutex_unlock(&s_lock);
}

static unsigned long long s_db_hits, s_db_misses;

void gw_cache_count_db(int found)
{
    pthread_mutex_lock(&s_lock);
    if (found) s_db_hits++; else s_db_misses++;
    pthread_mutex_unlock(&s_lock);
}

void gw_cache_db_stats(unsigned long long *hits, unsigned long long *misses)
{
    pthread_mutex_lock(&s_lock);
    *hits = s_db_hits; *misses = s_db_misses;
    pthread_mutex_unlock(&s_lock);
}
