// helpers.mjs - shared by the browser tests (tests/browser/run.sh sets the
// environment): Debian's chromium through playwright-core (no browser
// download), the ids of the sweeps run.sh prepared, small CSV/JSON helpers.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import assert from 'node:assert/strict';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '../../web/package.json'));
const { chromium } = require('playwright-core');

export const env = {
  base: process.env.BASE,
  token: process.env.TOKEN,
  small: process.env.SMALL,
  control: process.env.CONTROL,
  big: process.env.BIG,
  bigJobs: Number(process.env.BIG_JOBS || 0),
  chromium: process.env.CHROMIUM || '/usr/bin/chromium',
  mid: process.env.MID,
  ball: process.env.BALL,
  spatial: process.env.SPATIAL,
  zmq: process.env.ZMQ,
  worker: process.env.WORKER,
  workerLog: process.env.WORKER_LOG,
};
for (const k of ['base', 'token', 'small', 'control', 'big']) if (!env[k]) throw new Error(`tests/browser: ${k} not set (run tests/browser/run.sh)`);

export async function launch() {
  return chromium.launch({
    executablePath: env.chromium, headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    timeout: 60000,
  });
}

// A page that fails the test on any uncaught error or console error.  It
// counts its requests in flight (page.inFlight, waitShown's sign of progress).
export async function newPage(browser, errors) {
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 1000 }, acceptDownloads: true });
  const page = await ctx.newPage();
  page.setDefaultTimeout(30000);
  page.inFlight = new Set();
  page.on('request', (q) => page.inFlight.add(q));
  page.on('requestfinished', (q) => page.inFlight.delete(q));
  page.on('requestfailed', (q) => page.inFlight.delete(q));
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  return page;
}

export async function api(p) {
  const r = await fetch(env.base + p);
  if (!r.ok) throw new Error(`${p}: HTTP ${r.status}`);
  return r.json();
}

export async function apiPost(p, body) {
  const r = await fetch(env.base + p, {
    method: 'POST',
    headers: { Authorization: `Bearer ${env.token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const j = await r.json();
  if (!r.ok) throw new Error(`${p}: HTTP ${r.status} ${JSON.stringify(j)}`);
  return j;
}

export async function apiText(p) {
  const r = await fetch(env.base + p);
  if (!r.ok) throw new Error(`${p}: HTTP ${r.status}`);
  return r.text();
}

// Every row of /table as objects keyed group.name (sequential pages, bounded).
export async function tableRows(id) {
  let after = -1, columns = null;
  const rows = [];
  for (let k = 0; k < 100; k++) {
    const p = await api(`/api/v1/sweeps/${id}/table?limit=20000&after=${after}`);
    columns = p.columns.map((c) => `${c.group}.${c.name}`);
    for (const r of p.rows) rows.push(Object.fromEntries(columns.map((c, j) => [c, r[j]])));
    if (p.next === null) break;
    after = p.next;
  }
  return { columns, rows };
}

// RFC 4180 CSV -> array of arrays of strings.
export function parseCsv(text) {
  const out = [];
  let row = [], f = '', q = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (q) {
      if (ch === '"') { if (text[i + 1] === '"') { f += '"'; i++; } else q = false; } else f += ch;
    } else if (ch === '"') q = true;
    else if (ch === ',') { row.push(f); f = ''; }
    else if (ch === '\n') { row.push(f); out.push(row); row = []; f = ''; }
    else if (ch !== '\r') f += ch;
  }
  if (f !== '' || row.length) { row.push(f); out.push(row); }
  return out;
}

// Scrub the animation to frame f of poses P and wait until it is shown: the
// time's readout at frame f exactly (u = 0: not between frames) and, for a
// planar view, the canvas drawn at it (it draws after the page's update).
export async function showFrame(page, P, f) {
  await page.fill('#time', String(P.times[f]));
  await until(async () => page.evaluate((f) => {
    const e = document.querySelector('#time-shown'), c = document.querySelector('canvas.anim-canvas');
    return !!e && Number(e.dataset.frame) === f && Number(e.dataset.u) === 0 && (!c || c.dataset.frame === String(f));
  }, f), `frame ${f} shown`);
}

// Waits that depend on progress rather than on a fixed time: a loaded
// machine makes everything slower, and a fixed limit then fails a test whose
// service is only slow (a CI run under load did).  They fail when nothing
// has moved for stallMs (the work stopped), or after maxMs in all.

// Poll fn() until it returns a truthy value, for as long as progress()
// (any comparable value) keeps changing.
export async function untilProgress(fn, progress, what, { stallMs = 60000, maxMs = 600000 } = {}) {
  const start = Date.now();
  let last, p = await progress(), moved = Date.now();
  while (Date.now() - start < maxMs) {
    last = await fn();
    if (last) return last;
    const q = await progress();
    if (q !== p) { p = q; moved = Date.now(); } else if (Date.now() - moved > stallMs) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`waiting for ${what}: ${Date.now() - moved > stallMs ? `no progress for ${stallMs} ms` : `not within ${maxMs} ms`}`
    + ` (last: ${JSON.stringify(last)}, progress: ${JSON.stringify(p)})`);
}

// Sweep id run to done by the workers: waited for as long as its job counts
// change (a job that runs longer than stallMs without any other finishing
// fails it); failed or cancelled is an error at once.
export async function sweepDone(id, what, opts = {}) {
  let s = null;
  return untilProgress(async () => {
    s = await api(`/api/v1/sweeps/${id}`);
    if (s.status === 'failed' || s.status === 'cancelled') throw new Error(`${what}: ${s.status} ${JSON.stringify(s.counts)}`);
    return s.status === 'done' ? s : null;
  }, () => (s ? `${s.status} ${JSON.stringify(s.counts)}` : ''), `${what} done`, opts);
}

// The page's element sel shown: waited for while the page has a request in
// flight (the server still working for it), failing when none has been in
// flight for stallMs and the element is still not there.
export async function waitShown(page, sel, what = sel, { stallMs = 30000, maxMs = 300000 } = {}) {
  const ticks = () => (page.inFlight.size ? Date.now() : 0);
  let busy = Date.now();
  await untilProgress(async () => (await page.$(sel)) !== null,
    () => { const t = ticks(); if (t) busy = t; return busy; }, what, { stallMs, maxMs });
  await page.waitForSelector(sel);
}

// The pixels of the planar canvas whose colour lies in band ({r, g, b}:
// each an inclusive [lo, hi] of 0..255; opaque: only fully opaque pixels),
// as [x, y] in CSS pixels.  The arrows' colours (contacts, forces, loads)
// are such bands; near(css) is the band within 2 of an 'rgb(r,g,b)' colour.
export async function canvasPixels(page, band) {
  return page.$eval('canvas.anim-canvas', (c, band) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data, out = [], dpr = c.width / c.clientWidth;
    const inb = (v, [lo, hi]) => v >= lo && v <= hi;
    for (let i = 0; i < d.length; i += 4)
      if (inb(d[i], band.r) && inb(d[i + 1], band.g) && inb(d[i + 2], band.b) && (!band.opaque || d[i + 3] === 255))
        out.push([((i / 4) % c.width) / dpr, Math.floor(i / 4 / c.width) / dpr]);
    return out;
  }, band);
}

export const near = (css) => {
  const [r, g, b] = css.match(/\d+/g).map(Number);
  return { r: [r - 2, r + 2], g: [g - 2, g + 2], b: [b - 2, b + 2], opaque: true };
};

// Poll fn() until it returns a truthy value (bounded in time), else throw.
export async function until(fn, what, ms = 15000) {
  const end = Date.now() + ms;
  let last;
  while (Date.now() < end) {
    last = await fn();
    if (last) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what} (last: ${JSON.stringify(last)})`);
}

// A view toggle kept in the URL (`param`=1): a deep link of `page`'s URL
// restores it in a new page (`checkbox` checked, `table` shown; `restored`
// checks more on that page), and unchecking it on `page` takes `param` out of
// the URL and the table off the page.  The new page is closed.
export async function deepLinkToggle(browser, page, errors, { param, checkbox, table, restored }) {
  assert.equal(new URL(page.url()).searchParams.get(param), '1', `${param}=1 in the URL`);
  const page2 = await newPage(browser, errors);
  await page2.goto(page.url());
  await page2.waitForSelector(table);
  assert.equal(await page2.isChecked(checkbox), true);
  if (restored) await restored(page2);
  await page2.context().close();
  await page.uncheck(checkbox);
  await until(async () => !new URL(page.url()).searchParams.has(param), `${param} out of the URL`);
  assert.equal(await page.$(table), null);
}
