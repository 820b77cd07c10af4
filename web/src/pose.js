// pose.js - body poses over time (GET /api/v1/jobs/{id}/poses) and the
// geometry they move, without any drawing: the 2-D canvas (Planar.jsx) and
// the three.js scene (Scene3D.jsx) both use it, and so does the table under
// the animation, so what is drawn is what the table says.
//
// A pose is, per body, 2-D [x, y, angle], 3-D [x, y, z, w, qx, qy, qz].
// Geometry comes globally at t = 0; a point p of body b is kept in body
// coordinates l = R0^T (p - com0) and placed at com(t) + R(t) l.

// Index of the last frame at or before t (times ascending); 0 before the first.
export function frameAt(times, t) {
  let lo = 0, hi = times.length - 1;
  if (hi <= 0 || t <= times[0]) return 0;
  while (lo < hi) { const m = (lo + hi + 1) >> 1; if (times[m] <= t) lo = m; else hi = m - 1; }
  return lo;
}

// The poses at time t: frame f and the fraction u towards frame f + 1, and
// the values (linear between frames; quaternions normalised).  At a frame's
// time (u = 0) the values are the stored ones exactly.
export function poseAt(P, t) {
  const n = P.times.length;
  if (!n) return null;
  const f = frameAt(P.times, t);
  const a = P.frames[f];
  if (f >= n - 1 || t <= P.times[f]) return { f, u: 0, t: f >= n - 1 && t > P.times[f] ? P.times[f] : Math.max(t, P.times[0]), v: a.slice() };
  const b = P.frames[f + 1], u = (t - P.times[f]) / (P.times[f + 1] - P.times[f]);
  const v = a.map((x, i) => x + u * (b[i] - x));
  if (P.npose === 7) {
    for (let k = 3; k < v.length; k += 7) {
      const nq = Math.hypot(v[k], v[k + 1], v[k + 2], v[k + 3]) || 1;
      for (let i = 0; i < 4; i++) v[k + i] /= nq;
    }
  }
  return { f, u, t, v };
}

// Rotation matrix (row-major 3x3) of a unit quaternion w x y z.
export function quatMat(w, x, y, z) {
  return [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
    2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
    2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)];
}

// Body frame rotation (3x3 row-major) of pose values v of body b.
export function bodyRot(dim, v, b) {
  if (dim === 2) { const a = v[3 * b + 2], c = Math.cos(a), s = Math.sin(a); return [c, -s, 0, s, c, 0, 0, 0, 1]; }
  const k = 7 * b + 3;
  return quatMat(v[k], v[k + 1], v[k + 2], v[k + 3]);
}

// Centre of mass (3 components) of pose values v of body b.
export function bodyCom(dim, v, b) {
  return dim === 2 ? [v[3 * b], v[3 * b + 1], 0] : [v[7 * b], v[7 * b + 1], v[7 * b + 2]];
}

const mulT = (R, p) => [R[0] * p[0] + R[3] * p[1] + R[6] * p[2], R[1] * p[0] + R[4] * p[1] + R[7] * p[2],
  R[2] * p[0] + R[5] * p[1] + R[8] * p[2]];
const mul = (R, p) => [R[0] * p[0] + R[1] * p[1] + R[2] * p[2], R[3] * p[0] + R[4] * p[1] + R[5] * p[2],
  R[6] * p[0] + R[7] * p[1] + R[8] * p[2]];
const v3 = (p) => [p[0], p[1], p.length > 2 ? p[2] : 0];

// The geometry in body coordinates: per body (index), its skeleton points
// (joint and spring points, the com first) and its shapes; ground items
// (body -1) stay global.  Shapes keep their kind; points p, q become local
// (q of a line / plane is a direction), radius and half extents as given;
// a box's orientation becomes relative to its body (quatLocal).
export function localGeometry(G) {
  const dim = G.dimension, nb = G.bodies.length;
  const R0 = G.bodies.map((b) => (dim === 2 ? bodyRot(2, [0, 0, b.angle], 0) : quatMat(...b.quat)));
  const toLocal = (b, p) => (b < 0 ? v3(p) : mulT(R0[b], v3(p).map((x, i) => x - (v3(G.bodies[b].com))[i])));
  const dirLocal = (b, d) => (b < 0 ? v3(d) : mulT(R0[b], v3(d)));
  const bodies = G.bodies.map((b) => ({ name: b.name, points: [], shapes: [] }));
  const ground = { points: [], shapes: [] };
  const at = (b) => (b < 0 || b >= nb ? ground : bodies[b]);
  const joints = [];
  // a joint point is drawn on both its bodies (a line from each com to it)
  // a joint is drawn on its second body (its first when the second is the
  // ground), its axis (axes of a universal joint) turned with that body
  for (const j of G.joints) {
    const pts = j.points ? j.points : [j.at, j.at];
    j.bodies.forEach((b, s) => { if (pts[s]) at(b).points.push(toLocal(b, pts[s])); });
    const on = j.bodies[1] >= 0 ? j.bodies[1] : j.bodies[0];
    const o = { name: j.name, type: j.type, bodies: j.bodies, body: on, local: toLocal(on, pts[j.bodies[1] >= 0 ? 1 : 0]) };
    if (j.axis) o.axis = dirLocal(on, j.axis);
    if (j.axes) o.axes = j.axes.map((a) => dirLocal(on, a));
    joints.push(o);
  }
  // actuators: on a joint (drivers, DC motors, rotational springs) or a body
  const actuators = (G.actuators || []).map((a) => ({ ...a, ...(a.at ? { local: toLocal(a.body, a.at) } : {}) }));
  const springs = G.springs.map((s) => ({ name: s.name, ends: s.bodies.map((b, k) => ({ body: b, local: toLocal(b, s.points[k]) })) }));
  for (const s of G.shapes) {
    const o = { name: s.name, kind: s.kind, p: toLocal(s.body, s.p), radius: s.radius };
    if (s.kind === 'segment' || s.kind === 'capsule') o.q = toLocal(s.body, s.q);
    if (s.kind === 'line' || s.kind === 'plane') o.n = dirLocal(s.body, s.q);
    if (s.kind === 'box') { o.half = s.half; o.R = s.body < 0 ? quatMat(...s.quat) : matMulT(R0[s.body], quatMat(...s.quat)); }
    at(s.body).shapes.push(o);
  }
  return { dim, bodies, ground, joints, springs, actuators };
}

// R0^T Rb (both 3x3 row-major).
function matMulT(A, B) {
  const C = new Array(9).fill(0);
  for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) for (let k = 0; k < 3; k++) C[3 * i + j] += A[3 * k + i] * B[3 * k + j];
  return C;
}

// A local point of body b placed with pose values v (ground: as it is).
export function place(dim, v, b, l) {
  if (b < 0) return l;
  const c = bodyCom(dim, v, b), p = mul(bodyRot(dim, v, b), l);
  return [c[0] + p[0], c[1] + p[1], c[2] + p[2]];
}

// A direction of body b turned with pose values v.
export function turn(dim, v, b, d) { return b < 0 ? d : mul(bodyRot(dim, v, b), d); }

// Poses of one frame at t = 0 made from the geometry itself (a model's page
// draws the mechanism as its input places it).
export function posesOfGeometry(G) {
  const dim = G.dimension, npose = dim === 2 ? 3 : 7;
  const f = [];
  for (const b of G.bodies) {
    if (dim === 2) f.push(b.com[0], b.com[1], b.angle);
    else { const n = Math.hypot(...b.quat) || 1; f.push(...b.com, ...b.quat.map((x) => x / n)); }
  }
  return { bodies: G.bodies.map((b) => b.name), npose, nframe: 1, times: [0], frames: [f], geometry: G };
}

// Extents [min xyz, max xyz] of every body's skeleton points over every frame
// and of the ground's points, for a fixed view of the whole run.
export function extents(P, L) {
  const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  const add = (p, r = 0) => { for (let i = 0; i < 3; i++) { if (Number.isFinite(p[i])) { lo[i] = Math.min(lo[i], p[i] - r); hi[i] = Math.max(hi[i], p[i] + r); } } };
  const step = Math.max(1, Math.floor(P.frames.length / 64));
  for (let f = 0; f < P.frames.length; f += step) {
    const v = P.frames[f];
    L.bodies.forEach((B, b) => {
      add(place(L.dim, v, b, [0, 0, 0]));
      for (const p of B.points) add(place(L.dim, v, b, p));
      for (const s of B.shapes) add(place(L.dim, v, b, s.p), s.radius || (s.half ? Math.max(...s.half) : 0));
    });
  }
  // springs' ends (a spring anchored to the ground far from the bodies is
  // drawn whole)
  for (let f = 0; f < P.frames.length; f += step) {
    for (const sp of L.springs || []) for (const e of sp.ends) add(place(L.dim, P.frames[f], e.body, e.local));
  }
  for (const p of L.ground.points) add(p);
  for (const s of L.ground.shapes) if (s.kind !== 'line' && s.kind !== 'plane') add(s.p, s.radius || (s.half ? Math.max(...s.half) : 0));
  for (let i = 0; i < 3; i++) if (!(lo[i] <= hi[i])) { lo[i] = -1; hi[i] = 1; }
  return [lo, hi];
}

// ---- per-body quantities from the frames (colours per body) ------------------

// The speed of every body's centre of mass at frame f of poses P (m/s), from
// the stored frames around it: the central difference (com[f+1] - com[f-1]) /
// (t[f+1] - t[f-1]), one-sided at the first and last frame (nothing stored
// beyond them); null for every body when P has fewer than two frames.
export const BODY_SPEED = '@speed';
export function bodySpeedAt(P, f) {
  const n = P.times.length, nb = P.bodies.length, dim = P.npose === 7 ? 3 : 2;
  if (n < 2) return new Array(nb).fill(null);
  const a = Math.max(0, f - 1), b = Math.min(n - 1, f + 1), dt = P.times[b] - P.times[a];
  return P.bodies.map((_, k) => {
    const p = bodyCom(dim, P.frames[a], k), q = bodyCom(dim, P.frames[b], k);
    return dt > 0 ? Math.hypot(q[0] - p[0], q[1] - p[1], q[2] - p[2]) / dt : null;
  });
}

// The largest of them over every frame (0 when none).
export function bodySpeedMax(P) {
  let m = 0;
  for (let f = 0; f < P.times.length; f++) for (const x of bodySpeedAt(P, f)) if (x !== null) m = Math.max(m, x);
  return m;
}
