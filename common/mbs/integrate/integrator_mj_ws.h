/*
 * integrator_mj_ws.h - the Moreau-Jean workspace, shared by integrator_mj.c
 * (islands, contact points, Lemke, the step) and integrator_mj_pgs.c (the
 * projected Gauss-Seidel sweeps).  Internal to common/mbs/integrate/.
 */
#ifndef MBS_INTEGRATOR_MJ_WS_H
#define MBS_INTEGRATOR_MJ_WS_H

#include "mbs/formulation/contact_rows.h"
#include "mbs/formulation/dae_form.h"
#include "mbs/linalg/linalg.h"
#include "mbs/linalg/cinv.h"
#include "mbs/model/data.h"

/* What a step reads of a declared pair, packed in one cache line: with
 * thousands of declared pairs (81800 for 400 balls) the active ones are
 * scattered over arrays of that size, and separate arrays (and the large
 * contact spec) cost a cache miss each. */
typedef struct {
    long lstep, istep;         /* last step in the system / in the index set  */
    double friction, restitution;
    int isl[2];                /* islands of the pair's bodies, -1            */
    int blen;                  /* length of a B column of the pair            */
    int slot;                  /* first warm-start slot                       */
    int shape[2];
    int rigid;                 /* law MBS_LAW_RIGID                           */
} mbs_mj_pinfo;

/* The error estimate's state (mj_error.c). */
typedef struct mbs_mj_est mbs_mj_est;

struct mbs_mj_ws {
    /* the mechanism, as the formulation gives it (mbs_mj_ws_make) */
    mbs_dae_form f;            /* equations of motion                         */
    mbs_contact_rows rows;     /* bodies and rigid contacts                   */
    int n, ne;                 /* velocities, constraint equations            */
    int nq;                    /* coordinates (f.nq, or n)                    */
    double *mval;              /* (f.mass_ptr[n]) M(q_m)'s values this step
                                  (f.mass_eval), NULL with a constant M      */
    double lscale;             /* the model's length scale                    */
    int nbody, bnv;            /* bodies; velocities per body (bvar)          */
    int *bvar;                 /* (nbody bnv) the velocities moving each body, -1 */
    int *shb;                  /* (nshape) the body of each shape, -1 ground  */
    int *eq_off, *eq_nnz;      /* (ne) row r of Phi_q: d->jac[eq_off ..) and
                                  its columns f.jac_cols[eq_off ..)          */
    const int **pvars;         /* (nc) the velocities of each pair's rows     */
    long stamp;                /* changes with the step's q_m (rows.points)   */
    int *plist, *pcount;       /* (S_CHUNK), (nc) the pairs handed to
                                  rows.points, their point counts            */
    double *preach, *pgmin;    /* (S_CHUNK) their reach, smallest gap if left out */
    /* islands: variables linked by bodies and equations */
    int nisl;
    int *var_isl, *var_loc;    /* (n) island and place in it                  */
    int *eq_loc;               /* (ne) place among its island's equations     */
    int *isl_vptr, *isl_var;   /* (nisl + 1), (n): variables of each island   */
    int *isl_eptr, *isl_eq;    /* (nisl + 1), (ne): its equations             */
    mbs_mat *isl_mat;          /* (nisl) dense KKT matrices (n = 0: large)    */
    mbs_cinv *isl_ci;          /* (nisl) Schur-complement constrained inverse */
    int *isl_schur;            /* (nisl) 1: M_I is positive definite (cinv)   */
    int *isl_lu;               /* (nisl) 1: this step uses the LU factor      */
    double *abuf;              /* (bufmax^2) an island's constraint matrix    */
    double *ibuf2;             /* (bufmax) solve scratch                       */
    int *onbuf;                /* (bufmax) an island's equations switched on  */
    int any_large;
    int bufmax;
    double *kbuf;              /* (nkkt) global right-hand side              */
    double *ibuf;              /* (bufmax) island right-hand side            */
    /* pairs */
    mbs_mj_pinfo *pi;               /* (nc) what a step reads of each pair         */
    double *prev;              /* (4 cap) per (pair, point): the normal and
                                  the friction impulse (world) of its last step */
    /* deactivation's check after a solve (s_recheck): the pairs it added
     * to the step's system, those the reach test left out (with their
     * smallest gap), the candidates, and the undo log of the pairs' steps
     * (lstep, istep before s_points changed them) for solving again */
    int *xtra, nxtra;          /* (nc) added pairs, increasing               */
    int *skip, nskip;          /* (nc) pairs left out by the reach test      */
    double *skipg;             /* (nc) their smallest gap                     */
    int *cand;                 /* (2 nc) candidates of the check             */
    long *ulog;                /* (3 nc) pair, lstep, istep                   */
    int nulog;
    long nimp;                 /* impacts of the step's system                */
    long nrecheck;             /* steps solved again (metrics: none; tests)   */
    /* the points of the current step */
    int cap;                   /* sum of the pairs' largest point counts       */
    mbs_rpoint *pt;            /* (cap)                                      */
    long *boff;                /* (cap) offset of the point's B columns       */
    double *bstore;            /* B columns                                   */
    /* the PGS unknowns z: per island its velocity (LU islands) or the r
     * numbers y of v = v_f + U y (Schur islands, P = U U^T) */
    int *isl_zptr;             /* (nisl + 1) the island's slice of z          */
    int *isl_red;              /* (nisl) 1: the slice is y (reduced)          */
    double *z;                 /* (n)                                         */
    double *z0;                /* (n) z at the start of the last PGS solve    */
    /* the last PGS solve's updates in order: point (or -1 a sweep starts,
     * -2 an NNCG move starts) and its impulse changes; logfull: the log
     * overflowed (s_recheck then keeps its bound) */
    int *logi;                 /* (caplog)                                    */
    double *logd;              /* (3 caplog)                                  */
    long nlog, caplog;
    int logfull;
    double *astore, *bzstore;  /* per point and component: w = a z, z += b dl */
    double *qz;                /* (3 cap) G v_f over the reduced sides        */
    int *pzoff, *pzlen;        /* (2 cap) slice of each side of a point       */
    double *pmu;               /* (cap) friction coefficient of the point     */
    /* skipping open points in the sweeps (integrator_mj_pgs.c) */
    double *ztrav;             /* (nisl) sum of |changes| of the island's z   */
    double *pbn;               /* (6 cap) 1-norm of b per (component, side)   */
    double *pam;               /* (2 cap) max-norm of the normal's a per side */
    double *psnap;             /* (2 cap) ztrav of the sides at the last visit */
    double *wlast;             /* (cap) w_n at the last visit                 */
    int *pisl;                 /* (2 cap) island of each side, -1            */
    double *wdi;               /* (3 cap) 1 / ((1 + eps) W_cc) for the sweep  */
    int *pstr;                 /* (cap) stride of its coefficient rows        */
    double *wblk;              /* (9 cap) W_ii blocks, row-major (c, d)       */
    double *lam, *bt, *wd;     /* (3 cap) impulses, targets, W_ii             */
    double *gam0;              /* (cap) gamma^- = G_n v0                      */
    double *cg_p, *cg_l0;      /* (3 cap) NNCG direction, sweep change        */
    int *act;                  /* (3 cap) PGS point lists                     */
    /* Lemke */
    int nl;                    /* largest Lemke LCP                            */
    double *lM, *lq, *lz, *lw, *lWc;
    int *lcomp;                /* (nl) component of a Lemke unknown, sign     */
    void *lwork;
    /* vectors */
    double *xm;                /* (max(nq, n)) the step's midpoint q_m        */
    double *vf, *tmp, *mv;     /* (n)                                         */
    long nlemke, npgs;
    /* a probe of the local contact problems (bench/siconos/fc3d_compare.c;
     * NULL in every run of the library, which never sets it): called with
     * after = 0 just before a PGS solve (w->lam holds the warm start) and
     * with after = 1 and the solve's wall-clock seconds (mbs_now) just after it */
    void (*probe)(void *ctx, const struct mbs_mj_ws *w, int np, int ncomp, int after, double seconds);
    void *probe_ctx;
    /* the last accepted step, for the reaction recovery */
    int np_last, ncomp_last;
    double h_last;
    mbs_mj_est *est;           /* the local error estimate (mj_error.c)       */
    double *bspeed;            /* (nbody) rows.body_speeds' bounds, NULL
                                  without the hook (s_pair_reach)            */
};

/* Projected Gauss-Seidel with NNCG on the np points of the step (see
 * integrator_mj_pgs.c): v (n) holds v_f + B Lambda on the LU islands on
 * entry and v_1 on every island at exit.  Returns the sweeps used, or -1
 * at the lcp_max_iterations limit. */
int mbs_mj_pgs(const mbs_model *m, mbs_mj_ws *w, int np, int ncomp, double vscale, double *v);

#endif
