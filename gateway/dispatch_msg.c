/*
 * dispatch_msg.c - per-message validation of what workers send (msg.h).
 * A message that fails is dropped and counted by the dispatcher; nothing
 * of it reaches the database.
 */
#include "dispatch.h"
#include "mbs/mbs.h"

#include <string.h>

#define MAX_IN_HAND 64      /* jobs listed in READY / HEARTBEAT              */
#define MAX_CHANNELS 10000  /* names in a RESULT                             */
#define MAX_TEXT 4096       /* error text of a FAILED                        */

/* Integer field within [lo, hi]. */
static int s_int(const json_t *b, const char *key, long long lo, long long hi)
{
    const json_t *v = json_object_get(b, key);
    return json_is_integer(v) && json_integer_value(v) >= lo && json_integer_value(v) <= hi;
}

/* String field of at most max bytes (absent allowed when optional). */
static int s_str(const json_t *b, const char *key, size_t max, int optional)
{
    const json_t *v = json_object_get(b, key);
    if (!v) return optional;
    return json_is_string(v) && json_string_length(v) <= max;
}

/* [[id, attempt], ...] with positive integers, bounded. */
static int s_jobs(const json_t *a)
{
    size_t i; json_t *j;
    if (!a) return 1;
    if (!json_is_array(a) || json_array_size(a) > MAX_IN_HAND) return 0;
    json_array_foreach(a, i, j) {
        if (!json_is_array(j) || json_array_size(j) != 2) return 0;
        const json_t *id = json_array_get(j, 0), *at = json_array_get(j, 1);
        if (!json_is_integer(id) || json_integer_value(id) < 1 || !json_is_integer(at) ||
            json_integer_value(at) < 1 || json_integer_value(at) > 1000000) return 0;
    }
    return 1;
}

const char *ds_msg_invalid(const msg_t *m)
{
    const json_t *b = m->body;
    switch (m->cmd) {
    case MSG_READY:
        if (!s_int(b, "slots", 1, 1000) && json_object_get(b, "slots")) return "READY: slots";
        if (!s_str(b, "host", 255, 1) || !s_str(b, "version", 255, 1)) return "READY: host or version";
        if (json_object_get(b, "pid") && !s_int(b, "pid", 0, 1LL << 31)) return "READY: pid";
        if (!s_jobs(json_object_get(b, "jobs"))) return "READY: jobs";
        return NULL;
    case MSG_HEARTBEAT:
        if (json_object_get(b, "slots") && !s_int(b, "slots", 1, 1000)) return "HEARTBEAT: slots";
        return s_jobs(json_object_get(b, "jobs")) ? NULL : "HEARTBEAT: jobs";
    case MSG_FAILED:
        if (!s_int(b, "job", 1, 1LL << 62) || !s_int(b, "attempt", 1, 1000000)) return "FAILED: job or attempt";
        if (!s_str(b, "error", MAX_TEXT, 1)) return "FAILED: error";
        if (json_object_get(b, "retry") && !json_is_boolean(json_object_get(b, "retry"))) return "FAILED: retry";
        return NULL;
    case MSG_RESULT: {
        if (!s_int(b, "job", 1, 1LL << 62) || !s_int(b, "attempt", 1, 1000000)) return "RESULT: job or attempt";
        const json_t *ch = json_object_get(b, "channels");
        size_t i; json_t *c;
        if (!json_is_array(ch) || json_array_size(ch) > MAX_CHANNELS) return "RESULT: channels";
        json_array_foreach(ch, i, c) if (!json_is_string(c) || json_string_length(c) > 255) return "RESULT: channel name";
        if (!s_int(b, "nsample", 0, 1LL << 40)) return "RESULT: nsample";
        if (!json_is_object(json_object_get(b, "responses"))) return "RESULT: responses";
        if (!json_is_object(json_object_get(b, "metrics"))) return "RESULT: metrics";
        /* the samples: nsample rows of time + channels, 8 bytes each;
         * then, when "poses" announces them (msg.h), nframe frames of
         * time + bodies x npose doubles */
        unsigned long long rows = (unsigned long long)json_integer_value(json_object_get(b, "nsample"));
        unsigned long long want = rows * (json_array_size(ch) + 1) * 8;
        if (rows && want / rows != (json_array_size(ch) + 1) * 8)
            return "RESULT: payload size differs from nsample x (1 + channels) doubles";
        const json_t *ps = json_object_get(b, "poses");
        if (ps) {
            const json_t *bodies = json_object_get(ps, "bodies");
            if (!json_is_object(ps) || !json_is_array(bodies) || json_array_size(bodies) > MAX_CHANNELS ||
                !s_int(ps, "npose", 3, 7) || !s_int(ps, "nframe", 1, 100000))
                return "RESULT: poses";
            unsigned long long nf = (unsigned long long)json_integer_value(json_object_get(ps, "nframe"));
            unsigned long long np = (unsigned long long)json_integer_value(json_object_get(ps, "npose"));
            want += nf * (1 + json_array_size(bodies) * np) * 8; /* bounded: 1e5 x (1 + MAX_CHANNELS x 7) x 8 */
            /* then the contact points' records (msg.h) */
            const json_t *cs = json_object_get(b, "contacts");
            if (cs) {
                if (!json_is_object(cs) || !s_int(cs, "nrec", 0, MBS_CONTACT_RECS_MAX) ||
                    !s_int(cs, "nframe", 0, (long long)nf))
                    return "RESULT: contacts";
                want += (unsigned long long)json_integer_value(json_object_get(cs, "nrec")) * MBS_CONTACT_REC * 8;
            }
        } else if (json_object_get(b, "contacts")) return "RESULT: contacts without poses";
        if (want != (unsigned long long)m->bloblen)
            return "RESULT: payload size differs from nsample x (1 + channels) doubles (and the poses and contacts announced)";
        return NULL;
    }
    default:
        return "unknown command";
    }
}
