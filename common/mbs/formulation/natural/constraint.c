/*
 * constraint.c - evaluation of the constraint equations Phi(q, t) = 0 built in
 * ncs.c: residuals, Jacobian Phi_q, Phi_t, the acceleration right-hand side
 * gamma and second derivatives for Newton matrices.
 *
 * Two equation kinds (model.h):
 *   LIN  Phi = A(q)[k] - g(t)                     (linear in q)
 *   DOT  Phi = sum_m w_m(t) P_m(q).Q_m(q) - g(t)  (bilinear in q)
 *   ANG  Phi = A_x(q) sin th - A_y(q) cos th       (th a variable of its own)
 *   TRIG Phi = sum_m W_m(th) P_m(q).Q_m(q) - s     (W_m = c_m cos k th + s_m sin k th)
 * with the affine vectors A, P, Q linear maps of body coordinates.
 */
#include "mbs/model/model.h"
#include "mbs/linalg/vec.h"
#include "mbs/formulation/natural/natural.h"

#include <stdlib.h>
#include <string.h>

/* Value and time derivatives of a time weight. */
static inline void s_tw(const mbs_tw *w, double t, double *v, double *dv, double *ddv)
{
    /* most weights and targets are constants: no call, no switch */
    if (w->kind == MBS_TW_CONST) {
        *v = w->base; *dv = 0; *ddv = 0;
        return;
    }
    double f = 0, df = 0, ddf = 0;
    if (w->kind != MBS_TW_CONST && w->fn) f = mbs_fn_eval(w->fn, t, &df, &ddf);
    *v = *dv = *ddv = 0; /* every kind sets them; this keeps -O3's flow analysis quiet */
    switch (w->kind) {
    case MBS_TW_CONST:
        *v = w->base; *dv = 0; *ddv = 0;
        break;
    case MBS_TW_FN:
        *v = w->base + f; *dv = df; *ddv = ddf;
        break;
    case MBS_TW_SIN: {
        double p = w->base + f, s = sin(p), c = cos(p);
        *v = s; *dv = c * df; *ddv = -s * df * df + c * ddf;
        break;
    }
    case MBS_TW_NEGCOS: {
        double p = w->base + f, s = sin(p), c = cos(p);
        *v = -c; *dv = s * df; *ddv = c * df * df + s * ddf;
        break;
    }
    }
}

/* A TRIG equation's weights at th: W_m, dW_m/dth and d2W_m/dth2 =
 * -k^2 W_m (m < 2). */
static inline void s_trig_w(const mbs_eq *e, double th, double *W, double *W1, double *W2)
{
    double k = e->tk, c = cos(k * th), s = sin(k * th);
    for (int p = 0; p < 2; p++) {
        W[p] = e->tc[p][0] * c + e->tc[p][1] * s;
        W1[p] = k * (e->tc[p][1] * c - e->tc[p][0] * s);
        W2[p] = -k * k * W[p];
    }
}

void mbs_cons_trig_w(const mbs_eq *e, double th, double *W, double *W1)
{
    double W2[2];
    s_trig_w(e, th, W, W1, W2);
}

/* Jacobian of an affine vector: for each variable it touches, the dim-column
 * dA/dx_var (terms touching the same variable are summed). Returns count. */
typedef struct {
    int var;
    double col[3];
} s_jcol;

static int s_av_jac(const mbs_model *m, const mbs_avec *a, s_jcol *out)
{
    int n = 0, dim = m->dim, nb = m->nb;
    for (int t = 0; t < a->nterm; t++) {
        const mbs_body *bd = &m->body[a->t[t].body];
        double sg = a->t[t].sign;
        for (int s = 0; s < nb; s++) {
            int var = bd->var[s];
            if (var < 0) continue;
            double c[3] = {0, 0, 0};
            int nz = 0;
            for (int i = 0; i < dim; i++) {
                c[i] = sg * a->t[t].L[i * nb + s];
                nz |= c[i] != 0;
            }
            if (!nz) continue;
            int k = 0;
            while (k < n && out[k].var != var) k++;
            if (k == n) { out[n].var = var; memset(out[n].col, 0, sizeof out[n].col); n++; }
            for (int i = 0; i < dim; i++) out[k].col[i] += c[i];
        }
    }
    return n;
}

/* Position of variable var in the equation's sorted column list. */
static int s_colpos(const mbs_eq *e, int var)
{
    int lo = 0, hi = e->nnz - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (e->cols[mid] == var) return mid;
        if (e->cols[mid] < var) lo = mid + 1; else hi = mid - 1;
    }
    return -1;
}

int mbs_cons_jac_prepare(mbs_model *m)
{
    /* the exact number of columns first (a bound of 2 nb per affine vector
     * made the 10,000-body spatial chains' check 80 MB larger) */
    size_t total = 0;
    for (int i = 0; i < m->neq; i++) {
        const mbs_eq *e = &m->eq[i];
        int lin = e->kind == MBS_EQ_LIN || e->kind == MBS_EQ_ANG, nv = lin ? 1 : e->nprod;
        for (int p = 0; p < nv; p++)
            for (int sd = 0; sd < (lin ? 1 : 2); sd++) {
                s_jcol jc[2 * MBS_NB_MAX];
                total += (size_t)s_av_jac(m, lin ? e->a : e->p[p][sd], jc);
            }
    }
    free(m->jcpool);
    m->jcpool = malloc(sizeof(mbs_jcol) * (total > 0 ? total : 1));
    if (!m->jcpool) return MBS_ENOMEM;
    mbs_jcol *next = m->jcpool;
    for (int i = 0; i < m->neq; i++) {
        mbs_eq *e = &m->eq[i];
        memset(e->jc, 0, sizeof e->jc);
        memset(e->njc, 0, sizeof e->njc);
        /* no time in the target nor, for a DOT equation, in its weights:
         * mbs_cons_phit's -dg with dg = 0 and no weight's term, -0 */
        e->tconst = e->g.kind == MBS_TW_CONST;
        for (int p = 0; e->kind == MBS_EQ_DOT && p < e->nprod; p++) e->tconst &= e->w[p].kind == MBS_TW_CONST;
        int lin = e->kind == MBS_EQ_LIN || e->kind == MBS_EQ_ANG, nv = lin ? 1 : e->nprod;
        if (e->kind == MBS_EQ_ANG || e->kind == MBS_EQ_TRIG) e->apos = s_colpos(e, e->avar);
        if (!lin && e->svar >= 0) e->spos = s_colpos(e, e->svar);
        for (int p = 0; p < nv; p++)
            for (int sd = 0; sd < (lin ? 1 : 2); sd++) {
                s_jcol jc[2 * MBS_NB_MAX];
                int n = s_av_jac(m, lin ? e->a : e->p[p][sd], jc);
                e->jc[p][sd] = next;
                e->njc[p][sd] = n;
                for (int k = 0; k < n; k++) {
                    next[k].var = jc[k].var;
                    next[k].pos = s_colpos(e, jc[k].var);
                    memcpy(next[k].col, jc[k].col, sizeof next[k].col);
                }
                next += n;
            }
    }
    return 0;
}

/* The values at one x of the last few affine vectors evaluated (by their
 * place in the model's pool): equations share their vectors (a 3-D body's
 * six rigid-body equations use its three NCS vectors twelve times, a
 * point-coincidence's three equations one difference), and consecutive
 * equations use the same ones, so four entries replaced in turn find 9 of
 * the 12 evaluations of a free body.  The values are those of
 * mbs_avec_eval, bit for bit. */
#define S_AVC 4
typedef struct {
    const mbs_avec *a[S_AVC];
    double v[S_AVC][3];
    int next;
} s_avcache;

/* a(x) from the cache c (filled on a miss): the cache's entry itself, read
 * in place (a copy read the three values just stored one by one as a pair
 * and a single, which stalled the store forwarding: 16 % of the function's
 * cycles in perf).  A miss does not replace the entry keep (NULL or a value
 * still in use): the entry after it is taken instead. */
static inline const double *s_av_at(const mbs_model *m, s_avcache *c, const mbs_avec *a, const double *x,
                                    const double *keep)
{
    int i = 0;
    while (i < S_AVC && c->a[i] != a) i++;
    if (i == S_AVC) {
        i = c->next;
        if (c->v[i] == keep) i = (i + 1) % S_AVC;
        c->next = (i + 1) % S_AVC;
        c->a[i] = a;
        mbs_avec_eval(m, a, x, 0, c->v[i]);
    }
    return c->v[i];
}

/* Offset of each equation's Jacobian values in the pooled array. */
static inline const int *s_eq_cols0(const mbs_model *m) { return m->colpool; }

/* a . b over dim components, summed from 0 in index order; the plane
 * written out (constant trip counts: the roller chain evaluates 104
 * equations per Newton iteration), the same operations. */
static inline double s_dot(const double *a, const double *b, int dim)
{
    double s = 0;
    if (dim == 2) {
        s += a[0] * b[0];
        s += a[1] * b[1];
        return s;
    }
    for (int k = 0; k < dim; k++) s += a[k] * b[k];
    return s;
}

/* row[jc[k].pos] += w (jc[k].col . O) over the nj columns jc. */
static inline void s_jcols_add(const mbs_jcol *jc, int nj, const double *O, double w, double *row, int dim)
{
    for (int k = 0; k < nj; k++) row[jc[k].pos] += w * s_dot(jc[k].col, O, dim);
}

void mbs_cons_eval(const mbs_model *m, const double *x, double t, double *phi, double *jac)
{
    int dim = m->dim;
    s_avcache avc = {{NULL}, {{0}}, 0};
    for (int i = 0; i < m->neq; i++) {
        const mbs_eq *e = &m->eq[i];
        double *row = jac ? jac + (e->cols - s_eq_cols0(m)) : NULL;
        double g, dg, ddg;
        s_tw(&e->g, t, &g, &dg, &ddg);
        if (row) memset(row, 0, sizeof(double) * (size_t)e->nnz);
        if (e->kind == MBS_EQ_LIN) {
            const double *A = s_av_at(m, &avc, e->a, x, NULL);
            phi[i] = A[e->comp] - g;
            if (row) {
                const mbs_jcol *jc = e->jc[0][0];
                for (int k = 0; k < e->njc[0][0]; k++) row[jc[k].pos] += jc[k].col[e->comp];
            }
            continue;
        }
        if (e->kind == MBS_EQ_ANG) {
            /* A_x sin th - A_y cos th: d/dA = (s, -c), d/dth = A_x c + A_y s */
            double th = x[e->avar], sn = sin(th), cs = cos(th);
            const double *A = s_av_at(m, &avc, e->a, x, NULL);
            phi[i] = A[0] * sn - A[1] * cs - g;
            if (row) {
                const mbs_jcol *jc = e->jc[0][0];
                for (int k = 0; k < e->njc[0][0]; k++) row[jc[k].pos] += jc[k].col[0] * sn - jc[k].col[1] * cs;
                row[e->apos] += A[0] * cs + A[1] * sn;
            }
            continue;
        }
        double val = -g;
        /* a slide variable's term (linear: nothing in gamma or the Hessian) */
        if (e->svar >= 0) {
            val -= x[e->svar];
            if (row) row[e->spos] -= 1;
        }
        /* TRIG: the weights are functions of th; d/dth = sum W_m' P_m.Q_m */
        int trig = e->kind == MBS_EQ_TRIG;
        double W[2], W1[2], W2[2], dth = 0;
        if (trig) s_trig_w(e, x[e->avar], W, W1, W2);
        for (int p = 0; p < e->nprod; p++) {
            double w, dw, ddw;
            if (trig) w = W[p]; else s_tw(&e->w[p], t, &w, &dw, &ddw);
            /* a vector's square (a link's length, a unit vector): one
             * lookup, and below its Jacobian columns (the same for both
             * factors) once, each added twice */
            int sq = e->p[p][0] == e->p[p][1];
            const double *P = s_av_at(m, &avc, e->p[p][0], x, NULL);
            const double *Q = sq ? P : s_av_at(m, &avc, e->p[p][1], x, P);
            double pq = s_dot(P, Q, dim);
            val += w * pq;
            if (trig) dth += W1[p] * pq;
            if (!row) continue;
            if (sq) {
                /* P = Q: both lists' adds below are w (col . P) at the same
                 * places (distinct within a list), each place its two
                 * additions in the same order */
                const mbs_jcol *jc = e->jc[p][0];
                for (int k = 0; k < e->njc[p][0]; k++) {
                    double a = w * s_dot(jc[k].col, P, dim);
                    row[jc[k].pos] += a;
                    row[jc[k].pos] += a;
                }
                continue;
            }
            s_jcols_add(e->jc[p][0], e->njc[p][0], Q, w, row, dim);
            s_jcols_add(e->jc[p][1], e->njc[p][1], P, w, row, dim);
        }
        if (trig && row) row[e->apos] += dth;
        phi[i] = val;
    }
}

void mbs_cons_phit(const mbs_model *m, const double *x, double t, double *phit)
{
    int dim = m->dim;
    for (int i = 0; i < m->neq; i++) {
        const mbs_eq *e = &m->eq[i];
        if (e->tconst) {
            /* the value of the loop below: -dg = -0, no weight's term */
            phit[i] = -0.0;
            continue;
        }
        double g, dg, ddg;
        s_tw(&e->g, t, &g, &dg, &ddg);
        double val = -dg;
        if (e->kind == MBS_EQ_DOT) {
            for (int p = 0; p < e->nprod; p++) {
                double w, dw, ddw, P[3], Q[3];
                s_tw(&e->w[p], t, &w, &dw, &ddw);
                if (dw == 0) continue;
                mbs_avec_eval(m, e->p[p][0], x, 0, P);
                mbs_avec_eval(m, e->p[p][1], x, 0, Q);
                double pq = 0;
                for (int a = 0; a < dim; a++) pq += P[a] * Q[a];
                val += dw * pq;
            }
        }
        phit[i] = val;
    }
}

/* A product P.Q of two affine vectors of an equation and its rates at
 * (x, v): P.Q, P'.Q + P.Q' and P'.Q' (the acceleration terms of DOT and
 * TRIG equations). */
static void s_prod_rates(const mbs_model *m, const mbs_avec *const pv[2], const double *x, const double *v, int dim, double *pq,
                         double *pdq, double *pdqd)
{
    double P[3], Q[3], Pd[3], Qd[3];
    mbs_avec_eval(m, pv[0], x, 0, P);
    mbs_avec_eval(m, pv[1], x, 0, Q);
    mbs_avec_eval(m, pv[0], v, 1, Pd);
    mbs_avec_eval(m, pv[1], v, 1, Qd);
    double a0 = 0, a1 = 0, a2 = 0;
    for (int a = 0; a < dim; a++) {
        a0 += P[a] * Q[a];
        a1 += Pd[a] * Q[a] + P[a] * Qd[a];
        a2 += Pd[a] * Qd[a];
    }
    *pq = a0; *pdq = a1; *pdqd = a2;
}

void mbs_cons_gamma(const mbs_model *m, const double *x, const double *v, double t, double *gam)
{
    int dim = m->dim;
    for (int i = 0; i < m->neq; i++) {
        const mbs_eq *e = &m->eq[i];
        double g, dg, ddg;
        s_tw(&e->g, t, &g, &dg, &ddg);
        double val = -ddg;
        if (e->kind == MBS_EQ_DOT) {
            for (int p = 0; p < e->nprod; p++) {
                double w, dw, ddw, pq, pdq, pdqd;
                s_tw(&e->w[p], t, &w, &dw, &ddw);
                s_prod_rates(m, e->p[p], x, v, dim, &pq, &pdq, &pdqd);
                val += ddw * pq + 2 * dw * pdq + 2 * w * pdqd;
            }
        } else if (e->kind == MBS_EQ_TRIG) {
            /* Phi'' - Phi_q q'' - Phi_th th'' = sum W 2 P'.Q' + 2 th' W' (P.Q)' + th'^2 W'' P.Q */
            double W[2], W1[2], W2[2], w = v[e->avar];
            s_trig_w(e, x[e->avar], W, W1, W2);
            for (int p = 0; p < e->nprod; p++) {
                double pq, pdq, pdqd;
                s_prod_rates(m, e->p[p], x, v, dim, &pq, &pdq, &pdqd);
                val += 2 * W[p] * pdqd + 2 * w * W1[p] * pdq + w * w * W2[p] * pq;
            }
        } else if (e->kind == MBS_EQ_ANG) {
            /* Phi'' - Phi_q q'' = 2 th' (A_x' c + A_y' s) + th'^2 (A_y c - A_x s) */
            double A[3], Ad[3], th = x[e->avar], w = v[e->avar], sn = sin(th), cs = cos(th);
            mbs_avec_eval(m, e->a, x, 0, A);
            mbs_avec_eval(m, e->a, v, 1, Ad);
            val += 2 * w * (Ad[0] * cs + Ad[1] * sn) + w * w * (A[1] * cs - A[0] * sn);
        }
        gam[i] = val;
    }
}

void mbs_cons_hess_add(const mbs_model *m, const double *x, double t, const double *lam, double scale,
                       void (*add)(void *ctx, int i, int j, double v), void *ctx)
{
    int dim = m->dim;
    for (int i = 0; i < m->neq; i++) {
        const mbs_eq *e = &m->eq[i];
        if (e->kind == MBS_EQ_ANG && lam[i] != 0) {
            /* d2/dA dth = (c, s), d2/dth2 = A_y c - A_x s */
            double A[3], th = x[e->avar], sn = sin(th), cs = cos(th), f = scale * lam[i];
            mbs_avec_eval(m, e->a, x, 0, A);
            const mbs_jcol *jc = e->jc[0][0];
            for (int k = 0; k < e->njc[0][0]; k++) {
                double d = jc[k].col[0] * cs + jc[k].col[1] * sn;
                if (d == 0) continue;
                add(ctx, jc[k].var, e->avar, f * d);
                add(ctx, e->avar, jc[k].var, f * d);
            }
            add(ctx, e->avar, e->avar, f * (A[1] * cs - A[0] * sn));
            continue;
        }
        if ((e->kind != MBS_EQ_DOT && e->kind != MBS_EQ_TRIG) || lam[i] == 0) continue;
        /* TRIG: the q-th block of W' (P.Q)_q and the th-th term W'' P.Q
         * beside the products' own */
        int trig = e->kind == MBS_EQ_TRIG;
        double W[2], W1[2], W2[2];
        if (trig) {
            s_trig_w(e, x[e->avar], W, W1, W2);
            double f2 = 0;
            for (int p = 0; p < e->nprod; p++) {
                double P[3], Q[3], pq = 0;
                mbs_avec_eval(m, e->p[p][0], x, 0, P);
                mbs_avec_eval(m, e->p[p][1], x, 0, Q);
                for (int a = 0; a < dim; a++) pq += P[a] * Q[a];
                f2 += W2[p] * pq;
                double f1 = scale * lam[i] * W1[p];
                for (int sd = 0; sd < 2; sd++) {
                    const double *o = sd ? P : Q;
                    const mbs_jcol *jc = e->jc[p][sd];
                    for (int k = 0; k < e->njc[p][sd]; k++) {
                        double d = 0;
                        for (int a = 0; a < dim; a++) d += jc[k].col[a] * o[a];
                        if (d == 0) continue;
                        add(ctx, jc[k].var, e->avar, f1 * d);
                        add(ctx, e->avar, jc[k].var, f1 * d);
                    }
                }
            }
            add(ctx, e->avar, e->avar, scale * lam[i] * f2);
        }
        for (int p = 0; p < e->nprod; p++) {
            double w, dw, ddw;
            if (trig) w = W[p]; else s_tw(&e->w[p], t, &w, &dw, &ddw);
            const mbs_jcol *jp = e->jc[p][0], *jq = e->jc[p][1];
            int np = e->njc[p][0], nq = e->njc[p][1];
            double f = scale * lam[i] * w;
            /* d/dx (P_x^T Q + Q_x^T P) = P_x^T Q_x + Q_x^T P_x */
            for (int a = 0; a < np; a++)
                for (int b = 0; b < nq; b++) {
                    double d = 0;
                    for (int k = 0; k < dim; k++) d += jp[a].col[k] * jq[b].col[k];
                    if (d == 0) continue;
                    add(ctx, jp[a].var, jq[b].var, f * d);
                    add(ctx, jq[b].var, jp[a].var, f * d);
                }
        }
    }
}

void mbs_cons_jv(const mbs_model *m, const double *jac, const double *v, double *y)
{
    for (int i = 0; i < m->neq; i++) {
        const mbs_eq *e = &m->eq[i];
        const double *row = jac + (e->cols - m->colpool);
        double acc = 0;
        for (int k = 0; k < e->nnz; k++) acc += row[k] * v[e->cols[k]];
        y[i] = acc;
    }
}

void mbs_cons_jtl(const mbs_model *m, const double *jac, const double *l, double *z)
{
    for (int i = 0; i < m->neq; i++) {
        const mbs_eq *e = &m->eq[i];
        const double *row = jac + (e->cols - m->colpool);
        for (int k = 0; k < e->nnz; k++) z[e->cols[k]] += row[k] * l[i];
    }
}

void mbs_cons_jvq_add(const mbs_model *m, const double *x, const double *v, double t, double scale,
                      void (*add)(void *ctx, int row, int col, double val), void *ctx)
{
    int dim = m->dim;
    for (int r = 0; r < m->neq; r++) {
        const mbs_eq *e = &m->eq[r];
        if (e->kind == MBS_EQ_ANG) {
            /* d/dq [A' . (s, -c) + th' (A_x c + A_y s)]: on A th' (c, s), on
             * th A' . (c, s) + th' (A_y c - A_x s) */
            double A[3], Ad[3], th = x[e->avar], w = v[e->avar], sn = sin(th), cs = cos(th);
            mbs_avec_eval(m, e->a, x, 0, A);
            mbs_avec_eval(m, e->a, v, 1, Ad);
            const mbs_jcol *jc = e->jc[0][0];
            for (int k = 0; k < e->njc[0][0]; k++) {
                double d = w * (jc[k].col[0] * cs + jc[k].col[1] * sn);
                if (d != 0) add(ctx, r, jc[k].var, scale * d);
            }
            add(ctx, r, e->avar, scale * (Ad[0] * cs + Ad[1] * sn + w * (A[1] * cs - A[0] * sn)));
            continue;
        }
        if (e->kind != MBS_EQ_DOT && e->kind != MBS_EQ_TRIG) continue;
        /* TRIG: Phi_q v = sum W (P.Q)' + th' sum W' P.Q; its q-derivative
         * adds th' W' (P.Q)_q, its th-derivative sum W' (P.Q)' + th' W'' P.Q */
        int trig = e->kind == MBS_EQ_TRIG;
        double W[2], W1[2], W2[2];
        if (trig) {
            double w = v[e->avar], dth = 0;
            s_trig_w(e, x[e->avar], W, W1, W2);
            for (int p = 0; p < e->nprod; p++) {
                double P[3], Q[3], Pd[3], Qd[3], pq = 0, pdq = 0;
                mbs_avec_eval(m, e->p[p][0], x, 0, P);
                mbs_avec_eval(m, e->p[p][1], x, 0, Q);
                mbs_avec_eval(m, e->p[p][0], v, 1, Pd);
                mbs_avec_eval(m, e->p[p][1], v, 1, Qd);
                for (int a = 0; a < dim; a++) {
                    pq += P[a] * Q[a];
                    pdq += Pd[a] * Q[a] + P[a] * Qd[a];
                }
                dth += W1[p] * pdq + w * W2[p] * pq;
                for (int sd = 0; sd < 2; sd++) {
                    const double *o = sd ? P : Q;
                    const mbs_jcol *jc = e->jc[p][sd];
                    for (int k = 0; k < e->njc[p][sd]; k++) {
                        double d = 0;
                        for (int a = 0; a < dim; a++) d += jc[k].col[a] * o[a];
                        if (d != 0) add(ctx, r, jc[k].var, scale * w * W1[p] * d);
                    }
                }
            }
            add(ctx, r, e->avar, scale * dth);
        }
        for (int p = 0; p < e->nprod; p++) {
            double w, dw, ddw, Pd[3], Qd[3];
            if (trig) w = W[p]; else s_tw(&e->w[p], t, &w, &dw, &ddw);
            /* d/dq [w (Pdot . Q + P . Qdot)] = w (Pdot^T Q_q + Qdot^T P_q) */
            mbs_avec_eval(m, e->p[p][0], v, 1, Pd);
            mbs_avec_eval(m, e->p[p][1], v, 1, Qd);
            const mbs_jcol *jp = e->jc[p][0], *jq = e->jc[p][1];
            int np = e->njc[p][0], nq = e->njc[p][1];
            for (int b = 0; b < nq; b++) {
                double d = 0;
                for (int k = 0; k < dim; k++) d += Pd[k] * jq[b].col[k];
                if (d != 0) add(ctx, r, jq[b].var, scale * w * d);
            }
            for (int a = 0; a < np; a++) {
                double d = 0;
                for (int k = 0; k < dim; k++) d += Qd[k] * jp[a].col[k];
                if (d != 0) add(ctx, r, jp[a].var, scale * w * d);
            }
        }
    }
}
