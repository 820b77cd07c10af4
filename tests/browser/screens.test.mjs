// screens.test.mjs - screenshot comparisons with a tolerance: drawings whose
// data run.sh makes the same at every run (the small sweep's first job, the
// spatial slider-crank, the bulk sweep's parallel coordinates and scatter
// plot) are captured and compared pixel by pixel with the reference PNGs in
// tests/browser/ref/.  Tolerance: a pixel differs when one of its channels
// differs by more than LEVEL (48 of 255: antialiasing and rounding of colours
// pass), and an image passes when the pixels that differ are at most
// MAX_SHARE (8 %) of its ink (the pixels of either image that are not
// background, png.mjs), text areas left out (the canvases' labels are
// system-ui: another machine's font or hinting would move them).  Measured
// on the references: a drawing shifted by 3 px differs in 8.1 % (the
// parallel coordinates' smooth density: at the limit) to 94 % (the 3-D scene)
// of its ink, by 1 px in 2 % to 63 %; another drawing in 100 %.  UPDATE_REFS=1 writes the references
// instead (then look at them, and commit them); a failing comparison keeps
// the image taken in $SHOTS (or the system's temporary directory).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { env, launch, newPage, api, showFrame, waitShown } from './helpers.mjs';
import { decodePng, diffShare } from './png.mjs';

const LEVEL = 48, MAX_SHARE = 0.08;
const refDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'ref');
const browser = await launch();
after(() => browser.close());

async function compare(page, selector, name, masks = []) {
  const png = await page.locator(selector).first().screenshot({ animations: 'disabled' });
  const file = path.join(refDir, name);
  if (process.env.UPDATE_REFS === '1') { fs.writeFileSync(file, png); return; }
  assert.ok(fs.existsSync(file), `no reference ${file} (UPDATE_REFS=1 makes it)`);
  const share = diffShare(decodePng(png), decodePng(fs.readFileSync(file)), LEVEL, masks);
  if (share > MAX_SHARE) {
    const keep = path.join(process.env.SHOTS || os.tmpdir(), `actual-${name}`);
    fs.mkdirSync(path.dirname(keep), { recursive: true });
    fs.writeFileSync(keep, png);
    assert.fail(`${name}: ${(100 * share).toFixed(2)} % of the drawing's pixels differ (at most ${100 * MAX_SHARE} %); the image taken: ${keep}`);
  }
  console.log(`# ${name}: ${(100 * share).toFixed(3)} % of the drawing's pixels differ`);
}

test('the animations (planar and spatial) at a scrubbed frame look like the references', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  const J1 = (await api(`/api/v1/sweeps/${env.small}/table?limit=1`)).rows[0][0];
  const P = await api(`/api/v1/jobs/${J1}/poses`);
  await page.goto(`${env.base}/jobs/${J1}?ch=none`);
  await page.waitForSelector('canvas.anim-canvas');
  await showFrame(page, P, 30);
  await compare(page, 'canvas.anim-canvas', 'job-planar.png', [[0, 0, 140, 24]]);   // the time label
  const sp = (await api(`/api/v1/sweeps/${env.spatial}/jobs`)).items[0];
  const Q = await api(`/api/v1/jobs/${sp.id}/poses`);
  await page.goto(`${env.base}/jobs/${sp.id}?ch=none`);
  await page.waitForSelector('.scene3d canvas');
  const f = Math.floor(Q.nframe / 3);
  await showFrame(page, Q, f);
  await compare(page, '.scene3d canvas', 'job-3d.png');
  assert.deepEqual(errors.filter((e) => !/GPU stall|GL Driver/.test(e)), []);
  await page.context().close();
});

test('the sweep view of the bulk sweep: parallel coordinates with a brush, scatter plot', async () => {
  if (env.bigJobs !== 100000) return;   // the references are of the default 10^5 jobs
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(`${env.base}/sweeps/${env.big}?b=parameter.c:0.2:0.5&sx=parameter.c&sy=response.r2&sc=metric.steps`);
  await waitShown(page, '#jobs-count');
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const pc = await page.locator('.pc-canvas').boundingBox();
  await compare(page, '.pc-canvas', 'sweep-parcoords.png', [[0, 0, 1e4, 28], [0, pc.height - 22, 1e4, 1e4]]);   // axis names and ranges
  await compare(page, '#scatter', 'sweep-scatter.png', [[0, 0, 58, 1e4], [0, 360 - 58, 1e4, 1e4]]);   // tick labels and axis names
  assert.deepEqual(errors, []);
  await page.context().close();
});
