// live.test.mjs - a sweep's view while a real worker runs it: the table
// starts with every job queued and fills by itself (no reload by hand) until
// every job is done with its responses, which equal the API's.  The worker is
// started here (tests/browser/run.sh stopped the others) and stopped by its
// pid; the "control" sweep is paused meanwhile, so that sweeps.test.mjs finds
// it queued.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { env, launch, newPage, api, apiPost, until, untilProgress } from './helpers.mjs';

const browser = await launch();
let worker = null;
after(async () => {
  if (worker && worker.exitCode === null) { worker.kill('SIGTERM'); await new Promise((r) => { worker.once('exit', r); setTimeout(r, 5000); }); }
  await browser.close();
});

async function tableState(page) {
  return page.evaluate(() => {
    const keys = [...document.querySelectorAll('#jobs-grid .hrow button.sort')].map((b) => b.dataset.key);
    return [...document.querySelectorAll('#jobs-grid .vrow')].map((r) => {
      const o = {};
      [...r.children].forEach((c, j) => { o[keys[j]] = c.getAttribute('title'); });
      return o;
    });
  });
}

test('the table fills while a worker runs the sweep', { timeout: 900000 }, async () => {
  assert.ok(env.worker && env.zmq, 'WORKER and ZMQ from run.sh');
  const errors = [];
  const s = await apiPost('/api/v1/sweeps', { model: env.mid, name: 'live', design: { kind: 'grid' },
    parameters: { L: { min: 0.6, max: 1.6, levels: 6 } }, responses: [{ name: 'ylow', channel: 'y', reduce: 'min' }] });
  await apiPost(`/api/v1/sweeps/${env.control}/pause`);
  const page = await newPage(browser, errors);
  await page.goto(`${env.base}/sweeps/${s.id}`);
  await page.waitForSelector('#jobs-count');
  let rows = await tableState(page);
  assert.equal(rows.length, 6);
  assert.ok(rows.every((r) => r['job.status'] === 'queued' && r['response.ylow'] === ''), 'all queued, no responses');
  // a worker, slowed down so that the table is seen part-way
  const log = fs.openSync(env.workerLog, 'a');
  worker = spawn(env.worker, ['--connect', env.zmq, '--id', 'live', '--heartbeat-ms', '200', '--slots', '1', '--job-delay-ms', '700'],
    { stdio: ['ignore', log, log] });
  // (waited for as long as the worker finishes jobs: the sweep's counts move)
  const seen = new Set();
  await untilProgress(async () => {
    rows = await tableState(page);
    seen.add(rows.filter((r) => r['job.status'] === 'done').length);
    return rows.length === 6 && rows.every((r) => r['job.status'] === 'done');
  }, async () => JSON.stringify((await api(`/api/v1/sweeps/${s.id}`)).counts), 'every job done in the table');
  assert.ok([...seen].some((n) => n > 0 && n < 6), `the table was seen part-way (done counts seen: ${[...seen]})`);
  await page.waitForSelector('#sweep-status:text("done")');
  const t = await api(`/api/v1/sweeps/${s.id}/table`);
  const col = t.columns.findIndex((c) => c.group === 'response' && c.name === 'ylow');
  const want = new Map(t.rows.map((r) => [String(r[0]), r[col]]));
  for (const r of rows) assert.equal(Number(r['response.ylow']), want.get(r['job.job_id']));
  worker.kill('SIGTERM');
  await new Promise((r) => { worker.once('exit', r); setTimeout(r, 5000); });
  assert.notEqual(worker.exitCode === null && worker.signalCode === null, true, 'worker stopped');
  await apiPost(`/api/v1/sweeps/${env.control}/resume`);
  assert.ok(['queued', 'running'].includes((await api(`/api/v1/sweeps/${env.control}`)).status));
  assert.equal((await api(`/api/v1/sweeps/${env.control}`)).counts.done, 0, 'the control sweep did not run');
  assert.deepEqual(errors, []);
  await page.context().close();
});
