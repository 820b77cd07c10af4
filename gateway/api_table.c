/*
 * api_table.c - GET /api/v1/sweeps/{id}/table: a sweep's design jobs as one
 * table, for the front end's job table and plots: one row per job (id, idx,
 * status, attempt, error, parameters, solver options, responses, metrics,
 * first warning), as arrays in the order of "columns", keyset-paged by idx
 * (?after=IDX&limit=N, N <= 20000; "next" is the after of the following
 * page, null on the last).  ?metrics=all gives every metric column of
 * results.csv instead of the default set.
 *
 * The columns are the same on every page: parameter and solver option names
 * from the sweep's first job (every job of a design has the same keys, sorted
 * by name here), responses from the specification, metrics from a fixed list
 * (compile-time names, the only text pasted into the SQL).  PostgreSQL hands
 * over each value as its JSON text (jsonb -> name, the names being statement
 * parameters), so nothing is parsed here, only pasted.  (A first version
 * built the page with PostgreSQL's JSON functions: 4 s for 20000 rows; this
 * one: about 0.25 s of query execution, mostly the index lookups of results
 * and metrics, measured on the shared 2-core machine.)
 */
#include "gw.h"
#include "svc/db.h"
#include "svc/jsonout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Metrics of the table by default: cost, size and accuracy of each run. */
static const char *const s_default_metrics[] = {
    "integrator", "wall_seconds", "cpu_seconds", "steps", "rejected_steps", "newton_iterations",
    "jacobian_evaluations", "factorizations", "mean_system_dimension", "max_system_dimension",
    "mean_active_contacts", "max_active_contacts", "max_constraint_violation", "energy_drift",
    "error_estimate", "tolerance_met", "warning_count",
};
#define NDEFAULT (int)(sizeof s_default_metrics / sizeof s_default_metrics[0])

#define OID_BOOL 16
#define OID_TEXT 25
#define OID_INT8 20
#define OID_INT4 23

/* A column of the result in PostgreSQL's text format, as JSON. */
static void s_cell(FILE *f, const PGresult *res, int i, int c)
{
    if (PQgetisnull(res, i, c)) { fputs("null", f); return; }
    const char *v = PQgetvalue(res, i, c);
    Oid t = PQftype(res, c);
    if (t == OID_BOOL) fputs(v[0] == 't' ? "true" : "false", f);
    else if (t == OID_TEXT) jsonout_str(f, v);
    else if (!strcmp(v, "NaN") || strstr(v, "Infinity")) fputs("null", f);
    else fputs(v, f);
}

static int s_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The keys of a JSON object text, sorted (a new array of borrowed names). */
static const char **s_keys(json_t *obj, size_t *n)
{
    const char **k = calloc(json_object_size(obj) + 1, sizeof *k), *key;
    json_t *v;
    *n = 0;
    json_object_foreach(obj, key, v) k[(*n)++] = key;
    qsort(k, *n, sizeof *k, s_cmp);
    return k;
}

static void s_columns(FILE *f, const char *group, const char **names, size_t n, int *first)
{
    for (size_t i = 0; i < n; i++) {
        fputs(*first ? "" : ",", f); *first = 0;
        fputs("{\"name\":", f); jsonout_str(f, names[i]); fprintf(f, ",\"group\":\"%s\"}", group);
    }
}

/* The query of both endpoints: the sweep's columns and a keyset page of its
   design jobs (idx > after, at most limit rows, by idx). */
typedef struct {
    PGresult *res;
    long total;
    char status[32];
    const char *const *mcols;
    int nm;
    size_t np, ns, nr, nkeys;
    json_t *fp, *fs, *rk;
    const char **pk, **sk, **rnames;
    char *sql;
    /* /columns of a finished sweep: its cache key, and the body when cached */
    char key[GW_CACHE_KEY_MAX];
    char finished[64];            /* the sweep's finished_at, as text         */
    char *cached;
    size_t cached_len;
} s_table;

static void s_table_free(s_table *t)
{
    PQclear(t->res);
    free(t->sql); free(t->pk); free(t->sk); free(t->rnames); free(t->cached);
    json_decref(t->fp); json_decref(t->fs); json_decref(t->rk);
}

/* The body of a finished sweep's page (t->key) from the memory cache or,
   failing that, table reply_cache (gzip; then kept in memory): t->cached,
   and r->gzipped when it is the compressed body (only for a client that
   takes gzip).  1 when found. */
static int s_cached(gw_req *r, PGconn **db, s_table *t)
{
    char gk[GW_CACHE_KEY_MAX + 4];
    int gz = gw_accepts_gzip(r->conn);
    snprintf(gk, sizeof gk, "%s|gz", t->key);
    if (gz && (t->cached = gw_cache_get(gk, &t->cached_len))) { r->gzipped = 1; return 1; }
    if ((t->cached = gw_cache_get(t->key, &t->cached_len))) return 1;
    /* only the compressed body in memory, for a client that does not take it */
    size_t zl;
    char *z = gz ? NULL : gw_cache_get(gk, &zl);
    if (z) {
        t->cached = gw_gunzip(z, zl, GW_CACHE_BODY_MAX, &t->cached_len);
        free(z);
        if (t->cached) { gw_cache_put(t->key, t->cached, t->cached_len); return 1; }
    }
    const char *p[] = { t->key };
    PGresult *res = db_execb(db, "SELECT body FROM reply_cache WHERE key = $1", 1, p, NULL, NULL, 1);
    int found = db_ok(res) && PQntuples(res) == 1;
    gw_cache_count_db(found);
    if (found) {
        const char *b = PQgetvalue(res, 0, 0);
        size_t bl = (size_t)PQgetlength(res, 0, 0);
        gw_cache_put(gk, b, bl);
        if (gz) {
            t->cached = malloc(bl ? bl : 1);
            if (t->cached) { memcpy(t->cached, b, bl); t->cached_len = bl; r->gzipped = 1; }
        } else {
            t->cached = gw_gunzip(b, bl, GW_CACHE_BODY_MAX, &t->cached_len);
            if (t->cached) gw_cache_put(t->key, t->cached, t->cached_len);
        }
    }
    PQclear(res);
    return t->cached != NULL;
}

/* Keep a finished sweep's page just made (buf, len: plain): in memory,
   plain and compressed, and compressed in table reply_cache when it is
   large (GW_CACHE_DB_MIN), where rows of the sweep's earlier finished_at
   are dropped.  Returns the compressed body (caller frees) or NULL. */
static char *s_keep(PGconn **db, const s_table *t, const char *sweep, const char *buf, size_t len, size_t *zlen)
{
    char gk[GW_CACHE_KEY_MAX + 4];
    gw_cache_put(t->key, buf, len);
    char *z = gw_gzip(buf, len, zlen);
    if (!z) return NULL;
    snprintf(gk, sizeof gk, "%s|gz", t->key);
    gw_cache_put(gk, z, *zlen);
    if (len >= GW_CACHE_DB_MIN && db) {
        const char *p[] = { t->key, sweep, t->finished, z };
        int lens[] = { 0, 0, 0, (int)*zlen }, fmts[] = { 0, 0, 0, 1 };
        PGresult *res = db_execb(db,
            "WITH d AS (DELETE FROM reply_cache WHERE sweep_id = $2::uuid AND finished_at <> $3::timestamptz) "
            "INSERT INTO reply_cache (key, sweep_id, finished_at, body) "
            "VALUES ($1, $2::uuid, $3::timestamptz, $4::bytea) ON CONFLICT (key) DO NOTHING", 4, p, lens, fmts, 0);
        PQclear(res);                              /* a failure only costs the next gateway the query */
    }
    return z;
}

/* 0 when t holds the page; else the reply is made (an error) and -1.
   With cache_as (the endpoint's name), a finished sweep's page is looked up
   in the cache first (t->cached set, no page query) and t->key is set so
   that the caller can keep the body it makes. */
static int s_table_query(gw_req *r, long after, long limit, s_table *t, const char *cache_as)
{
    char l[24], a[24];
    size_t sqllen = 0;
    const char *metrics = gw_query(r, "metrics");
    PGresult *res = NULL;
    memset(t, 0, sizeof *t);
    t->mcols = s_default_metrics; t->nm = NDEFAULT;
    if (!gw_is_uuid(r->param[0])) { gw_reply_error(r, 404, "not_found", "no such sweep", NULL); return -1; }
    if (metrics && strcmp(metrics, "all") && strcmp(metrics, "default")) {
        gw_reply_error(r, 400, "bad_request", "metrics must be default or all", NULL); return -1;
    }
    if (metrics && !strcmp(metrics, "all")) { t->mcols = gw_metric_cols; t->nm = gw_nmetric_cols; }
    snprintf(l, sizeof l, "%ld", limit); snprintf(a, sizeof a, "%ld", after);
    PGconn **db = gw_db();
    if (!db) { gw_reply_db_error(r, NULL); return -1; }

    /* the columns: the first job's keys, the specification's responses */
    const char *p1[] = { r->param[0] };
    res = db_exec(db,
        "SELECT s.njobs, s.status, "
        "  (SELECT parameters::text FROM jobs WHERE sweep_id = s.id AND kind = 'design' ORDER BY idx LIMIT 1), "
        "  (SELECT solver_overrides::text FROM jobs WHERE sweep_id = s.id AND kind = 'design' ORDER BY idx LIMIT 1), "
        "  coalesce((SELECT json_agg(x.r->>'name' ORDER BY x.o) FROM jsonb_array_elements("
        "      CASE WHEN jsonb_typeof(s.spec->'responses') = 'array' THEN s.spec->'responses' ELSE '[]' END) "
        "      WITH ORDINALITY x(r, o)), '[]')::text, "
        "  s.finished_at::text "
        "FROM sweeps s WHERE s.id = $1::uuid", 1, p1);
    if (!db_ok(res)) { gw_reply_db_error(r, res); PQclear(res); return -1; }
    if (PQntuples(res) == 0) { gw_reply_error(r, 404, "not_found", "no such sweep", NULL); PQclear(res); return -1; }
    t->total = strtol(PQgetvalue(res, 0, 0), NULL, 10);
    snprintf(t->status, sizeof t->status, "%s", PQgetvalue(res, 0, 1));
    t->fp = PQgetisnull(res, 0, 2) ? json_object() : json_loads(PQgetvalue(res, 0, 2), 0, NULL);
    t->fs = PQgetisnull(res, 0, 3) ? json_object() : json_loads(PQgetvalue(res, 0, 3), 0, NULL);
    t->rk = json_loads(PQgetvalue(res, 0, 4), 0, NULL);
    /* a finished sweep's design jobs take no more results (a cancelled job
       has no lease, so a late RESULT is refused): its page cannot change
       until it runs again, which changes its status and finished_at */
    if (cache_as && !PQgetisnull(res, 0, 5) &&
        (!strcmp(t->status, "done") || !strcmp(t->status, "failed") || !strcmp(t->status, "cancelled"))) {
        snprintf(t->key, sizeof t->key, "%s|%s|%ld|%ld|%s|%s|%s|%ld", cache_as, r->param[0], after, limit,
                 t->mcols == s_default_metrics ? "default" : "all", t->status, PQgetvalue(res, 0, 5), t->total);
        snprintf(t->finished, sizeof t->finished, "%s", PQgetvalue(res, 0, 5));
        if (s_cached(r, db, t)) { PQclear(res); return 0; }
    }
    PQclear(res); res = NULL;
    if (!json_is_object(t->fp) || !json_is_object(t->fs) || !json_is_array(t->rk)) {
        gw_reply_error(r, 500, "internal", "unreadable job keys", NULL); return -1;
    }
    t->pk = s_keys(t->fp, &t->np);
    t->sk = s_keys(t->fs, &t->ns);
    t->rnames = calloc(json_array_size(t->rk) + 1, sizeof *t->rnames);
    for (size_t i = 0; i < json_array_size(t->rk); i++)
        if (json_is_string(json_array_get(t->rk, i))) t->rnames[t->nr++] = json_string_value(json_array_get(t->rk, i));

    /* the page: each parameter, option and response value as its JSON text
       (the names are parameters of the statement, $4...), metric columns by
       name from the compile-time list; no JSON is parsed here */
    size_t np = t->np, ns = t->ns, nkeys = np + ns + t->nr;
    t->nkeys = nkeys;
    const char **pv = calloc(nkeys + 4, sizeof *pv);
    pv[0] = r->param[0]; pv[1] = l; pv[2] = a;
    FILE *q = open_memstream(&t->sql, &sqllen);
    fputs("SELECT j.id, j.idx, j.status, j.attempt, j.error, m.warnings->>0", q);
    for (size_t k = 0; k < nkeys; k++) {
        const char *obj = k < np ? "j.parameters" : k < np + ns ? "j.solver_overrides" : "r.responses";
        pv[3 + k] = k < np ? t->pk[k] : k < np + ns ? t->sk[k - np] : t->rnames[k - np - ns];
        fprintf(q, ", (%s->$%zu)::text", obj, k + 4);
    }
    for (int k = 0; k < t->nm; k++) fprintf(q, ", m.%s", t->mcols[k]);
    fputs(" FROM jobs j LEFT JOIN results r ON r.job_id = j.id LEFT JOIN metrics m ON m.job_id = j.id "
          "WHERE j.sweep_id = $1::uuid AND j.kind = 'design' AND j.idx > $3::int ORDER BY j.idx LIMIT $2::int", q);
    fclose(q);
    t->res = db_exec(db, t->sql, (int)nkeys + 3, pv);
    free(pv);
    if (!db_ok(t->res)) { gw_reply_db_error(r, t->res); return -1; }
    return 0;
}

static void s_column_list(FILE *f, const s_table *t)
{
    static const char *job[] = { "job_id", "idx", "status", "attempt", "error" }, *warn[] = { "warning" };
    int first = 1;
    fputs("\"columns\":[", f);
    s_columns(f, "job", job, 5, &first);
    s_columns(f, "parameter", t->pk, t->np, &first);
    s_columns(f, "solver", t->sk, t->ns, &first);
    s_columns(f, "response", t->rnames, t->nr, &first);
    s_columns(f, "metric", (const char **)t->mcols, (size_t)t->nm, &first);
    s_columns(f, "job", warn, 1, &first);
    fputc(']', f);
}

/* The result column of output column c (the order of s_column_list) and
   whether its text is JSON already (parameters, options, responses). */
static int s_rescol(const s_table *t, int c, int *is_json)
{
    int nk = (int)t->nkeys;
    *is_json = 0;
    if (c < 5) return c;
    if (c < 5 + nk) { *is_json = 1; return 6 + (c - 5); }
    if (c < 5 + nk + t->nm) return 6 + nk + (c - 5 - nk);
    return 5;                                   /* warning */
}

static void s_value(FILE *f, const s_table *t, int i, int c)
{
    int js, k = s_rescol(t, c, &js);
    if (js) fputs(PQgetisnull(t->res, i, k) ? "null" : PQgetvalue(t->res, i, k), f);
    else s_cell(f, t->res, i, k);
}

int api_sweeps_table(gw_req *r)
{
    long limit, after;
    char *buf = NULL;
    size_t len = 0;
    s_table t;
    if (gw_query_int(r, "limit", 5000, 1, 20000, &limit) || gw_query_int(r, "after", -1, -1, 2147483647L, &after))
        return 0;
    if (s_table_query(r, after, limit, &t, NULL)) { s_table_free(&t); return 0; }
    int n = PQntuples(t.res), ncol = 6 + (int)t.nkeys + t.nm;
    FILE *f = open_memstream(&buf, &len);
    fprintf(f, "{\"sweep\":\"%s\",\"status\":", r->param[0]);
    jsonout_str(f, t.status);
    fprintf(f, ",\"total\":%ld,\"after\":%ld,\"limit\":%ld,\"next\":", t.total, after, limit);
    if (n == limit) fputs(PQgetvalue(t.res, n - 1, 1), f); else fputs("null", f);
    fputc(',', f);
    s_column_list(f, &t);
    fputs(",\"rows\":[", f);
    for (int i = 0; i < n; i++) {
        fputs(i ? ",[" : "[", f);
        for (int c = 0; c < ncol; c++) { if (c) fputc(',', f); s_value(f, &t, i, c); }
        fputc(']', f);
    }
    fputs("]}", f);
    fclose(f);
    gw_reply_text(r, 200, "application/json", buf, len);
    s_table_free(&t);
    return 0;
}

/*
 * GET /api/v1/sweeps/{id}/columns: the same table by column, in one request
 * for the whole sweep (the front end's sweep view loads 10^5 jobs with it):
 * "values" holds one array per column, in the order of "columns", each with
 * one value per job in idx order.  One query (0.4 s of execution for 10^5
 * jobs on the shared 2-core machine, against five pages of /table of 0.25 s
 * each and their round trips), fewer bytes (no brackets per row) and an
 * array per column that the page turns into a typed array at once.  A
 * column of one value throughout is {"all": V}, a text column of few
 * distinct values {"dict": [...], "codes": [...]} (s_column_values): 10 MB
 * for the 10^5 jobs of the browser tests where /table sends 17 MB.  Keyset
 * paged like /table (after, limit <= 200000, next) for very large sweeps.
 */
/* Two cells of column k (result columns) equal, nulls included. */
static int s_same(const PGresult *res, int i, int j, int k)
{
    int ni = PQgetisnull(res, i, k), nj = PQgetisnull(res, j, k);
    if (ni || nj) return ni && nj;
    return !strcmp(PQgetvalue(res, i, k), PQgetvalue(res, j, k));
}

#define DICT_MAX 64

/* One column of /columns: {"all":V} when every row holds the same value
   (a metric no integrator reports is 10^5 nulls: 500 KB as an array),
   {"seq":[FIRST,STEP]} for an integer column whose values are FIRST +
   STEP * row (job ids and idx, as a sweep's jobs are made), {"dict":[V...],
   "codes":[K...]} for a text column of at most DICT_MAX distinct values
   (status, integrator, error and warning messages), else an array of the
   values. */
static void s_column_values(FILE *f, const s_table *t, int n, int c)
{
    int js, k = s_rescol(t, c, &js), same = 1;
    for (int i = 1; i < n && same; i++) same = s_same(t->res, 0, i, k);
    if (n > 0 && same) { fputs("{\"all\":", f); s_value(f, t, 0, c); fputc('}', f); return; }
    if (!js && n > 1 && (PQftype(t->res, k) == OID_INT8 || PQftype(t->res, k) == OID_INT4)) {
        /* job ids and idx: usually consecutive */
        long long v0 = 0, step = 0;
        int seq = 1;
        for (int i = 0; i < n && seq; i++) {
            if (PQgetisnull(t->res, i, k)) { seq = 0; break; }
            long long v = strtoll(PQgetvalue(t->res, i, k), NULL, 10);
            if (i == 0) v0 = v; else if (i == 1) step = v - v0;
            else if (v != v0 + step * i) seq = 0;
        }
        if (seq) { fprintf(f, "{\"seq\":[%lld,%lld]}", v0, step); return; }
    }
    if (!js && PQftype(t->res, k) == OID_TEXT && n > 0) {
        int first[DICT_MAX], nd = 0, ok = 1;
        int *code = malloc((size_t)n * sizeof *code);
        for (int i = 0; i < n && ok; i++) {
            int d = 0;
            while (d < nd && !s_same(t->res, first[d], i, k)) d++;
            if (d == nd) { if (nd == DICT_MAX) { ok = 0; break; } first[nd++] = i; }
            code[i] = d;
        }
        if (ok) {
            fputs("{\"dict\":[", f);
            for (int d = 0; d < nd; d++) { if (d) fputc(',', f); s_value(f, t, first[d], c); }
            fputs("],\"codes\":[", f);
            for (int i = 0; i < n; i++) fprintf(f, i ? ",%d" : "%d", code[i]);
            fputs("]}", f);
            free(code);
            return;
        }
        free(code);
    }
    fputc('[', f);
    for (int i = 0; i < n; i++) { if (i) fputc(',', f); s_value(f, t, i, c); }
    fputc(']', f);
}

/* The reply of /columns for a page (after, limit) of sweep r->param[0]. */
static int s_columns_reply(gw_req *r, long after, long limit)
{
    char *buf = NULL;
    size_t len = 0;
    s_table t;
    if (s_table_query(r, after, limit, &t, "columns")) { s_table_free(&t); return 0; }
    if (t.cached) {                             /* a finished sweep's page made before */
        gw_reply_text(r, 200, "application/json", t.cached, t.cached_len);
        t.cached = NULL;
        s_table_free(&t);
        return 0;
    }
    int n = PQntuples(t.res), ncol = 6 + (int)t.nkeys + t.nm;
    FILE *f = open_memstream(&buf, &len);
    fprintf(f, "{\"sweep\":\"%s\",\"status\":", r->param[0]);
    jsonout_str(f, t.status);
    fprintf(f, ",\"total\":%ld,\"after\":%ld,\"limit\":%ld,\"n\":%d,\"next\":", t.total, after, limit, n);
    if (n == limit) fputs(PQgetvalue(t.res, n - 1, 1), f); else fputs("null", f);
    fputc(',', f);
    s_column_list(f, &t);
    fputs(",\"values\":[", f);
    for (int c = 0; c < ncol; c++) {
        if (c) fputc(',', f);
        s_column_values(f, &t, n, c);
    }
    fputs("]}", f);
    fclose(f);
    if (t.key[0]) {                             /* a finished sweep's: kept, sent compressed if taken */
        size_t zlen;
        char *z = s_keep(gw_db(), &t, r->param[0], buf, len, &zlen);
        if (z && gw_accepts_gzip(r->conn)) { free(buf); buf = z; len = zlen; r->gzipped = 1; }
        else free(z);
    }
    gw_reply_text(r, 200, "application/json", buf, len);
    s_table_free(&t);
    return 0;
}

int api_sweeps_columns(gw_req *r)
{
    long limit, after;
    if (gw_query_int(r, "limit", GW_COLUMNS_MAX, 1, GW_COLUMNS_MAX, &limit) ||
        gw_query_int(r, "after", -1, -1, 2147483647L, &after))
        return 0;
    return s_columns_reply(r, after, limit);
}

/* warm.c: the page made (and kept) as a request without a connection would
   (default metrics, no gzip asked: the compressed body is kept anyway). */
int gw_columns_warm(const char *sweep, long after, long limit)
{
    gw_req r;
    char id[64];
    memset(&r, 0, sizeof r);
    snprintf(id, sizeof id, "%s", sweep);
    r.param[0] = id; r.method = "GET"; r.url = "/api/v1/sweeps/-/columns";
    s_columns_reply(&r, after, limit);
    int ok = r.status == 200;
    free(r.out);
    return ok ? 0 : -1;
}
