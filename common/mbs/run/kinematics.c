/*
 * kinematics.c - kinematic analysis of a fully driven mechanism (degrees of
 * freedom = 0 once the drivers are counted): at each output time the
 * position problem Phi(x, t) = 0 is solved by Newton iterations from the
 * extrapolated previous solution, then the velocity and acceleration
 * problems  Phi_q v = -Phi_t,  Phi_q a = -gamma.  All three are solved by the
 * augmented-Lagrangian machinery, which also copes with redundant equations:
 * every equation is kept (mbs_keeps_redundant), so that Newton stops on
 * every residual and no independent set chosen at assembly can degenerate
 * later in the motion.
 */
#include "mbs/analysis/analysis.h"
#include "mbs/run/run.h"
#include "mbs/analysis/system.h"
#include "mbs/formulation/natural/natural.h"

#include <math.h>
#include <string.h>

int mbs_kinematics(const mbs_model *m, mbs_data *d, mbs_sampler *smp, mbs_errlist *err)
{
    int n = m->nvar, ne = m->neq;
    if (d->rep.dof > 0) {
        mbs_err_add(err, "/solver/analysis", "kinematic analysis needs a fully driven mechanism: %d degree(s) of "
                    "freedom are not driven (add drivers or use \"dynamics\")", d->rep.dof);
        return MBS_EINVAL;
    }
    double alpha = mbs_alpha(m), tol = 1e-11 * m->length_scale;
    double *zero = d->w1, *sig = d->w2, *dx = d->hv;
    memset(zero, 0, sizeof(double) * (size_t)n);
    const mbs_solver_spec *o = &m->spec->solver;
    int maxit = o->max_newton > 0 ? o->max_newton : 25;
    for (int k = 1; k < smp->nsample; k++) {
        double t1 = mbs_sample_time(smp, k), h = t1 - d->t;
        memcpy(d->xp, d->x, sizeof(double) * (size_t)n);
        memcpy(d->vp, d->v, sizeof(double) * (size_t)n);
        memcpy(d->ap, d->a, sizeof(double) * (size_t)n);
        d->tp = d->t;
        for (int i = 0; i < n; i++) d->x[i] += h * d->v[i] + 0.5 * h * h * d->a[i];
        int ok = 0;
        for (int it = 0; it < maxit; it++) {
            mbs_cons_eval(m, d->x, t1, d->phi, d->jac);
            if (mbs_phi_norm(d) <= tol) { ok = 1; break; }
            if (mbs_spd_build(m, d, 1.0, alpha, 0, 0, d->x, d->v, t1) != 0) break;
            memset(sig, 0, sizeof(double) * (size_t)(ne > 0 ? ne : 1));
            d->met.newton_iterations++;
            if (mbs_al_solve(m, d, zero, d->phi, alpha, 1e-3 * tol, 20, dx, sig) < 0) { /* best effort */ }
            for (int i = 0; i < n; i++) d->x[i] += dx[i];
        }
        if (!ok) {
            /* every equation is kept: dependent ones that disagree (two
             * drivers of one freedom) have no common solution either */
            if (d->rep.redundant > 0)
                mbs_err_add(err, "", "t = %.6g: the position problem has no solution (the drivers move the mechanism "
                            "out of its reach, or through a lock-up; or they contradict each other or the joints: %d "
                            "equation(s) depend on the others, joints involved: %s)", t1, d->rep.redundant,
                            d->rep.redundant_joints);
            else
                mbs_err_add(err, "", "t = %.6g: the position problem has no solution (the drivers move the mechanism "
                            "out of its reach, or through a lock-up)", t1);
            return MBS_EDIVERGE;
        }
        d->t = t1;
        d->met.steps++;
        /* velocities and accelerations */
        mbs_spd_build(m, d, 1.0, alpha, 0, 0, d->x, d->v, t1);
        mbs_cons_phit(m, d->x, t1, d->phit);
        memset(sig, 0, sizeof(double) * (size_t)(ne > 0 ? ne : 1));
        mbs_al_solve(m, d, zero, d->phit, alpha, 1e-12, 30, d->v, sig);
        /* to 1e-12 of gamma's size (it was 1e-10 absolute: Bricard's P3
         * accelerations 7.7e-10 of their range from the relative
         * formulation's, 9.3e-13 now; each pass a back-substitution) */
        mbs_cons_gamma(m, d->x, d->v, t1, d->gam);
        double gmax = 0;
        for (int i = 0; i < ne; i++) gmax = fmax(gmax, fabs(d->gam[i]));
        memset(sig, 0, sizeof(double) * (size_t)(ne > 0 ? ne : 1));
        mbs_al_solve(m, d, zero, d->gam, alpha, 1e-12 * (1 + gmax), 30, d->a, sig);
        /* sample exactly at t1: no interpolation needed */
        d->tp = t1;
        int rc = mbs_run_step_done(m, d, smp, err);
        if (rc) return rc;
    }
    return 0;
}
