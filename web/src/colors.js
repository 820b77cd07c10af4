// colors.js - one colour per body index, the same in 2-D and 3-D; one per job
// when several jobs are drawn together (the plots' series colours); and a
// ramp for colours driven by a channel's value (0 = blue .. 1 = red).
const PALETTE = ['#1f5fbf', '#c0392b', '#2e8b57', '#8e44ad', '#d35400', '#16a085', '#7f8c8d', '#b8860b'];
const JOBS = ['#1f5fbf', '#c0392b', '#27ae60', '#8e44ad', '#d35400', '#16a085', '#7f8c8d', '#2c3e50'];

export function bodyColor(b) { return PALETTE[((b % PALETTE.length) + PALETTE.length) % PALETTE.length]; }
export function jobColor(k) { return JOBS[((k % JOBS.length) + JOBS.length) % JOBS.length]; }

// A colour for x in [0, 1] (clamped): dark blue, blue, green, amber, red, dark red.
// (saturated throughout: the pale middle of a diverging scale vanished
// against the drawing's light background on thin lines)
const STOPS = [[49, 54, 149], [44, 123, 182], [0, 158, 115], [230, 159, 0], [215, 48, 39], [165, 0, 38]];
export function ramp(x) {
  const u = Math.min(1, Math.max(0, Number.isFinite(x) ? x : 0)) * (STOPS.length - 1);
  const i = Math.min(STOPS.length - 2, Math.floor(u)), f = u - i, a = STOPS[i], b = STOPS[i + 1];
  const c = (k) => Math.round(a[k] + f * (b[k] - a[k]));
  return `rgb(${c(0)},${c(1)},${c(2)})`;
}

// What drives a mechanism, in the drawings and the joint table's legend.
export const ACTUATOR_COLOR = { dc_motor: '#d35400', driver: '#8e44ad', rotational_spring_damper: '#a0522d', force: '#c0392b', torque: '#c0392b' };
