/*
 * mechanism_ctrl.c - the "controllers" section of the mechanism format
 * (issue 13, docs/mechanism-format.md): PID and linear (state-space or
 * transfer-function) controllers, continuous or sampled, measuring a state
 * quantity, their output the supply voltage of the dc_motors that name
 * them ("voltage": {"controller": name}).
 */
#include "mechanism/mechanism_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const s_types[] = {"pid", "lti", NULL};
static const char *const s_keys_pid[] = {"name", "type", "measure", "setpoint", "feedforward", "sample_period",
                                         "kp", "ki", "kd", "tf", "y_min", "y_max", "tt", NULL};
static const char *const s_keys_lti[] = {"name", "type", "measure", "setpoint", "feedforward", "sample_period",
                                         "A", "B", "C", "D", "num", "den", NULL};
static const char *const s_keys_all[] = {"name", "type", "measure", "setpoint", "feedforward", "sample_period",
                                         "kp", "ki", "kd", "tf", "y_min", "y_max", "tt", "A", "B", "C", "D",
                                         "num", "den", NULL};

void mech_register_controllers(mech_ctx *c, json_t *root)
{
    json_t *arr = json_object_get(root, "controllers");
    if (!arr) return;
    long n = mech_array(c, arr, "/controllers", "an array of controllers");
    if (n <= 0) return;
    c->spec->controllers = calloc((size_t)n, sizeof *c->spec->controllers);
    if (!c->spec->controllers) {
        mech_err(c, "/controllers", "out of memory");
        return;
    }
    c->spec->nctrl = (int)n;
    for (long i = 0; i < n; i++) {
        char ptr[MECH_PTR_MAX];
        mech_ptr_idx(ptr, "/controllers", (size_t)i);
        json_t *obj = json_array_get(arr, (size_t)i);
        mbs_ctrl_spec *C = &c->spec->controllers[i];
        C->measure.body = C->measure.joint = C->measure.element = -1;
        if (!json_is_object(obj)) {
            mech_err(c, ptr, "expected a controller (an object), got %s", mech_type_name(obj));
            continue;
        }
        mech_entry_name(c, obj, ptr, (int)i, C->name, sizeof C->name, &c->ctrls, "controllers", "controller", NULL);
    }
}

int mech_ctrl_ref(mech_ctx *c, json_t *v, const char *ptr)
{
    char kp[MECH_PTR_MAX], b[48];
    json_t *name = json_object_get(v, "controller");
    mech_ptr_key(kp, ptr, "controller");
    if (json_object_size(v) != 1 || !name) {
        mech_err(c, ptr, "a controller reference is {\"controller\": name} and nothing else");
        return -1;
    }
    if (!json_is_string(name)) {
        mech_err(c, kp, "expected a controller's name (a string), got %s", mech_type_name(name));
        return -1;
    }
    int k = mech_map_get(&c->ctrls, json_string_value(name));
    if (k < 0) {
        const char *sug = mech_suggest_map(json_string_value(name), &c->ctrls);
        mech_clip(b, sizeof b, json_string_value(name), 40);
        mech_err(c, kp, "no controller named '%s'%s%s%s (controllers are listed in \"controllers\")", b,
                 sug ? "; did you mean '" : "", sug ? sug : "", sug ? "'?" : "");
    }
    return k;
}

/* An array of n numbers at obj[key] into out (n = -1: any length up to
 * max, its length returned through *len). 0 or -1 (reported). */
static int s_numbers(mech_ctx *c, json_t *obj, const char *ptr, const char *key, int max, double *out, int *len)
{
    char kp[MECH_PTR_MAX], ip[MECH_PTR_MAX];
    json_t *v = json_object_get(obj, key);
    mech_ptr_key(kp, ptr, key);
    if (!json_is_array(v) || json_array_size(v) < 1 || json_array_size(v) > (size_t)max) {
        mech_err(c, kp, "expected an array of 1 to %d numbers, got %s", max, mech_type_name(v));
        return -1;
    }
    *len = (int)json_array_size(v);
    int rc = 0;
    for (int k = 0; k < *len; k++) {
        mech_ptr_idx(ip, kp, (size_t)k);
        if (mech_num(c, json_array_get(v, (size_t)k), ip, &out[k])) rc = -1;
    }
    return rc;
}

/* A state-space block: A (n x n rows), B, C (n), D (a number). */
static void s_state_space(mech_ctx *c, json_t *obj, const char *ptr, mbs_lti *b)
{
    char kp[MECH_PTR_MAX], ip[MECH_PTR_MAX];
    json_t *A = json_object_get(obj, "A");
    mech_ptr_key(kp, ptr, "A");
    int n = json_is_array(A) ? (int)json_array_size(A) : -1;
    if (n < 1 || n > MBS_LTI_MAX) {
        mech_err(c, kp, "expected the state matrix as an array of 1 to %d rows, got %s", MBS_LTI_MAX,
                 mech_type_name(A));
        return;
    }
    b->n = n;
    for (int i = 0; i < n; i++) {
        mech_ptr_idx(ip, kp, (size_t)i);
        double row[MBS_LTI_MAX];
        if (mech_vec(c, json_array_get(A, (size_t)i), ip, n, "a row of n numbers", row) == 0)
            for (int j = 0; j < n; j++) b->A[i * MBS_LTI_MAX + j] = row[j];
    }
    int len;
    double v[MBS_LTI_MAX];
    for (int w = 0; w < 2; w++) {
        const char *key = w == 0 ? "B" : "C";
        if (s_numbers(c, obj, ptr, key, MBS_LTI_MAX, v, &len) == 0) {
            if (len != n) {
                mech_ptr_key(kp, ptr, key);
                mech_err(c, kp, "'%s' has %d entries; the state matrix A has %d states", key, len, n);
            } else {
                memcpy(w == 0 ? b->B : b->C, v, sizeof(double) * (size_t)n);
            }
        }
    }
    mech_num_key(c, obj, ptr, "D", 0, 0, &b->D);
}

static void s_controller(mech_ctx *c, json_t *obj, const char *ptr, int self, mbs_ctrl_spec *C)
{
    char kp[MECH_PTR_MAX], b[48];
    json_t *v = json_object_get(obj, "type");
    mech_ptr_key(kp, ptr, "type");
    const char *ts = json_string_value(v);
    int t = -1;
    for (int k = 0; ts && s_types[k]; k++)
        if (strcmp(ts, s_types[k]) == 0) t = k;
    if (!v) {
        mech_err(c, ptr, "missing required key 'type' (pid or lti)");
    } else if (t < 0) {
        mech_clip(b, sizeof b, ts ? ts : "", 40);
        if (ts) mech_err(c, kp, "unknown controller type '%s' (expected pid or lti)", b);
        else mech_err(c, kp, "expected a controller type (a string), got %s", mech_type_name(v));
    }
    if (t < 0) mech_check_keys(c, obj, ptr, s_keys_all, NULL, NULL);
    else mech_check_keys(c, obj, ptr, t == 0 ? s_keys_pid : s_keys_lti, s_keys_all,
                         t == 0 ? "to a pid controller" : "to an lti controller");
    /* the measured signal: the keys of an output channel, without a name */
    v = json_object_get(obj, "measure");
    mech_ptr_key(kp, ptr, "measure");
    if (!v) mech_err(c, ptr, "missing required key 'measure' (the measured signal: {\"quantity\": ..., and the "
                     "keys of an output channel of that quantity})");
    else mech_measure(c, v, kp, self, &C->measure);
    v = json_object_get(obj, "setpoint");
    mech_ptr_key(kp, ptr, "setpoint");
    if (!v) {
        mech_err(c, ptr, "missing required key 'setpoint' (a number, expression or function of time, or "
                 "{\"controller\": name})");
    } else if (json_is_object(v) && json_object_get(v, "controller")) {
        /* a cascade: another controller's output */
        int k = mech_ctrl_ref(c, v, kp);
        C->sp_ctrl = k >= 0 ? k + 1 : 0;
    } else {
        mech_fn(c, v, kp, &C->setpoint);
    }
    v = json_object_get(obj, "feedforward");
    mech_ptr_key(kp, ptr, "feedforward");
    if (v) mech_fn(c, v, kp, &C->feedforward);
    if (!C->setpoint.c && !C->setpoint.expr) mech_fn_constant(c, &C->setpoint, 0, ptr);
    if (!C->feedforward.c && !C->feedforward.expr) mech_fn_constant(c, &C->feedforward, 0, ptr);
    mech_num_key(c, obj, ptr, "sample_period", MECH_NONNEG, 0, &C->ts);
    if (t == 0) {
        mbs_pid *p = &C->pid;
        C->type = MBS_CTRL_PID;
        mech_num_key(c, obj, ptr, "kp", 0, 0, &p->kp);
        mech_num_key(c, obj, ptr, "ki", 0, 0, &p->ki);
        mech_num_key(c, obj, ptr, "kd", 0, 0, &p->kd);
        int has_tf = mech_num_key(c, obj, ptr, "tf", MECH_NONNEG, 0, &p->tf) == 1;
        mech_num_key(c, obj, ptr, "y_min", 0, -INFINITY, &p->y_min);
        mech_num_key(c, obj, ptr, "y_max", 0, INFINITY, &p->y_max);
        mech_num_key(c, obj, ptr, "tt", MECH_NONNEG, 0, &p->tt);
        p->ts = C->ts;
        if (p->kp == 0 && p->ki == 0 && p->kd == 0)
            mech_err(c, ptr, "a pid controller needs a gain: kp, ki or kd != 0");
        if (p->kd != 0 && !(p->tf > 0)) {
            mech_ptr_key(kp, ptr, "tf");
            mech_err(c, has_tf ? kp : ptr, "derivative action (kd = %g) needs a filter time constant 'tf' > 0 (an "
                     "unfiltered derivative is not realisable)", p->kd);
        }
        if (!(p->y_min < p->y_max)) {
            mech_ptr_key(kp, ptr, "y_min");
            mech_err(c, kp, "'y_min' (%g) must be below 'y_max' (%g)", p->y_min, p->y_max);
        }
        if (!c->nerr && mbs_pid_init(p)) mech_err(c, ptr, "invalid pid parameters");
    } else if (t == 1) {
        C->type = MBS_CTRL_LTI;
        int ss = json_object_get(obj, "A") || json_object_get(obj, "B") || json_object_get(obj, "C");
        int tf = json_object_get(obj, "num") || json_object_get(obj, "den");
        if (ss && tf) {
            mech_err(c, ptr, "give an lti controller either as a state space (A, B, C, D) or as a transfer function "
                     "(num, den), not both");
        } else if (tf) {
            double num[MBS_LTI_MAX + 1], den[MBS_LTI_MAX + 1];
            int nn = 0, nd = 0;
            int ok = s_numbers(c, obj, ptr, "num", MBS_LTI_MAX + 1, num, &nn) == 0;
            ok &= s_numbers(c, obj, ptr, "den", MBS_LTI_MAX + 1, den, &nd) == 0;
            if (ok && mbs_lti_from_tf(num, nn, den, nd, &C->lti)) {
                mech_ptr_key(kp, ptr, "den");
                mech_err(c, kp, "the transfer function must be proper (len(num) <= len(den)) with den[0] != 0");
            }
        } else if (ss) {
            s_state_space(c, obj, ptr, &C->lti);
        } else {
            mech_ptr_key(kp, ptr, "D");
            if (mech_num_key(c, obj, ptr, "D", 0, 0, &C->lti.D) != 1)
                mech_err(c, ptr, "an lti controller needs a state space (A, B, C, D) or a transfer function "
                         "(num, den)");
        }
    }
}

/* The deepest chain of controllers reading each other (the outputs are
 * evaluated along it, recursively, wherever they are read). */
#define S_CASCADE_MAX 16

/* The controllers controller C reads (-1: none): its setpoint's, its
 * measured signal's (a controller channel), and the one whose output a
 * measured motor or actuator quantity depends on. */
static void s_reads(const mbs_spec *s, const mbs_ctrl_spec *C, int r[3])
{
    r[0] = C->sp_ctrl - 1;
    r[1] = C->measure.quantity == MBS_Q_CONTROLLER ? C->measure.element : -1;
    r[2] = mech_measure_via_ctrl(s, &C->measure);
}

/* Depth of controller i (the longest chain it reads), by depth-first
 * search; state[i]: 0 unvisited, 1 on the path, 2 done.  A controller met
 * again on the path closes a cycle: an algebraic loop through the
 * controllers' outputs, refused at the reference that closes it.
 * Returns -1 after the error. */
static int s_depth(mech_ctx *c, int i, char *state, int level)
{
    mbs_ctrl_spec *C = &c->spec->controllers[i];
    if (state[i] == 2) return C->depth;
    if (level > S_CASCADE_MAX) {
        char ptr[MECH_PTR_MAX];
        mech_ptr_idx(ptr, "/controllers", (size_t)i);
        mech_err(c, ptr, "controllers read each other more than %d deep (a cascade of that many loops is not "
                 "supported)", S_CASCADE_MAX);
        return -1;
    }
    state[i] = 1;
    int r[3], depth = 0;
    s_reads(c->spec, C, r);
    for (int k = 0; k < 3; k++) {
        if (r[k] < 0) continue;
        if (state[r[k]] == 1) {
            char ptr[MECH_PTR_MAX], kp[MECH_PTR_MAX];
            mech_ptr_idx(ptr, "/controllers", (size_t)i);
            mech_ptr_key(kp, ptr, k == 0 ? "setpoint" : "measure");
            mech_ptr_key(ptr, kp, k == 2 ? "element" : "controller");
            mech_err(c, ptr, "controller '%s' reads controller '%s', which depends on '%s' in turn: a cycle of "
                     "controllers is an algebraic loop (cascade them one way only)", C->name,
                     c->spec->controllers[r[k]].name, C->name);
            return -1;
        }
        int dk = s_depth(c, r[k], state, level + 1);
        if (dk < 0) return -1;
        if (dk + 1 > depth) depth = dk + 1;
    }
    C->depth = depth;
    state[i] = 2;
    return depth;
}

/* Direct feed-through of controller C: its output moves with its error at
 * the same instant (a proportional or derivative gain, an lti's D != 0). */
static int s_feedthrough(const mbs_ctrl_spec *C)
{
    if (C->type == MBS_CTRL_PID) return C->pid.kp != 0 || C->pid.kd != 0;
    return C->lti.D != 0;
}

static int s_out_now(const mbs_spec *s, int k);

/* 1 when continuous controller k's error moves with a joint reaction at the
 * same instant: it measures one, or reads (its setpoint, a measured
 * controller channel, a motor quantity set by another controller's voltage)
 * something that does.  The cascades have no cycle (s_depth) here. */
static int s_err_now(const mbs_spec *s, int k)
{
    const mbs_ctrl_spec *C = &s->controllers[k];
    if (C->ts > 0) return 0;
    mbs_quantity q = C->measure.quantity;
    if (q == MBS_Q_REACTION_FORCE || q == MBS_Q_REACTION_TORQUE) return 1;
    if (C->sp_ctrl > 0 && s_out_now(s, C->sp_ctrl - 1)) return 1;
    if (q == MBS_Q_CONTROLLER) {
        int j = C->measure.element;
        mbs_component comp = C->measure.component;
        if (comp == MBS_C_OUTPUT && s_out_now(s, j)) return 1;
        if (comp != MBS_C_OUTPUT && comp != MBS_C_STATE && s_err_now(s, j)) return 1;
    }
    int j = mech_measure_via_ctrl(s, &C->measure);
    return j >= 0 && s_out_now(s, j);
}

/* 1 when continuous controller k's output moves with a joint reaction at
 * the same instant. */
static int s_out_now(const mbs_spec *s, int k)
{
    return s->controllers[k].ts == 0 && s_feedthrough(&s->controllers[k]) && s_err_now(s, k);
}

/* A joint reaction measured by a continuous controller is a function of
 * the state unless the output it moves at the same instant drives a force
 * at that instant (a joint_actuator, a dc_motor without inductance): the
 * reaction depends on the accelerations, which depend on that force (an
 * algebraic loop).  Through a motor's current (inductance > 0), an
 * integral-only controller or an lti block with D = 0 the output reaches
 * the mechanics through a state: no loop (run/measure.h).  A loop closed
 * by the measuring controller itself is marked (mbs_ctrl_spec.loop) and
 * solved at each state by the run, one per mechanism; through a cascade
 * (another controller between the reaction and the force) it is refused
 * at the measure of the controller that reads the reaction. */
static void s_reaction_loops(mech_ctx *c)
{
    mbs_spec *s = c->spec;
    for (int e = 0; e < s->nforce && !c->nerr; e++) {
        const mbs_force_spec *F = &s->forces[e];
        if (F->ctrl <= 0 || !(F->type == MBS_FORCE_JOINT_ACTUATOR || (F->type == MBS_FORCE_DC_MOTOR &&
                                                                    F->motor.L == 0)))
            continue;
        int k = F->ctrl - 1;
        if (!s_out_now(s, k)) continue;
        /* the controller that measures the reaction: k itself, or the first
         * one up its cascade */
        int r = k;
        for (int hop = 0; hop < S_CASCADE_MAX + 1; hop++) {
            mbs_quantity q = s->controllers[r].measure.quantity;
            if (q == MBS_Q_REACTION_FORCE || q == MBS_Q_REACTION_TORQUE) break;
            const mbs_ctrl_spec *R = &s->controllers[r];
            int nxt = R->sp_ctrl > 0 && s_out_now(s, R->sp_ctrl - 1) ? R->sp_ctrl - 1
                      : q == MBS_Q_CONTROLLER ? R->measure.element : mech_measure_via_ctrl(s, &R->measure);
            if (nxt < 0) break;
            r = nxt;
        }
        char ptr[MECH_PTR_MAX], kp[MECH_PTR_MAX];
        mech_ptr_idx(ptr, "/controllers", (size_t)r);
        mech_ptr_key(kp, ptr, "measure");
        mech_ptr_key(ptr, kp, "quantity");
        /* the controller measuring the reaction drives the force itself: the
         * loop is solved at each state (run/measure.h), one such controller
         * per mechanism */
        if (r == k) {
            int other = -1;
            for (int j = 0; j < s->nctrl; j++)
                if (j != k && s->controllers[j].loop) other = j;
            if (other < 0) {
                s->controllers[k].loop = 1;
                continue;
            }
            mech_err(c, ptr, "controller '%s' passes a joint reaction at once to %s '%s', as controller '%s' does: "
                     "one such algebraic loop per mechanism is solved (give one an inductance > 0, integral-only "
                     "control or a sample_period > 0)", s->controllers[k].name,
                     F->type == MBS_FORCE_JOINT_ACTUATOR ? "joint_actuator" : "dc_motor", F->name,
                     s->controllers[other].name);
            continue;
        }
        const char *what = F->type == MBS_FORCE_JOINT_ACTUATOR ? "joint_actuator" : "dc_motor";
        char via[96] = "";
        if (r != k) snprintf(via, sizeof via, " via '%s'", s->controllers[k].name);
        /* (within mbs_errlist's 256 characters with names of 32) */
        mech_err(c, ptr, "controller '%s' passes a joint reaction at once%s to %s '%s'%s: an algebraic loop (use an "
                 "inductance > 0, integral-only control or sample_period > 0)", s->controllers[r].name, via, what,
                 F->name, F->type == MBS_FORCE_DC_MOTOR ? " (inductance 0)" : "");
    }
}

void mech_parse_controllers(mech_ctx *c, json_t *root)
{
    json_t *arr = json_object_get(root, "controllers");
    if (!arr || !c->spec->controllers) return;
    for (int i = 0; i < c->spec->nctrl; i++) {
        char ptr[MECH_PTR_MAX];
        mech_ptr_idx(ptr, "/controllers", (size_t)i);
        json_t *obj = json_array_get(arr, (size_t)i);
        if (json_is_object(obj)) s_controller(c, obj, ptr, i, &c->spec->controllers[i]);
    }
    if (c->nerr) return;
    /* cascades: the order in which the controllers read each other */
    char *state = calloc((size_t)c->spec->nctrl, 1);
    if (!state) {
        mech_err(c, "/controllers", "out of memory");
        return;
    }
    for (int i = 0; i < c->spec->nctrl && s_depth(c, i, state, 0) >= 0; i++) {}
    free(state);
    if (!c->nerr) s_reaction_loops(c);
}
