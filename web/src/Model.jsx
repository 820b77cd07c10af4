// Model.jsx - view 4, one model (/models/<id>): the mechanism drawn at t = 0
// as its input places it (GET /api/v1/models/{id}/geometry; planar on the
// canvas, spatial with three.js), its check report (degrees of freedom,
// coordinates and constraints before and after elimination, redundant
// joints), its sweeps (GET /api/v1/sweeps?model=), the form that submits a
// new sweep of it, and its definition.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { apiGet } from './api.js';
import { Link } from './router.jsx';
import { MechanismView, PoseTable, JointTable } from './Anim.jsx';
import { localGeometry, posesOfGeometry, poseAt } from './pose.js';
import { SweepForm } from './SweepForm.jsx';
import { fmtDate } from './format.js';

// The check report as rows: label, value (the fields of mbs_report_json).
function reportRows(r) {
  return [
    ['Dimension', r.dimension], ['Bodies', r.bodies], ['Joints', r.joints],
    ['Degrees of freedom', r.degrees_of_freedom],
    ['Coordinates before elimination', r.coordinates_before_elimination],
    ['Coordinates after elimination', r.coordinates_after_elimination],
    ['Constraints before elimination', r.constraints_before_elimination],
    ['Constraints after elimination', r.constraints_after_elimination],
    ['Redundant constraints', r.redundant_constraints],
    ['Redundant joints', r.redundant_joints || 'none'],
    ['Assembly: largest move', r.assembly_max_move], ['Initial velocity correction', r.velocity_correction],
    // the same mechanism in relative (joint) coordinates; absent in the
    // reports of models stored before they were computed
    ...(r.relative_coordinates === undefined ? [] : [
      ['Relative formulation: joint coordinates', r.relative_coordinates],
      ['Relative formulation: constraints (chords, drivers)', r.relative_constraints],
      ['Relative formulation: chords (longest loop, joints)',
        `${r.relative_chords} (${r.relative_longest_loop})`],
      ['Relative formulation: floating roots', r.relative_floating_roots],
    ]),
    ['Warnings', (r.warnings || []).join('; ') || 'none'],
  ];
}

function Drawing({ geometry }) {
  const P = useMemo(() => posesOfGeometry(geometry), [geometry]);
  const L = useMemo(() => localGeometry(geometry), [geometry]);
  const pose = poseAt(P, 0);
  return (
    <figure class="anim">
      <MechanismView L={L} P={P} v={pose.v} label="t = 0 (input positions)" />
      <figcaption><PoseTable P={P} pose={pose} caption="Bodies at t = 0, as the model places them" />
        <JointTable G={geometry} /></figcaption>
    </figure>
  );
}

export function Model({ id, query }) {
  const [model, setModel] = useState(null);
  const [geometry, setGeometry] = useState(null);
  const [sweeps, setSweeps] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    const ctl = new AbortController();
    setModel(null); setGeometry(null); setSweeps(null); setError(null);
    Promise.all([apiGet(`/api/v1/models/${id}`, ctl.signal), apiGet(`/api/v1/models/${id}/geometry`, ctl.signal),
      apiGet(`/api/v1/sweeps?model=${id}&limit=1000`, ctl.signal)])
      .then(([m, g, s]) => { setModel(m); setGeometry(g.geometry); setSweeps(s.items); })
      .catch((e) => { if (e.name !== 'AbortError') setError(e.message); });
    return () => ctl.abort();
  }, [id]);
  if (error) return <main><h1>Model</h1><p class="error" role="alert">{error}</p></main>;
  if (!model) return <main><h1>Model</h1><p>Loading…</p></main>;
  const r = model.check_report || {};
  return (
    <main class="wide">
      <p class="crumbs"><Link href="/models">Models</Link> ›</p>
      <h1 id="model-name">{model.name} <code class="muted small">{model.id}</code></h1>
      <div class="job-grid">
        <section aria-label="The mechanism at t = 0">{geometry && <Drawing geometry={geometry} />}</section>
        <section aria-label="Check report">
          <table class="list small" id="check-report"><caption>Check report</caption>
            <tbody>{reportRows(r).map(([k, v]) => <tr><th scope="row">{k}</th><td class="num">{String(v ?? '')}</td></tr>)}</tbody>
          </table>
          <h2>Sweeps of this model</h2>
          {!sweeps ? <p>Loading…</p> : !sweeps.length ? <p class="muted" id="model-sweeps">None yet.</p> : (
            <table class="list small" id="model-sweeps">
              <thead><tr><th scope="col">Name</th><th scope="col">Design</th><th scope="col">Status</th><th scope="col">Jobs</th><th scope="col">Created</th></tr></thead>
              <tbody>{sweeps.map((s) => <tr data-sweep={s.id}><td><Link href={`/sweeps/${s.id}`}>{s.name || s.id.slice(0, 8)}</Link></td>
                <td>{s.design}</td><td><span class={`badge ${s.status}`}>{s.status}</span></td><td class="num">{s.njobs}</td><td>{fmtDate(s.created_at)}</td></tr>)}</tbody>
            </table>
          )}
        </section>
      </div>
      <h2>Submit a sweep</h2>
      <SweepForm model={model.id} def={model.definition} query={query} />
      <details><summary>Definition</summary><pre class="definition">{JSON.stringify(model.definition, null, 2)}</pre></details>
    </main>
  );
}
