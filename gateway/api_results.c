/*
 * api_results.c - GET /api/v1/sweeps/{id}/results.csv: one row per design
 * job with its parameters, solver options, responses and metrics (the
 * accuracy ones included, then the first warning's text), and, for a sweep
 * with verification, per response the relative difference from the job's
 * verification run (verify_<response>_reldiff, empty for unverified jobs).
 * Verification jobs are not rows of their own.
 *
 * The reply is streamed: the handler reads the column names (one query,
 * in order of first appearance over the jobs), then libmicrohttpd pulls the
 * rows page by page (CSV_PAGE jobs per query, keyset on idx), so memory and
 * time grow linearly with the rows and columns, whatever the sweep's size.
 * Fields are quoted per RFC 4180 where they need it, header names included.
 */
#include "gw.h"
#include "svc/db.h"
#include "svc/jsonout.h"
#include "svc/log.h"

#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Metric columns, in the table's order (also /table?metrics=all, gw.h). */
const char *const gw_metric_cols[] = {
    "integrator", "wall_seconds", "cpu_seconds", "steps", "rejected_steps", "newton_iterations",
    "jacobian_evaluations", "factorizations", "mean_system_dimension", "max_system_dimension",
    "coords_before", "coords_after", "constraints_before", "constraints_after",
    "formulation", "relative_coordinates", "relative_constraints",
    "max_constraint_violation", "max_velocity_violation", "energy_drift", "conservative",
    "mean_active_contacts", "max_active_contacts", "contact_activations", "contact_deactivations",
    "contact_detection_seconds", "linear_algebra_seconds", "peak_memory_bytes", "order_max_used", "singular_steps",
    "slow_multiplier_steps",
    "contact_method", "mean_lcp_dimension", "max_lcp_dimension", "lcp_solves", "lcp_failures", "events", "impacts",
    "max_penetration", "max_complementarity_error", "zeno_closures",
    "nonsmooth_steps", "nonsmooth_error_estimate", "kept_set_reselections",
    "tolerance", "abs_tolerance", "error_estimate", "tolerance_met", "warning_count",
};
#define NMETRIC (sizeof gw_metric_cols / sizeof gw_metric_cols[0])
const int gw_nmetric_cols = (int)NMETRIC;

/* Jobs per page of the streamed rows. */
#define CSV_PAGE 500

/* Write a CSV field, quoted (RFC 4180) when it holds a comma, quote or line
 * break; prefix is part of the field (header names like "response.x"). */
static void s_field2(FILE *f, const char *prefix, const char *s)
{
    if (!strpbrk(prefix, ",\"\n\r") && !strpbrk(s, ",\"\n\r")) { fputs(prefix, f); fputs(s, f); return; }
    fputc('"', f);
    for (const char *p = prefix; *p; p++) { if (*p == '"') fputc('"', f); fputc(*p, f); }
    for (; *s; s++) { if (*s == '"') fputc('"', f); fputc(*s, f); }
    fputc('"', f);
}
static void s_field(FILE *f, const char *s) { s_field2(f, "", s); }

/* A text as a quoted CSV field (nothing for NULL). */
static void s_quoted(FILE *f, const char *s)
{
    if (!s) return;
    fputc('"', f);
    for (; *s; s++) { if (*s == '"') fputc('"', f); fputc(*s, f); }
    fputc('"', f);
}

/* A JSON value as a CSV field: numbers in the fewest digits that read back
 * as the same double, null empty. */
static void s_value(FILE *f, const json_t *v)
{
    if (!v || json_is_null(v)) return;
    if (json_is_integer(v)) fprintf(f, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v)) jsonout_real(f, json_real_value(v));
    else if (json_is_true(v)) fputs("true", f);
    else if (json_is_false(v)) fputs("false", f);
    else if (json_is_string(v)) s_field(f, json_string_value(v));
}

/* The state of one streamed export. */
typedef struct {
    char sweep[40];
    int verified;
    json_t *cols[3];         /* parameter, solver option, response names (arrays) */
    long next_idx;           /* the next page starts at this job index            */
    int done;
    char *buf; size_t len, off; /* the block being sent                            */
} csv_stream;

static void s_stream_free(void *cls)
{
    csv_stream *cs = cls;
    for (int c = 0; c < 3; c++) json_decref(cs->cols[c]);
    free(cs->buf);
    free(cs);
    malloc_trim(0);          /* the pages of the export's blocks go back to the system */
}

/* The header line. */
static void s_header(FILE *f, const csv_stream *cs)
{
    static const char *prefix[3] = { "", "solver.", "response." };
    size_t k; json_t *x;
    fputs("job_id,idx,status,attempt", f);
    for (int c = 0; c < 3; c++)
        json_array_foreach(cs->cols[c], k, x) { fputc(',', f); s_field2(f, prefix[c], json_string_value(x)); }
    for (size_t m = 0; m < NMETRIC; m++) fprintf(f, ",%s", gw_metric_cols[m]);
    fputs(",warning", f);
    if (cs->verified)
        json_array_foreach(cs->cols[2], k, x) {
            char col[96];
            snprintf(col, sizeof col, "%s_reldiff", json_string_value(x));
            fputc(',', f); s_field2(f, "verify_", col);
        }
    fputc('\n', f);
}

/* One job's line from a page row. */
static void s_line(FILE *f, const csv_stream *cs, PGresult *res, int i)
{
    json_t *o[5];
    size_t k; json_t *x;
    for (int c = 0; c < 5; c++) o[c] = json_loads(PQgetvalue(res, i, 4 + c), 0, NULL);
    fprintf(f, "%s,%s,%s,%s", PQgetvalue(res, i, 0), PQgetvalue(res, i, 1), PQgetvalue(res, i, 2), PQgetvalue(res, i, 3));
    for (int c = 0; c < 3; c++)
        json_array_foreach(cs->cols[c], k, x) { fputc(',', f); s_value(f, json_object_get(o[c], json_string_value(x))); }
    for (size_t m = 0; m < NMETRIC; m++) { fputc(',', f); s_value(f, json_object_get(o[3], gw_metric_cols[m])); }
    /* the first warning's text, always quoted */
    fputc(',', f);
    s_quoted(f, json_string_value(json_array_get(json_object_get(o[3], "warnings"), 0)));
    if (cs->verified)
        json_array_foreach(cs->cols[2], k, x) { fputc(',', f); s_value(f, json_object_get(o[4], json_string_value(x))); }
    fputc('\n', f);
    for (int c = 0; c < 5; c++) json_decref(o[c]);
}

/* Fill the block with the next page of lines; 0, or -1 on a database error.
 * Runs on the connection's pool thread, with that thread's connection. */
static int s_page(csv_stream *cs)
{
    char from[24];
    snprintf(from, sizeof from, "%ld", cs->next_idx);
    const char *p[] = { cs->sweep, from };
    PGconn **db = gw_db();
    if (!db) return -1;
    /* metrics as JSON (new columns come along), the relative differences as {response: number} */
    PGresult *res = db_exec(db,
        "SELECT j.id, j.idx, j.status, j.attempt, j.parameters::text, j.solver_overrides::text, "
        "       coalesce(r.responses, '{}')::text, coalesce(to_jsonb(m) - 'job_id', '{}')::text, "
        "       coalesce((SELECT jsonb_object_agg(vr.name, vr.rel_diff) FROM verification_responses vr "
        "                 WHERE vr.job_id = j.id), '{}')::text "
        "FROM jobs j LEFT JOIN results r ON r.job_id = j.id LEFT JOIN metrics m ON m.job_id = j.id "
        "WHERE j.sweep_id = $1::uuid AND j.kind = 'design' AND j.idx >= $2::int "
        "ORDER BY j.idx LIMIT 500", 2, p);
    if (!db_ok(res)) { log_warn("results.csv %s: %s", cs->sweep, PQresultErrorMessage(res)); PQclear(res); return -1; }
    int n = PQntuples(res);
    free(cs->buf); cs->buf = NULL; cs->len = cs->off = 0;
    if (n < CSV_PAGE) cs->done = 1;
    if (n == 0) { PQclear(res); return 0; }
    FILE *f = open_memstream(&cs->buf, &cs->len);
    for (int i = 0; i < n; i++) s_line(f, cs, res, i);
    fclose(f);
    cs->next_idx = atol(PQgetvalue(res, n - 1, 1)) + 1;
    PQclear(res);
    return 0;
}

/* libmicrohttpd's content reader: the block, then the next page. */
static ssize_t s_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    csv_stream *cs = cls;
    (void)pos;
    while (cs->off == cs->len) {
        if (cs->done) return MHD_CONTENT_READER_END_OF_STREAM;
        if (s_page(cs)) return MHD_CONTENT_READER_END_WITH_ERROR;
    }
    size_t n = cs->len - cs->off < max ? cs->len - cs->off : max;
    memcpy(buf, cs->buf + cs->off, n);
    cs->off += n;
    return (ssize_t)n;
}

int api_sweeps_results_csv(gw_req *r)
{
    if (!gw_is_uuid(r->param[0])) return gw_reply_error(r, 404, "not_found", "no such sweep", NULL);
    const char *p[] = { r->param[0] };
    PGconn **db = gw_db();
    if (!db) return gw_reply_db_error(r, NULL);
    PGresult *res = db_exec(db, "SELECT nverify > 0 FROM sweeps WHERE id = $1::uuid", 1, p);
    if (!db_ok(res)) { gw_reply_db_error(r, res); PQclear(res); return 0; }
    if (PQntuples(res) == 0) { PQclear(res); return gw_reply_error(r, 404, "not_found", "no such sweep", NULL); }
    csv_stream *cs = calloc(1, sizeof *cs);
    snprintf(cs->sweep, sizeof cs->sweep, "%s", r->param[0]);
    cs->verified = PQgetvalue(res, 0, 0)[0] == 't';
    PQclear(res);
    /* the column names: the keys of parameters, solver options and
       responses over the design jobs, in order of first appearance (job
       index, then the key's place in its object) */
    res = db_exec(db,
        "WITH j AS (SELECT j.idx, j.parameters, j.solver_overrides, r.responses FROM jobs j "
        "           LEFT JOIN results r ON r.job_id = j.id WHERE j.sweep_id = $1::uuid AND j.kind = 'design'), "
        "     k AS (SELECT 0 AS c, t.k, j.idx, t.o FROM j, jsonb_object_keys(j.parameters) WITH ORDINALITY t(k, o) "
        "           UNION ALL SELECT 1, t.k, j.idx, t.o FROM j, jsonb_object_keys(j.solver_overrides) WITH ORDINALITY t(k, o) "
        "           UNION ALL SELECT 2, t.k, j.idx, t.o FROM j, jsonb_object_keys(coalesce(j.responses, '{}')) WITH ORDINALITY t(k, o)) "
        "SELECT c, k FROM (SELECT DISTINCT ON (c, k) c, k, idx, o FROM k ORDER BY c, k, idx, o) f ORDER BY c, idx, o", 1, p);
    if (!db_ok(res)) { s_stream_free(cs); gw_reply_db_error(r, res); PQclear(res); return 0; }
    for (int c = 0; c < 3; c++) cs->cols[c] = json_array();
    for (int i = 0; i < PQntuples(res); i++)
        json_array_append_new(cs->cols[atoi(PQgetvalue(res, i, 0))], json_string(PQgetvalue(res, i, 1)));
    PQclear(res);
    FILE *f = open_memstream(&cs->buf, &cs->len);
    s_header(f, cs);
    fclose(f);
    r->status = 200;
    r->ctype = "text/csv; charset=utf-8";
    r->reader = s_read; r->reader_cls = cs; r->free_cls = s_stream_free;
    return 0;
}
