// contacts.test.mjs - contact forces drawn as arrows in the animation (view
// 3, issue 10), from the contact points the worker stores with the poses
// (GET /api/v1/jobs/{id}/poses "contacts").  Two examples, one job each, run
// by a worker started here (the "control" sweep paused meanwhile, as
// forces.test.mjs does): the planar cam and follower (one compliant pair,
// frictionless) and the 100 balls in a box (3-D, rigid contacts,
// Moreau-Jean).  Then:
//   - the API: one list of points per frame; in the planar job the force of
//     each frame's points is the contact_force channel N (frictionless: the
//     resultant's magnitude is its normal sum) at the frame's sample;
//   - planar, at scrubbed frames: each arrow, found among the canvas's cyan
//     pixels (no other drawing uses it), starts at the stored point, runs
//     along the stored force and is as long as the force times the legend's
//     scale (80 px for the largest stored contact force, computed here);
//   - spatial, at scrubbed frames: where three.js placed each arrow's start
//     and tip (read back from its objects) is the stored point and the
//     stored force times the scale, one arrow per stored point;
//   - the table (the text alternative) holds the stored points and forces;
// and the toggle is in the URL (contacts=1) and restored by a deep link.
// Colours per body by its contact force (colour=@contact): at scrubbed
// frames each body's value is the magnitude of the resultant of the stored
// forces on it (as `body`: F, as `other`: -F), its colour that value over the
// largest one stored through the ramp (its stops pinned here), drawn on the
// canvas (planar) or held by three.js's instances (3-D).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { env, launch, newPage, api, apiPost, until, showFrame, sweepDone, canvasPixels, near, deepLinkToggle } from './helpers.mjs';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '../..');
const browser = await launch();
let worker = null;
after(async () => {
  if (worker && worker.exitCode === null) { worker.kill('SIGTERM'); await new Promise((r) => { worker.once('exit', r); setTimeout(r, 5000); }); }
  await browser.close();
});

// A job of example `file` (one row, its t_end), run to done; its id.
async function runOne(file, name, tEnd) {
  return runModel(JSON.parse(fs.readFileSync(path.join(root, 'examples', file), 'utf8')), name, tEnd);
}
async function runModel(m, name, tEnd) {
  m.name = name;
  const model = await apiPost('/api/v1/models', m);
  const s = await apiPost('/api/v1/sweeps', { model: model.id, name, design: { kind: 'list', rows: [{}] }, solver: { t_end: tEnd } });
  await sweepDone(s.id, name);
  return String((await api(`/api/v1/sweeps/${s.id}/table`)).rows[0][0]);
}

// The contact arrows' colour (#00ccff) on the canvas, as a band.
const CYAN = { r: [0, 89], g: [151, 255], b: [201, 255] };

// The largest stored contact force.
const maxOf = (P) => Math.max(...P.contacts.points.flat().map((c) => Math.hypot(...c.force)));

let planarJob = null, spatialJob = null, cappedJob = null;

// A model whose contact points exceed what a job keeps (32768): a plank
// resting on NAILS frictionless points on the ground line, every one of
// them touching once it has settled (a fraction of a millisecond), at 251
// frames: about 200 x 251 points.
const NAILS = 200;
const nails = () => ({
  dimension: 2, gravity: [0, -9.81],
  bodies: [{ name: 'plank', mass: 1, inertia: 0.1, com: [0, 0.025], angle: 0 }],
  shapes: [{ name: 'floor', body: 'ground', type: 'line', point: [0, 0], normal: [0, 1] },
    ...Array.from({ length: NAILS }, (_, i) => ({ name: `p${i}`, body: 'plank', type: 'point', at: [-0.5 + i / (NAILS - 1), 0] }))],
  contacts: [{ between: ['p*', 'floor'], law: 'hunt_crossley', stiffness: 1e7, exponent: 1, restitution: 0.5, friction: 0 }],
  solver: { integrator: 'bdf', t_end: 0.5, tolerance: 1e-7, abs_tolerance: 1e-10, max_step: 0.002 },
  outputs: { interval: 0.001, channels: [{ name: 'N', quantity: 'contact_force', shapes: ['floor', 'p*'], component: 'normal' }] },
});

test('the worker runs the cam and follower and the 100 balls; their contact points are stored', { timeout: 900000 }, async () => {
  await apiPost(`/api/v1/sweeps/${env.control}/pause`);
  const log = fs.openSync(env.workerLog, 'a');
  worker = spawn(env.worker, ['--connect', env.zmq, '--id', 'contacts', '--heartbeat-ms', '200'], { stdio: ['ignore', log, log] });
  planarJob = await runOne('cam_follower.json', 'cam follower (contact arrows)', 0.3);
  spatialJob = await runOne('balls_in_box_100.json', '100 balls (contact arrows)', 0.5);
  cappedJob = await runModel(nails(), 'bed of nails (contact cap)', 0.5);
  worker.kill('SIGTERM');
  await new Promise((r) => { worker.once('exit', r); setTimeout(r, 5000); });
  await apiPost(`/api/v1/sweeps/${env.control}/resume`);
  assert.equal((await api(`/api/v1/sweeps/${env.control}`)).counts.done, 0, 'the control sweep did not run');
  // planar: one list per frame, each point on the follower (body B of the
  // pair cam_disc - face), its force the channel N at the frame's sample
  const P = await api(`/api/v1/jobs/${planarJob}/poses`), result = await api(`/api/v1/jobs/${planarJob}/result`);
  const C = P.contacts, cN = result.columns.indexOf('N'), fol = P.bodies.indexOf('follower');
  assert.equal(C.nframe, P.nframe);
  assert.equal(C.points.length, P.nframe);
  let touching = 0;
  C.points.forEach((pts, f) => {
    const row = result.rows.find((r) => r[0] === P.times[f]);
    assert.ok(row, `a sample at frame ${f}'s time`);
    const F = [0, 0];
    for (const c of pts) {
      assert.equal(c.pair, 0); assert.equal(c.body, fol); assert.equal(c.other, P.bodies.indexOf('cam'));
      assert.equal(c.at.length, 2); assert.equal(c.force.length, 2);
      F[0] += c.force[0]; F[1] += c.force[1];
    }
    assert.ok(Math.abs(Math.hypot(...F) - row[cN]) <= 1e-9 * (1 + Math.abs(row[cN])), `frame ${f}: |F| ${Math.hypot(...F)}, N ${row[cN]}`);
    touching += pts.length > 0;
  });
  assert.ok(touching > P.nframe / 2, `${touching} of ${P.nframe} frames touching`);
  // spatial: every point of every frame on a ball (bodies 0..99), 3 components
  const S = await api(`/api/v1/jobs/${spatialJob}/poses`);
  assert.equal(S.contacts.nframe, S.nframe);
  const all = S.contacts.points.flat();
  assert.ok(all.length > 100, `${all.length} points`);
  for (const c of all) assert.ok(c.body >= 0 && c.body < 100 && c.other >= -1 && c.other < 100 && c.other !== c.body && c.at.length === 3 && c.force.length === 3);
  assert.ok(all.some((c) => c.other === -1) && all.some((c) => c.other >= 0), 'ball-wall and ball-ball points');
  // a model without contacts has none; nor its geometry
  assert.equal((await api(`/api/v1/jobs/${String((await api(`/api/v1/sweeps/${env.small}/table`)).rows[0][0])}/poses`)).contacts, undefined);
});

test('planar: each contact arrow on the canvas starts at its stored point and is the stored force times the scale', { timeout: 120000 }, async () => {
  assert.ok(planarJob, 'the job ran');
  const errors = [];
  const page = await newPage(browser, errors);
  const P = await api(`/api/v1/jobs/${planarJob}/poses`);
  await page.goto(`${env.base}/jobs/${planarJob}`);
  await page.waitForSelector('#contacts');
  assert.equal(await page.$('#contact-legend'), null, 'no arrows until asked');
  await page.focus('#contacts');
  await page.keyboard.press('Space');
  await until(async () => new URL(page.url()).searchParams.get('contacts') === '1', 'contacts=1 in the URL');
  await page.waitForSelector('#contact-legend');
  const max = maxOf(P);
  assert.equal(Number(await page.getAttribute('#contact-legend', 'data-max')), max);
  const k = Number(await page.getAttribute('canvas.anim-canvas', 'data-contact-scale'));
  assert.ok(Math.abs(k - 80 / max) <= 1e-12 * k, `scale ${k} px/N, want ${80 / max}`);
  // three frames in contact with arrows long enough to tell their direction
  // (at times the range input takes as they are: Chromium keeps about 15
  // digits of its value)
  const exact = (f) => Number(P.times[f].toPrecision(15)) === P.times[f];
  const frames = P.contacts.points.map((pts, f) => [f, pts]).filter(([f, pts]) => exact(f) && pts.length === 1 && Math.hypot(...pts[0].force) * k >= 20).map(([f]) => f);
  assert.ok(frames.length >= 3, `${frames.length} frames with a long arrow`);
  let checked = 0;
  for (const f of [frames[0], frames[frames.length >> 1], frames.at(-1)]) {
    await showFrame(page, P, f);
    const view = await page.$eval('canvas.anim-canvas', (c) => ({ s: Number(c.dataset.s), ox: Number(c.dataset.ox), oy: Number(c.dataset.oy), w: c.clientWidth, h: c.clientHeight }));
    // the follower's spring is drawn whole: its end on the ground (0, 0.3),
    // far above the bodies, inside the canvas
    const g = P.geometry.springs[0], gend = g.points[g.bodies.indexOf(-1)];
    const gx = view.ox + gend[0] * view.s, gy = view.oy - gend[1] * view.s;
    assert.ok(gx >= 0 && gx <= view.w && gy >= 0 && gy <= view.h, `frame ${f}: the spring's ground end at (${gx.toFixed(0)}, ${gy.toFixed(0)}) px, outside the ${view.w} x ${view.h} canvas`);
    // the cyan pixels of the canvas (the contact arrows' colour, #00ccff)
    const px = await canvasPixels(page, CYAN);
    assert.ok(px.length > 30, `frame ${f}: ${px.length} arrow pixels`);
    const c = P.contacts.points[f][0];
    const S = [view.ox + c.at[0] * view.s, view.oy - c.at[1] * view.s], E = [c.force[0] * k, -c.force[1] * k], len = Math.hypot(...E);
    const d = [E[0] / len, E[1] / len];
    // along the expected shaft: arrow pixels at 20 %, 45 % and 70 % of it
    for (const u of [0.2, 0.45, 0.7]) {
      const q = [S[0] + u * E[0], S[1] + u * E[1]];
      assert.ok(px.some(([x, y]) => Math.hypot(x - q[0], y - q[1]) <= 2), `frame ${f}: no arrow at ${u} of its length (${q})`);
    }
    // it starts at the point: no arrow pixel behind it along the line
    const along = px.filter(([x, y]) => Math.abs((x - S[0]) * d[1] - (y - S[1]) * d[0]) <= 3).map(([x, y]) => (x - S[0]) * d[0] + (y - S[1]) * d[1]);
    assert.ok(Math.min(...along) >= -3, `frame ${f}: arrow pixels ${Math.min(...along).toFixed(1)} px before its point`);
    // its length: the farthest arrow pixel along it
    const reach = Math.max(...along);
    assert.ok(Math.abs(reach - len) <= 3, `frame ${f}: the arrow reaches ${reach.toFixed(1)} px, the force times the scale is ${len.toFixed(1)} px`);
    checked++;
    // the text alternative: the stored point and force
    const table = await page.$$eval('#contact-table tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td[data-v]')].map((td) => Number(td.dataset.v))));
    assert.equal(table.length, 1);
    table[0].slice(0, 2).forEach((x, i) => assert.ok(Math.abs(x - c.at[i]) <= 1e-12, `table point ${x}, stored ${c.at[i]}`));
    assert.deepEqual(table[0].slice(2, 4), c.force);
  }
  assert.equal(checked, 3);
  // a frame without contact: no arrow, an empty table
  const free = P.contacts.points.findIndex((pts, f) => pts.length === 0 && exact(f));
  if (free >= 0) {
    await showFrame(page, P, free);
    assert.equal((await page.$$('#contact-table tbody tr')).length, 0);
  }
  // the screenshot of docs/ (with SHOTS set): at the largest contact force
  if (process.env.SHOTS) {
    const big = frames.reduce((b, f) => (Math.hypot(...P.contacts.points[f][0].force) > Math.hypot(...P.contacts.points[b][0].force) ? f : b));
    await showFrame(page, P, big);
    await page.screenshot({ path: path.join(process.env.SHOTS, 'web-job-contacts.png') });
  }
  // a deep link restores the arrows at the time shown
  await showFrame(page, P, frames[0]);
  await until(async () => Number(new URL(page.url()).searchParams.get('t')) === P.times[frames[0]], 't in the URL');
  await deepLinkToggle(browser, page, errors, {
    param: 'contacts', checkbox: '#contacts', table: '#contact-table',
    restored: async (page2) => assert.equal((await page2.$$('#contact-table tbody tr')).length, 1),
  });
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('spatial: three.js places one arrow per stored point, at the point, along the stored force times the scale', { timeout: 120000 }, async () => {
  assert.ok(spatialJob, 'the job ran');
  const errors = [];
  const page = await newPage(browser, errors);
  const P = await api(`/api/v1/jobs/${spatialJob}/poses`);
  await page.goto(`${env.base}/jobs/${spatialJob}?contacts=1`);
  await page.waitForSelector('.scene3d[data-contacts]');
  const max = maxOf(P);
  assert.equal(Number(await page.getAttribute('#contact-legend', 'data-max')), max);
  let scale = null;
  const exact = (f) => Number(P.times[f].toPrecision(15)) === P.times[f];
  const busy = P.contacts.points.map((pts, f) => [f, pts.length]).filter(([f, n]) => n > 0 && exact(f)).map(([f]) => f);
  for (const f of [busy[0], busy[busy.length >> 1], busy.at(-1)]) {
    await showFrame(page, P, f);
    const pts = P.contacts.points[f];
    const [arrows, k] = await until(async () => {
      const a = await page.$eval('.scene3d', (e) => [e.dataset.contacts, Number(e.dataset.contactsScale)]);
      const list = a[0] ? a[0].split(';').map((s) => s.split(' ').map(Number)) : [];
      return list.length === pts.length && list.length && Math.abs(list[0][0] - pts[0].at[0]) < 1e-9 ? [list, a[1]] : null;
    }, `frame ${f}: ${pts.length} arrows`);
    scale = scale || k;
    assert.equal(k, scale, 'one scale for the whole run');
    pts.forEach((c, i) => {
      const a = arrows[i];
      for (let j = 0; j < 3; j++) {
        assert.ok(Math.abs(a[j] - c.at[j]) <= 1e-9, `frame ${f} point ${i}: start ${a.slice(0, 3)}, stored ${c.at}`);
        const want = c.force[j] * k, got = a[3 + j] - a[j];
        assert.ok(Math.abs(got - want) <= 1e-9 + 1e-7 * Math.hypot(...c.force) * k, `frame ${f} point ${i} ${'xyz'[j]}: tip - start ${got}, want F x scale ${want}`);
      }
    });
    const rows = await page.$$eval('#contact-table tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td[data-v]')].map((td) => Number(td.dataset.v))));
    assert.equal(rows.length, pts.length);
    rows.forEach((r, i) => assert.deepEqual(r.slice(3, 6), pts[i].force));
  }
  if (process.env.SHOTS) {
    // at the frame of the largest contact force
    const big = busy.reduce((b, f) => (Math.max(...P.contacts.points[f].map((c) => Math.hypot(...c.force))) > Math.max(...P.contacts.points[b].map((c) => Math.hypot(...c.force))) ? f : b));
    await showFrame(page, P, big);
    await page.screenshot({ path: path.join(process.env.SHOTS, 'web-job-contacts-3d.png') });
  }
  assert.deepEqual(errors.filter((e) => !/GPU stall|GL Driver/.test(e)), []);
  await page.context().close();
});

// The colour ramp (web/src/colors.js), its stops pinned here.
const STOPS = [[49, 54, 149], [44, 123, 182], [0, 158, 115], [230, 159, 0], [215, 48, 39], [165, 0, 38]];
function rampRGB(x) {
  const u = Math.min(1, Math.max(0, x)) * (STOPS.length - 1);
  const i = Math.min(STOPS.length - 2, Math.floor(u)), f = u - i, a = STOPS[i], b = STOPS[i + 1];
  return [0, 1, 2].map((k) => Math.round(a[k] + f * (b[k] - a[k])));
}

// Each body's contact force at frame f computed here from the stored points:
// |sum of F on it| (F as the point's body, -F as its other body).
function bodyForces(P, f) {
  const F = P.bodies.map(() => [0, 0, 0]);
  for (const c of P.contacts.points[f]) c.force.forEach((x, i) => { F[c.body][i] += x; if (c.other >= 0) F[c.other][i] -= x; });
  return F.map((v) => Math.hypot(...v));
}

test('colours per body by its contact force: value, scale and colour at scrubbed frames, planar and 3-D', { timeout: 120000 }, async () => {
  assert.ok(planarJob && spatialJob, 'the jobs ran');
  const errors = [];
  for (const [job, dim] of [[planarJob, 2], [spatialJob, 3]]) {
    const page = await newPage(browser, errors);
    const P = await api(`/api/v1/jobs/${job}/poses`);
    await page.goto(`${env.base}/jobs/${job}`);
    await page.waitForSelector('#colour');
    await page.selectOption('#colour', '@contact');
    await until(async () => new URL(page.url()).searchParams.get('colour') === '@contact', 'colour=@contact in the URL');
    await page.waitForSelector('#body-colours');
    // the scale: 0 to the largest value over the stored frames
    let hi = 0;
    for (let f = 0; f < P.contacts.nframe; f++) hi = Math.max(hi, ...bodyForces(P, f));
    assert.equal(Number(await page.getAttribute('#colour-legend', 'data-lo')), 0);
    assert.ok(Math.abs(Number(await page.getAttribute('#colour-legend', 'data-hi')) - hi) <= 1e-12 * hi, 'the scale ends at the largest value');
    const exact = (f) => Number(P.times[f].toPrecision(15)) === P.times[f];
    const busy = P.contacts.points.map((pts, f) => [f, pts.length]).filter(([f, n]) => n > 0 && exact(f)).map(([f]) => f);
    for (const f of [busy[0], busy[busy.length >> 1], busy.at(-1)]) {
      await showFrame(page, P, f);
      const want = bodyForces(P, f);
      const rows = await page.$$eval('#body-colours tbody tr', (trs) => trs.map((tr) => ({ tint: Number(tr.dataset.tint), v: Number(tr.querySelector('td[data-v]').dataset.v), color: tr.querySelector('.swatch').dataset.color })));
      assert.equal(rows.length, P.bodies.length);
      rows.forEach((r, b) => {
        assert.ok(Math.abs(r.v - want[b]) <= 1e-9 * (1 + hi), `frame ${f} ${P.bodies[b]}: ${r.v}, want ${want[b]}`);
        assert.ok(Math.abs(r.tint - want[b] / hi) <= 1e-9, `frame ${f} ${P.bodies[b]}: scaled ${r.tint}, want ${want[b] / hi}`);
        assert.equal(r.color, `rgb(${rampRGB(want[b] / hi).join(',')})`, `frame ${f} ${P.bodies[b]}: colour`);
      });
      // the pose table's swatches: each body in the colour it is drawn in
      assert.deepEqual(await page.$$eval('#anim-table tbody tr .swatch', (ss) => ss.map((e) => e.dataset.color)),
        want.map((x) => `rgb(${rampRGB(x / hi).join(',')})`), `frame ${f}: the pose table's swatches`);
      if (dim === 2) {
        // every body's colour is drawn on the canvas
        for (let b = 0; b < P.bodies.length; b++) {
          const [R, G, B] = rampRGB(want[b] / hi);
          const n = (await canvasPixels(page, near(`rgb(${R},${G},${B})`))).length;
          assert.ok(n >= 20, `frame ${f}: ${n} pixels of ${P.bodies[b]}'s colour rgb(${R},${G},${B})`);
        }
      } else {
        // what three.js's instances hold, per body
        const cols = await until(async () => {
          const s2 = await page.$eval('.scene3d', (e) => e.dataset.bodyColors || '');
          const list = s2.split(';');
          return list.length === P.bodies.length && list.every((x, b) => x === `rgb(${rampRGB(want[b] / hi).join(',')})`) ? list : null;
        }, `frame ${f}: the instances' colours`);
        assert.equal(cols.length, 100);
      }
    }
    if (process.env.SHOTS && dim === 3) {
      // the 100 balls coloured by their contact forces, with the arrows, at
      // the frame of the largest contact force
      const big = busy.reduce((b, f) => (Math.max(...bodyForces(P, f)) > Math.max(...bodyForces(P, b)) ? f : b));
      await page.check('#contacts');
      await showFrame(page, P, big);
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.screenshot({ path: path.join(process.env.SHOTS, 'web-job-body-colours.png') });
    }
    // a deep link restores the choice
    const page2 = await newPage(browser, errors);
    await page2.goto(page.url());
    await page2.waitForSelector('#body-colours');
    assert.equal(await page2.$eval('#colour', (e) => e.value), '@contact');
    await page.context().close();
    await page2.context().close();
  }
  assert.deepEqual(errors.filter((e) => !/GPU stall|GL Driver/.test(e)), []);
});

test('at the limit of 32768 contact points: the points stored up to it, the page says where they stop and draws none after', { timeout: 120000 }, async () => {
  assert.ok(cappedJob && planarJob, 'the jobs ran');
  const P = await api(`/api/v1/jobs/${cappedJob}/poses`), result = await api(`/api/v1/jobs/${cappedJob}/result`);
  const C = P.contacts, cN = result.columns.indexOf('N');
  // the API: the limit, and the first frames whose points fit under it
  assert.equal(C.limit, 32768);
  assert.ok(C.nframe > 1 && C.nframe < P.nframe, `${C.nframe} of ${P.nframe} frames' points stored`);
  assert.equal(C.points.length, C.nframe);
  const stored = C.points.reduce((n, pts) => n + pts.length, 0);
  // the next frame's points did not fit: every nail touches at the last stored frame
  assert.equal(C.points[C.nframe - 1].length, NAILS);
  assert.ok(stored <= C.limit && stored + NAILS > C.limit, `${stored} points stored, ${NAILS} more would exceed ${C.limit}`);
  // the points kept are right: frictionless, each frame's resultant is channel N
  C.points.forEach((pts, f) => {
    const row = result.rows.find((r) => r[0] === P.times[f]);
    const F = pts.reduce((a, c) => [a[0] + c.force[0], a[1] + c.force[1]], [0, 0]);
    assert.ok(Math.abs(Math.hypot(...F) - row[cN]) <= 1e-9 * (1 + Math.abs(row[cN])), `frame ${f}: |F| ${Math.hypot(...F)}, N ${row[cN]}`);
  });
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(`${env.base}/jobs/${cappedJob}?contacts=1`);
  await page.waitForSelector('#contact-table');
  // the note: how many frames, up to which time, and why
  const note = await page.$eval('#contact-cap', (e) => ({ nframe: Number(e.dataset.nframe), until: Number(e.dataset.until), text: e.textContent }));
  assert.deepEqual([note.nframe, note.until], [C.nframe, P.times[C.nframe - 1]]);
  assert.match(note.text, new RegExp(`first ${C.nframe} of ${P.nframe} frames`));
  assert.match(note.text, /32,768 points/);
  const cyan = async () => (await canvasPixels(page, CYAN)).length;
  // frame f opened by its link (its time exactly, whatever its digits)
  const open = async (f, more = '') => {
    await page.goto(`${env.base}/jobs/${cappedJob}?contacts=1&t=${P.times[f]}${more}`);
    await until(async () => page.evaluate((f) => {
      const e = document.querySelector('#time-shown'), c = document.querySelector('canvas.anim-canvas');
      return !!e && Number(e.dataset.frame) === f && Number(e.dataset.u) === 0 && !!c && c.dataset.frame === String(f);
    }, f), `frame ${f} shown`);
  };
  // the last frame stored: every point in the table and drawn
  await open(C.nframe - 1);
  assert.equal(await page.getAttribute('#contact-table', 'data-stored'), '1');
  assert.equal((await page.$$('#contact-table tbody tr')).length, NAILS);
  assert.ok((await cyan()) > 100, 'arrows drawn at the last frame stored');
  // the first frame after it: the table says none are stored (not "none
  // touching"), and the canvas has no arrow
  await open(C.nframe);
  assert.equal(await page.getAttribute('#contact-table', 'data-stored'), '0');
  assert.equal((await page.$$('#contact-table tbody tr')).length, 0);
  assert.match(await page.textContent('#contact-table caption'), /not stored/);
  assert.equal(await cyan(), 0, 'no arrow after the frames stored');
  // coloured per body by its contact force: "not stored" there, not 0
  await open(C.nframe, '&colour=@contact');
  await page.waitForSelector('#body-colours');
  assert.deepEqual(await page.$$eval('#body-colours tbody tr td[data-v]', (tds) => tds.map((td) => [td.dataset.v, td.textContent])), [['', 'not stored']]);
  assert.ok(await page.$('#contact-cap'));
  // a job whose points all fit has no such note
  await page.goto(`${env.base}/jobs/${planarJob}?contacts=1`);
  await page.waitForSelector('#contact-table');
  assert.equal(await page.$('#contact-cap'), null);
  assert.deepEqual(errors, []);
  await page.context().close();
});
