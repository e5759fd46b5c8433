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
const ids = new Map(), dirs = new Map();

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ariadne-panels-'));
  d = await startDaemon();
  const gen = join(dir, 'gen');
  const g = runCli(['generate', '--out', gen, '--tiles', '5', '--nodes', '2', '--seed', '7']);
  assert.equal(g.status, 0, g.stderr);
  ids.set('gen', importCli(d.db, gen, 'gen'));
  const gpu = join(dir, 'gpu');
  const g2 = runCli(['generate', '--out', gpu, '--tiles', '6', '--nodes', '1', '--cpus', '2', '--gpus', '2', '--seed', '3']);
  assert.equal(g2.status, 0, g2.stderr);
  ids.set('gpu', importCli(d.db, gpu, 'gpu'));
  dirs.set('gpu', gpu);
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
  assert.equal(doc.available.length, 6);
  assert.deepEqual(doc.available.map((a) => a.id), ['memory', 'gpu_bandwidth', 'mpi_bandwidth', 'gflops', 'memory_states', 'memory_handles']);
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

// ---- memory manager, data handles, GPU links (issue 14) ----

// The lines of paje.trace split on whitespace, and container alias -> name.
function pajeLines(file) {
  const names = new Map(), lines = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f[0] === '7' && f.length >= 6) names.set(f[2], f[f.length - 1].replace(/"/g, ''));
    lines.push(f);
  }
  return { names, lines };
}

// The "Memory Node State" (alias MS) intervals per "<container> <state>",
// from its SetState (10), PushState (11) and PopState (12) lines; Nothing
// (No) left out, as the API does.
function memoryStates(file, origin) {
  const { names, lines } = pajeLines(file);
  const stack = new Map(), out = new Map();
  const close = (c, v, s, e) => {
    if (v === 'No') return;
    const key = `${names.get(c) || c} ${v}`;
    if (!out.has(key)) out.set(key, []);
    out.get(key).push([s - origin, e - origin]);
  };
  let last = -Infinity;
  for (const f of lines) {
    if (!['10', '11', '12'].includes(f[0]) || f[3] !== 'MS') continue;
    const t = Number(f[1]), c = f[2];
    last = Math.max(last, t);
    if (!stack.has(c)) stack.set(c, []);
    const st = stack.get(c);
    if (f[0] === '10') { if (st.length) { const [v, s] = st.pop(); close(c, v, s, t); } st.length = 0; st.push([f[4], t]); }
    if (f[0] === '11') st.push([f[4], t]);
    if (f[0] === '12' && st.length) { const [v, s] = st.pop(); close(c, v, s, t); }
  }
  for (const [c, st] of stack) for (const [v, s] of st) close(c, v, s, last);
  return out;
}

const STATE_NAMES = { A: 'Allocating', Ar: 'AllocatingReuse', F: 'Freeing', W: 'WritingBack', Wa: 'WritingBackAsync', R: 'Reclaiming', Co: 'DriverCopy', CoA: 'DriverCopyAsync' };

async function checkStates(id, run, file) {
  const trace = await ok(`/api/v1/traces/${id}`);
  const want = memoryStates(file, trace.summary.time_origin);
  let lo = Infinity, hi = -Infinity;
  for (const rows of want.values()) for (const [s, e] of rows) { lo = Math.min(lo, s); hi = Math.max(hi, e); }
  lo -= 1; hi += 1;
  const doc = await ok(`/api/v1/traces/${id}/panels?panels=memory_states&width=97&start=${lo}&end=${hi}`);
  assert.equal(avail(doc, 'memory_states').available, true, run);
  const p = byId(doc, 'memory_states');
  assert.equal(p.unit, 'share of time');
  const got = new Map(p.series.map((q) => [`${q.container} ${Object.entries(STATE_NAMES).find(([, n]) => n === q.state)?.[0] ?? q.state}`, q]));
  assert.deepEqual([...got.keys()].sort(), [...want.keys()].sort(), `${run}: one series per (memory manager, state)`);
  for (const [key, rows] of want) {
    const q = got.get(key);
    const time = rows.reduce((a, [s, e]) => a + (e - s), 0);
    assert.equal(q.count, rows.length, `${run} ${key}: count`);
    close(q.time, time, 1e-6, `${run} ${key}: time in state`);
    // the shares of the steps add up to the time in the state
    close(q.points.reduce((a, pt) => a + pt[1] * doc.step, 0), time, 1e-6, `${run} ${key}: shares x step`);
    assert.ok(q.points.every((pt) => pt[1] > 0 && pt[1] <= 1 + 1e-9), `${run} ${key}: shares in (0, 1]`);
  }
  return want;
}

test('panels: memory-manager states per memory node equal the MS states of paje.trace (4-rank MPI run)', { skip: !haveMpi && `no ${MPI_RUN} under ${shared}` }, async () => {
  const want = await checkStates(ids.get(MPI_RUN), MPI_RUN, join(shared, 'starpu', MPI_RUN, 'paje.trace'));
  // the run allocates on every rank: Allocating states on the 4 memory managers
  const alloc = [...want.keys()].filter((k) => k.endsWith(' A'));
  assert.equal(alloc.length, 4);
  assert.deepEqual(alloc.map((k) => want.get(k).length).sort((a, b) => a - b), [66, 78, 303, 320]);
});

test('panels: memory-manager states of a generated run with GPUs (SetState DriverCopy)', async () => {
  await checkStates(ids.get('gpu'), 'gpu', join(dirs.get('gpu'), 'paje.trace'));
});

// Memory used per memory node from the data handles present (data state
// owner/shared until invalid) and data.rec's Size (MiB), as step rows.
function handlePresence(dirPath, origin) {
  const sizes = new Map();
  for (const rec of readFileSync(join(dirPath, 'data.rec'), 'utf8').split(/\n\s*\n/)) {
    const h = rec.match(/^Handle:\s*(\S+)/m), sz = rec.match(/^Size:\s*(\S+)/m), rk = rec.match(/^MPIRank:\s*(\S+)/m);
    if (h && sz) sizes.set(`${rk ? rk[1] : ''}/${h[1]}`, Number(sz[1]));
  }
  const { names, lines } = pajeLines(join(dirPath, 'paje.trace'));
  const seq = new Map();
  lines.forEach((f, i) => {
    if (f[0] !== '9' || !['SO', 'SS', 'SI'].includes(f[2])) return;
    const c = names.get(f[3]) || f[3];
    const rank = /^(\d+)_/.exec(c);
    const size = sizes.get(`${rank ? rank[1] : ''}/${f[4]}`) ?? sizes.get(`/${f[4]}`);
    if (size === undefined) return;
    const key = `${c}\t${f[4]}`;
    if (!seq.has(key)) seq.set(key, []);
    seq.get(key).push({ t: Number(f[1]) - origin, present: f[2] !== 'SI', size, i });
  });
  const deltas = new Map();
  for (const [key, evs] of seq) {
    const c = key.split('\t')[0];
    evs.sort((a, b) => a.t - b.t || a.i - b.i);
    let inMem = false;
    for (const e of evs) {
      if (e.present !== inMem) {
        if (!deltas.has(c)) deltas.set(c, []);
        deltas.get(c).push([e.t, e.present ? e.size : -e.size]);
      }
      inMem = e.present;
    }
  }
  const out = new Map();
  for (const [c, ds] of deltas) {
    ds.sort((a, b) => a[0] - b[0]);
    const rows = [];
    let cur = 0;
    ds.forEach(([t, b], k) => {
      cur += b;
      if (k + 1 < ds.length && ds[k + 1][0] === t) return;
      rows.push({ s: t, e: k + 1 < ds.length ? ds[k + 1][0] : Infinity, v: cur / 1048576 });
    });
    out.set(c, rows);
  }
  return out;
}

test('panels: memory used from the data handles present equals data.rec sizes x SO/SS/SI events', async (t) => {
  const runs = [[CHOL_RUN, haveChol, 1], [MPI_RUN, haveMpi, 4]].filter(([, have]) => have);
  if (!runs.length) { t.skip(`no StarPU runs under ${shared}`); return; }
  for (const [run, , nseries] of runs) {
    const id = ids.get(run);
    const trace = await ok(`/api/v1/traces/${id}`);
    const want = handlePresence(join(shared, 'starpu', run), trace.summary.time_origin);
    const doc = await ok(`/api/v1/traces/${id}/panels?panels=memory_handles&width=13`);
    assert.equal(avail(doc, 'memory_handles').available, true, run);
    const p = byId(doc, 'memory_handles');
    assert.equal(p.unit, 'MB');
    assert.equal(p.series.length, nseries, `${run}: one series per memory node`);
    assert.equal(p.events.sized, p.events.total, `${run}: every handle of the events is in data.rec`);
    for (const s of p.series) {
      const rows = want.get(s.name);
      assert.ok(rows, `${run}: ${s.name} expected`);
      close(s.peak, Math.max(...rows.map((r) => r.v)), 1e-9, `${run} ${s.name}: peak`);
      assert.ok(s.points.length > 0);
      for (const [t0, mean, min, max] of s.points) {
        const e = stepStats(rows, t0, t0 + doc.step);
        close(mean, e.mean, 1e-6, `${run} ${s.name} mean at ${t0}`);
        close(min, e.min, 1e-9, `${run} ${s.name} min at ${t0}`);
        close(max, e.max, 1e-9, `${run} ${s.name} max at ${t0}`);
      }
    }
  }
  // a run without SO/SS/SI events says why the panel is missing
  if (existsSync(join(shared, 'starpu', 'qrm-grad3d30-lws'))) {
    const q = importCli(d.db, join(shared, 'starpu', 'qrm-grad3d30-lws'), 'qrm-lws');
    const doc = await ok(`/api/v1/traces/${q}/panels?width=5&panels=memory_states`);
    assert.equal(avail(doc, 'memory_handles').available, false);
    assert.match(avail(doc, 'memory_handles').reason, /data\.rec/);
    assert.equal(avail(doc, 'memory_states').available, true, 'qr_mumps allocates: 12 MS states');
  }
});

// The intra-node links of a generated trace with CUDA workers: start (24)
// and end (19) lines paired by key; bytes in the link's value.
function gpuLinks(file, origin) {
  const { names, lines } = pajeLines(file);
  const open = new Map(), links = [];
  for (const f of lines) {
    if (f[0] === '24') open.set(f[6], { s: Number(f[1]) - origin, bytes: Number(f[4]), from: names.get(f[5]) || f[5] });
    if (f[0] === '19' && open.has(f[6])) {
      const l = open.get(f[6]);
      open.delete(f[6]);
      links.push({ ...l, e: Number(f[1]) - origin, to: names.get(f[5]) || f[5] });
    }
  }
  const gpu = (n) => /MEM(MANAGER|NODE)[1-9]\d*$/.test(n);
  return links.filter((l) => gpu(l.from) || gpu(l.to));
}

test('panels: GPU bandwidth of a generated run with CUDA workers: per step, bytes moved / step length', async () => {
  const id = ids.get('gpu');
  const trace = await ok(`/api/v1/traces/${id}`);
  const links = gpuLinks(join(dirs.get('gpu'), 'paje.trace'), trace.summary.time_origin);
  assert.ok(links.length > 10, `${links.length} GPU links`);
  const lo = Math.min(...links.map((l) => l.s)) - 0.5, hi = Math.max(...links.map((l) => l.e)) + 0.5;
  const width = 37;
  const doc = await ok(`/api/v1/traces/${id}/panels?panels=gpu_bandwidth&width=${width}&start=${lo}&end=${hi}`);
  assert.equal(avail(doc, 'gpu_bandwidth').available, true);
  const p = byId(doc, 'gpu_bandwidth');
  assert.equal(p.unit, 'MB/s');
  assert.equal(p.source, 'links');
  const total = links.reduce((a, l) => a + l.bytes, 0);
  close(p.series.reduce((a, s) => a + s.bytes, 0), total, 1e-12, 'bytes of the series');
  assert.equal(p.series.reduce((a, s) => a + s.movements, 0), links.length);
  const stepS = doc.step / 1000; // ms
  for (let k = 0; k < width; k++) {
    const b0 = lo + k * doc.step, b1 = b0 + doc.step;
    // bytes of each link inside the step, spread uniformly over the link
    const bytes = links.reduce((a, l) => a + (l.e > l.s ? l.bytes * Math.max(0, Math.min(l.e, b1) - Math.max(l.s, b0)) / (l.e - l.s)
      : (l.s >= b0 && l.s < b1 ? l.bytes : 0)), 0);
    const sum = p.series.reduce((a, s) => a + s.points[k][1], 0);
    close(sum, bytes / 1e6 / stepS, 1e-9, `step ${k}: MB/s`);
  }
  // the integral over the window is every byte moved
  close(p.series.reduce((a, s) => a + s.points.reduce((b, pt) => b + pt[1] * stepS * 1e6, 0), 0), total, 1e-9, 'integral');
});
