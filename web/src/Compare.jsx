// Compare.jsx - view 5: paired runs across models, for one solver option at
// a time (contact_deactivation, the default; formulation; integrator).
// Every model with paired runs (same sweep, same parameters, the option at
// its two values; GET /api/v1/compare?option=...) side by side: the speed-up
// (by CPU time, the API's timing.basis) as a box (quartiles, median, whiskers
// to min and max) with every pair as a dot, on a log axis; the median
// speed-up against the contact pairs each model declares; and a table with
// the speed-up, whether its timing means anything (the API's timing.verdict:
// nothing to deactivate, too short to time, no clear difference, measured),
// declared pairs, CPU time, system dimension, active contacts, steps and
// Newton iterations both ways and the largest output difference; sort, CSV
// (every column, wall times and wall speed-ups too).  A model that declares
// no contact pair shows no speed-up of contact deactivation; an
// inconclusive one is shown in grey.  The table fits 1400 px (two header
// rows, short numbers) and scrolls sideways past that with the model's name
// kept in view.  State in the URL:
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

// What each timing verdict of the API (timing.verdict) is called here.
const VERDICTS = {
  measured: 'measured',
  nothing_to_deactivate: 'nothing to deactivate',
  too_short: 'too short to time',
  no_clear_difference: 'no clear difference',
};
const verdict = (m) => (m.timing ? m.timing.verdict : null);
// The speed-up the view shows: by CPU time where every pair has it (the
// API's timing.basis), else by wall time; none when there is nothing to
// deactivate (the model declares no contact pair: any "speed-up" is noise).
function speedupOf(m) {
  if (verdict(m) === 'nothing_to_deactivate') return null;
  return (m.timing && m.timing.basis === 'cpu_seconds' ? m.speedup_cpu : m.speedup) || null;
}
const pairsOf = (m) => (m.timing && m.timing.basis === 'cpu_seconds' ? m.speedups_cpu : m.speedups) || [];
const sp = (k) => (m) => { const s = speedupOf(m); return s ? s[k] : null; };

// Metrics shown both ways: key stem, group label, the API's mean_* field,
// the scale of the table's figures (seconds shown as ms; the CSV and data-v
// keep seconds), whether the table shows it (else the CSV only).
const BOTH = [
  ['cpu', 'CPU ms', 'mean_cpu_seconds', 1e3, true], ['wall', 'Wall ms', 'mean_wall_seconds', 1e3, false],
  ['dim', 'System dim.', 'mean_system_dimension', 1, true], ['act', 'Active contacts', 'mean_active_contacts', 1, true],
  ['steps', 'Steps', 'mean_steps', 1, true], ['newton', 'Newton it.', 'mean_newton_iterations', 1, true],
];

// The columns for one option (o: an OPTIONS entry): key, label, group (the
// header's upper row), value, text (not a number), csv (CSV only), scale.
function columns(o) {
  const [kb, ko] = o.keys, [lb, lo] = o.labels;
  return [
    ...HEAD,
    ...BOTH.flatMap(([k, label, f, scale, table]) => [
      { key: `${k}_${ko}`, label: lo, group: label, scale, csv: !table, get: (m) => m[f] && m[f].other },
      { key: `${k}_${kb}`, label: lb, group: label, scale, csv: !table, get: (m) => m[f] && m[f].base },
    ]),
    { key: 'diff', label: 'Largest output difference', get: (m) => m.max_output_difference && m.max_output_difference.value },
    { key: 'basis', label: 'timed by', csv: true, text: true, get: (m) => (m.timing ? m.timing.basis : null) },
    ...['median', 'q1', 'q3', 'min', 'max'].map((k) => ({ key: `wall_${k}`, label: `wall ${k}`, csv: true, get: (m) => m.speedup && m.speedup[k] })),
  ];
}

const HEAD = [
  { key: 'name', label: 'Model', get: (m) => m.name, text: true },
  { key: 'pairs', label: 'Pairs', get: (m) => m.pairs },
  { key: 'declared', label: 'Declared contact pairs', get: (m) => m.declared_pairs },
  { key: 'median', label: 'median', group: 'Speed-up', get: sp('median') },
  { key: 'q1', label: 'q1', group: 'Speed-up', get: sp('q1') },
  { key: 'q3', label: 'q3', group: 'Speed-up', get: sp('q3') },
  { key: 'min', label: 'min', group: 'Speed-up', get: sp('min') },
  { key: 'max', label: 'max', group: 'Speed-up', get: sp('max') },
  { key: 'timing', label: 'Timing', text: true, get: (m) => verdict(m) },
];

// Numbers in the table: 4 significant digits (the CSV and data-v keep all).
function fmtShort(v) {
  if (v === null || v === undefined || Number.isNaN(v)) return '';
  if (Number.isInteger(v) || Math.abs(v) >= 1e4) return fmtNum(Math.round(v * 10) / 10);
  const a = Math.abs(v);
  if (a !== 0 && a < 1e-3) return v.toExponential(2);
  return String(Number(v.toPrecision(4)));
}

function csv(rows, COLS) {
  const f = (v) => (v === null || v === undefined ? '' : /[",\n]/.test(String(v)) ? `"${String(v).replace(/"/g, '""')}"` : String(v));
  return [['model_id', ...COLS.map((c) => c.key)].join(','),
    ...rows.map((m) => [m.model, ...COLS.map((c) => c.get(m))].map(f).join(','))].join('\n') + '\n';
}

// A flagged speed-up (too short to time, no clear difference) is drawn in
// grey: shown, not to be read as a gain.
const flagged = (m) => verdict(m) === 'too_short' || verdict(m) === 'no_clear_difference';

function Boxes({ rows, title }) {
  const ref = useRef(null);
  const W = 760, ROW = 26, PADL = 180, PADR = 20, H = Math.max(60, rows.length * ROW + 40);
  const vals = rows.flatMap((m) => [speedupOf(m).min, speedupOf(m).max]).filter((v) => v > 0);
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
      const y = 20 + k * ROW, s = speedupOf(m), grey = flagged(m);
      const name = m.name.length > 24 ? `${m.name.slice(0, 23)}…` : m.name;
      g.fillStyle = grey ? '#888' : '#222'; g.textAlign = 'right';
      g.fillText(name, PADL - 8, y + 4);
      // an inconclusive one says why, right of its whisker
      if (grey) { g.textAlign = 'left'; g.fillText(VERDICTS[verdict(m)], Math.min(X(s.max) + 8, W - 130), y + 4); }
      g.strokeStyle = grey ? '#aaa' : '#555';
      g.beginPath(); g.moveTo(X(s.min), y); g.lineTo(X(s.max), y); g.stroke();
      g.fillStyle = grey ? 'rgba(150,150,150,0.3)' : 'rgba(31,95,191,0.35)';
      g.fillRect(X(s.q1), y - 8, Math.max(1, X(s.q3) - X(s.q1)), 16);
      g.strokeRect(X(s.q1), y - 8, Math.max(1, X(s.q3) - X(s.q1)), 16);
      g.strokeStyle = grey ? '#777' : '#1f5fbf'; g.lineWidth = 2;
      g.beginPath(); g.moveTo(X(s.median), y - 9); g.lineTo(X(s.median), y + 9); g.stroke(); g.lineWidth = 1;
      // every pair as a dot, spread vertically by a fixed jitter
      g.fillStyle = grey ? 'rgba(120,120,120,0.55)' : 'rgba(20,20,20,0.55)';
      pairsOf(m).forEach((v, i) => {
        if (!(v > 0)) return;
        g.beginPath(); g.arc(X(v), y + ((i * 7919) % 15) - 7, 2, 0, 2 * Math.PI); g.fill();
      });
    });
    g.fillStyle = '#555'; g.textAlign = 'center';
    for (const t of [0.5, 1, 2, 5, 10, 20, 50, 100]) if (t >= lo && t <= hi) g.fillText(`${t}×`, X(t), H - 10);
  }, [rows]);
  const dots = rows.reduce((n, m) => n + pairsOf(m).filter((v) => v > 0).length, 0);
  return <canvas ref={ref} id="compare-boxes" data-dots={dots} role="img" aria-label={`Speed-up (${title}) per model: quartiles, median and range on a log axis, grey where the timing is not conclusive; the table below has the numbers`} />;
}

// The speed-up (median, and q1 to q3 as a bar) against the number of
// contact pairs the model declares, both axes logarithmic; one point per
// model, labelled.  Its numbers are the table's (declared, q1, median, q3).
function VsPairs({ rows }) {
  const ref = useRef(null);
  const pts = rows.filter((m) => m.declared_pairs > 0 && speedupOf(m) && speedupOf(m).median > 0);
  const W = 760, H = 260, PADL = 56, PADR = 20, PADT = 14, PADB = 40;
  useEffect(() => {
    const c = ref.current;
    if (!c) return;
    const g = canvas2d(c, W, H);
    g.font = '12px system-ui, sans-serif';
    const xs = pts.map((m) => m.declared_pairs), ys = pts.flatMap((m) => [speedupOf(m).q1, speedupOf(m).q3]).filter((v) => v > 0);
    // room above and below the extreme quartiles, so no point sits on the frame
    const x0 = Math.min(1, ...xs) / 1.6, x1 = Math.max(10, ...xs) * 1.6, y0 = Math.min(0.5, ...ys) / 1.25, y1 = Math.max(2, ...ys) * 1.25;
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
    // labels: right of the point, or left of it where they would leave the
    // frame; one below the other where two would overlap
    const placed = [];
    pts.forEach((m) => {
      const x = X(m.declared_pairs), s = speedupOf(m), col = flagged(m) ? '#999' : '#1f5fbf';
      g.strokeStyle = col; g.lineWidth = 3;
      g.beginPath(); g.moveTo(x, Y(s.q1)); g.lineTo(x, Y(s.q3)); g.stroke(); g.lineWidth = 1;
      g.fillStyle = col; g.beginPath(); g.arc(x, Y(s.median), 4, 0, 2 * Math.PI); g.fill();
      const name = m.name.length > 20 ? `${m.name.slice(0, 19)}…` : m.name;
      const text = flagged(m) ? `${name} (${VERDICTS[verdict(m)]})` : name, w = g.measureText(text).width;
      const left = x + 6 + w > W - PADR ? x - 6 - w : x + 6;
      let y = Y(s.median) - 5;
      while (placed.some((p) => Math.abs(p.y - y) < 13 && left < p.x + p.w && p.x < left + w)) y += 13;
      placed.push({ x: left, y, w });
      g.fillStyle = flagged(m) ? '#888' : '#222'; g.textAlign = 'left';
      g.fillText(text, left, y);
    });
  }, [rows]);
  return <canvas ref={ref} id="compare-vs-pairs" data-points={pts.length} role="img"
    aria-label="Median speed-up (bar: quartiles) against the number of contact pairs each model declares, both on log axes, grey where the timing is not conclusive; the table below has the numbers (Declared contact pairs, q1, median, q3)" />;
}

// The table's two header rows: a column with a group sits under the
// group's name (upper row), one without spans both rows.  Every column's
// own header is a sort button.
function Header({ cols, sort, desc }) {
  const th = (c, rowspan) => (
    <th scope="col" rowspan={rowspan > 1 ? rowspan : undefined} class={c.key === 'name' ? 'sticky' : c.group ? 'sub' : ''}
      aria-sort={c.key === sort ? (desc ? 'descending' : 'ascending') : 'none'}>
      <button type="button" class="sort" data-sort={c.key} aria-label={c.group ? `${c.group} ${c.label}` : undefined}
        onClick={() => setQuery({ sort: c.key, desc: c.key === sort && !desc ? 1 : null })}>
        {c.label}{c.key === sort ? (desc ? ' ▼' : ' ▲') : ''}</button></th>);
  // the upper row: a group's name over its columns, or a column of its own
  const top = [];
  cols.forEach((c) => {
    const last = top[top.length - 1];
    if (c.group && last && last.group === c.group) last.span++;
    else top.push(c.group ? { group: c.group, span: 1 } : { col: c });
  });
  return (
    <thead>
      <tr>{top.map((t) => (t.group ? <th scope="colgroup" colspan={t.span} class="group">{t.group}</th> : th(t.col, 2)))}</tr>
      <tr>{cols.filter((c) => c.group).map((c) => th(c, 1))}</tr>
    </thead>);
}

// One cell of the table; a model's verdict under "Timing" with its reason
// (the API's timing.reason) as the cell's description.
function Cell({ c, m }) {
  const v = c.get(m);
  if (c.key === 'name') return <th scope="row" class="sticky">{v}</th>;
  if (c.key === 'timing')
    return <td class={`verdict ${v || ''}`} data-col="timing" data-v={v || ''} title={m.timing ? m.timing.reason : ''}>
      {v ? VERDICTS[v] || v : ''}</td>;
  const grey = c.group === 'Speed-up' && flagged(m);
  return <td class={grey ? 'num flagged' : 'num'} data-col={c.key} data-v={v === null || v === undefined ? '' : v}>
    {fmtShort(v === null || v === undefined ? v : v * (c.scale || 1))}</td>;
}

export function Compare({ query }) {
  const [data, setData] = useState(null);     // { option, models }: a list is shown for its option only
  const [error, setError] = useState(null);
  const option = OPTIONS[query.get('option')] ? query.get('option') : 'contact_deactivation';
  const o = OPTIONS[option];
  const models = data && data.option === option ? data.models : null;
  const COLS = useMemo(() => columns(o), [option]);
  const TABLE = useMemo(() => COLS.filter((c) => !c.csv), [COLS]);
  const sort = TABLE.some((c) => c.key === query.get('sort')) ? query.get('sort') : 'median';
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
  // one layout while loading, after an error and with the data, so that the
  // option's select keeps the focus when the option changes (by keyboard)
  const withPairs = rows.filter((m) => m.pairs > 0);
  const drawn = withPairs.filter((m) => speedupOf(m));
  const min = models && models.find((m) => m.timing);
  return (
    <main class="wide">
      <h1>{o.title} across models</h1>
      <p>Speed-up = CPU time {o.labels[0]} / {o.labels[1]} (wall time where the runs lack CPU time), over the pairs of done jobs of a sweep that differ only in
        <code>{option}</code> (a sweep with <code>"solver": {'{'}"{option}": [{option === 'contact_deactivation' ? 'true, false'
          : `"${o.labels[0]}", "${o.labels[1]}"`}]{'}'}</code>).
        {' '}<strong>Timing</strong> says whether it means anything:
        {option === 'contact_deactivation' && <> <em>nothing to deactivate</em> (the model declares no contact pair),</>}
        {' '}<em>too short to time</em> (runs under {min ? fmtShort(min.timing.min_seconds * 1e3) : 5} ms), <em>no clear
        difference</em> (the quartiles straddle 1, or the median is within {min ? fmtShort(min.timing.noise * 100) : 5} % of 1), or <em>measured</em>.</p>
      <div class="controls">
        {select}
        <label class="check"><input type="checkbox" id="compare-all" checked={all} onChange={(e) => setQuery({ all: e.currentTarget.checked ? 1 : null })} />
          models without pairs too</label>
        {models && <p id="compare-count">{withPairs.length} models with pairs</p>}
        {models && <button type="button" id="compare-csv" onClick={download}>CSV of this table</button>}
      </div>
      {error && <p class="error" role="alert">{error}</p>}
      {!error && !models && <p>Loading…</p>}
      {drawn.length > 0 && <Boxes rows={drawn} title={o.title} />}
      {drawn.length > 0 && option === 'contact_deactivation' && <VsPairs rows={drawn} />}
      {models && <div class="scroll-x" id="compare-scroll" tabindex="0" role="region" aria-label={`${o.title}: the table`}>
        <table class="list compare" id="compare-table">
          <Header cols={TABLE} sort={sort} desc={desc} />
          <tbody>{rows.map((m) => (
            <tr data-model={m.model} data-verdict={verdict(m) || ''}>{TABLE.map((c) => <Cell c={c} m={m} />)}</tr>))}</tbody>
        </table>
      </div>}
    </main>
  );
}
