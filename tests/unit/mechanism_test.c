/*
 * mechanism_test.c - tests of the mechanism parser (common/mechanism/):
 * valid planar and spatial mechanisms give the expected spec; a table of
 * invalid documents gives the expected JSON pointer and message; several
 * errors come out of one pass; overrides; hostile input.
 *
 * Documents are written with single quotes for readability (s_json turns
 * them into double quotes).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mbs/mbs.h"
#include "mbs/model/spec.h"
#include "mechanism/mechanism.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* Single quotes -> double quotes (caller frees). */
static char *s_json(const char *text)
{
    char *s = strdup(text);
    for (char *p = s; p && *p; p++)
        if (*p == '\'')
            *p = '"';
    return s;
}

/* Parse a single-quoted document with optional overrides. */
static mbs_spec *s_parse(const char *text, const mech_override *ov, int nov, mbs_errlist *el)
{
    char *doc = s_json(text);
    memset(el, 0, sizeof *el);
    mbs_spec *s = mech_parse(doc, strlen(doc), ov, nov, el);
    free(doc);
    return s;
}

static void s_print_errors(const mbs_errlist *el)
{
    for (int i = 0; i < el->n; i++)
        fprintf(stderr, "    [%s] %s\n", el->e[i].pointer, el->e[i].message);
}

/* 1 when an error has exactly this pointer and a message containing msg. */
static int s_has_error(const mbs_errlist *el, const char *ptr, const char *msg)
{
    for (int i = 0; i < el->n; i++)
        if (strcmp(el->e[i].pointer, ptr) == 0 && strstr(el->e[i].message, msg))
            return 1;
    return 0;
}

/* ---- valid mechanisms ---------------------------------------------------------------- */

static const char *s_fourbar =
    "{ 'name': 'four-bar', 'dimension': 2, 'gravity': [0, -9.81],"
    "  'description': 'a crank-rocker',"
    "  'parameters': { 'L': 1.0, 'half': '=$L/2', 'w': '=2*pi*$f', 'f': 0.5 },"
    "  'bodies': ["
    "    { 'name': 'crank', 'mass': 1, 'inertia': '=$L^2/12', 'com': [0, '$half'],"
    "      'angle': '=pi/2', 'angular_velocity': -1 },"
    "    { 'name': 'coupler', 'mass': 2, 'inertia': 0.1, 'com': [1, 1], 'velocity': [0.5, 0] },"
    "    { 'name': 'rocker', 'mass': 1.5, 'com': [2, 0.5] } ],"
    "  'joints': ["
    "    { 'name': 'A', 'type': 'revolute', 'bodies': ['ground', 'crank'], 'at': [0, 0] },"
    "    { 'name': 'B', 'type': 'revolute', 'bodies': ['crank', 'coupler'], 'at': [0, '$L'] },"
    "    { 'name': 'C', 'type': 'revolute', 'bodies': ['coupler', 'rocker'], 'at': [2, 1] },"
    "    { 'name': 'D', 'type': 'revolute', 'bodies': ['rocker', 'ground'], 'at': [2, 0] },"
    "    { 'name': 'S', 'type': 'prismatic', 'bodies': ['ground', 'rocker'], 'axis': [3, 4] } ],"
    "  'forces': ["
    "    { 'type': 'spring_damper', 'name': 'spring', 'bodies': ['ground', 'rocker'],"
    "      'points': [[3, 0], [2, 1]], 'stiffness': 100, 'damping': 1 },"
    "    { 'type': 'joint_damping', 'joint': 'D', 'coefficient': 0.5 },"
    "    { 'type': 'torque', 'name': 'motor', 'body': 'crank', 'value': '=0.1*sin($w*t)' },"
    "    { 'type': 'force', 'body': 'coupler', 'frame': 'body',"
    "      'value': [2, { 'kind': 'table', 'points': [[0, 0], [1, 2], [3, 0]],"
    "                    'interpolation': 'spline' }] },"
    "    { 'type': 'rotational_spring_damper', 'joint': 'C', 'stiffness': 5, 'free_angle': 0.1 } ],"
    "  'drivers': [ { 'joint': 'A', 'motion': { 'kind': 'harmonic', 'amplitude': 0.2,"
    "                                         'frequency': '$f' } } ],"
    "  'contacts': [],"
    "  'solver': { 'integrator': 'bdf', 't_end': 2, 'tolerance': 1e-8, 'max_order': 4,"
    "              'contact_deactivation': false },"
    "  'outputs': { 'interval': 0.01, 'channels': ["
    "    { 'name': 'xB', 'quantity': 'position', 'body': 'crank', 'point': [0, 1], 'component': 'x' },"
    "    { 'name': 'vC', 'quantity': 'velocity', 'body': 'coupler', 'component': 'magnitude' },"
    "    { 'name': 'phi', 'quantity': 'angle', 'body': 'rocker' },"
    "    { 'name': 'om', 'quantity': 'angular_velocity', 'body': 'rocker' },"
    "    { 'name': 'qA', 'quantity': 'joint_coordinate', 'joint': 'A' },"
    "    { 'name': 'FA', 'quantity': 'reaction_force', 'joint': 'A', 'component': 'y' },"
    "    { 'name': 'TA', 'quantity': 'reaction_torque', 'joint': 'A' },"
    "    { 'name': 'Fs', 'quantity': 'element_force', 'element': 'spring' },"
    "    { 'name': 'Fm', 'quantity': 'element_force', 'element': 2 },"
    "    { 'name': 'E', 'quantity': 'energy' },"
    "    { 'name': 'cv', 'quantity': 'constraint_violation' } ] } }";

static void test_fourbar(void)
{
    mbs_errlist el;
    mbs_spec *s = s_parse(s_fourbar, NULL, 0, &el);
    CHECK(s != NULL);
    CHECK(el.n == 0);
    if (!s) {
        s_print_errors(&el);
        return;
    }
    CHECK_STR(s->name, "four-bar");
    CHECK(s->dim == 2);
    CHECK_NEAR(s->gravity[1], -9.81, 0);
    CHECK_NEAR(s->gravity[2], 0, 0);

    /* bodies: values, expressions, defaults */
    CHECK(s->nbody == 3);
    CHECK_STR(s->bodies[0].name, "crank");
    CHECK_NEAR(s->bodies[0].mass, 1, 0);
    CHECK_NEAR(s->bodies[0].inertia[0], 1.0 / 12, 1e-15);
    CHECK_NEAR(s->bodies[0].com[1], 0.5, 0);
    CHECK_NEAR(s->bodies[0].com[2], 0, 0);
    CHECK_NEAR(s->bodies[0].angle, M_PI / 2, 1e-15);
    CHECK_NEAR(s->bodies[0].quat[0], cos(M_PI / 4), 1e-15);
    CHECK_NEAR(s->bodies[0].quat[3], sin(M_PI / 4), 1e-15);
    CHECK_NEAR(s->bodies[0].angular_velocity[2], -1, 0);
    CHECK_NEAR(s->bodies[1].velocity[0], 0.5, 0);
    CHECK_NEAR(s->bodies[2].inertia[0], 0, 0);
    CHECK_NEAR(s->bodies[2].angle, 0, 0);
    CHECK_NEAR(s->bodies[2].quat[0], 1, 0);

    /* joints: indices with ground, default point, normalised axis */
    CHECK(s->njoint == 5);
    CHECK(s->joints[0].type == MBS_JOINT_REVOLUTE);
    CHECK(s->joints[0].body[0] == MBS_GROUND && s->joints[0].body[1] == 0);
    CHECK(s->joints[1].body[0] == 0 && s->joints[1].body[1] == 1);
    CHECK_NEAR(s->joints[1].at[1], 1, 0);
    CHECK(s->joints[3].body[0] == 2 && s->joints[3].body[1] == MBS_GROUND);
    CHECK_NEAR(s->joints[3].damping, 0.5, 0);
    CHECK_NEAR(s->joints[0].damping, 0, 0);
    CHECK(s->joints[4].type == MBS_JOINT_PRISMATIC);
    CHECK_NEAR(s->joints[4].axis[0], 0.6, 1e-15);
    CHECK_NEAR(s->joints[4].axis[1], 0.8, 1e-15);
    CHECK_NEAR(s->joints[4].axis[2], 0, 0);
    CHECK_NEAR(s->joints[4].at[0], 2, 0); /* com of bodies[1] (rocker) */
    CHECK_NEAR(s->joints[4].at[1], 0.5, 0);

    /* forces: joint_damping leaves the list; order kept */
    CHECK(s->nforce == 4);
    CHECK(s->forces[0].type == MBS_FORCE_SPRING_DAMPER);
    CHECK_STR(s->forces[0].name, "spring");
    CHECK(s->forces[0].body[0] == MBS_GROUND && s->forces[0].body[1] == 2);
    CHECK_NEAR(s->forces[0].points[0][0], 3, 0);
    CHECK_NEAR(s->forces[0].stiffness, 100, 0);
    CHECK_NEAR(s->forces[0].damping, 1, 0);
    CHECK(s->forces[0].has_free_length == 0);
    CHECK_NEAR(s->forces[0].preload, 0, 0);
    CHECK(s->forces[1].type == MBS_FORCE_TORQUE);
    CHECK(s->forces[1].body[0] == 0);
    CHECK(s->forces[1].value[0].kind == MBS_FN_EXPRESSION);
    CHECK_NEAR(mbs_fn_eval(&s->forces[1].value[0], 0.5, NULL, NULL), 0.1 * sin(M_PI * 0.5),
               1e-15);
    CHECK(s->forces[1].value[1].kind == MBS_FN_CONSTANT);
    CHECK_NEAR(mbs_fn_eval(&s->forces[1].value[2], 1, NULL, NULL), 0, 0);
    CHECK(s->forces[2].type == MBS_FORCE_POINT_FORCE);
    CHECK(s->forces[2].body_frame == 1);
    CHECK_NEAR(s->forces[2].at[0], 1, 0); /* default: the body's com */
    CHECK(s->forces[2].value[0].kind == MBS_FN_CONSTANT);
    CHECK_NEAR(mbs_fn_eval(&s->forces[2].value[0], 7, NULL, NULL), 2, 0);
    CHECK(s->forces[2].value[1].kind == MBS_FN_TABLE);
    CHECK(s->forces[2].value[1].spline == 1 && s->forces[2].value[1].spline_m != NULL);
    CHECK_NEAR(mbs_fn_eval(&s->forces[2].value[1], 1, NULL, NULL), 2, 1e-14);
    CHECK(s->forces[3].type == MBS_FORCE_ROTATIONAL_SPRING_DAMPER);
    CHECK(s->forces[3].joint == 2);
    CHECK_NEAR(s->forces[3].free_angle, 0.1, 0);

    /* driver: harmonic with angular frequency 2 pi f */
    CHECK(s->ndriver == 1);
    CHECK(s->drivers[0].joint == 0);
    CHECK(s->drivers[0].motion.kind == MBS_FN_HARMONIC);
    CHECK_NEAR(s->drivers[0].motion.c[0], 0.2, 0);
    CHECK_NEAR(s->drivers[0].motion.c[1], M_PI, 1e-15);
    CHECK_NEAR(s->drivers[0].motion.c[2], 0, 0);

    /* solver: given values and defaults */
    CHECK(s->solver.integrator == MBS_INT_BDF);
    CHECK(s->solver.analysis == MBS_ANALYSIS_DYNAMICS);
    CHECK_NEAR(s->solver.t_end, 2, 0);
    CHECK_NEAR(s->solver.tolerance, 1e-8, 0);
    CHECK(s->solver.max_order == 4);
    CHECK(s->solver.contact_deactivation == 0);
    CHECK_NEAR(s->solver.step, 1e-3, 0);
    CHECK(s->solver.max_newton == 25);

    /* outputs */
    CHECK_NEAR(s->out_interval, 0.01, 0);
    CHECK(s->nchannel == 11);
    const mbs_channel_spec *ch = s->channels;
    CHECK_STR(ch[0].name, "xB");
    CHECK(ch[0].quantity == MBS_Q_POSITION && ch[0].body == 0 && ch[0].component == MBS_C_X);
    CHECK_NEAR(ch[0].point[1], 1, 0);
    CHECK(ch[1].component == MBS_C_MAGNITUDE);
    CHECK_NEAR(ch[1].point[0], 1, 0); /* default: the com */
    CHECK(ch[2].quantity == MBS_Q_ANGLE && ch[2].body == 2 && ch[2].component == MBS_C_NONE);
    CHECK(ch[3].quantity == MBS_Q_ANGULAR_VELOCITY && ch[3].component == MBS_C_Z);
    CHECK(ch[4].quantity == MBS_Q_JOINT_COORDINATE && ch[4].joint == 0);
    CHECK(ch[5].quantity == MBS_Q_REACTION_FORCE && ch[5].component == MBS_C_Y);
    CHECK(ch[6].quantity == MBS_Q_REACTION_TORQUE && ch[6].component == MBS_C_Z);
    CHECK(ch[7].quantity == MBS_Q_ELEMENT_FORCE && ch[7].element == 0);
    CHECK(ch[8].element == 1); /* "forces" entry 2 is spec force 1 */
    CHECK(ch[9].quantity == MBS_Q_TOTAL_ENERGY && ch[9].component == MBS_C_NONE);
    CHECK(ch[10].quantity == MBS_Q_CONSTRAINT_VIOLATION);
    mbs_spec_free(&s);
    CHECK(s == NULL);
}

static const char *s_spatial =
    "{ 'dimension': 3, 'parameters': { 'a': 2 },"
    "  'bodies': ["
    "    { 'name': 'arm', 'mass': 2, 'inertia': [1, 2, 2.5], 'com': [1, 0, 0],"
    "      'orientation': [1.0004, 0, 0, 0], 'angular_velocity': [0, 0, 1] },"
    "    { 'name': 'link', 'mass': 1, 'inertia': [1, 1, 1, 0.1, 0, 0], 'com': [2, 1, 0],"
    "      'orientation': [0, 0, 0, 1] },"
    "    { 'name': 'slider', 'mass': 0.5, 'com': [0, 0, 3] } ],"
    "  'joints': ["
    "    { 'name': 'R', 'type': 'revolute', 'bodies': ['ground', 'arm'], 'at': [0, 0, 0],"
    "      'axis': [0, 0, '$a'] },"
    "    { 'name': 'U', 'type': 'universal', 'bodies': ['arm', 'link'], 'at': [2, 0, 0],"
    "      'axes': [[0, 0, 3], [0, 2, 0]] },"
    "    { 'name': 'S', 'type': 'spherical', 'bodies': ['link', 'ground'], 'at': [2, 2, 0] },"
    "    { 'name': 'P', 'type': 'prismatic', 'bodies': ['ground', 'slider'], 'axis': [0, 3, 4] },"
    "    { 'name': 'Cy', 'type': 'cylindrical', 'bodies': ['slider', 'ground'], 'axis': [1, 0, 0] },"
    "    { 'name': 'Dist', 'type': 'distance', 'bodies': ['arm', 'slider'],"
    "      'points': [[1, 0, 0], [0, 0, 3]] },"
    "    { 'name': 'Rod', 'type': 'distance', 'bodies': ['arm', 'link'],"
    "      'points': [[1, 0, 0], [2, 1, 0]], 'length': 1.5 },"
    "    { 'name': 'Fx', 'type': 'fixed', 'bodies': ['link', 'slider'], 'at': [1, 1, 1] } ],"
    "  'forces': ["
    "    { 'type': 'gravity', 'value': [0, 0, -9.81] },"
    "    { 'type': 'torque', 'body': 'arm',"
    "      'value': [0, 0, { 'kind': 'polynomial', 'coefficients': [1, 2] }] },"
    "    { 'type': 'force', 'body': 'link', 'at': [2, 1, 1],"
    "      'value': [{ 'kind': 'constant', 'value': 3 }, 0, '=$a*t'] } ],"
    "  'drivers': [ { 'joint': 'P', 'motion': { 'kind': 'constant_speed', 'speed': 0.1 } } ],"
    "  'solver': { 't_end': 1 } }";

static void test_spatial(void)
{
    mbs_errlist el;
    mbs_spec *s = s_parse(s_spatial, NULL, 0, &el);
    CHECK(s != NULL);
    if (!s) {
        s_print_errors(&el);
        return;
    }
    CHECK(s->dim == 3);
    CHECK_STR(s->name, "mechanism");
    CHECK_NEAR(s->gravity[2], -9.81, 0);
    CHECK_NEAR(s->bodies[0].inertia[2], 2.5, 0);
    CHECK_NEAR(s->bodies[0].inertia[3], 0, 0);
    CHECK_NEAR(s->bodies[0].quat[0], 1, 1e-15); /* normalised */
    CHECK_NEAR(s->bodies[0].angular_velocity[2], 1, 0);
    CHECK_NEAR(s->bodies[1].inertia[3], 0.1, 0);
    CHECK_NEAR(s->bodies[1].quat[3], 1, 0);
    CHECK_NEAR(s->bodies[2].quat[0], 1, 0); /* default */
    CHECK_NEAR(s->bodies[2].inertia[0], 0, 0);

    CHECK(s->njoint == 8);
    CHECK_NEAR(s->joints[0].axis[2], 1, 1e-15);
    CHECK(s->joints[1].type == MBS_JOINT_UNIVERSAL);
    CHECK_NEAR(s->joints[1].axes[0][2], 1, 1e-15);
    CHECK_NEAR(s->joints[1].axes[1][1], 1, 1e-15);
    CHECK(s->joints[2].type == MBS_JOINT_SPHERICAL && s->joints[2].body[1] == MBS_GROUND);
    CHECK_NEAR(s->joints[3].axis[1], 0.6, 1e-15);
    CHECK_NEAR(s->joints[3].axis[2], 0.8, 1e-15);
    CHECK_NEAR(s->joints[3].at[2], 3, 0);  /* com of the slider */
    CHECK(s->joints[4].type == MBS_JOINT_CYLINDRICAL);
    CHECK_NEAR(s->joints[4].at[2], 3, 0);  /* bodies[1] is ground: com of bodies[0] */
    CHECK(s->joints[5].type == MBS_JOINT_DISTANCE && s->joints[5].has_length == 0);
    CHECK_NEAR(s->joints[5].length, sqrt(10), 1e-15);
    CHECK(s->joints[6].has_length == 1);
    CHECK_NEAR(s->joints[6].length, 1.5, 0);
    CHECK(s->joints[7].type == MBS_JOINT_FIXED);

    CHECK(s->nforce == 2); /* gravity is not a force element */
    CHECK(s->forces[0].type == MBS_FORCE_TORQUE);
    CHECK(s->forces[0].value[2].kind == MBS_FN_POLYNOMIAL);
    double d;
    CHECK_NEAR(mbs_fn_eval(&s->forces[0].value[2], 2, &d, NULL), 5, 1e-15);
    CHECK_NEAR(d, 2, 1e-15);
    CHECK(s->forces[1].type == MBS_FORCE_POINT_FORCE);
    CHECK_NEAR(s->forces[1].at[2], 1, 0);
    CHECK_NEAR(mbs_fn_eval(&s->forces[1].value[0], 0, NULL, NULL), 3, 0);
    CHECK(s->forces[1].value[2].kind == MBS_FN_EXPRESSION);
    CHECK_NEAR(mbs_fn_eval(&s->forces[1].value[2], 0.5, NULL, NULL), 1, 1e-15);
    CHECK(s->drivers[0].joint == 3 && s->drivers[0].motion.kind == MBS_FN_CONSTANT_SPEED);

    /* default outputs: com positions and the energy */
    CHECK_NEAR(s->out_interval, 0.01, 1e-15);
    CHECK(s->nchannel == 10);
    CHECK_STR(s->channels[0].name, "arm.x");
    CHECK_STR(s->channels[5].name, "link.z");
    CHECK(s->channels[5].component == MBS_C_Z && s->channels[5].body == 1);
    CHECK_NEAR(s->channels[3].point[0], 2, 0);
    CHECK_STR(s->channels[9].name, "energy");
    CHECK(s->channels[9].quantity == MBS_Q_TOTAL_ENERGY);
    CHECK(s->solver.integrator == MBS_INT_BDF);
    CHECK(s->solver.max_assembly_iterations == 50);
    mbs_spec_free(&s);
}

/* ---- overrides ------------------------------------------------------------------------- */

static void test_overrides(void)
{
    mbs_errlist el;
    mech_override ov[] = {
        {"L", "2"},
        {"solver.integrator", "dopri5"},
        {"solver.contact_deactivation", "true"},
        {"solver.max_order", "3"},
        {"solver.step", "=$L/1000"},
        {"f", "=$L"},
    };
    mbs_spec *s = s_parse(s_fourbar, ov, 6, &el);
    CHECK(s != NULL);
    if (!s) {
        s_print_errors(&el);
        return;
    }
    CHECK_NEAR(s->bodies[0].com[1], 1, 0);            /* half = L/2 */
    CHECK_NEAR(s->bodies[0].inertia[0], 4.0 / 12, 1e-15);
    CHECK(s->solver.integrator == MBS_INT_DOPRI5);
    CHECK(s->solver.contact_deactivation == 1);
    CHECK(s->solver.max_order == 3);
    CHECK_NEAR(s->solver.step, 0.002, 1e-18);
    CHECK_NEAR(s->drivers[0].motion.c[1], 4 * M_PI, 1e-14); /* f = L = 2 */
    mbs_spec_free(&s);
}

/* ---- invalid documents ---------------------------------------------------------------------- */

#define SOLVER "'solver': {'t_end': 1}"
#define BODY "{'name': 'b', 'mass': 1, 'com': [0, 0]}"
#define BODY3 "{'name': 'b', 'mass': 1, 'com': [0, 0, 0]}"
/* a planar document with one body "b" and extra top-level members x */
#define P2(x) "{'dimension': 2, 'bodies': [" BODY "], " SOLVER x "}"
#define P3(x) "{'dimension': 3, 'bodies': [" BODY3 "], " SOLVER x "}"
/* a planar prismatic joint J (ground - b) with extra keys x, event_driven */
#define PJ(x)                                                                                  \
    "{'dimension': 2, 'bodies': [" BODY "], 'solver': {'t_end': 1, 'integrator': 'event_driven'}," \
    " 'joints': [{'name': 'J', 'type': 'prismatic', 'bodies': ['ground', 'b'], 'axis': [1, 0], " x "}]}"
#define CH(x) P2(", 'outputs': {'channels': [" x "]}")
/* planar shapes: circles c, c2 on b; lines floor, wall on ground */
#define SHAPES2                                                                              \
    "'shapes': [{'name': 'c', 'body': 'b', 'type': 'circle', 'center': [0, 1], 'radius': 0.5}," \
    " {'name': 'floor', 'body': 'ground', 'type': 'line', 'point': [0, 0], 'normal': [0, 1]},"  \
    " {'name': 'c2', 'body': 'b', 'type': 'circle', 'center': [1, 1], 'radius': 0.5},"          \
    " {'name': 'wall', 'body': 'ground', 'type': 'line', 'point': [2, 0], 'normal': [-1, 0]}]"
#define C2(x) P2(", " SHAPES2 ", 'contacts': [" x "]")
/* one shape of the given type and keys on b (planar / spatial) */
#define SH2(x) P2(", 'shapes': [{'name': 's', 'body': 'b', " x "}]")
#define SH3(x) P3(", 'shapes': [{'name': 's', 'body': 'b', " x "}]")
/* spatial boxes bx (on b) and gx (on ground) */
#define C3(x)                                                                                 \
    P3(", 'shapes': [{'name': 'bx', 'body': 'b', 'type': 'box', 'center': [0, 0, 1],"          \
       " 'half_extents': [1, 1, 1]}, {'name': 'gx', 'body': 'ground', 'type': 'box',"           \
       " 'center': [0, 0, -1], 'half_extents': [1, 1, 1]}], 'contacts': [" x "]")

typedef struct {
    const char *doc;
    const char *ov_name, *ov_value;
    const char *ptr;
    const char *msg;
} s_bad;

static const s_bad s_bads[] = {
    /* JSON itself */
    {"{'dimension': 2,", NULL, NULL, "", "invalid JSON at line 1"},
    {"{'dimension': 2, 'dimension': 3}", NULL, NULL, "", "duplicate object key"},
    {"[1, 2]", NULL, NULL, "", "must be a JSON object"},
    {"", NULL, NULL, "", "invalid JSON"},
    /* top level */
    {"{'bodies': [" BODY "], " SOLVER "}", NULL, NULL, "", "missing required key 'dimension'"},
    {"{'dimension': 4, 'bodies': [" BODY "], " SOLVER "}", NULL, NULL, "/dimension",
     "must be 2 (planar) or 3"},
    {"{'dimension': 2, 'bodies': [" BODY "]}", NULL, NULL, "", "missing required key 'solver'"},
    {"{'dimension': 2, 'bodies': [" BODY "], 'solver': {}}", NULL, NULL, "/solver",
     "missing required key 't_end'"},
    {"{'dimension': 2, " SOLVER "}", NULL, NULL, "", "missing required key 'bodies'"},
    {"{'dimension': 2, 'bodies': [], " SOLVER "}", NULL, NULL, "/bodies", "at least one body"},
    {P2(", 'zzzzzz': 1"), NULL, NULL, "/zzzzzz", "unknown key 'zzzzzz' (expected one of: name"},
    {P2(", 'gravty': [0, 1]"), NULL, NULL, "/gravty", "did you mean 'gravity'?"},
    {P2(", 'a/b~c': 1"), NULL, NULL, "/a~1b~0c", "unknown key 'a/b~c'"},
    {P2(", 'gravity': [0, 1, 2]"), NULL, NULL, "/gravity", "expected a vector [gx, gy] (2 numbers)"},
    {P2(", 'contacts': [{}]"), NULL, NULL, "/contacts/0", "missing required key 'shapes'"},
    {P2(", 'name': 5"), NULL, NULL, "/name", "expected a string, got a number"},
    /* shapes */
    {SH2("'type': 'cirle', 'center': [0, 0], 'radius': 1"), NULL, NULL, "/shapes/0/type",
     "unknown shape type 'cirle'; did you mean 'circle'?"},
    {SH2("'type': 'sphere', 'center': [0, 0], 'radius': 1"), NULL, NULL, "/shapes/0/type",
     "'sphere' shapes exist only in spatial mechanisms (dimension 3)"},
    {SH3("'type': 'circle', 'center': [0, 0, 0], 'radius': 1"), NULL, NULL, "/shapes/0/type",
     "only in planar mechanisms (dimension 2), this one is spatial (dimension 3); use 'sphere'"},
    {SH2("'type': 'circle', 'center': [0, 0], 'radius': -1"), NULL, NULL, "/shapes/0/radius",
     "'radius' must be > 0, got -1"},
    {SH2("'type': 'circle', 'center': [0, 0]"), NULL, NULL, "/shapes/0",
     "missing required key 'radius'"},
    {SH2("'type': 'circle', 'center': [0, 0], 'radus': 1"), NULL, NULL, "/shapes/0/radus",
     "unknown key 'radus'; did you mean 'radius'?"},
    {SH2("'type': 'line', 'point': [0, 0], 'normal': [0, 1], 'radius': 1"), NULL, NULL,
     "/shapes/0/radius", "key 'radius' does not apply to a 'line' shape"},
    {SH2("'type': 'line', 'point': [0, 0], 'normal': [0, 0]"), NULL, NULL, "/shapes/0/normal",
     "the normal must not be zero"},
    {SH3("'type': 'plane', 'point': [0, 0, 0], 'normal': [0, 1]"), NULL, NULL,
     "/shapes/0/normal", "expected a normal [nx, ny, nz] (3 numbers)"},
    {SH2("'type': 'segment', 'points': [[1, 2], [1, 2]]"), NULL, NULL, "/shapes/0/points",
     "the two points coincide"},
    {SH3("'type': 'capsule', 'points': [[1, 2, 3], ['=0.5*2', 2, 3]], 'radius': 0.1"), NULL,
     NULL, "/shapes/0/points", "the two points coincide"},
    {SH3("'type': 'box', 'center': [0, 0, 0], 'half_extents': [1, 0, 1]"), NULL, NULL,
     "/shapes/0/half_extents", "half extents must all be > 0"},
    {SH3("'type': 'box', 'center': [0, 0, 0], 'half_extents': [1, 1, 1], "
         "'orientation': [1, 1, 0, 0]"), NULL, NULL, "/shapes/0/orientation",
     "must be a unit quaternion"},
    {P2(", 'shapes': [{'name': 's', 'body': 'bb', 'type': 'point', 'at': [0, 0]}]"), NULL, NULL,
     "/shapes/0/body", "unknown body 'bb'; did you mean 'b'?"},
    {P2(", 'shapes': [{'name': 's', 'body': 'b', 'type': 'point', 'at': [0, 0]}, "
        "{'name': 's', 'body': 'b', 'type': 'point', 'at': [0, 0]}]"), NULL, NULL,
     "/shapes/1/name", "duplicate shape name 's' (already used by /shapes/0)"},
    {P2(", 'shapes': [{'body': 'b', 'type': 'point', 'at': [0, 0]}]"), NULL, NULL, "/shapes/0",
     "missing required key 'name'"},
    {P2(", 'shapes': {}"), NULL, NULL, "/shapes", "expected an array of shapes, got an object"},
    /* contacts */
    {C2("{'shapes': ['c', 'floor'], 'stiffness': 1, 'friction': 0.3, 'friction_static': 0.5}"), NULL, NULL,
     "/contacts/0/friction_static", "'friction_static' applies to the 'rigid' law"},
    /* (with no integrator named, static friction selects event_driven) */
    {C2("{'shapes': ['c', 'floor'], 'law': 'rigid', 'friction': 0.3, 'friction_static': 0.5}"), "solver.integrator",
     "moreau_jean", "/contacts/0/friction_static", "needs solver.integrator \"event_driven\""},
    {C2("{'shapes': ['c', 'floor'], 'law': 'rigid', 'friction': 0.3, 'friction_static': 0.2}"), "solver.integrator",
     "event_driven", "/contacts/0/friction_static", "'friction_static' (0.2) must be >= 'friction' (0.3)"},
    {C2("{'shapes': ['c', 'floor'], 'law': 'rigid', 'friction': 0.3, 'friction_static': -1}"), "solver.integrator",
     "event_driven", "/contacts/0/friction_static", "must be >= 0"},
    {C2("{'shapes': ['c', 'flor'], 'stiffness': 1}"), NULL, NULL, "/contacts/0/shapes/1",
     "unknown shape 'flor'; did you mean 'floor'?"},
    {C2("{'shapes': ['c', 'c2'], 'stiffness': 1}"), NULL, NULL, "/contacts/0/shapes",
     "shapes 'c' and 'c2' are both on body 'b'"},
    {C2("{'shapes': ['floor', 'wall'], 'stiffness': 1}"), NULL, NULL, "/contacts/0/shapes",
     "are both on 'ground'"},
    {C2("{'shapes': ['c', 'c'], 'stiffness': 1}"), NULL, NULL, "/contacts/0/shapes",
     "cannot be in contact with itself"},
    {C2("{'shapes': ['c', 'floor']}"), NULL, NULL, "/contacts/0",
     "missing required key 'stiffness'"},
    {C2("{'shapes': ['c', 'floor'], 'stiffness': 1, 'friction': -0.1}"), NULL, NULL,
     "/contacts/0/friction", "'friction' must be >= 0"},
    {C2("{'shapes': ['c', 'floor'], 'stiffness': 1, 'restitution': 1.5}"), NULL, NULL,
     "/contacts/0/restitution", "'restitution' must be in [0, 1], got 1.5"},
    {C2("{'shapes': ['c', 'floor'], 'stiffness': 1, 'law': 'hertz', 'restitution': 0.5}"), NULL,
     NULL, "/contacts/0/restitution", "does not apply to the 'hertz' law"},
    {C2("{'shapes': ['c', 'floor'], 'stiffness': 1, 'law': 'hunt-crossley'}"), NULL, NULL,
     "/contacts/0/law", "did you mean 'hunt_crossley'?"},
    {C2("{'shapes': ['c', 'floor'], 'stiffness': 1, 'slip_velocity': 0}"), NULL, NULL,
     "/contacts/0/slip_velocity", "must be > 0"},
    {C2("{'shapes': ['c', 'floor'], 'stifness': 1}"), NULL, NULL, "/contacts/0/stifness",
     "did you mean 'stiffness'?"},
    {C3("{'shapes': ['bx', 'gx'], 'stiffness': 1}"), NULL, NULL, "/contacts/0/shapes",
     "contact between a 'box' and a 'box' is not supported"},
    {P2(", 'shapes': [{'name': 'l', 'body': 'b', 'type': 'line', 'point': [0, 0], 'normal': [0, 1]},"
        " {'name': 'g', 'body': 'ground', 'type': 'line', 'point': [0, 0], 'normal': [0, 1]}],"
        " 'contacts': [{'between': ['*', '*'], 'stiffness': 1}]"), NULL, NULL,
     "/contacts/0/between", "the patterns pair 'l' (line) with 'g' (line), which is not supported"},
    {C2("{'between': ['c*', 'wal?x'], 'stiffness': 1}"), NULL, NULL, "/contacts/0/between/1",
     "pattern 'wal?x' matches no shape"},
    {C2("{'between': ['c', 'flor'], 'stiffness': 1}"), NULL, NULL, "/contacts/0/between/1",
     "matches no shape; did you mean 'floor'?"},
    {C2("{'between': ['c*', 'c*'], 'stiffness': 1}"), NULL, NULL, "/contacts/0/between",
     "the patterns produce no pair"},
    {C2("{'shapes': ['c', 'floor'], 'stiffness': 1}, {'shapes': ['floor', 'c'], 'stiffness': 2}"),
     NULL, NULL, "/contacts/1/shapes", "pair ('floor', 'c') declared twice (first by /contacts/0)"},
    {C2("{'between': ['c*', 'floor'], 'stiffness': 1}, {'shapes': ['c', 'floor'], 'stiffness': 2}"),
     NULL, NULL, "/contacts/1/shapes", "declared twice (first by /contacts/0, a 'between' group"},
    {C2("{'shapes': ['c', 'floor'], 'between': ['c', 'floor'], 'stiffness': 1}"), NULL, NULL,
     "/contacts/0", "give either 'shapes' (one pair) or 'between'"},
    {C2("{'shapes': ['c'], 'stiffness': 1}"), NULL, NULL, "/contacts/0/shapes",
     "expected an array of two shape names, got 1 entries"},
    {C2("{'shapes': ['c', 'floor'], 'stiffness': '$k'}"), NULL, NULL, "/contacts/0/stiffness",
     "unknown parameter 'k'"},
    /* bodies */
    {"{'dimension': 2, 'bodies': [{'name': 'b', 'masss': 1, 'mass': 1, 'com': [0, 0]}], " SOLVER
     "}", NULL, NULL, "/bodies/0/masss", "unknown key 'masss'; did you mean 'mass'?"},
    {"{'dimension': 2, 'bodies': [{'name': 'b', 'com': [0, 0]}], " SOLVER "}", NULL, NULL,
     "/bodies/0", "missing required key 'mass'"},
    {"{'dimension': 2, 'bodies': [{'name': 'b', 'mass': -1, 'com': [0, 0]}], " SOLVER "}", NULL,
     NULL, "/bodies/0/mass", "'mass' must be > 0, got -1"},
    {"{'dimension': 2, 'bodies': [{'name': 'b', 'mass': 'heavy', 'com': [0, 0]}], " SOLVER "}",
     NULL, NULL, "/bodies/0/mass", "expected a number, a \"$parameter\" or an \"=expression\""},
    {"{'dimension': 2, 'bodies': [{'name': 'b', 'mass': true, 'com': [0, 0]}], " SOLVER "}",
     NULL, NULL, "/bodies/0/mass", "expected a number, got a boolean"},
    {"{'dimension': 2, 'bodies': [{'name': 'b', 'mass': 1, 'com': 'origin'}], " SOLVER "}",
     NULL, NULL, "/bodies/0/com", "expected a point [x, y], got a string"},
    {"{'dimension': 2, 'bodies': [{'name': 'b', 'mass': 1, 'com': [0, null]}], " SOLVER "}",
     NULL, NULL, "/bodies/0/com/1", "expected a number, got null"},
    {"{'dimension': 2, 'bodies': [" BODY ", " BODY "], " SOLVER "}", NULL, NULL,
     "/bodies/1/name", "duplicate body name 'b' (already used by /bodies/0)"},
    {"{'dimension': 2, 'bodies': [{'name': 'ground', 'mass': 1, 'com': [0, 0]}], " SOLVER "}",
     NULL, NULL, "/bodies/0/name", "'ground' is the fixed body"},
    {"{'dimension': 2, 'bodies': [{'name': 'a,b', 'mass': 1, 'com': [0, 0]}], " SOLVER "}",
     NULL, NULL, "/bodies/0/name", "contains a comma"},
    {"{'dimension': 2, 'bodies': [{'name': 'b', 'mass': 1, 'com': [0, 0], 'inertia': -2}], "
     SOLVER "}", NULL, NULL, "/bodies/0/inertia", "'inertia' must be >= 0"},
    {"{'dimension': 3, 'bodies': [{'name': 'b', 'mass': 1, 'com': [0, 0, 0], 'inertia': [1, 1, 3]}], "
     SOLVER "}", NULL, NULL, "/bodies/0/inertia", "not physically possible"},
    {"{'dimension': 3, 'bodies': [{'name': 'b', 'mass': 1, 'com': [0, 0, 0], 'inertia': [1, 1]}], "
     SOLVER "}", NULL, NULL, "/bodies/0/inertia", "expected [Ixx, Iyy, Izz] or"},
    {"{'dimension': 3, 'bodies': [{'name': 'b', 'mass': 1, 'com': [0, 0, 0], "
     "'orientation': [2, 0, 0, 0]}], " SOLVER "}", NULL, NULL, "/bodies/0/orientation",
     "must be a unit quaternion"},
    {"{'dimension': 3, 'bodies': [{'name': 'b', 'mass': 1, 'com': [0, 0, 0], "
     "'orientation': [0, 0, 0, 0]}], " SOLVER "}", NULL, NULL, "/bodies/0/orientation",
     "zero quaternion"},
    {"{'dimension': 3, 'bodies': [{'name': 'b', 'mass': 1, 'com': [0, 0, 0], 'angle': 1}], "
     SOLVER "}", NULL, NULL, "/bodies/0/angle", "does not apply in a spatial mechanism"},
    {"{'dimension': 2, 'bodies': [{'name': 'b', 'mass': 1, 'com': [0, 0], 'orientation': [1, 0, 0, 0]}], "
     SOLVER "}", NULL, NULL, "/bodies/0/orientation", "does not apply in a planar mechanism"},
    /* parameters and expressions */
    {"{'dimension': 2, 'parameters': {'L': 1}, 'bodies': [{'name': 'b', 'mass': '$Lx', 'com': [0, 0]}], "
     SOLVER "}", NULL, NULL, "/bodies/0/mass", "unknown parameter 'Lx'; did you mean 'L'?"},
    {"{'dimension': 2, 'bodies': [{'name': 'b', 'mass': '=2*$q', 'com': [0, 0]}], " SOLVER "}",
     NULL, NULL, "/bodies/0/mass", "unknown parameter '$q' at position 3"},
    {"{'dimension': 2, 'parameters': {'LL': 1}, 'bodies': [{'name': 'b', 'mass': '=$L', 'com': [0, 0]}], "
     SOLVER "}", NULL, NULL, "/bodies/0/mass", "did you mean '$LL'?"},
    {"{'dimension': 2, 'bodies': [{'name': 'b', 'mass': '=0/0', 'com': [0, 0]}], " SOLVER "}",
     NULL, NULL, "/bodies/0/mass", "evaluates to NaN"},
    {"{'dimension': 2, 'bodies': [{'name': 'b', 'mass': '=1/0', 'com': [0, 0]}], " SOLVER "}",
     NULL, NULL, "/bodies/0/mass", "evaluates to infinity"},
    {"{'dimension': 2, 'bodies': [{'name': 'b', 'mass': '=foo(1)', 'com': [0, 0]}], " SOLVER "}",
     NULL, NULL, "/bodies/0/mass", "unknown function 'foo'"},
    {"{'dimension': 2, 'bodies': [{'name': 'b', 'mass': '=(1+2', 'com': [0, 0]}], " SOLVER "}",
     NULL, NULL, "/bodies/0/mass", "unbalanced '('"},
    {"{'dimension': 2, 'bodies': [{'name': 'b', 'mass': '=sin(t)+2', 'com': [0, 0]}], " SOLVER
     "}", NULL, NULL, "/bodies/0/mass", "time variable t is not allowed"},
    {"{'dimension': 2, 'parameters': {'L': 1}, 'bodies': [{'name': 'b', 'mass': '$L+1', 'com': [0, 0]}], "
     SOLVER "}", NULL, NULL, "/bodies/0/mass", "is not a parameter reference"},
    {P2(", 'parameters': {'a': '=$b+1', 'b': '=2*$a'}"), NULL, NULL, "/parameters/a",
     "parameter cycle: a -> b -> a"},
    {P2(", 'parameters': {'a': '=$a'}"), NULL, NULL, "/parameters/a", "parameter cycle: a -> a"},
    {P2(", 'parameters': {'p': '=sin(t)'}"), NULL, NULL, "/parameters/p",
     "time variable t is not allowed"},
    {P2(", 'parameters': {'1x': 1}"), NULL, NULL, "/parameters/1x", "invalid parameter name"},
    {P2(", 'parameters': {'p': [1]}"), NULL, NULL, "/parameters/p",
     "expected a number or an \"=expression\", got an array"},
    {P2(", 'parameters': {'p': '=sqrt(-1)'}"), NULL, NULL, "/parameters/p", "NaN"},
    /* joints */
    {P2(", 'joints': [{'name': 'J', 'type': 'revolute', 'bodies': ['ground', 'bb'], 'at': [0, 0]}]"),
     NULL, NULL, "/joints/0/bodies/1", "unknown body 'bb'; did you mean 'b'?"},
    {P2(", 'joints': [{'name': 'J', 'type': 'revolute', 'bodies': ['b', 'b'], 'at': [0, 0]}]"),
     NULL, NULL, "/joints/0/bodies", "cannot connect body 'b' to itself"},
    {P2(", 'joints': [{'name': 'J', 'type': 'revolute', 'bodies': ['ground', 'ground'], 'at': [0, 0]}]"),
     NULL, NULL, "/joints/0/bodies", "cannot connect 'ground' to 'ground'"},
    {P2(", 'joints': [{'name': 'J', 'type': 'spherical', 'bodies': ['ground', 'b'], 'at': [0, 0]}]"),
     NULL, NULL, "/joints/0/type", "exist only in spatial mechanisms"},
    {P2(", 'joints': [{'name': 'J', 'type': 'revolut', 'bodies': ['ground', 'b'], 'at': [0, 0]}]"),
     NULL, NULL, "/joints/0/type", "did you mean 'revolute'?"},
    {P2(", 'joints': [{'name': 'J', 'type': 'revolute', 'bodies': ['ground', 'b'], 'at': [0, 0], "
        "'axis': [0, 1]}]"), NULL, NULL, "/joints/0/axis", "does not apply to a planar revolute joint"},
    {P2(", 'joints': [{'name': 'J', 'type': 'revolute', 'bodies': ['ground', 'b']}]"), NULL, NULL,
     "/joints/0", "missing required key 'at'"},
    {P2(", 'joints': [{'name': 'J', 'type': 'prismatic', 'bodies': ['ground', 'b']}]"), NULL, NULL,
     "/joints/0", "missing required key 'axis'"},
    {P2(", 'joints': [{'name': 'J', 'type': 'prismatic', 'bodies': ['ground', 'b'], 'axis': [0, 0]}]"),
     NULL, NULL, "/joints/0/axis", "must not be zero"},
    /* prismatic joint with clearance (seed 003 friction model, impact model) */
    {PJ("'clearance': 0.001, 'friction': 0.1"), NULL, NULL, "/joints/0",
     "missing required key 'slider_length'"},
    {PJ("'clearance': -0.001, 'slider_length': 0.1"), NULL, NULL, "/joints/0/clearance", "must be > 0"},
    {PJ("'friction': 0.1, 'slider_length': 0.1"), NULL, NULL, "/joints/0", "missing required key 'clearance'"},
    {PJ("'clearance': 0.001, 'friction': -0.1, 'slider_length': 0.1"), NULL, NULL, "/joints/0/friction",
     "must be >= 0"},
    {PJ("'clearance': 0.001, 'slider_length': 0"), NULL, NULL, "/joints/0/slider_length", "must be > 0"},
    {PJ("'clearance': 0.001, 'slider_length': 0.1, 'restitution': 0.5"), NULL, NULL,
     "/joints/0/restitution", "applies to clearance_model \"impact\" only"},
    {PJ("'clearance_model': 'impact', 'clearance': 0.001, 'slider_length': 0.1, 'slider_width': 0.05, "
        "'restitution': 1.5"), "solver.integrator", "moreau_jean", "/joints/0/restitution", "must be in [0, 1]"},
    {PJ("'clearance_model': 'impact', 'clearance': 0.001, 'slider_length': 0.1"), "solver.integrator",
     "moreau_jean", "/joints/0", "missing required key 'slider_width'"},
    {PJ("'clearance_model': 'impact', 'clearance': 0.001, 'slider_length': 0.1, 'slider_width': 0.05"),
     NULL, NULL, "/joints/0/clearance_model", "needs solver.integrator \"moreau_jean\""},
    {PJ("'clearance_model': 'fiction', 'clearance': 0.001, 'slider_length': 0.1"), NULL, NULL,
     "/joints/0/clearance_model", "unknown clearance_model 'fiction'"},
    {PJ("'clearance_model': 1, 'clearance': 0.001, 'slider_length': 0.1"), NULL, NULL,
     "/joints/0/clearance_model", "expected \"friction\" or \"impact\", got a number"},
    {PJ("'clearance': 0.001, 'friction': 0.1, 'slider_length': 0.1"), "solver.integrator", "dopri5",
     "/joints/0/friction", "needs solver.integrator \"event_driven\""},
    {P2(", 'joints': [{'name': 'J', 'type': 'revolute', 'bodies': ['ground', 'b'], 'at': [0, 0], "
        "'clearance': 0.001}]"), NULL, NULL, "/joints/0/clearance",
     "does not apply to a planar revolute joint (clearance exists for planar prismatic joints only)"},
    {P3(", 'joints': [{'name': 'J', 'type': 'prismatic', 'bodies': ['ground', 'b'], 'axis': [1, 0, 0], "
        "'friction': 0.1}]"), NULL, NULL, "/joints/0/friction",
     "does not apply to a prismatic joint in 3-D (clearance is planar only)"},
    {CH("{'name': 'n', 'quantity': 'normal_force', 'joint': 'J'}") , NULL, NULL, "/outputs/channels/0/joint",
     "unknown joint 'J'"},
    {P2(", 'joints': [{'name': 'J', 'type': 'prismatic', 'bodies': ['ground', 'b'], 'axis': [1, 0]}], "
        "'outputs': {'channels': [{'name': 'f', 'quantity': 'friction_force', 'joint': 'J'}]}"), NULL, NULL,
     "/outputs/channels/0/joint", "friction_force is defined for prismatic joints with clearance_model"},
    {"{'dimension': 2, 'bodies': [" BODY "], 'solver': {'t_end': 1}, 'joints': [{'name': 'J', "
     "'type': 'prismatic', 'bodies': ['ground', 'b'], 'axis': [1, 0], 'clearance': 0.001, "
     "'slider_length': 0.1}], 'outputs': {'channels': [{'name': 'f', 'quantity': 'friction_force', "
     "'joint': 'J'}]}}", "solver.integrator", "bdf",
     "/outputs/channels/0/joint", "friction_force needs solver.integrator \"event_driven\""},
    /* contact_force channels */
    {P2(", " SHAPES2 ", 'contacts': [{'shapes': ['c', 'floor'], 'stiffness': 1e5}], 'outputs': {'channels': "
        "[{'name': 'f', 'quantity': 'contact_force', 'shapes': ['c2', 'floor'], 'component': 'y'}]}"), NULL, NULL,
     "/outputs/channels/0/shapes", "no declared contact pair joins a shape matching 'c2' to one matching 'floor'"},
    {P2(", " SHAPES2 ", 'contacts': [{'shapes': ['c', 'floor'], 'stiffness': 1e5}], 'outputs': {'channels': "
        "[{'name': 'f', 'quantity': 'contact_force', 'component': 'y'}]}"), NULL, NULL,
     "/outputs/channels/0", "missing required key 'shapes'"},
    {P2(", " SHAPES2 ", 'contacts': [{'shapes': ['c', 'floor'], 'stiffness': 1e5}], 'outputs': {'channels': "
        "[{'name': 'f', 'quantity': 'contact_force', 'shapes': 'c', 'component': 'y'}]}"), NULL, NULL,
     "/outputs/channels/0/shapes", "expected two shape names or patterns"},
    {P2(", " SHAPES2 ", 'contacts': [{'shapes': ['c', 'floor'], 'stiffness': 1e5}], 'outputs': {'channels': "
        "[{'name': 'f', 'quantity': 'contact_force', 'shapes': ['c', 'floor'], 'component': 'w'}]}"), NULL, NULL,
     "/outputs/channels/0/component", "expected \"x\", \"y\", \"magnitude\" or \"normal\""},
    {P2(", " SHAPES2 ", 'contacts': [{'shapes': ['c', 'floor'], 'stiffness': 1e5}], 'outputs': {'channels': "
        "[{'name': 'f', 'quantity': 'contact_force', 'shapes': ['c', 'floor'], 'joint': 'J', 'component': 'y'}]}"),
     NULL, NULL, "/outputs/channels/0/joint", "does not apply to quantity 'contact_force'"},
    {P2(", 'joints': [{'name': 'J', 'type': 'fixed', 'bodies': ['ground', 'b'], 'at': [0, 0]}, "
        "{'name': 'J', 'type': 'fixed', 'bodies': ['ground', 'b'], 'at': [0, 0]}]"),
     NULL, NULL, "/joints/1/name", "duplicate joint name 'J'"},
    {P2(", 'joints': [{'name': 'J', 'type': 'distance', 'bodies': ['ground', 'b'], "
        "'points': [[1, 1], [1, 1]]}]"), NULL, NULL, "/joints/0/points", "the two points coincide"},
    {P2(", 'joints': [{'name': 'J', 'type': 'distance', 'bodies': ['ground', 'b'], "
        "'points': [[1, 1], [0, 0]], 'length': 0}]"), NULL, NULL, "/joints/0/length",
     "'length' must be > 0"},
    {P3(", 'joints': [{'name': 'U', 'type': 'universal', 'bodies': ['ground', 'b'], 'at': [0, 0, 0], "
        "'axes': [[1, 0, 0], [1, 1, 0]]}]"), NULL, NULL, "/joints/0/axes", "must be perpendicular"},
    {P3(", 'joints': [{'name': 'R', 'type': 'revolute', 'bodies': ['ground', 'b'], 'at': [0, 0, 0]}]"),
     NULL, NULL, "/joints/0", "missing required key 'axis'"},
    /* forces */
    {P2(", 'forces': [{'type': 'spring', 'bodies': ['ground', 'b']}]"), NULL, NULL,
     "/forces/0/type", "unknown force type 'spring'"},
    {P2(", 'forces': [{'type': 'spring_damper', 'bodies': ['ground', 'b'], 'points': [[0, 0], [1, 0]], "
        "'stiffness': -5}]"), NULL, NULL, "/forces/0/stiffness", "'stiffness' must be >= 0"},
    {P2(", 'forces': [{'type': 'torque', 'body': 'ground', 'value': 1}]"), NULL, NULL,
     "/forces/0/body", "'ground' is fixed"},
    {P2(", 'forces': [{'type': 'force', 'body': 'b', 'value': [1]}]"), NULL, NULL,
     "/forces/0/value", "expected 2 components"},
    {P2(", 'forces': [{'type': 'force', 'body': 'b', 'value': ['=1/t', 0]}]"), NULL, NULL,
     "/forces/0/value/0", "not finite at t = 0"},
    {P2(", 'forces': [{'type': 'force', 'body': 'b', 'value': [0, 0], 'frame': 'local'}]"), NULL,
     NULL, "/forces/0/frame", "must be \"global\" or \"body\""},
    {P2(", 'gravity': [0, -9.81], 'forces': [{'type': 'gravity', 'value': [0, -1]}]"), NULL, NULL,
     "/forces/0", "gravity is given both"},
    {P2(", 'forces': [{'type': 'gravity', 'value': [0, -1]}, {'type': 'gravity', 'value': [0, -1]}]"),
     NULL, NULL, "/forces/1", "gravity is given twice"},
    {P2(", 'forces': [{'type': 'torque', 'body': 'b', 'value': 1, 'stiffness': 2}]"), NULL, NULL,
     "/forces/0/stiffness", "does not apply to a torque element"},
    {P2(", 'joints': [{'name': 'P', 'type': 'prismatic', 'bodies': ['ground', 'b'], 'axis': [1, 0]}], "
        "'forces': [{'type': 'rotational_spring_damper', 'joint': 'P', 'stiffness': 1}]"), NULL, NULL,
     "/forces/0/joint", "needs a revolute joint"},
    {P2(", 'forces': [{'type': 'joint_damping', 'joint': 'nope', 'coefficient': 1}]"), NULL, NULL,
     "/forces/0/joint", "unknown joint 'nope'"},
    {P2(", 'forces': [{'type': 'torque', 'name': 'T', 'body': 'b', 'value': 1}, "
        "{'type': 'torque', 'name': 'T', 'body': 'b', 'value': 2}]"), NULL, NULL,
     "/forces/1/name", "duplicate force element name 'T'"},
    /* drivers and functions of time */
    {P3(", 'joints': [{'name': 'S', 'type': 'spherical', 'bodies': ['ground', 'b'], 'at': [0, 0, 0]}], "
        "'drivers': [{'joint': 'S', 'motion': 1}]"), NULL, NULL, "/drivers/0/joint",
     "needs a revolute or prismatic joint"},
    {P2(", 'joints': [{'name': 'A', 'type': 'revolute', 'bodies': ['ground', 'b'], 'at': [0, 0]}], "
        "'drivers': [{'joint': 'A', 'motion': 1}, {'joint': 'A', 'motion': 2}]"), NULL, NULL,
     "/drivers/1/joint", "already has a driver"},
    {P2(", 'joints': [{'name': 'A', 'type': 'revolute', 'bodies': ['ground', 'b'], 'at': [0, 0]}], "
        "'drivers': [{'joint': 'A', 'motion': {'kind': 'table', 'points': [[0, 0], [1, 1], [0.5, 2]]}}]"),
     NULL, NULL, "/drivers/0/motion/points/2/0", "strictly increasing"},
    {P2(", 'joints': [{'name': 'A', 'type': 'revolute', 'bodies': ['ground', 'b'], 'at': [0, 0]}], "
        "'drivers': [{'joint': 'A', 'motion': {'kind': 'table', 'points': [[0, 0]]}}]"),
     NULL, NULL, "/drivers/0/motion/points", "at least 2 rows"},
    {P2(", 'joints': [{'name': 'A', 'type': 'revolute', 'bodies': ['ground', 'b'], 'at': [0, 0]}], "
        "'drivers': [{'joint': 'A', 'motion': {'kind': 'table', 'points': [[0, 0], [0.5, 1], [1, 3]]}}]"),
     NULL, NULL, "/drivers/0/motion", "corner at each inner row"},
    {P2(", 'joints': [{'name': 'A', 'type': 'revolute', 'bodies': ['ground', 'b'], 'at': [0, 0]}], "
        "'drivers': [{'joint': 'A', 'motion': '=2*min(t/0.3, 1)'}]"),
     NULL, NULL, "/drivers/0/motion", "corner at t = 0.3"},
    {P2(", 'joints': [{'name': 'A', 'type': 'revolute', 'bodies': ['ground', 'b'], 'at': [0, 0]}], "
        "'drivers': [{'joint': 'A', 'motion': {'kind': 'table', 'points': [[0, 0], [0.5, 2]]}}]"),
     NULL, NULL, "/drivers/0/motion", "ends at t = 0.5, before solver.t_end = 1"},
    {P2(", 'joints': [{'name': 'A', 'type': 'revolute', 'bodies': ['ground', 'b'], 'at': [0, 0]}], "
        "'drivers': [{'joint': 'A', 'motion': {'kind': 'table', 'interpolation': 'spline', "
        "'points': [[0.2, 0], [0.5, 2], [1, 3]]}}]"),
     NULL, NULL, "/drivers/0/motion", "starts at t = 0.2"},
    {P2(", 'joints': [{'name': 'A', 'type': 'revolute', 'bodies': ['ground', 'b'], 'at': [0, 0]}], "
        "'drivers': [{'joint': 'A', 'motion': {'kind': 'sine', 'amplitude': 1}}]"),
     NULL, NULL, "/drivers/0/motion/kind", "unknown function kind 'sine'"},
    {P2(", 'joints': [{'name': 'A', 'type': 'revolute', 'bodies': ['ground', 'b'], 'at': [0, 0]}], "
        "'drivers': [{'joint': 'A', 'motion': {'kind': 'harmonic', 'amplitude': 1, 'speed': 2}}]"),
     NULL, NULL, "/drivers/0/motion/speed", "does not apply to a 'harmonic' function"},
    {P2(", 'joints': [{'name': 'A', 'type': 'revolute', 'bodies': ['ground', 'b'], 'at': [0, 0]}], "
        "'drivers': [{'joint': 'A', 'motion': {'kind': 'expression', 'value': '=log(t-2)'}}]"),
     NULL, NULL, "/drivers/0/motion/value", "not finite at t = 0"},
    {P2(", 'joints': [{'name': 'A', 'type': 'revolute', 'bodies': ['ground', 'b'], 'at': [0, 0]}], "
        "'drivers': [{'joint': 'A'}]"), NULL, NULL, "/drivers/0", "missing required key 'motion'"},
    /* solver */
    {"{'dimension': 2, 'bodies': [" BODY "], 'solver': {'t_end': 1, 'integrator': 'rk4'}}",
     NULL, NULL, "/solver/integrator", "invalid integrator 'rk4'"},
    {"{'dimension': 2, 'bodies': [" BODY "], 'solver': {'t_end': 1, 'max_order': 2.5}}",
     NULL, NULL, "/solver/max_order", "must be an integer from 1 to 5"},
    {"{'dimension': 2, 'bodies': [" BODY "], 'solver': {'t_end': -1}}", NULL, NULL,
     "/solver/t_end", "'t_end' must be > 0"},
    {"{'dimension': 2, 'bodies': [" BODY "], 'solver': {'t_end': 1, 'contact_deactivation': 1}}",
     NULL, NULL, "/solver/contact_deactivation", "must be true or false"},
    {"{'dimension': 2, 'bodies': [" BODY "], 'solver': {'t_end': 1, 'tolerence': 1}}",
     NULL, NULL, "/solver/tolerence", "did you mean 'tolerance'?"},
    /* outputs */
    {P2(", 'outputs': {'interval': 2}"), NULL, NULL, "/outputs/interval", "must not exceed t_end"},
    /* more samples than a run may hold (the solver fuzzer's 1e-300: an int overflow) */
    {P2(", 'outputs': {'interval': 1e-300}"), NULL, NULL, "/outputs/interval", "at most 1000000: a longer interval"},
    {P2(", 'outputs': {'interval': 9.99e-7}"), NULL, NULL, "/outputs/interval", "output samples over t_end"},
    {CH("{'name': 'p', 'quantity': 'positon', 'body': 'b', 'component': 'x'}"), NULL, NULL,
     "/outputs/channels/0/quantity", "did you mean 'position'?"},
    {CH("{'name': 'p', 'quantity': 'position', 'body': 'b', 'component': 'z'}"), NULL, NULL,
     "/outputs/channels/0/component", "component 'z' does not exist"},
    {CH("{'name': 'p', 'quantity': 'position', 'body': 'b'}"), NULL, NULL,
     "/outputs/channels/0", "missing required key 'component'"},
    {CH("{'name': 'E', 'quantity': 'energy', 'body': 'b'}"), NULL, NULL,
     "/outputs/channels/0/body", "does not apply to quantity 'energy'"},
    {CH("{'name': 'a', 'quantity': 'angle', 'body': 'b', 'component': 'z'}"), NULL, NULL,
     "/outputs/channels/0/component", "does not apply to quantity 'angle'"},
    {CH("{'name': 'q', 'quantity': 'orientation', 'body': 'b', 'component': 'w'}"), NULL, NULL,
     "/outputs/channels/0/quantity", "exists only in spatial mechanisms"},
    {CH("{'name': 'time', 'quantity': 'energy'}"), NULL, NULL, "/outputs/channels/0/name",
     "'time' is the name of the first column"},
    {CH("{'name': 'e', 'quantity': 'energy'}, {'name': 'e', 'quantity': 'kinetic_energy'}"), NULL,
     NULL, "/outputs/channels/1/name", "duplicate channel name 'e'"},
    {CH("{'name': 'v', 'quantity': 'velocity', 'body': 'ground', 'component': 'x'}"), NULL, NULL,
     "/outputs/channels/0/body", "'ground' does not move"},
    {CH("{'name': 'x\\ny', 'quantity': 'energy'}"), NULL, NULL, "/outputs/channels/0/name",
     "control character"},
    {P2(", 'joints': [{'name': 'F', 'type': 'fixed', 'bodies': ['ground', 'b'], 'at': [0, 0]}], "
        "'outputs': {'channels': [{'name': 'q', 'quantity': 'joint_coordinate', 'joint': 'F'}]}"),
     NULL, NULL, "/outputs/channels/0/joint", "joint_coordinate is defined for revolute"},
    {P2(", 'joints': [{'name': 'A', 'type': 'revolute', 'bodies': ['ground', 'b'], 'at': [0, 0]}], "
        "'forces': [{'type': 'joint_damping', 'joint': 'A', 'coefficient': 1}], "
        "'outputs': {'channels': [{'name': 'f', 'quantity': 'element_force', 'element': 0}]}"),
     NULL, NULL, "/outputs/channels/0/element", "not a force element with an output"},
    {CH("{'name': 'f', 'quantity': 'element_force', 'element': 3}"), NULL, NULL,
     "/outputs/channels/0/element", "out of range"},
    {P3(", 'outputs': {'channels': [{'name': 'w', 'quantity': 'angular_velocity', 'body': 'b'}]}"),
     NULL, NULL, "/outputs/channels/0", "missing required key 'component'"},
    /* overrides */
    {P2(""), "X", "1", "", "unknown parameter 'X' in override"},
    {P2(""), "solver.step", "abc", "", "override 'solver.step': invalid value 'abc'"},
    {P2(""), "solver.step", "-1", "", "override 'solver.step': 'step' must be > 0"},
    {P2(""), "solver.integrator", "rk4", "", "expected one of: trapezoidal_al, bdf, dopri5"},
    {P2(""), "solver.contact_deactivation", "maybe", "", "expected true or false"},
    {P2(""), "solver.stepp", "1", "", "unknown solver option 'stepp' in override; did you mean"},
    {P2(", 'parameters': {'L': 1}"), "L", "=0/0", "", "override 'L': expression \"=0/0\" evaluates"},
    {P2(", 'parameters': {'L': 1}"), "L", "1.5x", "", "override 'L': invalid value '1.5x'"},
};

static void test_invalid_table(void)
{
    int n = (int)(sizeof s_bads / sizeof s_bads[0]);
    CHECK(n >= 30);
    for (int i = 0; i < n; i++) {
        const s_bad *b = &s_bads[i];
        mbs_errlist el;
        mech_override ov = {b->ov_name, b->ov_value};
        mbs_spec *s = s_parse(b->doc, &ov, b->ov_name ? 1 : 0, &el);
        int ok = s == NULL && s_has_error(&el, b->ptr, b->msg);
        if (getenv("MECH_TEST_VERBOSE")) {
            printf("case %d:\n", i);
            for (int k = 0; k < el.n; k++)
                printf("    [%s] %s\n", el.e[k].pointer, el.e[k].message);
        }
        if (!CHECK(ok)) {
            fprintf(stderr, "  case %d: want [%s] \"%s\"; got %s with:\n", i, b->ptr, b->msg,
                    s ? "a spec" : "NULL");
            s_print_errors(&el);
        }
        mbs_spec_free(&s);
    }
}

/* ---- several errors in one pass; limits ---------------------------------------------------- */

static void test_many_errors(void)
{
    mbs_errlist el;
    mbs_spec *s = s_parse(
        "{ 'dimension': 2,"
        "  'bodies': [ { 'name': 'b', 'masss': 1, 'com': [0, 0] },"
        "              { 'name': 'c', 'mass': -3, 'com': [0] } ],"
        "  'joints': [ { 'name': 'J', 'type': 'revolute', 'bodies': ['ground', 'x'], 'at': [0, 0] } ],"
        "  'solver': { 't_end': 1, 'step': 0 },"
        "  'outputs': { 'channels': [ { 'name': 'E', 'quantity': 'enrgy' } ] } }",
        NULL, 0, &el);
    CHECK(s == NULL);
    CHECK(el.n >= 6);
    CHECK(s_has_error(&el, "/bodies/0/masss", "did you mean 'mass'"));
    CHECK(s_has_error(&el, "/bodies/0", "missing required key 'mass'"));
    CHECK(s_has_error(&el, "/bodies/1/mass", "must be > 0"));
    CHECK(s_has_error(&el, "/bodies/1/com", "2 numbers"));
    CHECK(s_has_error(&el, "/joints/0/bodies/1", "unknown body 'x'"));
    CHECK(s_has_error(&el, "/solver/step", "must be > 0"));
    CHECK(s_has_error(&el, "/outputs/channels/0/quantity", "did you mean 'energy'"));
    mbs_spec_free(&s);

    /* more errors than the list holds: counted as dropped */
    size_t cap = 200 * 64 + 256;
    char *doc = malloc(cap);
    size_t len = (size_t)snprintf(doc, cap, "{'dimension': 2, " SOLVER ", 'bodies': [");
    for (int i = 0; i < 200; i++)
        len += (size_t)snprintf(doc + len, cap - len, "%s{'name': 'b%d', 'com': [0, 0]}",
                                i ? ", " : "", i);
    snprintf(doc + len, cap - len, "]}");
    s = s_parse(doc, NULL, 0, &el);
    CHECK(s == NULL);
    CHECK(el.n == MBS_ERR_MAX);
    CHECK(el.dropped == 200 - MBS_ERR_MAX);
    free(doc);
}

static void test_hostile(void)
{
    mbs_errlist el;
    /* depth bomb: 10000 '[' */
    size_t n = 10000;
    char *bomb = malloc(n);
    memset(bomb, '[', n);
    memset(&el, 0, sizeof el);
    CHECK(mech_parse(bomb, n, NULL, 0, &el) == NULL);
    CHECK(s_has_error(&el, "", "nested too deeply"));
    /* brackets inside strings do not count; escaped quotes are honoured */
    free(bomb);
    const char *ok = "{'dimension': 2, 'name': '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\\\\\\'[[[',"
                     " 'bodies': [" BODY "], " SOLVER "}";
    mbs_spec *s = s_parse(ok, NULL, 0, &el);
    CHECK(s != NULL);
    if (!s)
        s_print_errors(&el);
    mbs_spec_free(&s);

    /* size limit: refused before reading */
    char small[4] = "{}";
    memset(&el, 0, sizeof el);
    CHECK(mech_parse(small, (size_t)MECH_MAX_BYTES + 1, NULL, 0, &el) == NULL);
    CHECK(s_has_error(&el, "", "too large"));

    /* not NUL-terminated: only len bytes are read */
    char *doc = s_json(P2(""));
    size_t dl = strlen(doc);
    char *copy = malloc(dl);
    memcpy(copy, doc, dl);
    memset(&el, 0, sizeof el);
    s = mech_parse(copy, dl, NULL, 0, &el);
    CHECK(s != NULL);
    mbs_spec_free(&s);
    free(copy);
    free(doc);

    /* too many items */
    size_t items = MECH_MAX_ITEMS + 1, cap = items * 2 + 256;
    char *big = malloc(cap);
    size_t len = (size_t)snprintf(big, cap, "{\"dimension\": 2, \"solver\": {\"t_end\": 1}, "
                                            "\"bodies\": [");
    for (size_t i = 0; i < items; i++) {
        big[len++] = i ? ',' : ' ';
        big[len++] = '0';
    }
    len += (size_t)snprintf(big + len, cap - len, "]}");
    memset(&el, 0, sizeof el);
    CHECK(mech_parse(big, len, NULL, 0, &el) == NULL);
    CHECK(s_has_error(&el, "/bodies", "too many entries"));
    free(big);

    /* NULL error list and NULL text are tolerated */
    CHECK(mech_parse(NULL, 0, NULL, 0, NULL) == NULL);
    mech_override bad = {NULL, "1"};
    memset(&el, 0, sizeof el);
    s = s_parse(P2(""), &bad, 1, &el);
    CHECK(s == NULL && s_has_error(&el, "", "no name or no value"));
}

/* Documents that must pass: defaults and accepted spellings. */
static void test_valid_variants(void)
{
    mbs_errlist el;
    mbs_spec *s = s_parse(P2(""), NULL, 0, &el);
    CHECK(s != NULL);
    if (s) {
        CHECK(s->nchannel == 3);
        CHECK_STR(s->channels[0].name, "b.x");
        CHECK_STR(s->channels[1].name, "b.y");
        CHECK(s->channels[1].component == MBS_C_Y);
        CHECK_NEAR(s->gravity[1], 0, 0);
        CHECK(s->njoint == 0 && s->nforce == 0 && s->ndriver == 0);
        CHECK_NEAR(s->out_interval, 0.01, 1e-15);
    }
    mbs_spec_free(&s);

    /* gravity as a force element; an empty channel list; force value as a
     * single function object in 2-D torque; parameters in dependency order
     * regardless of document order */
    s = s_parse(P2(", 'parameters': {'c': '=$b*2', 'b': '=$a+1', 'a': 1},"
                   " 'forces': [{'type': 'gravity', 'value': [0, '=-$c']},"
                   "            {'type': 'torque', 'body': 'b', 'value': {'kind': 'constant', 'value': 2}}],"
                   " 'outputs': {'channels': []}"),
                NULL, 0, &el);
    CHECK(s != NULL);
    if (s) {
        CHECK_NEAR(s->gravity[1], -4, 0);
        CHECK(s->nchannel == 0);
        CHECK(s->nforce == 1);
        CHECK_NEAR(mbs_fn_eval(&s->forces[0].value[0], 0, NULL, NULL), 2, 0);
    } else {
        s_print_errors(&el);
    }
    mbs_spec_free(&s);

    /* 3-D reaction torque and angular velocity components; orientation */
    s = s_parse(P3(", 'joints': [{'name': 'S', 'type': 'spherical', 'bodies': ['b', 'ground'], 'at': [0, 0, 1]}],"
                   " 'outputs': {'interval': 0.5, 'channels': ["
                   "  {'name': 'T', 'quantity': 'reaction_torque', 'joint': 'S', 'component': 'magnitude'},"
                   "  {'name': 'w', 'quantity': 'angular_velocity', 'body': 'b', 'component': 'y'},"
                   "  {'name': 'q', 'quantity': 'orientation', 'body': 'b', 'component': 'w'},"
                   "  {'name': 'z', 'quantity': 'acceleration', 'body': 'b', 'component': 'z', 'point': [1, 2, 3]}]}"),
                NULL, 0, &el);
    CHECK(s != NULL);
    if (s) {
        CHECK(s->channels[0].component == MBS_C_MAGNITUDE);
        CHECK(s->channels[1].component == MBS_C_Y);
        CHECK(s->channels[2].component == MBS_C_W);
        CHECK_NEAR(s->channels[3].point[2], 3, 0);
        CHECK_NEAR(s->out_interval, 0.5, 0);
    } else {
        s_print_errors(&el);
    }
    mbs_spec_free(&s);
}

/* ---- contacts ------------------------------------------------------------------------------ */

static void test_contacts_planar(void)
{
    mbs_errlist el;
    mbs_spec *s = s_parse(
        "{ 'dimension': 2, 'gravity': [0, -9.81], 'parameters': { 'r': 0.1 },"
        "  'bodies': [ { 'name': 'w1', 'mass': 1, 'com': [0, 0.1] },"
        "              { 'name': 'w2', 'mass': 1, 'com': [0.5, 0.2] } ],"
        "  'shapes': ["
        "    { 'name': 'floor', 'body': 'ground', 'type': 'line', 'point': [0, 0], 'normal': [0, 2] },"
        "    { 'name': 'c1', 'body': 'w1', 'type': 'circle', 'center': [0, 0.1], 'radius': '$r' },"
        "    { 'name': 'c2', 'body': 'w2', 'type': 'circle', 'center': [0.5, 0.2], 'radius': '=2*$r' },"
        "    { 'name': 'tip', 'body': 'w1', 'type': 'point', 'at': [0.1, 0.1] },"
        "    { 'name': 'ramp', 'body': 'ground', 'type': 'segment', 'points': [[0, 0], [1, 1]] } ],"
        "  'contacts': ["
        "    { 'shapes': ['c1', 'floor'], 'stiffness': 1e5 },"
        "    { 'shapes': ['c2', 'c1'], 'law': 'lankarani_nikravesh', 'stiffness': '=2e5',"
        "      'exponent': 1, 'restitution': 0.5, 'friction': 0.3, 'slip_velocity': 0.01,"
        "      'margin': 0.001 },"
        "    { 'shapes': ['tip', 'ramp'], 'law': 'hertz', 'stiffness': 1e6 } ],"
        "  'solver': { 't_end': 1 } }",
        NULL, 0, &el);
    CHECK(s != NULL);
    if (!s) {
        s_print_errors(&el);
        return;
    }
    CHECK(s->nshape == 5);
    const mbs_shape_spec *sh = s->shapes;
    CHECK_STR(sh[0].name, "floor");
    CHECK(sh[0].kind == MBS_SHAPE_SPEC_LINE && sh[0].body == MBS_GROUND);
    CHECK_NEAR(sh[0].q[1], 1, 0); /* normalised */
    CHECK_NEAR(sh[0].q[2], 0, 0);
    CHECK(sh[1].kind == MBS_SHAPE_SPEC_CIRCLE && sh[1].body == 0);
    CHECK_NEAR(sh[1].p[1], 0.1, 0);
    CHECK_NEAR(sh[1].radius, 0.1, 0);
    CHECK_NEAR(sh[2].radius, 0.2, 1e-15);
    CHECK(sh[2].body == 1);
    CHECK(sh[3].kind == MBS_SHAPE_SPEC_POINT);
    CHECK_NEAR(sh[3].p[0], 0.1, 0);
    CHECK(sh[4].kind == MBS_SHAPE_SPEC_SEGMENT);
    CHECK_NEAR(sh[4].q[0], 1, 0);
    CHECK_NEAR(sh[4].p[2], 0, 0);
    CHECK_NEAR(sh[4].quat[0], 1, 0);

    CHECK(s->ncontact == 3);
    const mbs_contact_spec *c = s->contacts;
    CHECK(c[0].shape[0] == 1 && c[0].shape[1] == 0);
    CHECK(c[0].law == MBS_LAW_HUNT_CROSSLEY); /* defaults */
    CHECK_NEAR(c[0].stiffness, 1e5, 0);
    CHECK_NEAR(c[0].exponent, 1.5, 0);
    CHECK_NEAR(c[0].restitution, 1, 0);
    CHECK_NEAR(c[0].friction, 0, 0);
    CHECK_NEAR(c[0].slip_velocity, 1e-4, 0);
    CHECK_NEAR(c[0].margin, 0, 0);
    CHECK(c[1].shape[0] == 2 && c[1].shape[1] == 1); /* order as declared */
    CHECK(c[1].law == MBS_LAW_LANKARANI_NIKRAVESH);
    CHECK_NEAR(c[1].stiffness, 2e5, 0);
    CHECK_NEAR(c[1].exponent, 1, 0);
    CHECK_NEAR(c[1].restitution, 0.5, 0);
    CHECK_NEAR(c[1].friction, 0.3, 0);
    CHECK_NEAR(c[1].slip_velocity, 0.01, 0);
    CHECK_NEAR(c[1].margin, 0.001, 0);
    CHECK(c[2].shape[0] == 3 && c[2].shape[1] == 4 && c[2].law == MBS_LAW_HERTZ);
    mbs_spec_free(&s);
}

/* A spatial scene: bob (sphere), crate (box), two capsules, nballs balls
 * ball_0.. and a floor; `first` is put before the other contacts. */
static char *s_balls_doc(int nballs, const char *first)
{
    size_t cap = 4096 + (size_t)nballs * 200, len = 0;
    char *d = malloc(cap);
    len += (size_t)snprintf(d + len, cap - len,
        "{'dimension': 3, 'gravity': [0, 0, -9.81], 'solver': {'t_end': 1},"
        " 'outputs': {'channels': []}, 'bodies': ["
        " {'name': 'bob', 'mass': 1, 'com': [0, 0, 1]}, {'name': 'crate', 'mass': 1, 'com': [2, 0, 1]},"
        " {'name': 'rod1', 'mass': 1, 'com': [4, 0, 1]}, {'name': 'rod2', 'mass': 1, 'com': [4, 1, 1]}");
    for (int i = 0; i < nballs; i++)
        len += (size_t)snprintf(d + len, cap - len, ", {'name': 'B%d', 'mass': 1, 'com': [%d, 5, 1]}",
                                i, i);
    len += (size_t)snprintf(d + len, cap - len, "], 'shapes': ["
        " {'name': 'floor', 'body': 'ground', 'type': 'plane', 'point': [0, 0, 0], 'normal': [0, 0, 5]},"
        " {'name': 'bob_s', 'body': 'bob', 'type': 'sphere', 'center': [0, 0, 1], 'radius': 0.5},"
        " {'name': 'crate_box', 'body': 'crate', 'type': 'box', 'center': [2, 0, 1],"
        "  'half_extents': [0.1, 0.2, 0.3], 'orientation': [0.7071, 0, 0, 0.7071]},"
        " {'name': 'cap1', 'body': 'rod1', 'type': 'capsule', 'points': [[4, 0, 0.5], [4, 0, 1.5]],"
        "  'radius': 0.05},"
        " {'name': 'cap2', 'body': 'rod2', 'type': 'capsule', 'points': [[3.5, 1, 1], [4.5, 1, 1]],"
        "  'radius': 0.05}");
    for (int i = 0; i < nballs; i++)
        len += (size_t)snprintf(d + len, cap - len, ", {'name': 'ball_%d', 'body': 'B%d',"
                                " 'type': 'sphere', 'center': [%d, 5, 1], 'radius': 0.4}", i, i, i);
    snprintf(d + len, cap - len, "], 'contacts': [%s"
        " {'shapes': ['bob_s', 'floor'], 'stiffness': 1e5, 'friction': 0.2},"
        " {'shapes': ['crate_box', 'floor'], 'law': 'hertz', 'stiffness': 1e6},"
        " {'shapes': ['cap1', 'cap2'], 'stiffness': 1e5, 'margin': 0.01},"
        " {'between': ['ball_*', 'ball_*'], 'stiffness': 1e4, 'restitution': 0.8},"
        " {'between': ['ball_?', 'floor'], 'stiffness': 2e4}]}", first);
    return d;
}

static void test_contacts_spatial(void)
{
    mbs_errlist el;
    char *doc = s_balls_doc(10, "");
    mbs_spec *s = s_parse(doc, NULL, 0, &el);
    free(doc);
    CHECK(s != NULL);
    if (!s) {
        s_print_errors(&el);
        return;
    }
    CHECK(s->nshape == 15);
    const mbs_shape_spec *sh = s->shapes;
    CHECK(sh[0].kind == MBS_SHAPE_SPEC_PLANE && sh[0].body == MBS_GROUND);
    CHECK_NEAR(sh[0].q[2], 1, 0);
    CHECK(sh[1].kind == MBS_SHAPE_SPEC_SPHERE && sh[1].body == 0);
    CHECK_NEAR(sh[1].p[2], 1, 0);
    CHECK(sh[2].kind == MBS_SHAPE_SPEC_BOX && sh[2].body == 1);
    CHECK_NEAR(sh[2].half[2], 0.3, 0);
    CHECK_NEAR(sh[2].quat[0], sqrt(0.5), 1e-15); /* normalised */
    CHECK_NEAR(sh[2].quat[3], sqrt(0.5), 1e-15);
    CHECK_NEAR(sh[1].quat[0], 1, 0);
    CHECK(sh[3].kind == MBS_SHAPE_SPEC_CAPSULE && sh[3].body == 2);
    CHECK_NEAR(sh[3].q[2], 1.5, 0);
    CHECK_NEAR(sh[3].radius, 0.05, 0);
    CHECK_STR(sh[14].name, "ball_9");

    /* 3 pairs, 45 ball pairs, 10 balls on the floor */
    CHECK(s->ncontact == 3 + 45 + 10);
    if (s->ncontact != 58) {
        mbs_spec_free(&s);
        return;
    }
    const mbs_contact_spec *c = s->contacts;
    CHECK(c[0].shape[0] == 1 && c[0].shape[1] == 0);
    CHECK_NEAR(c[0].friction, 0.2, 0);
    CHECK(c[1].shape[0] == 2 && c[1].shape[1] == 0 && c[1].law == MBS_LAW_HERTZ);
    CHECK(c[2].shape[0] == 3 && c[2].shape[1] == 4);
    CHECK_NEAR(c[2].margin, 0.01, 0);
    int k = 3, ok = 1;
    for (int i = 0; i < 10; i++)
        for (int j = i + 1; j < 10; j++, k++)
            ok &= c[k].shape[0] == 5 + i && c[k].shape[1] == 5 + j &&
                  c[k].restitution == 0.8 && c[k].stiffness == 1e4 &&
                  c[k].law == MBS_LAW_HUNT_CROSSLEY;
    CHECK(ok);
    for (int i = 0; i < 10; i++, k++)
        ok &= c[k].shape[0] == 5 + i && c[k].shape[1] == 0 && c[k].stiffness == 2e4 &&
              c[k].restitution == 1;
    CHECK(ok);
    mbs_spec_free(&s);

    /* an explicit pair before a group wins over the group's duplicate */
    doc = s_balls_doc(10, "{'shapes': ['ball_7', 'ball_3'], 'stiffness': 7, 'friction': 0.5},");
    s = s_parse(doc, NULL, 0, &el);
    free(doc);
    CHECK(s != NULL);
    if (s) {
        CHECK(s->ncontact == 58);
        CHECK(s->contacts[0].shape[0] == 12 && s->contacts[0].shape[1] == 8);
        CHECK_NEAR(s->contacts[0].stiffness, 7, 0);
        int n37 = 0;
        for (int i = 0; i < s->ncontact; i++)
            n37 += (s->contacts[i].shape[0] == 8 && s->contacts[i].shape[1] == 12) ||
                   (s->contacts[i].shape[0] == 12 && s->contacts[i].shape[1] == 8);
        CHECK(n37 == 1);
    } else {
        s_print_errors(&el);
    }
    mbs_spec_free(&s);

    /* expansion limit: 500 balls pairwise are 124750 pairs */
    doc = s_balls_doc(500, "");
    s = s_parse(doc, NULL, 0, &el);
    free(doc);
    CHECK(s == NULL && s_has_error(&el, "/contacts/3/between", "too many contact pairs"));
    mbs_spec_free(&s);

    /* work limit: 3200 shapes on one body, all against all (no pair results) */
    size_t cap = 3200 * 100 + 256, len = 0;
    doc = malloc(cap);
    len += (size_t)snprintf(doc + len, cap - len, "{'dimension': 3, 'bodies': [" BODY3 "], "
                            SOLVER ", 'contacts': [{'between': ['*', '*'], 'stiffness': 1}], "
                            "'shapes': [");
    for (int i = 0; i < 3200; i++)
        len += (size_t)snprintf(doc + len, cap - len, "%s{'name': 's%d', 'body': 'b', "
                                "'type': 'sphere', 'center': [0, 0, 0], 'radius': 1}",
                                i ? ", " : "", i);
    snprintf(doc + len, cap - len, "]}");
    s = s_parse(doc, NULL, 0, &el);
    free(doc);
    CHECK(s == NULL && el.n == 1 &&
          s_has_error(&el, "/contacts/0/between", "too much pattern matching"));
    mbs_spec_free(&s);
}

int main(void)
{
    test_fourbar();
    test_spatial();
    test_overrides();
    test_invalid_table();
    test_many_errors();
    test_hostile();
    test_valid_variants();
    test_contacts_planar();
    test_contacts_spatial();
    return CHECK_SUMMARY("mechanism_test");
}
