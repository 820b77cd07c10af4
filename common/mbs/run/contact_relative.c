/*
 * contact_relative.c - the relative formulation's DAE form
 * (formulation/dae_form.h) and contact rows (formulation/contact_rows.h)
 * for Moreau-Jean and the event-driven integrator (issue 12,
 * docs/formulations.md "Moreau-Jean (and the event-driven integrator) in
 * relative coordinates"); the runs that hand them to the integrators are
 * contact_relative_run.c's (contact_relative.h).
 *
 * Why in the run layer, not under formulation/relative: the forces take the
 * run's compliant contacts (the tree's `extra` hook) and the points come
 * from the natural coordinates' contact geometry (contact/, rank 5) on the
 * state mapped by mbs_rel_to_natural (run/relative.c): contact_natural.c
 * sits above the natural formulation for the same reason.
 *
 * The form, hook by hook (the tree's pieces, formulation/relative/tree.h):
 *   n, nq          the rates u and coordinates q (a ball's quaternion: 4)
 *   advance        mbs_rtree_advance (the exponential map on a ball)
 *   mass pattern   mbs_rtree_mass_pattern; mass_eval: kinematics at q, then
 *                  the composite-rigid-body values (mbs_rtree_mass_eval)
 *   forces         Q(q, u, t) - C(q, u) u = M(q) qdd_free, qdd_free the
 *                  articulated-body recursion's accelerations of the tree
 *                  without the chords (gravity, elements, the run's compliant
 *                  contacts): two O(n) passes, no velocity terms written out
 *   constraints    the chords' circuit equations and the tree drivers
 *                  (mbs_rtree_circuit), their rows dense on u (the pattern is
 *                  every rate: a tree with loops is one island), phi_t the
 *                  equations' rate at u = 0, jv / jtl dense products
 *   event-driven   advance left out (q' = u: planar trees), baumgarte_rhs
 *                  J' u + 2 alpha Phi' + beta^2 Phi, rank_margin from a
 *                  pivoted Cholesky of J J^T
 * The rows: a body's rates are those on its path to the root (a floating
 * ball's six: its own island); a pair's the union of its two bodies'; a
 * point's gap, frame and witness points are the natural coordinates' at the
 * mapped configuration (contact_rigid.c, the witness points in NCS
 * coordinates, so the contact force outputs read them as they do in a
 * natural run), its rows G = d^T (J_B(r_B) - J_A(r_A)) with J the tree's
 * point Jacobians (mbs_rtree_point_rows) at the witness points' reference
 * coordinates r = L(c) q0.
 *
 * Refused here (clear messages): an island above 240 rates and equations
 * (the integrator would need a KKT factor of the whole tree), a pair whose
 * rows span more than 2 x 12 rates (contact_relative_run.c refuses the
 * rest: rotors on chords, element states, ball joints with event_driven).
 * Contact deactivation: the active set is the run's broad phase on the
 * mapped natural state (mbs_run_step_done sweeps it, as in a natural run);
 * the reach of a pair and the check after a solve bound a point's speed by
 * the sum over its path of |rate| x the rate's lever arm (body_speeds,
 * missed), since the integrator's own rule (max |v| (1 + L)) holds for the
 * natural coordinates' velocities only.
 */
#include "mbs/run/contact_relative.h"

#include "mbs/contact/contact.h"
#include "mbs/contact/contact_rigid.h"
#include "mbs/formulation/natural/natural.h"
#include "mbs/linalg/vec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define S_ISL_MAX 240 /* integrator_mj.c's largest dense island */

typedef struct {
    const mbs_model *m;
    const mbs_rtree *t;
    int n, nq, ne;
    mbs_rtree_ws wf, wm, wp;   /* forces and equations; mass; points          */
    int *mptr, *mcol;          /* M's pattern                                */
    int *jcols;                /* (ne n) the dense rows' columns             */
    double *qdd;               /* (n)                                        */
    double *x, *v;             /* (nvar) the natural state of the points     */
    long xstamp;               /* the stamp x was mapped at                  */
    mbs_shape *wsh;            /* (nshape) world shapes ...                  */
    long *wsh_step;            /* ... at this stamp                          */
    int bnv;                   /* most rates on a body's path                */
    int *bvar;                 /* (nbody bnv) each body's rates, -1 padded   */
    int *pvar, *pnv;           /* (ncontact 2 MBS_NB_MAX), (ncontact)        */
    int *cols;                 /* (n) scratch of mbs_rtree_point_rows        */
    double *rows;              /* (3 n)                                      */
    /* contact deactivation: the run's natural data (its broad phase), each
     * body's shapes, the lever arm of each rate on each body's path */
    mbs_data *dn;
    int *bsh_ptr, *bsh;        /* (nbody + 1), (nshape) shapes by body       */
    double *lever;             /* (nbody bnv) as bvar                        */
    double *dxn;               /* (nvar) missed()'s natural displacements    */
    mbs_data *dr;              /* the integrator's data (baumgarte_rhs leaves
                                  Phi, Phi_q in its phi, jac)                */
} s_rel;

/* ---- the DAE form ---------------------------------------------------------------------- */

static void s_jac_row(void *ctx, int r, int *off, int *nnz)
{
    const s_rel *c = ctx;
    *off = r * c->n;
    *nnz = c->n;
}

static void s_mass_eval(void *ctx, const double *q, double *val)
{
    s_rel *c = ctx;
    mbs_rtree_kinematics(c->t, &c->wm, q, NULL);
    mbs_rtree_mass_eval(c->t, &c->wm, c->mptr, c->mcol, val);
}

/* y = M v at the configuration of the last mass_eval. */
static void s_mass_mul(void *ctx, const double *v, double *y)
{
    s_rel *c = ctx;
    mbs_rtree_mass_mul(c->t, &c->wm, v, y);
}

static void s_advance(void *ctx, const double *q, const double *u, double s, double *qout)
{
    const s_rel *c = ctx;
    mbs_rtree_advance(c->t, q, u, s, qout);
}

/* Q - C u = M qdd_free: the tree's accelerations under every load without
 * the chords, times its mass matrix (a singular recursion gives NaN, which
 * the integrator reports). */
static void s_forces(void *ctx, const double *q, const double *u, double time, double *Q)
{
    s_rel *c = ctx;
    mbs_rtree_kinematics(c->t, &c->wf, q, u);
    mbs_rtree_applied(c->t, &c->wf, time);
    if (mbs_rtree_forward(c->t, &c->wf, c->qdd) != 0) {
        for (int i = 0; i < c->n; i++) Q[i] = NAN;
        return;
    }
    mbs_rtree_mass_mul(c->t, &c->wf, c->qdd, Q);
}

static void s_constraints(void *ctx, const double *q, double time, double *phi, double *jac)
{
    s_rel *c = ctx;
    mbs_rtree_kinematics(c->t, &c->wf, q, NULL);
    mbs_rtree_circuit(c->t, &c->wf, time);
    memcpy(phi, c->wf.phi, sizeof(double) * (size_t)c->ne);
    if (jac) memcpy(jac, c->wf.J, sizeof(double) * (size_t)c->ne * (size_t)c->n);
}

/* Phi_t: the equations' rate at u = 0. */
static void s_phi_t(void *ctx, const double *q, double time, double *phit)
{
    s_rel *c = ctx;
    mbs_rtree_kinematics(c->t, &c->wf, q, NULL);
    mbs_rtree_circuit(c->t, &c->wf, time);
    memcpy(phit, c->wf.phid, sizeof(double) * (size_t)c->ne);
}

/* gamma with Phi_q u' + gamma = 0: the circuit's bias J' u (or -f''). */
static void s_gamma(void *ctx, const double *q, const double *u, double time, double *gam)
{
    s_rel *c = ctx;
    mbs_rtree_kinematics(c->t, &c->wf, q, u);
    mbs_rtree_circuit(c->t, &c->wf, time);
    memcpy(gam, c->wf.bias, sizeof(double) * (size_t)c->ne);
}

/* The event-driven integrator's index-1 right-hand side c = J' u + 2 alpha
 * Phi' + beta^2 Phi (J u' = -c), Phi and its rows left in the integrator's
 * data. */
static void s_baumgarte_rhs(void *ctx, const double *q, const double *u, double time, double alpha, double beta,
                            double *rhs)
{
    s_rel *c = ctx;
    mbs_rtree_kinematics(c->t, &c->wf, q, u);
    mbs_rtree_circuit(c->t, &c->wf, time);
    for (int i = 0; i < c->ne; i++)
        rhs[i] = c->wf.bias[i] + 2 * alpha * c->wf.phid[i] + beta * beta * c->wf.phi[i];
    memcpy(c->dr->phi, c->wf.phi, sizeof(double) * (size_t)c->ne);
    memcpy(c->dr->jac, c->wf.J, sizeof(double) * (size_t)c->ne * (size_t)c->n);
}

/* The rank margin of the rows in the integrator's jac (its independent
 * ones, eq_on): sqrt of the smallest over the largest pivot of the Cholesky
 * factor of J J^T, the largest remaining diagonal taken first (1 without
 * equations; near 0 at a singular position). */
static double s_rank_margin(void *ctx)
{
    s_rel *c = ctx;
    int ne = c->ne, n = c->n, k = 0;
    if (ne == 0) return 1;
    int *r = malloc(sizeof(int) * (size_t)ne);
    double *G = malloc(sizeof(double) * (size_t)ne * (size_t)ne);
    if (!r || !G) { free(r); free(G); return 1; }
    for (int i = 0; i < ne; i++) if (c->dr->eq_on[i]) r[k++] = i;
    const double *J = c->dr->jac;
    for (int a = 0; a < k; a++)
        for (int b = 0; b <= a; b++) {
            double acc = 0;
            for (int i = 0; i < n; i++) acc += J[(size_t)r[a] * n + i] * J[(size_t)r[b] * n + i];
            G[a * k + b] = G[b * k + a] = acc;
        }
    double pmax = 0, pmin = INFINITY;
    char *done = calloc((size_t)k + 1, 1);
    for (int it = 0; done && it < k; it++) {
        int p = -1;
        for (int a = 0; a < k; a++) if (!done[a] && (p < 0 || G[a * k + a] > G[p * k + p])) p = a;
        double d = G[p * k + p];
        if (d > pmax) pmax = d;
        if (d < pmin) pmin = d;
        done[p] = 1;
        if (!(d > 0)) break;
        for (int a = 0; a < k; a++)
            for (int b = 0; b < k; b++)
                if (!done[a] && !done[b]) G[a * k + b] -= G[a * k + p] * G[p * k + b] / d;
    }
    free(done); free(r); free(G);
    return k == 0 || !(pmax > 0) ? 1 : sqrt(fmax(pmin, 0) / pmax);
}

static void s_jv(void *ctx, const double *jac, const double *v, double *y)
{
    const s_rel *c = ctx;
    for (int r = 0; r < c->ne; r++) {
        double a = 0;
        for (int i = 0; i < c->n; i++) a += jac[(size_t)r * c->n + i] * v[i];
        y[r] = a;
    }
}

static void s_jtl(void *ctx, const double *jac, const double *l, double *z)
{
    const s_rel *c = ctx;
    for (int r = 0; r < c->ne; r++)
        for (int i = 0; i < c->n; i++) z[i] += jac[(size_t)r * c->n + i] * l[r];
}

/* ---- the contact rows ------------------------------------------------------------------- */

static void s_body_vars(void *ctx, int b, int *vars)
{
    const s_rel *c = ctx;
    memcpy(vars, c->bvar + (size_t)b * c->bnv, sizeof(int) * (size_t)c->bnv);
}

static int s_max_points(void *ctx, int k)
{
    return mbs_rigid_max_points(((s_rel *)ctx)->m, k);
}

static const int *s_pair_vars(void *ctx, int k)
{
    const s_rel *c = ctx;
    return c->pvar + (size_t)k * 2 * MBS_NB_MAX;
}

/* Replace the natural rows of point P by the tree's: sign d^T J(r) of each
 * side's witness point (A -, B +) on the pair's rates. */
static void s_point_rows(s_rel *c, mbs_rpoint *P)
{
    const mbs_model *m = c->m;
    const int *pv = s_pair_vars(c, P->pair);
    int nv = c->pnv[P->pair], ncomp = m->dim == 3 ? 3 : 2;
    const double *dir[3] = {P->n, P->t[0], P->t[1]};
    memset(P->G, 0, sizeof P->G);
    P->nv = nv;
    for (int s = 0; s < 2; s++) {
        int b = P->body[s];
        if (b < 0) continue;
        /* the witness point's reference coordinates L(c) q0 */
        double L[3 * MBS_NB_MAX], r[3] = {0, 0, 0}, x[3];
        mbs_point_map(m, b, P->c[s], 1, L);
        for (int a = 0; a < m->dim; a++)
            for (int k = 0; k < m->nb; k++) r[a] += L[a * m->nb + k] * m->body[b].q0[k];
        int nc = mbs_rtree_point_rows(c->t, &c->wp, b, r, c->cols, c->rows, x, NULL);
        double sign = s == 0 ? -1.0 : 1.0;
        /* both lists ascend: merge */
        int j = 0;
        for (int k = 0; k < nc; k++) {
            while (j < nv && pv[j] < c->cols[k]) j++;
            for (int comp = 0; comp < ncomp; comp++) {
                double a = 0;
                for (int e = 0; e < 3; e++) a += dir[comp][e] * c->rows[e * nc + k];
                P->G[comp][j] += sign * a;
            }
        }
    }
}

static void s_points(void *ctx, const double *q, long stamp, const int *pairs, int npairs, const double *reach,
                     mbs_rpoint *out, int *count, double *gmin)
{
    s_rel *c = ctx;
    const mbs_model *m = c->m;
    /* the configuration's poses and natural coordinates once per stamp */
    if (c->xstamp != stamp) {
        mbs_rtree_kinematics(c->t, &c->wp, q, NULL);
        mbs_rel_to_natural(m, c->t, &c->wp, c->x, c->v, NULL);
        c->xstamp = stamp;
    }
    int np = 0;
    for (int j = 0; j < npairs; j++) {
        int k = pairs[j];
        const int *sh = m->spec->contacts[k].shape;
        for (int s = 0; s < 2; s++)
            if (c->wsh_step[sh[s]] != stamp) {
                mbs_contact_world_shape(m, sh[s], c->x, &c->wsh[sh[s]]);
                c->wsh_step[sh[s]] = stamp;
            }
        int got = mbs_rigid_pair_points_ws(m, k, c->x, &c->wsh[sh[0]], &c->wsh[sh[1]], out + np);
        if (reach && got > 0) {
            double g = INFINITY;
            for (int i = 0; i < got && !isnan(g); i++) g = isnan(out[np + i].g) ? NAN : fmin(g, out[np + i].g);
            if (g > reach[j]) {
                count[j] = -1;
                gmin[j] = g;
                continue;
            }
        }
        for (int i = 0; i < got; i++) s_point_rows(c, &out[np + i]);
        count[j] = got;
        np += got;
    }
}

/* Deactivation's reach (contact_rows.h body_speeds): at q and v, each
 * body's twist V = sum of its path's v_i S_i, and its shapes' points'
 * speed bound max |V.v + V.w x c| + |V.w| rho (c, rho: the centre and half
 * diagonal of a shape's box); also the lever arm of rate i on body b, max
 * over b's shapes of |S_i.v + S_i.w x c| + |S_i.w| rho (every point of the
 * shape moves at most |u_i| times it under rate i), kept for missed(),
 * whose displacements have no signs. */
static void s_body_speeds(void *ctx, const double *q, const double *v, double *speed)
{
    s_rel *c = ctx;
    const mbs_model *m = c->m;
    mbs_rtree_kinematics(c->t, &c->wp, q, NULL);
    mbs_rel_to_natural(m, c->t, &c->wp, c->x, c->v, NULL);
    for (int b = 0; b < m->nbody; b++) {
        const int *bv = c->bvar + (size_t)b * c->bnv;
        double *lv = c->lever + (size_t)b * c->bnv, sp = 0;
        for (int k = 0; k < c->bnv; k++) lv[k] = 0;
        /* the body's twist at v: sum of its path's rates times their axes */
        mbs_twist V = {{0, 0, 0}, {0, 0, 0}};
        for (int k = 0; k < c->bnv && bv[k] >= 0; k++)
            for (int a = 0; a < 3; a++) {
                V.w[a] += v[bv[k]] * c->wp.S[bv[k]].w[a];
                V.v[a] += v[bv[k]] * c->wp.S[bv[k]].v[a];
            }
        for (int j = c->bsh_ptr[b]; j < c->bsh_ptr[b + 1]; j++) {
            mbs_shape S;
            mbs_aabb box;
            mbs_contact_world_shape(m, c->bsh[j], c->x, &S);
            mbs_shape_aabb(&S, 0, &box);
            double ctr[3], rho = 0;
            for (int a = 0; a < 3; a++) {
                ctr[a] = 0.5 * (box.lo[a] + box.hi[a]);
                rho += 0.25 * (box.hi[a] - box.lo[a]) * (box.hi[a] - box.lo[a]);
            }
            rho = sqrt(rho);
            for (int k = 0; k < c->bnv && bv[k] >= 0; k++) {
                const mbs_twist *St = &c->wp.S[bv[k]];
                double x[3], pv[3];
                v3cross(St->w, ctr, x);
                for (int a = 0; a < 3; a++) pv[a] = St->v[a] + x[a];
                double l = v3norm(pv) + v3norm(St->w) * rho;
                if (!(l <= lv[k])) lv[k] = l; /* NaN, an unbounded shape: kept */
            }
            /* the shape's points at v: at most |V.v + V.w x c| + |V.w| rho
             * (tighter than the sum of |rate| x arm where rates cancel, as
             * a slider-crank's crank and rod) */
            double x[3], pv[3];
            v3cross(V.w, ctr, x);
            for (int a = 0; a < 3; a++) pv[a] = V.v[a] + x[a];
            double l = v3norm(pv) + v3norm(V.w) * rho;
            if (!(l <= sp)) sp = l;
        }
        speed[b] = sp;
    }
}

/* Deactivation's check after a solve: each body's travel bound from the
 * rates' displacements dq and the lever arms of the last body_speeds,
 * handed to the natural coordinates' check (mbs_contact_missed: the run's
 * broad phase on the mapped state) as a displacement of every slot of the
 * body, in its units (travel / (1 + L)). */
static int s_missed(void *ctx, const double *dq, int *out)
{
    s_rel *c = ctx;
    const mbs_model *m = c->m;
    if (!c->dn) return 0;
    memset(c->dxn, 0, sizeof(double) * (size_t)m->nvar);
    for (int b = 0; b < m->nbody; b++) {
        const int *bv = c->bvar + (size_t)b * c->bnv;
        const double *lv = c->lever + (size_t)b * c->bnv;
        double tr = 0;
        for (int k = 0; k < c->bnv && bv[k] >= 0; k++) tr += dq[bv[k]] * lv[k];
        for (int sl = 0; sl < m->nb; sl++) {
            int var = m->body[b].var[sl];
            if (var >= 0 && var < m->nvar) c->dxn[var] = tr / (1 + m->length_scale);
        }
    }
    return mbs_contact_missed(m, c->dn, c->dxn, out);
}

static void s_release(void *ctx)
{
    s_rel *c = ctx;
    if (!c) return;
    mbs_rtree_ws_free(&c->wf);
    mbs_rtree_ws_free(&c->wm);
    mbs_rtree_ws_free(&c->wp);
    free(c->mptr); free(c->mcol); free(c->jcols); free(c->qdd); free(c->x); free(c->v);
    free(c->wsh); free(c->wsh_step); free(c->bvar); free(c->pvar); free(c->pnv); free(c->cols); free(c->rows);
    free(c->bsh_ptr); free(c->bsh); free(c->lever); free(c->dxn);
    free(c);
}

/* Body b's rates, ascending, into out (room for bnv): the path's nodes. */
static int s_path_rates(const mbs_rtree *t, int b, int *out)
{
    int k = 0;
    for (int i = b >= 0 ? t->body_node[b] : -1; i >= 0; i = t->node[i].parent)
        for (int a = 0; a < t->node[i].dof; a++) out[k++] = t->node[i].coord + a;
    /* the nodes come child first: sort (a path is short) */
    for (int i = 1; i < k; i++)
        for (int j = i; j > 0 && out[j - 1] > out[j]; j--) { int s = out[j]; out[j] = out[j - 1]; out[j - 1] = s; }
    return k;
}

static int s_find(int *p, int i)
{
    while (p[i] != i) i = p[i] = p[p[i]];
    return i;
}

/* The largest island of rates and equations Moreau-Jean will form: rates
 * linked by M's pattern; with equations (dense rows) every rate and
 * equation together. */
static int s_largest_island(const s_rel *c)
{
    if (c->ne > 0) return c->n + c->ne;
    int n = c->n, best = 0;
    int *p = malloc(sizeof(int) * (size_t)(n + 1)), *sz = calloc((size_t)n + 1, sizeof(int));
    if (!p || !sz) { free(p); free(sz); return -1; }
    for (int i = 0; i < n; i++) p[i] = i;
    for (int i = 0; i < n; i++)
        for (int k = c->mptr[i]; k < c->mptr[i + 1]; k++) {
            int a = s_find(p, i), b = s_find(p, c->mcol[k]);
            if (a != b) p[a] = b;
        }
    for (int i = 0; i < n; i++) {
        int r = s_find(p, i);
        if (++sz[r] > best) best = sz[r];
    }
    free(p); free(sz);
    return best;
}

/* The tree's form and rows (contact_relative.h). */
int mbs_rel_contact_new(const mbs_model *m, const mbs_rtree *t, const mbs_rtree_ws *run_w, const double *q0, int ed,
                        mbs_data *dn, mbs_dae_form *f, mbs_contact_rows *r, mbs_errlist *err)
{
    s_rel *c = calloc(1, sizeof *c);
    if (!c) return MBS_ENOMEM;
    c->m = m;
    c->t = t;
    c->n = t->n;
    c->nq = t->nq;
    c->ne = t->neq;
    c->xstamp = -1;
    int n = t->n, ne = t->neq, nb = m->nbody, nc = m->spec->ncontact, ns = m->spec->nshape;
    int ok = !mbs_rtree_ws_new(t, &c->wf) && !mbs_rtree_ws_new(t, &c->wm) && !mbs_rtree_ws_new(t, &c->wp);
    /* the run's loads (compliant contacts) in the forces */
    c->wf.extra = run_w->extra;
    c->wf.extra_ctx = run_w->extra_ctx;
    c->wf.motors_by_run = run_w->motors_by_run;
    int nnz = mbs_rtree_mass_nnz(t);
    c->mptr = malloc(sizeof(int) * (size_t)(n + 1));
    c->mcol = malloc(sizeof(int) * (size_t)(nnz + 1));
    c->jcols = malloc(sizeof(int) * ((size_t)ne * n + 1));
    c->qdd = malloc(sizeof(double) * (size_t)(n + 1));
    c->x = calloc((size_t)m->nvar + 1, sizeof(double));
    c->v = calloc((size_t)m->nvar + 1, sizeof(double));
    c->wsh = calloc((size_t)ns + 1, sizeof *c->wsh);
    c->wsh_step = malloc(sizeof(long) * ((size_t)ns + 1));
    c->cols = malloc(sizeof(int) * (size_t)(n + 1));
    c->rows = malloc(sizeof(double) * (3 * (size_t)n + 1));
    c->bnv = 1;
    for (int b = 0; b < nb; b++) {
        int k = mbs_rtree_point_nrates(t, b);
        if (k > c->bnv) c->bnv = k;
    }
    c->bvar = malloc(sizeof(int) * ((size_t)nb * c->bnv + 1));
    c->pvar = malloc(sizeof(int) * ((size_t)nc * 2 * MBS_NB_MAX + 1));
    c->pnv = calloc((size_t)nc + 1, sizeof(int));
    c->bsh_ptr = calloc((size_t)nb + 2, sizeof(int));
    c->bsh = malloc(sizeof(int) * ((size_t)ns + 1));
    c->lever = calloc((size_t)nb * c->bnv + 1, sizeof(double));
    c->dxn = calloc((size_t)m->nvar + 1, sizeof(double));
    ok = ok && c->bsh_ptr && c->bsh && c->lever && c->dxn && c->mptr && c->mcol && c->jcols && c->qdd && c->x && c->v && c->wsh && c->wsh_step && c->cols &&
         c->rows && c->bvar && c->pvar && c->pnv && !mbs_rtree_mass_pattern(t, c->mptr, c->mcol);
    if (!ok) { s_release(c); return MBS_ENOMEM; }
    for (int i = 0; i < ns; i++) c->wsh_step[i] = -1;
    /* each body's shapes (CSR) */
    for (int i = 0; i < ns; i++) {
        int b = m->spec->shapes[i].body;
        if (b >= 0 && b < nb) c->bsh_ptr[b + 2]++;
    }
    for (int b = 0; b < nb; b++) c->bsh_ptr[b + 2] += c->bsh_ptr[b + 1];
    for (int i = 0; i < ns; i++) {
        int b = m->spec->shapes[i].body;
        if (b >= 0 && b < nb) c->bsh[c->bsh_ptr[b + 1]++] = i;
    }
    for (int e = 0; e < ne; e++)
        for (int i = 0; i < n; i++) c->jcols[(size_t)e * n + i] = i;
    for (int b = 0; b < nb; b++) {
        int *o = c->bvar + (size_t)b * c->bnv, k = s_path_rates(t, b, o);
        for (; k < c->bnv; k++) o[k] = -1;
    }
    int rc = 0;
    /* each rigid pair's rates: the union of its two bodies' paths */
    for (int k = 0; k < nc && !rc; k++) {
        const mbs_contact_spec *C = &m->spec->contacts[k];
        int ba = m->spec->shapes[C->shape[0]].body, bbd = m->spec->shapes[C->shape[1]].body;
        int *o = c->pvar + (size_t)k * 2 * MBS_NB_MAX, na = mbs_rtree_point_nrates(t, ba);
        int nbb = mbs_rtree_point_nrates(t, bbd);
        if (na + nbb > 2 * MBS_NB_MAX) {
            mbs_err_add(err, "/contacts", "moreau_jean in relative coordinates: contact %d acts on %d joint rates "
                        "(the two bodies' paths to the ground), more than %d; use the natural formulation", k,
                        na + nbb, 2 * MBS_NB_MAX);
            rc = MBS_EINVAL;
            break;
        }
        int ua[2 * MBS_NB_MAX], ub[2 * MBS_NB_MAX];
        if (na > 0) s_path_rates(t, ba, ua);
        if (nbb > 0) s_path_rates(t, bbd, ub);
        int i = 0, j = 0, u = 0;
        while (i < na || j < nbb) {
            int x = i < na ? ua[i] : n, y = j < nbb ? ub[j] : n;
            int v = x < y ? x : y;
            o[u++] = v;
            if (x == v) i++;
            if (y == v) j++;
        }
        c->pnv[k] = u;
    }
    int big = rc ? 0 : s_largest_island(c);
    if (!rc && big > S_ISL_MAX) {
        mbs_err_add(err, "", "moreau_jean in relative coordinates: an island of %d joint rates and equations (at "
                    "most %d: larger ones would need a factorisation of the whole tree's KKT matrix, not written); "
                    "use the natural formulation", big, S_ISL_MAX);
        rc = MBS_EINVAL;
    }
    if (!rc && big < 0) rc = MBS_ENOMEM;
    if (rc) { s_release(c); return rc; }
    /* M's mean diagonal at the initial configuration (mass_scale) */
    double *val = malloc(sizeof(double) * (size_t)(nnz + 1)), ms = 0;
    if (!val) { s_release(c); return MBS_ENOMEM; }
    s_mass_eval(c, q0, val);
    for (int i = 0; i < n; i++)
        for (int k = c->mptr[i]; k < c->mptr[i + 1]; k++)
            if (c->mcol[k] == i) ms += val[k];
    free(val);
    *f = (mbs_dae_form){.name = "relative", .n = n, .ne = ne, .length_scale = m->length_scale,
                        .mass_scale = n > 0 ? ms / n : 1, .jac_nnz = ne * n, .ctx = c, .jac_cols = c->jcols,
                        .jac_row = s_jac_row, .mass_ptr = c->mptr, .mass_col = c->mcol, .mass_eval = s_mass_eval,
                        .nq = t->nq, .advance = s_advance, .mass_mul = s_mass_mul, .forces = s_forces,
                        .forces_noncontact = s_forces, .constraints = s_constraints, .phi_t = s_phi_t,
                        .gamma = s_gamma, .jv = s_jv, .jtl = s_jtl};
    *r = (mbs_contact_rows){.nbody = nb, .body_nv = c->bnv, .ctx = c, .body_vars = s_body_vars,
                            .max_points = s_max_points, .pair_vars = s_pair_vars, .points = s_points,
                            .missed = s_missed, .release = s_release, .body_speeds = s_body_speeds};
    c->dn = dn;
    if (ed) {
        /* the event-driven integrator: q' = u on every node (planar) */
        f->advance = NULL;
        f->nq = 0;
        f->baumgarte_rhs = s_baumgarte_rhs;
        f->rank_margin = s_rank_margin;
    }
    return 0;
}

void mbs_rel_contact_data(const mbs_contact_rows *r, mbs_data *dr)
{
    ((s_rel *)r->ctx)->dr = dr;
}
