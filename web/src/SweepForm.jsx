// SweepForm.jsx - submit a sweep of a model from a form (api/sweep.schema.json):
// name, design (kind, seed, samples), each model parameter kept at its
// default, given values, or a range with levels, or explicit rows (design
// list: a header of parameter names, then one row of values per job); solver options (contact
// deactivation on, off or both, i.e. paired runs; integrator; end time;
// tolerance); responses (name, channel, reduction); how the sweep runs (the
// fraction of jobs verified at a tenth of the tolerance, priority, time
// limit per job, attempts).  The job count is the gateway's own:
// the sweep is sent with ?dry_run=1 (checked and counted, not stored) after
// every change, so the form shows exactly how many jobs a submission makes,
// or what is wrong with it (with JSON pointers).  Submitting opens the sweep.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { apiPost, getToken } from './api.js';
import { navigate, setQuery } from './router.jsx';
import { ErrorList } from './Models.jsx';

const KINDS = ['grid', 'random', 'lhs', 'sobol', 'oat', 'list'];
// the reductions of api/sweep.schema.json (the step measures take their
// defaults here: band 2 %, limits 10-90 %, the last sample as final value)
// the integrators the solver accepts (docs/mechanism-format.md, solver block)
const INTEGRATORS = ['bdf', 'trapezoidal_al', 'dopri5', 'moreau_jean', 'event_driven'];
const REDUCE = ['max', 'min', 'final', 'mean', 'rms', 'argmax', 'integral', 'rise_time', 'settling_time', 'overshoot'];

// "1, 2.5, 3" -> [1, 2.5, 3], or null when a value is not a number.
function numbers(text) {
  const v = text.split(/[\s,;]+/).filter((s) => s !== '').map(Number);
  return v.length && v.every(Number.isFinite) ? v : null;
}

// Design list's rows from text: a header of parameter names, then a row of
// numbers per line (separated by commas, semicolons, tabs or spaces, as
// pasted from a spreadsheet) -> {rows: [{NAME: number}]} or {error}.
export function parseRows(text) {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '');
  if (lines.length < 2) return { error: 'rows: a header of parameter names, then at least one row of values' };
  const names = lines[0].split(/[\s,;]+/).filter((x) => x !== '');
  if (new Set(names).size !== names.length) return { error: 'rows: a parameter is named twice in the header' };
  const rows = [];
  for (let i = 1; i < lines.length; i++) {
    const v = numbers(lines[i]);
    if (!v || v.length !== names.length) return { error: `rows: line ${i + 1} must hold ${names.length} numbers (${names.join(', ')})` };
    rows.push(Object.fromEntries(names.map((n, k) => [n, v[k]])));
  }
  return { rows };
}

// The sweep (JSON) the form describes, or {error} for a field the form can
// already tell is wrong (the gateway checks the rest).
export function buildSweep(model, f) {
  const design = { kind: f.kind };
  if (f.seed !== '') design.seed = Number(f.seed);
  if (f.kind === 'random' || f.kind === 'lhs' || f.kind === 'sobol') design.samples = Number(f.samples);
  if (f.kind === 'list') {
    const r = parseRows(f.rows);
    if (r.error) return r;
    design.rows = r.rows;
  }
  const parameters = {};
  // (a list's rows are the whole design: no parameter is swept beside them)
  for (const [name, p] of f.kind === 'list' ? [] : Object.entries(f.params)) {
    if (p.mode === 'values') {
      const v = numbers(p.values);
      if (!v) return { error: `parameter ${name}: values must be numbers separated by commas` };
      parameters[name] = { values: v };
    } else if (p.mode === 'range') {
      const r = { min: Number(p.min), max: Number(p.max) };
      if (p.min === '' || p.max === '' || !Number.isFinite(r.min) || !Number.isFinite(r.max)) return { error: `parameter ${name}: min and max must be numbers` };
      if (p.levels !== '') r.levels = Number(p.levels);
      parameters[name] = r;
    }
  }
  const solver = {};
  if (f.cd === 'both') solver.contact_deactivation = [true, false];
  else if (f.cd !== 'model') solver.contact_deactivation = f.cd === 'on';
  if (f.t_end !== '') solver.t_end = Number(f.t_end);
  if (f.tolerance !== '') solver.tolerance = Number(f.tolerance);
  if (f.integrator !== '') solver.integrator = f.integrator;
  const responses = f.responses.filter((r) => r.name.trim() && r.channel.trim())
    .map((r) => ({ name: r.name.trim(), channel: r.channel.trim(), reduce: r.reduce }));
  const sweep = { model, name: f.name, design, parameters, solver, responses };
  // how it runs: numbers as typed (the gateway refuses what is out of range, with its pointer)
  for (const k of ['verify', 'priority', 'time_limit', 'max_attempts']) {
    if (f[k] === '') continue;
    const x = Number(f[k]);
    if (!Number.isFinite(x)) return { error: `${k} must be a number` };
    sweep[k] = x;
  }
  return { sweep };
}

// The form's fields in the URL (?sf=JSON): only those that differ from the
// defaults, so a fresh form has no parameter; parameters as [mode, values]
// or [mode, min, max, levels]; responses as [name, channel, reduce].
const FIELDS = ['name', 'kind', 'seed', 'samples', 'rows', 'cd', 't_end', 'tolerance', 'integrator', 'verify', 'priority', 'time_limit', 'max_attempts'];
export function formToUrl(f, d) {
  const o = {};
  for (const k of FIELDS) if (f[k] !== d[k]) o[k] = f[k];
  const p = {};
  for (const [n, x] of Object.entries(f.params)) {
    if (x.mode === 'values') p[n] = ['values', x.values];
    else if (x.mode === 'range') p[n] = ['range', x.min, x.max, x.levels];
  }
  if (Object.keys(p).length) o.p = p;
  if (JSON.stringify(f.responses) !== JSON.stringify(d.responses)) o.r = f.responses.map((r) => [r.name, r.channel, r.reduce]);
  return Object.keys(o).length ? JSON.stringify(o) : null;
}

// The form from the URL's sf over the defaults d; what is not understood
// (a field of another type, an unknown parameter, mode or reduction) is left
// at its default.
export function formFromUrl(text, d) {
  let o;
  try { o = JSON.parse(text); } catch (_) { return d; }
  if (!o || typeof o !== 'object' || Array.isArray(o)) return d;
  const f = { ...d, params: { ...d.params } };
  const str = (v) => typeof v === 'string' && v.length <= 200;
  for (const k of FIELDS) if (str(o[k]) || (k === 'rows' && typeof o[k] === 'string' && o[k].length <= 20000)) f[k] = o[k];
  if (!KINDS.includes(f.kind)) f.kind = d.kind;
  if (!['model', 'on', 'off', 'both'].includes(f.cd)) f.cd = d.cd;
  if (f.integrator !== '' && !INTEGRATORS.includes(f.integrator)) f.integrator = d.integrator;
  if (o.p && typeof o.p === 'object') {
    for (const [n, x] of Object.entries(o.p)) {
      if (!(n in f.params) || !Array.isArray(x) || !x.every(str)) continue;
      if (x[0] === 'values' && x.length === 2) f.params[n] = { ...f.params[n], mode: 'values', values: x[1] };
      else if (x[0] === 'range' && x.length === 4) f.params[n] = { ...f.params[n], mode: 'range', min: x[1], max: x[2], levels: x[3] };
    }
  }
  if (Array.isArray(o.r) && o.r.length <= 50 && o.r.every((r) => Array.isArray(r) && r.length === 3 && r.every(str) && REDUCE.includes(r[2]))) {
    f.responses = o.r.map(([name, channel, reduce]) => ({ name, channel, reduce }));
  }
  return f;
}

export function SweepForm({ model, def, query }) {
  const paramNames = Object.keys(def.parameters || {});
  const channels = ((def.outputs && def.outputs.channels) || []).map((c) => c.name);
  const defaults = useMemo(() => ({
    name: '', kind: 'grid', seed: '', samples: '20', rows: '', cd: 'model', t_end: '', tolerance: '', integrator: '',
    verify: '', priority: '', time_limit: '', max_attempts: '',
    params: Object.fromEntries(paramNames.map((n) => [n, { mode: 'default', values: '', min: '', max: '', levels: '3' }])),
    responses: channels.length ? [{ name: `${channels[0]}_max`, channel: channels[0], reduce: 'max' }] : [],
  }), [model]);
  const [f, setF] = useState(() => (query && query.get('sf') ? formFromUrl(query.get('sf'), defaults) : defaults));
  // every change is written to the URL (replacing the history entry)
  useEffect(() => { setQuery({ sf: formToUrl(f, defaults) }); }, [f]);
  const [count, setCount] = useState(null);       // {jobs, verify_jobs} or {error}
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const built = useMemo(() => buildSweep(model, f), [model, f]);
  const set = (k, v) => setF((o) => ({ ...o, [k]: v }));
  const setParam = (n, k, v) => setF((o) => ({ ...o, params: { ...o.params, [n]: { ...o.params[n], [k]: v } } }));
  const setResp = (i, k, v) => setF((o) => ({ ...o, responses: o.responses.map((r, j) => (j === i ? { ...r, [k]: v } : r)) }));

  // the gateway's count of the jobs, 300 ms after the last change; the dry
  // run is a write (it needs the token): without a stored token the form
  // waits for a click on "Count the jobs" rather than asking on page load
  const [asked, setAsked] = useState(() => !!getToken());
  useEffect(() => {
    if (built.error) { setCount({ error: { message: built.error, details: [] } }); return undefined; }
    setCount(null);
    if (!asked) return undefined;
    let live = true;
    const h = setTimeout(() => {
      apiPost('/api/v1/sweeps?dry_run=1', built.sweep).then((r) => live && setCount(r))
        .catch((e) => { if (!live) return; setCount({ error: e }); if (e.status === 401) setAsked(false); });
    }, 300);
    return () => { live = false; clearTimeout(h); };
  }, [JSON.stringify(built), asked]);

  const submit = async (e) => {
    e.preventDefault();
    if (built.error) return;
    setBusy(true); setError(null);
    try {
      const r = await apiPost('/api/v1/sweeps', built.sweep);
      navigate(`/sweeps/${r.id}`);
    } catch (x) { setError(x); } finally { setBusy(false); }
  };
  const samplesOn = f.kind === 'random' || f.kind === 'lhs' || f.kind === 'sobol';
  return (
    <form class="sweep-form" id="sweep-form" onSubmit={submit}>
      <div class="controls">
        <label>Name <input id="sf-name" type="text" value={f.name} onInput={(e) => set('name', e.currentTarget.value)} /></label>
        <label>Design <select id="sf-kind" value={f.kind} onChange={(e) => set('kind', e.currentTarget.value)}>
          {KINDS.map((k) => <option value={k}>{k}</option>)}</select></label>
        {samplesOn && <label>Samples <input id="sf-samples" type="number" min="1" value={f.samples} onInput={(e) => set('samples', e.currentTarget.value)} /></label>}
        <label>Seed <input id="sf-seed" type="number" min="0" value={f.seed} placeholder="chosen by the gateway" onInput={(e) => set('seed', e.currentTarget.value)} /></label>
      </div>
      <fieldset><legend>Parameters</legend>
        {f.kind === 'list' ? (
          <label class="block">Rows: a header of parameter names, then one job's values per line
            <textarea id="sf-rows" rows="6" spellcheck="false" value={f.rows} onInput={(e) => set('rows', e.currentTarget.value)}
              placeholder={paramNames.length ? `${paramNames.join(', ')}\n${paramNames.map((n) => String(def.parameters[n])).join(', ')}` : 'the model declares no parameters'} />
            <span class="muted">Parameters not named keep their defaults ({paramNames.map((n) => `${n} = ${def.parameters[n]}`).join(', ') || 'none'}).</span>
          </label>
        ) : !paramNames.length ? <p class="muted">The model declares no parameters.</p> : (
          <table class="list small" id="sf-params">
            <thead><tr><th scope="col">Parameter</th><th scope="col">Default</th><th scope="col">Swept as</th><th scope="col">Values, or min / max / levels</th></tr></thead>
            <tbody>{paramNames.map((n) => {
              const p = f.params[n];
              return (
                <tr data-param={n}>
                  <td>{n}</td><td><code>{String(def.parameters[n])}</code></td>
                  <td><select aria-label={`${n}: how it is swept`} class="sf-mode" value={p.mode} onChange={(e) => setParam(n, 'mode', e.currentTarget.value)}>
                    <option value="default">default</option><option value="values">values</option><option value="range">range</option></select></td>
                  <td>
                    {p.mode === 'values' && <input class="sf-values" aria-label={`${n}: values`} type="text" placeholder="1, 2, 3" value={p.values} onInput={(e) => setParam(n, 'values', e.currentTarget.value)} />}
                    {p.mode === 'range' && <span>
                      <input class="sf-min short" aria-label={`${n}: min`} type="number" step="any" value={p.min} onInput={(e) => setParam(n, 'min', e.currentTarget.value)} />
                      {' '}<input class="sf-max short" aria-label={`${n}: max`} type="number" step="any" value={p.max} onInput={(e) => setParam(n, 'max', e.currentTarget.value)} />
                      {' '}<input class="sf-levels short" aria-label={`${n}: levels`} type="number" min="1" value={p.levels} onInput={(e) => setParam(n, 'levels', e.currentTarget.value)} />
                    </span>}
                  </td>
                </tr>
              );
            })}</tbody>
          </table>
        )}
      </fieldset>
      <fieldset><legend>Solver options</legend>
        <div class="controls">
          <label>Contact deactivation <select id="sf-cd" value={f.cd} onChange={(e) => set('cd', e.currentTarget.value)}>
            <option value="model">as the model says</option><option value="on">on</option><option value="off">off</option>
            <option value="both">on and off (paired runs)</option></select></label>
          <label>End time (s) <input id="sf-tend" class="short" type="number" step="any" min="0" value={f.t_end} placeholder={String((def.solver || {}).t_end ?? '')} onInput={(e) => set('t_end', e.currentTarget.value)} /></label>
          <label>Tolerance <input id="sf-tol" class="short" type="number" step="any" min="0" value={f.tolerance} placeholder="model's" onInput={(e) => set('tolerance', e.currentTarget.value)} /></label>
          <label>Integrator <select id="sf-integrator" value={f.integrator} onChange={(e) => set('integrator', e.currentTarget.value)}>
            <option value="">{`model's${(def.solver || {}).integrator ? ` (${def.solver.integrator})` : ''}`}</option>
            {INTEGRATORS.map((x) => <option value={x}>{x}</option>)}</select></label>
        </div>
      </fieldset>
      <fieldset><legend>How the sweep runs</legend>
        <div class="controls">
          <label title="the fraction of the jobs run again at a tenth of the tolerance, to measure their error">Verify a fraction <input id="sf-verify" class="short" type="number" step="any" min="0" max="1" value={f.verify} placeholder="0: none" onInput={(e) => set('verify', e.currentTarget.value)} /></label>
          <label>Priority <input id="sf-priority" class="short" type="number" step="1" value={f.priority} placeholder="0" onInput={(e) => set('priority', e.currentTarget.value)} /></label>
          <label>Time limit per job (s) <input id="sf-time-limit" class="short" type="number" step="any" min="0" value={f.time_limit} placeholder="gateway's" onInput={(e) => set('time_limit', e.currentTarget.value)} /></label>
          <label>Attempts <input id="sf-attempts" class="short" type="number" step="1" min="1" max="20" value={f.max_attempts} placeholder="3" onInput={(e) => set('max_attempts', e.currentTarget.value)} /></label>
        </div>
      </fieldset>
      <fieldset><legend>Responses</legend>
        <datalist id="sf-channels">{channels.map((c) => <option value={c} />)}</datalist>
        <table class="list small" id="sf-responses">
          <thead><tr><th scope="col">Name</th><th scope="col">Channel</th><th scope="col">Reduction</th><th /></tr></thead>
          <tbody>{f.responses.map((r, i) => (
            <tr>
              <td><input type="text" aria-label={`response ${i + 1}: name`} value={r.name} onInput={(e) => setResp(i, 'name', e.currentTarget.value)} /></td>
              <td><input type="text" list="sf-channels" aria-label={`response ${i + 1}: channel`} value={r.channel} onInput={(e) => setResp(i, 'channel', e.currentTarget.value)} /></td>
              <td><select aria-label={`response ${i + 1}: reduction`} value={r.reduce} onChange={(e) => setResp(i, 'reduce', e.currentTarget.value)}>
                {REDUCE.map((x) => <option value={x}>{x}</option>)}</select></td>
              <td><button type="button" onClick={() => set('responses', f.responses.filter((_, j) => j !== i))}>Remove</button></td>
            </tr>
          ))}</tbody>
        </table>
        <button type="button" id="sf-add-response" onClick={() => set('responses', [...f.responses, { name: '', channel: channels[0] || '', reduce: 'max' }])}>Add a response</button>
      </fieldset>
      <div class="controls">
        <p id="sf-count" aria-live="polite" data-jobs={count && !count.error ? count.jobs : ''} data-verify={count && !count.error ? count.verify_jobs || 0 : ''}>
          {!count && !asked ? <button type="button" id="sf-count-button" onClick={() => setAsked(true)}>Count the jobs</button>
            : !count ? 'Counting the jobs…' : count.error ? 'Not a valid sweep yet.'
            : `${count.jobs} job${count.jobs === 1 ? '' : 's'}${count.verify_jobs ? ` and ${count.verify_jobs} verification jobs` : ''}`}
        </p>
        <button type="submit" id="sf-submit" disabled={busy || !count || !!count.error}>{busy ? 'Submitting…' : 'Submit the sweep'}</button>
      </div>
      {count && count.error && <ErrorList error={count.error} id="sf-problems" />}
      <ErrorList error={error} id="sf-error" />
    </form>
  );
}
