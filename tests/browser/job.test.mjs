// job.test.mjs - view 3 in Chromium (a job of the small sweep, which the
// workers ran, and the spatial slider-crank): the animation's body poses at
// a scrubbed time equal the job's stored poses (and the samples of the
// position channels); the time is in the URL and a deep link restores it;
// overlaid jobs' plotted ranges equal their samples; play moves the time;
// the decimated samples API against the raw result.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { env, launch, newPage, api, until, showFrame, canvasPixels, near } from './helpers.mjs';
import { ramp } from '../../web/src/colors.js';

const browser = await launch();
after(() => browser.close());
const table = await api(`/api/v1/sweeps/${env.small}/table?limit=100`);
const ids = table.rows.map((r) => r[0]);
const [J1, J2, J3] = ids;
const raw = Object.fromEntries(await Promise.all(ids.slice(0, 3).map(async (id) => [id, await api(`/api/v1/jobs/${id}/result`)])));

async function shown(page) {
  return page.evaluate(() => {
    const ts = document.querySelector('#time-shown');
    return {
      t: Number(ts.dataset.t), f: Number(ts.dataset.frame), u: Number(ts.dataset.u),
      bodies: [...document.querySelectorAll('#anim-table tbody tr')].map((tr) => ({
        name: tr.dataset.body, v: [...tr.querySelectorAll('td[data-v]')].map((td) => Number(td.dataset.v)) })),
    };
  });
}

// The poses of frame f as the page shows them (bodies in order).
const frameOf = (P, f) => P.bodies.map((name, b) => ({ name, v: P.frames[f].slice(b * P.npose, (b + 1) * P.npose) }));

test('the animation at a scrubbed time shows the stored poses, equal to the samples', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  const requests = [];
  page.on('request', (q) => requests.push(q.url()));
  await page.goto(`${env.base}/jobs/${J1}`);
  await page.waitForSelector('#anim-table');
  const r = raw[J1], P = await api(`/api/v1/jobs/${J1}/poses`);
  const cx = r.columns.indexOf('x'), cy = r.columns.indexOf('y');
  assert.ok(cx > 0 && cy > 0 && r.rows.length > 50);
  assert.equal(P.npose, 3);
  assert.deepEqual(P.bodies, ['bob']);
  assert.ok(P.nframe >= 2 && P.nframe <= 256 && P.times.at(-1) === r.rows.at(-1)[0]);
  for (const f of [0, 13, P.nframe - 1]) {
    await page.fill('#time', String(P.times[f]));
    await until(async () => { const s = await shown(page); return s.f === f && s.u === 0; }, `frame ${f} shown`);
    const s = await shown(page);
    assert.equal(s.t, P.times[f]);
    assert.deepEqual(s.bodies, frameOf(P, f));
    // a frame is taken at a sample: the bob's centre of mass is channels x, y there
    const row = r.rows.find((q) => q[0] === P.times[f]);
    assert.ok(row, `a sample at t = ${P.times[f]}`);
    assert.ok(Math.abs(s.bodies[0].v[0] - row[cx]) < 1e-12 && Math.abs(s.bodies[0].v[1] - row[cy]) < 1e-12);
  }
  // the time is in the URL; a deep link between two frames restores it, interpolated
  await until(async () => Number(new URL(page.url()).searchParams.get('t')) === P.times.at(-1), 't in the URL');
  const t = P.times[20] + 0.25 * (P.times[21] - P.times[20]);
  await page.goto(`${env.base}/jobs/${J1}?t=${t}`);
  await page.waitForSelector('#anim-table');
  await until(async () => (await shown(page)).f === 20, 'frame 20 from the deep link');
  const s = await shown(page), u = (t - P.times[20]) / (P.times[21] - P.times[20]);
  assert.ok(Math.abs(s.u - u) < 1e-9);
  s.bodies[0].v.forEach((x, i) => assert.ok(Math.abs(x - (P.frames[20][i] + u * (P.frames[21][i] - P.frames[20][i]))) < 1e-12));
  // play moves the time forward, pause stops it
  await page.click('#play');
  await until(async () => (await shown(page)).f > 25, 'time moving while playing', 10000);
  await page.click('#play');
  await until(async () => (await page.textContent('#play')) === 'Play', 'the button back to Play');
  const f1 = (await shown(page)).t;
  await new Promise((res) => setTimeout(res, 400));
  assert.equal((await shown(page)).t, f1, 'paused');
  // a planar job never loads three.js (the Scene3D chunk)
  assert.equal(requests.filter((u) => /Scene3D/.test(u)).length, 0);
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('a spatial job: three.js drawn, scrubbed poses equal the stored ones, time linked with the plots', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  const sp = (await api(`/api/v1/sweeps/${env.spatial}/jobs`)).items[0];
  assert.equal(sp.status, 'done');
  const P = await api(`/api/v1/jobs/${sp.id}/poses`), r = await api(`/api/v1/jobs/${sp.id}/result`);
  assert.equal(P.npose, 7);
  assert.equal(P.geometry.dimension, 3);
  await page.goto(`${env.base}/jobs/${sp.id}`);
  await page.waitForSelector('.scene3d canvas');
  for (const f of [0, Math.floor(P.nframe / 3), P.nframe - 1]) {
    await page.fill('#time', String(P.times[f]));
    await until(async () => { const s = await shown(page); return s.f === f && s.u === 0; }, `frame ${f} shown`);
    assert.deepEqual((await shown(page)).bodies, frameOf(P, f));
    // every quaternion is a unit one; the slider's com is channel x_slider
    for (const b of (await shown(page)).bodies) assert.ok(Math.abs(Math.hypot(...b.v.slice(3)) - 1) < 1e-12);
    const row = r.rows.find((q) => q[0] === P.times[f]);
    const slider = P.bodies.indexOf('slider');
    assert.ok(Math.abs(P.frames[f][7 * slider] - row[r.columns.indexOf('x_slider')]) < 1e-12);
  }
  // a click on a plot sets the animation's time (the cursor is shared)
  // (the plots are redrawn once their width is known: click until one takes)
  const T = P.times.at(-1);
  await until(async () => {
    const box = await page.locator('.plot .u-over').first().boundingBox().catch(() => null);
    if (box) await page.mouse.click(box.x + box.width * 0.5, box.y + box.height / 2).catch(() => {});
    const s = await shown(page);
    return s.t > 0.2 * T && s.t < 0.8 * T;
  }, 'time set from the plot');
  // the WebGL canvas has drawn something (not only the clear colour)
  const drawn = await page.evaluate(() => {
    const c = document.querySelector('.scene3d canvas'), g = c.getContext('webgl2') || c.getContext('webgl');
    const px = new Uint8Array(4 * c.width * c.height);
    g.readPixels(0, 0, c.width, c.height, g.RGBA, g.UNSIGNED_BYTE, px);
    let n = 0;
    for (let i = 0; i < px.length; i += 4) if (Math.abs(px[i] - 252) + Math.abs(px[i + 1] - 252) + Math.abs(px[i + 2] - 253) > 30) n++;
    return n;
  });
  assert.ok(drawn > 200, `${drawn} pixels drawn`);
  // coloured by the slider's x: the instances' colour (read back from
  // three.js's buffer) is the sample at the time shown mapped through the scale
  await page.goto(`${env.base}/jobs/${sp.id}?ch=x_slider&colour=x_slider`);
  await page.waitForSelector('#colour-legend');
  const cx = r.columns.indexOf('x_slider'), xs = r.rows.map((q) => q[cx]), xlo = Math.min(...xs), xhi = Math.max(...xs);
  for (const f of [Math.floor(P.nframe / 4), Math.floor((3 * P.nframe) / 4)]) {
    await page.fill('#time', String(P.times[f]));
    await until(async () => (await shown(page)).f === f, `frame ${f} shown`);
    const row = r.rows.find((q) => q[0] === P.times[f]);
    const want = ramp((row[cx] - xlo) / (xhi - xlo)).match(/\d+/g).map(Number);
    const got = await until(async () => {
      const c = await page.$eval('.scene3d', (e) => e.dataset.colors || '');
      const v = c.match(/\d+/g);
      return v && v.length === 3 && v.map(Number).every((x, i) => Math.abs(x - want[i]) <= 1) ? v : null;
    }, `frame ${f}: the instances in rgb(${want})`);
    assert.equal(got.length, 3);
  }
  assert.deepEqual(errors.filter((e) => !/GPU stall|GL Driver/.test(e)), []);
  await page.context().close();
});

test('poses API: bad and unknown ids, a job without poses', async () => {
  for (const [q, code] of [['abc', 404], ['0x1', 404], ['99999999999', 404]]) {
    const res = await fetch(`${env.base}/api/v1/jobs/${q}/poses`);
    assert.equal(res.status, code, q);
    assert.ok((await res.json()).error.message);
  }
  // a queued job (the control sweep's): its geometry with its parameters, no frames
  const q = (await api(`/api/v1/sweeps/${env.control}/jobs?limit=1`)).items[0];
  const P = await api(`/api/v1/jobs/${q.id}/poses`);
  assert.equal(P.nframe, 0);
  assert.deepEqual(P.frames, []);
  assert.deepEqual(P.geometry.bodies[0].com, [q.parameters.L, 0]);
  // the model's geometry: its default parameters (L = 1)
  const g = await api(`/api/v1/models/${env.mid}/geometry`);
  assert.deepEqual(g.geometry.bodies, [{ name: 'bob', com: [1, 0], angle: 0 }]);
  assert.deepEqual(g.geometry.joints, [{ name: 'pivot', type: 'revolute', bodies: [-1, 0], at: [0, 0] }]);
  // the bulk sweep's jobs have parameters the model does not declare: 422 naming them
  const big = (await api(`/api/v1/sweeps/${env.big}/jobs?limit=1`)).items[0];
  const res = await fetch(`${env.base}/api/v1/jobs/${big.id}/poses`);
  assert.equal(res.status, 422);
  assert.ok((await res.json()).error.details.length > 0);
  assert.equal((await fetch(`${env.base}/api/v1/models/0123456789abcdef/geometry`)).status, 404);
});

test('overlaid jobs: the plots cover every job and channel with their sample ranges', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(`${env.base}/jobs/${J1}?with=${J2},${J3}&ch=x,y`);
  await page.waitForSelector('#plots-table tbody tr', { state: 'attached' });
  assert.equal(await page.locator('.plot canvas').count() >= 2, true, 'two uPlot canvases');
  const rows = await page.$$eval('#plots-table tbody tr', (trs) => trs.map((tr) => ({
    ch: tr.dataset.channel, job: Number(tr.dataset.job), min: Number(tr.children[3].dataset.v), max: Number(tr.children[4].dataset.v) })));
  assert.equal(rows.length, 6);
  for (const row of rows) {
    const r = raw[row.job], c = r.columns.indexOf(row.ch);
    const v = r.rows.map((x) => x[c]);
    assert.equal(row.min, Math.min(...v), `${row.ch} of ${row.job}`);
    assert.equal(row.max, Math.max(...v), `${row.ch} of ${row.job}`);
  }
  // job 3 has another length L: its x range differs from job 1's
  const x1 = rows.find((q) => q.ch === 'x' && q.job === J1), x3 = rows.find((q) => q.ch === 'x' && q.job === J3);
  assert.notEqual(x1.max, x3.max);
  // selected in the sweep's table (kept in the URL), plotted together
  await page.goto(`${env.base}/sweeps/${env.small}`);
  await page.check(`#jobs-grid input.sel[data-job="${J3}"]`);
  await page.check(`#jobs-grid input.sel[data-job="${J1}"]`);
  await until(async () => new URL(page.url()).searchParams.get('sel') === `${J3},${J1}`, 'selection in the URL');
  await page.click('#plot-selected');
  await page.waitForSelector('#plots-table tbody tr', { state: 'attached' });
  assert.equal(new URL(page.url()).pathname, `/jobs/${J3}`);
  assert.equal(new URL(page.url()).searchParams.get('with'), String(J1));
  const jobs = await page.$$eval('#plots-table tbody tr', (trs) => [...new Set(trs.map((tr) => Number(tr.dataset.job)))]);
  assert.deepEqual(jobs.sort((a, b) => a - b), [J1, J3].sort((a, b) => a - b));
  // from the sweep's table, a job id opens its view
  await page.goto(`${env.base}/sweeps/${env.small}`);
  await page.click(`#jobs-grid a[href="/jobs/${J2}"]`);
  await page.waitForSelector('#anim-table');
  assert.equal(new URL(page.url()).pathname, `/jobs/${J2}`);
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('samples API: min/max buckets equal the raw samples; bad requests', async () => {
  const r = raw[J1];
  const d = await api(`/api/v1/samples?jobs=${J1},${J2},999999999&points=7&channels=y,nope`);
  assert.equal(d.jobs.length, 3);
  const j = d.jobs[0];
  assert.equal(j.job, J1);
  assert.equal(j.nsample, r.rows.length);
  assert.equal(j.decimated, true);
  assert.equal(j.buckets, 7);
  assert.deepEqual(j.missing, ['nope']);
  assert.deepEqual(Object.keys(j.channels), ['y']);
  const n = r.rows.length, c = r.columns.indexOf('y');
  for (let b = 0; b < 7; b++) {
    const part = r.rows.slice(Math.floor(b * n / 7), Math.floor((b + 1) * n / 7));
    assert.equal(j.t[b], part[0][0]);
    assert.equal(j.t_last[b], part.at(-1)[0]);
    assert.equal(j.channels.y.min[b], Math.min(...part.map((x) => x[c])));
    assert.equal(j.channels.y.max[b], Math.max(...part.map((x) => x[c])));
  }
  assert.equal(d.jobs[1].job, J2);
  assert.equal(d.jobs[2].available, false);
  const whole = await api(`/api/v1/samples?jobs=${J1}&points=1000`);
  assert.equal(whole.jobs[0].decimated, false);
  assert.deepEqual(whole.jobs[0].t, r.rows.map((x) => x[0]));
  assert.deepEqual(whole.jobs[0].channels.x.min, r.rows.map((x) => x[r.columns.indexOf('x')]));
  for (const q of ['jobs=', 'jobs=abc', 'jobs=1&points=1', 'jobs=1&points=10001',
    `jobs=${Array.from({ length: 21 }, (_, i) => i + 1).join(',')}`]) {
    const res = await fetch(`${env.base}/api/v1/samples?${q}`);
    assert.equal(res.status, 400, q);
  }
});

test('the min/max envelope of the whole sweep: the API against every job\'s samples, drawn behind the job', async () => {
  // the API: 20 buckets over [0, 1] from every done job's raw samples
  const rows = table.rows.filter((r) => r[2] === 'done');
  const results = await Promise.all(rows.map((r) => api(`/api/v1/jobs/${r[0]}/result`)));
  const N = 20, t0 = 0, t1 = results[0].rows.at(-1)[0];
  const e = await api(`/api/v1/sweeps/${env.small}/envelope?channels=x,y,nope&points=${N}&t0=${t0}&t1=${t1}`);
  assert.equal(e.jobs_done, rows.length);
  assert.equal(e.jobs_used, rows.length);
  assert.equal(e.stride, 1);
  assert.equal(e.truncated, false);
  assert.deepEqual(e.missing, ['nope']);
  assert.equal(e.t.length, N);
  for (const ch of ['x', 'y']) {
    const lo = new Array(N).fill(Infinity), hi = new Array(N).fill(-Infinity);
    for (const r of results) {
      const c = r.columns.indexOf(ch);
      for (const row of r.rows) {
        if (!(row[0] >= t0 && row[0] <= t1)) continue;
        const b = Math.min(N - 1, Math.floor((row[0] - t0) * (N / (t1 - t0))));
        lo[b] = Math.min(lo[b], row[c]); hi[b] = Math.max(hi[b], row[c]);
      }
    }
    assert.deepEqual(e.channels[ch].min, lo.map((v) => (Number.isFinite(v) ? v : null)), `${ch} min`);
    assert.deepEqual(e.channels[ch].max, hi.map((v) => (Number.isFinite(v) ? v : null)), `${ch} max`);
  }
  // bounded: max_jobs 3 of 8 reads the jobs whose idx is a multiple of 3
  const few = await api(`/api/v1/sweeps/${env.small}/envelope?channels=x&max_jobs=3`);
  assert.equal(few.stride, 3);
  assert.equal(few.jobs_used, 3);
  for (const [p, st] of [['channels=', 400], ['channels=x&points=1', 400], ['channels=x&t0=1&t1=0', 400], ['channels=x&t0=abc', 400],
    ['channels=a,b,c,d,e,f,g,h,i', 400], ['channels=x&max_jobs=0', 400]]) {
    const r = await fetch(`${env.base}/api/v1/sweeps/${env.small}/envelope?${p}`);
    assert.equal(r.status, st, p);
  }
  assert.equal((await fetch(`${env.base}/api/v1/sweeps/00000000-0000-0000-0000-000000000000/envelope?channels=x`)).status, 404);
  // the page: the envelope's series and its row in the text alternative (over the job's own time range)
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(`${env.base}/jobs/${J2}?ch=x`);
  await page.waitForSelector('.plot canvas');
  await page.check('#envelope');
  await until(async () => new URL(page.url()).searchParams.get('env') === '1', 'env=1 in the URL');
  await page.waitForSelector('#plots-table tr.envelope[data-channel="x"]', { state: 'attached' });
  const got = await page.$$eval('#plots-table tr.envelope[data-channel="x"] td[data-v]', (tds) => tds.map((td) => Number(td.dataset.v)));
  const full = await api(`/api/v1/sweeps/${env.small}/envelope?channels=x&points=500&t0=${raw[J2].rows[0][0]}&t1=${raw[J2].rows.at(-1)[0]}`);
  const fin = (a) => a.filter((v) => v !== null);
  assert.deepEqual(got, [Math.min(...fin(full.channels.x.min)), Math.max(...fin(full.channels.x.max))]);
  assert.ok(await page.$('.plot .u-legend :text("sweep min")'), 'the envelope in the legend');
  assert.deepEqual(errors, []);
  await page.context().close();
});

// How many opaque pixels of the planar canvas have the colour css ('rgb(r,g,b)', within 2 per channel).
const inkOf = async (page, css) => (await canvasPixels(page, near(css))).length;

test('one job coloured by a channel: the colour at a scrubbed time is the sample mapped through the scale, in the URL', async () => {
  // the scale's ends are pinned here, not only read from the page's module
  assert.equal(ramp(0), 'rgb(49,54,149)');
  assert.equal(ramp(1), 'rgb(165,0,38)');
  assert.equal(ramp(-3), ramp(0));
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(`${env.base}/jobs/${J2}?ch=y`);
  await page.waitForSelector('#anim-table');
  assert.equal(await page.$('#colour-legend'), null, 'no scale before a channel is chosen');
  // chosen beside the animation's controls; the choice goes to the URL
  await page.selectOption('#colour', 'y');
  await until(async () => new URL(page.url()).searchParams.get('colour') === 'y', 'colour=y in the URL');
  await page.waitForSelector('#colour-legend');
  const r = raw[J2], cy = r.columns.indexOf('y'), ys = r.rows.map((q) => q[cy]);
  const lo = Math.min(...ys), hi = Math.max(...ys);
  const legend = await page.$eval('#colour-legend', (e) => [e.dataset.channel, Number(e.dataset.lo), Number(e.dataset.hi)]);
  assert.deepEqual(legend, ['y', lo, hi]);
  const P = await api(`/api/v1/jobs/${J2}/poses`);
  const seen = new Set();
  for (const f of [0, 17, 45]) {
    await showFrame(page, P, f);
    const row = r.rows.find((q) => q[0] === P.times[f]);
    const want = ramp((row[cy] - lo) / (hi - lo));
    const got = await page.$eval(`#scene-jobs tr[data-job="${J2}"]`, (tr) => [Number(tr.querySelector('td[data-v]').dataset.v), Number(tr.dataset.tint), tr.querySelector('.swatch').dataset.color]);
    assert.deepEqual(got, [row[cy], (row[cy] - lo) / (hi - lo), want], `frame ${f}`);
    // (the canvas is drawn after the table: its pixels are waited for)
    await until(async () => (await inkOf(page, want)) >= 20, `frame ${f}: ${want} drawn on the canvas`);
    seen.add(want);
  }
  assert.equal(seen.size, 3, 'the colour follows the time');
  // a deep link restores the choice; 'body' takes it away
  await page.goto(`${env.base}/jobs/${J2}?ch=y&colour=y&t=${P.times[17]}`);
  await page.waitForSelector('#colour-legend');
  assert.equal(await page.$eval('#colour', (e) => e.value), 'y');
  await page.selectOption('#colour', '');
  await until(async () => (await page.$('#colour-legend')) === null && !new URL(page.url()).searchParams.has('colour'), 'colour taken away');
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('several jobs in one animated scene, side by side or overlaid, coloured by a channel', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(`${env.base}/jobs/${J1}?with=${J2},${J3}&ch=x&scene=side&colour=x`);
  await page.waitForSelector('#scene-jobs tbody tr[data-job="' + J3 + '"]');
  assert.equal(await page.getAttribute('canvas.anim-canvas', 'data-members'), '3');
  const P = await api(`/api/v1/jobs/${J1}/poses`);
  const f = 30;
  await showFrame(page, P, f);
  // each job's colour channel (x, the bob's x) at the time shown, from its own samples
  const vals = await page.$$eval('#scene-jobs tbody tr', (trs) => trs.map((tr) => [tr.dataset.job, Number(tr.querySelector('td[data-v]').dataset.v)]));
  assert.deepEqual(vals.map((v) => v[0]), [J1, J2, J3].map(String));
  for (const [j, v] of vals) {
    const r = raw[j], row = r.rows.filter((q) => q[0] <= P.times[f]).at(-1);
    assert.equal(v, row[r.columns.indexOf('x')], `x of job ${j} at t`);
  }
  // the scale: from the least to the largest x over the three jobs' samples
  // (legend), each job's colour its value mapped through it, and that
  // colour drawn on the canvas (the com's dot and the rod are filled with it)
  const xs = [J1, J2, J3].flatMap((j) => raw[j].rows.map((q) => q[raw[j].columns.indexOf('x')]));
  const lo = Math.min(...xs), hi = Math.max(...xs);
  assert.ok(hi > lo);
  const legend = await page.$eval('#colour-legend', (e) => ({ ch: e.dataset.channel, lo: Number(e.dataset.lo), hi: Number(e.dataset.hi), marks: e.querySelectorAll('.mark').length }));
  assert.deepEqual(legend, { ch: 'x', lo, hi, marks: 3 });
  const colors = await page.$$eval('#scene-jobs tbody tr', (trs) => trs.map((tr) => tr.querySelector('.swatch').dataset.color));
  assert.deepEqual(colors, vals.map(([, v]) => ramp((v - lo) / (hi - lo))));
  assert.notEqual(colors[0], colors[2], 'jobs 1 and 3 (other lengths) at other values, in other colours');
  for (const c of colors) await until(async () => (await inkOf(page, c)) >= 20, `${c} drawn on the canvas`);
  // overlaid: the same three jobs in one place; the URL keeps both choices
  await page.selectOption('#scene', 'over');
  await until(async () => new URL(page.url()).searchParams.get('scene') === 'over', 'scene=over in the URL');
  await until(async () => /overlaid/.test(await page.textContent('#scene-jobs caption')), 'overlaid');
  assert.equal(new URL(page.url()).searchParams.get('colour'), 'x');
  // back to this job alone, coloured per body: no scene table
  await page.selectOption('#scene', '');
  await page.selectOption('#colour', '');
  await until(async () => (await page.$('#scene-jobs')) === null, 'no scene table');
  assert.equal(await page.getAttribute('canvas.anim-canvas', 'data-members'), '1');
  assert.deepEqual(errors, []);
  await page.context().close();
});

// Every body's speed at frame f from the stored frames, computed here: the
// central difference of its centre of mass over frames f - 1 and f + 1
// (one-sided at the first and last frame).
function speeds(P, f) {
  const d = P.npose === 7 ? 3 : 2, i = Math.max(0, f - 1), j = Math.min(P.nframe - 1, f + 1);
  const a = P.frames[i], b = P.frames[j], dt = P.times[j] - P.times[i];
  return P.bodies.map((_, k) => Math.hypot(...Array.from({ length: d }, (_, c) => b[k * P.npose + c] - a[k * P.npose + c])) / dt);
}

test('each body coloured by its speed: the value from the frames, equal to the energy\'s speed, scaled and drawn', async () => {
  const errors = [];
  // the small sweep's first job (the pendulum released from the horizontal
  // at rest) and the spatial slider-crank
  const cols = table.columns.map((c) => `${c.group}.${c.name}`);
  const L = table.rows[0][cols.indexOf('parameter.L')], m = table.rows[0][cols.indexOf('parameter.m')];
  const sp = (await api(`/api/v1/sweeps/${env.spatial}/jobs`)).items[0];
  for (const job of [J1, sp.id]) {
    const P = await api(`/api/v1/jobs/${job}/poses`);
    const page = await newPage(browser, errors);
    await page.goto(`${env.base}/jobs/${job}`);
    await page.waitForSelector('#colour');
    await page.selectOption('#colour', '@speed');
    await until(async () => new URL(page.url()).searchParams.get('colour') === '@speed', 'colour=@speed in the URL');
    await page.waitForSelector('#body-colours');
    // the scale: 0 to the largest speed over the frames
    let hi = 0;
    for (let f = 0; f < P.nframe; f++) hi = Math.max(hi, ...speeds(P, f));
    const legend = await page.$eval('#colour-legend', (e) => [e.dataset.channel, Number(e.dataset.lo), Number(e.dataset.hi)]);
    assert.deepEqual(legend.slice(0, 2), ['speed', 0]);
    assert.ok(hi > 0 && Math.abs(legend[2] - hi) <= 1e-12 * hi, `the scale ends at the largest speed ${hi}: ${legend[2]}`);
    const seen = new Set();
    for (const f of [5, P.nframe >> 1, P.nframe - 8]) {
      await showFrame(page, P, f);
      const want = speeds(P, f);
      const rows = await page.$$eval('#body-colours tbody tr', (trs) => trs.map((tr) => ({ tint: Number(tr.dataset.tint), v: Number(tr.querySelector('td[data-v]').dataset.v), color: tr.querySelector('.swatch').dataset.color })));
      assert.equal(rows.length, P.bodies.length);
      rows.forEach((r, b) => {
        assert.ok(Math.abs(r.v - want[b]) <= 1e-12 * (1 + hi), `frame ${f} ${P.bodies[b]}: ${r.v}, want ${want[b]}`);
        assert.ok(Math.abs(r.tint - want[b] / hi) <= 1e-12, `frame ${f} ${P.bodies[b]}: scaled ${r.tint}`);
        assert.equal(r.color, ramp(want[b] / hi), `frame ${f} ${P.bodies[b]}: colour`);
      });
      // the pose table's swatches: each body in the colour it is drawn in
      assert.deepEqual(await page.$$eval('#anim-table tbody tr .swatch', (ss) => ss.map((e) => e.dataset.color)), want.map((x) => ramp(x / hi)), `frame ${f}: the pose table's swatches`);
      if (job === J1) {
        // the bob's speed from the energy: m g (-y) = m v^2 / 2 + I w^2 / 2
        // with w = v / L (I = 0.01, released at rest from y = 0); the central
        // difference differs by at most h^2/6 |x'''|, |x'''| <= L (w^3 +
        // 4 w a) with w^2 <= 2 g / L, |a| <= g / L (measured: about 45 % of it)
        const g = 9.81, y = P.frames[f][1], h = P.times[f + 1] - P.times[f];
        const ve = Math.sqrt((2 * g * -y) / (1 + 0.01 / (m * L * L)));
        const wm = Math.sqrt((2 * g) / L), am = g / L, tol = ((h * h) / 6) * L * (wm ** 3 + 4 * wm * am);
        assert.ok(Math.abs(rows[0].v - ve) <= tol, `frame ${f}: speed ${rows[0].v}, from the energy ${ve} (tolerance ${tol})`);
        await until(async () => (await inkOf(page, rows[0].color)) >= 20, `frame ${f}: ${rows[0].color} drawn on the canvas`);
        seen.add(rows[0].color);
      } else {
        // what three.js's instances hold, per body
        await until(async () => {
          const list = (await page.$eval('.scene3d', (e) => e.dataset.bodyColors || '')).split(';');
          return list.length === P.bodies.length && list.every((x, b) => x === ramp(want[b] / hi));
        }, `frame ${f}: the instances' colours`);
      }
    }
    if (job === J1) assert.equal(seen.size, 3, 'the colour follows the speed');
    // a deep link restores the choice
    const page2 = await newPage(browser, errors);
    await page2.goto(page.url());
    await page2.waitForSelector('#body-colours');
    assert.equal(await page2.$eval('#colour', (e) => e.value), '@speed');
    await page.context().close();
    await page2.context().close();
  }
  assert.deepEqual(errors.filter((e) => !/GPU stall|GL Driver/.test(e)), []);
});
