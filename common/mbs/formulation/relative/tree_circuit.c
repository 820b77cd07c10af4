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

/* Solve the symmetric positive semi-definite K x = r (m x m) by LDL^T; a
 * pivot below eps times the largest diagonal (a dependent equation) gets x
 * = 0 in its place.  The equations are eliminated in the order ord (m
 * entries, K's entries and r's staying at their equations' places): with
 * greedy = 0 as ord holds it (NULL: 0 .. m-1, no pivoting), with greedy =
 * 1 each step takes the remaining equation of the largest pivot (diagonal
 * pivoting; ord, initially 0 .. m-1, gets the order taken).  K is
 * overwritten; *ratio the smallest pivot over the largest diagonal (1 when
 * m = 0); *weak (when given) the smallest kept pivot over the largest
 * diagonal of a dropped equation (1 when none dropped). */
static int s_ldl_solve(int m, double *K, double *r, double *ratio, int *ord, int greedy, double *weak)
{
#define O(i) (ord ? ord[i] : (i))
#define KK(i, j) K[O(i) * m + O(j)]
    double dmax = 0, kept = INFINITY, lost = 0;
    for (int i = 0; i < m; i++) dmax = fmax(dmax, fabs(K[i * m + i]));
    double eps = 1e-11 * (dmax > 0 ? dmax : 1);
    int dropped = 0;
    *ratio = 1;
    for (int j = 0; j < m; j++) {
        if (greedy) {
            /* the remaining equation of the largest pivot to position j */
            int best = j;
            double bd = -INFINITY;
            for (int q = j; q < m; q++) {
                double d = KK(q, q);
                for (int k = 0; k < j; k++) d -= KK(q, k) * KK(q, k) * KK(k, k);
                if (d > bd) { bd = d; best = q; }
            }
            int tmp = ord[j];
            ord[j] = ord[best];
            ord[best] = tmp;
        }
        double d0 = KK(j, j), d = d0;
        for (int k = 0; k < j; k++) d -= KK(j, k) * KK(j, k) * KK(k, k);
        if (dmax > 0) *ratio = fmin(*ratio, fmax(d, 0) / dmax);
        if (!(d > eps)) { d = 0; dropped++; lost = fmax(lost, d0); }
        else kept = fmin(kept, d);
        KK(j, j) = d;
        for (int i = j + 1; i < m; i++) {
            double s = KK(i, j);
            for (int k = 0; k < j; k++) s -= KK(i, k) * KK(j, k) * KK(k, k);
            KK(i, j) = d > 0 ? s / d : 0;
        }
    }
    for (int i = 0; i < m; i++)
        for (int k = 0; k < i; k++) r[O(i)] -= KK(i, k) * r[O(k)];
    for (int i = 0; i < m; i++) r[O(i)] = KK(i, i) > 0 ? r[O(i)] / KK(i, i) : 0;
    for (int i = m - 1; i >= 0; i--)
        for (int k = i + 1; k < m; k++) r[O(i)] -= KK(k, i) * r[O(k)];
    if (weak) *weak = lost > 0 && kept < INFINITY ? kept / lost : 1;
    return dropped;
#undef KK
#undef O
}

/* A spatial chord rotor's slide s = a . b (kind 3): its value's rate sd
 * from the bodies' twists (a' = w_A x a, b' the joint points' velocity
 * difference), after mbs_rtree_kinematics. */
static double s_slide_rate(const mbs_rtree *t, const mbs_rtree_ws *w, const mbs_rrotor *r, const double a[3],
                           const double wA[3])
{
    const mbs_joint_spec *Jt = &t->spec->joints[r->joint];
    double d[3] = {0, 0, 0}, dd[3] = {0, 0, 0}, ad[3];
    for (int side = 0; side < 2; side++) {
        double R[9], p[3], x[3], xd[3], sg = side ? 1.0 : -1.0;
        mbs_twist V;
        mbs_rtree_body(t, w, Jt->body[side], R, p, &V, NULL);
        s_rot(R, 0, Jt->at, x);
        for (int i = 0; i < 3; i++) x[i] += p[i];
        mbs_twist_point_velocity(&V, x, xd);
        for (int i = 0; i < 3; i++) { d[i] += sg * x[i]; dd[i] += sg * xd[i]; }
    }
    v3cross(wA, a, ad);
    return v3dot(ad, d) + v3dot(a, dd);
}

double mbs_rtree_chord_rotor_spin(const mbs_rtree *t, const mbs_rtree_ws *w, const mbs_rrotor *r, double a[3],
                                  double wA[3])
{
    const mbs_joint_spec *Jt = &t->spec->joints[r->joint];
    double R[9], ar[3] = {r->a.t[0].r[0], r->a.t[0].r[1], r->a.t[0].r[2]};
    mbs_twist VA, VB;
    mbs_rtree_body(t, w, Jt->body[0], R, NULL, &VA, NULL);
    mbs_rtree_body(t, w, Jt->body[1], NULL, NULL, &VB, NULL);
    s_rot(R, 0, ar, a);
    v3copy(VA.w, wA);
    if (!w->u) return 0;
    if (r->kind == 2) return (1 - r->n) * v3dot(a, VA.w) + r->n * v3dot(a, VB.w);
    return v3dot(a, VA.w) + r->n * s_slide_rate(t, w, r, a, VA.w);
}

/* s_ldl_solve on w->K, w->rhs (m x m): without pivoting; when that kept an
 * equation of a pivot below 1e-3 of a dropped one's diagonal, again from
 * the same K and rhs with diagonal pivoting, which keeps the strong rows
 * and drops the weak one.  Such a weak row was nearly dependent on rows
 * after it, or nearly zero: a planar loop carried by a turning body (the
 * chord's point equation along the world axis its plane's normal passes:
 * taken first it left a dependent row a rounding pivot above the drop
 * threshold, multipliers of 1e14, the step below min_step); a slider-crank
 * driven at its guide before its crank, both drivers agreeing (the guide's
 * row kept through the dead centres, where it nearly depends on the
 * circuit's, and the crank's dropped: the crank angle drifted 1.8e-4 at
 * tolerance 1e-6).  A mechanism that never meets the bound is solved as
 * before, bit for bit. */
static int s_solve_rows(mbs_rtree_ws *w, int m, double *ratio)
{
    size_t mm = (size_t)m * (size_t)m;
    memcpy(w->Kc, w->K, sizeof(double) * mm);
    memcpy(w->Kc + mm, w->rhs, sizeof(double) * (size_t)m);
    double weak;
    int dropped = s_ldl_solve(m, w->K, w->rhs, ratio, NULL, 0, &weak);
    if (!(weak < 1e-3)) return dropped;
    memcpy(w->K, w->Kc, sizeof(double) * mm);
    memcpy(w->rhs, w->Kc + mm, sizeof(double) * (size_t)m);
    for (int i = 0; i < m; i++) w->ord[i] = i;
    return s_ldl_solve(m, w->K, w->rhs, ratio, w->ord, 1, NULL);
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
        } else if (r->kind >= 2) {
            /* in space: om = (1 - n) a . w_A + n a . w_B (kind 2) or a . w_A
             * + n s' (kind 3), a fixed in A: the row from the bodies'
             * paths' axes (and the slide's row), the bias (w_A x a) . ((1 -
             * n) w_A + n w_B) + a . ((1 - n) al_A + n al_B) with the bias
             * accelerations al in w->A (kind 3: (w_A x a) . w_A = 0, a .
             * al_A + n times the slide's bias) */
            const mbs_joint_spec *Jt = &t->spec->joints[r->joint];
            double a[3], wA[3], fa = r->kind == 2 ? 1 - r->n : 1, fb = r->kind == 2 ? r->n : 0;
            mbs_rtree_chord_rotor_spin(t, w, r, a, wA);
            memset(J, 0, sizeof(double) * (size_t)n);
            w->bias[row] = 0;
            if (r->kind == 3) {
                double av[3], avd[3], avb[3], b[3], bd[3], bb[3];
                s_vec_eval(t, w, &r->a, av, avd, avb, Ja);
                s_vec_eval(t, w, &r->b, b, bd, bb, Jb);
                for (int c = 0; c < n; c++)
                    J[c] = r->n * (b[0] * Ja[c] + b[1] * Ja[n + c] + b[2] * Ja[2 * n + c] + av[0] * Jb[c] +
                                   av[1] * Jb[n + c] + av[2] * Jb[2 * n + c]);
                w->bias[row] = r->n * (v3dot(avb, b) + 2 * v3dot(avd, bd) + v3dot(av, bb));
            }
            for (int side = 0; side < 2; side++) {
                int b = Jt->body[side];
                double f = side ? fb : fa;
                if (b < 0 || f == 0) continue;
                mbs_twist V, A;
                mbs_rtree_body(t, w, b, NULL, NULL, &V, &A);
                for (int i = t->body_node[b]; i >= 0; i = t->node[i].parent)
                    for (int d = 0; d < t->node[i].dof; d++)
                        J[t->node[i].coord + d] += f * v3dot(a, w->S[t->node[i].coord + d].w);
                double wa[3];
                v3cross(wA, a, wa);
                w->bias[row] += f * (v3dot(a, A.w) + v3dot(wa, V.w));
            }
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
    s_solve_rows(w, m, &w->pivot_ratio);
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
    int dropped = s_solve_rows(w, m, &ratio);
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
    s_solve_rows(w, m, &ratio);
    /* s_ldl_solve leaves the pivots on K's diagonal, 0 where it dropped one */
    for (int i = 0; i < m; i++) {
        on[i] = w->K[i * m + i] > 0;
        count += on[i];
    }
    return count;
}
