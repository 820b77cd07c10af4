// compare.test.mjs - view 5 in Chromium: the deactivation view's numbers
// equal /api/v1/compare/deactivation for every model with pairs (run.sh ran
// paired sweeps of two models), sort in the URL, models without pairs on
// request, and the CSV holds the table; the option selector shows the
// formulation pairs (run.sh: natural and relative, dopri5) as
// /api/v1/compare?option=formulation gives them.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { env, launch, newPage, api, parseCsv, until } from './helpers.mjs';

const browser = await launch();
after(() => browser.close());

test('the comparison equals the API, sorts, and its CSV holds the table', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(`${env.base}/compare`);
  await page.waitForSelector('#compare-table tbody tr');
  const models = (await api('/api/v1/models?limit=1000')).items;
  const cmp = (await api(`/api/v1/compare/deactivation?${models.map((m) => `model=${m.id}`).join('&')}`)).models;
  const paired = cmp.filter((m) => m.pairs > 0);
  assert.ok(paired.length >= 2, `${paired.length} models with pairs`);
  const rows = await page.$$eval('#compare-table tbody tr', (trs) => trs.map((tr) => ({
    model: tr.dataset.model,
    ...Object.fromEntries([...tr.querySelectorAll('td[data-col]')].map((td) => [td.dataset.col, td.dataset.v === '' ? null : Number(td.dataset.v)])),
  })));
  assert.equal(rows.length, paired.length);
  for (const m of paired) {
    const r = rows.find((x) => x.model === m.model);
    assert.ok(r, `model ${m.model} shown`);
    assert.equal(r.pairs, m.pairs);
    for (const k of ['median', 'q1', 'q3', 'min', 'max']) assert.equal(r[k], m.speedup[k], `${k} of ${m.model}`);
    assert.equal(r.dim_on, m.mean_system_dimension.deactivation_on);
    assert.equal(r.dim_off, m.mean_system_dimension.deactivation_off);
    assert.equal(r.act_on, m.mean_active_contacts.deactivation_on);
    assert.equal(r.diff, m.max_output_difference ? m.max_output_difference.value : null);
    // the contact pairs declared, steps and Newton iterations both ways
    assert.equal(r.declared, m.declared_pairs, `declared pairs of ${m.model}`);
    assert.ok(Number.isInteger(m.declared_pairs), `${m.model}: declared pairs ${m.declared_pairs}`);
    for (const [k, f] of [['steps', 'mean_steps'], ['newton', 'mean_newton_iterations']]) {
      assert.equal(r[`${k}_on`], m[f] ? m[f].deactivation_on : null, `${k} on of ${m.model}`);
      assert.equal(r[`${k}_off`], m[f] ? m[f].deactivation_off : null, `${k} off of ${m.model}`);
    }
  }
  // every model with pairs as a point against its declared pairs
  assert.equal(Number(await page.getAttribute('#compare-vs-pairs', 'data-points')), paired.filter((m) => m.declared_pairs > 0).length);
  // every pair as a dot: the API's speed-ups, ascending, one per pair
  const dots = await api(`/api/v1/compare/deactivation?${paired.map((m) => `model=${m.model}`).join('&')}&speedups=1`);
  for (const m of dots.models) {
    assert.equal(m.speedups.length, m.pairs);
    assert.deepEqual(m.speedups, [...m.speedups].sort((a, b) => a - b));
    assert.equal(m.speedups[0], m.speedup.min);
    assert.equal(m.speedups.at(-1), m.speedup.max);
  }
  assert.equal(Number(await page.getAttribute('#compare-boxes', 'data-dots')), paired.reduce((n, m) => n + m.pairs, 0));
  assert.equal((await fetch(`${env.base}/api/v1/compare/deactivation?model=${paired[0].model}&speedups=2`)).status, 400);
  // default order: median speed-up, largest first
  const med = rows.map((r) => r.median);
  assert.deepEqual(med, [...med].sort((a, b) => b - a));
  // sort by pairs, ascending, in the URL
  await page.click('button[data-sort=pairs]');
  await until(async () => new URL(page.url()).searchParams.get('sort') === 'pairs', 'sort in the URL');
  const pairs = await page.$$eval('#compare-table td[data-col=pairs]', (tds) => tds.map((t) => Number(t.dataset.v)));
  assert.deepEqual(pairs, [...pairs].sort((a, b) => a - b));
  // the CSV: the table's rows and numbers
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#compare-csv')]);
  const csv = parseCsv(fs.readFileSync(await dl.path(), 'utf8'));
  assert.equal(csv.length - 1, paired.length);
  const h = csv[0];
  for (const line of csv.slice(1)) {
    const m = paired.find((x) => x.model === line[h.indexOf('model_id')]);
    assert.equal(Number(line[h.indexOf('median')]), m.speedup.median);
  }
  // every model on request
  await page.check('#compare-all');
  await until(async () => (await page.$$('#compare-table tbody tr')).length === cmp.length, 'every model');
  assert.equal(new URL(page.url()).searchParams.get('all'), '1');
  // the page's navigation reaches it
  await page.goto(`${env.base}/`);
  await page.click('nav >> text=Contact deactivation');
  await page.waitForSelector('#compare-table');
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('the option selector: formulation pairs as the API gives them, the option in the URL', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(`${env.base}/compare`);
  await page.waitForSelector('#compare-table');
  await page.selectOption('#compare-option', 'formulation');
  await until(async () => new URL(page.url()).searchParams.get('option') === 'formulation', 'option in the URL');
  await page.waitForSelector('#compare-table tbody tr[data-model]');
  assert.match(await page.textContent('h1'), /Formulations/);
  const models = (await api('/api/v1/models?limit=1000')).items;
  const cmp = (await api(`/api/v1/compare?option=formulation&${models.map((m) => `model=${m.id}`).join('&')}`)).models;
  const paired = cmp.filter((m) => m.pairs > 0);
  assert.equal(paired.length, 1, 'the pendulum has formulation pairs');
  const rows = await page.$$eval('#compare-table tbody tr', (trs) => trs.map((tr) => ({
    model: tr.dataset.model,
    ...Object.fromEntries([...tr.querySelectorAll('td[data-col]')].map((td) => [td.dataset.col, td.dataset.v === '' ? null : Number(td.dataset.v)])),
  })));
  assert.equal(rows.length, 1);
  const [r] = rows, [m] = paired;
  assert.equal(r.model, m.model);
  assert.equal(r.pairs, 2);
  assert.equal(r.median, m.speedup.median);
  for (const [k, f] of [['steps', 'mean_steps'], ['dim', 'mean_system_dimension'], ['wall', 'mean_wall_seconds']]) {
    assert.equal(r[`${k}_base`], m[f].base, `${k} natural`);
    assert.equal(r[`${k}_other`], m[f].other, `${k} relative`);
  }
  assert.equal(r.diff, m.max_output_difference.value);
  assert.equal(m.formulations.base, 'natural');
  assert.equal(m.formulations.other, 'relative');
  assert.equal(Number(await page.getAttribute('#compare-boxes', 'data-dots')), 2);
  // a deep link keeps the option; back to contact deactivation drops it from the URL
  await page.goto(`${env.base}/compare?option=integrator&all=1`);
  await page.waitForSelector('#compare-table tbody tr');
  assert.equal(await page.inputValue('#compare-option'), 'integrator');
  await page.selectOption('#compare-option', 'contact_deactivation');
  await until(async () => !new URL(page.url()).searchParams.has('option'), 'default option not in the URL');
  await page.waitForSelector('#compare-table td[data-col=wall_on]');
  assert.deepEqual(errors, []);
  await page.context().close();
});
