// atree.test.mjs: the elimination-tree and regression views in headless
// Chromium against a live ariadned: opens the tree panel of StarVZ's
// qr_trace (or the small fixture tests/fixtures/regression/qr_small when
// the shared data is absent), checks that every row of /atree is drawn,
// hovers a node and reads its tooltip against the API; then the regression
// view (one scatter per group, the anomaly counts of /anomalies) and the
// Gantt with the anomalies opaque. Screenshots go to
// tests/browser/screenshots/ (1366x768 viewport, full page).
//
// Needs `npm ci` in tests/ (playwright-core) and in static/ (d3 into
// static/vendor/), and Debian's chromium (or $CHROMIUM).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, watchedPage } from '../lib/browser.mjs';
import { startDaemon, runCli, sourceDir } from '../lib/daemon.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const shots = join(here, 'screenshots');
const shared = process.env.ARIADNE_SHARED_DATA || join(sourceDir, '..', 'shared', 'data');
const qrDir = join(shared, 'starvz', 'extra_data', 'qr_trace');
const fixture = join(sourceDir, 'tests', 'fixtures', 'regression', 'qr_small');

let daemon, browser, page, id;
const problems = [];

async function apiGet(path) {
  const r = await fetch(`${daemon.url}/api/v1${path}`);
  assert.equal(r.status, 200, `${path}: ${r.status}`);
  return r.json();
}

before(async () => {
  mkdirSync(shots, { recursive: true });
  daemon = await startDaemon();
  const path = existsSync(join(qrDir, 'atree.csv')) ? qrDir : fixture;
  const r = runCli(['import', '--db', daemon.db, path]);
  assert.equal(r.status, 0, r.stderr);
  id = JSON.parse(r.stdout.trim().split('\n')[0]).id;
  browser = await launchChromium();
  page = await watchedPage(browser, problems);
});

after(async () => {
  if (browser) await browser.close();
  if (daemon) await daemon.stop();
});

test('the tree panel draws every row and a hovered node shows its tooltip', async () => {
  const tree = await apiGet(`/traces/${id}/atree?slice=100`);
  await page.goto(`${daemon.url}/#/traces/${id}/atree`);
  const panel = page.locator('#atree-tree');
  await panel.locator('svg.atree-svg').waitFor();
  assert.equal(await page.locator('#tab-atree').getAttribute('aria-current'), 'page');
  // one lifespan per drawn full-height row, one cell rect per cell
  const lifespans = await panel.locator('g.lifespan line').count();
  const rows = tree.nodes.id.filter((_, i) => tree.nodes.height[i] === 1 && tree.nodes.start[i] !== null).length;
  assert.equal(lifespans, rows);
  assert.equal(await panel.locator('g.cells rect').count(), tree.cells.node.length);
  assert.equal(await panel.locator('g.anomalies circle').count(), tree.anomalies.node.length);
  // hover the middle of the first row's lifespan: the tooltip names that node
  const first = tree.nodes.id.findIndex((_, i) => tree.nodes.position[i] === 1 && tree.nodes.height[i] === 1);
  const nodeId = tree.nodes.id[first];
  const line = panel.locator('g.lifespan line').first();
  const box = await line.boundingBox();
  const overlay = await panel.locator('rect.overlay').boundingBox();
  await page.mouse.move(box.x + box.width / 2, overlay.y + 1);
  const tip = page.locator('.atree-tooltip');
  await tip.waitFor({ state: 'visible' });
  const text = await tip.textContent();
  assert.match(text, new RegExp(`node ${nodeId}\\b`));
  assert.match(text, new RegExp(`depth ${tree.nodes.depth[first]}\\b`));
  assert.equal(await panel.locator('svg.atree-svg').getAttribute('data-hover-node'), String(nodeId));
  await page.screenshot({ path: join(shots, '40-atree.png'), fullPage: true });
  // the utilisation and memory panels follow, on the same time axis
  await page.locator('#atree-util svg').waitFor();
  await page.locator('#atree-memory svg').first().waitFor();
  // per-depth utilisation through the URL-backed control
  await page.selectOption('#atree-by', 'depth');
  await page.waitForFunction(() => location.hash.includes('by=depth'));
  await page.locator('#atree-util h2', { hasText: 'depth' }).waitFor();
  assert.deepEqual(problems, []);
});

test('the regression view: one scatter per group with its anomaly count', async () => {
  const a = await apiGet(`/traces/${id}/anomalies`);
  await page.goto(`${daemon.url}/#/traces/${id}/regression`);
  await page.locator('.reg-panel').first().waitFor();
  const panels = await page.locator('.reg-panel').evaluateAll((els) => els.map((e) => [e.dataset.group, Number(e.dataset.anomalies)]));
  const want = a.groups.map((g) => [`${g.type}/${g.resource_type}`, g.anomalies]);
  assert.deepEqual(panels.sort(), want.sort());
  assert.equal(await page.locator('.reg-panel .reg-points circle.anomaly').count(), a.count);
  await page.locator('table.reg-table').waitFor();
  await page.screenshot({ path: join(shots, '41-regression.png'), fullPage: true });
  await page.selectOption('#reg-model', 'flexmix');
  await page.waitForFunction(() => location.hash.includes('model=flexmix'));
  await page.locator('.reg-panel').first().waitFor();
  // the Gantt with the expected tasks transparent and the anomalies opaque
  await page.goto(`${daemon.url}/#/traces/${id}/gantt?anomalies=lr_log`);
  await page.locator('.gantt-chart canvas').waitFor();
  await page.waitForTimeout(800);
  assert.match(await page.evaluate(() => location.hash), /anomalies=lr_log/);
  await page.screenshot({ path: join(shots, '42-gantt-anomalies.png') });
  assert.deepEqual(problems, []);
});
