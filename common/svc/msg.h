/*
 * msg.h - the messages between gateway (ROUTER) and workers (DEALER).
 *
 * Wire format, version 1, one ZeroMQ multipart message:
 *   frame 0   5 bytes: 'M' 'B' 'S' version command
 *   frame 1   a JSON object (the fields below)
 *   frame 2   optional binary payload
 * The ROUTER side sees the worker's identity as an extra first frame.
 *
 *   worker -> gateway
 *     READY      {host, pid, slots, version, jobs: [[id, attempt], ...]}
 *     HEARTBEAT  {jobs: [[id, attempt], ...], slots?}    (jobs in hand; the credit
 *                wanted now, when the worker adapts it: worker/main.c)
 *     RESULT     {job, attempt, channels, nsample, responses, metrics,
 *                 poses?: {bodies, npose, nframe}, contacts?: {nrec, nframe}}
 *                + payload: samples, float64 little-endian, row-major,
 *                  nsample x (1 + nchannel), time first; then, when
 *                  `poses` is present, the body poses' frames, float64,
 *                  nframe x (1 + nbodies x npose), time first (mbs.h);
 *                  then, when `contacts` is present (only with poses),
 *                  nrec contact point records of MBS_CONTACT_REC float64
 *                  each (frame, pair, body, other body, point, force: mbs.h), those
 *                  of the first contacts.nframe frames
 *     FAILED     {job, attempt, error, retry}
 *   gateway -> worker
 *     JOB        {job, attempt, model, parameters, solver, responses, time_limit,
 *                 max_frame (the gateway's --zmq-max-message: a larger RESULT
 *                 payload is failed by the worker with the reason)}
 *                + payload: the mechanism JSON text
 *     PING       {}
 *     CANCEL     {job, attempt}
 *     WHO        {}     (the gateway does not know this peer: send READY)
 *
 * With CurveZMQ the gateway's ZAP handler admits only the public keys of its
 * allow-list and names each connection by its key (the "User-Id" property
 * of every message, copied into msg_t.user).
 */
#ifndef SVC_MSG_H
#define SVC_MSG_H

#include <stddef.h>
#include <jansson.h>

#define MSG_VERSION 1

enum {
    MSG_READY = 'R', MSG_HEARTBEAT = 'H', MSG_RESULT = 'D', MSG_FAILED = 'F',
    MSG_JOB = 'J', MSG_PING = 'P', MSG_CANCEL = 'C', MSG_WHO = 'W'
};

typedef struct {
    unsigned char identity[256]; /* ROUTER only                          */
    size_t idlen;
    char user[48];               /* ZAP user id (worker's public key, Z85), "" without */
    int cmd;
    json_t *body;                /* owned                                */
    void *blob;                  /* owned, NULL when absent              */
    size_t bloblen;
} msg_t;

/* Send one message.  identity: the peer on a ROUTER, NULL on a DEALER.
 * Returns 0, or -1 with errno (EAGAIN, EHOSTUNREACH with ROUTER_MANDATORY). */
int msg_send(void *sock, const void *identity, size_t idlen, int cmd,
             const json_t *body, const void *blob, size_t bloblen);

/* Receive one message (flags: 0 or ZMQ_DONTWAIT).  router: 1 if the socket
 * prefixes the identity.  Returns 0, -1 on error/EAGAIN (errno set), or -2
 * for a malformed message (already consumed and dropped). */
int msg_recv(void *sock, int router, msg_t *m, int flags);

/* The same, dropping a message with a frame longer than max_frame bytes
 * (0: no limit): returns -3 for it (consumed, nothing allocated). */
int msg_recv_max(void *sock, int router, msg_t *m, int flags, size_t max_frame);

/* Free what msg_recv allocated. */
void msg_clear(msg_t *m);

/* Printable form of an identity (hex when not printable ASCII). */
void msg_identity_str(const unsigned char *id, size_t len, char *out, size_t size);

/* Copy doubles to/from little-endian bytes. */
void msg_put_f64le(unsigned char *dst, const double *src, size_t n);
void msg_get_f64le(double *dst, const unsigned char *src, size_t n);

#endif
