/*
 * http.c - libmicrohttpd glue: request state, limits (size, depth, content
 * type, token), routing, security headers, request statistics.
 *
 * Order of checks for a request: route (404/405), token for writes, and for
 * reads with --token-reads (401),
 * Content-Type for JSON bodies (415), size (413), depth (400), JSON (400),
 * then the handler (422 and the like).  The first four are decided on the
 * first callback, before any body is read.
 */
#include "gw.h"
#include "svc/db.h"
#include "svc/jsonout.h"
#include "svc/jsonscan.h"
#include "svc/log.h"

#include <arpa/inet.h>
#include <malloc.h>
#include <math.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* Per-connection state between the callbacks of one request. */
typedef struct {
    struct timespec t0;
    const gw_route *route;
    gw_req req;
    int early;                  /* status decided before the body, 0 if none */
    const char *early_code, *early_msg;
    char *body; size_t len, cap;
    int too_large;
    int bad_target;             /* 414 / 400 decided from the raw target      */
    int large_slot;             /* holds one of the large-body slots          */
} req_state;

/* Requests with a body above GW_LARGE_BODY being parsed and handled now. */
static atomic_int s_large;

/* ---- statistics for /metrics --------------------------------------------------- */

static const double s_buckets[] = { 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5 };
#define NBUCKET (sizeof s_buckets / sizeof s_buckets[0])
#define NLABEL 32
static const char *s_status_class[] = { "1xx", "2xx", "3xx", "4xx", "5xx" };
static atomic_long s_count[NLABEL][5];
static atomic_long s_hist[NLABEL][NBUCKET + 1];
static atomic_long s_sum_us[NLABEL];

/* Label index: route position, or the last two slots for static / unmatched. */
static int s_label(const gw_route *rt)
{
    if (!rt) return NLABEL - 1;
    return (int)(rt - gw_routes) < NLABEL - 2 ? (int)(rt - gw_routes) : NLABEL - 2;
}
static const char *s_label_name(int i)
{
    if (i == NLABEL - 1) return "other";
    if (i < gw_nroutes && i < NLABEL - 2) return gw_routes[i].label;
    return "more";
}

static void s_record(const gw_route *rt, int status, double seconds)
{
    int l = s_label(rt), k = 0;
    int c = status / 100 - 1;
    if (c < 0 || c > 4) c = 4;
    atomic_fetch_add(&s_count[l][c], 1);
    while (k < (int)NBUCKET && seconds > s_buckets[k]) k++;
    atomic_fetch_add(&s_hist[l][k], 1);
    atomic_fetch_add(&s_sum_us[l], (long)(seconds * 1e6));
}

void gw_stats_write(FILE *f)
{
    fprintf(f, "# HELP mbsweep_http_requests_total HTTP requests by route and status class.\n"
               "# TYPE mbsweep_http_requests_total counter\n");
    for (int l = 0; l < NLABEL; l++)
        for (int c = 0; c < 5; c++) {
            long n = atomic_load(&s_count[l][c]);
            if (n) fprintf(f, "mbsweep_http_requests_total{route=\"%s\",code=\"%s\"} %ld\n",
                           s_label_name(l), s_status_class[c], n);
        }
    fprintf(f, "# HELP mbsweep_http_request_seconds HTTP request latency.\n"
               "# TYPE mbsweep_http_request_seconds histogram\n");
    for (int l = 0; l < NLABEL; l++) {
        long cum = 0, total = 0;
        for (int k = 0; k <= (int)NBUCKET; k++) total += atomic_load(&s_hist[l][k]);
        if (!total) continue;
        for (int k = 0; k < (int)NBUCKET; k++) {
            cum += atomic_load(&s_hist[l][k]);
            fprintf(f, "mbsweep_http_request_seconds_bucket{route=\"%s\",le=\"%g\"} %ld\n",
                    s_label_name(l), s_buckets[k], cum);
        }
        fprintf(f, "mbsweep_http_request_seconds_bucket{route=\"%s\",le=\"+Inf\"} %ld\n", s_label_name(l), total);
        fprintf(f, "mbsweep_http_request_seconds_sum{route=\"%s\"} %.6f\n", s_label_name(l),
                atomic_load(&s_sum_us[l]) * 1e-6);
        fprintf(f, "mbsweep_http_request_seconds_count{route=\"%s\"} %ld\n", s_label_name(l), total);
    }
    size_t cb; int ce; unsigned long long ch, cm;
    gw_cache_stats(&cb, &ce, &ch, &cm);
    fprintf(f, "# HELP mbsweep_reply_cache_bytes Bytes of finished sweeps' bodies kept (gateway/cache.c).\n"
               "# TYPE mbsweep_reply_cache_bytes gauge\nmbsweep_reply_cache_bytes %zu\n"
               "# TYPE mbsweep_reply_cache_entries gauge\nmbsweep_reply_cache_entries %d\n"
               "# TYPE mbsweep_reply_cache_lookups_total counter\n"
               "mbsweep_reply_cache_lookups_total{result=\"hit\"} %llu\n"
               "mbsweep_reply_cache_lookups_total{result=\"miss\"} %llu\n", cb, ce, ch, cm);
    fprintf(f, "# HELP mbsweep_warm_sweeps_total Sweep views made as their sweep finished (gateway/warm.c).\n"
               "# TYPE mbsweep_warm_sweeps_total counter\nmbsweep_warm_sweeps_total %llu\n", gw_warm_made());
    gw_cache_db_stats(&ch, &cm);
    fprintf(f, "# HELP mbsweep_reply_cache_db_lookups_total Finished sweeps' bodies looked up in table reply_cache.\n"
               "# TYPE mbsweep_reply_cache_db_lookups_total counter\n"
               "mbsweep_reply_cache_db_lookups_total{result=\"hit\"} %llu\n"
               "mbsweep_reply_cache_db_lookups_total{result=\"miss\"} %llu\n", ch, cm);
}

/* ---- reply helpers -------------------------------------------------------------- */

int gw_reply_text(gw_req *r, int status, const char *ctype, char *buf, size_t len)
{
    free(r->out);
    r->status = status; r->ctype = ctype; r->out = buf; r->out_len = len;
    return 0;
}

int gw_reply_json(gw_req *r, int status, json_t *body)
{
    char *s = jsonout_dumps(body, JSON_COMPACT);
    json_decref(body);
    if (!s) return gw_reply_text(r, 500, "application/json", strdup("{\"error\":{\"code\":\"internal\",\"message\":\"encoding failed\",\"details\":[]}}"), 73);
    return gw_reply_text(r, status, "application/json", s, strlen(s));
}

int gw_reply_error(gw_req *r, int status, const char *code, const char *message, json_t *details)
{
    return gw_reply_json(r, status, json_pack("{s:{s:s,s:s,s:o}}", "error", "code", code,
                                              "message", message, "details", details ? details : json_array()));
}

int gw_reply_db_error(gw_req *r, PGresult *res)
{
    log_warn("http: %s %s: database: %s", r->method, r->url,
             res ? PQresultErrorMessage(res) : "no connection");
    if (res && PQresultStatus(res) == PGRES_FATAL_ERROR) {
        const char *st = PQresultErrorField(res, PG_DIAG_SQLSTATE);
        if (st && !strcmp(st, "57014"))
            return gw_reply_error(r, 503, "timeout", "the database query took too long", NULL);
    }
    return gw_reply_error(r, 503, "unavailable", "the database is not available, try again", NULL);
}

const char *gw_query(gw_req *r, const char *key)
{
    return r->conn ? MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, key) : NULL;
}

int gw_query_int(gw_req *r, const char *key, long def, long lo, long hi, long *out)
{
    const char *v = gw_query(r, key);
    char *end;
    if (!v) { *out = def; return 0; }
    long x = strtol(v, &end, 10);
    if (!*v || *end || x < lo || x > hi) {
        char msg[160];
        snprintf(msg, sizeof msg, "query parameter %s must be an integer in %ld..%ld", key, lo, hi);
        gw_reply_error(r, 400, "bad_request", msg, NULL);
        return -1;
    }
    *out = x;
    return 0;
}

/* ---- routing ---------------------------------------------------------------------- */

/* Match url against pattern segment by segment ('*' captures one segment).
 * Returns 1 and fills params on a match. */
static int s_match(const char *pattern, const char *url, gw_req *r)
{
    const char *p = pattern, *u = url;
    int n = 0;
    while (*p && *u) {
        if (*p == '*') {
            const char *e = strchr(u, '/');
            size_t len = e ? (size_t)(e - u) : strlen(u);
            if (len == 0 || len > 128 || n >= GW_MAX_PARAMS) goto no;
            r->param[n++] = strndup(u, len);
            u += len; p++;
        } else if (*p++ != *u++) goto no;
    }
    if (*p || *u) goto no;
    r->nparam = n;
    return 1;
no:
    for (int i = 0; i < n; i++) { free(r->param[i]); r->param[i] = NULL; }
    return 0;
}

/* Find the route; *path_ok tells whether the path exists for another method. */
static const gw_route *s_route(const char *method, const char *url, gw_req *r, char *allow, size_t asz)
{
    allow[0] = 0;
    for (int i = 0; i < gw_nroutes; i++) {
        gw_req tmp = { 0 };
        if (!s_match(gw_routes[i].pattern, url, &tmp)) continue;
        for (int k = 0; k < tmp.nparam; k++) free(tmp.param[k]);
        /* HEAD is answered like GET (libmicrohttpd drops the body) */
        if (!strcmp(gw_routes[i].method, method) || (!strcmp(method, "HEAD") && !strcmp(gw_routes[i].method, "GET"))) {
            s_match(gw_routes[i].pattern, url, r);
            return &gw_routes[i];
        }
        if (!strstr(allow, gw_routes[i].method)) {
            size_t l = strlen(allow);
            snprintf(allow + l, asz - l, "%s%s%s", l ? ", " : "", gw_routes[i].method,
                     !strcmp(gw_routes[i].method, "GET") ? ", HEAD" : "");
        }
    }
    return NULL;
}

/* Constant-time comparison of the bearer token. */
static int s_token_ok(struct MHD_Connection *c)
{
    const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    if (gw_cfg.no_auth) return 1;
    if (!h || strncasecmp(h, "Bearer ", 7) || !gw_cfg.token || !*gw_cfg.token) return 0;
    const char *t = h + 7;
    size_t lt = strlen(t), lk = strlen(gw_cfg.token);
    unsigned diff = (unsigned)(lt ^ lk);
    for (size_t i = 0; i < lk; i++) diff |= (unsigned char)gw_cfg.token[i] ^ (unsigned char)(i < lt ? t[i] : 0);
    return diff == 0;
}

/* ---- responses ---------------------------------------------------------------------- */

static void s_headers(struct MHD_Response *resp, const char *ctype)
{
    MHD_add_response_header(resp, "Cache-Control", "no-store");
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
    MHD_add_response_header(resp, "X-Frame-Options", "DENY");
    if (ctype) {
        MHD_add_response_header(resp, "Content-Type", ctype);
        if (!strncmp(ctype, "text/html", 9))
            MHD_add_response_header(resp, "Content-Security-Policy",
                                    "default-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'");
    }
}

/* Text that compresses (JSON, CSV, Prometheus text). */
static int s_compressible(const char *ctype)
{
    return !strncmp(ctype, "application/json", 16) || !strncmp(ctype, "text/", 5);
}

/* Strong validator of a reply body: FNV-1a 64 of its bytes, quoted. */
static void s_etag(const char *buf, size_t len, char out[24])
{
    unsigned long long h = 1469598103934665603ULL;
    for (size_t i = 0; i < len; i++) { h ^= (unsigned char)buf[i]; h *= 1099511628211ULL; }
    snprintf(out, 24, "\"%016llx\"", h);
}

static enum MHD_Result s_send(req_state *st, struct MHD_Connection *c)
{
    gw_req *r = &st->req;
    struct MHD_Response *resp;
    struct timespec t1;
    char etag[24] = "";
    if (!r->out && !r->reader) gw_reply_error(r, 500, "internal", "no reply", NULL);
    /* a successful answer of text (JSON, CSV) above GW_GZIP_MIN bytes, or
       streamed, goes out gzip-compressed when the request accepts it (a
       handler may have compressed it already: gzipped) */
    int gz = r->gzipped;
    if (!gz && r->status == 200 && r->ctype && s_compressible(r->ctype) && gw_accepts_gzip(c)) {
        if (r->reader) gz = gw_gzip_reader(r) == 0;
        else if (r->out_len >= GW_GZIP_MIN) {
            size_t zlen;
            char *z = gw_gzip(r->out, r->out_len, &zlen);
            if (z) {
                free(r->out); r->out = z; r->out_len = zlen; gz = 1;
            }
        }
    }
    /* a successful GET carries an ETag; a request whose If-None-Match names
       it gets 304 without the body (cheap polling of progress: the front end
       keeps what it has; the reply is still computed, not its transfer) */
    if (r->status == 200 && !r->reader && r->method && (!strcmp(r->method, "GET") || !strcmp(r->method, "HEAD"))) {
        s_etag(r->out, r->out_len, etag);
        const char *inm = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "If-None-Match");
        if (inm && strstr(inm, etag)) { r->status = 304; r->out_len = 0; }
    }
    if (r->reader) {
        /* a streamed reply: MHD pulls it block by block and frees its state */
        resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 64 * 1024, r->reader, r->reader_cls, r->free_cls);
        r->reader = NULL; r->reader_cls = NULL;
    } else {
        resp = MHD_create_response_from_buffer(r->out_len, r->out, MHD_RESPMEM_MUST_FREE);
        r->out = NULL;
    }
    s_headers(resp, r->status == 304 ? NULL : r->ctype);
    if (etag[0]) MHD_add_response_header(resp, "ETag", etag);
    if (gz && r->status == 200) MHD_add_response_header(resp, "Content-Encoding", "gzip");
    MHD_add_response_header(resp, "Vary", "Accept-Encoding");
    if (r->allow) MHD_add_response_header(resp, "Allow", r->allow);
    if (r->status == 401) MHD_add_response_header(resp, "WWW-Authenticate", "Bearer");
    enum MHD_Result ok = MHD_queue_response(c, (unsigned)r->status, resp);
    MHD_destroy_response(resp);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    s_record(st->route, r->status, (t1.tv_sec - st->t0.tv_sec) + 1e-9 * (t1.tv_nsec - st->t0.tv_nsec));
    return ok;
}

/* ---- the access handler ------------------------------------------------------------ */

/* First callback: route and the checks that need no body. */
static void s_first(req_state *st, struct MHD_Connection *c, const char *url, const char *method)
{
    static __thread char allow[64];
    gw_req *r = &st->req;
    r->conn = c; r->method = method; r->url = url;
    if (st->bad_target == 414) {
        st->early = 414; st->early_code = "uri_too_long";
        st->early_msg = "too many query parameters or too long a request target (at most 64 parameters, 4096 bytes)";
        return;
    }
    if (st->bad_target == 400) {
        st->early = 400; st->early_code = "bad_request"; st->early_msg = "the path contains an encoded NUL byte (%00)";
        return;
    }
    st->route = s_route(method, url, r, allow, sizeof allow);
    if (!st->route) {
        if (allow[0]) {
            r->allow = allow;
            st->early = 405; st->early_code = "method_not_allowed"; st->early_msg = "method not allowed on this resource";
        } else if (strncmp(url, "/api/", 5) && (!strcmp(method, "GET") || !strcmp(method, "HEAD"))) {
            st->early = -1; /* static file */
        } else {
            st->early = 404; st->early_code = "not_found"; st->early_msg = "no such resource";
        }
        return;
    }
    /* writes need the token; reads too with --token-reads (health and
       metrics excepted, for probes) */
    if ((st->route->write || (gw_cfg.token_reads && strcmp(st->route->label, "healthz") &&
                              strcmp(st->route->label, "metrics"))) && !s_token_ok(c)) {
        st->early = 401; st->early_code = "unauthorized"; st->early_msg = "a valid API token is required (Authorization: Bearer <token>)";
        return;
    }
    if (st->route->json_body) {
        const char *ct = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
        if (!ct || strncasecmp(ct, "application/json", 16) || (ct[16] && ct[16] != ';' && ct[16] != ' ')) {
            st->early = 415; st->early_code = "unsupported_media_type"; st->early_msg = "Content-Type must be application/json";
            return;
        }
    }
    const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
    if (cl && strtoull(cl, NULL, 10) > gw_cfg.max_body) {
        st->early = 413; st->early_code = "too_large"; st->early_msg = "request body too large";
    }
}

/* Body complete: limits on the JSON, then the handler. */
static void s_run(req_state *st)
{
    gw_req *r = &st->req;
    if (st->too_large) { gw_reply_error(r, 413, "too_large", "request body too large", NULL); return; }
    r->body = st->body ? st->body : ""; r->body_len = st->len;
    if (st->route->json_body) {
        json_error_t je;
        jsonscan_counts jc;
        char ptr[256] = "";
        if (jsonscan_depth(r->body, r->body_len, gw_cfg.max_depth) > gw_cfg.max_depth) {
            gw_reply_error(r, 400, "too_deep", "JSON nesting too deep", NULL);
            return;
        }
        /* what the body would expand to, counted before jansson allocates it */
        if (jsonscan_count(r->body, r->body_len, GW_MAX_JSON_VALUES, GW_MAX_JSON_CONTAINERS, &jc)) {
            char msg[200];
            snprintf(msg, sizeof msg, "the JSON body has too many items (at most %ld values, of which %ld objects or arrays)",
                     GW_MAX_JSON_VALUES, GW_MAX_JSON_CONTAINERS);
            gw_reply_error(r, 413, "too_many_items", msg, NULL);
            return;
        }
        /* large bodies: a few at a time, so that their parse trees do not add up */
        if (r->body_len > GW_LARGE_BODY) {
            if (atomic_fetch_add(&s_large, 1) >= GW_LARGE_SLOTS) {
                atomic_fetch_sub(&s_large, 1);
                gw_reply_error(r, 503, "busy", "too many large requests at once, try again shortly", NULL);
                return;
            }
            st->large_slot = 1;
        }
        r->json = json_loadb(r->body, r->body_len, JSON_REJECT_DUPLICATES, &je);
        if (!r->json) {
            char msg[256];
            snprintf(msg, sizeof msg, "malformed JSON: %s (line %d, column %d)", je.text, je.line, je.column);
            gw_reply_error(r, 400, "bad_json", msg, NULL);
            return;
        }
        if (!json_is_object(r->json)) { gw_reply_error(r, 400, "bad_json", "the body must be a JSON object", NULL); return; }
        /* numbers that PostgreSQL's jsonb would give back in a form jansson refuses */
        if (gw_json_numbers_ok(r->json, ptr, sizeof ptr)) {
            char msg[160];
            snprintf(msg, sizeof msg, "numbers must be finite with magnitude at most %g", GW_NUM_MAX);
            gw_reply_error(r, 422, "out_of_range", msg,
                           json_pack("[{s:s,s:s}]", "pointer", ptr, "message", msg));
            return;
        }
    }
    st->route->fn(r);
}

static enum MHD_Result s_access(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
    req_state *st = *con_cls;
    (void)cls; (void)version;
    /* first call: headers only (the state comes from s_uri) */
    if (!st || !st->req.conn) {
        if (!st) {
            st = calloc(1, sizeof *st);
            clock_gettime(CLOCK_MONOTONIC, &st->t0);
            *con_cls = st;
        }
        s_first(st, c, url, method);
        if (st->early > 0) {
            gw_reply_error(&st->req, st->early, st->early_code, st->early_msg, NULL);
            return s_send(st, c);
        }
        return MHD_YES;
    }
    /* body chunks, kept up to the limit */
    if (*upload_size) {
        if (!st->too_large && st->len + *upload_size <= gw_cfg.max_body) {
            if (st->len + *upload_size + 1 > st->cap) {
                st->cap = (st->len + *upload_size + 1) * 2;
                if (st->cap > gw_cfg.max_body + 1) st->cap = gw_cfg.max_body + 1;
                st->body = realloc(st->body, st->cap);
            }
            memcpy(st->body + st->len, upload, *upload_size);
            st->len += *upload_size;
            st->body[st->len] = 0;
        } else st->too_large = 1;
        *upload_size = 0;
        return MHD_YES;
    }
    if (st->early > 0) return MHD_YES; /* already answered */
    /* static files */
    if (st->early == -1) {
        int status;
        struct MHD_Response *resp = gw_static(url, gw_accepts_gzip(c), &status);
        if (!resp) {
            gw_reply_error(&st->req, 404, "not_found", "no such resource", NULL);
            return s_send(st, c);
        }
        enum MHD_Result ok = MHD_queue_response(c, (unsigned)status, resp);
        MHD_destroy_response(resp);
        s_record(NULL, status, 0);
        return ok;
    }
    s_run(st);
    /* after a large request: its parse tree is gone, give the pages back */
    if (st->large_slot) {
        json_decref(st->req.json); st->req.json = NULL;
        free(st->body); st->body = NULL; st->len = st->cap = 0;
        atomic_fetch_sub(&s_large, 1);
        st->large_slot = 0;
        malloc_trim(0);
    }
    return s_send(st, c);
}

/* Called by libmicrohttpd with the raw request target before it parses the
 * query string or decodes %XX; the return value becomes the request's state.
 * A target with too many parameters (libmicrohttpd 0.9.75 keeps them in the
 * connection's memory pool and, when that overflows, never answers) has its
 * query cut here, so that nothing is stored, and gets 414; an encoded NUL in
 * the path (which decoding would turn into an early end of the string) gets
 * 400. */
static void *s_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
    req_state *st = calloc(1, sizeof *st);
    (void)cls; (void)c;
    if (!st) return NULL;
    clock_gettime(CLOCK_MONOTONIC, &st->t0);
    char *q = strchr(uri, '?');
    size_t n = strlen(uri), params = 0;
    for (const char *p = q; p && *p; p++) if (*p == '&' || *p == ';') params++;
    if (q && q[1]) params++;
    if (n > GW_MAX_URI || params > GW_MAX_QUERY_PARAMS) {
        st->bad_target = 414;
        if (q) q[1] = 0;        /* the target's buffer is the connection's own */
    }
    for (const char *p = uri; *p && p != q && !st->bad_target; p++)
        if (p[0] == '%' && p[1] == '0' && p[2] == '0') st->bad_target = 400;
    return st;
}

/* Free the request state when MHD is done with the connection's request. */
static void s_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    req_state *st = *con_cls;
    (void)cls; (void)c; (void)toe;
    if (!st) return;
    for (int i = 0; i < st->req.nparam; i++) free(st->req.param[i]);
    json_decref(st->req.json);
    free(st->req.out);
    if (st->req.reader_cls && st->req.free_cls) st->req.free_cls(st->req.reader_cls);
    if (st->large_slot) atomic_fetch_sub(&s_large, 1);
    free(st->body);
    free(st);
    *con_cls = NULL;
}

static void s_panic(void *cls, const char *file, unsigned line, const char *reason)
{
    (void)cls;
    log_error("libmicrohttpd: %s:%u %s", file, line, reason ? reason : "");
    abort();
}

struct MHD_Daemon *gw_http_start(void)
{
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)gw_cfg.port) };
    if (inet_pton(AF_INET, gw_cfg.bind_addr, &sa.sin_addr) != 1) {
        log_error("http: bad bind address %s", gw_cfg.bind_addr);
        return NULL;
    }
    MHD_set_panic_func(s_panic, NULL);
    /* internal polling threads (a pool), epoll, no blocking thread-per-connection */
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG, 0, NULL, NULL,
        s_access, NULL,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned)gw_cfg.threads,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)gw_cfg.conn_timeout,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)1000,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)0,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024),
        MHD_OPTION_NOTIFY_COMPLETED, s_completed, NULL,
        MHD_OPTION_URI_LOG_CALLBACK, s_uri, NULL,
        MHD_OPTION_LISTENING_ADDRESS_REUSE, (unsigned)1,
        MHD_OPTION_END);
    if (!d) log_error("http: cannot listen on %s:%d", gw_cfg.bind_addr, gw_cfg.port);
    return d;
}

/* ---- identifiers ------------------------------------------------------------------- */

int gw_is_uuid(const char *s)
{
    if (strlen(s) != 36) return 0;
    for (int i = 0; i < 36; i++) {
        if (i == 8 || i == 13 || i == 18 || i == 23) { if (s[i] != '-') return 0; }
        else if (!strchr("0123456789abcdefABCDEF", s[i])) return 0;
    }
    return 1;
}

int gw_is_model_id(const char *s)
{
    if (strlen(s) != 16) return 0;
    for (; *s; s++) if (!strchr("0123456789abcdef", *s)) return 0;
    return 1;
}

int gw_is_job_id(const char *s)
{
    size_t n = strlen(s);
    if (n < 1 || n > 18) return 0;
    for (; *s; s++) if (*s < '0' || *s > '9') return 0;
    return 1;
}

int gw_reply_row_json(gw_req *r, PGresult *res, int status, const char *what)
{
    if (!db_ok(res)) { gw_reply_db_error(r, res); PQclear(res); return 0; }
    if (PQntuples(res) == 0 || PQgetisnull(res, 0, 0)) {
        char msg[128];
        snprintf(msg, sizeof msg, "no such %s", what);
        PQclear(res);
        return gw_reply_error(r, 404, "not_found", msg, NULL);
    }
    size_t len = (size_t)PQgetlength(res, 0, 0);
    char *buf = malloc(len + 1);
    memcpy(buf, PQgetvalue(res, 0, 0), len + 1);
    PQclear(res);
    return gw_reply_text(r, status, "application/json", buf, len);
}
