/*
 * relative_statics.c - the static equilibrium in joint coordinates
 * (relative.h, mbs_rel_statics): the natural analysis's method
 * (analysis/analysis.c mbs_statics) on the tree's generalized forces and
 * its circuit and driver equations.
 */
#include "mbs/run/relative.h"

#include "mbs/linalg/linalg.h"
#include "mbs/model/data.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const mbs_rtree *t;
    mbs_rtree_ws *w;
    int n, m;           /* rates, equations                                    */
    char *on;           /* (m) the independent equations                         */
    double *G, *lam;    /* (n) Q + J^T lam, (m) multipliers                      */
} s_st;

/* G = Q(q) + J(q)^T lam over the equations on, and Phi (w->phi), at time
 * t; the largest entries of each into *rf, *rp. */
static void s_residual(s_st *s, const double *q, double time, double *rf, double *rp)
{
    const mbs_rtree *t = s->t;
    mbs_rtree_ws *w = s->w;
    mbs_rtree_kinematics(t, w, q, NULL);
    mbs_rtree_applied(t, w, time);
    mbs_rtree_gen_forces(t, w, s->G);
    mbs_rtree_circuit(t, w, time);
    *rf = *rp = 0;
    for (int i = 0; i < s->m; i++) {
        if (!s->on[i]) continue;
        const double *Ji = w->J + (size_t)i * s->n;
        for (int c = 0; c < s->n; c++) s->G[c] += Ji[c] * s->lam[i];
        *rp = fmax(*rp, fabs(w->phi[i]));
    }
    for (int c = 0; c < s->n; c++) *rf = fmax(*rf, fabs(s->G[c]));
}

/* The dense mass matrix M (n x n, column-major) at q (u = 0): the inverse of
 * the columns M^-1 e_k of the recursion's factorisation (SPD: Cholesky of
 * M^-1, then M column by column).  0 or -1. */
static int s_mass(s_st *s, const double *q, double time, double *M, double *e)
{
    const mbs_rtree *t = s->t;
    mbs_rtree_ws *w = s->w;
    int n = s->n, rc = 0;
    mbs_rtree_kinematics(t, w, q, NULL);
    mbs_rtree_applied(t, w, time);
    if (mbs_rtree_forward(t, w, e) != 0) return -1;
    mbs_mat Mi;
    if (mbs_mat_init(&Mi, MBS_MAT_SPD, n, n - 1, n - 1) != 0) return -1;
    mbs_mat_zero(&Mi);
    for (int k = 0; k < n; k++) {
        memset(e, 0, sizeof(double) * (size_t)n);
        e[k] = 1;
        mbs_rtree_minv(t, w, e, M + (size_t)k * n); /* column k of M^-1, scratch */
        for (int i = 0; i <= k; i++) mbs_mat_add(&Mi, i, k, M[(size_t)k * n + i]);
    }
    if (mbs_mat_factor(&Mi) != 0) rc = -1;
    for (int k = 0; k < n && !rc; k++) {
        double *col = M + (size_t)k * n;
        memset(col, 0, sizeof(double) * (size_t)n);
        col[k] = 1;
        mbs_mat_solve(&Mi, col);
    }
    mbs_mat_free(&Mi);
    return rc;
}

int mbs_rel_statics(const mbs_model *m, mbs_data *d, const mbs_rtree *t, mbs_rtree_ws *w, double *q, double time,
                    mbs_errlist *err)
{
    int n = t->n, neq = t->neq, N = n + neq;
    const mbs_solver_spec *o = &m->spec->solver;
    double L = m->length_scale > 0 ? m->length_scale : 1.0;
    s_st s = {t, w, n, neq, calloc((size_t)neq + 1, 1), calloc((size_t)n + 1, sizeof(double)),
              calloc((size_t)neq + 1, sizeof(double))};
    double *G0 = calloc((size_t)n + 1, sizeof(double)), *K = calloc((size_t)n * n + 1, sizeof(double));
    double *M = calloc((size_t)n * n + 1, sizeof(double));
    double *A = calloc((size_t)N * N + 1, sizeof(double)), *A2 = calloc((size_t)N * N + 1, sizeof(double));
    double *b = calloc((size_t)N + 1, sizeof(double)), *dq = calloc((size_t)n + 1, sizeof(double));
    double *qh = calloc((size_t)t->nq + 1, sizeof(double)), *rd = calloc((size_t)N + 1, sizeof(double));
    double *phi0 = calloc((size_t)neq + 1, sizeof(double));
    int *jp = calloc((size_t)N + 1, sizeof(int));
    int rc = MBS_EDIVERGE;
    if (!s.on || !s.G || !s.lam || !G0 || !K || !M || !A || !A2 || !b || !dq || !qh || !rd || !jp || !phi0) {
        rc = MBS_ENOMEM;
        goto done;
    }
    memset(s.on, 1, (size_t)neq);
    /* the force scale: the first residual (lam = 0: the applied forces) */
    double rf, rp;
    s_residual(&s, q, time, &rf, &rp);
    int non = mbs_rtree_independent_rows(t, w, s.on);
    s_residual(&s, q, time, &rf, &rp);
    double fscale = rf > 0 ? rf : 1.0, tolf = 1e-9 * fscale, tolx = 1e-10 * L;
    double mu0 = fscale / (L * (m->mass_scale > 0 ? m->mass_scale : 1.0)), mu = 0, cs = fscale / L;
    int maxit = o->max_newton > 0 ? 4 * o->max_newton : 100;
    double merit = rf / fscale + rp / L;
    for (int it = 0; it < maxit; it++) {
        if (rf <= tolf && rp <= tolx) { rc = 0; break; }
        /* the tangent dG/dq by central differences (lam held), the
         * equations' rows J at q */
        memcpy(G0, s.G, sizeof(double) * (size_t)n);
        memcpy(phi0, w->phi, sizeof(double) * (size_t)neq);
        double *Jq = A2; /* J at q, kept while K is built */
        memcpy(Jq, w->J, sizeof(double) * (size_t)neq * n);
        for (int c = 0; c < n; c++) {
            double h = 1e-5 * mbs_rtree_uscale(t, c, L), r1, r2;
            for (int side = 0; side < 2; side++) {
                memcpy(qh, q, sizeof(double) * (size_t)t->nq);
                memset(dq, 0, sizeof(double) * (size_t)n);
                dq[c] = side ? -h : h;
                mbs_rtree_q_add(t, qh, dq);
                s_residual(&s, qh, time, &r1, &r2);
                for (int i = 0; i < n; i++)
                    K[(size_t)c * n + i] = side ? (K[(size_t)c * n + i] - s.G[i]) / (2 * h) : s.G[i];
            }
        }
        if (mu > 0 && s_mass(&s, q, time, M, dq) != 0) {
            mbs_err_add(err, "", "static equilibrium (relative formulation): singular mass matrix in the "
                        "continuation");
            rc = MBS_ESINGULAR;
            break;
        }
        /* the KKT matrix [K - mu M, c J_on^T; c J_on, 0] (column-major,
         * size n + non) and the right-hand side [-G; -c Phi_on], its
         * unknowns dq and dlam / c: c = the force scale over the length
         * scale, so that the equations' pivots are of the stiffnesses'
         * size whatever the forces' (the singularity test below) */
        int S = n + non;
        memset(A, 0, sizeof(double) * (size_t)S * S);
        for (int c = 0; c < n; c++)
            for (int i = 0; i < n; i++) A[(size_t)c * S + i] = K[(size_t)c * n + i] - (mu > 0 ? mu * M[(size_t)c * n + i] : 0);
        for (int r = 0, k = 0; r < neq; r++) {
            if (!s.on[r]) continue;
            for (int c = 0; c < n; c++) {
                double v = cs * Jq[(size_t)r * n + c];
                A[(size_t)c * S + n + k] = v;       /* J_on */
                A[(size_t)(n + k) * S + c] = v;     /* J_on^T */
            }
            b[n + k] = -cs * phi0[r];
            k++;
        }
        for (int i = 0; i < n; i++) b[i] = -G0[i];
        /* a tangent without stiffness along some direction (a pendulum
         * lying horizontal: a pivot of its QR below 1e-6 of the force
         * scale over the length scale, where the differences' rounding is
         * 1e-10 of it): continuation, mu M subtracted (the natural
         * analysis's rule, whose exact tangent is singular there) */
        memcpy(A2, A, sizeof(double) * (size_t)S * S);
        int rank = mbs_qrcp_rank(S, S, A2, jp, rd, 0);
        for (int i = 0; i < S && rank == S; i++) rank -= !(rd[i] > 1e-6 * cs);
        if (rank < S) {
            mu = mu > 0 ? 10 * mu : mu0;
            if (mu > 1e12 * mu0) {
                mbs_err_add(err, "", "static equilibrium (relative formulation): singular tangent matrix (a degree "
                            "of freedom without stiffness or potential)");
                rc = MBS_ESINGULAR;
                break;
            }
            /* the residual (and w->phi) at q again: the next pass reads them */
            s_residual(&s, q, time, &rf, &rp);
            continue;
        }
        memcpy(A2, A, sizeof(double) * (size_t)S * S);
        if (mbs_lstsq(S, S, A2, b) != 0) { rc = MBS_ESINGULAR; break; }
        d->met.newton_iterations++;
        /* each step at most 0.2 of the model's size along a slide, 0.2 rad
         * along an angle */
        double sc = 1;
        for (int c = 0; c < n; c++) {
            double lim = 0.2 * mbs_rtree_uscale(t, c, L);
            if (fabs(b[c]) * sc > lim) sc = lim / fabs(b[c]);
        }
        for (int c = 0; c < n; c++) dq[c] = sc * b[c];
        mbs_rtree_q_add(t, q, dq);
        for (int r = 0, k = 0; r < neq; r++)
            if (s.on[r]) s.lam[r] += sc * cs * b[n + k++];
        s_residual(&s, q, time, &rf, &rp);
        double m1 = rf / fscale + rp / L;
        if (mu > 0 && merit > 0 && isfinite(m1)) {
            mu *= fmin(10, fmax(0.1, m1 / merit));
            if (mu < 1e-8 * mu0) mu = 0;
        }
        merit = m1;
    }
    if (rc == MBS_EDIVERGE)
        mbs_err_add(err, "", "static equilibrium not found in %d Newton iterations (relative formulation)", maxit);
    if (rc == 0) {
        /* w at the equilibrium: its multipliers, at rest (no acceleration),
         * as the reactions read them */
        double rf1, rp1;
        s_residual(&s, q, time, &rf1, &rp1);
        memcpy(w->lam, s.lam, sizeof(double) * (size_t)neq);
        /* at rest the rotors on chords carry no force */
        memset(w->lam + neq, 0, sizeof(double) * (size_t)t->nrr);
        memset(w->A, 0, sizeof(mbs_twist) * (size_t)(t->nnode > 0 ? t->nnode : 1));
    }
done:
    free(s.on); free(s.G); free(s.lam); free(G0); free(K); free(M); free(A); free(A2); free(b); free(dq);
    free(qh); free(rd); free(jp); free(phi0);
    return rc;
}
