// data.js - a sweep's job table held by column (typed arrays for numbers),
// filters, brushes, sort and CSV.  Sized for 10^5 rows: filtering and
// sorting work on a Uint32Array of row numbers, never on row objects.

const GROUP_PREFIX = { job: '', parameter: '', solver: 'solver.', response: 'response.', metric: '' };

// The CSV header of a column, as in /api/v1/sweeps/{id}/results.csv.
export function csvName(c) { return GROUP_PREFIX[c.group] + c.name; }

// Build the store from the API's pages ({columns, rows} each).
export function makeStore(columns, pages) {
  const n = pages.reduce((s, p) => s + p.rows.length, 0);
  const cols = columns.map((c, j) => {
    // kind from the values: all numbers -> num, all booleans -> bool, else str
    let kind = null;
    for (const p of pages) for (const r of p.rows) {
      const v = r[j];
      if (v === null || v === undefined) continue;
      const k = typeof v === 'number' ? 'num' : typeof v === 'boolean' ? 'bool' : 'str';
      if (kind === null) kind = k; else if (kind !== k) kind = 'str';
    }
    kind = kind || (c.group === 'job' && (c.name === 'error' || c.name === 'warning' || c.name === 'status') ? 'str' : 'num');
    const key = `${c.group}.${c.name}`;
    return { key, name: c.name, group: c.group, kind, label: c.group === 'job' ? c.name : c.name, csv: csvName(c), index: j };
  });
  const data = cols.map((c) => (c.kind === 'str' ? new Array(n) : new Float64Array(n)));
  let i = 0;
  for (const p of pages) for (const r of p.rows) {
    for (let j = 0; j < cols.length; j++) {
      const v = r[j], c = cols[j];
      if (c.kind === 'str') data[j][i] = v === null || v === undefined ? null : String(v);
      else if (c.kind === 'bool') data[j][i] = v === true ? 1 : v === false ? 0 : NaN;
      else data[j][i] = typeof v === 'number' ? v : NaN;
    }
    i++;
  }
  const byKey = new Map(cols.map((c, j) => [c.key, j]));
  return { cols, data, n, byKey };
}

// Build the store from /columns parts ({columns, n, values} each, in idx
// order): a column's values are an array, {all: V} (every row V), {seq:
// [FIRST, STEP]} (row i: FIRST + STEP i) or {dict: [V...], codes: [K...]}
// (api/openapi.yaml).  Numbers go straight
// into a Float64Array (missing: NaN), booleans 1 / 0 / NaN, text as strings.
export function makeStoreFromColumns(columns, parts) {
  const n = parts.reduce((s, p) => s + p.n, 0);
  const cols = columns.map((c, j) => {
    let kind = null;
    const see = (v) => {
      if (v === null || v === undefined) return;
      const k = typeof v === 'number' ? 'num' : typeof v === 'boolean' ? 'bool' : 'str';
      if (kind === null) kind = k; else if (kind !== k) kind = 'str';
    };
    for (const p of parts) {
      const v = p.values[j];
      if (Array.isArray(v)) {
        // see() only where the type changes (most columns: one type throughout)
        let prev = '';
        for (let i = 0; i < v.length && kind !== 'str'; i++) {
          const x = v[i];
          if (x === null) continue;
          const ty = typeof x;
          if (ty !== prev) { see(x); prev = ty; }
        }
      }
      else if ('all' in v) see(v.all);
      else if (v.seq) see(v.seq[0]);
      else v.dict.forEach(see);
    }
    kind = kind || (c.group === 'job' && (c.name === 'error' || c.name === 'warning' || c.name === 'status') ? 'str' : 'num');
    return { key: `${c.group}.${c.name}`, name: c.name, group: c.group, kind, label: c.name, csv: csvName(c), index: j };
  });
  // each form filled by its own loop (no call per value: 10^5 rows x 30 columns)
  const conv = (kind, x) => (kind === 'str' ? (x === null || x === undefined ? null : String(x))
    : kind === 'bool' ? (x === true ? 1 : x === false ? 0 : NaN) : (typeof x === 'number' ? x : NaN));
  const data = cols.map((c, j) => {
    const out = c.kind === 'str' ? new Array(n) : new Float64Array(n);
    let o = 0;
    for (const p of parts) {
      const v = p.values[j], m = p.n;
      if (Array.isArray(v)) {
        if (c.kind === 'num') for (let i = 0; i < m; i++, o++) { const x = v[i]; out[o] = typeof x === 'number' ? x : NaN; }
        else for (let i = 0; i < m; i++, o++) out[o] = conv(c.kind, v[i]);
      } else if ('all' in v) {
        const x = conv(c.kind, v.all);
        for (let i = 0; i < m; i++, o++) out[o] = x;
      } else if (v.seq) {
        for (let i = 0; i < m; i++, o++) out[o] = conv(c.kind, v.seq[0] + v.seq[1] * i);
      } else {
        const d = v.dict.map((x) => conv(c.kind, x)), codes = v.codes;
        for (let i = 0; i < m; i++, o++) out[o] = d[codes[i]];
      }
    }
    return out;
  });
  const byKey = new Map(cols.map((c, j) => [c.key, j]));
  return { cols, data, n, byKey };
}

export function cellValue(store, j, i) {
  const c = store.cols[j], v = store.data[j][i];
  if (c.kind === 'str') return v;
  if (Number.isNaN(v)) return null;
  if (c.kind === 'bool') return v === 1;
  return v;
}

// Range of a numeric column over every row (NaN ignored); null if none.
export function columnRange(store, j) {
  const a = store.data[j];
  let lo = Infinity, hi = -Infinity;
  for (let i = 0; i < a.length; i++) { const v = a[i]; if (v < lo) lo = v; if (v > hi) hi = v; }
  return lo <= hi ? [lo, hi] : null;
}

// ---- filters --------------------------------------------------------------------
// A column filter is text typed by the user.  Numbers: "> 1", ">= 1", "< 1",
// "<= 1", "= 1", "!= 1", "1..2" (inclusive), or a bare number (equal);
// "empty" / "!empty" test for missing values.  Text: a substring (case
// ignored), "=text" exact, "!text" excludes.  Booleans: true / false.
// Returns a predicate on the row number, or null when the text is not a
// valid filter (it is then ignored and shown as invalid).
export function compileFilter(store, key, text) {
  const j = store.byKey.get(key);
  const t = (text || '').trim();
  if (j === undefined || !t) return null;
  const c = store.cols[j], a = store.data[j];
  if (t === 'empty') return c.kind === 'str' ? (i) => a[i] === null || a[i] === '' : (i) => Number.isNaN(a[i]);
  if (t === '!empty') return c.kind === 'str' ? (i) => a[i] !== null && a[i] !== '' : (i) => !Number.isNaN(a[i]);
  if (c.kind === 'str') {
    if (t.startsWith('=')) { const x = t.slice(1); return (i) => a[i] === x; }
    if (t.startsWith('!')) { const x = t.slice(1).toLowerCase(); return (i) => !(a[i] || '').toLowerCase().includes(x); }
    const x = t.toLowerCase();
    return (i) => a[i] !== null && a[i].toLowerCase().includes(x);
  }
  if (c.kind === 'bool') {
    if (/^(true|yes|1)$/i.test(t)) return (i) => a[i] === 1;
    if (/^(false|no|0)$/i.test(t)) return (i) => a[i] === 0;
    return null;
  }
  const num = (s) => { const x = Number(s.trim()); return s.trim() !== '' && Number.isFinite(x) ? x : null; };
  let m;
  if ((m = t.match(/^(.+?)\.\.(.+)$/))) {
    const lo = num(m[1]), hi = num(m[2]);
    return lo === null || hi === null ? null : (i) => a[i] >= lo && a[i] <= hi;
  }
  if ((m = t.match(/^(>=|<=|!=|>|<|=)(.*)$/))) {
    const x = num(m[2]);
    if (x === null) return null;
    switch (m[1]) {
      case '>': return (i) => a[i] > x;
      case '>=': return (i) => a[i] >= x;
      case '<': return (i) => a[i] < x;
      case '<=': return (i) => a[i] <= x;
      case '=': return (i) => a[i] === x;
      default: return (i) => a[i] !== x;
    }
  }
  const x = num(t);
  return x === null ? null : (i) => a[i] === x;
}

// Row numbers passing every filter and brush, in the sort order.
// filters: [[key, text]], brushes: [[key, lo, hi]], sort: {key, desc} | null.
export function selectRows(store, filters, brushes, sort) {
  const preds = [];
  for (const [k, t] of filters) { const p = compileFilter(store, k, t); if (p) preds.push(p); }
  const br = [];
  for (const [k, lo, hi] of brushes) { const j = store.byKey.get(k); if (j !== undefined) br.push([store.data[j], lo, hi]); }
  const out = new Uint32Array(store.n);
  let m = 0;
  outer: for (let i = 0; i < store.n; i++) {
    for (let b = 0; b < br.length; b++) { const v = br[b][0][i]; if (!(v >= br[b][1] && v <= br[b][2])) continue outer; }
    for (let p = 0; p < preds.length; p++) if (!preds[p](i)) continue outer;
    out[m++] = i;
  }
  const rows = out.slice(0, m);
  if (sort && store.byKey.has(sort.key)) {
    const j = store.byKey.get(sort.key), c = store.cols[j], a = store.data[j], s = sort.desc ? -1 : 1;
    if (c.kind === 'str') {
      rows.sort((x, y) => {
        const u = a[x], v = a[y];
        if (u === v) return x - y;
        if (u === null) return 1;
        if (v === null) return -1;
        return (u < v ? -1 : 1) * s;
      });
    } else {
      // missing values last in either direction; ties by row number
      rows.sort((x, y) => {
        const u = a[x], v = a[y], nu = Number.isNaN(u), nv = Number.isNaN(v);
        if (nu || nv) return nu && nv ? x - y : nu ? 1 : -1;
        return u === v ? x - y : (u < v ? -1 : 1) * s;
      });
    }
  }
  return rows;
}

// ---- CSV of the selected rows (every column, the sort order) -----------------------
function s_csvField(v) {
  if (v === null || v === undefined) return '';
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function toCsv(store, rows) {
  const lines = [store.cols.map((c) => s_csvField(c.csv)).join(',')];
  for (let r = 0; r < rows.length; r++) {
    const i = rows[r];
    const f = new Array(store.cols.length);
    for (let j = 0; j < store.cols.length; j++) f[j] = s_csvField(cellValue(store, j, i));
    lines.push(f.join(','));
  }
  return lines.join('\n') + '\n';
}
