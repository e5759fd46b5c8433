// datamove_totals.test.mjs: byte totals of the data movement endpoints are
// exact (issue 14). Imports each DMVis GEMM fill run (fill-1 to fill-5, row
// and column formats, epoch-µs timestamps; skipped when the shared data is
// absent) and compares the totals of the movements, the summary, the
// matrix, the topology's links and components, the timeline's groups and
// the clock with sums computed here from the trace JSON itself. A window
// cut through the middle of a movement must still split its bytes into
// whole parts that add up to the movement.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDaemon, waitJob, sharedData } from '../lib/daemon.mjs';
import { getJson, assertOkJson, uploadMultipart, acceptedJob, stopClean } from '../fixtures/api/util.mjs';

const gemmDir = join(process.env.ARIADNE_SHARED_DATA || sharedData, 'dmvis', 'data', 'use-case-1-GEMM-fill');
const haveGemm = existsSync(gemmDir);
const runs = [1, 2, 3, 4, 5].flatMap((n) => ['row', 'column'].map((f) => `fill-${n}-${f}-format.json`));

let d;
before(async () => { if (haveGemm) d = await startDaemon(); });
after(async () => { if (d) await stopClean(d); });

/* The copies of a Chrome trace, read independently of ariadne: every event
 * with a numeric args.bytes and a memcpy name, its direction from the name. */
function expected(json) {
  const events = Array.isArray(json) ? json : json.traceEvents;
  const copies = events.filter((e) => e.args && typeof e.args.bytes === 'number' && /memcpy/i.test(e.name));
  const sum = (list, f) => list.reduce((a, e) => a + f(e), 0);
  return {
    total: sum(copies, (e) => e.args.bytes),
    htod: sum(copies.filter((e) => /HtoD/.test(e.name)), (e) => e.args.bytes),
    dtoh: sum(copies.filter((e) => /DtoH/.test(e.name)), (e) => e.args.bytes),
    busy: sum(copies, (e) => e.dur),
    copies,
  };
}

async function importRun(name) {
  const res = await uploadMultipart(d.url, [{ name: `${name}.d/${name}`, data: readFileSync(join(gemmDir, name)) }]);
  const done = await waitJob(d.url, acceptedJob(res, name).id);
  assert.equal(done.status, 'succeeded', `${name}: ${JSON.stringify(done)}`);
  return done.trace_ids[0];
}

const get = async (path) => {
  const res = await getJson(d.url, path);
  assertOkJson(res, 200, path);
  return res.json;
};

/* Sums of a matrix: all cells, host to the GPUs, the GPUs to the host. */
function matrixSums(mx) {
  const h = mx.components.indexOf('host');
  let total = 0, htod = 0, dtoh = 0;
  mx.bytes.forEach((row, i) => row.forEach((b, j) => {
    total += b;
    if (i === h && j !== h) htod += b;
    if (j === h && i !== h) dtoh += b;
  }));
  return { total, htod, dtoh, reported: mx.total_bytes };
}

for (const name of runs) {
  test(`${name}: byte totals are exact in every data movement endpoint`, { skip: !haveGemm && 'shared data absent' },
    async () => {
      const want = expected(JSON.parse(readFileSync(join(gemmDir, name), 'utf8')));
      assert.equal(want.copies.length, 3, 'two HtoD and one DtoH per fill run');
      const id = await importRun(name);
      const base = `/api/v1/traces/${id}`;

      const t = await get(base);
      assert.equal(t.summary.bytes_htod, want.htod, 'summary bytes_htod');
      assert.equal(t.summary.bytes_dtoh, want.dtoh, 'summary bytes_dtoh');

      const mv = await get(`${base}/movements`);
      assert.equal(mv.bytes, want.total, 'movements bytes');
      assert.equal(mv.bytes_in_window, want.total, 'movements bytes_in_window');
      assert.equal(mv.movements.reduce((a, m) => a + m.bytes, 0), want.total, 'sum of listed movements');

      const mx = matrixSums(await get(`${base}/movement-matrix`));
      assert.deepEqual(mx, { total: want.total, htod: want.htod, dtoh: want.dtoh, reported: want.total }, 'matrix');

      const topo = await get(`${base}/topology`);
      const linkSum = (f) => topo.links.filter(f).reduce((a, l) => a + l.bytes, 0);
      assert.equal(linkSum(() => true), want.total, 'topology links');
      assert.equal(linkSum((l) => l.src === 'host' && l.dst !== 'host'), want.htod, 'topology host-to-device links');
      assert.equal(linkSum((l) => l.dst === 'host' && l.src !== 'host'), want.dtoh, 'topology device-to-host links');
      assert.equal(topo.components.find((c) => c.key === 'host').bytes, want.total, 'topology host component');

      const tl = await get(`${base}/movement-timeline?limit=1`);
      assert.equal(tl.mode, 'groups', 'limit=1 answers groups from the tile pyramid');
      const grouped = tl.groups.filter((g) => g.category === 'data_movement').reduce((a, g) => a + g.bytes, 0);
      assert.equal(grouped, want.total, 'timeline groups');
      for (const g of tl.groups) assert.ok(Number.isInteger(g.bytes), `group bytes ${g.bytes} are whole`);

      const ck = await get(`${base}/clock`);
      const moving = ck.values.reduce((a, row) => a + row[ck.categories.indexOf('data_movement')], 0);
      assert.equal(moving, want.busy, 'clock data_movement time (µs)');

      // Cut the window through the middle of the first copy: each side's
      // bytes are whole and the two sides sum to every byte. Windows are
      // from the run's start (summary.start, the first event's ts).
      const first = want.copies[0];
      assert.equal(mv.time_origin, t.summary.start, 'time_origin is the run start');
      const cut = first.ts - t.summary.start + Math.floor(first.dur / 3);
      const left = await get(`${base}/movement-matrix?start=${mv.start}&end=${cut}`);
      const right = await get(`${base}/movement-matrix?start=${cut}&end=${mv.end}`);
      assert.ok(Number.isInteger(left.total_bytes) && Number.isInteger(right.total_bytes),
        `whole bytes on both sides: ${left.total_bytes}, ${right.total_bytes}`);
      assert.ok(left.total_bytes > 0 && right.total_bytes > 0, 'the cut splits a copy');
      assert.equal(left.total_bytes + right.total_bytes, want.total, 'matrix split at a cut');
      const lm = await get(`${base}/movements?end=${cut}`);
      const rm = await get(`${base}/movements?start=${cut}`);
      assert.equal(lm.bytes_in_window + rm.bytes_in_window, want.total, 'movements split at a cut');
      assert.equal(lm.bytes_in_window, left.total_bytes, 'movements and matrix agree on the left side');
    });
}
