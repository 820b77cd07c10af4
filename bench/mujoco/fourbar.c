/* bench/mujoco/fourbar.c - side-by-side measurement of MuJoCo 2.2 (Debian
 * libmujoco-dev) on the IFToMM A02 N-four-bar, N = 2, 10 s, for comparison with
 * our solver (build/bench/solver_bench --target).
 *
 *   build/bench/mujoco_fourbar [tests/reference/iftomm_a02_four_bar_n2.json]
 *
 * The mechanism is examples/iftomm_a02_four_bar_n2.json: 3 cranks (uniform rods
 * of 1 m and 1 kg, I = 1/12 kg m^2 about the centre) pinned to ground at
 * A_i = (i, 0), vertical; 2 couplers (same rods) horizontal at y = 1 between the
 * crank tips B_i = (i, 1); gravity 9.81 in -y; cranks at -1 rad/s about z,
 * couplers translating at (1, 0) m/s, so that B0 moves at +1 m/s in x.
 *
 * MJCF: a kinematic tree of 5 hinges about z (crank i hinged to the world at
 * A_i; coupler i+1 a child of crank i, hinged at B_i) and 2 loop closures, the
 * free end of each coupler `connect`ed to the tip of the next crank.  Contacts
 * disabled, no damping, no armature.  Equality constraints as stiff as MuJoCo
 * allows: solimp = (0.9999, 0.9999) (the impedance maximum, mjMAXIMP) and the
 * smallest time constant accepted with the integrator safety on (2 x timestep).
 *
 * Three tables, one per MuJoCo integrator (RK4, Euler = semi-implicit, the
 * default, and implicit), over fixed steps that divide 0.1 s.  Error = largest
 * |B0 - exact| at t = 1, 2.5, 5 and 10 s against the exact values read at run
 * time from the reference file (channels xB0, yB0): the 1e-3 m criterion, as in
 * bench/solver_bench.c; a second column takes the largest error every 0.1 s
 * against the exact solution integrated here.  Wall time = best of 3 runs of
 * 10 s (clock_gettime(CLOCK_MONOTONIC)), from the reset of the state to the
 * last step, model compilation excluded.  Untimed runs check the model: energy
 * drift, constraint violation, departure from the parallelogram branch.
 *
 * Note for reading the figures: with the time constant tied to the step, the
 * error at small steps is that of the soft constraints, not of the integrator
 * (with RK4 and a fixed time constant of 0.02 s the error stays 5.1e-4 m from
 * h = 1e-2 to 1e-4 s; 0.002 s: 5.6e-5 m), so it falls about like h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* M_PI, clock_gettime */
#endif
#include <jansson.h>
#include <math.h>
#include <mujoco/mujoco.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REPEAT 3
#define T_END 10.0
#define TOL_B0 1e-3
#define MAXREF 16
#define DT_SAMPLE 0.1 /* B0 sampled every 0.1 s */
#define NSAMPLE 101   /* t = 0, 0.1, ..., 10 s */

static const char *XML =
    "<mujoco model='iftomm_a02_four_bar_n2'>\n"
    "  <compiler angle='radian' inertiafromgeom='false'/>\n"
    "  <option timestep='0.001' gravity='0 -9.81 0' integrator='RK4' solver='Newton'\n"
    "          tolerance='1e-10' iterations='100'>\n"
    "    <flag contact='disable'/>\n"
    "  </option>\n"
    "  <default>\n"
    "    <joint type='hinge' axis='0 0 1' damping='0' armature='0' limited='false'/>\n"
    "    <equality solref='0.000001 1' solimp='0.9999 0.9999 0.001 0.5 2'/>\n"
    "  </default>\n"
    /* Rods: I = m L^2 / 12 about the two axes normal to the rod; the axial
     * moment (a thin rod's is 0) must be positive for MuJoCo and never enters
     * the planar motion (every hinge is about z). */
    "  <worldbody>\n"
    "    <body name='crank0' pos='0 0 0'>\n"
    "      <joint name='A0'/>\n"
    "      <inertial pos='0 0.5 0' mass='1' diaginertia='0.083333333333333333 1e-6 0.083333333333333333'/>\n"
    "      <site name='B0' pos='0 1 0'/>\n"
    "      <body name='coupler1' pos='0 1 0'>\n"
    "        <joint name='B0_c1'/>\n"
    "        <inertial pos='0.5 0 0' mass='1' diaginertia='1e-6 0.083333333333333333 0.083333333333333333'/>\n"
    "      </body>\n"
    "    </body>\n"
    "    <body name='crank1' pos='1 0 0'>\n"
    "      <joint name='A1'/>\n"
    "      <inertial pos='0 0.5 0' mass='1' diaginertia='0.083333333333333333 1e-6 0.083333333333333333'/>\n"
    "      <body name='coupler2' pos='0 1 0'>\n"
    "        <joint name='B1_c2'/>\n"
    "        <inertial pos='0.5 0 0' mass='1' diaginertia='1e-6 0.083333333333333333 0.083333333333333333'/>\n"
    "      </body>\n"
    "    </body>\n"
    "    <body name='crank2' pos='2 0 0'>\n"
    "      <joint name='A2'/>\n"
    "      <inertial pos='0 0.5 0' mass='1' diaginertia='0.083333333333333333 1e-6 0.083333333333333333'/>\n"
    "    </body>\n"
    "  </worldbody>\n"
    /* anchor in body1's frame: the free end B_{i+1} of the coupler; MuJoCo
     * places the matching point on body2 from the initial configuration. */
    "  <equality>\n"
    "    <connect name='B1_c1' body1='coupler1' body2='crank1' anchor='1 0 0'/>\n"
    "    <connect name='B2_c2' body1='coupler2' body2='crank2' anchor='1 0 0'/>\n"
    "  </equality>\n"
    "</mujoco>\n";

typedef struct { double t, x, y; int have, sample; } ref_t;
static ref_t refs[MAXREF];
static int nref;

static int load_reference(const char *path) {
    json_error_t err;
    json_t *root = json_load_file(path, 0, &err);
    if (!root || !json_is_array(root)) {
        fprintf(stderr, "mujoco_fourbar: cannot read %s: %s\n", path, root ? "not an array" : err.text);
        json_decref(root);
        return -1;
    }
    size_t i;
    json_t *e;
    json_array_foreach(root, i, e) {
        const char *ch = json_string_value(json_object_get(e, "channel"));
        json_t *jt = json_object_get(e, "t"), *jv = json_object_get(e, "value");
        if (!ch || !json_is_number(jt) || !json_is_number(jv)) continue;
        double t = json_number_value(jt), v = json_number_value(jv);
        int k;
        for (k = 0; k < nref && refs[k].t != t; k++) {}
        if (k == nref) {
            if (nref == MAXREF) continue;
            memset(&refs[nref], 0, sizeof refs[nref]);
            refs[nref++].t = t;
        }
        if (!strcmp(ch, "xB0")) refs[k].x = v, refs[k].have |= 1;
        else if (!strcmp(ch, "yB0")) refs[k].y = v, refs[k].have |= 2;
    }
    json_decref(root);
    /* keep the times with both xB0 and yB0, sorted */
    int n = 0;
    for (int k = 0; k < nref; k++)
        if ((refs[k].have & 3) == 3) refs[n++] = refs[k];
    nref = n;
    for (int a = 1; a < nref; a++)
        for (int b = a; b > 0 && refs[b].t < refs[b - 1].t; b--) {
            ref_t s = refs[b]; refs[b] = refs[b - 1]; refs[b - 1] = s;
        }
    if (nref == 0 || refs[nref - 1].t > T_END || refs[0].t < 0) {
        fprintf(stderr, "mujoco_fourbar: %s: no xB0/yB0 pair within 10 s\n", path);
        return -1;
    }
    for (int k = 0; k < nref; k++) {
        refs[k].sample = (int)lround(refs[k].t / DT_SAMPLE);
        if (fabs(refs[k].sample * DT_SAMPLE - refs[k].t) > 1e-9) {
            fprintf(stderr, "mujoco_fourbar: %s: t = %g is not a multiple of %g s\n", path, refs[k].t, DT_SAMPLE);
            return -1;
        }
    }
    return 0;
}

static void on_warning(const char *msg) { fprintf(stderr, "MuJoCo warning: %s\n", msg); }
static void on_error(const char *msg) { fprintf(stderr, "MuJoCo error: %s\n", msg); exit(1); }

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static mjModel *load_model(void) {
    mjVFS *vfs = malloc(sizeof *vfs); /* about 2 MB: not on the stack */
    if (!vfs) return NULL;
    mj_defaultVFS(vfs);
    int len = (int)strlen(XML);
    if (mj_makeEmptyFileVFS(vfs, "fourbar.xml", len) != 0) { free(vfs); return NULL; }
    memcpy(vfs->filedata[mj_findFileVFS(vfs, "fourbar.xml")], XML, len);
    char err[1000] = "";
    mjModel *m = mj_loadXML("fourbar.xml", vfs, err, sizeof err);
    if (!m) fprintf(stderr, "mujoco_fourbar: MJCF: %s\n", err);
    mj_deleteVFS(vfs);
    free(vfs);
    return m;
}

static int jA[3], jC[2], siteB0;

/* the initial state of the example: cranks -1 rad/s; couplers translating, so
 * their hinge (relative to the crank) turns at +1 rad/s */
static void initial_state(const mjModel *m, mjData *d) {
    mj_resetData(m, d);
    for (int i = 0; i < 3; i++) d->qvel[m->jnt_dofadr[jA[i]]] = -1;
    for (int i = 0; i < 2; i++) d->qvel[m->jnt_dofadr[jC[i]]] = +1;
}

/* The exact solution on the parallelogram branch (docs/benchmarks.md, A02):
 * J phi'' = K sin(phi), phi(0) = 0, phi'(0) = 1, J = (N+1)/3 + N, K = g((N+1)/2 + N),
 * xB0 = sin(phi), yB0 = cos(phi); integrated here by RK4 at 1e-5 s (error far
 * below 1e-9 m; checked against the reference file at its times) to compare
 * B0 every 0.1 s, not only at the reference times. */
static double exact_x[NSAMPLE], exact_y[NSAMPLE];

static void exact_solution(void) {
    const double N = 2, J = (N + 1) / 3 + N, K = 9.81 * ((N + 1) / 2 + N), h = 1e-5;
    const long sub = lround(DT_SAMPLE / h);
    double p = 0, w = 1;
    for (int k = 0; k < NSAMPLE; k++) {
        if (k > 0)
            for (long s = 0; s < sub; s++) {
                double k1p = w, k1w = K / J * sin(p);
                double k2p = w + 0.5 * h * k1w, k2w = K / J * sin(p + 0.5 * h * k1p);
                double k3p = w + 0.5 * h * k2w, k3w = K / J * sin(p + 0.5 * h * k2p);
                double k4p = w + h * k3w, k4w = K / J * sin(p + h * k3p);
                p += h / 6 * (k1p + 2 * k2p + 2 * k3p + k4p);
                w += h / 6 * (k1w + 2 * k2w + 2 * k3w + k4w);
            }
        exact_x[k] = sin(p), exact_y[k] = cos(p);
    }
}

typedef struct {
    double wall;     /* best of REPEAT, s */
    long steps;
    double err;      /* largest |B0 - exact| at the reference file's times */
    double errall;   /* largest |B0 - exact| every 0.1 s */
    int ok;          /* finite state */
} result_t;

/* One 10 s run at step h (a divisor of 0.1 s), B0 sampled every 0.1 s. */
static result_t run(mjModel *m, mjData *d, int integrator, double h) {
    result_t r = {1e30, 0, 0, 0, 1};
    m->opt.timestep = h;
    m->opt.integrator = integrator;
    m->opt.enableflags &= ~mjENBL_ENERGY;
    const long nstep = lround(T_END / h), every = lround(DT_SAMPLE / h);
    if (every < 1 || fabs(every * h - DT_SAMPLE) > 1e-12) {
        fprintf(stderr, "mujoco_fourbar: step %g does not divide %g s\n", h, DT_SAMPLE);
        exit(1);
    }
    static double bx[NSAMPLE], by[NSAMPLE];
    for (int rep = 0; rep < REPEAT; rep++) {
        double t0 = now();
        initial_state(m, d);
        mj_kinematics(m, d);
        bx[0] = d->site_xpos[3 * siteB0], by[0] = d->site_xpos[3 * siteB0 + 1];
        for (long s = 1; s <= nstep; s++) {
            mj_step(m, d);
            if (s % every == 0) {
                mj_kinematics(m, d); /* site_xpos of the state after the step */
                bx[s / every] = d->site_xpos[3 * siteB0], by[s / every] = d->site_xpos[3 * siteB0 + 1];
            }
        }
        double w = now() - t0;
        if (w < r.wall) r.wall = w;
    }
    r.steps = nstep;
    for (int k = 0; k < NSAMPLE; k++) {
        if (!isfinite(bx[k]) || !isfinite(by[k])) { r.ok = 0; continue; }
        double e = hypot(bx[k] - exact_x[k], by[k] - exact_y[k]);
        if (e > r.errall) r.errall = e;
    }
    for (int k = 0; k < nref; k++) {
        int i = refs[k].sample;
        double e = hypot(bx[i] - refs[k].x, by[i] - refs[k].y);
        if (!(e <= r.err)) r.err = e; /* NaN propagates */
    }
    return r;
}

static const char *integrator_name(int integrator) {
    return integrator == mjINT_RK4 ? "RK4" : integrator == mjINT_EULER ? "Euler" : "implicit";
}

/* Untimed check at step h, one markdown row: energy drift, equality-constraint
 * violation, and the largest angle between crank 0 and the other cranks (0 on
 * the parallelogram branch that the exact solution follows). */
static void check(mjModel *m, mjData *d, int integrator, double h, const char *why) {
    m->opt.timestep = h;
    m->opt.integrator = integrator;
    m->opt.enableflags |= mjENBL_ENERGY;
    initial_state(m, d);
    mj_forward(m, d);
    double E0 = d->energy[0] + d->energy[1], dE = 0, cv = 0, branch = 0;
    long nstep = lround(T_END / h);
    for (long s = 0; s <= nstep; s++) {
        if (s > 0) { mj_step(m, d); mj_forward(m, d); } /* energy and efc_pos of the state after the step */
        double E = d->energy[0] + d->energy[1];
        if (!isfinite(E)) { dE = INFINITY; break; }
        if (fabs(E - E0) > dE) dE = fabs(E - E0);
        for (int i = 0; i < d->nefc; i++)
            if (d->efc_type[i] == mjCNSTR_EQUALITY && fabs(d->efc_pos[i]) > cv) cv = fabs(d->efc_pos[i]);
        double q0 = d->qpos[m->jnt_qposadr[jA[0]]];
        for (int i = 1; i < 3; i++) {
            double dq = fabs(remainder(d->qpos[m->jnt_qposadr[jA[i]]] - q0, 2 * M_PI));
            if (dq > branch) branch = dq;
        }
    }
    m->opt.enableflags &= ~mjENBL_ENERGY;
    printf("| %s | %g | %s | %.6f | %.2e | %.1e | %.2e | %.2e |\n", integrator_name(integrator), h, why, E0, dE,
           dE / E0, cv, branch);
}

/* One table; returns the fastest step meeting 1e-3 m, or 0. */
static double table(mjModel *m, mjData *d, int integrator, const char *note, const double *hs, int nh) {
    printf("\n### %s%s\n\n", integrator_name(integrator), note);
    printf("| timestep (s) | steps | wall (ms, best of %d) | us per step | largest B0 error (m) | largest B0 error every 0.1 s (m) "
           "| meets 1e-3 |\n", REPEAT);
    printf("|---:|---:|---:|---:|---:|---:|---|\n");
    int best = -1;
    double bestw = 0;
    for (int i = 0; i < nh; i++) {
        result_t r = run(m, d, integrator, hs[i]);
        int meets = r.ok && r.err <= TOL_B0;
        printf("| %g | %ld | %.2f | %.2f | %s%.2e | %.2e | %s |\n", hs[i], r.steps, 1e3 * r.wall, 1e6 * r.wall / r.steps,
               r.ok ? "" : "non-finite, ", r.err, r.errall, meets ? "yes" : "no");
        fflush(stdout);
        if (meets && (best < 0 || r.wall < bestw)) best = i, bestw = r.wall;
    }
    if (best >= 0)
        printf("\nFastest %s setting meeting 1e-3 m: h = %g s, **%.2f ms**.\n", integrator_name(integrator), hs[best],
               1e3 * bestw);
    else
        printf("\nNo %s setting in this table meets 1e-3 m.\n", integrator_name(integrator));
    return best >= 0 ? hs[best] : 0;
}

int main(int argc, char **argv) {
    const char *refpath = argc > 1 ? argv[1] : "tests/reference/iftomm_a02_four_bar_n2.json";
    if (argc > 2 || (argc > 1 && argv[1][0] == '-')) {
        fprintf(stderr, "usage: mujoco_fourbar [REFERENCE.json]\n");
        return 2;
    }
    mju_user_warning = on_warning;
    mju_user_error = on_error;
    if (load_reference(refpath) != 0) return 1;
    mjModel *m = load_model();
    if (!m) return 1;
    mjData *d = mj_makeData(m);
    const char *jn[5] = {"A0", "A1", "A2", "B0_c1", "B1_c2"};
    for (int i = 0; i < 5; i++) {
        int id = mj_name2id(m, mjOBJ_JOINT, jn[i]);
        if (id < 0) { fprintf(stderr, "mujoco_fourbar: joint %s missing\n", jn[i]); return 1; }
        if (i < 3) jA[i] = id; else jC[i - 3] = id;
    }
    siteB0 = mj_name2id(m, mjOBJ_SITE, "B0");

    printf("\n# MuJoCo side by side (build/bench/mujoco_fourbar)\n\n");
    printf("## IFToMM A02 N-four-bar, N = 2, 10 s, in MuJoCo %s (Debian libmujoco-dev): B0 within 1e-3 m of the exact solution\n\n",
           mj_versionString());
    exact_solution();
    double dref = 0;
    for (int k = 0; k < nref; k++) {
        double e = hypot(exact_x[refs[k].sample] - refs[k].x, exact_y[refs[k].sample] - refs[k].y);
        if (e > dref) dref = e;
    }
    printf("MJCF built in memory: 5 hinges about z (nq = nv = %d), 2 `connect` loop closures (%d constraint rows, "
           "the 2 out-of-plane rows redundant), contacts off, no damping or armature, Newton solver, tolerance 1e-10, "
           "100 iterations, solimp 0.9999 (MuJoCo's maximum), solref time constant 2 x timestep (the smallest MuJoCo "
           "accepts). Fixed step. Largest B0 error = largest |B0 - exact| at t = %s s (exact values from %s: the "
           "1e-3 m criterion, as in the solver benchmark); every 0.1 s = the same against the exact solution "
           "integrated here (RK4 at 1e-5 s on J phi'' = K sin phi; %.1e m from the reference file at its times). "
           "Wall = best of %d runs of 10 s, model compilation excluded, B0 read every 0.1 s.\n",
           m->nv, 3 * m->neq, nref == 4 ? "1, 2.5, 5 and 10" : "the reference times", refpath, dref, REPEAT);
    if (dref > 1e-9) {
        fprintf(stderr, "mujoco_fourbar: the exact solution and %s differ by %.1e m\n", refpath, dref);
        return 1;
    }

    /* every step divides 0.1 s (run() checks) */
    static const double rk4[] = {2e-2, 1.25e-2, 1e-2, 5e-3, 2e-3, 1e-3, 5e-4, 2e-4, 1e-4, 5e-5};
    static const double euler[] = {1e-2, 6.25e-3, 5e-3, 4e-3, 2.5e-3, 1e-3, 5e-4, 2e-4, 1e-4, 5e-5};
    static const double impl[] = {5e-3, 2.5e-3, 2e-3, 1e-3, 5e-4, 2e-4, 1e-4, 5e-5};
    double best[3];
    best[0] = table(m, d, mjINT_RK4, " (4 force evaluations per step)", rk4, (int)(sizeof rk4 / sizeof rk4[0]));
    best[1] = table(m, d, mjINT_EULER, " (MuJoCo's default: semi-implicit Euler)", euler,
                    (int)(sizeof euler / sizeof euler[0]));
    best[2] = table(m, d, mjINT_IMPLICIT, " (implicit in velocity)", impl, (int)(sizeof impl / sizeof impl[0]));

    printf("\n### Model check (untimed runs of 10 s; exact energy 35.835 J, constant)\n\n");
    printf("| integrator | timestep (s) | run | E(0) (J) | largest abs(E - E(0)) (J) | relative | largest constraint violation (m) "
           "| largest abs(phi_i - phi_0) (rad) |\n|---|---:|---|---:|---:|---:|---:|---:|\n");
    check(m, d, mjINT_RK4, rk4[sizeof rk4 / sizeof rk4[0] - 1], "finest");
    const int integ[3] = {mjINT_RK4, mjINT_EULER, mjINT_IMPLICIT};
    for (int i = 0; i < 3; i++)
        if (best[i] > 0) check(m, d, integ[i], best[i], "fastest meeting 1e-3 m");
    mj_deleteData(d);
    mj_deleteModel(m);
    return 0;
}
