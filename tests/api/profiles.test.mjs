// profiles.test.mjs: call-graph profiles through the API: uploads of a
// Caliper json-split profile (LULESH when the shared data is present, else
// the project's fixture) and of HPCToolkit databases as a tar.gz and as a
// multipart bundle, then GET /cct, /nodes/{node}/ranks, /scatter and /tree
// with good and bad parameters, and the profile summary of the trace.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startDaemon, waitJob, sourceDir, sharedData, importedTrace } from '../lib/daemon.mjs';
import {
  call, getJson, assertError, assertOkJson, uploadRaw, uploadMultipart, acceptedJob, makeTarGz, smallTrace, stopClean,
} from '../fixtures/api/util.mjs';

const fixtures = join(sourceDir, 'tests', 'fixtures', 'profiles');
const hatchetData = join(process.env.ARIADNE_SHARED_DATA || sharedData, 'hatchet', 'hatchet', 'tests', 'data');
const luleshPath = join(hatchetData, 'caliper-lulesh-json', 'lulesh-annotation-profile.json');
const haveLulesh = existsSync(luleshPath);

let d;
const ids = {};

const imported = (res, what) => importedTrace(d.url, res, what);

function dirFiles(dir, prefix) {
  return readdirSync(dir).sort().map((name) => ({ name: prefix ? `${prefix}/${name}` : name, data: readFileSync(join(dir, name)) }));
}

before(async () => {
  d = await startDaemon();
  const split = haveLulesh ? luleshPath : join(fixtures, 'small-split.json');
  ids.split = await imported(await uploadRaw(d.url, readFileSync(split), { filename: 'lulesh.json' }), 'json-split');
  const hpc = join(fixtures, 'hpctoolkit-small');
  ids.tgz = await imported(await uploadRaw(d.url, makeTarGz(dirFiles(hpc, 'hpctoolkit-small')), { filename: 'db.tar.gz' }),
    'hpctoolkit tar.gz');
  ids.multi = await imported(await uploadMultipart(d.url, dirFiles(hpc)), 'hpctoolkit multipart');
  ids.tasks = await imported(await uploadRaw(d.url, smallTrace(), { filename: 'small.trace' }), 'paje');
});
after(async () => { if (d) await stopClean(d); });

test('an uploaded json-split profile: kind, format and summary', async () => {
  const r = await getJson(d.url, `/api/v1/traces/${ids.split}`);
  assertOkJson(r);
  assert.equal(r.json.kind, 'profile');
  assert.equal(r.json.format, 'caliper_json_split');
  const s = r.json.summary;
  assert.equal(s.nodes, haveLulesh ? 24 : 4);
  assert.equal(s.processes, haveLulesh ? 8 : 3);
  assert.equal(s.ranks, s.processes);
  assert.equal(s.threads, 1);
  assert.deepEqual(s.metrics, ['time (inc)', 'time']);
  assert.equal(s.inclusive_metric, 'time (inc)');
  assert.ok(s.root_inclusive.min <= s.root_inclusive.mean && s.root_inclusive.mean <= s.root_inclusive.max);
  if (haveLulesh) assert.equal(s.root_inclusive.min, 5870933);
});

test('GET /cct: the tree with per-metric statistics, depth and filter', async () => {
  const r = await getJson(d.url, `/api/v1/traces/${ids.split}/cct`);
  assertOkJson(r);
  const n = haveLulesh ? 24 : 4;
  assert.equal(r.json.nodes, n);
  assert.equal(r.json.tree.length, n);
  const root = r.json.tree[0];
  assert.equal(root.name, 'main');
  assert.equal(root.parent, null);
  for (const key of ['id', 'parent', 'name', 'module', 'file', 'line', 'kind', 'depth', 'metrics']) assert.ok(key in root, key);
  const inc = root.metrics['time (inc)'];
  assert.ok(inc.min <= inc.mean && inc.mean <= inc.max, JSON.stringify(inc));
  for (const node of r.json.tree.slice(1)) assert.ok(node.parent < node.id, 'parents come first');
  if (haveLulesh) assert.equal(root.metrics.time.max, 137098);

  const one = await getJson(d.url, `/api/v1/traces/${ids.split}/cct?metric=time&depth=1`);
  assertOkJson(one);
  assert.ok(one.json.tree.every((x) => x.depth <= 1 && Object.keys(x.metrics).join() === 'time'));
  const filtered = await getJson(d.url, `/api/v1/traces/${ids.split}/cct?filter=0.3`);
  assertOkJson(filtered);
  assert.ok(filtered.json.tree.length < n && filtered.json.tree.length >= 1);
  const total = filtered.json.root_inclusive;
  for (const x of filtered.json.tree) {
    const kids = filtered.json.tree.filter((y) => y.parent === x.id);
    assert.ok(x.metrics['time (inc)'].mean >= 0.3 * total || kids.length > 0, `${x.name} should be filtered out`);
  }
});

test('GET /nodes/{node}/ranks: per-rank values and a histogram with its ranks', async () => {
  const r = await getJson(d.url, `/api/v1/traces/${ids.split}/nodes/0/ranks?metric=time&bins=4`);
  assertOkJson(r);
  const np = haveLulesh ? 8 : 3;
  assert.equal(r.json.ranks.length, np);
  assert.equal(r.json.histogram.length, 4);
  const inBins = r.json.histogram.flatMap((b) => b.ranks).sort((a, b) => a - b);
  assert.deepEqual(inBins, r.json.ranks.map((x) => x.rank).sort((a, b) => a - b));
  assert.equal(r.json.histogram.reduce((s, b) => s + b.count, 0), np);
  const values = r.json.ranks.map((x) => x.value);
  assert.equal(r.json.stats.min, Math.min(...values));
  assert.equal(r.json.stats.max, Math.max(...values));
  if (haveLulesh) assert.equal(r.json.ranks.find((x) => x.rank === 0).value, 121489);
  assert.equal(r.json.node.name, 'main');
});

test('GET /scatter: two metrics over ranks, the fitted line and r', async () => {
  const r = await getJson(d.url, `/api/v1/traces/${ids.split}/scatter?x=${encodeURIComponent('time (inc)')}&y=time`);
  assertOkJson(r);
  const pts = r.json.points;
  assert.equal(pts.length, haveLulesh ? 8 : 3);
  const mx = pts.reduce((s, p) => s + p.x, 0) / pts.length, my = pts.reduce((s, p) => s + p.y, 0) / pts.length;
  let sxy = 0, sxx = 0, syy = 0;
  for (const p of pts) { sxy += (p.x - mx) * (p.y - my); sxx += (p.x - mx) ** 2; syy += (p.y - my) ** 2; }
  assert.ok(Math.abs(r.json.fit.slope - sxy / sxx) < 1e-9 * Math.max(1, Math.abs(sxy / sxx)));
  assert.ok(Math.abs(r.json.fit.r - sxy / Math.sqrt(sxx * syy)) < 1e-9);
  assert.ok(Math.abs(r.json.fit.r2 - r.json.fit.r ** 2) < 1e-12);
});

test('GET /tree: Hatchet tree() text', async () => {
  const r = await call(d.url, `/api/v1/traces/${ids.split}/tree?metric=time`);
  assert.equal(r.status, 200, r.text);
  assert.match(r.headers.get('content-type'), /^text\/plain/);
  assert.ok(r.text.includes(haveLulesh ? '121489.000 main\n' : '1.000 main\n'), r.text);
  const inc = await call(d.url, `/api/v1/traces/${ids.split}/tree?metric=${encodeURIComponent('time (inc)')}&precision=1`);
  assert.ok(inc.text.includes(haveLulesh ? '2895319.0 LagrangeNodal\n' : '5.0 main\n'), inc.text);
  const json = await getJson(d.url, `/api/v1/traces/${ids.split}/tree?format=json&rank=1`);
  assertOkJson(json);
  assert.equal(typeof json.json.text, 'string');
});

test('HPCToolkit databases uploaded as a tar.gz and as a multipart bundle', async () => {
  for (const id of [ids.tgz, ids.multi]) {
    const t = await getJson(d.url, `/api/v1/traces/${id}`);
    assertOkJson(t);
    assert.equal(t.json.format, 'hpctoolkit');
    assert.equal(t.json.summary.processes, 2);
    const r = await getJson(d.url, `/api/v1/traces/${id}/cct`);
    assertOkJson(r);
    assert.deepEqual(r.json.tree.map((x) => x.name),
      ['main', 'app.c:12', '10:solve', 'Loop@app.c:40', 'app.c:41', '<unknown file>:31']);
    assert.equal(r.json.tree[0].metrics['time (inc)'].max, 200);
    const tree = await call(d.url, `/api/v1/traces/${id}/tree?rank=1`);
    assert.ok(tree.text.startsWith('200.000 main ./src/app.c\n'), tree.text);
  }
});

test('errors: not a profile, missing, bad parameters', async () => {
  const base = `/api/v1/traces/${ids.split}`;
  assertError(await getJson(d.url, `/api/v1/traces/${ids.tasks}/cct`), 409, 'not_a_profile', 'cct of a task trace');
  assertError(await getJson(d.url, `/api/v1/traces/${ids.tasks}/tree`), 409, 'not_a_profile', 'tree of a task trace');
  assertError(await getJson(d.url, '/api/v1/traces/999999/cct'), 404, 'not_found');
  assertError(await getJson(d.url, `${base}/cct?metric=nope`), 400, 'invalid_parameter');
  assertError(await getJson(d.url, `${base}/cct?filter=2`), 400, 'invalid_parameter');
  assertError(await getJson(d.url, `${base}/cct?depth=x`), 400, 'invalid_parameter');
  assertError(await getJson(d.url, `${base}/nodes/9999/ranks`), 404, 'not_found');
  assertError(await getJson(d.url, `${base}/nodes/x/ranks`), 400, 'invalid_parameter');
  assertError(await getJson(d.url, `${base}/nodes/0/ranks?bins=0`), 400, 'invalid_parameter');
  assertError(await getJson(d.url, `${base}/scatter?x=time`), 400, 'invalid_parameter');
  assertError(await getJson(d.url, `${base}/scatter?x=time&y=nope`), 400, 'invalid_parameter');
  assertError(await getJson(d.url, `${base}/tree?rank=99`), 400, 'invalid_parameter');
  assertError(await getJson(d.url, `${base}/tree?precision=40`), 400, 'invalid_parameter');
  const bad = acceptedJob(await uploadRaw(d.url, '{"data": [[1, 0, 1, 0]', { filename: 'cut.json' }), 'truncated');
  const done = await waitJob(d.url, bad.id);
  assert.equal(done.status, 'failed');
  assert.equal(done.error.code, 'invalid_input', JSON.stringify(done));
});
