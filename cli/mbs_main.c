/*
 * mbs_main.c - the command-line tool: run or check a mechanism without any
 * server.
 *
 *   mbs check FILE.json [--set NAME=VALUE ...] [--json]
 *   mbs run   FILE.json [--set NAME=VALUE ...] [--out results.csv]
 *                       [--metrics metrics.json] [--quiet]
 *
 * Exit codes (documented in the README):
 *   0 success, 1 invalid mechanism or option, 2 usage error, 3 the mechanism
 *   cannot be assembled or its system is singular, 4 the solver failed during
 *   the run (divergence), 5 time limit reached, 6 input/output error.
 */
#include "mbs/mbs.h"
#include "mbs/formulation/relative/tree.h"
#include "mechanism/mechanism.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { EX_OK = 0, EX_INVALID = 1, EX_USAGE = 2, EX_MODEL = 3, EX_SOLVER = 4, EX_TIMEOUT = 5, EX_IO = 6 };

static void s_usage(FILE *f)
{
    fprintf(f,
            "usage: mbs check FILE.json [--set NAME=VALUE ...] [--json]\n"
            "       mbs run FILE.json [--set NAME=VALUE ...] [--out results.csv] [--metrics metrics.json] [--quiet]\n"
            "--set overrides a parameter by name, or a solver option as solver.OPTION=VALUE.\n"
            "Exit codes: 0 ok, 1 invalid input, 2 usage, 3 cannot assemble / singular, 4 solver failure,\n"
            "            5 time limit, 6 input/output error.\n");
}

/* Read a whole file (at most MECH_MAX_BYTES + 1 bytes). Caller frees. */
static char *s_read(const char *path, size_t *len)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n == cap) {
            if (cap > MECH_MAX_BYTES) break;
            char *nb = realloc(buf, cap * 2);
            if (!nb) { free(buf); buf = NULL; break; }
            buf = nb;
            cap *= 2;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0) break;
    }
    if (f != stdin) fclose(f);
    *len = n;
    return buf;
}

static void s_print_errors(const mbs_errlist *el)
{
    for (int i = 0; i < el->n; i++)
        fprintf(stderr, "error: %s%s%s\n", el->e[i].pointer, el->e[i].pointer[0] ? ": " : "", el->e[i].message);
    if (el->dropped) fprintf(stderr, "error: ... and %d more\n", el->dropped);
}

static int s_exit_for(int rc)
{
    switch (rc) {
    case MBS_EINVAL: return EX_INVALID;
    case MBS_EASSEMBLY: case MBS_ESINGULAR: return EX_MODEL;
    case MBS_ETIMEOUT: return EX_TIMEOUT;
    default: return EX_SOLVER;
    }
}

/* Progress bar on a terminal, shown once the run has lasted a second. */
typedef struct {
    struct timespec start;
    int shown;
} s_progress;

static int s_progress_cb(double frac, void *user)
{
    s_progress *p = user;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double el = (double)(now.tv_sec - p->start.tv_sec) + 1e-9 * (double)(now.tv_nsec - p->start.tv_nsec);
    if (el < 1.0) return 0;
    int w = 40, k = (int)(frac * w);
    char bar[64];
    for (int i = 0; i < w; i++) bar[i] = i < k ? '#' : '.';
    bar[w] = 0;
    double eta = frac > 0 ? el * (1 - frac) / frac : 0;
    fprintf(stderr, "\r[%s] %5.1f%%  %.0f s left ", bar, 100 * frac, eta);
    p->shown = 1;
    return 0;
}

static void s_print_report(const mbs_spec *sp, const mbs_report *r, const char *file)
{
    printf("mechanism      %s (%s, %dD)\n", sp->name, file, r->dim);
    printf("bodies         %d\njoints         %d\ndrivers        %d\n", r->nbody, r->njoint, sp->ndriver);
    /* the variables of rotors between moving bodies (the bodies' angles in
     * the plane, a prismatic joint's slide, a spatial rotor's joint angle
     * and unit vectors) come on top of the natural coordinates
     * (docs/actuators.md) */
    int rvars = r->coords_after - (r->coords_before - r->eliminated_constant - r->eliminated_equal);
    printf("coordinates    %d before elimination, %d after (%d constant, %d merged", r->coords_before,
           r->coords_after, r->eliminated_constant, r->eliminated_equal);
    if (rvars > 0) printf("; %d rotor variable%s", rvars, rvars > 1 ? "s" : "");
    printf(")\n");
    printf("constraints    %d before elimination, %d after\n", r->constraints_before, r->constraints_after);
    printf("redundant      %d%s%s\n", r->redundant, r->redundant ? " dependent equation(s) removed, joints: " : "",
           r->redundant ? r->redundant_joints : "");
    printf("dof            %d\n", r->dof);
    printf("assembly       residual %.3g after %d iteration(s), largest move %.3g\n", r->assembly_residual,
           r->assembly_iterations, r->assembly_max_move);
    printf("velocities     projected, largest change %.3g\n", r->velocity_correction);
    printf("half-bandwidth %d\n", r->bandwidth);
    /* the same mechanism in relative coordinates (issue 12): the spanning
     * tree's joint coordinates, the equations of its chords and of the
     * drivers; whether solver.formulation "relative" runs it */
    printf("relative       %d joint coordinates, %d constraints (%d chords, longest loop %d joints; %d drivers), "
           "%d floating roots\n", r->rel_coords, r->rel_constraints, r->rel_chords, r->rel_longest_loop, sp->ndriver,
           r->rel_roots);
    mbs_errlist *el = calloc(1, sizeof *el);
    if (el) {
        mbs_spec probe = *sp; /* the dynamics is what the formulation runs */
        probe.solver.analysis = MBS_ANALYSIS_DYNAMICS;
        if (mbs_rtree_supported(&probe, el) == 0)
            printf("relative run   supported (--set solver.formulation=relative; dopri5, bdf, or moreau_jean and "
                   "event_driven with rigid contacts)\n");
        else
            printf("relative run   not yet: %s%s\n", el->n ? el->e[0].message : "", el->n > 1 ? " (and more)" : "");
        free(el);
    }
    for (int i = 0; i < r->warnings; i++) printf("warning        %s\n", r->warning[i]);
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        s_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? EX_USAGE : EX_OK;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "run") && strcmp(cmd, "check")) { s_usage(stderr); return EX_USAGE; }
    const char *file = NULL, *out = NULL, *metrics = NULL;
    int quiet = 0, json = 0, nov = 0;
    mech_override *ov = calloc((size_t)argc, sizeof *ov);
    char **owned = calloc((size_t)argc, sizeof *owned);
    if (!ov || !owned) return EX_IO;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--set") && i + 1 < argc) {
            char *s = strdup(argv[++i]);
            char *eq = s ? strchr(s, '=') : NULL;
            if (!eq) { fprintf(stderr, "mbs: --set needs NAME=VALUE\n"); free(s); return EX_USAGE; }
            *eq = 0;
            owned[nov] = s;
            ov[nov].name = s;
            ov[nov].value = eq + 1;
            nov++;
        } else if (!strcmp(a, "--out") && i + 1 < argc) {
            out = argv[++i];
        } else if (!strcmp(a, "--metrics") && i + 1 < argc) {
            metrics = argv[++i];
        } else if (!strcmp(a, "--quiet")) {
            quiet = 1;
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "mbs: unknown option '%s'\n", a);
            s_usage(stderr);
            return EX_USAGE;
        } else if (!file) {
            file = a;
        } else {
            fprintf(stderr, "mbs: more than one file given\n");
            return EX_USAGE;
        }
    }
    if (!file) { s_usage(stderr); return EX_USAGE; }

    size_t len = 0;
    char *text = s_read(file, &len);
    if (!text) { fprintf(stderr, "mbs: cannot read %s: %s\n", file, strerror(errno)); return EX_IO; }
    mbs_errlist el = {0};
    mbs_spec *spec = mech_parse(text, len, ov, nov, &el);
    free(text);
    int code = EX_OK;
    mbs_model *m = NULL;
    mbs_data *d = NULL;
    mbs_report rep;
    if (!spec) { s_print_errors(&el); code = EX_INVALID; goto done; }
    m = mbs_model_new(spec, &rep, &el);
    if (!m) { s_print_errors(&el); code = EX_MODEL; goto done; }
    d = mbs_data_new(m);
    if (!d) { fprintf(stderr, "mbs: out of memory\n"); code = EX_IO; goto done; }

    if (!strcmp(cmd, "check")) {
        int rc = mbs_initialize(m, d, &rep, &el);
        if (json) {
            char buf[8192];
            mbs_report_json(&rep, buf, sizeof buf);
            printf("%s\n", buf);
        } else {
            s_print_report(spec, &rep, file);
        }
        if (rc) { s_print_errors(&el); code = s_exit_for(rc); }
        goto done;
    }

    /* run */
    mbs_result res;
    mbs_metrics met;
    s_progress prog = {.shown = 0};
    clock_gettime(CLOCK_MONOTONIC, &prog.start);
    int tty = !quiet && isatty(2);
    int rc = mbs_simulate(m, d, &res, &met, tty ? s_progress_cb : NULL, &prog, &el);
    if (prog.shown) fprintf(stderr, "\r%60s\r", "");
    if (rc) { s_print_errors(&el); code = s_exit_for(rc); }
    /* the accuracy warnings of the run (also with --quiet: they say the
     * answer may be wrong) */
    for (int i = 0; i < met.nwarning && i < MBS_WARN_MAX; i++) fprintf(stderr, "warning: %s\n", met.warning[i]);
    if (met.nwarning > MBS_WARN_MAX) fprintf(stderr, "warning: ... and %d more\n", met.nwarning - MBS_WARN_MAX);
    /* results (also the partial ones of a failed run) */
    FILE *f = out ? fopen(out, "w") : stdout;
    if (!f) {
        fprintf(stderr, "mbs: cannot write %s: %s\n", out, strerror(errno));
        code = EX_IO;
    } else {
        fprintf(f, "time");
        for (int c = 0; c < spec->nchannel; c++) fprintf(f, ",%s", spec->channels[c].name);
        fprintf(f, "\n");
        for (int r = 0; r < res.nsample; r++) {
            const double *row = res.rows + (size_t)r * (size_t)(1 + res.nchannel);
            for (int c = 0; c <= res.nchannel; c++) fprintf(f, c ? ",%.10g" : "%.10g", row[c]);
            fprintf(f, "\n");
        }
        if (out && fclose(f) != 0) code = EX_IO;
    }
    mbs_result_free(&res);
    if (metrics) {
        char buf[4096];
        mbs_metrics_json(&met, buf, sizeof buf);
        FILE *mf = fopen(metrics, "w");
        if (!mf || fprintf(mf, "%s\n", buf) < 0) { fprintf(stderr, "mbs: cannot write %s\n", metrics); code = EX_IO; }
        if (mf) fclose(mf);
    }

done:
    mbs_data_free(&d);
    mbs_model_free(&m);
    mbs_spec_free(&spec);
    for (int i = 0; i < nov; i++) free(owned[i]);
    free(owned);
    free(ov);
    return code;
}
