// ensemble_hierarchy.test.mjs: GET /api/v1/ensembles/{id}/nodes/{node}/hierarchy,
// the supernode hierarchy (icicle) of the ensemble super graph.
// - Two generated 2-rank json-split members grouped with a module map
//   (lib = solve|kernel|mpi_send): the tree, its paths, contexts, presence
//   and every per-run value are checked against an independent computation
//   from each member's own /traces/{id}/cct and /nodes/{n}/ranks (component
//   paths rebuilt from the names, per-rank sums, mean over the member's
//   processes, a missing rank counting 0 as in the super graph); the top
//   call sites add up to the supernode's inclusive value of /supergraph;
//   target values, runs= subsets, CSV, 400 and 404 answers.
// - The fixture ensemble (tests/fixtures/ensemble/run-{8,27,64}.cali) and
//   RAJAPerf (shared data; skipped without it): every supernode's hierarchy
//   against the members' /cct means.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, importCli, runCli, sourceDir } from '../lib/daemon.mjs';
import { getJson, assertError, assertOkJson, stopClean } from '../fixtures/api/util.mjs';
import { rajaperfDir, haveRajaperf, createEnsemble } from '../fixtures/api/ensembles.mjs';

const LIB = '^(solve|kernel|mpi_send)$';
const MAP = encodeURIComponent(JSON.stringify({ lib: [LIB] }));
const GRAPH = `group_by=map&map=${MAP}&filter=0`;

let d, tmp;
const ids = {};

// A json-split profile: nodes [name, exc, parent]; ranks rows, each rank's
// exclusive time exc * (1 + rank / 2); missing: [rank, node] pairs left out.
function profile(nodes, ranks, missing = []) {
  const gone = new Set(missing.map(([r, i]) => `${r}:${i}`));
  const data = [];
  for (let r = 0; r < ranks; r++) {
    const exc = nodes.map(([, e], i) => (gone.has(`${r}:${i}`) ? 0 : e * (1 + r / 2)));
    const inc = [...exc];
    for (let i = nodes.length - 1; i > 0; i--) inc[nodes[i][2]] += inc[i];
    nodes.forEach((_, i) => { if (!gone.has(`${r}:${i}`)) data.push([inc[i], r, exc[i], i]); });
  }
  return JSON.stringify({
    data,
    columns: ['inclusive#sum#time.duration', 'mpi.rank', 'sum#time.duration', 'path'],
    column_metadata: [{ is_value: true }, { is_value: false }, { is_value: true }, { is_value: false }],
    nodes: nodes.map(([label, , parent], i) => (i === 0 ? { label, column: 'path' } : { label, column: 'path', parent })),
  });
}

// a: main -> solve -> {kernel -> mpi_send, solve}, main -> io -> kernel
const A = [['main', 1], ['solve', 3, 0], ['kernel', 5, 1], ['mpi_send', 1, 2], ['io', 2, 0], ['kernel', 4, 4],
  ['solve', 0.5, 1]];
// b: main -> solve -> kernel (not measured on rank 1), main -> io
const B = [['main', 1], ['solve', 3, 0], ['kernel', 6, 1], ['io', 2, 0]];

before(async () => {
  d = await startDaemon();
  tmp = mkdtempSync(join(tmpdir(), 'ens-hier-'));
  writeFileSync(join(tmp, 'a.json'), profile(A, 2));
  writeFileSync(join(tmp, 'b.json'), profile(B, 2, [[1, 2]]));
  ids.a = importCli(d.db, join(tmp, 'a.json'), 'a');
  ids.b = importCli(d.db, join(tmp, 'b.json'), 'b');
  ids.ens = await createEnsemble(d.url, 'hier', [ids.a, ids.b]);
  const fx = join(sourceDir, 'tests', 'fixtures', 'ensemble');
  ids.fixture = await createEnsemble(d.url, 'fixture',
    [8, 27, 64].map((n) => importCli(d.db, join(fx, `run-${n}.cali`), `run-${n}`)));
});
after(async () => {
  if (d) await stopClean(d);
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const close = (a, b, what) => assert.ok(
  a === b || (a !== null && b !== null && Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b))), `${what}: ${a} != ${b}`);
const esc = (s) => s.replace(/[\\/]/g, (c) => `\\${c}`);

async function ok(path) {
  const r = await getJson(d.url, path);
  assertOkJson(r, 200, path);
  return r.json;
}

// One member's CCT from its own /cct: [{id, parent, name, path}].
async function memberTree(trace) {
  const c = await ok(`/api/v1/traces/${trace}/cct`);
  const byId = new Map();
  for (const n of c.tree) {
    const p = n.parent === null ? null : byId.get(n.parent);
    byId.set(n.id, { ...n, path: p ? `${p.path}/${esc(n.name)}` : esc(n.name), up: p });
  }
  return { nodes: [...byId.values()], processes: c.processes };
}

// The per-rank values (null as 0) of a member's node from /ranks.
async function rankValues(trace, node, metric) {
  const r = await ok(`/api/v1/traces/${trace}/nodes/${node}/ranks?metric=${encodeURIComponent(metric)}`);
  return r.ranks.map((x) => x.value ?? 0);
}

// Independent hierarchy of the lib supernode in one member: component path
// -> {contexts: [full paths], inc, exc} (means over the member's processes).
async function expectedLib(trace) {
  const { nodes, processes } = await memberTree(trace);
  const inLib = (n) => n && new RegExp(LIB).test(n.name);
  const comp = (n) => (inLib(n.up) ? `${comp(n.up)}/${esc(n.name)}` : esc(n.name));
  const out = new Map();
  for (const n of nodes.filter(inLib)) {
    const key = comp(n);
    if (!out.has(key)) out.set(key, { contexts: [], inc: new Array(processes).fill(0), exc: new Array(processes).fill(0) });
    const e = out.get(key);
    e.contexts.push(n.path);
    const [inc, exc] = [await rankValues(trace, n.id, 'time (inc)'), await rankValues(trace, n.id, 'time')];
    // a context under another of the same component path is already in its inclusive time
    let a = n.up, nested = false;
    for (; a; a = a.up) nested ||= inLib(a) && comp(a) === key;
    inc.forEach((v, r) => { if (!nested) e.inc[r] += v; });
    exc.forEach((v, r) => { e.exc[r] += v; });
  }
  const mean = (v) => v.reduce((s, x) => s + x, 0) / processes;
  for (const e of out.values()) Object.assign(e, { inc: mean(e.inc), exc: mean(e.exc) });
  return out;
}

async function libKey(ens, query = GRAPH) {
  const g = await ok(`/api/v1/ensembles/${ens}/supergraph?${query}`);
  return g.nodes.find((n) => n.name === 'lib');
}

test('hierarchy: tree, contexts and per-run values equal an independent computation from the members', async () => {
  const sn = await libKey(ids.ens);
  assert.ok(sn, 'lib supernode');
  const h = await ok(`/api/v1/ensembles/${ids.ens}/nodes/${sn.key}/hierarchy?${GRAPH}&target=${ids.b}`);
  assert.equal(h.id, sn.id);
  assert.equal(h.key, sn.key);
  assert.deepEqual(h.runs.map((r) => r.trace_id), [ids.a, ids.b]);
  assert.equal(h.target, ids.b);
  assert.equal(h.node_count, h.nodes.length);
  const expected = [await expectedLib(ids.a), await expectedLib(ids.b)];
  const paths = new Set([...expected[0].keys(), ...expected[1].keys()]);
  assert.deepEqual(h.nodes.map((n) => n.path).sort(), [...paths].sort());
  assert.deepEqual([...paths].sort(), ['kernel', 'solve', 'solve/kernel', 'solve/kernel/mpi_send', 'solve/solve']);
  const byPath = new Map(h.nodes.map((n) => [n.path, n]));
  for (const n of h.nodes) {
    const parentPath = n.path.includes('/') ? n.path.slice(0, n.path.lastIndexOf('/')) : null;
    assert.equal(n.parent === null ? null : h.nodes[n.parent].path, parentPath, `${n.path} parent`);
    assert.ok(n.parent === null || n.parent < n.id, 'parent before child');
    assert.equal(n.depth, n.path.split('/').length - 1);
    const ctx = new Set([...(expected[0].get(n.path)?.contexts || []), ...(expected[1].get(n.path)?.contexts || [])]);
    assert.deepEqual([...n.contexts].sort(), [...ctx].sort(), `${n.path} contexts`);
    expected.forEach((ex, m) => {
      const e = ex.get(n.path);
      assert.equal(n.presence[m], !!e, `${n.path} presence in member ${m}`);
      close(n.inclusive.runs[m], e ? e.inc : null, `${n.path} inc member ${m}`);
      close(n.exclusive.runs[m], e ? e.exc : null, `${n.path} exc member ${m}`);
    });
    const present = n.inclusive.runs.filter((v) => v !== null);
    close(n.inc_max, Math.max(...present), `${n.path} inc_max`);
    close(n.exc_max, Math.max(...n.exclusive.runs.filter((v) => v !== null)), `${n.path} exc_max`);
    assert.equal(n.gradient.inclusive.counts.reduce((a, b) => a + b, 0), present.length);
    assert.equal(n.gradient.inclusive.counts.length, h.bins);
    close(n.target.inclusive, n.inclusive.runs[1], `${n.path} target`);
    assert.equal(n.target.present, n.presence[1]);
  }
  // member b lacks these call sites: null, never 0
  assert.equal(byPath.get('solve/kernel/mpi_send').inclusive.runs[1], null);
  assert.equal(byPath.get('solve/kernel/mpi_send').target.inclusive, null);
  assert.equal(byPath.get('kernel').presence[1], false);
  // the top call sites are the supernode's entries: their inclusive sum is the supernode's
  for (let m = 0; m < 2; m++) {
    const top = h.nodes.filter((n) => n.parent === null).reduce((s, n) => s + (n.inclusive.runs[m] ?? 0), 0);
    close(top, sn.inclusive.runs[m], `top call sites member ${m}`);
  }
  close(h.inc_max, sn.inc_max, 'supernode inc_max');
});

test('hierarchy: runs= restricts to the members, CSV, errors', async () => {
  const sub = await libKey(ids.ens, `${GRAPH}&runs=${ids.b}`);
  const h = await ok(`/api/v1/ensembles/${ids.ens}/nodes/${sub.key}/hierarchy?${GRAPH}&runs=${ids.b}`);
  assert.deepEqual(h.runs.map((r) => r.trace_id), [ids.b]);
  assert.deepEqual(h.nodes.map((n) => n.path).sort(), ['solve', 'solve/kernel']);
  assert.equal(h.target, null);
  assert.ok(h.nodes.every((n) => n.target === null && n.inclusive.runs.length === 1));

  const sn = await libKey(ids.ens);
  const base = `/api/v1/ensembles/${ids.ens}/nodes/${sn.key}/hierarchy?${GRAPH}`;
  const csv = await fetch(`${d.url}${base}&format=csv`);
  assert.equal(csv.status, 200);
  assert.match(csv.headers.get('content-type'), /text\/csv/);
  const rows = (await csv.text()).trim().split('\r\n');
  assert.match(rows[0], /^id,parent,depth,name,path,present,inc_max/);
  assert.equal(rows.length, 1 + 5);
  const vals = await (await fetch(`${d.url}${base}&format=csv&table=values`)).text();
  assert.equal(vals.trim().split('\r\n').length, 1 + 5 * 2);

  assertError(await getJson(d.url, `/api/v1/ensembles/${ids.ens}/nodes/0123456789abcdef/hierarchy?${GRAPH}`), 404, 'not_found');
  assertError(await getJson(d.url, `/api/v1/ensembles/9999/nodes/${sn.key}/hierarchy`), 404, 'not_found');
  assertError(await getJson(d.url, `${base}&target=123456`), 400, 'invalid_parameter');
  assertError(await getJson(d.url, `${base}&runs=abc`), 400, 'invalid_parameter');
  assertError(await getJson(d.url, `${base}&bins=0`), 400, 'invalid_parameter');
});

// Every supernode of `ens`: its hierarchy's values equal the members' /cct
// means of the contexts it lists (single-process or fully measured members).
async function checkAgainstCct(ens, metric, maxNodes = Infinity) {
  const g = await ok(`/api/v1/ensembles/${ens}/supergraph`);
  const trees = await Promise.all(g.runs.map((r) => memberTree(r.trace_id)));
  const byPath = trees.map((t) => new Map(t.nodes.map((n) => [n.path, n])));
  const nodes = [...g.nodes].sort((x, y) => y.inc_max - x.inc_max).slice(0, maxNodes);
  for (const sn of nodes) {
    const h = await ok(`/api/v1/ensembles/${ens}/nodes/${sn.key}/hierarchy`);
    assert.equal(h.nodes.reduce((s, n) => s + n.contexts.length, 0), sn.functions, `${sn.id} contexts`);
    for (const n of h.nodes) {
      g.runs.forEach((r, m) => {
        const here = n.contexts.map((p) => byPath[m].get(p)).filter(Boolean);
        const want = here.length ? here.reduce((s, x) => s + x.metrics[metric].mean, 0) : null;
        close(n.inclusive.runs[m], want, `${sn.id} ${n.path} run ${r.trace_id}`);
      });
    }
    for (let m = 0; m < g.runs.length; m++) {
      const top = h.nodes.filter((n) => n.parent === null).reduce((s, n) => s + (n.inclusive.runs[m] ?? 0), 0);
      close(top, sn.inclusive.runs[m] ?? 0, `${sn.id} top call sites run ${m}`);
    }
  }
  return g.nodes.length;
}

test('hierarchy: the fixture ensemble run-{8,27,64} against the members\' /cct', async () => {
  // run-8's solve is measured on one rank of two: its /cct mean is over that
  // rank, the super graph's over both; so compare with the one-rank node only.
  const g = await ok(`/api/v1/ensembles/${ids.fixture}/supergraph`);
  const main = g.nodes.find((n) => n.name === 'main');
  const h = await ok(`/api/v1/ensembles/${ids.fixture}/nodes/${main.key}/hierarchy?target=${g.runs[2].trace_id}`);
  assert.equal(h.node_count, 1);
  assert.deepEqual(h.nodes[0].contexts, ['main']);
  for (let m = 0; m < 3; m++) {
    const t = await memberTree(g.runs[m].trace_id);
    close(h.nodes[0].inclusive.runs[m], t.nodes[0].metrics['time (inc)'].mean, `main run ${m}`);
    close(h.nodes[0].exclusive.runs[m], main.exclusive.runs[m], `main exc run ${m}`);
  }
  close(h.nodes[0].target.inclusive, h.nodes[0].inclusive.runs[2], 'target');
  assert.equal(g.nodes.length, 3);
});

test('hierarchy: RAJAPerf trials against the members\' /cct', { skip: !haveRajaperf && 'no shared RAJAPerf data' }, async () => {
  const files = Array.from({ length: 10 }, (_, i) => join(rajaperfDir, String(i + 1), 'Base_CUDA-block_128.cali'));
  const r = runCli(['import', '--db', d.db, '--ensemble', 'raja-hier', '--quiet', ...files]);
  assert.equal(r.status, 0, r.stderr);
  const ens = JSON.parse(r.stdout.trim().split('\n').pop()).ensemble.id;
  const count = await checkAgainstCct(ens, 'Min time/rank', 12);
  assert.ok(count > 10);
});
