// stats.js - statistics over the selected rows of a sweep's table:
// Pearson correlations and main effects (the mean of a column at each level
// of a parameter).  Missing values (NaN) are left out pair by pair.

export function pearson(xs, ys, rows) {
  let n = 0, sx = 0, sy = 0;
  for (let r = 0; r < rows.length; r++) {
    const i = rows[r], x = xs[i], y = ys[i];
    if (Number.isNaN(x) || Number.isNaN(y)) continue;
    n++; sx += x; sy += y;
  }
  if (n < 3) return { n, r: NaN };
  const mx = sx / n, my = sy / n;
  let sxx = 0, syy = 0, sxy = 0;
  for (let r = 0; r < rows.length; r++) {
    const i = rows[r], x = xs[i], y = ys[i];
    if (Number.isNaN(x) || Number.isNaN(y)) continue;
    sxx += (x - mx) ** 2; syy += (y - my) ** 2; sxy += (x - mx) * (y - my);
  }
  return { n, r: sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : NaN };
}

// Levels of a column (sorted) if it has at most max distinct values, else null.
export function levels(xs, rows, max = 12) {
  const set = new Set();
  for (let r = 0; r < rows.length; r++) {
    const x = xs[rows[r]];
    if (Number.isNaN(x)) continue;
    set.add(x);
    if (set.size > max) return null;
  }
  return [...set].sort((a, b) => a - b);
}

// Mean of ys at each level of xs: [{level, n, mean}].
export function mainEffect(xs, ys, rows, lv) {
  const idx = new Map(lv.map((v, k) => [v, k]));
  const n = new Float64Array(lv.length), s = new Float64Array(lv.length);
  for (let r = 0; r < rows.length; r++) {
    const i = rows[r], k = idx.get(xs[i]), y = ys[i];
    if (k === undefined || Number.isNaN(y)) continue;
    n[k]++; s[k] += y;
  }
  return lv.map((v, k) => ({ level: v, n: n[k], mean: n[k] ? s[k] / n[k] : NaN }));
}
