// legends.test.mjs: units, legends, tooltips and overflow at 1366x768 (issue
// 15): on a real DMVis run (Overview, Data movement) and on real Caliper and
// HPCToolkit profiles (Super graph), no element is wider than the viewport,
// every colour ramp has a legend with its unit, hovers use the dashboard's
// tooltip (lib/tooltip.js) instead of SVG <title>s, the clock glyph's texts
// lie outside its ring, super-graph values carry their unit, and disabled
// split buttons say why. Skips when ../shared/data is absent. Screenshots go
// to tests/browser/screenshots/legends-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, copyFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, watchedPage, overflowingElements } from '../lib/browser.mjs';
import { startDaemon, runCli, sharedData } from '../lib/daemon.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const shots = join(here, 'screenshots');
const data = process.env.ARIADNE_SHARED_DATA || sharedData;
const GEMM = join(data, 'dmvis', 'data', 'use-case-2-GEMM-kernel-opt-w-metrics');
const HATCHET = join(data, 'hatchet', 'hatchet', 'tests', 'data');
const LULESH = join(HATCHET, 'caliper-lulesh-json', 'lulesh-annotation-profile.json');
const CPI = join(HATCHET, 'hpctoolkit-cpi-database');
const present = existsSync(GEMM) && existsSync(LULESH) && existsSync(CPI);

let daemon, browser, page, dir;
const ids = {};
const problems = [];

function importPath(path) {
  const r = runCli(['import', '--quiet', '--db', join(dir, 'test.db'), path]);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout.trim().split('\n')[0]).id;
}

before(async () => {
  if (!present) return;
  mkdirSync(shots, { recursive: true });
  dir = mkdtempSync(join(tmpdir(), 'ariadne-legends-'));
  const run = join(dir, 'run');
  mkdirSync(run);
  for (const f of ['kernel-opt-5-1.json', 'kernel-opt-5-1.csv']) copyFileSync(join(GEMM, f), join(run, f));
  ids.dm = importPath(run);
  ids.lulesh = importPath(LULESH);
  ids.cpi = importPath(CPI);
  daemon = await startDaemon({ dir });
  browser = await launchChromium();
  page = await watchedPage(browser, problems);
});

after(async () => {
  if (browser) await browser.close();
  if (daemon) await daemon.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// Elements whose right edge passes the viewport's (what a user would have to scroll to).
const overflowing = () => overflowingElements(page, '.ov-scroll, [hidden]');

test('the data-movement Overview is a readable table within the viewport', async (t) => {
  if (!present) { t.skip('../shared/data (DMVis, Hatchet) is absent'); return; }
  await page.goto(`${daemon.url}/#/traces/${ids.dm}/overview`);
  await page.locator('.overview-summary table').first().waitFor();
  assert.deepEqual(await overflowing(), []);
  const text = await page.locator('.overview-summary').textContent();
  assert.doesNotMatch(text, /[{}"]/, 'no raw JSON');
  assert.match(text, /2\.0 GiB/, 'bytes with their unit');
  assert.match(text, /GB\/s/, 'bandwidth with its unit');
  await page.screenshot({ path: join(shots, 'legends-datamove-overview.png'), fullPage: true });
  assert.deepEqual(problems, []);
});

test('data movement: legends with units, the dashboard tooltip, the clock texts off the ring', async (t) => {
  if (!present) { t.skip('../shared/data (DMVis, Hatchet) is absent'); return; }
  await page.goto(`${daemon.url}/#/traces/${ids.dm}/datamove`);
  await page.locator('.dm-cell').first().waitFor();
  await page.locator('.dm-clock svg path').first().waitFor();
  assert.deepEqual(await overflowing(), []);
  const matrixLegend = await page.locator('.dm-matrix .ari-legend-ramp').textContent();
  assert.match(matrixLegend, /bytes moved/i);
  assert.match(matrixLegend, /0 B.*GiB/);
  assert.match(await page.locator('.dm-topology .ari-legend-ramp').textContent(), /utilisation.*0 %.*100 %/);
  assert.equal(await page.locator('.dm-view svg title').count(), 0, 'no native <title> tooltips');
  // hover the host -> gpu0 cell: the dashboard's tooltip with the bytes
  const cell = page.locator('.dm-cell').nth(1);
  await cell.hover();
  const tip = page.locator('.ari-tooltip:not([hidden])');
  await tip.waitFor();
  assert.match(await tip.textContent(), /host → gpu0.*Bytes moved.*GiB/);
  await page.screenshot({ path: join(shots, 'legends-datamove-tooltip.png') });
  // the clock's title and duration do not overlap its ring
  const clash = await page.evaluate(() => {
    const rim = document.querySelector('.dm-clock-rim').getBoundingClientRect();
    return [...document.querySelectorAll('.dm-clock-title, .dm-clock-label')].map((e) => e.getBoundingClientRect())
      .filter((r) => r.bottom > rim.top + 0.5 && r.top < rim.bottom - 0.5).length;
  });
  assert.equal(clash, 0, 'clock texts outside the ring');
  await page.selectOption('.dm-mode', 'bytes');
  assert.match(await page.locator('.dm-topology .ari-legend-ramp').textContent(), /bytes moved.*0 B/);
  await page.screenshot({ path: join(shots, 'legends-datamove.png'), fullPage: true });
  assert.deepEqual(problems, []);
});

test('super graph: values in their unit, a legend with it, disabled splits say why', async (t) => {
  if (!present) { t.skip('../shared/data (DMVis, Hatchet) is absent'); return; }
  // Caliper json-split without a declared unit: microseconds (5,889,902 µs = 5.89 s for main)
  await page.goto(`${daemon.url}/#/traces/${ids.lulesh}/supergraph`);
  await page.locator('.sg-node').first().waitFor();
  assert.deepEqual(await overflowing(), []);
  const main = await page.locator('.sg-node[data-id="main#0"]').getAttribute('aria-label');
  assert.match(main, /inclusive 5\.89\d* s/, main);
  assert.match(await page.locator('.sg-legend').textContent(), /µs inferred/);
  // a node with one caller and one entry function: the splits are disabled and say why
  await page.locator('.sg-node[data-id="LagrangeLeapFrog#0"]').click();
  const caller = page.locator('#sg-split-caller');
  await caller.waitFor();
  assert.equal(await caller.isDisabled(), true);
  assert.match(await caller.getAttribute('title'), /Needs two callers/);
  assert.match(await page.locator('#sg-why').textContent(), /1 caller/);
  await page.locator('.sg-node[data-id="main#0"] .sg-bar').hover();
  await page.locator('.ari-tooltip:not([hidden])').waitFor();
  await page.screenshot({ path: join(shots, 'legends-supergraph-lulesh.png'), fullPage: true });
  // HPCToolkit declares usec: no inference note
  await page.goto(`${daemon.url}/#/traces/${ids.cpi}/supergraph`);
  await page.locator('.sg-node').first().waitFor();
  assert.deepEqual(await overflowing(), []);
  assert.equal(await page.locator('#sg-unit-note').count(), 0);
  assert.match(await page.locator('.sg-legend').textContent(), /ms|s/);
  await page.screenshot({ path: join(shots, 'legends-supergraph-hpctoolkit.png'), fullPage: true });
  assert.deepEqual(problems, []);
});
