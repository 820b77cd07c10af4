/*
 * api_models.c - POST /api/v1/models, GET /api/v1/models, GET /api/v1/models/{id}.
 *
 * A model is a mechanism (api/mechanism.schema.json) checked by the solver:
 * mech_parse (format, parameters, references) then mbs_model_new and
 * mbs_initialize (elimination, assembly, degrees of freedom, redundancy).
 * Its id is derived from the content hash, so posting the same mechanism
 * twice returns the stored model (200 instead of 201).
 */
#include "gw.h"
#include "mechanism/mechanism.h"
#include "svc/db.h"

#include <malloc.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Checks of models with many bodies running now (GW_CHECK_SLOTS at most). */
static atomic_int s_checks;

/* mbs_errlist -> [{pointer, message}] */
static json_t *s_details(const mbs_errlist *el)
{
    json_t *a = json_array();
    for (int i = 0; i < el->n; i++)
        json_array_append_new(a, json_pack("{s:s,s:s}", "pointer", el->e[i].pointer, "message", el->e[i].message));
    if (el->dropped)
        json_array_append_new(a, json_pack("{s:s,s:s+}", "pointer", "", "message", "more errors: ",
                                           el->dropped > 1 ? "several" : "one"));
    return a;
}

struct mbs_spec *gw_check_mechanism(const char *text, size_t len, const void *overrides, int nov,
                                    json_t **report, json_t **details)
{
    mbs_errlist *el = calloc(1, sizeof *el);
    mbs_report rep;
    mbs_spec *spec = mech_parse(text, len, overrides, nov, el);
    *report = NULL; *details = NULL;
    if (!spec) {
        if (el->n == 0) mbs_err_add(el, "", "invalid mechanism");
        *details = s_details(el);
        free(el);
        return NULL;
    }
    /* build and run the initial analyses: what mbs check reports */
    memset(&rep, 0, sizeof rep);
    mbs_model *m = mbs_model_new(spec, &rep, el);
    mbs_data *d = m ? mbs_data_new(m) : NULL;
    if (!m || !d || mbs_initialize(m, d, &rep, el) != 0) {
        if (el->n == 0) mbs_err_add(el, "", "the model cannot be built");
        *details = s_details(el);
        mbs_data_free(&d); mbs_model_free(&m); mbs_spec_free(&spec);
        free(el);
        return NULL;
    }
    char buf[8192];
    mbs_report_json(&rep, buf, sizeof buf);
    *report = json_loads(buf, 0, NULL);
    if (!*report) *report = json_object();
    mbs_data_free(&d); mbs_model_free(&m);
    free(el);
    return spec;
}

/* Store a checked mechanism; returns the model id (static buffer of the
 * caller) and whether it was new, or -1 with the reply set. */
int gw_store_model(gw_req *r, const json_t *mech, char id[17], int *created, json_t **report_out);

int gw_store_model(gw_req *r, const json_t *mech, char id[17], int *created, json_t **report_out)
{
    json_t *report, *details;
    char ptr[160], msg[256];
    /* the HTTP budget of a check: its cost grows faster than the number of
       bodies (about 0.5 s and 50 MB at the limit), so larger models are
       refused, and only GW_CHECK_SLOTS checks of more than 50 bodies run at
       once, so that the pool threads stay free for other requests */
    size_t nbody = json_array_size(json_object_get(mech, "bodies"));
    if (nbody > GW_MAX_BODIES) {
        snprintf(msg, sizeof msg, "the mechanism has %zu bodies; the service checks at most %d bodies per model "
                 "(build/mbs check has no such limit)", nbody, GW_MAX_BODIES);
        gw_reply_error(r, 413, "model_too_large", msg, json_pack("[{s:s,s:s}]", "pointer", "/bodies", "message", msg));
        return -1;
    }
    if (gw_solver_ranges_ok(json_object_get(mech, "solver"), "/solver", ptr, sizeof ptr, msg, sizeof msg)) {
        gw_reply_error(r, 422, "invalid_mechanism", msg, json_pack("[{s:s,s:s}]", "pointer", ptr, "message", msg));
        return -1;
    }
    int heavy = nbody > 50;
    if (heavy && atomic_fetch_add(&s_checks, 1) >= GW_CHECK_SLOTS) {
        atomic_fetch_sub(&s_checks, 1);
        gw_reply_error(r, 503, "busy", "another large model is being checked, try again shortly", NULL);
        return -1;
    }
    char *canon = json_dumps(mech, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
    mbs_spec *spec = gw_check_mechanism(canon, strlen(canon), NULL, 0, &report, &details);
    if (heavy) atomic_fetch_sub(&s_checks, 1);
    /* the check's matrices are freed: give their pages back to the system */
    if (heavy) malloc_trim(0);
    if (!spec) {
        free(canon);
        gw_reply_error(r, 422, "invalid_mechanism", "the mechanism does not pass the solver's check", details);
        return -1;
    }
    const char *name = json_string_value(json_object_get(mech, "name"));
    char *rep = json_dumps(report, JSON_COMPACT);
    const char *p[] = { name ? name : spec->name, canon, rep };
    PGconn **db = gw_db();
    PGresult *res = db ? db_exec(db,
        "WITH h AS (SELECT encode(sha256(convert_to($2, 'UTF8')), 'hex') AS hash) "
        "INSERT INTO models (id, name, definition, content_hash, check_report) "
        "SELECT substr(hash, 1, 16), $1, $2::jsonb, hash, $3::jsonb FROM h "
        "ON CONFLICT (content_hash) DO UPDATE SET name = models.name "
        "RETURNING id, (xmax = 0)", 3, p) : NULL;
    mbs_spec_free(&spec);
    free(canon); free(rep);
    if (!res || !db_ok(res)) {
        json_decref(report);
        gw_reply_db_error(r, res);
        PQclear(res);
        return -1;
    }
    snprintf(id, 17, "%s", PQgetvalue(res, 0, 0));
    *created = PQgetvalue(res, 0, 1)[0] == 't';
    PQclear(res);
    if (report_out) *report_out = report; else json_decref(report);
    return 0;
}

int api_models_create(gw_req *r)
{
    char id[17];
    int created;
    json_t *report;
    if (gw_store_model(r, r->json, id, &created, &report)) return 0;
    return gw_reply_json(r, created ? 201 : 200,
                         json_pack("{s:s,s:b,s:o}", "id", id, "created", created, "check_report", report));
}

int api_models_list(gw_req *r)
{
    long limit, offset;
    char l[24], o[24];
    if (gw_query_int(r, "limit", 50, 1, 1000, &limit) || gw_query_int(r, "offset", 0, 0, 1L << 40, &offset)) return 0;
    snprintf(l, sizeof l, "%ld", limit); snprintf(o, sizeof o, "%ld", offset);
    const char *p[] = { l, o };
    PGconn **db = gw_db();
    if (!db) return gw_reply_db_error(r, NULL);
    return gw_reply_row_json(r, db_exec(db,
        "SELECT json_build_object('items', coalesce(json_agg(t), '[]'), 'limit', $1::int, 'offset', $2::bigint)::text "
        "FROM (SELECT id, name, content_hash, check_report, created_at FROM models "
        "      ORDER BY created_at DESC, id LIMIT $1::int OFFSET $2::bigint) t", 2, p), 200, "models");
}

int api_models_get(gw_req *r)
{
    if (!gw_is_model_id(r->param[0])) return gw_reply_error(r, 404, "not_found", "no such model", NULL);
    const char *p[] = { r->param[0] };
    PGconn **db = gw_db();
    if (!db) return gw_reply_db_error(r, NULL);
    return gw_reply_row_json(r, db_exec(db,
        "SELECT json_build_object('id', id, 'name', name, 'content_hash', content_hash, "
        "  'definition', definition, 'check_report', check_report, 'created_at', created_at, "
        "  'sweeps', (SELECT count(*) FROM sweeps WHERE model_id = m.id))::text "
        "FROM models m WHERE id = $1", 1, p), 200, "model");
}
