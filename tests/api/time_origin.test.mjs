// time_origin.test.mjs: one time origin everywhere (issue 14).
// * Task traces (a generated StarPU bundle, and the real StarPU 1.4.7
//   chol run when the shared data is present): every time-based endpoint
//   answers `time_origin` equal to the trace's summary.time_origin (the
//   first application task's start in the file's clock).
// * Data movement (the DMVis GEMM fill runs, skipped when absent): windows
//   are µs from the run's start (summary.start, the first event's ts), and
//   a window around each copy, computed here from the trace file's own
//   ts/dur/bytes, holds exactly that copy's bytes, as the absolute window
//   [ts, ts + dur] did before; every answer's time_origin is summary.start
//   and its times are relative; an old absolute (epoch µs) window is a 400
//   that says the run's extent.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, runCli, sourceDir, sharedData, importCli, getOk, waitJob } from '../lib/daemon.mjs';
import { getJson, assertError, uploadMultipart, acceptedJob, stopClean } from '../fixtures/api/util.mjs';

const shared = process.env.ARIADNE_SHARED_DATA || sharedData;
const CHOL_RUN = 'chol_implicit_dmdas_N11520_nb24';
const haveChol = existsSync(join(shared, 'starpu', CHOL_RUN));
const gemmDir = join(shared, 'dmvis', 'data', 'use-case-1-GEMM-fill');
const haveGemm = existsSync(gemmDir);

let d, dir;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ariadne-origin-'));
  d = await startDaemon();
});
after(async () => {
  if (d) await stopClean(d);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// The time-based endpoints of a task trace.
const TASK_ENDPOINTS = ['gantt?width=200', 'states?width=200', 'links', 'aggregation?slices=20',
  'aggregation/levels?slices=20', 'timeseries?width=100', 'iterations', 'panels?width=100', 'critical-path',
  'outliers', 'movements?limit=5', 'movement-matrix', 'bounds', 'progression', 'anomalies'];

async function checkTaskTrace(id, what) {
  const t = await getOk(d.url, `/api/v1/traces/${id}`);
  const origin = t.summary.time_origin;
  assert.equal(typeof origin, 'number', `${what}: summary.time_origin`);
  for (const ep of TASK_ENDPOINTS) {
    const doc = await getOk(d.url, `/api/v1/traces/${id}/${ep}`);
    assert.equal(typeof doc.time_origin, 'number', `${what} ${ep}: time_origin ${JSON.stringify(doc).slice(0, 200)}`);
    // answers carry 12 significant digits at least
    assert.ok(Math.abs(doc.time_origin - origin) <= 1e-11 * Math.max(1, Math.abs(origin)),
      `${what} ${ep}: time_origin ${doc.time_origin} vs summary ${origin}`);
  }
  return origin;
}

test('a generated StarPU bundle: every time-based endpoint says time_origin', async () => {
  const gen = join(dir, 'gen');
  const g = runCli(['generate', '--out', gen, '--tiles', '4', '--nodes', '2', '--seed', '3']);
  assert.equal(g.status, 0, g.stderr);
  await checkTaskTrace(importCli(d.db, gen, 'gen'), 'generated');
});

test(`StarPU ${CHOL_RUN}: every time-based endpoint says time_origin`, { skip: !haveChol && 'shared data absent' },
  async () => {
    const id = importCli(d.db, join(shared, 'starpu', CHOL_RUN), CHOL_RUN);
    const origin = await checkTaskTrace(id, CHOL_RUN);
    assert.ok(origin > 0, 'the first task starts after the file clock\'s 0');
    const traces = (await getOk(d.url, '/api/v1/traces?kind=tasks&limit=50')).traces;
    const other = traces.find((t) => t.id !== id && t.format === 'starpu'); // the generated bundle
    const cmp = await getOk(d.url, `/api/v1/compare?traces=${id},${other.id}`);
    for (const t of cmp.traces) {
      const want = (await getOk(d.url, `/api/v1/traces/${t.id}`)).summary.time_origin;
      assert.equal(t.time_origin, want, `compare: trace ${t.id} says its own origin`);
    }
  });

const QRM_RUN = join(shared, 'starpu', 'qrm-grad3d30-lws');
test('qr_mumps: the elimination-tree panels say time_origin', { skip: !existsSync(QRM_RUN) && 'shared data absent' },
  async () => {
    const id = importCli(d.db, QRM_RUN, 'qrm');
    const origin = (await getOk(d.url, `/api/v1/traces/${id}`)).summary.time_origin;
    for (const ep of ['atree', 'tree-utilization', 'tree-memory', `tree-compare?other=${id}`]) {
      const doc = await getOk(d.url, `/api/v1/traces/${id}/${ep}`);
      assert.ok(Math.abs(doc.time_origin - origin) <= 1e-9 * Math.max(1, Math.abs(origin)), `${ep}: ${doc.time_origin}`);
    }
  });

// The copies of a Chrome trace, read from the file: memcpy events with bytes.
function copiesOf(file) {
  const json = JSON.parse(readFileSync(file, 'utf8'));
  const events = Array.isArray(json) ? json : json.traceEvents;
  const timed = events.filter((e) => typeof e.ts === 'number' && e.ph !== 'M');
  const first = Math.min(...timed.map((e) => e.ts));
  const copies = events.filter((e) => e.args && typeof e.args.bytes === 'number' && /memcpy/i.test(e.name));
  return { first, copies };
}

for (const name of ['fill-1-row-format.json', 'fill-3-column-format.json', 'fill-5-row-format.json']) {
  test(`${name}: windows from the run's start hold each copy's bytes`, { skip: !haveGemm && 'shared data absent' },
    async () => {
      const { first, copies } = copiesOf(join(gemmDir, name));
      const res = await uploadMultipart(d.url, [{ name: `${name}.d/${name}`, data: readFileSync(join(gemmDir, name)) }]);
      const done = await waitJob(d.url, acceptedJob(res, name).id);
      assert.equal(done.status, 'succeeded', JSON.stringify(done));
      const id = done.trace_ids[0];
      const base = `/api/v1/traces/${id}`;
      const t = await getOk(d.url, base);
      assert.ok(Math.abs(t.summary.start - first) < 1, `summary.start ${t.summary.start} is the first event ${first}`);
      const origin = t.summary.start;

      for (const ep of ['movements', 'movement-matrix', 'movement-timeline', 'clock', 'topology', 'metric-series']) {
        const doc = await getOk(d.url, `${base}/${ep}`);
        assert.equal(doc.time_origin, origin, `${ep}: time_origin`);
        assert.equal(doc.start, 0, `${ep}: the whole run starts at 0`);
      }
      const all = await getOk(d.url, `${base}/movements`);
      all.movements.forEach((m, i) => assert.ok(m.start >= 0 && m.start < t.summary.end - origin, `movement ${i} at ${m.start}`));

      for (const c of copies) {
        // the copy's window, relative; no other copy overlaps it (checked from the file)
        const w0 = c.ts - origin, w1 = c.ts - origin + c.dur;
        const others = copies.filter((o) => o !== c && o.ts < c.ts + c.dur && o.ts + o.dur > c.ts);
        assert.equal(others.length, 0, 'copies do not overlap');
        const mv = await getOk(d.url, `${base}/movements?start=${w0}&end=${w1}`);
        assert.equal(mv.bytes_in_window, c.args.bytes, `${c.name} at ${w0}: movements`);
        assert.equal(mv.movements.length, 1);
        assert.equal(mv.movements[0].start, w0, 'the movement starts where the file says, from the run start');
        const mx = await getOk(d.url, `${base}/movement-matrix?window=${w0},${w1}`);
        assert.equal(mx.total_bytes, c.args.bytes, `${c.name}: matrix`);
        const tp = await getOk(d.url, `${base}/topology?start=${w0}&end=${w1}`);
        assert.equal(tp.links.reduce((a, l) => a + l.bytes, 0), c.args.bytes, `${c.name}: topology links`);
        const tl = await getOk(d.url, `${base}/movement-timeline?start=${w0}&end=${w1}&limit=1`);
        assert.equal(tl.start, w0);
        if (tl.mode === 'events') assert.ok(tl.events.every((e) => e.start < w1 && e.start + e.dur >= w0));
      }

      // an absolute epoch window from an old URL: 400 with the run's extent
      const c = copies[0];
      const old = await getJson(d.url, `${base}/movement-matrix?start=${c.ts}&end=${c.ts + c.dur}`);
      assertError(old, 400, 'invalid_parameter');
      assert.match(old.json.error.message, /^start is after the end of the run \(.*µs from the run's start/);
    });
}
