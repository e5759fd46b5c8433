// analysis.test.mjs: the task-trace analyses of docs/api.md (gantt, bounds,
// outliers, timeseries, iterations, critical-path, compare) against a live
// daemon. Each answer is checked against an independent recomputation: the
// ABE against glpsol on an LP file written here, the CPE and the critical
// path against the dependencies read with sqlite3, the outliers against
// R's type-7 quantiles computed here, the pixel shares against the tasks.
// Also: filters, bad parameters (400), a Paje-only trace (409 no_tasks),
// missing traces (404), hostile values that must not crash the daemon, and
// the StarVZ LU sample's known values when /work/shared/data is present.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, runCli, sourceDir, importCli, getOk } from '../lib/daemon.mjs';
import { getJson, assertError, assertOkJson, sqlite, stopClean, smallTracePath } from '../fixtures/api/util.mjs';

const shared = process.env.ARIADNE_SHARED_DATA || join(sourceDir, '..', 'shared', 'data');
const luDir = join(shared, 'starvz', 'inst', 'extdata', 'lu_trace');
const GLPSOL = '/usr/bin/glpsol';

let d, dir, gen, gen2, paje, lu = null;

const importPath = (path, name) => importCli(d.db, path, name);

function generate(out, tiles, seed) {
  const r = runCli(['generate', '--out', out, '--tiles', String(tiles), '--nodes', '2', '--seed', String(seed)]);
  assert.equal(r.status, 0, r.stderr);
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ariadne-analysis-'));
  d = await startDaemon();
  generate(join(dir, 'gen'), 6, 1);
  generate(join(dir, 'gen2'), 5, 7);
  gen = importPath(join(dir, 'gen'), 'gen6');
  gen2 = importPath(join(dir, 'gen2'), 'gen5');
  paje = importPath(smallTracePath, 'paje-only');
  if (existsSync(luDir)) lu = importPath(luDir, 'lu');
});

after(async () => {
  if (d) await stopClean(d);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const ok = (path) => getOk(d.url, path);

const close = (a, b, tol, what) => assert.ok(Math.abs(a - b) <= tol * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);

// Every task of a trace through the gantt's tasks mode.
async function allTasks(id) {
  const g = await ok(`/api/v1/traces/${id}/gantt?width=1000&max_tasks=1000000`);
  const tasks = [];
  for (const row of g.rows) {
    assert.equal(row.mode, 'tasks');
    for (const t of row.tasks) tasks.push({ ...t, typeName: g.types[t.type], row, restype: row.resource_type });
  }
  return { g, tasks };
}

// Dependencies between tasks, non-task names contracted (as the API does).
function taskPreds(id, jobIds) {
  const out = sqlite(d.db, `SELECT job_id || '|' || depends_on FROM deps WHERE trace_id = ${id};`);
  const preds = new Map();
  for (const line of out.split('\n').filter(Boolean)) {
    const [succ, pred] = line.split('|');
    if (!preds.has(succ)) preds.set(succ, []);
    preds.get(succ).push(pred);
  }
  const result = new Map();
  for (const v of jobIds) {
    const seen = new Set([v]);
    const stack = [...(preds.get(v) || [])];
    const mine = new Set();
    while (stack.length) {
      const u = stack.pop();
      if (seen.has(u)) continue;
      seen.add(u);
      if (jobIds.has(u)) mine.add(u);
      else stack.push(...(preds.get(u) || []));
    }
    result.set(v, [...mine]);
  }
  return result;
}

// R's quantile(type = 7).
function quantile7(sorted, p) {
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h), hi = Math.ceil(h);
  if (hi === lo || sorted[hi] === sorted[lo]) return sorted[lo];
  return (1 - (h - lo)) * sorted[lo] + (h - lo) * sorted[hi];
}
const round10 = (x) => (x > 0 ? Number(x.toPrecision(10)) : 0);

test('gantt: every task once, rows ordered, types stable', async () => {
  const trace = await ok(`/api/v1/traces/${gen}`);
  const { g, tasks } = await allTasks(gen);
  assert.equal(g.rows.length, trace.summary.workers_total);
  assert.equal(tasks.length, trace.summary.tasks);
  assert.deepEqual(g.types, Object.keys(trace.summary.task_types).sort());
  assert.equal(new Set(tasks.map((t) => t.job_id)).size, tasks.length, 'job ids unique');
  for (const row of g.rows) {
    for (let i = 1; i < row.tasks.length; i++) assert.ok(row.tasks[i].start >= row.tasks[i - 1].start, 'sorted');
    assert.ok(row.idle >= 0 && row.idle <= 1);
    // StarVZ's idleness: 1 - task time / span (the window, here the extent)
    const busy = row.tasks.reduce((s, t) => s + Math.min(t.end, g.end) - Math.max(t.start, g.start), 0);
    close(row.idle, Math.max(0, 1 - busy / (g.end - g.start)), 1e-9, `${row.name} idle`);
  }
  const keys = g.rows.map((r) => [r.node, r.resource_type, r.resource]);
  const sorted = [...keys].sort((a, b) => a[0] - b[0] || a[1].localeCompare(b[1]) ||
    a[2].localeCompare(b[2], 'en', { numeric: true }));
  assert.deepEqual(keys, sorted, 'rows by node, resource type, resource');
  const ends = tasks.map((t) => t.end);
  close(g.extent.end, Math.max(...ends), 1e-12, 'extent end');
  close(g.extent.start, Math.min(...tasks.map((t) => t.start)), 1e-12, 'extent start');
  const b = await ok(`/api/v1/traces/${gen}/bounds`);
  for (const k of ['makespan', 'abe', 'cpe']) close(g.marks[k], b[k], 1e-11, `marks.${k}`);
});

test('gantt: pixel shares add up to the tasks and the idle share', async () => {
  const { tasks } = await allTasks(gen);
  const width = 97;
  const g = await ok(`/api/v1/traces/${gen}/gantt?width=${width}&max_tasks=0`);
  const dt = (g.end - g.start) / width;
  for (const row of g.rows) {
    assert.equal(row.mode, 'pixels');
    assert.equal(row.tasks, null);
    const perPixel = new Array(width).fill(0);
    const busy = new Map();
    for (const [px, type, share] of row.pixels.shares) {
      assert.ok(px >= 0 && px < width && share > 0 && share <= 1 + 1e-9);
      perPixel[px] += share;
      busy.set(type, (busy.get(type) || 0) + share * dt);
    }
    perPixel.forEach((s, px) => close(s + row.pixels.idle[px], 1, 1e-9, `pixel ${px} of ${row.name}`));
    const mine = tasks.filter((t) => t.row.id === row.id);
    const expected = new Map();
    for (const t of mine) expected.set(t.type, (expected.get(t.type) || 0) + (t.end - t.start));
    for (const [type, time] of expected) close(busy.get(type) || 0, time, 1e-6, `busy ${row.name} type ${type}`);
  }
  // a zoomed window keeps only the overlapping tasks
  const mid = (g.start + g.end) / 2, w0 = mid - dt * 5, w1 = mid + dt * 5;
  const z = await ok(`/api/v1/traces/${gen}/gantt?width=100&max_tasks=1000&start=${w0}&end=${w1}`);
  const count = z.rows.reduce((n, r) => n + r.tasks.length, 0);
  const expected = tasks.filter((t) => t.start < w1 && t.end > w0).length;
  assert.equal(count, expected, 'tasks overlapping the window');
});

function glpsolAbe(b) {
  const types = [...new Set(b.allocation.map((a) => a.type))];
  const restypes = [...new Set(b.allocation.map((a) => a.resource_type))];
  const workers = new Map(b.allocation.map((a) => [a.resource_type, a.workers]));
  const n = new Map(types.map((k) => [k, 0]));
  const v = (r, k) => `x_${restypes.indexOf(r)}_${types.indexOf(k)}`;
  for (const a of b.allocation) n.set(a.type, n.get(a.type) + a.actual);
  const lines = ['Minimize', ' obj: T', 'Subject To'];
  types.forEach((k, i) => {
    const terms = b.allocation.filter((a) => a.type === k && a.mean_duration !== null).map((a) => v(a.resource_type, k));
    lines.push(` n${i}: ${terms.join(' + ')} = ${n.get(k)}`);
  });
  restypes.forEach((r, j) => {
    const terms = b.allocation.filter((a) => a.resource_type === r && a.mean_duration !== null)
      .map((a) => `${a.mean_duration} ${v(r, a.type)}`);
    lines.push(` w${j}: ${terms.join(' + ')} - ${workers.get(r)} T <= 0`);
  });
  lines.push('End');
  const lp = join(dir, `abe-${Math.random().toString(36).slice(2)}.lp`);
  const outFile = lp + '.out';
  writeFileSync(lp, lines.join('\n') + '\n');
  execFileSync(GLPSOL, ['--lp', lp, '-o', outFile], { encoding: 'utf8' });
  const m = /Objective:\s+obj = ([-0-9.e+]+)/.exec(readFileSync(outFile, 'utf8'));
  assert.ok(m, 'glpsol objective');
  return Number(m[1]);
}

test('bounds: ABE equals glpsol on the same LP; CPE equals a longest path; means match the tasks', async () => {
  const b = await ok(`/api/v1/traces/${gen}/bounds`);
  const { tasks } = await allTasks(gen);
  assert.equal(b.time_unit, 'ms');
  assert.equal(b.tasks, tasks.length);
  close(b.makespan, Math.max(...tasks.map((t) => t.end)), 1e-12, 'makespan');
  if (existsSync(GLPSOL)) close(b.abe, glpsolAbe(b), 1e-6, 'ABE vs glpsol');
  assert.ok(b.abe <= b.makespan + 1e-9 && b.cpe <= b.makespan + 1e-9, 'bounds are lower bounds');
  // means and counts per (resource type, type) from the tasks
  const groups = new Map();
  for (const t of tasks) {
    const key = `${t.restype}/${t.typeName}`;
    const gr = groups.get(key) || { n: 0, sum: 0 };
    gr.n++; gr.sum += t.end - t.start;
    groups.set(key, gr);
  }
  for (const a of b.allocation) {
    const gr = groups.get(`${a.resource_type}/${a.type}`);
    assert.equal(a.actual, gr ? gr.n : 0);
    if (gr) close(a.mean_duration, gr.sum / gr.n, 1e-9, `mean ${a.resource_type}/${a.type}`);
  }
  const byType = new Map();
  for (const a of b.allocation) byType.set(a.type, (byType.get(a.type) || 0) + a.ideal);
  for (const [k, ideal] of byType) close(ideal, tasks.filter((t) => t.typeName === k).length, 1e-6, `ideal ${k}`);
  // CPE: longest path with each task at the fastest mean of its type
  const fastest = new Map();
  for (const a of b.allocation) {
    if (a.mean_duration !== null && (!fastest.has(a.type) || a.mean_duration < fastest.get(a.type))) fastest.set(a.type, a.mean_duration);
  }
  const ids = new Map(tasks.map((t) => [t.job_id, t]));
  const preds = taskPreds(gen, new Set(ids.keys()));
  const memo = new Map();
  const longest = (v) => {
    if (memo.has(v)) return memo.get(v);
    let best = 0;
    for (const p of preds.get(v)) best = Math.max(best, longest(p));
    const len = best + fastest.get(ids.get(v).typeName);
    memo.set(v, len);
    return len;
  };
  const cpe = Math.max(...[...ids.keys()].map(longest));
  close(b.cpe, cpe, 1e-9, 'CPE vs longest path');
  // per node: the node's tasks only
  assert.equal(b.nodes.length, 2);
  for (const nd of b.nodes) {
    const mine = tasks.filter((t) => t.row.node === nd.node);
    assert.equal(nd.tasks, mine.length);
    close(nd.makespan, Math.max(...mine.map((t) => t.end)), 1e-12, `makespan node ${nd.node}`);
    if (existsSync(GLPSOL)) close(nd.abe, glpsolAbe(nd), 1e-6, `ABE node ${nd.node}`);
  }
  const b1 = await ok(`/api/v1/traces/${gen}/bounds?nodes=1`);
  const n1 = b.nodes.find((x) => x.node === 1);
  assert.equal(b1.tasks, n1.tasks);
  close(b1.abe, n1.abe, 1e-9, 'bounds?nodes=1 abe = node 1 abe');
  close(b1.cpe, n1.cpe, 1e-9, 'bounds?nodes=1 cpe = node 1 cpe');
  const trace = await ok(`/api/v1/traces/${gen}`);
  const bt = await ok(`/api/v1/traces/${gen}/bounds?types=dgemm,dtrsm`);
  assert.equal(bt.tasks, trace.summary.task_types.dgemm + trace.summary.task_types.dtrsm);
  const bm = await ok(`/api/v1/traces/${gen}/bounds?min_duration=5&resources=CPU`);
  assert.equal(bm.tasks, tasks.filter((t) => t.end - t.start >= 5 && t.restype === 'CPU').length);
  assert.equal(bm.workers, trace.summary.workers.CPU);
});

test('outliers: thresholds are Q3 + 1.5 IQR (type 7) of each group', async () => {
  const o = await ok(`/api/v1/traces/${gen}/outliers`);
  const { tasks } = await allTasks(gen);
  const groups = new Map();
  for (const t of tasks) {
    const key = `${t.typeName}/${t.restype}`;
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(round10(t.end - t.start));
  }
  assert.equal(o.groups.length, groups.size);
  let count = 0;
  for (const g of o.groups) {
    const ds = groups.get(`${g.type}/${g.resource_type}`).sort((a, b) => a - b);
    const q1 = quantile7(ds, 0.25), q3 = quantile7(ds, 0.75);
    close(g.q1, q1, 1e-12, 'q1');
    close(g.q3, q3, 1e-12, 'q3');
    close(g.threshold, q3 + 1.5 * (q3 - q1), 1e-12, 'threshold');
    const above = ds.filter((x) => x > g.threshold).length;
    assert.equal(g.outliers, above);
    count += above;
  }
  assert.equal(o.count, count);
  assert.equal(o.tasks.length, Math.min(count, 1000));
  const flagged = tasks.filter((t) => t.outlier).map((t) => t.job_id).sort();
  assert.deepEqual(o.tasks.map((t) => t.job_id).sort(), flagged, 'gantt outlier flags = outliers');
  const lim = await ok(`/api/v1/traces/${gen}/outliers?limit=0`);
  assert.equal(lim.tasks.length, 0);
  assert.equal(lim.count, count);
});

test('iterations: segments from the tasks', async () => {
  const it = await ok(`/api/v1/traces/${gen}/iterations`);
  const { tasks } = await allTasks(gen);
  const by = new Map();
  for (const t of tasks) {
    if (t.iteration === null) continue;
    const s = by.get(t.iteration) || { start: Infinity, end: -Infinity, tasks: 0, types: {} };
    s.start = Math.min(s.start, t.start); s.end = Math.max(s.end, t.end); s.tasks++;
    s.types[t.typeName] = (s.types[t.typeName] || 0) + 1;
    by.set(t.iteration, s);
  }
  assert.equal(it.iterations.length, by.size);
  assert.ok(it.iterations.length > 1);
  for (const seg of it.iterations) {
    const s = by.get(seg.iteration);
    close(seg.start, s.start, 1e-12, 'start');
    close(seg.end, s.end, 1e-12, 'end');
    assert.equal(seg.tasks, s.tasks);
    assert.deepEqual(seg.types, s.types);
  }
});

test('critical path: each step goes back to the latest-finishing predecessor', async () => {
  const { tasks } = await allTasks(gen);
  const ids = new Map(tasks.map((t) => [t.job_id, t]));
  const preds = taskPreds(gen, new Set(ids.keys()));
  const cp = await ok(`/api/v1/traces/${gen}/critical-path`);
  const last = tasks.reduce((a, b) => (b.end > a.end ? b : a));
  assert.equal(cp.seeds, 1);
  assert.equal(cp.tasks[cp.tasks.length - 1].end, last.end);
  assert.equal(cp.edges.length, cp.tasks.length - 1);
  for (const e of cp.edges) {
    const ps = preds.get(e.to);
    const latest = Math.max(...ps.map((p) => ids.get(p).end));
    assert.ok(ps.includes(e.from), `${e.from} is a predecessor of ${e.to}`);
    assert.equal(ids.get(e.from).end, latest, 'latest-finishing predecessor');
    close(e.gap, ids.get(e.to).start - ids.get(e.from).end, 1e-9, 'gap');
  }
  assert.equal(preds.get(cp.tasks[0].job_id).length, 0, 'the path starts at a task without predecessors');
  close(cp.length, last.end - cp.tasks[0].start, 1e-12, 'length');
  const merged = await ok(`/api/v1/traces/${gen}/critical-path?type=dpotrf&min_gap=0.001`);
  assert.equal(merged.seeds, tasks.filter((t) => t.typeName === 'dpotrf').length);
  for (const e of merged.edges) assert.ok(e.gap >= 0.001 && e.count >= 1);
  const from = cp.tasks[Math.floor(cp.tasks.length / 2)].job_id;
  const part = await ok(`/api/v1/traces/${gen}/critical-path?from=${from}`);
  assert.equal(part.tasks[part.tasks.length - 1].job_id, from);
  assert.deepEqual(part.tasks.map((t) => t.job_id), cp.tasks.slice(0, part.tasks.length).map((t) => t.job_id));
});

test('timeseries: per-pixel [t, min, max, last], per node sums, starving periods', async () => {
  const width = 40;
  const ts = await ok(`/api/v1/traces/${gen}/timeseries?width=${width}`);
  assert.deepEqual(ts.series.map((s) => s.name), ['ready', 'submitted']);
  assert.equal(ts.threshold, 10, 'default threshold: the number of workers');
  for (const s of ts.series) {
    assert.ok(s.points.length > 0 && s.points.length <= width);
    for (const [t, min, max, last] of s.points) {
      assert.ok(t >= ts.start && t < ts.end);
      assert.ok(min <= last && last <= max && min >= 0, `${s.name} at ${t}: ${min} ${last} ${max}`);
    }
  }
  const pn = await ok(`/api/v1/traces/${gen}/timeseries?width=${width}&per_node=1`);
  assert.equal(pn.series.length, 4);
  for (const name of ['ready', 'submitted']) {
    const sum = ts.series.find((s) => s.name === name);
    const parts = pn.series.filter((s) => s.name === name);
    assert.deepEqual(parts.map((s) => s.node), [0, 1]);
    for (const [t, , , last] of sum.points) {
      const vals = parts.map((p) => p.points.find((q) => q[0] === t));
      if (vals.every(Boolean)) close(last, vals[0][3] + vals[1][3], 1e-12, `${name} sum at ${t}`);
    }
  }
  let prev = -Infinity;
  for (const [a, b] of ts.starved) {
    assert.ok(a >= ts.start && b <= ts.end && a < b && a >= prev);
    prev = b;
  }
  const none = await ok(`/api/v1/traces/${gen}/timeseries?width=${width}&threshold=0`);
  assert.deepEqual(none.starved, []);
  const all = await ok(`/api/v1/traces/${gen}/timeseries?width=${width}&threshold=1000000`);
  assert.ok(all.starved.length >= 1);
});

test('compare: the same numbers as each trace\'s own analyses', async () => {
  const c = await ok(`/api/v1/compare?traces=${gen},${gen2}`);
  assert.equal(c.traces.length, 2);
  const types = new Set();
  let start = Infinity, end = -Infinity;
  for (const t of c.traces) {
    const b = await ok(`/api/v1/traces/${t.id}/bounds`);
    const o = await ok(`/api/v1/traces/${t.id}/outliers`);
    const g = await ok(`/api/v1/traces/${t.id}/gantt?width=10`);
    assert.equal(t.makespan, b.makespan);
    assert.equal(t.abe, b.abe);
    assert.equal(t.cpe, b.cpe);
    assert.equal(t.outliers, o.count);
    assert.equal(t.tasks, b.tasks);
    assert.equal(t.workers, g.rows.length);
    const idle = g.rows.reduce((s, r) => s + r.idle, 0) / g.rows.length;
    close(t.idle, idle, 1e-9, 'idle');
    g.types.forEach((k) => types.add(k));
    start = Math.min(start, g.extent.start);
    end = Math.max(end, g.extent.end);
  }
  assert.deepEqual(c.types, [...types].sort());
  close(c.extent.start, start, 1e-12, 'extent start');
  close(c.extent.end, end, 1e-12, 'extent end');
  const f = await ok(`/api/v1/compare?traces=${gen},${gen2}&nodes=0&types=dgemm`);
  for (const t of f.traces) assert.equal(t.tasks, (await ok(`/api/v1/traces/${t.id}/bounds?nodes=0&types=dgemm`)).tasks);
});

test('bad parameters are 400s with a message', async () => {
  const base = `/api/v1/traces/${gen}`;
  const bad = [
    'gantt?width=0', 'gantt?width=10001', 'gantt?width=abc', 'gantt?width=1e3', 'gantt?max_tasks=-1',
    'gantt?start=nan', 'gantt?start=inf', 'gantt?end=-Infinity', 'gantt?end=1e999', 'gantt?start=5&end=5',
    'gantt?start=10&end=1', 'gantt?start=1e300', 'gantt?types=nope', 'gantt?types=', 'gantt?types=,,,',
    'gantt?types=dgemm,,dtrsm', 'gantt?resources=GPU', 'gantt?nodes=x', 'gantt?nodes=99', 'gantt?nodes=-1',
    'gantt?nodes=', 'gantt?min_duration=-1', 'gantt?start=0x10', 'bounds?types=dgemm%00x',
    `bounds?types=${'a'.repeat(5000)}`, 'outliers?limit=-5', 'outliers?limit=x',
    'timeseries?per_node=2', 'timeseries?threshold=-1', 'timeseries?width=100000',
    'critical-path?min_gap=nan', 'critical-path?from=nope', 'critical-path?type=nope',
    'critical-path?from=0_1&type=dpotrf', 'critical-path?from=', 'iterations?start=abc',
  ];
  for (const q of bad) assertError(await getJson(d.url, `${base}/${q}`), 400, 'invalid_parameter', q);
  const r = await getJson(d.url, `${base}/gantt?types=nope`);
  assert.match(r.json.error.message, /dgemm/, 'the message lists the valid types');
  for (const q of ['', '?traces=', `?traces=${gen}`, `?traces=${gen},${gen}`, '?traces=a,b', '?traces=1,,2',
    '?traces=1,2,3,4,5,6,7', '?traces=-1,2', `?traces=${gen},${gen2}&types=nope`]) {
    assertError(await getJson(d.url, `/api/v1/compare${q}`), 400, 'invalid_parameter', `compare${q}`);
  }
  for (const q of ['gantt', 'bounds']) assertError(await getJson(d.url, `/api/v1/traces/abc/${q}`), 400, 'invalid_parameter');
  assertOkJson(await getJson(d.url, '/api/v1/health'), 200, 'still alive');
});

test('hostile values never crash the daemon', async () => {
  const base = `/api/v1/traces/${gen}`;
  const qs = ['gantt?width=10000&max_tasks=1000000', 'gantt?width=1&max_tasks=0', 'gantt?start=-1e308&end=1e308',
    'gantt?start=1e-300&end=2e-300', 'timeseries?start=-1e308&end=1e308&width=10000', 'timeseries?width=1',
    'gantt?types=%E2%9C%93', 'bounds?nodes=0,0,0,1', 'bounds?types=dgemm,dgemm', 'critical-path?min_gap=1e300',
    'critical-path?min_gap=-1e300', 'gantt?start=-1e308', 'iterations?end=-1e308'];
  for (const q of qs) {
    const r = await getJson(d.url, `${base}/${q}`);
    assert.ok([200, 400].includes(r.status), `${q} -> ${r.status} ${r.text.slice(0, 200)}`);
  }
  assertOkJson(await getJson(d.url, '/api/v1/health'), 200, 'still alive');
});

test('a trace without tasks is 409 no_tasks; a missing trace is 404', async () => {
  for (const ep of ['gantt', 'bounds', 'outliers', 'timeseries', 'iterations', 'critical-path']) {
    assertError(await getJson(d.url, `/api/v1/traces/${paje}/${ep}`), 409, 'no_tasks', ep);
    assertError(await getJson(d.url, `/api/v1/traces/987654/${ep}`), 404, 'not_found', ep);
  }
  assertError(await getJson(d.url, `/api/v1/compare?traces=${gen},${paje}`), 409, 'no_tasks', 'compare');
  assertError(await getJson(d.url, `/api/v1/compare?traces=${gen},987654`), 404, 'not_found', 'compare');
});

test('the analysis cache goes with its trace', async () => {
  const id = importPath(join(dir, 'gen2'), 'to-delete');
  // what the first Gantt reads is computed by the import (api_gantt.c,
  // prepare_first_view): its marks, the outlier thresholds, and the rows
  // whose tasks overlap (which a zoomed view on PostgreSQL asks for)
  const prepared = sqlite(d.db, `SELECT group_concat(substr(analysis, 1, instr(analysis, '@') - 1), ' ')
    FROM (SELECT analysis FROM analysis_cache WHERE trace_id = ${id} ORDER BY analysis);`).trim();
  for (const a of ['bounds.v2', 'gantt_overlaps', 'outlier_groups'])
    assert.ok(prepared.split(' ').includes(a), `${a} prepared at import: ${prepared}`);
  await ok(`/api/v1/traces/${id}/bounds`);
  await ok(`/api/v1/traces/${id}/outliers`);
  const count = () => Number(sqlite(d.db, `SELECT count(*) FROM analysis_cache WHERE trace_id = ${id};`));
  assert.ok(count() >= 2, 'results are cached');
  const before = await ok(`/api/v1/traces/${id}/bounds`);
  const fresh = await ok(`/api/v1/traces/${gen2}/bounds`);
  assert.equal(before.abe, fresh.abe, 'same input, same cached answer');
  const r = await fetch(`${d.url}/api/v1/traces/${id}`, { method: 'DELETE' });
  assert.equal(r.status, 204);
  assert.equal(count(), 0);
  assertError(await getJson(d.url, `/api/v1/traces/${id}/gantt`), 404, 'not_found');
});

test('StarVZ LU sample: known values', { skip: !existsSync(luDir) && 'no shared StarVZ data' }, async () => {
  const b = await ok(`/api/v1/traces/${lu}/bounds`);
  close(b.makespan, 1350.060401, 1e-9, 'makespan');
  assert.equal(b.tasks, 268);
  const o = await ok(`/api/v1/traces/${lu}/outliers`);
  assert.equal(o.count, 0);
  const dgemm = o.groups.find((g) => g.type === 'dgemm' && g.resource_type === 'CPU');
  assert.ok(Math.abs(dgemm.threshold - 59.32025) < 1e-5, `dgemm threshold ${dgemm.threshold}`);
  const g = await ok(`/api/v1/traces/${lu}/gantt?width=1920&max_tasks=1000`);
  assert.equal(g.rows.length, 38);
  assert.equal(g.rows.reduce((n, r) => n + r.tasks.length, 0), 268);
  assert.deepEqual(g.types, ['dgemm', 'dgetrf_nopiv', 'dplrnt', 'dtrsm']);
  const n1 = await ok(`/api/v1/traces/${lu}/bounds?nodes=1`);
  assert.equal(n1.tasks, 78 + 28 + 4 + 32);
  const ts = await ok(`/api/v1/traces/${lu}/timeseries?width=100&per_node=1`);
  assert.equal(ts.series.length, 4, 'ready and submitted for each of the 2 nodes');
  for (const s of ts.series) assert.ok(s.points.length > 0, `${s.name} node ${s.node} has points`);
});

// The ABE of real runs against glpsol on the same LP (issue 4's first
// check): the StarVZ LU and qr_mumps samples and a real CPU+GPU StarPU
// bundle. For LU (one resource type) also against the closed form
// sum over types of n_k * mean_k / workers, from the Gantt's own tasks.
const realRuns = [
  ['StarVZ LU', luDir],
  ['StarVZ qr_mumps', join(shared, 'starvz', 'extra_data', 'qr_trace')],
  ['StarPU Cholesky CPU+GPU', join(shared, 'starpu', 'chol_implicit_dmdas_N11520_nb24')],
];
for (const [label, path] of realRuns) {
  test(`${label}: ABE equals glpsol`, { skip: (!existsSync(path) && 'no shared data') || (!existsSync(GLPSOL) && 'no glpsol') },
    async () => {
      const id = importPath(path, label);
      const b = await ok(`/api/v1/traces/${id}/bounds`);
      assert.ok(b.abe > 0 && b.abe <= b.makespan, `${label}: 0 < ABE ${b.abe} <= makespan ${b.makespan}`);
      close(b.abe, glpsolAbe(b), 1e-6, `${label}: ABE vs glpsol`);
      for (const nd of b.nodes) close(nd.abe, glpsolAbe(nd), 1e-6, `${label}: node ${nd.node} ABE vs glpsol`);
      if (label !== 'StarVZ LU') return;
      const g = await ok(`/api/v1/traces/${id}/gantt?width=1920&max_tasks=1000`);
      const sum = new Map();
      for (const r of g.rows) for (const t of r.tasks) sum.set(t.type, (sum.get(t.type) ?? 0) + (t.end - t.start));
      const closed = [...sum.values()].reduce((a, x) => a + x, 0) / g.rows.length;
      close(b.abe, closed, 1e-6, 'LU: ABE vs closed form');
    });
}
