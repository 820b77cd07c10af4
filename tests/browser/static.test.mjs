// static.test.mjs - the gateway serving the built front end, and the paged
// table API the sweep view reads (HTTP only, no browser).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { env, api, apiText, parseCsv, tableRows } from './helpers.mjs';

// GET with the path sent exactly as written (no client normalisation of "..").
function rawGet(p) {
  const u = new URL(env.base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path: p, method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (c) => { body += c; });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.setTimeout(10000, () => req.destroy(new Error('timeout')));
    req.end();
  });
}

test('index.html: HTML, not cached, CSP without inline script, hashed assets', async () => {
  const r = await rawGet('/');
  assert.equal(r.status, 200);
  assert.match(r.headers['content-type'], /^text\/html; charset=utf-8/);
  assert.equal(r.headers['cache-control'], 'no-store');
  const csp = r.headers['content-security-policy'];
  assert.ok(csp, 'CSP header');
  assert.match(csp, /script-src 'self'(;|$)/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.equal(r.headers['x-content-type-options'], 'nosniff');
  assert.doesNotMatch(r.body, /<script>(?!<\/script>)/, 'no inline script');
  const assets = [...r.body.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
  assert.ok(assets.some((a) => a.endsWith('.js')) && assets.some((a) => a.endsWith('.css')), `assets: ${assets}`);
  for (const a of assets) {
    assert.match(a, /^\/assets\/[A-Za-z0-9_-]+-[A-Za-z0-9_-]{8}\.(js|css)$/, `hashed name ${a}`);
    const x = await rawGet(a);
    assert.equal(x.status, 200, a);
    assert.equal(x.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.match(x.headers['content-type'], a.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
    assert.ok(x.body.length > 100);
  }
});

// curl's answer: headers (lower-case names) and the body's bytes, as sent.
function curl(p, ...args) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'curl-'));
  try {
    execFileSync('curl', ['-s', '-D', `${dir}/h`, '-o', `${dir}/b`, ...args, env.base + p]);
    const headers = {};
    for (const line of fs.readFileSync(`${dir}/h`, 'latin1').split('\r\n').slice(1)) {
      const k = line.indexOf(':');
      if (k > 0) headers[line.slice(0, k).toLowerCase()] = line.slice(k + 1).trim();
    }
    return { headers, body: fs.readFileSync(`${dir}/b`) };
  } finally { fs.rmSync(dir, { recursive: true, force: true }); }
}

test('static files: compressed at build time, sent as gzip when accepted, equal once decompressed', async () => {
  const index = curl('/').body.toString();
  const assets = [...index.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
  let plainBytes = 0, gzBytes = 0;
  for (const a of assets) {
    const plain = curl(a), gz = curl(a, '-H', 'Accept-Encoding: gzip');
    assert.equal(plain.headers['content-encoding'], undefined, a);
    assert.equal(gz.headers['content-encoding'], 'gzip', a);
    assert.equal(gz.headers.vary, 'Accept-Encoding', a);
    assert.equal(gz.headers['content-type'], plain.headers['content-type'], a);
    assert.equal(gz.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.ok(gz.body.length < plain.body.length, a);
    assert.ok(zlib.gunzipSync(gz.body).equals(plain.body), `${a}: decompressed differs`);
    plainBytes += plain.body.length; gzBytes += gz.body.length;
  }
  // refused codings; index.html (below 1 KB) has no compressed copy
  for (const ae of ['gzip;q=0', 'identity', 'br']) assert.equal(curl(assets[0], '-H', `Accept-Encoding: ${ae}`).headers['content-encoding'], undefined, ae);
  const i = curl('/', '-H', 'Accept-Encoding: gzip');
  assert.equal(i.headers['content-encoding'], undefined);
  assert.equal(i.headers.vary, 'Accept-Encoding');
  console.log(`# first load's assets: ${plainBytes} B, ${gzBytes} B as gzip`);
});

test('the sweep view\'s data of 10^5 jobs compressed: decompressed equal to the plain answer', async () => {
  const parts = [`/api/v1/sweeps/${env.big}/columns?after=-1&limit=50000`, `/api/v1/sweeps/${env.big}/columns?after=49999&limit=200000`];
  let plainBytes = 0, gzBytes = 0;
  for (const p of parts) {
    const plain = curl(p), gz = curl(p, '-H', 'Accept-Encoding: gzip');
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.ok(zlib.gunzipSync(gz.body).equals(plain.body), `${p}: decompressed differs`);
    plainBytes += plain.body.length; gzBytes += gz.body.length;
  }
  console.log(`# /columns of ${env.bigJobs} jobs: ${plainBytes} B, ${gzBytes} B as gzip`);
});

test('views deep-link to index.html; other names and traversal are 404', async () => {
  const index = (await rawGet('/')).body;
  for (const p of ['/sweeps', '/jobs/1', `/sweeps/${env.big}`, `/sweeps/${env.big}?sort=response.r1&desc=1`]) {
    const r = await rawGet(p);
    assert.equal(r.status, 200, p);
    assert.equal(r.body, index, p);
    assert.equal(r.headers['cache-control'], 'no-store');
  }
  for (const p of ['/nothing', '/sweeps/x.js', '/assets/nothing-12345678.js', '/../../etc/passwd',
    '/%2e%2e/%2e%2e/etc/passwd', '/assets/..%2f..%2fgateway', '/assets//etc/passwd']) {
    const r = await rawGet(p);
    assert.equal(r.status, 404, `${p}: ${r.status}`);
    assert.doesNotMatch(r.body, /root:/);
  }
});

test('table API: pages cover every design job once, in idx order', async () => {
  const first = await api(`/api/v1/sweeps/${env.big}/table?limit=20000`);
  assert.equal(first.total, env.bigJobs);
  assert.equal(first.rows.length, 20000);
  assert.equal(first.next, 19999);
  const cols = first.columns.map((c) => `${c.group}.${c.name}`);
  for (const c of ['job.job_id', 'job.idx', 'job.status', 'job.error', 'parameter.a', 'parameter.b', 'parameter.c',
    'response.r1', 'response.r2', 'metric.cpu_seconds', 'metric.steps', 'metric.tolerance_met', 'job.warning']) {
    assert.ok(cols.includes(c), `column ${c}`);
  }
  const { rows } = await tableRows(env.big);
  assert.equal(rows.length, env.bigJobs);
  rows.forEach((r, i) => { if (r['job.idx'] !== i) assert.fail(`row ${i} has idx ${r['job.idx']}`); });
  const failed = rows.filter((r) => r['job.status'] === 'failed');
  assert.equal(failed.length, Math.floor((env.bigJobs - 1) / 97) + 1);
  assert.ok(failed.every((r) => r['job.error'].startsWith('solver failed') && r['response.r1'] === null));
  const warned = rows.filter((r) => r['metric.tolerance_met'] === false);
  assert.ok(warned.length > 0 && warned.every((r) => /tolerance not met/.test(r['job.warning'])));
  const last = await api(`/api/v1/sweeps/${env.big}/table?limit=20000&after=${env.bigJobs - 2}`);
  assert.equal(last.rows.length, 1);
  assert.equal(last.next, null);
});

test('table API: the small sweep agrees with results.csv', async () => {
  const { rows } = await tableRows(env.small);
  const csv = parseCsv(await apiText(`/api/v1/sweeps/${env.small}/results.csv`));
  const head = csv[0];
  assert.equal(rows.length, csv.length - 1);
  assert.equal(rows.length, 8);
  for (let i = 0; i < rows.length; i++) {
    const c = Object.fromEntries(head.map((h, j) => [h, csv[i + 1][j]]));
    const r = rows[i];
    assert.equal(String(r['job.job_id']), c.job_id);
    assert.equal(r['job.status'], c.status);
    for (const [k, h] of [['parameter.L', 'L'], ['parameter.m', 'm'], ['response.xmin', 'response.xmin'],
      ['response.ymax', 'response.ymax'], ['metric.steps', 'steps'], ['metric.cpu_seconds', 'cpu_seconds']]) {
      assert.equal(r[k], Number(c[h]), `${k} of job ${c.job_id}`);
    }
  }
  const all = await api(`/api/v1/sweeps/${env.small}/table?metrics=all`);
  assert.ok(all.columns.some((c) => c.name === 'peak_memory_bytes' && c.group === 'metric'));
});

test('table API: bad requests', async () => {
  for (const [p, s] of [[`/api/v1/sweeps/${env.big}/table?limit=0`, 400], [`/api/v1/sweeps/${env.big}/table?limit=20001`, 400],
    [`/api/v1/sweeps/${env.big}/table?after=x`, 400], [`/api/v1/sweeps/${env.big}/table?metrics=some`, 400],
    ['/api/v1/sweeps/00000000-0000-0000-0000-000000000000/table', 404], ['/api/v1/sweeps/nope/table', 404]]) {
    const r = await fetch(env.base + p);
    assert.equal(r.status, s, p);
    const j = await r.json();
    assert.ok(j.error && j.error.code, p);
  }
});

// /columns decoded (arrays, {all}, {seq}, {dict, codes}) into rows keyed group.name.
function decodeColumns(parts) {
  const rows = [];
  for (const p of parts) {
    const keys = p.columns.map((c) => `${c.group}.${c.name}`);
    for (let i = 0; i < p.n; i++) {
      rows.push(Object.fromEntries(keys.map((k, j) => {
        const v = p.values[j];
        return [k, Array.isArray(v) ? v[i] : 'all' in v ? v.all : v.seq ? v.seq[0] + v.seq[1] * i : v.dict[v.codes[i]]];
      })));
    }
  }
  return rows;
}

test('columns API: the same jobs and values as /table, by column, in one request or in parts', async () => {
  for (const id of [env.big, env.small]) {
    const { columns, rows } = await tableRows(id);
    const one = await api(`/api/v1/sweeps/${id}/columns`);
    assert.deepEqual(one.columns.map((c) => `${c.group}.${c.name}`), columns);
    assert.equal(one.n, rows.length);
    assert.equal(one.total, rows.length);
    assert.equal(one.next, null);
    assert.equal(one.values.length, columns.length);
    assert.deepEqual(decodeColumns([one]), rows);
    // the compact forms are used where they fit
    const form = (k) => { const v = one.values[columns.indexOf(k)]; return Array.isArray(v) ? 'array' : Object.keys(v).sort().join(','); };
    assert.equal(form('job.idx'), 'seq');
    assert.equal(form('job.status'), id === env.big ? 'codes,dict' : 'all');   // the small sweep: all done
    assert.equal(form('parameter.' + (id === env.big ? 'a' : 'L')), 'array');
    if (id === env.big) assert.equal(form('metric.energy_drift'), 'all');
  }
  // in parts: the first k jobs, then the rest (what the sweep view asks for)
  const k = Math.floor(env.bigJobs / 3);
  const a = await api(`/api/v1/sweeps/${env.big}/columns?after=-1&limit=${k}`);
  const b = await api(`/api/v1/sweeps/${env.big}/columns?after=${k - 1}`);
  assert.equal(a.n, k);
  assert.equal(a.next, k - 1);
  assert.equal(b.n, env.bigJobs - k);
  assert.equal(b.next, null);
  const parts = decodeColumns([a, b]);
  assert.equal(parts.length, env.bigJobs);
  parts.forEach((r, i) => { if (r['job.idx'] !== i) assert.fail(`row ${i} has idx ${r['job.idx']}`); });
  const { rows } = await tableRows(env.big);
  assert.deepEqual(parts[k], rows[k]);
  assert.deepEqual(parts.at(-1), rows.at(-1));
  const all = await api(`/api/v1/sweeps/${env.small}/columns?metrics=all`);
  assert.ok(all.columns.some((c) => c.name === 'peak_memory_bytes' && c.group === 'metric'));
  for (const [p, st] of [[`/api/v1/sweeps/${env.big}/columns?limit=0`, 400], [`/api/v1/sweeps/${env.big}/columns?limit=200001`, 400],
    [`/api/v1/sweeps/${env.big}/columns?after=x`, 400], [`/api/v1/sweeps/${env.big}/columns?metrics=some`, 400],
    ['/api/v1/sweeps/00000000-0000-0000-0000-000000000000/columns', 404], ['/api/v1/sweeps/nope/columns', 404]]) {
    const r = await fetch(env.base + p);
    assert.equal(r.status, st, p);
    assert.ok((await r.json()).error, p);
  }
});

test('API replies carry an ETag; If-None-Match gives 304 without a body', async () => {
  const p = `/api/v1/sweeps/${env.small}`;
  const a = await fetch(env.base + p);
  const etag = a.headers.get('etag');
  assert.match(etag, /^"[0-9a-f]{16}"$/);
  const body = await a.text();
  const b = await fetch(env.base + p, { headers: { 'If-None-Match': etag } });
  assert.equal(b.status, 304);
  assert.equal(await b.text(), '');
  assert.equal(b.headers.get('etag'), etag);
  const c = await fetch(env.base + p, { headers: { 'If-None-Match': '"0000000000000000"' } });
  assert.equal(c.status, 200);
  assert.equal(await c.text(), body);
  // another resource has another tag; errors have none
  const d = await fetch(`${env.base}/api/v1/sweeps/${env.big}`);
  assert.notEqual(d.headers.get('etag'), etag);
  const e = await fetch(`${env.base}/api/v1/sweeps/00000000-0000-0000-0000-000000000000`);
  assert.equal(e.status, 404);
  assert.equal(e.headers.get('etag'), null);
});
