// forces.test.mjs - joint reaction forces drawn as arrows in the animation
// (view 3, issue 10).  Two examples get reaction_force channels in every
// component (the planar slider-crank at its ground joint A and its moving
// crank pin, the IFToMM spatial slider-crank at its moving ball joint B) and
// one job each, run by a worker started here (the "control" sweep paused
// meanwhile, as live.test.mjs does).  Then, at scrubbed frames:
//   - planar: the arrows are found among the canvas's pixels (magenta, no
//     other drawing uses it): each starts at the joint point computed here
//     from the stored poses, runs along the stored force and is as long as
//     the force times the legend's scale (80 px for the largest force over
//     the stored samples, computed here);
//   - spatial: where three.js placed each arrow's start and tip (read back
//     from its objects) is the joint point and the force times the scale;
//   - the force table (the text alternative) holds the stored samples;
// and the toggle is in the URL (forces=1) and restored by a deep link.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { env, launch, newPage, api, apiPost, until, showFrame, sweepDone, canvasPixels, deepLinkToggle } from './helpers.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '../..');
const browser = await launch();
let worker = null;
after(async () => {
  if (worker && worker.exitCode === null) { worker.kill('SIGTERM'); await new Promise((r) => { worker.once('exit', r); setTimeout(r, 5000); }); }
  await browser.close();
});

// An example with reaction_force channels added: name -> [joint, axes].
function withForces(file, name, forces) {
  const m = JSON.parse(fs.readFileSync(path.join(root, 'examples', file), 'utf8'));
  m.name = name;
  for (const [joint, axes] of forces)
    for (const c of axes) m.outputs.channels.push({ name: `${joint}_${c}`, quantity: 'reaction_force', joint, component: c });
  return m;
}

// Rotation (row-major 3x3) of a 2-D angle or a unit quaternion w x y z.
const rot2 = (a) => [Math.cos(a), -Math.sin(a), 0, Math.sin(a), Math.cos(a), 0, 0, 0, 1];
const rotq = (w, x, y, z) => [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
  2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
  2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)];
const mul = (R, v) => [0, 1, 2].map((i) => R[3 * i] * v[0] + R[3 * i + 1] * v[1] + R[3 * i + 2] * v[2]);
const mulT = (R, v) => [0, 1, 2].map((i) => R[i] * v[0] + R[3 + i] * v[1] + R[6 + i] * v[2]);
const v3 = (p) => [p[0], p[1], p.length > 2 ? p[2] : 0];

// Where joint k's point is at frame f of poses P: on its second body (the
// reaction's), from the geometry at t = 0 and the stored pose, computed
// here independently of the page's pose.js.
function jointAt(P, k, f) {
  const G = P.geometry, j = G.joints[k], b = j.bodies[1], dim = G.dimension, np = P.npose;
  if (b < 0) return v3(j.at);
  const B = G.bodies[b], R0 = dim === 2 ? rot2(B.angle) : rotq(...B.quat);
  const local = mulT(R0, v3(j.at).map((x, i) => x - v3(B.com)[i]));
  const q = P.frames[f].slice(b * np, (b + 1) * np);
  const R = dim === 2 ? rot2(q[2]) : rotq(q[3], q[4], q[5], q[6]);
  const com = dim === 2 ? [q[0], q[1], 0] : q.slice(0, 3);
  return mul(R, local).map((x, i) => x + com[i]);
}

// A job of model m (one row), run to done; its id.
async function runOne(m, tEnd) {
  const model = await apiPost('/api/v1/models', m);
  const s = await apiPost('/api/v1/sweeps', { model: model.id, name: m.name, design: { kind: 'list', rows: [{}] }, solver: { t_end: tEnd } });
  await sweepDone(s.id, m.name);
  return String((await api(`/api/v1/sweeps/${s.id}/table`)).rows[0][0]);
}


// The stored force of joint `name` at time t: the sample at exactly t.
function stored(result, name, t, axes) {
  const row = result.rows.find((r) => r[0] === t);
  assert.ok(row, `a sample at t = ${t}`);
  return axes.map((c) => row[result.columns.indexOf(`${name}_${c}`)]);
}

let planarJob = null, spatialJob = null;

test('the worker runs the two models with reaction forces', { timeout: 900000 }, async () => {
  await apiPost(`/api/v1/sweeps/${env.control}/pause`);
  const log = fs.openSync(env.workerLog, 'a');
  worker = spawn(env.worker, ['--connect', env.zmq, '--id', 'forces', '--heartbeat-ms', '200'], { stdio: ['ignore', log, log] });
  planarJob = await runOne(withForces('slider_crank.json', 'slider_crank (reaction forces)', [['A', ['x', 'y']], ['crankpin', ['x', 'y']]]), 0.5);
  spatialJob = await runOne(withForces('iftomm_spatial_slider_crank.json', 'spatial slider-crank (reaction forces)', [['B', ['x', 'y', 'z']]]), 0.5);
  worker.kill('SIGTERM');
  await new Promise((r) => { worker.once('exit', r); setTimeout(r, 5000); });
  await apiPost(`/api/v1/sweeps/${env.control}/resume`);
  assert.equal((await api(`/api/v1/sweeps/${env.control}`)).counts.done, 0, 'the control sweep did not run');
  // the geometry names the channels of each joint's force, in joint order
  const G = (await api(`/api/v1/jobs/${planarJob}/poses`)).geometry;
  assert.deepEqual(G.forces, [
    { kind: 'reaction_force', joint: 0, name: 'A', channels: { x: 'A_x', y: 'A_y' } },
    { kind: 'reaction_force', joint: 1, name: 'crankpin', channels: { x: 'crankpin_x', y: 'crankpin_y' } }]);
  assert.equal((await api(`/api/v1/jobs/${spatialJob}/poses`)).geometry.forces[0].channels.z, 'B_z');
  // a model declaring a reaction in one component only names none
  assert.deepEqual((await api(`/api/v1/models/${env.mid}/geometry`)).geometry.forces, []);
});

test('planar: each arrow on the canvas starts at its joint and is the stored force times the scale', { timeout: 120000 }, async () => {
  assert.ok(planarJob, 'the job ran');
  const errors = [];
  const page = await newPage(browser, errors);
  const P = await api(`/api/v1/jobs/${planarJob}/poses`), result = await api(`/api/v1/jobs/${planarJob}/result`);
  await page.goto(`${env.base}/jobs/${planarJob}`);
  await page.waitForSelector('#forces');
  assert.equal(await page.$('#force-legend'), null, 'no arrows until asked');
  // turned on from the keyboard
  await page.focus('#forces');
  await page.keyboard.press('Space');
  await until(async () => new URL(page.url()).searchParams.get('forces') === '1', 'forces=1 in the URL');
  await page.waitForSelector('#force-legend');
  // the scale: 80 px for the largest magnitude over the stored samples
  const cols = ['A', 'crankpin'].map((n) => ['x', 'y'].map((c) => result.columns.indexOf(`${n}_${c}`)));
  const max = Math.max(...result.rows.flatMap((r) => cols.map(([cx, cy]) => Math.hypot(r[cx], r[cy]))));
  assert.equal(Number(await page.getAttribute('#force-legend', 'data-max')), max);
  const k = Number(await page.getAttribute('canvas.anim-canvas', 'data-arrow-scale'));
  assert.ok(Math.abs(k - 80 / max) <= 1e-12 * k, `scale ${k} px/N, want ${80 / max}`);
  let checked = 0;
  for (const f of [5, 20, P.nframe - 1]) {
    await showFrame(page, P, f);
    const t = P.times[f];
    const view = await page.$eval('canvas.anim-canvas', (c) => ({ s: Number(c.dataset.s), ox: Number(c.dataset.ox), oy: Number(c.dataset.oy) }));
    // the magenta pixels of the canvas (the arrows' colour, #ff00cc)
    const px = await canvasPixels(page, { r: [201, 255], g: [0, 89], b: [151, 255] });
    assert.ok(px.length > 50, `frame ${f}: ${px.length} arrow pixels`);
    for (const [k2, name] of [[0, 'A'], [1, 'crankpin']]) {
      const F = stored(result, name, t, ['x', 'y']), p = jointAt(P, k2, f);
      const S = [view.ox + p[0] * view.s, view.oy - p[1] * view.s], E = [F[0] * k, -F[1] * k], len = Math.hypot(...E);
      if (len < 15) continue;   // too short to tell its direction from its pixels
      const d = [E[0] / len, E[1] / len];
      // along the expected shaft: arrow pixels at 20 %, 45 % and 70 % of it
      for (const u of [0.2, 0.45, 0.7]) {
        const q = [S[0] + u * E[0], S[1] + u * E[1]];
        assert.ok(px.some(([x, y]) => Math.hypot(x - q[0], y - q[1]) <= 2), `frame ${f} ${name}: no arrow at ${u} of its length (${q})`);
      }
      // its length: the farthest arrow pixel along it, within 3 px of the line
      const along = px.filter(([x, y]) => Math.abs((x - S[0]) * d[1] - (y - S[1]) * d[0]) <= 3).map(([x, y]) => (x - S[0]) * d[0] + (y - S[1]) * d[1]);
      const reach = Math.max(...along.filter((a) => a > -3 && a < len + 20));
      assert.ok(Math.abs(reach - len) <= 3, `frame ${f} ${name}: the arrow reaches ${reach.toFixed(1)} px, the force times the scale is ${len.toFixed(1)} px`);
      checked++;
    }
    // the text alternative: the stored samples at this time
    const table = await page.$$eval('#force-table tbody tr', (trs) => trs.map((tr) => [tr.dataset.force, ...[...tr.querySelectorAll('td[data-v]')].map((td) => Number(td.dataset.v))]));
    assert.deepEqual(table.map((r) => r.slice(0, 3)), ['A', 'crankpin'].map((n) => [n, ...stored(result, n, t, ['x', 'y'])]));
  }
  assert.ok(checked >= 5, `${checked} of 6 arrows long enough to check`);
  // the screenshot of docs/ (with SHOTS set): at the largest force of the run
  if (process.env.SHOTS) {
    const big = result.rows.reduce((b, r) => (Math.hypot(r[cols[0][0]], r[cols[0][1]]) > Math.hypot(b[cols[0][0]], b[cols[0][1]]) ? r : b));
    await page.fill('#time', String(big[0]));
    await page.waitForSelector(`#time-shown[data-t="${big[0]}"]`);
    await page.screenshot({ path: path.join(process.env.SHOTS, 'web-job-forces.png') });
    await showFrame(page, P, P.nframe - 1);
  }
  // a deep link restores the arrows at the time shown (t is written to the
  // URL once the time stops)
  await until(async () => Number(new URL(page.url()).searchParams.get('t')) === P.times.at(-1), 't in the URL');
  // unchecked: no arrows, no forces in the URL
  await deepLinkToggle(browser, page, errors, {
    param: 'forces', checkbox: '#forces', table: '#force-table',
    restored: async (page2) => assert.equal(Number(await page2.$eval('#time-shown', (e) => e.dataset.frame)), P.nframe - 1),
  });
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('spatial: three.js places each arrow at its joint along the stored force times the scale', { timeout: 120000 }, async () => {
  assert.ok(spatialJob, 'the job ran');
  const errors = [];
  const page = await newPage(browser, errors);
  const P = await api(`/api/v1/jobs/${spatialJob}/poses`), result = await api(`/api/v1/jobs/${spatialJob}/result`);
  const kB = P.geometry.joints.findIndex((j) => j.name === 'B');
  await page.goto(`${env.base}/jobs/${spatialJob}?forces=1`);
  await page.waitForSelector('.scene3d[data-arrows]');
  let scale = null;
  for (const f of [3, 17, P.nframe - 1]) {
    await showFrame(page, P, f);
    const t = P.times[f], F = stored(result, 'B', t, ['x', 'y', 'z']), p = jointAt(P, kB, f);
    const [arrow, k] = await until(async () => {
      const a = await page.$eval('.scene3d', (e) => [e.dataset.arrows, Number(e.dataset.arrowScale)]);
      const nums = a[0].split(' ').map(Number);
      return Math.abs(nums[0] - p[0]) < 1e-9 && Math.abs(nums[1] - p[1]) < 1e-9 ? [nums, a[1]] : null;
    }, `frame ${f}: the arrow at joint B ${p}`);
    assert.equal(arrow.length, 6, 'one arrow');
    scale = scale || k;
    assert.equal(k, scale, 'one scale for the whole run');
    // start: the joint point; tip - start: the force times the scale
    for (let i = 0; i < 3; i++) {
      assert.ok(Math.abs(arrow[i] - p[i]) <= 1e-9, `frame ${f}: start ${arrow.slice(0, 3)} at the joint ${p}`);
      const want = F[i] * k, got = arrow[3 + i] - arrow[i];
      assert.ok(Math.abs(got - want) <= 1e-9 + 1e-7 * Math.hypot(...F) * k, `frame ${f} ${'xyz'[i]}: tip - start ${got}, want F x scale ${want}`);
    }
    const row = await page.$$eval('#force-table tbody tr td[data-v]', (tds) => tds.map((td) => Number(td.dataset.v)));
    assert.deepEqual(row.slice(0, 3), F);
  }
  // the scale: 30 % of the scene for the largest force of the run
  const cols = ['x', 'y', 'z'].map((c) => result.columns.indexOf(`B_${c}`));
  const max = Math.max(...result.rows.map((r) => Math.hypot(...cols.map((c) => r[c]))));
  assert.equal(Number(await page.getAttribute('#force-legend', 'data-max')), max);
  assert.deepEqual(errors.filter((e) => !/GPU stall|GL Driver/.test(e)), []);
  await page.context().close();
});
