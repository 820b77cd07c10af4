// sweep.test.mjs - view 2 in Chromium on the bulk sweep (10^5 jobs by
// default) and the small one: the virtualised table holds every job, sorts
// and filters like the API's data says, the CSV holds exactly the rows shown,
// brushing the parallel coordinates filters the table, a deep link restores
// the view.  Expected values are computed here from /api/v1/.../table and
// results.csv, never read from the page.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { env, launch, newPage, tableRows, apiText, parseCsv, until, waitShown } from './helpers.mjs';

const browser = await launch();
after(() => browser.close());
const N = env.bigJobs;
const data = await tableRows(env.big);          // the API's rows, in idx order

async function count(page) {
  return Number(await page.textContent('#jobs-count strong'));
}

// The cells of the rendered rows (virtualised: only those in view), by column key.
async function visibleRows(page) {
  return page.evaluate(() => {
    const keys = [...document.querySelectorAll('#jobs-grid .hrow button.sort')].map((b) => b.dataset.key);
    return [...document.querySelectorAll('#jobs-grid .vrow')]
      .sort((a, b) => Number(a.dataset.row) - Number(b.dataset.row))
      .map((r) => {
        const o = { row: Number(r.dataset.row), aria: Number(r.getAttribute('aria-rowindex')) };
        [...r.children].forEach((c, j) => { o[keys[j]] = c.getAttribute('title'); });
        return o;
      });
  });
}

async function open(page, query = '') {
  const t0 = Date.now();
  await page.goto(`${env.base}/sweeps/${env.big}${query}`);
  await waitShown(page, '#jobs-count');
  return Date.now() - t0;
}

// One page on the bulk sweep serves the first three tests (loading 10^5 jobs
// is the slow part); each test starts from the bare URL, set in the page.
let shared = null;
const sharedErrors = [];
after(async () => { if (shared) await shared.context().close().catch(() => {}); });
async function bulkPage() {
  if (!shared) {
    shared = await newPage(browser, sharedErrors);
    const ms = await open(shared);
    console.log(`# the sweep view of ${N} jobs was interactive after ${ms} ms`);
  } else {
    await shared.evaluate(() => { history.pushState(null, '', location.pathname); dispatchEvent(new PopStateEvent('popstate')); });
    await until(async () => (await count(shared)) === N, 'every job after the reset');
  }
  return shared;
}

async function download(page) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#csv')]);
  return parseCsv(fs.readFileSync(await dl.path(), 'utf8'));
}

test('every job is in the table; scrolling reaches the last one', async () => {
  const page = await bulkPage();
  assert.equal(await count(page), N);
  assert.equal(await page.getAttribute('#jobs-grid', 'aria-rowcount'), String(N + 2));
  // virtualised: far fewer rows in the document than jobs
  const first = await visibleRows(page);
  assert.ok(first.length > 10 && first.length < 100, `${first.length} rows rendered`);
  assert.equal(Number(first[0]['job.idx']), 0);
  // keyboard: End on the focused grid scrolls to the last job
  await page.focus('#jobs-grid');
  await page.keyboard.press('End');
  await until(async () => (await visibleRows(page)).some((r) => Number(r['job.idx']) === N - 1), 'the last row');
  const last = (await visibleRows(page)).at(-1);
  assert.equal(last.aria, N + 2);
  assert.equal(Number(last['job.job_id']), data.rows[N - 1]['job.job_id']);
  assert.deepEqual(sharedErrors, []);
});

test('sort and filter agree with the API data; the CSV holds exactly the rows shown', async () => {
  const page = await bulkPage();
  // sort by r1 descending: two clicks
  await page.click('button.sort[data-key="response.r1"]');
  await page.click('button.sort[data-key="response.r1"]');
  await until(async () => new URL(page.url()).searchParams.get('desc') === '1', 'descending sort in the URL');
  const r1 = data.rows.map((r) => r['response.r1']).filter((v) => v !== null);
  const max = Math.max(...r1);
  await until(async () => Number((await visibleRows(page))[0]['response.r1']) === max, 'largest r1 first');
  // filters: b = 3, status exactly done, error empty
  await page.fill('input[data-filter="parameter.b"]', '3');
  await page.fill('input[data-filter="job.status"]', '=done');
  await page.fill('input[data-filter="parameter.a"]', '0.2..0.6');
  const expected = data.rows.filter((r) => r['parameter.b'] === 3 && r['job.status'] === 'done'
    && r['parameter.a'] >= 0.2 && r['parameter.a'] <= 0.6);
  assert.ok(expected.length > 100 && expected.length < N / 10, `${expected.length} expected`);
  await until(async () => (await count(page)) === expected.length, `count ${expected.length}`);
  const url = new URL(page.url());
  assert.deepEqual(url.searchParams.getAll('f').sort(), ['job.status:=done', 'parameter.a:0.2..0.6', 'parameter.b:3']);
  // an invalid filter is marked and ignored
  await page.fill('input[data-filter="metric.steps"]', '>>x');
  assert.equal(await page.getAttribute('input[data-filter="metric.steps"]', 'aria-invalid'), 'true');
  assert.equal(await count(page), expected.length);
  await page.fill('input[data-filter="metric.steps"]', '');
  // the CSV: the same rows, in the order shown (r1 descending), every column
  const csv = await download(page);
  const head = csv[0], rows = csv.slice(1);
  assert.equal(rows.length, expected.length);
  for (const h of ['job_id', 'idx', 'status', 'a', 'b', 'c', 'response.r1', 'response.r2', 'cpu_seconds', 'warning']) {
    assert.ok(head.includes(h), `CSV column ${h}`);
  }
  const col = (h) => head.indexOf(h);
  const ids = rows.map((r) => Number(r[col('job_id')]));
  assert.deepEqual([...ids].sort((x, y) => x - y), expected.map((r) => r['job.job_id']).sort((x, y) => x - y));
  const byId = new Map(expected.map((r) => [r['job.job_id'], r]));
  for (const r of rows) {
    const e = byId.get(Number(r[col('job_id')]));
    assert.equal(Number(r[col('a')]), e['parameter.a']);
    assert.equal(Number(r[col('response.r1')]), e['response.r1']);
    assert.equal(Number(r[col('cpu_seconds')]), e['metric.cpu_seconds']);
  }
  const csvR1 = rows.map((r) => Number(r[col('response.r1')]));
  assert.deepEqual(csvR1, [...csvR1].sort((x, y) => y - x), 'CSV in the sort order');
  assert.deepEqual(sharedErrors, []);
});

test('brushing the parallel coordinates filters the table; a deep link restores it', async () => {
  const page = await bulkPage();
  const errors = [];
  // every axis's name and range drawn within the canvas (the last axis's
  // name was cut off at its right edge): three texts per axis
  const labels = await page.$eval('#parcoords', (c) => ({ spans: JSON.parse(c.dataset.labels || '[]'), w: Number(c.dataset.width), axes: document.querySelectorAll('#parcoords-table tr[data-key]').length }));
  assert.ok(labels.axes > 5 && labels.spans.length === 3 * labels.axes, `${labels.spans.length} texts for ${labels.axes} axes`);
  for (const [a, b] of labels.spans) assert.ok(a >= 0 && b <= labels.w && b > a, `a text from ${a} to ${b} px, the canvas ${labels.w} px wide`);
  // the axis of parameter c, from the plot's table alternative
  await page.click('figure.parcoords summary');
  const ax = await page.$eval('#parcoords-table tr[data-key="parameter.c"] td[data-x]', (td) => ({
    x: Number(td.dataset.x), top: Number(td.dataset.top), bot: Number(td.dataset.bot) }));
  const box = await page.$eval('#parcoords', (c) => { const r = c.getBoundingClientRect(); return { x: r.left, y: r.top }; });
  const y0 = ax.top + 0.25 * (ax.bot - ax.top), y1 = ax.top + 0.6 * (ax.bot - ax.top);
  await page.mouse.move(box.x + ax.x, box.y + y0);
  await page.mouse.down();
  await page.mouse.move(box.x + ax.x + 2, box.y + (y0 + y1) / 2, { steps: 4 });
  await page.mouse.move(box.x + ax.x + 2, box.y + y1, { steps: 4 });
  await page.mouse.up();
  const b = await until(async () => new URL(page.url()).searchParams.get('b'), 'a brush in the URL');
  const [key, lo, hi] = (() => { const p = b.split(':'); return [p[0], Number(p[1]), Number(p[2])]; })();
  assert.equal(key, 'parameter.c');
  assert.ok(lo < hi);
  // the brush spans the dragged fraction of the axis (0.4 +- a pixel)
  const c = data.rows.map((r) => r['parameter.c']);
  const cmin = Math.min(...c), cmax = Math.max(...c);
  assert.ok(Math.abs((hi - lo) / (cmax - cmin) - 0.35) < 0.02, `brush ${lo}..${hi}`);
  const expected = data.rows.filter((r) => r['parameter.c'] >= lo && r['parameter.c'] <= hi);
  await until(async () => (await count(page)) === expected.length, `count ${expected.length} after the brush`);
  const shown = await visibleRows(page);
  assert.ok(shown.length > 0 && shown.every((r) => Number(r['parameter.c']) >= lo && Number(r['parameter.c']) <= hi));
  // the text alternative shows the brush
  const cells = await page.$$eval('#parcoords-table tr[data-key="parameter.c"] td', (tds) => tds.map((t) => (t.querySelector('input') ? t.querySelector('input').value : t.textContent)));
  assert.ok(cells[4] !== '' && cells[5] !== '');
  // deep link: a fresh page on the same URL, sorted by c
  const link = `${page.url()}&sort=parameter.c`;
  const page2 = await newPage(browser, errors);
  await page2.goto(link);
  await waitShown(page2, '#jobs-count');
  assert.equal(await count(page2), expected.length);
  const first = (await visibleRows(page2))[0];
  const minC = Math.min(...expected.map((r) => r['parameter.c']));
  assert.equal(Number(first['parameter.c']), minC);
  assert.equal(await page2.getAttribute('button.sort[data-key="parameter.c"]', 'data-key'), 'parameter.c');
  // a click on the axis without dragging clears the brush
  await page.mouse.click(box.x + ax.x, box.y + ax.top + 10);
  await until(async () => (await count(page)) === N, 'all jobs after clearing');
  assert.equal(new URL(page.url()).searchParams.get('b'), null);
  assert.deepEqual(errors, []);
  assert.deepEqual(sharedErrors, []);
  await page2.context().close();
});

test('the small sweep: the unfiltered CSV equals the API results.csv', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(`${env.base}/sweeps/${env.small}`);
  await page.waitForSelector('#jobs-count');
  assert.equal(await count(page), 8);
  const mine = await download(page);
  const apiRaw = await apiText(`/api/v1/sweeps/${env.small}/results.csv`);
  const api = parseCsv(apiRaw);
  assert.equal(mine.length, api.length);
  // the "results.csv of all jobs" link (fetched by the page, with the stored
  // token when there is one) downloads exactly the API's file
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('text=results.csv of all jobs')]);
  assert.equal(fs.readFileSync(await dl.path(), 'utf8'), apiRaw);
  const shared = mine[0].filter((h) => api[0].includes(h));
  for (const h of ['job_id', 'idx', 'status', 'L', 'm', 'response.xmin', 'response.ymax', 'steps', 'cpu_seconds', 'tolerance_met', 'warning']) {
    assert.ok(shared.includes(h), `column ${h} in both`);
  }
  for (let i = 1; i < api.length; i++) {
    for (const h of shared) {
      const a = api[i][api[0].indexOf(h)], m = mine[i][mine[0].indexOf(h)];
      if (a === '' || m === '' || Number.isNaN(Number(a))) assert.equal(m, a, `${h} of row ${i}`);
      else assert.equal(Number(m), Number(a), `${h} of row ${i}`);
    }
  }
  assert.deepEqual(errors, []);
  await page.context().close();
});

// Pearson r over the rows where both values exist (as web/src/stats.js).
function pearson(rows, kx, ky) {
  const p = rows.filter((r) => typeof r[kx] === 'number' && typeof r[ky] === 'number');
  const n = p.length, mx = p.reduce((s, r) => s + r[kx], 0) / n, my = p.reduce((s, r) => s + r[ky], 0) / n;
  let sxx = 0, syy = 0, sxy = 0;
  for (const r of p) { sxx += (r[kx] - mx) ** 2; syy += (r[ky] - my) ** 2; sxy += (r[kx] - mx) * (r[ky] - my); }
  return { n, r: sxy / Math.sqrt(sxx * syy) };
}

test('scatter plot, correlations and main effects agree with the API data', async () => {
  const page = await bulkPage();
  await page.selectOption('#sx', 'parameter.c');
  await page.selectOption('#sy', 'response.r2');
  await page.selectOption('#sc', 'metric.steps');
  await until(async () => new URL(page.url()).searchParams.get('sc') === 'metric.steps', 'scatter columns in the URL');
  const want = pearson(data.rows, 'parameter.c', 'response.r2');
  const got = await page.$$eval('#scatter-table td[data-v]', (tds) => tds.map((t) => Number(t.dataset.v)));
  assert.equal(got[0], want.n);
  assert.ok(Math.abs(got[1] - want.r) < 1e-9, `r ${got[1]} vs ${want.r}`);
  assert.ok(want.r < -0.5, 'r2 = sin(6c) - ... falls with c overall');
  // the correlation table: every response x parameter cell
  for (const [resp, par] of [['response.r1', 'parameter.a'], ['response.r1', 'parameter.b'], ['response.r2', 'parameter.c']]) {
    const v = Number(await page.getAttribute(`#correlations tr[data-key="${resp}"] td[data-param="${par}"]`, 'data-v'));
    assert.ok(Math.abs(v - pearson(data.rows, par, resp).r) < 1e-9, `${resp} ~ ${par}`);
  }
  // main effect of b (10 levels) on r1: the mean at b = 3
  const cells = await page.$$eval('table.main-effect[data-param="parameter.b"] tbody tr', (trs) =>
    trs.map((tr) => [tr.children[0].textContent, Number(tr.children[2].dataset.v)]));
  assert.equal(cells.length, 10);
  const at3 = data.rows.filter((r) => r['parameter.b'] === 3 && typeof r['response.r1'] === 'number');
  const mean3 = at3.reduce((s, r) => s + r['response.r1'], 0) / at3.length;
  assert.equal(cells[2][0], '3');
  assert.ok(Math.abs(cells[2][1] - mean3) < 1e-9);
  // they follow the selection: filtered to b = 3, the correlation of r1 with b is undefined (one level)
  await page.fill('input[data-filter="parameter.b"]', '3');
  await until(async () => (await count(page)) === data.rows.filter((r) => r['parameter.b'] === 3).length, 'b = 3 only');
  assert.equal(await page.getAttribute('#correlations tr[data-key="response.r1"] td[data-param="parameter.b"]', 'data-v'), 'NaN');
  assert.deepEqual(sharedErrors, []);
});
