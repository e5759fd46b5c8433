// aggregation.test.mjs: GET /traces/{id}/aggregation and /aggregation/levels
// (the pIC aggregation, docs/api.md) on a live ariadned: a generated 4-node
// StarPU bundle (workers grouped node > resource type > worker) and the Paje
// fixture tests/fixtures/paje/basic.trace (the container tree, nested
// states). Checks that the aggregates tile the rows x slices grid, the sum
// property (gain, loss, time), p = 0 and p = 1, every level against the
// partition at its p, and the bad parameters.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, runCli, sourceDir } from '../lib/daemon.mjs';

let daemon, tasks, paje;

function importTrace(path) {
  const r = runCli(['import', '--db', daemon.db, path]);
  assert.equal(r.status, 0, `import ${path}: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n')[0]);
}

async function get(path, status = 200) {
  const r = await fetch(`${daemon.url}/api/v1${path}`);
  const body = await r.json();
  assert.equal(r.status, status, `${path}: ${JSON.stringify(body).slice(0, 300)}`);
  return body;
}

const close = (a, b, tol = 1e-7) => Math.abs(a - b) <= tol * Math.max(1, Math.abs(a), Math.abs(b));

// Every (leaf, slice) cell is covered by exactly one aggregate; the totals
// are the sums over the aggregates.
function checkPartition(doc) {
  const rows = doc.leaves.length, cells = new Uint8Array(rows * doc.slices);
  let gain = 0, loss = 0, time = 0;
  for (const a of doc.aggregates) {
    const [first, count] = a.leaves, [t0, t1] = a.slices;
    assert.ok(count >= 1 && first + count <= rows && t0 <= t1 && t1 < doc.slices);
    for (let e = first; e < first + count; e++) for (let t = t0; t <= t1; t++) cells[e * doc.slices + t]++;
    const node = doc.hierarchy[a.node];
    assert.deepEqual(node.leaves, a.leaves, 'the node of an aggregate has its leaves');
    assert.equal(a.proportions.length, doc.values.length);
    const share = a.proportions.reduce((s, x) => s + x, 0);
    assert.ok(a.time === 0 || close(share, 1), `proportions sum to 1 (${share})`);
    assert.ok(a.gain >= -1e-9 && a.loss >= -1e-9);
    gain += a.gain;
    loss += a.loss;
    time += a.time;
  }
  assert.ok(cells.every((c) => c === 1), 'the aggregates tile the grid');
  assert.equal(doc.count, doc.aggregates.length);
  assert.ok(close(doc.gain, gain) && close(doc.loss, loss), 'sum property');
  assert.ok(close(doc.pic, doc.p * doc.gain - (1 - doc.p) * doc.loss));
  return time;
}

before(async () => {
  daemon = await startDaemon();
  const dir = mkdtempSync(join(tmpdir(), 'ariadne-agg-'));
  const g = runCli(['generate', '--out', join(dir, 'bundle'), '--tiles', '8', '--nodes', '4']);
  assert.equal(g.status, 0, g.stderr);
  tasks = importTrace(join(dir, 'bundle'));
  paje = importTrace(join(sourceDir, 'tests', 'fixtures', 'paje', 'basic.trace'));
});

after(async () => {
  if (daemon) await daemon.stop();
});

test('a task trace: workers grouped by node and resource type', async () => {
  const doc = await get(`/traces/${tasks.id}/aggregation?p=0.3&slices=8`);
  assert.equal(doc.hierarchy_kind, 'workers');
  assert.equal(doc.time_unit, 'ms');
  assert.equal(doc.slices, 8);
  const kinds = doc.hierarchy.map((n) => n.kind);
  assert.equal(kinds[0], 'trace');
  assert.equal(kinds.filter((k) => k === 'node').length, 4);
  assert.ok(doc.leaves.every((i) => doc.hierarchy[i].kind === 'worker'));
  assert.ok(doc.values.includes('Idle') && doc.values.includes('dgemm'), doc.values.join(','));
  // preorder: parents first, leaves contiguous
  doc.hierarchy.forEach((n, i) => assert.ok(i === 0 ? n.parent === -1 : n.parent < i));
  const time = checkPartition(doc);
  // the same total time at every p, and the extremes
  const detail = await get(`/traces/${tasks.id}/aggregation?p=0&slices=8`);
  assert.equal(detail.count, doc.leaves.length * 8);
  assert.equal(detail.gain, 0);
  assert.equal(detail.loss, 0);
  assert.ok(close(checkPartition(detail), time));
  const whole = await get(`/traces/${tasks.id}/aggregation?p=1&slices=8`);
  assert.equal(whole.count, 1);
  assert.equal(whole.aggregates[0].node, 0);
  assert.ok(close(checkPartition(whole), time));
  assert.ok(whole.gain > doc.gain && doc.loss > 0);
});

test('levels: each level is the partition at its p, counts change', async () => {
  const lv = await get(`/traces/${tasks.id}/aggregation/levels?slices=6`);
  assert.ok(lv.levels.length > 3, `${lv.levels.length} levels`);
  assert.equal(lv.levels[0].p_from, 0);
  assert.equal(lv.levels[0].count, lv.leaves.length * 6);
  let prev = null;
  for (const level of lv.levels.slice(0, 12)) {
    assert.ok(level.p >= level.p_from && level.p <= level.p_to);
    const doc = await get(`/traces/${tasks.id}/aggregation?p=${level.p}&slices=6`);
    assert.equal(doc.count, level.count);
    assert.ok(close(doc.gain, level.gain, 1e-6) && close(doc.loss, level.loss, 1e-6));
    checkPartition(doc);
    if (prev) assert.ok(prev.gain !== level.gain || prev.loss !== level.loss, 'consecutive levels differ');
    prev = level;
  }
  assert.equal(lv.levels.at(-1).count, 1);
});

test('a window and one slice: the hierarchy alone', async () => {
  const doc = await get(`/traces/${tasks.id}/aggregation?p=0.2&slices=1&start=10&end=60`);
  assert.equal(doc.start, 10);
  assert.equal(doc.end, 60);
  checkPartition(doc);
  for (const a of doc.aggregates) {
    assert.equal(a.start, 10);
    assert.equal(a.end, 60);
    assert.ok(a.time <= a.leaves[1] * 50 * (1 + 1e-9), 'nested states count once');
  }
});

test('a plain Paje trace: the container tree with nested states', async () => {
  const doc = await get(`/traces/${paje.id}/aggregation?p=0&slices=1`);
  assert.equal(doc.hierarchy_kind, 'containers');
  const names = doc.leaves.map((i) => doc.hierarchy[i].name).sort();
  assert.deepEqual(names, ['CPU0', 'CPU1']);
  assert.ok(doc.values.includes('Sub task'), doc.values.join(','));
  checkPartition(doc);
  const span = doc.end - doc.start;
  for (const a of doc.aggregates) assert.ok(a.time <= span * (1 + 1e-9), `exclusive times: ${a.time} > ${span}`);
  const lv = await get(`/traces/${paje.id}/aggregation/levels?slices=3`);
  assert.ok(lv.levels.length >= 2);
});

test('bad parameters and missing traces', async () => {
  for (const q of ['p=2', 'p=-0.1', 'p=abc', 'slices=0', 'slices=251', 'slices=x', 'start=5&end=5', 'start=9&end=1']) {
    const e = await get(`/traces/${tasks.id}/aggregation?${q}`, 400);
    assert.equal(e.error.code, 'invalid_parameter', q);
  }
  assert.equal((await get(`/traces/${tasks.id}/aggregation/levels?slices=-3`, 400)).error.code, 'invalid_parameter');
  assert.equal((await get('/traces/999999/aggregation', 404)).error.code, 'not_found');
  assert.equal((await get('/traces/abc/aggregation/levels', 400)).error.code, 'invalid_parameter');
  assert.equal((await get(`/traces/${tasks.id}/aggregation?start=1e9&end=2e9`, 409)).error.code, 'no_states');
});
