// live_events.test.mjs: watching live runs (issue 18): GET /streams/{id}/events
// (Server-Sent Events), /state, /control, /comm, /comm/diff.
//  - `ariadned replay` streams the ROSS sample (or, without it, a generated
//    PDES run) at 20 Hz while two SSE clients watch; the daemon is killed
//    (SIGKILL) mid-run and restarted on the same database and port: replay
//    resumes by itself, the clients reconnect with Last-Event-ID, and each
//    still receives every time point exactly once, in order; the stored run
//    has every point of the source;
//  - /state agrees with the last message; a control changes k and the next
//    messages have k clusters; comm and comm/diff (JSON and CSV); a closed run
//    replayed with ?replay=50; 4xx JSON errors for bad ids and parameters;
//  - robustness: 300 SSE connections (beyond the limit: 503 JSON), clients
//    that vanish, bad controls (400 naming the field), a run deleted while
//    watched, a client that reads nothing (event: resync, then the end).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ariadned, freePort, runCli, sharedData, staticDir } from '../lib/daemon.mjs';
import { Watcher, firstStream, until } from '../lib/sse.mjs';
import { assertError, call, sendJson, stopDaemon } from '../fixtures/api/util.mjs';

const shared = process.env.ARIADNE_SHARED_DATA || sharedData;
const rossDir = join(shared, 'ross-sample');
const haveRoss = existsSync(join(rossDir, 'RbTotal.csv'));
const root = mkdtempSync(join(tmpdir(), 'ariadne-live-'));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let small; // a small generated PDES run (CommData included)

before(() => {
  small = join(root, 'small-pdes');
  const r = runCli(['generate', '--kind', 'pdes', '--pes', '4', '--kps', '4', '--lps', '2', '--samples', '40',
    '--seed', '7', small]);
  assert.equal(r.status, 0, `generate: ${r.stderr}`);
});
after(() => rmSync(root, { recursive: true, force: true }));

// ---- a daemon on a given port (restartable on the same database) ----
async function serve(dir, port) {
  const child = spawn(ariadned, ['serve', '--db', join(dir, 'live.db'), '--listen', `127.0.0.1:${port}`,
    '--static', staticDir, '--log-level', 'warn', '--idle-timeout', '900'], { stdio: ['ignore', 'inherit', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`ariadned exited: ${child.exitCode}`);
    try { if ((await fetch(url + '/api/v1/health')).ok) break; } catch { /* not up yet */ }
    if (Date.now() > deadline) { child.kill('SIGKILL'); throw new Error('ariadned did not start'); }
    await sleep(50);
  }
  return { child, url, port, dir };
}

function replay(url, source, rate, extra = []) {
  const child = spawn(ariadned, ['replay', '--rate', String(rate), '--retry-seconds', '60', ...extra, '--to', url, source],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '', err = '';
  child.stdout.on('data', (c) => { out += c; });
  child.stderr.on('data', (c) => { err += c; });
  const done = new Promise((resolve) => child.on('exit', (code) => resolve({ code, out, err })));
  return { child, done };
}

// The per-time mean over KPs of one metric of a CSV matrix (header = LastGvt).
function csvMeans(path) {
  const rows = readFileSync(path, 'utf8').trim().split('\n').map((l) => l.split(',').map((x) => Number(x.replace(/"/g, ''))));
  const body = rows.slice(1);
  return rows[0].map((_, t) => body.reduce((s, r) => s + r[t], 0) / body.length);
}

function assertEveryPointOnce(w, n, what) {
  const pts = w.points();
  assert.deepEqual(pts.map((e) => e.id), Array.from({ length: n }, (_, i) => i + 1), `${what}: seq 1..${n} once each`);
  for (let i = 1; i < pts.length; i++)
    assert.ok(pts[i].msg.t_idx > pts[i - 1].msg.t_idx, `${what}: t_idx increases (${i})`);
  for (const e of pts) assert.equal(e.msg.seq, e.id, `${what}: data.seq = id`);
}

test('two SSE clients see every point once across a kill -9 and restart', async () => {
  const source = haveRoss ? rossDir : small;
  const n = csvMeans(join(source, 'RbTotal.csv')).length;
  const dir = mkdtempSync(join(root, 'kill-'));
  const port = await freePort();
  let d = await serve(dir, port);
  const rp = replay(d.url, source, 20);
  const id = await firstStream(d.url);
  const path = `/api/v1/streams/${id}/events`;
  const a = new Watcher(d.url, path, { lastId: 0 }), b = new Watcher(d.url, path, { lastId: 0 });
  try {
    await until(() => a.points().length >= Math.min(30, n / 3) && b.points().length >= 5, 60000, 'points before the kill');
    const r = await stopDaemon(d, 'SIGKILL');
    assert.equal(r.signal, 'SIGKILL');
    await sleep(700);
    d = await serve(dir, port);
    const res = await rp.done;
    assert.equal(res.code, 0, `replay: ${res.err.slice(-2000)}`);
    await until(() => a.closed && b.closed, 60000, 'both clients to see the close');
    assert.ok(a.connects >= 2 && b.connects >= 2, 'the clients reconnected');
    assertEveryPointOnce(a, n, 'client A');
    assertEveryPointOnce(b, n, 'client B');
    const m = a.points()[n - 1].msg;
    for (const key of ['top', 'bottom', 'summary', 'cpd', 'clusters', 'dr', 'causality', 'comm_live', 'latency'])
      assert.ok(key in m, `the message has ${key}`);
    assert.equal(m.clusters.labels.length, m.entities_n);
    assert.equal(m.top.values.length, m.entities_n);
    assert.equal(m.dr.top_xy.length, m.entities_n);
    assert.ok(m.latency.arrival_to_send_ms >= 0);
    // the stored run: every point of the source, the same values
    const run = await call(d.url, `/api/v1/streams/${id}`);
    assert.equal(run.status, 200, run.text);
    assert.equal(run.json.n_points, n, 'every acknowledged point is stored');
    assert.equal(run.json.state, 'closed');
    const st = await call(d.url, `/api/v1/streams/${id}/state`);
    assert.equal(st.status, 200, st.text);
    assert.equal(st.json.n_points, n);
    const want = csvMeans(join(source, 'RbTotal.csv'));
    want.forEach((v, t) => assert.ok(Math.abs(st.json.summary.RbTotal[t] - v) <= 1e-9 * Math.max(1, Math.abs(v)),
      `RbTotal mean at ${t}: ${st.json.summary.RbTotal[t]} vs ${v}`));
  } finally {
    a.stop(); b.stop();
    rp.child.kill('SIGKILL');
    await stopDaemon(d);
  }
});

test('state, controls, comm and replay of a closed run; 4xx errors', async () => {
  const dir = mkdtempSync(join(root, 'api-'));
  const d = await serve(dir, await freePort());
  const n = csvMeans(join(small, 'RbTotal.csv')).length;
  // 5 points a second: the run (40 points) is still open when the controls
  // change, even on a loaded machine (a closed run's feed has ended)
  const rp = replay(d.url, small, 5);
  try {
    const id = await firstStream(d.url);
    const base = `/api/v1/streams/${id}`;
    const w = new Watcher(d.url, `${base}/events`, { lastId: 0 });
    await until(() => w.points().length >= 8, 30000, 'eight points');
    // a control changes k: the next messages have k clusters
    // (the indices are taken before the POST: its message may arrive before its answer)
    const at = w.events.length;
    const c = await sendJson(d.url, 'POST', `${base}/control`, { k: 4, budgets: { cluster_ms: 20 } });
    assert.equal(c.status, 200, c.text);
    assert.equal(c.json.k, 4);
    assert.equal(c.json.budgets.cluster_ms, 20);
    await until(() => w.events.slice(at).some((e) => e.event === 'update' && e.msg.clusters.k === 4), 20000,
      'the update message of the new controls');
    const after = w.events.slice(at).filter((e) => e.msg.controls_version >= c.json.version);
    assert.ok(after.length > 0);
    for (const e of after) {
      assert.equal(e.msg.clusters.k, 4);
      assert.equal(e.msg.clusters.sizes.length, 4);
      assert.equal(e.msg.clusters.sizes.reduce((s, x) => s + x, 0), e.msg.entities_n);
    }
    // the granularity: the 4 PEs, each the mean of its KPs
    const at2 = w.events.length;
    const g2 = await sendJson(d.url, 'POST', `${base}/control`, { granularity: 'PE' });
    assert.equal(g2.status, 200, g2.text);
    assert.equal(g2.json.granularity, 'PE');
    await until(() => w.events.slice(at2).some((e) => e.msg.granularity === 'PE'), 20000, 'a message at the PE level');
    const pm = w.events.slice(at2).find((e) => e.msg.granularity === 'PE').msg;
    assert.equal(pm.entities_n, 4);
    assert.equal(pm.entity_ids.length, 4);
    assert.equal(pm.top.values.length, 4);
    assert.equal(pm.clusters.labels.length, 4);
    assert.equal(pm.dr.top_xy.length, 4);
    // bad controls: 400 naming the field
    for (const [body, field] of [[{ k: 0 }, 'k'], [{ alpha: 2 }, 'alpha'], [{ top: 'NoSuchMetric' }, 'top'],
      [{ causality: { direction: 'up' } }, 'causality.direction'], [{ granularity: 'XX' }, 'granularity'],
      [{ budgets: { dr_ms: -1 } }, 'budgets.dr_ms'], [{ window: 1.5 }, 'window'], [{ nonsense: 1 }, 'nonsense']]) {
      const r = await sendJson(d.url, 'POST', `${base}/control`, body);
      assertError(r, 400, 'invalid_parameter', JSON.stringify(body));
      assert.match(r.json.error.message, new RegExp(`'${field.replace('.', '\\.')}`), r.json.error.message);
    }
    const res = await rp.done;
    assert.equal(res.code, 0, res.err.slice(-2000));
    await until(() => w.closed, 30000, 'the close');
    assertEveryPointOnce(w, n, 'watcher');
    // /state agrees with the last message
    const st = await call(d.url, `${base}/state`);
    assert.equal(st.status, 200, st.text);
    const last = w.points().at(-1).msg;
    assert.equal(st.json.state, 'closed');
    assert.equal(st.json.n_points, n);
    assert.equal(st.json.times.length, n);
    assert.equal(st.json.last.t_idx, last.t_idx);
    assert.equal(st.json.last.seq, last.seq);
    assert.equal(st.json.controls.k, 4);
    assert.ok(st.json.entities.length >= last.entities_n);
    // comm: the live matrix at KP and PE levels, a drill-down, CSV
    const kp = await call(d.url, `${base}/comm?t=live&level=KP`);
    assert.equal(kp.status, 200, kp.text);
    assert.equal(kp.json.t_idx, n - 1);
    assert.equal(kp.json.ids.length, 16);
    assert.equal(kp.json.matrix.length, 16);
    assert.equal(kp.json.labels.length, 16);
    const pe = await call(d.url, `${base}/comm?t=${n - 1}&level=PE`);
    assert.equal(pe.status, 200, pe.text);
    assert.equal(pe.json.matrix.length, 4);
    // a PE cell is the mean of its 4 x 4 block of KP cells
    const parent = new Map(st.json.entities.map((e) => [e.id, e.parent]));
    const kpRow = (id) => kp.json.ids.indexOf(id);
    for (let a = 0; a < 4; a++) for (let b = 0; b < 4; b++) {
      const ka = kp.json.ids.filter((x) => parent.get(x) === pe.json.ids[a]);
      const kb = kp.json.ids.filter((x) => parent.get(x) === pe.json.ids[b]);
      assert.equal(ka.length, 4);
      let s = 0;
      for (const x of ka) for (const y of kb) s += kp.json.matrix[kpRow(x)][kpRow(y)];
      assert.ok(Math.abs(pe.json.matrix[a][b] - s / 16) < 1e-9, `PE block ${a},${b}`);
    }
    const g = await call(d.url, `${base}/comm?level=PE&group=${pe.json.ids[1]}`);
    assert.equal(g.status, 200, g.text);
    assert.equal(g.json.group, pe.json.ids[1]);
    assert.equal(g.json.matrix.length, 4);
    const csv = await call(d.url, `${base}/comm?level=PE&format=csv`);
    assert.equal(csv.status, 200, csv.text);
    assert.match(csv.headers.get('content-type'), /text\/csv/);
    assert.match(csv.text.split('\r\n')[0], /source.*target.*value/);
    assert.equal(csv.text.trim().split('\r\n').length, 1 + 16);
    const diff = await call(d.url, `${base}/comm/diff?base=0&cps=${n - 1},${n - 2}&level=PE`);
    assert.equal(diff.status, 200, diff.text);
    assert.equal(diff.json.diffs.length, 2);
    const b0 = await call(d.url, `${base}/comm?t=0&level=PE`);
    for (let a = 0; a < 4; a++) for (let b = 0; b < 4; b++)
      assert.ok(Math.abs(diff.json.diffs[0].matrix[a][b] - (pe.json.matrix[a][b] - b0.json.matrix[a][b])) < 1e-9);
    const all = await call(d.url, `${base}/comm/diff?base=0&cps=all`);
    assert.equal(all.status, 200, all.text);
    assert.equal(all.json.diffs.length, st.json.change_points.length);
    const dcsv = await call(d.url, `${base}/comm/diff?base=0&cps=1&level=PE&format=csv`);
    assert.equal(dcsv.status, 200, dcsv.text);
    assert.equal(dcsv.text.trim().split('\r\n').length, 1 + 16);
    // a closed run replayed at 50 Hz: every point, then closed
    const r50 = new Watcher(d.url, `${base}/events?replay=50`, { reconnect: false });
    await until(() => r50.closed, 30000, 'the replay at 50 Hz');
    assertEveryPointOnce(r50, n, 'replay=50');
    assert.equal(r50.headers['content-type'], 'text/event-stream');
    // errors: 4xx JSON
    assertError(await call(d.url, '/api/v1/streams/abc/events'), 400, 'invalid_parameter', 'bad id');
    assertError(await call(d.url, '/api/v1/streams/999999/events'), 404, 'not_found', 'no run');
    assertError(await call(d.url, '/api/v1/streams/999999/state'), 404, 'not_found', 'no run state');
    assertError(await call(d.url, `${base}/events?replay=0`), 400, 'invalid_parameter', 'replay=0');
    assertError(await call(d.url, `${base}/events?replay=abc`), 400, 'invalid_parameter', 'replay=abc');
    assertError(await call(d.url, `${base}/events`, { headers: { 'Last-Event-ID': 'x' } }), 400, 'invalid_parameter', 'Last-Event-ID');
    assertError(await call(d.url, `${base}/comm?t=-1`), 400, 'invalid_parameter', 't=-1');
    assertError(await call(d.url, `${base}/comm?t=${n}`), 400, 'invalid_parameter', 't past the end');
    assertError(await call(d.url, `${base}/comm?level=XX`), 400, 'invalid_parameter', 'level');
    assertError(await call(d.url, `${base}/comm?group=99999`), 400, 'invalid_parameter', 'group');
    assertError(await call(d.url, `${base}/comm/diff`), 400, 'invalid_parameter', 'no base');
    assertError(await call(d.url, `${base}/comm/diff?base=0&cps=1,x`), 400, 'invalid_parameter', 'cps');
    assertError(await sendJson(d.url, 'POST', `${base}/control`, '{bad json'), 400, ['invalid_parameter', 'invalid_json', 'invalid_input'], 'bad json');
    w.stop(); r50.stop();
  } finally {
    rp.child.kill('SIGKILL');
    await stopDaemon(d);
  }
});

// Opens an SSE request on a raw socket; resolves with the status line's code.
function rawEvents(port, path) {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    let head = '';
    s.on('error', () => resolve({ status: 0, socket: s }));
    s.on('data', function onData(c) {
      head += c.toString('latin1');
      const m = /^HTTP\/1\.1 (\d+)/.exec(head);
      if (m && (m[1] === '200' || head.includes('\r\n\r\n{') || head.includes('}'))) {
        s.removeListener('data', onData);
        resolve({ status: Number(m[1]), socket: s, head });
      }
    });
    s.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
  });
}

test('300 event streams, vanishing clients, a run deleted while watched', async () => {
  const dir = mkdtempSync(join(root, 'many-'));
  const d = await serve(dir, await freePort());
  const rp = replay(d.url, small, 10);
  try {
    const id = await firstStream(d.url);
    const path = `/api/v1/streams/${id}/events`;
    const opened = [];
    for (let i = 0; i < 300; i++) opened.push(await rawEvents(d.port, path));
    const ok = opened.filter((o) => o.status === 200).length, busy = opened.filter((o) => o.status === 503);
    assert.equal(ok, 256, `256 streams accepted, got ${ok}`);
    assert.equal(busy.length, 44, 'the others are refused with 503');
    assert.match(busy[0].head, /application\/json/);
    assert.match(busy[0].head, /"busy"/);
    // they all vanish at once, without a word
    for (const o of opened) o.socket.destroy();
    await sleep(500);
    const w = new Watcher(d.url, path, { lastId: 0 });
    await until(() => w.points().length >= 5, 30000, 'a new stream after the others vanished');
    assert.equal((await call(d.url, '/api/v1/health')).status, 200);
    // deleted while watched: the stream ends, the daemon goes on
    await rp.done;
    const del = await call(d.url, `/api/v1/traces/${id}`, { method: 'DELETE' });
    assert.equal(del.status, 204, del.text);
    assertError(await call(d.url, `/api/v1/streams/${id}/state`), 404, 'not_found', 'deleted run');
    await until(() => w.closed || w.statuses.at(-1) === 404, 30000, 'the watcher to see the end');
    w.stop();
    // an open run deleted while watched: the watcher's stream ends, the daemon goes on
    const rp2 = replay(d.url, small, 5, ['--name', 'second', '--retry-seconds', '1']);
    let id2 = null;
    await until(async () => {
      const list = (await call(d.url, '/api/v1/streams')).json;
      const runs = Array.isArray(list) ? list : list.streams;
      id2 = runs.find((x) => x.name === 'second')?.trace_id ?? null;
      return id2 !== null;
    }, 30000, 'the second run').catch(async (e) => { rp2.child.kill(); const r = await rp2.done; throw new Error(e.message + ': ' + r.err.slice(-1500)); });
    const w2 = new Watcher(d.url, `/api/v1/streams/${id2}/events`, { lastId: 0 });
    await until(() => w2.points().length >= 3, 30000, 'points of the second run');
    const del2 = await call(d.url, `/api/v1/traces/${id2}`, { method: 'DELETE' });
    if (del2.status === 204) {
      await until(() => w2.closed || w2.statuses.at(-1) === 404, 30000, 'the end of the deleted run\'s stream');
      if (w2.closed) assert.match(w2.closedData, /closed|deleted/);
    } else {
      assertError(del2, 409, ['live_run', 'conflict', 'busy'], 'delete an open run');
    }
    w2.stop();
    rp2.child.kill('SIGKILL');
    assert.equal((await call(d.url, '/api/v1/health')).status, 200);
  } finally {
    rp.child.kill('SIGKILL');
    const r = await stopDaemon(d);
    assert.deepEqual(r, { code: 0, signal: null }, 'a clean stop with streams open');
  }
});

test('a client that does not read is sent event: resync and closed', async () => {
  // 256 KPs, 120 points: about 18 MB of messages, more than the socket buffers hold
  const big = join(root, 'big-pdes');
  const g = runCli(['generate', '--kind', 'pdes', '--pes', '16', '--kps', '16', '--lps', '1', '--samples', '120',
    '--seed', '5', big]);
  assert.equal(g.status, 0, g.stderr);
  const dir = mkdtempSync(join(root, 'slow-'));
  const d = await serve(dir, await freePort());
  const rp = replay(d.url, big, 0);
  try {
    const id = await firstStream(d.url);
    const s = net.connect(d.port, '127.0.0.1');
    await new Promise((r) => s.once('connect', r));
    s.write(`GET /api/v1/streams/${id}/events?last_event_id=0 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    s.pause(); // reads nothing while the run streams
    const res = await rp.done;
    assert.equal(res.code, 0, res.err.slice(-1500));
    await sleep(1000);
    let text = '';
    s.on('data', (c) => { text += c.toString('latin1'); });
    s.resume();
    await until(() => text.includes('event: resync') && text.endsWith('\r\n0\r\n\r\n'), 30000, 'resync and the end');
    assert.match(text, /data: \{"reason":"slow_client"\}/);
    const points = (text.match(/event: point/g) || []).length;
    assert.ok(points < 120, `a slow client does not get all ${points} points`);
    assert.ok(!text.includes('event: closed'), 'after a resync nothing but the end');
    s.destroy();
    const w = new Watcher(d.url, `/api/v1/streams/${id}/events`, { lastId: 0 });
    await until(() => w.closed, 30000, 'a reading client');
    assert.equal(w.points().length, 120, 'a client that reads gets every kept point');
    w.stop();
  } finally {
    rp.child.kill('SIGKILL');
    await stopDaemon(d);
  }
});
