/*
 * dae_natural.c - the natural coordinates' DAE form (dae_natural.h): each
 * hook of formulation/dae_form.h is the natural-coordinate function the
 * implicit integrators called directly before (same arguments, same order
 * of operations: their results are bit for bit the same), the entry points
 * of the trapezoidal AL and the BDF on them, and the BDF's workspace sized
 * from their form.
 */
#include "mbs/integrate/dae_natural.h"
#include "mbs/integrate/integrators.h"
#include "mbs/integrate/system_ggl.h"
#include "mbs/analysis/analysis.h"
#include "mbs/analysis/system.h"
#include "mbs/linalg/linalg.h"
#include "mbs/formulation/natural/natural.h"
#include "mbs/dynamics/force.h"
#include "mbs/dynamics/controller.h"

static void s_mass_mul(void *ctx, const double *v, double *y)
{
    const mbs_dae_nat *c = ctx;
    mbs_mass_mul(c->m, v, y);
}

static void s_forces(void *ctx, const double *q, const double *v, double t, double *Q)
{
    const mbs_dae_nat *c = ctx;
    mbs_force_eval(c->m, c->d, q, v, t, Q);
}

static void s_forces_noncontact(void *ctx, const double *q, const double *v, double t, double *Q)
{
    const mbs_dae_nat *c = ctx;
    mbs_force_eval_noncontact(c->m, c->d, q, v, t, Q);
}

static void s_constraints(void *ctx, const double *q, double t, double *phi, double *jac)
{
    const mbs_dae_nat *c = ctx;
    mbs_cons_eval(c->m, q, t, phi, jac);
}

static void s_phi_t(void *ctx, const double *q, double t, double *phit)
{
    const mbs_dae_nat *c = ctx;
    mbs_cons_phit(c->m, q, t, phit);
}

static void s_gamma(void *ctx, const double *q, const double *v, double t, double *gam)
{
    const mbs_dae_nat *c = ctx;
    mbs_cons_gamma(c->m, q, v, t, gam);
}

static void s_baumgarte_rhs(void *ctx, const double *q, const double *v, double t, double alpha, double beta,
                            double *c)
{
    mbs_dae_nat *n = ctx;
    mbs_baumgarte_rhs(n->m, n->d, q, v, t, alpha, beta, c);
}

static void s_jv(void *ctx, const double *jac, const double *v, double *y)
{
    const mbs_dae_nat *c = ctx;
    mbs_cons_jv(c->m, jac, v, y);
}

static void s_jtl(void *ctx, const double *jac, const double *l, double *z)
{
    const mbs_dae_nat *c = ctx;
    mbs_cons_jtl(c->m, jac, l, z);
}

/* The AL matrix reads the Jacobian from d->jac, where the integrators keep
 * the last `constraints` (mbs_spd_build) */
static int s_al_factor(void *ctx, double cM, double cP, double cK, double cC, const double *q, const double *v,
                       double t)
{
    mbs_dae_nat *c = ctx;
    return mbs_spd_build(c->m, c->d, cM, cP, cK, cC, q, v, t);
}

static void s_al_solve(void *ctx, double *b)
{
    mbs_dae_nat *c = ctx;
    mbs_spd_solve(c->m, c->d, b);
}

/* Row r of Phi_q: its entries in d->jac parallel to m->colpool. */
static void s_jac_row(void *ctx, int r, int *off, int *nnz)
{
    const mbs_dae_nat *c = ctx;
    *off = (int)(c->m->eq[r].cols - c->m->colpool);
    *nnz = c->m->eq[r].nnz;
}

/* The model's banded KKT matrix (analysis/system.c) at d->jac. */
static int s_kkt_factor(void *ctx, const double *q, const double *v, double t)
{
    mbs_dae_nat *c = ctx;
    return mbs_kkt_build(c->m, c->d, 1.0, 0, 0, 0, NULL, q, v, t);
}

static void s_kkt_solve(void *ctx, double *rhs)
{
    mbs_dae_nat *c = ctx;
    mbs_kkt_solve(c->m, c->d, rhs);
}

/* The GGL matrix: sparse by KLU when its band would be wasteful, else
 * banded (system_ggl.c), chosen and made at the first BDF run rather than
 * with the workspace: the sparse pattern of a 10,000-body chain takes some
 * 80 MB of triplets to judge, which `mbs check` (a workspace but no
 * integration) need not spend.  With contact force unknowns the BDF builds
 * its own system (system_contacts.c) and only the banded one is made. */
static int s_ggl_prepare(void *ctx)
{
    mbs_dae_nat *c = ctx;
    const mbs_model *m = c->m;
    mbs_data *d = c->d;
    if (d->ggl_sp || d->ggl.n > 0) return 0;
    int cu = m->spec->solver.contact_force_unknowns;
    if (!cu && mbs_ggl_sp_eligible(m) && mbs_ggl_sp_new(m, d)) return MBS_ENOMEM;
    if (!mbs_ggl_sp_chosen(m, d)) mbs_ggl_sp_free(d);
    /* the sparse path solves with the velocities eliminated when the first
     * factorisation finds that cheaper (system_ggl_red.c) */
    if (d->ggl_sp && mbs_ggl_red_new(m, d)) return MBS_ENOMEM;
    if (!d->ggl_sp && mbs_mat_init(&d->ggl, MBS_MAT_GEN, m->nggl, m->gkl, m->gku)) return MBS_ENOMEM;
    return 0;
}

static int s_ggl_factor(void *ctx, double w0, const double *q, const double *v, double t)
{
    mbs_dae_nat *c = ctx;
    return c->d->ggl_sp ? mbs_ggl_sp_build(c->m, c->d, w0, q, v, t) : mbs_ggl_build(c->m, c->d, w0, q, v, t);
}

static int s_ggl_solve(void *ctx, double *rhs)
{
    mbs_dae_nat *c = ctx;
    if (c->d->ggl_sp) return mbs_ggl_sp_solve(c->d, rhs);
    mbs_ggl_solve(c->m, c->d, rhs);
    return 0;
}

static double s_rank_margin(void *ctx)
{
    const mbs_dae_nat *c = ctx;
    return mbs_rank_margin(c->m, c->d);
}

static void s_rank_scales(void *ctx, double *w)
{
    const mbs_dae_nat *c = ctx;
    mbs_rank_entry_scales(c->m, c->d, w);
}

static int s_reselect(void *ctx)
{
    mbs_dae_nat *c = ctx;
    return mbs_reselect_redundant(c->m, c->d);
}

static int s_accelerations(void *ctx, double t)
{
    mbs_dae_nat *c = ctx;
    return mbs_accelerations(c->m, c->d, t);
}

static void s_zrate(void *ctx, const double *q, const double *v, const double *z, double t, double *zd)
{
    const mbs_dae_nat *c = ctx;
    mbs_force_zrate(c->m, c->d, q, v, z, t, zd);
}

static double s_joint_rate(void *ctx, int j, const double *q, const double *v)
{
    const mbs_dae_nat *c = ctx;
    return mbs_joint_rate(c->m, j, q, v);
}

static void s_motor(void *ctx, int e, const double *q, const double *v, const double *z, double t,
                    mbs_dcmotor_state *st)
{
    const mbs_dae_nat *c = ctx;
    mbs_force_motor(c->m, c->d, e, q, v, z, t, st);
}

static int s_zelim_build(void *ctx, const double *q, const double *v, double t, double w0)
{
    mbs_dae_nat *c = ctx;
    return mbs_zelim_build(c->m, c->d, q, v, t, w0);
}

static double s_zelim_pre(void *ctx, const double *q, const double *v, double t, double w0, const double *bz)
{
    mbs_dae_nat *c = ctx;
    return mbs_zelim_pre(c->m, c->d, q, v, t, w0, bz);
}

static double s_zelim_post(void *ctx, const double *dq, const double *dv)
{
    mbs_dae_nat *c = ctx;
    return mbs_zelim_post(c->m, c->d, dq, dv);
}

static void s_energy_project(void *ctx)
{
    mbs_dae_nat *c = ctx;
    mbs_energy_project(c->m, c->d);
}

/* Entries of the constraint Jacobian (d->jac). */
static int s_jac_nnz(const mbs_model *m)
{
    int nnz = 0;
    for (int i = 0; i < m->neq; i++) nnz += m->eq[i].nnz;
    return nnz;
}

/* mbs_dae_form.next_stop and sample: the discrete controllers on the
 * accepted state in d (dynamics/controller.h). */
static double s_next_stop(void *ctx)
{
    mbs_dae_nat *c = ctx;
    return mbs_ctrl_next_stop(c->m, c->d);
}

static int s_sample(void *ctx)
{
    mbs_dae_nat *c = ctx;
    return mbs_ctrl_sample(c->m, c->d);
}

void mbs_dae_natural(const mbs_model *m, mbs_data *d, mbs_dae_nat *c, mbs_dae_form *f)
{
    c->m = m;
    c->d = d;
    *f = (mbs_dae_form){.name = "natural", .n = m->nvar, .ne = m->neq, .has_stiffness = m->has_stiffness,
                        .length_scale = m->length_scale, .mass_scale = m->mass_scale,
                        .jac_nnz = s_jac_nnz(m), .nggl = m->nggl, .ctx = c,
                        .jac_cols = m->colpool, .jac_row = s_jac_row,
                        .mass_ptr = m->M_ptr, .mass_col = m->M_col, .mass_val = m->M_val,
                        .kkt_factor = s_kkt_factor, .kkt_solve = s_kkt_solve,
                        .mass_mul = s_mass_mul, .forces = s_forces, .forces_noncontact = s_forces_noncontact,
                        .constraints = s_constraints, .phi_t = s_phi_t, .gamma = s_gamma, .baumgarte_rhs = s_baumgarte_rhs, .jv = s_jv,
                        .jtl = s_jtl, .al_factor = s_al_factor, .al_solve = s_al_solve,
                        .ggl_prepare = s_ggl_prepare, .ggl_factor = s_ggl_factor, .ggl_solve = s_ggl_solve,
                        .rank_margin = s_rank_margin, .rank_scales = s_rank_scales, .reselect = s_reselect, .accelerations = s_accelerations,
                        .zrate = s_zrate, .joint_rate = s_joint_rate, .motor = s_motor,
                        .zelim_build = s_zelim_build, .zelim_pre = s_zelim_pre, .zelim_post = s_zelim_post,
                        .energy_project = mbs_energy_projectable(m) ? s_energy_project : NULL,
                        .next_stop = m->nctrl > 0 ? s_next_stop : NULL, .sample = m->nctrl > 0 ? s_sample : NULL};
}

int mbs_integrate_al(const mbs_model *m, mbs_data *d, mbs_stepper *run, mbs_errlist *err)
{
    mbs_dae_nat c;
    mbs_dae_form f;
    mbs_dae_natural(m, d, &c, &f);
    return mbs_al_run(&f, m, d, run, err);
}

int mbs_integrate_bdf(const mbs_model *m, mbs_data *d, mbs_stepper *run, mbs_errlist *err)
{
    mbs_dae_nat c;
    mbs_dae_form f;
    mbs_dae_natural(m, d, &c, &f);
    return mbs_bdf_run(&f, m, d, run, err);
}

int mbs_bdf_ws_new(const mbs_model *m, mbs_data *d)
{
    mbs_dae_nat c;
    mbs_dae_form f;
    mbs_dae_natural(m, d, &c, &f);
    return mbs_bdf_ws_make(&f, m, d);
}

int mbs_bdf_ggl_ws(const mbs_model *m, mbs_data *d)
{
    mbs_dae_nat c = {m, d};
    return s_ggl_prepare(&c);
}
