// replicas.test.mjs: issue 20's stateless replicas. Two `ariadned serve` on
// one PostgreSQL database, sharing one --spool directory, with the import
// job queue in the database (store/job_queue.h, server/jobs.c):
// - an upload through one is listed and analysed through the other, and its
//   job is seen through both;
// - 20 concurrent uploads, 10 through each, end with 20 traces, one per job,
//   none imported twice, and their spool directories removed;
// - SIGKILL of the replica that runs an import (stalled by
//   ARIADNE_TEST_STALL_AT, server/stall_hook.h) leaves no partial trace, and
//   the other replica takes the job over and finishes it;
// - SIGTERM of that replica puts the job back in the queue (not failed), and
//   the other replica finishes it;
// - a live run that `ariadned replay` sends to one replica is watched through
//   the other (server/live_hub.c follows the database): its watcher gets
//   every point once, in order, a control posted to the first, then the close.
// PostgreSQL only (CTest runs it as api_pg.replicas); on SQLite it skips.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, openAsBlob } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ariadned, startDaemon, backendName, runCli, waitJob } from '../lib/daemon.mjs';
import { Watcher, firstStream, until } from '../lib/sse.mjs';
import {
  getJson, assertOkJson, uploadRaw, acceptedJob, smallTrace, writeBigPaje, stopClean, stopDaemon, sqlite,
  formats, sendJson,
} from '../fixtures/api/util.mjs';

const onPg = backendName() === 'postgresql';
const SKIP = onPg ? false : 'replicas share a PostgreSQL database: runs as api_pg.replicas (ARIADNE_TEST_PG)';
// States of the trace whose import is killed: enough to reach 30 % after
// a few progress reports (override with ARIADNE_CRASH_STATES, as crash.test.mjs).
const STATES = Number(process.env.ARIADNE_CRASH_STATES || 300000);
const STALL = { ARIADNE_TEST_STALL_AT: '0.3' };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const root = mkdtempSync(join(tmpdir(), 'ariadne-replicas-'));
after(() => rmSync(root, { recursive: true, force: true }));

// Two daemons on one database (one dir: one database, daemon.mjs) with one
// spool directory; `env1` goes to the first only.
async function startPair(name, env1 = {}) {
  const dir = mkdtempSync(join(root, `${name}-`));
  const spool = join(dir, 'spool');
  mkdirSync(spool);
  const args = ['--spool', spool];
  const d1 = await startDaemon({ dir, args, env: env1 });
  const d2 = await startDaemon({ dir, args });
  assert.equal(d1.db, d2.db, 'both replicas on one database');
  return { dir, spool, d1, d2 };
}

async function stopPair({ dir, d1, d2 }) {
  for (const d of [d2, d1]) if (d && d.child.exitCode === null && d.child.signalCode === null) await stopClean(d);
  rmSync(dir, { recursive: true, force: true });
}

// The spool directories of queued jobs go once their job ends (the runner
// removes them right after recording the outcome: wait a little).
async function assertSpoolEmpty(spool) {
  const deadline = Date.now() + 10000;
  let left;
  while ((left = readdirSync(spool)).length > 0 && Date.now() < deadline) await sleep(50);
  assert.deepEqual(left, [], `left in the shared spool ${spool}`);
}

// Rows of any trace other than `keep` in the tables that have a trace_id.
function strayRows(db, keep) {
  const tables = sqlite(db, "SELECT table_name FROM information_schema.columns WHERE column_name = 'trace_id'" +
    " AND table_schema = current_schema() ORDER BY 1").split('\n').filter(Boolean);
  const stray = [];
  for (const t of tables) {
    const n = Number(sqlite(db, `SELECT count(*) FROM "${t}" WHERE trace_id IS DISTINCT FROM ${Number(keep)}`));
    if (n) stray.push(`${t}: ${n}`);
  }
  return stray;
}

test('an upload through one replica is listed and analysed through the other', { skip: SKIP }, async () => {
  const pair = await startPair('one');
  const { d1, d2 } = pair;
  try {
    const job = acceptedJob(await uploadRaw(d1.url, smallTrace(), { filename: 'small.trace', name: 'replica-one' }),
      'upload through the first replica');
    const done = await waitJob(d2.url, job.id); // polled through the other replica
    assert.equal(done.status, 'succeeded', JSON.stringify(done));
    assert.equal(done.trace_ids.length, 1, JSON.stringify(done));
    const id = done.trace_ids[0];
    const seen1 = await getJson(d1.url, `/api/v1/jobs/${job.id}`);
    assertOkJson(seen1, 200, 'the job through the first replica');
    assert.equal(seen1.json.status, 'succeeded', seen1.text);
    assert.equal(seen1.json.progress, 1, seen1.text);
    const list = await getJson(d2.url, '/api/v1/traces');
    assertOkJson(list, 200, 'GET /api/v1/traces through the second replica');
    assert.deepEqual(list.json.traces.map((t) => [t.id, t.name]), [[id, 'replica-one']], list.text);
    for (const path of [`/api/v1/traces/${id}`, `/api/v1/traces/${id}/states?width=200`, `/api/v1/traces/${id}/aggregation`]) {
      const a = await getJson(d1.url, path), b = await getJson(d2.url, path);
      assertOkJson(a, 200, `${path} through the first replica`);
      assertOkJson(b, 200, `${path} through the second replica`);
      assert.deepEqual(b.json, a.json, `${path}: both replicas answer the same`);
    }
    await assertSpoolEmpty(pair.spool);
  } finally {
    await stopPair(pair);
  }
});

test('20 concurrent uploads through two replicas end with 20 traces', { skip: SKIP }, async () => {
  const pair = await startPair('twenty');
  const { d1, d2 } = pair;
  try {
    const names = Array.from({ length: 20 }, (_, i) => `concurrent-${i}`);
    const answers = await Promise.all(names.map((name, i) =>
      uploadRaw(i % 2 ? d2.url : d1.url, smallTrace(), { filename: 'small.trace', name })));
    const jobs = answers.map((a, i) => acceptedJob(a, `upload ${names[i]}`));
    assert.equal(new Set(jobs.map((j) => j.id)).size, 20, 'one job per upload');
    const done = await Promise.all(jobs.map((j, i) => waitJob(i % 2 ? d1.url : d2.url, j.id)));
    const traceIds = [];
    for (const j of done) {
      assert.equal(j.status, 'succeeded', JSON.stringify(j));
      assert.equal(j.trace_ids.length, 1, JSON.stringify(j));
      traceIds.push(j.trace_ids[0]);
    }
    assert.equal(new Set(traceIds).size, 20, `distinct traces: ${traceIds}`);
    const list = await getJson(d1.url, '/api/v1/traces?limit=100');
    assertOkJson(list, 200, 'GET /api/v1/traces');
    assert.equal(list.json.total, 20, `no trace imported twice: ${list.text}`);
    assert.deepEqual(list.json.traces.map((t) => t.name).sort(), [...names].sort(), list.text);
    assert.deepEqual(list.json.traces.map((t) => t.id).sort((a, b) => a - b), [...traceIds].sort((a, b) => a - b));
    // Each job was run by one of the two replicas (the row names its runner).
    const runners = sqlite(d1.db, 'SELECT DISTINCT owner_pid FROM jobs ORDER BY 1').split('\n').map(Number);
    for (const pid of runners) assert.ok([d1.child.pid, d2.child.pid].includes(pid), `runner ${pid} of ${runners}`);
    await assertSpoolEmpty(pair.spool);
  } finally {
    await stopPair(pair);
  }
});

// The big Paje trace of the interrupted imports, written once.
let bigPath = null;
function bigTrace() {
  if (!bigPath) {
    bigPath = join(root, 'big.trace');
    writeBigPaje(bigPath, STATES);
  }
  return bigPath;
}

// Uploads the big trace through d (started with STALL, alone: it claims the
// job) and waits until its import stalls at 30 %; returns the job.
async function stalledImport(d, name) {
  const job = acceptedJob(await uploadRaw(d.url, await openAsBlob(bigTrace()), { filename: 'big.trace', name }),
    'big upload');
  const deadline = Date.now() + 60000;
  for (;;) {
    const j = (await getJson(d.url, `/api/v1/jobs/${job.id}`)).json;
    if (j?.status === 'running' && j.progress >= 0.3) return job; // stalled there
    assert.ok(j?.status !== 'succeeded' && j?.status !== 'failed', `the import ended (${j?.status})`);
    assert.ok(Date.now() < deadline, `job stays ${j?.status} at ${j?.progress}`);
    await sleep(20);
  }
}

test('killing the replica that runs an import: the other finishes it', { skip: SKIP }, async (t) => {
  const dir = mkdtempSync(join(root, 'kill-'));
  const spool = join(dir, 'spool');
  mkdirSync(spool);
  const args = ['--spool', spool];
  let d1 = null, d2 = null;
  try {
    // The first replica alone, so that it claims the job; its import stalls at 30 %.
    d1 = await startDaemon({ dir, args, env: STALL });
    if (!(await formats(d1.url)).includes('paje')) { t.skip('no paje reader: no long import to interrupt'); return; }
    const job = await stalledImport(d1, 'taken-over');
    d2 = await startDaemon({ dir, args });
    // The second replica sees the job running (from its row), and does not take it.
    await sleep(1500);
    const seen = await getJson(d2.url, `/api/v1/jobs/${job.id}`);
    assertOkJson(seen, 200, 'the running job through the second replica');
    assert.equal(seen.json.status, 'running', seen.text);
    assert.notEqual(seen.json.phase, '', `the row shows the runner's phase: ${seen.text}`);
    assert.equal(Number(sqlite(d1.db, `SELECT owner_pid FROM jobs WHERE id = ${job.id}`)), d1.child.pid,
      'the first replica runs it');

    const r = await stopDaemon(d1, 'SIGKILL');
    assert.equal(r.signal, 'SIGKILL');
    const done = await waitJob(d2.url, job.id, {}, 120000);
    assert.equal(done.status, 'succeeded', JSON.stringify(done));
    assert.equal(done.trace_ids.length, 1, JSON.stringify(done));
    const id = done.trace_ids[0];
    assert.equal(Number(sqlite(d2.db, `SELECT owner_pid FROM jobs WHERE id = ${job.id}`)), d2.child.pid,
      'the second replica ran it');
    const list = await getJson(d2.url, '/api/v1/traces');
    assertOkJson(list, 200);
    assert.deepEqual(list.json.traces.map((x) => [x.id, x.name]), [[id, 'taken-over']], list.text);
    assert.deepEqual(strayRows(d2.db, id), [], 'rows of a partial trace');
    assert.equal(sqlite(d2.db, "SELECT count(*) FROM jobs WHERE status IN ('queued', 'running')"), '0');
    await assertSpoolEmpty(spool);
  } finally {
    if (d2) await stopClean(d2);
    if (d1 && d1.child.exitCode === null && d1.child.signalCode === null) await stopDaemon(d1, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a replica stopped during an import puts the job back; the other finishes it', { skip: SKIP }, async (t) => {
  const dir = mkdtempSync(join(root, 'term-'));
  const spool = join(dir, 'spool');
  mkdirSync(spool);
  const args = ['--spool', spool];
  let d1 = null, d2 = null;
  try {
    d1 = await startDaemon({ dir, args, env: STALL });
    if (!(await formats(d1.url)).includes('paje')) { t.skip('no paje reader: no long import to interrupt'); return; }
    const job = await stalledImport(d1, 'handed-over');
    d2 = await startDaemon({ dir, args });
    await stopClean(d1); // SIGTERM: cancels the import, and the job goes back to the queue
    const done = await waitJob(d2.url, job.id, {}, 120000);
    assert.equal(done.status, 'succeeded', `not failed by the stop: ${JSON.stringify(done)}`);
    assert.equal(done.trace_ids.length, 1, JSON.stringify(done));
    assert.equal(Number(sqlite(d2.db, `SELECT owner_pid FROM jobs WHERE id = ${job.id}`)), d2.child.pid,
      'the second replica ran it');
    const list = await getJson(d2.url, '/api/v1/traces');
    assertOkJson(list, 200);
    assert.deepEqual(list.json.traces.map((x) => x.name), ['handed-over'], list.text);
    assert.deepEqual(strayRows(d2.db, done.trace_ids[0]), [], 'rows of a partial trace');
    await assertSpoolEmpty(spool);
  } finally {
    if (d2) await stopClean(d2);
    if (d1 && d1.child.exitCode === null && d1.child.signalCode === null) await stopDaemon(d1, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a live run sent to one replica is watched through the other', { skip: SKIP }, async () => {
  const pair = await startPair('live');
  const source = join(pair.dir, 'pdes');
  const g = runCli(['generate', '--kind', 'pdes', '--pes', '4', '--kps', '4', '--lps', '2', '--samples', '40',
    '--seed', '11', source]);
  assert.equal(g.status, 0, `generate: ${g.stderr}`);
  const n = readFileSync(join(source, 'RbTotal.csv'), 'utf8').split('\n')[0].split(',').length;
  // 5 points a second through the first replica, which opens, fills and closes the run
  const rp = spawn(ariadned, ['replay', '--rate', '5', '--retry-seconds', '30', '--to', pair.d1.url, source],
    { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  rp.stderr.on('data', (c) => { err += c; });
  const done = new Promise((resolve) => rp.on('exit', (code) => resolve(code)));
  let w = null;
  try {
    const id = await firstStream(pair.d2.url); // the run, as the second replica lists it
    w = new Watcher(pair.d2.url, `/api/v1/streams/${id}/events`, { lastId: 0 });
    // a control posted to the first replica changes the second's messages
    await until(() => w.points().length >= 5, 30000, 'five points through the second replica');
    const c = await sendJson(pair.d1.url, 'POST', `/api/v1/streams/${id}/control`, { k: 4 });
    assertOkJson(c, 200, 'POST control through the first replica');
    await until(() => w.events.some((e) => e.msg.clusters?.k === 4), 20000,
      "the control to reach the second replica's watcher");
    // while the run is open (a closed run's last points are sent from its reloaded form, with the stored controls)
    const open = await getJson(pair.d1.url, `/api/v1/streams/${id}`);
    assert.equal(open.json.state, 'open', `the control arrived before the close: ${open.text}`);
    assert.equal(await done, 0, `replay: ${err.slice(-2000)}`);
    await until(() => w.closed, 30000, "the close to reach the second replica's watcher");
    const pts = w.points();
    assert.deepEqual(pts.map((e) => e.id), Array.from({ length: n }, (_, i) => i + 1), 'every point once, in order');
    for (let i = 1; i < pts.length; i++) assert.ok(pts[i].msg.t_idx > pts[i - 1].msg.t_idx, `t_idx increases (${i})`);
    assert.match(w.closedData, /"closed"/);
    const a = await getJson(pair.d1.url, `/api/v1/streams/${id}`);
    const b = await getJson(pair.d2.url, `/api/v1/streams/${id}`);
    assertOkJson(b, 200, 'the run through the second replica');
    assert.deepEqual(b.json, a.json, 'both replicas describe the run alike');
  } finally {
    w?.stop();
    rp.kill();
    await stopPair(pair);
  }
});
