/*
 * mechanism_model.c - bodies and joints of the mechanism format, and the
 * references to them shared with mechanism_forces.c (see mechanism.c for
 * the entry point).
 */
#include "mechanism/mechanism_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- shared helpers ------------------------------------------------------------- */

static double s_norm3(const double v[3])
{
    return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

/* Read a point of the mechanism's dimension into p[3] (z = 0 in 2-D). */
int mech_point(mech_ctx *c, json_t *v, const char *ptr, double p[3])
{
    double x[3] = {0, 0, 0};
    int rc = mech_vec(c, v, ptr, c->dim, c->dim == 2 ? "a point [x, y]" : "a point [x, y, z]",
                      x);
    if (rc == 0)
        memcpy(p, x, sizeof x);
    return rc;
}

/* Read a non-zero direction and normalise it (2-D: [x, y]). */
static int s_direction(mech_ctx *c, json_t *v, const char *ptr, int n, double a[3])
{
    double x[3] = {0, 0, 0};
    if (mech_vec(c, v, ptr, n, n == 2 ? "a direction [x, y]" : "a direction [x, y, z]", x))
        return -1;
    double len = s_norm3(x);
    if (!(len > 1e-12)) {
        mech_err(c, ptr, "a direction must not be zero");
        return -1;
    }
    for (int k = 0; k < 3; k++)
        a[k] = x[k] / len;
    return 0;
}

/* A body reference: a name from "bodies", or "ground" when allowed.
 * Returns 0 with *idx (MBS_GROUND for ground) or -1 (reported). */
int mech_body_ref(mech_ctx *c, json_t *v, const char *ptr, int allow_ground, int *idx)
{
    char b[48];
    if (!json_is_string(v)) {
        mech_err(c, ptr, "expected a body name (a string), got %s", mech_type_name(v));
        return -1;
    }
    const char *s = json_string_value(v);
    if (strcmp(s, "ground") == 0) {
        if (!allow_ground) {
            mech_err(c, ptr, "'ground' is fixed and cannot be used here; name a moving body");
            return -1;
        }
        *idx = MBS_GROUND;
        return 0;
    }
    int i = mech_map_get(&c->bodies, s);
    if (i < 0) {
        const char *sug = mech_suggest_map(s, &c->bodies);
        mech_clip(b, sizeof b, s, 40);
        if (sug)
            mech_err(c, ptr, "unknown body '%s'; did you mean '%s'?", b, sug);
        else
            mech_err(c, ptr, "unknown body '%s' (not in \"bodies\", nor 'ground')", b);
        return -1;
    }
    *idx = i;
    return 0;
}

/* "bodies": two different body references (one may be ground). */
int mech_body_pair(mech_ctx *c, json_t *obj, const char *optr, const char *what,
                       int body[2])
{
    json_t *v = json_object_get(obj, "bodies");
    char ptr[MECH_PTR_MAX], ip[MECH_PTR_MAX];
    if (!v) {
        mech_err(c, optr, "missing required key 'bodies' (the names of the two bodies %s "
                 "connects)", what);
        return -1;
    }
    mech_ptr_key(ptr, optr, "bodies");
    if (!json_is_array(v) || json_array_size(v) != 2) {
        if (json_is_array(v))
            mech_err(c, ptr, "expected an array of two body names, got %zu entries",
                     json_array_size(v));
        else
            mech_err(c, ptr, "expected an array of two body names, got %s", mech_type_name(v));
        return -1;
    }
    int rc = 0;
    for (int k = 0; k < 2; k++) {
        mech_ptr_idx(ip, ptr, (size_t)k);
        if (mech_body_ref(c, json_array_get(v, (size_t)k), ip, 1, &body[k]))
            rc = -1;
    }
    if (rc == 0 && body[0] == body[1]) {
        if (body[0] == MBS_GROUND)
            mech_err(c, ptr, "%s cannot connect 'ground' to 'ground'; one of the bodies "
                     "must move", what);
        else
            mech_err(c, ptr, "%s cannot connect body '%s' to itself", what,
                     c->spec->bodies[body[0]].name);
        rc = -1;
    }
    return rc;
}

/* A joint reference by name.  Returns the joint index or -1 (reported; a
 * joint whose own definition failed is not reported again). */
int mech_joint_ref(mech_ctx *c, json_t *obj, const char *optr, const char *key)
{
    json_t *v = json_object_get(obj, key);
    char ptr[MECH_PTR_MAX], b[48];
    if (!v) {
        mech_err(c, optr, "missing required key '%s' (a joint name)", key);
        return -1;
    }
    mech_ptr_key(ptr, optr, key);
    if (!json_is_string(v)) {
        mech_err(c, ptr, "expected a joint name (a string), got %s", mech_type_name(v));
        return -1;
    }
    const char *s = json_string_value(v);
    int j = mech_map_get(&c->joints, s);
    if (j < 0) {
        const char *sug = mech_suggest_map(s, &c->joints);
        mech_clip(b, sizeof b, s, 40);
        if (sug)
            mech_err(c, ptr, "unknown joint '%s'; did you mean '%s'?", b, sug);
        else
            mech_err(c, ptr, "unknown joint '%s' (not in \"joints\")", b);
        return -1;
    }
    return j;
}

/* The joint's type when known; MBS_JOINT_NTYPES when its definition failed. */
mbs_joint_type mech_joint_type(mech_ctx *c, int j)
{
    return c->spec->joints[j].type;
}

/* Register a unique name of a section; reports duplicates. */
int mech_register(mech_ctx *c, mech_map *m, const char *name, int idx, const char *ptr,
                      const char *section, const char *what)
{
    int prev = mech_map_put(m, name, idx);
    if (prev == -2) {
        mech_err(c, ptr, "out of memory");
        return -1;
    }
    if (prev >= 0) {
        mech_err(c, ptr, "duplicate %s name '%s' (already used by /%s/%d)", what, name, section,
                 prev);
        return -1;
    }
    return 0;
}

void mech_entry_name(mech_ctx *c, json_t *obj, const char *ptr, int idx, char *out, size_t size,
                     mech_map *m, const char *section, const char *what, const char *ground_msg)
{
    char kp[MECH_PTR_MAX];
    json_t *v = json_object_get(obj, "name");
    mech_ptr_key(kp, ptr, "name");
    if (!v)
        mech_err(c, ptr, "missing required key 'name'");
    else if (mech_name(c, v, kp, out, size) != 0)
        return;
    else if (ground_msg && strcmp(out, "ground") == 0)
        mech_err(c, kp, "%s", ground_msg);
    else
        mech_register(c, m, json_string_value(v), idx, kp, section, what);
}

/* ---- bodies ----------------------------------------------------------------------- */

static const char *const s_body_keys2[] = {"name", "mass", "inertia", "com", "angle",
                                           "velocity", "angular_velocity", NULL};
static const char *const s_body_keys3[] = {"name", "mass", "inertia", "com", "orientation",
                                           "velocity", "angular_velocity", NULL};
static const char *const s_body_all[] = {"orientation", "angle", NULL};

/* Eigenvalues of a symmetric 3x3 matrix (closed form), any order. */
static void s_sym_eig3(const double a[3][3], double e[3])
{
    double p1 = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
    if (p1 == 0) {
        for (int k = 0; k < 3; k++)
            e[k] = a[k][k];
        return;
    }
    double q = (a[0][0] + a[1][1] + a[2][2]) / 3;
    double p2 = (a[0][0] - q) * (a[0][0] - q) + (a[1][1] - q) * (a[1][1] - q) +
                (a[2][2] - q) * (a[2][2] - q) + 2 * p1;
    double p = sqrt(p2 / 6);
    double b[3][3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            b[i][j] = (a[i][j] - (i == j ? q : 0)) / p;
    double r = (b[0][0] * (b[1][1] * b[2][2] - b[1][2] * b[2][1]) -
                b[0][1] * (b[1][0] * b[2][2] - b[1][2] * b[2][0]) +
                b[0][2] * (b[1][0] * b[2][1] - b[1][1] * b[2][0])) / 2;
    r = r < -1 ? -1 : r > 1 ? 1 : r;
    double phi = acos(r) / 3;
    e[0] = q + 2 * p * cos(phi);
    e[2] = q + 2 * p * cos(phi + 2 * M_PI / 3);
    e[1] = 3 * q - e[0] - e[2];
}

/* 3-D inertia: [Ixx, Iyy, Izz] or the six tensor entries; the principal
 * moments must be >= 0 and obey the triangle inequality. */
static void s_inertia3(mech_ctx *c, json_t *v, const char *ptr, double in[6])
{
    double x[6] = {0, 0, 0, 0, 0, 0};
    size_t n = json_is_array(v) ? json_array_size(v) : 0;
    if (n != 3 && n != 6) {
        if (json_is_array(v))
            mech_err(c, ptr, "expected [Ixx, Iyy, Izz] or [Ixx, Iyy, Izz, Ixy, Ixz, Iyz], got "
                     "%zu entries", n);
        else
            mech_err(c, ptr, "expected [Ixx, Iyy, Izz] or [Ixx, Iyy, Izz, Ixy, Ixz, Iyz], got %s",
                     mech_type_name(v));
        return;
    }
    if (mech_vec(c, v, ptr, (int)n, "the inertia entries", x))
        return;
    double a[3][3] = {{x[0], x[3], x[4]}, {x[3], x[1], x[5]}, {x[4], x[5], x[2]}};
    double e[3];
    s_sym_eig3(a, e);
    double scale = fabs(e[0]) + fabs(e[1]) + fabs(e[2]);
    double tol = 1e-9 * scale;
    int ok = 1;
    for (int k = 0; k < 3; k++) {
        if (e[k] < -tol)
            ok = 0;
        if (e[k] > e[(k + 1) % 3] + e[(k + 2) % 3] + tol)
            ok = 0;
    }
    if (!ok) {
        mech_err(c, ptr, "inertia is not physically possible: its principal moments "
                 "(%g, %g, %g) must be >= 0 and none may exceed the sum of the other two",
                 e[0], e[1], e[2]);
        return;
    }
    memcpy(in, x, sizeof x);
}

static void s_body(mech_ctx *c, json_t *obj, const char *ptr, int i, mbs_body_spec *b)
{
    b->quat[0] = 1;
    if (!json_is_object(obj)) {
        mech_err(c, ptr, "expected a body (an object), got %s", mech_type_name(obj));
        return;
    }
    int d2 = c->dim == 2;
    mech_check_keys(c, obj, ptr, d2 ? s_body_keys2 : s_body_keys3, s_body_all,
                    d2 ? "in a planar mechanism (dimension 2); the rotation is 'angle'"
                       : "in a spatial mechanism (dimension 3); the rotation is 'orientation'");
    char kp[MECH_PTR_MAX];
    json_t *v;
    mech_entry_name(c, obj, ptr, i, b->name, sizeof b->name, &c->bodies, "bodies", "body",
                    "'ground' is the fixed body and is never listed in \"bodies\"");
    mech_num_key(c, obj, ptr, "mass", MECH_REQ | MECH_POS, 0, &b->mass);

    /* inertia: scalar in 2-D, tensor entries in 3-D */
    v = json_object_get(obj, "inertia");
    mech_ptr_key(kp, ptr, "inertia");
    if (v && d2)
        mech_num_key(c, obj, ptr, "inertia", MECH_NONNEG, 0, &b->inertia[0]);
    else if (v)
        s_inertia3(c, v, kp, b->inertia);

    v = json_object_get(obj, "com");
    mech_ptr_key(kp, ptr, "com");
    if (!v)
        mech_err(c, ptr, "missing required key 'com' (the centre of mass, global)");
    else
        mech_point(c, v, kp, b->com);

    /* rotation: angle (2-D) or unit quaternion (3-D) */
    if (d2) {
        mech_num_key(c, obj, ptr, "angle", 0, 0, &b->angle);
        b->quat[0] = cos(b->angle / 2);
        b->quat[3] = sin(b->angle / 2);
    } else if ((v = json_object_get(obj, "orientation")) != NULL) {
        double q[4];
        mech_ptr_key(kp, ptr, "orientation");
        if (mech_vec(c, v, kp, 4, "a quaternion [w, x, y, z]", q) == 0) {
            double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
            if (!(n > 1e-12))
                mech_err(c, kp, "orientation is the zero quaternion; expected a unit "
                         "quaternion [w, x, y, z]");
            else if (fabs(n - 1) > 1e-3)
                mech_err(c, kp, "orientation must be a unit quaternion [w, x, y, z]; its "
                         "norm is %g", n);
            else
                for (int k = 0; k < 4; k++)
                    b->quat[k] = q[k] / n;
        }
    }

    v = json_object_get(obj, "velocity");
    mech_ptr_key(kp, ptr, "velocity");
    if (v)
        mech_vec(c, v, kp, c->dim, d2 ? "a velocity [vx, vy]" : "a velocity [vx, vy, vz]",
                 b->velocity);
    if (d2) {
        mech_num_key(c, obj, ptr, "angular_velocity", 0, 0, &b->angular_velocity[2]);
    } else if ((v = json_object_get(obj, "angular_velocity")) != NULL) {
        mech_ptr_key(kp, ptr, "angular_velocity");
        mech_vec(c, v, kp, 3, "an angular velocity [wx, wy, wz]", b->angular_velocity);
    }
}

void mech_parse_bodies(mech_ctx *c, json_t *root)
{
    json_t *arr = json_object_get(root, "bodies");
    if (!arr) {
        mech_err(c, "", "missing required key 'bodies' (a non-empty array of bodies)");
        return;
    }
    long n = mech_array(c, arr, "/bodies", "an array of bodies");
    if (n < 0)
        return;
    if (n == 0) {
        mech_err(c, "/bodies", "at least one body is required");
        return;
    }
    c->spec->bodies = calloc((size_t)n, sizeof *c->spec->bodies);
    if (!c->spec->bodies) {
        mech_err(c, "/bodies", "out of memory");
        return;
    }
    c->spec->nbody = (int)n;
    for (long i = 0; i < n; i++) {
        char ptr[MECH_PTR_MAX];
        mech_ptr_idx(ptr, "/bodies", (size_t)i);
        s_body(c, json_array_get(arr, (size_t)i), ptr, (int)i, &c->spec->bodies[i]);
    }
}

/* ---- joints ----------------------------------------------------------------------------- */

/* Which keys each joint type takes (besides name, type, bodies). */
enum { K_AT = 1, K_AT_OPT = 2, K_AXIS = 4, K_AXES = 8, K_POINTS = 16, K_LENGTH = 32 };

static const struct {
    const char *name;
    mbs_joint_type type;
    int keys;
    int spatial_only;
} s_jtypes[] = {
    {"revolute", MBS_JOINT_REVOLUTE, K_AT | K_AXIS, 0},
    {"prismatic", MBS_JOINT_PRISMATIC, K_AT_OPT | K_AXIS, 0},
    {"spherical", MBS_JOINT_SPHERICAL, K_AT, 1},
    {"universal", MBS_JOINT_UNIVERSAL, K_AT | K_AXES, 1},
    {"cylindrical", MBS_JOINT_CYLINDRICAL, K_AT_OPT | K_AXIS, 1},
    {"fixed", MBS_JOINT_FIXED, K_AT, 0},
    {"distance", MBS_JOINT_DISTANCE, K_POINTS | K_LENGTH, 0},
};
#define S_NJTYPES ((int)(sizeof s_jtypes / sizeof s_jtypes[0]))

static const char *const s_joint_all[] = {"name", "type", "bodies", "at", "axis", "axes",
                                          "points", "length", "clearance_model", "clearance",
                                          "friction", "friction_static", "slider_length",
                                          "slider_width", "restitution", NULL};
/* Keys of the 2-D prismatic joint with clearance (seed 003). */
static const char *const s_clearance_keys[] = {"clearance_model", "clearance", "friction",
                                               "friction_static", "slider_length", "slider_width",
                                               "restitution", NULL};
static const char *const s_jtype_names[] = {"revolute", "prismatic", "spherical", "universal",
                                            "cylindrical", "fixed", "distance", NULL};

/* Type-specific geometry of joint j: at, axis, axes, points, length. */
static void s_joint_geometry(mech_ctx *c, json_t *obj, const char *ptr, int t,
                             mbs_joint_spec *j, int bodies_ok)
{
    char kp[MECH_PTR_MAX];
    int keys = s_jtypes[t].keys, d2 = c->dim == 2;
    json_t *v;

    /* at: required, or defaulting to the com of the moving body */
    v = (keys & (K_AT | K_AT_OPT)) ? json_object_get(obj, "at") : NULL;
    mech_ptr_key(kp, ptr, "at");
    if (v) {
        mech_point(c, v, kp, j->at);
    } else if (keys & K_AT) {
        mech_err(c, ptr, "missing required key 'at' (the joint point, global)");
    } else if ((keys & K_AT_OPT) && bodies_ok) {
        int b = j->body[1] != MBS_GROUND ? j->body[1] : j->body[0];
        memcpy(j->at, c->spec->bodies[b].com, sizeof j->at);
    }

    /* axis: the revolute axis only exists in 3-D */
    int axis_needed = (keys & K_AXIS) && !(d2 && j->type == MBS_JOINT_REVOLUTE);
    v = json_object_get(obj, "axis");
    mech_ptr_key(kp, ptr, "axis");
    if (axis_needed && !v)
        mech_err(c, ptr, "missing required key 'axis' (a direction, global)");
    else if (axis_needed)
        s_direction(c, v, kp, c->dim, j->axis);
    else if (d2 && j->type == MBS_JOINT_REVOLUTE)
        j->axis[2] = 1; /* the plane's normal, for completeness */

    if (keys & K_AXES) {
        v = json_object_get(obj, "axes");
        mech_ptr_key(kp, ptr, "axes");
        if (!v) {
            mech_err(c, ptr, "missing required key 'axes' (the axis fixed in each body)");
        } else if (!json_is_array(v) || json_array_size(v) != 2) {
            mech_err(c, kp, "expected two directions [[x, y, z], [x, y, z]]");
        } else {
            char ip[MECH_PTR_MAX];
            int rc = 0;
            for (int k = 0; k < 2; k++) {
                mech_ptr_idx(ip, kp, (size_t)k);
                rc |= s_direction(c, json_array_get(v, (size_t)k), ip, 3, j->axes[k]);
            }
            double dot = j->axes[0][0] * j->axes[1][0] + j->axes[0][1] * j->axes[1][1] +
                         j->axes[0][2] * j->axes[1][2];
            /* perpendicular within 1e-6 rad */
            if (rc == 0 && fabs(dot) > sin(1e-6))
                mech_err(c, kp, "the two axes of a universal joint must be perpendicular; "
                         "they are %.9g degrees apart", acos(dot < -1 ? -1 : dot > 1 ? 1 : dot)
                         * 180 / M_PI);
        }
    }

    if (keys & K_POINTS) {
        v = json_object_get(obj, "points");
        mech_ptr_key(kp, ptr, "points");
        int have_pts = 0;
        if (!v) {
            mech_err(c, ptr, "missing required key 'points' (the rod's two end points)");
        } else if (!json_is_array(v) || json_array_size(v) != 2) {
            mech_err(c, kp, "expected two points [[x, y%s], [x, y%s]]", d2 ? "" : ", z",
                     d2 ? "" : ", z");
        } else {
            char ip[MECH_PTR_MAX];
            int rc = 0;
            for (int k = 0; k < 2; k++) {
                mech_ptr_idx(ip, kp, (size_t)k);
                rc |= mech_point(c, json_array_get(v, (size_t)k), ip, j->points[k]);
            }
            have_pts = rc == 0;
        }
        int r = mech_num_key(c, obj, ptr, "length", MECH_POS, 0, &j->length);
        if (r == 1) {
            j->has_length = 1;
        } else if (r == 0 && have_pts) {
            double d[3] = {j->points[1][0] - j->points[0][0], j->points[1][1] - j->points[0][1],
                           j->points[1][2] - j->points[0][2]};
            j->length = s_norm3(d);
            if (!(j->length > 1e-12))
                mech_err(c, kp, "the two points coincide; separate them or give 'length'");
        }
    }
}

/* Clearance of a 2-D prismatic joint (seed 003; Flores, Leine, Glocker
 * 2010): the model ("friction" when clearance or friction is given), the
 * radial clearance, Coulomb coefficients (sliding, static) and the slider's size (its width
 * places the friction model's wall contact points); restitution belongs to
 * the impact model. */
static void s_joint_clearance(mech_ctx *c, json_t *obj, const char *ptr, mbs_joint_spec *j)
{
    char kp[MECH_PTR_MAX];
    int any = 0;
    for (int k = 0; s_clearance_keys[k]; k++)
        any |= json_object_get(obj, s_clearance_keys[k]) != NULL;
    if (!any)
        return;
    j->clearance_model = MBS_CLEARANCE_FRICTION;
    json_t *v = json_object_get(obj, "clearance_model");
    mech_ptr_key(kp, ptr, "clearance_model");
    if (v && !json_is_string(v)) {
        mech_err(c, kp, "expected \"friction\" or \"impact\", got %s", mech_type_name(v));
    } else if (v && strcmp(json_string_value(v), "impact") == 0) {
        j->clearance_model = MBS_CLEARANCE_IMPACT;
    } else if (v && strcmp(json_string_value(v), "friction") != 0) {
        char b[48];
        mech_clip(b, sizeof b, json_string_value(v), 40);
        mech_err(c, kp, "unknown clearance_model '%s' (expected \"friction\": bilateral joint with "
                 "Coulomb friction, seed 003; or \"impact\": slider corners against the walls)", b);
    }
    int impact = j->clearance_model == MBS_CLEARANCE_IMPACT;
    mech_num_key(c, obj, ptr, "clearance", MECH_REQ | MECH_POS, 0, &j->clearance);
    mech_num_key(c, obj, ptr, "friction", MECH_NONNEG, 0, &j->friction);
    /* static friction (friction model): the stick limit, at least the
     * sliding coefficient; default the sliding coefficient */
    j->friction_static = j->friction;
    mech_ptr_key(kp, ptr, "friction_static");
    if (json_object_get(obj, "friction_static") && impact) {
        mech_err(c, kp, "'friction_static' applies to clearance_model \"friction\" only (the impact "
                 "model's corner contacts have one coefficient, 'friction')");
    } else if (mech_num_key(c, obj, ptr, "friction_static", MECH_NONNEG, j->friction, &j->friction_static) == 1 &&
               j->friction_static < j->friction) {
        mech_err(c, kp, "'friction_static' (%g) must be >= 'friction' (%g): sticking holds at least as much "
                 "as sliding", j->friction_static, j->friction);
    }
    mech_num_key(c, obj, ptr, "slider_length", MECH_REQ | MECH_POS, 0, &j->slider_length);
    /* the friction model takes the width for the wall contact points of
     * its friction (0, the default: the friction acts on the axis) */
    mech_num_key(c, obj, ptr, "slider_width", impact ? MECH_REQ | MECH_POS : MECH_NONNEG, 0,
                 &j->slider_width);
    /* which integrator handles the model: selected here when the document
     * names none (the impact model: moreau_jean; friction: event_driven) */
    if (!c->integrator_named) {
        if (impact) c->spec->solver.integrator = MBS_INT_MOREAU_JEAN;
        else if (j->friction > 0 || j->friction_static > 0) c->spec->solver.integrator = MBS_INT_EVENT_DRIVEN;
        if (impact || j->friction > 0 || j->friction_static > 0) c->integrator_named = 1;
    }
    mbs_integrator integ = c->spec->solver.integrator;
    mech_ptr_key(kp, ptr, "clearance_model");
    if (impact && integ != MBS_INT_MOREAU_JEAN)
        mech_err(c, kp, "the impact model of a clearance joint (rigid contacts at the slider's "
                 "corners) needs solver.integrator \"moreau_jean\"");
    mech_ptr_key(kp, ptr, "friction");
    if (!impact && (j->friction > 0 || j->friction_static > 0) && integ != MBS_INT_EVENT_DRIVEN)
        mech_err(c, kp, "friction in a clearance joint (seed 003 model) needs solver.integrator "
                 "\"event_driven\"; with friction 0 any integrator treats the joint as ideal");
    j->restitution = 0;
    mech_ptr_key(kp, ptr, "restitution");
    if (json_object_get(obj, "restitution") && !impact) {
        mech_err(c, kp, "'restitution' applies to clearance_model \"impact\" only (the friction "
                 "model keeps the joint bilateral: no impacts)");
    } else if (mech_num_key(c, obj, ptr, "restitution", 0, 0, &j->restitution) == 1 &&
               !(j->restitution >= 0 && j->restitution <= 1)) {
        mech_err(c, kp, "'restitution' must be in [0, 1], got %g", j->restitution);
    }
}

static void s_joint(mech_ctx *c, json_t *obj, const char *ptr, int i, mbs_joint_spec *j)
{
    j->type = MBS_JOINT_NTYPES; /* unknown until read */
    j->body[0] = j->body[1] = MBS_GROUND;
    if (!json_is_object(obj)) {
        mech_err(c, ptr, "expected a joint (an object), got %s", mech_type_name(obj));
        return;
    }
    char kp[MECH_PTR_MAX], b[48];
    json_t *v;
    mech_entry_name(c, obj, ptr, i, j->name, sizeof j->name, &c->joints, "joints", "joint", NULL);

    /* type first: it decides which keys apply */
    int t = -1;
    v = json_object_get(obj, "type");
    mech_ptr_key(kp, ptr, "type");
    if (!v) {
        mech_err(c, ptr, "missing required key 'type' (revolute, prismatic, spherical, "
                 "universal, cylindrical, fixed or distance)");
    } else if (!json_is_string(v)) {
        mech_err(c, kp, "expected a joint type (a string), got %s", mech_type_name(v));
    } else {
        for (int k = 0; k < S_NJTYPES; k++)
            if (strcmp(json_string_value(v), s_jtypes[k].name) == 0)
                t = k;
        if (t < 0) {
            const char *sug = mech_suggest(json_string_value(v), s_jtype_names);
            mech_clip(b, sizeof b, json_string_value(v), 40);
            mech_err(c, kp, "unknown joint type '%s'%s%s%s (expected revolute, prismatic, "
                     "spherical, universal, cylindrical, fixed or distance)", b,
                     sug ? "; did you mean '" : "", sug ? sug : "", sug ? "'?" : "");
        } else if (s_jtypes[t].spatial_only && c->dim == 2) {
            mech_err(c, kp, "'%s' joints exist only in spatial mechanisms (dimension 3)",
                     s_jtypes[t].name);
            t = -1;
        }
    }

    /* the keys this type takes (all joint keys when the type is unknown) */
    if (t < 0) {
        mech_check_keys(c, obj, ptr, s_joint_all, NULL, NULL);
    } else {
        const char *allowed[16];
        int na = 0, keys = s_jtypes[t].keys;
        allowed[na++] = "name";
        allowed[na++] = "type";
        allowed[na++] = "bodies";
        if (keys & (K_AT | K_AT_OPT))
            allowed[na++] = "at";
        if ((keys & K_AXIS) && !(c->dim == 2 && s_jtypes[t].type == MBS_JOINT_REVOLUTE))
            allowed[na++] = "axis";
        if (keys & K_AXES)
            allowed[na++] = "axes";
        if (keys & K_POINTS)
            allowed[na++] = "points";
        if (keys & K_LENGTH)
            allowed[na++] = "length";
        int clr = c->dim == 2 && s_jtypes[t].type == MBS_JOINT_PRISMATIC;
        for (int k = 0; clr && s_clearance_keys[k]; k++)
            allowed[na++] = s_clearance_keys[k];
        allowed[na] = NULL;
        char why[96];
        snprintf(why, sizeof why, "to a%s %s joint%s",
                 c->dim == 2 && s_jtypes[t].type == MBS_JOINT_REVOLUTE ? " planar" : "",
                 s_jtypes[t].name,
                 s_jtypes[t].type == MBS_JOINT_PRISMATIC ? " in 3-D (clearance is planar only)"
                                                         : " (clearance exists for planar "
                                                           "prismatic joints only)");
        mech_check_keys(c, obj, ptr, allowed, s_joint_all, why);
    }

    int bodies_ok = mech_body_pair(c, obj, ptr, "a joint", j->body) == 0;
    if (t < 0)
        return;
    j->type = s_jtypes[t].type;
    s_joint_geometry(c, obj, ptr, t, j, bodies_ok);
    if (c->dim == 2 && j->type == MBS_JOINT_PRISMATIC)
        s_joint_clearance(c, obj, ptr, j);
}

void mech_parse_joints(mech_ctx *c, json_t *root)
{
    json_t *arr = json_object_get(root, "joints");
    if (!arr)
        return;
    long n = mech_array(c, arr, "/joints", "an array of joints");
    if (n <= 0)
        return;
    c->spec->joints = calloc((size_t)n, sizeof *c->spec->joints);
    c->joint_driven = calloc((size_t)n, sizeof *c->joint_driven);
    c->joint_damped = calloc((size_t)n, sizeof *c->joint_damped);
    if (!c->spec->joints || !c->joint_driven || !c->joint_damped) {
        mech_err(c, "/joints", "out of memory");
        return;
    }
    c->spec->njoint = (int)n;
    for (long i = 0; i < n; i++) {
        char ptr[MECH_PTR_MAX];
        mech_ptr_idx(ptr, "/joints", (size_t)i);
        s_joint(c, json_array_get(arr, (size_t)i), ptr, (int)i, &c->spec->joints[i]);
    }
}

