// pg_backend.test.mjs: the store's backend under a live daemon. Run twice by
// CTest: api.pg_backend on SQLite, api_pg.pg_backend on a throwaway
// PostgreSQL cluster (tests/lib/pg_cluster.sh; tests/lib/daemon.mjs gives
// each daemon its own database there). Both: health answers 200 (naming the
// backend when it has such a field) and a fresh database lists no trace.
// PostgreSQL only: the daemon's schema is in its PostgreSQL database (not in
// a SQLite file beside it), and two daemons on one database see each other's
// writes (issue 20's stateless replicas).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, backendName, waitJob, runCli, sourceDir } from '../lib/daemon.mjs';
import {
  getJson, sendJson, assertOkJson, uploadRaw, acceptedJob, smallTrace, stopClean,
} from '../fixtures/api/util.mjs';

const backend = backendName();
const onPg = backend === 'postgresql';
const PG_ONLY = onPg ? false : 'PostgreSQL only (CTest runs it as api_pg.pg_backend)';

// Runs one query on a PostgreSQL database with psql; returns its single value.
function psqlValue(url, sql) {
  return execFileSync(process.env.ARIADNE_PSQL || 'psql',
    ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-d', url, '-c', sql], { encoding: 'utf8' }).trim();
}

let d;
before(async () => { d = await startDaemon(); });
after(async () => { if (d) await stopClean(d); });

test(`GET /api/v1/health on ${backend}`, async () => {
  const r = await getJson(d.url, '/api/v1/health');
  assertOkJson(r, 200, `health on ${backend}`);
  assert.equal(r.json.status, 'ok', `health on ${backend}: ${r.text}`);
  assert.equal(r.json.database, 'ok', `health on ${backend}: ${r.text}`);
  if ('backend' in r.json) assert.equal(r.json.backend, backend, `health names the backend: ${r.text}`);
});

test(`a fresh ${backend} database lists no trace`, async () => {
  const r = await getJson(d.url, '/api/v1/traces');
  assertOkJson(r, 200, `GET /api/v1/traces on ${backend}`);
  assert.deepEqual(r.json.traces, [], r.text);
  assert.equal(r.json.total, 0, r.text);
});

test('the daemon keeps its schema in its PostgreSQL database', { skip: PG_ONLY }, () => {
  assert.match(d.db, /^postgresql:\/\/.+\/ariadne_test_\d+_\d+$/, `the daemon's --db ${d.db}`);
  assert.equal(psqlValue(d.db, "SELECT to_regclass('traces') IS NOT NULL"), 't', `no table traces in ${d.db}`);
  assert.equal(psqlValue(d.db, 'SELECT count(*) FROM traces'), '0', `traces in the fresh ${d.db}`);
  const files = readdirSync(d.dir).filter((f) => /\.db(-wal|-shm)?$/.test(f));
  assert.deepEqual(files, [], `a SQLite file next to a daemon on PostgreSQL: ${files}`);
});

// Two daemons on one PostgreSQL database (startDaemon with one dir: one database).
test('two daemons on one PostgreSQL database', { skip: PG_ONLY }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ariadne-pg-'));
  const d1 = await startDaemon({ dir });
  let d2 = null;
  try {
    d2 = await startDaemon({ dir });
    assert.equal(d1.db, d2.db, 'both daemons on one database');

    await t.test('a token created through one is listed through the other', async () => {
      const c = await sendJson(d1.url, 'POST', '/api/v1/tokens', { name: 'pg-shared', scope: 'read' });
      assertOkJson(c, 201, 'POST /api/v1/tokens through the first daemon');
      const l = await getJson(d2.url, '/api/v1/tokens');
      assertOkJson(l, 200, 'GET /api/v1/tokens through the second daemon');
      const mine = l.json.tokens.filter((k) => k.name === 'pg-shared');
      assert.equal(mine.length, 1, `the second daemon lists the token once: ${l.text}`);
      assert.equal(mine[0].id, c.json.token.id, l.text);
      assert.equal(mine[0].scope, 'read', l.text);
      assert.equal(psqlValue(d1.db, "SELECT count(*) FROM tokens WHERE name = 'pg-shared'"), '1',
        'the token is a row of the PostgreSQL database');
    });

    await t.test('an upload through one is listed and read through the other', async () => {
      const up = await uploadRaw(d1.url, smallTrace(), { filename: 'small.trace', name: 'pg-replica' });
      const job = acceptedJob(up, 'upload through the first daemon');
      const done = await waitJob(d1.url, job.id);
      assert.equal(done.status, 'succeeded', JSON.stringify(done));
      const id = done.trace_ids[0];
      const seen = await getJson(d2.url, `/api/v1/jobs/${job.id}`);
      assertOkJson(seen, 200, 'the job through the second daemon');
      assert.equal(seen.json.status, 'succeeded', seen.text);
      const l = await getJson(d2.url, '/api/v1/traces');
      assertOkJson(l, 200, 'GET /api/v1/traces through the second daemon');
      assert.deepEqual(l.json.traces.map((x) => [x.id, x.name]), [[id, 'pg-replica']], l.text);
      const one = await getJson(d2.url, `/api/v1/traces/${id}`);
      assertOkJson(one, 200, `GET /api/v1/traces/${id} through the second daemon`);
      assert.equal(one.json.name, 'pg-replica', one.text);
      const first = await getJson(d1.url, `/api/v1/traces/${id}`);
      assert.deepEqual(one.json, first.json, 'both daemons answer the same');
    });
  } finally {
    if (d2) await stopClean(d2);
    await stopClean(d1);
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a trace\'s tasks are stored by worker and start, numbered in the file\'s order', { skip: PG_ONLY }, () => {
  const r = runCli(['import', '--quiet', '--db', d.db, join(sourceDir, 'tests', 'fixtures', 'starpu', 'bundle')]);
  assert.equal(r.status, 0, r.stderr);
  const id = JSON.parse(r.stdout.trim().split('\n')[0]).id;
  // the partition's heap order (ctid): by worker, then start (pg_publish.c cluster_order)
  const disorder = psqlValue(d.db, `SELECT count(*) FROM (SELECT worker_id, start, lag(worker_id) OVER w AS pw,
    lag(start) OVER w AS ps FROM tasks_t${id} WINDOW w AS (ORDER BY ctid)) x
    WHERE worker_id < pw OR (worker_id = pw AND start < ps)`);
  assert.equal(disorder, '0', 'tasks out of (worker, start) order in the heap');
  assert.ok(Number(psqlValue(d.db, `SELECT count(DISTINCT worker_id) FROM tasks_t${id}`)) > 1, 'several workers');
  // the rowids still number the rows as the staged order did: consecutive, one each
  assert.equal(psqlValue(d.db, `SELECT max(rowid) - min(rowid) + 1 = count(DISTINCT rowid) AND count(DISTINCT rowid) = count(*) FROM tasks_t${id}`), 't');
});
