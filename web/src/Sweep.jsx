// Sweep.jsx - view 2: one sweep.  Its summary, the parallel coordinates and
// the virtualised job table over every design job (parameters, solver
// options, responses, solver metrics, status, error), sort, column filters,
// brushes, CSV of exactly the rows shown.  State in the URL:
//   ?sort=KEY&desc=1   sort column (group.name) and direction
//   &f=KEY:TEXT ...    column filters (data.js compileFilter)
//   &b=KEY:LO:HI ...   brushes of the parallel coordinates
//   &ax=KEY,KEY,...    the axes shown
//   &sx=KEY&sy=KEY&sc=KEY  the scatter plot's x, y and colour columns
//   &sel=ID,ID,...     jobs selected (at most 20), plotted together in the job view
import { useEffect, useMemo, useState } from 'preact/hooks';
import { apiGet, apiGetText, apiPoll } from './api.js';
import { Link, setQuery } from './router.jsx';
import { makeStoreFromColumns, selectRows, toCsv, compileFilter, columnRange } from './data.js';
import { VTable } from './VTable.jsx';
import { Parcoords } from './Parcoords.jsx';
import { Scatter, Effects } from './Scatter.jsx';
import { fmtDate, fmtEta } from './format.js';

const LIVE = 20000;
const CHUNK = 50000;   // GW_COLUMNS_PART in gateway/gw.h: the gateway makes these two parts as a sweep finishes (warm.c)
const DEFAULT_METRIC_AXES = ['metric.cpu_seconds', 'metric.steps', 'metric.newton_iterations', 'metric.max_system_dimension'];

// Every job of the sweep from /columns (one array per column, api/openapi.yaml).
// Two requests at once: the first CHUNK design jobs and the rest (design jobs
// are numbered 0..total-1), so the gateway's two cores' worth of database
// each run half of a large sweep; a small sweep's second answer is empty.
// Should numbering have gaps, "next" is followed (bounded).
async function loadTable(id, signal, onProgress) {
  const url = (after, limit) => `/api/v1/sweeps/${id}/columns?after=${after}&limit=${limit}`;
  const parts = await Promise.all([apiGet(url(-1, CHUNK), signal), apiGet(url(CHUNK - 1, 200000), signal)]);
  // the first part ends before idx CHUNK - 1 (all of a small sweep), or,
  // numbering having gaps, after it: then the pages follow from it instead
  if (parts[0].next !== CHUNK - 1) parts.pop();
  for (let n = 0, next = parts.at(-1).next; next !== null && n < 1000; n++) {
    const p = await apiGet(url(next, 200000), signal);
    parts.push(p);
    next = p.next;
  }
  onProgress(parts.reduce((s, p) => s + p.n, 0), parts[0].total);
  return makeStoreFromColumns(parts[0].columns, parts);
}

function parseFilters(query) {
  const m = new Map();
  for (const f of query.getAll('f')) { const k = f.indexOf(':'); if (k > 0) m.set(f.slice(0, k), f.slice(k + 1)); }
  return m;
}

function parseBrushes(query) {
  const m = new Map();
  for (const b of query.getAll('b')) {
    const p = b.split(':');
    if (p.length < 3) continue;
    const hi = Number(p.pop()), lo = Number(p.pop());
    if (Number.isFinite(lo) && Number.isFinite(hi)) m.set(p.join(':'), [Math.min(lo, hi), Math.max(lo, hi)]);
  }
  return m;
}

function defaultAxes(store) {
  const varying = (c, j) => { const r = columnRange(store, j); return r && r[0] < r[1]; };
  const keys = [];
  store.cols.forEach((c, j) => { if (c.kind !== 'str' && (c.group === 'parameter' || c.group === 'solver') && varying(c, j)) keys.push(c.key); });
  store.cols.forEach((c, j) => { if (c.kind === 'num' && c.group === 'response' && varying(c, j)) keys.push(c.key); });
  for (const k of DEFAULT_METRIC_AXES) if (store.byKey.has(k) && store.cols[store.byKey.get(k)].kind === 'num') keys.push(k);
  return keys;
}

function download(name, text) {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv' }));
  const a = document.createElement('a');
  a.href = url; a.download = name;
  document.body.appendChild(a); a.click(); a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

export function Sweep({ id, query }) {
  const [sweep, setSweep] = useState(null);
  const [store, setStore] = useState(null);
  const [progress, setProgress] = useState([0, 0]);
  const [error, setError] = useState(null);
  const [reload, setReload] = useState(0);

  useEffect(() => {
    const ctl = new AbortController();
    setError(null);
    (async () => {
      try {
        // the summary and the jobs at once, each shown when it comes (the
        // table does not wait for the summary's counts)
        const summary = apiGet(`/api/v1/sweeps/${id}`, ctl.signal).then(setSweep);
        const st = await loadTable(id, ctl.signal, (n, t) => setProgress([n, t]));
        setStore(st);
        await summary;
      } catch (e) { if (e.name !== 'AbortError') setError(e.message); }
    })();
    return () => ctl.abort();
  }, [id, reload]);

  // while the sweep runs, its summary is polled every 2 s (If-None-Match:
  // an unchanged summary costs no transfer and no render); the jobs are read
  // again when more have finished (sweeps of up to LIVE jobs; larger ones on
  // demand, "Reload jobs"), and once more when it ends
  const live = !!sweep && ['queued', 'running'].includes(sweep.status);
  useEffect(() => {
    if (!live) return undefined;
    let stop = false, timer = null, last = sweep;
    const fin = (x) => (x.counts.done || 0) + (x.counts.failed || 0) + (x.counts.cancelled || 0);
    const tick = async () => {
      try {
        const s = await apiPoll(`/api/v1/sweeps/${id}`);
        if (stop) return;
        if (s !== last) {
          if (s.njobs <= LIVE && (fin(s) !== fin(last) || s.status !== last.status)) setReload((r) => r + 1);
          last = s;
          setSweep(s);
        }
      } catch (_) { /* next time */ }
      if (!stop && ['queued', 'running'].includes(last.status)) timer = setTimeout(tick, 2000);
    };
    timer = setTimeout(tick, 2000);
    return () => { stop = true; clearTimeout(timer); };
  }, [id, live]);

  const filters = useMemo(() => parseFilters(query), [query.toString()]);
  const brushes = useMemo(() => parseBrushes(query), [query.toString()]);
  const sortKey = query.get('sort');
  const sort = sortKey ? { key: sortKey, desc: query.get('desc') === '1' } : null;
  const axes = useMemo(() => {
    if (!store) return [];
    const ax = query.get('ax');
    return ax ? ax.split(',').filter((k) => store.byKey.has(k) && store.cols[store.byKey.get(k)].kind !== 'str') : defaultAxes(store);
  }, [store, query.get('ax')]);
  const scatter = useMemo(() => {
    if (!store) return {};
    const ok = (k) => k && store.byKey.has(k) && store.cols[store.byKey.get(k)].kind !== 'str';
    const firstOf = (g) => { const c = store.cols.find((x) => x.group === g && x.kind === 'num'); return c && c.key; };
    return {
      sx: ok(query.get('sx')) ? query.get('sx') : axes[0] || firstOf('parameter') || 'job.idx',
      sy: ok(query.get('sy')) ? query.get('sy') : firstOf('response') || (store.byKey.has('metric.cpu_seconds') ? 'metric.cpu_seconds' : 'job.idx'),
      sc: ok(query.get('sc')) ? query.get('sc') : null,
    };
  }, [store, axes, query.get('sx'), query.get('sy'), query.get('sc')]);
  const invalid = useMemo(() => new Set(store ? [...filters].filter(([k, t]) => t.trim() && !compileFilter(store, k, t)).map(([k]) => k) : []), [store, filters]);
  const rows = useMemo(() => (store ? selectRows(store, [...filters], [...brushes].map(([k, [lo, hi]]) => [k, lo, hi]), sort) : new Uint32Array(0)),
    [store, filters, brushes, sortKey, sort && sort.desc]);

  const onSort = (key) => {
    if (sort && sort.key === key) setQuery(sort.desc ? { sort: null, desc: null } : { desc: 1 });
    else setQuery({ sort: key, desc: null });
  };
  const onFilter = (key, text) => {
    const m = new Map(filters);
    if (text) m.set(key, text); else m.delete(key);
    setQuery({ f: [...m].map(([k, t]) => `${k}:${t}`) });
  };
  const onBrush = (key, range) => {
    const m = new Map(brushes);
    if (range) m.set(key, range); else m.delete(key);
    setQuery({ b: [...m].map(([k, [lo, hi]]) => `${k}:${lo}:${hi}`) });
  };
  const toggleAxis = (key, on) => {
    const next = on ? [...axes, key] : axes.filter((k) => k !== key);
    setQuery({ ax: next.join(',') || null });
  };
  const selected = useMemo(() => new Set((query.get('sel') || '').split(',').filter((x) => /^\d{1,18}$/.test(x))), [query.get('sel')]);
  const onSelect = (jobId, on) => {
    const next = new Set(selected);
    if (on) { if (next.size < 20) next.add(jobId); } else next.delete(jobId);
    setQuery({ sel: [...next].join(',') || null });
  };
  const clearAll = () => setQuery({ f: null, b: null });

  if (error) return <main><h1>Sweep</h1><p class="error" role="alert">{error}</p><p><Link href="/">All sweeps</Link></p></main>;
  const c = sweep ? sweep.counts : {};
  const finished = (c.done || 0) + (c.failed || 0) + (c.cancelled || 0);
  return (
    <main class="wide">
      <p class="crumbs"><Link href="/">Sweeps</Link> ›</p>
      <h1>{sweep ? (sweep.name || `Sweep ${id.slice(0, 8)}`) : 'Sweep'}</h1>
      {sweep && (
        <dl class="summary" id="sweep-summary">
          <div><dt>Status</dt><dd><span class={`badge ${sweep.status}`} id="sweep-status">{sweep.status}</span></dd></div>
          <div><dt>Progress</dt><dd><progress max={sweep.njobs} value={finished} aria-label="jobs finished" /> {finished}/{sweep.njobs}
            {c.running ? ` (${c.running} running)` : ''}{sweep.status === 'running' && sweep.eta ? `, ETA ${fmtEta(sweep.eta)}` : ''}</dd></div>
          <div><dt>Failed</dt><dd>{c.failed || 0}</dd></div>
          <div><dt>Accuracy warnings</dt><dd>{sweep.jobs_with_warnings}</dd></div>
          <div><dt>Design</dt><dd>{sweep.design}</dd></div>
          <div><dt>Model</dt><dd><Link href={`/models/${sweep.model_id}`} title={sweep.model_id} id="sweep-model">{sweep.model_name || sweep.model_id}</Link></dd></div>
          <div><dt>Created</dt><dd>{fmtDate(sweep.created_at)}</dd></div>
        </dl>
      )}
      {!store ? <p aria-live="polite" id="loading">Loading jobs… {progress[0]} of {progress[1] || '?'}</p> : (
        <>
          <section aria-label="Parallel coordinates">
            <div class="controls">
              <details class="axes">
                <summary>Axes ({axes.length})</summary>
                <fieldset>
                  <legend>Columns shown as axes</legend>
                  {store.cols.filter((col) => col.kind !== 'str' && col.group !== 'job').map((col) => (
                    <label class="check"><input type="checkbox" data-axis={col.key} checked={axes.includes(col.key)}
                      onChange={(e) => toggleAxis(col.key, e.currentTarget.checked)} />{col.group} {col.name}</label>
                  ))}
                </fieldset>
              </details>
              {(brushes.size > 0 || filters.size > 0) && <button type="button" id="clear-filters" onClick={clearAll}>Clear filters and brushes</button>}
              <button type="button" onClick={() => setQuery({ f: [...filters].filter(([k]) => k !== 'job.status').map(([k, t]) => `${k}:${t}`).concat(['job.status:=failed']) })}>Failed jobs</button>
              <button type="button" onClick={() => setReload((r) => r + 1)}>Reload jobs</button>
            </div>
            {axes.length > 0 ? <Parcoords store={store} axes={axes} rows={rows} brushes={brushes} onBrush={onBrush} />
              : <p>No numeric column varies: nothing to draw.</p>}
          </section>
          <section aria-label="Scatter plot and effects" class="scatter-effects">
            <Scatter store={store} rows={rows} sx={scatter.sx} sy={scatter.sy} sc={scatter.sc} setAxes={(o) => setQuery(o)} />
            <Effects store={store} rows={rows} />
          </section>
          <section aria-label="Jobs">
            <div class="controls">
              <p id="jobs-count" aria-live="polite"><strong>{rows.length}</strong> of {store.n} jobs</p>
              <button type="button" id="csv" onClick={() => download(`sweep-${id.slice(0, 8)}-jobs.csv`, toCsv(store, rows))}>
                CSV of these {rows.length} jobs</button>
              {/* fetched with the stored token (a gateway with --token-reads refuses a plain link) */}
              <a href={`/api/v1/sweeps/${id}/results.csv`} download onClick={(e) => {
                e.preventDefault();
                apiGetText(`/api/v1/sweeps/${id}/results.csv`).then((t) => download(`sweep-${id.slice(0, 8)}-results.csv`, t))
                  .catch((err) => window.alert(`results.csv: ${err.message}`));
              }}>results.csv of all jobs (API)</a>
              {selected.size > 0 && (
                <>
                  <Link id="plot-selected" href={`/jobs/${[...selected][0]}${selected.size > 1 ? `?with=${[...selected].slice(1).join(',')}` : ''}`}>
                    Plot the {selected.size} selected jobs</Link>
                  <button type="button" class="link" onClick={() => setQuery({ sel: null })}>clear the selection</button>
                </>
              )}
            </div>
            <VTable store={store} rows={rows} sort={sort} onSort={onSort} filters={filters} onFilter={onFilter} invalid={invalid}
              resetKey={`${query.getAll('f').join('|')}#${query.getAll('b').join('|')}#${sortKey}#${query.get('desc')}`}
              selected={selected} onSelect={onSelect} />
          </section>
        </>
      )}
    </main>
  );
}
