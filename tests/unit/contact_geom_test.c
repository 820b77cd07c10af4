/*
 * contact_geom_test.c - tests of common/mbs/contact/contact_geom.c (narrow phase)
 * and common/mbs/contact/broadphase.c (sort and sweep).
 *
 *   - every pair type against hand-computed gaps, normals and witness points
 *     (separated, touching, penetrating, beyond the margin, degenerate);
 *   - box-plane with a tilted box (exact vertex depths), capsule-capsule
 *     parallel, collinear and crossing;
 *   - finite differences: dg/d(translation of B) = n and of A = -n;
 *   - the dispatcher in both orders, the flip;
 *   - degenerate random input never gives NaN;
 *   - bounding boxes, and the broad phase never misses a narrow-phase point;
 *   - sort and sweep returns exactly the pairs of the direct test (N = 1000
 *     boxes, 20,000 declared pairs, 2-D and 3-D, moving boxes).
 * Random numbers come from a fixed-seed generator, so runs are repeatable.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "mbs/contact/broadphase.h"
#include "mbs/contact/contact_geom.h"
#include "mbs/mbs.h"
#include "mbs/linalg/vec.h"

/* ---- helpers ------------------------------------------------------------------------- */

static uint64_t s_rng = 0x9E3779B97F4A7C15ull;

/* xorshift64*: uniform in [0, 1) */
static double t_rand(void)
{
    s_rng ^= s_rng >> 12;
    s_rng ^= s_rng << 25;
    s_rng ^= s_rng >> 27;
    return (double)((s_rng * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

static double t_uni(double a, double b) { return a + (b - a) * t_rand(); }

static void t_set3(double *v, double x, double y, double z)
{
    v[0] = x;
    v[1] = y;
    v[2] = z;
}

static void t_identity(double *R)
{
    for (int k = 0; k < 9; k++) R[k] = (k % 4 == 0) ? 1 : 0;
}

/* Rotation by angle th about world axis k (row-major). */
static void t_rot(int k, double th, double *R)
{
    double c = cos(th), s = sin(th);
    int i = (k + 1) % 3, j = (k + 2) % 3;
    t_identity(R);
    R[3 * i + i] = c;
    R[3 * i + j] = -s;
    R[3 * j + i] = s;
    R[3 * j + j] = c;
}

/* x = c + R l */
static void t_local(const double *c, const double *R, const double *l, double *x)
{
    for (int i = 0; i < 3; i++) x[i] = c[i] + R[3 * i] * l[0] + R[3 * i + 1] * l[1] + R[3 * i + 2] * l[2];
}

static void t_random_rotation(double *R)
{
    double q[4], n = 0;
    do {
        n = 0;
        for (int k = 0; k < 4; k++) {
            q[k] = t_uni(-1, 1);
            n += q[k] * q[k];
        }
    } while (n < 0.01 || n > 1);
    for (int k = 0; k < 4; k++) q[k] /= sqrt(n);
    quat_to_mat(q, R);
}

/* Every point of a result is finite, |n| = 1 and g = n . (pb - pa). */
static int t_consistent(const mbs_contact_set *s)
{
    if (s->n < 0 || s->n > MBS_CONTACT_MAX) return 0;
    for (int i = 0; i < s->n; i++) {
        const mbs_contact *c = &s->c[i];
        double d[3];
        if (!isfinite(c->g)) return 0;
        for (int k = 0; k < 3; k++)
            if (!isfinite(c->n[k]) || !isfinite(c->pa[k]) || !isfinite(c->pb[k])) return 0;
        v3sub(c->pb, c->pa, d);
        double scale = 1 + v3norm(c->pa) + v3norm(c->pb);
        if (fabs(v3norm(c->n) - 1) > 1e-12) return 0;
        if (fabs(v3dot(c->n, d) - c->g) > 1e-12 * scale) return 0;
    }
    return 1;
}

/* Check point i of s against expected values; reports the caller's line. */
static void t_point(int line, const mbs_contact_set *s, int i, double g, const double *n,
                    const double *pa, const double *pb, double tol)
{
    int f0 = check_failed_;
    CHECK(t_consistent(s));
    if (CHECK(i < s->n)) {
        const mbs_contact *c = &s->c[i];
        CHECK_NEAR(c->g, g, tol);
        for (int k = 0; k < 3; k++) {
            CHECK_NEAR(c->n[k], n[k], tol);
            if (pa) CHECK_NEAR(c->pa[k], pa[k], tol);
            if (pb) CHECK_NEAR(c->pb[k], pb[k], tol);
        }
    }
    if (check_failed_ > f0) fprintf(stderr, "    (point %d checked at line %d)\n", i, line);
}

#define CHECK_POINT(s, i, g, n, pa, pb) t_point(__LINE__, (s), (i), (g), (n), (pa), (pb), 1e-12)
#define V3(x, y, z) ((const double[3]){(x), (y), (z)})

static const double SQ2 = 1.41421356237309504880;

/* ---- planar pairs ------------------------------------------------------------------------ */

static void test_circle_circle(void)
{
    mbs_contact_set s;
    mbs_circle a = {{0, 0}, 1}, b = {{3, 0}, 0.5};
    /* separated by 1.5 */
    CHECK(mbs_contact_circle_circle(&a, &b, 2, &s) == 1 && s.n == 1);
    CHECK_POINT(&s, 0, 1.5, V3(1, 0, 0), V3(1, 0, 0), V3(2.5, 0, 0));
    /* margin: inclusive at g = margin, nothing beyond */
    CHECK(mbs_contact_circle_circle(&a, &b, 1.5, &s) == 1);
    CHECK(mbs_contact_circle_circle(&a, &b, 1.4, &s) == 0 && s.n == 0);
    /* touching */
    b = (mbs_circle){{0, 1.5}, 0.5};
    CHECK(mbs_contact_circle_circle(&a, &b, 0, &s) == 1);
    CHECK_POINT(&s, 0, 0, V3(0, 1, 0), V3(0, 1, 0), V3(0, 1, 0));
    /* penetration along the diagonal */
    b = (mbs_circle){{1, 1}, 1};
    CHECK(mbs_contact_circle_circle(&a, &b, 0, &s) == 1);
    CHECK_POINT(&s, 0, SQ2 - 2, V3(1 / SQ2, 1 / SQ2, 0), V3(1 / SQ2, 1 / SQ2, 0),
                V3(1 - 1 / SQ2, 1 - 1 / SQ2, 0));
    /* coincident centres: fallback n = +x */
    b = (mbs_circle){{0, 0}, 0.5};
    CHECK(mbs_contact_circle_circle(&a, &b, 0, &s) == 1);
    CHECK_POINT(&s, 0, -1.5, V3(1, 0, 0), V3(1, 0, 0), V3(-0.5, 0, 0));
    /* zero radii, coincident: still defined */
    a.r = b.r = 0;
    CHECK(mbs_contact_circle_circle(&a, &b, 0, &s) == 1);
    CHECK_POINT(&s, 0, 0, V3(1, 0, 0), V3(0, 0, 0), V3(0, 0, 0));
}

static void test_circle_segment(void)
{
    mbs_contact_set s;
    mbs_segment2 seg = {{0, 0}, {4, 0}};
    /* above the interior */
    mbs_circle c = {{1, 2}, 0.5};
    CHECK(mbs_contact_circle_segment(&c, &seg, 10, &s) == 1);
    CHECK_POINT(&s, 0, 1.5, V3(0, -1, 0), V3(1, 1.5, 0), V3(1, 0, 0));
    CHECK(mbs_contact_circle_segment(&c, &seg, 1, &s) == 0);
    /* beyond the end point b: 3-4-5 triangle */
    c = (mbs_circle){{7, 4}, 1};
    CHECK(mbs_contact_circle_segment(&c, &seg, 10, &s) == 1);
    CHECK_POINT(&s, 0, 4, V3(-0.6, -0.8, 0), V3(6.4, 3.2, 0), V3(4, 0, 0));
    /* below, penetrating (two-sided) */
    c = (mbs_circle){{2, -0.2}, 0.5};
    CHECK(mbs_contact_circle_segment(&c, &seg, 0, &s) == 1);
    CHECK_POINT(&s, 0, -0.3, V3(0, 1, 0), V3(2, 0.3, 0), V3(2, 0, 0));
    /* centre on the segment: fallback = a->b turned by -90 degrees */
    c = (mbs_circle){{2, 0}, 0.5};
    CHECK(mbs_contact_circle_segment(&c, &seg, 0, &s) == 1);
    CHECK_POINT(&s, 0, -0.5, V3(0, -1, 0), V3(2, -0.5, 0), V3(2, 0, 0));
    /* zero-length segment acts as a point; on the centre: n = +x */
    mbs_segment2 pt = {{1, 1}, {1, 1}};
    c = (mbs_circle){{1, 4}, 0.5};
    CHECK(mbs_contact_circle_segment(&c, &pt, 10, &s) == 1);
    CHECK_POINT(&s, 0, 2.5, V3(0, -1, 0), V3(1, 3.5, 0), V3(1, 1, 0));
    c = (mbs_circle){{1, 1}, 0.5};
    CHECK(mbs_contact_circle_segment(&c, &pt, 0, &s) == 1);
    CHECK_POINT(&s, 0, -0.5, V3(1, 0, 0), V3(1.5, 1, 0), V3(1, 1, 0));
}

static void test_circle_line_point_line(void)
{
    mbs_contact_set s;
    /* horizontal line y = 1, normal given with length 2 */
    mbs_line2 L = {{0, 1}, {0, 2}};
    mbs_circle c = {{5, 3}, 0.5};
    CHECK(mbs_contact_circle_line(&c, &L, 2, &s) == 1);
    CHECK_POINT(&s, 0, 1.5, V3(0, -1, 0), V3(5, 2.5, 0), V3(5, 1, 0));
    CHECK(mbs_contact_circle_line(&c, &L, 1, &s) == 0);
    /* one-sided: a centre far below keeps a negative gap */
    c.c[1] = -2;
    CHECK(mbs_contact_circle_line(&c, &L, 0, &s) == 1);
    CHECK_POINT(&s, 0, -3.5, V3(0, -1, 0), V3(5, -2.5, 0), V3(5, 1, 0));
    /* tilted line through the origin, normal (1, 1) */
    L = (mbs_line2){{0, 0}, {1, 1}};
    c = (mbs_circle){{2, 2}, 1};
    CHECK(mbs_contact_circle_line(&c, &L, 5, &s) == 1);
    CHECK_POINT(&s, 0, 2 * SQ2 - 1, V3(-1 / SQ2, -1 / SQ2, 0), V3(2 - 1 / SQ2, 2 - 1 / SQ2, 0),
                V3(0, 0, 0));
    /* zero normal: fallback +y */
    L = (mbs_line2){{0, 0}, {0, 0}};
    c = (mbs_circle){{3, 2}, 1};
    CHECK(mbs_contact_circle_line(&c, &L, 5, &s) == 1);
    CHECK_POINT(&s, 0, 1, V3(0, -1, 0), V3(3, 1, 0), V3(3, 0, 0));

    /* point-line */
    L = (mbs_line2){{0, 0}, {0, 1}};
    mbs_point2 p = {{1, -0.25}};
    CHECK(mbs_contact_point_line(&p, &L, 0, &s) == 1);
    CHECK_POINT(&s, 0, -0.25, V3(0, -1, 0), V3(1, -0.25, 0), V3(1, 0, 0));
    p.p[1] = 0;
    CHECK(mbs_contact_point_line(&p, &L, 0, &s) == 1);
    CHECK_POINT(&s, 0, 0, V3(0, -1, 0), V3(1, 0, 0), V3(1, 0, 0));
    p.p[1] = 5;
    CHECK(mbs_contact_point_line(&p, &L, 1, &s) == 0);
}

static void test_point_segment(void)
{
    mbs_contact_set s;
    /* wall a -> b along +x: outside is +y */
    mbs_segment2 w = {{0, 0}, {2, 0}};
    mbs_point2 p = {{1, 0.3}};
    CHECK(mbs_contact_point_segment(&p, &w, 1, &s) == 1);
    CHECK_POINT(&s, 0, 0.3, V3(0, -1, 0), V3(1, 0.3, 0), V3(1, 0, 0));
    CHECK(mbs_contact_point_segment(&p, &w, 0.2, &s) == 0);
    p.p[1] = -0.1;
    CHECK(mbs_contact_point_segment(&p, &w, 0, &s) == 1);
    CHECK_POINT(&s, 0, -0.1, V3(0, -1, 0), V3(1, -0.1, 0), V3(1, 0, 0));
    /* end points belong to the wall, beyond them there is no contact */
    p = (mbs_point2){{2, 0.1}};
    CHECK(mbs_contact_point_segment(&p, &w, 1, &s) == 1);
    p = (mbs_point2){{2.001, 0.1}};
    CHECK(mbs_contact_point_segment(&p, &w, 1, &s) == 0);
    p = (mbs_point2){{-0.5, -0.1}};
    CHECK(mbs_contact_point_segment(&p, &w, 1, &s) == 0);
    /* reversed wall: outside is -y */
    mbs_segment2 r = {{2, 0}, {0, 0}};
    p = (mbs_point2){{1, 0.3}};
    CHECK(mbs_contact_point_segment(&p, &r, 0, &s) == 1);
    CHECK_POINT(&s, 0, -0.3, V3(0, 1, 0), V3(1, 0.3, 0), V3(1, 0, 0));
    /* zero-length wall: no contact */
    mbs_segment2 z = {{1, 1}, {1, 1}};
    p = (mbs_point2){{1, 1}};
    CHECK(mbs_contact_point_segment(&p, &z, 1, &s) == 0 && s.n == 0);
}

/* ---- spatial pairs ------------------------------------------------------------------------- */

static void test_sphere_sphere_plane(void)
{
    mbs_contact_set s;
    /* distance 7 along (2, 3, 6)/7 */
    mbs_sphere a = {{1, 2, 3}, 1}, b = {{3, 5, 9}, 2};
    double n[3] = {2.0 / 7, 3.0 / 7, 6.0 / 7};
    CHECK(mbs_contact_sphere_sphere(&a, &b, 5, &s) == 1);
    CHECK_POINT(&s, 0, 4, n, V3(1 + n[0], 2 + n[1], 3 + n[2]),
                V3(3 - 2 * n[0], 5 - 2 * n[1], 9 - 2 * n[2]));
    CHECK(mbs_contact_sphere_sphere(&a, &b, 3.9, &s) == 0);
    /* penetration by 0.5 */
    b.r = 2.5;
    for (int k = 0; k < 3; k++) b.c[k] = a.c[k] + 3 * n[k];
    CHECK(mbs_contact_sphere_sphere(&a, &b, 0, &s) == 1);
    CHECK_POINT(&s, 0, -0.5, n, NULL, NULL);
    /* coincident */
    b = a;
    CHECK(mbs_contact_sphere_sphere(&a, &b, 0, &s) == 1);
    CHECK_POINT(&s, 0, -2, V3(1, 0, 0), V3(2, 2, 3), V3(0, 2, 3));

    /* sphere-plane: plane z = 1 */
    mbs_plane P = {{0, 0, 1}, {0, 0, 1}};
    mbs_sphere c = {{1, 1, 1.8}, 0.5};
    CHECK(mbs_contact_sphere_plane(&c, &P, 1, &s) == 1);
    CHECK_POINT(&s, 0, 0.3, V3(0, 0, -1), V3(1, 1, 1.3), V3(1, 1, 1));
    CHECK(mbs_contact_sphere_plane(&c, &P, 0.2, &s) == 0);
    /* touching: reported with margin 0 */
    c.c[2] = 1.5;
    CHECK(mbs_contact_sphere_plane(&c, &P, 0, &s) == 1);
    CHECK_POINT(&s, 0, 0, V3(0, 0, -1), V3(1, 1, 1), V3(1, 1, 1));
    c.c[2] = 0;
    CHECK(mbs_contact_sphere_plane(&c, &P, 0, &s) == 1);
    CHECK_POINT(&s, 0, -1.5, V3(0, 0, -1), V3(1, 1, -0.5), V3(1, 1, 1));
    /* tilted plane, normal (1, 2, 2) not unit */
    P = (mbs_plane){{1, 1, 1}, {1, 2, 2}};
    c = (mbs_sphere){{2, 3, 3}, 1};
    CHECK(mbs_contact_sphere_plane(&c, &P, 5, &s) == 1);
    CHECK_POINT(&s, 0, 2, V3(-1.0 / 3, -2.0 / 3, -2.0 / 3), V3(2 - 1.0 / 3, 3 - 2.0 / 3, 3 - 2.0 / 3),
                V3(1, 1, 1));
    /* zero normal: fallback +z */
    P = (mbs_plane){{0, 0, 0}, {0, 0, 0}};
    c = (mbs_sphere){{0, 0, 2}, 1};
    CHECK(mbs_contact_sphere_plane(&c, &P, 5, &s) == 1);
    CHECK_POINT(&s, 0, 1, V3(0, 0, -1), V3(0, 0, 1), V3(0, 0, 0));
}

static void test_box_plane(void)
{
    mbs_contact_set s;
    mbs_plane P = {{0, 0, 0}, {0, 0, 1}};
    mbs_box b = {{0, 0, 0.5}, {0}, {1, 0.5, 0.5}};
    t_identity(b.R);
    /* resting on a face: the 4 bottom vertices in index order, g = 0 */
    CHECK(mbs_contact_box_plane(&b, &P, 0.1, &s) == 4);
    CHECK_POINT(&s, 0, 0, V3(0, 0, -1), V3(-1, -0.5, 0), V3(-1, -0.5, 0));
    CHECK_POINT(&s, 1, 0, V3(0, 0, -1), V3(1, -0.5, 0), V3(1, -0.5, 0));
    CHECK_POINT(&s, 2, 0, V3(0, 0, -1), V3(-1, 0.5, 0), V3(-1, 0.5, 0));
    CHECK_POINT(&s, 3, 0, V3(0, 0, -1), V3(1, 0.5, 0), V3(1, 0.5, 0));
    /* far above: none */
    b.c[2] = 2;
    CHECK(mbs_contact_box_plane(&b, &P, 1, &s) == 0);
    /* thin box, margin larger than its thickness: all 8 vertices qualify,
     * the 4 deepest (bottom face) are kept */
    b = (mbs_box){{3, 4, 0.02}, {0}, {1, 1, 0.01}};
    t_identity(b.R);
    CHECK(mbs_contact_box_plane(&b, &P, 0.1, &s) == 4);
    for (int i = 0; i < 4; i++) {
        CHECK_NEAR(s.c[i].g, 0.01, 1e-15);
        CHECK_NEAR(s.c[i].pa[2], 0.01, 1e-15);
    }

    /* box tilted by th about y: vertex (sx hx, sy hy, sz hz) is at height
     * cz - sin(th) sx hx + cos(th) sz hz */
    double th = 0.3, hx = 1, hy = 0.5, hz = 0.25, cz = 0.4, ct = cos(th), st = sin(th);
    b = (mbs_box){{0.7, -0.2, cz}, {0}, {hx, hy, hz}};
    t_rot(1, th, b.R);
    double gdeep = cz - st * hx - ct * hz;  /* sx = +, sz = - : vertices 1, 3 */
    double gnext = cz - st * hx + ct * hz;  /* sx = +, sz = + : vertices 5, 7 */
    double gthird = cz + st * hx - ct * hz; /* sx = -, sz = - : vertices 0, 2 */
    CHECK(gdeep < 0 && gnext < gthird);
    int expect[4] = {1, 3, 5, 7};
    double expg[4] = {gdeep, gdeep, gnext, gnext};
    CHECK(mbs_contact_box_plane(&b, &P, 0.1, &s) == 2);
    CHECK(mbs_contact_box_plane(&b, &P, 0.4, &s) == 4);
    for (int k = 0; k < 4; k++) {
        int i = expect[k];
        double l[3] = {(i & 1) ? hx : -hx, (i & 2) ? hy : -hy, (i & 4) ? hz : -hz}, v[3];
        t_local(b.c, b.R, l, v);
        CHECK_NEAR(v[2], expg[k], 1e-15);
        CHECK_POINT(&s, k, expg[k], V3(0, 0, -1), v, V3(v[0], v[1], 0));
    }
    /* a large margin admits all 8, the same 4 remain */
    CHECK(mbs_contact_box_plane(&b, &P, 10, &s) == 4);
    for (int k = 0; k < 4; k++) CHECK_NEAR(s.c[k].g, expg[k], 1e-15);

    /* random orientation and tilted plane: the deepest point is the
     * smallest vertex depth, computed independently */
    for (int trial = 0; trial < 20; trial++) {
        mbs_box rb = {{t_uni(-1, 1), t_uni(-1, 1), t_uni(-1, 1)}, {0}, {t_uni(0.1, 1), t_uni(0.1, 1), t_uni(0.1, 1)}};
        t_random_rotation(rb.R);
        mbs_plane rp = {{t_uni(-1, 1), t_uni(-1, 1), t_uni(-1, 1)}, {t_uni(-1, 1), t_uni(-1, 1), t_uni(-1, 1)}};
        double nu[3] = {0, 0, 1}, gmin = HUGE_VAL;
        v3unit(rp.n, nu);
        for (int i = 0; i < 8; i++) {
            double l[3] = {(i & 1) ? rb.h[0] : -rb.h[0], (i & 2) ? rb.h[1] : -rb.h[1], (i & 4) ? rb.h[2] : -rb.h[2]};
            double v[3], d[3];
            t_local(rb.c, rb.R, l, v);
            v3sub(v, rp.p, d);
            gmin = fmin(gmin, v3dot(nu, d));
        }
        CHECK(mbs_contact_box_plane(&rb, &rp, 100, &s) == 4);
        CHECK(t_consistent(&s));
        CHECK_NEAR(s.c[0].g, gmin, 1e-13);
        CHECK(s.c[0].g <= s.c[1].g && s.c[1].g <= s.c[2].g && s.c[2].g <= s.c[3].g);
    }
}

static void test_sphere_box(void)
{
    mbs_contact_set s;
    mbs_box b = {{1, 2, 3}, {0}, {1, 0.5, 0.25}};
    t_rot(2, M_PI / 6, b.R);
    mbs_sphere sp;
    double l[3], x[3], n[3], pb[3];
#define PLACE(lx, ly, lz, rad) (t_set3(l, lx, ly, lz), t_local(b.c, b.R, l, sp.c), sp.r = (rad))

    /* above the +z face */
    PLACE(0.1, 0.2, 1.25, 0.5);
    CHECK(mbs_contact_sphere_box(&sp, &b, 1, &s) == 1);
    t_local(b.c, b.R, V3(0.1, 0.2, 0.25), pb);
    CHECK_POINT(&s, 0, 0.5, V3(0, 0, -1), V3(sp.c[0], sp.c[1], sp.c[2] - 0.5), pb);
    CHECK(mbs_contact_sphere_box(&sp, &b, 0.4, &s) == 0);
    /* touching the +z face */
    PLACE(0.1, 0.2, 0.75, 0.5);
    CHECK(mbs_contact_sphere_box(&sp, &b, 0, &s) == 1);
    CHECK_POINT(&s, 0, 0, V3(0, 0, -1), pb, pb);

    /* off the (+x, +y) edge at distance 0.5 */
    PLACE(1.3, 0.9, 0.1, 0.2);
    CHECK(mbs_contact_sphere_box(&sp, &b, 1, &s) == 1);
    t_local(V3(0, 0, 0), b.R, V3(-0.6, -0.8, 0), n);
    t_local(b.c, b.R, V3(1, 0.5, 0.1), pb);
    for (int k = 0; k < 3; k++) x[k] = sp.c[k] + 0.2 * n[k];
    CHECK_POINT(&s, 0, 0.3, n, x, pb);

    /* off the (+x, +y, +z) corner at distance 0.7 */
    PLACE(1.2, 0.8, 0.85, 0.1);
    CHECK(mbs_contact_sphere_box(&sp, &b, 1, &s) == 1);
    t_local(V3(0, 0, 0), b.R, V3(-0.2 / 0.7, -0.3 / 0.7, -0.6 / 0.7), n);
    t_local(b.c, b.R, V3(1, 0.5, 0.25), pb);
    CHECK_POINT(&s, 0, 0.6, n, NULL, pb);

    /* centre inside, nearest face +x (0.2 away; y 0.4, z 0.25) */
    PLACE(0.8, 0.1, 0, 0.1);
    CHECK(mbs_contact_sphere_box(&sp, &b, 0, &s) == 1);
    t_local(V3(0, 0, 0), b.R, V3(-1, 0, 0), n);
    t_local(b.c, b.R, V3(1, 0.1, 0), pb);
    for (int k = 0; k < 3; k++) x[k] = sp.c[k] + 0.1 * n[k];
    CHECK_POINT(&s, 0, -0.3, n, x, pb);

    /* centre inside, nearest face -z */
    PLACE(0.2, 0.1, -0.2, 0.1);
    CHECK(mbs_contact_sphere_box(&sp, &b, 0, &s) == 1);
    t_local(b.c, b.R, V3(0.2, 0.1, -0.25), pb);
    CHECK_POINT(&s, 0, -0.15, V3(0, 0, 1), NULL, pb);

    /* centre exactly on the face: continuous between both branches */
    PLACE(0.2, 0.1, 0.25, 0.1);
    CHECK(mbs_contact_sphere_box(&sp, &b, 0, &s) == 1);
    CHECK_POINT(&s, 0, -0.1, V3(0, 0, -1), NULL, NULL);

    /* cube, centre at its centre: ties -> x axis, + face */
    mbs_box cube = {{0, 0, 0}, {0}, {1, 1, 1}};
    t_identity(cube.R);
    sp = (mbs_sphere){{0, 0, 0}, 0.5};
    CHECK(mbs_contact_sphere_box(&sp, &cube, 0, &s) == 1);
    CHECK_POINT(&s, 0, -1.5, V3(-1, 0, 0), V3(-0.5, 0, 0), V3(1, 0, 0));

    /* flat box (h_z = 0) and a sphere of radius 0 on it */
    mbs_box flat = {{0, 0, 0}, {0}, {1, 1, 0}};
    t_identity(flat.R);
    sp = (mbs_sphere){{0.5, 0, 0}, 0};
    CHECK(mbs_contact_sphere_box(&sp, &flat, 0, &s) == 1);
    CHECK_POINT(&s, 0, 0, V3(0, 0, -1), V3(0.5, 0, 0), V3(0.5, 0, 0));
#undef PLACE
}

static void test_capsule_capsule(void)
{
    mbs_contact_set s;
    /* crossing at right angles, 0.5 apart in z */
    mbs_capsule a = {{-1, 0, 0}, {1, 0, 0}, 0.1};
    mbs_capsule b = {{0, -1, 0.5}, {0, 1, 0.5}, 0.2};
    CHECK(mbs_contact_capsule_capsule(&a, &b, 1, &s) == 1);
    CHECK_POINT(&s, 0, 0.2, V3(0, 0, 1), V3(0, 0, 0.1), V3(0, 0, 0.3));
    CHECK(mbs_contact_capsule_capsule(&a, &b, 0.1, &s) == 0);
    /* touching */
    b.a[2] = b.b[2] = 0.3;
    CHECK(mbs_contact_capsule_capsule(&a, &b, 0, &s) == 1);
    CHECK_POINT(&s, 0, 0, V3(0, 0, 1), V3(0, 0, 0.1), V3(0, 0, 0.1));
    /* the same, B below: n flips */
    b.a[2] = b.b[2] = -0.5;
    CHECK(mbs_contact_capsule_capsule(&a, &b, 1, &s) == 1);
    CHECK_POINT(&s, 0, 0.2, V3(0, 0, -1), V3(0, 0, -0.1), V3(0, 0, -0.3));
    /* axes intersecting: n = unit(da x db) = +z */
    b.a[2] = b.b[2] = 0;
    CHECK(mbs_contact_capsule_capsule(&a, &b, 0, &s) == 1);
    CHECK_POINT(&s, 0, -0.3, V3(0, 0, 1), V3(0, 0, 0.1), V3(0, 0, -0.2));

    /* skew segments whose closest points are interior */
    mbs_capsule c = {{0, 0, 0}, {1, 0, 0}, 0.1}, d = {{0.5, 1, -1}, {0.5, 1, 1}, 0.1};
    CHECK(mbs_contact_capsule_capsule(&c, &d, 1, &s) == 1);
    CHECK_POINT(&s, 0, 0.8, V3(0, 1, 0), V3(0.5, 0.1, 0), V3(0.5, 0.9, 0));
    /* closest points at end points: B beyond A's end b */
    d = (mbs_capsule){{2, 1, 0}, {3, 5, 0}, 0.1};
    CHECK(mbs_contact_capsule_capsule(&c, &d, 5, &s) == 1);
    CHECK_POINT(&s, 0, SQ2 - 0.2, V3(1 / SQ2, 1 / SQ2, 0), NULL, NULL);

    /* parallel with overlap [1, 2]: two points, at both ends of the overlap */
    mbs_capsule p = {{0, 0, 0}, {2, 0, 0}, 0.1}, q = {{1, 0, 0.5}, {3, 0, 0.5}, 0.1};
    CHECK(mbs_contact_capsule_capsule(&p, &q, 1, &s) == 2);
    CHECK_POINT(&s, 0, 0.3, V3(0, 0, 1), V3(1, 0, 0.1), V3(1, 0, 0.4));
    CHECK_POINT(&s, 1, 0.3, V3(0, 0, 1), V3(2, 0, 0.1), V3(2, 0, 0.4));
    /* antiparallel: same points */
    q = (mbs_capsule){{3, 0, 0.5}, {1, 0, 0.5}, 0.1};
    CHECK(mbs_contact_capsule_capsule(&p, &q, 1, &s) == 2);
    CHECK_POINT(&s, 0, 0.3, V3(0, 0, 1), V3(1, 0, 0.1), V3(1, 0, 0.4));
    CHECK_POINT(&s, 1, 0.3, V3(0, 0, 1), V3(2, 0, 0.1), V3(2, 0, 0.4));
    /* B contained in A */
    q = (mbs_capsule){{0.5, 0, -0.4}, {1.5, 0, -0.4}, 0.1};
    CHECK(mbs_contact_capsule_capsule(&p, &q, 1, &s) == 2);
    CHECK_POINT(&s, 0, 0.2, V3(0, 0, -1), V3(0.5, 0, -0.1), V3(0.5, 0, -0.3));
    CHECK_POINT(&s, 1, 0.2, V3(0, 0, -1), V3(1.5, 0, -0.1), V3(1.5, 0, -0.3));
    /* parallel, overlap of a single point: one point */
    q = (mbs_capsule){{2, 0, 0.5}, {3, 0, 0.5}, 0.1};
    CHECK(mbs_contact_capsule_capsule(&p, &q, 1, &s) == 1);
    CHECK_POINT(&s, 0, 0.3, V3(0, 0, 1), V3(2, 0, 0.1), V3(2, 0, 0.4));
    /* parallel, no overlap: end to end */
    q = (mbs_capsule){{3, 0, 0.5}, {4, 0, 0.5}, 0.1};
    CHECK(mbs_contact_capsule_capsule(&p, &q, 2, &s) == 1);
    double r5 = sqrt(1.25);
    CHECK_POINT(&s, 0, r5 - 0.2, V3(1 / r5, 0, 0.5 / r5), NULL, NULL);
    /* collinear and overlapping: a perpendicular fallback normal, no NaN */
    q = (mbs_capsule){{1, 0, 0}, {3, 0, 0}, 0.1};
    CHECK(mbs_contact_capsule_capsule(&p, &q, 0, &s) == 2);
    CHECK(t_consistent(&s));
    CHECK_NEAR(s.c[0].g, -0.2, 1e-15);
    CHECK_NEAR(s.c[0].n[0], 0, 1e-15);
    CHECK_NEAR(s.c[1].n[0], 0, 1e-15);
    /* nearly parallel (1e-9 rad): still two points, gaps 0.3 to 1e-9 */
    q = (mbs_capsule){{1, 0, 0.5}, {3, 0, 0.5 + 2e-9}, 0.1};
    CHECK(mbs_contact_capsule_capsule(&p, &q, 1, &s) == 2);
    CHECK(t_consistent(&s));
    CHECK_NEAR(s.c[0].g, 0.3, 1e-12);
    CHECK_NEAR(s.c[1].g, 0.3 + 1e-9, 1e-12);

    /* zero-length capsules are spheres; coincident: n = +x */
    mbs_capsule z1 = {{1, 1, 1}, {1, 1, 1}, 0.2}, z2 = {{1, 1, 1}, {1, 1, 1}, 0.3};
    CHECK(mbs_contact_capsule_capsule(&z1, &z2, 0, &s) == 1);
    CHECK_POINT(&s, 0, -0.5, V3(1, 0, 0), V3(1.2, 1, 1), V3(0.7, 1, 1));
    /* a zero-length capsule on the axis of another: normal perpendicular to it */
    z1 = (mbs_capsule){{0.5, 0, 0}, {0.5, 0, 0}, 0.2};
    CHECK(mbs_contact_capsule_capsule(&z1, &p, 0, &s) == 1);
    CHECK(t_consistent(&s));
    CHECK_NEAR(s.c[0].g, -0.3, 1e-15);
    CHECK_NEAR(s.c[0].n[0], 0, 1e-15);

    /* sphere-capsule */
    mbs_sphere sp = {{0.5, 1, 0}, 0.25};
    CHECK(mbs_contact_sphere_capsule(&sp, &p, 1, &s) == 1);
    CHECK_POINT(&s, 0, 0.65, V3(0, -1, 0), V3(0.5, 0.75, 0), V3(0.5, 0.1, 0));
}

static void test_capsule_plane(void)
{
    mbs_contact_set s;
    mbs_plane P = {{0, 0, 0}, {0, 0, 1}};
    /* lying: both ends */
    mbs_capsule c = {{0, 0, 0.3}, {2, 0, 0.3}, 0.25};
    CHECK(mbs_contact_capsule_plane(&c, &P, 0.1, &s) == 2);
    CHECK_POINT(&s, 0, 0.05, V3(0, 0, -1), V3(0, 0, 0.05), V3(0, 0, 0));
    CHECK_POINT(&s, 1, 0.05, V3(0, 0, -1), V3(2, 0, 0.05), V3(2, 0, 0));
    CHECK(mbs_contact_capsule_plane(&c, &P, 0.01, &s) == 0);
    /* standing: only the lower end within the margin */
    c = (mbs_capsule){{0, 0, 2.3}, {0, 0, 0.2}, 0.25};
    CHECK(mbs_contact_capsule_plane(&c, &P, 0.1, &s) == 1);
    CHECK_POINT(&s, 0, -0.05, V3(0, 0, -1), V3(0, 0, -0.05), V3(0, 0, 0));
    /* tilted, penetrating at one end */
    c = (mbs_capsule){{0, 0, -0.1}, {1, 0, 1}, 0.1};
    CHECK(mbs_contact_capsule_plane(&c, &P, 2, &s) == 2);
    CHECK_NEAR(s.c[0].g, -0.2, 1e-15);
    CHECK_NEAR(s.c[1].g, 0.9, 1e-15);
    /* zero length: one point */
    c = (mbs_capsule){{1, 1, 0.5}, {1, 1, 0.5}, 0.25};
    CHECK(mbs_contact_capsule_plane(&c, &P, 1, &s) == 1);
    CHECK_POINT(&s, 0, 0.25, V3(0, 0, -1), V3(1, 1, 0.25), V3(1, 1, 0));
}

/* ---- random shapes, dispatcher, finite differences ---------------------------------------- */

static void t_random_shape(mbs_shape_kind k, mbs_shape *s)
{
    memset(s, 0, sizeof *s);
    s->kind = k;
    switch (k) {
    case MBS_SHAPE_POINT2:
        for (int i = 0; i < 2; i++) s->point2.p[i] = t_uni(-1, 1);
        break;
    case MBS_SHAPE_CIRCLE:
        for (int i = 0; i < 2; i++) s->circle.c[i] = t_uni(-1, 1);
        s->circle.r = t_uni(0.1, 0.5);
        break;
    case MBS_SHAPE_SEGMENT2:
        for (int i = 0; i < 2; i++) {
            s->segment2.a[i] = t_uni(-1.5, 1.5);
            s->segment2.b[i] = t_uni(-1.5, 1.5);
        }
        break;
    case MBS_SHAPE_LINE2:
        for (int i = 0; i < 2; i++) {
            s->line2.p[i] = t_uni(-1, 1);
            s->line2.n[i] = t_uni(-1, 1);
        }
        break;
    case MBS_SHAPE_SPHERE:
        for (int i = 0; i < 3; i++) s->sphere.c[i] = t_uni(-1, 1);
        s->sphere.r = t_uni(0.1, 0.5);
        break;
    case MBS_SHAPE_PLANE:
        for (int i = 0; i < 3; i++) {
            s->plane.p[i] = t_uni(-1, 1);
            s->plane.n[i] = t_uni(-1, 1);
        }
        break;
    case MBS_SHAPE_BOX:
        for (int i = 0; i < 3; i++) {
            s->box.c[i] = t_uni(-1, 1);
            s->box.h[i] = t_uni(0.1, 0.8);
        }
        t_random_rotation(s->box.R);
        break;
    case MBS_SHAPE_CAPSULE:
        for (int i = 0; i < 3; i++) {
            s->capsule.a[i] = t_uni(-1, 1);
            s->capsule.b[i] = t_uni(-1, 1);
        }
        s->capsule.r = t_uni(0.05, 0.4);
        break;
    default:
        break;
    }
}

/* Rigid translation of a shape by d (planar shapes use d[0], d[1]). */
static void t_translate(mbs_shape *s, const double *d)
{
    double *p[2] = {NULL, NULL};
    int dim = 3;
    switch (s->kind) {
    case MBS_SHAPE_POINT2: p[0] = s->point2.p; dim = 2; break;
    case MBS_SHAPE_CIRCLE: p[0] = s->circle.c; dim = 2; break;
    case MBS_SHAPE_SEGMENT2: p[0] = s->segment2.a; p[1] = s->segment2.b; dim = 2; break;
    case MBS_SHAPE_LINE2: p[0] = s->line2.p; dim = 2; break;
    case MBS_SHAPE_SPHERE: p[0] = s->sphere.c; break;
    case MBS_SHAPE_PLANE: p[0] = s->plane.p; break;
    case MBS_SHAPE_BOX: p[0] = s->box.c; break;
    case MBS_SHAPE_CAPSULE: p[0] = s->capsule.a; p[1] = s->capsule.b; break;
    default: return;
    }
    for (int j = 0; j < 2; j++)
        if (p[j])
            for (int k = 0; k < dim; k++) p[j][k] += d[k];
}

static int t_dim(mbs_shape_kind k) { return k <= MBS_SHAPE_LINE2 ? 2 : 3; }

/* The supported pairs in the order of the pair functions. */
static const mbs_shape_kind s_pairs[][2] = {
    {MBS_SHAPE_CIRCLE, MBS_SHAPE_CIRCLE},   {MBS_SHAPE_CIRCLE, MBS_SHAPE_SEGMENT2},
    {MBS_SHAPE_CIRCLE, MBS_SHAPE_LINE2},    {MBS_SHAPE_POINT2, MBS_SHAPE_LINE2},
    {MBS_SHAPE_POINT2, MBS_SHAPE_SEGMENT2}, {MBS_SHAPE_SPHERE, MBS_SHAPE_SPHERE},
    {MBS_SHAPE_SPHERE, MBS_SHAPE_PLANE},    {MBS_SHAPE_BOX, MBS_SHAPE_PLANE},
    {MBS_SHAPE_SPHERE, MBS_SHAPE_BOX},      {MBS_SHAPE_SPHERE, MBS_SHAPE_CAPSULE},
    {MBS_SHAPE_CAPSULE, MBS_SHAPE_CAPSULE}, {MBS_SHAPE_CAPSULE, MBS_SHAPE_PLANE},
};
#define NPAIRS ((int)(sizeof s_pairs / sizeof s_pairs[0]))

/* dg/d(translation of B) = n and dg/d(translation of A) = -n, by central
 * differences, on random configurations (h = 1e-6: truncation ~1e-12,
 * round-off ~1e-10). */
static void test_finite_differences(void)
{
    const double h = 1e-6, tol = 1e-7;
    for (int pi = 0; pi < NPAIRS; pi++) {
        int tested = 0, bad = 0;
        for (int trial = 0; trial < 200; trial++) {
            mbs_shape a, b;
            mbs_contact_set s0, sp, sm;
            t_random_shape(s_pairs[pi][0], &a);
            t_random_shape(s_pairs[pi][1], &b);
            if (mbs_contact_shapes(&a, &b, 100, &s0) <= 0) continue;
            int dim = t_dim(a.kind);
            for (int side = 0; side < 2; side++) {
                mbs_shape *moved = side ? &a : &b;
                double sign = side ? -1 : 1;
                for (int k = 0; k < dim; k++) {
                    double d[3] = {0, 0, 0};
                    d[k] = h;
                    t_translate(moved, d);
                    mbs_contact_shapes(&a, &b, 100, &sp);
                    d[k] = -2 * h;
                    t_translate(moved, d);
                    mbs_contact_shapes(&a, &b, 100, &sm);
                    d[k] = h;
                    t_translate(moved, d);
                    if (sp.n != s0.n || sm.n != s0.n) continue;
                    for (int i = 0; i < s0.n; i++) {
                        double fd = (sp.c[i].g - sm.c[i].g) / (2 * h);
                        tested++;
                        if (!(fabs(fd - sign * s0.c[i].n[k]) <= tol)) {
                            bad++;
                            fprintf(stderr, "    FD %s-%s point %d axis %d side %d: %.12g vs %.12g\n",
                                    mbs_shape_kind_name(a.kind), mbs_shape_kind_name(b.kind), i, k,
                                    side, fd, sign * s0.c[i].n[k]);
                        }
                    }
                }
            }
        }
        CHECK(tested > 100);
        CHECK(bad == 0);
    }
}

/* Both orders through the dispatcher agree (flipped); unsupported pairs. */
static void test_dispatch(void)
{
    for (int pi = 0; pi < NPAIRS; pi++) {
        int bad = 0, nonzero = 0;
        CHECK(mbs_contact_supported(s_pairs[pi][0], s_pairs[pi][1]));
        CHECK(mbs_contact_supported(s_pairs[pi][1], s_pairs[pi][0]));
        for (int trial = 0; trial < 50; trial++) {
            mbs_shape a, b;
            mbs_contact_set ab, ba;
            t_random_shape(s_pairs[pi][0], &a);
            t_random_shape(s_pairs[pi][1], &b);
            int n1 = mbs_contact_shapes(&a, &b, 0.5, &ab), n2 = mbs_contact_shapes(&b, &a, 0.5, &ba);
            if (n1 != n2 || n1 != ab.n || !t_consistent(&ab) || !t_consistent(&ba)) bad++;
            /* symmetric pairs (circle-circle, ...) are computed twice, once
             * per order, so they agree to round-off; the others exactly */
            for (int i = 0; i < n1 && i < n2; i++) {
                if (!(fabs(ab.c[i].g - ba.c[i].g) <= 1e-14)) bad++;
                for (int k = 0; k < 3; k++)
                    if (!(fabs(ab.c[i].n[k] + ba.c[i].n[k]) <= 1e-14 &&
                          fabs(ab.c[i].pa[k] - ba.c[i].pb[k]) <= 1e-14 &&
                          fabs(ab.c[i].pb[k] - ba.c[i].pa[k]) <= 1e-14))
                        bad++;
            }
            nonzero += n1 > 0;
        }
        CHECK(bad == 0);
        CHECK(nonzero > 0);
    }
    /* unsupported: box-box, circle-sphere, point-point */
    mbs_shape a, b;
    mbs_contact_set s;
    t_random_shape(MBS_SHAPE_BOX, &a);
    t_random_shape(MBS_SHAPE_BOX, &b);
    CHECK(mbs_contact_shapes(&a, &b, 1, &s) == -1 && s.n == 0);
    CHECK(!mbs_contact_supported(MBS_SHAPE_BOX, MBS_SHAPE_BOX));
    CHECK(!mbs_contact_supported(MBS_SHAPE_CIRCLE, MBS_SHAPE_SPHERE));
    CHECK(!mbs_contact_supported(MBS_SHAPE_POINT2, MBS_SHAPE_POINT2));
    CHECK(!mbs_contact_supported(MBS_SHAPE_NKIND, MBS_SHAPE_BOX));
    a.kind = MBS_SHAPE_NKIND;
    CHECK(mbs_contact_shapes(&a, &b, 1, &s) == -1 && s.n == 0);
    CHECK_STR(mbs_shape_kind_name(MBS_SHAPE_CAPSULE), "capsule");
    CHECK_STR(mbs_shape_kind_name(MBS_SHAPE_NKIND), "?");
}

/* Degenerate shapes on a coarse grid (coincident points, zero radii,
 * zero-length segments, flat boxes, zero normals): never NaN, always
 * consistent. */
static void t_grid(double *v, int n)
{
    for (int i = 0; i < n; i++) v[i] = (double)((int)(t_rand() * 3) - 1) * 0.5;
}

static void test_degenerate_random(void)
{
    for (int pi = 0; pi < NPAIRS; pi++) {
        int bad = 0, points = 0;
        for (int trial = 0; trial < 400; trial++) {
            mbs_shape sh[2];
            for (int j = 0; j < 2; j++) {
                mbs_shape *s = &sh[j];
                t_random_shape(s_pairs[pi][j], s);
                switch (s->kind) {
                case MBS_SHAPE_POINT2: t_grid(s->point2.p, 2); break;
                case MBS_SHAPE_CIRCLE: t_grid(s->circle.c, 2); s->circle.r = t_rand() < 0.3 ? 0 : 0.5; break;
                case MBS_SHAPE_SEGMENT2: t_grid(s->segment2.a, 2); t_grid(s->segment2.b, 2); break;
                case MBS_SHAPE_LINE2: t_grid(s->line2.p, 2); t_grid(s->line2.n, 2); break;
                case MBS_SHAPE_SPHERE: t_grid(s->sphere.c, 3); s->sphere.r = t_rand() < 0.3 ? 0 : 0.5; break;
                case MBS_SHAPE_PLANE: t_grid(s->plane.p, 3); t_grid(s->plane.n, 3); break;
                case MBS_SHAPE_BOX:
                    t_grid(s->box.c, 3);
                    for (int k = 0; k < 3; k++) s->box.h[k] = t_rand() < 0.3 ? 0 : 0.5;
                    if (t_rand() < 0.5) t_identity(s->box.R);
                    break;
                case MBS_SHAPE_CAPSULE:
                    t_grid(s->capsule.a, 3);
                    t_grid(s->capsule.b, 3);
                    s->capsule.r = t_rand() < 0.3 ? 0 : 0.5;
                    break;
                default: break;
                }
            }
            mbs_contact_set s;
            int n = mbs_contact_shapes(&sh[0], &sh[1], 1, &s);
            if (n < 0 || !t_consistent(&s)) bad++;
            points += n > 0 ? n : 0;
        }
        if (bad) fprintf(stderr, "    degenerate %s-%s: %d bad\n", mbs_shape_kind_name(s_pairs[pi][0]),
                         mbs_shape_kind_name(s_pairs[pi][1]), bad);
        CHECK(bad == 0);
        CHECK(points > 0);
    }
}

/* Tangent bases: orthonormal and right-handed (t1 x t2 = n). */
static void test_tangents(void)
{
    double t1[3], t2[3], c[3];
    mbs_contact_tangents(2, V3(0.6, -0.8, 0), t1, t2);
    CHECK_NEAR(t1[0], 0.8, 1e-15);
    CHECK_NEAR(t1[1], 0.6, 1e-15);
    CHECK(t1[2] == 0 && t2[0] == 0 && t2[1] == 0 && t2[2] == 1);
    int bad = 0;
    for (int trial = 0; trial < 1000; trial++) {
        double n[3] = {t_uni(-1, 1), t_uni(-1, 1), t_uni(-1, 1)};
        if (trial < 6) { /* the world axes, both signs */
            t_set3(n, 0, 0, 0);
            n[trial % 3] = trial < 3 ? 1 : -1;
        }
        if (v3unit(n, n) == 0) continue;
        mbs_contact_tangents(3, n, t1, t2);
        v3cross(t1, t2, c);
        if (!(fabs(v3norm(t1) - 1) < 1e-14 && fabs(v3norm(t2) - 1) < 1e-14 && fabs(v3dot(t1, n)) < 1e-14 &&
              fabs(v3dot(t2, n)) < 1e-14 && fabs(v3dot(t1, t2)) < 1e-14 && fabs(c[0] - n[0]) < 1e-14 &&
              fabs(c[1] - n[1]) < 1e-14 && fabs(c[2] - n[2]) < 1e-14))
            bad++;
    }
    CHECK(bad == 0);
}

/* ---- bounding boxes ------------------------------------------------------------------------- */

static void t_box_is(int line, const mbs_aabb *b, const double *lo, const double *hi)
{
    int f0 = check_failed_;
    for (int k = 0; k < 3; k++) {
        CHECK(b->lo[k] == lo[k] || fabs(b->lo[k] - lo[k]) <= 1e-15);
        CHECK(b->hi[k] == hi[k] || fabs(b->hi[k] - hi[k]) <= 1e-15);
    }
    if (check_failed_ > f0)
        fprintf(stderr, "    (box checked at line %d: [%g %g %g] - [%g %g %g])\n", line, b->lo[0],
                b->lo[1], b->lo[2], b->hi[0], b->hi[1], b->hi[2]);
}
#define CHECK_BOX(b, lo, hi) t_box_is(__LINE__, (b), (lo), (hi))

static void test_aabb(void)
{
    const double I = HUGE_VAL;
    mbs_shape s;
    mbs_aabb b;
    s.kind = MBS_SHAPE_CIRCLE;
    s.circle = (mbs_circle){{1, 2}, 0.5};
    CHECK(mbs_shape_aabb(&s, 0.1, &b) == 2);
    CHECK_BOX(&b, V3(0.4, 1.4, 0), V3(1.6, 2.6, 0));
    s.kind = MBS_SHAPE_POINT2;
    s.point2 = (mbs_point2){{1, 2}};
    CHECK(mbs_shape_aabb(&s, 0, &b) == 2);
    CHECK_BOX(&b, V3(1, 2, 0), V3(1, 2, 0));
    s.kind = MBS_SHAPE_SEGMENT2;
    s.segment2 = (mbs_segment2){{3, -1}, {1, 2}};
    CHECK(mbs_shape_aabb(&s, 0.5, &b) == 2);
    CHECK_BOX(&b, V3(0.5, -1.5, 0), V3(3.5, 2.5, 0));
    /* line with normal +y: below it everything, up to y = 1 + inflate */
    s.kind = MBS_SHAPE_LINE2;
    s.line2 = (mbs_line2){{0, 1}, {0, 3}};
    CHECK(mbs_shape_aabb(&s, 0.25, &b) == 2);
    CHECK_BOX(&b, V3(-I, -I, 0), V3(I, 1.25, 0));
    s.line2 = (mbs_line2){{2, 1}, {-1, 0}};
    mbs_shape_aabb(&s, 0, &b);
    CHECK_BOX(&b, V3(2, -I, 0), V3(I, I, 0));
    s.line2 = (mbs_line2){{2, 1}, {1, 1}};
    mbs_shape_aabb(&s, 0, &b);
    CHECK_BOX(&b, V3(-I, -I, 0), V3(I, I, 0));

    s.kind = MBS_SHAPE_SPHERE;
    s.sphere = (mbs_sphere){{1, 2, 3}, 1};
    CHECK(mbs_shape_aabb(&s, 0, &b) == 3);
    CHECK_BOX(&b, V3(0, 1, 2), V3(2, 3, 4));
    s.kind = MBS_SHAPE_PLANE;
    s.plane = (mbs_plane){{1, 2, 3}, {0, 0, -2}};
    CHECK(mbs_shape_aabb(&s, 0.5, &b) == 3);
    CHECK_BOX(&b, V3(-I, -I, 2.5), V3(I, I, I));
    s.plane = (mbs_plane){{1, 2, 3}, {0, 1, 1}};
    mbs_shape_aabb(&s, 0.5, &b);
    CHECK_BOX(&b, V3(-I, -I, -I), V3(I, I, I));
    s.kind = MBS_SHAPE_CAPSULE;
    s.capsule = (mbs_capsule){{0, 0, 0}, {1, -2, 3}, 0.5};
    CHECK(mbs_shape_aabb(&s, 0, &b) == 3);
    CHECK_BOX(&b, V3(-0.5, -2.5, -0.5), V3(1.5, 0.5, 3.5));
    /* box rotated by 30 degrees about z */
    s.kind = MBS_SHAPE_BOX;
    s.box = (mbs_box){{1, 2, 3}, {0}, {1, 0.5, 0.25}};
    t_rot(2, M_PI / 6, s.box.R);
    CHECK(mbs_shape_aabb(&s, 0.1, &b) == 3);
    double wx = cos(M_PI / 6) * 1 + sin(M_PI / 6) * 0.5, wy = sin(M_PI / 6) * 1 + cos(M_PI / 6) * 0.5;
    CHECK_BOX(&b, V3(1 - wx - 0.1, 2 - wy - 0.1, 3 - 0.35), V3(1 + wx + 0.1, 2 + wy + 0.1, 3 + 0.35));
    s.kind = MBS_SHAPE_NKIND;
    CHECK(mbs_shape_aabb(&s, 0, &b) == 0);

    /* the broad phase never misses a point of the narrow phase: whenever a
     * pair reports a point with margin m, the tight boxes overlap within m
     * (one-sided walls: while the penetration is below m) */
    for (int pi = 0; pi < NPAIRS; pi++) {
        int bad = 0, hits = 0;
        for (int trial = 0; trial < 2000; trial++) {
            mbs_shape a, c;
            mbs_aabb ba, bc;
            mbs_contact_set cs;
            double m = t_uni(0, 0.3);
            t_random_shape(s_pairs[pi][0], &a);
            t_random_shape(s_pairs[pi][1], &c);
            double shift[3] = {t_uni(-2, 2), t_uni(-2, 2), t_uni(-2, 2)};
            t_translate(&c, shift);
            int n = mbs_contact_shapes(&a, &c, m, &cs);
            if (n <= 0) continue;
            if (a.kind == MBS_SHAPE_POINT2 && c.kind == MBS_SHAPE_SEGMENT2 && cs.c[0].g < -m) continue;
            hits++;
            mbs_shape_aabb(&a, 0, &ba);
            mbs_shape_aabb(&c, 0, &bc);
            if (!mbs_aabb_overlap(t_dim(a.kind), &ba, &bc, m)) bad++;
        }
        CHECK(hits > 20);
        CHECK(bad == 0);
    }
}

/* ---- broad phase --------------------------------------------------------------------------- */

static int t_same(const int *a, int na, const int *b, int nb)
{
    if (na != nb) return 0;
    for (int i = 0; i < na; i++)
        if (a[i] != b[i]) return 0;
    return 1;
}

/* N boxes in a cube of side `side` (dim 2: z is garbage that must be
 * ignored), nh of them half-spaces (infinite bounds). */
static void t_random_boxes(mbs_aabb *box, int n, int dim, double side, int nh)
{
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++) {
            double c = t_uni(0, side), w = t_uni(0.05, 0.6);
            box[i].lo[k] = c - w;
            box[i].hi[k] = c + w;
        }
        if (dim == 2) {
            box[i].lo[2] = 100;
            box[i].hi[2] = -100;
        }
    }
    for (int i = 0; i < nh && i < n; i++) {
        int k = i % dim;
        mbs_aabb *b = &box[(i * 97) % n];
        for (int j = 0; j < 3; j++) {
            b->lo[j] = -HUGE_VAL;
            b->hi[j] = HUGE_VAL;
        }
        b->hi[k] = t_uni(0, side * 0.2); /* a floor below this level */
    }
}

static void t_broadphase_case(int dim, double side)
{
    enum { N = 1000, P = 20000, STEPS = 8 };
    const double margin = 0.05;
    int *pairs = malloc(2 * P * sizeof(int)), *o1 = malloc(P * sizeof(int)), *o2 = malloc(P * sizeof(int));
    mbs_aabb *box = malloc(N * sizeof *box);
    double (*vel)[3] = malloc(N * sizeof *vel);
    if (!CHECK(pairs && o1 && o2 && box && vel)) goto done;
    /* declared pairs among the first N - 50 boxes (the last 50 take part in
     * no pair), with some repeated and some reversed */
    for (int k = 0; k < P; k++) {
        int i = (int)(t_rand() * (N - 50)), j;
        do j = (int)(t_rand() * (N - 50)); while (j == i);
        pairs[2 * k] = i;
        pairs[2 * k + 1] = j;
        if (k % 1000 == 999) {
            pairs[2 * k] = pairs[2 * k - 1];
            pairs[2 * k + 1] = pairs[2 * k - 2];
        } else if (k % 1000 == 998) {
            pairs[2 * k] = pairs[2 * k - 2];
            pairs[2 * k + 1] = pairs[2 * k - 1];
        }
    }
    t_random_boxes(box, N, dim, side, 3);
    for (int i = 0; i < N; i++)
        for (int k = 0; k < 3; k++) vel[i][k] = t_uni(-0.02, 0.02);

    mbs_broadphase bp;
    CHECK(mbs_bp_init(&bp, dim, N, P, pairs) == 0);
    CHECK(bp.nactive == N - 50);
    double t_sweep = 0, t_direct = 0;
    int same = 1, coherent = 0, total = 0, slabbed = 0;
    for (int step = 0; step < STEPS; step++) {
        clock_t c0 = clock();
        int n1 = mbs_bp_sweep(&bp, box, margin, o1);
        clock_t c1 = clock();
        slabbed += bp.slabs >= 3; /* the boxes spread over many slabs */
        int n2 = mbs_bp_direct(dim, P, pairs, box, margin, o2);
        clock_t c2 = clock();
        t_sweep += (double)(c1 - c0) / CLOCKS_PER_SEC;
        t_direct += (double)(c2 - c1) / CLOCKS_PER_SEC;
        same &= t_same(o1, n1, o2, n2);
        total += n2;
        if (step > 0 && !bp.resorted) coherent++;
        /* small motion: the next sweep re-sorts by insertion */
        for (int i = 0; i < N; i++)
            for (int k = 0; k < dim; k++) {
                box[i].lo[k] += vel[i][k];
                box[i].hi[k] += vel[i][k];
            }
    }
    CHECK(same);
    CHECK(total > STEPS * 40);            /* a meaningful number of overlaps   */
    CHECK(total < STEPS * P / 2);         /* ... and not everything            */
    CHECK(coherent >= STEPS - 2);         /* small motion kept the order cheap */
    CHECK(slabbed == STEPS);              /* ... and were swept in slabs       */
    /* box pairs that overlapped at the last step were answered by the
     * partner memo (s_emit_pairs), and the answers equal the direct test's
     * above: declared once, twice, and not at all */
    CHECK(bp.memo_hits > total / 4);
    /* the pairs that overlap only with grown boxes (mbs_bp_grown, after the
     * last sweep) against the direct test of every declared pair, with a
     * fifth of the boxes grown (half-spaces among them or not) */
    {
        double *grow = malloc(N * sizeof(double)), gmax = 0;
        int ng = 0, nfound = 0, gsame = 1;
        for (int rep = 0; rep < 4 && grow; rep++) {
            for (int i = 0; i < N; i++) {
                grow[i] = t_rand() < 0.2 ? t_uni(0, 0.05 + 0.1 * rep) : 0;
                if (grow[i] > gmax) gmax = grow[i];
            }
            (void)mbs_bp_sweep(&bp, box, margin, o1);
            int n5 = mbs_bp_grown(&bp, box, margin, grow, gmax, o1), n6 = 0;
            for (int k = 0; k < P; k++) {
                int i = pairs[2 * k], j = pairs[2 * k + 1];
                double g = grow[i] + grow[j];
                if (g > 0 && !mbs_aabb_overlap(dim, &box[i], &box[j], margin) &&
                    mbs_aabb_overlap(dim, &box[i], &box[j], margin + g))
                    o2[n6++] = k;
            }
            gsame &= t_same(o1, n5, o2, n6);
            nfound += n6;
            ng++;
        }
        CHECK(gsame && ng == 4);
        CHECK(nfound > 20); /* growths that matter */
        printf("  grown boxes %dD: %d pairs over 4 cases, equal to the direct test\n", dim, nfound);
        free(grow);
    }
    /* a full reshuffle: merge sort path */
    t_random_boxes(box, N, dim, side, 3);
    int n1 = mbs_bp_sweep(&bp, box, margin, o1), n2 = mbs_bp_direct(dim, P, pairs, box, margin, o2);
    CHECK(bp.resorted == 1);
    CHECK(t_same(o1, n1, o2, n2));
    /* margin matters: a larger margin finds at least as many */
    int n3 = mbs_bp_sweep(&bp, box, 0.5, o1), n4 = mbs_bp_direct(dim, P, pairs, box, 0.5, o2);
    CHECK(t_same(o1, n3, o2, n4));
    CHECK(n3 > n1);
    printf("  broad phase %dD: N=%d, %d declared pairs, %.1f overlapping per step; "
           "sweep %.3f ms, direct %.3f ms per step (box pairs tested %ld)\n",
           dim, N, P, (double)total / STEPS, 1e3 * t_sweep / STEPS, 1e3 * t_direct / STEPS, bp.tested);
    mbs_bp_free(&bp);
done:
    free(pairs);
    free(o1);
    free(o2);
    free(box);
    free(vel);
}

static void test_broadphase_edge_cases(void)
{
    mbs_broadphase bp;
    int out[4];
    mbs_aabb box[3] = {{{0, 0, 0}, {1, 1, 1}}, {{1.05, 0, 0}, {2, 1, 1}}, {{5, 5, 5}, {6, 6, 6}}};
    int pairs[] = {0, 1, 1, 2, 2, 0, 1, 0};
    /* invalid input */
    CHECK(mbs_bp_init(&bp, 4, 3, 1, pairs) == MBS_EINVAL);
    CHECK(mbs_bp_init(&bp, 3, 3, 1, (int[]){0, 0}) == MBS_EINVAL);
    CHECK(mbs_bp_init(&bp, 3, 3, 1, (int[]){0, 3}) == MBS_EINVAL);
    CHECK(mbs_bp_init(&bp, 3, 3, 1, (int[]){-1, 1}) == MBS_EINVAL);
    CHECK(mbs_bp_init(&bp, 3, 3, 1, NULL) == MBS_EINVAL);
    mbs_bp_free(&bp);
    /* no pairs, no boxes */
    CHECK(mbs_bp_init(&bp, 3, 0, 0, NULL) == 0);
    CHECK(mbs_bp_sweep(&bp, box, 1, out) == 0);
    mbs_bp_free(&bp);
    CHECK(mbs_bp_init(&bp, 2, 3, 0, NULL) == 0);
    CHECK(mbs_bp_sweep(&bp, box, 1, out) == 0);
    mbs_bp_free(&bp);
    /* gap 0.05 between boxes 0 and 1: found with margin 0.05, not 0.04;
     * pair 3 repeats pair 0 reversed and is reported as well */
    CHECK(mbs_bp_init(&bp, 3, 3, 4, pairs) == 0);
    int n = mbs_bp_sweep(&bp, box, 0.05, out);
    CHECK(n == 2 && out[0] == 0 && out[1] == 3);
    CHECK(mbs_bp_sweep(&bp, box, 0.04, out) == 0);
    CHECK(mbs_bp_direct(3, 4, pairs, box, 0.05, out) == 2);
    /* touching boxes overlap with margin 0 */
    box[1].lo[0] = 1;
    n = mbs_bp_sweep(&bp, box, 0, out);
    CHECK(n == 2 && out[0] == 0 && out[1] == 3);
    mbs_bp_free(&bp);
    mbs_bp_free(&bp); /* twice is safe */
    /* 100 boxes 0.28 apart, size 0.25, margin 0.05 (gaps of 0.03 between
     * neighbours, 0.31 to the next ones), every pair declared: in a row
     * (one sweep: no spread across the second axis) the 99 neighbours; in
     * a 10 x 10 grid (slabs across y, rows in the same or adjacent slabs)
     * the 342 neighbours along x, y and the diagonals, as the direct test */
    enum { NB = 100, NP = NB * (NB - 1) / 2 };
    mbs_aabb grid[NB];
    static int gp[2 * NP], o1[NP], o2[NP];
    int np = 0;
    for (int i = 0; i < NB; i++)
        for (int j = i + 1; j < NB; j++) { gp[2 * np] = i; gp[2 * np + 1] = j; np++; }
    for (int layout = 0; layout < 2; layout++) {
        for (int i = 0; i < NB; i++) {
            double x = layout ? 0.28 * (i % 10) : 0.28 * i, y = layout ? 0.28 * (i / 10) : 0;
            grid[i] = (mbs_aabb){{x, y, 0}, {x + 0.25, y + 0.25, 0.25}};
        }
        CHECK(mbs_bp_init(&bp, 3, NB, NP, gp) == 0);
        int n1 = mbs_bp_sweep(&bp, grid, 0.05, o1), n2 = mbs_bp_direct(3, NP, gp, grid, 0.05, o2);
        CHECK(t_same(o1, n1, o2, n2));
        CHECK(layout ? bp.slabs >= 3 : bp.slabs == 0);
        CHECK(n2 == (layout ? 342 : 99));
        mbs_bp_free(&bp);
    }
}

static void test_broadphase(void)
{
    test_broadphase_edge_cases();
    t_broadphase_case(3, 8);
    t_broadphase_case(2, 25);
}

int main(void)
{
    test_circle_circle();
    test_circle_segment();
    test_circle_line_point_line();
    test_point_segment();
    test_sphere_sphere_plane();
    test_box_plane();
    test_sphere_box();
    test_capsule_capsule();
    test_capsule_plane();
    test_dispatch();
    test_finite_differences();
    test_degenerate_random();
    test_tangents();
    test_aabb();
    test_broadphase();
    return CHECK_SUMMARY("contact_geom_test");
}
