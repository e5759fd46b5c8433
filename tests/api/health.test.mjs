// health.test.mjs: GET /api/v1/health, /version, /openapi.json, and the
// router's answers to unknown routes (404) and wrong methods (405 + Allow).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDaemon, sourceDir } from '../lib/daemon.mjs';
import { call, getJson, assertError, assertOkJson, stopClean } from '../fixtures/api/util.mjs';

let d;
before(async () => { d = await startDaemon(); });
after(async () => { if (d) await stopClean(d); });

test('GET /api/v1/health', async () => {
  const r = await getJson(d.url, '/api/v1/health');
  assertOkJson(r);
  assert.equal(r.json.status, 'ok');
  assert.equal(r.json.database, 'ok');
  const v = await getJson(d.url, '/api/v1/version');
  assert.equal(r.json.schema_version, v.json.schema_version, 'schema_version as /version has it');
  assert.equal(typeof r.json.uptime_s, 'number');
  assert.ok(r.json.uptime_s >= 0 && r.json.uptime_s < 3600, `uptime_s ${r.json.uptime_s}`);
  assert.ok(!('integrity' in r.json), 'the whole-database check runs only on request');
});

test('GET /api/v1/health?check=full: the integrity check, one result reused for a while', async () => {
  const first = await getJson(d.url, '/api/v1/health?check=full');
  assertOkJson(first);
  assert.equal(first.json.status, 'ok');
  assert.equal(first.json.database, 'ok');
  assert.equal(first.json.integrity, 'ok');
  assert.equal(typeof first.json.integrity_age_s, 'number');
  await new Promise((res) => setTimeout(res, 300));
  const again = await getJson(d.url, '/api/v1/health?check=full');
  assertOkJson(again);
  assert.equal(again.json.integrity, 'ok');
  assert.ok(again.json.integrity_age_s >= first.json.integrity_age_s + 0.25,
    `a check ${again.json.integrity_age_s} s old: not the first one reused`);
  assertOkJson(await getJson(d.url, '/api/v1/health?check=quick'));
  assertError(await getJson(d.url, '/api/v1/health?check=deep'), 400, 'invalid_parameter', 'check=deep');
});

test('GET /api/v1/version', async () => {
  const r = await getJson(d.url, '/api/v1/version');
  assertOkJson(r);
  const v = r.json;
  assert.equal(v.name, 'ariadne');
  const project = /project\(ariadne VERSION ([0-9.]+)/.exec(readFileSync(join(sourceDir, 'CMakeLists.txt'), 'utf8'));
  assert.equal(v.version, project[1], 'version is the CMake project version');
  assert.equal(v.api, 'v1');
  assert.ok(Number.isInteger(v.schema_version) && v.schema_version >= 1, `schema_version ${v.schema_version}`);
  assert.match(v.sqlite, /^3\.\d+\.\d+/);
  assert.ok(Array.isArray(v.formats), 'formats is an array');
  for (const f of v.formats) assert.match(f, /^[a-z0-9_]+$/, `format name ${f}`);
  assert.equal(new Set(v.formats).size, v.formats.length, 'formats are distinct');
});

// Every path+method of docs/api.md.
const CONTRACT = [
  ['/api/v1/health', 'get'], ['/api/v1/version', 'get'], ['/api/v1/openapi.json', 'get'],
  ['/api/v1/traces', 'get'], ['/api/v1/traces', 'post'],
  ['/api/v1/traces/{id}', 'get'], ['/api/v1/traces/{id}', 'patch'], ['/api/v1/traces/{id}', 'delete'],
  ['/api/v1/jobs', 'get'], ['/api/v1/jobs/{id}', 'get'],
  ['/api/v1/tokens', 'get'], ['/api/v1/tokens', 'post'], ['/api/v1/tokens/{id}', 'delete'],
];

test('GET /api/v1/openapi.json is an OpenAPI 3 document covering api.md', async () => {
  const r = await getJson(d.url, '/api/v1/openapi.json');
  assertOkJson(r);
  const doc = r.json;
  assert.match(String(doc.openapi), /^3\.\d+\.\d+$/);
  assert.equal(typeof doc.info?.title, 'string');
  assert.equal(typeof doc.info?.version, 'string');
  assert.equal(typeof doc.paths, 'object');
  // Paths may be written in full or relative to a server URL ending in /api/v1.
  const prefix = (doc.servers || []).some((s) => /\/api\/v1\/?$/.test(s.url)) ? '/api/v1' : '';
  const norm = (p) => (prefix + p).replace(/\{[^}]+\}/g, '{}');
  const have = new Map();
  for (const [p, item] of Object.entries(doc.paths)) have.set(norm(p), item);
  const missing = [];
  for (const [p, m] of CONTRACT) {
    const item = have.get(p.replace(/\{[^}]+\}/g, '{}'));
    if (!item || typeof item[m] !== 'object') { missing.push(`${m.toUpperCase()} ${p}`); continue; }
    assert.ok(item[m].responses && Object.keys(item[m].responses).length > 0, `${m} ${p} has responses`);
  }
  assert.deepEqual(missing, [], 'operations of api.md missing from openapi.json');
});

test('unknown routes give a 404 JSON error', async () => {
  for (const path of ['/api/v1/nope', '/api/v2/health', '/api/v1', '/api/v1/', '/api/v1/healthz',
    '/api/v1/traces/1/no-such-view', '/api/v1/jobs/1/x', '/api/nope']) {
    assertError(await getJson(d.url, path), 404, 'not_found', `GET ${path}`);
  }
  assertError(await call(d.url, '/api/v1/nope', { method: 'POST', body: '{}' }), 404, 'not_found', 'POST /api/v1/nope');
});

test('a wrong method gives 405 with an Allow header', async () => {
  const cases = [
    ['DELETE', '/api/v1/health', ['GET']],
    ['POST', '/api/v1/version', ['GET']],
    ['PUT', '/api/v1/openapi.json', ['GET']],
    ['PUT', '/api/v1/traces', ['GET', 'POST']],
    ['DELETE', '/api/v1/traces', ['GET', 'POST']],
    ['POST', '/api/v1/traces/1', ['GET', 'PATCH', 'DELETE']],
    ['PUT', '/api/v1/traces/1', ['GET', 'PATCH', 'DELETE']],
    ['POST', '/api/v1/jobs', ['GET']],
    ['DELETE', '/api/v1/jobs/1', ['GET']],
    ['PATCH', '/api/v1/tokens', ['GET', 'POST']],
    ['GET', '/api/v1/tokens/1', ['DELETE']],
  ];
  for (const [method, path, allowed] of cases) {
    const r = await call(d.url, path, { method, headers: { 'Content-Type': 'application/json' },
      body: method === 'GET' ? undefined : '{}' });
    assertError(r, 405, 'method_not_allowed', `${method} ${path}`);
    const allow = (r.headers.get('allow') || '').split(',').map((s) => s.trim().toUpperCase()).filter(Boolean);
    for (const m of allowed) assert.ok(allow.includes(m), `${method} ${path}: Allow "${allow}" lacks ${m}`);
    assert.ok(!allow.includes(method), `${method} ${path}: Allow "${allow}" lists ${method}`);
  }
});

test('responses are UTF-8 JSON and the daemon survives odd requests', async () => {
  const r = await getJson(d.url, '/api/v1/health');
  assert.match(r.headers.get('content-type'), /^application\/json/);
  // A very long URL and a query on a route without parameters must not break it.
  const long = await getJson(d.url, '/api/v1/' + 'a'.repeat(6000));
  assert.ok([404, 414, 431].includes(long.status), `long URL -> ${long.status}`);
  const q = await getJson(d.url, '/api/v1/health?x=1&&=&%ff');
  assert.equal(q.status, 200);
  assertOkJson(await getJson(d.url, '/api/v1/health'));
});
