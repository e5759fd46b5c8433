// states.test.mjs: GET /traces/{id}/states and /links (docs/api.md) on a
// live ariadned. The State lines of pj_dump's oracle for simu-mardi.trace
// (pajeng's tests/pj_dump_simu-mardi.tesh) are counted per container and
// state type and compared with the rows the API returns; the workers of a
// real StarPU-MPI run hold Sleeping states; its links are counted here
// from the paje.trace text (pairs of PajeStartLink/PajeEndLink by key) and
// compared with /links. Also the paging of rows, the per-pixel level of
// detail (shares by depth, summing to at most 1), and bad parameters.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDaemon, sourceDir, importCli, getOk } from '../lib/daemon.mjs';

const shared = process.env.ARIADNE_SHARED_DATA || join(sourceDir, '..', 'shared', 'data');
const MARDI = join(shared, 'pajeng', 'traces', 'simu-mardi.trace');
const MARDI_TESH = join(shared, 'pajeng', 'tests', 'pj_dump_simu-mardi.tesh');
const MPI_RUN = join(shared, 'starpu', 'mpi_chol_dmdas_4ranks_N11520_nb24_slowrank1_nice2');
const noMardi = existsSync(MARDI) && existsSync(MARDI_TESH) ? false : `no ${MARDI}`;
const noMpi = existsSync(MPI_RUN) ? false : `no ${MPI_RUN}`;

let d;
const ids = {};

before(async () => {
  d = await startDaemon();
  ids.basic = importCli(d.db, join(sourceDir, 'tests', 'fixtures', 'paje', 'basic.trace'), 'basic');
  if (!noMardi) ids.mardi = importCli(d.db, MARDI, 'simu-mardi');
  if (!noMpi) ids.mpi = importCli(d.db, MPI_RUN, 'mpi');
});

after(async () => {
  if (d) await d.stop();
});

const get = (path) => getOk(d.url, `/api/v1${path}`);

async function status(path) {
  const r = await fetch(`${d.url}/api/v1${path}`);
  return { status: r.status, body: await r.json() };
}

// All rows of a trace, every state listed (no level of detail); each row
// gets its page's values (value indices are per answer).
async function allRows(id, extra = '') {
  const rows = [];
  let doc;
  for (let offset = 0; ; offset += 50) {
    doc = await get(`/traces/${id}/states?limit=50&offset=${offset}&width=4000&max_states=1000000${extra}`);
    for (const r of doc.rows) rows.push({ ...r, values: doc.values });
    if (offset + 50 >= doc.total_rows) break;
  }
  return { doc, rows };
}

test('simu-mardi: State counts per container and type equal pj_dump\'s (.tesh)', { skip: noMardi }, async () => {
  const want = new Map();
  for (const line of readFileSync(MARDI_TESH, 'utf8').split('\n')) {
    const m = /^> State, "([^"]*)", ([^,]+), /.exec(line);
    if (m) want.set(`${m[1]}|${m[2]}`, (want.get(`${m[1]}|${m[2]}`) || 0) + 1);
  }
  assert.ok(want.size > 0, 'the oracle lists states');
  const { doc, rows } = await allRows(ids.mardi);
  assert.equal(doc.time_unit, 's');
  assert.equal(doc.time_origin, 0);
  assert.equal(doc.start, 0);
  assert.equal(doc.end, 1205);
  const got = new Map();
  for (const r of rows) {
    assert.equal(r.mode, 'states');
    assert.equal(r.states.length, r.count);
    got.set(`${r.name}|${r.type}`, r.count);
    assert.match(r.path, / \/ /, 'a path in the container hierarchy');
    for (const [v, depth, s, e] of r.states) {
      assert.ok(v >= 0 && v < r.values.length && depth >= 0 && depth <= r.max_depth && e >= s);
    }
  }
  assert.deepEqual([...got.entries()].sort(), [...want.entries()].sort());
  const total = [...got.values()].reduce((a, b) => a + b, 0);
  assert.equal(total, 13620);
  const names = rows.flatMap((r) => r.values.map((v) => v.name));
  assert.ok(names.includes('normal') || names.includes('free'), names.join(','));
});

test('simu-mardi: the per-pixel level of detail keeps the time of each depth', { skip: noMardi }, async () => {
  const doc = await get(`/traces/${ids.mardi}/states?width=50&limit=10`);
  assert.equal(doc.width, 50);
  assert.equal(doc.rows.length, 10);
  const px = doc.rows.filter((r) => r.mode === 'pixels');
  assert.ok(px.length > 0, 'rows with more states than pixels are aggregated');
  for (const r of px) {
    const sum = new Map();
    for (const [p, depth, v, share] of r.pixels) {
      assert.ok(p >= 0 && p < 50 && v >= 0 && v < doc.values.length && share > 0 && share <= 1);
      const k = `${p}|${depth}`;
      sum.set(k, (sum.get(k) || 0) + share);
    }
    for (const s of sum.values()) assert.ok(s <= 1 + 1e-9, `shares of a column and depth sum to ${s}`);
  }
  // a window: only what overlaps it
  const w = await get(`/traces/${ids.mardi}/states?start=300&end=310&limit=5&max_states=100000`);
  for (const r of w.rows) for (const [, , s, e] of r.states) assert.ok(s <= 310 && e >= 300);
});

test('a StarPU-MPI run: worker containers hold Sleeping states; rows filtered by container', { skip: noMpi }, async () => {
  const gantt = await get(`/traces/${ids.mpi}/gantt?width=100`);
  const workers = gantt.rows.map((r) => r.id);
  assert.equal(workers.length, 4);
  const doc = await get(`/traces/${ids.mpi}/states?containers=${workers.join(',')}&width=2000`);
  assert.equal(doc.total_rows, 4);
  assert.equal(doc.time_unit, 'ms');
  assert.ok(doc.time_origin > 0, 'the origin subtracted from the file times');
  const sleeping = doc.values.findIndex((v) => v.name === 'Sleeping');
  assert.ok(sleeping >= 0, doc.values.map((v) => v.name).join(','));
  for (const r of doc.rows) {
    assert.ok(workers.includes(r.container_id));
    assert.match(r.path, /CPU0$/);
    const has = r.mode === 'states' ? r.states.some((s) => s[0] === sleeping) : r.pixels.some((c) => c[2] === sleeping);
    assert.ok(has, `${r.path} sleeps`);
  }
});

// Links in a Paje file: PajeStartLink and PajeEndLink events paired by key.
function countLinks(text) {
  const defs = new Map(); // event id -> {kind, keyIndex}
  let cur = null;
  const starts = new Set(), ends = new Set();
  for (const line of text.split('\n')) {
    if (line.startsWith('%')) {
      const f = line.slice(1).trim().split(/\s+/);
      if (f[0] === 'EventDef') { cur = { kind: f[1], fields: [] }; defs.set(f[2], cur); } else if (f[0] === 'EndEventDef') cur = null;
      else if (cur) cur.fields.push(f[0]);
      continue;
    }
    const f = line.match(/"[^"]*"|\S+/g);
    if (!f) continue;
    const def = defs.get(f[0]);
    if (!def || (def.kind !== 'PajeStartLink' && def.kind !== 'PajeEndLink')) continue;
    const key = f[1 + def.fields.indexOf('Key')];
    (def.kind === 'PajeStartLink' ? starts : ends).add(key);
  }
  return [...starts].filter((k) => ends.has(k)).length;
}

test('a StarPU-MPI run: its links, counted from the paje.trace text', { skip: noMpi }, async () => {
  const want = countLinks(readFileSync(join(MPI_RUN, 'paje.trace'), 'utf8'));
  assert.equal(want, 673, 'the issue counts 673 links');
  const all = await get(`/traces/${ids.mpi}/links`);
  assert.equal(all.total, want);
  assert.equal(all.count, want);
  assert.equal(all.truncated, false);
  // the ranks' clocks differ: some links end (on the receiver) before they start
  for (const l of all.links) {
    assert.ok(Number.isFinite(l.start) && Number.isFinite(l.end));
    assert.match(l.from.name, /^\d_mpict$/);
    assert.equal(l.from.node, Number(l.from.name[0]));
    assert.equal(l.to.node, Number(l.to.name[0]));
  }
  const few = await get(`/traces/${ids.mpi}/links?limit=10`);
  assert.equal(few.count, 10);
  assert.equal(few.truncated, true);
  const mid = all.links[300];
  const win = await get(`/traces/${ids.mpi}/links?start=${mid.start}&end=${mid.start + 50}`);
  assert.ok(win.total < want && win.total >= 1);
  for (const l of win.links) assert.ok(l.start < mid.start + 50 && l.end >= mid.start);
});

test('a Paje fixture: nested states carry their depth; paging', async () => {
  const { doc, rows } = await allRows(ids.basic);
  assert.ok(doc.total_rows >= 1 && rows.length === doc.total_rows);
  const page = await get(`/traces/${ids.basic}/states?limit=1&offset=0`);
  assert.equal(page.rows.length, 1);
  assert.equal(page.total_rows, doc.total_rows);
  const beyond = await get(`/traces/${ids.basic}/states?offset=${doc.total_rows}`);
  assert.equal(beyond.rows.length, 0);
});

test('bad parameters are refused with a message naming them', async () => {
  for (const [q, name] of [['width=5000', 'width'], ['width=0', 'width'], ['limit=0', 'limit'], ['start=5&end=1', 'end'],
    ['containers=a,b', 'containers'], ['types=-1', 'types'], ['offset=-1', 'offset']]) {
    const r = await status(`/traces/${ids.basic}/states?${q}`);
    assert.equal(r.status, 400, q);
    assert.match(r.body.error.message, new RegExp(name), q);
  }
  assert.equal((await status('/traces/99999/states')).status, 404);
  assert.equal((await status('/traces/99999/links')).status, 404);
  assert.equal((await status(`/traces/${ids.basic}/links?limit=0`)).status, 400);
});
