/*
 * api_jobs.c - GET /api/v1/sweeps/{id}/jobs (?kind=design, the default, or
 * verify or all), GET /api/v1/jobs/{id} (with its accuracy metrics and, for
 * a verified job or a verification job, the differences between the two
 * runs), GET /api/v1/jobs/{id}/result (JSON or ?format=csv).
 */
#include "gw.h"
#include "svc/db.h"
#include "svc/msg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *s_states[] = { "queued", "running", "done", "failed", "cancelled" };

int api_sweeps_jobs(gw_req *r)
{
    long limit, offset;
    char l[24], o[24];
    const char *status = gw_query(r, "status"), *kind = gw_query(r, "kind");
    if (!gw_is_uuid(r->param[0])) return gw_reply_error(r, 404, "not_found", "no such sweep", NULL);
    if (!kind) kind = "design";
    if (strcmp(kind, "design") && strcmp(kind, "verify") && strcmp(kind, "all"))
        return gw_reply_error(r, 400, "bad_request", "kind must be design, verify or all", NULL);
    if (status) {
        int ok = 0;
        for (int i = 0; i < 5; i++) if (!strcmp(status, s_states[i])) ok = 1;
        if (!ok) return gw_reply_error(r, 400, "bad_request", "status must be queued, running, done, failed or cancelled", NULL);
    }
    if (gw_query_int(r, "limit", 100, 1, 1000, &limit) || gw_query_int(r, "offset", 0, 0, 1L << 40, &offset)) return 0;
    snprintf(l, sizeof l, "%ld", limit); snprintf(o, sizeof o, "%ld", offset);
    const char *p[] = { r->param[0], l, o, status, kind };
    PGconn **db = gw_db();
    if (!db) return gw_reply_db_error(r, NULL);
    return gw_reply_row_json(r, db_exec(db,
        "SELECT json_build_object('items', coalesce((SELECT json_agg(t) FROM ("
        "    SELECT id, idx, kind, verifies, status, attempt, max_attempts, parameters, solver_overrides, "
        "           started_at, finished_at, error FROM jobs "
        "    WHERE sweep_id = $1::uuid AND ($4::text IS NULL OR status = $4) AND ($5 = 'all' OR kind = $5) "
        "    ORDER BY idx LIMIT $2::int OFFSET $3::bigint) t), '[]'), "
        "  'limit', $2::int, 'offset', $3::bigint)::text "
        "FROM sweeps WHERE id = $1::uuid", 5, p), 200, "sweep");
}

int api_jobs_get(gw_req *r)
{
    if (!gw_is_job_id(r->param[0])) return gw_reply_error(r, 404, "not_found", "no such job", NULL);
    const char *p[] = { r->param[0] };
    PGconn **db = gw_db();
    if (!db) return gw_reply_db_error(r, NULL);
    return gw_reply_row_json(r, db_exec(db,
        "SELECT json_build_object('id', j.id, 'sweep_id', j.sweep_id, 'idx', j.idx, 'kind', j.kind, "
        "  'verifies', j.verifies, 'status', j.status, "
        "  'attempt', j.attempt, 'max_attempts', j.max_attempts, 'parameters', j.parameters, "
        "  'solver_overrides', j.solver_overrides, 'lease_owner', j.lease_owner, "
        "  'lease_expires', j.lease_expires, 'not_before', CASE WHEN j.not_before > '-infinity' THEN j.not_before END, "
        "  'started_at', j.started_at, 'finished_at', j.finished_at, 'error', j.error, "
        "  'responses', r.responses, 'worker', r.worker_id, "
        "  'metrics', (SELECT to_jsonb(m) - 'job_id' FROM metrics m WHERE m.job_id = j.id), "
        "  'verification', (SELECT json_build_object('job_id', x.job_id, 'verify_job_id', x.verify_job_id, "
        "        'responses', (SELECT coalesce(json_object_agg(vr.name, json_build_object('value', vr.value, "
        "                        'reference', vr.reference, 'abs_diff', vr.abs_diff, 'rel_diff', vr.rel_diff)), '{}') "
        "                      FROM verification_responses vr WHERE vr.job_id = x.job_id), "
        "        'channels', x.channels, 'created_at', x.created_at) "
        "      FROM verifications x WHERE x.job_id = j.id OR x.verify_job_id = j.id))::text "
        "FROM jobs j LEFT JOIN results r ON r.job_id = j.id WHERE j.id = $1::bigint", 1, p), 200, "job");
}

int api_jobs_result(gw_req *r)
{
    const char *fmt = gw_query(r, "format");
    if (!gw_is_job_id(r->param[0])) return gw_reply_error(r, 404, "not_found", "no such job", NULL);
    if (fmt && strcmp(fmt, "json") && strcmp(fmt, "csv"))
        return gw_reply_error(r, 400, "bad_request", "format must be json or csv", NULL);
    const char *p[] = { r->param[0] };
    PGconn **db = gw_db();
    if (!db) return gw_reply_db_error(r, NULL);
    /* binary result format: the text columns arrive as their bytes, samples raw */
    PGresult *res = db_execb(db,
        "SELECT array_to_json(channels)::text, nsample::text, responses::text, samples "
        "FROM results WHERE job_id = $1::bigint", 1, p, NULL, NULL, 1);
    if (!db_ok(res)) { gw_reply_db_error(r, res); PQclear(res); return 0; }
    if (PQntuples(res) == 0) { PQclear(res); return gw_reply_error(r, 404, "not_found", "no result for this job (yet)", NULL); }
    json_t *channels = json_loadb(PQgetvalue(res, 0, 0), (size_t)PQgetlength(res, 0, 0), 0, NULL);
    long nsample = strtol(PQgetvalue(res, 0, 1), NULL, 10);
    json_t *responses = json_loadb(PQgetvalue(res, 0, 2), (size_t)PQgetlength(res, 0, 2), 0, NULL);
    size_t nch = json_array_size(channels), ncol = nch + 1;
    if ((size_t)PQgetlength(res, 0, 3) < (size_t)nsample * ncol * 8) nsample = 0;
    double *rows = malloc(sizeof(double) * (nsample * ncol + 1));
    msg_get_f64le(rows, (const unsigned char *)PQgetvalue(res, 0, 3), (size_t)nsample * ncol);
    PQclear(res);
    if (fmt && !strcmp(fmt, "csv")) {
        /* time,<channels> then one line per sample */
        char *buf = NULL; size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        fputs("time", f);
        for (size_t c = 0; c < nch; c++) fprintf(f, ",%s", json_string_value(json_array_get(channels, c)));
        fputc('\n', f);
        for (long i = 0; i < nsample; i++) {
            for (size_t c = 0; c < ncol; c++) fprintf(f, c ? ",%.17g" : "%.17g", rows[i * ncol + c]);
            fputc('\n', f);
        }
        fclose(f);
        free(rows); json_decref(channels); json_decref(responses);
        return gw_reply_text(r, 200, "text/csv; charset=utf-8", buf, len);
    }
    /* JSON: columns and rows (row-major, time first) */
    json_t *cols = json_array(), *data = json_array();
    json_array_append_new(cols, json_string("time"));
    json_array_extend(cols, channels);
    for (long i = 0; i < nsample; i++) {
        json_t *row = json_array();
        for (size_t c = 0; c < ncol; c++) json_array_append_new(row, json_real(rows[i * ncol + c]));
        json_array_append_new(data, row);
    }
    free(rows); json_decref(channels);
    return gw_reply_json(r, 200, json_pack("{s:I,s:o,s:I,s:o,s:o}", "job", (json_int_t)strtoll(r->param[0], NULL, 10),
                                           "columns", cols, "nsample", (json_int_t)nsample,
                                           "rows", data, "responses", responses ? responses : json_object()));
}
