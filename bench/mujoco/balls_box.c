/* bench/mujoco/balls_box.c - MuJoCo 2.2 (Debian libmujoco-dev) on the scene of
 * one of our rigid-contact examples, for the side-by-side table of issue 14
 * (bench/contact_mujoco.sh runs it beside build/mbs in one run).
 *
 *   build/bench/mujoco_balls_box [examples/balls_in_box_100.json] [--xml FILE]
 *                                [--solvers PGS,CG,Newton] [--settings rn]
 *                                [--repeat K] [--tsv]
 *
 * The scene is read from our mechanism document (jansson), not retyped:
 * every body with one sphere shape becomes a free body with a sphere geom of
 * the same radius, mass, diagonal inertia, position and initial velocity;
 * every ground plane becomes a plane geom through the same point with the
 * same normal; gravity, the time step and t_end are the document's.  Contact
 * between the spheres and between a sphere and a plane, as in the example's
 * declared pairs; Coulomb friction mu of the example's contacts with a
 * pyramidal cone (ours is a pyramid too); no torsional or rolling friction.
 * MuJoCo's contacts are soft (solref = time constant, damping ratio); two
 * settings are measured: the restitution e of the example as the damping
 * ratio zeta of the contact spring, e = exp(-zeta pi / sqrt(1 - zeta^2))
 * (0.215 for e = 0.5), with a time constant of 5 steps (2 and 3 steps, the
 * stiffest MuJoCo allows, diverge with this little damping: NaN at t = 0.05
 * s); and critically damped contacts (ratio 1, no bounce) at the stiffest
 * time constant, 2 steps.  The contact buffer holds every pair that may
 * touch (a full buffer is reported as an error).  `--xml FILE` writes the
 * MJCF of the first setting.  `--solvers` and `--settings` (r: the
 * restitution setting, n: no bounce) choose the rows, `--repeat` the runs
 * per row (default 3), `--tsv` prints each row as tab-separated numbers for
 * scripts (bench/contact_linear.sh's MuJoCo columns): setting, solver,
 * steps, wall, CPU, contacts per step, max penetration, complementarity
 * error, energy at the end, diverged (1: NaN accelerations), the solver's
 * iterations per step (mean).
 *
 * For each setting and each of MuJoCo's solvers (PGS, CG, Newton; default
 * iterations and tolerance) with its default integrator (semi-implicit
 * Euler): wall and CPU time (of the stepping thread) of the whole run,
 * each the best of REPEAT, from the reset of the state to the last step
 * (model compilation excluded); the largest
 * penetration over the run (-dist of the deepest contact) and at the end;
 * mean contacts per step; the mean height of the balls and the total energy
 * at the end (checks that both codes settle the same pile: compare with
 * build/mbs's channel E at t_end).  MuJoCo's warnings are counted, not
 * written to MUJOCO_LOG.TXT. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* M_PI, clock_gettime, mkstemp */
#endif
#include <jansson.h>
#include <math.h>
#include <mujoco/mujoco.h>
#include "mjutil.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define REPEAT 3 /* runs per row unless --repeat */
#define MAXB 4096
#define MAXP 64

typedef struct { double m, I[3], c[3], v[3], r; } ball_t;
typedef struct { double p[3], n[3]; } plane_t;

static ball_t balls[MAXB];
static plane_t planes[MAXP];
static int nball, nplane;
static double grav[3], step, t_end, mu, rest;
static long nwarn;

static void quiet_warning(const char *msg)
{
    (void)msg;
    nwarn++;
}

static int vec3(json_t *a, double *out)
{
    if (!json_is_array(a) || json_array_size(a) != 3) return -1;
    for (int i = 0; i < 3; i++) {
        json_t *e = json_array_get(a, (size_t)i);
        if (!json_is_number(e)) return -1;
        out[i] = json_number_value(e);
    }
    return 0;
}

/* The ball of sphere shape s on body `body`: 0, or -1 when the body is
 * missing or its values are not plain numbers. */
static int load_ball(json_t *bodies, json_t *s, const char *body, ball_t *B)
{
    size_t j;
    json_t *b;
    json_array_foreach(bodies, j, b) {
        const char *name = json_string_value(json_object_get(b, "name"));
        if (!name || strcmp(name, body)) continue;
        memset(B, 0, sizeof *B);
        B->m = json_number_value(json_object_get(b, "mass"));
        B->r = json_number_value(json_object_get(s, "radius"));
        json_t *v = json_object_get(b, "velocity");
        if (vec3(json_object_get(b, "inertia"), B->I) || vec3(json_object_get(b, "com"), B->c) || (v && vec3(v, B->v)))
            return -1;
        return B->m > 0 && B->r > 0 ? 0 : -1;
    }
    return -1;
}

/* The scene of our document; -1 with a message when it is not a set of
 * spheres on free bodies and ground planes with numeric values. */
static int load_scene(const char *path)
{
    json_error_t err;
    json_t *root = json_load_file(path, 0, &err);
    if (!root) { fprintf(stderr, "mujoco_balls_box: %s: %s\n", path, err.text); return -1; }
    json_t *bodies = json_object_get(root, "bodies"), *shapes = json_object_get(root, "shapes");
    json_t *contacts = json_object_get(root, "contacts"), *solver = json_object_get(root, "solver");
    int rc = -1;
    if (!json_is_array(bodies) || !json_is_array(shapes) || !json_is_array(contacts) || !json_is_object(solver) ||
        vec3(json_object_get(root, "gravity"), grav)) {
        fprintf(stderr, "mujoco_balls_box: %s: needs bodies, shapes, contacts, solver and a 3-D gravity\n", path);
        goto out;
    }
    step = json_number_value(json_object_get(solver, "step"));
    t_end = json_number_value(json_object_get(solver, "t_end"));
    json_t *c0 = json_array_get(contacts, 0);
    mu = json_number_value(json_object_get(c0, "friction"));
    rest = json_number_value(json_object_get(c0, "restitution"));
    if (!(step > 0) || !(t_end > 0)) {
        fprintf(stderr, "mujoco_balls_box: %s: solver.step and solver.t_end needed\n", path);
        goto out;
    }
    size_t i;
    json_t *s;
    json_array_foreach(shapes, i, s) {
        const char *type = json_string_value(json_object_get(s, "type"));
        const char *body = json_string_value(json_object_get(s, "body"));
        int ok = type && body;
        if (ok && !strcmp(type, "plane") && !strcmp(body, "ground"))
            ok = nplane < MAXP && !vec3(json_object_get(s, "point"), planes[nplane].p) &&
                 !vec3(json_object_get(s, "normal"), planes[nplane].n) && ++nplane;
        else
            ok = ok && !strcmp(type, "sphere") && nball < MAXB && !load_ball(bodies, s, body, &balls[nball]) &&
                 ++nball;
        if (!ok) {
            fprintf(stderr, "mujoco_balls_box: %s: shape %zu is neither a sphere on a body with numeric mass, "
                    "inertia, com (and velocity) nor a ground plane\n", path, i);
            goto out;
        }
    }
    rc = 0;
out:
    json_decref(root);
    return rc;
}

/* The MJCF of the scene with MuJoCo solver `solver`, contact time constant
 * tc and damping ratio zeta (malloc'd). */
static char *write_mjcf(const char *solver, double tc, double zeta)
{
    size_t cap = 4096 + 400 * (size_t)(nball + nplane), n = 0;
    char *x = malloc(cap);
    if (!x) return NULL;
    int nmax = 8 * nball + 64; /* contacts: a ball touches at most ~12 balls and walls, 8 on average is ample */
    n += (size_t)snprintf(x + n, cap - n,
        "<mujoco model='balls_box'>\n"
        "  <option timestep='%.17g' gravity='%.17g %.17g %.17g' integrator='Euler' solver='%s' cone='pyramidal'>\n"
        "    <flag energy='enable'/>\n"
        "  </option>\n"
        "  <size nconmax='%d' njmax='%d'/>\n"
        "  <default><geom condim='3' friction='%.17g 0 0' solref='%.17g %.6f'/></default>\n"
        "  <worldbody>\n", step, grav[0], grav[1], grav[2], solver, nmax, 3 * nmax, mu, tc, zeta);
    for (int i = 0; i < nplane; i++)
        n += (size_t)snprintf(x + n, cap - n, "    <geom type='plane' size='0 0 1' pos='%.17g %.17g %.17g' "
                              "zaxis='%.17g %.17g %.17g'/>\n", planes[i].p[0], planes[i].p[1], planes[i].p[2],
                              planes[i].n[0], planes[i].n[1], planes[i].n[2]);
    for (int i = 0; i < nball; i++) {
        const ball_t *B = &balls[i];
        n += (size_t)snprintf(x + n, cap - n, "    <body pos='%.17g %.17g %.17g'><freejoint/>"
                              "<inertial pos='0 0 0' mass='%.17g' diaginertia='%.17g %.17g %.17g'/>"
                              "<geom type='sphere' size='%.17g'/></body>\n", B->c[0], B->c[1], B->c[2], B->m,
                              B->I[0], B->I[1], B->I[2], B->r);
    }
    snprintf(x + n, cap - n, "  </worldbody>\n</mujoco>\n");
    return x;
}

typedef struct { double wall, cpu, pen_max, pen_end, mean_con, mean_iter, mean_z, energy, ce, ce_n; int full, bad; } result_t;

/* The complementarity error of one step against the hard contact conditions,
 * in the definition of build/mbs's max_complementarity_error
 * (docs/contacts.md): the worst of w_n < 0, Lambda_n w_n, and stick (w_t = 0
 * inside the friction bound) or slip (Lambda_t w_t <= 0 on it), velocities
 * scaled by vscale (largest |qvel| component of a ball's translation, or of
 * its angular velocity times its radius, before and after the step), impulses by the largest normal impulse of the step
 * (at least the one that changes the most mobile row's velocity by vscale).
 * MuJoCo's pyramid has 2 (dim - 1) rows per contact on the edges n +- mu t_i
 * with forces f >= 0 and the constraint Jacobian of the step (efc_J, at the
 * positions before it): Lambda_n = h sum f, w_n = mean of the rows'
 * velocities J qvel after the step, Lambda_ti = h mu (f+ - f-), w_ti = (v+ -
 * v-) / (2 mu).  There is no restitution target (w_n is the plain normal
 * velocity; ours is Newton's gamma+ + e gamma-).  *cen: normal conditions
 * only.  jv: scratch of njmax numbers. */
static double compl_error(const mjModel *m, mjData *d, const double *qvel0, double *jv, double *cen)
{
    double vs = 0, lsc = 0, amax = 0, err = 0, en = 0;
    for (int i = 0; i < nball; i++)
        for (int k = 0; k < 6; k++) {
            double sc = k < 3 ? 1 : balls[i].r;
            vs = fmax(vs, sc * fmax(fabs(qvel0[6 * i + k]), fabs(d->qvel[6 * i + k])));
        }
    mj_mulJacVec(m, d, jv, d->qvel);
    for (int c = 0; c < d->ncon; c++) {
        int a = d->contact[c].efc_address, nr = 2 * (d->contact[c].dim - 1);
        if (a < 0 || nr < 2) continue;
        double f = 0;
        for (int r = 0; r < nr; r++) { f += d->efc_force[a + r]; amax = fmax(amax, d->efc_diagApprox[a + r]); }
        lsc = fmax(lsc, step * f);
    }
    if (amax > 0) lsc = fmax(lsc, vs / amax);
    if (!(vs > 0) || !(lsc > 0)) { *cen = 0; return 0; }
    for (int c = 0; c < d->ncon; c++) {
        int a = d->contact[c].efc_address, nr = 2 * (d->contact[c].dim - 1);
        if (a < 0 || nr < 2) continue;
        double ln = 0, wn = 0;
        for (int r = 0; r < nr; r++) { ln += step * d->efc_force[a + r]; wn += jv[a + r] / nr; }
        en = fmax(en, fmax(fmax(0, -wn) / vs, fabs(ln * wn) / (lsc * vs)));
        for (int t = 0; 2 * t + 1 < nr && mu > 0; t++) {
            double lt = step * mu * (d->efc_force[a + 2 * t] - d->efc_force[a + 2 * t + 1]);
            double wt = (jv[a + 2 * t] - jv[a + 2 * t + 1]) / (2 * mu), hi = mu * ln;
            if (fabs(lt) < hi * (1 - 1e-6)) err = fmax(err, fabs(wt) / vs);
            else err = fmax(err, fmax(0, lt * wt) / (lsc * vs));
        }
    }
    *cen = en;
    return fmax(err, en);
}

/* One run from the initial state; with measure (an untimed run) also the
 * complementarity error of every step. */
static void run(const mjModel *m, mjData *d, result_t *r, int measure)
{
    double *qv0 = measure ? malloc(sizeof(double) * (size_t)m->nv) : NULL;
    double *jv = measure ? malloc(sizeof(double) * (size_t)(m->njmax > 0 ? m->njmax : 1)) : NULL;
    r->ce = r->ce_n = 0;
    mj_resetData(m, d);
    for (int i = 0; i < nball; i++)
        for (int k = 0; k < 3; k++) d->qvel[6 * i + k] = balls[i].v[k];
    int nstep = (int)llround(t_end / step);
    double t0 = mj_bench_now(), c0 = mj_bench_cpu(), pen = 0, con = 0, iter = 0;
    for (int s = 0; s < nstep; s++) {
        if (measure) memcpy(qv0, d->qvel, sizeof(double) * (size_t)m->nv);
        mj_step(m, d);
        con += d->ncon;
        iter += d->solver_iter;
        if (measure) {
            double en, e = compl_error(m, d, qv0, jv, &en);
            r->ce = fmax(r->ce, e);
            r->ce_n = fmax(r->ce_n, en);
        }
        for (int c = 0; c < d->ncon; c++) pen = fmax(pen, -d->contact[c].dist);
    }
    r->wall = mj_bench_now() - t0;
    r->cpu = mj_bench_cpu() - c0;
    r->pen_max = pen;
    r->pen_end = 0;
    for (int c = 0; c < d->ncon; c++) r->pen_end = fmax(r->pen_end, -d->contact[c].dist);
    r->mean_con = con / nstep;
    r->mean_iter = iter / nstep;
    double z = 0;
    for (int i = 0; i < nball; i++) z += d->qpos[7 * i + 2];
    r->mean_z = z / nball;
    r->energy = d->energy[0] + d->energy[1];
    r->bad = d->warning[mjWARN_BADQACC].number;
    r->full = d->warning[mjWARN_CONTACTFULL].number + d->warning[mjWARN_CNSTRFULL].number;
    free(qv0);
    free(jv);
}

int main(int argc, char **argv)
{
    const char *path = "examples/balls_in_box_100.json", *xml_out = NULL, *solv = "PGS,CG,Newton", *sets = "rn";
    int repeat = REPEAT, tsv = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--xml") && i + 1 < argc) xml_out = argv[++i];
        else if (!strcmp(argv[i], "--solvers") && i + 1 < argc) solv = argv[++i];
        else if (!strcmp(argv[i], "--settings") && i + 1 < argc) sets = argv[++i];
        else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--tsv")) tsv = 1;
        else if (argv[i][0] == '-') {
            fprintf(stderr, "mujoco_balls_box: unknown option %s (--xml FILE, --solvers PGS,CG,Newton, "
                    "--settings rn, --repeat K, --tsv)\n", argv[i]);
            return 2;
        } else path = argv[i];
    }
    if (repeat < 1 || strspn(sets, "rn") != strlen(sets) || !*sets) {
        fprintf(stderr, "mujoco_balls_box: --repeat needs a count >= 1 and --settings letters r, n\n");
        return 2;
    }
    /* every name of --solvers one of MuJoCo's three */
    for (const char *t = solv;;) {
        size_t ln = strcspn(t, ",");
        if (!((ln == 3 && !strncmp(t, "PGS", 3)) || (ln == 2 && !strncmp(t, "CG", 2)) ||
              (ln == 6 && !strncmp(t, "Newton", 6)))) {
            fprintf(stderr, "mujoco_balls_box: --solvers takes PGS, CG, Newton separated by commas, not '%s'\n", solv);
            return 2;
        }
        if (!t[ln]) break;
        t += ln + 1;
    }
    mju_user_warning = quiet_warning;
    if (load_scene(path)) return 1;
    double L = log(rest > 0 && rest < 1 ? rest : 0.5), zeta_e = -L / sqrt(M_PI * M_PI + L * L);
    if (!tsv) {
        printf("MuJoCo %s on %s: %d spheres, %d planes, h = %g s, t_end = %g s, mu = %g (pyramid), semi-implicit "
               "Euler; best of %d runs\n\n", mj_versionString(), path, nball, nplane, step, t_end, mu, repeat);
        printf("| MuJoCo contacts | solver | wall (s) | CPU (s) | contacts / step | max penetration (m) | penetration "
               "at end (m) | complementarity error (normal only) | mean ball height at end (m) | energy at end (J) |\n"
               "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    }
    const char *solvers[] = {"PGS", "CG", "Newton"};
    struct { double tc, zeta; char label[80]; } set[2];
    set[0].tc = 5 * step;
    set[0].zeta = zeta_e;
    snprintf(set[0].label, sizeof set[0].label, "restitution %g: solref %g %.3f", rest, set[0].tc, zeta_e);
    set[1].tc = 2 * step;
    set[1].zeta = 1;
    snprintf(set[1].label, sizeof set[1].label, "no bounce: solref %g 1", set[1].tc);
    int rc = 0;
    for (int c = 0; c < 2; c++)
        for (int k = 0; k < 3; k++) {
            /* the rows asked for: the setting's letter, the solver's name in the list */
            if (!strchr(sets, "rn"[c])) continue;
            const char *hit = strstr(solv, solvers[k]);
            size_t ln = strlen(solvers[k]);
            if (!hit || (hit > solv && hit[-1] != ',') || (hit[ln] && hit[ln] != ',')) continue;
            char *xml = write_mjcf(solvers[k], set[c].tc, set[c].zeta);
            if (!xml) return 1;
            if (xml_out && c == 0 && k == 0) {
                FILE *f = fopen(xml_out, "w");
                if (f) { fputs(xml, f); fclose(f); }
            }
            mjModel *m = mj_bench_compile(xml, "mujoco_balls_box");
            free(xml);
            if (!m) return 1;
            mjData *d = mj_makeData(m);
            result_t best = {0}, r;
            double cpu = 0;
            for (int rep = 0; rep < repeat; rep++) {
                run(m, d, &r, 0);
                if (rep == 0 || r.wall < best.wall) best = r;
                if (rep == 0 || r.cpu < cpu) cpu = r.cpu;
            }
            /* the complementarity error from one more, untimed run */
            run(m, d, &r, 1);
            if (tsv)
                printf("%c\t%s\t%lld\t%.6f\t%.6f\t%.2f\t%.6e\t%.6e\t%.6f\t%d\t%.2f\n", "rn"[c], solvers[k],
                       llround(t_end / step), best.wall, cpu, best.mean_con, best.pen_max, r.ce, best.energy,
                       best.bad, best.mean_iter);
            else printf("| %s | %s | %.3f | %.3f | %.0f | %.2e | %.2e | %.2e (%.2e) | %.4f | %.4f |%s\n", set[c].label, solvers[k],
                   best.wall, cpu, best.mean_con, best.pen_max, best.pen_end, r.ce, r.ce_n, best.mean_z, best.energy,
                   best.bad ? " diverged (NaN accelerations)" : "");
            if (best.full) {
                fprintf(stderr, "mujoco_balls_box: %s: MuJoCo's contact buffer was full (%d warnings)\n",
                        solvers[k], best.full);
                rc = 1;
            }
            mj_deleteData(d);
            mj_deleteModel(m);
        }
    return rc;
}
