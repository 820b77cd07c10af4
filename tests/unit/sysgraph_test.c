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
    return CHECK_SUMMARY("sysgraph_test");
}
