/*
 * run.c - one job: model from the cache or built (mech_parse with the job's
 * overrides, then mbs_model_new), a run with a time limit and cancellation
 * through the progress callback, responses reduced from the samples, and the
 * message for the gateway.
 *
 * Cache: parameters are evaluated by the parser (geometry expressions), so a
 * built model depends on the definition and the overrides; the cache keeps
 * the last WK_CACHE models keyed by model id + overrides, which serves jobs
 * repeated after a lost worker and sweeps over the seed-free options.
 */
#include "wk.h"
#include "mechanism/mechanism.h"
#include "svc/job.h"
#include "svc/log.h"
#include "svc/msg.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WK_CACHE 8

/* The spec is kept beside its model: the solver may refer to it. */
static struct { char *key; mbs_model *model; mbs_spec *spec; long used; } s_cache[WK_CACHE];
static long s_clock;

void wk_job_free(wk_job *j)
{
    if (!j) return;
    free(j->definition);
    json_decref(j->params); json_decref(j->solver); json_decref(j->responses);
    free(j);
}

void wk_cache_clear(void)
{
    for (int i = 0; i < WK_CACHE; i++) {
        free(s_cache[i].key); s_cache[i].key = NULL;
        mbs_model_free(&s_cache[i].model); mbs_spec_free(&s_cache[i].spec);
    }
}

static double s_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* Progress callback: stop on cancel or when the time limit is reached. */
typedef struct { wk_job *job; double deadline; int timed_out; } progress_ctx;

static int s_progress(double fraction, void *user)
{
    progress_ctx *p = user;
    (void)fraction;
    if (atomic_load(&p->job->cancel)) return 1;
    if (p->deadline > 0 && s_now() > p->deadline) { p->timed_out = 1; return 1; }
    return 0;
}

static void s_failed(msg_t *out, wk_job *j, int retry, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void s_failed(msg_t *out, wk_job *j, int retry, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    log_info("job %lld attempt %d failed: %s", j->id, j->attempt, msg);
    out->cmd = MSG_FAILED;
    out->body = json_pack("{s:I,s:i,s:s,s:b}", "job", (json_int_t)j->id, "attempt", j->attempt,
                          "error", msg, "retry", retry);
}

/* Error list as one line: "pointer: message; ..." */
static void s_errors(const mbs_errlist *el, char *out, size_t size)
{
    size_t k = 0;
    out[0] = 0;
    for (int i = 0; i < el->n && k + 8 < size; i++)
        k += (size_t)snprintf(out + k, size - k, "%s%s%s%s", i ? "; " : "", el->e[i].pointer,
                              el->e[i].pointer[0] ? ": " : "", el->e[i].message);
}

/* The model for this job: cached, or parsed and built (NULL + FAILED sent). */
static const mbs_model *s_model(wk_job *j, msg_t *out)
{
    char *p = json_dumps(j->params, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
    char *s = json_dumps(j->solver, JSON_COMPACT | JSON_SORT_KEYS);
    size_t klen = strlen(j->model) + strlen(p) + strlen(s) + 3;
    char *key = malloc(klen);
    snprintf(key, klen, "%s|%s|%s", j->model, p, s);
    free(p); free(s);
    int lru = 0;
    for (int i = 0; i < WK_CACHE; i++) {
        if (s_cache[i].key && !strcmp(s_cache[i].key, key)) { s_cache[i].used = ++s_clock; free(key); return s_cache[i].model; }
        if (s_cache[i].used < s_cache[lru].used) lru = i;
    }
    /* parse with the overrides, then build */
    job_overrides ov;
    mbs_errlist *el = calloc(1, sizeof *el);
    char text[2048];
    job_overrides_build(j->params, j->solver, &ov);
    mbs_spec *spec = mech_parse(j->definition, strlen(j->definition), ov.ov, ov.n, el);
    job_overrides_free(&ov);
    mbs_model *m = spec ? mbs_model_new(spec, NULL, el) : NULL;
    if (!m) {
        mbs_spec_free(&spec);
        s_errors(el, text, sizeof text);
        s_failed(out, j, 0, "invalid model: %s", text[0] ? text : "cannot build");
        free(el); free(key);
        return NULL;
    }
    free(el);
    free(s_cache[lru].key); mbs_model_free(&s_cache[lru].model); mbs_spec_free(&s_cache[lru].spec);
    s_cache[lru].key = key; s_cache[lru].model = m; s_cache[lru].spec = spec; s_cache[lru].used = ++s_clock;
    return m;
}

void wk_run(wk_job *j, int delay_ms, msg_t *out)
{
    progress_ctx pc = { .job = j, .deadline = j->time_limit > 0 ? s_now() + j->time_limit : 0 };
    memset(out, 0, sizeof *out);
    /* test aid: a slow job, still cancellable */
    for (int waited = 0; waited < delay_ms && !atomic_load(&j->cancel); waited += 10) usleep(10000);
    if (atomic_load(&j->cancel)) { s_failed(out, j, 0, "cancelled"); return; }
    memset(out, 0, sizeof *out);
    const mbs_model *m = s_model(j, out);
    if (!m) return;
    mbs_data *d = mbs_data_new(m);
    if (!d) { s_failed(out, j, 1, "out of memory"); return; }
    mbs_result res = { 0 };
    mbs_metrics met;
    mbs_errlist *el = calloc(1, sizeof *el);
    memset(&met, 0, sizeof met);
    int rc = mbs_simulate(m, d, &res, &met, s_progress, &pc, el);
    mbs_data_free(&d);
    if (rc != 0) {
        char text[2048];
        s_errors(el, text, sizeof text);
        if (atomic_load(&j->cancel)) s_failed(out, j, 0, "cancelled");
        /* the same job fails the same way again: no retry, but for memory */
        else if (pc.timed_out || rc == MBS_ETIMEOUT)
            s_failed(out, j, 0, "time limit of %.3g s reached", j->time_limit);
        else s_failed(out, j, rc == MBS_ENOMEM, "solver: %s%s%s", mbs_strerror(rc), text[0] ? ": " : "", text);
        mbs_result_free(&res); free(el);
        return;
    }
    free(el);
    /* channel names, responses, metrics, and the samples as little-endian doubles */
    const mbs_spec *spec = mbs_model_spec(m);
    int nch = res.nchannel, ncol = nch + 1;
    const char **names = calloc((size_t)nch + 1, sizeof *names);
    json_t *channels = json_array();
    for (int c = 0; c < nch; c++) {
        names[c] = c < spec->nchannel ? spec->channels[c].name : "";
        json_array_append_new(channels, json_string(names[c]));
    }
    json_t *resp = job_responses_eval(j->responses, names, nch, res.rows, res.nsample);
    /* payload: the samples, then the body poses' frames, then the contact
       points' records at the frames (see svc/msg.h) */
    size_t nval = (size_t)res.nsample * (size_t)ncol;
    size_t nfval = res.frames ? (size_t)res.nframe * (size_t)(1 + res.nbody * res.npose) : 0;
    int has_contacts = nfval && spec->ncontact > 0;
    size_t ncval = has_contacts ? (size_t)res.ncontact_rec * MBS_CONTACT_REC : 0;
    /* a payload the gateway would drop (its --zmq-max-message) fails the job
     * with the reason instead: sent, it would be lost and the job run again
     * until its attempts were spent, for the same result each time */
    double bytes = (double)(nval + nfval + ncval) * 8;
    if (j->max_frame > 0 && bytes > j->max_frame) {
        s_failed(out, j, 0, "result of %.3g MB (%d samples x %d channels, %zu pose and contact values) exceeds the "
                 "gateway's message limit of %.3g MB (--zmq-max-message): a longer outputs.interval or fewer "
                 "channels", bytes / 1e6, res.nsample, nch, nfval + ncval, j->max_frame / 1e6);
        json_decref(channels); json_decref(resp); free(names); mbs_result_free(&res);
        return;
    }
    unsigned char *blob = malloc((nval + nfval + ncval) * 8 + 1);
    if (!blob) { s_failed(out, j, 1, "out of memory"); json_decref(channels); json_decref(resp);
                 free(names); mbs_result_free(&res); return; }
    msg_put_f64le(blob, res.rows, nval);
    if (nfval) msg_put_f64le(blob + nval * 8, res.frames, nfval);
    if (ncval) msg_put_f64le(blob + (nval + nfval) * 8, res.contacts, ncval);
    out->cmd = MSG_RESULT;
    out->blob = blob; out->bloblen = (nval + nfval + ncval) * 8;
    out->body = json_pack("{s:I,s:i,s:o,s:i,s:o,s:o}", "job", (json_int_t)j->id, "attempt", j->attempt,
                          "channels", channels, "nsample", res.nsample, "responses", resp,
                          "metrics", job_metrics_json(&met));
    if (nfval) {
        json_t *bodies = json_array();
        for (int b = 0; b < res.nbody; b++) json_array_append_new(bodies, json_string(spec->bodies[b].name));
        json_object_set_new(out->body, "poses", json_pack("{s:o,s:i,s:i}", "bodies", bodies,
                                                          "npose", res.npose, "nframe", res.nframe));
        if (has_contacts)
            json_object_set_new(out->body, "contacts", json_pack("{s:i,s:i}", "nrec", res.ncontact_rec,
                                                                 "nframe", res.contact_frames));
    }
    log_debug("job %lld attempt %d done: %d samples, %.3f s", j->id, j->attempt, res.nsample, met.wall_seconds);
    free(names);
    mbs_result_free(&res);
}
