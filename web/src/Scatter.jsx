// Scatter.jsx - a scatter plot of the selected jobs: any two numeric
// columns, coloured by a third (blue -> yellow over its range), on a canvas;
// the columns are in the URL (sx, sy, sc).  Under it, the text alternative
// (points, ranges, correlation) and the correlations and main effects of
// each parameter on each response over the selected jobs.
import { useEffect, useMemo, useRef } from 'preact/hooks';
import { columnRange } from './data.js';
import { fmtNum } from './format.js';
import { paintPoints } from './raster.js';
import { canvas2d } from './canvas.js';
import { pearson, levels, mainEffect } from './stats.js';

const W = 520, H = 360, PAD = 58;

// from #2c3e90 (blue) to #f2c500 (yellow)
function rampRgb(u) {
  const a = [44, 62, 144], b = [242, 197, 0];
  return [0, 1, 2].map((k) => Math.round(a[k] + (b[k] - a[k]) * u));
}

export function Scatter({ store, rows, sx, sy, sc, setAxes }) {
  const canvas = useRef(null);
  const numeric = store.cols.filter((c) => c.kind !== 'str');
  const jx = store.byKey.get(sx), jy = store.byKey.get(sy), jc = sc ? store.byKey.get(sc) : undefined;
  const ok = jx !== undefined && jy !== undefined;
  const rx = ok ? columnRange(store, jx) || [0, 1] : [0, 1], ry = ok ? columnRange(store, jy) || [0, 1] : [0, 1];
  const rc = jc !== undefined ? columnRange(store, jc) : null;
  // a margin of 4 % so that the extreme points are whole
  const fit = (r) => (r[0] === r[1] ? [r[0] - 0.5, r[1] + 0.5] : [r[0] - 0.04 * (r[1] - r[0]), r[1] + 0.04 * (r[1] - r[0])]);
  const [x0, x1] = fit(rx), [y0, y1] = fit(ry);
  const corr = useMemo(() => (ok ? pearson(store.data[jx], store.data[jy], rows) : { n: 0, r: NaN }), [store, rows, jx, jy]);

  useEffect(() => {
    const c = canvas.current;
    if (!c || !ok) return;
    const dpr = window.devicePixelRatio || 1;
    const g = canvas2d(c, W, H);
    g.strokeStyle = '#888'; g.strokeRect(PAD, 10, W - PAD - 10, H - PAD - 10);
    const X = store.data[jx], Y = store.data[jy], C = jc !== undefined ? store.data[jc] : null;
    const px = (v) => PAD + ((v - x0) / (x1 - x0)) * (W - PAD - 10), py = (v) => H - PAD - ((v - y0) / (y1 - y0)) * (H - PAD - 10);
    // the points into pixels directly (raster.js): 10^5 fillRect calls cost
    // far more than this loop
    const sz = (rows.length > 20000 ? 1.5 : rows.length > 2000 ? 2.5 : 4) * dpr;
    const xy = new Float64Array(2 * rows.length);
    for (let r = 0; r < rows.length; r++) { const i = rows[r]; xy[2 * r] = px(X[i]) * dpr; xy[2 * r + 1] = py(Y[i]) * dpr; }
    const blue = [31, 95, 191], grey = [170, 170, 170], span = rc && rc[1] > rc[0] ? rc[1] - rc[0] : 0;
    const colorOf = C ? (r) => { const v = C[rows[r]]; return Number.isNaN(v) || !rc ? grey : rampRgb(span ? (v - rc[0]) / span : 0.5); } : () => blue;
    paintPoints(g, c.width, c.height, rows.length, xy, sz, colorOf, rows.length > 20000 ? 0.5 : 0.85);
    g.globalAlpha = 1; g.fillStyle = '#222'; g.font = '11px system-ui, sans-serif';
    g.textAlign = 'left'; g.fillText(String(Number(x0.toPrecision(3))), PAD, H - PAD + 14);
    g.textAlign = 'right'; g.fillText(String(Number(x1.toPrecision(3))), W - 10, H - PAD + 14);
    g.textAlign = 'center'; g.fillText(store.cols[jx].name, (W + PAD) / 2, H - 12);
    const short = (v) => String(Number(v.toPrecision(3)));
    g.textAlign = 'right'; g.fillText(short(y1), PAD - 4, 20); g.fillText(short(y0), PAD - 4, H - PAD);
    g.save(); g.translate(12, (H - PAD) / 2); g.rotate(-Math.PI / 2); g.textAlign = 'center'; g.fillText(store.cols[jy].name, 0, 0); g.restore();
  }, [store, rows, jx, jy, jc]);

  const select = (id, label, value, key, allowNone) => (
    <label>{label} <select id={id} value={value || ''} onChange={(e) => setAxes({ [key]: e.currentTarget.value || null })}>
      {allowNone && <option value="">none</option>}
      {numeric.map((c) => <option value={c.key}>{c.group} {c.name}</option>)}
    </select></label>
  );
  return (
    <figure class="scatter">
      <div class="controls">{select('sx', 'x', sx, 'sx')}{select('sy', 'y', sy, 'sy')}{select('sc', 'colour', sc, 'sc', true)}</div>
      {ok && <canvas ref={canvas} id="scatter" role="img" aria-label={`Scatter plot of ${store.cols[jy].name} against ${store.cols[jx].name}, ${corr.n} jobs`} />}
      {ok && (
        <table class="list small" id="scatter-table">
          <caption>The scatter plot as numbers</caption>
          <tbody>
            <tr><th scope="row">jobs plotted</th><td class="num" data-v={corr.n}>{corr.n}</td></tr>
            <tr><th scope="row">{store.cols[jx].name} range</th><td class="num">{fmtNum(rx[0])} … {fmtNum(rx[1])}</td></tr>
            <tr><th scope="row">{store.cols[jy].name} range</th><td class="num">{fmtNum(ry[0])} … {fmtNum(ry[1])}</td></tr>
            <tr><th scope="row">correlation r</th><td class="num" data-v={corr.r}>{fmtNum(corr.r)}</td></tr>
          </tbody>
        </table>
      )}
    </figure>
  );
}

// Correlation of every parameter with every response (and the cost metrics),
// and each parameter's main effect when it has few levels.
export function Effects({ store, rows }) {
  const params = store.cols.filter((c) => (c.group === 'parameter' || c.group === 'solver') && c.kind !== 'str');
  const outs = store.cols.filter((c) => (c.group === 'response' && c.kind === 'num') || ['metric.cpu_seconds', 'metric.steps'].includes(c.key));
  const data = useMemo(() => outs.map((o) => params.map((p) => pearson(store.data[store.byKey.get(p.key)], store.data[store.byKey.get(o.key)], rows))),
    [store, rows]);
  const effects = useMemo(() => params.map((p) => {
    const xs = store.data[store.byKey.get(p.key)], lv = levels(xs, rows);
    return lv && lv.length > 1 ? { p, lv, by: outs.map((o) => mainEffect(xs, store.data[store.byKey.get(o.key)], rows, lv)) } : null;
  }).filter(Boolean), [store, rows]);
  if (!params.length || !outs.length) return null;
  return (
    <div class="effects">
      <table class="list small" id="correlations">
        <caption>Correlation (Pearson r) over the {rows.length} jobs shown</caption>
        <thead><tr><th scope="col">response</th>{params.map((p) => <th scope="col">{p.name}</th>)}</tr></thead>
        <tbody>{outs.map((o, a) => (
          <tr data-key={o.key}><th scope="row">{o.name}</th>
            {params.map((p, b) => <td class="num" data-param={p.key} data-v={data[a][b].r} style={{ background: Number.isNaN(data[a][b].r) ? '' : `rgba(${data[a][b].r > 0 ? '31,95,191' : '192,57,43'},${Math.abs(data[a][b].r) * 0.35})` }}>{fmtNum(data[a][b].r)}</td>)}
          </tr>))}</tbody>
      </table>
      {effects.map((e) => (
        <table class="list small main-effect" data-param={e.p.key}>
          <caption>Main effect of {e.p.name}: mean at each level</caption>
          <thead><tr><th scope="col">{e.p.name}</th><th scope="col">jobs</th>{outs.map((o) => <th scope="col">{o.name}</th>)}</tr></thead>
          <tbody>{e.lv.map((v, k) => (
            <tr><th scope="row">{fmtNum(v)}</th><td class="num">{e.by[0][k].n}</td>{e.by.map((m) => <td class="num" data-v={m[k].mean}>{fmtNum(m[k].mean)}</td>)}</tr>))}</tbody>
        </table>
      ))}
    </div>
  );
}
