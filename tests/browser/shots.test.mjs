// shots.test.mjs - the screenshots of the README (docs/web-*.png) taken from
// the views as they are, with run.sh's data (after models.test.mjs, which
// posts every example and takes web-model*.png and web-sweep-form.png):
// the sweeps, the bulk sweep brushed, a planar job with two others side by
// side coloured by a channel, the bouncing ball's paired jobs in 3-D
// coloured by their energy, the models and the comparison view.  Written to
// $SHOTS (run.sh sets it); copy them to docs/ after looking at them.  Each
// view must load without an error on the page, which is what is asserted.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { env, launch, newPage, api, until, showFrame, waitShown } from './helpers.mjs';

const browser = await launch();
after(() => browser.close());
const benign = (errors) => errors.filter((e) => !/GPU stall|GL Driver/.test(e));

async function shot(page, name) {
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  if (process.env.SHOTS) await page.screenshot({ path: path.join(process.env.SHOTS, name), fullPage: false });
}


test('the README\'s screenshots of every main view', { timeout: 120000 }, async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  // view 1
  await page.goto(`${env.base}/`);
  await page.waitForSelector('#sweeps-table tbody tr');
  await shot(page, 'web-sweeps.png');
  // view 2: the bulk sweep, brushed, scatter plot coloured by steps
  if (env.bigJobs === 100000) {
    await page.goto(`${env.base}/sweeps/${env.big}?b=parameter.c:0.2:0.5&sx=parameter.c&sy=response.r2&sc=metric.steps`);
    await waitShown(page, '#jobs-count');
    await page.waitForSelector('#sweep-status');
    await shot(page, 'web-sweep.png');
  }
  // view 3, planar: three jobs side by side coloured by x, the envelope behind the plots
  const ids = (await api(`/api/v1/sweeps/${env.small}/table?limit=100`)).rows.map((r) => r[0]);
  const P = await api(`/api/v1/jobs/${ids[0]}/poses`);
  await page.goto(`${env.base}/jobs/${ids[0]}?with=${ids[1]},${ids[2]}&ch=x,y&env=1&scene=side&colour=x`);
  await page.waitForSelector('#colour-legend .mark[data-job="' + ids[2] + '"]');
  await page.waitForSelector('#plots-table tr.envelope', { state: 'attached' });
  await showFrame(page, P, 60);
  await shot(page, 'web-job.png');
  // view 3, spatial: the bouncing ball's runs at two restitutions, coloured by energy
  const ball = (await api(`/api/v1/sweeps?model=${process.env.BALL}&limit=10`)).items[0];
  assert.ok(ball, 'the ball pairs sweep');
  const bj = (await api(`/api/v1/sweeps/${ball.id}/table?limit=10`)).rows.map((r) => r[0]);
  const Q = await api(`/api/v1/jobs/${bj[0]}/poses`);
  const other = bj.at(-1);
  await page.goto(`${env.base}/jobs/${bj[0]}?with=${other}&ch=z,E&scene=side&colour=E`);
  await page.waitForSelector('.scene3d canvas');
  await page.waitForSelector(`#colour-legend .mark[data-job="${other}"]`);
  await showFrame(page, Q, Math.floor((2 * Q.nframe) / 3));
  await until(async () => (await page.$eval('.scene3d', (e) => e.dataset.colors || '')).split(';').length === 2, 'both balls coloured');
  await shot(page, 'web-job-3d.png');
  // view 4 (the model and the form: models.test.mjs) and view 5
  await page.goto(`${env.base}/models`);
  await page.waitForSelector('#models-table tbody tr');
  await shot(page, 'web-models.png');
  await page.goto(`${env.base}/compare`);
  await page.waitForSelector('#compare-table tbody tr');
  await shot(page, 'web-compare.png');
  assert.deepEqual(benign(errors), []);
  await page.context().close();
});
