/*
 * mechanism_int.h - internals shared by the mechanism parser's files
 * (mechanism.c: entry, overrides, parameters, solver; mechanism_util.c:
 * errors, pointers, names, numbers, expressions; mechanism_model.c: bodies,
 * joints; mechanism_forces.c: force elements, drivers; mechanism_contacts.c:
 * contact shapes and pairs; mechanism_fn.c: functions of time;
 * mechanism_out.c: outputs).  Not a public interface.
 */
#ifndef MECHANISM_INT_H
#define MECHANISM_INT_H

#include <jansson.h>
#include <stddef.h>

#include "mbs/model/expr.h"
#include "mbs/model/spec.h"
#include "mechanism/mechanism.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define MECH_PTR_MAX 512  /* JSON pointers are built in buffers this long      */

/* A string -> index hash map (open addressing).  Keys are borrowed: they
 * point into the JSON document, which outlives the map. */
typedef struct {
    const char **key;
    int *val;
    size_t cap, n;
} mech_map;

/* Insert key -> val.  Returns -1 when inserted, the existing value when the
 * key is already there (nothing changes), -2 when out of memory. */
int mech_map_put(mech_map *m, const char *key, int val);
/* The value of key, or -1. */
int mech_map_get(const mech_map *m, const char *key);
void mech_map_free(mech_map *m);

/* State of one parameter while parameters are being evaluated. */
enum { MECH_P_PENDING = 0, MECH_P_DONE, MECH_P_FAILED };

/* Everything the parser carries around. */
typedef struct {
    mbs_errlist *err;
    int nerr;                 /* errors found (also those the list dropped)     */
    char prefix[96];          /* prepended to messages (override origin)        */
    mbs_spec *spec;
    int dim;                  /* 2 or 3 (a guess when "dimension" is invalid)   */
    double t_end;             /* 0 while unknown                                 */

    /* parameters, in document order */
    int nparam;
    const char **pname;
    json_t **pjson;
    double *pval;
    int *pstate;              /* MECH_P_*                                        */
    int *poverride;           /* index+1 of the override that set it, 0 if none  */
    mech_map params;
    int bad_ref;              /* a lookup hit a parameter that failed          */
    char unknown_param[64];   /* last name a lookup did not find                */

    mech_map bodies, joints, forces, ctrls;
    int *force_doc_to_spec;   /* "forces" entry -> spec->forces index or -1    */
    int nforce_doc;
    int *joint_driven;        /* per joint: driver index + 1, 0 if none         */
    int *joint_damped;        /* per joint: "forces" entry + 1 of joint_damping */
    int gravity_given;        /* top-level "gravity" present                    */
    int integrator_named;     /* the document (or an override) names solver.integrator;
                                 when not, a feature that needs a nonsmooth
                                 integrator selects it                        */
} mech_ctx;

/* ---- errors and pointers ------------------------------------------------------ */

/* Report an error at `ptr` (ctx->prefix is prepended). */
void mech_err(mech_ctx *c, const char *ptr, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* out = base + "/" + escaped key (RFC 6901), or base + "/" + index. */
void mech_ptr_key(char *out, const char *base, const char *key);
void mech_ptr_idx(char *out, const char *base, size_t i);

/* Name of a JSON value's type for messages ("a string", "an array", ...). */
const char *mech_type_name(const json_t *v);

/* Copy at most max bytes of src into buf (size > max + 3) for a message:
 * control characters become '?', "..." marks a cut.  Returns buf. */
const char *mech_clip(char *buf, size_t size, const char *src, size_t max);

/* 1 when key is in the NULL-terminated list. */
int mech_in_list(const char *key, const char *const *list);

/* Report every key of `obj` not in the NULL-terminated `allowed` list;
 * `why` (may be NULL) explains keys that are known elsewhere but do not
 * apply here: a key in `known` (NULL-terminated, may be NULL) gets "key 'k'
 * does not apply <why>".  Returns the number of errors. */
int mech_check_keys(mech_ctx *c, json_t *obj, const char *ptr, const char *const *allowed,
                    const char *const *known, const char *why);

/* Closest of `cands` (NULL-terminated) within edit distance 2 of `word`, or NULL. */
const char *mech_suggest(const char *word, const char *const *cands);
/* Same over the names of a map (only searched when it is small). */
const char *mech_suggest_map(const char *word, const mech_map *m);

/* ---- values --------------------------------------------------------------------- */

/* Flags of mech_num_key. */
enum {
    MECH_REQ = 1,     /* key required                                           */
    MECH_POS = 2,     /* > 0                                                    */
    MECH_NONNEG = 4,  /* >= 0                                                   */
    MECH_INT = 8      /* an integer                                             */
};

/* Evaluate a numeric value: a JSON number, "$name" or "=expression" (no t).
 * Returns 0, or -1 after reporting the error at `ptr`. */
int mech_num(mech_ctx *c, json_t *v, const char *ptr, double *out);

/* Read obj[key] as a number with the checks in `flags`; absent -> `def`
 * (or an error when MECH_REQ).  Returns 1 when read, 0 when absent, -1 on
 * error (reported). */
int mech_num_key(mech_ctx *c, json_t *obj, const char *optr, const char *key, int flags,
                 double def, double *out);

/* Read an array of exactly n numbers (`what` names it in messages, e.g.
 * "a point [x, y]").  Returns 0 or -1 (reported). */
int mech_vec(mech_ctx *c, json_t *v, const char *ptr, int n, const char *what, double *out);

/* Check an array's type and length limit; returns its size or -1 (reported). */
long mech_array(mech_ctx *c, json_t *v, const char *ptr, const char *what);

/* A name value: a non-empty string of at most MBS_NAME_MAX-1 bytes without
 * control characters, quotes or commas.  Copies it into out (may be NULL).
 * Returns 0 or -1 (reported). */
int mech_name(mech_ctx *c, json_t *v, const char *ptr, char *out, size_t size);

/* Compile a "=" expression (text after '=') against the parameters; reports
 * errors at ptr.  allow_t: time functions.  Returns NULL on error. */
mbs_expr *mech_compile(mech_ctx *c, const char *text, int allow_t, const char *ptr);

/* Check that an expression of t is finite over [0, t_end] (sampled). */
int mech_check_finite_t(mech_ctx *c, const mbs_expr *e, const char *ptr);

/* Report a failed compilation of `text` with the compiler's message. */
void mech_report_compile(mech_ctx *c, const char *ptr, const char *text, const char *msg);

/* Report that the expression `text` evaluated to the non-finite v. */
void mech_not_finite(mech_ctx *c, const char *ptr, const char *text, double v);

/* 1 when s is a parameter name [A-Za-z_][A-Za-z0-9_]*. */
int mech_is_ident(const char *s);

/* ---- references (mechanism_model.c) ----------------------------------------------- */

/* Read a point of the mechanism's dimension into p[3] (z = 0 in 2-D). */
int mech_point(mech_ctx *c, json_t *v, const char *ptr, double p[3]);

/* A body reference: a name from "bodies", or "ground" when allowed.
 * Returns 0 with *idx (MBS_GROUND for ground) or -1 (reported). */
int mech_body_ref(mech_ctx *c, json_t *v, const char *ptr, int allow_ground, int *idx);

/* obj["bodies"]: two different body references (one may be ground); `what`
 * names the element in messages ("a joint").  Returns 0 or -1. */
int mech_body_pair(mech_ctx *c, json_t *obj, const char *optr, const char *what, int body[2]);

/* obj[key] as a joint name.  Returns the joint index or -1 (reported). */
int mech_joint_ref(mech_ctx *c, json_t *obj, const char *optr, const char *key);

/* The type of joint j; MBS_JOINT_NTYPES when its definition failed. */
mbs_joint_type mech_joint_type(mech_ctx *c, int j);

/* Register a unique name of a section ("bodies", what = "body"); reports
 * duplicates.  Returns 0 or -1. */
int mech_register(mech_ctx *c, mech_map *m, const char *name, int idx, const char *ptr,
                  const char *section, const char *what);

/* The required "name" of entry idx of a section (object obj at ptr) into
 * out (size bytes): checked by mech_name and registered in m (duplicates
 * reported as by mech_register).  With ground_msg, the name "ground" is
 * refused with that message. */
void mech_entry_name(mech_ctx *c, json_t *obj, const char *ptr, int idx, char *out, size_t size,
                     mech_map *m, const char *section, const char *what, const char *ground_msg);

/* ---- sections --------------------------------------------------------------------- */

/* Function of time (object, number, "$p", "=expr").  Returns 0 or -1. */
int mech_fn(mech_ctx *c, json_t *v, const char *ptr, mbs_fn *out);
/* A constant function with value v (allocates c[1]).  Returns 0 or -1. */
int mech_fn_constant(mech_ctx *c, mbs_fn *out, double v, const char *ptr);

void mech_parse_bodies(mech_ctx *c, json_t *root);
void mech_parse_joints(mech_ctx *c, json_t *root);
void mech_parse_forces(mech_ctx *c, json_t *root);
void mech_parse_drivers(mech_ctx *c, json_t *root);
/* "shapes" and "contacts" (groups expanded into pairs). */
void mech_parse_contacts(mech_ctx *c, json_t *root);
/* Impact-model clearance joints into corner/wall shapes and rigid contacts
 * (mechanism_clearance.c); after the contacts section. */
void mech_expand_clearance(mech_ctx *c);
void mech_parse_outputs(mech_ctx *c, json_t *root);
/* The measured signal of controller `self` (mechanism_out.c): the keys of
 * an output channel of a state quantity (dynamics/quantity.h), no name. */
void mech_measure(mech_ctx *c, json_t *obj, const char *ptr, int self, mbs_channel_spec *ch);
/* The controller whose output a measured motor or joint_actuator quantity
 * depends on (through the voltage or the value it sets), or -1. */
int mech_measure_via_ctrl(const mbs_spec *s, const mbs_channel_spec *ch);

/* ---- controllers (mechanism_ctrl.c) ------------------------------------------------ */

/* Their names (and spec->controllers, sized), before the forces that refer
 * to them. */
void mech_register_controllers(mech_ctx *c, json_t *root);
/* The rest of each, after the forces (their measured signals may name a
 * motor) and before the outputs. */
void mech_parse_controllers(mech_ctx *c, json_t *root);
/* {"controller": name} at ptr: the controller's index, or -1 (reported). */
int mech_ctrl_ref(mech_ctx *c, json_t *v, const char *ptr);

#endif
