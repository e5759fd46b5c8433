// datamove_clock_origin.test.mjs: the data-movement Overview's clock (the
// trace summary's `clock`, written at import) counts from the run's start
// like every other datamove time (issue 14, "one time origin everywhere"):
// `clock.start` is 0 and `clock.time_origin` is the run's start in the
// file's clock (summary.start, absolute µs), which is also the
// `time_origin` of GET /traces/{id}/clock. The sectors are checked against
// the fixture's events read here: the summary's clock and the endpoint's
// agree sector by sector.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDaemon, sourceDir, importCli, getOk } from '../lib/daemon.mjs';
import { stopClean } from '../fixtures/api/util.mjs';

const fixture = join(sourceDir, 'tests', 'fixtures', 'datamove', 'epoch_us.json');
let d, id;

before(async () => {
  d = await startDaemon();
  id = importCli(d.db, fixture, 'epoch');
});
after(async () => { if (d) await stopClean(d); });

test('summary.clock is relative to the run start and says its origin', async () => {
  const trace = await getOk(d.url, `/api/v1/traces/${id}`);
  const s = trace.summary;
  // the run's first event, read from the file itself
  const doc = JSON.parse(readFileSync(fixture, 'utf8'));
  const events = (Array.isArray(doc) ? doc : doc.traceEvents).filter((e) => typeof e.ts === 'number' && e.ph !== 'M');
  const first = Math.min(...events.map((e) => e.ts));
  assert.ok(first > 1e12, 'the fixture has epoch-µs times');
  assert.equal(s.start, first);
  assert.equal(s.clock.start, 0, 'clock.start counts from the run start');
  assert.equal(s.clock.time_origin, s.start, 'clock.time_origin: the run start in the file clock');
  const clock = await getOk(d.url, `/api/v1/traces/${id}/clock?sector_width=${s.clock.sector_width}`);
  assert.equal(clock.start, 0);
  assert.equal(clock.time_origin, s.clock.time_origin);
  assert.equal(clock.values.length, s.clock.values.length);
  clock.values.forEach((v, k) => {
    const cats = Object.keys(s.clock.values[k]);
    cats.forEach((c, i) => assert.ok(Math.abs((Array.isArray(v) ? v[i] : v[c]) - s.clock.values[k][c]) < 1e-6, `sector ${k} ${c}`));
  });
});
