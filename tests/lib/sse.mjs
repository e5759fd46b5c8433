// sse.mjs: a Server-Sent Events client for the live-run tests
// (GET /api/v1/streams/{id}/events): it keeps the point and update events,
// counts resyncs, notes the closing event, and reconnects with
// Last-Event-ID after a lost connection (as a browser's EventSource does).
import http from 'node:http';

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
