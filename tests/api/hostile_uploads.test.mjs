// hostile_uploads.test.mjs: uploads that used to kill the server must fail
// as jobs and leave it serving (issue 12). Each hwloc topology that crashed
// or leaked inside libhwloc's XML import (tests/fixtures/fuzz/hwloc/, found
// by tests/fuzz/fuzz_hwloc.c) is uploaded alone: its import job must fail
// with invalid_input and a message naming the file and line, and
// /api/v1/health must answer after each. A well-formed topology still imports.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDaemon, waitJob, sourceDir } from '../lib/daemon.mjs';
import { getJson, assertOkJson, uploadMultipart, acceptedJob, stopClean } from '../fixtures/api/util.mjs';

const crashDir = join(sourceDir, 'tests', 'fixtures', 'fuzz', 'hwloc');
const crashes = readdirSync(crashDir).filter((f) => f.endsWith('.xml')).sort();

let d;

before(async () => { d = await startDaemon(); });
after(async () => { await stopClean(d); });

async function healthy(what) {
  const h = await getJson(d.url, '/api/v1/health');
  assertOkJson(h, 200, `health after ${what}`);
}

async function uploadTopology(name, data) {
  const res = await uploadMultipart(d.url, [{ name, data }]);
  const job = acceptedJob(res, name);
  return waitJob(d.url, job.id);
}

test('the hwloc crash inputs of issue 12 are there', () => {
  assert.ok(crashes.length >= 10, `only ${crashes.length} fixtures in ${crashDir}`);
});

for (const name of crashes) {
  test(`hostile topology ${name}: the job fails cleanly, the server stays up`, async () => {
    const upload = `topology-${name}`;
    const done = await uploadTopology(upload, readFileSync(join(crashDir, name)));
    assert.equal(done.status, 'failed', JSON.stringify(done));
    assert.equal(done.error?.code, 'invalid_input', JSON.stringify(done));
    assert.match(done.error.message, new RegExp(`${upload.replace(/[.]/g, '\\.')}:\\d+: `), done.error.message);
    assert.deepEqual(done.trace_ids ?? [], []);
    await healthy(name);
  });
}

test('after all of them, a good topology still imports', async () => {
  const good = readFileSync(join(sourceDir, 'tests', 'fixtures', 'datamove', 'topology.xml'));
  const done = await uploadTopology('topology.xml', good);
  assert.equal(done.status, 'succeeded', JSON.stringify(done));
  assert.equal(done.trace_ids.length, 1);
  const topo = await getJson(d.url, `/api/v1/traces/${done.trace_ids[0]}/topology`);
  assertOkJson(topo, 200, 'topology');
  await healthy('the good topology');
});
