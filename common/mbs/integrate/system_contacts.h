/*
 * system_contacts.h - the BDF Newton system with contact force unknowns
 * (solver.contact_force_unknowns; internal, see system_contacts.c and
 * docs/contacts.md "What deactivation removes, by law").
 *
 * Unknowns (q, v, lam/w0, mu/w0, f): the GGL unknowns of integrator_bdf.c
 * followed by the force components f of every point slot of every
 * compliant pair in the system (all declared compliant pairs without
 * deactivation, the active set with it).  Equations: the GGL ones, with the
 * contact forces entering F2 as - sum_s G_s^T f_s, and
 *     F5 = f - law(q, v) = 0
 * per slot and component (normal; tangents when the pair has friction).
 */
#ifndef MBS_SYSTEM_CONTACTS_H
#define MBS_SYSTEM_CONTACTS_H

#include "mbs/contact/contact_rigid.h"
#include "mbs/model/data.h"
#include "mbs/linalg/sparse.h"

#define MBS_CU_MAXPTS 4 /* most points a pair reports (box-plane)            */

struct mbs_cu_ws {
    int *slot0;           /* (ncontact) first point slot of pair k (-1: rigid) */
    int *nslot;           /* (ncontact) point slots (mbs_rigid_max_points)     */
    int *ncomp;           /* (ncontact) unknowns per slot: 1, or dim with friction */
    int *npt;             /* (ncontact) points reported at the current x       */
    mbs_rpoint *pts;      /* (slots) points at the current x                    */
    double *law;          /* (3 slots) the law at the current (x, v)            */
    double *f;            /* (3 slots) the force unknowns                       */
    int nsys, *sys;       /* pairs in the system this step (ncontact)          */
    int *uoff;            /* (ncontact) first unknown of pair k after the GGL ones */
    char *inset;          /* (ncontact) the active set at the last layout       */
    int *order;           /* (nggl + all unknowns) elimination order: f, then GGL */
    int nf;               /* force unknowns this step                           */
    double *rhs;          /* (nggl + all unknowns) Newton right-hand side       */
    mbs_rpoint ptmp[MBS_CU_MAXPTS];
    mbs_sparse *S;        /* the Newton matrix (KLU)                            */
    long analyses;        /* klu_analyze calls (pattern changes)                */
};

/* Workspace for a BDF run with contact force unknowns, sized for the worst
 * case (every declared compliant pair in the system), sparse sink included.
 * 0 or MBS_ENOMEM.  Called by mbs_data_new. */
int mbs_cu_ws_new(const mbs_model *m, mbs_data *d);
void mbs_cu_ws_free(mbs_data *d);

/* The pairs in the system for the coming step (in pair order) and the
 * places of their unknowns (after the GGL unknowns).  Returns 1 when the
 * active set of contact.c changed since the previous call: with
 * deactivation the layout changed and the factorised matrix is stale;
 * without, the matrix is refreshed at the same moments, so that both
 * settings take the same steps with the same arithmetic. */
int mbs_cu_layout(const mbs_model *m, mbs_data *d);

/* Contact points at x and the law at (x, v) of every pair in the system. */
void mbs_cu_eval(const mbs_model *m, mbs_data *d, const double *x, const double *v);

/* Predictor: f = the law of the last mbs_cu_eval. */
void mbs_cu_predict(mbs_data *d);

/* After mbs_cu_eval: F2 -= sum_s G_s^T f_s (variables, unscaled) and
 * r5 = -(f - law) (nf, the Newton right-hand side of the f rows). */
void mbs_cu_residual(const mbs_model *m, mbs_data *d, double *F2, double *r5);

/* Apply the Newton update df (nf) to f; returns the largest change scaled
 * like the multipliers' (units of M v: |df| / w0 against
 * mass_scale (atol + rtol length_scale) + rtol |f| / w0). */
double mbs_cu_update(const mbs_model *m, mbs_data *d, const double *df, double w0, double rtol, double atol);

/* Build and factor the Newton matrix at (x, v, t) for the weight w0 (after
 * mbs_cu_eval at the same x, v; d->jac current): the GGL blocks without the
 * contacts' stiffness and damping, -G^T / w0 in the F2 rows of the f
 * columns, I on the f diagonal, -dlaw/dq and -dlaw/dv (finite differences
 * over the pair's variables, both bodies) in the f rows.  0, or
 * MBS_SPARSE_EFULL, or a KLU status. */
int mbs_cu_build(const mbs_model *m, mbs_data *d, double w0, const double *x, const double *v, double t);

/* Solve with the factorised matrix, rhs = [F1; F2; F3; F4; F5] in place. */
int mbs_cu_solve(const mbs_model *m, mbs_data *d, double *rhs);

/* Force unknowns in the system this step (nf). */
int mbs_cu_unknowns(const mbs_data *d);

#endif
