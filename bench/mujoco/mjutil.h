/* bench/mujoco/mjutil.h - what the MuJoCo side-by-side programs generated
 * from our documents share (balls_box.c, chain.c): a monotonic clock and
 * compiling an MJCF text.  Header-only; needs _GNU_SOURCE (mkstemp,
 * clock_gettime) before the first include. */
#ifndef MJUTIL_H
#define MJUTIL_H

#include <mujoco/mujoco.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

/* Seconds of CLOCK_MONOTONIC. */
static inline double mj_bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Seconds of CPU time of the calling thread (MuJoCo 2.2 steps in one
 * thread): on a loaded machine the fairer figure beside our cpu_seconds. */
static inline double mj_bench_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The model of MJCF text xml (through a temporary file, removed), or NULL
 * with MuJoCo's reason on stderr after "prog: ". */
static inline mjModel *mj_bench_compile(const char *xml, const char *prog)
{
    char tmp[] = "/tmp/mujoco_bench_XXXXXX";
    int fd = mkstemp(tmp);
    if (fd < 0) return NULL;
    FILE *f = fdopen(fd, "w");
    if (!f) { close(fd); remove(tmp); return NULL; }
    fputs(xml, f);
    fclose(f);
    char err[1000] = "";
    mjModel *m = mj_loadXML(tmp, NULL, err, sizeof err);
    remove(tmp);
    if (!m) fprintf(stderr, "%s: MJCF rejected: %s\n", prog, err);
    return m;
}

#endif
