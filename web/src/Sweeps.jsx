// Sweeps.jsx - view 1: every sweep with its status and live progress
// (polled every 2 s, with If-None-Match), jobs with accuracy warnings, the
// best value of a chosen response, sort and filter (in the URL:
// ?q=&status=&sort=&dir=&best=NAME&bdir=min|max), pause / resume / cancel
// with the API token.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { apiPoll, apiPost } from './api.js';
import { Link, setQuery } from './router.jsx';
import { fmtDate, fmtEta, fmtNum } from './format.js';
import { ForgetToken } from './TokenDialog.jsx';

// every 2 s while a sweep is queued or running, else every 15 s (a 304
// spares the transfer and the render; the gateway counts only the live
// sweeps' jobs, a finished sweep's counts are stored: a few ms per poll,
// docs/frontend.md); not while the page is hidden (polled again as soon as
// it is shown)
const POLL_MS = 2000, IDLE_POLL_MS = 15000;
const LIVE = ['queued', 'running'];
const STATUSES = ['queued', 'running', 'paused', 'done', 'cancelled'];

const COLUMNS = [
  { key: 'name', label: 'Name', get: (s) => s.name || '' },
  { key: 'model', label: 'Model', get: (s) => s.model_name || s.model_id },
  { key: 'design', label: 'Design', get: (s) => s.design },
  { key: 'status', label: 'Status', get: (s) => s.status },
  { key: 'progress', label: 'Progress', get: (s) => finished(s) / Math.max(1, s.njobs) },
  { key: 'jobs', label: 'Jobs', get: (s) => s.njobs },
  { key: 'failed', label: 'Failed', get: (s) => s.counts.failed || 0 },
  { key: 'warnings', label: 'Warnings', title: 'jobs with accuracy warnings (tolerance not met, or a warning of the solver)', get: (s) => s.jobs_with_warnings },
  { key: 'eta', label: 'ETA', get: (s) => (s.eta ? new Date(s.eta).getTime() : Infinity) },
  { key: 'created', label: 'Created', get: (s) => s.created_at },
];

function finished(s) { return (s.counts.done || 0) + (s.counts.failed || 0) + (s.counts.cancelled || 0); }

function cmp(a, b) { return a < b ? -1 : a > b ? 1 : 0; }

// The column of the best value of response `name` (bdir: min, the least; max, the largest).
function bestColumn(name, bdir) {
  return { key: 'best', label: `${bdir === 'max' ? 'Largest' : 'Least'} ${name}`, title: `the ${bdir === 'max' ? 'largest' : 'least'} value of response ${name} over the sweep's done jobs`,
    get: (s) => (s.best && s.best[bdir] !== null && s.best[bdir] !== undefined ? s.best[bdir] : null) };
}

export function Sweeps({ query }) {
  const [items, setItems] = useState(null);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(null);     // sweep id with a request under way
  const [message, setMessage] = useState(null);
  const [tick, setTick] = useState(0);
  const q = query.get('q') || '';
  const status = query.get('status') || '';
  const best = (query.get('best') || '').slice(0, 200);
  const bdir = query.get('bdir') === 'max' ? 'max' : 'min';
  const columns = useMemo(() => {
    if (!best) return COLUMNS;
    const k = COLUMNS.findIndex((c) => c.key === 'warnings') + 1;
    return [...COLUMNS.slice(0, k), bestColumn(best, bdir), ...COLUMNS.slice(k)];
  }, [best, bdir]);
  const sort = columns.some((c) => c.key === query.get('sort')) ? query.get('sort') : 'created';
  const dir = query.get('dir') === 'asc' ? 'asc' : query.get('dir') === 'desc' ? 'desc' : (sort === 'created' ? 'desc' : 'asc');

  // poll the list; stop when the view goes away
  useEffect(() => {
    let stop = false, timer = null;
    const ctl = new AbortController();
    let live = true, busy = false;
    const load = async () => {
      clearTimeout(timer);
      if (document.hidden || busy) return;   // visibilitychange calls load again
      busy = true;
      try {
        const d = await apiPoll(`/api/v1/sweeps?limit=1000${best ? `&best=${encodeURIComponent(best)}` : ''}`, ctl.signal);
        if (!stop) { setItems(d.items); setError(null); live = d.items.some((x) => LIVE.includes(x.status)); }
      } catch (e) { if (!stop && e.name !== 'AbortError') setError(e.message); }
      busy = false;
      if (!stop) timer = setTimeout(load, live ? POLL_MS : IDLE_POLL_MS);
    };
    const shown = () => { if (!document.hidden && !stop) load(); };
    document.addEventListener('visibilitychange', shown);
    load();
    return () => { stop = true; clearTimeout(timer); ctl.abort(); document.removeEventListener('visibilitychange', shown); };
  }, [tick, best]);

  const rows = useMemo(() => {
    if (!items) return [];
    const ql = q.toLowerCase();
    const col = columns.find((c) => c.key === sort);
    const out = items.filter((s) => (!status || s.status === status) &&
      (!ql || [s.name, s.model_name, s.model_id, s.id, s.design].some((x) => x && x.toLowerCase().includes(ql))));
    // missing values (a sweep without the response) last either way
    const miss = (x) => x === null || x === undefined;
    out.sort((a, b) => {
      const x = col.get(a), y = col.get(b);
      if (miss(x) || miss(y)) return (miss(x) - miss(y)) || cmp(a.id, b.id);
      return cmp(x, y) * (dir === 'asc' ? 1 : -1) || cmp(a.id, b.id);
    });
    return out;
  }, [items, q, status, sort, dir, columns]);
  // the response names of every sweep listed, for "Best of"
  const responseNames = useMemo(() => [...new Set((items || []).flatMap((s) => s.responses || []))].sort(), [items]);

  const act = async (s, what) => {
    setBusy(s.id); setMessage(null);
    try {
      const r = await apiPost(`/api/v1/sweeps/${s.id}/${what}`);
      setMessage(`Sweep ${s.name || s.id.slice(0, 8)}: ${r.status}.`);
    } catch (e) { setMessage(`Could not ${what} ${s.name || s.id.slice(0, 8)}: ${e.message}`); }
    setBusy(null);
    setTick((t) => t + 1);
  };

  const header = (c) => {
    const active = c.key === sort;
    const next = active && dir === 'asc' ? 'desc' : 'asc';
    return (
      <th scope="col" aria-sort={active ? (dir === 'asc' ? 'ascending' : 'descending') : 'none'}>
        <button type="button" class="sort" data-sort={c.key} title={c.title} onClick={() => setQuery({ sort: c.key, dir: next })}>
          {c.label}{active ? (dir === 'asc' ? ' ▲' : ' ▼') : ''}
        </button>
      </th>
    );
  };

  return (
    <main>
      <h1>Sweeps</h1>
      <div class="controls" role="search">
        <label>Filter <input id="sweeps-q" type="search" value={q} placeholder="name, model, id"
          onInput={(e) => setQuery({ q: e.currentTarget.value })} /></label>
        <label>Status <select id="sweeps-status" value={status} onChange={(e) => setQuery({ status: e.currentTarget.value })}>
          <option value="">any</option>
          {STATUSES.map((s) => <option value={s}>{s}</option>)}
        </select></label>
        <label>Best of <select id="sweeps-best" value={best} onChange={(e) => setQuery({ best: e.currentTarget.value || null, sort: e.currentTarget.value ? 'best' : null, dir: null })}>
          <option value="">(no response)</option>
          {[...new Set([...responseNames, ...(best ? [best] : [])])].map((n) => <option value={n}>{n}</option>)}
        </select></label>
        {best && <label>as <select id="sweeps-bdir" value={bdir} onChange={(e) => setQuery({ bdir: e.currentTarget.value === 'max' ? 'max' : null, ...(sort === 'best' ? { dir: e.currentTarget.value === 'max' ? 'desc' : null } : {}) })}>
          <option value="min">least value</option><option value="max">largest value</option>
        </select></label>}
        <ForgetToken />
      </div>
      {error && <p class="error" role="alert">Cannot read the sweeps: {error}</p>}
      {message && <p class="message" role="status" id="sweeps-message">{message}</p>}
      {!items ? <p>Loading…</p> : (
        <>
          <p id="sweeps-count" aria-live="polite">{rows.length} of {items.length} sweeps</p>
          <div class="scroll-x">
            <table class="list" id="sweeps-table">
              <thead><tr>{columns.map(header)}<th scope="col">Actions</th></tr></thead>
              <tbody>
                {rows.map((s) => {
                  const done = finished(s);
                  return (
                    <tr key={s.id} data-id={s.id} data-status={s.status}>
                      <td><Link href={`/sweeps/${s.id}`}>{s.name || s.id.slice(0, 8)}</Link></td>
                      <td title={s.model_id}>{s.model_name || s.model_id}</td>
                      <td>{s.design}</td>
                      <td><span class={`badge ${s.status}`}>{s.status}</span></td>
                      <td class="progress">
                        <progress max={s.njobs} value={done} aria-label={`${done} of ${s.njobs} jobs finished`} />
                        <span class="num" data-col="finished">{done}</span>/{s.njobs}
                        {(s.counts.running || 0) > 0 && <span class="muted"> ({s.counts.running} running)</span>}
                      </td>
                      <td class="num" data-col="jobs">{s.njobs}</td>
                      <td class="num" data-col="failed">{s.counts.failed || 0}</td>
                      <td class="num" data-col="warnings">{s.jobs_with_warnings}</td>
                      {best && <td class="num" data-col="best" data-v={s.best ? s.best[bdir] ?? '' : ''} title={s.best ? `over ${s.best.jobs} jobs` : ''}>{s.best && s.best[bdir] !== null ? fmtNum(s.best[bdir]) : ''}</td>}
                      <td data-col="eta">{s.status === 'running' ? fmtEta(s.eta) : ''}</td>
                      <td>{fmtDate(s.created_at)}</td>
                      <td class="actions">
                        {(s.status === 'queued' || s.status === 'running') &&
                          <button type="button" disabled={busy === s.id} onClick={() => act(s, 'pause')} aria-label={`Pause ${s.name || s.id}`}>Pause</button>}
                        {s.status === 'paused' &&
                          <button type="button" disabled={busy === s.id} onClick={() => act(s, 'resume')} aria-label={`Resume ${s.name || s.id}`}>Resume</button>}
                        {(s.status === 'queued' || s.status === 'running' || s.status === 'paused') &&
                          <button type="button" disabled={busy === s.id} onClick={() => act(s, 'cancel')} aria-label={`Cancel ${s.name || s.id}`}>Cancel</button>}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        </>
      )}
    </main>
  );
}
