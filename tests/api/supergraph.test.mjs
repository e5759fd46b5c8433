// supergraph.test.mjs: GET /api/v1/traces/{id}/supergraph on a live daemon:
// flow conservation (incoming + root inflow = inclusive, inclusive -
// outgoing = exclusive + filtered) and acyclicity on the API's output for
// every grouping, filter and split; splits by entry function, by caller and
// into functions; module maps; rank brushing with its two graphs and their
// difference; the detail of one node; and the errors (bad parameters, an
// unknown split id, a trace that is not a profile, an absent trace).
//
// Runs on the project's own json-split fixture (tests/fixtures/supergraph),
// and on Hatchet's LULESH profile and HPCToolkit cpi database when the
// shared data is present.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, runCli, sourceDir, scratchDb } from '../lib/daemon.mjs';
import { getJson, assertError, assertOkJson, sqlite, stopClean } from '../fixtures/api/util.mjs';

const shared = process.env.ARIADNE_SHARED_DATA || join(sourceDir, '..', 'shared', 'data');
const HATCHET = join(shared, 'hatchet', 'hatchet', 'tests', 'data');
const MINI = join(sourceDir, 'tests', 'fixtures', 'supergraph', 'miniapp-profile.json');
const LULESH = join(HATCHET, 'caliper-lulesh-json', 'lulesh-annotation-profile.json');
const CPI = join(HATCHET, 'hpctoolkit-cpi-database');

let d, dir, db;
const ids = {};

function importFile(path) {
  const r = runCli(['import', '--db', db, path]);
  assert.equal(r.status, 0, `import ${path}: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()).id;
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ariadne-sg-'));
  db = scratchDb(dir);
  ids.mini = importFile(MINI);
  if (existsSync(LULESH)) ids.lulesh = importFile(LULESH);
  if (existsSync(CPI)) ids.cpi = importFile(CPI);
  d = await startDaemon({ dir, db });
  sqlite(d.db, "INSERT INTO traces(name,kind,format,created_at,bytes,sha256,time_unit) VALUES ('tasks','tasks','paje','2026-01-01T00:00:00Z',1,'" + 'ab'.repeat(32) + "','ms');");
  ids.tasks = Number(sqlite(d.db, "SELECT id FROM traces WHERE name = 'tasks';").trim());
});
after(async () => {
  if (d) await stopClean(d);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function sg(id, query = {}) {
  const qs = new URLSearchParams(query).toString();
  const path = `/api/v1/traces/${id}/supergraph${qs ? `?${qs}` : ''}`;
  const r = await getJson(d.url, path);
  assertOkJson(r, 200, path);
  return r.json;
}

const close = (a, b, what) => {
  const tol = 1e-7 * Math.max(1, Math.abs(a), Math.abs(b));
  assert.ok(Math.abs(a - b) <= tol, `${what}: ${a} vs ${b}`);
};

// Conservation and acyclicity of one graph (nodes with values, edges).
function checkFlow(nodes, edges, what) {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const inW = new Map(), outW = new Map(), succ = new Map();
  for (const e of edges) {
    assert.ok(byId.has(e.source) && byId.has(e.target), `${what}: edge ${e.source} -> ${e.target} names unknown nodes`);
    assert.ok(e.weight >= -1e-9, `${what}: negative weight on ${e.source} -> ${e.target}`);
    inW.set(e.target, (inW.get(e.target) || 0) + e.weight);
    outW.set(e.source, (outW.get(e.source) || 0) + e.weight);
    if (!succ.has(e.source)) succ.set(e.source, []);
    succ.get(e.source).push(e.target);
  }
  for (const n of nodes) {
    close((inW.get(n.id) || 0) + n.root_inflow, n.inclusive, `${what}: ${n.id} incoming + root inflow = inclusive`);
    close(n.inclusive - (outW.get(n.id) || 0), n.exclusive + n.filtered, `${what}: ${n.id} inclusive - outgoing = exclusive + filtered`);
  }
  // acyclic: a depth-first search finds no back edge
  const state = new Map();
  const visit = (v) => {
    state.set(v, 1);
    for (const w of succ.get(v) || []) {
      assert.notEqual(state.get(w), 1, `${what}: cycle through ${v} -> ${w}`);
      if (!state.get(w)) visit(w);
    }
    state.set(v, 2);
  };
  for (const n of nodes) if (!state.get(n.id)) visit(n.id);
}

test('the fixture: shape, conservation, acyclicity', async () => {
  const g = await sg(ids.mini);
  assert.equal(g.trace_id, ids.mini);
  assert.equal(g.group_by, 'module');
  assert.equal(g.collapse, 'mean');
  assert.equal(g.processes, 4);
  assert.equal(g.ranks, 4);
  assert.equal(g.filter.percent, 0.1);
  assert.equal(g.filter.total, 13);
  assert.equal(g.brush, null);
  // json-split has no modules: a module is a function name
  assert.equal(g.nodes.length, 13);
  assert.equal(g.edges.length, 12);
  close(g.root_inclusive, (9750 + 9898 + 10570 + 10746) / 4, 'root inclusive');
  const main = g.nodes.find((n) => n.id === 'main#0');
  assert.equal(main.kind, 'supernode');
  assert.equal(main.level, 0);
  assert.deepEqual(main.callers, []);
  const wait = g.nodes.find((n) => n.name === 'MPI_Waitall');
  close(wait.inclusive, (300 + 420 + 2600 + 2900) / 4, 'MPI_Waitall mean');
  assert.equal(wait.histogram.counts.length, 20);
  assert.equal(wait.histogram.counts.reduce((a, b) => a + b, 0), 4);
  assert.equal(wait.histogram.min, 300);
  assert.equal(wait.histogram.max, 2900);
  assert.deepEqual(wait.callers.map((c) => [c.node, c.function, c.entry]), [['exchange#0', 'exchange', 'MPI_Waitall']]);
  assert.equal(wait.entry_functions[0].name, 'MPI_Waitall');
  checkFlow(g.nodes, g.edges, 'fixture');
});

const MAP = JSON.stringify({ MPI: ['^MPI_'], Compute: '^(compute|kernel_)', Driver: '^(main|init|solve|finalize|exchange)$' });

test('module map, splits by entry, caller and into functions', async () => {
  const g = await sg(ids.mini, { group_by: 'map', map: MAP });
  assert.equal(g.group_by, 'map');
  const mpi = g.nodes.find((n) => n.id === 'MPI#0');
  assert.ok(mpi, 'an MPI supernode');
  assert.equal(mpi.functions, 5);
  assert.deepEqual(mpi.entry_functions.map((e) => e.name).sort(),
    ['MPI_Allreduce', 'MPI_Finalize', 'MPI_Init', 'MPI_Isend', 'MPI_Waitall']);
  // MPI is entered from Driver only: one caller node, several caller functions
  assert.deepEqual([...new Set(mpi.callers.map((c) => c.node))], ['Driver#0']);
  checkFlow(g.nodes, g.edges, 'map');
  // the map sends MPI under Driver and Driver again under... nothing: no duplicates
  assert.equal(g.duplicates, 0);

  const byEntry = await sg(ids.mini, { group_by: 'map', map: MAP, split: 'MPI#0', split_by: 'entry' });
  assert.ok(!byEntry.nodes.some((n) => n.id === 'MPI#0'));
  const wait = byEntry.nodes.find((n) => n.id === 'MPI#0-MPI_Waitall');
  assert.equal(wait.kind, 'split');
  assert.equal(wait.name, 'MPI-MPI_Waitall');
  close(wait.inclusive, (300 + 420 + 2600 + 2900) / 4, 'split node');
  assert.deepEqual(byEntry.splits, [{ id: 'MPI#0', by: 'entry' }]);
  checkFlow(byEntry.nodes, byEntry.edges, 'split by entry');

  // Driver reaches Compute twice? No: Compute is entered once; expand Driver
  // into its functions, then split MPI by caller: callers are functions now
  const ops = JSON.stringify([{ id: 'Driver#0', by: 'callsite' }, { id: 'MPI#0', by: 'caller' }]);
  const both = await sg(ids.mini, { group_by: 'map', map: MAP, split: ops });
  const ids2 = both.nodes.map((n) => n.id);
  for (const want of ['Driver#0=main', 'Driver#0=solve', 'MPI#0-Driver#0=exchange', 'MPI#0-Driver#0=solve', 'MPI#0-Driver#0=init']) {
    assert.ok(ids2.includes(want), `${want} in ${ids2.join(', ')}`);
  }
  close(both.nodes.find((n) => n.id === 'MPI#0-Driver#0=exchange').inclusive,
    (150 + 160 + 155 + 150 + 300 + 420 + 2600 + 2900) / 4, 'MPI called by exchange');
  checkFlow(both.nodes, both.edges, 'expand + split by caller');
});

test('rank brushing: two graphs and their difference', async () => {
  const g = await sg(ids.mini, { group_by: 'map', map: MAP, ranks: '2-3' });
  const b = g.brush;
  assert.deepEqual(b.ranks, [2, 3]);
  assert.equal(b.selected.processes, 2);
  assert.equal(b.rest.processes, 2);
  assert.equal(b.sign, 'selected - rest');
  checkFlow(b.selected.nodes.map((n, i) => ({ ...n, id: g.nodes[i].id })), b.selected.edges, 'selected ranks');
  checkFlow(b.rest.nodes, b.rest.edges, 'other ranks');
  const diff = new Map(b.difference.map((x) => [x.id, x.exclusive]));
  // ranks 2-3 wait in MPI (Waitall 2600, 2900; Allreduce 1700, 1800) and compute less
  close(diff.get('MPI#0'), ((905 + 155 + 2600 + 1700 + 90) + (915 + 150 + 2900 + 1800 + 70)) / 2
    - ((900 + 150 + 300 + 250 + 80) + (910 + 160 + 420 + 260 + 85)) / 2, 'MPI difference');
  assert.ok(diff.get('Compute#0') < 0, 'the selection computes less');
  assert.equal(b.domain[1], Math.max(...b.difference.map((x) => Math.abs(x.exclusive))));
  // the two sides add up to the whole (mean of two equal halves)
  for (let i = 0; i < g.nodes.length; i++) {
    close((b.selected.nodes[i].inclusive + b.rest.nodes[i].inclusive) / 2, g.nodes[i].inclusive, `halves of ${g.nodes[i].id}`);
  }
});

test('detail of one node, collapse, filter and caching', async () => {
  const g = await sg(ids.mini, { detail: 'MPI_Waitall#0' });
  assert.deepEqual(g.detail.processes.map((p) => p.inclusive), [300, 420, 2600, 2900]);
  assert.deepEqual(g.detail.processes.map((p) => p.rank), [0, 1, 2, 3]);
  const mx = await sg(ids.mini, { collapse: 'max' });
  assert.equal(mx.nodes.find((n) => n.id === 'MPI_Waitall#0').inclusive, 2900);
  // a filter of 10% hides the small call sites but keeps their time in their callers
  const f = await sg(ids.mini, { filter: '10' });
  assert.ok(f.filter.kept < 13);
  const hidden = f.nodes.reduce((s, n) => s + n.filtered, 0);
  assert.ok(hidden > 0);
  close(f.root_inclusive, (9750 + 9898 + 10570 + 10746) / 4, 'root inclusive is unchanged by the filter');
  checkFlow(f.nodes, f.edges, 'filtered');
  const again = await sg(ids.mini, { filter: '10' });
  assert.deepEqual(again, f, 'the cached answer is the same');
});

test('bad requests are clear errors', async () => {
  const bad = async (qs, status, code, what) => {
    const r = await getJson(d.url, `/api/v1/traces/${ids.mini}/supergraph?${qs}`);
    assertError(r, status, code, what);
    return r.json.error.message;
  };
  await bad('group_by=library', 400, 'invalid_parameter', 'unknown group_by');
  assert.match(await bad('group_by=map', 400, 'invalid_parameter', 'map without a map'), /map/);
  assert.match(await bad(`map=${encodeURIComponent('{"MPI": "(unclosed"}')}`, 400, 'invalid_parameter', 'bad regex'), /unclosed/);
  await bad('map=notjson', 400, 'invalid_parameter', 'map not JSON');
  await bad('filter=-1', 400, 'invalid_parameter', 'negative filter');
  await bad('filter=abc', 400, 'invalid_parameter', 'filter not a number');
  await bad('collapse=avg', 400, 'invalid_parameter', 'unknown collapse');
  await bad('bins=0', 400, 'invalid_parameter', 'bins 0');
  await bad('split_by=parent', 400, 'invalid_parameter', 'unknown split_by');
  assert.match(await bad('split=nope%230', 400, 'invalid_parameter', 'unknown split id'), /nope#0/);
  await bad(`split=${encodeURIComponent('[{"id": 3}]')}`, 400, 'invalid_parameter', 'split id not a string');
  await bad(`split=${encodeURIComponent('[1,')}`, 400, 'invalid_parameter', 'split not JSON');
  await bad('ranks=0-3', 400, 'invalid_parameter', 'every rank selected');
  await bad('ranks=9', 400, 'invalid_parameter', 'no such rank');
  await bad('ranks=a', 400, 'invalid_parameter', 'ranks not numbers');
  await bad('ranks=3-1', 400, 'invalid_parameter', 'reversed range');
  await bad('metric=nope', 400, 'invalid_parameter', 'unknown metric');
  await bad('detail=nope', 400, 'invalid_parameter', 'unknown detail node');
  assertError(await getJson(d.url, `/api/v1/traces/${ids.tasks}/supergraph`), 409, 'not_a_profile', 'a task trace');
  assertError(await getJson(d.url, '/api/v1/traces/999999/supergraph'), 404, 'not_found', 'no trace');
  assertError(await getJson(d.url, '/api/v1/traces/abc/supergraph'), 400, 'invalid_parameter', 'bad id');
});

test('LULESH (json-split, 8 ranks): conservation, split, brush', { skip: !existsSync(LULESH) && 'no shared data' }, async () => {
  const g = await sg(ids.lulesh);
  assert.equal(g.processes, 8);
  assert.equal(g.nodes.length, 24);
  checkFlow(g.nodes, g.edges, 'LULESH');
  // Hatchet's oracle: rank 0 of LagrangeNodal has 2895319 inclusive
  const d0 = await sg(ids.lulesh, { detail: 'LagrangeNodal#0' });
  assert.equal(d0.detail.processes.find((p) => p.rank === 0).inclusive, 2895319);
  const byName = await sg(ids.lulesh, { group_by: 'name', filter: '1' });
  checkFlow(byName.nodes, byName.edges, 'LULESH by name, 1%');
  const s = await sg(ids.lulesh, { split: 'LagrangeLeapFrog#0', split_by: 'callsite' });
  checkFlow(s.nodes, s.edges, 'LULESH expanded');
  const br = await sg(ids.lulesh, { ranks: '0-3' });
  checkFlow(br.brush.selected.nodes, br.brush.selected.edges, 'LULESH ranks 0-3');
  checkFlow(br.brush.rest.nodes, br.brush.rest.edges, 'LULESH ranks 4-7');
});

test('HPCToolkit cpi (modules, 4 ranks): conservation every way', { skip: !existsSync(CPI) && 'no shared data' }, async () => {
  for (const group_by of ['module', 'name', 'file']) {
    for (const filter of ['0', '0.1', '5']) {
      const g = await sg(ids.cpi, { group_by, filter });
      checkFlow(g.nodes, g.edges, `cpi ${group_by} ${filter}%`);
      assert.equal(g.dropped_edges, 0);
    }
  }
  const g = await sg(ids.cpi);
  assert.ok(g.nodes.some((n) => n.name.startsWith('libmpi')), 'load modules are supernodes');
  assert.ok(g.duplicates >= 0);
  // the program root's time over the 4 ranks (Hatchet's oracle)
  close(g.root_inclusive, (999238 + 999390 + 1000306 + 999308) / 4, 'cpi root inclusive');
});
