/*
 * integrator_al.c - index-3 augmented Lagrangian formulation with
 * mass-orthogonal projections of velocities and accelerations, integrated by
 * the trapezoidal rule (Bayo & Ledesma 1996; Cuadrado, Dopico et al.), the
 * standard fixed-step real-time scheme for natural coordinates.
 *
 * Per step, with the trapezoidal rule written as
 *   v1 = (2/h) x1 - vhat,  vhat = (2/h) x0 + v0
 *   a1 = (4/h^2) x1 - ahat, ahat = (4/h^2)(x0 + h v0) + a0,
 * Newton iterations solve   f(x1) = h^2/4 [M a1 + Phi_q^T (lam* + alpha Phi) - Q] = 0
 * with the tangent  A = M + h/2 C + h^2/4 (alpha Phi_q^T Phi_q + K)  (K, C
 * symmetrised; SPD, banded after RCM), lam* += alpha Phi after each
 * iteration.  Then
 *   A v1 = (M + h/2 C + h^2/4 K) v1* - h^2/4 alpha Phi_q^T Phi_t
 *   A a1 = (M + h/2 C + h^2/4 K) a1* - h^2/4 alpha Phi_q^T gamma
 * project the velocities and accelerations onto the constraint manifold
 * (with stiffness written as corrections from the constraint residual:
 * s_project).
 *
 * It sees the equations only through the DAE-form boundary
 * (formulation/dae_form.h): mbs_al_run on any formulation that implements
 * it; integrate/dae_natural.c runs it on the natural coordinates
 * (mbs_integrate_al).
 */
#include "mbs/integrate/integrators.h"
#include "mbs/model/accuracy.h"
#include "mbs/analysis/system.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* y = (M + h/2 C + h^2/4 K) z: M z plus a directional finite difference of Q. */
static void s_pmul(const mbs_dae_form *f, mbs_data *d, double h, const double *z, double t, double *y)
{
    int n = f->n;
    f->mass_mul(f->ctx, z, y);
    if (!f->has_stiffness) return;
    double zn = 0, xn = 0;
    for (int i = 0; i < n; i++) { zn = fmax(zn, fabs(z[i])); xn = fmax(xn, fabs(d->x[i])); }
    if (zn == 0) return;
    double eps = 1e-7 * (1 + xn) / zn;
    double *Q0 = d->fd_q0, *Q1 = d->fd_q1, *xp = d->fd_x, *vp = d->fd_v;
    f->forces(f->ctx, d->x, d->v, t, Q0);
    /* K z ~ -(Q(x + eps z) - Q(x)) / eps ;  C z ~ -(Q(v + eps z) - Q(v)) / eps */
    for (int i = 0; i < n; i++) { xp[i] = d->x[i] + eps * z[i]; vp[i] = d->v[i]; }
    f->forces(f->ctx, xp, vp, t, Q1);
    for (int i = 0; i < n; i++) y[i] -= 0.25 * h * h * (Q1[i] - Q0[i]) / eps;
    for (int i = 0; i < n; i++) vp[i] = d->v[i] + eps * z[i];
    f->forces(f->ctx, d->x, vp, t, Q1);
    for (int i = 0; i < n; i++) y[i] -= 0.5 * h * (Q1[i] - Q0[i]) / eps;
}

/* Projects z (velocities, with c = Phi_t; accelerations, with c = gamma)
 * onto Phi_q z + c = 0 with the last factorisation A = M + h/2 C + h^2/4
 * (alpha Phi_q^T Phi_q + K).  Without stiffness, as Bayo and Ledesma write
 * it: A z = M z* - h^2/4 alpha Phi_q^T c.  With stiffness as the correction
 * A dz = -h^2/4 alpha Phi_q^T (Phi_q z* + c), z = z* + dz: the same in
 * exact arithmetic when A's K and C are those of (M + h/2 C + h^2/4 K) z*,
 * but A holds them symmetrised (and from an earlier Newton iterate), and
 * a state-dependent force whose Jacobian is not symmetric (a motor's or a
 * damper's torque on a spatial joint: its load and rate vectors differ off
 * the constraint manifold) then moved z by h/2 (C - C^T) z* / 2 every step
 * even on the manifold: first order (issue 13, the trapezoidal AL on a
 * spatial chain with a motor: error ratio 2 per halved step).  The
 * correction vanishes on the manifold whatever the weighting. */
static void s_project(const mbs_dae_form *f, mbs_data *d, double h, double alpha, double *z, const double *c,
                      double t)
{
    int n = f->n, ne = f->ne;
    double *y = d->w1, *r = d->r2;
    if (!f->has_stiffness) {
        s_pmul(f, d, h, z, t, y);
        for (int i = 0; i < ne; i++) r[i] = d->eq_on[i] ? -0.25 * h * h * alpha * c[i] : 0;
        f->jtl(f->ctx, d->jac, r, y);
        f->al_solve(f->ctx, y);
        memcpy(z, y, sizeof(double) * (size_t)n);
        return;
    }
    f->jv(f->ctx, d->jac, z, r);
    for (int i = 0; i < ne; i++) r[i] = d->eq_on[i] ? -0.25 * h * h * alpha * (r[i] + c[i]) : 0;
    memset(y, 0, sizeof(double) * (size_t)n);
    f->jtl(f->ctx, d->jac, r, y);
    f->al_solve(f->ctx, y);
    for (int i = 0; i < n; i++) z[i] += y[i];
}

int mbs_al_run(const mbs_dae_form *fm, const mbs_model *m, mbs_data *d, mbs_stepper *run, mbs_errlist *err)
{
    const mbs_solver_spec *o = &m->spec->solver;
    int n = fm->n, ne = fm->ne;
    double T = o->t_end;
    double h = o->step > 0 ? o->step : 1e-3;
    long nstep = (long)ceil(T / h - 1e-9);
    if (nstep < 1) nstep = 1;
    h = T / (double)nstep;
    /* penalty: solver.penalty is alpha at the reference step 0.01 s and is
     * scaled with 1/h^2 below it, so that the Newton contraction factor
     * ~ 1 / (1 + alpha h^2 |Phi_q|^2 / 4 m) does not depend on the step */
    double pen = o->penalty > 0 ? o->penalty : 1e9;
    double alpha = pen * fm->mass_scale * fmax(1.0, 1e-4 / (h * h));
    /* Newton tolerance on the position corrections.  A position error dx
     * becomes a velocity error 2 dx / h through the trapezoidal rule, so a
     * step is never accepted on its first correction unless that correction
     * is already 1000 times below the tolerance */
    double tolx = fmax(1e-2 * o->tolerance, 1e-14) * fm->length_scale;
    int maxit = o->max_newton > 0 ? o->max_newton : 25;
    double cK = fm->has_stiffness ? 0.25 * h * h : 0, cC = fm->has_stiffness ? 0.5 * h : 0;
    double *vh = d->hv, *ahat = d->ha;
    double *f = d->w1, *dx = d->w2, *tmp = d->r2;
    double *lam = d->lam; /* lam*: kept from step to step */
    double *am = d->rk;   /* acceleration two steps back (error estimate)    */

    for (long k = 1; k <= nstep; k++) {
        double t1 = k == nstep ? T : (double)k * h;
        /* save the previous state for interpolation */
        memcpy(d->xp, d->x, sizeof(double) * (size_t)n);
        memcpy(d->vp, d->v, sizeof(double) * (size_t)n);
        memcpy(d->ap, d->a, sizeof(double) * (size_t)n);
        d->tp = d->t;
        /* predictor */
        for (int i = 0; i < n; i++) d->x[i] = d->xp[i] + h * d->vp[i] + 0.5 * h * h * d->ap[i];
        int converged = 0;
        double dn_prev = 0;
        int itmax = maxit;
        for (int i = 0; i < n; i++) {
            vh[i] = 2.0 / h * d->xp[i] + d->vp[i];
            ahat[i] = 4.0 / (h * h) * (d->xp[i] + h * d->vp[i]) + d->ap[i];
        }
        for (int it = 0; it <= itmax; it++) {
            /* state implied by x1 */
            for (int i = 0; i < n; i++) {
                d->v[i] = 2.0 / h * d->x[i] - vh[i];
                d->a[i] = 4.0 / (h * h) * d->x[i] - ahat[i];
            }
            fm->constraints(fm->ctx, d->x, t1, d->phi, d->jac);
            /* multiplier update with the constraints at the new positions */
            if (it > 0)
                for (int i = 0; i < ne; i++) if (d->eq_on[i]) lam[i] += alpha * d->phi[i];
            if (it > 0) {
                double dn = 0;
                for (int i = 0; i < n; i++) dn = fmax(dn, fabs(dx[i]));
                /* converged, directly or by the estimated remaining error of a
                 * linearly converging iteration (slow near singular positions,
                 * where the multiplier update contracts slowly) */
                double rate = it > 1 && dn_prev > 0 ? dn / dn_prev : 1;
                dn_prev = dn;
                /* one correction is accepted only when it is far below the
                 * tolerance (the predictor was already converged) */
                if ((dn <= tolx && (it > 1 || dn <= 1e-3 * tolx)) ||
                    (rate < 0.95 && dn * rate / (1 - rate) <= tolx)) { converged = 1; break; }
                /* at a singular position the slow mode lies where the
                 * constraints are blind to first order: accept once the
                 * constraints hold and the corrections are small */
                if (it >= 3 && dn <= 100 * tolx && mbs_phi_norm(d) <= tolx) {
                    converged = 1;
                    d->met.singular_steps++;
                    break;
                }
                if (!isfinite(dn)) break;
                /* near a singular position one mode (the multipliers of the
                 * dependent direction) contracts slowly but steadily: allow
                 * it up to four times the iterations, with the matrix kept */
                if (it == itmax && rate < 0.98 && itmax < 4 * maxit) {
                    itmax = 4 * maxit;
                    d->met.singular_steps++;
                }
            }
            if (it >= itmax) break;
            /* residual f = h^2/4 [M a + Phi_q^T (lam + alpha phi) - Q] */
            fm->forces(fm->ctx, d->x, d->v, t1, tmp);
            fm->mass_mul(fm->ctx, d->a, f);
            for (int i = 0; i < n; i++) f[i] -= tmp[i];
            for (int i = 0; i < ne; i++) tmp[i] = d->eq_on[i] ? lam[i] + alpha * d->phi[i] : 0;
            fm->jtl(fm->ctx, d->jac, tmp, f);
            for (int i = 0; i < n; i++) dx[i] = -0.25 * h * h * f[i];
            /* full Newton for the first iterations, then the matrix is kept
             * (modified Newton) while the iteration converges */
            int info = it < 3 ? fm->al_factor(fm->ctx, 1.0, 0.25 * h * h * alpha, cK, cC, d->x, d->v, t1) : 0;
            if (it >= 3) mbs_note_system(d, n);
            if (info != 0) {
                mbs_err_add(err, "", "t = %.6g: the iteration matrix is singular (lock-up or massless body)", t1);
                return MBS_ESINGULAR;
            }
            d->met.newton_iterations++;
            fm->al_solve(fm->ctx, dx);
            for (int i = 0; i < n; i++) d->x[i] += dx[i];
        }
        if (!converged) {
            /* every equation is kept here (mbs_keeps_redundant): dependent
             * ones that contradict the others have no common solution */
            char why[sizeof d->rep.redundant_joints + 128] = "";
            if (d->rep.redundant > 0)
                snprintf(why, sizeof why, "; or the equations contradict each other: %d equation(s) depend on the "
                         "others, joints involved: %s", d->rep.redundant, d->rep.redundant_joints);
            mbs_err_add(err, "", "t = %.6g: Newton iterations did not converge in %d iterations (try a smaller "
                        "solver.step%s)", t1, itmax, why);
            return MBS_EDIVERGE;
        }
        d->t = t1;
        d->met.steps++;
        /* projections with the last factorisation (fresh Jacobian in d->jac) */
        fm->phi_t(fm->ctx, d->x, t1, d->phit);
        s_project(fm, d, h, alpha, d->v, d->phit, t1);
        fm->gamma(fm->ctx, d->x, d->v, t1, d->gam);
        s_project(fm, d, h, alpha, d->a, d->gam, t1);
        /* local error of the positions: the trapezoidal rule (Newmark
         * beta = 1/4) differs from the Taylor series by h^3 x'''/12 per
         * step, x''' ~ (a1 - a0) / h (Zienkiewicz & Xie's estimate); the
         * velocities by h^3 x''''/12, x'''' ~ (a1 - 2 a0 + a_-1) / h^2,
         * which is what shows a stiff mode ringing (alternating
         * accelerations; the positions barely move).  The step is fixed:
         * the estimate is reported, and a warning is given at the end of
         * the run when it exceeds the tolerance */
        double acc = 0;
        for (int i = 0; i < n; i++) {
            double ex = h * h / 12.0 * (d->a[i] - d->ap[i]) / mbs_wx(d, i, fabs(d->x[i]));
            double ev = k > 1 ? h / 12.0 * (d->a[i] - 2 * d->ap[i] + am[i]) / mbs_wv(d, i, fabs(d->v[i])) : 0;
            acc += ex * ex + ev * ev;
        }
        mbs_note_error(d, sqrt(acc / (2.0 * (n > 0 ? n : 1))));
        memcpy(am, d->ap, sizeof(double) * (size_t)n);
        int rc = mbs_step_done(m, d, run, err);
        if (rc) return rc;
    }
    return 0;
}
