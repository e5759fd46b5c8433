// panels.test.mjs: GET /traces/{id}/panels (memory per memory node, GPU and
// MPI transfer bandwidth, GFlop/s over time; StarVZ's panels under the
// Gantt) on the real StarPU 1.4.7 runs (skipped when the shared data is
// absent) and on a generated trace. Expected values are computed here from
// the run's own files, independently of ariadne's import: the memory
// series from paje.trace's "13 <time> <container> use <value>" lines
// (sorted by time, shifted by the trace's origin, integrated over each
// step), the GFlop/s integral from tasks.rec's GFlop of executed tasks.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, runCli, sourceDir, importCli, getOk } from '../lib/daemon.mjs';
import { stopClean } from '../fixtures/api/util.mjs';

const shared = process.env.ARIADNE_SHARED_DATA || join(sourceDir, '..', 'shared', 'data');
const MPI_RUN = 'mpi_chol_dmdas_4ranks_N11520_nb24_slowrank1_nice2';
const CHOL_RUN = 'chol_implicit_dmdas_N11520_nb24';
const haveMpi = existsSync(join(shared, 'starpu', MPI_RUN));
const haveChol = existsSync(join(shared, 'starpu', CHOL_RUN));

let d, dir;
const ids = new Map();

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ariadne-panels-'));
  d = await startDaemon();
  const gen = join(dir, 'gen');
  const g = runCli(['generate', '--out', gen, '--tiles', '5', '--nodes', '2', '--seed', '7']);
  assert.equal(g.status, 0, g.stderr);
  ids.set('gen', importCli(d.db, gen, 'gen'));
  if (haveMpi) ids.set(MPI_RUN, importCli(d.db, join(shared, 'starpu', MPI_RUN), MPI_RUN));
  if (haveChol) ids.set(CHOL_RUN, importCli(d.db, join(shared, 'starpu', CHOL_RUN), CHOL_RUN));
});

after(async () => {
  if (d) await stopClean(d);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const ok = (path) => getOk(d.url, path);
const close = (a, b, rel, what) => assert.ok(Math.abs(a - b) <= rel * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);

// One variable of paje.trace per container name: step rows [start, end) of
// the value, on the trace's origin. Containers are named by their "7" line.
function pajeVariable(file, alias, origin) {
  const names = new Map(), changes = new Map();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const f = line.split(/\s+/);
    if (f[0] === '7' && f.length >= 6) names.set(f[2], f[f.length - 1].replace(/"/g, ''));
    if (f[0] === '13' && f[3] === alias) {
      if (!changes.has(f[2])) changes.set(f[2], []);
      changes.get(f[2]).push({ t: Number(f[1]) - origin, v: Number(f[4]), i: changes.get(f[2]).length });
    }
  }
  const out = new Map();
  for (const [c, list] of changes) {
    list.sort((a, b) => a.t - b.t || a.i - b.i);
    const rows = list.map((x, k) => ({ s: x.t, e: k + 1 < list.length ? list[k + 1].t : Infinity, v: x.v }));
    out.set(names.get(c) || c, { rows, lines: list.length });
  }
  return out;
}

// Time-weighted mean, min and max of step rows over [lo, hi).
function stepStats(rows, lo, hi) {
  let sum = 0, cov = 0, min = Infinity, max = -Infinity;
  for (const r of rows) {
    const w = Math.min(r.e, hi) - Math.max(r.s, lo);
    if (!(w > 0)) continue;
    sum += r.v * w; cov += w; min = Math.min(min, r.v); max = Math.max(max, r.v);
  }
  return { mean: sum / cov, min, max, cov };
}

// The GFlop of the executed tasks of tasks.rec (records with a StartTime).
function recGflop(file) {
  let total = 0;
  for (const rec of readFileSync(file, 'utf8').split(/\n\s*\n/)) {
    if (!/^StartTime:/m.test(rec)) continue;
    const m = rec.match(/^GFlop:\s*(\S+)/m);
    if (m) total += Number(m[1]);
  }
  return total;
}

const byId = (doc, id) => doc.panels.find((p) => p.id === id);
const avail = (doc, id) => doc.available.find((a) => a.id === id);

test('panels: list, units and steps on a generated trace; bad parameters answer 400', async () => {
  const id = ids.get('gen');
  const doc = await ok(`/api/v1/traces/${id}/panels?width=50`);
  assert.equal(doc.available.length, 4);
  assert.deepEqual(doc.available.map((a) => a.id), ['memory', 'gpu_bandwidth', 'mpi_bandwidth', 'gflops']);
  for (const a of doc.available) if (!a.available) assert.ok(a.reason.length > 10, a.id);
  assert.equal(doc.width, 50);
  close(doc.step, (doc.end - doc.start) / 50, 1e-12, 'step');
  for (const p of doc.panels) {
    assert.ok(p.unit && p.aggregation && p.columns, p.id);
    for (const s of p.series) assert.ok(s.points.length <= 50, `${p.id} ${s.name}: at most width points`);
  }
  const only = await ok(`/api/v1/traces/${id}/panels?width=10&panels=gflops`);
  assert.ok(only.panels.every((p) => p.id === 'gflops'));
  for (const q of ['panels=memory,,gflops', 'panels=cpu', 'panels=gflops,', 'width=0', 'width=10001', 'start=5&end=1']) {
    const r = await fetch(`${d.url}/api/v1/traces/${id}/panels?${q}`);
    const body = await r.json();
    assert.equal(r.status, 400, q);
    assert.equal(body.error.code, 'invalid_parameter', q);
  }
});

test('panels: memory per memory node of the 4-rank MPI run equals paje.trace integrated per step', { skip: !haveMpi && `no ${MPI_RUN} under ${shared}` }, async () => {
  const id = ids.get(MPI_RUN);
  const trace = await ok(`/api/v1/traces/${id}`);
  const origin = trace.summary.time_origin;
  assert.equal(typeof origin, 'number');
  const doc = await ok(`/api/v1/traces/${id}/panels?width=7&panels=memory,mpi_bandwidth,gpu_bandwidth`);
  assert.equal(doc.time_unit, 'ms');
  assert.equal(avail(doc, 'memory').available, true);
  assert.equal(avail(doc, 'mpi_bandwidth').available, true);
  assert.equal(avail(doc, 'gpu_bandwidth').available, false, 'the runs have no GPU');
  assert.match(avail(doc, 'gpu_bandwidth').reason, /GPU/);
  const mem = byId(doc, 'memory');
  assert.equal(mem.unit, 'MB');
  const want = pajeVariable(join(shared, 'starpu', MPI_RUN, 'paje.trace'), 'use', origin);
  assert.deepEqual(mem.series.map((s) => s.name).sort(), [...want.keys()].sort());
  for (const s of mem.series) {
    const w = want.get(s.name);
    assert.equal(s.rows, w.lines, `${s.name}: one row per SetVariable line`);
    assert.equal(s.node, Number(s.name.split('_')[0]));
    for (const [t, mean, min, max] of s.points) {
      const e = stepStats(w.rows, t, t + doc.step);
      close(mean, e.mean, 1e-6, `${s.name} mean at ${t}`);
      close(min, e.min, 1e-9, `${s.name} min at ${t}`);
      close(max, e.max, 1e-9, `${s.name} max at ${t}`);
    }
    assert.equal(s.points.length, 7);
  }
  // MPI bandwidth out: one series per rank, MB/s, means from the same lines
  const mpi = byId(doc, 'mpi_bandwidth');
  assert.equal(mpi.unit, 'MB/s');
  const bw = pajeVariable(join(shared, 'starpu', MPI_RUN, 'paje.trace'), 'bwo_mpi', origin);
  assert.deepEqual(mpi.series.map((s) => s.name), ['0_mpict', '1_mpict', '2_mpict', '3_mpict']);
  for (const s of mpi.series) {
    for (const [t, mean] of s.points) {
      const e = stepStats(bw.get(s.name).rows, t, t + doc.step);
      assert.ok(Math.abs(mean - e.mean) <= 1e-6 * Math.max(1, Math.abs(e.max), Math.abs(e.min)), `${s.name} at ${t}: ${mean} vs ${e.mean}`);
    }
  }
});

test('panels: the GFlop/s integral over the run equals the GFlop of tasks.rec', async (t) => {
  const runs = [[MPI_RUN, haveMpi, 4], [CHOL_RUN, haveChol, 1]].filter(([, have]) => have);
  if (!runs.length) { t.skip(`no StarPU runs under ${shared}`); return; }
  for (const [run, , nseries] of runs) {
    const id = ids.get(run);
    const doc = await ok(`/api/v1/traces/${id}/panels?width=500&panels=gflops`);
    const g = byId(doc, 'gflops');
    assert.equal(g.unit, 'GFlop/s');
    assert.equal(g.series.length, nseries, `${run}: one series per node and resource type`);
    const stepSeconds = doc.step / 1000; // ms
    const integral = g.series.reduce((a, s) => a + s.points.reduce((b, p) => b + p[1] * stepSeconds, 0), 0);
    const want = recGflop(join(shared, 'starpu', run, 'tasks.rec'));
    close(integral, want, 1e-9, `${run}: integral of GFlop/s`);
    close(g.series.reduce((a, s) => a + s.gflop, 0), want, 1e-9, `${run}: GFlop of the series`);
    assert.ok(g.series.every((s) => s.points.every((p) => p[1] >= 0)));
    if (run === CHOL_RUN) {
      const doc2 = await ok(`/api/v1/traces/${id}/panels?width=10`);
      assert.equal(avail(doc2, 'mpi_bandwidth').available, false, 'a single-process run has no MPI thread');
      assert.match(avail(doc2, 'mpi_bandwidth').reason, /MPI/);
    }
  }
});

test('panels: a window restricts the steps and the node filter the series', { skip: !haveMpi && `no ${MPI_RUN} under ${shared}` }, async () => {
  const id = ids.get(MPI_RUN);
  const doc = await ok(`/api/v1/traces/${id}/panels?start=1000&end=2000&width=10&nodes=1`);
  assert.equal(doc.start, 1000);
  assert.equal(doc.end, 2000);
  for (const p of doc.panels) {
    assert.ok(p.series.length > 0, p.id);
    for (const s of p.series) {
      assert.equal(s.node, 1, `${p.id} ${s.name}`);
      for (const pt of s.points) assert.ok(pt[0] >= 1000 && pt[0] < 2000);
    }
  }
});
