// datamove.test.mjs: the data movement view in headless chromium (1366x768):
// a run opens with its timeline, topology, matrix, clocks and metrics; a
// brush over the timeline selects a window and the matrix and topology
// colours change. Uses a DMVis GEMM run with its nvidia-smi CSV when the
// shared data is present, else the project's Kineto fixture. Screenshots go
// to tests/browser/screenshots/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, watchedPage } from '../lib/browser.mjs';
import { startDaemon, runCli, sourceDir, sharedData } from '../lib/daemon.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const shots = join(here, 'screenshots');
const fixtures = join(sourceDir, 'tests', 'fixtures', 'datamove');
const gemm = join(process.env.ARIADNE_SHARED_DATA || sharedData, 'dmvis', 'data', 'use-case-2-GEMM-kernel-opt-w-metrics');
const fill = join(process.env.ARIADNE_SHARED_DATA || sharedData, 'dmvis', 'data', 'use-case-1-GEMM-fill');

let daemon, browser, page, id;
const problems = [];

before(async () => {
  mkdirSync(shots, { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), 'ariadne-dm-browser-'));
  const run = join(dir, 'run');
  mkdirSync(run);
  if (existsSync(gemm)) {
    for (const f of ['kernel-opt-5-1.json', 'kernel-opt-5-1.csv']) copyFileSync(join(gemm, f), join(run, f));
  } else {
    for (const f of ['kineto_small.json', 'kineto_small.csv', 'topology.xml']) copyFileSync(join(fixtures, f), join(run, f));
  }
  const paths = [run];
  if (existsSync(fill)) paths.push(join(fill, 'fill-3-row-format.json'), join(fill, 'fill-5-row-format.json'));
  const r = runCli(['import', '--quiet', '--db', join(dir, 'test.db'), ...paths]);
  assert.equal(r.status, 0, r.stderr);
  id = JSON.parse(r.stdout.trim().split('\n')[0]).id;
  daemon = await startDaemon({ dir });
  browser = await launchChromium();
  page = await watchedPage(browser, problems);
});

after(async () => {
  if (browser) await browser.close();
  if (daemon) await daemon.stop();
});

const colours = () => page.evaluate(() => ({
  matrix: [...document.querySelectorAll('.dm-cell')].map((c) => c.getAttribute('fill')).join(' '),
  topology: [...document.querySelectorAll('.dm-box[data-key] rect')].map((c) => c.getAttribute('fill')).join(' '),
  window: document.querySelector('.dm-view')?.dataset.window,
}));

test('a brushed window changes the matrix and topology colours', async () => {
  await page.goto(`${daemon.url}/#/traces/${id}/datamove`);
  await page.locator('.dm-cell').first().waitFor();
  await page.locator('.dm-clock svg path').first().waitFor();
  await page.locator('.dm-box[data-key="gpu0"]').first().waitFor();
  await page.screenshot({ path: join(shots, 'datamove-full.png'), fullPage: true });
  const before = await colours();
  assert.match(before.matrix, /rgb\(/, 'some bytes moved in the whole run');

  // brush the middle of the run (after the copies in, before the copies out)
  const box = await page.locator('.dm-timeline-svg').boundingBox();
  const x0 = box.x + 150 + (box.width - 160) * 0.40, x1 = box.x + 150 + (box.width - 160) * 0.55;
  const y = box.y + 30;
  await page.mouse.move(x0, y);
  await page.mouse.down();
  await page.mouse.move(x1, y, { steps: 8 });
  await page.mouse.up();
  await page.waitForFunction((w) => document.querySelector('.dm-view').dataset.window !== w, before.window);
  await page.waitForTimeout(300);
  const after = await colours();
  assert.notEqual(after.matrix, before.matrix, 'matrix colours change');
  assert.notEqual(after.topology, before.topology, 'topology colours change');
  assert.match(page.url(), /start=/, 'the window is in the URL');
  // times from the run's start: the URL's window lies within the run's length
  const q = new URLSearchParams(page.url().split('?')[1] || '');
  const [s0, s1] = [Number(q.get('start')), Number(q.get('end'))];
  const run = await (await fetch(`${daemon.url}/api/v1/traces/${id}`)).json();
  const len = run.summary.end - run.summary.start;
  assert.ok(s0 >= 0 && s1 > s0 && s1 <= len + 1, `relative window ${s0}..${s1} within 0..${len} µs`);
  const note = await page.locator('.dm-timeline-svg .origin-note').textContent();
  assert.match(note, /^time: time from the run's start \(t = [\d,]+ µs in the file\)$/, note);
  assert.match(await page.locator('.dm-info').textContent(), /time from the run's start/);
  await page.screenshot({ path: join(shots, 'datamove-window.png'), fullPage: true });

  await page.selectOption('.dm-mode', 'bytes');
  await page.waitForTimeout(200);
  assert.deepEqual(problems, []);
});

test('an absolute (epoch µs) window from an old URL says what to fix', async () => {
  const run = await (await fetch(`${daemon.url}/api/v1/traces/${id}`)).json();
  await page.goto(`${daemon.url}/#/traces/${id}/datamove?start=${run.summary.start}&end=${run.summary.end}`);
  await page.getByText(/start is after the end of the run/).first().waitFor();
  await page.screenshot({ path: join(shots, 'datamove-old-url.png'), fullPage: true });
  problems.length = 0; // the failed request logs a console error on purpose
});

test('the clock grid shows the runs the user chose, kept in the URL', async (t) => {
  if (!existsSync(fill)) { t.skip('the fill runs of ../shared/data/dmvis are absent'); return; }
  await page.goto(`${daemon.url}/#/traces/${id}/datamove`);
  await page.locator('.dm-clock svg path').first().waitFor();
  assert.equal(await page.locator('.dm-clock').count(), 1, 'this run alone by default');
  await page.click('.dm-choose-runs');
  const boxes = page.locator('.dm-run-choice input');
  await boxes.first().waitFor(); // the dialog opens once the list of runs has arrived
  assert.equal(await boxes.count(), 2, 'the two other data-movement runs are offered');
  await boxes.nth(0).check();
  await page.click('dialog button.btn-primary');
  await page.waitForFunction(() => document.querySelectorAll('.dm-clock').length === 2);
  assert.match(page.url(), /runs=\d+/, 'the choice is in the URL');
  await page.reload();
  await page.waitForFunction(() => document.querySelectorAll('.dm-clock').length === 2);
  await page.screenshot({ path: join(shots, 'datamove-runs.png'), fullPage: true });
  assert.deepEqual(problems, []);
});
