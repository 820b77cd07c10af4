// Anim.jsx - the planar animation of a job on a 2-D canvas: a skeleton drawn
// from the stored samples (each body's centre of mass from its position
// channels, the default outputs of a mechanism) and the joints (a ground
// joint's fixed point, a line to each body it holds; a line between the two
// bodies of any other joint).  Play, pause, speed and scrubbing; the time is
// shared with the plots (and the URL).  The table under it is its text
// alternative: every body's position at the time shown, read from the same
// samples the drawing uses.
import { useEffect, useMemo, useRef } from 'preact/hooks';
import { evalNumber } from './expr.js';
import { fmtNum } from './format.js';

const W = 560, H = 420;

// Which columns hold each body's com x and y: the model's position channels
// without a point, or the default channels "<body>.x" / "<body>.y".
export function bodyColumns(def, columns) {
  const out = [];
  const chans = def.outputs && Array.isArray(def.outputs.channels) ? def.outputs.channels : null;
  for (const b of def.bodies || []) {
    let cx = -1, cy = -1;
    if (chans) {
      for (const c of chans) {
        if (c.quantity !== 'position' || c.body !== b.name || c.point !== undefined) continue;
        if (c.component === 'x') cx = columns.indexOf(c.name);
        if (c.component === 'y') cy = columns.indexOf(c.name);
      }
    } else { cx = columns.indexOf(`${b.name}.x`); cy = columns.indexOf(`${b.name}.y`); }
    if (cx >= 0 && cy >= 0) out.push({ name: b.name, cx, cy });
  }
  return out;
}

// Index of the last sample at or before t (rows sorted by time).
export function sampleAt(rows, t) {
  let lo = 0, hi = rows.length - 1;
  if (hi < 0) return -1;
  if (t <= rows[0][0]) return 0;
  while (lo < hi) { const m = (lo + hi + 1) >> 1; if (rows[m][0] <= t + 1e-12) lo = m; else hi = m - 1; }
  return lo;
}

export function Anim({ def, params, result, t, setT, playing, setPlaying, speed, setSpeed }) {
  const canvas = useRef(null);
  const bodies = useMemo(() => bodyColumns(def, result.columns.slice(1)), [def, result]);
  const rows = result.rows;
  const t0 = rows.length ? rows[0][0] : 0, t1 = rows.length ? rows[rows.length - 1][0] : 0;
  // fixed points of ground joints, evaluated with the job's parameters
  const links = useMemo(() => {
    const idx = new Map(bodies.map((b, k) => [b.name, k]));
    const L = [];
    for (const j of def.joints || []) {
      const [a, b] = j.bodies || [];
      const at = Array.isArray(j.at) ? j.at.map((v) => evalNumber(v, params)) : null;
      if (a === 'ground' && idx.has(b) && at && at.every(Number.isFinite)) L.push({ fixed: at, b: idx.get(b) });
      else if (b === 'ground' && idx.has(a) && at && at.every(Number.isFinite)) L.push({ fixed: at, b: idx.get(a) });
      else if (idx.has(a) && idx.has(b)) L.push({ a: idx.get(a), b: idx.get(b) });
    }
    return L;
  }, [def, params, bodies]);
  // the view: every position of the run and the fixed points, with a margin
  const view = useMemo(() => {
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    const add = (x, y) => { if (Number.isFinite(x) && Number.isFinite(y)) { x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y); } };
    for (const r of rows) for (const b of bodies) add(r[b.cx + 1], r[b.cy + 1]);
    for (const l of links) if (l.fixed) add(l.fixed[0], l.fixed[1]);
    if (!(x0 <= x1)) { x0 = -1; x1 = 1; y0 = -1; y1 = 1; }
    const span = Math.max(x1 - x0, y1 - y0, 1e-9) * 1.15;
    const s = Math.min(W, H) / span;
    const cx = (x0 + x1) / 2, cy = (y0 + y1) / 2;
    return { s, px: (x) => W / 2 + (x - cx) * s, py: (y) => H / 2 - (y - cy) * s };
  }, [rows, bodies, links]);
  const k = sampleAt(rows, t);

  useEffect(() => {
    const c = canvas.current;
    if (!c || k < 0) return;
    const dpr = window.devicePixelRatio || 1;
    c.width = W * dpr; c.height = H * dpr; c.style.width = `${W}px`; c.style.height = `${H}px`;
    const g = c.getContext('2d');
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, W, H);
    const r = rows[k];
    const P = (b) => [view.px(r[bodies[b].cx + 1]), view.py(r[bodies[b].cy + 1])];
    g.lineWidth = 3; g.strokeStyle = '#555';
    for (const l of links) {
      const [bx, by] = P(l.b);
      const [ax, ay] = l.fixed ? [view.px(l.fixed[0]), view.py(l.fixed[1])] : P(l.a);
      g.beginPath(); g.moveTo(ax, ay); g.lineTo(bx, by); g.stroke();
      if (l.fixed) { g.fillStyle = '#222'; g.beginPath(); g.moveTo(ax, ay); g.lineTo(ax - 7, ay + 10); g.lineTo(ax + 7, ay + 10); g.closePath(); g.fill(); }
    }
    g.fillStyle = '#1f5fbf';
    for (let b = 0; b < bodies.length; b++) { const [x, y] = P(b); g.beginPath(); g.arc(x, y, 6, 0, 2 * Math.PI); g.fill(); }
    g.fillStyle = '#222'; g.font = '12px system-ui, sans-serif';
    g.fillText(`t = ${fmtNum(r[0])} s`, 8, 16);
  }, [k, rows, bodies, links, view]);

  // play: advance the time with the wall clock times the speed
  useEffect(() => {
    if (!playing) return undefined;
    let raf = 0, last = performance.now(), cur = t >= t1 ? t0 : t;
    const step = (now) => {
      cur += ((now - last) / 1000) * speed; last = now;
      if (cur >= t1) { setT(t1); setPlaying(false); return; }
      setT(cur);
      raf = requestAnimationFrame(step);
    };
    raf = requestAnimationFrame(step);
    return () => cancelAnimationFrame(raf);
  }, [playing, speed]);

  if (!bodies.length) return <p>No body position channels in this job's result: nothing to animate.</p>;
  const r = rows[k];
  return (
    <figure class="anim">
      <canvas ref={canvas} id="anim" role="img" aria-label={`The mechanism at t = ${fmtNum(r[0])} s`} />
      <div class="controls">
        <button type="button" id="play" onClick={() => setPlaying(!playing)}>{playing ? 'Pause' : 'Play'}</button>
        <label>Speed <select id="speed" value={String(speed)} onChange={(e) => setSpeed(Number(e.currentTarget.value))}>
          {[0.1, 0.25, 0.5, 1, 2, 4].map((v) => <option value={String(v)}>{v}×</option>)}
        </select></label>
        <label class="grow">Time <input id="time" type="range" min={t0} max={t1} step={rows.length > 1 ? (t1 - t0) / (rows.length - 1) : 1}
          value={r[0]} onInput={(e) => { setPlaying(false); setT(Number(e.currentTarget.value)); }} aria-valuetext={`${fmtNum(r[0])} s`} /></label>
        <span id="time-shown" data-t={r[0]} data-sample={k}>{fmtNum(r[0])} s</span>
      </div>
      <figcaption>
        <table class="list small" id="anim-table">
          <caption>Positions at t = {fmtNum(r[0])} s (sample {k})</caption>
          <thead><tr><th scope="col">Body</th><th scope="col">x</th><th scope="col">y</th></tr></thead>
          <tbody>{bodies.map((b) => <tr data-body={b.name}><td>{b.name}</td>
            <td class="num" data-v={r[b.cx + 1]}>{fmtNum(r[b.cx + 1])}</td><td class="num" data-v={r[b.cy + 1]}>{fmtNum(r[b.cy + 1])}</td></tr>)}</tbody>
        </table>
      </figcaption>
    </figure>
  );
}
