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
// column on PostgreSQL), so sums come out bit for bit the same.
//
// Beyond the defaults, for the task traces: /gantt, /states, /links,
// /bounds, /outliers, /critical-path, /progression in a 10 % window and in
// a tiny one (1e-4 of the span) and at two widths, /bounds?by=iteration,
// /outliers?limit=5; and the CSV variant (?format=csv) of every endpoint
// that has one (csv_tables.c), for every trace, compared byte for byte.
// Left out to stay under 3 minutes: the ensemble endpoints (api_pg.copy
// compares those), other query parameters of the profile, metrics and
// event endpoints (default parameters only).
//
// Runs under CTest's api_pg label (PG_API_TESTS); under plain SQLite it
// skips, saying why.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ariadned, backendName, newPgDatabase, sharedData, sourceDir, startDaemon } from '../lib/daemon.mjs';
import { stopClean } from '../fixtures/api/util.mjs';

const run = promisify(execFile);
const backend = backendName();
const skip = backend === 'postgresql' ? false
  : 'needs PostgreSQL: run under CTest label api_pg (ARIADNE_TEST_PG or ARIADNE_TEST_PG_FILE)';
const fixtures = join(sourceDir, 'tests', 'fixtures');
const openapi = JSON.parse(readFileSync(join(sourceDir, 'server', 'openapi.json'), 'utf8'));

// One `ariadned import` per entry (an entry's paths make one call).
const FIXTURES = [
  ['starpu/bundle'], ['starpu/starvz'], ['paje/quirks.trace'], ['profiles/small.cali'],
  ['profiles/hpctoolkit-small'], ['datamove/kineto_small.json', 'datamove/topology.xml'],
  ['metrics/long.csv'], ['projections'], ['hpctoolkit_db/tiny'], ['metrics/ross'],
].map((paths) => paths.map((p) => join(fixtures, p)));
const hatchet = join(sharedData, 'hatchet', 'hatchet', 'tests', 'data');
// The real traces where SQLite and PostgreSQL differed (row order on ties):
// the StarVZ LU and QR samples, a StarPU Cholesky run and an MPI one; and
// one of each other kind.
const REAL = [
  ['starvz/inst/extdata/lu_trace'], ['starvz/extra_data/qr_trace'],
  ['starpu/chol_implicit_dmdas_N11520_nb24'], ['starpu/mpi_chol_dmdas_4ranks_N11520_nb24_slowrank1_nice2'],
  ['dmvis/data/use-case-1-GEMM-fill'], ['pipit/pipit/tests/data/ping-pong-otf2'],
].map((paths) => paths.map((p) => join(sharedData, p)))
  .concat(['caliper-lulesh-json', 'hpctoolkit-cpi-database', 'tau-cpi-mpi'].map((p) => [join(hatchet, p)]));

let work;
const daemons = {};

async function importAll(db, entries) {
  for (const paths of entries) {
    try {
      await run(ariadned, ['import', '--quiet', '--db', db, ...paths], { maxBuffer: 1 << 24 });
    } catch (e) {
      throw new Error(`import ${paths.join(' ')} into ${db}: ${e.stderr || e.message}`);
    }
  }
}

before(async () => {
  if (skip) return;
  work = mkdtempSync(join(tmpdir(), 'ariadne-parity-'));
  const entries = existsSync(sharedData) ? FIXTURES.concat(REAL) : FIXTURES;
  const lite = join(work, 'a.db');
  const pg = newPgDatabase();
  // The two imports run side by side (each is one process).
  await Promise.all([importAll(lite, entries), importAll(pg, entries)]);
  daemons.lite = await startDaemon({ backend: 'sqlite', db: lite });
  daemons.pg = await startDaemon({ db: pg });
});

after(async () => {
  for (const d of Object.values(daemons)) await stopClean(d);
  if (work) rmSync(work, { recursive: true, force: true });
});

// What differs between two imports of one file at different times.
const VOLATILE = new Set(['uptime_s', 'created_at', 'started_at', 'finished_at']);

function normalise(value) {
  if (Array.isArray(value)) return value.map(normalise);
  if (value && typeof value === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(value)) if (!VOLATILE.has(k)) out[k] = normalise(v);
    return out;
  }
  return value;
}

// {status, body}: the JSON value, or the text (CSV, errors that are not JSON).
async function answer(url, path) {
  const r = await fetch(url + path);
  const text = await r.text();
  let body = text;
  if (/json/.test(r.headers.get('content-type') || '')) {
    try { body = normalise(JSON.parse(text)); } catch { /* compared as text */ }
  }
  return { status: r.status, body };
}

function queryFor(op, traceId) {
  const req = (op.parameters || []).filter((p) => p.in === 'query' && p.required);
  const values = { traces: `${traceId},${traceId}`, other: `${traceId}`, x: 'time', y: 'time', metric: 'time' };
  return req.length ? '?' + req.map((p) => `${p.name}=${encodeURIComponent(values[p.name] ?? '1')}`).join('&') : '';
}

// The endpoints with a CSV variant (server/csv_tables.c's list).
function csvRoutes() {
  const src = readFileSync(join(sourceDir, 'server', 'csv_tables.c'), 'utf8');
  return new Set([...src.matchAll(/\{"(\/api\/v1\/traces\/\{\}\/[^"]*)"/g)].map((m) => m[1].replace('{}', '{id}')));
}

// Windows and widths of the task traces' views.
async function taskPaths(id) {
  const g = await answer(daemons.lite.url, `/api/v1/traces/${id}/gantt`);
  if (g.status !== 200 || typeof g.body !== 'object' || !Number.isFinite(g.body.start)) return [];
  const { start, end } = g.body;
  const span = end - start;
  const mid = start + span / 2;
  const windows = [[mid - span / 20, mid + span / 20], [mid, mid + span * 1e-4]];
  const out = [`/api/v1/traces/${id}/bounds?by=iteration`, `/api/v1/traces/${id}/outliers?limit=5`,
    `/api/v1/traces/${id}/gantt?width=37`, `/api/v1/traces/${id}/states?width=50`];
  for (const [a, b] of windows) {
    const w = `start=${a}&end=${b}`;
    for (const v of ['gantt', 'states', 'links', 'bounds', 'outliers', 'critical-path', 'progression']) {
      out.push(`/api/v1/traces/${id}/${v}?${w}`);
    }
    out.push(`/api/v1/traces/${id}/gantt?${w}&width=200`, `/api/v1/traces/${id}/states?${w}&width=200`,
      `/api/v1/traces/${id}/links?${w}&limit=10`, `/api/v1/traces/${id}/gantt?${w}&format=csv`,
      `/api/v1/traces/${id}/states?${w}&format=csv`, `/api/v1/traces/${id}/links?${w}&format=csv`);
  }
  return out;
}

test('SQLite and PostgreSQL answer every GET endpoint alike', { skip }, async (t) => {
  const list = await answer(daemons.lite.url, '/api/v1/traces?limit=1000');
  assert.equal(list.status, 200);
  const traces = list.body.traces.map((x) => x.id).sort((a, b) => a - b);
  const kinds = Object.fromEntries(list.body.traces.map((x) => [x.id, x.kind]));
  const paths = ['/api/v1/traces?limit=1000', '/api/v1/topology'];
  const csv = csvRoutes();
  const get = Object.entries(openapi.paths).filter(([p, v]) => v.get && p.startsWith('/api/v1/traces/{id}'));
  for (const id of traces) {
    for (const [p, op] of get) {
      const q = queryFor(op, id);
      const path = p.replace('{id}', id).replace('{node}', '1');
      paths.push(path + q);
      if (csv.has(p)) paths.push(path + (q ? q + '&' : '?') + 'format=csv');
    }
    if (kinds[id] === 'tasks') paths.push(...await taskPaths(id));
  }
  let ok200 = 0;
  const mismatches = [];
  // A few requests at a time: the two daemons answer in parallel.
  for (let i = 0; i < paths.length; i += 6) {
    const batch = paths.slice(i, i + 6);
    await Promise.all(batch.map(async (path) => {
      const [a, b] = await Promise.all([answer(daemons.lite.url, path), answer(daemons.pg.url, path)]);
      if (a.status === 200) ok200++;
      try {
        assert.equal(b.status, a.status, 'status');
        assert.deepStrictEqual(b.body, a.body, 'body');
      } catch (e) {
        mismatches.push(`${path}: ${e.message.split('\n').slice(0, 6).join(' ')} (${a.status}/${b.status})`);
      }
    }));
  }
  t.diagnostic(`${traces.length} traces, ${paths.length} requests, ${ok200} answered 200`);
  assert.ok(ok200 >= traces.length * 4, `requests answered 200: ${ok200} of ${paths.length}`);
  assert.deepEqual(mismatches, [], `${mismatches.length} answers differ:\n${mismatches.join('\n')}`);
});
