/*
 * zmq_peer.c - build/tests/zmq_peer: a hostile (or careless) worker for
 * tests/integration/test_zmq_security.sh.  It speaks the dispatcher's
 * protocol (svc/msg.h) with whatever keys it is given and reports what the
 * gateway let it do.
 *
 *   zmq_peer ENDPOINT [--server-key FILE] [--key-file FILE | --fresh-key] [--id NAME] ACTION ...
 *     grab SECONDS        READY with 8 slots; prints "jobs N", the JOBs received
 *     forge JOB ATTEMPT   READY, then FAILED and RESULT for that job; prints "sent"
 *     big BYTES           READY, then a HEARTBEAT whose JSON frame is BYTES long
 *     hold SECONDS        READY with 1 slot; keeps the first JOB, never answers,
 *                         sends HEARTBEATs listing it; prints "job ID ATTEMPT"
 *                         and, if it came, "cancel ID"
 *     poison SECONDS      READY with 8 slots; collects JOBs for SECONDS (or
 *                         until 8 came), then answers them all at once with
 *                         empty RESULTs, the first with a metric the database
 *                         cannot store ("steps": "many"); prints "poisoned ID"
 *                         and "answered N"
 *     late SECONDS        READY with 1 slot; takes the first JOB, prints "job ID
 *                         ATTEMPT", waits 1 s (the test kills and restarts the
 *                         gateway meanwhile), sends an empty RESULT for it on
 *                         the same socket (queued until it reconnects), then
 *                         listens until SECONDS are up, answering WHO with
 *                         READY; prints "sent"
 *     junk                READY, then 5 malformed messages (one frame, wrong
 *                         magic, wrong version, JSON that does not parse, a
 *                         JSON array) and 8 well-formed but invalid ones (65
 *                         jobs in hand, 0 slots, a RESULT whose payload does
 *                         not match nsample x channels, one with the largest
 *                         nsample, a FAILED whose attempt is a string, a READY
 *                         listing job -1, an unknown command, poses of 0
 *                         frames, contact points without poses), then a
 *                         valid HEARTBEAT; prints "malformed 5" and "invalid 9"
 * Without --server-key it connects without CurveZMQ.  Every wait is bounded.
 */
#include "svc/msg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zmq.h>

static double s_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* The value of "public " or "secret " in a key file, into out (41 bytes). */
static int s_key(const char *file, const char *which, char *out)
{
    char line[256];
    FILE *f = fopen(file, "r");
    out[0] = 0;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, which, strlen(which))) sscanf(line + strlen(which), "%40s", out);
    if (f) fclose(f);
    return strlen(out) == 40 ? 0 : -1;
}

/* A message of raw frames: header bytes (magic, version, command) and a body text. */
static void s_raw(void *sock, const char *magic, int version, int cmd, const char *body)
{
    unsigned char hdr[5] = { (unsigned char)magic[0], (unsigned char)magic[1], (unsigned char)magic[2],
                             (unsigned char)version, (unsigned char)cmd };
    zmq_send(sock, hdr, 5, ZMQ_SNDMORE);
    zmq_send(sock, body, strlen(body), 0);
}

static void s_ready(void *sock, int slots, json_t *jobs)
{
    json_t *b = json_pack("{s:s,s:i,s:i,s:s,s:o}", "host", "zmq-peer", "pid", 1, "slots", slots,
                          "version", "zmq_peer/1", "jobs", jobs ? jobs : json_array());
    msg_send(sock, NULL, 0, MSG_READY, b, NULL, 0);
    json_decref(b);
}

/* Receive for up to `seconds`; counts JOBs, remembers the first one. */
static int s_listen(void *sock, double seconds, long long *job, int *attempt, long long *cancelled)
{
    int jobs = 0;
    double end = s_now() + seconds;
    while (s_now() < end) {
        zmq_pollitem_t it = { sock, 0, ZMQ_POLLIN, 0 };
        if (zmq_poll(&it, 1, 100) <= 0) continue;
        msg_t m;
        if (msg_recv(sock, 0, &m, ZMQ_DONTWAIT) != 0) { msg_clear(&m); continue; }
        if (m.cmd == MSG_JOB) {
            if (jobs++ == 0 && job) {
                *job = json_integer_value(json_object_get(m.body, "job"));
                *attempt = (int)json_integer_value(json_object_get(m.body, "attempt"));
            }
        } else if (m.cmd == MSG_CANCEL && cancelled) {
            *cancelled = json_integer_value(json_object_get(m.body, "job"));
        } else if (m.cmd == MSG_WHO) {
            s_ready(sock, 1, NULL);
        }
        msg_clear(&m);
        if (job && *job && seconds > 1e8) break;
    }
    return jobs;
}

int main(int argc, char **argv)
{
    const char *endpoint = argc > 1 ? argv[1] : NULL, *server_key = NULL, *key_file = NULL, *id = "zmq-peer";
    int fresh = 0, a = 2;
    for (; a < argc && !strncmp(argv[a], "--", 2); a++) {
        if (!strcmp(argv[a], "--server-key") && a + 1 < argc) server_key = argv[++a];
        else if (!strcmp(argv[a], "--key-file") && a + 1 < argc) key_file = argv[++a];
        else if (!strcmp(argv[a], "--fresh-key")) fresh = 1;
        else if (!strcmp(argv[a], "--id") && a + 1 < argc) id = argv[++a];
        else { fprintf(stderr, "zmq_peer: unknown option %s\n", argv[a]); return 2; }
    }
    if (!endpoint || a >= argc) { fprintf(stderr, "usage: zmq_peer ENDPOINT [options] ACTION ...\n"); return 2; }
    const char *action = argv[a];
    void *ctx = zmq_ctx_new(), *sock = zmq_socket(ctx, ZMQ_DEALER);
    int zero = 0;
    zmq_setsockopt(sock, ZMQ_LINGER, &zero, sizeof zero);
    zmq_setsockopt(sock, ZMQ_ROUTING_ID, id, strlen(id));
    if (server_key) {
        char spub[41], pub[41], sec[41];
        if (s_key(server_key, "public ", spub)) { fprintf(stderr, "zmq_peer: no key in %s\n", server_key); return 2; }
        if (fresh || !key_file) zmq_curve_keypair(pub, sec);
        else if (s_key(key_file, "public ", pub) || s_key(key_file, "secret ", sec)) return 2;
        zmq_setsockopt(sock, ZMQ_CURVE_SERVERKEY, spub, 40);
        zmq_setsockopt(sock, ZMQ_CURVE_PUBLICKEY, pub, 40);
        zmq_setsockopt(sock, ZMQ_CURVE_SECRETKEY, sec, 40);
    }
    zmq_connect(sock, endpoint);
    int rc = 0;
    if (!strcmp(action, "grab") && a + 1 < argc) {
        s_ready(sock, 8, NULL);
        printf("jobs %d\n", s_listen(sock, atof(argv[a + 1]), NULL, NULL, NULL));
    } else if (!strcmp(action, "forge") && a + 2 < argc) {
        long long job = atoll(argv[a + 1]);
        int attempt = atoi(argv[a + 2]);
        s_ready(sock, 1, NULL);
        s_listen(sock, 0.5, NULL, NULL, NULL);
        json_t *f = json_pack("{s:I,s:i,s:s,s:b}", "job", (json_int_t)job, "attempt", attempt,
                              "error", "forged failure", "retry", 0);
        json_t *r = json_pack("{s:I,s:i,s:[],s:i,s:{},s:{}}", "job", (json_int_t)job, "attempt", attempt,
                              "channels", "nsample", 0, "responses", "metrics");
        msg_send(sock, NULL, 0, MSG_FAILED, f, NULL, 0);
        msg_send(sock, NULL, 0, MSG_RESULT, r, NULL, 0);
        json_decref(f); json_decref(r);
        s_listen(sock, 1.0, NULL, NULL, NULL);
        printf("sent\n");
    } else if (!strcmp(action, "big") && a + 1 < argc) {
        size_t n = (size_t)atol(argv[a + 1]);
        s_ready(sock, 1, NULL);
        s_listen(sock, 0.5, NULL, NULL, NULL);
        /* {"jobs":[],"pad":"xxx...x"} of exactly n bytes */
        char *text = malloc(n + 1);
        const char *head = "{\"jobs\":[],\"pad\":\"";
        memset(text, 'x', n);
        memcpy(text, head, strlen(head));
        memcpy(text + n - 2, "\"}", 2);
        unsigned char hdr[5] = { 'M', 'B', 'S', MSG_VERSION, MSG_HEARTBEAT };
        zmq_send(sock, hdr, 5, ZMQ_SNDMORE);
        zmq_send(sock, text, n, 0);
        free(text);
        s_listen(sock, 1.0, NULL, NULL, NULL);
        printf("sent\n");
    } else if (!strcmp(action, "hold") && a + 1 < argc) {
        long long job = 0, cancelled = 0;
        int attempt = 0;
        double end = s_now() + atof(argv[a + 1]);
        s_ready(sock, 1, NULL);
        while (!job && s_now() < end) s_listen(sock, 0.2, &job, &attempt, NULL);
        if (job) printf("job %lld %d\n", job, attempt);
        fflush(stdout);
        /* heartbeats naming the job, every 200 ms, until the time is up */
        while (job && s_now() < end && !cancelled) {
            json_t *h = json_pack("{s:[[I,i]]}", "jobs", (json_int_t)job, attempt);
            msg_send(sock, NULL, 0, MSG_HEARTBEAT, h, NULL, 0);
            json_decref(h);
            s_listen(sock, 0.2, NULL, NULL, &cancelled);
        }
        if (cancelled) printf("cancel %lld\n", cancelled);
        rc = job ? 0 : 1;
    } else if (!strcmp(action, "poison") && a + 1 < argc) {
        /* jobs in hand: collected first, then answered back to back so that
           the gateway writes them in one batch */
        long long ids[8]; int att[8], n = 0;
        double end = s_now() + atof(argv[a + 1]);
        s_ready(sock, 8, NULL);
        while (n < 8 && s_now() < end) {
            zmq_pollitem_t it = { sock, 0, ZMQ_POLLIN, 0 };
            if (zmq_poll(&it, 1, 100) <= 0) continue;
            msg_t m;
            if (msg_recv(sock, 0, &m, ZMQ_DONTWAIT) == 0 && m.cmd == MSG_JOB) {
                ids[n] = json_integer_value(json_object_get(m.body, "job"));
                att[n++] = (int)json_integer_value(json_object_get(m.body, "attempt"));
            }
            msg_clear(&m);
        }
        for (int k = 0; k < n; k++) {
            json_t *r = json_pack("{s:I,s:i,s:[],s:i,s:{},s:{}}", "job", (json_int_t)ids[k], "attempt", att[k],
                                  "channels", "nsample", 0, "responses", "metrics");
            if (k == 0) json_object_set_new(json_object_get(r, "metrics"), "steps", json_string("many"));
            msg_send(sock, NULL, 0, MSG_RESULT, r, NULL, 0);
            json_decref(r);
        }
        if (n) printf("poisoned %lld\n", ids[0]);
        printf("answered %d\n", n);
        s_listen(sock, 1.0, NULL, NULL, NULL);
        rc = n ? 0 : 1;
    } else if (!strcmp(action, "late") && a + 1 < argc) {
        long long job = 0;
        int attempt = 0;
        double end = s_now() + atof(argv[a + 1]);
        s_ready(sock, 1, NULL);
        while (!job && s_now() < end) s_listen(sock, 0.2, &job, &attempt, NULL);
        if (job) {
            printf("job %lld %d\n", job, attempt);
            fflush(stdout);
            struct timespec one = { 1, 0 };
            nanosleep(&one, NULL);
            json_t *r = json_pack("{s:I,s:i,s:[],s:i,s:{},s:{}}", "job", (json_int_t)job, "attempt", attempt,
                                  "channels", "nsample", 0, "responses", "metrics");
            msg_send(sock, NULL, 0, MSG_RESULT, r, NULL, 0);
            json_decref(r);
            printf("sent\n");
            fflush(stdout);
            s_listen(sock, end - s_now(), NULL, NULL, NULL);
        }
        rc = job ? 0 : 1;
    } else if (!strcmp(action, "junk")) {
        s_ready(sock, 1, NULL);
        s_listen(sock, 0.5, NULL, NULL, NULL);
        /* malformed: the frames themselves */
        zmq_send(sock, "hello", 5, 0);
        s_raw(sock, "MBX", MSG_VERSION, MSG_HEARTBEAT, "{}");
        s_raw(sock, "MBS", MSG_VERSION + 1, MSG_HEARTBEAT, "{}");
        s_raw(sock, "MBS", MSG_VERSION, MSG_HEARTBEAT, "{\"jobs\": [");
        s_raw(sock, "MBS", MSG_VERSION, MSG_HEARTBEAT, "[1, 2]");
        /* invalid: well-formed, values out of their bounds */
        char many[2048] = "{\"jobs\": [";
        for (int k = 1; k <= 65; k++)
            snprintf(many + strlen(many), sizeof many - strlen(many), "%s[%d, 1]", k > 1 ? "," : "", k);
        strcat(many, "]}");
        s_raw(sock, "MBS", MSG_VERSION, MSG_HEARTBEAT, many);
        s_raw(sock, "MBS", MSG_VERSION, MSG_HEARTBEAT, "{\"slots\": 0}");
        s_raw(sock, "MBS", MSG_VERSION, MSG_RESULT, "{\"job\": 1, \"attempt\": 1, \"channels\": [\"a\"], "
              "\"nsample\": 3, \"responses\": {}, \"metrics\": {}}");
        s_raw(sock, "MBS", MSG_VERSION, MSG_RESULT, "{\"job\": 1, \"attempt\": 1, \"channels\": [\"a\", \"b\"], "
              "\"nsample\": 1099511627776, \"responses\": {}, \"metrics\": {}}");
        s_raw(sock, "MBS", MSG_VERSION, MSG_FAILED, "{\"job\": 1, \"attempt\": \"1\", \"error\": \"x\"}");
        s_raw(sock, "MBS", MSG_VERSION, MSG_READY, "{\"slots\": 1, \"jobs\": [[-1, 1]]}");
        s_raw(sock, "MBS", MSG_VERSION, 99, "{}");
        s_raw(sock, "MBS", MSG_VERSION, MSG_RESULT, "{\"job\": 1, \"attempt\": 1, \"channels\": [], \"nsample\": 0, "
              "\"responses\": {}, \"metrics\": {}, \"poses\": {\"bodies\": [], \"npose\": 3, \"nframe\": 0}}");
        s_raw(sock, "MBS", MSG_VERSION, MSG_RESULT, "{\"job\": 1, \"attempt\": 1, \"channels\": [], \"nsample\": 0, "
              "\"responses\": {}, \"metrics\": {}, \"contacts\": {\"nrec\": 0, \"nframe\": 0}}");
        /* and a valid one: the connection still serves */
        s_raw(sock, "MBS", MSG_VERSION, MSG_HEARTBEAT, "{\"jobs\": []}");
        s_listen(sock, 1.0, NULL, NULL, NULL);
        printf("malformed 5\ninvalid 9\n");
    } else {
        fprintf(stderr, "zmq_peer: unknown action %s\n", action);
        rc = 2;
    }
    zmq_close(sock);
    zmq_ctx_term(ctx);
    return rc;
}
