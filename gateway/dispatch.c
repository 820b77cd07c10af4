/*
 * dispatch.c - the dispatcher thread: a ZeroMQ ROUTER that workers (DEALER)
 * connect to, a loop that
 *   1. receives READY / HEARTBEAT / RESULT / FAILED from workers,
 *   2. claims queued jobs for the free slots of live workers and sends them,
 *   3. writes results and failures (one transaction per batch),
 *   4. every heartbeat interval: pings workers, forgets silent ones (after
 *      `liveness` missed intervals), extends the leases of live workers'
 *      jobs, re-queues expired leases, tells workers to drop jobs that are no
 *      longer theirs (cancelled, re-queued), closes finished sweeps and
 *      refreshes the workers table.
 * Everything that matters is in the database; this thread's memory is a
 * cache that a restart rebuilds from the workers' READY and HEARTBEAT.
 *
 * Trust: with CurveZMQ only allow-listed keys connect (dispatch_auth.c); a
 * peer counts as a worker only after a valid READY; its routing id stays
 * bound to its key; a RESULT or FAILED is taken only from the connection
 * holding that job's attempt (and the write is fenced by lease_owner too);
 * every message is checked (dispatch_msg.c) and frames above
 * --zmq-max-message are dropped.  Dropped messages are counted by reason.
 */
#include "gw.h"
#include "dispatch.h"
#include "dispatch_auth.h"
#include "svc/db.h"
#include "svc/log.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#define MAX_PENDING 20000
#define NCACHE 16
#define MAX_HELD 256                    /* answers of peers not yet introduced */
#define MAX_HELD_BYTES (64u << 20)
#define HOLD_SECONDS 10.0

static pthread_t s_thread;
static atomic_int s_running, s_kick, s_alive;
static int s_curve;               /* CurveZMQ + ZAP allow-list on        */
static void *s_ctx, *s_sock;
static PGconn *s_db;
static ds_worker *s_w[DS_MAX_WORKERS];
static int s_nw;
static ds_pending *s_pend;
static int s_npend;
static struct { char id[17]; char *text; long used; } s_cache[NCACHE];
static long s_clock;
/* RESULTs and FAILEDs that came before their sender's READY (see s_hold) */
static struct { msg_t m; double at; } s_held[MAX_HELD];
static int s_nheld;
static size_t s_held_bytes;

static double s_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

void gw_dispatch_kick(void) { atomic_store(&s_kick, 1); }
int gw_dispatch_workers_alive(void) { return atomic_load(&s_alive); }

/* ---- counters (shown in /healthz and /metrics) ------------------------------------- */

/* Messages dropped, by reason; see gw_dispatch_health. */
enum { DROP_OVERSIZED, DROP_MALFORMED, DROP_INVALID, DROP_UNKNOWN, DROP_NOT_LEASED, DROP_IMPOSTOR, DROP_N };
static const char *const s_drop_name[DROP_N] = { "oversized", "malformed", "invalid", "unknown_peer",
                                                 "not_leaseholder", "impostor" };
static atomic_long s_drops[DROP_N];
static double s_last_drop_log;

/* Count a dropped message; log at most one line a second (a flood of bad
 * messages must not flood the log). */
static void s_drop(int why, const char *peer, const char *detail)
{
    atomic_fetch_add(&s_drops[why], 1);
    if (s_now() - s_last_drop_log < 1.0) return;
    s_last_drop_log = s_now();
    log_warn("dispatch: message from %s dropped (%s%s%s; %ld so far)", peer, s_drop_name[why],
             detail ? ": " : "", detail ? detail : "", atomic_load(&s_drops[why]));
}

/* ---- workers ------------------------------------------------------------------ */

static ds_worker *s_find(const msg_t *m)
{
    for (int i = 0; i < s_nw; i++)
        if (s_w[i]->idlen == m->idlen && !memcmp(s_w[i]->ident, m->identity, m->idlen)) return s_w[i];
    return NULL;
}

/* A worker known after its READY (and, with CurveZMQ, its key admitted). */
static ds_worker *s_add(const msg_t *m)
{
    if (s_nw >= DS_MAX_WORKERS) return NULL;
    ds_worker *w = calloc(1, sizeof *w);
    memcpy(w->ident, m->identity, m->idlen); w->idlen = m->idlen;
    msg_identity_str(m->identity, m->idlen, w->name, sizeof w->name);
    snprintf(w->key, sizeof w->key, "%s", m->user);
    w->slots = 1;
    s_w[s_nw++] = w;
    atomic_store(&s_alive, s_nw);
    log_info("dispatch: worker %s connected%s%s", w->name, w->key[0] ? ", key " : "", w->key);
    return w;
}

/* Forget worker i and put its jobs back in the queue at once: nobody else
 * can finish them, waiting for the lease would only delay them. */
static void s_drop_worker(int i, const char *why)
{
    ds_worker *w = s_w[i];
    long long ids[DS_MAX_SLOTS]; int att[DS_MAX_SLOTS], n = 0;
    char reason[256];
    log_warn("dispatch: worker %s %s: forgotten, its %d job(s) re-queued", w->name, why, w->njobs);
    for (int k = 0; k < w->njobs; k++)
        if (!w->jobs[k].cancelling) { ids[n] = w->jobs[k].id; att[n++] = w->jobs[k].attempt; }
    snprintf(reason, sizeof reason, "worker %s %s (declared dead)", w->name, why);
    ds_requeue(&s_db, ids, att, n, w->name, gw_cfg.backoff_seconds, reason);
    free(w);
    s_w[i] = s_w[--s_nw];
    atomic_store(&s_alive, s_nw);
}

static int s_job_index(ds_worker *w, long long id)
{
    for (int k = 0; k < w->njobs; k++) if (w->jobs[k].id == id) return k;
    return -1;
}

static void s_job_remove(ds_worker *w, int k) { w->jobs[k] = w->jobs[--w->njobs]; }

static void s_job_add(ds_worker *w, long long id, int attempt, double t, double limit)
{
    if (s_job_index(w, id) >= 0 || w->njobs >= DS_MAX_SLOTS) return;
    w->jobs[w->njobs++] = (ds_job){ .id = id, .attempt = attempt, .sent_at = t, .limit = limit };
}

static void s_send_cancel(ds_worker *w, long long id, int attempt)
{
    json_t *body = json_pack("{s:I,s:i}", "job", (json_int_t)id, "attempt", attempt);
    msg_send(s_sock, w->ident, w->idlen, MSG_CANCEL, body, NULL, 0);
    json_decref(body);
}

/* Jobs the worker reports holding.  Unknown ones (after a gateway restart)
 * are adopted only if the database says this worker holds their lease; the
 * others are cancelled on the worker.  Jobs it no longer has (lost JOB
 * message) are re-queued. */
static void s_reconcile(ds_worker *w, const json_t *jobs)
{
    size_t i; json_t *j;
    long long ids[64]; int att[64], ok[64], n = 0;
    double lim[64];
    json_array_foreach(jobs, i, j) {
        long long id = json_integer_value(json_array_get(j, 0));
        if (s_job_index(w, id) < 0 && n < 64) { ids[n] = id; att[n++] = (int)json_integer_value(json_array_get(j, 1)); }
    }
    if (n && ds_owned(&s_db, w->name, ids, att, n, gw_cfg.job_time_limit, ok, lim) == 0)
        for (int k = 0; k < n; k++) {
            if (ok[k]) { s_job_add(w, ids[k], att[k], s_now(), lim[k] * w->slots); continue; }
            log_warn("dispatch: worker %s lists job %lld attempt %d it does not hold: CANCEL", w->name, ids[k], att[k]);
            s_send_cancel(w, ids[k], att[k]);
        }
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

/* The credit a worker asks for in READY (required) or HEARTBEAT (optional:
 * a worker adapting it to its job durations), at most DS_MAX_SLOTS; a
 * lowered credit takes effect as the jobs in hand finish. */
static void s_set_slots(ds_worker *w, const json_t *b)
{
    const json_t *s = json_object_get(b, "slots");
    if (json_is_integer(s)) w->slots = (int)json_integer_value(s);
    else if (w->slots < 1) w->slots = 1;
    if (w->slots > DS_MAX_SLOTS) w->slots = DS_MAX_SLOTS;
}

/* READY: a new worker (if its name is not another key's), or a known one
 * announcing itself again. */
static ds_worker *s_ready(msg_t *m, ds_worker *w)
{
    json_t *b = m->body;
    if (!w) {
        char name[160];
        msg_identity_str(m->identity, m->idlen, name, sizeof name);
        int fr = ds_name_free(&s_db, name, m->user, gw_cfg.lease_seconds + 2.0 * gw_cfg.liveness * gw_cfg.heartbeat_ms / 1000.0);
        if (fr != 1) { if (fr == 0) s_drop(DROP_IMPOSTOR, name, "name held by another key"); return NULL; }
        if (!(w = s_add(m))) return NULL;
    }
    s_set_slots(w, b);
    snprintf(w->host, sizeof w->host, "%s", json_string_value(json_object_get(b, "host")) ?: "");
    snprintf(w->version, sizeof w->version, "%s", json_string_value(json_object_get(b, "version")) ?: "");
    w->pid = (int)json_integer_value(json_object_get(b, "pid"));
    return w;
}

/* Remove held answer i (its message already moved out or to be cleared). */
static void s_held_remove(int i)
{
    s_held_bytes -= s_held[i].m.bloblen;
    msg_clear(&s_held[i].m);
    s_held[i] = s_held[--s_nheld];
    memset(&s_held[s_nheld], 0, sizeof s_held[s_nheld]);
}

/* Keep a RESULT or FAILED of a peer that has not sent READY to this gateway
 * (its connection moved here: a gateway restart, or the proxy sending it to
 * another gateway; its DEALER delivers what it queued before the READY that
 * our WHO asks for).  Taken in s_replay once the READY is accepted; dropped
 * after HOLD_SECONDS, or at once beyond MAX_HELD messages or MAX_HELD_BYTES.
 * Returns 1 if m was moved into the store (m is then empty). */
static int s_hold(msg_t *m)
{
    double t = s_now();
    for (int i = s_nheld - 1; i >= 0; i--)
        if (t - s_held[i].at > HOLD_SECONDS) { s_drop(DROP_UNKNOWN, "a held answer", "no READY came"); s_held_remove(i); }
    if (s_nheld >= MAX_HELD || s_held_bytes + m->bloblen > MAX_HELD_BYTES) return 0;
    s_held[s_nheld].m = *m;
    s_held[s_nheld].at = t;
    s_held_bytes += m->bloblen;
    s_nheld++;
    memset(m, 0, sizeof *m);
    return 1;
}

/* The held answers of worker w, just introduced by READY: each is taken when
 * w holds that attempt here or, failing that, the database says it does
 * (status running, lease_owner w, same attempt: the lease it got from the
 * gateway it was connected to before); the write is fenced the same way. */
static void s_replay(ds_worker *w)
{
    for (int i = s_nheld - 1; i >= 0; i--) {
        msg_t *m = &s_held[i].m;
        if (m->idlen != w->idlen || memcmp(m->identity, w->ident, w->idlen)) continue;
        long long id = json_integer_value(json_object_get(m->body, "job"));
        int att = (int)json_integer_value(json_object_get(m->body, "attempt")), ok = 0, k = s_job_index(w, id);
        if (strcmp(m->user, w->key)) ok = 0;          /* not the key that sent READY */
        else if (k >= 0) { if (w->jobs[k].attempt == att) { s_job_remove(w, k); ok = 1; } }
        else {
            int own = 0; double lim;
            ok = ds_owned(&s_db, w->name, &id, &att, 1, gw_cfg.job_time_limit, &own, &lim) == 0 && own;
        }
        if (ok) {
            if (m->cmd == MSG_RESULT) w->done_delta++;
            log_info("dispatch: %s of job %lld attempt %d from %s, sent before its READY: taken",
                     m->cmd == MSG_RESULT ? "RESULT" : "FAILED", id, att, w->name);
            s_held_bytes -= m->bloblen;
            s_queue_pending(m, w, m->cmd == MSG_FAILED);   /* moves m out */
            gw_dispatch_kick();
        } else s_drop(DROP_NOT_LEASED, w->name, "held RESULT or FAILED");
        s_held_remove(i);
    }
}

static void s_handle(msg_t *m)
{
    ds_worker *w = s_find(m);
    char peer[160];
    const char *bad = ds_msg_invalid(m);
    msg_identity_str(m->identity, m->idlen, peer, sizeof peer);
    if (bad) { s_drop(DROP_INVALID, peer, bad); return; }
    /* a routing id is bound to the key that first used it */
    if (w && strcmp(w->key, m->user)) {
        s_drop(DROP_IMPOSTOR, peer, "routing id of a worker with another key");
        for (int i = 0; i < s_nw; i++) if (s_w[i] == w) s_drop_worker(i, "replaced by another key");
        return;
    }
    if (!w && m->cmd != MSG_READY) {
        /* not introduced (gateway restarted? connection moved here?): ask
           for READY; an answer is kept until then */
        unsigned char ident[256];
        size_t idlen = m->idlen;
        memcpy(ident, m->identity, idlen);
        if (!((m->cmd == MSG_RESULT || m->cmd == MSG_FAILED) && s_hold(m))) s_drop(DROP_UNKNOWN, peer, "no READY yet");
        json_t *e = json_object();
        msg_send(s_sock, ident, idlen, MSG_WHO, e, NULL, 0);
        json_decref(e);
        return;
    }
    if (m->cmd == MSG_READY && !(w = s_ready(m, w))) return;
    w->last_seen = s_now();
    switch (m->cmd) {
    case MSG_READY:
        /* a fresh announce: what it holds is exactly the list */
        for (int k = w->njobs - 1; k >= 0; k--) if (w->jobs[k].cancelling) s_job_remove(w, k);
        s_reconcile(w, json_object_get(m->body, "jobs"));
        s_replay(w);
        gw_dispatch_kick();
        break;
    case MSG_HEARTBEAT: {
        int before = w->slots;
        s_set_slots(w, m->body);
        s_reconcile(w, json_object_get(m->body, "jobs"));
        if (w->slots > before) gw_dispatch_kick(); /* more credit: fill it now */
        break;
    }
    case MSG_RESULT:
    case MSG_FAILED: {
        /* only the holder of this attempt's lease may answer for it */
        int k = s_job_index(w, json_integer_value(json_object_get(m->body, "job")));
        if (k < 0 || w->jobs[k].attempt != (int)json_integer_value(json_object_get(m->body, "attempt"))) {
            s_drop(DROP_NOT_LEASED, peer, m->cmd == MSG_RESULT ? "RESULT" : "FAILED");
            break;
        }
        s_job_remove(w, k);
        if (m->cmd == MSG_RESULT) w->done_delta++;
        s_queue_pending(m, w, m->cmd == MSG_FAILED);
        gw_dispatch_kick();
        break;
    }
    }
}

/* ---- sending jobs ---------------------------------------------------------------- */

/* Model definition from the small cache, loaded on a miss.  NULL if it is
 * not in the database (*missing = 1) or the database failed. */
static const char *s_model(const char *id, int *missing)
{
    int lru = 0;
    *missing = 0;
    for (int i = 0; i < NCACHE; i++) {
        if (s_cache[i].text && !strcmp(s_cache[i].id, id)) { s_cache[i].used = ++s_clock; return s_cache[i].text; }
        if (s_cache[i].used < s_cache[lru].used) lru = i;
    }
    char *t = ds_model_text(&s_db, id);
    if (!t) { *missing = PQstatus(s_db) == CONNECTION_OK; return NULL; }
    free(s_cache[lru].text);
    snprintf(s_cache[lru].id, sizeof s_cache[lru].id, "%s", id);
    s_cache[lru].text = t; s_cache[lru].used = ++s_clock;
    return t;
}

static int s_index_by_name(const char *name)
{
    for (int i = 0; i < s_nw; i++) if (!strcmp(s_w[i]->name, name)) return i;
    return -1;
}

/* The JOB body of a claimed row; NULL with *why when a stored value cannot
 * be read back (e.g. an integer beyond 64 bits): such a job can never be
 * sent and is failed, not re-queued. */
static json_t *s_job_body(const ds_claimed *c, char *why, size_t size)
{
    json_error_t e;
    const char *what[3] = { "parameters", "solver options", "responses" };
    const char *text[3] = { c->params, c->solver, c->responses };
    json_t *v[3];
    for (int k = 0; k < 3; k++) {
        v[k] = json_loads(text[k], 0, &e);
        if (!v[k]) {
            snprintf(why, size, "cannot send the job: its stored %s cannot be read (%s)", what[k], e.text);
            for (int q = 0; q < k; q++) json_decref(v[q]);
            return NULL;
        }
    }
    /* max_frame: the largest frame this gateway accepts, so that a worker
     * fails a result it could not send (worker/run.c) */
    return json_pack("{s:I,s:i,s:s,s:o,s:o,s:o,s:f,s:I}", "job", (json_int_t)c->id, "attempt", c->attempt,
                     "model", c->model, "parameters", v[0], "solver", v[1], "responses", v[2],
                     "time_limit", c->time_limit, "max_frame", (json_int_t)gw_cfg.zmq_max_message);
}

/* Claim jobs for every free slot and send them. */
static void s_dispatch(void)
{
    /* static: 512 KB with 64 slots per worker, too much for a thread's stack */
    static char *owners[DS_MAX_WORKERS * DS_MAX_SLOTS];
    int n = 0, sent = 0;
    /* one owner entry per free slot, round-robin over the workers */
    for (int round = 0; round < DS_MAX_SLOTS; round++)
        for (int i = 0; i < s_nw; i++)
            if (s_w[i]->slots - s_w[i]->njobs > round) owners[n++] = s_w[i]->name;
    if (n == 0) return;
    ds_claimed *c; int nc;
    if (ds_claim(&s_db, owners, n, gw_cfg.lease_seconds, gw_cfg.job_time_limit, &c, &nc)) return;
    double t = s_now();
    for (int i = 0; i < nc; i++) {
        int wi = s_index_by_name(c[i].owner), missing;
        char why[512] = "";
        const char *def = s_model(c[i].model, &missing);
        json_t *body = def ? s_job_body(&c[i], why, sizeof why) : NULL;
        if (!def && missing) snprintf(why, sizeof why, "cannot send the job: model %s not found", c[i].model);
        if (why[0]) {
            /* never sendable: fail it with the reason (no retry, no log spin) */
            ds_fail(&s_db, c[i].id, c[i].attempt, c[i].owner, why);
        } else if (wi < 0 || !body) {
            ds_unclaim(&s_db, c[i].id, c[i].attempt);  /* database away: try again later */
        } else if (msg_send(s_sock, s_w[wi]->ident, s_w[wi]->idlen, MSG_JOB, body, def, strlen(def)) != 0) {
            /* the worker's connection is gone (ROUTER_MANDATORY) */
            ds_unclaim(&s_db, c[i].id, c[i].attempt);
            s_drop_worker(wi, "unreachable");
        } else {
            s_job_add(s_w[wi], c[i].id, c[i].attempt, t, c[i].time_limit * s_w[wi]->slots);
            sent++;
        }
        json_decref(body);
    }
    ds_claimed_free(c, nc);
    if (nc == n && sent) gw_dispatch_kick(); /* maybe more: come back at once */
}

/* ---- periodic work ---------------------------------------------------------------- */

/* Jobs held longer than their time limit allows (the worker's queue and run,
 * plus a lease): the worker did not stop them, heartbeats or not.  Failed
 * with the reason, and cancelled on the worker. */
static void s_overdue(double t)
{
    for (int i = 0; i < s_nw; i++)
        for (int k = s_w[i]->njobs - 1; k >= 0; k--) {
            ds_job *j = &s_w[i]->jobs[k];
            if (j->cancelling || j->limit <= 0 || t - j->sent_at <= j->limit + gw_cfg.lease_seconds) continue;
            char why[256];
            snprintf(why, sizeof why, "time limit exceeded: worker %s held the job %.0f s without an answer",
                     s_w[i]->name, t - j->sent_at);
            ds_fail(&s_db, j->id, j->attempt, s_w[i]->name, why);
            s_send_cancel(s_w[i], j->id, j->attempt);
            j->cancelling = 1;
        }
}

static void s_tick(void)
{
    double t = s_now(), hb = gw_cfg.heartbeat_ms / 1000.0;
    /* every job in hand of every worker (static: 768 KB, see s_dispatch) */
    static long long ids[DS_MAX_WORKERS * DS_MAX_SLOTS];
    static int att[DS_MAX_WORKERS * DS_MAX_SLOTS];
    int n = 0;
    /* silent workers are declared dead (their jobs re-queued); the others pinged */
    for (int i = s_nw - 1; i >= 0; i--)
        if (t - s_w[i]->last_seen > gw_cfg.liveness * hb) s_drop_worker(i, "stopped answering");
    s_overdue(t);
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
                s_send_cancel(s_w[i], id, s_w[i]->jobs[k].attempt);
                if (!s_w[i]->jobs[k].cancelling) log_info("dispatch: job %lld no longer running: CANCEL to %s", id, s_w[i]->name);
                s_w[i]->jobs[k].cancelling = 1;
            }
        }
        free(gone);
    }
    /* differences of verified jobs, before a sweep can be finished */
    ds_verify(&s_db, 200);
    /* their summaries are made by the summary thread (summary.c), not here:
     * about 0.5 s for 10^5 jobs, which this pass, and so every other sweep's
     * dispatch, would wait for */
    if (ds_finish_sweeps(&s_db) > 0) gw_summary_wake();
    ds_workers_upsert(&s_db, s_w, s_nw, gw_cfg.gateway_id);
}

/* ---- state for /healthz and /metrics ------------------------------------------------ */

void gw_dispatch_health(json_t *out)
{
    json_t *d = json_object();
    for (int i = 0; i < DROP_N; i++) json_object_set_new(d, s_drop_name[i], json_integer(atomic_load(&s_drops[i])));
    json_object_set_new(out, "zmq", json_pack("{s:s,s:I,s:I,s:o}", "security", s_curve ? "curve" : "open (insecure)",
                                              "refused_connections", (json_int_t)ds_auth_denied(),
                                              "allowed_keys", (json_int_t)ds_auth_keys(), "dropped", d));
}

void gw_dispatch_metrics(FILE *f)
{
    fprintf(f, "# HELP mbsweep_zmq_dropped_total Messages from workers dropped, by reason.\n"
               "# TYPE mbsweep_zmq_dropped_total counter\n");
    for (int i = 0; i < DROP_N; i++)
        fprintf(f, "mbsweep_zmq_dropped_total{reason=\"%s\"} %ld\n", s_drop_name[i], atomic_load(&s_drops[i]));
    fprintf(f, "# HELP mbsweep_zmq_refused_total Connections refused by the ZAP handler (key not allowed).\n"
               "# TYPE mbsweep_zmq_refused_total counter\nmbsweep_zmq_refused_total %ld\n", ds_auth_denied());
}

/* ---- socket and thread ------------------------------------------------------------- */

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
            char peer[160];
            int rc = msg_recv_max(s_sock, 1, &m, ZMQ_DONTWAIT, gw_cfg.zmq_max_message);
            if (rc == -1) break;
            if (rc < -1) msg_identity_str(m.identity, m.idlen, peer, sizeof peer);
            if (rc == -3) s_drop(DROP_OVERSIZED, peer, "frame above --zmq-max-message");
            if (rc == -2) s_drop(DROP_MALFORMED, peer, NULL);
            if (rc == 0) s_handle(&m);
            msg_clear(&m);
        }
        double t = s_now();
        /* 2. new work for free slots: at once when kicked, else every 250 ms.
           Before the write of the results that freed the slots: the worker
           waits for its next job, nobody waits for the write (a result in
           memory is as safe as before: the job's lease still holds it) */
        if (atomic_exchange(&s_kick, 0) || t >= next_claim) {
            s_dispatch();
            next_claim = t + 0.25;
        }
        /* 3. results and failures, batched; kept while the database is away */
        if (s_npend && t >= next_write) {
            if (ds_write(&s_db, s_pend, s_npend, gw_cfg.backoff_seconds) == 0) {
                for (int i = 0; i < s_npend; i++) msg_clear(&s_pend[i].m);
                s_npend = 0;
            } else next_write = t + 0.5;
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
    int one = 1, zero = 0, hwm = 100000, hb = gw_cfg.heartbeat_ms, hb_timeout = gw_cfg.heartbeat_ms * gw_cfg.liveness;
    /* libzmq refuses (closes the connection) beyond twice the frame limit:
       a 200 MB message is never read; between the two it is dropped and counted */
    int64_t maxmsg = gw_cfg.zmq_max_message ? 2 * (int64_t)gw_cfg.zmq_max_message : -1;
    char pub[41], secret[41];
    s_ctx = zmq_ctx_new();
    s_curve = gw_cfg.curve_secret_file != NULL;
    if (s_curve) {
        /* keys first, then the ZAP handler, before the socket binds */
        if (!zmq_has("curve")) { log_error("dispatch: this libzmq has no CURVE support"); return -1; }
        if (ds_read_key_file(gw_cfg.curve_secret_file, pub, secret) || strlen(secret) != 40) {
            log_error("dispatch: no secret key in %s", gw_cfg.curve_secret_file);
            return -1;
        }
        if (ds_auth_start(s_ctx, gw_cfg.curve_allow_file)) return -1;
        log_info("dispatch: CurveZMQ on, server public key %s, workers from %s", pub, gw_cfg.curve_allow_file);
    } else {
        log_warn("dispatch: ZeroMQ OPEN (--zmq-open-insecure): any peer reaching %s can take and answer jobs",
                 gw_cfg.zmq_bind);
    }
    s_sock = zmq_socket(s_ctx, ZMQ_ROUTER);
    zmq_setsockopt(s_sock, ZMQ_ROUTER_MANDATORY, &one, sizeof one);
    /* no ROUTER_HANDOVER: a second connection cannot take a connected
       worker's routing id; ZMTP heartbeats close dead connections so that
       a worker reconnecting with its id is let in again */
    zmq_setsockopt(s_sock, ZMQ_HEARTBEAT_IVL, &hb, sizeof hb);
    zmq_setsockopt(s_sock, ZMQ_HEARTBEAT_TIMEOUT, &hb_timeout, sizeof hb_timeout);
    zmq_setsockopt(s_sock, ZMQ_MAXMSGSIZE, &maxmsg, sizeof maxmsg);
    zmq_setsockopt(s_sock, ZMQ_LINGER, &zero, sizeof zero);
    zmq_setsockopt(s_sock, ZMQ_SNDHWM, &hwm, sizeof hwm);
    zmq_setsockopt(s_sock, ZMQ_RCVHWM, &hwm, sizeof hwm);
    if (s_curve) {
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
    /* the summaries of the sweeps it finishes (summary.c) */
    return gw_summary_start();
}

void gw_dispatch_stop(void)
{
    if (!atomic_exchange(&s_running, 0)) return;
    pthread_join(s_thread, NULL);
    gw_summary_stop();
    /* flush what can still be written */
    if (s_npend && s_db && ds_write(&s_db, s_pend, s_npend, gw_cfg.backoff_seconds) == 0) s_npend = 0;
    for (int i = 0; i < s_npend; i++) msg_clear(&s_pend[i].m);
    free(s_pend);
    while (s_nheld) s_held_remove(s_nheld - 1);
    for (int i = 0; i < s_nw; i++) free(s_w[i]);
    for (int i = 0; i < NCACHE; i++) free(s_cache[i].text);
    s_nw = 0;
    zmq_close(s_sock);
    ds_auth_stop();
    zmq_ctx_term(s_ctx);
    PQfinish(s_db);
}
