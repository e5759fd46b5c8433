// durability.test.mjs: acknowledged writes are never lost.
// 1. Another process holds the database's write lock: writes answer 503
//    busy; once it lets go, every later write answers correctly and is still
//    there after a restart (a write that met SQLITE_BUSY used to leave its
//    pooled connection in a transaction that swallowed later writes).
// 2. During a long import, renames, deletes, token revocation and another
//    upload succeed without waiting for the import: it parses outside the
//    write lock and holds it only to publish.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, waitJob, backendName } from '../lib/daemon.mjs';
import {
  getJson, sendJson, call, assertError, assertOkJson, uploadRaw, acceptedJob, smallTrace,
  writeBigPaje, stopClean, integrityCheck, sqlite,
} from '../fixtures/api/util.mjs';

const dir = mkdtempSync(join(tmpdir(), 'ariadne-durable-'));
after(() => rmSync(dir, { recursive: true, force: true }));

// On PostgreSQL, a psql session that locks the tables these writes change
// (traces, tokens) in EXCLUSIVE mode, which lets reads through, until
// release(); the daemon's lock_timeout (--busy-timeout) then ends each write.
async function holdPgLock(db) {
  const sh = spawn('psql', ['-X', '-q', '-d', db], { stdio: ['pipe', 'ignore', 'inherit'] });
  sh.stdin.write('BEGIN;\nLOCK TABLE traces, tokens IN EXCLUSIVE MODE;\n');
  const held = "SELECT count(*) FROM pg_locks WHERE relation IN ('traces'::regclass, 'tokens'::regclass) " +
    "AND mode = 'ExclusiveLock' AND granted;";
  const deadline = Date.now() + 5000;
  while (sqlite(db, held) !== '2') {
    if (Date.now() > deadline) throw new Error('psql could not lock traces and tokens');
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    release: () => new Promise((resolve) => {
      sh.on('exit', resolve);
      sh.stdin.end('ROLLBACK;\n\\q\n');
    }),
  };
}

// A sqlite3 shell on the database that takes the write lock and keeps it
// until release() is called.
async function holdWriteLock(db) {
  if (backendName() === 'postgresql') return holdPgLock(db);
  const sh = spawn('sqlite3', ['-batch', db], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  sh.stdout.on('data', (b) => { out += b; });
  sh.stdin.write("BEGIN IMMEDIATE;\nSELECT 'locked';\n");
  const deadline = Date.now() + 5000;
  while (!out.includes('locked')) {
    if (Date.now() > deadline) throw new Error('sqlite3 could not take the write lock');
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    release: () => new Promise((resolve) => {
      sh.on('exit', resolve);
      sh.stdin.end('ROLLBACK;\n.quit\n');
    }),
  };
}

async function importSmall(base, name) {
  const r = await uploadRaw(base, smallTrace(), { filename: 'small.trace', name });
  const job = await waitJob(base, acceptedJob(r, 'upload').id);
  assert.equal(job.status, 'succeeded', JSON.stringify(job));
  return job.trace_ids[0];
}

const patchName = (base, id, name) => sendJson(base, 'PATCH', `/api/v1/traces/${id}`, { name });
const del = (base, path) => call(base, path, { method: 'DELETE' });

test('writes refused while another process holds the lock are followed by durable writes', async () => {
  const work = join(dir, 'lock');
  const d = await startDaemon({ dir: mkdtempSync(work), args: ['--busy-timeout', '200', '--threads', '2'] });
  const keep = await importSmall(d.url, 'keep');
  const gone = await importSmall(d.url, 'gone');
  const tok = await sendJson(d.url, 'POST', '/api/v1/tokens', { name: 'ci', scope: 'read' });
  assertOkJson(tok, 201, 'create token');
  const tokenId = tok.json.id ?? tok.json.token?.id;

  const lock = await holdWriteLock(d.db);
  // every connection of the pool meets the lock at least once
  for (let i = 0; i < 4; i++) {
    assertError(await patchName(d.url, keep, `during ${i}`), 503, 'busy', 'rename under lock');
    assertError(await del(d.url, `/api/v1/traces/${gone}`), 503, 'busy', 'delete under lock');
    assertError(await del(d.url, `/api/v1/tokens/${tokenId}`), 503, 'busy', 'revoke under lock');
  }
  await lock.release();

  assertOkJson(await patchName(d.url, keep, 'after the lock'), 200, 'rename after');
  assert.equal((await del(d.url, `/api/v1/traces/${gone}`)).status, 204, 'delete after');
  const rv = await del(d.url, `/api/v1/tokens/${tokenId}`);
  assert.ok([200, 204].includes(rv.status), `revoke after -> ${rv.status} ${rv.text}`);
  const third = await importSmall(d.url, 'third');
  // reads on every pooled connection see the writes
  for (let i = 0; i < 4; i++) {
    const list = await getJson(d.url, '/api/v1/traces');
    assert.deepEqual(list.json.traces.map((t) => t.name).sort(), ['after the lock', 'third']);
  }

  await stopClean(d);
  const again = await startDaemon({ dir: d.dir });
  const list = await getJson(again.url, '/api/v1/traces');
  assert.deepEqual(list.json.traces.map((t) => [t.id, t.name]).sort(),
    [[keep, 'after the lock'], [third, 'third']].sort());
  const toks = await getJson(again.url, '/api/v1/tokens');
  const t = (toks.json.tokens ?? toks.json).find((x) => x.id === tokenId);
  assert.equal(t.revoked, true, 'the revocation survived the restart');
  await stopClean(again);
  assert.equal(integrityCheck(d.db), 'ok');
});

test('writes and uploads during a long import do not wait for it', async () => {
  const work = mkdtempSync(join(dir, 'long'));
  // On PostgreSQL the staging database lies in TMPDIR (store/staging.c).
  const env = backendName() === 'postgresql' ? { TMPDIR: work } : {};
  const d = await startDaemon({ dir: work, env });
  const keep = await importSmall(d.url, 'keep');
  const gone = await importSmall(d.url, 'gone');
  const tok = await sendJson(d.url, 'POST', '/api/v1/tokens', { name: 'ci', scope: 'read' });
  const tokenId = tok.json.id ?? tok.json.token?.id;

  const big = join(work, 'big.trace');
  // Long enough to be running when the writes come; PostgreSQL's imports
  // (staged, then COPY'd) are the slower, so a smaller trace does there.
  const states = backendName() === 'postgresql' ? 300000 : 1500000;
  writeBigPaje(big, states);
  const { readFileSync } = await import('node:fs');
  const r = await uploadRaw(d.url, readFileSync(big), { filename: 'big.trace', name: 'big' });
  const bigJob = acceptedJob(r, 'big upload').id;
  // wait until the import is parsing
  const deadline = Date.now() + 30000;
  for (;;) {
    const j = (await getJson(d.url, `/api/v1/jobs/${bigJob}`)).json;
    if (j.status === 'running' && j.progress > 0.05) break;
    assert.ok(j.status !== 'succeeded', 'the import ended before the writes: make the trace bigger');
    assert.ok(Date.now() < deadline, 'the import did not start');
    await new Promise((res) => setTimeout(res, 50));
  }
  const t0 = Date.now();
  assertOkJson(await patchName(d.url, keep, 'renamed during import'), 200, 'rename');
  assert.equal((await del(d.url, `/api/v1/traces/${gone}`)).status, 204, 'delete');
  const rv = await del(d.url, `/api/v1/tokens/${tokenId}`);
  assert.ok([200, 204].includes(rv.status), `revoke -> ${rv.status}`);
  const up = await uploadRaw(d.url, smallTrace(), { filename: 'small.trace', name: 'queued' });
  const queued = acceptedJob(up, 'upload during import').id;
  const elapsed = Date.now() - t0;
  const during = (await getJson(d.url, `/api/v1/jobs/${bigJob}`)).json;
  assert.equal(during.status, 'running', 'the writes were answered while the import was still running');
  assert.ok(elapsed < 2000, `writes took ${elapsed} ms during the import`);

  const bj = await waitJob(d.url, bigJob, {}, 300000);
  assert.equal(bj.status, 'succeeded', JSON.stringify(bj));
  const qj = await waitJob(d.url, queued);
  assert.equal(qj.status, 'succeeded', JSON.stringify(qj));
  const names = (await getJson(d.url, '/api/v1/traces')).json.traces.map((t) => t.name).sort();
  assert.deepEqual(names, ['big', 'queued', 'renamed during import']);
  const info = (await getJson(d.url, `/api/v1/traces/${bj.trace_ids[0]}`)).json;
  assert.ok(info.counts.states >= states, JSON.stringify(info.counts));
  assert.deepEqual(readdirSync(work).filter((f) => f.includes('staging')), [], 'no staging file left');
  await stopClean(d);
});
