/*
 * sysgraph_test.c - the system graph of the relative-coordinate formulation
 * (common/mbs/formulation/relative/sysgraph.h): branch joints, chords, loop lengths, joint
 * coordinates and circuit equations of the examples, whose mobility
 * (coordinates - equations) must equal the natural-coordinate check's
 * degrees of freedom where no constraint is redundant; the choice of the
 * chord among joints of different freedom; floating roots.
 */
#include "check.h"
#include "mbs/formulation/relative/sysgraph.h"
#include "mechanism/mechanism.h"
#include "testutil.h"

static mbs_spec *s_parse_file(const char *path)
{
    size_t len;
    char *text = t_slurp(path, &len);
    mbs_errlist err = {0};
    mbs_spec *s = text ? mech_parse(text, len, NULL, 0, &err) : NULL;
    free(text);
    if (!s) printf("  cannot parse %s: %s\n", path, err.n ? err.e[0].message : "?");
    return s;
}

static mbs_spec *s_parse_text(const char *text)
{
    mbs_errlist err = {0};
    mbs_spec *s = mech_parse(text, strlen(text), NULL, 0, &err);
    if (!s) printf("  cannot parse: %s\n", err.n ? err.e[0].message : "?");
    return s;
}

/* One example: chords, coordinates, equations, the longest loop. */
static void s_expect(const char *path, int nchord, int ncoord, int ncons, int maxloop, int nroot)
{
    mbs_spec *s = s_parse_file(path);
    if (!CHECK(s != NULL)) return;
    mbs_sysgraph g;
    CHECK(mbs_sysgraph_build(s, &g) == 0);
    int lmax = 0;
    for (int c = 0; c < g.nchord; c++) lmax = g.loop[c] > lmax ? g.loop[c] : lmax;
    printf("  %-48s %3d bodies %3d joints: %3d chords (longest loop %d joints), %3d roots, %4d coordinates, "
           "%4d equations, mobility %d\n", path, s->nbody, s->njoint, g.nchord, lmax, g.nroot, g.ncoord,
           g.nconstraint, g.ncoord - g.nconstraint);
    CHECK(g.nchord == nchord);
    CHECK(g.ncoord == ncoord);
    CHECK(g.nconstraint == ncons);
    CHECK(lmax == maxloop);
    CHECK(g.nroot == nroot);
    /* a tree: every body once in the order, after its parent */
    int *pos = calloc((size_t)s->nbody, sizeof(int));
    for (int k = 0; k < s->nbody; k++) pos[g.order[k]] = k;
    for (int b = 0; b < s->nbody; b++)
        if (g.parent[b] >= 0) CHECK(pos[g.parent[b]] < pos[b]);
    free(pos);
    mbs_sysgraph_free(&g);
    mbs_spec_free(&s);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    /* planar: four-bar (mobility 1), N-four-bar N = 40 (40 loops of 4
     * joints, mobility 1), open chains, a slider-crank */
    s_expect("examples/four_bar.json", 1, 3, 2, 4, 0);
    s_expect("examples/iftomm_a02_four_bar_n40.json", 40, 81, 80, 4, 0);
    s_expect("examples/double_pendulum.json", 0, 2, 0, 0, 0);
    s_expect("examples/slider_crank.json", 1, 3, 2, 4, 0);
    /* spatial: the slider-crank is cut at its spherical joint (3 equations,
     * not the universal joint's 4); Bricard: one loop of six revolutes, 5
     * equations for 5 coordinates (mobility 0 by count, 1 in fact: one
     * equation is redundant, as the natural-coordinate check reports) */
    s_expect("examples/iftomm_spatial_slider_crank.json", 1, 4, 3, 4, 0);
    s_expect("examples/iftomm_a04_bricard.json", 1, 5, 5, 6, 0);
    /* free bodies: each ball a floating root of 6 freedoms */
    s_expect("examples/balls_in_box.json", 0, 6 * 27, 0, 0, 27);
    /* the chord among joints of different freedom reaching one body at the
     * same depth: body C hangs from A by a revolute and from B by a
     * spherical joint; the spherical one is cut (3 equations, not 5) */
    mbs_spec *s = s_parse_text(
        "{\"dimension\": 3, \"bodies\": ["
        " {\"name\": \"A\", \"mass\": 1, \"inertia\": [1, 1, 1], \"com\": [0, 0, -1]},"
        " {\"name\": \"B\", \"mass\": 1, \"inertia\": [1, 1, 1], \"com\": [2, 0, -1]},"
        " {\"name\": \"C\", \"mass\": 1, \"inertia\": [1, 1, 1], \"com\": [1, 0, -2]}],"
        " \"joints\": ["
        " {\"name\": \"gA\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"A\"], \"at\": [0, 0, 0], \"axis\": [0, 1, 0]},"
        " {\"name\": \"gB\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"B\"], \"at\": [2, 0, 0], \"axis\": [0, 1, 0]},"
        " {\"name\": \"BC\", \"type\": \"spherical\", \"bodies\": [\"B\", \"C\"], \"at\": [2, 0, -2]},"
        " {\"name\": \"AC\", \"type\": \"revolute\", \"bodies\": [\"A\", \"C\"], \"at\": [0, 0, -2], \"axis\": [0, 1, 0]}],"
        " \"solver\": {\"t_end\": 1}}");
    if (CHECK(s != NULL)) {
        mbs_sysgraph g;
        CHECK(mbs_sysgraph_build(s, &g) == 0);
        CHECK(g.nchord == 1 && g.chords[0] == 2); /* BC */
        CHECK(g.nconstraint == 3 && g.ncoord == 3 && g.loop[0] == 4);
        CHECK(g.parent_joint[2] == 3);            /* C hangs from A by AC */
        mbs_sysgraph_free(&g);
        mbs_spec_free(&s);
    }
    /* loaded joints stay out of the chords: the four-bar's C (the chord
     * without load: reached at the same level as B, of higher index) with a
     * rotational spring is kept, B cut instead; a planar five-bar whose
     * joint bc (joining two bodies of the second level: the breadth-first
     * chord) carries a driver is exchanged for the first unloaded joint of
     * its loop, ga, and the tree grown again along the new branches (a
     * longer loop: b hangs from c); with every joint of the loop loaded bc
     * stays the chord */
    static const char *const FOUR =
        "{\"dimension\": 2, \"bodies\": [{\"name\": \"crank\", \"mass\": 1, \"inertia\": 0.1, \"com\": [0, 0.5]},"
        " {\"name\": \"coupler\", \"mass\": 1, \"inertia\": 0.1, \"com\": [1.5, 1]},"
        " {\"name\": \"rocker\", \"mass\": 1, \"inertia\": 0.1, \"com\": [3, 0]}],"
        " \"joints\": [{\"name\": \"A\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"crank\"], \"at\": [0, 0]},"
        " {\"name\": \"B\", \"type\": \"revolute\", \"bodies\": [\"crank\", \"coupler\"], \"at\": [0, 1]},"
        " {\"name\": \"C\", \"type\": \"revolute\", \"bodies\": [\"coupler\", \"rocker\"], \"at\": [3, 1]},"
        " {\"name\": \"D\", \"type\": \"revolute\", \"bodies\": [\"rocker\", \"ground\"], \"at\": [3, -1]}],"
        " \"forces\": [%s], \"solver\": {\"t_end\": 1}}";
    static const char *const FIVE =
        "{\"dimension\": 2, \"bodies\": [{\"name\": \"a\", \"mass\": 1, \"inertia\": 0.1, \"com\": [0, 0.5]},"
        " {\"name\": \"b\", \"mass\": 1, \"inertia\": 0.1, \"com\": [0.5, 1.25]},"
        " {\"name\": \"c\", \"mass\": 1, \"inertia\": 0.1, \"com\": [1.5, 1.25]},"
        " {\"name\": \"d\", \"mass\": 1, \"inertia\": 0.1, \"com\": [2, 0.5]}],"
        " \"joints\": [{\"name\": \"ga\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"a\"], \"at\": [0, 0]},"
        " {\"name\": \"ab\", \"type\": \"revolute\", \"bodies\": [\"a\", \"b\"], \"at\": [0, 1]},"
        " {\"name\": \"bc\", \"type\": \"revolute\", \"bodies\": [\"b\", \"c\"], \"at\": [1, 1.5]},"
        " {\"name\": \"cd\", \"type\": \"revolute\", \"bodies\": [\"c\", \"d\"], \"at\": [2, 1]},"
        " {\"name\": \"dg\", \"type\": \"revolute\", \"bodies\": [\"d\", \"ground\"], \"at\": [2, 0]}],"
        " \"drivers\": [{\"joint\": \"bc\", \"motion\": {\"kind\": \"constant_speed\", \"speed\": 0.1}}],"
        " \"forces\": [%s], \"solver\": {\"t_end\": 1}}";
    static const struct { const char *fmt, *forces; int chord, loop; } L[] = {
        {FOUR, "", 2, 4},
        {FOUR, "{\"type\": \"rotational_spring_damper\", \"joint\": \"C\", \"stiffness\": 1}", 1, 4},
        {FIVE, "", 0, 5},
        {FIVE, "{\"type\": \"joint_damping\", \"joint\": \"ga\", \"coefficient\": 1}, "
               "{\"type\": \"joint_damping\", \"joint\": \"ab\", \"coefficient\": 1}, "
               "{\"type\": \"dc_motor\", \"joint\": \"cd\", \"resistance\": 1, \"torque_constant\": 0.1, \"back_emf_constant\": 0.1, \"voltage\": 1}, "
               "{\"type\": \"joint_actuator\", \"joint\": \"dg\", \"value\": 0.1}", 2, 5},
    };
    for (int k = 0; k < 4; k++) {
        char doc[4096];
        snprintf(doc, sizeof doc, L[k].fmt, L[k].forces);
        s = s_parse_text(doc);
        if (!CHECK(s != NULL)) continue;
        mbs_sysgraph g;
        CHECK(mbs_sysgraph_build(s, &g) == 0);
        printf("  loads case %d: chord %s (expected %s), loop of %d joints\n", k, s->joints[g.chords[0]].name,
               s->joints[L[k].chord].name, g.loop[0]);
        CHECK(g.nchord == 1 && g.chords[0] == L[k].chord && g.loop[0] == L[k].loop);
        CHECK(g.ncoord - g.nconstraint == (k < 2 ? 1 : 2)); /* four-bar 1, five-bar 2 freedoms */
        /* a tree: every body once, after its parent, reached by a branch */
        int *pos = calloc((size_t)s->nbody, sizeof(int));
        for (int i = 0; i < s->nbody; i++) pos[g.order[i]] = i;
        for (int b = 0; b < s->nbody; b++) {
            CHECK(g.parent_joint[b] >= 0 && g.branch[g.parent_joint[b]]);
            if (g.parent[b] >= 0) CHECK(pos[g.parent[b]] < pos[b]);
        }
        if (k == 2) CHECK(g.parent[1] == 2); /* b hangs from c by bc */
        free(pos);
        mbs_sysgraph_free(&g);
        mbs_spec_free(&s);
    }
    return CHECK_SUMMARY("sysgraph_test");
}
