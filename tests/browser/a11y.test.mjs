// a11y.test.mjs - keyboard and labels on every main view (issue 10): the
// sweeps, a sweep, a job, the models, a model (with its sweep form) and the
// comparison.  On each:
//   - labels: Chromium's own accessibility tree (Playwright's ariaSnapshot)
//     names every control (buttons, links, text fields, selects, check boxes,
//     sliders) and every image (the canvases); the landmarks are there (the
//     views' navigation, main) with one level-1 heading; every table has
//     header cells;
//   - focus order: Tab from the top reaches every control the page can
//     focus, once each, in the order of the document (no tabindex > 0, no
//     control skipped), and each shows where the focus is (an outline);
//   - operable without a mouse: the view's main actions done with keys only
//     (Tab, Enter, Space, arrows), checked by their effect (the URL, the
//     view shown).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { env, launch, newPage, api, until } from './helpers.mjs';

const browser = await launch();
after(() => browser.close());

// Roles of controls that must have a name, and of images.
const NAMED = ['button', 'link', 'textbox', 'searchbox', 'combobox', 'checkbox', 'slider', 'spinbutton', 'radio', 'switch', 'img'];

// Labels: every control and image of the accessibility tree named, the
// landmarks and headings, header cells in every table.  Returns problems.
async function labels(page) {
  const snap = await page.locator('body').ariaSnapshot();
  const bad = [];
  for (const line of snap.split('\n')) {
    const m = line.match(/^\s*- (\w+)(?: "(.*?)")?(?:\s|:|$)/);
    if (m && NAMED.includes(m[1]) && !(m[2] && m[2].trim())) bad.push(`unnamed ${m[1]}: ${line.trim()}`);
  }
  if (!/^\s*- main\b/m.test(snap)) bad.push('no main landmark');
  if (!/^\s*- navigation "Views"/m.test(snap)) bad.push('no navigation "Views"');
  const h1 = snap.split('\n').filter((l) => /- heading .*\[level=1\]/.test(l)).length;
  if (h1 !== 1) bad.push(`${h1} level-1 headings`);
  const tables = await page.$$eval('table', (ts) => ts.filter((t) => t.offsetParent !== null && !t.querySelector('th'))
    .map((t) => t.id || t.className));
  for (const t of tables) bad.push(`table without header cells: ${t}`);
  return { bad, snap };
}

// Focus order: Tab from the top through the page; every control the
// document can focus (visible, enabled, tabIndex >= 0) is reached once, in
// document order, and shows an outline.  Returns problems.
async function focusOrder(page, cap = 250) {
  // the controls in document order, each marked with its index
  const want = await page.evaluate(() => {
    const sel = 'a[href], button, input, select, textarea, summary, [tabindex]';
    const all = [...document.querySelectorAll(sel)].filter((e) => {
      if (e.disabled || e.tabIndex < 0 || e.closest('[inert]')) return false;
      if (e.closest('details:not([open])') && e.tagName !== 'SUMMARY') return false;
      const r = e.getBoundingClientRect(), cs = getComputedStyle(e);
      return r.width > 0 && r.height > 0 && cs.visibility !== 'hidden';
    });
    all.forEach((e, i) => { e.dataset.a11y = String(i); });
    return all.map((e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}`);
  });
  const bad = [];
  const positive = await page.$$eval('[tabindex]', (es) => es.filter((e) => e.tabIndex > 0).map((e) => e.outerHTML.slice(0, 80)));
  for (const p of positive) bad.push(`tabindex > 0: ${p}`);
  await fromTop(page);
  const seen = [];
  const n = Math.min(want.length, cap);
  for (let i = 0; i < n; i++) {
    await page.keyboard.press('Tab');
    const f = await page.evaluate(() => {
      const e = document.activeElement;
      if (!e || e === document.body) return null;
      const cs = getComputedStyle(e);
      const ring = (cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) > 0) || cs.boxShadow !== 'none';
      return { i: e.dataset.a11y === undefined ? -1 : Number(e.dataset.a11y), what: `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}`, ring };
    });
    if (!f) { bad.push(`Tab ${i + 1}: focus left the page`); break; }
    seen.push(f);
    if (f.i !== i) { bad.push(`Tab ${i + 1}: ${f.what} (index ${f.i}), want ${want[i]} (index ${i})`); break; }
    if (!f.ring) bad.push(`Tab ${i + 1}: ${f.what} shows no focus outline`);
  }
  return { bad, count: want.length, seen: seen.length };
}

// Put the keyboard's starting point at the top of the document: focus a
// first element (tabindex -1, removed on blur), so that Tab goes to the first
// control whatever was clicked or focused before (a view opened by a link
// keeps the point where the link was).
async function fromTop(page) {
  await page.evaluate(() => {
    const e = document.createElement('span');
    e.tabIndex = -1;
    document.body.prepend(e);
    e.focus();
    e.addEventListener('blur', () => e.remove(), { once: true });
    window.scrollTo(0, 0);
  });
}

// Both audits of the page as it is; asserted with the view's name.
async function audit(page, view) {
  const l = await labels(page);
  assert.deepEqual(l.bad, [], `${view}: labels`);
  const f = await focusOrder(page);
  assert.deepEqual(f.bad, [], `${view}: focus order`);
  assert.ok(f.count >= 5 && f.seen === Math.min(f.count, 250), `${view}: ${f.count} controls, ${f.seen} reached`);
  console.log(`# ${view}: ${f.count} controls reached by Tab in document order`);
  return l.snap;
}

// Tab until the element matching sel has the focus (at most n presses).
async function tabTo(page, sel, n = 300) {
  for (let i = 0; i < n; i++) {
    if (await page.evaluate((s) => document.activeElement && document.activeElement.matches(s), sel)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${sel}`);
}

const urlParam = (page, k) => new URL(page.url()).searchParams.get(k);

test('the sweeps: labels, focus order, sort, filter and open a sweep by keyboard', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(`${env.base}/`);
  await page.waitForSelector('#sweeps-table tbody tr');
  await audit(page, 'sweeps');
  // a status chosen with the arrow keys, a sort with Enter, a sweep opened with Enter
  await fromTop(page);
  await tabTo(page, 'select#status, select[aria-label=Status], label select');
  await page.keyboard.press('ArrowDown');
  await until(async () => urlParam(page, 'status') !== null, 'status in the URL');
  await page.keyboard.press('ArrowUp');
  await until(async () => urlParam(page, 'status') === null, 'status cleared');
  await tabTo(page, 'th button.sort');
  await page.keyboard.press('Enter');
  await until(async () => urlParam(page, 'sort') !== null, 'sort by keyboard');
  await tabTo(page, `#sweeps-table a[href="/sweeps/${env.small}"]`);
  await page.keyboard.press('Enter');
  await page.waitForURL(`**/sweeps/${env.small}`);
  await page.waitForSelector('#jobs-count');
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('a sweep: labels, focus order, filter, sort, brush and open a job by keyboard', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(`${env.base}/sweeps/${env.small}`);
  await page.waitForSelector('#jobs-grid .vrow');
  await audit(page, 'a sweep');
  // a filter typed under a header narrows the table; sort with Enter
  await fromTop(page);
  await tabTo(page, '#jobs-grid .frow input');
  const key = await page.evaluate(() => document.activeElement.getAttribute('aria-label'));
  assert.ok(key, 'the filter field is labelled');
  await page.keyboard.type('=done');
  await until(async () => (urlParam(page, 'f') || '').includes('done'), 'filter in the URL');
  await fromTop(page);
  await tabTo(page, '#jobs-grid .hrow button.sort');
  await page.keyboard.press('Enter');
  await until(async () => urlParam(page, 'sort') !== null, 'sort by keyboard');
  // a brush of the parallel coordinates typed in their table: L from 1.2
  // leaves the jobs with L 1.5 and 2 (the grid's 4 levels of L by 2 of m)
  await page.goto(`${env.base}/sweeps/${env.small}`);
  await page.waitForSelector('#jobs-grid .vrow');
  await fromTop(page);
  await tabTo(page, 'figure.parcoords details summary');
  await page.keyboard.press('Enter');
  await tabTo(page, '#parcoords-table tr[data-key="parameter.L"] input[data-end="0"]');
  await page.keyboard.type('1.2');
  await page.keyboard.press('Enter');
  await until(async () => (urlParam(page, 'b') || '').startsWith('parameter.L:1.2:'), 'the brush in the URL');
  await until(async () => Number(await page.textContent('#jobs-count strong')) === 4, 'the 4 jobs with L >= 1.2');
  // a job's page opened from its id with Enter
  await tabTo(page, '#jobs-grid .vrow a');
  const href = await page.evaluate(() => document.activeElement.getAttribute('href'));
  await page.keyboard.press('Enter');
  await page.waitForURL(`**${href}`);
  await page.waitForSelector('#time');
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('a job: labels, focus order, time, play and channels by keyboard', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  const job = (await api(`/api/v1/sweeps/${env.small}/table`)).rows[0][0];
  const P = await api(`/api/v1/jobs/${job}/poses`);
  await page.goto(`${env.base}/jobs/${job}`);
  await page.waitForSelector('#time');
  await page.waitForSelector('.plot');
  await audit(page, 'a job');
  // the time slider with the arrow keys and End: the last frame
  await fromTop(page);
  await tabTo(page, '#time');
  await page.keyboard.press('End');
  await until(async () => Number(await page.$eval('#time-shown', (e) => e.dataset.frame)) === P.nframe - 1, 'End: the last frame');
  await page.keyboard.press('Home');
  await until(async () => Number(await page.$eval('#time-shown', (e) => e.dataset.frame)) === 0, 'Home: the first frame');
  await page.keyboard.press('ArrowRight');
  await until(async () => Number(await page.$eval('#time-shown', (e) => e.dataset.t)) > 0, 'ArrowRight: later');
  // play and pause with the keyboard
  await page.focus('#play');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#play:text("Pause")');
  await page.keyboard.press('Space');
  await page.waitForSelector('#play:text("Play")');
  // the channels' list opened with Enter, a channel taken away with Space
  await fromTop(page);
  await tabTo(page, 'details.axes summary');
  await page.keyboard.press('Enter');
  const first = await page.$eval('details.axes input[type=checkbox]', (e) => e.dataset.channel);
  await tabTo(page, `details.axes input[data-channel="${first}"]`);
  await page.keyboard.press('Space');
  await until(async () => urlParam(page, 'ch') !== null && !urlParam(page, 'ch').split(',').includes(first), 'a channel off');
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('the models and a model: labels, focus order, filter, open, and the sweep form by keyboard', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(`${env.base}/models`);
  await page.waitForSelector('#models-table tbody tr');
  await audit(page, 'models');
  // the filter typed, a model opened with Enter
  await fromTop(page);
  await tabTo(page, 'input[type=search], #models-q, main input[type=text]');
  await page.keyboard.type('pendulum');
  await until(async () => urlParam(page, 'q') === 'pendulum', 'filter in the URL');
  await tabTo(page, `#models-table a[href="/models/${env.mid}"]`);
  await page.keyboard.press('Enter');
  await page.waitForURL(`**/models/${env.mid}`);
  await page.waitForSelector('#sf-count, form.sweep-form');
  await audit(page, 'a model');
  assert.deepEqual(errors, []);
  await page.context().close();
});

test('the comparison: labels, focus order, option, sort and the sideways scroll by keyboard', async () => {
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(`${env.base}/compare`);
  await page.waitForSelector('#compare-table tbody tr');
  const snap = await audit(page, 'compare');
  // the table's two header rows: every sort button named by its group
  assert.match(snap, /button "Speed-up median/);
  assert.match(snap, /button "Steps on"/);
  // sort with Enter; the option with the arrow keys
  await fromTop(page);
  await tabTo(page, 'button[data-sort=pairs]');
  await page.keyboard.press('Enter');
  await until(async () => urlParam(page, 'sort') === 'pairs', 'sort by keyboard');
  await fromTop(page);
  await tabTo(page, '#compare-option');
  await page.keyboard.press('ArrowDown');
  await until(async () => urlParam(page, 'option') === 'formulation', 'option by keyboard');
  // a narrow window: the table's region takes the focus and scrolls with the arrows
  await page.setViewportSize({ width: 700, height: 900 });
  await page.keyboard.press('ArrowUp');
  await until(async () => urlParam(page, 'option') === null, 'back to contact deactivation');
  await page.waitForSelector('#compare-table tbody tr');
  await page.focus('#compare-scroll');
  const x0 = await page.$eval('#compare-scroll', (e) => e.scrollLeft);
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await until(async () => (await page.$eval('#compare-scroll', (e) => e.scrollLeft)) > x0, 'the table scrolled by the arrows');
  assert.deepEqual(errors, []);
  await page.context().close();
});
