/*
 * linalg.h - the linear systems of the solver, through LAPACKE.
 *
 * One small abstraction, mbs_mat, over four storage schemes:
 *   SPD  band (dpbtrf/dpbtrs) or dense (dpotrf/dpotrs): the augmented-
 *        Lagrangian and penalty matrices M + alpha Phi_q^T Phi_q;
 *   GEN  band (dgbtrf/dgbtrs) or dense (dgetrf/dgetrs): KKT matrices of the
 *        BDF integrator and the assembly/kinematic Newton steps.
 * Band storage is chosen when the reverse Cuthill-McKee ordering of the
 * matrix graph gives a half-bandwidth small against n: chain-like mechanisms
 * then cost O(n kd^2) per factorisation instead of O(n^3).
 * Indices passed to mbs_mat_add are positions in the ORDERED matrix; the
 * caller applies its permutation.  No allocation after mbs_mat_init.
 */
#ifndef MBS_LINALG_H
#define MBS_LINALG_H

typedef enum { MBS_MAT_SPD = 0, MBS_MAT_GEN = 1 } mbs_mat_kind;

typedef struct {
    mbs_mat_kind kind;
    int n;
    int band;      /* 1 band storage, 0 dense                               */
    int kl, ku;    /* band widths (SPD: kd = ku, kl unused)                 */
    int ld;        /* leading dimension of a                                */
    double *a;     /* column-major storage                                  */
    int *ipiv;     /* GEN                                                   */
    int outside;   /* entries added outside the band since the last zero   */
} mbs_mat;

/* Allocate for an n x n matrix with the given band (kl, ku); chooses band or
 * dense storage (dense when the band is wider than n/3 or n < 24).  SPD
 * matrices use ku as kd.  Returns 0 or -1 (no memory). */
int mbs_mat_init(mbs_mat *A, mbs_mat_kind kind, int n, int kl, int ku);
void mbs_mat_free(mbs_mat *A);
void mbs_mat_zero(mbs_mat *A);
/* A(i,j) += v.  SPD: only i <= j is stored; entries with i > j are ignored,
 * so callers add each off-diagonal pair once with i <= j.  An entry outside
 * the band (a model whose coupling the ordering did not foresee) is not
 * stored but counted in A->outside; mbs_mat_factor then refuses. */
void mbs_mat_add(mbs_mat *A, int i, int j, double v);
/* Factorise in place; 0 on success, > 0 when singular / not positive
 * definite (LAPACK info), -2 when entries fell outside the band. */
int mbs_mat_factor(mbs_mat *A);
/* Solve A x = b in place for one right-hand side (after factor). */
void mbs_mat_solve(const mbs_mat *A, double *b);

/* Reverse Cuthill-McKee ordering of a symmetric graph given in CSR form
 * (adjacency without the diagonal).  perm[k] = node at position k.  Returns
 * the half-bandwidth of the ordered graph. */
int mbs_rcm(int n, const int *ptr, const int *adj, int *perm);

/* Rank-revealing QR with column pivoting of the m x n column-major matrix A
 * (destroyed).  jpvt[k] = original column at position k (0-based); rdiag
 * receives |R_kk| (min(m,n) entries).  Returns the numerical rank with the
 * relative tolerance tol, or -1 on failure. */
int mbs_qrcp_rank(int m, int n, double *A, int *jpvt, double *rdiag, double tol);

/* The workspace (doubles) of mbs_qrcp_rank_ws for an m x n matrix: LAPACK's
 * optimum, the size LAPACKE_dgeqp3 queries and allocates; -1 on failure. */
int mbs_qrcp_lwork(int m, int n);

/* mbs_qrcp_rank without allocating: tau (min(m, n) entries) and work
 * (lwork = mbs_qrcp_lwork(m, n) entries) the caller's.  The same QR (the
 * same LAPACK call with the same workspace size) and the same refusal of a
 * matrix holding a NaN. */
int mbs_qrcp_rank_ws(int m, int n, double *A, int *jpvt, double *rdiag, double tol, double *tau, double *work,
                     int lwork);

/* Least-squares / minimum-norm solution of A x = b, A m x n column-major
 * (destroyed), b of length max(m,n) (solution in the first n). 0 or -1. */
int mbs_lstsq(int m, int n, double *A, double *b);

/* Workspace of mbs_lstsq_ws for an m x n problem (sizes in doubles and
 * ints).  Returns 0 or -1. */
int mbs_lstsq_query(int m, int n, int *lwork, int *liwork);

/* mbs_lstsq with caller workspace (no allocation): work (lwork doubles,
 * plus min(m,n) for singular values) and iwork (liwork ints). */
int mbs_lstsq_ws(int m, int n, double *A, double *b, double *work, int lwork, int *iwork);

#endif
