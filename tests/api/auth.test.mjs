// auth.test.mjs: tokens and scopes. A daemon with --auth on loopback: no or
// bad token -> 401, too small a scope -> 403, the open endpoints and static
// files, /api/v1/tokens (admin), revocation by API and by CLI. And a daemon
// without --auth on loopback, where every request has every scope.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  call, getJson, sendJson, assertError, assertOkJson, uploadRaw, acceptedJob, junk, stopClean, parseSecret,
  fixtureStatic, sqlite,
} from '../fixtures/api/util.mjs';

process.env.ARIADNE_STATIC = fixtureStatic;
const { startDaemon, runCli, waitJob } = await import('../lib/daemon.mjs');

let d;
let open;
const tok = {};
const bearer = (s) => ({ Authorization: `Bearer ${s}` });

function createToken(db, name, scope) {
  const r = runCli(['token', 'create', '--db', db, '--name', name, '--scope', scope]);
  assert.equal(r.status, 0, `token create ${scope}: ${r.stderr}`);
  const p = parseSecret(r.stdout);
  assert.ok(p, `token create printed no secret: ${r.stdout}`);
  assert.match(p.secret, /^ari_[A-Za-z0-9_-]{20,}$/, 'secret format ari_...');
  return p.secret;
}

before(async () => {
  d = await startDaemon({ args: ['--auth'] });
  for (const s of ['read', 'write', 'admin']) tok[s] = createToken(d.db, `t-${s}`, s);
  open = await startDaemon();
});
after(async () => {
  if (d) await stopClean(d);
  if (open) await stopClean(open);
});

test('secrets are stored hashed, never in clear', () => {
  // Every column of every row (the same SQL on both backends).
  const dump = sqlite(d.db, 'SELECT * FROM tokens;');
  assert.equal(dump.split('\n').length, 3, `three tokens stored: ${dump}`);
  for (const s of Object.values(tok)) assert.ok(!dump.includes(s), 'secret found in the database');
  const secretRun = runCli(['token', 'list', '--db', d.db]);
  assert.equal(secretRun.status, 0, secretRun.stderr);
  for (const n of ['t-read', 't-write', 't-admin']) assert.ok(secretRun.stdout.includes(n), `token list lacks ${n}`);
  for (const s of Object.values(tok)) assert.ok(!secretRun.stdout.includes(s), 'token list shows a secret');
  assert.notEqual(runCli(['token', 'create', '--db', d.db, '--name', 'x', '--scope', 'root']).status, 0,
    'a bad scope is refused');
});

test('no token or a bad token: 401 unauthorized', async () => {
  const cases = [
    {}, bearer('ari_not_a_real_token_at_all_000000'), bearer(''), { Authorization: 'Bearer' },
    { Authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }, { Authorization: tok.admin },
    bearer(tok.admin + 'x'), bearer(tok.admin.slice(0, -1)),
  ];
  for (const h of cases) {
    assertError(await getJson(d.url, '/api/v1/traces', h), 401, 'unauthorized', `GET /traces ${JSON.stringify(h)}`);
  }
  assertError(await getJson(d.url, '/api/v1/jobs'), 401, 'unauthorized', 'GET /jobs');
  assertError(await getJson(d.url, '/api/v1/traces/1'), 401, 'unauthorized', 'GET /traces/1');
  assertError(await getJson(d.url, '/api/v1/tokens'), 401, 'unauthorized', 'GET /tokens');
  assertError(await uploadRaw(d.url, junk(), { filename: 'x.bin' }), 401, 'unauthorized', 'POST /traces');
  assertError(await call(d.url, '/api/v1/traces/1', { method: 'DELETE' }), 401, 'unauthorized', 'DELETE /traces/1');
});

test('no token needed: health, version, openapi, static files', async () => {
  for (const p of ['/api/v1/health', '/api/v1/version', '/api/v1/openapi.json']) {
    assertOkJson(await getJson(d.url, p), 200, `GET ${p} without token`);
  }
  for (const p of ['/', '/index.html', '/css/app.css', '/js/app.js']) {
    const r = await call(d.url, p);
    assert.equal(r.status, 200, `GET ${p} without token`);
  }
});

test('health?check=full (the whole-database check) needs the admin scope', async () => {
  assertError(await getJson(d.url, '/api/v1/health?check=full'), 401, 'unauthorized', 'no token');
  for (const s of ['read', 'write']) {
    assertError(await getJson(d.url, '/api/v1/health?check=full', bearer(tok[s])), 403, 'forbidden', `${s} token`);
  }
  const r = await getJson(d.url, '/api/v1/health?check=full', bearer(tok.admin));
  assertOkJson(r, 200, 'admin token');
  assert.equal(r.json.integrity, 'ok');
  assertOkJson(await getJson(d.url, '/api/v1/health'), 200, 'the cheap check needs no token');
});

test('read scope: GETs only', async () => {
  const h = bearer(tok.read);
  assertOkJson(await getJson(d.url, '/api/v1/traces', h), 200, 'read GET /traces');
  assertOkJson(await getJson(d.url, '/api/v1/jobs', h), 200, 'read GET /jobs');
  assertError(await getJson(d.url, '/api/v1/traces/424242', h), 404, 'not_found', 'read GET /traces/424242');
  assertError(await uploadRaw(d.url, junk(), { filename: 'x.bin', headers: h }), 403, 'forbidden', 'read POST /traces');
  assertError(await sendJson(d.url, 'PATCH', '/api/v1/traces/1', { name: 'x' }, h), 403, 'forbidden', 'read PATCH');
  assertError(await call(d.url, '/api/v1/traces/1', { method: 'DELETE', headers: h }), 403, 'forbidden', 'read DELETE');
  assertError(await getJson(d.url, '/api/v1/tokens', h), 403, 'forbidden', 'read GET /tokens');
  assertError(await sendJson(d.url, 'POST', '/api/v1/tokens', { name: 'x', scope: 'read' }, h), 403, 'forbidden', 'read POST /tokens');
});

test('write scope: uploads and edits, not tokens', async () => {
  const h = bearer(tok.write);
  assertOkJson(await getJson(d.url, '/api/v1/traces', h), 200, 'write GET /traces');
  const job = acceptedJob(await uploadRaw(d.url, junk(), { filename: 'x.bin', headers: h }), 'write POST /traces');
  const done = await waitJob(d.url, job.id, h);
  assert.equal(done.status, 'failed');
  assertError(await sendJson(d.url, 'PATCH', '/api/v1/traces/424242', { name: 'x' }, h), 404, 'not_found', 'write PATCH');
  assertError(await call(d.url, '/api/v1/traces/424242', { method: 'DELETE', headers: h }), 404, 'not_found', 'write DELETE');
  assertError(await getJson(d.url, '/api/v1/tokens', h), 403, 'forbidden', 'write GET /tokens');
  assertError(await sendJson(d.url, 'POST', '/api/v1/tokens', { name: 'x', scope: 'read' }, h), 403, 'forbidden', 'write POST /tokens');
  assertError(await call(d.url, '/api/v1/tokens/1', { method: 'DELETE', headers: h }), 403, 'forbidden', 'write DELETE /tokens/1');
});

test('admin scope: /tokens list, create, revoke', async () => {
  const h = bearer(tok.admin);
  assertOkJson(await getJson(d.url, '/api/v1/traces', h), 200, 'admin GET /traces');
  const l = await getJson(d.url, '/api/v1/tokens', h);
  assertOkJson(l, 200, 'admin GET /tokens');
  for (const s of Object.values(tok)) assert.ok(!l.text.includes(s), 'the list shows a secret');
  assert.ok(!/"(secret|hash)"/.test(l.text), 'the list has a secret or hash field');
  const byName = Object.fromEntries(l.json.tokens.map((t) => [t.name, t]));
  for (const s of ['read', 'write', 'admin']) {
    const t = byName[`t-${s}`];
    assert.ok(t, `t-${s} listed`);
    assert.equal(t.scope, s);
    assert.ok(Number.isInteger(t.id));
    assert.match(t.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(t.revoked, false);
    assert.equal(t.created_without_auth, false, 'a CLI token is trusted');
  }
  assert.ok(byName['t-read'].last_used_at, 'last_used_at set once a token was used');

  const c = await sendJson(d.url, 'POST', '/api/v1/tokens', { name: 'ci', scope: 'read' }, h);
  assertOkJson(c, 201, 'admin POST /tokens');
  assert.match(c.json.secret, /^ari_[A-Za-z0-9_-]{20,}$/);
  assert.equal(c.json.token.name, 'ci');
  assert.equal(c.json.token.scope, 'read');
  assert.equal(c.json.token.created_without_auth, false, 'created by an admin');
  assert.ok(!('secret' in c.json.token));
  const ci = bearer(c.json.secret);
  assertOkJson(await getJson(d.url, '/api/v1/traces', ci), 200, 'new token works');
  assertError(await uploadRaw(d.url, junk(), { filename: 'x.bin', headers: ci }), 403, 'forbidden', 'new read token POST');

  for (const [body, code] of [[{ name: 'x', scope: 'root' }, 'invalid_parameter'], [{ scope: 'read' }, 'invalid_parameter'],
    [{ name: '', scope: 'read' }, 'invalid_parameter'], [{ name: 5, scope: 'read' }, 'invalid_parameter'],
    ['{"name":', 'invalid_json'], ['[]', 'invalid_json']]) {
    assertError(await sendJson(d.url, 'POST', '/api/v1/tokens', body, h), 400, code, `POST /tokens ${JSON.stringify(body)}`);
  }
  assertError(await call(d.url, '/api/v1/tokens', { method: 'POST', headers: { ...h, 'Content-Type': 'text/plain' },
    body: '{"name":"x","scope":"read"}' }), 415, 'unsupported_media_type', 'POST /tokens text/plain');

  const del = await call(d.url, `/api/v1/tokens/${c.json.token.id}`, { method: 'DELETE', headers: h });
  assert.equal(del.status, 204, del.text);
  assert.equal(del.text, '');
  assertError(await getJson(d.url, '/api/v1/traces', ci), 401, 'unauthorized', 'revoked token');
  const after = await getJson(d.url, '/api/v1/tokens', h);
  assert.equal(after.json.tokens.find((t) => t.id === c.json.token.id).revoked, true);
  assertError(await call(d.url, '/api/v1/tokens/abc', { method: 'DELETE', headers: h }), 400, 'invalid_parameter', 'DELETE /tokens/abc');
  assertError(await call(d.url, '/api/v1/tokens/0', { method: 'DELETE', headers: h }), 400, 'invalid_parameter', 'DELETE /tokens/0');
  assertError(await call(d.url, '/api/v1/tokens/999999', { method: 'DELETE', headers: h }), 404, 'not_found', 'DELETE /tokens/999999');
});

test('a token revoked on the command line stops working', async () => {
  const secret = createToken(d.db, 'cli-revoke', 'write');
  assertOkJson(await getJson(d.url, '/api/v1/traces', bearer(secret)), 200, 'fresh CLI token');
  const l = await getJson(d.url, '/api/v1/tokens', bearer(tok.admin));
  const id = l.json.tokens.find((t) => t.name === 'cli-revoke').id;
  const r = runCli(['token', 'revoke', String(id), '--db', d.db]);
  assert.equal(r.status, 0, r.stderr);
  assertError(await getJson(d.url, '/api/v1/traces', bearer(secret)), 401, 'unauthorized', 'CLI-revoked token');
  assert.notEqual(runCli(['token', 'revoke', '999999', '--db', d.db]).status, 0, 'revoking an unknown id fails');
  assertOkJson(await getJson(d.url, '/api/v1/traces', bearer(tok.admin)), 200, 'other tokens still work');
});

test('without --auth on loopback, no token is needed for anything', async () => {
  assertOkJson(await getJson(open.url, '/api/v1/traces'), 200, 'GET /traces');
  assertOkJson(await getJson(open.url, '/api/v1/jobs'), 200, 'GET /jobs');
  assertOkJson(await getJson(open.url, '/api/v1/tokens'), 200, 'GET /tokens');
  acceptedJob(await uploadRaw(open.url, junk(), { filename: 'x.bin' }), 'POST /traces');
  const c = await sendJson(open.url, 'POST', '/api/v1/tokens', { name: 'o', scope: 'admin' });
  assertOkJson(c, 201, 'POST /tokens');
  assert.equal(c.json.token.created_without_auth, true, 'anyone could have made it (security.test.mjs)');
  assert.equal((await call(open.url, `/api/v1/tokens/${c.json.token.id}`, { method: 'DELETE' })).status, 204);
  // A bogus token is not looked at when auth is off.
  assertOkJson(await getJson(open.url, '/api/v1/traces', bearer('ari_bogus')), 200, 'bogus token, auth off');
});
