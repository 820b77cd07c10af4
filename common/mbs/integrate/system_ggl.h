/*
 * system_ggl.h - the BDF's stabilised index-2 (GGL) Newton matrix factorised
 * sparse by KLU (internal; see system_ggl.c).  The banded LU of
 * analysis/system.c (mbs_ggl_build) serves the models whose band is narrow
 * against their non-zeros; this one the others.
 */
#ifndef MBS_SYSTEM_GGL_H
#define MBS_SYSTEM_GGL_H

#include "mbs/model/data.h"
#include "mbs/analysis/system.h"

/* Whether the model may take the sparse GGL matrix at all (64 or more GGL
 * unknowns: below, the banded LU is as fast).  Asked before mbs_ggl_sp_new,
 * which makes the pattern and sink that mbs_ggl_sp_chosen then judges. */
int mbs_ggl_sp_eligible(const mbs_model *m);

/* The sparse sink of the GGL matrix with its pattern (every entry
 * mbs_ggl_emit can produce), in d->ggl_sp.  0 or MBS_ENOMEM. */
int mbs_ggl_sp_new(const mbs_model *m, mbs_data *d);
void mbs_ggl_sp_free(mbs_data *d);

/* 1 when the model's GGL matrix is better factorised by KLU
 * (mbs_ggl_sp_build) than banded, judged from the pattern in d->ggl_sp
 * (see system_ggl.c for the rule); 0 without a sink. */
int mbs_ggl_sp_chosen(const mbs_model *m, const mbs_data *d);

/* Build and factor the GGL matrix at (x, v, t) for the BDF weight w0 (the
 * entries of mbs_ggl_emit, compliant contacts included), d->jac current.
 * 0, 1 (singular), MBS_SPARSE_EFULL or a KLU status < 0. */
int mbs_ggl_sp_build(const mbs_model *m, mbs_data *d, double w0, const double *x, const double *v, double t);

/* The full GGL matrix (mbs_ggl_emit's entries) built into the sparse sink
 * S (of mbs_ggl_sp_new's pattern) and factorised, no metrics counted.  As
 * mbs_ggl_sp_build's status. */
int mbs_ggl_sp_full_factor(const mbs_model *m, mbs_data *d, struct mbs_sparse *S, double w0, const double *x,
                           const double *v, double t);

/* Solve with the factorised matrix, rhs = [F1; F2; F3; F4] in place.  0 or
 * a KLU status. */
int mbs_ggl_sp_solve(mbs_data *d, double *rhs);

/* The entries the GGL matrix can hold (mbs_ggl_emit's), each passed once
 * or more to add with the value 1 (see system_ggl.c).  Uses d->r1, d->fd_v
 * as scratch. */
void mbs_ggl_pattern(const mbs_model *m, mbs_data *d, mbs_add_fn add, void *ctx);

/* ---- the velocities eliminated (system_ggl_red.c) ---- */

/* Make the Schur complement in (q, lambda, mu) of the sparse GGL matrix in
 * d->ggl_sp (made by mbs_ggl_sp_new) that eliminates the velocity
 * increments, n + 2 ne unknowns instead of 2 n + 2 ne (d->ggl_red holds
 * what the solves need).  mbs_ggl_sp_build and mbs_ggl_sp_solve then go
 * through it; the solution is the full system's up to rounding.  The
 * first mbs_ggl_sp_build factorises both and keeps the reduced one only
 * when its L + U holds at most RED_LU_RATIO (system_ggl_red.c) times the
 * full one's entries; otherwise d->ggl_red is freed and the full matrix
 * serves the run.  0, MBS_EINVAL (no sparse matrix, or reduced already)
 * or MBS_ENOMEM. */
int mbs_ggl_red_new(const mbs_model *m, mbs_data *d);
void mbs_ggl_red_free(mbs_data *d);

/* Build and factor, solve: as mbs_ggl_sp_build and mbs_ggl_sp_solve (the
 * right-hand side and the solution in the full layout [q; v; lam; mu]). */
int mbs_ggl_red_build(const mbs_model *m, mbs_data *d, double w0, const double *x, const double *v, double t);
int mbs_ggl_red_solve(mbs_data *d, double *rhs);

#endif
