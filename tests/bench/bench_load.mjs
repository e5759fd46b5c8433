// bench_load.mjs: a team's load on one server (issue 12's load figures).
//
//   ARIADNED=build/ariadned node tests/bench/bench_load.mjs
//
// A daemon (the non-sanitized build) serves two simulated StarPU traces and a
// call-graph profile. BENCH_CLIENTS (default 200) keep-alive clients send,
// for BENCH_SECONDS (default 60), a random mix of the trace list, a Gantt
// chart of a random window at 1366 px, the bounds and the super graph, while
// an uploader posts a small trace every second. After a third of the run an
// 8 MB Paje upload is timed from its POST to its job's success.
// It prints the number of requests, errors (any status but 2xx), latency
// percentiles, and the 8 MB upload's time. Targets: 0 errors, p99 under
// 500 ms, the 8 MB upload done within 5 s.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ariadned, sourceDir, startDaemon } from '../lib/daemon.mjs';
import { writeBigPaje, smallTrace } from '../fixtures/api/util.mjs';

const clients = Number(process.env.BENCH_CLIENTS || 200);
const seconds = Number(process.env.BENCH_SECONDS || 60);
const dir = mkdtempSync(join(tmpdir(), 'ariadne-load-'));
const db = join(dir, 'test.db');
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;

function importCli(path, name) {
  const out = execFileSync(ariadned, ['import', '--db', db, '--quiet', '--name', name, path], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n')[0] || '{}').id;
}

function prepare() {
  for (const [tiles, nodes] of [[24, 2], [16, 1]]) {
    const out = join(dir, `chol${tiles}`);
    execFileSync(ariadned, ['generate', '--out', out, '--tiles', String(tiles), '--nodes', String(nodes),
      '--seed', String(tiles)], { stdio: 'ignore' });
    execFileSync(ariadned, ['import', '--db', db, '--quiet', '--name', `chol${tiles}`, out]);
  }
  execFileSync(ariadned, ['import', '--db', db, '--quiet', '--name', 'miniapp',
    join(sourceDir, 'tests/fixtures/supergraph/miniapp-profile.json')]);
  const big = join(dir, 'big.trace');
  let states = 250000;
  while (writeBigPaje(big, states) < 8e6) states = Math.ceil(states * 1.1);
  return big;
}

async function timed(url, opts, stats) {
  const t0 = process.hrtime.bigint();
  try {
    const r = await fetch(url, opts);
    const text = await r.text();
    stats.lat.push(ms(t0));
    if (r.status < 200 || r.status > 299) stats.errors.push(`${r.status} ${url}: ${text.slice(0, 120)}`);
    return { status: r.status, text };
  } catch (e) {
    stats.lat.push(ms(t0));
    stats.errors.push(`${e.cause?.code || e.message} ${url}`);
    return null;
  }
}

async function waitJob(base, id) {
  for (;;) {
    const j = await (await fetch(`${base}/api/v1/jobs/${id}`)).json();
    if (j.status === 'succeeded' || j.status === 'failed') return j;
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function main() {
  const big = prepare();
  const extra = (process.env.BENCH_ARGS || '').split(' ').filter(Boolean);
  const d = await startDaemon({ dir, args: ['--threads', '8', ...extra] });
  const base = d.url;
  const traces = (await (await fetch(`${base}/api/v1/traces`)).json()).traces;
  const tasks = traces.filter((t) => t.kind === 'tasks').map((t) => t.id);
  const profile = traces.find((t) => t.kind === 'profile').id;
  const spans = {};
  for (const id of tasks) {
    const g = await (await fetch(`${base}/api/v1/traces/${id}/gantt?width=1366`)).json();
    spans[id] = [g.start ?? g.window?.start ?? 0, g.end ?? g.window?.end ?? 1];
  }
  const urls = [
    () => `${base}/api/v1/traces`,
    () => {
      const id = tasks[Math.floor(Math.random() * tasks.length)];
      const [s, e] = spans[id];
      const a = s + Math.random() * (e - s) * 0.9;
      const b = a + (e - a) * Math.random();
      return `${base}/api/v1/traces/${id}/gantt?width=1366&start=${a}&end=${b}`;
    },
    () => `${base}/api/v1/traces/${tasks[Math.floor(Math.random() * tasks.length)]}/bounds`,
    () => `${base}/api/v1/traces/${profile}/supergraph`,
  ];
  const stats = { lat: [], errors: [] };
  const end = Date.now() + seconds * 1000;
  const loops = [];
  for (let c = 0; c < clients; c++) {
    loops.push((async () => {
      while (Date.now() < end) await timed(urls[Math.floor(Math.random() * urls.length)](), {}, stats);
    })());
  }
  const uploads = { lat: [], errors: [] };
  loops.push((async () => {
    while (Date.now() < end) {
      const r = await timed(`${base}/api/v1/traces?filename=small.trace`,
        { method: 'POST', headers: { 'Content-Type': 'application/octet-stream' }, body: smallTrace() }, uploads);
      if (r && r.status === 202) {
        const j = await waitJob(base, JSON.parse(r.text).job.id);
        if (j.status !== 'succeeded') uploads.errors.push(`small upload ${j.status}`);
      }
      await new Promise((res) => setTimeout(res, 1000));
    }
  })());
  let bigTime = null;
  const bigSteps = {};
  loops.push((async () => {
    await new Promise((res) => setTimeout(res, seconds * 1000 / 3));
    const body = readFileSync(big);
    const t0 = process.hrtime.bigint();
    const r = await fetch(`${base}/api/v1/traces?filename=big.trace`,
      { method: 'POST', headers: { 'Content-Type': 'application/octet-stream' }, body });
    const job = (await r.json()).job;
    bigSteps.accepted = ms(t0);
    for (;;) {
      const s = await (await fetch(`${base}/api/v1/jobs/${job.id}`)).json();
      if (s.status !== 'queued' && bigSteps.started === undefined) bigSteps.started = ms(t0);
      if (s.phase === 'publishing' && bigSteps.publishing === undefined) bigSteps.publishing = ms(t0);
      if (s.status === 'succeeded' || s.status === 'failed') break;
      await new Promise((res) => setTimeout(res, 10));
    }
    const j = await waitJob(base, job.id);
    bigTime = ms(t0);
    if (j.status !== 'succeeded') uploads.errors.push(`8 MB upload ${j.status}: ${JSON.stringify(j.error)}`);
  })());
  await Promise.all(loops);
  await d.stop();

  const lat = stats.lat.sort((a, b) => a - b);
  const q = (p) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))].toFixed(1);
  console.log(`clients ${clients}, ${seconds} s, ${lat.length} requests (${(lat.length / seconds).toFixed(0)}/s)`);
  console.log(`errors ${stats.errors.length}${stats.errors.length ? ': ' + [...new Set(stats.errors)].slice(0, 5).join('; ') : ''}`);
  console.log(`latency ms: p50 ${q(0.5)}  p95 ${q(0.95)}  p99 ${q(0.99)}  max ${lat[lat.length - 1].toFixed(1)}`);
  console.log(`small uploads ${uploads.lat.length}, errors ${uploads.errors.length}${uploads.errors.length ? ': ' + uploads.errors.slice(0, 3).join('; ') : ''}`);
  console.log(`8 MB upload (${(statSync(big).size / 1e6).toFixed(1)} MB) from POST to imported: ${bigTime === null ? 'not done' : (bigTime / 1000).toFixed(2) + ' s'}`);
  const at = (k) => (bigSteps[k] === undefined ? '-' : (bigSteps[k] / 1000).toFixed(2) + ' s');
  console.log(`  accepted (body received) ${at('accepted')}, import started ${at('started')}, publishing ${at('publishing')}`);
  rmSync(dir, { recursive: true, force: true });
}

main().catch((e) => { console.error(e); process.exit(1); });
