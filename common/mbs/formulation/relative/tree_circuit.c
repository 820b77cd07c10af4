/*
 * tree_circuit.c - the chords' circuit equations and the accelerations of
 * the tree with its loops closed (index 1 + Baumgarte) (tree.h).
 */
#include "mbs/formulation/relative/tree_int.h"

/* ---- circuit equations --------------------------------------------------------------- */

/* A vector of an equation at the current state: value x, rate xd, bias
 * acceleration xb (w->A holds the bias accelerations), and its rate's
 * Jacobian rows Jx (3 x n, overwritten). */
static void s_vec_eval(const mbs_rtree *t, const mbs_rtree_ws *w, const mbs_rvec *v, double x[3], double xd[3],
                       double xb[3], double *Jx)
{
    int n = t->n;
    memset(x, 0, sizeof(double) * 3);
    memset(xd, 0, sizeof(double) * 3);
    memset(xb, 0, sizeof(double) * 3);
    memset(Jx, 0, sizeof(double) * 3 * (size_t)n);
    for (int k = 0; k < v->n; k++) {
        const mbs_rterm *tm = &v->t[k];
        double sg = k == 0 ? 1.0 : -1.0;
        double R[9], p[3], y[3], yd[3], yb[3], rr[3] = {tm->r[0], tm->r[1], t->dim == 3 ? tm->r[2] : 0};
        mbs_twist V, A;
        mbs_rtree_body(t, w, tm->body, R, p, &V, &A);
        s_rot(R, 0, rr, y);
        if (tm->kind == 1) {
            for (int a = 0; a < 3; a++) y[a] += p[a];
            mbs_twist_point_velocity(&V, y, yd);
            double ay[3], wv[3];
            mbs_twist_point_velocity(&A, y, ay);
            v3cross(V.w, yd, wv);
            for (int a = 0; a < 3; a++) yb[a] = ay[a] + wv[a];
        } else {
            double ay[3], wv[3];
            v3cross(V.w, y, yd);
            v3cross(A.w, y, ay);
            v3cross(V.w, yd, wv);
            for (int a = 0; a < 3; a++) yb[a] = ay[a] + wv[a];
        }
        for (int a = 0; a < 3; a++) { x[a] += sg * y[a]; xd[a] += sg * yd[a]; xb[a] += sg * yb[a]; }
        /* rows: the path's axes moving the term */
        for (int i = tm->body >= 0 ? t->body_node[tm->body] : -1; i >= 0; i = t->node[i].parent)
            for (int q = 0; q < t->node[i].dof; q++) {
                int c = t->node[i].coord + q;
                double col[3];
                if (tm->kind == 1) mbs_twist_point_velocity(&w->S[c], y, col);
                else v3cross(w->S[c].w, y, col);
                for (int a = 0; a < 3; a++) Jx[(size_t)a * n + c] += sg * col[a];
            }
    }
}

void mbs_rtree_circuit(const mbs_rtree *t, mbs_rtree_ws *w, double time)
{
    int n = t->n;
    if (t->neq == 0) return;
    mbs_rtree_accel_pass(t, w, NULL); /* bias accelerations: qdd = 0, base at rest */
    double *Ja = w->jq, *Jb = w->jq + 3 * (size_t)n, *J2 = w->jq + 6 * (size_t)n;
    for (int r = 0; r < t->nceq; r++) {
        const mbs_req *e = &t->eq[r];
        double a[3], ad[3], ab[3], b[3], bd[3], bb[3];
        s_vec_eval(t, w, &e->a, a, ad, ab, Ja);
        s_vec_eval(t, w, &e->b, b, bd, bb, Jb);
        /* the dot product a . b: value, rate, bias, row */
        double x = v3dot(a, b), xd = v3dot(ad, b) + v3dot(a, bd), xb = v3dot(ab, b) + 2 * v3dot(ad, bd) + v3dot(a, bb);
        double *row = w->J + (size_t)r * n;
        for (int c = 0; c < n; c++)
            row[c] = b[0] * Ja[c] + b[1] * Ja[n + c] + b[2] * Ja[2 * n + c] + a[0] * Jb[c] + a[1] * Jb[n + c] +
                     a[2] * Jb[2 * n + c];
        if (e->kind == MBS_REQ_DOT) {
            w->phi[r] = x - e->c;
            w->phid[r] = xd;
            w->bias[r] = xb;
            continue;
        }
        double df, ddf, f = mbs_fn_eval(e->fn, time, &df, &ddf);
        if (e->kind == MBS_REQ_SLIDE) {
            w->phi[r] = x - f;
            w->phid[r] = xd - df;
            w->bias[r] = xb - ddf;
            continue;
        }
        /* the angle th = atan2(s, c) of c = a . b (above) and s = a2 . b:
         * th' = (c s' - s c') / rr, rr = c^2 + s^2 (1 on the constraint
         * manifold), and its bias th'' at qdd = 0 = (c s'' - s c'') / rr -
         * (c s' - s c') rr' / rr^2 (the c' s' terms cancel) */
        double a2[3], a2d[3], a2b[3];
        s_vec_eval(t, w, &e->a2, a2, a2d, a2b, J2);
        double s = v3dot(a2, b), sd = v3dot(a2d, b) + v3dot(a2, bd), sb = v3dot(a2b, b) + 2 * v3dot(a2d, bd) + v3dot(a2, bb);
        double cc = x, cd = xd, cb = xb, rr = cc * cc + s * s;
        if (!(rr > 0)) rr = 1; /* a degenerate pose: no angle (not on the manifold) */
        double num = cc * sd - s * cd, rrd = 2 * (cc * cd + s * sd);
        for (int c = 0; c < n; c++) {
            double srow = b[0] * J2[c] + b[1] * J2[n + c] + b[2] * J2[2 * n + c] + a2[0] * Jb[c] + a2[1] * Jb[n + c] +
                          a2[2] * Jb[2 * n + c];
            row[c] = (cc * srow - s * row[c]) / rr;
        }
        w->phi[r] = remainder(atan2(s, cc) - f, 2 * M_PI);
        w->phid[r] = num / rr - df;
        w->bias[r] = (cc * sb - s * cb) / rr - num * rrd / (rr * rr) - ddf;
    }
    /* drivers: sign q_c - f(t) = 0, linear in q */
    for (int k = 0; k < t->ndrv; k++) {
        int r = t->nceq + k, c = t->drv_coord[k], cq = t->drv_qcoord[k];
        double df, ddf, f = mbs_fn_eval(t->drv_fn[k], time, &df, &ddf), sg = t->drv_sign[k];
        double *row = w->J + (size_t)r * n;
        memset(row, 0, sizeof(double) * (size_t)n);
        row[c] = sg;
        w->phi[r] = sg * w->q[cq] - f;
        w->phid[r] = sg * (w->u ? w->u[c] : 0) - df;
        w->bias[r] = -ddf;
    }
}

/* Solve the symmetric positive semi-definite K x = r (m x m) by LDL^T
 * without pivoting; a pivot below eps times the largest diagonal (a
 * dependent equation) gets x = 0 in its place.  K is overwritten; *ratio
 * the smallest pivot over the largest diagonal (1 when m = 0). */
static int s_ldl_solve(int m, double *K, double *r, double *ratio)
{
    double dmax = 0;
    for (int i = 0; i < m; i++) dmax = fmax(dmax, fabs(K[i * m + i]));
    double eps = 1e-11 * (dmax > 0 ? dmax : 1);
    int dropped = 0;
    *ratio = 1;
    for (int j = 0; j < m; j++) {
        double d = K[j * m + j];
        for (int k = 0; k < j; k++) d -= K[j * m + k] * K[j * m + k] * K[k * m + k];
        if (dmax > 0) *ratio = fmin(*ratio, fmax(d, 0) / dmax);
        if (!(d > eps)) { d = 0; dropped++; }
        K[j * m + j] = d;
        for (int i = j + 1; i < m; i++) {
            double s = K[i * m + j];
            for (int k = 0; k < j; k++) s -= K[i * m + k] * K[j * m + k] * K[k * m + k];
            K[i * m + j] = d > 0 ? s / d : 0;
        }
    }
    for (int i = 0; i < m; i++)
        for (int k = 0; k < i; k++) r[i] -= K[i * m + k] * r[k];
    for (int i = 0; i < m; i++) r[i] = K[i * m + i] > 0 ? r[i] / K[i * m + i] : 0;
    for (int i = m - 1; i >= 0; i--)
        for (int k = i + 1; k < m; k++) r[i] -= K[k * m + i] * r[k];
    return dropped;
}

/* Threshold pivoting of s_ldl_solve_pivoted: the rows' own order is kept
 * while the next row's diagonal is at least this share of the largest
 * remaining one.  Full pivoting (1) kept a different set for Bricard, whose
 * relative dopri5 run at tolerance 1e-6 then drifted 3.7e-8 of P3's range
 * from a 1e-12 reference instead of 4.0e-10 (0.1 down to 0: 4.0e-10). */
#define PIVOT_TAU 0.1

/* The same with symmetric pivoting: a row whose remaining diagonal fell
 * below PIVOT_TAU of the largest is put behind that one, so that the rows
 * kept are a well-conditioned independent set whatever their order; the
 * rows left when the largest diagonal is below eps are the dependent ones.
 * Without it, a slider-crank driven
 * at its guide before its crank (both drivers agreeing) kept the guide's
 * row through the dead centres, where it nearly depends on the circuit's,
 * and dropped the crank's: the crank angle drifted by 1.8e-4 at tolerance
 * 1e-6.  Results as s_ldl_solve's, in the rows' own order: x in r (0 for
 * a dropped row), the pivots on K's diagonal (0 for a dropped row), L
 * below it in the pivot order's columns.  p: (m) scratch. */
static int s_ldl_solve_pivoted(int m, double *K, double *r, double *ratio, int *p)
{
    double dmax = 0;
    for (int i = 0; i < m; i++) dmax = fmax(dmax, fabs(K[i * m + i]));
    double eps = 1e-11 * (dmax > 0 ? dmax : 1);
    int kept = m;
    *ratio = 1;
    for (int i = 0; i < m; i++) p[i] = i;
    for (int j = 0; j < m; j++) {
        int best = j;
        for (int i = j + 1; i < m; i++)
            if (K[p[i] * m + p[i]] > K[p[best] * m + p[best]]) best = i;
        if (K[p[j] * m + p[j]] >= PIVOT_TAU * K[p[best] * m + p[best]]) best = j;
        int a = p[best];
        p[best] = p[j];
        p[j] = a;
        double d = K[a * m + a];
        if (dmax > 0) *ratio = fmin(*ratio, fmax(d, 0) / dmax);
        if (!(d > eps)) { kept = j; break; }
        /* the remaining rows' Schur complement, then their L entries */
        for (int i = j + 1; i < m; i++) {
            int b = p[i];
            double l = K[b * m + a] / d;
            for (int k = j + 1; k < m; k++) K[b * m + p[k]] -= l * K[a * m + p[k]];
        }
        for (int i = j + 1; i < m; i++) K[p[i] * m + a] /= d;
    }
    for (int j = kept; j < m; j++) K[p[j] * m + p[j]] = 0;
    /* L z = P r, D y = z, L^T x = y, in the pivot order */
    for (int j = 0; j < kept; j++)
        for (int k = 0; k < j; k++) r[p[j]] -= K[p[j] * m + p[k]] * r[p[k]];
    for (int j = 0; j < kept; j++) r[p[j]] /= K[p[j] * m + p[j]];
    for (int j = kept; j < m; j++) r[p[j]] = 0;
    for (int j = kept - 1; j >= 0; j--)
        for (int i = j + 1; i < kept; i++) r[p[j]] -= K[p[i] * m + p[j]] * r[p[i]];
    return m - kept;
}

/* s_ldl_solve, pivoted for a mechanism with dependent equations. */
static int s_solve_rows(const mbs_rtree *t, mbs_rtree_ws *w, int m, double *ratio)
{
    return t->pivoted ? s_ldl_solve_pivoted(m, w->K, w->rhs, ratio, w->perm) : s_ldl_solve(m, w->K, w->rhs, ratio);
}

/* The rows of the rotors on chords (mbs_rrotor) at rows neq.. of w->J, their
 * biases (c' u) into w->bias, each scaled by sqrt(mu) (so that its pivot
 * takes 1, not 1 / mu: the pivots stay of the circuit equations' size),
 * after mbs_rtree_circuit or with the bias accelerations in w->A. */
static void s_rotor_rows(const mbs_rtree *t, mbs_rtree_ws *w)
{
    int n = t->n;
    double *Ja = w->jq, *Jb = w->jq + 3 * (size_t)n;
    for (int k = 0; k < t->nrr; k++) {
        const mbs_rrotor *r = &t->rr[k];
        int row = t->neq + k;
        double *J = w->J + (size_t)row * n;
        w->phi[row] = w->phid[row] = 0;
        if (r->kind == 1) {
            /* the slide's rate: the dot product's row and bias */
            double a[3], ad[3], ab[3], b[3], bd[3], bb[3];
            s_vec_eval(t, w, &r->a, a, ad, ab, Ja);
            s_vec_eval(t, w, &r->b, b, bd, bb, Jb);
            for (int c = 0; c < n; c++)
                J[c] = b[0] * Ja[c] + b[1] * Ja[n + c] + b[2] * Ja[2 * n + c] + a[0] * Jb[c] + a[1] * Jb[n + c] +
                       a[2] * Jb[2 * n + c];
            w->bias[row] = v3dot(ab, b) + 2 * v3dot(ad, bd) + v3dot(a, bb);
        } else {
            /* (1 - n) w_0 + n w_1 about z (planar): the bodies' paths' axes */
            const mbs_joint_spec *Jt = &t->spec->joints[r->joint];
            memset(J, 0, sizeof(double) * (size_t)n);
            w->bias[row] = 0;
            for (int side = 0; side < 2; side++) {
                int b = Jt->body[side];
                double f = side ? r->n : 1 - r->n;
                if (b < 0) continue;
                for (int i = t->body_node[b]; i >= 0; i = t->node[i].parent)
                    for (int d = 0; d < t->node[i].dof; d++) J[t->node[i].coord + d] += f * w->S[t->node[i].coord + d].w[2];
                w->bias[row] += f * w->A[t->body_node[b]].w[2];
            }
        }
        double sq = sqrt(r->mu);
        for (int c = 0; c < n; c++) J[c] *= sq;
        w->bias[row] *= sq;
    }
}

int mbs_rtree_accel(const mbs_rtree *t, mbs_rtree_ws *w, double time, const double *q, const double *u,
                    double alpha, double beta, double *qdd)
{
    int n = t->n, m = t->neq + t->nrr;
    mbs_rtree_kinematics(t, w, q, u);
    mbs_rtree_applied(t, w, time);
    int rc = mbs_rtree_forward(t, w, w->qdd0);
    if (rc) return rc;
    if (m == 0) {
        memcpy(qdd, w->qdd0, sizeof(double) * (size_t)n);
        mbs_rtree_accel_pass(t, w, qdd);
        return 0;
    }
    if (t->neq > 0) mbs_rtree_circuit(t, w, time);
    else mbs_rtree_accel_pass(t, w, NULL); /* the rotors' biases */
    s_rotor_rows(t, w);
    /* Y = M^-1 J^T, K = J Y */
    for (int k = 0; k < m; k++) mbs_rtree_minv(t, w, w->J + (size_t)k * n, w->Y + (size_t)k * n);
    for (int i = 0; i < m; i++) {
        const double *Ji = w->J + (size_t)i * n;
        for (int k = 0; k < m; k++) {
            const double *Yk = w->Y + (size_t)k * n;
            double acc = 0;
            for (int c = 0; c < n; c++) acc += Ji[c] * Yk[c];
            w->K[i * m + k] = acc;
        }
        double jq = 0;
        for (int c = 0; c < n; c++) jq += Ji[c] * w->qdd0[c];
        w->rhs[i] = -w->bias[i] - 2 * alpha * w->phid[i] - beta * beta * w->phi[i] - jq;
    }
    /* a rotor's row r = sqrt(mu) c: its multiplier k = nu / sqrt(mu), nu =
     * -mu (c . qdd + c' u) the rotor's force (c nu in the equations of
     * motion), so r . qdd + k = -sqrt(mu) c' u: 1 on its pivot */
    for (int k = 0; k < t->nrr; k++) w->K[(t->neq + k) * m + t->neq + k] += 1;
    s_solve_rows(t, w, m, &w->pivot_ratio);
    memcpy(w->lam, w->rhs, sizeof(double) * (size_t)m);
    for (int c = 0; c < n; c++) {
        double acc = w->qdd0[c];
        for (int k = 0; k < m; k++) acc += w->Y[(size_t)k * n + c] * w->lam[k];
        qdd[c] = acc;
    }
    mbs_rtree_accel_pass(t, w, qdd);
    return 0;
}


/* ---- the kinematic problems of a fully driven mechanism ------------------------------- */

/* K = J J^T of the circuit equations' rows in w->J (m x n), and w->rhs = r
 * (zeros when r is NULL). */
static void s_gram(const mbs_rtree *t, mbs_rtree_ws *w, const double *r)
{
    int n = t->n, m = t->neq;
    for (int i = 0; i < m; i++) {
        const double *Ji = w->J + (size_t)i * n;
        for (int k = 0; k <= i; k++) {
            const double *Jk = w->J + (size_t)k * n;
            double acc = 0;
            for (int c = 0; c < n; c++) acc += Ji[c] * Jk[c];
            w->K[i * m + k] = w->K[k * m + i] = acc;
        }
        w->rhs[i] = r ? r[i] : 0;
    }
}

int mbs_rtree_min_norm(const mbs_rtree *t, mbs_rtree_ws *w, const double *r, double *x)
{
    int n = t->n, m = t->neq;
    memset(x, 0, sizeof(double) * (size_t)(n > 0 ? n : 1));
    if (m == 0) return 0;
    /* K = J J^T, then x = J^T K^-1 r (dependent rows get no share) */
    s_gram(t, w, r);
    double ratio;
    int dropped = s_solve_rows(t, w, m, &ratio);
    for (int k = 0; k < m; k++) {
        const double *Jk = w->J + (size_t)k * n;
        for (int c = 0; c < n; c++) x[c] += Jk[c] * w->rhs[k];
    }
    return dropped;
}

int mbs_rtree_independent_rows(const mbs_rtree *t, mbs_rtree_ws *w, char *on)
{
    int m = t->neq, count = 0;
    s_gram(t, w, NULL);
    double ratio;
    s_solve_rows(t, w, m, &ratio);
    /* s_ldl_solve leaves the pivots on K's diagonal, 0 where it dropped one */
    for (int i = 0; i < m; i++) {
        on[i] = w->K[i * m + i] > 0;
        count += on[i];
    }
    return count;
}
