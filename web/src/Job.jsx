// Job.jsx - view 3: a job and its neighbours.  Channel plots against time
// (decimated on the server, /api/v1/samples) with other jobs overlaid, and
// the animation from the stored body poses (/api/v1/jobs/{id}/poses; planar
// on a canvas, spatial with three.js), one time shared by both.  State in
// the URL:
//   /jobs/<id>?with=ID,ID   jobs overlaid in the plots
//   &ch=NAME,NAME           channels plotted (default: the first four)
//   &t=SECONDS              the time shown (written when not playing)
//   &env=1                  the whole sweep's min/max envelope behind the plots
//   &scene=side|over        the first three overlaid jobs animated with this one
//   &colour=NAME            each job's mechanism coloured by a channel's value
//                           (@contact, @speed: each body by its contact force, speed)
//   &forces=1               joint reaction forces drawn as arrows (forces.js)
//   &contacts=1             contact forces drawn as arrows at their points
//   &loads=1                applied forces and torques (force and torque elements)
import { useEffect, useMemo, useState } from 'preact/hooks';
import { apiGet } from './api.js';
import { Link, setQuery } from './router.jsx';
import { Plots } from './Plots.jsx';
import { Anim } from './Anim.jsx';
import { fmtNum } from './format.js';
import { forceColumns, forceMax, contactMax, loadMax, motorColumns } from './forces.js';

const POINTS = 1000;

export function Job({ id, query }) {
  const [job, setJob] = useState(null);
  const [poses, setPoses] = useState(null);
  const [result, setResult] = useState(null);
  const [samples, setSamples] = useState(null);
  const [error, setError] = useState(null);
  const [t, setTstate] = useState(Number(query.get('t')) || 0);
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState(1);
  const withIds = (query.get('with') || '').split(',').map((s) => s.trim()).filter((s) => /^\d{1,18}$/.test(s) && s !== id).slice(0, 19);
  const chParam = query.get('ch');

  useEffect(() => {
    const ctl = new AbortController();
    setError(null); setJob(null); setResult(null); setPoses(null);
    (async () => {
      try {
        const j = await apiGet(`/api/v1/jobs/${id}`, ctl.signal);
        setJob(j);
        if (j.status === 'done') {
          const [r, p] = await Promise.all([apiGet(`/api/v1/jobs/${id}/result`, ctl.signal), apiGet(`/api/v1/jobs/${id}/poses`, ctl.signal)]);
          setResult(r); setPoses(p);
        }
      } catch (e) { if (e.name !== 'AbortError') setError(e.message); }
    })();
    return () => ctl.abort();
  }, [id]);

  const allChannels = result ? result.columns.slice(1) : [];
  const channels = useMemo(() => {
    const want = chParam ? chParam.split(',').filter((c) => allChannels.includes(c)) : allChannels.slice(0, 4);
    return want;
  }, [result, chParam]);

  useEffect(() => {
    if (!result || !channels.length) return undefined;
    const ctl = new AbortController();
    const ids = [id, ...withIds].join(',');
    apiGet(`/api/v1/samples?jobs=${ids}&points=${POINTS}&channels=${channels.map(encodeURIComponent).join(',')}`, ctl.signal)
      .then(setSamples).catch((e) => { if (e.name !== 'AbortError') setError(e.message); });
    return () => ctl.abort();
  }, [result, channels.join(','), withIds.join(',')]);

  // the min/max envelope of the whole sweep (env=1), over this job's time range
  const wantEnv = query.get('env') === '1';
  const [envelope, setEnvelope] = useState(null);
  useEffect(() => {
    setEnvelope(null);
    if (!wantEnv || !job || !result || !channels.length || !result.rows.length) return undefined;
    const ctl = new AbortController();
    const t0 = result.rows[0][0], t1 = result.rows[result.rows.length - 1][0];
    const range = t1 > t0 ? `&t0=${t0}&t1=${t1}` : '';
    apiGet(`/api/v1/sweeps/${job.sweep_id}/envelope?points=500${range}&channels=${channels.slice(0, 8).map(encodeURIComponent).join(',')}`, ctl.signal)
      .then(setEnvelope).catch((e) => { if (e.name !== 'AbortError') setError(e.message); });
    return () => ctl.abort();
  }, [wantEnv, job, result, channels.join(',')]);

  // other jobs in the animated scene (scene=side|over: the first three
  // overlaid jobs), colours by a channel (colour=NAME)
  const scene = ['side', 'over'].includes(query.get('scene')) ? query.get('scene') : null;
  const colour = query.get('colour');
  const sceneIds = scene ? withIds.slice(0, 3) : [];
  const [others, setOthers] = useState([]);
  useEffect(() => {
    setOthers([]);
    if (!sceneIds.length) return undefined;
    const ctl = new AbortController();
    Promise.all(sceneIds.map((w) => apiGet(`/api/v1/jobs/${w}/poses`, ctl.signal).then((P) => ({ id: w, P }))))
      .then((o) => setOthers(o.filter((x) => x.P.nframe > 0)))
      .catch((e) => { if (e.name !== 'AbortError') setError(e.message); });
    return () => ctl.abort();
  }, [sceneIds.join(',')]);
  const [colorData, setColorData] = useState(null);
  useEffect(() => {
    setColorData(null);
    if (!colour || !result || !allChannels.includes(colour)) return undefined;
    const ctl = new AbortController();
    const ids = [id, ...sceneIds];
    apiGet(`/api/v1/samples?jobs=${ids.join(',')}&points=1000&channels=${encodeURIComponent(colour)}`, ctl.signal).then((s) => {
      // each job's series (a decimated bucket by its largest value), the range over all
      const series = ids.map((j) => {
        const x = s.jobs.find((q) => String(q.job) === String(j));
        return x && x.available && x.channels[colour] ? { t: x.t, v: x.channels[colour].max } : null;
      });
      let lo = Infinity, hi = -Infinity;
      for (const sr of series) if (sr) for (const v of sr.v) if (v !== null && Number.isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
      setColorData({ channel: colour, lo, hi, series, ids: ids.map(String) });
    }).catch((e) => { if (e.name !== 'AbortError') setError(e.message); });
    return () => ctl.abort();
  }, [colour, result, sceneIds.join(',')]);

  // the time goes to the URL when it stops moving
  useEffect(() => {
    if (playing) return undefined;
    const h = setTimeout(() => setQuery({ t: t ? String(t) : null }), 150);
    return () => clearTimeout(h);
  }, [t, playing]);

  // the parts that do not depend on the time are made once (the same vnode
  // is not diffed again): an animation re-renders this view at every frame
  const head = useMemo(() => job && (
    <>
      <p class="crumbs"><Link href="/">Sweeps</Link> › <Link href={`/sweeps/${job.sweep_id}`}>sweep {job.sweep_id.slice(0, 8)}</Link> ›</p>
      <h1>Job {job.id} <span class={`badge ${job.status}`} id="job-status">{job.status}</span></h1>
      <dl class="summary">
        {Object.entries(job.parameters || {}).map(([k, v]) => <div><dt>{k}</dt><dd>{fmtNum(v)}</dd></div>)}
        {Object.entries(job.responses || {}).map(([k, v]) => <div><dt>{k}</dt><dd>{fmtNum(v)}</dd></div>)}
        {job.metrics && <div><dt>CPU</dt><dd>{fmtNum(job.metrics.cpu_seconds)} s</dd></div>}
        {job.metrics && <div><dt>steps</dt><dd>{job.metrics.steps}</dd></div>}
      </dl>
      {job.error && <p class="error">{job.error}</p>}
    </>
  ), [job]);
  const chooser = useMemo(() => {
    const toggle = (c, on) => {
      const next = on ? [...channels, c] : channels.filter((x) => x !== c);
      setQuery({ ch: next.join(',') || null });
    };
    return (
      <div class="controls">
        <details class="axes"><summary>Channels ({channels.length} of {allChannels.length})</summary>
          <fieldset><legend>Channels plotted</legend>
            {allChannels.map((c) => <label class="check"><input type="checkbox" data-channel={c} checked={channels.includes(c)}
              onChange={(e) => toggle(c, e.currentTarget.checked)} />{c}</label>)}
          </fieldset></details>
        <label>Overlay jobs <input id="with" type="text" value={withIds.join(',')} placeholder="ids, comma-separated"
          onChange={(e) => setQuery({ with: e.currentTarget.value.replace(/\s+/g, '') || null })} /></label>
        <label class="check"><input type="checkbox" id="envelope" checked={wantEnv}
          onChange={(e) => setQuery({ env: e.currentTarget.checked ? '1' : null })} />min/max of the whole sweep</label>
        <label>Animate the overlaid jobs <select id="scene" value={scene || ''} onChange={(e) => setQuery({ scene: e.currentTarget.value || null })}>
          <option value="">no (this job only)</option><option value="side">side by side</option><option value="over">overlaid</option>
        </select></label>
      </div>
    );
  }, [result, channels.join(','), withIds.join(','), wantEnv, scene]);

  const colourBy = useMemo(() => ({ channels: allChannels, value: colour, set: (c) => setQuery({ colour: c }) }), [result, colour]);
  // the joint reaction forces the geometry names among the result's channels
  const forcesOn = query.get('forces') === '1';
  const forceList = useMemo(() => (poses && result ? forceColumns(poses.geometry, result.columns) : []), [poses, result]);
  const forces = useMemo(() => forceList.length ? {
    list: forceList, rows: result.rows, max: forceMax(result.rows, forceList), on: forcesOn,
    set: (on) => setQuery({ forces: on ? '1' : null }),
  } : null, [forceList, forcesOn]);

  // the contact forces stored with the poses (models with contact pairs)
  const contactsOn = query.get('contacts') === '1';
  const contacts = useMemo(() => (poses && poses.contacts ? {
    max: contactMax(poses), on: contactsOn, set: (on) => setQuery({ contacts: on ? '1' : null }),
  } : null), [poses, contactsOn]);

  // the applied loads (force and torque elements) at the frames, and the DC
  // motors' torques where a channel holds them (planar)
  const loadsOn = query.get('loads') === '1';
  const motorList = useMemo(() => (poses && result ? motorColumns(poses.geometry, result.columns) : []), [poses, result]);
  const loads = useMemo(() => {
    const motors = motorList.length ? { list: motorList, rows: result.rows } : null;
    if (!poses || (!(poses.loads && poses.loads.length) && !motors)) return null;
    return { max: loadMax(poses, motors), motors, on: loadsOn, set: (on) => setQuery({ loads: on ? '1' : null }),
      names: [...(poses.loads || []).map((l) => l.name || l.kind), ...motorList.map((m) => m.name || 'motor')] };
  }, [poses, motorList, loadsOn]);

  if (error) return <main><h1>Job {id}</h1><p class="error" role="alert">{error}</p></main>;
  if (!job) return <main><h1>Job {id}</h1><p>Loading…</p></main>;
  return (
    <main class="wide">
      {head}
      {job.status !== 'done' ? <p>No samples: the job is {job.status}.</p> : !result || !poses ? <p>Loading samples…</p> : (
        <div class="job-grid">
          <section aria-label="Animation">
            <Anim P={poses} id={id} others={others} overlay={scene === 'over'} color={colorData} colourBy={colourBy} forces={forces} contacts={contacts} loads={loads} t={t} setT={setTstate} playing={playing} setPlaying={setPlaying} speed={speed} setSpeed={setSpeed} />
          </section>
          <section aria-label="Channels">
            {chooser}
            {samples ? <Plots samples={samples} envelope={wantEnv ? envelope : null} channels={channels} t={t} setT={(x) => { setPlaying(false); setTstate(x); }} /> : <p>Loading plots…</p>}
          </section>
        </div>
      )}
    </main>
  );
}
