// jobs.test.mjs: GET /api/v1/jobs/{id} and GET /api/v1/jobs: the job
// object, polling to the end, the failure of an unsupported format, the
// success of a supported one, list order and pagination, bad ids.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, waitJob } from '../lib/daemon.mjs';
import {
  getJson, assertError, assertOkJson, uploadRaw, acceptedJob, junk, formats, smallTrace, stopClean, sqlite,
} from '../fixtures/api/util.mjs';

let d;
before(async () => { d = await startDaemon(); });
after(async () => { if (d) await stopClean(d); });

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

function checkJobShape(j) {
  assert.ok(Number.isInteger(j.id) && j.id > 0);
  assert.equal(j.kind, 'import');
  assert.ok(['queued', 'running', 'succeeded', 'failed'].includes(j.status), j.status);
  assert.equal(typeof j.progress, 'number');
  assert.ok(j.progress >= 0 && j.progress <= 1, `progress ${j.progress}`);
  assert.equal(typeof j.phase, 'string');
  assert.match(j.created_at, ISO);
  assert.ok(Array.isArray(j.trace_ids));
  // issue 15: the files the import skipped and the stored traces it repeats
  assert.ok(Array.isArray(j.skipped), `skipped ${JSON.stringify(j.skipped)}`);
  assert.ok(Array.isArray(j.duplicate_of), `duplicate_of ${JSON.stringify(j.duplicate_of)}`);
  // issue 16: the ensemble an upload with ?ensemble= made, null when none
  assert.ok('ensemble_id' in j, 'ensemble_id missing');
  assert.ok(j.ensemble_id === null || (Number.isInteger(j.ensemble_id) && j.ensemble_id > 0),
    `ensemble_id ${JSON.stringify(j.ensemble_id)}`);
  if (j.status === 'succeeded' || j.status === 'failed') assert.match(j.finished_at, ISO);
  else assert.equal(j.finished_at, null);
  if (j.status === 'failed') {
    assert.equal(typeof j.error?.code, 'string');
    assert.equal(typeof j.error?.message, 'string');
  } else assert.equal(j.error, null);
}

test('a failed import: polling ends in failed/unsupported_format, nothing stored', async () => {
  const job = acceptedJob(await uploadRaw(d.url, junk(), { filename: 'x.bin' }));
  checkJobShape(job);
  const seen = new Set();
  const deadline = Date.now() + 20000;
  let j;
  for (;;) {
    const r = await getJson(d.url, `/api/v1/jobs/${job.id}`);
    assertOkJson(r);
    j = r.json;
    checkJobShape(j);
    seen.add(j.status);
    if (j.status === 'succeeded' || j.status === 'failed') break;
    assert.ok(Date.now() < deadline, `job stuck in ${j.status}`);
    await new Promise((res) => setTimeout(res, 20));
  }
  assert.equal(j.status, 'failed');
  assert.equal(j.error.code, 'unsupported_format');
  assert.deepEqual(j.trace_ids, []);
  assert.equal(j.id, job.id);
  assert.equal((await getJson(d.url, '/api/v1/traces')).json.total, 0);
  assert.equal(sqlite(d.db, 'SELECT count(*) FROM traces; SELECT count(*) FROM trace_files;'), '0\n0');
  // A finished job stays finished.
  const again = await getJson(d.url, `/api/v1/jobs/${job.id}`);
  assert.deepEqual(again.json, j);
});

test('a successful import lists its trace ids', async (t) => {
  if (!(await formats(d.url)).includes('paje')) { t.skip('no paje reader in this build'); return; }
  const job = acceptedJob(await uploadRaw(d.url, smallTrace(), { filename: 'small.trace' }));
  const j = await waitJob(d.url, job.id);
  checkJobShape(j);
  assert.equal(j.status, 'succeeded', JSON.stringify(j));
  assert.equal(j.progress, 1);
  assert.equal(j.trace_ids.length, 1);
  const tr = await getJson(d.url, `/api/v1/traces/${j.trace_ids[0]}`);
  assertOkJson(tr);
  assert.equal(tr.json.kind, 'tasks');
});

test('GET /jobs lists the most recent first, with limit and offset', async () => {
  const created = [];
  for (let i = 0; i < 3; i++) created.push(acceptedJob(await uploadRaw(d.url, junk(64), { filename: `j${i}.bin` })).id);
  for (const id of created) await waitJob(d.url, id);
  const all = await getJson(d.url, '/api/v1/jobs?limit=1000');
  assertOkJson(all);
  assert.ok(Array.isArray(all.json.jobs), 'body.jobs is an array');
  all.json.jobs.forEach(checkJobShape);
  const ids = all.json.jobs.map((j) => j.id);
  assert.ok(ids.length >= 4);
  assert.deepEqual(ids.slice(0, 3), [...created].reverse(), 'most recent first');
  assert.deepEqual(ids, [...ids].sort((a, b) => b - a));
  const defaultList = await getJson(d.url, '/api/v1/jobs');
  assert.deepEqual(defaultList.json.jobs.map((j) => j.id), ids);
  const p1 = await getJson(d.url, '/api/v1/jobs?limit=2');
  assert.deepEqual(p1.json.jobs.map((j) => j.id), ids.slice(0, 2));
  const p2 = await getJson(d.url, '/api/v1/jobs?limit=2&offset=2');
  assert.deepEqual(p2.json.jobs.map((j) => j.id), ids.slice(2, 4));
  const past = await getJson(d.url, '/api/v1/jobs?offset=100000');
  assertOkJson(past);
  assert.deepEqual(past.json.jobs, []);
});

test('bad job requests', async () => {
  for (const qs of ['limit=0', 'limit=1001', 'limit=x', 'offset=-1', 'offset=y']) {
    assertError(await getJson(d.url, '/api/v1/jobs?' + qs), 400, 'invalid_parameter', `GET /jobs?${qs}`);
  }
  for (const id of ['abc', '0', '-1', '1.5', '2x']) {
    assertError(await getJson(d.url, `/api/v1/jobs/${id}`), 400, 'invalid_parameter', `GET /jobs/${id}`);
  }
  assertError(await getJson(d.url, '/api/v1/jobs/999999'), 404, 'not_found', 'GET /jobs/999999');
  const huge = await getJson(d.url, '/api/v1/jobs/99999999999999999999');
  assert.ok([400, 404].includes(huge.status), `GET /jobs/99999999999999999999 -> ${huge.status}`);
});
