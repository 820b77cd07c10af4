/*
 * api_compare.c - GET /api/v1/compare?option=O&model=A[&model=B...] and its
 * first case, GET /api/v1/compare/deactivation?model=A[&model=B...].
 *
 * For each model: the paired runs of its sweeps that differ only in one
 * solver option O (contact_deactivation, formulation or integrator): same
 * sweep, same parameters, same other options, both done; design jobs only
 * (verification runs are not pairs).  One side of a pair has O = base, the
 * other O = other (defaults: contact_deactivation false / true, formulation
 * natural / relative, integrator bdf / dopri5; ?base= and ?other= choose).
 * Speed-up of a pair = wall(base) / wall(other), reported as median,
 * quartiles, min and max, and with ?speedups=1 every pair's, ascending;
 * /compare adds the same by CPU time (speedup_cpu) and a verdict on whether
 * the speed-up means anything ("timing", s_timing: nothing to deactivate,
 * runs too short to time, pairs that disagree, or measured).
 * Means of the cost and size metrics both ways (steps, Newton iterations,
 * system dimension, ...), aggregated by the database over at most
 * CMP_MAX_PAIRS pairs; the contact pairs the model declares.  The largest
 * output difference |y_base - y_other| over all channels and samples of the
 * first max_pairs pairs (default 200), read from the stored samples, and
 * per channel; /compare lists those pairs side by side ("runs").
 *
 * /compare/deactivation answers as it did before /compare existed: the
 * same numbers under its own names (deactivation_off = base,
 * deactivation_on = other; job_off, job_on), without the newer fields.
 */
#include "gw.h"
#include "mechanism/mechanism.h"
#include "svc/db.h"
#include "svc/msg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_MODELS 20
#define CMP_MAX_PAIRS 100000   /* pairs aggregated per model, at most */
/* A median speed-up closer to 1 than this is not told from timing noise:
 * the same pairs' CPU speed-ups (bouncing ball, 17 ms runs) moved by 3 %
 * from one run of the browser tests to the next on the shared machine. */
#define CMP_NOISE 0.05

typedef struct { const char *v[MAX_MODELS]; int n; } models_q;

/* The options a comparison can pair, their values and default sides. */
typedef struct {
    const char *name;
    const char *const *values;   /* allowed values, NULL-terminated      */
    int boolean;                 /* values are JSON booleans             */
    const char *base, *other;    /* default sides                        */
} cmp_option;

static const char *const s_bool_values[] = { "false", "true", NULL };
static const char *const s_form_values[] = { "natural", "relative", NULL };
static const char *const s_int_values[] = { "trapezoidal_al", "bdf", "dopri5", "moreau_jean", "event_driven", NULL };

static const cmp_option s_options[] = {
    { "contact_deactivation", s_bool_values, 1, "false", "true" },
    { "formulation", s_form_values, 0, "natural", "relative" },
    { "integrator", s_int_values, 0, "bdf", "dopri5" },
};
#define NOPTION (int)(sizeof s_options / sizeof s_options[0])

/* Metric columns averaged both ways; the first MEAN_LEGACY are those of
 * /compare/deactivation.  Constant identifiers: pasted into the SQL. */
static const char *const s_means[] = {
    "mean_system_dimension", "wall_seconds", "mean_active_contacts", "mean_lcp_dimension", "steps",
    "newton_iterations",
    "cpu_seconds", "rejected_steps", "jacobian_evaluations", "factorizations", "max_system_dimension",
    "coords_after", "constraints_after", "relative_coordinates", "relative_constraints",
    "max_constraint_violation", "energy_drift",
};
#define NMEAN (int)(sizeof s_means / sizeof s_means[0])
#define MEAN_LEGACY 6
#define AGG_MEANS 10                      /* first column of the means in s_aggregate */
#define AGG_CPU (AGG_MEANS + 2 * NMEAN)   /* first column of the CPU timing */

/* What one request compares and how its answer is named. */
typedef struct {
    const cmp_option *opt;
    const char *base, *other;        /* the sides' values (query text)    */
    char base_json[32], other_json[32];
    const char *kbase, *kother;      /* keys of the two sides            */
    const char *jbase, *jother;      /* keys of the worst pair's job ids */
    int legacy;                      /* /compare/deactivation's shape    */
    int speedups;
    long max_pairs;
    double min_seconds;              /* shorter runs are too short to time */
} cmp_req;

static enum MHD_Result s_collect(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    models_q *q = cls;
    (void)kind;
    if (key && !strcmp(key, "model") && value && q->n < MAX_MODELS) q->v[q->n++] = value;
    return MHD_YES;
}

static json_t *s_num(double x) { return isfinite(x) ? json_real(x) : json_null(); }

/* A numeric column as JSON (null when SQL NULL). */
static json_t *s_col(PGresult *res, int row, int col)
{
    return PQgetisnull(res, row, col) ? json_null() : s_num(atof(PQgetvalue(res, row, col)));
}

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

/* A query over the pairs of a model: opens a stream for its text and
 * writes the CTE "p" (ia, ib: job ids; a_<col>, b_<col>: their metrics;
 * a_params: the parameters), first CMP_MAX_PAIRS by ia; the caller writes
 * its SELECT and runs it with s_pairs_run.  $1 model, $2 option, $3 / $4
 * the sides' values as JSON, $5 the caller's. */
static FILE *s_pairs_open(char **sql, size_t *len)
{
    FILE *f = open_memstream(sql, len);
    fputs("WITH p AS (SELECT a.id AS ia, b.id AS ib, a.parameters AS a_params, "
          "ma.integrator AS a_integrator, mb.integrator AS b_integrator, "
          "ma.formulation AS a_formulation, mb.formulation AS b_formulation, "
          "ma.contact_method AS a_contact_method, mb.contact_method AS b_contact_method", f);
    for (int k = 0; k < NMEAN; k++) fprintf(f, ", ma.%s AS a_%s, mb.%s AS b_%s", s_means[k], s_means[k], s_means[k], s_means[k]);
    fprintf(f, " FROM jobs a JOIN sweeps s ON s.id = a.sweep_id "
               "JOIN jobs b ON b.sweep_id = a.sweep_id AND b.parameters = a.parameters "
               "  AND (b.solver_overrides - $2::text) = (a.solver_overrides - $2::text) "
               "JOIN metrics ma ON ma.job_id = a.id JOIN metrics mb ON mb.job_id = b.id "
               "WHERE s.model_id = $1 AND a.status = 'done' AND b.status = 'done' "
               "  AND a.kind = 'design' AND b.kind = 'design' "
               "  AND a.solver_overrides -> $2::text = $3::jsonb AND b.solver_overrides -> $2::text = $4::jsonb "
               "ORDER BY a.id LIMIT %d) ", CMP_MAX_PAIRS);
    return f;
}

/* Close f (from s_pairs_open: the text is in *sql only then), run the query
 * with the parameters of request q for model and p5 as $5, free the text. */
static PGresult *s_pairs_run(PGconn **db, FILE *f, char **sql, const char *model, const cmp_req *q, const char *p5)
{
    fclose(f);
    const char *p[] = { model, q->opt->name, q->base_json, q->other_json, p5 };
    PGresult *res = db_exec(db, *sql, 5, p);
    free(*sql);
    return res;
}

/* The aggregates of the pairs, one row: count, quartiles, min, max of the
 * speed-ups, the speed-ups ascending (JSON, when asked), the first pair's
 * contact method (other side), the sides' integrators and formulations,
 * then per s_means column both means (the legacy ones over the pairs
 * reporting it both ways, as /compare/deactivation always did). */
static PGresult *s_aggregate(PGconn **db, const char *model, const cmp_req *q)
{
    char *sql = NULL; size_t len = 0;
    FILE *f = s_pairs_open(&sql, &len);
    fputs("SELECT count(*), "
          "percentile_cont(ARRAY[0.25, 0.5, 0.75]) WITHIN GROUP (ORDER BY a_wall_seconds / b_wall_seconds) "
          "  FILTER (WHERE b_wall_seconds > 0)::text, "
          "min(a_wall_seconds / b_wall_seconds) FILTER (WHERE b_wall_seconds > 0), "
          "max(a_wall_seconds / b_wall_seconds) FILTER (WHERE b_wall_seconds > 0), "
          "CASE WHEN $5 THEN array_to_json(array_agg(a_wall_seconds / b_wall_seconds ORDER BY a_wall_seconds / b_wall_seconds) "
          "  FILTER (WHERE b_wall_seconds > 0))::text END, "
          "(array_agg(b_contact_method ORDER BY ia))[1], "
          "string_agg(DISTINCT a_integrator, ','), string_agg(DISTINCT b_integrator, ','), "
          "string_agg(DISTINCT coalesce(a_formulation, 'natural'), ','), "
          "string_agg(DISTINCT coalesce(b_formulation, 'natural'), ',')", f);
    for (int k = 0; k < NMEAN; k++) {
        const char *c = s_means[k];
        if (k < MEAN_LEGACY)     /* over the pairs reporting it both ways */
            fprintf(f, ", avg(a_%s) FILTER (WHERE a_%s IS NOT NULL AND b_%s IS NOT NULL)"
                       ", avg(b_%s) FILTER (WHERE a_%s IS NOT NULL AND b_%s IS NOT NULL)", c, c, c, c, c, c);
        else                     /* each side over its runs reporting it (relative_*: one side) */
            fprintf(f, ", avg(a_%s), avg(b_%s)", c, c);
    }
    /* CPU speed-ups (pairs timed both ways), as the wall ones above, then
     * the median time of each side, CPU and wall (AGG_CPU + 0 .. 8) */
    fputs(", percentile_cont(ARRAY[0.25, 0.5, 0.75]) WITHIN GROUP (ORDER BY a_cpu_seconds / b_cpu_seconds) "
          "  FILTER (WHERE a_cpu_seconds > 0 AND b_cpu_seconds > 0)::text, "
          "min(a_cpu_seconds / b_cpu_seconds) FILTER (WHERE a_cpu_seconds > 0 AND b_cpu_seconds > 0), "
          "max(a_cpu_seconds / b_cpu_seconds) FILTER (WHERE a_cpu_seconds > 0 AND b_cpu_seconds > 0), "
          "CASE WHEN $5 THEN array_to_json(array_agg(a_cpu_seconds / b_cpu_seconds ORDER BY a_cpu_seconds / b_cpu_seconds) "
          "  FILTER (WHERE a_cpu_seconds > 0 AND b_cpu_seconds > 0))::text END, "
          "count(*) FILTER (WHERE a_cpu_seconds > 0 AND b_cpu_seconds > 0), "
          "percentile_cont(0.5) WITHIN GROUP (ORDER BY a_cpu_seconds) FILTER (WHERE a_cpu_seconds > 0 AND b_cpu_seconds > 0), "
          "percentile_cont(0.5) WITHIN GROUP (ORDER BY b_cpu_seconds) FILTER (WHERE a_cpu_seconds > 0 AND b_cpu_seconds > 0), "
          "percentile_cont(0.5) WITHIN GROUP (ORDER BY a_wall_seconds) FILTER (WHERE b_wall_seconds > 0), "
          "percentile_cont(0.5) WITHIN GROUP (ORDER BY b_wall_seconds) FILTER (WHERE b_wall_seconds > 0)", f);
    fputs(" FROM p", f);
    return s_pairs_run(db, f, &sql, model, q, q->speedups ? "true" : "false");
}

/* The first max_pairs pairs, by base job id: ia, ib, wall both ways, steps,
 * rejected steps, Newton iterations, system dimension both ways, the
 * sides' integrators and formulations, the parameters, CPU both ways. */
static PGresult *s_first_pairs(PGconn **db, const char *model, const cmp_req *q)
{
    char *sql = NULL; size_t len = 0;
    FILE *f = s_pairs_open(&sql, &len);
    fputs("SELECT ia, ib, a_wall_seconds, b_wall_seconds, a_steps, b_steps, a_rejected_steps, b_rejected_steps, "
          "a_newton_iterations, b_newton_iterations, a_mean_system_dimension, b_mean_system_dimension, "
          "a_integrator, b_integrator, coalesce(a_formulation, 'natural'), coalesce(b_formulation, 'natural'), "
          "a_params::text, a_cpu_seconds, b_cpu_seconds FROM p ORDER BY ia LIMIT $5", f);
    char lim[24];
    snprintf(lim, sizeof lim, "%ld", q->max_pairs);
    return s_pairs_run(db, f, &sql, model, q, lim);
}

/* One side of a listed pair (columns from s_first_pairs, side 0 or 1). */
static json_t *s_run_side(PGresult *res, int i, int side)
{
    json_t *o = json_pack("{s:I}", "job", (json_int_t)atoll(PQgetvalue(res, i, side)));
    json_object_set_new(o, "wall_seconds", s_col(res, i, 2 + side));
    json_object_set_new(o, "cpu_seconds", s_col(res, i, 17 + side));
    json_object_set_new(o, "steps", s_col(res, i, 4 + side));
    json_object_set_new(o, "rejected_steps", s_col(res, i, 6 + side));
    json_object_set_new(o, "newton_iterations", s_col(res, i, 8 + side));
    json_object_set_new(o, "mean_system_dimension", s_col(res, i, 10 + side));
    json_object_set_new(o, "integrator", PQgetisnull(res, i, 12 + side) ? json_null() : json_string(PQgetvalue(res, i, 12 + side)));
    json_object_set_new(o, "formulation", json_string(PQgetvalue(res, i, 14 + side)));
    return o;
}

/* A pair of means {kbase: a, kother: b}, or null when neither is known. */
static json_t *s_pair_of(const cmp_req *q, PGresult *res, int ca, int cb)
{
    if (PQgetisnull(res, 0, ca) && PQgetisnull(res, 0, cb)) return json_null();
    return json_pack("{s:o,s:o}", q->kother, s_col(res, 0, cb), q->kbase, s_col(res, 0, ca));
}

/* Quartiles, min and max of a speed-up from the aggregate's text column
 * cq ("{q1,median,q3}") and columns cq + 1, cq + 2; null without pairs. */
static json_t *s_speedup(PGresult *agg, int cq, double qs[3])
{
    qs[0] = qs[1] = qs[2] = NAN;
    if (PQgetisnull(agg, 0, cq + 1)) return json_null();
    if (!PQgetisnull(agg, 0, cq)) sscanf(PQgetvalue(agg, 0, cq), "{%lf,%lf,%lf}", &qs[0], &qs[1], &qs[2]);
    return json_pack("{s:o,s:o,s:o,s:o,s:o}", "median", s_num(qs[1]), "q1", s_num(qs[0]), "q3", s_num(qs[2]),
                     "min", s_col(agg, 0, cq + 1), "max", s_col(agg, 0, cq + 2));
}

/* Whether the speed-up of a model's n pairs says anything (non-legacy
 * answers only).  Basis: CPU seconds when every pair has them both ways,
 * else wall seconds.  The verdict, the first that applies:
 *   nothing_to_deactivate  contact deactivation, and the model declares no
 *                          contact pair: both runs do the same work, any
 *                          speed-up is timing noise;
 *   too_short              the shorter side's median time is below
 *                          q->min_seconds: timer, scheduler and the worker's
 *                          own threads are of the size of the run;
 *   no_clear_difference    the quartiles straddle 1 (a quarter of the pairs
 *                          or more ran faster one way, a quarter the other),
 *                          or the median is within CMP_NOISE of 1;
 *   measured               otherwise. */
static json_t *s_timing(const cmp_req *q, PGresult *agg, int n, int declared, const double wq[3], const double cq[3])
{
    if (n == 0) return json_null();
    int cpu = atoi(PQgetvalue(agg, 0, AGG_CPU + 4)) == n;
    int c0 = cpu ? AGG_CPU + 5 : AGG_CPU + 7;
    const double *qs = cpu ? cq : wq;
    double tb = PQgetisnull(agg, 0, c0) ? NAN : atof(PQgetvalue(agg, 0, c0));
    double to = PQgetisnull(agg, 0, c0 + 1) ? NAN : atof(PQgetvalue(agg, 0, c0 + 1));
    double shorter = tb < to ? tb : to;
    const char *verdict;
    char why[300];
    if (!strcmp(q->opt->name, "contact_deactivation") && declared == 0) {
        verdict = "nothing_to_deactivate";
        snprintf(why, sizeof why, "the model declares no contact pair: both runs do the same work, their times differ by noise only");
    } else if (!(shorter >= q->min_seconds)) {
        verdict = "too_short";
        snprintf(why, sizeof why, "the runs take %.3g ms of %s time (median of the shorter side), under %.3g ms: "
                 "too short to time", shorter * 1e3, cpu ? "CPU" : "wall", q->min_seconds * 1e3);
    } else if (qs[0] < 1 && qs[2] > 1) {
        verdict = "no_clear_difference";
        snprintf(why, sizeof why, "the pairs disagree: the quartiles of the speed-up, %.3g and %.3g, straddle 1",
                 qs[0], qs[2]);
    } else if (fabs(qs[1] - 1) < CMP_NOISE) {
        verdict = "no_clear_difference";
        snprintf(why, sizeof why, "the median speed-up, %.3g, is within %.0f %% of 1: not told from timing noise",
                 qs[1], CMP_NOISE * 100);
    } else {
        verdict = "measured";
        snprintf(why, sizeof why, "median %.3g over %d pairs, by %s time", qs[1], n, cpu ? "CPU" : "wall");
    }
    json_t *med = json_pack("{s:o,s:o}", q->kbase, s_num(tb), q->kother, s_num(to));
    return json_pack("{s:s,s:s,s:s,s:o,s:f,s:f}", "verdict", verdict, "reason", why,
                     "basis", cpu ? "cpu_seconds" : "wall_seconds", "median_seconds", med, "min_seconds", q->min_seconds,
                     "noise", CMP_NOISE);
}

/* One model's comparison, or NULL after a database error (reply set). */
static json_t *s_model(gw_req *r, PGconn **db, const char *model, const cmp_req *q)
{
    PGresult *agg = s_aggregate(db, model, q);
    if (!db_ok(agg)) { gw_reply_db_error(r, agg); PQclear(agg); return NULL; }
    int n = atoi(PQgetvalue(agg, 0, 0));
    json_t *out = json_pack("{s:s,s:i}", "model", model, "pairs", n);
    if (!q->legacy) {
        json_object_set_new(out, "option", json_string(q->opt->name));
        json_object_set_new(out, "base", json_string(q->base));
        json_object_set_new(out, "other", json_string(q->other));
    }
    int declared = s_declared_pairs(db, model);
    json_object_set_new(out, "declared_pairs", declared < 0 ? json_null() : json_integer(declared));
    /* speed-up by wall time (and, not legacy, by CPU time): quartiles, extremes, every pair's */
    double wq[3], cq[3];
    json_object_set_new(out, "speedup", s_speedup(agg, 1, wq));
    if (!q->legacy) json_object_set_new(out, "speedup_cpu", s_speedup(agg, AGG_CPU, cq));
    for (int k = 0; q->speedups && k < (q->legacy ? 1 : 2); k++) {
        int c = k ? AGG_CPU + 3 : 4;
        json_t *all = PQgetisnull(agg, 0, c) ? NULL : json_loads(PQgetvalue(agg, 0, c), 0, NULL);
        json_object_set_new(out, k ? "speedups_cpu" : "speedups", json_is_array(all) ? all : (json_decref(all), json_array()));
    }
    if (!q->legacy) json_object_set_new(out, "timing", s_timing(q, agg, n, declared, wq, cq));
    /* means both ways: /compare/deactivation's names first */
    static const char *const legacy_names[MEAN_LEGACY] = {
        "mean_system_dimension", "mean_wall_seconds", "mean_active_contacts", "mean_lcp_dimension",
        "mean_steps", "mean_newton_iterations" };
    for (int k = 0; k < (q->legacy ? MEAN_LEGACY : NMEAN); k++) {
        char key[64];
        if (k < MEAN_LEGACY) snprintf(key, sizeof key, "%s", legacy_names[k]);
        else snprintf(key, sizeof key, "mean_%s", s_means[k]);
        json_object_set_new(out, key, s_pair_of(q, agg, AGG_MEANS + 2 * k, AGG_MEANS + 1 + 2 * k));
    }
    json_object_set_new(out, "contact_method", PQgetisnull(agg, 0, 5) ? json_null() : json_string(PQgetvalue(agg, 0, 5)));
    if (!q->legacy) {
        /* what each side ran with, comma lists of the distinct values */
        json_t *ig = json_object(), *fm = json_object();
        json_object_set_new(ig, q->kbase, PQgetisnull(agg, 0, 6) ? json_null() : json_string(PQgetvalue(agg, 0, 6)));
        json_object_set_new(ig, q->kother, PQgetisnull(agg, 0, 7) ? json_null() : json_string(PQgetvalue(agg, 0, 7)));
        json_object_set_new(fm, q->kbase, PQgetisnull(agg, 0, 8) ? json_null() : json_string(PQgetvalue(agg, 0, 8)));
        json_object_set_new(fm, q->kother, PQgetisnull(agg, 0, 9) ? json_null() : json_string(PQgetvalue(agg, 0, 9)));
        json_object_set_new(out, "integrators", ig);
        json_object_set_new(out, "formulations", fm);
    }
    PQclear(agg);

    /* output difference from the samples of the first max_pairs pairs */
    PGresult *res = n ? s_first_pairs(db, model, q) : NULL;
    if (n && !db_ok(res)) { gw_reply_db_error(r, res); PQclear(res); json_decref(out); return NULL; }
    int np = res ? PQntuples(res) : 0;
    double worst = 0; const char *worst_a = NULL, *worst_b = NULL;
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
    json_t *chnames = NULL, *runs = json_array();
    for (int i = 0; i < np; i++) {
        int a = -1, b = -1;
        for (int j = 0; j < PQntuples(s); j++) {
            if (!strcmp(PQgetvalue(s, j, 0), PQgetvalue(res, i, 0))) a = j;
            if (!strcmp(PQgetvalue(s, j, 0), PQgetvalue(res, i, 1))) b = j;
        }
        double d = NAN;
        if (a >= 0 && b >= 0) {
            if (!chnames) chnames = json_loads(PQgetvalue(s, a, 4), 0, NULL);
            d = s_diff(s, a, b, chmax, MAXCH);
            if (d > worst || isnan(d) || !worst_a) { worst = d; worst_a = PQgetvalue(res, i, 0); worst_b = PQgetvalue(res, i, 1); }
        }
        if (q->legacy) continue;
        /* the pair side by side */
        double wa = atof(PQgetvalue(res, i, 2)), wb = atof(PQgetvalue(res, i, 3));
        double ca = atof(PQgetvalue(res, i, 17)), cb = atof(PQgetvalue(res, i, 18));
        json_t *params = json_loads(PQgetvalue(res, i, 16), 0, NULL);
        json_t *row = json_pack("{s:o,s:o,s:o,s:o}", "parameters", params ? params : json_object(),
                                "speedup", wb > 0 ? s_num(wa / wb) : json_null(),
                                "speedup_cpu", ca > 0 && cb > 0 ? s_num(ca / cb) : json_null(),
                                "max_output_difference", a >= 0 && b >= 0 ? s_num(d) : json_null());
        json_object_set_new(row, q->kbase, s_run_side(res, i, 0));
        json_object_set_new(row, q->kother, s_run_side(res, i, 1));
        json_array_append_new(runs, row);
    }
    json_t *md = json_null();
    if (worst_a) {
        md = json_pack("{s:o,s:i}", "value", s_num(worst), "pairs_compared", np);
        json_object_set_new(md, q->jbase, json_integer((json_int_t)atoll(worst_a)));
        json_object_set_new(md, q->jother, json_integer((json_int_t)atoll(worst_b)));
    }
    json_object_set_new(out, "max_output_difference", md);
    /* the largest difference of each output channel over the compared pairs */
    json_t *per = json_object();
    size_t ci; json_t *cn;
    if (worst_a && json_is_array(chnames))
        json_array_foreach(chnames, ci, cn)
            if (ci < MAXCH && json_is_string(cn)) json_object_set_new(per, json_string_value(cn), s_num(chmax[ci]));
    json_object_set_new(out, "max_output_difference_by_channel", per);
    if (q->legacy) json_decref(runs);
    else json_object_set_new(out, "runs", runs);
    json_decref(chnames);
    PQclear(s);
    PQclear(res);
    return out;
}

/* A side's value from ?key= (default def) checked against the option's
 * values and turned into JSON text.  0, or -1 with a 400 reply set. */
static int s_side(gw_req *r, const cmp_option *o, const char *key, const char *def, const char **val,
                  char *json, size_t size)
{
    const char *v = gw_query(r, key);
    if (!v) v = def;
    for (int i = 0; o->values[i]; i++)
        if (!strcmp(v, o->values[i])) {
            *val = o->values[i];
            snprintf(json, size, o->boolean ? "%s" : "\"%s\"", o->values[i]);
            return 0;
        }
    char msg[200];
    snprintf(msg, sizeof msg, "%s must be one of the values of %s:", key, o->name);
    for (int i = 0; o->values[i]; i++)
        snprintf(msg + strlen(msg), sizeof msg - strlen(msg), "%s %s", i ? "," : "", o->values[i]);
    gw_reply_error(r, 400, "bad_request", msg, json_pack("[{s:s,s:s}]", "pointer", key, "message", msg));
    return -1;
}

/* The comparison of every ?model= under q (sides and names set). */
static int s_compare(gw_req *r, cmp_req *q)
{
    models_q mq = { .n = 0 };
    MHD_get_connection_values(r->conn, MHD_GET_ARGUMENT_KIND, s_collect, &mq);
    if (mq.n == 0) return gw_reply_error(r, 400, "bad_request", "give at least one model=ID", NULL);
    if (gw_query_int(r, "max_pairs", 200, 1, 2000, &q->max_pairs)) return 0;
    const char *sp = gw_query(r, "speedups");
    if (sp && strcmp(sp, "0") && strcmp(sp, "1")) return gw_reply_error(r, 400, "bad_request", "speedups must be 0 or 1", NULL);
    q->speedups = sp && !strcmp(sp, "1");
    /* runs shorter than this are too short to time (default 5 ms) */
    const char *ms = gw_query(r, "min_seconds");
    char *end = NULL;
    q->min_seconds = ms ? strtod(ms, &end) : 0.005;
    if (ms && (end == ms || *end || !(q->min_seconds >= 0 && q->min_seconds <= 3600)))
        return gw_reply_error(r, 400, "bad_request", "min_seconds must be a number of seconds from 0 to 3600",
                              json_pack("[{s:s,s:s}]", "pointer", "min_seconds", "message", ms));
    PGconn **db = gw_db();
    if (!db) return gw_reply_db_error(r, NULL);
    json_t *models = json_array();
    for (int i = 0; i < mq.n; i++) {
        if (!gw_is_model_id(mq.v[i])) {
            json_decref(models);
            return gw_reply_error(r, 404, "not_found", "no such model", json_pack("[{s:s,s:s}]", "pointer", "model", "message", mq.v[i]));
        }
        json_t *m = s_model(r, db, mq.v[i], q);
        if (!m) { json_decref(models); return 0; }
        json_array_append_new(models, m);
    }
    return gw_reply_json(r, 200, json_pack("{s:o}", "models", models));
}

int api_compare(gw_req *r)
{
    cmp_req q = { .kbase = "base", .kother = "other", .jbase = "job_base", .jother = "job_other" };
    const char *name = gw_query(r, "option");
    for (int i = 0; name && i < NOPTION; i++)
        if (!strcmp(name, s_options[i].name)) q.opt = &s_options[i];
    if (!q.opt) {
        const char *msg = "option must be contact_deactivation, formulation or integrator";
        return gw_reply_error(r, 400, "bad_request", msg, json_pack("[{s:s,s:s}]", "pointer", "option", "message", msg));
    }
    if (s_side(r, q.opt, "base", q.opt->base, &q.base, q.base_json, sizeof q.base_json) ||
        s_side(r, q.opt, "other", q.opt->other, &q.other, q.other_json, sizeof q.other_json)) return 0;
    if (!strcmp(q.base, q.other)) {
        const char *msg = "base and other must differ";
        return gw_reply_error(r, 400, "bad_request", msg, json_pack("[{s:s,s:s}]", "pointer", "other", "message", msg));
    }
    return s_compare(r, &q);
}

int api_compare_deactivation(gw_req *r)
{
    cmp_req q = { .opt = &s_options[0], .base = "false", .other = "true", .base_json = "false", .other_json = "true",
                  .kbase = "deactivation_off", .kother = "deactivation_on", .jbase = "job_off", .jother = "job_on",
                  .legacy = 1 };
    return s_compare(r, &q);
}
