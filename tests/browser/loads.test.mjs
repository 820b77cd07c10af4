// loads.test.mjs - applied forces and torques drawn in the animation (view
// 3, issue 10): the poses' "loads" (GET /api/v1/jobs/{id}/poses), the force
// and torque elements' values at the frame times, evaluated by the gateway.
// Two models, one job each, run by a worker started here (the "control"
// sweep paused meanwhile): a planar pendulum pushed by a force given in the
// bob's axes (at a point off its centre of mass) and turned by a torque, and
// a spatial pendulum on a universal joint with a force and a torque in the
// bob's axes.  Then:
//   - the API: per load its values at every frame equal the functions of
//     time of the model, computed here (Math.sin, Math.cos);
//   - planar, at scrubbed frames: the force's arrow, found among the
//     canvas's violet pixels, starts at the point carried by the stored pose
//     and runs along the force turned into world axes by the stored angle,
//     force x scale long (80 px for the largest force of the run); the
//     torque's arc around the centre of mass has violet pixels on the side
//     its sign and size say, none beyond;
//   - spatial: where three.js placed the force's and the torque's arrows
//     (read back from its objects) is the point and the load turned by the
//     stored quaternion, times each kind's scale;
//   - the table (the text alternative) holds the same values; loads=1 is in
//     the URL and a deep link restores it.
// Broken on purpose (the force's components not turned with the body, the
// torque's sign), each of these fails.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { env, launch, newPage, api, apiPost, showFrame, sweepDone, until, canvasPixels, deepLinkToggle } from './helpers.mjs';

const browser = await launch();
let worker = null;
after(async () => {
  if (worker && worker.exitCode === null) { worker.kill('SIGTERM'); await new Promise((r) => { worker.once('exit', r); setTimeout(r, 5000); }); }
  await browser.close();
});

// The loads of both models as functions of time (components in the bob's axes).
// The violet pixels of the planar canvas (the loads' colour #7a00ff: strong
// blue, some red, no green), in CSS pixels.
const violet = (page) => canvasPixels(page, { r: [91, 159], g: [0, 39], b: [221, 255] });

const fx = (t) => 2 * Math.sin(3 * t), fy = () => 1.5, tq = (t) => 0.5 * Math.cos(2 * t);
const PLANAR = {
  name: 'pendulum with loads', dimension: 2, gravity: [0, -9.81],
  bodies: [{ name: 'bob', mass: 1, inertia: 0.01, com: [1, 0], angle: 0 }],
  joints: [{ name: 'pivot', type: 'revolute', bodies: ['ground', 'bob'], at: [0, 0] }],
  forces: [
    { type: 'force', name: 'push', body: 'bob', at: [1, 0.05], value: ['=2*sin(3*t)', 1.5], frame: 'body' },
    { type: 'torque', name: 'twist', body: 'bob', value: '=0.5*cos(2*t)' }],
  solver: { integrator: 'trapezoidal_al', t_end: 1, step: 0.001 },
  outputs: { interval: 0.01, channels: [{ name: 'x', quantity: 'position', body: 'bob', component: 'x' }] },
};
const SPATIAL = {
  name: 'spatial pendulum with loads', dimension: 3, gravity: [0, 0, -9.81],
  bodies: [{ name: 'bob', mass: 1, inertia: [0.01, 0.01, 0.002], com: [0, 0, -1], orientation: [1, 0, 0, 0] }],
  joints: [{ name: 'U', type: 'universal', bodies: ['ground', 'bob'], at: [0, 0, 0], axes: [[1, 0, 0], [0, 1, 0]] }],
  forces: [
    { type: 'force', name: 'push', body: 'bob', at: [0.05, 0, -1], value: ['=2*sin(3*t)', 1.5, 0], frame: 'body' },
    { type: 'torque', name: 'twist', body: 'bob', value: ['=0.5*cos(2*t)', 0, 0.3], frame: 'body' }],
  solver: { integrator: 'bdf', t_end: 1, tolerance: 1e-7 },
  outputs: { interval: 0.01, channels: [{ name: 'q_w', quantity: 'orientation', body: 'bob', component: 'w' }] },
};

async function runOne(m) {
  const model = await apiPost('/api/v1/models', m);
  const s = await apiPost('/api/v1/sweeps', { model: model.id, name: m.name, design: { kind: 'list', rows: [{}] } });
  await sweepDone(s.id, m.name);
  return String((await api(`/api/v1/sweeps/${s.id}/table`)).rows[0][0]);
}

// Rotation (row-major 3x3) of the stored pose of body 0 at frame f.
function rotOf(P, f) {
  const v = P.frames[f];
  if (P.npose === 3) { const c = Math.cos(v[2]), s = Math.sin(v[2]); return [c, -s, 0, s, c, 0, 0, 0, 1]; }
  const [w, x, y, z] = v.slice(3, 7);
  return [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
    2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
    2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)];
}
const mul = (R, p) => [0, 1, 2].map((i) => R[3 * i] * p[0] + R[3 * i + 1] * p[1] + R[3 * i + 2] * p[2]);
const mulT = (R, p) => [0, 1, 2].map((i) => R[i] * p[0] + R[3 + i] * p[1] + R[6 + i] * p[2]);
const com = (P, f) => (P.npose === 3 ? [P.frames[f][0], P.frames[f][1], 0] : P.frames[f].slice(0, 3));
// The point given globally at t = 0 (body at com0, rotation R0) at frame f.
function pointAt(P, f, at, com0, R0) {
  const local = mulT(R0, [0, 1, 2].map((i) => (at[i] || 0) - (com0[i] || 0)));
  return mul(rotOf(P, f), local).map((x, i) => x + com(P, f)[i]);
}

// The table of loads as the page has it: per row its name, kind and cells
// by component (x, y, z, m; '' where empty, else a number).
const loadTable = (page) => page.$$eval('#load-table tbody tr', (trs) => trs.map((tr) => {
  const o = { name: tr.dataset.load, kind: tr.dataset.kind };
  for (const td of tr.querySelectorAll('td[data-c]')) o[td.dataset.c] = td.dataset.v === '' ? '' : Number(td.dataset.v);
  return o;
}));

let planarJob = null, spatialJob = null, motorJob = null, actuatorJob = null;
// joint actuators driven by functions of time: a torque on a pivoted arm, a
// force on a block on a rail along x
const ja = (t) => 0.4 * Math.sin(5 * t), jf = (t) => 2 * Math.cos(3 * t);
const ACTUATORS = {
  name: 'joint actuators (loads)', dimension: 2, gravity: [0, -9.81],
  bodies: [{ name: 'arm', mass: 1, inertia: 0.01, com: [0.5, 0], angle: 0 }, { name: 'block', mass: 2, inertia: 0.01, com: [0, -1], angle: 0 }],
  joints: [{ name: 'pivot', type: 'revolute', bodies: ['ground', 'arm'], at: [0, 0] },
    { name: 'rail', type: 'prismatic', bodies: ['ground', 'block'], at: [0, -1], axis: [1, 0] }],
  forces: [{ type: 'joint_actuator', name: 'shoulder', joint: 'pivot', value: '=0.4*sin(5*t)' },
    { type: 'joint_actuator', name: 'linear', joint: 'rail', value: '=2*cos(3*t)' }],
  solver: { integrator: 'bdf', t_end: 1, tolerance: 1e-7 },
  outputs: { interval: 0.01, channels: [{ name: 'xb', quantity: 'position', body: 'block', component: 'x' }] },
};
const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '../..');
// a DC motor on a four-bar (its torque declared as channel "torque"), 1 s of its run
const MOTOR = { ...JSON.parse(fs.readFileSync(path.join(root, 'examples/dc_motor_four_bar.json'), 'utf8')), name: 'four-bar motor (loads)' };
MOTOR.solver = { ...MOTOR.solver, t_end: 1 };

test('the worker runs both models; the API gives each load at every frame', { timeout: 900000 }, async () => {
  await apiPost(`/api/v1/sweeps/${env.control}/pause`);
  const log = fs.openSync(env.workerLog, 'a');
  worker = spawn(env.worker, ['--connect', env.zmq, '--id', 'loads', '--heartbeat-ms', '200'], { stdio: ['ignore', log, log] });
  planarJob = await runOne(PLANAR);
  spatialJob = await runOne(SPATIAL);
  motorJob = await runOne(MOTOR);
  actuatorJob = await runOne(ACTUATORS);
  worker.kill('SIGTERM');
  await new Promise((r) => { worker.once('exit', r); setTimeout(r, 5000); });
  await apiPost(`/api/v1/sweeps/${env.control}/resume`);
  assert.equal((await api(`/api/v1/sweeps/${env.control}`)).counts.done, 0, 'the control sweep did not run');
  for (const [job, dim] of [[planarJob, 2], [spatialJob, 3]]) {
    const P = await api(`/api/v1/jobs/${job}/poses`);
    assert.ok(P.nframe > 50);
    // (the geometry's actuators: the force at its point, then the torque)
    assert.deepEqual(P.geometry.actuators.map((a) => a.kind), ['force', 'torque']);
    assert.deepEqual(P.loads.map((l) => [l.actuator, l.kind, l.name, l.body, l.frame]),
      [[0, 'force', 'push', 0, 'body'], [1, 'torque', 'twist', 0, dim === 3 ? 'body' : 'world']]);
    P.times.forEach((t, f) => {
      const F = P.loads[0].values[f], T = P.loads[1].values[f];
      const wantF = dim === 2 ? [fx(t), fy()] : [fx(t), fy(), 0], wantT = dim === 2 ? [tq(t)] : [tq(t), 0, 0.3];
      assert.equal(F.length, wantF.length);
      assert.equal(T.length, wantT.length);
      F.forEach((x, i) => assert.ok(Math.abs(x - wantF[i]) <= 1e-12, `frame ${f}: F ${F}, want ${wantF}`));
      T.forEach((x, i) => assert.ok(Math.abs(x - wantT[i]) <= 1e-12, `frame ${f}: T ${T}, want ${wantT}`));
    });
  }
  // the motor: no load evaluated, its torque channel named for its joint
  const M = await api(`/api/v1/jobs/${motorJob}/poses`);
  assert.equal(M.loads, undefined);
  assert.deepEqual(M.geometry.forces, [{ kind: 'motor_torque', joint: 0, name: M.geometry.actuators[0].name, channels: { torque: 'torque' } }]);
  // joint actuators: per frame the function of time, with their joints
  const A = await api(`/api/v1/jobs/${actuatorJob}/poses`);
  assert.deepEqual(A.loads.map((l) => [l.kind, l.name, l.joint]), [['joint_actuator', 'shoulder', 0], ['joint_actuator', 'linear', 1]]);
  A.times.forEach((t, f) => {
    assert.ok(Math.abs(A.loads[0].values[f][0] - ja(t)) <= 1e-12 && Math.abs(A.loads[1].values[f][0] - jf(t)) <= 1e-12, `frame ${f}`);
  });
  // a model without force or torque elements has none
  assert.equal((await api(`/api/v1/jobs/${String((await api(`/api/v1/sweeps/${env.small}/table`)).rows[0][0])}/poses`)).loads, undefined);
});

// The largest force and torque magnitudes over the frames.
const maxOf = (P, k) => Math.max(...P.loads[k].values.map((x) => Math.hypot(...x)));

test('planar: the force arrow starts at its point along the force in world axes; the torque arc has its sign and size', { timeout: 120000 }, async () => {
  assert.ok(planarJob, 'the job ran');
  const errors = [];
  const page = await newPage(browser, errors);
  const P = await api(`/api/v1/jobs/${planarJob}/poses`);
  await page.goto(`${env.base}/jobs/${planarJob}`);
  await page.waitForSelector('#loads');
  assert.equal(await page.$('#load-legend'), null, 'no arrows until asked');
  await page.check('#loads');
  await until(async () => new URL(page.url()).searchParams.get('loads') === '1', 'loads=1 in the URL');
  await page.waitForSelector('#load-legend');
  const fmax = maxOf(P, 0), tmax = maxOf(P, 1);
  assert.deepEqual(await page.$eval('#load-legend', (e) => [Number(e.dataset.force), Number(e.dataset.torque)]), [fmax, tmax]);
  const k = Number(await page.getAttribute('canvas.anim-canvas', 'data-load-scale'));
  const r = Number(await page.getAttribute('canvas.anim-canvas', 'data-torque-r'));
  assert.ok(Math.abs(k - 80 / fmax) <= 1e-12 * k, `scale ${k} px/N, want ${80 / fmax}`);
  const exact = (f) => Number(P.times[f].toPrecision(15)) === P.times[f];
  // frames with a long force arrow, and a torque of either sign (cos(2t) < 0 beyond t = pi/4)
  // (at t = 0.2 s the force points out of the mechanism's extents: whole
  // only with the drawing's margin for arrows)
  const frames = [10, 20, 40, 90].map((a) => P.times.findIndex((_, f) => f >= a && exact(f)));
  assert.ok(frames.every((f) => f > 0 && f < P.nframe - 1), `frames ${frames}`);
  assert.ok(tq(P.times[frames[0]]) > 0 && tq(P.times[frames.at(-1)]) < 0, 'torques of both signs');
  for (const f of frames) {
    await showFrame(page, P, f);
    const view = await page.$eval('canvas.anim-canvas', (c) => ({ s: Number(c.dataset.s), ox: Number(c.dataset.ox), oy: Number(c.dataset.oy) }));
    const px = await violet(page);
    const X = (p) => [view.ox + p[0] * view.s, view.oy - p[1] * view.s];
    // the force: at the point carried by the pose, along R(angle) [fx, fy]
    const R = rotOf(P, f), t = P.times[f];
    const S = X(pointAt(P, f, [1, 0.05], [1, 0, 0], [1, 0, 0, 0, 1, 0, 0, 0, 1]));
    const Fw = mul(R, [fx(t), fy(), 0]), E = [Fw[0] * k, -Fw[1] * k], len = Math.hypot(...E), d = [E[0] / len, E[1] / len];
    for (const u of [0.2, 0.45, 0.7]) {
      const q = [S[0] + u * E[0], S[1] + u * E[1]];
      assert.ok(px.some(([x, y]) => Math.hypot(x - q[0], y - q[1]) <= 2), `frame ${f}: no force arrow at ${u} of its length (${q})`);
    }
    const C = X(com(P, f));
    // the arrow's pixels (those off the torque's arc): along the shaft, from the point to force x scale
    const shaft = px.filter(([x, y]) => Math.abs(Math.hypot(x - C[0], y - C[1]) - r) > 4 && Math.abs((x - S[0]) * d[1] - (y - S[1]) * d[0]) <= 3)
      .map(([x, y]) => (x - S[0]) * d[0] + (y - S[1]) * d[1]);
    assert.ok(Math.abs(Math.max(...shaft) - len) <= 3, `frame ${f}: the force arrow reaches ${Math.max(...shaft).toFixed(1)} px, want ${len.toFixed(1)}`);
    // the torque: an arc of radius r around the centre of mass from angle 0
    // (screen x) counter-clockwise for a positive torque, sweep T / tmax x 270 degrees
    const T = tq(t), sweep = (T / tmax) * 270;
    const onArc = px.filter(([x, y]) => Math.abs(Math.hypot(x - C[0], y - C[1]) - r) <= 2)
      .map(([x, y]) => ((Math.atan2(-(y - C[1]), x - C[0]) * 180) / Math.PI + 360) % 360);
    // world angle of a pixel on the arc (0 .. 360, counter-clockwise from +x)
    const inside = (a) => (sweep > 0 ? a <= sweep : a >= 360 + sweep || a === 0);
    const mid = sweep > 0 ? sweep / 2 : 360 + sweep / 2, beyond = sweep > 0 ? (sweep + 360) / 2 : (360 + sweep) / 2;
    assert.ok(onArc.some((a) => Math.abs(a - mid) <= 3), `frame ${f}: no arc pixel halfway along the torque's sweep ${sweep.toFixed(0)} deg`);
    // (the head reaches a few pixels past the arc's end: 20 degrees at r = 24 px)
    assert.ok(!onArc.some((a) => Math.abs(a - beyond) <= 10 && !inside(a)), `frame ${f}: arc pixels on the wrong side (sweep ${sweep.toFixed(0)} deg)`);
    // the text alternative: world components of the force, the torque
    const table = await loadTable(page);
    assert.deepEqual(table.map((x) => [x.name, x.kind]), [['push', 'force'], ['twist', 'torque']]);
    assert.deepEqual([table[0].z, table[1].x, table[1].y], ['', '', ''], 'a planar force has no z, a planar torque only z');
    ['x', 'y'].forEach((c, i) => assert.ok(Math.abs(table[0][c] - Fw[i]) <= 1e-12, `frame ${f}: table F${c} ${table[0][c]}, want ${Fw[i]}`));
    assert.ok(Math.abs(table[1].z - T) <= 1e-12 && Math.abs(table[1].m - Math.abs(T)) <= 1e-12, `frame ${f}: table T ${table[1].z}, want ${T}`);
  }
  // a deep link restores the loads
  await deepLinkToggle(browser, page, errors, { param: 'loads', checkbox: '#loads', table: '#load-table' });
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('spatial: three.js places the force and the torque arrows from the stored pose, each on its scale', { timeout: 120000 }, async () => {
  assert.ok(spatialJob, 'the job ran');
  const errors = [];
  const page = await newPage(browser, errors);
  const P = await api(`/api/v1/jobs/${spatialJob}/poses`);
  await page.goto(`${env.base}/jobs/${spatialJob}?loads=1`);
  await page.waitForSelector('#load-table');
  await page.waitForSelector('.scene3d canvas');
  const fmax = maxOf(P, 0), tmax = maxOf(P, 1);
  for (const f of [5, 50, P.nframe - 1]) {
    await showFrame(page, P, f);
    const t = P.times[f], R = rotOf(P, f);
    const Fw = mul(R, [fx(t), fy(), 0]), Tw = mul(R, [tq(t), 0, 0.3]);
    const p = pointAt(P, f, [0.05, 0, -1], [0, 0, -1], [1, 0, 0, 0, 1, 0, 0, 0, 1]), c = com(P, f);
    const got = await until(async () => {
      const d = await page.$eval('.scene3d', (e) => ({ loads: e.dataset.loads, ls: Number(e.dataset.loadsScale), torques: e.dataset.torques, ts: Number(e.dataset.torquesScale) }));
      if (!d.loads || !d.torques) return null;
      const one = (s) => s.split(' ').map(Number);
      const [a, b] = [one(d.loads), one(d.torques)];
      // (read back once three.js holds this frame: the force starts at the point)
      return Math.hypot(a[0] - p[0], a[1] - p[1], a[2] - p[2]) <= 1e-9 ? { a, b, ls: d.ls, ts: d.ts } : null;
    }, `frame ${f}: the arrows at this frame`);
    // the largest force, the largest torque: the same length (30 % of the scene)
    assert.ok(Math.abs(got.ls * fmax - got.ts * tmax) <= 1e-9 * got.ls * fmax, 'both kinds scaled to the same length at their largest');
    for (let i = 0; i < 3; i++) {
      assert.ok(Math.abs(got.a[3 + i] - (p[i] + Fw[i] * got.ls)) <= 1e-9, `frame ${f}: force tip ${got.a.slice(3)}, want ${p.map((x, j) => x + Fw[j] * got.ls)}`);
      assert.ok(Math.abs(got.b[i] - c[i]) <= 1e-9, `frame ${f}: torque arrow from the centre of mass`);
      assert.ok(Math.abs(got.b[3 + i] - (c[i] + Tw[i] * got.ts)) <= 1e-9, `frame ${f}: torque tip ${got.b.slice(3)}, want ${c.map((x, j) => x + Tw[j] * got.ts)}`);
    }
    const table = await loadTable(page);
    ['x', 'y', 'z'].forEach((c, i) => {
      assert.ok(Math.abs(table[0][c] - Fw[i]) <= 1e-12, `frame ${f}: table F${c}`);
      assert.ok(Math.abs(table[1][c] - Tw[i]) <= 1e-12, `frame ${f}: table T${c}`);
    });
  }
  assert.deepEqual(errors.filter((e) => !/GPU stall|GL Driver/.test(e)), []);
  await page.context().close();
});

test('planar: a DC motor\'s torque from its channel, an arc at its joint of the torque\'s sign and size', { timeout: 120000 }, async () => {
  assert.ok(motorJob, 'the job ran');
  const errors = [];
  const page = await newPage(browser, errors);
  const P = await api(`/api/v1/jobs/${motorJob}/poses`), result = await api(`/api/v1/jobs/${motorJob}/result`);
  const col = result.columns.indexOf('torque'), tmax = Math.max(...result.rows.map((r) => Math.abs(r[col])));
  await page.goto(`${env.base}/jobs/${motorJob}?loads=1`);
  await page.waitForSelector('#load-table');
  assert.deepEqual(await page.$eval('#load-legend', (e) => [Number(e.dataset.force), Number(e.dataset.torque)]), [0, tmax]);
  const r = Number(await page.getAttribute('canvas.anim-canvas', 'data-torque-r'));
  // joint A (ground - crank) at the crank's pose: a ground pivot
  const G = P.geometry, j = G.joints[0], b = j.bodies[1], B = G.bodies[b];
  const exact = (f) => Number(P.times[f].toPrecision(15)) === P.times[f];
  const T = (f) => result.rows.find((q) => q[0] === P.times[f])[col];
  const frames = P.times.map((_, f) => f).filter((f) => exact(f) && Math.abs(T(f)) / tmax * 270 >= 40 && Math.abs(T(f)) / tmax * 270 <= 300);
  assert.ok(frames.length >= 3, `${frames.length} frames with a torque to see`);
  for (const f of [frames[0], frames[frames.length >> 1], frames.at(-1)]) {
    await showFrame(page, P, f);
    const view = await page.$eval('canvas.anim-canvas', (c) => ({ s: Number(c.dataset.s), ox: Number(c.dataset.ox), oy: Number(c.dataset.oy) }));
    const c0 = Math.cos(B.angle), s0 = Math.sin(B.angle), R0 = [c0, -s0, 0, s0, c0, 0, 0, 0, 1];
    const v = P.frames[f].slice(3 * b, 3 * b + 3), Pb = { npose: 3, frames: [v] };
    const p = pointAt(Pb, 0, j.at, B.com, R0), C = [view.ox + p[0] * view.s, view.oy - p[1] * view.s];
    const px = await violet(page);
    const sweep = (T(f) / tmax) * 270;
    const onArc = px.filter(([x, y]) => Math.abs(Math.hypot(x - C[0], y - C[1]) - r) <= 2)
      .map(([x, y]) => ((Math.atan2(-(y - C[1]), x - C[0]) * 180) / Math.PI + 360) % 360);
    const inside = (a) => (sweep > 0 ? a <= sweep : a >= 360 + sweep || a === 0);
    const mid = sweep > 0 ? sweep / 2 : 360 + sweep / 2, beyond = sweep > 0 ? (sweep + 360) / 2 : (360 + sweep) / 2;
    assert.ok(onArc.some((a) => Math.abs(a - mid) <= 3), `frame ${f}: no arc pixel halfway along the motor torque's sweep ${sweep.toFixed(0)} deg`);
    assert.ok(!onArc.some((a) => Math.abs(a - beyond) <= 10 && !inside(a)), `frame ${f}: arc pixels on the wrong side (sweep ${sweep.toFixed(0)} deg)`);
    const table = await loadTable(page);
    assert.deepEqual(table.map((x) => [x.kind, x.x, x.y]), [['motor torque', '', '']]);
    assert.equal(table[0].z, T(f), `frame ${f}: the table's torque is the sample`);
  }
  assert.deepEqual(errors, []);
  await page.context().close();
});


test('planar: joint actuators, a torque arc at the revolute joint and a force arrow along the prismatic axis', { timeout: 120000 }, async () => {
  assert.ok(actuatorJob, 'the job ran');
  const errors = [];
  const page = await newPage(browser, errors);
  const P = await api(`/api/v1/jobs/${actuatorJob}/poses`);
  await page.goto(`${env.base}/jobs/${actuatorJob}?loads=1`);
  await page.waitForSelector('#load-table');
  const fmax = Math.max(...P.times.map(jf).map(Math.abs)), tmax = Math.max(...P.times.map(ja).map(Math.abs));
  assert.deepEqual(await page.$eval('#load-legend', (e) => [Number(e.dataset.force), Number(e.dataset.torque)]), [fmax, tmax]);
  const k = Number(await page.getAttribute('canvas.anim-canvas', 'data-load-scale'));
  const r = Number(await page.getAttribute('canvas.anim-canvas', 'data-torque-r'));
  assert.ok(Math.abs(k - 80 / fmax) <= 1e-12 * k);
  const exact = (f) => Number(P.times[f].toPrecision(15)) === P.times[f];
  // frames with the force long enough to see and the torque of either sign
  const frames = P.times.map((_, f) => f).filter((f) => exact(f) && Math.abs(jf(P.times[f])) * k >= 20 && Math.abs(ja(P.times[f])) / tmax * 270 >= 40);
  assert.ok(frames.some((f) => ja(P.times[f]) > 0) && frames.some((f) => ja(P.times[f]) < 0), 'torques of both signs');
  for (const f of [frames[0], frames.find((q) => ja(P.times[q]) < 0), frames.at(-1)]) {
    await showFrame(page, P, f);
    const view = await page.$eval('canvas.anim-canvas', (c) => ({ s: Number(c.dataset.s), ox: Number(c.dataset.ox), oy: Number(c.dataset.oy) }));
    const X = (p) => [view.ox + p[0] * view.s, view.oy - p[1] * view.s];
    const px = await violet(page), t = P.times[f];
    // the rail's force: at the block's joint point (its com here: the rail's
    // point moves with it), along the rail's x axis
    const b = 1, S = X([P.frames[f][3 * b], P.frames[f][3 * b + 1]]), E = [jf(t) * k, 0], len = Math.abs(E[0]), d = [Math.sign(E[0]), 0];
    for (const u of [0.2, 0.45, 0.7]) {
      const q = [S[0] + u * E[0], S[1]];
      assert.ok(px.some(([x, y]) => Math.hypot(x - q[0], y - q[1]) <= 2), `frame ${f}: no force arrow at ${u} of its length`);
    }
    const along = px.filter(([x, y]) => Math.abs(y - S[1]) <= 3 && Math.abs(Math.hypot(x - S[0], y - S[1]) - r) > 4).map(([x]) => (x - S[0]) * d[0]);
    assert.ok(Math.abs(Math.max(...along) - len) <= 3, `frame ${f}: the force arrow reaches ${Math.max(...along).toFixed(1)} px, want ${len.toFixed(1)}`);
    // the pivot's torque: an arc at the joint (0, 0), its sign and size
    const C = X([0, 0]), sweep = (ja(t) / tmax) * 270;
    const onArc = px.filter(([x, y]) => Math.abs(Math.hypot(x - C[0], y - C[1]) - r) <= 2)
      .map(([x, y]) => ((Math.atan2(-(y - C[1]), x - C[0]) * 180) / Math.PI + 360) % 360);
    const inside = (a) => (sweep > 0 ? a <= sweep : a >= 360 + sweep || a === 0);
    const mid = sweep > 0 ? sweep / 2 : 360 + sweep / 2, beyond = sweep > 0 ? (sweep + 360) / 2 : (360 + sweep) / 2;
    assert.ok(onArc.some((a) => Math.abs(a - mid) <= 3), `frame ${f}: no arc pixel halfway along the torque's sweep ${sweep.toFixed(0)} deg`);
    assert.ok(!onArc.some((a) => Math.abs(a - beyond) <= 10 && !inside(a)), `frame ${f}: arc pixels on the wrong side (sweep ${sweep.toFixed(0)} deg)`);
    const table = await loadTable(page);
    assert.deepEqual(table.map((x) => [x.name, x.kind]), [['linear', 'actuator force'], ['shoulder', 'actuator torque']]);
    assert.ok(Math.abs(table[0].x - jf(t)) <= 1e-12 && Math.abs(table[0].y) <= 1e-12 && Math.abs(table[1].z - ja(t)) <= 1e-12, `frame ${f}: the table ${JSON.stringify(table)}, want x ${jf(t)}, z ${ja(t)}`);
  }
  assert.deepEqual(errors, []);
  await page.context().close();
});
