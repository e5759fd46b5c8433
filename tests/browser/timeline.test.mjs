// timeline.test.mjs: the Timeline tab (views/timeline.js) on pajeng's
// simu-mardi.trace (states by container, nested states, legend, tooltip,
// wheel zoom kept in the URL), and the Gantt of the 4-rank StarPU-MPI run
// with the "Runtime states" band and the "MPI" lines (toggles kept in the
// URL), at 1366x768, in headless Chromium against a live ariadned.
// Screenshots go to tests/browser/screenshots/. Skips without
// /work/shared/data.
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
const MARDI = join(dataDir, 'pajeng', 'traces', 'simu-mardi.trace');
const MPI_RUN = join(dataDir, 'starpu', 'mpi_chol_dmdas_4ranks_N11520_nb24_slowrank1_nice2');
const skip = existsSync(MARDI) && existsSync(MPI_RUN) ? false : `no ${MARDI} or ${MPI_RUN}`;

let daemon, browser, page, mardi, mpi;
const problems = [];

before(async () => {
  if (skip) return;
  mkdirSync(shots, { recursive: true });
  daemon = await startDaemon();
  mardi = importCli(daemon.db, MARDI, 'simu-mardi');
  mpi = importCli(daemon.db, MPI_RUN, 'mpi 4 ranks');
  browser = await launchChromium();
  page = await watchedPage(browser, problems);
});

after(async () => {
  if (browser) await browser.close();
  if (daemon) await daemon.stop();
});

test('simu-mardi: states by container in the Timeline tab', { skip }, async () => {
  await page.goto(`${daemon.url}/#/traces/${mardi}/timeline`);
  const chart = page.locator('.timeline-chart');
  await page.waitForFunction(() => Number(document.querySelector('.timeline-chart')?.dataset.rows) > 0);
  const api = await (await fetch(`${daemon.url}/api/v1/traces/${mardi}/states?limit=200`)).json();
  assert.equal(Number(await chart.getAttribute('data-rows')), Math.min(200, api.total_rows));
  assert.ok(await page.locator('.timeline-chart .row-label').count() > 10, 'row labels');
  const legend = await page.locator('.timeline-view .legend').innerText();
  for (const v of ['normal', 'booked', 'free']) assert.match(legend, new RegExp(v));
  assert.match(await page.locator('.timeline-view .rows-info').innerText(), new RegExp(`of ${api.total_rows}`));
  await page.screenshot({ path: join(shots, 'timeline_simu_mardi.png'), fullPage: true });
  // tooltip over the first row
  const box = await chart.boundingBox();
  await page.mouse.move(box.x + 700, box.y + 40);
  await page.locator('.timeline-chart .gantt-tooltip').waitFor({ state: 'visible' });
  // wheel zoom: the window goes to the URL
  await page.mouse.wheel(0, -600);
  await page.waitForURL(/timeline\?.*start=.*end=/);
  await page.waitForTimeout(400);
  await page.screenshot({ path: join(shots, 'timeline_simu_mardi_zoom.png'), fullPage: true });
  assert.deepEqual(problems, []);
});

test('MPI run: the Gantt with runtime states and MPI lines', { skip }, async () => {
  await page.goto(`${daemon.url}/#/traces/${mpi}/gantt?runtime=1&mpi=1`);
  await page.locator('.gantt-chart canvas').first().waitFor();
  await page.waitForFunction(() => Number(document.querySelector('.mpi-links')?.dataset.links) > 0);
  const links = Number(await page.locator('.mpi-links').getAttribute('data-links'));
  assert.equal(links, 673);
  assert.ok(await page.locator('#runtime-toggle').isChecked());
  await page.waitForFunction(() => /Sleeping/.test(document.querySelector('.gantt-layers-legend')?.innerText || ''));
  await page.screenshot({ path: join(shots, 'gantt_mpi_runtime.png'), fullPage: true });
  // toggling off drops the lines and the URL parameter
  await page.locator('#mpi-toggle').uncheck();
  await page.waitForFunction(() => !document.querySelector('.mpi-links'));
  await page.waitForURL((u) => !/mpi=1/.test(u.hash));
  assert.deepEqual(problems, []);
});
