/*
 * dispatch_verify.c - the dispatcher's verification step: once a design job
 * and its verification job (kind 'verify', see sweep_verify.c) are both
 * done, the differences of their responses and sampled outputs are written
 * to verifications / verification_responses, once (the design job's id is
 * the key; a second write does nothing).
 *
 * Run every tick before ds_finish_sweeps, over the sweeps not yet finished,
 * and a sweep is finished only when none of its pairs is left unverified:
 * so whichever gateway writes the second result of a pair, the difference
 * is stored before the sweep reports done.
 */
#include "dispatch.h"
#include "svc/db.h"
#include "svc/log.h"
#include "svc/msg.h"
#include "svc/verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One stored sample block as rows (caller frees); NULL if it is short. */
static double *s_rows(PGresult *r, int row, int col_ch, int col_n, int col_s, json_t **channels, long *nsample)
{
    *channels = json_loads(PQgetvalue(r, row, col_ch), 0, NULL);
    *nsample = strtol(PQgetvalue(r, row, col_n), NULL, 10);
    size_t ncol = json_array_size(*channels) + 1, count = (size_t)(*nsample > 0 ? *nsample : 0) * ncol;
    if ((size_t)PQgetlength(r, row, col_s) < count * 8) { *nsample = 0; return NULL; }
    double *rows = malloc(sizeof(double) * (count + 1));
    if (rows) msg_get_f64le(rows, (const unsigned char *)PQgetvalue(r, row, col_s), count);
    return rows;
}

int ds_verify(PGconn **db, int limit)
{
    char lb[16];
    snprintf(lb, sizeof lb, "%d", limit);
    const char *p[] = { lb };
    /* binary results: the samples raw, the other columns as text */
    PGresult *r = db_execb(db,
        "SELECT d.id::text, v.id::text, d.sweep_id::text, rd.responses::text, rv.responses::text, "
        "       array_to_json(rd.channels)::text, rd.nsample::text, rd.samples, "
        "       array_to_json(rv.channels)::text, rv.nsample::text, rv.samples "
        DS_SQL_UNVERIFIED("v.sweep_id IN (SELECT id FROM sweeps WHERE counts IS NULL)")
        "ORDER BY v.id LIMIT $1::int", 1, p, NULL, NULL, 1);
    if (!db_ok(r)) { log_warn("dispatch: verification pairs: %s", PQresultErrorMessage(r)); PQclear(r); return -1; }
    int n = PQntuples(r), rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        json_t *va = json_loads(PQgetvalue(r, i, 3), 0, NULL), *vb = json_loads(PQgetvalue(r, i, 4), 0, NULL);
        json_t *ca, *cb;
        long na, nb;
        double *ya = s_rows(r, i, 5, 6, 7, &ca, &na), *yb = s_rows(r, i, 8, 9, 10, &cb, &nb);
        /* responses always; channels when the two sample blocks line up */
        json_t *resp = verify_response_diff(va, vb);
        json_t *chan = ya && yb ? verify_channel_diff(ca, ya, na, cb, yb, nb) : NULL;
        char *rt = json_dumps(resp, JSON_COMPACT | JSON_REAL_PRECISION(17));
        char *ct = chan ? json_dumps(chan, JSON_COMPACT | JSON_REAL_PRECISION(17)) : NULL;
        const char *q[] = { PQgetvalue(r, i, 0), PQgetvalue(r, i, 1), PQgetvalue(r, i, 2), ct, rt };
        rc = db_cmd(db, "verification",
            "WITH x AS (INSERT INTO verifications (job_id, verify_job_id, sweep_id, channels) "
            "           VALUES ($1::bigint, $2::bigint, $3::uuid, $4::jsonb) ON CONFLICT (job_id) DO NOTHING "
            "           RETURNING job_id) "
            "INSERT INTO verification_responses (job_id, name, value, reference, abs_diff, rel_diff) "
            "SELECT x.job_id, e.key, (e.value->>'value')::float8, (e.value->>'reference')::float8, "
            "       (e.value->>'abs_diff')::float8, (e.value->>'rel_diff')::float8 "
            "FROM x, jsonb_each($5::jsonb) e", 5, q);
        if (rc == 0) log_debug("dispatch: job %s verified by job %s", PQgetvalue(r, i, 0), PQgetvalue(r, i, 1));
        free(rt); free(ct); free(ya); free(yb);
        json_decref(va); json_decref(vb); json_decref(ca); json_decref(cb); json_decref(resp); json_decref(chan);
    }
    PQclear(r);
    return rc;
}
