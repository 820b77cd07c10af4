// Plots.jsx - channel plots against time with uPlot (10 series of 10^5
// points in about 0.2 s, docs/frontend.md): one plot per channel, every job
// shown as a series (a decimated job as its min and max with the band
// between), one cursor shared by all plots, the time shown drawn as a
// vertical line; a click sets the time.  The table is the text alternative:
// each channel's range per job over the whole run.
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { fmtNum } from './format.js';

const COLORS = ['#1f5fbf', '#c0392b', '#27ae60', '#8e44ad', '#d35400', '#16a085', '#7f8c8d', '#2c3e50'];

function Plot({ name, jobs, t, setT, width }) {
  const el = useRef(null), plot = useRef(null), tref = useRef(t);
  tref.current = t;
  useEffect(() => {
    const tables = [], series = [{ label: 't (s)' }], bands = [];
    jobs.forEach((j, n) => {
      const c = j.channels && j.channels[name];
      if (!c) return;
      const color = COLORS[n % COLORS.length];
      if (j.decimated) {
        tables.push([j.t, c.min, c.max]);
        const lo = series.length;
        series.push({ label: `job ${j.job} min`, stroke: color, width: 1, spanGaps: true });
        series.push({ label: `job ${j.job} max`, stroke: color, width: 1, spanGaps: true });
        bands.push({ series: [lo + 1, lo], fill: `${color}33` });
      } else {
        tables.push([j.t, c.max]);
        series.push({ label: `job ${j.job}`, stroke: color, width: 1.5, spanGaps: true });
      }
    });
    if (!tables.length) return undefined;
    const data = tables.length === 1 ? tables[0] : uPlot.join(tables);
    const opts = {
      title: name, width, height: 200,
      scales: { x: { time: false } },
      series, bands,
      legend: { show: true, live: false },
      cursor: { sync: { key: 'mbsweep-time' } },
      hooks: {
        draw: [(u) => {
          const x = u.valToPos(tref.current, 'x', true);
          if (!Number.isFinite(x)) return;
          const g = u.ctx;
          g.save(); g.strokeStyle = '#c77800'; g.lineWidth = 2 * (window.devicePixelRatio || 1);
          g.beginPath(); g.moveTo(x, u.bbox.top); g.lineTo(x, u.bbox.top + u.bbox.height); g.stroke(); g.restore();
        }],
      },
    };
    const u = new uPlot(opts, data, el.current);
    plot.current = u;
    const click = () => { if (u.cursor.left >= 0) setT(u.posToVal(u.cursor.left, 'x')); };
    u.over.addEventListener('click', click);
    return () => { u.over.removeEventListener('click', click); u.destroy(); plot.current = null; };
  }, [jobs, name, width]);
  useEffect(() => { if (plot.current) plot.current.redraw(false); }, [t]);
  return <div class="plot" ref={el} data-channel={name} />;
}

export function Plots({ samples, channels, t, setT }) {
  const jobs = samples.jobs.filter((j) => j.available);
  const width = Math.min(900, Math.max(360, (typeof window !== 'undefined' ? window.innerWidth : 1000) - 640));
  return (
    <figure class="plots">
      {channels.map((c) => <Plot key={c} name={c} jobs={jobs} t={t} setT={setT} width={width} />)}
      <figcaption>
        <details>
          <summary>The plotted values as a table</summary>
          <table class="list small" id="plots-table">
            <thead><tr><th scope="col">Channel</th><th scope="col">Job</th><th scope="col">Samples</th><th scope="col">Min</th><th scope="col">Max</th></tr></thead>
            <tbody>
              {channels.flatMap((c) => jobs.filter((j) => j.channels[c]).map((j) => (
                <tr data-channel={c} data-job={j.job}>
                  <td>{c}</td><td>{j.job}</td><td class="num">{j.nsample}</td>
                  <td class="num" data-v={Math.min(...j.channels[c].min)}>{fmtNum(Math.min(...j.channels[c].min))}</td>
                  <td class="num" data-v={Math.max(...j.channels[c].max)}>{fmtNum(Math.max(...j.channels[c].max))}</td>
                </tr>)))}
            </tbody>
          </table>
        </details>
      </figcaption>
    </figure>
  );
}
