/*
 * dispatch_auth.h - who may talk to the dispatcher's ROUTER socket.
 *
 * CurveZMQ authenticates both ends of every connection; the ZAP handler
 * (ZeroMQ Authentication Protocol, RFC 27) decides which clients are let in:
 * only those whose public key is in the allow-list file.  It runs on its own
 * thread, answering libzmq's requests on inproc://zeromq.zap.01 of the
 * dispatcher's context, and names every admitted connection by its public
 * key (Z85), which libzmq attaches to each message as "User-Id".
 *
 * Allow-list file: one worker public key (40 Z85 characters) per line,
 * optionally after the word "public" (so a worker's key file's public line
 * can be appended as it is); anything after the key, and lines that do not
 * start with a key (comments: '#'), are ignored.  The file is read again when it changes (size or mtime),
 * so workers can be added or removed without restarting the gateway.
 */
#ifndef GW_DISPATCH_AUTH_H
#define GW_DISPATCH_AUTH_H

/* Load the allow-list and start the ZAP handler on ctx; must run before the
 * CURVE socket binds.  0, or -1 (logged) if the file cannot be read or has
 * no key. */
int ds_auth_start(void *ctx, const char *allow_file);
/* Stop the handler and close its socket (before zmq_ctx_term). */
void ds_auth_stop(void);
/* Connections refused since start (unknown key or not CURVE). */
long ds_auth_denied(void);
/* Keys in the allow-list as last loaded. */
int ds_auth_keys(void);

/* Read a CurveZMQ key file ("public Z85" / "secret Z85" lines): the keys
 * into pub/secret (41 bytes each, NUL-terminated; "" for a missing line).
 * 0, or -1 if the file cannot be opened. */
int ds_read_key_file(const char *file, char *pub, char *secret);

#endif
