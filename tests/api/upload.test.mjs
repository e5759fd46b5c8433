// upload.test.mjs: POST /api/v1/traces in its three forms (raw body with
// ?filename=, multipart with one or several files, archives), bad uploads
// (400 invalid_upload) and the --max-upload limit (413, with Content-Length
// and chunked). Success paths need a reader for the input's format (listed in
// GET /api/v1/version `formats`); failure paths use random bytes that no
// reader will ever accept.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, waitJob, runCli } from '../lib/daemon.mjs';
import {
  call, getJson, assertError, assertOkJson, uploadRaw, uploadMultipart, acceptedJob, junk, formats,
  smallTrace, makeTar, makeTarGz, makeZip, rawPost, stopClean, integrityCheck,
} from '../fixtures/api/util.mjs';

let d;
let small;
let hasPaje = false;
before(async () => {
  d = await startDaemon();
  small = await startDaemon({ args: ['--max-upload', '1024'] });
  hasPaje = (await formats(d.url)).includes('paje');
});
after(async () => {
  if (d) await stopClean(d);
  if (small) await stopClean(small);
});

const traceTotal = async (base) => (await getJson(base, '/api/v1/traces')).json.total;

// Uploads, waits for the job, checks the failure is unsupported_format and
// that nothing was stored.
async function expectUnsupported(res, what) {
  const before = await traceTotal(d.url);
  const job = acceptedJob(res, what);
  const done = await waitJob(d.url, job.id);
  assert.equal(done.status, 'failed', `${what}: ${JSON.stringify(done)}`);
  assert.equal(done.error?.code, 'unsupported_format', `${what}: ${JSON.stringify(done.error)}`);
  assert.ok(typeof done.error.message === 'string' && done.error.message.length > 0);
  assert.deepEqual(done.trace_ids, []);
  assert.equal(await traceTotal(d.url), before, `${what}: no trace stored`);
  return done;
}

// Uploads, waits for the job to succeed, returns the one new trace.
async function expectTrace(res, what) {
  const job = acceptedJob(res, what);
  const done = await waitJob(d.url, job.id);
  assert.equal(done.status, 'succeeded', `${what}: ${JSON.stringify(done)}`);
  assert.equal(done.error, null);
  assert.equal(done.trace_ids.length, 1, `${what}: one trace`);
  const t = await getJson(d.url, `/api/v1/traces/${done.trace_ids[0]}`);
  assertOkJson(t, 200, `${what}: GET the new trace`);
  return t.json;
}

function checkSmallTrace(t, fileName) {
  assert.equal(t.kind, 'tasks');
  assert.equal(t.format, 'paje');
  assert.match(t.sha256, /^[0-9a-f]{64}$/);
  assert.equal(t.counts.states, 6, `counts ${JSON.stringify(t.counts)}`);
  assert.equal(typeof t.summary, 'object');
  // An archive member may be named with its archive's name in front.
  assert.ok(t.files.some((f) => f.name === fileName || f.name.endsWith('/' + fileName)),
    `files ${JSON.stringify(t.files)} lack ${fileName}`);
}

test('raw body of an unknown format: 202, then failed with unsupported_format', async () => {
  await expectUnsupported(await uploadRaw(d.url, junk(), { filename: 'x.bin' }), 'raw x.bin');
  await expectUnsupported(await uploadRaw(d.url, junk(100)), 'raw, default filename');
});

test('multipart with several files of an unknown format', async () => {
  const res = await uploadMultipart(d.url, [{ name: 'a.bin', data: junk() }, { name: 'b.bin', data: junk() },
    { name: 'c.bin', data: junk(10) }], { name: 'three junk files' });
  await expectUnsupported(res, 'multipart x3');
});

test('archives of an unknown format, and corrupt archives, store nothing', async () => {
  const files = [{ name: 'x.bin', data: junk() }];
  await expectUnsupported(await uploadRaw(d.url, makeTar(files), { filename: 'x.tar' }), 'x.tar');
  await expectUnsupported(await uploadRaw(d.url, makeTarGz(files), { filename: 'x.tgz' }), 'x.tgz');
  await expectUnsupported(await uploadRaw(d.url, makeZip(files), { filename: 'x.zip' }), 'x.zip');
  await expectUnsupported(await uploadRaw(d.url, gzipSync(junk()), { filename: 'x.bin.gz' }), 'x.bin.gz');
  for (const name of ['bad.tar.gz', 'bad.zip', 'bad.tar.zst', 'bad.trace.gz']) {
    const before = await traceTotal(d.url);
    const job = acceptedJob(await uploadRaw(d.url, junk(), { filename: name }), name);
    const done = await waitJob(d.url, job.id);
    assert.equal(done.status, 'failed', `${name}: ${JSON.stringify(done)}`);
    assert.ok(['invalid_input', 'unsupported_format', 'io_error'].includes(done.error?.code), `${name}: ${JSON.stringify(done.error)}`);
    assert.equal(await traceTotal(d.url), before);
  }
});

test('bad uploads: 400 invalid_upload', async () => {
  const before = await traceTotal(d.url);
  const fd = new FormData();
  fd.append('name', 'no file here');
  const mp = (type, body) => ({ method: 'POST', headers: { 'Content-Type': type }, body });
  const part = '--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\n\r\n';
  const cases = [
    ['empty raw body', { method: 'POST', headers: { 'Content-Type': 'application/octet-stream' }, body: new Uint8Array(0) }, '?filename=empty.trace'],
    ['POST without body', { method: 'POST' }],
    ['multipart without file', { method: 'POST', body: fd }],
    ['empty multipart', { method: 'POST', body: new FormData() }],
    ['garbage multipart', mp('multipart/form-data; boundary=XyZ', 'this is not a multipart body at all')],
    ['multipart without boundary', mp('multipart/form-data', part + 'abc\r\n--XyZ--\r\n')],
    ['multipart with an empty file only', mp('multipart/form-data; boundary=XyZ', part + '\r\n--XyZ--\r\n')],
    ['truncated multipart (no closing boundary)', mp('multipart/form-data; boundary=XyZ', part + 'abc and no closing boundary')],
  ];
  const wrong = [];
  for (const [what, opts, qs = ''] of cases) {
    const r = await call(d.url, '/api/v1/traces' + qs, opts);
    if (r.status !== 400 || r.json?.error?.code !== 'invalid_upload') wrong.push(`${what} -> ${r.status} ${r.text.slice(0, 100)}`);
    else assertError(r, 400, 'invalid_upload', what);
  }
  assert.deepEqual(wrong, [], 'these uploads must give 400 invalid_upload');
  assert.equal(await traceTotal(d.url), before);
  assertOkJson(await getJson(d.url, '/api/v1/health'), 200, 'daemon alive after bad uploads');
});

test('a Paje trace, raw and multipart, plain and compressed and archived', async (t) => {
  if (!hasPaje) { t.skip('no paje reader in this build (GET /api/v1/version formats)'); return; }
  const data = smallTrace();
  let tr = await expectTrace(await uploadRaw(d.url, data, { filename: 'small.trace', name: 'raw small' }), 'raw small.trace');
  checkSmallTrace(tr, 'small.trace');
  assert.equal(tr.name, 'raw small');
  assert.equal(tr.bytes, data.length);
  assert.equal(tr.files.find((f) => f.name === 'small.trace').bytes, data.length);
  assert.equal(tr.sha256, createHash('sha256').update(data).digest('hex'), 'sha256 of the single input file');

  tr = await expectTrace(await uploadMultipart(d.url, [{ name: 'small.trace', data }], { name: 'multi small' }), 'multipart');
  checkSmallTrace(tr, 'small.trace');
  assert.equal(tr.name, 'multi small');

  tr = await expectTrace(await uploadRaw(d.url, gzipSync(data), { filename: 'small.trace.gz' }), 'small.trace.gz');
  assert.equal(tr.format, 'paje');
  assert.equal(tr.counts.states, 6);

  for (const [fname, body] of [['b.tar', makeTar([{ name: 'small.trace', data }])],
    ['b.tar.gz', makeTarGz([{ name: 'small.trace', data }])],
    ['b.zip', makeZip([{ name: 'small.trace', data }])]]) {
    tr = await expectTrace(await uploadRaw(d.url, body, { filename: fname }), fname);
    checkSmallTrace(tr, 'small.trace');
  }
  tr = await expectTrace(await uploadMultipart(d.url, [{ name: 'b.tgz', data: makeTarGz([{ name: 'small.trace', data }]) }]),
    'multipart archive');
  checkSmallTrace(tr, 'small.trace');
  assert.equal(integrityCheck(d.db), 'ok');
});

test('a truncated Paje trace fails with invalid_input naming the file', async (t) => {
  if (!hasPaje) { t.skip('no paje reader in this build'); return; }
  const text = smallTrace().toString().replace('5 3.0 S w1 gemm', '5 3.0 S w1');
  const before = await traceTotal(d.url);
  const job = acceptedJob(await uploadRaw(d.url, text, { filename: 'broken.trace' }), 'broken.trace');
  const done = await waitJob(d.url, job.id);
  assert.equal(done.status, 'failed');
  assert.equal(done.error.code, 'invalid_input', JSON.stringify(done.error));
  assert.match(done.error.message, /broken\.trace/);
  assert.equal(await traceTotal(d.url), before);
});

test('file names with ../ or absolute paths never write outside the daemon', async () => {
  const tag = `ariadne-evil-${process.pid}-${Date.now()}`;
  const targets = [join(tmpdir(), `${tag}-raw`), join(tmpdir(), `${tag}-multi`), join(tmpdir(), `${tag}-abs`),
    join(tmpdir(), `${tag}-tar`), join(tmpdir(), `${tag}-tarabs`), join(tmpdir(), `${tag}-zip`)];
  const up = '../'.repeat(24);
  const data = hasPaje ? smallTrace() : junk();
  const jobs = [
    acceptedJob(await uploadRaw(d.url, data, { filename: up + targets[0].slice(1) }), 'raw ../'),
    acceptedJob(await uploadMultipart(d.url, [{ name: up + targets[1].slice(1), data }]), 'multipart ../'),
    acceptedJob(await uploadRaw(d.url, data, { filename: targets[2] }), 'raw absolute'),
    acceptedJob(await uploadRaw(d.url, makeTar([{ name: up + targets[3].slice(1), data }]), { filename: 'slip.tar' }), 'tar ../'),
    acceptedJob(await uploadRaw(d.url, makeTar([{ name: targets[4], data }]), { filename: 'abs.tar' }), 'tar absolute'),
    acceptedJob(await uploadRaw(d.url, makeZip([{ name: up + targets[5].slice(1), data }]), { filename: 'slip.zip' }), 'zip ../'),
  ];
  for (const j of jobs) await waitJob(d.url, j.id);
  for (const t of targets) {
    const leaked = existsSync(t);
    if (leaked) rmSync(t, { force: true });
    assert.ok(!leaked, `an upload wrote ${t}`);
  }
  assertOkJson(await getJson(d.url, '/api/v1/health'));
});

test('a generated StarPU bundle uploaded as several multipart parts', async (t) => {
  if (!(await formats(d.url)).includes('starpu')) { t.skip('no starpu reader in this build'); return; }
  const out = mkdtempSync(join(tmpdir(), 'ariadne-bundle-'));
  try {
    const g = runCli(['generate', '--out', out, '--tiles', '4', '--nodes', '1']);
    assert.equal(g.status, 0, g.stderr);
    const parts = ['paje.trace', 'tasks.rec', 'dag.dot'].map((name) => ({ name, data: readFileSync(join(out, name)) }));
    const tr = await expectTrace(await uploadMultipart(d.url, parts, { name: 'bundle' }), 'StarPU bundle');
    assert.equal(tr.name, 'bundle');
    assert.equal(tr.kind, 'tasks');
    assert.equal(tr.format, 'starpu');
    for (const p of parts) assert.ok(tr.files.some((f) => f.name === p.name && f.bytes === p.data.length), `files lack ${p.name}`);
    assert.equal(tr.bytes, parts.reduce((n, p) => n + p.data.length, 0));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('--max-upload: 413 too_large with Content-Length, before the body is read', async () => {
  // Exactly at the limit is accepted.
  acceptedJob(await uploadRaw(small.url, junk(1024), { filename: 'x.bin' }), '1024 bytes at a 1024 limit');
  assertError(await uploadRaw(small.url, junk(1025), { filename: 'x.bin' }), 413, 'too_large', '1025 bytes');
  assertError(await uploadRaw(small.url, junk(64 * 1024), { filename: 'x.bin' }), 413, 'too_large', '64 KiB');
  // The header alone decides: announce 1 GiB, send a few bytes, expect 413.
  const r = await rawPost(small.port, '/api/v1/traces?filename=x.bin', [junk(100)], { contentLength: 1 << 30 });
  assert.ok(!r.error, `announced 1 GiB: ${r.error}`);
  assert.equal(r.status, 413);
  assert.equal(JSON.parse(r.body).error.code, 'too_large');
  const boundary = 'AriadneTestBoundary';
  const multipart = Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; ` +
    'filename="x.bin"\r\nContent-Type: application/octet-stream\r\n\r\n'), junk(4096), Buffer.from(`\r\n--${boundary}--\r\n`)]);
  const m = await rawPost(small.port, '/api/v1/traces', [multipart],
    { contentLength: multipart.length, headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` } });
  assert.ok(!m.error, `multipart over the limit: ${m.error}`);
  assert.equal(m.status, 413, m.body);
  assert.equal(JSON.parse(m.body).error.code, 'too_large');
});

test('--max-upload: a streaming client (fetch + FormData, as the dashboard) reads the 413', async () => {
  // fetch() sends the headers, then the body: the server must let it read
  // the early 413 (drain or linger) rather than reset the connection.
  let m;
  try {
    m = await uploadMultipart(small.url, [{ name: 'x.bin', data: junk(64 * 1024) }]);
  } catch (e) {
    assert.fail(`fetch could not read the answer: ${e.cause?.code || e.message}`);
  }
  assertError(m, 413, 'too_large', 'multipart over the limit');
});

test('--max-upload: 413 too_large for a chunked body', async () => {
  const chunks = Array.from({ length: 16 }, () => junk(512));
  const r = await rawPost(small.port, '/api/v1/traces?filename=x.bin', chunks);
  assert.ok(!r.error, `chunked upload: connection error ${r.error}`);
  assert.equal(r.status, 413, r.body);
  assert.equal(JSON.parse(r.body).error.code, 'too_large');
  const ok = await rawPost(small.port, '/api/v1/traces?filename=x.bin', [junk(300), junk(300)]);
  assert.equal(ok.status, 202, `small chunked upload: ${ok.body}`);
  assertOkJson(await getJson(small.url, '/api/v1/health'), 200, 'alive after 413s');
  assert.equal((await getJson(small.url, '/api/v1/traces')).json.total, 0);
});
