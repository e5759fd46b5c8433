// traces.test.mjs: GET /api/v1/traces (pagination, filters, sort, bad
// values), GET/PATCH/DELETE /api/v1/traces/{id} with good and bad requests.
// The traces are seeded straight into the daemon's database with the sqlite3
// shell (schema: sql/001_init.sql), so these tests do not depend on readers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon } from '../lib/daemon.mjs';
import { call, getJson, sendJson, assertError, assertOkJson, sqlite, stopClean, integrityCheck } from '../fixtures/api/util.mjs';

const SEED = [
  // name, kind, format, created_at second, bytes
  ['alpha chol', 'tasks', 'starpu', 1, 500],
  ['beta lu', 'tasks', 'paje', 2, 100],
  ['gamma_qr', 'profile', 'hpctoolkit', 3, 700],
  ['delta', 'pdes', 'ross', 4, 300],
  ['epsilon CHOL', 'tasks', 'starpu', 5, 900],
  ['zeta', 'datamove', 'dmtracker', 6, 200],
  ['eta', 'profile', 'caliper', 7, 600],
];

let d;
const ids = {};
before(async () => {
  d = await startDaemon();
  const rows = SEED.map(([name, kind, format, s, bytes]) =>
    `('${name}','${kind}','${format}','2026-01-01T00:00:0${s}Z',${bytes},'${'ab'.repeat(32)}','ms','seeded',` +
    `'{"containers":3,"states":${s}}','{"makespan":${s}.5}')`).join(',');
  sqlite(d.db, `INSERT INTO traces(name,kind,format,created_at,bytes,sha256,time_unit,description,counts_json,summary_json) VALUES ${rows};`);
  for (const line of sqlite(d.db, 'SELECT id, name FROM traces;').split('\n')) {
    const [id, name] = line.split('|');
    ids[name] = Number(id);
  }
  sqlite(d.db, `INSERT INTO trace_files(trace_id,name,bytes,sha256,role) VALUES
    (${ids['alpha chol']},'paje.trace',400,'${'cd'.repeat(32)}','paje'),
    (${ids['alpha chol']},'tasks.rec',100,'${'ef'.repeat(32)}','tasks');`);
});
after(async () => { if (d) await stopClean(d); });

const list = async (qs) => {
  const r = await getJson(d.url, '/api/v1/traces' + qs);
  assertOkJson(r, 200, `GET /api/v1/traces${qs}`);
  return r.json;
};
const names = (body) => body.traces.map((t) => t.name);
const byCreatedDesc = () => [...SEED].sort((a, b) => b[3] - a[3]).map((s) => s[0]);

test('list: default page, shape of a listed trace', async () => {
  const b = await list('');
  assert.equal(b.total, SEED.length);
  assert.equal(b.limit, 50);
  assert.equal(b.offset, 0);
  assert.deepEqual(names(b), byCreatedDesc(), 'default sort is -created_at');
  const t = b.traces.find((x) => x.name === 'alpha chol');
  assert.equal(t.id, ids['alpha chol']);
  assert.equal(t.kind, 'tasks');
  assert.equal(t.format, 'starpu');
  assert.equal(t.created_at, '2026-01-01T00:00:01Z');
  assert.equal(t.bytes, 500);
  assert.equal(t.sha256, 'ab'.repeat(32));
  assert.equal(t.time_unit, 'ms');
  assert.equal(t.description, 'seeded');
  assert.deepEqual(t.counts, { containers: 3, states: 1 });
  assert.ok(!('files' in t), 'the list omits files');
  assert.ok(!('summary' in t), 'the list omits summary');
});

test('list: limit and offset paginate without overlap', async () => {
  const all = names(await list('?limit=1000'));
  assert.equal(all.length, SEED.length);
  const seen = [];
  for (let off = 0; off < SEED.length; off += 3) {
    const b = await list(`?limit=3&offset=${off}`);
    assert.equal(b.total, SEED.length);
    assert.equal(b.limit, 3);
    assert.equal(b.offset, off);
    assert.equal(b.traces.length, Math.min(3, SEED.length - off));
    seen.push(...names(b));
  }
  assert.deepEqual(seen, all);
  const one = await list('?limit=1');
  assert.deepEqual(names(one), [all[0]]);
  const past = await list(`?offset=${SEED.length}`);
  assert.deepEqual(past.traces, []);
  assert.equal(past.total, SEED.length);
  assert.deepEqual((await list('?offset=1000000')).traces, []);
});

test('list: filter by kind and by name (case-insensitive substring)', async () => {
  const tasks = await list('?kind=tasks');
  assert.equal(tasks.total, 3);
  assert.deepEqual(names(tasks), ['epsilon CHOL', 'beta lu', 'alpha chol']);
  assert.equal((await list('?kind=profile')).total, 2);
  assert.deepEqual(names(await list('?kind=pdes')), ['delta']);
  assert.deepEqual(names(await list('?kind=datamove')), ['zeta']);

  assert.deepEqual(names(await list('?name=chol')), ['epsilon CHOL', 'alpha chol']);
  assert.deepEqual(names(await list('?name=CHOL')), ['epsilon CHOL', 'alpha chol']);
  assert.deepEqual(names(await list('?name=ChOl&kind=tasks&limit=1&offset=1')), ['alpha chol']);
  assert.equal((await list('?name=ChOl&kind=tasks&limit=1&offset=1')).total, 2);
  assert.deepEqual(names(await list('?name=eta')), ['eta', 'zeta', 'beta lu']);
  assert.deepEqual(names(await list('?name=a%20l')), ['beta lu']);
  assert.deepEqual(names(await list('?name=a%20c')), ['alpha chol']);
  assert.equal((await list('?name=nothing-like-this')).total, 0);
  // SQL LIKE wildcards are plain characters in a substring search.
  assert.deepEqual(names(await list('?name=_')), ['gamma_qr']);
  assert.deepEqual(names(await list('?name=%25')), []);
  assert.deepEqual(names(await list("?name=%27")), [], 'a quote is just a character');
  assert.equal((await list('?name=')).total, SEED.length, 'an empty name filters nothing');
});

test('list: sort orders', async () => {
  const sorted = (key, dir) => [...SEED].sort((a, b) => (a[key] < b[key] ? -dir : a[key] > b[key] ? dir : 0)).map((s) => s[0]);
  assert.deepEqual(names(await list('?sort=name')), sorted(0, 1));
  assert.deepEqual(names(await list('?sort=-name')), sorted(0, -1));
  assert.deepEqual(names(await list('?sort=bytes')), sorted(4, 1));
  assert.deepEqual(names(await list('?sort=-bytes')), sorted(4, -1));
  assert.deepEqual(names(await list('?sort=created_at')), sorted(3, 1));
  assert.deepEqual(names(await list('?sort=-created_at')), sorted(3, -1));
  assert.deepEqual(names(await list('?sort=bytes&kind=tasks&limit=2')), ['beta lu', 'alpha chol']);
});

test('list: bad parameters are 400 invalid_parameter', async () => {
  const wrong = [];
  for (const qs of ['limit=0', 'limit=1001', 'limit=-1', 'limit=abc', 'limit=1.5', 'limit=', 'limit=10x',
    'limit=99999999999999999999', 'limit=%2010', 'limit=10%20', 'limit=%FF', 'sort=%C3%28', 'offset=-1', 'offset=x', 'offset=1e3', 'offset=99999999999999999999999',
    'kind=bogus', 'kind=', 'sort=bogus', 'sort=id', 'sort=--name', 'sort=']) {
    const r = await getJson(d.url, '/api/v1/traces?' + qs);
    if (r.status !== 400 || r.json?.error?.code !== 'invalid_parameter') wrong.push(`?${qs} -> ${r.status}`);
    else assertError(r, 400, 'invalid_parameter');
  }
  assert.deepEqual(wrong, [], 'GET /api/v1/traces with these queries must give 400 invalid_parameter');
});

test('GET /traces/{id}: the full trace, files and summary', async () => {
  const r = await getJson(d.url, `/api/v1/traces/${ids['alpha chol']}`);
  assertOkJson(r);
  const t = r.json;
  assert.equal(t.id, ids['alpha chol']);
  assert.equal(t.name, 'alpha chol');
  assert.equal(t.kind, 'tasks');
  assert.equal(t.bytes, 500);
  assert.deepEqual(t.counts, { containers: 3, states: 1 });
  assert.deepEqual(t.summary, { makespan: 1.5 });
  assert.ok(Array.isArray(t.files));
  assert.deepEqual(t.files.map((f) => [f.name, f.bytes]), [['paje.trace', 400], ['tasks.rec', 100]]);
  const other = await getJson(d.url, `/api/v1/traces/${ids.zeta}`);
  assertOkJson(other);
  assert.deepEqual(other.json.files, []);
});

// Not positive integers (%20 and %09: a space or a tab). They name no seeded
// trace even when read leniently, so a lenient server deletes nothing here.
const BAD_IDS = ['abc', '0', '-1', '999999.5', '999999abc', '0x10', '%20999999', '%09999999', '999999%20', '1e3', '-0'];

test('bad and unknown trace ids: GET, PATCH, DELETE', async () => {
  const wrong = [];
  const expect = async (what, res, status, code) => {
    if (res.status !== status || res.json?.error?.code !== code) wrong.push(`${what} -> ${res.status} ${res.text.slice(0, 80)}`);
  };
  for (const id of BAD_IDS) {
    await expect(`GET /traces/${id}`, await getJson(d.url, `/api/v1/traces/${id}`), 400, 'invalid_parameter');
    await expect(`PATCH /traces/${id}`, await sendJson(d.url, 'PATCH', `/api/v1/traces/${id}`, { description: 'x' }), 400, 'invalid_parameter');
  }
  for (const id of BAD_IDS) {
    await expect(`DELETE /traces/${id}`, await call(d.url, `/api/v1/traces/${id}`, { method: 'DELETE' }), 400, 'invalid_parameter');
  }
  assert.deepEqual(wrong, [], 'ids that are not positive integers must give 400 invalid_parameter');
  assert.equal((await list('')).total, SEED.length, 'no trace deleted by a bad id');
  for (const id of ['99999999999999999999', '9223372036854775808']) {
    // Out of the id range: either "not a valid id" or "no such trace".
    const r = await getJson(d.url, `/api/v1/traces/${id}`);
    assert.ok(r.status === 400 || r.status === 404, `GET /traces/${id} -> ${r.status}`);
    assertError(r, r.status, r.status === 400 ? 'invalid_parameter' : 'not_found');
  }
  assertError(await getJson(d.url, '/api/v1/traces/999999'), 404, 'not_found', 'GET /traces/999999');
  assertError(await getJson(d.url, '/api/v1/traces/9223372036854775807'), 404, 'not_found', 'GET max int64');
  assertError(await sendJson(d.url, 'PATCH', '/api/v1/traces/999999', { name: 'x' }), 404, 'not_found', 'PATCH 999999');
  assertError(await call(d.url, '/api/v1/traces/999999', { method: 'DELETE' }), 404, 'not_found', 'DELETE 999999');
});

test('PATCH /traces/{id}: name and description', async () => {
  const id = ids.delta;
  let r = await sendJson(d.url, 'PATCH', `/api/v1/traces/${id}`, { name: 'delta renamed' });
  assertOkJson(r);
  assert.equal(r.json.id, id);
  assert.equal(r.json.name, 'delta renamed');
  assert.equal(r.json.description, 'seeded');
  r = await sendJson(d.url, 'PATCH', `/api/v1/traces/${id}`, { description: 'a 3-line\ndescription "quoted" ☕' });
  assertOkJson(r);
  assert.equal(r.json.name, 'delta renamed');
  r = await sendJson(d.url, 'PATCH', `/api/v1/traces/${id}`, { name: 'café ☕ δ', description: '' },
    { 'Content-Type': 'application/json; charset=utf-8' });
  assertOkJson(r);
  const g = await getJson(d.url, `/api/v1/traces/${id}`);
  assert.equal(g.json.name, 'café ☕ δ');
  assert.equal(g.json.description, '');
  assertOkJson(await sendJson(d.url, 'PATCH', `/api/v1/traces/${id}`, {}), 200, 'empty object changes nothing');
  assertOkJson(await sendJson(d.url, 'PATCH', `/api/v1/traces/${id}`, { name: 'n'.repeat(200) }), 200, '200 × n');
  assert.equal((await getJson(d.url, `/api/v1/traces/${id}`)).json.name, 'n'.repeat(200));
  // 200 characters is the limit, counted in characters, not bytes.
  assertOkJson(await sendJson(d.url, 'PATCH', `/api/v1/traces/${id}`, { name: '☕'.repeat(200) }), 200, '200 × ☕ (600 bytes)');
  assert.equal((await getJson(d.url, `/api/v1/traces/${id}`)).json.name, '☕'.repeat(200));
  assertError(await sendJson(d.url, 'PATCH', `/api/v1/traces/${id}`, { name: '☕'.repeat(201) }), 400, 'invalid_parameter', '201 × ☕');
});

test('PATCH /traces/{id}: bad bodies', async () => {
  const id = ids.eta;
  const path = `/api/v1/traces/${id}`;
  const bad = (body, status, code, what, headers) => sendJson(d.url, 'PATCH', path, body, headers)
    .then((r) => assertError(r, status, code, what));
  await bad({ name: '' }, 400, 'invalid_parameter', 'empty name');
  await bad({ name: 'n'.repeat(201) }, 400, 'invalid_parameter', '201-char name');
  await bad({ name: 42 }, 400, 'invalid_parameter', 'numeric name');
  await bad({ name: null }, 400, 'invalid_parameter', 'null name');
  await bad({ description: ['x'] }, 400, 'invalid_parameter', 'array description');
  await bad({ name: 'ok', color: 'red' }, 400, ['invalid_parameter', 'invalid_json'], 'unknown field');
  await bad({ id: 5 }, 400, ['invalid_parameter', 'invalid_json'], 'id is not writable');
  await bad('{"name":', 400, 'invalid_json', 'truncated JSON');
  await bad('', 400, 'invalid_json', 'empty body');
  await bad('[1,2]', 400, 'invalid_json', 'array body');
  await bad('"name"', 400, 'invalid_json', 'string body');
  await bad('{"name":"a"} trailing', 400, 'invalid_json', 'trailing garbage');
  await bad(Buffer.from([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), 400,
    ['invalid_json', 'invalid_parameter'], 'invalid UTF-8');
  await bad({ name: 'x' }, 415, 'unsupported_media_type', 'text/plain', { 'Content-Type': 'text/plain' });
  await bad({ name: 'x' }, 415, 'unsupported_media_type', 'form', { 'Content-Type': 'application/x-www-form-urlencoded' });
  const noType = await call(d.url, path, { method: 'PATCH', body: new Blob(['{"name":"x"}']) });
  assertError(noType, 415, 'unsupported_media_type', 'no Content-Type');
  const g = await getJson(d.url, path);
  assert.equal(g.json.name, 'eta', 'failed PATCHes changed nothing');
  assert.equal(g.json.description, 'seeded');
});

test('DELETE /traces/{id}: 204, then gone with its files', async () => {
  const id = ids['alpha chol'];
  const r = await call(d.url, `/api/v1/traces/${id}`, { method: 'DELETE' });
  assert.equal(r.status, 204);
  assert.equal(r.text, '');
  assertError(await getJson(d.url, `/api/v1/traces/${id}`), 404, 'not_found', 'GET after DELETE');
  assertError(await call(d.url, `/api/v1/traces/${id}`, { method: 'DELETE' }), 404, 'not_found', 'second DELETE');
  assertError(await sendJson(d.url, 'PATCH', `/api/v1/traces/${id}`, { name: 'x' }), 404, 'not_found', 'PATCH after DELETE');
  const b = await list('');
  assert.equal(b.total, SEED.length - 1);
  assert.ok(!b.traces.some((t) => t.id === id));
  assert.equal(sqlite(d.db, `SELECT count(*) FROM trace_files WHERE trace_id=${id};`), '0', 'trace_files rows are gone');
  assert.equal(integrityCheck(d.db), 'ok');
});
