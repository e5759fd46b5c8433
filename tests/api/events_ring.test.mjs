// events_ring.test.mjs: an OTF2 trace written by libotf2's writer
// (tests/tools/gen_otf2.c: N ranks in a ring, one known late sender), imported
// with `ariadned import`, gives on a live daemon the ring's communication
// matrix (bytes and counts), the late senders on the known pair only
// (/wait-states), and a derived CCT whose every node keeps flow conservation
// (exclusive + children = inclusive, through /cct and /supergraph) with
// main's inclusive time per rank equal to the generated duration and each
// function's time per rank as scheduled, the same exclusive times per rank
// through pIC (/aggregation, over the machine > node > rank hierarchy the
// generator wrote), and the messages as links (/links). Every
// expected value comes from the generator's --expect JSON (computed from
// its parameters), never from
// ariadne; `otf2-print` (Debian otf2-tools), when installed, confirms the
// archive holds what the generator says it wrote.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, runCli, sourceDir, scratchDb } from '../lib/daemon.mjs';
import { getJson, assertOkJson, stopClean } from '../fixtures/api/util.mjs';

const buildDir = process.env.ARIADNE_BUILD_DIR || join(sourceDir, 'build');
const GEN = join(buildDir, 'gen_otf2');

// The ring (blocking sends; an even number of ranks) and a variant with
// Isend/Irecv/Wait over an odd number of ranks (the generator's third phase).
const RING = { ranks: 8, iterations: 6, late: 3, lateNs: 7000, bytes: 4096, ranksPerNode: 4 };
const NB = { ranks: 7, iterations: 4, late: 6, lateNs: 3000, bytes: 512, nonblocking: true };

let d, dir, db;
const traces = {};

function generate(p, out) {
  const args = ['--ranks', p.ranks, '--iterations', p.iterations, '--late-sender', p.late, '--late-ns', p.lateNs,
    '--bytes', p.bytes, '--expect', '--out', out].map(String);
  if (p.nonblocking) args.push('--nonblocking');
  if (p.ranksPerNode) args.push('--ranks-per-node', String(p.ranksPerNode));
  return JSON.parse(execFileSync(GEN, args, { encoding: 'utf8' }));
}

function importDir(path) {
  const r = runCli(['import', '--db', db, '--allow-duplicate', path]);
  assert.equal(r.status, 0, `import ${path}: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n')[0]).id;
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ariadne-ring-'));
  db = scratchDb(dir);
  for (const [key, p] of [['ring', RING], ['nb', NB]]) {
    const out = join(dir, key);
    const expect = generate(p, out);
    traces[key] = { out, expect, id: importDir(out) };
  }
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

const close = (a, b, what, rel = 1e-9) => {
  const tol = rel * Math.max(1, Math.abs(a), Math.abs(b));
  assert.ok(Math.abs(a - b) <= tol, `${what}: ${a} vs ${b}`);
};

test('otf2-print reads what the generator says it wrote', { skip: spawnSync('otf2-print', ['--help']).error ? 'otf2-print not installed' : false }, () => {
  for (const key of ['ring', 'nb']) {
    const { out, expect } = traces[key];
    const text = execFileSync('otf2-print', [join(out, 'traces.otf2')], { encoding: 'utf8', maxBuffer: 1 << 28 });
    const lines = text.split('\n').filter((l) => /^[A-Z_]+ +\d+ +\d+/.test(l));
    assert.equal(lines.length, expect.events, `${key}: events`);
    const sends = lines.filter((l) => /^MPI_I?SEND /.test(l)).length;
    assert.equal(sends, expect.messages, `${key}: send records`);
    for (let r = 0; r < expect.ranks; r++)
      assert.equal(lines.filter((l) => l.split(/ +/)[1] === String(r)).length, expect.events_per_rank, `${key}: rank ${r}`);
  }
});

test('/comm-matrix is the ring, in bytes and in counts', async () => {
  for (const key of ['ring', 'nb']) {
    const { id, expect } = traces[key];
    const n = expect.ranks;
    for (const kind of ['bytes', 'count']) {
      const m = await get(`/api/v1/traces/${id}/comm-matrix?kind=${kind}`);
      assert.equal(m.kind, kind);
      assert.equal(m.trace_id, id);
      assert.equal(m.time_unit, 'ns');
      assert.deepEqual(m.ranks, [...Array(n).keys()], `${key}: ranks`);
      assert.equal(m.matrix.length, n);
      const per = kind === 'bytes' ? expect.iterations * expect.bytes : expect.iterations;
      for (let s = 0; s < n; s++) {
        assert.equal(m.matrix[s].length, n);
        for (let t = 0; t < n; t++)
          assert.equal(m.matrix[s][t], t === (s + 1) % n ? per : 0, `${key} ${kind}: cell ${s} -> ${t}`);
      }
      assert.equal(m.total, kind === 'bytes' ? expect.message_bytes : expect.messages, `${key} ${kind}: total`);
      assert.equal(m.max, per, `${key} ${kind}: max`);
      assert.deepEqual(m.unmatched, { sends: 0, receives: 0 }, `${key}: unmatched`);
      for (const p of m.processes) {
        assert.equal(p.sent_bytes, expect.iterations * expect.bytes, `${key}: rank ${p.rank} sent bytes`);
        assert.equal(p.received_bytes, expect.iterations * expect.bytes, `${key}: rank ${p.rank} received bytes`);
        assert.equal(p.sent_count, expect.iterations, `${key}: rank ${p.rank} sent count`);
        assert.equal(p.received_count, expect.iterations, `${key}: rank ${p.rank} received count`);
      }
      // the CSV download: one line per non-zero cell
      const r = await fetch(`${d.url}/api/v1/traces/${id}/comm-matrix?kind=${kind}&format=csv`);
      assert.equal(r.status, 200);
      const lines = (await r.text()).trim().split('\n');
      assert.match(lines[0], /^sender,receiver,value\b/, `${key}: CSV header`);
      const cells = lines.slice(1).map((l) => l.split(',').slice(0, 3).map(Number));
      assert.equal(cells.length, n, `${key} ${kind}: CSV cells`);
      for (const [s, t, v] of cells) {
        assert.equal(t, (s + 1) % n, `${key}: CSV cell ${s} -> ${t}`);
        assert.equal(v, per, `${key}: CSV value ${s} -> ${t}`);
      }
    }
  }
});

test('/wait-states: K late senders of D ns on the known pair only, no late receiver', async () => {
  const { id, expect } = traces.ring;
  const ls = expect.late_sender;
  const w = await get(`/api/v1/traces/${id}/wait-states`);
  assert.equal(typeof w.definition, 'string');
  const late = w.pairs.filter((p) => p.late_sender_count > 0);
  assert.equal(late.length, 1, `one pair with late senders: ${JSON.stringify(late)}`);
  assert.equal(late[0].sender, ls.sender);
  assert.equal(late[0].receiver, ls.receiver);
  assert.equal(late[0].late_sender_count, ls.count);
  close(late[0].late_sender_time, ls.time_ns, 'late sender time (ns)');
  for (const p of w.pairs) {
    assert.equal(p.late_receiver_count, expect.late_receiver_count, `late receivers on ${p.sender} -> ${p.receiver}`);
    assert.equal(p.late_receiver_time, 0, `late receiver time on ${p.sender} -> ${p.receiver}`);
  }
  assert.equal(w.totals.late_sender_count, ls.count);
  close(w.totals.late_sender_time, ls.time_ns, 'total late sender time');
  assert.equal(w.totals.late_receiver_count, 0);
  // per rank: the pattern is the receiver's waiting time (Scalasca's view)
  // or the sender's; either way only ranks of the pair may carry it.
  const ranksWith = w.ranks.filter((r) => r.late_sender_count > 0).map((r) => r.rank);
  assert.ok(ranksWith.length >= 1 && ranksWith.every((r) => r === ls.sender || r === ls.receiver),
    `ranks with late senders: ${ranksWith}`);
});

const UNIT_NS = { ns: 1, nsec: 1, us: 1e3, usec: 1e3, 'µs': 1e3, ms: 1e6, msec: 1e6, s: 1e9, sec: 1e9 };

test('/cct of the derived CCT: flow conservation, main = the run, each function as scheduled', async () => {
  const { id, expect } = traces.ring;
  const cct = await get(`/api/v1/traces/${id}/cct`);
  const incName = cct.inclusive_metric;
  const inc = cct.metrics.find((m) => m.name === incName);
  assert.ok(inc, `inclusive metric ${incName} among ${JSON.stringify(cct.metrics)}`);
  const exc = cct.metrics.find((m) => m.id === inc.partner);
  assert.ok(exc && !exc.inclusive, `exclusive partner of ${incName}: ${JSON.stringify(cct.metrics)}`);
  const excName = exc.name;
  const scale = UNIT_NS[inc.unit];
  assert.ok(scale, `unit of ${incName}: ${inc.unit}`);
  assert.equal(cct.processes, expect.ranks, 'one process per rank');
  const children = new Map();
  for (const n of cct.tree) {
    if (n.parent !== null && n.parent !== undefined) {
      if (!children.has(n.parent)) children.set(n.parent, []);
      children.get(n.parent).push(n);
    }
  }
  for (const n of cct.tree) {
    const kids = children.get(n.id) || [];
    const sum = kids.reduce((a, k) => a + k.metrics[incName].mean, 0);
    const i = n.metrics[incName].mean, x = n.metrics[excName].mean;
    assert.ok(i + 1e-9 * Math.abs(i) >= sum, `${n.name}: inclusive ${i} >= children ${sum}`);
    close(x + sum, i, `${n.name}: exclusive + children = inclusive`, 1e-9);
  }
  const mains = cct.tree.filter((n) => n.name === 'main');
  assert.equal(mains.length, 1, 'one main node');
  const main = mains[0];
  close(main.metrics[incName].min * scale, expect.duration_ns, 'main inclusive (min over ranks)');
  close(main.metrics[incName].max * scale, expect.duration_ns, 'main inclusive (max over ranks)');
  // per rank: main and each function under it, against the generator's schedule
  const nodes = [main, ...(children.get(main.id) || [])];
  assert.deepEqual(nodes.map((n) => n.name).sort(), Object.keys(expect.profile[0].functions).sort(), 'functions under main');
  for (const n of nodes) {
    const r = await get(`/api/v1/traces/${id}/nodes/${n.id}/ranks?metric=${encodeURIComponent(incName)}`);
    assert.equal(r.ranks.length, expect.ranks, `${n.name}: one value per rank`);
    for (const v of r.ranks) {
      const want = expect.profile[v.rank].functions[n.name].inclusive;
      close(v.value * scale, want, `${n.name} on rank ${v.rank} (ns)`, 1e-9);
    }
  }
});

// Event traces keep their calls only in state chunks and their messages only
// in message chunks: pIC reads the chunks, /links the messages.
test('pIC /aggregation of the packed calls: each rank\'s exclusive time per function as scheduled', async () => {
  const { id, expect } = traces.ring;
  const a = await get(`/api/v1/traces/${id}/aggregation?slices=1&p=0`);
  // the system tree the generator wrote: one machine > nodes of ranksPerNode ranks > ranks
  const h = a.hierarchy;
  const nodes = h.filter((n) => /^node \d+$/.test(n.name));
  assert.equal(nodes.length, expect.ranks / RING.ranksPerNode, `nodes among ${h.map((n) => n.name)}`);
  for (const n of nodes) {
    assert.equal(h[n.parent].name, 'machine', `${n.name} under the machine`);
    assert.equal(n.leaves[1], RING.ranksPerNode, `${n.name}: its ranks' threads`);
    const ranks = h.filter((x) => x.parent === h.indexOf(n)).map((x) => x.name);
    assert.equal(ranks.length, RING.ranksPerNode, `${n.name}: ${ranks}`);
    ranks.forEach((x) => assert.match(x, /^MPI Rank \d+$/));
  }
  for (let r = 0; r < expect.ranks; r++) {
    const agg = a.aggregates.find((g) => g.name === `MPI Rank ${r}`);
    assert.ok(agg, `rank ${r} among ${a.aggregates.map((g) => g.name)}`);
    close(agg.time, expect.duration_ns, `rank ${r}: the run`);
    const prof = expect.profile[r];
    for (const [name, f] of Object.entries(prof.functions)) {
      const k = a.values.indexOf(name);
      assert.ok(k >= 0, `${name} among ${a.values}`);
      const want = name === 'main' ? prof.main_exclusive : f.inclusive; // the others call nothing
      close(agg.proportions[k] * agg.time, want, `rank ${r}: exclusive ${name} (ns)`, 1e-9);
    }
  }
});

test('/links: every matched message once, from its sender\'s thread', async () => {
  for (const key of ['ring', 'nb']) {
    const { id, expect } = traces[key];
    const l = await get(`/api/v1/traces/${id}/links?limit=100000`);
    assert.equal(l.total, expect.messages, `${key}: total`);
    assert.equal(l.links.length, expect.messages, `${key}: links`);
    assert.equal(new Set(l.links.map((x) => x.key)).size, expect.messages, `${key}: distinct keys`);
    const senders = new Map();
    for (const x of l.links) {
      assert.equal(x.type, 'Message');
      assert.ok(x.end >= x.start, `${key}: ${x.key} received after it was sent`);
      assert.notEqual(x.from.container_id, x.to.container_id);
      senders.set(x.from.container_id, (senders.get(x.from.container_id) || 0) + 1);
    }
    assert.equal(senders.size, expect.ranks, `${key}: every rank sends`);
    for (const n of senders.values()) assert.equal(n, expect.iterations, `${key}: messages per sender`);
    for (let i = 1; i < l.links.length; i++) assert.ok(l.links[i].start >= l.links[i - 1].start, 'by start');
  }
});

test('/supergraph of the derived CCT conserves flow', async () => {
  const { id, expect } = traces.ring;
  const g = await get(`/api/v1/traces/${id}/supergraph?group_by=name&filter=0`);
  const inW = new Map(), outW = new Map();
  for (const e of g.edges) {
    inW.set(e.target, (inW.get(e.target) || 0) + e.weight);
    outW.set(e.source, (outW.get(e.source) || 0) + e.weight);
  }
  const names = new Set(g.nodes.map((n) => n.name));
  for (const f of Object.keys(expect.profile[0].functions)) assert.ok(names.has(f), `supernode ${f}`);
  for (const n of g.nodes) {
    close((inW.get(n.id) || 0) + n.root_inflow, n.inclusive, `${n.id}: incoming + root inflow = inclusive`, 1e-7);
    close(n.inclusive - (outW.get(n.id) || 0), n.exclusive + n.filtered, `${n.id}: inclusive - outgoing = exclusive + filtered`, 1e-7);
  }
  const scale = UNIT_NS[g.metric.unit];
  assert.ok(scale, `unit ${g.metric.unit}`);
  close(g.root_inclusive * scale, expect.duration_ns, 'root inclusive = the run (mean over ranks)');
});

test('the generator refuses bad parameters', () => {
  for (const args of [['--ranks', '1', '--expect'], ['--late-sender', '8', '--ranks', '8', '--expect'], ['--bogus']]) {
    const r = spawnSync(GEN, args, { encoding: 'utf8' });
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
  }
  assert.ok(existsSync(join(traces.ring.out, 'traces.otf2')));
});
