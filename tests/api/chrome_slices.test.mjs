// chrome_slices.test.mjs: a generic Chrome / Perfetto JSON trace (no GPU,
// no data movement) imports as a timeline of slices (kind "tasks", format
// "chrome_trace", source role "chrome-slices"; src/ingest/chrome_slices.h)
// and its slices come back by process and thread from GET /states. On
// real files (Perfetto's flow tests, speedscope's trace-event samples):
// the state count equals the X events plus the B/E pairs (with the B left
// open, closed at the thread's end) counted here from the JSON; the
// deepest nesting equals the depth computed here with a stack per thread;
// instants and flow arrows equal the JSON's i/I events and Perfetto's
// oracle pairs (tests.py); names come from the thread_name metadata; times
// start at the first event, with the origin in the summary. A DMVis
// Kineto trace (GPU) stays a data-movement trace. Skips without
// ../shared/data.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDaemon, sourceDir, importCli, getOk } from '../lib/daemon.mjs';

const shared = process.env.ARIADNE_SHARED_DATA || join(sourceDir, '..', 'shared', 'data');
const PARSING = join(shared, 'perfetto', 'test', 'trace_processor', 'diff_tests', 'parser', 'parsing');
const SPEEDSCOPE = join(shared, 'speedscope', 'sample', 'profiles', 'trace-event');
const FILES = {
  flow_v1: join(PARSING, 'flow_events_json_v1.json'),
  flow_v2: join(PARSING, 'flow_events_json_v2.json'),
  simple: join(SPEEDSCOPE, 'simple.json'),
  multiprocess: join(SPEEDSCOPE, 'multiprocess.json'),
  bex: join(SPEEDSCOPE, 'bex-interaction.json'),
  matching_x: join(SPEEDSCOPE, 'x-events-matching-start.json'),
};
const FILL1 = join(shared, 'dmvis', 'data', 'use-case-1-GEMM-fill', 'fill-1-row-format.json');
const skip = Object.values(FILES).every(existsSync) && existsSync(FILL1) ? false : `no ${PARSING} or ${SPEEDSCOPE}`;

let d;
const ids = {};

before(async () => {
  if (skip) return;
  d = await startDaemon();
  for (const [label, path] of Object.entries(FILES)) ids[label] = importCli(d.db, path, label);
  ids.fill1 = importCli(d.db, FILL1, 'fill-1');
});

after(async () => {
  if (d) await d.stop();
});

const get = (path) => getOk(d.url, `/api/v1${path}`);

// The events of a file (array or object form; a truncated array is not
// used here).
function events(path) {
  const doc = JSON.parse(readFileSync(path, 'utf8'));
  return Array.isArray(doc) ? doc : doc.traceEvents;
}

// Independently of the reader: per thread, the B/E events in timestamp
// order (file order on ties) matched with a stack; an E with nothing open
// is dropped, a B left open ends at the thread's last timestamp. Then the
// depth of every slice with a plain stack of open ends (slices by start,
// the longer first): the number of slices still open at its start.
function expected(path) {
  const ev = events(path);
  const threads = new Map();
  const key = (e) => `${e.pid}|${e.tid}`;
  const th = (e) => {
    if (!threads.has(key(e))) threads.set(key(e), { be: [], slices: [], last: -Infinity });
    return threads.get(key(e));
  };
  let instants = 0, first = Infinity;
  for (const [i, e] of ev.entries()) {
    if (!['X', 'B', 'E', 'i', 'I'].includes(e.ph)) continue;
    const t = th(e);
    const end = e.ph === 'X' ? e.ts + (e.dur || 0) : e.ts;
    t.last = Math.max(t.last, end);
    if (e.ph !== 'E') first = Math.min(first, e.ts);
    if (e.ph === 'X') t.slices.push([e.ts, e.ts + e.dur]);
    else if (e.ph === 'B' || e.ph === 'E') t.be.push({ ...e, i });
    else instants++;
  }
  let count = 0, maxDepth = -1;
  for (const t of threads.values()) {
    t.be.sort((a, b) => a.ts - b.ts || a.i - b.i);
    const open = [];
    for (const e of t.be) {
      if (e.ph === 'B') open.push(e.ts);
      else if (open.length) t.slices.push([open.pop(), e.ts]);
    }
    for (const s of open) t.slices.push([s, t.last]);
    count += t.slices.length;
    t.slices.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
    const stack = [];
    for (const [s, e] of t.slices) {
      while (stack.length && stack[stack.length - 1] <= s) stack.pop();
      maxDepth = Math.max(maxDepth, stack.length);
      stack.push(e);
    }
  }
  const names = new Map(ev.filter((e) => e.ph === 'M' && e.name === 'thread_name').map((e) => [`${e.pid}|${e.tid}`, e.args.name]));
  return { count, maxDepth, instants, first, threads: threads.size, names };
}

// Every row of a trace's /states, every state listed.
async function allRows(id) {
  const rows = [];
  let doc;
  for (let offset = 0; ; offset += 100) {
    doc = await get(`/traces/${id}/states?limit=100&offset=${offset}&width=4000&max_states=1000000`);
    rows.push(...doc.rows);
    if (offset + 100 >= doc.total_rows) break;
  }
  return { doc, rows };
}

for (const label of Object.keys(FILES)) {
  test(`${label}: states = X + B/E pairs, depth and threads as computed from the JSON`, { skip }, async () => {
    const want = expected(FILES[label]);
    const trace = await get(`/traces/${ids[label]}`);
    assert.equal(trace.kind, 'tasks');
    assert.equal(trace.format, 'chrome_trace');
    assert.equal(trace.counts.states, want.count, 'states');
    assert.equal(trace.counts.events, want.instants, 'instants');
    assert.equal(trace.summary.time_origin, want.first, 'origin: the first event');
    assert.equal(trace.summary.time_unit, 'us');
    const { doc, rows } = await allRows(ids[label]);
    assert.equal(doc.start, 0, 'times from the first event');
    assert.equal(rows.length, want.threads, 'one row per thread');
    assert.equal(rows.reduce((n, r) => n + r.count, 0), want.count);
    assert.equal(Math.max(...rows.map((r) => r.max_depth)), want.maxDepth, 'deepest nesting');
    for (const r of rows) {
      assert.equal(r.type, 'Slice');
      assert.match(r.path, /^(pid \S+|.+) \/ .+$/, 'process / thread');
      // a state never overlaps another of its row at the same depth
      const byDepth = new Map();
      for (const s of r.states) {
        const list = byDepth.get(s[1]) || [];
        list.push(s);
        byDepth.set(s[1], list);
      }
      for (const list of byDepth.values()) {
        list.sort((a, b) => a[2] - b[2]);
        for (let i = 1; i < list.length; i++) assert.ok(list[i][2] >= list[i - 1][3], `${r.path}: overlap at depth ${list[i][1]}`);
      }
    }
    for (const name of want.names.values()) assert.ok(rows.some((r) => r.name === name), `thread_name ${name}`);
  });
}

test('simple.json: the nesting of speedscope\'s snapshot (alpha > beta > gamma, epsilon)', { skip }, async () => {
  const { doc, rows } = await allRows(ids.simple);
  const name = (s) => doc.values[s[0]].name;
  const got = rows[0].states.map((s) => `${name(s)}@${s[1]}:${s[2]}-${s[3]}`);
  assert.deepEqual(got, ['alpha@0:0-14', 'beta@1:1-13', 'gamma@2:2-7', 'epsilon@2:7-11']);
  assert.equal(rows[0].path, 'pid 0 / tid 0');
});

test('Perfetto flows: the oracle pairs of tests.py as links between threads', { skip }, async () => {
  for (const [label, pairs] of [
    ['flow_v1', ['SenderB>Blergh', 'SenderA>OtherSlice', 'OtherSlice>SomeSlice']],
    ['flow_v2', ['SenderB>Blergh', 'SenderA>OtherSlice', 'OtherSlice>SomeSlice', 'OtherSlice>SomeOtherSlice']],
  ]) {
    const trace = await get(`/traces/${ids[label]}`);
    assert.equal(trace.counts.links, pairs.length, label);
    // each pair is a link from the source slice's thread (at its end, or its
    // start when the target starts before that end) to the target's start
    const { doc, rows } = await allRows(ids[label]);
    const slices = rows.flatMap((r) => r.states.map((s) => ({ name: doc.values[s[0]].name, row: r.container_id, start: s[2], end: s[3] })));
    const { links } = await get(`/traces/${ids[label]}/links`);
    for (const p of pairs) {
      const [from, to] = p.split('>').map((n) => slices.find((s) => s.name === n));
      assert.ok(from && to, `${label}: ${p}`);
      const start = from.end <= to.start ? from.end : from.start;
      assert.ok(links.some((l) => l.from.container_id === from.row && l.to.container_id === to.row &&
        l.start === start && l.end === to.start), `${label}: link ${p}`);
    }
  }
});

test('a Kineto trace with GPU events stays a data-movement trace', { skip }, async () => {
  const trace = await get(`/traces/${ids.fill1}`);
  assert.equal(trace.kind, 'datamove');
  assert.equal(trace.format, 'chrome_trace');
});
