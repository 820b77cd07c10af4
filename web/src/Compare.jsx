// Compare.jsx - view 5: paired runs across models, for one solver option at
// a time (contact_deactivation, the default; formulation; integrator).
// Every model with paired runs (same sweep, same parameters, the option at
// its two values; GET /api/v1/compare?option=...) side by side: the speed-up as a box
// (quartiles, median, whiskers to min and max) with every pair as a dot, on
// a log axis; the median speed-up against the contact pairs each model
// declares; and a table with the speed-up, declared pairs, wall time, system
// dimension, active contacts, steps and Newton iterations both ways and the
// largest output difference; sort, CSV.  State in the URL:
// /compare?option=O&sort=KEY&desc=1&all=1 (all: models without pairs too).
// Columns "on" / "off" of contact deactivation are the API's other / base
// sides; for the other options their keys end in _other / _base.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { apiGet } from './api.js';
import { setQuery } from './router.jsx';
import { fmtNum } from './format.js';
import { canvas2d } from './canvas.js';

const BATCH = 20;   // models per request (the API's limit)

// The options and how their sides are named: [base, other] labels and the
// suffixes of the column keys (contact deactivation keeps its on / off).
const OPTIONS = {
  contact_deactivation: { title: 'Contact deactivation', labels: ['off', 'on'], keys: ['off', 'on'], file: 'contact-deactivation' },
  formulation: { title: 'Formulations', labels: ['natural', 'relative'], keys: ['base', 'other'], file: 'formulations' },
  integrator: { title: 'Integrators', labels: ['bdf', 'dopri5'], keys: ['base', 'other'], file: 'integrators' },
};

// Metrics shown both ways: key stem, label stem, the API's mean_* field.
const BOTH = [
  ['wall', 'Wall s', 'mean_wall_seconds'], ['dim', 'System dim.', 'mean_system_dimension'],
  ['act', 'Active contacts', 'mean_active_contacts'], ['steps', 'Steps', 'mean_steps'],
  ['newton', 'Newton it.', 'mean_newton_iterations'],
];

// The table's columns for one option (o: an OPTIONS entry).
function columns(o) {
  const [kb, ko] = o.keys, [lb, lo] = o.labels;
  return [
    ...HEAD,
    ...BOTH.flatMap(([k, label, f]) => [
      { key: `${k}_${ko}`, label: `${label} ${lo}`, get: (m) => m[f] && m[f].other },
      { key: `${k}_${kb}`, label: `${label} ${lb}`, get: (m) => m[f] && m[f].base },
    ]),
    { key: 'diff', label: 'Largest output difference', get: (m) => m.max_output_difference && m.max_output_difference.value },
  ];
}

const HEAD = [
  { key: 'name', label: 'Model', get: (m) => m.name, text: true },
  { key: 'pairs', label: 'Pairs', get: (m) => m.pairs },
  { key: 'declared', label: 'Declared contact pairs', get: (m) => m.declared_pairs },
  { key: 'median', label: 'Speed-up median', get: (m) => m.speedup && m.speedup.median },
  { key: 'q1', label: 'q1', get: (m) => m.speedup && m.speedup.q1 },
  { key: 'q3', label: 'q3', get: (m) => m.speedup && m.speedup.q3 },
  { key: 'min', label: 'min', get: (m) => m.speedup && m.speedup.min },
  { key: 'max', label: 'max', get: (m) => m.speedup && m.speedup.max },
];

function csv(rows, COLS) {
  const f = (v) => (v === null || v === undefined ? '' : /[",\n]/.test(String(v)) ? `"${String(v).replace(/"/g, '""')}"` : String(v));
  return [['model_id', ...COLS.map((c) => c.key)].join(','),
    ...rows.map((m) => [m.model, ...COLS.map((c) => c.get(m))].map(f).join(','))].join('\n') + '\n';
}

function Boxes({ rows, title }) {
  const ref = useRef(null);
  const W = 760, ROW = 26, PADL = 180, PADR = 20, H = Math.max(60, rows.length * ROW + 40);
  const vals = rows.flatMap((m) => [m.speedup.min, m.speedup.max]).filter((v) => v > 0);
  const lo = Math.min(0.5, ...vals), hi = Math.max(2, ...vals);
  const X = (v) => PADL + ((Math.log(v) - Math.log(lo)) / (Math.log(hi) - Math.log(lo))) * (W - PADL - PADR);
  useEffect(() => {
    const c = ref.current;
    if (!c) return;
    const g = canvas2d(c, W, H);
    g.font = '12px system-ui, sans-serif';
    // speed-up 1: no gain
    g.strokeStyle = '#c0392b'; g.setLineDash([4, 3]);
    g.beginPath(); g.moveTo(X(1), 10); g.lineTo(X(1), H - 28); g.stroke(); g.setLineDash([]);
    rows.forEach((m, k) => {
      const y = 20 + k * ROW, s = m.speedup;
      g.fillStyle = '#222'; g.textAlign = 'right'; g.fillText(m.name.length > 24 ? `${m.name.slice(0, 23)}…` : m.name, PADL - 8, y + 4);
      g.strokeStyle = '#555';
      g.beginPath(); g.moveTo(X(s.min), y); g.lineTo(X(s.max), y); g.stroke();
      g.fillStyle = 'rgba(31,95,191,0.35)'; g.fillRect(X(s.q1), y - 8, Math.max(1, X(s.q3) - X(s.q1)), 16);
      g.strokeRect(X(s.q1), y - 8, Math.max(1, X(s.q3) - X(s.q1)), 16);
      g.strokeStyle = '#1f5fbf'; g.lineWidth = 2; g.beginPath(); g.moveTo(X(s.median), y - 9); g.lineTo(X(s.median), y + 9); g.stroke(); g.lineWidth = 1;
      // every pair as a dot, spread vertically by a fixed jitter
      g.fillStyle = 'rgba(20,20,20,0.55)';
      (m.speedups || []).forEach((v, i) => {
        if (!(v > 0)) return;
        g.beginPath(); g.arc(X(v), y + ((i * 7919) % 15) - 7, 2, 0, 2 * Math.PI); g.fill();
      });
    });
    g.fillStyle = '#555'; g.textAlign = 'center';
    for (const t of [0.5, 1, 2, 5, 10, 20, 50, 100]) if (t >= lo && t <= hi) g.fillText(`${t}×`, X(t), H - 10);
  }, [rows]);
  const dots = rows.reduce((n, m) => n + (m.speedups || []).filter((v) => v > 0).length, 0);
  return <canvas ref={ref} id="compare-boxes" data-dots={dots} role="img" aria-label={`Speed-up (${title}) per model: quartiles, median and range on a log axis; the table below has the numbers`} />;
}

// The speed-up (median, and q1 to q3 as a bar) against the number of
// contact pairs the model declares, both axes logarithmic; one point per
// model, labelled.  Its numbers are the table's (declared, q1, median, q3).
function VsPairs({ rows }) {
  const ref = useRef(null);
  const pts = rows.filter((m) => m.declared_pairs > 0 && m.speedup && m.speedup.median > 0);
  const W = 760, H = 260, PADL = 56, PADR = 20, PADT = 14, PADB = 40;
  useEffect(() => {
    const c = ref.current;
    if (!c) return;
    const g = canvas2d(c, W, H);
    g.font = '12px system-ui, sans-serif';
    const xs = pts.map((m) => m.declared_pairs), ys = pts.flatMap((m) => [m.speedup.q1, m.speedup.q3]).filter((v) => v > 0);
    const x0 = Math.min(1, ...xs) / 1.6, x1 = Math.max(10, ...xs) * 1.6, y0 = Math.min(0.5, ...ys), y1 = Math.max(2, ...ys);
    const X = (v) => PADL + ((Math.log(v) - Math.log(x0)) / (Math.log(x1) - Math.log(x0))) * (W - PADL - PADR);
    const Y = (v) => H - PADB - ((Math.log(v) - Math.log(y0)) / (Math.log(y1) - Math.log(y0))) * (H - PADT - PADB);
    g.strokeStyle = '#888'; g.strokeRect(PADL, PADT, W - PADL - PADR, H - PADT - PADB);
    g.strokeStyle = '#c0392b'; g.setLineDash([4, 3]);
    g.beginPath(); g.moveTo(PADL, Y(1)); g.lineTo(W - PADR, Y(1)); g.stroke(); g.setLineDash([]);
    g.fillStyle = '#555'; g.textAlign = 'center';
    for (let t = 1; t <= x1; t *= 10) if (t >= x0) g.fillText(String(t), X(t), H - PADB + 16);
    g.fillText('contact pairs declared (log)', (PADL + W - PADR) / 2, H - 6);
    g.textAlign = 'right';
    for (const t of [0.5, 1, 2, 5, 10, 20, 50, 100]) if (t >= y0 && t <= y1) g.fillText(`${t}×`, PADL - 6, Y(t) + 4);
    pts.forEach((m) => {
      const x = X(m.declared_pairs), s = m.speedup;
      g.strokeStyle = '#1f5fbf'; g.lineWidth = 3;
      g.beginPath(); g.moveTo(x, Y(s.q1)); g.lineTo(x, Y(s.q3)); g.stroke(); g.lineWidth = 1;
      g.fillStyle = '#1f5fbf'; g.beginPath(); g.arc(x, Y(s.median), 4, 0, 2 * Math.PI); g.fill();
      g.fillStyle = '#222'; g.textAlign = 'left';
      g.fillText(m.name.length > 20 ? `${m.name.slice(0, 19)}…` : m.name, x + 6, Y(s.median) - 5);
    });
  }, [rows]);
  return <canvas ref={ref} id="compare-vs-pairs" data-points={pts.length} role="img"
    aria-label="Median speed-up (bar: quartiles) against the number of contact pairs each model declares, both on log axes; the table below has the numbers (Declared contact pairs, q1, median, q3)" />;
}

export function Compare({ query }) {
  const [data, setData] = useState(null);     // { option, models }: a list is shown for its option only
  const [error, setError] = useState(null);
  const option = OPTIONS[query.get('option')] ? query.get('option') : 'contact_deactivation';
  const o = OPTIONS[option];
  const models = data && data.option === option ? data.models : null;
  const COLS = useMemo(() => columns(o), [option]);
  const sort = COLS.some((c) => c.key === query.get('sort')) ? query.get('sort') : 'median';
  const desc = query.get('desc') === '1' || (!query.get('sort'));
  const all = query.get('all') === '1';
  useEffect(() => {
    const ctl = new AbortController();
    setError(null);
    (async () => {
      try {
        const list = (await apiGet('/api/v1/models?limit=1000', ctl.signal)).items;
        const names = new Map(list.map((m) => [m.id, m.name]));
        const out = [];
        for (let i = 0; i < list.length && i < 1000; i += BATCH) {
          const q = list.slice(i, i + BATCH).map((m) => `model=${encodeURIComponent(m.id)}`).join('&');
          const r = await apiGet(`/api/v1/compare?option=${option}&${q}&speedups=1`, ctl.signal);
          for (const m of r.models) out.push({ ...m, name: names.get(m.model) || m.model });
        }
        setData({ option, models: out });
      } catch (e) { if (e.name !== 'AbortError') setError(e.message); }
    })();
    return () => ctl.abort();
  }, [option]);
  const rows = useMemo(() => {
    if (!models) return [];
    const col = COLS.find((c) => c.key === sort);
    const r = models.filter((m) => all || m.pairs > 0);
    const v = (m) => { const x = col.get(m); return x === null || x === undefined ? null : x; };
    r.sort((a, b) => {
      const x = v(a), y = v(b);
      if (x === y) return a.name < b.name ? -1 : 1;
      if (x === null) return 1;
      if (y === null) return -1;
      return (x < y ? -1 : 1) * (desc ? -1 : 1);
    });
    return r;
  }, [models, sort, desc, all, COLS]);
  const download = () => {
    const url = URL.createObjectURL(new Blob([csv(rows, COLS)], { type: 'text/csv' }));
    const a = document.createElement('a');
    a.href = url; a.download = `${o.file}.csv`; document.body.appendChild(a); a.click(); a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  };
  const select = (
    <label>Compare <select id="compare-option" value={option}
      onChange={(e) => setQuery({ option: e.currentTarget.value === 'contact_deactivation' ? null : e.currentTarget.value, sort: null, desc: null })}>
      {Object.entries(OPTIONS).map(([k, v]) => <option value={k}>{v.title} ({v.labels[1]} vs {v.labels[0]})</option>)}
    </select></label>);
  if (error) return <main><h1>{o.title}</h1>{select}<p class="error" role="alert">{error}</p></main>;
  if (!models) return <main><h1>{o.title}</h1>{select}<p>Loading…</p></main>;
  const withPairs = rows.filter((m) => m.speedup);
  return (
    <main class="wide">
      <h1>{o.title} across models</h1>
      <p>Speed-up = wall time {o.labels[0]} / {o.labels[1]}, over the pairs of done jobs of a sweep that differ only in
        <code>{option}</code> (a sweep with <code>"solver": {'{'}"{option}": [{option === 'contact_deactivation' ? 'true, false'
          : `"${o.labels[0]}", "${o.labels[1]}"`}]{'}'}</code>).</p>
      <div class="controls">
        {select}
        <label class="check"><input type="checkbox" id="compare-all" checked={all} onChange={(e) => setQuery({ all: e.currentTarget.checked ? 1 : null })} />
          models without pairs too</label>
        <p id="compare-count">{withPairs.length} models with pairs</p>
        <button type="button" id="compare-csv" onClick={download}>CSV of this table</button>
      </div>
      {withPairs.length > 0 && <Boxes rows={withPairs} title={o.title} />}
      {withPairs.length > 0 && <VsPairs rows={withPairs} />}
      <div class="scroll-x">
        <table class="list" id="compare-table">
          <thead><tr>{COLS.map((c) => (
            <th scope="col" aria-sort={c.key === sort ? (desc ? 'descending' : 'ascending') : 'none'}>
              <button type="button" class="sort" data-sort={c.key}
                onClick={() => setQuery({ sort: c.key, desc: c.key === sort && !desc ? 1 : null })}>
                {c.label}{c.key === sort ? (desc ? ' ▼' : ' ▲') : ''}</button></th>))}</tr></thead>
          <tbody>{rows.map((m) => (
            <tr data-model={m.model}>{COLS.map((c) => {
              const v = c.get(m);
              return c.text ? <td>{v}</td> : <td class="num" data-col={c.key} data-v={v === null || v === undefined ? '' : v}>{fmtNum(v)}</td>;
            })}</tr>))}</tbody>
        </table>
      </div>
    </main>
  );
}
