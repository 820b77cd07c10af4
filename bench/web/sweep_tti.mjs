// bench/web/sweep_tti.mjs - time until the sweep view is interactive in
// headless Chromium (Debian's, through playwright-core): from the start of
// the navigation until the job count is in the page (every job loaded, the
// table and the plots' first drawing done: the count is rendered with them)
// plus one animation frame.  Each sweep is opened ROUNDS times, each in a
// fresh page; prints a markdown row per sweep: jobs, median, every run.
// usage: BASE=http://... node bench/web/sweep_tti.mjs JOBS:SWEEP_ID ...
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const { chromium } = createRequire(path.join(here, '../../web/package.json'))('playwright-core');
const ROUNDS = Number(process.env.ROUNDS || 3);
const base = process.env.BASE;
if (!base) throw new Error('BASE not set');

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
  args: ['--no-sandbox', '--disable-dev-shm-usage'] });
try {
  for (const arg of process.argv.slice(2)) {
    const [jobs, id] = arg.split(':');
    const runs = [];
    for (let k = 0; k < ROUNDS; k++) {
      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      await page.goto(`${base}/`);                       // the bundle in the cache, as for a user moving between views
      await page.waitForSelector('main');
      const t0 = Date.now();
      await page.goto(`${base}/sweeps/${id}`);
      await page.waitForSelector('#jobs-count', { timeout: 120000 });
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
      runs.push(Date.now() - t0);
      const n = Number(await page.textContent('#jobs-count strong'));
      if (n !== Number(jobs)) throw new Error(`${n} jobs shown, ${jobs} expected`);
      await page.close();
    }
    const s = [...runs].sort((a, b) => a - b);
    console.log(`| ${jobs} | ${s[Math.floor(s.length / 2)]} | ${runs.join(', ')} |`);
  }
} finally { await browser.close(); }
