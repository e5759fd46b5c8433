// time_unit.test.mjs: the trace header (static/js/trace.js) in headless
// Chromium at 1366x768 on a real StarPU paje.trace imported alone and cut
// in the middle of its last line: the header says "ms" with how it was
// decided as a tooltip, shows the import warning, and its "change" control
// relabels the unit (PATCH) and reloads the page with the new unit.
// Screenshots go to tests/browser/screenshots/.
//
// Needs `npm ci` in tests/ (playwright-core) and in static/ (d3 into
// static/vendor/), and Debian's chromium (or $CHROMIUM).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, watchedPage } from '../lib/browser.mjs';
import { startDaemon, runCli, sourceDir } from '../lib/daemon.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const shots = join(here, 'screenshots');
const sharedData = process.env.ARIADNE_SHARED_DATA || join(sourceDir, '..', 'shared', 'data');
const STARPU = join(sharedData, 'starpu', 'chol_implicit_dmdas_N11520_nb24', 'paje.trace');
const noData = existsSync(STARPU) ? false : `no ${STARPU}`;

let dir, daemon, browser, page, id;
const problems = [];

before(async () => {
  if (noData) return;
  mkdirSync(shots, { recursive: true });
  dir = mkdtempSync(join(tmpdir(), 'ariadne-unitb-'));
  const db = join(dir, 'test.db');
  const text = readFileSync(STARPU);
  const cut = join(dir, 'paje.trace');
  writeFileSync(cut, text.subarray(0, Math.floor(text.length / 2)));
  const r = runCli(['import', '--db', db, '--name', 'chol dmdas (cut copy)', cut]);
  assert.equal(r.status, 0, r.stderr);
  id = JSON.parse(r.stdout.trim().split('\n')[0]).id;
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

test('the header shows the unit, how it was decided, and the cut line', { skip: noData }, async () => {
  await page.goto(`${daemon.url}/#/traces/${id}`);
  const unit = page.locator('#trace-time-unit');
  await unit.waitFor();
  assert.equal(await unit.textContent(), 'ms');
  assert.match(await unit.getAttribute('title'), /detected: a StarPU paje\.trace.*milliseconds/);
  const warn = page.locator('#trace-warnings');
  assert.ok(await warn.isVisible());
  assert.match(await warn.textContent(), /Import warning.*paje\.trace: line \d+ is cut \(the file ends in the middle of it\) and was ignored/);
  await page.screenshot({ path: join(shots, 'time_unit_header.png') });
  assert.deepEqual(problems.splice(0), []);
});

test('"change" relabels the unit and the page shows it', { skip: noData }, async () => {
  await page.click('#change-time-unit');
  const select = page.locator('#time-unit-select');
  await select.waitFor();
  assert.equal(await select.inputValue(), 'ms');
  await select.selectOption('s');
  await page.screenshot({ path: join(shots, 'time_unit_modal.png') });
  await page.click('dialog button:has-text("Set unit")');
  await page.waitForFunction(() => document.querySelector('#trace-time-unit')?.textContent === 's');
  const unit = page.locator('#trace-time-unit');
  assert.match(await unit.getAttribute('title'), /set by the user/);
  const t = await (await fetch(`${daemon.url}/api/v1/traces/${id}`)).json();
  assert.equal(t.time_unit, 's');
  assert.deepEqual(problems.splice(0), []);
});
