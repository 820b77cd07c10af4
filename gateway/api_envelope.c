/*
 * api_envelope.c - GET /api/v1/sweeps/{id}/envelope?channels=A,B&points=N:
 * the min/max envelope of output channels over the done design jobs of a
 * sweep, in N time buckets (the front end's job view draws it behind the
 * jobs plotted: where the job lies within its whole sweep).
 *
 * Buckets split [t0, t1] evenly (default: the first job's first sample
 * time and the latest end time of the done jobs, each job's t_end or else
 * the model's, so that jobs of different lengths are all in it; ?t0=&t1=
 * choose it); a sample at time t goes to bucket
 * floor((t - t0) / (t1 - t0) * N), samples outside [t0, t1] are left out.
 * Each bucket holds the least and the largest value of the channel over every
 * job's samples in it (null where no sample fell).
 *
 * Bounded work: at most max_jobs jobs (default 2000, at most 10000) are read;
 * a sweep with more done jobs is sampled evenly by idx (the jobs whose idx
 * is a multiple of "stride", the least that keeps within max_jobs); results are read in batches of 100 jobs (one statement each,
 * each under the gateway's statement timeout, memory for one batch at a
 * time), and reading stops after 5e7 sample values ("truncated": true).
 */
#include "gw.h"
#include "svc/db.h"
#include "svc/jsonout.h"
#include "svc/msg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CHANNELS 8
#define BATCH 100
#define VALUE_BUDGET 50000000L

static int s_double_param(gw_req *r, const char *key, double *out, int *given)
{
    const char *v = gw_query(r, key);
    char *end;
    *given = 0;
    if (!v) return 0;
    *out = strtod(v, &end);
    if (!*v || *end || !isfinite(*out)) {
        char msg[64];
        snprintf(msg, sizeof msg, "%s must be a number", key);
        gw_reply_error(r, 400, "bad_request", msg, NULL);
        return -1;
    }
    *given = 1;
    return 0;
}

int api_sweeps_envelope(gw_req *r)
{
    const char *cq = gw_query(r, "channels");
    char cbuf[1024], *want[MAX_CHANNELS + 1], *save = NULL;
    long points, max_jobs;
    double t0 = 0, t1 = 0;
    int has0, has1, nw = 0;
    if (!gw_is_uuid(r->param[0])) return gw_reply_error(r, 404, "not_found", "no such sweep", NULL);
    if (gw_query_int(r, "points", 500, 2, 2000, &points) || gw_query_int(r, "max_jobs", 2000, 1, 10000, &max_jobs)) return 0;
    if (s_double_param(r, "t0", &t0, &has0) || s_double_param(r, "t1", &t1, &has1)) return 0;
    if (has0 && has1 && !(t1 > t0)) return gw_reply_error(r, 400, "bad_request", "t1 must be after t0", NULL);
    if (!cq || !*cq || strlen(cq) >= sizeof cbuf)
        return gw_reply_error(r, 400, "bad_request", "channels must name 1 to 8 channels separated by commas", NULL);
    snprintf(cbuf, sizeof cbuf, "%s", cq);
    for (char *tok = strtok_r(cbuf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (nw == MAX_CHANNELS) return gw_reply_error(r, 400, "bad_request", "at most 8 channels", NULL);
        want[nw++] = tok;
    }
    if (!nw) return gw_reply_error(r, 400, "bad_request", "channels must name 1 to 8 channels separated by commas", NULL);
    PGconn **db = gw_db();
    if (!db) return gw_reply_db_error(r, NULL);

    /* the sweep and how many of its design jobs are done with a result */
    const char *p1[] = { r->param[0] };
    /* and the latest end time of its done design jobs (a job's t_end, else
       the model's): the default end of the range, so that the jobs that run
       longest are in it whichever job is read first */
    PGresult *res = db_exec(db,
        "SELECT (SELECT count(*) FROM jobs j JOIN results x ON x.job_id = j.id "
        "        WHERE j.sweep_id = s.id AND j.kind = 'design' AND j.status = 'done')::text, "
        "  (SELECT max(CASE WHEN jsonb_typeof(j.solver_overrides->'t_end') = 'number' "
        "                   THEN (j.solver_overrides->>'t_end')::float8 "
        "                   WHEN jsonb_typeof(m.definition->'solver'->'t_end') = 'number' "
        "                   THEN (m.definition->'solver'->>'t_end')::float8 END) "
        "   FROM jobs j WHERE j.sweep_id = s.id AND j.kind = 'design' AND j.status = 'done')::text "
        "FROM sweeps s JOIN models m ON m.id = s.model_id WHERE s.id = $1::uuid", 1, p1);
    if (!db_ok(res)) { gw_reply_db_error(r, res); PQclear(res); return 0; }
    if (PQntuples(res) == 0) { PQclear(res); return gw_reply_error(r, 404, "not_found", "no such sweep", NULL); }
    long ndone = strtol(PQgetvalue(res, 0, 0), NULL, 10);
    double t_end = PQgetisnull(res, 0, 1) ? NAN : strtod(PQgetvalue(res, 0, 1), NULL);
    PQclear(res);
    long stride = ndone > max_jobs ? (ndone + max_jobs - 1) / max_jobs : 1;

    double *lo = malloc(sizeof(double) * (size_t)(points * nw)), *hi = malloc(sizeof(double) * (size_t)(points * nw));
    for (long i = 0; i < points * nw; i++) { lo[i] = INFINITY; hi[i] = -INFINITY; }
    int found[MAX_CHANNELS] = { 0 }, have_range = has0 && has1, truncated = 0, failed = 0;
    long used = 0, values = 0, after = -1;
    char sstride[24], safter[24], sbatch[24];
    snprintf(sstride, sizeof sstride, "%ld", stride);
    snprintf(sbatch, sizeof sbatch, "%d", BATCH);
    /* batches of done jobs by idx (keyset, the index on sweep_id, idx), samples raw */
    while (used < max_jobs && !truncated) {
        snprintf(safter, sizeof safter, "%ld", after);
        const char *pb[] = { r->param[0], sstride, safter, sbatch };
        res = db_execb(db,
            "SELECT j.idx::text, array_to_json(x.channels)::text, x.nsample::text, x.samples "
            "FROM jobs j JOIN results x ON x.job_id = j.id "
            "WHERE j.sweep_id = $1::uuid AND j.kind = 'design' AND j.status = 'done' "
            "  AND j.idx % $2::int = 0 AND j.idx > $3::int ORDER BY j.idx LIMIT $4::int",
            4, pb, NULL, NULL, 1);
        if (!db_ok(res)) { gw_reply_db_error(r, res); PQclear(res); failed = 1; break; }
        int nrow = PQntuples(res);
        for (int row = 0; row < nrow && used < max_jobs; row++) {
            char idxs[24];
            int il = PQgetlength(res, row, 0);
            snprintf(idxs, sizeof idxs, "%.*s", il < 23 ? il : 23, PQgetvalue(res, row, 0));
            after = strtol(idxs, NULL, 10);
            json_t *ch = json_loadb(PQgetvalue(res, row, 1), (size_t)PQgetlength(res, row, 1), 0, NULL);
            char ns[24];
            int nl = PQgetlength(res, row, 2);
            snprintf(ns, sizeof ns, "%.*s", nl < 23 ? nl : 23, PQgetvalue(res, row, 2));
            long n = strtol(ns, NULL, 10);
            size_t nch = json_array_size(ch), ncol = nch + 1;
            if (n <= 0 || (size_t)PQgetlength(res, row, 3) < (size_t)n * ncol * 8) { json_decref(ch); continue; }
            int col[MAX_CHANNELS];
            for (int w = 0; w < nw; w++) {
                col[w] = -1;
                for (size_t c = 0; c < nch; c++)
                    if (!strcmp(json_string_value(json_array_get(ch, c)), want[w])) { col[w] = (int)c + 1; found[w] = 1; break; }
            }
            json_decref(ch);
            double *s = malloc(sizeof(double) * (size_t)n * ncol);
            msg_get_f64le(s, (const unsigned char *)PQgetvalue(res, row, 3), (size_t)n * ncol);
            if (!have_range) {
                if (!has0) t0 = s[0];
                if (!has1) t1 = isfinite(t_end) && t_end > t0 ? t_end : s[(size_t)(n - 1) * ncol];
                if (!(t1 > t0)) t1 = t0 + 1;
                have_range = 1;
            }
            double scale = (double)points / (t1 - t0);
            for (long i = 0; i < n; i++) {
                double t = s[(size_t)i * ncol];
                if (!(t >= t0 && t <= t1)) continue;
                long b = (long)((t - t0) * scale);
                if (b >= points) b = points - 1;
                for (int w = 0; w < nw; w++) {
                    if (col[w] < 0) continue;
                    double v = s[(size_t)i * ncol + (size_t)col[w]];
                    if (!isfinite(v)) continue;
                    if (v < lo[b * nw + w]) lo[b * nw + w] = v;
                    if (v > hi[b * nw + w]) hi[b * nw + w] = v;
                }
            }
            free(s);
            used++;
            values += n * (long)ncol;
            if (values >= VALUE_BUDGET) { truncated = 1; break; }
        }
        PQclear(res);
        if (nrow < BATCH) break;
    }
    if (failed) { free(lo); free(hi); return 0; }

    char *buf = NULL; size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fprintf(f, "{\"sweep\":\"%s\",\"points\":%ld,\"jobs_done\":%ld,\"jobs_used\":%ld,\"stride\":%ld,\"truncated\":%s,\"t0\":",
            r->param[0], points, ndone, used, stride, truncated ? "true" : "false");
    if (have_range) { jsonout_real(f, t0); fputs(",\"t1\":", f); jsonout_real(f, t1); } else fputs("null,\"t1\":null", f);
    fputs(",\"t\":[", f);
    for (long b = 0; have_range && b < points; b++) { if (b) fputc(',', f); jsonout_real(f, t0 + (t1 - t0) * (double)b / (double)points); }
    fputs("],\"missing\":[", f);
    for (int w = 0, first = 1; w < nw; w++) if (!found[w]) { if (!first) fputc(',', f); first = 0; jsonout_str(f, want[w]); }
    fputs("],\"channels\":{", f);
    for (int w = 0, first = 1; w < nw; w++) {
        if (!found[w]) continue;
        if (!first) fputc(',', f);
        first = 0;
        jsonout_str(f, want[w]);
        for (int pass = 0; pass < 2; pass++) {
            fputs(pass ? ",\"max\":[" : ":{\"min\":[", f);
            for (long b = 0; b < points; b++) {
                if (b) fputc(',', f);
                jsonout_real(f, pass ? hi[b * nw + w] : lo[b * nw + w]);   /* an empty bucket: +-inf -> null */
            }
            fputc(']', f);
        }
        fputc('}', f);
    }
    fputs("}}", f);
    fclose(f);
    free(lo); free(hi);
    return gw_reply_text(r, 200, "application/json", buf, len);
}
