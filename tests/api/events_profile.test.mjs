// events_profile.test.mjs: the function analyses of an event trace (issue 19;
// server/api_event_profile.c) on Pipit's ping-pong OTF2 trace (shared data;
// skipped when absent), imported with `ariadned import`:
//  - /time-profile?bins=62 against Pipit's test_time_profile (tests/trace.py):
//    62 bins of (max timestamp) / 62, each bin's functions + idle = 2 x bin
//    size, each function's bins adding up to its total exclusive time, and the
//    normalized values Pipit asserts for bins 0, 1..59, 60 and 61;
//  - /caller-callee: Pipit's 40 calls with a parent and 2 with children;
//  - /flat-profile, /load-imbalance, /idle-time against the per-rank inclusive
//    and exclusive times computed here from `otf2-print` (when installed) and
//    against main's Leave - Enter hard-coded from otf2-print's output;
//  - /cct, /tree and /supergraph over the derived CCT (flow conservation);
//  - CSV forms, bad parameters (400) and a tasks trace (409 not_event_trace).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, importCli, sourceDir, scratchDb } from '../lib/daemon.mjs';
import { getJson, assertOkJson, assertError, stopClean, smallTracePath } from '../fixtures/api/util.mjs';

const shared = process.env.ARIADNE_SHARED_DATA || join(sourceDir, '..', 'shared', 'data');
const pingPong = join(shared, 'pipit', 'pipit', 'tests', 'data', 'ping-pong-otf2');
const skip = !existsSync(join(pingPong, 'traces.otf2')) && 'no shared Pipit data';
const MAIN = 'int main(int, char**)';
// otf2-print -G: 2095197216 ticks per second, trace length 418210708 ticks;
// main's ENTER and LEAVE ticks per location (rank).
const TPS = 2095197216;
const LENGTH_NS = (418210708 * 1e9) / TPS;
const MAIN_INC = [
  ((7397467395127294 - 7397466977683839) * 1e9) / TPS,
  ((7397467395130552 - 7397466977040830) * 1e9) / TPS,
];

let d, dir, id, tasksId;

before(async () => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), 'ariadne-evprof-'));
  const db = scratchDb(dir);
  id = importCli(db, pingPong);
  tasksId = importCli(db, smallTracePath);
  d = await startDaemon({ dir, db });
});
after(async () => {
  if (d) await stopClean(d);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function get(path) {
  const r = await getJson(d.url, path);
  assertOkJson(r, 200, path);
  return r.json;
}

// numpy.isclose(a, b): |a - b| <= 1e-8 + 1e-5 |b|
const isclose = (a, b, what) => assert.ok(Math.abs(a - b) <= 1e-8 + 1e-5 * Math.abs(b), `${what}: ${a} vs ${b}`);
const close = (a, b, what, rel = 1e-9) =>
  assert.ok(Math.abs(a - b) <= rel * Math.max(1, Math.abs(a), Math.abs(b)), `${what}: ${a} vs ${b}`);

test('time profile: Pipit test_time_profile values', { skip }, async () => {
  const tp = await get(`/api/v1/traces/${id}/time-profile?bins=62`);
  assert.equal(tp.trace_id, id);
  assert.equal(tp.time_unit, 'ns');
  assert.equal(tp.bins, 62);
  assert.equal(tp.edges.length, 63);
  assert.equal(tp.locations, 2);
  assert.equal(tp.edges[0], 0);
  close(tp.edges[62], LENGTH_NS, 'last edge = max timestamp');
  const size = LENGTH_NS / 62;
  close(tp.bin_duration, size, 'bin size');
  for (let i = 0; i < 62; i++) close(tp.edges[i + 1] - tp.edges[i], size, `bin ${i} width`, 1e-6);
  const byName = Object.fromEntries(tp.series.map((s) => [s.name, s.values]));
  for (const n of [MAIN, 'MPI_Init', 'MPI_Send', 'MPI_Recv', 'MPI_Comm_size', 'MPI_Comm_rank', 'MPI_Finalize'])
    assert.ok(byName[n] && byName[n].length === 62, n);
  for (let i = 0; i < 62; i++) {
    const sum = tp.series.reduce((a, s) => a + s.values[i], 0) + tp.idle[i];
    isclose(sum, 2 * size, `bin ${i} sum`);
  }
  const flat = await get(`/api/v1/traces/${id}/flat-profile`);
  for (const f of flat.functions) {
    const total = byName[f.name].reduce((a, v) => a + v, 0);
    isclose(total, f.exclusive, `${f.name} bins = exclusive`);
  }

  const norm = await get(`/api/v1/traces/${id}/time-profile?bins=62&normalized=1`);
  assert.equal(norm.normalized, true);
  const nv = Object.fromEntries(norm.series.map((s) => [s.name, s.values]));
  for (let i = 0; i < 62; i++)
    for (const s of tp.series) close(nv[s.name][i], s.values[i] / (2 * size), `normalized ${s.name} ${i}`, 1e-12);
  const want = {
    0: { [MAIN]: 0.00299437, MPI_Init: 0.93999815, MPI_Comm_size: 0, MPI_Comm_rank: 0, MPI_Send: 0, MPI_Recv: 0, MPI_Finalize: 0 },
    60: { [MAIN]: 0.39464799, MPI_Init: 0.14843661, MPI_Send: 0.24594134, MPI_Recv: 0.21017099, MPI_Comm_size: 0.00046047, MPI_Comm_rank: 0.00034261, MPI_Finalize: 0 },
    61: { [MAIN]: 0.43560727, MPI_Init: 0, MPI_Send: 0.29640222, MPI_Recv: 0.24300865, MPI_Comm_size: 0, MPI_Comm_rank: 0, MPI_Finalize: 0.01614835 },
  };
  for (const [bin, row] of Object.entries(want))
    for (const [name, v] of Object.entries(row)) isclose(nv[name][bin], v, `bin ${bin} ${name}`);
  for (let i = 1; i <= 59; i++) {
    isclose(nv.MPI_Init[i], 1, `bin ${i} MPI_Init`);
    for (const n of [MAIN, 'MPI_Comm_size', 'MPI_Comm_rank', 'MPI_Send', 'MPI_Recv', 'MPI_Finalize'])
      isclose(nv[n][i], 0, `bin ${i} ${n}`);
  }
});

test('caller-callee: Pipit test_match_caller_callee', { skip }, async () => {
  const cc = await get(`/api/v1/traces/${id}/caller-callee`);
  assert.equal(cc.with_parent, 40);
  assert.equal(cc.with_children, 2);
  assert.equal(cc.pairs.reduce((a, p) => a + p.count, 0), 40);
  assert.ok(cc.pairs.every((p) => p.caller === MAIN));
  const send = cc.pairs.find((p) => p.callee === 'MPI_Send');
  assert.equal(send.count, 16);
});

// Per rank, per function: inclusive and exclusive from otf2-print's ENTER and LEAVE.
function fromOtf2Print() {
  const text = execFileSync('otf2-print', [join(pingPong, 'traces.otf2')], { encoding: 'utf8', maxBuffer: 1 << 26 });
  const out = {};
  const stacks = {};
  for (const line of text.split('\n')) {
    const m = /^(ENTER|LEAVE) +(\d+) +(\d+) +Region: "(.*)" </.exec(line);
    if (!m) continue;
    const [, kind, loc, ticks, name] = m;
    const t = (Number(BigInt(ticks) - 7397466976977800n) * 1e9) / TPS;
    const st = (stacks[loc] ||= []);
    if (kind === 'ENTER') { st.push({ name, t, kids: 0 }); continue; }
    const f = st.pop();
    assert.equal(f.name, name);
    const inc = t - f.t;
    if (st.length) st[st.length - 1].kids += inc;
    const cell = ((out[loc] ||= {})[name] ||= { inc: 0, exc: 0, count: 0 });
    cell.inc += inc;
    cell.exc += inc - f.kids;
    cell.count++;
  }
  return out;
}

test('flat profile, load imbalance and idle time', { skip }, async () => {
  const flat = await get(`/api/v1/traces/${id}/flat-profile`);
  assert.equal(flat.per, 'total');
  const f = Object.fromEntries(flat.functions.map((x) => [x.name, x]));
  assert.equal(f.MPI_Send.count, 16);
  assert.equal(f.MPI_Recv.count, 16);
  assert.equal(f[MAIN].count, 2);
  close(f[MAIN].inclusive, MAIN_INC[0] + MAIN_INC[1], 'main inclusive', 1e-7);
  close(f[MAIN].mean_inclusive, (MAIN_INC[0] + MAIN_INC[1]) / 2, 'Pipit flat_profile(time.inc) mean', 1e-7);
  for (let i = 1; i < flat.functions.length; i++)
    assert.ok(flat.functions[i - 1].exclusive >= flat.functions[i].exclusive, 'by exclusive desc');
  // all time of a rank is in main: the exclusive times add up to main's inclusive
  const per = await get(`/api/v1/traces/${id}/flat-profile?per=process`);
  assert.equal(per.total, 14); // 7 functions on each of the 2 ranks
  assert.equal(per.rows.length, 14);
  const page = await get(`/api/v1/traces/${id}/flat-profile?per=process&offset=2&limit=3`);
  assert.equal(page.total, 14);
  assert.deepEqual(page.rows, per.rows.slice(2, 5));
  for (const rank of [0, 1]) {
    const rows = per.rows.filter((r) => r.rank === rank);
    assert.ok(rows.every((r) => r.thread === 0));
    close(rows.reduce((a, r) => a + r.exclusive, 0), MAIN_INC[rank], `rank ${rank} exclusive sum`, 1e-7);
    close(rows.find((r) => r.name === MAIN).inclusive, MAIN_INC[rank], `rank ${rank} main`, 1e-7);
  }
  if (!spawnSync('otf2-print', ['--help']).error) {
    const ref = fromOtf2Print();
    for (const r of per.rows) {
      const c = ref[String(r.rank)][r.name];
      close(r.inclusive, c.inc, `otf2-print ${r.rank} ${r.name} inc`, 1e-7);
      close(r.exclusive, c.exc, `otf2-print ${r.rank} ${r.name} exc`, 1e-6);
      assert.equal(r.count, c.count);
    }
    const idle = await get(`/api/v1/traces/${id}/idle-time`);
    assert.deepEqual(idle.functions, ['Idle', 'MPI_Recv', 'MPI_Wait', 'MPI_Waitall', 'MPI_Waitany', 'MPI_Waitsome']);
    for (const r of idle.ranks) {
      close(r.idle, ref[String(r.rank)].MPI_Recv.inc, `idle rank ${r.rank}`, 1e-7);
      close(r.total, MAIN_INC[r.rank], `total rank ${r.rank}`, 1e-7);
      close(r.share, r.idle / r.total, 'share');
    }
    const sends = await get(`/api/v1/traces/${id}/idle-time?functions=MPI_Send,MPI_Recv`);
    for (const r of sends.ranks)
      close(r.idle, ref[String(r.rank)].MPI_Send.inc + ref[String(r.rank)].MPI_Recv.inc, `send+recv ${r.rank}`, 1e-7);
  }
  for (const metric of ['time.exc', 'time.inc']) {
    const li = await get(`/api/v1/traces/${id}/load-imbalance?metric=${metric}&top=2`);
    assert.equal(li.metric, metric);
    for (const x of li.functions) {
      const vals = [0, 1].map((rank) => per.rows.find((r) => r.rank === rank && r.name === x.name)[metric === 'time.inc' ? 'inclusive' : 'exclusive']);
      close(x.mean, (vals[0] + vals[1]) / 2, `${x.name} mean`);
      close(x.max, Math.max(...vals), `${x.name} max`);
      close(x.imbalance, x.max / x.mean, `${x.name} imbalance`);
      assert.deepEqual(x.top_ranks, vals[0] >= vals[1] ? [0, 1] : [1, 0]);
    }
    for (let i = 1; i < li.functions.length; i++) assert.ok(li.functions[i - 1].imbalance >= li.functions[i].imbalance);
    if (metric === 'time.inc') {
      const m = li.functions.find((x) => x.name === MAIN);
      close(m.imbalance, Math.max(...MAIN_INC) / ((MAIN_INC[0] + MAIN_INC[1]) / 2), 'main inc imbalance', 1e-7);
    }
  }
});

test('the derived CCT through /cct, /tree and /supergraph', { skip }, async () => {
  const cct = await get(`/api/v1/traces/${id}/cct`);
  assert.equal(cct.nodes, 7);
  assert.equal(cct.processes, 2);
  const nodes = cct.tree;
  const root = nodes.find((n) => n.parent === null);
  assert.equal(root.name, MAIN);
  close(root.metrics['time (inc)'].min, Math.min(...MAIN_INC), 'main min', 1e-7);
  close(root.metrics['time (inc)'].max, Math.max(...MAIN_INC), 'main max', 1e-7);
  for (const n of nodes) {
    const kids = nodes.filter((k) => k.parent === n.id);
    const sum = kids.reduce((a, k) => a + k.metrics['time (inc)'].mean, 0);
    assert.ok(n.metrics['time (inc)'].mean + 1e-6 >= sum, `${n.name}: inclusive >= children`);
    close(n.metrics.time.mean, n.metrics['time (inc)'].mean - sum, `${n.name}: exclusive = inclusive - children`, 1e-9);
  }
  const tree = await getJson(d.url, `/api/v1/traces/${id}/tree`);
  assert.equal(tree.status, 200);
  assert.match(tree.text, /MPI_Init/);
  const sg = await get(`/api/v1/traces/${id}/supergraph`);
  close(sg.root_inclusive, root.metrics['time (inc)'].mean, 'supergraph root', 1e-9);
  assert.ok(sg.nodes.length > 0);
});

test('CSV forms', { skip }, async () => {
  for (const [path, header] of [
    ['flat-profile', 'name,inclusive_ns,exclusive_ns,count'],
    ['flat-profile?per=process', 'rank,thread,name,inclusive_ns'],
    ['time-profile?bins=4', 'name,bin,start_ns,value'],
    ['load-imbalance', 'name,metric,mean_ns,max_ns,imbalance'],
    ['idle-time', 'rank,thread,idle_ns,total_ns,share_fraction'],
    ['caller-callee', 'caller,callee,count,inclusive_ns'],
  ]) {
    const sep = path.includes('?') ? '&' : '?';
    const r = await getJson(d.url, `/api/v1/traces/${id}/${path}${sep}format=csv`);
    assert.equal(r.status, 200, `${path}: ${r.text.slice(0, 200)}`);
    assert.match(r.headers.get('content-type') || '', /^text\/csv/, path);
    assert.ok(r.text.startsWith(header), `${path}: ${r.text.slice(0, 120)}`);
    assert.ok(r.text.split('\r\n').length > 2, path);
  }
});

test('bad parameters and other kinds of trace', { skip }, async () => {
  for (const q of ['time-profile?bins=0', 'time-profile?bins=10001', 'time-profile?start=5&end=1',
    'time-profile?normalized=maybe', 'flat-profile?per=rank', 'load-imbalance?metric=flops',
    'load-imbalance?top=0', 'idle-time?functions=,,', 'flat-profile?per=process&limit=0', 'flat-profile?offset=-1'])
    assertError(await getJson(d.url, `/api/v1/traces/${id}/${q}`), 400, 'invalid_parameter', q);
  for (const e of ['flat-profile', 'time-profile', 'load-imbalance', 'idle-time', 'caller-callee']) {
    assertError(await getJson(d.url, `/api/v1/traces/${tasksId}/${e}`), 409, 'not_event_trace', e);
    assertError(await getJson(d.url, `/api/v1/traces/999999/${e}`), 404, 'not_found', e);
  }
  // a window: bins over [start, end], and each bin still sums to 2 x its width
  const tp = await get(`/api/v1/traces/${id}/time-profile?bins=5&start=195000000&end=199000000`);
  assert.equal(tp.edges[0], 195000000);
  assert.equal(tp.edges[5], 199000000);
  for (let i = 0; i < 5; i++)
    isclose(tp.series.reduce((a, s) => a + s.values[i], 0) + tp.idle[i], 2 * tp.bin_duration, `window bin ${i}`);
});
