/*
 * system_contacts.c - the BDF Newton system with contact force unknowns
 * (solver.contact_force_unknowns), see system_contacts.h.
 *
 * This is the formulation of ADAMS' GSTIFF that seed 002 measured: each
 * compliant contact carries its own force unknowns, so every pair in the
 * system adds rows and columns to the Newton matrix whether it touches or
 * not, and deactivation shrinks the matrix.  A pair couples any two bodies,
 * which breaks the band of the GGL ordering: the matrix goes to KLU (sparse
 * LU with its own fill-reducing ordering, sparse.c).
 *
 * Points: mbs_rigid_pair_points at an infinite margin, so a pair far apart
 * still has its closest points, with gap g > 0 and a zero law; a pair has
 * mbs_rigid_max_points slots, and a slot the narrow phase does not report
 * at some configuration has a zero law and zero Jacobian rows.  The law
 * itself is contact.c's (mbs_contact_point_law), fed with the normal and
 * tangential relative velocities G v of the witness points.
 *
 * Deactivation on and off give the same motion, as with force elements,
 * because a pair outside the active set is an identity row: its law and
 * its finite differences are exact zeros (emitted entries skip zeros), its
 * force is predicted 0 and stays 0.  The f unknowns are eliminated first
 * (in pair order, then the GGL unknowns in their band order) with fresh
 * partial pivoting and no scaling (sparse.c), so such a row is its own
 * pivot and adds only exact zeros to the rest; and the matrix is refreshed
 * when the active set changes with or without deactivation (contact.c
 * computes the set in both cases).  Measured: equal bit for bit
 * (contact_unknowns_test).
 */
#include "mbs/integrate/system_contacts.h"
#include "mbs/analysis/system.h"
#include "mbs/model/clock.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int mbs_cu_ws_new(const mbs_model *m, mbs_data *d)
{
    const mbs_spec *s = m->spec;
    int nc = s->ncontact, nn = nc > 0 ? nc : 1;
    struct mbs_cu_ws *w = calloc(1, sizeof *w);
    if (!w) return MBS_ENOMEM;
    d->cu = w;
    w->slot0 = calloc((size_t)nn, sizeof(int));
    w->nslot = calloc((size_t)nn, sizeof(int));
    w->ncomp = calloc((size_t)nn, sizeof(int));
    w->npt = calloc((size_t)nn, sizeof(int));
    w->sys = calloc((size_t)nn, sizeof(int));
    w->uoff = calloc((size_t)nn, sizeof(int));
    w->inset = calloc((size_t)nn, 1);
    if (!w->slot0 || !w->nslot || !w->ncomp || !w->npt || !w->sys || !w->uoff || !w->inset) return MBS_ENOMEM;
    /* slots and unknowns of every compliant pair (the worst case: all of
     * them in the system), and the triplets of their blocks */
    int slots = 0, unknowns = 0;
    long cap = 0;
    for (int k = 0; k < nc; k++) {
        w->slot0[k] = -1;
        if (s->contacts[k].law == MBS_LAW_RIGID) continue;
        int ns = mbs_rigid_max_points(m, k);
        w->slot0[k] = slots;
        w->nslot[k] = ns < MBS_CU_MAXPTS ? ns : MBS_CU_MAXPTS;
        w->ncomp[k] = s->contacts[k].friction > 0 ? m->dim : 1;
        slots += w->nslot[k];
        int nu = w->nslot[k] * w->ncomp[k];
        unknowns += nu;
        /* -G^T / w0 (nvar per unknown), I, -dlaw/dq, -dlaw/dv */
        cap += (long)nu * (3L * m->cfel[k].nvar + 1);
    }
    int ns1 = slots > 0 ? slots : 1;
    w->pts = calloc((size_t)ns1, sizeof(mbs_rpoint));
    w->law = calloc(3 * (size_t)ns1, sizeof(double));
    w->f = calloc(3 * (size_t)ns1, sizeof(double));
    w->rhs = calloc((size_t)(m->nggl + unknowns + 1), sizeof(double));
    w->order = calloc((size_t)(m->nggl + unknowns + 1), sizeof(int));
    if (!w->pts || !w->law || !w->f || !w->rhs || !w->order) return MBS_ENOMEM;
    /* the GGL blocks: structural bound of the shared emitter, with a
     * velocity of generic values (no accidental zero products) */
    for (int i = 0; i < m->nvar; i++) d->fd_v[i] = 0.5 + 0.61803398875 * (double)((i * 7919) % 101) / 101.0;
    mbs_ggl_emit(m, d, 1.0, m->x0, d->fd_v, 0.0, 0, NULL, NULL, &cap);
    w->S = mbs_sparse_new(m->nggl + unknowns, cap);
    if (!w->S) return MBS_ENOMEM;
    mbs_sparse_set_order(w->S, w->order);
    w->nsys = -1; /* no layout yet */
    return 0;
}

void mbs_cu_ws_free(mbs_data *d)
{
    struct mbs_cu_ws *w = d->cu;
    if (!w) return;
    free(w->slot0); free(w->nslot); free(w->ncomp); free(w->npt); free(w->sys); free(w->uoff);
    free(w->inset); free(w->order);
    free(w->pts); free(w->law); free(w->f); free(w->rhs);
    mbs_sparse_free(&w->S);
    free(w);
    d->cu = NULL;
}

int mbs_cu_layout(const mbs_model *m, mbs_data *d)
{
    struct mbs_cu_ws *w = d->cu;
    int nc = m->spec->ncontact, deact = m->spec->solver.contact_deactivation;
    int changed = w->nsys < 0, nsys = 0, u = m->nggl;
    for (int k = 0; k < nc; k++) {
        if (w->slot0[k] < 0) continue; /* rigid pairs: not here */
        /* the active set (every pair before contact.c computed one) */
        char in = d->c_ready ? d->c_inset[k] != 0 : 1;
        if (in != w->inset[k]) changed = 1;
        w->inset[k] = in;
        if (deact && !in) continue;
        w->sys[nsys++] = k;
        w->uoff[k] = u;
        u += w->nslot[k] * w->ncomp[k];
    }
    w->nsys = nsys;
    w->nf = u - m->nggl;
    /* elimination order: the force unknowns, then the GGL ones (band order) */
    for (int i = 0; i < w->nf; i++) w->order[i] = m->nggl + i;
    for (int i = 0; i < m->nggl; i++) w->order[w->nf + i] = m->gperm[i];
    return changed;
}

/* The law of pair k's slots (out: 3 per slot, zero beyond the np points P
 * reported) at velocities v. */
static void s_law(const mbs_model *m, const mbs_data *d, int k, const mbs_rpoint *P, int np, const double *v,
                  double *out)
{
    const mbs_contact_spec *C = &m->spec->contacts[k];
    const mbs_fel *el = &m->cfel[k];
    int ntan = m->dim - 1;
    memset(out, 0, sizeof(double) * 3 * (size_t)d->cu->nslot[k]);
    for (int s = 0; s < np && s < d->cu->nslot[k]; s++) {
        /* relative velocities of the witness points: G v */
        double u[3] = {0, 0, 0};
        for (int r = 0; r <= ntan; r++)
            for (int j = 0; j < el->nvar; j++) u[r] += P[s].G[r][j] * v[el->vars[j]];
        mbs_contact_point_law(C, P[s].g, u[0], u + 1, ntan, mbs_contact_vimp(d, k, -u[0]), out + 3 * s);
    }
}

void mbs_cu_eval(const mbs_model *m, mbs_data *d, const double *x, const double *v)
{
    struct mbs_cu_ws *w = d->cu;
    for (int i = 0; i < w->nsys; i++) {
        int k = w->sys[i];
        mbs_rpoint *P = &w->pts[w->slot0[k]];
        w->npt[k] = mbs_rigid_pair_points(m, k, x, P);
        if (w->npt[k] > w->nslot[k]) w->npt[k] = w->nslot[k];
        s_law(m, d, k, P, w->npt[k], v, &w->law[3 * w->slot0[k]]);
    }
}

void mbs_cu_predict(mbs_data *d)
{
    struct mbs_cu_ws *w = d->cu;
    for (int i = 0; i < w->nsys; i++) {
        int k = w->sys[i];
        memcpy(&w->f[3 * w->slot0[k]], &w->law[3 * w->slot0[k]], sizeof(double) * 3 * (size_t)w->nslot[k]);
    }
}

void mbs_cu_residual(const mbs_model *m, mbs_data *d, double *F2, double *r5)
{
    struct mbs_cu_ws *w = d->cu;
    for (int i = 0; i < w->nsys; i++) {
        int k = w->sys[i], nc = w->ncomp[k], b = w->slot0[k];
        const mbs_fel *el = &m->cfel[k];
        double *rr = r5 + (w->uoff[k] - m->nggl);
        for (int s = 0; s < w->nslot[k]; s++)
            for (int c = 0; c < nc; c++) {
                double f = w->f[3 * (b + s) + c];
                rr[s * nc + c] = -(f - w->law[3 * (b + s) + c]);
                /* the contact force on the bodies: G^T f (a slot without a
                 * point has no rows; its law, hence its f, is zero) */
                if (s >= w->npt[k]) continue;
                for (int j = 0; j < el->nvar; j++) F2[el->vars[j]] -= w->pts[b + s].G[c][j] * f;
            }
    }
}

double mbs_cu_update(const mbs_model *m, mbs_data *d, const double *df, double w0, double rtol, double atol)
{
    struct mbs_cu_ws *w = d->cu;
    double dn = 0;
    for (int i = 0; i < w->nsys; i++) {
        int k = w->sys[i], nc = w->ncomp[k], b = w->slot0[k];
        const double *dd = df + (w->uoff[k] - m->nggl);
        for (int s = 0; s < w->nslot[k]; s++)
            for (int c = 0; c < nc; c++) {
                double *f = &w->f[3 * (b + s) + c];
                *f += dd[s * nc + c];
                double wt = m->mass_scale * (atol + rtol * m->length_scale) + rtol * fabs(*f / w0);
                dn = fmax(dn, fabs(dd[s * nc + c] / w0) / wt);
            }
    }
    return dn;
}

/* The blocks of pair k: -G^T / w0 in the F2 rows, I, and the finite-
 * difference -dlaw/dq, -dlaw/dv over the pair's variables (both bodies).
 * Exact zeros are not emitted: a pair that does not touch is an identity
 * row (see the file header), and its zeros would only add fill. */
static void s_pair_blocks(const mbs_model *m, mbs_data *d, int k, double w0, double *xp, double *vp)
{
    struct mbs_cu_ws *w = d->cu;
    mbs_sparse *S = w->S;
    const mbs_fel *el = &m->cfel[k];
    int n = m->nvar, nc = w->ncomp[k], ns = w->nslot[k], b = w->slot0[k], u = w->uoff[k];
    const double *L0 = &w->law[3 * b];
    double Lp[3 * MBS_CU_MAXPTS];
    for (int s = 0; s < ns; s++)
        for (int c = 0; c < nc; c++) {
            int col = u + s * nc + c;
            for (int j = 0; j < el->nvar && s < w->npt[k]; j++)
                if (w->pts[b + s].G[c][j] != 0) mbs_sparse_add(S, n + el->vars[j], col, -w->pts[b + s].G[c][j] / w0);
            mbs_sparse_add(S, col, col, 1.0);
        }
    for (int pass = 0; pass < 2; pass++) {
        double *z = pass == 0 ? xp : vp;
        for (int a = 0; a < el->nvar; a++) {
            int var = el->vars[a];
            double z0 = z[var], h = 1e-7 * (1 + fabs(z0));
            z[var] = z0 + h;
            if (pass == 0) {
                int np = mbs_rigid_pair_points(m, k, xp, w->ptmp);
                s_law(m, d, k, w->ptmp, np < ns ? np : ns, vp, Lp);
            } else {
                s_law(m, d, k, &w->pts[b], w->npt[k], vp, Lp);
            }
            z[var] = z0; /* exact restore (see contact.c, mbs_contact_jac) */
            for (int s = 0; s < ns; s++)
                for (int c = 0; c < nc; c++) {
                    double dl = Lp[3 * s + c] - L0[3 * s + c];
                    if (dl != 0) mbs_sparse_add(S, u + s * nc + c, pass * n + var, -dl / h);
                }
        }
    }
}

int mbs_cu_build(const mbs_model *m, mbs_data *d, double w0, const double *x, const double *v, double t)
{
    struct mbs_cu_ws *w = d->cu;
    int N = m->nggl + w->nf;
    double t0 = mbs_now();
    mbs_sparse_begin(w->S, N);
    /* the GGL blocks, compliant contacts left out (they are the f rows) */
    mbs_ggl_emit(m, d, w0, x, v, t, 0, mbs_sparse_add_cb, w->S, NULL);
    /* the contact blocks, perturbing copies of the state */
    double *xp = d->fd_x, *vp = d->fd_v;
    memcpy(xp, x, sizeof(double) * (size_t)m->nvar);
    memcpy(vp, v, sizeof(double) * (size_t)m->nvar);
    for (int i = 0; i < w->nsys; i++) s_pair_blocks(m, d, w->sys[i], w0, xp, vp);
    d->met.jacobian_evaluations++;
    int analysed = 0;
    int info = mbs_sparse_factor(w->S, &analysed);
    w->analyses += analysed;
    d->met.factorizations++;
    mbs_note_system(d, N);
    d->met.linear_algebra_seconds += mbs_now() - t0;
    return info;
}

int mbs_cu_solve(const mbs_model *m, mbs_data *d, double *rhs)
{
    (void)m;
    return mbs_sparse_solve(d->cu->S, rhs);
}

int mbs_cu_unknowns(const mbs_data *d)
{
    return d->cu ? d->cu->nf : 0;
}
