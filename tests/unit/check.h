/*
 * check.h - a tiny test harness for the unit test programs.
 *
 *   CHECK(cond)            counts a check; prints file:line and the condition
 *                          when it fails
 *   CHECK_NEAR(a, b, tol)  |a - b| <= tol (NaN fails)
 *   CHECK_STR(a, b)        strcmp(a, b) == 0 (NULL fails)
 *   CHECK_SUMMARY(name)    prints "name: N checks, M failed" and evaluates to
 *                          the exit status (0 when nothing failed)
 *
 * Header-only: each test program includes it once.
 */
#ifndef CHECK_H
#define CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int check_count_;
static int check_failed_;

/* Record one check; print where it failed. Returns the condition. */
static inline int check_record_(int ok, const char *file, int line, const char *what)
{
    check_count_++;
    if (!ok) {
        check_failed_++;
        fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
    }
    return ok;
}

#define CHECK(cond) check_record_((cond) ? 1 : 0, __FILE__, __LINE__, #cond)

#define CHECK_NEAR(a, b, tol)                                                     \
    do {                                                                          \
        double ca_ = (double)(a), cb_ = (double)(b);                              \
        if (!check_record_(fabs(ca_ - cb_) <= (tol), __FILE__, __LINE__,          \
                           #a " ~= " #b))                                         \
            fprintf(stderr, "    %.17g vs %.17g (tol %g)\n", ca_, cb_, (double)(tol)); \
    } while (0)

#define CHECK_STR(a, b)                                                           \
    do {                                                                          \
        const char *ca_ = (a), *cb_ = (b);                                        \
        if (!check_record_(ca_ && cb_ && strcmp(ca_, cb_) == 0, __FILE__,         \
                           __LINE__, #a " == " #b))                               \
            fprintf(stderr, "    \"%s\" vs \"%s\"\n", ca_ ? ca_ : "(null)",       \
                    cb_ ? cb_ : "(null)");                                        \
    } while (0)

#define CHECK_SUMMARY(name)                                                       \
    (printf("%s: %d checks, %d failed\n", (name), check_count_, check_failed_),  \
     check_failed_ ? 1 : 0)

#endif
