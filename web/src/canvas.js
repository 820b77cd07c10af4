// canvas.js - a 2-D canvas drawn at the screen's density: w x h CSS pixels
// backed by w x h x devicePixelRatio device pixels, cleared, its context
// scaled so that drawing is in CSS pixels (the charts of Compare.jsx and
// Scatter.jsx).

export function canvas2d(c, w, h) {
  const dpr = window.devicePixelRatio || 1;
  c.width = w * dpr; c.height = h * dpr; c.style.width = `${w}px`; c.style.height = `${h}px`;
  const g = c.getContext('2d');
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, w, h);
  return g;
}
