/*
 * mechanism_contacts.c - contact shapes ("shapes") and contact pairs
 * ("contacts") of the mechanism format (see mechanism.c for the entry point).
 *
 * A contact entry is a single pair {"shapes": [A, B]} or a group
 * {"between": [pattern_a, pattern_b]} (fnmatch(3) globs), expanded here into
 * pairs: spec->contacts holds pairs only.  An unordered pair is declared at
 * most once: an explicit pair that was already declared is an error, a pair a
 * group produces again is skipped (the first declaration wins).
 */
#include "mechanism/mechanism_int.h"

#include <fnmatch.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- shape types -------------------------------------------------------------------- */

enum { K_AT = 1, K_CENTER = 2, K_RADIUS = 4, K_POINTS = 8, K_POINT = 16, K_NORMAL = 32,
       K_HALF = 64, K_ORIENT = 128 };

static const struct {
    const char *name;
    mbs_shape_spec_kind kind;
    int dim;
    int keys;
    const char *other; /* the counterpart in the other dimension, or NULL */
} s_types[] = {
    {"point", MBS_SHAPE_SPEC_POINT, 2, K_AT, NULL},
    {"circle", MBS_SHAPE_SPEC_CIRCLE, 2, K_CENTER | K_RADIUS, "sphere"},
    {"segment", MBS_SHAPE_SPEC_SEGMENT, 2, K_POINTS, "capsule"},
    {"line", MBS_SHAPE_SPEC_LINE, 2, K_POINT | K_NORMAL, "plane"},
    {"sphere", MBS_SHAPE_SPEC_SPHERE, 3, K_CENTER | K_RADIUS, "circle"},
    {"plane", MBS_SHAPE_SPEC_PLANE, 3, K_POINT | K_NORMAL, "line"},
    {"box", MBS_SHAPE_SPEC_BOX, 3, K_CENTER | K_HALF | K_ORIENT, NULL},
    {"capsule", MBS_SHAPE_SPEC_CAPSULE, 3, K_POINTS | K_RADIUS, "segment"},
};
#define S_NTYPES ((int)(sizeof s_types / sizeof s_types[0]))

static const char *const s_type_names[] = {"point", "circle", "segment", "line", "sphere",
                                           "plane", "box", "capsule", NULL};
static const char *const s_key_names[] = {"at", "center", "radius", "points", "point",
                                          "normal", "half_extents", "orientation", NULL};
static const char *const s_shape_all[] = {"name", "body", "type", "at", "center", "radius",
                                          "points", "point", "normal", "half_extents",
                                          "orientation", NULL};

/* The kind pairs the solver handles (in either order). */
static const mbs_shape_spec_kind s_pairs[][2] = {
    {MBS_SHAPE_SPEC_CIRCLE, MBS_SHAPE_SPEC_CIRCLE}, {MBS_SHAPE_SPEC_CIRCLE, MBS_SHAPE_SPEC_SEGMENT},
    {MBS_SHAPE_SPEC_CIRCLE, MBS_SHAPE_SPEC_LINE},   {MBS_SHAPE_SPEC_POINT, MBS_SHAPE_SPEC_LINE},
    {MBS_SHAPE_SPEC_POINT, MBS_SHAPE_SPEC_SEGMENT}, {MBS_SHAPE_SPEC_SPHERE, MBS_SHAPE_SPEC_SPHERE},
    {MBS_SHAPE_SPEC_SPHERE, MBS_SHAPE_SPEC_PLANE},  {MBS_SHAPE_SPEC_BOX, MBS_SHAPE_SPEC_PLANE},
    {MBS_SHAPE_SPEC_SPHERE, MBS_SHAPE_SPEC_BOX},    {MBS_SHAPE_SPEC_CAPSULE, MBS_SHAPE_SPEC_CAPSULE},
    {MBS_SHAPE_SPEC_SPHERE, MBS_SHAPE_SPEC_CAPSULE}, {MBS_SHAPE_SPEC_CAPSULE, MBS_SHAPE_SPEC_PLANE},
};
static const char s_pairs2[] = "circle-circle, circle-segment, circle-line, point-line, "
                               "point-segment";
static const char s_pairs3[] = "sphere-sphere, sphere-plane, sphere-box, sphere-capsule, "
                               "box-plane, capsule-capsule, capsule-plane";

static int s_supported(mbs_shape_spec_kind a, mbs_shape_spec_kind b)
{
    for (size_t k = 0; k < sizeof s_pairs / sizeof s_pairs[0]; k++)
        if ((s_pairs[k][0] == a && s_pairs[k][1] == b) ||
            (s_pairs[k][0] == b && s_pairs[k][1] == a))
            return 1;
    return 0;
}

static const char *s_kind_name(mbs_shape_spec_kind k)
{
    for (int t = 0; t < S_NTYPES; t++)
        if (s_types[t].kind == k)
            return s_types[t].name;
    return "?";
}

/* ---- parser state -------------------------------------------------------------------- */

enum { OK_KIND = 1, OK_BODY = 2 }; /* per shape: what parsed without error */

typedef struct {
    mech_map names;      /* shape name -> index                                  */
    unsigned char *ok;   /* OK_* per shape                                        */
    uint64_t *pkey;      /* declared unordered pairs: key -> declaration         */
    int *pval;           /* contacts entry * 2 + 1 when declared by a group       */
    size_t pcap, pn;
    int cap;             /* capacity of spec->contacts                            */
    long candidates;     /* shapes matched and pairs examined by groups (bounded) */
} s_state;

#define S_MAX_CANDIDATES (100L * MECH_MAX_ITEMS)

static uint64_t s_pair_key(int a, int b)
{
    int lo = a < b ? a : b, hi = a < b ? b : a;
    return ((uint64_t)(unsigned)(lo + 1) << 32) | (unsigned)(hi + 1);
}

/* Slot of `key` in the pair set (an empty slot when absent). */
static size_t s_pair_slot(const s_state *st, uint64_t key)
{
    size_t j = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (st->pcap - 1);
    while (st->pkey[j] && st->pkey[j] != key)
        j = (j + 1) & (st->pcap - 1);
    return j;
}

/* The declaration of pair {a, b} (entry * 2 + group), or -1. */
static int s_pair_get(const s_state *st, int a, int b)
{
    if (!st->pcap)
        return -1;
    size_t j = s_pair_slot(st, s_pair_key(a, b));
    return st->pkey[j] ? st->pval[j] : -1;
}

/* Record pair {a, b} (absent).  Returns 0 or -1 when out of memory. */
static int s_pair_put(s_state *st, int a, int b, int decl)
{
    if (2 * (st->pn + 1) > st->pcap) {
        size_t ncap = st->pcap ? 2 * st->pcap : 64;
        s_state grown = {.pkey = calloc(ncap, sizeof(uint64_t)),
                         .pval = calloc(ncap, sizeof(int)), .pcap = ncap};
        if (!grown.pkey || !grown.pval) {
            free(grown.pkey);
            free(grown.pval);
            return -1;
        }
        for (size_t i = 0; i < st->pcap; i++)
            if (st->pkey[i]) {
                size_t j = s_pair_slot(&grown, st->pkey[i]);
                grown.pkey[j] = st->pkey[i];
                grown.pval[j] = st->pval[i];
            }
        free(st->pkey);
        free(st->pval);
        st->pkey = grown.pkey;
        st->pval = grown.pval;
        st->pcap = ncap;
    }
    size_t j = s_pair_slot(st, s_pair_key(a, b));
    st->pkey[j] = s_pair_key(a, b);
    st->pval[j] = decl;
    st->pn++;
    return 0;
}

/* ---- shapes ---------------------------------------------------------------------------- */

/* A non-zero direction of the mechanism's dimension, normalised. */
static int s_normal(mech_ctx *c, json_t *v, const char *ptr, double n[3])
{
    double x[3] = {0, 0, 0};
    if (mech_vec(c, v, ptr, c->dim, c->dim == 2 ? "a normal [nx, ny]" : "a normal [nx, ny, nz]",
                 x))
        return -1;
    double len = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    if (!(len > 1e-12)) {
        mech_err(c, ptr, "the normal must not be zero");
        return -1;
    }
    for (int k = 0; k < 3; k++)
        n[k] = x[k] / len;
    return 0;
}

/* A unit quaternion [w, x, y, z] (normalised when within 1e-3 of unit length). */
static void s_quat(mech_ctx *c, json_t *v, const char *ptr, double q[4])
{
    double x[4];
    if (mech_vec(c, v, ptr, 4, "a quaternion [w, x, y, z]", x))
        return;
    double n = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2] + x[3] * x[3]);
    if (!(n > 1e-12))
        mech_err(c, ptr, "orientation is the zero quaternion; expected a unit quaternion "
                 "[w, x, y, z]");
    else if (fabs(n - 1) > 1e-3)
        mech_err(c, ptr, "orientation must be a unit quaternion [w, x, y, z]; its norm is %g", n);
    else
        for (int k = 0; k < 4; k++)
            q[k] = x[k] / n;
}

/* obj[key] as a point; a missing key is reported with `doc`. */
static int s_point_key(mech_ctx *c, json_t *obj, const char *ptr, const char *key,
                       const char *doc, double p[3])
{
    char kp[MECH_PTR_MAX];
    json_t *v = json_object_get(obj, key);
    if (!v) {
        mech_err(c, ptr, "missing required key '%s' (%s)", key, doc);
        return -1;
    }
    mech_ptr_key(kp, ptr, key);
    return mech_point(c, v, kp, p);
}

/* "points": two distinct points into p and q. */
static void s_two_points(mech_ctx *c, json_t *obj, const char *ptr, double p[3], double q[3])
{
    char kp[MECH_PTR_MAX], ip[MECH_PTR_MAX];
    const char *xyz = c->dim == 2 ? "" : ", z";
    json_t *v = json_object_get(obj, "points");
    mech_ptr_key(kp, ptr, "points");
    if (!v) {
        mech_err(c, ptr, "missing required key 'points' (the two end points)");
        return;
    }
    if (!json_is_array(v) || json_array_size(v) != 2) {
        mech_err(c, kp, "expected two points [[x, y%s], [x, y%s]]", xyz, xyz);
        return;
    }
    mech_ptr_idx(ip, kp, 0);
    int rc = mech_point(c, json_array_get(v, 0), ip, p);
    mech_ptr_idx(ip, kp, 1);
    rc |= mech_point(c, json_array_get(v, 1), ip, q);
    double d[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]};
    if (rc == 0 && !(sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) > 1e-12))
        mech_err(c, kp, "the two points coincide; a %s needs two distinct end points",
                 c->dim == 2 ? "segment" : "capsule");
}

/* Geometry of a shape of type t. */
static void s_geometry(mech_ctx *c, json_t *obj, const char *ptr, int t, mbs_shape_spec *s)
{
    int keys = s_types[t].keys;
    char kp[MECH_PTR_MAX];
    if (keys & K_AT)
        s_point_key(c, obj, ptr, "at", "the point, global", s->p);
    if (keys & K_CENTER)
        s_point_key(c, obj, ptr, "center", "the centre, global", s->p);
    if (keys & K_POINT)
        s_point_key(c, obj, ptr, "point", "a point on the surface, global", s->p);
    if (keys & K_POINTS)
        s_two_points(c, obj, ptr, s->p, s->q);
    if (keys & K_RADIUS)
        mech_num_key(c, obj, ptr, "radius", MECH_REQ | MECH_POS, 0, &s->radius);
    if (keys & K_NORMAL) {
        json_t *v = json_object_get(obj, "normal");
        mech_ptr_key(kp, ptr, "normal");
        if (!v)
            mech_err(c, ptr, "missing required key 'normal' (the outward normal, global)");
        else
            s_normal(c, v, kp, s->q);
    }
    if (keys & K_HALF) {
        json_t *v = json_object_get(obj, "half_extents");
        mech_ptr_key(kp, ptr, "half_extents");
        double h[3];
        if (!v) {
            mech_err(c, ptr, "missing required key 'half_extents' ([hx, hy, hz], > 0)");
        } else if (mech_vec(c, v, kp, 3, "half extents [hx, hy, hz]", h) == 0) {
            if (!(h[0] > 0 && h[1] > 0 && h[2] > 0))
                mech_err(c, kp, "half extents must all be > 0, got [%g, %g, %g]", h[0], h[1],
                         h[2]);
            else
                memcpy(s->half, h, sizeof h);
        }
    }
    if (keys & K_ORIENT) {
        json_t *v = json_object_get(obj, "orientation");
        mech_ptr_key(kp, ptr, "orientation");
        if (v)
            s_quat(c, v, kp, s->quat);
    }
}

/* The shape's "type": its index in s_types, or -1 (reported). */
static int s_type(mech_ctx *c, json_t *obj, const char *ptr)
{
    char kp[MECH_PTR_MAX], b[48];
    json_t *v = json_object_get(obj, "type");
    mech_ptr_key(kp, ptr, "type");
    const char *list = c->dim == 2 ? "point, circle, segment or line"
                                   : "sphere, plane, box or capsule";
    if (!v) {
        mech_err(c, ptr, "missing required key 'type' (%s)", list);
        return -1;
    }
    if (!json_is_string(v)) {
        mech_err(c, kp, "expected a shape type (a string), got %s", mech_type_name(v));
        return -1;
    }
    const char *s = json_string_value(v);
    for (int t = 0; t < S_NTYPES; t++) {
        if (strcmp(s, s_types[t].name) != 0)
            continue;
        if (s_types[t].dim == c->dim)
            return t;
        char alt[48] = "";
        if (s_types[t].other)
            snprintf(alt, sizeof alt, "; use '%s'", s_types[t].other);
        mech_err(c, kp, "'%s' shapes exist only in %s mechanisms (dimension %d), this one is "
                 "%s (dimension %d)%s", s, s_types[t].dim == 2 ? "planar" : "spatial",
                 s_types[t].dim, c->dim == 2 ? "planar" : "spatial", c->dim, alt);
        return -1;
    }
    const char *sug = mech_suggest(s, s_type_names);
    mech_err(c, kp, "unknown shape type '%s'%s%s%s (expected %s)", mech_clip(b, sizeof b, s, 40),
             sug ? "; did you mean '" : "", sug ? sug : "", sug ? "'?" : "", list);
    return -1;
}

static void s_shape(mech_ctx *c, s_state *st, json_t *obj, const char *ptr, int i,
                    mbs_shape_spec *s)
{
    s->quat[0] = 1;
    s->body = MBS_GROUND;
    s->kind = MBS_SHAPE_SPEC_NKIND;
    if (!json_is_object(obj)) {
        mech_err(c, ptr, "expected a shape (an object), got %s", mech_type_name(obj));
        return;
    }
    char kp[MECH_PTR_MAX];
    mech_entry_name(c, obj, ptr, i, s->name, sizeof s->name, &st->names, "shapes", "shape",
                    "'ground' is the name of the fixed body; choose another shape name");
    json_t *v = json_object_get(obj, "body");
    mech_ptr_key(kp, ptr, "body");
    if (!v)
        mech_err(c, ptr, "missing required key 'body' (a body name or 'ground')");
    else if (mech_body_ref(c, v, kp, 1, &s->body) == 0)
        st->ok[i] |= OK_BODY;

    int t = s_type(c, obj, ptr);
    if (t < 0) {
        mech_check_keys(c, obj, ptr, s_shape_all, NULL, NULL);
        return;
    }
    const char *allowed[8];
    int na = 0;
    allowed[na++] = "name";
    allowed[na++] = "body";
    allowed[na++] = "type";
    for (int k = 0; s_key_names[k]; k++)
        if (s_types[t].keys & (1 << k))
            allowed[na++] = s_key_names[k];
    allowed[na] = NULL;
    char why[48];
    snprintf(why, sizeof why, "to a '%s' shape", s_types[t].name);
    mech_check_keys(c, obj, ptr, allowed, s_shape_all, why);
    s->kind = s_types[t].kind;
    st->ok[i] |= OK_KIND;
    s_geometry(c, obj, ptr, t, s);
}

/* "shapes".  Returns 0, or -1 when the section itself is unusable. */
static int s_parse_shapes(mech_ctx *c, s_state *st, json_t *root)
{
    json_t *arr = json_object_get(root, "shapes");
    if (!arr)
        return 0;
    long n = mech_array(c, arr, "/shapes", "an array of shapes");
    if (n <= 0)
        return n < 0 ? -1 : 0;
    c->spec->shapes = calloc((size_t)n, sizeof *c->spec->shapes);
    st->ok = calloc((size_t)n, 1);
    if (!c->spec->shapes || !st->ok) {
        mech_err(c, "/shapes", "out of memory");
        return -1;
    }
    c->spec->nshape = (int)n;
    for (long i = 0; i < n; i++) {
        char ptr[MECH_PTR_MAX];
        mech_ptr_idx(ptr, "/shapes", (size_t)i);
        s_shape(c, st, json_array_get(arr, (size_t)i), ptr, (int)i, &c->spec->shapes[i]);
    }
    return 0;
}

/* ---- contact laws ----------------------------------------------------------------------- */

static const char *const s_law_names[] = {"hertz", "hunt_crossley", "lankarani_nikravesh", "rigid", NULL};
static const char *const s_contact_keys[] = {"shapes", "between", "law", "stiffness", "exponent",
                                             "restitution", "friction", "friction_static",
                                             "slip_velocity", "margin", NULL};

/* The law fields of a contact entry into `cs`.  Returns 0 or -1. */
static int s_law(mech_ctx *c, json_t *obj, const char *ptr, mbs_contact_spec *cs)
{
    char kp[MECH_PTR_MAX], b[48];
    int rc = 0;
    cs->law = MBS_LAW_HUNT_CROSSLEY;
    json_t *v = json_object_get(obj, "law");
    mech_ptr_key(kp, ptr, "law");
    if (v) {
        const char *s = json_string_value(v);
        int k = 0;
        while (s && s_law_names[k] && strcmp(s, s_law_names[k]) != 0)
            k++;
        if (!s) {
            mech_err(c, kp, "expected a contact law (a string), got %s", mech_type_name(v));
            rc = -1;
        } else if (s_law_names[k]) {
            cs->law = (mbs_contact_law)k;
        } else {
            const char *sug = mech_suggest(s, s_law_names);
            mech_err(c, kp, "unknown contact law '%s'%s%s%s (expected hertz, hunt_crossley, "
                     "lankarani_nikravesh or rigid)", mech_clip(b, sizeof b, s, 40),
                     sug ? "; did you mean '" : "", sug ? sug : "", sug ? "'?" : "");
            rc = -1;
        }
    }
    if (cs->law == MBS_LAW_RIGID) {
        /* the rigid law has no force law: its compliant fields are errors
         * rather than silently ignored */
        static const char *const compliant[] = {"stiffness", "exponent", "slip_velocity", NULL};
        for (int k = 0; compliant[k]; k++) {
            if (!json_object_get(obj, compliant[k])) continue;
            mech_ptr_key(kp, ptr, compliant[k]);
            mech_err(c, kp, "'%s' does not apply to the 'rigid' law (impacts follow Newton's "
                     "restitution, friction is exact Coulomb)", compliant[k]);
            rc = -1;
        }
        cs->stiffness = 0;
        cs->exponent = 1;
        cs->slip_velocity = 0;
    } else {
        rc |= mech_num_key(c, obj, ptr, "stiffness", MECH_REQ | MECH_POS, 0, &cs->stiffness) < 0;
        rc |= mech_num_key(c, obj, ptr, "exponent", MECH_POS, 1.5, &cs->exponent) < 0;
        rc |= mech_num_key(c, obj, ptr, "slip_velocity", MECH_POS, 1e-4, &cs->slip_velocity) < 0;
    }
    rc |= mech_num_key(c, obj, ptr, "friction", MECH_NONNEG, 0, &cs->friction) < 0;
    /* static friction: the stick limit of the event-driven rigid law (the
     * compliant laws regularise Coulomb's law, Moreau-Jean's impulse law
     * takes one coefficient) */
    cs->friction_static = cs->friction;
    mech_ptr_key(kp, ptr, "friction_static");
    if (json_object_get(obj, "friction_static")) {
        /* static friction selects the event-driven integrator when the
         * document names none */
        if (cs->law == MBS_LAW_RIGID && !c->integrator_named) {
            c->spec->solver.integrator = MBS_INT_EVENT_DRIVEN;
            c->integrator_named = 1;
        }
        if (cs->law != MBS_LAW_RIGID) {
            mech_err(c, kp, "'friction_static' applies to the 'rigid' law (the compliant laws regularise "
                     "Coulomb friction with one coefficient)");
            rc = -1;
        } else if (c->spec->solver.integrator != MBS_INT_EVENT_DRIVEN) {
            mech_err(c, kp, "'friction_static' needs solver.integrator \"event_driven\" (Moreau-Jean's "
                     "impulse law takes one friction coefficient)");
            rc = -1;
        } else if (mech_num_key(c, obj, ptr, "friction_static", MECH_NONNEG, cs->friction, &cs->friction_static) < 0) {
            rc = -1;
        } else if (cs->friction_static < cs->friction) {
            mech_err(c, kp, "'friction_static' (%g) must be >= 'friction' (%g): sticking holds at least as much "
                     "as sliding", cs->friction_static, cs->friction);
            rc = -1;
        }
    }
    rc |= mech_num_key(c, obj, ptr, "margin", MECH_NONNEG, 0, &cs->margin) < 0;
    cs->restitution = 1;
    mech_ptr_key(kp, ptr, "restitution");
    if (json_object_get(obj, "restitution") && cs->law == MBS_LAW_HERTZ) {
        mech_err(c, kp, "'restitution' does not apply to the 'hertz' law (it has no damping); "
                 "use 'hunt_crossley' or 'lankarani_nikravesh'");
        rc = -1;
    } else if (mech_num_key(c, obj, ptr, "restitution", 0, 1, &cs->restitution) < 0) {
        rc = -1;
    } else if (!(cs->restitution >= 0 && cs->restitution <= 1)) {
        mech_err(c, kp, "'restitution' must be in [0, 1], got %g", cs->restitution);
        rc = -1;
    }
    return rc ? -1 : 0;
}

/* ---- pairs ------------------------------------------------------------------------------- */

/* Append pair (a, b) with the law of `law`.  Returns 0 or -1 (reported). */
static int s_add(mech_ctx *c, s_state *st, const char *ptr, const mbs_contact_spec *law, int a,
                 int b, int decl)
{
    mbs_spec *sp = c->spec;
    if (sp->ncontact >= MECH_MAX_ITEMS) {
        mech_err(c, ptr, "too many contact pairs (more than %d in all)", MECH_MAX_ITEMS);
        return -1;
    }
    if (sp->ncontact == st->cap) {
        int ncap = st->cap ? 2 * st->cap : 16;
        mbs_contact_spec *n = realloc(sp->contacts, (size_t)ncap * sizeof *n);
        if (!n) {
            mech_err(c, ptr, "out of memory");
            return -1;
        }
        sp->contacts = n;
        st->cap = ncap;
    }
    if (s_pair_put(st, a, b, decl)) {
        mech_err(c, ptr, "out of memory");
        return -1;
    }
    mbs_contact_spec *cs = &sp->contacts[sp->ncontact++];
    *cs = *law;
    cs->shape[0] = a;
    cs->shape[1] = b;
    return 0;
}

/* Why a and b cannot touch: 0 they can, 1 same shape, 2 both on ground,
 * 3 same body, 4 kinds not supported, 5 a shape's own definition failed. */
static int s_pair_problem(const mech_ctx *c, const s_state *st, int a, int b)
{
    const mbs_shape_spec *sa = &c->spec->shapes[a], *sb = &c->spec->shapes[b];
    if (a == b)
        return 1;
    if (!(st->ok[a] & st->ok[b] & OK_BODY))
        return 5;
    if (sa->body == sb->body)
        return sa->body == MBS_GROUND ? 2 : 3;
    if (!(st->ok[a] & st->ok[b] & OK_KIND))
        return 5;
    return s_supported(sa->kind, sb->kind) ? 0 : 4;
}

/* A shape name of an explicit pair: its index, or -1 (reported). */
static int s_shape_ref(mech_ctx *c, s_state *st, json_t *v, const char *ptr)
{
    char b[48];
    if (!json_is_string(v)) {
        mech_err(c, ptr, "expected a shape name (a string), got %s", mech_type_name(v));
        return -1;
    }
    const char *s = json_string_value(v);
    int i = mech_map_get(&st->names, s);
    if (i >= 0)
        return i;
    const char *sug = mech_suggest_map(s, &st->names);
    mech_clip(b, sizeof b, s, 40);
    if (sug)
        mech_err(c, ptr, "unknown shape '%s'; did you mean '%s'?", b, sug);
    else
        mech_err(c, ptr, "unknown shape '%s' (not in \"shapes\")", b);
    return -1;
}

/* The value of `key` as an array of two entries, or NULL (reported). */
static json_t *s_two(mech_ctx *c, json_t *obj, const char *ptr, const char *key, char *kp,
                     const char *what)
{
    json_t *v = json_object_get(obj, key);
    mech_ptr_key(kp, ptr, key);
    if (json_is_array(v) && json_array_size(v) == 2)
        return v;
    if (json_is_array(v))
        mech_err(c, kp, "expected an array of two %s, got %zu entries", what, json_array_size(v));
    else
        mech_err(c, kp, "expected an array of two %s, got %s", what, mech_type_name(v));
    return NULL;
}

/* {"shapes": [A, B], ...}: one pair. */
static void s_explicit(mech_ctx *c, s_state *st, json_t *obj, const char *ptr, int entry,
                       const mbs_contact_spec *law, int law_ok)
{
    char kp[MECH_PTR_MAX], ip[MECH_PTR_MAX];
    json_t *v = s_two(c, obj, ptr, "shapes", kp, "shape names");
    if (!v)
        return;
    int idx[2];
    for (int k = 0; k < 2; k++) {
        mech_ptr_idx(ip, kp, (size_t)k);
        idx[k] = s_shape_ref(c, st, json_array_get(v, (size_t)k), ip);
    }
    if (idx[0] < 0 || idx[1] < 0)
        return;
    const mbs_shape_spec *a = &c->spec->shapes[idx[0]], *b = &c->spec->shapes[idx[1]];
    switch (s_pair_problem(c, st, idx[0], idx[1])) {
    case 1:
        mech_err(c, kp, "a shape cannot be in contact with itself ('%s')", a->name);
        return;
    case 2:
        mech_err(c, kp, "shapes '%s' and '%s' are both on 'ground', which does not move",
                 a->name, b->name);
        return;
    case 3:
        mech_err(c, kp, "shapes '%s' and '%s' are both on body '%s'; a contact needs two "
                 "different bodies", a->name, b->name, c->spec->bodies[a->body].name);
        return;
    case 4:
        mech_err(c, kp, "contact between a '%s' and a '%s' is not supported (%d-D pairs: %s)",
                 s_kind_name(a->kind), s_kind_name(b->kind), c->dim,
                 c->dim == 2 ? s_pairs2 : s_pairs3);
        return;
    case 5:
        return; /* reported with the shape */
    }
    int prev = s_pair_get(st, idx[0], idx[1]);
    if (prev >= 0) {
        mech_err(c, kp, "pair ('%s', '%s') declared twice (first by /contacts/%d%s)", a->name,
                 b->name, prev / 2, prev % 2 ? ", a 'between' group; list the pair before the "
                 "group to give it its own law" : "");
        return;
    }
    if (law_ok)
        s_add(c, st, kp, law, idx[0], idx[1], 2 * entry);
}

/* The shapes whose names match pattern v into m (count returned), or -1. */
static int s_match(mech_ctx *c, s_state *st, json_t *v, const char *ptr, int *m)
{
    char b[48];
    if (!json_is_string(v) || json_string_length(v) == 0 ||
        strlen(json_string_value(v)) != json_string_length(v)) {
        mech_err(c, ptr, "expected a shape name pattern (a non-empty string such as "
                 "\"ball_*\"), got %s", json_is_string(v) ? "an invalid string" : mech_type_name(v));
        return -1;
    }
    const char *pat = json_string_value(v);
    int n = 0;
    for (int i = 0; i < c->spec->nshape; i++)
        if (c->spec->shapes[i].name[0] && fnmatch(pat, c->spec->shapes[i].name, 0) == 0)
            m[n++] = i;
    if (n > 0)
        return n;
    const char *sug = strpbrk(pat, "*?[") ? NULL : mech_suggest_map(pat, &st->names);
    mech_clip(b, sizeof b, pat, 40);
    if (sug)
        mech_err(c, ptr, "pattern '%s' matches no shape; did you mean '%s'?", b, sug);
    else
        mech_err(c, ptr, "pattern '%s' matches no shape name", b);
    return -1;
}

/* Spend `cost` of the groups' work budget (hostile input).  Returns 0, or -1
 * when it is exhausted (reported once). */
static int s_budget(mech_ctx *c, s_state *st, const char *ptr, long cost)
{
    if (st->candidates > S_MAX_CANDIDATES)
        return -1;
    st->candidates += cost;
    if (st->candidates <= S_MAX_CANDIDATES)
        return 0;
    mech_err(c, ptr, "the 'between' groups need too much pattern matching (more than %ld shape "
             "and pair checks in all); use fewer groups or narrower patterns", S_MAX_CANDIDATES);
    return -1;
}

/* {"between": [pattern_a, pattern_b], ...}: every pair the patterns produce. */
static void s_group(mech_ctx *c, s_state *st, json_t *obj, const char *ptr, int entry,
                    const mbs_contact_spec *law, int law_ok)
{
    char kp[MECH_PTR_MAX], ip[MECH_PTR_MAX];
    json_t *v = s_two(c, obj, ptr, "between", kp, "shape name patterns");
    if (!v)
        return;
    int n = c->spec->nshape, cnt[2] = {-1, -1};
    int *m[2] = {malloc(((size_t)n + 1) * sizeof(int)), malloc(((size_t)n + 1) * sizeof(int))};
    if (!m[0] || !m[1]) {
        mech_err(c, kp, "out of memory");
        goto done;
    }
    if (s_budget(c, st, kp, 2L * n)) /* matching costs like examining pairs */
        goto done;
    for (int k = 0; k < 2; k++) {
        mech_ptr_idx(ip, kp, (size_t)k);
        cnt[k] = s_match(c, st, json_array_get(v, (size_t)k), ip, m[k]);
    }
    if (cnt[0] < 0 || cnt[1] < 0)
        goto done;
    int eligible = 0, failed = 0, unsupported = 0, bad_a = -1, bad_b = -1;
    for (int i = 0; i < cnt[0]; i++) {
        for (int j = 0; j < cnt[1]; j++) {
            int a = m[0][i], b = m[1][j];
            if (s_budget(c, st, kp, 1))
                goto done;
            int p = s_pair_problem(c, st, a, b);
            eligible += p == 0 || p == 4;
            failed |= p == 5;
            if (p == 4 && !unsupported++) {
                bad_a = a;
                bad_b = b;
            }
            if (p == 0 && law_ok && s_pair_get(st, a, b) < 0 &&
                s_add(c, st, kp, law, a, b, 2 * entry + 1))
                goto done;
        }
    }
    if (unsupported) {
        const mbs_shape_spec *sa = &c->spec->shapes[bad_a], *sb = &c->spec->shapes[bad_b];
        mech_err(c, kp, "the patterns pair '%s' (%s) with '%s' (%s), which is not supported; "
                 "narrow the patterns (%d-D pairs: %s)", sa->name, s_kind_name(sa->kind),
                 sb->name, s_kind_name(sb->kind), c->dim, c->dim == 2 ? s_pairs2 : s_pairs3);
    } else if (eligible == 0 && !failed) {
        mech_err(c, kp, "the patterns produce no pair: every match is the same shape, on the "
                 "same body, or both on 'ground'");
    }
done:
    free(m[0]);
    free(m[1]);
}

static void s_contact(mech_ctx *c, s_state *st, json_t *obj, const char *ptr, int entry)
{
    if (!json_is_object(obj)) {
        mech_err(c, ptr, "expected a contact (an object), got %s", mech_type_name(obj));
        return;
    }
    mech_check_keys(c, obj, ptr, s_contact_keys, NULL, NULL);
    mbs_contact_spec law;
    memset(&law, 0, sizeof law);
    int law_ok = s_law(c, obj, ptr, &law) == 0;
    int has_pair = json_object_get(obj, "shapes") != NULL;
    int has_group = json_object_get(obj, "between") != NULL;
    if (has_pair && has_group)
        mech_err(c, ptr, "give either 'shapes' (one pair) or 'between' (two name patterns), "
                 "not both");
    else if (has_pair)
        s_explicit(c, st, obj, ptr, entry, &law, law_ok);
    else if (has_group)
        s_group(c, st, obj, ptr, entry, &law, law_ok);
    else
        mech_err(c, ptr, "missing required key 'shapes' (a pair of shape names) or 'between' "
                 "(two shape name patterns)");
}

/* Rigid contacts need a nonsmooth integrator: moreau_jean by default when
 * the document names none, an error at /solver/integrator when it names a
 * smooth one. */
static void s_rigid_integrator(mech_ctx *c, json_t *root)
{
    int rigid = -1;
    for (int k = 0; k < c->spec->ncontact && rigid < 0; k++)
        if (c->spec->contacts[k].law == MBS_LAW_RIGID) rigid = k;
    if (rigid < 0) return;
    /* the static equilibrium (analysis/analysis.c mbs_statics) balances
     * forces: a rigid contact is a unilateral constraint it does not solve,
     * and the body would fall through (the search ran out of iterations) */
    if (c->spec->solver.analysis == MBS_ANALYSIS_STATICS) {
        mech_err(c, "/solver/analysis", "the statics analysis solves compliant contacts only: the pair '%s' - '%s' "
                 "is rigid (give it a compliant law, e.g. hunt_crossley, or run the dynamics)",
                 c->spec->shapes[c->spec->contacts[rigid].shape[0]].name,
                 c->spec->shapes[c->spec->contacts[rigid].shape[1]].name);
        return;
    }
    json_t *solver = json_object_get(root, "solver");
    mbs_integrator in = c->spec->solver.integrator;
    if (!json_object_get(solver, "integrator") && !c->integrator_named)
        c->spec->solver.integrator = MBS_INT_MOREAU_JEAN;
    else if (in != MBS_INT_MOREAU_JEAN && in != MBS_INT_EVENT_DRIVEN)
        mech_err(c, "/solver/integrator", "rigid contacts (the pair '%s' - '%s') need the 'moreau_jean' "
                 "or 'event_driven' integrator, not '%s'",
                 c->spec->shapes[c->spec->contacts[rigid].shape[0]].name,
                 c->spec->shapes[c->spec->contacts[rigid].shape[1]].name, mbs_integrator_name(in));
}

/* solver.contact_force_unknowns makes the compliant contacts' forces
 * unknowns of the BDF Newton matrix: it needs that integrator and at least
 * one compliant pair (checked once the integrator is settled). */
static void s_force_unknowns(mech_ctx *c)
{
    const mbs_solver_spec *o = &c->spec->solver;
    if (!o->contact_force_unknowns) return;
    int compliant = 0;
    for (int k = 0; k < c->spec->ncontact; k++) compliant += c->spec->contacts[k].law != MBS_LAW_RIGID;
    if (o->integrator != MBS_INT_BDF)
        mech_err(c, "/solver/contact_force_unknowns", "'contact_force_unknowns' needs solver.integrator \"bdf\" "
                 "(the contact forces become unknowns of its Newton matrix), not '%s'",
                 mbs_integrator_name(o->integrator));
    else if (compliant == 0)
        mech_err(c, "/solver/contact_force_unknowns", "'contact_force_unknowns' needs at least one contact with "
                 "a compliant law (hertz, hunt_crossley, lankarani_nikravesh): the mechanism has %s",
                 c->spec->ncontact ? "only rigid contacts" : "no contacts");
}

void mech_parse_contacts(mech_ctx *c, json_t *root)
{
    s_state st;
    memset(&st, 0, sizeof st);
    int shapes_ok = s_parse_shapes(c, &st, root) == 0;
    json_t *arr = json_object_get(root, "contacts");
    long n = arr ? mech_array(c, arr, "/contacts", "an array of contacts") : 0;
    for (long i = 0; shapes_ok && i < n; i++) {
        char ptr[MECH_PTR_MAX];
        mech_ptr_idx(ptr, "/contacts", (size_t)i);
        s_contact(c, &st, json_array_get(arr, (size_t)i), ptr, (int)i);
    }
    s_rigid_integrator(c, root);
    s_force_unknowns(c);
    mech_map_free(&st.names);
    free(st.ok);
    free(st.pkey);
    free(st.pval);
}
