// metrics.test.mjs: sampled-metrics (pdes) traces over HTTP: the fixture
// ROSS run (uploaded as files of one directory) and a tar.gz of it, the
// real ROSS sample when ../shared/data is there; GET /series (binary
// Float32 and JSON) equals the CSV cells read here, /overview equals
// max/mean/std computed here, and the errors.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDaemon, sourceDir, sharedData, importedTrace } from '../lib/daemon.mjs';
import { call, uploadMultipart, uploadRaw, makeTarGz, stopClean, assertError } from '../fixtures/api/util.mjs';
import { dirFiles, splitCsv } from '../fixtures/api/metrics.mjs';

const fixtureDir = join(sourceDir, 'tests', 'fixtures', 'metrics', 'ross');
const sampleDir = join(process.env.ARIADNE_SHARED_DATA || sharedData, 'ross-sample');
const readMatrix = (path) => {
  const lines = readFileSync(path, 'utf8').trim().split('\n').map(splitCsv);
  return { time: lines[0].map(Number), rows: lines.slice(1).map((r) => r.map(Number)) };
};

let d, fixtureId;
before(async () => {
  d = await startDaemon();
  fixtureId = await importedTrace(d.url, await uploadMultipart(d.url, dirFiles(fixtureDir, 'ross')), 'ross fixture');
});
after(async () => { if (d) await stopClean(d); });

async function series(id, qs) {
  const r = await fetch(`${d.url}/api/v1/traces/${id}/series?${qs}`);
  const buf = Buffer.from(await r.arrayBuffer());
  return { status: r.status, headers: r.headers, buf };
}

async function kpIds(id) {
  const axes = (await call(d.url, `/api/v1/traces/${id}/series?metric=RbTotal&format=axes`)).json;
  return axes.entities.map((e) => ({ id: e.id, kp: Number(e.name.slice(3)) }));
}

test('the fixture run is one pdes trace with its summary', async () => {
  const t = (await call(d.url, `/api/v1/traces/${fixtureId}`)).json;
  assert.equal(t.kind, 'pdes');
  assert.equal(t.format, 'metrics');
  assert.deepEqual(t.summary.entities, { PE: 3, KP: 12 });
  assert.equal(t.summary.time_points, 20);
  assert.equal(t.summary.kps_per_pe, 4);
  assert.equal(t.summary.has_comm, true);
  assert.deepEqual(t.summary.derived, ['RbPrim']);
  assert.ok(t.summary.domains.includes('RealTs'));
});

test('/series in binary and JSON equals the CSV cells', async () => {
  const m = readMatrix(join(fixtureDir, 'run-12kp_RbTotal.csv'));
  const t0 = m.time[3], t1 = m.time[10];
  const r = await series(fixtureId, `metric=RbTotal&t0=${t0}&t1=${t1}`);
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('content-type'), 'application/octet-stream');
  assert.equal(r.headers.get('x-shape'), '12,8');
  assert.equal(r.headers.get('x-granularity'), 'KP');
  const f = new Float32Array(r.buf.buffer, r.buf.byteOffset, r.buf.length / 4);
  const ids = await kpIds(fixtureId);
  ids.forEach(({ kp }, i) => {
    for (let j = 0; j < 8; j++) assert.equal(f[i * 8 + j], m.rows[kp][3 + j], `KP ${kp} column ${3 + j}`);
  });
  const js = (await call(d.url, `/api/v1/traces/${fixtureId}/series?metric=RbTotal&t0=${t0}&t1=${t1}&format=json`)).json;
  assert.deepEqual(js.shape, [12, 8]);
  assert.deepEqual(js.time, m.time.slice(3, 11));
  js.entities.forEach((e, i) => assert.deepEqual(js.values[i], m.rows[Number(e.name.slice(3))].slice(3, 11)));
  // PE granularity: the mean of each PE's 4 KPs
  const pe = (await call(d.url, `/api/v1/traces/${fixtureId}/series?metric=RbTotal&granularity=PE&format=json`)).json;
  assert.equal(pe.aggregation, 'mean');
  pe.entities.forEach((e, i) => {
    const p = Number(e.name.slice(3));
    for (let j = 0; j < 20; j++) {
      const mean = [0, 1, 2, 3].reduce((s, k) => s + m.rows[p * 4 + k][j], 0) / 4;
      assert.ok(Math.abs(pe.values[i][j] - mean) < 1e-12);
    }
  });
});

test('/overview max, mean and std equal a computation here', async () => {
  const m = readMatrix(join(fixtureDir, 'run-12kp_RbSec.csv'));
  for (const stat of ['max', 'mean', 'std']) {
    const o = (await call(d.url, `/api/v1/traces/${fixtureId}/overview?metric=RbSec&stat=${stat}`)).json;
    assert.deepEqual(o.time, m.time);
    m.time.forEach((_, j) => {
      const col = m.rows.map((r) => r[j]);
      const mean = col.reduce((a, b) => a + b, 0) / col.length;
      const want = stat === 'max' ? Math.max(...col) : stat === 'mean' ? mean
        : Math.sqrt(col.reduce((a, b) => a + (b - mean) ** 2, 0) / (col.length - 1));
      assert.ok(Math.abs(o.value[j] - want) < 1e-9, `${stat} at ${j}: ${o.value[j]} vs ${want}`);
    });
  }
});

test('errors: parameters 400, other kinds 409, unknown traces 404', async () => {
  const base = `/api/v1/traces/${fixtureId}`;
  assertError(await call(d.url, `${base}/series`), 400, 'invalid_parameter');
  assertError(await call(d.url, `${base}/series?metric=Nope`), 400, 'invalid_parameter');
  assertError(await call(d.url, `${base}/series?metric=RbSec&granularity=LP`), 400, 'invalid_parameter');
  assertError(await call(d.url, `${base}/series?metric=RbSec&time_domain=VirtualTs`), 400, 'invalid_parameter');
  assertError(await call(d.url, `${base}/series?metric=RbSec&t0=5&t1=2`), 400, 'invalid_parameter');
  assertError(await call(d.url, `${base}/series?metric=RbSec&entities=0`), 400, 'invalid_parameter');
  assertError(await call(d.url, `${base}/series?metric=RbSec&format=xml`), 400, 'invalid_parameter');
  assertError(await call(d.url, `${base}/overview?metric=RbSec&stat=median`), 400, 'invalid_parameter');
  assertError(await call(d.url, '/api/v1/traces/999999/series?metric=RbSec'), 404, 'not_found');
  const small = readFileSync(join(sourceDir, 'tests', 'fixtures', 'api', 'small.trace'));
  const paje = await importedTrace(d.url, await uploadRaw(d.url, small, { filename: 'small.trace' }), 'paje');
  const r = await call(d.url, `/api/v1/traces/${paje}/series?metric=RbSec`);
  assertError(r, 409, 'not_pdes');
  assert.match(r.json.error.message, /tasks trace/);
});

test('a tar.gz of the run imports the same; a bad cell fails the upload naming line and column', async () => {
  const id = await importedTrace(d.url, await uploadRaw(d.url, makeTarGz(dirFiles(fixtureDir, 'ross2')),
    { filename: 'ross2.tar.gz' }), 'tar.gz');
  const a = (await call(d.url, `/api/v1/traces/${id}/series?metric=NetworkSend&format=json`)).json;
  const b = (await call(d.url, `/api/v1/traces/${fixtureId}/series?metric=NetworkSend&format=json`)).json;
  assert.deepEqual(a.values, b.values);
  const bad = dirFiles(fixtureDir, 'bad').map((f) => f.name.endsWith('_RbSec.csv')
    ? { ...f, data: Buffer.from(f.data.toString().replace(/\n(\d+),/, '\n$1x,')) } : f);
  const r = await uploadMultipart(d.url, bad);
  let j;
  for (let i = 0; i < 200; i++) {
    j = (await call(d.url, `/api/v1/jobs/${r.json.job.id}`)).json;
    if (j.status === 'failed' || j.status === 'succeeded') break;
    await new Promise((res) => setTimeout(res, 50));
  }
  assert.equal(j.status, 'failed');
  assert.match(j.error.message, /_RbSec\.csv:2:1: not a number/);
});

test('the real ROSS sample: /series cells equal the files', async (t) => {
  if (!existsSync(sampleDir)) { t.skip(`no ${sampleDir}`); return; }
  const id = await importedTrace(d.url, await uploadMultipart(d.url, dirFiles(sampleDir, 'ross-sample')), 'sample');
  const tr = (await call(d.url, `/api/v1/traces/${id}`)).json;
  assert.deepEqual(tr.summary.entities, { PE: 16, KP: 256 });
  assert.equal(tr.summary.time_points, 99);
  const m = readMatrix(join(sampleDir, 'RbTotal.csv'));
  const r = await series(id, 'metric=RbTotal');
  assert.equal(r.headers.get('x-shape'), '256,99');
  const f = new Float32Array(r.buf.buffer, r.buf.byteOffset, r.buf.length / 4);
  const ids = await kpIds(id);
  ids.forEach(({ kp }, i) => { for (let j = 0; j < 99; j += 7) assert.equal(f[i * 99 + j], m.rows[kp][j]); });
  const v = readMatrix(join(sampleDir, 'VirtualTimeDiff.csv'));
  const js = (await call(d.url, `/api/v1/traces/${id}/series?metric=VirtualTimeDiff&format=json`)).json;
  js.entities.forEach((e, i) => assert.deepEqual(js.values[i], v.rows[Number(e.name.slice(3))]));
});
