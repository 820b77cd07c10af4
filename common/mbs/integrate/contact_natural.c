/*
 * contact_natural.c - the contact integrators on the natural coordinates:
 * their contact rows (formulation/contact_rows.h: the bodies' coordinates,
 * the rigid pairs' points and Jacobian rows of contact/contact_rigid.c,
 * contact deactivation's missed pairs of contact/contact.c, the frictional
 * clearance joints of dynamics/joint_friction.c), their DAE form
 * (dae_natural.c), and the entry points that make the workspaces of
 * Moreau-Jean (mbs_mj_ws_make) and of the event-driven integrator
 * (mbs_ed_ws_make) from the two and run them (mbs_mj_run, mbs_ed_run).
 *
 * Each hook is the natural-coordinate function integrator_mj.c,
 * integrator_ed.c and ed_contacts.c called directly before, with the same
 * arguments in the same order: the runs are the same to the bit.  In the integrate layer, beside dae_natural.c, for
 * its reason: the points come from contact/ (rank 5), above the natural
 * coordinates' layer.
 */
#include "mbs/integrate/dae_natural.h"
#include "mbs/integrate/integrators.h"
#include "mbs/contact/contact_rigid.h"
#include "mbs/dynamics/joint_friction.h"

#include <math.h>
#include <stdlib.h>

/* The context of both: the DAE form's, each shape's world shape at the
 * last stamp (a shape of several pairs is formed once per step), and the
 * shapes of each pair (a compact copy: the contact spec of one of 81800
 * declared pairs is a cache miss). */
typedef struct {
    mbs_dae_nat dae;
    mbs_shape *wsh;   /* (nshape) world shapes ...      */
    long *wsh_step;   /* (nshape) ... at this stamp      */
    int *psh;         /* (2 ncontact) the pairs' shapes  */
    int nf;           /* frictional clearance joints     */
    mbs_fjoint *fj;   /* (nf) as mbs_fjoint_find made them */
} s_nat;

static void s_body_vars(void *ctx, int b, int *vars)
{
    const mbs_model *m = ((s_nat *)ctx)->dae.m;
    for (int s = 0; s < m->nb; s++) vars[s] = m->body[b].var[s];
}

static int s_max_points(void *ctx, int k)
{
    return mbs_rigid_max_points(((s_nat *)ctx)->dae.m, k);
}

static const int *s_pair_vars(void *ctx, int k)
{
    return ((s_nat *)ctx)->dae.m->cfel[k].vars;
}

/* The smallest gap of the got points at pt (+inf for none; NaN when one
 * is NaN: never out of reach). */
static double s_min_gap(const mbs_rpoint *pt, int got)
{
    double g = INFINITY;
    for (int j = 0; j < got; j++) {
        if (isnan(pt[j].g)) return NAN;
        g = fmin(g, pt[j].g);
    }
    return g;
}

static int s_pair_nv(void *ctx, int k)
{
    return ((s_nat *)ctx)->dae.m->cfel[k].nvar;
}

/* The points of the pairs for points (pairs: their ids) and points_rec
 * (rec: their records), one loop for both. */
static void s_points_of(s_nat *c, const double *q, long stamp, const int *pairs, const mbs_rpair *const *rec,
                        int npairs, const double *reach, mbs_rpoint *out, int *count, double *gmin)
{
    const mbs_model *m = c->dae.m;
    int np = 0;
    for (int j = 0; j < npairs; j++) {
        int k = rec ? rec[j]->pair : pairs[j];
        const int *sh = rec ? rec[j]->shape : c->psh + 2 * k;
        /* each shape's world shape once per stamp */
        for (int s = 0; s < 2; s++)
            if (c->wsh_step[sh[s]] != stamp) {
                mbs_contact_world_shape(m, sh[s], q, &c->wsh[sh[s]]);
                c->wsh_step[sh[s]] = stamp;
            }
        int got = rec ? mbs_rigid_pair_points_rec(m, k, sh, rec[j]->nv, rec[j]->vars, q, &c->wsh[sh[0]],
                                                  &c->wsh[sh[1]], out + np)
                      : mbs_rigid_pair_points_ws(m, k, q, &c->wsh[sh[0]], &c->wsh[sh[1]], out + np);
        if (reach && got > 0) {
            double g = s_min_gap(out + np, got);
            if (g > reach[j]) {
                count[j] = -1;
                gmin[j] = g;
                continue;
            }
        }
        count[j] = got;
        np += got;
    }
}

static void s_points(void *ctx, const double *q, long stamp, const int *pairs, int npairs, const double *reach,
                     mbs_rpoint *out, int *count, double *gmin)
{
    s_points_of(ctx, q, stamp, pairs, NULL, npairs, reach, out, count, gmin);
}

static void s_points_rec(void *ctx, const double *q, long stamp, const mbs_rpair *const *pairs, int npairs,
                         const double *reach, mbs_rpoint *out, int *count, double *gmin)
{
    s_points_of(ctx, q, stamp, NULL, pairs, npairs, reach, out, count, gmin);
}

static int s_missed(void *ctx, const double *dq, int *out)
{
    s_nat *c = ctx;
    return mbs_contact_missed(c->dae.m, c->dae.d, dq, out);
}

/* The clearance joints: the natural coordinates' own records (with the
 * guide's normal as an affine vector), and the integrator's copy. */
static int s_clearance_find(void *ctx, mbs_clearance *cj, mbs_errlist *err)
{
    s_nat *c = ctx;
    int rc = mbs_fjoint_find(c->dae.m, c->fj, err);
    for (int f = 0; f < c->nf; f++)
        cj[f] = (mbs_clearance){.joint = c->fj[f].joint, .eq = {c->fj[f].eq[0], c->fj[f].eq[1]}, .mu = c->fj[f].mu,
                                .mus = c->fj[f].mus, .hw = c->fj[f].hw};
    return rc;
}

static void s_clearance_slide(void *ctx, const double *q, const double *v, double *W, double *V, double *gam,
                              double *vt)
{
    s_nat *c = ctx;
    const mbs_model *m = c->dae.m;
    int n = m->nvar;
    for (int f = 0; f < c->nf; f++)
        vt[f] = mbs_fjoint_slide(m, &c->fj[f], q, v, W + (size_t)f * n, V ? V + (size_t)f * n : NULL, &gam[f]);
}

static void s_release(void *ctx)
{
    s_nat *c = ctx;
    free(c->fj);
    free(c->wsh);
    free(c->wsh_step);
    free(c->psh);
    free(c);
}

/* The natural coordinates' context and contact rows of m (r->ctx); NULL
 * without memory. */
static s_nat *s_nat_new(const mbs_model *m, mbs_data *d, mbs_contact_rows *r)
{
    s_nat *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    int ns = m->spec->nshape, nc = m->spec->ncontact;
    c->nf = mbs_fjoint_count(m);
    c->wsh = calloc((size_t)ns + 1, sizeof *c->wsh);
    c->wsh_step = malloc(((size_t)ns + 1) * sizeof *c->wsh_step);
    c->psh = malloc((2 * (size_t)nc + 1) * sizeof *c->psh);
    c->fj = calloc((size_t)c->nf + 1, sizeof *c->fj);
    if (!c->wsh || !c->wsh_step || !c->psh || !c->fj) {
        s_release(c);
        return NULL;
    }
    for (int i = 0; i < ns; i++) c->wsh_step[i] = -1; /* the stamps start at 1 */
    for (int k = 0; k < nc; k++) {
        c->psh[2 * k] = m->spec->contacts[k].shape[0];
        c->psh[2 * k + 1] = m->spec->contacts[k].shape[1];
    }
    c->dae.m = m;
    c->dae.d = d;
    *r = (mbs_contact_rows){.nbody = m->nbody, .body_nv = m->nb, .ctx = c, .body_vars = s_body_vars,
                            .max_points = s_max_points, .pair_vars = s_pair_vars, .points = s_points,
                            .missed = s_missed, .nclear = c->nf, .clearance_find = s_clearance_find,
                            .clearance_slide = s_clearance_slide, .release = s_release, .pair_nv = s_pair_nv,
                            .points_rec = s_points_rec};
    return c;
}

int mbs_mj_ws_new(const mbs_model *m, mbs_data *d)
{
    mbs_contact_rows r;
    s_nat *c = s_nat_new(m, d, &r);
    if (!c) return -1;
    mbs_dae_form f;
    mbs_dae_natural(m, d, &c->dae, &f);
    return mbs_mj_ws_make(&f, &r, m, d);
}

int mbs_integrate_moreau_jean(const mbs_model *m, mbs_data *d, mbs_stepper *run, mbs_errlist *err)
{
    return mbs_mj_run(m, d, run, err);
}

int mbs_ed_data_init(const mbs_model *m, mbs_data *d)
{
    mbs_contact_rows r;
    s_nat *c = s_nat_new(m, d, &r);
    if (!c) return -1;
    mbs_dae_form f;
    mbs_dae_natural(m, d, &c->dae, &f);
    return mbs_ed_ws_make(&f, &r, m, d);
}

int mbs_integrate_event_driven(const mbs_model *m, mbs_data *d, mbs_stepper *run, mbs_errlist *err)
{
    return mbs_ed_run(m, d, run, err);
}
