/*
 * vec.h - small 3-vector and 3x3 helpers used across the solver (inline).
 */
#ifndef MBS_VEC_H
#define MBS_VEC_H

#include <math.h>

/* fmax(a, b) without the library call (gcc calls libm's fmax at -O2): the
 * larger, or the other argument when one is NaN, as C99 fmax; which of two
 * equal zeros of different sign comes back may differ. */
static inline double mbs_fmax(double a, double b)
{
    if (isnan(a)) return b;
    if (isnan(b)) return a;
    return a > b ? a : b;
}

static inline double v3dot(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static inline double v3norm(const double *a) { return sqrt(v3dot(a, a)); }
static inline void v3cross(const double *a, const double *b, double *c)
{
    double c0 = a[1] * b[2] - a[2] * b[1], c1 = a[2] * b[0] - a[0] * b[2], c2 = a[0] * b[1] - a[1] * b[0];
    c[0] = c0; c[1] = c1; c[2] = c2;
}
static inline void v3sub(const double *a, const double *b, double *c) { c[0] = a[0] - b[0]; c[1] = a[1] - b[1]; c[2] = a[2] - b[2]; }
static inline void v3scale(double s, const double *a, double *c) { c[0] = s * a[0]; c[1] = s * a[1]; c[2] = s * a[2]; }
static inline void v3copy(const double *a, double *c) { c[0] = a[0]; c[1] = a[1]; c[2] = a[2]; }
/* Unit vector; returns the length (0 leaves c unchanged). */
static inline double v3unit(const double *a, double *c)
{
    double n = v3norm(a);
    if (n > 0) v3scale(1.0 / n, a, c);
    return n;
}
/* Inverse of a 3x3 row-major matrix; returns the determinant (0: singular). */
static inline double m3inv(const double *a, double *inv)
{
    double c00 = a[4] * a[8] - a[5] * a[7], c01 = a[5] * a[6] - a[3] * a[8], c02 = a[3] * a[7] - a[4] * a[6];
    double det = a[0] * c00 + a[1] * c01 + a[2] * c02;
    if (det == 0) return 0;
    double id = 1.0 / det;
    inv[0] = c00 * id; inv[1] = (a[2] * a[7] - a[1] * a[8]) * id; inv[2] = (a[1] * a[5] - a[2] * a[4]) * id;
    inv[3] = c01 * id; inv[4] = (a[0] * a[8] - a[2] * a[6]) * id; inv[5] = (a[2] * a[3] - a[0] * a[5]) * id;
    inv[6] = c02 * id; inv[7] = (a[1] * a[6] - a[0] * a[7]) * id; inv[8] = (a[0] * a[4] - a[1] * a[3]) * id;
    return det;
}
/* Rotation matrix (row-major) of a unit quaternion w x y z. */
static inline void quat_to_mat(const double *q, double *R)
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    R[0] = 1 - 2 * (y * y + z * z); R[1] = 2 * (x * y - w * z);     R[2] = 2 * (x * z + w * y);
    R[3] = 2 * (x * y + w * z);     R[4] = 1 - 2 * (x * x + z * z); R[5] = 2 * (y * z - w * x);
    R[6] = 2 * (x * z - w * y);     R[7] = 2 * (y * z + w * x);     R[8] = 1 - 2 * (x * x + y * y);
}
/* Unit quaternion (w >= 0) of a rotation matrix (row-major), Shepperd's method. */
static inline void mat_to_quat(const double *R, double *q)
{
    double tr = R[0] + R[4] + R[8];
    if (tr > 0) {
        double s = 2 * sqrt(tr + 1);
        q[0] = s / 4; q[1] = (R[7] - R[5]) / s; q[2] = (R[2] - R[6]) / s; q[3] = (R[3] - R[1]) / s;
    } else if (R[0] > R[4] && R[0] > R[8]) {
        double s = 2 * sqrt(1 + R[0] - R[4] - R[8]);
        q[0] = (R[7] - R[5]) / s; q[1] = s / 4; q[2] = (R[1] + R[3]) / s; q[3] = (R[2] + R[6]) / s;
    } else if (R[4] > R[8]) {
        double s = 2 * sqrt(1 + R[4] - R[0] - R[8]);
        q[0] = (R[2] - R[6]) / s; q[1] = (R[1] + R[3]) / s; q[2] = s / 4; q[3] = (R[5] + R[7]) / s;
    } else {
        double s = 2 * sqrt(1 + R[8] - R[0] - R[4]);
        q[0] = (R[3] - R[1]) / s; q[1] = (R[2] + R[6]) / s; q[2] = (R[5] + R[7]) / s; q[3] = s / 4;
    }
    if (q[0] < 0) for (int i = 0; i < 4; i++) q[i] = -q[i];
}

#endif
