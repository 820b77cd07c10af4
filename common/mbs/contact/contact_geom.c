/*
 * contact_geom.c - narrow-phase contact geometry (see contact_geom.h for the
 * conventions: n from A to B, g = n . (pb - pa), g <= margin reported).
 *
 * Planar pairs are evaluated with the points lifted to z = 0, so the planar
 * and spatial code share the vector helpers of vec.h.
 */
#include "mbs/contact/contact_geom.h"
#include "mbs/linalg/vec.h"

#include <math.h>
#include <stddef.h>

/* Lengths at or below this are treated as zero when a direction is needed
 * (far below any model length; it only guards the division). */
#define S_TINY 1e-300

/* Sine of the angle below which two capsule axes count as parallel. */
#define S_PARALLEL_SIN 1e-6

static const double s_ex[3] = {1, 0, 0};

/* ---- small helpers ------------------------------------------------------------------ */

static double s_clamp01(double x) { return x < 0 ? 0 : (x > 1 ? 1 : x); }

static void s_lift(const double *v2, double *v3)
{
    v3[0] = v2[0];
    v3[1] = v2[1];
    v3[2] = 0;
}

/* c = a + s b */
static void s_axpy(const double *a, double s, const double *b, double *c)
{
    for (int k = 0; k < 3; k++) c[k] = a[k] + s * b[k];
}

/* Unit vector of v, or a copy of fallback (a unit vector) when |v| is tiny.
 * Divides component-wise so that a tiny length cannot overflow. Returns |v|. */
static double s_unit_or(const double *v, const double *fallback, double *u)
{
    double len = v3norm(v);
    if (len > S_TINY) {
        for (int k = 0; k < 3; k++) u[k] = v[k] / len;
    } else {
        v3copy(fallback, u);
    }
    return len;
}

/* A unit vector perpendicular to d: d x (the world axis along which d has
 * its smallest component), normalised.  d = 0 gives +x. */
static void s_perp(const double *d, double *u)
{
    double ax[3] = {0, 0, 0}, c[3];
    int k = 0;
    for (int i = 1; i < 3; i++)
        if (fabs(d[i]) < fabs(d[k])) k = i;
    ax[k] = 1;
    v3cross(d, ax, c);
    s_unit_or(c, s_ex, u);
}

/* Append a point when g <= margin (NaN never passes) and there is room. */
static void s_push(mbs_contact_set *out, double margin, double g, const double *n,
                   const double *pa, const double *pb)
{
    if (!(g <= margin) || out->n >= MBS_CONTACT_MAX) return;
    mbs_contact *c = &out->c[out->n++];
    c->g = g;
    v3copy(n, c->n);
    v3copy(pa, c->pa);
    v3copy(pb, c->pb);
}

/* Closest point q = a + t (b - a) of segment a-b to x; returns t in [0, 1]
 * (0 for a zero-length segment). */
static double s_closest_on_segment(const double *x, const double *a, const double *b, double *q)
{
    double d[3], ax[3];
    v3sub(b, a, d);
    v3sub(x, a, ax);
    double dd = v3dot(d, d), t = 0;
    if (dd > 0) t = s_clamp01(v3dot(ax, d) / dd);
    s_axpy(a, t, d, q);
    return t;
}

/* Sphere (centre c, radius ra) against a round shape given by its nearest
 * axis point q and radius rb: the common core of circle-circle, circle-
 * segment, sphere-sphere and capsule-capsule.  `fallback` is the normal used
 * when c and q coincide. */
static void s_round_pair(const double *c, double ra, const double *q, double rb,
                         const double *fallback, double margin, mbs_contact_set *out)
{
    double v[3], n[3], pa[3], pb[3];
    v3sub(q, c, v);
    /* beyond the margin (most pairs of a deactivation set): no normal or
     * witness points to compute */
    if (!(v3norm(v) - ra - rb <= margin)) return;
    double dist = s_unit_or(v, fallback, n);
    s_axpy(c, ra, n, pa);
    s_axpy(q, -rb, n, pb);
    s_push(out, margin, dist - ra - rb, n, pa, pb);
}

/* Half-space contact of a round shape (centre x, radius r) with the boundary
 * through p with outward unit normal nu (A = the round shape, B = half-space). */
static void s_halfspace(const double *x, double r, const double *p, const double *nu,
                        double margin, mbs_contact_set *out)
{
    double xp[3], n[3], pa[3], pb[3];
    v3sub(x, p, xp);
    double d = v3dot(nu, xp);
    v3scale(-1, nu, n);
    s_axpy(x, -r, nu, pa);
    s_axpy(x, -d, nu, pb);
    s_push(out, margin, d - r, n, pa, pb);
}

/* Unit normal of a line (2-D, lifted) or plane; zero falls back to `fb`. */
static void s_normal2(const double *n2, double *u)
{
    static const double fb[3] = {0, 1, 0};
    double v[3];
    s_lift(n2, v);
    s_unit_or(v, fb, u);
}

static void s_normal3(const double *n3, double *u)
{
    static const double fb[3] = {0, 0, 1};
    s_unit_or(n3, fb, u);
}

/* World point of box coordinates l: c + R l. */
static void s_box_to_world(const mbs_box *bx, const double *l, double *x)
{
    for (int i = 0; i < 3; i++)
        x[i] = bx->c[i] + bx->R[3 * i] * l[0] + bx->R[3 * i + 1] * l[1] + bx->R[3 * i + 2] * l[2];
}

/* World vector of box vector l: R l. */
static void s_box_dir(const mbs_box *bx, const double *l, double *v)
{
    for (int i = 0; i < 3; i++)
        v[i] = bx->R[3 * i] * l[0] + bx->R[3 * i + 1] * l[1] + bx->R[3 * i + 2] * l[2];
}

/* Box coordinates of world point x: R^T (x - c). */
static void s_box_from_world(const mbs_box *bx, const double *x, double *l)
{
    double d[3];
    v3sub(x, bx->c, d);
    for (int j = 0; j < 3; j++) l[j] = bx->R[j] * d[0] + bx->R[3 + j] * d[1] + bx->R[6 + j] * d[2];
}

static void s_begin(mbs_contact_set *out) { out->n = 0; }

/* ---- planar pairs ---------------------------------------------------------------------- */

int mbs_contact_circle_circle(const mbs_circle *a, const mbs_circle *b, double margin,
                              mbs_contact_set *out)
{
    double ca[3], cb[3];
    s_begin(out);
    s_lift(a->c, ca);
    s_lift(b->c, cb);
    s_round_pair(ca, a->r, cb, b->r, s_ex, margin, out);
    return out->n;
}

int mbs_contact_circle_segment(const mbs_circle *a, const mbs_segment2 *b, double margin,
                               mbs_contact_set *out)
{
    double c[3], sa[3], sb[3], d[3], q[3], fb[3];
    s_begin(out);
    s_lift(a->c, c);
    s_lift(b->a, sa);
    s_lift(b->b, sb);
    s_closest_on_segment(c, sa, sb, q);
    /* centre on the segment: the circle counts as lying on the left of a -> b,
     * so the normal towards the segment is d turned by -90 degrees */
    v3sub(sb, sa, d);
    double right[3] = {d[1], -d[0], 0};
    s_unit_or(right, s_ex, fb);
    s_round_pair(c, a->r, q, 0, fb, margin, out);
    return out->n;
}

int mbs_contact_circle_line(const mbs_circle *a, const mbs_line2 *b, double margin,
                            mbs_contact_set *out)
{
    double c[3], p[3], nu[3];
    s_begin(out);
    s_lift(a->c, c);
    s_lift(b->p, p);
    s_normal2(b->n, nu);
    s_halfspace(c, a->r, p, nu, margin, out);
    return out->n;
}

int mbs_contact_point_line(const mbs_point2 *a, const mbs_line2 *b, double margin,
                           mbs_contact_set *out)
{
    /* a point is a circle of radius 0 */
    const mbs_circle c = {{a->p[0], a->p[1]}, 0};
    return mbs_contact_circle_line(&c, b, margin, out);
}

int mbs_contact_point_segment(const mbs_point2 *a, const mbs_segment2 *b, double margin,
                              mbs_contact_set *out)
{
    double x[3], sa[3], sb[3], d[3], ax[3], nu[3];
    s_begin(out);
    s_lift(a->p, x);
    s_lift(b->a, sa);
    s_lift(b->b, sb);
    v3sub(sb, sa, d);
    v3sub(x, sa, ax);
    double dd = v3dot(d, d);
    if (!(dd > 0)) return 0;
    /* only while the point projects onto the wall */
    double t = v3dot(ax, d) / dd;
    if (!(t >= 0 && t <= 1)) return 0;
    double left[3] = {-d[1], d[0], 0};
    s_unit_or(left, s_ex, nu);
    s_halfspace(x, 0, sa, nu, margin, out);
    return out->n;
}

/* ---- spatial pairs ------------------------------------------------------------------- */

int mbs_contact_sphere_sphere(const mbs_sphere *a, const mbs_sphere *b, double margin,
                              mbs_contact_set *out)
{
    s_begin(out);
    s_round_pair(a->c, a->r, b->c, b->r, s_ex, margin, out);
    return out->n;
}

int mbs_contact_sphere_plane(const mbs_sphere *a, const mbs_plane *b, double margin,
                             mbs_contact_set *out)
{
    double nu[3];
    s_begin(out);
    s_normal3(b->n, nu);
    s_halfspace(a->c, a->r, b->p, nu, margin, out);
    return out->n;
}

int mbs_contact_box_plane(const mbs_box *a, const mbs_plane *b, double margin,
                          mbs_contact_set *out)
{
    double nu[3], vert[8][3], g[8];
    int idx[8], m = 0;
    s_begin(out);
    s_normal3(b->n, nu);
    /* vertices within the margin; vertex i has the sign of bit k on axis k */
    for (int i = 0; i < 8; i++) {
        double l[3], xp[3];
        for (int k = 0; k < 3; k++) l[k] = (i >> k & 1) ? a->h[k] : -a->h[k];
        s_box_to_world(a, l, vert[i]);
        v3sub(vert[i], b->p, xp);
        g[i] = v3dot(nu, xp);
        if (g[i] <= margin) idx[m++] = i;
    }
    /* order by gap (insertion sort: stable, so ties keep the vertex order) */
    for (int i = 1; i < m; i++) {
        int v = idx[i], j = i;
        for (; j > 0 && g[idx[j - 1]] > g[v]; j--) idx[j] = idx[j - 1];
        idx[j] = v;
    }
    for (int k = 0; k < m && k < MBS_CONTACT_MAX; k++)
        s_halfspace(vert[idx[k]], 0, b->p, nu, margin, out);
    return out->n;
}

int mbs_contact_sphere_box(const mbs_sphere *a, const mbs_box *b, double margin,
                           mbs_contact_set *out)
{
    double l[3], q[3], d[3], dw[3], n[3], pa[3], pb[3];
    s_begin(out);
    s_box_from_world(b, a->c, l);
    /* closest point of the solid box, in box coordinates */
    for (int k = 0; k < 3; k++) {
        q[k] = l[k] < -b->h[k] ? -b->h[k] : (l[k] > b->h[k] ? b->h[k] : l[k]);
        d[k] = q[k] - l[k];
    }
    s_box_dir(b, d, dw);
    double dist = v3norm(dw);
    if (dist > S_TINY) {
        /* centre outside: n from the centre to the closest point */
        for (int k = 0; k < 3; k++) n[k] = dw[k] / dist;
        s_box_to_world(b, q, pb);
        s_axpy(a->c, a->r, n, pa);
        s_push(out, margin, dist - a->r, n, pa, pb);
        return out->n;
    }
    /* centre inside: leave through the nearest face; n = minus its outward
     * normal (the sphere moves along +e, so B moves along -e relative to A) */
    int kf = 0;
    for (int k = 1; k < 3; k++)
        if (b->h[k] - fabs(l[k]) < b->h[kf] - fabs(l[kf])) kf = k;
    double sgn = l[kf] < 0 ? -1 : 1, depth = b->h[kf] - fabs(l[kf]);
    double e[3] = {0, 0, 0};
    e[kf] = -sgn;
    s_box_dir(b, e, n);
    v3copy(l, q);
    q[kf] = sgn * b->h[kf];
    s_box_to_world(b, q, pb);
    s_axpy(a->c, a->r, n, pa);
    s_push(out, margin, -depth - a->r, n, pa, pb);
    return out->n;
}

/* Closest points P = p1 + s d1, Q = p2 + t d2 of two segments (Ericson,
 * Real-Time Collision Detection, 5.1.9).  Parallel or zero-length segments
 * take s = 0 or the clamped projection, so the result is always defined. */
static void s_segment_segment(const double *p1, const double *q1, const double *p2,
                              const double *q2, double *sp, double *tp)
{
    double d1[3], d2[3], r[3];
    v3sub(q1, p1, d1);
    v3sub(q2, p2, d2);
    v3sub(p1, p2, r);
    double a = v3dot(d1, d1), e = v3dot(d2, d2), f = v3dot(d2, r);
    double s = 0, t = 0;
    if (a <= 0 && e <= 0) {
        s = t = 0;
    } else if (a <= 0) {
        t = s_clamp01(f / e);
    } else {
        double c = v3dot(d1, r);
        if (e <= 0) {
            s = s_clamp01(-c / a);
        } else {
            double b = v3dot(d1, d2), cr[3];
            /* |d1 x d2|^2 = a e - b^2 without the cancellation */
            v3cross(d1, d2, cr);
            double denom = v3dot(cr, cr);
            s = denom > 0 ? s_clamp01((b * f - c * e) / denom) : 0;
            t = (b * s + f) / e;
            if (t < 0) {
                t = 0;
                s = s_clamp01(-c / a);
            } else if (t > 1) {
                t = 1;
                s = s_clamp01((b - c) / a);
            }
        }
    }
    *sp = s;
    *tp = t;
}

/* Fallback normal for two segment axes at zero distance: unit(d1 x d2) when
 * they are not parallel, else perpendicular to the longer one. */
static void s_axes_fallback(const double *d1, const double *d2, double *u)
{
    double cr[3], fb[3];
    s_perp(v3dot(d1, d1) >= v3dot(d2, d2) ? d1 : d2, fb);
    v3cross(d1, d2, cr);
    s_unit_or(cr, fb, u);
}

int mbs_contact_capsule_capsule(const mbs_capsule *a, const mbs_capsule *b, double margin,
                                mbs_contact_set *out)
{
    double d1[3], d2[3], cr[3], fb[3], P[3], Q[3];
    s_begin(out);
    v3sub(a->b, a->a, d1);
    v3sub(b->b, b->a, d2);
    s_axes_fallback(d1, d2, fb);
    double aa = v3dot(d1, d1), ee = v3dot(d2, d2);
    v3cross(d1, d2, cr);
    /* parallel axes whose projections overlap: one point at each end of the
     * overlap (distance from that point of A's axis to B's segment) */
    if (aa > 0 && ee > 0 && v3dot(cr, cr) <= S_PARALLEL_SIN * S_PARALLEL_SIN * aa * ee) {
        double u0[3], u1[3];
        v3sub(b->a, a->a, u0);
        v3sub(b->b, a->a, u1);
        double s0 = v3dot(u0, d1) / aa, s1 = v3dot(u1, d1) / aa;
        double lo = fmax(0, fmin(s0, s1)), hi = fmin(1, fmax(s0, s1));
        if (lo < hi) {
            double ends[2] = {lo, hi};
            for (int k = 0; k < 2; k++) {
                s_axpy(a->a, ends[k], d1, P);
                s_closest_on_segment(P, b->a, b->b, Q);
                s_round_pair(P, a->r, Q, b->r, fb, margin, out);
            }
            return out->n;
        }
    }
    double s, t;
    s_segment_segment(a->a, a->b, b->a, b->b, &s, &t);
    s_axpy(a->a, s, d1, P);
    s_axpy(b->a, t, d2, Q);
    s_round_pair(P, a->r, Q, b->r, fb, margin, out);
    return out->n;
}

int mbs_contact_sphere_capsule(const mbs_sphere *a, const mbs_capsule *b, double margin,
                               mbs_contact_set *out)
{
    mbs_capsule ca;
    v3copy(a->c, ca.a);
    v3copy(a->c, ca.b);
    ca.r = a->r;
    return mbs_contact_capsule_capsule(&ca, b, margin, out);
}

int mbs_contact_capsule_plane(const mbs_capsule *a, const mbs_plane *b, double margin,
                              mbs_contact_set *out)
{
    double nu[3];
    s_begin(out);
    s_normal3(b->n, nu);
    s_halfspace(a->a, a->r, b->p, nu, margin, out);
    if (a->b[0] != a->a[0] || a->b[1] != a->a[1] || a->b[2] != a->a[2])
        s_halfspace(a->b, a->r, b->p, nu, margin, out);
    return out->n;
}

void mbs_contact_tangents(int dim, const double *n, double *t1, double *t2)
{
    if (dim == 2) {
        t1[0] = -n[1];
        t1[1] = n[0];
        t1[2] = 0;
        t2[0] = t2[1] = 0;
        t2[2] = 1;
        return;
    }
    /* e_k x n, e_k the axis of the smallest |n_k| (s_perp gives d x e_k) */
    double u[3];
    s_perp(n, u);
    v3scale(-1, u, t1);
    v3cross(n, t1, t2);
}

/* ---- dispatcher -------------------------------------------------------------------------- */

void mbs_contact_flip(mbs_contact_set *s)
{
    for (int i = 0; i < s->n; i++) {
        mbs_contact *c = &s->c[i];
        double tmp[3];
        v3scale(-1, c->n, c->n);
        v3copy(c->pa, tmp);
        v3copy(c->pb, c->pa);
        v3copy(tmp, c->pb);
    }
}

/* The pair in the canonical order of the pair functions; -1 if none. */
static int s_dispatch(const mbs_shape *a, const mbs_shape *b, double margin, mbs_contact_set *out)
{
#define S_PAIR(ka, kb) ((int)(ka) * MBS_SHAPE_NKIND + (int)(kb))
    switch (S_PAIR(a->kind, b->kind)) {
    case S_PAIR(MBS_SHAPE_CIRCLE, MBS_SHAPE_CIRCLE):
        return mbs_contact_circle_circle(&a->circle, &b->circle, margin, out);
    case S_PAIR(MBS_SHAPE_CIRCLE, MBS_SHAPE_SEGMENT2):
        return mbs_contact_circle_segment(&a->circle, &b->segment2, margin, out);
    case S_PAIR(MBS_SHAPE_CIRCLE, MBS_SHAPE_LINE2):
        return mbs_contact_circle_line(&a->circle, &b->line2, margin, out);
    case S_PAIR(MBS_SHAPE_POINT2, MBS_SHAPE_LINE2):
        return mbs_contact_point_line(&a->point2, &b->line2, margin, out);
    case S_PAIR(MBS_SHAPE_POINT2, MBS_SHAPE_SEGMENT2):
        return mbs_contact_point_segment(&a->point2, &b->segment2, margin, out);
    case S_PAIR(MBS_SHAPE_SPHERE, MBS_SHAPE_SPHERE):
        return mbs_contact_sphere_sphere(&a->sphere, &b->sphere, margin, out);
    case S_PAIR(MBS_SHAPE_SPHERE, MBS_SHAPE_PLANE):
        return mbs_contact_sphere_plane(&a->sphere, &b->plane, margin, out);
    case S_PAIR(MBS_SHAPE_BOX, MBS_SHAPE_PLANE):
        return mbs_contact_box_plane(&a->box, &b->plane, margin, out);
    case S_PAIR(MBS_SHAPE_SPHERE, MBS_SHAPE_BOX):
        return mbs_contact_sphere_box(&a->sphere, &b->box, margin, out);
    case S_PAIR(MBS_SHAPE_SPHERE, MBS_SHAPE_CAPSULE):
        return mbs_contact_sphere_capsule(&a->sphere, &b->capsule, margin, out);
    case S_PAIR(MBS_SHAPE_CAPSULE, MBS_SHAPE_CAPSULE):
        return mbs_contact_capsule_capsule(&a->capsule, &b->capsule, margin, out);
    case S_PAIR(MBS_SHAPE_CAPSULE, MBS_SHAPE_PLANE):
        return mbs_contact_capsule_plane(&a->capsule, &b->plane, margin, out);
    default:
        return -1;
    }
#undef S_PAIR
}

int mbs_contact_shapes(const mbs_shape *a, const mbs_shape *b, double margin,
                       mbs_contact_set *out)
{
    out->n = 0;
    if ((unsigned)a->kind >= MBS_SHAPE_NKIND || (unsigned)b->kind >= MBS_SHAPE_NKIND) return -1;
    int n = s_dispatch(a, b, margin, out);
    if (n >= 0) return n;
    n = s_dispatch(b, a, margin, out);
    if (n < 0) {
        out->n = 0;
        return -1;
    }
    mbs_contact_flip(out);
    return n;
}

int mbs_contact_supported(mbs_shape_kind a, mbs_shape_kind b)
{
    static const unsigned char ok[MBS_SHAPE_NKIND][MBS_SHAPE_NKIND] = {
        [MBS_SHAPE_CIRCLE][MBS_SHAPE_CIRCLE] = 1,
        [MBS_SHAPE_CIRCLE][MBS_SHAPE_SEGMENT2] = 1,
        [MBS_SHAPE_CIRCLE][MBS_SHAPE_LINE2] = 1,
        [MBS_SHAPE_POINT2][MBS_SHAPE_LINE2] = 1,
        [MBS_SHAPE_POINT2][MBS_SHAPE_SEGMENT2] = 1,
        [MBS_SHAPE_SPHERE][MBS_SHAPE_SPHERE] = 1,
        [MBS_SHAPE_SPHERE][MBS_SHAPE_PLANE] = 1,
        [MBS_SHAPE_BOX][MBS_SHAPE_PLANE] = 1,
        [MBS_SHAPE_SPHERE][MBS_SHAPE_BOX] = 1,
        [MBS_SHAPE_SPHERE][MBS_SHAPE_CAPSULE] = 1,
        [MBS_SHAPE_CAPSULE][MBS_SHAPE_CAPSULE] = 1,
        [MBS_SHAPE_CAPSULE][MBS_SHAPE_PLANE] = 1,
    };
    if ((unsigned)a >= MBS_SHAPE_NKIND || (unsigned)b >= MBS_SHAPE_NKIND) return 0;
    return ok[a][b] || ok[b][a];
}

/* ---- bounding boxes ----------------------------------------------------------------- */

/* Box of the half-space with boundary through p and outward unit normal nu
 * in `dim` dimensions: infinite, except along an axis nu is parallel to. */
static void s_aabb_halfspace(const double *p, const double *nu, int dim, double inflate,
                             mbs_aabb *box)
{
    for (int k = 0; k < dim; k++) {
        box->lo[k] = -HUGE_VAL;
        box->hi[k] = HUGE_VAL;
    }
    for (int k = 0; k < dim; k++) {
        int axis_aligned = fabs(nu[k]) == 1;
        for (int j = 0; j < dim; j++)
            if (j != k && nu[j] != 0) axis_aligned = 0;
        if (!axis_aligned) continue;
        if (nu[k] > 0)
            box->hi[k] = p[k] + inflate;
        else
            box->lo[k] = p[k] - inflate;
    }
}

/* Box of the points x[0..np) (3-vectors) enlarged by e. */
static void s_aabb_points(double (*x)[3], int np, double e, mbs_aabb *box)
{
    for (int k = 0; k < 3; k++) {
        double lo = x[0][k], hi = x[0][k];
        for (int i = 1; i < np; i++) {
            lo = fmin(lo, x[i][k]);
            hi = fmax(hi, x[i][k]);
        }
        box->lo[k] = lo - e;
        box->hi[k] = hi + e;
    }
}

int mbs_shape_aabb(const mbs_shape *s, double inflate, mbs_aabb *box)
{
    double x[2][3], nu[3];
    switch (s->kind) {
    case MBS_SHAPE_POINT2:
        s_lift(s->point2.p, x[0]);
        s_aabb_points(x, 1, inflate, box);
        break;
    case MBS_SHAPE_CIRCLE:
        s_lift(s->circle.c, x[0]);
        s_aabb_points(x, 1, s->circle.r + inflate, box);
        break;
    case MBS_SHAPE_SEGMENT2:
        s_lift(s->segment2.a, x[0]);
        s_lift(s->segment2.b, x[1]);
        s_aabb_points(x, 2, inflate, box);
        break;
    case MBS_SHAPE_LINE2:
        s_lift(s->line2.p, x[0]);
        s_normal2(s->line2.n, nu);
        s_aabb_halfspace(x[0], nu, 2, inflate, box);
        break;
    case MBS_SHAPE_SPHERE:
        v3copy(s->sphere.c, x[0]);
        s_aabb_points(x, 1, s->sphere.r + inflate, box);
        return 3;
    case MBS_SHAPE_PLANE:
        s_normal3(s->plane.n, nu);
        s_aabb_halfspace(s->plane.p, nu, 3, inflate, box);
        return 3;
    case MBS_SHAPE_BOX:
        /* half-width along world axis i: sum_j |R_ij| h_j */
        for (int i = 0; i < 3; i++) {
            const double *R = s->box.R + 3 * i;
            double w = fabs(R[0]) * s->box.h[0] + fabs(R[1]) * s->box.h[1] + fabs(R[2]) * s->box.h[2];
            box->lo[i] = s->box.c[i] - w - inflate;
            box->hi[i] = s->box.c[i] + w + inflate;
        }
        return 3;
    case MBS_SHAPE_CAPSULE:
        v3copy(s->capsule.a, x[0]);
        v3copy(s->capsule.b, x[1]);
        s_aabb_points(x, 2, s->capsule.r + inflate, box);
        return 3;
    default:
        return 0;
    }
    /* planar shapes: flat in z */
    box->lo[2] = box->hi[2] = 0;
    return 2;
}

const char *mbs_shape_kind_name(mbs_shape_kind k)
{
    static const char *names[MBS_SHAPE_NKIND] = {"point", "circle", "segment", "line",
                                                 "sphere", "plane", "box", "capsule"};
    return (unsigned)k < MBS_SHAPE_NKIND ? names[k] : "?";
}
