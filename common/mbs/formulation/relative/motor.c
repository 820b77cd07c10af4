/*
 * motor.c - motor algebra (motor.h).
 */
#include "mbs/formulation/relative/motor.h"

#include <string.h>

static void s_cross(const double a[3], const double b[3], double c[3])
{
    double x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2], z = a[0] * b[1] - a[1] * b[0];
    c[0] = x; c[1] = y; c[2] = z;
}

static double s_dot(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* y = E x (trans = 0) or E^T x (trans = 1); y may alias x */
static void s_rot(const double E[9], int trans, const double x[3], double y[3])
{
    double o[3];
    for (int i = 0; i < 3; i++)
        o[i] = trans ? E[i] * x[0] + E[3 + i] * x[1] + E[6 + i] * x[2]
                     : E[3 * i] * x[0] + E[3 * i + 1] * x[1] + E[3 * i + 2] * x[2];
    memcpy(y, o, sizeof o);
}

mbs_xform mbs_xf_identity(void)
{
    mbs_xform x = {{1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 0}};
    return x;
}

mbs_xform mbs_xf_make(const double E[9], const double r[3])
{
    mbs_xform x;
    memcpy(x.E, E, sizeof x.E);
    memcpy(x.r, r, sizeof x.r);
    return x;
}

mbs_xform mbs_xf_compose(const mbs_xform *c_from_b, const mbs_xform *b_from_a)
{
    /* x_C = E2 (E1 (x_A - r1) - r2) = E2 E1 (x_A - (r1 + E1^T r2)) */
    mbs_xform x;
    const double *E2 = c_from_b->E, *E1 = b_from_a->E;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            x.E[3 * i + j] = E2[3 * i] * E1[j] + E2[3 * i + 1] * E1[3 + j] + E2[3 * i + 2] * E1[6 + j];
    s_rot(E1, 1, c_from_b->r, x.r);
    for (int i = 0; i < 3; i++) x.r[i] += b_from_a->r[i];
    return x;
}

mbs_xform mbs_xf_inverse(const mbs_xform *x)
{
    /* x_A = E^T x_B + r: rotation E^T, A's origin at -E r in B */
    mbs_xform y;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) y.E[3 * i + j] = x->E[3 * j + i];
    s_rot(x->E, 0, x->r, y.r);
    for (int i = 0; i < 3; i++) y.r[i] = -y.r[i];
    return y;
}

mbs_twist mbs_xf_twist(const mbs_xform *x, const mbs_twist *t)
{
    mbs_twist o;
    double rw[3];
    s_cross(x->r, t->w, rw);
    for (int i = 0; i < 3; i++) o.v[i] = t->v[i] - rw[i];
    s_rot(x->E, 0, o.v, o.v);
    s_rot(x->E, 0, t->w, o.w);
    return o;
}

mbs_wrench mbs_xf_wrench(const mbs_xform *x, const mbs_wrench *f)
{
    mbs_wrench o;
    double rf[3];
    s_cross(x->r, f->f, rf);
    for (int i = 0; i < 3; i++) o.n[i] = f->n[i] - rf[i];
    s_rot(x->E, 0, o.n, o.n);
    s_rot(x->E, 0, f->f, o.f);
    return o;
}

mbs_twist mbs_xf_twist_inv(const mbs_xform *x, const mbs_twist *t)
{
    mbs_twist o;
    double rw[3];
    s_rot(x->E, 1, t->w, o.w);
    s_rot(x->E, 1, t->v, o.v);
    s_cross(x->r, o.w, rw);
    for (int i = 0; i < 3; i++) o.v[i] += rw[i];
    return o;
}

mbs_wrench mbs_xf_wrench_inv(const mbs_xform *x, const mbs_wrench *f)
{
    mbs_wrench o;
    double rf[3];
    s_rot(x->E, 1, f->f, o.f);
    s_rot(x->E, 1, f->n, o.n);
    s_cross(x->r, o.f, rf);
    for (int i = 0; i < 3; i++) o.n[i] += rf[i];
    return o;
}

double mbs_power(const mbs_twist *t, const mbs_wrench *f) { return s_dot(t->w, f->n) + s_dot(t->v, f->f); }

mbs_twist mbs_twist_cross(const mbs_twist *a, const mbs_twist *b)
{
    mbs_twist o;
    double p[3], q[3];
    s_cross(a->w, b->v, p);
    s_cross(a->v, b->w, q);
    s_cross(a->w, b->w, o.w);
    for (int i = 0; i < 3; i++) o.v[i] = p[i] + q[i];
    return o;
}

mbs_wrench mbs_twist_cross_wrench(const mbs_twist *a, const mbs_wrench *g)
{
    mbs_wrench o;
    double p[3], q[3];
    s_cross(a->w, g->n, p);
    s_cross(a->v, g->f, q);
    s_cross(a->w, g->f, o.f);
    for (int i = 0; i < 3; i++) o.n[i] = p[i] + q[i];
    return o;
}

mbs_twist mbs_twist_axpy(double s, const mbs_twist *a, const mbs_twist *b)
{
    mbs_twist o;
    for (int i = 0; i < 3; i++) { o.w[i] = s * a->w[i] + b->w[i]; o.v[i] = s * a->v[i] + b->v[i]; }
    return o;
}

mbs_wrench mbs_wrench_axpy(double s, const mbs_wrench *a, const mbs_wrench *b)
{
    mbs_wrench o;
    for (int i = 0; i < 3; i++) { o.n[i] = s * a->n[i] + b->n[i]; o.f[i] = s * a->f[i] + b->f[i]; }
    return o;
}

void mbs_twist_point_velocity(const mbs_twist *t, const double p[3], double vp[3])
{
    double wp[3];
    s_cross(t->w, p, wp);
    for (int i = 0; i < 3; i++) vp[i] = t->v[i] + wp[i];
}

mbs_twist mbs_axis_revolute(const double p[3], const double u[3])
{
    mbs_twist t;
    memcpy(t.w, u, sizeof t.w);
    s_cross(p, u, t.v);
    return t;
}

mbs_twist mbs_axis_prismatic(const double u[3])
{
    mbs_twist t = {{0, 0, 0}, {u[0], u[1], u[2]}};
    return t;
}

mbs_twist mbs_axis_helical(const double p[3], const double u[3], double pitch)
{
    mbs_twist t = mbs_axis_revolute(p, u);
    for (int i = 0; i < 3; i++) t.v[i] += pitch * u[i];
    return t;
}

mbs_wrench mbs_rbi_apply(const mbs_rbi *I, const mbs_twist *t)
{
    mbs_wrench o;
    double cw[3], cf[3];
    s_cross(I->c, t->w, cw);
    for (int i = 0; i < 3; i++) o.f[i] = I->m * (t->v[i] - cw[i]);
    s_rot(I->Ic, 0, t->w, o.n);
    s_cross(I->c, o.f, cf);
    for (int i = 0; i < 3; i++) o.n[i] += cf[i];
    return o;
}

double mbs_rbi_energy(const mbs_rbi *I, const mbs_twist *t)
{
    mbs_wrench h = mbs_rbi_apply(I, t);
    return 0.5 * mbs_power(t, &h);
}

mbs_rbi mbs_rbi_transform(const mbs_xform *x, const mbs_rbi *I)
{
    mbs_rbi o;
    o.m = I->m;
    double d[3];
    for (int i = 0; i < 3; i++) d[i] = I->c[i] - x->r[i];
    s_rot(x->E, 0, d, o.c);
    /* Ic' = E Ic E^T */
    double T[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            T[3 * i + j] = I->Ic[3 * i] * x->E[3 * j] + I->Ic[3 * i + 1] * x->E[3 * j + 1] + I->Ic[3 * i + 2] * x->E[3 * j + 2];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            o.Ic[3 * i + j] = x->E[3 * i] * T[j] + x->E[3 * i + 1] * T[3 + j] + x->E[3 * i + 2] * T[6 + j];
    return o;
}

void mbs_rbi_matrix(const mbs_rbi *I, double M[36])
{
    /* [[Ic - m cx cx, m cx], [-m cx, m 1]], cx the cross-product matrix of c */
    const double *c = I->c, m = I->m;
    double cx[9] = {0, -c[2], c[1], c[2], 0, -c[0], -c[1], c[0], 0};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double cc = cx[3 * i] * cx[j] + cx[3 * i + 1] * cx[3 + j] + cx[3 * i + 2] * cx[6 + j];
            M[6 * i + j] = I->Ic[3 * i + j] - m * cc;
            M[6 * i + 3 + j] = m * cx[3 * i + j];
            M[6 * (3 + i) + j] = -m * cx[3 * i + j];
            M[6 * (3 + i) + 3 + j] = i == j ? m : 0;
        }
}
