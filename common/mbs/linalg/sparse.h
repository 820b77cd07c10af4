/*
 * sparse.h - general sparse LU by KLU (SuiteSparse) for the Newton matrix
 * of the BDF integrator with contact force unknowns (internal; see
 * system_contacts.c and docs/contacts.md).
 *
 * Entries arrive as (row, column, value) triplets in any order, duplicates
 * summed, into a sink whose capacity is fixed when the run's data is made
 * (mbs_sparse_init).  mbs_sparse_factor compresses them to CSC, compares the
 * pattern with the previous factorisation and calls klu_analyze only when it
 * changed (klu_refactor otherwise, reusing the pivot order, with a fresh
 * klu_factor when the reused pivots turn out poor; with a given elimination
 * order always a fresh klu_factor, see sparse.c).
 *
 * Exception to the no-allocation rule (data.h): KLU allocates its symbolic
 * and numeric objects inside klu_analyze and klu_factor.  Everything of ours
 * is allocated by mbs_sparse_init; KLU's objects are freed and remade only
 * when the pattern changes (or a refactorisation is poor).
 */
#ifndef MBS_SPARSE_H
#define MBS_SPARSE_H

typedef struct mbs_sparse mbs_sparse;

/* A sink for matrices up to nmax x nmax with at most cap triplets.  NULL
 * without memory.  Caller frees with mbs_sparse_free. */
mbs_sparse *mbs_sparse_new(int nmax, long cap);
void mbs_sparse_free(mbs_sparse **ps);

/* Eliminate in the given order (order[k] = the unknown eliminated k-th,
 * same for rows and columns; borrowed, must stay valid and hold the
 * dimension of every later matrix), or NULL for KLU's own ordering (BTF +
 * AMD, row scaling, klu_refactor when the pattern is unchanged).  With an
 * order: no BTF, no scaling, a fresh klu_factor at every factorisation. */
void mbs_sparse_set_order(mbs_sparse *s, const int *order);

/* Fixed-pattern mode (the BDF's GGL matrix, whose structure is known in
 * advance): the entries added since mbs_sparse_begin (their values do not
 * matter) become the pattern of every later matrix.  mbs_sparse_begin then
 * zeroes the values (the dimension stays) and mbs_sparse_add adds in place
 * (found by the table below): no triplets, no compression, and KLU
 * analyses once (klu_refactor with the kept pivots afterwards, a fresh
 * klu_factor when they turn out poor).  An entry outside the pattern is
 * kept as a triplet and the pattern grows by it at the next factorisation
 * (analysed again); beyond the capacity it fails like mbs_sparse_add.
 * An add finds its place in a per-column table of the pattern's rows
 * (made here, once, and again when the pattern grows; the columns beyond
 * the tables' capacity are searched instead).  Returns 0, or
 * MBS_SPARSE_EFULL when the entries overflowed or the tables' memory
 * could not be had. */
int mbs_sparse_fix_pattern(mbs_sparse *s);

/* Start a matrix of dimension n (<= nmax): the triplet list is emptied
 * (fixed-pattern mode: the values are zeroed, n is the pattern's). */
void mbs_sparse_begin(mbs_sparse *s, int n);

/* Add v at (i, j) (0-based, < n).  Entries beyond the capacity are dropped
 * and make the next mbs_sparse_factor fail (MBS_SPARSE_EFULL). */
void mbs_sparse_add(mbs_sparse *s, int i, int j, double v);

/* Same as mbs_sparse_add with the sink as a void context (for the add
 * callbacks of mbs_force_jac and friends). */
void mbs_sparse_add_cb(void *ctx, int i, int j, double v);

#define MBS_SPARSE_EFULL (-100)

/* Compress and factor the matrix.  0, MBS_SPARSE_EFULL (capacity
 * exceeded), or a KLU status < 0 / 1 (singular). *analysed (may be NULL)
 * is set to 1 when the pattern changed and klu_analyze ran. */
int mbs_sparse_factor(mbs_sparse *s, int *analysed);

/* Solve A x = b in place with the last factorisation (b has n entries).
 * 0 or a KLU status. */
int mbs_sparse_solve(mbs_sparse *s, double *b);

/* Estimate of the 1-norm condition number of the last factorised matrix
 * (KLU's klu_condest: a few solves); +inf without a factorisation. */
double mbs_sparse_condest(mbs_sparse *s);

/* Dimension and stored non-zeros (after duplicates were summed) of the
 * last factorised matrix; triplets added since mbs_sparse_begin; capacity. */
int mbs_sparse_dim(const mbs_sparse *s);
long mbs_sparse_nnz(const mbs_sparse *s);
long mbs_sparse_triplets(const mbs_sparse *s);
long mbs_sparse_capacity(const mbs_sparse *s);

/* Entries of L and U of the last factorisation (KLU's lnz + unz, the
 * diagonal counted in both), -1 without one; for the benchmarks. */
long mbs_sparse_lu_nnz(const mbs_sparse *s);

/* Entry (i, j) of the last compressed matrix (0 when not stored); for tests. */
double mbs_sparse_get(const mbs_sparse *s, int i, int j);

#endif
