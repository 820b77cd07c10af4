// Parcoords.jsx - parallel coordinates on a canvas (ours: no library draws
// 10^5 lines well): one vertical axis per numeric column (parameters, then
// responses, then solver metrics), every job a polyline.  Dragging along an
// axis brushes a range, which filters the table (and is kept in the URL);
// a click on an axis without dragging clears its brush.  Two canvases: all
// jobs in grey behind (drawn when the data or the size change), the selected
// jobs in colour in front (drawn when the selection changes).  The table
// under the plot is its text alternative: each axis with its range, brush
// and the number of jobs selected.
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { columnRange } from './data.js';
import { fmtNum } from './format.js';
import { density, addPolylines, paint } from './raster.js';

const H = 300, PAD_T = 28, PAD_B = 22, PAD_X = 48;
const GRAB = 16;   // px either side of an axis where a drag starts a brush

// Axis layout for a width: x of each axis and the value <-> y maps.
export function layout(store, axes, w) {
  const n = axes.length;
  const step = n > 1 ? (w - 2 * PAD_X) / (n - 1) : 0;
  return axes.map((key, a) => {
    const j = store.byKey.get(key);
    let r = columnRange(store, j) || [0, 1];
    if (r[0] === r[1]) r = [r[0] - (Math.abs(r[0]) * 0.1 || 0.5), r[1] + (Math.abs(r[1]) * 0.1 || 0.5)];
    const [lo, hi] = r;
    const top = PAD_T, bot = H - PAD_B;
    return {
      key, j, x: n > 1 ? PAD_X + a * step : w / 2, lo, hi, top, bot,
      y: (v) => bot - ((v - lo) / (hi - lo)) * (bot - top),
      v: (y) => lo + ((bot - Math.min(bot, Math.max(top, y))) / (bot - top)) * (hi - lo),
    };
  });
}

// Up to this many jobs the lines are canvas paths (antialiased, each line
// visible); more are drawn as a density (raster.js): 10^5 paths took seconds.
const PATHS_MAX = 3000;

function drawLines(ctx, store, ax, rows, count, rgb) {
  const cols = ax.map((a) => store.data[a.j]);
  if (count > PATHS_MAX) {
    // a density at half the canvas's resolution (drawn scaled up)
    const sc = 0.5 * (window.devicePixelRatio || 1);   // CSS pixels -> density pixels
    const d = density(Math.ceil(ctx.canvas.width * 0.5), Math.ceil(ctx.canvas.height * 0.5));
    const xs = ax.map((a) => a.x * sc), k = ax.map((a) => ((a.bot - a.top) / (a.hi - a.lo)) * sc);
    const bots = ax.map((a) => a.bot * sc), los = ax.map((a) => a.lo);
    addPolylines(d, xs, count, rows ? (a, r) => bots[a] - (cols[a][rows[r]] - los[a]) * k[a] : (a, r) => bots[a] - (cols[a][r] - los[a]) * k[a]);
    paint(ctx, d, rgb);
    return;
  }
  ctx.strokeStyle = `rgba(${rgb.join(',')},${alphaFor(count)})`;
  ctx.beginPath();
  for (let r = 0; r < count; r++) {
    const i = rows ? rows[r] : r;
    let pen = false;
    for (let a = 0; a < ax.length; a++) {
      const v = cols[a][i];
      if (Number.isNaN(v)) { pen = false; continue; }
      const y = ax[a].y(v);
      if (pen) ctx.lineTo(ax[a].x, y); else ctx.moveTo(ax[a].x, y);
      pen = true;
    }
  }
  ctx.stroke();
}

function alphaFor(n) { return Math.max(0.01, Math.min(0.6, 5 / Math.sqrt(n + 1))); }

function setup(canvas, w) {
  const dpr = window.devicePixelRatio || 1;
  canvas.width = Math.round(w * dpr); canvas.height = Math.round(H * dpr);
  canvas.style.width = `${w}px`; canvas.style.height = `${H}px`;
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  return ctx;
}

export function Parcoords({ store, axes, rows, brushes, onBrush }) {
  // a brush typed in the table (the keyboard's way to brush): end e of axis
  // a's brush b set to text; both ends empty clear it, one empty is the
  // axis's end; the ends in either order
  const setEnd = (a, b, e, text) => {
    const r = b ? [...b] : [a.lo, a.hi];
    r[e] = text.trim() === '' ? (e ? a.hi : a.lo) : Number(text);
    if (!Number.isFinite(r[e])) return;
    if (text.trim() === '' && !b) return;
    if (text.trim() === '' && r[0] === a.lo && r[1] === a.hi) { onBrush(a.key, null); return; }
    onBrush(a.key, [Math.min(r[0], r[1]), Math.max(r[0], r[1])]);
  };
  const wrap = useRef(null), back = useRef(null), front = useRef(null);
  const [w, setW] = useState(0);
  const [drag, setDrag] = useState(null);   // {key, y0, y1}
  useLayoutEffect(() => {
    const el = wrap.current;
    // the width at once (a frame sooner than the observer's first call)
    setW(Math.max(320, Math.floor(el.clientWidth)));
    const ro = new ResizeObserver(() => setW(Math.max(320, Math.floor(el.clientWidth))));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  const ax = w ? layout(store, axes, w) : [];

  // background: every job in grey, only once some are filtered out (with all
  // of them selected the foreground covers it)
  const some = rows.length < store.n;
  useEffect(() => {
    if (!w || !back.current) return;
    const ctx = setup(back.current, w);
    ctx.clearRect(0, 0, w, H);
    ctx.lineWidth = 1;
    if (some) drawLines(ctx, store, ax, null, store.n, [170, 170, 170]);
  }, [store, axes.join('|'), w, some]);

  // foreground: the selected jobs, brushes, axes on top
  useEffect(() => {
    if (!w || !front.current) return;
    const ctx = setup(front.current, w);
    ctx.clearRect(0, 0, w, H);
    ctx.lineWidth = 1;
    drawLines(ctx, store, ax, rows, rows.length, [31, 95, 191]);
    ctx.font = '11px system-ui, sans-serif';
    ctx.textAlign = 'center';
    // a text centred on its axis, moved inwards where it would leave the
    // canvas (the first and last axes' names); its extent kept for the test
    const spans = [];
    const label = (t, x, y) => {
      const half = ctx.measureText(t).width / 2, cx = Math.min(Math.max(x, half + 1), w - half - 1);
      ctx.fillText(t, cx, y);
      spans.push([cx - half, cx + half]);
    };
    for (const a of ax) {
      ctx.strokeStyle = '#222'; ctx.lineWidth = 1;
      ctx.beginPath(); ctx.moveTo(a.x, a.top); ctx.lineTo(a.x, a.bot); ctx.stroke();
      const c = store.cols[a.j];
      ctx.fillStyle = '#222';
      label(c.name.length > 16 ? `${c.name.slice(0, 15)}…` : c.name, a.x, 12);
      ctx.fillStyle = '#555';
      label(fmtNum(a.hi), a.x, a.top - 4);
      label(fmtNum(a.lo), a.x, a.bot + 14);
      const b = drag && drag.key === a.key ? [a.v(Math.max(drag.y0, drag.y1)), a.v(Math.min(drag.y0, drag.y1))]
        : brushes.get(a.key);
      if (b) {
        const y0 = a.y(b[1]), y1 = a.y(b[0]);
        ctx.fillStyle = 'rgba(255,170,0,0.25)'; ctx.strokeStyle = '#c77800';
        ctx.fillRect(a.x - 8, y0, 16, Math.max(1, y1 - y0)); ctx.strokeRect(a.x - 8, y0, 16, Math.max(1, y1 - y0));
      }
    }
    front.current.dataset.labels = JSON.stringify(spans.map(([a, b]) => [Math.round(a * 10) / 10, Math.round(b * 10) / 10]));
    front.current.dataset.width = String(w);
  }, [store, axes.join('|'), w, rows, brushes, drag]);

  const pos = (e) => { const r = front.current.getBoundingClientRect(); return [e.clientX - r.left, e.clientY - r.top]; };
  const onDown = (e) => {
    const [x, y] = pos(e);
    let best = null;
    for (const a of ax) if (Math.abs(a.x - x) <= GRAB && (!best || Math.abs(a.x - x) < Math.abs(best.x - x))) best = a;
    if (!best) return;
    front.current.setPointerCapture(e.pointerId);
    setDrag({ key: best.key, y0: y, y1: y });
    e.preventDefault();
  };
  const onMove = (e) => { if (drag) { const [, y] = pos(e); setDrag({ ...drag, y1: y }); } };
  const onUp = (e) => {
    if (!drag) return;
    const [, y] = pos(e);
    const a = ax.find((q) => q.key === drag.key);
    setDrag(null);
    if (Math.abs(y - drag.y0) < 3) onBrush(drag.key, null);
    else onBrush(drag.key, [a.v(Math.max(drag.y0, y)), a.v(Math.min(drag.y0, y))]);
  };

  // the text alternative: per axis, the range, the brush, the jobs selected
  return (
    <figure class="parcoords">
      <div class="pc-canvas" ref={wrap} style={{ height: `${H}px` }}>
        <canvas ref={back} aria-hidden="true" />
        <canvas ref={front} id="parcoords" role="img"
          aria-label={`Parallel coordinates of ${rows.length} selected jobs over ${axes.length} axes; drag along an axis to brush`}
          onPointerDown={onDown} onPointerMove={onMove} onPointerUp={onUp} onPointerCancel={() => setDrag(null)} />
      </div>
      <figcaption>
        <details>
          <summary>Axes and brushes as a table (brushes typed here too)</summary>
          <table class="list small" id="parcoords-table">
            <thead><tr><th scope="col">Axis</th><th scope="col">Group</th><th scope="col">Min</th><th scope="col">Max</th>
              <th scope="col">Brush from</th><th scope="col">Brush to</th><th scope="col">x (px)</th></tr></thead>
            <tbody>
              {ax.map((a) => {
                const c = store.cols[a.j], b = brushes.get(a.key);
                return (
                  <tr data-key={a.key}>
                    <td>{c.name}</td><td>{c.group}</td><td class="num">{fmtNum(a.lo)}</td><td class="num">{fmtNum(a.hi)}</td>
                    {[0, 1].map((e) => <td class="num"><input type="number" step="any" class="brush" data-end={e}
                      aria-label={`Brush of ${c.name} ${e ? 'to' : 'from'}`} value={b ? String(b[e]) : ''}
                      onChange={(ev) => setEnd(a, b, e, ev.currentTarget.value)} /></td>)}
                    <td class="num" data-x={a.x} data-top={a.top} data-bot={a.bot}>{Math.round(a.x)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </details>
      </figcaption>
    </figure>
  );
}
