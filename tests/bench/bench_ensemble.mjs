// bench_ensemble.mjs: times the import of a generated ensemble of profiles and
// the first ensemble requests after it (issue 16, "Performance"; README.md).
//
//   ARIADNED=build-rel/ariadned node tests/bench/bench_ensemble.mjs
//   BENCH_MEMBERS=30 BENCH_NODES=500 BENCH_RANKS=16 node tests/bench/bench_ensemble.mjs   # quick
//
// 1. Writes BENCH_MEMBERS (default 300) Hatchet literal profiles (the
//    fastest profile format to read: one JSON tree, a list of per-rank values
//    per metric, no dataframe) of one generated program: BENCH_NODES
//    (default 2,000) call sites, each hanging from one of the previous 300,
//    in 40 modules (a child stays in its parent's module with probability
//    0.85, so modules recur along paths and the super graph has cycles to
//    break); exclusive time heavy-tailed per call site, times a per-member
//    factor (+-10 %), a per-rank factor and +-5 % noise per value, on
//    BENCH_RANKS (default 64) ranks; inclusive = subtree sums. Every member
//    lacks a few call sites (0-4 random subtrees of at most 20 nodes).
// 2. `ariadned import --ensemble bench DIR` (wall time, CPU, peak RSS), then
//    the database size against the raw metric data (values present x 2
//    metrics x 8 bytes) and against the files.
// 3. A freshly started daemon on that database; timed one after the other,
//    each the first of its kind: GET /ensembles/{id}/supergraph (nothing in
//    memory), the same with runs= the first 50 members (or half when there
//    are fewer), /stats, /nodes/{key}/gradients of the heaviest non-root
//    supernode; then each again (warm). The daemon's peak RSS is printed
//    against the raw data.
// Reference: Thicket (python `thicket`) reading the same files and computing
// th.stats.mean/median/std over the members, when it is installed; it is
// optional and the script says so when it is not.
// Target (issue 16): every first request after the import under 1 s; the
// script exits 1 and lists what it missed otherwise.
// Environment: BENCH_MEMBERS, BENCH_NODES, BENCH_RANKS, BENCH_SUBSET (default
// 50), BENCH_SEED (default 1), BENCH_DIR (keep files and database there and
// reuse them: the import is then not timed again), ARIADNED.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ariadned, startDaemon } from '../lib/daemon.mjs';
import { rng } from '../lib/rng.mjs';

const members = Number(process.env.BENCH_MEMBERS || 300);
const nodes = Number(process.env.BENCH_NODES || 2000);
const ranks = Number(process.env.BENCH_RANKS || 64);
const subset = Math.min(Number(process.env.BENCH_SUBSET || 50), Math.max(1, Math.floor(members / 2)));
const seed = Number(process.env.BENCH_SEED || 1);
const keep = process.env.BENCH_DIR;
const dir = keep || mkdtempSync(join(tmpdir(), 'ariadne-bench-ens-'));
const dataDir = join(dir, 'members');
const db = join(dir, 'test.db');
const TARGET_MS = 1000;
const missed = [];

const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const mb = (bytes) => (bytes / 1048576).toFixed(1);

// The program: parent, module and base exclusive time of every call site.
function program(rand) {
  const parent = new Int32Array(nodes), module = new Int32Array(nodes), base = new Float64Array(nodes);
  parent[0] = -1;
  for (let i = 1; i < nodes; i++) {
    parent[i] = Math.max(0, i - 1 - Math.floor(rand() * Math.min(i, 300)));
    module[i] = rand() < 0.85 ? module[parent[i]] : Math.floor(rand() * 40);
  }
  for (let i = 0; i < nodes; i++) base[i] = 1e-3 / Math.pow(1 - rand() * 0.999, 1.2);
  const children = Array.from({ length: nodes }, () => []);
  for (let i = 1; i < nodes; i++) children[parent[i]].push(i);
  const rankFactor = Array.from({ length: ranks }, () => 0.8 + 0.4 * rand());
  const size = new Int32Array(nodes).fill(1);
  for (let i = nodes - 1; i > 0; i--) size[parent[i]] += size[i];
  return { parent, module, base, children, rankFactor, size };
}

// The call sites a member lacks: 0-4 whole subtrees of at most 20 nodes
// (a few tries each to find a small one).
function missing(p, rand) {
  const gone = new Uint8Array(nodes);
  const mark = (n) => { gone[n] = 1; p.children[n].forEach(mark); };
  const drops = Math.floor(rand() * 5);
  for (let d = 0; d < drops; d++) {
    for (let tries = 0; tries < 10; tries++) {
      const start = 1 + Math.floor(rand() * (nodes - 1));
      if (p.size[start] <= 20) { mark(start); break; }
    }
  }
  return gone;
}

const fmt = (x) => Number(x.toPrecision(6));

// One member as a Hatchet literal tree; returns {text, values present}.
function member(p, m) {
  const rand = rng(seed * 7919 + m + 1);
  const gone = missing(p, rand);
  const factor = 0.9 + 0.2 * rand();
  const exc = new Array(nodes), inc = new Array(nodes);
  let present = 0;
  for (let i = nodes - 1; i >= 0; i--) {
    if (gone[i]) continue;
    present++;
    const e = new Float64Array(ranks);
    for (let r = 0; r < ranks; r++) e[r] = p.base[i] * factor * p.rankFactor[r] * (0.95 + 0.1 * rand());
    const s = Float64Array.from(e);
    for (const c of p.children[i]) if (!gone[c]) for (let r = 0; r < ranks; r++) s[r] += inc[c][r];
    exc[i] = e; inc[i] = s;
  }
  const lit = (i) => ({
    frame: { name: `f${i}`, type: 'function', module: `mod${p.module[i]}` },
    metrics: { 'time (inc)': Array.from(inc[i], fmt), time: Array.from(exc[i], fmt) },
    children: p.children[i].filter((c) => !gone[c]).map(lit),
  });
  return { text: JSON.stringify([lit(0)]), present };
}

function generate() {
  const p = program(rng(seed));
  mkdirSync(dataDir, { recursive: true });
  let values = 0, bytes = 0;
  for (let m = 0; m < members; m++) {
    const { text, present } = member(p, m);
    const path = join(dataDir, `run-${String(m).padStart(4, '0')}.json`);
    writeFileSync(path, text);
    values += present * ranks * 2;
    bytes += text.length;
  }
  writeFileSync(join(dir, 'raw.json'), JSON.stringify({ members, nodes, ranks, values, bytes }));
  return { values, bytes };
}

function importEnsemble() {
  for (const suffix of ['', '-wal', '-shm']) rmSync(db + suffix, { force: true });
  const timeFile = join(dir, 'import.time');
  const t0 = process.hrtime.bigint();
  const out = execFileSync('/usr/bin/time', ['-f', '%U %S %M', '-o', timeFile, ariadned, 'import', '--db', db,
    '--quiet', '--ensemble', 'bench', dataDir], { encoding: 'utf8', maxBuffer: 1 << 28 });
  const wall = ms(t0) / 1000;
  const [user, sys, kb] = readFileSync(timeFile, 'utf8').trim().split('\n').pop().split(/\s+/).map(Number);
  const line = out.trim().split('\n').map((l) => JSON.parse(l)).find((o) => o.ensemble);
  return { id: line.ensemble.id, count: line.ensemble.member_count, wall, cpu: user + sys, peakMb: kb / 1024 };
}

const dbBytes = () => ['', '-wal'].reduce((s, x) => s + (existsSync(db + x) ? statSync(db + x).size : 0), 0);
const vmHwm = (pid) => Number((readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmHWM:\s+(\d+)/) || [0, 0])[1]) * 1024;

async function timed(url) {
  const t0 = process.hrtime.bigint();
  const r = await fetch(url);
  const body = await r.text();
  const t = ms(t0);
  if (!r.ok) throw new Error(`${url}: ${r.status} ${body.slice(0, 300)}`);
  return { t, body, bytes: body.length };
}

// Thicket on the same files, when it is installed (the optional reference).
function thicket() {
  const probe = spawnSync('python3', ['-c', 'import thicket'], { encoding: 'utf8' });
  if (probe.status !== 0) return null;
  const py = `
import glob, json, time
import hatchet as ht, thicket as tt
t0 = time.time()
gfs = [ht.GraphFrame.from_literal(json.load(open(f))) for f in sorted(glob.glob('${dataDir}/*.json'))]
t1 = time.time()
th = tt.Thicket.concat_thickets([tt.Thicket.thicketize_graphframe(g, i) for i, g in enumerate(gfs)])
t2 = time.time()
tt.stats.mean(th, ['time (inc)']); tt.stats.median(th, ['time (inc)']); tt.stats.std(th, ['time (inc)'])
t3 = time.time()
print(t1 - t0, t2 - t1, t3 - t2)`;
  const r = spawnSync('python3', ['-c', py], { encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) return { error: r.stderr.trim().split('\n').pop() };
  const [read, unify, stats] = r.stdout.trim().split(/\s+/).map(Number);
  return { read, unify, stats };
}

function row(label, t, bytes, note = '') {
  console.log(`${label.padEnd(44)} ${t.toFixed(1).padStart(9)} ms ${String(bytes).padStart(11)} B ${note}`);
}

async function requests(ensembleId, raw) {
  const d = await startDaemon({ dir, args: ['--log-level', 'error'] });
  try {
    const base = `${d.url}/api/v1/ensembles/${ensembleId}`;
    const ens = JSON.parse((await timed(base)).body);
    const runs = (ens.members || []).slice(0, subset).map((x) => x.trace_id).join(',');
    const urls = [];
    urls.push(['GET /supergraph (first after import)', `${base}/supergraph`]);
    urls.push([`GET /supergraph?runs= (${subset} members)`, `${base}/supergraph?runs=${runs}`]);
    urls.push(['GET /stats', `${base}/stats`]);
    const first = [];
    for (const [label, url] of urls) first.push([label, url, await timed(url)]);
    const graph = JSON.parse(first[0][2].body);
    const heavy = graph.nodes.filter((n) => n.level > 0).sort((a, b) => (b.inc_max ?? 0) - (a.inc_max ?? 0))[0] || graph.nodes[0];
    const gurl = `${base}/nodes/${heavy.key}/gradients`;
    first.push([`GET /nodes/{key}/gradients (${heavy.name})`, gurl, await timed(gurl)]);
    console.log(`\nsuper graph: ${graph.nodes.length} supernodes, ${graph.edges.length} edges, ` +
      `filter kept ${graph.filter?.kept} of ${graph.filter?.total} contexts`);
    console.log('\nrequest (one after the other, fresh daemon)       time        bytes');
    for (const [label, , r] of first) {
      const ok = r.t < TARGET_MS;
      if (!ok) missed.push(`${label}: ${r.t.toFixed(0)} ms >= ${TARGET_MS} ms`);
      row(label, r.t, r.bytes, ok ? '' : '  MISSED (target 1 s)');
    }
    console.log('again (warm):');
    for (const [label, url] of first) { const r = await timed(url); row(label, r.t, r.bytes); }
    const hwm = vmHwm(d.child.pid);
    console.log(`\ndaemon peak RSS ${mb(hwm)} MB = ${(hwm / (raw.values * 8)).toFixed(2)} x the raw metric data`);
  } finally {
    await d.stop();
  }
}

async function main() {
  console.log(`ensemble bench: ${members} members x ${nodes} call sites x ${ranks} ranks (seed ${seed}), dir ${dir}`);
  const reuse = keep && existsSync(db) && existsSync(join(dir, 'raw.json'));
  let raw, imp = null;
  if (reuse) {
    raw = JSON.parse(readFileSync(join(dir, 'raw.json'), 'utf8'));
    console.log('reusing the database of BENCH_DIR: the import is not timed again');
  } else {
    rmSync(dataDir, { recursive: true, force: true });
    const t0 = process.hrtime.bigint();
    raw = generate();
    console.log(`generated ${readdirSync(dataDir).length} files, ${mb(raw.bytes)} MB, in ${(ms(t0) / 1000).toFixed(1)} s`);
    imp = importEnsemble();
    console.log(`import --ensemble: ${imp.wall.toFixed(2)} s wall, ${imp.cpu.toFixed(2)} s CPU, peak RSS ` +
      `${imp.peakMb.toFixed(0)} MB; ensemble ${imp.id} of ${imp.count} members ` +
      `(${(raw.bytes / 1048576 / imp.wall).toFixed(1)} MB/s of JSON)`);
  }
  const rawBytes = raw.values * 8;
  console.log(`database ${mb(dbBytes())} MB; raw metric data ${mb(rawBytes)} MB (${raw.values} values x 8 B): ` +
    `ratio ${(dbBytes() / rawBytes).toFixed(2)}; files ${mb(raw.bytes)} MB`);
  const id = imp ? imp.id : Number(execFileSync('sqlite3', [db, 'SELECT max(id) FROM ensembles;'], { encoding: 'utf8' }).trim());
  await requests(id, raw);
  const ref = thicket();
  if (!ref) console.log('\nreference: Thicket (python `thicket`) is not installed: no reference in this run (optional)');
  else if (ref.error) console.log(`\nreference: Thicket failed: ${ref.error}`);
  else console.log(`\nreference: Thicket read ${ref.read.toFixed(2)} s, unify ${ref.unify.toFixed(2)} s, ` +
    `stats (mean, median, std) ${ref.stats.toFixed(2)} s`);
  if (!keep) rmSync(dir, { recursive: true, force: true });
  if (missed.length) {
    console.log(`\nMISSED (${missed.length}):\n  ${missed.join('\n  ')}`);
    process.exit(1);
  }
  console.log('\nall targets met');
}

main().catch((e) => { console.error(e); process.exit(2); });
