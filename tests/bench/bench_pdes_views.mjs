// bench_pdes_views.mjs: the view requests of a large sampled-metrics trace
// (issue 17, "Performance": "any view request on a 16,384 x 1,000 run under
// 200 ms once computed").
//
//   ARIADNED=build-rel/ariadned node tests/bench/bench_pdes_views.mjs
//   BENCH_ENTITIES=2048 BENCH_SAMPLES=500 node tests/bench/bench_pdes_views.mjs   # quick
//
// 1. Writes a wide CSV (one metric, BENCH_ENTITIES rows (default 16,384) x
//    BENCH_SAMPLES columns (default 1,000); each entity a level plus noise,
//    with three phases) and imports it (`ariadned import`, timed).
// 2. Starts a daemon on the database and times each request twice, one
//    after the other: the first (computed: rows read from SQLite, analyses
//    run; an answer 202 is polled at /analyses/{id} until it succeeds) and
//    the second (once computed: the process's row cache and the result
//    cache). The requests are those the Behaviour view makes:
//    /overview (max, std), /series of a 200-point range and of the whole run
//    at the chart's width (max_points=600), POST /cluster (k-means k=3 and
//    complete linkage on a 256-entity subset), POST /projection (MDS),
//    POST /changepoints on 64 entities.
// Target: every second request under 200 ms; the script exits 1 and lists
// what missed. No reference tool: R's own timings of the same analyses are
// in bench_pdes_cluster.sh and bench_pdes_cpd.sh.
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ariadned, startDaemon } from '../lib/daemon.mjs';
import { rng } from '../lib/rng.mjs';

const n = Number(process.env.BENCH_ENTITIES || 16384);
const l = Number(process.env.BENCH_SAMPLES || 1000);
const TARGET_MS = 200;
const dir = mkdtempSync(join(tmpdir(), 'ariadne-bench-pdes-'));
const missed = [];
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;

function writeCsv(path) {
  const rand = rng(1);
  const lines = ['entity,' + Array.from({ length: l }, (_, t) => String(10 * t)).join(',')];
  for (let e = 0; e < n; e++) {
    const level = rand(), group = e % 3;
    const row = new Array(l);
    for (let t = 0; t < l; t++) {
      const phase = t < l / 3 ? 0 : t < (2 * l) / 3 ? 1 : 2;
      row[t] = (level + (phase === group ? 0.5 : 0) + 0.1 * rand()).toFixed(4);
    }
    lines.push(`e${e},${row.join(',')}`);
  }
  writeFileSync(path, lines.join('\n') + '\n');
}

// One request with node:http, the body counted as it streams in (fetch's
// arrayBuffer of a 40 MB answer costs the client more than the server):
// {status, headers, bytes, text (the first 64 KB)}.
function request(url, init = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: init.method || 'GET', headers: init.headers || {} }, (res) => {
      let bytes = 0;
      const head = [];
      res.on('data', (c) => {
        if (bytes < 65536) head.push(c);
        bytes += c.length;
      });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, bytes,
        text: Buffer.concat(head).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

// A request timed to its answer: a 202 analysis is polled until it is done.
async function timed(label, url, init) {
  const t0 = process.hrtime.bigint();
  const first = await request(url, init);
  let res = { status: first.status, headers: { get: (k) => first.headers[k] } };
  let body = Buffer.from(first.text);
  let size = first.bytes;
  const origin = new URL(url).origin;
  while (res.status === 202) {
    const where = origin + res.headers.get('location');
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const poll = await fetch(where);
      const doc = await poll.json();
      if (doc.analysis.status === 'succeeded') {
        res = { status: 200 };
        body = Buffer.from(JSON.stringify(doc.result));
        size = body.length;
        break;
      }
      if (doc.analysis.status === 'failed' || doc.analysis.status === 'cancelled')
        throw new Error(`${label}: analysis ${doc.analysis.status}: ${JSON.stringify(doc.error)}`);
    }
  }
  const t = ms(t0);
  if (res.status !== 200) throw new Error(`${label}: HTTP ${res.status} ${body.toString().slice(0, 300)}`);
  return { t, bytes: size };
}

async function main() {
  const csv = join(dir, 'Load.csv');
  let t0 = process.hrtime.bigint();
  writeCsv(csv);
  console.log(`pdes views bench: ${n} entities x ${l} samples, CSV ${(statSync(csv).size / 1048576).toFixed(1)} MB written in ${(ms(t0) / 1000).toFixed(1)} s`);
  const db = join(dir, 'test.db');
  t0 = process.hrtime.bigint();
  execFileSync(ariadned, ['import', '--db', db, '--quiet', csv]);
  console.log(`import: ${(ms(t0) / 1000).toFixed(1)} s; database ${(statSync(db).size / 1048576).toFixed(1)} MB`);
  const d = await startDaemon({ dir, args: ['--log-level', 'error'] });
  try {
    const base = `${d.url}/api/v1/traces/1`;
    const post = (body) => ({ method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    const first = Math.floor(l / 5), t0r = 10 * first, t1 = 10 * Math.min(l - 1, first + 199); // 200 points
    const subset = (k) => Array.from({ length: Math.min(k, n) }, (_, i) => i);
    const requests = [
      ['GET /overview?stat=max', `${base}/overview?metric=Load&stat=max`],
      ['GET /overview?stat=std', `${base}/overview?metric=Load&stat=std`],
      ['GET /series (200 points)', `${base}/series?metric=Load&t0=${t0r}&t1=${t1}`],
      ['GET /series (whole, max_points=600)', `${base}/series?metric=Load&max_points=600`],
      ['POST /cluster k-means k=3', `${base}/cluster`, post({ metrics: ['Load'], t0: t0r, t1, method: 'kmeans', k: 3 })],
      ['POST /cluster complete (256)', `${base}/cluster`, post({ metrics: ['Load'], t0: t0r, t1, method: 'complete', k: 3, entities: subset(256) })],
      ['POST /projection mds', `${base}/projection`, post({ metrics: ['Load'], t0: t0r, t1, method: 'mds' })],
      ['POST /changepoints (64)', `${base}/changepoints`, post({ metrics: ['Load'], entities: subset(64), min_size: 30 })],
    ];
    console.log(`\n${'request'.padEnd(40)} ${'first'.padStart(10)} ${'again'.padStart(10)} ${'bytes'.padStart(11)}`);
    for (const [label, url, init] of requests) {
      const a = await timed(label, url, init);
      const b = await timed(label, url, init);
      const miss = b.t >= TARGET_MS;
      if (miss) missed.push(`${label}: ${b.t.toFixed(0)} ms once computed`);
      console.log(`${label.padEnd(40)} ${a.t.toFixed(1).padStart(8)} ms ${b.t.toFixed(1).padStart(8)} ms ${String(b.bytes).padStart(11)}${miss ? '   MISSED' : ''}`);
    }
  } finally {
    await d.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  if (missed.length) {
    console.log(`\nMISSED (${missed.length}, target ${TARGET_MS} ms once computed):\n  ${missed.join('\n  ')}`);
    process.exit(1);
  }
  console.log(`\nevery request under ${TARGET_MS} ms once computed`);
}

main().catch((e) => { console.error(e); process.exit(2); });
