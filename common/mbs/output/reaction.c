/*
 * reaction.c - joint reaction forces and torques.
 *
 * Eliminated joints (shared or constant coordinates) have no multiplier, so
 * reactions are recovered from each body's balance instead.  For body b the
 * generalized constraint force is  r_b = M_b qdd_b - Q_b  (body coordinates,
 * before shared variables are summed).  Projected on the body's rigid
 * motions it gives the resultant force and moment of all joint reactions on
 * b (the rigid-body constraint forces do no work on rigid motions).  Each
 * joint's reaction is written in the directions its type can carry (a
 * revolute joint: any force, moments perpendicular to the axis; plus the
 * driving moment when driven, ...), and the stacked balances of all bodies
 * are solved for those components by least squares (minimum norm when the
 * mechanism is over-constrained and reactions are statically indeterminate).
 *
 * The least-squares matrix A (3 or 6 rows per body, a column per reaction
 * component) is sparse: a column touches the rows of the joint's two bodies.
 * It is first solved through the augmented system [I, A; A^T, 0] [r; y] =
 * [b; 0] by KLU (the fixed pattern of linalg/sparse.c, analysed once per
 * run), with one step of iterative refinement; the result is the unique
 * least-squares solution when A has full column rank, which the condition
 * estimate of the augmented matrix confirms: its eigenvalues are 1 and 1/2
 * +- sqrt(1/4 + s_i^2), s_i the singular values of A, so a condition below
 * RX_COND_MAX keeps the smallest s_i above about 1e-5 sqrt(max(1, s_max)),
 * far from the 1e-12 s_max below which LAPACK's dgelsd (rcond 1e-12) calls
 * one zero.  Otherwise (reactions statically
 * indeterminate, or KLU fails) the dense minimum-norm solution by dgelsd.
 * The roller chain drive (103 bodies, 209 components): 3.5 ms per sample
 * by dgelsd, 15 % of its run.
 */
#include "mbs/output/output.h"
#include "mbs/linalg/vec.h"
#include "mbs/formulation/natural/natural.h"
#include "mbs/dynamics/force.h"
#include "mbs/linalg/sparse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define S_MAXDIR 6
/* condition estimate of the augmented matrix above which the dense
 * minimum-norm solution is taken (see the header) */
#define RX_COND_MAX 1e10

/* Directions of the reaction of joint j at x: force directions (torque 0)
 * and torque directions (force 0).  Returns the count. */
static int s_dirs(const mbs_model *m, int j, const double *x, double dir[S_MAXDIR][6], int driven)
{
    const mbs_joint_spec *J = &m->spec->joints[j];
    const mbs_jgeom *g = &m->jg[j];
    int dim = m->dim, n = 0;
    double ax[3] = {0, 0, 1}, p[3], r[3];
    if (J->type != MBS_JOINT_SPHERICAL && J->type != MBS_JOINT_FIXED && J->type != MBS_JOINT_DISTANCE &&
        J->type != MBS_JOINT_UNIVERSAL && !(dim == 2 && J->type == MBS_JOINT_REVOLUTE)) {
        mbs_avec_eval(m, &g->ax, x, 0, ax);
        if (dim == 2) ax[2] = 0;
        v3unit(ax, ax);
    }
    memset(dir, 0, sizeof(double) * S_MAXDIR * 6);
#define FORCE(vx, vy, vz) (dir[n][0] = (vx), dir[n][1] = (vy), dir[n][2] = (vz), n++)
#define TORQUE(vx, vy, vz) (dir[n][3] = (vx), dir[n][4] = (vy), dir[n][5] = (vz), n++)
    switch (J->type) {
    case MBS_JOINT_REVOLUTE:
        FORCE(1, 0, 0); FORCE(0, 1, 0);
        if (dim == 3) {
            FORCE(0, 0, 1);
            double t[3] = {1, 0, 0};
            if (fabs(ax[0]) > 0.6) { t[0] = 0; t[1] = 1; }
            v3cross(ax, t, p); v3unit(p, p); v3cross(ax, p, r);
            TORQUE(p[0], p[1], p[2]); TORQUE(r[0], r[1], r[2]);
            if (driven) TORQUE(ax[0], ax[1], ax[2]);
        } else if (driven) {
            TORQUE(0, 0, 1);
        }
        break;
    case MBS_JOINT_PRISMATIC:
    case MBS_JOINT_CYLINDRICAL:
        if (dim == 2) {
            FORCE(-ax[1], ax[0], 0);
            TORQUE(0, 0, 1);
        } else {
            double t[3] = {1, 0, 0};
            if (fabs(ax[0]) > 0.6) { t[0] = 0; t[1] = 1; }
            v3cross(ax, t, p); v3unit(p, p); v3cross(ax, p, r);
            FORCE(p[0], p[1], p[2]); FORCE(r[0], r[1], r[2]);
            TORQUE(p[0], p[1], p[2]); TORQUE(r[0], r[1], r[2]);
            if (J->type == MBS_JOINT_PRISMATIC) TORQUE(ax[0], ax[1], ax[2]);
        }
        /* a prismatic joint with clearance and friction (seed 003) carries
         * its friction force along the axis: part of its reaction */
        if (driven || (J->clearance_model == MBS_CLEARANCE_FRICTION && J->friction > 0))
            FORCE(ax[0], ax[1], ax[2]);
        break;
    case MBS_JOINT_SPHERICAL:
        FORCE(1, 0, 0); FORCE(0, 1, 0); FORCE(0, 0, 1);
        break;
    case MBS_JOINT_UNIVERSAL: {
        FORCE(1, 0, 0); FORCE(0, 1, 0); FORCE(0, 0, 1);
        /* moment about a x b (the axes evaluated on their bodies) */
        double a[3] = {0, 0, 0}, b[3] = {0, 0, 0}, c[3];
        for (int s = 0; s < 2; s++) {
            double *out = s ? b : a;
            if (J->body[s] < 0) { v3copy(J->axes[s], out); continue; }
            double cc[3], L[3 * MBS_NB_MAX], qb[MBS_NB_MAX];
            mbs_local_dir(m, J->body[s], J->axes[s], cc);
            mbs_point_map(m, J->body[s], cc, 0, L);
            mbs_gather(m, J->body[s], x, 0, qb);
            for (int i = 0; i < 3; i++)
                for (int k = 0; k < m->nb; k++) out[i] += L[i * m->nb + k] * qb[k];
        }
        v3cross(a, b, c);
        v3unit(c, c);
        TORQUE(c[0], c[1], c[2]);
        break;
    }
    case MBS_JOINT_FIXED:
        FORCE(1, 0, 0); FORCE(0, 1, 0);
        if (dim == 3) { FORCE(0, 0, 1); TORQUE(1, 0, 0); TORQUE(0, 1, 0); }
        TORQUE(0, 0, 1);
        break;
    case MBS_JOINT_DISTANCE: /* one force along the rod, set by the caller */
        break;
    default:
        break;
    }
#undef FORCE
#undef TORQUE
    return n;
}

/* Current position of a point given globally at t = 0 on body b. */
static void s_point_now(const mbs_model *m, int b, const double *p0, const double *x, double *p)
{
    if (b < 0) { v3copy(p0, p); if (m->dim == 2) p[2] = 0; return; }
    double c[3], L[3 * MBS_NB_MAX], qb[MBS_NB_MAX];
    mbs_local_point(m, b, p0, c);
    mbs_point_map(m, b, c, 1, L);
    mbs_gather(m, b, x, 0, qb);
    for (int i = 0; i < 3; i++) {
        p[i] = 0;
        if (i >= m->dim) continue;
        for (int k = 0; k < m->nb; k++) p[i] += L[i * m->nb + k] * qb[k];
    }
}

/* Workspace of the reaction recovery, sized once (no allocation while
 * sampling). */
struct mbs_rx_ws {
    int *off;                    /* (nj + 1) first unknown of each joint      */
    double (*dirs)[S_MAXDIR][6]; /* (nj) reaction directions                  */
    double (*pts)[2][3];         /* (nj) application points on both sides     */
    double *Qb;                  /* (nbody x nb) applied forces per body      */
    double *A, *rhs;             /* least-squares matrix and right-hand side  */
    double *work; int lwork;     /* LAPACK workspace                          */
    int *iwork;
    double *out;                 /* (nj x 6) the wrenches                     */
    mbs_sparse *S;               /* the augmented system (made at the first
                                  * solve, NULL when it could not be)         */
    double *sb, *sr;             /* (neq + nu) right-hand side, residual      */
    int sp_tried;
    double t; const double *x;   /* state of the cached solution              */
    int valid;
    int given;                   /* out set by mbs_reaction_given             */
    int nj;                      /* joints                                    */
};

void mbs_reaction_ws_free(struct mbs_rx_ws **pw)
{
    if (!pw || !*pw) return;
    struct mbs_rx_ws *w = *pw;
    free(w->off); free(w->dirs); free(w->pts); free(w->Qb); free(w->A); free(w->rhs);
    free(w->work); free(w->iwork); free(w->out);
    free(w->sb); free(w->sr);
    mbs_sparse_free(&w->S);
    free(w);
    *pw = NULL;
}

struct mbs_rx_ws *mbs_reaction_ws_new(const mbs_model *m)
{
    const mbs_spec *s = m->spec;
    int nw = m->dim == 3 ? 6 : 3, nj = s->njoint, neq = m->nbody * nw;
    int nu = S_MAXDIR * nj, mrows = neq > nu ? neq : nu;
    struct mbs_rx_ws *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->off = calloc((size_t)nj + 1, sizeof(int));
    w->dirs = calloc((size_t)(nj > 0 ? nj : 1), sizeof *w->dirs);
    w->pts = calloc((size_t)(nj > 0 ? nj : 1), sizeof *w->pts);
    w->Qb = calloc((size_t)m->nbody * (size_t)m->nb, sizeof(double));
    w->A = calloc((size_t)(neq > 0 ? neq : 1) * (size_t)(nu > 0 ? nu : 1), sizeof(double));
    w->rhs = calloc((size_t)mrows + 1, sizeof(double));
    w->out = calloc((size_t)(6 * nj + 1), sizeof(double));
    w->nj = nj;
    int liwork = 1;
    /* the largest problem: every joint with S_MAXDIR directions */
    if (mbs_lstsq_query(neq, nu, &w->lwork, &liwork) != 0) w->lwork = 0;
    w->work = calloc((size_t)(w->lwork > 0 ? w->lwork : 1), sizeof(double));
    w->iwork = calloc((size_t)liwork, sizeof(int));
    if (!w->off || !w->dirs || !w->pts || !w->Qb || !w->A || !w->rhs || !w->out || !w->work || !w->iwork ||
        w->lwork == 0)
        mbs_reaction_ws_free(&w);
    return w;
}

/* Point forces of rigid contacts added to the per-body applied forces: F
 * (world) at the material point c (NCS coordinates) of body B adds L(c)^T F
 * to its body coordinates, -F at A's point to A's (the ground takes
 * nothing). */
typedef struct {
    const mbs_model *m;
    double *Qb;
} s_pfctx;

static void s_add_point_force(void *ctx, const mbs_cforce *f)
{
    s_pfctx *s = ctx;
    const mbs_model *m = s->m;
    for (int side = 0; side < 2; side++) {
        int b = f->body[side];
        if (b < 0) continue;
        double L[3 * MBS_NB_MAX], sg = side ? 1.0 : -1.0;
        mbs_point_map(m, b, f->c[side], 1, L);
        double *q = s->Qb + (size_t)b * (size_t)m->nb;
        for (int k = 0; k < m->nb; k++)
            for (int i = 0; i < m->dim; i++) q[k] += sg * L[i * m->nb + k] * f->F[i];
    }
}

/* The augmented system's sink for A's structure (columns off[j] .. off[j +
 * 1] of joint j on the rows of its bodies), pattern fixed: unknowns r (neq)
 * then y (nu).  NULL when out of memory. */
static mbs_sparse *s_aug_new(const mbs_model *m, const int *off, int neq, int nu)
{
    const mbs_spec *s = m->spec;
    int nw = m->dim == 3 ? 6 : 3, N = neq + nu;
    long cap = neq;
    for (int j = 0; j < s->njoint; j++) cap += 4L * nw * (off[j + 1] - off[j]);
    mbs_sparse *S = mbs_sparse_new(N, 2 * cap + 64);
    if (!S) return NULL;
    mbs_sparse_begin(S, N);
    for (int i = 0; i < neq; i++) mbs_sparse_add(S, i, i, 1.0);
    for (int j = 0; j < s->njoint; j++)
        for (int side = 0; side < 2; side++) {
            int b = s->joints[j].body[side];
            if (b < 0) continue;
            for (int c = off[j]; c < off[j + 1]; c++)
                for (int i = 0; i < nw; i++) {
                    mbs_sparse_add(S, b * nw + i, neq + c, 1.0);
                    mbs_sparse_add(S, neq + c, b * nw + i, 1.0);
                }
        }
    if (mbs_sparse_fix_pattern(S)) mbs_sparse_free(&S);
    return S;
}

/* y = the least-squares solution of A y = rhs (A neq x nu, dense column-
 * major, the rhs's first nu entries receive y) by the augmented system;
 * 0, or -1 when A is not clearly of full column rank (or KLU failed): then
 * nothing is written. */
static int s_solve_sparse(const mbs_model *m, struct mbs_rx_ws *ws, int neq, int nu, const double *A, double *rhs)
{
    const mbs_spec *s = m->spec;
    int nw = m->dim == 3 ? 6 : 3, N = neq + nu;
    mbs_sparse *S = ws->S;
    mbs_sparse_begin(S, N);
    for (int i = 0; i < neq; i++) mbs_sparse_add(S, i, i, 1.0);
    /* each joint's columns once per body (a joint between a body and
     * itself is not one) */
    for (int j = 0; j < s->njoint; j++)
        for (int side = 0; side < 2; side++) {
            int b = s->joints[j].body[side];
            if (b < 0 || (side == 1 && b == s->joints[j].body[0])) continue;
            for (int c = ws->off[j]; c < ws->off[j + 1]; c++)
                for (int i = 0; i < nw; i++) {
                    double a = A[(size_t)c * neq + (size_t)b * nw + i];
                    mbs_sparse_add(S, b * nw + i, neq + c, a);
                    mbs_sparse_add(S, neq + c, b * nw + i, a);
                }
        }
    if (mbs_sparse_factor(S, NULL) != 0 || !(mbs_sparse_condest(S) < RX_COND_MAX)) return -1;
    double *x = ws->sb, *r = ws->sr;
    memcpy(x, rhs, sizeof(double) * (size_t)neq);
    memset(x + neq, 0, sizeof(double) * (size_t)nu);
    if (mbs_sparse_solve(S, x)) return -1;
    /* one step of iterative refinement: residual of [r; y] in the
     * augmented equations r + A y = b, A^T r = 0 */
    for (int i = 0; i < neq; i++) r[i] = rhs[i] - x[i];
    for (int c = 0; c < nu; c++) {
        const double *col = A + (size_t)c * neq;
        double yc = x[neq + c], acc = 0;
        for (int i = 0; i < neq; i++) {
            if (col[i] == 0) continue;
            r[i] -= col[i] * yc;
            acc += col[i] * x[i];
        }
        r[neq + c] = -acc;
    }
    if (mbs_sparse_solve(S, r)) return -1;
    for (int c = 0; c < nu; c++) rhs[c] = x[neq + c] + r[neq + c];
    return 0;
}

/* Solve every joint's reaction at a state; results in w->out (njoint x 6:
 * force then torque, on body[1] at the joint point). */
static int s_solve_all(const mbs_model *m, mbs_data *d, struct mbs_rx_ws *ws, double t, const double *x,
                       const double *v, const double *a)
{
    const mbs_spec *s = m->spec;
    int dim = m->dim, nb = m->nb, nw = dim == 3 ? 6 : 3, nj = s->njoint;
    int neq = m->nbody * nw;
    int *off = ws->off;
    double (*dirs)[S_MAXDIR][6] = ws->dirs;
    double (*pts)[2][3] = ws->pts;
    double *Qb = ws->Qb;
    for (int j = 0; j < nj; j++) {
        int driven = 0;
        for (int k = 0; k < s->ndriver; k++) driven |= s->drivers[k].joint == j;
        int n = s_dirs(m, j, x, dirs[j], driven);
        const mbs_joint_spec *J = &s->joints[j];
        if (J->type == MBS_JOINT_DISTANCE) {
            s_point_now(m, J->body[0], J->points[0], x, pts[j][0]);
            s_point_now(m, J->body[1], J->points[1], x, pts[j][1]);
            double u[3];
            v3sub(pts[j][1], pts[j][0], u);
            v3unit(u, u);
            memset(dirs[j], 0, sizeof dirs[j]);
            v3copy(u, dirs[j][0]);
            n = 1;
        } else {
            double at[3];
            int b = J->body[1] >= 0 ? J->body[1] : J->body[0];
            s_point_now(m, b, J->at, x, at);
            v3copy(at, pts[j][0]);
            v3copy(at, pts[j][1]);
        }
        off[j + 1] = off[j] + n;
    }
    int nu = off[nj];
    int mrows = neq > nu ? neq : nu;
    double *A = ws->A, *rhs = ws->rhs;
    memset(A, 0, sizeof(double) * (size_t)neq * (size_t)(nu > 0 ? nu : 1));
    memset(rhs, 0, sizeof(double) * (size_t)(mrows + 1));
    /* body balances: rigid projection of M_b qdd_b - Q_b at the com; rigid
     * contacts are not force elements: their forces come from the
     * integrator that solved them */
    mbs_force_eval_body(m, d, x, v, t, Qb);
    s_pfctx pf = {m, Qb};
    mbs_contact_forces_each(m, d, t, x, v, 1, s_add_point_force, &pf);
    mbs_force_rotor_body(m, x, a, Qb);
    for (int b = 0; b < m->nbody; b++) {
        const mbs_body *bd = &m->body[b];
        double qb[MBS_NB_MAX], qa[MBS_NB_MAX], r[MBS_NB_MAX], o[3] = {0, 0, 0};
        mbs_gather(m, b, x, 0, qb);
        mbs_gather(m, b, a, 1, qa);
        for (int i = 0; i < nb; i++) {
            double acc = 0;
            for (int k = 0; k < nb; k++) acc += bd->Mb[i * nb + k] * qa[k];
            r[i] = acc - Qb[b * nb + i];
        }
        double L[3 * MBS_NB_MAX];
        mbs_point_map(m, b, bd->c_com, 1, L);
        for (int i = 0; i < dim; i++)
            for (int k = 0; k < nb; k++) o[i] += L[i * nb + k] * qb[k];
        double F[3] = {0, 0, 0}, T[3] = {0, 0, 0};
        int nslot = dim == 3 ? 4 : 2;
        for (int sl = 0; sl < nslot; sl++) {
            int is_point = sl == 0 || bd->vec_is_point[sl - 1];
            double rv[3] = {0, 0, 0}, pv[3] = {0, 0, 0}, c[3];
            for (int i = 0; i < dim; i++) { rv[i] = r[dim * sl + i]; pv[i] = qb[dim * sl + i]; }
            if (is_point) {
                for (int i = 0; i < 3; i++) F[i] += rv[i];
                v3sub(pv, o, pv);
            }
            v3cross(pv, rv, c);
            for (int i = 0; i < 3; i++) T[i] += c[i];
        }
        double *row = rhs + (size_t)b * nw;
        for (int i = 0; i < dim; i++) row[i] = F[i];
        if (dim == 3) for (int i = 0; i < 3; i++) row[3 + i] = T[i];
        else row[2] = T[2];
        /* joint contributions: +wrench on body[1], -wrench on body[0] */
        for (int j = 0; j < nj; j++) {
            const mbs_joint_spec *J = &s->joints[j];
            for (int side = 0; side < 2; side++) {
                if (J->body[side] != b) continue;
                double sg = side == 1 ? 1.0 : -1.0, pr[3];
                v3sub(pts[j][side], o, pr);
                if (dim == 2) pr[2] = 0;
                for (int k = 0; k < off[j + 1] - off[j]; k++) {
                    const double *w = dirs[j][k];
                    double mo[3];
                    v3cross(pr, w, mo);
                    double *col = A + (size_t)(off[j] + k) * neq + (size_t)b * nw;
                    for (int i = 0; i < dim; i++) col[i] += sg * w[i];
                    if (dim == 3) for (int i = 0; i < 3; i++) col[3 + i] += sg * (w[3 + i] + mo[i]);
                    else col[2] += sg * (w[5] + mo[2]);
                }
            }
        }
    }
    /* the sparse augmented system, made at the first solve (A's structure
     * is fixed); the dense minimum-norm solution when it does not serve */
    if (!ws->sp_tried && nu > 0) {
        ws->sp_tried = 1;
        ws->sb = malloc(sizeof(double) * (size_t)(neq + nu));
        ws->sr = malloc(sizeof(double) * (size_t)(neq + nu));
        ws->S = ws->sb && ws->sr ? s_aug_new(m, off, neq, nu) : NULL;
    }
    int rc = 0;
    if (nu > 0 && !(ws->S && s_solve_sparse(m, ws, neq, nu, A, rhs) == 0))
        rc = mbs_lstsq_ws(neq, nu, A, rhs, ws->work, ws->lwork, ws->iwork);
    double *out = ws->out;
    for (int j = 0; j < nj && rc == 0; j++) {
        double *w = out + 6 * j;
        memset(w, 0, sizeof(double) * 6);
        for (int k = 0; k < off[j + 1] - off[j]; k++)
            for (int i = 0; i < 6; i++) w[i] += rhs[off[j] + k] * dirs[j][k][i];
    }
    return rc;
}

void mbs_reaction_given(mbs_data *d, const double *wrenches)
{
    struct mbs_rx_ws *ws = d->rx;
    if (!ws) return;
    ws->valid = 0;
    ws->given = wrenches != NULL;
    if (wrenches) memcpy(ws->out, wrenches, sizeof(double) * 6 * (size_t)ws->nj);
}

double mbs_reaction(const mbs_model *m, mbs_data *d, int joint, int torque, mbs_component comp, double t,
                    const double *x, const double *v, const double *a)
{
    struct mbs_rx_ws *ws = d->rx;
    if (!ws) return NAN; /* prepared by the sampler when a channel needs it */
    if (!ws->given && !(ws->valid && ws->t == t && ws->x == x)) {
        if (s_solve_all(m, d, ws, t, x, v, a) != 0) return NAN;
        ws->t = t;
        ws->x = x;
        ws->valid = 1;
    }
    const double *w = ws->out + 6 * joint + (torque ? 3 : 0);
    if (m->dim == 2 && torque) return w[2];
    if (comp == MBS_C_MAGNITUDE) return m->dim == 3 ? v3norm(w) : hypot(w[0], w[1]);
    if (comp >= MBS_C_X && comp <= MBS_C_Z) return w[comp];
    return w[0];
}
