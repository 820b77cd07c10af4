/*
 * analysis.c - the analyses before (and besides) time integration:
 * assembly of the initial configuration, redundant-constraint detection,
 * degrees of freedom, singular-configuration check, projection of the given
 * velocities onto the constraints, consistent initial accelerations, and
 * static equilibrium.
 */
#include "mbs/analysis/analysis.h"
#include "mbs/analysis/rank_margin.h"
#include "mbs/model/accuracy.h"
#include "mbs/linalg/sparse_qr.h"
#include "mbs/analysis/system.h"
#include "mbs/linalg/vec.h"
#include "mbs/formulation/natural/natural.h"
#include "mbs/dynamics/force.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Penalty of the step-free augmented-Lagrangian solves (projections,
 * accelerations): alpha |Phi_q|^2 / m ~ 1e6, so the multiplier iteration
 * contracts by ~1e-6 per pass while cond(M + alpha Phi_q^T Phi_q) ~ 1e6
 * keeps round-off in the solution near 1e-10 (a larger alpha trades
 * accuracy for nothing: the iteration already converges in 2-3 passes). */
void mbs_baumgarte_rhs(const mbs_model *m, mbs_data *d, const double *x, const double *v, double t, double ab,
                       double bb, double *c)
{
    mbs_cons_eval(m, x, t, d->phi, d->jac);
    mbs_cons_phit(m, x, t, d->phit);
    mbs_cons_gamma(m, x, v, t, d->gam);
    mbs_cons_jv(m, d->jac, v, d->r1);
    for (int i = 0; i < m->neq; i++) c[i] = d->gam[i] + 2 * ab * (d->r1[i] + d->phit[i]) + bb * bb * d->phi[i];
}

double mbs_alpha(const mbs_model *m)
{
    return 1e6 * m->mass_scale / (m->length_scale * m->length_scale);
}

/* Name of what an equation belongs to, for messages. */
const char *mbs_eq_owner(const mbs_model *m, int i, char *buf, size_t size)
{
    const mbs_eq *e = &m->eq[i];
    if (e->joint >= 0) snprintf(buf, size, "joint '%s'", m->spec->joints[e->joint].name);
    else if (e->joint == -1) snprintf(buf, size, "rigid body '%s'", m->spec->bodies[e->body].name);
    else snprintf(buf, size, "driver of joint '%s'", m->spec->joints[m->spec->drivers[-2 - e->joint].joint].name);
    return buf;
}

/* ---- assembly --------------------------------------------------------------------- */

/* Newton-type assembly: the configuration closest (in the mass metric) to
 * the input that satisfies Phi(x, 0) = 0, by augmented-Lagrangian
 * iterations, which also cope with redundant equations. */
static int s_assemble(const mbs_model *m, mbs_data *d, mbs_errlist *err)
{
    const mbs_solver_spec *o = &m->spec->solver;
    int n = m->nvar, ne = m->neq;
    double tol = o->assembly_tolerance > 0 ? o->assembly_tolerance : 1e-10;
    tol *= m->length_scale;
    double alpha = 1e6;
    double *sigma = d->lam, *f = d->Q, *dx = d->fd_x;
    memset(sigma, 0, sizeof(double) * (size_t)(ne > 0 ? ne : 1));
    int maxit = o->max_assembly_iterations > 0 ? o->max_assembly_iterations : 50;
    double res = 0, best = INFINITY;
    int worst = 0;
    for (int it = 0; it <= maxit; it++) {
        mbs_cons_eval(m, d->x, 0.0, d->phi, d->jac);
        res = mbs_phi_norm(d);
        d->rep.assembly_iterations = it;
        /* remember where the residual was smallest, for the message */
        if (res < best) {
            best = res;
            /* joints and drivers first: rigid-body equations only absorb
             * the misfit of the joints around them */
            worst = -1;
            for (int i = 0; i < ne; i++)
                if (m->eq[i].joint != -1 && (worst < 0 || fabs(d->phi[i]) > fabs(d->phi[worst]))) worst = i;
            if (worst < 0) worst = 0;
        }
        if (res <= tol) break;
        if (it == maxit) break;
        /* (M^ + alpha J^T J) dx = -M^ (x - x_in) - J^T (sigma + alpha phi) */
        if (mbs_spd_build(m, d, 1.0 / m->mass_scale, alpha, 0, 0, d->x, d->v, 0) != 0) {
            /* singular at the input: a structural problem; later: the
             * iteration ran away from an unreachable configuration */
            if (it > 0) { res = NAN; break; }
            mbs_err_add(err, "", "assembly failed: singular system (a body without mass or inertia?)");
            return MBS_ESINGULAR;
        }
        for (int i = 0; i < n; i++) dx[i] = d->x[i] - m->x0[i];
        mbs_mass_mul(m, dx, f);
        for (int i = 0; i < n; i++) f[i] = -f[i] / m->mass_scale;
        double *t = d->r3;
        for (int i = 0; i < ne; i++) t[i] = -(d->eq_on[i] ? sigma[i] + alpha * d->phi[i] : 0);
        mbs_cons_jtl(m, d->jac, t, f);
        mbs_spd_solve(m, d, f);
        double step = 0;
        for (int i = 0; i < n; i++) {
            d->x[i] += f[i];
            if (fabs(f[i]) > step) step = fabs(f[i]);
        }
        /* multiplier update with the new residual */
        mbs_cons_eval(m, d->x, 0.0, d->phi, NULL);
        for (int i = 0; i < ne; i++) if (d->eq_on[i]) sigma[i] += alpha * d->phi[i];
        if (!isfinite(step)) { res = NAN; break; }
    }
    d->rep.assembly_residual = res;
    double mv = 0;
    for (int i = 0; i < n; i++) mv = fmax(mv, fabs(d->x[i] - m->x0[i]));
    d->rep.assembly_max_move = mv;
    if (!(res <= tol)) {
        /* name the equation furthest from satisfied at the best iterate */
        char who[160];
        mbs_err_add(err, "", "cannot assemble the mechanism: the constraint residual stays at %.3g or above "
                    "(largest at %s); check the joint positions and lengths",
                    best, ne > 0 ? mbs_eq_owner(m, worst, who, sizeof who) : "-");
        d->rep.assembly_residual = best;
        return MBS_EASSEMBLY;
    }
    return 0;
}

/* ---- redundancy, degrees of freedom ---------------------------------------------------- */

int mbs_keeps_redundant(const mbs_model *m)
{
    const mbs_solver_spec *o = &m->spec->solver;
    return o->analysis == MBS_ANALYSIS_KINEMATICS ||
           (o->analysis == MBS_ANALYSIS_DYNAMICS && o->integrator == MBS_INT_TRAPEZOIDAL_AL);
}

/* The rank analyses' column exponents (accuracy.h mbs_var_length_exps),
 * made at the first call and kept in d; NULL without memory. */
static const int *s_col_exp(const mbs_model *m, mbs_data *d)
{
    if (!d->rank_colexp && (d->rank_colexp = malloc(sizeof(int) * (size_t)(m->nvar > 0 ? m->nvar : 1))))
        mbs_var_length_exps(m, d->rank_colexp);
    return d->rank_colexp;
}

/* Phi_q^T of d->jac into the zeroed n x neq column-major array A (columns
 * the equations), for the rank-revealing QR, as every rank analysis
 * measures it: each variable's entries times 2^ce[v] (a length in units of
 * the mechanism's length, accuracy.h mbs_var_length_exps), then each
 * equation's by the power of two that brings its length into [0.5, 1)
 * (rank_margin.h mbs_rank_scale).  Exact scalings: equal rows stay equal.
 * Unscaled, a unit vector's row is 2 long and a link-length row 2 sqrt(2) L,
 * so that the answers depended on the unit of length: the roller chain
 * drive's 12.7 mm links had a rank margin of 0.0037 at every regular
 * position, a slider-crank scaled to 0.6 mm warned "close to singular" and
 * one scaled to 60 um had an equation dropped as redundant and a wrong
 * motion. */
static void s_jac_fill(const mbs_model *m, const mbs_data *d, const int *ce, double *A)
{
    int n = m->nvar;
    for (int r = 0; r < m->neq; r++) {
        const mbs_eq *e = &m->eq[r];
        const double *row = d->jac + (e->cols - m->colpool);
        int er = mbs_rank_row_exp(e, row, ce);
        for (int k = 0; k < e->nnz; k++) A[(size_t)r * n + e->cols[k]] = ldexp(row[k], ce[e->cols[k]] + er);
    }
}

void mbs_rank_entry_scales(const mbs_model *m, mbs_data *d, double *w)
{
    const int *ce = s_col_exp(m, d);
    for (int r = 0; r < m->neq; r++) {
        const mbs_eq *e = &m->eq[r];
        const double *row = d->jac + (e->cols - m->colpool);
        double *wr = w + (e->cols - m->colpool);
        int er = ce ? mbs_rank_row_exp(e, row, ce) : 0;
        for (int k = 0; k < e->nnz; k++) wr[k] = ce ? ldexp(1.0, ce[e->cols[k]] + er) : 1.0;
    }
}

/* The same in a new array; NULL when out of memory. */
static double *s_jac_dense(const mbs_model *m, mbs_data *d)
{
    const int *ce = s_col_exp(m, d);
    double *A = ce ? calloc((size_t)m->nvar * (size_t)m->neq, sizeof(double)) : NULL;
    if (A) s_jac_fill(m, d, ce, A);
    return A;
}

/* Above this many entries of the dense Phi_q^T (32 MB; the largest example,
 * 100 balls, has 7.2e5) the redundancy analysis is sparse (sparse_qr.h):
 * a 3000-body chain took 13 s and 315 MB dense. */
#define DENSE_RANK_MAX 4e6

/* Which joints to list as redundant: those owning an equation marked in
 * seen[] (a rigid-body equation stands for the joints of its body whose
 * equations were eliminated into that body's coordinates); a joint whose
 * driver's equation is marked is listed as "NAME (driver)" (two drivers of
 * one freedom: the joints alone did not say which). */
static void s_list_redundant(const mbs_model *m, mbs_data *d, const char *seen)
{
    int ne = m->neq;
    size_t len = 0;
    for (int j = 0; j < m->spec->njoint && seen; j++) {
        int inv = 0, drv = 0;
        const mbs_joint_spec *J = &m->spec->joints[j];
        for (int r = 0; r < ne && !inv; r++)
            inv = seen[r] && (m->eq[r].joint == j ||
                              (m->eq[r].joint == -1 && (m->eq[r].body == J->body[0] || m->eq[r].body == J->body[1])));
        for (int r = 0; r < ne && !drv; r++)
            drv = seen[r] && m->eq[r].joint <= -2 && m->spec->drivers[-2 - m->eq[r].joint].joint == j;
        if (!inv && !drv) continue;
        int w = snprintf(d->rep.redundant_joints + len, sizeof d->rep.redundant_joints - len, "%s%s%s",
                         len ? ", " : "", m->spec->joints[j].name, drv ? " (driver)" : "");
        if (w < 0 || (size_t)w >= sizeof d->rep.redundant_joints - len) break;
        len += (size_t)w;
    }
}

/* The redundancy analysis of a large model by sparse QR: the same outputs
 * as the dense one below (dof, redundant equations switched off, joints
 * listed, conditioning figure), in memory linear in the Jacobian's size. */
static int s_redundancy_sparse(const mbs_model *m, mbs_data *d, mbs_errlist *err)
{
    int n = m->nvar, ne = m->neq;
    long nnz = 0;
    for (int r = 0; r < ne; r++) nnz += m->eq[r].nnz;
    int *cp = malloc(sizeof(int) * ((size_t)ne + 1)), *ri = malloc(sizeof(int) * (size_t)(nnz > 0 ? nnz : 1));
    double *v = malloc(sizeof(double) * (size_t)(nnz > 0 ? nnz : 1));
    char *live = calloc((size_t)ne, 1), *seen = calloc((size_t)ne, 1);
    if (!cp || !ri || !v || !live || !seen) {
        free(cp); free(ri); free(v); free(live); free(seen);
        return MBS_ENOMEM;
    }
    const int *ce = s_col_exp(m, d);
    if (!ce) {
        free(cp); free(ri); free(v); free(live); free(seen);
        return MBS_ENOMEM;
    }
    long q = 0;
    for (int r = 0; r < ne; r++) {
        const mbs_eq *e = &m->eq[r];
        const double *row = d->jac + (e->cols - m->colpool);
        cp[r] = (int)q;
        /* scaled as s_jac_fill scales */
        int er = mbs_rank_row_exp(e, row, ce);
        for (int k = 0; k < e->nnz; k++) { ri[q] = e->cols[k]; v[q] = ldexp(row[k], ce[e->cols[k]] + er); q++; }
    }
    cp[ne] = (int)q;
    double ratio = 0;
    int rank = mbs_sparse_qr_rank(n, ne, cp, ri, v, 1e-9, live, &ratio, seen, 1e-8);
    free(cp); free(ri); free(v);
    if (rank < 0) {
        free(live); free(seen);
        mbs_err_add(err, "", "sparse rank analysis of the constraint Jacobian failed (non-finite entries or out of "
                    "memory)");
        return MBS_ESINGULAR;
    }
    d->rep.min_singular_ratio = ratio;
    if (ratio < 1e-6 && rank > 0) {
        d->rep.singular_warning = 1;
        if (d->rep.warnings < 4)
            snprintf(d->rep.warning[d->rep.warnings++], sizeof d->rep.warning[0],
                     "initial configuration close to singular (min/max |R_kk| = %.2g, sparse QR)", ratio);
    }
    d->rep.dof = n - rank;
    d->rep.redundant = ne - rank;
    d->rep.redundant_joints[0] = 0;
    for (int r = 0; r < ne; r++) if (!live[r]) d->eq_on[r] = 0;
    if (ne > rank) s_list_redundant(m, d, seen);
    free(live); free(seen);
    return 0;
}

/* The redundancy analysis of a Jacobian that splits into independent
 * blocks (free bodies) of full rank, block by block (rank_margin.h): the
 * rank, dof and smallest |R_kk| ratio the dense QR below finds (one dense
 * QR of 200 balls' 2400 x 1200 entries took 0.25 s).  Returns 1 when done,
 * 0 for one block or a rank-deficient matrix (then the dense QR decides
 * which equations to drop, and names the joints). */
static int s_redundancy_blocks(const mbs_model *m, mbs_data *d)
{
    int n = m->nvar, ne = m->neq, rank = 0;
    double *rd = malloc(sizeof(double) * (size_t)ne);
    const int *ce = s_col_exp(m, d);
    int nb = rd && ce ? mbs_blocks_rdiag(m, d->jac, DENSE_RANK_MAX, ce, rd) : -1;
    /* mbs_qrcp_rank's count: |R_kk| above 1e-9 |R_11| */
    for (int i = 0; nb >= 2 && i < ne; i++)
        if (rd[i] > 1e-9 * rd[0] && rd[i] > 0) rank++;
    if (nb < 2 || rank < ne || rank > n) { free(rd); return 0; }
    d->rep.min_singular_ratio = rd[rank - 1] / rd[0];
    if (d->rep.min_singular_ratio < 1e-6) {
        d->rep.singular_warning = 1;
        if (d->rep.warnings < 4)
            snprintf(d->rep.warning[d->rep.warnings++], sizeof d->rep.warning[0],
                     "initial configuration close to singular (R_rr/R_11 = %.2g)", d->rep.min_singular_ratio);
    }
    d->rep.dof = n - rank;
    d->rep.redundant = 0;
    d->rep.redundant_joints[0] = 0;
    free(rd);
    return 1;
}

static int s_redundancy(const mbs_model *m, mbs_data *d, mbs_errlist *err)
{
    int n = m->nvar, ne = m->neq;
    d->rep.dof = n;
    if (ne == 0) { d->rep.min_singular_ratio = 1; return 0; }
    mbs_cons_eval(m, d->x, 0.0, d->phi, d->jac);
    if ((double)n * ne > DENSE_RANK_MAX) return s_redundancy_sparse(m, d, err);
    if (s_redundancy_blocks(m, d)) return 0;
    double *A = s_jac_dense(m, d);
    double *A2 = calloc((size_t)n * (size_t)ne, sizeof(double));
    int *jp = malloc(sizeof(int) * (size_t)ne);
    double *rd = malloc(sizeof(double) * (size_t)(ne < n ? ne : n) + sizeof(double));
    if (!A || !A2 || !jp || !rd) { free(A); free(A2); free(jp); free(rd); return MBS_ENOMEM; }
    memcpy(A2, A, sizeof(double) * (size_t)n * (size_t)ne);
    int rank = mbs_qrcp_rank(n, ne, A, jp, rd, 1e-9);
    if (rank < 0) {
        free(A); free(A2); free(jp); free(rd);
        mbs_err_add(err, "", "rank analysis of the constraint Jacobian failed (non-finite entries)");
        return MBS_ESINGULAR;
    }
    d->rep.min_singular_ratio = rank > 0 && rd[0] > 0 ? rd[rank - 1] / rd[0] : 0;
    if (d->rep.min_singular_ratio < 1e-6 && rank > 0) {
        d->rep.singular_warning = 1;
        if (d->rep.warnings < 4)
            snprintf(d->rep.warning[d->rep.warnings++], sizeof d->rep.warning[0],
                     "initial configuration close to singular (R_rr/R_11 = %.2g)", d->rep.min_singular_ratio);
    }
    d->rep.dof = n - rank;
    d->rep.redundant = ne - rank;
    d->rep.redundant_joints[0] = 0;
    if (ne > rank) {
        /* dependent equations are the columns pivoted past the rank; the
         * joints involved are those of the dependent equations and of the
         * independent ones that combine into them (least squares) */
        char *seen = calloc((size_t)ne, 1);
        double *B = malloc(sizeof(double) * (size_t)n * (size_t)(rank > 0 ? rank : 1));
        double *y = malloc(sizeof(double) * (size_t)(n > rank ? n : rank) + sizeof(double));
        for (int c = rank; c < ne; c++) {
            int dep = jp[c];
            d->eq_on[dep] = 0;
            if (seen) seen[dep] = 1;
            if (!B || !y || !seen || rank == 0) continue;
            for (int q = 0; q < rank; q++) memcpy(B + (size_t)q * n, A2 + (size_t)jp[q] * n, sizeof(double) * (size_t)n);
            memcpy(y, A2 + (size_t)dep * n, sizeof(double) * (size_t)n);
            if (mbs_lstsq(n, rank, B, y) == 0)
                for (int q = 0; q < rank; q++) if (fabs(y[q]) > 1e-8) seen[jp[q]] = 1;
        }
        /* list joint names once each */
        s_list_redundant(m, d, seen);
        free(seen); free(B); free(y);
    }
    free(A); free(A2); free(jp); free(rd);
    (void)err;
    return 0;
}

/* The rank margin without the spatial rotors' variables and equations
 * (model.h rotor3).  Each rotor's seven variables (e, f and its joint's
 * angle th, or the slide) appear in seven equations of their own (six TRIG
 * equations, e_c = cos(N th) u0_c + ..., and th's equation), which hold no
 * other rotor's variables, while no equation of the bodies holds them:
 * the Jacobian is block triangular, [J_bb 0; J_rb J_rr], with J_rr square
 * and regular wherever the joint's axis is defined (e, f an identity
 * block, th's pivot the joint's sin / cos).  Its rank is rank(J_bb) + the
 * rotors' variables, so it loses rank where J_bb does, and the margin is
 * J_bb's.  Measured on the whole matrix instead, it is that of the rotors'
 * scale: the th columns carry N (gear ratio 10 .. 25) in six rows, R_11
 * grows with them, and the four-bar in space with a rotor on every joint
 * had a margin of 1.2e-4 .. 2e-4 all the run (0.015 .. 0.029 without the
 * rotors): the BDF took it as a singular position throughout and loosened
 * its error weights 150 to 1400 times (s_noise_gain), its error growing as
 * the tolerance tightened (1e-8: 3.4e-5 rad, 1e-10: 3.3e-3 rad).  Returns
 * -1 (not applicable: the caller measures the whole matrix) without
 * spatial rotors or when the structure is not the one above. */
static double s_rank_margin_rotors(const mbs_model *m, mbs_data *d, int r0)
{
    if (m->nrotor3 <= 0) return -1;
    const int *ce = s_col_exp(m, d);
    if (!ce) return 0;
    int n = m->nvar, ne = m->neq, nr = 0, nrow = 0;
    char *rv = calloc((size_t)n, 1), *rr = calloc((size_t)ne, 1);
    int *col = malloc(sizeof(int) * (size_t)n);
    double margin = -1;
    if (!rv || !rr || !col) goto out;
    for (int r = 0; r < m->nrotor3; r++) {
        const struct mbs_rotor3 *ro = &m->rotor3[r];
        int vs[7] = {ro->var_th, ro->var_e, ro->var_e + 1, ro->var_e + 2, ro->var_e + 3, ro->var_e + 4, ro->var_e + 5};
        for (int k = 0; k < 7; k++) {
            if (vs[k] < 0 || vs[k] >= n) goto out;
            if (!rv[vs[k]]) nr++;
            rv[vs[k]] = 1;
        }
    }
    /* the rotors' rows: those holding one of their variables */
    for (int i = 0; i < ne; i++) {
        const mbs_eq *e = &m->eq[i];
        for (int k = 0; k < e->nnz && !rr[i]; k++) rr[i] = rv[e->cols[k]];
        nrow += rr[i];
    }
    if (nrow != nr || r0 - nr <= 0) goto out;
    /* Phi_q^T of the bodies' rows and variables (column-major, a row of
     * the Jacobian per column) */
    int nb = 0, neb = ne - nrow;
    for (int v = 0; v < n; v++) col[v] = rv[v] ? -1 : nb++;
    if (r0 - nr > (nb < neb ? nb : neb) || (double)nb * neb > DENSE_RANK_MAX) goto out;
    double *A = calloc((size_t)nb * (size_t)neb + 1, sizeof(double));
    int *jp = calloc((size_t)neb + 1, sizeof(int));
    double *rd = malloc(sizeof(double) * (size_t)(neb < nb ? neb : nb) + sizeof(double));
    if (A && jp && rd) {
        int c = 0;
        for (int i = 0; i < ne; i++) {
            if (rr[i]) continue;
            const mbs_eq *e = &m->eq[i];
            const double *row = d->jac + (e->cols - m->colpool);
            /* scaled as s_jac_fill scales */
            int er = mbs_rank_row_exp(e, row, ce);
            for (int k = 0; k < e->nnz; k++) A[(size_t)c * nb + col[e->cols[k]]] = ldexp(row[k], ce[e->cols[k]] + er);
            c++;
        }
        int rank = mbs_qrcp_rank(nb, neb, A, jp, rd, 1e-9);
        margin = rank >= 0 && rd[0] > 0 ? rd[r0 - nr - 1] / rd[0] : 0;
    }
    free(A); free(jp); free(rd);
out:
    free(rv); free(rr); free(col);
    return margin;
}

/* The dense margin's workspace: Phi_q^T (n x ne), the pivots, |R_kk|, the
 * QR's tau and LAPACK's workspace, made at the first dense margin of the
 * data and kept (the BDF asks at rejected steps: 376 QRs in the chain
 * drive's run, each allocated 258 kB and four more arrays). */
struct mbs_rank_ws {
    int n, ne, lwork;
    double *A, *rd, *tau, *work;
    int *jp;
};

void mbs_rank_ws_free(mbs_data *d)
{
    free(d->rank_colexp);
    d->rank_colexp = NULL;
    struct mbs_rank_ws *w = d->rank_ws;
    if (!w) return;
    free(w->A); free(w->rd); free(w->tau); free(w->work); free(w->jp);
    free(w);
    d->rank_ws = NULL;
}

/* d's workspace for the model's n x ne margin, made on the first call;
 * NULL without memory. */
static struct mbs_rank_ws *s_rank_ws(const mbs_model *m, mbs_data *d)
{
    int n = m->nvar, ne = m->neq, k = ne < n ? ne : n;
    struct mbs_rank_ws *w = d->rank_ws;
    if (w && w->n == n && w->ne == ne) return w;
    mbs_rank_ws_free(d);
    int lwork = mbs_qrcp_lwork(n, ne);
    if (lwork < 1 || !(w = calloc(1, sizeof *w))) return NULL;
    d->rank_ws = w;
    w->n = n;
    w->ne = ne;
    w->lwork = lwork;
    w->A = malloc(sizeof(double) * (size_t)n * (size_t)ne);
    w->jp = malloc(sizeof(int) * (size_t)ne);
    w->rd = malloc(sizeof(double) * (size_t)(k + 1));
    w->tau = malloc(sizeof(double) * (size_t)(k + 1));
    w->work = malloc(sizeof(double) * (size_t)lwork);
    if (!w->A || !w->jp || !w->rd || !w->tau || !w->work) {
        mbs_rank_ws_free(d);
        return NULL;
    }
    return w;
}

double mbs_rank_margin(const mbs_model *m, mbs_data *d)
{
    int n = m->nvar, ne = m->neq, r0 = ne - d->rep.redundant;
    if (ne == 0 || r0 <= 0) return 1;
    /* spatial rotors: the bodies' part alone */
    double mr = s_rank_margin_rotors(m, d, r0);
    if (mr >= 0) return mr;
    /* independent blocks (free bodies) one by one: linear in their number */
    if (r0 <= (ne < n ? ne : n)) {
        const int *ce = s_col_exp(m, d);
        if (!ce) return 0;
        double mb = mbs_rank_margin_blocks(m, d->jac, r0, DENSE_RANK_MAX, ce);
        if (mb != MBS_RANK_ONE_BLOCK) return mb;
    }
    if ((double)n * ne > DENSE_RANK_MAX) return 1;
    /* the dense QR of Phi_q^T in the kept workspace (the same QR as
     * mbs_qrcp_rank's; 0 without memory, as before) */
    struct mbs_rank_ws *w = s_rank_ws(m, d);
    if (!w) return 0;
    memset(w->A, 0, sizeof(double) * (size_t)n * (size_t)ne);
    const int *ce = s_col_exp(m, d);
    if (!ce) return 0;
    s_jac_fill(m, d, ce, w->A);
    double margin = 0;
    int rank = mbs_qrcp_rank_ws(n, ne, w->A, w->jp, w->rd, 1e-9, w->tau, w->work, w->lwork);
    if (rank >= 0 && r0 <= (ne < n ? ne : n) && w->rd[0] > 0) margin = w->rd[r0 - 1] / w->rd[0];
    return margin;
}

int mbs_reselect_redundant(const mbs_model *m, mbs_data *d)
{
    int n = m->nvar, ne = m->neq, r0 = ne - d->rep.redundant;
    if (ne == 0 || d->rep.redundant <= 0 || r0 <= 0 || (double)n * ne > DENSE_RANK_MAX) return 0;
    double *A = s_jac_dense(m, d);
    int *jp = calloc((size_t)ne, sizeof(int));
    double *rd = malloc(sizeof(double) * (size_t)(ne < n ? ne : n) + sizeof(double));
    int changed = 0;
    if (A && jp && rd && mbs_qrcp_rank(n, ne, A, jp, rd, 1e-9) >= 0 && r0 <= (ne < n ? ne : n)) {
        for (int c = 0; c < ne; c++) {
            int on = c < r0, e = jp[c];
            if (d->eq_on[e] != on) changed = 1;
            d->eq_on[e] = (char)on;
            if (!on) d->lam[e] = 0;
        }
    }
    free(A); free(jp); free(rd);
    return changed;
}

/* ---- velocities and accelerations ------------------------------------------------------ */

int mbs_project_velocity(const mbs_model *m, mbs_data *d, const double *vin, double t)
{
    /* f (nvar) and the multipliers sig (neq, which may exceed nvar) */
    double alpha = mbs_alpha(m), *f = d->fd_q0, *sig = d->w2;
    mbs_cons_eval(m, d->x, t, d->phi, d->jac);
    mbs_cons_phit(m, d->x, t, d->phit);
    if (mbs_spd_build(m, d, 1.0, alpha, 0, 0, d->x, d->v, t) != 0) return MBS_ESINGULAR;
    mbs_mass_mul(m, vin, f);
    memset(sig, 0, sizeof(double) * (size_t)(m->neq > 0 ? m->neq : 1));
    /* to rounding: 1e-15 of the size of the equations' terms, |Phi_t| and
     * |Phi_q| |vin|.  Whatever is left is a velocity jump the integrators'
     * first step must make: the BDF counts it whole in its first error
     * estimate, at any step size.  The tolerance was 1e-12 (1 + L): a
     * four-bar driven from rest whose crank was given 5 rad/s kept 4.9e-12
     * in a velocity, 30 x the BDF's local velocity weight at tolerance
     * 1e-10, and the run stopped at t = 0 below min_step (now 6e-16, in 4
     * passes instead of 3; consistent input, every example's, takes one
     * pass as before; solver_test test_inconsistent_start). */
    double jmax = 0, vmax = 0, pmax = 0;
    for (int i = 0; i < m->neq; i++) {
        const mbs_eq *e = &m->eq[i];
        const double *row = d->jac + (e->cols - m->colpool);
        for (int k = 0; k < e->nnz; k++) jmax = fmax(jmax, fabs(row[k]));
        pmax = fmax(pmax, fabs(d->phit[i]));
    }
    for (int i = 0; i < m->nvar; i++) vmax = fmax(vmax, fabs(vin[i]));
    double tol = 1e-15 * fmax(pmax, jmax * vmax);
    /* without convergence the best effort stands: the remaining velocity
     * violation is reported in the metrics */
    (void)mbs_al_solve(m, d, f, d->phit, alpha, tol, 50, d->v, sig);
    return 0;
}

int mbs_accelerations(const mbs_model *m, mbs_data *d, double t)
{
    double alpha = mbs_alpha(m);
    mbs_cons_eval(m, d->x, t, d->phi, d->jac);
    mbs_cons_gamma(m, d->x, d->v, t, d->gam);
    mbs_force_eval(m, d, d->x, d->v, t, d->Q);
    if (mbs_spd_build(m, d, 1.0, alpha, 0, 0, d->x, d->v, t) != 0) return MBS_ESINGULAR;
    double tol = 1e-10 * (1 + fabs(d->Q[0]));
    memset(d->lam, 0, sizeof(double) * (size_t)(m->neq > 0 ? m->neq : 1));
    mbs_al_solve(m, d, d->Q, d->gam, alpha, tol, 50, d->a, d->lam);
    return 0;
}

/* ---- initialisation -------------------------------------------------------------------- */

int mbs_initialize(const mbs_model *m, mbs_data *d, mbs_report *rep, mbs_errlist *err)
{
    int n = m->nvar;
    d->rep = m->report0;
    d->t = 0;
    memcpy(d->x, m->x0, sizeof(double) * (size_t)n);
    memcpy(d->v, m->v0, sizeof(double) * (size_t)n);
    memset(d->a, 0, sizeof(double) * (size_t)n);
    for (int i = 0; i < m->neq; i++) d->eq_on[i] = 1;
    int rc = s_assemble(m, d, err);
    if (!rc) rc = s_redundancy(m, d, err);
    /* the trapezoidal AL tolerates redundant equations in its Newton
     * iterations: it keeps every one, so that no choice of a kept set made
     * here can degenerate later in the motion (Bricard's kept set does at
     * theta1 = pi/2); so does the kinematic analysis, whose position,
     * velocity and acceleration equations are consistent (no drift
     * corrections): on Bricard's kept set it converged on the kept
     * equations' residual while the switched-off one grew to 1.1e-7 near
     * pi/2 (zP3 9.3e-8 of its range, P3's acceleration 0.23 m/s^2 off);
     * with every equation 3e-12.  The others (BDF's and the event-driven KKT matrices,
     * DOPRI5's accelerations) use an independent set, re-selected as the
     * motion goes on (mbs_reselect_redundant): with every equation kept,
     * DOPRI5's accelerations were a least-squares compromise of the
     * redundant equations' disagreeing drift corrections (Bricard: 1.3e-8 m
     * where the independent set gives 1.0e-9 m at the same steps) */
    if (!rc && mbs_keeps_redundant(m))
        for (int i = 0; i < m->neq; i++) d->eq_on[i] = 1;
    if (!rc) {
        rc = mbs_project_velocity(m, d, m->v0, 0);
        double mv = 0;
        for (int i = 0; i < n; i++) mv = fmax(mv, fabs(d->v[i] - m->v0[i]));
        d->rep.velocity_correction = mv;
        if (rc) mbs_err_add(err, "", "velocity projection failed: singular mass matrix");
    }
    if (!rc) {
        rc = mbs_accelerations(m, d, 0);
        if (rc) mbs_err_add(err, "", "initial accelerations: singular system");
    }
    d->rep.constraints_after = m->neq;
    d->rep.coords_after = m->nvar;
    for (int j = 0; j < m->spec->njoint; j++) d->jangle_ref[j] = mbs_joint_coord(m, j, d->x, NULL, NULL);
    if (rep) *rep = d->rep;
    return rc;
}

/* ---- static equilibrium ----------------------------------------------------------------- */

/* Variable i is a unit vector's of a spatial rotor (model.h mbs_rotor3). */
static int s_rotor_vector(const mbs_model *m, int i)
{
    for (int r = 0; r < m->nrotor3; r++)
        if (i >= m->rotor3[r].var_e && i < m->rotor3[r].var_e + 6) return 1;
    return 0;
}

/* The residual r = [Q(x) - Phi_q^T lam; -Phi(x)] at (d->x, d->lam) into rhs
 * (n + ne), and its size: the force part over the force scale plus the
 * constraint part over the length scale (the merit of a step); *rf, *rp
 * the largest entries of each part. */
static double s_static_residual(const mbs_model *m, mbs_data *d, double t, const double *zero, double *rhs,
                                double fscale, double *rf, double *rp)
{
    int n = m->nvar, ne = m->neq;
    mbs_cons_eval(m, d->x, t, d->phi, d->jac);
    mbs_force_eval(m, d, d->x, zero, t, d->Q);
    memcpy(rhs, d->Q, sizeof(double) * (size_t)n);
    double *ml = d->w2;
    for (int i = 0; i < ne; i++) ml[i] = d->eq_on[i] ? -d->lam[i] : 0;
    mbs_cons_jtl(m, d->jac, ml, rhs);
    *rf = 0;
    for (int i = 0; i < n; i++) *rf = fmax(*rf, fabs(rhs[i]));
    *rp = mbs_phi_norm(d);
    for (int i = 0; i < ne; i++) rhs[n + i] = d->eq_on[i] ? -d->phi[i] : 0;
    return *rf / fscale + *rp / m->length_scale;
}

/* Newton on  r = [Q(x) - Phi_q^T lam; Phi(x)] = 0  with the KKT tangent
 * [K + H(lam), Phi_q^T; Phi_q, 0]  (K = -dQ/dx, H the constraint Hessian),
 * each step at most 0.2 of the model's size.  Where the tangent is
 * singular (a degree of freedom without stiffness: a pendulum lying
 * horizontal has none, gravity's moment being stationary there, and so is
 * the residual's size, which no step rule on it can leave), pseudo-
 * transient continuation: mu M added to the tangent, a damped step of the
 * motion towards M^-1 of the unbalanced force (downhill in the potential,
 * so that a stable equilibrium is found rather than the top), every step
 * taken, mu scaled by the ratio of successive residuals (switched
 * evolution relaxation, at most 10 times either way) and dropped to 0,
 * Newton's own step, once below 1e-8 of its start (the force scale over
 * the length and mass scales: g / L for a pendulum).  A model whose
 * tangent is never singular takes Newton's steps as before. */
int mbs_statics(const mbs_model *m, mbs_data *d, double t, mbs_errlist *err)
{
    int n = m->nvar, ne = m->neq;
    const mbs_solver_spec *o = &m->spec->solver;
    double *rhs = d->w1, *zero = d->fd_v;
    memset(zero, 0, sizeof(double) * (size_t)n);
    memset(d->v, 0, sizeof(double) * (size_t)n);
    memset(d->lam, 0, sizeof(double) * (size_t)(ne > 0 ? ne : 1));
    /* every declared contact pair in the forces (and in the outputs after):
     * the active set of contact deactivation was chosen for a time step
     * from the positions at t = 0, and the iterates move further (a ball
     * above the floor comes down onto it) */
    d->c_ready = 0;
    /* the first residual (lam = 0: its force part is the applied forces
     * themselves) gives the force scale */
    double rf, rp;
    s_static_residual(m, d, t, zero, rhs, 1.0, &rf, &rp);
    double fscale = rf > 0 ? rf : 1.0, tolf = 1e-9 * fscale, tolx = 1e-10 * m->length_scale;
    double mu0 = fscale / (m->length_scale * (m->mass_scale > 0 ? m->mass_scale : 1.0)), mu = 0;
    int maxit = o->max_newton > 0 ? 4 * o->max_newton : 100;
    double merit = rf / fscale + rp / m->length_scale;
    int rc = MBS_EDIVERGE;
    for (int it = 0; it < maxit; it++) {
        if (rf <= tolf && rp <= tolx) {
            mbs_cons_gamma(m, d->x, d->v, t, d->gam);
            memset(d->a, 0, sizeof(double) * (size_t)n);
            rc = 0;
            break;
        }
        if (mbs_kkt_build(m, d, mu, 1.0, 0.0, 1.0, d->lam, d->x, zero, t) != 0) {
            /* no stiffness along some direction: continuation */
            mu = mu > 0 ? 10 * mu : mu0;
            if (mu > 1e12 * mu0) {
                mbs_err_add(err, "", "static equilibrium: singular tangent matrix (a redundant constraint, or a "
                            "degree of freedom without stiffness or potential)");
                rc = MBS_ESINGULAR;
                break;
            }
            continue;
        }
        d->met.newton_iterations++;
        mbs_kkt_solve(m, d, rhs);
        /* limit the step to a fraction of the model size (a spatial
         * rotor's unit vectors turn N times as far as its joint: they
         * follow the others and are left out of the measure) */
        double mx = 0;
        for (int i = 0; i < n; i++)
            if (!s_rotor_vector(m, i)) mx = fmax(mx, fabs(rhs[i]));
        double s = mx > 0.2 * m->length_scale ? 0.2 * m->length_scale / mx : 1.0;
        for (int i = 0; i < n; i++) d->x[i] += s * rhs[i];
        for (int i = 0; i < ne; i++) if (d->eq_on[i]) d->lam[i] += s * rhs[n + i];
        double m1 = s_static_residual(m, d, t, zero, rhs, fscale, &rf, &rp);
        if (mu > 0 && merit > 0 && isfinite(m1)) {
            mu *= fmin(10, fmax(0.1, m1 / merit));
            if (mu < 1e-8 * mu0) mu = 0;
        }
        merit = m1;
    }
    if (rc == MBS_EDIVERGE) mbs_err_add(err, "", "static equilibrium not found in %d Newton iterations", maxit);
    return rc;
}
