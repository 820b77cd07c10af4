// Plots.jsx - channel plots against time with uPlot (10 series of 10^5
// points in about 0.2 s, docs/frontend.md): one plot per channel, every job
// shown as a series (a decimated job as its min and max with the band
// between), one cursor shared by all plots, the time shown as a vertical
// line (an element over the plot, so that moving it redraws nothing); a click sets the time.  The table is the text alternative:
// each channel's range per job over the whole run.
import { useEffect, useMemo, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { fmtNum } from './format.js';

const COLORS = ['#1f5fbf', '#c0392b', '#27ae60', '#8e44ad', '#d35400', '#16a085', '#7f8c8d', '#2c3e50'];

// Move plot u's time line to time t (hidden outside the x range).
function s_place(u, t) {
  const line = u.over.querySelector('.tline');
  if (!line) return;
  // the plotting area's width from uPlot (reading clientWidth here would
  // force a layout per plot at every frame of an animation)
  const x = u.valToPos(t, 'x'), w = u.bbox.width / (window.devicePixelRatio || 1);
  line.style.display = Number.isFinite(x) && x >= 0 && x <= w ? 'block' : 'none';
  line.style.transform = `translateX(${x}px)`;
}

function Plot({ name, jobs, envelope, t, setT, width }) {
  const el = useRef(null), plot = useRef(null), tref = useRef(t);
  tref.current = t;
  useEffect(() => {
    const tables = [], series = [{ label: 't (s)' }], bands = [];
    // the whole sweep's min/max behind the jobs, a grey band
    const e = envelope && envelope.channels[name];
    if (e) {
      tables.push([envelope.t, e.min, e.max]);
      series.push({ label: `sweep min (${envelope.jobs_used} jobs)`, stroke: '#b8b8b8', width: 1, spanGaps: true });
      series.push({ label: 'sweep max', stroke: '#b8b8b8', width: 1, spanGaps: true });
      bands.push({ series: [2, 1], fill: '#c8c8c855' });
    }
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
      // the time line follows the scales (zoom, resize)
      hooks: { draw: [(u) => s_place(u, tref.current)] },
    };
    const u = new uPlot(opts, data, el.current);
    // the time shown: an element over the plot, moved at every time change
    // (an animation playing moves it at every frame without redrawing the
    // series)
    const line = document.createElement('div');
    line.className = 'tline';
    u.over.appendChild(line);
    plot.current = u;
    s_place(u, t);
    const click = () => { if (u.cursor.left >= 0) setT(u.posToVal(u.cursor.left, 'x')); };
    u.over.addEventListener('click', click);
    return () => { u.over.removeEventListener('click', click); u.destroy(); plot.current = null; };
  }, [jobs, envelope, name, width]);
  useEffect(() => { if (plot.current) s_place(plot.current, t); }, [t]);
  return <div class="plot" ref={el} data-channel={name} />;
}

export function Plots({ samples, envelope = null, channels, t, setT }) {
  const jobs = useMemo(() => samples.jobs.filter((j) => j.available), [samples]);
  // the text alternative does not depend on the time: made once per data
  const rows = useMemo(() => channels.flatMap((c) => jobs.filter((j) => j.channels[c]).map((j) => {
    const lo = Math.min(...j.channels[c].min), hi = Math.max(...j.channels[c].max);
    return (
      <tr data-channel={c} data-job={j.job}>
        <td>{c}</td><td>{j.job}</td><td class="num">{j.nsample}</td>
        <td class="num" data-v={lo}>{fmtNum(lo)}</td><td class="num" data-v={hi}>{fmtNum(hi)}</td>
      </tr>
    );
  })).concat(envelope ? channels.filter((c) => envelope.channels[c]).map((c) => {
    const e = envelope.channels[c], fin = (a) => a.filter((x) => x !== null);
    const lo = Math.min(...fin(e.min)), hi = Math.max(...fin(e.max));
    return (
      <tr data-channel={c} data-job="sweep" class="envelope">
        <td>{c}</td><td>whole sweep ({envelope.jobs_used} of {envelope.jobs_done} jobs)</td><td class="num">{envelope.points} buckets</td>
        <td class="num" data-v={lo}>{fmtNum(lo)}</td><td class="num" data-v={hi}>{fmtNum(hi)}</td>
      </tr>
    );
  }) : []), [jobs, envelope, channels.join(',')]);
  const width = Math.min(900, Math.max(360, (typeof window !== 'undefined' ? window.innerWidth : 1000) - 640));
  return (
    <figure class="plots">
      {channels.map((c) => <Plot key={c} name={c} jobs={jobs} envelope={envelope} t={t} setT={setT} width={width} />)}
      <figcaption>
        <details>
          <summary>The plotted values as a table</summary>
          <table class="list small" id="plots-table">
            <thead><tr><th scope="col">Channel</th><th scope="col">Job</th><th scope="col">Samples</th><th scope="col">Min</th><th scope="col">Max</th></tr></thead>
            <tbody>{rows}</tbody>
          </table>
        </details>
      </figcaption>
    </figure>
  );
}
