// pdes_large.test.mjs: the Behaviour view at 16,384 entities (issue 17) in
// headless chromium at 1366x768: generates a simulated ROSS run (`ariadned
// generate --kind pdes`, 64 PEs x 256 KPs, 300 samples), imports it, opens
// the view and checks that the detail draws on a canvas (no SVG polyline),
// that /series is asked for at most the chart's pixel width of columns, that
// a brush redraws the detail in < 3 s (measured in the page: brush end to the
// canvas's redraw), that a freeform stroke selects the lines it crosses
// (a full-height stroke crosses every line with samples there), that
// clustering with k = 3 recolours the lines (the canvas's per-colour counts
// equal the API's cluster sizes; its pixels show the three cluster hues),
// that the similarity scatter draws its 16,384 dots on a canvas and its lasso
// selects the dots inside (recomputed here from the projection), and that no
// console error occurs. Screenshots: pdes-large-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, watchedPage } from '../lib/browser.mjs';
import { startDaemon, runCli } from '../lib/daemon.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const shots = join(here, 'screenshots');
const N = 64 * 256;

let daemon, browser, page, id, trace;
const problems = [];

before(async () => {
  mkdirSync(shots, { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), 'ariadne-pdes-large-'));
  const run = join(dir, 'run');
  const t0 = Date.now();
  let r = runCli(['generate', '--kind', 'pdes', '--pes', '64', '--kps', '256', '--lps', '1', '--samples', '300', '--no-records', '--out', run]);
  assert.equal(r.status, 0, r.stderr);
  const tGen = Date.now() - t0;
  r = runCli(['import', '--quiet', '--db', join(dir, 'test.db'), run]);
  assert.equal(r.status, 0, r.stderr);
  id = JSON.parse(r.stdout.trim().split('\n')[0]).id;
  process.stdout.write(`# generate ${tGen} ms, import ${Date.now() - t0 - tGen} ms\n`);
  daemon = await startDaemon({ dir });
  trace = await (await fetch(`${daemon.url}/api/v1/traces/${id}`)).json();
  browser = await launchChromium();
  page = await watchedPage(browser, problems);
});

after(async () => {
  if (browser) await browser.close();
  if (daemon) await daemon.stop();
});

const canvasData = (cls) => page.evaluate((c) => ({ ...document.querySelector(`.${c}`).dataset }), cls);
const colourCounts = (s) => new Map((s || '').split(';').filter(Boolean).map((x) => { const [c, n] = x.split(':'); return [c, Number(n)]; }));
const selectedCount = () => page.evaluate(() => Number((document.querySelector('.pdes-selinfo').textContent.match(/^(\d+) selected/) || [0, 0])[1]));

// Drags the mouse through `pts` (page coordinates); returns the page's
// performance.now() at the pointerup.
async function drag(pts) {
  await page.evaluate(() => {
    window.__upAt = null;
    window.addEventListener('pointerup', () => { window.__upAt = performance.now(); }, { capture: true, once: true });
  });
  await page.mouse.move(...pts[0]);
  await page.mouse.down();
  for (const p of pts.slice(1)) await page.mouse.move(...p, { steps: 6 });
  await page.mouse.up();
  return page.evaluate(() => window.__upAt);
}

// Waits for the canvas to be redrawn and painted after page time `since`; returns the delay.
async function redrawnAfter(since, cls = 'pdes-detail-canvas') {
  const h = await page.waitForFunction(({ t, c }) => {
    const el = document.querySelector(`.${c}`);
    return el && Number(el.dataset.paintedAt) > t ? Number(el.dataset.paintedAt) - t : false;
  }, { t: since, c: cls }, { timeout: 30000 });
  return h.jsonValue();
}

// The number of pixels of canvas `.cls` whose hue is within 10 degrees of
// each colour of `hexes` (saturated, not transparent), counted in the page.
function hueCounts(cls, hexes) {
  return page.evaluate(({ c, list }) => {
    const hue = (r, g, b) => {
      const mx = Math.max(r, g, b), mn = Math.min(r, g, b), d = mx - mn;
      if (!d) return null;
      const hh = mx === r ? ((g - b) / d) % 6 : mx === g ? (b - r) / d + 2 : (r - g) / d + 4;
      return { h: (hh * 60 + 360) % 360, s: d / mx };
    };
    const wants = list.map((hex) => hue(...[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16))));
    const el = document.querySelector(`.${c}`);
    const px = el.getContext('2d').getImageData(0, 0, el.width, el.height).data;
    const n = wants.map(() => 0);
    for (let i = 0; i < px.length; i += 4) {
      if (px[i + 3] < 40) continue;
      const p = hue(px[i], px[i + 1], px[i + 2]);
      if (!p || p.s < 0.25) continue;
      wants.forEach((w, k) => { if (Math.min(Math.abs(p.h - w.h), 360 - Math.abs(p.h - w.h)) < 10) n[k]++; });
    }
    return n;
  }, { c: cls, list: hexes });
}

test('the Behaviour view at 16,384 entities: canvas, brush, stroke, clusters, lasso', async (t) => {
  const T0 = Date.now(), step = (what) => t.diagnostic(`${((Date.now() - T0) / 1000).toFixed(1)} s: ${what}`);
  assert.equal(Object.values(trace.summary.entities).pop(), N);
  const seriesUrls = [];
  page.on('request', (q) => { if (/\/series\?/.test(q.url()) && !/format=axes/.test(q.url())) seriesUrls.push(q.url()); });
  await page.goto(`${daemon.url}/#/traces/${id}/behaviour`);
  await page.locator('.pdes-detail-canvas').waitFor({ timeout: 60000 });
  assert.equal(await page.locator('.pdes-line').count(), 0, 'no SVG polyline at this size');
  let cd = await canvasData('pdes-detail-canvas');
  assert.equal(Number(cd.marks), N, 'one line per entity on the canvas');
  assert.equal(colourCounts(cd.colours).size, 1, 'one colour before clustering');
  // the canvas is sized for the device pixel ratio
  const dims = await page.evaluate(() => { const c = document.querySelector('.pdes-detail-canvas'); return [c.width, c.clientWidth, window.devicePixelRatio]; });
  assert.equal(dims[0], Math.round(dims[1] * dims[2]));
  // max_points = the plot's pixel width
  const plotW = await page.evaluate(() => document.querySelector('.pdes-detail-svg').width.baseVal.value - 72);
  assert.ok(seriesUrls.length >= 2);
  for (const u of seriesUrls) assert.equal(Number(new URL(u).searchParams.get('max_points')), plotW, u);
  await page.screenshot({ path: join(shots, 'pdes-large-open.png'), fullPage: true });

  step('opened');
  // brush the middle half of the overview: the detail redraws within 3 s
  const box = await page.locator('.pdes-overview-svg').boundingBox();
  const y = box.y + 70, x0 = box.x + 58 + (box.width - 72) * 0.25, x1 = box.x + 58 + (box.width - 72) * 0.75;
  let upAt = await drag([[x0, y], [x1, y]]);
  const brushMs = await redrawnAfter(upAt);
  t.diagnostic(`brush end -> detail redrawn: ${Math.round(brushMs)} ms`);
  assert.ok(brushMs < 3000, `the detail redraws ${Math.round(brushMs)} ms after the brush (< 3000)`);
  const q = new URLSearchParams(page.url().split('?')[1] || '');
  const [b0, b1] = [Number(q.get('t0')), Number(q.get('t1'))];
  assert.ok(trace.summary.start < b0 && b0 < b1 && b1 < trace.summary.end, `brushed ${b0}..${b1}`);
  cd = await canvasData('pdes-detail-canvas');
  const axes = await (await fetch(`${daemon.url}/api/v1/traces/${id}/series?metric=${q.get('m1')}&t0=${b0}&t1=${b1}&max_points=${plotW}&format=axes`)).json();
  assert.equal(Number(cd.columns), axes.time.length, 'the detail shows the brushed range');
  assert.ok(axes.time.length < trace.summary.time_points);

  step('brushed');
  // a full-height vertical stroke over the top chart crosses every line with
  // samples on both sides of it
  const db = await page.locator('.pdes-detail-svg').boundingBox();
  const sx = db.x + 58 + (db.width - 72) * 0.5 + 0.5;
  upAt = await drag([[sx, db.y + 20 - 8], [sx, db.y + 20 + 120 + 8]]);
  const strokeMs = await redrawnAfter(upAt);
  t.diagnostic(`stroke end -> detail redrawn: ${Math.round(strokeMs)} ms`);
  assert.ok(strokeMs < 3000, `the selection redraws in ${Math.round(strokeMs)} ms (< 3000)`);
  const res = await fetch(`${daemon.url}/api/v1/traces/${id}/series?metric=${q.get('m1')}&t0=${b0}&t1=${b1}&max_points=${plotW}`);
  const vals = new Float32Array(await res.arrayBuffer());
  const l = axes.time.length, xsOf = (tm) => 58 + (db.width - 72) * (tm - axes.time[0]) / (axes.time[l - 1] - axes.time[0]);
  const px = (db.width - 72) * 0.5 + 0.5 + 58;
  const j = axes.time.findIndex((tm) => xsOf(tm) > px);
  let expected = 0;
  for (let i = 0; i < N; i++) if (!Number.isNaN(vals[i * l + j - 1]) && !Number.isNaN(vals[i * l + j])) expected++;
  assert.ok(expected > 0);
  assert.equal(await selectedCount(), expected, 'the stroke selects every line it crosses');
  cd = await canvasData('pdes-detail-canvas');
  assert.equal(Number(cd.selected), expected, 'the canvas draws the selected lines on top');
  await page.click('.pdes-reset');
  await page.waitForFunction(() => document.querySelector('.pdes-detail-canvas').dataset.selected === '0');

  step('stroke checked');
  // cluster with k = 3: the canvas colours follow the API's labels
  await page.fill('.pdes-k', '3');
  await page.locator('.pdes-k').dispatchEvent('change');
  await page.click('.pdes-run-cluster');
  await page.locator('.pdes-legend-key').first().waitFor({ timeout: 180000 });
  assert.equal(await page.locator('.pdes-legend-key').count(), 3);
  const legend = await page.evaluate(() => [...document.querySelectorAll('.pdes-legend-key')].map((k) => ({
    c: Number(k.dataset.cluster), colour: k.querySelector('.ari-swatch').getAttribute('style').replace('background:', '').trim(),
    n: Number(k.textContent.match(/\((\d+)\)/)[1]) })));
  cd = await canvasData('pdes-detail-canvas');
  const counts = colourCounts(cd.colours);
  assert.equal(counts.size, 3, `three colours on the canvas: ${cd.colours}`);
  for (const k of legend) assert.equal(counts.get(k.colour), k.n, `cluster ${k.c} (${k.colour}) has ${k.n} lines`);
  assert.equal(legend.reduce((a, k) => a + k.n, 0), N);
  // the legend's sizes are the API's (the same request, answered from its cache or recomputed)
  const body = { metrics: [q.get('m1'), q.get('m2')].filter((m, i, a) => a.indexOf(m) === i), t0: b0, t1: b1,
    granularity: q.get('gran'), time_domain: trace.summary.time_domain, method: 'kmeans', distance: 'euclidean', k: 3 };
  let ans = await (await fetch(`${daemon.url}/api/v1/traces/${id}/cluster`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })).json();
  while (ans.analysis && !ans.result) {
    await new Promise((ok) => setTimeout(ok, 500));
    ans = await (await fetch(`${daemon.url}/api/v1/analyses/${ans.analysis.id}`)).json();
    assert.ok(!['failed', 'cancelled'].includes(ans.analysis.status), JSON.stringify(ans.analysis));
  }
  const labels = (ans.result || ans).labels;
  const sizes = [0, 0, 0];
  for (const lb of labels) sizes[lb]++;
  assert.deepEqual(legend.map((k) => k.n), sizes, 'the cluster sizes are the API\'s');
  // the pixels show each cluster's hue
  const hues = await hueCounts('pdes-detail-canvas', legend.map((k) => k.colour));
  legend.forEach((k, i) => assert.ok(hues[i] > 50, `${hues[i]} pixels of cluster ${k.c}'s colour ${k.colour}`));
  await page.screenshot({ path: join(shots, 'pdes-large-clustered.png'), fullPage: true });

  step('clustered');
  // the similarity scatter: 16,384 dots on a canvas; the lasso selects the dots inside
  await page.click('.pdes-run-proj');
  await page.locator('.pdes-scatter-canvas').waitFor({ timeout: 300000 });
  const sd = await canvasData('pdes-scatter-canvas');
  assert.equal(Number(sd.marks), N);
  assert.equal(await page.locator('.pdes-dot').count(), 0, 'no SVG dot at this size');
  const pbody = { metrics: body.metrics, t0: b0, t1: b1, granularity: body.granularity, time_domain: body.time_domain, method: 'mds', distance: 'euclidean' };
  let pa = await (await fetch(`${daemon.url}/api/v1/traces/${id}/projection`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(pbody) })).json();
  while (pa.analysis && !pa.result) {
    await new Promise((ok) => setTimeout(ok, 500));
    pa = await (await fetch(`${daemon.url}/api/v1/analyses/${pa.analysis.id}`)).json();
  }
  const proj = pa.result || pa;
  await page.locator('.pdes-scatter-svg').scrollIntoViewIfNeeded();
  const sb = await page.locator('.pdes-scatter-svg').boundingBox();
  const poly = [[0.02, 0.02], [0.5, 0.02], [0.5, 0.98], [0.02, 0.98], [0.02, 0.03]].map(([a, b]) => [sb.x + a * sb.width, sb.y + b * sb.height]);
  upAt = await drag(poly);
  const lassoMs = await redrawnAfter(upAt, 'pdes-scatter-canvas');
  t.diagnostic(`lasso end -> scatter redrawn: ${Math.round(lassoMs)} ms`);
  // the dots inside, from the projection and the scatter's mapping (lib/pdes_charts.js drawScatter)
  const xy = proj.xy, W = sb.width, H = sb.height;
  const ext = (k) => [Math.min(...xy.map((p) => p[k])), Math.max(...xy.map((p) => p[k]))];
  const ex = ext(0), ey = ext(1), span = Math.max(ex[1] - ex[0] || 1, ey[1] - ey[0] || 1), side = Math.min(W, H) - 28;
  const inside = [], outside = [];
  proj.entities.forEach((e, i) => {
    const X = W / 2 + (xy[i][0] - (ex[0] + ex[1]) / 2) / span * side;
    const Y = H / 2 - (xy[i][1] - (ey[0] + ey[1]) / 2) / span * side;
    const eid = typeof e === 'object' ? e.id : e;
    // the lasso is the rectangle 2 %..50 % x 2 %..98 %: leave out the dots within 1 px of its edges
    if (X > 0.02 * W + 1 && X < 0.5 * W - 1 && Y > 0.02 * H + 1 && Y < 0.98 * H - 1) inside.push(eid);
    else if (X < 0.02 * W - 1 || X > 0.5 * W + 1 || Y < 0.02 * H - 1 || Y > 0.98 * H + 1) outside.push(eid);
  });
  const got = await page.evaluate(() => document.querySelector('.pdes-similarity .pdes-body').dataset.highlighted.split(',').filter(Boolean).map(Number));
  const gotSet = new Set(got);
  assert.ok(inside.length > 0 && outside.length > 0, 'dots on both sides of the lasso');
  assert.deepEqual(inside.filter((e) => !gotSet.has(e)), [], 'every dot inside the lasso is selected');
  assert.deepEqual(outside.filter((e) => gotSet.has(e)), [], 'no dot outside the lasso is selected');
  assert.equal(Number((await canvasData('pdes-scatter-canvas')).selected), got.length);
  await redrawnAfter(upAt);
  assert.equal(Number((await canvasData('pdes-detail-canvas')).selected), got.length, 'the detail highlights the lassoed entities');
  await page.screenshot({ path: join(shots, 'pdes-large-lasso.png'), fullPage: true });
  step('lasso checked');
  assert.deepEqual(problems, []);
});
