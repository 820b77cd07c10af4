/*
 * bdf_sample.c - the BDF's restart at a discrete controller's sample.
 *
 * At a sampling instant t_s the held outputs u jump; q, v and the element
 * states z are continuous, their derivatives jump.  Restarting the history
 * at order 1 there (the first version) cost the BDF 7 steps per sample on
 * the 1 kHz arm: BDF1 cannot follow the fast transient that the jump starts
 * (a' of several hundred times a there).  Here the history stays: a past
 * point at t_s + tau (tau < 0) is moved onto the motion that the new
 * outputs would have followed up to t_s, which differs from the old one by
 * the Taylor terms of the jumps:
 *
 *     q += tau^2/2 da + tau^3/6 da',   v += tau da + tau^2/2 da',
 *     z += tau dz' + tau^2/2 dz'',     lam += dlam,
 *
 * da = a+ - a-, da' = a+' - a-' the jumps of the acceleration and of its
 * rate along each motion (and the same for z').  The accelerations are the
 * consistent ones under each set of outputs (mbs_accelerations), the rates
 * forward differences along each motion over eps = EPS_H x the history's
 * mean step.
 * Left out: tau^3/6 da'' in v (tau^4/24 in q), i.e. (tau lambda)^2 / 6
 * relative to the jump's own term, lambda the rate of the transient (500
 * 1/s on the arm, tau up to 1 ms).  The multipliers are predictions only
 * (Newton's start), so their shift by the jump is enough.
 *
 * With da'' as well (second differences along each motion, two more
 * acceleration solves a side): 29 % fewer steps at tolerance 1e-8 but 50 %
 * more CPU at 1e-4 (docs/actuators.md); left out.
 */
#include "mbs/integrate/bdf_sample.h"

#include <math.h>
#include <string.h>

/* the difference step of the rates, relative to the history's mean step: small
 * against the history's span (the truncation, eps/2 a'', against the
 * terms kept) and large against the accelerations' solve tolerance (1e-10
 * relative: noise 1e-10 |a| / eps in the rate, times tau^2 / 2) */
#define EPS_H 0.1

size_t mbs_bdf_sample_size(const mbs_dae_form *f, const mbs_model *m)
{
    size_t n = (size_t)f->n, ne = (size_t)(f->ne > 0 ? f->ne : 1), nz = (size_t)m->nz;
    return 6 * n + 2 * ne + 5 * nz + (size_t)m->nctrl + 1;
}

/* One side of the jump, under the outputs in d->ctrl_y, at the sample's
 * state (x, v, z, t): the consistent accelerations a and multipliers lam,
 * the states' rates zd, and the rates of a and zd along the motion (ad,
 * zdd: a forward difference over eps).  d->x, v, z are left at the
 * sample's, d->a and d->lam at this side's. */
static int s_side(const mbs_dae_form *f, const mbs_model *m, mbs_data *d, const double *x, const double *v, const double *z, double t,
                  double eps, double *a, double *lam, double *zd, double *ad, double *zdd)
{
    int n = f->n, ne = f->ne, nz = m->nz;
    /* at the sample */
    if (f->accelerations(f->ctx, t)) return MBS_ESINGULAR;
    memcpy(a, d->a, sizeof(double) * (size_t)n);
    if (ne > 0) memcpy(lam, d->lam, sizeof(double) * (size_t)ne);
    if (nz > 0) f->zrate(f->ctx, x, v, z, t, zd);
    /* eps along the motion */
    for (int i = 0; i < n; i++) {
        d->x[i] = x[i] + eps * v[i] + 0.5 * eps * eps * a[i];
        d->v[i] = v[i] + eps * a[i];
    }
    for (int q = 0; q < nz; q++) d->z[q] = z[q] + eps * zd[q];
    if (f->accelerations(f->ctx, t + eps)) return MBS_ESINGULAR;
    for (int i = 0; i < n; i++) ad[i] = (d->a[i] - a[i]) / eps;
    if (nz > 0) {
        f->zrate(f->ctx, d->x, d->v, d->z, t + eps, zdd);
        for (int q = 0; q < nz; q++) zdd[q] = (zdd[q] - zd[q]) / eps;
    }
    /* back to the sample's state */
    memcpy(d->x, x, sizeof(double) * (size_t)n);
    memcpy(d->v, v, sizeof(double) * (size_t)n);
    if (nz > 0) memcpy(d->z, z, sizeof(double) * (size_t)nz);
    memcpy(d->a, a, sizeof(double) * (size_t)n);
    if (ne > 0) memcpy(d->lam, lam, sizeof(double) * (size_t)ne);
    return 0;
}

int mbs_bdf_sample(const mbs_dae_form *f, const mbs_model *m, mbs_data *d, double h)
{
    int n = f->n, ne = f->ne, nz = m->nz, nc = m->nctrl;
    size_t ne1 = (size_t)(ne > 0 ? ne : 1);
    /* scratch (mbs_bdf_sample_size): the state at the sample; before (m)
     * and after (p) the jump the accelerations, their rates, the
     * multipliers, the states' rates and theirs; the other outputs */
    double *x = d->bdf_smp, *v = x + n, *am = v + n, *adm = am + n, *ap = adm + n, *adp = ap + n;
    double *lam_m = adp + n, *lam_p = lam_m + ne1, *z = lam_p + ne1, *zdm = z + nz, *zddm = zdm + nz;
    double *zddp = zddm + nz, *zdp = zddp + nz, *y_other = zdp + nz;
    /* the sample; nothing to do when no held output changed */
    memcpy(y_other, d->ctrl_y, sizeof(double) * (size_t)nc);
    if (!f->sample || !f->sample(f->ctx)) return 0;
    memcpy(x, d->x, sizeof(double) * (size_t)n);
    memcpy(v, d->v, sizeof(double) * (size_t)n);
    if (nz > 0) memcpy(z, d->z, sizeof(double) * (size_t)nz);
    /* the mean step over the history (the last step alone may be a short
     * one cut to the sample, while the points to move lie further back) */
    double eps = EPS_H * (d->nhist >= 2 ? fmax(h, (d->t - d->th[d->nhist - 1]) / (d->nhist - 1)) : h);
    /* before the jump (the old outputs held), then after it (d->a and
     * d->lam stay there) */
    for (int c = 0; c < nc; c++) {
        double y = d->ctrl_y[c];
        d->ctrl_y[c] = y_other[c];
        y_other[c] = y;
    }
    if (s_side(f, m, d, x, v, z, d->t, eps, am, lam_m, zdm, adm, zddm)) return MBS_ESINGULAR;
    memcpy(d->ctrl_y, y_other, sizeof(double) * (size_t)nc);
    if (s_side(f, m, d, x, v, z, d->t, eps, ap, lam_p, zdp, adp, zddp)) return MBS_ESINGULAR;
    /* the past points onto the motion under the new outputs */
    for (int j = 1; j < d->nhist; j++) {
        double tau = d->th[j] - d->t, t2 = 0.5 * tau * tau, t3 = t2 * tau / 3;
        for (int i = 0; i < n; i++) {
            double da = ap[i] - am[i], dad = adp[i] - adm[i];
            d->qh[j][i] += t2 * da + t3 * dad;
            d->vh[j][i] += tau * da + t2 * dad;
        }
        for (int q = 0; q < nz; q++) d->zh[j][q] += tau * (zdp[q] - zdm[q]) + t2 * (zddp[q] - zddm[q]);
        for (int i = 0; i < ne; i++) d->lh[j][i] += lam_p[i] - lam_m[i];
    }
    if (nz > 0) memcpy(d->zd, zdp, sizeof(double) * (size_t)nz);
    memcpy(d->ha, d->a, sizeof(double) * (size_t)n);
    /* the constraints at the sample's state again (the differences left
     * them at a moved one) */
    f->constraints(f->ctx, d->x, d->t, d->phi, d->jac);
    return 1;
}
