/*
 * expr.h - arithmetic expressions of the mechanism format ("=$L/2",
 * "=2*pi*$f", "=sin($w*t)").
 *
 * Grammar: numbers, $name parameters, the variable t (time functions only),
 * + - * / ^ (right associative), unary minus, parentheses, functions
 * sin cos tan asin acos atan atan2 sqrt exp log abs min max, constant pi.
 * Parameters are bound when compiling (their value is looked up through a
 * callback), so a compiled expression only depends on t.
 *
 * Depends on nothing but libc and libm: part of the solver core.
 */
#ifndef MBS_EXPR_H
#define MBS_EXPR_H

#include <stddef.h>

typedef struct mbs_expr mbs_expr;

/* Look up parameter `name` (without '$'); return 0 and set *value, or -1 if
 * unknown. */
typedef int (*mbs_param_lookup)(const char *name, double *value, void *user);

/* Compile `text` (without the leading '='). allow_t: whether the variable t
 * may appear.  Returns NULL and writes a message (position and reason) into
 * msg on error. Caller frees with mbs_expr_free. */
mbs_expr *mbs_expr_compile(const char *text, int allow_t, mbs_param_lookup lookup,
                           void *user, char *msg, size_t msg_size);

/* Evaluate at time t. */
double mbs_expr_eval(const mbs_expr *e, double t);

/* The kinks of the expression in (t0, t1): the times where a min, max or
 * abs switches its branch (its switching function changes sign), found on
 * a grid of `grid` intervals and bisected to the last bits of t (one
 * within the last bits of t1 may or may not be reported); at most
 * `max` written to out, unsorted (one list per operation).  Two switches
 * of one operation within a grid interval are missed; so are the branch
 * cut of atan2 and the edges of sqrt, log, asin and acos domains.  budget
 * (NULL: none) bounds the work in operations evaluated (the program's
 * length times the runs): the grid is made coarser to stay within it (not
 * below 16 intervals; beyond that nothing is scanned) and the work done is
 * subtracted (an expression of 1e5 operations must not cost minutes at
 * model build).  Returns the number written. */
int mbs_expr_kinks(const mbs_expr *e, double t0, double t1, int grid, double *out, int max, long *budget);

/* 1 if the expression contains the variable t. */
int mbs_expr_uses_t(const mbs_expr *e);

void mbs_expr_free(mbs_expr **e);

#endif
