/*
 * json_mutator.c - structure-aware JSON mutation (json_mutator.h).
 */
#include "json_mutator.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* libFuzzer's own mutation, for inputs that are not JSON */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

#define MAX_NODES 4096

typedef struct {
    json_t *node[MAX_NODES];    /* every value of the document, depth first */
    json_t *parent[MAX_NODES];  /* its container (NULL for the root)         */
    int n;
} walk_t;

static void s_walk(walk_t *w, json_t *v, json_t *parent)
{
    if (w->n >= MAX_NODES) return;
    w->node[w->n] = v;
    w->parent[w->n] = parent;
    w->n++;
    if (json_is_object(v)) {
        const char *k;
        json_t *x;
        json_object_foreach(v, k, x) s_walk(w, x, v);
    } else if (json_is_array(v)) {
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x) s_walk(w, x, v);
    }
}

/* A number a user should not give, or a scaled one. */
static double s_extreme(double v, unsigned r)
{
    static const double fixed[] = { 0.0, -1.0, 1.0, 1e-300, -1e-300, 1e300, -1e300, 1e-12, 1e12, 0.5 };
    switch (r % 4) {
    case 0: return -v;
    case 1: return v * 1e6;
    case 2: return v * 1e-6;
    default: return fixed[(r / 4) % (sizeof fixed / sizeof fixed[0])];
    }
}

/* The key under which parent holds v. */
static const char *s_key_of(json_t *parent, json_t *v)
{
    const char *k;
    json_t *x;
    json_object_foreach(parent, k, x) if (x == v) return k;
    return NULL;
}

/* Put w in v's place in its parent (w's reference is taken). */
static void s_replace(json_t *parent, json_t *v, json_t *w)
{
    if (json_is_object(parent)) {
        const char *k = s_key_of(parent, v);
        if (k) json_object_set_new(parent, k, w);
        else json_decref(w);
    } else {
        size_t i;
        json_t *x;
        json_array_foreach(parent, i, x) if (x == v) { json_array_set_new(parent, i, w); return; }
        json_decref(w);
    }
}

static void s_mutate_one(walk_t *w, unsigned r)
{
    int i = 1 + (int)(r % (unsigned)(w->n - 1));   /* never the root itself */
    json_t *v = w->node[i], *parent = w->parent[i];
    r /= (unsigned)w->n;
    if (json_is_number(v)) {
        s_replace(parent, v, json_real(s_extreme(json_number_value(v), r)));
    } else if (json_is_string(v)) {
        /* another string of the document, or an empty one */
        json_t *other = NULL;
        for (int k = 0, start = (int)(r % (unsigned)w->n); k < w->n && !other; k++) {
            json_t *c = w->node[(start + k) % w->n];
            if (json_is_string(c) && c != v) other = c;
        }
        s_replace(parent, v, json_string(other && (r & 8) ? json_string_value(other) : ""));
    } else if (json_is_object(parent) && (r & 1)) {
        const char *k = s_key_of(parent, v);
        if (k) json_object_del(parent, k);
    } else if (json_is_array(parent)) {
        size_t n = json_array_size(parent), at = 0;
        for (size_t k = 0; k < n; k++) if (json_array_get(parent, k) == v) at = k;
        if (r & 2) json_array_remove(parent, at);
        else json_array_append(parent, v);     /* a duplicate (same names, same ids) */
    } else if (json_is_object(v) && json_object_size(v) > 0) {
        const char *k;
        json_t *x;
        unsigned j = r % (unsigned)json_object_size(v);
        json_object_foreach(v, k, x) if (j-- == 0) { json_object_del(v, k); break; }
    }
}

size_t json_mutate(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    json_error_t e;
    json_t *doc = (seed % 5) ? json_loadb((const char *)data, size, 0, &e) : NULL;
    if (!doc) return LLVMFuzzerMutate(data, size, max_size);
    walk_t *w = malloc(sizeof *w);
    w->n = 0;
    s_walk(w, doc, NULL);
    size_t out = 0;
    if (w->n > 1) {
        /* one to three changes */
        unsigned r = seed * 2654435761u;
        for (unsigned k = 0; k <= (seed / 5) % 3; k++, r = r * 1103515245u + 12345u) {
            w->n = 0;
            s_walk(w, doc, NULL);
            if (w->n > 1) s_mutate_one(w, r >> 3);
        }
        char *text = json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(17));
        if (text && strlen(text) <= max_size) {
            out = strlen(text);
            memcpy(data, text, out);
        }
        free(text);
    }
    free(w);
    json_decref(doc);
    return out ? out : LLVMFuzzerMutate(data, size, max_size);
}
