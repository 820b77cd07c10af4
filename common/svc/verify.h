/*
 * verify.h - verification runs of a sweep (issue 9, "evidence for a whole
 * sweep"): which design jobs are re-run, with which solver options, and how
 * a job's answers differ from its verification run's.  Shared by the
 * gateway's sweep creation and its dispatcher; needs jansson only (no
 * solver, no database), so that svc_test covers it.
 *
 * A sweep with "verify": f (0 < f <= 1) re-runs ceil(f x jobs) of its design
 * jobs, chosen from the design's seed, ten times more accurately: solver
 * tolerance / 10, abs_tolerance / 10 where the user set it, and for a
 * fixed-step run (trapezoidal_al or moreau_jean with solver.step set) a
 * smaller step: / sqrt(10) for the second-order trapezoidal rule, / 10 for
 * first-order Moreau-Jean, so that either error shrinks about tenfold.
 */
#ifndef SVC_VERIFY_H
#define SVC_VERIFY_H

#include <jansson.h>
#include <stdint.h>

/* How many of n design jobs a fraction f verifies: 0 for f <= 0, else
 * ceil(f n) (a product within rounding of an integer is that integer),
 * at least 1 and at most n. */
long verify_count(double f, long n);

/* Choose k distinct design indices in [0, n) reproducibly from seed (the
 * same seed, n and k give the same choice on any machine); written to out
 * (k entries) in increasing order.  Returns 0, or -1 when memory runs out. */
int verify_pick(uint64_t seed, long n, long k, long *out);

/* The solver options in force for a job (from a parse of the model with the
 * job's overrides) and which of them the user set (override or model). */
typedef struct {
    const char *integrator;   /* "trapezoidal_al", "bdf", ...               */
    double tolerance;         /* > 0                                        */
    double abs_tolerance;     /* used when abs_set                          */
    double step;              /* used when step_set                         */
    double min_step;          /* lowered with the step when needed          */
    int abs_set, step_set;
} verify_solver_in;

/* 1 when the run takes fixed steps: trapezoidal_al or moreau_jean with the
 * step set by the user. */
int verify_fixed_step(const verify_solver_in *in);

/* The verification run's solver overrides: a copy of the job's `solver`
 * object with tolerance / 10, abs_tolerance / 10 when the user set it, and
 * for a fixed-step run the step refined (see above; min_step follows when it
 * would exceed the new step).  Caller owns the result. */
json_t *verify_solver(const json_t *solver, const verify_solver_in *in);

/* Response differences between a job's responses `value` and its
 * verification run's `reference` ({name: number or null} both): a new
 * object {name: {"value", "reference", "abs_diff", "rel_diff"}} for every
 * name of `value`.  abs_diff = |value - reference|; rel_diff = abs_diff /
 * |reference| (0 when equal, null when the reference is 0 and the value is
 * not); both null when either number is missing. */
json_t *verify_response_diff(const json_t *value, const json_t *reference);

/* Largest |difference| per output channel of two sample blocks (rows of
 * 1 + nchannel doubles, time first): a new object {channel: number}, or
 * NULL when the blocks do not line up (other channels, sample count or
 * sample times). */
json_t *verify_channel_diff(const json_t *channels_a, const double *rows_a, long nsample_a,
                            const json_t *channels_b, const double *rows_b, long nsample_b);

#endif
