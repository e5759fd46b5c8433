// datamove.test.mjs: data movement traces through the API. Uploads the
// project's Kineto fixture (with its nvidia-smi CSV and hwloc topology) and,
// when the shared data is present, the DMVis GEMM fill runs; checks the
// movements (bytes per direction, bandwidth against the trace's own), the
// matrix, timeline, clock, topology and metric endpoints, their errors, a
// topology from `lstopo --of xml` of this machine, and GET /api/v1/topology.
// Task traces (a generated StarPU bundle, and the shared StarPU runs when
// present) answer movements and the matrix from their Paje links, checked
// against the links read independently with the sqlite3 shell (psql on PostgreSQL).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, waitJob, runCli, sourceDir, sharedData, backendName } from '../lib/daemon.mjs';
import { getJson, assertError, assertOkJson, uploadMultipart, acceptedJob, stopClean, sqlite } from '../fixtures/api/util.mjs';

const fixtures = join(sourceDir, 'tests', 'fixtures', 'datamove');
const gemmDir = join(process.env.ARIADNE_SHARED_DATA || sharedData, 'dmvis', 'data', 'use-case-1-GEMM-fill');
const haveGemm = existsSync(gemmDir);
const starpuDir = join(process.env.ARIADNE_SHARED_DATA || sharedData, 'starpu');
const MiB = 1024 * 1024;

let d;

async function upload(files, what) {
  const res = await uploadMultipart(d.url, files);
  const job = acceptedJob(res, what);
  const done = await waitJob(d.url, job.id);
  assert.equal(done.status, 'succeeded', `${what}: ${JSON.stringify(done)}`);
  return done.trace_ids;
}

const file = (dir, name, as = name) => ({ name: as, data: readFileSync(join(dir, name)) });

before(async () => { d = await startDaemon(); });
after(async () => { await stopClean(d); });

test('the Kineto fixture: movements, matrix, timeline, clock, topology, metrics', async () => {
  const [id] = await upload([file(fixtures, 'kineto_small.json', 'run/kineto_small.json'),
    file(fixtures, 'kineto_small.csv', 'run/kineto_small.csv'), file(fixtures, 'topology.xml', 'run/topology.xml')], 'fixture');
  const t = await getJson(d.url, `/api/v1/traces/${id}`);
  assertOkJson(t);
  assert.equal(t.json.kind, 'datamove');

  const mv = await getJson(d.url, `/api/v1/traces/${id}/movements`);
  assertOkJson(mv);
  assert.equal(mv.json.total, 2);
  assert.deepEqual(mv.json.movements.map((m) => [m.src, m.dst, m.kind, m.bytes]),
    [['host', 'gpu0', 'HtoD', 4e6], ['gpu0', 'host', 'DtoH', 1e6]]);
  assert.ok(Math.abs(mv.json.movements[0].bandwidth - 40) < 1e-9); // 4e6 B / 100 µs
  // times from the run's start: the first event is at ts 1000 µs in the file
  assert.equal(t.json.summary.start, 1000);
  assert.equal(mv.json.time_origin, 1000);
  assert.equal(mv.json.start, 0);
  assert.deepEqual(mv.json.movements.map((m) => m.start), [10, 330]);

  const win = await getJson(d.url, `/api/v1/traces/${id}/movements?start=300&end=1000`);
  assertOkJson(win);
  assert.equal(win.json.total, 1);

  const mx = await getJson(d.url, `/api/v1/traces/${id}/movement-matrix?window=60,355`);
  assertOkJson(mx);
  const k = mx.json.components;
  const h = k.indexOf('host'), g = k.indexOf('gpu0');
  assert.ok(h >= 0 && g >= 0, JSON.stringify(k));
  assert.ok(Math.abs(mx.json.bytes[h][g] - 2e6) < 1e-6, 'half of the HtoD');
  assert.ok(Math.abs(mx.json.bytes[g][h] - 0.5e6) < 1e-6, 'half of the DtoH');

  const tl = await getJson(d.url, `/api/v1/traces/${id}/movement-timeline`);
  assertOkJson(tl);
  assert.equal(tl.json.mode, 'events');
  const cats = Object.fromEntries(tl.json.events.map((e) => [e.name, e.category]));
  assert.equal(cats.cudaMemcpyAsync, 'runtime_api');
  assert.equal(cats['my_kernel(int)'], 'gpu_compute');
  assert.equal(cats.host_work, 'cpu_compute');
  assert.equal(cats['Memcpy HtoD (Pinned -> Device)'], 'data_movement');
  assert.equal(tl.json.run_start, 0);
  assert.equal(tl.json.time_origin, 1000);
  assert.equal(tl.json.events.find((e) => e.name === 'my_kernel(int)').start, 120);

  const ck = await getJson(d.url, `/api/v1/traces/${id}/clock`);
  assertOkJson(ck);
  assert.equal(ck.json.values.length, 12);
  const total = ck.json.values.flat().reduce((a, b) => a + b, 0);
  assert.ok(Math.abs(total - (20 + 100 + 200 + 50 + 300)) < 1e-6, `clock total ${total}`);

  const tp = await getJson(d.url, `/api/v1/traces/${id}/topology?start=0&end=400`);
  assertOkJson(tp);
  const gpu = tp.json.components.find((c) => c.key === 'gpu0');
  assert.equal(gpu.kind, 'GPU');
  assert.ok(gpu.bytes > 0 && gpu.utilization > 0);
  assert.ok(tp.json.links.some((l) => l.src === 'host' && l.dst === 'gpu0'));
  assert.ok(tp.json.components.some((c) => c.kind === 'Core'));

  const ms = await getJson(d.url, `/api/v1/traces/${id}/metric-series`);
  assertOkJson(ms);
  const vars = ms.json.series.map((s) => s.variance);
  assert.deepEqual([...vars].sort((a, b) => b - a), vars, 'sorted by variance');
  assert.ok(ms.json.series.some((s) => s.metric === 'utilization_gpu' && s.component === 'gpu0' && s.n === 4));
  for (const doc of [mx, tp, ms, ck]) assert.equal(doc.json.time_origin, 1000);
  assert.equal(ck.json.start, 0);
  assert.equal(tp.json.start, 0);
  assert.equal(tp.json.end, 400);

  // an absolute epoch time (an old URL) is past the end of the run: a 400 that says so
  const old = await getJson(d.url, `/api/v1/traces/${id}/movement-matrix?start=1635967870285245&end=1635967870286245`);
  assertError(old, 400, 'invalid_parameter');
  assert.match(old.json.error.message, /start is after the end of the run .*the run lasts 380 µs.*from the run's start/);
  assertError(await getJson(d.url, `/api/v1/traces/${id}/movement-timeline?start=-500&end=-10`), 400, 'invalid_parameter');

  assertError(await getJson(d.url, `/api/v1/traces/${id}/movement-matrix?window=5,1`), 400, 'invalid_parameter');
  assertError(await getJson(d.url, `/api/v1/traces/${id}/movements?start=abc`), 400, 'invalid_parameter');
  assertError(await getJson(d.url, `/api/v1/traces/${id}/clock?sectors=0`), 400, 'invalid_parameter');
  assertError(await getJson(d.url, '/api/v1/traces/999999/clock'), 404, 'not_found');
});

test('a malformed Chrome trace is refused with a clear error', async () => {
  const res = await uploadMultipart(d.url, [file(fixtures, 'bad_syntax.json')]);
  const job = acceptedJob(res, 'bad');
  const done = await waitJob(d.url, job.id);
  assert.equal(done.status, 'failed');
  assert.match(done.error.message, /bad_syntax\.json: offset \d+/);
});

test('DMVis GEMM fill runs: bytes per direction and bandwidth', { skip: !haveGemm && 'shared data absent' }, async () => {
  const names = readdirSync(gemmDir).filter((n) => n.endsWith('-row-format.json')).sort();
  const want = { 1: [8, 4], 2: [32, 16], 3: [128, 64], 4: [512, 256], 5: [2048, 1024] };
  for (const name of names) {
    const fill = Number(/fill-(\d)/.exec(name)[1]);
    const [id] = await upload([file(gemmDir, name)], name);
    const mv = await getJson(d.url, `/api/v1/traces/${id}/movements`);
    assertOkJson(mv);
    const sum = (kind) => mv.json.movements.filter((m) => m.kind === kind).reduce((a, m) => a + m.bytes, 0);
    assert.equal(sum('HtoD'), want[fill][0] * MiB, `${name} HtoD`);
    assert.equal(sum('DtoH'), want[fill][1] * MiB, `${name} DtoH`);
    for (const m of mv.json.movements) {
      // the trace's bandwidth comes from a ns duration; ours from the rounded µs dur
      const lo = m.bytes / (m.dur + 1) / 1000, hi = m.bytes / Math.max(m.dur - 1, 0.5) / 1000;
      assert.ok(m.trace_bandwidth >= lo && m.trace_bandwidth <= hi, `${name}: ${JSON.stringify(m)}`);
      assert.ok(Math.abs(m.bandwidth - m.bytes / m.dur / 1000) < 1e-9);
    }
    const t = await getJson(d.url, `/api/v1/traces/${id}`);
    assert.equal(t.json.summary.bytes_htod, want[fill][0] * MiB);
  }
});

test('this machine: lstopo --of xml loads, and GET /api/v1/topology answers', async (t) => {
  const own = await getJson(d.url, '/api/v1/topology');
  assertOkJson(own);
  assert.equal(own.json.components[0].kind, 'Machine');
  assert.ok(own.json.components.some((c) => c.kind === 'PU'));
  let xml;
  try { xml = execFileSync('lstopo', ['--of', 'xml', '-'], { encoding: 'utf8' }); } catch { t.skip('no lstopo'); return; }
  const dir = mkdtempSync(join(tmpdir(), 'ariadne-lstopo-'));
  writeFileSync(join(dir, 'machine.xml'), xml);
  const [id] = await upload([file(dir, 'machine.xml')], 'lstopo');
  rmSync(dir, { recursive: true });
  const tp = await getJson(d.url, `/api/v1/traces/${id}/topology`);
  assertOkJson(tp);
  const kinds = new Set(tp.json.components.map((c) => c.kind));
  for (const k of ['Machine', 'Package', 'Core', 'PU']) assert.ok(kinds.has(k), `${k} in ${[...kinds]}`);
  assert.equal(tp.json.components.filter((c) => c.kind === 'PU').length,
    own.json.components.filter((c) => c.kind === 'PU').length);
});

// ---- task traces: StarPU links as movements ----------------------------------------

// The tables are read with sqlite3, or with psql on PostgreSQL.
const pg = backendName() === 'postgresql';
function haveSqlite() {
  if (pg) return true;
  try { execFileSync('sqlite3', ['-version'], { encoding: 'utf8' }); return true; } catch { return false; }
}

function importDir(dir) {
  const r = runCli(['import', '--db', d.db, dir]);
  assert.equal(r.status, 0, `import ${dir}: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()).id;
}

// On PostgreSQL: GLOB as a regular expression, and SQLite's CAST(x AS REAL)
// (the number x begins with, else 0) spelt out.
const real = (x) => (pg ? `CASE WHEN ${x} IS NULL THEN NULL ELSE coalesce(CAST(substring(${x} ` +
  `FROM '^\\s*([-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?)') AS float8), 0) END` : `CAST(${x} AS REAL)`);
// X GLOB '*P*' (or '*P' when P ends with '$') as SQLite or PostgreSQL writes it.
const glob = (x, p) => (pg ? `${x} ~ '${p}'` : `${x} GLOB '*${p.endsWith('$') ? p.slice(0, -1) : p + '*'}'`);

// Count and summed size of the links between two memory nodes (managers)
// and between two MPI communication threads, straight from the tables.
function linkTotals(id) {
  const mem = (c) => `(${glob(`${c}.name`, 'MEMNODE[0-9]')} OR ${glob(`${c}.name`, 'MEMMANAGER[0-9]')})`;
  const size = `coalesce(${real("json_extract(l.fields, '$.Size')")}, ${real('n.name')})`;
  const from = `FROM links l JOIN containers a ON a.trace_id = l.trace_id AND a.id = l.start_container_id
    JOIN containers b ON b.trace_id = l.trace_id AND b.id = l.end_container_id
    JOIN names n ON n.trace_id = l.trace_id AND n.id = l.value_id WHERE l.trace_id = ${id}`;
  const rows = [`${mem('a')} AND ${mem('b')}`, `${glob('a.name', 'mpict$')} AND ${glob('b.name', 'mpict$')}`]
    .map((cond) => sqlite(d.db, `SELECT count(*), coalesce(sum(${size}), 0) ${from} AND ${cond};`).split('|').map(Number));
  return { memCount: rows[0][0], memBytes: rows[0][1], mpiCount: rows[1][0], mpiBytes: rows[1][1] };
}

const close = (a, b, what) => assert.ok(Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);

async function checkTaskTrace(id, name) {
  const mv = await getJson(d.url, `/api/v1/traces/${id}/movements?limit=1000000`);
  assertOkJson(mv);
  assert.equal(mv.json.time_unit, 'ms', name);
  assert.equal(mv.json.truncated, false);
  const moves = mv.json.movements;
  const isMem = (k) => /^node\d+\.MEMNODE\d+$/.test(k), isNode = (k) => /^node\d+$/.test(k);
  const mem = moves.filter((m) => isMem(m.src) && isMem(m.dst));
  const mpi = moves.filter((m) => isNode(m.src) && isNode(m.dst));
  assert.equal(mem.length + mpi.length, moves.length, `${name}: every movement is memory-node or MPI`);
  const want = linkTotals(id);
  assert.equal(mem.length, want.memCount, `${name}: memory-node links`);
  assert.equal(mpi.length, want.mpiCount, `${name}: MPI links (all carry a size)`);
  const sum = (list) => list.reduce((a, m) => a + m.bytes, 0);
  close(sum(mem), want.memBytes, `${name}: memory-node bytes`);
  close(sum(mpi), want.mpiBytes, `${name}: MPI bytes`);
  close(mv.json.bytes, want.memBytes + want.mpiBytes, `${name}: total bytes`);
  for (const m of moves) {
    if (m.bytes > 0 && m.dur > 0) close(m.bandwidth, m.bytes / (m.dur * 1e-3) / 1e9, `${name}: bandwidth`);
    else assert.equal(m.bandwidth, null);
  }

  // the whole-run matrix is the movements summed per (src, dst)
  const mx = await getJson(d.url, `/api/v1/traces/${id}/movement-matrix`);
  assertOkJson(mx);
  const k = mx.json.components;
  const cells = new Map();
  for (const m of moves) cells.set(`${m.src}>${m.dst}`, (cells.get(`${m.src}>${m.dst}`) || 0) + m.bytes);
  for (const [pair, bytes] of cells) {
    const [a, b] = pair.split('>');
    assert.ok(k.includes(a) && k.includes(b), `${name}: ${pair} in ${k}`);
    close(mx.json.bytes[k.indexOf(a)][k.indexOf(b)], bytes, `${name}: cell ${pair}`);
  }
  close(mx.json.total_bytes, mv.json.bytes, `${name}: matrix total`);

  // a window: the matrix holds the movements' shares inside it
  if (moves.length) {
    const mid = (mv.json.start + mv.json.end) / 2, w = `start=${mv.json.start}&end=${mid}`;
    const half = await getJson(d.url, `/api/v1/traces/${id}/movements?${w}&limit=0`);
    const hmx = await getJson(d.url, `/api/v1/traces/${id}/movement-matrix?${w}`);
    assertOkJson(half);
    assertOkJson(hmx);
    close(hmx.json.total_bytes, half.json.bytes_in_window, `${name}: window matrix`);
    assert.ok(half.json.bytes_in_window <= mv.json.bytes + 1e-6);
  }
  return { mem, mpi };
}

test('a generated StarPU bundle: links between memory nodes and MPI links are movements',
  { skip: !haveSqlite() && 'no sqlite3 shell' }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ariadne-dm-gen-'));
    const g = runCli(['generate', '--out', join(dir, 'bundle'), '--tiles', '6', '--nodes', '2']);
    assert.equal(g.status, 0, g.stderr);
    const id = importDir(join(dir, 'bundle'));
    rmSync(dir, { recursive: true });
    const t = await getJson(d.url, `/api/v1/traces/${id}`);
    assert.equal(t.json.kind, 'tasks');
    const { mem, mpi } = await checkTaskTrace(id, 'generated');
    assert.ok(mem.length > 0, 'memory-node transfers');
    assert.ok(mpi.length > 0, 'inter-node transfers on 2 nodes');
    assert.ok(mem.every((m) => m.bytes > 0 && m.src.split('.')[0] === m.dst.split('.')[0]), 'intra-node');
    assert.ok(mem.some((m) => m.handle && m.handle_name === 'A' && m.kind.startsWith('Intra-node data')));
    // the other datamove endpoints refuse a task trace
    for (const ep of ['clock', 'topology', 'movement-timeline', 'metric-series'])
      assertError(await getJson(d.url, `/api/v1/traces/${id}/${ep}`), 409, 'not_datamove');
    assertError(await getJson(d.url, `/api/v1/traces/${id}/movements?start=5&end=1`), 400, 'invalid_parameter');
  });

for (const run of ['chol_implicit_dmdas_N11520_nb24', 'mpi_chol_dmdas_4ranks_N11520_nb24_slowrank1_nice2']) {
  const dir = join(starpuDir, run);
  test(`StarPU ${run}: movements from its links`,
    { skip: (!existsSync(dir) && 'shared data absent') || (!haveSqlite() && 'no sqlite3 shell') }, async () => {
      const id = importDir(dir);
      const { mpi } = await checkTaskTrace(id, run);
      if (run.startsWith('mpi_')) assert.ok(mpi.length > 0, 'MPI transfers between ranks');
    });
}
