/*
 * mechanism_clearance.c - the impact model of the planar prismatic joint
 * with clearance (clearance_model "impact"; Flores, Leine and Glocker,
 * Multibody Syst. Dyn. 23:165, 2010), expanded into contacts: the slider is
 * free inside the guide (the joint keeps no equations, ncs_equations.c), its
 * four corners are point shapes on the slider and the guide's two walls are
 * lines on the guide at +-(slider_width/2 + clearance) from the axis, each
 * corner against the wall on its side, with the rigid law (Newton
 * restitution, Coulomb friction) of the joint.  Runs after the contacts
 * section, so user contacts keep their indices.
 */
#include "mechanism/mechanism_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Append the shapes and contacts of one impact-model joint. */
static int s_expand(mech_ctx *c, int ji)
{
    mbs_spec *sp = c->spec;
    const mbs_joint_spec *J = &sp->joints[ji];
    mbs_shape_spec *ns = realloc(sp->shapes, (size_t)(sp->nshape + 6) * sizeof *ns);
    if (!ns) return -1;
    sp->shapes = ns;
    mbs_contact_spec *nc = realloc(sp->contacts, (size_t)(sp->ncontact + 4) * sizeof *nc);
    if (!nc) return -1;
    sp->contacts = nc;
    double u[2] = {J->axis[0], J->axis[1]}, n[2] = {-J->axis[1], J->axis[0]};
    double hl = 0.5 * J->slider_length, hw = 0.5 * J->slider_width, gw = hw + J->clearance;
    int s0 = sp->nshape;
    /* the walls: side +1 (the +n side) and -1, outward normals into the gap */
    for (int k = 0; k < 2; k++) {
        double side = k == 0 ? 1 : -1;
        mbs_shape_spec *S = &sp->shapes[sp->nshape++];
        memset(S, 0, sizeof *S);
        snprintf(S->name, sizeof S->name, "%.40s/wall%c", J->name, k == 0 ? '+' : '-');
        S->body = J->body[0];
        S->kind = MBS_SHAPE_SPEC_LINE;
        for (int a = 0; a < 2; a++) {
            S->p[a] = J->at[a] + side * gw * n[a];
            S->q[a] = -side * n[a];
        }
    }
    /* the corners: (end -+, side +-) */
    for (int e = 0; e < 2; e++)
        for (int k = 0; k < 2; k++) {
            double along = e == 0 ? -hl : hl, side = k == 0 ? 1 : -1;
            mbs_shape_spec *S = &sp->shapes[sp->nshape++];
            memset(S, 0, sizeof *S);
            snprintf(S->name, sizeof S->name, "%.40s/corner%d%c", J->name, e + 1, k == 0 ? '+' : '-');
            S->body = J->body[1];
            S->kind = MBS_SHAPE_SPEC_POINT;
            for (int a = 0; a < 2; a++) S->p[a] = J->at[a] + along * u[a] + side * hw * n[a];
            mbs_contact_spec *C = &sp->contacts[sp->ncontact++];
            memset(C, 0, sizeof *C);
            C->shape[0] = sp->nshape - 1; /* the corner (point) first: point-line */
            C->shape[1] = s0 + k;
            C->law = MBS_LAW_RIGID;
            C->restitution = J->restitution;
            C->friction = J->friction;
            C->exponent = 1;
        }
    return 0;
}

void mech_expand_clearance(mech_ctx *c)
{
    mbs_spec *sp = c->spec;
    for (int j = 0; j < sp->njoint; j++) {
        const mbs_joint_spec *J = &sp->joints[j];
        if (J->type != MBS_JOINT_PRISMATIC || J->clearance_model != MBS_CLEARANCE_IMPACT) continue;
        if (J->body[0] == J->body[1]) continue; /* reported by the joints section */
        if (s_expand(c, j)) {
            mech_err(c, "/joints", "out of memory");
            return;
        }
    }
}
