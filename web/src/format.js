// format.js - numbers, dates and durations for display.

export function fmtNum(v) {
  if (v === null || v === undefined || Number.isNaN(v)) return '';
  if (typeof v !== 'number') return String(v);
  if (Number.isInteger(v) && Math.abs(v) < 1e15) return String(v);
  const a = Math.abs(v);
  if (a !== 0 && (a < 1e-4 || a >= 1e6)) return v.toExponential(4);
  return String(Number(v.toPrecision(6)));
}

export function fmtDate(s) {
  if (!s) return '';
  const d = new Date(s);
  if (Number.isNaN(d.getTime())) return '';
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

// "in 3 min" from an ISO time (the ETA), '' when absent or past.
export function fmtEta(s, now = Date.now()) {
  if (!s) return '';
  const t = (new Date(s).getTime() - now) / 1000;
  if (!(t > 0)) return 'soon';
  if (t < 90) return `${Math.round(t)} s`;
  if (t < 5400) return `${Math.round(t / 60)} min`;
  return `${(t / 3600).toFixed(1)} h`;
}
