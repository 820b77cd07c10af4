/*
 * integrator_ed.c - planar event-driven integration of the frictional
 * translational joint with clearance (seed 003, Zhuang & Wang 2012).
 *
 * Smooth phases: Dormand-Prince 5(4) as integrator_rk.c, on the index-1
 * equations with Baumgarte stabilisation of every bilateral constraint,
 *     M a + Phi_q^T lam - W^T F_T = Q,
 *     Phi_q a = -gamma - 2 alpha_B (Phi_q v + Phi_t) - beta_B^2 Phi,
 * with the MODE of each frictional joint fixed within a step:
 *   slip  F_T = -mu sigma (s_1 N_1 + s_2 N_2) = mu sigma (s_1 lam_1 + s_2 lam_2)
 *         (sigma = sign v_t, s_k = sign N_k): linear in the multipliers, so
 *         the KKT matrix is nonsymmetric; solved densely (LU);
 *   stick the extra bilateral constraint v_t = 0, stabilised as
 *         W a + gam_T = -2 alpha_B v_t, with multiplier -F_T.
 * Events (joint_friction.h for the symbols), one function each, positive
 * while the mode is valid:
 *   slip: sigma v_t;  stick: mu_s (|N_1| + |N_2|) - |F_T|;  each end: s_k N_k
 * (mu_s >= mu the static coefficient: a joint sticks while its friction is
 * within mu_s sum |N_k| and slips with mu).
 * A step whose end makes an armed function negative is re-taken from its
 * start with the step size found by the Illinois method (regula falsi) on
 * the smallest function, to a time tolerance; the run continues from just
 * past the event.  There the normal-force signs flip, and every joint whose
 * stick/slip state may change (the event's joint and all sticking joints)
 * gets its new mode from the horizontal LCP of seed 003: a standard LCP in
 * the friction state (s_mode_lcp, Lemke's method) for assumed normal-force
 * signs, re-solved while a sign is contradicted.
 * A function is armed once it has been seen positive, so that a mode chosen
 * at a function's zero (slip reversal) does not fire at once.
 *
 * The mechanism comes through the formulation boundary only (issue 12,
 * docs/formulations.md "The contact rows"): the DAE form (M, Q, Phi_q and
 * its pattern, the Baumgarte right-hand side, the rank margin) and the
 * contact rows (the rigid pairs' points for ed_contacts.c, the clearance
 * joints' records and sliding rows W, V), kept in the workspace
 * (mbs_ed_ws_make); the natural coordinates give theirs in
 * contact_natural.c.
 */
#include "mbs/integrate/integrators.h"
#include "mbs/model/accuracy.h"
#include "mbs/integrate/dopri5.h"
#include "mbs/integrate/ed_contacts.h"
#include "mbs/linalg/lcp.h"
#include "mbs/contact/contact.h" /* mbs_cforce, the outputs' record of a point force */

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { S_SLIP = 0, S_STICK = 1, S_FREE = 2 };

struct mbs_ed_ws {
    /* the mechanism, as the formulation gives it (mbs_ed_ws_make) */
    mbs_dae_form f;      /* equations of motion                                */
    mbs_contact_rows rows; /* rigid contacts and clearance joints              */
    int n, ne;           /* velocities, constraint equations                   */
    int *eq_off, *eq_nnz; /* (ne) row r of Phi_q: d->jac[eq_off ..), columns
                            f.jac_cols[eq_off ..)                            */
    int nf;              /* frictional joints                                  */
    int nk;              /* KKT unknowns: n + ne + nf + 2 np (rigid contacts)  */
    int ng;              /* event functions: 3 nf + 2 np                       */
    mbs_edc c;           /* planar rigid contacts (ed_contacts.h)              */
    char *crossed;       /* (ng) functions negative at a trial step's end      */
    double hlast;        /* last accepted step (step growth with contacts)     */
    mbs_clearance *fj;   /* (nf)                                               */
    int *mode, *sigma;   /* (nf) S_SLIP/S_STICK/S_FREE, slip direction +-1     */
    int *sg;             /* (2 nf) sign of N_k assumed by the mode             */
    int *armed;          /* (ng) event functions armed                         */
    int *cand;           /* (nf) joints of the mode LCP                        */
    int *fslip;          /* (nf) at an event: slip direction forced on a sticking
                            joint whose stick function fired, or 0           */
    double *g0, *g1;     /* (ng) event functions: step start, trial end        */
    double *W, *gamT, *vt; /* (nf n), (nf), (nf) sliding kinematics            */
    double *V;           /* (nf n) moment rows of the wall contact points      */
    double *tau;         /* (nf) sum s_k |N_k| / sum |N_k|: the friction's arm
                            in half widths (joint_friction.h)                 */
    double *dtau;        /* (nf) last change of tau in s_solve's passes       */
    int unsettled;       /* joint + 1 whose arm did not settle in s_solve    */
    double *N, *FT;      /* (2 nf), (nf) forces of the last solve              */
    mbs_mat K;           /* dense nonsymmetric KKT matrix                      */
    mbs_mat Rm;          /* (nf x nf) I + D Hb of the mode LCP, dense LU        */
    double *sol;         /* (nk)                                               */
    double *resp;        /* (nf nk) responses to unit friction forces          */
    double *x1, *v1, *a1, *lam1; /* trial step end (n, n, n, ne)               */
    /* mode LCP (size 2 nf at most) and its dense temporaries */
    double *lM, *lq, *lz, *lw, *lt; /* (16 nf^2), (4 nf) x 3, (16 nf^2)        */
    double *G, *H, *R, *F0, *Fz, *A0, *N0; /* (nf^2), (2nf nf), (nf^2), (nf), (4 nf^2; Hb), (nf), (2 nf) */
    void *lwork;
    double *mval;        /* (f.mass_ptr[n]) M(q)'s values at the evaluation's q
                            (f.mass_eval), NULL with a constant M            */
    double nmax;         /* largest sum |N_k| seen (scale of the checks)       */
    int ready;           /* modes set for this run (s_prepare)                 */
};

int mbs_ed_ws_make(const mbs_dae_form *fm, const mbs_contact_rows *r, const mbs_model *m, mbs_data *d)
{
    struct mbs_ed_ws *w = calloc(1, sizeof *w);
    if (!w) {
        if (r->release) r->release(r->ctx);
        return -1;
    }
    d->ed = w;
    w->f = *fm;
    w->rows = *r;
    /* the dense KKT matrix takes M's entries, constant or M(q) of
     * mass_eval at each evaluation; the dopri5 stages take q' = v (not yet
     * advance's q' = G(q) v) */
    if (!fm->mass_ptr || (!fm->mass_val && !fm->mass_eval) || fm->advance || (fm->nq > 0 && fm->nq != fm->n)) {
        mbs_ed_data_free(d);
        return -1;
    }
    int n = fm->n, ne = fm->ne, nf = r->nclear, f1 = nf > 0 ? nf : 1;
    w->n = n;
    w->ne = ne;
    int np = 0;
    for (int k = 0; m->dim == 2 && k < m->spec->ncontact; k++) np += m->spec->contacts[k].law == MBS_LAW_RIGID;
    w->nf = nf;
    w->nk = n + ne + nf + 2 * np;
    w->ng = 3 * nf + 2 * np;
    int ok = mbs_edc_init(&w->f, &w->rows, m, &w->c, n + ne + nf, w->nk) == 0, g1 = w->ng > 0 ? w->ng : 1;
#define ALLOC(p, cnt) do { (p) = calloc((size_t)(cnt), sizeof *(p)); ok &= (p) != NULL; } while (0)
    ALLOC(w->eq_off, ne + 1); ALLOC(w->eq_nnz, ne + 1);
    for (int i = 0; ok && i < ne; i++) fm->jac_row(fm->ctx, i, &w->eq_off[i], &w->eq_nnz[i]);
    ALLOC(w->fj, f1); ALLOC(w->mode, f1); ALLOC(w->sigma, f1); ALLOC(w->sg, 2 * f1); ALLOC(w->armed, g1); ALLOC(w->crossed, g1);
    ALLOC(w->cand, f1); ALLOC(w->fslip, f1); ALLOC(w->g0, g1); ALLOC(w->g1, g1);
    ALLOC(w->W, f1 * (n + 1)); ALLOC(w->V, f1 * (n + 1)); ALLOC(w->tau, f1); ALLOC(w->dtau, f1); ALLOC(w->gamT, f1); ALLOC(w->vt, f1); ALLOC(w->N, 2 * f1); ALLOC(w->FT, f1);
    ALLOC(w->sol, w->nk + 1); ALLOC(w->resp, f1 * (w->nk + 1));
    ALLOC(w->x1, n + 1); ALLOC(w->v1, n + 1); ALLOC(w->a1, n + 1); ALLOC(w->lam1, ne + 1);
    if (!fm->mass_val) ALLOC(w->mval, fm->mass_ptr[n] + 1);
    ALLOC(w->lM, 16 * f1 * f1); ALLOC(w->lq, 4 * f1); ALLOC(w->lz, 4 * f1); ALLOC(w->lw, 4 * f1);
    ALLOC(w->lt, 16 * f1 * f1);
    ALLOC(w->G, f1 * f1); ALLOC(w->H, 2 * f1 * f1); ALLOC(w->R, f1 * f1); ALLOC(w->F0, f1);
    ALLOC(w->Fz, 4 * f1 * f1); ALLOC(w->A0, f1); ALLOC(w->N0, 2 * f1);
#undef ALLOC
    w->lwork = malloc(mbs_lcp_lemke_worksize(4 * f1));
    ok &= w->lwork != NULL;
    if (ok && mbs_mat_init(&w->K, MBS_MAT_GEN, w->nk, w->nk - 1, w->nk - 1)) ok = 0;
    if (ok && mbs_mat_init(&w->Rm, MBS_MAT_GEN, f1, f1 - 1, f1 - 1)) ok = 0;
    if (!ok) { mbs_ed_data_free(d); return -1; }
    return 0;
}

void mbs_ed_data_free(mbs_data *d)
{
    struct mbs_ed_ws *w = d->ed;
    if (!w) return;
    free(w->fj); free(w->mode); free(w->sigma); free(w->sg); free(w->armed); free(w->cand); free(w->fslip);
    free(w->g0); free(w->g1); free(w->W); free(w->V); free(w->tau); free(w->dtau); free(w->gamT); free(w->vt); free(w->N); free(w->FT);
    free(w->sol); free(w->resp); free(w->x1); free(w->v1); free(w->a1); free(w->lam1); free(w->mval);
    free(w->lM); free(w->lq); free(w->lz); free(w->lw); free(w->lt);
    free(w->G); free(w->H); free(w->R); free(w->F0); free(w->Fz); free(w->A0); free(w->N0);
    free(w->lwork); free(w->crossed);
    mbs_edc_free(&w->c);
    mbs_mat_free(&w->K);
    mbs_mat_free(&w->Rm);
    free(w->eq_off); free(w->eq_nnz);
    if (w->rows.release) w->rows.release(w->rows.ctx);
    free(w);
    d->ed = NULL;
}

void mbs_ed_reset(mbs_data *d)
{
    if (!d->ed) return;
    d->ed->ready = 0;
    d->ed->nmax = 0;
    d->ed->unsettled = 0;
}

/* ---- the accelerations of a mode -------------------------------------------------- */

/* The generalized-force row of joint f's friction along its wall contact
 * points for the arm tau (joint_friction.h): row = W - hw tau V, added as
 * s * row into column col of K (rows of M). */
static void s_add_friction_col(const struct mbs_ed_ws *w, int n, int f, double tau, double s, int col, mbs_mat *K)
{
    const double *Wf = w->W + (size_t)f * n, *Vf = w->V + (size_t)f * n;
    double arm = w->fj[f].hw * tau;
    for (int i = 0; i < n; i++) {
        double r = Wf[i] - (arm != 0 ? arm * Vf[i] : 0);
        if (r != 0) mbs_mat_add(K, i, col, s * r);
    }
}

/* A sticking joint whose ends press on opposite walls: its friction's arm
 * tau depends on the normal forces (the proportional split), found by
 * fixed-point iterations in s_solve; on one wall tau = s_k exactly. */
static int s_tau_free(const struct mbs_ed_ws *w, int f)
{
    return w->mode[f] == S_STICK && w->fj[f].hw > 0 && w->fj[f].mus > 0 && w->sg[2 * f] != w->sg[2 * f + 1];
}

/* Assemble the KKT matrix K and right-hand side rhs of the current modes
 * from the mass matrix (constant, or M(q) of s_solve in w->mval), the
 * evaluated constraints (d), forces (d->Q), sliding rows (w) and contact
 * points (w->c):
 *   [M  Phi_q^T  C_stick; Phi_q 0 0; W_stick 0 0] plus the sliding friction
 * columns -mu sigma s_k (W - s_k hw V)^T on the end multipliers;
 * C_stick = (W - hw tau V)^T. */
static void s_assemble(const mbs_model *m, mbs_data *d, double *rhs)
{
    struct mbs_ed_ws *w = d->ed;
    const mbs_solver_spec *o = &m->spec->solver;
    int n = w->n, ne = w->ne;
    const int *M_ptr = w->f.mass_ptr, *M_col = w->f.mass_col;
    const double *M_val = w->mval ? w->mval : w->f.mass_val;
    double ab = o->baumgarte_alpha, bb = o->baumgarte_beta;
    mbs_mat *K = &w->K;
    mbs_mat_zero(K);
    for (int i = 0; i < n; i++)
        for (int k = M_ptr[i]; k < M_ptr[i + 1]; k++) mbs_mat_add(K, i, M_col[k], M_val[k]);
    memcpy(rhs, d->Q, sizeof(double) * (size_t)n);
    for (int r = 0; r < ne; r++) {
        const int *cols = w->f.jac_cols + w->eq_off[r], nnz = w->eq_nnz[r];
        const double *row = d->jac + w->eq_off[r];
        if (!d->eq_on[r]) { mbs_mat_add(K, n + r, n + r, 1); rhs[n + r] = 0; continue; }
        for (int k = 0; k < nnz; k++) {
            mbs_mat_add(K, n + r, cols[k], row[k]);
            mbs_mat_add(K, cols[k], n + r, row[k]);
        }
        rhs[n + r] = -d->w2[r];
    }
    for (int f = 0; f < w->nf; f++) {
        const double *Wf = w->W + (size_t)f * n;
        int c = n + ne + f;
        if (w->mode[f] == S_STICK) {
            if (w->fj[f].hw > 0 && !s_tau_free(w, f)) w->tau[f] = w->sg[2 * f];
            for (int i = 0; i < n; i++) if (Wf[i] != 0) mbs_mat_add(K, c, i, Wf[i]);
            s_add_friction_col(w, n, f, w->tau[f], 1.0, c, K);
            rhs[c] = -w->gamT[f] - 2 * ab * w->vt[f];
            continue;
        }
        mbs_mat_add(K, c, c, 1);
        rhs[c] = 0;
        if (w->mode[f] != S_SLIP || w->fj[f].mu == 0) continue;
        for (int k = 0; k < 2; k++) {
            int sk = w->sg[2 * f + k];
            s_add_friction_col(w, n, f, sk, -w->fj[f].mu * w->sigma[f] * sk, n + w->fj[f].eq[k], K);
        }
    }
    /* rigid contacts in their modes */
    mbs_edc_assemble(&w->c, K, rhs, ab, bb);
}

/* Normal and friction forces on the slider from the solved KKT vector sol
 * into w->N, w->FT; then the arms of the joints of s_tau_free from them.
 * Returns 1 when an arm moved by more than 1e-14 (another pass). */
static int s_joint_forces(struct mbs_ed_ws *w, const double *sol)
{
    int n = w->n, ne = w->ne, again = 0;
    for (int f = 0; f < w->nf; f++) {
        double *N = w->N + 2 * f;
        N[0] = -sol[n + w->fj[f].eq[0]];
        N[1] = -sol[n + w->fj[f].eq[1]];
        if (w->mode[f] == S_STICK) w->FT[f] = -sol[n + ne + f];
        else if (w->mode[f] == S_SLIP)
            w->FT[f] = -w->fj[f].mu * w->sigma[f] * (w->sg[2 * f] * N[0] + w->sg[2 * f + 1] * N[1]);
        else w->FT[f] = 0;
        double nb = fabs(N[0]) + fabs(N[1]);
        if (!s_tau_free(w, f) || !(nb > 0)) continue;
        /* the fixed point tau = T(tau) has T' < 0 (a larger arm on the
         * loaded end moves load away from it), near -1 when the friction's
         * own moment keeps the slider cocked: plain passes then oscillate.
         * A change that undoes more than half of the previous one is halved
         * (relaxation: contraction 1/2 or better for T' in [-1, 0]) */
        double step = (N[0] + N[1]) / nb - w->tau[f];
        if (step * w->dtau[f] < 0 && fabs(step) > 0.5 * fabs(w->dtau[f])) step *= 0.5;
        if (fabs(step) > 1e-14) again = 1;
        w->tau[f] += step;
        w->dtau[f] = step;
    }
    return again;
}

/* Build, factor and solve the KKT system of the current modes at (t, x, v):
 * a (n), lam (ne); forces and sliding kinematics into w.  Two fixed points
 * in the normal forces are solved by passes (at most 30): a sticking joint
 * with its ends on opposite walls gets the arm of its friction from the
 * last normal forces (the arm moves them by about mu w / L of themselves),
 * and two or more sticking contacts share their friction in proportion to
 * their last normal forces (mbs_edc_resplit; the split of redundant rows
 * does not move the normal forces: two passes).  With resp & 1, also the responses (a, lam) to a
 * unit friction force (along the row W - hw tau V) of every S_FREE joint;
 * with resp & 2, the responses to unit normal and tangential forces of
 * every contact candidate (w->c.cand, normally open). */
static int s_solve(const mbs_model *m, mbs_data *d, double t, const double *x, const double *v, double *a,
                   double *lam, int resp)
{
    struct mbs_ed_ws *w = d->ed;
    int n = w->n, ne = w->ne, nk = w->nk;
    const mbs_solver_spec *o = &m->spec->solver;
    const mbs_dae_form *fm = &w->f;
    fm->baumgarte_rhs(fm->ctx, x, v, t, o->baumgarte_alpha, o->baumgarte_beta, d->w2);
    fm->forces(fm->ctx, x, v, t, d->Q);
    /* M(x) once per evaluation when M depends on q */
    if (w->mval) fm->mass_eval(fm->ctx, x, w->mval);
    if (w->nf > 0) w->rows.clearance_slide(w->rows.ctx, x, v, w->W, w->V, w->gamT, w->vt);
    mbs_edc_eval(m, d, &w->c, x, v);
    mbs_mat *K = &w->K;
    double *rhs = w->sol;
    for (int f = 0; f < w->nf; f++) w->dtau[f] = 0;
    for (int pass = 0;; pass++) {
        s_assemble(m, d, rhs);
        mbs_note_system(d, nk);
        if (mbs_mat_factor(K) != 0) return MBS_ESINGULAR;
        mbs_mat_solve(K, rhs);
        mbs_edc_forces(&w->c, rhs);
        int again = s_joint_forces(w, rhs);
        again |= mbs_edc_resplit(&w->c);
        if (!again) break;
        if (pass == 29) {
            /* reported by the run at the next accepted step */
            for (int f = 0; f < w->nf && !w->unsettled; f++)
                if (fabs(w->dtau[f]) > 1e-14) w->unsettled = f + 1;
            break;
        }
    }
    memcpy(a, rhs, sizeof(double) * (size_t)n);
    memcpy(lam, rhs + n, sizeof(double) * (size_t)ne);
    for (int p = 0; (resp & 2) && p < w->c.np; p++) {
        if (!w->c.cand[p] || !w->c.has[p]) continue;
        for (int r = 0; r < 2; r++) {
            double *col = w->c.resp + (size_t)(2 * p + r) * (size_t)nk;
            memset(col, 0, sizeof(double) * (size_t)nk);
            const mbs_rpoint *P = &w->c.pt[p];
            const int *vars = w->c.pvars[p];
            for (int j = 0; j < P->nv; j++) col[vars[j]] += P->G[r][j];
            mbs_mat_solve(K, col);
        }
    }
    if (!(resp & 1)) return 0;
    for (int f = 0; f < w->nf; f++) {
        if (w->mode[f] != S_FREE) continue;
        double *r = w->resp + (size_t)f * nk, arm = w->fj[f].hw * w->tau[f];
        const double *Wf = w->W + (size_t)f * n, *Vf = w->V + (size_t)f * n;
        memset(r, 0, sizeof(double) * (size_t)nk);
        for (int i = 0; i < n; i++) r[i] = Wf[i] - (arm != 0 ? arm * Vf[i] : 0);
        mbs_mat_solve(K, r);
    }
    return 0;
}

/* Event functions of the last solve into g (ng): per joint slip sigma v_t
 * or stick reserve mu sum |N_k| - |F_T|, then s_k N_k for each end; then
 * two per rigid contact (ed_contacts.h). */
static void s_events(const mbs_data *d, double *g)
{
    const struct mbs_ed_ws *w = d->ed;
    for (int f = 0; f < w->nf; f++) {
        const double *N = w->N + 2 * f;
        if (w->mode[f] == S_STICK) g[3 * f] = w->fj[f].mus * (fabs(N[0]) + fabs(N[1])) - fabs(w->FT[f]);
        else g[3 * f] = w->sigma[f] * w->vt[f];
        g[3 * f + 1] = w->sg[2 * f] * N[0];
        g[3 * f + 2] = w->sg[2 * f + 1] * N[1];
    }
    mbs_edc_events(&w->c, g + 3 * w->nf);
}

/* Arm the functions seen positive; a joint without friction has no events
 * (its forces do not depend on the mode).  The gap function of an open
 * contact is armed at zero too: it is zero only just after the contact
 * opened (goff), moving away. */
static void s_arm(struct mbs_ed_ws *w, const double *g, int reset)
{
    for (int f = 0; f < w->nf; f++)
        for (int k = 0; k < 3; k++) {
            int i = 3 * f + k;
            if (reset) w->armed[i] = 0;
            if (w->fj[f].mus > 0 && g[i] > 0) w->armed[i] = 1;
        }
    for (int i = 0; i < 2 * w->c.np; i++) {
        int a = 3 * w->nf + i, p = i / 2;
        if (reset || !mbs_edc_event_exists(&w->c, i)) w->armed[a] = 0;
        int open_gap = i % 2 == 0 && w->c.state[p] == MBS_EDC_OPEN;
        if (mbs_edc_event_exists(&w->c, i) && (g[a] > 0 || (open_gap && g[a] >= 0))) w->armed[a] = 1;
    }
}

/* Smallest armed event function (DBL_MAX-like when none is armed); with
 * set, only among the functions marked in it. */
static double s_gmin(const struct mbs_ed_ws *w, const double *g, const char *set)
{
    double mn = 1e300;
    for (int i = 0; i < w->ng; i++)
        if (w->armed[i] && (!set || set[i]) && g[i] < mn) mn = g[i];
    return mn;
}

/* ---- one Dormand-Prince step in a fixed mode --------------------------------------- */

/* s_solve as a stage function of dopri5.c (multipliers into w->lam1) */
static int s_stage(const mbs_model *m, mbs_data *d, double t, const double *x, const double *v, double *a, void *ctx)
{
    (void)ctx;
    return s_solve(m, d, t, x, v, a, d->ed->lam1, 0);
}

/* Step of size h from (d->t, d->x, d->v, d->a) into w->x1, v1, a1, lam1 and
 * the event functions w->g1 at the end.  Returns the scaled error norm, or
 * a negative value when a KKT matrix was singular. */
static double s_step(const mbs_model *m, mbs_data *d, double h)
{
    struct mbs_ed_ws *w = d->ed;
    int n = w->n;
    double *kx[7], *kv[7];
    w->unsettled = 0; /* judged on the solves of the step that is kept */
    mbs_dopri5_slots(d, n, kx, kv);
    memcpy(kx[0], d->v, sizeof(double) * (size_t)n);
    memcpy(kv[0], d->a, sizeof(double) * (size_t)n);
    double *xs = w->x1, *vs = w->v1;
    if (mbs_dopri5_stages(&w->f, m, d, d->t, d->x, d->v, h, kx, kv, xs, vs, s_stage, NULL) != 0) return -1;
    memcpy(w->a1, kv[6], sizeof(double) * (size_t)n);
    s_events(d, w->g1);
    /* the run's weights (accuracy.h): derived from the one tolerance in the
     * mechanism's units unless solver.abs_tolerance is set */
    return mbs_dopri5_error(n, h, kx, kv, d->x, d->v, xs, vs, &d->tol, 0, NULL, NULL, NULL);
}

/* The thresholds of the contact and stick decisions (a gap that counts as
 * touching at the start, an approach speed that counts as an impact, a
 * sliding speed that counts as sticking): 1e3 x solver.abs_tolerance when
 * set, else 10 x tolerance x L (L the tolerance length, accuracy.h), i.e.
 * 1e-5 for the default tolerance on a 1 m mechanism, as before the
 * tolerance was derived, and proportional to the tolerance and the
 * mechanism's size. */
static double s_event_threshold(const mbs_model *m, const mbs_data *d)
{
    const mbs_solver_spec *o = &m->spec->solver;
    if (o->abs_tolerance > 0) return 1e3 * o->abs_tolerance;
    return 10 * (o->tolerance > 0 ? o->tolerance : 1e-6) * d->tol.L;
}

/* Singular positions of the mechanism (issue 9).  Between events this
 * integrator solves the index-1 form with the equations kept at assembly,
 * like dopri5, and cannot tell the branches apart where the constraint
 * Jacobian loses rank (the N-four-bar's passages).  The rank margin
 * (analysis.h) at the current state is checked every ED_CHECK_EVERY
 * accepted steps and after each rejected one; below ED_RANK_MARGIN (the
 * threshold of integrator_rk.c, measured on the same passages) the run
 * says so once in its metrics, and a step-size failure there says why. */
#define ED_RANK_MARGIN 3e-2
#define ED_CHECK_EVERY 1

static double s_rank_margin(mbs_data *d)
{
    const mbs_dae_form *f = &d->ed->f;
    f->constraints(f->ctx, d->x, d->t, d->phi, d->jac);
    return f->rank_margin(f->ctx);
}

static void s_warn_singular(mbs_data *d, double margin, int *warned)
{
    *warned = 1;
    mbs_warn(d, "t = %.4g: near a singular position (rank margin %.1e): event_driven (index-1 form) may have left "
             "the branch there; without friction or rigid contacts use bdf", d->t, margin);
}

/* ---- the mode LCP ------------------------------------------------------------------- */

/* R = (I + D Hb)^-1 (mc x mc, row-major in w->R) by the dense LU of w->Rm
 * (nf x nf: the candidates' block, the identity beyond it).  0 or -1 when
 * singular. */
static int s_inverse_R(struct mbs_ed_ws *w, int mc)
{
    mbs_mat *A = &w->Rm;
    mbs_mat_zero(A);
    for (int i = 0; i < w->nf; i++)
        for (int j = 0; j < w->nf; j++) {
            double a = i < mc && j < mc ? w->R[i * mc + j] : (i == j);
            if (a != 0) mbs_mat_add(A, i, j, a);
        }
    if (mbs_mat_factor(A) != 0) return -1;
    double *col = w->lt + mc * mc;
    for (int c = 0; c < mc; c++) {
        for (int i = 0; i < w->nf; i++) col[i] = i == c;
        mbs_mat_solve(A, col);
        for (int i = 0; i < mc; i++) w->R[i * mc + c] = col[i];
    }
    return 0;
}

/* The arm tau of candidate f's friction (joint_friction.h) for its assumed
 * signs, or from the normal forces N (2) when its ends are on opposite
 * walls (N = NULL: keep the last value).  Returns 1 when it moved. */
static int s_cand_tau(struct mbs_ed_ws *w, int f, const double *N)
{
    if (w->fj[f].hw == 0) return 0;
    double tau = w->tau[f];
    if (w->sg[2 * f] == w->sg[2 * f + 1]) tau = w->sg[2 * f];
    else if (N && fabs(N[0]) + fabs(N[1]) > 0) tau = (N[0] + N[1]) / (fabs(N[0]) + fabs(N[1]));
    int moved = fabs(tau - w->tau[f]) > 1e-12;
    w->tau[f] = tau;
    return moved;
}

/* New modes of the joints marked in w->cand at the state (t, x, v): the
 * horizontal LCP of seed 003 in the unknowns a, lam (bilateral) and the
 * friction forces F_i of the mc candidate joints, reduced to a standard LCP
 * of size 2 mc (Glocker-Pfeiffer) in
 *   z = (lamR, xi-),  w = (xi+, lamL)   (all >= 0, z^T w = 0):
 *   a_t = xi+ - xi-   (sliding acceleration, split by sign),
 *   F = lamR - mu_s Nbar,  lamL = 2 mu_s Nbar - lamR,
 * with Nbar = s_1 N_1 + s_2 N_2 = |N_1| + |N_2| for the current signs s_k
 * and mu_s the static coefficients (the candidates are at rest in their
 * guides: a joint sticks while the force it needs is within mu_s Nbar; one
 * that slips then does so with the kinetic mu in s_solve).
 * The bilateral unknowns are eliminated through the KKT responses (a unit
 * friction force acting along W - hw tau V: at the wall contact points):
 * a_t = A0 + G F and Nbar = Nbar0 + Hb F, so F = R (lamR - D Nbar0) with
 * R = (I + D Hb)^-1 (D = diag mu_s) and
 *   xi+  = (A0 - G R D Nbar0) + G R lamR + xi-,
 *   lamL = 2 D (Nbar0 + Hb F0) + (2 D Hb R - I) lamR.
 * The normal-force signs (which wall carries each end) are the other half of
 * the HLCP: the LCP is solved for assumed signs, and a sign contradicted by
 * the resulting N_k is flipped and the LCP solved again; a joint whose arm
 * tau changed with its signs (or, ends on opposite walls, with its normal
 * forces) gets new responses first (at most 8 rounds in all).
 * xi+ > 0: slip forward; xi- > 0: backward; both 0: stick.  Returns 0, or
 * MBS_ESINGULAR / MBS_EDIVERGE with the message in err. */
static int s_mode_lcp(const mbs_model *m, mbs_data *d, double t, const double *x, const double *v,
                      mbs_errlist *err)
{
    struct mbs_ed_ws *w = d->ed;
    int n = w->n, nk = w->nk, mc = 0, idx[64];
    for (int f = 0; f < w->nf && mc < 64; f++)
        if (w->cand[f] && w->fj[f].mus > 0) {
            idx[mc++] = f;
            s_cand_tau(w, f, w->N + 2 * f);
        }
    for (int i = 0; i < mc; i++) w->mode[idx[i]] = S_FREE;
    if (mc == 0) return 0;
    double ab = m->spec->solver.baumgarte_alpha;
    int L = 2 * mc, rc = MBS_LCP_SOLVED, fresh = 0;
    mbs_lcp_status st;
    double *M = w->lM, *q = w->lq, *Hb = w->Fz, *Nb0 = w->lt;
    for (int round = 0; round < 8; round++) {
        if (!fresh) {
            /* affine maps a_t = A0 + G F, N = N0 + H F (H: 2 mc x mc) */
            if (s_solve(m, d, t, x, v, w->a1, w->lam1, 1) != 0) {
                mbs_err_add(err, "", "t = %.9g: singular KKT matrix at an event", t);
                return MBS_ESINGULAR;
            }
            for (int i = 0; i < mc; i++) {
                int f = idx[i];
                const double *Wf = w->W + (size_t)f * n;
                double at = w->gamT[f] + 2 * ab * w->vt[f];
                for (int qq = 0; qq < n; qq++) at += Wf[qq] * w->a1[qq];
                w->A0[i] = at;
                for (int e = 0; e < 2; e++) w->N0[2 * i + e] = -w->lam1[w->fj[f].eq[e]];
                for (int j = 0; j < mc; j++) {
                    const double *r = w->resp + (size_t)idx[j] * nk;
                    double g = 0;
                    for (int qq = 0; qq < n; qq++) g += Wf[qq] * r[qq];
                    w->G[i * mc + j] = g;
                    for (int e = 0; e < 2; e++) w->H[(2 * i + e) * mc + j] = -r[n + w->fj[f].eq[e]];
                }
            }
            fresh = 1;
        }
        /* Hb, Nbar0 and R = (I + D Hb)^-1 for the assumed signs */
        for (int i = 0; i < mc; i++) {
            int f = idx[i], s1 = w->sg[2 * f], s2 = w->sg[2 * f + 1];
            Nb0[i] = s1 * w->N0[2 * i] + s2 * w->N0[2 * i + 1];
            for (int j = 0; j < mc; j++) {
                Hb[i * mc + j] = s1 * w->H[(2 * i) * mc + j] + s2 * w->H[(2 * i + 1) * mc + j];
                w->R[i * mc + j] = (i == j) + w->fj[f].mus * Hb[i * mc + j];
            }
        }
        if (s_inverse_R(w, mc) != 0) {
            mbs_err_add(err, "", "t = %.9g: joint '%s': the friction law has no unique solution "
                        "(I + mu Hb singular)", t, m->spec->joints[w->fj[idx[0]].joint].name);
            return MBS_ESINGULAR;
        }
        /* F0 = -R D Nbar0 */
        for (int i = 0; i < mc; i++) {
            double f0 = 0;
            for (int j = 0; j < mc; j++) f0 -= w->R[i * mc + j] * w->fj[idx[j]].mus * Nb0[j];
            w->F0[i] = f0;
        }
        /* the LCP, M column-major: M[r + L c] */
        for (int r = 0; r < L * L; r++) M[r] = 0;
        for (int i = 0; i < mc; i++) {
            double mu = w->fj[idx[i]].mus, q1 = w->A0[i], hf = 0;
            for (int j = 0; j < mc; j++) { q1 += w->G[i * mc + j] * w->F0[j]; hf += Hb[i * mc + j] * w->F0[j]; }
            q[i] = q1;
            q[mc + i] = 2 * mu * (Nb0[i] + hf);
            for (int c = 0; c < mc; c++) {
                double gr = 0, hr = 0;
                for (int j = 0; j < mc; j++) { gr += w->G[i * mc + j] * w->R[j * mc + c]; hr += Hb[i * mc + j] * w->R[j * mc + c]; }
                M[i + L * c] = gr;
                M[mc + i + L * c] = 2 * mu * hr - (i == c);
            }
            M[i + L * (mc + i)] = 1;
        }
        rc = mbs_lcp_lemke(L, M, q, w->lz, w->lw, NULL, w->lwork, &st);
        mbs_note_lcp(d, L, rc != MBS_LCP_SOLVED);
        if (rc != MBS_LCP_SOLVED) break;
        /* the normal forces of the solution; flip contradicted signs, then
         * the arms of the friction for the new signs and forces */
        int again = 0;
        double nscale = 1e-300;
        for (int k = 0; k < 2 * mc; k++) nscale = fmax(nscale, fabs(w->N0[k]));
        for (int i = 0; i < mc; i++) {
            int f = idx[i];
            double Nf[2];
            for (int e = 0; e < 2; e++) {
                double Nk = w->N0[2 * i + e];
                for (int j = 0; j < mc; j++) {
                    double Fj = w->F0[j];
                    for (int c = 0; c < mc; c++) Fj += w->R[j * mc + c] * w->lz[c];
                    Nk += w->H[(2 * i + e) * mc + j] * Fj;
                }
                Nf[e] = Nk;
                if (w->sg[2 * f + e] * Nk < -1e-12 * nscale) { w->sg[2 * f + e] = -w->sg[2 * f + e]; again = 1; }
            }
            if (s_cand_tau(w, f, Nf)) { again = 1; fresh = 0; }
        }
        if (!again) break;
    }
    if (rc != MBS_LCP_SOLVED) {
        mbs_err_add(err, "", "t = %.9g: joint '%s': the stick/slip LCP (%d unknowns) has no solution found by "
                    "Lemke: %s", t, m->spec->joints[w->fj[idx[0]].joint].name, L, st.message);
        return MBS_EDIVERGE;
    }
    /* modes from the solution; a tolerance on the sliding acceleration
     * relative to its size without friction separates stick from slip */
    double ascale = 1e-12;
    for (int i = 0; i < mc; i++) ascale = fmax(ascale, fabs(w->A0[i]));
    for (int i = 0; i < mc; i++) {
        int f = idx[i];
        double xp = w->lw[i], xm = w->lz[mc + i];
        if (fmax(xp, xm) <= 1e-9 * ascale && w->fslip[f]) {
            w->mode[f] = S_SLIP;
            w->sigma[f] = w->fslip[f];
        } else if (fmax(xp, xm) <= 1e-9 * ascale) {
            w->mode[f] = S_STICK;
        } else {
            w->mode[f] = S_SLIP;
            w->sigma[f] = xp > xm ? 1 : -1;
        }
    }
    return 0;
}

/* ---- checks ----------------------------------------------------------------------- */

/* Complementarity error of the last solve (dimensionless): the friction
 * force beyond the cone mu sum |N_k| (mu_s while sticking; slip: any
 * difference from mu sum |N_k|),
 * relative to the cone plus 1e-9 of the largest sum |N_k| seen (so that the
 * round-off of forces crossing zero does not count); sliding against the
 * slip direction, or sticking with v_t != 0, relative to the largest
 * velocity (at least 1e-6). */
static double s_compl_error(const mbs_model *m, mbs_data *d, const double *v)
{
    struct mbs_ed_ws *w = d->ed;
    double vmax = 1e-6, err = 0;
    for (int i = 0; i < w->n; i++) vmax = fmax(vmax, fabs(v[i]));
    for (int f = 0; f < w->nf; f++) {
        const double *N = w->N + 2 * f;
        double nbar = fabs(N[0]) + fabs(N[1]), ft = fabs(w->FT[f]);
        double mu = w->mode[f] == S_STICK ? w->fj[f].mus : w->fj[f].mu;
        if (nbar > w->nmax) w->nmax = nbar;
        double scale = mu * nbar + 1e-9 * w->nmax + 1e-300;
        err = fmax(err, fmax(0, ft - mu * nbar) / scale);
        if (w->mode[f] == S_SLIP) {
            err = fmax(err, fabs(ft - mu * nbar) / scale);
            if (mu > 0) err = fmax(err, fmax(0, -w->sigma[f] * w->vt[f]) / vmax);
        } else if (w->mode[f] == S_STICK) {
            err = fmax(err, fabs(w->vt[f]) / vmax);
        }
    }
    return err;
}

/* ---- rigid contacts at an event ----------------------------------------------------------- */

/* The contacts at an event (or the start, with start = 1) at the state
 * (d->t, d->x, d->v): closing contacts (open, gap function fired, or at the
 * start a gap below gtol) that approach get the impact LCP together with
 * every closed contact, then every contact still closed (approach speed at
 * most vtol after the impulses) gets its new mode from the mode LCP.  An
 * approach slower than vzeno is stopped without restitution (Zeno rule,
 * counted in zeno_closures).  Returns 0 or MBS_E*. */
static int s_contact_event(const mbs_model *m, mbs_data *d, int start, double gtol, double vtol, double vzeno,
                           mbs_errlist *err)
{
    struct mbs_ed_ws *w = d->ed;
    mbs_edc *c = &w->c;
    int n = w->n, any = 0, impact = 0;
    if (c->np == 0) return 0;
    memset(c->cand, 0, (size_t)c->np);
    mbs_edc_eval(m, d, c, d->x, d->v);
    for (int p = 0; p < c->np; p++) {
        if (!c->has[p]) continue;
        int gi = 3 * w->nf + 2 * p;
        int closing = c->state[p] == MBS_EDC_OPEN &&
                      (start ? c->pt[p].g <= gtol : w->armed[gi] && w->g1[gi] <= 0);
        /* a sticking pair whose (group's) stick reserve fired slips in the
         * direction its friction resists: just past the root the friction
         * it needs exceeds its cone by round-off only, which the mode LCP's
         * tolerance would take for sticking */
        c->fslip[p] = 0;
        if (!start && c->state[p] == MBS_EDC_STICK && w->armed[gi + 1] && w->g1[gi + 1] <= 0)
            c->fslip[p] = mbs_edc_group_lt(c, p) > 0 ? -1 : 1;
        if (closing && c->vn[p] < 0) {
            impact = 1;
            if (c->vn[p] < -vzeno) d->met.impacts++;
            else d->met.zeno_closures++;
        }
        if (closing && c->vn[p] > vtol) { c->goff[p] = fmin(c->pt[p].g, 0); continue; }
        c->cand[p] = closing || c->state[p] != MBS_EDC_OPEN;
        any |= c->cand[p];
    }
    if (!any) return 0;
    /* every candidate open: the responses to unit contact forces */
    for (int p = 0; p < c->np; p++)
        if (c->cand[p]) c->state[p] = MBS_EDC_OPEN;
    if (impact) {
        if (s_solve(m, d, d->t, d->x, d->v, w->a1, w->lam1, 2) != 0) goto singular;
        int rc = mbs_edc_impact(m, d, c, d->t, d->v, vzeno, err);
        if (rc) return rc;
        /* contacts leaving stay open: a bounce leaves at e times an
         * approach above vzeno, a contact stopped (plastic, Zeno, or resting)
         * at round-off; 1e-3 vtol separates the two */
        for (int p = 0; p < c->np; p++) {
            if (!c->cand[p]) continue;
            double vn = mbs_edc_gdot(c, p, 0, d->v);
            if (vn > fmax(0.5 * c->e[p] * vzeno, 1e-3 * vtol)) { c->cand[p] = 0; c->goff[p] = fmin(c->pt[p].g, 0); }
        }
    }
    /* stick candidates: tangential speed at most vtol; the others slide */
    for (int p = 0; p < c->np; p++) {
        if (!c->cand[p]) continue;
        double vt = mbs_edc_gdot(c, p, 1, d->v);
        c->stickc[p] = c->mu[p] > 0 && fabs(vt) <= vtol && !c->fslip[p];
        if (c->fslip[p]) c->sigma[p] = c->fslip[p];
        else if (!c->stickc[p]) c->sigma[p] = vt >= 0 ? 1 : -1;
    }
    if (s_solve(m, d, d->t, d->x, d->v, w->a1, w->lam1, 2) != 0) goto singular;
    (void)n;
    return mbs_edc_mode_lcp(m, d, c, d->t, w->a1, err);
singular:
    mbs_err_add(err, "", "t = %.9g: singular KKT matrix at a contact event", d->t);
    return MBS_ESINGULAR;
}

/* ---- the run -------------------------------------------------------------------------- */

/* Modes at the start: a joint at rest in its guide (|v_t| below vtol) goes
 * to the LCP, the others slip with the sign of v_t; the normal-force signs
 * of the sliding joints follow two fixed-point passes. */
static int s_initial_modes(const mbs_model *m, mbs_data *d, double vtol, mbs_errlist *err)
{
    struct mbs_ed_ws *w = d->ed;
    int any = 0;
    if (w->nf > 0) w->rows.clearance_slide(w->rows.ctx, d->x, d->v, w->W, NULL, w->gamT, w->vt);
    for (int f = 0; f < w->nf; f++) {
        w->mode[f] = S_SLIP;
        w->sigma[f] = w->vt[f] >= 0 ? 1 : -1;
        w->sg[2 * f] = w->sg[2 * f + 1] = 1;
        w->cand[f] = w->fj[f].mus > 0 && fabs(w->vt[f]) <= vtol;
        any |= w->cand[f];
    }
    for (int pass = 0; pass < 2; pass++) {
        if (s_solve(m, d, d->t, d->x, d->v, d->a, d->lam, 0) != 0) {
            mbs_err_add(err, "", "t = %.9g: singular KKT matrix in the initial modes", d->t);
            return MBS_ESINGULAR;
        }
        for (int k = 0; k < 2 * w->nf; k++) w->sg[k] = w->N[k] >= 0 ? 1 : -1;
    }
    if (any) return s_mode_lcp(m, d, d->t, d->x, d->v, err);
    return 0;
}

/* Start of a run: the frictional joints, their modes, the accelerations
 * d->a and multipliers d->lam of those modes, the armed event functions. */
static int s_prepare(const mbs_model *m, mbs_data *d, mbs_errlist *err)
{
    struct mbs_ed_ws *w = d->ed;
    double ev = s_event_threshold(m, d);
    int rc = w->nf > 0 ? w->rows.clearance_find(w->rows.ctx, w->fj, err) : 0;
    /* contacts start open; those touching at t = 0 go through the event
     * logic (impact when approaching, then the mode LCP) */
    for (int p = 0; p < w->c.np; p++) {
        w->c.state[p] = MBS_EDC_OPEN;
        w->c.goff[p] = 0;
        w->c.cand[p] = 0;
    }
    w->c.nmax = 0;
    if (!rc) rc = s_initial_modes(m, d, ev, err);
    if (!rc) rc = s_contact_event(m, d, 1, ev, ev, ev, err);
    if (rc) return rc;
    if (s_solve(m, d, d->t, d->x, d->v, d->a, d->lam, 0) != 0) {
        mbs_err_add(err, "", "t = %.9g: singular KKT matrix", d->t);
        return MBS_ESINGULAR;
    }
    s_events(d, w->g0);
    s_arm(w, w->g0, 1);
    d->met.contact_method = "event_driven_lemke";
    w->ready = 1;
    return 0;
}

/* The modes for a sample taken before the integrator started (a run that
 * did not go through mbs_ed_start, e.g. statics): prepared quietly, the
 * run reports its own errors.  0 or -1. */
static int s_ready_for_sample(const mbs_model *m, mbs_data *d)
{
    if (d->ed->ready) return 0;
    static _Thread_local mbs_errlist quiet;
    memset(&quiet, 0, sizeof quiet);
    return s_prepare(m, d, &quiet) != 0 ? -1 : 0;
}

int mbs_ed_start(const mbs_model *m, mbs_data *d, mbs_errlist *err)
{
    struct mbs_ed_ws *w = d->ed;
    if (!w || m->dim != 2 || w->ready) return 0;
    return s_prepare(m, d, err);
}

int mbs_ed_forces_at(const mbs_model *m, mbs_data *d, int joint, double t, const double *x, const double *v,
                     double N[2], double *FT, double *vt, int *mode)
{
    struct mbs_ed_ws *w = d->ed;
    if (!w || m->dim != 2) return -1;
    if (s_ready_for_sample(m, d) != 0) return -1;
    for (int f = 0; f < w->nf; f++) {
        if (w->fj[f].joint != joint) continue;
        /* the mode of the step being sampled (events switch after it) */
        if (x && s_solve(m, d, t, x, v, w->a1, w->lam1, 0) != 0) return -1;
        if (N) { N[0] = w->N[2 * f]; N[1] = w->N[2 * f + 1]; }
        if (FT) *FT = w->FT[f];
        if (vt) *vt = w->vt[f];
        if (mode) *mode = w->mode[f] == S_STICK ? 0 : w->sigma[f];
        return 0;
    }
    return -1;
}

void mbs_ed_point_forces(const mbs_model *m, mbs_data *d, double t, const double *x, const double *v,
                         mbs_cforce_fn fn, void *ctx)
{
    struct mbs_ed_ws *w = d->ed;
    if (!w || m->dim != 2 || m->spec->solver.integrator != MBS_INT_EVENT_DRIVEN || w->c.np == 0) return;
    if (s_ready_for_sample(m, d) != 0) return;
    /* the forces of the step's modes at the sampled state */
    if (s_solve(m, d, t, x, v, w->a1, w->lam1, 0) != 0) return;
    for (int p = 0; p < w->c.np; p++) {
        if (!w->c.has[p] || w->c.state[p] == MBS_EDC_OPEN) continue;
        const mbs_rpoint *P = &w->c.pt[p];
        mbs_cforce f;
        f.pair = P->pair;
        memcpy(f.body, P->body, sizeof f.body);
        memcpy(f.c, P->c, sizeof f.c);
        memcpy(f.n, P->n, sizeof f.n);
        for (int a = 0; a < 3; a++) f.F[a] = w->c.ln[p] * P->n[a] + w->c.lt[p] * P->t[0][a];
        fn(ctx, &f);
    }
}

int mbs_ed_run(const mbs_model *m, mbs_data *d, mbs_stepper *run, mbs_errlist *err)
{
    const mbs_solver_spec *o = &m->spec->solver;
    struct mbs_ed_ws *w = d->ed;
    if (!w) {
        mbs_err_add(err, "/solver/integrator", "event_driven: the run's data was not prepared for it");
        return MBS_EINVAL;
    }
    if (m->dim != 2) {
        int rigid = 0;
        for (int c = 0; c < m->spec->ncontact; c++) rigid |= m->spec->contacts[c].law == MBS_LAW_RIGID;
        mbs_err_add(err, "/solver/integrator", rigid ? "the event_driven integrator is planar (dimension 2) only: "
                    "rigid contacts in space need \"moreau_jean\"" : "the event_driven integrator is planar "
                    "(dimension 2) only");
        return MBS_EINVAL;
    }
    int rc = w->ready ? 0 : s_prepare(m, d, err);
    if (rc) return rc;
    int n = w->n;
    double T = o->t_end;
    double ev = s_event_threshold(m, d);
    double hmax = o->max_step > 0 ? o->max_step : run->interval;
    double hmin = o->min_step > 0 ? o->min_step : 1e-12;
    double h = fmin(o->step > 0 ? o->step : 1e-3, hmax);
    /* event location: the bracket on the step size is closed to ttol */
    double ttol = 1e-12 * fmax(1.0, T);
    int warned_singular = 0;
    memcpy(d->ap, d->a, sizeof(double) * (size_t)n);
    while (d->t < T * (1 - 1e-14)) {
        if (d->t + 1.01 * h > T) h = T - d->t;
        double en = s_step(m, d, h);
        if (en < 0) {
            mbs_err_add(err, "", "t = %.9g: singular KKT matrix (lock-up of the mechanism?)", d->t);
            return MBS_ESINGULAR;
        }
        double fac = en > 0 ? 0.9 * pow(en, -0.2) : 5.0;
        if (en > 1.0) {
            d->met.rejected_steps++;
            h *= fmax(0.1, fac);
            int rc_poll = mbs_data_poll(d, err);
            if (rc_poll) return rc_poll;
            double margin = warned_singular && h >= hmin ? 1 : s_rank_margin(d);
            if (margin < ED_RANK_MARGIN && !warned_singular) s_warn_singular(d, margin, &warned_singular);
            if (h < hmin) {
                if (margin < ED_RANK_MARGIN)
                    mbs_err_add(err, "", "t = %.9g: step size %.3g below solver.min_step at a singular position of "
                                "the mechanism (constraint Jacobian rank margin %.1e): the event-driven integrator "
                                "(index-1 form) cannot pass it; without frictional joints or rigid contacts use "
                                "bdf", d->t, h, margin);
                else
                    mbs_err_add(err, "", "t = %.9g: step size %.3g below solver.min_step", d->t, h);
                return MBS_EDIVERGE;
            }
            continue;
        }
        mbs_note_error(d, en);
        /* an armed event function turned negative: locate the first root
         * by Illinois iterations on the step size, re-taking the step, on
         * the smallest of the functions that crossed (so that functions
         * far from zero, e.g. the gaps of far pairs, do not change the
         * iterates: deactivation on and off locate the same times) */
        int event = s_gmin(w, w->g1, NULL) < 0;
        double hacc = h;
        if (event) {
            for (int i = 0; i < w->ng; i++) w->crossed[i] = (char)(w->armed[i] && w->g1[i] < 0);
            double hl = 0, gl = s_gmin(w, w->g0, w->crossed), hh = h, gh = s_gmin(w, w->g1, w->crossed);
            int side = 0;
            for (int it = 0; it < 100 && hh - hl > ttol; it++) {
                double hm = (hl * gh - hh * gl) / (gh - gl);
                if (!(hm > hl && hm < hh)) hm = 0.5 * (hl + hh);
                if (s_step(m, d, hm) < 0) {
                    mbs_err_add(err, "", "t = %.9g: singular KKT matrix while locating an event", d->t);
                    return MBS_ESINGULAR;
                }
                double gm = s_gmin(w, w->g1, w->crossed);
                if (gm < 0) { hh = hm; gh = gm; if (side == -1) gl *= 0.5; side = -1; }
                else { hl = hm; gl = gm; if (side == 1) gh *= 0.5; side = 1; }
            }
            /* the run continues just past the event */
            hacc = hh;
            if (s_step(m, d, hacc) < 0) {
                mbs_err_add(err, "", "t = %.9g: singular KKT matrix just past an event", d->t);
                return MBS_ESINGULAR;
            }
        }
        /* accept */
        memcpy(d->xp, d->x, sizeof(double) * (size_t)n);
        memcpy(d->vp, d->v, sizeof(double) * (size_t)n);
        memcpy(d->ap, d->a, sizeof(double) * (size_t)n);
        d->tp = d->t;
        memcpy(d->x, w->x1, sizeof(double) * (size_t)n);
        memcpy(d->v, w->v1, sizeof(double) * (size_t)n);
        memcpy(d->a, w->a1, sizeof(double) * (size_t)n);
        memcpy(d->lam, w->lam1, sizeof(double) * (size_t)w->ne);
        d->t = d->t + hacc >= T * (1 - 1e-14) ? T : d->t + hacc;
        d->met.steps++;
        if (!warned_singular && d->met.steps % ED_CHECK_EVERY == 0) {
            double margin = s_rank_margin(d);
            if (margin < ED_RANK_MARGIN) s_warn_singular(d, margin, &warned_singular);
        }
        if (w->unsettled) {
            const mbs_joint_spec *J = &m->spec->joints[w->fj[w->unsettled - 1].joint];
            mbs_err_add(err, "", "t = %.9g: the friction forces of clearance joint '%s' (ends on opposite walls) "
                        "do not settle: the slider is at the edge of self-locking (friction x slider_width / "
                        "slider_length near 1)", d->t, J->name);
            return MBS_EDIVERGE;
        }
        double ce = s_compl_error(m, d, d->v);
        /* sliding and sticking speeds are measured against the largest
         * speed, at least the mechanism's speed scale L / t_end (not the
         * stick threshold: a tighter tolerance must not inflate the error
         * of a block stuck at round-off speeds) */
        if (w->c.np > 0) ce = fmax(ce, mbs_edc_check(&w->c, d->v, d->tol.L / T, &d->met.max_penetration));
        if (ce > d->met.max_complementarity_error) d->met.max_complementarity_error = ce;
        rc = mbs_step_done(m, d, run, err);
        if (rc) return rc;
        if (event) {
            /* flip the normal-force signs that crossed; the joints whose
             * sliding state may change go to the mode LCP */
            d->met.events++;
            for (int f = 0; f < w->nf; f++) {
                w->cand[f] = w->mode[f] == S_STICK;
                /* a sticking joint whose stick function fired slips in the
                 * direction its friction resisted (just past the root the
                 * force it needs exceeds mu_s Nbar by round-off only, which
                 * the LCP's tolerance would take for sticking) */
                w->fslip[f] = 0;
                if (w->mode[f] == S_STICK && w->armed[3 * f] && w->g1[3 * f] <= 0) w->fslip[f] = w->FT[f] > 0 ? -1 : 1;
                if (w->armed[3 * f] && w->g1[3 * f] <= 0) w->cand[f] = 1;
                for (int k = 0; k < 2; k++)
                    if (w->armed[3 * f + 1 + k] && w->g1[3 * f + 1 + k] <= 0) w->sg[2 * f + k] = -w->sg[2 * f + k];
            }
            rc = s_mode_lcp(m, d, d->t, d->x, d->v, err);
            memset(w->fslip, 0, sizeof(int) * (size_t)w->nf);
            /* the contacts (impacts, then modes); the joints' modes above
             * were chosen with the contacts in their previous modes */
            if (!rc) rc = s_contact_event(m, d, 0, ev, ev, ev, err);
            if (rc) return rc;
            if (s_solve(m, d, d->t, d->x, d->v, d->a, d->lam, 0) != 0) {
                mbs_err_add(err, "", "t = %.9g: singular KKT matrix after an event", d->t);
                return MBS_ESINGULAR;
            }
            s_events(d, w->g0);
            s_arm(w, w->g0, 1);
            h = fmax(h, 1e3 * ttol);
        } else {
            memcpy(w->g0, w->g1, sizeof(double) * (size_t)w->ng);
            if (w->c.np > 0) {
                /* pairs that entered the active set after the step: their
                 * gaps at the accepted state, so that they arm now */
                mbs_edc_eval(m, d, &w->c, d->x, d->v);
                mbs_edc_events(&w->c, w->g0 + 3 * w->nf);
            }
            s_arm(w, w->g0, 0);
            h *= fmin(MBS_STEP_GROWTH_MAX, fmax(0.2, fac));
        }
        h = fmin(h, hmax);
        /* with rigid contacts a step at most doubles the last accepted one:
         * the active set of contact.c covers twice the last step's travel,
         * and the same rule with deactivation off keeps the step sequences
         * (hence the motion) of the two settings equal */
        if (w->c.np > 0) h = fmin(h, 2 * hacc);
    }
    return 0;
}
