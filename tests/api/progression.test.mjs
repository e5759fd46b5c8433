// progression.test.mjs: GET /api/v1/traces/{id}/progression on a live
// daemon: the seed's LU case (30 nodes, two of them with one GPU fewer) where
// those two nodes must form their own cluster from the early steps on; the
// invariants of the metrics, clusters, flows and bounds; agreement of every
// step's clusters with R's density() + the local-minimum rule on the real
// metric values (when /usr/bin/Rscript exists; also on a real StarPU-MPI
// trace when /work/shared/data is there); the per-type weights of eq. 2
// (StarVZ's by default, all_workers on request) against an independent
// computation from the task rows with the sqlite3 shell (psql on PostgreSQL);
// parameters and errors.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sourceDir, startDaemon, runCli, scratchDb, backendName } from '../lib/daemon.mjs';
import { call, assertError, assertOkJson, sqlite } from '../fixtures/api/util.mjs';

const RSCRIPT = '/usr/bin/Rscript';
const sharedData = process.env.ARIADNE_SHARED_DATA || join(sourceDir, '..', 'shared', 'data');
const realTrace = join(sharedData, 'starpu', 'mpi_chol_dmdas_4ranks_N11520_nb24_slowrank1_nice2');
const cholTrace = join(sharedData, 'starpu', 'chol_implicit_dmdas_N11520_nb24');
// The shell that reads the task rows: sqlite3, or psql on PostgreSQL.
const noShell = backendName() === 'sqlite' && !existsSync('/usr/bin/sqlite3') && 'no sqlite3 shell';

let dir, d, dbPath;
const ids = {};

function generate(name, args) {
  const out = join(dir, name);
  const r = runCli(['generate', '--out', out, ...args]);
  assert.equal(r.status, 0, r.stderr);
  return out;
}

function importInto(db, path) {
  const r = runCli(['import', '--db', db, path]);
  assert.equal(r.status, 0, `import ${path}: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n')[0]).id;
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ariadne-prog-'));
  const db = scratchDb(dir);
  dbPath = db;
  // The seed's LU case: 30 nodes with 4 CPUs + 2 GPUs, nodes 0 and 1 with a
  // single GPU; large tiles so that the run is compute-bound.
  ids.lu = importInto(db, generate('lu30', ['--tiles', '40', '--block-size', '2880', '--nodes', '30',
    '--cpus', '4', '--gpus', '2', '--fewer-workers', '0:4:1,1:4:1']));
  ids.single = importInto(db, generate('one', ['--tiles', '8', '--nodes', '1']));
  ids.paje = importInto(db, join(sourceDir, 'tests', 'fixtures', 'paje', 'basic.trace'));
  if (existsSync(realTrace)) ids.real = importInto(db, realTrace);
  if (existsSync(cholTrace)) ids.chol = importInto(db, cholTrace);
  d = await startDaemon({ dir, db });
});

after(async () => {
  if (d) await d.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const get = (path) => call(d.url, `/api/v1${path}`);

async function progression(id, query = '') {
  const res = await get(`/traces/${id}/progression${query}`);
  assertOkJson(res, 200, `progression ${id}${query}`);
  return res.json;
}

// Node -> cluster id at each step, as arrays ordered like body.nodes.
function assignments(body) {
  const pos = new Map(body.nodes.map((n, i) => [n.node, i]));
  return body.steps.map((s) => {
    const a = new Array(body.nodes.length).fill(-1);
    for (const c of s.clusters) for (const n of c.nodes) a[pos.get(n)] = c.id;
    return a;
  });
}

function checkInvariants(body) {
  const N = body.node_count, S = body.step_count;
  assert.equal(body.nodes.length, N);
  assert.equal(body.steps.length, S);
  for (const n of body.nodes) {
    assert.equal(n.values.length, S);
    let prev = 0;
    n.values.forEach((v, s) => {
      assert.ok(v >= 0 && v <= 1, `node ${n.node} step ${s}: ${v}`);
      assert.ok(v >= prev, `node ${n.node} decreases at step ${s}`);
      if (body.steps[s].time >= n.last_end) assert.equal(v, 1, `node ${n.node} done at step ${s + 1}`);
      else assert.ok(v < 1, `node ${n.node} is 1 before its last task (step ${s + 1})`);
      prev = v;
    });
  }
  const a = assignments(body);
  body.steps.forEach((s, i) => {
    assert.equal(s.step, i + 1);
    assert.ok(a[i].every((c) => c >= 0), `step ${i + 1}: a node in no cluster`);
    assert.equal(s.clusters.reduce((k, c) => k + c.size, 0), N);
    for (let c = 1; c < s.clusters.length; c++) assert.ok(s.clusters[c].mean > s.clusters[c - 1].mean);
    if (i > 0) assert.equal(s.start, body.steps[i - 1].time);
  });
  for (let i = 0; i + 1 < S; i++) {
    const flows = body.flows.filter((f) => f.step === i + 1);
    assert.equal(flows.reduce((k, f) => k + f.count, 0), N, `flows of step ${i + 1}`);
    const largest = Math.max(...flows.map((f) => f.count));
    for (const f of flows) {
      assert.equal(f.minority, f.count < largest);
      for (const n of f.nodes) {
        const p = body.nodes.findIndex((x) => x.node === n);
        assert.equal(a[i][p], f.from);
        assert.equal(a[i + 1][p], f.to);
      }
    }
  }
  assert.ok(body.abe.global > 0 && body.abe.global <= body.end - body.start + 1e-9);
  const cum = body.abe.cumulative;
  assert.equal(cum.length, S);
  for (let i = 1; i < S; i++) assert.ok(cum[i].bound >= cum[i - 1].bound);
  assert.ok(cum[S - 1].bound >= body.abe.global * (1 - 1e-9), 'sum of per-step ABE >= global ABE');
}

test('the two nodes with fewer workers form their own cluster from the early steps on', async () => {
  // The exact [0, 1] cluster of the paper's figure holds with the all_workers
  // weights (a node's missing GPU lowers its W); with StarVZ's default the two
  // lagging nodes still lead the lowest cluster, but at h = 0.01 node 1 is
  // alone in it at some steps (checked below).
  const body = await progression(ids.lu, '?weight=all_workers');
  assert.equal(body.node_count, 30);
  assert.equal(body.single_node, false);
  assert.equal(body.step_count, 20);
  assert.equal(body.metric, 'weighted');
  assert.equal(body.weight, 'all_workers');
  assert.equal(body.bandwidth, 0.01);
  checkInvariants(body);
  const own = (s) => s.clusters.some((c) => c.nodes.join() === '0,1');
  const first = body.steps.findIndex(own);
  assert.ok(first >= 0 && first <= 3, `nodes 0,1 split off at step ${first + 1}`);
  // ...and stay apart, as the lowest cluster, through the first half of the run.
  for (let s = first; s < 10; s++) {
    const c = body.steps[s].clusters[0];
    assert.deepEqual(c.nodes, [0, 1], `step ${s + 1}: lowest cluster ${c.nodes}`);
  }
  const starvz = await progression(ids.lu);
  assert.equal(starvz.weight, 'starvz');
  checkInvariants(starvz);
  const firstS = starvz.steps.findIndex(own);
  assert.ok(firstS >= 0 && firstS <= 3, `starvz: nodes 0,1 split off at step ${firstS + 1}`);
  for (let s = firstS; s < 10; s++) {
    const c = starvz.steps[s].clusters[0].nodes;
    assert.ok(c.length >= 1 && c.every((n) => n === 0 || n === 1), `starvz step ${s + 1}: lowest cluster ${c}`);
  }
  // Their path is a minority flow (the view labels it with these nodes).
  assert.ok(body.flows.some((f) => f.step === first + 1 && f.minority && f.nodes.join() === '0,1'));
  // The equation (1) metric shows the same split.
  const eq1 = await progression(ids.lu, '?metric=count');
  assert.equal(eq1.metric, 'count');
  checkInvariants(eq1);
  assert.ok(eq1.steps.slice(3, 8).every((s) => s.clusters[0].nodes.join() === '0,1'));
});

// R's density() + the local-minimum rule of modal_clusters.h, on every step.
function rClusters(body) {
  const rdir = mkdtempSync(join(tmpdir(), 'ariadne-prog-r-'));
  try {
    const input = join(rdir, 'values.txt');
    const lines = body.steps.map((s, i) => body.nodes.map((n) => n.values[i].toPrecision(17)).join(' '));
    writeFileSync(input, lines.join('\n') + '\n');
    const script = `
      bw <- ${body.bandwidth}
      for (line in readLines('${input}')) {
        x <- as.numeric(strsplit(line, ' ')[[1]])
        d <- density(x, bw = bw)
        r <- rle(d$y); k <- length(r$values)
        ends <- cumsum(r$lengths); starts <- ends - r$lengths + 1
        mins <- numeric(0)
        if (k >= 3) {
          i <- 2:(k - 1)
          i <- i[r$values[i] < r$values[i - 1] & r$values[i] < r$values[i + 1]]
          mins <- (d$x[starts[i]] + d$x[ends[i]]) / 2
        }
        iv <- findInterval(x, mins, left.open = TRUE)
        cat(match(iv, sort(unique(iv))) - 1, '\\n')
      }`;
    const out = execFileSync(RSCRIPT, ['--vanilla', '-e', script], { encoding: 'utf8' });
    return out.trim().split('\n').map((l) => l.trim().split(/\s+/).map(Number));
  } finally {
    rmSync(rdir, { recursive: true, force: true });
  }
}

test('every step\'s clusters equal R\'s density() + local minima on the real metric values',
  { skip: !existsSync(RSCRIPT) && 'no /usr/bin/Rscript' }, async () => {
    const cases = [[ids.lu, ''], [ids.lu, '?metric=count&bandwidth=0.02'], [ids.lu, '?steps=50&bandwidth=0.005']];
    if (ids.real) cases.push([ids.real, ''], [ids.real, '?metric=count&steps=40&bandwidth=0.003']);
    for (const [id, q] of cases) {
      const body = await progression(id, q);
      const ours = assignments(body);
      const theirs = rClusters(body);
      assert.equal(theirs.length, body.step_count);
      theirs.forEach((row, s) => assert.deepEqual(ours[s], row, `trace ${id}${q} step ${s + 1}`));
      assert.ok(body.steps.some((s) => s.clusters.length > 1), `trace ${id}${q}: clusters never split`);
    }
  });

test('a real StarPU-MPI run: 4 ranks, the slowed rank 1 lags', { skip: !existsSync(realTrace) && 'no shared data' }, async () => {
  const body = await progression(ids.real);
  assert.equal(body.node_count, 4);
  assert.deepEqual(body.nodes.map((n) => n.node), [0, 1, 2, 3]);
  checkInvariants(body);
  // Rank 1 (under nice) is alone in the lowest cluster during the first third.
  for (let s = 0; s < 6; s++) assert.deepEqual(body.steps[s].clusters[0].nodes, [1], `step ${s + 1}`);
});

// Eq. 2 computed independently from the task rows: StarVZ's
// total_tasks_completed_node_het (R/phase2_progress.R) takes the mean duration
// per (node, worker, type) and W = 1 / sum(1 / mean) over the workers that ran
// the type; all_workers takes the mean per resource type and sums
// workers / mean over the node's workers of those resource types.
function sqlWeights(id, node, type) {
  // SQL both backends read alike ("end" quoted, every subquery named).
  const q = (sql) => Number(sqlite(dbPath, sql));
  const where = `t.trace_id = ${id} AND t.node = ${node} AND t.type = '${type}'`;
  const starvz = q(`SELECT 1.0 / sum(1.0 / m) FROM (SELECT avg(t."end" - t.start) AS m FROM tasks t
    WHERE ${where} GROUP BY t.worker_id) x`);
  const all = q(`SELECT 1.0 / sum(n / m) FROM (SELECT avg(t."end" - t.start) AS m,
      (SELECT count(*) FROM workers v WHERE v.trace_id = ${id} AND v.node = ${node} AND v.resource_type = r) AS n
    FROM (SELECT t.*, COALESCE(t.resource_type, w.resource_type) AS r FROM tasks t
      LEFT JOIN workers w ON w.trace_id = t.trace_id AND w.container_id = t.worker_id WHERE ${where}) t
    GROUP BY r) x`);
  return { starvz, all };
}

function assertClose(got, want, what) {
  assert.ok(Math.abs(got - want) <= 1e-9 * Math.abs(want), `${what}: got ${got}, want ${want}`);
}

async function checkWeights(id, node, type, differ) {
  const s = await progression(id);
  const a = await progression(id, '?weight=all_workers');
  const k = s.types.indexOf(type);
  assert.ok(k >= 0, `no type ${type}`);
  const ns = s.nodes.find((n) => n.node === node), na = a.nodes.find((n) => n.node === node);
  const want = sqlWeights(id, node, type);
  assertClose(ns.weights[k], want.starvz, `trace ${id} node ${node} ${type} starvz`);
  assertClose(na.weights[k], want.all, `trace ${id} node ${node} ${type} all_workers`);
  if (differ) assert.ok(Math.abs(want.starvz - want.all) > 1e-6 * want.all, 'the two readings should differ here');
  return { starvz: ns.weights[k], all: na.weights[k] };
}

test('eq. 2 weights: StarVZ\'s by default, all_workers on request, equal to the task rows\'',
  { skip: noShell }, async () => {
    // The generated heterogeneous LU (4 CPUs + 2 GPUs a node): dpotrf runs on
    // some of the node's workers only, so the readings differ widely.
    const lu = await checkWeights(ids.lu, 0, 'dpotrf', true);
    assert.ok(lu.starvz > 2 * lu.all, `${lu.starvz} vs ${lu.all}`);
    await checkWeights(ids.lu, 1, 'dgemm', false);
    assertError(await get(`/traces/${ids.lu}/progression?weight=some`), 400, 'invalid_parameter');
  });

test('eq. 2 weights on a real StarPU run (chol_implicit_dmdas_N11520_nb24)',
  { skip: (!existsSync(cholTrace) && 'no shared data') || noShell },
  async () => {
    // Two CPU workers with different mean POTRF durations: StarVZ's per-worker
    // means and the per-resource-type mean give slightly different weights.
    await checkWeights(ids.chol, 0, 'POTRF', true);
    await checkWeights(ids.chol, 0, 'GEMM', false);
  });

test('a single-node trace has one node and says so', async () => {
  const body = await progression(ids.single);
  assert.equal(body.node_count, 1);
  assert.equal(body.single_node, true);
  assert.ok(body.steps.every((s) => s.clusters.length === 1));
  checkInvariants(body);
});

test('steps, step_width, bandwidth, nodes and density', async () => {
  const five = await progression(ids.lu, '?steps=5');
  assert.equal(five.step_count, 5);
  assert.equal(five.steps[4].time, five.end);
  const width = (five.end - five.start) / 7.5;
  const w = await progression(ids.lu, `?step_width=${width}`);
  assert.equal(w.step_count, 8);
  assert.ok(Math.abs(w.steps[0].time - w.start - width) < 1e-6 * width);
  const sub = await progression(ids.lu, '?nodes=0,3,7');
  assert.equal(sub.node_count, 3);
  assert.deepEqual(sub.nodes.map((n) => n.node), [0, 3, 7]);
  checkInvariants(sub);
  // The number of modes of a Gaussian KDE never grows with the bandwidth.
  const count = (b) => b.steps.reduce((k, s) => k + s.clusters.length, 0);
  const narrow = await progression(ids.lu, '?bandwidth=0.002');
  const wide = await progression(ids.lu, '?bandwidth=0.1');
  const huge = await progression(ids.lu, '?bandwidth=1');
  assert.ok(count(narrow) > count(wide), `${count(narrow)} vs ${count(wide)}`);
  assert.equal(count(huge), huge.step_count);
  const dens = await progression(ids.lu, '?steps=3&density=1');
  assert.equal(dens.steps[0].density.x.length, 512);
  assert.equal(dens.steps[0].density.y.length, 512);
  assert.equal((await progression(ids.lu, '?steps=3')).steps[0].density, undefined);
});

test('bad parameters are 400s; no trace 404; no tasks 409', async () => {
  const bad = ['steps=0', 'steps=1001', 'steps=abc', 'step_width=0', 'step_width=-1',
    'step_width=nan', 'steps=5&step_width=10', 'bandwidth=0', 'bandwidth=-0.1', 'bandwidth=2',
    'bandwidth=x', 'bandwidth=inf', 'metric=eq2', 'nodes=abc', 'nodes=0,,1', 'nodes=-1', 'nodes=99',
    'density=2', 'step_width=0.0000001', 'weight=all', 'weight='];
  for (const q of bad) assertError(await get(`/traces/${ids.lu}/progression?${q}`), 400, 'invalid_parameter', q);
  assertError(await get('/traces/999999/progression'), 404, 'not_found');
  assertError(await get('/traces/abc/progression'), 400, 'invalid_parameter');
  assertError(await get(`/traces/${ids.paje}/progression`), 409, 'no_tasks');
  const r = await get(`/traces/${ids.lu}/progression?nodes=99`);
  assert.match(r.json.error.message, /no node 99/);
});
