// params.test.mjs: the parameter toolkit (server/params.c) through the API:
// the 400 messages of query parameters (each endpoint keeps its wording)
// and the strict checks of JSON bodies (POST /tokens, PATCH /traces/{id}):
// unknown fields, wrong types and missing required fields answer 400 with
// a message naming the field.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { getJson, sendJson, assertError, assertOkJson, stopClean, fixtureStatic } from '../fixtures/api/util.mjs';

process.env.ARIADNE_STATIC = fixtureStatic;
const { startDaemon } = await import('../lib/daemon.mjs');

let d;
before(async () => { d = await startDaemon(); });
after(async () => { if (d) await stopClean(d); });

async function expectMessage(res, status, message, what) {
  assertError(res, status, 'invalid_parameter', what);
  assert.equal(res.json.error.message, message, what);
}

test('query parameters: each endpoint keeps its wording', async () => {
  const cases = [
    ['/api/v1/traces?limit=x', 'limit must be an integer in 1..1000, got \'x\''],
    ['/api/v1/traces?limit=%2B5', 'limit must be an integer in 1..1000, got \'+5\''],
    ['/api/v1/traces?kind=nope', 'kind must be one of tasks, profile, pdes, datamove, events, got \'nope\''],
    ['/api/v1/traces/1/states?start=abc', 'start must be a decimal number, got \'abc\''],
    ['/api/v1/traces/1/progression?step_width=0', 'step_width must be a number in (0, 1e+300], got \'0\''],
    ['/api/v1/traces/1/progression?bandwidth=nan', 'bandwidth must be a number in [0.0001, 1], got \'nan\''],
    ['/api/v1/traces/1/progression?nodes=1,,2', 'nodes must be comma-separated node numbers (e.g. 0,3), got \'1,,2\''],
    ['/api/v1/traces/1/progression?nodes=1,%202', 'nodes must be comma-separated node numbers (e.g. 0,3), got \'1, 2\''],
    ['/api/v1/traces/1/supergraph?filter=101', 'filter must be a number in [0, 100]'],
    ['/api/v1/traces/1/supergraph?filter=0x10', 'filter must be a number in [0, 100]'],
    ['/api/v1/traces/1/supergraph?split_by=x', 'split_by must be entry, caller or callsite'],
  ];
  for (const [path, message] of cases) await expectMessage(await getJson(d.url, path), 400, message, path);
});

test('POST /tokens: the body is checked strictly', async () => {
  const cases = [
    [{ name: 'x', extra: 1 }, 'unknown field \'extra\' (allowed: name, scope)'],
    [{ name: 5 }, 'name must be a string of 1 to 200 characters'],
    [{}, 'name must be a string of 1 to 200 characters'],
    [{ name: '' }, 'name must be a string of 1 to 200 characters'],
    [{ name: 'x', scope: null }, 'scope must be one of read, write, admin'],
    [{ name: 'x', scope: 'root' }, 'scope must be one of read, write, admin'],
  ];
  for (const [body, message] of cases) {
    await expectMessage(await sendJson(d.url, 'POST', '/api/v1/tokens', body), 400, message, JSON.stringify(body));
  }
  const ok = await sendJson(d.url, 'POST', '/api/v1/tokens', { name: 'ok', scope: 'read' });
  assertOkJson(ok, 201, 'a good token');
});

test('PATCH /traces/{id}: unknown fields and types before the lookup', async () => {
  const cases = [
    [{ bogus: 1 }, 'unknown field \'bogus\' (allowed: name, description, time_unit)'],
    [{ name: 3 }, 'name must be a string'],
    [{ time_unit: 1 }, 'time_unit must be one of s, ms, us, ns'],
    [{ time_unit: 'h' }, 'time_unit must be one of s, ms, us, ns (a label: times are not rescaled), got \'h\''],
    [{ description: null }, 'description must be a string'],
    [{ name: '' }, 'name must have 1 to 200 characters'],
  ];
  for (const [body, message] of cases) {
    await expectMessage(await sendJson(d.url, 'PATCH', '/api/v1/traces/999999', body), 400, message, JSON.stringify(body));
  }
  assertError(await sendJson(d.url, 'PATCH', '/api/v1/traces/999999', { name: 'x' }), 404, 'not_found', 'no trace');
});

// The task filters (server/task_filters.c): every message starts with the
// parameter, names the refused value and lists a few known ones.
test('task filters: unknown names and bad windows answer 400 naming the parameter', async () => {
  const { runCli, importCli } = await import('../lib/daemon.mjs');
  const dir = `${d.dir}/chol4`;
  const g = runCli(['generate', '--out', dir, '--tiles', '4', '--nodes', '2']);
  assert.equal(g.status, 0, g.stderr);
  const id = importCli(d.db, dir, 'chol4');
  const types = (await getJson(d.url, `/api/v1/traces/${id}/gantt`)).json.types;
  assert.ok(types.length > 0);
  const cases = [
    ['gantt?types=NOPE', new RegExp(`^types has an unknown task type 'NOPE'; known: ${types[0]}`)],
    [`bounds?types=${types[0].toUpperCase()}`, new RegExp(`did you mean '${types[0]}'\\?`)],
    ['outliers?resources=GPU', /^resources has an unknown resource type 'GPU'; known: CPU/],
    ['timeseries?nodes=7', /^nodes has an unknown node 7; known: 0, 1$/],
    ['iterations?start=abc', /^start must be a decimal number, got 'abc'$/],
    ['critical-path?start=5&end=1', /^start \(5\) must be less than end \(1\)$/],
    ['panels?min_duration=-1', /^min_duration must be a number/],
  ];
  for (const [path, re] of cases) {
    const res = await getJson(d.url, `/api/v1/traces/${id}/${path}`);
    assertError(res, 400, 'invalid_parameter', path);
    assert.match(res.json.error.message, re, path);
  }
});
