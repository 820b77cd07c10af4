/*
 * sysgraph.c - system graph and spanning tree (sysgraph.h).
 */
#include "mbs/formulation/relative/sysgraph.h"

#include "mbs/mbs.h"

#include <stdlib.h>
#include <string.h>

int mbs_joint_dof(int type, int dim)
{
    switch (type) {
    case MBS_JOINT_REVOLUTE:
    case MBS_JOINT_PRISMATIC: return 1;
    case MBS_JOINT_SPHERICAL: return 3;
    case MBS_JOINT_UNIVERSAL:
    case MBS_JOINT_CYLINDRICAL: return 2;
    case MBS_JOINT_FIXED: return 0;
    case MBS_JOINT_DISTANCE: return dim == 3 ? 5 : 2;
    }
    return 0;
}

int mbs_joint_in_graph(const mbs_joint_spec *J)
{
    return !(J->type == MBS_JOINT_PRISMATIC && J->clearance_model == MBS_CLEARANCE_IMPACT);
}

/* Candidate branch joints of one breadth-first level: joint j reaching body
 * b, ordered by load (a joint carrying a driver, a rotational spring, a
 * motor, an actuator or damping first: a chord would need a rheonomic or
 * a measured-angle equation for it), then by the joint's freedom, then by
 * joint index (deterministic). */
typedef struct { int loaded, dof, joint, body; } s_cand;

static int s_cmp_cand(const void *x, const void *y)
{
    const s_cand *a = x, *b = y;
    if (a->loaded != b->loaded) return b->loaded - a->loaded;
    if (a->dof != b->dof) return a->dof - b->dof;
    return a->joint - b->joint;
}

/* Joints that carry a load acting along their coordinate (the chords to
 * avoid): 1 in out (njoint). */
static void s_loaded_joints(const mbs_spec *s, char *out)
{
    for (int j = 0; j < s->njoint; j++) out[j] = s->joints[j].damping > 0;
    for (int d = 0; d < s->ndriver; d++)
        if (s->drivers[d].joint >= 0) out[s->drivers[d].joint] = 1;
    for (int e = 0; e < s->nforce; e++) {
        const mbs_force_spec *F = &s->forces[e];
        if ((F->type == MBS_FORCE_ROTATIONAL_SPRING_DAMPER || F->type == MBS_FORCE_DC_MOTOR ||
             F->type == MBS_FORCE_JOINT_ACTUATOR) && F->joint >= 0)
            out[F->joint] = 1;
    }
}

void mbs_sysgraph_free(mbs_sysgraph *g)
{
    free(g->branch); free(g->parent); free(g->parent_joint); free(g->depth); free(g->order);
    free(g->chords); free(g->loop);
    memset(g, 0, sizeof *g);
}

/* Number of joints in the loop closed by chord j: the tree paths from its
 * two bodies up to their deepest common ancestor, plus the chord. */
static int s_loop_length(const mbs_sysgraph *g, int a, int b)
{
    int len = 1;
    while (a != b) {
        int da = a < 0 ? -1 : g->depth[a], db = b < 0 ? -1 : g->depth[b];
        if (da >= db && a >= 0) { a = g->parent[a] == -2 ? MBS_GROUND : g->parent[a]; len++; }
        else if (b >= 0) { b = g->parent[b] == -2 ? MBS_GROUND : g->parent[b]; len++; }
        else break;
    }
    return len;
}

/* The tree's arrays from the ground and the floating roots outwards
 * (parent, parent_joint, depth, order, nroot), breadth first: every body
 * reached through as few joints as possible, the candidates of one level
 * in s_cmp_cand's order.  fixed 0: choose the branch joints (g->branch
 * set here); 1: keep g->branch and follow its joints only. */
static void s_grow(const mbs_spec *s, mbs_sysgraph *g, const int *ptr, const int *adj, s_cand *cand,
                   const char *loaded, int fixed)
{
    int nb = s->nbody, dim = s->dim;
    for (int b = 0; b < nb; b++) { g->parent[b] = -3; g->parent_joint[b] = -1; g->depth[b] = -1; }
    g->nroot = 0;
    int nord = 0, level_start = 0;
    int root = MBS_GROUND;
    for (;;) {
        /* the frontier: the ground (first level) or the bodies of the last level */
        int nc = 0;
        int from_lo = level_start, from_hi = nord;
        int ground_level = root == MBS_GROUND && nord == 0 && level_start == 0 && g->nroot == 0;
        int nfrom = ground_level ? 1 : from_hi - from_lo;
        for (int q = 0; q < nfrom; q++) {
            int node = ground_level ? MBS_GROUND : g->order[from_lo + q];
            for (int p = ptr[node + 1]; p < ptr[node + 2]; p++) {
                int j = adj[p];
                const mbs_joint_spec *J = &s->joints[j];
                if (J->type == MBS_JOINT_DISTANCE) continue; /* always a chord */
                if (fixed && !g->branch[j]) continue;
                int other = J->body[0] == node ? J->body[1] : J->body[0];
                if (other < 0 || g->parent[other] != -3) continue;
                cand[nc].loaded = loaded[j];
                cand[nc].dof = mbs_joint_dof(J->type, dim);
                cand[nc].joint = j;
                cand[nc].body = other;
                nc++;
            }
        }
        qsort(cand, (size_t)nc, sizeof cand[0], s_cmp_cand);
        level_start = nord;
        for (int c = 0; c < nc; c++) {
            int b = cand[c].body, j = cand[c].joint;
            if (g->parent[b] != -3) continue; /* reached by a preferred joint already */
            const mbs_joint_spec *J = &s->joints[j];
            int from = J->body[0] == b ? J->body[1] : J->body[0];
            g->parent[b] = from;
            g->parent_joint[b] = j;
            g->depth[b] = from < 0 ? 1 : g->depth[from] + 1;
            g->branch[j] = 1;
            g->order[nord++] = b;
        }
        if (nord > level_start) continue;
        /* the component is exhausted: a body not reached yet is a floating root */
        int next = -1;
        for (int b = 0; b < nb && next < 0; b++) if (g->parent[b] == -3) next = b;
        if (next < 0) break;
        g->parent[next] = -2;
        g->depth[next] = 1;
        g->order[nord++] = next;
        g->nroot++;
        level_start = nord - 1;
        root = next;
    }
}

/* The joint of chord j's fundamental loop to cut in its place when j
 * carries a load: an unloaded tree joint of the loop, the one of most
 * freedom (fewest chord equations), then of lowest index; -1: none. */
static int s_swap_partner(const mbs_spec *s, const mbs_sysgraph *g, const char *loaded, int j)
{
    int a = s->joints[j].body[0], b = s->joints[j].body[1], best = -1, best_dof = -1;
    while (a != b) {
        int da = a < 0 ? -1 : g->depth[a], db = b < 0 ? -1 : g->depth[b];
        int *x = da >= db && a >= 0 ? &a : b >= 0 ? &b : NULL;
        if (!x) break;
        int k = g->parent_joint[*x];
        if (k >= 0 && !loaded[k]) {
            int dof = mbs_joint_dof(s->joints[k].type, s->dim);
            if (dof > best_dof || (dof == best_dof && k < best)) { best = k; best_dof = dof; }
        }
        *x = g->parent[*x] == -2 ? MBS_GROUND : g->parent[*x];
    }
    return best;
}

int mbs_sysgraph_build(const mbs_spec *s, mbs_sysgraph *g)
{
    int nb = s->nbody, nj = s->njoint, dim = s->dim;
    memset(g, 0, sizeof *g);
    g->nbody = nb;
    g->njoint = nj;
    g->branch = calloc((size_t)(nj > 0 ? nj : 1), 1);
    g->parent = malloc(sizeof(int) * (size_t)(nb > 0 ? nb : 1));
    g->parent_joint = malloc(sizeof(int) * (size_t)(nb > 0 ? nb : 1));
    g->depth = malloc(sizeof(int) * (size_t)(nb > 0 ? nb : 1));
    g->order = malloc(sizeof(int) * (size_t)(nb > 0 ? nb : 1));
    g->chords = malloc(sizeof(int) * (size_t)(nj > 0 ? nj : 1));
    g->loop = malloc(sizeof(int) * (size_t)(nj > 0 ? nj : 1));
    /* adjacency: the joints at each body (CSR), ground's separately */
    int *ptr = calloc((size_t)nb + 2, sizeof(int)), *adj = malloc(sizeof(int) * (size_t)(2 * nj + 1));
    s_cand *cand = malloc(sizeof(s_cand) * (size_t)(2 * nj + 1));
    char *loaded = calloc((size_t)(nj > 0 ? nj : 1), 1);
    if (!g->branch || !g->parent || !g->parent_joint || !g->depth || !g->order || !g->chords || !g->loop || !ptr ||
        !adj || !cand || !loaded) {
        free(ptr); free(adj); free(cand); free(loaded);
        mbs_sysgraph_free(g);
        return MBS_ENOMEM;
    }
    /* node index: body b -> b + 1, ground -> 0 */
    for (int j = 0; j < nj; j++)
        for (int k = 0; k < 2 && mbs_joint_in_graph(&s->joints[j]); k++) ptr[s->joints[j].body[k] + 2]++;
    for (int i = 0; i < nb + 1; i++) ptr[i + 1] += ptr[i];
    int *fill = malloc(sizeof(int) * ((size_t)nb + 1));
    if (!fill) { free(ptr); free(adj); free(cand); free(loaded); mbs_sysgraph_free(g); return MBS_ENOMEM; }
    memcpy(fill, ptr, sizeof(int) * ((size_t)nb + 1));
    for (int j = 0; j < nj; j++)
        for (int k = 0; k < 2 && mbs_joint_in_graph(&s->joints[j]); k++) adj[fill[s->joints[j].body[k] + 1]++] = j;
    free(fill);
    s_loaded_joints(s, loaded);
    s_grow(s, g, ptr, adj, cand, loaded, 0);
    /* a loaded joint left a chord (it closes a loop at the frontier of the
     * breadth-first levels): cut its loop at an unloaded joint instead
     * when there is one, and grow the tree again along the new branches
     * (the same components, so the same floating roots) */
    for (int j = 0; j < nj; j++) {
        if (g->branch[j] || !loaded[j] || s->joints[j].type == MBS_JOINT_DISTANCE ||
            !mbs_joint_in_graph(&s->joints[j]))
            continue;
        int k = s_swap_partner(s, g, loaded, j);
        if (k < 0) continue;
        g->branch[j] = 1;
        g->branch[k] = 0;
        s_grow(s, g, ptr, adj, cand, loaded, 1);
    }
    /* coordinates, chords, their equations and loops */
    g->ncoord = g->nroot * (dim == 3 ? 6 : 3);
    for (int j = 0; j < nj; j++) {
        const mbs_joint_spec *J = &s->joints[j];
        if (g->branch[j]) { g->ncoord += mbs_joint_dof(J->type, dim); continue; }
        if (!mbs_joint_in_graph(J)) continue; /* contacts, no equations */
        g->chords[g->nchord] = j;
        g->loop[g->nchord] = s_loop_length(g, J->body[0], J->body[1]);
        g->nchord++;
        g->nconstraint += J->type == MBS_JOINT_DISTANCE ? 1 : (dim == 3 ? 6 : 3) - mbs_joint_dof(J->type, dim);
    }
    free(ptr); free(adj); free(cand); free(loaded);
    return 0;
}
