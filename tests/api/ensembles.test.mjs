// ensembles.test.mjs: ensembles of profiles through the API and the CLI:
// create from trace ids (parameters read from each profile's metadata),
// list, read, patch (names, parameters), add and remove members, CSV of
// run -> parameters (unknown runs, malformed CSV with its line), refusals
// (a task trace, an absent ensemble, bad bodies), the write scope, and the
// cascades (a deleted trace leaves the ensemble, a deleted ensemble keeps
// its traces). `ariadned import --ensemble` on the project's fixtures and,
// when the shared data is present, on Thicket's 10 RAJAPerf trials.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { startDaemon, runCli, sourceDir, importCli, scratchDb } from '../lib/daemon.mjs';
import {
  call, getJson, sendJson, assertError, assertOkJson, smallTracePath, sqlite, stopClean,
} from '../fixtures/api/util.mjs';
import { rajaperfDir as rajaDir, haveRajaperf as haveRaja } from '../fixtures/api/ensembles.mjs';

const fixtures = join(sourceDir, 'tests', 'fixtures', 'ensemble');
const runs = ['run-8', 'run-27', 'run-64'];

let d;
const ids = {};

before(async () => {
  d = await startDaemon();
  for (const r of runs) ids[r] = importCli(d.db, join(fixtures, `${r}.cali`));
  ids.tasks = importCli(d.db, smallTracePath);
});
after(async () => { if (d) await stopClean(d); });

const postCsv = (id, text) => call(d.url, `/api/v1/ensembles/${id}/parameters`, {
  method: 'POST', headers: { 'Content-Type': 'text/csv' }, body: text,
});

async function create(name, members) {
  const res = await sendJson(d.url, 'POST', '/api/v1/ensembles', { name, members });
  assertOkJson(res, 201, `create ${name}`);
  assert.equal(res.headers.get('location'), `/api/v1/ensembles/${res.json.id}`);
  return res.json;
}

test('create: members in order, parameters from each profile\'s metadata', async () => {
  const e = await create('scaling', runs.map((r) => ids[r]));
  assert.equal(e.name, 'scaling');
  assert.equal(e.member_count, 3);
  assert.deepEqual(e.members.map((m) => m.trace_id), runs.map((r) => ids[r]));
  assert.deepEqual(e.members.map((m) => m.name), runs);
  assert.deepEqual(e.members.map((m) => m.parameters.jobsize), ['8', '27', '64']);
  assert.deepEqual(e.members.map((m) => m.parameters.problem_size), ['100', '100', '200']);
  assert.deepEqual(e.members.map((m) => m.parameters.variant), ['Base_Seq', 'Base_Seq', 'RAJA_Seq']);
  assert.equal(e.members[0].parameters.ranks, '2');
  assert.equal(e.members[0].sources.jobsize, 'metadata');
  assert.equal(e.members[0].parameters['cali.caliper.version'], undefined, 'Caliper bookkeeping left out');
  assert.deepEqual(e.numeric_parameters, ['jobsize', 'problem_size', 'ranks']);
  const variant = e.parameters.find((p) => p.key === 'variant');
  assert.deepEqual(variant, { key: 'variant', numeric: false, members: 3 });
  const got = await getJson(d.url, `/api/v1/ensembles/${e.id}`);
  assertOkJson(got);
  assert.deepEqual(got.json, e);
  const list = await getJson(d.url, '/api/v1/ensembles');
  assertOkJson(list);
  const item = list.json.ensembles.find((x) => x.id === e.id);
  assert.equal(item.member_count, 3);
  assert.equal(item.name, 'scaling');
  assert.equal(list.json.total, list.json.ensembles.length);
});

test('create refuses what it cannot make, and makes nothing', async () => {
  const before = (await getJson(d.url, '/api/v1/ensembles')).json.total;
  const tasks = await sendJson(d.url, 'POST', '/api/v1/ensembles', { name: 'x', members: [ids['run-8'], ids.tasks] });
  assertError(tasks, 400, 'invalid_parameter', 'a task trace');
  assert.match(tasks.json.error.message, /not a profile/);
  assertError(await sendJson(d.url, 'POST', '/api/v1/ensembles', { name: 'x', members: [987654] }), 400,
    'invalid_parameter', 'absent trace');
  assertError(await sendJson(d.url, 'POST', '/api/v1/ensembles', { members: [] }), 400, 'invalid_parameter', 'no name');
  assertError(await sendJson(d.url, 'POST', '/api/v1/ensembles', { name: '', members: [] }), 400, 'invalid_parameter');
  assertError(await sendJson(d.url, 'POST', '/api/v1/ensembles', { name: 'x', members: ['1'] }), 400,
    'invalid_parameter', 'a string id');
  assertError(await sendJson(d.url, 'POST', '/api/v1/ensembles', { name: 'x', extra: 1 }), 400, 'invalid_parameter');
  assertError(await sendJson(d.url, 'POST', '/api/v1/ensembles', {
    name: 'x', members: [ids['run-8'], ids['run-8']] }), 400, 'invalid_parameter', 'twice');
  assert.equal((await getJson(d.url, '/api/v1/ensembles')).json.total, before);
  const missing = await getJson(d.url, '/api/v1/ensembles/424242');
  assertError(missing, 404, 'not_found');
  assert.equal(missing.json.error.message, 'no ensemble 424242');
  assertError(await getJson(d.url, '/api/v1/ensembles/abc'), 400, 'invalid_parameter');
});

test('patch: rename, member names and parameters, all or nothing', async () => {
  const e = await create('edit', [ids['run-8'], ids['run-27']]);
  const res = await sendJson(d.url, 'PATCH', `/api/v1/ensembles/${e.id}`, {
    name: 'edited',
    members: [{ trace_id: ids['run-8'], name: 'small', parameters: { jobsize: 9, compiler: 'gcc', variant: null } },
      { trace_id: ids['run-27'], parameters: { ratio: 0.5, fast: true } }],
  });
  assertOkJson(res);
  assert.equal(res.json.name, 'edited');
  const [a, b] = res.json.members;
  assert.equal(a.name, 'small');
  assert.equal(a.parameters.jobsize, '9');
  assert.equal(a.sources.jobsize, 'user');
  assert.equal(a.parameters.compiler, 'gcc');
  assert.equal(a.parameters.variant, undefined);
  assert.equal(b.parameters.ratio, '0.5');
  assert.equal(b.parameters.fast, 'true');
  assert.equal(b.sources.jobsize, 'metadata');
  const bad = await sendJson(d.url, 'PATCH', `/api/v1/ensembles/${e.id}`, {
    name: 'never', members: [{ trace_id: ids['run-8'], parameters: { jobsize: 10 } }, { trace_id: ids['run-64'] , name: 'z' }],
  });
  assertError(bad, 400, 'invalid_parameter', 'a trace that is not a member');
  assert.match(bad.json.error.message, /not a member/);
  const after = (await getJson(d.url, `/api/v1/ensembles/${e.id}`)).json;
  assert.equal(after.name, 'edited');
  assert.equal(after.members[0].parameters.jobsize, '9');
  assertError(await sendJson(d.url, 'PATCH', `/api/v1/ensembles/${e.id}`, {
    members: [{ trace_id: ids['run-8'], parameters: { x: [1] } }] }), 400, 'invalid_parameter', 'array value');
  assertError(await sendJson(d.url, 'PATCH', `/api/v1/ensembles/${e.id}`, { members: [{ name: 'q' }] }), 400,
    'invalid_parameter', 'no trace_id');
  assertError(await sendJson(d.url, 'PATCH', '/api/v1/ensembles/424242', { name: 'q' }), 404, 'not_found');
});

test('members: add after the others, refuse other kinds, remove', async () => {
  const e = await create('grow', [ids['run-8']]);
  const added = await sendJson(d.url, 'POST', `/api/v1/ensembles/${e.id}/members`,
    { trace_ids: [ids['run-64'], ids['run-27']] });
  assertOkJson(added);
  assert.deepEqual(added.json.members.map((m) => m.trace_id), [ids['run-8'], ids['run-64'], ids['run-27']]);
  assert.equal(added.json.members[1].parameters.variant, 'RAJA_Seq');
  const tasks = await sendJson(d.url, 'POST', `/api/v1/ensembles/${e.id}/members`, { trace_ids: [ids.tasks] });
  assertError(tasks, 400, 'invalid_parameter');
  assert.match(tasks.json.error.message, /tasks trace, not a profile/);
  assertError(await sendJson(d.url, 'POST', '/api/v1/ensembles/424242/members', { trace_ids: [ids['run-8']] }), 404,
    'not_found');
  const del = await call(d.url, `/api/v1/ensembles/${e.id}/members/${ids['run-64']}`, { method: 'DELETE' });
  assert.equal(del.status, 204);
  assertError(await call(d.url, `/api/v1/ensembles/${e.id}/members/${ids['run-64']}`, { method: 'DELETE' }), 404,
    'not_found', 'removed twice');
  const now = (await getJson(d.url, `/api/v1/ensembles/${e.id}`)).json;
  assert.deepEqual(now.members.map((m) => m.trace_id), [ids['run-8'], ids['run-27']]);
  assertOkJson(await getJson(d.url, `/api/v1/traces/${ids['run-64']}`), 200, 'the removed trace stays');
});

test('parameters from a CSV: by name or trace id, unknown runs listed, errors with their line', async () => {
  const e = await create('csv', runs.map((r) => ids[r]));
  const csv = `run,threads,variant\nrun-8,4,\n${ids['run-27']},8,CUDA\n"run-64",16,RAJA\nnobody,1,x\n`;
  const res = await postCsv(e.id, csv);
  assertOkJson(res);
  assert.equal(res.json.rows, 4);
  assert.equal(res.json.matched, 3);
  assert.equal(res.json.parameters_set, 5);
  assert.deepEqual(res.json.unknown_runs, [{ line: 5, run: 'nobody' }]);
  const m = res.json.ensemble.members;
  assert.deepEqual(m.map((x) => x.parameters.threads), ['4', '8', '16']);
  assert.equal(m[0].parameters.variant, 'Base_Seq', 'an empty cell leaves the value');
  assert.equal(m[1].parameters.variant, 'CUDA');
  assert.equal(m[1].sources.variant, 'csv');
  assert.ok(res.json.ensemble.numeric_parameters.includes('threads'));
  for (const [text, line, what] of [
    ['run,a\nrun-8,1,2\n', 2, 'too many fields'],
    ['name,a\nrun-8,1\n', 1, 'no run column'],
    ['run\nrun-8\n', 1, 'no parameter column'],
    ['run,a,a\n', 1, 'a repeated column'],
    ['run,a\n"run-8,1\n', 2, 'an unterminated quote'],
    ['run,a\n,1\n', 2, 'an empty run'],
  ]) {
    const r = await postCsv(e.id, text);
    assertError(r, 400, 'invalid_csv', what);
    assert.match(r.json.error.message, new RegExp(`(line |:)${line}\\b`), `${what}: ${r.json.error.message}`);
  }
  const bom = await postCsv(e.id, '\uFEFFrun,threads\nrun-8,6\n');
  assertOkJson(bom, 200, 'a CSV with a byte order mark');
  assert.equal(bom.json.ensemble.members[0].parameters.threads, '6');
  const unchanged = (await getJson(d.url, `/api/v1/ensembles/${e.id}`)).json;
  assert.equal(unchanged.members[0].parameters.threads, '6');
  assertError(await postCsv(e.id, ''), 400, 'invalid_csv', 'empty');
  assertError(await postCsv(424242, 'run,a\nx,1\n'), 404, 'not_found');
});

test('deleting a trace removes it from ensembles; deleting an ensemble keeps its traces', async () => {
  const extra = importCli(d.db, join(fixtures, 'run-8.cali'), 'doomed');
  const e = await create('cascade', [ids['run-27'], extra]);
  assert.equal((await call(d.url, `/api/v1/traces/${extra}`, { method: 'DELETE' })).status, 204);
  const after = (await getJson(d.url, `/api/v1/ensembles/${e.id}`)).json;
  assert.deepEqual(after.members.map((m) => m.trace_id), [ids['run-27']]);
  assert.equal((await call(d.url, `/api/v1/ensembles/${e.id}`, { method: 'DELETE' })).status, 204);
  assertError(await getJson(d.url, `/api/v1/ensembles/${e.id}`), 404, 'not_found');
  assertError(await call(d.url, `/api/v1/ensembles/${e.id}`, { method: 'DELETE' }), 404, 'not_found');
  assertOkJson(await getJson(d.url, `/api/v1/traces/${ids['run-27']}`), 200, 'the member trace stays');
});

test('writes need the write scope', async () => {
  const w = await startDaemon({ args: ['--auth'] });
  try {
    const tok = (scope) => {
      const r = runCli(['token', 'create', '--db', w.db, '--name', scope, '--scope', scope]);
      assert.equal(r.status, 0, r.stderr);
      return r.stdout.match(/ari_[0-9a-f]{64}/)[0];
    };
    const read = { Authorization: `Bearer ${tok('read')}` };
    const write = { Authorization: `Bearer ${tok('write')}` };
    assertError(await sendJson(w.url, 'POST', '/api/v1/ensembles', { name: 'x' }, read), 403, 'forbidden');
    assertError(await sendJson(w.url, 'POST', '/api/v1/ensembles', { name: 'x' }), 401, 'unauthorized');
    const ok = await sendJson(w.url, 'POST', '/api/v1/ensembles', { name: 'x' }, write);
    assertOkJson(ok, 201);
    assertOkJson(await getJson(w.url, '/api/v1/ensembles', read));
    assertError(await call(w.url, `/api/v1/ensembles/${ok.json.id}/parameters`, {
      method: 'POST', headers: { 'Content-Type': 'text/csv', ...read }, body: 'run,a\n' }), 403, 'forbidden');
    assertError(await call(w.url, `/api/v1/ensembles/${ok.json.id}`, { method: 'DELETE', headers: read }), 403,
      'forbidden');
  } finally {
    await stopClean(w);
  }
});

function cliImport(db, args) {
  return runCli(['import', '--db', db, '--quiet', '--allow-duplicate', ...args]);
}

test('ariadned import --ensemble: the imported profiles become an ensemble; a failed import makes none', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ariadne-ens-'));
  try {
    const db = scratchDb(dir, 'e.db');
    const r = cliImport(db, ['--ensemble', 'fixtures', ...runs.map((x) => join(fixtures, `${x}.cali`)), smallTracePath]);
    assert.equal(r.status, 0, r.stderr);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    const ens = lines.at(-1).ensemble;
    assert.equal(ens.name, 'fixtures');
    assert.equal(ens.member_count, 3, 'the task trace is left out');
    const count = (sql) => Number(sqlite(db, sql).trim());
    assert.equal(count('SELECT count(*) FROM ensemble_members'), 3);
    assert.equal(count("SELECT count(*) FROM ensemble_params WHERE key = 'jobsize'"), 3);
    const bad = cliImport(db, ['--ensemble', 'broken', join(fixtures, 'run-8.cali'), join(dir, 'absent.cali')]);
    assert.notEqual(bad.status, 0);
    assert.equal(count("SELECT count(*) FROM ensembles WHERE name = 'broken'"), 0);
    const onlyTasks = cliImport(db, ['--ensemble', 'none', smallTracePath]);
    assert.notEqual(onlyTasks.status, 0);
    assert.match(onlyTasks.stderr, /no profile/);
    assert.equal(count('SELECT count(*) FROM traces'), 4, 'the traces of an import whose ensemble failed are deleted');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('RAJAPerf: import --ensemble of the 10 trials gives 10 members with size and variant from each file',
  { skip: !haveRaja && 'no shared data (thicket)' }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ariadne-raja-'));
    try {
      const db = scratchDb(dir);
      const files = Array.from({ length: 10 }, (_, i) => join(rajaDir, String(i + 1), 'Base_CUDA-block_128.cali'));
      const r = cliImport(db, ['--ensemble', 'rajaperf', ...files]);
      assert.equal(r.status, 0, r.stderr);
      const ens = JSON.parse(r.stdout.trim().split('\n').at(-1)).ensemble;
      assert.equal(ens.member_count, 10);
      const w = await startDaemon({ dir, db });
      try {
        const e = (await getJson(w.url, `/api/v1/ensembles/${ens.id}`)).json;
        assert.equal(e.members.length, 10);
        for (const m of e.members) {
          assert.equal(m.parameters.ProblemSizeRunParam, '1048576');
          assert.equal(m.parameters.variant, 'Base_CUDA');
          assert.equal(m.parameters.tuning, 'block_128');
          assert.equal(m.parameters.compiler, 'clang++-10.0.1');
          assert.equal(m.sources.variant, 'metadata');
        }
        assert.equal(new Set(e.members.map((m) => m.name)).size, 10, 'member names are told apart');
        assert.ok(e.numeric_parameters.includes('ProblemSizeRunParam'));
        assert.ok(e.numeric_parameters.includes('launchdate'));
        assert.ok(!e.numeric_parameters.includes('variant'));
      } finally {
        await w.stop({ keep: true });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
