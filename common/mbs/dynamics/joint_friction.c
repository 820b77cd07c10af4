/*
 * joint_friction.c - geometry of the frictional clearance joint (seed 003):
 * which equations carry its normal forces, and the sliding measure
 * s = d . ax (d = x_1(P) - x_0(P), ax the guide's unit axis) with its
 * Jacobian row W and the velocity-product term of its second derivative.
 * See joint_friction.h for the force law; the modes and events live in
 * integrator_ed.c.
 */
#include "mbs/dynamics/joint_friction.h"
#include "mbs/formulation/natural/natural.h"

#include <math.h>
#include <string.h>

int mbs_fjoint_count(const mbs_model *m)
{
    int n = 0;
    for (int j = 0; j < m->spec->njoint; j++)
        n += m->spec->joints[j].clearance_model == MBS_CLEARANCE_FRICTION;
    return n;
}

int mbs_fjoint_find(const mbs_model *m, mbs_fjoint *fj, mbs_errlist *err)
{
    int n = 0;
    for (int j = 0; j < m->spec->njoint; j++) {
        const mbs_joint_spec *J = &m->spec->joints[j];
        if (J->clearance_model != MBS_CLEARANCE_FRICTION) continue;
        mbs_fjoint *f = &fj[n++];
        f->joint = j;
        f->mu = J->friction;
        f->mus = fmax(J->friction_static, J->friction);
        f->hw = 0.5 * J->slider_width;
        /* n_1 - n_0 for the guide's unit normal n (axis turned by +90 deg) */
        double al = hypot(J->axis[0], J->axis[1]), nrm[3] = {0, 0, 0};
        if (al > 0) { nrm[0] = -J->axis[1] / al; nrm[1] = J->axis[0] / al; }
        mbs_avec n1 = mbs_body_avec(m, J->body[1], nrm, 0), n0 = mbs_body_avec(m, J->body[0], nrm, 0);
        f->nrel = n1;
        for (int t = 0; t < n0.nterm && f->nrel.nterm < 2; t++) {
            f->nrel.t[f->nrel.nterm] = n0.t[t];
            f->nrel.t[f->nrel.nterm].sign = -n0.t[t].sign;
            f->nrel.nterm++;
        }
        for (int i = 0; i < 3; i++) f->nrel.c[i] -= n0.c[i];
        /* the two end equations, in the order they were generated */
        int k = 0;
        for (int i = 0; i < m->neq && k < 2; i++)
            if (m->eq[i].joint == j) f->eq[k++] = i;
        if (k != 2) {
            mbs_err_add(err, "", "joint '%s': the clearance joint lost its end equations (both sides fixed?)",
                        J->name);
            return MBS_EINVAL;
        }
    }
    return 0;
}

/* row += w^T dA/dx for an affine vector A (dense row over the variables). */
static void s_avec_row(const mbs_model *m, const mbs_avec *a, const double *w, double *row)
{
    int dim = m->dim, nb = m->nb;
    for (int t = 0; t < a->nterm; t++) {
        const mbs_body *bd = &m->body[a->t[t].body];
        for (int s = 0; s < nb; s++) {
            if (bd->var[s] < 0) continue;
            double acc = 0;
            for (int i = 0; i < dim; i++) acc += a->t[t].L[i * nb + s] * w[i];
            row[bd->var[s]] += a->t[t].sign * acc;
        }
    }
}

double mbs_fjoint_slide(const mbs_model *m, const mbs_fjoint *f, const double *x, const double *v, double *W,
                        double *V, double *gam)
{
    const mbs_jgeom *g = &m->jg[f->joint];
    double d[3] = {0}, ax[3] = {0}, dd[3] = {0}, axd[3] = {0};
    mbs_avec_eval(m, &g->d, x, 0, d);
    mbs_avec_eval(m, &g->ax, x, 0, ax);
    mbs_avec_eval(m, &g->d, v, 1, dd);
    mbs_avec_eval(m, &g->ax, v, 1, axd);
    /* ds/dq = ax^T d_q + d^T ax_q */
    memset(W, 0, sizeof(double) * (size_t)m->nvar);
    s_avec_row(m, &g->d, ax, W);
    s_avec_row(m, &g->ax, d, W);
    /* s'' = W a + 2 d' . ax' (both factors are linear in q) */
    double vt = 0, pq = 0;
    for (int i = 0; i < m->nvar; i++) vt += W[i] * v[i];
    for (int i = 0; i < m->dim; i++) pq += dd[i] * axd[i];
    *gam = 2 * pq;
    /* V = d/dq [ax . u], u = n_1 - n_0: ax^T u_q + u^T ax_q */
    if (V && f->hw > 0) {
        double u[3] = {0};
        mbs_avec_eval(m, &f->nrel, x, 0, u);
        memset(V, 0, sizeof(double) * (size_t)m->nvar);
        s_avec_row(m, &f->nrel, ax, V);
        s_avec_row(m, &g->ax, u, V);
    }
    return vt;
}
