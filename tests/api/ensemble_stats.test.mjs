// ensemble_stats.test.mjs: GET /api/v1/ensembles/{id}/stats and /scaling.
// - The project's fixture (tests/fixtures/ensemble_stats): two members of
//   different topology (an extra MPI wrapper, a missing io, 2 ranks vs 1):
//   every context kept, the missing ones null, flow conserved per member,
//   the statistics, runs subsets, CSV, and the 400/404 answers.
// - Generated scaling members t(p) = 3 + 0.5 p log2(p) on p = 8..512
//   (mpi.world.size from the profiles' metadata) give back that model, and
//   the node that grows fastest is ranked first.
// - RAJAPerf (shared data; skipped without it): the 10 trials of
//   Base_CUDA-block_128 at size 1048576: every member's node values equal
//   the same file imported alone (/traces/{id}/cct), and mean, median, min,
//   max and std of `Avg time/rank` and `Min time/rank` per node equal those
//   computed here from the single imports.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, importCli, sourceDir } from '../lib/daemon.mjs';
import { call, getJson, assertError, assertOkJson, stopClean } from '../fixtures/api/util.mjs';
import {
  rajaperfDir as rajaDir, haveRajaperf as haveRaja, createEnsemble as createEnsembleAt, workProfile
} from '../fixtures/api/ensembles.mjs';

const fixtures = join(sourceDir, 'tests', 'fixtures', 'ensemble_stats');

let d;
let tmp;
const ids = {};

const createEnsemble = (name, members) => createEnsembleAt(d.url, name, members);

// main = 3 + 0.5 p log2 p.
const scalingProfile = (p) => workProfile(p, 0.5 * p * Math.log2(p));

before(async () => {
  d = await startDaemon();
  tmp = mkdtempSync(join(tmpdir(), 'ens-stats-'));
  ids.a = importCli(d.db, join(fixtures, 'member-a.json'), 'a');
  ids.b = importCli(d.db, join(fixtures, 'member-b.json'), 'b');
  ids.topo = await createEnsemble('topology', [ids.a, ids.b]);
  ids.scaling = [];
  for (let p = 8; p <= 512; p *= 2) {
    const path = join(tmp, `p${p}.json`);
    writeFileSync(path, scalingProfile(p));
    ids.scaling.push(importCli(d.db, path, `p${p}`));
  }
  ids.scale = await createEnsemble('scaling', ids.scaling);
});
after(async () => {
  if (d) await stopClean(d);
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const byPath = (nodes) => Object.fromEntries(nodes.map((n) => [n.path, n]));

test('stats: every context of members of different topology, missing ones null', async () => {
  const r = await getJson(d.url, `/api/v1/ensembles/${ids.topo}/stats`);
  assertOkJson(r);
  const s = r.json;
  assert.equal(s.metric, 'time (inc)');
  assert.equal(s.collapse, 'mean');
  assert.equal(s.ddof, 1);
  assert.deepEqual(s.percentiles, [25, 50, 75]);
  assert.deepEqual(s.runs.map((x) => x.trace_id), [ids.a, ids.b]);
  const n = byPath(s.nodes);
  assert.deepEqual(Object.keys(n).sort(), ['main', 'main/io', 'main/solve', 'main/solve/MPI_Allreduce',
    'main/solve/MPI_Allreduce/PMPI_Allreduce']);
  assert.deepEqual(n['main/io'].values, [3, null]);
  assert.deepEqual(n['main/io'].presence, [true, false]);
  assert.equal(n['main/io'].present, 1);
  assert.equal(n['main/io'].count, 1);
  assert.equal(n['main/io'].mean, 3);
  assert.equal(n['main/io'].std, null); // one value: no sample std
  assert.deepEqual(n['main/solve/MPI_Allreduce/PMPI_Allreduce'].values, [null, 6.5]);
  // member a: 2 ranks (mean 11); member b: 1 rank
  assert.deepEqual(n.main.values, [11, 9]);
  assert.equal(n.main.mean, 10);
  assert.equal(n.main.median, 10);
  assert.equal(n.main.min, 9);
  assert.equal(n.main.max, 11);
  assert.ok(Math.abs(n.main.std - Math.SQRT2) < 1e-15);
  assert.ok(Math.abs(n.main.variance - 2) < 1e-15);
  assert.deepEqual(n.main.percentiles, { 25: 9.5, 50: 10, 75: 10.5 });
  for (const node of s.nodes) {
    if (node.parent === null) assert.equal(node.depth, 0);
    else assert.equal(s.nodes[node.parent].path + '/' + node.name, node.path);
  }
});

test('stats: inclusive flow conserved per member', async () => {
  const inc = (await getJson(d.url, `/api/v1/ensembles/${ids.topo}/stats?metric=time%20(inc)`)).json;
  const exc = (await getJson(d.url, `/api/v1/ensembles/${ids.topo}/stats?metric=time`)).json;
  for (let m = 0; m < 2; m++) {
    for (const node of inc.nodes) {
      if (node.values[m] === null) continue;
      const kids = inc.nodes.filter((c) => c.parent === node.id && c.values[m] !== null);
      const sum = exc.nodes[node.id].values[m] + kids.reduce((t, c) => t + c.values[m], 0);
      assert.ok(Math.abs(sum - node.values[m]) < 1e-12, `${node.path} in member ${m}: ${sum} vs ${node.values[m]}`);
    }
  }
});

test('stats: runs subset, percentiles, ddof, CSV', async () => {
  let r = await getJson(d.url, `/api/v1/ensembles/${ids.topo}/stats?runs=${ids.b}&percentiles=10,90&ddof=0`);
  assertOkJson(r);
  const n = byPath(r.json.nodes);
  assert.equal(r.json.nodes.length, 4); // io is no context of b
  assert.equal(n.main.std, 0);
  assert.deepEqual(Object.keys(n.main.percentiles), ['10', '90']);
  r = await call(d.url, `/api/v1/ensembles/${ids.topo}/stats?format=csv`);
  assert.equal(r.status, 200);
  const lines = r.text.trim().split('\r\n');
  assert.equal(lines[0], 'id,parent,path,name,module,kind,present,count,mean,median,min,max,std,variance');
  assert.equal(lines.length, 6);
  r = await call(d.url, `/api/v1/ensembles/${ids.topo}/stats?format=csv&table=values`);
  assert.equal(r.status, 200);
  assert.match(r.text, /^node,path,trace_id,run,value\r\n/);
  assert.match(r.text, new RegExp(`\\r\\n3,main/io,${ids.b},b,\\r\\n`));
});

test('stats and scaling: 400 and 404', async () => {
  assertError(await getJson(d.url, '/api/v1/ensembles/999/stats'), 404, 'not_found');
  assertError(await getJson(d.url, '/api/v1/ensembles/999/scaling?parameter=p'), 404, 'not_found');
  assertError(await getJson(d.url, `/api/v1/ensembles/${ids.topo}/stats?metric=nope`), 400, 'invalid_parameter');
  assertError(await getJson(d.url, `/api/v1/ensembles/${ids.topo}/stats?percentiles=50,101`), 400, 'invalid_parameter');
  assertError(await getJson(d.url, `/api/v1/ensembles/${ids.topo}/stats?ddof=2`), 400, 'invalid_parameter');
  assertError(await getJson(d.url, `/api/v1/ensembles/${ids.topo}/stats?runs=999`), 400, 'invalid_parameter');
  assertError(await getJson(d.url, `/api/v1/ensembles/${ids.topo}/scaling`), 400, 'invalid_parameter');
  let r = await getJson(d.url, `/api/v1/ensembles/${ids.topo}/scaling?parameter=mpi.world.size`);
  assertError(r, 400, 'invalid_parameter');
  assert.match(r.json.error.message, /2 distinct numeric values .* at least 3/);
  r = await getJson(d.url, `/api/v1/ensembles/${ids.scale}/scaling?parameter=mpi.world.size&runs=${ids.scaling.slice(0, 2)}`);
  assertError(r, 400, 'invalid_parameter');
  r = await getJson(d.url, `/api/v1/ensembles/${ids.topo}/scaling?parameter=nope`);
  assertError(r, 400, 'invalid_parameter');
  assert.match(r.json.error.message, /not a parameter/);
});

test('scaling: t(p) = 3 + 0.5 p log2(p) comes back, worst growth first', async () => {
  const r = await getJson(d.url, `/api/v1/ensembles/${ids.scale}/scaling?parameter=mpi.world.size&metric=time%20(inc)`);
  assertOkJson(r);
  const s = r.json;
  assert.equal(s.search_space.hypotheses, 59);
  assert.deepEqual(s.runs.map((x) => x.value), [8, 16, 32, 64, 128, 256, 512]);
  const n = byPath(s.nodes);
  const main = n.main;
  assert.equal(main.a, '1');
  assert.equal(main.b, 1);
  assert.ok(Math.abs(main.c0 - 3) <= 3e-6, `c0 ${main.c0}`);
  assert.ok(Math.abs(main.c1 - 0.5) <= 0.5e-6, `c1 ${main.c1}`);
  assert.equal(main.model, '3 + 0.5 * p * log2(p)');
  assert.ok(main.r2 > 1 - 1e-12);
  assert.equal(n['main/fixed'].constant, true);
  assert.equal(n['main/fixed'].model, '2');
  // work grows 2304 / 12 = 192x, main 2307 / 15, fixed 1x
  assert.deepEqual(s.ranking.map((id) => s.nodes[id].path), ['main/work', 'main', 'main/fixed']);
  assert.equal(n['main/work'].rank, 1);
  const csv = await call(d.url, `/api/v1/ensembles/${ids.scale}/scaling?parameter=mpi.world.size&format=csv`);
  assert.equal(csv.status, 200);
  assert.match(csv.text, /^id,parent,path,name,module,present,points,model,constant,a,b,c0,c1,cv_smape_percent,r2,/);
});

// ---- RAJAPerf: the ensemble against the single imports ----

const median = (v) => {
  const s = [...v].sort((x, y) => x - y);
  const h = (s.length - 1) / 2;
  return s[Math.floor(h)] + (h - Math.floor(h)) * (s[Math.ceil(h)] - s[Math.floor(h)]);
};
const mean = (v) => v.reduce((t, x) => t + x, 0) / v.length;
const std = (v, ddof = 1) => Math.sqrt(v.reduce((t, x) => t + (x - mean(v)) ** 2, 0) / (v.length - ddof));
const close = (a, b, what) => assert.ok(Math.abs(a - b) <= 1e-12 * Math.abs(b) + 1e-300, `${what}: ${a} vs ${b}`);

// path -> mean of metric on the single import (the /cct view, unfiltered).
async function singleValues(id, metric) {
  const r = await getJson(d.url, `/api/v1/traces/${id}/cct?metric=${encodeURIComponent(metric)}`);
  assertOkJson(r);
  const paths = {};
  const out = {};
  for (const n of r.json.tree) {
    paths[n.id] = n.parent === null ? n.name : `${paths[n.parent]}/${n.name}`;
    out[paths[n.id]] = n.metrics[metric] ? n.metrics[metric].mean : null;
  }
  return out;
}

test('RAJAPerf: member values equal the single imports; stats equal those computed from them',
  { skip: !haveRaja && 'no shared RAJAPerf data' }, async () => {
    const trials = [];
    for (let t = 1; t <= 10; t++)
      trials.push(importCli(d.db, join(rajaDir, String(t), 'Base_CUDA-block_128.cali'), `trial${t}`));
    const ens = await createEnsemble('rajaperf block_128', trials);
    for (const metric of ['Avg time/rank', 'Min time/rank']) {
      const r = await getJson(d.url, `/api/v1/ensembles/${ens}/stats?metric=${encodeURIComponent(metric)}`);
      assertOkJson(r);
      const singles = [];
      for (const id of trials) singles.push(await singleValues(id, metric));
      assert.ok(r.json.nodes.length >= 60);
      assert.equal(r.json.nodes[0].count, 10);
      assert.ok(Object.keys(singles[0]).length >= 60);
      for (const node of r.json.nodes) {
        const vals = singles.map((s) => (node.path in s ? s[node.path] : null));
        vals.forEach((v, m) => {
          if (v === null) assert.equal(node.values[m], null, `${node.path} member ${m}`);
          else close(node.values[m], v, `${metric} ${node.path} member ${m}`);
        });
        const present = vals.filter((v) => v !== null);
        assert.equal(node.count, present.length);
        if (!present.length) continue;
        close(node.mean, mean(present), `${metric} ${node.path} mean`);
        close(node.median, median(present), `${metric} ${node.path} median`);
        close(node.min, Math.min(...present), `${metric} ${node.path} min`);
        close(node.max, Math.max(...present), `${metric} ${node.path} max`);
        if (present.length > 1) assert.ok(Math.abs(node.std - std(present)) <= 1e-9 * std(present) + 1e-15,
          `${metric} ${node.path} std ${node.std} vs ${std(present)}`);
      }
      // ddof=0: Thicket's population statistics (numpy's default std and var)
      const t0 = await getJson(d.url, `/api/v1/ensembles/${ens}/stats?metric=${encodeURIComponent(metric)}&ddof=0`);
      assertOkJson(t0);
      assert.equal(t0.json.ddof, 0);
      for (const node of t0.json.nodes) {
        const present = singles.map((s) => s[node.path]).filter((v) => v !== null && v !== undefined);
        if (!present.length) continue;
        const want = std(present, 0);
        assert.ok(Math.abs(node.std - want) <= 1e-9 * want + 1e-15, `${metric} ${node.path} std ddof=0 ${node.std} vs ${want}`);
        assert.ok(Math.abs(node.variance - want * want) <= 1e-9 * want * want + 1e-30,
          `${metric} ${node.path} variance ddof=0`);
      }
    }
  });
