// chrome_slices.test.mjs: generic Chrome / Perfetto traces in the Timeline
// tab (issue 14): speedscope's simple.json (alpha > beta > gamma, epsilon:
// three nesting levels on one thread) and Perfetto's flow_events_json_v1
// (five processes, one thread each), at 1366x768 in headless Chromium
// against a live ariadned: one row per thread labelled "process / thread",
// the slice names in the legend, the Timeline as the trace's default
// view, no data-movement view. Screenshots go to tests/browser/screenshots/.
// Skips without ../shared/data.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, watchedPage } from '../lib/browser.mjs';
import { startDaemon, importCli, sharedData } from '../lib/daemon.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const shots = join(here, 'screenshots');
const dataDir = process.env.ARIADNE_SHARED_DATA || sharedData;
const SIMPLE = join(dataDir, 'speedscope', 'sample', 'profiles', 'trace-event', 'simple.json');
const FLOWS = join(dataDir, 'perfetto', 'test', 'trace_processor', 'diff_tests', 'parser', 'parsing', 'flow_events_json_v1.json');
const skip = existsSync(SIMPLE) && existsSync(FLOWS) ? false : `no ${SIMPLE} or ${FLOWS}`;

let daemon, browser, page, simple, flows;
const problems = [];

before(async () => {
  if (skip) return;
  mkdirSync(shots, { recursive: true });
  daemon = await startDaemon();
  simple = importCli(daemon.db, SIMPLE, 'speedscope simple');
  flows = importCli(daemon.db, FLOWS, 'perfetto flows v1');
  browser = await launchChromium();
  page = await watchedPage(browser, problems);
});

after(async () => {
  if (browser) await browser.close();
  if (daemon) await daemon.stop();
});

async function openTimeline(id) {
  await page.goto(`${daemon.url}/#/traces/${id}/timeline`);
  await page.waitForFunction(() => Number(document.querySelector('.timeline-chart')?.dataset.rows) > 0);
  await page.waitForTimeout(300);
}

test('speedscope simple.json: nested slices of one thread', { skip }, async () => {
  await openTimeline(simple);
  assert.equal(Number(await page.locator('.timeline-chart').getAttribute('data-rows')), 1);
  const labels = await page.locator('.timeline-chart .row-label').evaluateAll((els) => els.map((e) => e.textContent));
  assert.ok(labels.some((l) => /tid 0/.test(l)), `row labels: ${labels}`);
  const legend = await page.locator('.timeline-view .legend').innerText();
  for (const v of ['alpha', 'beta', 'gamma', 'epsilon']) assert.match(legend, new RegExp(v));
  await page.screenshot({ path: join(shots, 'chrome_slices_speedscope_simple.png'), fullPage: true });
  // the tabs: a timeline, no data-movement view
  const tabs = await page.locator('nav a, .tabs a, [role="tab"]').allInnerTexts();
  assert.ok(tabs.some((t) => /Timeline/.test(t)), `tabs: ${tabs}`);
  assert.ok(!tabs.some((t) => /Data movement/.test(t)), `tabs: ${tabs}`);
  assert.deepEqual(problems, []);
});

test('Perfetto flow_events_json_v1: one row per process / thread', { skip }, async () => {
  await openTimeline(flows);
  const api = await (await fetch(`${daemon.url}/api/v1/traces/${flows}/states?limit=200`)).json();
  assert.equal(api.total_rows, 5);
  assert.equal(Number(await page.locator('.timeline-chart').getAttribute('data-rows')), 5);
  const legend = await page.locator('.timeline-view .legend').innerText();
  for (const v of ['SenderA', 'SenderB', 'OtherSlice', 'SomeSlice', 'Blergh']) assert.match(legend, new RegExp(v));
  await page.screenshot({ path: join(shots, 'chrome_slices_perfetto_flows.png'), fullPage: true });
  assert.deepEqual(problems, []);
});
