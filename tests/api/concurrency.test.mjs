// concurrency.test.mjs: two daemons serving the same database file, plus a
// command-line import next to them. Every job ends, ids never collide, each
// daemon sees the other's writes, and the file passes PRAGMA integrity_check.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, waitJob, ariadned } from '../lib/daemon.mjs';
import {
  getJson, sendJson, assertOkJson, uploadRaw, acceptedJob, junk, formats, smallTrace, writeBigPaje,
  stopClean, integrityCheck, sqlite,
} from '../fixtures/api/util.mjs';

const dir = mkdtempSync(join(tmpdir(), 'ariadne-conc-'));
after(() => rmSync(dir, { recursive: true, force: true }));

// POST with retries on 503 busy (allowed by api.md while an import commits).
async function upload(base, body, filename) {
  for (let i = 0; ; i++) {
    const r = await uploadRaw(base, body, { filename });
    if (r.status !== 503 || i === 20) return r;
    await new Promise((res) => setTimeout(res, 100));
  }
}

function runCliAsync(args) {
  return new Promise((resolve) => {
    const c = spawn(ariadned, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    c.stdout.on('data', (b) => { stdout += b; });
    c.stderr.on('data', (b) => { stderr += b; });
    c.on('exit', (status) => resolve({ status, stdout, stderr }));
  });
}

test('two daemons and a CLI import on one database', async () => {
  const d1 = await startDaemon({ dir });
  const d2 = await startDaemon({ dir });
  assert.equal(d1.db, d2.db);
  const paje = (await formats(d1.url)).includes('paje');
  const big = join(dir, 'big.trace');
  if (paje) writeBigPaje(big, 150000);
  const junkFile = join(dir, 'x.bin');
  writeFileSync(junkFile, junk());

  // Start the CLI import first so that it overlaps with the uploads.
  const cliRun = runCliAsync(['import', '--db', d1.db, '--name', 'from cli', paje ? big : junkFile]);
  const posts = [];
  for (let i = 0; i < 4; i++) {
    for (const d of [d1, d2]) {
      posts.push(upload(d.url, junk(2048), `j${i}.bin`).then((r) => ({ d, r, ok: false })));
      if (paje) posts.push(upload(d.url, smallTrace(), `s${i}.trace`).then((r) => ({ d, r, ok: true })));
    }
  }
  const results = await Promise.all(posts);
  const jobs = results.map(({ d, r, ok }) => ({ d, ok, id: acceptedJob(r, 'concurrent upload').id }));
  assert.equal(new Set(jobs.map((j) => j.id)).size, jobs.length, 'job ids are unique across daemons');

  const traceIds = [];
  for (const j of jobs) {
    const done = await waitJob(j.d.url, j.id);
    if (j.ok) {
      assert.equal(done.status, 'succeeded', JSON.stringify(done));
      traceIds.push(...done.trace_ids);
    } else {
      assert.equal(done.status, 'failed');
      assert.equal(done.error.code, 'unsupported_format');
    }
    const other = j.d === d1 ? d2 : d1;
    const seen = await getJson(other.url, `/api/v1/jobs/${j.id}`);
    assertOkJson(seen, 200, 'the other daemon sees the job');
    assert.equal(seen.json.status, done.status);
  }
  const cli = await cliRun;
  if (paje) {
    assert.equal(cli.status, 0, cli.stderr);
    traceIds.push(JSON.parse(cli.stdout.trim()).id);
  } else {
    assert.notEqual(cli.status, 0, 'CLI import of junk fails');
  }
  assert.equal(new Set(traceIds).size, traceIds.length, 'trace ids are unique');
  for (const d of [d1, d2]) {
    const l = await getJson(d.url, '/api/v1/traces?limit=1000');
    assertOkJson(l);
    assert.equal(l.json.total, traceIds.length);
    assert.deepEqual(l.json.traces.map((t) => t.id).sort((a, b) => a - b), [...traceIds].sort((a, b) => a - b));
  }
  if (paje) {
    const id = traceIds[0];
    assertOkJson(await sendJson(d1.url, 'PATCH', `/api/v1/traces/${id}`, { name: 'renamed on d1' }));
    assert.equal((await getJson(d2.url, `/api/v1/traces/${id}`)).json.name, 'renamed on d1');
    const cliTrace = await getJson(d2.url, `/api/v1/traces/${traceIds[traceIds.length - 1]}`);
    assert.equal(cliTrace.json.name, 'from cli');
    assert.ok(cliTrace.json.counts.states >= 150000, `big trace counts ${JSON.stringify(cliTrace.json.counts)}`);
  }
  await stopClean(d1);
  await stopClean(d2);
  assert.equal(integrityCheck(d1.db), 'ok');
  assert.equal(sqlite(d1.db, "SELECT count(*) FROM jobs WHERE status IN ('queued','running');"), '0');
});
