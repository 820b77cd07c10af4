/*
 * motor.h - motor algebra for the relative-coordinate formulation (issue 12,
 * seed 001: Ishac's motor-network technique).
 *
 * A motor is a dual vector a + eps b; as across and through variables of the
 * system graph it is a twist (angular velocity w, velocity v of the body
 * point at the frame's origin) or a wrench (moment n about the frame's
 * origin, force f).  In Plucker coordinates both are 6-vectors, written here
 * as two 3-vectors; the same objects are Featherstone's spatial motion and
 * force vectors.
 *
 * A dual transformation between frames (seed 001: the node-to-node
 * dual-transformation matrix, analogous to a homogeneous transform) is
 * stored as the rotation E (3 x 3, row-major: x_B = E x_A for free vectors)
 * and the position r of B's origin in A's coordinates.  It maps twists
 * (mbs_xf_twist) and, as its dual, wrenches (mbs_xf_wrench) so that the
 * power twist . wrench is the same in both frames.
 *
 * A joint's motion space is spanned by unit twists, one per axis (seed 001:
 * the single-row dual Jacobian of a joint with one axis, several rows for
 * several axes): a revolute about the line (p, u) is (u, p x u), a
 * prismatic along u is (0, u).  A joint's constraint wrenches are the
 * wrenches reciprocal to them (power zero).
 *
 * Plain functions on small structs, no allocation; every function works in
 * place safely (output may alias an input).
 */
#ifndef MBS_MOTOR_H
#define MBS_MOTOR_H

typedef struct { double w[3], v[3]; } mbs_twist;  /* angular; linear at the origin   */
typedef struct { double n[3], f[3]; } mbs_wrench; /* moment about the origin; force */

/* Dual transformation from frame A to frame B. */
typedef struct {
    double E[9]; /* rotation: B's components of a free vector given in A */
    double r[3]; /* B's origin, in A's coordinates                       */
} mbs_xform;

/* Rigid-body inertia about a frame: mass, centre of mass c and inertia
 * tensor Ic about the centre of mass (both in the frame's coordinates). */
typedef struct {
    double m, c[3], Ic[9];
} mbs_rbi;

/* ---- transformations ---- */

/* The identity, and the transform of a frame B rotated by E and moved to r
 * (in A's coordinates). */
mbs_xform mbs_xf_identity(void);
mbs_xform mbs_xf_make(const double E[9], const double r[3]);

/* B from A then C from B: the transform from A to C. */
mbs_xform mbs_xf_compose(const mbs_xform *c_from_b, const mbs_xform *b_from_a);

/* The inverse (B to A). */
mbs_xform mbs_xf_inverse(const mbs_xform *x);

/* A twist / wrench given in A, in B's coordinates: w' = E w,
 * v' = E (v - r x w); n' = E (n - r x f), f' = E f. */
mbs_twist mbs_xf_twist(const mbs_xform *x, const mbs_twist *t);
mbs_wrench mbs_xf_wrench(const mbs_xform *x, const mbs_wrench *f);

/* The same maps backwards (a twist / wrench given in B, in A's coordinates). */
mbs_twist mbs_xf_twist_inv(const mbs_xform *x, const mbs_twist *t);
mbs_wrench mbs_xf_wrench_inv(const mbs_xform *x, const mbs_wrench *f);

/* ---- products ---- */

/* The power of a wrench on a twist (the reciprocal product): w.n + v.f. */
double mbs_power(const mbs_twist *t, const mbs_wrench *f);

/* Motor cross products: the rate of change of twist b seen from a frame
 * moving with twist a (a x b: w_a x w_b, w_a x v_b + v_a x w_b), and of a
 * wrench g (a x* g: w_a x n_g + v_a x f_g, w_a x f_g). */
mbs_twist mbs_twist_cross(const mbs_twist *a, const mbs_twist *b);
mbs_wrench mbs_twist_cross_wrench(const mbs_twist *a, const mbs_wrench *g);

/* Sums and scaling. */
mbs_twist mbs_twist_axpy(double s, const mbs_twist *a, const mbs_twist *b);    /* s a + b */
mbs_wrench mbs_wrench_axpy(double s, const mbs_wrench *a, const mbs_wrench *b); /* s a + b */

/* Velocity of the point at p (frame coordinates) of the body moving with t. */
void mbs_twist_point_velocity(const mbs_twist *t, const double p[3], double vp[3]);

/* ---- joints: unit twists of their axes ---- */

/* Revolute about the line through p along the unit vector u: (u, p x u);
 * prismatic along u: (0, u); helical (screw) with pitch h (length per
 * radian): (u, p x u + h u). */
mbs_twist mbs_axis_revolute(const double p[3], const double u[3]);
mbs_twist mbs_axis_prismatic(const double u[3]);
mbs_twist mbs_axis_helical(const double p[3], const double u[3], double pitch);

/* ---- inertia ---- */

/* The momentum wrench I t of a body moving with twist t (frame
 * coordinates): f = m (v - c x w), n = Ic w + c x f. */
mbs_wrench mbs_rbi_apply(const mbs_rbi *I, const mbs_twist *t);

/* Kinetic energy 1/2 t . (I t). */
double mbs_rbi_energy(const mbs_rbi *I, const mbs_twist *t);

/* The same body's inertia in frame B (x: from the body's frame A to B). */
mbs_rbi mbs_rbi_transform(const mbs_xform *x, const mbs_rbi *I);

/* The 6 x 6 matrix of I (row-major, rows n then f, columns w then v), for
 * the articulated-body recursion's dense blocks. */
void mbs_rbi_matrix(const mbs_rbi *I, double M[36]);

#endif
