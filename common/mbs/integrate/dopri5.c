/*
 * dopri5.c - the Dormand-Prince 5(4) tableau and one step (see dopri5.h).
 */
#include "mbs/integrate/dopri5.h"

#include <math.h>

#include "mbs/model/accuracy.h"
#include "mbs/dynamics/force.h"
#include <string.h>

const double mbs_dp5_c[7] = {0, 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9, 1, 1};
const double mbs_dp5_a[7][6] = {
    {0},
    {1.0 / 5},
    {3.0 / 40, 9.0 / 40},
    {44.0 / 45, -56.0 / 15, 32.0 / 9},
    {19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729},
    {9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656},
    {35.0 / 384, 0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84}};
const double mbs_dp5_e[7] = {71.0 / 57600, 0, -71.0 / 16695, 71.0 / 1920, -17253.0 / 339200, 22.0 / 525, -1.0 / 40};
void mbs_dopri5_slots(const mbs_data *d, int n, double *kx[7], double *kv[7])
{
    for (int s = 0; s < 7; s++) { kx[s] = d->rk + (size_t)(2 * s) * n; kv[s] = d->rk + (size_t)(2 * s + 1) * n; }
}

int mbs_dopri5_stages(const mbs_model *m, mbs_data *d, double t, const double *x, const double *v, double h,
                      double *kx[7], double *kv[7], double *xs, double *vs, mbs_accel_fn accel, void *ctx)
{
    int n = m->nvar, nz = m->nz;
    for (int s = 1; s < 7; s++) {
        for (int i = 0; i < n; i++) {
            double sx = 0, sv = 0;
            for (int j = 0; j < s; j++) { sx += mbs_dp5_a[s][j] * kx[j][i]; sv += mbs_dp5_a[s][j] * kv[j][i]; }
            xs[i] = x[i] + h * sx;
            vs[i] = v[i] + h * sv;
        }
        /* element states at the stage, where the forces read them (d->z),
         * from the step's start d->zs */
        for (int k = 0; k < nz; k++) {
            double sz = 0;
            for (int j = 0; j < s; j++) sz += mbs_dp5_a[s][j] * d->zk[j * nz + k];
            d->z[k] = d->zs[k] + h * sz;
        }
        memcpy(kx[s], vs, sizeof(double) * (size_t)n);
        int rc = accel(m, d, t + mbs_dp5_c[s] * h, xs, vs, kv[s], ctx);
        if (rc) return rc;
        if (nz > 0) mbs_force_zrate(m, d, xs, vs, d->z, t + mbs_dp5_c[s] * h, d->zk + s * nz);
    }
    return 0;
}

double mbs_dopri5_error(int n, double h, double *kx[7], double *kv[7], const double *x, const double *v,
                        const double *xs, const double *vs, const mbs_tol *tol, int nz, const double *kz,
                        const double *z0, const double *z1)
{
    double e2 = 0;
    for (int i = 0; i < n; i++) {
        double ex = 0, ev = 0;
        for (int s = 0; s < 7; s++) { ex += mbs_dp5_e[s] * kx[s][i]; ev += mbs_dp5_e[s] * kv[s][i]; }
        ex *= h; ev *= h;
        double wx = mbs_tol_wx(tol, i, fmax(fabs(x[i]), fabs(xs[i])));
        double wv = mbs_tol_wv(tol, i, fmax(fabs(v[i]), fabs(vs[i])));
        e2 += (ex / wx) * (ex / wx) + (ev / wv) * (ev / wv);
    }
    /* element states: weights az + rtol |z| (accuracy.h) */
    for (int k = 0; k < nz; k++) {
        double ez = 0;
        for (int s = 0; s < 7; s++) ez += mbs_dp5_e[s] * kz[s * nz + k];
        ez *= h;
        double wz = tol->az[k] + tol->rtol * fmax(fabs(z0[k]), fabs(z1[k]));
        e2 += (ez / wz) * (ez / wz);
    }
    double en = sqrt(e2 / (2.0 * (n > 0 ? n : 1) + nz));
    return isfinite(en) ? en : 1e10;
}
