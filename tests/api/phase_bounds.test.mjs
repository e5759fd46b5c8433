// phase_bounds.test.mjs: the bounds of a phase (docs/api.md, bounds). A
// bound of a subset of the tasks (a type filter, an iteration) is a lower
// bound of the subset's span (last end - first start of the selected tasks,
// seed 001 section V-A), not of the latest end. Checks, on a generated
// trace, our StarVZ fixture and the StarVZ LU sample (when the shared data
// is present): every iteration of `bounds?by=iteration` has abe <= span, its
// extent and task count equal those of `/iterations`, the overall answer
// gains start/span but no iterations without by=, a filtered bound reports a
// positive span >= its ABE, and a bad `by` is a 400.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, runCli, sourceDir, importCli, getOk } from '../lib/daemon.mjs';
import { getJson, assertError, stopClean } from '../fixtures/api/util.mjs';

const shared = process.env.ARIADNE_SHARED_DATA || join(sourceDir, '..', 'shared', 'data');
const luDir = join(shared, 'starvz', 'inst', 'extdata', 'lu_trace');
const fixtureDir = join(sourceDir, 'tests', 'fixtures', 'starpu', 'starvz');
const EPS = 1e-9;

let d, dir, gen = null, fixture = null, lu = null;

const importPath = (path, name) => importCli(d.db, path, name);

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ariadne-phase-bounds-'));
  d = await startDaemon();
  const out = join(dir, 'gen');
  const r = runCli(['generate', '--out', out, '--tiles', '5', '--nodes', '2', '--seed', '7']);
  assert.equal(r.status, 0, r.stderr);
  gen = importPath(out, 'gen');
  if (existsSync(fixtureDir)) fixture = importPath(fixtureDir, 'fixture');
  if (existsSync(luDir)) lu = importPath(luDir, 'lu');
});

after(async () => {
  if (d) await stopClean(d);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const ok = (path) => getOk(d.url, path);

// A bound and the span it must not exceed.
function checkScope(s, what) {
  assert.ok(s.tasks > 0, `${what}: tasks`);
  assert.equal(typeof s.span, 'number', `${what}: span`);
  assert.ok(Math.abs(s.span - (s.makespan - s.start)) <= EPS * Math.max(1, Math.abs(s.makespan)),
    `${what}: span ${s.span} != makespan ${s.makespan} - start ${s.start}`);
  assert.ok(s.span >= 0, `${what}: span ${s.span}`);
  assert.equal(typeof s.abe, 'number', `${what}: abe`);
  assert.ok(s.abe >= 0 && s.abe <= s.span + EPS, `${what}: abe ${s.abe} > span ${s.span}`);
}

async function checkTrace(id, label) {
  const all = await ok(`/api/v1/traces/${id}/bounds`);
  assert.equal(all.iterations, undefined, 'no iterations without by=iteration');
  checkScope(all, `${label} whole`);
  for (const n of all.nodes) if (n.tasks > 0) checkScope(n, `${label} node ${n.node}`);

  const b = await ok(`/api/v1/traces/${id}/bounds?by=iteration`);
  assert.equal(b.abe, all.abe);
  assert.equal(b.span, all.span);
  assert.deepEqual(b.nodes, all.nodes);
  assert.ok(Array.isArray(b.iterations), 'iterations');
  const segs = (await ok(`/api/v1/traces/${id}/iterations`)).iterations;
  assert.equal(b.iterations.length, segs.length, `${label}: one bound per iteration`);
  assert.ok(b.iterations.length > 0, `${label}: has iterations`);
  b.iterations.forEach((it, i) => {
    const what = `${label} iteration ${it.iteration}`;
    assert.equal(it.iteration, segs[i].iteration, what);
    assert.equal(it.tasks, segs[i].tasks, `${what}: tasks`);
    assert.ok(Math.abs(it.start - segs[i].start) <= EPS * Math.max(1, Math.abs(it.start)), `${what}: start`);
    assert.ok(Math.abs(it.makespan - segs[i].end) <= EPS * Math.max(1, Math.abs(it.makespan)), `${what}: end`);
    assert.equal(it.workers, all.workers, `${what}: all the rows work`);
    checkScope(it, what);
    assert.ok(Array.isArray(it.allocation), `${what}: allocation`);
  });
  // Cached answers are the same.
  assert.deepEqual(await ok(`/api/v1/traces/${id}/bounds?by=iteration`), b);
  return all;
}

test('generated trace: per-iteration and filtered bounds below their span', async () => {
  const all = await checkTrace(gen, 'gen');
  const meta = await ok(`/api/v1/traces/${gen}/gantt?width=10&max_tasks=0`);
  for (const type of meta.types) {
    const f = await ok(`/api/v1/traces/${gen}/bounds?types=${type}&by=iteration`);
    assert.ok(f.span > 0, `${type}: span ${f.span}`);
    checkScope(f, `gen types=${type}`);
    assert.ok(f.span <= all.span + EPS, `${type}: span within the whole`);
    for (const it of f.iterations) checkScope(it, `gen types=${type} iteration ${it.iteration}`);
  }
});

test('bad by is a 400', async () => {
  assertError(await getJson(d.url, `/api/v1/traces/${gen}/bounds?by=worker`), 400, 'invalid_parameter');
  const n = await ok(`/api/v1/traces/${gen}/bounds?by=node`);
  assert.equal(n.iterations, undefined);
});

test('StarVZ fixture: per-iteration bounds below their span', { skip: !existsSync(fixtureDir) && 'no fixture' }, async () => {
  await checkTrace(fixture, 'fixture');
});

test('StarVZ LU sample: per-iteration bounds and types=dplrnt', { skip: !existsSync(luDir) && 'no shared StarVZ data' }, async () => {
  await checkTrace(lu, 'lu');
  const f = await ok(`/api/v1/traces/${lu}/bounds?types=dplrnt`);
  // The latest dplrnt end is before the origin (negative), its span is not.
  assert.ok(f.span > 0, `span ${f.span}`);
  assert.ok(f.span >= f.abe, `span ${f.span} < abe ${f.abe}`);
  checkScope(f, 'lu types=dplrnt');
});
