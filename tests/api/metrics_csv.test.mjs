// metrics_csv.test.mjs: ?format=csv on the sampled-metrics analyses (issue
// 17; server/csv_tables.c, csv_reply.c; docs/api.md "CSV and JSON of every
// view"): POST /cluster, /projection, /changepoints, /comm/segments, GET
// /overview and GET /analyses/{id}. On the ROSS fixture each table's CSV
// rows are compared, field by field, with the rows built here from the
// JSON answer of the same request; bad format/table values are 400 and a
// 202 stays JSON.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, sourceDir, importedTrace, runCli } from '../lib/daemon.mjs';
import { call, sendJson, uploadMultipart, stopClean, assertError } from '../fixtures/api/util.mjs';
import { dirFiles } from '../fixtures/api/metrics.mjs';

const fixtureDir = join(sourceDir, 'tests', 'fixtures', 'metrics', 'ross');
const work = mkdtempSync(join(tmpdir(), 'ariadne-mcsv-'));
let d, id;

before(async () => {
  d = await startDaemon();
  id = await importedTrace(d.url, await uploadMultipart(d.url, dirFiles(fixtureDir, 'ross')), 'fixture');
});
after(async () => {
  if (d) await stopClean(d);
  rmSync(work, { recursive: true, force: true });
});

// RFC 4180 records (CRLF, quoted fields with doubled quotes).
function parseCsv(text) {
  const rows = [];
  let row = [], field = '', quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i++; } else if (c === '"') quoted = false; else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') { row.push(field); field = ''; }
    else if (c === '\r' && text[i + 1] === '\n') { row.push(field); rows.push(row); row = []; field = ''; i++; }
    else field += c;
  }
  assert.equal(field, '', 'the text ends with CRLF');
  return rows;
}

// The CSV answer of a response: checks the headers, returns {header, rows}.
function csvOf(res, file) {
  assert.equal(res.status, 200, res.text.slice(0, 300));
  assert.match(res.headers.get('content-type'), /^text\/csv/);
  assert.match(res.headers.get('content-disposition'), new RegExp(`filename="${file}"`));
  const [header, ...rows] = parseCsv(res.text);
  for (const r of rows) assert.equal(r.length, header.length, `ragged row ${r}`);
  return { header, rows };
}

// The CSV equals the expected rows of JSON values (null: an empty field;
// numbers read back to the same double).
function sameRows(csv, header, expected, what) {
  assert.deepEqual(csv.header, header, what);
  assert.equal(csv.rows.length, expected.length, `${what}: row count`);
  assert.ok(expected.length > 0, `${what}: the JSON has rows to compare`);
  csv.rows.forEach((r, i) => expected[i].forEach((v, j) => {
    const at = `${what} row ${i} ${header[j]}`;
    if (v === null || v === undefined) assert.equal(r[j], '', at);
    else if (typeof v === 'number') assert.equal(Number(r[j]), v, `${at}: ${r[j]} vs ${v}`);
    else assert.equal(r[j], String(v), at);
  }));
}

const post = (what, body, qs) => sendJson(d.url, 'POST', `/api/v1/traces/${id}/${what}${qs}`, body);

// The JSON answer and the CSV of one table of the same request.
async function both(what, body, table) {
  const json = await post(what, body, '');
  assert.equal(json.status, 200, json.text.slice(0, 300));
  const csv = await post(what, body, `?format=csv${table ? `&table=${table}` : ''}`);
  return { j: json.json, csv };
}

const clusterRows = {
  entities: (j) => j.entities.map((e, i) => [e, j.labels[i]]),
  centers: (j) => j.centers.flatMap((c, k) => c.map((v, x) => [k, x, v])),
  medoids: (j) => j.medoids.map((m, k) => [k, m]),
  merges: (j) => j.dendrogram.merge.map((m, s) => [s, m[0], m[1], j.dendrogram.height[s]]),
};
const cpdRows = {
  segments: (j) => j.segments.map((s) => [s.label, s.i0, s.i1, s.t0, s.t1]),
  change_points: (j) => j.change_points.map((c, k) => [c, j.times[k], j.p_values[k], j.statistics[k]]),
};
const commRows = {
  matrix: (j) => j.segments.flatMap((s, k) => s.matrix.flatMap((row, a) => row.map((v, b) =>
    [k, s.t0, s.t1, j.entities[a].id, j.entities[a].name, j.entities[b].id, j.entities[b].name, v]))),
  rings: (j) => j.segments.flatMap((s, k) => Object.entries(s.rings).flatMap(([m, vals]) =>
    vals.map((v, e) => [k, s.t0, s.t1, j.ring_entities[e], m, v]))),
};
const headers = {
  entities: ['entity', 'label'], centers: ['cluster', 'index', 'value'], medoids: ['cluster', 'entity'],
  merges: ['step', 'a', 'b', 'height'], points: ['entity', 'x', 'y'], segments: ['label', 'i0', 'i1', 't0', 't1'],
  change_points: ['index', 'time', 'p_value', 'statistic'],
  matrix: ['segment', 't0', 't1', 'source', 'source_name', 'target', 'target_name', 'value'],
  rings: ['segment', 't0', 't1', 'entity', 'metric', 'value'],
};

test('cluster: entities with labels, k-means centres, PAM medoids, dendrogram merges', async () => {
  const metrics = ['RbTotal', 'NetworkSend'];
  const cases = [
    [{ metrics, k: 3 }, ['entities', 'centers']],
    [{ metrics, method: 'pam', k: 3 }, ['entities', 'medoids']],
    [{ metrics, method: 'complete', distance: 'dtw', k: 4 }, ['entities', 'merges']],
  ];
  for (const [body, tables] of cases) {
    for (const t of tables) {
      const { j, csv } = await both('cluster', body, t);
      sameRows(csvOf(csv, `trace${id}_cluster_${t}.csv`), headers[t], clusterRows[t](j), `${body.method} ${t}`);
    }
    // without table=: the entities
    const { j, csv } = await both('cluster', body, null);
    sameRows(csvOf(csv, `trace${id}_cluster_entities.csv`), headers.entities, clusterRows.entities(j), 'default');
    assert.equal(j.entities.length, 12);
  }
  // a table the method does not have: the header alone
  const none = csvOf(await post('cluster', { metrics, k: 3 }, '?format=csv&table=medoids'), `trace${id}_cluster_medoids.csv`);
  assert.deepEqual(none, { header: headers.medoids, rows: [] });
});

test('projection: entity, x, y', async () => {
  for (const body of [{ method: 'mds' }, { method: 'tsne', perplexity: 3, iterations: 200 }]) {
    const { j, csv } = await both('projection', body, null);
    sameRows(csvOf(csv, `trace${id}_projection.csv`), headers.points,
      j.xy.map((p, i) => [j.entities[i], p[0], p[1]]), body.method);
  }
});

test('changepoints: segments and change points', async () => {
  for (const body of [{ metrics: ['RbTotal'], k: 2, min_size: 3 }, { metrics: ['RbTotal'], min_size: 3, R: 49 }]) {
    for (const t of ['segments', 'change_points']) {
      const { j, csv } = await both('changepoints', body, t);
      if (t === 'change_points' && j.change_points.length === 0) continue; // nothing significant: nothing to compare
      sameRows(csvOf(csv, `trace${id}_changepoints_${t}.csv`), headers[t], cpdRows[t](j), `${JSON.stringify(body)} ${t}`);
    }
  }
});

test('comm/segments: the matrices in long form and the rings', async () => {
  const first = (await post('comm/segments', { level: 'KP' }, '')).json;
  const [t0, t1] = [first.segments[0].t0, first.segments[0].t1];
  const mid = (t0 + t1) / 2;
  for (const body of [{ level: 'KP' }, { level: 'PE', comm_metric: 'sum', segments: [[t0, mid], [mid, t1]] }]) {
    for (const t of ['matrix', 'rings']) {
      const { j, csv } = await both('comm/segments', body, t);
      sameRows(csvOf(csv, `trace${id}_comm_segments_${t}.csv`), headers[t], commRows[t](j), `${body.level} ${t}`);
    }
  }
});

test('GET /overview: time, value', async () => {
  const u = `/api/v1/traces/${id}/overview?metric=RbTotal&stat=std`;
  const j = (await call(d.url, u)).json;
  const csv = csvOf(await call(d.url, `${u}&format=csv`), `trace${id}_overview.csv`);
  sameRows(csv, ['time', 'value'], j.time.map((t, i) => [t, j.value[i]]), 'overview');
});

test('bad format and table on a POST are 400; nothing is computed', async () => {
  assertError(await post('cluster', {}, '?format=xml'), 400, 'invalid_parameter', 'format=xml');
  const bad = await post('cluster', {}, '?format=csv&table=nodes');
  assertError(bad, 400, 'invalid_parameter', 'table=nodes');
  assert.match(bad.json.error.message, /entities, centers, medoids, merges/);
  assertError(await post('comm/segments', {}, '?format=csv&table=entities'), 400, 'invalid_parameter');
  // errors of the analysis itself stay JSON
  assertError(await post('cluster', { k: 0 }, '?format=csv'), 400, 'invalid_parameter', 'k=0');
  // format=json is the JSON answer
  const j = await post('projection', {}, '?format=json');
  assert.equal(j.status, 200);
  assert.ok(Array.isArray(j.json.xy));
});

// A run long enough for a 202: the 202 stays JSON, the finished run's
// document gives the result's tables.
test('GET /analyses/{id}?format=csv: the tables of the run\'s result', async () => {
  const dir = join(work, 'big');
  const g = runCli(['generate', '--kind', 'pdes', '--pes', '4', '--kps', '16', '--samples', '200', '--no-records', dir]);
  assert.equal(g.status, 0, g.stderr);
  const big = await importedTrace(d.url, await uploadMultipart(d.url, dirFiles(dir, 'big')), 'big');
  const body = { metrics: ['RbTotal'], method: 'complete', distance: 'dtw', k: 3 };
  const first = await sendJson(d.url, 'POST', `/api/v1/traces/${big}/cluster?format=csv`, body);
  assert.equal(first.status, 202, first.text.slice(0, 300));
  assert.match(first.headers.get('content-type'), /^application\/json/);
  const loc = first.headers.get('location');
  let r;
  for (let i = 0; i < 2400; i++) {
    r = (await call(d.url, loc)).json;
    if (!['queued', 'running'].includes(r.analysis.status)) break;
    await new Promise((res) => setTimeout(res, 50));
  }
  assert.equal(r.analysis.status, 'succeeded', JSON.stringify(r.analysis));
  const aid = r.analysis.id;
  for (const t of ['entities', 'merges']) {
    const csv = csvOf(await call(d.url, `${loc}?format=csv&table=${t}`), `trace${aid}_analysis_${t}.csv`);
    sameRows(csv, headers[t], clusterRows[t](r.result), `analysis ${t}`);
  }
  const dflt = csvOf(await call(d.url, `${loc}?format=csv`), `trace${aid}_analysis_entities.csv`);
  sameRows(dflt, headers.entities, clusterRows.entities(r.result), 'analysis default');
  assert.equal(dflt.rows.length, 64);
  // a table of another kind: the header alone
  const other = csvOf(await call(d.url, `${loc}?format=csv&table=points`), `trace${aid}_analysis_points.csv`);
  assert.deepEqual(other, { header: headers.points, rows: [] });
  assertError(await call(d.url, `${loc}?format=csv&table=bogus`), 400, 'invalid_parameter');
});
