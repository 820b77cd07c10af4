/*
 * dispatch.c - the dispatcher thread: a ZeroMQ ROUTER that workers (DEALER)
 * connect to, a loop that
 *   1. receives READY / HEARTBEAT / RESULT / FAILED from workers,
 *   2. writes results and failures (one transaction per batch),
 *   3. claims queued jobs for the free slots of live workers and sends them,
 *   4. every heartbeat interval: pings workers, forgets silent ones (after
 *      `liveness` missed intervals), extends the leases of live workers'
 *      jobs, re-queues expired leases, tells workers to drop jobs that are no
 *      longer theirs (cancelled, re-queued), closes finished sweeps and
 *      refreshes the workers table.
 * Everything that matters is in the database; this thread's memory is a
 * cache that a restart rebuilds from the workers' READY and HEARTBEAT.
 */
#include "gw.h"
#include "dispatch.h"
#include "svc/db.h"
#include "svc/log.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#define MAX_PENDING 20000
#define NCACHE 16

static pthread_t s_thread;
static atomic_int s_running, s_kick, s_alive;
static void *s_ctx, *s_sock;
static PGconn *s_db;
static ds_worker *s_w[DS_MAX_WORKERS];
static int s_nw;
static ds_pending *s_pend;
static int s_npend;
static struct { char id[17]; char *text; long used; } s_cache[NCACHE];
static long s_clock;

static double s_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

void gw_dispatch_kick(void) { atomic_store(&s_kick, 1); }
int gw_dispatch_workers_alive(void) { return atomic_load(&s_alive); }

/* ---- workers ------------------------------------------------------------------ */

static ds_worker *s_find(const msg_t *m, int create)
{
    for (int i = 0; i < s_nw; i++)
        if (s_w[i]->idlen == m->idlen && !memcmp(s_w[i]->ident, m->identity, m->idlen)) return s_w[i];
    if (!create || s_nw >= DS_MAX_WORKERS) return NULL;
    ds_worker *w = calloc(1, sizeof *w);
    memcpy(w->ident, m->identity, m->idlen); w->idlen = m->idlen;
    msg_identity_str(m->identity, m->idlen, w->name, sizeof w->name);
    w->slots = 1;
    s_w[s_nw++] = w;
    atomic_store(&s_alive, s_nw);
    log_info("dispatch: worker %s connected", w->name);
    return w;
}

static void s_drop_worker(int i)
{
    log_warn("dispatch: worker %s silent for %.1f s, forgotten (its %d job(s) return after the lease)",
             s_w[i]->name, s_now() - s_w[i]->last_seen, s_w[i]->njobs);
    free(s_w[i]);
    s_w[i] = s_w[--s_nw];
    atomic_store(&s_alive, s_nw);
}

static int s_job_index(ds_worker *w, long long id)
{
    for (int k = 0; k < w->njobs; k++) if (w->jobs[k].id == id) return k;
    return -1;
}

static void s_job_remove(ds_worker *w, int k) { w->jobs[k] = w->jobs[--w->njobs]; }

static void s_job_add(ds_worker *w, long long id, int attempt, double t)
{
    if (s_job_index(w, id) >= 0 || w->njobs >= DS_MAX_SLOTS) return;
    w->jobs[w->njobs++] = (ds_job){ .id = id, .attempt = attempt, .sent_at = t };
}

/* Jobs the worker reports holding: adopt unknown ones (after a gateway
 * restart), forget ones it no longer has (lost JOB message: re-queue). */
static void s_reconcile(ds_worker *w, const json_t *jobs)
{
    size_t i; json_t *j;
    json_array_foreach(jobs, i, j)
        s_job_add(w, json_integer_value(json_array_get(j, 0)), (int)json_integer_value(json_array_get(j, 1)), s_now());
    for (int k = w->njobs - 1; k >= 0; k--) {
        int held = 0;
        json_array_foreach(jobs, i, j) if (json_integer_value(json_array_get(j, 0)) == w->jobs[k].id) held = 1;
        if (!held && s_now() - w->jobs[k].sent_at > 3.0 * gw_cfg.heartbeat_ms / 1000.0 + 1.0) {
            log_warn("dispatch: worker %s does not hold job %lld: re-queued", w->name, w->jobs[k].id);
            if (!w->jobs[k].cancelling) ds_unclaim(&s_db, w->jobs[k].id, w->jobs[k].attempt);
            s_job_remove(w, k);
        }
    }
}

/* ---- messages ------------------------------------------------------------------- */

static void s_queue_pending(msg_t *m, ds_worker *w, int failed)
{
    if (s_npend >= MAX_PENDING) {
        /* the database is away for long: drop the oldest (its job is re-run) */
        msg_clear(&s_pend[0].m);
        memmove(s_pend, s_pend + 1, sizeof *s_pend * (size_t)--s_npend);
    }
    s_pend[s_npend].failed = failed;
    s_pend[s_npend].m = *m;
    snprintf(s_pend[s_npend].worker, sizeof s_pend[s_npend].worker, "%s", w->name);
    s_npend++;
    memset(m, 0, sizeof *m);
}

static void s_handle(msg_t *m)
{
    ds_worker *w = s_find(m, 1);
    json_t *b = m->body;
    if (!w) return;
    w->last_seen = s_now();
    switch (m->cmd) {
    case MSG_READY: {
        json_t *s = json_object_get(b, "slots");
        w->slots = json_is_integer(s) ? (int)json_integer_value(s) : 1;
        if (w->slots < 1) w->slots = 1;
        if (w->slots > DS_MAX_SLOTS) w->slots = DS_MAX_SLOTS;
        snprintf(w->host, sizeof w->host, "%s", json_string_value(json_object_get(b, "host")) ?: "");
        snprintf(w->version, sizeof w->version, "%s", json_string_value(json_object_get(b, "version")) ?: "");
        w->pid = (int)json_integer_value(json_object_get(b, "pid"));
        /* a fresh announce: what it holds is exactly the list */
        w->njobs = 0;
        s_reconcile(w, json_object_get(b, "jobs"));
        gw_dispatch_kick();
        break;
    }
    case MSG_HEARTBEAT:
        s_reconcile(w, json_object_get(b, "jobs"));
        break;
    case MSG_RESULT:
    case MSG_FAILED: {
        int k = s_job_index(w, json_integer_value(json_object_get(b, "job")));
        if (k >= 0) s_job_remove(w, k);
        if (m->cmd == MSG_RESULT) w->done_delta++;
        s_queue_pending(m, w, m->cmd == MSG_FAILED);
        gw_dispatch_kick();
        break;
    }
    default:
        log_warn("dispatch: unknown command '%c' from %s", m->cmd, w->name);
    }
}

/* ---- sending jobs ---------------------------------------------------------------- */

/* Model definition from the small cache, loaded on a miss. */
static const char *s_model(const char *id)
{
    int lru = 0;
    for (int i = 0; i < NCACHE; i++) {
        if (s_cache[i].text && !strcmp(s_cache[i].id, id)) { s_cache[i].used = ++s_clock; return s_cache[i].text; }
        if (s_cache[i].used < s_cache[lru].used) lru = i;
    }
    char *t = ds_model_text(&s_db, id);
    if (!t) return NULL;
    free(s_cache[lru].text);
    snprintf(s_cache[lru].id, sizeof s_cache[lru].id, "%s", id);
    s_cache[lru].text = t; s_cache[lru].used = ++s_clock;
    return t;
}

static ds_worker *s_by_name(const char *name)
{
    for (int i = 0; i < s_nw; i++) if (!strcmp(s_w[i]->name, name)) return s_w[i];
    return NULL;
}

/* Claim jobs for every free slot and send them. */
static void s_dispatch(void)
{
    char *owners[DS_MAX_WORKERS * DS_MAX_SLOTS];
    int n = 0;
    /* one owner entry per free slot, round-robin over the workers */
    for (int round = 0; round < DS_MAX_SLOTS; round++)
        for (int i = 0; i < s_nw; i++)
            if (s_w[i]->slots - s_w[i]->njobs > round) owners[n++] = s_w[i]->name;
    if (n == 0) return;
    ds_claimed *c; int nc;
    if (ds_claim(&s_db, owners, n, gw_cfg.lease_seconds, gw_cfg.job_time_limit, &c, &nc)) return;
    double t = s_now();
    for (int i = 0; i < nc; i++) {
        ds_worker *w = s_by_name(c[i].owner);
        const char *def = s_model(c[i].model);
        json_t *body = json_pack("{s:I,s:i,s:s,s:o,s:o,s:o,s:f}", "job", (json_int_t)c[i].id,
                                 "attempt", c[i].attempt, "model", c[i].model,
                                 "parameters", json_loads(c[i].params, 0, NULL),
                                 "solver", json_loads(c[i].solver, 0, NULL),
                                 "responses", json_loads(c[i].responses, 0, NULL),
                                 "time_limit", c[i].time_limit);
        if (!w || !def || !body ||
            msg_send(s_sock, w->ident, w->idlen, MSG_JOB, body, def, strlen(def)) != 0) {
            log_warn("dispatch: cannot send job %lld to %s: un-claimed", c[i].id, c[i].owner);
            ds_unclaim(&s_db, c[i].id, c[i].attempt);
        } else {
            s_job_add(w, c[i].id, c[i].attempt, t);
        }
        json_decref(body);
    }
    ds_claimed_free(c, nc);
    if (nc == n) gw_dispatch_kick(); /* maybe more: come back at once */
}

/* ---- periodic work ---------------------------------------------------------------- */

static void s_tick(void)
{
    double t = s_now(), hb = gw_cfg.heartbeat_ms / 1000.0;
    long long ids[DS_MAX_WORKERS * DS_MAX_SLOTS]; int att[DS_MAX_WORKERS * DS_MAX_SLOTS], n = 0;
    /* silent workers are forgotten; the others are pinged */
    for (int i = s_nw - 1; i >= 0; i--)
        if (t - s_w[i]->last_seen > gw_cfg.liveness * hb) s_drop_worker(i);
    json_t *empty = json_object();
    for (int i = 0; i < s_nw; i++) {
        msg_send(s_sock, s_w[i]->ident, s_w[i]->idlen, MSG_PING, empty, NULL, 0);
        for (int k = 0; k < s_w[i]->njobs; k++) { ids[n] = s_w[i]->jobs[k].id; att[n++] = s_w[i]->jobs[k].attempt; }
    }
    json_decref(empty);
    /* leases of live workers' jobs; expired ones back to the queue */
    ds_extend(&s_db, ids, att, n, gw_cfg.lease_seconds);
    ds_expire(&s_db, gw_cfg.backoff_seconds);
    /* jobs sent but no longer running with that attempt: tell the worker */
    int *gone, ngone;
    if (ds_gone(&s_db, ids, att, n, &gone, &ngone) == 0) {
        for (int g = 0; g < ngone; g++) {
            long long id = ids[gone[g]];
            for (int i = 0; i < s_nw; i++) {
                int k = s_job_index(s_w[i], id);
                if (k < 0) continue;
                json_t *body = json_pack("{s:I,s:i}", "job", (json_int_t)id, "attempt", s_w[i]->jobs[k].attempt);
                msg_send(s_sock, s_w[i]->ident, s_w[i]->idlen, MSG_CANCEL, body, NULL, 0);
                json_decref(body);
                if (!s_w[i]->jobs[k].cancelling) log_info("dispatch: job %lld no longer running: CANCEL to %s", id, s_w[i]->name);
                s_w[i]->jobs[k].cancelling = 1;
            }
        }
        free(gone);
    }
    /* differences of verified jobs, before a sweep can be finished */
    ds_verify(&s_db, 200);
    ds_finish_sweeps(&s_db);
    ds_workers_upsert(&s_db, s_w, s_nw, gw_cfg.gateway_id);
}

/* ---- socket and thread ------------------------------------------------------------- */

/* Read "public KEY" / "secret KEY" lines of a CurveZMQ key file. */
static int s_curve_keys(const char *file, char *secret)
{
    char line[256], pub[64] = "";
    FILE *f = fopen(file, "r");
    if (!f) { log_error("dispatch: cannot read %s", file); return -1; }
    secret[0] = 0;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "secret ", 7)) sscanf(line + 7, "%40s", secret);
        if (!strncmp(line, "public ", 7)) sscanf(line + 7, "%40s", pub);
    }
    fclose(f);
    if (strlen(secret) != 40) { log_error("dispatch: no secret key in %s", file); return -1; }
    log_info("dispatch: CurveZMQ on, server public key %s", pub);
    return 0;
}

static void *s_main(void *arg)
{
    (void)arg;
    double next_tick = 0, next_claim = 0, next_write = 0;
    zmq_pollitem_t item = { s_sock, 0, ZMQ_POLLIN, 0 };
    while (atomic_load(&s_running)) {
        if (!s_db || PQstatus(s_db) != CONNECTION_OK) {
            if (s_db) PQreset(s_db); else s_db = db_connect(gw_cfg.db, "mbsweep-dispatch", 10000, 1);
            if (!s_db || PQstatus(s_db) != CONNECTION_OK) { usleep(200000); }
        }
        zmq_poll(&item, 1, atomic_load(&s_kick) ? 0 : 20);
        /* 1. drain what arrived */
        for (int i = 0; i < 2000; i++) {
            msg_t m;
            int rc = msg_recv(s_sock, 1, &m, ZMQ_DONTWAIT);
            if (rc == -1) break;
            if (rc == 0) s_handle(&m);
            msg_clear(&m);
        }
        double t = s_now();
        /* 2. results and failures, batched; kept while the database is away */
        if (s_npend && t >= next_write) {
            if (ds_write(&s_db, s_pend, s_npend, gw_cfg.backoff_seconds) == 0) {
                for (int i = 0; i < s_npend; i++) msg_clear(&s_pend[i].m);
                s_npend = 0;
            } else next_write = t + 0.5;
        }
        /* 3. new work for free slots: at once when kicked, else every 250 ms */
        if (atomic_exchange(&s_kick, 0) || t >= next_claim) {
            s_dispatch();
            next_claim = t + 0.25;
        }
        /* 4. heartbeats, leases, cancellations, sweeps */
        if (t >= next_tick) {
            s_tick();
            next_tick = t + gw_cfg.heartbeat_ms / 1000.0;
        }
    }
    return NULL;
}

int gw_dispatch_start(void)
{
    int one = 1, zero = 0, hwm = 100000;
    s_ctx = zmq_ctx_new();
    s_sock = zmq_socket(s_ctx, ZMQ_ROUTER);
    zmq_setsockopt(s_sock, ZMQ_ROUTER_MANDATORY, &one, sizeof one);
    zmq_setsockopt(s_sock, ZMQ_ROUTER_HANDOVER, &one, sizeof one);
    zmq_setsockopt(s_sock, ZMQ_LINGER, &zero, sizeof zero);
    zmq_setsockopt(s_sock, ZMQ_SNDHWM, &hwm, sizeof hwm);
    zmq_setsockopt(s_sock, ZMQ_RCVHWM, &hwm, sizeof hwm);
    if (gw_cfg.curve_secret_file) {
        char secret[64];
        if (s_curve_keys(gw_cfg.curve_secret_file, secret)) return -1;
        zmq_setsockopt(s_sock, ZMQ_CURVE_SERVER, &one, sizeof one);
        zmq_setsockopt(s_sock, ZMQ_CURVE_SECRETKEY, secret, 40);
    }
    if (zmq_bind(s_sock, gw_cfg.zmq_bind) != 0) {
        log_error("dispatch: cannot bind %s: %s", gw_cfg.zmq_bind, zmq_strerror(errno));
        return -1;
    }
    s_pend = calloc(MAX_PENDING, sizeof *s_pend);
    s_db = db_connect(gw_cfg.db, "mbsweep-dispatch", 10000, 1);
    atomic_store(&s_running, 1);
    pthread_create(&s_thread, NULL, s_main, NULL);
    log_info("dispatch: ROUTER bound on %s", gw_cfg.zmq_bind);
    return 0;
}

void gw_dispatch_stop(void)
{
    if (!atomic_exchange(&s_running, 0)) return;
    pthread_join(s_thread, NULL);
    /* flush what can still be written */
    if (s_npend && s_db && ds_write(&s_db, s_pend, s_npend, gw_cfg.backoff_seconds) == 0) s_npend = 0;
    for (int i = 0; i < s_npend; i++) msg_clear(&s_pend[i].m);
    free(s_pend);
    for (int i = 0; i < s_nw; i++) free(s_w[i]);
    for (int i = 0; i < NCACHE; i++) free(s_cache[i].text);
    s_nw = 0;
    zmq_close(s_sock);
    zmq_ctx_term(s_ctx);
    PQfinish(s_db);
}
