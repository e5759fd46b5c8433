// crash.test.mjs: kill -9 the daemon or the command-line importer in the
// middle of an import. Afterwards the database must pass integrity_check,
// hold no row of the half-imported trace, and a restarted daemon must report
// the interrupted job as failed (never stuck in running) and keep working.
// On PostgreSQL the restarted daemon runs the job again instead, to the end
// (a dead replica's job goes back in the queue).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, openAsBlob, readdirSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, waitJob, ariadned, backendName, scratchDb } from '../lib/daemon.mjs';
import {
  getJson, assertOkJson, uploadRaw, acceptedJob, junk, formats, smallTrace, writeBigPaje, rawPost, call,
  stopClean, stopDaemon, integrityCheck, sqlite,
} from '../fixtures/api/util.mjs';

// States in the large trace: enough for an import to report progress a
// good many times (override with ARIADNE_CRASH_STATES). The kills do not race
// the import: ARIADNE_TEST_STALL_AT (server/stall_hook.h) stops it at 30 %
// of its input until the process is killed.
// On PostgreSQL a third of that: the restarted daemon imports it all again.
const STATES = Number(process.env.ARIADNE_CRASH_STATES ||
  (backendName() === 'postgresql' ? 100000 : 300000));
const STALL = { ARIADNE_TEST_STALL_AT: '0.3' };

const root = mkdtempSync(join(tmpdir(), 'ariadne-crash-'));
let paje = false;
let bigPath;
before(async () => {
  const d = await startDaemon({ dir: mkdtempSync(join(root, 'probe-')) });
  paje = (await formats(d.url)).includes('paje');
  await stopClean(d);
  if (paje) {
    bigPath = join(root, 'big.trace');
    writeBigPaje(bigPath, STATES);
  }
});
after(() => rmSync(root, { recursive: true, force: true }));

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const pg = backendName() === 'postgresql';

// The tables with a trace_id column: on PostgreSQL also each trace's own
// partitions and a standalone table that a publication left unattached.
const TRACE_TABLES = pg
  ? "SELECT DISTINCT c.table_name FROM information_schema.columns c JOIN information_schema.tables t " +
    "USING (table_schema, table_name) WHERE t.table_schema = current_schema() AND t.table_type = 'BASE TABLE' " +
    "AND c.column_name = 'trace_id';"
  : "SELECT DISTINCT m.name FROM sqlite_master m, pragma_table_info(m.name) p " +
    "WHERE m.type = 'table' AND p.name = 'trace_id';";

// No trace and no row pointing at a trace may remain.
function assertNoTraceRows(db) {
  assert.equal(integrityCheck(db), 'ok');
  assert.equal(sqlite(db, 'SELECT count(*) FROM traces;'), '0', 'the half-imported trace is absent');
  const tables = sqlite(db, TRACE_TABLES).split('\n').filter(Boolean);
  assert.ok(tables.includes('states'), `tables with trace_id: ${tables}`);
  for (const t of tables) assert.equal(sqlite(db, `SELECT count(*) FROM "${t}";`), '0', `rows left in ${t}`);
  // PostgreSQL checks its foreign keys at every commit: nothing to ask it.
  if (!pg) assert.equal(sqlite(db, 'PRAGMA foreign_key_check;'), '');
}

async function killDaemon(d) {
  const r = await stopDaemon(d, 'SIGKILL');
  assert.equal(r.signal, 'SIGKILL');
}

test('kill -9 of the daemon during an import', async (t) => {
  if (!paje) { t.skip('no paje reader: no long import to interrupt'); return; }
  const dir = mkdtempSync(join(root, 'daemon-'));
  let d = await startDaemon({ dir, env: STALL });
  const job = acceptedJob(await uploadRaw(d.url, await openAsBlob(bigPath), { filename: 'big.trace' }), 'big upload');
  const deadline = Date.now() + 60000;
  let j;
  for (;;) {
    j = (await getJson(d.url, `/api/v1/jobs/${job.id}`)).json;
    if (j?.status === 'running' && j.progress >= 0.3) break; // stalled there
    assert.ok(j?.status !== 'succeeded' && j?.status !== 'failed', `the import ended (${j?.status})`);
    assert.ok(Date.now() < deadline, `job stays ${j?.status} at ${j?.progress}`);
    await sleep(20);
  }
  await killDaemon(d);
  assertNoTraceRows(d.db);

  d = await startDaemon({ dir });
  if (pg) {
    // On PostgreSQL the job of a replica that died goes back in the queue
    // (docs/postgresql.md, "What lives where") and runs again, to the end this time.
    const again = await waitJob(d.url, job.id, {}, 300000);
    assert.equal(again.status, 'succeeded', `after restart: ${JSON.stringify(again)}`);
    assert.equal(again.trace_ids.length, 1);
    assert.equal((await getJson(d.url, '/api/v1/traces')).json.total, 1);
  } else {
    const after = await getJson(d.url, `/api/v1/jobs/${job.id}`);
    assertOkJson(after);
    assert.equal(after.json.status, 'failed', `after restart: ${JSON.stringify(after.json)}`);
    assert.equal(typeof after.json.error?.code, 'string');
    assert.ok(after.json.finished_at, 'finished_at is set');
    assert.deepEqual(after.json.trace_ids, []);
    assert.equal((await getJson(d.url, '/api/v1/traces')).json.total, 0);
  }
  // The restarted daemon still imports.
  const ok = await waitJob(d.url, acceptedJob(await uploadRaw(d.url, smallTrace(), { filename: 'small.trace' })).id);
  assert.equal(ok.status, 'succeeded', JSON.stringify(ok));
  await stopClean(d);
  assert.equal(integrityCheck(d.db), 'ok');
  assert.equal(sqlite(d.db, "SELECT count(*) FROM jobs WHERE status IN ('queued','running');"), '0');
});

test('kill -9 of the CLI importer during an import', async (t) => {
  if (!paje) { t.skip('no paje reader: no long import to interrupt'); return; }
  const dir = mkdtempSync(join(root, 'cli-'));
  const db = scratchDb(dir);
  // On PostgreSQL the staging database lies in TMPDIR (store/staging.c): make that dir.
  const env = pg ? { TMPDIR: dir } : {};
  // The killed importer cannot remove its (empty) work directory: the test
  // does, leaving alone non-empty ones that another process may be using.
  const workDirs = () => readdirSync('/tmp').filter((n) => n.startsWith('ariadne-import-'));
  const before = new Set(workDirs());
  t.after(() => {
    for (const n of workDirs()) if (!before.has(n)) try { rmdirSync(join('/tmp', n)); } catch { /* in use */ }
  });
  const child = spawn(ariadned, ['import', '--db', db, bigPath],
    { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...STALL, ...env } });
  let exited = null, stderr = '';
  const exit = new Promise((r) => child.on('exit', (code, signal) => { exited = { code, signal }; r(exited); }));
  child.stderr.on('data', (b) => { stderr += b; });
  // Wait until the importer has stopped at 30 % of its input, its staging
  // database half written.
  const deadline = Date.now() + 60000;
  while (!stderr.includes('import stalled at 0.3')) {
    assert.equal(exited, null, `the importer ended (${JSON.stringify(exited)}): ${stderr}`);
    assert.ok(Date.now() < deadline, `the importer did not reach 30 % in 60 s: ${stderr}`);
    await sleep(10);
  }
  const staging = readdirSync(dir).filter((n) => n.includes('.staging-'));
  assert.ok(staging.length > 0, `a staging database next to the database: ${readdirSync(dir)}`);
  child.kill('SIGKILL');
  assert.equal((await exit).signal, 'SIGKILL');
  assertNoTraceRows(db);

  const d = await startDaemon({ dir, db, env });
  assertOkJson(await getJson(d.url, '/api/v1/health'));
  assert.deepEqual(readdirSync(dir).filter((n) => n.includes('.staging-')), [], 'the staging file is swept');
  assert.equal((await getJson(d.url, '/api/v1/traces')).json.total, 0);
  const jobs = await getJson(d.url, '/api/v1/jobs?limit=1000');
  assertOkJson(jobs);
  for (const j of jobs.json.jobs) assert.ok(j.status !== 'running' && j.status !== 'queued', `job ${j.id} stuck ${j.status}`);
  await stopClean(d);
  assert.equal(integrityCheck(db), 'ok');
});

test('kill -9 of the daemon during an upload and right after a 202', async () => {
  const dir = mkdtempSync(join(root, 'upload-'));
  let d = await startDaemon({ dir });
  // A body announced as 64 MiB, cut after 1 MiB by the kill.
  const cut = rawPost(d.port, '/api/v1/traces?filename=x.bin', [junk(1 << 20)], { contentLength: 64 << 20 });
  await sleep(200);
  // And a complete upload whose job may still be queued or running.
  const job = acceptedJob(await uploadRaw(d.url, junk(8 << 20), { filename: 'y.bin' }), 'y.bin');
  await killDaemon(d);
  await cut;
  assertNoTraceRows(d.db);

  d = await startDaemon({ dir });
  assertOkJson(await getJson(d.url, '/api/v1/health'));
  const j = await waitJob(d.url, job.id, {}, 10000);
  assert.equal(j.status, 'failed', JSON.stringify(j));
  const jobs = await getJson(d.url, '/api/v1/jobs?limit=1000');
  for (const x of jobs.json.jobs) {
    const final = x.status === 'running' || x.status === 'queued' ? await waitJob(d.url, x.id, {}, 10000) : x;
    assert.equal(final.status, 'failed', `job ${x.id}: ${JSON.stringify(final)}`);
  }
  assert.equal((await call(d.url, '/api/v1/traces')).json.total, 0);
  await stopClean(d);
  assert.equal(integrityCheck(d.db), 'ok');
});
