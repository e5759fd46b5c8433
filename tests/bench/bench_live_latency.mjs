// bench_live_latency.mjs: end-to-end latency of a live run (issue 18,
// "Performance": "end-to-end latency from a sample's arrival to its SSE
// message under 100 ms at 1,024 entities").
//
//   ARIADNED=build-rel/ariadned node tests/bench/bench_live_latency.mjs
//   BENCH_PES=16 BENCH_KPS=16 BENCH_SAMPLES=40 node tests/bench/bench_live_latency.mjs   # quick
//
// 1. Generates a simulated ROSS run (`ariadned generate --kind pdes`, default
//    64 PEs x 16 KPs = 1,024 KP entities, 60 GVT samples, CommData included).
// 2. Starts a daemon, opens an SSE client on the run, and streams the run
//    with `ariadned replay --rate BENCH_RATE` (default 5 points a second).
// 3. Each point message carries latency.arrival_to_send_ms (from the moment
//    the append is committed and handed to the hub to the moment its
//    message is queued for every viewer) and analyses_ms; the client also
//    notes when each message arrives. Prints percentiles of both, and the
//    per-analysis latencies (clustering, PCA, VAR) and entities processed.
// Target: p95 of arrival_to_send_ms under 100 ms; the script exits 1 if not.
import { execFileSync, spawn } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ariadned, startDaemon } from '../lib/daemon.mjs';

const pes = Number(process.env.BENCH_PES || 64);
const kps = Number(process.env.BENCH_KPS || 16);
const samples = Number(process.env.BENCH_SAMPLES || 60);
const rate = Number(process.env.BENCH_RATE || 5);
const TARGET_MS = 100;
const dir = mkdtempSync(join(tmpdir(), 'ariadne-bench-live-'));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function pct(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p / 100 * s.length))] : NaN;
}
const fmt = (x) => (Number.isFinite(x) ? x.toFixed(1) : '-');

const src = join(dir, 'run');
let t0 = Date.now();
execFileSync(ariadned, ['generate', '--kind', 'pdes', '--pes', String(pes), '--kps', String(kps), '--lps', '1',
  '--samples', String(samples), '--seed', '3', src], { stdio: 'ignore' });
console.log(`generated ${pes} x ${kps} = ${pes * kps} KPs, ${samples} samples in ${Date.now() - t0} ms`);

const d = await startDaemon({ dir });
const msgs = [];
let id = null, closed = false;
try {
  const rp = spawn(ariadned, ['replay', '--rate', String(rate), '--to', d.url, src], { stdio: ['ignore', 'ignore', 'inherit'] });
  const done = new Promise((r) => rp.on('exit', r));
  for (let i = 0; id === null && i < 600; i++) {
    const list = await (await fetch(d.url + '/api/v1/streams')).json();
    const runs = Array.isArray(list) ? list : list.streams;
    if (runs.length) id = runs[0].trace_id;
    else await sleep(50);
  }
  let buf = '';
  const req = http.get(`${d.url}/api/v1/streams/${id}/events`, { headers: { 'Last-Event-ID': '0' }, agent: false }, (res) => {
    res.setEncoding('utf8');
    res.on('data', (c) => {
      buf += c;
      let i;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const frame = buf.slice(0, i);
        buf = buf.slice(i + 2);
        if (frame.includes('event: closed')) closed = true;
        const data = frame.split('\n').find((l) => l.startsWith('data: '));
        if (frame.includes('event: point') && data) msgs.push({ at: Date.now(), m: JSON.parse(data.slice(6)) });
      }
    });
  });
  await done;
  for (let i = 0; !closed && i < 1200; i++) await sleep(50);
  req.destroy();
} finally {
  await d.stop();
  rmSync(dir, { recursive: true, force: true });
}

const live = msgs.filter((x) => Number.isFinite(x.m.latency?.arrival_to_send_ms));
const lat = live.map((x) => x.m.latency.arrival_to_send_ms);
const ana = live.map((x) => x.m.latency.analyses_ms);
const cl = live.map((x) => x.m.clusters.latency_ms), dr = live.map((x) => x.m.dr.latency_ms);
const va = live.map((x) => x.m.causality.latency_ms);
const last = msgs.at(-1)?.m;
console.log(`messages: ${msgs.length} (${live.length} live), entities ${last?.entities_n}, ` +
  `comm_live ${last?.comm_live ? last.comm_live.level + ' ' + last.comm_live.ids.length : 'none'}`);
console.log('| measure (ms) | p50 | p95 | max |');
console.log('|---|---|---|---|');
for (const [name, xs] of [['arrival to SSE (server)', lat], ['analyses', ana], ['clustering', cl], ['PCA (both)', dr],
  ['VAR', va]])
  console.log(`| ${name} | ${fmt(pct(xs, 50))} | ${fmt(pct(xs, 95))} | ${fmt(Math.max(...xs))} |`);
if (last) console.log(`processed at the last point: clustering ${last.clusters.processed}/${last.clusters.n}, ` +
  `PCA ${last.dr.processed.top}/${last.entities_n}, VAR t_used ${last.causality.t_used}`);
const p95 = pct(lat, 95);
if (!(p95 < TARGET_MS)) {
  console.log(`MISSED: p95 arrival-to-SSE ${fmt(p95)} ms >= ${TARGET_MS} ms`);
  process.exit(1);
}
