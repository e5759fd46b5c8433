// pdes.test.mjs: the Behaviour view of a sampled-metrics trace (issue 17,
// Fig. 5.7) in headless chromium at 1366x768: imports the ROSS sample of
// ../shared/data when present (else tests/fixtures/metrics/ross), opens the
// view, brushes a range on the overview (the detail's series follow, the
// range goes to the URL), clusters with k = 3 (the polylines' colours follow
// the API's labels: one colour per label), lassoes points of the similarity
// scatter and checks that the polylines and the communication rings
// highlight exactly the lassoed entities; no horizontal overflow, no console
// error. The analysis endpoints (POST cluster, projection, comm/segments)
// must be in the server's openapi.json. Screenshots: pdes-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, watchedPage, overflowingElements } from '../lib/browser.mjs';
import { startDaemon, runCli, sourceDir, sharedData } from '../lib/daemon.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const shots = join(here, 'screenshots');
const ross = join(process.env.ARIADNE_SHARED_DATA || sharedData, 'ross-sample');
const fixture = join(sourceDir, 'tests', 'fixtures', 'metrics', 'ross');

let daemon, browser, page, id, api;
const problems = [];

before(async () => {
  mkdirSync(shots, { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), 'ariadne-pdes-browser-'));
  const r = runCli(['import', '--quiet', '--db', join(dir, 'test.db'), existsSync(ross) ? ross : fixture]);
  assert.equal(r.status, 0, r.stderr);
  id = JSON.parse(r.stdout.trim().split('\n')[0]).id;
  daemon = await startDaemon({ dir });
  const doc = await (await fetch(`${daemon.url}/api/v1/openapi.json`)).json();
  api = (p) => !!(doc.paths[`/api/v1/traces/{id}/${p}`] || {}).post;
  browser = await launchChromium();
  page = await watchedPage(browser, problems);
});

after(async () => {
  if (browser) await browser.close();
  if (daemon) await daemon.stop();
});

const hl = (panel) => page.evaluate((p) => document.querySelector(`.${p} .pdes-body`).dataset.highlighted || '', panel);
const urlParams = () => new URLSearchParams(page.url().split('?')[1] || '');

test('the Behaviour view: brush, cluster, lasso, linked views', async (t) => {
  await page.goto(`${daemon.url}/#/traces/${id}/behaviour`);
  await page.locator('.pdes-overview-line').waitFor();
  await page.locator('.pdes-line').first().waitFor();
  const trace = await (await fetch(`${daemon.url}/api/v1/traces/${id}`)).json();
  const n = Object.values(trace.summary.entities).pop();
  assert.equal(await page.locator('.pdes-chart').first().locator('.pdes-line').count(), n, 'one polyline per entity');
  await page.screenshot({ path: join(shots, 'pdes-open.png'), fullPage: true });

  // brush the middle half of the overview
  const box = await page.locator('.pdes-overview-svg').boundingBox();
  const y = box.y + 70, x0 = box.x + 58 + (box.width - 72) * 0.25, x1 = box.x + 58 + (box.width - 72) * 0.75;
  await page.mouse.move(x0, y);
  await page.mouse.down();
  await page.mouse.move(x1, y, { steps: 8 });
  await page.mouse.up();
  await page.waitForFunction(() => /[?&]t0=/.test(location.hash));
  const q = urlParams();
  const [t0, t1] = [Number(q.get('t0')), Number(q.get('t1'))];
  assert.ok(trace.summary.start < t0 && t0 < t1 && t1 < trace.summary.end, `brushed ${t0}..${t1}`);
  // the detail shows the time points of the range: compare with /series
  const axes = await (await fetch(`${daemon.url}/api/v1/traces/${id}/series?metric=${q.get('m1')}&t0=${t0}&t1=${t1}&format=axes`)).json();
  await page.waitForFunction((l) => {
    const p = document.querySelector('.pdes-chart .pdes-line');
    return p && (p.getAttribute('d').match(/[ML]/g) || []).length <= l;
  }, axes.time.length);
  assert.ok(axes.time.length >= 2 && axes.time.length < trace.summary.time_points);

  assert.ok(api('cluster'), 'the server lists POST /api/v1/traces/{id}/cluster');
  {
    await page.fill('.pdes-k', '3');
    await page.locator('.pdes-k').dispatchEvent('change');
    await page.click('.pdes-run-cluster');
    await page.locator('.pdes-legend-key').first().waitFor();
    const res = await (await fetch(`${daemon.url}/api/v1/traces/${id}/cluster`, { method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ metrics: [q.get('m1'), q.get('m2')].filter((m, i, a) => a.indexOf(m) === i), t0, t1,
        granularity: q.get('gran'), time_domain: trace.summary.time_domain, method: 'kmeans', distance: 'euclidean', k: 3 }) })).json();
    assert.ok(res.labels, 'the cluster answer is immediate for k-means (200)');
    const label = new Map(res.entities.map((e, i) => [typeof e === 'object' ? e.id : e, res.labels[i]]));
    const strokes = await page.evaluate(() => [...document.querySelectorAll('.pdes-chart:first-of-type .pdes-line')]
      .map((p) => [Number(p.dataset.id), p.getAttribute('stroke')]));
    const byLabel = new Map();
    for (const [eid, colour] of strokes) {
      const l = label.get(eid);
      assert.ok(l !== undefined, `entity ${eid} has a label`);
      if (!byLabel.has(l)) byLabel.set(l, colour);
      assert.equal(colour, byLabel.get(l), `entity ${eid} has the colour of its cluster ${l}`);
    }
    assert.equal(new Set(byLabel.values()).size, byLabel.size, 'one colour per cluster');
    assert.equal(await page.locator('.pdes-legend-key').count(), 3);
    await page.screenshot({ path: join(shots, 'pdes-clustered.png'), fullPage: true });
  }

  assert.ok(api('projection'), 'the server lists POST /api/v1/traces/{id}/projection');
  {
    await page.click('.pdes-run-proj');
    await page.locator('.pdes-dot').first().waitFor();
    // lasso the left half of the scatter with synthesised pointer events
    await page.locator('.pdes-scatter-svg').scrollIntoViewIfNeeded();
    const sb = await page.locator('.pdes-scatter-svg').boundingBox();
    const poly = [[0.02, 0.02], [0.5, 0.02], [0.5, 0.98], [0.02, 0.98], [0.02, 0.03]].map(([a, b]) => [sb.x + a * sb.width, sb.y + b * sb.height]);
    await page.mouse.move(...poly[0]);
    await page.mouse.down();
    for (const p of poly.slice(1)) await page.mouse.move(...p, { steps: 6 });
    await page.mouse.up();
    const inside = await page.evaluate(({ x, width }) => [...document.querySelectorAll('.pdes-dot')]
      .filter((c) => { const r = c.getBoundingClientRect(); return r.x + r.width / 2 < x + width * 0.5; })
      .map((c) => Number(c.dataset.id)).sort((a, b) => a - b).join(','), sb);
    assert.ok(inside.length > 0, 'some points lie in the lasso');
    await page.waitForFunction((ids) => document.querySelector('.pdes-similarity .pdes-body').dataset.highlighted === ids, inside);
    assert.equal(await hl('pdes-detail'), inside, 'the polylines highlight the lassoed entities');
    const selected = await page.evaluate(() => [...new Set([...document.querySelectorAll('.pdes-chart:first-of-type .pdes-line.is-selected')]
      .map((p) => Number(p.dataset.id)))].sort((a, b) => a - b).join(','));
    assert.equal(selected, inside, 'the highlighted polylines are the lassoed ones');
    assert.ok(api('comm/segments'), 'the server lists POST /api/v1/traces/{id}/comm/segments');
    if (trace.summary.has_comm) {
      await page.locator('.pdes-bar').first().waitFor();
      const bars = await page.evaluate(() => [...new Set([...document.querySelectorAll('.pdes-bar.is-selected')]
        .map((p) => Number(p.dataset.id)))].sort((a, b) => a - b).join(','));
      if (urlParams().get('gran') !== 'PE') assert.equal(bars, inside, 'the ring bars highlight the lassoed KPs');
    } else {
      t.diagnostic('this trace has no communication data: the rings are not checked');
    }
    await page.screenshot({ path: join(shots, 'pdes-lasso.png'), fullPage: true });
    // Keep selected: the others disappear from every view
    await page.click('.pdes-keep');
    await page.waitForFunction((k) => document.querySelectorAll('.pdes-chart:first-of-type .pdes-line').length === k, inside.split(',').length);
    assert.equal(await page.locator('.pdes-dot').count(), inside.split(',').length);
    assert.match(page.url(), /hide=/);
    await page.click('.pdes-reset');
    await page.waitForFunction((k) => document.querySelectorAll('.pdes-chart:first-of-type .pdes-line').length === k, n);
  }

  // segmentation: a double-click adds a boundary, Delete removes it
  await page.locator('.pdes-detail-svg').scrollIntoViewIfNeeded();
  const db = await page.locator('.pdes-detail-svg').boundingBox();
  await page.mouse.dblclick(db.x + db.width / 2, db.y + 80);
  await page.waitForFunction(() => /[?&]cuts=/.test(location.hash));
  assert.equal(await page.locator('.pdes-seg-item').count(), 2, 'two segments A and B');
  assert.equal(await page.locator('.pdes-seg-label').count(), 2);

  const over = await overflowingElements(page, '.ari-tooltip');
  assert.deepEqual(over, [], 'nothing passes the right edge at 1366x768');
  await page.screenshot({ path: join(shots, 'pdes-segments.png'), fullPage: true });
  assert.deepEqual(problems, []);
});
