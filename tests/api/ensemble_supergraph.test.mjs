// ensemble_supergraph.test.mjs: GET /api/v1/ensembles/{id}/supergraph,
// /nodes/{node}/histogram|boxplots|gradients and /diff.
// - The project's fixture (tests/fixtures/ensemble_graph): base and slow,
//   4 ranks each, solve 10% slower in slow, check only in slow: one graph
//   for both members, absent = null, max across members, flow conserved per
//   member, target values; the diff's sign (negative: comparison slower) and
//   its per-rank histogram summing to the rank count; histograms, boxplots
//   and gradients of a node addressed by its key; 400/404 answers; CSV.
// - RAJAPerf (shared data; skipped without it): the 10 trials of
//   Base_CUDA-block_128: one id set for all members, every member's flow
//   conserved, each member's values equal to its own /traces/{id}/supergraph.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, importCli, sourceDir } from '../lib/daemon.mjs';
import { getJson, assertError, assertOkJson, stopClean } from '../fixtures/api/util.mjs';
import {
  rajaperfDir as rajaDir, haveRajaperf as haveRaja, createEnsemble as createEnsembleAt
} from '../fixtures/api/ensembles.mjs';

const fixtures = join(sourceDir, 'tests', 'fixtures', 'ensemble_graph');

let d;
let tmp;
const ids = {};

const createEnsemble = (name, members) => createEnsembleAt(d.url, name, members);

before(async () => {
  d = await startDaemon();
  ids.base = importCli(d.db, join(fixtures, 'base.json'), 'base');
  ids.slow = importCli(d.db, join(fixtures, 'slow.json'), 'slow');
  ids.ens = await createEnsemble('graph', [ids.base, ids.slow]);
  tmp = mkdtempSync(join(tmpdir(), 'ens-graph-'));
});
after(async () => {
  if (d) await stopClean(d);
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const close = (a, b, what) => assert.ok(Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)), `${what}: ${a} != ${b}`);
const byName = (nodes) => Object.fromEntries(nodes.map((n) => [n.name, n]));

// A single-rank json-split profile of a tree [[name, exc, parent index]].
function profile(nodes, ranks = 1, scale = () => 1) {
  const inc = nodes.map(([, exc]) => exc);
  for (let i = nodes.length - 1; i > 0; i--) inc[nodes[i][2]] += inc[i];
  const data = [];
  for (let r = 0; r < ranks; r++)
    nodes.forEach(([, exc], i) => data.push([inc[i] * scale(r, i), r, exc * scale(r, i), i]));
  return JSON.stringify({
    data,
    columns: ['inclusive#sum#time.duration', 'mpi.rank', 'sum#time.duration', 'path'],
    column_metadata: [{ is_value: true }, { is_value: false }, { is_value: true }, { is_value: false }],
    nodes: nodes.map(([label, , parent], i) => (i === 0 ? { label, column: 'path' } : { label, column: 'path', parent })),
  });
}

function importText(name, text) {
  const path = join(tmp, `${name}.json`);
  writeFileSync(path, text);
  return importCli(d.db, path, name);
}

// Per member m: incoming + root inflow = inc and inc - outgoing = exc (no filter).
function checkFlow(g, m) {
  const inw = {}, outw = {};
  for (const e of g.edges) {
    const w = e.runs[m];
    if (w === null) continue;
    inw[e.target] = (inw[e.target] || 0) + w;
    outw[e.source] = (outw[e.source] || 0) + w;
  }
  for (const n of g.nodes) {
    const inc = n.inclusive.runs[m];
    if (inc === null) continue;
    if (n.level > 0) close(inw[n.id] || 0, inc, `member ${m} ${n.id} incoming`);
    close(inc - (outw[n.id] || 0), n.exclusive.runs[m], `member ${m} ${n.id} inc - out`);
  }
}

test('supergraph: one graph for both members, absent null, max across members', async () => {
  const r = await getJson(d.url, `/api/v1/ensembles/${ids.ens}/supergraph?filter=0&target=${ids.base}`);
  assertOkJson(r);
  const g = r.json;
  assert.deepEqual(g.runs.map((x) => x.trace_id), [ids.base, ids.slow]);
  assert.equal(g.bins, 20);
  const n = byName(g.nodes);
  assert.deepEqual(Object.keys(n).sort(), ['check', 'io', 'main', 'solve']);
  assert.deepEqual(n.check.presence, [false, true]);
  assert.equal(n.check.inclusive.runs[0], null);
  assert.equal(n.check.target.inclusive, null);
  close(n.check.inclusive.max, 0.5, 'check max');
  close(n.solve.exclusive.runs[0], 11.5, 'solve base');
  close(n.solve.exclusive.runs[1], 12.65, 'solve slow');
  close(n.solve.inclusive.max, 12.65, 'solve inc_max');
  assert.equal(n.solve.inc_max, n.solve.inclusive.max);
  assert.equal(n.solve.exc_max, n.solve.exclusive.max);
  close(n.solve.inclusive.min, 11.5, 'solve inc_min');
  close(n.solve.target.exclusive, 11.5, 'solve target');
  const gr = n.solve.gradient.inclusive;
  assert.equal(gr.counts.reduce((a, b) => a + b, 0), 2);
  assert.equal(gr.counts[0], 1);
  assert.equal(gr.counts[19], 1);
  assert.equal(gr.edges.length, 21);
  assert.equal(gr.run_bin[String(ids.slow)], 19);
  assert.deepEqual(gr.bin_runs[0], [ids.base]);
  const toCheck = g.edges.find((e) => e.target === n.check.id);
  assert.deepEqual(toCheck.runs[0], null);
  assert.equal(toCheck.target_weight, null);
  const toSolve = g.edges.find((e) => e.target === n.solve.id);
  close(toSolve.weight, 12.65, 'edge max');
  close(toSolve.target_weight, 11.5, 'edge target');
  checkFlow(g, 0);
  checkFlow(g, 1);
  // the per-member values equal each member's own super graph
  for (const [m, id] of [[0, ids.base], [1, ids.slow]]) {
    const s = await getJson(d.url, `/api/v1/traces/${id}/supergraph?filter=0`);
    assertOkJson(s);
    for (const sn of s.json.nodes) {
      const en = g.nodes.find((x) => x.id === sn.id);
      assert.ok(en, `${sn.id} in the ensemble graph`);
      close(en.inclusive.runs[m], sn.inclusive, `${sn.id} member ${m}`);
    }
  }
  // runs= subset
  const sub = await getJson(d.url, `/api/v1/ensembles/${ids.ens}/supergraph?filter=0&runs=${ids.base}`);
  assertOkJson(sub);
  assert.ok(!sub.json.nodes.some((x) => x.name === 'check'));
});

test('diff: solve 10% slower in the comparison is negative; per-rank histogram sums to 4', async () => {
  const r = await getJson(d.url, `/api/v1/ensembles/${ids.ens}/diff?filter=0&baseline=${ids.base}&comparison=${ids.slow}`);
  assertOkJson(r);
  const n = byName(r.json.nodes);
  assert.equal(r.json.value, 'exc');
  assert.equal(r.json.processes, 4);
  close(n.solve.delta, -1.15, 'solve delta');
  assert.ok(n.solve.delta < 0);
  close(n.io.delta, 0, 'io delta');
  close(n.check.delta, -0.5, 'check delta (absent in baseline counts 0)');
  assert.equal(n.check.mean_baseline, null);
  for (const x of r.json.nodes) assert.equal(x.ranks.counts.reduce((a, b) => a + b, 0), 4, x.id);
  close(n.solve.ranks.min, -1.3, 'solve per-rank min');
  close(n.solve.ranks.max, -1.0, 'solve per-rank max');
  assert.equal(r.json.domain[0], -r.json.domain[1]);
  close(r.json.domain[1], 1.15, 'domain');
  const swapped = await getJson(d.url, `/api/v1/ensembles/${ids.ens}/diff?filter=0&baseline=${ids.slow}&comparison=${ids.base}`);
  close(byName(swapped.json.nodes).solve.delta, 1.15, 'swapped');
  assertError(await getJson(d.url, `/api/v1/ensembles/${ids.ens}/diff?baseline=${ids.base}`), 400, 'invalid_parameter');
  assertError(await getJson(d.url, `/api/v1/ensembles/${ids.ens}/diff?baseline=999&comparison=${ids.base}`), 400,
    'invalid_parameter');
});

test('nodes: histogram modes, boxplots with outliers, gradients; addressed by key or id', async () => {
  const g = (await getJson(d.url, `/api/v1/ensembles/${ids.ens}/supergraph?filter=0`)).json;
  const solve = byName(g.nodes).solve;
  const base = `/api/v1/ensembles/${ids.ens}/nodes/${solve.key}`;
  const rank = await getJson(d.url, `${base}/histogram?filter=0&mode=rank&target=${ids.slow}`);
  assertOkJson(rank);
  assert.equal(rank.json.counts.reduce((a, b) => a + b, 0), 8);
  assert.equal(rank.json.target_counts.reduce((a, b) => a + b, 0), 4);
  close(rank.json.min, 10, 'rank min');
  close(rank.json.max, 14.3, 'rank max');
  const run = await getJson(d.url, `${base}/histogram?filter=0&mode=run`);
  assert.equal(run.json.counts.reduce((a, b) => a + b, 0), 2);
  const cs = await getJson(d.url, `${base}/histogram?filter=0&mode=callsite`);
  assert.equal(cs.json.samples, 2);
  const byId = await getJson(d.url, `/api/v1/ensembles/${ids.ens}/nodes/${encodeURIComponent(solve.id)}/gradients?filter=0`);
  assertOkJson(byId);
  assert.deepEqual(byId.json.inclusive.counts, solve.gradient.inclusive.counts);
  close(byId.json.run_means[String(ids.slow)].exclusive, 12.65, 'run mean');
  const box = await getJson(d.url, `${base}/boxplots?filter=0&value=exc&target=${ids.base}`);
  assertOkJson(box);
  const b = box.json.callsites[0];
  assert.equal(b.name, 'solve');
  assert.equal(b.ensemble.count, 8);
  // the 8 values 10,11,12,13,11,12.1,13.2,14.3: numpy's quartiles
  const v = [10, 11, 11, 12, 12.1, 13, 13.2, 14.3];
  close(b.ensemble.q[1], v[1] + 0.75 * (v[2] - v[1]), 'q1');
  close(b.ensemble.median, (v[3] + v[4]) / 2, 'median');
  assert.deepEqual(b.ensemble.outliers.values, []);
  close(b.target.max, 13, 'target max');
  assertError(await getJson(d.url, `/api/v1/ensembles/${ids.ens}/nodes/0000000000000000/gradients`), 404, 'not_found');
  assertError(await getJson(d.url, `${base}/histogram?mode=bogus`), 400, 'invalid_parameter');
  // single-profile parameters are refused, not ignored, and the message says where to look
  for (const q of ['ranks=0-1', 'detail=solve%230']) {
    const r = await getJson(d.url, `/api/v1/ensembles/${ids.ens}/supergraph?${q}`);
    assertError(r, 400, 'invalid_parameter');
    assert.match(r.json.error.message, /histogram\?mode=rank/);
  }
});

// spec_callflow.md 2.7, Figure 4.2: three runs; LIB3 reached from LIB1 and LIB2.
test('Figure 4.2: supernodes 40/20/30/35, edges out of LIB1 20/10/35 summing to 65', async () => {
  const runs = [
    importText('fig-1', profile([['LIB1', 5, -1], ['LIB2', 0, 0], ['LIB3', 20, 1], ['LIB3', 10, 0], ['LIB4', 5, 0]])),
    importText('fig-2', profile([['LIB1', 3, -1], ['LIB4', 35, 0]])),
    importText('fig-3', profile([['LIB1', 5, -1], ['LIB3', 5, 0], ['LIB2', 5, 0], ['LIB3', 10, 2]])),
  ];
  const ens = await createEnsemble('figure 4.2', runs);
  const r = await getJson(d.url, `/api/v1/ensembles/${ens}/supergraph?filter=0&group_by=name`);
  assertOkJson(r);
  const n = byName(r.json.nodes);
  assert.deepEqual(['LIB1', 'LIB2', 'LIB3', 'LIB4'].map((x) => n[x].inclusive.max), [40, 20, 30, 35]);
  const out = ['LIB2', 'LIB3', 'LIB4'].map((x) =>
    r.json.edges.find((e) => e.source === n.LIB1.id && e.target === n[x].id).weight);
  assert.deepEqual(out, [20, 10, 35]);
  assert.equal(out.reduce((a, b) => a + b, 0), 65);
  assert.deepEqual(n.LIB4.presence, [true, true, false]);
  assert.deepEqual(n.LIB2.inclusive.runs, [20, null, 15]);
  for (let m = 0; m < 3; m++) checkFlow(r.json, m);
});

test('boxplots: a slow rank is an outlier with its rank and run', async () => {
  // 8 ranks, solve 10 everywhere but rank 5 of the second run (40)
  const tree = [['main', 1, -1], ['solve', 10, 0]];
  const a = importText('box-a', profile(tree, 8));
  const b = importText('box-b', profile(tree, 8, (r, i) => (r === 5 && i === 1 ? 4 : 1)));
  const ens = await createEnsemble('boxplot', [a, b]);
  const g = (await getJson(d.url, `/api/v1/ensembles/${ens}/supergraph?filter=0&group_by=name`)).json;
  const key = byName(g.nodes).solve.key;
  const box = await getJson(d.url, `/api/v1/ensembles/${ens}/nodes/${key}/boxplots?filter=0&group_by=name&value=exc&target=${b}`);
  assertOkJson(box);
  const e = box.json.callsites[0].ensemble;
  assert.deepEqual(e.q, [10, 10, 10, 10, 40]);
  assert.deepEqual(e.outliers, { values: [40], ranks: [5], runs: [b] });
  assert.equal(box.json.callsites[0].target.count, 8);
  const run = await getJson(d.url, `/api/v1/ensembles/${ens}/nodes/${key}/histogram?filter=0&group_by=name&mode=rank&value=exc`);
  assert.equal(run.json.counts[0], 15);
  assert.equal(run.json.counts[19], 1);
});

test('errors and CSV', async () => {
  assertError(await getJson(d.url, '/api/v1/ensembles/999/supergraph'), 404, 'not_found');
  assertError(await getJson(d.url, `/api/v1/ensembles/${ids.ens}/supergraph?target=12345`), 400, 'invalid_parameter');
  assertError(await getJson(d.url, `/api/v1/ensembles/${ids.ens}/supergraph?metric=nope`), 400, 'invalid_parameter');
  const csv = await getJson(d.url, `/api/v1/ensembles/${ids.ens}/supergraph?filter=0&format=csv`);
  assert.equal(csv.status, 200);
  assert.match(csv.text.split('\n')[0], /^id,/);
});

test('RAJAPerf block_128 trials: one id set, flow conserved per member, members equal their own graphs',
  { skip: !haveRaja && 'no shared RAJAPerf data' }, async () => {
    const trials = [];
    for (let t = 1; t <= 10; t++)
      trials.push(importCli(d.db, join(rajaDir, String(t), 'Base_CUDA-block_128.cali'), `trial${t}`));
    const ens = await createEnsemble('rajaperf block_128', trials);
    const r = await getJson(d.url, `/api/v1/ensembles/${ens}/supergraph?filter=0`);
    assertOkJson(r);
    const g = r.json;
    assert.equal(g.runs.length, 10);
    for (let m = 0; m < 10; m++) checkFlow(g, m);
    for (const m of [0, 9]) {
      const s = await getJson(d.url, `/api/v1/traces/${trials[m]}/supergraph?filter=0`);
      assertOkJson(s);
      for (const sn of s.json.nodes) {
        const en = g.nodes.find((x) => x.id === sn.id);
        assert.ok(en, `${sn.id} in the ensemble graph`);
        close(en.inclusive.runs[m], sn.inclusive, `${sn.id} trial ${m + 1}`);
      }
    }
  });
