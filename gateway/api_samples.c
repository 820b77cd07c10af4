/*
 * api_samples.c - GET /api/v1/samples?jobs=ID,ID,...&points=N&channels=A,B:
 * the sampled output channels of several finished jobs in one request,
 * decimated here to at most N buckets per job with the minimum and maximum
 * of each channel over each bucket, so that a long run plots fast and its
 * peaks survive (the front end's channel plots).
 *
 * A job with at most N samples comes back whole (min = max = the sample).
 * Buckets split the samples evenly; t is the time of a bucket's first
 * sample, t_last that of its last.  Unknown channel names are listed in
 * "missing"; a job without a result (yet) has "nsample": 0 and "available":
 * false.  At most 20 jobs, 64 channels, 10000 points.
 */
#include "gw.h"
#include "svc/db.h"
#include "svc/jsonout.h"
#include "svc/msg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_JOBS 20
#define MAX_CHANNELS 64

/* Split a comma list into at most max items (pointers into buf); -1 when
 * there are more.  strtok_r: handlers run on several threads. */
static int s_split(char *buf, char **item, int max)
{
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (n == max) return -1;
        item[n++] = tok;
    }
    return n;
}

/* One job's result, decimated, as a JSON object. */
static void s_job(FILE *f, const char *id, PGresult *res, int row, char **want, int nwant, long points)
{
    fprintf(f, "{\"job\":%s", id);
    if (row < 0) { fputs(",\"available\":false,\"nsample\":0}", f); return; }
    json_t *channels = json_loadb(PQgetvalue(res, row, 1), (size_t)PQgetlength(res, row, 1), 0, NULL);
    long n = strtol(PQgetvalue(res, row, 2), NULL, 10);
    size_t nch = json_array_size(channels), ncol = nch + 1;
    if ((size_t)PQgetlength(res, row, 3) < (size_t)n * ncol * 8) n = 0;
    double *rows = malloc(sizeof(double) * ((size_t)n * ncol + 1));
    msg_get_f64le(rows, (const unsigned char *)PQgetvalue(res, row, 3), (size_t)n * ncol);
    /* the columns asked for (all when none named), in the order asked */
    int *col = malloc(sizeof(int) * (nch + MAX_CHANNELS + 1)), ncolsel = 0;
    fputs(",\"missing\":[", f);
    if (nwant == 0) for (size_t c = 0; c < nch; c++) col[ncolsel++] = (int)c;
    for (int w = 0, first = 1; w < nwant; w++) {
        int found = -1;
        for (size_t c = 0; c < nch; c++)
            if (!strcmp(json_string_value(json_array_get(channels, c)), want[w])) { found = (int)c; break; }
        if (found >= 0) col[ncolsel++] = found;
        else { if (!first) fputc(',', f); first = 0; jsonout_str(f, want[w]); }
    }
    long nb = n <= points ? n : points;
    fprintf(f, "],\"available\":true,\"nsample\":%ld,\"decimated\":%s,\"buckets\":%ld", n, nb < n ? "true" : "false", nb);
    /* bucket b covers samples [b n / nb, (b + 1) n / nb) */
    fputs(",\"t\":[", f);
    for (long b = 0; b < nb; b++) { if (b) fputc(',', f); jsonout_real(f, rows[(size_t)(b * n / nb) * ncol]); }
    fputs("],\"t_last\":[", f);
    for (long b = 0; b < nb; b++) { if (b) fputc(',', f); jsonout_real(f, rows[(size_t)((b + 1) * n / nb - 1) * ncol]); }
    fputs("],\"channels\":{", f);
    for (int k = 0; k < ncolsel; k++) {
        size_t c = (size_t)col[k] + 1;
        if (k) fputc(',', f);
        jsonout_str(f, json_string_value(json_array_get(channels, (size_t)col[k])));
        for (int pass = 0; pass < 2; pass++) {
            fputs(pass ? ",\"max\":[" : ":{\"min\":[", f);
            for (long b = 0; b < nb; b++) {
                long i0 = b * n / nb, i1 = (b + 1) * n / nb;
                double v = rows[(size_t)i0 * ncol + c];
                for (long i = i0 + 1; i < i1; i++) {
                    double x = rows[(size_t)i * ncol + c];
                    if (pass ? x > v : x < v) v = x;
                }
                if (b) fputc(',', f);
                jsonout_real(f, v);
            }
            fputc(']', f);
        }
        fputc('}', f);
    }
    fputs("}}", f);
    free(col); free(rows); json_decref(channels);
}

int api_samples(gw_req *r)
{
    const char *jq = gw_query(r, "jobs"), *cq = gw_query(r, "channels");
    char jbuf[512], cbuf[8192], *ids[MAX_JOBS + 1], *want[MAX_CHANNELS + 1];
    long points;
    if (gw_query_int(r, "points", 1000, 2, 10000, &points)) return 0;
    if (!jq || !*jq || strlen(jq) >= sizeof jbuf)
        return gw_reply_error(r, 400, "bad_request", "jobs must list 1 to 20 job ids separated by commas", NULL);
    snprintf(jbuf, sizeof jbuf, "%s", jq);
    int nj = s_split(jbuf, ids, MAX_JOBS);
    if (nj <= 0) return gw_reply_error(r, 400, "bad_request", "jobs must list 1 to 20 job ids separated by commas", NULL);
    for (int i = 0; i < nj; i++)
        if (!gw_is_job_id(ids[i])) return gw_reply_error(r, 400, "bad_request", "jobs must list job ids (digits)", NULL);
    int nw = 0;
    if (cq && *cq) {
        if (strlen(cq) >= sizeof cbuf) return gw_reply_error(r, 400, "bad_request", "channels too long", NULL);
        snprintf(cbuf, sizeof cbuf, "%s", cq);
        nw = s_split(cbuf, want, MAX_CHANNELS);
        if (nw < 0) return gw_reply_error(r, 400, "bad_request", "at most 64 channels", NULL);
    }
    /* the ids as a bigint[] literal: digits and commas only (checked above) */
    char arr[600];
    size_t k = 0;
    k += (size_t)snprintf(arr + k, sizeof arr - k, "{");
    for (int i = 0; i < nj; i++) k += (size_t)snprintf(arr + k, sizeof arr - k, "%s%s", i ? "," : "", ids[i]);
    snprintf(arr + k, sizeof arr - k, "}");
    const char *p[] = { arr };
    PGconn **db = gw_db();
    if (!db) return gw_reply_db_error(r, NULL);
    /* binary result format: the text columns arrive as their bytes, samples raw */
    PGresult *res = db_execb(db,
        "SELECT job_id::text, array_to_json(channels)::text, nsample::text, samples "
        "FROM results WHERE job_id = ANY($1::bigint[])", 1, p, NULL, NULL, 1);
    if (!db_ok(res)) { gw_reply_db_error(r, res); PQclear(res); return 0; }
    char *buf = NULL; size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fprintf(f, "{\"points\":%ld,\"jobs\":[", points);
    for (int i = 0; i < nj; i++) {
        int row = -1;
        for (int t = 0; t < PQntuples(res); t++)
            if ((size_t)PQgetlength(res, t, 0) == strlen(ids[i]) && !memcmp(PQgetvalue(res, t, 0), ids[i], strlen(ids[i]))) row = t;
        if (i) fputc(',', f);
        s_job(f, ids[i], res, row, want, nw, points);
    }
    fputs("]}", f);
    fclose(f);
    PQclear(res);
    return gw_reply_text(r, 200, "application/json", buf, len);
}
