/*
 * gw.h - the gateway's internal interface: configuration, the request object
 * handed to endpoint handlers, reply helpers, the per-thread database
 * connection, request statistics and the dispatcher.
 *
 * Threading (see docs/service.md): libmicrohttpd runs an internal thread
 * pool (MHD_USE_INTERNAL_POLLING_THREAD + MHD_OPTION_THREAD_POOL_SIZE); a
 * handler runs on a pool thread and does only bounded database work through
 * that thread's own connection, each statement capped by statement_timeout.
 * The dispatcher (ZeroMQ ROUTER) is one more thread with its own connection.
 */
#ifndef GW_H
#define GW_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>
#include <libpq-fe.h>
#include <microhttpd.h>

/* ---- configuration ---------------------------------------------------------- */

typedef struct {
    const char *bind_addr;       /* HTTP address, default 127.0.0.1         */
    int port;                    /* default 8080                            */
    const char *db;              /* libpq conninfo                          */
    const char *token;           /* API token for writes                    */
    int no_auth;                 /* --no-auth: writes without a token       */
    int token_reads;             /* reads need the token too (API but health) */
    const char *zmq_bind;        /* default tcp://127.0.0.1:5555            */
    const char *curve_secret_file; /* CurveZMQ server key file              */
    const char *curve_allow_file;  /* allow-list of worker public keys      */
    int zmq_open;                /* --zmq-open-insecure: no CurveZMQ        */
    size_t zmq_max_message;      /* bytes per frame from a worker, 0 = any  */
    const char *www;             /* static files                            */
    int threads;                 /* HTTP thread pool size                   */
    int statement_timeout_ms;    /* per statement of an HTTP handler        */
    size_t max_body;             /* bytes, 413 above                        */
    int max_depth;               /* JSON nesting, 400 above                 */
    long job_limit;              /* jobs per sweep, 422 above               */
    int max_attempts;            /* default per job                         */
    double lease_seconds;        /* job lease, extended by heartbeats       */
    int heartbeat_ms;            /* ping interval both ways                 */
    int liveness;                /* missed heartbeats before a worker is dead */
    double backoff_seconds;      /* first retry delay (doubles per attempt) */
    double job_time_limit;       /* seconds per job sent to workers         */
    int dispatch;                /* 0: HTTP only (--no-dispatch)            */
    int warm;                    /* 0: --no-warm (warm.c)                   */
    int conn_timeout;            /* seconds of an idle HTTP connection       */
    char gateway_id[96];         /* host:pid, recorded with workers         */
} gw_config;

extern gw_config gw_cfg;

/* ---- limits on what a request may expand to (docs/service.md, "Limits") ---- */

#define GW_NUM_MAX 1e15              /* magnitude of any number in a body     */
#define GW_MAX_JSON_VALUES 500000L   /* values of one JSON body (pre-scan)    */
#define GW_MAX_JSON_CONTAINERS 120000L /* objects + arrays of one JSON body   */
#define GW_MAX_QUERY_PARAMS 64       /* query parameters, 414 above           */
#define GW_MAX_URI 4096              /* bytes of the request target, 414 above */
#define GW_LARGE_BODY (1u << 20)     /* bodies above this share ...           */
#define GW_LARGE_SLOTS 2             /* ... this many slots (503 when full)   */
#define GW_MAX_BODIES 10000          /* bodies of a model checked over HTTP   */
#define GW_CHECK_SLOTS 2             /* model checks running at once (503)    */

/* Every number of v finite and |x| <= GW_NUM_MAX (the integer at
 * /design/seed exempt).  ptr: the pointer of v on entry (a buffer of psz,
 * "" for the root); on failure -1 with ptr the offending value's pointer. */
int gw_json_numbers_ok(const json_t *v, char *ptr, size_t psz);
/* The numeric solver options of `solver` ({option: value or [values]})
 * within their documented ranges; -1 with ptr (under base) and msg set. */
int gw_solver_ranges_ok(const json_t *solver, const char *base, char *ptr, size_t psz, char *msg, size_t msz);

/* ---- requests ---------------------------------------------------------------- */

#define GW_MAX_PARAMS 4

typedef struct gw_req {
    struct MHD_Connection *conn;
    const char *method, *url;
    char *param[GW_MAX_PARAMS];  /* path segments matched by '*' (owned)     */
    int nparam;
    const char *body; size_t body_len;
    json_t *json;                /* parsed body of a JSON POST (owned)       */
    /* reply */
    int status;
    char *out; size_t out_len;   /* owned, malloc'd                          */
    const char *ctype;
    const char *allow;           /* Allow header for 405                      */
    /* a streamed reply instead of out (results.csv): MHD calls reader until
       it ends; free_cls releases cls (set by the handler with status, ctype) */
    ssize_t (*reader)(void *cls, uint64_t pos, char *buf, size_t max);
    void (*free_cls)(void *cls);
    void *reader_cls;
    int gzipped;                 /* out is gzip already (a cached body)      */
} gw_req;

typedef int (*gw_handler)(gw_req *r);

typedef struct {
    const char *method;          /* GET, POST                                */
    const char *pattern;         /* "/api/v1/sweeps/ * /cancel" without spaces */
    gw_handler fn;
    int write;                   /* needs the API token                     */
    int json_body;               /* needs a JSON body                       */
    const char *label;           /* for /metrics                            */
} gw_route;

extern const gw_route gw_routes[];
extern const int gw_nroutes;

/* Reply helpers: each sets r->status/out/ctype and returns 0. */
int gw_reply_json(gw_req *r, int status, json_t *body /* stolen */);
int gw_reply_text(gw_req *r, int status, const char *ctype, char *buf /* stolen */, size_t len);
int gw_reply_error(gw_req *r, int status, const char *code, const char *message, json_t *details /* stolen */);
/* 503 for a failed database call (the message is logged, not shown). */
int gw_reply_db_error(gw_req *r, PGresult *res);

/* Query-string value or NULL. */
const char *gw_query(gw_req *r, const char *key);
/* Integer query value within [lo, hi], default when absent; -1 on bad input
 * (and a 400 reply already set). */
int gw_query_int(gw_req *r, const char *key, long def, long lo, long hi, long *out);

/* ---- the sweep view made as its sweep finishes (warm.c) ------------------------------ */
#define GW_COLUMNS_MAX 200000        /* /columns: jobs per request at most        */
#define GW_COLUMNS_PART 50000        /* the front end's first part (web/src/Sweep.jsx CHUNK) */
#define GW_WARM_MIN_JOBS 20000       /* sweeps made at their end: from this many jobs */
#define GW_WARM_PERIOD_MS 2000
int gw_warm_start(void);
void gw_warm_stop(void);
unsigned long long gw_warm_made(void);
/* Make and keep (memory, table reply_cache) a finished sweep's /columns page;
 * 0, or -1 when it was not answered 200. */
int gw_columns_warm(const char *sweep, long after, long limit);

/* ---- compression (gzip.c) ------------------------------------------------------------ */
#define GW_GZIP_MIN 8192             /* bytes: smaller answers are sent as they are */
/* Whether the request's Accept-Encoding allows gzip. */
int gw_accepts_gzip(struct MHD_Connection *c);
/* buf compressed (gzip format; caller frees), NULL on failure. */
char *gw_gzip(const char *buf, size_t len, size_t *out_len);
/* gzip data decompressed (caller frees), NULL on failure or beyond max bytes. */
char *gw_gunzip(const char *buf, size_t len, size_t max, size_t *out_len);
/* Wrap r's streamed reply (reader, reader_cls, free_cls) so that it is sent
 * gzip-compressed; 0 or -1 (r unchanged). */
int gw_gzip_reader(gw_req *r);

/* ---- database ------------------------------------------------------------------- */

/* The calling thread's connection (created on first use); NULL if the
 * database cannot be reached. */
PGconn **gw_db(void);
/* Close every per-thread connection (at shutdown). */
void gw_db_close_all(void);

/* ---- HTTP server ------------------------------------------------------------------ */

struct MHD_Daemon *gw_http_start(void);
/* Append the request counters and latency histogram as Prometheus text. */
void gw_stats_write(FILE *f);

/* ---- static files ---------------------------------------------------------------- */
/* The file for url (NULL: 404); its .gz variant when accepts_gzip and the
 * build made one. */
struct MHD_Response *gw_static(const char *url, int accepts_gzip, int *status);

/* ---- dispatcher --------------------------------------------------------------------- */

int gw_dispatch_start(void);
void gw_dispatch_stop(void);
/* Ask the dispatcher to look for queued jobs now (new sweep, resume). */
void gw_dispatch_kick(void);
/* Workers currently connected to this gateway (alive by heartbeat, after
 * a READY; with CurveZMQ only allow-listed keys). */
int gw_dispatch_workers_alive(void);
/* Add "zmq": {security, refused_connections, allowed_keys, dropped: {reason:
 * count}} to a /healthz object. */
void gw_dispatch_health(json_t *out);
/* The same counters as Prometheus text. */
void gw_dispatch_metrics(FILE *f);

#endif

/* ---- identifiers in paths ------------------------------------------------------------ */
int gw_is_uuid(const char *s);   /* 8-4-4-4-12 hex                          */
int gw_is_model_id(const char *s); /* 16 lowercase hex                      */
int gw_is_job_id(const char *s); /* 1..18 digits                            */

/* ---- cache of bodies that cannot change (cache.c) ---------------------------------- */
#define GW_CACHE_ENTRIES 32
#define GW_CACHE_BYTES (96u << 20)      /* all bodies held                      */
#define GW_CACHE_BODY_MAX (32u << 20)   /* larger bodies are not kept           */
#define GW_CACHE_KEY_MAX 256
/* A copy of the body kept under key (caller frees; its length in *len), or
 * NULL when there is none. */
char *gw_cache_get(const char *key, size_t *len);
/* Keep a copy of body under key (the least recently used dropped to make
 * room); nothing happens for a body above GW_CACHE_BODY_MAX or a long key. */
void gw_cache_put(const char *key, const char *body, size_t len);
void gw_cache_stats(size_t *bytes, int *entries, unsigned long long *hits, unsigned long long *misses);
/* Bodies of finished sweeps kept in the database too (table reply_cache):
 * count a lookup there (1 found, 0 not), and read the counts. */
void gw_cache_count_db(int found);
void gw_cache_db_stats(unsigned long long *hits, unsigned long long *misses);
#define GW_CACHE_DB_MIN (256u << 10)   /* bodies kept in the database: from 256 KB */

/* The metric columns of results.csv, in order (api_results.c). */
extern const char *const gw_metric_cols[];
extern const int gw_nmetric_cols;

/* Reply with the JSON text of the first column of a one-row result (built
 * by PostgreSQL's json functions); 404 with `what` when there is no row. */
int gw_reply_row_json(gw_req *r, PGresult *res, int status, const char *what);

/* The model's mechanism checked by the solver: parse + build + initial
 * analyses.  Returns a spec (caller frees) and fills *report (new JSON), or
 * NULL with *details (new JSON array of {pointer, message}). */
struct mbs_spec;
struct mbs_spec *gw_check_mechanism(const char *text, size_t len, const void *overrides, int nov,
                                    json_t **report, json_t **details);
