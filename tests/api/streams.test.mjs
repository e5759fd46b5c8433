// streams.test.mjs: live runs, the producer's side (issue 18): create a run,
// append NDJSON, frames and chunked bodies; a bad record is a 400 naming its
// line (or frame) and stores nothing; tokens (none 401, wrong 403, a server
// token with auth on); an open run refuses the offline endpoints (409
// live_run); close (then 409 for more samples) opens the offline endpoints
// with the values sent; back-pressure (503) when the hub lags; and
// `ariadned replay` of the ROSS sample (or the fixture run when the shared
// data is absent) gives a closed trace whose /series, /overview and
// /comm/segments answers equal those of the same data imported offline.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startDaemon, sourceDir, sharedData, runCli, importCli } from '../lib/daemon.mjs';
import { call, sendJson, assertError, assertOkJson, rawPost, stopClean, parseSecret } from '../fixtures/api/util.mjs';

const sampleDir = join(process.env.ARIADNE_SHARED_DATA || sharedData, 'ross-sample');
const fixtureDir = join(sourceDir, 'tests', 'fixtures', 'metrics', 'ross');
const rossDir = existsSync(join(sampleDir, 'RbTotal.csv')) ? sampleDir : fixtureDir;

let d;
before(async () => { d = await startDaemon(); });
after(async () => { if (d) await stopClean(d); });

async function createRun(url, body = {}, headers = {}) {
  const r = await sendJson(url, 'POST', '/api/v1/streams', body, headers);
  assertOkJson(r, 201, 'create');
  assert.equal(typeof r.json.trace_id, 'number');
  assert.match(r.json.token, /^[0-9a-f]{64}$/);
  assert.equal(r.json.events, `/api/v1/streams/${r.json.trace_id}/events`);
  assert.equal(r.json.samples, `/api/v1/streams/${r.json.trace_id}/samples`);
  return r.json;
}

function post(url, run, body, { type = 'application/x-ndjson', token = run.token, header = 'x-stream-token' } = {}) {
  const headers = { 'Content-Type': type };
  if (token && header === 'bearer') headers.Authorization = `Bearer ${token}`;
  else if (token) headers['X-Stream-Token'] = token;
  return call(url, `/api/v1/streams/${run.trace_id}/samples`, { method: 'POST', headers, body });
}

const closeRun = (url, run, token = run.token) =>
  call(url, `/api/v1/streams/${run.trace_id}/close`, { method: 'POST', headers: { 'X-Stream-Token': token } });

// A ROSS record: KPs 0..3 on PE 0..1 (2 KPs per PE), RbTotal = 10 t + k.
const rec = (t, kps = [0, 1, 2, 3]) => JSON.stringify({
  LastGvt: 100 * (t + 1), RealTs: t / 2,
  KpData: kps.map((k) => ({ Peid: Math.floor(k / 2), Kpid: k % 2, KpGid: k, RbTotal: 10 * t + k,
    NetworkSend: k + 0.5, CommData: [0, 1, 2, 3].map((j) => (j === (k + 1) % 4 ? t + 1 : 0)) })),
});

function frames(records) {
  return Buffer.concat(records.map((r) => {
    const p = Buffer.from(r);
    const h = Buffer.alloc(4);
    h.writeUInt32LE(p.length);
    return Buffer.concat([h, p]);
  }));
}

test('create, append NDJSON, frames and a chunked body; list and get', async () => {
  const run = await createRun(d.url, { name: 'four KPs', kps_per_pe: 2 });
  let r = await post(d.url, run, `${rec(0)}\n${rec(1)}\n`);
  assertOkJson(r, 200, 'ndjson');
  assert.deepEqual({ ...r.json }, { accepted: 2, points: 2, n_points: 2, first_seq: 1, last_seq: 2, last_key: 200 });
  r = await post(d.url, run, frames([rec(2), rec(3)]), { type: 'application/x-ariadne-frames', header: 'bearer' });
  assertOkJson(r, 200, 'frames');
  assert.equal(r.json.points, 2);
  assert.equal(r.json.first_seq, 3);
  // chunked, split inside a record; a duplicate point (t = 3) is no new point
  const body = `${rec(4)}\n${rec(3, [0])}\n`;
  const c = await rawPost(d.port, `/api/v1/streams/${run.trace_id}/samples`,
    [body.slice(0, 17), body.slice(17, 200), body.slice(200)],
    { headers: { 'Content-Type': 'application/x-ndjson', 'X-Stream-Token': run.token } });
  assert.equal(c.status, 200, c.body);
  const cj = JSON.parse(c.body);
  assert.equal(cj.accepted, 2);
  assert.equal(cj.points, 1);
  assert.equal(cj.n_points, 5);
  assert.equal(cj.last_seq, 6);
  const one = (await call(d.url, `/api/v1/streams/${run.trace_id}`)).json;
  assert.equal(one.state, 'open');
  assert.equal(one.n_points, 5);
  assert.equal(one.n_records, 6);
  assert.equal(one.last_key, 500);
  assert.equal(one.kps_per_pe, 2);
  assert.deepEqual(one.entities, { PE: 2, KP: 4 });
  assert.deepEqual(one.metrics, ['RbTotal', 'NetworkSend']);
  const list = (await call(d.url, '/api/v1/streams')).json;
  assert.ok(list.streams.some((s) => s.trace_id === run.trace_id && s.state === 'open'));
  const tr = (await call(d.url, `/api/v1/traces/${run.trace_id}`)).json;
  assert.equal(tr.kind, 'pdes');
  assert.equal(tr.format, 'stream');
});

test('a bad record is a 400 naming its line or frame, and nothing is stored', async () => {
  const run = await createRun(d.url, { kps_per_pe: 2 });
  assertOkJson(await post(d.url, run, `${rec(0)}\n`), 200);
  let r = await post(d.url, run, `${rec(1)}\n${rec(2)}\n{"LastGvt": 400, "KpData": [{"KpGid": 1, "RbTotal": "x"}]}\n`);
  assertError(r, 400, 'invalid_input', 'bad line');
  assert.match(r.json.error.message, /line 3/);
  r = await post(d.url, run, frames([rec(1), '{"LastGvt":']), { type: 'application/x-ariadne-frames' });
  assertError(r, 400, 'invalid_input', 'bad frame');
  assert.match(r.json.error.message, /frame 2/);
  r = await post(d.url, run, `${rec(1)}\n{"LastGvt":5,"KpData":[{"Peid":1,"Kpid":0,"KpGid":0}]}\n`);
  assertError(r, 400, 'invalid_input', 'KP under two PEs');
  r = await post(d.url, run, `${rec(1)}\n`, { type: 'text/csv' });
  assertError(r, 415, 'unsupported_media_type');
  const one = (await call(d.url, `/api/v1/streams/${run.trace_id}`)).json;
  assert.equal(one.n_records, 1);
  assert.equal(one.n_points, 1);
});

test('tokens: none is 401, a wrong one 403, another run\'s 403', async () => {
  const a = await createRun(d.url), b = await createRun(d.url);
  assertError(await post(d.url, a, rec(0), { token: null }), 401, 'unauthorized');
  assertError(await post(d.url, a, rec(0), { token: 'f'.repeat(64) }), 403, 'forbidden');
  assertError(await post(d.url, a, rec(0), { token: b.token }), 403, 'forbidden');
  assertError(await post(d.url, a, rec(0), { token: b.token, header: 'bearer' }), 403, 'forbidden');
  assertError(await closeRun(d.url, a, b.token), 403, 'forbidden');
  assertError(await post(d.url, { trace_id: 999999, token: a.token }, rec(0)), 404, 'not_found');
  assert.equal((await call(d.url, `/api/v1/streams/${a.trace_id}`)).json.n_records, 0);
});

test('an open run refuses the offline endpoints; close opens them with the values sent', async () => {
  const run = await createRun(d.url, { kps_per_pe: 2 });
  const recs = [0, 1, 2, 3, 4, 5].map((t) => rec(t));
  assertOkJson(await post(d.url, run, recs.reverse().join('\n')), 200); // keys arrive in reverse
  for (const path of ['series?metric=RbTotal&format=json', 'overview?metric=RbTotal']) {
    const r = await call(d.url, `/api/v1/traces/${run.trace_id}/${path}`);
    assertError(r, 409, 'live_run', path);
    assert.match(r.json.error.message, new RegExp(`#/live/${run.trace_id}`));
  }
  const cl = await sendJson(d.url, 'POST', `/api/v1/traces/${run.trace_id}/cluster`, { k: 2 });
  assertError(cl, 409, 'live_run', 'cluster');
  const r = await closeRun(d.url, run);
  assertOkJson(r, 200, 'close');
  assert.equal(r.json.state, 'closed');
  assert.equal(r.json.n_points, 6);
  assertError(await closeRun(d.url, run), 409, 'closed');
  assertError(await post(d.url, run, rec(9)), 409, 'closed');
  const s = (await call(d.url, `/api/v1/traces/${run.trace_id}/series?metric=RbTotal&format=json`)).json;
  assert.deepEqual(s.time, [100, 200, 300, 400, 500, 600]);
  assert.deepEqual(s.entities.map((e) => e.name), ['KP 0', 'KP 1', 'KP 2', 'KP 3']);
  assert.deepEqual(s.values, [0, 1, 2, 3].map((k) => [0, 1, 2, 3, 4, 5].map((t) => 10 * t + k)));
  const o = await call(d.url, `/api/v1/traces/${run.trace_id}/overview?metric=NetworkSend&stat=mean`);
  assertOkJson(o, 200, 'overview');
  assert.equal((await call(d.url, `/api/v1/streams/${run.trace_id}`)).json.state, 'closed');
  const tr = (await call(d.url, `/api/v1/traces/${run.trace_id}`)).json;
  assert.equal(tr.summary.time_points, 6);
  assert.equal(tr.summary.has_comm, true);
});

test('back-pressure: 503 backpressure with Retry-After while the hub is behind', async (t) => {
  const run = await createRun(d.url, { kps_per_pe: 2 });
  // the hub exists and is loaded (GET /state waits for it), then 3000
  // points of 256 KPs in one request: it analyses them one by one
  const kps = Array.from({ length: 256 }, (_, k) => k);
  assertOkJson(await post(d.url, run, rec(0, kps)), 200, 'first point');
  assertOkJson(await call(d.url, `/api/v1/streams/${run.trace_id}/state`), 200, 'state');
  const big = Array.from({ length: 3000 }, (_, t) => rec(t + 1, kps).replace(/"CommData":\[[^\]]*\]/g, '"Mode":1')).join('\n');
  assertOkJson(await post(d.url, run, big), 200, 'big batch');
  const r = await post(d.url, run, rec(5000, kps));
  if (r.status === 200) {
    // the hub caught up before our second request: its backlog says so
    const one = (await call(d.url, `/api/v1/streams/${run.trace_id}`)).json;
    assert.ok(one.backlog <= 1024, JSON.stringify(one));
    t.skip('the hub analysed 3000 points before the next request');
    return;
  }
  assertError(r, 503, 'backpressure');
  assert.equal(r.headers.get('retry-after'), '1');
  assert.equal((await call(d.url, `/api/v1/streams/${run.trace_id}`)).json.n_records, 3001);
});

function strip(doc) {
  const { trace_id: _t, ...rest } = doc;
  return rest;
}

test('replay of a ROSS run equals its offline import: /series, /overview, /comm/segments', { timeout: 300000 }, async () => {
  const rep = runCli(['replay', '--rate', '0', '--batch', '7', '--to', d.url, rossDir]);
  assert.equal(rep.status, 0, rep.stderr);
  const out = JSON.parse(rep.stdout.trim().split('\n').pop());
  const live = out.trace_id;
  const off = importCli(d.db, rossDir, 'offline');
  const st = (await call(d.url, `/api/v1/streams/${live}`)).json;
  assert.equal(st.state, 'closed');
  assert.equal(st.n_points, out.n_points);
  const metrics = (await call(d.url, `/api/v1/traces/${off}`)).json.summary.metrics;
  assert.ok(metrics.length >= 3);
  for (const m of metrics) {
    for (const q of [`series?metric=${m}&format=json`, `series?metric=${m}&format=json&granularity=PE`,
      `overview?metric=${m}&stat=mean`, `overview?metric=${m}&stat=max`]) {
      const a = await call(d.url, `/api/v1/traces/${live}/${q}`), b = await call(d.url, `/api/v1/traces/${off}/${q}`);
      assert.equal(a.status, b.status, `${q}: ${a.text.slice(0, 200)}`);
      if (a.status === 200) assert.deepEqual(strip(a.json), strip(b.json), q);
    }
  }
  const seg = { level: 'KP' };
  const a = await sendJson(d.url, 'POST', `/api/v1/traces/${live}/comm/segments`, seg);
  const b = await sendJson(d.url, 'POST', `/api/v1/traces/${off}/comm/segments`, seg);
  assertOkJson(b, 200, 'offline comm');
  assertOkJson(a, 200, 'live comm');
  assert.deepEqual(strip(a.json), strip(b.json));
});

test('replay of generic CSVs (groups, duplicates) and of db:PATH#ID as frames equals the import', { timeout: 300000 }, async () => {
  const metricsDir = join(sourceDir, 'tests', 'fixtures', 'metrics');
  for (const [file, metric] of [['long.csv', 'flops'], ['long.csv', 'bytes'], ['cpu_wide.csv', 'cpu_wide']]) {
    const path = join(metricsDir, file);
    const off = importCli(d.db, path, `offline ${file}`);
    for (const source of [path, `db:${d.db}#${off}`]) {
      const rep = runCli(['replay', '--rate', '0', '--batch', '2', '--binary', '--to', d.url, source]);
      assert.equal(rep.status, 0, rep.stderr);
      const live = JSON.parse(rep.stdout.trim().split('\n').pop()).trace_id;
      for (const q of [`series?metric=${metric}&format=json`, `overview?metric=${metric}&stat=max`]) {
        const a = await call(d.url, `/api/v1/traces/${live}/${q}`), b = await call(d.url, `/api/v1/traces/${off}/${q}`);
        assertOkJson(b, 200, `${file} offline ${q}`);
        assertOkJson(a, 200, `${file} live ${q}`);
        assert.deepEqual(strip(a.json), strip(b.json), `${source}: ${q}`);
      }
      const groups = (await call(d.url, `/api/v1/traces/${live}`)).json.summary.entities;
      assert.deepEqual(groups, (await call(d.url, `/api/v1/traces/${off}`)).json.summary.entities, source);
    }
  }
});

test('with auth on: the stream token or a server write token; a read token is 403', async () => {
  const da = await startDaemon({ args: ['--auth'] });
  try {
    const w = parseSecret(runCli(['token', 'create', '--db', da.db, '--name', 'w', '--scope', 'write']).stdout).secret;
    const rd = parseSecret(runCli(['token', 'create', '--db', da.db, '--name', 'r', '--scope', 'read']).stdout).secret;
    assertError(await sendJson(da.url, 'POST', '/api/v1/streams', {}), 401, 'unauthorized');
    const run = await createRun(da.url, { kps_per_pe: 2 }, { Authorization: `Bearer ${w}` });
    assertOkJson(await post(da.url, run, rec(0)), 200, 'stream token');
    assertOkJson(await post(da.url, run, rec(1), { token: w, header: 'bearer' }), 200, 'write token');
    assertError(await post(da.url, run, rec(2), { token: rd, header: 'bearer' }), 403, 'forbidden');
    assertError(await post(da.url, run, rec(2), { token: null }), 401, 'unauthorized');
    // the replay command through a server with auth
    const rep = runCli(['replay', '--rate', '0', '--batch', '50', '--token', w, '--to', da.url, fixtureDir]);
    assert.equal(rep.status, 0, rep.stderr);
    assert.equal(JSON.parse(rep.stdout.trim().split('\n').pop()).n_points, 20);
  } finally {
    await stopClean(da);
  }
});
