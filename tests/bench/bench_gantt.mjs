// bench_gantt.mjs: times the Gantt chart and the ABE of ariadned next to the
// time the sqlite3 shell takes to read the same rows (see README.md).
//
//   ARIADNED=build/ariadned ARIADNED_BEFORE=/tmp/base/ariadned node tests/bench/bench_gantt.mjs
//
// 1. `ariadned generate --tiles 185 --nodes 2` (about 1.1 million tasks and
//    10 million states), imported with `ariadned import` (and, with
//    ARIADNED_BEFORE, a build before issue 15, on the same bundle, in turn:
//    the import time ratio); then GET /gantt at 1920 px at several zoom
//    levels, each on a freshly started daemon: the first request (nothing
//    in memory), then the median and maximum of 5 more, each next to sqlite3
//    reading the window's tasks and Idle states of every row with the same
//    index range the daemon uses. With ARIADNED_BEFORE, the first request
//    of that build too.
// 2. A bundle written here with 50 task types on 3 resource types (CPU,
//    CUDA, OpenCL); GET /bounds with a window covering everything (windowed
//    results are not cached, so every request solves the LP again), next to
//    sqlite3 reading the tasks the bounds read.
// Targets (issue 15; the script exits 1 when one is missed): the first
// Gantt request under 500 ms at every zoom, every later one under 200 ms,
// the import at most 1.15 times as long as before (wall time, the fastest
// of BENCH_IMPORT_RUNS imports of each build).
// Environment: BENCH_TILES (default 185), BENCH_DIR (keep the data there and
// reuse it on the next run: the imports are then not timed again),
// BENCH_ABE_TASKS (default 20000), ARIADNED_BEFORE, BENCH_IMPORT_RUNS
// (default 1).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ariadned, freePort, sourceDir, startDaemon, staticDir } from '../lib/daemon.mjs';

const tiles = Number(process.env.BENCH_TILES || 185);
const abeTasks = Number(process.env.BENCH_ABE_TASKS || 20000);
const keep = process.env.BENCH_DIR;
const dir = keep || mkdtempSync(join(tmpdir(), 'ariadne-bench-'));
mkdirSync(dir, { recursive: true });
const db = join(dir, 'test.db');
const before = process.env.ARIADNED_BEFORE || null;
const beforeDb = join(dir, 'before.db');
const importRuns = Number(process.env.BENCH_IMPORT_RUNS || 1);
const FIRST_MS = 500, EVERY_MS = 200, IMPORT_RATIO = 1.15;
const missed = [];

const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sql = (query, opts = {}) => execFileSync('sqlite3', ['-batch', opts.db || db, query], { encoding: 'utf8', maxBuffer: 1 << 30 });

function timeShell(query) {
  const t0 = process.hrtime.bigint();
  execFileSync('sqlite3', ['-batch', db, query], { stdio: ['ignore', 'ignore', 'inherit'], maxBuffer: 1 << 30 });
  return ms(t0);
}

function importDir(path, name, binary = ariadned, into = db) {
  const out = execFileSync(binary, ['import', '--db', into, '--name', name, path], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n')[0]).id;
}

function traceId(name, from = db) {
  if (!existsSync(from)) return null;
  const id = sql(`SELECT id FROM traces WHERE name = '${name}';`, { db: from }).trim();
  return id ? Number(id) : null;
}

// Imports `path` into a fresh `into` with `binary`: {id, wall s, cpu s}
// (cpu: user + system, from /usr/bin/time when there is one).
function timedImport(binary, path, name, into) {
  for (const suffix of ['', '-wal', '-shm']) rmSync(into + suffix, { force: true });
  const timeFile = join(dir, 'import.time');
  const hasTime = existsSync('/usr/bin/time');
  const t0 = process.hrtime.bigint();
  const argv = ['import', '--db', into, '--name', name, path];
  const out = hasTime
    ? execFileSync('/usr/bin/time', ['-f', '%U %S', '-o', timeFile, binary, ...argv], { encoding: 'utf8' })
    : execFileSync(binary, argv, { encoding: 'utf8' });
  const wall = ms(t0) / 1000;
  const cpu = hasTime ? readFileSync(timeFile, 'utf8').trim().split(/\s+/).slice(-2).map(Number).reduce((a, b) => a + b) : NaN;
  return { id: JSON.parse(out.trim().split('\n')[0]).id, wall, cpu };
}

// ---- data ----

// The big trace in test.db (and before.db with ARIADNED_BEFORE): imported
// in turn by each build, BENCH_IMPORT_RUNS times, fastest run kept.
function bigTrace() {
  const name = `chol_t${tiles}`;
  let id = traceId(name);
  const beforeId = before ? traceId(name, beforeDb) : null;
  if (id && (!before || beforeId)) {
    console.log(`${name}: reusing the imported trace (import not timed)`);
    return { id, beforeId };
  }
  const out = join(dir, name);
  const t0 = process.hrtime.bigint();
  execFileSync(ariadned, ['generate', '--out', out, '--tiles', String(tiles), '--nodes', '2'], { stdio: 'ignore' });
  console.log(`generated ${name} in ${(ms(t0) / 1000).toFixed(1)} s`);
  const best = { after: null, before: null };
  const keepBest = (side, r) => { if (!best[side] || r.wall < best[side].wall) best[side] = r; };
  for (let run = 0; run < importRuns; run++) {
    if (before) {
      const b = timedImport(before, out, name, beforeDb);
      console.log(`  import before: ${b.wall.toFixed(1)} s (cpu ${b.cpu.toFixed(1)} s)`);
      keepBest('before', b);
    }
    const a = timedImport(ariadned, out, name, db);
    console.log(`  import after:  ${a.wall.toFixed(1)} s (cpu ${a.cpu.toFixed(1)} s)`);
    keepBest('after', a);
  }
  rmSync(out, { recursive: true, force: true });
  if (before) {
    const ratio = best.after.wall / best.before.wall;
    console.log(`import of ${name}: before ${best.before.wall.toFixed(1)} s, after ${best.after.wall.toFixed(1)} s,` +
      ` ratio ${ratio.toFixed(3)} (cpu ${(best.after.cpu / best.before.cpu).toFixed(3)}); target <= ${IMPORT_RATIO}`);
    if (!(ratio <= IMPORT_RATIO)) missed.push(`import ratio ${ratio.toFixed(3)} > ${IMPORT_RATIO}`);
  } else {
    console.log(`imported ${name} in ${best.after.wall.toFixed(1)} s (no ARIADNED_BEFORE: import ratio not measured)`);
  }
  return { id: best.after.id, beforeId: best.before ? best.before.id : null };
}

// A StarPU-like bundle: one node, 8 CPU + 2 CUDA + 2 OpenCL workers, 50
// task types whose durations depend on the type and the resource type.
function abeBundle() {
  const name = 'abe50';
  let id = traceId(name);
  if (id) return id;
  const out = join(dir, name);
  mkdirSync(out, { recursive: true });
  const fixture = readFileSync(join(sourceDir, 'tests/fixtures/starpu/bundle/paje.trace'), 'utf8').split('\n');
  const header = fixture.filter((l) => l.startsWith('%') || l.startsWith('#') ||
    /^[1-5]\t/.test(l)).join('\n');
  const lines = [header, '7\t0.0\tMPIroot\tMPIP\t0\troot', '7\t0.0\t0_p\tP\tMPIroot\t0_program',
    '7\t0.0\t0_sched\tSc\t0_p\t0_scheduler'];
  const workers = [];
  const kinds = [['CPU', 8], ['CUDA', 2], ['OpenCL', 2]];
  for (const [kind, count] of kinds) {
    for (let i = 0; i < count; i++) {
      const w = `0_w${workers.length}`;
      const res = kind === 'CPU' ? `CPU${i}` : `${kind}${i}_0`;
      lines.push(`7\t0.0\t0_t${workers.length}\tT\t0_p\t0_T${workers.length}`);
      lines.push(`7\t0.0\t${w}\tW\t0_t${workers.length}\t0_${res}`);
      workers.push({ alias: w, kind, time: 0 });
    }
  }
  const recs = [];
  let seed = 12345;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  for (let j = 0; j < abeTasks; j++) {
    const type = j % 50;
    const w = workers[Math.floor(rand() * workers.length)];
    const speed = w.kind === 'CPU' ? 1 : w.kind === 'CUDA' ? 0.1 + (type % 7) / 10 : 0.3 + (type % 5) / 10;
    const dur = (1 + type / 10) * speed * (0.9 + 0.2 * rand());
    const start = w.time;
    w.time += dur;
    lines.push(`20\t${start.toFixed(9)}\t${w.alias}\tWS\t"k${String(type).padStart(2, '0')}"\t100\t"M"\t00000000\t0\t0_${j}\t0_${j}\t0.1\t0\t0\t0\t-1`);
    lines.push(`10\t${w.time.toFixed(9)}\t${w.alias}\tWS\tIdle`);
    recs.push(`Name: k${String(type).padStart(2, '0')}\nJobId: 0_${j}\nSubmitOrder: ${j}\nSubmitTime: 0\n` +
      `StartTime: ${start.toFixed(9)}\nEndTime: ${w.time.toFixed(9)}\nWorkerId: ${workers.indexOf(w)}\nMPIRank: 0\n`);
  }
  writeFileSync(join(out, 'paje.trace'), lines.join('\n') + '\n');
  writeFileSync(join(out, 'tasks.rec'), recs.join('\n'));
  id = importDir(out, name);
  rmSync(out, { recursive: true, force: true });
  return id;
}

// ---- measurements ----

async function timeGet(url) {
  const t0 = process.hrtime.bigint();
  const r = await fetch(url);
  const body = await r.text();
  const t = ms(t0);
  if (r.status !== 200) throw new Error(`${url}: ${r.status} ${body.slice(0, 200)}`);
  return { t, bytes: body.length, json: JSON.parse(body) };
}

// The rows the Gantt reads for the window, with the sqlite3 shell.
function shellGantt(id, t0, t1) {
  const idle = sql(`SELECT id FROM names WHERE trace_id = ${id} AND name = 'Idle';`).trim() || '-1';
  const rows = sql(`SELECT worker_id, max(end - start) FROM tasks WHERE trace_id = ${id} GROUP BY worker_id;`)
    .trim().split('\n').map((l) => l.split('|').map(Number));
  const idleMax = new Map(sql(`SELECT container_id, max(end - start) FROM states WHERE trace_id = ${id} AND value_id = ${idle} GROUP BY container_id;`)
    .trim().split('\n').filter(Boolean).map((l) => l.split('|').map(Number)));
  const queries = rows.map(([w, maxd]) =>
    `SELECT start, end, type FROM tasks WHERE trace_id = ${id} AND worker_id = ${w} AND start >= ${t0 - maxd} AND start < ${t1};` +
    `SELECT start, end FROM states WHERE trace_id = ${id} AND container_id = ${w} AND start >= ${t0 - (idleMax.get(w) || 0)} AND start < ${t1} AND value_id = ${idle};`);
  return timeShell(queries.join('\n'));
}

// A daemon of `binary` on `dbPath`, freshly started (nothing in memory).
async function serve(binary, dbPath) {
  const port = await freePort();
  const child = spawn(binary, ['serve', '--db', dbPath, '--listen', `127.0.0.1:${port}`, '--static', staticDir,
    '--log-level', 'warn'], { stdio: ['ignore', 'inherit', 'inherit'] });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const url = `http://127.0.0.1:${port}`;
  for (let tries = 0; ; tries++) {
    try { if ((await fetch(url + '/api/v1/health')).ok) break; } catch { /* not up yet */ }
    if (tries > 300) { child.kill('SIGKILL'); throw new Error(`${binary} did not start`); }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url, stop: async () => { child.kill('SIGTERM'); await exited; } };
}

const ZOOMS = [1, 0.1, 0.01, 1e-4, 1e-6];

function windowQuery(extent, zoom) {
  const span = extent.end - extent.start;
  const t0 = extent.start + span * (0.5 - zoom / 2), t1 = t0 + span * zoom;
  return { t0, t1, q: zoom === 1 ? '' : `&start=${t0}&end=${t1}` };
}

// The first request of a fresh daemon of `binary` on `dbPath` at `zoom`,
// then `warm` more: {first, median, max, bytes}.
async function firstAndWarm(binary, dbPath, id, extent, zoom, warm) {
  const d = await serve(binary, dbPath);
  try {
    const gantt = `${d.url}/api/v1/traces/${id}/gantt?width=1920${windowQuery(extent, zoom).q}`;
    const first = await timeGet(gantt);
    const times = [];
    for (let i = 0; i < warm; i++) times.push((await timeGet(gantt)).t);
    return { first: first.t, median: warm ? median(times) : NaN, max: warm ? Math.max(...times) : NaN, bytes: first.bytes };
  } finally {
    await d.stop();
  }
}

async function benchGantt(ids) {
  const { id, beforeId } = ids;
  const counts = sql(`SELECT (SELECT count(*) FROM tasks WHERE trace_id = ${id}), (SELECT count(*) FROM states WHERE trace_id = ${id});`).trim();
  const [ntasks, nstates] = counts.split('|').map(Number);
  console.log(`\nGantt at 1920 px: ${ntasks} tasks, ${nstates} states (trace ${id})`);
  const extent = await (async () => {
    const d = await serve(ariadned, db);
    try { return (await timeGet(`${d.url}/api/v1/traces/${id}/gantt?width=1`)).json.extent; } finally { await d.stop(); }
  })();
  if (beforeId) {
    const cached = sql(`SELECT count(*) FROM analysis_cache WHERE trace_id = ${beforeId};`, { db: beforeDb }).trim() !== '0';
    const b = await firstAndWarm(before, beforeDb, beforeId, extent, 1, 0);
    console.log(`  before: first request of the whole trace ${b.first.toFixed(0)} ms` +
      (cached ? ' (its bounds were cached by an earlier run)' : ' (loads the rows, computes and caches the bounds)'));
  }
  console.log('  zoom (share of the trace)  first ms  warm median ms  warm max ms  bytes     sqlite3 shell ms  ratio');
  for (const zoom of ZOOMS) {
    const r = await firstAndWarm(ariadned, db, id, extent, zoom, 5);
    const { t0, t1 } = windowQuery(extent, zoom);
    const shell = median([shellGantt(id, t0, t1), shellGantt(id, t0, t1), shellGantt(id, t0, t1)]);
    console.log(`  ${String(zoom).padEnd(26)} ${r.first.toFixed(1).padStart(8)}  ${r.median.toFixed(1).padStart(14)}` +
      `  ${r.max.toFixed(1).padStart(11)}  ${String(r.bytes).padEnd(8)}  ${shell.toFixed(1).padStart(16)}  ${(r.median / shell).toFixed(2)}`);
    if (!(r.first < FIRST_MS)) missed.push(`first request at zoom ${zoom}: ${r.first.toFixed(0)} ms >= ${FIRST_MS} ms`);
    if (!(r.max < EVERY_MS)) missed.push(`a later request at zoom ${zoom}: ${r.max.toFixed(0)} ms >= ${EVERY_MS} ms`);
  }
}

async function benchAbe(url, id) {
  const types = sql(`SELECT count(DISTINCT type), count(DISTINCT resource_type), count(*) FROM tasks WHERE trace_id = ${id};`).trim();
  console.log(`\nABE: ${types.split('|')[0]} task types on ${types.split('|')[1]} resource types, ${types.split('|')[2]} tasks (trace ${id})`);
  const times = [];
  let body;
  for (let i = 0; i < 7; i++) {
    const r = await timeGet(`${url}/api/v1/traces/${id}/bounds?start=-1e12`);
    times.push(r.t);
    body = r.json;
  }
  const shell = median([0, 1, 2].map(() => timeShell(
    `SELECT job_id, type, worker_id, node, start, end, gflop, iteration FROM tasks WHERE trace_id = ${id};` +
    `SELECT job_id, depends_on FROM deps WHERE trace_id = ${id};`)));
  const a = median(times);
  console.log(`  GET /bounds (uncached: load, ABE LP, CPE, per node): median ${a.toFixed(1)} ms; sqlite3 shell reading the same rows ${shell.toFixed(1)} ms; ratio ${(a / shell).toFixed(2)}`);
  console.log(`  abe ${body.abe.toFixed(3)}  cpe ${body.cpe.toFixed(3)}  makespan ${body.makespan.toFixed(3)}`);
}

const bigIds = bigTrace();
const abeId = abeBundle();
await benchGantt(bigIds);
const d = await startDaemon({ dir });
try {
  await benchAbe(d.url, abeId);
} finally {
  await d.stop({ keep: true });
  if (!keep) rmSync(dir, { recursive: true, force: true });
}
if (missed.length) {
  console.log(`\nTARGETS MISSED:\n  ${missed.join('\n  ')}`);
  process.exitCode = 1;
} else {
  console.log('\nall Gantt targets met');
}
