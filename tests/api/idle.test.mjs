// idle.test.mjs: a worker's idleness in the Gantt and the Compare table is
// StarVZ's (R/phase2_metrics.R, calculate_resource_idleness):
// 1 - (sum of the worker's task durations, clipped to the window) / (window
// length), the window defaulting to the trace's extent (first task start to
// last task end). Each row's `idle` is recomputed here with the sqlite3
// shell (psql on PostgreSQL) from the test database's own tasks and workers tables, on a
// generated trace and, when /work/shared/data is present, on the real
// StarPU 1.4.7 Cholesky runs and the 4-rank MPI run (whose workers wait in
// `Sleeping`, not `Idle`: ariadne used to report 0 % idle there). The
// runtime states (`states`: exclusive shares of the window) are checked
// against the states table for `Sleeping`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, runCli, sourceDir, importCli, getOk, backendName } from '../lib/daemon.mjs';
import { sqlite, stopClean } from '../fixtures/api/util.mjs';

const shared = process.env.ARIADNE_SHARED_DATA || join(sourceDir, '..', 'shared', 'data');
const MPI_RUN = 'mpi_chol_dmdas_4ranks_N11520_nb24_slowrank1_nice2';
const REAL_RUNS = ['chol_implicit_dmdas_N11520_nb24', 'chol_implicit_eager_N11520_nb24',
  'chol_implicit_ws_N11520_nb24', MPI_RUN].filter((r) => existsSync(join(shared, 'starpu', r)));
const noData = REAL_RUNS.length === 0 ? `no StarPU runs under ${shared}/starpu` : false;

let d, dir;
const ids = new Map(); // name -> trace id

const importPath = (path, name) => importCli(d.db, path, name);

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ariadne-idle-'));
  d = await startDaemon();
  const gen = join(dir, 'gen');
  const g = runCli(['generate', '--out', gen, '--tiles', '6', '--nodes', '2', '--seed', '3']);
  assert.equal(g.status, 0, g.stderr);
  ids.set('gen', importPath(gen, 'gen'));
  for (const run of REAL_RUNS) ids.set(run, importPath(join(shared, 'starpu', run), run));
});

after(async () => {
  if (d) await stopClean(d);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const ok = (path) => getOk(d.url, path);

// SQLite's two-argument max/min are PostgreSQL's greatest/least ("end" is
// quoted: a reserved word there).
const pg = backendName() === 'postgresql';
const MAX = pg ? 'greatest' : 'max', MIN = pg ? 'least' : 'min';

const close = (a, b, tol, what) => assert.ok(Math.abs(a - b) <= tol, `${what}: ${a} vs ${b}`);

// The extent of a trace's tasks on known workers: [first start, last end].
function extent(id) {
  const [s, e] = sqlite(d.db, `SELECT min(t.start) || '|' || max(t."end") FROM tasks t JOIN workers w
    ON w.trace_id = t.trace_id AND w.container_id = t.worker_id WHERE t.trace_id = ${id};`).split('|').map(Number);
  return { s, e };
}

// StarVZ's idleness of every worker in [s, e], from the tables alone.
function sqlIdle(id, s, e) {
  const out = sqlite(d.db, `SELECT w.container_id || '|' ||
      ${MAX}(0, ${MIN}(1, 1 - coalesce(sum(${MAX}(0, ${MIN}(t."end", ${e}) - ${MAX}(t.start, ${s}))), 0) / (${e} - ${s})))
    FROM workers w LEFT JOIN tasks t ON t.trace_id = w.trace_id AND t.worker_id = w.container_id
    WHERE w.trace_id = ${id} GROUP BY w.container_id;`);
  return new Map(out.split('\n').filter(Boolean).map((l) => l.split('|').map(Number)));
}

async function checkIdle(name, window) {
  const id = ids.get(name);
  const { s, e } = window ? window(extent(id)) : extent(id);
  const q = window ? `&start=${s}&end=${e}` : '';
  const g = await ok(`/api/v1/traces/${id}/gantt?width=300&states=true${q}`);
  close(g.start, s, 1e-9 * Math.abs(s) + 1e-12, 'window start');
  close(g.end, e, 1e-9 * Math.abs(e), 'window end');
  const want = sqlIdle(id, s, e);
  assert.equal(g.rows.length, want.size, 'one row per worker');
  for (const row of g.rows) {
    assert.ok(want.has(row.id), `worker ${row.id}`);
    close(row.idle, want.get(row.id), 1e-9, `${name} ${row.name} idle`);
  }
  return g;
}

test('gantt idle = 1 - task time / window on a generated trace (whole and zoomed)', async () => {
  await checkIdle('gen');
  await checkIdle('gen', ({ s, e }) => ({ s: s + 0.3 * (e - s), e: s + 0.55 * (e - s) }));
});

test('gantt idle = 1 - task time / window on the real StarPU runs', { skip: noData }, async () => {
  for (const run of REAL_RUNS) {
    const g = await checkIdle(run);
    await checkIdle(run, ({ s, e }) => ({ s: s + 0.2 * (e - s), e: s + 0.7 * (e - s) }));
    for (const row of g.rows) {
      const total = Object.values(row.states).reduce((a, b) => a + b, 0);
      assert.ok(total <= 1 + 1e-9, `${run} ${row.name}: states add up to ${total}`);
      for (const [k, v] of Object.entries(row.states)) {
        assert.ok(v > 0 && v <= 1, `${run} ${row.name} ${k}=${v}`);
        assert.ok(!g.types.includes(k), `${k} is a task type, not a runtime state`);
      }
    }
  }
});

test('MPI run: workers that sleep are idle, and Sleeping is reported apart', { skip: REAL_RUNS.includes(MPI_RUN) ? false : `no ${MPI_RUN}` }, async () => {
  const id = ids.get(MPI_RUN);
  const { s, e } = extent(id);
  const g = await ok(`/api/v1/traces/${id}/gantt?width=300&states=true`);
  const sleeping = sqlite(d.db, `SELECT id FROM names WHERE trace_id = ${id} AND name = 'Sleeping';`);
  assert.ok(sleeping, 'the MPI run has Sleeping states');
  // Nothing is nested in a Sleeping state, so its exclusive time is its clipped duration.
  const nested = sqlite(d.db, `SELECT count(*) FROM states a JOIN states b ON b.trace_id = a.trace_id
    AND b.container_id = a.container_id AND b.depth > a.depth AND b.start >= a.start AND b.start < a."end"
    WHERE a.trace_id = ${id} AND a.value_id = ${sleeping};`);
  assert.equal(nested, '0');
  for (const row of g.rows) {
    assert.ok(row.idle > 0.5, `${row.name}: idle ${row.idle} (StarPU 1.4.7 waits in Sleeping)`);
    const want = Number(sqlite(d.db, `SELECT coalesce(sum(${MAX}(0, ${MIN}("end", ${e}) - ${MAX}(start, ${s}))), 0)
      FROM states WHERE trace_id = ${id} AND container_id = ${row.id} AND value_id = ${sleeping};`)) / (e - s);
    assert.ok(want > 0.2, `${row.name}: sleeps ${want} of the run`);
    close(row.states.Sleeping, want, 1e-9, `${row.name} Sleeping share`);
  }
});

test('compare idle = mean of the rows\' StarVZ idleness over each trace\'s extent', async () => {
  const list = ['gen', ...REAL_RUNS].map((n) => ids.get(n));
  if (list.length < 2) { // compare needs two traces
    const gen2 = join(dir, 'gen2');
    assert.equal(runCli(['generate', '--out', gen2, '--tiles', '5', '--nodes', '1', '--seed', '9']).status, 0);
    ids.set('gen2', importPath(gen2, 'gen2'));
    list.push(ids.get('gen2'));
  }
  const c = await ok(`/api/v1/compare?traces=${list.slice(0, 6).join(',')}`);
  for (const t of c.traces) {
    const { s, e } = extent(t.id);
    const rows = [...sqlIdle(t.id, s, e).values()];
    close(t.idle, rows.reduce((a, b) => a + b, 0) / rows.length, 1e-9, `trace ${t.name} idle`);
  }
});
