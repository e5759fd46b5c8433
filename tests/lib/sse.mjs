// sse.mjs: what the live-run tests share: a Server-Sent Events client
// (GET /api/v1/streams/{id}/events) that keeps the point and update events,
// counts resyncs, notes the closing event, and reconnects with
// Last-Event-ID after a lost connection (as a browser's EventSource does);
// waiting for a condition; and the first live run a daemon lists.
import http from 'node:http';
import { call } from '../fixtures/api/util.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Polls cond (every 50 ms) until it is true; throws after ms.
export async function until(cond, ms, what) {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

// The id of the first live run that the daemon at url lists (waits for one).
export async function firstStream(url) {
  let id = null;
  await until(async () => {
    const r = await call(url, '/api/v1/streams');
    const list = Array.isArray(r.json) ? r.json : r.json?.streams;
    if (list && list.length) id = list[0].trace_id;
    return id !== null;
  }, 30000, 'a live run to be listed');
  return id;
}

export class Watcher {
  constructor(url, path, { lastId = null, reconnect = true } = {}) {
    Object.assign(this, { url, path, lastId, reconnect });
    this.events = []; this.closed = false; this.stopped = false; this.resyncs = 0; this.connects = 0;
    this.statuses = []; this.buf = '';
    this.connect();
  }
  connect() {
    if (this.stopped) return;
    const headers = this.lastId !== null ? { 'Last-Event-ID': String(this.lastId) } : {};
    this.connects++;
    this.req = http.get(this.url + this.path, { headers, agent: false }, (res) => {
      this.statuses.push(res.statusCode);
      this.headers = res.headers;
      res.setEncoding('utf8');
      this.buf = '';
      res.on('data', (chunk) => this.feed(chunk));
      res.on('end', () => this.ended());
      res.on('error', () => this.ended());
    });
    this.req.on('error', () => this.ended());
  }
  ended() {
    if (this.stopped || this.closed || !this.reconnect || this.pending) return;
    this.pending = setTimeout(() => { this.pending = null; this.connect(); }, 300);
  }
  feed(chunk) {
    this.buf += chunk;
    let i;
    while ((i = this.buf.indexOf('\n\n')) >= 0) {
      const frame = this.buf.slice(0, i);
      this.buf = this.buf.slice(i + 2);
      let id = null, event = 'message', data = '';
      for (const line of frame.split('\n')) {
        if (line.startsWith('id: ')) id = Number(line.slice(4));
        else if (line.startsWith('event: ')) event = line.slice(7);
        else if (line.startsWith('data: ')) data += line.slice(6);
      }
      if (event === 'point' || event === 'update') {
        this.events.push({ event, id, msg: JSON.parse(data) });
        this.lastId = id;
      } else if (event === 'closed') {
        this.closed = true;
        this.closedData = data;
      } else if (event === 'resync') {
        this.resyncs++;
      }
    }
  }
  points() { return this.events.filter((e) => e.event === 'point'); }
  stop() {
    this.stopped = true;
    if (this.pending) clearTimeout(this.pending);
    this.req?.destroy();
  }
}
