/*
 * mj_error.c - the local error estimate of Moreau-Jean's smooth steps
 * (mj_error.h), so that a run says how accurate it is.
 *
 * What it follows.  Acary (INRIA RR-7151, 2009/2010, "Toward higher order
 * event-capturing schemes and adaptive time-step strategies for nonsmooth
 * multibody systems") estimates the consistency error of Moreau's scheme
 * separately on the smooth stretches, where the index set of the contacts
 * does not change and the scheme is a one-step method of the smooth
 * dynamics, and on the nonsmooth steps, whose error is O(h) in the impact
 * times whatever is done (a property of any event-capturing method); Studer,
 * Leine & Glocker (IJNME 76, 2008) likewise control the step of Moreau's
 * midpoint scheme only between switching points.  Here the step is fixed,
 * so the estimate is reported and decides the warning, as for the
 * trapezoidal AL (integrator_al.c).
 *
 * The smooth step.  With the contact impulses of an unchanged index set
 * acting as constraints, a step of integrator_mj.c is
 *   q_m = q0 + h/2 v0,  v1 = v0 + h a(q_m),  q1 = q_m + h/2 v1
 * (Stormer-Verlet, position form).  Expanding in h for forces that do not
 * depend on v: q1 - q(h) = h^3 q'''/12 and v1 - v(h) = -h^3 (f''(v, v)/24 +
 * f_q a / 6); with abar_k = (v_k - v_{k-1}) / h, the step's mean acceleration
 * (d->a), abar_k - abar_{k-1} ~ h q''' and abar_k - 2 abar_{k-1} + abar_{k-2}
 * ~ h^2 q'''', so
 *   e_q = h^2 / 12 (abar_k - abar_{k-1}),
 *   e_v = h / 6 (abar_k - 2 abar_{k-1} + abar_{k-2})
 * (e_v exact for forces linear in q, up to 4 times high when the curvature
 * term dominates), each over the weight of its variable (mbs_wx, mbs_wv: the
 * run's tolerance, factor 1 as for every fixed-step method), weighted RMS,
 * the largest over the run in error_estimate (mbs_note_error).
 *
 * Which variables.  The status of a step is kept per contact group: the
 * islands of the workspace (bodies linked by joints; a free body alone)
 * joined by the points that act (in the index set, or with an impulse; an
 * impact on one ball of a pile changes the impulses on all of them).  Each
 * acting point's code (in the index set; normal impulse positive; closing
 * at the step's start, where restitution applies; each friction component
 * at its bound and on which side) is hashed with its pair's index into the
 * group's signature.  A variable is estimated at step k when its island's
 * group signature was the same in steps k-3 .. k (so abar_k, abar_{k-1},
 * abar_{k-2} carry no impact, activation, release or stick-slip switch).
 * Steps in which some island's signature changed are counted in the metric
 * nonsmooth_steps.  Velocities of a group whose impulses came from PGS in
 * one of the three steps are left out (positions kept): the iterate's
 * residual, up to lcp_tolerance x the velocity scale, enters abar / h and
 * the second difference does not shrink with h (the 100-ball box read 10,
 * 46, 18 at h = 2e-3, 1e-3, 5e-4 with them; 2.5, 0.14, 0.023 without).
 *
 * The nonsmooth steps.  A switch (impact, activation, release, stick-slip)
 * lands at the step, up to h from its true time: the position errs by up
 * to h^2/2 |abar_k - abar_{k-1}| (h/2 |velocity jump| for an impact: the
 * O(h) error of every event-capturing scheme), reported as the largest over
 * the changed islands' variables, in metric nonsmooth_error_estimate (units
 * of the tolerance), apart from error_estimate and tolerance_met: with
 * impacts no fixed step short of h ~ tol meets it, and a user compares runs
 * at h and h/2 (the service's verify jobs) for that part.
 *
 * Forms with M(q) (mass_eval: joint coordinates) take Q's velocity
 * products at a predicted midpoint velocity (integrator_mj.c, "Second
 * order with M(q)"): their smooth step is second order too, with a local
 * error of the same order as the one above (h^3 q''' and h^3 times
 * derivatives of Q and M) but not its coefficients, so e_q and e_v are
 * estimates of the right order there, not the exact leading term.
 *
 * Not covered: the propagation of the nonsmooth steps' error (a bound per
 * switch, not their sum over the run); the first-order term
 * of forces depending on the velocity with a constant M (the natural
 * coordinates' dampers: Q is taken at v0, h^2/2 M^-1 Q_v a in v per step),
 * and with M(q) that of a persistent contact's impulse, which the midpoint
 * velocity leaves out (h/2 M^-1 G^T Lambda / h in the velocity products'
 * argument), neither in the estimate; the PGS residual (reported as
 * max_complementarity_error, and the velocities of PGS groups above); the
 * projections' effect (they only remove
 * drift of the constraints).  When no variable had three unchanged steps,
 * the estimate is NaN and a warning says so.
 */
#include "mbs/integrate/mj_error.h"
#include "mbs/integrate/integrator_mj_ws.h"
#include "mbs/model/accuracy.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct mbs_mj_est {
    int n, nisl;
    uint64_t *sig, *psig;  /* (nisl) this step's signature, the last one's  */
    long *chg;             /* (nisl) last step whose signature changed      */
    int *par;              /* (nisl) union-find of the contact groups       */
    long *pgs;             /* (nisl) last step its group's impulses came
                              from PGS (an iterate, not the exact solution) */
    long npgs;             /* w->npgs after the last step                   */
    double *am;            /* (n) abar_{k-2}                                */
    long estimated;        /* steps with at least one variable estimated    */
    long steps;
};

int mbs_mj_error_start(mbs_mj_ws *w)
{
    mbs_mj_est *e = w->est;
    if (!e) {
        e = calloc(1, sizeof *e);
        if (!e) return -1;
        e->n = w->n;
        e->nisl = w->nisl;
        e->sig = calloc((size_t)e->nisl + 1, sizeof *e->sig);
        e->psig = calloc((size_t)e->nisl + 1, sizeof *e->psig);
        e->chg = calloc((size_t)e->nisl + 1, sizeof *e->chg);
        e->par = calloc((size_t)e->nisl + 1, sizeof *e->par);
        e->pgs = calloc((size_t)e->nisl + 1, sizeof *e->pgs);
        e->am = calloc((size_t)e->n + 1, sizeof *e->am);
        w->est = e;
        if (!e->sig || !e->psig || !e->chg || !e->par || !e->pgs || !e->am) return -1;
    }
    memset(e->psig, 0, sizeof *e->psig * (size_t)e->nisl);
    memset(e->chg, 0, sizeof *e->chg * (size_t)e->nisl);
    for (int I = 0; I < e->nisl; I++) e->pgs[I] = -10;
    e->npgs = w->npgs;
    e->estimated = e->steps = 0;
    return 0;
}

/* A pair's status code mixed with its index (the finaliser of splitmix64):
 * sums of these over an island's points change with any point's status. */
static uint64_t s_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* Union-find over the islands (path halving). */
static int s_find(int *p, int i)
{
    while (p[i] != i) i = p[i] = p[p[i]];
    return i;
}

/* The status code of point i of the step mixed with its pair's index (0:
 * the point acts on nothing: outside the index set, no impulse).  Bits: in
 * the index set; normal impulse positive; closing at the step's start
 * (Newton's law with restitution applies); each friction component at its
 * bound, on which side (slip; in space, a face of the pyramid). */
static uint64_t s_point_code(const mbs_mj_ws *w, int i, long step, int ncomp)
{
    int k = w->pt[i].pair;
    const double *lam = w->lam + 3 * i;
    double mu = w->pmu[i];
    (void)step; /* (in the index set at this step: w->pin) */
    int in = w->pin[i], act = lam[0] > 0;
    if (!in && !act) return 0;
    uint64_t code = 1u | (uint64_t)in << 1 | (uint64_t)act << 2 | (uint64_t)(w->gam0[i] < 0) << 3;
    if (act && mu > 0) {
        double lim = mu * lam[0] * (1 - 1e-6);
        for (int c = 1; c < ncomp; c++) {
            if (lam[c] >= lim) code |= (uint64_t)1 << (2 + 2 * c);
            if (lam[c] <= -lim) code |= (uint64_t)1 << (3 + 2 * c);
        }
    }
    return s_mix((uint64_t)k << 8 | code);
}

void mbs_mj_error_step(mbs_data *d, mbs_mj_ws *w, long step, double h, int np, int ncomp)
{
    mbs_mj_est *e = w->est;
    if (!e) return;
    e->steps++;
    /* the contact groups: islands joined by the points that act (an
     * impact on one ball of a pile changes the impulses on all of them) */
    for (int I = 0; I < e->nisl; I++) {
        e->par[I] = I;
        e->sig[I] = 0;
    }
    for (int i = 0; i < np; i++) {
        const int *isl = w->pisl + 2 * i;
        if (isl[0] < 0 || isl[1] < 0 || !s_point_code(w, i, step, ncomp)) continue;
        int a = s_find(e->par, isl[0]), b = s_find(e->par, isl[1]);
        if (a != b) e->par[a] = b;
    }
    /* each group's signature: the sum of its points' codes */
    for (int i = 0; i < np; i++) {
        const int *isl = w->pisl + 2 * i;
        uint64_t s = s_point_code(w, i, step, ncomp);
        int I = isl[0] >= 0 ? isl[0] : isl[1];
        if (s && I >= 0) e->sig[s_find(e->par, I)] += s;
    }
    int changed = 0, pgs = w->npgs != e->npgs;
    e->npgs = w->npgs;
    for (int I = 0; I < e->nisl; I++) {
        uint64_t g = e->sig[s_find(e->par, I)];
        if (pgs && g) e->pgs[I] = step;
        if (g == e->psig[I]) continue;
        e->chg[I] = step;
        e->psig[I] = g;
        changed = 1;
    }
    if (changed) d->met.nonsmooth_steps++;
    /* a switch inside the step: the impulse or the force change lands at
     * the step, up to h away from the true time; the position then errs
     * by up to h^2/2 |abar_k - abar_{k-1}| (h/2 |v jump| for an impact, the
     * bound rigid_test checks on the apexes), the largest over the
     * variables of the islands that changed (a bound: a switch moves few
     * of them, an RMS would dilute it): metrics
     * nonsmooth_error_estimate (not in error_estimate, tolerance_met) */
    if (changed && step >= 2) {
        double en = 0, cx = 0.5 * h * h;
        for (int I = 0; I < e->nisl; I++) {
            if (e->chg[I] != step) continue;
            for (int j = w->isl_vptr[I]; j < w->isl_vptr[I + 1]; j++) {
                int i = w->isl_var[j];
                double ex = fabs(cx * (d->a[i] - d->ap[i])) / mbs_wx(d, i, fabs(d->x[i]));
                if (ex > en) en = ex;
            }
        }
        if (!(en <= d->met.nonsmooth_error_estimate)) d->met.nonsmooth_error_estimate = en;
    }
    /* the weighted local errors of the variables of unchanged islands;
     * velocities only where the impulses of the three steps were exact
     * (Lemke, or no acting contact): a PGS iterate's residual, up to
     * lcp_tolerance x the velocity scale, would be amplified by the second
     * difference (h/6 x 4 residual / h, independent of h: the 100-ball box
     * read 10, 46, 18 at h = 2e-3, 1e-3, 5e-4); it is reported as
     * max_complementarity_error */
    double acc = 0;
    long cnt = 0;
    if (step >= 3) {
        const double *a = d->a, *ap = d->ap, *am = e->am;
        double cx = h * h / 12.0, cv = h / 6.0;
        for (int I = 0; I < e->nisl; I++) {
            if (e->chg[I] > step - 3) continue;
            int vel = e->pgs[I] <= step - 3;
            for (int j = w->isl_vptr[I]; j < w->isl_vptr[I + 1]; j++) {
                int i = w->isl_var[j];
                double ex = cx * (a[i] - ap[i]) / mbs_wx(d, i, fabs(d->x[i]));
                acc += ex * ex;
                cnt++;
                if (!vel) continue;
                double ev = cv * (a[i] - 2 * ap[i] + am[i]) / mbs_wv(d, i, fabs(d->v[i]));
                acc += ev * ev;
                cnt++;
            }
        }
    }
    if (cnt > 0) {
        e->estimated++;
        mbs_note_error(d, sqrt(acc / (double)cnt));
    }
    memcpy(e->am, d->ap, sizeof(double) * (size_t)e->n);
}

void mbs_mj_error_finish(mbs_data *d, const mbs_mj_ws *w)
{
    const mbs_mj_est *e = w->est;
    if (e && e->estimated > 0) return;
    d->met.error_estimate = NAN;
    if (e && e->steps < 3)
        mbs_warn(d, "moreau_jean: no error estimate: the run took %ld steps, the estimate needs 3", e->steps);
    else
        mbs_warn(d, "moreau_jean: no error estimate: the contacts changed in every stretch of 3 steps "
                    "(%ld of %ld steps nonsmooth)", d->met.nonsmooth_steps, e ? e->steps : 0L);
}

void mbs_mj_error_free(mbs_mj_ws *w)
{
    mbs_mj_est *e = w->est;
    if (!e) return;
    free(e->sig);
    free(e->psig);
    free(e->chg);
    free(e->par);
    free(e->pgs);
    free(e->am);
    free(e);
    w->est = NULL;
}
