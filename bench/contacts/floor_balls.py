#!/usr/bin/env python3
"""Write a mechanism: N balls (radius 0.05 m) dropped on a floor in a square
grid with small horizontal velocities; every ball-ball and ball-floor pair is
declared (by name patterns).  Usage: floor_balls.py N > model.json"""
import json
import math
import sys

n = int(sys.argv[1])
side = max(1, int(math.ceil(math.sqrt(n))))
bodies, shapes = [], []
for i in range(n):
    x, y, z = 0.15 * (i % side), 0.15 * (i // side), 0.1 + 0.02 * ((i * 7) % 5)
    bodies.append({"name": "b%d" % i, "mass": 0.1, "inertia": [4e-5] * 3, "com": [x, y, z],
                   "velocity": [0.3 * ((i % 3) - 1), 0.3 * (((i // 3) % 3) - 1), 0]})
    shapes.append({"name": "s%d" % i, "body": "b%d" % i, "type": "sphere", "center": [x, y, z], "radius": 0.05})
shapes.append({"name": "floor", "body": "ground", "type": "plane", "point": [0, 0, 0], "normal": [0, 0, 1]})
law = {"stiffness": 1e6, "restitution": 0.7, "friction": 0.3, "slip_velocity": 0.01}
json.dump({"name": "floor_balls_%d" % n, "dimension": 3, "gravity": [0, 0, -9.81],
           "bodies": bodies, "shapes": shapes,
           "contacts": [dict(between=["s*", "s*"], **law), dict(between=["s*", "floor"], **law)],
           "solver": {"t_end": 0.5, "integrator": "bdf", "tolerance": 1e-6, "max_step": 0.002},
           "outputs": {"interval": 0.01,
                       "channels": [{"name": "z0", "quantity": "position", "body": "b0", "component": "z"}]}},
          sys.stdout)
