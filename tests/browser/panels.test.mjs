// panels.test.mjs: StarVZ's panels under the Gantt (lib/time_panels.js, from
// /traces/{id}/panels) in headless Chromium at 1366x768 on the real 4-rank
// StarPU-MPI run (skipped when the shared data is absent): opened from the
// URL (`panels=memory,mpi_bandwidth,gflops`), each panel draws one line per
// series with a legend and its unit; the GPU panel is offered but disabled
// with its reason (the run had no GPU); unchecking a panel removes it and
// updates the URL; hovering shows the values of the step; the CSV button
// downloads the series. Screenshot: tests/browser/screenshots/panels-mpi.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, VIEWPORT } from '../lib/browser.mjs';
import { startDaemon, runCli, sourceDir } from '../lib/daemon.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const shots = join(here, 'screenshots');
const sharedData = process.env.ARIADNE_SHARED_DATA || join(sourceDir, '..', 'shared', 'data');
const realTrace = join(sharedData, 'starpu', 'mpi_chol_dmdas_4ranks_N11520_nb24_slowrank1_nice2');
const noData = existsSync(realTrace) ? false : `no ${realTrace}`;

let dir, daemon, browser, page, id;
const problems = [];

before(async () => {
  if (noData) return;
  mkdirSync(shots, { recursive: true });
  dir = mkdtempSync(join(tmpdir(), 'ariadne-panelsb-'));
  const db = join(dir, 'test.db');
  const r = runCli(['import', '--db', db, realTrace]);
  assert.equal(r.status, 0, r.stderr);
  id = JSON.parse(r.stdout.trim().split('\n')[0]).id;
  daemon = await startDaemon({ dir });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: VIEWPORT, acceptDownloads: true });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
  page.on('response', (res) => { if (res.status() >= 400) problems.push(`HTTP ${res.status()} ${res.url()}`); });
});

after(async () => {
  if (browser) await browser.close();
  if (daemon) await daemon.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('panels under the Gantt: memory, MPI bandwidth and GFlop/s of the 4-rank run', { skip: noData }, async () => {
  await page.goto(`${daemon.url}/#/traces/${id}/gantt?panels=memory,mpi_bandwidth,gflops`);
  for (const p of ['memory', 'mpi_bandwidth', 'gflops']) await page.locator(`g.panel-${p}`).waitFor();
  // one line per series: 4 memory nodes, 4 MPI threads, 4 nodes' CPUs
  for (const p of ['memory', 'mpi_bandwidth', 'gflops']) {
    assert.equal(await page.locator(`g.panel-${p} path.extra-line`).count(), 4, p);
    assert.equal(await page.locator(`.panel-legend[data-panel="${p}"] .legend-item`).count(), 4, `${p} legend`);
  }
  assert.match(await page.locator('.panel-legend[data-panel="memory"]').innerText(), /\(MB\)/);
  assert.match(await page.locator('.panel-legend[data-panel="mpi_bandwidth"]').innerText(), /\(MB\/s\)/);
  assert.match(await page.locator('.panel-legend[data-panel="gflops"]').innerText(), /\(GFlop\/s\)/);
  const gpu = page.locator('.panel-picker input[data-panel="gpu_bandwidth"]');
  assert.equal(await gpu.isDisabled(), true, 'no GPU in this run');
  assert.match(await page.locator('.panel-picker label:has(input[data-panel="gpu_bandwidth"])').getAttribute('title'), /no GPU/);

  // hover the memory panel: the tooltip gives the step's values with the unit
  await page.locator('g.panel-memory rect.ts-frame').scrollIntoViewIfNeeded();
  const box = await page.locator('g.panel-memory rect.ts-frame').boundingBox();
  await page.mouse.move(box.x + box.width * 0.3, box.y + box.height / 2);
  const tip = page.locator('.time-panels .gantt-tooltip');
  await tip.waitFor({ state: 'visible' });
  assert.match(await tip.innerText(), /MB/);
  await page.screenshot({ path: join(shots, 'panels-mpi.png'), fullPage: true });

  // CSV of the GFlop/s panel: a header and one row per series and step
  const [download] = await Promise.all([page.waitForEvent('download'),
    page.locator('.panel-legend[data-panel="gflops"] [data-csv]').click()]);
  const csv = readFileSync(await download.path(), 'utf8').trim().split('\n');
  assert.match(csv[0], /^series,node,start \(ms\),gflops \(GFlop\/s\)$/);
  assert.ok(csv.length > 4, 'rows');

  // uncheck memory: its panel goes, the URL follows
  await page.locator('.panel-picker input[data-panel="memory"]').uncheck();
  await page.waitForFunction(() => !document.querySelector('g.panel-memory'));
  assert.match(page.url(), /panels=mpi_bandwidth%2Cgflops|panels=mpi_bandwidth,gflops/);
  assert.deepEqual(problems, []);
});
