// Scene3D.jsx - a spatial mechanism with three.js (loaded as a chunk of its
// own, only when a spatial job or model is shown).  Every solid of every body
// (declared spheres, boxes, capsules; the skeleton's rods from the com to
// the joint and spring points, balls at those points, the com as a dot) is
// an instance of one of a few unit meshes: one THREE.InstancedMesh per kind
// (a unit sphere, box or cylinder scaled by the instance's matrix; capsules
// per radius and length), so 100 balls are one draw call, not 100 (software
// WebGL, as in headless Chromium without a GPU, pays for every draw call).
// At every time the instance matrices are written in place (body pose x the
// part's fixed matrix in body coordinates, no allocation per frame).  The
// ground's shapes (planes as grids) and joint points are plain meshes.
//
// Several jobs may be drawn in one scene (`members`, the job first): each
// its own set of instances, side by side (shifted along x by the extent of
// the first) or overlaid.  Colours: per body, or per member when several are
// shown; `tint` (optional, per member a number in [0, 1] or null) colours a
// member's bodies by a channel's value at the time shown (colors.js ramp).
// The camera looks at the extents of the whole run from above, up being
// against the model's gravity (geometry.gravity); dragging orbits it.  The
// scene is drawn only when the time, the tint or the camera changes.
// `arrows` ({items: [{p, F}], max}, forces.js) draws forces of the first
// member as arrows (THREE.ArrowHelper) from their points, the largest of the
// run ARROW_SPAN of the scene's size long; where three.js placed each
// arrow's start and tip is read back into data-arrows (with data-arrow-scale,
// metres per newton), as the instance colours are into data-colors;
// `contacts` the same for the contact forces (CONTACT_COLOR, their own
// scale, data-contacts and data-contacts-scale), as two instanced meshes;
// `loads` ({forces, torques, fmax, tmax}, forces.js loadsAt) the applied
// forces from their points and torques along their axis from the body's
// centre of mass (LOAD_COLOR, each kind on its own scale: data-loads,
// data-loads-scale, data-torques, data-torques-scale).
import { useEffect, useMemo, useRef } from 'preact/hooks';
import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import { extents } from './pose.js';
import { bodyColor, jobColor, ramp, ACTUATOR_COLOR } from './colors.js';
import { FORCE_COLOR, CONTACT_COLOR, LOAD_COLOR, ARROW_SPAN } from './forces.js';

const vec = (p) => new THREE.Vector3(p[0], p[1], p[2]);
const UP = new THREE.Vector3(0, 1, 0);

// A plain mesh of a ground shape (global coordinates).
function groundMesh(s, color, size) {
  const mat = new THREE.MeshLambertMaterial({ color });
  if (s.kind === 'plane') {
    // a grid across the view, its normal along n
    const g = new THREE.GridHelper(size * 2, 20, 0x999999, 0xcccccc);
    g.position.copy(vec(s.p));
    g.quaternion.setFromUnitVectors(UP, vec(s.n).normalize());
    return g;
  }
  const M = partMatrix(s);
  if (!M) return null;
  const geom = s.kind === 'sphere' ? new THREE.SphereGeometry(1, 16, 12) : s.kind === 'box' ? new THREE.BoxGeometry(1, 1, 1)
    : new THREE.CapsuleGeometry(s.radius, M.len, 6, 16);
  const m = new THREE.Mesh(geom, mat);
  M.m.decompose(m.position, m.quaternion, m.scale);
  return m;
}

// The fixed matrix of a shape in its body's coordinates, for its unit mesh:
// {kind, m, len}.  kind: 'sphere' | 'box' | 'cap:<radius>:<length>'.
function partMatrix(s) {
  const m = new THREE.Matrix4();
  if (s.kind === 'sphere') {
    m.makeScale(s.radius, s.radius, s.radius).setPosition(vec(s.p));
    return { kind: 'sphere', m };
  }
  if (s.kind === 'box') {
    const R = s.R;
    m.set(R[0], R[1], R[2], s.p[0], R[3], R[4], R[5], s.p[1], R[6], R[7], R[8], s.p[2], 0, 0, 0, 1);
    m.multiply(new THREE.Matrix4().makeScale(2 * s.half[0], 2 * s.half[1], 2 * s.half[2]));
    return { kind: 'box', m };
  }
  if (s.kind === 'capsule') {
    const a = vec(s.p), b = vec(s.q), len = a.distanceTo(b);
    const q = new THREE.Quaternion();
    if (len > 0) q.setFromUnitVectors(UP, b.clone().sub(a).normalize());
    m.compose(a.clone().add(b).multiplyScalar(0.5), q, new THREE.Vector3(1, 1, 1));
    return { kind: `cap:${s.radius}:${len}`, m, len, radius: s.radius };
  }
  return null;
}

// The parts of one member's bodies: [{kind, body, m (Float64Array 16), color}]
// and the capsule sizes by kind.
function bodyParts(L, size, colorOf) {
  const parts = [], caps = new Map(), r = size / 250;
  L.bodies.forEach((B, b) => {
    const color = colorOf(b);
    const add = (kind, m) => parts.push({ kind, body: b, m: Float64Array.from(m.elements), color });
    for (const p of B.points) {
      const pb = vec(p), len = pb.length();
      add('sphere', new THREE.Matrix4().makeScale(1.6 * r, 1.6 * r, 1.6 * r).setPosition(pb));
      if (len <= 0) continue;
      const q = new THREE.Quaternion().setFromUnitVectors(UP, pb.clone().normalize());
      add('cyl', new THREE.Matrix4().compose(pb.clone().multiplyScalar(0.5), q, new THREE.Vector3(r, len, r)));
    }
    for (const s of B.shapes) {
      const M = partMatrix(s);
      if (!M) continue;
      if (M.kind.startsWith('cap:')) caps.set(M.kind, [M.radius, M.len]);
      add(M.kind, M.m);
    }
    // the centre of mass as a dot, unless shapes alone show the body
    if (!B.shapes.length || B.points.length) add('sphere', new THREE.Matrix4().makeScale(size / 100, size / 100, size / 100));
  });
  // joints by type, on the body that carries them (pose.js): a revolute
  // joint a short pin along its axis, a cylindrical one a longer thinner pin,
  // a prismatic one a bar along its axis, a spherical one a ball, a
  // universal one two crossed pins, a fixed one a cube; dark grey
  const at = (b, p, kind, m, color) => parts.push({ kind, body: b, m: Float64Array.from(m.setPosition(p).elements), color });
  const along = (d) => new THREE.Quaternion().setFromUnitVectors(UP, vec(d).normalize());
  const pin = (b, p, d, rad, len, color) => at(b, p, 'cyl', new THREE.Matrix4().compose(new THREE.Vector3(), along(d), new THREE.Vector3(rad, len, rad)), color);
  const JC = '#333333';
  for (const j of L.joints) {
    if (j.body < 0) continue;
    const p = vec(j.local);
    if (j.type === 'revolute' && j.axis) pin(j.body, p, j.axis, 3 * r, 12 * r, JC);
    else if (j.type === 'cylindrical' && j.axis) pin(j.body, p, j.axis, 2 * r, 26 * r, JC);
    else if (j.type === 'prismatic' && j.axis) at(j.body, p, 'box', new THREE.Matrix4().compose(new THREE.Vector3(), along(j.axis), new THREE.Vector3(3 * r, 40 * r, 3 * r)), JC);
    else if (j.type === 'spherical') at(j.body, p, 'sphere', new THREE.Matrix4().makeScale(4 * r, 4 * r, 4 * r), JC);
    else if (j.type === 'universal' && j.axes) for (const a of j.axes) pin(j.body, p, a, 2 * r, 12 * r, JC);
    else if (j.type === 'fixed') at(j.body, p, 'box', new THREE.Matrix4().makeScale(5 * r, 5 * r, 5 * r), JC);
  }
  // what drives it: a disc about the joint's axis (DC motors orange,
  // drivers purple, rotational springs brown), a red disc at a body's com
  // for a torque, a red ball at a force's point
  for (const a of L.actuators || []) {
    const color = ACTUATOR_COLOR[a.kind] || '#c0392b', j = a.joint !== undefined ? L.joints[a.joint] : null;
    if (j && j.body >= 0) pin(j.body, vec(j.local), j.axis || [0, 0, 1], 7 * r, 3 * r, color);
    else if (a.kind === 'torque' && a.body >= 0) pin(a.body, new THREE.Vector3(), [0, 1, 0], 6 * r, 1.5 * r, color);
    else if (a.kind === 'force' && a.body >= 0 && a.local) at(a.body, vec(a.local), 'sphere', new THREE.Matrix4().makeScale(2.5 * r, 2.5 * r, 2.5 * r), color);
  }
  return { parts, caps };
}

// The bodies' material: lit per vertex, not per pixel (the fragment shader
// only writes a colour).  Software WebGL (SwiftShader, headless Chromium
// without a GPU) spends most of a frame shading pixels: three.js's Lambert
// material, lit per pixel, drew the 100-ball box at 17 frames per second
// where this one draws 30 and more.  The lights are those of the scene (a
// hemisphere light along up, a directional light from sun: unit vectors).
function bodyMaterial(up, sun) {
  return new THREE.ShaderMaterial({
    uniforms: { uUp: { value: up.clone() }, uSun: { value: sun.clone() } },
    vertexShader: `
      uniform vec3 uUp;
      uniform vec3 uSun;
      varying vec3 vCol;
      void main() {
        mat4 m = modelMatrix;
        #ifdef USE_INSTANCING
          m = m * instanceMatrix;
        #endif
        vec3 n = normalize(mat3(m) * normal);
        float light = 0.42 + 0.28 * (0.5 * dot(n, uUp) + 0.5) + 0.42 * max(dot(n, uSun), 0.0);
        vec3 c = vec3(1.0);
        #ifdef USE_INSTANCING_COLOR
          c = instanceColor;
        #endif
        vCol = c * light;
        gl_Position = projectionMatrix * viewMatrix * m * vec4(position, 1.0);
      }`,
    fragmentShader: `
      varying vec3 vCol;
      void main() {
        gl_FragColor = vec4(vCol, 1.0);
        #include <colorspace_fragment>
      }`,
  });
}

function unitGeometry(kind, caps) {
  if (kind === 'sphere') return new THREE.SphereGeometry(1, 12, 8);
  if (kind === 'box') return new THREE.BoxGeometry(1, 1, 1);
  if (kind === 'cyl') return new THREE.CylinderGeometry(1, 1, 1, 8);
  const [radius, len] = caps.get(kind);
  return new THREE.CapsuleGeometry(radius, len, 6, 16);
}

// Body matrices (column-major 4x4, 16 per body) of pose values v into out.
export function bodyMatrices(v, nb, out) {
  for (let b = 0; b < nb; b++) {
    const k = 7 * b, o = 16 * b;
    const x = v[k], y = v[k + 1], z = v[k + 2], w = v[k + 3], qx = v[k + 4], qy = v[k + 5], qz = v[k + 6];
    out[o] = 1 - 2 * (qy * qy + qz * qz); out[o + 1] = 2 * (qx * qy + w * qz); out[o + 2] = 2 * (qx * qz - w * qy); out[o + 3] = 0;
    out[o + 4] = 2 * (qx * qy - w * qz); out[o + 5] = 1 - 2 * (qx * qx + qz * qz); out[o + 6] = 2 * (qy * qz + w * qx); out[o + 7] = 0;
    out[o + 8] = 2 * (qx * qz + w * qy); out[o + 9] = 2 * (qy * qz - w * qx); out[o + 10] = 1 - 2 * (qx * qx + qy * qy); out[o + 11] = 0;
    out[o + 12] = x; out[o + 13] = y; out[o + 14] = z; out[o + 15] = 1;
  }
  return out;
}

// dst[d..d+16] = A[a..] x B[b..] (affine, column-major).
function mulAffine(A, a, B, b, dst, d) {
  for (let c = 0; c < 4; c++) {
    const b0 = B[b + 4 * c], b1 = B[b + 4 * c + 1], b2 = B[b + 4 * c + 2], b3 = B[b + 4 * c + 3];
    for (let r = 0; r < 3; r++) dst[d + 4 * c + r] = A[a + r] * b0 + A[a + 4 + r] * b1 + A[a + 8 + r] * b2 + A[a + 12 + r] * b3;
    dst[d + 4 * c + 3] = b3;
  }
}

// The force arrows of context c at {items, max} (or none): one
// ArrowHelper per force in pool c[key] (in colour col), kept between
// frames; what three.js then holds (each arrow's start and tip in world
// coordinates) goes to host's data-<key> as "x y z x y z" per arrow,
// ';'-separated, and the scale (scene units per newton) to data-<key>-scale
// (data-arrows / data-arrow-scale for the joint reactions).
function placeArrows(c, arrows, host, key = 'arrows', col = FORCE_COLOR) {
  const items = arrows && arrows.max > 0 ? arrows.items : [];
  const pool = c[key];
  while (pool.length > items.length) { const a = pool.pop(); c.scene.remove(a); a.dispose(); }
  while (pool.length < items.length) {
    const a = new THREE.ArrowHelper(new THREE.Vector3(1, 0, 0), new THREE.Vector3(), 1, col);
    c.scene.add(a); pool.push(a);
  }
  const k = items.length ? (ARROW_SPAN * c.size) / arrows.max : 0;
  const dir = new THREE.Vector3(), o = new THREE.Vector3(), tip = new THREE.Vector3(), out = [];
  items.forEach((it, i) => {
    const a = pool[i], len = Math.hypot(...it.F) * k;
    a.visible = len > 0;
    if (!a.visible) return;
    a.position.set(it.p[0], it.p[1], it.p[2]);
    a.setDirection(dir.set(it.F[0], it.F[1], it.F[2]).normalize());
    const hl = Math.min(0.25 * len, 0.05 * c.size);
    a.setLength(len, hl, 0.5 * hl);
    a.updateMatrixWorld(true);
    a.getWorldPosition(o); a.cone.getWorldPosition(tip);
    out.push([o.x, o.y, o.z, tip.x, tip.y, tip.z].join(' '));
  });
  if (host) {
    const sk = key === 'arrows' ? 'arrowScale' : `${key}Scale`;
    host.dataset[key] = out.join(';'); host.dataset[sk] = k ? String(k) : '';
  }
}

// The contact arrows of context c at {items, max} (or none), many per
// frame (a hundred balls touch at tens of points): two instanced meshes, a
// shaft (unit cylinder along +y from 0 to 1) and a head (unit cone, tip at
// y = 1), two draw calls in all, unlit, drawn over the bodies (contact
// points lie between them), grown when a frame has more points than they
// hold.  What the instances then hold (each arrow's start: the shaft's
// origin; tip: the head's tip) goes to host's data-contacts as "x y z x y z"
// per arrow, ';'-separated, the scale to data-contacts-scale.
const Y = new THREE.Vector3(0, 1, 0);
function placeContactArrows(c, arrows, host) {
  const items = arrows && arrows.max > 0 ? arrows.items : [];
  let A = c.contactMesh;
  if (!A || A.cap < items.length) {
    if (A) { for (const m of [A.shaft, A.head]) { c.scene.remove(m); m.geometry.dispose(); m.material.dispose(); m.dispose(); } }
    const cap = Math.max(64, 2 ** Math.ceil(Math.log2(items.length || 1)));
    const mat = () => new THREE.MeshBasicMaterial({ color: CONTACT_COLOR, depthTest: false, depthWrite: false });
    const shaft = new THREE.InstancedMesh(new THREE.CylinderGeometry(1, 1, 1, 6).translate(0, 0.5, 0), mat(), cap);
    const head = new THREE.InstancedMesh(new THREE.ConeGeometry(1, 1, 8).translate(0, 0.5, 0), mat(), cap);
    for (const m of [shaft, head]) { m.frustumCulled = false; m.renderOrder = 1; m.instanceMatrix.setUsage(THREE.DynamicDrawUsage); c.scene.add(m); }
    A = c.contactMesh = { shaft, head, cap };
  }
  const k = items.length ? (ARROW_SPAN * c.size) / arrows.max : 0;
  const q = new THREE.Quaternion(), d = new THREE.Vector3(), p = new THREE.Vector3(), sc = new THREE.Vector3();
  const M = new THREE.Matrix4(), o = new THREE.Vector3(), tip = new THREE.Vector3(), out = [];
  let n = 0;
  for (const it of items) {
    const len = Math.hypot(...it.F) * k;
    if (!(len > 0)) continue;
    d.set(it.F[0], it.F[1], it.F[2]).normalize();
    q.setFromUnitVectors(Y, d);
    // as ArrowHelper: the head a fifth of the length at most, half as wide
    const hl = Math.min(0.25 * len, 0.05 * c.size), hw = 0.5 * hl, r = 0.12 * hw;
    A.shaft.setMatrixAt(n, M.compose(p.set(it.p[0], it.p[1], it.p[2]), q, sc.set(r, len - hl, r)));
    o.set(0, 0, 0).applyMatrix4(M);
    A.head.setMatrixAt(n, M.compose(p.set(it.p[0], it.p[1], it.p[2]).addScaledVector(d, len - hl), q, sc.set(hw, hl, hw)));
    tip.set(0, 1, 0).applyMatrix4(M);
    out.push([o.x, o.y, o.z, tip.x, tip.y, tip.z].join(' '));
    n++;
  }
  A.shaft.count = A.head.count = n;
  A.shaft.instanceMatrix.needsUpdate = A.head.instanceMatrix.needsUpdate = true;
  if (host) { host.dataset.contacts = out.join(';'); host.dataset.contactsScale = k ? String(k) : ''; }
}

export function Scene3D({ L, P, v, members: more = [], overlay = false, tint = null, bodyTint = null, arrows = null, contacts = null, loads = null, width = 560, height = 420 }) {
  const host = useRef(null);
  const ctx = useRef(null);
  const box = useMemo(() => extents(P, L), [P, L]);
  const members = [{ L, P, v }, ...more];
  const shape = members.map((m) => m.P.bodies.length).join(',') + (overlay ? 'o' : 's');

  // build the scene once per geometry and set of members
  useEffect(() => {
    const el = host.current;
    const [lo, hi] = box;
    const size = Math.max(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2], 1e-6);
    const shift = overlay ? 0 : (hi[0] - lo[0]) * 1.25 + size * 0.1;
    const n = members.length;
    const centre = vec(lo.map((x, i) => (x + hi[i]) / 2 + (i === 0 ? (shift * (n - 1)) / 2 : 0)));
    const span = size + shift * (n - 1);
    const renderer = new THREE.WebGLRenderer({ antialias: false, preserveDrawingBuffer: true });
    renderer.setPixelRatio(window.devicePixelRatio || 1);
    renderer.setSize(width, height);
    renderer.setClearColor(0xfcfcfd);
    el.appendChild(renderer.domElement);
    const scene = new THREE.Scene();
    // up is against gravity (most models have z up; three.js's default is
    // y): the camera, the lights and the orbit turn about it
    const g = P.geometry && P.geometry.gravity;
    const up = g && Math.hypot(...g) > 0 ? vec(g).negate().normalize() : UP.clone();
    const turn = new THREE.Quaternion().setFromUnitVectors(UP, up);
    const hemi = new THREE.HemisphereLight(0xffffff, 0x666666, 2.2);
    hemi.position.copy(up);
    scene.add(hemi);
    const sun = new THREE.DirectionalLight(0xffffff, 1.5);
    sun.position.set(1, 2, 3).applyQuaternion(turn);
    scene.add(sun);
    const camera = new THREE.PerspectiveCamera(40, width / height, span / 100, span * 100);
    camera.up.copy(up);
    camera.position.copy(centre).add(new THREE.Vector3(1.2, 0.9, 1.6).applyQuaternion(turn).multiplyScalar(span));
    camera.lookAt(centre);
    for (let k = 0; k < n; k++) {
      const ground = new THREE.Group();
      ground.position.x = shift * k;
      for (const s of members[k].L.ground.shapes) { const m = groundMesh(s, 0x999999, size); if (m) ground.add(m); }
      for (const p of members[k].L.ground.points) {
        const m = new THREE.Mesh(new THREE.SphereGeometry(size / 80, 12, 8), new THREE.MeshLambertMaterial({ color: 0x222222 }));
        m.position.copy(vec(p));
        ground.add(m);
      }
      scene.add(ground);
      if (overlay) break;   // one ground for overlaid members
    }
    // the parts of every member, grouped by unit mesh
    const groups = new Map(), caps = new Map();
    members.forEach((mb, k) => {
      const colorOf = n > 1 ? () => jobColor(k) : bodyColor;
      const bp = bodyParts(mb.L, size, colorOf);
      for (const [key, val] of bp.caps) caps.set(key, val);
      for (const p of bp.parts) {
        if (!groups.has(p.kind)) groups.set(p.kind, []);
        groups.get(p.kind).push({ ...p, member: k });
      }
    });
    const sets = [];
    const col = new THREE.Color();
    for (const [kind, parts] of groups) {
      const mesh = new THREE.InstancedMesh(unitGeometry(kind, caps), bodyMaterial(up, sun.position.clone().normalize()), parts.length);
      mesh.frustumCulled = false;   // the instances move: no bounds computed once
      mesh.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
      const member = new Int32Array(parts.length), body = new Int32Array(parts.length), local = new Float64Array(16 * parts.length);
      const base = new Array(parts.length);
      parts.forEach((p, i) => {
        member[i] = p.member; body[i] = p.body; local.set(p.m, 16 * i);
        base[i] = p.color;
        mesh.setColorAt(i, col.set(p.color));
      });
      scene.add(mesh);
      sets.push({ mesh, member, body, local, base });
    }
    const mats = members.map((m) => new Float64Array(16 * m.P.bodies.length));
    const controls = new OrbitControls(camera, renderer.domElement);
    controls.target.copy(centre);
    const draw = () => renderer.render(scene, camera);
    controls.addEventListener('change', draw);
    controls.update();
    ctx.current = { renderer, scene, camera, sets, mats, shift, draw, tint: null, size, arrows: [], loads: [], torques: [], contactMesh: null };
    return () => {
      controls.dispose();
      scene.traverse((o) => { if (o.geometry) o.geometry.dispose(); if (o.material) o.material.dispose(); if (o.dispose && o.isInstancedMesh) o.dispose(); });
      renderer.dispose();
      el.removeChild(renderer.domElement);
      ctx.current = null;
    };
  }, [L, box, shape]);

  // place every instance at the poses of the time shown and draw
  const vs = members.map((m) => m.v);
  const tk = (a) => a.map((x) => (x === null || x === undefined ? '' : x.toFixed(3))).join(',');
  const tkey = (tint ? tk(tint) : '') + (bodyTint ? `|${tk(bodyTint)}` : '');
  useEffect(() => {
    const c = ctx.current;
    if (!c || vs.some((x) => !x)) return;
    vs.forEach((x, k) => bodyMatrices(x, c.mats[k].length / 16, c.mats[k]));
    for (const s of c.sets) {
      const arr = s.mesh.instanceMatrix.array, n = s.member.length;
      const tmp = s.tmp || (s.tmp = new Float64Array(16));
      for (let i = 0; i < n; i++) {
        const k = s.member[i];
        mulAffine(c.mats[k], 16 * s.body[i], s.local, 16 * i, tmp, 0);
        tmp[12] += c.shift * k;
        for (let e = 0; e < 16; e++) arr[16 * i + e] = tmp[e];
      }
      s.mesh.instanceMatrix.needsUpdate = true;
    }
    if (tkey !== c.tint) {
      // colours by a channel: the member's bodies take the ramp's colour
      const col = new THREE.Color();
      for (const s of c.sets) {
        for (let i = 0; i < s.member.length; i++) {
          // the first member's bodies by their own value (bodyTint), else by the member's
          const xb = bodyTint && s.member[i] === 0 ? bodyTint[s.body[i]] : null;
          const x = xb !== null && xb !== undefined ? xb : tint && tint[s.member[i]];
          s.mesh.setColorAt(i, col.set(x === null || x === undefined ? s.base[i] : ramp(x)));
        }
        if (s.mesh.instanceColor) s.mesh.instanceColor.needsUpdate = true;
      }
      c.tint = tkey;
      // what the instances hold, read back: each member's colour (the text
      // alternative of the tint, checked by job.test.mjs)
      const seen = c.mats.map(() => '');
      for (const s of c.sets) {
        if (!s.mesh.instanceColor) continue;
        for (let i = 0; i < s.member.length; i++) if (!seen[s.member[i]]) seen[s.member[i]] = col.fromArray(s.mesh.instanceColor.array, 3 * i).getStyle();
      }
      if (host.current) host.current.dataset.colors = tint ? seen.join(';') : '';
      // and each body's of the first member, when coloured per body
      const byBody = [];
      for (const s of c.sets) {
        if (!s.mesh.instanceColor) continue;
        for (let i = 0; i < s.member.length; i++) if (s.member[i] === 0 && byBody[s.body[i]] === undefined) byBody[s.body[i]] = col.fromArray(s.mesh.instanceColor.array, 3 * i).getStyle();
      }
      if (host.current) host.current.dataset.bodyColors = bodyTint ? Array.from({ length: bodyTint.length }, (_, b) => byBody[b] || '').join(';') : '';
    }
    placeArrows(c, arrows, host.current);
    if (contacts || c.contactMesh) placeContactArrows(c, contacts, host.current);
    // applied loads: forces from their points, torques along their axis
    // from the body's centre of mass, each kind on its own scale
    placeArrows(c, loads && { items: loads.forces, max: loads.fmax }, host.current, 'loads', LOAD_COLOR);
    placeArrows(c, loads && { items: loads.torques.map((a) => ({ p: a.p, F: a.T })), max: loads.tmax }, host.current, 'torques', LOAD_COLOR);
    c.draw();
  }, [...vs, tkey, L, box, shape, arrows, contacts, loads]);

  return <div ref={host} class="anim-canvas scene3d" role="img" aria-label="The mechanism in 3-D (its positions are in the table below); drag to turn the view" />;
}
