/*
 * relative_blocks_test.c - the relative formulation's building blocks for
 * rigid contacts (formulation/relative/tree_mass.c, tree_jac.c; issue 12):
 *
 *  - the joint-space mass matrix M(q) by the composite-rigid-body algorithm
 *    in its pattern, at random configurations of planar and spatial trees
 *    (revolute, prismatic, cylindrical, universal, spherical, fixed joints,
 *    floating bodies, a branched tree, dc_motor rotors between moving
 *    bodies, geared to a revolute joint and on a lead screw, planar and
 *    spatial): M times
 *    the articulated-body recursion's M^-1 (mbs_rtree_minv, independent
 *    code) on unit vectors is I, M qdd = Q at rest with the recursion's
 *    accelerations and the statics' forces (mbs_rtree_gen_forces), M v is
 *    the inverse dynamics at zero rates
 *    and gravity (mbs_rtree_mass_mul), u^T M u is twice the kinetic energy
 *    summed from the bodies' twists (and the rotor's rate), M is symmetric and positive definite
 *    (Cholesky), and the pattern covers every non-zero of the columns M e_k;
 *  - a body point's rows on its path's rates: J u against the velocity of
 *    the body's twist, against central differences of the point's position
 *    along q(s) = advance(q, u, s), and J' u against the second difference
 *    along the same curve (constant rates: its acceleration is J' u);
 *  - advance: a body spinning on a ball joint at constant angular velocity
 *    against the exact rotation over 1000 steps, one-freedom coordinates
 *    and the floating body's translation exact, the first-order agreement
 *    with q' = G(q) u (mbs_rtree_qdot).
 */
#include "check.h"
#include "testutil.h"
#include "relative_models.h"

#include "mbs/formulation/relative/tree_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static unsigned s_seed = 4242;
static double s_rand(void)
{
    s_seed = s_seed * 1103515245u + 12345u;
    return ((s_seed >> 8) & 0xffff) / 65536.0 - 0.5;
}

/* a planar double pendulum with a geared dc_motor on the elbow (its stator
 * on the upper link: a rotor riding on a moving body) */
static const char *const DP_ROTOR =
    "{\"name\": \"dpr\", \"dimension\": 2, \"gravity\": [0, -9.81],"
    " \"bodies\": [{\"name\": \"a\", \"mass\": 1.3, \"inertia\": 0.11, \"com\": [0.5, 0.1], \"angle\": 0.2},"
    "  {\"name\": \"b\", \"mass\": 0.7, \"inertia\": 0.05, \"com\": [1.4, -0.3], \"angle\": -0.4}],"
    " \"joints\": [{\"name\": \"O\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"a\"], \"at\": [0, 0]},"
    "  {\"name\": \"K\", \"type\": \"revolute\", \"bodies\": [\"a\", \"b\"], \"at\": [1, 0.2]}],"
    " \"forces\": [{\"name\": \"m\", \"type\": \"dc_motor\", \"joint\": \"K\", \"voltage\": 2, \"resistance\": 1,"
    "   \"torque_constant\": 0.05, \"back_emf_constant\": 0.05, \"gear_ratio\": 7, \"rotor_inertia\": 0.002}],"
    " \"solver\": {\"t_end\": 1}, \"outputs\": {\"interval\": 0.1, \"channels\": []}}";

/* a cart driven by a lead-screw dc_motor along its slide, a pole on it:
 * the rotor an armature J / lead^2 on the slide's rate */
static const char *const CART_SCREW =
    "{\"name\": \"cs\", \"dimension\": 2, \"gravity\": [0, -9.81],"
    " \"bodies\": [{\"name\": \"cart\", \"mass\": 2, \"inertia\": 0.1, \"com\": [0, 0]},"
    "  {\"name\": \"pole\", \"mass\": 0.5, \"inertia\": 0.02, \"com\": [0.1, -0.5], \"angle\": 0.3}],"
    " \"joints\": [{\"name\": \"slide\", \"type\": \"prismatic\", \"bodies\": [\"ground\", \"cart\"], \"at\": [0, 0], \"axis\": [0.8, 0.6]},"
    "  {\"name\": \"hinge\", \"type\": \"revolute\", \"bodies\": [\"cart\", \"pole\"], \"at\": [0, 0]}],"
    " \"forces\": [{\"name\": \"m\", \"type\": \"dc_motor\", \"joint\": \"slide\", \"voltage\": 2, \"resistance\": 1,"
    "   \"torque_constant\": 0.05, \"back_emf_constant\": 0.05, \"rotor_inertia\": 1e-5, \"lead\": 0.01}],"
    " \"solver\": {\"t_end\": 1}, \"outputs\": {\"interval\": 0.1, \"channels\": []}}";

/* a spatial chain ground -R- a -J2- b -R- c -fixed- d, J2's type given */
static const char *const CHAIN =
    "{\"name\": \"chain\", \"dimension\": 3, \"gravity\": [0.3, -9.81, 1.2],"
    " \"bodies\": [{\"name\": \"a\", \"mass\": 1.1, \"inertia\": [0.02, 0.05, 0.04, 0.003, -0.002, 0.001],"
    "   \"com\": [0.2, -0.3, 0.1], \"orientation\": [0.923380516876639, 0.102597835208515, -0.307793505625546, 0.205195670417031]},"
    "  {\"name\": \"b\", \"mass\": 0.8, \"inertia\": [0.03, 0.01, 0.035, -0.004, 0.001, 0.002],"
    "   \"com\": [0.5, -0.7, 0.3], \"orientation\": [0.733799385705343, 0.419313934688767, 0.104828483672192, -0.524142418360959]},"
    "  {\"name\": \"c\", \"mass\": 0.6, \"inertia\": [0.01, 0.02, 0.015, 0.0, 0.001, -0.001], \"com\": [0.9, -1.0, 0.2]},"
    "  {\"name\": \"d\", \"mass\": 0.3, \"inertia\": [0.004, 0.003, 0.002, 0, 0, 0], \"com\": [1.1, -1.2, 0.4]}],"
    " \"joints\": [{\"name\": \"J1\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"a\"], \"at\": [0, 0, 0], \"axis\": [1, 0, 0]},"
    "  {\"name\": \"J2\", \"type\": %s, \"bodies\": [\"a\", \"b\"], \"at\": [0.3, -0.5, 0.2]},"
    "  {\"name\": \"J3\", \"type\": \"revolute\", \"bodies\": [\"b\", \"c\"], \"at\": [0.7, -0.8, 0.3], \"axis\": [0.48, 0.6, 0.64]},"
    "  {\"name\": \"J4\", \"type\": \"fixed\", \"bodies\": [\"c\", \"d\"], \"at\": [1.0, -1.1, 0.3]}],"
    " \"solver\": {\"t_end\": 1}, \"outputs\": {\"interval\": 0.1, \"channels\": []}}";

/* a branched spatial tree: a on a revolute, b (ball) and c (prismatic) on
 * a, and a floating box */
static const char *const BRANCH =
    "{\"name\": \"branch\", \"dimension\": 3, \"gravity\": [0, 0, -9.81],"
    " \"bodies\": [{\"name\": \"a\", \"mass\": 1.5, \"inertia\": [0.02, 0.03, 0.04, 0, 0, 0], \"com\": [0, 0, 0.5]},"
    "  {\"name\": \"b\", \"mass\": 0.9, \"inertia\": [0.03, 0.025, 0.012, 0.002, 0, 0.001], \"com\": [0.3, 0.1, 0.8],"
    "   \"orientation\": [0.825136997007035, 0.206284249251759, 0.515710623129397, 0.103142124625879]},"
    "  {\"name\": \"c\", \"mass\": 0.4, \"inertia\": [0.01, 0.01, 0.002, 0, 0, 0], \"com\": [-0.4, 0.2, 0.6]},"
    "  {\"name\": \"box\", \"mass\": 1.2, \"inertia\": [0.05, 0.04, 0.03, 0.002, 0, 0], \"com\": [0.6, 0.2, -0.9]}],"
    " \"joints\": [{\"name\": \"J1\", \"type\": \"revolute\", \"bodies\": [\"ground\", \"a\"], \"at\": [0, 0, 0], \"axis\": [0, 0, 1]},"
    "  {\"name\": \"J2\", \"type\": \"spherical\", \"bodies\": [\"a\", \"b\"], \"at\": [0.1, 0, 0.6]},"
    "  {\"name\": \"J3\", \"type\": \"prismatic\", \"bodies\": [\"a\", \"c\"], \"at\": [-0.2, 0, 0.5], \"axis\": [0.6, 0, 0.8]}],"
    " \"solver\": {\"t_end\": 1}, \"outputs\": {\"interval\": 0.1, \"channels\": []}}";

static const char *const FLOAT2 =
    "{\"name\": \"f2\", \"dimension\": 2, \"gravity\": [0, -9.81],"
    " \"bodies\": [{\"name\": \"box\", \"mass\": 1.2, \"inertia\": 0.07, \"com\": [0.3, -0.4], \"angle\": 0.5}],"
    " \"solver\": {\"t_end\": 1}, \"outputs\": {\"interval\": 0.1, \"channels\": []}}";

/* one body on a ball joint to the ground */
static const char *const TOP =
    "{\"name\": \"top\", \"dimension\": 3, \"gravity\": [0, 0, -9.81],"
    " \"bodies\": [{\"name\": \"top\", \"mass\": 2, \"inertia\": [0.02, 0.03, 0.05, 0.001, 0, 0], \"com\": [0.1, 0.2, 0.3]}],"
    " \"joints\": [{\"name\": \"J\", \"type\": \"spherical\", \"bodies\": [\"ground\", \"top\"], \"at\": [0, 0, 0]}],"
    " \"solver\": {\"t_end\": 1}, \"outputs\": {\"interval\": 0.1, \"channels\": []}}";

typedef struct { char doc[4800]; const char *what; int rotor; } s_case;

static int s_cases(s_case *c)
{
    int k = 0;
    static const struct { const char *j2, *what; } j2[] = {
        {"\"revolute\", \"axis\": [0, 0.6, 0.8]", "spatial chain, skew revolute axes, a fixed joint"},
        {"\"spherical\"", "spatial chain with a spherical joint"},
        {"\"prismatic\", \"axis\": [0, 0.6, 0.8]", "spatial chain with a prismatic joint"},
        {"\"cylindrical\", \"axis\": [0, 0.6, 0.8]", "spatial chain with a cylindrical joint"},
        {"\"universal\", \"axes\": [[0, 0.6, 0.8], [1, 0, 0]]", "spatial chain with a universal joint"},
    };
    for (size_t i = 0; i < sizeof j2 / sizeof j2[0]; i++, k++) {
        snprintf(c[k].doc, sizeof c[k].doc, CHAIN, j2[i].j2);
        c[k].what = j2[i].what;
        c[k].rotor = 0;
    }
    /* rotors between moving bodies in space: geared on the revolute J3
     * (stator on b, its parent), on a lead screw along the prismatic J2 */
    static const char *const MOTOR =
        ", \"forces\": [{\"name\": \"m\", \"type\": \"dc_motor\", \"joint\": \"%s\", \"voltage\": 2, \"resistance\": 1,"
        " \"torque_constant\": 0.05, \"back_emf_constant\": 0.05, \"rotor_inertia\": %s, %s}], \"solver\"";
    static const struct { const char *j2, *joint, *J, *drive, *what; } sr[] = {
        {"\"spherical\"", "J3", "0.004", "\"gear_ratio\": 9", "spatial chain, geared rotor on a revolute joint"},
        {"\"prismatic\", \"axis\": [0, 0.6, 0.8]", "J2", "2e-5", "\"lead\": 0.01", "spatial chain, lead-screw rotor on a prismatic joint"},
    };
    for (size_t i = 0; i < sizeof sr / sizeof sr[0]; i++, k++) {
        char chain[4096], forces[512];
        snprintf(chain, sizeof chain, CHAIN, sr[i].j2);
        snprintf(forces, sizeof forces, MOTOR, sr[i].joint, sr[i].J, sr[i].drive);
        char *at = strstr(chain, ", \"solver\"");
        *at = 0;
        snprintf(c[k].doc, sizeof c[k].doc, "%s%s%s", chain, forces, at + 10);
        c[k].what = sr[i].what;
        c[k].rotor = 1;
    }
    snprintf(c[k].doc, sizeof c[k].doc, "%s", DP_ROTOR); c[k].what = "planar double pendulum, geared rotor"; c[k++].rotor = 1;
    snprintf(c[k].doc, sizeof c[k].doc, "%s", CART); c[k].what = "planar cart-pendulum (prismatic)"; c[k++].rotor = 0;
    snprintf(c[k].doc, sizeof c[k].doc, "%s", CART_SCREW); c[k].what = "planar cart-pendulum, lead-screw rotor"; c[k++].rotor = 1;
    snprintf(c[k].doc, sizeof c[k].doc, "%s", BRANCH); c[k].what = "branched tree and a floating body"; c[k++].rotor = 0;
    snprintf(c[k].doc, sizeof c[k].doc, "%s", FLOAT2); c[k].what = "planar floating body"; c[k++].rotor = 0;
    snprintf(c[k].doc, sizeof c[k].doc, "%s", TOP); c[k].what = "body on a ball joint"; c[k++].rotor = 0;
    return k;
}

/* A random configuration: the balls' quaternions turned from 1 by a random
 * rotation, the other coordinates random, of spread `spread`. */
static void s_random_q(const mbs_rtree *t, double spread, double *q, double *du)
{
    memset(q, 0, sizeof(double) * (size_t)t->nq);
    for (int i = 0; i < t->nnode; i++) if (t->node[i].kind == MBS_RN_BALL) q[t->node[i].qcoord] = 1;
    for (int i = 0; i < t->n; i++) du[i] = spread * s_rand();
    mbs_rtree_q_add(t, q, du);
}

/* Twice the kinetic energy at the last kinematics (with u): the bodies',
 * the geared rotors' (tree.h: each turning at w_r = w_parent + n u_i a,
 * inertia J a a^T in the plane, J / 2 (1 + a a^T) in space) summed over a
 * node's rotors from its sums J, J n, J n^2, and a planar lead screw's
 * armature (J / lead^2) u_i^2. */
static double s_two_T(const mbs_rtree *t, const mbs_rtree_ws *w)
{
    double e = 0;
    for (int i = 0; i < t->nnode; i++) {
        const mbs_rnode *nd = &t->node[i];
        if (nd->rotor_J > 0) {
            /* w_r = w_p + n u_i a; in the plane J (a . w_r)^2, in space the
             * thin disk's w_r . J / 2 (1 + a a^T) w_r */
            const double *a = t->dim == 3 ? mbs_rtree_rotor_axis(t, w, i) : w->S[nd->coord].w;
            double wp[3] = {0, 0, 0}, ui = w->u[nd->coord];
            if (nd->parent >= 0) v3copy(w->V[nd->parent].w, wp);
            double aw = v3dot(a, wp);
            double pp = t->dim == 3 ? 0.5 * nd->rotor_J * (v3dot(wp, wp) + aw * aw) : nd->rotor_J * aw * aw;
            e += pp + 2 * nd->rotor_Jn * aw * ui + nd->rotor_Jn2 * ui * ui;
        }
        if (nd->rotor_m > 0) e += nd->rotor_m * w->u[nd->coord] * w->u[nd->coord];
        if (nd->body < 0) continue;
        mbs_rbi Iw;
        mbs_rtree_world_rbi(t, w, i, &Iw);
        e += 2 * mbs_rbi_energy(&Iw, &w->V[i]);
    }
    return e;
}

/* Cholesky of the dense n x n matrix A (copied): its smallest pivot over
 * its largest diagonal, or -1 when a pivot is not positive. */
static double s_chol(const double *A, int n)
{
    double *L = malloc(sizeof(double) * (size_t)(n * n)), dmax = 0, pmin = INFINITY;
    memcpy(L, A, sizeof(double) * (size_t)(n * n));
    for (int i = 0; i < n; i++) dmax = fmax(dmax, A[i * n + i]);
    for (int j = 0; j < n; j++) {
        double d = L[j * n + j];
        for (int k = 0; k < j; k++) d -= L[j * n + k] * L[j * n + k];
        if (!(d > 0)) { free(L); return -1; }
        pmin = fmin(pmin, d);
        L[j * n + j] = sqrt(d);
        for (int i = j + 1; i < n; i++) {
            double s = L[i * n + j];
            for (int k = 0; k < j; k++) s -= L[i * n + k] * L[j * n + k];
            L[i * n + j] = s / L[j * n + j];
        }
    }
    free(L);
    return pmin / dmax;
}

static void test_mass(void)
{
    s_case c[20];
    int nc = s_cases(c);
    for (int k = 0; k < nc; k++) {
        mbs_errlist el = {0};
        mbs_spec *sp = mech_parse(c[k].doc, strlen(c[k].doc), NULL, 0, &el);
        if (!CHECK(sp != NULL)) { for (int i = 0; i < el.n; i++) fprintf(stderr, "  %s\n", el.e[i].message); continue; }
        mbs_rtree t;
        mbs_rtree_ws w;
        if (!CHECK(mbs_rtree_build(sp, &t, &el) == 0)) { mbs_spec_free(&sp); continue; }
        CHECK(mbs_rtree_ws_new(&t, &w) == 0);
        int n = t.n, nnz = mbs_rtree_mass_nnz(&t);
        int *ptr = malloc(sizeof(int) * (size_t)(n + 1)), *col = malloc(sizeof(int) * (size_t)nnz + 1);
        double *val = malloc(sizeof(double) * (size_t)nnz + 8), *M = calloc((size_t)(n * n), sizeof(double));
        double *q = calloc((size_t)t.nq + 1, sizeof(double)), *du = calloc((size_t)n + 1, sizeof(double));
        double *e = calloc((size_t)n, sizeof(double)), *y = calloc((size_t)n, sizeof(double));
        double *Mi = calloc((size_t)(n * n), sizeof(double)), *u = calloc((size_t)n, sizeof(double));
        double *acc = calloc((size_t)n + 1, sizeof(double)), *Q = calloc((size_t)n + 1, sizeof(double));
        CHECK(mbs_rtree_mass_pattern(&t, ptr, col) == 0);
        CHECK(ptr[n] == nnz);
        /* rows ascending, the pattern symmetric, every diagonal in it */
        for (int r = 0; r < n; r++) {
            int diag = 0;
            for (int p = ptr[r]; p < ptr[r + 1]; p++) {
                if (p > ptr[r]) CHECK(col[p] > col[p - 1]);
                diag |= col[p] == r;
                int sym = 0;
                for (int p2 = ptr[col[p]]; p2 < ptr[col[p] + 1]; p2++) sym |= col[p2] == r;
                CHECK(sym);
            }
            CHECK(diag);
        }
        /* what mbs_rtree_mass_eval relies on: rates numbered in node order,
         * parents before children */
        for (int i = 0, next = 0; i < t.nnode; i++) {
            CHECK(t.node[i].parent < i);
            if (t.node[i].dof == 0) continue;
            CHECK(t.node[i].coord == next);
            next += t.node[i].dof;
        }
        /* the rotor case has its rotor on a node (tree.h rotor_J) */
        double rotJ = 0;
        for (int i = 0; i < t.nnode; i++) rotJ += t.node[i].rotor_J + t.node[i].rotor_m;
        CHECK(c[k].rotor ? rotJ > 0 : rotJ == 0);
        double emi = 0, emul = 0, eT = 0, eout = 0, asym = 0, pmin = INFINITY, eQ = 0;
        for (int trial = 0; trial < 5; trial++) {
            s_random_q(&t, 3.0, q, du);
            mbs_rtree_kinematics(&t, &w, q, NULL);
            mbs_rtree_applied(&t, &w, 0);
            CHECK(mbs_rtree_forward(&t, &w, acc) == 0);
            mbs_rtree_mass_eval(&t, &w, ptr, col, val);
            memset(M, 0, sizeof(double) * (size_t)(n * n));
            for (int r = 0; r < n; r++)
                for (int p = ptr[r]; p < ptr[r + 1]; p++) M[r * n + col[p]] = val[p];
            double mmax = 0;
            for (int i = 0; i < n * n; i++) mmax = fmax(mmax, fabs(M[i]));
            /* at rest, M qdd = Q with the recursion's accelerations qdd and
             * the statics' generalized forces Q (gravity, springs, ...) */
            mbs_rtree_gen_forces(&t, &w, Q);
            double qmax = 0, eq = 0;
            for (int i = 0; i < n; i++) {
                double s = 0;
                for (int j = 0; j < n; j++) s += M[i * n + j] * acc[j];
                eq = fmax(eq, fabs(s - Q[i]));
                qmax = fmax(qmax, fabs(Q[i]));
            }
            eQ = fmax(eQ, eq / qmax);
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++) asym = fmax(asym, fabs(M[i * n + j] - M[j * n + i]) / mmax);
            /* M^-1 by the articulated-body recursion, column by column;
             * M M^-1 - I */
            for (int j = 0; j < n; j++) {
                memset(e, 0, sizeof(double) * (size_t)n);
                e[j] = 1;
                mbs_rtree_minv(&t, &w, e, y);
                for (int i = 0; i < n; i++) Mi[i * n + j] = y[i];
            }
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++) {
                    double s = 0;
                    for (int l = 0; l < n; l++) s += M[i * n + l] * Mi[l * n + j];
                    emi = fmax(emi, fabs(s - (i == j)));
                }
            /* the columns M e_j by the inverse dynamics: equal to M's, and
             * zero outside the pattern */
            for (int j = 0; j < n; j++) {
                memset(e, 0, sizeof(double) * (size_t)n);
                e[j] = 1;
                mbs_rtree_mass_mul(&t, &w, e, y);
                for (int i = 0; i < n; i++) {
                    emul = fmax(emul, fabs(y[i] - M[i * n + j]) / mmax);
                    int in = 0;
                    for (int p = ptr[i]; p < ptr[i + 1]; p++) in |= col[p] == j;
                    if (!in) eout = fmax(eout, fabs(y[i]) / mmax);
                }
            }
            /* u^T M u = 2 T */
            {
                for (int i = 0; i < n; i++) u[i] = 2 * s_rand();
                mbs_rtree_kinematics(&t, &w, q, u);
                double uMu = 0;
                for (int i = 0; i < n; i++)
                    for (int j = 0; j < n; j++) uMu += u[i] * M[i * n + j] * u[j];
                double T2 = s_two_T(&t, &w);
                eT = fmax(eT, fabs(uMu - T2) / T2);
            }
            double pr = s_chol(M, n);
            CHECK(pr > 0);
            pmin = fmin(pmin, pr);
        }
        printf("  %s: n %d, pattern %d of %d; |M M^-1 - I| %.1e, |M qdd - Q| at rest %.1e, |M - inverse dynamics| "
               "%.1e, outside the pattern %.1e, |u'Mu - 2T|/2T %.1e, asymmetry %.1e, Cholesky pivot ratio %.1e\n",
               c[k].what, n, nnz, n * n, emi, eQ, emul, eout, eT, asym, pmin);
        CHECK(emi < 1e-12);
        CHECK(eQ < 1e-12);
        CHECK(emul < 1e-14);
        CHECK(eout == 0);
        CHECK(eT < 1e-13);
        CHECK(asym == 0);
        free(ptr); free(col); free(val); free(M); free(q); free(du); free(e); free(y); free(Mi); free(u); free(acc); free(Q);
        mbs_rtree_ws_free(&w);
        mbs_rtree_free(&t);
        mbs_spec_free(&sp);
    }
}

/* The position of body b's point r at q (kinematics at u NULL). */
static void s_pos(const mbs_rtree *t, mbs_rtree_ws *w, const double *q, int b, const double r[3], double x[3])
{
    int cols[64];
    double rows[3 * 64];
    mbs_rtree_kinematics(t, w, q, NULL);
    mbs_rtree_point_rows(t, w, b, r, cols, rows, x, NULL);
}

static void test_point_rows(void)
{
    s_case c[20];
    int nc = s_cases(c);
    for (int k = 0; k < nc; k++) {
        mbs_errlist el = {0};
        mbs_spec *sp = mech_parse(c[k].doc, strlen(c[k].doc), NULL, 0, &el);
        if (!CHECK(sp != NULL)) continue;
        mbs_rtree t;
        mbs_rtree_ws w;
        if (!CHECK(mbs_rtree_build(sp, &t, &el) == 0)) { mbs_spec_free(&sp); continue; }
        CHECK(mbs_rtree_ws_new(&t, &w) == 0);
        int n = t.n;
        double *q = calloc((size_t)t.nq + 1, sizeof(double)), *du = calloc((size_t)n + 1, sizeof(double));
        double *u = calloc((size_t)n + 1, sizeof(double)), *qp = calloc((size_t)t.nq + 1, sizeof(double));
        double *qm = calloc((size_t)t.nq + 1, sizeof(double));
        double ev = 0, efd = 0, eacc = 0;
        for (int trial = 0; trial < 5; trial++) {
            s_random_q(&t, 3.0, q, du);
            for (int i = 0; i < n; i++) u[i] = 2 * s_rand();
            for (int b = 0; b < sp->nbody; b++) {
                double r[3] = {s_rand(), s_rand(), t.dim == 3 ? s_rand() : 0}, x[3], jdu[3], rows[3 * 64];
                int cols[64];
                mbs_rtree_kinematics(&t, &w, q, u);
                int m = mbs_rtree_point_rows(&t, &w, b, r, cols, rows, x, jdu);
                CHECK(m == mbs_rtree_point_nrates(&t, b));
                for (int i = 1; i < m; i++) CHECK(cols[i] > cols[i - 1]);
                double Ju[3] = {0, 0, 0}, vt[3];
                for (int d = 0; d < 3; d++)
                    for (int i = 0; i < m; i++) Ju[d] += rows[d * m + i] * u[cols[i]];
                /* the velocity of the body's twist at the point */
                mbs_twist V;
                mbs_rtree_body(&t, &w, b, NULL, NULL, &V, NULL);
                mbs_twist_point_velocity(&V, x, vt);
                double vs = fmax(v3norm(vt), 1e-3);
                for (int d = 0; d < 3; d++) ev = fmax(ev, fabs(Ju[d] - vt[d]) / vs);
                /* differences along q(s) = advance(q, u, s), on which the
                 * rates stay u: first (central, h 1e-5) and second (h 1e-3) */
                double xp[3], xm[3], x0[3], h = 1e-5, h2 = 1e-3;
                mbs_rtree_advance(&t, q, u, h, qp);
                mbs_rtree_advance(&t, q, u, -h, qm);
                s_pos(&t, &w, qp, b, r, xp);
                s_pos(&t, &w, qm, b, r, xm);
                s_pos(&t, &w, q, b, r, x0);
                for (int d = 0; d < 3; d++) efd = fmax(efd, fabs((xp[d] - xm[d]) / (2 * h) - Ju[d]) / vs);
                mbs_rtree_advance(&t, q, u, h2, qp);
                mbs_rtree_advance(&t, q, u, -h2, qm);
                s_pos(&t, &w, qp, b, r, xp);
                s_pos(&t, &w, qm, b, r, xm);
                double as = fmax(v3norm(jdu), 1e-3);
                for (int d = 0; d < 3; d++)
                    eacc = fmax(eacc, fabs((xp[d] - 2 * x0[d] + xm[d]) / (h2 * h2) - jdu[d]) / as);
            }
        }
        /* the ground's point: itself, no rates */
        {
            double r[3] = {0.3, -0.2, t.dim == 3 ? 0.7 : 0}, x[3], jdu[3] = {1, 1, 1}, rows[3];
            int cols[1];
            CHECK(mbs_rtree_point_nrates(&t, -1) == 0);
            CHECK(mbs_rtree_point_rows(&t, &w, -1, r, cols, rows, x, jdu) == 0);
            for (int d = 0; d < 3; d++) CHECK(x[d] == r[d] && jdu[d] == 0);
        }
        printf("  %s: point rows |J u - v| %.1e, against central differences %.1e; |J'u - d2x/ds2| %.1e\n", c[k].what,
               ev, efd, eacc);
        /* rounding of a sum over the path (relative to |v|, at least 1e-3
         * m/s); the differences' truncation h^2 |x'''| / 6 (h = 1e-5: about
         * 1e-10 |x'''|, x''' up to some 10 m/s^3 at these rates) and
         * h^2 |x''''| / 12 (h = 1e-3), far below a wrong column's or
         * term's O(1) */
        CHECK(ev < 1e-13);
        CHECK(efd < 1e-7);
        CHECK(eacc < 1e-5);
        free(q); free(du); free(u); free(qp); free(qm);
        mbs_rtree_ws_free(&w);
        mbs_rtree_free(&t);
        mbs_spec_free(&sp);
    }
}

/* advance: a body spinning on a ball joint at a constant angular velocity
 * (world axes: the ground is the parent) against the exact rotation
 * exp(t [w]) R0; one-freedom coordinates exact; first order against
 * mbs_rtree_qdot. */
static void test_advance(void)
{
    mbs_errlist el = {0};
    mbs_spec *sp = mech_parse(TOP, strlen(TOP), NULL, 0, &el);
    if (!CHECK(sp != NULL)) return;
    mbs_rtree t;
    mbs_rtree_ws w;
    CHECK(mbs_rtree_build(sp, &t, &el) == 0);
    CHECK(mbs_rtree_ws_new(&t, &w) == 0);
    CHECK(t.n == 3 && t.nq == 4);
    double q[4], du[3], u[3] = {1.3, -2.1, 0.7}, R0[9], R[9], Re[9], E[9];
    s_random_q(&t, 3.0, q, du);
    mbs_rtree_kinematics(&t, &w, q, NULL);
    mbs_rtree_body(&t, &w, 0, R0, NULL, NULL, NULL);
    double wn = v3norm(u), ax[3] = {u[0] / wn, u[1] / wn, u[2] / wn}, s = 1e-3, err = 0, nerr = 0, lin = 0;
    double ql[4];
    memcpy(ql, q, sizeof q);
    for (int step = 1; step <= 1000; step++) {
        mbs_rtree_advance(&t, q, u, s, q);
        /* the first-order alternative, q + s G(q) u normalised */
        double qd[4];
        mbs_rtree_qdot(&t, ql, u, qd);
        double nl = 0;
        for (int i = 0; i < 4; i++) { ql[i] += s * qd[i]; nl += ql[i] * ql[i]; }
        for (int i = 0; i < 4; i++) ql[i] /= sqrt(nl);
        nerr = fmax(nerr, fabs(sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]) - 1));
        if (step % 100) continue;
        s_axis_rot(ax, wn * step * s, E);
        s_mm(E, 0, R0, Re);
        mbs_rtree_kinematics(&t, &w, q, NULL);
        mbs_rtree_body(&t, &w, 0, R, NULL, NULL, NULL);
        for (int i = 0; i < 9; i++) err = fmax(err, fabs(R[i] - Re[i]));
        mbs_rtree_kinematics(&t, &w, ql, NULL);
        mbs_rtree_body(&t, &w, 0, R, NULL, NULL, NULL);
        for (int i = 0; i < 9; i++) lin = fmax(lin, fabs(R[i] - Re[i]));
    }
    printf("  spinning body, 1000 steps of 1e-3 s at |w| %.2f rad/s: exponential map within %.1e of the exact "
           "rotation (|q| - 1 within %.1e); q + s G(q) u normalised: %.1e\n", wn, err, nerr, lin);
    CHECK(err < 1e-12);
    CHECK(nerr < 1e-14);
    CHECK(lin > 1e-6); /* the first-order map drifts: the test tells them apart */
    /* first order: |(advance(q, u, s) - q) / s - G(q) u| proportional to s */
    double qd[4], q1[4], r[2];
    mbs_rtree_qdot(&t, q, u, qd);
    for (int k = 0; k < 2; k++) {
        double h = k ? 5e-4 : 1e-3, e = 0;
        mbs_rtree_advance(&t, q, u, h, q1);
        for (int i = 0; i < 4; i++) e = fmax(e, fabs((q1[i] - q[i]) / h - qd[i]));
        r[k] = e;
    }
    printf("  advance against q' = G(q) u: %.2e at s = 1e-3, %.2e at 5e-4 (ratio %.3f)\n", r[0], r[1], r[0] / r[1]);
    CHECK(fabs(r[0] / r[1] - 2) < 0.01);
    mbs_rtree_ws_free(&w);
    mbs_rtree_free(&t);
    mbs_spec_free(&sp);
    /* one-freedom coordinates and a floating body's translation: q + s u */
    sp = mech_parse(BRANCH, strlen(BRANCH), NULL, 0, &el);
    if (!CHECK(sp != NULL)) return;
    CHECK(mbs_rtree_build(sp, &t, &el) == 0);
    double *qa = calloc((size_t)t.nq, sizeof(double)), *qb = calloc((size_t)t.nq, sizeof(double));
    double *ua = calloc((size_t)t.n, sizeof(double)), *dd = calloc((size_t)t.n, sizeof(double));
    s_random_q(&t, 1.0, qa, dd);
    for (int i = 0; i < t.n; i++) ua[i] = s_rand();
    mbs_rtree_advance(&t, qa, ua, 0.37, qb);
    double e1 = 0;
    int n1 = 0;
    for (int i = 0; i < t.nnode; i++)
        if (t.node[i].dof == 1) {
            e1 = fmax(e1, fabs(qb[t.node[i].qcoord] - qa[t.node[i].qcoord] - 0.37 * ua[t.node[i].coord]));
            n1++;
        }
    printf("  one-freedom coordinates (%d): |advance - (q + s u)| %.1e\n", n1, e1);
    CHECK(n1 >= 5);
    CHECK(e1 < 1e-15);
    free(qa); free(qb); free(ua); free(dd);
    mbs_rtree_free(&t);
    mbs_spec_free(&sp);
}

int main(void)
{
    test_mass();
    test_point_rows();
    test_advance();
    return CHECK_SUMMARY("relative_blocks_test");
}
