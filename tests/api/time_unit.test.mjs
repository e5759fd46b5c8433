// time_unit.test.mjs: the time unit of a single Paje file and how it was
// decided (docs/api.md "Time units"), the user's override (PATCH
// /traces/{id} time_unit, `ariadned import --time-unit`, POST /traces
// ?time_unit=), and the warning of a file cut in its last line (GET
// /traces/{id}, the import job, `ariadned import` on stderr).
// The rule is checked on real traces when ../shared/data is there: a
// StarPU paje.trace alone is ms, simu-mardi (pajeng) is s by default.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDaemon, sourceDir, importCli, getOk, runCli, waitJob, ariadned } from '../lib/daemon.mjs';
import { call, sendJson, assertError, acceptedJob } from '../fixtures/api/util.mjs';

const shared = process.env.ARIADNE_SHARED_DATA || join(sourceDir, '..', 'shared', 'data');
const STARPU = join(shared, 'starpu', 'chol_implicit_dmdas_N11520_nb24', 'paje.trace');
const MARDI = join(shared, 'pajeng', 'traces', 'simu-mardi.trace');
const noStarpu = existsSync(STARPU) ? false : `no ${STARPU}`;
const noMardi = existsSync(MARDI) ? false : `no ${MARDI}`;
const BASIC = join(sourceDir, 'tests', 'fixtures', 'paje', 'basic.trace');
const BUNDLE = join(sourceDir, 'tests', 'fixtures', 'starpu', 'bundle');
const DATAMOVE = join(sourceDir, 'tests', 'fixtures', 'datamove', 'kineto_small.json');

let d;
const ids = {};
let cut; // basic.trace cut in the middle of its last line

before(async () => {
  d = await startDaemon();
  const text = readFileSync(BASIC);
  cut = text.subarray(0, text.length - 4); // "20 7.0 E w0 bye x\n" -> "20 7.0 E w0 by"
  writeFileSync(join(d.dir, 'cut.trace'), cut);
  ids.basic = importCli(d.db, BASIC, 'basic');
  ids.bundle = importCli(d.db, BUNDLE, 'bundle');
  ids.datamove = importCli(d.db, DATAMOVE, 'datamove');
  if (!noStarpu) ids.starpu = importCli(d.db, STARPU, 'starpu-paje-alone');
  if (!noMardi) ids.mardi = importCli(d.db, MARDI, 'simu-mardi');
});

after(async () => {
  if (d) await d.stop();
});

const trace = (id) => getOk(d.url, `/api/v1/traces/${id}`);
const patch = (id, body) => sendJson(d.url, 'PATCH', `/api/v1/traces/${id}`, body);

test('a StarPU paje.trace alone is milliseconds, detected', { skip: noStarpu }, async () => {
  const t = await trace(ids.starpu);
  assert.equal(t.format, 'paje');
  assert.equal(t.time_unit, 'ms');
  assert.match(t.time_unit_source, /^detected: a StarPU paje\.trace/);
  assert.deepEqual(t.warnings, []);
  assert.equal(t.summary.time_unit, 'ms');
  const states = await getOk(d.url, `/api/v1/traces/${ids.starpu}/states?limit=1`);
  assert.equal(states.time_unit, 'ms');
});

test('simu-mardi (pajeng) is seconds by default', { skip: noMardi }, async () => {
  const t = await trace(ids.mardi);
  assert.equal(t.time_unit, 's');
  assert.match(t.time_unit_source, /^default: seconds/);
  assert.deepEqual(t.warnings, []);
});

test('a format that fixes its unit says so', async () => {
  const b = await trace(ids.bundle);
  assert.equal(b.time_unit, 'ms');
  assert.equal(b.time_unit_source, 'format: the unit of the starpu format');
  const basic = await trace(ids.basic);
  assert.equal(basic.time_unit, 's');
  assert.match(basic.time_unit_source, /^default:/);
});

test('PATCH time_unit relabels a task trace and every answer uses it', async () => {
  const before = await getOk(d.url, `/api/v1/traces/${ids.bundle}/gantt?width=200`);
  assert.equal(before.time_unit, 'ms');
  const r = await patch(ids.bundle, { time_unit: 'us' });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.time_unit, 'us');
  assert.equal(r.json.time_unit_source, 'set by the user');
  assert.equal(r.json.summary.time_unit, 'us');
  const after = await getOk(d.url, `/api/v1/traces/${ids.bundle}/gantt?width=200`);
  assert.equal(after.time_unit, 'us');
  // a label: the numbers are the same
  assert.equal(after.start, before.start);
  assert.equal(after.end, before.end);
  const list = await getOk(d.url, '/api/v1/traces?kind=tasks');
  assert.equal(list.traces.find((t) => t.id === ids.bundle).time_unit, 'us');
  // with a name in the same body
  const both = await patch(ids.bundle, { name: 'bundle (ms)', time_unit: 'ms' });
  assert.equal(both.status, 200, both.text);
  assert.equal(both.json.name, 'bundle (ms)');
  assert.equal(both.json.time_unit, 'ms');
});

test('PATCH time_unit: bad units, other kinds, absent traces', async () => {
  const bad = await patch(ids.basic, { time_unit: 'hours' });
  assertError(bad, 400, 'invalid_parameter', 'bad unit');
  assert.match(bad.json.error.message, /time_unit must be one of s, ms, us, ns/);
  assertError(await patch(ids.basic, { time_unit: 3 }), 400, 'invalid_parameter', 'a number');
  const other = await patch(ids.datamove, { time_unit: 's' });
  assertError(other, 400, 'invalid_parameter', 'datamove trace');
  assert.match(other.json.error.message, /task traces/);
  assertError(await patch(999999, { time_unit: 's' }), 404, 'not_found', 'absent');
  const unchanged = await trace(ids.basic);
  assert.equal(unchanged.time_unit, 's');
});

test('a file cut in its last line imports with a warning (CLI)', async () => {
  const r = runCli(['import', '--db', d.db, '--quiet', '--allow-duplicate', join(d.dir, 'cut.trace')]);
  assert.equal(r.status, 0, r.stderr);
  const id = JSON.parse(r.stdout.trim()).id;
  const t = await trace(id);
  assert.equal(t.warnings.length, 1);
  assert.equal(t.warnings[0].code, 'truncated_line');
  assert.match(t.warnings[0].message, /cut\.trace: line \d+ is cut \(the file ends in the middle of it\) and was ignored/);
  // what is complete is there: the same rows as the file without its last line
  const whole = importCli(d.db, BASIC, 'basic again');
  const a = await trace(id), b = await trace(whole);
  assert.equal(a.counts.states, b.counts.states);
  assert.equal(a.counts.events, b.counts.events - 1);
});

test('ariadned import prints warnings on stderr and checks --time-unit', async () => {
  const r = spawnSync(ariadned, ['import', '--db', d.db, '--quiet', '--allow-duplicate', '--time-unit', 'ns',
    join(d.dir, 'cut.trace')], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /ariadned import: warning: cut: cut\.trace: line \d+ is cut .*\(truncated_line\)/);
  const t = await trace(JSON.parse(r.stdout.trim()).id);
  assert.equal(t.time_unit, 'ns');
  assert.equal(t.time_unit_source, 'set by the user at import');
  const bad = spawnSync(ariadned, ['import', '--db', d.db, '--time-unit', 'h', BASIC], { encoding: 'utf8' });
  assert.notEqual(bad.status, 0);
  assert.match(bad.stderr, /--time-unit must be one of s, ms, us, ns/);
  const kind = spawnSync(ariadned, ['import', '--db', d.db, '--time-unit', 's', DATAMOVE], { encoding: 'utf8' });
  assert.notEqual(kind.status, 0);
  assert.match(kind.stderr, /task traces only/);
});

test('an upload reports the cut in its job and takes ?time_unit=', async () => {
  const res = await call(d.url, '/api/v1/traces?filename=cut.trace&time_unit=ms&allow_duplicate=true', {
    method: 'POST', headers: { 'Content-Type': 'application/octet-stream' }, body: cut,
  });
  const job = await waitJob(d.url, acceptedJob(res).id);
  assert.equal(job.status, 'succeeded', JSON.stringify(job));
  const [id] = job.trace_ids;
  assert.equal(job.warnings.length, 1);
  assert.equal(job.warnings[0].trace_id, id);
  assert.equal(job.warnings[0].code, 'truncated_line');
  const t = await trace(id);
  assert.equal(t.time_unit, 'ms');
  assert.deepEqual(t.warnings.map((w) => w.code), ['truncated_line']);
  const bad = await call(d.url, '/api/v1/traces?filename=cut.trace&time_unit=min', {
    method: 'POST', headers: { 'Content-Type': 'application/octet-stream' }, body: cut,
  });
  assertError(bad, 400, 'invalid_parameter', 'upload with a bad unit');
  // a clean upload's job has no warning
  const clean = await call(d.url, '/api/v1/traces?filename=basic.trace&allow_duplicate=true', {
    method: 'POST', headers: { 'Content-Type': 'application/octet-stream' }, body: readFileSync(BASIC),
  });
  const ok = await waitJob(d.url, acceptedJob(clean).id);
  assert.deepEqual(ok.warnings, []);
});
