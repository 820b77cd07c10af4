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

/* A JSON string (s is UTF-8 text from PostgreSQL). */
static void s_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') { fputc('\\', f); fputc(*p, f); }
        else if (*p == '\n') fputs("\\n", f);
        else if (*p == '\t') fputs("\\t", f);
        else if (*p == '\r') fputs("\\r", f);
        else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
}

/* A column of the result in PostgreSQL's text format, as JSON. */
static void s_cell(FILE *f, const PGresult *res, int i, int c)
{
    if (PQgetisnull(res, i, c)) { fputs("null", f); return; }
    const char *v = PQgetvalue(res, i, c);
    Oid t = PQftype(res, c);
    if (t == OID_BOOL) fputs(v[0] == 't' ? "true" : "false", f);
    else if (t == OID_TEXT) s_str(f, v);
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
        fputs("{\"name\":", f); s_str(f, names[i]); fprintf(f, ",\"group\":\"%s\"}", group);
    }
}

int api_sweeps_table(gw_req *r)
{
    long limit, after;
    char l[24], a[24], *sql = NULL, *buf = NULL;
    size_t sqllen = 0, len = 0, np = 0, ns = 0, nr = 0;
    const char *metrics = gw_query(r, "metrics");
    const char *const *mcols = s_default_metrics;
    int nm = NDEFAULT;
    json_t *fp = NULL, *fs = NULL, *rk = NULL;
    const char **pk = NULL, **sk = NULL, **rnames = NULL;
    PGresult *res = NULL;
    if (!gw_is_uuid(r->param[0])) return gw_reply_error(r, 404, "not_found", "no such sweep", NULL);
    if (metrics && strcmp(metrics, "all") && strcmp(metrics, "default"))
        return gw_reply_error(r, 400, "bad_request", "metrics must be default or all", NULL);
    if (metrics && !strcmp(metrics, "all")) { mcols = gw_metric_cols; nm = gw_nmetric_cols; }
    if (gw_query_int(r, "limit", 5000, 1, 20000, &limit) || gw_query_int(r, "after", -1, -1, 2147483647L, &after))
        return 0;
    snprintf(l, sizeof l, "%ld", limit); snprintf(a, sizeof a, "%ld", after);
    PGconn **db = gw_db();
    if (!db) return gw_reply_db_error(r, NULL);

    /* the columns: the first job's keys, the specification's responses */
    const char *p1[] = { r->param[0] };
    res = db_exec(db,
        "SELECT s.njobs, s.status, "
        "  (SELECT parameters::text FROM jobs WHERE sweep_id = s.id AND kind = 'design' ORDER BY idx LIMIT 1), "
        "  (SELECT solver_overrides::text FROM jobs WHERE sweep_id = s.id AND kind = 'design' ORDER BY idx LIMIT 1), "
        "  coalesce((SELECT json_agg(x.r->>'name' ORDER BY x.o) FROM jsonb_array_elements("
        "      CASE WHEN jsonb_typeof(s.spec->'responses') = 'array' THEN s.spec->'responses' ELSE '[]' END) "
        "      WITH ORDINALITY x(r, o)), '[]')::text "
        "FROM sweeps s WHERE s.id = $1::uuid", 1, p1);
    if (!db_ok(res)) { gw_reply_db_error(r, res); goto done; }
    if (PQntuples(res) == 0) { gw_reply_error(r, 404, "not_found", "no such sweep", NULL); goto done; }
    long total = strtol(PQgetvalue(res, 0, 0), NULL, 10);
    char status[32];
    snprintf(status, sizeof status, "%s", PQgetvalue(res, 0, 1));
    fp = PQgetisnull(res, 0, 2) ? json_object() : json_loads(PQgetvalue(res, 0, 2), 0, NULL);
    fs = PQgetisnull(res, 0, 3) ? json_object() : json_loads(PQgetvalue(res, 0, 3), 0, NULL);
    rk = json_loads(PQgetvalue(res, 0, 4), 0, NULL);
    PQclear(res); res = NULL;
    if (!json_is_object(fp) || !json_is_object(fs) || !json_is_array(rk)) {
        gw_reply_error(r, 500, "internal", "unreadable job keys", NULL); goto done;
    }
    pk = s_keys(fp, &np);
    sk = s_keys(fs, &ns);
    rnames = calloc(json_array_size(rk) + 1, sizeof *rnames);
    for (size_t i = 0; i < json_array_size(rk); i++)
        if (json_is_string(json_array_get(rk, i))) rnames[nr++] = json_string_value(json_array_get(rk, i));

    /* the page: each parameter, option and response value as its JSON text
       (the names are parameters of the statement, $4...), metric columns by
       name from the compile-time list; no JSON is parsed here */
    size_t nkeys = np + ns + nr;
    const char **pv = calloc(nkeys + 4, sizeof *pv);
    pv[0] = r->param[0]; pv[1] = l; pv[2] = a;
    FILE *q = open_memstream(&sql, &sqllen);
    fputs("SELECT j.id, j.idx, j.status, j.attempt, j.error, m.warnings->>0", q);
    for (size_t k = 0; k < nkeys; k++) {
        const char *obj = k < np ? "j.parameters" : k < np + ns ? "j.solver_overrides" : "r.responses";
        pv[3 + k] = k < np ? pk[k] : k < np + ns ? sk[k - np] : rnames[k - np - ns];
        fprintf(q, ", (%s->$%zu)::text", obj, k + 4);
    }
    for (int k = 0; k < nm; k++) fprintf(q, ", m.%s", mcols[k]);
    fputs(" FROM jobs j LEFT JOIN results r ON r.job_id = j.id LEFT JOIN metrics m ON m.job_id = j.id "
          "WHERE j.sweep_id = $1::uuid AND j.kind = 'design' AND j.idx > $3::int ORDER BY j.idx LIMIT $2::int", q);
    fclose(q);
    res = db_exec(db, sql, (int)nkeys + 3, pv);
    free(pv);
    if (!db_ok(res)) { gw_reply_db_error(r, res); goto done; }
    int n = PQntuples(res);

    FILE *f = open_memstream(&buf, &len);
    fprintf(f, "{\"sweep\":\"%s\",\"status\":", r->param[0]);
    s_str(f, status);
    fprintf(f, ",\"total\":%ld,\"after\":%ld,\"limit\":%ld,\"next\":", total, after, limit);
    if (n == limit) fputs(PQgetvalue(res, n - 1, 1), f); else fputs("null", f);
    fputs(",\"columns\":[", f);
    {
        static const char *job[] = { "job_id", "idx", "status", "attempt", "error" }, *warn[] = { "warning" };
        int first = 1;
        s_columns(f, "job", job, 5, &first);
        s_columns(f, "parameter", pk, np, &first);
        s_columns(f, "solver", sk, ns, &first);
        s_columns(f, "response", rnames, nr, &first);
        s_columns(f, "metric", (const char **)mcols, (size_t)nm, &first);
        s_columns(f, "job", warn, 1, &first);
    }
    fputs("],\"rows\":[", f);
    for (int i = 0; i < n; i++) {
        fputs(i ? ",[" : "[", f);
        for (int c = 0; c < 5; c++) { if (c) fputc(',', f); s_cell(f, res, i, c); }
        /* jsonb text is JSON: pasted as it is */
        for (size_t k = 0; k < nkeys; k++) {
            fputc(',', f);
            fputs(PQgetisnull(res, i, 6 + (int)k) ? "null" : PQgetvalue(res, i, 6 + (int)k), f);
        }
        for (int k = 0; k < nm; k++) { fputc(',', f); s_cell(f, res, i, 6 + (int)nkeys + k); }
        fputc(',', f); s_cell(f, res, i, 5);
        fputc(']', f);
    }
    fputs("]}", f);
    fclose(f);
    gw_reply_text(r, 200, "application/json", buf, len);
done:
    PQclear(res);
    free(sql); free(pk); free(sk); free(rnames);
    json_decref(fp); json_decref(fs); json_decref(rk);
    return 0;
}
