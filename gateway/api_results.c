/*
 * api_results.c - GET /api/v1/sweeps/{id}/results.csv: one row per design
 * job with its parameters, solver options, responses and metrics (the
 * accuracy ones included, then the first warning's text), and, for a sweep
 * with verification, per response the relative difference from the job's
 * verification run (verify_<response>_reldiff, empty for unverified jobs).
 * Verification jobs are not rows of their own.
 */
#include "gw.h"
#include "svc/db.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Metric columns, in the table's order (also /table?metrics=all, gw.h). */
const char *const gw_metric_cols[] = {
    "integrator", "wall_seconds", "cpu_seconds", "steps", "rejected_steps", "newton_iterations",
    "jacobian_evaluations", "factorizations", "mean_system_dimension", "max_system_dimension",
    "coords_before", "coords_after", "constraints_before", "constraints_after",
    "max_constraint_violation", "max_velocity_violation", "energy_drift", "conservative",
    "mean_active_contacts", "max_active_contacts", "contact_activations", "contact_deactivations",
    "contact_detection_seconds", "linear_algebra_seconds", "peak_memory_bytes", "order_max_used", "singular_steps",
    "contact_method", "mean_lcp_dimension", "max_lcp_dimension", "lcp_solves", "lcp_failures", "events", "impacts",
    "max_penetration", "max_complementarity_error", "zeno_closures",
    "tolerance", "abs_tolerance", "error_estimate", "tolerance_met", "warning_count",
};
#define NMETRIC (sizeof gw_metric_cols / sizeof gw_metric_cols[0])
const int gw_nmetric_cols = (int)NMETRIC;

/* Write a CSV field (quoted when needed). */
static void s_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) { fputs(s, f); return; }
    fputc('"', f);
    for (; *s; s++) { if (*s == '"') fputc('"', f); fputc(*s, f); }
    fputc('"', f);
}

/* A text as a quoted CSV field (nothing for NULL). */
static void s_quoted(FILE *f, const char *s)
{
    if (!s) return;
    fputc('"', f);
    for (; *s; s++) { if (*s == '"') fputc('"', f); fputc(*s, f); }
    fputc('"', f);
}

/* The header of a response's verification column: verify_<name>_reldiff. */
static void s_verify_col(FILE *f, const char *name)
{
    char col[128];
    snprintf(col, sizeof col, "verify_%s_reldiff", name);
    s_field(f, col);
}

/* A JSON value as a CSV field: numbers with full precision, null empty. */
static void s_value(FILE *f, const json_t *v)
{
    if (!v || json_is_null(v)) return;
    if (json_is_integer(v)) fprintf(f, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v)) fprintf(f, "%.17g", json_real_value(v));
    else if (json_is_true(v)) fputs("true", f);
    else if (json_is_false(v)) fputs("false", f);
    else if (json_is_string(v)) s_field(f, json_string_value(v));
}

/* Add the keys of obj not yet in the ordered key list. */
static void s_keys(json_t *keys, const json_t *obj)
{
    const char *k; json_t *v;
    json_object_foreach((json_t *)obj, k, v) {
        size_t i; json_t *x; int seen = 0;
        json_array_foreach(keys, i, x) if (!strcmp(json_string_value(x), k)) seen = 1;
        if (!seen) json_array_append_new(keys, json_string(k));
    }
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
    int verified = PQgetvalue(res, 0, 0)[0] == 't';
    PQclear(res);
    /* metrics as JSON (new columns come along), the relative differences as {response: number} */
    res = db_exec(db,
        "SELECT j.id, j.idx, j.status, j.attempt, j.parameters::text, j.solver_overrides::text, "
        "       coalesce(r.responses, '{}')::text, coalesce(to_jsonb(m) - 'job_id', '{}')::text, "
        "       coalesce((SELECT jsonb_object_agg(vr.name, vr.rel_diff) FROM verification_responses vr "
        "                 WHERE vr.job_id = j.id), '{}')::text "
        "FROM jobs j LEFT JOIN results r ON r.job_id = j.id LEFT JOIN metrics m ON m.job_id = j.id "
        "WHERE j.sweep_id = $1::uuid AND j.kind = 'design' ORDER BY j.idx", 1, p);
    if (!db_ok(res)) { gw_reply_db_error(r, res); PQclear(res); return 0; }
    int n = PQntuples(res);
    json_t **rows = calloc((size_t)n * 5 + 1, sizeof *rows);
    json_t *pk = json_array(), *sk = json_array(), *rk = json_array();
    /* first pass: the union of parameter, option and response names */
    for (int i = 0; i < n; i++)
        for (int c = 0; c < 3; c++) {
            rows[5 * i + c] = json_loads(PQgetvalue(res, i, 4 + c), 0, NULL);
            s_keys(c == 0 ? pk : c == 1 ? sk : rk, rows[5 * i + c]);
        }
    for (int i = 0; i < n; i++) {
        rows[5 * i + 3] = json_loads(PQgetvalue(res, i, 7), 0, NULL);
        rows[5 * i + 4] = json_loads(PQgetvalue(res, i, 8), 0, NULL);
    }
    /* header */
    char *buf = NULL; size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    size_t k; json_t *x;
    fputs("job_id,idx,status,attempt", f);
    json_array_foreach(pk, k, x) { fputc(',', f); s_field(f, json_string_value(x)); }
    json_array_foreach(sk, k, x) { fputs(",solver.", f); s_field(f, json_string_value(x)); }
    json_array_foreach(rk, k, x) { fputs(",response.", f); s_field(f, json_string_value(x)); }
    for (size_t m = 0; m < NMETRIC; m++) fprintf(f, ",%s", gw_metric_cols[m]);
    fputs(",warning", f);
    if (verified) json_array_foreach(rk, k, x) { fputs(",", f); s_verify_col(f, json_string_value(x)); }
    fputc('\n', f);
    /* one line per job */
    for (int i = 0; i < n; i++) {
        fprintf(f, "%s,%s,%s,%s", PQgetvalue(res, i, 0), PQgetvalue(res, i, 1), PQgetvalue(res, i, 2), PQgetvalue(res, i, 3));
        json_array_foreach(pk, k, x) { fputc(',', f); s_value(f, json_object_get(rows[5 * i], json_string_value(x))); }
        json_array_foreach(sk, k, x) { fputc(',', f); s_value(f, json_object_get(rows[5 * i + 1], json_string_value(x))); }
        json_array_foreach(rk, k, x) { fputc(',', f); s_value(f, json_object_get(rows[5 * i + 2], json_string_value(x))); }
        for (size_t m = 0; m < NMETRIC; m++) { fputc(',', f); s_value(f, json_object_get(rows[5 * i + 3], gw_metric_cols[m])); }
        /* the first warning's text, always quoted */
        fputc(',', f);
        s_quoted(f, json_string_value(json_array_get(json_object_get(rows[5 * i + 3], "warnings"), 0)));
        if (verified)
            json_array_foreach(rk, k, x) { fputc(',', f); s_value(f, json_object_get(rows[5 * i + 4], json_string_value(x))); }
        fputc('\n', f);
    }
    fclose(f);
    for (int i = 0; i < 5 * n; i++) json_decref(rows[i]);
    free(rows);
    json_decref(pk); json_decref(sk); json_decref(rk);
    PQclear(res);
    return gw_reply_text(r, 200, "text/csv; charset=utf-8", buf, len);
}
