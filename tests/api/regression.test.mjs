// regression.test.mjs: the regression anomalies and the elimination-tree
// panels (docs/api.md, "Regression anomalies and elimination-tree panels")
// against a live daemon.
//
// Always: the small qr_mumps-like fixture tests/fixtures/regression/qr_small
// (7-node tree, 2 pruned subtrees, one planted anomaly, one block_copy
// outside the tree): every model's fit and per-task interval against R's
// lm/predict on the rows the API lists (when Rscript exists), the planted
// anomaly, the tree layout rules, utilisation, active nodes and memory, a
// run compared with itself, and bad parameters.
// With $ARIADNE_SHARED_DATA: StarVZ's qr_trace: fits per group against R,
// anomaly counts per group reported, the tree's nodes and parents against
// atree.csv; the two qrm-grad3d30 StarPU runs (qr_mumps 2.0, GFlop 0 in
// paje.trace): GFlop joined from tasks_anode.csv, the four kernels modelled,
// the log-log fits against R, and the runs compared over their tree; a real
// Cholesky run: groups with one GFlop value not fittable, nothing flagged.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, runCli, sourceDir, importCli } from '../lib/daemon.mjs';
import { getJson, assertError, assertOkJson, stopClean, smallTracePath } from '../fixtures/api/util.mjs';

const shared = process.env.ARIADNE_SHARED_DATA || join(sourceDir, '..', 'shared', 'data');
const qrDir = join(shared, 'starvz', 'extra_data', 'qr_trace');
const qrmLws = join(shared, 'starpu', 'qrm-grad3d30-lws');
const qrmPrio = join(shared, 'starpu', 'qrm-grad3d30-prio');
const cholRun = join(shared, 'starpu', 'chol_implicit_dmdas_N11520_nb24');
const QRM_KERNELS = ['GEMQRT', 'GEQRT', 'TPMQRT', 'TPQRT'];
const fixture = join(sourceDir, 'tests', 'fixtures', 'regression', 'qr_small');
const RSCRIPT = '/usr/bin/Rscript';
const MODELS = ['lr', 'wlr', 'nlr', 'lr_log'];

let d, dir, small, small2, paje, bundle;

const importPath = (path, name) => importCli(d.db, path, name);
// The qr_mumps runs, imported once for the tests that read them (no test
// changes a trace): an import of each costs seconds, and more under ASan.
const runIds = new Map();
const importRun = (path, name) => {
  if (!runIds.has(path)) runIds.set(path, importPath(path, name));
  return runIds.get(path);
};

const api = async (path) => {
  const r = await getJson(d.url, `/api/v1${path}`);
  assertOkJson(r, 200, path);
  return r.json;
};

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ariadne-regression-'));
  d = await startDaemon();
  small = importPath(fixture, 'qr_small');
  small2 = importPath(fixture, 'qr_small_again');
  paje = importPath(smallTracePath, 'paje');
  bundle = importPath(join(sourceDir, 'tests', 'fixtures', 'starpu', 'bundle'), 'bundle');
});

after(async () => {
  if (d) await stopClean(d);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// R's lm + predict(interval = "prediction") per group on the listed tasks;
// returns {key: {b0, b1, s, r2, rows: [[fit, lwr, upr], ...]}} in task order.
function rFits(tasks, model) {
  const csv = join(dir, `rows-${model}.csv`);
  writeFileSync(csv, 'key,G,D\n' + tasks.map((t) => `${t.type}/${t.resource_type}/${t.cluster},${t.gflop},${t.duration}`).join('\n') + '\n');
  const formula = { lr: 'D ~ G', wlr: 'D ~ G', nlr: 'D ~ I(G^(2/3))', lr_log: 'log(D) ~ log(G)' }[model];
  const weights = model === 'wlr' ? ', weights = 1/G' : '';
  const back = model === 'lr_log' ? 'p <- exp(p)' : '';
  const code = `x <- read.csv('${csv}', stringsAsFactors = FALSE)
out <- list()
for (k in unique(x$key)) { s <- x[x$key == k, ]; G <- s$G; D <- s$D
  m <- lm(${formula}${weights}); p <- suppressWarnings(predict(m, interval = 'prediction')); ${back}
  if (is.null(dim(p))) p <- matrix(p, ncol = 3)
  out[[k]] <- list(b0 = unname(coef(m)[1]), b1 = unname(coef(m)[2]), s = summary(m)$sigma, rows = unname(p)) }
cat(jsonlite_free <- paste0('{', paste(sapply(names(out), function(k) { o <- out[[k]]
  sprintf('"%s":{"b0":%.17g,"b1":%s,"s":%s,"rows":[%s]}', k, o$b0, ifelse(is.na(o$b1), 'null', sprintf('%.17g', o$b1)),
    ifelse(is.finite(o$s), sprintf('%.17g', o$s), 'null'),
    paste(apply(o$rows, 1, function(r) paste0('[', paste(ifelse(is.finite(r), sprintf('%.17g', r), 'null'), collapse = ','), ']')), collapse = ',')) }), collapse = ','), '}'))`;
  return JSON.parse(execFileSync(RSCRIPT, ['--vanilla', '-e', code], { encoding: 'utf8' }));
}

const near = (a, b, rel, what) => {
  if (a === null || b === null) { assert.equal(a, b, what); return; }
  assert.ok(Math.abs(a - b) <= rel * (1 + Math.abs(b)), `${what}: ${a} vs R ${b}`);
};

// Every group's coefficients and every task's interval against R.
async function checkAgainstR(id, model) {
  const a = await api(`/traces/${id}/anomalies?model=${model}&points=all&limit=2000000`);
  assert.equal(a.tasks.length, a.modelled);
  const r = rFits(a.tasks, model);
  const byKey = new Map();
  for (const t of a.tasks) {
    const k = `${t.type}/${t.resource_type}/${t.cluster}`;
    if (!byKey.has(k)) byKey.set(k, []);
    byKey.get(k).push(t);
  }
  let flagged = 0;
  for (const g of a.groups) {
    const k = `${g.type}/${g.resource_type}/${g.cluster}`;
    const ref = r[k];
    assert.ok(ref, `R has group ${k}`);
    if (!g.fittable) {
      // one GFlop value: R can only drop the slope; we fit and flag nothing
      assert.equal(ref.b1, null, `${model} ${k}: R has a slope for a group we call not fittable`);
      assert.equal(g.reason, 'single_gflop');
      assert.equal(g.anomalies, 0);
      assert.ok(byKey.get(k).every((t) => !t.anomaly && t.fit === null && t.upr === null), `${model} ${k} flags`);
      continue;
    }
    near(g.b0, ref.b0, 1e-7, `${model} ${k} b0`);
    near(g.b1, ref.b1, 1e-7, `${model} ${k} b1`);
    near(g.s, ref.s, 1e-7, `${model} ${k} s`);
    const tasks = byKey.get(k);
    let count = 0;
    tasks.forEach((t, i) => {
      const [fit, lwr, upr] = ref.rows[i];
      near(t.fit, fit, 1e-7, `${model} ${k} task ${t.job_id} fit`);
      near(t.lwr, lwr, 1e-7, `${model} ${k} task ${t.job_id} lwr`);
      near(t.upr, upr, 1e-7, `${model} ${k} task ${t.job_id} upr`);
      const anomaly = upr !== null && t.duration > upr;
      assert.equal(t.anomaly, anomaly, `${model} ${k} task ${t.job_id} flag`);
      count += anomaly;
    });
    assert.equal(g.anomalies, count, `${model} ${k} anomaly count`);
    flagged += count;
  }
  assert.equal(a.count, flagged);
  return a;
}

test('the fixture: the planted gemqrt is the log-log anomaly', async () => {
  const a = await api(`/traces/${small}/anomalies`);
  assert.equal(a.model, 'lr_log');
  assert.equal(a.time_unit, 'ms');
  assert.equal(a.modelled, 121); // the four kernels only: init/clean/do_subtree GFlop are memory sizes
  assert.deepEqual(a.groups.map((g) => g.type).sort(), ['lapack_gemqrt', 'lapack_geqrt', 'lapack_tpmqrt', 'lapack_tpqrt']);
  const planted = a.tasks.find((t) => t.duration === 150);
  assert.ok(planted && planted.anomaly && planted.type === 'lapack_gemqrt', JSON.stringify(a.tasks.slice(0, 3)));
  assert.ok(a.tasks.every((t) => t.anomaly));
  for (const g of a.groups) assert.equal(g.curve.gflop.length, 60);
  const all = await api(`/traces/${small}/anomalies?points=all&limit=5`);
  assert.equal(all.tasks.length, 5);
  assert.equal(all.count, a.count);
});

test('the fixture: every model matches R lm/predict', { skip: !existsSync(RSCRIPT) && 'no Rscript' }, async () => {
  for (const m of MODELS) await checkAgainstR(small, m);
});

test('the fixture: the mixture and the comparison table', async () => {
  const f = await api(`/traces/${small}/anomalies?model=flexmix&points=all&limit=100000`);
  assert.equal(f.model, 'flexmix');
  for (const g of f.groups) {
    assert.ok(g.mixture && [1, 2].includes(g.mixture.k));
    const [b1, b2] = g.mixture.bic;
    if (b2 !== null) assert.equal(g.mixture.k === 2, b2 < b1, `BIC choice ${g.type}`);
  }
  assert.ok(f.tasks.find((t) => t.duration === 150).anomaly);
  const m = await api(`/traces/${small}/models`);
  assert.equal(m.default, 'lr_log');
  assert.equal(m.groups.length, 4);
  for (const g of m.groups) {
    for (const k of MODELS) {
      const x = g.models[k];
      assert.ok(x.tasks === g.tasks && Number.isFinite(x.r2) && x.mae >= 0 && x.rmse >= x.mae, `${g.type} ${k}`);
      assert.ok(x.fittable === true && x.reason === null && Number.isFinite(x.r2_duration), `${g.type} ${k} fittable`);
    }
    assert.ok(MODELS.includes(g.best.r2) && MODELS.includes(g.best.mae) && MODELS.includes(g.best.rmse));
    assert.equal(g.best.scale, 'duration');
    // one scale: the best R² is the highest R² on durations, not the log-scale one
    const top = (key, sign) => MODELS.reduce((b, k) => (sign * g.models[k][key] > sign * g.models[b][key] ? k : b), MODELS[0]);
    assert.equal(g.best.r2, top('r2_duration', 1), `${g.type} best r2`);
    assert.equal(g.best.mae, top('mae', -1), `${g.type} best mae`);
    assert.equal(g.best.rmse, top('rmse', -1), `${g.type} best rmse`);
    assert.equal(g.models.lr.r2_duration.toFixed(9), g.models.lr.r2.toFixed(9)); // unweighted linear: the same R²
    assert.ok(g.models.flexmix.clusters.length >= 1);
  }
  const lrlog = await api(`/traces/${small}/anomalies?model=lr_log`);
  assert.equal(m.anomalies.lr_log, lrlog.count);
});

test('the fixture: the tree layout follows the spec', async () => {
  const t = await api(`/traces/${small}/atree?slice=10`);
  const nodes = new Map(t.nodes.id.map((id, i) => [id, Object.fromEntries(Object.keys(t.nodes).map((k) => [k, t.nodes[k][i]]))]));
  assert.deepEqual([...nodes.keys()].sort((a, b) => a - b), [1, 2, 3, 7, 8, 9, 10]);
  const parents = { 1: 8, 2: 8, 3: 1, 7: 10, 8: 9, 9: 10, 10: null };
  for (const [id, p] of Object.entries(parents)) assert.equal(nodes.get(Number(id)).parent, p, `parent of ${id}`);
  assert.equal(nodes.get(10).depth, 0);
  assert.equal(nodes.get(3).depth, 4);
  // rows by submission order of the *qrt tasks: 8, 7, 9, 10
  assert.equal(t.rows, 4);
  assert.deepEqual([8, 7, 9, 10].map((id) => nodes.get(id).position), [1, 2, 3, 4]);
  for (const id of [1, 2]) {
    assert.equal(nodes.get(id).type, 'pruned');
    assert.equal(nodes.get(id).position, nodes.get(8).position);
    assert.equal(nodes.get(id).height, 0.5);
  }
  assert.equal(nodes.get(3).position, null);
  assert.equal(nodes.get(8).type, 'not_pruned');
  assert.equal(t.dropped_tasks, 1);
  assert.equal(t.workers, 2);
  // lifespan: first start to last end of all the node's tasks
  assert.ok(nodes.get(8).start <= nodes.get(8).first_compute && nodes.get(8).end >= nodes.get(8).last_compute);
  // cells: values in (0, 100], clipped to their slice, pruned ones on node 8
  const c = t.cells;
  assert.ok(c.node.length > 0);
  for (let i = 0; i < c.node.length; i++) {
    assert.ok(c.value[i] > 0 && c.value[i] <= 100 + 1e-9, `cell ${i} ${c.value[i]}`);
    assert.ok(c.x0[i] >= c.slice[i] * 10 - 1e-9 && c.x1[i] <= (c.slice[i] + 1) * 10 + 1e-9 && c.x0[i] <= c.x1[i]);
    if (c.pruned[i]) assert.equal(c.node[i], 8);
  }
  // time metric: busy time = sum of the cells * slice * W / 100
  const busy = c.value.reduce((s, v) => s + v, 0) * 10 * t.workers / 100;
  const a = await api(`/traces/${small}/anomalies?points=all&limit=100000`);
  const subtree = 25 + 30; // the two do_subtree tasks of the fixture
  const qrt = a.tasks.reduce((s, x) => s + x.duration, 0);
  assert.ok(Math.abs(busy - (qrt + subtree)) < 1e-6 * busy, `busy ${busy} vs tasks ${qrt + subtree}`);
  assert.equal(t.init.node.length, 8);   // init_front + init_block of 4 nodes
  assert.equal(t.assembly.node.length, 4); // the block_copy outside the tree is dropped
  assert.ok(t.anomalies.job_id.length >= 1);
  const g = await api(`/traces/${small}/atree?slice=10&metric=gflops`);
  const total = g.cells.value.reduce((s, v) => s + v, 0);
  const gflop = a.tasks.reduce((s, x) => s + x.gflop, 0) + 0.004 + 0.008; // + the do_subtree GFlop fields
  assert.ok(Math.abs(total - gflop) < 1e-6, `gflops ${total} vs ${gflop}`);
});

test('the fixture: utilisation, active nodes and memory', async () => {
  const n = await api(`/traces/${small}/tree-utilization?by=node&slice=10`);
  const dd = await api(`/traces/${small}/tree-utilization?by=depth&slice=10`);
  assert.equal(n.by, 'node');
  assert.ok(n.colors >= 1 && n.layers.length === n.colors);
  for (let k = 0; k < n.slices; k++) {
    const a = n.layers.reduce((s, l) => s + l.value[k], 0);
    const b = dd.depths.reduce((s, l) => s + l.value[k], 0);
    assert.ok(a <= 100 + 1e-9 && Math.abs(a - b) < 1e-9, `slice ${k}: ${a} vs ${b}`);
    for (const l of n.layers) assert.equal(l.value[k] > 0, l.node[k] !== null);
  }
  const m = await api(`/traces/${small}/tree-memory?slice=10`);
  assert.deepEqual(m.events, { init_front: 4, do_subtree: 2, clean_front: 6 });
  assert.equal(m.raw.pruned.value.at(-1), 0);
  assert.equal(m.raw.not_pruned.value.at(-1), 0);
  assert.ok(Math.abs(m.raw.memory.value.at(-1)) < 1e-9);
  assert.equal(Math.max(...m.raw.not_pruned.value), 1); // the fixture's fronts never overlap... at most one at a time
  assert.ok(m.has_memory && m.peak_mb > 0);
  assert.equal(m.aggregated.memory.length, m.slices);
});

test('the fixture: a run compared with itself differs nowhere', async () => {
  const c = await api(`/traces/${small}/tree-compare?other=${small2}&slice=10`);
  assert.ok(c.cells.diff.length > 0);
  assert.ok(c.cells.diff.every((x) => x === 0));
  assert.ok(c.cells.status.every((s) => s === 'concurrent'));
  assert.ok(c.cumulative.every((x) => x === 0));
  assert.equal(c.faster_makespan, c.slower_makespan);
});

test('bad parameters and traces without a tree', async () => {
  assertError(await getJson(d.url, `/api/v1/traces/${small}/anomalies?model=cubic`), 400, 'invalid_parameter');
  assertError(await getJson(d.url, `/api/v1/traces/${small}/anomalies?points=some`), 400, 'invalid_parameter');
  assertError(await getJson(d.url, `/api/v1/traces/${small}/atree?slice=0`), 400, 'invalid_parameter');
  assertError(await getJson(d.url, `/api/v1/traces/${small}/atree?slice=0.00001`), 400, 'invalid_parameter');
  assertError(await getJson(d.url, `/api/v1/traces/${small}/atree?metric=watts`), 400, 'invalid_parameter');
  assertError(await getJson(d.url, `/api/v1/traces/${small}/tree-utilization?by=leaf`), 400, 'invalid_parameter');
  assertError(await getJson(d.url, `/api/v1/traces/${small}/tree-compare`), 400, 'invalid_parameter');
  assertError(await getJson(d.url, `/api/v1/traces/${small}/tree-compare?other=99999`), 404, 'not_found');
  assertError(await getJson(d.url, `/api/v1/traces/${small}/tree-compare?other=${bundle}`), 409, ['different_trees', 'no_tree']);
  assertError(await getJson(d.url, `/api/v1/traces/${paje}/atree`), 409, 'no_tasks');
  assertError(await getJson(d.url, `/api/v1/traces/${paje}/models`), 409, 'no_tasks');
  assertError(await getJson(d.url, `/api/v1/traces/99999/anomalies`), 404, 'not_found');
  assertError(await getJson(d.url, `/api/v1/traces/${small}/anomalies?types=nope`), 400, 'invalid_parameter');
  const other = await api(`/traces/${bundle}/anomalies`); // no qr_mumps kernels: every task with a GFlop
  assert.equal(other.groups.reduce((s, g) => s + g.tasks, 0), other.modelled);
  const filtered = await api(`/traces/${small}/anomalies?types=lapack_gemqrt`);
  assert.deepEqual(filtered.groups.map((g) => g.type), ['lapack_gemqrt']);
  const ok = await getJson(d.url, '/api/v1/health');
  assert.equal(ok.status, 200);
});

// The hand-made StarPU bundle with a tasks_anode.csv: its positive GFlop
// replaces the trace's 0 (dplgsy 0_1), never a positive one (dpotrf 0_2),
// and a missing one keeps the trace's (dtrsm 0_3).
test('tasks_anode.csv: a positive GFlop replaces the trace\'s 0, never a positive one', async () => {
  const src = join(sourceDir, 'tests', 'fixtures', 'starpu', 'bundle');
  const copy = join(dir, 'bundle-anode');
  cpSync(src, copy, { recursive: true });
  writeFileSync(join(copy, 'tasks_anode.csv'), 'JobId,Name,ANode,GFlop\n0_1,dplgsy,1,0.25\n0_2,dpotrf,2,0.7\n0_3,dtrsm,3,\n');
  const gflopOf = async (id) => {
    const a = await api(`/traces/${id}/anomalies?points=all&limit=100000`);
    return new Map(a.tasks.map((t) => [t.job_id, t.gflop]));
  };
  const before = await gflopOf(bundle);
  assert.equal(before.get('0_1'), undefined, 'dplgsy has GFlop 0 in the trace: not modelled');
  const after = await gflopOf(importPath(copy, 'bundle-anode'));
  assert.equal(after.get('0_1'), 0.25);
  assert.equal(after.get('0_2'), before.get('0_2'));
  assert.equal(after.get('0_2'), 0.1);
  assert.equal(after.get('0_3'), 0.2);
});

test('qr_trace: fits against R, anomalies per group, the tree of atree.csv',
  { skip: !existsSync(join(qrDir, 'atree.csv')) && 'shared qr_trace absent' }, async (t) => {
    const id = importPath(qrDir, 'qr_trace');
    if (existsSync(RSCRIPT)) for (const m of MODELS) await checkAgainstR(id, m);
    const a = await api(`/traces/${id}/anomalies`);
    const report = a.groups.map((g) => `${g.type}/${g.resource_type}: ${g.anomalies} of ${g.tasks}`).join('; ');
    t.diagnostic(`qr_trace lr_log anomalies: ${a.count} (${report})`);
    assert.equal(a.groups.length, 4);
    assert.equal(a.groups.reduce((s, g) => s + g.tasks, 0), a.modelled);
    const tree = await api(`/traces/${id}/atree`);
    const lines = readFileSync(join(qrDir, 'atree.csv'), 'utf8').trim().split('\n').slice(1);
    const got = new Map(tree.nodes.id.map((n, i) => [n, tree.nodes.parent[i]]));
    const ids = new Set();
    for (const l of lines) {
      const [parent, child] = l.split(',').map(Number); // Node is the parent, DependsOn the child
      ids.add(parent);
      ids.add(child);
      assert.equal(got.get(child), parent, `parent of ${child}`);
    }
    assert.deepEqual([...got.keys()].sort((x, y) => x - y), [...ids].sort((x, y) => x - y));
    const roots = [...got].filter(([, p]) => p === null).map(([n]) => n);
    assert.deepEqual(roots, [...ids].filter((n) => !lines.some((l) => Number(l.split(',')[1]) === n)));
    const m = await api(`/traces/${id}/tree-memory`);
    assert.equal(m.events.init_front + m.events.do_subtree, m.events.clean_front);
    t.diagnostic(`qr_trace tree: ${tree.rows} rows, ${tree.nodes.id.length} nodes, ${tree.dropped_tasks} tasks outside the tree, peak ${m.peak_mb} MB`);
  });

test('qrm-grad3d30: lws and prio compared over the same tree',
  { skip: !(existsSync(qrmLws) && existsSync(qrmPrio)) && 'shared StarPU qr_mumps runs absent' }, async (t) => {
    const lws = importRun(qrmLws, 'qrm-lws');
    const prio = importRun(qrmPrio, 'qrm-prio');
    const c = await api(`/traces/${lws}/tree-compare?other=${prio}`);
    assert.ok(c.faster_makespan <= c.slower_makespan);
    assert.equal(c.cells.node.length, c.cells.diff.length);
    for (let i = 0; i < c.cells.diff.length; i++) {
      assert.ok(Math.abs(c.cells.diff[i] - (c.cells.faster[i] - c.cells.slower[i])) < 1e-9);
      const st = c.cells.faster[i] > 0 && c.cells.slower[i] > 0 ? 'concurrent' : c.cells.faster[i] > 0 ? 'only_faster' : 'only_slower';
      assert.equal(c.cells.status[i], st);
    }
    t.diagnostic(`faster: ${c.faster_name} ${c.faster_makespan} ms, slower: ${c.slower_name} ${c.slower_makespan} ms`);
  });

// tasks_anode.csv of a qr_mumps 2.0 run: JobId -> {name, gflop} of its rows with GFlop > 0.
function anodeGflop(runDir) {
  const [head, ...lines] = readFileSync(join(runDir, 'tasks_anode.csv'), 'utf8').trim().split('\n');
  const col = Object.fromEntries(head.split(',').map((c, i) => [c, i]));
  const out = new Map();
  for (const l of lines) {
    const f = l.split(',');
    const g = Number(f[col.GFlop]);
    if (f[col.GFlop] !== '' && g > 0) out.set(f[col.JobId], { name: f[col.Name], gflop: g });
  }
  return out;
}

for (const [label, runDir] of [['lws', qrmLws], ['prio', qrmPrio]]) {
  test(`qrm-grad3d30-${label}: GFlop from tasks_anode.csv, the four kernels modelled, log-log against R`,
    { skip: !existsSync(join(runDir, 'tasks_anode.csv')) && 'shared StarPU qr_mumps run absent' }, async (t) => {
      const id = importRun(runDir, `qrm-${label}`);
      const expected = anodeGflop(runDir);
      assert.ok(expected.size > 0);
      assert.deepEqual([...new Set([...expected.values()].map((e) => e.name))].sort(), QRM_KERNELS);
      const trace = await api(`/traces/${id}`);
      assert.ok(trace.summary.gflop_tasks >= expected.size, `gflop_tasks ${trace.summary.gflop_tasks} < ${expected.size}`);
      // every task with a positive duration and a GFlop in tasks_anode.csv is modelled with that GFlop
      const a = await api(`/traces/${id}/anomalies?points=all&limit=2000000`);
      const seen = new Set();
      for (const task of a.tasks) {
        const e = expected.get(task.job_id);
        assert.ok(e, `modelled task ${task.job_id} is not in tasks_anode.csv`);
        assert.ok(Math.abs(task.gflop - e.gflop) <= 1e-12 * e.gflop, `task ${task.job_id}: GFlop ${task.gflop} vs ${e.gflop}`);
        assert.equal(task.type.toUpperCase(), e.name);
        seen.add(task.job_id);
      }
      const missing = [...expected.keys()].filter((j) => !seen.has(j));
      assert.ok(missing.length <= expected.size / 100, `${missing.length} tasks of tasks_anode.csv not modelled`);
      // /models: the four kernels, each fittable, with a best model
      const m = await api(`/traces/${id}/models`);
      assert.deepEqual([...new Set(m.groups.map((g) => g.type.toUpperCase()))].sort(), QRM_KERNELS);
      for (const g of m.groups) {
        for (const k of MODELS) assert.ok(g.models[k].fittable && Number.isFinite(g.models[k].b1), `${g.type} ${k}`);
        assert.ok(MODELS.includes(g.best.rmse));
      }
      // the log-log fit of every group and every task's interval against R's lm/predict
      if (existsSync(RSCRIPT)) {
        const checked = await checkAgainstR(id, 'lr_log');
        const r = rFits(checked.tasks, 'lr_log');
        t.diagnostic(`qrm-${label} lr_log vs R: ` + checked.groups.map((g) => {
          const ref = r[`${g.type}/${g.resource_type}/${g.cluster}`];
          return `${g.type}/${g.resource_type} n=${g.tasks} b0 ${g.b0.toFixed(6)} (R ${ref.b0.toFixed(6)}) b1 ${g.b1.toFixed(6)} (R ${ref.b1.toFixed(6)}) s ${g.s.toFixed(6)} (R ${ref.s.toFixed(6)}) anomalies ${g.anomalies}`;
        }).join('; '));
      }
      const tree = await api(`/traces/${id}/atree`);
      assert.equal(tree.anomalies.job_id.length, a.count, 'the tree panel shows the lr_log anomalies');
      t.diagnostic(`qrm-${label}: ${a.modelled} tasks modelled of ${expected.size} in tasks_anode.csv, ${a.count} lr_log anomalies`);
    });
}

test('a Cholesky run: groups with one GFlop value are not fittable and flag nothing',
  { skip: !existsSync(cholRun) && 'shared StarPU Cholesky run absent' }, async (t) => {
    const id = importPath(cholRun, 'chol');
    const m = await api(`/traces/${id}/models`);
    for (const model of [...MODELS, 'flexmix']) {
      const a = await api(`/traces/${id}/anomalies?model=${model}&points=all&limit=2000000`);
      const values = new Map();
      for (const task of a.tasks) {
        const k = `${task.type}/${task.resource_type}/${task.cluster}`;
        if (!values.has(k)) values.set(k, new Set());
        values.get(k).add(task.gflop);
      }
      let flagged = 0;
      for (const g of a.groups) {
        const single = values.get(`${g.type}/${g.resource_type}/${g.cluster}`).size === 1;
        assert.equal(g.fittable, !single, `${model} ${g.type}/${g.resource_type}`);
        if (single) {
          assert.equal(g.reason, 'single_gflop');
          assert.equal(g.anomalies, 0);
          assert.equal(g.r2, null);
          assert.equal(g.curve, null);
        }
        flagged += g.anomalies;
      }
      assert.equal(a.count, flagged);
      assert.equal(a.tasks.filter((x) => x.anomaly).length, flagged);
      if (model === 'lr_log') t.diagnostic(`chol lr_log: ${a.groups.length} groups, ${a.groups.filter((g) => !g.fittable).length} not fittable, ${a.count} anomalies`);
    }
    for (const g of m.groups) {
      const fittable = MODELS.filter((k) => g.models[k].fittable);
      if (fittable.length === 0) assert.deepEqual({ r2: g.best.r2, mae: g.best.mae, rmse: g.best.rmse }, { r2: null, mae: null, rmse: null });
      else assert.ok(fittable.includes(g.best.rmse));
    }
  });
