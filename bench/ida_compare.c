/*
 * ida_compare.c - SUNDIALS IDA side by side with our BDF on the same
 * equations (issue 9, item 6): a work-precision table.
 *
 * Both integrators solve the stabilised index-2 GGL form of the library's
 * natural-coordinate model,
 *
 *     F1 = q' - v - Phi_q^T mu          = 0   (differential)
 *     F2 = M v' + Phi_q^T lam - Q(q,v,t) = 0   (differential)
 *     F3 = Phi(q, t)                    = 0   (algebraic: lam)
 *     F4 = Phi_q v + Phi_t              = 0   (algebraic: mu)
 *
 * ours with mbs_simulate (solver.integrator = bdf), IDA with the residual
 * above written from the library's own functions (mbs_cons_eval,
 * mbs_cons_phit, mbs_cons_jv, mbs_cons_jtl, mbs_mass_mul, mbs_force_eval),
 * lam and mu marked algebraic (IDASetId) and left out of the error test
 * (IDASetSuppressAlg).  The model and the consistent initial state come from
 * the normal path (mech_parse, mbs_model_new, mbs_data_new, mbs_initialize):
 * y = (q, v, lam, mu = 0), y' = (v, a, 0, 0).
 *
 * IDA's Jacobian dF/dy + c_j dF/dy' is the library's own GGL Newton matrix
 * (mbs_ggl_emit, the matrix our BDF factorises) with its rows and columns
 * unscaled: the same analytic blocks (M, Phi_q, the constraint Hessian
 * weighted by lam, the position derivative of Phi_q v, finite-difference
 * force stiffness and damping), only the Hessian of Phi_q^T mu left out,
 * as in ours.  The unknowns are stored in the model's reverse Cuthill-McKee
 * order of that matrix, so that IDA's band solver can be used whenever the
 * band (2 x half-band + 1) is narrower than the matrix, the dense solver
 * otherwise (--dense / --band force one; --dq uses IDA's difference-quotient
 * Jacobian instead of ours).  Environment: IDA_COMPARE_VERBOSE=1 prints
 * IDA's failure counts per run; IDA_ALG_SCALE=f multiplies the algebraic
 * weights (a sensitivity check: 1e-3 to 1e6 changed little).
 *
 * Tolerances: the same relative tolerance; absolute ones as our BDF derives
 * them (accuracy.h): rtol x L for positions (L the model's length scale),
 * rtol x V for velocities (V the largest |v| seen so far, at least L/t_end),
 * given to IDA through a weight function (IDAWFtolerances).  The algebraic
 * weights (which only enter IDA's Newton test) are those of our BDF's
 * Newton test: lam with M-scale x (rtol L + atol_x) / h + rtol |lam|, mu
 * with (rtol L + atol_x) / h + rtol |mu|.  With --atol fixed both
 * integrators get solver.abs_tolerance = rtol x L for positions and
 * velocities alike.  Both use the same maximum step (solver.max_step, else
 * the output interval) and initial step (solver.step).
 *
 * Errors: the largest |value - reference| of the position-level channels
 * (positions, angles, joint coordinates) at the reference times of
 * tests/reference/<example>.json, over the span up to the last of them;
 * velocity-level channels in a second column.  Channels are evaluated on
 * the example's output grid (joint angles are unwrapped from sample to
 * sample) with the library's output code (mbs_channel_value); IDA's state
 * at a sample time is its own interpolant (IDASolve in IDA_NORMAL mode,
 * stop time t_end).  Work: steps, residual evaluations (ours: one per
 * Newton iteration), Jacobian evaluations, factorisations, rejected steps
 * (IDA: error-test plus convergence failures), CPU time of the whole run
 * from mbs_initialize on (median of --repeat runs, 3 by default).
 *
 * Usage (from the repository root):
 *   build/bench/ida_compare [--quick] [--repeat N] [--atol derived|fixed] [--dense|--band] [--dq]
 *                           [--tols 1e-3,1e-4,...] [--csv FILE] [example ...]
 * Prints a markdown table and writes the same rows as CSV (default: next to
 * the program, build/bench/ida_compare.csv).
 */
#include "mbs/mbs.h"
#include "mbs/model/data.h"
#include "mbs/model/model.h"
#include "mbs/output/output.h"
#include "mbs/analysis/system.h"
#include "mechanism/mechanism.h"
#include "../tests/unit/testutil.h" /* t_slurp, t_sets_parse */

#include <ida/ida.h>
#include <nvector/nvector_serial.h>
#include <sunlinsol/sunlinsol_band.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_band.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXREF 64
#define MAXREP 9

static const char *const DEFAULT_EXAMPLES[] = {"iftomm_a03_andrews", "iftomm_a02_four_bar_n2",
                                               "iftomm_a02_four_bar_n40", "iftomm_spatial_slider_crank", NULL};

/* ---- options ------------------------------------------------------------------------------ */

static struct {
    int repeat, fixed_atol, dense, band, dq;
    double tols[16];
    int ntol;
} O = {3, 0, 0, 0, 0, {1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10}, 8};

static double s_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- reference values ---------------------------------------------------------------------- */

typedef struct {
    double t, value;
    int channel; /* index into the spec's channels */
    int level;   /* 0 position, 1 velocity          */
} s_ref;

typedef struct {
    const char *name;
    char *text;
    s_ref ref[MAXREF];
    int nref;
    double T; /* last reference time of a position-level channel */
    int nvel; /* velocity-level references */
} s_case;

static int s_level(mbs_quantity q)
{
    if (q == MBS_Q_POSITION || q == MBS_Q_ANGLE || q == MBS_Q_JOINT_COORDINATE || q == MBS_Q_ORIENTATION) return 0;
    if (q == MBS_Q_VELOCITY || q == MBS_Q_ANGULAR_VELOCITY) return 1;
    return -1;
}

/* Parse a mechanism with overrides "NAME=VALUE" (NULL terminated). */
static mbs_spec *s_parse(const char *text, const char *const *sets, mbs_errlist *err)
{
    t_sets ts;
    t_sets_parse(&ts, sets);
    memset(err, 0, sizeof *err);
    return mech_parse(text, strlen(text), ts.ov, ts.n, err);
}

static int s_load_case(const char *name, s_case *c)
{
    memset(c, 0, sizeof *c);
    c->name = name;
    char path[512];
    snprintf(path, sizeof path, "examples/%.200s.json", name);
    c->text = t_slurp(path, NULL);
    if (!c->text) { fprintf(stderr, "ida_compare: cannot read %s (run from the repository root)\n", path); return -1; }
    mbs_errlist el;
    const char *none[] = {NULL};
    mbs_spec *sp = s_parse(c->text, none, &el);
    if (!sp) { fprintf(stderr, "ida_compare: %s does not parse\n", path); return -1; }
    snprintf(path, sizeof path, "tests/reference/%.200s.json", name);
    json_error_t je;
    json_t *refs = json_load_file(path, 0, &je);
    if (!refs || !json_is_array(refs)) { fprintf(stderr, "ida_compare: cannot read %s\n", path); mbs_spec_free(&sp); return -1; }
    size_t i;
    json_t *e;
    json_array_foreach(refs, i, e) {
        json_t *t = json_object_get(e, "t");
        const char *ch = json_string_value(json_object_get(e, "channel"));
        if (!json_is_number(t) || !ch || c->nref >= MAXREF) continue;
        for (int k = 0; k < sp->nchannel; k++) {
            if (strcmp(sp->channels[k].name, ch)) continue;
            int lv = s_level(sp->channels[k].quantity);
            if (lv < 0) break;
            s_ref *r = &c->ref[c->nref++];
            r->t = json_number_value(t);
            r->value = json_number_value(json_object_get(e, "value"));
            r->channel = k;
            r->level = lv;
            if (lv == 0 && r->t > c->T) c->T = r->t;
            break;
        }
    }
    json_decref(refs);
    mbs_spec_free(&sp);
    /* velocity references beyond the last position reference are dropped */
    int k = 0;
    for (int j = 0; j < c->nref; j++)
        if (c->ref[j].t <= c->T * (1 + 1e-12)) c->ref[k++] = c->ref[j];
    c->nref = k;
    for (int j = 0; j < c->nref; j++) c->nvel += c->ref[j].level;
    return c->T > 0 ? 0 : -1;
}

/* ---- one measured run --------------------------------------------------------------------- */

typedef struct {
    int ok;
    char why[200];
    double err_pos, err_vel;
    long steps, rejected, res_evals, newton, jac_evals, factorizations;
    int order_max;
    double cpu, atol_x;
    const char *ls; /* linear solver */
} s_stat;

/* Errors of one run from channel values on the sample grid: val[k][j] is
 * reference j's channel at sample k. */
static void s_errors(const s_case *c, double interval, int nsample, double (*timeof)(void *, int), void *ctx,
                     double (*valueof)(void *, int, int), s_stat *st)
{
    st->err_pos = st->err_vel = 0;
    for (int j = 0; j < c->nref; j++) {
        int best = -1;
        for (int k = 0; k < nsample; k++)
            if (fabs(timeof(ctx, k) - c->ref[j].t) <= 1e-9 * (1 + c->ref[j].t)) { best = k; break; }
        double e = best < 0 ? NAN : fabs(valueof(ctx, best, c->ref[j].channel) - c->ref[j].value);
        double *dst = c->ref[j].level ? &st->err_vel : &st->err_pos;
        if (!(e <= *dst)) *dst = e;
    }
    (void)interval;
}

/* ---- ours: mbs_simulate with solver.integrator = bdf -------------------------------------- */

typedef struct { const mbs_result *res; } s_resctx;
static double s_res_time(void *ctx, int k) { const mbs_result *r = ((s_resctx *)ctx)->res; return r->rows[(size_t)k * (1 + r->nchannel)]; }
static double s_res_value(void *ctx, int k, int ch)
{
    const mbs_result *r = ((s_resctx *)ctx)->res;
    return r->rows[(size_t)k * (1 + r->nchannel) + 1 + ch];
}

static void s_run_ours(const s_case *c, double rtol, double L, s_stat *st)
{
    char stol[64], stend[64];
    snprintf(stol, sizeof stol, "solver.tolerance=%.17g", rtol);
    snprintf(stend, sizeof stend, "solver.t_end=%.17g", c->T);
    const char *sets[] = {"solver.integrator=bdf", stol, stend, NULL};
    mbs_errlist el;
    mbs_spec *sp = s_parse(c->text, sets, &el);
    memset(st, 0, sizeof *st);
    st->ls = "banded LU (own)";
    if (!sp) { snprintf(st->why, sizeof st->why, "parse failed"); return; }
    /* the example's own abs_tolerance (N = 40 sets 1e-9) would make the two
     * integrators' tolerances differ: 0 = derived from rtol (accuracy.h) */
    sp->solver.abs_tolerance = O.fixed_atol ? rtol * L : 0;
    mbs_model *m = mbs_model_new(sp, NULL, &el);
    if (!m) { snprintf(st->why, sizeof st->why, "model failed"); mbs_spec_free(&sp); return; }
    double cpu[MAXREP];
    for (int r = 0; r < O.repeat; r++) {
        mbs_data *d = mbs_data_new(m);
        mbs_result res;
        mbs_metrics met;
        memset(&el, 0, sizeof el);
        int rc = mbs_simulate(m, d, &res, &met, NULL, NULL, &el);
        cpu[r] = met.cpu_seconds;
        if (r == O.repeat - 1) {
            st->ok = rc == 0;
            if (rc) snprintf(st->why, sizeof st->why, "%.190s", el.n ? el.e[0].message : mbs_strerror(rc));
            s_resctx ctx = {&res};
            s_errors(c, 0, res.nsample, s_res_time, &ctx, s_res_value, st);
            st->steps = met.steps;
            st->rejected = met.rejected_steps;
            st->newton = met.newton_iterations;
            st->res_evals = met.newton_iterations; /* one residual per Newton iteration */
            st->jac_evals = met.jacobian_evaluations;
            st->factorizations = met.factorizations;
            st->order_max = met.order_max_used;
            st->atol_x = met.abs_tolerance;
        }
        mbs_result_free(&res);
        mbs_data_free(&d);
    }
    /* median */
    for (int a = 1; a < O.repeat; a++)
        for (int b = a; b > 0 && cpu[b - 1] > cpu[b]; b--) { double t = cpu[b]; cpu[b] = cpu[b - 1]; cpu[b - 1] = t; }
    st->cpu = cpu[O.repeat / 2];
    mbs_model_free(&m);
    mbs_spec_free(&sp);
}

/* ---- IDA on the same GGL equations -------------------------------------------------------- */

typedef struct {
    const mbs_model *m;
    mbs_data *d;
    void *mem;
    int n, ne, N;
    double rtol, atol_x, atol_v, L, vscale, h0;
    double *yn, *ypn, *rn, *l;  /* node-order work vectors, multiplier scratch */
    int band, bw;
    double cj;
    SUNMatrix J;
    long out_of_band;
} s_ida;

/* y in IDA's order (RCM of the GGL matrix) -> node order */
static void s_gather_nodes(const s_ida *u, const double *y, double *yn)
{
    for (int p = 0; p < u->N; p++) yn[u->m->gperm[p]] = y[p];
}

static int s_res(realtype t, N_Vector yy, N_Vector yp, N_Vector rr, void *user)
{
    s_ida *u = user;
    const mbs_model *m = u->m;
    mbs_data *d = u->d;
    int n = u->n, ne = u->ne;
    s_gather_nodes(u, N_VGetArrayPointer(yy), u->yn);
    s_gather_nodes(u, N_VGetArrayPointer(yp), u->ypn);
    const double *q = u->yn, *v = u->yn + n, *lam = u->yn + 2 * n, *mu = u->yn + 2 * n + ne;
    const double *qd = u->ypn, *vd = u->ypn + n;
    double *F1 = u->rn, *F2 = u->rn + n, *F3 = u->rn + 2 * n, *F4 = u->rn + 2 * n + ne;
    mbs_cons_eval(m, q, t, d->phi, d->jac);
    mbs_cons_phit(m, q, t, d->phit);
    /* F1 = q' - v - Phi_q^T mu */
    for (int i = 0; i < n; i++) F1[i] = qd[i] - v[i];
    for (int r = 0; r < ne; r++) u->l[r] = d->eq_on[r] ? -mu[r] : 0;
    mbs_cons_jtl(m, d->jac, u->l, F1);
    /* F2 = M v' + Phi_q^T lam - Q */
    mbs_force_eval(m, d, q, v, t, d->Q);
    mbs_mass_mul(m, vd, F2);
    for (int i = 0; i < n; i++) F2[i] -= d->Q[i];
    for (int r = 0; r < ne; r++) u->l[r] = d->eq_on[r] ? lam[r] : 0;
    mbs_cons_jtl(m, d->jac, u->l, F2);
    /* F3 = Phi, F4 = Phi_q v + Phi_t; equations removed as redundant pin
     * their multipliers to 0 */
    mbs_cons_jv(m, d->jac, v, F4);
    for (int r = 0; r < ne; r++) {
        if (d->eq_on[r]) {
            F3[r] = d->phi[r];
            F4[r] += d->phit[r];
        } else {
            F3[r] = lam[r];
            F4[r] = mu[r];
        }
    }
    double *out = N_VGetArrayPointer(rr);
    for (int p = 0; p < u->N; p++) out[p] = u->rn[m->gperm[p]];
    for (int p = 0; p < u->N; p++)
        if (!isfinite(out[p])) return 1; /* recoverable: IDA cuts the step */
    return 0;
}

/* Entry of the library's GGL matrix (node i, node j, value for the BDF
 * weight w0 = c_j) -> IDA's Jacobian: rows of F1, F2 times c_j, columns of
 * active multipliers divided by c_j (the GGL matrix has F1, F2 divided by
 * w0 and lam/w0, mu/w0 as unknowns). */
static void s_jac_add(void *ctx, int i, int j, double val)
{
    s_ida *u = ctx;
    int n = u->n, ne = u->ne;
    if (i < 2 * n) val *= u->cj;
    if (j >= 2 * n) {
        int r = j < 2 * n + ne ? j - 2 * n : j - 2 * n - ne;
        if (u->d->eq_on[r]) val /= u->cj;
    }
    int pi = u->m->giperm[i], pj = u->m->giperm[j];
    if (u->band) {
        if (pi - pj > u->bw || pj - pi > u->bw) { u->out_of_band++; return; }
        SM_ELEMENT_B(u->J, pi, pj) += val;
    } else {
        SM_ELEMENT_D(u->J, pi, pj) += val;
    }
}

static int s_jac(realtype t, realtype cj, N_Vector yy, N_Vector yp, N_Vector rr, SUNMatrix J, void *user,
                 N_Vector t1, N_Vector t2, N_Vector t3)
{
    s_ida *u = user;
    const mbs_model *m = u->m;
    mbs_data *d = u->d;
    int n = u->n, ne = u->ne;
    s_gather_nodes(u, N_VGetArrayPointer(yy), u->yn);
    const double *q = u->yn, *v = u->yn + n;
    memcpy(d->lam, u->yn + 2 * n, sizeof(double) * (size_t)ne); /* the Hessian is weighted by d->lam */
    mbs_cons_eval(m, q, t, d->phi, d->jac);
    SUNMatZero(J);
    u->J = J;
    u->cj = cj;
    mbs_ggl_emit(m, d, cj, q, v, t, 1, s_jac_add, u, NULL);
    return 0;
}

/* Error weights (IDAWFtolerances): as our BDF (see the file header). */
static int s_ewt(N_Vector yy, N_Vector ewt, void *user)
{
    s_ida *u = user;
    int n = u->n, ne = u->ne;
    const double *y = N_VGetArrayPointer(yy);
    double *w = N_VGetArrayPointer(ewt);
    s_gather_nodes(u, y, u->yn);
    if (!O.fixed_atol) {
        double vm = 0;
        for (int i = 0; i < n; i++) vm = fmax(vm, fabs(u->yn[n + i]));
        if (vm > u->vscale && isfinite(vm)) { u->vscale = vm; u->atol_v = u->rtol * vm; }
    }
    double h = 0;
    if (u->mem) IDAGetCurrentStep(u->mem, &h);
    if (!(h > 0)) h = u->h0;
    static double alg_scale = -1;
    if (alg_scale < 0) alg_scale = getenv("IDA_ALG_SCALE") ? atof(getenv("IDA_ALG_SCALE")) : 1.0;
    double wq = alg_scale * (u->atol_x + u->rtol * u->L) / h, wl = u->m->mass_scale * wq;
    for (int p = 0; p < u->N; p++) {
        int k = u->m->gperm[p];
        double a = fabs(y[p]), s;
        if (k < n) s = u->atol_x + u->rtol * a;
        else if (k < 2 * n) s = u->atol_v + u->rtol * a;
        else if (k < 2 * n + ne) s = wl + u->rtol * a;
        else s = wq + u->rtol * a;
        if (!(s > 0)) return -1;
        w[p] = 1.0 / s;
    }
    return 0;
}

typedef struct {
    double *t, *val; /* nsample, nsample x nchannel (channels of the references only) */
    int nchannel;
} s_samples;
static double s_smp_time(void *ctx, int k) { return ((s_samples *)ctx)->t[k]; }
static double s_smp_value(void *ctx, int k, int ch)
{
    s_samples *s = ctx;
    return s->val[(size_t)k * s->nchannel + ch];
}

#define IDA_TRY(call) do { int f_ = (call); if (f_ < 0) { snprintf(st->why, sizeof st->why, "%s: %s", #call, IDAGetReturnFlagName(f_)); goto out; } } while (0)

static int s_ida_once(const s_case *c, const mbs_model *m, double rtol, s_stat *st, int last, SUNContext sctx)
{
    const mbs_spec *sp = m->spec;
    int n = m->nvar, ne = m->neq, N = m->nggl;
    mbs_data *d = mbs_data_new(m);
    s_ida u = {0};
    N_Vector yy = NULL, yp = NULL, id = NULL;
    SUNMatrix A = NULL;
    SUNLinearSolver LS = NULL;
    void *mem = NULL;
    mbs_sampler smp;
    memset(&smp, 0, sizeof smp);
    s_samples out = {0};
    int ok = 0;
    double cpu0 = s_cpu();
    mbs_errlist el = {0};
    if (!d) { snprintf(st->why, sizeof st->why, "out of memory"); goto out; }
    if (mbs_initialize(m, d, NULL, &el)) { snprintf(st->why, sizeof st->why, "initialisation: %.160s", el.n ? el.e[0].message : "?"); goto out; }
    if (mbs_sampler_init(&smp, m, d, NULL)) { snprintf(st->why, sizeof st->why, "sampler"); goto out; }
    u.m = m; u.d = d; u.n = n; u.ne = ne; u.N = N;
    u.rtol = rtol;
    u.L = m->length_scale > 0 ? m->length_scale : 1.0;
    u.atol_x = rtol * u.L;
    u.vscale = u.L / sp->solver.t_end;
    u.atol_v = O.fixed_atol ? u.atol_x : rtol * u.vscale;
    u.h0 = sp->solver.step > 0 ? sp->solver.step : 1e-3;
    u.yn = calloc((size_t)N, sizeof(double));
    u.ypn = calloc((size_t)N, sizeof(double));
    u.rn = calloc((size_t)N, sizeof(double));
    u.l = calloc((size_t)(ne > 0 ? ne : 1), sizeof(double));
    int nch = sp->nchannel;
    out.nchannel = nch;
    out.t = calloc((size_t)smp.nsample, sizeof(double));
    out.val = calloc((size_t)smp.nsample * (size_t)(nch > 0 ? nch : 1), sizeof(double));
    yy = N_VNew_Serial(N, sctx);
    yp = N_VNew_Serial(N, sctx);
    id = N_VNew_Serial(N, sctx);
    if (!u.yn || !u.ypn || !u.rn || !u.l || !out.t || !out.val || !yy || !yp || !id) { snprintf(st->why, sizeof st->why, "out of memory"); goto out; }
    /* consistent initial values: (q, v, lam, mu = 0), (v, a, 0, 0) */
    double *y0 = N_VGetArrayPointer(yy), *yp0 = N_VGetArrayPointer(yp), *idv = N_VGetArrayPointer(id);
    for (int p = 0; p < N; p++) {
        int k = m->gperm[p];
        if (k < n) { y0[p] = d->x[k]; yp0[p] = d->v[k]; idv[p] = 1; }
        else if (k < 2 * n) { y0[p] = d->v[k - n]; yp0[p] = d->a[k - n]; idv[p] = 1; }
        else if (k < 2 * n + ne) { y0[p] = d->eq_on[k - 2 * n] ? d->lam[k - 2 * n] : 0; yp0[p] = 0; idv[p] = 0; }
        else { y0[p] = 0; yp0[p] = 0; idv[p] = 0; }
    }
    /* which linear solver: band when the GGL band is narrow */
    int bw = m->gkl > m->gku ? m->gkl : m->gku;
    u.band = O.band || (!O.dense && 2 * bw + 1 < N); /* IDA's dense solves cost 2 N^2 each */
    u.bw = bw;
    mem = IDACreate(sctx);
    if (!mem) { snprintf(st->why, sizeof st->why, "IDACreate failed"); goto out; }
    u.mem = mem;
    IDASetErrFile(mem, NULL);
    IDA_TRY(IDAInit(mem, s_res, 0.0, yy, yp));
    IDA_TRY(IDASetUserData(mem, &u));
    IDA_TRY(IDAWFtolerances(mem, s_ewt));
    IDA_TRY(IDASetId(mem, id));
    IDA_TRY(IDASetSuppressAlg(mem, SUNTRUE));
    A = u.band ? SUNBandMatrix(N, bw, bw, sctx) : SUNDenseMatrix(N, N, sctx);
    LS = u.band ? SUNLinSol_Band(yy, A, sctx) : SUNLinSol_Dense(yy, A, sctx);
    if (!A || !LS) { snprintf(st->why, sizeof st->why, "matrix / linear solver"); goto out; }
    IDA_TRY(IDASetLinearSolver(mem, LS, A));
    if (!O.dq) IDA_TRY(IDASetJacFn(mem, s_jac));
    IDA_TRY(IDASetMaxStep(mem, sp->solver.max_step > 0 ? sp->solver.max_step : smp.interval));
    IDA_TRY(IDASetInitStep(mem, u.h0));
    IDA_TRY(IDASetMaxNumSteps(mem, 10000000L));
    IDA_TRY(IDASetStopTime(mem, sp->solver.t_end));
    st->ls = u.band ? (O.dq ? "IDA band, DQ Jacobian" : "IDA band") : (O.dq ? "IDA dense, DQ Jacobian" : "IDA dense");
    st->atol_x = u.atol_x;
    /* samples: t = 0 from the initial state, then IDA's interpolant */
    double *ys = N_VGetArrayPointer(yy), *yps = N_VGetArrayPointer(yp);
    int ns = 0;
    ok = 1;
    for (int k = 0; k < smp.nsample; k++) {
        double ts = mbs_sample_time(&smp, k), tret = 0;
        if (k > 0) {
            int flag = IDASolve(mem, ts, &tret, yy, yp, IDA_NORMAL);
            if (flag < 0) {
                snprintf(st->why, sizeof st->why, "IDASolve failed at t = %.6g: %s", tret, IDAGetReturnFlagName(flag));
                ok = 0;
                break;
            }
        }
        s_gather_nodes(&u, ys, u.yn);
        s_gather_nodes(&u, yps, u.ypn);
        out.t[ns] = ts;
        for (int r = 0; r < c->nref; r++) {
            int ch = c->ref[r].channel;
            /* every referenced channel at every sample (angles unwrap from
             * sample to sample); once per channel */
            int first = 1;
            for (int q2 = 0; q2 < r; q2++) if (c->ref[q2].channel == ch) first = 0;
            if (first)
                out.val[(size_t)ns * nch + ch] = mbs_channel_value(&smp, ch, ts, u.yn, u.yn + n, u.ypn + n);
        }
        ns++;
    }
    st->cpu = s_cpu() - cpu0;
    if (last) {
        st->ok = ok;
        s_errors(c, smp.interval, ns, s_smp_time, &out, s_smp_value, st);
        long nst = 0, nre = 0, nje = 0, nni = 0, netf = 0, ncfn = 0, nsetups = 0, nreLS = 0;
        IDAGetNumSteps(mem, &nst);
        IDAGetNumResEvals(mem, &nre);
        IDAGetNumJacEvals(mem, &nje);
        IDAGetNumLinResEvals(mem, &nreLS);
        IDAGetNumNonlinSolvIters(mem, &nni);
        IDAGetNumErrTestFails(mem, &netf);
        IDAGetNumNonlinSolvConvFails(mem, &ncfn);
        IDAGetNumLinSolvSetups(mem, &nsetups);
        st->steps = nst;
        st->res_evals = nre + nreLS;
        st->jac_evals = nje;
        st->newton = nni;
        st->rejected = netf + ncfn;
        st->factorizations = nsetups;
        if (getenv("IDA_COMPARE_VERBOSE")) {
            int kl = 0;
            IDAGetLastOrder(mem, &kl);
            fprintf(stderr, "  IDA rtol %.0e: steps %ld, error-test failures %ld, Newton convergence failures %ld, "
                            "Newton iterations %ld, residuals %ld (+%ld DQ), last order %d\n", rtol, nst, netf, ncfn, nni,
                    nre, nreLS, kl);
        }
        if (u.out_of_band) {
            st->ok = 0;
            snprintf(st->why, sizeof st->why, "%ld Jacobian entries outside the band", u.out_of_band);
        }
    }
out:
    if (mem) IDAFree(&mem);
    if (LS) SUNLinSolFree(LS);
    if (A) SUNMatDestroy(A);
    if (yy) N_VDestroy(yy);
    if (yp) N_VDestroy(yp);
    if (id) N_VDestroy(id);
    free(u.yn); free(u.ypn); free(u.rn); free(u.l);
    free(out.t); free(out.val);
    if (smp.m) mbs_sampler_free(&smp);
    mbs_data_free(&d);
    return ok ? 0 : -1;
}

static void s_run_ida(const s_case *c, double rtol, s_stat *st, SUNContext sctx)
{
    char stol[64], stend[64];
    snprintf(stol, sizeof stol, "solver.tolerance=%.17g", rtol);
    snprintf(stend, sizeof stend, "solver.t_end=%.17g", c->T);
    /* integrator = bdf: the initialisation then keeps an independent set of
     * equations, as for our BDF */
    const char *sets[] = {"solver.integrator=bdf", stol, stend, NULL};
    mbs_errlist el;
    memset(st, 0, sizeof *st);
    mbs_spec *sp = s_parse(c->text, sets, &el);
    if (!sp) { snprintf(st->why, sizeof st->why, "parse failed"); return; }
    sp->solver.abs_tolerance = 0; /* IDA's weights are set by s_ewt */
    mbs_model *m = mbs_model_new(sp, NULL, &el);
    if (!m) { snprintf(st->why, sizeof st->why, "model failed"); mbs_spec_free(&sp); return; }
    double cpu[MAXREP];
    for (int r = 0; r < O.repeat; r++) {
        s_ida_once(c, m, rtol, st, r == O.repeat - 1, sctx);
        cpu[r] = st->cpu;
    }
    for (int a = 1; a < O.repeat; a++)
        for (int b = a; b > 0 && cpu[b - 1] > cpu[b]; b--) { double t = cpu[b]; cpu[b] = cpu[b - 1]; cpu[b - 1] = t; }
    st->cpu = cpu[O.repeat / 2];
    mbs_model_free(&m);
    mbs_spec_free(&sp);
}

/* ---- table -------------------------------------------------------------------------------- */

static void s_row(FILE *csv, const s_case *c, double rtol, const char *integ, const s_stat *s)
{
    char ep[32], ev[32];
    snprintf(ep, sizeof ep, "%.2e", s->err_pos);
    snprintf(ev, sizeof ev, "%.2e", s->err_vel);
    printf("| %s | %.0e | %.2e | %s | %s | %s | %ld | %ld | %ld | %ld | %ld | %.2f | %s |\n", c->name, rtol, s->atol_x,
           integ, s->ok ? ep : "-", s->ok && c->nvel ? ev : "-", s->steps, s->rejected, s->res_evals, s->jac_evals,
           s->factorizations, 1e3 * s->cpu, s->ok ? s->ls : s->why);
    if (csv)
        fprintf(csv, "%s,%.0e,%.6e,%s,\"%s\",%d,%.6e,%.6e,%ld,%ld,%ld,%ld,%ld,%ld,%.6f,\"%s\"\n", c->name, rtol,
                s->atol_x, integ, s->ls ? s->ls : "", s->ok, s->err_pos, s->err_vel, s->steps, s->rejected,
                s->res_evals, s->newton, s->jac_evals, s->factorizations, 1e3 * s->cpu, s->ok ? "" : s->why);
}

int main(int argc, char **argv)
{
    const char *names[32];
    int nname = 0, quick = 0;
    char csvpath[1024];
    /* default CSV: next to the program (build/bench/ida_compare.csv) */
    const char *slash = strrchr(argv[0], '/');
    snprintf(csvpath, sizeof csvpath, "%.*sida_compare.csv", slash ? (int)(slash - argv[0] + 1) : 0, argv[0]);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--quick")) quick = 1;
        else if (!strcmp(a, "--dense")) O.dense = 1;
        else if (!strcmp(a, "--band")) O.band = 1;
        else if (!strcmp(a, "--dq")) O.dq = 1;
        else if (!strcmp(a, "--repeat") && i + 1 < argc) { O.repeat = atoi(argv[++i]); if (O.repeat < 1) O.repeat = 1; if (O.repeat > MAXREP) O.repeat = MAXREP; }
        else if (!strcmp(a, "--atol") && i + 1 < argc) O.fixed_atol = !strcmp(argv[++i], "fixed");
        else if (!strcmp(a, "--csv") && i + 1 < argc) snprintf(csvpath, sizeof csvpath, "%s", argv[++i]);
        else if (!strcmp(a, "--tols") && i + 1 < argc) {
            O.ntol = 0;
            for (char *s = argv[++i], *e; *s && O.ntol < 16; s = *e ? e + 1 : e) {
                O.tols[O.ntol] = strtod(s, &e);
                if (e == s) break;
                O.ntol++;
            }
        } else if (a[0] == '-') {
            fprintf(stderr, "usage: ida_compare [--quick] [--repeat N] [--atol derived|fixed] [--dense|--band] [--dq] "
                            "[--tols 1e-3,1e-4,...] [--csv FILE] [example ...]\n");
            return 2;
        } else if (nname < 32) names[nname++] = a;
    }
    if (quick) { O.repeat = 1; O.ntol = 3; O.tols[0] = 1e-4; O.tols[1] = 1e-6; O.tols[2] = 1e-8; }
    if (!nname)
        for (int i = 0; DEFAULT_EXAMPLES[i]; i++) names[nname++] = DEFAULT_EXAMPLES[i];
    setvbuf(stdout, NULL, _IOLBF, 0);
    SUNContext sctx;
    if (SUNContext_Create(NULL, &sctx)) { fprintf(stderr, "ida_compare: SUNContext_Create failed\n"); return 1; }
    FILE *csv = fopen(csvpath, "w");
    if (!csv) fprintf(stderr, "ida_compare: cannot write %s (table on standard output only)\n", csvpath);
    else fprintf(csv, "example,rtol,atol_x,integrator,linear_solver,ok,pos_error,vel_error,steps,rejected,"
                      "residual_evals,newton_iterations,jacobian_evals,factorizations,cpu_ms_median,failure\n");
    printf("\n## SUNDIALS IDA against our BDF, same GGL equations (CPU: median of %d; atol %s)\n\n", O.repeat,
           O.fixed_atol ? "rtol x L for positions and velocities" : "as our BDF derives it: rtol x L (positions, shown), rtol x V (velocities)");
    printf("| example | rtol | atol (pos.) | integrator | pos. error | vel. error | steps | rejected | residual evals | "
           "Jacobian evals | factorisations | CPU ms | linear solver / failure |\n");
    printf("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
    int failures = 0;
    for (int e = 0; e < nname; e++) {
        s_case c;
        if (s_load_case(names[e], &c)) { failures++; free(c.text); continue; }
        /* the model's length scale for the fixed absolute tolerance */
        mbs_errlist el;
        const char *none[] = {NULL};
        mbs_spec *sp = s_parse(c.text, none, &el);
        mbs_model *m = sp ? mbs_model_new(sp, NULL, &el) : NULL;
        double L = m && m->length_scale > 0 ? m->length_scale : 1.0;
        fprintf(stderr, "%s: %d coordinates, %d constraints, GGL system %d (half-band %d), L = %.4g m, t_end = %g s, "
                        "%d reference values\n", c.name, m ? m->nvar : 0, m ? m->neq : 0, m ? m->nggl : 0,
                m ? (m->gkl > m->gku ? m->gkl : m->gku) : 0, L, c.T, c.nref);
        mbs_model_free(&m);
        mbs_spec_free(&sp);
        for (int k = 0; k < O.ntol; k++) {
            s_stat ours, ida;
            s_run_ours(&c, O.tols[k], L, &ours);
            s_row(csv, &c, O.tols[k], "bdf (ours)", &ours);
            s_run_ida(&c, O.tols[k], &ida, sctx);
            s_row(csv, &c, O.tols[k], "IDA", &ida);
        }
        free(c.text);
    }
    if (csv) { fclose(csv); fprintf(stderr, "CSV: %s\n", csvpath); }
    SUNContext_Free(&sctx);
    return failures ? 1 : 0;
}
