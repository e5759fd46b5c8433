// copy.test.mjs: `ariadned copy` round-trips a database (issue 20's copy
// check). Fixtures of every kind are imported into an SQLite file (plus an
// ensemble, a token and an upload's job), copied into a middle database
// (PostgreSQL under $ARIADNE_TEST_PG / CTest's api_pg.copy, else a second
// SQLite file), and from there into a new SQLite file; the three are served
// and every GET endpoint of server/openapi.json, for every trace and
// ensemble (and /traces, /ensembles, /jobs, /tokens), must answer the same
// status and the same JSON value on all three. A copy into a destination
// that holds anything is refused, names what it holds, and changes nothing.
// Also `ariadned migrate`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  startDaemon, runCli, backendName, newPgDatabase, sourceDir, importedTrace,
} from '../lib/daemon.mjs';
import { getJson, uploadRaw, smallTrace, stopClean } from '../fixtures/api/util.mjs';

const backend = backendName();
const fixtures = join(sourceDir, 'tests', 'fixtures');
const openapi = JSON.parse(readFileSync(join(sourceDir, 'server', 'openapi.json'), 'utf8'));

// One `ariadned import` per entry (an entry's paths make one call).
const IMPORTS = [
  ['starpu/bundle'], ['starpu/starvz'], ['paje/quirks.trace'], ['profiles/small.cali'],
  ['profiles/hpctoolkit-small'], ['datamove/kineto_small.json', 'datamove/topology.xml'],
  ['metrics/long.csv'], ['metrics/ross'], ['projections'], ['hpctoolkit_db/tiny'],
];

let work;
let srcDb;
let midDb;
let backDb;
const daemons = {};

function cli(args, what) {
  const r = runCli(args);
  assert.equal(r.status, 0, `${what}: ${r.stderr}`);
  return r;
}

function copy(from, to) {
  return runCli(['copy', '--quiet', '--from', from, '--to', to]);
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'ariadne-copy-'));
  srcDb = join(work, 'source.db');
  for (const paths of IMPORTS) {
    cli(['import', '--db', srcDb, '--quiet', ...paths.map((p) => join(fixtures, p))], `import ${paths}`);
  }
  const ens = ['run-8.cali', 'run-27.cali', 'run-64.cali'].map((f) => join(fixtures, 'ensemble', f));
  cli(['import', '--db', srcDb, '--quiet', '--ensemble', 'copied ensemble', ...ens], 'import --ensemble');
  cli(['token', 'create', '--db', srcDb, '--name', 'copied token', '--scope', 'write'], 'token create');
  // An upload through a server leaves a job row.
  const d = await startDaemon({ db: srcDb });
  try {
    const up = await uploadRaw(d.url, smallTrace(), { filename: 'small.trace', name: 'uploaded' });
    await importedTrace(d.url, up, 'upload before the copy');
  } finally {
    await stopClean(d);
  }
  midDb = newPgDatabase() || join(work, 'middle.db');
  backDb = join(work, 'back.db');
});

after(async () => {
  for (const d of Object.values(daemons)) await stopClean(d);
  if (work) rmSync(work, { recursive: true, force: true });
});

test('ariadned migrate prints the schema version, and fails on a bad database', () => {
  const r = cli(['migrate', '--db', srcDb], 'migrate');
  const out = JSON.parse(r.stdout);
  assert.equal(out.database, srcDb, r.stdout);
  assert.ok(Number.isInteger(out.schema_version) && out.schema_version > 0, r.stdout);
  const bad = runCli(['migrate', '--db', 'postgresql://nobody@127.0.0.1:1/none']);
  assert.equal(bad.status, 1, `migrate on an unreachable server: ${bad.stdout}`);
  assert.match(bad.stderr, /ariadned migrate: error: .*127\.0\.0\.1/, bad.stderr);
  const junk = runCli(['migrate', '--db', join(work, 'no-such-dir', 'x.db')]);
  assert.equal(junk.status, 1, 'migrate in a missing directory');
  assert.match(junk.stderr, /ariadned migrate: error: /, junk.stderr);
});

test(`copy SQLite -> ${backend} -> SQLite`, () => {
  const a = copy(srcDb, midDb);
  assert.equal(a.status, 0, `copy into the middle database: ${a.stderr}`);
  const sum = JSON.parse(a.stdout);
  assert.ok(sum.tables > 20 && sum.rows > 1000, a.stdout);
  const b = copy(midDb, backDb);
  assert.equal(b.status, 0, `copy back into SQLite: ${b.stderr}`);
  assert.equal(JSON.parse(b.stdout).rows, sum.rows, `the same rows both ways: ${a.stdout} ${b.stdout}`);
});

// Drops what may differ between two daemons of one database.
function normalise(value) {
  if (Array.isArray(value)) return value.map(normalise);
  if (value && typeof value === 'object') {
    const out = {};
    for (const [k, v] of Object.entries(value)) if (k !== 'uptime_s') out[k] = normalise(v);
    return out;
  }
  return value;
}

async function answer(url, path) {
  const r = await getJson(url, path);
  let body = r.text;
  if (/json/.test(r.headers.get('content-type') || '')) {
    try { body = normalise(JSON.parse(r.text)); } catch { /* compared as text */ }
  }
  return { status: r.status, body };
}

// A value for a required query parameter: another trace for the ones that
// name a trace, a plausible name otherwise (the same on all three servers).
function queryFor(op, traceId) {
  const req = (op.parameters || []).filter((p) => p.in === 'query' && p.required);
  const values = { traces: `${traceId},${traceId}`, other: `${traceId}`, x: 'time', y: 'time', metric: 'time', base: '1' };
  return req.length ? '?' + req.map((p) => `${p.name}=${encodeURIComponent(values[p.name] ?? '1')}`).join('&') : '';
}

function getPaths(prefix) {
  return Object.entries(openapi.paths).filter(([p, v]) => v.get && p.startsWith(prefix)).map(([p, v]) => [p, v.get]);
}

test('the three databases answer every GET endpoint alike', async (t) => {
  assert.ok(midDb && backDb, 'the copies ran');
  daemons.src = await startDaemon({ db: srcDb });
  daemons.mid = await startDaemon({ db: midDb });
  daemons.back = await startDaemon({ db: backDb });
  const list = await getJson(daemons.src.url, '/api/v1/traces?limit=1000');
  assert.equal(list.status, 200, list.text);
  const traces = list.json.traces.map((x) => x.id);
  assert.ok(traces.length >= IMPORTS.length + 4, `traces: ${traces}`);
  const ens = await getJson(daemons.src.url, '/api/v1/ensembles');
  const ensembles = ens.json.ensembles.map((x) => x.id);
  assert.equal(ensembles.length, 1, ens.text);
  const jobs = await getJson(daemons.src.url, '/api/v1/jobs');
  const jobIds = jobs.json.jobs.map((x) => x.id);
  assert.ok(jobIds.length >= 1, jobs.text);

  const paths = ['/api/v1/traces', '/api/v1/traces?sort=name&limit=5', '/api/v1/ensembles', '/api/v1/jobs',
    '/api/v1/tokens', '/api/v1/topology'];
  for (const id of jobIds) paths.push(`/api/v1/jobs/${id}`);
  for (const id of traces) {
    for (const [p, op] of getPaths('/api/v1/traces/{id}')) {
      paths.push(p.replace('{id}', id).replace('{node}', '1') + queryFor(op, id));
    }
    paths.push(`/api/v1/compare?traces=${id},${traces[0]}`);
  }
  for (const id of ensembles) {
    for (const [p, op] of getPaths('/api/v1/ensembles/{id}')) {
      paths.push(p.replace('{id}', id).replace('{node}', '1') + queryFor(op, traces[0]));
    }
  }
  let ok200 = 0;
  const mismatches = [];
  for (const path of paths) {
    const [a, b, c] = await Promise.all([daemons.src, daemons.mid, daemons.back].map((d) => answer(d.url, path)));
    if (a.status === 200) ok200++;
    try {
      assert.equal(b.status, a.status, `${backend} status`);
      assert.equal(c.status, a.status, 'copied-back status');
      assert.deepStrictEqual(b.body, a.body, `${backend} body`);
      assert.deepStrictEqual(c.body, a.body, 'copied-back body');
    } catch (e) {
      mismatches.push(`${path}: ${e.message.split('\n')[0]} (${a.status}/${b.status}/${c.status})`);
    }
  }
  t.diagnostic(`${paths.length} requests, ${ok200} answered 200`);
  // Most endpoints serve one kind of trace (409 for the others); each trace
  // answers a few with 200.
  assert.ok(ok200 >= traces.length * 4, `requests answered 200: ${ok200} of ${paths.length}`);
  assert.deepEqual(mismatches, [], `answers differ:\n${mismatches.join('\n')}`);
});

test('a copy into a database that holds anything is refused and changes nothing', async () => {
  // A database with one token only.
  const lone = newPgDatabase() || join(work, 'lone.db');
  cli(['token', 'create', '--db', lone, '--name', 'already here'], 'token create');
  const r = copy(srcDb, lone);
  assert.equal(r.status, 1, `copy into a database holding a token: ${r.stdout}`);
  assert.match(r.stderr, /not empty: it holds 1 token\b/, r.stderr);
  const d = await startDaemon({ db: lone });
  try {
    const tr = await getJson(d.url, '/api/v1/traces');
    assert.equal(tr.json.total, 0, tr.text);
    const tk = await getJson(d.url, '/api/v1/tokens');
    assert.deepEqual(tk.json.tokens.map((k) => k.name), ['already here'], tk.text);
  } finally {
    await stopClean(d);
  }
  // The filled copies: refused, naming their traces.
  for (const [dst, d2] of [[midDb, daemons.mid], [backDb, daemons.back]]) {
    assert.ok(d2, 'the copies are served');
    const before = await getJson(d2.url, '/api/v1/traces?limit=1000');
    const again = copy(srcDb, dst);
    assert.equal(again.status, 1, `second copy into ${dst}`);
    assert.match(again.stderr, /not empty: it holds \d+ traces/, again.stderr);
    const after = await getJson(d2.url, '/api/v1/traces?limit=1000');
    assert.deepEqual(after.json, before.json);
  }
  const same = runCli(['copy', '--from', srcDb, '--to', srcDb]);
  assert.equal(same.status, 1, 'a copy onto itself');
});

test('a PostgreSQL copy keeps its source\'s trace ids past a deleted one', { skip: backend !== 'postgresql' && 'PostgreSQL only' }, async () => {
  // The middle database's last trace deleted: PostgreSQL's sequence stays
  // past its id. A copy of it must not give that id to its next trace.
  const d = daemons.mid;
  const list = await getJson(d.url, '/api/v1/traces?limit=1000');
  const last = Math.max(...list.json.traces.map((t) => t.id));
  const del = await fetch(`${d.url}/api/v1/traces/${last}`, { method: 'DELETE' });
  assert.ok(del.status < 300, `DELETE trace ${last}: ${del.status}`);
  const next = newPgDatabase();
  const r = copy(midDb, next);
  assert.equal(r.status, 0, `copy of the middle database: ${r.stderr}`);
  const imp = cli(['import', '--db', next, '--quiet', '--allow-duplicate', join(fixtures, 'paje', 'quirks.trace')],
    'import after the copy');
  const id = JSON.parse(imp.stdout.trim().split('\n')[0]).id;
  assert.ok(id > last, `the copy's next trace has id ${id}, the deleted one had ${last}`);
});
