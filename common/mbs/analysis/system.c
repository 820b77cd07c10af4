/*
 * system.c - see system.h.
 */
#include "mbs/analysis/system.h"
#include "mbs/model/clock.h"
#include "mbs/formulation/natural/natural.h"
#include "mbs/dynamics/force.h"

#include <math.h>
#include <string.h>

double mbs_phi_norm(const mbs_data *d)
{
    double r = 0;
    for (int i = 0; i < d->ne; i++) {
        if (!d->eq_on[i]) continue;
        if (isnan(d->phi[i])) return NAN; /* a diverged state must not look assembled */
        if (fabs(d->phi[i]) > r) r = fabs(d->phi[i]);
    }
    return r;
}

/* ---- SPD ------------------------------------------------------------------------ */

typedef struct {
    const mbs_model *m;
    mbs_mat *A;
} s_symadd;

/* Symmetrised add of a general (i, j, v) entry into the upper triangle. */
static void s_sym_add(void *ctx, int i, int j, double v)
{
    s_symadd *s = ctx;
    int pi = s->m->iperm[i], pj = s->m->iperm[j];
    if (pi == pj) mbs_mat_add(s->A, pi, pj, v);
    else if (pi < pj) mbs_mat_add(s->A, pi, pj, 0.5 * v);
    else mbs_mat_add(s->A, pj, pi, 0.5 * v);
}

int mbs_spd_build(const mbs_model *m, mbs_data *d, double cM, double cP, double cK, double cC, const double *x,
                  const double *v, double t)
{
    mbs_mat *A = &d->spd;
    double t0 = mbs_now();
    mbs_mat_zero(A);
    for (int i = 0; i < m->nvar; i++) {
        int pi = m->iperm[i];
        for (int k = m->M_ptr[i]; k < m->M_ptr[i + 1]; k++) {
            int pj = m->iperm[m->M_col[k]];
            if (pi <= pj) mbs_mat_add(A, pi, pj, cM * m->M_val[k]);
        }
    }
    for (int r = 0; r < m->neq; r++) {
        if (!d->eq_on[r]) continue;
        const mbs_eq *e = &m->eq[r];
        const double *row = d->jac + (e->cols - m->colpool);
        for (int a = 0; a < e->nnz; a++) {
            int pa = m->iperm[e->cols[a]];
            double ra = cP * row[a];
            for (int b = 0; b < e->nnz; b++) {
                int pb = m->iperm[e->cols[b]];
                if (pa <= pb) mbs_mat_add(A, pa, pb, ra * row[b]);
            }
        }
    }
    if ((cK != 0 || cC != 0) && (m->nstate_el > 0 || m->spec->ncontact > 0)) {
        s_symadd ctx = {m, A};
        mbs_force_jac(m, d, x, v, t, cK, cC, s_sym_add, &ctx);
        d->met.jacobian_evaluations++;
    }
    int info = mbs_mat_factor(A);
    d->met.factorizations++;
    d->al_cm = cM;
    d->al_cp = cP;
    mbs_note_system(d, m->nvar);
    d->met.linear_algebra_seconds += mbs_now() - t0;
    return info;
}

void mbs_spd_solve(const mbs_model *m, mbs_data *d, double *b)
{
    int n = m->nvar;
    double *w = d->r4;
    for (int p = 0; p < n; p++) w[p] = b[m->perm[p]];
    mbs_mat_solve(&d->spd, w);
    for (int p = 0; p < n; p++) b[m->perm[p]] = w[p];
}

int mbs_al_solve(const mbs_model *m, mbs_data *d, const double *f, const double *c, double alpha, double tol,
                 int maxit, double *y, double *sigma)
{
    int n = m->nvar, ne = m->neq;
    double *rhs = d->r3, *res = d->r2, *tmp = d->r1;
    for (int it = 1; it <= maxit; it++) {
        for (int i = 0; i < ne; i++) tmp[i] = d->eq_on[i] ? sigma[i] + alpha * c[i] : 0;
        memcpy(rhs, f, sizeof(double) * (size_t)n);
        for (int i = 0; i < ne; i++) tmp[i] = -tmp[i];
        mbs_cons_jtl(m, d->jac, tmp, rhs);
        memcpy(y, rhs, sizeof(double) * (size_t)n);
        mbs_spd_solve(m, d, y);
        /* one step of iterative refinement: A is ill-conditioned by design
         * (alpha large), so the directions along the constraints pollute the
         * others at cond(A) eps; r = b - (cM M + alpha J^T J) y, y += A^-1 r */
        mbs_mass_mul(m, y, res);
        for (int i = 0; i < n; i++) rhs[i] -= d->al_cm * res[i];
        mbs_cons_jv(m, d->jac, y, res);
        for (int i = 0; i < ne; i++) tmp[i] = d->eq_on[i] ? -d->al_cp * res[i] : 0;
        mbs_cons_jtl(m, d->jac, tmp, rhs);
        mbs_spd_solve(m, d, rhs);
        for (int i = 0; i < n; i++) y[i] += rhs[i];
        /* residual of the linear constraint and multiplier update */
        mbs_cons_jv(m, d->jac, y, res);
        double rn = 0;
        for (int i = 0; i < ne; i++) {
            if (!d->eq_on[i]) continue;
            double r = res[i] + c[i];
            sigma[i] += alpha * r;
            if (fabs(r) > rn) rn = fabs(r);
        }
        if (rn <= tol) return it;
        /* redundant equations kept on (the AL integrators keep them all,
         * analysis.c): where the drift makes their right-hand sides
         * disagree, no acceleration satisfies every equation and r never
         * vanishes; the iteration has converged when the residual has no
         * component the equations can still remove, Phi_q^T r = 0 (the
         * multipliers then only grow along the redundant combination,
         * which moves nothing).  Measured against tol x the largest
         * Jacobian entry.  (Before, Bricard's DOPRI5 stages ran into the
         * 30-iteration cap: 12 x the iterations, an error floor of 1.8e-7 m.) */
        if (d->rep.redundant > 0) {
            double jmax = 0, gn = 0;
            for (int i = 0; i < ne; i++) {
                const mbs_eq *e = &m->eq[i];
                const double *row = d->jac + (e->cols - m->colpool);
                for (int k = 0; k < e->nnz; k++) jmax = fmax(jmax, fabs(row[k]));
                tmp[i] = d->eq_on[i] ? res[i] + c[i] : 0;
            }
            memset(rhs, 0, sizeof(double) * (size_t)n);
            mbs_cons_jtl(m, d->jac, tmp, rhs);
            for (int i = 0; i < n; i++) gn = fmax(gn, fabs(rhs[i]));
            if (gn <= tol * jmax) return it;
        }
    }
    return -1;
}

/* ---- KKT ------------------------------------------------------------------------ */

typedef struct {
    const mbs_model *m;
    mbs_mat *A;
    double scale;
} s_kktadd;

static void s_kkt_add(void *ctx, int i, int j, double v)
{
    s_kktadd *s = ctx;
    mbs_mat_add(s->A, s->m->kiperm[i], s->m->kiperm[j], s->scale * v);
}

int mbs_kkt_build(const mbs_model *m, mbs_data *d, double cM, double cK, double cC, double cH, const double *lam,
                  const double *x, const double *v, double t)
{
    mbs_mat *A = &d->kkt;
    int n = m->nvar;
    double t0 = mbs_now();
    mbs_mat_zero(A);
    for (int i = 0; i < n; i++)
        for (int k = m->M_ptr[i]; k < m->M_ptr[i + 1]; k++)
            mbs_mat_add(A, m->kiperm[i], m->kiperm[m->M_col[k]], cM * m->M_val[k]);
    for (int r = 0; r < m->neq; r++) {
        int pr = m->kiperm[n + r];
        if (!d->eq_on[r]) { mbs_mat_add(A, pr, pr, 1.0); continue; }
        const mbs_eq *e = &m->eq[r];
        const double *row = d->jac + (e->cols - m->colpool);
        for (int a = 0; a < e->nnz; a++) {
            int pc = m->kiperm[e->cols[a]];
            mbs_mat_add(A, pr, pc, row[a]);
            mbs_mat_add(A, pc, pr, row[a]);
        }
    }
    s_kktadd ctx = {m, A, 1.0};
    if ((cK != 0 || cC != 0) && (m->nstate_el > 0 || m->spec->ncontact > 0)) {
        mbs_force_jac(m, d, x, v, t, cK, cC, s_kkt_add, &ctx);
    }
    if (cH != 0 && lam) {
        double *l = d->r1;
        for (int i = 0; i < m->neq; i++) l[i] = d->eq_on[i] ? lam[i] : 0;
        mbs_cons_hess_add(m, x, t, l, cH, s_kkt_add, &ctx);
    }
    d->met.jacobian_evaluations++;
    int info = mbs_mat_factor(A);
    d->met.factorizations++;
    mbs_note_system(d, m->nkkt);
    d->met.linear_algebra_seconds += mbs_now() - t0;
    return info;
}

void mbs_kkt_solve(const mbs_model *m, mbs_data *d, double *rhs)
{
    int N = m->nkkt;
    double *w = d->r4;
    for (int p = 0; p < N; p++) w[p] = rhs[m->kperm[p]];
    mbs_mat_solve(&d->kkt, w);
    for (int p = 0; p < N; p++) rhs[m->kperm[p]] = w[p];
}

/* ---- stabilised index-2 (GGL) BDF system ----------------------------------------------- */

/* A block of the GGL matrix: entries (i, j) of a callback that speaks in
 * variables or equations land at nodes (row_off + i, col_off + j). */
typedef struct {
    mbs_add_fn add;
    void *ctx;
    int row_off, col_off;
    long *count;          /* counting mode (mbs_ggl_emit with bound)          */
} s_gglblk;

static void s_ggl_blk_add(void *ctx, int i, int j, double v)
{
    s_gglblk *s = ctx;
    if (s->count) { (*s->count)++; return; }
    s->add(s->ctx, s->row_off + i, s->col_off + j, v);
}

/* mbs_ggl_emit's last part (mbs_ggl_emit_blocks' entries at their nodes
 * of the whole matrix), or in counting mode (bound) an upper bound of their
 * number. */
static void s_ggl_emit_var(const mbs_model *m, mbs_data *d, double w0, const double *x, const double *v, double t,
                           int contacts, mbs_add_fn add, void *ctx, long *bound)
{
    int n = m->nvar, ne = m->neq;
    if (bound) {
        /* counting: at most every pair of an element's variables, for K and
         * for C; the Hessian's and d(Phi_q v)/dq's entries with every
         * multiplier on */
        long cnt = 0;
        for (int e = 0; e < m->nstate_el; e++) cnt += 2L * m->stel[e].nvar * m->stel[e].nvar;
        if (contacts)
            for (int k = 0; k < m->spec->ncontact; k++) cnt += 2L * m->cfel[k].nvar * m->cfel[k].nvar;
        s_gglblk hq = {add, ctx, n, 0, &cnt}, jq = {add, ctx, 2 * n + ne, 0, &cnt};
        double *l = d->r1;
        for (int i = 0; i < ne; i++) l[i] = 1.0;
        mbs_cons_hess_add(m, x, t, l, 1.0 / w0, s_ggl_blk_add, &hq);
        mbs_cons_jvq_add(m, x, v, t, 1.0, s_ggl_blk_add, &jq);
        *bound += cnt;
        return;
    }
    /* the blocks at their nodes: K and H in the v rows' q columns, C in
     * their v columns, d(Phi_q v)/dq in the mu rows' q columns */
    s_gglblk kq = {add, ctx, n, 0, NULL}, kv = {add, ctx, n, n, NULL}, hq = {add, ctx, n, 0, NULL},
             jq = {add, ctx, 2 * n + ne, 0, NULL};
    mbs_ggl_blocks b = {s_ggl_blk_add, &kq, s_ggl_blk_add, &kv, s_ggl_blk_add, &hq, s_ggl_blk_add, &jq};
    mbs_ggl_emit_blocks(m, d, w0, x, v, t, contacts, &b);
}

void mbs_ggl_emit(const mbs_model *m, mbs_data *d, double w0, const double *x, const double *v, double t,
                  int contacts, mbs_add_fn add, void *ctx, long *bound)
{
    int n = m->nvar, ne = m->neq;
    /* counting mode: every entry below is one triplet */
    long cnt = 0;
#define ADD(i, j, val) do { if (bound) cnt++; else add(ctx, (i), (j), (val)); } while (0)
    /* F1 = (w0 q + bq - v - Phi_q^T mu) / w0:  I, -I/w0, -Phi_q^T (mu' = mu/w0) */
    for (int i = 0; i < n; i++) {
        ADD(i, i, 1.0);
        ADD(i, n + i, -1.0 / w0);
    }
    /* F2 = (M (w0 v + bv) + Phi_q^T lam - Q) / w0:  M + C/w0, (K + H)/w0, Phi_q^T */
    for (int i = 0; i < n; i++)
        for (int k = m->M_ptr[i]; k < m->M_ptr[i + 1]; k++) ADD(n + i, n + m->M_col[k], m->M_val[k]);
    for (int r = 0; r < ne; r++) {
        int pl = 2 * n + r, pm = 2 * n + ne + r;
        if (!d->eq_on[r] && !bound) {
            ADD(pl, pl, 1.0);
            ADD(pm, pm, 1.0);
            continue;
        }
        if (bound) cnt += 2;
        const mbs_eq *e = &m->eq[r];
        const double *row = d->jac + (e->cols - m->colpool);
        for (int a = 0; a < e->nnz; a++) {
            int c = e->cols[a];
            ADD(c, pm, -row[a]);      /* F1: -Phi_q^T mu'     */
            ADD(n + c, pl, row[a]);   /* F2: Phi_q^T lam'     */
            ADD(pl, c, row[a]);       /* F3: Phi_q dq         */
            ADD(pm, n + c, row[a]);   /* F4: Phi_q dv         */
        }
    }
#undef ADD
    if (bound) *bound += cnt;
    /* then the blocks of the forces' and the constraints' derivatives */
    s_ggl_emit_var(m, d, w0, x, v, t, contacts, add, ctx, bound);
}

void mbs_ggl_emit_blocks(const mbs_model *m, mbs_data *d, double w0, const double *x, const double *v, double t,
                         int contacts, const mbs_ggl_blocks *b)
{
    int ne = m->neq;
    /* force stiffness and damping (finite differences; the compliant
     * contacts only when they are force elements) */
    if (m->nstate_el > 0 || m->spec->ncontact > 0) {
        if (contacts) {
            /* K and C are different blocks: one pass over the contacts */
            mbs_force_jac_split(m, d, x, v, t, 1.0 / w0, b->kq, b->kq_ctx, 1.0 / w0, b->kv, b->kv_ctx);
        } else {
            mbs_force_jac_noncontact(m, d, x, v, t, 1.0 / w0, 0.0, b->kq, b->kq_ctx);
            mbs_force_jac_noncontact(m, d, x, v, t, 0.0, 1.0 / w0, b->kv, b->kv_ctx);
        }
    }
    /* constraint Hessian */
    double *l = d->r1;
    for (int i = 0; i < ne; i++) l[i] = d->eq_on[i] ? d->lam[i] : 0;
    mbs_cons_hess_add(m, x, t, l, 1.0 / w0, b->hq, b->hq_ctx);
    /* F4 = Phi_q v + Phi_t depends on q through Phi_q; the eq nodes of mu
     * must be adjacent to the q nodes of the same equation (they are: the
     * ordering links mu_r with q_i through F1) */
    mbs_cons_jvq_add(m, x, v, t, 1.0, b->jq, b->jq_ctx);
}


/* Banded sink of the GGL matrix: nodes through the model's ordering. */
typedef struct {
    const mbs_model *m;
    mbs_mat *A;
} s_gglband;

static void s_ggl_band_add(void *ctx, int i, int j, double v)
{
    s_gglband *s = ctx;
    mbs_mat_add(s->A, s->m->giperm[i], s->m->giperm[j], v);
}

void mbs_ggl_structure(const mbs_model *m, int hess_superset, void (*add)(void *ctx, int i, int j), void *ctx)
{
    int n = m->nvar, ne = m->neq;
    for (int i = 0; i < n; i++) add(ctx, i, n + i);
    for (int i = 0; i < n; i++)
        for (int p = m->M_ptr[i]; p < m->M_ptr[i + 1]; p++) add(ctx, n + i, n + m->M_col[p]);
    for (int e = 0; e < m->nstate_el; e++)
        for (int a = 0; a < m->stel[e].nvar; a++) {
            for (int b = 0; b < m->stel[e].nvar; b++) {
                add(ctx, n + m->stel[e].vars[a], n + m->stel[e].vars[b]);
                add(ctx, n + m->stel[e].vars[a], m->stel[e].vars[b]);
            }
            for (int b = 0; b < m->stel[e].ncvar; b++) {
                add(ctx, n + m->stel[e].vars[a], n + m->stel[e].cvars[b]);
                add(ctx, n + m->stel[e].vars[a], m->stel[e].cvars[b]);
            }
        }
    for (int i = 0; i < m->spec->nshape; i++) {
        int b = m->spec->shapes[i].body;
        if (b < 0) continue;
        for (int a = 0; a < m->nb; a++)
            for (int c = 0; c < m->nb; c++) {
                int va = m->body[b].var[a], vc = m->body[b].var[c];
                if (va < 0 || vc < 0) continue;
                add(ctx, n + va, vc);
                add(ctx, n + va, n + vc);
            }
    }
    for (int r = 0; r < ne; r++)
        for (int a = 0; a < m->eq[r].nnz; a++) {
            int c = m->eq[r].cols[a];
            add(ctx, n + c, 2 * n + r);
            add(ctx, c, 2 * n + ne + r);
            add(ctx, 2 * n + r, c);
            add(ctx, 2 * n + ne + r, n + c);
            if (hess_superset)
                for (int b = 0; b < m->eq[r].nnz; b++) add(ctx, n + c, m->eq[r].cols[b]);
        }
}

int mbs_ggl_build(const mbs_model *m, mbs_data *d, double w0, const double *x, const double *v, double t)
{
    mbs_mat *A = &d->ggl;
    double t0 = mbs_now();
    mbs_mat_zero(A);
    s_gglband ctx = {m, A};
    mbs_ggl_emit(m, d, w0, x, v, t, 1, s_ggl_band_add, &ctx, NULL);
    d->met.jacobian_evaluations++;
    int info = mbs_mat_factor(A);
    d->met.factorizations++;
    mbs_note_system(d, m->nggl);
    d->met.linear_algebra_seconds += mbs_now() - t0;
    return info;
}

void mbs_ggl_solve(const mbs_model *m, mbs_data *d, double *rhs)
{
    int N = m->nggl;
    double *w = d->r4;
    for (int p = 0; p < N; p++) w[p] = rhs[m->gperm[p]];
    mbs_mat_solve(&d->ggl, w);
    for (int p = 0; p < N; p++) rhs[m->gperm[p]] = w[p];
}
