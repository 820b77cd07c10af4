/*
 * system_ggl.c - see system_ggl.h.
 *
 * The GGL matrix (integrator_bdf.c) of n variables and ne equations has
 * 2n + 2ne unknowns; reverse Cuthill-McKee (run/build.c) orders it for a
 * banded LU, which costs n kl (kl + ku) per factorisation and n (2 kl + ku)
 * per solve, and LAPACK's banded routines go through one BLAS call per
 * column.  A closed chain with sprockets (the roller chain drive: 620
 * unknowns, half-bandwidth 17, 32 000 band entries) fills its band with
 * zeros: KLU on the matrix's own pattern (4 900 entries; BTF + AMD, partial
 * pivoting; the pattern known in advance, so analysed once and
 * refactorised with the kept pivots: 15 600 entries in L + U) solves in 9
 * us against 16.  Which one a model gets (mbs_ggl_sp_chosen) is decided from
 * the two storage sizes: KLU when the band holds more than
 * SPARSE_BAND_RATIO times the pattern's entries (the chain 6.6, the 27-ball
 * box 6.1; the N = 40 four-bar 5.4, Bricard's mechanism and the flyball
 * governor, dense today, 12 and 13).  It applies to every model with 64 or
 * more GGL unknowns (mbs_ggl_sp_eligible): first to models with compliant
 * contacts only, because KLU's pivots round differently from the banded
 * LU's and move the step sequences at the rounding level; checked since for
 * every model (reference_test, tolerance_test, robustness_test under the
 * three builds of suite_variants) and faster on every one measured, BDF as
 * shipped, CPU: N = 40 four-bar 0.68 -> 0.40 s, Bricard 28 -> 21 ms, the
 * flyball 70 -> 59 ms, the spatial slider-crank 73 -> 53 ms.
 *
 * The sparse matrix may then be reduced (system_ggl_red.c, made by
 * mbs_ggl_red_new after the choice): the velocity increments eliminated,
 * KLU factorises the Schur complement in (q, lambda, mu); mbs_ggl_sp_build
 * and mbs_ggl_sp_solve go through it when the first factorisation finds
 * its L + U small enough against the full matrix's (see there).
 */
#include "mbs/integrate/system_ggl.h"
#include "mbs/analysis/system.h"
#include "mbs/linalg/sparse.h"
#include "mbs/model/clock.h"
#include "mbs/model/accuracy.h"
#include "mbs/formulation/natural/natural.h"

#include <stdlib.h>
#include <string.h>

/* band storage (2 kl + ku + 1 per unknown) against the pattern's entries
 * above which KLU is chosen (measured: see bench/README.md) */
#define SPARSE_BAND_RATIO 4.0

/* A block of the pattern: its (i, j) at (row_off + i, col_off + j) of the
 * matrix (hess: F2 rows, q columns; jvq: F4 rows, q columns). */
typedef struct {
    mbs_add_fn add;
    void *ctx;
    int row_off, col_off;
} s_patblk;

static void s_pat_add(void *ctx, int i, int j, double v)
{
    s_patblk *b = ctx;
    (void)v;
    b->add(b->ctx, b->row_off + i, b->col_off + j, 1.0);
}

static void s_pat_place(void *ctx, int i, int j)
{
    s_patblk *b = ctx;
    b->add(b->ctx, i, j, 1.0);
}

/* The entries mbs_ggl_emit can produce, as a pattern (see system_ggl.h):
 * its blocks written out from the model's structure, the constraint
 * Hessian and the derivative of Phi_q v from the model's functions at the
 * initial state with every multiplier 1 and generic velocities (their
 * structural zeros there may be non-zero later: the sink grows then).  No
 * entry is added where the matrix is structurally zero (the unit diagonals
 * of equations switched off come in by growth): KLU's zero-free diagonal
 * (BTF) must not land on entries that are always zero, or every
 * factorisation pivots off the diagonal (the chain drive: 220 000 entries
 * in L + U instead of 15 600).  Uses d->r1 and d->fd_v as scratch (made
 * by mbs_data_new before the integrator's workspace). */
void mbs_ggl_pattern(const mbs_model *m, mbs_data *d, mbs_add_fn add, void *ctx)
{
    int n = m->nvar, ne = m->neq;
    s_patblk all = {add, ctx, 0, 0};
    for (int i = 0; i < n; i++) add(ctx, i, i, 1.0);
    /* the structural blocks (mass, force elements with a state and their
     * controllers' variables, the bodies carrying contact shapes, the
     * constraint rows) */
    mbs_ggl_structure(m, 0, s_pat_place, &all);
    /* the constraint Hessian and d(Phi_q v)/dq */
    double *l = d->r1, *v = d->fd_v;
    for (int r = 0; r < ne; r++) l[r] = 1.0;
    for (int i = 0; i < n; i++) v[i] = 0.5 + 0.61803398875 * (double)((i * 7919) % 101) / 101.0;
    s_patblk hq = {add, ctx, n, 0}, jq = {add, ctx, 2 * n + ne, 0};
    mbs_cons_hess_add(m, m->x0, 0.0, l, 1.0, s_pat_add, &hq);
    mbs_cons_jvq_add(m, m->x0, v, 0.0, 1.0, s_pat_add, &jq);
}

int mbs_ggl_sp_new(const mbs_model *m, mbs_data *d)
{
    int gn = m->nggl;
    if (gn < 1) return MBS_EINVAL;
    /* room for the pattern's triplets (duplicates before compression) and
     * for as many entries outside it as in it */
    long cap = 2L * gn;
    for (int i = 0; i < m->nvar; i++) cap += m->M_ptr[i + 1] - m->M_ptr[i];
    for (int r = 0; r < m->neq; r++) cap += 4L * m->eq[r].nnz + 4L * m->eq[r].nnz * m->eq[r].nnz;
    for (int e = 0; e < m->nstate_el; e++) cap += 2L * m->stel[e].nvar * (m->stel[e].nvar + m->stel[e].ncvar);
    cap += 2L * m->spec->nshape * m->nb * m->nb;
    d->ggl_sp = mbs_sparse_new(gn, 2 * cap + 1024);
    if (!d->ggl_sp) return MBS_ENOMEM;
    mbs_sparse_begin(d->ggl_sp, gn);
    mbs_ggl_pattern(m, d, mbs_sparse_add_cb, d->ggl_sp);
    return mbs_sparse_fix_pattern(d->ggl_sp) ? MBS_ENOMEM : 0;
}

int mbs_ggl_sp_eligible(const mbs_model *m)
{
    return m->nggl >= 64;
}

/* Whether the band wastes more than SPARSE_BAND_RATIO times the pattern's
 * entries (the pattern of d->ggl_sp, just made). */
int mbs_ggl_sp_chosen(const mbs_model *m, const mbs_data *d)
{
    if (!d->ggl_sp || !mbs_ggl_sp_eligible(m)) return 0;
    double band = (double)m->nggl * (2.0 * m->gkl + m->gku + 1);
    return band > SPARSE_BAND_RATIO * (double)mbs_sparse_nnz(d->ggl_sp);
}

void mbs_ggl_sp_free(mbs_data *d)
{
    mbs_sparse_free(&d->ggl_sp);
    mbs_ggl_red_free(d);
}

int mbs_ggl_sp_full_factor(const mbs_model *m, mbs_data *d, mbs_sparse *S, double w0, const double *x,
                           const double *v, double t)
{
    mbs_sparse_begin(S, m->nggl);
    mbs_ggl_emit(m, d, w0, x, v, t, 1, mbs_sparse_add_cb, S, NULL);
    return mbs_sparse_factor(S, NULL);
}

int mbs_ggl_sp_build(const mbs_model *m, mbs_data *d, double w0, const double *x, const double *v, double t)
{
    if (d->ggl_red) return mbs_ggl_red_build(m, d, w0, x, v, t);
    double t0 = mbs_now();
    int info = mbs_ggl_sp_full_factor(m, d, d->ggl_sp, w0, x, v, t);
    d->met.jacobian_evaluations++;
    d->met.factorizations++;
    mbs_note_system(d, m->nggl);
    d->met.linear_algebra_seconds += mbs_now() - t0;
    return info;
}

int mbs_ggl_sp_solve(mbs_data *d, double *rhs)
{
    if (d->ggl_red) return mbs_ggl_red_solve(d, rhs);
    return mbs_sparse_solve(d->ggl_sp, rhs);
}
