// live.test.mjs: the live-run page #/live/{id} (issue 18, Fig. 6.5) in
// headless chromium at 1366x768.
//
// 1. Against a real daemon: opens a live run, streams the ROSS sample into it
//    with `ariadned replay --rate 2` (99 points: 50 s) (../shared/data/ross-sample when
//    present, else a run of `ariadned generate --kind pdes`), watches the page: polylines
//    and change-point lines appear (numbered teal lines), pause (the page
//    stops changing while messages keep arriving: the readout's received
//    count grows, the applied count does not), resume (the page fetches
//    /state and updates again), double-click on a matrix cell drills into
//    the row's group and "Up one level" comes back, the causality table
//    sorts by IR and by VD; after the close, the page offers a replay, which
//    draws the run again; the traces list shows the run with its badge.
//    Skipped when the server has no streams API yet.
// 2. Against a small fake server made here (static files of static/ plus the
//    contract's /state, /events, /comm, /comm/diff and /control with
//    generated data whose change points and causality rows are known): the
//    same interactions, checked exactly (the change points drawn are the
//    fake's, the sort orders are the known ones, the drill-down asks for the
//    children of the clicked row's group), plus a closed run's replay.
// Screenshots: live-*.png. No console error, nothing past the right edge.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, dirname, normalize, extname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { launchChromium, watchedPage, overflowingElements } from '../lib/browser.mjs';
import { startDaemon, runCli, sharedData, staticDir, ariadned } from '../lib/daemon.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const { LIVE } = await import(pathToFileURL(join(staticDir, 'js', 'colors.js')).href);
const shots = join(here, 'screenshots');
const ross = join(process.env.ARIADNE_SHARED_DATA || sharedData, 'ross-sample');

let browser;
before(async () => {
  mkdirSync(shots, { recursive: true });
  browser = await launchChromium();
});
after(async () => { if (browser) await browser.close(); });

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const readout = (page) => page.evaluate(() => ({ ...document.querySelector('.live-readout').dataset }));
const cpNumbers = (page) => page.evaluate(() => [...document.querySelectorAll('.live-chart-top .live-cp')].map((g) => Number(g.dataset.number)));
const cpIdx = (page, sel) => page.evaluate((s) => [...new Set([...document.querySelectorAll(`${s} .live-cp`)].map((g) => Number(g.dataset.tIdx)))], sel);
const scrollTo = (page, sel) => page.evaluate((s) => document.querySelector(s).scrollIntoView({ block: 'center' }), sel);
// the box of an element that the next message may replace (same place)
const boxOf = (page, sel) => page.evaluate((s) => { const r = document.querySelector(s).getBoundingClientRect(); return { x: r.x, y: r.y, width: r.width, height: r.height }; }, sel);
// the table redraws just after the click (lib's gesture guard): wait for the order
async function expectOrder(page, want, msg) {
  await page.waitForFunction((w) => [...document.querySelectorAll('.live-causality-row')].map((r) => r.dataset.metric).join() === w.join(), want, { timeout: 5000 }).catch(() => {});
  assert.deepEqual(await tableOrder(page), want, msg);
}
const tableOrder = (page) => page.evaluate(() => [...document.querySelectorAll('.live-causality-row')].map((r) => r.dataset.metric));
const tableValues = (page, key) => page.evaluate((k) => [...document.querySelectorAll(`.live-causality-row td[data-key="${k}"]`)].map((c) => (c.dataset.value === '' ? NaN : Number(c.dataset.value))), key);
// the fingerprint of what the page draws (changes with every applied point)
const drawn = (page) => page.evaluate(() => [...document.querySelectorAll('.live-chart-top path.live-line')].slice(0, 4).map((p) => p.getAttribute('d')).join('|')
  + document.querySelector('.live-readout').dataset.seq);

async function dblclickCell(page, selector, i, j) {
  const fig = page.locator(selector).first();
  await scrollTo(page, selector);
  const box = await fig.locator('canvas').boundingBox();
  // the cells start at data-off pixels (names and strips first), data-cell wide
  const off = Number(await fig.getAttribute('data-off')), cell = Number(await fig.getAttribute('data-cell'));
  await page.mouse.dblclick(box.x + off + (j + 0.5) * cell, box.y + off + (i + 0.5) * cell);
}

// Sorting by IR and by VD: |value| descending, then ascending on a second
// click; rows without a value last.
async function checkSorts(page) {
  const dir = (key) => page.evaluate((k) => document.querySelector(`.live-sort[data-sort="${k}"]`).closest('th').getAttribute('aria-sort'), key);
  for (const key of ['ir1', 'vd1']) {
    const clickSort = async () => {
      const before = await dir(key);
      await page.click(`.live-sort[data-sort="${key}"]`);
      await page.waitForFunction(([k, b]) => document.querySelector(`.live-sort[data-sort="${k}"]`).closest('th').getAttribute('aria-sort') !== b, [key, before]);
    };
    await clickSort();
    if ((await dir(key)) !== 'descending') await clickSort();
    assert.equal(await dir(key), 'descending');
    let v = (await tableValues(page, key)).filter(Number.isFinite).map(Math.abs);
    assert.ok(v.length >= 2, `the table has values of ${key}`);
    for (let i = 1; i < v.length; i++) assert.ok(v[i - 1] >= v[i], `sorted by |${key}| descending: ${v}`);
    await clickSort();
    assert.equal(await dir(key), 'ascending');
    v = (await tableValues(page, key)).filter(Number.isFinite).map(Math.abs);
    for (let i = 1; i < v.length; i++) assert.ok(v[i - 1] <= v[i], `sorted by |${key}| ascending: ${v}`);
  }
}

// ---- 1. the real daemon -------------------------------------------------------------

test('a replayed ROSS run on the live page (real daemon)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ariadne-live-browser-'));
  const daemon = await startDaemon({ dir });
  const problems = [];
  let replay = null;
  try {
    const probe = await fetch(`${daemon.url}/api/v1/streams`);
    if (probe.status === 404) {
      t.skip('this server has no streams API (POST /api/v1/streams, GET .../events)');
      return;
    }
    // without the shared sample: a simulated ROSS run with three phases
    let source = ross;
    if (!existsSync(ross)) {
      source = join(dir, 'run');
      const g = runCli(['generate', '--kind', 'pdes', '--pes', '4', '--kps', '8', '--lps', '1', '--samples', '90', '--out', source]);
      assert.equal(g.status, 0, g.stderr);
    }
    // the replay opens the run; its trace id is the newest stream
    replay = spawn(ariadned, ['replay', '--rate', '2', '--name', 'live browser test', '--to', daemon.url, source],
      { stdio: ['ignore', 'pipe', 'pipe'] });
    let replayErr = '';
    replay.stderr.on('data', (d) => { replayErr += d; });
    const replayDone = new Promise((r) => replay.on('exit', (code) => r(code)));
    let id = null;
    for (let i = 0; i < 200 && id === null; i++) {
      const list = await (await fetch(`${daemon.url}/api/v1/streams`)).json().catch(() => null);
      const runs = Array.isArray(list) ? list : (list && list.streams) || [];
      if (runs.length) id = runs[runs.length - 1].trace_id ?? runs[runs.length - 1].id;
      else await sleep(50);
    }
    assert.ok(id !== null, `the replay opened a run: ${replayErr}`);
    const page = await watchedPage(browser, problems);
    await page.goto(`${daemon.url}/#/live/${id}`);
    await page.locator('.live-chart-top path.live-line, .live-chart-top canvas').first().waitFor({ timeout: 30000 });
    await page.screenshot({ path: join(shots, 'live-ross-start.png'), fullPage: true });
    // change points appear (the ROSS sample has clear phase changes)
    await page.waitForFunction(() => document.querySelectorAll('.live-history-top .live-cp').length > 0, null, { timeout: 60000 });
    const st = await (await fetch(`${daemon.url}/api/v1/streams/${id}/state`)).json();
    const shown = await cpIdx(page, '.live-history-top');
    for (const c of shown) assert.ok(st.change_points.includes(c), `change point ${c} is one of the server's ${st.change_points}`);
    // pause: messages keep arriving, the page does not change
    await page.click('.live-pause');
    const r0 = await readout(page), d0 = await drawn(page);
    await sleep(1500);
    const r1 = await readout(page);
    assert.ok(Number(r1.received) > Number(r0.received), `messages keep arriving while paused (${r0.received} -> ${r1.received})`);
    assert.equal(r1.applied, r0.applied, 'nothing applied while paused');
    assert.equal(await drawn(page), d0, 'the page does not change while paused');
    assert.equal(r1.paused, 'true');
    // resume: /state is fetched, the page shows the newest point, updates again
    const stateReq = page.waitForRequest((req) => req.url().includes(`/streams/${id}/state`));
    await page.click('.live-pause');
    await stateReq;
    await page.waitForFunction((s) => Number(document.querySelector('.live-readout').dataset.seq) > s, Number(r1.seq || 0));
    const r2 = await readout(page);
    await page.waitForFunction((a) => Number(document.querySelector('.live-readout').dataset.applied) > a, Number(r2.applied));
    await page.screenshot({ path: join(shots, 'live-ross-resumed.png'), fullPage: true });
    // drill into a matrix block and back
    const live = page.locator('.live-matrix-live');
    if (await live.count()) {
      // the matrices at the top level (PE) of the hierarchy, then into a PE's KPs
      const level0 = await page.evaluate(() => document.querySelector('.live-comm-level option').value);
      await page.selectOption('.live-comm-level', level0);
      await page.waitForFunction((lv) => document.querySelector('.live-matrix-live')?.dataset.level === lv, level0, { timeout: 15000 });
      await dblclickCell(page, '.live-matrix-live', 0, 0);
      await page.waitForFunction((lv) => { const f = document.querySelector('.live-matrix-live'); return f && f.dataset.level && f.dataset.level !== lv; }, level0, { timeout: 15000 });
      assert.equal(await page.getAttribute('.live-crumbs', 'data-depth'), '1');
      await page.screenshot({ path: join(shots, 'live-ross-drill.png'), fullPage: true });
      await page.click('.live-drill-up');
      await page.waitForFunction((lv) => document.querySelector('.live-matrix-live')?.dataset.level === lv, level0, { timeout: 15000 });
    } else t.diagnostic('no communication matrix: the run has no CommData');
    // the base matrix as CSV from the server (?format=csv)
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click('.live-base-csv')]);
    assert.match(dl.suggestedFilename(), /comm-base\.csv$/);
    const text = readFileSync(await dl.path(), 'utf8');
    assert.ok(text.split('\n').length > 2 && text.split('\n')[0].includes(','), `a CSV table: ${text.slice(0, 80)}`);
    // the causality table sorts by IR and VD
    await page.locator('.live-causality-row').first().waitFor({ timeout: 60000 });
    await page.click('.live-pause'); // a still table while the sort is checked
    await checkSorts(page);
    await page.click('.live-pause');
    assert.deepEqual(await overflowingElements(page, '.ari-tooltip, .table-wrap'), [], 'nothing passes the right edge at 1366x768');
    // the end of the run: the page says so and offers the replay
    const code = await replayDone;
    assert.equal(code, 0, `ariadned replay: ${replayErr}`);
    await page.waitForSelector('.badge-live[data-state="closed"]', { timeout: 30000 });
    assert.ok(await page.isVisible('.live-replay'), 'a closed run offers a replay');
    await page.fill('.live-replay-rate', '50');
    await page.click('.live-replay');
    await page.waitForFunction(() => Number(document.querySelector('.live-readout').dataset.applied) > 5, null, { timeout: 30000 });
    await page.screenshot({ path: join(shots, 'live-ross-replay.png'), fullPage: true });
    // the traces list: the run with its badge, linking to the page
    await page.goto(`${daemon.url}/#/traces`);
    const badge = page.locator(`tr[data-trace-id="${id}"] .badge-live`);
    await badge.waitFor();
    assert.equal(await badge.getAttribute('href'), `#/live/${id}`);
    assert.deepEqual(problems, []);
  } finally {
    if (replay && replay.exitCode === null) replay.kill('SIGTERM');
    await daemon.stop();
  }
});

// ---- 2. the fake server -------------------------------------------------------------

const PES = [0, 1, 2, 3];
const KPS = PES.flatMap((pe) => [0, 1, 2, 3].map((k) => ({ id: 100 + pe * 4 + k, pe })));
const ENTITIES = [...PES.map((p) => ({ id: p, name: `PE ${p}`, level: 'PE', parent: null })),
  ...KPS.map((k) => ({ id: k.id, name: `KP ${k.id - 100}`, level: 'KP', parent: k.pe }))];
const METRICS = ['RbTotal', 'NetworkSend', 'EventsProcessed', 'RbSecondary'];
const CPS = [30, 60];           // the fake's change points (time indices)
const W = 20;
// causality rows: IR order (|ir1| desc) = NetworkSend, RbSecondary, EventsProcessed;
// VD order (|vd1| desc) = EventsProcessed, NetworkSend, RbSecondary
const CAUSAL = [
  { metric: 'NetworkSend', p: 0.001, f: 12.5, ir1: -0.9, vd1: 0.3, significant: true },
  { metric: 'EventsProcessed', p: 0.2, f: 1.4, ir1: 0.1, vd1: 0.6, significant: false },
  { metric: 'RbSecondary', p: 0.03, f: 4.1, ir1: 0.5, vd1: 0.05, significant: true },
];
const value = (metric, e, t) => {
  const phase = t < CPS[0] ? 0 : t < CPS[1] ? 1 : 2;
  return (metric.length + e % 5) * (1 + phase) + Math.sin(t / 3 + e) * 0.5;
};
const leaf = KPS.map((k) => k.id);
function commMatrix(level, group, t) {
  const ids = level === 'KP' ? (group === undefined ? leaf : KPS.filter((k) => k.pe === group).map((k) => k.id)) : PES;
  const k = 1 + (t >= CPS[0]) + (t >= CPS[1]);
  return { t_idx: t, level, group: group ?? null, ids, names: ids.map((i) => ENTITIES.find((e) => e.id === i).name),
    matrix: ids.map((a, i) => ids.map((b, j) => (i === j ? 0 : k * ((a + 2 * b) % 7)))) };
}
function message(run, t) {
  const times = [], t0 = Math.max(0, t - W + 1);
  for (let j = t0; j <= t; j++) times.push(1000 + j * 10);
  const block = (metric) => ({ metric, t0, times, values: leaf.map((e) => times.map((_, j) => value(metric, e, t0 + j))) });
  const cps = CPS.filter((c) => c <= t);
  const labels = leaf.map((e) => (t < CPS[0] ? e % 2 : e % 3));
  const k = t < CPS[0] ? 2 : 3;
  const sizes = Array.from({ length: k }, (_, c) => labels.filter((l) => l === c).length);
  return {
    seq: t + 1, t_idx: t, time: 1000 + t * 10, n_points: t + 1, entities_n: leaf.length, controls_version: run.controlsVersion,
    top: block(run.controls.top), bottom: block(run.controls.bottom),
    summary: { t_idx: t, means: Object.fromEntries(METRICS.map((m) => [m, leaf.reduce((a, e) => a + value(m, e, t), 0) / leaf.length])) },
    cpd: { target: 'top', metric: run.controls.top, alpha: 0.01, is_change: CPS.includes(t), change_points: cps, value: Math.sin(t) },
    clusters: { metric: run.controls.top, k, labels, sizes, centers: [], processed: leaf.length, n: leaf.length, latency_ms: 1.5 },
    dr: { top_xy: leaf.map((e) => [Math.cos(e) * (1 + labels[leaf.indexOf(e)]), Math.sin(e)]), bottom_xy: leaf.map((e) => [Math.sin(e), e % 4]),
      processed: { top: leaf.length, bottom: leaf.length }, latency_ms: 0.8 },
    causality: t < 12 ? { target: 'RbTotal', direction: 'from', threshold: 0.05, rows: [], note: 'waiting for enough time points' }
      : { target: 'RbTotal', direction: run.controls.causality.direction, threshold: 0.05, p: 2, t_used: t + 1, rows: CAUSAL, latency_ms: 3 },
    comm_live: commMatrix('PE', undefined, t),
    latency: { arrival_to_send_ms: 4.2, analyses_ms: 3.1 },
  };
}

function fakeRun(id, state, nPoints, hz) {
  const run = { id, state, n: state === 'closed' ? nPoints : 0, max: nPoints, clients: new Set(), controlsVersion: 1,
    controls: { top: 'RbTotal', bottom: 'NetworkSend', cluster_metric: 'RbTotal', k: 3, cpd_target: 'top', alpha: 0.01,
      causality: { target: 'RbTotal', direction: 'from', threshold: 0.05 }, granularity: 'KP', window: W,
      budgets: { cluster_ms: 50, dr_ms: 10, var_ms: 100 } },
    requests: [] };
  if (state === 'open') {
    run.timer = setInterval(() => {
      if (run.n >= run.max) {
        clearInterval(run.timer);
        run.state = 'closed';
        for (const c of run.clients) { c.write('event: closed\ndata: {}\n\n'); c.end(); }
        return;
      }
      const m = message(run, run.n);
      run.n += 1;
      for (const c of run.clients) c.write(`id: ${m.seq}\nevent: point\ndata: ${JSON.stringify(m)}\n\n`);
    }, 1000 / hz);
  }
  run.state_json = () => ({ trace_id: id, name: `fake run ${id}`, state: run.state, n_points: run.n, seq: run.n, controls: run.controls,
    entities: ENTITIES, metrics: METRICS, times: Array.from({ length: run.n }, (_, t) => 1000 + t * 10),
    summary: Object.fromEntries(METRICS.map((m) => [m, Array.from({ length: run.n }, (_, t) => leaf.reduce((a, e) => a + value(m, e, t), 0) / leaf.length)])),
    change_points: CPS.filter((c) => c < run.n), last: run.n ? message(run, run.n - 1) : null });
  return run;
}

const MIME = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.svg': 'image/svg+xml' };

function fakeServer(runs) {
  const srv = createServer((req, res) => {
    const u = new URL(req.url, 'http://x');
    const json = (code, body) => { res.writeHead(code, { 'Content-Type': 'application/json' }); res.end(JSON.stringify(body)); };
    const m = u.pathname.match(/^\/api\/v1\/streams\/(\d+)(\/.*)?$/);
    if (u.pathname === '/api/v1/version') return json(200, { name: 'fake', version: 'test' });
    if (u.pathname === '/api/v1/streams') return json(200, { streams: [...runs.values()].map((r) => ({ trace_id: r.id, state: r.state })) });
    if (m) {
      const run = runs.get(Number(m[1]));
      if (!run) return json(404, { error: { code: 'not_found', message: 'no such run' } });
      const rest = m[2] || '';
      run.requests.push(`${req.method} ${rest}${u.search}`);
      if (rest === '/state') return json(200, run.state_json());
      if (rest === '/control' && req.method === 'POST') {
        let body = '';
        req.on('data', (d) => { body += d; });
        req.on('end', () => {
          const p = JSON.parse(body);
          for (const [k, v] of Object.entries(p)) run.controls[k] = typeof v === 'object' ? { ...run.controls[k], ...v } : v;
          run.controlsVersion += 1;
          json(200, { controls: run.controls });
        });
        return undefined;
      }
      if (rest === '/comm') {
        const t = u.searchParams.get('t') === 'live' ? run.n - 1 : Number(u.searchParams.get('t'));
        const g = u.searchParams.get('group');
        return json(200, commMatrix(u.searchParams.get('level') || 'PE', g === null ? undefined : Number(g), t));
      }
      if (rest === '/comm/diff') {
        const b = Number(u.searchParams.get('base')), g = u.searchParams.get('group');
        const lv = u.searchParams.get('level') || 'PE';
        const bm = commMatrix(lv, g === null ? undefined : Number(g), b);
        return json(200, { base: b, level: lv, ids: bm.ids, names: bm.names,
          diffs: CPS.filter((c) => c < run.n).map((c) => ({ t_idx: c, matrix: commMatrix(lv, g === null ? undefined : Number(g), c).matrix.map((row, i) => row.map((v, j) => v - bm.matrix[i][j])) })) });
      }
      if (rest === '/events') {
        res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store' });
        res.write('retry: 1000\n\n');
        const hz = Number(u.searchParams.get('replay'));
        if (hz) {
          let t = 0;
          const timer = setInterval(() => {
            if (t >= run.max) { clearInterval(timer); res.write('event: closed\ndata: {}\n\n'); res.end(); return; }
            const msg = message(run, t++);
            res.write(`id: ${msg.seq}\nevent: point\ndata: ${JSON.stringify(msg)}\n\n`);
          }, 1000 / hz);
          req.on('close', () => clearInterval(timer));
          return undefined;
        }
        const last = Number(req.headers['last-event-id'] || u.searchParams.get('last_event_id') || 0);
        for (let t = last; t < run.n; t++) { const msg = message(run, t); res.write(`id: ${msg.seq}\nevent: point\ndata: ${JSON.stringify(msg)}\n\n`); }
        if (run.state === 'closed') { res.write('event: closed\ndata: {}\n\n'); res.end(); return undefined; }
        run.clients.add(res);
        req.on('close', () => run.clients.delete(res));
        return undefined;
      }
      return json(404, { error: { code: 'not_found', message: rest } });
    }
    if (u.pathname.startsWith('/api/')) return json(404, { error: { code: 'not_found', message: u.pathname } });
    const file = normalize(join(staticDir, u.pathname === '/' ? 'index.html' : u.pathname));
    if (!file.startsWith(staticDir) || !existsSync(file) || !statSync(file).isFile()) { res.writeHead(404); res.end(); return undefined; }
    res.writeHead(200, { 'Content-Type': MIME[extname(file)] || 'application/octet-stream' });
    res.end(readFileSync(file));
    return undefined;
  });
  return new Promise((resolve) => srv.listen(0, '127.0.0.1', () => resolve(srv)));
}

test('the live page against a fake run: change points, pause, resume, drill-down, sorts, replay', async () => {
  const runs = new Map([[7, fakeRun(7, 'open', 2000, 20)], [8, fakeRun(8, 'closed', 80, 0)]]);
  const srv = await fakeServer(runs);
  const url = `http://127.0.0.1:${srv.address().port}`;
  const problems = [];
  const page = await watchedPage(browser, problems);
  try {
    await page.goto(`${url}/#/live/7`);
    await page.locator('.live-chart-top path.live-line').first().waitFor();
    assert.equal(await page.locator('.live-chart-top path.live-line').count(), leaf.length, 'one polyline per KP');
    // the change points appear, numbered 1 and 2, teal, at the fake's time indices
    await page.waitForFunction(() => document.querySelectorAll('.live-history-top .live-cp').length === 2, null, { timeout: 20000 });
    assert.deepEqual(await cpIdx(page, '.live-history-top'), CPS);
    await page.waitForFunction(() => document.querySelectorAll('.live-chart-top .live-cp').length >= 1, null, { timeout: 10000 });
    for (const n of await cpNumbers(page)) assert.ok([1, 2].includes(n));
    // teal change points, a brown base line, yellow significant rows (colors.js)
    assert.deepEqual(await page.evaluate(() => [...new Set([...document.querySelectorAll('.live-cp-line')].map((l) => l.getAttribute('stroke')))]), [LIVE.changePoint]);
    assert.equal(await page.getAttribute('.live-history-top .live-base-line', 'stroke'), LIVE.base);
    await page.locator('.live-causality-row.is-significant').first().waitFor();
    const bg = await page.evaluate(() => getComputedStyle(document.querySelector('.live-causality-row.is-significant')).backgroundColor);
    const hex = (c) => `#${c.match(/\d+/g).slice(0, 3).map((v) => Number(v).toString(16).padStart(2, '0')).join('')}`;
    assert.equal(hex(bg), LIVE.significant);
    // the cluster legend has the counts of the message
    const counts = await page.evaluate(() => [...document.querySelectorAll('.live-legend-key')].map((b) => Number(b.dataset.count)));
    assert.equal(counts.reduce((a, b) => a + b, 0), leaf.length);
    await page.screenshot({ path: join(shots, 'live-fake.png'), fullPage: true });

    // pause: messages keep arriving, nothing changes
    await page.click('.live-pause');
    const r0 = await readout(page), d0 = await drawn(page);
    await sleep(800);
    const r1 = await readout(page);
    assert.ok(Number(r1.received) >= Number(r0.received) + 5, `messages arrive while paused (${r0.received} -> ${r1.received})`);
    assert.equal(r1.applied, r0.applied);
    assert.equal(await drawn(page), d0, 'the page does not change while paused');
    assert.match(await page.textContent('.live-paused-note'), /paused: \d+ new points/);
    // resume: the state is fetched, then the page follows again
    const nState = runs.get(7).requests.filter((r) => r.startsWith('GET /state')).length;
    await page.click('.live-pause');
    await page.waitForFunction((s) => Number(document.querySelector('.live-readout').dataset.applied) > s, Number(r1.applied) + 3);
    assert.equal(runs.get(7).requests.filter((r) => r.startsWith('GET /state')).length, nState + 1, 'resume fetched /state once');
    assert.notEqual(await drawn(page), d0, 'the page updates again');

    // drill into PE 2's block and back up
    await dblclickCell(page, '.live-matrix-live', 2, 1);
    await page.waitForFunction(() => document.querySelector('.live-matrix-live')?.dataset.level === 'KP');
    assert.equal(await page.getAttribute('.live-matrix-live', 'data-group'), '2');
    assert.ok(runs.get(7).requests.some((r) => r.startsWith('GET /comm?') && r.includes('level=KP') && r.includes('group=2')), 'asked for the KPs of PE 2');
    await page.waitForFunction(() => document.querySelector('.live-matrix-base')?.dataset.level === 'KP');
    assert.equal(await page.locator('.live-matrix-diff').count(), 2, 'one difference matrix per change point');
    assert.match(await page.textContent('.live-crumbs'), /KPs of PE 2/);
    await page.screenshot({ path: join(shots, 'live-fake-drill.png'), fullPage: true });
    await page.click('.live-drill-up');
    await page.waitForFunction(() => document.querySelector('.live-matrix-live')?.dataset.level === 'PE');
    assert.equal(await page.getAttribute('.live-crumbs', 'data-depth'), '0');

    // the base line: a click on b1 moves it; the base matrix follows
    await scrollTo(page, '.live-history-top');
    const hb = await boxOf(page, '.live-history-top svg');
    await page.mouse.click(hb.x + 52 + (hb.width - 64) * 0.5, hb.y + 50);
    await page.waitForFunction(() => Number(document.querySelector('.live-history-top .live-base')?.dataset.tIdx) > 0);
    const b = Number(await page.getAttribute('.live-history-top .live-base', 'data-t-idx'));
    await page.waitForFunction((x) => Number(document.querySelector('.live-matrix-base')?.dataset.tIdx) === x, b);

    // the causality table: significant rows yellow, sorts by IR and VD
    await page.click('.live-pause');
    await expectOrder(page, ['NetworkSend', 'RbSecondary', 'EventsProcessed'], 'by |IR| descending (the default)');
    await page.click('.live-sort[data-sort="ir1"]'); // a click on the sorted column reverses
    await expectOrder(page, ['EventsProcessed', 'RbSecondary', 'NetworkSend'], 'by |IR| ascending');
    await page.click('.live-sort[data-sort="ir1"]');
    await expectOrder(page, ['NetworkSend', 'RbSecondary', 'EventsProcessed'], 'by |IR| descending');
    await page.click('.live-sort[data-sort="vd1"]');
    await expectOrder(page, ['EventsProcessed', 'NetworkSend', 'RbSecondary'], 'by VD descending');
    await page.click('.live-sort[data-sort="vd1"]');
    await expectOrder(page, ['RbSecondary', 'NetworkSend', 'EventsProcessed'], 'by VD ascending');
    const yellow = await page.evaluate(() => [...document.querySelectorAll('.live-causality-row.is-significant')].map((r) => r.dataset.metric).sort());
    assert.deepEqual(yellow, ['NetworkSend', 'RbSecondary']);
    await page.click('.live-pause');

    // a control goes to the server, shared by every viewer
    await page.selectOption('.live-causality-direction', 'to');
    await page.waitForFunction(() => true);
    for (let i = 0; i < 50 && !runs.get(7).requests.some((r) => r.startsWith('POST /control')); i++) await sleep(50);
    assert.equal(runs.get(7).controls.causality.direction, 'to');

    // a lasso in c1: the others turn grey
    await scrollTo(page, '.live-scatter-top');
    const sb = await boxOf(page, '.live-scatter-top svg');
    await page.mouse.move(sb.x + 2, sb.y + 2);
    await page.mouse.down();
    for (const [a, c] of [[0.5, 0.02], [0.5, 0.98], [0.02, 0.98], [0.02, 0.03]]) await page.mouse.move(sb.x + a * sb.width, sb.y + c * sb.height, { steps: 5 });
    await page.mouse.up();
    await page.waitForFunction(() => /selected/.test(document.querySelector('.live-selinfo').textContent) && !/Nothing/.test(document.querySelector('.live-selinfo').textContent));
    assert.ok(await page.locator('.live-scatter-top .pdes-dot.is-dimmed').count() > 0, 'unselected dots are dimmed');
    assert.deepEqual(await overflowingElements(page, '.ari-tooltip, .table-wrap'), [], 'nothing passes the right edge at 1366x768');
    await page.screenshot({ path: join(shots, 'live-fake-lasso.png'), fullPage: true });

    // a closed run: the page offers the replay, which draws the run again
    await page.goto(`${url}/#/live/8`);
    await page.waitForSelector('.badge-live[data-state="closed"]');
    assert.ok(await page.isVisible('.live-replay'));
    assert.equal(await page.getAttribute('.live-offline', 'href'), '#/traces/8');
    await page.fill('.live-replay-rate', '40');
    await page.click('.live-replay');
    await page.waitForFunction(() => document.querySelectorAll('.live-history-top .live-cp').length === 2, null, { timeout: 20000 });
    assert.ok(runs.get(8).requests.some((r) => r.startsWith('GET /events?replay=40')), 'replayed through ?replay=40');
    // the traces list is not served by the fake; the badge is checked against the real daemon
    assert.deepEqual(problems.filter((p) => !/Failed to load resource/.test(p)), []);
  } finally {
    for (const r of runs.values()) clearInterval(r.timer);
    for (const r of runs.values()) for (const c of r.clients) c.end();
    srv.closeAllConnections();
    await new Promise((r) => srv.close(r));
  }
});
