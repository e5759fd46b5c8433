// bench_gantt.mjs: times the Gantt chart and the ABE of ariadned next to the
// time the sqlite3 shell takes to read the same rows (see README.md).
//
//   ARIADNED=build/ariadned node tests/bench/bench_gantt.mjs
//
// 1. `ariadned generate --tiles 185 --nodes 2` (about 1.1 million tasks and
//    10 million states), imported with `ariadned import`; then GET /gantt at
//    1920 px at several zoom levels (cold first request, then the median of
//    5), each next to sqlite3 reading the window's tasks and Idle states of
//    every row with the same index range the daemon uses.
// 2. A bundle written here with 50 task types on 3 resource types (CPU,
//    CUDA, OpenCL); GET /bounds with a window covering everything (windowed
//    results are not cached, so every request solves the LP again), next to
//    sqlite3 reading the tasks the bounds read.
// Environment: BENCH_TILES (default 185), BENCH_DIR (keep the data there and
// reuse it on the next run), BENCH_ABE_TASKS (default 20000).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ariadned, sourceDir, startDaemon } from '../lib/daemon.mjs';

const tiles = Number(process.env.BENCH_TILES || 185);
const abeTasks = Number(process.env.BENCH_ABE_TASKS || 20000);
const keep = process.env.BENCH_DIR;
const dir = keep || mkdtempSync(join(tmpdir(), 'ariadne-bench-'));
mkdirSync(dir, { recursive: true });
const db = join(dir, 'test.db');

const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sql = (query, opts = {}) => execFileSync('sqlite3', ['-batch', db, query], { encoding: 'utf8', maxBuffer: 1 << 30, ...opts });

function timeShell(query) {
  const t0 = process.hrtime.bigint();
  execFileSync('sqlite3', ['-batch', db, query], { stdio: ['ignore', 'ignore', 'inherit'], maxBuffer: 1 << 30 });
  return ms(t0);
}

function importDir(path, name) {
  const out = execFileSync(ariadned, ['import', '--db', db, '--name', name, path], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n')[0]).id;
}

function traceId(name) {
  if (!existsSync(db)) return null;
  const id = sql(`SELECT id FROM traces WHERE name = '${name}';`).trim();
  return id ? Number(id) : null;
}

// ---- data ----

function bigTrace() {
  const name = `chol_t${tiles}`;
  let id = traceId(name);
  if (id) return id;
  const out = join(dir, name);
  let t0 = process.hrtime.bigint();
  execFileSync(ariadned, ['generate', '--out', out, '--tiles', String(tiles), '--nodes', '2'], { stdio: 'ignore' });
  console.log(`generated ${name} in ${(ms(t0) / 1000).toFixed(1)} s`);
  t0 = process.hrtime.bigint();
  id = importDir(out, name);
  console.log(`imported ${name} in ${(ms(t0) / 1000).toFixed(1)} s`);
  rmSync(out, { recursive: true, force: true });
  return id;
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

async function benchGantt(url, id) {
  const counts = sql(`SELECT (SELECT count(*) FROM tasks WHERE trace_id = ${id}), (SELECT count(*) FROM states WHERE trace_id = ${id});`).trim();
  const [ntasks, nstates] = counts.split('|').map(Number);
  console.log(`\nGantt at 1920 px: ${ntasks} tasks, ${nstates} states (trace ${id})`);
  const cold = await timeGet(`${url}/api/v1/traces/${id}/gantt?width=1920`);
  console.log(`  first request (loads the rows, computes and caches the bounds): ${cold.t.toFixed(0)} ms`);
  const { start, end } = cold.json.extent;
  const span = end - start;
  console.log('  zoom (share of the trace)  ariadne median ms  bytes     sqlite3 shell ms  ratio');
  for (const zoom of [1, 0.1, 0.01, 1e-4, 1e-6]) {
    const t0 = start + span * (0.5 - zoom / 2), t1 = t0 + span * zoom;
    const q = zoom === 1 ? '' : `&start=${t0}&end=${t1}`;
    const times = [];
    let bytes = 0;
    for (let i = 0; i < 6; i++) {
      const r = await timeGet(`${url}/api/v1/traces/${id}/gantt?width=1920${q}`);
      if (i > 0) times.push(r.t); /* the first one at a new zoom reads the outlier thresholds once */
      bytes = r.bytes;
    }
    const shell = median([shellGantt(id, t0, t1), shellGantt(id, t0, t1), shellGantt(id, t0, t1)]);
    const a = median(times);
    console.log(`  ${String(zoom).padEnd(26)} ${a.toFixed(1).padStart(17)}  ${String(bytes).padEnd(8)}  ${shell.toFixed(1).padStart(16)}  ${(a / shell).toFixed(2)}`);
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

const bigId = bigTrace();
const abeId = abeBundle();
const d = await startDaemon({ dir });
try {
  await benchGantt(d.url, bigId);
  await benchAbe(d.url, abeId);
} finally {
  await d.stop({ keep: true });
  if (!keep) rmSync(dir, { recursive: true, force: true });
}
