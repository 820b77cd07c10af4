/*
 * main.c - build/worker: a stateless worker.
 *
 *   worker [--connect tcp://HOST:PORT] [--slots N|auto] [--heartbeat-ms N] [--liveness N]
 *          [--curve-server-key Z85|FILE --curve-key-file F | --zmq-open-insecure]
 *          [--id NAME] [--job-delay-ms N] [--echo]
 *   environment: MBSWEEP_GATEWAY, MBSWEEP_SERVER_KEY, MBSWEEP_CURVE_KEY_FILE, MBSWEEP_SLOTS,
 *                MBSWEEP_ZMQ_OPEN_INSECURE=1
 *
 * CurveZMQ is required: the gateway's public key (40 Z85 characters, or a
 * file with a "public Z85" line such as the gateway's server.pub) and the
 * worker's own key pair (whose public key must be in the gateway's
 * allow-list).  Only --zmq-open-insecure connects without.
 *
 * Credit: the number of jobs the gateway may hand this worker at once (one
 * runs, the others wait in its queue).  --slots N fixes it; by default
 * (auto) the worker sets it from its own job durations, enough to hold
 * CREDIT_PREFETCH_S of work beyond the running job, between CREDIT_MIN and
 * CREDIT_AUTO_MAX: long jobs keep 2 (the next one ready, no hoarding at the
 * end of a sweep), millisecond jobs get tens, so that the round trips to the
 * gateway and its PostgreSQL writes overlap the computing (two workers on
 * short jobs: about 2,000 jobs/s end to end at 2, 4,000 at 32; bench/README.md).
 *
 * Protocol (svc/msg.h): on connect the worker sends READY with its credit
 * and the jobs it holds; HEARTBEAT every interval with the jobs in hand and
 * the credit (at once when the credit grew); the
 * gateway sends JOB, PING, CANCEL.  When the gateway is silent for `liveness`
 * intervals the worker announces itself again (ZeroMQ reconnects the socket
 * by itself), and at once when the gateway sends WHO (it does not know us); after four such rounds it closes the socket, waits (doubling up
 * to 8 s) and opens a new one (Paranoid Pirate).  SIGTERM: running and
 * queued jobs are given back (FAILED, retry) and the worker exits.
 *
 * --echo is a BENCHMARK TOOL, not a worker: it answers every job at once
 * with an empty RESULT (no channel, no sample, no response, no metric)
 * without solving, so that bench/dispatch_bench.sh measures what the
 * gateway and PostgreSQL can dispatch.  It speaks the real protocol with
 * the real CurveZMQ keys; never point it at a gateway whose results matter.
 */
#include "wk.h"
#include "svc/log.h"
#include "svc/msg.h"

#include <errno.h>
#include <math.h>
#include <getopt.h>
#include <stdint.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#define WK_VERSION "mbsweep-worker/1"
#define MAX_QUEUE 64   /* jobs in hand at most: the gateway's DS_MAX_SLOTS */
#define CREDIT_MIN 2           /* automatic credit: the running job and the next */
#define CREDIT_AUTO_MAX 32     /* ... at most */
#define CREDIT_PREFETCH_S 0.05 /* ... enough jobs for this much computing      */

static struct {
    const char *connect, *server_key, *key_file;
    int slots, heartbeat_ms, liveness, delay_ms, open;
    int auto_slots;                           /* credit from the job durations (--slots auto) */
    int echo;                                 /* benchmark tool: answer without solving */
    char server_pub[41], pub[41], sec[41];   /* CurveZMQ keys, Z85 */
    char id[128], host[64];
} s_cfg;

static volatile sig_atomic_t s_stop;
static void *s_ctx;

/* Jobs in hand: the queue (index 0 runs next) and the running one. */
static pthread_mutex_t s_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t s_cond = PTHREAD_COND_INITIALIZER;
static wk_job *s_queue[MAX_QUEUE];
static int s_nqueue;
static wk_job *s_current;
static int s_quit;
static double s_job_mean; /* moving mean of the jobs' computing time (s), 0 before the first */

static void s_on_signal(int sig) { (void)sig; s_stop = 1; }

static double s_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* ---- compute thread ------------------------------------------------------------ */

static void *s_compute(void *arg)
{
    void *pipe = zmq_socket(s_ctx, ZMQ_PAIR);
    zmq_connect(pipe, "inproc://results");
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&s_lock);
        while (!s_quit && s_nqueue == 0) pthread_cond_wait(&s_cond, &s_lock);
        if (s_quit) { pthread_mutex_unlock(&s_lock); break; }
        s_current = s_queue[0];
        memmove(s_queue, s_queue + 1, sizeof *s_queue * (size_t)--s_nqueue);
        pthread_mutex_unlock(&s_lock);
        /* the job leaves the hand before its answer is sent: no heartbeat
           after the RESULT can list it */
        msg_t out;
        double t0 = s_now();
        wk_run(s_current, s_cfg.delay_ms, &out);
        double dt = s_now() - t0;
        pthread_mutex_lock(&s_lock);
        s_job_mean = s_job_mean > 0 ? 0.8 * s_job_mean + 0.2 * dt : dt;
        wk_job_free(s_current);
        s_current = NULL;
        pthread_mutex_unlock(&s_lock);
        msg_send(pipe, NULL, 0, out.cmd, out.body, out.blob, out.bloblen);
        msg_clear(&out);
    }
    wk_cache_clear();
    zmq_close(pipe);
    return NULL;
}

/* ---- messages to the gateway -------------------------------------------------------- */

/* The credit to ask for: fixed, or enough jobs for CREDIT_PREFETCH_S of
 * computing beyond the running one (see the header). */
static int s_credit(void)
{
    if (!s_cfg.auto_slots) return s_cfg.slots;
    pthread_mutex_lock(&s_lock);
    double mean = s_job_mean;
    pthread_mutex_unlock(&s_lock);
    double want = mean > 0 ? CREDIT_MIN + ceil(CREDIT_PREFETCH_S / mean) : CREDIT_MIN;
    return want > CREDIT_AUTO_MAX ? CREDIT_AUTO_MAX : (int)want;
}

/* [[id, attempt], ...] of the jobs in hand (running first). */
static json_t *s_jobs_in_hand(void)
{
    json_t *a = json_array();
    pthread_mutex_lock(&s_lock);
    if (s_current) json_array_append_new(a, json_pack("[I,i]", (json_int_t)s_current->id, s_current->attempt));
    for (int i = 0; i < s_nqueue; i++)
        json_array_append_new(a, json_pack("[I,i]", (json_int_t)s_queue[i]->id, s_queue[i]->attempt));
    pthread_mutex_unlock(&s_lock);
    return a;
}

static void s_send_ready(void *sock)
{
    json_t *b = json_pack("{s:s,s:i,s:i,s:s,s:o}", "host", s_cfg.host, "pid", (int)getpid(),
                          "slots", s_credit(), "version", WK_VERSION, "jobs", s_jobs_in_hand());
    msg_send(sock, NULL, 0, MSG_READY, b, NULL, 0);
    json_decref(b);
}

static void s_send_heartbeat(void *sock)
{
    json_t *b = json_pack("{s:o,s:i}", "jobs", s_jobs_in_hand(), "slots", s_credit());
    msg_send(sock, NULL, 0, MSG_HEARTBEAT, b, NULL, 0);
    json_decref(b);
}

static void s_give_back(void *sock, wk_job *j, const char *why, int retry)
{
    json_t *b = json_pack("{s:I,s:i,s:s,s:b}", "job", (json_int_t)j->id, "attempt", j->attempt,
                          "error", why, "retry", retry);
    msg_send(sock, NULL, 0, MSG_FAILED, b, NULL, 0);
    json_decref(b);
}

/* ---- messages from the gateway ------------------------------------------------------- */

/* --echo (benchmark tool): the smallest valid RESULT for a JOB, sent at
 * once from the network thread: nothing is solved, nothing held. */
static void s_echo(void *sock, const msg_t *m)
{
    json_t *b = json_pack("{s:O,s:O,s:[],s:i,s:{},s:{}}", "job", json_object_get(m->body, "job"),
                          "attempt", json_object_get(m->body, "attempt"), "channels", "nsample", 0,
                          "responses", "metrics");
    if (b) msg_send(sock, NULL, 0, MSG_RESULT, b, NULL, 0);
    json_decref(b);
}

static void s_on_job(void *sock, msg_t *m)
{
    json_t *b = m->body;
    if (s_cfg.echo) { s_echo(sock, m); return; }
    wk_job *j = calloc(1, sizeof *j);
    j->id = json_integer_value(json_object_get(b, "job"));
    j->attempt = (int)json_integer_value(json_object_get(b, "attempt"));
    snprintf(j->model, sizeof j->model, "%s", json_string_value(json_object_get(b, "model")) ?: "");
    j->definition = m->blob ? strndup(m->blob, m->bloblen) : strdup("");
    j->params = json_incref(json_object_get(b, "parameters"));
    j->solver = json_incref(json_object_get(b, "solver"));
    j->responses = json_incref(json_object_get(b, "responses"));
    j->time_limit = json_number_value(json_object_get(b, "time_limit"));
    j->max_frame = json_number_value(json_object_get(b, "max_frame"));
    if (!j->params) j->params = json_object();
    if (!j->solver) j->solver = json_object();
    if (!j->responses) j->responses = json_array();
    /* once queued, the job belongs to the compute thread, which may run
     * and free it before this thread reads it again (a job that fails at
     * once: ASan caught the log line below reading a freed job) */
    long long id = j->id;
    int attempt = j->attempt;
    pthread_mutex_lock(&s_lock);
    int full = s_nqueue + (s_current != NULL) >= MAX_QUEUE;
    if (!full) { s_queue[s_nqueue++] = j; pthread_cond_signal(&s_cond); }
    pthread_mutex_unlock(&s_lock);
    if (full) { s_give_back(sock, j, "worker queue full", 1); wk_job_free(j); }
    else log_debug("job %lld attempt %d queued", id, attempt);
}

static void s_on_cancel(void *sock, msg_t *m)
{
    long long id = json_integer_value(json_object_get(m->body, "job"));
    wk_job *dropped = NULL;
    pthread_mutex_lock(&s_lock);
    if (s_current && s_current->id == id) atomic_store(&s_current->cancel, 1);
    for (int i = 0; i < s_nqueue; i++)
        if (s_queue[i]->id == id) {
            dropped = s_queue[i];
            memmove(s_queue + i, s_queue + i + 1, sizeof *s_queue * (size_t)(--s_nqueue - i));
            break;
        }
    pthread_mutex_unlock(&s_lock);
    log_info("job %lld: cancel requested", id);
    if (dropped) { s_give_back(sock, dropped, "cancelled", 0); wk_job_free(dropped); }
}

/* ---- connection ---------------------------------------------------------------------- */

/* The handshake's outcome, watched through a ZeroMQ socket monitor: a
 * gateway that refuses this worker's CurveZMQ key (its ZAP handler answers
 * 400) sends an ERROR the worker would otherwise never see: it would wait in
 * silence.  Said once per connection, then at most every 30 s. */
static void *s_mon;          /* PAIR socket reading the monitor's events   */
static int s_mon_seq;        /* a fresh inproc endpoint per DEALER socket  */
static double s_mon_said;    /* when the refusal was last logged           */

static void s_monitor(void *sock)
{
    char ep[64];
    snprintf(ep, sizeof ep, "inproc://monitor-%d", ++s_mon_seq);
    if (s_mon) zmq_close(s_mon);
    s_mon = NULL;
    if (zmq_socket_monitor(sock, ep, ZMQ_EVENT_HANDSHAKE_FAILED_AUTH | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL |
                                         ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL | ZMQ_EVENT_HANDSHAKE_SUCCEEDED) != 0)
        return;
    s_mon = zmq_socket(s_ctx, ZMQ_PAIR);
    if (s_mon && zmq_connect(s_mon, ep) != 0) { zmq_close(s_mon); s_mon = NULL; }
}

/* Read the monitor's pending events (two frames each: 16-bit event and
 * 32-bit value, then the endpoint). */
static void s_monitor_read(void)
{
    for (;;) {
        zmq_msg_t f;
        zmq_msg_init(&f);
        if (zmq_msg_recv(&f, s_mon, ZMQ_DONTWAIT) < 0) { zmq_msg_close(&f); return; }
        uint16_t ev = 0;
        uint32_t val = 0;
        if (zmq_msg_size(&f) >= 6) {
            memcpy(&ev, zmq_msg_data(&f), 2);
            memcpy(&val, (char *)zmq_msg_data(&f) + 2, 4);
        }
        int more = zmq_msg_more(&f);
        zmq_msg_close(&f);
        while (more) { /* the endpoint frame */
            zmq_msg_init(&f);
            if (zmq_msg_recv(&f, s_mon, 0) < 0) { zmq_msg_close(&f); break; }
            more = zmq_msg_more(&f);
            zmq_msg_close(&f);
        }
        double now = s_now();
        if (ev == ZMQ_EVENT_HANDSHAKE_SUCCEEDED) {
            if (s_mon_said > 0) log_info("handshake with the gateway succeeded");
            s_mon_said = 0;
        } else if (s_mon_said == 0 || now - s_mon_said > 30) {
            s_mon_said = now;
            if (ev == ZMQ_EVENT_HANDSHAKE_FAILED_AUTH)
                log_error("the gateway refused this worker (ZAP status %u): its public key %s is not in the "
                          "gateway's allow-list (add it to the workers.allow file the gateway reads, e.g. with "
                          "make keys); retrying", val, s_cfg.open ? "(none: open)" : s_cfg.pub);
            else if (ev == ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL)
                log_error("handshake with the gateway failed (protocol, code %u): check MBSWEEP_SERVER_KEY (the "
                          "gateway's public key) and that both sides use CurveZMQ (or both --zmq-open-insecure); "
                          "retrying", val);
            else
                /* the connection closed before the handshake ended: what a proxy
                 * does with no live gateway behind it, as well as a peer that is
                 * not a gateway at all */
                log_error("handshake with the gateway failed (the connection closed during it, code %u): no "
                          "gateway answered at that address (a proxy with no live gateway behind it, or not a "
                          "gateway at all), or the keys differ: check MBSWEEP_SERVER_KEY and CurveZMQ on both "
                          "sides; retrying", val);
        }
    }
}

static void *s_open(void)
{
    void *sock = zmq_socket(s_ctx, ZMQ_DEALER);
    int zero = 0, ivl = 250, ivl_max = 4000;
    zmq_setsockopt(sock, ZMQ_ROUTING_ID, s_cfg.id, strlen(s_cfg.id));
    zmq_setsockopt(sock, ZMQ_LINGER, &zero, sizeof zero);
    zmq_setsockopt(sock, ZMQ_RECONNECT_IVL, &ivl, sizeof ivl);
    zmq_setsockopt(sock, ZMQ_RECONNECT_IVL_MAX, &ivl_max, sizeof ivl_max);
    int64_t maxmsg = 256 << 20;  /* a JOB carries a model: bounded all the same */
    zmq_setsockopt(sock, ZMQ_MAXMSGSIZE, &maxmsg, sizeof maxmsg);
    if (!s_cfg.open) {
        zmq_setsockopt(sock, ZMQ_CURVE_SERVERKEY, s_cfg.server_pub, 40);
        zmq_setsockopt(sock, ZMQ_CURVE_PUBLICKEY, s_cfg.pub, 40);
        zmq_setsockopt(sock, ZMQ_CURVE_SECRETKEY, s_cfg.sec, 40);
    }
    s_monitor(sock);
    if (zmq_connect(sock, s_cfg.connect) != 0) log_error("cannot connect to %s: %s", s_cfg.connect, zmq_strerror(errno));
    s_send_ready(sock);
    return sock;
}

static void s_loop(void)
{
    void *pipe = zmq_socket(s_ctx, ZMQ_PAIR);
    zmq_bind(pipe, "inproc://results");
    pthread_t th;
    pthread_create(&th, NULL, s_compute, NULL);
    void *sock = s_open();
    int liveness = s_cfg.liveness, retry_ms = 500, silent_rounds = 0;
    double hb = s_cfg.heartbeat_ms / 1000.0, next_hb = s_now() + hb;
    if (s_cfg.auto_slots)
        log_info("worker %s connecting to %s (credit %d..%d from the job durations)", s_cfg.id, s_cfg.connect,
                 CREDIT_MIN, CREDIT_AUTO_MAX);
    else
        log_info("worker %s connecting to %s (%d slots)", s_cfg.id, s_cfg.connect, s_cfg.slots);
    int credit_sent = s_credit();
    while (!s_stop) {
        zmq_pollitem_t items[3] = { { sock, 0, ZMQ_POLLIN, 0 }, { pipe, 0, ZMQ_POLLIN, 0 }, { s_mon, 0, ZMQ_POLLIN, 0 } };
        int rc = zmq_poll(items, s_mon ? 3 : 2, s_cfg.heartbeat_ms);
        if (rc < 0 && errno == EINTR) continue;
        if (s_mon && (items[2].revents & ZMQ_POLLIN)) {
            s_monitor_read();
            /* only a monitor event: neither traffic nor a silent round */
            if (rc == 1 && !(items[0].revents | items[1].revents)) rc = -2;
        }
        /* finished jobs: forward to the gateway */
        if (items[1].revents & ZMQ_POLLIN) {
            msg_t m;
            if (msg_recv(pipe, 0, &m, 0) == 0) msg_send(sock, NULL, 0, m.cmd, m.body, m.blob, m.bloblen);
            msg_clear(&m);
        }
        if (items[0].revents & ZMQ_POLLIN) {
            msg_t m;
            while (msg_recv(sock, 0, &m, ZMQ_DONTWAIT) != -1) {
                liveness = s_cfg.liveness; retry_ms = 500; silent_rounds = 0;
                if (m.cmd == MSG_JOB) s_on_job(sock, &m);
                else if (m.cmd == MSG_CANCEL) s_on_cancel(sock, &m);
                else if (m.cmd == MSG_WHO) s_send_ready(sock);
                msg_clear(&m);
            }
        } else if (rc == 0 && --liveness <= 0) {
            /* the gateway is silent.  First re-announce on the same socket:
               ZeroMQ reconnects by itself (RECONNECT_IVL) and delivers what
               is queued, results included, to a restarted gateway.  After
               several silent rounds start over with a new socket. */
            if (++silent_rounds < 4) {
                log_warn("gateway silent, announcing again");
                s_send_ready(sock);
            } else {
                log_warn("gateway silent for long, new connection in %d ms", retry_ms);
                zmq_close(sock);
                usleep((useconds_t)retry_ms * 1000);
                if (retry_ms < 8000) retry_ms *= 2;
                sock = s_open();
                silent_rounds = 0;
            }
            liveness = s_cfg.liveness;
        }
        /* a credit that grew is announced at once (a heartbeat carries it),
           a lowered one with the next heartbeat */
        int credit = s_credit();
        if (s_now() >= next_hb || credit > credit_sent) {
            s_send_heartbeat(sock);
            credit_sent = credit;
            next_hb = s_now() + hb;
        }
    }
    /* SIGTERM: give back what we hold, stop the compute thread */
    log_info("stopping: giving back the jobs in hand");
    pthread_mutex_lock(&s_lock);
    s_quit = 1;
    if (s_current) atomic_store(&s_current->cancel, 1);
    for (int i = 0; i < s_nqueue; i++) { s_give_back(sock, s_queue[i], "worker stopped", 1); wk_job_free(s_queue[i]); }
    s_nqueue = 0;
    if (s_current) s_give_back(sock, s_current, "worker stopped", 1);
    pthread_cond_signal(&s_cond);
    pthread_mutex_unlock(&s_lock);
    pthread_join(th, NULL);
    /* let the last messages leave (bounded) */
    int linger = 500;
    zmq_setsockopt(sock, ZMQ_LINGER, &linger, sizeof linger);
    zmq_close(sock);
    zmq_close(pipe);
    if (s_mon) zmq_close(s_mon);
}

/* "public Z85" / "secret Z85" lines of a key file; a bare key line counts
 * as public.  Returns a bit set: 1 public found, 2 secret found. */
static int s_read_keys(const char *file, char *pub, char *sec)
{
    char line[256], tok[64];
    int have = 0;
    FILE *f = fopen(file, "r");
    while (f && fgets(line, sizeof line, f)) {
        if (!strncmp(line, "secret ", 7) && sscanf(line + 7, "%40s", sec) == 1 && strlen(sec) == 40) have |= 2;
        else if (!strncmp(line, "public ", 7) && sscanf(line + 7, "%40s", pub) == 1 && strlen(pub) == 40) have |= 1;
        else if (!(have & 1) && sscanf(line, "%63s", tok) == 1 && strlen(tok) == 40) { memcpy(pub, tok, 41); have |= 1; }
    }
    if (f) fclose(f);
    return have;
}

/* The gateway's public key (Z85 text or a file) and our key pair (a file,
 * else a fresh pair that the gateway's allow-list will not know).  0 or -1. */
static int s_keys(void)
{
    if (!s_cfg.server_key) {
        fprintf(stderr, "worker: no gateway key: give --curve-server-key (or MBSWEEP_SERVER_KEY) and "
                        "--curve-key-file, or connect without CurveZMQ with --zmq-open-insecure\n");
        return -1;
    }
    char unused[41];
    /* a file if there is one by that name (Z85 keys may contain '/') */
    if (strlen(s_cfg.server_key) == 40 && access(s_cfg.server_key, R_OK) != 0) memcpy(s_cfg.server_pub, s_cfg.server_key, 41);
    else if (!(s_read_keys(s_cfg.server_key, s_cfg.server_pub, unused) & 1)) {
        fprintf(stderr, "worker: %s: not a key (40 Z85 characters) nor a file with one\n", s_cfg.server_key);
        return -1;
    }
    if (s_cfg.key_file && s_read_keys(s_cfg.key_file, s_cfg.pub, s_cfg.sec) != 3) {
        fprintf(stderr, "worker: %s: no 'public' and 'secret' key lines\n", s_cfg.key_file);
        return -1;
    }
    if (!s_cfg.key_file) {
        zmq_curve_keypair(s_cfg.pub, s_cfg.sec);
        log_warn("no --curve-key-file: fresh key pair, public key %s (the gateway admits it only once it is "
                 "in its allow-list)", s_cfg.pub);
    } else {
        log_info("CurveZMQ: our public key %s (must be in the gateway's allow-list)", s_cfg.pub);
    }
    return 0;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        { "connect", 1, 0, 'c' }, { "slots", 1, 0, 's' }, { "heartbeat-ms", 1, 0, 'b' },
        { "liveness", 1, 0, 'l' }, { "curve-server-key", 1, 0, 'k' }, { "curve-key-file", 1, 0, 'f' },
        { "id", 1, 0, 'i' }, { "job-delay-ms", 1, 0, 'd' }, { "zmq-open-insecure", 0, 0, 'o' },
        { "echo", 0, 0, 'e' }, { "help", 0, 0, 'h' }, { 0, 0, 0, 0 } };
    const char *e;
    int opt;
    unsigned rnd = 0;
    log_init("worker");
    s_cfg.connect = (e = getenv("MBSWEEP_GATEWAY")) && *e ? e : "tcp://127.0.0.1:5555";
    s_cfg.server_key = (e = getenv("MBSWEEP_SERVER_KEY")) && *e ? e : NULL;
    s_cfg.key_file = (e = getenv("MBSWEEP_CURVE_KEY_FILE")) && *e ? e : NULL;
    e = getenv("MBSWEEP_SLOTS");
    s_cfg.auto_slots = !e || !*e || !strcmp(e, "auto");
    s_cfg.slots = s_cfg.auto_slots ? CREDIT_AUTO_MAX : atoi(e);
    s_cfg.delay_ms = (e = getenv("MBSWEEP_JOB_DELAY_MS")) ? atoi(e) : 0;
    s_cfg.open = (e = getenv("MBSWEEP_ZMQ_OPEN_INSECURE")) && !strcmp(e, "1");
    s_cfg.heartbeat_ms = 1000; s_cfg.liveness = 3;
    gethostname(s_cfg.host, sizeof s_cfg.host);
    s_cfg.host[sizeof s_cfg.host - 1] = 0;
    if (getrandom(&rnd, sizeof rnd, 0) != sizeof rnd) rnd = (unsigned)time(NULL);
    snprintf(s_cfg.id, sizeof s_cfg.id, "%s-%d-%04x", s_cfg.host, (int)getpid(), rnd & 0xffff);
    while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (opt) {
        case 'c': s_cfg.connect = optarg; break;
        case 's':
            s_cfg.auto_slots = !strcmp(optarg, "auto");
            s_cfg.slots = s_cfg.auto_slots ? CREDIT_AUTO_MAX : atoi(optarg);
            break;
        case 'b': s_cfg.heartbeat_ms = atoi(optarg); break;
        case 'l': s_cfg.liveness = atoi(optarg); break;
        case 'k': s_cfg.server_key = optarg; break;
        case 'f': s_cfg.key_file = optarg; break;
        case 'i': snprintf(s_cfg.id, sizeof s_cfg.id, "%s", optarg); break;
        case 'd': s_cfg.delay_ms = atoi(optarg); break;
        case 'o': s_cfg.open = 1; break;
        case 'e': s_cfg.echo = 1; break;
        default:
            fprintf(stderr, "usage: worker [--connect tcp://HOST:PORT] [--slots N|auto] [--heartbeat-ms N] [--liveness N]\n"
                            "              [--curve-server-key Z85|FILE --curve-key-file F | --zmq-open-insecure]\n"
                            "              [--id NAME] [--job-delay-ms N]\n"
                            "              [--echo]   benchmark tool: answers every job at once without solving\n");
            return opt == 'h' ? 0 : 2;
        }
    }
    if (s_cfg.slots < 1 || s_cfg.slots > MAX_QUEUE || s_cfg.heartbeat_ms < 50 || s_cfg.liveness < 1) {
        fprintf(stderr, "worker: slots must be 1..%d or auto, heartbeat-ms >= 50, liveness >= 1\n", MAX_QUEUE);
        return 2;
    }
    if (!s_cfg.open && s_keys() != 0) return 2;
    if (s_cfg.open) log_warn("ZeroMQ OPEN (--zmq-open-insecure): no encryption, no authentication");
    if (s_cfg.echo) log_warn("--echo: BENCHMARK TOOL, every job is answered at once with an empty result, "
                             "nothing is solved");
    struct sigaction sa = { .sa_handler = s_on_signal };
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    s_ctx = zmq_ctx_new();
    s_loop();
    zmq_ctx_term(s_ctx);
    log_info("stopped");
    return 0;
}
