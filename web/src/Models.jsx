// Models.jsx - view 4, the list: every stored model (GET /api/v1/models)
// with its dimension, bodies, joints and degrees of freedom from its check
// report, and the upload of a new one (POST /api/v1/models with the token):
// a file or pasted JSON, checked by the solver; its validation errors are
// listed with their JSON pointers.  State in the URL: /models?q=TEXT.
import { useEffect, useState } from 'preact/hooks';
import { apiGet, apiPost } from './api.js';
import { Link, navigate, setQuery } from './router.jsx';
import { fmtDate } from './format.js';

// The errors of a refused mechanism or sweep: pointer and message.
export function ErrorList({ error, id }) {
  if (!error) return null;
  return (
    <div class="error" role="alert" id={id}>
      <p>{error.message}</p>
      {error.details && error.details.length > 0 && (
        <table class="list small"><caption>Where</caption>
          <thead><tr><th scope="col">JSON pointer</th><th scope="col">Problem</th></tr></thead>
          <tbody>{error.details.map((d) => <tr><td><code>{d.pointer || '/'}</code></td><td>{d.message}</td></tr>)}</tbody>
        </table>
      )}
    </div>
  );
}

function Upload() {
  const [text, setText] = useState('');
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const onFile = async (e) => { const f = e.currentTarget.files[0]; if (f) setText(await f.text()); };
  const submit = async (e) => {
    e.preventDefault();
    setError(null);
    let mech;
    try { mech = JSON.parse(text); } catch (x) { setError({ message: `Not JSON: ${x.message}`, details: [] }); return; }
    setBusy(true);
    try {
      const r = await apiPost('/api/v1/models', mech);
      navigate(`/models/${r.id}`);
    } catch (x) { setError(x); } finally { setBusy(false); }
  };
  return (
    <details class="upload" id="upload">
      <summary>Upload a model</summary>
      <form onSubmit={submit}>
        <p class="muted">A mechanism in the JSON format of <code>api/mechanism.schema.json</code>; the solver checks it
          (format, parameters, assembly, degrees of freedom) before it is stored.</p>
        <label>File <input type="file" id="upload-file" accept=".json,application/json" onChange={onFile} /></label>
        <label class="block">or the JSON <textarea id="upload-text" rows="10" value={text} spellcheck={false}
          onInput={(e) => setText(e.currentTarget.value)} /></label>
        <button type="submit" id="upload-submit" disabled={busy || !text.trim()}>{busy ? 'Checking…' : 'Check and store'}</button>
        <ErrorList error={error} id="upload-errors" />
      </form>
    </details>
  );
}

export function Models({ query }) {
  const [models, setModels] = useState(null);
  const [error, setError] = useState(null);
  const q = query.get('q') || '', ql = q.toLowerCase();
  useEffect(() => {
    const ctl = new AbortController();
    apiGet('/api/v1/models?limit=1000', ctl.signal).then((d) => setModels(d.items))
      .catch((e) => { if (e.name !== 'AbortError') setError(e.message); });
    return () => ctl.abort();
  }, []);
  const shown = (models || []).filter((m) => !ql || m.name.toLowerCase().includes(ql) || m.id.includes(ql));
  return (
    <main>
      <h1>Models</h1>
      <Upload />
      <div class="controls">
        <label>Filter <input id="models-q" type="search" value={q} placeholder="name or id"
          onInput={(e) => setQuery({ q: e.currentTarget.value || null })} /></label>
        {models && <p class="muted" id="models-count">{shown.length} of {models.length} models</p>}
      </div>
      {error && <p class="error" role="alert">{error}</p>}
      {!models ? <p>Loading…</p> : (
        <div class="scroll-x"><table class="list" id="models-table">
          <thead><tr>{['Name', 'Id', 'Dimension', 'Bodies', 'Joints', 'DOF', 'Redundant', 'Created'].map((h) => <th scope="col">{h}</th>)}</tr></thead>
          <tbody>{shown.map((m) => {
            const r = m.check_report || {};
            return (
              <tr data-model={m.id}>
                <td><Link href={`/models/${m.id}`}>{m.name}</Link></td><td><code>{m.id}</code></td>
                <td class="num">{r.dimension}</td><td class="num">{r.bodies}</td><td class="num">{r.joints}</td>
                <td class="num">{r.degrees_of_freedom}</td><td class="num">{r.redundant_constraints}</td>
                <td>{fmtDate(m.created_at)}</td>
              </tr>
            );
          })}</tbody>
        </table></div>
      )}
    </main>
  );
}
