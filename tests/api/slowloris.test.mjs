// slowloris.test.mjs: connections that send their headers a line at a time
// must not lock other clients out. 1,100 slow connections from 20 loopback
// addresses (127.0.0.2..127.0.0.21, 55 each: under the per-address limit)
// leave a normal client from 127.0.0.1 answered within a second, and are
// all shut down at the header deadline (--header-timeout), although each
// keeps sending a header line every second; one address gets no more than
// --max-connections-per-client connections; a request completed in time is
// answered, and a connection that sends no request (idle after opening or
// after a response) is closed at the idle deadline (--idle-timeout).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { startDaemon } from '../lib/daemon.mjs';
import { rawGet, stopClean } from '../fixtures/api/util.mjs';

const HEADER_TIMEOUT_S = 4;
const IDLE_TIMEOUT_S = 7;
const PER_CLIENT = 64;
const SLOW = 1100;
const ADDRESSES = 20;

let d;
let ticker;
const conns = [];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

before(async () => {
  d = await startDaemon({ args: ['--header-timeout', String(HEADER_TIMEOUT_S),
    '--idle-timeout', String(IDLE_TIMEOUT_S), '--max-connections-per-client', String(PER_CLIENT)] });
  // Every open slow connection sends one more header line each second.
  let n = 0;
  ticker = setInterval(() => {
    n++;
    for (const c of conns) {
      if (c.slow && c.openedAt && !c.closedAt) c.sock.write(`X-Slow-${n}: ${'x'.repeat(8)}\r\n`);
    }
  }, 1000);
});

after(async () => {
  clearInterval(ticker);
  for (const c of conns) c.sock.destroy();
  if (d) await stopClean(d);
});

// Opens a connection from localAddress and sends `first` (a request line
// and a header, for a slow one). Resolves once connected, or closed.
function open(localAddress, first, slow = true) {
  return new Promise((resolve) => {
    // startedAt comes before the daemon can accept the connection, so a
    // life measured from it is never shorter than the daemon's.
    const c = { slow, startedAt: performance.now(), openedAt: 0, closedAt: 0, received: '' };
    c.sock = connect({ port: d.port, host: '127.0.0.1', localAddress });
    conns.push(c);
    c.sock.setNoDelay(true);
    c.sock.on('connect', () => {
      c.openedAt = performance.now();
      c.sock.write(first);
      resolve(c);
    });
    c.sock.on('data', (b) => { c.received += b.toString('latin1'); });
    c.sock.on('error', () => { /* a reset after the server shut it down */ });
    c.sock.on('close', () => {
      c.closedAt = performance.now();
      resolve(c);
    });
  });
}

const SLOW_START = 'GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n';

async function waitClosed(list, ms) {
  const deadline = performance.now() + ms;
  while (list.some((c) => !c.closedAt) && performance.now() < deadline) await sleep(100);
}

test('1,100 slow connections do not block a normal client, and end at the header deadline', async () => {
  const slow = await Promise.all(Array.from({ length: SLOW },
    (_, i) => open(`127.0.0.${2 + (i % ADDRESSES)}`, SLOW_START)));
  await sleep(300); // let the daemon accept them
  assert.equal(slow.filter((c) => c.closedAt).length, 0, 'no slow connection is refused under the limits');

  const t0 = performance.now();
  const r = await rawGet(d.port, '/api/v1/health');
  const elapsed = performance.now() - t0;
  assert.equal(r.status, 200, r.head);
  assert.match(r.body, /"status":"ok"/);
  assert.ok(elapsed < 1000, `health took ${elapsed.toFixed(0)} ms beside ${SLOW} slow connections`);
  assert.equal(slow.filter((c) => c.closedAt).length, 0, 'the slow connections are still open');

  await waitClosed(slow, HEADER_TIMEOUT_S * 1000 + 5000);
  const open_ = slow.filter((c) => !c.closedAt).length;
  assert.equal(open_, 0, `${open_} slow connections outlived the header deadline`);
  const lives = slow.map((c) => (c.closedAt - c.startedAt) / 1000);
  const shortest = Math.min(...lives), longest = Math.max(...lives);
  assert.ok(shortest >= HEADER_TIMEOUT_S - 0.05, `a slow connection was closed after ${shortest.toFixed(2)} s`);
  assert.ok(longest <= HEADER_TIMEOUT_S + 3, `a slow connection was closed only after ${longest.toFixed(2)} s`);
  assert.ok(slow.every((c) => c.received === ''), 'a slow connection got an answer');
});

test('one address gets at most --max-connections-per-client connections', async () => {
  const extra = 10;
  const from = await Promise.all(Array.from({ length: PER_CLIENT + extra }, () => open('127.0.0.50', SLOW_START)));
  await sleep(1500);
  const refused = from.filter((c) => c.closedAt);
  assert.equal(refused.length, extra, `${refused.length} of ${PER_CLIENT + extra} connections from one address refused`);
  // Another address is served meanwhile.
  const r = await rawGet(d.port, '/api/v1/health');
  assert.equal(r.status, 200, r.head);
  // The accepted ones end at the header deadline.
  await waitClosed(from, HEADER_TIMEOUT_S * 1000 + 5000);
  assert.equal(from.filter((c) => !c.closedAt).length, 0, 'connections outlived the header deadline');
});

test('a request completed in time is answered; an idle keep-alive connection ends at the idle deadline', async () => {
  const c = await open('127.0.0.60', 'GET /api/v1/health HTTP/1.1\r\n', false);
  await sleep(1000);
  c.sock.write('Host: 127.0.0.1\r\n');
  await sleep(1000);
  c.sock.write('\r\n');
  const deadline = performance.now() + 3000;
  while (!/\r\n\r\n[\s\S]*"status"/.test(c.received) && !c.closedAt && performance.now() < deadline) await sleep(20);
  assert.match(c.received, /^HTTP\/1\.1 200 /, 'headers sent in 2 s, within the deadline, are answered');
  const answeredAt = performance.now();
  assert.equal(c.closedAt, 0, 'the connection is kept alive after the response');
  await waitClosed([c], IDLE_TIMEOUT_S * 1000 + 3000);
  assert.ok(c.closedAt, 'an idle keep-alive connection is closed');
  const idle = (c.closedAt - answeredAt) / 1000;
  assert.ok(idle >= IDLE_TIMEOUT_S - 0.5 && idle <= IDLE_TIMEOUT_S + 2.5, `closed after ${idle.toFixed(2)} s idle`);
});

test('a connection that never sends a request line ends at the idle deadline', async () => {
  const c = await open('127.0.0.70', '', false);
  const openedAt = performance.now();
  await sleep((HEADER_TIMEOUT_S + 1) * 1000);
  assert.equal(c.closedAt, 0, 'an idle connection outlives the header deadline');
  await waitClosed([c], IDLE_TIMEOUT_S * 1000);
  assert.ok(c.closedAt, 'an idle connection is closed');
  const idle = (c.closedAt - openedAt) / 1000;
  assert.ok(idle >= IDLE_TIMEOUT_S - 0.5 && idle <= IDLE_TIMEOUT_S + 2.5, `closed after ${idle.toFixed(2)} s idle`);
});
