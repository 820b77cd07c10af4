/*
 * api_poses.c - what a viewer needs to draw and animate a mechanism:
 *   GET /api/v1/jobs/{id}/poses      the job's geometry (the model with the
 *                                    job's parameters) and its stored body
 *                                    poses (table poses, sql/006_poses.sql)
 *   GET /api/v1/models/{id}/geometry the model's geometry with its default
 *                                    parameters (the mechanism at t = 0)
 *
 * Geometry is given as the mechanism format gives it: globally at t = 0
 * (bodies' centres of mass and orientations, joints with their type, point
 * and axis, spring end points, contact shapes), and what drives it
 * (actuators: drivers, DC motors and rotational springs by joint, point
 * forces and torques by body).  A viewer turns a point p of body b into body
 * coordinates once, R0^T (p - com0), and places it at every frame with the
 * body's pose: com(t) + R(t) R0^T (p - com0).  Drawing needs nothing more:
 * the default skeleton joins each body's centre of mass to its joint and
 * spring points; declared shapes are drawn as they are.  "forces" names
 * the output channels that hold a joint's reaction force in every
 * component, which a viewer draws as arrows from the job's samples;
 * "contacts" (with the frames, for models with contact pairs) the contact
 * forces at every frame, each at its point, for arrows too; "loads" (with
 * the frames, for models with force or torque elements) their values at
 * the frame times.
 */
#include "gw.h"
#include "mechanism/mechanism.h"
#include "svc/db.h"
#include "svc/job.h"
#include "svc/msg.h"
#include "mbs/mbs.h"

#include <stdlib.h>
#include <string.h>

static const char *const s_joint_types[] = { "revolute", "prismatic", "spherical", "universal",
                                             "cylindrical", "fixed", "distance" };
static const char *const s_shape_kinds[] = { "point", "circle", "segment", "line", "sphere",
                                             "plane", "box", "capsule" };

/* A vector of the dimension's length. */
static json_t *s_vec(const double *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++) json_array_append_new(a, json_real(v[i]));
    return a;
}

/* The forces a viewer can draw as arrows from the job's own samples: per
 * joint whose reaction_force the outputs declare in every component (x, y,
 * and z in 3-D), {kind: "reaction_force", joint: index, name, channels:
 * {x, y(, z)}}: the reaction on the joint's second body at the joint point
 * (mbs_quantity), in the order of the joints. */
static json_t *s_forces(const mbs_spec *sp)
{
    json_t *out = json_array();
    static const char *const comp[3] = { "x", "y", "z" };
    for (int k = 0; k < sp->njoint; k++) {
        const char *name[3] = { NULL, NULL, NULL };
        for (int c = 0; c < sp->nchannel; c++) {
            const mbs_channel_spec *ch = &sp->channels[c];
            if (ch->quantity == MBS_Q_REACTION_FORCE && ch->joint == k && (int)ch->component < sp->dim &&
                !name[ch->component])
                name[ch->component] = ch->name;
        }
        if (!name[0] || !name[1] || (sp->dim == 3 && !name[2])) continue;
        json_t *chs = json_object();
        for (int i = 0; i < sp->dim; i++) json_object_set_new(chs, comp[i], json_string(name[i]));
        json_array_append_new(out, json_pack("{s:s,s:i,s:s,s:o}", "kind", "reaction_force", "joint", k,
                                             "name", sp->joints[k].name, "channels", chs));
    }
    /* a DC motor's torque on its joint, where a `motor` channel declares it
       (it depends on the state: the job's samples hold it) */
    for (int k = 0; k < sp->nforce; k++) {
        if (sp->forces[k].type != MBS_FORCE_DC_MOTOR) continue;
        for (int c = 0; c < sp->nchannel; c++) {
            const mbs_channel_spec *ch = &sp->channels[c];
            if (ch->quantity != MBS_Q_MOTOR || ch->element != k || ch->component != MBS_C_TORQUE) continue;
            json_array_append_new(out, json_pack("{s:s,s:i,s:s,s:{s:s}}", "kind", "motor_torque",
                                                 "joint", sp->forces[k].joint, "name", sp->forces[k].name,
                                                 "channels", "torque", ch->name));
            break;
        }
    }
    return out;
}

/* The drawing geometry of a spec (see the file comment); new JSON. */
static json_t *s_geometry(const mbs_spec *sp)
{
    int dim = sp->dim;
    json_t *bodies = json_array(), *joints = json_array(), *springs = json_array(), *shapes = json_array();
    json_t *actuators = json_array();
    for (int b = 0; b < sp->nbody; b++) {
        const mbs_body_spec *bd = &sp->bodies[b];
        json_t *o = json_pack("{s:s,s:o}", "name", bd->name, "com", s_vec(bd->com, dim));
        if (dim == 3) json_object_set_new(o, "quat", s_vec(bd->quat, 4));
        else json_object_set_new(o, "angle", json_real(bd->angle));
        json_array_append_new(bodies, o);
    }
    for (int k = 0; k < sp->njoint; k++) {
        const mbs_joint_spec *j = &sp->joints[k];
        const char *type = (unsigned)j->type < sizeof s_joint_types / sizeof *s_joint_types ? s_joint_types[j->type] : "";
        json_t *o = json_pack("{s:s,s:s,s:[i,i]}", "name", j->name, "type", type, "bodies", j->body[0], j->body[1]);
        /* a distance joint is a rod between two points, the others have one point */
        if (j->type == MBS_JOINT_DISTANCE)
            json_object_set_new(o, "points", json_pack("[o,o]", s_vec(j->points[0], dim), s_vec(j->points[1], dim)));
        else json_object_set_new(o, "at", s_vec(j->at, dim));
        /* the axis a viewer draws the joint along (global, t = 0): a 2-D
           revolute turns about z, which needs none */
        if (j->type == MBS_JOINT_PRISMATIC || j->type == MBS_JOINT_CYLINDRICAL || (j->type == MBS_JOINT_REVOLUTE && dim == 3))
            json_object_set_new(o, "axis", s_vec(j->axis, dim));
        if (j->type == MBS_JOINT_UNIVERSAL)
            json_object_set_new(o, "axes", json_pack("[o,o]", s_vec(j->axes[0], 3), s_vec(j->axes[1], 3)));
        json_array_append_new(joints, o);
    }
    /* what drives the mechanism: drivers (a joint's motion prescribed),
       DC motors and rotational springs on joints, forces and torques on
       bodies (their values at the frames: s_loads) */
    for (int k = 0; k < sp->ndriver; k++)
        json_array_append_new(actuators, json_pack("{s:s,s:s,s:i}", "name", sp->joints[sp->drivers[k].joint].name,
                                                   "kind", "driver", "joint", sp->drivers[k].joint));
    for (int k = 0; k < sp->nforce; k++) {
        const mbs_force_spec *f = &sp->forces[k];
        if (f->type == MBS_FORCE_DC_MOTOR || f->type == MBS_FORCE_ROTATIONAL_SPRING_DAMPER)
            json_array_append_new(actuators, json_pack("{s:s,s:s,s:i}", "name", f->name, "kind",
                                                       f->type == MBS_FORCE_DC_MOTOR ? "dc_motor" : "rotational_spring_damper",
                                                       "joint", f->joint));
        else if (f->type == MBS_FORCE_POINT_FORCE)
            json_array_append_new(actuators, json_pack("{s:s,s:s,s:i,s:o}", "name", f->name, "kind", "force",
                                                       "body", f->body[0], "at", s_vec(f->at, dim)));
        else if (f->type == MBS_FORCE_TORQUE)
            json_array_append_new(actuators, json_pack("{s:s,s:s,s:i}", "name", f->name, "kind", "torque", "body", f->body[0]));
    }
    for (int k = 0; k < sp->nforce; k++) {
        const mbs_force_spec *f = &sp->forces[k];
        if (f->type != MBS_FORCE_SPRING_DAMPER) continue;
        json_array_append_new(springs, json_pack("{s:s,s:[i,i],s:[o,o]}", "name", f->name, "bodies", f->body[0],
                                                 f->body[1], "points", s_vec(f->points[0], dim),
                                                 s_vec(f->points[1], dim)));
    }
    for (int k = 0; k < sp->nshape; k++) {
        const mbs_shape_spec *s = &sp->shapes[k];
        const char *kind = (unsigned)s->kind < sizeof s_shape_kinds / sizeof *s_shape_kinds ? s_shape_kinds[s->kind] : "";
        json_t *o = json_pack("{s:s,s:i,s:s,s:o}", "name", s->name, "body", s->body, "kind", kind, "p", s_vec(s->p, dim));
        /* only the fields the kind uses (mbs_shape_spec) */
        if (s->kind == MBS_SHAPE_SPEC_SEGMENT || s->kind == MBS_SHAPE_SPEC_CAPSULE || s->kind == MBS_SHAPE_SPEC_LINE ||
            s->kind == MBS_SHAPE_SPEC_PLANE)
            json_object_set_new(o, "q", s_vec(s->q, dim));
        if (s->kind == MBS_SHAPE_SPEC_CIRCLE || s->kind == MBS_SHAPE_SPEC_SPHERE || s->kind == MBS_SHAPE_SPEC_CAPSULE)
            json_object_set_new(o, "radius", json_real(s->radius));
        if (s->kind == MBS_SHAPE_SPEC_BOX) {
            json_object_set_new(o, "half", s_vec(s->half, 3));
            json_object_set_new(o, "quat", s_vec(s->quat, 4));
        }
        json_array_append_new(shapes, o);
    }
    return json_pack("{s:i,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "dimension", dim, "gravity", s_vec(sp->gravity, dim),
                     "bodies", bodies, "joints", joints, "springs", springs, "shapes", shapes, "actuators", actuators,
                     "forces", s_forces(sp));
}

/* The applied loads at the frame times (a JSON array of numbers): every
 * force and torque element (their values are functions of time, evaluated
 * here as the solver does), as [{actuator (index in the geometry's
 * actuators), kind "force"|"torque", name, body, frame "body"|"world"
 * (the components' axes: the body's, which turn with it, or the world's),
 * values: per frame the components (force: dim; torque: 1 in 2-D, 3 in
 * 3-D)}]; and every joint actuator driven by a function of time as
 * {kind "joint_actuator", name, joint, values: per frame [its torque or
 * force]}.  DC motors' torques depend on the state and are not among them
 * (a model's `motor` channels hold them), nor controlled joint actuators. */
static json_t *s_loads(const mbs_spec *sp, const json_t *times)
{
    json_t *out = json_array();
    int act = sp->ndriver;    /* the geometry's actuators: drivers first */
    for (int k = 0; k < sp->nforce; k++) {
        const mbs_force_spec *f = &sp->forces[k];
        int shown = f->type == MBS_FORCE_DC_MOTOR || f->type == MBS_FORCE_ROTATIONAL_SPRING_DAMPER ||
                    f->type == MBS_FORCE_POINT_FORCE || f->type == MBS_FORCE_TORQUE;
        if (f->type == MBS_FORCE_POINT_FORCE || f->type == MBS_FORCE_TORQUE) {
            int ncomp = f->type == MBS_FORCE_POINT_FORCE ? sp->dim : sp->dim == 3 ? 3 : 1;
            json_t *values = json_array();
            size_t i; json_t *t;
            json_array_foreach(times, i, t) {
                json_t *row = json_array();
                for (int c = 0; c < ncomp; c++)
                    json_array_append_new(row, json_real(mbs_fn_eval(&f->value[c], json_number_value(t), NULL, NULL)));
                json_array_append_new(values, row);
            }
            json_array_append_new(out, json_pack("{s:i,s:s,s:s,s:i,s:s,s:o}", "actuator", act,
                                                 "kind", f->type == MBS_FORCE_POINT_FORCE ? "force" : "torque",
                                                 "name", f->name, "body", f->body[0],
                                                 "frame", f->body_frame ? "body" : "world", "values", values));
        } else if (f->type == MBS_FORCE_JOINT_ACTUATOR && !f->ctrl && f->joint >= 0) {
            /* a joint actuator driven by a function of time: its torque
               (revolute) or force (prismatic) on the joint's second body,
               positive driving the joint coordinate up */
            json_t *values = json_array();
            size_t i; json_t *t;
            json_array_foreach(times, i, t)
                json_array_append_new(values, json_pack("[f]", mbs_fn_eval(&f->value[0], json_number_value(t), NULL, NULL)));
            json_array_append_new(out, json_pack("{s:s,s:s,s:i,s:o}", "kind", "joint_actuator", "name", f->name,
                                                 "joint", f->joint, "values", values));
        }
        act += shown;
    }
    return out;
}

/* Parse a definition with overrides (JSON objects, may be NULL) into its
 * geometry; NULL with the reply set when it does not parse.  With times
 * (the job's frame times) and loads, *loads takes the applied loads at
 * those times (s_loads). */
static json_t *s_geometry_of(gw_req *r, const char *def, size_t len, json_t *params, json_t *solver,
                             const json_t *times, json_t **loads)
{
    job_overrides ov;
    mbs_errlist *el = calloc(1, sizeof *el);
    if (!el) { gw_reply_error(r, 503, "unavailable", "out of memory", NULL); return NULL; }
    job_overrides_build(params, solver, &ov);
    mbs_spec *sp = mech_parse(def, len, ov.ov, ov.n, el);
    job_overrides_free(&ov);
    if (!sp) {
        json_t *details = json_array();
        for (int i = 0; i < el->n; i++)
            json_array_append_new(details, json_pack("{s:s,s:s}", "pointer", el->e[i].pointer, "message", el->e[i].message));
        free(el);
        gw_reply_error(r, 422, "invalid_mechanism", "the stored model does not parse with these parameters", details);
        return NULL;
    }
    free(el);
    json_t *g = s_geometry(sp);
    if (times && loads) *loads = s_loads(sp, times);
    mbs_spec_free(&sp);
    return g;
}

int api_models_geometry(gw_req *r)
{
    if (!gw_is_model_id(r->param[0])) return gw_reply_error(r, 404, "not_found", "no such model", NULL);
    const char *p[] = { r->param[0] };
    PGconn **db = gw_db();
    if (!db) return gw_reply_db_error(r, NULL);
    PGresult *res = db_exec(db, "SELECT definition::text FROM models WHERE id = $1", 1, p);
    if (!db_ok(res)) { gw_reply_db_error(r, res); PQclear(res); return 0; }
    if (PQntuples(res) == 0) { PQclear(res); return gw_reply_error(r, 404, "not_found", "no such model", NULL); }
    json_t *g = s_geometry_of(r, PQgetvalue(res, 0, 0), (size_t)PQgetlength(res, 0, 0), NULL, NULL, NULL, NULL);
    PQclear(res);
    if (!g) return 0;
    return gw_reply_json(r, 200, json_pack("{s:s,s:o}", "model", r->param[0], "geometry", g));
}

/* The stored frames as {bodies, npose, nframe, times, frames} (frames: one
 * flat array of nbody x npose values per frame); empty when the job has
 * none (not done yet, or run by a worker that sends no poses). */
static json_t *s_frames(PGresult *res)
{
    json_t *bodies = json_array(), *times = json_array(), *frames = json_array();
    int npose = 0;
    long nframe = 0;
    if (!PQgetisnull(res, 0, 3)) {
        json_t *b = json_loadb(PQgetvalue(res, 0, 3), (size_t)PQgetlength(res, 0, 3), 0, NULL);
        if (json_is_array(b)) json_array_extend(bodies, b);
        json_decref(b);
        npose = atoi(PQgetvalue(res, 0, 4));
        nframe = strtol(PQgetvalue(res, 0, 5), NULL, 10);
        size_t per = 1 + json_array_size(bodies) * (size_t)npose;
        /* a blob shorter than announced is served as no frames */
        if (nframe < 0 || (size_t)PQgetlength(res, 0, 6) < (size_t)nframe * per * 8) nframe = 0;
        double *v = malloc(sizeof(double) * ((size_t)nframe * per + 1));
        if (!v) nframe = 0;
        else msg_get_f64le(v, (const unsigned char *)PQgetvalue(res, 0, 6), (size_t)nframe * per);
        for (long f = 0; f < nframe; f++) {
            json_array_append_new(times, json_real(v[f * per]));
            json_t *row = json_array();
            for (size_t i = 1; i < per; i++) json_array_append_new(row, json_real(v[f * per + i]));
            json_array_append_new(frames, row);
        }
        free(v);
    }
    return json_pack("{s:o,s:i,s:I,s:o,s:o}", "bodies", bodies, "npose", npose, "nframe", (json_int_t)nframe,
                     "times", times, "frames", frames);
}

/* The stored contact points (sql/014_contacts.sql) as {nframe, limit, points}
 * (limit: the most points a job keeps, MBS_CONTACT_RECS_MAX):
 * points holds, per frame of the first nframe, the list of its touching
 * points, each {pair, body, other, at, force} (vectors of the dimension's length);
 * NULL when the job has none stored (a model without contacts, or an older
 * result).  Records out of order or out of range are dropped. */
static json_t *s_contacts(PGresult *res, long nframe, int dim)
{
    if (PQgetisnull(res, 0, 7) || PQgetisnull(res, 0, 8)) return NULL;
    long cnf = strtol(PQgetvalue(res, 0, 7), NULL, 10);
    if (cnf < 0 || cnf > nframe) cnf = 0;
    size_t nrec = (size_t)PQgetlength(res, 0, 8) / (8 * MBS_CONTACT_REC);
    double *v = malloc(sizeof(double) * (nrec * MBS_CONTACT_REC + 1));
    json_t *points = json_array();
    if (!v) nrec = 0;
    else msg_get_f64le(v, (const unsigned char *)PQgetvalue(res, 0, 8), nrec * MBS_CONTACT_REC);
    for (long f = 0; f < cnf; f++) json_array_append_new(points, json_array());
    for (size_t i = 0; i < nrec; i++) {
        const double *r = v + i * MBS_CONTACT_REC;
        long f = (long)r[0];
        if (!(r[0] >= 0) || f >= cnf) continue;
        json_array_append_new(json_array_get(points, (size_t)f),
                              json_pack("{s:i,s:i,s:i,s:o,s:o}", "pair", (int)r[1], "body", (int)r[2],
                                        "other", (int)r[3], "at", s_vec(r + 4, dim), "force", s_vec(r + 7, dim)));
    }
    free(v);
    return json_pack("{s:I,s:I,s:o}", "nframe", (json_int_t)cnf, "limit", (json_int_t)MBS_CONTACT_RECS_MAX,
                     "points", points);
}

int api_jobs_poses(gw_req *r)
{
    if (!gw_is_job_id(r->param[0])) return gw_reply_error(r, 404, "not_found", "no such job", NULL);
    const char *p[] = { r->param[0] };
    PGconn **db = gw_db();
    if (!db) return gw_reply_db_error(r, NULL);
    /* binary result format: text columns as their bytes, the frames raw */
    PGresult *res = db_execb(db,
        "SELECT m.definition::text, j.parameters::text, j.solver_overrides::text, "
        "       array_to_json(p.bodies)::text, p.npose::text, p.nframe::text, p.frames, "
        "       p.contact_frames::text, p.contacts "
        "FROM jobs j JOIN sweeps s ON s.id = j.sweep_id JOIN models m ON m.id = s.model_id "
        "LEFT JOIN poses p ON p.job_id = j.id WHERE j.id = $1::bigint", 1, p, NULL, NULL, 1);
    if (!db_ok(res)) { gw_reply_db_error(r, res); PQclear(res); return 0; }
    if (PQntuples(res) == 0) { PQclear(res); return gw_reply_error(r, 404, "not_found", "no such job", NULL); }
    json_t *params = json_loadb(PQgetvalue(res, 0, 1), (size_t)PQgetlength(res, 0, 1), 0, NULL);
    json_t *solver = json_loadb(PQgetvalue(res, 0, 2), (size_t)PQgetlength(res, 0, 2), 0, NULL);
    json_t *out = s_frames(res), *loads = NULL;
    json_t *g = s_geometry_of(r, PQgetvalue(res, 0, 0), (size_t)PQgetlength(res, 0, 0), params, solver,
                              json_object_get(out, "times"), &loads);
    json_decref(params); json_decref(solver);
    if (!g) { PQclear(res); json_decref(out); return 0; }
    if (loads && json_array_size(loads)) json_object_set_new(out, "loads", loads);
    else json_decref(loads);
    json_t *cs = s_contacts(res, (long)json_integer_value(json_object_get(out, "nframe")),
                            (int)json_integer_value(json_object_get(g, "dimension")));
    if (cs) json_object_set_new(out, "contacts", cs);
    PQclear(res);
    json_object_set_new(out, "job", json_integer(strtoll(r->param[0], NULL, 10)));
    json_object_set_new(out, "geometry", g);
    return gw_reply_json(r, 200, out);
}
