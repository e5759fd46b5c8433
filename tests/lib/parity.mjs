// parity.mjs: what the tests that compare two daemons' answers share
// (pg_parity.test.mjs: SQLite and PostgreSQL; pg_shards.test.mjs: one
// PostgreSQL server and a sharded one): the traces imported, the imports,
// the list of GET paths (every endpoint of server/openapi.json under
// /traces/{id}, their CSV variants, and windows of the task traces' views)
// and their comparison (same status, same JSON value, volatile fields
// aside; CSV byte for byte).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ariadned, sharedData, sourceDir } from './daemon.mjs';

const run = promisify(execFile);
const fixtures = join(sourceDir, 'tests', 'fixtures');
const openapi = JSON.parse(readFileSync(join(sourceDir, 'server', 'openapi.json'), 'utf8'));

// One `ariadned import` per entry (an entry's paths make one call).
export const FIXTURES = [
  ['starpu/bundle'], ['starpu/starvz'], ['paje/quirks.trace'], ['profiles/small.cali'],
  ['profiles/hpctoolkit-small'], ['datamove/kineto_small.json', 'datamove/topology.xml'],
  ['metrics/long.csv'], ['projections'], ['hpctoolkit_db/tiny'], ['metrics/ross'],
].map((paths) => paths.map((p) => join(fixtures, p)));
const hatchet = join(sharedData, 'hatchet', 'hatchet', 'tests', 'data');
// The real traces where SQLite and PostgreSQL differed (row order on ties):
// the StarVZ LU and QR samples, a StarPU Cholesky run and an MPI one; a
// qr_mumps run as StarPU writes it (elimination tree); and one of each
// other kind.
export const REAL = [
  ['starvz/inst/extdata/lu_trace'], ['starvz/extra_data/qr_trace'],
  ['starpu/chol_implicit_dmdas_N11520_nb24'], ['starpu/mpi_chol_dmdas_4ranks_N11520_nb24_slowrank1_nice2'],
  ['starpu/qrm-grad3d30-lws'],
  ['dmvis/data/use-case-1-GEMM-fill'], ['pipit/pipit/tests/data/ping-pong-otf2'],
].map((paths) => paths.map((p) => join(sharedData, p)))
  .concat(['caliper-lulesh-json', 'hpctoolkit-cpi-database', 'tau-cpi-mpi'].map((p) => [join(hatchet, p)]));

export async function importAll(db, entries) {
  for (const paths of entries) {
    try {
      await run(ariadned, ['import', '--quiet', '--db', db, ...paths], { maxBuffer: 1 << 24 });
    } catch (e) {
      throw new Error(`import ${paths.join(' ')} into ${db}: ${e.stderr || e.message}`);
    }
  }
}

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
export async function answer(url, path) {
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

// Windows and widths of the task traces' views (their span asked of `url`).
async function taskPaths(url, id) {
  const g = await answer(url, `/api/v1/traces/${id}/gantt`);
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

// Every GET path to compare for the traces `url` lists: {paths, traces}.
export async function parityPaths(url) {
  const list = await answer(url, '/api/v1/traces?limit=1000');
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
    if (kinds[id] === 'tasks') paths.push(...await taskPaths(url, id));
  }
  return { paths, traces };
}

// Asks both daemons every path, a few at a time: {ok200 (of a), mismatches
// (one line each), slowest ([ms, path] sorted)}.
// The Gantt on PostgreSQL is aggregated by the database (src/store/gantt_sql.h):
// a pixel's share of the tasks inside it is their summed length over the
// pixel's, where the in-memory path of SQLite adds each task's share in turn,
// and a row's busy time is summed in another order; so a few shares and idle
// shares differ in the 12th digit (or 1e-16 against 0). Gantt answers (JSON,
// and CSV field by field) compare their numbers within 1e-9 of max(1, |x|):
// shares and idleness are fractions. Every other answer compares exactly.
const GANTT_TOLERANCE = 1e-9;
const isGantt = (path) => /\/gantt(\?|$)/.test(path);

function near(x, y) {
  return Math.abs(x - y) <= GANTT_TOLERANCE * Math.max(1, Math.abs(x), Math.abs(y));
}

// b with each number near a's replaced by a's (same shapes only).
function snapNumbers(b, a) {
  if (typeof a === 'number' && typeof b === 'number') return near(a, b) ? a : b;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length ? b.map((v, i) => snapNumbers(v, a[i])) : b;
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    return Object.fromEntries(Object.entries(b).map(([k, v]) => [k, k in a ? snapNumbers(v, a[k]) : v]));
  }
  return b;
}

// The same for CSV text: a numeric field near a's becomes a's.
function snapCsv(b, a) {
  const la = a.split('\n'), lb = b.split('\n');
  if (la.length !== lb.length) return b;
  return lb.map((line, i) => {
    const fa = la[i].split(','), fb = line.split(',');
    if (fa.length !== fb.length) return line;
    return fb.map((f, j) => (f !== fa[j] && f !== '' && fa[j] !== '' && Number.isFinite(+f) && Number.isFinite(+fa[j])
      && near(+f, +fa[j]) ? fa[j] : f)).join(',');
  }).join('\n');
}

function snapGantt(b, a) {
  return typeof a === 'string' && typeof b === 'string' ? snapCsv(b, a) : snapNumbers(b, a);
}

export async function compareAnswers(urlA, urlB, paths) {
  let ok200 = 0;
  const mismatches = [];
  const slowest = [];
  for (let i = 0; i < paths.length; i += 6) {
    const batch = paths.slice(i, i + 6);
    await Promise.all(batch.map(async (path) => {
      const t0 = Date.now();
      let a, b;
      try {
        [a, b] = await Promise.all([answer(urlA, path), answer(urlB, path)]);
      } catch (e) { // a daemon that does not answer: said with the path
        mismatches.push(`${path}: ${e.message} (${e.cause?.code || e.cause?.message || ''}) after ${Date.now() - t0} ms`);
        return;
      }
      slowest.push([Date.now() - t0, path]);
      if (a.status === 200) ok200++;
      try {
        assert.equal(b.status, a.status, 'status');
        assert.deepStrictEqual(isGantt(path) ? snapGantt(b.body, a.body) : b.body, a.body, 'body');
      } catch (e) {
        mismatches.push(`${path}: ${e.message.split('\n').slice(0, 6).join(' ')} (${a.status}/${b.status})`);
      }
    }));
  }
  slowest.sort((a, b) => b[0] - a[0]);
  return { ok200, mismatches, slowest };
}
