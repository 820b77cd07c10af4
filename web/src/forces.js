// forces.js - joint reaction forces drawn as arrows in the animation, from
// the job's own samples: which columns of its result hold them (the
// geometry's "forces" of GET /api/v1/jobs/{id}/poses name the channels),
// their value at a time, and one scale for the whole run, so that an
// arrow's length compares across times and joints (the legend gives it).
import { place, bodyRot, bodyCom, turn } from './pose.js';

export const FORCE_COLOR = '#ff00cc';   // magenta: no body, job or actuator colour
export const ARROW_PX = 80;             // 2-D: the largest force of the run, in CSS pixels
export const ARROW_SPAN = 0.3;          // 3-D: the largest force, as a fraction of the scene's size

// The drawable forces of geometry G among the result's columns ([time,
// channel...]): [{name, joint, cols: [column of x, y(, z)]}]; a force whose
// channels are not all in the result is left out.
export function forceColumns(G, columns) {
  const axes = G.dimension === 3 ? ['x', 'y', 'z'] : ['x', 'y'];
  return (G.forces || []).map((f) => ({ name: f.name, joint: f.joint, cols: axes.map((a) => columns.indexOf(f.channels[a])) }))
    .filter((f) => f.cols.every((c) => c > 0));
}

// The force of columns cols at time t from rows [[t, values...]] (times
// ascending): linear between the two samples around t, the stored value at
// a sample's time, held at either end.
export function forceAt(rows, cols, t) {
  const n = rows.length;
  if (!n) return null;
  let lo = 0, hi = n - 1;
  if (t <= rows[0][0]) hi = 0;
  else if (t >= rows[n - 1][0]) lo = hi = n - 1;
  else {
    // rows[lo][0] <= t < rows[hi][0]
    while (hi - lo > 1) { const m = (lo + hi) >> 1; if (rows[m][0] <= t) lo = m; else hi = m; }
    if (rows[lo][0] === t) hi = lo;
  }
  const a = rows[lo], b = rows[hi], u = hi > lo ? (t - a[0]) / (b[0] - a[0]) : 0;
  return cols.map((c) => (u ? a[c] + u * (b[c] - a[c]) : a[c]));
}

// The largest magnitude of the forces over every sample (0 when none).
export function forceMax(rows, list) {
  let m = 0;
  for (const r of rows) for (const f of list) m = Math.max(m, Math.hypot(...f.cols.map((c) => r[c])) || 0);
  return m;
}

// The arrows at pose values v and time t: [{name, p (joint point, 3
// components), F (force, dim components)}].
export function arrowsAt(L, list, rows, v, t) {
  return list.map((f) => {
    const j = L.joints[f.joint];
    return { name: f.name, p: place(L.dim, v, j.body, j.local), F: forceAt(rows, f.cols, t) };
  }).filter((a) => a.F && a.F.every(Number.isFinite));
}

// ---- contact forces (the poses' "contacts": stored at the frames) ----------

export const CONTACT_COLOR = '#00ccff';  // cyan: no body, job, actuator or reaction colour

// The largest contact force over every stored point (0 when none).
export function contactMax(P) {
  let m = 0;
  for (const pts of (P.contacts && P.contacts.points) || []) for (const c of pts) m = Math.max(m, Math.hypot(...c.force) || 0);
  return m;
}

// The contact arrows at pose {f, v} of poses P (pose.js poseAt): the points
// of frame f, each carried with its body from that frame's pose to v (at a
// frame's time, v is that frame and the point is the stored one), with the
// stored force (world components, constant until the next frame):
// [{name, pair, body, p (3 components), F (dim components)}].  None after
// the frames whose points are stored.
export function contactsAt(P, L, pose) {
  const C = P.contacts;
  if (!C || !pose || pose.f >= C.nframe) return [];
  const fr = P.frames[pose.f], dim = L.dim;
  return C.points[pose.f].map((c) => {
    const at = [c.at[0], c.at[1], dim === 3 ? c.at[2] : 0], R = bodyRot(dim, fr, c.body), o = bodyCom(dim, fr, c.body);
    // the point in body coordinates at frame f, then placed with v
    const d = [at[0] - o[0], at[1] - o[1], at[2] - o[2]];
    const l = [0, 1, 2].map((i) => R[i] * d[0] + R[3 + i] * d[1] + R[6 + i] * d[2]);
    return { name: `${c.pair}`, pair: c.pair, body: c.body, p: place(dim, pose.v, c.body, l), F: c.force };
  });
}

// Colours per body by its contact force: at frame f of poses P, per body the
// magnitude of the resultant of the stored contact forces on it (F where it
// is a point's body, -F where it is its other body; 0 without contact; null
// after the frames whose points are stored).
export const BODY_CONTACT = '@contact';
export function bodyContactAt(P, f) {
  const C = P.contacts, n = P.bodies.length;
  if (!C || f >= C.nframe) return new Array(n).fill(null);
  const F = Array.from({ length: n }, () => [0, 0, 0]);
  for (const c of C.points[f]) c.force.forEach((x, i) => { F[c.body][i] += x; if (c.other >= 0) F[c.other][i] -= x; });
  return F.map((v) => Math.hypot(...v));
}

// The largest of them over every stored frame (0 when none).
export function bodyContactMax(P) {
  let m = 0;
  for (let f = 0; P.contacts && f < P.contacts.nframe; f++) for (const x of bodyContactAt(P, f)) m = Math.max(m, x);
  return m;
}

// ---- applied loads (the poses' "loads": force and torque elements) ----------

export const LOAD_COLOR = '#7a00ff';   // violet: no body, job, actuator, reaction or contact colour
export const TORQUE_DEG = 270;         // 2-D: the largest torque of the run, as an arc of this many degrees

// The loads' values at pose {f, u} of poses P: linear between frames f and
// f + 1 (the stored values at a frame's time), components as given.
function loadValue(l, pose) {
  const a = l.values[pose.f], b = l.values[pose.f + 1];
  return pose.u && b ? a.map((x, i) => x + pose.u * (b[i] - x)) : a.slice();
}

// The applied loads at pose {f, u, v} of poses P with local geometry L:
// forces [{name, p (3), F (dim)}] at their points, torques [{name, p (the
// body's centre of mass, 3), T (3: 2-D [0, 0, T])}], in world axes (a
// load given in body axes turned with the body's pose).
export function loadsAt(P, L, pose) {
  const out = { forces: [], torques: [] };
  if (!P.loads || !pose) return out;
  const dim = L.dim;
  for (const l of P.loads) {
    if (!l.values[pose.f]) continue;
    let x = loadValue(l, pose);
    if (l.kind === 'joint_actuator') {
      // on the joint's second body at the joint point: a revolute joint's
      // torque about its axis (z in 2-D), a prismatic one's force along it
      const j = L.joints[l.joint], p = place(dim, pose.v, j.body, j.local);
      const ax = dim === 2 && j.type === 'revolute' ? [0, 0, 1] : turn(dim, pose.v, j.body, j.axis || [0, 0, 1]);
      const n = Math.hypot(...ax) || 1, d = ax.map((c) => (c / n) * x[0]);
      if (j.type === 'prismatic') out.forces.push({ name: l.name, actuator: true, p, F: d.slice(0, dim) });
      else out.torques.push({ name: l.name, actuator: true, p, T: d });
      continue;
    }
    const R = bodyRot(dim, pose.v, l.body);
    const toWorld = (w) => (l.frame === 'body' ? [0, 1, 2].map((i) => R[3 * i] * w[0] + R[3 * i + 1] * w[1] + R[3 * i + 2] * w[2]) : w);
    if (l.kind === 'force') {
      const F = toWorld([x[0], x[1], dim === 3 ? x[2] : 0]);
      const a = L.actuators[l.actuator];
      out.forces.push({ name: l.name, p: place(dim, pose.v, l.body, a.local), F: F.slice(0, dim) });
    } else {
      x = dim === 3 ? toWorld(x) : [0, 0, x[0]];
      out.torques.push({ name: l.name, p: bodyCom(dim, pose.v, l.body), T: x });
    }
  }
  return out;
}

// The largest force and torque of the loads over every frame, and of the
// motors' torques over every sample (0 when none).
export function loadMax(P, motors = null) {
  const m = { force: 0, torque: 0 };
  for (const l of P.loads || []) {
    // (a joint actuator's kind is its joint's: prismatic a force, revolute a torque)
    const k = l.kind === 'joint_actuator' ? (P.geometry.joints[l.joint].type === 'prismatic' ? 'force' : 'torque') : l.kind;
    for (const x of l.values) m[k] = Math.max(m[k], Math.hypot(...x) || 0);
  }
  if (motors) for (const r of motors.rows) for (const mo of motors.list) m.torque = Math.max(m.torque, Math.abs(r[mo.col]) || 0);
  return m;
}

// The DC motors' torques the geometry names among the result's columns
// (planar mechanisms): [{name, joint, col}].
export function motorColumns(G, columns) {
  if (G.dimension !== 2) return [];
  return (G.forces || []).filter((f) => f.kind === 'motor_torque').map((f) => ({ name: f.name, joint: f.joint, col: columns.indexOf(f.channels.torque) }))
    .filter((f) => f.col > 0);
}

// The motors' torques at pose values v and time t, as loadsAt's torques:
// at the joint point, about z (positive drives the joint coordinate up),
// from the samples (linear between them, as the reaction forces).
export function motorsAt(L, motors, v, t) {
  return motors.list.map((mo) => {
    const j = L.joints[mo.joint], T = forceAt(motors.rows, [mo.col], t);
    return { name: mo.name, motor: true, p: place(2, v, j.body, j.local), T: [0, 0, T ? T[0] : NaN] };
  }).filter((a) => Number.isFinite(a.T[2]));
}
