// progression.test.mjs: the Progression view (static/js/views/progression.js)
// in headless Chromium against a live ariadned: on a generated 30-node run
// where nodes 0 and 1 have a GPU fewer, the view draws one point per group
// and step, labels the two slow nodes, shows the bounds and the per-step
// densities; moving the bandwidth slider refetches and changes the number of
// groups; a click on a group opens the Gantt of its nodes over that step; a
// single-node trace says so. Screenshots go to tests/browser/screenshots/.
//
// Needs `npm ci` in tests/ (playwright-core) and in static/ (d3 into
// static/vendor/), and Debian's chromium (or $CHROMIUM).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, watchedPage } from '../lib/browser.mjs';
import { startDaemon, runCli, sourceDir } from '../lib/daemon.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const shots = join(here, 'screenshots');
const sharedData = process.env.ARIADNE_SHARED_DATA || join(sourceDir, '..', 'shared', 'data');
const realTrace = join(sharedData, 'starpu', 'mpi_chol_dmdas_4ranks_N11520_nb24_slowrank1_nice2');


let dir, daemon, browser, page;
const ids = {};
const problems = [];

function importRun(db, path) {
  const r = runCli(['import', '--db', db, path]);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout.trim().split('\n')[0]).id;
}

function generate(name, args) {
  const out = join(dir, name);
  const r = runCli(['generate', '--out', out, ...args]);
  assert.equal(r.status, 0, r.stderr);
  return out;
}

before(async () => {
  mkdirSync(shots, { recursive: true });
  dir = mkdtempSync(join(tmpdir(), 'ariadne-progb-'));
  const db = join(dir, 'test.db');
  ids.lu = importRun(db, generate('lu30', ['--tiles', '40', '--block-size', '2880', '--nodes', '30',
    '--cpus', '4', '--gpus', '2', '--fewer-workers', '0:4:1,1:4:1']));
  ids.single = importRun(db, generate('one', ['--tiles', '8', '--nodes', '1']));
  if (existsSync(realTrace)) ids.real = importRun(db, realTrace);
  daemon = await startDaemon({ dir });
  browser = await launchChromium();
  page = await watchedPage(browser, problems);
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()} ${r.url()}`); });
});

after(async () => {
  if (browser) await browser.close();
  if (daemon) await daemon.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const clusters = () => page.locator('.prog-chart circle.prog-cluster');

// Page errors, console errors and failed requests so far; then forgets them.
function assertNoProblems() {
  const seen = problems.splice(0);
  assert.deepEqual(seen, []);
}

async function settled() {
  await page.waitForFunction(() => !document.querySelector('.prog-view[data-loading]'));
}

// The run's two slow nodes form the lowest group at step 5 with the weights
// of all the workers of a resource type (with StarVZ's default, node 1 is
// alone at some steps: see api/progression.test.mjs).
test('the view draws the groups of a 30-node run and labels the two slow nodes', async () => {
  await page.goto(`${daemon.url}/#/traces/${ids.lu}/progression?weight=all_workers`);
  await page.locator('#tab-progression[aria-current="page"]').waitFor();
  await clusters().first().waitFor();
  await settled();
  const summary = await page.locator('.prog-summary').textContent();
  assert.match(summary, /30 nodes · 20 steps/);
  assert.match(summary, /global ABE/);
  // Step 5: two groups, the lower one is nodes 0 and 1.
  const step5 = await page.locator('circle.prog-cluster[data-step="5"]').evaluateAll(
    (els) => els.map((e) => e.dataset.nodes));
  assert.equal(step5.length, 2);
  assert.equal(step5[0], '0,1');
  const labels = await page.locator('.prog-labels text').allTextContents();
  assert.ok(labels.includes('nodes 0, 1'), `labels: ${labels}`);
  assert.equal(await page.locator('.prog-node-line').count(), 30);
  assert.equal(await page.locator('.prog-abe-line').count(), 1);
  assert.equal(await page.locator('.prog-abe .prog-cum-point').count(), 20);
  assert.equal(await page.locator('.prog-density-cell').count(), 20);
  assert.ok(await page.locator('.prog-density-min').count() > 0);
  // A tooltip on hover.
  await page.locator('circle.prog-cluster[data-step="5"]').first().hover();
  const tip = page.locator('.prog-tooltip');
  await tip.waitFor({ state: 'visible' });
  assert.match(await tip.textContent(), /Step 5 · group 1 of 2.*Nodes \(2\)0, 1/s);
  await page.screenshot({ path: join(shots, 'progression-30-nodes.png'), fullPage: true });
  await page.mouse.move(5, 5);
  assertNoProblems();
});

test('moving the bandwidth slider refetches and changes the number of groups', async () => {
  const before = await clusters().count();
  const slider = page.locator('#prog-bandwidth');
  await slider.focus();
  await page.keyboard.press('End'); // h = 0.2: one group per step
  await page.waitForFunction((n) => document.querySelectorAll('.prog-chart circle.prog-cluster').length !== n, before);
  await settled();
  assert.equal(await page.locator('#prog-bandwidth-value').textContent(), '0.2');
  assert.equal(await clusters().count(), 20);
  assert.match(page.url(), /bandwidth=0\.2/);
  await page.keyboard.press('Home'); // h = 0.001: many small groups
  await page.waitForFunction(() => document.querySelectorAll('.prog-chart circle.prog-cluster').length > 20);
  await settled();
  const narrow = await clusters().count();
  assert.ok(narrow > before, `${narrow} groups at h = 0.001, ${before} at 0.01`);
  await page.screenshot({ path: join(shots, 'progression-narrow-bandwidth.png'), fullPage: true });
  // Back to the paper's 0.01 with the slider's keys: the count returns.
  await page.goto(`${daemon.url}/#/traces/${ids.lu}/progression?bandwidth=0.01&steps=12&metric=count`);
  await page.waitForFunction(() => document.querySelectorAll('.prog-chart circle.prog-cluster[data-step="12"]').length > 0);
  await settled();
  assert.equal(await page.locator('#prog-steps').inputValue(), '12');
  assert.equal(await page.locator('#prog-metric').inputValue(), 'count');
  assert.match(await page.locator('.prog-axes').textContent(), /eq\. 1/);
  assertNoProblems();
});

test('the nodes control narrows the view', async () => {
  await page.goto(`${daemon.url}/#/traces/${ids.lu}/progression`);
  await clusters().first().waitFor();
  await settled();
  await page.locator('#prog-nodes').fill('0-3,10');
  await page.locator('#prog-nodes').press('Enter');
  await page.waitForFunction(() => document.querySelectorAll('.prog-node-line').length === 5);
  await settled();
  assert.match(await page.locator('.prog-summary').textContent(), /^5 nodes/);
  assert.match(page.url(), /nodes=0-3%2C10|nodes=0-3,10/);
  assertNoProblems();
});

test('clicking a group opens the Gantt chart of its nodes over that step', async () => {
  await page.goto(`${daemon.url}/#/traces/${ids.lu}/progression?weight=all_workers`);
  await clusters().first().waitFor();
  await settled();
  assertNoProblems();
  const target = page.locator('circle.prog-cluster[data-step="5"]').first();
  await target.click();
  await page.waitForFunction(() => location.hash.includes('/gantt?'));
  const hash = await page.evaluate(() => location.hash);
  assert.match(hash, new RegExp(`^#/traces/${ids.lu}/gantt\\?`));
  const q = new URLSearchParams(hash.split('?')[1]);
  assert.equal(q.get('nodes'), '0,1');
  assert.ok(Number(q.get('end')) > Number(q.get('start')));
  problems.splice(0); // what the Gantt page does is its own test's business
});

test('a single-node trace says so', async () => {
  await page.goto(`${daemon.url}/#/traces/${ids.single}/progression`);
  await page.locator('.prog-single').waitFor();
  assert.match(await page.locator('.prog-single').textContent(), /Single-node trace/);
  assert.match(await page.locator('.prog-summary').textContent(), /^1 node ·/);
  await page.screenshot({ path: join(shots, 'progression-single-node.png'), fullPage: true });
  assertNoProblems();
});

test('a real 4-rank StarPU-MPI run', { skip: !existsSync(realTrace) && 'no shared data' }, async () => {
  await page.goto(`${daemon.url}/#/traces/${ids.real}/progression`);
  await clusters().first().waitFor();
  await settled();
  assert.equal(await page.locator('.prog-node-line').count(), 4);
  await page.screenshot({ path: join(shots, 'progression-mpi-4ranks.png'), fullPage: true });
  assertNoProblems();
});

test('the weight control switches between StarVZ\'s weights and all the workers\'', async () => {
  await page.goto(`${daemon.url}/#/traces/${ids.lu}/progression`);
  await clusters().first().waitFor();
  await settled();
  assert.equal(await page.locator('#prog-weight').inputValue(), 'starvz');
  const waitFor = (weight) => page.waitForResponse((r) => r.url().includes('/progression?') &&
    new URL(r.url()).searchParams.get('weight') === weight);
  const all = waitFor('all_workers');
  await page.locator('#prog-weight').selectOption('all_workers');
  assert.equal((await (await all).json()).weight, 'all_workers');
  await settled();
  assert.match(page.url(), /weight=all_workers/);
  problems.splice(0);
});

