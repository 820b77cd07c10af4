// sweeps.test.mjs - view 1 in Chromium: the list agrees with the API
// (status, progress, failed jobs, accuracy warnings), filter, sort and their
// URL state, and pause / resume / cancel with the API token asked once.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { env, launch, newPage, api, until } from './helpers.mjs';

const browser = await launch();
after(() => browser.close());

async function rowsShown(page) {
  return page.$$eval('#sweeps-table tbody tr', (trs) => trs.map((tr) => ({
    id: tr.dataset.id, status: tr.dataset.status,
    name: tr.querySelector('td a').textContent,
    finished: Number(tr.querySelector('[data-col=finished]').textContent),
    jobs: Number(tr.querySelector('[data-col=jobs]').textContent),
    failed: Number(tr.querySelector('[data-col=failed]').textContent),
    warnings: Number(tr.querySelector('[data-col=warnings]').textContent),
  })));
}

test('the list shows every sweep as the API does', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(env.base + '/');
  await page.waitForSelector('#sweeps-table tbody tr');
  const shown = await rowsShown(page);
  const { items } = await api('/api/v1/sweeps?limit=1000');
  assert.equal(shown.length, items.length);
  for (const s of items) {
    const r = shown.find((x) => x.id === s.id);
    assert.ok(r, `sweep ${s.id} shown`);
    assert.equal(r.status, s.status);
    assert.equal(r.jobs, s.njobs);
    assert.equal(r.finished, s.counts.done + s.counts.failed + s.counts.cancelled);
    assert.equal(r.failed, s.counts.failed);
    assert.equal(r.warnings, s.jobs_with_warnings);
  }
  const big = shown.find((x) => x.id === env.big);
  assert.ok(big.failed > 1000 && big.warnings > 7000, 'the bulk sweep has failures and warnings');
  // the progress bar is labelled for assistive technology
  const label = await page.getAttribute(`tr[data-id="${env.small}"] progress`, 'aria-label');
  assert.equal(label, '8 of 8 jobs finished');
  // polling: nothing runs, so the next polls are answered 304 (If-None-Match)
  const polls = [];
  page.on('response', (r) => { if (r.url().includes('/api/v1/sweeps?limit=')) polls.push(r.status()); });
  await until(async () => polls.length >= 2, 'two more polls', 10000);
  assert.ok(polls.every((s) => s === 304), `poll statuses ${polls}`);
  assert.equal((await rowsShown(page)).length, items.length, 'the list stays after 304s');
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('filter and sort live in the URL and survive a reload', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(env.base + '/');
  await page.waitForSelector('#sweeps-table tbody tr');
  await page.fill('#sweeps-q', 'bulk');
  await until(async () => (await rowsShown(page)).length === 1, 'one row after the filter');
  assert.equal((await rowsShown(page))[0].id, env.big);
  assert.equal(new URL(page.url()).searchParams.get('q'), 'bulk');
  await page.fill('#sweeps-q', '');
  await page.selectOption('#sweeps-status', 'done');
  await until(async () => (await rowsShown(page)).every((r) => r.status === 'done'), 'only done sweeps');
  const done = (await api('/api/v1/sweeps?status=done')).items.length;
  assert.equal((await rowsShown(page)).length, done);
  await page.selectOption('#sweeps-status', '');
  // sort by the number of jobs, ascending then descending
  await page.click('button[data-sort=jobs]');
  await until(async () => new URL(page.url()).searchParams.get('sort') === 'jobs', 'sort in the URL');
  let jobs = (await rowsShown(page)).map((r) => r.jobs);
  assert.deepEqual(jobs, [...jobs].sort((a, b) => a - b));
  await page.click('button[data-sort=jobs]');
  await until(async () => new URL(page.url()).searchParams.get('dir') === 'desc', 'descending');
  jobs = (await rowsShown(page)).map((r) => r.jobs);
  assert.deepEqual(jobs, [...jobs].sort((a, b) => b - a));
  assert.equal(jobs[0], env.bigJobs);
  assert.equal(await page.getAttribute('th[aria-sort=descending] button', 'data-sort'), 'jobs');
  // a deep link restores both
  const url = `${env.base}/?q=grid&sort=name&dir=asc`;
  await page.goto(url);
  await page.waitForSelector('#sweeps-table tbody tr');
  const names = (await rowsShown(page)).map((r) => r.name);
  const want = (await api('/api/v1/sweeps?limit=1000')).items
    .filter((s) => [s.name, s.model_name, s.model_id, s.id, s.design].some((x) => x && x.toLowerCase().includes('grid')))
    .map((s) => s.name).sort();
  assert.ok(want.includes('control me') && want.includes('small grid') && !want.includes(`bulk ${env.bigJobs}`));
  assert.deepEqual(names, want);
  assert.equal(await page.inputValue('#sweeps-q'), 'grid');
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('pause, resume, cancel: the token is asked once, a wrong one is asked again', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(env.base + '/');
  const row = `#sweeps-table tr[data-id="${env.control}"]`;
  await page.waitForSelector(row);
  assert.equal(await page.evaluate(() => localStorage.getItem('mbsweep.token')), null);
  // pause: the dialog asks; a wrong token is refused (401) and asked again
  await page.click(`${row} button:has-text("Pause")`);
  await page.waitForSelector('#token-dialog[open]');
  assert.equal(await page.getAttribute('#token-input', 'type'), 'password');
  await page.fill('#token-input', 'wrong-token');
  await page.click('#token-dialog button[type=submit]');
  await page.waitForSelector('#token-dialog[open] [role=alert]');
  assert.match(await page.textContent('#token-dialog [role=alert]'), /refused/);
  assert.notEqual((await api(`/api/v1/sweeps/${env.control}`)).status, 'paused');
  await page.fill('#token-input', env.token);
  await page.click('#token-dialog button[type=submit]');
  await until(async () => (await api(`/api/v1/sweeps/${env.control}`)).status === 'paused', 'paused in the API');
  await page.waitForSelector(`${row}[data-status=paused]`);
  assert.equal(await page.evaluate(() => localStorage.getItem('mbsweep.token')), env.token);
  // resume and cancel: no dialog any more
  await page.click(`${row} button:has-text("Resume")`);
  await until(async () => ['queued', 'running'].includes((await api(`/api/v1/sweeps/${env.control}`)).status), 'resumed');
  assert.equal(await page.$('#token-dialog[open]'), null);
  await page.waitForSelector(`${row} button:has-text("Cancel")`);
  await page.click(`${row} button:has-text("Cancel")`);
  await until(async () => (await api(`/api/v1/sweeps/${env.control}`)).status === 'cancelled', 'cancelled');
  await page.waitForSelector(`${row}[data-status=cancelled]`);
  assert.equal(await page.$(`${row} button`), null, 'no action on a cancelled sweep');
  assert.equal(await page.$('#token-dialog[open]'), null);
  assert.deepEqual(errors.filter((e) => !/401/.test(e)), []);
  await page.context().close();
});

test('the best value of a chosen response per sweep: equal to its jobs\' values, in the URL', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(env.base + '/');
  await page.waitForSelector('#sweeps-table tbody tr');
  // the choices: the responses of the sweeps listed (the small sweep's, the bulk one's)
  const opts = await page.$$eval('#sweeps-best option', (os) => os.map((o) => o.value));
  for (const n of ['xmin', 'ymax', 'r1', 'r2']) assert.ok(opts.includes(n), `${n} offered`);
  await page.selectOption('#sweeps-best', 'xmin');
  await until(async () => new URL(page.url()).searchParams.get('best') === 'xmin', 'best=xmin in the URL');
  const cell = `tr[data-id="${env.small}"] td[data-col=best]`;
  await page.waitForSelector(`${cell}:not([data-v=""])`);
  // expected from the small sweep's table: xmin of every done job
  const t = await api(`/api/v1/sweeps/${env.small}/table?limit=100`);
  const c = t.columns.findIndex((x) => x.group === 'response' && x.name === 'xmin');
  const ys = t.rows.filter((r) => r[2] === 'done').map((r) => r[c]);
  assert.ok(c > 0 && ys.length === 8 && Math.min(...ys) < Math.max(...ys));
  assert.equal(Number(await page.getAttribute(cell, 'data-v')), Math.min(...ys));
  // sorted by it: the sweeps with a value first, those without (the bulk sweep) after
  const vs = await page.$$eval('#sweeps-table tbody td[data-col=best]', (tds) => tds.map((td) => td.dataset.v));
  const k = vs.indexOf('');
  assert.ok(k > 0 && vs.slice(k).every((v) => v === ''), `values before blanks: ${vs}`);
  assert.equal(await page.getAttribute(`tr[data-id="${env.big}"] td[data-col=best]`, 'data-v'), '');
  // the largest value instead; a reload keeps both choices
  await page.selectOption('#sweeps-bdir', 'max');
  await until(async () => new URL(page.url()).searchParams.get('bdir') === 'max', 'bdir=max in the URL');
  await until(async () => Number(await page.getAttribute(cell, 'data-v')) === Math.max(...ys), 'the largest xmin');
  await page.reload();
  await page.waitForSelector(`${cell}:not([data-v=""])`);
  assert.equal(Number(await page.getAttribute(cell, 'data-v')), Math.max(...ys));
  assert.equal(await page.inputValue('#sweeps-best'), 'xmin');
  // the API: best of the bulk sweep's r1 over its done jobs, a bad name refused
  const { items } = await api('/api/v1/sweeps?limit=1000&best=r1');
  const b = items.find((s) => s.id === env.big).best;
  assert.deepEqual([b.response, b.jobs], ['r1', env.bigJobs - Math.floor((env.bigJobs - 1) / 97) - 1]);
  assert.ok(b.min >= 0 && b.max > b.min && b.max <= 10);
  assert.equal(items.find((s) => s.id === env.small).best.jobs, 0);
  assert.equal((await fetch(`${env.base}/api/v1/sweeps?best=`)).status, 400);
  assert.deepEqual(errors, []);
  await page.context().close();
});
