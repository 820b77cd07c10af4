/*
 * contact_geom.h - narrow-phase contact geometry (issue 3): the gap, normal
 * and witness points of a pair of shapes.
 *
 * Pure functions: no allocation, no global state, no dependence on the model.
 * Every shape is given in WORLD coordinates at the current configuration;
 * the caller transforms its body-fixed shape data with the body's pose.
 *
 * Conventions (docs/contacts.md has the long form):
 *   - A pair function mbs_contact_X_Y(a, b, ...) treats a as shape A and b
 *     as shape B.
 *   - n is a unit vector pointing from A to B.  The normal force on B is
 *     +lambda n and on A it is -lambda n (lambda >= 0 pushes them apart).
 *   - pa lies on the surface of A, pb on the surface of B, and
 *         g = n . (pb - pa).
 *     g > 0: separated (pa, pb are the closest points); g = 0: touching;
 *     g < 0: penetration depth -g, measured along n (pa is the point of A
 *     farthest into B, pb the surface point of B it is pushed out through;
 *     each pair function says which).  For smooth cases dg/d(position of B) = n
 *     and dg/d(position of A) = -n, so the row of the constraint Jacobian is
 *     n . (dpb/dq - dpa/dq) with pa, pb taken as material points of A, B.
 *   - A point is reported only when g <= margin (a NaN gap is never
 *     reported).  Pairs farther apart than the margin give 0 points, so a
 *     broad phase may skip any pair whose boxes are farther than the margin.
 *   - Planar shapes use 2-vectors; their results still use 3-vectors with
 *     z = 0, so that one result type serves both dimensions.
 *   - Lines and planes are one-sided: the solid lies on the side opposite to
 *     their normal, so a body that passes through keeps a negative gap.
 *   - Normals of lines and planes need not be unit (they are normalised);
 *     a zero normal falls back to +y (line) or +z (plane).
 *   - Degenerate input never gives NaN (for finite input of moderate size):
 *       coincident centres, a point on a segment, zero-length segments ->
 *       the documented fallback normals below.  Box rotations must be
 *       orthonormal (not checked); half-extents and radii must be >= 0.
 * Every pair function returns the number of points (also stored in out->n).
 */
#ifndef MBS_CONTACT_GEOM_H
#define MBS_CONTACT_GEOM_H

/* Largest number of points any pair function reports (box-plane). */
#define MBS_CONTACT_MAX 4

/* One contact point. */
typedef struct {
    double g;     /* signed gap, negative = penetration                   */
    double n[3];  /* unit normal from A to B (z = 0 in the plane)          */
    double pa[3]; /* witness point on A, world                             */
    double pb[3]; /* witness point on B, world                             */
} mbs_contact;

/* The result of a pair function. */
typedef struct {
    int n;                          /* number of points, 0..MBS_CONTACT_MAX */
    mbs_contact c[MBS_CONTACT_MAX];
} mbs_contact_set;

/* ---- shapes (world coordinates) -------------------------------------------------- */

/* Planar. */
typedef struct { double p[2]; } mbs_point2;               /* a point                  */
typedef struct { double c[2]; double r; } mbs_circle;     /* centre, radius           */
typedef struct { double a[2], b[2]; } mbs_segment2;       /* end points a -> b        */
typedef struct { double p[2], n[2]; } mbs_line2;          /* point, outward normal    */

/* Spatial. */
typedef struct { double c[3]; double r; } mbs_sphere;     /* centre, radius           */
typedef struct { double p[3], n[3]; } mbs_plane;          /* point, outward normal    */
/* Box: x = c + R l with l in [-h, h]; R row-major, its COLUMNS are the box
 * axes in world coordinates (R maps box coordinates to world). */
typedef struct { double c[3]; double R[9]; double h[3]; } mbs_box;
typedef struct { double a[3], b[3]; double r; } mbs_capsule; /* segment a -> b, radius */

/* A shape of any kind, for the dispatcher and the bounding boxes. */
typedef enum {
    MBS_SHAPE_POINT2 = 0,
    MBS_SHAPE_CIRCLE,
    MBS_SHAPE_SEGMENT2,
    MBS_SHAPE_LINE2,
    MBS_SHAPE_SPHERE,
    MBS_SHAPE_PLANE,
    MBS_SHAPE_BOX,
    MBS_SHAPE_CAPSULE,
    MBS_SHAPE_NKIND
} mbs_shape_kind;

typedef struct {
    mbs_shape_kind kind;
    union {
        mbs_point2 point2;
        mbs_circle circle;
        mbs_segment2 segment2;
        mbs_line2 line2;
        mbs_sphere sphere;
        mbs_plane plane;
        mbs_box box;
        mbs_capsule capsule;
    };
} mbs_shape;

/* Axis-aligned bounding box; planar shapes have lo[2] = hi[2] = 0.  Bounds
 * may be infinite (lines, planes), never NaN for finite shapes. */
typedef struct mbs_aabb { double lo[3], hi[3]; } mbs_aabb;

/* ---- planar pairs ------------------------------------------------------------------ */

/* Circle A, circle B.  Coincident centres: n = +x. */
int mbs_contact_circle_circle(const mbs_circle *a, const mbs_circle *b, double margin,
                              mbs_contact_set *out);

/* Circle A, segment B (two-sided: the segment is a rod of zero thickness, the
 * gap is the distance from the centre to the segment minus the radius).
 * Centre on the segment: n = the segment direction turned by -90 degrees
 * (the circle is taken to be on the left of a -> b); zero-length segment as
 * well: n = +x. */
int mbs_contact_circle_segment(const mbs_circle *a, const mbs_segment2 *b, double margin,
                               mbs_contact_set *out);

/* Circle A, line B (one-sided): g = nl . (c - p) - r, n = -nl. */
int mbs_contact_circle_line(const mbs_circle *a, const mbs_line2 *b, double margin,
                            mbs_contact_set *out);

/* Point A, line B (one-sided): g = nl . (x - p), n = -nl, pa = x. */
int mbs_contact_point_line(const mbs_point2 *a, const mbs_line2 *b, double margin,
                           mbs_contact_set *out);

/* Point A, segment B as a one-sided finite WALL: the outward normal of the
 * wall is the direction a -> b turned by +90 degrees (its left side is
 * outside).  A contact exists only while the point projects onto the wall
 * (0 <= t <= 1); then it is the point-line contact with that line.  A
 * zero-length segment never reports a contact.  The penetration is not
 * bounded (a point far behind the wall still reports), but the wall's
 * bounding box is finite: the broad phase finds the pair only while the
 * penetration is below its margin (deeper means the point tunnelled). */
int mbs_contact_point_segment(const mbs_point2 *a, const mbs_segment2 *b, double margin,
                              mbs_contact_set *out);

/* ---- spatial pairs ----------------------------------------------------------------- */

/* Sphere A, sphere B.  Coincident centres: n = +x. */
int mbs_contact_sphere_sphere(const mbs_sphere *a, const mbs_sphere *b, double margin,
                              mbs_contact_set *out);

/* Sphere A, plane B (one-sided): g = np . (c - p) - r, n = -np. */
int mbs_contact_sphere_plane(const mbs_sphere *a, const mbs_plane *b, double margin,
                             mbs_contact_set *out);

/* Box A, plane B (one-sided): the box vertices with g <= margin, at most the
 * 4 deepest (ties broken by vertex index, index bits 0/1/2 = sign of the
 * box x/y/z half-extent), in order of increasing gap.  n = -np, pa = vertex,
 * pb = its projection on the plane. */
int mbs_contact_box_plane(const mbs_box *a, const mbs_plane *b, double margin,
                          mbs_contact_set *out);

/* Sphere A, box B (solid box).  Centre outside: pb = the closest point of
 * the box, n towards it.  Centre inside: the sphere leaves through the
 * nearest face (ties: lowest axis, then the + face); n = minus that face's
 * outward normal, pb = the centre's projection on the face; g = -(distance
 * to the face) - r, continuous with the outside branch.  pa = c + r n. */
int mbs_contact_sphere_box(const mbs_sphere *a, const mbs_box *b, double margin,
                           mbs_contact_set *out);

/* Capsule A, capsule B: closest points of the two segments.  Parallel
 * segments (sine of the angle below 1e-6) whose projections overlap give 2
 * points, at the two ends of the overlap, so a capsule lying on another is
 * supported; otherwise 1 point.  The parallel test costs at most
 * 1e-6 x length / 2 in gap (the true closest points of two axes crossing at
 * such a small angle may lie between the two reported ones).  Zero distance
 * between the axes: n = unit(da x db) when they are not parallel, else
 * unit(d x e_k) with d the longer axis and e_k the world axis of its smallest
 * component; two zero-length segments at one point: n = +x. */
int mbs_contact_capsule_capsule(const mbs_capsule *a, const mbs_capsule *b, double margin,
                                mbs_contact_set *out);

/* Sphere A, capsule B: capsule-capsule with A's segment of zero length. */
int mbs_contact_sphere_capsule(const mbs_sphere *a, const mbs_capsule *b, double margin,
                               mbs_contact_set *out);

/* Capsule A, plane B (one-sided): each end sphere against the plane, up to 2
 * points (1 when the segment has zero length). */
int mbs_contact_capsule_plane(const mbs_capsule *a, const mbs_plane *b, double margin,
                              mbs_contact_set *out);

/* ---- dispatcher and helpers ------------------------------------------------------- */

/* The pair function for the kinds of a and b, in either order: a reversed
 * pair (e.g. plane, sphere) calls the function for (sphere, plane) and flips
 * the result, so A is always a and B always b.  Returns the number of points,
 * or -1 when the pair of kinds is not supported (out->n = 0). */
int mbs_contact_shapes(const mbs_shape *a, const mbs_shape *b, double margin,
                       mbs_contact_set *out);

/* 1 if mbs_contact_shapes supports the pair of kinds (either order). */
int mbs_contact_supported(mbs_shape_kind a, mbs_shape_kind b);

/* Tangent directions for friction at a contact with unit normal n: t1, t2
 * unit and orthogonal, with (t1, t2, n) right-handed.
 *   dim 2: t1 = n turned by +90 degrees, (-n_y, n_x, 0); t2 = +z.
 *   dim 3: t1 = unit(e_k x n) with e_k the world axis of the smallest |n_k|
 *          (ties: lowest k), t2 = n x t1.  Continuous in n except where the
 *          smallest component changes; friction laws that need a continuous
 *          basis (polyhedral cones over steps) should rotate the previous one. */
void mbs_contact_tangents(int dim, const double *n, double *t1, double *t2);

/* Swap the roles of A and B: n -> -n, pa <-> pb (g unchanged). */
void mbs_contact_flip(mbs_contact_set *s);

/* Bounding box of a shape enlarged by `inflate` on every side.  Lines and
 * planes are half-spaces: infinite, except along a world axis their normal
 * is exactly parallel to, where they end at the boundary (+ inflate).
 * Returns the dimension of the shape (2 or 3), or 0 for an unknown kind. */
int mbs_shape_aabb(const mbs_shape *s, double inflate, mbs_aabb *box);

/* Name of a kind ("circle", ...), "?" if unknown. */
const char *mbs_shape_kind_name(mbs_shape_kind k);

#endif
