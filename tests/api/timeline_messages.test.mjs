// timeline_messages.test.mjs: the messages of GET /timeline (server/
// api_event_timeline.c: the process's cache of a trace's messages,
// server/message_cache.c, and their window counted, listed and bundled in
// C, src/store/event_message_window.c) on an OTF2 ring written by
// tests/tools/gen_otf2, against GET /messages filtered here by the
// window's rule (sent before its end, received after its start): the
// same messages one by one, bundles that add up to them, the same answer
// from a warm cache, and `containers=` keeping only the messages between
// the kept rows' containers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, runCli, sourceDir, scratchDb } from '../lib/daemon.mjs';
import { getJson, assertOkJson, stopClean } from '../fixtures/api/util.mjs';

const buildDir = process.env.ARIADNE_BUILD_DIR || join(sourceDir, 'build');
const GEN = join(buildDir, 'gen_otf2');
const skip = existsSync(GEN) ? false : `no ${GEN}`;

let d, dir, id, all, rankOf;

before(async () => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), 'ariadne-tlm-'));
  const out = join(dir, 'ring');
  execFileSync(GEN, ['--ranks', '6', '--iterations', '40', '--late-sender', '2', '--out', out], { encoding: 'utf8' });
  const db = scratchDb(dir);
  const r = runCli(['import', '--db', db, out]);
  assert.equal(r.status, 0, `import: ${r.stderr}`);
  id = JSON.parse(r.stdout.trim().split('\n')[0]).id;
  d = await startDaemon({ dir, db });
  all = (await get('/messages?limit=100000')).messages;
  // the rows' containers and their ranks ("MPI Rank N / ...")
  const tl = await get('/timeline?limit=1000&width=10');
  rankOf = new Map(tl.rows.map((row) => [row.container_id, Number(/Rank (\d+)/.exec(row.path)[1])]));
});
after(async () => {
  if (d) await stopClean(d);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function get(path) {
  const p = `/api/v1/traces/${id}${path}`;
  const r = await getJson(d.url, p);
  assertOkJson(r, 200, p);
  return r.json;
}

const inWindow = (m, t0, t1) => m.send_time <= t1 && m.recv_time >= t0;

test('the window\'s messages one by one and bundled, as /messages says', { skip }, async () => {
  assert.ok(all.length > 100, `${all.length} messages`);
  const whole = await get('/timeline?width=100&limit=1');
  const t0 = whole.extent.start, t1 = whole.extent.end;
  let bundled = 0;
  for (let k = 0; k < 12; k++) {
    const a = t0 + ((t1 - t0) * k) / 13, b = a + ((t1 - t0) * (k % 3 + 1)) / 17;
    const want = all.filter((m) => inWindow(m, a, b)).sort((x, y) => x.send_time - y.send_time);
    const one = await get(`/timeline?width=100&limit=1&start=${a}&end=${b}&max_messages=20000`);
    assert.equal(one.messages_total, want.length);
    assert.equal(one.messages_bundled, false);
    assert.deepEqual(one.messages.map((m) => [m.send, m.recv, m.bytes, rankOf.get(m.src), rankOf.get(m.dst)]),
      want.map((m) => [m.send_time, m.recv_time, m.bytes, m.src_rank, m.dst_rank]));
    const few = await get(`/timeline?width=100&limit=1&start=${a}&end=${b}&max_messages=12`);
    assert.equal(few.messages_total, want.length);
    if (want.length > 12) { // at most 6 pairs in a ring of 6: bundled, never truncated
      bundled++;
      assert.equal(few.messages_bundled, true);
      assert.equal(few.messages_truncated, false);
      assert.ok(few.messages.length <= 12);
      assert.equal(few.messages.reduce((s, m) => s + m.count, 0), want.length);
      assert.equal(few.messages.reduce((s, m) => s + m.bytes, 0), want.reduce((s, m) => s + m.bytes, 0));
    }
  }
  assert.ok(bundled >= 6, `${bundled} windows bundled`);
});

test('a warm cache answers the same bytes', { skip }, async () => {
  const p = `${d.url}/api/v1/traces/${id}/timeline?width=333&max_messages=7`;
  const first = await (await fetch(p)).text();
  const again = await (await fetch(p)).text();
  assert.equal(again, first);
});

test('containers= keeps the messages between the kept rows\' containers', { skip }, async () => {
  const ids = [...rankOf.keys()].slice(0, 3);
  const ranks = new Set(ids.map((c) => rankOf.get(c)));
  const want = all.filter((m) => ranks.has(m.src_rank) && ranks.has(m.dst_rank));
  const tl = await get(`/timeline?width=100&max_messages=20000&containers=${ids.join(',')}`);
  assert.deepEqual(tl.rows.map((r) => r.container_id).sort(), [...ids].sort());
  assert.equal(tl.messages_total, want.length);
  assert.ok(want.length > 0 && want.length < all.length, `${want.length} of ${all.length}`);
  for (const m of tl.messages) assert.ok(ids.includes(m.src) && ids.includes(m.dst));
  // paging does not narrow them: the kept rows on every page count
  const paged = await get(`/timeline?width=100&max_messages=20000&limit=1&containers=${ids.join(',')}`);
  assert.equal(paged.messages_total, want.length);
  // without containers=, every message of the window
  const every = await get('/timeline?width=100&max_messages=20000');
  assert.equal(every.messages_total, all.length);
});
