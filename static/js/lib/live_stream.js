// lib/live_stream.js: the connection of the live-run page (views/live.js) to
// a run (contract18 section 3): the snapshot GET /api/v1/streams/{id}/state
// and the Server-Sent Events of GET .../events, read with fetch() (so the
// API token goes in the Authorization header, which EventSource cannot
// send) and parsed here (id, event, data, retry; comments are keepalives).
// Reconnection: after a network error or the end of the response the
// stream reconnects after `retry` ms (1 s by default, as the server says)
// with Last-Event-ID = the last seq seen, so no point is missed or repeated;
// `event: resync` (this client fell behind) fetches /state and reconnects
// from its seq. Pause is a client-side freeze: messages keep arriving and
// are counted, nothing is applied; resume fetches /state, applies it, and
// applies the messages after it again. A closed run is replayed from the
// start with ?replay=HZ.
//
//   const s = new LiveStream(id, { onState, onPoint, onStatus, onClosed });
//   await s.start();            // /state then the events
//   s.pause(); await s.resume(); s.replay(10); s.stop();
import { api, apiUrl, getToken } from '../api.js';

const DEFAULT_RETRY_MS = 1000;

// Splits a text/event-stream into messages: feed(chunk) returns the complete
// messages [{id, event, data}] (data lines joined with "\n"); `retry` fields
// go to onRetry(ms).
export function sseParser(onRetry = () => {}) {
  let buf = '';
  let msg = { id: null, event: 'message', data: [] };
  return function feed(chunk) {
    buf += chunk;
    const out = [];
    let nl;
    while ((nl = buf.search(/\r\n|\r|\n/)) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + (buf[nl] === '\r' && buf[nl + 1] === '\n' ? 2 : 1));
      if (line === '') {
        if (msg.data.length) out.push({ id: msg.id, event: msg.event, data: msg.data.join('\n') });
        msg = { id: null, event: 'message', data: [] };
        continue;
      }
      if (line[0] === ':') continue; // comment (keepalive)
      const c = line.indexOf(':');
      const field = c < 0 ? line : line.slice(0, c);
      const value = c < 0 ? '' : line.slice(c + 1).replace(/^ /, '');
      if (field === 'data') msg.data.push(value);
      else if (field === 'event') msg.event = value || 'message';
      else if (field === 'id') msg.id = value;
      else if (field === 'retry' && /^\d+$/.test(value)) onRetry(Number(value));
    }
    return out;
  };
}

export class LiveStream {
  // handlers: onState(state), onPoint(msg, kind 'point'|'update'),
  // onStatus({connection, paused, received, applied, missed}), onClosed().
  constructor(traceId, handlers) {
    this.id = traceId;
    this.h = handlers;
    this.lastSeq = 0;          // the newest seq applied or seen
    this.paused = false;
    this.received = 0;         // messages read from the stream
    this.applied = 0;          // messages handed to onPoint
    this.missed = 0;           // messages that arrived while paused
    this.connection = 'idle';  // idle | connecting | open | reconnecting | closed | stopped
    this.retryMs = DEFAULT_RETRY_MS;
    this.replayHz = 0;
    this.ctl = null;
    this.timer = 0;
    this.stopped = false;
    this.pending = null;       // messages held while resume() fetches /state
  }

  status(connection) {
    if (connection) this.connection = connection;
    if (this.h.onStatus) {
      this.h.onStatus({ connection: this.connection, paused: this.paused, received: this.received,
        applied: this.applied, missed: this.missed, seq: this.lastSeq });
    }
  }

  async fetchState() {
    const st = await api.get(`/streams/${this.id}/state`);
    return st;
  }

  // Loads the snapshot and, for an open run, listens to its events.
  async start() {
    const st = await this.fetchState();
    this.applyState(st);
    if (st.state === 'open') this.connect();
    else this.status('closed');
    return st;
  }

  // The snapshot; the seq seen stays the newest (a message newer than the
  // snapshot was already applied or is in it).
  applyState(st) {
    this.lastSeq = Math.max(this.lastSeq, Number(st.seq) || 0);
    if (this.h.onState) this.h.onState(st);
  }

  // Replays the closed run from its start at `hz` points per second.
  replay(hz) {
    this.disconnect();
    this.replayHz = hz;
    this.lastSeq = 0;
    this.stopped = false;
    this.connect();
  }

  pause() {
    this.paused = true;
    this.missed = 0;
    this.status();
  }

  // Fetches the state (unless replaying: the replay's points are not in the
  // snapshot) and applies the messages again.
  // Messages arriving during the fetch wait and are applied after the
  // snapshot when they are newer than it.
  async resume() {
    if (!this.paused) return;
    if (!this.replayHz) {
      this.pending = [];
      try {
        const st = await this.fetchState();
        const after = this.pending;
        this.pending = null;
        this.paused = false;
        this.applyState(st);
        for (const [msg, kind, seq] of after) if (!(seq <= this.lastSeq) || kind === 'update') this.apply(msg, kind, seq);
      } catch (e) {
        this.pending = null;
        this.paused = false;
        if (this.h.onError) this.h.onError(e);
      }
    }
    this.paused = false;
    this.status();
  }

  stop() {
    this.stopped = true;
    this.disconnect();
    this.status('stopped');
  }

  disconnect() {
    clearTimeout(this.timer);
    if (this.ctl) this.ctl.abort();
    this.ctl = null;
  }

  connect() {
    if (this.stopped) return;
    this.disconnect();
    const ctl = new AbortController();
    this.ctl = ctl;
    this.status(this.received ? 'reconnecting' : 'connecting');
    this.read(ctl).catch(() => {}).finally(() => {
      if (this.ctl !== ctl || this.stopped || this.connection === 'closed') return;
      this.status('reconnecting');
      this.timer = setTimeout(() => this.connect(), this.retryMs);
    });
  }

  async read(ctl) {
    const query = this.replayHz ? { replay: this.replayHz } : {};
    if (this.lastSeq) query.last_event_id = this.lastSeq;
    const headers = { Accept: 'text/event-stream' };
    const token = getToken();
    if (token) headers.Authorization = `Bearer ${token}`;
    if (this.lastSeq) headers['Last-Event-ID'] = String(this.lastSeq);
    const res = await fetch(apiUrl(`/streams/${this.id}/events`, query), { headers, signal: ctl.signal, cache: 'no-store' });
    if (!res.ok || !res.body) {
      const text = await res.text().catch(() => '');
      if (res.status >= 400 && res.status < 500 && res.status !== 429) {
        this.status('closed');
        if (this.h.onError) this.h.onError(new Error(`the events of run ${this.id}: HTTP ${res.status} ${text.slice(0, 200)}`));
      }
      return;
    }
    this.status('open');
    const feed = sseParser((ms) => { this.retryMs = ms; });
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done || this.ctl !== ctl) return;
      for (const m of feed(value)) this.dispatch(m);
    }
  }

  dispatch(m) {
    if (m.event === 'closed') {
      this.status('closed');
      this.disconnect();
      if (this.h.onClosed) this.h.onClosed();
      return;
    }
    if (m.event === 'resync') { this.resync(); return; }
    if (m.event !== 'point' && m.event !== 'update') return;
    const seq = Number(m.id);
    if (m.event === 'point' && Number.isFinite(seq) && seq <= this.lastSeq) return; // seen already
    let msg;
    try { msg = JSON.parse(m.data); } catch { return; }
    this.received += 1;
    if (this.pending) { this.pending.push([msg, m.event, seq]); return; }
    if (this.paused) {
      if (Number.isFinite(seq) && seq > this.lastSeq) this.lastSeq = seq;
      this.missed += 1;
      this.status();
      return;
    }
    this.apply(msg, m.event, seq);
  }

  apply(msg, kind, seq) {
    if (Number.isFinite(seq) && seq > this.lastSeq) this.lastSeq = seq;
    this.applied += 1;
    this.h.onPoint(msg, kind);
    this.status();
  }

  // The server dropped this client (too slow): take the snapshot, reconnect.
  async resync() {
    this.disconnect();
    if (!this.replayHz) {
      try { this.applyState(await this.fetchState()); } catch { /* the reconnection retries */ }
    }
    this.connect();
  }
}
