/*
 * relative_models.h - test mechanisms shared by relative_test and
 * relative_reaction_test: a planar cart with a pole, and the spatial loop
 * that closes with a chord of each joint type (four tree joints, ground -R
 * z- a -R x- b and ground -P y- c -R- d, the chord K between b and d, both
 * reached at depth 2, so that any type is the chord).
 */
#ifndef RELATIVE_MODELS_H
#define RELATIVE_MODELS_H

#include <stdio.h>

/* A cart on an inclined slide with a spring and damping, a pole hinged on it. */
static const char *const CART =
    "{\"name\": \"cart\", \"dimension\": 2, \"gravity\": [0, -9.81],"
    " \"bodies\": [{\"name\": \"cart\", \"mass\": 2, \"inertia\": 0.1, \"com\": [0, 0]},"
    "  {\"name\": \"pole\", \"mass\": 0.5, \"inertia\": 0.02, \"com\": [0.1, -0.5], \"angle\": 0.3}],"
    " \"joints\": [{\"name\": \"slide\", \"type\": \"prismatic\", \"bodies\": [\"ground\", \"cart\"], \"at\": [0, 0], \"axis\": [0.8, 0.6]},"
    "  {\"name\": \"hinge\", \"type\": \"revolute\", \"bodies\": [\"cart\", \"pole\"], \"at\": [0, 0]}],"
    " \"forces\": [{\"type\": \"spring_damper\", \"bodies\": [\"ground\", \"cart\"], \"points\": [[-1, 0], [0, 0]],"
    "   \"stiffness\": 20, \"damping\": 0.5}, {\"type\": \"joint_damping\", \"joint\": \"slide\", \"coefficient\": 0.7}],"
    " \"solver\": {\"t_end\": 1}, \"outputs\": {\"interval\": 0.1, \"channels\": []}}";

/* The chord types with their geometry keys. */
static const struct { const char *type, *extra; } T_CHORDS[] = {
    {"revolute", "\"at\": [0.6, 0.5, 0.4], \"axis\": [0, 0.6, 0.8]"},
    {"prismatic", "\"at\": [0.6, 0.5, 0.4], \"axis\": [0.6, 0, 0.8]"},
    {"cylindrical", "\"at\": [0.6, 0.5, 0.4], \"axis\": [0.6, 0, 0.8]"},
    {"universal", "\"at\": [0.6, 0.5, 0.4], \"axes\": [[0, 0, 1], [0.6, 0.8, 0]]"},
    {"spherical", "\"at\": [0.6, 0.5, 0.4]"},
    {"fixed", "\"at\": [0.6, 0.5, 0.4]"},
    {"distance", "\"points\": [[1, 1, 1], [0.6, 0.5, 0.4]]"},
};
#define T_NCHORD ((int)(sizeof T_CHORDS / sizeof T_CHORDS[0]))

/* The loop's document closed by chord type k, with the given gravity
 * ("[gx, gy, gz]") and what follows the joints (", \"forces\": [...]" or "";
 * the solver and outputs are added), into doc (size bytes). */
static inline void t_chord_loop(char *doc, size_t size, int k, const char *gravity, const char *more)
{
    snprintf(doc, size,
             "{\"name\": \"loop\", \"dimension\": 3, \"gravity\": %s,"
             " \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": [0.1, 0.1, 0.1, 0, 0, 0], \"com\": [0.3, 0, 0]},"
             "  {\"name\": \"b\", \"mass\": 1, \"inertia\": [0.1, 0.1, 0.1, 0, 0, 0], \"com\": [0.5, 0.2, 0.1]},"
             "  {\"name\": \"c\", \"mass\": 1, \"inertia\": [0.1, 0.1, 0.1, 0, 0, 0], \"com\": [0.8, 0.6, 0.2]},"
             "  {\"name\": \"d\", \"mass\": 1, \"inertia\": [0.1, 0.1, 0.1, 0, 0, 0], \"com\": [0.7, 0.5, 0.3]}],"
             " \"joints\": [{\"name\": \"J1\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"a\"], \"at\": [0, 0, 0], \"axis\": [0, 0, 1]},"
             "  {\"name\": \"J2\", \"type\": \"revolute\", \"bodies\": [\"a\", \"b\"], \"at\": [0.5, 0, 0], \"axis\": [1, 0, 0]},"
             "  {\"name\": \"J3\", \"type\": \"prismatic\", \"bodies\": [\"ground\", \"c\"], \"at\": [0.8, 0.6, 0.2], \"axis\": [0, 1, 0]},"
             "  {\"name\": \"J4\", \"type\": \"revolute\", \"bodies\": [\"c\", \"d\"], \"at\": [0.8, 0.6, 0.3], \"axis\": [0, 0.6, 0.8]},"
             "  {\"name\": \"K\", \"type\": \"%s\", \"bodies\": [\"b\", \"d\"], %s}]%s,"
             " \"solver\": {\"t_end\": 1}, \"outputs\": {\"interval\": 0.1, \"channels\": []}}",
             gravity, T_CHORDS[k].type, T_CHORDS[k].extra, more);
}

#endif
