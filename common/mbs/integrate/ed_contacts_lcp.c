/*
 * ed_contacts_lcp.c - the two complementarity problems of planar rigid
 * contacts at an event of the event-driven integrator (ed_contacts.h):
 *
 * Impact (velocity level).  With gamma- the relative velocities before and
 * Lambda the impulses, gamma+ = gamma- + W Lambda, W = G M~^-1 G^T (the
 * constrained inverse through the KKT responses).  Per candidate point the
 * Stewart-Trinkle unknowns (Lambda_n, beta+, beta-, s), Lambda_t =
 * beta+ - beta-:
 *   w_n  = gamma_n+ + e gamma_n-        >= 0  _|_ Lambda_n   (Newton)
 *   w_+- = +-gamma_t+ + s              >= 0  _|_ beta+-
 *   w_s  = mu Lambda_n - beta+ - beta- >= 0  _|_ s           (Coulomb)
 * (Stewart & Trinkle 1996; exact Coulomb in the plane).
 *
 * Mode (acceleration level, Glocker & Pfeiffer, "Multibody Dynamics with
 * Unilateral Contacts", 1996).  With the contact accelerations
 * acc = A0 + W lam (A0 with every candidate open), per candidate
 *   acc_n >= 0 _|_ lam_n >= 0,
 * and for a stick candidate (|v_t| ~ 0, mu > 0) the split
 *   acc_t = xi+ - xi-,  lam_t = lamR - mu lam_n,  lamL = 2 mu lam_n - lamR,
 *   (lamR, xi-) >= 0 _|_ (xi+, lamL) >= 0;
 * a sliding candidate has lam_t = -mu sigma lam_n.  Unknowns
 * z = (lam_n, lamR, xi-), w = (acc_n, xi+, lamL).
 */
#include "mbs/integrate/ed_contacts.h"
#include "mbs/model/data.h"
#include "mbs/linalg/lcp.h"

#include <math.h>
#include <string.h>

/* Candidates into c->idx; returns their number. */
static int s_cands(const mbs_edc *c)
{
    int mc = 0;
    for (int p = 0; p < c->np; p++)
        if (c->cand[p] && c->has[p]) c->idx[mc++] = p;
    return mc;
}

/* W (2 mc x 2 mc, row-major over (point, component)) from the responses,
 * plus reg (the regularisation of the KKT rows, for the mode LCP that must
 * agree with the phases) on the diagonal. */
static void s_delassus(const mbs_model *m, mbs_edc *c, int mc, double reg)
{
    int L = 2 * mc;
    for (int a = 0; a < L; a++) {
        int pa = c->idx[a / 2], ra = a % 2;
        for (int b = 0; b < L; b++) {
            int pb = c->idx[b / 2], rb = b % 2;
            const double *r = c->resp + (size_t)(2 * pb + rb) * (size_t)c->nk;
            c->W[a * L + b] = mbs_edc_gdot(c, pa, ra, r) + (a == b ? reg : 0);
        }
    }
}

static int s_fail(const mbs_model *m, mbs_data *d, mbs_edc *c, int mc, double t, const char *what, int L,
                  const mbs_lcp_status *st, mbs_errlist *err)
{
    char nm[2 * MBS_NAME_MAX + 16];
    mbs_err_add(err, "", "t = %.9g: the %s LCP of the rigid contacts (%d unknowns; first contact %s) has no "
                "solution found by Lemke: %s", t, what, L, mbs_edc_name(m, c, c->idx[0], nm, sizeof nm),
                st->message);
    (void)d; (void)mc;
    return MBS_EDIVERGE;
}

int mbs_edc_impact(const mbs_model *m, mbs_data *d, mbs_edc *c, double t, double *v, double vzeno,
                   mbs_errlist *err)
{
    int mc = s_cands(c), n = c->n;
    if (mc == 0) return 0;
    s_delassus(m, c, mc, 0);
    int L = 0, u[64];
    for (int i = 0; i < mc && i < 64; i++) { u[i] = L; L += c->mu[c->idx[i]] > 0 ? 4 : 1; }
    if (mc > 64 || L > c->lmax) {
        mbs_err_add(err, "", "t = %.9g: more than 64 rigid contacts at one impact", t);
        return MBS_EDIVERGE;
    }
    double *M = c->lM, *q = c->lq;
    memset(M, 0, sizeof(double) * (size_t)L * (size_t)L);
    int W2 = 2 * mc;
    for (int i = 0; i < mc; i++) {
        int p = c->idx[i];
        double gn = c->vn[p], gt = c->vt[p], e = gn < -vzeno ? c->e[p] : 0;
        int fi = c->mu[p] > 0;
        /* rows: normal, +t, -t, slack; columns likewise */
        for (int x = 0; x < (fi ? 3 : 1); x++) {
            int row = u[i] + x, cr = x == 0 ? 0 : 1;
            double sr = x == 2 ? -1 : 1;
            q[row] = x == 0 ? gn + e * fmin(gn, 0) : sr * gt;
            for (int j = 0; j < mc; j++) {
                int fj = c->mu[c->idx[j]] > 0;
                for (int y = 0; y < (fj ? 3 : 1); y++) {
                    int cc = y == 0 ? 0 : 1;
                    double sc = y == 2 ? -1 : 1;
                    M[row + L * (u[j] + y)] = sr * sc * c->W[(2 * i + cr) * W2 + 2 * j + cc];
                }
            }
        }
        if (fi) {
            int up = u[i] + 1, um = u[i] + 2, us = u[i] + 3;
            M[up + L * us] = M[um + L * us] = 1;
            M[us + L * u[i]] = c->mu[p];
            M[us + L * up] = M[us + L * um] = -1;
            q[us] = 0;
        }
    }
    mbs_lcp_status st;
    int rc = mbs_lcp_lemke(L, M, q, c->lz, c->lw, NULL, c->lwork, &st);
    mbs_note_lcp(d, L, rc != MBS_LCP_SOLVED);
    if (rc != MBS_LCP_SOLVED) return s_fail(m, d, c, mc, t, "impact", L, &st, err);
    /* v+ = v- + sum of the responses times the impulses */
    for (int i = 0; i < mc; i++) {
        int p = c->idx[i], fi = c->mu[p] > 0;
        double Ln = c->lz[u[i]], Lt = fi ? c->lz[u[i] + 1] - c->lz[u[i] + 2] : 0;
        c->ln[p] = Ln;
        c->lt[p] = Lt;
        const double *rn = c->resp + (size_t)(2 * p) * (size_t)c->nk, *rt = rn + c->nk;
        for (int k = 0; k < n; k++) v[k] += Ln * rn[k] + Lt * rt[k];
    }
    return 0;
}

int mbs_edc_mode_lcp(const mbs_model *m, mbs_data *d, mbs_edc *c, double t, const double *a0, mbs_errlist *err)
{
    int mc = s_cands(c);
    if (mc == 0) return 0;
    if (mc > 64) {
        mbs_err_add(err, "", "t = %.9g: more than 64 closed rigid contacts in one mode LCP", t);
        return MBS_EDIVERGE;
    }
    s_delassus(m, c, mc, c->eps);
    /* stick candidates get the columns lamR (mc + s) and xi- (mc + ms + s) */
    int ms = 0, sidx[64];
    double T[64], A0[128], ascale = 1e-12;
    for (int i = 0; i < mc; i++) {
        int p = c->idx[i];
        sidx[i] = c->stickc[p] && c->mu[p] > 0 ? ms++ : -1;
        /* a stick candidate's cone is mu_s wide; a sliding one's friction is mu */
        T[i] = sidx[i] >= 0 ? -c->mus[p] : -c->mu[p] * c->sigma[p];
        for (int r = 0; r < 2; r++) {
            A0[2 * i + r] = mbs_edc_gdot(c, p, r, a0) + c->dgv[2 * p + r];
            ascale = fmax(ascale, fabs(A0[2 * i + r]));
        }
    }
    int L = mc + 2 * ms, W2 = 2 * mc;
    double *M = c->lM, *q = c->lq;
    memset(M, 0, sizeof(double) * (size_t)L * (size_t)L);
    /* row of acc_x (x = 2 i + r) in the unknowns z */
    for (int i = 0; i < mc; i++) {
        for (int r = 0; r < 2; r++) {
            int row = r == 0 ? i : sidx[i] >= 0 ? mc + sidx[i] : -1;
            if (row < 0) continue;
            const double *Wr = c->W + (size_t)(2 * i + r) * W2;
            q[row] = A0[2 * i + r];
            for (int j = 0; j < mc; j++) {
                M[row + L * j] = Wr[2 * j] + Wr[2 * j + 1] * T[j];
                if (sidx[j] >= 0) M[row + L * (mc + sidx[j])] = Wr[2 * j + 1];
            }
            /* xi+ = acc_t + xi- */
            if (r == 1) M[row + L * (mc + ms + sidx[i])] = 1;
        }
        if (sidx[i] >= 0) {
            /* lamL = 2 mu_s lam_n - lamR */
            int row = mc + ms + sidx[i];
            M[row + L * i] = 2 * c->mus[c->idx[i]];
            M[row + L * (mc + sidx[i])] = -1;
            q[row] = 0;
        }
    }
    mbs_lcp_status st;
    int rc = mbs_lcp_lemke(L, M, q, c->lz, c->lw, NULL, c->lwork, &st);
    mbs_note_lcp(d, L, rc != MBS_LCP_SOLVED);
    if (rc != MBS_LCP_SOLVED) return s_fail(m, d, c, mc, t, "contact mode", L, &st, err);
    /* states: a positive normal acceleration opens the contact; a non-zero
     * xi+ or xi- (relative to the accelerations without the contacts) slides
     * a stick candidate in that direction */
    double tol = 1e-9 * ascale, lref = 0;
    for (int i = 0; i < mc; i++)
        if (sidx[i] >= 0) lref = fmax(lref, c->mus[c->idx[i]] * c->lz[i]);
    for (int i = 0; i < mc; i++) {
        int p = c->idx[i];
        if (c->lw[i] > tol) {
            c->state[p] = MBS_EDC_OPEN;
            c->goff[p] = fmin(c->pt[p].g, 0);
            continue;
        }
        if (sidx[i] < 0) { c->state[p] = MBS_EDC_SLIP; continue; }
        double xp = c->lw[mc + sidx[i]], xm = c->lz[mc + ms + sidx[i]];
        if (fmax(xp, xm) <= tol) {
            /* sticking: redundant tangent rows (two corners of one block)
             * split the friction in proportion to 1 / epst; weighting by the
             * cone capacities mu lam_n gives the split farthest inside the
             * cones (any split within them is a solution: the friction of
             * a sticking block is statically indeterminate) */
            double cap = c->mus[p] * c->lz[i];
            c->state[p] = MBS_EDC_STICK;
            c->epst[p] = lref > 0 ? c->eps * lref / fmax(cap, 1e-6 * lref) : c->eps;
        }
        else { c->state[p] = MBS_EDC_SLIP; c->sigma[p] = xp > xm ? 1 : -1; }
    }
    return 0;
}
