// Planar.jsx - a planar mechanism on a 2-D canvas at pose values v (pose.js):
// each body as lines from its centre of mass to its joint and spring points
// (the default skeleton) and its shapes (circles, segments, points); the
// ground's joints as fixed supports, its shapes (lines across the view,
// segments, circles); springs as thin zig-zags between their end points;
// joints by type (pin, prismatic guide and slider, fixed square) and what
// drives them (motors, drivers, rotational springs, forces, torques).
// The view is fixed for the whole run (extents over every frame).
import { useEffect, useMemo, useRef } from 'preact/hooks';
import { extents, place, turn } from './pose.js';
import { bodyColor as bodyColorOf, jobColor, ramp, ACTUATOR_COLOR } from './colors.js';
import { FORCE_COLOR, CONTACT_COLOR, LOAD_COLOR, ARROW_PX, TORQUE_DEG } from './forces.js';

// The radius of an applied torque's arc (CSS pixels).
const TORQUE_R = 24;

// members: other jobs drawn in the same view ({L, P, v}), side by side
// (shifted along x by the first job's width) or overlaid; then every job has
// one colour (colors.js jobColor), or the ramp's colour of tint[k] (a
// channel's value scaled to [0, 1]) where given; bodyTint (per body of the
// first job, a number in [0, 1] or null) colours each body on its own.  arrows: {items: [{p, F}],
// max} forces of the first job drawn as arrows from their points, the
// largest force of the run ARROW_PX long (forces.js); contacts: the same
// for the contact forces (CONTACT_COLOR, their own scale); loads: {forces,
// torques, fmax, tmax} the applied loads (forces.js loadsAt, LOAD_COLOR):
// forces as arrows on their own scale, torques as arcs of radius TORQUE_R
// around the body's centre of mass, TORQUE_DEG degrees for tmax.  The canvas tells
// the view (data-s: pixels per metre, data-ox / data-oy: where the origin
// is) and the arrows' scales (data-arrow-scale, data-contact-scale, data-load-scale: pixels
// per newton), so that a test can find where an arrow must be drawn; once
// drawn, data-frame tells which frame it shows (frame: the pose's index,
// given by the animation), as the drawing happens after the page's update.
export function Planar({ L, P, v, frame = null, label, members: more = [], overlay = false, tint = null, bodyTint = null, arrows = null, contacts = null, loads = null, width = 560, height = 420 }) {
  const canvas = useRef(null);
  const nm = 1 + more.length;
  // while arrows are shown, a margin of an arrow's largest length around
  // the mechanism's extents, so that an arrow from its edge stays in view
  const margin = arrows || contacts || loads ? ARROW_PX + 8 : 0;
  const view = useMemo(() => {
    const [lo, hi] = extents(P, L);
    const shift = overlay ? 0 : (hi[0] - lo[0]) * 1.25 + 1e-9;
    hi[0] += shift * (nm - 1);
    const s = Math.min((width - 2 * margin) / Math.max(hi[0] - lo[0], 1e-9), (height - 2 * margin) / Math.max(hi[1] - lo[1], 1e-9)) / 1.15;
    const cx = (lo[0] + hi[0]) / 2, cy = (lo[1] + hi[1]) / 2;
    return { s, shift, px: (x) => width / 2 + (x - cx) * s, py: (y) => height / 2 - (y - cy) * s };
  }, [P, L, width, height, nm, overlay, margin]);
  const all = [{ L, v }, ...more];
  const tkey = (tint ? tint.join(',') : '') + (bodyTint ? `|${bodyTint.join(',')}` : '');

  useEffect(() => {
    const c = canvas.current;
    if (!c || all.some((m) => !m.v)) return;
    // (re)sizing a canvas reallocates it: only when the size changes
    const dpr = window.devicePixelRatio || 1;
    if (c.width !== width * dpr || c.height !== height * dpr) {
      c.width = width * dpr; c.height = height * dpr; c.style.width = `${width}px`; c.style.height = `${height}px`;
    }
    const g = c.getContext('2d');
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, width, height);
    all.forEach(({ L, v }, k) => {
    const dx = view.shift * k;
    if (k > 0 && overlay) g.globalAlpha = 0.8;
    const one = nm > 1 || (tint && tint[k] !== null && tint[k] !== undefined)
      ? (tint && tint[k] !== null && tint[k] !== undefined ? ramp(tint[k]) : jobColor(k)) : null;
    // per body of the first job, where bodyTint gives its value
    const own = k === 0 && bodyTint ? bodyTint : null;
    const bodyColor = (b) => (own && b >= 0 && own[b] !== null && own[b] !== undefined ? ramp(own[b]) : one || bodyColorOf(b));
    const X = (p) => view.px(p[0] + dx), Y = (p) => view.py(p[1]);
    const line = (a, b) => { g.beginPath(); g.moveTo(X(a), Y(a)); g.lineTo(X(b), Y(b)); g.stroke(); };
    // a shape of body b (ground: b = -1)
    const shape = (b, s) => {
      const p = place(2, v, b, s.p);
      if (s.kind === 'circle') { g.beginPath(); g.arc(X(p), Y(p), Math.max(1, s.radius * view.s), 0, 2 * Math.PI); g.stroke(); }
      else if (s.kind === 'segment') line(p, place(2, v, b, s.q));
      else if (s.kind === 'point') { g.beginPath(); g.arc(X(p), Y(p), 2.5, 0, 2 * Math.PI); g.fill(); }
      else if (s.kind === 'line') {
        const n = turn(2, v, b, s.n), d = [-n[1], n[0]], far = 4 * Math.max(width, height) / view.s;
        line([p[0] - far * d[0], p[1] - far * d[1]], [p[0] + far * d[0], p[1] + far * d[1]]);
      }
    };
    // the ground: shapes, then fixed supports (triangles) at its joint points
    g.strokeStyle = '#777'; g.fillStyle = '#777'; g.lineWidth = 1.5;
    for (const s of L.ground.shapes) shape(-1, s);
    g.fillStyle = '#222';
    for (const p of L.ground.points) {
      const x = X(p), y = Y(p);
      g.beginPath(); g.moveTo(x, y); g.lineTo(x - 7, y + 10); g.lineTo(x + 7, y + 10); g.closePath(); g.fill();
    }
    // springs: a thin zig-zag
    g.strokeStyle = '#a0522d'; g.lineWidth = 1;
    for (const sp of L.springs) {
      const [a, b] = sp.ends.map((e) => place(2, v, e.body, e.local));
      const dx = b[0] - a[0], dy = b[1] - a[1], len = Math.hypot(dx, dy) || 1, nx = -dy / len, ny = dx / len, w = 5 / view.s;
      g.beginPath(); g.moveTo(X(a), Y(a));
      for (let k = 1; k < 12; k++) { const u = k / 12, sg = k % 2 ? 1 : -1; g.lineTo(X([a[0] + u * dx + sg * w * nx, 0]), Y([0, a[1] + u * dy + sg * w * ny])); }
      g.lineTo(X(b), Y(b)); g.stroke();
    }
    // bodies: skeleton lines from the com, shapes, the com as a dot; one
    // path per body and pen (a stroke per line cost more than the drawing)
    L.bodies.forEach((B, b) => {
      const col = bodyColor(b), k = 3 * b, cx = v[k], cy = v[k + 1], ca = Math.cos(v[k + 2]), sa = Math.sin(v[k + 2]);
      const PX = (l) => view.px(cx + ca * l[0] - sa * l[1] + dx), PY = (l) => view.py(cy + sa * l[0] + ca * l[1]);
      const x0 = view.px(cx + dx), y0 = view.py(cy);
      g.strokeStyle = col; g.fillStyle = col;
      if (B.points.length) {
        g.lineWidth = 3; g.beginPath();
        for (const p of B.points) { g.moveTo(x0, y0); g.lineTo(PX(p), PY(p)); }
        g.stroke();
      }
      g.lineWidth = 1.5;
      let open = false;
      for (const sh of B.shapes) {
        if (sh.kind === 'circle' || sh.kind === 'segment') {
          if (!open) { g.beginPath(); open = true; }
          const x = PX(sh.p), y = PY(sh.p);
          if (sh.kind === 'circle') { const r = Math.max(1, sh.radius * view.s); g.moveTo(x + r, y); g.arc(x, y, r, 0, 2 * Math.PI); }
          else { g.moveTo(x, y); g.lineTo(PX(sh.q), PY(sh.q)); }
        } else shape(b, sh);
      }
      if (open) g.stroke();
      g.beginPath(); g.arc(x0, y0, 4.5, 0, 2 * Math.PI); g.fill();
    });
    // joints by type: a revolute (or distance) joint a pin, a prismatic one
    // its guide along the axis with the slider on it, a fixed one a square
    g.strokeStyle = '#222'; g.fillStyle = '#fff'; g.lineWidth = 1.5;
    const screenDir = (j) => { const d = turn(2, v, j.body, j.axis), n = Math.hypot(d[0], d[1]) || 1; return [d[0] / n, -d[1] / n]; };
    for (const j of L.joints) {
      const p = place(2, v, j.body, j.local), x = X(p), y = Y(p);
      g.fillStyle = '#fff';
      if (j.type === 'prismatic' && j.axis) {
        const [ex, ey] = screenDir(j);
        g.beginPath();
        for (const w of [-5, 5]) { g.moveTo(x - 18 * ex - w * ey, y - 18 * ey + w * ex); g.lineTo(x + 18 * ex - w * ey, y + 18 * ey + w * ex); }
        g.stroke();
        g.beginPath();
        g.moveTo(x - 7 * ex + 3.5 * ey, y - 7 * ey - 3.5 * ex); g.lineTo(x + 7 * ex + 3.5 * ey, y + 7 * ey - 3.5 * ex);
        g.lineTo(x + 7 * ex - 3.5 * ey, y + 7 * ey + 3.5 * ex); g.lineTo(x - 7 * ex - 3.5 * ey, y - 7 * ey + 3.5 * ex); g.closePath();
        g.fill(); g.stroke();
      } else if (j.type === 'fixed') {
        g.fillStyle = '#222'; g.fillRect(x - 3.5, y - 3.5, 7, 7);
      } else {
        g.beginPath(); g.arc(x, y, 3.5, 0, 2 * Math.PI); g.fill(); g.stroke();
      }
    }
    // what drives it: around a revolute joint (or a torque's body) an arc
    // with an arrow, along a prismatic joint a double arrow; DC motors
    // orange, drivers purple, rotational springs brown, forces and torques red
    const head = (x, y, a) => { g.beginPath(); g.moveTo(x, y); g.lineTo(x - 7 * Math.cos(a - 0.45), y - 7 * Math.sin(a - 0.45));
      g.lineTo(x - 7 * Math.cos(a + 0.45), y - 7 * Math.sin(a + 0.45)); g.closePath(); g.fill(); };
    const arc = (x, y, r) => { const a0 = -0.2 * Math.PI, a1 = 1.2 * Math.PI; g.beginPath(); g.arc(x, y, r, a0, a1); g.stroke();
      head(x + r * Math.cos(a1), y + r * Math.sin(a1), a1 + Math.PI / 2); };
    g.lineWidth = 2;
    for (const a of L.actuators) {
      const col = ACTUATOR_COLOR[a.kind] || '#c0392b';
      g.strokeStyle = col; g.fillStyle = col;
      if (a.joint !== undefined && L.joints[a.joint]) {
        const j = L.joints[a.joint], p = place(2, v, j.body, j.local), x = X(p), y = Y(p);
        if (j.type === 'prismatic' && j.axis) {
          const [ex, ey] = screenDir(j), ox = -11 * ey, oy = 11 * ex;
          g.beginPath(); g.moveTo(x + ox - 14 * ex, y + oy - 14 * ey); g.lineTo(x + ox + 14 * ex, y + oy + 14 * ey); g.stroke();
          head(x + ox + 16 * ex, y + oy + 16 * ey, Math.atan2(ey, ex)); head(x + ox - 16 * ex, y + oy - 16 * ey, Math.atan2(-ey, -ex));
        } else arc(x, y, a.kind === 'rotational_spring_damper' ? 16 : 12);
      } else if (a.kind === 'torque' && a.body >= 0) {
        arc(view.px(v[3 * a.body] + dx), view.py(v[3 * a.body + 1]), 12);
      } else if (a.kind === 'force' && a.local) {
        const p = place(2, v, a.body, a.local), x = X(p), y = Y(p);
        g.beginPath(); g.moveTo(x - 14, y - 14); g.lineTo(x - 3, y - 3); g.stroke(); head(x, y, Math.PI / 4);
      }
    }
    g.globalAlpha = 1;
    });
    // forces as arrows from their points (the first job's): joint
    // reactions, then contact forces, each set on its own scale
    const applied = loads && { items: loads.forces, max: loads.fmax };
    for (const [set, col] of [[arrows, FORCE_COLOR], [contacts, CONTACT_COLOR], [applied, LOAD_COLOR]]) {
      if (!set || !(set.max > 0)) continue;
      const k = ARROW_PX / set.max;
      g.strokeStyle = col; g.fillStyle = col; g.lineWidth = 2.5;
      for (const a of set.items) {
        const x = view.px(a.p[0]), y = view.py(a.p[1]), ex = a.F[0] * k, ey = -a.F[1] * k, len = Math.hypot(ex, ey);
        if (len < 1) continue;
        const ang = Math.atan2(ey, ex), hl = Math.min(10, len / 2);
        // the shaft ends where the head begins; the head's tip is the force's end
        g.beginPath(); g.moveTo(x, y); g.lineTo(x + ex - hl * Math.cos(ang), y + ey - hl * Math.sin(ang)); g.stroke();
        g.beginPath(); g.moveTo(x + ex, y + ey);
        g.lineTo(x + ex - hl * Math.cos(ang - 0.4), y + ey - hl * Math.sin(ang - 0.4));
        g.lineTo(x + ex - hl * Math.cos(ang + 0.4), y + ey - hl * Math.sin(ang + 0.4)); g.closePath(); g.fill();
      }
    }
    // applied torques: an arc around the body's centre of mass, as long as
    // TORQUE_DEG for the largest torque of the run, counter-clockwise for a
    // positive one, its head at the end
    if (loads && loads.tmax > 0) {
      g.strokeStyle = LOAD_COLOR; g.fillStyle = LOAD_COLOR; g.lineWidth = 2.5;
      for (const a of loads.torques) {
        const sweep = (a.T[2] / loads.tmax) * TORQUE_DEG * (Math.PI / 180), r = TORQUE_R;
        if (Math.abs(sweep) * r < 2) continue;
        const x = view.px(a.p[0]), y = view.py(a.p[1]);
        // canvas angles turn clockwise on screen: a positive torque runs to -sweep
        g.beginPath(); g.arc(x, y, r, 0, -sweep, sweep > 0); g.stroke();
        const e = -sweep, hx = x + r * Math.cos(e), hy = y + r * Math.sin(e), d = sweep > 0 ? -1 : 1;
        // the head along the arc's tangent at its end
        const tx = -Math.sin(e) * d, ty = Math.cos(e) * d, ang = Math.atan2(ty, tx);
        g.beginPath(); g.moveTo(hx + 4 * Math.cos(ang), hy + 4 * Math.sin(ang));
        g.lineTo(hx - 8 * Math.cos(ang - 0.5), hy - 8 * Math.sin(ang - 0.5));
        g.lineTo(hx - 8 * Math.cos(ang + 0.5), hy - 8 * Math.sin(ang + 0.5)); g.closePath(); g.fill();
      }
    }
    if (label) { g.fillStyle = '#222'; g.font = '12px system-ui, sans-serif'; g.fillText(label, 8, 16); }
    c.dataset.frame = frame === null ? '' : String(frame);
  }, [...all.map((m) => m.v), L, view, label, tkey, arrows, contacts, loads, frame]);

  return <canvas ref={canvas} class="anim-canvas" data-members={nm} data-s={view.s} data-ox={view.px(0)} data-oy={view.py(0)}
    data-arrow-scale={arrows && arrows.max > 0 ? ARROW_PX / arrows.max : ''}
    data-contact-scale={contacts && contacts.max > 0 ? ARROW_PX / contacts.max : ''}
    data-load-scale={loads && loads.fmax > 0 ? ARROW_PX / loads.fmax : ''} data-torque-r={TORQUE_R} role="img" aria-label={nm > 1 ? `${nm} jobs' mechanisms ${overlay ? 'overlaid' : 'side by side'} (the first job's positions are in the table below)` : 'The mechanism (its positions are in the table below)'} />;
}
