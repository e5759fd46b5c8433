// aggregation.test.mjs: drives the Aggregation tab (pIC, static/js/views/
// pic.js) in headless Chromium against a live ariadned: a generated
// 4-node StarPU bundle (and, when /work/shared/data is present, the 4-rank
// MPI Cholesky trace). Moving the p slider changes the number of blocks to
// the level's count; a hover shows the tooltip; a click opens the Gantt of
// the block's workers over its interval. Screenshots go to
// tests/browser/screenshots/.
//
// Needs `npm ci` in tests/ (playwright-core) and in static/ (d3 into
// static/vendor/), and Debian's chromium (or $CHROMIUM).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, watchedPage } from '../lib/browser.mjs';
import { startDaemon, runCli, sharedData } from '../lib/daemon.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const shots = join(here, 'screenshots');
const dataDir = process.env.ARIADNE_SHARED_DATA || sharedData;
const mpiChol = join(dataDir, 'starpu', 'mpi_chol_dmdas_4ranks_N11520_nb24_slowrank1_nice2');

let daemon, browser, page, gen;
const problems = [];

function importTrace(path) {
  const r = runCli(['import', '--db', daemon.db, path]);
  assert.equal(r.status, 0, `import ${path} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n')[0]);
}

async function shot(name) {
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
}

async function blockCount() {
  return page.locator('.agg-blocks [data-agg]').count();
}

// Sets the slider to level i and waits for the chart of that level.
async function setLevel(i) {
  await page.locator('#agg-p').evaluate((el, v) => {
    el.value = String(v);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }, i);
  const want = Number(await page.locator('#agg-count').textContent());
  await page.waitForFunction((n) => document.querySelectorAll('.agg-blocks [data-agg]').length === n
    && !document.querySelector('.agg-chart.is-loading'), want);
  return want;
}

before(async () => {
  mkdirSync(shots, { recursive: true });
  daemon = await startDaemon();
  const dir = mkdtempSync(join(tmpdir(), 'ariadne-aggb-'));
  const g = runCli(['generate', '--out', join(dir, 'bundle'), '--tiles', '8', '--nodes', '4']);
  assert.equal(g.status, 0, g.stderr);
  gen = importTrace(join(dir, 'bundle'));
  browser = await launchChromium();
  page = await watchedPage(browser, problems);
});

after(async () => {
  if (browser) await browser.close();
  if (daemon) await daemon.stop();
});

test('the p slider steps through partitions with different block counts', async () => {
  await page.goto(`${daemon.url}/#/traces/${gen.id}/aggregation?slices=10`);
  await page.locator('.agg-blocks [data-agg]').first().waitFor();
  const levels = await (await fetch(`${daemon.url}/api/v1/traces/${gen.id}/aggregation/levels?slices=10`)).json();
  const n = levels.levels.length;
  assert.equal(Number(await page.locator('#agg-p').getAttribute('max')), n - 1);
  await shot('40-aggregation');
  const counts = [];
  for (const i of [0, Math.floor(n / 3), Math.floor((2 * n) / 3), n - 1]) {
    const want = await setLevel(i);
    assert.equal(want, levels.levels[i].count);
    assert.equal(await blockCount(), want);
    counts.push(want);
  }
  assert.ok(new Set(counts).size >= 3, `block counts ${counts}`);
  assert.equal(counts[0], levels.leaves.length * 10, 'level 0: every worker and slice');
  assert.equal(counts.at(-1), 1, 'last level: one block');
  assert.match(page.url(), /level=/);
  assert.ok(await page.locator('.agg-legend .ari-legend-key', { hasText: 'dgemm' }).count() === 1);
  assert.match(await page.locator('.agg-legend').textContent(), /share of the block's time in each state \(%/);
  await setLevel(Math.floor(n / 2));
  await shot('41-aggregation-mid');
});

test('hover shows the block, click opens its Gantt', async () => {
  const block = page.locator('.agg-blocks [data-agg]').first();
  await block.hover();
  const tip = page.locator('.ari-tooltip.agg-tooltip');
  await tip.waitFor({ state: 'visible' });
  assert.match(await tip.textContent(), /Information gain.* bits.*Information loss.* bits/);
  await shot('42-aggregation-tooltip');
  await block.click();
  await page.waitForURL(/#\/traces\/\d+\/gantt\?start=.*&end=.*nodes=/);
  await page.locator('.gantt-view, #view').first().waitFor();
});

test('the MPI Cholesky trace reads at 1366x768', { skip: !existsSync(mpiChol) && 'no shared data' }, async () => {
  const real = importTrace(mpiChol);
  await page.goto(`${daemon.url}/#/traces/${real.id}/aggregation?slices=20`);
  await page.locator('.agg-blocks [data-agg]').first().waitFor();
  await shot('43-aggregation-mpi-chol');
  assert.deepEqual(problems, []);
});
