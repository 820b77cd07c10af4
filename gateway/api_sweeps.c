/*
 * api_sweeps.c - POST /api/v1/sweeps, GET /api/v1/sweeps, GET /api/v1/sweeps/{id}.
 *
 * Creation validates the whole specification first (keys, model, design,
 * responses, and the solver options through a parse of the model with the
 * first row of overrides), then stores the sweep and every one of its jobs
 * in one transaction (COPY), and only then wakes the dispatcher.  With
 * "verify": f the same transaction adds the verification jobs (kind
 * 'verify', after the design jobs in idx and id, so they are claimed after
 * them; see sweep_verify.c).
 */
#include "gw.h"
#include "sweep_sql.h"
#include "mechanism/mechanism.h"
#include "svc/db.h"
#include "svc/design.h"
#include "svc/job.h"
#include "svc/jsonout.h"
#include "svc/log.h"
#include "svc/verify.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

int gw_store_model(gw_req *r, const json_t *mech, char id[17], int *created, json_t **report_out);
json_t *gw_verify_plan(const json_t *spec, const json_t *defaults, const char *def, long n, long limit);

static json_t *s_detail(const char *pointer, const char *message)
{
    return json_pack("[{s:s,s:s}]", "pointer", pointer, "message", message);
}

static int s_invalid(gw_req *r, const char *pointer, const char *message)
{
    return gw_reply_error(r, 422, "invalid_sweep", message, s_detail(pointer, message));
}

/* The COPY buffer being filled by the design expansion. */
typedef struct {
    char *buf; size_t len, cap;
    const char *sweep_id;
    int priority, max_attempts;
    json_t *first_solvers;   /* the solver objects of the first row (validation) */
    json_t *first_params;
} copy_buf;

/* Append s to the buffer with COPY text escaping. */
static void s_put(copy_buf *b, const char *s, int escape)
{
    size_t n = strlen(s);
    if (b->len + 2 * n + 64 > b->cap) {
        b->cap = (b->len + 2 * n + 64) * 2;
        b->buf = realloc(b->buf, b->cap);
    }
    for (; *s; s++) {
        if (escape && (*s == '\\' || *s == '\t' || *s == '\n' || *s == '\r')) {
            b->buf[b->len++] = '\\';
            b->buf[b->len++] = *s == '\t' ? 't' : *s == '\n' ? 'n' : *s == '\r' ? 'r' : '\\';
        } else b->buf[b->len++] = *s;
    }
}

/* design_emit_fn: one COPY line per job. */
static int s_emit_copy(long idx, json_t *params, json_t *solver, void *user)
{
    copy_buf *b = user;
    char head[160];
    char *p = jsonout_dumps(params, JSON_COMPACT);
    char *s = jsonout_dumps(solver, JSON_COMPACT);
    snprintf(head, sizeof head, "%s\t%ld\t%d\t%d\t", b->sweep_id, idx, b->priority, b->max_attempts);
    s_put(b, head, 0);
    s_put(b, p, 1); s_put(b, "\t", 0); s_put(b, s, 1); s_put(b, "\n", 0);
    free(p); free(s);
    return 0;
}

/* design_emit_fn for validation: keep the first row's solver combinations. */
static int s_emit_first(long idx, json_t *params, json_t *solver, void *user)
{
    copy_buf *b = user;
    if (!b->first_params) b->first_params = json_deep_copy(params);
    else if (!json_equal(params, b->first_params)) return 1; /* second row: stop */
    json_array_append_new(b->first_solvers, json_deep_copy(solver));
    return idx >= 63; /* at most 64 combinations checked */
}

/* Check every key and value type of the specification that design.c does not. */
static int s_check_top(gw_req *r, const json_t *spec)
{
    static const char *keys[] = { "model", "name", "design", "parameters", "solver", "responses",
                                  "priority", "max_attempts", "time_limit", "verify" };
    const char *k; json_t *v;
    json_object_foreach((json_t *)spec, k, v) {
        int known = 0;
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) if (!strcmp(k, keys[i])) known = 1;
        if (!known) {
            char ptr[160];
            snprintf(ptr, sizeof ptr, "/%.100s", k);
            return s_invalid(r, ptr, "unknown key"), -1;
        }
    }
    v = json_object_get(spec, "model");
    if (!json_is_string(v) && !json_is_object(v))
        return s_invalid(r, "/model", "model must be a stored model's id or a mechanism object"), -1;
    v = json_object_get(spec, "name");
    if (v && (!json_is_string(v) || strlen(json_string_value(v)) > 200))
        return s_invalid(r, "/name", "name must be a string of at most 200 characters"), -1;
    v = json_object_get(spec, "priority");
    if (v && (!json_is_integer(v) || json_integer_value(v) < -1000000 || json_integer_value(v) > 1000000))
        return s_invalid(r, "/priority", "priority must be an integer in -1000000..1000000"), -1;
    v = json_object_get(spec, "max_attempts");
    if (v && (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > 20))
        return s_invalid(r, "/max_attempts", "max_attempts must be an integer in 1..20"), -1;
    /* numeric solver options within their documented ranges */
    {
        char ptr[160], msg[200];
        if (gw_solver_ranges_ok(json_object_get(spec, "solver"), "/solver", ptr, sizeof ptr, msg, sizeof msg))
            return s_invalid(r, ptr, msg), -1;
    }
    v = json_object_get(spec, "time_limit");
    if (v && (!json_is_number(v) || json_number_value(v) <= 0 || json_number_value(v) > 86400))
        return s_invalid(r, "/time_limit", "time_limit must be a number of seconds in (0, 86400]"), -1;
    /* verify: the fraction of design jobs re-run ten times more accurately
       (jansson refuses NaN and overflowing literals at parse time) */
    v = json_object_get(spec, "verify");
    if (v && !json_is_number(v))
        return gw_reply_error(r, 422, "invalid_sweep", "verify must be a number: the fraction of jobs to verify, "
                              "0 < verify <= 1 (0: no verification)",
                              s_detail("/verify", "must be a number in (0, 1], or 0 for none")), -1;
    if (v && !(isfinite(json_number_value(v)) && json_number_value(v) >= 0 && json_number_value(v) <= 1))
        return gw_reply_error(r, 422, "invalid_sweep", "verify must be a fraction of the jobs: 0 < verify <= 1 "
                              "(0: no verification)",
                              s_detail("/verify", "must be a number in (0, 1], or 0 for none")), -1;
    return 0;
}

/* The model parsed with a row's parameters and one solver combination, or
 * NULL with the errors in el. */
static mbs_spec *s_parse_with(const char *def, const json_t *params, const json_t *solver, mbs_errlist *el)
{
    job_overrides ov;
    job_overrides_build(params, solver, &ov);
    mbs_spec *spec = mech_parse(def, strlen(def), ov.ov, ov.n, el);
    job_overrides_free(&ov);
    return spec;
}

/* A combination with solver.formulation "relative" that the relative
 * formulation refuses (an integrator other than dopri5, an element it does
 * not run yet) but that parses in natural coordinates: the sweep is
 * accepted and those jobs fail with the solver's message, like any failed
 * job, so that a paired sweep (formulation [natural, relative], crossed with
 * integrators) keeps its natural runs.  The natural parse, or NULL. */
static mbs_spec *s_parse_natural(const char *def, const json_t *params, const json_t *solver)
{
    const char *f = json_string_value(json_object_get(solver, "formulation"));
    if (!f || strcmp(f, "relative")) return NULL;
    json_t *nat = json_deep_copy(solver);
    json_object_set_new(nat, "formulation", json_string("natural"));
    mbs_errlist *el = calloc(1, sizeof *el);
    mbs_spec *spec = el ? s_parse_with(def, params, nat, el) : NULL;
    free(el);
    json_decref(nat);
    return spec;
}

/* Parse the model with the first row's overrides: solver option names and
 * values, parameter values, response channels.  0 or -1 with the reply set. */
static int s_check_overrides(gw_req *r, const char *def, copy_buf *b, const json_t *responses)
{
    size_t i; json_t *solver;
    json_array_foreach(b->first_solvers, i, solver) {
        json_t *report, *details;
        mbs_errlist *el = calloc(1, sizeof *el);
        mbs_spec *spec = s_parse_with(def, b->first_params, solver, el);
        if (!spec) spec = s_parse_natural(def, b->first_params, solver);
        if (!spec) {
            details = json_array();
            for (int k = 0; k < el->n; k++)
                json_array_append_new(details, json_pack("{s:s,s:s}", "pointer", el->e[k].pointer, "message", el->e[k].message));
            free(el);
            return gw_reply_error(r, 422, "invalid_sweep", "the model does not accept these parameters or solver options", details), -1;
        }
        free(el);
        /* responses must name channels of the model */
        if (i == 0) {
            const char **names = calloc((size_t)spec->nchannel + 1, sizeof *names);
            char ptr[128], msg[256];
            for (int c = 0; c < spec->nchannel; c++) names[c] = spec->channels[c].name;
            int bad = job_responses_check(responses, names, spec->nchannel, ptr, sizeof ptr, msg, sizeof msg);
            free(names);
            if (bad) { mbs_spec_free(&spec); return s_invalid(r, ptr, msg), -1; }
        }
        mbs_spec_free(&spec);
        (void)report;
    }
    return 0;
}

int api_sweeps_create(gw_req *r)
{
    json_t *spec = json_deep_copy(r->json), *defaults = NULL, *plan = NULL;
    copy_buf b = { 0 };
    design_err de;
    char model_id[17], priotxt[32], sweep_id[40] = "";
    char *def = NULL, *spec_text = NULL;
    PGconn **db = gw_db();
    PGresult *res = NULL;
    long n;
    int created;
    if (!db) { json_decref(spec); return gw_reply_db_error(r, NULL); }
    if (s_check_top(r, spec)) goto done;
    {
        char ptr[128], msg[256];
        if (job_responses_check(json_object_get(spec, "responses"), NULL, 0, ptr, sizeof ptr, msg, sizeof msg)) {
            s_invalid(r, ptr, msg); goto done;
        }
    }
    /* the model: a stored id, or a mechanism stored now */
    json_t *m = json_object_get(spec, "model");
    if (json_is_object(m)) {
        if (gw_store_model(r, m, model_id, &created, NULL)) goto done;
        json_object_set_new(spec, "model", json_string(model_id));
    } else {
        snprintf(model_id, sizeof model_id, "%s", json_string_value(m));
    }
    const char *pm[] = { model_id };
    if (!gw_is_model_id(model_id)) { s_invalid(r, "/model", "no such model"); goto done; }
    res = db_exec(db, "SELECT definition::text, coalesce(definition->'parameters', '{}')::text FROM models WHERE id = $1", 1, pm);
    if (!db_ok(res)) { gw_reply_db_error(r, res); goto done; }
    if (PQntuples(res) == 0) { s_invalid(r, "/model", "no such model"); goto done; }
    def = strdup(PQgetvalue(res, 0, 0));
    defaults = json_loads(PQgetvalue(res, 0, 1), 0, NULL);
    PQclear(res); res = NULL;
    /* a seed is always recorded, so that the sweep can be expanded again */
    json_t *design = json_object_get(spec, "design");
    if (!design) json_object_set_new(spec, "design", design = json_pack("{s:s}", "kind", "grid"));
    if (json_is_object(design) && !json_object_get(design, "seed")) {
        unsigned int rnd = 0;
        if (getrandom(&rnd, sizeof rnd, 0) != sizeof rnd) rnd = 12345;
        json_object_set_new(design, "seed", json_integer(rnd & 0x7fffffff));
    }
    /* validate and count, then check the first row against the model */
    n = design_expand(spec, defaults, gw_cfg.job_limit, NULL, NULL, &de);
    if (n == DESIGN_ELIMIT) {
        gw_reply_error(r, 422, "too_many_jobs", de.message, s_detail(de.pointer, de.message));
        goto done;
    }
    if (n < 0) { s_invalid(r, de.pointer, de.message); goto done; }
    if (n == 0) { s_invalid(r, "/design", "the sweep has no jobs"); goto done; }
    b.first_solvers = json_array();
    design_expand(spec, defaults, gw_cfg.job_limit, s_emit_first, &b, &de);
    if (s_check_overrides(r, def, &b, json_object_get(spec, "responses"))) goto done;
    /* verification jobs: counted against the limit, then chosen and given
       their solver options before the transaction */
    json_t *vf = json_object_get(spec, "verify");
    long nverify = verify_count(json_is_number(vf) ? json_number_value(vf) : 0, n);
    if (n + nverify > gw_cfg.job_limit) {
        char msg[200];
        snprintf(msg, sizeof msg, "%ld design jobs and %ld verification jobs exceed the limit of %ld jobs per sweep",
                 n, nverify, gw_cfg.job_limit);
        gw_reply_error(r, 422, "too_many_jobs", msg, s_detail("/verify", msg));
        goto done;
    }
    /* ?dry_run=1 (a form's job count): everything checked, nothing stored */
    const char *dry = gw_query(r, "dry_run");
    if (dry && strcmp(dry, "0") && strcmp(dry, "1")) {
        gw_reply_error(r, 400, "bad_request", "dry_run must be 0 or 1", NULL);
        goto done;
    }
    if (dry && !strcmp(dry, "1")) {
        gw_reply_json(r, 200, json_pack("{s:s,s:I,s:I,s:b}", "model", model_id, "jobs", (json_int_t)n,
                                        "verify_jobs", (json_int_t)nverify, "dry_run", 1));
        goto done;
    }
    plan = gw_verify_plan(spec, defaults, def, n, gw_cfg.job_limit);
    if (!plan) { gw_reply_error(r, 503, "unavailable", "out of memory", NULL); goto done; }
    nverify = (long)json_array_size(plan);   /* fewer when a chosen job's model does not parse */
    /* one transaction: the sweep, then every job by COPY */
    json_t *pr = json_object_get(spec, "priority"), *ma = json_object_get(spec, "max_attempts");
    b.priority = pr ? (int)json_integer_value(pr) : 0;
    b.max_attempts = ma ? (int)json_integer_value(ma) : gw_cfg.max_attempts;
    spec_text = jsonout_dumps(spec, JSON_COMPACT);
    snprintf(priotxt, sizeof priotxt, "%d", b.priority);
    {
        json_t *nm = json_object_get(spec, "name");
        char njobs[24], nver[24];
        snprintf(njobs, sizeof njobs, "%ld", n);
        snprintf(nver, sizeof nver, "%ld", nverify);
        const char *ps[] = { model_id, nm ? json_string_value(nm) : "", spec_text,
                             json_string_value(json_object_get(json_object_get(spec, "design"), "kind"))
                                 ? json_string_value(json_object_get(json_object_get(spec, "design"), "kind")) : "grid",
                             priotxt, njobs, nver };
        if (db_cmd(db, "begin", "BEGIN", 0, NULL)) { gw_reply_db_error(r, NULL); goto done; }
        res = db_exec(db, "INSERT INTO sweeps (model_id, name, spec, design, priority, njobs, nverify) "
                          "VALUES ($1, $2, $3::jsonb, $4, $5::int, $6::int, $7::int) RETURNING id", 7, ps);
        if (!db_ok(res)) { gw_reply_db_error(r, res); goto rollback; }
        snprintf(sweep_id, sizeof sweep_id, "%s", PQgetvalue(res, 0, 0));
        PQclear(res); res = NULL;
    }
    b.sweep_id = sweep_id;
    if (design_expand(spec, defaults, gw_cfg.job_limit, s_emit_copy, &b, &de) != n) {
        gw_reply_error(r, 500, "internal", "expansion changed", NULL); goto rollback;
    }
    res = PQexec(*db, "COPY jobs (sweep_id, idx, priority, max_attempts, parameters, solver_overrides) FROM STDIN");
    if (PQresultStatus(res) != PGRES_COPY_IN) { gw_reply_db_error(r, res); goto rollback; }
    PQclear(res);
    if (PQputCopyData(*db, b.buf, (int)b.len) != 1 || PQputCopyEnd(*db, NULL) != 1) {
        res = NULL; gw_reply_db_error(r, NULL); goto rollback;
    }
    res = PQgetResult(*db);
    if (!db_ok(res)) { gw_reply_db_error(r, res); while ((res = PQgetResult(*db))) PQclear(res); goto rollback; }
    PQclear(res); res = NULL;
    if (nverify > 0) {
        /* each verification job copies its design job's row, with the tighter options */
        char *pt = jsonout_dumps(plan, JSON_COMPACT);
        const char *pv[] = { sweep_id, pt };
        res = db_exec(db,
            "INSERT INTO jobs (sweep_id, idx, priority, max_attempts, parameters, solver_overrides, kind, verifies) "
            "SELECT j.sweep_id, x.vidx, j.priority, j.max_attempts, j.parameters, x.solver, 'verify', j.id "
            "FROM jsonb_to_recordset($2::jsonb) AS x(idx integer, vidx integer, solver jsonb) "
            "JOIN jobs j ON j.sweep_id = $1::uuid AND j.idx = x.idx ORDER BY x.vidx", 2, pv);
        free(pt);
        if (!db_ok(res)) { gw_reply_db_error(r, res); goto rollback; }
        PQclear(res); res = NULL;
    }
    if (db_cmd(db, "commit", "COMMIT", 0, NULL)) { gw_reply_db_error(r, NULL); goto done; }
    log_info("sweep %s: %ld jobs stored (and %ld verification jobs)", sweep_id, n, nverify);
    gw_dispatch_kick();
    gw_reply_json(r, 202, json_pack("{s:s,s:s,s:I,s:I,s:s}", "id", sweep_id, "model", model_id,
                                    "jobs", (json_int_t)n, "verify_jobs", (json_int_t)nverify,
                                    "status", "queued"));
    goto done;
rollback:
    PQclear(res); res = NULL;
    db_cmd(db, "rollback", "ROLLBACK", 0, NULL);
done:
    PQclear(res);
    json_decref(spec); json_decref(defaults); json_decref(plan);
    json_decref(b.first_solvers); json_decref(b.first_params);
    free(b.buf); free(def); free(spec_text);
    return 0;
}

int api_sweeps_list(gw_req *r)
{
    long limit, offset;
    char l[24], o[24];
    const char *status = gw_query(r, "status"), *model = gw_query(r, "model"), *best = gw_query(r, "best");
    if (gw_query_int(r, "limit", 50, 1, 1000, &limit) || gw_query_int(r, "offset", 0, 0, 1L << 40, &offset)) return 0;
    if (best && (!*best || strlen(best) > 200))
        return gw_reply_error(r, 400, "bad_request", "best must name a response (1 to 200 characters)", NULL);
    snprintf(l, sizeof l, "%ld", limit); snprintf(o, sizeof o, "%ld", offset);
    const char *p[] = { l, o, status, model, best };
    PGconn **db = gw_db();
    if (!db) return gw_reply_db_error(r, NULL);
    /* A done or cancelled sweep's counts, warnings, verified jobs and best
     * values come from its stored summary (sweep_sql.h: made once when it
     * finished, for that finished_at; best values of its first 16 declared
     * responses); the others' come from the counts the triggers of
     * sql/015_sweep_counts.sql keep (a few rows, not a scan of the jobs),
     * their best values are looked up per job.
     * The live subqueries are guarded by the same test (a one-time filter of
     * the lateral counts, CASE for the others), so a finished sweep reads
     * only its summary. */
    return gw_reply_row_json(r, db_exec(db,
        "SELECT json_build_object('items', coalesce(json_agg(t), '[]'), 'limit', $1::int, 'offset', $2::bigint)::text "
        "FROM (SELECT sweeps.id, sweeps.name, model_id, mo.name AS model_name, design, status, priority, njobs, "
        "             CASE WHEN h.cur THEN (sweeps.summary->>'jobs_with_warnings')::bigint "
        "                  ELSE " SQL_COUNTED_WARNED("sweeps.id", "design") " END AS jobs_with_warnings, "
        "             z.counts || CASE WHEN h.cur THEN sweeps.summary->'counts' ELSE k.counts END AS counts, "
        "             CASE WHEN status = 'running' AND k.finished > 0 AND started_at IS NOT NULL "
        "                  THEN now() + (now() - started_at) * ((k.total - k.finished)::float8 / k.finished) END AS eta, "
        "             coalesce((spec->>'verify')::float8, 0) AS verify, nverify AS verify_jobs, "
        "             CASE WHEN h.cur THEN (sweeps.summary->>'jobs_verified')::bigint "
        "                  ELSE (SELECT count(*) FROM verifications x WHERE x.sweep_id = sweeps.id) END AS jobs_verified, "
        /* the names of the responses, and with ?best=NAME the least and
           largest value of that response over the done design jobs */
        "             (SELECT coalesce(json_agg(x->>'name'), '[]') FROM jsonb_array_elements(CASE WHEN jsonb_typeof(spec->'responses') = 'array' "
        "                     THEN spec->'responses' ELSE '[]' END) x) AS responses, "
        "             CASE WHEN $5::text IS NULL THEN NULL "
        "                  WHEN h.cur AND sweeps.summary->'best' ? $5::text THEN json_build_object('response', $5::text, "
        "                       'min', (sweeps.summary->'best'->$5::text->>'min')::float8, "
        "                       'max', (sweeps.summary->'best'->$5::text->>'max')::float8, "
        "                       'jobs', coalesce((sweeps.summary->'best'->$5::text->>'jobs')::bigint, 0)) "
        "                  ELSE " SQL_BEST("sweeps.id", "$5::text") " END AS best, "
        "             sweeps.created_at, started_at, finished_at "
        "      FROM sweeps JOIN models mo ON mo.id = sweeps.model_id "
        "      CROSS JOIN LATERAL (SELECT " SQL_SUMMARY_CURRENT("sweeps") " IS TRUE AS cur) h "
        /* live design-job counts per state (sweep_counts); the ETA over
           both kinds, as GET /sweeps/{id} */
        "      CROSS JOIN LATERAL (SELECT coalesce(jsonb_object_agg(c.status, c.n) FILTER (WHERE c.kind = 'design'), '{}') AS counts, "
        "                                 coalesce(sum(c.n) FILTER (WHERE c.status IN ('done','failed','cancelled')), 0) AS finished, "
        "                                 coalesce(sum(c.n), 0) AS total "
        "                          FROM " SQL_COUNTED_STATES("sweeps.id") " c WHERE NOT h.cur) k "
        "      CROSS JOIN (SELECT '{\"queued\":0,\"running\":0,\"done\":0,\"failed\":0,\"cancelled\":0}'::jsonb AS counts) z "
        "      WHERE ($3::text IS NULL OR status = $3) AND ($4::text IS NULL OR model_id = $4) "
        "      ORDER BY sweeps.created_at DESC, sweeps.id LIMIT $1::int OFFSET $2::bigint) t", 5, p), 200, "sweeps");
}

/* The summary of one sweep.  Progress (njobs, counts) counts the design
 * jobs; the verification jobs have their own counts under "verification";
 * the status becomes done when both kinds are finished, and the ETA is
 * taken over both. */
int api_sweeps_get(gw_req *r)
{
    if (!gw_is_uuid(r->param[0])) return gw_reply_error(r, 404, "not_found", "no such sweep", NULL);
    const char *p[] = { r->param[0] };
    PGconn **db = gw_db();
    if (!db) return gw_reply_db_error(r, NULL);
    /* counts per kind and state, from sweep_counts (sql/015, kept by
     * triggers: a few rows whatever the sweep's size) or from the stored
     * summary of a finished sweep (as the list); ETA from the rate of
     * finished jobs so far */
    return gw_reply_row_json(r, db_exec(db,
        "WITH h AS (SELECT " SQL_SUMMARY_CURRENT("s") " IS TRUE AS cur FROM sweeps s WHERE s.id = $1::uuid), "
        "     c AS (SELECT * FROM " SQL_COUNTED_STATES("$1::uuid") " c0 "
        "           WHERE NOT coalesce((SELECT cur FROM h), false)), "
        "     k AS (SELECT coalesce(jsonb_object_agg(status, n) FILTER (WHERE kind = 'design'), '{}') AS counts, "
        "                  coalesce(jsonb_object_agg(status, n) FILTER (WHERE kind = 'verify'), '{}') AS vcounts, "
        "                  coalesce(sum(n) FILTER (WHERE status IN ('done','failed','cancelled')), 0) AS finished, "
        "                  coalesce(sum(n), 0) AS total "
        "           FROM c), "
        "     vr AS (SELECT DISTINCT ON (vr.name) vr.name, vr.job_id, vr.rel_diff, "
        "                   max(vr.abs_diff) OVER (PARTITION BY vr.name) AS abs_diff "
        "            FROM verifications x JOIN verification_responses vr ON vr.job_id = x.job_id "
        "            WHERE x.sweep_id = $1::uuid ORDER BY vr.name, vr.rel_diff DESC NULLS LAST, vr.job_id), "
        "     vc AS (SELECT e.key, max((e.value #>> '{}')::float8) AS d "
        "            FROM verifications x, jsonb_each(x.channels) e WHERE x.sweep_id = $1::uuid GROUP BY e.key), "
        "     z AS (SELECT '{\"queued\":0,\"running\":0,\"done\":0,\"failed\":0,\"cancelled\":0}'::jsonb AS counts) "
        "SELECT json_build_object('id', s.id, 'name', s.name, 'model_id', s.model_id, "
        "  'model_name', (SELECT mo.name FROM models mo WHERE mo.id = s.model_id), 'design', s.design, "
        "  'status', s.status, 'priority', s.priority, 'njobs', s.njobs, "
        "  'counts', z.counts || CASE WHEN h.cur THEN s.summary->'counts' ELSE k.counts END, "
        "  'jobs_with_warnings', CASE WHEN h.cur THEN (s.summary->>'jobs_with_warnings')::bigint "
        "                        ELSE " SQL_COUNTED_WARNED("$1::uuid", "design") " END, "
        "  'verification', json_build_object("
        "     'fraction', coalesce((s.spec->>'verify')::float8, 0), 'jobs', s.nverify, "
        "     'counts', z.counts || CASE WHEN h.cur THEN s.summary->'verification_counts' ELSE k.vcounts END, "
        "     'verified', CASE WHEN h.cur THEN (s.summary->>'jobs_verified')::bigint "
        "                 ELSE (SELECT count(*) FROM verifications x WHERE x.sweep_id = $1::uuid) END, "
        "     'jobs_with_warnings', CASE WHEN h.cur THEN (s.summary->>'verification_jobs_with_warnings')::bigint "
        "                           ELSE " SQL_COUNTED_WARNED("$1::uuid", "verify") " END, "
        "     'responses', (SELECT coalesce(json_object_agg(name, json_build_object('max_rel_diff', rel_diff, "
        "                     'max_abs_diff', abs_diff, 'job_id', job_id)), '{}') FROM vr), "
        "     'channels', (SELECT coalesce(json_object_agg(key, d), '{}') FROM vc)), "
        "  'created_at', s.created_at, 'started_at', s.started_at, 'finished_at', s.finished_at, "
        "  'eta', CASE WHEN s.status = 'running' AND k.finished > 0 AND s.started_at IS NOT NULL "
        "              THEN now() + (now() - s.started_at) * ((k.total - k.finished)::float8 / k.finished) END, "
        "  'spec', s.spec)::text "
        "FROM sweeps s, h, k, z WHERE s.id = $1::uuid", 1, p), 200, "sweep");
}
