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

test('panels under the Gantt: memory-manager states and memory from data handles of the 4-rank run', { skip: noData }, async () => {
  await page.goto(`${daemon.url}/#/traces/${id}/gantt?panels=memory_states,memory_handles,memory`);
  for (const p of ['memory_states', 'memory_handles', 'memory']) await page.locator(`g.panel-${p}`).waitFor();
  // one row per memory manager (4 ranks), one lane per state with marks
  const states = page.locator('g.panel-memory_states');
  assert.equal(await states.getAttribute('data-rows'), '4');
  assert.equal(await states.locator('g.mm-state').count(), 12, '4 memory managers x 3 states');
  assert.ok(await states.locator('g.mm-state[data-state="Allocating"] rect').count() > 0);
  const legend = page.locator('.panel-legend[data-panel="memory_states"]');
  assert.match(await legend.innerText(), /Allocating/);
  assert.match(await legend.innerText(), /share of time/);
  assert.equal(await legend.locator('.legend-item').count(), 3, 'a swatch per state');
  assert.equal(await page.locator('g.panel-memory_handles path.extra-line').count(), 4);
  assert.match(await page.locator('.panel-legend[data-panel="memory_handles"]').innerText(), /\(MB\)/);
  // the row labels are readable (>= 11 px) and inside the label column
  const label = states.locator('text.tick-label').first();
  assert.ok(parseFloat(await label.evaluate((e) => getComputedStyle(e).fontSize)) >= 11);
  assert.ok((await label.boundingBox()).x >= 0);
  // hover the busiest row (rank 1 or 2): the tooltip lists the states with their shares
  await states.scrollIntoViewIfNeeded();
  const row = await states.locator('text.tick-label').nth(1).boundingBox();
  const frame = await states.locator('rect.ts-frame').boundingBox();
  await page.mouse.move(frame.x + frame.width * 0.05, row.y + row.height / 2);
  const tip = page.locator('.time-panels .gantt-tooltip');
  await tip.waitFor({ state: 'visible' });
  const text = await tip.innerText();
  assert.match(text, /memory manager states/);
  assert.match(text, /Allocating/);
  assert.match(text, /state\tstep\twindow/);
  assert.match(text, /Allocating\t[0-9.<]+%\t301 · /, 'rank 1 allocates 301 times in the window');
  await page.screenshot({ path: join(shots, 'panels-memory.png'), fullPage: true });
  assert.deepEqual(problems, []);
});

// A generated run with CUDA workers (no real GPU run exists): the GPU
// bandwidth panel drawn from its links, one line per GPU memory node and
// direction, and the DriverCopy states of the GPUs' memory managers.
test('panels under the Gantt: GPU bandwidth from the links of a generated run with 2 GPUs', { skip: noData }, async () => {
  const gen = join(dir, 'gpu');
  const g = runCli(['generate', '--out', gen, '--tiles', '8', '--nodes', '1', '--cpus', '2', '--gpus', '2', '--seed', '3']);
  assert.equal(g.status, 0, g.stderr);
  const r = runCli(['import', '--db', join(dir, 'test.db'), gen]);
  assert.equal(r.status, 0, r.stderr);
  const gid = JSON.parse(r.stdout.trim().split('\n')[0]).id;
  await page.goto(`${daemon.url}/#/traces/${gid}/gantt?panels=gpu_bandwidth,memory_states`);
  for (const p of ['gpu_bandwidth', 'memory_states']) await page.locator(`g.panel-${p}`).waitFor();
  const n = await page.locator('g.panel-gpu_bandwidth path.extra-line').count();
  assert.ok(n >= 2, `${n} GPU series`);
  const legend = await page.locator('.panel-legend[data-panel="gpu_bandwidth"]').innerText();
  assert.match(legend, /\(MB\/s\)/);
  assert.match(legend, /MEMNODE1 in/);
  assert.match(await page.locator('.panel-legend[data-panel="memory_states"]').innerText(), /DriverCopy/);
  await page.locator('g.panel-gpu_bandwidth rect.ts-frame').scrollIntoViewIfNeeded();
  const box = await page.locator('g.panel-gpu_bandwidth rect.ts-frame').boundingBox();
  await page.mouse.move(box.x + box.width * 0.4, box.y + box.height / 2);
  const tip = page.locator('.time-panels .gantt-tooltip');
  await tip.waitFor({ state: 'visible' });
  assert.match(await tip.innerText(), /MB\/s/);
  await page.screenshot({ path: join(shots, 'panels-gpu.png'), fullPage: true });
  assert.deepEqual(problems, []);
});
