/* msg.c - see msg.h. */
#include "msg.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

int msg_send(void *sock, const void *identity, size_t idlen, int cmd,
             const json_t *body, const void *blob, size_t bloblen)
{
    unsigned char head[5] = { 'M', 'B', 'S', MSG_VERSION, (unsigned char)cmd };
    char *text = json_dumps(body, JSON_COMPACT);
    int more = blob ? ZMQ_SNDMORE : 0, rc = -1;
    if (!text) { errno = ENOMEM; return -1; }
    /* identity, header, body, payload; a failed first frame sends nothing */
    if (identity && zmq_send(sock, identity, idlen, ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0) goto out;
    if (zmq_send(sock, head, sizeof head, ZMQ_SNDMORE) < 0) goto out;
    if (zmq_send(sock, text, strlen(text), more) < 0) goto out;
    if (blob && zmq_send(sock, blob, bloblen, 0) < 0) goto out;
    rc = 0;
out:
    free(text);
    return rc;
}

/* Receive the rest of a multipart message and throw it away. */
static void s_drain(void *sock)
{
    int more = 1; size_t sz = sizeof more;
    while (zmq_getsockopt(sock, ZMQ_RCVMORE, &more, &sz) == 0 && more) {
        zmq_msg_t f; zmq_msg_init(&f);
        zmq_msg_recv(&f, sock, 0);
        zmq_msg_close(&f);
    }
}

static int s_more(void *sock)
{
    int more = 0; size_t sz = sizeof more;
    zmq_getsockopt(sock, ZMQ_RCVMORE, &more, &sz);
    return more;
}

int msg_recv(void *sock, int router, msg_t *m, int flags) { return msg_recv_max(sock, router, m, flags, 0); }

int msg_recv_max(void *sock, int router, msg_t *m, int flags, size_t max_frame)
{
    zmq_msg_t f;
    memset(m, 0, sizeof *m);
    zmq_msg_init(&f);
    if (zmq_msg_recv(&f, sock, flags) < 0) { zmq_msg_close(&f); return -1; }
    /* identity frame */
    if (router) {
        m->idlen = zmq_msg_size(&f) < sizeof m->identity ? zmq_msg_size(&f) : sizeof m->identity;
        memcpy(m->identity, zmq_msg_data(&f), m->idlen);
        if (!zmq_msg_more(&f)) { zmq_msg_close(&f); return -2; }
        zmq_msg_close(&f); zmq_msg_init(&f);
        zmq_msg_recv(&f, sock, 0);
    }
    /* who sent it, as the ZAP handler named it (CurveZMQ): a property of
       the frames from the peer (not of the ROUTER's identity frame) */
    const char *user = zmq_msg_gets(&f, "User-Id");
    if (user) snprintf(m->user, sizeof m->user, "%s", user);
    /* header: magic, version, command */
    const unsigned char *h = zmq_msg_data(&f);
    if (zmq_msg_size(&f) != 5 || memcmp(h, "MBS", 3) || h[3] != MSG_VERSION || !zmq_msg_more(&f)) {
        zmq_msg_close(&f); s_drain(sock); return -2;
    }
    m->cmd = h[4];
    zmq_msg_close(&f); zmq_msg_init(&f);
    /* JSON body */
    zmq_msg_recv(&f, sock, 0);
    if (max_frame && zmq_msg_size(&f) > max_frame) { zmq_msg_close(&f); s_drain(sock); return -3; }
    m->body = json_loadb(zmq_msg_data(&f), zmq_msg_size(&f), 0, NULL);
    zmq_msg_close(&f);
    if (!json_is_object(m->body)) { s_drain(sock); msg_clear(m); return -2; }
    /* optional payload */
    if (s_more(sock)) {
        zmq_msg_init(&f);
        zmq_msg_recv(&f, sock, 0);
        if (max_frame && zmq_msg_size(&f) > max_frame) {
            zmq_msg_close(&f); s_drain(sock); msg_clear(m); return -3;
        }
        m->bloblen = zmq_msg_size(&f);
        m->blob = malloc(m->bloblen + 1);
        memcpy(m->blob, zmq_msg_data(&f), m->bloblen);
        ((char *)m->blob)[m->bloblen] = 0; /* text payloads are terminated */
        zmq_msg_close(&f);
        s_drain(sock);
    }
    return 0;
}

void msg_clear(msg_t *m)
{
    json_decref(m->body); m->body = NULL;
    free(m->blob); m->blob = NULL; m->bloblen = 0;
}

void msg_identity_str(const unsigned char *id, size_t len, char *out, size_t size)
{
    static const char hex[] = "0123456789abcdef";
    int printable = len > 0;
    for (size_t i = 0; i < len; i++) if (id[i] < 33 || id[i] > 126) printable = 0;
    size_t k = 0;
    for (size_t i = 0; i < len && k + 3 < size; i++) {
        if (printable) out[k++] = (char)id[i];
        else { out[k++] = hex[id[i] >> 4]; out[k++] = hex[id[i] & 15]; }
    }
    out[k] = 0;
}

void msg_put_f64le(unsigned char *dst, const double *src, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t u; memcpy(&u, &src[i], 8);
        for (int b = 0; b < 8; b++) dst[8 * i + b] = (unsigned char)(u >> (8 * b));
    }
}

void msg_get_f64le(double *dst, const unsigned char *src, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t u = 0;
        for (int b = 0; b < 8; b++) u |= (uint64_t)src[8 * i + b] << (8 * b);
        memcpy(&dst[i], &u, 8);
    }
}
