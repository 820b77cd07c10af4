/*
 * dispatch_auth.c - the ZAP handler of the dispatcher's CURVE socket and its
 * allow-list of worker public keys (see dispatch_auth.h).
 */
#include "dispatch_auth.h"
#include "svc/log.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <zmq.h>

#define MAX_KEYS 4096

static pthread_t s_thread;
static atomic_int s_run, s_nkeys_pub;
static atomic_long s_denied;
static void *s_ctx;
static const char *s_file;
static unsigned char (*s_keys)[32];  /* (s_nkeys x 32) binary public keys */
static int s_nkeys;
static struct stat s_seen;           /* the file as last loaded          */
static time_t s_last_log;            /* of a refusal                     */

long ds_auth_denied(void) { return atomic_load(&s_denied); }
int ds_auth_keys(void) { return atomic_load(&s_nkeys_pub); }

int ds_read_key_file(const char *file, char *pub, char *secret)
{
    char line[256];
    FILE *f = fopen(file, "r");
    pub[0] = secret[0] = 0;
    if (!f) return -1;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "public ", 7)) sscanf(line + 7, "%40s", pub);
        if (!strncmp(line, "secret ", 7)) sscanf(line + 7, "%40s", secret);
    }
    fclose(f);
    return 0;
}

/* (Re)load the allow-list when the file changed.  A file that cannot be
 * read keeps the previous list (logged once per change). */
static void s_load(void)
{
    struct stat st;
    if (stat(s_file, &st) != 0) {
        if (s_seen.st_mtime != 0) log_error("dispatch: allow-list %s unreadable: keeping %d key(s)", s_file, s_nkeys);
        s_seen.st_mtime = 0;
        return;
    }
    if (st.st_mtim.tv_sec == s_seen.st_mtim.tv_sec && st.st_mtim.tv_nsec == s_seen.st_mtim.tv_nsec &&
        st.st_size == s_seen.st_size && st.st_ino == s_seen.st_ino) return;
    FILE *f = fopen(s_file, "r");
    if (!f) return;
    unsigned char (*keys)[32] = calloc(MAX_KEYS, 32);
    int n = 0, bad = 0;
    char line[512], tok[64];
    while (fgets(line, sizeof line, f)) {
        const char *p = line + strspn(line, " \t");
        if (!strncmp(p, "public ", 7)) p += 7 + strspn(p + 7, " \t");
        /* one key of 40 Z85 characters, then anything; Z85 has '#', so a
           line is a comment only when it does not start with a key */
        if (sscanf(p, "%63s", tok) == 1 && strlen(tok) == 40 && n < MAX_KEYS && zmq_z85_decode(keys[n], tok)) {
            n++;
            continue;
        }
        if (*p != '#' && *p != '\n' && *p != 0) bad++;
    }
    fclose(f);
    free(s_keys);
    s_keys = keys; s_nkeys = n; s_seen = st;
    atomic_store(&s_nkeys_pub, n);
    log_info("dispatch: allow-list %s: %d worker key(s)%s", s_file, n, bad ? " (some lines not keys: ignored)" : "");
}

static int s_allowed(const unsigned char *key)
{
    for (int i = 0; i < s_nkeys; i++) if (!memcmp(s_keys[i], key, 32)) return 1;
    return 0;
}

/* Receive one frame into buf (truncated, NUL-terminated); its size. */
static int s_frame(void *sock, char *buf, size_t size, int *more)
{
    zmq_msg_t f;
    zmq_msg_init(&f);
    int n = zmq_msg_recv(&f, sock, 0);
    if (n >= 0) {
        size_t k = (size_t)n < size - 1 ? (size_t)n : size - 1;
        memcpy(buf, zmq_msg_data(&f), k);
        buf[k] = 0;
    }
    *more = zmq_msg_more(&f);
    zmq_msg_close(&f);
    return n;
}

/* Answer one ZAP request: version, request id, domain, address, identity,
 * mechanism, credentials (CURVE: the client's 32-byte public key). */
static void s_answer(void *sock)
{
    char frame[7][256];
    int len[7] = { 0 }, more = 1, nf = 0;
    while (more && nf < 7) { len[nf] = s_frame(sock, frame[nf], sizeof frame[nf], &more); nf++; }
    while (more) { char skip[8]; s_frame(sock, skip, sizeof skip, &more); }
    s_load();
    int ok = nf == 7 && !strcmp(frame[0], "1.0") && !strcmp(frame[5], "CURVE") && len[6] == 32 &&
             s_allowed((const unsigned char *)frame[6]);
    char user[41] = "";
    if (nf == 7 && len[6] == 32) zmq_z85_encode(user, (const uint8_t *)frame[6], 32);
    /* counted always, logged at most once a second (a refused worker
       reconnects every few seconds, an attacker as often as it likes) */
    if (!ok) atomic_fetch_add(&s_denied, 1);
    if (!ok && time(NULL) != s_last_log) {
        s_last_log = time(NULL);
        log_warn("dispatch: connection from %s refused: %s %s", nf > 3 ? frame[3] : "?",
                 nf > 5 && !strcmp(frame[5], "CURVE") ? "key not in the allow-list:" : "not CURVE", user);
    }
    /* version, request id (as received), status, text, user id, metadata */
    zmq_send(sock, "1.0", 3, ZMQ_SNDMORE);
    zmq_send(sock, frame[1], nf > 1 ? (size_t)(len[1] < 255 ? len[1] : 255) : 0, ZMQ_SNDMORE);
    zmq_send(sock, ok ? "200" : "400", 3, ZMQ_SNDMORE);
    zmq_send(sock, ok ? "OK" : "not allowed", ok ? 2 : 11, ZMQ_SNDMORE);
    zmq_send(sock, user, ok ? strlen(user) : 0, ZMQ_SNDMORE);
    zmq_send(sock, "", 0, 0);
}

static void *s_main(void *sock)
{
    while (atomic_load(&s_run)) {
        zmq_pollitem_t it = { sock, 0, ZMQ_POLLIN, 0 };
        if (zmq_poll(&it, 1, 200) > 0 && (it.revents & ZMQ_POLLIN)) s_answer(sock);
    }
    zmq_close(sock);
    return NULL;
}

int ds_auth_start(void *ctx, const char *allow_file)
{
    s_ctx = ctx; s_file = allow_file;
    memset(&s_seen, 0, sizeof s_seen);
    s_load();
    if (s_seen.st_mtime == 0 && s_nkeys == 0) { log_error("dispatch: cannot read the allow-list %s", allow_file); return -1; }
    if (s_nkeys == 0) log_warn("dispatch: the allow-list %s has no key yet: no worker can connect", allow_file);
    void *sock = zmq_socket(s_ctx, ZMQ_REP);
    int zero = 0;
    zmq_setsockopt(sock, ZMQ_LINGER, &zero, sizeof zero);
    if (zmq_bind(sock, "inproc://zeromq.zap.01") != 0) {
        log_error("dispatch: ZAP handler: %s", zmq_strerror(zmq_errno()));
        zmq_close(sock);
        return -1;
    }
    atomic_store(&s_run, 1);
    pthread_create(&s_thread, NULL, s_main, sock);
    return 0;
}

void ds_auth_stop(void)
{
    if (!atomic_exchange(&s_run, 0)) return;
    pthread_join(s_thread, NULL);
    free(s_keys); s_keys = NULL; s_nkeys = 0;
}
