// legends2.test.mjs: units, legends and tooltips (issue 15) of the views
// legends.test.mjs does not cover, at 1366x768 on real data: Aggregation
// (pic.js), Regression and Progression on the 4-rank StarPU-MPI Cholesky run,
// Call sites (cct_table.js) on Hatchet's Caliper LULESH profile, whose file
// declares no time unit (the trace header must not claim "s"). For each view:
// a legend whose text names the unit, no element wider than the viewport, no
// SVG <title> tooltip left, and the hover uses the dashboard's tooltip
// (.ari-tooltip, lib/tooltip.js). Skips when ../shared/data is absent.
// Screenshots go to tests/browser/screenshots/legends2-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, watchedPage, overflowingElements } from '../lib/browser.mjs';
import { startDaemon, runCli, sharedData } from '../lib/daemon.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const shots = join(here, 'screenshots');
const data = process.env.ARIADNE_SHARED_DATA || sharedData;
const CHOL = join(data, 'starpu', 'mpi_chol_dmdas_4ranks_N11520_nb24_slowrank1_nice2');
const LULESH = join(data, 'hatchet', 'hatchet', 'tests', 'data', 'caliper-lulesh-json', 'lulesh-annotation-profile.json');
const present = existsSync(CHOL) && existsSync(LULESH);

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
  dir = mkdtempSync(join(tmpdir(), 'ariadne-legends2-'));
  ids.chol = importPath(CHOL);
  ids.lulesh = importPath(LULESH);
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
const overflowing = () => overflowingElements(page, '.ov-scroll, .table-wrap, .ct-table-wrap, [hidden]');

const svgTitles = () => page.locator('#view svg title, main svg title').count();

// Hovers `target` and returns the dashboard tooltip's text.
async function tipText(target) {
  await page.mouse.move(1, 1);
  await target.hover({ force: true });
  const tip = page.locator('.ari-tooltip:not([hidden])');
  await tip.waitFor();
  return tip.textContent();
}

test('Aggregation: the colour key says the shares are % of the block\'s time; the dashboard tooltip', async (t) => {
  if (!present) { t.skip('../shared/data (StarPU, Hatchet) is absent'); return; }
  await page.goto(`${daemon.url}/#/traces/${ids.chol}/aggregation?slices=20`);
  await page.locator('.agg-blocks [data-agg]').first().waitFor();
  const legend = await page.locator('.agg-legend').textContent();
  assert.match(legend, /share of the block's time in each state \(%/);
  assert.match(legend, /dpotrf|potrf/);
  assert.deepEqual(await overflowing(), []);
  assert.equal(await svgTitles(), 0, 'no native <title> tooltips');
  const text = await tipText(page.locator('.agg-blocks [data-agg]').first());
  assert.match(text, /\d+(\.\d+)?\s?%/, 'shares in %');
  assert.match(text, /Information gain.*bits.*Information loss.*bits/);
  assert.equal(await page.locator('.gantt-tooltip.agg-tooltip').count(), 0, 'no view-positioned tooltip div');
  await page.screenshot({ path: join(shots, 'legends2-aggregation.png'), fullPage: true });
  assert.deepEqual(problems, []);
});

test('Regression: axes with GFlop and ms, a legend of every mark, the dashboard tooltip', async (t) => {
  if (!present) { t.skip('../shared/data (StarPU, Hatchet) is absent'); return; }
  await page.goto(`${daemon.url}/#/traces/${ids.chol}/regression`);
  await page.locator('.reg-panel .reg-plot .pt').first().waitFor({ timeout: 60000 });
  const legend = await page.locator('.reg-legend').textContent();
  assert.match(legend, /GFlop per task.*duration \(ms\)/);
  assert.match(legend, /model fit.*95 % prediction interval/);
  assert.match(legend, /anomaly: above the upper 95 % limit/);
  const axes = await page.locator('.reg-plot .axis-label').allTextContents();
  assert.ok(axes.some((a) => /^GFlop per task/.test(a)), axes.join('|'));
  assert.ok(axes.some((a) => /^Duration \(ms\)/.test(a)), axes.join('|'));
  assert.match(await page.locator('.reg-table thead').textContent(), /MAE \(ms\)/);
  assert.deepEqual(await overflowing(), []);
  assert.equal(await svgTitles(), 0, 'no native <title> tooltips');
  const text = await tipText(page.locator('.reg-panel .reg-plot .pt').last());
  assert.match(text, /job .*GFlop.*Duration.*ms/);
  await page.screenshot({ path: join(shots, 'legends2-regression.png') });
  assert.deepEqual(problems, []);
});

test('Progression: both panels have a legend with units; hovers use the dashboard tooltip', async (t) => {
  if (!present) { t.skip('../shared/data (StarPU, Hatchet) is absent'); return; }
  await page.goto(`${daemon.url}/#/traces/${ids.chol}/progression`);
  await page.locator('.prog-chart circle.prog-cluster').first().waitFor({ timeout: 60000 });
  const main = await page.locator('.prog-panel').first().locator('.prog-legend').textContent();
  assert.match(main, /x: time \(ms\).*y: share of the node’s work done.*%/);
  assert.match(main, /width:.*1 node.*4 nodes/);
  assert.match(main, /global ABE \(\d/);
  const density = await page.locator('.prog-density-legend').textContent();
  assert.match(density, /x: progression \(%/);
  assert.deepEqual(await overflowing(), []);
  assert.equal(await svgTitles(), 0, 'no native <title> tooltips');
  assert.match(await tipText(page.locator('circle.prog-cluster').first()), /Step 1 · group 1.*Mean progression/);
  assert.match(await tipText(page.locator('.prog-abe-hit')), /Global ABE.*ms/);
  await page.screenshot({ path: join(shots, 'legends2-progression.png'), fullPage: true });
  assert.deepEqual(problems, []);
});

test('Call sites: values in their unit (µs inferred, said so); the header does not claim "s"', async (t) => {
  if (!present) { t.skip('../shared/data (StarPU, Hatchet) is absent'); return; }
  await page.goto(`${daemon.url}/#/traces/${ids.lulesh}/callsites`);
  await page.locator('#ct-table tbody tr').first().waitFor();
  await page.locator('.ct-hist .sg-hist-bar').first().waitFor();
  const trace = await (await fetch(`${daemon.url}/api/v1/traces/${ids.lulesh}`)).json();
  assert.equal(trace.time_unit, '');
  assert.match(trace.time_unit_source, /^not declared in the file/);
  assert.match(await page.locator('#ct-unit-note').textContent(), /µs inferred/);
  // main: 5,889,902 µs on average = 5.89 s
  const row = await page.locator('#ct-table tbody tr').first().textContent();
  assert.match(row, /5\.89\d* s/, row);
  assert.match(await page.locator('.ct-hist').textContent(), /\d s|\d ms/, 'histogram ticks with their unit');
  assert.deepEqual(await overflowing(), []);
  assert.equal(await svgTitles(), 0, 'no native <title> tooltips');
  assert.match(await tipText(page.locator('.ct-hist .sg-hist-bar').first()), /Processes.*Ranks/);
  await page.screenshot({ path: join(shots, 'legends2-callsites.png'), fullPage: true });
  assert.doesNotMatch(await page.locator('.trace-header').textContent(), /Time unit\s*s\b/);
  assert.deepEqual(problems, []);
});
