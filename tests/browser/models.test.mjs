// models.test.mjs - view 4 in Chromium: every example's model page loads
// (name, check report as the API has it, the drawing at t = 0 with every
// body where the geometry puts it); the list; an upload refused with its
// JSON pointers, then one stored; a sweep submitted from the form (its job
// count shown before, equal to the gateway's) runs to done with a worker
// started here (the control sweep paused meanwhile), and its table fills.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { env, launch, newPage, api, apiPost, until, sweepDone, waitShown } from './helpers.mjs';

const browser = await launch();
let worker = null;
after(async () => {
  if (worker && worker.exitCode === null) { worker.kill('SIGTERM'); await new Promise((r) => { worker.once('exit', r); setTimeout(r, 5000); }); }
  await browser.close();
});
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const examples = fs.readdirSync(path.join(root, 'examples')).filter((f) => f.endsWith('.json')).sort();
const shot = (page, name) => (process.env.SHOTS ? page.screenshot({ path: path.join(process.env.SHOTS, name), fullPage: false }) : null);
// WebGL's performance notes are no errors; nor are the 422 answers that a
// test provokes on purpose (Chromium logs every 4xx load on the console).
const benign = (errors, expect422 = false) => errors.filter((e) => !/GPU stall|GL Driver/.test(e) &&
  !(expect422 && /Failed to load resource: .* status of 422/.test(e)));

// The page's token: stored in the browser as the dialog would.
async function withToken(page) {
  await page.goto(`${env.base}/models`);
  await page.evaluate((t) => localStorage.setItem('mbsweep.token', t), env.token);
}

test('every example: its model page draws it at t = 0 and shows its check report', { timeout: 240000 }, async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  const ids = [];
  for (const f of examples) {
    const mech = JSON.parse(fs.readFileSync(path.join(root, 'examples', f), 'utf8'));
    if (!mech.bodies) continue;              // a sweep file, not a mechanism
    const m = await apiPost('/api/v1/models', mech);
    ids.push([f, m.id]);
  }
  assert.ok(ids.length >= 20, `${ids.length} example models`);
  for (const [f, id] of ids) {
    const [m, g] = await Promise.all([api(`/api/v1/models/${id}`), api(`/api/v1/models/${id}/geometry`)]);
    await page.goto(`${env.base}/models/${id}`);
    await page.waitForSelector('#check-report');
    await page.waitForSelector(g.geometry.dimension === 3 ? '.scene3d canvas' : 'canvas.anim-canvas');
    assert.equal((await page.textContent('#model-name')).startsWith(m.name), true, f);
    const report = await page.$$eval('#check-report tr', (trs) => Object.fromEntries(trs.map((tr) => [tr.children[0].textContent, tr.children[1].textContent])));
    assert.equal(report['Degrees of freedom'], String(m.check_report.degrees_of_freedom), f);
    assert.equal(report['Coordinates after elimination'], String(m.check_report.coordinates_after_elimination), f);
    assert.equal(report['Constraints before elimination'], String(m.check_report.constraints_before_elimination), f);
    // the relative formulation's sizes (issue 12), as the API has them
    assert.equal(report['Relative formulation: joint coordinates'], String(m.check_report.relative_coordinates), f);
    assert.equal(report['Relative formulation: chords (longest loop, joints)'],
      `${m.check_report.relative_chords} (${m.check_report.relative_longest_loop})`, f);
    // the pose table at t = 0: each body's com where the geometry puts it
    const rows = await page.$$eval('#anim-table tbody tr', (trs) => trs.map((tr) => ({ name: tr.dataset.body,
      v: [...tr.querySelectorAll('td[data-v]')].map((td) => Number(td.dataset.v)) })));
    assert.equal(rows.length, g.geometry.bodies.length, f);
    rows.forEach((r, b) => {
      assert.equal(r.name, g.geometry.bodies[b].name);
      assert.deepEqual(r.v.slice(0, g.geometry.dimension), g.geometry.bodies[b].com, `${f} ${r.name}`);
    });
    // the joint table (the joint glyphs' text alternative): every joint with
    // its type and bodies, and what drives it, as the geometry has them
    const jrows = await page.$$eval('#joint-table tbody tr[data-joint]', (trs) => trs.map((tr) => ({ name: tr.dataset.joint,
      type: tr.dataset.type, drives: tr.dataset.drives, bodies: [...tr.querySelectorAll('td:nth-child(3) [data-body]')].map((x) => x.dataset.body) })));
    const G = g.geometry, bname = (b) => (b < 0 ? 'ground' : G.bodies[b].name), acts = G.actuators;
    assert.deepEqual(jrows, G.joints.map((j, k) => ({ name: j.name, type: j.type, bodies: j.bodies.map(bname),
      drives: acts.filter((a) => a.joint === k).map((a) => a.kind).join(',') })), f);
    const arows = await page.$$eval('#joint-table tbody tr[data-actuator]', (trs) => trs.map((tr) => tr.dataset.actuator));
    assert.deepEqual(arows, acts.filter((a) => a.joint === undefined).map((a) => a.kind), f);
    if (f === 'dc_motor_flywheel.json') {
      const mk = acts.findIndex((a) => a.kind === 'dc_motor');
      assert.ok(mk >= 0 && G.joints[acts[mk].joint].type === 'revolute', 'the flywheel\'s motor on a revolute joint');
      assert.match(jrows[acts[mk].joint].drives, /dc_motor/);
    }
    if (f === 'slider_crank.json') {
      assert.ok(jrows.some((j) => j.type === 'prismatic') && jrows.some((j) => /driver/.test(j.drives)), f);
      assert.ok(G.joints.find((j) => j.type === 'prismatic').axis, 'a prismatic joint has its axis');
    }
    if (f === 'iftomm_a04_bricard.json') assert.ok(G.joints.every((j) => j.type !== 'revolute' || j.axis.length === 3), f);
    if (f === 'slider_crank.json') await shot(page, 'web-model.png');
    if (f === 'iftomm_a05_flyball.json') await shot(page, 'web-model-3d.png');
  }
  // the list: every model of the API, and a filter in the URL
  const list = (await api('/api/v1/models?limit=1000')).items;
  await page.goto(`${env.base}/models`);
  await page.waitForSelector('#models-table tbody tr');
  assert.equal(await page.locator('#models-table tbody tr').count(), list.length);
  await page.fill('#models-q', 'bricard');
  await until(async () => (await page.locator('#models-table tbody tr').count()) === list.filter((m) => m.name.includes('bricard')).length, 'filtered');
  assert.equal(new URL(page.url()).searchParams.get('q'), 'bricard');
  assert.deepEqual(benign(errors), []);
  await page.context().close();
});

test('upload: errors listed with their JSON pointers, then a model stored', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await withToken(page);
  await page.goto(`${env.base}/models`);
  await page.click('#upload summary');
  // not JSON: said at once, nothing sent
  await page.fill('#upload-text', '{"name": ');
  await page.click('#upload-submit');
  await page.waitForSelector('#upload-errors');
  assert.match(await page.textContent('#upload-errors'), /Not JSON/);
  // a joint on an unknown body and a misspelt key: the gateway's pointers
  const bad = { name: 'bad one', dimension: 2, bodies: [{ name: 'b', mass: 1, inertia: 0.1, com: [1, 0] }],
    joints: [{ name: 'j', type: 'revolute', bodies: ['ground', 'nobody'], at: [0, 0] }], solver: { t_end: 1, tolerence: 1 } };
  const r = await fetch(`${env.base}/api/v1/models`, { method: 'POST', body: JSON.stringify(bad),
    headers: { Authorization: `Bearer ${env.token}`, 'Content-Type': 'application/json' } });
  assert.equal(r.status, 422);
  const want = (await r.json()).error.details.map((d) => d.pointer || '/');
  assert.ok(want.length >= 2);
  await page.fill('#upload-text', JSON.stringify(bad));
  await page.click('#upload-submit');
  await page.waitForSelector('#upload-errors table');
  const got = await page.$$eval('#upload-errors tbody tr td:first-child', (tds) => tds.map((td) => td.textContent));
  assert.deepEqual(got, want);
  // a valid one: stored, and its page opened
  const good = { ...bad, name: 'uploaded pendulum', joints: [{ name: 'j', type: 'revolute', bodies: ['ground', 'b'], at: [0, 0] }], solver: { t_end: 1 } };
  await page.fill('#upload-text', JSON.stringify(good));
  await page.click('#upload-submit');
  await page.waitForURL(/\/models\/[0-9a-f]{16}$/);
  await page.waitForSelector('#check-report');
  assert.match(await page.textContent('#model-name'), /uploaded pendulum/);
  assert.deepEqual(benign(errors, true), []);
  await page.context().close();
});

test('a sweep submitted from the form: job count first, then it runs to done and its table fills', { timeout: 900000 }, async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(`${env.base}/models/${env.mid}`);
  await page.waitForSelector('#sweep-form');
  // without a stored token the count waits for a click, which asks for it
  await page.click('#sf-count-button');
  await page.waitForSelector('#token-dialog[open]');
  await page.fill('#token-input', env.token);
  await page.click('#token-dialog button[type=submit]');
  // closed before anything else is typed (a modal dialog makes the page inert)
  await page.waitForSelector('#token-dialog:not([open])', { state: 'attached' });
  // (the gateway's dry run: waited for while it is in flight)
  const count = async () => { await waitShown(page, '#sf-count[data-jobs]:not([data-jobs=""])', 'the job count'); return Number(await page.getAttribute('#sf-count', 'data-jobs')); };
  await page.fill('#sf-name', 'from the form');
  await page.selectOption('tr[data-param="L"] select.sf-mode', 'values');
  await page.fill('tr[data-param="L"] input.sf-values', '0.7, 1.3');
  await page.selectOption('tr[data-param="m"] select.sf-mode', 'range');
  await page.fill('tr[data-param="m"] input.sf-min', '1');
  await page.fill('tr[data-param="m"] input.sf-max', '2');
  await page.fill('tr[data-param="m"] input.sf-levels', '3');
  await until(async () => (await count()) === 6, '2 x 3 jobs counted');
  // paired runs double it: the gateway's count, shown before submitting
  await page.selectOption('#sf-cd', 'both');
  await until(async () => (await count()) === 12, '12 jobs with paired runs');
  const dry = await apiPost('/api/v1/sweeps?dry_run=1', { model: env.mid, design: { kind: 'grid' },
    parameters: { L: { values: [0.7, 1.3] }, m: { min: 1, max: 2, levels: 3 } }, solver: { contact_deactivation: [true, false] } });
  assert.equal(dry.jobs, 12);
  // a wrong value is refused before submitting, with its pointer
  await page.fill('tr[data-param="m"] input.sf-levels', '0');
  await page.waitForSelector('#sf-problems');
  assert.match(await page.textContent('#sf-problems'), /\/parameters/);
  assert.equal(await page.isDisabled('#sf-submit'), true);
  await page.fill('tr[data-param="m"] input.sf-levels', '3');
  await page.selectOption('#sf-cd', 'model');
  await until(async () => (await count()) === 6, 'back to 6');
  // solver and run options: an integrator, half the jobs verified (3 more,
  // counted by the gateway), a priority and a time limit per job
  await page.selectOption('#sf-integrator', 'dopri5');
  await page.fill('#sf-priority', '5');
  await page.fill('#sf-time-limit', '60');
  await page.fill('#sf-verify', '1.5');
  await page.waitForSelector('#sf-problems');
  assert.match(await page.textContent('#sf-problems'), /\/verify/);
  assert.equal(await page.isDisabled('#sf-submit'), true);
  await page.fill('#sf-verify', '0.5');
  await until(async () => (await page.getAttribute('#sf-count', 'data-verify')) === '3', '3 verification jobs counted');
  assert.equal(await count(), 6);
  assert.match(await page.textContent('#sf-count'), /^6 jobs and 3 verification jobs/);
  const dry2 = await apiPost('/api/v1/sweeps?dry_run=1', { model: env.mid, design: { kind: 'grid' }, verify: 0.5,
    parameters: { L: { values: [0.7, 1.3] }, m: { min: 1, max: 2, levels: 3 } }, solver: { integrator: 'dopri5' } });
  assert.deepEqual([dry2.jobs, dry2.verify_jobs], [6, 3]);
  await shot(page, 'web-sweep-form.png');
  // the form's fields are in the URL: a deep link opens the same form, with
  // the same count from the gateway
  const link = page.url();
  assert.match(link, /[?&]sf=/);
  const errors2 = [];
  const p2 = await newPage(browser, errors2);
  await withToken(p2);
  await p2.goto(link);
  await p2.waitForSelector('#sweep-form');
  assert.equal(await p2.inputValue('#sf-name'), 'from the form');
  assert.equal(await p2.inputValue('tr[data-param="L"] select.sf-mode'), 'values');
  assert.equal(await p2.inputValue('tr[data-param="L"] input.sf-values'), '0.7, 1.3');
  assert.equal(await p2.inputValue('tr[data-param="m"] select.sf-mode'), 'range');
  assert.deepEqual([await p2.inputValue('tr[data-param="m"] input.sf-min'), await p2.inputValue('tr[data-param="m"] input.sf-max'),
    await p2.inputValue('tr[data-param="m"] input.sf-levels')], ['1', '2', '3']);
  assert.equal(await p2.inputValue('#sf-cd'), 'model');
  assert.deepEqual([await p2.inputValue('#sf-integrator'), await p2.inputValue('#sf-verify'), await p2.inputValue('#sf-priority'),
    await p2.inputValue('#sf-time-limit')], ['dopri5', '0.5', '5', '60']);
  await p2.waitForSelector('#sf-count[data-jobs="6"][data-verify="3"]');
  assert.equal(p2.url(), link);
  // a link with a broken or foreign sf opens the default form
  await p2.goto(`${env.base}/models/${env.mid}?sf=${encodeURIComponent('{"kind":"nope","p":{"zz":["values","1"]},"r":[1]}')}`);
  await p2.waitForSelector('#sweep-form');
  assert.equal(await p2.inputValue('#sf-kind'), 'grid');
  assert.equal(await p2.inputValue('tr[data-param="L"] select.sf-mode'), 'default');
  assert.deepEqual(benign(errors2), []);
  await p2.close();
  const before = new Set((await api(`/api/v1/sweeps?model=${env.mid}&limit=1000`)).items.map((s) => s.id));
  await page.click('#sf-submit');
  await page.waitForURL(/\/sweeps\/[0-9a-f-]{36}$/);
  const id = new URL(page.url()).pathname.split('/').pop();
  assert.ok(!before.has(id));
  const s = await api(`/api/v1/sweeps/${id}`);
  assert.equal(s.njobs, 6);
  assert.equal(s.name, 'from the form');
  assert.deepEqual(s.spec.responses, [{ name: 'x_max', channel: 'x', reduce: 'max' }]);
  // the stored spec carries the integrator, the verified fraction, priority and time limit
  assert.equal(s.spec.solver.integrator, 'dopri5');
  assert.deepEqual([s.spec.verify, s.spec.priority, s.spec.time_limit], [0.5, 5, 60]);
  assert.equal(s.verification.jobs, 3);
  assert.equal(await page.textContent('#sweep-model'), s.model_name);
  // a worker runs it (the control sweep paused meanwhile, as sweeps.test.mjs
  // needs it queued); the table fills by itself
  // (already paused when this file runs alone)
  if ((await api(`/api/v1/sweeps/${env.control}`)).status !== 'paused') await apiPost(`/api/v1/sweeps/${env.control}/pause`);
  const log = fs.openSync(env.workerLog, 'a');
  worker = spawn(env.worker, ['--connect', env.zmq, '--id', 'form', '--heartbeat-ms', '200'], { stdio: ['ignore', log, log] });
  await sweepDone(id, 'the sweep from the form');
  await page.waitForSelector('#sweep-status:text("done")');
  await until(async () => {
    const st = await page.$$eval('#jobs-grid .vrow', (rs) => rs.map((r) => r.textContent));
    return st.length === 6 && st.every((t) => t.includes('done'));
  }, 'six done rows', 30000);
  const t = await api(`/api/v1/sweeps/${id}/table`);
  const col = t.columns.findIndex((c) => c.group === 'response' && c.name === 'x_max');
  assert.ok(t.rows.length === 6 && t.rows.every((r) => Number.isFinite(r[col])));
  worker.kill('SIGTERM');
  await new Promise((r) => { worker.once('exit', r); setTimeout(r, 5000); });
  await apiPost(`/api/v1/sweeps/${env.control}/resume`);
  assert.equal((await api(`/api/v1/sweeps/${env.control}`)).counts.done, 0, 'the control sweep did not run');
  assert.deepEqual(benign(errors, true), []);
  await page.context().close();
});

test('the sweep form\'s design list: rows pasted as a table, counted by the gateway, kept in the link, stored as given', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await withToken(page);
  await page.goto(`${env.base}/models/${env.mid}`);
  await page.waitForSelector('#sweep-form');
  // (the gateway's dry run: waited for while it is in flight)
  const count = async () => { await waitShown(page, '#sf-count[data-jobs]:not([data-jobs=""])', 'the job count'); return Number(await page.getAttribute('#sf-count', 'data-jobs')); };
  await page.fill('#sf-name', 'list from the form');
  await page.selectOption('#sf-kind', 'list');
  await page.waitForSelector('#sf-rows');
  assert.equal(await page.$('#sf-params'), null, 'the rows replace the parameters\' table');
  // a row short of a value: said before anything is sent, submit disabled
  await page.fill('#sf-rows', 'L, m\n0.6, 1\n0.9');
  await page.waitForSelector('#sf-problems');
  assert.match(await page.textContent('#sf-problems'), /line 3 must hold 2 numbers/);
  assert.equal(await page.isDisabled('#sf-submit'), true);
  // a parameter the model does not have: the gateway's pointer
  await page.fill('#sf-rows', 'L, zz\n0.6, 1');
  await until(async () => /\/design\/rows\/0/.test((await page.textContent('#sf-problems').catch(() => '')) || ''), 'the pointer of the unknown parameter');
  // three rows separated by tabs (pasted from a spreadsheet), then paired runs: 3, then 6 jobs
  await page.fill('#sf-rows', 'L\tm\n0.6\t1\n0.9\t2\n1.2\t3\n');
  await until(async () => (await count()) === 3, '3 rows counted');
  await page.selectOption('#sf-cd', 'both');
  await until(async () => (await count()) === 6, '6 jobs with paired runs');
  const rows = [{ L: 0.6, m: 1 }, { L: 0.9, m: 2 }, { L: 1.2, m: 3 }];
  const dry = await apiPost('/api/v1/sweeps?dry_run=1', { model: env.mid, design: { kind: 'list', rows }, solver: { contact_deactivation: [true, false] } });
  assert.equal(dry.jobs, 6);
  // the link holds the rows: a fresh page shows the same form and count
  const link = page.url();
  const p2 = await newPage(browser, errors);
  await withToken(p2);
  await p2.goto(link);
  await p2.waitForSelector('#sf-rows');
  assert.equal(await p2.inputValue('#sf-rows'), 'L\tm\n0.6\t1\n0.9\t2\n1.2\t3\n');
  await p2.waitForSelector('#sf-count[data-jobs="6"]');
  await p2.context().close();
  // submitted: the spec's rows as given, each row's job twice (on and off)
  await page.click('#sf-submit');
  await page.waitForURL(/\/sweeps\/[0-9a-f-]{36}$/);
  const id = new URL(page.url()).pathname.split('/').pop();
  const s = await api(`/api/v1/sweeps/${id}`);
  assert.deepEqual([s.name, s.njobs, s.spec.design.kind], ['list from the form', 6, 'list']);
  assert.deepEqual(s.spec.design.rows, rows);
  const jobs = (await api(`/api/v1/sweeps/${id}/jobs?limit=10`)).items.sort((a, b) => a.idx - b.idx);
  assert.deepEqual(jobs.map((j) => j.parameters), rows.flatMap((r) => [r, r]));
  assert.deepEqual(jobs.map((j) => j.solver_overrides.contact_deactivation), [true, false, true, false, true, false]);
  // no worker runs it here: cancelled, so that it does not wait for the next file's
  await apiPost(`/api/v1/sweeps/${id}/cancel`);
  assert.deepEqual(benign(errors, true), []);
  await page.context().close();
});
