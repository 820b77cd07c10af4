/*
 * mechanism_out.c - the "outputs" section of the mechanism format: the
 * sampling interval and the output channels (default: every body's com
 * position and the total energy).
 */
#include "mechanism/mechanism_int.h"
#include "mbs/dynamics/quantity.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Keys a channel may carry besides name and quantity. */
enum { C_BODY = 1, C_POINT = 2, C_JOINT = 4, C_ELEMENT = 8, C_COMPONENT = 16, C_SHAPES = 32, C_CONTROLLER = 64 };

/* Component rules. */
enum {
    R_NONE,     /* scalar: no component                                    */
    R_VEC,      /* required: x, y, (z in 3-D), magnitude                    */
    R_VEC3_OPT, /* 3-D: required x, y, z, magnitude; 2-D: optional "z"     */
    R_QUAT,     /* required: w, x, y, z                                    */
    R_VEC_NORMAL, /* R_VEC or "normal"                                      */
    R_MOTOR,    /* required: current, voltage, speed, torque, power_in,
                   copper_loss, friction_loss, gear_loss, power_out,
                   magnetic_energy, energy_in, copper_energy,
                   friction_energy, gear_energy or energy_out             */
    R_CTRL      /* required: error, output, setpoint or measurement        */
};

/* The components of a controller channel, in mbs_component order from
 * MBS_C_ERROR. */
static const char *const s_ctrl_components[] = {"error", "output", "setpoint", "measurement", "state", NULL};

/* The components of a motor channel, in mbs_component order from
 * MBS_C_CURRENT. */
static const char *const s_motor_components[] = {"current", "voltage", "speed", "torque", "power_in",
                                                 "copper_loss", "friction_loss", "gear_loss", "power_out",
                                                 "magnetic_energy", "energy_in", "copper_energy",
                                                 "friction_energy", "gear_energy", "energy_out", NULL};

static const struct {
    const char *name;
    mbs_quantity q;
    int keys;
    int rule;
    int dim;    /* 0: both, 2 or 3: only that dimension */
} s_quantities[] = {
    {"position", MBS_Q_POSITION, C_BODY | C_POINT | C_COMPONENT, R_VEC, 0},
    {"velocity", MBS_Q_VELOCITY, C_BODY | C_POINT | C_COMPONENT, R_VEC, 0},
    {"acceleration", MBS_Q_ACCELERATION, C_BODY | C_POINT | C_COMPONENT, R_VEC, 0},
    {"angle", MBS_Q_ANGLE, C_BODY, R_NONE, 2},
    {"angular_velocity", MBS_Q_ANGULAR_VELOCITY, C_BODY | C_COMPONENT, R_VEC3_OPT, 0},
    {"orientation", MBS_Q_ORIENTATION, C_BODY | C_COMPONENT, R_QUAT, 3},
    {"joint_coordinate", MBS_Q_JOINT_COORDINATE, C_JOINT, R_NONE, 0},
    {"reaction_force", MBS_Q_REACTION_FORCE, C_JOINT | C_COMPONENT, R_VEC, 0},
    {"reaction_torque", MBS_Q_REACTION_TORQUE, C_JOINT | C_COMPONENT, R_VEC3_OPT, 0},
    {"element_force", MBS_Q_ELEMENT_FORCE, C_ELEMENT, R_NONE, 0},
    {"kinetic_energy", MBS_Q_KINETIC_ENERGY, 0, R_NONE, 0},
    {"potential_energy", MBS_Q_POTENTIAL_ENERGY, 0, R_NONE, 0},
    {"energy", MBS_Q_TOTAL_ENERGY, 0, R_NONE, 0},
    {"constraint_violation", MBS_Q_CONSTRAINT_VIOLATION, 0, R_NONE, 0},
    {"normal_force", MBS_Q_NORMAL_FORCE, C_JOINT | C_COMPONENT, R_VEC, 2},
    {"friction_force", MBS_Q_FRICTION_FORCE, C_JOINT, R_NONE, 2},
    {"contact_force", MBS_Q_CONTACT_FORCE, C_SHAPES | C_COMPONENT, R_VEC_NORMAL, 0},
    {"motor", MBS_Q_MOTOR, C_ELEMENT | C_COMPONENT, R_MOTOR, 0},
    {"joint_velocity", MBS_Q_JOINT_VELOCITY, C_JOINT, R_NONE, 0},
    {"controller", MBS_Q_CONTROLLER, C_CONTROLLER | C_COMPONENT, R_CTRL, 0},
};
#define S_NQ ((int)(sizeof s_quantities / sizeof s_quantities[0]))

static const char *const s_qnames[] = {
    "position", "velocity", "acceleration", "angle", "angular_velocity", "orientation",
    "joint_coordinate", "reaction_force", "reaction_torque", "element_force",
    "kinetic_energy", "potential_energy", "energy", "constraint_violation", "normal_force",
    "friction_force", "contact_force", "motor", "joint_velocity", "controller", NULL};
static const char *const s_channel_all[] = {"name", "quantity", "body", "point", "joint",
                                            "element", "shapes", "component", "controller", NULL};
static const char *const s_output_keys[] = {"interval", "channels", NULL};

/* The component at v (pointer kp; the channel's pointer ptr) of a quantity
 * whose components are the names `names` (NULL-terminated), the k-th being
 * component first + k; `expect` lists them for the messages. */
static void s_named_component(mech_ctx *c, json_t *v, const char *ptr, const char *kp, mbs_channel_spec *ch,
                              const char *const *names, mbs_component first, const char *quantity,
                              const char *expect)
{
    const char *s = json_string_value(v);
    if (!v) {
        mech_err(c, ptr, "missing required key 'component' (%s) for quantity '%s'", expect, quantity);
        return;
    }
    for (int k = 0; s && names[k]; k++)
        if (strcmp(s, names[k]) == 0) {
            ch->component = (mbs_component)(first + k);
            return;
        }
    char b[48];
    if (s) snprintf(b, sizeof b, "'%.30s'", s);
    else snprintf(b, sizeof b, "%s", mech_type_name(v));
    mech_err(c, kp, "component %s does not exist for quantity '%s'; expected %s", b, quantity, expect);
}

/* "component" of channel ch for quantity entry q. */
static void s_component(mech_ctx *c, json_t *obj, const char *ptr, int q, mbs_channel_spec *ch)
{
    int rule = s_quantities[q].rule, d2 = c->dim == 2;
    const char *qn = s_quantities[q].name;
    json_t *v = json_object_get(obj, "component");
    char kp[MECH_PTR_MAX];
    mech_ptr_key(kp, ptr, "component");
    ch->component = MBS_C_NONE;
    if (rule == R_NONE)
        return;
    if (rule == R_VEC3_OPT && d2)
        ch->component = MBS_C_Z; /* the planar scalar */

    if (rule == R_CTRL) {
        s_named_component(c, v, ptr, kp, ch, s_ctrl_components, MBS_C_ERROR, "controller",
                          "\"error\", \"output\", \"setpoint\", \"measurement\" or \"state\"");
        return;
    }
    if (rule == R_MOTOR) {
        s_named_component(c, v, ptr, kp, ch, s_motor_components, MBS_C_CURRENT, "motor",
                          "\"current\", \"voltage\", \"speed\", \"torque\", \"power_in\", \"copper_loss\", "
                          "\"friction_loss\", \"gear_loss\", \"power_out\", \"magnetic_energy\", \"energy_in\", "
                          "\"copper_energy\", \"friction_energy\", \"gear_energy\" or \"energy_out\"");
        return;
    }

    /* the components this quantity offers in this dimension */
    const char *expect;
    if (rule == R_QUAT)
        expect = "\"w\", \"x\", \"y\" or \"z\"";
    else if (rule == R_VEC3_OPT && d2)
        expect = "\"z\" (or none: it is a scalar in a planar mechanism)";
    else if (rule == R_VEC_NORMAL)
        expect = d2 ? "\"x\", \"y\", \"magnitude\" or \"normal\""
                    : "\"x\", \"y\", \"z\", \"magnitude\" or \"normal\"";
    else if (d2)
        expect = "\"x\", \"y\" or \"magnitude\"";
    else
        expect = "\"x\", \"y\", \"z\" or \"magnitude\"";
    if (!v) {
        if (!(rule == R_VEC3_OPT && d2))
            mech_err(c, ptr, "missing required key 'component' (%s) for quantity '%s'", expect,
                     qn);
        return;
    }
    const char *s = json_string_value(v);
    mbs_component comp = MBS_C_NONE;
    if (s) {
        if (strcmp(s, "x") == 0)
            comp = MBS_C_X;
        else if (strcmp(s, "y") == 0)
            comp = MBS_C_Y;
        else if (strcmp(s, "z") == 0)
            comp = MBS_C_Z;
        else if (strcmp(s, "magnitude") == 0)
            comp = MBS_C_MAGNITUDE;
        else if (strcmp(s, "w") == 0)
            comp = MBS_C_W;
        else if (strcmp(s, "normal") == 0)
            comp = MBS_C_NORMAL;
    }
    int ok;
    if (rule == R_VEC_NORMAL && comp == MBS_C_NORMAL)
        ok = 1;
    else if (rule == R_QUAT)
        ok = comp == MBS_C_W || comp == MBS_C_X || comp == MBS_C_Y || comp == MBS_C_Z;
    else if (rule == R_VEC3_OPT && d2)
        ok = comp == MBS_C_Z;
    else if (d2)
        ok = comp == MBS_C_X || comp == MBS_C_Y || comp == MBS_C_MAGNITUDE;
    else
        ok = comp == MBS_C_X || comp == MBS_C_Y || comp == MBS_C_Z || comp == MBS_C_MAGNITUDE;
    if (!ok) {
        char b[48];
        if (s)
            snprintf(b, sizeof b, "'%.30s'", s);
        else
            snprintf(b, sizeof b, "%s", mech_type_name(v));
        mech_err(c, kp, "component %s does not exist for quantity '%s'%s; expected %s", b, qn,
                 d2 ? " in a planar mechanism" : "", expect);
        return;
    }
    ch->component = comp;
}

/* "element": a force element's name, or its index in "forces". */
static void s_element(mech_ctx *c, json_t *obj, const char *ptr, mbs_channel_spec *ch)
{
    json_t *v = json_object_get(obj, "element");
    char kp[MECH_PTR_MAX], b[48];
    mech_ptr_key(kp, ptr, "element");
    if (!v) {
        mech_err(c, ptr, "missing required key 'element' (a force element's name or its "
                 "index in \"forces\")");
        return;
    }
    int doc = -1;
    if (json_is_string(v)) {
        doc = mech_map_get(&c->forces, json_string_value(v));
        if (doc < 0) {
            const char *sug = mech_suggest_map(json_string_value(v), &c->forces);
            mech_clip(b, sizeof b, json_string_value(v), 40);
            mech_err(c, kp, "no force element named '%s'%s%s%s", b, sug ? "; did you mean '" : "",
                     sug ? sug : "", sug ? "'?" : "");
            return;
        }
    } else if (json_is_integer(v)) {
        json_int_t k = json_integer_value(v);
        if (k < 0 || k >= c->nforce_doc) {
            mech_err(c, kp, "element index %lld is out of range (\"forces\" has %d entr%s)",
                     (long long)k, c->nforce_doc, c->nforce_doc == 1 ? "y" : "ies");
            return;
        }
        doc = (int)k;
    } else {
        mech_err(c, kp, "expected a force element's name or index, got %s", mech_type_name(v));
        return;
    }
    if (!c->force_doc_to_spec || c->force_doc_to_spec[doc] < 0) {
        mech_err(c, kp, "/forces/%d is not a force element with an output (joint_damping and "
                 "gravity entries have none)", doc);
        return;
    }
    ch->element = c->force_doc_to_spec[doc];
    if (ch->quantity == MBS_Q_MOTOR && c->spec->forces && c->spec->forces[ch->element].type != MBS_FORCE_DC_MOTOR)
        mech_err(c, kp, "quantity 'motor' needs a dc_motor element; /forces/%d is not one", doc);
}

/* "shapes": [pattern_a, pattern_b] of a contact_force channel: glob patterns
 * over shape names that must select at least one declared contact pair. */
static void s_contact_shapes(mech_ctx *c, json_t *obj, const char *ptr, mbs_channel_spec *ch)
{
    json_t *v = json_object_get(obj, "shapes");
    char kp[MECH_PTR_MAX], b[2][48];
    mech_ptr_key(kp, ptr, "shapes");
    if (!v) {
        mech_err(c, ptr, "missing required key 'shapes' ([pattern_a, pattern_b]: the contact pairs "
                 "whose force on the shapes matching pattern_b is reported)");
        return;
    }
    if (!json_is_array(v) || json_array_size(v) != 2 || !json_is_string(json_array_get(v, 0)) ||
        !json_is_string(json_array_get(v, 1))) {
        mech_err(c, kp, "expected two shape names or patterns [\"a\", \"b\"], got %s", mech_type_name(v));
        return;
    }
    for (int i = 0; i < 2; i++) {
        const char *s = json_string_value(json_array_get(v, i));
        if (strlen(s) == 0 || strlen(s) >= MBS_NAME_MAX) {
            char ip[MECH_PTR_MAX];
            mech_ptr_idx(ip, kp, (size_t)i);
            mech_err(c, ip, "a shape pattern has 1 to %d bytes", MBS_NAME_MAX - 1);
            return;
        }
        snprintf(ch->contact[i], sizeof ch->contact[i], "%s", s);
        mech_clip(b[i], sizeof b[i], s, 40);
    }
    const mbs_spec *s = c->spec;
    int found = 0;
    for (int k = 0; k < s->ncontact && !found; k++) found = mbs_contact_pair_side(s, k, ch->contact[0], ch->contact[1]) != 0;
    if (!found)
        mech_err(c, kp, "no declared contact pair joins a shape matching '%s' to one matching '%s' "
                 "(pairs are declared in \"contacts\")", b[0], b[1]);
}

/* measure: 0 for an output channel, 1 + the measuring controller's index
 * for a controller's measured signal */
static void s_channel_keys(mech_ctx *c, json_t *obj, const char *ptr, int measure, mbs_channel_spec *ch);

int mech_measure_via_ctrl(const mbs_spec *s, const mbs_channel_spec *ch)
{
    if (ch->element < 0 || ch->element >= s->nforce || (ch->quantity != MBS_Q_MOTOR && ch->quantity != MBS_Q_ELEMENT_FORCE))
        return -1;
    const mbs_force_spec *F = &s->forces[ch->element];
    if ((F->type != MBS_FORCE_DC_MOTOR && F->type != MBS_FORCE_JOINT_ACTUATOR) || F->ctrl == 0) return -1;
    int on_v = F->type == MBS_FORCE_JOINT_ACTUATOR ? 1
               : ch->quantity == MBS_Q_ELEMENT_FORCE ? F->motor.L == 0
               : ch->component == MBS_C_VOLTAGE || ch->component == MBS_C_POWER_IN ||
                     (F->motor.L == 0 && ch->component != MBS_C_SPEED);
    return on_v ? F->ctrl - 1 : -1;
}

/* A measured motor quantity (or a motor's element_force) that depends on
 * the motor's supply voltage, when the measuring controller `self` sets
 * that voltage: an algebraic loop through its own output, refused.  With
 * an inductance the current (and the torque) is a state and may be
 * measured; the speed always.  Through another controller's output it is
 * a function of the state and that output (a cascade through a motor):
 * allowed, and a cycle of such reads is refused with the controllers'
 * order (mechanism_ctrl.c). */
static void s_measure_loop(mech_ctx *c, json_t *obj, const char *ptr, const mbs_channel_spec *ch, int self)
{
    char kp[MECH_PTR_MAX];
    if (c->nerr) return;
    int k = mech_measure_via_ctrl(c->spec, ch);
    (void)obj;
    if (k < 0 || k != self) return;
    const mbs_force_spec *F = &c->spec->forces[ch->element];
    mech_ptr_key(kp, ptr, ch->quantity == MBS_Q_MOTOR ? "component" : "element");
    if (F->type == MBS_FORCE_JOINT_ACTUATOR)
        mech_err(c, kp, "joint_actuator '%s' is the output of controller '%s': measuring it is an algebraic loop",
                 F->name, c->spec->controllers[F->ctrl - 1].name);
    else
        mech_err(c, kp, "this quantity of dc_motor '%s' depends on its supply voltage, which controller '%s' sets: an "
                 "algebraic loop (measure the motor's speed, or its current when its inductance is > 0)", F->name,
                 c->spec->controllers[F->ctrl - 1].name);
}

/* One channel object. */
static void s_channel(mech_ctx *c, json_t *obj, const char *ptr, int i, mech_map *names,
                      mbs_channel_spec *ch)
{
    char kp[MECH_PTR_MAX];
    ch->body = ch->joint = ch->element = -1;
    ch->component = MBS_C_NONE;
    if (!json_is_object(obj)) {
        mech_err(c, ptr, "expected a channel (an object), got %s", mech_type_name(obj));
        return;
    }
    json_t *v = json_object_get(obj, "name");
    mech_ptr_key(kp, ptr, "name");
    if (!v) {
        mech_err(c, ptr, "missing required key 'name' (the column header)");
    } else if (mech_name(c, v, kp, ch->name, sizeof ch->name) == 0) {
        int prev;
        if (strcmp(ch->name, "time") == 0)
            mech_err(c, kp, "'time' is the name of the first column; choose another name");
        else if ((prev = mech_map_put(names, json_string_value(v), i)) >= 0)
            mech_err(c, kp, "duplicate channel name '%s' (already used by "
                     "/outputs/channels/%d)", ch->name, prev);
        else if (prev == -2)
            mech_err(c, kp, "out of memory");
    }

    s_channel_keys(c, obj, ptr, 0, ch);
}

/* A controller's measured signal (or the quantity and keys of channel ch
 * with measure = 0): the keys of an output channel of a state quantity. */
void mech_measure(mech_ctx *c, json_t *obj, const char *ptr, int self, mbs_channel_spec *ch)
{
    ch->body = ch->joint = ch->element = -1;
    ch->component = MBS_C_NONE;
    if (!json_is_object(obj)) {
        mech_err(c, ptr, "expected a measured signal (an object with a quantity and its keys), got %s",
                 mech_type_name(obj));
        return;
    }
    s_channel_keys(c, obj, ptr, 1 + self, ch);
}

static void s_channel_keys(mech_ctx *c, json_t *obj, const char *ptr, int measure, mbs_channel_spec *ch)
{
    char kp[MECH_PTR_MAX], b[48];
    json_t *v;
    /* the quantity decides which keys apply */
    int q = -1;
    v = json_object_get(obj, "quantity");
    mech_ptr_key(kp, ptr, "quantity");
    if (!v) {
        mech_err(c, ptr, "missing required key 'quantity'");
    } else if (!json_is_string(v)) {
        mech_err(c, kp, "expected a quantity name (a string), got %s", mech_type_name(v));
    } else {
        for (int k = 0; k < S_NQ; k++)
            if (strcmp(json_string_value(v), s_quantities[k].name) == 0)
                q = k;
        if (q < 0) {
            const char *sug = mech_suggest(json_string_value(v), s_qnames);
            mech_clip(b, sizeof b, json_string_value(v), 40);
            if (sug)
                mech_err(c, kp, "unknown quantity '%s'; did you mean '%s'?", b, sug);
            else
                mech_err(c, kp, "unknown quantity '%s' (expected position, velocity, "
                         "acceleration, angle, angular_velocity, orientation, "
                         "joint_coordinate, reaction_force, reaction_torque, element_force, "
                         "kinetic_energy, potential_energy, energy, constraint_violation, "
                         "normal_force, friction_force, contact_force, motor, joint_velocity or "
                         "controller)", b);
        } else if (s_quantities[q].dim && s_quantities[q].dim != c->dim) {
            mech_err(c, kp, "quantity '%s' exists only in %s mechanisms; use '%s'",
                     s_quantities[q].name, c->dim == 2 ? "spatial" : "planar",
                     c->dim == 2 ? "angle" : "orientation");
            q = -1;
        }
    }
    if (q < 0) {
        mech_check_keys(c, obj, ptr, measure ? s_channel_all + 1 : s_channel_all, NULL, NULL);
        return;
    }
    ch->quantity = s_quantities[q].q;
    /* a measured signal is a function of the state that does not pass
     * through a controller's output (an algebraic loop) */
    /* (a reaction: a function of the state unless the controller's output
     * moves a force at the same instant, refused in mechanism_ctrl.c) */
    if (measure && !mbs_quantity_is_state(ch->quantity) && ch->quantity != MBS_Q_CONTROLLER &&
        ch->quantity != MBS_Q_REACTION_FORCE && ch->quantity != MBS_Q_REACTION_TORQUE) {
        mech_ptr_key(kp, ptr, "quantity");
        mech_err(c, kp, "a controller cannot measure '%s' (it measures position, velocity, angle, "
                 "angular_velocity, orientation, joint_coordinate, joint_velocity, element_force, motor, "
                 "kinetic_energy, potential_energy, energy, another controller's channel, "
                 "reaction_force or reaction_torque)",
                 s_quantities[q].name);
        return;
    }

    /* keys that do not apply to this quantity are errors */
    const char *allowed[10];
    int na = 0, keys = s_quantities[q].keys;
    if (!measure) allowed[na++] = "name";
    allowed[na++] = "quantity";
    if (keys & C_CONTROLLER)
        allowed[na++] = "controller";
    if (keys & C_BODY)
        allowed[na++] = "body";
    if (keys & C_POINT)
        allowed[na++] = "point";
    if (keys & C_JOINT)
        allowed[na++] = "joint";
    if (keys & C_ELEMENT)
        allowed[na++] = "element";
    if (keys & C_SHAPES)
        allowed[na++] = "shapes";
    if (keys & C_COMPONENT)
        allowed[na++] = "component";
    allowed[na] = NULL;
    char why[64];
    snprintf(why, sizeof why, "to quantity '%s'", s_quantities[q].name);
    mech_check_keys(c, obj, ptr, allowed, measure ? s_channel_all + 1 : s_channel_all, why);

    if (keys & C_BODY) {
        v = json_object_get(obj, "body");
        mech_ptr_key(kp, ptr, "body");
        if (!v) {
            mech_err(c, ptr, "missing required key 'body' for quantity '%s'",
                     s_quantities[q].name);
        } else if (!json_is_string(v)) {
            mech_err(c, kp, "expected a body name (a string), got %s", mech_type_name(v));
        } else if (strcmp(json_string_value(v), "ground") == 0) {
            mech_err(c, kp, "'ground' does not move; name a body");
        } else if ((ch->body = mech_map_get(&c->bodies, json_string_value(v))) < 0) {
            const char *sug = mech_suggest_map(json_string_value(v), &c->bodies);
            mech_clip(b, sizeof b, json_string_value(v), 40);
            mech_err(c, kp, "unknown body '%s'%s%s%s", b, sug ? "; did you mean '" : "",
                     sug ? sug : "", sug ? "'?" : "");
        }
    }
    if (keys & C_POINT) {
        v = json_object_get(obj, "point");
        mech_ptr_key(kp, ptr, "point");
        if (v) {
            double p[3] = {0, 0, 0};
            if (mech_vec(c, v, kp, c->dim, c->dim == 2 ? "a point [x, y]" : "a point [x, y, z]",
                         p) == 0)
                memcpy(ch->point, p, sizeof p);
        } else if (ch->body >= 0) {
            memcpy(ch->point, c->spec->bodies[ch->body].com, sizeof ch->point);
        }
    }
    if (keys & C_JOINT) {
        v = json_object_get(obj, "joint");
        mech_ptr_key(kp, ptr, "joint");
        if (!v) {
            mech_err(c, ptr, "missing required key 'joint' for quantity '%s'",
                     s_quantities[q].name);
        } else if (!json_is_string(v)) {
            mech_err(c, kp, "expected a joint name (a string), got %s", mech_type_name(v));
        } else if ((ch->joint = mech_map_get(&c->joints, json_string_value(v))) < 0) {
            const char *sug = mech_suggest_map(json_string_value(v), &c->joints);
            mech_clip(b, sizeof b, json_string_value(v), 40);
            mech_err(c, kp, "unknown joint '%s'%s%s%s", b, sug ? "; did you mean '" : "",
                     sug ? sug : "", sug ? "'?" : "");
        } else if (ch->quantity == MBS_Q_JOINT_COORDINATE || ch->quantity == MBS_Q_JOINT_VELOCITY) {
            mbs_joint_type t = c->spec->joints[ch->joint].type;
            if (t != MBS_JOINT_REVOLUTE && t != MBS_JOINT_PRISMATIC && t != MBS_JOINT_NTYPES)
                mech_err(c, kp, "%s is defined for revolute and prismatic "
                         "joints; '%s' is %s", s_quantities[q].name, c->spec->joints[ch->joint].name,
                         mbs_joint_type_name(t));
        } else if (ch->quantity == MBS_Q_NORMAL_FORCE || ch->quantity == MBS_Q_FRICTION_FORCE) {
            const mbs_joint_spec *J = &c->spec->joints[ch->joint];
            if (J->type != MBS_JOINT_NTYPES && J->clearance_model != MBS_CLEARANCE_FRICTION)
                mech_err(c, kp, "%s is defined for prismatic joints with clearance_model "
                         "\"friction\"; '%s' has none", s_quantities[q].name, J->name);
            else if (c->spec->solver.integrator != MBS_INT_EVENT_DRIVEN)
                mech_err(c, kp, "%s needs solver.integrator \"event_driven\"",
                         s_quantities[q].name);
        }
    }
    if (keys & C_ELEMENT)
        s_element(c, obj, ptr, ch);
    if (keys & C_SHAPES)
        s_contact_shapes(c, obj, ptr, ch);
    if (keys & C_CONTROLLER) {
        v = json_object_get(obj, "controller");
        mech_ptr_key(kp, ptr, "controller");
        if (!v)
            mech_err(c, ptr, "missing required key 'controller' (a controller's name) for quantity 'controller'");
        else if (!json_is_string(v))
            mech_err(c, kp, "expected a controller's name (a string), got %s", mech_type_name(v));
        else if ((ch->element = mech_map_get(&c->ctrls, json_string_value(v))) < 0) {
            const char *sug = mech_suggest_map(json_string_value(v), &c->ctrls);
            mech_clip(b, sizeof b, json_string_value(v), 40);
            mech_err(c, kp, "no controller named '%s'%s%s%s", b, sug ? "; did you mean '" : "", sug ? sug : "",
                     sug ? "'?" : "");
        }
    }
    s_component(c, obj, ptr, q, ch);
    if (measure && !c->nerr && ch->quantity == MBS_Q_MOTOR && ch->component >= MBS_C_ENERGY_IN &&
        ch->component <= MBS_C_ENERGY_OUT) {
        /* the output sampler's quadratures are not states of the equations */
        mech_ptr_key(kp, ptr, "component");
        mech_err(c, kp, "a controller cannot measure a motor's energy since t = 0 (an integral the output carries "
                 "beside the equations, not a state of them); measure its power or current");
        return;
    }
    if (measure) s_measure_loop(c, obj, ptr, ch, measure - 1);
}

/* Default channels: each body's com position components, then the energy. */
static void s_default_channels(mech_ctx *c)
{
    mbs_spec *s = c->spec;
    if (!s->bodies)
        return;
    size_t n = (size_t)s->nbody * (size_t)c->dim + 1;
    s->channels = calloc(n, sizeof *s->channels);
    if (!s->channels) {
        mech_err(c, "", "out of memory");
        return;
    }
    static const char axes[] = "xyz";
    int k = 0;
    for (int i = 0; i < s->nbody; i++) {
        const mbs_body_spec *b = &s->bodies[i];
        if (strlen(b->name) + 2 >= MBS_NAME_MAX) {
            char ptr[MECH_PTR_MAX];
            mech_ptr_idx(ptr, "/bodies", (size_t)i);
            mech_ptr_key(ptr, ptr, "name");
            mech_err(c, ptr, "name is too long for the default output channel '%.20s....x' "
                     "(at most %d bytes); shorten it or list \"outputs\".\"channels\"",
                     b->name, MBS_NAME_MAX - 3);
            continue;
        }
        for (int d = 0; d < c->dim; d++, k++) {
            mbs_channel_spec *ch = &s->channels[k];
            snprintf(ch->name, sizeof ch->name, "%.61s.%c", b->name, axes[d]);
            ch->quantity = MBS_Q_POSITION;
            ch->body = i;
            memcpy(ch->point, b->com, sizeof ch->point);
            ch->joint = ch->element = -1;
            ch->component = (mbs_component)(MBS_C_X + d);
        }
    }
    mbs_channel_spec *ch = &s->channels[k++];
    snprintf(ch->name, sizeof ch->name, "energy");
    ch->quantity = MBS_Q_TOTAL_ENERGY;
    ch->body = ch->joint = ch->element = -1;
    ch->component = MBS_C_NONE;
    s->nchannel = k;
}

void mech_parse_outputs(mech_ctx *c, json_t *root)
{
    json_t *out = json_object_get(root, "outputs");
    mbs_spec *s = c->spec;
    s->out_interval = c->t_end > 0 ? c->t_end / 100 : 0;
    if (out && !json_is_object(out)) {
        mech_err(c, "/outputs", "expected an object, got %s", mech_type_name(out));
        out = NULL;
    }
    json_t *arr = NULL;
    if (out) {
        mech_check_keys(c, out, "/outputs", s_output_keys, NULL, NULL);
        double iv;
        if (mech_num_key(c, out, "/outputs", "interval", MECH_POS, 0, &iv) == 1) {
            if (c->t_end > 0 && iv > c->t_end)
                mech_err(c, "/outputs/interval", "'interval' (%g s) must not exceed t_end "
                         "(%g s)", iv, c->t_end);
            else if (c->t_end > 0 && !(c->t_end / iv <= MBS_SAMPLES_MAX))
                mech_err(c, "/outputs/interval", "'interval' (%g s) gives %.3g output samples over t_end (%g s); "
                         "at most %d: a longer interval", iv, c->t_end / iv, c->t_end, MBS_SAMPLES_MAX);
            else
                s->out_interval = iv;
        }
        arr = json_object_get(out, "channels");
    }
    if (!arr) {
        s_default_channels(c);
        return;
    }
    long n = mech_array(c, arr, "/outputs/channels", "an array of channels");
    if (n <= 0)
        return;
    s->channels = calloc((size_t)n, sizeof *s->channels);
    if (!s->channels) {
        mech_err(c, "/outputs/channels", "out of memory");
        return;
    }
    s->nchannel = (int)n;
    mech_map names = {0};
    for (long i = 0; i < n; i++) {
        char ptr[MECH_PTR_MAX];
        mech_ptr_idx(ptr, "/outputs/channels", (size_t)i);
        s_channel(c, json_array_get(arr, (size_t)i), ptr, (int)i, &names, &s->channels[i]);
    }
    mech_map_free(&names);
}
