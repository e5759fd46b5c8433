// import_outcome.test.mjs: what an import tells besides its traces (issue
// 15). A StarPU output folder with files ariadne does not read (logs,
// *.out, random bytes, an empty file) imports what is known and lists the
// rest with a reason, in the job (upload of an archive or of loose files)
// and on the CLI's stderr; a folder with nothing known is refused, listing
// each file. An upload whose files are identical (SHA-256) to a stored
// trace's is refused as duplicate_trace naming that trace, unless
// ?allow_duplicate=true (CLI --allow-duplicate). Runs on the small bundle
// of tests/fixtures/starpu; the last test on a real run of ../shared/data
// (skipped when absent).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { startDaemon, waitJob, runCli, sourceDir, sharedData, ariadned } from '../lib/daemon.mjs';
import {
  getJson, uploadMultipart, acceptedJob, makeTarGz, stopClean, call,
} from '../fixtures/api/util.mjs';

const bundleDir = join(sourceDir, 'tests', 'fixtures', 'starpu', 'bundle');
const realRun = join(sharedData, 'starpu', 'chol_implicit_dmdas_N11520_nb24');

// What StarPU and a job script leave next to the trace: some files the
// StarPU format keeps without reading (activity.data, trace.html, ...),
// the rest no reader knows.
const KEPT = { 'activity.data': 'time activity\n0 1\n', 'trace.html': '<html></html>\n',
  'sched_tasks.rec': 'Name: x\n\n', 'papi.rec': 'x: 1\n\n', 'distrib.data': '1 2\n' };
const UNKNOWN = { 'starpu.log': '[starpu] INFO: 4 CPU workers\n', 'job-1234.out': 'done in 3.2 s\n',
  'random.bin': randomBytes(2048), 'notes.txt': '' };

let d;
let work;
before(async () => {
  d = await startDaemon();
  work = mkdtempSync(join(tmpdir(), 'ariadne-outcome-'));
});
after(async () => {
  if (d) await stopClean(d);
  if (work) rmSync(work, { recursive: true, force: true });
});

// A copy of `from` with the extra files, under `work`/name; unique bytes in
// README.txt (salt) so that each folder is a new trace, not a duplicate.
function folder(name, from, salt, extra = { ...KEPT, ...UNKNOWN }) {
  const dir = join(work, name);
  cpSync(from, dir, { recursive: true });
  writeFileSync(join(dir, 'README.txt'), `copy ${salt}\n`);
  for (const [f, data] of Object.entries(extra)) writeFileSync(join(dir, f), data);
  return dir;
}

const tarOf = (dir, prefix) => makeTarGz(readdirSync(dir).map((f) => ({ name: `${prefix}/${f}`, data: readFileSync(join(dir, f)) })));
const traceTotal = async () => (await getJson(d.url, '/api/v1/traces')).json.total;

function checkSkipped(skipped, prefix, what) {
  const byName = Object.fromEntries(skipped.map((s) => [s.name.replace(/^.*\//, ''), s.reason]));
  assert.deepEqual(Object.keys(byName).sort(), Object.keys(UNKNOWN).sort(), `${what}: ${JSON.stringify(skipped)}`);
  assert.equal(byName['notes.txt'], 'empty file');
  assert.equal(byName['starpu.log'], 'no reader recognises this file');
  assert.equal(byName['random.bin'], 'no reader recognises this file');
  if (prefix) for (const s of skipped) assert.ok(s.name.startsWith(`${prefix}.tar.gz/${prefix}/`), `${what}: ${s.name}`);
}

async function uploadJob(body, query = '') {
  const res = await call(d.url, `/api/v1/traces${query}`, { method: 'POST', headers: { 'Content-Type': 'application/gzip' }, body });
  return waitJob(d.url, acceptedJob(res).id);
}

test('a StarPU folder with logs and unknown files (archive upload): imported, the rest listed in the job', async () => {
  const dir = folder('run-a', bundleDir, 'a');
  const job = await uploadJob(tarOf(dir, 'run-a'), '?filename=run-a.tar.gz');
  assert.equal(job.status, 'succeeded', JSON.stringify(job));
  assert.equal(job.trace_ids.length, 1);
  checkSkipped(job.skipped, 'run-a', 'archive');
  assert.deepEqual(job.duplicate_of, []);
  const t = (await getJson(d.url, `/api/v1/traces/${job.trace_ids[0]}`)).json;
  assert.equal(t.format, 'starpu');
  assert.ok(t.summary.tasks > 0, 'tasks imported');
  const kept = t.files.filter((f) => f.role === 'extra').map((f) => f.name.replace(/^.*\//, ''));
  for (const f of Object.keys(KEPT)) assert.ok(kept.includes(f), `${f} kept as an extra file: ${kept}`);
  // The list of jobs carries the same fields.
  const list = (await getJson(d.url, '/api/v1/jobs')).json.jobs;
  assert.deepEqual(list.find((j) => j.id === job.id).skipped, job.skipped);
});

test('loose files of one folder (multipart): imported, unknown ones listed', async () => {
  const dir = folder('run-b', bundleDir, 'b');
  const files = readdirSync(dir).map((f) => ({ name: f, data: readFileSync(join(dir, f)) }));
  const job = await waitJob(d.url, acceptedJob(await uploadMultipart(d.url, files, { name: 'loose' })).id);
  assert.equal(job.status, 'succeeded', JSON.stringify(job));
  checkSkipped(job.skipped, '', 'multipart');
});

test('ariadned import DIR: imported, skipped files on stderr, JSON lines on stdout unchanged', () => {
  const dir = folder('run-c', bundleDir, 'c');
  const db = join(work, 'cli.db');
  const r = spawnSync(ariadned, ['import', '--db', db, '--quiet', dir], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(lines.length, 1);
  assert.equal(lines[0].format, 'starpu');
  for (const f of Object.keys(UNKNOWN)) assert.match(r.stderr, new RegExp(`skipped run-c/${f.replace('.', '\\.')}: `));
  assert.doesNotMatch(r.stderr, /activity\.data/, 'kept files are not skipped');
});

test('nothing recognised: refused, each file listed with its reason', async () => {
  const dir = folder('junk', join(work, 'run-a'), 'j', {});
  for (const f of readdirSync(dir)) rmSync(join(dir, f));
  for (const [f, data] of Object.entries(UNKNOWN)) writeFileSync(join(dir, f), data);
  const before = await traceTotal();
  const job = await uploadJob(tarOf(dir, 'junk'), '?filename=junk.tar.gz');
  assert.equal(job.status, 'failed');
  assert.equal(job.error.code, 'unsupported_format');
  for (const f of Object.keys(UNKNOWN)) assert.ok(job.error.message.includes(f), `${f} in: ${job.error.message}`);
  assert.match(job.error.message, /paje\.trace and tasks\.rec/);
  assert.equal(job.skipped.length, Object.keys(UNKNOWN).length);
  assert.equal(await traceTotal(), before);
  const r = runCli(['import', '--db', join(work, 'junk.db'), '--quiet', dir]);
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /no reader recognises any of the 4 files/);
  assert.match(r.stderr, /skipped junk\/starpu\.log: no reader recognises this file/);
});

test('an identical upload is refused as duplicate_trace, naming the stored trace; allow_duplicate imports it', async () => {
  const dir = folder('run-d', bundleDir, 'd');
  const first = await uploadJob(tarOf(dir, 'run-d'), '?filename=run-d.tar.gz');
  assert.equal(first.status, 'succeeded', JSON.stringify(first));
  const id = first.trace_ids[0];
  const before = await traceTotal();
  // The same files under another archive name and layout.
  const again = await uploadJob(tarOf(dir, 'other-name'), '?filename=again.tar.gz');
  assert.equal(again.status, 'failed', JSON.stringify(again));
  assert.equal(again.error.code, 'duplicate_trace');
  assert.match(again.error.message, new RegExp(`identical to trace ${id} \\(run-d\\)`));
  assert.match(again.error.message, /allow_duplicate=true/);
  assert.deepEqual(again.duplicate_of, [{ trace_id: id, name: 'run-d', upload: 'other-name' }]);
  assert.equal(again.skipped.length, Object.keys(UNKNOWN).length, 'a refused job still lists what it skipped');
  assert.equal(await traceTotal(), before, 'no second copy');
  // Skipped files do not count: the same trace with one log less is still a duplicate.
  rmSync(join(dir, 'starpu.log'));
  const fewer = await uploadJob(tarOf(dir, 'run-d'), '?filename=run-d.tar.gz');
  assert.equal(fewer.error?.code, 'duplicate_trace');
  const anyway = await uploadJob(tarOf(dir, 'run-d'), '?filename=run-d.tar.gz&allow_duplicate=true');
  assert.equal(anyway.status, 'succeeded', JSON.stringify(anyway));
  assert.equal(anyway.duplicate_of[0].trace_id, id, 'still told');
  assert.equal(await traceTotal(), before + 1);
  const bad = await call(d.url, '/api/v1/traces?allow_duplicate=yes', { method: 'POST', body: 'x' });
  assert.equal(bad.status, 400);
  assert.equal(bad.json.error.code, 'invalid_parameter');
});

test('ariadned import: a duplicate fails naming the trace; --allow-duplicate imports it', () => {
  const dir = folder('run-e', bundleDir, 'e', {});
  const db = join(work, 'dup.db');
  assert.equal(runCli(['import', '--db', db, '--quiet', dir]).status, 0);
  const r = runCli(['import', '--db', db, '--quiet', dir]);
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /identical to trace 1 \(run-e\).*--allow-duplicate/);
  const ok = runCli(['import', '--db', db, '--quiet', '--allow-duplicate', dir]);
  assert.equal(ok.status, 0, ok.stderr);
  assert.equal(JSON.parse(ok.stdout.trim()).id, 2);
});

test('a real StarPU run with extra files (../shared/data)', { skip: !existsSync(realRun) && 'no ../shared/data' }, async () => {
  const dir = folder('real', realRun, 'real');
  const job = await uploadJob(tarOf(dir, 'real'), '?filename=real.tar.gz');
  assert.equal(job.status, 'succeeded', JSON.stringify(job));
  checkSkipped(job.skipped, 'real', 'real run');
  const t = (await getJson(d.url, `/api/v1/traces/${job.trace_ids[0]}`)).json;
  assert.equal(t.format, 'starpu');
  // README.txt of the run says how many tasks tasks.rec holds; the import keeps them all.
  assert.ok(t.summary.tasks > 1000, `tasks ${t.summary.tasks}`);
});
