/*
 * lcp.h - linear complementarity solvers for rigid contact (issue 3).
 *
 * Standard LCP(M, q): find z in R^n with
 *     z >= 0,   w = M z + q >= 0,   z^T w = 0,
 * M dense n x n, COLUMN-MAJOR (M[i + n j] = M_ij), not necessarily symmetric.
 *
 *   mbs_lcp_lemke         Lemke's complementary pivoting (covering vector
 *                         e = all ones), for the event-driven LCPs with few
 *                         contacts.  Solves every LCP with a P-matrix (in
 *                         particular symmetric positive definite, or
 *                         nonsymmetric positive definite) and reports ray
 *                         termination otherwise.
 *   mbs_lcp_pgs           projected Gauss-Seidel with over-relaxation, for
 *                         Moreau-Jean time stepping with many contacts
 *                         (needs M_ii > 0; converges for symmetric positive
 *                         definite M and 0 < omega < 2).
 *   mbs_lcp_pgs_friction  the same for boxed blocks: a friction index i
 *                         of normal index k has the bounds
 *                         -mu_i z_k <= z_i <= mu_i z_k (friction cone
 *                         approximated by a box in the plane, a pyramid in
 *                         space), with z_k the current normal impulse.
 *   mbs_lcp_residual      max_i |min(z_i, w_i)| and the most negative entry,
 *                         to check a solution.
 *
 * Pure functions: the caller provides the workspace (the *_worksize
 * functions return its size in bytes; it must be aligned for double, as
 * malloc memory is).  Nothing is allocated inside a solve, nothing printed.
 *
 * Return codes: MBS_LCP_SOLVED (0), MBS_LCP_RAY (1, Lemke found no
 * solution), MBS_LCP_LIMIT (2, pivot or iteration limit), or MBS_EINVAL (-1,
 * mbs.h) for invalid input (negative n, NULL arrays, non-finite entries,
 * options out of range, PGS with a non-positive diagonal entry).  Every
 * outcome fills the status struct (when not NULL) with counts, the final
 * residual and a one-line message.
 */
#ifndef MBS_LCP_H
#define MBS_LCP_H

#include <stddef.h>

enum {
    MBS_LCP_SOLVED = 0, /* solution found (PGS: residual below tolerance)  */
    MBS_LCP_RAY = 1,    /* Lemke: ray termination, no solution found       */
    MBS_LCP_LIMIT = 2   /* pivot limit (Lemke) or iteration limit (PGS)    */
};

/* Options.  A zero-initialised struct selects every default; a field <= 0
 * means "default" as well. */
typedef struct {
    int max_pivots;    /* Lemke pivot limit; default 50 n                     */
    double pivot_tol;  /* Lemke: a tableau entry is a pivot candidate only
                          when > pivot_tol; the tableau is built from M and
                          q scaled to max |entry| = 1, so the test is
                          relative to the data.  Default 1e-12              */
    int max_iter;      /* PGS sweep limit; default 1000                      */
    double tol;        /* PGS: stop when the residual (see
                          mbs_lcp_box_residual) <= tol * max_i |q_i|;
                          default 1e-10 (q = 0 gives z = 0 at once)         */
    double omega;      /* PGS relaxation, in (0, 2); default 1               */
} mbs_lcp_opts;

/* What a solve did. */
typedef struct {
    int pivots;        /* Lemke: pivots done (the first one, z0 entering,
                          included); 0 for the trivial case q >= 0          */
    int iterations;    /* PGS: sweeps done                                   */
    double residual;   /* residual of the returned z (absolute: Lemke
                          max_i |min(z_i, w_i)|, PGS the box residual)      */
    char message[200]; /* one line: what happened (always set)              */
} mbs_lcp_status;

/* ---- Lemke ------------------------------------------------------------------ */

/* Workspace of mbs_lcp_lemke in bytes: the tableau n x (2n + 2) and 2 n
 * doubles, then n ints (the basis). */
size_t mbs_lcp_lemke_worksize(int n);

/* Solve LCP(M, q) by Lemke's algorithm with covering vector e.
 *
 * Method: the tableau [I | -M | -e | q] (basic variables w, then z, then the
 * artificial z0) is kept in the workspace and updated by Gauss-Jordan
 * pivots; its first n columns hold the basis inverse throughout.  z0 enters
 * first, replacing the most negative q_i; then the complement of each leaving
 * variable enters, until z0 leaves (solved), no entry of the entering column
 * exceeds pivot_tol (ray termination), or the pivot limit is reached.
 *
 * Anti-cycling: the LEXICOGRAPHIC minimum-ratio rule.  Among the rows with a
 * positive entry in the entering column, the leaving row minimises the row
 * vector (q_i, (B^-1)_i1, ..., (B^-1)_in) / T_ic lexicographically; the rows
 * of B^-1 are independent, so the choice is unique and no basis repeats even
 * on degenerate problems.  Entries closer than 1e-12 max(1, |a|, |b|) count
 * as equal (rounding).  When z0's row ties for the minimum ratio, z0 leaves
 * at once (this only ends the path earlier).
 * After z0 leaves, the basic solution gets two steps of iterative
 * refinement with the tableau's basis inverse against the original data;
 * round-off negatives of z are set to 0.  The tableau (O(n^2) per pivot, no
 * factorisation) was chosen over LAPACK solves: the problems solved here are
 * small (event LCPs of a few contacts), and the tableau gives the basis
 * inverse that the lexicographic rule needs for free.
 *
 * q >= 0 gives z = 0 without pivoting.  z (n) receives the solution; on
 * MBS_LCP_RAY / MBS_LCP_LIMIT it holds the z part of the last almost-
 * complementary basis (NOT a solution).  w (n, may be NULL) receives
 * M z + q computed from the original data.  opt may be NULL (defaults);
 * st may be NULL.  n = 0 is solved trivially. */
int mbs_lcp_lemke(int n, const double *M, const double *q, double *z, double *w,
                  const mbs_lcp_opts *opt, void *work, mbs_lcp_status *st);

/* ---- projected Gauss-Seidel ------------------------------------------------- */

/* Workspace of mbs_lcp_pgs and mbs_lcp_pgs_friction in bytes (the vector
 * w = M z + q, n doubles). */
size_t mbs_lcp_pgs_worksize(int n);

/* Projected (successive over-relaxed) Gauss-Seidel for LCP(M, q):
 *     z_i <- max(0, z_i - omega w_i / M_ii),   i = 0 .. n-1 in order,
 * with w kept up to date after each change (one column of M per update, so
 * a sweep costs O(n^2)); w is recomputed from scratch before the
 * convergence test is accepted.  z (n) is the start on entry (warm start:
 * the previous step's impulses, or zeros; it is first projected onto
 * z >= 0) and the result on return.  Requires M_ii > 0.  Returns
 * MBS_LCP_SOLVED when the residual max_i |min(z_i, w_i)| <= tol max|q|,
 * MBS_LCP_LIMIT after max_iter sweeps (z is then the last iterate). */
int mbs_lcp_pgs(int n, const double *M, const double *q, double *z,
                const mbs_lcp_opts *opt, void *work, mbs_lcp_status *st);

/* Projected Gauss-Seidel for boxed blocks with friction.  For each index i:
 *   normal[i] < 0   : a normal (or plain LCP) index, 0 <= z_i < inf;
 *   normal[i] = k   : a friction index of the normal index k (normal[k] < 0,
 *                     k != i), with -mu[i] z_k <= z_i <= mu[i] z_k.
 * mu (n) is read for friction indices only (mu[i] >= 0); it may be NULL
 * when there are none; normal may be NULL (plain LCP, as mbs_lcp_pgs).
 * Each index is updated by z_i <- clamp(z_i - omega w_i / M_ii, lo_i, hi_i)
 * with the bounds from the CURRENT z_k (list a contact's normal before its
 * tangents so that they see the new normal impulse).  The solution
 * satisfies: z_i = lo_i => w_i >= 0, z_i = hi_i => w_i <= 0, strictly
 * between => w_i = 0 (Coulomb: sticking with |z_t| < mu z_n and zero slip
 * velocity, or sliding with |z_t| = mu z_n opposing the slip velocity w_t).
 * Convergence is not guaranteed in general (the bounds move with z); the
 * iteration limit ends it.  Other arguments as mbs_lcp_pgs. */
int mbs_lcp_pgs_friction(int n, const double *M, const double *q, const int *normal,
                         const double *mu, double *z, const mbs_lcp_opts *opt, void *work,
                         mbs_lcp_status *st);

/* ---- residuals ---------------------------------------------------------------- */

/* Residual of a candidate solution z of LCP(M, q): returns
 * max_i |min(z_i, w_i)| with w = M z + q (0 for an exact solution; it also
 * measures infeasibility, since a negative z_i or w_i counts with its
 * size).  *most_negative (may be NULL) receives min(0, min_i z_i,
 * min_i w_i).  No workspace (w is formed row by row). */
double mbs_lcp_residual(int n, const double *M, const double *q, const double *z,
                        double *most_negative);

/* Residual of the boxed problem of mbs_lcp_pgs_friction (normal, mu as
 * there; NULL normal = plain LCP): max_i |z_i - clamp(z_i - w_i, lo_i, hi_i)|,
 * the natural-map residual, which equals |min(z_i, w_i)| for a plain
 * index.  The bounds come from z itself. */
double mbs_lcp_box_residual(int n, const double *M, const double *q, const int *normal,
                            const double *mu, const double *z);

#endif
