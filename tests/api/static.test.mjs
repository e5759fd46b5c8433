// static.test.mjs: the dashboard's static files (served from --static, here
// the stand-in dashboard in tests/fixtures/api/static): MIME types, 404s,
// and path traversal attempts, sent byte for byte over a raw socket.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, rawGet, fixtureStatic, fixturesDir, stopClean, assertOkJson, getJson } from '../fixtures/api/util.mjs';

process.env.ARIADNE_STATIC = fixtureStatic;
const { startDaemon } = await import('../lib/daemon.mjs');

let d;
before(async () => { d = await startDaemon(); });
after(async () => { if (d) await stopClean(d); });

const file = (p) => readFileSync(join(fixtureStatic, p), 'utf8');

test('/ and /index.html serve index.html as text/html', async () => {
  for (const p of ['/', '/index.html']) {
    const r = await call(d.url, p);
    assert.equal(r.status, 200, p);
    assert.match(r.headers.get('content-type') || '', /^text\/html\b/, p);
    assert.equal(r.text, file('index.html'), p);
  }
});

test('css and js have their MIME types', async () => {
  const css = await call(d.url, '/css/app.css');
  assert.equal(css.status, 200);
  assert.match(css.headers.get('content-type') || '', /^text\/css\b/);
  assert.equal(css.text, file('css/app.css'));
  const js = await call(d.url, '/js/app.js');
  assert.equal(js.status, 200);
  assert.match(js.headers.get('content-type') || '', /^(text|application)\/(javascript|ecmascript|x-javascript)\b/);
  assert.equal(js.text, file('js/app.js'));
  const q = await call(d.url, '/js/app.js?v=123');
  assert.equal(q.status, 200, 'a query string does not change the file');
  assert.equal(q.text, file('js/app.js'));
});

test('missing static files are 404', async () => {
  for (const p of ['/nope.html', '/css/nope.css', '/index.html/x', '/js/app.js/']) {
    const r = await call(d.url, p);
    assert.equal(r.status, 404, `GET ${p} -> ${r.status}`);
  }
  for (const p of ['/js/', '/css']) {
    const r = await call(d.url, p, { redirect: 'manual' });
    assert.ok(r.status !== 200 || r.text === file('index.html'), `GET ${p}: a directory listing?`);
    assert.ok(r.status < 500, `GET ${p} -> ${r.status}`);
  }
});

// Outside files that a traversal could reach: a fixture next to static/, the
// repository's CMakeLists.txt (static/ is <repo>/tests/fixtures/api/static)
// and /etc/passwd.
const secrets = [readFileSync(join(fixturesDir, 'small.trace'), 'utf8').slice(0, 60), 'cmake_minimum_required', 'root:x:0:0'];
const TRAVERSALS = [
  '/../small.trace', '/%2e%2e/small.trace', '/%2E%2E/small.trace', '/.%2e/small.trace', '/..%2fsmall.trace',
  '/..%2Fsmall.trace', '/css/../../small.trace', '/css/%2e%2e/%2e%2e/small.trace', '/css/..%2f..%2fsmall.trace',
  '/..\\small.trace', '/css/..\\..\\small.trace', '/%2e%2e%5csmall.trace',
  '/../../../../CMakeLists.txt', '/%2e%2e/%2e%2e/%2e%2e/%2e%2e/CMakeLists.txt', '/../CMakeLists.txt', '/%2e%2e/CMakeLists.txt',
  '/static/../../etc/passwd', '/../../../../../../../../etc/passwd', '/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
  '//etc/passwd', '/%2fetc%2fpasswd', '/etc/passwd', '/css/%00/../../small.trace', '/index.html%00.css', '/css/app.css%00', '/%00',
  '/%252e%252e/small.trace', '/....//small.trace', '/.../small.trace',
];

test('path traversal never serves a file outside the static directory', async () => {
  const wrong = [];
  for (const p of TRAVERSALS) {
    const r = await rawGet(d.port, p);
    for (const s of secrets) assert.ok(!r.body.includes(s), `GET ${p} leaked ${s}`);
    if (![400, 403, 404].includes(r.status)) wrong.push(`GET ${p} -> ${r.status}`);
  }
  assert.deepEqual(wrong, [], 'these paths name no file of the static directory');
  // Absolute-form request target.
  const abs = await rawGet(d.port, `http://127.0.0.1:${d.port}/../small.trace`);
  for (const s of secrets) assert.ok(!abs.body.includes(s), 'absolute-form request leaked a file');
  assertOkJson(await getJson(d.url, '/api/v1/health'), 200, 'alive after traversal attempts');
});

test('the API prefix is not served from the static directory', async () => {
  const r = await rawGet(d.port, '/api/v1/../../index.html');
  assert.ok(r.status === 404 || r.status === 400 || (r.status === 200 && r.body === file('index.html')),
    `GET /api/v1/../../index.html -> ${r.status}`);
  const api = await rawGet(d.port, '/api/v1/%2e%2e/%2e%2e/index.html');
  assert.ok([400, 404].includes(api.status) || api.body === file('index.html'), `-> ${api.status}`);
});
