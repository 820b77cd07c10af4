// api.js - the gateway's JSON API (same origin, /api/v1) and the API token.
//
// Writes (pause, resume, cancel, ...) need the API token: the page asks for
// it once (askToken, shown by <TokenDialog>) and keeps it in localStorage; a
// 401 forgets it and asks again, once.  Reads need it when the gateway runs
// with --token-reads (on by default beyond loopback): every read sends the
// stored token, and a read answered 401 asks for it (one dialog for all the
// reads waiting) and is sent again once.

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

// A read with the stored token; on 401 the token is asked for (shared by
// concurrent reads) and the read sent again once.
let s_asking = null;
async function s_read(path, init) {
  for (let attempt = 0; ; attempt++) {
    const tok = getToken();
    const headers = { ...(init.headers || {}) };
    if (tok) headers.Authorization = `Bearer ${tok}`;
    const r = await fetch(path, { ...init, headers });
    if (r.status !== 401 || attempt > 0) return r;
    if (!s_asking) {
      if (tok) setToken(null);
      s_asking = askToken(tok ? 'The gateway refused this token.' : 'This gateway asks for the API token to read.')
        .then((t) => { if (t) setToken(t); return t; })
        .finally(() => { s_asking = null; });
    }
    if (!(await s_asking)) return r;
  }
}

export async function apiGet(path, signal) {
  const r = await s_read(path, { headers: { Accept: 'application/json' }, signal });
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
  const r = await s_read(path, { headers, signal, cache: 'no-store' });
  if (r.status === 304 && c) return c.data;
  if (!r.ok) throw await s_error(r);
  const data = await r.json();
  const etag = r.headers.get('ETag');
  if (etag) s_polled.set(path, { etag, data });
  return data;
}

export async function apiGetText(path, signal) {
  const r = await s_read(path, { signal });
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
