#!/usr/bin/env python3
"""Write examples/roller_chain_drive.json: a planar roller chain (ANSI 40,
pitch 12.7 mm) on two equal sprockets, every roller declared against every
tooth of both sprockets (seed 002: Shi Mingquan et al. 2010 declare every link
against the sprocket).

Geometry (all exact at t = 0):
  * sprockets with z teeth, pitch radius R = p / (2 sin(pi / z)); the driver
    at the origin on a revolute joint to ground, turned at constant speed;
    the driven one at (C, 0) on a revolute joint to a tensioner carriage that
    slides along x (prismatic joint) and is pushed by a constant force, which
    sets the chain pre-tension (half of it in each span);
  * C = n_span p, so with equal sprockets the chain wraps half of each
    (z / 2 pitches) and the spans are straight rows of n_span links: the
    chain has z + 2 n_span links (100 for z = 20, n_span = 40);
  * links are bodies between two roller centres, joined by revolute joints
    at the roller centres (the loop closes on link 0); each link carries the
    roller circle (radius r_r) at its first joint;
  * every tooth gap of a sprocket has three convex circles, the 'tooth'
    shapes: a seat disc under the roller (radial support, touching the
    seated roller) and two flank discs at the midpoints of the pitch chords
    (tangential drive, a small clearance to the seated rollers).  The flank
    discs lie under the pitch polygon, so a roller entering along the
    tangent clears them (by 0.15 mm for z = 20);
  * initial velocities are those of the steady motion at the driver speed:
    wrapped links turn with their sprocket, span links translate at w R.
Usage: chain_drive.py > examples/roller_chain_drive.json
"""
import json
import math
import sys

Z = 20                 # teeth per sprocket
P = 0.0127             # pitch (m), ANSI 40
RR = 0.00396           # roller radius (m), ANSI 40 roller diameter 7.92 mm
N_SPAN = 40            # links per straight span
R = P / (2 * math.sin(math.pi / Z))
C = N_SPAN * P
RS = 0.004             # seat disc radius (m)
CLEAR = 2e-5           # flank clearance to a seated roller (m)
RF = P / 2 - RR - CLEAR
M_LINK = 0.61 * P      # ANSI 40: 0.61 kg/m
RPM = 300.0

def r6(v):
    return round(v, 12)

def pt(v):
    return [r6(v[0]), r6(v[1])]

# roller centres in chain order: wrap on the driver (left, 90..270 deg),
# bottom span to the right, wrap on the driven sprocket (-90..90), top span back
rollers = []
for k in range(Z // 2):
    a = math.pi / 2 + 2 * math.pi / Z * k
    rollers.append(((R * math.cos(a), R * math.sin(a)), "s1"))
for j in range(N_SPAN):
    rollers.append(((j * P, -R), "bottom"))
for k in range(Z // 2):
    a = -math.pi / 2 + 2 * math.pi / Z * k
    rollers.append(((C + R * math.cos(a), R * math.sin(a)), "s2"))
for j in range(N_SPAN):
    rollers.append(((C - j * P, R), "top"))
n = len(rollers)

w = 2 * math.pi * RPM / 60   # driver speed, counter-clockwise: the top span is tight

def seated(q):
    """The sprocket a roller centre at q is seated on (on its pitch circle), or None."""
    for name, ox in (("s1", 0.0), ("s2", C)):
        if abs(math.hypot(q[0] - ox, q[1]) - R) < 1e-9:
            return name
    return None


bodies, joints, shapes, forces = [], [], [], []
for i in range(n):
    a, b = rollers[i][0], rollers[(i + 1) % n][0]
    cx, cy = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
    ang = math.atan2(b[1] - a[1], b[0] - a[0])
    # steady motion: a link with both rollers seated on a sprocket turns
    # with it; span links translate (bottom span to the right, top to the left)
    sa, sb = seated(a), seated(b)
    if sa is not None and sa == sb:
        ox = 0.0 if sa == "s1" else C
        vel, om = [-w * cy, w * (cx - ox)], w
    else:
        vel, om = ([w * R, 0.0] if cy < 0 else [-w * R, 0.0]), 0.0
    bodies.append({"name": "link%03d" % i, "mass": r6(M_LINK), "inertia": r6(M_LINK * P * P / 12),
                   "com": pt((cx, cy)), "angle": r6(ang), "velocity": pt(vel), "angular_velocity": r6(om)})
    shapes.append({"name": "roller%03d" % i, "body": "link%03d" % i, "type": "circle",
                   "center": pt(a), "radius": RR})
for i in range(n):
    joints.append({"name": "J%03d" % i, "type": "revolute",
                   "bodies": ["link%03d" % ((i - 1) % n), "link%03d" % i], "at": pt(rollers[i][0])})

# sprockets: a steel disc each; the driven one carries the load inertia
bodies.append({"name": "sprocket1", "mass": 0.3, "inertia": 3e-4, "com": [0, 0], "angular_velocity": r6(w)})
bodies.append({"name": "carriage", "mass": 0.5, "inertia": 1e-3, "com": [r6(C), 0]})
bodies.append({"name": "sprocket2", "mass": 0.3, "inertia": "$J_load", "com": [r6(C), 0], "angular_velocity": r6(w)})
joints.append({"name": "S1", "type": "revolute", "bodies": ["ground", "sprocket1"], "at": [0, 0]})
joints.append({"name": "T", "type": "prismatic", "bodies": ["ground", "carriage"], "axis": [1, 0]})
joints.append({"name": "S2", "type": "revolute", "bodies": ["carriage", "sprocket2"], "at": [r6(C), 0]})
for s, ox, a0 in (("1", 0.0, math.pi / 2), ("2", C, -math.pi / 2)):
    body = "sprocket" + s
    for k in range(Z):
        a = a0 + 2 * math.pi / Z * k        # a seat (roller centre when seated)
        rs = R - RR - RS
        shapes.append({"name": "tooth%s_seat%02d" % (s, k), "body": body, "type": "circle",
                       "center": pt((ox + rs * math.cos(a), rs * math.sin(a))), "radius": RS})
        af = a + math.pi / Z                 # chord midpoint between seats k and k+1
        rf = R * math.cos(math.pi / Z)
        shapes.append({"name": "tooth%s_flank%02d" % (s, k), "body": body, "type": "circle",
                       "center": pt((ox + rf * math.cos(af), rf * math.sin(af))), "radius": r6(RF)})

ramp = "$t_ramp"
forces.append({"type": "torque", "name": "load", "body": "sprocket2",
               "value": {"kind": "table", "points": [[0, 0], [ramp, "=-$T_load"]]}})
forces.append({"type": "force", "name": "tensioner", "body": "carriage",
               "value": [{"kind": "table", "points": [[0, 0], [ramp, "$F_tension"]]}, 0]})

mid_top = n - N_SPAN // 2          # a joint in the middle of the top (tight) span
mid_bottom = Z // 2 + N_SPAN // 2  # and of the bottom (slack) span
doc = {
    "name": "roller_chain_drive",
    "description": ("Planar ANSI 40 roller chain (pitch 12.7 mm, %d links) on two %d-tooth sprockets %.3f m apart; "
                    "every roller declared against every tooth shape of both sprockets (%d pairs, seed 002); "
                    "driver at %g rpm, driven sprocket with a load torque, tensioner force on its carriage; "
                    "Hunt-Crossley steel contacts with friction 0.1. t_end is chosen so that the run without "
                    "contact deactivation stays under 60 s on the 2-core development machine. "
                    "Generated by bench/contacts/chain_drive.py." % (n, Z, C, n * 4 * Z, RPM)),
    "dimension": 2,
    "gravity": [0, -9.81],
    "parameters": {"T_load": 3.0, "F_tension": 150.0, "J_load": 2e-3, "t_ramp": 0.01,
                   "k_contact": 1e9, "friction": 0.1},
    "bodies": bodies,
    "joints": joints,
    "forces": forces,
    "drivers": [{"joint": "S1", "motion": {"kind": "constant_speed", "speed": r6(w)}}],
    "shapes": shapes,
    "contacts": [{"between": ["roller*", "tooth*"], "law": "hunt_crossley", "stiffness": "$k_contact",
                  "exponent": 1.5, "restitution": 0.5, "friction": "$friction", "slip_velocity": 1e-3}],
    "solver": {"integrator": "bdf", "t_end": 0.025, "tolerance": 1e-6, "abs_tolerance": 1e-9,
               "max_step": 1e-4},
    "outputs": {"interval": 5e-4, "channels": [
        {"name": "theta2", "quantity": "angle", "body": "sprocket2"},
        {"name": "omega2", "quantity": "angular_velocity", "body": "sprocket2"},
        {"name": "x_link0", "quantity": "position", "body": "link000", "component": "x"},
        {"name": "y_link0", "quantity": "position", "body": "link000", "component": "y"},
        {"name": "x_carriage", "quantity": "position", "body": "carriage", "component": "x"},
        {"name": "F_top", "quantity": "reaction_force", "joint": "J%03d" % mid_top, "component": "magnitude"},
        {"name": "F_bottom", "quantity": "reaction_force", "joint": "J%03d" % mid_bottom, "component": "magnitude"},
        {"name": "F_driven", "quantity": "reaction_force", "joint": "S2", "component": "magnitude"},
        {"name": "Fx_teeth2", "quantity": "contact_force", "shapes": ["roller*", "tooth2_*"], "component": "x"},
        {"name": "Fy_teeth2", "quantity": "contact_force", "shapes": ["roller*", "tooth2_*"], "component": "y"},
        {"name": "N_teeth1", "quantity": "contact_force", "shapes": ["roller*", "tooth1_*"], "component": "normal"}]},
}
json.dump(doc, sys.stdout, indent=1)
print()
