/*
 * relative_mass_cost.c - the cost of the relative formulation's mass matrix
 * (formulation/relative/tree_mass.c) beside its forward dynamics, on one
 * mechanism (e.g. the chains of bench/relative_chain.py):
 *
 *   make build/bench/relative_mass_cost
 *   build/bench/relative_mass_cost MECHANISM.json [REPS]
 *
 * Prints the rates n, M's pattern entries, the pattern's construction time
 * (once per run), and per evaluation (mean of REPS, default 300) the time of
 * kinematics + applied forces + the articulated-body recursion
 * (mbs_rtree_forward: one evaluation of the ODE form) and of kinematics +
 * mbs_rtree_mass_eval (what Moreau-Jean's mass_eval would cost per step).
 * The configuration: every rate's coordinate turned by 0.1 (i * 37 mod 11 - 5).
 */
#include "mbs/formulation/relative/tree.h"
#include "mechanism/mechanism.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double s_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s MECHANISM.json [REPS]\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 1; }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    rewind(f);
    char *text = malloc((size_t)len + 1);
    if (!text || fread(text, 1, (size_t)len, f) != (size_t)len) { fprintf(stderr, "%s: read failed\n", argv[1]); return 1; }
    text[len] = 0;
    fclose(f);
    mbs_errlist el = {0};
    mbs_spec *s = mech_parse(text, strlen(text), NULL, 0, &el);
    mbs_rtree t;
    mbs_rtree_ws w;
    if (!s || mbs_rtree_build(s, &t, &el) != 0 || mbs_rtree_ws_new(&t, &w) != 0) {
        for (int i = 0; i < el.n; i++) fprintf(stderr, "%s\n", el.e[i].message);
        fprintf(stderr, "%s: not a tree the relative formulation builds\n", argv[1]);
        return 1;
    }
    int reps = argc > 2 ? atoi(argv[2]) : 300;
    if (reps < 1) reps = 1;
    double *q = calloc((size_t)t.nq + 1, sizeof(double)), *u = calloc((size_t)t.n + 1, sizeof(double));
    double *a = calloc((size_t)t.n + 1, sizeof(double));
    for (int i = 0; i < t.nnode; i++) if (t.node[i].kind == MBS_RN_BALL) q[t.node[i].qcoord] = 1;
    for (int i = 0; i < t.n; i++) u[i] = 0.1 * ((i * 37) % 11 - 5);
    mbs_rtree_q_add(&t, q, u);
    double t0 = s_now();
    int nnz = mbs_rtree_mass_nnz(&t);
    int *ptr = malloc(sizeof(int) * (size_t)(t.n + 1)), *col = malloc(sizeof(int) * (size_t)nnz + 1);
    if (!ptr || !col || mbs_rtree_mass_pattern(&t, ptr, col) != 0) { fprintf(stderr, "out of memory\n"); return 1; }
    double tpat = s_now() - t0;
    double *val = malloc(sizeof(double) * (size_t)nnz + 1);
    t0 = s_now();
    for (int r = 0; r < reps; r++) {
        mbs_rtree_kinematics(&t, &w, q, u);
        mbs_rtree_applied(&t, &w, 0);
        mbs_rtree_forward(&t, &w, a);
    }
    double tf = (s_now() - t0) / reps;
    t0 = s_now();
    for (int r = 0; r < reps; r++) {
        mbs_rtree_kinematics(&t, &w, q, NULL);
        mbs_rtree_mass_eval(&t, &w, ptr, col, val);
    }
    double tm = (s_now() - t0) / reps;
    printf("n %d, pattern %d entries (%.3g ms once); kinematics + forward %.3g us, kinematics + mass_eval %.3g us\n",
           t.n, nnz, 1e3 * tpat, 1e6 * tf, 1e6 * tm);
    free(q); free(u); free(a); free(ptr); free(col); free(val); free(text);
    mbs_rtree_ws_free(&w);
    mbs_rtree_free(&t);
    mbs_spec_free(&s);
    return 0;
}
