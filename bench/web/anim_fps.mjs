// bench/web/anim_fps.mjs - frames per second of the job view's animation in
// headless Chromium (Debian's, through playwright-core): the job page is
// opened, Play pressed at a speed that keeps it playing for the whole
// measurement (again from the start when a short run ends), and every change of the time shown (one per frame drawn:
// each animation frame sets the time, renders the pose table and draws the
// canvas or the WebGL scene) is counted for SECONDS seconds.
// usage: BASE=http://... [QUERY=contacts=1] node bench/web/anim_fps.mjs NAME:JOB_ID ...
// prints one markdown row per job: name, bodies, dimension, stored frames,
// frames drawn per s alone and with the job's default plots (medians of ROUNDS).
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const { chromium } = createRequire(path.join(here, '../../web/package.json'))('playwright-core');
const SECONDS = Number(process.env.SECONDS_FPS || 4);
const ROUNDS = Number(process.env.ROUNDS || 3);   // each figure: the median of ROUNDS measurements
const base = process.env.BASE;
if (!base) throw new Error('BASE not set');

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
  args: ['--no-sandbox', '--disable-dev-shm-usage'] });
try {
  for (const arg of process.argv.slice(2)) {
    const [name, id] = arg.split(':');
    const P = await (await fetch(`${base}/api/v1/jobs/${id}/poses`)).json();
    const rates = [];
    // the animation alone (no channel plotted), then with the default plots,
    // whose time cursor is redrawn at every frame too
    for (const q of ['?ch=none', '']) {
      const got = [];
      for (let round = 0; round < ROUNDS; round++) {
      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      // QUERY: more of the view's state (e.g. contacts=1&colour=@contact)
      const extra = process.env.QUERY ? `${q ? '&' : '?'}${process.env.QUERY}` : '';
      await page.goto(`${base}/jobs/${id}${q}${extra}`);
      await page.waitForSelector(P.geometry.dimension === 3 ? '.scene3d canvas' : 'canvas.anim-canvas');
      if (!q) await page.waitForSelector('.plot canvas');
      // the fastest speed that still lasts the measurement (with a margin)
      const T = P.times.at(-1) - P.times[0];
      const speeds = [0.1, 0.25, 0.5, 1, 2, 4].filter((v) => T / v > SECONDS * 1.5);
      await page.selectOption('#speed', String(speeds.length ? speeds.at(-1) : 0.1));
      // a run shorter than the measurement is played again from the start
      // each time it ends (the button back to "Play")
      rates.push(await page.evaluate((sec) => new Promise((resolve) => {
        const el = document.querySelector('#time-shown'), play = document.querySelector('#play');
        let n = 0, on = true;
        const obs = new MutationObserver(() => { n++; });
        obs.observe(el, { attributes: true, attributeFilter: ['data-t'] });
        const again = setInterval(() => { if (on && play.textContent === 'Play') play.click(); }, 5);
        play.click();
        setTimeout(() => {
          on = false; obs.disconnect(); clearInterval(again);
          if (play.textContent === 'Pause') play.click();
          resolve(n / sec);
        }, sec * 1000);
      }), SECONDS));
      await page.close();
      got.push(rates.pop());
      }
      got.sort((a, b) => a - b);
      rates.push(got[Math.floor(got.length / 2)]);
    }
    console.log(`| ${name} | ${P.bodies.length} | ${P.geometry.dimension}-D | ${P.nframe} | ${rates.map((r) => r.toFixed(1)).join(' | ')} |`);
  }
} finally { await browser.close(); }
