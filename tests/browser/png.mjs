// png.mjs - just enough PNG for the screenshot comparisons of
// screens.test.mjs: decode the 8-bit RGB / RGBA non-interlaced images that
// Chromium's screenshots are (zlib from Node, the five row filters), and
// compare two images pixel by pixel with a tolerance.
import zlib from 'node:zlib';

export function decodePng(buf) {
  if (buf.readUInt32BE(0) !== 0x89504e47) throw new Error('not a PNG');
  let off = 8, w = 0, h = 0, ctype = 0;
  const idat = [];
  while (off < buf.length) {
    const len = buf.readUInt32BE(off), type = buf.toString('latin1', off + 4, off + 8), data = buf.subarray(off + 8, off + 8 + len);
    if (type === 'IHDR') {
      w = data.readUInt32BE(0); h = data.readUInt32BE(4);
      const depth = data[8], interlace = data[12];
      ctype = data[9];
      if (depth !== 8 || (ctype !== 2 && ctype !== 6) || interlace) throw new Error(`PNG kind not handled (depth ${depth}, colour type ${ctype}, interlace ${interlace})`);
    } else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    off += 12 + len;
  }
  const bpp = ctype === 6 ? 4 : 3, stride = w * bpp, raw = zlib.inflateSync(Buffer.concat(idat));
  const px = new Uint8Array(w * h * 4), cur = new Uint8Array(stride), prev = new Uint8Array(stride);
  for (let y = 0; y < h; y++) {
    const f = raw[y * (stride + 1)], row = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? cur[i - bpp] : 0, b = prev[i], c = i >= bpp ? prev[i - bpp] : 0;
      let p;
      if (f === 0) p = 0; else if (f === 1) p = a; else if (f === 2) p = b; else if (f === 3) p = (a + b) >> 1;
      else { const q = a + b - c, pa = Math.abs(q - a), pb = Math.abs(q - b), pc = Math.abs(q - c); p = pa <= pb && pa <= pc ? a : pb <= pc ? b : c; }
      cur[i] = (row[i] + p) & 255;
    }
    for (let x = 0; x < w; x++) {
      const o = (y * w + x) * 4;
      px[o] = cur[x * bpp]; px[o + 1] = cur[x * bpp + 1]; px[o + 2] = cur[x * bpp + 2]; px[o + 3] = bpp === 4 ? cur[x * bpp + 3] : 255;
    }
    prev.set(cur);
  }
  return { w, h, px };
}

const s_dist = (p, i, q, j) => Math.max(Math.abs(p[i] - q[j]), Math.abs(p[i + 1] - q[j + 1]), Math.abs(p[i + 2] - q[j + 2]));

// Pixels whose largest channel difference exceeds `level` (0..255), as a
// share of the drawing's "ink": the pixels of either image that differ from
// the background (the first image's most common colour) by more than level.
// A drawing is mostly background, so a share of all pixels would let a moved
// body pass (a pendulum shifted by 3 px: 0.7 % of all pixels, 60 % of its
// ink).  Pixels inside one of `masks` ([x0, y0, x1, y1], pixels; where text
// is drawn, whose fonts differ between machines) are left out.  Images of
// different sizes differ entirely (1).
export function diffShare(a, b, level, masks = []) {
  if (a.w !== b.w || a.h !== b.h) return 1;
  const count = new Map();
  for (let i = 0; i < a.px.length; i += 4 * 7) { const k = (a.px[i] << 16) | (a.px[i + 1] << 8) | a.px[i + 2]; count.set(k, (count.get(k) || 0) + 1); }
  const bgk = [...count].sort((x, y) => y[1] - x[1])[0][0], bg = [bgk >> 16, (bgk >> 8) & 255, bgk & 255];
  let n = 0, ink = 0;
  for (let i = 0; i < a.px.length; i += 4) {
    const x = (i / 4) % a.w, y = Math.floor(i / 4 / a.w);
    if (masks.some((m) => x >= m[0] && x < m[2] && y >= m[1] && y < m[3])) continue;
    if (s_dist(a.px, i, bg, 0) > level || s_dist(b.px, i, bg, 0) > level) ink++;
    if (s_dist(a.px, i, b.px, i) > level) n++;
  }
  return ink ? n / ink : 0;
}
