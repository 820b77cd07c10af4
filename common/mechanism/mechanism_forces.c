/*
 * mechanism_forces.c - force elements (springs, forces, torques, joint
 * damping, gravity) and drivers of the mechanism format.
 */
#include "mechanism/mechanism_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- forces ------------------------------------------------------------------------------- */

/* Spec-level types first (they become spec->forces entries), then the
 * entries that only set something elsewhere (joint_damping, gravity). */
enum { F_SPRING, F_ROTSPRING, F_FORCE, F_TORQUE, F_DCMOTOR, F_ACTUATOR, F_JOINT_DAMPING, F_GRAVITY, F_NTYPES };

static const char *const s_ftype_names[] = {"spring_damper", "rotational_spring_damper",
                                            "force", "torque", "dc_motor", "joint_actuator",
                                            "joint_damping", "gravity", NULL};
static const char *const s_fkeys[F_NTYPES][19] = {
    {"type", "name", "bodies", "points", "stiffness", "damping", "free_length", "preload", NULL},
    {"type", "name", "joint", "stiffness", "damping", "free_angle", NULL},
    {"type", "name", "body", "at", "value", "frame", NULL},
    {"type", "name", "body", "value", "frame", NULL},
    {"type", "name", "joint", "voltage", "resistance", "inductance", "torque_constant",
     "back_emf_constant", "rotor_inertia", "viscous_friction", "coulomb_friction", "coulomb_speed",
     "gear_ratio", "lead", "efficiency", "voltage_limit", "current_limit", "initial_current", NULL},
    {"type", "name", "joint", "value", NULL},
    {"type", "name", "joint", "coefficient", NULL},
    {"type", "name", "value", NULL},
};
static const char *const s_force_all[] = {"type", "name", "bodies", "points", "stiffness",
                                          "damping", "free_length", "preload", "joint",
                                          "free_angle", "body", "at", "value", "frame",
                                          "coefficient", "voltage", "resistance", "inductance",
                                          "torque_constant", "back_emf_constant", "rotor_inertia",
                                          "viscous_friction", "coulomb_friction", "coulomb_speed",
                                          "gear_ratio", "lead", "efficiency", "voltage_limit",
                                          "current_limit", "initial_current", NULL};
#define S_FTYPES_LIST "spring_damper, rotational_spring_damper, force, torque, dc_motor, joint_actuator, joint_damping or gravity"

/* What a dc_motor and a joint_actuator (named `what` in messages) share:
 * the revolute or prismatic joint they drive (f->joint, its two bodies in
 * f->body) and their input at obj[key], a function of time into f->value[0]
 * or {"controller": name} into f->ctrl (index + 1), `what_input` saying
 * what it is when it is missing; the unused components of f->value are 0
 * (both bodies the ground while the joint is unknown).
 * Returns the joint's index, or -1. */
static int s_joint_drive(mech_ctx *c, json_t *obj, const char *ptr, mbs_force_spec *f, const char *what,
                         const char *key, const char *what_input)
{
    char kp[MECH_PTR_MAX];
    f->body[0] = f->body[1] = MBS_GROUND;
    int j = f->joint = mech_joint_ref(c, obj, ptr, "joint");
    int jt = j >= 0 ? mech_joint_type(c, j) : MBS_JOINT_NTYPES;
    if (j >= 0 && jt != MBS_JOINT_REVOLUTE && jt != MBS_JOINT_PRISMATIC && jt != MBS_JOINT_NTYPES) {
        mech_ptr_key(kp, ptr, "joint");
        mech_err(c, kp, "a %s drives a revolute or prismatic joint; '%s' is %s", what, c->spec->joints[j].name,
                 mbs_joint_type_name(jt));
    }
    if (j >= 0) {
        f->body[0] = c->spec->joints[j].body[0];
        f->body[1] = c->spec->joints[j].body[1];
    }
    json_t *v = json_object_get(obj, key);
    mech_ptr_key(kp, ptr, key);
    if (!v) {
        mech_err(c, ptr, "missing required key '%s' (%s)", key, what_input);
    } else if (json_is_object(v) && json_object_get(v, "controller")) {
        int k = mech_ctrl_ref(c, v, kp);
        if (k >= 0) f->ctrl = k + 1;
    } else {
        mech_fn(c, v, kp, &f->value[0]);
    }
    for (int k = 0; k < 3; k++)
        if (!f->value[k].c && !f->value[k].expr) mech_fn_constant(c, &f->value[k], 0, ptr);
    return j;
}

/* A dc_motor entry (issue 13, dcmotor.h): on a revolute joint through a
 * gear (gear_ratio: motor speed / joint speed), on a prismatic joint
 * through a lead (m of travel per motor radian); supply voltage a function
 * of time.  Inductance 0: the current is algebraic; > 0: it is a state of
 * the equations (L di/dt = V - R i - ke w_m, from initial_current, 0 by
 * default), integrated by bdf and dopri5 only (the run refuses the other
 * integrators and analyses, run/simulate.c).  The rotor's inertia: on a
 * revolute or prismatic joint, to ground or between two moving bodies (the
 * stator on the joint's first body). */
static void s_dc_motor(mech_ctx *c, json_t *obj, const char *ptr, mbs_force_spec *f)
{
    char kp[MECH_PTR_MAX];
    mbs_dcmotor *mo = &f->motor;
    f->type = MBS_FORCE_DC_MOTOR;
    int j = s_joint_drive(c, obj, ptr, f, "dc_motor", "voltage",
                          "the supply voltage in V: a number, expression or function of time, or {\"controller\": name}");
    int jt = j >= 0 ? mech_joint_type(c, j) : MBS_JOINT_NTYPES;
    mech_num_key(c, obj, ptr, "resistance", MECH_REQ | MECH_POS, 0, &mo->R);
    mech_num_key(c, obj, ptr, "torque_constant", MECH_REQ | MECH_POS, 0, &mo->kt);
    mech_num_key(c, obj, ptr, "back_emf_constant", MECH_REQ | MECH_POS, 0, &mo->ke);
    mech_num_key(c, obj, ptr, "inductance", MECH_NONNEG, 0, &mo->L);
    mech_num_key(c, obj, ptr, "initial_current", 0, 0, &mo->i0);
    if (json_object_get(obj, "initial_current") && !(mo->L > 0)) {
        mech_ptr_key(kp, ptr, "initial_current");
        mech_err(c, kp, "initial_current applies to a motor with an inductance > 0 (its current is then a "
                 "state); with inductance 0 the current follows the voltage at once");
    }
    mech_num_key(c, obj, ptr, "rotor_inertia", MECH_NONNEG, 0, &mo->J);
    mech_num_key(c, obj, ptr, "viscous_friction", MECH_NONNEG, 0, &mo->b);
    mech_num_key(c, obj, ptr, "coulomb_friction", MECH_NONNEG, 0, &mo->tc);
    mech_num_key(c, obj, ptr, "coulomb_speed", MECH_POS, 0.1, &mo->w_eps);
    mech_num_key(c, obj, ptr, "efficiency", MECH_POS, 1, &mo->eta);
    if (mo->eta > 1) {
        mech_ptr_key(kp, ptr, "efficiency");
        mech_err(c, kp, "efficiency must be in (0, 1], got %g", mo->eta);
    }
    mech_num_key(c, obj, ptr, "voltage_limit", MECH_POS, INFINITY, &mo->v_max);
    mech_num_key(c, obj, ptr, "current_limit", MECH_POS, INFINITY, &mo->i_max);
    /* the transmission: a gear on a revolute joint, a lead on a prismatic one */
    int has_gear = json_object_get(obj, "gear_ratio") != NULL, has_lead = json_object_get(obj, "lead") != NULL;
    double gear = 1, lead = 0;
    mech_num_key(c, obj, ptr, "gear_ratio", MECH_POS, 1, &gear);
    if (jt == MBS_JOINT_PRISMATIC) {
        if (has_gear) {
            mech_ptr_key(kp, ptr, "gear_ratio");
            mech_err(c, kp, "on a prismatic joint the transmission is 'lead' (m of travel per motor radian), "
                     "not gear_ratio");
        }
        if (mech_num_key(c, obj, ptr, "lead", MECH_REQ | MECH_POS, 0, &lead) == 1) mo->ratio = 1 / lead;
    } else {
        if (has_lead) {
            mech_ptr_key(kp, ptr, "lead");
            mech_err(c, kp, "'lead' applies to a motor on a prismatic joint; on a revolute joint use gear_ratio");
        }
        mo->ratio = gear;
    }
    /* the rotor's inertia: on a revolute joint to ground the rotor turns
     * about a fixed axis at N times the body's rate, so its kinetic energy
     * is that of an inertia J N^2 about the joint's axis added to the
     * driven body; on a prismatic joint to ground the body translates along
     * a fixed axis and the rotor's kinetic energy 1/2 J (v / lead)^2 is a
     * mass J / lead^2 along that axis (the model build adds both, ncs.c).
     * Between two moving bodies A (bodies[0], carrying the stator) and B
     * the rotor turns at w_A + N (w_B - w_A); in the plane the natural
     * coordinates carry the two bodies' rotation angles as variables of
     * their own, on which its kinetic energy is a constant form (ncs.c
     * s_rotors); on a prismatic joint between them the rotor turns at s' /
     * lead relative to A, whose rotation is normal to the screw in the
     * plane: 1/2 (J / lead^2) s'^2 with the slide s a variable of its own
     * (ncs.c s_slide_rotors).  In space the rotor is a thin disk with unit
     * vectors of its own in the natural coordinates (ncs.c
     * s_space_rotors); the relative formulation's recursion takes it at
     * its joint's node with its gyroscopic moment (tree_dynamics.c), or
     * on a chord as a row of its own (tree.h mbs_rrotor) */
    if (mo->J > 0 && jt != MBS_JOINT_REVOLUTE && jt != MBS_JOINT_PRISMATIC) {
        mech_ptr_key(kp, ptr, "rotor_inertia");
        mech_err(c, kp, "a rotor inertia is supported on a revolute or prismatic joint only");
    }
}

/* A joint_actuator entry (issue 13): an ideal torque (revolute) or force
 * (prismatic) on its joint, equal and opposite on the joint's two bodies,
 * positive driving the joint coordinate up; value a function of time or
 * {"controller": name}. */
static void s_joint_actuator(mech_ctx *c, json_t *obj, const char *ptr, mbs_force_spec *f)
{
    f->type = MBS_FORCE_JOINT_ACTUATOR;
    s_joint_drive(c, obj, ptr, f, "joint_actuator", "value",
                  "the joint torque in N m or force in N: a number, expression or function of time, or "
                  "{\"controller\": name}");
}

/* The type index of a force entry, or -1. */
static int s_force_type(json_t *obj)
{
    const char *s = json_string_value(json_object_get(obj, "type"));
    for (int k = 0; s && k < F_NTYPES; k++)
        if (strcmp(s, s_ftype_names[k]) == 0)
            return k;
    return -1;
}

/* "frame": "global" (default) or "body". */
static void s_frame(mech_ctx *c, json_t *obj, const char *ptr, int *body_frame)
{
    json_t *v = json_object_get(obj, "frame");
    if (!v)
        return;
    char kp[MECH_PTR_MAX];
    mech_ptr_key(kp, ptr, "frame");
    const char *s = json_string_value(v);
    if (s && strcmp(s, "global") == 0)
        *body_frame = 0;
    else if (s && strcmp(s, "body") == 0)
        *body_frame = 1;
    else
        mech_err(c, kp, "'frame' must be \"global\" or \"body\"");
}

/* "value" of a force (dim components) or torque (2-D: one, 3-D: three);
 * each component a number, expression or function object. */
static void s_force_value(mech_ctx *c, json_t *obj, const char *ptr, int torque,
                          mbs_force_spec *f)
{
    char kp[MECH_PTR_MAX], ip[MECH_PTR_MAX];
    int n = torque ? (c->dim == 2 ? 1 : 3) : c->dim;
    json_t *v = json_object_get(obj, "value");
    mech_ptr_key(kp, ptr, "value");
    if (!v) {
        mech_err(c, ptr, "missing required key 'value' (%s)",
                 torque ? (n == 1 ? "the torque about z" : "the torque [Tx, Ty, Tz]")
                        : (n == 2 ? "the force [Fx, Fy]" : "the force [Fx, Fy, Fz]"));
    } else if (n == 1 && !json_is_array(v)) {
        mech_fn(c, v, kp, &f->value[0]);
    } else if (!json_is_array(v)) {
        mech_err(c, kp, "expected an array of %d components (numbers, expressions or functions "
                 "of time), got %s", n, mech_type_name(v));
    } else if (json_array_size(v) != (size_t)n) {
        mech_err(c, kp, "expected %d components (numbers, expressions or functions of time), "
                 "got %zu", n, json_array_size(v));
    } else {
        for (int k = 0; k < n; k++) {
            mech_ptr_idx(ip, kp, (size_t)k);
            mech_fn(c, json_array_get(v, (size_t)k), ip, &f->value[k]);
        }
    }
    /* components not given are constant zero */
    for (int k = 0; k < 3; k++)
        if (!f->value[k].c && !f->value[k].expr)
            mech_fn_constant(c, &f->value[k], 0, ptr);
}

/* One entry of "forces"; spec-level entries go to f (NULL for joint_damping
 * and gravity). */
static void s_force(mech_ctx *c, json_t *obj, const char *ptr, int i, int *gravity_at,
                    mbs_force_spec *f)
{
    char kp[MECH_PTR_MAX], b[48];
    if (!json_is_object(obj)) {
        mech_err(c, ptr, "expected a force element (an object), got %s", mech_type_name(obj));
        return;
    }
    int t = s_force_type(obj);
    json_t *v = json_object_get(obj, "type");
    mech_ptr_key(kp, ptr, "type");
    if (!v) {
        mech_err(c, ptr, "missing required key 'type' (" S_FTYPES_LIST ")");
    } else if (t < 0) {
        const char *s = json_string_value(v);
        const char *sug = s ? mech_suggest(s, s_ftype_names) : NULL;
        mech_clip(b, sizeof b, s ? s : "", 40);
        if (s)
            mech_err(c, kp, "unknown force type '%s'%s%s%s (expected " S_FTYPES_LIST ")", b,
                     sug ? "; did you mean '" : "", sug ? sug : "", sug ? "'?" : "");
        else
            mech_err(c, kp, "expected a force type (a string), got %s", mech_type_name(v));
    }
    if (t < 0) {
        mech_check_keys(c, obj, ptr, s_force_all, NULL, NULL);
    } else {
        char why[64];
        snprintf(why, sizeof why, "to a %s element", s_ftype_names[t]);
        mech_check_keys(c, obj, ptr, s_fkeys[t], s_force_all, why);
    }

    /* optional unique name */
    v = json_object_get(obj, "name");
    mech_ptr_key(kp, ptr, "name");
    if (v && mech_name(c, v, kp, f ? f->name : NULL, MBS_NAME_MAX) == 0)
        mech_register(c, &c->forces, json_string_value(v), i, kp, "forces", "force element");
    if (t < 0)
        return;

    int j;
    switch (t) {
    case F_SPRING: {
        f->type = MBS_FORCE_SPRING_DAMPER;
        mech_body_pair(c, obj, ptr, "a spring_damper", f->body);
        v = json_object_get(obj, "points");
        mech_ptr_key(kp, ptr, "points");
        if (!v) {
            mech_err(c, ptr, "missing required key 'points' (the two attachment points)");
        } else if (!json_is_array(v) || json_array_size(v) != 2) {
            mech_err(c, kp, "expected two points, one on each body");
        } else {
            for (int k = 0; k < 2; k++) {
                char ip[MECH_PTR_MAX];
                mech_ptr_idx(ip, kp, (size_t)k);
                mech_point(c, json_array_get(v, (size_t)k), ip, f->points[k]);
            }
        }
        mech_num_key(c, obj, ptr, "stiffness", MECH_REQ | MECH_NONNEG, 0, &f->stiffness);
        mech_num_key(c, obj, ptr, "damping", MECH_NONNEG, 0, &f->damping);
        f->has_free_length =
            mech_num_key(c, obj, ptr, "free_length", MECH_NONNEG, 0, &f->free_length) == 1;
        mech_num_key(c, obj, ptr, "preload", 0, 0, &f->preload);
        break;
    }
    case F_ROTSPRING:
        f->type = MBS_FORCE_ROTATIONAL_SPRING_DAMPER;
        f->body[0] = f->body[1] = MBS_GROUND;
        f->joint = j = mech_joint_ref(c, obj, ptr, "joint");
        if (j >= 0 && mech_joint_type(c, j) != MBS_JOINT_REVOLUTE &&
            mech_joint_type(c, j) != MBS_JOINT_NTYPES) {
            mech_ptr_key(kp, ptr, "joint");
            mech_err(c, kp, "a rotational_spring_damper needs a revolute joint; '%s' is %s",
                     c->spec->joints[j].name, mbs_joint_type_name(mech_joint_type(c, j)));
        }
        if (j >= 0) {
            f->body[0] = c->spec->joints[j].body[0];
            f->body[1] = c->spec->joints[j].body[1];
        }
        mech_num_key(c, obj, ptr, "stiffness", MECH_REQ | MECH_NONNEG, 0, &f->stiffness);
        mech_num_key(c, obj, ptr, "damping", MECH_NONNEG, 0, &f->damping);
        mech_num_key(c, obj, ptr, "free_angle", 0, 0, &f->free_angle);
        break;
    case F_FORCE:
    case F_TORQUE:
        f->type = t == F_FORCE ? MBS_FORCE_POINT_FORCE : MBS_FORCE_TORQUE;
        f->body[0] = f->body[1] = MBS_GROUND;
        v = json_object_get(obj, "body");
        mech_ptr_key(kp, ptr, "body");
        if (!v)
            mech_err(c, ptr, "missing required key 'body'");
        else if (mech_body_ref(c, v, kp, 0, &f->body[0]) == 0 && t == F_FORCE)
            memcpy(f->at, c->spec->bodies[f->body[0]].com, sizeof f->at);
        if (t == F_FORCE && (v = json_object_get(obj, "at")) != NULL) {
            mech_ptr_key(kp, ptr, "at");
            mech_point(c, v, kp, f->at);
        }
        s_force_value(c, obj, ptr, t == F_TORQUE, f);
        s_frame(c, obj, ptr, &f->body_frame);
        break;
    case F_DCMOTOR:
        s_dc_motor(c, obj, ptr, f);
        break;
    case F_ACTUATOR:
        s_joint_actuator(c, obj, ptr, f);
        break;
    case F_JOINT_DAMPING: {
        double coef = 0;
        j = mech_joint_ref(c, obj, ptr, "joint");
        int r = mech_num_key(c, obj, ptr, "coefficient", MECH_REQ | MECH_NONNEG, 0, &coef);
        if (j < 0 || mech_joint_type(c, j) == MBS_JOINT_NTYPES)
            break;
        mech_ptr_key(kp, ptr, "joint");
        if (mech_joint_type(c, j) != MBS_JOINT_REVOLUTE && mech_joint_type(c, j) != MBS_JOINT_PRISMATIC)
            mech_err(c, kp, "joint_damping applies to revolute and prismatic joints; '%s' is %s",
                     c->spec->joints[j].name, mbs_joint_type_name(mech_joint_type(c, j)));
        else if (c->joint_damped[j])
            mech_err(c, kp, "joint '%s' already has joint_damping (/forces/%d)",
                     c->spec->joints[j].name, c->joint_damped[j] - 1);
        else if (r == 1) {
            c->spec->joints[j].damping = coef;
            c->joint_damped[j] = i + 1;
        }
        break;
    }
    case F_GRAVITY: {
        double g[3] = {0, 0, 0};
        v = json_object_get(obj, "value");
        mech_ptr_key(kp, ptr, "value");
        if (!v)
            mech_err(c, ptr, "missing required key 'value' (the gravity vector)");
        else if (mech_vec(c, v, kp, c->dim, c->dim == 2 ? "a vector [gx, gy]"
                                                        : "a vector [gx, gy, gz]", g) == 0) {
            if (c->gravity_given)
                mech_err(c, ptr, "gravity is given both here and at the top level "
                         "(/gravity); give it once");
            else if (*gravity_at >= 0)
                mech_err(c, ptr, "gravity is given twice (also /forces/%d)", *gravity_at);
            else
                memcpy(c->spec->gravity, g, sizeof g);
        }
        if (*gravity_at < 0)
            *gravity_at = i;
        break;
    }
    }
}

void mech_parse_forces(mech_ctx *c, json_t *root)
{
    json_t *arr = json_object_get(root, "forces");
    if (!arr)
        return;
    long n = mech_array(c, arr, "/forces", "an array of force elements");
    if (n <= 0)
        return;
    /* which entries become spec force elements */
    c->force_doc_to_spec = malloc((size_t)n * sizeof *c->force_doc_to_spec);
    if (!c->force_doc_to_spec) {
        mech_err(c, "/forces", "out of memory");
        return;
    }
    c->nforce_doc = (int)n;
    int ns = 0;
    for (long i = 0; i < n; i++) {
        int t = s_force_type(json_array_get(arr, (size_t)i));
        c->force_doc_to_spec[i] = (t >= 0 && t < F_JOINT_DAMPING) ? ns++ : -1;
    }
    if (ns > 0) {
        c->spec->forces = calloc((size_t)ns, sizeof *c->spec->forces);
        if (!c->spec->forces) {
            mech_err(c, "/forces", "out of memory");
            return;
        }
        c->spec->nforce = ns;
    }
    int gravity_at = -1;
    for (long i = 0; i < n; i++) {
        char ptr[MECH_PTR_MAX];
        mech_ptr_idx(ptr, "/forces", (size_t)i);
        int si = c->force_doc_to_spec[i];
        s_force(c, json_array_get(arr, (size_t)i), ptr, (int)i, &gravity_at,
                si >= 0 ? &c->spec->forces[si] : NULL);
    }
}

/* ---- drivers -------------------------------------------------------------------------------- */

/* A driver's table motion in a dynamic analysis must not make the joint's
 * velocity jump within the run: a corner is an impulse no integrator of the
 * dynamics resolves (measured on the slider-crank: the BDF stops at it,
 * DOPRI5's Baumgarte terms smooth it into an error of 7e-3 rad at tolerance
 * 1e-6 that its estimate does not see, the trapezoidal rule warns).  Corners:
 * the inner rows of a linear table; the first row when the table starts
 * after t = 0 with a rate (the first value is held before it); the last row
 * when it ends before t_end with a rate (the last value is held after it). */
static void s_table_motion_smooth(mech_ctx *c, const mbs_fn *f, const char *ptr)
{
    int n = f->n;
    double t0 = f->c[0], tn = f->c[2 * (n - 1)], T = c->spec->solver.t_end, d0, dn;
    double lo = f->c[1], hi = f->c[1];
    for (int i = 1; i < n; i++) { lo = fmin(lo, f->c[2 * i + 1]); hi = fmax(hi, f->c[2 * i + 1]); }
    double tiny = 1e-12 * (hi - lo) / (tn - t0); /* a rate that is zero but for rounding */
    mbs_fn_eval(f, t0, &d0, NULL);
    mbs_fn_eval(f, tn, &dn, NULL);
    if (!f->spline && n >= 3)
        mech_err(c, ptr, "a driver's motion given by a linear table has a corner at each inner row, where the "
                 "joint's velocity would jump (an impulse the dynamics cannot follow): use \"interpolation\": "
                 "\"spline\" (smooth through the rows), or analysis \"kinematics\"");
    else if (t0 > 0 && fabs(d0) > tiny)
        mech_err(c, ptr, "a driver's table starts at t = %g with the rate %g: before it the first value is held, so "
                 "the joint's velocity would jump there (an impulse the dynamics cannot follow); start the table "
                 "at t = 0", t0, d0);
    else if (tn < T && fabs(dn) > tiny)
        mech_err(c, ptr, "a driver's table ends at t = %g, before solver.t_end = %g, with the rate %g: after it the "
                 "last value is held, so the joint's velocity would jump there (an impulse the dynamics cannot "
                 "follow); extend the table to t_end or beyond", tn, T, dn);
}

/* A driver's motion given by an expression with min, max or abs: at each
 * switch (mbs_fn_kinks) the one-sided rates must agree, else the joint's
 * velocity jumps there (an impulse; the BDF stopped below min_step, DOPRI5
 * smoothed it over silently).  A switch where the rates agree (max(t - 1,
 * 0)^2) is a jump of the acceleration only: the steps end there
 * (mbs_spec_kinks) and it is accepted. */
static void s_expr_motion_smooth(mech_ctx *c, const mbs_fn *f, const char *ptr)
{
    double T = c->spec->solver.t_end, k[64];
    if (!(T > 0)) return;
    long budget = MBS_KINKS_WORK;
    int n = mbs_fn_kinks(f, 0, T, k, 64, &budget);
    /* the rates' scale: the motion's range over the run per t_end */
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i <= 64; i++) {
        double v = mbs_fn_eval(f, T * i / 64.0, NULL, NULL);
        if (isfinite(v)) { lo = fmin(lo, v); hi = fmax(hi, v); }
    }
    double scale = hi > lo ? (hi - lo) / T : 0;
    for (int i = 0; i < n; i++) {
        double tk = k[i], h = 1e-7 * fmax(1.0, T), f0 = mbs_fn_eval(f, tk, NULL, NULL);
        double sl = (f0 - mbs_fn_eval(f, tk - h, NULL, NULL)) / h, sr = (mbs_fn_eval(f, tk + h, NULL, NULL) - f0) / h;
        if (fabs(sr - sl) > 1e-3 * (fmax(fabs(sl), fabs(sr)) + scale)) {
            mech_err(c, ptr, "a driver's motion has a corner at t = %.6g (min, max or abs switching): its rate jumps "
                     "from %.6g to %.6g, an impulse the dynamics cannot follow; make it smooth there (e.g. a "
                     "\"spline\" table), or use analysis \"kinematics\"", tk, sl, sr);
            return;
        }
    }
}

static const char *const s_driver_keys[] = {"joint", "motion", NULL};

void mech_parse_drivers(mech_ctx *c, json_t *root)
{
    json_t *arr = json_object_get(root, "drivers");
    if (!arr)
        return;
    long n = mech_array(c, arr, "/drivers", "an array of drivers");
    if (n <= 0)
        return;
    c->spec->drivers = calloc((size_t)n, sizeof *c->spec->drivers);
    if (!c->spec->drivers) {
        mech_err(c, "/drivers", "out of memory");
        return;
    }
    c->spec->ndriver = (int)n;
    for (long i = 0; i < n; i++) {
        char ptr[MECH_PTR_MAX], kp[MECH_PTR_MAX];
        mbs_driver_spec *d = &c->spec->drivers[i];
        json_t *obj = json_array_get(arr, (size_t)i);
        mech_ptr_idx(ptr, "/drivers", (size_t)i);
        d->joint = -1;
        if (!json_is_object(obj)) {
            mech_err(c, ptr, "expected a driver (an object), got %s", mech_type_name(obj));
            continue;
        }
        mech_check_keys(c, obj, ptr, s_driver_keys, NULL, NULL);
        int j = mech_joint_ref(c, obj, ptr, "joint");
        mech_ptr_key(kp, ptr, "joint");
        if (j >= 0 && mech_joint_type(c, j) != MBS_JOINT_NTYPES) {
            mbs_joint_type t = mech_joint_type(c, j);
            if (t != MBS_JOINT_REVOLUTE && t != MBS_JOINT_PRISMATIC)
                mech_err(c, kp, "a driver needs a revolute or prismatic joint; '%s' is %s",
                         c->spec->joints[j].name, mbs_joint_type_name(t));
            else if (c->joint_driven[j])
                mech_err(c, kp, "joint '%s' already has a driver (/drivers/%d)",
                         c->spec->joints[j].name, c->joint_driven[j] - 1);
            else
                c->joint_driven[j] = (int)i + 1;
        }
        d->joint = j;
        json_t *m = json_object_get(obj, "motion");
        mech_ptr_key(kp, ptr, "motion");
        if (!m)
            mech_err(c, ptr, "missing required key 'motion' (a function of time)");
        else if (mech_fn(c, m, kp, &d->motion) == 0 && c->spec->solver.analysis == MBS_ANALYSIS_DYNAMICS) {
            if (d->motion.kind == MBS_FN_TABLE) s_table_motion_smooth(c, &d->motion, kp);
            if (d->motion.kind == MBS_FN_EXPRESSION) s_expr_motion_smooth(c, &d->motion, kp);
        }
    }
}
