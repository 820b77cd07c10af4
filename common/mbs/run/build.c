/*
 * build.c - building the read-only model from a spec, and allocating the
 * per-run data (each integrator makes and sizes its own workspace:
 * mbs_integrator_ws_new).  The natural coordinates themselves are chosen in ncs.c; here
 * come the global mass matrix, the force-element geometry, the orderings
 * (reverse Cuthill-McKee) that make chain-like mechanisms banded, and the
 * sizes of every work array.
 */
#include "mbs/analysis/analysis.h"
#include "mbs/analysis/system.h"
#include "mbs/contact/contact.h"
#include "mbs/formulation/natural/natural.h"
#include "mbs/formulation/relative/sysgraph.h"
#include "mbs/integrate/integrators.h"
#include "mbs/linalg/vec.h"
#include "mbs/model/data.h"
#include "mbs/dynamics/quantity.h"
#include "mbs/output/output.h"
#include "mbs/run/measure.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- graphs -> CSR adjacency ------------------------------------------------------ */

/* The graphs of the orderings are made by a generator that calls s_edge for
 * every pair, run twice: first to count each vertex's degree, then to write
 * the neighbours into place.  No list of pairs is kept (a 10,000-body
 * spatial chain has 10^7 of them: 80 MB as int pairs in a doubling array,
 * most of the model check's memory). */
typedef struct {
    int fill;  /* 0: counting the degrees into p[a + 1]; 1: writing adj */
    int *p;    /* (n + 1) row starts                                     */
    int *next; /* (n) next write position of each row                    */
    int *adj;
} s_adj;

static void s_edge(s_adj *A, int a, int b)
{
    if (a == b) return;
    if (!A->fill) {
        A->p[a + 1]++;
        A->p[b + 1]++;
        return;
    }
    A->adj[A->next[a]++] = b;
    A->adj[A->next[b]++] = a;
}

static int s_cmp_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

/* CSR adjacency of the n-vertex graph that gen(m, A) makes: each row sorted,
 * repeats dropped.  0 or -1 (out of memory, or more than INT_MAX pairs). */
static int s_csr(const mbs_model *m, void (*gen)(const mbs_model *m, s_adj *A), int n, int **ptr, int **adj)
{
    s_adj A = {0, calloc((size_t)n + 1, sizeof(int)), malloc(sizeof(int) * ((size_t)n + 1)), NULL};
    if (!A.p || !A.next) { free(A.p); free(A.next); return -1; }
    gen(m, &A);
    long total = 0;
    for (int i = 0; i < n; i++) {
        total += A.p[i + 1];
        if (total > INT_MAX) { free(A.p); free(A.next); return -1; }
        A.p[i + 1] = (int)total;
    }
    A.adj = malloc(sizeof(int) * (size_t)(total > 0 ? total : 1));
    if (!A.adj) { free(A.p); free(A.next); return -1; }
    memcpy(A.next, A.p, sizeof(int) * ((size_t)n + 1));
    A.fill = 1;
    gen(m, &A);
    /* sort and dedupe each row in place, compacting the rows forward */
    long u = 0;
    for (int r = 0; r < n; r++) {
        int lo = A.p[r], hi = A.p[r + 1];
        qsort(A.adj + lo, (size_t)(hi - lo), sizeof(int), s_cmp_int);
        A.p[r] = (int)u;
        for (int k = lo; k < hi; k++)
            if (k == lo || A.adj[k] != A.adj[k - 1]) A.adj[u++] = A.adj[k];
    }
    A.p[n] = (int)u;
    free(A.next);
    *ptr = A.p;
    *adj = A.adj;
    return 0;
}

/* ---- the global mass matrix (CSR, both triangles) ------------------------------------ */

static int s_mass(mbs_model *m)
{
    int n = m->nvar, nb = m->nb;
    /* dense accumulation per row through a triplet list */
    long cap = (long)m->nbody * nb * nb + 4L * m->nrotor + m->nsrotor + 6L * m->nrotor3 + 1, k = 0;
    struct trip { int i, j; double v; } *t = malloc(sizeof(struct trip) * (size_t)cap);
    if (!t) return MBS_ENOMEM;
    for (int b = 0; b < m->nbody; b++) {
        const mbs_body *bd = &m->body[b];
        for (int r = 0; r < nb; r++)
            for (int c = 0; c < nb; c++) {
                double v = bd->Mb[r * nb + c];
                if (bd->var[r] < 0 || bd->var[c] < 0 || v == 0) continue;
                t[k].i = bd->var[r]; t[k].j = bd->var[c]; t[k].v = v; k++;
            }
    }
    /* the rotors between moving bodies: J c c^T on the bodies' angle
     * variables (ncs.c s_rotors) */
    for (int r = 0; r < m->nrotor; r++) {
        const struct mbs_rotor *ro = &m->rotor[r];
        for (int a = 0; a < 2; a++)
            for (int b = 0; b < 2; b++) {
                if (ro->var[a] < 0 || ro->var[b] < 0) continue;
                t[k].i = ro->var[a]; t[k].j = ro->var[b]; t[k].v = ro->J * ro->c[a] * ro->c[b]; k++;
            }
    }
    /* the rotors on prismatic joints between moving bodies: J / lead^2 on
     * their slide variables (ncs.c s_slide_rotors) */
    for (int r = 0; r < m->nsrotor; r++) {
        if (m->srotor[r].ms == 0) continue;
        t[k].i = t[k].j = m->srotor[r].var; t[k].v = m->srotor[r].ms; k++;
    }
    /* the rotors on spatial joints between moving bodies: J / 2 on each of
     * their unit vectors' six variables (a thin disk, ncs.c s_space_rotors) */
    for (int r = 0; r < m->nrotor3; r++)
        for (int c = 0; c < 6; c++) {
            t[k].i = t[k].j = m->rotor3[r].var_e + c; t[k].v = m->rotor3[r].J / 2; k++;
        }
    /* counting sort by row, then merge columns */
    m->M_ptr = calloc((size_t)n + 1, sizeof(int));
    m->M_col = malloc(sizeof(int) * (size_t)(k + 1));
    m->M_val = malloc(sizeof(double) * (size_t)(k + 1));
    int *fill = calloc((size_t)n + 1, sizeof(int));
    if (!m->M_ptr || !m->M_col || !m->M_val || !fill) { free(t); free(fill); return MBS_ENOMEM; }
    for (long i = 0; i < k; i++) m->M_ptr[t[i].i + 1]++;
    for (int i = 0; i < n; i++) m->M_ptr[i + 1] += m->M_ptr[i];
    for (long i = 0; i < k; i++) {
        int p = m->M_ptr[t[i].i] + fill[t[i].i]++;
        m->M_col[p] = t[i].j;
        m->M_val[p] = t[i].v;
    }
    /* merge duplicate columns inside each row (shared variables) */
    int w = 0;
    for (int i = 0; i < n; i++) {
        int start = w, a = m->M_ptr[i], e = m->M_ptr[i + 1];
        for (int p = a; p < e; p++) {
            int q = start;
            while (q < w && m->M_col[q] != m->M_col[p]) q++;
            if (q < w) { m->M_val[q] += m->M_val[p]; continue; }
            m->M_col[w] = m->M_col[p];
            m->M_val[w] = m->M_val[p];
            w++;
        }
        m->M_ptr[i] = start;
    }
    m->M_ptr[n] = w;
    /* rows were compacted in place: fix the starts (shifted left) */
    free(t);
    free(fill);
    double diag = 0;
    for (int i = 0; i < n; i++)
        for (int p = m->M_ptr[i]; p < m->M_ptr[i + 1]; p++)
            if (m->M_col[p] == i) diag += m->M_val[p];
    m->mass_scale = n > 0 && diag > 0 ? diag / n : 1.0;
    /* gravity on the variables: the sums of force.c's scatter of each
     * body's Qg, in the same order, once (it was every force evaluation) */
    m->Qg_var = calloc((size_t)n + 1, sizeof(double));
    if (!m->Qg_var) return MBS_ENOMEM;
    for (int b = 0; b < m->nbody; b++)
        for (int s = 0; s < nb; s++)
            if (m->body[b].var[s] >= 0) m->Qg_var[m->body[b].var[s]] += m->body[b].Qg[s];
    return 0;
}

/* ---- force elements ------------------------------------------------------------------ */

/* The bodies whose variables a measured signal depends on (up to 2). */
static int s_measure_bodies(const mbs_model *m, const mbs_channel_spec *ch, int b[2])
{
    const mbs_spec *s = m->spec;
    b[0] = b[1] = MBS_GROUND;
    if (ch->body >= 0) b[0] = ch->body;
    else if (ch->joint >= 0) { b[0] = s->joints[ch->joint].body[0]; b[1] = s->joints[ch->joint].body[1]; }
    else if (ch->element >= 0 && ch->quantity != MBS_Q_CONTROLLER) {
        const mbs_force_spec *F = &s->forces[ch->element];
        if (F->type == MBS_FORCE_DC_MOTOR || F->type == MBS_FORCE_ROTATIONAL_SPRING_DAMPER ||
            F->type == MBS_FORCE_JOINT_ACTUATOR) {
            b[0] = s->joints[F->joint].body[0];
            b[1] = s->joints[F->joint].body[1];
        } else {
            b[0] = F->body[0];
            b[1] = F->body[1];
        }
    }
    return 2;
}

/* The coupled variables' set: the variables of body b (none for the
 * ground) marked and appended to list once each. */
static void s_mark_body(const mbs_model *m, int b, char *mark, int *list, int *n)
{
    if (b < 0) return;
    for (int sl = 0; sl < m->nb; sl++) {
        int v = m->body[b].var[sl];
        if (v < 0 || mark[v]) continue;
        mark[v] = 1;
        list[(*n)++] = v;
    }
}

/* Models with controllers: each force element that depends on the element
 * states or a continuous controller's output (a motor with a current state
 * or a controlled voltage) gets as further columns of its finite-
 * difference blocks (mbs_fel.cvars) the variables of every continuous
 * controller's measured signal (an energy: every variable, the rotors'
 * included) and of every motor's joint with a current state (through the
 * eliminated states: force.c s_coupled_jac); the orderings see them
 * (s_orderings).  Any number of bodies: an energy on a large mechanism
 * makes those elements' rows of the Newton matrix full (one force
 * evaluation per variable for each such element and matrix). */
static int s_coupled_vars(mbs_model *m)
{
    const mbs_spec *s = m->spec;
    if (m->nctrl == 0) return 0;
    int n = m->nvar, nall = 0;
    char *mark = calloc((size_t)n + 1, 1);
    int *all = calloc((size_t)n + 1, sizeof(int));
    if (!mark || !all) { free(mark); free(all); return MBS_ENOMEM; }
    for (int c = 0; c < m->nctrl; c++) {
        if (m->ctrl_nz[c] == 0 && s->controllers[c].ts > 0) continue;
        int b[2];
        mbs_quantity q = s->controllers[c].measure.quantity;
        /* an energy, or a joint reaction measured continuously (through
         * the accelerations of the state: every variable, run/measure.h) */
        if (q == MBS_Q_KINETIC_ENERGY || q == MBS_Q_POTENTIAL_ENERGY || q == MBS_Q_TOTAL_ENERGY ||
            mbs_meas_reaction(s, c)) {
            for (int v = 0; v < n; v++)
                if (!mark[v]) mark[v] = 1, all[nall++] = v;
            continue;
        }
        s_measure_bodies(m, &s->controllers[c].measure, b);
        for (int k = 0; k < 2; k++) s_mark_body(m, b[k], mark, all, &nall);
    }
    for (int k = 0; k < m->nz; k++)
        if (m->z_force[k] >= 0)
            for (int i = 0; i < 2; i++) s_mark_body(m, s->joints[s->forces[m->z_force[k]].joint].body[i], mark, all, &nall);
    int rc = 0;
    for (int e = 0; e < m->nstate_el && !rc; e++) {
        mbs_fel *el = &m->stel[e];
        if (el->force < 0) continue;
        const mbs_force_spec *F = &s->forces[el->force];
        int coupled = (F->type == MBS_FORCE_DC_MOTOR || F->type == MBS_FORCE_JOINT_ACTUATOR) &&
                      (m->force_z[el->force] >= 0 || (F->ctrl > 0 && s->controllers[F->ctrl - 1].ts == 0));
        if (!coupled) continue;
        el->cvars = calloc((size_t)nall + 1, sizeof(int));
        if (!el->cvars) { rc = MBS_ENOMEM; break; }
        for (int k = 0; k < nall; k++) {
            int v = all[k], q = 0;
            while (q < el->nvar && el->vars[q] != v) q++;
            if (q == el->nvar) el->cvars[el->ncvar++] = v;
        }
    }
    free(mark);
    free(all);
    return rc;
}

static int s_forces(mbs_model *m)
{
    const mbs_spec *s = m->spec;
    int nf = s->nforce;
    m->fpts = calloc((size_t)(2 * nf + 1), sizeof(mbs_avec));
    m->spring_len0 = calloc((size_t)(nf + 1), sizeof(double));
    m->stel = calloc((size_t)(nf + s->njoint + 1), sizeof(mbs_fel));
    if (!m->fpts || !m->spring_len0 || !m->stel) return MBS_ENOMEM;
    m->conservative = s->ndriver == 0;
    for (int e = 0; e < nf; e++) {
        const mbs_force_spec *F = &s->forces[e];
        mbs_fel *fel = &m->stel[m->nstate_el];
        fel->force = e;
        fel->joint = -1;
        switch (F->type) {
        case MBS_FORCE_SPRING_DAMPER: {
            m->fpts[2 * e] = mbs_body_avec(m, F->body[0], F->points[0], 1);
            m->fpts[2 * e + 1] = mbs_body_avec(m, F->body[1], F->points[1], 1);
            double d[3];
            v3sub(F->points[1], F->points[0], d);
            if (m->dim == 2) d[2] = 0;
            m->spring_len0[e] = v3norm(d);
            mbs_fel_add_body(m, fel, F->body[0]);
            mbs_fel_add_body(m, fel, F->body[1]);
            fel->has_rate = F->damping != 0;
            m->nstate_el++;
            if (F->damping != 0) m->conservative = 0;
            break;
        }
        case MBS_FORCE_ROTATIONAL_SPRING_DAMPER: {
            const mbs_joint_spec *J = &s->joints[F->joint];
            mbs_fel_add_body(m, fel, J->body[0]);
            mbs_fel_add_body(m, fel, J->body[1]);
            fel->has_rate = F->damping != 0;
            m->nstate_el++;
            if (F->damping != 0) m->conservative = 0;
            break;
        }
        case MBS_FORCE_DC_MOTOR:        /* a torque law of the joint's rate (and t) */
        case MBS_FORCE_JOINT_ACTUATOR: { /* state-dependent through a continuous controller */
            const mbs_joint_spec *J = &s->joints[F->joint];
            if (F->type == MBS_FORCE_DC_MOTOR || (F->ctrl > 0 && s->controllers[F->ctrl - 1].ts == 0)) {
                mbs_fel_add_body(m, fel, J->body[0]);
                mbs_fel_add_body(m, fel, J->body[1]);
                fel->has_rate = 1;
                m->nstate_el++;
            }
            m->conservative = 0;
            break;
        }
        case MBS_FORCE_POINT_FORCE:
            m->fpts[2 * e] = mbs_body_avec(m, F->body[0], F->at, 1);
            if (F->body_frame) { mbs_fel_add_body(m, fel, F->body[0]); m->nstate_el++; }
            m->conservative = 0;
            break;
        case MBS_FORCE_TORQUE:
            mbs_fel_add_body(m, fel, F->body[0]);
            m->nstate_el++;
            m->conservative = 0;
            break;
        default:
            break;
        }
    }
    /* a frictional prismatic joint (seed 003) dissipates: its energy drift
     * is not an error measure (it reported 2.3e-2 and 1.0 for the Flores
     * slider-crank and the stick-slip guide, whose friction takes the
     * energy; impact clearances are rigid contacts, contact.c) */
    for (int j = 0; j < s->njoint; j++)
        if (s->joints[j].clearance_model == MBS_CLEARANCE_FRICTION && s->joints[j].friction > 0) m->conservative = 0;
    for (int j = 0; j < s->njoint; j++) {
        if (s->joints[j].damping <= 0) continue;
        mbs_fel *fel = &m->stel[m->nstate_el++];
        fel->force = -1;
        fel->joint = j;
        fel->has_rate = 1;
        mbs_fel_add_body(m, fel, s->joints[j].body[0]);
        mbs_fel_add_body(m, fel, s->joints[j].body[1]);
        m->conservative = 0;
    }
    m->has_stiffness = m->nstate_el > 0;
    /* element states: the current of each dc_motor with an inductance, then
     * the continuous controllers' states */
    int nzmax = nf + 1;
    for (int c = 0; c < s->nctrl; c++) nzmax += MBS_LTI_MAX;
    m->z_force = calloc((size_t)nzmax, sizeof(int));
    m->z_ctrl = calloc((size_t)nzmax, sizeof(int));
    m->force_z = calloc((size_t)(nf + 1), sizeof(int));
    m->ctrl_z = calloc((size_t)(s->nctrl + 1), sizeof(int));
    m->ctrl_nz = calloc((size_t)(s->nctrl + 1), sizeof(int));
    m->ctrl_pts = calloc((size_t)(s->nctrl + 1), sizeof(mbs_avec));
    if (!m->z_force || !m->force_z || !m->z_ctrl || !m->ctrl_z || !m->ctrl_nz || !m->ctrl_pts) return MBS_ENOMEM;
    for (int e = 0; e < nf; e++) {
        const mbs_force_spec *F = &s->forces[e];
        m->force_z[e] = -1;
        if (F->type == MBS_FORCE_DC_MOTOR && F->motor.L > 0) {
            m->force_z[e] = m->nz;
            m->z_ctrl[m->nz] = -1;
            m->z_force[m->nz++] = e;
        }
    }
    m->nctrl = s->nctrl;
    for (int c = 0; c < s->nctrl; c++) {
        const mbs_ctrl_spec *C = &s->controllers[c];
        int k = C->ts > 0 ? 0 : C->type == MBS_CTRL_PID ? (C->pid.ki != 0) + (C->pid.kd != 0) : C->lti.n;
        m->ctrl_z[c] = k > 0 ? m->nz : -1;
        m->ctrl_nz[c] = k;
        for (int q = 0; q < k; q++) {
            m->z_ctrl[m->nz] = c;
            m->z_force[m->nz++] = -1;
        }
        m->ctrl_pts[c] = mbs_quantity_avec(m, &C->measure);
    }
    return s_coupled_vars(m);
}

/* ---- orderings ------------------------------------------------------------------------- */

/* Variable graph: mass coupling, equation rows, force elements, bodies with
 * contact shapes (their contact stiffness couples all of their coordinates:
 * body-diagonal blocks, see contact.c). */
static void s_var_graph(const mbs_model *m, s_adj *A)
{
    int n = m->nvar, ne = m->neq;
    for (int i = 0; i < n; i++)
        for (int p = m->M_ptr[i]; p < m->M_ptr[i + 1]; p++) s_edge(A, i, m->M_col[p]);
    for (int i = 0; i < ne; i++)
        for (int a = 0; a < m->eq[i].nnz; a++)
            for (int b = a + 1; b < m->eq[i].nnz; b++) s_edge(A, m->eq[i].cols[a], m->eq[i].cols[b]);
    for (int e = 0; e < m->nstate_el; e++)
        for (int a = 0; a < m->stel[e].nvar; a++) {
            for (int b = a + 1; b < m->stel[e].nvar; b++) s_edge(A, m->stel[e].vars[a], m->stel[e].vars[b]);
            for (int b = 0; b < m->stel[e].ncvar; b++) s_edge(A, m->stel[e].vars[a], m->stel[e].cvars[b]);
        }
    for (int i = 0; i < m->spec->nshape; i++) {
        int b = m->spec->shapes[i].body;
        if (b < 0) continue;
        for (int a = 0; a < m->nb; a++)
            for (int c = a + 1; c < m->nb; c++)
                if (m->body[b].var[a] >= 0 && m->body[b].var[c] >= 0) s_edge(A, m->body[b].var[a], m->body[b].var[c]);
    }
}

/* KKT graph: variables 0..n-1, equations n..n+ne-1. */
static void s_kkt_graph(const mbs_model *m, s_adj *A)
{
    int n = m->nvar;
    s_var_graph(m, A);
    for (int i = 0; i < m->neq; i++)
        for (int a = 0; a < m->eq[i].nnz; a++) s_edge(A, n + i, m->eq[i].cols[a]);
}

static void s_edge_cb(void *A, int i, int j) { s_edge(A, i, j); }

/* GGL graph: the structure of mbs_ggl_structure (q-v coupling, the
 * mass/force pattern on v and K on v-q, the constraint rows on (v, lam),
 * (q, mu), (lam, q), (mu, v), every pair of an equation's columns). */
static void s_ggl_graph(const mbs_model *m, s_adj *A)
{
    mbs_ggl_structure(m, 1, s_edge_cb, A);
}

/* RCM orderings and bandwidths of the three graphs. */
static int s_orderings(mbs_model *m)
{
    int n = m->nvar, ne = m->neq, rc = 0;
    int *ptr = NULL, *adj = NULL;
    m->perm = malloc(sizeof(int) * (size_t)(n + 1));
    m->iperm = malloc(sizeof(int) * (size_t)(n + 1));
    if (!m->perm || !m->iperm || s_csr(m, s_var_graph, n, &ptr, &adj)) rc = MBS_ENOMEM;
    if (!rc) {
        m->kd = mbs_rcm(n, ptr, adj, m->perm);
        for (int i = 0; i < n; i++) m->iperm[m->perm[i]] = i;
    }
    free(ptr); free(adj);
    m->nkkt = n + ne;
    m->kperm = malloc(sizeof(int) * (size_t)(m->nkkt + 1));
    m->kiperm = malloc(sizeof(int) * (size_t)(m->nkkt + 1));
    ptr = adj = NULL;
    if (rc || !m->kperm || !m->kiperm || s_csr(m, s_kkt_graph, m->nkkt, &ptr, &adj)) rc = MBS_ENOMEM;
    if (!rc) {
        int bw = mbs_rcm(m->nkkt, ptr, adj, m->kperm);
        for (int i = 0; i < m->nkkt; i++) m->kiperm[m->kperm[i]] = i;
        m->kkl = m->kku = bw;
    }
    free(ptr); free(adj);
    int gn = 2 * n + 2 * ne;
    m->nggl = gn;
    m->gperm = malloc(sizeof(int) * (size_t)(gn + 1));
    m->giperm = malloc(sizeof(int) * (size_t)(gn + 1));
    ptr = adj = NULL;
    if (rc || !m->gperm || !m->giperm || s_csr(m, s_ggl_graph, gn, &ptr, &adj)) rc = MBS_ENOMEM;
    if (!rc) {
        int bw = mbs_rcm(gn, ptr, adj, m->gperm);
        for (int i = 0; i < gn; i++) m->giperm[m->gperm[i]] = i;
        m->gkl = m->gku = bw;
    }
    free(ptr); free(adj);
    return rc;
}

/* ---- public ---------------------------------------------------------------------------- */

mbs_model *mbs_model_new(const mbs_spec *spec, mbs_report *rep, mbs_errlist *err)
{
    if (!spec || (spec->dim != 2 && spec->dim != 3) || spec->nbody <= 0) {
        mbs_err_add(err, "", "a mechanism needs dimension 2 or 3 and at least one body");
        return NULL;
    }
    mbs_model *m = calloc(1, sizeof *m);
    if (!m) { mbs_err_add(err, "", "out of memory"); return NULL; }
    m->spec = spec;
    m->dim = spec->dim;
    m->report0.dim = spec->dim;
    m->report0.nbody = spec->nbody;
    m->report0.njoint = spec->njoint;
    int rc = mbs_ncs_build(m, err);
    if (!rc) rc = s_mass(m);
    if (!rc) rc = s_forces(m);
    if (!rc) rc = mbs_contact_build(m, err);
    if (!rc) rc = s_orderings(m);
    /* the inputs' kinks, where the integrators end their steps */
    if (!rc && spec->solver.t_end > 0 && (m->nkink = mbs_spec_kinks(spec, 0, spec->solver.t_end, &m->kinks)) < 0) {
        m->nkink = 0;
        rc = MBS_ENOMEM;
    }
    if (rc) {
        if (rc == MBS_ENOMEM) mbs_err_add(err, "", "out of memory while building the model");
        mbs_model_free(&m);
        return NULL;
    }
    m->report0.bandwidth = m->kd;
    /* the relative formulation's sizes, for the check report (issue 12) */
    mbs_sysgraph g;
    if (mbs_sysgraph_build(spec, &g) == 0) {
        int lmax = 0;
        for (int c = 0; c < g.nchord; c++) lmax = g.loop[c] > lmax ? g.loop[c] : lmax;
        m->report0.rel_coords = g.ncoord;
        m->report0.rel_constraints = g.nconstraint + spec->ndriver;
        m->report0.rel_chords = g.nchord;
        m->report0.rel_longest_loop = lmax;
        m->report0.rel_roots = g.nroot;
        mbs_sysgraph_free(&g);
    }
    if (rep) *rep = m->report0;
    return m;
}

void mbs_model_free(mbs_model **pm)
{
    if (!pm || !*pm) return;
    mbs_model *m = *pm;
    free(m->body); free(m->x0); free(m->v0); free(m->eq); free(m->colpool); free(m->jcpool);
    mbs_ncs_equations_free(m);
    free(m->M_ptr); free(m->M_col); free(m->M_val); free(m->Qg_var);
    free(m->perm); free(m->iperm); free(m->kperm); free(m->kiperm); free(m->gperm); free(m->giperm);
    for (int e = 0; m->stel && e < m->nstate_el; e++) free(m->stel[e].cvars);
    free(m->jg); free(m->rotor); free(m->srotor); free(m->rotor3); free(m->fpts); free(m->spring_len0); free(m->stel);
    free(m->z_force); free(m->force_z); free(m->z_ctrl); free(m->ctrl_z); free(m->ctrl_nz); free(m->ctrl_pts);
    free(m->cshape); free(m->cfel); free(m->cpairs); free(m->kinks);
    free(m);
    *pm = NULL;
}

const mbs_spec *mbs_model_spec(const mbs_model *m) { return m->spec; }
int mbs_model_nvar(const mbs_model *m) { return m->nvar; }
int mbs_model_neq(const mbs_model *m) { return m->neq; }

mbs_data *mbs_data_new(const mbs_model *m)
{
    mbs_data *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    int n = m->nvar, ne = m->neq, nn = n > 0 ? n : 1, nq = ne > 0 ? ne : 1;
    int nnz = 0;
    for (int i = 0; i < ne; i++) nnz += m->eq[i].nnz;
    size_t big = (size_t)(2 * (n + ne) + 1);
    d->m = m;
    d->n = n;
    d->ne = ne;
    int ok = 1;
#define ALLOC(p, cnt) do { (p) = calloc((size_t)(cnt), sizeof *(p)); ok &= (p) != NULL; } while (0)
    ALLOC(d->x, nn); ALLOC(d->v, nn); ALLOC(d->a, nn); ALLOC(d->lam, nq); ALLOC(d->eq_on, nq);
    ALLOC(d->xp, nn); ALLOC(d->vp, nn); ALLOC(d->ap, nn);
    ALLOC(d->phi, nq); ALLOC(d->jac, nnz > 0 ? nnz : 1); ALLOC(d->phit, nq); ALLOC(d->gam, nq);
    ALLOC(d->Q, nn); ALLOC(d->fd_x, nn); ALLOC(d->fd_v, nn); ALLOC(d->fd_q0, nn); ALLOC(d->fd_q1, nn);
    ALLOC(d->rk, 16 * nn + 4 * nq); ALLOC(d->hv, nn); ALLOC(d->ha, nn); ALLOC(d->w1, big); ALLOC(d->w2, big);
    ALLOC(d->r1, big); ALLOC(d->r2, big); ALLOC(d->r3, big); ALLOC(d->r4, big);
    ALLOC(d->jangle_ref, m->spec->njoint + 1);
    ALLOC(d->tol.ax, nn); ALLOC(d->tol.rx, nn); ALLOC(d->tol.av, nn);
    int nz1 = m->nz > 0 ? m->nz : 1;
    ALLOC(d->z, nz1); ALLOC(d->zd, nz1); ALLOC(d->zp, nz1); ALLOC(d->zdp, nz1); ALLOC(d->zs, nz1);
    ALLOC(d->zk, 7 * nz1); ALLOC(d->zkap, nz1); ALLOC(d->tol.az, nz1);
    int nc1 = m->nctrl > 0 ? m->nctrl : 1;
    ALLOC(d->ctrl_s, MBS_LTI_MAX * nc1); ALLOC(d->ctrl_y, nc1); ALLOC(d->ctrl_ref, nc1); ALLOC(d->ctrl_k, nc1);
    if (m->nctrl > 0) {
        ALLOC(d->zD, nz1 * nz1); ALLOC(d->zKx, (size_t)nz1 * nn); ALLOC(d->zKv, (size_t)nz1 * nn);
        ALLOC(d->zt, 3 * nz1); ALLOC(d->zpiv, nz1);
    }
#undef ALLOC
    if (ok && mbs_mat_init(&d->spd, MBS_MAT_SPD, n, m->kd, m->kd)) ok = 0;
    if (ok && mbs_mat_init(&d->kkt, MBS_MAT_GEN, m->nkkt, m->kkl, m->kku)) ok = 0;
    if (ok && mbs_contact_data_init(m, d)) ok = 0;
    /* the workspace of the spec's integrator, made and sized by it */
    if (ok && mbs_integrator_ws_new(m, d)) ok = 0;
    if (!ok) { mbs_data_free(&d); return NULL; }
    for (int i = 0; i < ne; i++) d->eq_on[i] = 1;
    d->loop_c = -1;
    return d;
}

void mbs_data_free(mbs_data **pd)
{
    if (!pd || !*pd) return;
    mbs_data *d = *pd;
    free(d->x); free(d->v); free(d->a); free(d->lam); free(d->eq_on);
    free(d->xp); free(d->vp); free(d->ap);
    free(d->phi); free(d->jac); free(d->phit); free(d->gam);
    free(d->Q); free(d->fd_x); free(d->fd_v); free(d->fd_q0); free(d->fd_q1);
    free(d->rk); free(d->hv); free(d->ha); free(d->w1); free(d->w2);
    free(d->r1); free(d->r2); free(d->r3); free(d->r4);
    free(d->jangle_ref);
    free(d->tol.ax); free(d->tol.rx); free(d->tol.av); free(d->tol.az);
    free(d->z); free(d->zd); free(d->zp); free(d->zdp); free(d->zs); free(d->zk); free(d->zkap);
    free(d->ctrl_s); free(d->ctrl_y); free(d->ctrl_ref); free(d->ctrl_k);
    free(d->zD); free(d->zKx); free(d->zKv); free(d->zt); free(d->zpiv);
    mbs_reaction_ws_free(&d->rx);
    mbs_meas_free(&d->meas);
    mbs_contact_data_free(d);
    mbs_integrator_ws_free(d);
    mbs_rank_ws_free(d);
    mbs_mat_free(&d->spd);
    mbs_mat_free(&d->kkt);
    free(d);
    *pd = NULL;
}
