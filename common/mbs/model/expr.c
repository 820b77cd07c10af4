/*
 * expr.c - compile and evaluate the arithmetic expressions of the mechanism
 * format (see expr.h for the grammar).
 *
 * A recursive-descent parser turns the text into a small stack program
 * (reverse Polish notation); evaluation runs the program on a fixed-size
 * stack, so mbs_expr_eval never allocates and is safe to call from a time
 * step.  Parameters are looked up once, at compile time, and stored as
 * numbers.
 *
 *   expr    := term  (('+' | '-') term)*
 *   term    := unary (('*' | '/') unary)*
 *   unary   := ('-' | '+') unary | power
 *   power   := primary ('^' unary)?          right associative: 2^3^2 = 2^9
 *   primary := number | '$' name | 't' | 'pi' | func '(' args ')' | '(' expr ')'
 *
 * So -2^2 = -(2^2) = -4 and 2^-1 = 0.5, as in mathematics.
 */
#include "mbs/model/expr.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define S_MAX_DEPTH 64    /* parser recursion (parentheses, unary chains)   */
#define S_MAX_STACK 256   /* evaluation stack of a compiled program         */
#define S_MAX_OPS   100000 /* program length                                */
#define S_NAME_MAX  128

typedef enum {
    OP_NUM, OP_T, OP_NEG, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_POW,
    OP_SIN, OP_COS, OP_TAN, OP_ASIN, OP_ACOS, OP_ATAN, OP_SQRT, OP_EXP,
    OP_LOG, OP_ABS, OP_ATAN2, OP_MIN, OP_MAX
} s_opcode;

typedef struct {
    s_opcode code;
    double value;          /* OP_NUM */
} s_op;

struct mbs_expr {
    int n;                 /* program length                                 */
    s_op *ops;
    int uses_t;
};

/* Functions: name, opcode, number of arguments (-1: two or more). */
static const struct {
    const char *name;
    s_opcode code;
    int nargs;
} s_funcs[] = {
    {"sin", OP_SIN, 1},   {"cos", OP_COS, 1},   {"tan", OP_TAN, 1},
    {"asin", OP_ASIN, 1}, {"acos", OP_ACOS, 1}, {"atan", OP_ATAN, 1},
    {"atan2", OP_ATAN2, 2}, {"sqrt", OP_SQRT, 1}, {"exp", OP_EXP, 1},
    {"log", OP_LOG, 1},   {"abs", OP_ABS, 1},   {"min", OP_MIN, -1},
    {"max", OP_MAX, -1},
};

/* Parser state: the text, a cursor, the program being built, the first error. */
typedef struct {
    const char *text;
    const char *p;
    int allow_t;
    mbs_param_lookup lookup;
    void *user;
    s_op *ops;
    int n, cap;
    int depth;              /* current recursion depth                        */
    int sp, sp_max;         /* simulated stack height while emitting          */
    int uses_t;
    int failed;
    char *msg;
    size_t msg_size;
} s_parser;

/* Record the first error: "<reason> at position N" (1-based, in the text
 * given to mbs_expr_compile), with the text that follows for context. */
static void s_fail(s_parser *ps, const char *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void s_fail(s_parser *ps, const char *at, const char *fmt, ...)
{
    if (ps->failed)
        return;
    ps->failed = 1;
    if (!ps->msg || ps->msg_size == 0)
        return;
    char reason[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    size_t pos = (size_t)(at - ps->text) + 1;
    /* up to 20 characters of context, control characters shown as '?' */
    char near[21];
    size_t k = 0;
    for (; at[k] && k < sizeof near - 1; k++)
        near[k] = ((unsigned char)at[k] < 0x20 || at[k] == 0x7f) ? '?' : at[k];
    near[k] = '\0';
    if (*at)
        snprintf(ps->msg, ps->msg_size, "%s at position %zu (near \"%s\")", reason, pos,
                 near);
    else
        snprintf(ps->msg, ps->msg_size, "%s at position %zu (end of expression)",
                 reason, pos);
}

static void s_skip_space(s_parser *ps)
{
    while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
        ps->p++;
}

/* Append one instruction; `push` is its net effect on the stack height. */
static void s_emit(s_parser *ps, s_opcode code, double value, int push)
{
    if (ps->failed)
        return;
    if (ps->n == ps->cap) {
        if (ps->cap >= S_MAX_OPS) {
            s_fail(ps, ps->p, "expression too long");
            return;
        }
        int ncap = ps->cap ? 2 * ps->cap : 16;
        s_op *nops = realloc(ps->ops, (size_t)ncap * sizeof *nops);
        if (!nops) {
            s_fail(ps, ps->p, "out of memory");
            return;
        }
        ps->ops = nops;
        ps->cap = ncap;
    }
    ps->ops[ps->n].code = code;
    ps->ops[ps->n].value = value;
    ps->n++;
    ps->sp += push;
    if (ps->sp > ps->sp_max)
        ps->sp_max = ps->sp;
    if (ps->sp_max > S_MAX_STACK)
        s_fail(ps, ps->p, "expression too complex");
}

static void s_expr(s_parser *ps);
static void s_unary(s_parser *ps);

/* Read an identifier [A-Za-z_][A-Za-z0-9_]* into buf; returns its length
 * (0 if none), or -1 when it does not fit. */
static int s_ident(s_parser *ps, char *buf, size_t size)
{
    const char *q = ps->p;
    if (!(isalpha((unsigned char)*q) || *q == '_'))
        return 0;
    while (isalnum((unsigned char)*q) || *q == '_')
        q++;
    size_t len = (size_t)(q - ps->p);
    if (len >= size)
        return -1;
    memcpy(buf, ps->p, len);
    buf[len] = '\0';
    ps->p = q;
    return (int)len;
}

/* A number: digits [. digits] [e [+-] digits], or . digits. */
static void s_number(s_parser *ps)
{
    const char *start = ps->p, *q = ps->p;
    while (isdigit((unsigned char)*q))
        q++;
    if (*q == '.') {
        q++;
        while (isdigit((unsigned char)*q))
            q++;
    }
    if (q == start + 1 && *start == '.') {
        s_fail(ps, start, "a number needs digits");
        return;
    }
    if (*q == 'e' || *q == 'E') {
        const char *e = q + 1;
        if (*e == '+' || *e == '-')
            e++;
        if (!isdigit((unsigned char)*e)) {
            s_fail(ps, q, "malformed exponent");
            return;
        }
        while (isdigit((unsigned char)*e))
            e++;
        q = e;
    }
    /* strtod on a bounded copy, so it cannot read hex, inf or nan forms */
    char buf[64];
    size_t len = (size_t)(q - start);
    if (len >= sizeof buf) {
        s_fail(ps, start, "number too long");
        return;
    }
    memcpy(buf, start, len);
    buf[len] = '\0';
    double v = strtod(buf, NULL);
    if (!isfinite(v)) {
        s_fail(ps, start, "number out of range");
        return;
    }
    ps->p = q;
    s_emit(ps, OP_NUM, v, 1);
}

/* A call: the name has been read, the cursor is at '('. */
static void s_call(s_parser *ps, const char *name_at, const char *name)
{
    size_t k, nf = sizeof s_funcs / sizeof s_funcs[0];
    for (k = 0; k < nf; k++)
        if (strcmp(s_funcs[k].name, name) == 0)
            break;
    if (k == nf) {
        s_fail(ps, name_at, "unknown function '%s'", name);
        return;
    }
    ps->p++; /* '(' */
    int nargs = 0;
    s_skip_space(ps);
    if (*ps->p != ')') {
        for (;;) {
            s_expr(ps);
            if (ps->failed)
                return;
            nargs++;
            /* min/max fold pairwise: min(a,b,c) = min(min(a,b),c) */
            if (s_funcs[k].nargs < 0 && nargs >= 2)
                s_emit(ps, s_funcs[k].code, 0, -1);
            s_skip_space(ps);
            if (*ps->p != ',')
                break;
            ps->p++;
        }
    }
    if (*ps->p != ')') {
        s_fail(ps, ps->p, "expected ',' or ')' in the arguments of %s()", name);
        return;
    }
    ps->p++;
    int want = s_funcs[k].nargs;
    if (want > 0 && nargs != want) {
        s_fail(ps, name_at, "%s() takes %d argument%s, got %d", name, want,
               want == 1 ? "" : "s", nargs);
        return;
    }
    if (want < 0 && nargs < 2) {
        s_fail(ps, name_at, "%s() takes two or more arguments, got %d", name, nargs);
        return;
    }
    if (want == 1)
        s_emit(ps, s_funcs[k].code, 0, 0);
    else if (want == 2)
        s_emit(ps, s_funcs[k].code, 0, -1);
}

/* primary := number | $name | t | pi | func(args) | (expr) */
static void s_primary(s_parser *ps)
{
    s_skip_space(ps);
    const char *at = ps->p;
    char name[S_NAME_MAX];
    if (isdigit((unsigned char)*at) || *at == '.') {
        s_number(ps);
    } else if (*at == '$') {
        ps->p++;
        int len = s_ident(ps, name, sizeof name);
        if (len == 0) {
            s_fail(ps, at, "'$' must be followed by a parameter name");
            return;
        }
        if (len < 0) {
            s_fail(ps, at, "parameter name too long");
            return;
        }
        double v = 0;
        if (!ps->lookup || ps->lookup(name, &v, ps->user) != 0) {
            s_fail(ps, at, "unknown parameter '$%s'", name);
            return;
        }
        s_emit(ps, OP_NUM, v, 1);
    } else if (*at == '(') {
        ps->p++;
        s_expr(ps);
        if (ps->failed)
            return;
        s_skip_space(ps);
        if (*ps->p != ')') {
            s_fail(ps, ps->p, "unbalanced '(' (opened at position %zu): expected ')'",
                   (size_t)(at - ps->text) + 1);
            return;
        }
        ps->p++;
    } else if (isalpha((unsigned char)*at) || *at == '_') {
        int len = s_ident(ps, name, sizeof name);
        if (len < 0) {
            s_fail(ps, at, "name too long");
            return;
        }
        s_skip_space(ps);
        if (*ps->p == '(') {
            s_call(ps, at, name);
        } else if (strcmp(name, "t") == 0) {
            if (!ps->allow_t) {
                s_fail(ps, at, "the time variable t is not allowed here (only in "
                               "functions of time)");
                return;
            }
            ps->uses_t = 1;
            s_emit(ps, OP_T, 0, 1);
        } else if (strcmp(name, "pi") == 0) {
            s_emit(ps, OP_NUM, M_PI, 1);
        } else {
            int is_func = 0;
            for (size_t k = 0; k < sizeof s_funcs / sizeof s_funcs[0]; k++)
                is_func |= strcmp(s_funcs[k].name, name) == 0;
            if (is_func)
                s_fail(ps, ps->p, "expected '(' after the function %s", name);
            else
                s_fail(ps, at, "unknown name '%s' (parameters are written $%s)", name,
                       name);
        }
    } else if (*at == '\0') {
        s_fail(ps, at, "expected a value");
    } else if (*at == ')') {
        s_fail(ps, at, "unexpected ')'");
    } else {
        s_fail(ps, at, "unexpected '%c'", isprint((unsigned char)*at) ? *at : '?');
    }
}

/* power := primary ('^' unary)?  -- the exponent may itself be a power
 * (right associativity) or carry a sign. */
static void s_power(s_parser *ps)
{
    s_primary(ps);
    s_skip_space(ps);
    if (!ps->failed && *ps->p == '^') {
        ps->p++;
        s_unary(ps);
        s_emit(ps, OP_POW, 0, -1);
    }
}

/* unary := ('-' | '+') unary | power; recursion depth is bounded. */
static void s_unary(s_parser *ps)
{
    if (ps->failed)
        return;
    if (++ps->depth > S_MAX_DEPTH) {
        s_fail(ps, ps->p, "expression nested too deeply (more than %d levels)",
               S_MAX_DEPTH);
        ps->depth--;
        return;
    }
    s_skip_space(ps);
    if (*ps->p == '-') {
        ps->p++;
        s_unary(ps);
        s_emit(ps, OP_NEG, 0, 0);
    } else if (*ps->p == '+') {
        ps->p++;
        s_unary(ps);
    } else {
        s_power(ps);
    }
    ps->depth--;
}

static void s_term(s_parser *ps)
{
    s_unary(ps);
    for (;;) {
        s_skip_space(ps);
        if (ps->failed || (*ps->p != '*' && *ps->p != '/'))
            return;
        s_opcode op = *ps->p == '*' ? OP_MUL : OP_DIV;
        ps->p++;
        s_unary(ps);
        s_emit(ps, op, 0, -1);
    }
}

static void s_expr(s_parser *ps)
{
    if (ps->failed)
        return;
    if (++ps->depth > S_MAX_DEPTH) {
        s_fail(ps, ps->p, "expression nested too deeply (more than %d levels)",
               S_MAX_DEPTH);
        ps->depth--;
        return;
    }
    s_term(ps);
    for (;;) {
        s_skip_space(ps);
        if (ps->failed || (*ps->p != '+' && *ps->p != '-'))
            break;
        s_opcode op = *ps->p == '+' ? OP_ADD : OP_SUB;
        ps->p++;
        s_term(ps);
        s_emit(ps, op, 0, -1);
    }
    ps->depth--;
}

mbs_expr *mbs_expr_compile(const char *text, int allow_t, mbs_param_lookup lookup,
                           void *user, char *msg, size_t msg_size)
{
    if (msg && msg_size)
        msg[0] = '\0';
    if (!text)
        text = "";
    s_parser ps = {.text = text, .p = text, .allow_t = allow_t, .lookup = lookup,
                   .user = user, .msg = msg, .msg_size = msg_size};
    s_skip_space(&ps);
    if (*ps.p == '\0') {
        if (msg && msg_size)
            snprintf(msg, msg_size, "empty expression");
        return NULL;
    }
    s_expr(&ps);
    s_skip_space(&ps);
    /* everything must be consumed */
    if (!ps.failed && *ps.p != '\0') {
        if (*ps.p == ')')
            s_fail(&ps, ps.p, "unbalanced ')'");
        else
            s_fail(&ps, ps.p, "unexpected '%c' after the expression",
                   isprint((unsigned char)*ps.p) ? *ps.p : '?');
    }
    mbs_expr *e = NULL;
    if (!ps.failed)
        e = malloc(sizeof *e);
    if (!e) {
        if (!ps.failed && msg && msg_size)
            snprintf(msg, msg_size, "out of memory");
        free(ps.ops);
        return NULL;
    }
    e->n = ps.n;
    e->ops = ps.ops;
    e->uses_t = ps.uses_t;
    return e;
}

/* Run the program at time t.  stop < 0: the value.  stop = the index of a
 * min, max or abs operation: its switching function at t instead (for
 * min/max the first operand less the second, for abs the operand), whose
 * sign change is where the expression has a kink (mbs_expr_kinks). */
static double s_run(const mbs_expr *e, double t, int stop)
{
    /* compile guarantees the program needs at most S_MAX_STACK slots */
    double st[S_MAX_STACK];
    int sp = 0;
    for (int i = 0; i < e->n; i++) {
        const s_op *op = &e->ops[i];
        if (i == stop) return op->code == OP_ABS ? st[sp - 1] : st[sp - 2] - st[sp - 1];
        switch (op->code) {
        case OP_NUM: st[sp++] = op->value; break;
        case OP_T: st[sp++] = t; break;
        case OP_NEG: st[sp - 1] = -st[sp - 1]; break;
        case OP_ADD: sp--; st[sp - 1] += st[sp]; break;
        case OP_SUB: sp--; st[sp - 1] -= st[sp]; break;
        case OP_MUL: sp--; st[sp - 1] *= st[sp]; break;
        case OP_DIV: sp--; st[sp - 1] /= st[sp]; break;
        case OP_POW: sp--; st[sp - 1] = pow(st[sp - 1], st[sp]); break;
        case OP_SIN: st[sp - 1] = sin(st[sp - 1]); break;
        case OP_COS: st[sp - 1] = cos(st[sp - 1]); break;
        case OP_TAN: st[sp - 1] = tan(st[sp - 1]); break;
        case OP_ASIN: st[sp - 1] = asin(st[sp - 1]); break;
        case OP_ACOS: st[sp - 1] = acos(st[sp - 1]); break;
        case OP_ATAN: st[sp - 1] = atan(st[sp - 1]); break;
        case OP_SQRT: st[sp - 1] = sqrt(st[sp - 1]); break;
        case OP_EXP: st[sp - 1] = exp(st[sp - 1]); break;
        case OP_LOG: st[sp - 1] = log(st[sp - 1]); break;
        case OP_ABS: st[sp - 1] = fabs(st[sp - 1]); break;
        case OP_ATAN2: sp--; st[sp - 1] = atan2(st[sp - 1], st[sp]); break;
        /* min/max propagate NaN (fmin/fmax would hide it) */
        case OP_MIN:
            sp--;
            st[sp - 1] = (isnan(st[sp]) || st[sp] < st[sp - 1]) ? st[sp] : st[sp - 1];
            break;
        case OP_MAX:
            sp--;
            st[sp - 1] = (isnan(st[sp]) || st[sp] > st[sp - 1]) ? st[sp] : st[sp - 1];
            break;
        }
    }
    return sp == 1 ? st[0] : NAN;
}

double mbs_expr_eval(const mbs_expr *e, double t)
{
    if (!e || e->n == 0)
        return NAN;
    return s_run(e, t, -1);
}

/* -1, 0, 1 for the sign of g; 0 for NaN too (no crossing is claimed) */
static int s_sign(double g)
{
    return g > 0 ? 1 : g < 0 ? -1 : 0;
}

int mbs_expr_kinks(const mbs_expr *e, double t0, double t1, int grid, double *out, int max, long *budget)
{
    if (!e || !e->uses_t || !(t1 > t0) || grid < 1 || max < 1) return 0;
    /* the work: one program run per grid point and switching operation,
     * plus about 60 per bisection; within the caller's budget the grid is
     * made coarser (down to 16 intervals), beyond it nothing is scanned */
    long nsw = 0;
    for (int j = 0; j < e->n; j++)
        nsw += e->ops[j].code == OP_MIN || e->ops[j].code == OP_MAX || e->ops[j].code == OP_ABS;
    if (nsw == 0) return 0;
    long per = nsw * (long)e->n, cost = per * (grid + 1);
    if (budget && cost > *budget) {
        long g = *budget / per - 1;
        if (g < 16) return 0;
        grid = (int)g;
        cost = per * (grid + 1);
    }
    if (budget) *budget -= cost;
    int nk = 0;
    double dt = (t1 - t0) / grid;
    for (int j = 0; j < e->n && nk < max && (!budget || *budget > 0); j++) {
        s_opcode c = e->ops[j].code;
        if (c != OP_MIN && c != OP_MAX && c != OP_ABS) continue;
        /* the switching function on the grid; each strict change of sign
         * (through an exact zero too) is bisected to the last bits of t */
        double ta = t0;
        int sa = s_sign(s_run(e, ta, j));
        for (int i = 1; i <= grid && nk < max && (!budget || *budget > -64L * e->n); i++) {
            double tb = i == grid ? t1 : t0 + i * dt;
            int sb = s_sign(s_run(e, tb, j));
            if (sb == 0) continue; /* decided at the next nonzero point */
            if (sa != 0 && sb != sa) {
                double lo = ta, hi = tb;
                for (int it = 0; it < 200; it++) {
                    double mid = 0.5 * (lo + hi);
                    if (mid <= lo || mid >= hi) break; /* adjacent doubles */
                    if (budget) *budget -= e->n;
                    int sm = s_sign(s_run(e, mid, j));
                    if (sm == sa) lo = mid;
                    else hi = mid;
                }
                out[nk++] = hi;
            }
            ta = tb;
            sa = sb;
        }
    }
    return nk;
}

int mbs_expr_uses_t(const mbs_expr *e)
{
    return e ? e->uses_t : 0;
}

void mbs_expr_free(mbs_expr **e)
{
    if (!e || !*e)
        return;
    free((*e)->ops);
    free(*e);
    *e = NULL;
}
