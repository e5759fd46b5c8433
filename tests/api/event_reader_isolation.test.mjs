// event_reader_isolation.test.mjs: event traces are read in a child process
// (`ariadned event-reader`, issue 19), so a reader that crashes, hangs or
// allocates without bound on a hostile upload fails that upload's job and
// not the daemon. An OTF2 archive is uploaded (the generated fixture of
// tests/fixtures/fuzz/otf2, unpacked into a tar.gz):
//  - as it is: imported (kind events);
//  - with the corrupt Group of fuzz_otf2 (libotf2 would malloc 32 GB): the job
//    fails invalid_input with otf2.c's message;
//  - to daemons whose child is told to misbehave (ARIADNE_TEST_READER_FAULT:
//    segv, hang, alloc under --reader-memory): each job fails with a message
//    naming the reader, the file and the cause; /api/v1/health answers after
//    each, the daemon's process is the same, and a good upload still imports.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDaemon, waitJob, sourceDir } from '../lib/daemon.mjs';
import { getJson, assertOkJson, uploadRaw, acceptedJob, stopClean, makeTarGz } from '../fixtures/api/util.mjs';

const MARK = Buffer.from('\n--ariadne-fuzz-file--\n');
const PARTS = ['traces.otf2', 'traces.def', 'traces/0.evt', 'traces/0.def', 'traces/1.evt', 'traces/1.def',
  'traces/5.evt', 'traces/5.def'];

function parts(fixture) {
  const data = readFileSync(join(sourceDir, 'tests', 'fixtures', 'fuzz', 'otf2', fixture));
  const out = new Map();
  let at = 0;
  for (const name of PARTS) {
    const m = data.indexOf(MARK, at);
    out.set(name, data.subarray(at, m < 0 ? data.length : m));
    if (m < 0) break;
    at = m + MARK.length;
  }
  return out;
}

// The archive of a fuzz_otf2 fixture as a tar.gz under run/; its empty parts
// taken from the generated archive (the import wants the locations' files).
function archive(fixture) {
  const own = parts(fixture), good = parts('generated.bin');
  const files = PARTS.map((name) => ({ name: `run/${name}`, data: own.get(name)?.length ? own.get(name) : good.get(name) }));
  return makeTarGz(files.filter((f) => f.data?.length > 0));
}

const daemons = [];
after(async () => { for (const d of daemons) await stopClean(d); });

async function daemon(opts = {}) {
  const d = await startDaemon(opts);
  daemons.push(d);
  return d;
}

async function upload(d, body, name) {
  const res = await uploadRaw(d.url, body, { filename: `${name}.tar.gz`, name });
  return waitJob(d.url, acceptedJob(res, name).id, {}, 120000);
}

async function healthy(d, what) {
  assertOkJson(await getJson(d.url, '/api/v1/health'), 200, `health after ${what}`);
  assert.equal(d.child.exitCode, null, `the daemon exited after ${what}`);
  assert.equal(d.child.signalCode, null, `the daemon was killed after ${what}`);
}

async function wantFailure(d, body, name, code, pattern) {
  const job = await upload(d, body, name);
  assert.equal(job.status, 'failed', JSON.stringify(job));
  assert.equal(job.error?.code, code, JSON.stringify(job));
  assert.match(job.error.message, pattern, job.error.message);
  assert.deepEqual(job.trace_ids ?? [], []);
  await healthy(d, name);
}

async function wantImported(d, name) {
  const job = await upload(d, archive('generated.bin'), name);
  assert.equal(job.status, 'succeeded', JSON.stringify(job));
  assert.equal(job.trace_ids.length, 1);
  const t = await getJson(d.url, `/api/v1/traces/${job.trace_ids[0]}`);
  assertOkJson(t, 200, 'the imported trace');
  assert.equal(t.json.kind, 'events');
}

test('a good OTF2 archive imports through the child; a corrupt Group fails the job', async () => {
  const d = await daemon();
  await wantImported(d, 'good');
  await wantFailure(d, archive('def-huge-group.bin'), 'huge-group', 'invalid_input',
    /traces\.def: a Group record at byte 369 claims 4294967295 members in 11 bytes \(corrupt\)/);
  await wantImported(d, 'good-again');
});

test('a reader that crashes: the job fails, the daemon serves on', async () => {
  const d = await daemon({ env: { ARIADNE_TEST_READER_FAULT: 'segv' } });
  await wantFailure(d, archive('generated.bin'), 'crash', 'invalid_input',
    /the OTF2 reader crashed on crash\.tar\.gz\/run\/traces\.otf2 \(signal 11, Segmentation fault\): the trace is corrupt or not supported/);
  await wantFailure(d, archive('generated.bin'), 'crash-again', 'invalid_input', /crashed on crash-again\.tar\.gz\/run\/traces\.otf2/);
});

test('a reader that hangs is stopped', async () => {
  const d = await daemon({ args: ['--reader-cpu', '1'], env: { ARIADNE_TEST_READER_FAULT: 'hang' } });
  const t0 = Date.now();
  await wantFailure(d, archive('generated.bin'), 'hang', 'too_large',
    /the OTF2 reader sent nothing for 10 s on hang\.tar\.gz\/run\/traces\.otf2 and was stopped/);
  assert.ok(Date.now() - t0 < 60000, 'stopped within a minute');
});

test('a reader that allocates without bound meets --reader-memory', async () => {
  const d = await daemon({ args: ['--reader-memory', '256M'], env: { ARIADNE_TEST_READER_FAULT: 'alloc' } });
  await wantFailure(d, archive('generated.bin'), 'alloc', 'invalid_input',
    /the OTF2 reader crashed on alloc\.tar\.gz\/run\/traces\.otf2 \(signal 6, Aborted\).*more than the reader's 256 MB of memory/);
});
