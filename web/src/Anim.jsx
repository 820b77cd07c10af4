// Anim.jsx - the animation of a job from its stored body poses
// (GET /api/v1/jobs/{id}/poses, every job has them): planar on a 2-D canvas
// (Planar.jsx), spatial with three.js (Scene3D.jsx, a chunk of its own,
// loaded when first needed).  Play, pause, speed and scrubbing; the time is
// shared with the plots (and the URL).  Between two stored frames the poses
// are interpolated; at a frame's time they are the stored values.  The
// table under it is the text alternative: every body's pose at the time
// shown, from the same values the drawing uses.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { localGeometry, poseAt, frameAt, bodySpeedAt, bodySpeedMax, BODY_SPEED } from './pose.js';
import { jobColor, ramp, bodyColor, ACTUATOR_COLOR } from './colors.js';
import { Planar } from './Planar.jsx';
import { fmtNum } from './format.js';
import { arrowsAt, contactsAt, bodyContactAt, bodyContactMax, loadsAt, motorsAt, BODY_CONTACT, FORCE_COLOR, CONTACT_COLOR, LOAD_COLOR, ARROW_PX, ARROW_SPAN, TORQUE_DEG } from './forces.js';

// three.js is loaded once, on the first spatial drawing.
let s_scene3d = null;
export function MechanismView({ L, P, v, frame = null, label, members = [], overlay = false, tint = null, bodyTint = null, arrows = null, contacts = null, loads = null }) {
  const [Scene, setScene] = useState(() => s_scene3d);
  const [err, setErr] = useState(null);
  useEffect(() => {
    if (L.dim === 3 && !Scene) {
      import('./Scene3D.jsx').then((m) => { s_scene3d = m.Scene3D; setScene(() => m.Scene3D); }).catch((e) => setErr(e.message));
    }
  }, [L.dim]);
  if (L.dim === 2) return <Planar L={L} P={P} v={v} frame={frame} label={label} members={members} overlay={overlay} tint={tint} bodyTint={bodyTint} arrows={arrows} contacts={contacts} loads={loads} />;
  if (err) return <p class="error" role="alert">Cannot load the 3-D view: {err}</p>;
  return Scene ? <Scene L={L} P={P} v={v} members={members} overlay={overlay} tint={tint} bodyTint={bodyTint} arrows={arrows} contacts={contacts} loads={loads} /> : <p>Loading the 3-D view…</p>;
}

// The pose table: per body x y (z) and the angle or quaternion at the time shown.
// color: the colour every body is drawn in (a job's colour), or null: each its
// own, colors[b] where given (coloured per body), else its palette colour.
export function PoseTable({ P, pose, caption, color = null, colors = null }) {
  const np = P.npose, names = np === 3 ? ['x', 'y', 'angle'] : ['x', 'y', 'z', 'qw', 'qx', 'qy', 'qz'];
  return (
    <table class="list small" id="anim-table">
      <caption>{caption}</caption>
      <thead><tr><th scope="col">Body</th>{names.map((n) => <th scope="col">{n}</th>)}</tr></thead>
      <tbody>{P.bodies.map((b, i) => { const c = color || (colors && colors[i]) || bodyColor(i); return <tr data-body={b}><td><span class="swatch" data-color={c} ref={(el) => { if (el) el.style.background = c; }} />{b}</td>
        {names.map((_, k) => <td class="num" data-v={pose.v[i * np + k]}>{fmtNum(pose.v[i * np + k])}</td>)}</tr>; })}</tbody>
    </table>
  );
}

// The joints and what drives the mechanism, as a table (the text
// alternative of the joint glyphs): per joint its type, bodies (each with
// its drawing colour), point and axis at t = 0, and its drivers, motors and
// rotational springs; then the forces and torques on bodies.
export function JointTable({ G }) {
  if (!G || !G.joints) return null;
  const dim = G.dimension, acts = G.actuators || [];
  const bodyName = (b) => (b < 0 ? 'ground' : G.bodies[b] ? G.bodies[b].name : String(b));
  const vecText = (p) => (p ? `(${p.slice(0, dim).map(fmtNum).join(', ')})` : '');
  const swatch = (color) => <span class="swatch" data-color={color} ref={(el) => { if (el) el.style.background = color; }} />;
  const drives = (k) => acts.filter((a) => a.joint === k);
  const onBodies = acts.filter((a) => a.joint === undefined);
  return (
    <table class="list small" id="joint-table">
      <caption>Joints by type and what drives the mechanism ({G.joints.length} joints, {acts.length} actuators)</caption>
      <thead><tr><th scope="col">Joint</th><th scope="col">Type</th><th scope="col">Bodies</th><th scope="col">Point at t = 0</th>
        <th scope="col">Axis</th><th scope="col">Driven by</th></tr></thead>
      <tbody>
        {G.joints.map((j, k) => (
          <tr data-joint={j.name} data-type={j.type} data-drives={drives(k).map((a) => a.kind).join(',')}>
            <td>{j.name}</td><td>{j.type}</td>
            <td>{j.bodies.map((b, i) => <span data-body={bodyName(b)}>{i ? ' – ' : ''}{b >= 0 && swatch(bodyColor(b))}{bodyName(b)}</span>)}</td>
            <td class="num">{j.points ? j.points.map(vecText).join(' – ') : vecText(j.at)}</td>
            <td class="num">{j.axes ? j.axes.map(vecText).join(', ') : j.axis ? vecText(j.axis) : dim === 2 && j.type === 'revolute' ? 'z' : ''}</td>
            <td>{drives(k).map((a) => <span data-kind={a.kind}>{swatch(ACTUATOR_COLOR[a.kind])}{a.kind.replace(/_/g, ' ')}{a.name && a.kind !== 'driver' ? ` ${a.name}` : ''} </span>)}</td>
          </tr>
        ))}
        {onBodies.map((a) => (
          <tr data-actuator={a.kind} data-name={a.name}>
            <td>{a.name || '—'}</td><td>{a.kind}</td><td><span data-body={bodyName(a.body)}>{swatch(bodyColor(a.body))}{bodyName(a.body)}</span></td>
            <td class="num">{vecText(a.at)}</td><td /><td>{swatch(ACTUATOR_COLOR[a.kind])}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

// The value, updated at most every `ms` milliseconds (0: at once).
function useThrottled(value, ms) {
  const [v, setV] = useState(value);
  const last = useRef(0);
  useEffect(() => {
    if (!ms) { setV(value); last.current = performance.now(); return undefined; }
    const wait = Math.max(0, last.current + ms - performance.now());
    const h = setTimeout(() => { setV(value); last.current = performance.now(); }, wait);
    return () => clearTimeout(h);
  }, [value, ms]);
  return ms ? v : value;
}

// The value of a channel series {t, v} at time t: the last sample at or before t.
function valueAt(sr, t) {
  if (!sr || !sr.t.length) return null;
  const x = sr.v[frameAt(sr.t, t)];
  return x === null || x === undefined || !Number.isFinite(x) ? null : x;
}

// The colour scale of a channel as a bar from its least value (left) to its
// largest (right) over the jobs in the scene, with a mark at each job's
// value at the time shown: the legend of the drawing's colours.
const LEGEND_STOPS = 11;
function ColourLegend({ color, values, ids }) {
  const span = color.hi > color.lo ? color.hi - color.lo : 0;
  const at = (x) => (span ? (x - color.lo) / span : 0.5);
  const grad = `linear-gradient(to right, ${Array.from({ length: LEGEND_STOPS }, (_, i) => ramp(i / (LEGEND_STOPS - 1))).join(', ')})`;
  return (
    <div class="colour-legend" id="colour-legend" data-channel={color.channel} data-lo={color.lo} data-hi={color.hi}
      role="img" aria-label={`Colour scale of ${color.channel}: ${fmtNum(color.lo)} (blue) to ${fmtNum(color.hi)} (red)`}>
      <span class="name">{color.channel}</span>
      <span class="lo">{fmtNum(color.lo)}</span>
      <span class="bar" ref={(el) => { if (el) el.style.backgroundImage = grad; }}>
        {values.map((x, k) => x !== null && (
          <span class="mark" data-job={ids[k]} title={`job ${ids[k]}: ${fmtNum(x)}`}
            ref={(el) => { if (el) el.style.left = `${(100 * Math.min(1, Math.max(0, at(x)))).toFixed(2)}%`; }} />
        ))}
      </span>
      <span class="hi">{fmtNum(color.hi)}</span>
    </div>
  );
}

// The scale of the force arrows (their legend): a magenta arrow as long as
// the largest force of the run is drawn (2-D: ARROW_PX pixels; 3-D: a
// fraction of the scene's size), with that force's value.
function ForceLegend({ max, dim }) {
  return (
    <div class="force-legend" id="force-legend" data-max={max} role="img"
      aria-label={`Force arrows: ${dim === 2 ? `${ARROW_PX} pixels` : `${ARROW_SPAN * 100} % of the scene's size`} = ${fmtNum(max)} N, the largest force of the run`}>
      <span class="arrow" ref={(el) => { if (el) { el.style.width = `${ARROW_PX}px`; el.style.color = FORCE_COLOR; } }} />
      <span>= {fmtNum(max)} N{dim === 3 ? ` (${ARROW_SPAN * 100} % of the scene)` : ''}, the largest force of the run</span>
    </div>
  );
}

// The scale of the contact force arrows (cyan), as ForceLegend's.
function ContactLegend({ max, dim }) {
  return (
    <div class="force-legend" id="contact-legend" data-max={max} role="img"
      aria-label={`Contact force arrows: ${dim === 2 ? `${ARROW_PX} pixels` : `${ARROW_SPAN * 100} % of the scene's size`} = ${fmtNum(max)} N, the largest contact force stored`}>
      <span class="arrow" ref={(el) => { if (el) { el.style.width = `${ARROW_PX}px`; el.style.color = CONTACT_COLOR; } }} />
      <span>= {fmtNum(max)} N{dim === 3 ? ` (${ARROW_SPAN * 100} % of the scene)` : ''}, the largest contact force stored</span>
    </div>
  );
}

// The scales of the applied loads (violet): an arrow as long as the largest
// applied force of the run, an arc of TORQUE_DEG degrees (2-D) or an arrow
// (3-D) for the largest torque.
function LoadLegend({ max, dim }) {
  const len = dim === 2 ? `${ARROW_PX} pixels` : `${ARROW_SPAN * 100} % of the scene's size`;
  const parts = [max.force > 0 && `= ${fmtNum(max.force)} N`,
    max.torque > 0 && `${dim === 2 ? `an arc of ${TORQUE_DEG}°` : 'an arrow of the same length'} = ${fmtNum(max.torque)} N m`].filter(Boolean);
  return (
    <div class="force-legend" id="load-legend" data-force={max.force} data-torque={max.torque} role="img"
      aria-label={`Applied loads, the largest of the run: ${max.force > 0 ? `an arrow of ${len} = ${fmtNum(max.force)} N` : ''}${max.force > 0 && max.torque > 0 ? '; ' : ''}${max.torque > 0 ? `${dim === 2 ? `an arc of ${TORQUE_DEG} degrees` : `an arrow of ${len}`} = ${fmtNum(max.torque)} N m` : ''}`}>
      {max.force > 0 && <span class="arrow" ref={(el) => { if (el) { el.style.width = `${ARROW_PX}px`; el.style.color = LOAD_COLOR; } }} />}
      <span>{parts.join('; ')}: the largest applied loads of the run</span>
    </div>
  );
}

// The applied loads drawn, as a table (their text alternative): per load its
// kind, world components (a planar torque about z) and magnitude at the time
// shown; each value cell says its component (data-c).
function LoadTable({ items, dim, t }) {
  const names = ['x', 'y', 'z'];
  const rows = [...items.forces.map((a) => ({ ...a, force: true, kind: a.actuator ? 'actuator force' : 'force', c: a.F })),
    ...items.torques.map((a) => ({ ...a, force: false, kind: a.motor ? 'motor torque' : a.actuator ? 'actuator torque' : 'torque', c: a.T }))];
  const cell = (k, x) => <td class="num" data-c={k} data-v={x === undefined ? '' : x}>{x === undefined ? '' : fmtNum(x)}</td>;
  return (
    <table class="list small" id="load-table">
      <caption>Applied loads at t = {fmtNum(t)} s (world axes; N, N m)</caption>
      <thead><tr><th scope="col">Load</th><th scope="col">Kind</th>{names.map((n) => <th scope="col">{n}</th>)}<th scope="col">|F|, |T|</th></tr></thead>
      <tbody>{rows.map((a) => (
        <tr data-load={a.name} data-kind={a.kind}><td>{a.name}</td><td>{a.kind}</td>
          {names.map((n, i) => cell(n, dim === 2 && (a.force ? i === 2 : i < 2) ? undefined : a.c[i]))}
          {cell('m', Math.hypot(...a.c))}</tr>
      ))}</tbody>
    </table>
  );
}

// When a job's contact points reached the limit a job keeps (P.contacts.limit,
// 32768), the later frames have none stored: said in words, with the time
// up to which they are drawn.  Null when every frame's points are stored.
function ContactCap({ P }) {
  const C = P.contacts;
  if (!C || C.nframe >= P.nframe) return null;
  const until = C.nframe > 0 ? P.times[C.nframe - 1] : null;
  return (
    <p class="note" id="contact-cap" role="note" data-nframe={C.nframe} data-until={until === null ? '' : until}>
      Contact points are stored for the first {C.nframe} of {P.nframe} frames{until === null ? '' : ` (up to t = ${fmtNum(until)} s)`}:
      this job's points reached the {C.limit ? `${C.limit.toLocaleString('en')} points` : 'most'} a job keeps, so no contact force is drawn after that.
    </p>
  );
}

// The contact forces drawn, as a table (their text alternative): per
// touching point its pair, body, point and force at the frame shown (none
// stored at the frames after the first P.contacts.nframe).
function ContactTable({ items, P, f, dim, t }) {
  const names = dim === 3 ? ['x', 'y', 'z'] : ['x', 'y'];
  const stored = f < P.contacts.nframe;
  return (
    <table class="list small" id="contact-table" data-stored={stored ? '1' : '0'}>
      <caption>Contact forces at t = {fmtNum(t)} s ({stored ? `${items.length} touching points; N, on the body at its point`
        : `not stored: only the first ${P.contacts.nframe} frames' points are kept`})</caption>
      <thead><tr><th scope="col">Pair</th><th scope="col">Body</th>{names.map((n) => <th scope="col">{n}</th>)}
        {names.map((n) => <th scope="col">F{n}</th>)}<th scope="col">|F|</th></tr></thead>
      <tbody>{items.map((a) => (
        <tr data-pair={a.pair} data-body={a.body}><td>{a.pair}</td><td>{P.bodies[a.body]}</td>
          {names.map((_, i) => <td class="num" data-v={a.p[i]}>{fmtNum(a.p[i])}</td>)}
          {a.F.map((x) => <td class="num" data-v={x}>{fmtNum(x)}</td>)}<td class="num">{fmtNum(Math.hypot(...a.F))}</td></tr>
      ))}</tbody>
    </table>
  );
}

// Colours per body (by its contact force): the scale as a bar from 0
// (blue) to the largest value stored (red), and per body its value, scaled
// value and colour at the frame shown (the text alternative).
// The quantities a body can be coloured by ("Colour by"): each body's value
// at a frame, the largest over the frames, and whether poses P offer it.
const BODY_QUANTITIES = {
  [BODY_CONTACT]: { name: 'contact force', unit: 'N', at: bodyContactAt, max: bodyContactMax, offered: (P) => !!P.contacts,
    label: "each body's contact force" },
  [BODY_SPEED]: { name: 'speed', unit: 'm/s', at: bodySpeedAt, max: bodySpeedMax, offered: (P) => P.times.length > 1,
    label: "each body's speed" },
};
function BodyColourLegend({ name, hi }) {
  const grad = `linear-gradient(to right, ${Array.from({ length: LEGEND_STOPS }, (_, i) => ramp(i / (LEGEND_STOPS - 1))).join(', ')})`;
  return (
    <div class="colour-legend" id="colour-legend" data-channel={name} data-lo={0} data-hi={hi}
      role="img" aria-label={`Colour scale of each body's ${name}: 0 (blue) to ${fmtNum(hi)} (red)`}>
      <span class="name">{name}</span><span class="lo">0</span>
      <span class="bar" ref={(el) => { if (el) el.style.backgroundImage = grad; }} />
      <span class="hi">{fmtNum(hi)}</span>
    </div>
  );
}
function BodyColourTable({ name, unit, hi, values, P, t }) {
  const tint = (x) => (x === null ? null : hi > 0 ? x / hi : 0);
  return (
      <table class="list small" id="body-colours">
        <caption>Each body's {name} at t = {fmtNum(t)} s ({unit}) and its colour</caption>
        <thead><tr><th scope="col">Body</th><th scope="col">Colour</th><th scope="col">{name}</th></tr></thead>
        <tbody>{P.bodies.map((b, i) => {
          const k = tint(values[i]), col = k === null ? bodyColor(i) : ramp(k);
          return (<tr data-body={b} data-tint={k === null ? '' : k}><td>{b}</td>
            <td><span class="swatch" data-color={col} ref={(el) => { if (el) el.style.background = col; }} /></td>
            <td class="num" data-v={values[i] === null ? '' : values[i]}>{values[i] === null ? 'not stored' : fmtNum(values[i])}</td></tr>);
        })}</tbody>
      </table>
  );
}

// The forces drawn, as a table (their text alternative): per force its
// components and magnitude at the time shown and its arrow's length.
function ForceTable({ arrows, dim, t }) {
  const names = dim === 3 ? ['x', 'y', 'z'] : ['x', 'y'];
  const k = dim === 2 ? ARROW_PX / arrows.max : null;
  return (
    <table class="list small" id="force-table">
      <caption>Joint reaction forces at t = {fmtNum(t)} s (N, on the joint's second body)</caption>
      <thead><tr><th scope="col">Joint</th>{names.map((n) => <th scope="col">F{n}</th>)}<th scope="col">|F|</th>
        {k && <th scope="col">arrow (px)</th>}</tr></thead>
      <tbody>{arrows.items.map((a) => {
        const m = Math.hypot(...a.F);
        return (<tr data-force={a.name}><td>{a.name}</td>{a.F.map((x) => <td class="num" data-v={x}>{fmtNum(x)}</td>)}
          <td class="num" data-v={m}>{fmtNum(m)}</td>{k && <td class="num">{fmtNum(Math.round(m * k * 10) / 10)}</td>}</tr>);
      })}</tbody>
    </table>
  );
}

// others: [{id, P}] jobs drawn in the same scene (overlay: on top of this
// one, else side by side), each at the same time (held at its last frame
// when its run is shorter); color: {channel, lo, hi, series: [{t, v}] per
// job in the order of ids (strings), this one first} colours each job by the channel's value at the time
// shown (lo -> blue, hi -> red); colourBy: {channels, value, set} the
// "Colour by" choice among the job's channels, shown with the controls;
// forces: {list, rows, max, on, set} the joint reaction forces of the job's
// samples (forces.js) drawn as arrows when on, with their legend and table;
// contacts: {max, on, set} the contact forces stored with the poses
// (P.contacts, forces.js contactsAt) likewise.
export function Anim({ P, t, setT, playing, setPlaying, speed, setSpeed, id = null, others = [], overlay = false, color = null, colourBy = null, forces = null, contacts = null, loads = null }) {
  const L = useMemo(() => localGeometry(P.geometry), [P]);
  const oL = useMemo(() => others.map((o) => localGeometry(o.P.geometry)), [others]);
  const times = P.times, t0 = times.length ? times[0] : 0, t1 = times.length ? times[times.length - 1] : 0;
  const pose = poseAt(P, Math.min(Math.max(t, t0), t1));

  // play: advance the time with the wall clock times the speed.  A pause or
  // a scrub stops the loop at once (run.on), before the effect's clean-up.
  const run = useRef({ on: false });
  const stop = () => { run.current.on = false; setPlaying(false); };
  useEffect(() => {
    if (!playing) return undefined;
    const me = { on: true };
    run.current = me;
    let raf = 0, last = performance.now(), cur = t >= t1 ? t0 : t;
    const step = (now) => {
      if (!me.on) return;
      cur += ((now - last) / 1000) * speed; last = now;
      if (cur >= t1) { setT(t1); stop(); return; }
      setT(cur);
      raf = requestAnimationFrame(step);
    };
    raf = requestAnimationFrame(step);
    return () => { me.on = false; cancelAnimationFrame(raf); };
  }, [playing, speed]);

  // the table follows the time at most four times a second while playing
  // (a hundred bodies' rows at every frame would cost more than the drawing),
  // and exactly as soon as the time stops
  // (the table is made once per time it shows: not diffed at every frame)
  const tableT = useThrottled(t, playing ? 250 : 0);
  const tk = Math.min(Math.max(playing ? tableT : t, t0), t1);
  // (its swatches in the colour this job is drawn in)
  const nOthers = others.length;
  // colours per body by a quantity of each body (the "Colour by" choices
  // BODY_CONTACT, BODY_SPEED: BODY_QUANTITIES), on a scale from 0 to its
  // largest value over the frames
  const bq = colourBy && BODY_QUANTITIES[colourBy.value];
  const perBody = bq && bq.offered(P) ? bq : null;
  const bodyHi = useMemo(() => (perBody ? perBody.max(P) : 0), [P, perBody]);
  const table = useMemo(() => {
    const tp = poseAt(P, tk);
    const x = color && tp ? valueAt(color.series[color.ids.indexOf(String(id))], tp.t) : null;
    const one = x !== null ? ramp(color.hi > color.lo ? (x - color.lo) / (color.hi - color.lo) : 0.5) : nOthers ? jobColor(0) : null;
    // (coloured per body: each body's swatch in the colour it is drawn in)
    const each = perBody && tp ? perBody.at(P, tp.f).map((v, i) => (v === null ? bodyColor(i) : ramp(bodyHi > 0 ? v / bodyHi : 0))) : null;
    return tp && <PoseTable P={P} pose={tp} color={one} colors={each} caption={`Poses at t = ${fmtNum(tp.t)} s (frame ${tp.f} of ${P.nframe}${tp.u ? ', interpolated' : ''})`} />;
  }, [P, tk, color, nOthers, perBody, bodyHi]);

  // the force arrows at the time shown (the first job's), their table as the pose table's
  const arrows = useMemo(() => (forces && forces.on && pose && forces.list.length
    ? { items: arrowsAt(L, forces.list, forces.rows, pose.v, pose.t), max: forces.max } : null), [forces, pose && pose.t, L]);
  const forceTable = useMemo(() => {
    if (!arrows) return null;
    const tp = poseAt(P, tk);
    return tp && <ForceTable arrows={{ items: arrowsAt(L, forces.list, forces.rows, tp.v, tp.t), max: forces.max }} dim={L.dim} t={tp.t} />;
  }, [arrows && forces, tk, L]);

  // the contact arrows at the time shown, their table as the pose table's
  const cArrows = useMemo(() => (contacts && contacts.on && pose
    ? { items: contactsAt(P, L, pose), max: contacts.max } : null), [contacts, pose && pose.t, L]);
  const contactTable = useMemo(() => {
    if (!cArrows) return null;
    const tp = poseAt(P, tk);
    return tp && <ContactTable items={contactsAt(P, L, tp)} P={P} f={tp.f} dim={L.dim} t={tp.t} />;
  }, [cArrows && contacts, tk, L]);

  // the applied loads at the time shown (poses' "loads"), their table as the pose table's
  // (with the DC motors' torques from the samples, where declared)
  const loadItems = (tp) => {
    const x = loadsAt(P, L, tp);
    if (loads.motors) x.torques.push(...motorsAt(L, loads.motors, tp.v, tp.t));
    return x;
  };
  const lItems = useMemo(() => (loads && loads.on && pose
    ? { ...loadItems(pose), fmax: loads.max.force, tmax: loads.max.torque } : null), [loads, pose && pose.t, L]);
  const loadTable = useMemo(() => {
    if (!lItems) return null;
    const tp = poseAt(P, tk);
    return tp && <LoadTable items={loadItems(tp)} dim={L.dim} t={tp.t} />;
  }, [lItems && loads, tk, L]);

  // (they change only from frame to frame; the table, a row per body, follows
  // the time as the pose table does)
  const bodyF = perBody && pose ? pose.f : -1;
  const bodyValues = useMemo(() => (bodyF >= 0 ? perBody.at(P, bodyF) : null), [P, perBody, bodyF]);
  const bodyTint = useMemo(() => (bodyValues ? bodyValues.map((x) => (x === null ? null : bodyHi > 0 ? x / bodyHi : 0)) : null), [bodyValues, bodyHi]);
  const bodyTable = useMemo(() => {
    const tp = perBody ? poseAt(P, tk) : null;
    return tp && <BodyColourTable name={perBody.name} unit={perBody.unit} hi={bodyHi} values={perBody.at(P, tp.f)} P={P} t={tp.t} />;
  }, [P, perBody, bodyHi, tk]);

  if (!pose) return <p id="no-poses">No body poses are stored for this job (run by an older worker): nothing to animate.</p>;
  const label = `t = ${fmtNum(pose.t)} s`;
  // the other jobs at the same time, each within its own run
  const members = others.map((o, k) => {
    const ts = o.P.times, v = ts.length ? poseAt(o.P, Math.min(Math.max(t, ts[0]), ts[ts.length - 1])).v : null;
    return { id: o.id, L: oL[k], P: o.P, v };
  }).filter((m) => m.v && m.L.dim === L.dim);
  const ids = [id, ...members.map((m) => m.id)];
  const values = color ? ids.map((j) => valueAt(color.series[color.ids.indexOf(String(j))], pose.t)) : null;
  const tint = values ? values.map((x) => (x === null ? null : color.hi > color.lo ? (x - color.lo) / (color.hi - color.lo) : 0.5)) : null;
  return (
    <figure class="anim">
      <MechanismView L={L} P={P} v={pose.v} frame={pose.f} label={label} members={members} overlay={overlay} tint={tint} bodyTint={bodyTint} arrows={arrows} contacts={cArrows} loads={lItems} />
      {arrows && <ForceLegend max={forces.max} dim={L.dim} />}
      {cArrows && <ContactLegend max={contacts.max} dim={L.dim} />}
      {lItems && <LoadLegend max={loads.max} dim={L.dim} />}
      {(members.length > 0 || color) && (
        <table class="list small" id="scene-jobs">
          <caption>Jobs in the scene{members.length ? (overlay ? ', overlaid' : ', side by side') : ''}{color ? `, coloured by ${color.channel} (${fmtNum(color.lo)} blue … ${fmtNum(color.hi)} red)` : ''}</caption>
          <thead><tr><th scope="col">Job</th><th scope="col">Colour</th>{color && <th scope="col">{color.channel} at t</th>}</tr></thead>
          <tbody>{ids.map((j, k) => (
            <tr data-job={j} data-tint={tint && tint[k] !== null ? tint[k] : ''}><td>{j}</td>
              <td><span class="swatch" data-color={tint && tint[k] !== null ? ramp(tint[k]) : members.length ? jobColor(k) : 'per body'}
                ref={(el) => { if (el) el.style.background = tint && tint[k] !== null ? ramp(tint[k]) : members.length ? jobColor(k) : 'transparent'; }} /></td>
              {color && <td class="num" data-v={values[k]}>{fmtNum(values[k])}</td>}</tr>
          ))}</tbody>
        </table>
      )}
      {color && <ColourLegend color={color} values={values} ids={ids} />}
      {bodyValues && <BodyColourLegend name={perBody.name} hi={bodyHi} />}
      {(cArrows || perBody === BODY_QUANTITIES[BODY_CONTACT]) && <ContactCap P={P} />}
      <div class="controls">
        <button type="button" id="play" onClick={() => (playing ? stop() : setPlaying(true))}>{playing ? 'Pause' : 'Play'}</button>
        <label>Speed <select id="speed" value={String(speed)} onChange={(e) => setSpeed(Number(e.currentTarget.value))}>
          {[0.1, 0.25, 0.5, 1, 2, 4].map((x) => <option value={String(x)}>{x}×</option>)}
        </select></label>
        <label class="grow">Time <input id="time" type="range" min={t0} max={t1} step="any"
          value={pose.t} onInput={(e) => { stop(); setT(Number(e.currentTarget.value)); }} aria-valuetext={`${fmtNum(pose.t)} s`} /></label>
        <span id="time-shown" data-t={pose.t} data-frame={pose.f} data-u={pose.u}>{fmtNum(pose.t)} s</span>
        {colourBy && <label>Colour by <select id="colour" value={colourBy.value || ''} onChange={(e) => colourBy.set(e.currentTarget.value || null)}>
          <option value="">{members.length ? 'job' : 'body'}</option>
          {Object.entries(BODY_QUANTITIES).map(([k, q]) => q.offered(P) && <option value={k}>{q.label}</option>)}
          {colourBy.channels.map((c) => <option value={c}>{c}</option>)}
        </select></label>}
        {forces && forces.list.length > 0 && <label class="check"><input type="checkbox" id="forces" checked={forces.on}
          onChange={(e) => forces.set(e.currentTarget.checked)} />Forces ({forces.list.map((f) => f.name).join(', ')})</label>}
        {contacts && <label class="check"><input type="checkbox" id="contacts" checked={contacts.on}
          onChange={(e) => contacts.set(e.currentTarget.checked)} />Contact forces</label>}
        {loads && <label class="check"><input type="checkbox" id="loads" checked={loads.on}
          onChange={(e) => loads.set(e.currentTarget.checked)} />Applied loads ({loads.names.join(', ')})</label>}
      </div>
      <figcaption>
        {table}
        {forceTable}
        {contactTable}
        {loadTable}
        {bodyTable}
        <details class="joints"><summary>Joints and actuators</summary><JointTable G={P.geometry} /></details>
      </figcaption>
    </figure>
  );
}
