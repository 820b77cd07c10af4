// api.js - the gateway's JSON API (same origin, /api/v1) and the API token.
//
// Reads need no token.  Writes (pause, resume, cancel, ...) need the API
// token: the page asks for it once (askToken, shown by <TokenDialog>) and
// keeps it in localStorage; a 401 forgets it and asks again, once.

const TOKEN_KEY = 'mbsweep.token';

// details: the error's [{pointer, message}] (validation errors), else [].
export class ApiError extends Error {
  constructor(status, message, details = [], code = '') { super(message); this.status = status; this.details = details; this.code = code; }
}

async function s_error(r) {
  let msg = `${r.status} ${r.statusText}`, details = [], code = '';
  try {
    const j = await r.json();
    if (j && j.error) {
      if (j.error.message) msg = j.error.message;
      if (Array.isArray(j.error.details)) details = j.error.details;
      code = j.error.code || '';
    }
  } catch (_) { /* not JSON */ }
  return new ApiError(r.status, msg, details, code);
}

export async function apiGet(path, signal) {
  const r = await fetch(path, { headers: { Accept: 'application/json' }, signal });
  if (!r.ok) throw await s_error(r);
  return r.json();
}

// For polling: the last reply of each path is kept with its ETag and sent
// back as If-None-Match; on 304 the same object is returned (so a view that
// stores it does not even re-render).
const s_polled = new Map();
export async function apiPoll(path, signal) {
  const c = s_polled.get(path);
  const headers = { Accept: 'application/json' };
  if (c) headers['If-None-Match'] = c.etag;
  const r = await fetch(path, { headers, signal, cache: 'no-store' });
  if (r.status === 304 && c) return c.data;
  if (!r.ok) throw await s_error(r);
  const data = await r.json();
  const etag = r.headers.get('ETag');
  if (etag) s_polled.set(path, { etag, data });
  return data;
}

export async function apiGetText(path, signal) {
  const r = await fetch(path, { signal });
  if (!r.ok) throw await s_error(r);
  return r.text();
}

// ---- the token: asked by a dialog, kept in the browser -----------------------
let s_listener = null;               // the mounted TokenDialog's callback
export function onTokenRequest(fn) { s_listener = fn; return () => { if (s_listener === fn) s_listener = null; }; }
export function getToken() { try { return localStorage.getItem(TOKEN_KEY); } catch (_) { return null; } }
export function setToken(t) { try { if (t) localStorage.setItem(TOKEN_KEY, t); else localStorage.removeItem(TOKEN_KEY); } catch (_) { /* private mode */ } }

// Resolves with the token typed, or null when the dialog was dismissed.
export function askToken(reason) {
  return new Promise((resolve) => { if (s_listener) s_listener({ reason, resolve }); else resolve(null); });
}

export async function apiPost(path, body) {
  let reason = null;
  for (let attempt = 0; attempt < 2; attempt++) {
    let tok = getToken();
    if (!tok) {
      tok = await askToken(reason);
      if (!tok) throw new ApiError(401, 'no API token given');
      setToken(tok);
    }
    const headers = { Authorization: `Bearer ${tok}`, Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const r = await fetch(path, { method: 'POST', headers, body: body === undefined ? undefined : JSON.stringify(body) });
    if (r.status === 401) { setToken(null); reason = 'The gateway refused this token.'; continue; }
    if (!r.ok) throw await s_error(r);
    return r.json();
  }
  throw new ApiError(401, 'the gateway refused the API token');
}
