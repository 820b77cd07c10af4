/*
 * integrator_mj_pgs.c - the projected Gauss-Seidel sweeps of Moreau-Jean
 * time stepping on the unknowns z of the islands (integrator_mj.c's header
 * comment and docs/contacts.md, "Cost" and "LCP solvers").
 */
#include "mbs/integrate/integrator_mj_ws.h"

#include <math.h>
#include <string.h>


/* The slices of z of point i's two sides: v0 (n0 values) and v1 (n1, 0
 * when the pair has one moving island), in the order of its astore /
 * bzstore coefficients. */
static inline void s_sides(const mbs_mj_ws *w, int i, double *z, double **v0, int *n0, double **v1, int *n1)
{
    *v0 = z + w->pzoff[2 * i];
    *n0 = w->pzlen[2 * i];
    *v1 = z + w->pzoff[2 * i + 1];
    *n1 = w->pzlen[2 * i + 1];
}

/* a_c . z of point i (its normal or tangent velocity minus qz). */
static inline double s_ldot(const mbs_mj_ws *w, int i, int c, const double *v0, int n0, const double *v1, int n1)
{
    const double *g = w->astore + w->boff[i] + (long)c * w->pstr[i];
    double s = 0, t = 0;
    if (n0 == 6) {
        /* a free body in space (6 reduced unknowns): fixed trip counts */
        for (int a = 0; a < 6; a++) s += g[a] * v0[a];
        if (n1 == 6)
            for (int a = 0; a < 6; a++) t += g[6 + a] * v1[a];
        else
            for (int a = 0; a < n1; a++) t += g[6 + a] * v1[a];
        return s + t;
    }
    for (int a = 0; a < n0; a++) s += g[a] * v0[a];
    for (int a = 0; a < n1; a++) t += g[n0 + a] * v1[a];
    return s + t;
}

/* v += sum_c dl[c] B_c (point i, components c < nc) on the island-ordered
 * velocity, one pass over the point's unknowns. */
static inline void s_laxpy(const mbs_mj_ws *w, int i, int nc, const double *dl, double *v0, int n0, double *v1,
                           int n1)
{
    int len = w->pstr[i];
    const double *b0 = w->bzstore + w->boff[i], *b1 = b0 + len, *b2 = b1 + len;
    double d0 = dl[0], d1 = nc > 1 ? dl[1] : 0, d2 = nc > 2 ? dl[2] : 0;
    /* the travel of the two sides' unknowns: |dz|_1 <= sum |dl_c| |b_c|_1 */
    for (int s = 0; s < 2; s++) {
        int I = w->pisl[2 * i + s];
        if (I >= 0)
            w->ztrav[I] += fabs(d0) * w->pbn[6 * i + s] + fabs(d1) * w->pbn[6 * i + 2 + s] +
                           fabs(d2) * w->pbn[6 * i + 4 + s];
    }
    if (nc == 1 || (d1 == 0 && d2 == 0)) {
        for (int a = 0; a < n0; a++) v0[a] += d0 * b0[a];
        for (int a = 0; a < n1; a++) v1[a] += d0 * b0[n0 + a];
        return;
    }
    if (nc == 2) {
        for (int a = 0; a < n0; a++) v0[a] += d0 * b0[a] + d1 * b1[a];
        for (int a = 0; a < n1; a++) v1[a] += d0 * b0[n0 + a] + d1 * b1[n0 + a];
        return;
    }
    for (int a = 0; a < n0; a++) v0[a] += d0 * b0[a] + d1 * b1[a] + d2 * b2[a];
    for (int a = 0; a < n1; a++) v1[a] += d0 * b0[n0 + a] + d1 * b1[n0 + a] + d2 * b2[n0 + a];
}

/* Append an entry (point i >= 0 with its changes dl, or a marker: -1 a
 * sweep starts, -2 an NNCG move starts) to the log of the solve's updates
 * (integrator_mj.c replays it for a pair left out by deactivation); a full
 * log is marked so and no longer written. */
static inline void s_log(mbs_mj_ws *w, int i, const double *dl)
{
    if (w->nlog >= w->caplog) { w->logfull = 1; return; } /* also: no log wanted (caplog 0) */
    w->logi[w->nlog] = i;
    double *e = w->logd + 3 * (size_t)w->nlog++;
    e[0] = dl ? dl[0] : 0;
    e[1] = dl ? dl[1] : 0;
    e[2] = dl ? dl[2] : 0;
}

/* One projected Gauss-Seidel sweep in velocity form over the np points in
 * order (pair id, then point), each point's components in order (normal,
 * t1, t2): w_c = G_c v + b_c, Lambda_c <- proj(Lambda_c - w_c / W_cc).
 * The velocity vi is island-ordered; a point's components are updated
 * one after the other as if v += B_c dLambda_c followed each, but v is
 * touched once per point: the later components' velocities get the change
 * W_c'c dLambda_c from the point's 3 x 3 Delassus block (the same
 * iteration, one pass over the point's variables instead of three).  With
 * the regularisation eps > 0 (constraint force mixing) each row solves
 *     w_c + eps W_cc Lambda_c  (complementary to Lambda_c's bounds),
 * i.e. the LCP of W + eps diag(W): Lambda_c <- proj(Lambda_c - (w_c + eps
 * W_cc Lambda_c) / ((1 + eps) W_cc)).  Returns the largest velocity change
 * of an update, |dLambda| (1 + eps) W_cc. */
typedef struct {
    double *d;   /* (3 np) the sweep's change of each impulse              */
    int *chg;    /* the points it changed, in increasing order             */
    int nchg;
    double r;    /* sum of (1 + eps) W_cc d_c^2 in increasing (point, c)   */
} s_change;

static double s_sweep(const mbs_model *m, mbs_mj_ws *w, int np, int ncomp, double eps, double *vi, s_change *ch)
{
    double dmax = 0;
    ch->nchg = 0;
    ch->r = 0;
    for (int i = 0; i < np; i++) {
        double mu = w->pmu[i];
        int nc = mu > 0 ? ncomp : 1;
        double *v0, *v1, dl[3] = {0, 0, 0}, wv[3] = {0, 0, 0};
        int n0, n1, any = 0;
        s_sides(w, i, vi, &v0, &n0, &v1, &n1);
        double *lam = w->lam + 3 * i;
        const double *W = w->wblk + 9 * i, *wd = w->wd + 3 * i, *bt = w->bt + 3 * i;
        /* an open point (no impulse) whose normal velocity was w_n > 0 at
         * its last visit keeps w_n > 0, and its update changes nothing,
         * while the travel of its sides' unknowns since then, times its
         * normal row's largest coefficient, stays below w_n: skipped */
        int I0 = w->pisl[2 * i], I1 = w->pisl[2 * i + 1];
        if (lam[0] == 0 && lam[1] == 0 && lam[2] == 0) {
            double bound = 0;
            if (I0 >= 0) bound += w->pam[2 * i] * (w->ztrav[I0] - w->psnap[2 * i]);
            if (I1 >= 0) bound += w->pam[2 * i + 1] * (w->ztrav[I1] - w->psnap[2 * i + 1]);
            if (w->wlast[i] - bound > 0) {
                for (int c = 0; c < 3; c++) ch->d[3 * i + c] = 0;
                continue;
            }
        }
        for (int c = 0; c < nc; c++) {
            if (!(wd[c] > 0)) continue;
            /* an open contact (no normal impulse) has no friction */
            if (c > 0 && lam[0] == 0 && lam[c] == 0) continue;
            double wii = (1 + eps) * wd[c];
            wv[c] += s_ldot(w, i, c, v0, n0, v1, n1) + w->qz[3 * i + c] + bt[c] + eps * wd[c] * lam[c];
            if (c == 0) {
                w->wlast[i] = wv[0];
                w->psnap[2 * i] = I0 >= 0 ? w->ztrav[I0] : 0;
                w->psnap[2 * i + 1] = I1 >= 0 ? w->ztrav[I1] : 0;
            }
            double l = lam[c] - wv[c] * w->wdi[3 * i + c];
            if (c == 0) l = l > 0 ? l : 0;
            else {
                double hi = mu * lam[0];
                l = l > hi ? hi : l < -hi ? -hi : l;
            }
            double d = l - lam[c];
            if (d == 0) continue;
            dl[c] = d;
            any = 1;
            lam[c] = l;
            /* the later components see this change of the velocity */
            for (int e = c + 1; e < nc; e++) wv[e] += W[3 * e + c] * d;
            if (fabs(d) * wii > dmax) dmax = fabs(d) * wii;
            ch->r += wii * d * d;
        }
        for (int c = 0; c < 3; c++) ch->d[3 * i + c] = dl[c];
        /* w_n after the visit is the one computed only if nothing changed */
        if (any) w->wlast[i] = -INFINITY;
        if (any) {
            s_laxpy(w, i, nc, dl, v0, n0, v1, n1);
            s_log(w, i, dl);
            ch->chg[ch->nchg++] = i;
        }
    }
    return dmax;
}

/* Projected Gauss-Seidel in velocity form on v (in: v_f + B Lambda for the
 * starting Lambda; out: v1), accelerated by the nonsmooth nonlinear
 * conjugate gradient method (NNCG; Silcowitz, Niebe & Erleben, "A
 * nonsmooth nonlinear conjugate gradient method for interactive contact
 * force problems", The Visual Computer 26, 2010): with the sweep's change
 * d_k = Lambda_(k+1) - Lambda_k (minus a gradient), beta = |d_k|^2 /
 * |d_(k-1)|^2 in the norm weighted by W_ii (unit-free: a velocity times an
 * impulse), Lambda += beta p and p = d_k + beta p; beta > 1 restarts (p =
 * 0).  Stops after a plain sweep whose largest update changes a velocity by
 * at most lcp_tolerance times the velocity scale, so the result is always
 * a projected Gauss-Seidel iterate (impulses within their bounds).  With
 * solver.lcp_regularization = eps > 0 the iteration solves the LCP of
 * W + eps diag(W) (see s_sweep): strongly monotone, so the impulses are
 * unique even when W is singular (hyperstatic piles) and Gauss-Seidel
 * converges linearly; the unregularised conditions then hold up to the
 * velocity eps W_ii |Lambda_i| per row (docs/contacts.md).  Points
 * whose impulse stays 0 have d = p = 0 and leave every sum unchanged
 * (deactivation on and off stay identical).  Returns the sweeps used, or
 * -1 at the limit. */
int mbs_mj_pgs(const mbs_model *m, mbs_mj_ws *w, int np, int ncomp, double vscale, double *v)
{
    const mbs_solver_spec *o = &m->spec->solver;
    double tol = (o->lcp_tolerance > 0 ? o->lcp_tolerance : 1e-10) * vscale;
    int maxit = o->lcp_max_iterations > 0 ? o->lcp_max_iterations : 2000;
    double *p = w->cg_p, *d = w->cg_l0, rprev = 0, eps = o->lcp_regularization;
    int N = 3 * np, rc = -1;
    /* the sweeps work on the velocity in island order (contiguous slices) */
    /* z: an LU island's velocity (with the warm start applied), a reduced
     * island's y = sum U^T G^T Lambda over the points' sides on it */
    double *vi = w->z;
    for (int I = 0; I < w->nisl; I++) {
        double *zs = vi + w->isl_zptr[I];
        int zl = w->isl_zptr[I + 1] - w->isl_zptr[I];
        if (w->isl_red[I]) memset(zs, 0, sizeof(double) * (size_t)zl);
        else
            for (int a = 0; a < zl; a++) zs[a] = v[w->isl_var[w->isl_vptr[I] + a]];
    }
    for (int i = 0; i < np; i++) {
        int len = w->pstr[i], zo = 0;
        for (int s = 0; s < 2; s++) {
            int I = w->pisl[2 * i + s], zl = w->pzlen[2 * i + s];
            if (I < 0) continue;
            if (w->isl_red[I])
                for (int c = 0; c < ncomp; c++) {
                    double l = w->lam[3 * i + c];
                    const double *b = w->bzstore + w->boff[i] + (long)c * len + zo;
                    if (l == 0) continue;
                    for (int j = 0; j < zl; j++) vi[w->pzoff[2 * i + s] + j] += l * b[j];
                }
            zo += zl;
        }
    }
    /* the NNCG bookkeeping visits only the points with a non-zero change d
     * (listed by the sweep) or direction p (plist, increasing order); the
     * others have d = p = 0 and add exact zeros */
    s_change ch = {d, w->act, 0, 0};
    int *plist = w->act + np, *nlist = w->act + 2 * np, npl = 0;
    memset(p, 0, sizeof(double) * (size_t)N);
    for (int I = 0; I < w->nisl; I++) w->ztrav[I] = 0;
    /* the start and the log of the updates, for integrator_mj.c's s_recheck
     * (deactivation only) */
    if (o->contact_deactivation) memcpy(w->z0, vi, sizeof(double) * (size_t)w->isl_zptr[w->nisl]);
    w->nlog = 0;
    w->logfull = 0;
    for (int i = 0; i < np; i++) w->wlast[i] = -INFINITY;
    for (int it = 1; it <= maxit; it++) {
        s_log(w, -1, NULL);
        if (s_sweep(m, w, np, ncomp, eps, vi, &ch) <= tol) { rc = it; break; }
        if (it == maxit) break;
        /* the sweep's W-weighted norm */
        double r = ch.r;
        double beta = it == 1 || rprev == 0 ? 0 : r / rprev;
        rprev = r;
        if (beta > 1) beta = 0;
        s_log(w, -2, NULL);
        /* momentum along the previous direction, new direction: over the
         * merge of the changed points and plist */
        int a = 0, b = 0, nn = 0;
        while (a < ch.nchg || b < npl) {
            int i;
            if (b >= npl || (a < ch.nchg && ch.chg[a] < plist[b])) i = ch.chg[a++];
            else if (a >= ch.nchg || plist[b] < ch.chg[a]) i = plist[b++];
            else { i = ch.chg[a++]; b++; }
            double dl[3] = {0, 0, 0};
            int any = 0;
            for (int c = 0; c < ncomp; c++) {
                int k = 3 * i + c;
                if (beta > 0 && p[k] != 0) {
                    w->lam[k] += beta * p[k];
                    dl[c] = beta * p[k];
                    any = 1;
                }
                p[k] = d[k] + beta * p[k];
            }
            if (p[3 * i] != 0 || p[3 * i + 1] != 0 || p[3 * i + 2] != 0) nlist[nn++] = i;
            if (any) {
                double *v0, *v1;
                int n0, n1;
                s_sides(w, i, vi, &v0, &n0, &v1, &n1);
                s_laxpy(w, i, ncomp, dl, v0, n0, v1, n1);
                s_log(w, i, dl);
            }
        }
        /* the points with a direction, for the next sweep */
        int *t = plist;
        plist = nlist;
        nlist = t;
        npl = nn;
    }
    for (int I = 0; I < w->nisl; I++) {
        const double *zs = vi + w->isl_zptr[I];
        const int *iv = w->isl_var + w->isl_vptr[I];
        int nv = w->isl_vptr[I + 1] - w->isl_vptr[I], zl = w->isl_zptr[I + 1] - w->isl_zptr[I];
        if (!w->isl_red[I]) {
            for (int a = 0; a < nv; a++) v[iv[a]] = zs[a];
            continue;
        }
        const double *U = w->isl_ci[I].U;
        for (int a = 0; a < nv; a++) {
            double s = w->vf[iv[a]];
            for (int j = 0; j < zl; j++) s += U[a * zl + j] * zs[j];
            v[iv[a]] = s;
        }
    }
    return rc;
}
