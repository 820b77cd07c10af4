/*
 * integrator_mj.c - Moreau-Jean time stepping for rigid contacts (issue 3):
 * impulse-velocity complementarity, theta = 1/2 (midpoint) for the positions
 * (Moreau 1988; Jean 1999; Acary & Brogliato, "Numerical Methods for
 * Nonsmooth Dynamical Systems", 2008, ch. 10).
 *
 * The mechanism comes through the formulation boundary only (issue 12,
 * docs/formulations.md "The contact rows"): the equations of motion as a DAE
 * form (formulation/dae_form.h: M, Q, Phi, Phi_q and its pattern, the banded
 * KKT matrix) and the contacts as contact rows (formulation/contact_rows.h:
 * the bodies' velocities, the points of a list of pairs with their gap and
 * rows), both kept in the workspace (mbs_mj_ws_make); the natural
 * coordinates give theirs in contact_natural.c.  Hooks are called when the
 * workspace is made or a few times per step with arrays; the PGS sweeps and
 * the B columns read only the workspace.
 *
 * One step of size h from (q0, v0, t0):
 *   q_m = q0 + h/2 v0,  t_m = t0 + h/2;   Q = Q(q_m, v0, t_m) (M(q): below)
 *   free velocity (bilateral constraints at q_m, Phi_q v + Phi_t = 0):
 *       [M Phi_q^T; Phi_q 0] [v_f; mu] = [M v0 + h Q; -Phi_t]
 *   contact points at q_m (gap g, normal and tangent rows G), impulses
 *   Lambda from the complementarity problem below, v1 = v_f + sum B_i Lambda_i
 *   with B_i = M~^-1 G_i^T (the constrained inverse: KKT solves with the
 *   right-hand side [G_i^T; 0]);
 *   q1 = q_m + h/2 v1, then mass-orthogonal projections of q1 onto Phi = 0
 *   and of v1 onto Phi_q v + Phi_t = 0 (simplified Newton with the KKT
 *   factors of q_m), a = (v1 - v0) / h for the output sampler.
 * A form whose mass depends on q (dae_form.h mass_eval) gives M = M(q_m),
 * once per step, for the KKT matrices and M v0; one whose coordinates move
 * as q' = G(q) v (advance) takes q_m = q0 + h/2 G(q0) v0 and q1 = q_m + h/2
 * G(q_m) v1 from it (and each projection's correction through it).  The
 * natural coordinates have neither (constant M, q' = v).
 *
 * Second order with M(q).  Constant M gives velocity-independent inertial
 * forces, and the smooth step above is Stormer-Verlet (second order).  A
 * form with M(q) has the velocity products C(q, v) v in Q, which at v0
 * leave an O(h^2) error per step (first order).  Such a form takes them at
 * a midpoint velocity instead:
 *   v_h: [M Phi_q^T; Phi_q 0] [v_h; .] = [M v0 + h/2 Q(q_m, v0, t_m); -Phi_t]
 *   Q = Q(q_m, v_h, t_m), then v_f from the system above,
 * the same factors (one more forces call and back-substitution per step).
 * v_h is the half step's free velocity, v(t_m) + O(h^2) on a smooth
 * stretch (it obeys the bilateral equations at q_m, as v(t_m) does, where
 * (v0 + v_f) / 2 misses their part by O(h): measured first order still), so
 * Q errs by O(h^2) and the step by O(h^3): the implicit midpoint rule on v
 * with one predictor (the theta = 1/2 evaluation of Acary & Brogliato's
 * Moreau-Jean scheme, with the velocity at the midpoint predicted rather
 * than linearised).  Not covered: the contact impulses are solved after
 * v_f, so v_h leaves out a persistent contact's (a sliding or resting
 * point's) impulse: where one acts, the velocity products err by O(h) and
 * the step stays first order (the friction stops in mj_form_test).
 *
 * Index set and targets (docs/contacts.md, "Moreau-Jean time stepping"): a
 * point with gamma^- = G_n v0 belongs to the index set I when it touches at
 * q_m (g <= 0) or is predicted to close within the half step
 * (g + h/2 gamma^- <= 0); it then obeys Newton's law
 *   0 <= Lambda_n  _|_  gamma^+ + e min(gamma^-, 0) >= 0.
 * Any other point in the system obeys the end-of-step non-penetration
 *   0 <= Lambda_n  _|_  gamma^+ + 2 g / h >= 0,
 * which is slack (Lambda_n = 0) unless the impulses of the other contacts
 * drive the point towards the contact faster than 2 g / h.  A pair outside
 * the deactivation active set has g above its bodies' foreseen travel in a
 * step, so it usually stays at Lambda = 0 and leaves every other impulse
 * unchanged (projected Gauss-Seidel visits it without changing anything);
 * where an impulse of the step moves a body farther, s_recheck finds the
 * pairs that a PGS iterate would have touched and the step is solved again
 * with them: deactivation on and off take the same iterates (PGS) and give
 * the same motion to the bit (docs/contacts.md).
 *
 * Friction: one tangent in the plane (exact Coulomb |Lambda_t| <= mu
 * Lambda_n), two in space with the box |Lambda_ti| <= mu Lambda_n (a
 * pyramid circumscribing the cone; documented polyhedral approximation).
 *
 * Solvers: Lemke (lcp.c) on the standard LCP with friction directions +-t_i
 * and one slack per tangent (Stewart & Trinkle 1996; Anitescu & Potra
 * 1997) when that LCP has at most solver.lcp_lemke_max unknowns (auto or
 * lemke), else projected Gauss-Seidel in velocity form: w_i = G_i v + b_i,
 * v += B_i dLambda_i, without forming the Delassus matrix W = G M~^-1 G^T,
 * optionally regularised (solver.lcp_regularization: W + eps diag W).
 *
 * Cost: the KKT matrix is block diagonal over the islands of variables
 * linked by bodies and equations (a free body is an island).  An island of
 * one body whose mass matrix is positive definite (a free body) is held in
 * the Schur-complement form of linalg/cinv.h: its constrained inverse
 * P = M^-1 - X^T S^-1 X with M^-1 formed once, and the range factor
 * P = U U^T (r = 6 columns in space); the other small islands get a dense
 * LU factor of their KKT matrix, the large ones go through the model's
 * banded KKT matrix.  The PGS sweeps work on unknowns z: per reduced
 * island the r numbers y of v = v_f + U y, per LU island its velocity; a
 * point has coefficients a (w = a z + ...) and b (z += b dLambda), a = b =
 * G U on a reduced island, G and B = M~^-1 G^T on an LU island, and its
 * 3 x 3 Delassus block W = a b^T.  A box of N free balls costs O(N +
 * number of contacts) per PGS sweep, 12 numbers per ball-ball point.
 * Everything is sized by mbs_mj_ws_new at data creation, but with contact
 * deactivation the points' arrays (grown with the step's system, s_pt_room)
 * and the active set's compact records (mj_pairs.c, handed to the contact
 * rows' points_rec; docs/contacts.md "Cost").
 */
#include "mbs/integrate/integrators.h"
#include "mbs/linalg/lcp.h"
#include "mbs/linalg/cinv.h"
#include "mbs/integrate/integrator_mj_ws.h"
#include "mbs/integrate/mj_pairs.h"
#include "mbs/integrate/mj_error.h"
#include "mbs/analysis/system.h"
#include "mbs/contact/contact.h" /* mbs_cforce, the outputs' record of a point force */
#include "mbs/model/clock.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define S_ISL_DENSE_MAX 240 /* islands above this size use the banded KKT */

/* Regularised PGS (solver.lcp_regularization > 0): the fraction of a
 * persistent contact's penetration removed per step (the error reduction of
 * ODE's soft constraints; docs/contacts.md). */
#define S_REG_BETA 0.2

/* Deactivation: the most times a step is solved again with pairs that its
 * velocities brought into contact (s_recheck); each time adds at least one
 * pair, and one time sufficed in every run measured. */
#define S_RECHECK_MAX 8

/* Pairs handed to the contact rows' points in one call (s_points): their
 * points (720 bytes each) stay in the first-level cache for the targets. */
#define S_CHUNK S_MJ_CHUNK

/* Deactivation: room for this many contact points at first (grown when a
 * step needs more, s_pt_room). */
#define S_PT_ROOM0 256

/* ---- workspace --------------------------------------------------------------------------- */

static int s_find(int *p, int i)
{
    while (p[i] != i) { p[i] = p[p[i]]; i = p[i]; }
    return i;
}

static void s_union(int *p, int a, int b)
{
    a = s_find(p, a);
    b = s_find(p, b);
    if (a != b) p[a < b ? b : a] = a < b ? a : b;
}

/* Island of body b (its first variable), -1 for the ground or a fixed body. */
static int s_body_isl(const mbs_mj_ws *w, int b)
{
    if (b < 0) return -1;
    const int *bv = w->bvar + (size_t)b * w->bnv;
    for (int s = 0; s < w->bnv; s++)
        if (bv[s] >= 0) return w->var_isl[bv[s]];
    return -1;
}

static int s_islands(mbs_mj_ws *w)
{
    int n = w->n, ne = w->ne;
    const int *jc = w->f.jac_cols, *M_ptr = w->f.mass_ptr, *M_col = w->f.mass_col;
    const double *M_val = w->f.mass_val;
    int *p = malloc(sizeof(int) * (size_t)(n + 1)), *id = malloc(sizeof(int) * (size_t)(n + 1));
    if (!p || !id) { free(p); free(id); return -1; }
    for (int i = 0; i < n; i++) p[i] = i;
    for (int b = 0; b < w->nbody; b++) {
        int first = -1;
        for (int s = 0; s < w->bnv; s++) {
            int v = w->bvar[(size_t)b * w->bnv + s];
            if (v < 0) continue;
            if (first < 0) first = v; else s_union(p, first, v);
        }
    }
    for (int r = 0; r < ne; r++)
        for (int a = 1; a < w->eq_nnz[r]; a++) s_union(p, jc[w->eq_off[r]], jc[w->eq_off[r] + a]);
    /* and by the mass matrix's pattern (within a body in the natural
     * coordinates, already linked; along a tree's paths in joint coordinates) */
    for (int i = 0; i < n; i++)
        for (int k = M_ptr[i]; k < M_ptr[i + 1]; k++) s_union(p, i, M_col[k]);
    /* number the islands by their smallest variable */
    w->nisl = 0;
    for (int i = 0; i < n; i++) id[i] = -1;
    for (int i = 0; i < n; i++) {
        int r = s_find(p, i);
        if (id[r] < 0) id[r] = w->nisl++;
        w->var_isl[i] = id[r];
    }
    free(p);
    free(id);
    int ni = w->nisl;
    w->isl_vptr = calloc((size_t)ni + 1, sizeof(int));
    w->isl_eptr = calloc((size_t)ni + 1, sizeof(int));
    w->isl_mat = calloc((size_t)ni + 1, sizeof(mbs_mat));
    w->isl_ci = calloc((size_t)ni + 1, sizeof(mbs_cinv));
    w->isl_schur = calloc((size_t)ni + 1, sizeof(int));
    w->isl_lu = calloc((size_t)ni + 1, sizeof(int));
    if (!w->isl_vptr || !w->isl_eptr || !w->isl_mat || !w->isl_ci || !w->isl_schur || !w->isl_lu) return -1;
    for (int i = 0; i < n; i++) w->var_loc[i] = w->isl_vptr[w->var_isl[i] + 1]++;
    for (int r = 0; r < ne; r++) {
        w->eq_loc[r] = -1;
        if (w->eq_nnz[r] > 0) w->eq_loc[r] = w->isl_eptr[w->var_isl[jc[w->eq_off[r]]] + 1]++;
    }
    for (int k = 0; k < ni; k++) {
        w->isl_vptr[k + 1] += w->isl_vptr[k];
        w->isl_eptr[k + 1] += w->isl_eptr[k];
    }
    for (int i = 0; i < n; i++) w->isl_var[w->isl_vptr[w->var_isl[i]] + w->var_loc[i]] = i;
    for (int r = 0; r < ne; r++)
        if (w->eq_loc[r] >= 0) w->isl_eq[w->isl_eptr[w->var_isl[jc[w->eq_off[r]]]] + w->eq_loc[r]] = r;
    /* dense factors for the small islands */
    w->bufmax = 1;
    for (int k = 0; k < ni; k++) {
        int N = w->isl_vptr[k + 1] - w->isl_vptr[k] + w->isl_eptr[k + 1] - w->isl_eptr[k];
        if (N > w->bufmax) w->bufmax = N;
        if (N > S_ISL_DENSE_MAX) { w->any_large = 1; continue; }
        if (mbs_mat_init(&w->isl_mat[k], MBS_MAT_GEN, N, N - 1, N - 1)) return -1;
    }
    /* the Schur-complement form for the islands of one body (a free body)
     * whose mass matrix is positive definite; the others keep the LU factor
     * of their KKT matrix, whose pivoting stays accurate on the ill-
     * conditioned mass matrices of mechanisms (measured: a slider-crank's
     * island in the Schur form moved its slider's tilt by 1e-10 rad of
     * round-off, against 4e-15 with the LU factor) */
    for (int k = 0; k < ni; k++) w->isl_schur[k] = 0;
    for (int b = 0; b < w->nbody; b++) {
        int I = s_body_isl(w, b);
        if (I >= 0) w->isl_schur[I]++;
    }
    w->abuf = calloc((size_t)w->bufmax * (size_t)w->bufmax + 1, sizeof(double));
    w->ibuf2 = calloc((size_t)w->bufmax + 1, sizeof(double));
    w->onbuf = calloc((size_t)w->bufmax + 1, sizeof(int));
    if (!w->abuf || !w->ibuf2 || !w->onbuf) return -1;
    for (int k = 0; k < ni; k++) {
        /* (M depends on q, mass_eval: M^-1 is not formed once; the LU
         * factor of the KKT matrix at each step's M(q_m) serves) */
        if (w->isl_mat[k].n == 0 || w->isl_schur[k] != 1 || !M_val) { w->isl_schur[k] = 0; continue; }
        int nv = w->isl_vptr[k + 1] - w->isl_vptr[k], ne_k = w->isl_eptr[k + 1] - w->isl_eptr[k];
        if (mbs_cinv_init(&w->isl_ci[k], nv, ne_k)) return -1;
        double *Md = w->abuf;
        memset(Md, 0, sizeof(double) * (size_t)nv * (size_t)nv);
        for (int a = w->isl_vptr[k]; a < w->isl_vptr[k + 1]; a++) {
            int i = w->isl_var[a];
            for (int q = M_ptr[i]; q < M_ptr[i + 1]; q++)
                Md[w->var_loc[i] * nv + w->var_loc[M_col[q]]] += M_val[q];
        }
        w->isl_schur[k] = w->isl_schur[k] == 1 && mbs_cinv_set_minv(&w->isl_ci[k], Md) == 0;
    }
    return 0;
}

/* The points' arrays with room for cap points and bcap coefficients: each
 * grown into a new calloc'd array (the new part zero, as room that was
 * never used, and left untouched: its pages cost no memory until a step
 * uses them) with the old contents copied.  0 or -1 (out of memory: the
 * arrays not yet grown keep their old room, w->cap and w->bcap the old
 * values). */
static int s_pt_grow(mbs_mj_ws *w, int cap, long bcap)
{
    /* each array and its entries per point */
#define S_PT_ARRAYS(X) \
    X(pt, 1) X(boff, 1) X(pvp, 1) X(pimp, 1) X(pin, 1) X(qz, 3) X(pzoff, 2) X(pzlen, 2) X(pmu, 1) X(pbn, 6) \
    X(pam, 2) X(psnap, 2) X(wlast, 1) X(pisl, 2) X(wdi, 3) X(pstr, 1) X(wblk, 9) X(lam, 3) X(bt, 3) X(wd, 3) \
    X(gam0, 1) X(cg_p, 3) X(cg_l0, 3) X(act, 3)
#define S_GROW(p, old, new) \
    do { \
        void *q_ = calloc((size_t)((new) > 0 ? (new) : 1), sizeof *(p)); \
        if (!q_) return -1; \
        if ((p) && (old) > 0) memcpy(q_, (p), sizeof *(p) * (size_t)(old)); \
        free((void *)(p)); \
        (p) = q_; \
    } while (0)
#define S_GROW_PT(f, per) S_GROW(w->f, (long)(per) * w->cap, (long)(per) * cap);
    if (cap > w->cap) {
        S_PT_ARRAYS(S_GROW_PT)
        w->cap = cap;
    }
    if (bcap > w->bcap) {
        S_GROW(w->bstore, w->bcap + 1, bcap + 1);
        S_GROW(w->astore, w->bcap + 1, bcap + 1);
        S_GROW(w->bzstore, w->bcap + 1, bcap + 1);
        w->bcap = bcap;
    }
#undef S_GROW_PT
#undef S_GROW
#undef S_PT_ARRAYS
    return 0;
}

/* Room for np points and nb coefficients in the points' arrays: grown to
 * twice the room (at most every declared pair's) when short; after the
 * first steps of a run the largest system so far has room.  0, or -1 out
 * of memory (w->nomem set: the run stops with MBS_ENOMEM). */
static int s_pt_room(mbs_mj_ws *w, int np, long nb)
{
    if (np <= w->cap && nb <= w->bcap) return 0;
    int cap = w->cap;
    long bcap = w->bcap;
    if (np > cap) cap = 2L * cap > np ? (2L * cap < w->cap_all ? 2 * cap : w->cap_all) : np;
    if (nb > bcap) bcap = 2 * bcap > nb ? (2 * bcap < w->bcap_all ? 2 * bcap : w->bcap_all) : nb;
    if (cap < np) cap = np;
    if (bcap < nb) bcap = nb;
    if (s_pt_grow(w, cap, bcap) == 0) return 0;
    w->nomem = 1;
    return -1;
}

int mbs_mj_ws_make(const mbs_dae_form *f, const mbs_contact_rows *r, const mbs_model *m, mbs_data *d)
{
    int n = f->n, ne = f->ne, nc = m->spec->ncontact, nn = n > 0 ? n : 1, ns = m->spec->nshape;
    mbs_mj_ws *w = calloc(1, sizeof *w);
    if (!w) {
        if (r->release) r->release(r->ctx);
        return -1;
    }
    d->mj = w;
    w->f = *f;
    w->rows = *r;
    /* the mass matrix's pattern, with its values (constant M) or their
     * hook (M(q)); coordinates other than the velocities need advance */
    if (!f->mass_ptr || (!f->mass_val && !f->mass_eval)) return -1;
    w->nq = f->nq > 0 ? f->nq : n;
    if (w->nq != n && !f->advance) return -1;
    w->n = n;
    w->ne = ne;
    w->lscale = f->length_scale;
    /* |gravity|, for the reach test */
    double gn = 0;
    for (int i = 0; i < m->dim; i++) gn += m->spec->gravity[i] * m->spec->gravity[i];
    w->gnorm = sqrt(gn);
    w->nbody = r->nbody;
    w->bnv = r->body_nv;
    int ok = 1;
#define ALLOC(p, cnt) do { (p) = calloc((size_t)(cnt), sizeof *(p)); ok &= (p) != NULL; } while (0)
    ALLOC(w->bvar, (size_t)w->nbody * w->bnv + 1); ALLOC(w->shb, ns + 1); ALLOC(w->bspeed, w->nbody + 1);
    ALLOC(w->eq_off, ne + 1); ALLOC(w->eq_nnz, ne + 1);
    ALLOC(w->pvars, nc + 1); ALLOC(w->pnv, nc + 1); ALLOC(w->plist, S_CHUNK); ALLOC(w->pcount, nc + 1);
    ALLOC(w->preach, S_CHUNK); ALLOC(w->pgmin, S_CHUNK);
    ALLOC(w->var_isl, nn); ALLOC(w->var_loc, nn); ALLOC(w->eq_loc, ne + 1);
    ALLOC(w->isl_var, nn); ALLOC(w->isl_eq, ne + 1);
    ALLOC(w->kbuf, n + ne + 1);
    ALLOC(w->xm, w->nq > nn ? w->nq : nn); ALLOC(w->vf, nn); ALLOC(w->tmp, nn); ALLOC(w->mv, nn);
    if (!f->mass_val) ALLOC(w->mval, f->mass_ptr[n] + 1);
    if (!ok) return -1;
    /* the bodies' velocities, each shape's body, the rows' patterns */
    for (int b = 0; b < w->nbody; b++) r->body_vars(r->ctx, b, w->bvar + (size_t)b * w->bnv);
    for (int i = 0; i < ns; i++) {
        int b = m->spec->shapes[i].body;
        w->shb[i] = b >= 0 && b < w->nbody ? b : -1;
    }
    for (int i = 0; i < ne; i++) f->jac_row(f->ctx, i, &w->eq_off[i], &w->eq_nnz[i]);
    for (int k = 0; k < nc; k++) w->pvars[k] = r->pair_vars(r->ctx, k);
    /* the variables' counts, for the active set's records (mj_pairs.h),
     * kept when the contact rows can take them */
    int recs = r->pair_nv && r->points_rec && m->spec->solver.contact_deactivation;
    for (int k = 0; recs && k < nc; k++) {
        w->pnv[k] = r->pair_nv(r->ctx, k);
        if (w->pnv[k] < 0 || w->pnv[k] > 2 * MBS_NB_MAX) recs = 0;
    }
    if (s_islands(w)) return -1;
    ALLOC(w->ibuf, w->bufmax);
    ALLOC(w->pi, nc + 1);
    ALLOC(w->xtra, nc + 1); ALLOC(w->skip, nc + 1); ALLOC(w->skipg, nc + 1); ALLOC(w->cand, 2 * nc + 1);
    ALLOC(w->ulog, nc + 1); ALLOC(w->skipp, nc + 1);
    if (!ok) return -1;
    /* pairs: islands of their bodies, B column length, point capacity */
    long bcap = 0;
    for (int k = 0; k < nc; k++) {
        const mbs_contact_spec *C = &m->spec->contacts[k];
        mbs_mj_pinfo *pk = &w->pi[k];
        pk->lstep = pk->istep = -10;
        pk->slot = w->cap_all;
        pk->friction = C->friction;
        pk->restitution = C->restitution;
        pk->shape[0] = C->shape[0];
        pk->shape[1] = C->shape[1];
        pk->rigid = C->law == MBS_LAW_RIGID;
        if (!pk->rigid) continue;
        int ia = s_body_isl(w, m->spec->shapes[m->spec->contacts[k].shape[0]].body);
        int ib = s_body_isl(w, m->spec->shapes[m->spec->contacts[k].shape[1]].body);
        if (ia < 0 || ia == ib) { ia = ib; ib = -1; }
        w->pi[k].isl[0] = ia;
        w->pi[k].isl[1] = ib;
        int len = 0;
        for (int s = 0; s < 2; s++) {
            int I = w->pi[k].isl[s];
            if (I >= 0) len += w->isl_vptr[I + 1] - w->isl_vptr[I];
        }
        w->pi[k].blen = len;
        int np = r->max_points(r->ctx, k);
        w->pi[k].npmax = np;
        w->cap_all += np;
        bcap += 3L * np * len;
    }
    if (recs && mbs_mj_recs_init(w, nc)) return -1;
    int cap = w->cap_all > 0 ? w->cap_all : 1;
    w->bcap_all = bcap;
    ALLOC(w->prev, 4 * cap);
    ALLOC(w->ztrav, w->nisl + 1); ALLOC(w->z, nn); ALLOC(w->z0, nn);
    /* the PGS update log (deactivation's check only): 64 updates per
     * point slot (1 << 20 at most) */
    w->caplog = !m->spec->solver.contact_deactivation ? 0 : 64L * cap < (1L << 20) ? 64L * cap : (1L << 20);
    ALLOC(w->logi, w->caplog + 1); ALLOC(w->logd, 3 * w->caplog + 1);
    ALLOC(w->isl_zptr, w->nisl + 1); ALLOC(w->isl_red, w->nisl + 1);
    /* the points' arrays: room for every declared rigid pair's points
     * without deactivation (they are all in the system), for a few hundred
     * with it, grown when a step's system needs more (s_pt_room; 2.9 kB per
     * point slot: the 400-ball box declares 81800) */
    if (!ok) return -1;
    if (m->spec->solver.contact_deactivation) {
        int c0 = cap < S_PT_ROOM0 ? cap : S_PT_ROOM0;
        long b0 = 3L * 2 * MBS_NB_MAX * c0;
        if (s_pt_grow(w, c0, b0 < bcap ? b0 : bcap)) return -1;
    } else if (s_pt_grow(w, cap, bcap)) {
        return -1;
    }
    /* Lemke: at most 7 unknowns per point (normal, 2 x 2 directions, 2 slacks) */
    int lmax = m->spec->solver.lcp_lemke_max > 0 ? m->spec->solver.lcp_lemke_max : 60;
    w->nl = 7 * cap < lmax ? 7 * cap : lmax;
    ALLOC(w->lM, (size_t)w->nl * w->nl); ALLOC(w->lWc, (size_t)w->nl * w->nl);
    ALLOC(w->lq, w->nl); ALLOC(w->lz, w->nl); ALLOC(w->lw, w->nl); ALLOC(w->lcomp, w->nl);
#undef ALLOC
    w->lwork = malloc(mbs_lcp_lemke_worksize(w->nl));
    if (!ok || !w->lwork) return -1;
    return 0;
}

void mbs_mj_ws_free(mbs_data *d)
{
    mbs_mj_ws *w = d->mj;
    if (!w) return;
    for (int k = 0; w->isl_mat && k < w->nisl; k++) mbs_mat_free(&w->isl_mat[k]);
    for (int k = 0; w->isl_ci && k < w->nisl; k++) mbs_cinv_free(&w->isl_ci[k]);
    free(w->isl_ci); free(w->isl_schur); free(w->isl_lu); free(w->abuf); free(w->ibuf2); free(w->onbuf);
    free(w->var_isl); free(w->var_loc); free(w->eq_loc); free(w->isl_vptr); free(w->isl_var);
    free(w->isl_eptr); free(w->isl_eq); free(w->isl_mat); free(w->kbuf); free(w->ibuf);
    free(w->pi); free(w->xtra); free(w->skip); free(w->skipg); free(w->cand); free(w->ulog); free(w->skipp); free(w->pnv); free(w->rec); free(w->prev); free(w->pt); free(w->boff); free(w->bstore);
    free(w->astore); free(w->bzstore); free(w->qz); free(w->pzoff); free(w->pmu); free(w->pvp); free(w->pimp); free(w->pin); free(w->ztrav); free(w->pbn); free(w->pam); free(w->psnap); free(w->wlast); free(w->pisl); free(w->wdi); free(w->pstr); free(w->pzlen);
    free(w->z); free(w->z0); free(w->logi); free(w->logd); free(w->isl_zptr); free(w->isl_red); free(w->wblk);
    free(w->lam); free(w->bt); free(w->wd); free(w->gam0); free(w->cg_p); free(w->cg_l0); free(w->act);
    free(w->lM); free(w->lWc); free(w->lq); free(w->lz); free(w->lw); free(w->lcomp); free(w->lwork);
    free(w->xm); free(w->vf); free(w->tmp); free(w->mv); free(w->mval);
    free(w->bvar); free(w->shb); free(w->bspeed); free(w->eq_off); free(w->eq_nnz);
    free(w->pvars); free(w->plist); free(w->pcount); free(w->preach); free(w->pgmin);
    mbs_mj_error_free(w);
    if (w->rows.release) w->rows.release(w->rows.ctx);
    free(w);
    d->mj = NULL;
}

/* ---- island KKT systems ---------------------------------------------------------------- */

/* Island I's constrained inverse in the Schur-complement form (cinv.h)
 * with the Jacobian in d->jac.  0, or 1 when the island's equations are
 * dependent there (the LU factor of its KKT matrix then decides). */
static int s_factor_schur(mbs_data *d, mbs_mj_ws *w, int I)
{
    int nv = w->isl_vptr[I + 1] - w->isl_vptr[I], ne = w->isl_eptr[I + 1] - w->isl_eptr[I];
    double *A = w->abuf;
    memset(A, 0, sizeof(double) * (size_t)nv * (size_t)ne);
    for (int a = 0; a < ne; a++) {
        int r = w->isl_eq[w->isl_eptr[I] + a];
        w->onbuf[a] = d->eq_on[r] != 0;
        const int *cols = w->f.jac_cols + w->eq_off[r], nnz = w->eq_nnz[r];
        const double *row = d->jac + w->eq_off[r];
        for (int c = 0; c < nnz; c++) A[(size_t)a * nv + w->var_loc[cols[c]]] += row[c];
    }
    return mbs_cinv_factor(&w->isl_ci[I], A, w->onbuf);
}

/* Factor every island at the Jacobian in d->jac: the Schur-complement form
 * where the island's mass matrix allows it, else the dense KKT matrix
 * (and the banded global one when an island is large), with the constant
 * M, or M(x) from the form's mass_eval into w->mval (once per step).  0 or
 * the LAPACK info of the first singular island. */
static int s_factor(mbs_data *d, mbs_mj_ws *w, const double *x, double t)
{
    const int *M_ptr = w->f.mass_ptr, *M_col = w->f.mass_col;
    const double *M_val = w->f.mass_val;
    if (w->mval) {
        w->f.mass_eval(w->f.ctx, x, w->mval);
        M_val = w->mval;
    }
    if (w->any_large) {
        int info = w->f.kkt_factor(w->f.ctx, x, d->v, t);
        if (info) return info;
    }
    for (int I = 0; I < w->nisl; I++) {
        mbs_mat *A = &w->isl_mat[I];
        if (A->n == 0) continue;
        w->isl_lu[I] = 1;
        if (w->isl_schur[I] && s_factor_schur(d, w, I) == 0) {
            w->isl_lu[I] = 0;
            d->met.factorizations++;
            continue;
        }
        int nv = w->isl_vptr[I + 1] - w->isl_vptr[I];
        mbs_mat_zero(A);
        for (int a = w->isl_vptr[I]; a < w->isl_vptr[I + 1]; a++) {
            int i = w->isl_var[a];
            for (int k = M_ptr[i]; k < M_ptr[i + 1]; k++)
                mbs_mat_add(A, w->var_loc[i], w->var_loc[M_col[k]], M_val[k]);
        }
        for (int a = w->isl_eptr[I]; a < w->isl_eptr[I + 1]; a++) {
            int r = w->isl_eq[a], pr = nv + w->eq_loc[r];
            if (!d->eq_on[r]) { mbs_mat_add(A, pr, pr, 1.0); continue; }
            const int *cols = w->f.jac_cols + w->eq_off[r], nnz = w->eq_nnz[r];
            const double *row = d->jac + w->eq_off[r];
            for (int c = 0; c < nnz; c++) {
                int pc = w->var_loc[cols[c]];
                mbs_mat_add(A, pr, pc, row[c]);
                mbs_mat_add(A, pc, pr, row[c]);
            }
        }
        int info = mbs_mat_factor(A);
        d->met.factorizations++;
        if (info) return info;
    }
    /* the slices of the PGS unknowns */
    w->isl_zptr[0] = 0;
    for (int I = 0; I < w->nisl; I++) {
        int nv = w->isl_vptr[I + 1] - w->isl_vptr[I];
        w->isl_red[I] = w->isl_mat[I].n > 0 && !w->isl_lu[I];
        w->isl_zptr[I + 1] = w->isl_zptr[I] + (w->isl_red[I] ? w->isl_ci[I].r : nv);
    }
    return 0;
}

/* Parts of a right-hand side known to be zero (s_isl_solve). */
enum { S_ZERO_F = 1, S_ZERO_E = 2 };

/* Solve island I's KKT system in place: buf = [variables; equations] in the
 * island's local order; the variables' part is the answer (the Schur form
 * leaves the equations' part as it was).  zero: S_ZERO_F / S_ZERO_E when
 * the variables' / equations' part of the right-hand side is zero (the
 * Schur form then skips it). */
static void s_isl_solve(mbs_mj_ws *w, int I, double *buf, int zero)
{
    if (w->isl_mat[I].n > 0 && !w->isl_lu[I]) {
        int nv = w->isl_vptr[I + 1] - w->isl_vptr[I];
        mbs_cinv_solve(&w->isl_ci[I], zero & S_ZERO_F ? NULL : buf, zero & S_ZERO_E ? NULL : buf + nv, w->ibuf2);
        memcpy(buf, w->ibuf2, sizeof(double) * (size_t)nv);
        return;
    }
    if (w->isl_mat[I].n > 0) { mbs_mat_solve(&w->isl_mat[I], buf); return; }
    /* a large island: through the banded KKT matrix of the whole model */
    int n = w->n, nv = w->isl_vptr[I + 1] - w->isl_vptr[I];
    memset(w->kbuf, 0, sizeof(double) * (size_t)(n + w->ne));
    for (int a = 0; a < nv; a++) w->kbuf[w->isl_var[w->isl_vptr[I] + a]] = buf[a];
    for (int a = w->isl_eptr[I]; a < w->isl_eptr[I + 1]; a++) w->kbuf[n + w->isl_eq[a]] = buf[nv + a - w->isl_eptr[I]];
    w->f.kkt_solve(w->f.ctx, w->kbuf);
    for (int a = 0; a < nv; a++) buf[a] = w->kbuf[w->isl_var[w->isl_vptr[I] + a]];
    for (int a = w->isl_eptr[I]; a < w->isl_eptr[I + 1]; a++) buf[nv + a - w->isl_eptr[I]] = w->kbuf[n + w->isl_eq[a]];
}

/* y = M~^-1-type solve of every island: y_v from [fv; fe] with fv (n) in
 * variable order and fe (ne) in equation order; y (n) receives the
 * velocity part. */
static void s_solve_all(const mbs_data *d, mbs_mj_ws *w, const double *fv, const double *fe, double *y)
{
    for (int I = 0; I < w->nisl; I++) {
        int nv = w->isl_vptr[I + 1] - w->isl_vptr[I];
        double *buf = w->ibuf;
        for (int a = 0; a < nv; a++) buf[a] = fv ? fv[w->isl_var[w->isl_vptr[I] + a]] : 0;
        for (int a = w->isl_eptr[I]; a < w->isl_eptr[I + 1]; a++) {
            int r = w->isl_eq[a];
            buf[nv + a - w->isl_eptr[I]] = d->eq_on[r] ? fe[r] : 0;
        }
        s_isl_solve(w, I, buf, fv ? 0 : S_ZERO_F);
        for (int a = 0; a < nv; a++) y[w->isl_var[w->isl_vptr[I] + a]] = buf[a];
    }
}

/* ---- contact points, B columns ------------------------------------------------------------ */

/* Point i's coefficients for its ncomp components: per side its G row in
 * island order (in ibuf), its B columns on LU islands (bstore, by KKT
 * solves; those on reduced islands, U a, only when Lemke needs them:
 * s_bfill), and those on the PGS unknowns z: a reduced side has a = b =
 * G U (W = G U U^T G^T) and adds G v_f to qz, an LU side a = G, b = B.
 * Also the point's compact sweep data (friction, stride). */
static void s_bcols(mbs_mj_ws *w, int i, int ncomp)
{
    const mbs_rpoint *P = &w->pt[i];
    int len = w->pstr[i];
    const int *vars = w->pvp[i];
    for (int c = 0; c < 3; c++) w->qz[3 * i + c] = 0;
    for (int c = 0; c < ncomp; c++) {
        double *B = w->bstore + w->boff[i] + (long)c * len, *Gl = w->ibuf;
        double *A = w->astore + w->boff[i] + (long)c * len, *Bz = w->bzstore + w->boff[i] + (long)c * len;
        int off = 0, zo = 0;
        for (int s = 0; s < 2; s++) {
            int I = w->pisl[2 * i + s];
            w->pzoff[2 * i + s] = 0;
            w->pzlen[2 * i + s] = 0;
            w->pbn[6 * i + 2 * c + s] = 0;
            if (c == 0) w->pam[2 * i + s] = 0;
            if (I < 0) continue;
            int nv = w->isl_vptr[I + 1] - w->isl_vptr[I], zl = w->isl_zptr[I + 1] - w->isl_zptr[I];
            int N = nv + w->isl_eptr[I + 1] - w->isl_eptr[I];
            w->pzoff[2 * i + s] = w->isl_zptr[I];
            w->pzlen[2 * i + s] = zl;
            memset(w->ibuf, 0, sizeof(double) * (size_t)N);
            for (int j = 0; j < P->nv; j++)
                if (w->var_isl[vars[j]] == I) w->ibuf[w->var_loc[vars[j]]] += P->G[c][j];
            if (w->isl_red[I]) {
                const double *U = w->isl_ci[I].U;
                const int *iv = w->isl_var + w->isl_vptr[I];
                double q = 0;
                if (zl == 6) {
                    /* a free body in space: the 6 sums in registers (the
                     * stores into A could alias U, so the general loop
                     * reloads them), the same sums in the same order */
                    double s6[6] = {0, 0, 0, 0, 0, 0};
                    for (int l = 0; l < nv; l++) {
                        double g = Gl[l];
                        if (g == 0) continue;
                        q += g * w->vf[iv[l]];
                        const double *u6 = U + l * 6;
                        for (int j = 0; j < 6; j++) s6[j] += g * u6[j];
                    }
                    for (int j = 0; j < 6; j++) A[zo + j] = s6[j];
                } else {
                    for (int j = 0; j < zl; j++) A[zo + j] = 0;
                    for (int l = 0; l < nv; l++) {
                        double g = Gl[l];
                        if (g == 0) continue;
                        q += g * w->vf[iv[l]];
                        for (int j = 0; j < zl; j++) A[zo + j] += g * U[l * zl + j];
                    }
                }
                memcpy(Bz + zo, A + zo, sizeof(double) * (size_t)zl);
                w->qz[3 * i + c] += q;
            } else {
                memcpy(A + zo, w->ibuf, sizeof(double) * (size_t)nv);
                s_isl_solve(w, I, w->ibuf, S_ZERO_E);
                memcpy(B + off, w->ibuf, sizeof(double) * (size_t)nv);
                memcpy(Bz + zo, B + off, sizeof(double) * (size_t)nv);
            }
            /* the norms that bound how far the point's velocities move */
            double bn = 0, am = 0;
            for (int j = 0; j < zl; j++) {
                bn += fabs(Bz[zo + j]);
                double t = fabs(A[zo + j]); /* (not fmax: a library call) */
                if (t > am) am = t;
            }
            w->pbn[6 * i + 2 * c + s] = bn;
            if (c == 0) w->pam[2 * i + s] = am;
            off += nv;
            zo += zl;
        }
    }
}

/* The B columns U a of the np points' sides on reduced islands (Lemke's
 * Delassus matrix and s_apply use B; the PGS sweeps do not). */
static void s_bfill(const mbs_model *m, mbs_mj_ws *w, int np)
{
    for (int i = 0; i < np; i++) {
        int len = w->pstr[i];
        int nci = w->pmu[i] > 0 ? 1 + (m->dim == 3 ? 2 : 1) : 1;
        for (int c = 0; c < nci; c++) {
            double *B = w->bstore + w->boff[i] + (long)c * len;
            const double *A = w->astore + w->boff[i] + (long)c * len;
            int off = 0, zo = 0;
            for (int s = 0; s < 2; s++) {
                int I = w->pisl[2 * i + s];
                if (I < 0) continue;
                int nv = w->isl_vptr[I + 1] - w->isl_vptr[I], zl = w->isl_zptr[I + 1] - w->isl_zptr[I];
                if (w->isl_red[I]) {
                    const double *U = w->isl_ci[I].U;
                    for (int l = 0; l < nv; l++) {
                        double t = 0;
                        for (int j = 0; j < zl; j++) t += U[l * zl + j] * A[zo + j];
                        B[off + l] = t;
                    }
                }
                off += nv;
                zo += zl;
            }
        }
    }
}

/* G_c . v over the pair's variables (point P of w->pt: its list in w->pvp). */
static double s_gdot(const mbs_mj_ws *w, const mbs_rpoint *P, int c, const double *v)
{
    const int *vars = w->pvp[P - w->pt];
    double s = 0;
    for (int j = 0; j < P->nv; j++) s += P->G[c][j] * v[vars[j]];
    return s;
}

/* v += dl * B (point i, component c). */
static void s_vadd(const mbs_mj_ws *w, int i, int c, double dl, double *v, int lu_only)
{
    const double *B = w->bstore + w->boff[i] + (long)c * w->pstr[i];
    for (int s = 0; s < 2; s++) {
        int I = w->pisl[2 * i + s];
        if (I < 0) continue;
        int nv = w->isl_vptr[I + 1] - w->isl_vptr[I];
        const int *iv = w->isl_var + w->isl_vptr[I];
        if (!(lu_only && w->isl_red[I]))
            for (int a = 0; a < nv; a++) v[iv[a]] += dl * B[a];
        B += nv;
    }
}


/* Lemke on the standard LCP with friction directions: per point the
 * unknowns (Lambda_n, beta_1+, beta_1-, [beta_2+, beta_2-], s_1, [s_2]) with
 * Lambda_tj = beta_j+ - beta_j-,
 *   w_n   = W_nn Lambda_n + sum W_nt Lambda_t + q_n           _|_ Lambda_n
 *   w_j+- = +-(W_tn Lambda_n + W_tt Lambda_t + q_tj) + s_j    _|_ beta_j+-
 *   w_sj  = mu Lambda_n - beta_j+ - beta_j-                    _|_ s_j
 * (Stewart & Trinkle 1996; one slack per tangent gives the box
 * |Lambda_tj| <= mu Lambda_n; in the plane it is exact Coulomb).  Fills
 * w->lam for the np points; returns the lcp.c code, or -3 when the problem
 * is larger than the Lemke capacity (nothing changed). */
static int s_lemke(const mbs_model *m, mbs_mj_ws *w, int np, int ncomp)
{
    int ntan = ncomp - 1, C = 0, L = 0;
    for (int i = 0; i < np; i++) {
        int fr = w->pmu[i] > 0;
        C += fr ? ncomp : 1;
        L += fr ? 1 + 3 * ntan : 1;
    }
    if (L > w->nl || L == 0) return -3;
    s_bfill(m, w, np);
    /* the components in order (comp = 3 i + c) and their Delassus matrix
     * Wc[r + C b] = G_r B_b, one scattered B column at a time */
    int *comp = w->lcomp;
    double *Wc = w->lWc, *qc = w->lw, *M = w->lM, *q = w->lq;
    int a = 0;
    for (int i = 0; i < np; i++) {
        int nc = w->pmu[i] > 0 ? ncomp : 1;
        for (int c = 0; c < nc; c++) comp[a++] = 3 * i + c;
    }
    for (int b = 0; b < C; b++) {
        memset(w->tmp, 0, sizeof(double) * (size_t)w->n);
        s_vadd(w, comp[b] / 3, comp[b] % 3, 1.0, w->tmp, 0);
        for (int r = 0; r < C; r++) Wc[r + C * b] = s_gdot(w, &w->pt[comp[r] / 3], comp[r] % 3, w->tmp);
    }
    for (int r = 0; r < C; r++) qc[r] = s_gdot(w, &w->pt[comp[r] / 3], comp[r] % 3, w->vf) + w->bt[comp[r]];
    memset(M, 0, sizeof(double) * (size_t)L * (size_t)L);
    /* rows: point i's unknowns start at ur (components at cr); x = 0 is the
     * normal, x = 1 + 2 j (+t_j) and 2 + 2 j (-t_j) the directions */
    int ur = 0, cr = 0;
    for (int i = 0; i < np; i++) {
        double mu = w->pmu[i];
        int nti = mu > 0 ? ntan : 0;
        for (int x = 0; x < 1 + 2 * nti; x++) {
            int row = ur + x, crow = cr + (x == 0 ? 0 : 1 + (x - 1) / 2);
            double srow = x == 0 || (x - 1) % 2 == 0 ? 1 : -1;
            q[row] = srow * qc[crow];
            int uc = 0, cc = 0;
            for (int j = 0; j < np; j++) {
                int ntj = w->pmu[j] > 0 ? ntan : 0;
                for (int y = 0; y < 1 + 2 * ntj; y++) {
                    int ccol = cc + (y == 0 ? 0 : 1 + (y - 1) / 2);
                    double scol = y == 0 || (y - 1) % 2 == 0 ? 1 : -1;
                    M[row + L * (uc + y)] = srow * scol * Wc[crow + C * ccol];
                }
                uc += 1 + 3 * ntj;
                cc += 1 + ntj;
            }
        }
        /* slack couplings */
        for (int j = 0; j < nti; j++) {
            int up = ur + 1 + 2 * j, um = up + 1, us = ur + 1 + 2 * nti + j;
            M[up + L * us] = 1;
            M[um + L * us] = 1;
            M[us + L * ur] = mu;
            M[us + L * up] = -1;
            M[us + L * um] = -1;
            q[us] = 0;
        }
        ur += 1 + 3 * nti;
        cr += 1 + nti;
    }
    mbs_lcp_opts opt;
    memset(&opt, 0, sizeof opt);
    int rc = mbs_lcp_lemke(L, M, q, w->lz, NULL, &opt, w->lwork, NULL);
    if (rc != MBS_LCP_SOLVED) return rc;
    /* impulses from the Lemke unknowns */
    int u = 0;
    for (int i = 0; i < np; i++) {
        int nti = w->pmu[i] > 0 ? ntan : 0;
        w->lam[3 * i] = w->lz[u];
        for (int j = 0; j < nti; j++) w->lam[3 * i + 1 + j] = w->lz[u + 1 + 2 * j] - w->lz[u + 2 + 2 * j];
        u += 1 + 3 * nti;
    }
    return 0;
}

/* v += B Lambda for the current impulses of the np points; lu_only: on
 * the LU islands only (the PGS warm start: mbs_mj_pgs forms a reduced island's
 * velocity from y itself). */
static void s_apply(mbs_mj_ws *w, int np, int ncomp, int lu_only, double *v)
{
    for (int i = 0; i < np; i++)
        for (int c = 0; c < ncomp; c++)
            if (w->lam[3 * i + c] != 0) s_vadd(w, i, c, w->lam[3 * i + c], v, lu_only);
}

/* Largest relative violation of the contact conditions at the impulses
 * w->lam and the velocity v (see docs/contacts.md): normal velocity
 * (w_n >= 0), impulse sign, complementarity, friction bound, and Coulomb's
 * stick/slip law; impulses scaled by their largest value (or the impulse
 * that changes the most mobile contact's velocity by vscale, when larger),
 * velocities by vscale. */
static double s_compl_error(const mbs_model *m, mbs_mj_ws *w, int np, int ncomp, double vscale, const double *v)
{
    /* impulse scale: the largest normal impulse, at least the impulse that
     * changes the velocity of the most mobile point by vscale */
    double lsc = 0, err = 0, wmax = 0;
    for (int i = 0; i < np; i++) {
        lsc = fmax(lsc, fabs(w->lam[3 * i]));
        wmax = fmax(wmax, w->wd[3 * i]);
    }
    if (wmax > 0) lsc = fmax(lsc, vscale / wmax);
    if (lsc == 0) lsc = 1e-300;
    for (int i = 0; i < np; i++) {
        const mbs_rpoint *P = &w->pt[i];
        /* (the point's friction, compact: the contact spec of one of 81800
         * declared pairs is a cache miss per point) */
        double mu = w->pmu[i], ln = w->lam[3 * i];
        double wn = s_gdot(w, P, 0, v) + w->bt[3 * i];
        err = fmax(err, fmax(0, -wn) / vscale);
        err = fmax(err, fmax(0, -ln) / lsc);
        err = fmax(err, fabs(ln * wn) / (lsc * vscale));
        for (int c = 1; mu > 0 && c < ncomp; c++) {
            double lt = w->lam[3 * i + c], wt = s_gdot(w, P, c, v), hi = mu * ln;
            err = fmax(err, fmax(0, fabs(lt) - hi) / lsc);
            /* inside the bound: no slip; on it: slip opposes the impulse */
            if (fabs(lt) < hi * (1 - 1e-6)) err = fmax(err, fabs(wt) / vscale);
            else err = fmax(err, fmax(0, lt * wt) / (lsc * vscale));
        }
    }
    return err;
}

/* Whether every point of a pair (got points at pt, the step's midpoint
 * configuration) is too far apart to close within the step h: the gap
 * exceeds what the two bodies can travel towards each other, twice their
 * present speed (an impact may reverse a velocity) over the coordinate
 * maps' size plus gravity's h^2 (units as in the broad phase, contact.c).
 * Such a pair contributes nothing to the step's impulses (0 by
 * complementarity) and, with contact deactivation, is left out of the LCP
 * (the last stage of deactivation: the broad phase's boxes reach over the
 * step for every body, this over the pair's own gap).  In the 100-ball box
 * 1296 -> 972 unknowns per step, CPU 2.27 -> 1.99 s, outputs unchanged;
 * without deactivation every declared pair stays in the system. */
static double s_pair_reach(const mbs_mj_ws *w, const int shape[2], double h)
{
    double speed = 0;
    if (w->rows.body_speeds) {
        /* the formulation's bound on each body's point speed (rows
         * body_speeds, filled for these velocities): twice their sum */
        for (int q = 0; q < 2; q++) {
            int b = w->shb[shape[q]];
            if (b >= 0) speed += w->bspeed[b];
        }
        return h * (2 * speed + w->gnorm * h);
    }
    /* the largest |v| over both bodies' velocities: the larger of the two
     * bodies' largest (w->bspeed, s_body_speeds), the same number */
    for (int q = 0; q < 2; q++) {
        int b = w->shb[shape[q]];
        /* (a comparison, not fmax: a library call here, and this runs for
         * every pair of the set and again in s_recheck) */
        if (b >= 0 && w->bspeed[b] > speed) speed = w->bspeed[b];
    }
    return h * (4 * speed * (1 + w->lscale) + w->gnorm * h);
}

/* Each body's largest |v| over its velocities (w->bspeed), for the reach
 * test of the pairs at v: once per call of s_points and s_recheck, so that
 * a pair's test reads two numbers instead of its bodies' velocity lists
 * and velocities. */
static void s_body_speeds(mbs_mj_ws *w, const double *v)
{
    for (int b = 0; b < w->nbody; b++) {
        const int *bv = w->bvar + (size_t)b * w->bnv;
        double speed = 0;
        for (int sl = 0; sl < w->bnv; sl++) {
            int i = bv[sl];
            double a = i >= 0 && i < w->n ? fabs(v[i]) : 0;
            if (a > speed) speed = a;
        }
        w->bspeed[b] = speed;
    }
}

/* The target b_n of point P of pair pk (gamma^- = gam0) and whether the
 * point is in the index set (see the file's header); istep_prev: the
 * step the pair was last in the index set before this one. */
static double s_target(const mbs_mj_pinfo *pk, const mbs_rpoint *P, double gam0, double h, double eps, long step,
                       long istep_prev, int *in_index)
{
    *in_index = 0;
    if (!(P->g <= 0 || P->g + 0.5 * h * gam0 <= 0)) return 2 * P->g / h;
    /* regularised PGS: a resting contact gives way at the velocity eps W
     * Lambda; a contact that persists from the previous step is pushed
     * back out at S_REG_BETA of its penetration per step, so the pile
     * settles at a penetration eps W Lambda h / S_REG_BETA instead of
     * sinking (impacts keep their restitution target: the pair was not in
     * the index set the step before) */
    double bt = pk->restitution * fmin(gam0, 0);
    if (eps > 0 && P->g < 0 && istep_prev == step - 1) bt += S_REG_BETA * P->g / h;
    *in_index = 1;
    return bt;
}

/* Pair k's id, shapes and variables from the store (a pair outside the
 * records handed to points_rec with those in them). */
static void s_rpair_load(const mbs_mj_ws *w, int k, mbs_rpair *p)
{
    p->pair = k;
    p->shape[0] = w->pi[k].shape[0];
    p->shape[1] = w->pi[k].shape[1];
    p->nv = w->pnv[k];
    memcpy(p->vars, w->pvars[k], sizeof(int) * (size_t)p->nv);
}

/* Pair k's data and state: its record when it is in the active set's
 * records, else the store's. */
static mbs_mj_pinfo *s_pinfo(mbs_mj_ws *w, int k)
{
    mbs_mj_rec *r = w->nrec > 0 ? mbs_mj_recs_find(w, k) : NULL;
    return r ? &r->pi : &w->pi[k];
}

/* The points of the rigid pairs in the system at w->xm (deactivation: the
 * active set of contact.c; otherwise every declared rigid pair), their B
 * columns, Delassus diagonals, free velocities and targets. */
static int s_points(const mbs_model *m, mbs_data *d, mbs_mj_ws *w, double h, int ncomp, const double *v0, long step)
{
    int nc = m->spec->ncontact;
    int use_active = m->spec->solver.contact_deactivation && d->c_ready;
    int cnt = use_active ? d->c_nactive : nc, np = 0;
    /* the active set's records (mj_pairs.h), in the set's order */
    int use_rec = use_active && w->rec;
    double eps = m->spec->solver.lcp_regularization;
    long boff = 0;
    double t0 = mbs_now();
    w->nskip = 0;
    w->nulog = 0;
    w->nimp = 0;
    if (use_active) {
        if (w->rows.body_speeds) w->rows.body_speeds(w->rows.ctx, w->xm, v0, w->bspeed);
        else s_body_speeds(w, v0);
    }
    /* the rigid pairs in the system, S_CHUNK at a time: their list with the
     * reach of those the reach test may leave out, their points in one call,
     * then their warm starts and targets while the points are in the cache
     * (one call for all pairs read the first points back from memory: 4 %
     * more cache misses of the data, 1.3 % more CPU on the 100-ball box) */
    int a = 0, x = 0, more = 1;
    while (more) {
        int npl = 0, nroom = 0;
        long broom = 0;
        while (npl < S_CHUNK) {
            /* the pairs in increasing id: every declared one, or the active set
             * merged with the pairs the check after a solve added (s_recheck) */
            int k, added = 0, ra = -1;
            if (!use_active) {
                if (a >= nc) { more = 0; break; }
                k = a++;
            } else {
                int ka = a < cnt ? d->c_active[a] : nc, kx = x < w->nxtra ? w->xtra[x] : nc;
                if (ka >= nc && kx >= nc) { more = 0; break; }
                k = ka < kx ? ka : kx;
                if (ka == k) ra = a++;
                if (kx == k) { x++; added = 1; }
            }
            /* the pair's data and state: its record (read in the set's
             * order), else the store (a pair the check after a solve added
             * from outside the set; every pair without records) */
            mbs_mj_rec *rc = use_rec && ra >= 0 ? &w->rec[ra] : NULL;
            mbs_mj_pinfo *pk = rc ? &rc->pi : &w->pi[k];
            if (!pk->rigid) continue;
            if (use_rec) {
                if (!rc) {
                    s_rpair_load(w, k, &w->rtmp[npl]);
                    w->prec[npl] = &w->rtmp[npl];
                    w->pvl[npl] = w->pvars[k];
                    w->pim0[npl] = w->prev + 4L * pk->slot;
                } else {
                    w->prec[npl] = &rc->p;
                    w->pvl[npl] = rc->p.vars;
                    w->pim0[npl] = rc->imp0;
                }
            } else {
                w->pvl[npl] = w->pvars[k];
                w->pim0[npl] = w->prev + 4L * pk->slot;
            }
            w->ppk[npl] = pk;
            w->plist[npl] = k;
            w->preach[npl++] = use_active && !added ? s_pair_reach(w, pk->shape, h) : INFINITY;
            nroom += pk->npmax;
            broom += 3L * pk->blen * pk->npmax;
        }
        /* room for the chunk's points (grown in the first steps of a run) */
        if (s_pt_room(w, np + nroom, boff + broom)) return -1;
        if (npl > 0 && use_rec)
            w->rows.points_rec(w->rows.ctx, w->xm, w->stamp, w->prec, npl, w->preach, &w->pt[np], w->pcount,
                               w->pgmin);
        else if (npl > 0)
            w->rows.points(w->rows.ctx, w->xm, w->stamp, w->plist, npl, use_active ? w->preach : NULL, &w->pt[np],
                           w->pcount, w->pgmin);
        for (int l = 0; l < npl; l++) {
            int k = w->plist[l], got = w->pcount[l];
            mbs_mj_pinfo *pk = w->ppk[l];
            /* a pair out of reach of the step */
            if (got < 0) {
                w->skipp[w->nskip] = pk;
                w->skip[w->nskip] = k;
                w->skipg[w->nskip++] = w->pgmin[l];
                continue;
            }
            /* the pair's steps before this call, for solving again */
            w->ulog[w->nulog].pk = pk;
            w->ulog[w->nulog].lstep = pk->lstep;
            w->ulog[w->nulog].istep = pk->istep;
            w->nulog++;
            /* warm start from the previous step when the pair was in the system */
            int warm = pk->lstep == step - 1;
            int in_index = 0, impact = 0;
            for (int j = 0; j < got; j++) {
                int i = np + j;
                const mbs_rpoint *P = &w->pt[i];
                /* the point's compact data for the rest of the step (its
                 * pair's variables, friction, stride, islands, warm-start
                 * slot): the step reads no per-pair array after this */
                double *prev = w->pimp[i] = j == 0 ? w->pim0[l] : w->prev + 4L * (pk->slot + j);
                w->pvp[i] = w->pvl[l];
                w->pmu[i] = pk->friction;
                w->pstr[i] = pk->blen;
                w->pisl[2 * i] = pk->isl[0];
                w->pisl[2 * i + 1] = pk->isl[1];
                w->boff[i] = boff;
                boff += 3L * pk->blen;
                /* the previous normal impulse, and the previous friction impulse
                 * (kept as a world vector) on the new tangents: the tangent
                 * basis turns with the normal and can swap axes */
                for (int c = 0; c < 3; c++) {
                    w->lam[3 * i + c] = 0;
                    w->bt[3 * i + c] = 0;
                }
                if (warm) {
                    const double *tw = prev + 1;
                    w->lam[3 * i] = prev[0];
                    for (int c = 1; pk->friction > 0 && c < ncomp; c++)
                        w->lam[3 * i + c] = tw[0] * P->t[c - 1][0] + tw[1] * P->t[c - 1][1] + tw[2] * P->t[c - 1][2];
                }
                w->gam0[i] = s_gdot(w, P, 0, v0);
                /* index set: touching at q_m or closing within the half step */
                int idx;
                w->bt[3 * i] = s_target(pk, P, w->gam0[i], h, eps, step, pk->istep, &idx);
                if (idx) {
                    in_index = 1;
                    if (w->gam0[i] < 0 && pk->istep != step - 1) impact = 1;
                }
            }
            /* an impact: a pair entering the index set while closing */
            if (in_index) pk->istep = step;
            for (int j = 0; j < got; j++) w->pin[np + j] = in_index;
            w->nimp += impact;
            pk->lstep = step;
            np += got;
        }
    }
    d->met.contact_detection_seconds += mbs_now() - t0;
    /* B columns, W_ii, G v_f */
    t0 = mbs_now();
    for (int i = 0; i < np; i++) {
        int nci = w->pmu[i] > 0 ? ncomp : 1;
        s_bcols(w, i, nci);
        int len = w->pstr[i];
        const double *Gi = w->astore + w->boff[i], *Bi = w->bzstore + w->boff[i];
        for (int c = 0; c < 9; c++) w->wblk[9 * i + c] = 0;
        for (int c = 0; c < 3; c++) w->wd[3 * i + c] = 0;
        /* the 3 x 3 Delassus block W_cd = G_c B_d = a_c b_d of the point */
        int zl = w->pzlen[2 * i] + w->pzlen[2 * i + 1];
        for (int c = 0; c < nci; c++)
            for (int e = 0; e < nci; e++) {
                double s = 0;
                for (int j = 0; j < zl; j++) s += Gi[(long)c * len + j] * Bi[(long)e * len + j];
                w->wblk[9 * i + 3 * c + e] = s;
            }
        for (int c = 0; c < nci; c++) {
            w->wd[3 * i + c] = w->wblk[9 * i + 4 * c];
            w->wdi[3 * i + c] = w->wd[3 * i + c] > 0 ? 1 / ((1 + eps) * w->wd[3 * i + c]) : 0;
        }
    }
    d->met.linear_algebra_seconds += mbs_now() - t0;
    return np;
}

/* Keep the impulses of the step for the next one's warm start. */
static void s_keep(const mbs_model *m, mbs_mj_ws *w, int np)
{
    for (int i = 0; i < np; i++) {
        double *prev = w->pimp[i]; /* (the point's warm-start slot) */
        const mbs_rpoint *P = &w->pt[i];
        prev[0] = w->lam[3 * i];
        for (int a = 0; a < 3; a++) prev[1 + a] = w->lam[3 * i + 1] * P->t[0][a] + w->lam[3 * i + 2] * P->t[1][a];
    }
    (void)m;
}

/* The impulses of the np points of the step: Lemke when the problem is
 * small enough (lcp_solver auto or lemke) and its answer checks out, else
 * PGS from the warm start (from zero after a Lemke failure).  d->v holds
 * v_f on entry and v_1 at exit.  Returns the LCP's dimension; *failed: a
 * Lemke failure or the PGS iteration limit; *lemke: Lemke's answer was
 * kept; *ce: its complementarity error (-1 when not computed). */
static int s_impulses(const mbs_model *m, mbs_data *d, mbs_mj_ws *w, int np, int ncomp, double vscale, int *failed,
                      int *lemke, double *ce)
{
    const mbs_solver_spec *o = &m->spec->solver;
    int n = w->n, dim = 0, rc = -3;
    double la0 = mbs_now();
    for (int i = 0; i < np; i++) dim += w->pmu[i] > 0 ? ncomp : 1;
    *failed = 0;
    *ce = -1;
    /* Lemke solves the unregularised problem: with lcp_regularization > 0
     * (the problem asked for is W + eps diag W) the automatic choice takes
     * PGS whatever the size.  Before, it took Lemke whenever the step's
     * LCP had at most lcp_lemke_max unknowns, a count over every point in
     * the system: a few with contact deactivation, every declared pair
     * without it, so that a frictionless 100-ball box rebounded from a wall
     * at e v exactly with deactivation and at 1 / (1 + eps) of that change
     * without (energy 7e-4 J apart at t = 0.008 s) */
    int lemke_ok = o->lcp_solver == MBS_LCP_LEMKE || (o->lcp_solver == MBS_LCP_AUTO && !(o->lcp_regularization > 0));
    if (lemke_ok) {
        rc = s_lemke(m, w, np, ncomp);
        if (rc == 0) {
            s_apply(w, np, ncomp, 0, d->v);
            /* Lemke's answer is verified: pivoting on a badly scaled
             * tableau (targets of far points, 2 g / h, can exceed the
             * others by many orders) may end "solved" with a poor
             * solution; then it counts as a failure */
            *ce = s_compl_error(m, w, np, ncomp, vscale, d->v);
            if (*ce > 1e-7) { rc = 1; *ce = -1; memcpy(d->v, w->vf, sizeof(double) * (size_t)n); }
        }
        /* ray, pivot limit or poor answer: PGS takes over from zero */
        if (rc > 0) { *failed = 1; for (int i = 0; i < 3 * np; i++) w->lam[i] = 0; }
    }
    *lemke = rc == 0;
    if (rc != 0) {
        /* PGS from the warm start (zero after a Lemke failure) */
        s_apply(w, np, ncomp, 1, d->v);
        double p0 = w->probe ? mbs_now() : 0;
        if (w->probe) w->probe(w->probe_ctx, w, np, ncomp, 0, 0);
        if (mbs_mj_pgs(m, w, np, ncomp, vscale, d->v) < 0) *failed = 1;
        if (w->probe) w->probe(w->probe_ctx, w, np, ncomp, 1, mbs_now() - p0);
    }
    d->met.linear_algebra_seconds += mbs_now() - la0;
    return dim;
}

/* Put the pairs' steps back as they were before s_points (to solve the
 * step again). */
static void s_undo(mbs_mj_ws *w)
{
    for (int u = w->nulog - 1; u >= 0; u--) {
        w->ulog[u].pk->lstep = w->ulog[u].lstep;
        w->ulog[u].pk->istep = w->ulog[u].istep;
    }
    w->nulog = 0;
}

/* Point P's normal row on island I's PGS unknowns (w_n = a . z + ...: a =
 * G U on a reduced island, G on an LU island): its largest |a_j| (*amax)
 * and its value at the unknowns z0 of the PGS start, G v_f + a . z0 on a
 * reduced island (v = v_f + U z), a . z0 on an LU island (z = v). */
static double s_row_side(const mbs_mj_ws *w, const mbs_rpoint *P, int I, double *amax)
{
    const int *vars = w->pvp[P - w->pt];
    const double *z0 = w->z0 + w->isl_zptr[I];
    double am = 0, val = 0;
    if (!w->isl_red[I]) {
        for (int j = 0; j < P->nv; j++)
            if (w->var_isl[vars[j]] == I) {
                am = fmax(am, fabs(P->G[0][j]));
                val += P->G[0][j] * z0[w->var_loc[vars[j]]];
            }
        *amax = am;
        return val;
    }
    int zl = w->isl_zptr[I + 1] - w->isl_zptr[I];
    const double *U = w->isl_ci[I].U;
    for (int j = 0; j < P->nv; j++)
        if (w->var_isl[vars[j]] == I) val += P->G[0][j] * w->vf[vars[j]];
    for (int c = 0; c < zl; c++) {
        double a = 0;
        for (int j = 0; j < P->nv; j++)
            if (w->var_isl[vars[j]] == I) a += P->G[0][j] * U[w->var_loc[vars[j]] * zl + c];
        am = fmax(am, fabs(a));
        val += a * z0[c];
    }
    *amax = am;
    return val;
}

/* Whether point P of a pair left out of the step's system (pair id k,
 * islands isl[2]) would have taken an impulse in the last PGS solve had it
 * been in the system: its w_n replayed through the solve's update log
 * (w0 at the start, each update's change a . b dLambda on the islands the
 * two share) and tested where the sweeps would have visited it (after the
 * points of smaller pair id); w_n < tol at a visit: yes.  The replay adds
 * the changes in another order than the sweeps' dot products, hence the
 * tolerance tol (a velocity, positive). */
static int s_replay_touches(const mbs_mj_ws *w, const mbs_rpoint *P, int k, const int *isl, double w0, double tol)
{
    /* the point's normal row on each side's unknowns */
    double a[2][MBS_NB_MAX * 2];
    const int *vars = w->pvp[P - w->pt];
    for (int q = 0; q < 2; q++) {
        int I = isl[q];
        if (I < 0) continue;
        int zl = w->isl_zptr[I + 1] - w->isl_zptr[I];
        if (zl > 2 * MBS_NB_MAX) return 1; /* a large island: taken as touched */
        for (int c = 0; c < zl; c++) a[q][c] = 0;
        for (int j = 0; j < P->nv; j++) {
            if (w->var_isl[vars[j]] != I) continue;
            int l = w->var_loc[vars[j]];
            if (!w->isl_red[I]) { a[q][l] += P->G[0][j]; continue; }
            for (int c = 0; c < zl; c++) a[q][c] += P->G[0][j] * w->isl_ci[I].U[l * zl + c];
        }
    }
    double wn = w0;
    int due = 0; /* a sweep is under way and has not reached pair k yet */
    for (long e = 0; e < w->nlog; e++) {
        int i = w->logi[e];
        if (i < 0 || (due && w->pt[i].pair > k)) {
            if (due && wn < tol) return 1;
            due = i == -1;
            if (i < 0) continue;
        }
        const double *dl = w->logd + 3 * e;
        for (int s = 0; s < 2; s++) {
            int J = w->pisl[2 * i + s];
            if (J < 0) continue;
            int q = J == isl[0] ? 0 : J == isl[1] ? 1 : -1;
            if (q < 0) continue;
            int zl = w->pzlen[2 * i + s], off = s == 0 ? 0 : w->pzlen[2 * i];
            for (int c = 0; c < 3; c++) {
                if (dl[c] == 0) continue;
                const double *b = w->bzstore + w->boff[i] + (long)c * w->pstr[i] + off;
                double ab = 0;
                for (int z = 0; z < zl; z++) ab += a[q][z] * b[z];
                wn += ab * dl[c];
            }
        }
    }
    return due && wn < tol;
}

/* Deactivation's check of a solved step (velocities d->v): a pair left out
 * of the step's system (outside the active set, or in it and left out by
 * the reach test at v0) is visited by the run without deactivation at each
 * PGS sweep; the two runs take the same iterates only as long as it keeps
 * Lambda = 0 there, i.e. its w_n = G_n v + b_n stays >= 0 at every iterate
 * v (else it takes an impulse: a ball at rest pushed into the wall by a
 * falling one, the 100-ball box at t = 0.792 s; or only for a few sweeps,
 * a wall pair at 1.4e-5 m at t = 0.98 s).  Candidates: the pairs of bodies
 * whose displacement over the step (h/2 (|v0| + |v1|) per coordinate)
 * exceeds their boxes' travel (mbs_contact_missed) and the reach-test pairs
 * within reach at v1.  Each one's points at q_m are formed; w1 = G_n v1 +
 * b_n at the end, w0 at the PGS start (z0) and A = sum over the sides of
 * max|a| ztrav (each island's sum of |dz|_1 over the sweeps) bound every
 * iterate: w_n >= (w0 + w1 - A) / 2; where that is < 0 the solve's update
 * log is replayed (s_replay_touches).  The pairs that would have been
 * touched are added (w->xtra, increasing).  pgs: the solve was PGS (ztrav,
 * z0 and the log are its own; Lemke's answer: no iterates, w1 alone).
 * vscale: the step's velocity scale.  Returns how many were added (0: the
 * solve stands). */
static int s_recheck(const mbs_model *m, mbs_data *d, mbs_mj_ws *w, double h, const double *v0, long step, int np,
                     int pgs, double vscale)
{
    if (!m->spec->solver.contact_deactivation || !d->c_ready) return 0;
    double t0 = mbs_now(), eps = m->spec->solver.lcp_regularization;
    if (w->rows.body_speeds) w->rows.body_speeds(w->rows.ctx, w->xm, d->v, w->bspeed);
    int n = w->n, ncand = 0, nadd = 0;
    /* each coordinate's change over the step (from x0 to q_m + h/2 v1) */
    double *dx = w->tmp;
    for (int i = 0; i < n; i++) dx[i] = 0.5 * h * (fabs(v0[i]) + fabs(d->v[i]));
    /* the reach-test pairs within reach at v1 (the formulation's speeds
     * above, or the largest |v| of each body's velocities) */
    if (!w->rows.body_speeds && w->nskip > 0) s_body_speeds(w, d->v);
    for (int s = 0; s < w->nskip; s++) {
        int k = w->skip[s];
        if (!(w->skipg[s] > s_pair_reach(w, w->skipp[s]->shape, h))) w->cand[ncand++] = k;
    }
    /* the pairs outside the active set within the bodies' displacements */
    ncand += w->rows.missed(w->rows.ctx, dx, w->cand + ncand);
    /* the rigid ones not in the system, their points in one call after the
     * system's (their slots are free: the pairs are not in it; each pair
     * is a candidate once) */
    int nk = 0, nroom = 0;
    for (int c = 0; c < ncand; c++) {
        int k = w->cand[c];
        if (w->pi[k].rigid && s_pinfo(w, k)->lstep != step) {
            w->cand[nk++] = k;
            nroom += w->pi[k].npmax;
        }
    }
    if (s_pt_room(w, np + nroom, w->bcap)) return 0; /* (w->nomem: the run stops) */
    if (nk > 0) w->rows.points(w->rows.ctx, w->xm, w->stamp, w->cand, nk, NULL, &w->pt[np], w->pcount, NULL);
    mbs_rpoint *P = &w->pt[np];
    for (int c = 0; c < nk; P += w->pcount[c], c++) {
        int k = w->cand[c], got = w->pcount[c], viol = 0;
        const mbs_mj_pinfo *pk = s_pinfo(w, k);
        for (int j = 0; j < got; j++) w->pvp[P - w->pt + j] = w->pvars[k];
        for (int j = 0; j < got && !viol; j++) {
            int idx;
            double bt = s_target(pk, &P[j], s_gdot(w, &P[j], 0, v0), h, eps, step, pk->istep, &idx);
            /* w_n at the end (w1) and, after PGS, at its start (w0) and
             * the bound of its change A = sum max|a| ztrav: an iterate
             * k with the travel share A_k has w_n >= max(w0 - A_k, w1 - A
             * + A_k) >= (w0 + w1 - A) / 2 */
            double w1 = s_gdot(w, &P[j], 0, d->v) + bt, lo = w1;
            if (pgs) {
                double w0 = bt, A = 0;
                for (int q = 0; q < 2; q++) {
                    int I = pk->isl[q];
                    if (I < 0) continue;
                    double am;
                    w0 += s_row_side(w, &P[j], I, &am);
                    A += am * w->ztrav[I];
                }
                lo = fmin(lo, 0.5 * (w0 + w1 - A));
                /* the bound is loose (A sums every sweep's travel): replay
                 * the solve for the point when it fails */
                if (!(lo >= 0) && w1 >= 0 && !w->logfull)
                    lo = s_replay_touches(w, &P[j], k, pk->isl, w0, 1e-12 * vscale) ? -1 : 0;
            }
            viol = !(lo >= 0);
        }
        if (!viol) continue;
        /* insert into the increasing list */
        int x = w->nxtra++;
        while (x > 0 && w->xtra[x - 1] > k) { w->xtra[x] = w->xtra[x - 1]; x--; }
        w->xtra[x] = k;
        nadd++;
    }
    d->met.contact_detection_seconds += mbs_now() - t0;
    return nadd;
}

/* y = M v with the values of M(q_m) of the step (w->mval, mass_eval). */
static void s_mval_mul(const mbs_mj_ws *w, const double *v, double *y)
{
    const int *M_ptr = w->f.mass_ptr, *M_col = w->f.mass_col;
    for (int i = 0; i < w->n; i++) {
        double a = 0;
        for (int k = M_ptr[i]; k < M_ptr[i + 1]; k++) a += w->mval[k] * v[M_col[k]];
        y[i] = a;
    }
}

/* Mass-orthogonal projections of d->x onto Phi = 0 and of d->v onto
 * Phi_q v + Phi_t = 0 at t, by simplified Newton with the island factors
 * of the step (their Jacobian is O(h) away).  d->jac is current at exit. */
static void s_project(mbs_data *d, mbs_mj_ws *w, double t, double vscale)
{
    const mbs_dae_form *f = &w->f;
    int n = w->n, ne = w->ne;
    double tolx = 1e-12 * w->lscale, tolv = 1e-12 * vscale;
    /* the simplified Newton iterations need only Phi; the Jacobian is
     * wanted at the projected positions, so it comes with the evaluation
     * that the contraction of the last two iterations predicts to be the
     * converged one (else one more evaluation at the end) */
    double rprev = -1, rlast = -1;
    int have_jac = 0;
    for (int it = 0; ne > 0 && it < 5; it++) {
        int want = rprev > 0 && rlast * (rlast / rprev) <= tolx;
        f->constraints(f->ctx, d->x, t, d->phi, want ? d->jac : NULL);
        have_jac = want;
        /* max |Phi| over the form's active equations (mbs_phi_norm's, on
         * the form's ne rather than the model's) */
        double r = 0;
        for (int k = 0; k < ne; k++) {
            if (!d->eq_on[k]) continue;
            if (isnan(d->phi[k])) { r = NAN; break; }
            if (fabs(d->phi[k]) > r) r = fabs(d->phi[k]);
        }
        if (r <= tolx) break;
        rprev = rlast;
        rlast = r;
        for (int k = 0; k < ne; k++) d->r1[k] = -d->phi[k];
        s_solve_all(d, w, NULL, d->r1, w->tmp);
        /* the correction is in the velocities' layout: q += G(q) dq */
        if (f->advance) f->advance(f->ctx, d->x, w->tmp, 1.0, d->x);
        else for (int i = 0; i < n; i++) d->x[i] += w->tmp[i];
        have_jac = 0;
    }
    if (!have_jac) f->constraints(f->ctx, d->x, t, d->phi, d->jac);
    if (ne == 0) return;
    f->phi_t(f->ctx, d->x, t, d->phit);
    for (int it = 0; it < 4; it++) {
        f->jv(f->ctx, d->jac, d->v, d->r1);
        double r = 0;
        for (int i = 0; i < ne; i++) {
            d->r1[i] = -(d->r1[i] + d->phit[i]);
            if (d->eq_on[i]) r = fmax(r, fabs(d->r1[i]));
        }
        if (r <= tolv) break;
        s_solve_all(d, w, NULL, d->r1, w->tmp);
        for (int i = 0; i < n; i++) d->v[i] += w->tmp[i];
    }
}

int mbs_mj_run(const mbs_model *m, mbs_data *d, mbs_stepper *run, mbs_errlist *err)
{
    const mbs_solver_spec *o = &m->spec->solver;
    mbs_mj_ws *w = d->mj;
    if (!w) {
        mbs_err_add(err, "", "moreau_jean: no workspace (the data was made for another integrator)");
        return MBS_EINVAL;
    }
    const mbs_dae_form *f = &w->f;
    int n = w->n, ne = w->ne, nq = w->nq;
    double T = o->t_end;
    double h = o->step > 0 ? o->step : 1e-3;
    long nstep = (long)ceil(T / h - 1e-9);
    if (nstep < 1) nstep = 1;
    h = T / (double)nstep;
    int ncomp = 1 + (m->dim == 3 ? 2 : 1);
    w->nrec = 0; /* (the records' state: reset below) */
    for (int k = 0; k < m->spec->ncontact; k++) w->pi[k].lstep = w->pi[k].istep = -10;
    w->nlemke = w->npgs = 0;
    double *v0 = d->vp, *vf = w->vf;
    if (mbs_mj_error_start(w)) {
        mbs_err_add(err, "", "moreau_jean: out of memory");
        return MBS_ENOMEM;
    }

    for (long step = 1; step <= nstep; step++) {
        double t1 = step == nstep ? T : (double)step * h, tm = d->t + 0.5 * h;
        memcpy(d->xp, d->x, sizeof(double) * (size_t)nq);
        memcpy(d->vp, d->v, sizeof(double) * (size_t)n);
        memcpy(d->ap, d->a, sizeof(double) * (size_t)n);
        d->tp = d->t;
        w->stamp++;
        /* midpoint (q_m = q0 + h/2 G(q0) v0 with the form's advance) and forces */
        if (f->advance) f->advance(f->ctx, d->x, v0, 0.5 * h, w->xm);
        else for (int i = 0; i < n; i++) w->xm[i] = d->x[i] + 0.5 * h * v0[i];
        f->forces(f->ctx, w->xm, v0, tm, d->Q);
        f->constraints(f->ctx, w->xm, tm, d->phi, d->jac);
        f->phi_t(f->ctx, w->xm, tm, d->phit);
        /* free velocity from the island KKT systems at q_m */
        double la0 = mbs_now();
        int info = s_factor(d, w, w->xm, tm);
        if (info) {
            mbs_err_add(err, "", "t = %.6g: singular KKT matrix (a body without mass, or dependent constraints)",
                        tm);
            return MBS_ESINGULAR;
        }
        /* M v0 + h Q, with M(q_m) of the factors when M depends on q */
        if (w->mval) s_mval_mul(w, v0, w->mv);
        else f->mass_mul(f->ctx, v0, w->mv);
        for (int r = 0; r < ne; r++) d->r2[r] = -d->phit[r];
        if (w->mval) {
            /* M(q) (mass_eval): Q's velocity products C(q, v) v are taken
             * at a midpoint velocity v_h, the half step's free velocity
             * from Q(q_m, v0) (bilateral equations at q_m, as v(t_m) obeys
             * them: v_h = v(t_m) + O(h^2), where (v0 + v_f) / 2 would miss
             * the constraints' part by O(h)); then Q = Q(q_m, v_h, t_m) and
             * the full step solved with the same factors: second order on
             * smooth stretches, against first with Q at v0 (docs/
             * formulations.md "Moreau-Jean in relative coordinates") */
            for (int i = 0; i < n; i++) w->tmp[i] = w->mv[i] + 0.5 * h * d->Q[i];
            s_solve_all(d, w, w->tmp, d->r2, vf);
            d->met.linear_algebra_seconds += mbs_now() - la0;
            f->forces(f->ctx, w->xm, vf, tm, d->Q);
            la0 = mbs_now();
        }
        for (int i = 0; i < n; i++) w->mv[i] += h * d->Q[i];
        s_solve_all(d, w, w->mv, d->r2, vf);
        d->met.linear_algebra_seconds += mbs_now() - la0;
        double vscale = 1e-12;
        for (int i = 0; i < n; i++) {
            double a = fabs(vf[i]), b = fabs(v0[i]); /* (not fmax: a library call) */
            if (a > vscale) vscale = a;
            if (b > vscale) vscale = b;
        }
        /* contacts in the system, impulses; with deactivation, solved again
         * with the pairs left out that the step's velocities bring into
         * contact (s_recheck) */
        w->nxtra = 0;
        /* the active set's records follow the set (once per step: the set
         * changes between steps, pointers into the records last the step) */
        if (w->rec && d->c_ready && mbs_mj_recs_sync(w, d->c_active, d->c_nactive)) {
            mbs_err_add(err, "", "t = %.6g: out of memory for the active set's records", tm);
            return MBS_ENOMEM;
        }
        if (w->rec && !d->c_ready) mbs_mj_recs_clear(w);
        int np = s_points(m, d, w, h, ncomp, v0, step);
        if (np < 0) {
            mbs_err_add(err, "", "t = %.6g: out of memory for the step's contact points", tm);
            return MBS_ENOMEM;
        }
        int dim = 0, failed = 0, lemke = 0;
        double ce = -1;
        memcpy(d->v, vf, sizeof(double) * (size_t)n);
        if (np > 0) dim = s_impulses(m, d, w, np, ncomp, vscale, &failed, &lemke, &ce);
        for (int round = 0; round < S_RECHECK_MAX && s_recheck(m, d, w, h, v0, step, np, np > 0 && !lemke, vscale);
             round++) {
            s_undo(w);
            np = s_points(m, d, w, h, ncomp, v0, step);
            if (np < 0) break;
            memcpy(d->v, vf, sizeof(double) * (size_t)n);
            dim = failed = lemke = 0;
            ce = -1;
            if (np > 0) dim = s_impulses(m, d, w, np, ncomp, vscale, &failed, &lemke, &ce);
            if (round == 0) w->nrecheck++;
        }
        if (w->nomem) {
            mbs_err_add(err, "", "t = %.6g: out of memory for the step's contact points", tm);
            return MBS_ENOMEM;
        }
        d->met.impacts += w->nimp;
        if (np > 0) {
            if (lemke) w->nlemke++;
            else w->npgs++;
            mbs_note_lcp(d, dim, failed);
            if (ce < 0) ce = s_compl_error(m, w, np, ncomp, vscale, d->v);
            if (!isfinite(ce)) {
                mbs_err_add(err, "", "t = %.6g: the contact impulses diverged (%d points)", tm, np);
                return MBS_EDIVERGE;
            }
            if (ce > d->met.max_complementarity_error) d->met.max_complementarity_error = ce;
            /* penetration at q_m and (linearised) at the end of the step */
            for (int i = 0; i < np; i++) {
                double g1 = w->pt[i].g + 0.5 * h * s_gdot(w, &w->pt[i], 0, d->v);
                double pen = fmax(-w->pt[i].g, -g1);
                if (pen > d->met.max_penetration) d->met.max_penetration = pen;
            }
            s_keep(m, w, np);
        }
        mbs_note_system(d, n + ne + dim);
        w->np_last = np;
        w->ncomp_last = ncomp;
        w->h_last = h;
        /* the method that solved most steps so far (kept current so that a
         * run that fails still reports it) */
        d->met.contact_method = w->nlemke > w->npgs || (w->nlemke == w->npgs && o->lcp_solver != MBS_LCP_PGS)
                                    ? "moreau_jean_lemke" : "moreau_jean_pgs";
        /* positions, projections, accelerations for the sampler */
        if (f->advance) f->advance(f->ctx, w->xm, d->v, 0.5 * h, d->x);
        else for (int i = 0; i < n; i++) d->x[i] = w->xm[i] + 0.5 * h * d->v[i];
        la0 = mbs_now();
        s_project(d, w, t1, vscale);
        d->met.linear_algebra_seconds += mbs_now() - la0;
        for (int i = 0; i < n; i++) d->a[i] = (d->v[i] - v0[i]) / h;
        d->t = t1;
        d->met.steps++;
        mbs_mj_error_step(d, w, step, h, np, ncomp);
        /* Phi and its Jacobian are current at (x, t1) after s_project */
        d->cons_at_state = 1;
        int rc = mbs_step_done(m, d, run, err);
        if (rc) return rc;
    }
    int lemke = w->nlemke > w->npgs || (w->nlemke == w->npgs && o->lcp_solver != MBS_LCP_PGS);
    d->met.contact_method = lemke ? "moreau_jean_lemke" : "moreau_jean_pgs";
    mbs_mj_error_finish(d, w);
    return 0;
}

void mbs_mj_point_forces(const mbs_model *m, mbs_data *d, double t, const double *x, const double *v,
                         mbs_cforce_fn fn, void *ctx)
{
    const mbs_mj_ws *w = d->mj;
    if (!w || m->spec->solver.integrator != MBS_INT_MOREAU_JEAN || !(w->h_last > 0)) return;
    for (int i = 0; i < w->np_last; i++) {
        const mbs_rpoint *P = &w->pt[i];
        const double *lam = w->lam + 3 * i;
        mbs_cforce f;
        f.pair = P->pair;
        memcpy(f.body, P->body, sizeof f.body);
        memcpy(f.c, P->c, sizeof f.c);
        memcpy(f.n, P->n, sizeof f.n);
        /* the impulse's components on (n, t1, t2), as a mean force */
        for (int a = 0; a < 3; a++) {
            f.F[a] = lam[0] * P->n[a];
            for (int c = 1; c < w->ncomp_last; c++) f.F[a] += lam[c] * P->t[c - 1][a];
            f.F[a] /= w->h_last;
        }
        fn(ctx, &f);
    }
}
