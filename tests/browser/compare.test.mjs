// compare.test.mjs - view 5 in Chromium: the deactivation view's numbers
// equal /api/v1/compare/deactivation and /api/v1/compare for every model with
// pairs (run.sh ran paired sweeps of two models), the speed-up by CPU time
// with its verdict (the pendulum, which declares no contact pair: nothing to
// deactivate, no speed-up; an inconclusive one in grey), the table within
// 1400 px and scrolling with its first column held in a narrow window, sort
// in the URL, models without pairs on request, and the CSV holds the table
// (wall speed-ups and verdicts too); the option selector shows the
// formulation pairs (run.sh: natural and relative, dopri5) as
// /api/v1/compare?option=formulation gives them.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { env, launch, newPage, api, parseCsv, until } from './helpers.mjs';

const browser = await launch();
after(() => browser.close());

// The speed-up the view must show for model m of /compare: by CPU time
// where the API timed by it, none when there is nothing to deactivate.
const shown = (m) => (m.timing.verdict === 'nothing_to_deactivate' ? null
  : m.timing.basis === 'cpu_seconds' ? m.speedup_cpu : m.speedup);

// The table's rows as { model, verdict, flagged: [cols], <col>: number }.
const tableRows = (page) => page.$$eval('#compare-table tbody tr', (trs) => trs.map((tr) => ({
  model: tr.dataset.model,
  verdict: tr.dataset.verdict,
  text: tr.querySelector('td[data-col=timing]').textContent,
  flagged: [...tr.querySelectorAll('td.flagged')].map((td) => td.dataset.col),
  ...Object.fromEntries([...tr.querySelectorAll('td[data-col]')].filter((td) => td.dataset.col !== 'timing')
    .map((td) => [td.dataset.col, td.dataset.v === '' ? null : Number(td.dataset.v)])),
})));

test('the comparison equals the API, sorts, and its CSV holds the table', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(`${env.base}/compare`);
  await page.waitForSelector('#compare-table tbody tr');
  const models = (await api('/api/v1/models?limit=1000')).items;
  const ids = models.map((m) => `model=${m.id}`).join('&');
  const cmp = (await api(`/api/v1/compare?option=contact_deactivation&${ids}&speedups=1`)).models;
  const legacy = (await api(`/api/v1/compare/deactivation?${ids}`)).models;
  const paired = cmp.filter((m) => m.pairs > 0);
  assert.ok(paired.length >= 2, `${paired.length} models with pairs`);
  const rows = await tableRows(page);
  assert.equal(rows.length, paired.length);
  for (const m of paired) {
    const r = rows.find((x) => x.model === m.model);
    const old = legacy.find((x) => x.model === m.model);
    assert.ok(r, `model ${m.model} shown`);
    assert.equal(r.pairs, m.pairs);
    // the wall speed-ups of /compare are those of /compare/deactivation
    assert.deepEqual(m.speedup, old.speedup, `wall speed-up of ${m.model}`);
    // the speed-up shown: by CPU time (every pair here has it), or none
    assert.equal(m.timing.basis, 'cpu_seconds', `${m.model} timed by CPU`);
    for (const k of ['median', 'q1', 'q3', 'min', 'max']) assert.equal(r[k], shown(m) ? shown(m)[k] : null, `${k} of ${m.model}`);
    assert.equal(r.verdict, m.timing.verdict);
    assert.equal(r.cpu_on, m.mean_cpu_seconds.other);
    assert.equal(r.cpu_off, m.mean_cpu_seconds.base);
    assert.equal(r.dim_on, old.mean_system_dimension.deactivation_on);
    assert.equal(r.dim_off, old.mean_system_dimension.deactivation_off);
    assert.equal(r.act_on, old.mean_active_contacts.deactivation_on);
    assert.equal(r.diff, old.max_output_difference ? old.max_output_difference.value : null);
    // the contact pairs declared, steps and Newton iterations both ways
    assert.equal(r.declared, m.declared_pairs, `declared pairs of ${m.model}`);
    assert.ok(Number.isInteger(m.declared_pairs), `${m.model}: declared pairs ${m.declared_pairs}`);
    for (const [k, f] of [['steps', 'mean_steps'], ['newton', 'mean_newton_iterations']]) {
      assert.equal(r[`${k}_on`], old[f] ? old[f].deactivation_on : null, `${k} on of ${m.model}`);
      assert.equal(r[`${k}_off`], old[f] ? old[f].deactivation_off : null, `${k} off of ${m.model}`);
    }
    // an inconclusive speed-up is shown in grey, a measured one not
    const grey = ['too_short', 'no_clear_difference'].includes(m.timing.verdict);
    assert.deepEqual(r.flagged, grey ? ['median', 'q1', 'q3', 'min', 'max'] : [], `${m.model} greyed`);
  }
  // the pendulum declares no contact pair: no speed-up, "nothing to
  // deactivate", whatever its times were; the ball (one pair) is timed
  const pend = rows.find((r) => r.model === env.mid), ball = rows.find((r) => r.model === env.ball);
  assert.equal(pend.verdict, 'nothing_to_deactivate');
  assert.equal(pend.text, 'nothing to deactivate');
  assert.equal(pend.median, null);
  assert.notEqual(ball.verdict, 'nothing_to_deactivate');
  assert.ok(ball.median > 0);
  // the reason is the cell's title (the API's sentence)
  assert.equal(await page.getAttribute(`tr[data-model="${env.mid}"] td[data-col=timing]`, 'title'),
    cmp.find((m) => m.model === env.mid).timing.reason);
  // every model with a speed-up as a point against its declared pairs
  const timed = paired.filter((m) => shown(m));
  assert.equal(Number(await page.getAttribute('#compare-vs-pairs', 'data-points')), timed.filter((m) => m.declared_pairs > 0).length);
  // each chart has its title just before it (the boxes' axis labels read as
  // the second chart's without one)
  for (const id of ['compare-boxes', 'compare-vs-pairs']) {
    assert.equal(await page.$eval(`#${id}`, (e) => e.previousElementSibling && e.previousElementSibling.id), `${id}-title`);
    assert.match(await page.textContent(`#${id}-title`), /speed-up/i);
  }
  // every pair as a dot: the API's speed-ups, ascending, one per pair
  for (const m of paired) {
    for (const [all, s] of [[m.speedups, m.speedup], [m.speedups_cpu, m.speedup_cpu]]) {
      assert.equal(all.length, m.pairs);
      assert.deepEqual(all, [...all].sort((a, b) => a - b));
      assert.equal(all[0], s.min);
      assert.equal(all.at(-1), s.max);
    }
  }
  assert.equal(Number(await page.getAttribute('#compare-boxes', 'data-dots')), timed.reduce((n, m) => n + m.pairs, 0));
  assert.equal((await fetch(`${env.base}/api/v1/compare/deactivation?model=${paired[0].model}&speedups=2`)).status, 400);
  // default order: median speed-up, largest first, none last
  const med = rows.map((r) => r.median);
  assert.deepEqual(med, [...med].sort((a, b) => (a === null) - (b === null) || b - a));
  // the table fits the 1400 px window (no sideways scrolling)
  const [sw, cw] = await page.$eval('#compare-scroll', (e) => [e.scrollWidth, e.clientWidth]);
  assert.ok(sw <= cw, `table ${sw} px in ${cw} px`);
  // sort by pairs, ascending, in the URL
  await page.click('button[data-sort=pairs]');
  await until(async () => new URL(page.url()).searchParams.get('sort') === 'pairs', 'sort in the URL');
  const pairs = await page.$$eval('#compare-table td[data-col=pairs]', (tds) => tds.map((t) => Number(t.dataset.v)));
  assert.deepEqual(pairs, [...pairs].sort((a, b) => a - b));
  // the CSV: the table's rows and numbers, the wall speed-ups and the verdict too
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#compare-csv')]);
  const csv = parseCsv(fs.readFileSync(await dl.path(), 'utf8'));
  assert.equal(csv.length - 1, paired.length);
  const h = csv[0];
  for (const line of csv.slice(1)) {
    const m = paired.find((x) => x.model === line[h.indexOf('model_id')]);
    const num = (k) => (line[h.indexOf(k)] === '' ? null : Number(line[h.indexOf(k)]));
    assert.equal(num('median'), shown(m) ? shown(m).median : null);
    assert.equal(num('wall_median'), m.speedup.median);
    assert.equal(num('wall_on'), m.mean_wall_seconds.other);
    assert.equal(line[h.indexOf('timing')], m.timing.verdict);
  }
  // a narrow window: the table scrolls sideways, the model's name stays in view
  await page.setViewportSize({ width: 700, height: 900 });
  const scrolled = await page.$eval('#compare-scroll', (e) => { e.scrollLeft = e.scrollWidth; return e.scrollLeft; });
  assert.ok(scrolled > 0, 'the table scrolls');
  const [cell, box] = await page.$eval('#compare-table tbody th.sticky', (th) => [th.getBoundingClientRect().left,
    th.closest('.scroll-x').getBoundingClientRect().left]);
  assert.ok(Math.abs(cell - box) <= 1, `the name at ${cell}, the table's left edge at ${box}`);
  await page.setViewportSize({ width: 1400, height: 1000 });
  // every model on request
  await page.check('#compare-all');
  await until(async () => (await page.$$('#compare-table tbody tr')).length === cmp.length, 'every model');
  assert.equal(new URL(page.url()).searchParams.get('all'), '1');
  // long model names wrap: still within 1400 px
  const [sw2, cw2] = await page.$eval('#compare-scroll', (e) => [e.scrollWidth, e.clientWidth]);
  assert.ok(sw2 <= cw2, `every model: table ${sw2} px in ${cw2} px`);
  // the page's navigation reaches it ("Comparisons": deactivation is its first case)
  await page.goto(`${env.base}/`);
  await page.click('nav >> text=Comparisons');
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
  const rows = await tableRows(page);
  assert.equal(rows.length, 1);
  const [r] = rows, [m] = paired;
  assert.equal(r.model, m.model);
  assert.equal(r.pairs, 2);
  assert.equal(r.median, m.speedup_cpu.median);
  // run.sh's pendulum runs take well under a millisecond: too short to time, in grey
  assert.equal(m.timing.verdict, 'too_short');
  assert.equal(r.verdict, 'too_short');
  assert.equal(r.text, 'too short to time');
  assert.deepEqual(r.flagged, ['median', 'q1', 'q3', 'min', 'max']);
  for (const [k, f] of [['steps', 'mean_steps'], ['dim', 'mean_system_dimension'], ['cpu', 'mean_cpu_seconds']]) {
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
  await page.waitForSelector('#compare-table td[data-col=cpu_on]');
  assert.deepEqual(errors, []);
  await page.context().close();
});
