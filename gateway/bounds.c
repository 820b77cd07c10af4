/*
 * bounds.c - limits on what an accepted request may contain, checked before
 * anything is stored or expanded:
 *
 *  - every number of a JSON body is finite and of magnitude at most
 *    GW_NUM_MAX (1e15).  PostgreSQL's jsonb keeps numbers as decimals and
 *    prints 1e19 as a 20-digit integer, which jansson then refuses to read
 *    back ("too big integer"): a job with such a value could never be sent.
 *    The sweep's design seed (an integer) is exempt;
 *  - the solver options a sweep or a model sets are within the ranges of
 *    docs/service.md ("Limits"), beyond the solver's own checks (> 0, ...),
 *    and the integrator and formulation are names the solver knows (with
 *    their pointer: the solver's override message has none).
 */
#include "gw.h"
#include "mechanism/mechanism.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Append one pointer segment (escaped: ~ -> ~0, / -> ~1) to ptr. */
static void s_seg(char *ptr, size_t psz, const char *seg)
{
    size_t k = strlen(ptr);
    if (k + 2 >= psz) return;
    ptr[k++] = '/';
    for (; *seg && k + 3 < psz; seg++) {
        if (*seg == '~') { ptr[k++] = '~'; ptr[k++] = '0'; }
        else if (*seg == '/') { ptr[k++] = '~'; ptr[k++] = '1'; }
        else ptr[k++] = *seg;
    }
    ptr[k] = 0;
}

int gw_json_numbers_ok(const json_t *v, char *ptr, size_t psz)
{
    size_t len = strlen(ptr);
    if (json_is_number(v)) {
        double x = json_number_value(v);
        if (json_is_integer(v) && !strcmp(ptr, "/design/seed")) return 0;
        return isfinite(x) && fabs(x) <= GW_NUM_MAX ? 0 : -1;
    }
    if (json_is_object(v)) {
        const char *k; json_t *x;
        json_object_foreach((json_t *)v, k, x) {
            s_seg(ptr, psz, k);
            if (gw_json_numbers_ok(x, ptr, psz)) return -1;
            ptr[len] = 0;
        }
    } else if (json_is_array(v)) {
        size_t i; json_t *x;
        json_array_foreach(v, i, x) {
            char idx[24];
            snprintf(idx, sizeof idx, "%zu", i);
            s_seg(ptr, psz, idx);
            if (gw_json_numbers_ok(x, ptr, psz)) return -1;
            ptr[len] = 0;
        }
    }
    return 0;
}

/* The documented ranges of the numeric solver options (inclusive upper
 * bound; lower bounds: the solver's own "> 0" / ">= 0" checks). */
static const struct { const char *key; double hi; const char *unit; } s_ranges[] = {
    { "t_end", 1e6, "s" },          { "step", 1e6, "s" },           { "max_step", 1e6, "s" },
    { "min_step", 1e6, "s" },       { "tolerance", 1, "" },         { "abs_tolerance", 1e3, "" },
    { "assembly_tolerance", 1, "" },{ "lcp_tolerance", 1, "" },     { "penalty", 1e15, "" },
    { "baumgarte_alpha", 1e6, "" }, { "baumgarte_beta", 1e6, "" },  { "lcp_regularization", 1e6, "" },
    { "time_limit", 86400, "s" },
};

/* A named value of the options a comparison pairs (integrator,
 * formulation; issue 12): 0, or -1 with msg set.  Expressions ("$name",
 * "=...") and other options are left to the solver, whose message has no
 * pointer. */
static int s_name_ok(const char *key, const char *v, char *msg, size_t msz)
{
    static const char *const forms[] = { "natural", "relative" };
    int isint = !strcmp(key, "integrator"), isform = !strcmp(key, "formulation");
    if ((!isint && !isform) || v[0] == '$' || v[0] == '=') return 0;
    for (int i = 0; isint && i <= MBS_INT_EVENT_DRIVEN; i++)
        if (!strcmp(v, mbs_integrator_name((mbs_integrator)i))) return 0;
    for (int i = 0; isform && i < 2; i++)
        if (!strcmp(v, forms[i])) return 0;
    size_t k = (size_t)snprintf(msg, msz, "unknown %s '%.40s': one of", key, v);
    for (int i = 0; isint && i <= MBS_INT_EVENT_DRIVEN && k < msz; i++)
        k += (size_t)snprintf(msg + k, msz - k, "%s %s", i ? "," : "", mbs_integrator_name((mbs_integrator)i));
    for (int i = 0; isform && i < 2 && k < msz; i++)
        k += (size_t)snprintf(msg + k, msz - k, "%s %s", i ? "," : "", forms[i]);
    return -1;
}

/* One value of option `key`: 0, or -1 with msg set. */
static int s_option_ok(const char *key, const json_t *v, char *msg, size_t msz)
{
    if (json_is_string(v)) return s_name_ok(key, json_string_value(v), msg, msz);
    if (!json_is_number(v)) return 0;      /* booleans, expressions: the solver checks them */
    double x = json_number_value(v);
    for (size_t i = 0; i < sizeof s_ranges / sizeof s_ranges[0]; i++) {
        if (strcmp(key, s_ranges[i].key)) continue;
        if (isfinite(x) && x >= 0 && x <= s_ranges[i].hi) return 0;
        snprintf(msg, msz, "solver option %s must be in [0, %g]%s%s (got %g)", key, s_ranges[i].hi,
                 *s_ranges[i].unit ? " " : "", s_ranges[i].unit, x);
        return -1;
    }
    return 0;
}

int gw_solver_ranges_ok(const json_t *solver, const char *base, char *ptr, size_t psz, char *msg, size_t msz)
{
    const char *k; json_t *v;
    if (!json_is_object(solver)) return 0;
    json_object_foreach((json_t *)solver, k, v) {
        snprintf(ptr, psz, "%s", base);
        s_seg(ptr, psz, k);
        if (json_is_array(v)) {
            size_t i; json_t *x;
            size_t len = strlen(ptr);
            json_array_foreach(v, i, x) {
                char idx[24];
                snprintf(idx, sizeof idx, "%zu", i);
                ptr[len] = 0;
                s_seg(ptr, psz, idx);
                if (s_option_ok(k, x, msg, msz)) return -1;
            }
        } else if (s_option_ok(k, v, msg, msz)) return -1;
    }
    return 0;
}
