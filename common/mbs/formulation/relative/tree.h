/*
 * tree.h - the relative-coordinate formulation's equations of motion
 * (issue 12, seed 001): kinematics of the spanning tree from the joint
 * coordinates, O(n) forward dynamics of the tree, and the chords' circuit
 * equations that close the loops.
 *
 * Coordinates.  Every body's frame is the global frame at t = 0 carried
 * along with the body (its "reference coordinates"), so that a body point
 * given globally at t = 0 has those coordinates in its body for ever, and
 * every joint axis (a line fixed in both bodies, in the same place at
 * t = 0) has the same unit twist in the parent's and the child's reference
 * coordinates.  A tree joint is a chain of elementary one-freedom nodes:
 * revolute 1 R, prismatic 1 P, cylindrical P + R on one axis, universal
 * R(axes[0]) + R(axes[1]) (the first axis fixed in the joint's first body),
 * spherical a ball node about the joint point (orientation a quaternion,
 * four coordinates, its three rates the angular velocity in the parent's
 * reference axes: no gimbal lock), fixed no node freedom; a floating root
 * P x, y (z), then R z (a ball) through its centre of mass.  The intermediate nodes are massless.
 * A body's pose is T_b = T_parent G(q) with G the product of its nodes'
 * exponentials exp(S_k q_k) (the product-of-exponentials form), so q = 0 is
 * the input configuration; q has nq entries, the rates u and
 * accelerations n (nq = n plus one per ball).
 *
 * Dynamics (why this method).  The articulated-body recursion
 * (Featherstone's ABA), in world coordinates and written in the motor
 * algebra of motor.h: pass 1 outwards, the nodes' poses, twists V_i =
 * V_parent + S_i u_i and velocity-product terms c_i = V_i x S_i u_i; pass 2
 * inwards, articulated inertias IA_i and bias wrenches pA_i, projected on
 * each node's axis (D_i = S_i . IA_i S_i); pass 3 outwards, the
 * accelerations, with gravity as the base's acceleration -g.  Chosen over
 * seed 001's cutset equations evaluated recursively (the composite form,
 * which builds the n x n mass matrix and factorises it, O(n^2)..O(n^3))
 * because it is O(n) in time and memory whatever the tree's shape, and its
 * factorisation (IA, D) is reused for the loops: M^-1 J^T takes one more
 * O(n) pass per chord equation (mbs_rtree_minv).  In world coordinates the
 * recursion needs no transformation between node frames (a twist or a
 * wrench is added to its parent's as it is); the body inertias are
 * transformed once per evaluation.  A ball node's D is 3 x 3; D, D^-1 and
 * the articulated inertias are kept exactly symmetric (a thin link's D is
 * ill-conditioned, and a rounding asymmetry grew node by node along a
 * chain until D lost definiteness).  The joint reactions are the cutset
 * wrenches, summed inwards with the final accelerations
 * (mbs_rtree_reactions).
 *
 * Loops.  Each chord joint gives its constraint equations (the circuit
 * equations) as dot products of body-fixed vectors and point differences:
 * a revolute 2 (plane) or 5 (space), prismatic 2 or 5, spherical 3,
 * universal 4, cylindrical 4, fixed 3 or 6, distance 1, the counts of
 * sysgraph.c.  Position level Phi(q), velocity level J(q) u (J dense,
 * nchord_eq x n), acceleration level J qdd + bias(q, u): solved by the
 * index-1 form with Baumgarte's terms, qdd = qdd_tree + M^-1 J^T lam with
 * (J M^-1 J^T) lam = -bias - 2 alpha Phi' - beta^2 Phi - J qdd_tree
 * (mbs_rtree_accel).  Redundant chord equations (a dependent row) get a
 * zero multiplier: LDL^T in the equations' order, again with diagonal
 * pivoting when that kept a row of a pivot below 1e-3 of a dropped row's
 * diagonal (a nearly zero row taken before the rows spanning it: a planar
 * loop on a turning body, tree_circuit.c).
 *
 * Drivers of tree revolute and prismatic joints are rheonomic rows beside
 * the circuit equations (the joint's measure, signed as the natural
 * coordinates measure it, equal to the motion f(t)); a driver of a chord
 * joint (sysgraph.c cuts a loop elsewhere when it can) is a rheonomic
 * circuit equation, the chord's relative angle or slide from its two
 * bodies' poses equal to f(t) (mbs_req).
 *
 * Forces: gravity; translational spring-dampers between body points; point
 * forces and torques (global or body axes); joint damping and dc_motors on
 * revolute and prismatic joints, tree or chord (without inductance or
 * controller here; with them the run adds their torques through `extra`,
 * w->motors_by_run; rotor inertias in the body inertias, as the natural
 * coordinates', or at their joint's node, below); rotational spring-dampers on revolute joints, tree (the
 * node's coordinate) or chord (the relative angle of its two bodies, kept
 * continuous beyond +-pi by mbs_rtree_track_angles), as a torque pair.  The
 * compliant contacts come from the run (mbs_rtree_ws.extra).  The rest is
 * refused by mbs_rtree_supported (rigid contacts, clearance joints, ...).
 *
 * Rotors between moving bodies in space (a dc_motor's rotor_inertia on a
 * revolute or prismatic tree joint, the stator on body[0] = A): the
 * natural coordinates' thin disk (docs/actuators.md, "In space"), polar
 * inertia J about the joint's axis a, transverse J / 2, no mass (its mass
 * is A's), turning at w_A + N th' a (th the joint's angle or slide).  In
 * the tree w_A + N th' a = w_parent + n q' a with n = N (A the parent),
 * 1 - N (A the child of a revolute), -N (of a prismatic), so the rotor is a
 * massless body whose twist is the parent's plus q' g, g = n (a, 0): a
 * second child of the parent that shares the node's rate.  The
 * articulated-body recursion takes it exactly at the node (pass 2):
 * U = IA S + sum J n (a, 0), D = S^T IA S + sum J n^2, the parent receiving
 * IA - U D^-1 U^T + sum J / 2 (1 + a a^T), and the rotor's bias moment
 * (its gyroscopic w_r x I w_r and I times its velocity product less the
 * node's) in the node's bias (mbs_rtree_rotor_bias, tree_dynamics.c).
 * Why this and not the rotor as a node of its own, tied to the joint by
 * the circuit equation th_r - n q = 0: that adds a coordinate per rotor
 * turning N times as fast as the joint (the fast variable that makes the
 * natural coordinates' rotor cost 3 to 4 times the steps, bench/README.md)
 * and a circuit equation the projection and Baumgarte terms must hold;
 * the geared term (Featherstone's and Jain's geared-motor treatment, a
 * rigid gear eliminated rather than imposed) adds nothing to the state,
 * is exact, O(1) per rotor, and the M^-1 products (mbs_rtree_minv) take
 * it with the same U and D.  The motor's torque acts on the joint (the
 * pair on A and B of mbs_rtree_joint_load), which is the same as on the
 * rotor through a rigid, lossless gear.  The joint's reaction is the
 * natural coordinates' (tree_reaction.c): the rotor's inertial moment goes
 * to the parent's side, and its gear and bearing loads on A and B are
 * applied forces, not the joint's.  On a chord (no node, left only when
 * every joint of its loop carries a load, sysgraph.c) it is a row of its
 * own beside the circuit equations (mbs_rrotor, kinds 2 and 3).
 */
#ifndef MBS_TREE_H
#define MBS_TREE_H

#include "mbs/formulation/relative/motor.h"
#include "mbs/formulation/relative/sysgraph.h"
#include "mbs/mbs.h"

typedef enum { MBS_RN_REVOLUTE = 0, MBS_RN_PRISMATIC, MBS_RN_RIGID, MBS_RN_BALL } mbs_rnode_kind;

typedef struct {
    mbs_rnode_kind kind;
    int parent;       /* node index, -1: the ground                           */
    int body;         /* the body whose pose this node carries, -1 massless   */
    int dof;          /* freedoms: 1 (revolute, prismatic), 3 (ball), 0 (rigid) */
    int coord;        /* its first rate in u, -1 for a rigid node             */
    int qcoord;       /* its first coordinate in q (a ball's: a quaternion, 4) */
    int joint;        /* spec joint, -1 for a floating root's nodes            */
    double p[3], u[3];/* axis: a point on it and its unit direction, ref. coords */
    /* rotors of dc_motors on this joint whose stator is on a moving body
     * (a planar revolute joint; in space, a revolute or prismatic one):
     * each turns at w_parent + n q' about the axis (n = N with the stator
     * on the parent, 1 - N on the child; a spatial prismatic's child: -N):
     * the sums of J, J n and J n^2 over them (tree_dynamics.c, pass 2) */
    double rotor_J, rotor_Jn, rotor_Jn2;
    /* rotors of dc_motors on this prismatic joint (to ground, or in the
     * plane between moving bodies; in space between moving bodies they
     * are rotor_J's): each turns at q' / lead relative to its
     * stator's body, whose rotation is normal to the screw, so its kinetic
     * energy is 1/2 (J / lead^2) q'^2: an armature on the joint's rate,
     * the sum of J / lead^2 (tree_dynamics.c, pass 2) */
    double rotor_m;
} mbs_rnode;

/* A vector of the circuit equations: a body-fixed free vector (kind 0,
 * ref. direction r of body b), a body point (kind 1, ref. point r), or
 * the difference t[0] - t[1] of two points (n = 2).  Ground: b = -1. */
typedef struct { int kind, body; double r[3]; } mbs_rterm;
typedef struct { int n; mbs_rterm t[2]; } mbs_rvec;

/* One circuit equation of a chord joint, by kind:
 *  MBS_REQ_DOT    a . b - c = 0 (the joint's constraint);
 *  MBS_REQ_SLIDE  a . b - f(t) = 0 (a driven prismatic chord: a its axis
 *                 in body[0], b the joint points' difference, body[1]'s
 *                 minus body[0]'s: the slide as the natural coordinates
 *                 measure it, 0 at the input configuration);
 *  MBS_REQ_ANGLE  atan2(a2 . b, a . b) - f(t) = 0 modulo 2 pi (a driven
 *                 revolute chord: a, a2 two perpendiculars of its axis u
 *                 in body[0], a2 = u x a, b = a in body[1]: the angle of
 *                 body[1] relative to body[0] about u, 0 at the input
 *                 configuration). */
enum { MBS_REQ_DOT = 0, MBS_REQ_SLIDE, MBS_REQ_ANGLE };
typedef struct {
    int kind;
    mbs_rvec a, b, a2;
    double c;
    const mbs_fn *fn;       /* the driver's motion (SLIDE, ANGLE)            */
    int joint;
} mbs_req;

/* A dc_motor's rotor on a chord joint (kind 0: a planar revolute chord
 * between moving bodies, the stator on body[0], turning at (1 - n) w_0 +
 * n w_1; kind 1: a prismatic chord, turning at s' / lead relative to its
 * stator's body, s = a . b as MBS_REQ_SLIDE's): its kinetic energy
 * 1/2 mu (c . u)^2 with c . u the rate above (c the row of a holonomic
 * measure), so M + mu c c^T: taken by mbs_rtree_accel as a row sqrt(mu) c
 * beside the circuit equations with 1 added to its pivot (tree_circuit.c).
 *
 * In space between moving bodies (kind 2: a revolute chord, kind 3: a
 * prismatic one) the rotor is the natural coordinates' thin disk (polar J
 * about the axis a, fixed in the stator's body A = body[0], transverse
 * J / 2), turning at w_r = w_A + n th' a (th the joint's angle or slide).
 * Its kinetic energy splits as 1/2 w_A^T J/2 (1 - a a^T) w_A + 1/2 J
 * om^2, om = a . w_r the spin: c . u = (1 - n) a . w_A + n a . w_B
 * (revolute; a . (w_B - w_A) = th' on the chord's constraint manifold) or
 * a . w_A + n s' (prismatic, s = a . b as kind 1's).  Its inertial
 * moment dL/dt, L = J/2 (1 - a a^T) w_A + J om a, is then (a being fixed
 * in A, so a' = w_A x a): (1) J/2 (1 - a a^T) w_A' + w_A x J/2 (1 - a a^T)
 * w_A, a rigid inertia fixed in A that mbs_rtree_build adds to A's
 * (t->inertia); (2) J om' a with om' = c . u' + c' u, the row's rank-one
 * term as kinds 0 and 1 (c' u its bias, with the rotating axis's
 * (w_A x a) . w_B); (3) J om (w_A x a), the gyroscopic moment, which
 * mbs_rtree_applied puts on A as an applied moment -J om (w_A x a) (no
 * power: it is normal to w_A).  In a virtual motion the rotor's rate
 * differs from A's by a multiple of a, and a is normal to (1) and (3), so
 * they act on A alone: the equations are the disk's exactly, with nothing
 * added to the state (mu = J). */
typedef struct {
    int kind, joint;
    double mu, n;           /* J (revolute; in space, either) or J / lead^2
                               (planar prismatic); N                        */
    mbs_rvec a, b;          /* prismatic: the slide's vectors (a the axis in
                               body[0]); kind 2: a the axis in body[0]      */
} mbs_rrotor;

typedef struct {
    const mbs_spec *spec;   /* borrowed                                        */
    int dim;
    int nnode, n, nq;       /* nodes; rates u (n); coordinates q (nq: n plus one
                               per ball, whose orientation is a quaternion)  */
    mbs_rnode *node;        /* (nnode) parents before children                 */
    int *body_node;         /* (nbody) the node carrying each body's pose     */
    mbs_rbi *inertia;       /* (nbody) about the reference origin, ref. coords */
    int neq;                /* constraint equations: nceq circuit, then drivers */
    int nceq;               /* the chords' circuit equations (their drivers'
                               among them)                                     */
    mbs_req *eq;            /* (nceq)                                           */
    int ndrv;               /* drivers of tree joints: q_c sign = f(t)          */
    int *drv_coord;         /* (ndrv) the driven node's rate in u               */
    int *drv_qcoord;        /* (ndrv) its coordinate in q                       */
    double *drv_sign;       /* (ndrv) +1: the joint's measure is q, -1: -q     */
    const mbs_fn **drv_fn;  /* (ndrv) the motion (in the spec)                  */
    mbs_sysgraph g;         /* the spanning tree and its chords                */
    int nrr;                /* rotors on chords: rows neq .. neq + nrr of the
                               workspace's J, K, lam (their forces)          */
    mbs_rrotor *rr;         /* (nrr)                                            */
} mbs_rtree;

/* Per-evaluation state, sized by mbs_rtree_ws_new (nothing is allocated by
 * the evaluations). */
typedef struct mbs_rtree_ws {
    double *R, *p;          /* (nnode x 9, x 3) poses: x_world = R x_ref + p   */
    mbs_twist *S;           /* (n) unit twists of the rates' axes, world        */
    mbs_twist *V, *c, *A;   /* (nnode) twists, velocity-product terms, accelerations */
    mbs_wrench *pA, *fext;  /* (nnode) bias wrenches; (nbody) applied wrenches */
    double *IA;             /* (nnode x 36) articulated inertias               */
    double *U;              /* (n x 6) U = IA S per rate, a wrench (n f)       */
    double *Dinv;           /* (nnode x 9) D^-1 = (S^T IA S)^-1 (1 x 1 or 3 x 3) */
    const double *q, *u;    /* the coordinates and rates of the last kinematics
                               pass (u may be NULL)                          */
    /* wrenches the layer above adds (world, about the origin, into fext;
     * the run's compliant contacts, run/relative.c), called by
     * mbs_rtree_applied after the force elements; NULL: none */
    void (*extra)(void *ctx, const mbs_rtree *t, struct mbs_rtree_ws *w, double time);
    void *extra_ctx;
    double *uu;             /* (n)                                             */
    double *phi, *phid, *bias; /* (neq) Phi, Phi' = J u, J' u                 */
    double *J;              /* (neq x n) row-major                              */
    double *Y;              /* (n x neq) M^-1 J^T, column k at Y + k n          */
    double *K, *rhs, *lam;  /* (neq x neq), (neq), (neq)                        */
    int *ord;               /* (neq + nrr) the solves' elimination order when
                               they pivot (tree_circuit.c s_solve_rows)      */
    double *Kc;             /* ((neq + nrr)^2 + neq + nrr) K and rhs kept for that */
    double *qdd0, *tau;     /* (n) the tree's accelerations, joint forces       */
    double *jq;             /* (n x 3 x 3) scratch rows of one equation's vectors */
    double *jangle;         /* (njoint) the last accepted angle of each chord
                               with a rotational spring (continuous beyond
                               +-pi: mbs_rtree_track_angles), 0 at first     */
    mbs_wrench *fj, *fc, *fchord; /* (nnode) transmitted wrenches, (nbody) chords'
                               wrenches on each body, (njoint) each chord's on its
                               body[1] (mbs_rtree_reactions)                   */
    int nchord_eq;
    double pivot_ratio;     /* the last mbs_rtree_accel's smallest pivot of
                               J M^-1 J^T over its largest diagonal (near 0:
                               nearly dependent equations, a singular
                               position; 1 without equations)           */
    int motors_by_run;      /* 1: mbs_rtree_applied leaves the dc_motors to
                               `extra` (inductive ones, controlled ones: the
                               run's element states; mbs_rtree_joint_load) */
} mbs_rtree_ws;

/* Refuse what the relative formulation does not run yet: 0, or MBS_EINVAL
 * with one message per reason in err (the JSON pointer of the offending
 * object where there is one). */
int mbs_rtree_supported(const mbs_spec *s, mbs_errlist *err);

/* Build the tree of spec s (spanning tree of sysgraph.c): nodes, inertias,
 * circuit equations.  0, MBS_EINVAL (message in err) or MBS_ENOMEM.  The
 * spec is borrowed; free with mbs_rtree_free. */
int mbs_rtree_build(const mbs_spec *s, mbs_rtree *t, mbs_errlist *err);
void mbs_rtree_free(mbs_rtree *t);

int mbs_rtree_ws_new(const mbs_rtree *t, mbs_rtree_ws *w);
void mbs_rtree_ws_free(mbs_rtree_ws *w);

/* Pass 1: the nodes' poses, axis twists, twists and velocity-product terms
 * at (q, u) (u may be NULL: zero rates). */
void mbs_rtree_kinematics(const mbs_rtree *t, mbs_rtree_ws *w, const double *q, const double *u);

/* The body's pose, twist and spatial acceleration (world coordinates; the
 * ground's for b < 0) after mbs_rtree_kinematics (and, for A, after an
 * acceleration pass: mbs_rtree_forward / mbs_rtree_accel). */
void mbs_rtree_body(const mbs_rtree *t, const mbs_rtree_ws *w, int b, double R[9], double p[3], mbs_twist *V,
                    mbs_twist *A);

/* The applied wrenches at (t, q, u) into w->fext (world, about the origin)
 * and the generalized joint forces of tree joints into w->tau (after
 * mbs_rtree_kinematics). */
void mbs_rtree_applied(const mbs_rtree *t, mbs_rtree_ws *w, double time);

/* Add the equal and opposite load f along joint j's coordinate to w->fext
 * (a revolute: torque f about its axis on body[1], -f on body[0]; a
 * prismatic: force f along its axis at body[1]'s joint point, -f at
 * body[0]'s), after mbs_rtree_kinematics: how a dc_motor's torque enters. */
void mbs_rtree_joint_load(const mbs_rtree *t, mbs_rtree_ws *w, int j, double f);

/* The angle of revolute joint j (body[1] relative to body[0] about its
 * axis, 0 at the input configuration) from its bodies' poses after
 * mbs_rtree_kinematics, on the branch next to w->jangle[j]. */
double mbs_rtree_joint_angle(const mbs_rtree *t, const mbs_rtree_ws *w, int j);

/* After an accepted step (w's kinematics at the accepted state): each chord
 * spring's angle into w->jangle, the branch its next evaluations follow. */
void mbs_rtree_track_angles(const mbs_rtree *t, mbs_rtree_ws *w);

/* Passes 2 and 3 of the articulated-body recursion: the tree's
 * accelerations qdd (n) under gravity, w->fext and w->tau (after
 * mbs_rtree_kinematics and mbs_rtree_applied); w->A the nodes' spatial
 * accelerations.  0, or MBS_ESINGULAR (a node's D_i not positive). */
int mbs_rtree_forward(const mbs_rtree *t, mbs_rtree_ws *w, double *qdd);

/* y = M^-1 f with the factorisation of the last mbs_rtree_forward (no
 * velocities, no gravity): one O(n) pass. */
void mbs_rtree_minv(const mbs_rtree *t, mbs_rtree_ws *w, const double *f, double *y);

/* The constraint equations at the state of the last mbs_rtree_kinematics
 * and time `time`: the circuit equations and the drivers' (sign q_c - f(t)
 * = 0, the joint's measure as the natural coordinates define it): w->phi,
 * w->J (u-rows), w->phid = Phi' and w->bias (what J qdd adds up to the
 * equations' second derivative: J' u, or -f''(t)). */
void mbs_rtree_circuit(const mbs_rtree *t, mbs_rtree_ws *w, double time);

/* The accelerations of the whole formulation at (time, q, u): the tree's,
 * corrected by the chords' multipliers (index 1, Baumgarte coefficients
 * alpha, beta in 1/s).  0, or MBS_ESINGULAR. */
int mbs_rtree_accel(const mbs_rtree *t, mbs_rtree_ws *w, double time, const double *q, const double *u,
                    double alpha, double beta, double *qdd);

/* The minimum-norm solution x (n) of J x = r (r: neq) with the rows J of
 * the last mbs_rtree_circuit: x = J^T (J J^T)^-1 r, a dependent row
 * (a pivot below 1e-11 of the largest) taking no share.  The kinematic
 * problems of a fully driven mechanism: a Newton step of the positions
 * (r = -Phi), the rates (r = -Phi' at u = 0), the accelerations (r =
 * -bias).  Returns the number of dependent rows. */
int mbs_rtree_min_norm(const mbs_rtree *t, mbs_rtree_ws *w, const double *r, double *x);

/* The generalized forces Q (n) at rest (u = 0, qdd = 0): gravity's, the
 * applied wrenches' and the joint forces of w->tau, after
 * mbs_rtree_kinematics (u NULL) and mbs_rtree_applied; the tree's M qdd = Q
 * there (the chords' J^T lam aside).  Static equilibrium: Q + J^T lam = 0
 * with Phi = 0.  Uses w->fj. */
void mbs_rtree_gen_forces(const mbs_rtree *t, mbs_rtree_ws *w, double *Q);

/* Which rows of the last mbs_rtree_circuit's J are independent: on[i] 1,
 * 0 for a row dependent on the rows before it (a pivot of J J^T below
 * 1e-11 of its largest diagonal; before it in the rows' order, or in the
 * pivoted order when that kept a weak row, as mbs_rtree_accel's solve).
 * Returns the number of independent rows. */
int mbs_rtree_independent_rows(const mbs_rtree *t, mbs_rtree_ws *w, char *on);

/* q <- q "+" du: du (n) a step in the rates' space, added to a one-freedom
 * node's coordinate, a ball's quaternion turned by the rotation vector du
 * (its parent's reference axes) and normalised. */
void mbs_rtree_q_add(const mbs_rtree *t, double *q, const double *du);

/* The joint reactions at the state of the last mbs_rtree_accel (its
 * accelerations and multipliers), from the cutset wrenches
 * (tree_reaction.c): for every joint of the spec, the wrench its body[0]
 * exerts through it on its body[1] (the ground: minus the one on body[0]),
 * world axes, force then moment about the joint point on that body (a
 * distance joint's end there), into out (njoint x 6) - what the natural
 * coordinates' reaction channels give (output/reaction.c).  A tree joint's
 * is the wrench it transmits into its subtree, a chord's that of its
 * circuit equations' multipliers. */
void mbs_rtree_reactions(const mbs_rtree *t, mbs_rtree_ws *w, double *out);

/* Joint coordinates and rates of a configuration given by every body's
 * pose and twist (R, p: x_world = R x_ref + p, R b x 9, p b x 3; V world
 * twists), e.g. mapped from another formulation's state: 0, or -1 when a
 * joint's coordinates could not be recovered. */
int mbs_rtree_from_poses(const mbs_rtree *t, mbs_rtree_ws *w, const double *R, const double *p,
                         const mbs_twist *V, double *q, double *u);

/* The coordinates' rate qdot (nq) of the rates u: u itself, and for a
 * ball qdot = 1/2 (0, w) (x) q with w its rates (the angular velocity in
 * its parent's reference axes). */
void mbs_rtree_qdot(const mbs_rtree *t, const double *q, const double *u, double *qdot);

/* Their second derivative qddot (nq) from q, qdot and the accelerations
 * udd: udd itself, for a ball 1/2 (0, w') (x) q + 1/2 (0, w) (x) qdot. */
void mbs_rtree_qddot(const mbs_rtree *t, const double *q, const double *u, const double *udd, const double *qdot,
                     double *qddot);

/* The rates u of (q, qdot): qdot itself, for a ball w = 2 vec(qdot (x) q*) / |q|^2. */
void mbs_rtree_rates(const mbs_rtree *t, const double *q, const double *qdot, double *u);

/* The error scale of coordinate i of q and of rate i of u: 1 for angles and
 * quaternion components, `length` for slides. */
double mbs_rtree_qscale(const mbs_rtree *t, int i, double length);
double mbs_rtree_uscale(const mbs_rtree *t, int i, double length);

/* The chords' names as "a, b" into buf (snprintf semantics). */
int mbs_rtree_chord_names(const mbs_rtree *t, char *buf, size_t size);

/* ---- blocks for rigid contacts (tree_mass.c, tree_jac.c) ---- */

/* The joint-space mass matrix M(q) of the tree on the rates u, in
 * compressed rows fixed for the tree: row a (node i) has the rates of the
 * nodes on one path to the root with i (i, its ancestors, its
 * descendants; a ball's three rates together), columns ascending (rates
 * follow the node order, parents first: mbs_rtree_build's).
 * mbs_rtree_mass_nnz gives the entries' count (ptr has n + 1 entries);
 * O(nodes^2) once. */
int mbs_rtree_mass_nnz(const mbs_rtree *t);
int mbs_rtree_mass_pattern(const mbs_rtree *t, int *ptr, int *col); /* 0, MBS_ENOMEM */

/* M(q)'s values in that pattern at the configuration of the last
 * mbs_rtree_kinematics, by the composite-rigid-body algorithm (world
 * coordinates, O(n d) for depth d), with the rotors of the tree's nodes
 * (above: geared, planar and spatial; lead screws) as mbs_rtree_forward
 * has them: the tree's M, whose inverse
 * mbs_rtree_minv applies (the chord rotors' rank-one terms, t->nrr, are
 * not in it).  Relies on the rates numbered in node order, parents first
 * (mbs_rtree_build's).  Uses w->IA and w->uu as scratch (mbs_rtree_forward's
 * factorisation U, Dinv is left, so mbs_rtree_minv still works after it). */
void mbs_rtree_mass_eval(const mbs_rtree *t, mbs_rtree_ws *w, const int *ptr, const int *col, double *val);

/* y = M(q) v (n entries) at the last mbs_rtree_kinematics: the inverse
 * dynamics at zero rates and zero gravity (O(n)).  Uses w->A, w->pA. */
void mbs_rtree_mass_mul(const mbs_rtree *t, mbs_rtree_ws *w, const double *v, double *y);

/* The number of rates on body b's path to the root (0 for the ground). */
int mbs_rtree_point_nrates(const mbs_rtree *t, int b);

/* For the point of body b with reference coordinates r (its body-fixed
 * coordinates; z ignored in the plane), at the state of the last
 * mbs_rtree_kinematics: its world position x, its velocity's Jacobian on
 * the rates of its path (rows 3 x nc row-major, rows[k * nc + c] =
 * d v_k / d u_cols[c], cols ascending), and the rate term jdu = J' u (the
 * point's acceleration at zero accelerations, base at rest, gravity aside;
 * NULL: not wanted; with kinematics at u NULL, 0).  A contact's normal and
 * tangent rows are n^T rows, t^T rows.  Returns nc
 * (mbs_rtree_point_nrates). */
int mbs_rtree_point_rows(const mbs_rtree *t, const mbs_rtree_ws *w, int b, const double r[3], int *cols,
                         double *rows, double x[3], double jdu[3]);

/* The nodes' spatial accelerations w->A for the rates' accelerations qdd
 * (NULL: zero), base at rest, after mbs_rtree_kinematics: the state's
 * accelerations for mbs_rtree_body (the event-driven integrator's, mapped
 * to the natural coordinates).  (tree_dynamics.c; also in tree_int.h.) */
void mbs_rtree_accel_pass(const mbs_rtree *t, mbs_rtree_ws *w, const double *qdd);

/* qout = q + s G(q) u on the coordinates' manifold (Moreau-Jean's
 * `advance`; qout may be q): a one-freedom node's coordinate plus s u, a
 * ball's quaternion turned by the exponential map of the rotation vector
 * s w (its parent's reference axes) and normalised, as mbs_rtree_q_add:
 * exact for a constant w, norm 1 to rounding. */
void mbs_rtree_advance(const mbs_rtree *t, const double *q, const double *u, double s, double *qout);

#endif
