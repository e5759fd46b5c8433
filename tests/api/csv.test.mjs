// csv.test.mjs: ?format=csv on every analysis endpoint (server/csv_reply.c,
// csv_tables.c; docs/api.md "CSV"). On the bundled fixtures (a generated
// StarPU trace, a Paje trace, a Caliper profile, a Kineto trace, a qr_mumps
// run with its elimination tree) each table's CSV is parsed here (RFC 4180)
// and its row count compared with the number of marks counted in the JSON
// answer of the same URL, and a few values with the JSON's; the JSON answer
// stays byte-identical with format=json; bad format/table values are 400.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, runCli, sourceDir, importCli } from '../lib/daemon.mjs';

const F = join(sourceDir, 'tests', 'fixtures');
let d, dir;
const id = {};

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ariadne-csv-'));
  d = await startDaemon();
  const gen = join(dir, 'gen');
  const g = runCli(['generate', '--out', gen, '--tiles', '5', '--nodes', '2', '--seed', '7']);
  assert.equal(g.status, 0, g.stderr);
  id.gen = importCli(d.db, gen, 'gen');
  id.paje = importCli(d.db, join(F, 'paje', 'basic.trace'), 'basic');
  id.prof = importCli(d.db, join(F, 'profiles', 'small.cali'), 'small');
  id.dm = importCli(d.db, join(F, 'datamove', 'kineto_small.json'), 'kineto');
  id.qr = importCli(d.db, join(F, 'regression', 'qr_small'), 'qr_small');
});

after(async () => {
  if (d) await d.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// RFC 4180: fields separated by commas, records by CRLF, quoted fields with
// doubled quotes (and commas or line breaks inside).
export function parseCsv(text) {
  const rows = [];
  let row = [], field = '', i = 0, quoted = false;
  while (i < text.length) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i += 2; continue; }
      if (c === '"') { quoted = false; i++; continue; }
      field += c; i++; continue;
    }
    if (c === '"') { quoted = true; i++; continue; }
    if (c === ',') { row.push(field); field = ''; i++; continue; }
    if (c === '\r' && text[i + 1] === '\n') { row.push(field); rows.push(row); row = []; field = ''; i += 2; continue; }
    field += c; i++;
  }
  assert.equal(field, '', 'the text ends with CRLF');
  return rows;
}

async function getCsv(path) {
  const r = await fetch(`${d.url}/api/v1${path}${path.includes('?') ? '&' : '?'}format=csv`);
  const text = await r.text();
  assert.equal(r.status, 200, `${path}: ${text}`);
  assert.equal(r.headers.get('content-type'), 'text/csv; charset=utf-8');
  const rows = parseCsv(text);
  const header = rows.shift();
  for (const row of rows) assert.equal(row.length, header.length, `${path}: ragged row ${row}`);
  const objs = rows.map((row) => Object.fromEntries(header.map((h, k) => [h, row[k]])));
  return { header, rows: objs, disposition: r.headers.get('content-disposition') };
}

async function getJson(path) {
  const r = await fetch(`${d.url}/api/v1${path}`);
  assert.equal(r.status, 200, path);
  return r.json();
}

const num = (s) => (s === '' ? null : Number(s));
const close = (a, b) => assert.ok(Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)), `${a} vs ${b}`);
const sum = (xs, f) => xs.reduce((s, x) => s + f(x), 0);
const len = (a) => (Array.isArray(a) ? a.length : 0);

// [path, table (null: the default), marks counted in the JSON, columns that must be in the header, check]
const CASES = () => [
  [`/traces/${id.gen}/gantt?width=2000&max_tasks=1000000`, 'tasks', (j) => sum(j.rows, (r) => len(r.tasks)),
    ['row', 'job_id', 'type', 'start_ms', 'end_ms', 'duration_ms', 'gflop_GFlop'], (j, c) => {
      const t = j.rows.find((r) => len(r.tasks)).tasks[0];
      const row = c.rows.find((x) => x.job_id === t.job_id);
      assert.equal(row.type, j.types[t.type]);
      close(num(row.start_ms), t.start);
      close(num(row.duration_ms), t.end - t.start);
    }],
  [`/traces/${id.gen}/gantt?width=50&max_tasks=0`, null, (j) => sum(j.rows, (r) => len(r.pixels?.shares)),
    ['row', 'pixel', 'type', 'share_fraction'], (j, c) => assert.match(c.disposition, /trace\d+_gantt_pixels\.csv/)],
  [`/traces/${id.gen}/gantt?width=50&max_tasks=0`, 'idle', (j) => sum(j.rows, (r) => len(r.pixels?.idle)), ['idle_fraction']],
  [`/traces/${id.gen}/gantt?states=true`, 'states', (j) => sum(j.rows, (r) => Object.keys(r.states || {}).length), ['state', 'share_fraction']],
  [`/traces/${id.gen}/bounds?by=iteration`, 'total', () => 1, ['makespan_ms', 'abe_ms', 'cpe_ms'], (j, c) => close(num(c.rows[0].abe_ms), j.abe)],
  [`/traces/${id.gen}/bounds?by=iteration`, 'nodes', (j) => len(j.nodes), ['node', 'makespan_ms']],
  [`/traces/${id.gen}/bounds?by=iteration`, 'iterations', (j) => len(j.iterations), ['iteration', 'span_ms']],
  [`/traces/${id.gen}/bounds`, 'node_allocation', (j) => sum(j.nodes, (n) => len(n.allocation)), ['node', 'ideal_tasks', 'mean_duration_ms']],
  [`/traces/${id.gen}/outliers`, 'groups', (j) => len(j.groups), ['q1_ms', 'threshold_ms']],
  [`/traces/${id.gen}/outliers`, 'tasks', (j) => len(j.tasks), ['job_id', 'duration_ms']],
  [`/traces/${id.gen}/critical-path`, null, (j) => len(j.tasks), ['job_id', 'start_ms', 'duration_ms'],
    (j, c) => assert.deepEqual(c.rows.map((r) => r.job_id), j.tasks.map((t) => t.job_id))],
  [`/traces/${id.gen}/critical-path`, 'edges', (j) => len(j.edges), ['from', 'to', 'gap_ms']],
  [`/compare?traces=${id.gen},${id.qr}`, null, (j) => len(j.traces), ['trace_id', 'makespan_ms', 'idle_fraction'],
    (j, c) => assert.match(c.disposition, /traces\d+-\d+_compare\.csv/)],
  [`/traces/${id.gen}/progression?density=1&steps=3`, 'steps', (j) => len(j.steps), ['step', 'time_ms', 'abe_ms']],
  [`/traces/${id.gen}/progression?density=1&steps=3`, 'nodes', (j) => sum(j.nodes, (n) => len(n.values)), ['node', 'step_index', 'value']],
  [`/traces/${id.gen}/progression?density=1&steps=3`, 'flows', (j) => len(j.flows), ['from', 'to']],
  [`/traces/${id.gen}/progression?density=1&steps=3`, 'clusters', (j) => sum(j.steps, (s) => len(s.clusters)), ['cluster']],
  [`/traces/${id.gen}/progression?density=1&steps=3`, 'density', (j) => sum(j.steps, (s) => len(s.density?.x)), ['x', 'density']],
  [`/traces/${id.gen}/timeseries?width=100&per_node=1`, 'points', (j) => sum(j.series, (s) => len(s.points)), ['series', 't_ms', 'last_tasks']],
  [`/traces/${id.gen}/timeseries?width=100`, 'starved', (j) => len(j.starved), ['start_ms', 'end_ms']],
  [`/traces/${id.gen}/iterations`, null, (j) => len(j.iterations), ['iteration', 'duration_ms']],
  [`/traces/${id.gen}/iterations`, 'types', (j) => sum(j.iterations, (i) => Object.keys(i.types).length), ['type', 'tasks']],
  [`/traces/${id.gen}/anomalies?points=all`, 'tasks', (j) => len(j.tasks), ['gflop_GFlop', 'fit_ms', 'anomaly']],
  [`/traces/${id.gen}/anomalies?points=all`, 'groups', (j) => len(j.groups), ['b0', 'r2']],
  [`/traces/${id.gen}/models`, null, (j) => sum(j.groups, (g) => Object.keys(g.models).length), ['model', 'r2']],
  [`/traces/${id.gen}/panels`, null, (j) => sum(j.panels, (p) => sum(p.series, (s) => len(s.points))), ['panel', 'unit', 't_ms', 'value']],
  [`/traces/${id.gen}/aggregation`, null, (j) => len(j.aggregates), ['name', 'start_ms', 'gain']],
  [`/traces/${id.gen}/aggregation`, 'proportions', (j) => sum(j.aggregates, (a) => len(a.proportions)), ['value', 'proportion_fraction'],
    (j, c) => assert.equal(c.rows[0].value, j.values[0])],
  [`/traces/${id.gen}/aggregation/levels?slices=4`, null, (j) => len(j.levels), ['p_from', 'p_to', 'gain']],
  [`/traces/${id.gen}/movements`, null, (j) => len(j.movements), ['src', 'dst', 'bytes', 'start_ms']],
  [`/traces/${id.gen}/movement-matrix`, null, (j) => j.components.length ** 2, ['src', 'dst', 'bytes', 'bandwidth_GB_per_s']],
  [`/traces/${id.paje}/states`, 'states', (j) => sum(j.rows.filter((r) => r.mode === 'states'), (r) => len(r.states)),
    ['container', 'value', 'start_s', 'duration_s'], (j, c) => {
      const s = j.rows[0].states[0];
      assert.equal(c.rows[0].value, j.values[s[0]].name);
      close(num(c.rows[0].end_s), s[3]);
    }],
  [`/traces/${id.paje}/links`, null, (j) => len(j.links), ['start_s', 'from', 'to']],
  [`/traces/${id.qr}/atree`, 'nodes', (j) => len(j.nodes.id), ['node', 'parent', 'start_ms']],
  [`/traces/${id.qr}/atree`, 'cells', (j) => len(j.cells.node), ['slice', 'value']],
  [`/traces/${id.qr}/atree`, 'assembly', (j) => len(j.assembly.node), ['job_id', 'duration_ms']],
  [`/traces/${id.qr}/tree-utilization`, null, (j) => sum(j.layers, (l) => len(l.value)), ['color', 'slice', 'value_percent']],
  [`/traces/${id.qr}/tree-utilization?by=depth`, null, (j) => sum(j.depths, (l) => len(l.value)), ['depth', 'slice']],
  [`/traces/${id.qr}/tree-memory`, null, (j) => len(j.aggregated.memory), ['slice', 'memory_MB']],
  [`/traces/${id.qr}/tree-memory`, 'raw', (j) => sum(Object.values(j.raw), (s) => len(s.t)), ['series', 't_ms']],
  [`/traces/${id.prof}/cct`, null, (j) => sum(j.tree, (n) => Object.keys(n.metrics).length), ['node', 'name', 'metric', 'mean'],
    (j, c) => assert.ok(c.rows.some((r) => r.name === 'solve,fast'), 'a name with a comma survives quoting')],
  [`/traces/${id.prof}/nodes/0/ranks`, null, (j) => len(j.ranks), ['rank', 'value'],
    (j, c) => assert.match(c.disposition, /trace\d+_node0_ranks_ranks\.csv/)],
  [`/traces/${id.prof}/scatter?x=time&y=${encodeURIComponent('time (inc)')}`, null, (j) => len(j.points), ['rank', 'x', 'y']],
  [`/traces/${id.prof}/supergraph`, null, (j) => len(j.nodes), ['id', 'inclusive']],
  [`/traces/${id.prof}/supergraph`, 'edges', (j) => len(j.edges), ['source', 'target', 'weight']],
  [`/traces/${id.dm}/movements`, null, (j) => len(j.movements), ['bytes', 'start_us', 'bandwidth_GB_per_s'],
    (j, c) => close(num(c.rows[0].bytes), j.movements[0].bytes)],
  [`/traces/${id.dm}/movement-matrix`, null, (j) => j.components.length ** 2, ['src', 'dst']],
  [`/traces/${id.dm}/movement-timeline`, null, (j) => len(j.events), ['track_label', 'start_us', 'duration_us']],
  [`/traces/${id.dm}/clock`, null, (j) => sum(j.values, (v) => v.length), ['sector', 'category', 'time_us']],
  [`/traces/${id.dm}/topology`, null, (j) => len(j.components), ['kind', 'utilization_fraction']],
  [`/traces/${id.dm}/topology`, 'links', (j) => len(j.links), ['src', 'dst']],
  [`/traces/${id.dm}/metric-series`, null, (j) => sum(j.series, (s) => len(s.ts)), ['metric', 't_us', 'value']],
];

test('every table: one CSV row per mark of the JSON answer, units in the header', async () => {
  for (const [path, table, count, columns, check] of CASES()) {
    const url = table ? `${path}${path.includes('?') ? '&' : '?'}table=${table}` : path;
    const j = await getJson(path);
    const c = await getCsv(url);
    assert.equal(c.rows.length, count(j), `${url}: rows`);
    for (const col of columns) assert.ok(c.header.includes(col), `${url}: no column ${col} in ${c.header}`);
    assert.match(c.disposition, /^attachment; filename="[a-z0-9_-]+\.csv"$/);
    if (check) check(j, c);
  }
});

test('the fixtures give every checked table some rows (the counts compare something)', async () => {
  const empty = [];
  for (const [path, table, count] of CASES()) if (count(await getJson(path)) === 0) empty.push(`${path} ${table}`);
  assert.ok(empty.length <= 4, `tables without rows: ${empty.join('; ')}`);
});

test('format=json and no format give the same bytes', async () => {
  for (const path of [`/traces/${id.gen}/gantt?width=100`, `/traces/${id.prof}/cct`, `/traces/${id.dm}/clock`]) {
    const a = await (await fetch(`${d.url}/api/v1${path}`)).text();
    const b = await (await fetch(`${d.url}/api/v1${path}&format=json`.replace(/^([^?]*)&/, '$1?'))).text();
    assert.equal(b, a, path);
  }
});

test('bad format and table values are 400 and say what is accepted', async () => {
  const cases = [
    [`/traces/${id.gen}/gantt?format=xml`, /format must be one of json, csv, got 'xml'/],
    [`/traces/${id.gen}/bounds?format=csv&table=nope`, /table must be one of total, nodes, iterations/],
    ['/traces?format=csv', /format=csv is offered by the analysis endpoints/],
  ];
  for (const [path, re] of cases) {
    const r = await fetch(`${d.url}/api/v1${path}`);
    assert.equal(r.status, 400, path);
    const body = await r.json();
    assert.equal(body.error.code, 'invalid_parameter');
    assert.match(body.error.message, re);
  }
  /* an error of the handler stays JSON */
  const r = await fetch(`${d.url}/api/v1/traces/${id.gen}/gantt?format=csv&width=0`);
  assert.equal(r.status, 400);
  assert.match(r.headers.get('content-type'), /application\/json/);
  /* /tree keeps its own format (text, json) */
  const t = await fetch(`${d.url}/api/v1/traces/${id.prof}/tree?format=csv`);
  assert.equal(t.status, 400);
});
