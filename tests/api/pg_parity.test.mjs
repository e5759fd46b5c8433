// pg_parity.test.mjs: SQLite and PostgreSQL give the same answers (issue
// 20's first check). The fixtures and, when /work/shared/data is present,
// the real traces below are imported with `ariadned import` into an SQLite
// file and into a fresh PostgreSQL database (newPgDatabase), both are
// served, and every GET endpoint of server/openapi.json under
// /traces/{id} (default parameters, required ones filled in), plus
// /traces and /topology, must answer with the same status and the same
// JSON value. Numbers must be exactly equal (deepStrictEqual, no
// tolerance): every answer is computed by the same C code from the same
// stored doubles, rows reach it in the same order (the store's multi-row
// SELECTs order explicitly, ties by SQLite's rowid, a bigserial `rowid`
// column on PostgreSQL), so sums come out bit for bit the same. Except the
// Gantt's shares and idleness, which PostgreSQL aggregates in SQL: those
// within 1e-9 (tests/lib/parity.mjs says why).
//
// Beyond the defaults, for the task traces: /gantt, /states, /links,
// /bounds, /outliers, /critical-path, /progression in a 10 % window and in
// a tiny one (1e-4 of the span) and at two widths, /bounds?by=iteration,
// /outliers?limit=5. Left out for time: the ensemble endpoints (api_pg.copy
// compares those), other query parameters of the profile, metrics and
// event endpoints (default parameters only), and the CSV variants
// (?format=csv) that tests/lib/parity.mjs lists: server/csv_tables.c
// renders a CSV from the JSON answer compared here, by the same code on
// both backends (api_pg.csv runs csv.test.mjs on PostgreSQL); they were two
// fifths of the requests, among them the heaviest (the panels, atree and
// models of the MPI Cholesky run).
//
// Runs under CTest's api_pg label (PG_API_TESTS); under plain SQLite it
// skips, saying why. $ARIADNE_PARITY_ARIADNED, when set, names the ariadned
// that imports and serves here instead of $ARIADNED: deploy/test.sh gives
// the Release build's. This test is about equal answers, not memory errors,
// and under ASan it was the suite's longest; the other api_pg files run the
// ASan daemon on PostgreSQL, on every endpoint.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopClean } from '../fixtures/api/util.mjs';

// Before daemon.mjs reads $ARIADNED (parity.mjs's imports use it too).
if (process.env.ARIADNE_PARITY_ARIADNED) process.env.ARIADNED = process.env.ARIADNE_PARITY_ARIADNED;
const { ariadned, backendName, newPgDatabase, sharedData, startDaemon } = await import('../lib/daemon.mjs');
const { FIXTURES, REAL, compareAnswers, importAll, parityPaths } = await import('../lib/parity.mjs');

const backend = backendName();
const skip = backend === 'postgresql' ? false
  : 'needs PostgreSQL: run under CTest label api_pg (ARIADNE_TEST_PG or ARIADNE_TEST_PG_FILE)';

let work, importMs = 0;
const daemons = {};

before(async () => {
  if (skip) return;
  work = mkdtempSync(join(tmpdir(), 'ariadne-parity-'));
  const entries = existsSync(sharedData) ? FIXTURES.concat(REAL) : FIXTURES;
  const lite = join(work, 'a.db');
  const pg = newPgDatabase();
  // The two imports run side by side (each is one process).
  const t0 = Date.now();
  await Promise.all([importAll(lite, entries), importAll(pg, entries)]);
  importMs = Date.now() - t0;
  daemons.lite = await startDaemon({ backend: 'sqlite', db: lite });
  daemons.pg = await startDaemon({ db: pg });
});

after(async () => {
  for (const d of Object.values(daemons)) await stopClean(d);
  if (work) rmSync(work, { recursive: true, force: true });
});

test('SQLite and PostgreSQL answer every GET endpoint alike', { skip }, async (t) => {
  const listed = await parityPaths(daemons.lite.url);
  const { traces } = listed;
  const paths = listed.paths.filter((p) => !/[?&]format=csv/.test(p));
  const t0 = Date.now();
  const { ok200, mismatches, slowest } = await compareAnswers(daemons.lite.url, daemons.pg.url, paths);
  t.diagnostic(`${ariadned}: ${traces.length} traces, ${paths.length} requests, ${ok200} answered 200; ` +
    `imports ${importMs} ms, requests ${Date.now() - t0} ms`);
  t.diagnostic(`slowest: ${slowest.slice(0, 8).map(([ms, p]) => `${p} ${ms} ms`).join(', ')}`);
  assert.ok(ok200 >= traces.length * 4, `requests answered 200: ${ok200} of ${paths.length}`);
  assert.deepEqual(mismatches, [], `${mismatches.length} answers differ:\n${mismatches.join('\n')}`);
});
