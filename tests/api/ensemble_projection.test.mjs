// ensemble_projection.test.mjs: GET /api/v1/ensembles/{id}/projection and
// /scatter (spec_callflow.md 2.10, 3.3 items 4 and 6).
// - Generated members whose non-constant features are all linear in p
//   (main = 3 + 0.5 p, work = 0.5 p, mpi.world.size = p): after min-max
//   scaling every feature equals (p - pmin) / (pmax - pmin), so the MDS is
//   one-dimensional: axis 1 carries all the variance and the distance of
//   two runs on it is sqrt(3) times their scaled p difference (computed
//   here); k = 2 splits p in {8, 9, 10} from {100, 101, 102}; the same seed
//   gives the same answer; runs= and CSV.
// - The project's fixture (tests/fixtures/ensemble_stats): members of
//   different topology: call sites absent from a member are dropped from
//   the features (and counted), never taken as 0.
// - Scatter: a point per (call site, run) where both metrics are measured,
//   the overall and per call site least-squares fit and Pearson r equal
//   those computed here from the points.
// - Uploads with `ensemble` (query parameter or multipart field) make the
//   ensemble of the imported profiles; when that fails (no profile) the
//   job fails with ensemble_failed, says why and lists the kept traces.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, importCli, sourceDir, waitJob } from '../lib/daemon.mjs';
import {
  call, getJson, assertError, assertOkJson, stopClean, uploadMultipart, acceptedJob, smallTrace
} from '../fixtures/api/util.mjs';
import { createEnsemble as createEnsembleAt, workProfile } from '../fixtures/api/ensembles.mjs';

const fixtures = join(sourceDir, 'tests', 'fixtures', 'ensemble_stats');
const P = [8, 9, 10, 100, 101, 102];

let d;
let tmp;
const ids = {};

const createEnsemble = (name, members) => createEnsembleAt(d.url, name, members);

// main's inclusive time is 3 + 0.5 p.
const linearProfile = (p) => workProfile(p, 0.5 * p);

before(async () => {
  d = await startDaemon();
  tmp = mkdtempSync(join(tmpdir(), 'ens-proj-'));
  ids.a = importCli(d.db, join(fixtures, 'member-a.json'), 'a');
  ids.b = importCli(d.db, join(fixtures, 'member-b.json'), 'b');
  ids.topo = await createEnsemble('topology', [ids.a, ids.b]);
  ids.lin = [];
  for (const p of P) {
    const path = join(tmp, `p${p}.json`);
    writeFileSync(path, linearProfile(p));
    ids.lin.push(importCli(d.db, path, `p${p}`));
  }
  ids.linear = await createEnsemble('linear', ids.lin);
});
after(async () => {
  if (d) await stopClean(d);
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

test('projection: one-dimensional features give one axis with every distance kept', async () => {
  const r = await getJson(d.url, `/api/v1/ensembles/${ids.linear}/projection?k=2`);
  assertOkJson(r);
  const j = r.json;
  assert.equal(j.metric, 'time (inc)');
  assert.equal(j.k, 2);
  assert.equal(j.clusters, 2);
  assert.equal(j.features.call_sites, 3);
  assert.equal(j.features.call_sites_dropped, 0);
  assert.ok(j.features.parameters.includes('mpi.world.size'), JSON.stringify(j.features));
  assert.ok(Math.abs(j.axes[0].explained - 1) < 1e-9, JSON.stringify(j.axes));
  assert.equal(j.axes[1].explained, 0);
  assert.equal(j.axes[0].label, 'MDS 1 (100% of variance)');
  assert.deepEqual(j.runs.map((x) => x.trace_id), ids.lin);
  const span = P[P.length - 1] - P[0];
  for (let i = 0; i < P.length; i++) {
    assert.equal(j.runs[i].y, 0);
    assert.equal(j.runs[i].parameters['mpi.world.size'], String(P[i]));
    for (let k = 0; k < i; k++) {
      const want = Math.sqrt(3) * Math.abs(P[i] - P[k]) / span;
      assert.ok(Math.abs(Math.abs(j.runs[i].x - j.runs[k].x) - want) < 1e-9, `runs ${k},${i}`);
    }
  }
  assert.deepEqual(j.runs.map((x) => x.cluster), [0, 0, 0, 1, 1, 1]);
  // deterministic for a seed; k = 3 still puts the two groups apart
  const again = await getJson(d.url, `/api/v1/ensembles/${ids.linear}/projection?k=2`);
  assert.equal(again.text, r.text);
  const k3 = (await getJson(d.url, `/api/v1/ensembles/${ids.linear}/projection?seed=7`)).json;
  assert.equal(k3.k, 3);
  assert.equal(k3.method.seed, 7);
  const small = new Set(k3.runs.slice(0, 3).map((x) => x.cluster));
  for (const x of k3.runs.slice(3)) assert.ok(!small.has(x.cluster));
});

test('projection: runs subset, absent call sites dropped, CSV', async () => {
  let r = await getJson(d.url, `/api/v1/ensembles/${ids.linear}/projection?runs=${ids.lin[0]},${ids.lin[5]}`);
  assertOkJson(r);
  assert.equal(r.json.runs.length, 2);
  assert.equal(r.json.clusters, 2); // k clamped to the distinct points
  assert.ok(Math.abs(Math.abs(r.json.runs[0].x - r.json.runs[1].x) - Math.sqrt(3)) < 1e-9);
  r = await getJson(d.url, `/api/v1/ensembles/${ids.topo}/projection`);
  assertOkJson(r);
  assert.equal(r.json.features.call_sites, 3); // main, solve, MPI_Allreduce
  assert.equal(r.json.features.call_sites_dropped, 2); // io, PMPI_Allreduce
  for (const x of r.json.runs) assert.ok(Number.isFinite(x.x) && Number.isFinite(x.y));
  r = await call(d.url, `/api/v1/ensembles/${ids.linear}/projection?k=2&format=csv`);
  assert.equal(r.status, 200);
  const lines = r.text.trim().split('\r\n');
  assert.equal(lines[0], 'trace_id,name,x,y,cluster');
  assert.equal(lines.length, 7);
  assert.match(lines[1], new RegExp(`^${ids.lin[0]},p8,[-0-9.e]+,0,0$`));
  r = await call(d.url, `/api/v1/ensembles/${ids.linear}/projection?format=csv&table=parameters`);
  assert.equal(r.status, 200);
  assert.match(r.text, new RegExp(`\\r\\n${ids.lin[1]},p9,mpi.world.size,9\\r\\n`));
  r = await call(d.url, `/api/v1/ensembles/${ids.linear}/projection?format=csv&table=axes`);
  assert.equal(r.text, 'name,explained_fraction,label\r\nMDS 1,1,MDS 1 (100% of variance)\r\nMDS 2,0,MDS 2 (0% of variance)\r\n');
});

function fit(pts) {
  const n = pts.length;
  const mx = pts.reduce((s, p) => s + p.x, 0) / n;
  const my = pts.reduce((s, p) => s + p.y, 0) / n;
  let sxx = 0, syy = 0, sxy = 0;
  for (const p of pts) {
    sxx += (p.x - mx) ** 2;
    syy += (p.y - my) ** 2;
    sxy += (p.x - mx) * (p.y - my);
  }
  return { n, slope: sxy / sxx, intercept: my - (sxy / sxx) * mx, r: sxy / Math.sqrt(sxx * syy) };
}

const close = (a, b, what) => assert.ok(Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);

test('scatter: a dot per call site per run, fits equal to the points', async () => {
  let r = await getJson(d.url, `/api/v1/ensembles/${ids.linear}/scatter`);
  assertOkJson(r);
  const j = r.json;
  assert.equal(j.x.metric, 'time (inc)');
  assert.equal(j.y.metric, 'time');
  assert.equal(j.points.length, 3 * P.length);
  const all = fit(j.points);
  close(j.overall.r, all.r, 'overall r');
  close(j.overall.slope, all.slope, 'overall slope');
  assert.equal(j.overall.n, all.n);
  for (const node of j.nodes) {
    const pts = j.points.filter((p) => p.node === node.id);
    assert.equal(node.fit.n, pts.length);
    const f = fit(pts);
    if (node.name === 'work') close(node.fit.r, f.r, 'work r');
    else assert.equal(node.fit.r, null, node.name); // fixed: x does not vary; main: y (exc 1) does not
  }
  const work = j.nodes.find((n) => n.name === 'work');
  close(work.fit.slope, 1, 'work exc = inc');
  // different topologies: no dot where a run lacks the call site
  r = await getJson(d.url, `/api/v1/ensembles/${ids.topo}/scatter?x=time&y=time%20(inc)`);
  assertOkJson(r);
  assert.equal(r.json.points.length, 4 + 4); // 4 contexts per member
  assert.equal(r.json.x.metric, 'time');
  r = await call(d.url, `/api/v1/ensembles/${ids.topo}/scatter?format=csv`);
  assert.equal(r.status, 200);
  assert.match(r.text, /^node,path,trace_id,run,x,y\r\n0,main,/);
  r = await call(d.url, `/api/v1/ensembles/${ids.linear}/scatter?format=csv&table=nodes`);
  assert.match(r.text, /^id,path,name,module,present,n,r,r2,slope,intercept\r\n0,main,main,,6,6,,,0,1\r\n1,main\/work,work,,6,6,1,1,1,0\r\n/);
});

test('projection and scatter: 400 and 404', async () => {
  assertError(await getJson(d.url, '/api/v1/ensembles/999/projection'), 404, 'not_found');
  assertError(await getJson(d.url, '/api/v1/ensembles/999/scatter'), 404, 'not_found');
  assertError(await getJson(d.url, `/api/v1/ensembles/${ids.linear}/projection?k=0`), 400, 'invalid_parameter');
  assertError(await getJson(d.url, `/api/v1/ensembles/${ids.linear}/projection?seed=-1`), 400, 'invalid_parameter');
  assertError(await getJson(d.url, `/api/v1/ensembles/${ids.linear}/projection?metric=nope`), 400, 'invalid_parameter');
  assertError(await getJson(d.url, `/api/v1/ensembles/${ids.linear}/projection?runs=999`), 400, 'invalid_parameter');
  assertError(await getJson(d.url, `/api/v1/ensembles/${ids.linear}/scatter?x=nope`), 400, 'invalid_parameter');
  assertError(await getJson(d.url, `/api/v1/ensembles/${ids.linear}/scatter?y=nope`), 400, 'invalid_parameter');
});

// ---- uploads that make an ensemble (POST /traces?ensemble= or the multipart field) ----

const ensembleFixtures = join(sourceDir, 'tests', 'fixtures', 'ensemble');

async function ensembleNamed(name) {
  const r = await getJson(d.url, '/api/v1/ensembles');
  assertOkJson(r);
  return r.json.ensembles.find((e) => e.name === name);
}

test('upload: the multipart field `ensemble` makes the ensemble of the imported profiles', async () => {
  const files = ['run-8.cali', 'run-27.cali', 'run-64.cali'].map((name) => ({
    name, data: readFileSync(join(ensembleFixtures, name)),
  }));
  const job = acceptedJob(await uploadMultipart(d.url, files, { ensemble: 'uploaded runs' }));
  const done = await waitJob(d.url, job.id);
  assert.equal(done.status, 'succeeded', JSON.stringify(done));
  assert.equal(done.trace_ids.length, 3);
  const e = await ensembleNamed('uploaded runs');
  assert.ok(e, 'no ensemble called "uploaded runs"');
  assert.equal(done.ensemble_id, e.id, 'the job names the ensemble it made');
  const full = (await getJson(d.url, `/api/v1/ensembles/${e.id}`)).json;
  assert.deepEqual(full.members.map((m) => m.trace_id).sort((a, b) => a - b),
    [...done.trace_ids].sort((a, b) => a - b));
});

test('upload: ?ensemble= on a raw body; a failed ensemble says why and lists the traces', async () => {
  let job = acceptedJob(await call(d.url, '/api/v1/traces?allow_duplicate=true&filename=run-8.cali&ensemble=one',
    { method: 'POST', body: readFileSync(join(ensembleFixtures, 'run-8.cali')) }));
  let done = await waitJob(d.url, job.id);
  assert.equal(done.status, 'succeeded', JSON.stringify(done));
  const e = await ensembleNamed('one');
  assert.ok(e);
  assert.equal((await getJson(d.url, `/api/v1/ensembles/${e.id}`)).json.members[0].trace_id, done.trace_ids[0]);
  // a task trace is no profile: the import stays, the ensemble fails
  job = acceptedJob(await uploadMultipart(d.url, [{ name: 'small.trace', data: smallTrace() }], { ensemble: 'none' }));
  done = await waitJob(d.url, job.id);
  assert.equal(done.status, 'failed');
  assert.equal(done.error.code, 'ensemble_failed');
  assert.equal(done.ensemble_id, null);
  assert.equal(done.trace_ids.length, 1);
  assert.match(done.error.message, new RegExp(`\\(trace ${done.trace_ids[0]}\\).*ensemble 'none'.*no profile`));
  assertOkJson(await getJson(d.url, `/api/v1/traces/${done.trace_ids[0]}`));
  assert.equal(await ensembleNamed('none'), undefined);
  assertError(await uploadMultipart(d.url, files1(), { ensemble: 'x'.repeat(201) }), 400, 'invalid_parameter');
});

function files1() {
  return [{ name: 'run-8.cali', data: readFileSync(join(ensembleFixtures, 'run-8.cali')) }];
}

test('projection: a launch date or a timestamp is not a feature', async () => {
  const before = (await getJson(d.url, `/api/v1/ensembles/${ids.linear}/projection?k=2`)).json;
  const csv = 'run,launchdate,run.timestamp,threads\n'
    + P.map((p, i) => `p${p},${1691446615 + 7919 * i * i},${(i * 13) % 5},8`).join('\n') + '\n';
  const up = await call(d.url, `/api/v1/ensembles/${ids.linear}/parameters`,
    { method: 'POST', headers: { 'Content-Type': 'text/csv' }, body: csv });
  assert.equal(up.status, 200, up.text);
  const j = (await getJson(d.url, `/api/v1/ensembles/${ids.linear}/projection?k=2`)).json;
  assert.deepEqual([...j.features.timestamps_excluded].sort(), ['launchdate', 'run.timestamp']);
  assert.ok(j.features.parameters.includes('threads'), JSON.stringify(j.features));
  assert.ok(!j.features.parameters.includes('launchdate'));
  // a constant parameter scales to 0 everywhere: the runs stay where they were
  for (let i = 0; i < P.length; i++) {
    assert.ok(Math.abs(j.runs[i].x - before.runs[i].x) < 1e-9, `run ${i} x`);
    assert.ok(Math.abs(j.runs[i].y - before.runs[i].y) < 1e-9, `run ${i} y`);
  }
  assert.deepEqual(j.runs.map((x) => x.cluster), before.runs.map((x) => x.cluster));
});
