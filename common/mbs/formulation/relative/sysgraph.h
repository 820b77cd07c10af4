/*
 * sysgraph.h - the system graph of a mechanism for the relative-coordinate
 * formulation (issue 12, seed 001): nodes are the ground and the bodies,
 * edges the joints; a spanning tree gives the branch joints, whose joint
 * coordinates are the unknowns, and the chords, whose constraint equations
 * close the loops (the circuit equations).
 *
 * The tree is chosen breadth-first from the ground, so that every body is
 * reached through as few joints as possible and the fundamental loops are
 * short; among the joints that reach a body at the same depth, the one with
 * the fewest degrees of freedom becomes the branch (a chord adds 6 - dof
 * equations in space, 3 - dof in the plane: cutting at a spherical joint
 * adds 3, at a revolute 5).  Joints that carry a load along their
 * coordinate (a driver, a rotational spring-damper, a dc_motor, a
 * joint_actuator, joint damping) come before that: they are kept out of
 * the chords wherever their loop has another joint to cut (first among
 * the joints reaching one body, then by exchanging a loaded chord for the
 * unloaded joint of its loop with the most freedom), since a chord needs
 * a rheonomic equation for its driver and its relative angle measured
 * from the two bodies for a spring.  Distance joints (massless rods) are always
 * chords (one equation).  A body that no branch joint connects to the ground
 * is a floating root (a free joint of 6 or 3 degrees of freedom).
 */
#ifndef MBS_SYSGRAPH_H
#define MBS_SYSGRAPH_H

#include "mbs/model/spec.h"

typedef struct {
    int nbody, njoint;
    char *branch;      /* [njoint] 1 branch (tree) joint, 0 chord                */
    int *parent;       /* [nbody] parent body, MBS_GROUND, or -2 floating root   */
    int *parent_joint; /* [nbody] the branch joint to the parent, -1 for a root  */
    int *depth;        /* [nbody] branch joints between the body and its root    */
    int *order;        /* [nbody] bodies, parents before children                */
    int nchord;
    int *chords;       /* [nchord] joint indices                                 */
    int *loop;         /* [nchord] joints in the chord's fundamental loop         */
    int nroot;         /* floating roots                                         */
    int ncoord;        /* joint coordinates: the branches' and roots' freedoms    */
    int nconstraint;   /* the chords' constraint equations                       */
} mbs_sysgraph;

/* Degrees of freedom of a joint of type `type` in dimension dim (a distance
 * joint: 2 or 5, the freedom it leaves). */
int mbs_joint_dof(int type, int dim);

/* 1 when joint J is an edge of the graph; 0 for a prismatic joint with the
 * impact clearance model (MBS_CLEARANCE_IMPACT: its slider is free inside
 * the guide, held by rigid contacts at its corners; no equations in either
 * formulation), which is neither a branch nor a chord. */
int mbs_joint_in_graph(const mbs_joint_spec *J);

/* Build the graph of spec s.  0, or MBS_ENOMEM. */
int mbs_sysgraph_build(const mbs_spec *s, mbs_sysgraph *g);

void mbs_sysgraph_free(mbs_sysgraph *g);

#endif
