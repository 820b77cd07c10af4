/*
 * relative_reaction_test.c - the relative formulation's joint reactions from
 * its cutset wrenches (formulation/relative/tree_reaction.c, issue 12)
 * against the natural coordinates' reaction recovery (output/reaction.c,
 * body balances solved for each joint's reaction components):
 *
 *  - at the same state: random states of open trees (every joint type the
 *    tree carries, joint loads and applied forces), and the accepted states
 *    of relative integrations of closed loops (the slider-crank with its
 *    driver, the four-bar, the spatial slider-crank): the cutset wrenches
 *    against the natural recovery at the state mapped to the natural
 *    coordinates;
 *  - whole runs: every joint's reaction force and torque components as
 *    output channels, the relative formulation against the natural one
 *    (slider-crank, four-bar, double pendulum, spatial slider-crank).
 */
#include "check.h"
#include "testutil.h"
#include "relative_models.h"

#include "mbs/formulation/natural/natural.h"
#include "mbs/integrate/integrator_rel.h"
#include "mbs/model/accuracy.h"
#include "mbs/model/data.h"
#include "mbs/run/relative.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static unsigned s_seed = 4242;
static double s_rand(void)
{
    s_seed = s_seed * 1103515245u + 12345u;
    return ((s_seed >> 8) & 0xffff) / 65536.0 - 0.5;
}

/* What a comparison at one state needs: the model, its data (whose
 * natural state receives the mapped one), the tree and the two answers. */
typedef struct {
    const mbs_model *m;
    mbs_data *d;
    const mbs_rtree *t;
    double *rel;          /* (njoint x 6) cutset wrenches                    */
    double worst, scale;  /* largest difference, largest reaction component  */
    int states;
} s_cmp;

/* Compare at the state held by w (after mbs_rtree_accel at time `time`):
 * mbs_rtree_reactions against mbs_reaction at the mapped natural state,
 * every joint, force and torque, every component of the dimension. */
static void s_compare_at(s_cmp *c, mbs_rtree_ws *w, double time)
{
    const mbs_model *m = c->m;
    mbs_data *d = c->d;
    int dim = m->dim;
    mbs_rtree_reactions(c->t, w, c->rel);
    mbs_rel_to_natural(m, c->t, w, d->x, d->v, d->a);
    for (int j = 0; j < m->spec->njoint; j++)
        for (int torque = 0; torque < 2; torque++)
            for (int k = 0; k < 3; k++) {
                if (dim == 2 && (torque ? k != 2 : k == 2)) continue;
                double nat = mbs_reaction(m, d, j, torque, torque && dim == 2 ? MBS_C_Z : (mbs_component)k, time,
                                          d->x, d->v, d->a);
                double rel = c->rel[6 * j + 3 * torque + k];
                c->scale = fmax(c->scale, fabs(nat));
                if (!(fabs(nat - rel) <= c->worst)) c->worst = fabs(nat - rel);
            }
    c->states++;
}

/* A model, its initialised data and its tree for the document `doc`. */
typedef struct {
    mbs_spec *s;
    mbs_model *m;
    mbs_data *d;
    mbs_rtree t;
    mbs_rtree_ws w;
    int ok;
} s_setup;

static void s_setup_new(s_setup *u, const char *doc, const char *const *sets)
{
    memset(u, 0, sizeof *u);
    mbs_errlist el = {0};
    t_sets ts;
    t_sets_parse(&ts, sets);
    u->s = mech_parse(doc, strlen(doc), ts.ov, ts.n, &el);
    CHECK(u->s != NULL);
    if (!u->s) { for (int i = 0; i < el.n; i++) fprintf(stderr, "  %s\n", el.e[i].message); return; }
    u->m = mbs_model_new(u->s, NULL, &el);
    CHECK(u->m != NULL);
    u->d = u->m ? mbs_data_new(u->m) : NULL;
    CHECK(u->d && mbs_initialize(u->m, u->d, NULL, &el) == 0);
    CHECK(mbs_rtree_build(u->s, &u->t, &el) == 0);
    CHECK(mbs_rtree_ws_new(&u->t, &u->w) == 0);
    u->d->rx = mbs_reaction_ws_new(u->m);
    CHECK(u->d->rx != NULL);
    u->ok = u->d && u->d->rx;
}

static void s_setup_free(s_setup *u)
{
    if (u->ok) mbs_rtree_ws_free(&u->w);
    if (u->s && u->m) mbs_rtree_free(&u->t);
    mbs_data_free(&u->d);
    mbs_model_free(&u->m);
    mbs_spec_free(&u->s);
}

/* ---- open trees at random states ------------------------------------------------------- */

static const char *const DOUBLE_PENDULUM =
    "{\"name\": \"dp\", \"dimension\": 2, \"gravity\": [0.4, -9.81],"
    " \"bodies\": [{\"name\": \"a\", \"mass\": 1.3, \"inertia\": 0.11, \"com\": [0.5, 0.1], \"angle\": 0.2},"
    "  {\"name\": \"b\", \"mass\": 0.7, \"inertia\": 0.05, \"com\": [1.4, -0.3], \"angle\": -0.4}],"
    " \"joints\": [{\"name\": \"O\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"a\"], \"at\": [0, 0]},"
    "  {\"name\": \"K\", \"type\": \"revolute\", \"bodies\": [\"b\", \"a\"], \"at\": [1, 0.2]}],"
    " \"forces\": [{\"type\": \"spring_damper\", \"bodies\": [\"ground\", \"b\"], \"points\": [[2, 1], [1.8, -0.4]],"
    "   \"stiffness\": 40, \"damping\": 1.5, \"free_length\": 1.2, \"preload\": 3},"
    "  {\"type\": \"joint_damping\", \"joint\": \"K\", \"coefficient\": 0.3},"
    "  {\"type\": \"rotational_spring_damper\", \"joint\": \"K\", \"stiffness\": 5, \"damping\": 0.2, \"free_angle\": 0.3},"
    "  {\"type\": \"torque\", \"body\": \"b\", \"value\": \"=2*t+1\", \"frame\": \"global\"}],"
    " \"solver\": {\"t_end\": 1}, \"outputs\": {\"interval\": 0.1, \"channels\": []}}";

/* J2 of the chain is given by %s (its type and axis); J3's bodies are
 * listed child first (the reaction on the parent side) */
static const char *const CHAIN3 =
    "{\"name\": \"chain3\", \"dimension\": 3, \"gravity\": [0.3, -9.81, 1.2],"
    " \"bodies\": [{\"name\": \"a\", \"mass\": 1.1, \"inertia\": [0.02, 0.05, 0.04, 0.003, -0.002, 0.001],"
    "   \"com\": [0.2, -0.3, 0.1], \"orientation\": [0.923380516876639, 0.102597835208515, -0.307793505625546, 0.205195670417031]},"
    "  {\"name\": \"b\", \"mass\": 0.8, \"inertia\": [0.03, 0.01, 0.035, -0.004, 0.001, 0.002],"
    "   \"com\": [0.5, -0.7, 0.3], \"orientation\": [0.733799385705343, 0.419313934688767, 0.104828483672192, -0.524142418360959]},"
    "  {\"name\": \"c\", \"mass\": 0.6, \"inertia\": [0.01, 0.02, 0.015, 0.0, 0.001, -0.001],"
    "   \"com\": [0.9, -1.0, 0.2], \"orientation\": [1, 0, 0, 0]}],"
    " \"joints\": [{\"name\": \"J1\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"a\"], \"at\": [0, 0, 0], \"axis\": [1, 0, 0]},"
    "  {\"name\": \"J2\", \"type\": %s, \"bodies\": [\"a\", \"b\"], \"at\": [0.3, -0.5, 0.2]},"
    "  {\"name\": \"J3\", \"type\": \"revolute\", \"bodies\": [\"c\", \"b\"], \"at\": [0.7, -0.8, 0.3], \"axis\": [0.48, 0.6, 0.64]}],"
    " \"forces\": [{\"type\": \"force\", \"body\": \"c\", \"at\": [1, -1.1, 0.2], \"value\": [1, \"=sin(t)\", -2], \"frame\": \"body\"},"
    "  {\"type\": \"joint_damping\", \"joint\": \"J1\", \"coefficient\": 0.4}],"
    " \"solver\": {\"t_end\": 1}, \"outputs\": {\"interval\": 0.1, \"channels\": []}}";

static const char *const CHAIN_P3 =
    "{\"name\": \"chainp\", \"dimension\": 3, \"gravity\": [0, 0, -9.81],"
    " \"bodies\": [{\"name\": \"a\", \"mass\": 1.5, \"inertia\": [0.02, 0.03, 0.04, 0, 0, 0], \"com\": [0, 0, 0.5]},"
    "  {\"name\": \"b\", \"mass\": 0.9, \"inertia\": [0.03, 0.025, 0.012, 0.002, 0, 0.001], \"com\": [0.3, 0.1, 0.4],"
    "   \"orientation\": [0.825136997007035, 0.206284249251759, 0.515710623129397, 0.103142124625879]},"
    "  {\"name\": \"c\", \"mass\": 0.4, \"inertia\": [0.01, 0.01, 0.002, 0, 0, 0], \"com\": [0.6, 0.2, 0.1]}],"
    " \"joints\": [{\"name\": \"J1\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"a\"], \"at\": [0, 0, 0], \"axis\": [0, 0, 1]},"
    "  {\"name\": \"J2\", \"type\": \"prismatic\", \"bodies\": [\"a\", \"b\"], \"at\": [0.1, 0, 0.5], \"axis\": [0.6, 0, 0.8]},"
    "  {\"name\": \"J3\", \"type\": \"fixed\", \"bodies\": [\"b\", \"c\"], \"at\": [0.4, 0.1, 0.3]}],"
    " \"forces\": [{\"type\": \"joint_damping\", \"joint\": \"J2\", \"coefficient\": 0.4},"
    "  {\"type\": \"torque\", \"body\": \"c\", \"value\": [0.1, -0.2, \"=0.3*t\"], \"frame\": \"body\"}],"
    " \"solver\": {\"t_end\": 1}, \"outputs\": {\"interval\": 0.1, \"channels\": []}}";

/* Cutset wrenches against the natural recovery at `trials` random states
 * (joint coordinates of the given spread, rates of 2) of the open tree doc:
 * the largest difference over the largest reaction component. */
static double s_random_states(const char *doc, int trials, double spread, double *scale)
{
    s_setup u;
    s_setup_new(&u, doc, NULL);
    if (!u.ok) { s_setup_free(&u); return INFINITY; }
    const mbs_rtree *t = &u.t;
    double *q = calloc((size_t)t->nq + 1, sizeof(double)), *v = calloc((size_t)t->n + 1, sizeof(double));
    double *qdd = calloc((size_t)t->n + 1, sizeof(double));
    double *rel = calloc(6 * (size_t)u.s->njoint + 1, sizeof(double));
    s_cmp c = {u.m, u.d, t, rel, 0, 0, 0};
    for (int k = 0; k < trials && q && v && qdd && rel; k++) {
        for (int i = 0; i < t->nq; i++) q[i] = 2 * spread * s_rand();
        for (int i = 0; i < t->n; i++) v[i] = 4 * s_rand();
        for (int i = 0; i < t->nnode; i++) {
            if (t->node[i].kind != MBS_RN_BALL) continue;
            double *b = q + t->node[i].qcoord, nb = 0;
            for (int a = 0; a < 4; a++) { b[a] = s_rand(); nb += b[a] * b[a]; }
            for (int a = 0; a < 4; a++) b[a] /= sqrt(nb);
        }
        double time = 0.1 * k;
        CHECK(mbs_rtree_accel(t, &u.w, time, q, v, 0, 0, qdd) == 0);
        s_compare_at(&c, &u.w, time);
    }
    free(q); free(v); free(qdd); free(rel);
    s_setup_free(&u);
    *scale = c.scale;
    return c.worst / fmax(c.scale, 1e-300);
}

static void test_random_states(void)
{
    char chain_rev[4096], chain_cyl[4096], chain_ball[4096], chain_univ[4096];
    snprintf(chain_rev, sizeof chain_rev, CHAIN3, "\"revolute\", \"axis\": [0, 0.6, 0.8]");
    snprintf(chain_cyl, sizeof chain_cyl, CHAIN3, "\"cylindrical\", \"axis\": [0, 0.6, 0.8]");
    snprintf(chain_ball, sizeof chain_ball, CHAIN3, "\"spherical\"");
    snprintf(chain_univ, sizeof chain_univ, CHAIN3, "\"universal\", \"axes\": [[0, 0.6, 0.8], [1, 0, 0]]");
    /* open trees: every state is consistent, and both answers solve the
     * same body balances (determinate), so they agree to rounding: bound
     * 1e-11 of the largest reaction component */
    const struct { const char *doc, *what; double spread; } cases[] = {
        {DOUBLE_PENDULUM, "planar double pendulum (joint K listed child first, joint loads on it)", 3.0},
        {CART, "planar cart-pendulum (prismatic, joint damping)", 1.0},
        {chain_rev, "spatial chain, skew revolute axes, J3 listed child first", 3.0},
        {chain_cyl, "spatial chain with a cylindrical joint", 1.0},
        {chain_ball, "spatial chain with a spherical joint", 3.0},
        {chain_univ, "spatial chain with a universal joint", 1.0},
        {CHAIN_P3, "spatial chain with a prismatic and a fixed joint", 1.0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        double scale = 0, e = s_random_states(cases[k].doc, 20, cases[k].spread, &scale);
        printf("  %s: |R_rel - R_nat| = %.2e of the largest reaction component (%.3g)\n", cases[k].what, e, scale);
        CHECK(e < 1e-11);
        CHECK(scale > 0.1);
    }
}

/* ---- closed loops along an integration --------------------------------------------------- */

typedef struct {
    s_cmp c;
    mbs_rel_state *s;
} s_along;

static int s_along_done(void *ctx, const mbs_model *m, mbs_data *d, mbs_errlist *err)
{
    s_along *a = ctx;
    (void)m; (void)d; (void)err;
    s_compare_at(&a->c, a->s->w, a->s->t);
    return 0;
}

/* Integrate the example relatively (tolerance tol, to t_end) and compare
 * at every accepted state: the largest difference over the largest
 * reaction component; *viol the largest chord constraint violation met. */
static double s_along_run(const char *path, const char *t_end, double tol, double *viol, int *states)
{
    char tolset[64], tend[64];
    snprintf(tolset, sizeof tolset, "solver.tolerance=%g", tol);
    snprintf(tend, sizeof tend, "solver.t_end=%s", t_end);
    const char *sets[] = {"solver.formulation=relative", "solver.integrator=dopri5", tolset, tend, NULL};
    char *doc = t_slurp(path, NULL);
    CHECK(doc != NULL);
    if (!doc) return INFINITY;
    s_setup u;
    s_setup_new(&u, doc, sets);
    free(doc);
    if (!u.ok) { s_setup_free(&u); return INFINITY; }
    mbs_rel_state s;
    mbs_errlist el = {0};
    CHECK(mbs_rel_state_new(&s, &u.t, &u.w, 0) == 0);
    CHECK(mbs_rel_from_natural(u.m, &u.t, &u.w, u.d->x, u.d->v, s.q, s.u) == 0);
    s.t = 0;
    const mbs_solver_spec *o = &u.s->solver;
    CHECK(mbs_rtree_accel(&u.t, &u.w, 0, s.q, s.u, o->baumgarte_alpha, o->baumgarte_beta, s.qdd) == 0);
    mbs_tol_init(u.m, u.d);
    double *rel = calloc(6 * (size_t)u.s->njoint + 1, sizeof(double));
    s_along a = {{u.m, u.d, &u.t, rel, 0, 0, 0}, &s};
    s_compare_at(&a.c, &u.w, 0);
    mbs_stepper run = {s_along_done, &a, 0.01};
    CHECK(mbs_integrate_relative(u.m, u.d, &s, &run, &el) == 0);
    *viol = 0;
    mbs_rtree_circuit(&u.t, &u.w, s.t);
    for (int r = 0; r < u.t.nceq; r++) *viol = fmax(*viol, fabs(u.w.phi[r]));
    *states = a.c.states;
    free(rel);
    mbs_rel_state_free(&s);
    s_setup_free(&u);
    return a.c.worst / fmax(a.c.scale, 1e-300);
}

static void test_along_runs(void)
{
    /* the states of a relative run hold the loops to the Baumgarte
     * stabilisation's drift only: the natural recovery's body balances at
     * such a state are solved by least squares where the chord's two joint
     * points are apart, so the two answers differ by terms of the order of
     * the constraint violation (times the forces over the lengths); at
     * tolerance 1e-10 bound 1e-9 of the largest reaction component
     * (measured: 1.7e-11 at worst) */
    const struct { const char *path, *tend, *what; } cases[] = {
        {"examples/slider_crank.json", "1", "slider-crank (driven tree joint A, the guide a ground-side prismatic)"},
        {"examples/four_bar.json", "2", "four-bar (joint D's body[1] the ground)"},
        {"examples/iftomm_spatial_slider_crank.json", "2", "spatial slider-crank (spherical, universal, prismatic)"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        double viol = 0;
        int states = 0;
        double e = s_along_run(cases[k].path, cases[k].tend, 1e-10, &viol, &states);
        printf("  %s, %d accepted states: |R_rel - R_nat| = %.2e of the largest reaction component (chord "
               "violation at the end %.1e)\n", cases[k].what, states, e, viol);
        CHECK(e < 1e-9);
        CHECK(states > 10);
    }
}

/* ---- every chord type at the input configuration ------------------------------------------- */

/* A spatial loop of four tree joints closed by a chord K of each type
 * (relative_test's test_chord_types), released at rest: the chord's
 * multipliers and the tree joints' cutset wrenches against the natural
 * recovery at the same state.  Where the chord makes the loop
 * over-constrained (a revolute, prismatic or fixed chord on this loop of
 * four freedoms) the reactions are statically indeterminate: the two
 * recoveries pick different admissible ones, so only the others compare. */
static void test_chord_types(void)
{
    /* whether each chord type of T_CHORDS (relative_models.h) leaves the
     * reactions determinate on this loop */
    static const int determinate[T_NCHORD] = {0, 0, 1, 1, 1, 0, 1};
    for (int k = 0; k < T_NCHORD; k++) {
        char doc[4096];
        t_chord_loop(doc, sizeof doc, k, "[0.5, 0, -9.81]",
                     ", \"forces\": [{\"type\": \"force\", \"body\": \"d\", \"at\": [0.7, 0.5, 0.3], "
                     "\"value\": [1, -2, 0.5], \"frame\": \"global\"}]");
        s_setup u;
        s_setup_new(&u, doc, NULL);
        if (!u.ok) { s_setup_free(&u); continue; }
        double q[8] = {0}, v[8] = {0}, qdd[8] = {0}, rel[6 * 5];
        CHECK(u.t.nq <= 8 && mbs_rel_from_natural(u.m, &u.t, &u.w, u.d->x, u.d->v, q, v) == 0);
        CHECK(mbs_rtree_accel(&u.t, &u.w, 0, q, v, 0, 0, qdd) == 0);
        s_cmp c = {u.m, u.d, &u.t, rel, 0, 0, 0};
        s_compare_at(&c, &u.w, 0);
        double e = c.worst / fmax(c.scale, 1e-300);
        printf("  loop closed by a %s chord, at rest: |R_rel - R_nat| = %.2e of the largest reaction component (%.3g)%s\n",
               T_CHORDS[k].type, e, c.scale, determinate[k] ? "" : " (statically indeterminate: not compared)");
        CHECK(c.scale > 1);
        if (determinate[k]) CHECK(e < 1e-11);
        s_setup_free(&u);
    }
}

/* ---- whole runs, both formulations ------------------------------------------------------- */

/* The example with a reaction channel per joint, force and torque
 * component, spliced in front of its own channels, into out. */
static int s_with_reactions(const char *path, char *out, size_t size)
{
    char *doc = t_slurp(path, NULL);
    CHECK(doc != NULL);
    if (!doc) return -1;
    mbs_errlist el = {0};
    mbs_spec *s = mech_parse(doc, strlen(doc), NULL, 0, &el);
    CHECK(s != NULL);
    char ch[8192];
    size_t n = (size_t)snprintf(ch, sizeof ch, "\"channels\": [");
    static const char *const comp[] = {"x", "y", "z"};
    for (int j = 0; s && j < s->njoint && n < sizeof ch; j++)
        for (int torque = 0; torque < 2; torque++)
            for (int k = 0; k < 3; k++) {
                if (s->dim == 2 && (torque ? k != 2 : k == 2)) continue;
                n += (size_t)snprintf(ch + n, sizeof ch - n,
                                      "{\"name\": \"rx_%s_%c%s\", \"quantity\": \"reaction_%s\", \"joint\": \"%s\"%s%s%s},",
                                      s->joints[j].name, torque ? 'T' : 'F', comp[k], torque ? "torque" : "force",
                                      s->joints[j].name, s->dim == 3 || !torque ? ", \"component\": \"" : "",
                                      s->dim == 3 || !torque ? comp[k] : "",
                                      s->dim == 3 || !torque ? "\"" : "");
            }
    CHECK(n < sizeof ch);
    int rc = t_splice(doc, "\"channels\": [", ch, out, size);
    mbs_spec_free(&s);
    free(doc);
    return rc;
}

/* Relative at tolerance tol against natural bdf at ntol, every reaction
 * channel: the largest difference over the largest reaction of the natural
 * run, below bound. */
static void s_runs(const char *path, const char *t_end, double tol, double ntol, double bound)
{
    static char doc[65536];
    if (s_with_reactions(path, doc, sizeof doc) != 0) return;
    char tolset[64], ntolset[64], tend[64];
    snprintf(tolset, sizeof tolset, "solver.tolerance=%g", tol);
    snprintf(ntolset, sizeof ntolset, "solver.tolerance=%g", ntol);
    snprintf(tend, sizeof tend, "solver.t_end=%s", t_end);
    const char *rel[] = {"solver.formulation=relative", "solver.integrator=dopri5", tolset, tend, NULL};
    const char *nat[] = {"solver.integrator=bdf", ntolset, tend, NULL};
    t_run a, b;
    t_run_text(doc, rel, &a);
    t_run_text(doc, nat, &b);
    CHECK(a.rc == 0 && b.rc == 0);
    CHECK(a.res.nsample == b.res.nsample && a.res.nsample > 10);
    if (a.rc || b.rc || a.res.nsample != b.res.nsample) { t_run_free(&a); t_run_free(&b); return; }
    double scale = 0, worst = 0;
    const char *wch = "";
    int nrx = 0;
    for (int c = 0; c < b.spec->nchannel; c++) {
        if (strncmp(b.spec->channels[c].name, "rx_", 3)) continue;
        for (int i = 0; i < b.res.nsample; i++) scale = fmax(scale, fabs(b.res.rows[(size_t)i * (1 + b.res.nchannel) + c + 1]));
    }
    for (int c = 0; c < a.spec->nchannel; c++) {
        const char *name = a.spec->channels[c].name;
        if (strncmp(name, "rx_", 3)) continue;
        double e = t_maxdiff(&a, &b, name) / fmax(scale, 1e-300);
        nrx++;
        if (!(e <= worst)) { worst = e; wch = name; }
    }
    printf("  %s to t = %s, %d reaction channels, relative at %g vs natural bdf at %g: largest difference %.2e of "
           "the largest reaction (%.3g; %s), bound %.1e\n", path, t_end, nrx, tol, ntol, worst, scale, wch, bound);
    CHECK(nrx >= 6);
    CHECK(worst < bound);
    t_run_free(&a);
    t_run_free(&b);
}

static void test_runs(void)
{
    /* the accuracy contract's global error of 100 x tolerance per run
     * (docs/accuracy.md), relative at 1e-9 and natural at 1e-10, doubled
     * for forces measured on the largest force, as relative_test's runs */
    const double bound = 2 * 100 * (1e-9 + 1e-10);
    s_runs("examples/slider_crank.json", "2", 1e-9, 1e-10, bound);
    s_runs("examples/four_bar.json", "5", 1e-9, 1e-10, bound);
    s_runs("examples/double_pendulum.json", "2", 1e-9, 1e-10, bound);
    /* natural bdf's own scatter on the spatial slider-crank is 1.2e-6 of
     * v_slider between 1e-10 and 1e-11 (relative_test), the bound there */
    s_runs("examples/iftomm_spatial_slider_crank.json", "2", 1e-9, 1e-10, 1.5e-6);
}

int main(void)
{
    test_random_states();
    test_along_runs();
    test_chord_types();
    test_runs();
    return CHECK_SUMMARY("relative_reaction_test");
}
