// Scene3D.jsx - a spatial mechanism with three.js (loaded as a chunk of its
// own, only when a spatial job or model is shown).  Each body is a group
// placed at every time by its pose (centre of mass, quaternion); in it, in
// body coordinates (pose.js): the skeleton (lines from the com to the joint
// and spring points) and the declared shapes (spheres, boxes, capsules).
// The ground holds its shapes (planes as a grid) and its joint points.  The
// camera looks at the extents of the whole run; dragging orbits it.  The
// scene is drawn only when the time or the camera changes.
import { useEffect, useMemo, useRef } from 'preact/hooks';
import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import { extents, bodyCom } from './pose.js';
import { bodyColor } from './colors.js';

const vec = (p) => new THREE.Vector3(p[0], p[1], p[2]);

// Meshes of one shape in its body's coordinates.
function shapeMesh(s, color, size) {
  const mat = new THREE.MeshLambertMaterial({ color });
  if (s.kind === 'sphere') {
    const m = new THREE.Mesh(new THREE.SphereGeometry(s.radius, 12, 8), mat);
    m.position.copy(vec(s.p));
    return m;
  }
  if (s.kind === 'box') {
    const m = new THREE.Mesh(new THREE.BoxGeometry(2 * s.half[0], 2 * s.half[1], 2 * s.half[2]), mat);
    const R = s.R, M = new THREE.Matrix4().set(R[0], R[1], R[2], s.p[0], R[3], R[4], R[5], s.p[1], R[6], R[7], R[8], s.p[2], 0, 0, 0, 1);
    M.decompose(m.position, m.quaternion, m.scale);
    return m;
  }
  if (s.kind === 'capsule') {
    const a = vec(s.p), b = vec(s.q), len = a.distanceTo(b);
    const m = new THREE.Mesh(new THREE.CapsuleGeometry(s.radius, len, 6, 16), mat);
    m.position.copy(a.clone().add(b).multiplyScalar(0.5));
    if (len > 0) m.quaternion.setFromUnitVectors(new THREE.Vector3(0, 1, 0), b.clone().sub(a).normalize());
    return m;
  }
  if (s.kind === 'plane') {
    // a grid across the view, its normal along n
    const g = new THREE.GridHelper(size * 2, 20, 0x999999, 0xcccccc);
    g.position.copy(vec(s.p));
    g.quaternion.setFromUnitVectors(new THREE.Vector3(0, 1, 0), vec(s.n).normalize());
    return g;
  }
  return null;
}

// Rods (thin cylinders) from the com (the origin of body coordinates) to
// each point, and a small ball at each point.
function skeleton(points, color, r) {
  const g = new THREE.Group(), mat = new THREE.MeshLambertMaterial({ color });
  const up = new THREE.Vector3(0, 1, 0);
  for (const p of points) {
    const b = vec(p), len = b.length();
    const ball = new THREE.Mesh(new THREE.SphereGeometry(1.6 * r, 10, 8), mat);
    ball.position.copy(b);
    g.add(ball);
    if (len <= 0) continue;
    const rod = new THREE.Mesh(new THREE.CylinderGeometry(r, r, len, 8), mat);
    rod.position.copy(b.clone().multiplyScalar(0.5));
    rod.quaternion.setFromUnitVectors(up, b.clone().normalize());
    g.add(rod);
  }
  return g;
}

export function Scene3D({ L, P, v, width = 560, height = 420 }) {
  const host = useRef(null);
  const ctx = useRef(null);
  const box = useMemo(() => extents(P, L), [P, L]);

  // build the scene once per geometry
  useEffect(() => {
    const el = host.current;
    const [lo, hi] = box;
    const centre = vec(lo.map((x, i) => (x + hi[i]) / 2));
    const size = Math.max(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2], 1e-6);
    const renderer = new THREE.WebGLRenderer({ antialias: false, preserveDrawingBuffer: true });
    renderer.setPixelRatio(window.devicePixelRatio || 1);
    renderer.setSize(width, height);
    renderer.setClearColor(0xfcfcfd);
    el.appendChild(renderer.domElement);
    const scene = new THREE.Scene();
    scene.add(new THREE.HemisphereLight(0xffffff, 0x666666, 2.2));
    const sun = new THREE.DirectionalLight(0xffffff, 1.5);
    sun.position.set(1, 2, 3);
    scene.add(sun);
    const camera = new THREE.PerspectiveCamera(40, width / height, size / 100, size * 100);
    camera.position.copy(centre).add(new THREE.Vector3(1.2, 0.9, 1.6).multiplyScalar(size));
    camera.lookAt(centre);
    const ground = new THREE.Group();
    for (const s of L.ground.shapes) { const m = shapeMesh(s, 0x999999, size); if (m) ground.add(m); }
    for (const p of L.ground.points) {
      const m = new THREE.Mesh(new THREE.SphereGeometry(size / 80, 12, 8), new THREE.MeshLambertMaterial({ color: 0x222222 }));
      m.position.copy(vec(p));
      ground.add(m);
    }
    scene.add(ground);
    const groups = L.bodies.map((B, b) => {
      const g = new THREE.Group(), color = new THREE.Color(bodyColor(b));
      if (B.points.length) g.add(skeleton(B.points, color, size / 250));
      for (const s of B.shapes) { const m = shapeMesh(s, color, size); if (m) g.add(m); }
      // the centre of mass as a dot, unless shapes already show the body
      // (fewer draw calls: 100 balls are 100, not 200)
      if (!B.shapes.length || B.points.length) g.add(new THREE.Mesh(new THREE.SphereGeometry(size / 100, 12, 8), new THREE.MeshLambertMaterial({ color })));
      scene.add(g);
      return g;
    });
    const controls = new OrbitControls(camera, renderer.domElement);
    controls.target.copy(centre);
    const draw = () => renderer.render(scene, camera);
    controls.addEventListener('change', draw);
    controls.update();
    ctx.current = { renderer, scene, camera, groups, draw };
    return () => {
      controls.dispose();
      scene.traverse((o) => { if (o.geometry) o.geometry.dispose(); if (o.material) o.material.dispose(); });
      renderer.dispose();
      el.removeChild(renderer.domElement);
      ctx.current = null;
    };
  }, [L, box]);

  // place every body at the poses v and draw
  useEffect(() => {
    const c = ctx.current;
    if (!c || !v) return;
    c.groups.forEach((g, b) => {
      g.position.copy(vec(bodyCom(3, v, b)));
      const k = 7 * b + 3;
      g.quaternion.set(v[k + 1], v[k + 2], v[k + 3], v[k]);
    });
    c.draw();
  }, [v, L, box]);

  return <div ref={host} class="anim-canvas scene3d" role="img" aria-label="The mechanism in 3-D (its positions are in the table below); drag to turn the view" />;
}
