// events_comm.test.mjs: the communication endpoints of an event trace
// (server/api_event_comm.c, api_event_timeline.c) on Pipit's ping-pong
// OTF2 trace, asserting Pipit's own values from its tests/trace.py
// (comm_matrix, comm_by_process, comm_over_time with bins=5) and values
// computed here independently: the size histogram as numpy.histogram
// defines it from the /messages sizes, and the wait states by brute force
// from /messages and the Function states of /timeline (Scalasca's late
// sender / late receiver). Also: CSV forms, the bundling of /timeline's
// messages, 400s, 404 and the 409 of a trace that is not an event trace.
// Skips without ../shared/data/pipit.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startDaemon, sourceDir, importCli, getOk } from '../lib/daemon.mjs';

const shared = process.env.ARIADNE_SHARED_DATA || join(sourceDir, '..', 'shared', 'data');
const PING = join(shared, 'pipit', 'pipit', 'tests', 'data', 'ping-pong-otf2');
const PAJE = join(sourceDir, 'tests', 'fixtures', 'paje', 'basic.trace');
const skip = existsSync(join(PING, 'traces.otf2')) ? false : `no ${PING}`;

let d;
const ids = {};

before(async () => {
  if (skip) return;
  d = await startDaemon();
  ids.ping = importCli(d.db, PING, 'ping-pong');
  ids.paje = importCli(d.db, PAJE, 'paje');
});

after(async () => {
  if (d) await d.stop();
});

const get = (path) => getOk(d.url, `/api/v1/traces/${ids.ping}${path}`);

async function getError(path, status) {
  const r = await fetch(`${d.url}/api/v1${path}`);
  const body = await r.json();
  assert.equal(r.status, status, `${path}: ${JSON.stringify(body)}`);
  return body.error;
}

async function getCsv(path) {
  const r = await fetch(`${d.url}/api/v1/traces/${ids.ping}${path}`);
  assert.equal(r.status, 200, path);
  assert.match(r.headers.get('content-type') || '', /^text\/csv/, path);
  return (await r.text()).trim().split(/\r\n/).map((l) => l.split(','));
}

test('comm matrix: Pipit comm_matrix and comm_by_process on ping-pong', { skip }, async () => {
  const bytes = await get('/comm-matrix');
  assert.equal(bytes.time_unit, 'ns');
  assert.equal(bytes.kind, 'bytes');
  assert.deepEqual(bytes.ranks, [0, 1]);
  assert.equal(bytes.block, 1);
  // Pipit: size[0][1] == size[1][0] == 4177920, zero diagonal
  assert.deepEqual(bytes.matrix, [[0, 4177920], [4177920, 0]]);
  assert.equal(bytes.total, 2 * 4177920);
  assert.equal(bytes.max, 4177920);
  const count = await get('/comm-matrix?kind=count');
  assert.deepEqual(count.matrix, [[0, 8], [8, 0]]);
  // Pipit comm_by_process: Sent / Received 4177920 bytes and 8 messages per rank
  for (const p of bytes.processes) {
    assert.equal(p.sent_bytes, 4177920);
    assert.equal(p.received_bytes, 4177920);
    assert.equal(p.sent_count, 8);
    assert.equal(p.received_count, 8);
  }
  assert.deepEqual(bytes.unmatched, { sends: 0, receives: 0 });
  // one block of two ranks
  const one = await get('/comm-matrix?max_ranks=1');
  assert.equal(one.block, 2);
  assert.deepEqual(one.matrix, [[2 * 4177920]]);
  assert.deepEqual(one.labels, ['ranks 0-1']);
  const csv = await getCsv('/comm-matrix?format=csv');
  assert.deepEqual(csv, [['sender', 'receiver', 'value', 'kind'], ['0', '1', '4177920', 'bytes'], ['1', '0', '4177920', 'bytes']]);
});

test('messages: 16 by send time, paged; sums agree with the matrix', { skip }, async () => {
  const all = await get('/messages?limit=100000');
  assert.equal(all.total, 16);
  assert.equal(all.messages.length, 16);
  for (let i = 1; i < 16; i++) assert.ok(all.messages[i - 1].send_time <= all.messages[i].send_time);
  const sum = {};
  for (const m of all.messages) {
    assert.ok(m.recv_time > m.send_time);
    sum[`${m.src_rank}>${m.dst_rank}`] = (sum[`${m.src_rank}>${m.dst_rank}`] || 0) + m.bytes;
  }
  assert.deepEqual(sum, { '0>1': 4177920, '1>0': 4177920 });
  const page = await get('/messages?offset=5&limit=3');
  assert.equal(page.total, 16);
  assert.deepEqual(page.messages, all.messages.slice(5, 8));
  const t = (all.messages[9].send_time + all.messages[10].send_time) / 2;
  const win = await get(`/messages?start=${t}`);
  assert.equal(win.total, 6);
  const csv = await getCsv('/messages?limit=2&format=csv');
  assert.equal(csv.length, 3);
  assert.equal(csv[0][0], 'src_rank');
});

// numpy.histogram(a, bins): equal bins over [min, max], the last closed.
function numpyHistogram(values, bins) {
  let lo = Math.min(...values), hi = Math.max(...values);
  if (lo === hi) { lo -= 0.5; hi += 0.5; }
  const edges = Array.from({ length: bins + 1 }, (_, i) => (i === bins ? hi : lo + i * ((hi - lo) / bins)));
  const counts = new Array(bins).fill(0);
  for (const v of values) {
    let k = bins - 1;
    for (let i = 0; i < bins; i++) if (v >= edges[i] && v < edges[i + 1]) { k = i; break; }
    counts[k]++;
  }
  return { edges, counts };
}

test('message histogram: numpy.histogram of the sizes', { skip }, async () => {
  const sizes = (await get('/messages?limit=100000')).messages.map((m) => m.bytes);
  for (const bins of [20, 3, 1, 7]) {
    const h = await get(`/message-histogram?bins=${bins}`);
    const want = numpyHistogram(sizes, bins);
    assert.equal(h.messages, 16);
    assert.deepEqual(h.counts, want.counts, `bins=${bins}`);
    h.edges.forEach((e, i) => assert.ok(Math.abs(e - want.edges[i]) <= 1e-9 * Math.abs(e), `edge ${i}`));
  }
  // by hand: sizes 16 KiB..2 MiB, two of each power of two
  assert.deepEqual((await get('/message-histogram')).counts, [6, 2, 2, 0, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2]);
});

test('comm over time: Pipit comm_over_time, bins=5', { skip }, async () => {
  const size = await get('/comm-over-time?bins=5');
  assert.equal(size.edges.length, 6);
  assert.deepEqual(size.values.slice(0, 3), [0, 0, 0]); // all(hist[0:3] == 0)
  assert.equal(size.values[4], 2 * 4177920);
  const count = await get('/comm-over-time?bins=5&kind=count&side=receive');
  assert.deepEqual(count.values.slice(0, 3), [0, 0, 0]);
  assert.equal(count.values[4], 16);
  assert.equal(count.side, 'receive');
  const csv = await getCsv('/comm-over-time?bins=5&format=csv');
  assert.equal(csv.length, 6);
  assert.deepEqual(csv[0], ['bin', 'start_ns', 'value', 'kind', 'side']);
});

// The innermost state of a row containing t: the send side takes the state
// starting there, the receive side the one ending there (a state that
// started before t first).
function innermost(states, t, receive) {
  for (const strict of receive ? [true, false] : [false]) {
    let best = null;
    for (const s of states) {
      const inside = (strict ? s.start < t : s.start <= t) && s.end >= t;
      if (inside && (!best || s.start > best.start || (s.start === best.start && s.depth > best.depth))) best = s;
    }
    if (best) return best;
  }
  return null;
}

test('wait states: Scalasca late sender / late receiver against brute force', { skip }, async () => {
  const ws = await get('/wait-states');
  assert.match(ws.definition, /Late Sender/);
  assert.match(ws.definition, /Late Receiver/);
  const tl = await get('/timeline?width=4000&max_states=1000000&max_messages=20000');
  assert.equal(tl.messages_bundled, false);
  const rowStates = {};
  for (const row of tl.rows) {
    assert.equal(row.mode, 'states');
    rowStates[row.container_id] = row.states.map(([v, depth, start, end]) => ({ name: tl.values[v].name, depth, start, end }));
  }
  const msgs = (await get('/messages?limit=100000')).messages;
  const rankOf = {};
  for (const m of tl.messages) {
    const twin = msgs.find((x) => x.send_time === m.send && x.recv_time === m.recv);
    assert.ok(twin, 'a /timeline message is in /messages');
    rankOf[m.src] = twin.src_rank;
    rankOf[m.dst] = twin.dst_rank;
  }
  const pairs = {};
  let ls = 0, lr = 0;
  const recvCalls = new Set(['MPI_Recv', 'MPI_Sendrecv', 'MPI_Wait', 'MPI_Waitall', 'MPI_Waitany', 'MPI_Waitsome']);
  for (const m of tl.messages) {
    const s = innermost(rowStates[m.src], m.send, false), r = innermost(rowStates[m.dst], m.recv, true);
    assert.ok(s && r, 'each side is in a call');
    const key = `${rankOf[m.src]}>${rankOf[m.dst]}`;
    const p = pairs[key] || (pairs[key] = { ls: 0, lst: 0, lr: 0, lrt: 0 });
    if (recvCalls.has(r.name) && r.start < s.start) {
      p.ls++; p.lst += s.start - r.start; ls++;
    } else if ((s.name === 'MPI_Send' || s.name === 'MPI_Ssend') && s.start < r.start && r.start < s.end) {
      p.lr++; p.lrt += r.start - s.start; lr++;
    }
  }
  assert.ok(ls + lr > 0, 'ping-pong has wait states');
  assert.equal(ws.totals.late_sender_count, ls);
  assert.equal(ws.totals.late_receiver_count, lr);
  for (const q of ws.pairs) {
    const p = pairs[`${q.sender}>${q.receiver}`];
    assert.ok(p, `pair ${q.sender}>${q.receiver}`);
    assert.equal(q.late_sender_count, p.ls);
    assert.equal(q.late_receiver_count, p.lr);
    assert.ok(Math.abs(q.late_sender_time - p.lst) <= 1e-6 * (1 + p.lst));
    assert.ok(Math.abs(q.late_receiver_time - p.lrt) <= 1e-6 * (1 + p.lrt));
  }
  assert.equal(ws.pairs.reduce((a, q) => a + q.late_sender_count + q.late_receiver_count, 0), ls + lr);
  // per rank: late sender on the receiver, late receiver on the sender
  for (const r of ws.ranks) {
    assert.equal(r.late_sender_count, ws.pairs.filter((q) => q.receiver === r.rank).reduce((a, q) => a + q.late_sender_count, 0));
    assert.equal(r.late_receiver_count, ws.pairs.filter((q) => q.sender === r.rank).reduce((a, q) => a + q.late_receiver_count, 0));
  }
});

test('timeline: the /states answer plus the messages, bundled beyond max_messages', { skip }, async () => {
  const states = await get('/states?width=300');
  const tl = await get('/timeline?width=300');
  for (const k of ['start', 'end', 'width', 'total_rows', 'values', 'rows', 'extent']) assert.deepEqual(tl[k], states[k], k);
  assert.equal(tl.messages_total, 16);
  assert.equal(tl.messages_bundled, false);
  assert.equal(tl.messages.length, 16);
  for (const m of tl.messages) assert.equal(m.count, 1);
  const b = await get('/timeline?width=300&max_messages=4');
  assert.equal(b.messages_bundled, true);
  assert.ok(b.messages.length <= 4, `${b.messages.length} bundles for max_messages=4`);
  assert.equal(b.messages_truncated, false);
  assert.equal(b.messages.reduce((a, m) => a + m.count, 0), 16);
  assert.equal(b.messages.reduce((a, m) => a + m.bytes, 0), 2 * 4177920);
  // a window holding no message
  const empty = await get(`/timeline?start=0&end=1000`);
  assert.equal(empty.messages_total, 0);
  assert.deepEqual(empty.messages, []);
});

test('errors: 400 for bad parameters, 404 absent, 409 not an event trace', { skip }, async () => {
  const p = `/traces/${ids.ping}`;
  assert.match((await getError(`${p}/comm-matrix?kind=size`, 400)).message, /kind must be one of bytes, count/);
  assert.match((await getError(`${p}/comm-matrix?max_ranks=5000`, 400)).message, /max_ranks/);
  assert.match((await getError(`${p}/message-histogram?bins=0`, 400)).message, /bins must be an integer in 1..1000/);
  assert.match((await getError(`${p}/comm-over-time?side=both`, 400)).message, /side must be one of send, receive/);
  assert.match((await getError(`${p}/messages?limit=100001`, 400)).message, /limit/);
  assert.match((await getError(`${p}/messages?start=5&end=1`, 400)).message, /end .* must be after start/);
  assert.match((await getError(`${p}/timeline?max_messages=0`, 400)).message, /max_messages/);
  await getError('/traces/999999/comm-matrix', 404);
  for (const e of ['messages', 'comm-matrix', 'message-histogram', 'comm-over-time', 'wait-states', 'timeline']) {
    const err = await getError(`/traces/${ids.paje}/${e}`, 409);
    assert.equal(err.code, 'not_event_trace');
    assert.match(err.message, /is a \w+ trace; this endpoint needs an event trace \(OTF2, Projections, HPCToolkit trace\.db\)/);
  }
});
