// expr.js - the mechanism format's numbers (docs/mechanism-format.md):
// a number, "$name", or "=expression" with + - * / ^, parentheses, the
// functions sin cos tan sqrt exp log abs min max and pi.  Used to place the
// fixed points of a drawing with a job's parameter values.  Returns NaN for
// anything it cannot read.

const FN = { sin: Math.sin, cos: Math.cos, tan: Math.tan, sqrt: Math.sqrt, exp: Math.exp, log: Math.log,
  abs: Math.abs, min: Math.min, max: Math.max };

export function evalNumber(v, params) {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return NaN;
  if (v.startsWith('$')) return Object.hasOwn(params, v.slice(1)) ? Number(params[v.slice(1)]) : NaN;
  if (!v.startsWith('=')) return NaN;
  const s = v.slice(1);
  let i = 0;
  const ws = () => { while (s[i] === ' ') i++; };
  const expr = () => {
    let x = term();
    for (ws(); s[i] === '+' || s[i] === '-'; ws()) { const op = s[i++]; const y = term(); x = op === '+' ? x + y : x - y; }
    return x;
  };
  const term = () => {
    let x = unary();
    for (ws(); s[i] === '*' || s[i] === '/'; ws()) { const op = s[i++]; const y = unary(); x = op === '*' ? x * y : x / y; }
    return x;
  };
  const unary = () => { ws(); if (s[i] === '-') { i++; return -unary(); } if (s[i] === '+') { i++; return unary(); } return power(); };
  const power = () => { const b = atom(); ws(); if (s[i] === '^') { i++; return b ** unary(); } return b; };
  const atom = () => {
    ws();
    if (s[i] === '(') { i++; const x = expr(); ws(); if (s[i++] !== ')') throw new Error(')'); return x; }
    if (s[i] === '$') { i++; const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(s.slice(i)); if (!m) throw new Error('$'); i += m[0].length; if (!Object.hasOwn(params, m[0])) throw new Error(m[0]); return Number(params[m[0]]); }
    let m = /^(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?/.exec(s.slice(i));
    if (m) { i += m[0].length; return Number(m[0]); }
    m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(s.slice(i));
    if (!m) throw new Error('?');
    i += m[0].length;
    if (m[0] === 'pi') return Math.PI;
    const f = FN[m[0]];
    ws();
    if (!f || s[i++] !== '(') throw new Error(m[0]);
    const args = [expr()];
    for (ws(); s[i] === ','; ws()) { i++; args.push(expr()); }
    if (s[i++] !== ')') throw new Error(')');
    return f(...args);
  };
  try { const x = expr(); ws(); return i === s.length ? x : NaN; } catch (_) { return NaN; }
}
