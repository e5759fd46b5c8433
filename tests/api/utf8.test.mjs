// utf8.test.mjs: text that is not UTF-8 never reaches the database as is:
// upload file names (multipart filename bytes, ?filename=), trace names
// (the `name` field and ?name=), Paje container and state names, StarPU
// task types and worker names, and `ariadned import` of a file whose name
// is not UTF-8. Everything imports with U+FFFD in place of the bad bytes;
// every answer is valid UTF-8 JSON; the trace list keeps every trace; the
// Gantt's type indices stay inside its `types`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, readFileSync, readdirSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ariadned, sourceDir, startDaemon, waitJob, importedTrace, scratchDb, backendName } from '../lib/daemon.mjs';
import { call, acceptedJob, makeTar, uploadRaw, stopClean, sqlite } from '../fixtures/api/util.mjs';

const FFFD = '\uFFFD';
const strict = new TextDecoder('utf-8', { fatal: true });
let d, dir;

before(async () => {
  d = await startDaemon();
  dir = mkdtempSync(join(tmpdir(), 'ariadne-utf8-'));
});
after(async () => {
  if (d) await stopClean(d);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// GET that insists on valid UTF-8 (fetch's text() would hide bad bytes
// behind U+FFFD) and valid JSON.
async function getStrict(path) {
  const r = await fetch(d.url + path);
  const bytes = new Uint8Array(await r.arrayBuffer());
  let text;
  assert.doesNotThrow(() => { text = strict.decode(bytes); }, `${path}: the answer is not UTF-8`);
  assert.equal(r.status, 200, `${path}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

// A multipart/form-data body written byte by byte, so that the field and
// the filename can hold bytes that are not UTF-8.
function multipart(parts) {
  const boundary = 'ariadneUtf8Boundary';
  const chunks = [];
  for (const p of parts) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${p.field}"`, 'latin1'));
    if (p.filename) chunks.push(Buffer.from('; filename="', 'latin1'), p.filename, Buffer.from('"', 'latin1'));
    chunks.push(Buffer.from('\r\n', 'latin1'));
    if (p.filename) chunks.push(Buffer.from('Content-Type: application/octet-stream\r\n', 'latin1'));
    chunks.push(Buffer.from('\r\n', 'latin1'), p.data, Buffer.from('\r\n', 'latin1'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`, 'latin1'));
  return { body: Buffer.concat(chunks), type: `multipart/form-data; boundary=${boundary}` };
}

const imported = (res, what) => importedTrace(d.url, res, what);

const basic = () => readFileSync(join(sourceDir, 'tests/fixtures/paje/basic.trace'));

// The hand-made StarPU bundle with task types and a worker name made
// invalid: "dgemm" and "dtrsm" become "dg\xffemm" and "dg\xfeemm" (one type
// once repaired), "0_CPU0" becomes "0_CPU\xe90".
function badBundle() {
  const bundle = join(sourceDir, 'tests/fixtures/starpu/bundle');
  const swap = (buf, from, to) => {
    let s = buf.toString('latin1');
    s = s.split(from).join(to);
    return Buffer.from(s, 'latin1');
  };
  return readdirSync(bundle).sort().map((name) => {
    let data = readFileSync(join(bundle, name));
    data = swap(data, 'dgemm', 'dg\xffemm');
    data = swap(data, 'dtrsm', 'dg\xfeemm');
    data = swap(data, '0_CPU0', '0_CPU\xe90');
    return { name: `run1/${name}`, data };
  });
}

test('invalid UTF-8 in upload names, Paje and StarPU names imports as U+FFFD', async () => {
  const ids = [];
  // multipart: the `name` field and the filename, as raw bytes
  const mp = multipart([
    { field: 'name', data: Buffer.from('r\xe9sum\xe9 \xf0\x9f\x98', 'latin1') },
    { field: 'file', filename: Buffer.from('caf\xe9.trace', 'latin1'), data: basic() },
  ]);
  const r1 = await call(d.url, '/api/v1/traces', { method: 'POST', body: mp.body, headers: { 'Content-Type': mp.type } });
  ids.push(await imported(r1, 'multipart with bad bytes'));
  // raw body: ?filename= and ?name= percent-encoding bytes that are not UTF-8
  const r2 = await call(d.url, '/api/v1/traces?filename=%E9t%E9.trace&name=%FF%FEtrace%C3&allow_duplicate=true', {
    method: 'POST', body: basic(), headers: { 'Content-Type': 'application/octet-stream' } });
  ids.push(await imported(r2, 'raw upload with bad bytes'));
  // the name from the file name alone
  const r3 = await call(d.url, '/api/v1/traces?filename=%E9t%E9.trace&allow_duplicate=true', {
    method: 'POST', body: basic(), headers: { 'Content-Type': 'application/octet-stream' } });
  ids.push(await imported(r3, 'raw upload named by its file'));
  // Paje names
  const paje = readFileSync(join(sourceDir, 'tests/fixtures/paje/bad_utf8.trace'));
  ids.push(await imported(await uploadRaw(d.url, paje, { filename: 'bad_utf8.trace' }), 'bad_utf8.trace'));
  // StarPU task types and worker names
  const bundleId = await imported(await uploadRaw(d.url, makeTar(badBundle()), { filename: 'run1.tar' }), 'bundle');
  ids.push(bundleId);

  const list = await getStrict('/api/v1/traces?limit=100');
  assert.equal(list.total, ids.length, 'every trace is listed');
  const byId = new Map(list.traces.map((t) => [t.id, t]));
  assert.equal(byId.get(ids[0]).name, `r${FFFD}sum${FFFD} ${FFFD}`);
  assert.equal(byId.get(ids[1]).name, `${FFFD}${FFFD}trace${FFFD}`);
  assert.equal(byId.get(ids[2]).name, `${FFFD}t${FFFD}`);
  for (const id of ids) await getStrict(`/api/v1/traces/${id}`);
  const first = await getStrict(`/api/v1/traces/${ids[0]}`);
  assert.deepEqual(first.files.map((f) => f.name), [`caf${FFFD}.trace`]);

  // Paje: the two values that differ only in a bad byte are one name.
  const pajeTrace = await getStrict(`/api/v1/traces/${ids[3]}`);
  assert.equal(pajeTrace.counts.containers, 4);

  // Gantt: every type index points into `types`, which are distinct.
  const g = await getStrict(`/api/v1/traces/${bundleId}/gantt?width=1000&max_tasks=1000000`);
  assert.ok(g.types.includes(`dg${FFFD}emm`), JSON.stringify(g.types));
  assert.equal(new Set(g.types).size, g.types.length, 'types are distinct');
  let tasks = 0;
  for (const row of g.rows) {
    for (const t of row.tasks) {
      assert.ok(Number.isInteger(t.type) && t.type >= 0 && t.type < g.types.length, `type ${t.type} of ${g.types.length}`);
      tasks++;
    }
  }
  const bundleTrace = await getStrict(`/api/v1/traces/${bundleId}`);
  assert.equal(tasks, bundleTrace.summary.tasks, 'every task is in the gantt');
  assert.ok(g.rows.some((r) => r.name.includes(`CPU${FFFD}0`)), 'the worker keeps its repaired name');
  for (const path of ['bounds', 'critical_path', 'aggregation']) {
    const r = await fetch(`${d.url}/api/v1/traces/${bundleId}/${path}`);
    const bytes = new Uint8Array(await r.arrayBuffer());
    assert.doesNotThrow(() => JSON.parse(strict.decode(bytes)), path);
  }
});

test('a failed job whose message quotes bad bytes is valid JSON', async () => {
  const res = await call(d.url, '/api/v1/traces?filename=%FFjunk.bin', {
    method: 'POST', body: Buffer.from([0x01, 0x02, 0xff, 0x00, 0x33]), headers: { 'Content-Type': 'application/octet-stream' } });
  const job = acceptedJob(res, 'junk');
  await waitJob(d.url, job.id);
  const done = await getStrict(`/api/v1/jobs/${job.id}`);
  assert.equal(done.status, 'failed');
  assert.ok(done.error.message.startsWith(`${FFFD}junk.bin: `), done.error.message);
});

test('ariadned import of a file whose name is not UTF-8', () => {
  const own = mkdtempSync(join(dir, 'cli-'));
  const path = Buffer.concat([Buffer.from(own + '/'), Buffer.from('caf\xe9 \xc0\xaf.trace', 'latin1')]);
  copyFileSync(join(sourceDir, 'tests/fixtures/paje/basic.trace'), path);
  const db = scratchDb(dir, 'cli.db');
  // node would turn the bytes of an argument into UTF-8: let the shell's glob pass them.
  const run = () => spawnSync('sh', ['-c', 'exec "$0" import --quiet --allow-duplicate --db "$1" "$2"/*.trace', ariadned, db, own],
    { encoding: 'buffer' });
  const r = run();
  assert.equal(r.status, 0, `status ${r.status} signal ${r.signal}: ${r.stderr}`);
  const line = JSON.parse(strict.decode(r.stdout).trim());
  assert.equal(line.name, `caf${FFFD} ${FFFD}${FFFD}`);
  const again = run();
  assert.equal(again.status, 0, String(again.stderr));
  const list = backendName() === 'postgresql' ? 'json_valid(json_agg(name)::text)::int' : 'json_valid(json_group_array(name))';
  assert.equal(sqlite(db, `SELECT count(*), ${list} FROM traces;`), '2|1', 'two imports, two traces, a valid list');
  assert.equal(sqlite(db, 'SELECT DISTINCT name FROM trace_files;'), `caf${FFFD} ${FFFD}${FFFD}.trace`);
});
