/*
 * ed_contacts.c - planar rigid contacts in the event-driven integrator:
 * contact points and their KKT rows in a fixed mode, event functions, the
 * per-step checks (ed_contacts.h; the impact and mode LCPs are in
 * ed_contacts_lcp.c, the orchestration in integrator_ed.c).
 *
 * Signs: the normal force lam_n >= 0 pushes B away from A along n (on B:
 * +lam_n n), so the generalized contact force is G_n^T lam_n + G_t^T lam_t
 * (docs/contacts.md).  The KKT unknown of a closed contact is y_n = -lam_n,
 * which keeps the constraint block symmetric like Phi_q^T lam:
 *     M a + Phi_q^T lam + G_n^T y_n (+ G_t^T y_t, stick) - (friction) = Q.
 * A sliding contact's friction lam_t = -mu sigma lam_n = mu sigma y_n is
 * linear in y_n: the column of y_n gets -mu sigma G_t in the rows of M
 * (nonsymmetric, as the clearance joint's slip friction).
 */
#include "mbs/integrate/ed_contacts.h"
#include "mbs/model/data.h"
#include "mbs/linalg/lcp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mbs_edc_init(const mbs_dae_form *f, const mbs_contact_rows *r, const mbs_model *m, mbs_edc *c, int col0, int nk)
{
    memset(c, 0, sizeof *c);
    int nc = m->spec->ncontact, np = 0;
    for (int k = 0; k < nc; k++) np += m->spec->contacts[k].law == MBS_LAW_RIGID;
    c->np = m->dim == 2 ? np : 0;
    c->n = f->n;
    c->rows = r;
    c->lscale = f->length_scale;
    c->col0 = col0;
    c->nk = nk;
    int p1 = c->np > 0 ? c->np : 1, ok = 1;
#define ALLOC(p, cnt) do { (p) = calloc((size_t)(cnt), sizeof *(p)); ok &= (p) != NULL; } while (0)
    ALLOC(c->pair, p1); ALLOC(c->state, p1); ALLOC(c->sigma, p1); ALLOC(c->insys, p1); ALLOC(c->has, p1);
    ALLOC(c->cand, p1); ALLOC(c->stickc, p1); ALLOC(c->pt, p1); ALLOC(c->dgv, 2 * p1);
    ALLOC(c->vn, p1); ALLOC(c->vt, p1); ALLOC(c->ln, p1); ALLOC(c->lt, p1); ALLOC(c->goff, p1); ALLOC(c->epst, p1);
    ALLOC(c->mu, p1); ALLOC(c->mus, p1); ALLOC(c->e, p1); ALLOC(c->xe, f->n + 1); ALLOC(c->grp, p1); ALLOC(c->fslip, p1);
    ALLOC(c->resp, (size_t)2 * p1 * (size_t)(nk + 1));
    ALLOC(c->pvars, p1); ALLOC(c->plist, p1); ALLOC(c->plp, p1);
    ALLOC(c->pcnt, p1); ALLOC(c->pcntp, p1); ALLOC(c->pcntm, p1);
    c->lmax = 4 * p1;
    ALLOC(c->idx, p1); ALLOC(c->W, 4 * p1 * p1);
    ALLOC(c->lM, (size_t)c->lmax * c->lmax); ALLOC(c->lq, c->lmax); ALLOC(c->lz, c->lmax); ALLOC(c->lw, c->lmax);
#undef ALLOC
    c->lwork = malloc(mbs_lcp_lemke_worksize(c->lmax));
    if (!ok || !c->lwork) return -1;
    int cap = 0;
    for (int k = 0, p = 0; k < nc && p < c->np; k++) {
        const mbs_contact_spec *C = &m->spec->contacts[k];
        if (C->law != MBS_LAW_RIGID) continue;
        c->pair[p] = k;
        c->pvars[p] = r->pair_vars(r->ctx, k);
        cap += r->max_points(r->ctx, k);
        c->mu[p] = C->friction;
        c->mus[p] = fmax(C->friction_static, C->friction);
        c->e[p] = C->restitution;
        c->sigma[p] = 1;
        p++;
    }
    /* redundant groups: pairs q < p sharing a shape whose other shapes are
     * on one body (the first such q gives the group) */
    for (int p = 0; p < c->np; p++) {
        const mbs_contact_spec *P = &m->spec->contacts[c->pair[p]];
        c->grp[p] = p;
        for (int q = 0; q < p && c->grp[p] == p; q++) {
            const mbs_contact_spec *Q = &m->spec->contacts[c->pair[q]];
            for (int s = 0; s < 2; s++)
                if (P->shape[s] == Q->shape[s] &&
                    m->spec->shapes[P->shape[1 - s]].body == m->spec->shapes[Q->shape[1 - s]].body)
                    c->grp[p] = c->grp[q];
        }
    }
    /* the points of the pairs evaluated at one configuration */
    int c1 = cap > 0 ? cap : 1;
    c->buf = calloc((size_t)c1, sizeof *c->buf);
    c->bufp = calloc((size_t)c1, sizeof *c->bufp);
    c->bufm = calloc((size_t)c1, sizeof *c->bufm);
    if (!c->buf || !c->bufp || !c->bufm) return -1;
    /* regularisation of the contact rows: y_c -> G a - eps y_c, so that
     * redundant contact constraints (two sticking corners of one block give
     * the same tangential condition) keep the KKT matrix regular; eps is
     * 1e-12 of the largest inverse mass diagonal, which changes the contact
     * accelerations by 1e-12 of a unit force's effect */
    double mmin = INFINITY;
    /* (M(q) of mass_eval: its scale, the mean diagonal, stands in) */
    if (!f->mass_val) mmin = f->mass_scale > 0 ? f->mass_scale : INFINITY;
    for (int i = 0; f->mass_val && i < f->n; i++)
        for (int k = f->mass_ptr[i]; k < f->mass_ptr[i + 1]; k++)
            if (f->mass_col[k] == i && f->mass_val[k] > 0) mmin = fmin(mmin, f->mass_val[k]);
    c->eps = isfinite(mmin) ? 1e-12 / mmin : 1e-12;
    for (int p = 0; p < c->np; p++) c->epst[p] = c->eps;
    return 0;
}

void mbs_edc_free(mbs_edc *c)
{
    free(c->pair); free(c->state); free(c->sigma); free(c->insys); free(c->has); free(c->cand); free(c->stickc);
    free(c->pt); free(c->dgv); free(c->vn); free(c->vt); free(c->ln); free(c->lt); free(c->goff); free(c->epst);
    free(c->mu); free(c->mus); free(c->e); free(c->xe); free(c->grp); free(c->fslip); free(c->resp); free(c->idx); free(c->W);
    free(c->lM); free(c->lq); free(c->lz); free(c->lw); free(c->lwork);
    free(c->pvars); free(c->plist); free(c->plp); free(c->pcnt); free(c->pcntp); free(c->pcntm);
    free(c->buf); free(c->bufp); free(c->bufm);
    memset(c, 0, sizeof *c);
}

double mbs_edc_gdot(const mbs_edc *c, int p, int r, const double *u)
{
    const mbs_rpoint *P = &c->pt[p];
    const int *vars = c->pvars[p];
    double s = 0;
    for (int j = 0; j < P->nv; j++) s += P->G[r][j] * u[vars[j]];
    return s;
}

const char *mbs_edc_name(const mbs_model *m, const mbs_edc *c, int p, char *buf, size_t size)
{
    const mbs_contact_spec *C = &m->spec->contacts[c->pair[p]];
    snprintf(buf, size, "'%s' - '%s'", m->spec->shapes[C->shape[0]].name, m->spec->shapes[C->shape[1]].name);
    return buf;
}

void mbs_edc_eval(const mbs_model *m, const mbs_data *d, mbs_edc *c, const double *x, const double *v)
{
    int use_active = m->spec->solver.contact_deactivation && d->c_ready;
    int n = c->n, nl = 0, nd = 0;
    const mbs_contact_rows *r = c->rows;
    /* the pairs in the system, their points at x in one call */
    for (int p = 0; p < c->np; p++) {
        int k = c->pair[p];
        c->insys[p] = !use_active || d->c_inset[k] || c->state[p] != MBS_EDC_OPEN;
        c->has[p] = 0;
        if (!c->insys[p]) continue;
        c->plist[nl] = k;
        c->plp[nl++] = p;
    }
    if (nl == 0) return;
    r->points(r->ctx, x, ++c->stamp, c->plist, nl, NULL, c->buf, c->pcnt, NULL);
    for (int j = 0, off = 0; j < nl; off += c->pcnt[j], j++) {
        int p = c->plp[j];
        if (c->pcnt[j] < 1) {
            /* a wall the point does not project onto: open, far */
            c->pt[p].g = INFINITY;
            continue;
        }
        c->pt[p] = c->buf[off];
        c->has[p] = 1;
        c->vn[p] = mbs_edc_gdot(c, p, 0, v);
        c->vt[p] = mbs_edc_gdot(c, p, 1, v);
        c->dgv[2 * p] = c->dgv[2 * p + 1] = 0;
        if (c->state[p] == MBS_EDC_OPEN && !c->cand[p]) continue;
        /* (nd <= j: the list is overwritten behind the reading) */
        c->plist[nd] = c->pair[p];
        c->plp[nd++] = p;
    }
    if (nd == 0) return;
    /* dG v by central differences of the rows along v: the rows are the
     * exact gap gradient (envelope theorem), so d/dt (G v) - G a = v^T
     * (dG/dx) v; the step moves the fastest coordinate by 1e-6 of the
     * model's length (truncation ~1e-12, round-off ~1e-10 relative); the
     * pairs closed or candidates, their points at x +- h v in one call each */
    double vmax = 0;
    for (int i = 0; i < n; i++) vmax = fmax(vmax, fabs(v[i]));
    if (vmax == 0) return;
    double h = 1e-6 * c->lscale / vmax;
    for (int i = 0; i < n; i++) c->xe[i] = x[i] + h * v[i];
    r->points(r->ctx, c->xe, ++c->stamp, c->plist, nd, NULL, c->bufp, c->pcntp, NULL);
    for (int i = 0; i < n; i++) c->xe[i] = x[i] - h * v[i];
    r->points(r->ctx, c->xe, ++c->stamp, c->plist, nd, NULL, c->bufm, c->pcntm, NULL);
    for (int j = 0, op = 0, om = 0; j < nd; op += c->pcntp[j], om += c->pcntm[j], j++) {
        if (c->pcntp[j] != 1 || c->pcntm[j] != 1) continue;
        int p = c->plp[j];
        const mbs_rpoint *Pp = &c->bufp[op], *Pm = &c->bufm[om];
        const int *vars = c->pvars[p];
        for (int rr = 0; rr < 2; rr++) {
            double s = 0;
            for (int l = 0; l < Pp->nv; l++) s += (Pp->G[rr][l] - Pm->G[rr][l]) * v[vars[l]];
            c->dgv[2 * p + rr] = s / (2 * h);
        }
    }
}

/* Add value val at (i, j) of K (scattered over the pair's variables). */
static void s_row(const mbs_edc *c, int p, int r, int col, double s, mbs_mat *K, int sym)
{
    const mbs_rpoint *P = &c->pt[p];
    const int *vars = c->pvars[p];
    for (int j = 0; j < P->nv; j++) {
        double g = P->G[r][j];
        if (g == 0) continue;
        mbs_mat_add(K, vars[j], col, s * g);
        if (sym) mbs_mat_add(K, col, vars[j], g);
    }
}

void mbs_edc_assemble(mbs_edc *c, mbs_mat *K, double *rhs, double ab, double bb)
{
    for (int p = 0; p < c->np; p++) {
        int cn = c->col0 + 2 * p, ct = cn + 1, st = c->has[p] ? c->state[p] : MBS_EDC_OPEN;
        rhs[cn] = rhs[ct] = 0;
        if (st == MBS_EDC_OPEN) {
            mbs_mat_add(K, cn, cn, 1);
            mbs_mat_add(K, ct, ct, 1);
            continue;
        }
        const mbs_rpoint *P = &c->pt[p];
        /* normal: G_n a = -dG_n v - 2 alpha g' - beta^2 g */
        s_row(c, p, 0, cn, 1.0, K, 1);
        mbs_mat_add(K, cn, cn, -c->eps);
        rhs[cn] = -c->dgv[2 * p] - 2 * ab * c->vn[p] - bb * bb * P->g;
        if (st == MBS_EDC_STICK) {
            s_row(c, p, 1, ct, 1.0, K, 1);
            mbs_mat_add(K, ct, ct, -c->epst[p]);
            rhs[ct] = -c->dgv[2 * p + 1] - 2 * ab * c->vt[p];
        } else {
            mbs_mat_add(K, ct, ct, 1);
            /* sliding friction lam_t = mu sigma y_n along t */
            if (c->mu[p] > 0) s_row(c, p, 1, cn, -c->mu[p] * c->sigma[p], K, 0);
        }
    }
}

void mbs_edc_forces(mbs_edc *c, const double *sol)
{
    for (int p = 0; p < c->np; p++) {
        int cn = c->col0 + 2 * p, st = c->has[p] ? c->state[p] : MBS_EDC_OPEN;
        c->ln[p] = st == MBS_EDC_OPEN ? 0 : -sol[cn];
        c->lt[p] = st == MBS_EDC_STICK ? -sol[cn + 1] : st == MBS_EDC_SLIP ? -c->mu[p] * c->sigma[p] * c->ln[p] : 0;
    }
}

int mbs_edc_resplit(mbs_edc *c)
{
    int ns = 0, again = 0;
    double lref = 0;
    for (int p = 0; p < c->np; p++)
        if (c->has[p] && c->state[p] == MBS_EDC_STICK) { ns++; lref = fmax(lref, c->mus[p] * c->ln[p]); }
    if (ns < 2 || !(lref > 0)) return 0;
    for (int p = 0; p < c->np; p++) {
        if (!c->has[p] || c->state[p] != MBS_EDC_STICK) continue;
        double e = c->eps * lref / fmax(c->mus[p] * c->ln[p], 1e-6 * lref);
        if (fabs(e - c->epst[p]) > 1e-9 * c->epst[p]) again = 1;
        c->epst[p] = e;
    }
    return again;
}

double mbs_edc_group_lt(const mbs_edc *c, int p)
{
    if (c->state[p] != MBS_EDC_STICK) return c->lt[p];
    double s = 0;
    for (int q = 0; q < c->np; q++)
        if (c->grp[q] == c->grp[p] && c->has[q] && c->state[q] == MBS_EDC_STICK)
            s += c->lt[q] * (c->pt[q].t[0][0] * c->pt[p].t[0][0] + c->pt[q].t[0][1] * c->pt[p].t[0][1] >= 0 ? 1 : -1);
    return s;
}

/* The stick reserve of p's group (see mbs_edc_events). */
static double s_reserve(const mbs_edc *c, int p)
{
    double cap = 0;
    for (int q = 0; q < c->np; q++)
        if (c->grp[q] == c->grp[p] && c->has[q] && c->state[q] == MBS_EDC_STICK) cap += c->mus[q] * c->ln[q];
    return cap - fabs(mbs_edc_group_lt(c, p));
}

void mbs_edc_events(const mbs_edc *c, double *g)
{
    for (int p = 0; p < c->np; p++) {
        if (!c->has[p] || c->state[p] == MBS_EDC_OPEN) {
            g[2 * p] = c->has[p] ? c->pt[p].g - c->goff[p] : 1e300;
            g[2 * p + 1] = 1e300;
            continue;
        }
        g[2 * p] = c->ln[p];
        g[2 * p + 1] = c->state[p] == MBS_EDC_STICK ? s_reserve(c, p) : c->sigma[p] * c->vt[p];
    }
}

int mbs_edc_event_exists(const mbs_edc *c, int i)
{
    int p = i / 2;
    if (!c->has[p]) return 0;
    if (i % 2 == 0) return 1;
    return c->state[p] != MBS_EDC_OPEN && c->mu[p] > 0;
}

double mbs_edc_check(mbs_edc *c, const double *v, double vfloor, double *pen)
{
    double vmax = vfloor, err = 0, L = c->lscale > 0 ? c->lscale : 1;
    for (int i = 0; i < c->n; i++) vmax = fmax(vmax, fabs(v[i]));
    for (int p = 0; p < c->np; p++) c->nmax = fmax(c->nmax, fabs(c->ln[p]));
    /* forces relative to the largest normal force seen (1e-9 of it is
     * round-off of forces crossing zero at located events); gaps relative
     * to the model's length; velocities to the largest velocity, at least vfloor */
    double fs = 1e-9 * c->nmax + 1e-300;
    for (int p = 0; p < c->np; p++) {
        if (!c->has[p]) continue;
        double g = c->pt[p].g, ln = c->ln[p], lt = c->lt[p], mu = c->mu[p];
        *pen = fmax(*pen, -g);
        if (c->state[p] == MBS_EDC_OPEN) {
            err = fmax(err, fmax(0, -(g - c->goff[p])) / L);
            continue;
        }
        /* the friction bound: mu_s while sticking, mu while sliding */
        if (c->state[p] == MBS_EDC_STICK) mu = c->mus[p];
        double scale = mu * ln + fs;
        err = fmax(err, fabs(g) / L);
        err = fmax(err, fmax(0, -ln) / (c->nmax + 1e-300) - 1e-9);
        err = fmax(err, fmax(0, fabs(lt) - mu * fmax(ln, 0)) / scale);
        if (c->state[p] == MBS_EDC_STICK) err = fmax(err, fabs(c->vt[p]) / vmax);
        else if (mu > 0) err = fmax(err, fmax(0, -c->sigma[p] * c->vt[p]) / vmax);
    }
    return err;
}
