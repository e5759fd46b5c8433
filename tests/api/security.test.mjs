// security.test.mjs: what a web page of another site can make a browser do
// to a daemon on this machine, and tokens made while auth was off.
// - Host allow-list (DNS rebinding): a loopback daemon answers only
//   localhost, 127.0.0.1, [::1] and --allowed-host names (403
//   host_not_allowed otherwise); '*' turns the check off; a daemon on a
//   non-loopback address checks only when --allowed-host is given.
// - JSON endpoints take application/json alone (415, and the body is never
//   parsed), so the "simple" bodies a form can post cross-origin are refused.
// - Writes (uploads, deletes) whose Origin is not the Host, or whose
//   Sec-Fetch-Site is cross-site, are refused with 403 cross_origin.
// - A token created through the API while auth was off is flagged, and
//   refused (401) once the daemon runs with --auth; CLI tokens are not.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, runCli } from '../lib/daemon.mjs';
import {
  call, getJson, sendJson, assertError, assertOkJson, uploadRaw, uploadMultipart, acceptedJob, junk, stopClean,
  parseSecret,
} from '../fixtures/api/util.mjs';

let d;
before(async () => { d = await startDaemon(); });
after(async () => { if (d) await stopClean(d); });

const bearer = (s) => ({ Authorization: `Bearer ${s}` });

// One request on its own connection with exactly these headers (fetch
// would set Host itself): {status, json, text}.
function send(port, { method = 'GET', path = '/api/v1/health', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { text += c; });
      res.on('end', () => {
        let json = null;
        try { json = JSON.parse(text); } catch { /* not JSON */ }
        resolve({ status: res.statusCode, headers: new Headers(res.headers), text, json });
      });
    });
    req.setTimeout(5000, () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.on('error', reject);
    req.end(body);
  });
}

// An HTTP/1.0 request without a Host header.
function sendWithoutHost(port, path) {
  return new Promise((resolve, reject) => {
    const sock = connect(port, '127.0.0.1');
    let all = '';
    sock.setTimeout(5000, () => { sock.destroy(); reject(new Error('timed out')); });
    sock.on('connect', () => sock.write(`GET ${path} HTTP/1.0\r\n\r\n`));
    sock.on('data', (c) => { all += c; });
    sock.on('error', reject);
    sock.on('end', () => resolve(Number((/^HTTP\/1\.[01] (\d{3})/.exec(all) || [])[1] || 0)));
  });
}

const withHost = (port, host, opts = {}) => send(port, { ...opts, headers: { Host: host, ...(opts.headers || {}) } });

test('a loopback daemon answers only its own host names', async () => {
  const p = d.port;
  for (const host of ['localhost', `localhost:${p}`, '127.0.0.1', `127.0.0.1:${p}`, '[::1]', `[::1]:${p}`,
    'LOCALHOST', 'localhost.', `LocalHost:${p}`]) {
    assertOkJson(await withHost(p, host), 200, `Host: ${host}`);
  }
  for (const host of ['evil.example', `evil.example:${p}`, 'localhost.evil.example', '127.0.0.2', '0.0.0.0',
    'ariadne.example.org', '[::1]x', 'localhost:abc', 'local host']) {
    const r = await withHost(p, host);
    assertError(r, 403, 'host_not_allowed', `Host: ${host}`);
    assert.match(r.json.error.message, /--allowed-host/, 'the message names the option');
  }
  // Every path, not only the API; and no write gets through.
  assertError(await withHost(p, 'evil.example', { path: '/' }), 403, 'host_not_allowed', 'GET / (dashboard)');
  assertError(await withHost(p, 'evil.example', { method: 'POST', path: '/api/v1/tokens',
    headers: { 'Content-Type': 'application/json' }, body: '{"name":"x","scope":"admin"}' }),
  403, 'host_not_allowed', 'POST /tokens');
  assert.equal((await getJson(d.url, '/api/v1/tokens')).json.tokens.length, 0, 'no token was created');
  // No Host at all: not a browser (HTTP/1.0).
  assert.equal(await sendWithoutHost(p, '/api/v1/health'), 200);
});

test('--allowed-host adds names; * accepts any', async () => {
  const named = await startDaemon({ args: ['--allowed-host', 'ariadne.example.org', '--allowed-host', 'Other.Example'] });
  const any = await startDaemon({ args: ['--allowed-host', '*'] });
  try {
    for (const host of ['ariadne.example.org', 'ariadne.example.org:443', 'other.example', 'localhost', '127.0.0.1']) {
      assertOkJson(await withHost(named.port, host), 200, `named: Host ${host}`);
    }
    assertError(await withHost(named.port, 'evil.example'), 403, 'host_not_allowed', 'named: Host evil.example');
    assertError(await withHost(named.port, 'www.ariadne.example.org'), 403, 'host_not_allowed', 'named: a subdomain');
    for (const host of ['evil.example', 'anything:1']) {
      assertOkJson(await withHost(any.port, host), 200, `*: Host ${host}`);
    }
  } finally {
    await stopClean(named);
    await stopClean(any);
  }
  const bad = runCli(['serve', '--db', join(tmpdir(), 'never.db'), '--listen', '127.0.0.1:1',
    '--allowed-host', 'not a name']);
  assert.notEqual(bad.status, 0, 'a bad --allowed-host is refused');
  assert.match(bad.stderr, /allowed-host/);
});

test('a non-loopback daemon checks Host only with --allowed-host', async () => {
  const open = await startDaemon({ host: '0.0.0.0' });
  const named = await startDaemon({ host: '0.0.0.0', args: ['--allowed-host', 'ariadne.example.org'] });
  try {
    assertOkJson(await withHost(open.port, 'evil.example'), 200, 'no check without --allowed-host');
    assertOkJson(await withHost(named.port, 'ariadne.example.org'), 200, 'the allowed name');
    assertOkJson(await withHost(named.port, `127.0.0.1:${named.port}`), 200, '127.0.0.1');
    assertError(await withHost(named.port, 'evil.example'), 403, 'host_not_allowed', 'another name');
  } finally {
    await stopClean(open);
    await stopClean(named);
  }
});

test('JSON endpoints refuse bodies of any other type', async () => {
  const body = '{"name":"x","scope":"admin"}';
  for (const type of ['text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x', 'application/jsonx', 'application/json-seq', undefined]) {
    const headers = type ? { 'Content-Type': type } : {};
    const r = await send(d.port, { method: 'POST', path: '/api/v1/tokens', headers, body });
    assertError(r, 415, 'unsupported_media_type', `POST /tokens ${type}`);
    assert.match(r.json.error.message, /application\/json/);
  }
  assertError(await send(d.port, { method: 'PATCH', path: '/api/v1/traces/424242', headers: { 'Content-Type': 'text/plain' },
    body: '{"name":"y"}' }), 415, 'unsupported_media_type', 'PATCH /traces/{id} text/plain');
  assert.equal((await getJson(d.url, '/api/v1/tokens')).json.tokens.length, 0, 'no token was created');
  for (const type of ['application/json', 'application/json; charset=utf-8', 'Application/JSON']) {
    assertOkJson(await sendJson(d.url, 'POST', '/api/v1/tokens', { name: type, scope: 'read' }, { 'Content-Type': type }),
      201, `POST /tokens ${type}`);
  }
  assertError(await sendJson(d.url, 'PATCH', '/api/v1/traces/424242', { name: 'y' }), 404, 'not_found', 'PATCH json');
});

test('cross-site writes are refused: Origin other than Host, Sec-Fetch-Site cross-site', async () => {
  const jobsBefore = (await getJson(d.url, '/api/v1/jobs')).json.total;
  const self = `http://127.0.0.1:${d.port}`;
  for (const headers of [{ Origin: 'http://evil.example' }, { Origin: 'null' }, { Origin: `http://localhost:${d.port}` },
    { Origin: 'http://127.0.0.1' }, { Origin: `http://127.0.0.1:${d.port + 1}` }, { 'Sec-Fetch-Site': 'cross-site' },
    { Origin: self, 'Sec-Fetch-Site': 'cross-site' }]) {
    const what = JSON.stringify(headers);
    const raw = await uploadRaw(d.url, junk(), { filename: 'x.bin', headers });
    assertError(raw, 403, 'cross_origin', `raw upload ${what}`);
    assertError(await uploadMultipart(d.url, [{ name: 'x.bin', data: junk() }], {}, headers), 403, 'cross_origin',
      `multipart upload ${what}`);
    assertError(await call(d.url, '/api/v1/traces/1', { method: 'DELETE', headers }), 403, 'cross_origin', `DELETE ${what}`);
  }
  assert.equal((await getJson(d.url, '/api/v1/jobs')).json.total, jobsBefore, 'no refused upload made a job');
  // The dashboard's own requests, and reads from anywhere, go through.
  acceptedJob(await uploadMultipart(d.url, [{ name: 'x.bin', data: junk() }], {}, { Origin: self }), 'same origin');
  acceptedJob(await uploadRaw(d.url, junk(), { filename: 'x.bin', headers: { Origin: self, 'Sec-Fetch-Site': 'same-origin' } }),
    'same origin, Sec-Fetch-Site');
  assertOkJson(await getJson(d.url, '/api/v1/traces', { Origin: 'http://evil.example', 'Sec-Fetch-Site': 'cross-site' }),
    200, 'a cross-site GET');
});

function cliToken(db, name, scope) {
  const r = runCli(['token', 'create', '--db', db, '--name', name, '--scope', scope]);
  assert.equal(r.status, 0, r.stderr);
  return parseSecret(r.stdout).secret;
}

test('a token created while auth was off is refused once auth is on', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ariadne-sec-'));
  try {
    const off = await startDaemon({ dir });
    const c = await sendJson(off.url, 'POST', '/api/v1/tokens', { name: 'anon', scope: 'admin' });
    assertOkJson(c, 201, 'POST /tokens without auth');
    assert.equal(c.json.token.created_without_auth, true);
    const anon = c.json.secret;
    const cli = cliToken(off.db, 'cli-admin', 'admin');
    await stopClean(off);

    const on = await startDaemon({ dir, args: ['--auth'] });
    try {
      const r = await getJson(on.url, '/api/v1/traces', bearer(anon));
      assertError(r, 401, 'unauthorized', 'the anonymous token');
      assert.match(r.json.error.message, /auth/);
      assert.match(r.json.error.message, /new token/);
      assertError(await getJson(on.url, '/api/v1/tokens', bearer(anon)), 401, 'unauthorized', 'anonymous admin token');
      const l = await getJson(on.url, '/api/v1/tokens', bearer(cli));
      assertOkJson(l, 200, 'the CLI token works');
      const byName = Object.fromEntries(l.json.tokens.map((t) => [t.name, t]));
      assert.equal(byName.anon.created_without_auth, true);
      assert.equal(byName.anon.last_used_at, null, 'a refused token is not recorded as used');
      assert.equal(byName['cli-admin'].created_without_auth, false);
      const made = await sendJson(on.url, 'POST', '/api/v1/tokens', { name: 'made-with-auth', scope: 'read' }, bearer(cli));
      assertOkJson(made, 201, 'POST /tokens with auth');
      assert.equal(made.json.token.created_without_auth, false);
      assertOkJson(await getJson(on.url, '/api/v1/traces', bearer(made.json.secret)), 200, 'a token made with auth works');
    } finally {
      await stopClean(on);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
