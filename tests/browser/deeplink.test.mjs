// deeplink.test.mjs - every view's state is in the URL (docs/frontend.md):
// a state made by hand in the small sweep's view (a brush dragged on the
// parallel coordinates, two jobs selected) and in the job view they open
// (a channel added, the jobs side by side in one scene, a scrubbed time) is
// restored by opening the URL in a fresh browser context: the same filtered
// row count and selection, the same channels plotted, the same animation
// pose of every job in the scene.  The poses are also checked against the
// API's stored frames.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { env, launch, newPage, api, until } from './helpers.mjs';

const browser = await launch();
after(() => browser.close());

const count = async (page) => Number(await page.textContent('#jobs-count strong'));
const checked = (page) => page.$$eval('#jobs-grid input.sel:checked', (xs) => xs.map((x) => x.dataset.job).sort());

// Everything the job view shows of its state: time and frame, the pose of
// every body (text alternative), the jobs of the scene, the channels plotted.
async function jobState(page) {
  return page.evaluate(() => {
    const ts = document.querySelector('#time-shown');
    return {
      t: Number(ts.dataset.t), frame: Number(ts.dataset.frame), u: Number(ts.dataset.u),
      poses: [...document.querySelectorAll('#anim-table tbody tr')].map((tr) => [tr.dataset.body,
        ...[...tr.querySelectorAll('td[data-v]')].map((td) => Number(td.dataset.v))]),
      scene: [...document.querySelectorAll('#scene-jobs tbody tr')].map((tr) => tr.dataset.job),
      channels: [...document.querySelectorAll('.plot[data-channel]')].map((p) => p.dataset.channel),
      members: document.querySelector('canvas.anim-canvas')?.dataset.members,
    };
  });
}

test('a deep link restores brush and selection in the sweep view, then channels, scene and time in the job view', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(`${env.base}/sweeps/${env.small}`);
  await page.waitForSelector('#jobs-count');
  const all = await count(page);
  // a brush over the lower 60 % of the first axis
  await page.click('figure.parcoords summary');
  const ax = await page.$eval('#parcoords-table tbody tr td[data-x]', (td) => ({
    key: td.closest('tr').dataset.key, x: Number(td.dataset.x), top: Number(td.dataset.top), bot: Number(td.dataset.bot) }));
  const box = await page.$eval('#parcoords', (c) => { const r = c.getBoundingClientRect(); return { x: r.left, y: r.top }; });
  await page.mouse.move(box.x + ax.x, box.y + ax.top + 0.4 * (ax.bot - ax.top) - 2);
  await page.mouse.down();
  await page.mouse.move(box.x + ax.x + 1, box.y + ax.bot + 2, { steps: 6 });
  await page.mouse.up();
  await until(async () => new URL(page.url()).searchParams.get('b'), 'a brush in the URL');
  const n = await until(async () => { const c = await count(page); return c < all && c > 1 ? c : null; }, 'the brush filters');
  // two jobs selected by their check boxes
  const boxes = await page.$$('#jobs-grid input.sel');
  await boxes[0].check();
  await boxes[1].check();
  await until(async () => (new URL(page.url()).searchParams.get('sel') || '').split(',').length === 2, 'sel in the URL');
  const sel = await checked(page);
  const sweepLink = page.url();

  // the sweep view from its link, in a fresh context
  const p2 = await newPage(browser, errors);
  await p2.goto(sweepLink);
  await p2.waitForSelector('#jobs-count');
  assert.equal(await count(p2), n, 'the same filtered row count');
  assert.deepEqual(await checked(p2), sel, 'the same jobs selected');
  assert.equal(await p2.getAttribute('#plot-selected', 'href'), await page.getAttribute('#plot-selected', 'href'));

  // the selected jobs plotted together; a channel added, one scene side by side, a time scrubbed
  await page.click('#plot-selected');
  await page.waitForSelector('#anim-table');
  await page.waitForSelector('.plot[data-channel]');
  // the channels: one of those shown (the first four by default) taken away, or one added
  await page.click('details.axes summary:has-text("Channels")');
  const boxes2 = await page.$$eval('input[data-channel]', (xs) => xs.map((x) => [x.dataset.channel, x.checked]));
  const on = boxes2.filter((b) => b[1]).map((b) => b[0]), off = boxes2.filter((b) => !b[1]).map((b) => b[0]);
  const extra = off.length ? off[0] : on.at(-1);
  if (off.length) await page.check(`input[data-channel="${extra}"]`); else await page.uncheck(`input[data-channel="${extra}"]`);
  const chWant = off.length ? [...on, extra] : on.slice(0, -1);
  await until(async () => (await page.$$eval('.plot[data-channel]', (ps) => ps.map((q) => q.dataset.channel))).length === chWant.length, 'the plots follow');
  await page.selectOption('#scene', 'side');
  await page.waitForSelector(`#scene-jobs tbody tr[data-job="${sel[1]}"], #scene-jobs tbody tr[data-job="${sel[0]}"]`);
  const J = Number(new URL(page.url()).pathname.split('/').pop());
  const P = await api(`/api/v1/jobs/${J}/poses`);
  const f = Math.floor(P.nframe / 3), t = P.times[f] + 0.5 * (P.times[f + 1] - P.times[f]);
  await page.fill('#time', String(t));
  await until(async () => Number(new URL(page.url()).searchParams.get('t')) === t, 't in the URL');
  await until(async () => (await jobState(page)).frame === f, `frame ${f} shown`);
  const want = await jobState(page);
  assert.deepEqual([...want.channels].sort(), [...chWant].sort());
  assert.ok(want.scene.length === 2 && want.members === '2', JSON.stringify(want));
  // the first job's poses halfway between frames f and f + 1
  P.bodies.forEach((b, k) => {
    const row = want.poses.find((r) => r[0] === b).slice(1);
    row.forEach((x, i) => {
      const a = P.frames[f][k * P.npose + i], c = P.frames[f + 1][k * P.npose + i];
      assert.ok(Math.abs(x - (a + 0.5 * (c - a))) < 1e-12, `${b}[${i}]`);
    });
  });

  // the job view from its link, in a fresh context: the same state
  const p3 = await newPage(browser, errors);
  await p3.goto(page.url());
  await p3.waitForSelector('#anim-table');
  await until(async () => (await jobState(p3)).scene.length === 2, 'the scene from the link');
  await until(async () => (await jobState(p3)).frame === f, 'the frame from the link');
  // the plots are drawn after the data of their channels arrive: under load
  // after the scene and the frame (a CI run read the state with none yet)
  await until(async () => (await jobState(p3)).channels.length === want.channels.length, 'the channels from the link');
  assert.deepEqual(await jobState(p3), want);
  assert.deepEqual(errors, []);
  for (const p of [page, p2, p3]) await p.context().close();
});
