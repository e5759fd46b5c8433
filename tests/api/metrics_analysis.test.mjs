// metrics_analysis.test.mjs: the analyses of sampled-metrics (pdes) traces
// over HTTP (issue 17): POST /cluster, /projection, /changepoints and
// /comm/segments, and the background runs of /analyses/{id}. Checked
// against R on the /series values (k-means tot.withinss and partition,
// hclust merge heights, cluster::pam medoids, cmdscale up to sign), the
// generator's truth.json boundaries, and communication sums computed here
// from the record CSV (the fixture's KP 5; kpgid100.csv of the real ROSS
// sample when ../shared/data is there).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, sourceDir, sharedData, importedTrace, runCli } from '../lib/daemon.mjs';
import { call, sendJson, uploadMultipart, uploadRaw, stopClean, assertError } from '../fixtures/api/util.mjs';
import { dirFiles, readRecords, scaledRows, seriesBlocks, hasR, runR, analyse, samePartition }
  from '../fixtures/api/metrics.mjs';

const fixtureDir = join(sourceDir, 'tests', 'fixtures', 'metrics', 'ross');
const sampleDir = join(process.env.ARIADNE_SHARED_DATA || sharedData, 'ross-sample');
const work = mkdtempSync(join(tmpdir(), 'ariadne-mta-'));

let d, fixtureId, sampleId = null;
before(async () => {
  d = await startDaemon();
  fixtureId = await importedTrace(d.url, await uploadMultipart(d.url, dirFiles(fixtureDir, 'ross')), 'fixture');
  if (existsSync(sampleDir))
    sampleId = await importedTrace(d.url, await uploadMultipart(d.url, dirFiles(sampleDir, 'ross-sample')), 'sample');
});
after(async () => {
  if (d) await stopClean(d);
  rmSync(work, { recursive: true, force: true });
});

const nums = (line) => line.trim().split(/\s+/).map(Number);
const relClose = (a, b, tol, what) => assert.ok(Math.abs(a - b) <= tol * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);

// The traces and metric sets the R comparisons run on.
function cases() {
  const out = [{ id: fixtureId, metrics: ['RbTotal', 'NetworkSend'], what: 'fixture' }];
  if (sampleId) for (const m of ['RbTotal', 'NetworkRecv', 'VirtualTimeDiff']) out.push({ id: sampleId, metrics: [m], what: `sample ${m}` });
  return out;
}

test('k-means equals R kmeans(nstart = 10): tot.withinss and the partition', async (t) => {
  if (!hasR) { t.skip('no Rscript with cluster'); return; }
  for (const c of cases()) {
    // 100 starts on both sides, so that both reach the best partition (10
    // starts land in a worse local optimum on VirtualTimeDiff, here and in R)
    const { result } = await analyse(d.url, c.id, 'cluster', { metrics: c.metrics, k: 3, nstart: 100 });
    const s = await seriesBlocks(d.url, c.id, c.metrics);
    assert.deepEqual(result.entities, s.entities);
    assert.equal(result.labels.length, s.entities.length);
    // numbered by first appearance; sizes add up
    let next = 0;
    for (const l of result.labels) { assert.ok(l <= next, c.what); if (l === next) next++; }
    assert.deepEqual(result.sizes, [0, 1, 2].map((k) => result.labels.filter((l) => l === k).length));
    const rows = scaledRows(s.blocks);
    const out = runR(rows, 'set.seed(1); best <- kmeans(X, 3, nstart = 100)\nw(best$tot.withinss); w(best$cluster)');
    const [tot, labels] = out.trim().split('\n');
    relClose(result.tot_withinss, Number(tot), 1e-6, `${c.what} tot.withinss`);
    samePartition(result.labels, nums(labels));
    // the centres are the clusters' means of the scaled rows
    result.centers[0].forEach((v, j) => {
      const members = rows.filter((_, i) => result.labels[i] === 0);
      relClose(v, members.reduce((a, r) => a + r[j], 0) / members.length, 1e-9, 'centre');
    });
  }
});

test('complete linkage equals hclust, PAM equals cluster::pam, MDS equals cmdscale up to sign', async (t) => {
  if (!hasR) { t.skip('no Rscript with cluster'); return; }
  for (const c of cases()) {
    const s = await seriesBlocks(d.url, c.id, c.metrics);
    const rows = scaledRows(s.blocks);
    const out = runR(rows, 'D <- dist(X); h <- hclust(D, "complete"); w(h$height); w(cutree(h, 4))\np <- pam(D, 3); w(p$id.med)\nm <- cmdscale(D, 2); w(m[, 1]); w(m[, 2])');
    const [heights, cut, med, x1, x2] = out.trim().split('\n').map(nums);
    const hc = (await analyse(d.url, c.id, 'cluster', { metrics: c.metrics, method: 'complete', k: 4 })).result;
    hc.dendrogram.height.forEach((h, i) => relClose(h, heights[i], 1e-9, `${c.what} height ${i}`));
    assert.equal(hc.dendrogram.merge.length, rows.length - 1);
    samePartition(hc.labels, cut);
    const pm = (await analyse(d.url, c.id, 'cluster', { metrics: c.metrics, method: 'pam', k: 3 })).result;
    assert.deepEqual([...pm.medoids].sort((a, b) => a - b), med.map((i) => s.entities[i - 1]).sort((a, b) => a - b), c.what);
    const mds = (await analyse(d.url, c.id, 'projection', { metrics: c.metrics })).result;
    for (const [axis, ref] of [[0, x1], [1, x2]]) {
      const sign = Math.sign(mds.xy.reduce((a, p, i) => a + p[axis] * ref[i], 0)) || 1;
      mds.xy.forEach((p, i) => assert.ok(Math.abs(p[axis] - sign * ref[i]) < 1e-6 * (1 + Math.abs(ref[i])), `${c.what} axis ${axis} point ${i}`));
    }
    assert.ok(mds.explained[0] >= mds.explained[1]);
  }
});

test('a repeated request comes from the cache; t-SNE and DTW/TWED projections have one point per entity', async () => {
  const body = { metrics: ['RbTotal'], method: 'complete', distance: 'twed', k: 2, twed: { nu: 0.01, lambda: 0.5 } };
  const a = await analyse(d.url, fixtureId, 'cluster', body);
  const b = await sendJson(d.url, 'POST', `/api/v1/traces/${fixtureId}/cluster`, body);
  assert.equal(b.status, 200);
  assert.deepEqual(b.json, a.result);
  const ts = (await analyse(d.url, fixtureId, 'projection', { method: 'tsne', perplexity: 3, metrics: ['RbTotal'] })).result;
  assert.equal(ts.xy.length, 12);
  assert.ok(Number.isFinite(ts.kl));
  const dtw = (await analyse(d.url, fixtureId, 'projection', { distance: 'dtw', dtw: { step: 'symmetric2', window: 3 } })).result;
  assert.equal(dtw.xy.length, 12);
  assert.equal(dtw.distance, 'dtw');
});

// A large generated run: the 202 flow, sharing, progress and cancel.
test('long analyses run in the background: 202, polling, sharing, DELETE cancels', async () => {
  const dir = join(work, 'big');
  const g = runCli(['generate', '--kind', 'pdes', '--pes', '8', '--kps', '16', '--samples', '400', '--no-records', dir]);
  assert.equal(g.status, 0, g.stderr);
  const id = await importedTrace(d.url, await uploadMultipart(d.url, dirFiles(dir, 'big')), 'big');
  const body = { metrics: ['RbTotal'], method: 'pam', distance: 'dtw', k: 3 };
  const first = await sendJson(d.url, 'POST', `/api/v1/traces/${id}/cluster`, body);
  assert.equal(first.status, 202, first.text);
  const loc = first.headers.get('location');
  assert.equal(loc, `/api/v1/analyses/${first.json.analysis.id}`);
  assert.equal(first.json.analysis.kind, 'cluster');
  const again = await sendJson(d.url, 'POST', `/api/v1/traces/${id}/cluster`, body);
  assert.equal(again.json.analysis.id, first.json.analysis.id, 'identical requests share one run');
  // a second one, cancelled while queued or running
  const other = await sendJson(d.url, 'POST', `/api/v1/traces/${id}/cluster`, { ...body, method: 'complete' });
  assert.equal(other.status, 202);
  const del = await call(d.url, other.headers.get('location'), { method: 'DELETE' });
  assert.equal(del.status, 204);
  let seen = new Set(), r;
  for (let i = 0; i < 2400; i++) {
    r = (await call(d.url, loc)).json;
    seen.add(r.analysis.status);
    assert.ok(r.analysis.progress >= 0 && r.analysis.progress <= 1);
    if (r.analysis.status === 'succeeded') break;
    await new Promise((res) => setTimeout(res, 50));
  }
  assert.equal(r.analysis.status, 'succeeded', JSON.stringify(r.analysis));
  assert.equal(r.result.labels.length, 128);
  assert.equal(r.result.medoids.length, 3);
  const c = (await call(d.url, other.headers.get('location'))).json;
  assert.equal(c.analysis.status, 'cancelled');
  assert.equal(c.error.code, 'cancelled');
  const cached = await sendJson(d.url, 'POST', `/api/v1/traces/${id}/cluster`, body);
  assert.equal(cached.status, 200);
  assert.deepEqual(cached.json.labels, r.result.labels);
  assertError(await call(d.url, '/api/v1/analyses/999999'), 404, 'not_found');
  assertError(await call(d.url, '/api/v1/analyses/999999', { method: 'DELETE' }), 404, 'not_found');
});

test('change points find the generator\'s phase boundaries within min_size', async () => {
  const dir = join(work, 'cpd');
  const g = runCli(['generate', '--kind', 'pdes', '--pes', '4', '--kps', '4', '--samples', '120', '--seed', '3', '--no-records', dir]);
  assert.equal(g.status, 0, g.stderr);
  const truth = JSON.parse(readFileSync(join(dir, 'truth.json'), 'utf8')).boundaries.map((b) => b.index);
  const id = await importedTrace(d.url, await uploadMultipart(d.url, dirFiles(dir, 'cpd')), 'cpd');
  const minSize = 10;
  const res = (await analyse(d.url, id, 'changepoints', { metrics: ['NeventProcessed', 'RbTotal'], granularity: 'PE', min_size: minSize })).result;
  assert.equal(res.change_points.length, truth.length, JSON.stringify(res.change_points));
  truth.forEach((b, i) => assert.ok(Math.abs(res.change_points[i] - b) <= minSize, `boundary ${b} vs ${res.change_points[i]}`));
  res.p_values.forEach((p) => assert.ok(p <= 0.05));
  assert.deepEqual(res.segments.map((s) => s.label), ['A', 'B', 'C', 'D'].slice(0, truth.length + 1));
  assert.equal(res.segments[1].i0, res.change_points[0]);
  const s = await seriesBlocks(d.url, id, ['RbTotal']);
  assert.deepEqual(res.times, res.change_points.map((c) => s.time[c]));
  // k: exactly that many, untested
  const k2 = (await analyse(d.url, id, 'changepoints', { metrics: ['NeventProcessed'], k: 2, min_size: minSize })).result;
  assert.equal(k2.change_points.length, 2);
  assert.deepEqual(k2.p_values, [null, null]);
});

// Expected comm/segments of one sending KP from its records: per segment the
// mean over the trace's samples of the events sent to each KP.
function expectedRows(records, time, segments) {
  const byTime = new Map();
  for (const r of records) {
    const k = Number(r.LastGvt);
    const row = JSON.parse(r.CommData);
    const e = byTime.get(k) || { n: 0, sum: row.map(() => 0) };
    e.n++;
    row.forEach((v, j) => { e.sum[j] += v; });
    byTime.set(k, e);
  }
  return segments.map(([t0, t1]) => {
    const ts = time.filter((t) => t >= t0 && t <= t1);
    const acc = [...byTime.values()][0].sum.map(() => 0);
    for (const t of ts) { const e = byTime.get(t); if (e) e.sum.forEach((v, j) => { acc[j] += v / e.n; }); }
    return acc.map((v) => v / ts.length);
  });
}

async function checkComm(id, recordPath, sender, kpsPerPe) {
  const records = readRecords(recordPath);
  const s = await seriesBlocks(d.url, id, ['RbTotal']);
  const mid = s.time[Math.floor(s.time.length / 2)];
  const segments = [[s.time[0], mid], [s.time[Math.floor(s.time.length / 2) + 1], s.time.at(-1)]];
  const want = expectedRows(records, s.time, segments);
  const kp = (await analyse(d.url, id, 'comm/segments', { segments, level: 'KP' })).result;
  const names = kp.entities.map((e) => e.name);
  const gid = (name) => Number(name.slice(3));
  const row = names.indexOf(`KP ${sender}`);
  assert.ok(row >= 0);
  kp.segments.forEach((seg, si) => {
    seg.matrix.forEach((r, i) => r.forEach((v, j) => {
      const w = i === row ? want[si][gid(names[j])] : 0;
      assert.ok(Math.abs(v - w) < 1e-9, `segment ${si} [${names[i]}][${names[j]}]: ${v} vs ${w}`);
    }));
  });
  // PE: the sender's row split into PE blocks and summed, over the KPs of its PE
  const pe = (await analyse(d.url, id, 'comm/segments', { segments, level: 'PE', comm_metric: 'recv' })).result;
  const srcPe = Math.floor(sender / kpsPerPe);
  pe.segments.forEach((seg, si) => {
    seg.matrix.forEach((r, b) => r.forEach((v, a) => {
      // recv: [b][a] = send[a][b]
      const w = a === srcPe ? want[si].reduce((acc, x, j) => acc + (Math.floor(j / kpsPerPe) === b ? x : 0), 0) / kpsPerPe : 0;
      assert.ok(Math.abs(v - w) < 1e-9, `PE segment ${si} [${b}][${a}]: ${v} vs ${w}`);
    }));
  });
  assert.equal(Object.keys(pe.hierarchy).length, pe.entities.length);
  Object.values(pe.hierarchy).forEach((kids) => assert.equal(kids.length, kpsPerPe));
  // rings: per-KP means of RbTotal, one scale over the segments
  const rb = s.blocks[0];
  const ringIdx = pe.ring_entities.map((e) => s.entities.indexOf(e));
  pe.segments.forEach((seg, si) => seg.rings.RbTotal.forEach((v, k) => {
    const ts = s.time.map((t, j) => [t, j]).filter(([t]) => t >= segments[si][0] && t <= segments[si][1]);
    const m = ts.reduce((a, [, j]) => a + rb[ringIdx[k]][j], 0) / ts.length;
    assert.ok(Math.abs(v - m) < 1e-9 * (1 + Math.abs(m)));
  }));
  const all = pe.segments.flatMap((seg) => seg.rings.RbTotal);
  assert.deepEqual(pe.scales.RbTotal, [Math.min(...all), Math.max(...all)]);
}

test('comm/segments equals sums over the record CSV (fixture KP 5)', async () => {
  await checkComm(fixtureId, join(fixtureDir, 'run-12kp_kpgid5.csv'), 5, 4);
});

test('comm/segments on the real ROSS sample equals sums over kpgid100.csv', async (t) => {
  if (!sampleId) { t.skip(`no ${sampleDir}`); return; }
  await checkComm(sampleId, join(sampleDir, 'kpgid100.csv'), 100, 16);
});

test('errors: 400 naming the parameter, 409 for other kinds and traces without communication', async () => {
  const base = `/api/v1/traces/${fixtureId}`;
  const bad = async (what, body, re) => {
    const r = await sendJson(d.url, 'POST', `${base}/${what}`, body);
    assertError(r, 400, 'invalid_parameter', JSON.stringify(body));
    if (re) assert.match(r.json.error.message, re);
  };
  await bad('cluster', { method: 'kmeans', distance: 'dtw' }, /euclidean/);
  await bad('cluster', { method: 'ward' }, /kmeans, pam, complete/);
  await bad('cluster', { k: 12 }, /k must be an integer in 1\.\.11/);
  await bad('cluster', { metrics: ['Nope'] }, /metrics\[0\]/);
  await bad('cluster', { granularity: 'LP' }, /granularity/);
  await bad('cluster', { t0: 5, t1: 1 }, /t1/);
  await bad('cluster', { t0: 1e12 }, /empty/);
  await bad('cluster', { entities: [0] }, /entities\[0\]/);
  await bad('cluster', { extra: 1 }, /unknown field 'extra'/);
  await bad('projection', { method: 'tsne' }, /perplexity/);
  await bad('projection', { method: 'umap' }, /mds, tsne/);
  await bad('changepoints', { sig_lvl: 1.5 }, /sig_lvl/);
  await bad('changepoints', { alpha: 3 }, /alpha/);
  await bad('comm/segments', { comm_metric: 'avg' }, /send, recv, sum, max/);
  await bad('comm/segments', { segments: [[5, 1]] }, /segments\[0\]/);
  await bad('comm/segments', { level: 'LP' }, /level/);
  assertError(await sendJson(d.url, 'POST', '/api/v1/traces/999999/cluster', {}), 404, 'not_found');
  const small = readFileSync(join(sourceDir, 'tests', 'fixtures', 'api', 'small.trace'));
  const paje = await importedTrace(d.url, await uploadRaw(d.url, small, { filename: 'small.trace' }), 'paje');
  assertError(await sendJson(d.url, 'POST', `/api/v1/traces/${paje}/cluster`, {}), 409, 'not_pdes');
  const long = readFileSync(join(sourceDir, 'tests', 'fixtures', 'metrics', 'long.csv'));
  const lid = await importedTrace(d.url, await uploadRaw(d.url, long, { filename: 'long.csv' }), 'long');
  const r = await sendJson(d.url, 'POST', `/api/v1/traces/${lid}/comm/segments`, {});
  assertError(r, 409, 'no_comm');
  assert.match(r.json.error.message, /no communication data/);
  // generic metrics with a missing sample: filled, and clustered
  const g = await analyse(d.url, lid, 'cluster', { k: 2 });
  assert.equal(g.result.labels.length, 4);
});
