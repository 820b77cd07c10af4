/*
 * control.c - linear blocks and PID controllers (control.h).
 */
#include "mbs/actuator/control.h"

#include <math.h>
#include <string.h>

int mbs_lti_from_tf(const double *num, int nn, const double *den, int nd, mbs_lti *b)
{
    memset(b, 0, sizeof *b);
    if (nd < 1 || nn < 1 || nn > nd || nd - 1 > MBS_LTI_MAX || !(den[0] != 0) || !isfinite(den[0])) return -1;
    int n = nd - 1;
    double a[MBS_LTI_MAX + 1], c[MBS_LTI_MAX + 1];
    for (int i = 0; i < nd; i++) {
        if (!isfinite(den[i])) return -1;
        a[i] = den[i] / den[0];
    }
    /* numerator padded to the denominator's length, normalised the same way */
    for (int i = 0; i < nd; i++) c[i] = 0;
    for (int i = 0; i < nn; i++) {
        if (!isfinite(num[i])) return -1;
        c[nd - nn + i] = num[i] / den[0];
    }
    b->n = n;
    b->D = c[0];
    /* controllable canonical form, x_1 the lowest derivative:
     * x_i' = x_(i+1), x_n' = -(a_n x_1 + ... + a_1 x_n) + u,
     * y = sum (c_(n-i) - a_(n-i) D) x_(i+1) + D u */
    for (int i = 0; i + 1 < n; i++) b->A[i * MBS_LTI_MAX + i + 1] = 1;
    for (int j = 0; j < n; j++) {
        b->A[(n - 1) * MBS_LTI_MAX + j] = -a[n - j];
        b->C[j] = c[n - j] - a[n - j] * b->D;
    }
    if (n > 0) b->B[n - 1] = 1;
    return 0;
}

void mbs_lti_rhs(const mbs_lti *b, const double *x, double u, double *xdot)
{
    for (int i = 0; i < b->n; i++) {
        double s = b->B[i] * u;
        for (int j = 0; j < b->n; j++) s += b->A[i * MBS_LTI_MAX + j] * x[j];
        xdot[i] = s;
    }
}

double mbs_lti_output(const mbs_lti *b, const double *x, double u)
{
    double y = b->D * u;
    for (int j = 0; j < b->n; j++) y += b->C[j] * x[j];
    return y;
}

double mbs_lti_step(const mbs_lti *b, double *x, double u)
{
    double y = mbs_lti_output(b, x, u), xn[MBS_LTI_MAX];
    mbs_lti_rhs(b, x, u, xn); /* A x + B u: the same products */
    memcpy(x, xn, sizeof(double) * (size_t)b->n);
    return y;
}

int mbs_pid_init(mbs_pid *p)
{
    if (!isfinite(p->kp) || !isfinite(p->ki) || !isfinite(p->kd) || !isfinite(p->tf) || !isfinite(p->ts)) return -1;
    if (p->kd != 0 && !(p->tf > 0)) return -1;
    if (p->ts < 0 || p->tf < 0 || !(p->y_min < p->y_max) || p->tt < 0 || isnan(p->tt)) return -1;
    if (p->tt == 0) {
        /* Astrom & Hagglund: tt = sqrt(ti td), or ti without derivative action */
        double ti = p->kp != 0 && p->ki != 0 ? p->kp / p->ki : 0, td = p->kp != 0 ? p->kd / p->kp : 0;
        p->tt = ti > 0 && td > 0 ? sqrt(ti * td) : ti > 0 ? ti : 1;
    }
    return 0;
}

double mbs_pid_rhs(const mbs_pid *p, const double s[2], double e, double sdot[2], double J[9])
{
    double kdf = p->kd != 0 ? p->kd / p->tf : 0;
    double u = p->kp * e + p->ki * s[0] + kdf * (e - s[1]);
    double y = u < p->y_min ? p->y_min : u > p->y_max ? p->y_max : u;
    int sat = y != u;
    /* integral with back-calculation while saturated */
    sdot[0] = p->ki != 0 ? e + (sat ? (y - u) / (p->ki * p->tt) : 0) : 0;
    sdot[1] = p->kd != 0 ? (e - s[1]) / p->tf : 0;
    if (J) {
        J[0] = sat ? 0 : p->ki;
        J[1] = sat ? 0 : -kdf;
        J[2] = sat ? 0 : p->kp + kdf;
        if (p->ki != 0 && sat) {
            double g = 1 / (p->ki * p->tt);
            J[3] = -p->ki * g;
            J[4] = kdf * g;
            J[5] = 1 - (p->kp + kdf) * g;
        } else {
            J[3] = 0;
            J[4] = 0;
            J[5] = p->ki != 0 ? 1 : 0;
        }
        J[6] = 0;
        J[7] = p->kd != 0 ? -1 / p->tf : 0;
        J[8] = p->kd != 0 ? 1 / p->tf : 0;
    }
    return y;
}

double mbs_pid_step(const mbs_pid *p, double s[2], double e)
{
    double h = p->ts, d = 0;
    if (p->kd != 0) {
        /* backward Euler of the filter s1' = (e - s1) / tf */
        s[1] = (s[1] + h / p->tf * e) / (1 + h / p->tf);
        d = (e - s[1]) / p->tf;
    }
    double I = s[0] + h * e;
    double u = p->kp * e + p->ki * I + p->kd * d;
    double y = u < p->y_min ? p->y_min : u > p->y_max ? p->y_max : u;
    if (p->ki != 0 && y != u) I += h * (y - u) / (p->ki * p->tt);
    s[0] = I;
    return y;
}
