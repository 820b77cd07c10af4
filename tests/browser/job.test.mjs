// job.test.mjs - view 3 in Chromium (a job of the small sweep, which the
// workers ran): the animation's body positions at a scrubbed time equal the
// job's stored samples; the time is in the URL and a deep link restores it;
// overlaid jobs' plotted ranges equal their samples; play moves the time;
// the decimated samples API against the raw result.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { env, launch, newPage, api, until } from './helpers.mjs';

const browser = await launch();
after(() => browser.close());
const table = await api(`/api/v1/sweeps/${env.small}/table?limit=100`);
const ids = table.rows.map((r) => r[0]);
const [J1, J2, J3] = ids;
const raw = Object.fromEntries(await Promise.all(ids.slice(0, 3).map(async (id) => [id, await api(`/api/v1/jobs/${id}/result`)])));

async function shown(page) {
  return page.evaluate(() => ({
    t: Number(document.querySelector('#time-shown').dataset.t),
    k: Number(document.querySelector('#time-shown').dataset.sample),
    bodies: [...document.querySelectorAll('#anim-table tbody tr')].map((tr) => ({
      name: tr.dataset.body, x: Number(tr.children[1].dataset.v), y: Number(tr.children[2].dataset.v) })),
  }));
}

test('the animation at a scrubbed time shows the stored samples', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(`${env.base}/jobs/${J1}`);
  await page.waitForSelector('#anim-table');
  const r = raw[J1];
  const cx = r.columns.indexOf('x'), cy = r.columns.indexOf('y');
  assert.ok(cx > 0 && cy > 0 && r.rows.length > 50);
  for (const k of [0, 37, r.rows.length - 1]) {
    await page.fill('#time', String(r.rows[k][0]));
    await until(async () => (await shown(page)).k === k, `sample ${k} shown`);
    const s = await shown(page);
    assert.equal(s.t, r.rows[k][0]);
    assert.deepEqual(s.bodies, [{ name: 'bob', x: r.rows[k][cx], y: r.rows[k][cy] }]);
  }
  // the time is in the URL; a deep link restores it (the sample at or before t)
  await until(async () => Number(new URL(page.url()).searchParams.get('t')) === r.rows.at(-1)[0], 't in the URL');
  const t = (r.rows[20][0] + r.rows[21][0]) / 2;
  await page.goto(`${env.base}/jobs/${J1}?t=${t}`);
  await page.waitForSelector('#anim-table');
  await until(async () => (await shown(page)).k === 20, 'sample 20 from the deep link');
  assert.deepEqual((await shown(page)).bodies[0], { name: 'bob', x: r.rows[20][cx], y: r.rows[20][cy] });
  // play moves the time forward, pause stops it
  await page.click('#play');
  await until(async () => (await shown(page)).k > 25, 'time moving while playing', 10000);
  await page.click('#play');
  const k1 = (await shown(page)).k;
  await new Promise((res) => setTimeout(res, 400));
  assert.equal((await shown(page)).k, k1, 'paused');
  assert.deepEqual(errors, []);
  await page.context().close();
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
