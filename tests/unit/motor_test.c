/*
 * motor_test.c - the motor algebra of the relative-coordinate formulation
 * (common/mbs/formulation/relative/motor.h) against its defining properties, on random frames:
 * power invariance of the dual transformations, inverse and composition,
 * point velocities of a revolute axis, reciprocity of a joint's constraint
 * wrenches, the cross products' duality, kinetic energy and momentum of a
 * rigid body in two frames, the 6 x 6 inertia matrix.
 */
#include "check.h"
#include "mbs/formulation/relative/motor.h"

#include <math.h>
#include <string.h>

static unsigned s_seed = 4242;
static double s_rand(void)
{
    s_seed = s_seed * 1103515245u + 12345u;
    return ((s_seed >> 8) & 0xffff) / 65536.0 - 0.5;
}

static void s_vec(double v[3], double s) { for (int i = 0; i < 3; i++) v[i] = s * s_rand(); }

/* A random rotation from a random unit quaternion. */
static void s_rotation(double E[9])
{
    double q[4], n = 0;
    for (int i = 0; i < 4; i++) { q[i] = s_rand() + (i == 0 ? 0.3 : 0); n += q[i] * q[i]; }
    n = sqrt(n);
    for (int i = 0; i < 4; i++) q[i] /= n;
    double w = q[0], x = q[1], y = q[2], z = q[3];
    double R[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
                   2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                   2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)};
    memcpy(E, R, sizeof R);
}

static mbs_xform s_xform(void)
{
    double E[9], r[3];
    s_rotation(E);
    s_vec(r, 4);
    return mbs_xf_make(E, r);
}

static mbs_twist s_twist(void) { mbs_twist t; s_vec(t.w, 2); s_vec(t.v, 2); return t; }
static mbs_wrench s_wrench(void) { mbs_wrench f; s_vec(f.n, 2); s_vec(f.f, 2); return f; }

static double s_tdiff(const mbs_twist *a, const mbs_twist *b)
{
    double d = 0;
    for (int i = 0; i < 3; i++) d = fmax(d, fmax(fabs(a->w[i] - b->w[i]), fabs(a->v[i] - b->v[i])));
    return d;
}

static double s_wdiff(const mbs_wrench *a, const mbs_wrench *b)
{
    double d = 0;
    for (int i = 0; i < 3; i++) d = fmax(d, fmax(fabs(a->n[i] - b->n[i]), fabs(a->f[i] - b->f[i])));
    return d;
}

static void s_crossv(const double a[3], const double b[3], double c[3])
{
    c[0] = a[1] * b[2] - a[2] * b[1]; c[1] = a[2] * b[0] - a[0] * b[2]; c[2] = a[0] * b[1] - a[1] * b[0];
}

static mbs_rbi s_body(void)
{
    mbs_rbi I;
    I.m = 1 + fabs(s_rand()) * 3;
    s_vec(I.c, 1);
    /* a symmetric positive definite Ic = A A^T + 0.1 */
    double A[9];
    for (int i = 0; i < 9; i++) A[i] = s_rand();
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            I.Ic[3 * i + j] = A[3 * i] * A[3 * j] + A[3 * i + 1] * A[3 * j + 1] + A[3 * i + 2] * A[3 * j + 2] + (i == j) * 0.1;
    return I;
}

int main(void)
{
    double worst_power = 0, worst_inv = 0, worst_comp = 0, worst_cross = 0, worst_I = 0, worst_axis = 0;
    for (int k = 0; k < 200; k++) {
        mbs_xform X = s_xform(), Y = s_xform();
        mbs_twist t = s_twist(), a = s_twist();
        mbs_wrench f = s_wrench();
        /* power is frame-independent: (X t) . (X* f) = t . f */
        mbs_twist Xt = mbs_xf_twist(&X, &t);
        mbs_wrench Xf = mbs_xf_wrench(&X, &f);
        worst_power = fmax(worst_power, fabs(mbs_power(&Xt, &Xf) - mbs_power(&t, &f)));
        /* inverse: both the inverse maps and the inverse transform */
        mbs_twist back = mbs_xf_twist_inv(&X, &Xt);
        mbs_wrench fback = mbs_xf_wrench_inv(&X, &Xf);
        mbs_xform Xi = mbs_xf_inverse(&X);
        mbs_twist back2 = mbs_xf_twist(&Xi, &Xt);
        mbs_wrench fback2 = mbs_xf_wrench(&Xi, &Xf);
        worst_inv = fmax(worst_inv, fmax(fmax(s_tdiff(&back, &t), s_wdiff(&fback, &f)),
                                         fmax(s_tdiff(&back2, &t), s_wdiff(&fback2, &f))));
        /* composition: (Y X) t = Y (X t) */
        mbs_xform YX = mbs_xf_compose(&Y, &X);
        mbs_twist c1 = mbs_xf_twist(&YX, &t), c2 = mbs_xf_twist(&Y, &Xt);
        mbs_wrench g1 = mbs_xf_wrench(&YX, &f), g2 = mbs_xf_wrench(&Y, &Xf);
        worst_comp = fmax(worst_comp, fmax(s_tdiff(&c1, &c2), s_wdiff(&g1, &g2)));
        /* cross products: (a x t) . f = -t . (a x* f); and they transform
         * like twists and wrenches: X (a x t) = (X a) x (X t) */
        mbs_twist at = mbs_twist_cross(&a, &t);
        mbs_wrench af = mbs_twist_cross_wrench(&a, &f);
        worst_cross = fmax(worst_cross, fabs(mbs_power(&at, &f) + mbs_power(&t, &af)));
        mbs_twist Xa = mbs_xf_twist(&X, &a), Xat = mbs_xf_twist(&X, &at), XaXt = mbs_twist_cross(&Xa, &Xt);
        worst_cross = fmax(worst_cross, s_tdiff(&Xat, &XaXt));
        /* a rigid body: energy 1/2 m |v_c|^2 + 1/2 w . Ic w; the same in
         * frame B; momentum I_B (X t) = X* (I_A t); the 6 x 6 matrix */
        mbs_rbi I = s_body();
        double vc[3], wc[3], Iw[3];
        s_crossv(t.w, I.c, wc);
        for (int i = 0; i < 3; i++) vc[i] = t.v[i] + wc[i];
        for (int i = 0; i < 3; i++) Iw[i] = I.Ic[3 * i] * t.w[0] + I.Ic[3 * i + 1] * t.w[1] + I.Ic[3 * i + 2] * t.w[2];
        double T = 0.5 * I.m * (vc[0] * vc[0] + vc[1] * vc[1] + vc[2] * vc[2]) +
                   0.5 * (t.w[0] * Iw[0] + t.w[1] * Iw[1] + t.w[2] * Iw[2]);
        worst_I = fmax(worst_I, fabs(mbs_rbi_energy(&I, &t) - T));
        mbs_rbi IB = mbs_rbi_transform(&X, &I);
        worst_I = fmax(worst_I, fabs(mbs_rbi_energy(&IB, &Xt) - T));
        mbs_wrench hA = mbs_rbi_apply(&I, &t), hB = mbs_rbi_apply(&IB, &Xt), XhA = mbs_xf_wrench(&X, &hA);
        worst_I = fmax(worst_I, s_wdiff(&hB, &XhA));
        double M[36], x6[6] = {t.w[0], t.w[1], t.w[2], t.v[0], t.v[1], t.v[2]}, h6[6] = {0};
        mbs_rbi_matrix(&I, M);
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 6; j++) {
                h6[i] += M[6 * i + j] * x6[j];
                worst_I = fmax(worst_I, fabs(M[6 * i + j] - M[6 * j + i])); /* symmetric */
            }
        for (int i = 0; i < 3; i++) worst_I = fmax(worst_I, fmax(fabs(h6[i] - hA.n[i]), fabs(h6[3 + i] - hA.f[i])));
        /* a revolute axis (p, u): the point p does not move, another point q
         * moves with u x (q - p); the axis transforms into the axis at
         * (E (p - r), E u); a force through p and a moment normal to u do no
         * work on it (the joint's constraint wrenches) */
        double p[3], u[3], q[3], vq[3], vp[3], e[3], nn = 0;
        s_vec(p, 3); s_vec(u, 1); s_vec(q, 3);
        for (int i = 0; i < 3; i++) nn += u[i] * u[i];
        for (int i = 0; i < 3; i++) u[i] /= sqrt(nn);
        mbs_twist S = mbs_axis_revolute(p, u);
        mbs_twist_point_velocity(&S, p, vp);
        mbs_twist_point_velocity(&S, q, vq);
        double qp[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]};
        s_crossv(u, qp, e);
        for (int i = 0; i < 3; i++) worst_axis = fmax(worst_axis, fmax(fabs(vp[i]), fabs(vq[i] - e[i])));
        double pb[3], ub[3], d[3] = {p[0] - X.r[0], p[1] - X.r[1], p[2] - X.r[2]};
        for (int i = 0; i < 3; i++) {
            pb[i] = X.E[3 * i] * d[0] + X.E[3 * i + 1] * d[1] + X.E[3 * i + 2] * d[2];
            ub[i] = X.E[3 * i] * u[0] + X.E[3 * i + 1] * u[1] + X.E[3 * i + 2] * u[2];
        }
        mbs_twist SB = mbs_axis_revolute(pb, ub), XS = mbs_xf_twist(&X, &S);
        worst_axis = fmax(worst_axis, s_tdiff(&SB, &XS));
        double F[3], n[3], un = 0;
        s_vec(F, 2);
        mbs_wrench through;
        s_crossv(p, F, through.n);
        memcpy(through.f, F, sizeof F);
        s_vec(n, 2);
        for (int i = 0; i < 3; i++) un += u[i] * n[i];
        mbs_wrench normal = {{n[0] - un * u[0], n[1] - un * u[1], n[2] - un * u[2]}, {0, 0, 0}};
        worst_axis = fmax(worst_axis, fmax(fabs(mbs_power(&S, &through)), fabs(mbs_power(&S, &normal))));
        /* prismatic and helical: a translation along u; a screw advancing
         * pitch per radian along its axis */
        mbs_twist P = mbs_axis_prismatic(u), H = mbs_axis_helical(p, u, 0.25);
        double hv[3];
        mbs_twist_point_velocity(&H, p, hv);
        for (int i = 0; i < 3; i++)
            worst_axis = fmax(worst_axis, fmax(fabs(P.v[i] - u[i]) + fabs(P.w[i]), fabs(hv[i] - 0.25 * u[i])));
    }
    printf("motor algebra, 200 random frames: power invariance %.1e, inverse %.1e, composition %.1e, "
           "cross products %.1e, inertia %.1e, joint axes %.1e\n", worst_power, worst_inv, worst_comp, worst_cross,
           worst_I, worst_axis);
    CHECK(worst_power < 1e-12);
    CHECK(worst_inv < 1e-12);
    CHECK(worst_comp < 1e-12);
    CHECK(worst_cross < 1e-12);
    CHECK(worst_I < 1e-11);
    CHECK(worst_axis < 1e-12);
    /* the identity changes nothing */
    mbs_xform Id = mbs_xf_identity();
    mbs_twist t = s_twist(), It = mbs_xf_twist(&Id, &t);
    CHECK(s_tdiff(&It, &t) == 0);
    return CHECK_SUMMARY("motor_test");
}
