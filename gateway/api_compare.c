/*
 * api_compare.c - GET /api/v1/compare/deactivation?model=A[&model=B...]
 *
 * For each model: the paired runs of its sweeps that differ only in the
 * solver option contact_deactivation (same sweep, same parameters, same other
 * options, both done; design jobs only: verification runs are not pairs).
 * Speed-up of a pair = wall(off) / wall(on); reported as median, quartiles,
 * min and max.  Mean system dimension, active contacts, steps and Newton
 * iterations both ways; the contact pairs the model declares.  The
 * largest output difference |y_off - y_on| over all channels and samples of
 * the first max_pairs pairs (default 200), read from the stored samples.
 * ?speedups=1 adds every pair's speed-up, ascending.
 */
#include "gw.h"
#include "mechanism/mechanism.h"
#include "svc/db.h"
#include "svc/msg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MODELS 20

typedef struct { const char *v[MAX_MODELS]; int n; } models_q;

static enum MHD_Result s_collect(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    models_q *q = cls;
    (void)kind;
    if (key && !strcmp(key, "model") && value && q->n < MAX_MODELS) q->v[q->n++] = value;
    return MHD_YES;
}

static int s_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Quantile of sorted data by linear interpolation. */
static double s_quantile(const double *s, int n, double q)
{
    double pos = q * (n - 1);
    int i = (int)pos;
    return i + 1 < n ? s[i] + (pos - i) * (s[i + 1] - s[i]) : s[n - 1];
}

static json_t *s_num(double x) { return isfinite(x) ? json_real(x) : json_null(); }

/* Largest |difference| of two stored sample blocks (same model: same
 * columns); the per-channel maxima are raised in chmax (ncol - 1 entries,
 * at most nch are kept). */
static double s_diff(PGresult *res, int a, int b, double *chmax, int nch)
{
    long na = strtol(PQgetvalue(res, a, 1), NULL, 10), nb = strtol(PQgetvalue(res, b, 1), NULL, 10);
    long ncol = strtol(PQgetvalue(res, a, 2), NULL, 10) + 1, n = na < nb ? na : nb;
    double worst = 0, *ya = malloc(sizeof(double) * (n * ncol + 1)), *yb = malloc(sizeof(double) * (n * ncol + 1));
    if ((long)PQgetlength(res, a, 3) < n * ncol * 8 || (long)PQgetlength(res, b, 3) < n * ncol * 8) n = 0;
    msg_get_f64le(ya, (const unsigned char *)PQgetvalue(res, a, 3), (size_t)(n * ncol));
    msg_get_f64le(yb, (const unsigned char *)PQgetvalue(res, b, 3), (size_t)(n * ncol));
    for (long i = 0; i < n; i++)
        for (long c = 1; c < ncol; c++) {
            double d = fabs(ya[i * ncol + c] - yb[i * ncol + c]);
            if (d > worst || isnan(d)) worst = d;
            if (c - 1 < nch && (d > chmax[c - 1] || isnan(d))) chmax[c - 1] = d;
        }
    free(ya); free(yb);
    return worst;
}

/* The contact pairs a model declares (groups expanded, as the solver sees
 * them at its default parameters), or -1 when its definition cannot be read
 * or parsed.  Parsing is bounded as the model's upload was (GW_MAX_BODIES). */
static int s_declared_pairs(PGconn **db, const char *model)
{
    const char *p[] = { model };
    int n = -1;
    PGresult *res = db_exec(db, "SELECT definition::text FROM models WHERE id = $1", 1, p);
    if (db_ok(res) && PQntuples(res) == 1) {
        mbs_errlist *el = calloc(1, sizeof *el);
        mbs_spec *sp = el ? mech_parse(PQgetvalue(res, 0, 0), (size_t)PQgetlength(res, 0, 0), NULL, 0, el) : NULL;
        if (sp) n = sp->ncontact;
        mbs_spec_free(&sp);
        free(el);
    }
    PQclear(res);
    return n;
}

/* One model's comparison, or NULL after a database error (reply set). */
static json_t *s_model(gw_req *r, PGconn **db, const char *model, long max_pairs, int speedups)
{
    const char *p[] = { model };
    PGresult *res = db_exec(db,
        "SELECT a.id, b.id, ma.wall_seconds, mb.wall_seconds, ma.mean_system_dimension, mb.mean_system_dimension, "
        "  ma.mean_active_contacts, mb.mean_active_contacts, ma.mean_lcp_dimension, mb.mean_lcp_dimension, "
        "  mb.contact_method, ma.steps, mb.steps, ma.newton_iterations, mb.newton_iterations "
        "FROM jobs a JOIN sweeps s ON s.id = a.sweep_id "
        "JOIN jobs b ON b.sweep_id = a.sweep_id AND b.parameters = a.parameters "
        "  AND (b.solver_overrides - 'contact_deactivation') = (a.solver_overrides - 'contact_deactivation') "
        "JOIN metrics ma ON ma.job_id = a.id JOIN metrics mb ON mb.job_id = b.id "
        "WHERE s.model_id = $1 AND a.status = 'done' AND b.status = 'done' AND a.kind = 'design' AND b.kind = 'design' "
        "  AND a.solver_overrides -> 'contact_deactivation' = 'false'::jsonb "
        "  AND b.solver_overrides -> 'contact_deactivation' = 'true'::jsonb "
        "ORDER BY a.id LIMIT 100000", 1, p);
    if (!db_ok(res)) { gw_reply_db_error(r, res); PQclear(res); return NULL; }
    int n = PQntuples(res), k = 0;
    double *speed = malloc(sizeof(double) * (n + 1)), dim_off = 0, dim_on = 0, w_off = 0, w_on = 0;
    double act_off = 0, act_on = 0, lcp_off = 0, lcp_on = 0, st_off = 0, st_on = 0, nw_off = 0, nw_on = 0;
    int nst = 0, nnw = 0;                      /* pairs with both counts reported */
    for (int i = 0; i < n; i++) {
        if (!PQgetisnull(res, i, 11) && !PQgetisnull(res, i, 12)) {
            st_off += atof(PQgetvalue(res, i, 11)); st_on += atof(PQgetvalue(res, i, 12)); nst++;
        }
        if (!PQgetisnull(res, i, 13) && !PQgetisnull(res, i, 14)) {
            nw_off += atof(PQgetvalue(res, i, 13)); nw_on += atof(PQgetvalue(res, i, 14)); nnw++;
        }
        double off = atof(PQgetvalue(res, i, 2)), on = atof(PQgetvalue(res, i, 3));
        if (on > 0) speed[k++] = off / on;
        w_off += off; w_on += on;
        dim_off += atof(PQgetvalue(res, i, 4)); dim_on += atof(PQgetvalue(res, i, 5));
        act_off += atof(PQgetvalue(res, i, 6)); act_on += atof(PQgetvalue(res, i, 7));
        lcp_off += atof(PQgetvalue(res, i, 8)); lcp_on += atof(PQgetvalue(res, i, 9));
    }
    qsort(speed, (size_t)k, sizeof *speed, s_cmp);
    json_t *out = json_pack("{s:s,s:i}", "model", model, "pairs", n);
    int declared = s_declared_pairs(db, model);
    json_object_set_new(out, "declared_pairs", declared < 0 ? json_null() : json_integer(declared));
    /* ?speedups=1: every pair's speed-up, ascending (the front end's dots) */
    if (speedups) {
        json_t *all = json_array();
        for (int i = 0; i < k; i++) json_array_append_new(all, s_num(speed[i]));
        json_object_set_new(out, "speedups", all);
    }
    json_object_set_new(out, "speedup", k == 0 ? json_null() : json_pack("{s:o,s:o,s:o,s:o,s:o}",
        "median", s_num(s_quantile(speed, k, 0.5)), "q1", s_num(s_quantile(speed, k, 0.25)),
        "q3", s_num(s_quantile(speed, k, 0.75)), "min", s_num(speed[0]), "max", s_num(speed[k - 1])));
    json_object_set_new(out, "mean_system_dimension", n == 0 ? json_null() :
        json_pack("{s:o,s:o}", "deactivation_on", s_num(dim_on / n), "deactivation_off", s_num(dim_off / n)));
    json_object_set_new(out, "mean_wall_seconds", n == 0 ? json_null() :
        json_pack("{s:o,s:o}", "deactivation_on", s_num(w_on / n), "deactivation_off", s_num(w_off / n)));
    json_object_set_new(out, "mean_active_contacts", n == 0 ? json_null() :
        json_pack("{s:o,s:o}", "deactivation_on", s_num(act_on / n), "deactivation_off", s_num(act_off / n)));
    /* unknowns of the complementarity problems (rigid contacts only; 0 for
     * compliant contacts, which are force elements without unknowns) */
    json_object_set_new(out, "mean_lcp_dimension", n == 0 ? json_null() :
        json_pack("{s:o,s:o}", "deactivation_on", s_num(lcp_on / n), "deactivation_off", s_num(lcp_off / n)));
    /* the integrator's work both ways (steps taken, Newton iterations) */
    json_object_set_new(out, "mean_steps", nst == 0 ? json_null() :
        json_pack("{s:o,s:o}", "deactivation_on", s_num(st_on / nst), "deactivation_off", s_num(st_off / nst)));
    json_object_set_new(out, "mean_newton_iterations", nnw == 0 ? json_null() :
        json_pack("{s:o,s:o}", "deactivation_on", s_num(nw_on / nnw), "deactivation_off", s_num(nw_off / nnw)));
    json_object_set_new(out, "contact_method", n == 0 || PQgetisnull(res, 0, 10) ? json_null()
                                               : json_string(PQgetvalue(res, 0, 10)));
    free(speed);
    /* output difference from the samples of the first max_pairs pairs */
    int np = n < max_pairs ? n : (int)max_pairs;
    double worst = 0; const char *worst_off = NULL, *worst_on = NULL;
    char *ids = NULL; size_t idlen = 0;
    FILE *f = open_memstream(&ids, &idlen);
    fputc('{', f);
    for (int i = 0; i < np; i++) fprintf(f, "%s%s,%s", i ? "," : "", PQgetvalue(res, i, 0), PQgetvalue(res, i, 1));
    fputc('}', f);
    fclose(f);
    const char *pi[] = { ids };
    PGresult *s = np ? db_execb(db, "SELECT job_id::text, nsample::text, cardinality(channels)::text, samples, "
                                    "array_to_json(channels)::text "
                                    "FROM results WHERE job_id = ANY($1::bigint[])", 1, pi, NULL, NULL, 1) : NULL;
    free(ids);
    if (np && !db_ok(s)) { gw_reply_db_error(r, s); PQclear(s); PQclear(res); json_decref(out); return NULL; }
    enum { MAXCH = 256 };
    double chmax[MAXCH];
    for (int c = 0; c < MAXCH; c++) chmax[c] = 0;
    json_t *chnames = NULL;
    for (int i = 0; i < np; i++) {
        int a = -1, b = -1;
        for (int j = 0; j < PQntuples(s); j++) {
            if (!strcmp(PQgetvalue(s, j, 0), PQgetvalue(res, i, 0))) a = j;
            if (!strcmp(PQgetvalue(s, j, 0), PQgetvalue(res, i, 1))) b = j;
        }
        if (a < 0 || b < 0) continue;
        if (!chnames) chnames = json_loads(PQgetvalue(s, a, 4), 0, NULL);
        double d = s_diff(s, a, b, chmax, MAXCH);
        if (d > worst || isnan(d) || !worst_off) { worst = d; worst_off = PQgetvalue(res, i, 0); worst_on = PQgetvalue(res, i, 1); }
    }
    json_object_set_new(out, "max_output_difference", !worst_off ? json_null() :
        json_pack("{s:o,s:I,s:I,s:i}", "value", s_num(worst), "job_off", (json_int_t)atoll(worst_off),
                  "job_on", (json_int_t)atoll(worst_on), "pairs_compared", np));
    /* the largest difference of each output channel over the compared pairs */
    json_t *per = json_object();
    size_t ci; json_t *cn;
    if (worst_off && json_is_array(chnames))
        json_array_foreach(chnames, ci, cn)
            if (ci < MAXCH && json_is_string(cn)) json_object_set_new(per, json_string_value(cn), s_num(chmax[ci]));
    json_object_set_new(out, "max_output_difference_by_channel", per);
    json_decref(chnames);
    PQclear(s);
    PQclear(res);
    return out;
}

int api_compare_deactivation(gw_req *r)
{
    models_q q = { .n = 0 };
    long max_pairs;
    MHD_get_connection_values(r->conn, MHD_GET_ARGUMENT_KIND, s_collect, &q);
    if (q.n == 0) return gw_reply_error(r, 400, "bad_request", "give at least one model=ID", NULL);
    if (gw_query_int(r, "max_pairs", 200, 1, 2000, &max_pairs)) return 0;
    const char *sp = gw_query(r, "speedups");
    if (sp && strcmp(sp, "0") && strcmp(sp, "1")) return gw_reply_error(r, 400, "bad_request", "speedups must be 0 or 1", NULL);
    int speedups = sp && !strcmp(sp, "1");
    PGconn **db = gw_db();
    if (!db) return gw_reply_db_error(r, NULL);
    json_t *models = json_array();
    for (int i = 0; i < q.n; i++) {
        if (!gw_is_model_id(q.v[i])) {
            json_decref(models);
            return gw_reply_error(r, 404, "not_found", "no such model", json_pack("[{s:s,s:s}]", "pointer", "model", "message", q.v[i]));
        }
        json_t *m = s_model(r, db, q.v[i], max_pairs, speedups);
        if (!m) { json_decref(models); return 0; }
        json_array_append_new(models, m);
    }
    return gw_reply_json(r, 200, json_pack("{s:o}", "models", models));
}
