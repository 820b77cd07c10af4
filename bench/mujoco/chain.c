/* bench/mujoco/chain.c - MuJoCo 2.2 (Debian libmujoco-dev) on the spatial open
 * chain of issue 12's speed criterion, for the side-by-side table that
 * bench/relative_chain.py prints with build/mbs in one run.
 *
 *   build/bench/mujoco_chain N STEP [T_END [REPEAT]]
 *
 * The chain (the same numbers as bench/relative_chain.py writes in our
 * format): N uniform thin rods of length LINK = 0.1 m and mass 0.1 kg
 * (inertia m l^2 / 12 across, AXIAL = 1.25e-6 kg m^2 along), rod 0 hung from
 * the world at the origin by a ball joint, rod i + 1 from the end of rod i
 * by a ball joint; at t = 0 the rods lie in the horizontal plane, rod i
 * along (cos a_i, sin a_i, 0) with a_i = TURN i (a coil), at rest; gravity
 * 9.81 in -z; no contact, damping, armature or joint limit.
 *
 * MJCF: one body per rod, nested, each body's frame at its ball joint and
 * aligned with the world at t = 0 (so that identity quaternions are the
 * initial configuration), the rod's inertia as an `inertial` element at its
 * centre rotated onto the rod; a site at the free end of the last rod.
 *
 * Prints one line: N, STEP, steps, wall time of the run (best of REPEAT,
 * from the reset of the state to the last step, compilation excluded; REPEAT
 * runs, default 3) and
 * the tip's position at T_END (default 1 s), integrator RK4 (MuJoCo's exact
 * tree dynamics, so the only error is the integrator's). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* M_PI; clock_gettime and mkstemp in mjutil.h */
#endif
#include <math.h>
#include <stdarg.h>
#include <mujoco/mujoco.h>
#include "mjutil.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPEAT 3
#define LINK 0.1
#define MASS 0.1
#define AXIAL 1.25e-6
#define TURN 0.25

static long nwarn;

/* MuJoCo's warnings counted and printed on stderr, not written to
 * MUJOCO_LOG.TXT in the working directory. */
static void quiet_warning(const char *msg)
{
    if (nwarn++ < 3) fprintf(stderr, "mujoco_chain: MuJoCo warning: %s\n", msg);
}

/* Append printf-formatted text to the growing buffer *b (length *n). */
static void add(char **b, size_t *n, size_t *cap, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int k = vsnprintf(*b + *n, *cap - *n, fmt, ap);
        va_end(ap);
        if (k >= 0 && (size_t)k < *cap - *n) { *n += (size_t)k; return; }
        *cap *= 2;
        char *nb = realloc(*b, *cap);
        if (!nb) { perror("realloc"); exit(1); }
        *b = nb;
    }
}

/* The MJCF of the chain with N rods and time step h (see the header). */
static char *chain_xml(int N, double h)
{
    size_t n = 0, cap = 1 << 16;
    char *b = malloc(cap);
    if (!b) { perror("malloc"); exit(1); }
    add(&b, &n, &cap, "<mujoco model=\"chain\"><compiler angle=\"radian\" inertiafromgeom=\"false\"/>"
        "<option timestep=\"%.17g\" integrator=\"RK4\" gravity=\"0 0 -9.81\"><flag contact=\"disable\"/></option>"
        "<worldbody>", h);
    double It = MASS * LINK * LINK / 12;
    for (int i = 0; i < N; i++) {
        double a = TURN * i, pa = TURN * (i - 1);
        /* the body's frame at the joint: the parent's rod end (world-aligned frames) */
        double px = i ? LINK * cos(pa) : 0, py = i ? LINK * sin(pa) : 0;
        add(&b, &n, &cap, "<body name=\"r%d\" pos=\"%.17g %.17g 0\"><joint type=\"ball\"/>"
            "<inertial pos=\"%.17g %.17g 0\" quat=\"%.17g 0 0 %.17g\" mass=\"%g\" diaginertia=\"%.17g %.17g %.17g\"/>",
            i, px, py, 0.5 * LINK * cos(a), 0.5 * LINK * sin(a), cos(a / 2), sin(a / 2), MASS, AXIAL, It, It);
        if (i == N - 1) add(&b, &n, &cap, "<site name=\"tip\" pos=\"%.17g %.17g 0\"/>", LINK * cos(a), LINK * sin(a));
    }
    for (int i = 0; i < N; i++) add(&b, &n, &cap, "</body>");
    add(&b, &n, &cap, "</worldbody></mujoco>");
    return b;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s N STEP [T_END [REPEAT]]\n", argv[0]);
        return 2;
    }
    int N = atoi(argv[1]);
    double h = atof(argv[2]), T = argc > 3 ? atof(argv[3]) : 1.0;
    int repeat = argc > 4 ? atoi(argv[4]) : REPEAT;
    if (N < 1 || N > 100000 || !(h > 0) || !(T > 0) || repeat < 1 || repeat > 100) {
        fprintf(stderr, "mujoco_chain: N in 1..100000, STEP > 0, T_END > 0, REPEAT in 1..100\n");
        return 2;
    }
    mju_user_warning = quiet_warning;
    char *xml = chain_xml(N, h);
    mjModel *m = mj_bench_compile(xml, "mujoco_chain");
    free(xml);
    if (!m) return 1;
    mjData *d = mj_makeData(m);
    int site = mj_name2id(m, mjOBJ_SITE, "tip");
    long nstep = lround(T / h);
    double best = INFINITY, tip[3] = {0, 0, 0};
    for (int r = 0; r < repeat; r++) {
        mj_resetData(m, d);
        double t0 = mj_bench_now();
        for (long s = 0; s < nstep; s++) mj_step(m, d);
        best = fmin(best, mj_bench_now() - t0);
        mj_forward(m, d);
        for (int k = 0; k < 3; k++) tip[k] = d->site_xpos[3 * site + k];
    }
    printf("%d %.6g %ld %.6g %.15g %.15g %.15g\n", N, h, nstep, best, tip[0], tip[1], tip[2]);
    mj_deleteData(d);
    mj_deleteModel(m);
    return 0;
}
