// raster.js - drawing many lines or points into pixels ourselves, for the
// sweep view's plots of 10^5 jobs.  A 2-D canvas path of 10^5 polylines
// costs seconds to rasterise in Chromium without a GPU (measured: 3.3 s of
// CanvasRenderingContext2D::FinalizeFrame for the first view of 10^5 jobs);
// counting how many lines cross each pixel (a density) in a Float32Array and
// turning the counts into one ImageData costs a few tens of milliseconds and
// shows where the lines crowd, which alpha blending of 10^5 lines does not.

// A density image of w x h pixels (drawn scaled to the canvas by paint).
export function density(w, h) { return { w, h, acc: new Float32Array(w * h) }; }

// Polylines through axes at x positions xs (density pixels): ys(a, r) is the
// height of line r on axis a (density pixels, NaN: missing).  The segments
// between two neighbouring axes are first counted per pair of pixel rows
// (10^5 lines between two axes are at most h x h distinct segments, usually
// far fewer), then each distinct segment is drawn once with its count.
export function addPolylines(d, xs, count, ys) {
  const h = d.h, cnt = new Uint32Array(h * h), ya = new Int32Array(count);
  for (let r = 0; r < count; r++) { const y = ys(0, r); ya[r] = y === y ? Math.min(h - 1, Math.max(0, Math.round(y))) : -1; }
  for (let a = 1; a < xs.length; a++) {
    cnt.fill(0);
    for (let r = 0; r < count; r++) {
      const y = ys(a, r), yb = y === y ? Math.min(h - 1, Math.max(0, Math.round(y))) : -1;
      if (ya[r] >= 0 && yb >= 0) cnt[ya[r] * h + yb]++;
      ya[r] = yb;
    }
    for (let k = 0; k < cnt.length; k++) {
      if (cnt[k]) addLine(d, xs[a - 1], Math.floor(k / h) + 0.5, xs[a], (k % h) + 0.5, cnt[k]);
    }
  }
}

// Add a line from (x0, y0) to (x1, y1) (pixels, x0 <= x1 not required):
// per column the vertical run between the line's heights at the column's two
// edges, so steep lines stay connected; weight wgt per pixel.
export function addLine(d, x0, y0, x1, y1, wgt = 1) {
  if (x1 < x0) { let t = x0; x0 = x1; x1 = t; t = y0; y0 = y1; y1 = t; }
  const { w, h, acc } = d;
  const dx = x1 - x0, slope = dx > 0 ? (y1 - y0) / dx : 0;
  let xa = Math.max(0, Math.floor(x0)), xb = Math.min(w - 1, Math.floor(x1));
  if (dx <= 0) {   // vertical
    const lo = Math.max(0, Math.floor(Math.min(y0, y1))), hi = Math.min(h - 1, Math.floor(Math.max(y0, y1)));
    if (xa >= 0 && xa < w) for (let y = lo; y <= hi; y++) acc[y * w + xa] += wgt;
    return;
  }
  for (let x = xa; x <= xb; x++) {
    const ya = y0 + slope * (Math.max(x, x0) - x0), yb = y0 + slope * (Math.min(x + 1, x1) - x0);
    let lo = Math.floor(ya < yb ? ya : yb), hi = Math.floor(ya < yb ? yb : ya);
    if (lo < 0) lo = 0;
    if (hi > h - 1) hi = h - 1;
    for (let y = lo; y <= hi; y++) acc[y * w + x] += wgt;
  }
}

// Paint the density into ctx (device pixels, at 0, 0) in colour rgb: alpha
// grows with the square root of the count relative to `full` (the count
// drawn opaque; by default a tenth of the largest), at least `min` where any
// line passes.  Drawn over what ctx holds (through a canvas of its own).
export function paint(ctx, d, rgb, { full = 0, min = 0.12, max = 0.9 } = {}) {
  const { w, h, acc } = d;
  let top = 0;
  for (let i = 0; i < acc.length; i++) if (acc[i] > top) top = acc[i];
  if (!top) return;
  const ref = full || Math.max(1, top / 10);
  const img = new ImageData(w, h), px = img.data;
  for (let i = 0, k = 0; i < acc.length; i++, k += 4) {
    const v = acc[i];
    if (!v) continue;
    px[k] = rgb[0]; px[k + 1] = rgb[1]; px[k + 2] = rgb[2];
    px[k + 3] = 255 * Math.min(max, min + (max - min) * Math.sqrt(Math.min(1, v / ref)));
  }
  const c = document.createElement('canvas');
  c.width = w; c.height = h;
  c.getContext('2d').putImageData(img, 0, 0);
  ctx.save();
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.imageSmoothingEnabled = true;
  ctx.drawImage(c, 0, 0, ctx.canvas.width, ctx.canvas.height);
  ctx.restore();
}

// Points: squares of `size` device pixels at (x, y), colour per point
// (rgb triples from colorOf(r), or one rgb), blended with alpha a into an
// ImageData of w x h, then drawn over ctx.
export function paintPoints(ctx, w, h, n, xy, size, colorOf, a) {
  const img = new ImageData(w, h), px = img.data;
  const half = size / 2;
  for (let r = 0; r < n; r++) {
    const x = xy[2 * r], y = xy[2 * r + 1];
    if (!(x === x && y === y)) continue;   // NaN
    const c = colorOf(r);
    const x0 = Math.max(0, Math.round(x - half)), x1 = Math.min(w, Math.round(x + half));
    const y0 = Math.max(0, Math.round(y - half)), y1 = Math.min(h, Math.round(y + half));
    for (let yy = y0; yy < y1; yy++) {
      for (let xx = x0, k = 4 * (yy * w + x0); xx < x1; xx++, k += 4) {
        const al = px[k + 3] / 255, na = a + al * (1 - a);
        px[k] = (c[0] * a + px[k] * al * (1 - a)) / na;
        px[k + 1] = (c[1] * a + px[k + 1] * al * (1 - a)) / na;
        px[k + 2] = (c[2] * a + px[k + 2] * al * (1 - a)) / na;
        px[k + 3] = 255 * na;
      }
    }
  }
  const c = document.createElement('canvas');
  c.width = w; c.height = h;
  c.getContext('2d').putImageData(img, 0, 0);
  ctx.save();
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.drawImage(c, 0, 0);
  ctx.restore();
}
