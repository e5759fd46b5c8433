// view_frame.test.mjs: what the frame around every view (js/trace.js,
// js/lib/view_frame.js) gives, in headless Chromium at 1366x768 on a real
// StarPU run (../shared/data/starpu; a generated Cholesky bundle without
// it): a refused URL value (types=NOPE, start=abc) keeps the view and its
// filter bar and can be corrected in place; Back and Forward undo a zoom,
// the critical-path toggle and "Whole trace" without leaving the page, one
// history entry per wheel gesture; a click gives the chart the keyboard and
// Tab reaches every control; the progress indicator of slow requests on
// Aggregation and Regression; the Download menu (JSON now, CSV when the
// server answers text/csv). Screenshots in tests/browser/screenshots/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, VIEWPORT } from '../lib/browser.mjs';
import { startDaemon, runCli, sharedData } from '../lib/daemon.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const shots = join(here, 'screenshots');
const dataDir = process.env.ARIADNE_SHARED_DATA || sharedData;
const run = join(dataDir, 'starpu', 'chol_implicit_dmdas_N11520_nb24');

let daemon, browser, page, trace;
const problems = [];

function importTrace(path, name) {
  const r = runCli(['import', '--db', daemon.db, '--name', name, path]);
  assert.equal(r.status, 0, `import ${path} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n')[0]);
}

function source() {
  if (existsSync(run)) return run;
  const dir = join(daemon.dir, 'chol8');
  const r = runCli(['generate', '--out', dir, '--tiles', '8', '--nodes', '2']);
  assert.equal(r.status, 0, `generate failed: ${r.stderr}`);
  return dir;
}

const shot = (name) => page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
const hashParams = () => page.evaluate(() => Object.fromEntries(new URLSearchParams(location.hash.split('?')[1] || '')));

async function openView(view, query = '') {
  await page.goto(`${daemon.url}/#/traces/${trace.id}/${view}${query ? `?${query}` : ''}`);
  await page.waitForSelector('#view:not([aria-busy])', { timeout: 30000 });
}

async function ganttReady() {
  await page.waitForSelector('.gantt-chart canvas', { timeout: 30000 });
  // drawn with its rows (the canvas exists before the first answer; a wheel
  // before it would zoom nothing), and no request pending
  await page.waitForSelector('.gantt-chart[data-row-tops]', { timeout: 30000 });
  await page.waitForFunction(() => !document.querySelector('.view-progress:not([hidden])'), null, { timeout: 30000 });
}

before(async () => {
  mkdirSync(shots, { recursive: true });
  daemon = await startDaemon();
  trace = importTrace(source(), 'chol dmdas');
  browser = await launchChromium();
  page = await browser.newPage({ viewport: VIEWPORT, acceptDownloads: true });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/status of (400|409)/.test(m.text())) problems.push(`console error: ${m.text()}`);
  });
});

after(async () => {
  if (browser) await browser.close();
  if (daemon) await daemon.stop();
});

test('a refused URL value keeps the view and its filter bar, and is corrected in place', async () => {
  await openView('gantt', 'types=NOPE');
  await page.waitForSelector('.view-refused [data-param="types"]', { timeout: 30000 });
  const notice = await page.textContent('#view-notice');
  assert.match(notice, /types has an unknown task type 'NOPE'; known: /, notice);
  await ganttReady();
  assert.ok(await page.isVisible('.filter-strip'), 'the filter bar is drawn');
  assert.equal((await hashParams()).types, undefined, 'the refused value left the URL');
  await shot('view-frame-refused');
  const known = (await page.$$eval('.fgroup-types input', (els) => els.map((e) => e.value)))[0];
  await page.fill('#fix-types', known);
  await page.click('.view-refused button:has-text("Apply")');
  await ganttReady();
  assert.equal((await hashParams()).types, known);
  assert.equal(await page.textContent('#view-notice'), '', 'the notice is gone once the value is good');

  await openView('gantt', 'start=abc&end=5');
  await page.waitForSelector('.view-refused [data-param="start"]');
  assert.match(await page.textContent('#view-notice'), /start must be a decimal number, got 'abc'/);
  await ganttReady();
  await openView('bounds', 'start=9&end=1');
  await page.waitForSelector('.view-refused [data-param="start"]');
  assert.match(await page.textContent('#view-notice'), /start \(9\) must be less than end \(1\)/);
  await page.waitForSelector('.filter-strip');
});

test('Back and Forward undo zoom, critical path and Whole trace on the same page', async () => {
  await openView('gantt');
  await ganttReady();
  await page.evaluate(() => { document.querySelector('.trace-header').dataset.marker = 'kept'; });
  const len0 = await page.evaluate(() => history.length);
  await page.click('button[aria-label="Zoom in"]');
  await page.waitForFunction(() => location.hash.includes('start='));
  const zoomed = await hashParams();
  await page.waitForTimeout(700); // a new gesture
  await page.click('#cp-toggle');
  await page.waitForFunction(() => location.hash.includes('cp=1'));
  await page.waitForTimeout(700);
  await page.click('button:has-text("Whole trace")');
  await page.waitForFunction(() => !location.hash.includes('start='));
  assert.equal(await page.evaluate(() => history.length), len0 + 3, 'one entry per change');

  await page.goBack();
  await page.waitForFunction(() => location.hash.includes('start='));
  await ganttReady();
  assert.equal((await hashParams()).start, zoomed.start);
  assert.ok(await page.isChecked('#cp-toggle'), 'Back: the critical path is still on');
  await page.goBack();
  await page.waitForFunction(() => !location.hash.includes('cp=1'));
  await ganttReady();
  assert.ok(!(await page.isChecked('#cp-toggle')), 'Back: the critical path is off again');
  await page.goBack();
  await page.waitForFunction(() => !location.hash.includes('start='));
  await ganttReady();
  assert.match(page.url(), new RegExp(`#/traces/${trace.id}/gantt`), 'still on the Gantt');
  assert.equal(await page.getAttribute('.trace-header', 'data-marker'), 'kept', 'the page was not rendered again');
  await page.goForward();
  await page.waitForFunction(() => location.hash.includes('start='));
  await ganttReady();
  const range = await page.textContent('.range-label');
  assert.ok(range.length > 0);

  // one wheel gesture (many ticks) is one entry
  await page.goto('about:blank');
  await page.goto(`${daemon.url}/#/traces/${trace.id}/gantt`);
  await ganttReady();
  await page.evaluate(() => { // count the entries pushed from here on
    window.pushes = 0;
    const push = history.pushState.bind(history);
    history.pushState = (...a) => { window.pushes++; push(...a); };
  });
  const box = await page.locator('.gantt-chart canvas').boundingBox();
  await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2);
  for (let i = 0; i < 12; i++) { await page.mouse.wheel(0, -100); await page.waitForTimeout(30); }
  await page.waitForFunction(() => location.hash.includes('start='));
  await page.waitForTimeout(800);
  assert.equal(await page.evaluate(() => window.pushes), 1, 'one entry for the gesture');
  await page.goBack();
  await page.waitForFunction(() => !location.hash.includes('start='));
  await ganttReady();
});

test('the chart takes focus on click and Tab reaches every control', async () => {
  await openView('gantt');
  await ganttReady();
  const box = await page.locator('.gantt-chart canvas').boundingBox();
  await page.mouse.click(box.x + box.width * 0.5, box.y + 20);
  assert.ok(await page.evaluate(() => document.activeElement && document.activeElement.classList.contains('gantt-chart')),
    'the chart has the focus after a click');
  const before = await hashParams();
  await page.keyboard.press('+');
  await page.waitForFunction((s) => new URLSearchParams(location.hash.split('?')[1]).get('start') !== s, before.start || null);

  // Tab from the top of the page through the whole trace page
  await openView('gantt');
  await ganttReady();
  const controls = await page.$$eval('#main button, #main input, #main select, #main a[href], #main summary, #main [tabindex="0"]',
    (els) => els.filter((e) => e.checkVisibility() && !e.disabled && e.getAttribute('tabindex') !== '-1')
      .map((e, i) => { e.dataset.tabProbe = String(i); return String(i); }));
  await page.evaluate(() => document.activeElement && document.activeElement.blur());
  const reached = new Set();
  for (let i = 0; i < controls.length + 40; i++) {
    await page.keyboard.press('Tab');
    const id = await page.evaluate(() => document.activeElement && document.activeElement.dataset.tabProbe);
    if (id) reached.add(id);
  }
  const missed = controls.filter((id) => !reached.has(id));
  const names = await page.$$eval('[data-tab-probe]', (els, ids) => els.filter((e) => ids.includes(e.dataset.tabProbe))
    .map((e) => e.outerHTML.slice(0, 90)), missed);
  assert.deepEqual(names, [], 'controls Tab does not reach');
});

test('slow requests show the progress indicator on Aggregation and Regression', async () => {
  for (const [view, pattern] of [['aggregation', '**/aggregation/levels*'], ['regression', '**/models*']]) {
    await page.route(pattern, async (route) => { await new Promise((r) => setTimeout(r, 1200)); await route.continue(); });
    await page.goto(`${daemon.url}/#/traces/${trace.id}/${view}`);
    await page.waitForSelector('.view-progress:not([hidden])', { timeout: 5000 });
    assert.match(await page.textContent('.view-progress'), /Loading… \d+ requests?/);
    await shot(`view-frame-loading-${view}`);
    await page.waitForSelector('.view-progress[hidden]', { state: 'attached', timeout: 30000 });
    await page.unroute(pattern);
  }
});

test('Download offers the view\'s data as JSON and as CSV', async () => {
  await openView('bounds');
  await page.waitForSelector('#view-downloads:not([hidden])');
  await page.click('#view-downloads > summary');
  await page.waitForSelector('.view-download[data-endpoint="bounds"]');
  await shot('view-frame-downloads');
  const [dl] = await Promise.all([page.waitForEvent('download'),
    page.click('.view-download[data-endpoint="bounds"] button[data-format="json"]')]);
  assert.match(dl.suggestedFilename(), /^trace\d+-chol-dmdas-bounds\.json$/);
  const json = JSON.parse(readFileSync(await dl.path(), 'utf8'));
  const api = await (await fetch(`${daemon.url}/api/v1/traces/${trace.id}/bounds`)).json();
  assert.equal(json.makespan, api.makespan, 'the JSON is the API answer');

  const probe = await fetch(`${daemon.url}/api/v1/traces/${trace.id}/bounds?format=csv`);
  const csvReady = /^text\/csv/.test(probe.headers.get('content-type') || '');
  if (csvReady) {
    const [c] = await Promise.all([page.waitForEvent('download'),
      page.click('.view-download[data-endpoint="bounds"] button[data-format="csv"]')]);
    assert.match(c.suggestedFilename(), /-bounds\.csv$/);
    const text = readFileSync(await c.path(), 'utf8');
    assert.ok(text.split('\n').length >= 2 && text.includes(','), 'a header and rows');
  } else {
    await page.click('.view-download[data-endpoint="bounds"] button[data-format="csv"]');
    await page.waitForFunction(() => /CSV is not available for bounds yet/.test(document.querySelector('.view-downloads-status').textContent));
  }
  assert.deepEqual(problems, []);
});
