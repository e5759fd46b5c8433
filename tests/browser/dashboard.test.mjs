// dashboard.test.mjs: drives the dashboard in headless Chromium against a
// live ariadned (tests/lib/daemon.mjs): empty state, upload with progress and
// job outcome (a file no reader accepts, then a small Paje trace), the trace
// in the list, filters, the trace page, a URL that reopens the same view
// after a reload, rename and delete, and the API-token settings when the
// server requires auth. Screenshots go to tests/browser/screenshots/.
//
// Needs `npm ci` in tests/ (playwright-core) and in static/ (d3 into
// static/vendor/), and Debian's chromium (or $CHROMIUM).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, VIEWPORT } from '../lib/browser.mjs';
import { startDaemon, runCli, sourceDir } from '../lib/daemon.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const shots = join(here, 'screenshots');
const fixtures = join(sourceDir, 'tests', 'fixtures', 'browser');


let daemon, browser, page, formats;
const problems = [];

const launch = launchChromium;

// A page that records uncaught exceptions and console errors, except the
// console's own notes about HTTP error statuses the test provokes on purpose.
async function newPage(b) {
  const p = await b.newPage({ viewport: VIEWPORT });
  p.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  p.on('console', (m) => {
    if (m.type() === 'error' && !/Failed to load resource: the server responded with a status of (400|401|404)/.test(m.text())) {
      problems.push(`console error: ${m.text()}`);
    }
  });
  return p;
}

async function shot(p, name) {
  await p.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
}

before(async () => {
  mkdirSync(shots, { recursive: true });
  daemon = await startDaemon();
  formats = (await (await fetch(`${daemon.url}/api/v1/version`)).json()).formats || [];
  browser = await launch();
  page = await newPage(browser);
});

after(async () => {
  if (browser) await browser.close();
  if (daemon) await daemon.stop();
});

test('an empty server shows the shell and the empty state', async () => {
  await page.goto(daemon.url + '/');
  await page.getByRole('heading', { name: 'Traces', level: 1 }).waitFor();
  assert.equal(await page.locator('.brand-name').textContent(), 'ariadne');
  const empty = page.locator('.empty-state');
  await empty.waitFor();
  assert.match(await empty.textContent(),
    /No traces yet — upload one or run deploy\/run\.sh to load the examples/);
  await page.locator('#server-version').filter({ hasText: 'API v1' }).waitFor();
  assert.equal(await page.evaluate(() => typeof window.d3?.select), 'function',
    'd3 must load from static/vendor/ (run npm ci in static/)');
  assert.equal(await page.evaluate(() => typeof window.d3?.sankey), 'function', 'd3-sankey must load');
  await shot(page, '01-empty');
});

// Uploads `file` through the form; returns the outcome element's text once
// the job has finished, after checking both progress bars.
async function uploadThroughForm(file, name) {
  await page.goto(daemon.url + '/#/traces');
  await page.getByRole('link', { name: 'Upload', exact: true }).click();
  await page.getByRole('heading', { name: 'Upload traces', level: 1 }).waitFor();
  const submit = page.getByRole('button', { name: 'Upload', exact: true });
  assert.equal(await submit.isDisabled(), true, 'Upload is disabled until a file is chosen');
  await page.getByLabel('Choose files or drop them here').setInputFiles(join(fixtures, file));
  await page.locator('.file-list li', { hasText: file }).waitFor();
  if (name) await page.getByLabel('Trace name (optional)').fill(name);
  await submit.click();
  const uploadBar = page.locator('progress#upload-progress');
  await uploadBar.waitFor();
  const outcome = page.locator('.outcome .alert');
  await outcome.waitFor({ timeout: 60000 });
  assert.equal(await uploadBar.evaluate((e) => e.value), 1, 'all bytes were sent');
  assert.match(await page.locator('.step', { has: uploadBar }).textContent(), /sent/);
  assert.equal(await page.locator('progress#import-progress').count(), 1);
  return { text: await outcome.textContent(), success: await outcome.evaluate((e) => e.classList.contains('alert-success')) };
}

test('an upload no reader accepts ends with a clear failure message', async () => {
  const { text, success } = await uploadThroughForm('not_a_trace.txt');
  assert.equal(success, false);
  assert.match(text, /Import failed/);
  assert.match(text, /unsupported_format|invalid_input/, 'the job error code is shown');
  assert.match(await page.locator('.step', { has: page.locator('#import-progress') }).textContent(), /Failed/);
  await page.locator('.recent-jobs table tbody tr', { hasText: 'failed' }).first().waitFor();
  await shot(page, '02-upload-failed');
});

test('the upload bar follows the bytes sent', async () => {
  // 4 MiB through a link throttled to 2 MiB/s: the bar must pass through
  // intermediate values, not jump from 0 to 1.
  const big = join(daemon.dir, 'four_mib.bin');
  writeFileSync(big, Buffer.alloc(4 << 20, 'x'));
  await page.goto(daemon.url + '/#/traces');
  await page.getByRole('link', { name: 'Upload', exact: true }).click();
  await page.getByLabel('Choose files or drop them here').setInputFiles(big);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions',
    { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 2 << 20 });
  await page.evaluate(() => {
    window.seenProgress = [];
    const watch = () => {
      const bar = document.getElementById('upload-progress');
      if (bar) window.seenProgress.push(bar.value);
      if (!document.querySelector('.outcome .alert')) requestAnimationFrame(watch);
    };
    requestAnimationFrame(watch);
  });
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  await page.locator('.step-text', { hasText: /MiB of 4\.0 MiB/ }).first().waitFor({ timeout: 20000 });
  await shot(page, '02b-upload-in-progress');
  await page.locator('.outcome .alert').waitFor({ timeout: 60000 });
  await cdp.send('Network.emulateNetworkConditions',
    { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
  await cdp.detach();
  const seen = await page.evaluate(() => window.seenProgress);
  assert.ok(seen.some((v) => v > 0.05 && v < 0.95), `intermediate values: ${seen.slice(0, 20)}`);
  assert.equal(seen[seen.length - 1], 1);
});

let traceName = 'two workers (browser test)';
let traceUrl = null;

test('a small Paje trace uploads with progress and is listed', async () => {
  const { text, success } = await uploadThroughForm('two_workers.trace', traceName);
  await shot(page, '03-upload-outcome');
  if (formats.includes('paje')) {
    assert.equal(success, true, `the server has a paje reader, the import must succeed: ${text}`);
  }
  if (!success) {
    assert.match(text, /Import failed: .+/, 'a failed import says why');
    return;
  }
  assert.match(text, /Imported 1 trace/);
  const link = page.locator('.outcome a.trace-link');
  assert.equal(await link.textContent(), traceName);
  traceUrl = await link.getAttribute('href');
  assert.match(traceUrl, /^#\/traces\/\d+$/);

  await page.getByRole('link', { name: 'Traces', exact: true }).click();
  const row = page.locator('table[aria-label="Traces"] tbody tr', { hasText: traceName });
  await row.waitFor();
  assert.match(await row.textContent(), /tasks/);
  assert.match(await page.locator('.page-subtitle').textContent(), /^1 trace$/);
  await shot(page, '04-list');

  await page.getByLabel('Name', { exact: true }).fill('no such trace');
  await page.locator('.empty-state', { hasText: 'No trace matches' }).waitFor();
  assert.match(page.url(), /#\/traces\?name=no\+such\+trace/, 'the filter is in the URL');
  await page.getByLabel('Name', { exact: true }).fill('WORKERS');
  await row.waitFor();
  await page.getByLabel('Kind', { exact: true }).selectOption('profile');
  await page.locator('.empty-state', { hasText: 'No trace matches' }).waitFor();
  await page.getByLabel('Kind', { exact: true }).selectOption('tasks');
  await row.waitFor();
});

test('the trace page shows the overview and its URL reopens the same view', async (t) => {
  if (!traceUrl) return t.skip('the server could not import the Paje trace yet');
  await page.goto(`${daemon.url}/${traceUrl}`);
  await page.getByRole('heading', { name: traceName, level: 1 }).waitFor();
  const tab = page.locator('nav.tabs a[aria-current="page"]');
  assert.equal(await tab.textContent(), 'Overview');
  await page.getByRole('heading', { name: 'Input files' }).waitFor();
  assert.equal(await page.locator('section.view code', { hasText: 'two_workers.trace' }).count(), 1);
  assert.ok(await page.locator('.stat').count() > 0, 'the counts are shown');
  await shot(page, '05-trace-overview');

  const withParams = `${daemon.url}/${traceUrl}/overview?focus=files`;
  await page.goto(withParams);
  await page.getByRole('heading', { name: traceName, level: 1 }).waitFor();
  await page.reload();
  await page.getByRole('heading', { name: traceName, level: 1 }).waitFor();
  assert.equal(page.url(), withParams, 'the URL survives a reload');
  assert.equal(await page.locator('nav.tabs a[aria-current="page"]').textContent(), 'Overview');

  await page.goto(`${daemon.url}/${traceUrl}/no-such-view`);
  await page.locator('.alert-error', { hasText: 'No view “no-such-view”' }).waitFor();
  await page.goto(`${daemon.url}/#/traces/999999`);
  await page.getByRole('heading', { name: 'No trace #999999' }).waitFor();
});

test('a trace can be renamed and deleted from the list', async (t) => {
  if (!traceUrl) return t.skip('the server could not import the Paje trace yet');
  await page.goto(`${daemon.url}/#/traces`);
  await page.getByRole('button', { name: `Rename ${traceName}` }).click();
  const dialog = page.getByRole('dialog', { name: 'Rename trace' });
  await dialog.getByLabel('New name').fill('');
  await dialog.getByRole('button', { name: 'Rename' }).click();
  assert.equal(await dialog.isVisible(), true, 'an empty name is refused');
  traceName = 'renamed in the browser';
  await dialog.getByLabel('New name').fill(traceName);
  await dialog.getByRole('button', { name: 'Rename' }).click();
  await page.locator('table[aria-label="Traces"] a', { hasText: traceName }).waitFor();
  const api = await (await fetch(`${daemon.url}/api/v1/traces`)).json();
  assert.equal(api.traces[0].name, traceName, 'the rename reached the server');

  await page.getByRole('button', { name: `Delete ${traceName}` }).click();
  await page.getByRole('dialog', { name: 'Delete trace' }).getByRole('button', { name: 'Delete' }).click();
  await page.locator('.empty-state', { hasText: 'No traces yet' }).waitFor();
  const after = await (await fetch(`${daemon.url}/api/v1/traces`)).json();
  assert.equal(after.total, 0);
});

test('with auth on, the dashboard asks for a token and uses the one saved in settings', async () => {
  const secured = await startDaemon({ args: ['--auth'] });
  const b = await launch();
  try {
    const p = await newPage(b);
    await p.goto(secured.url + '/');
    const alert = p.locator('.alert-error', { hasText: 'This server needs an API token' });
    await alert.waitFor();
    await shot(p, '06-auth-needed');
    await alert.getByRole('button', { name: 'Open settings' }).click();
    const dialog = p.getByRole('dialog', { name: 'Settings' });
    await dialog.getByLabel('API token').fill('ari_not_a_valid_token');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.locator('.form-error', { hasText: 'refused' }).waitFor();

    const created = runCli(['token', 'create', '--name', 'browser-test', '--scope', 'write', '--db', secured.db]);
    assert.equal(created.status, 0, `token create failed: ${created.stderr}`);
    const secret = /ari_[A-Za-z0-9_-]+/.exec(created.stdout);
    assert.ok(secret, `no token in: ${created.stdout}`);
    await dialog.getByLabel('API token').fill(secret[0]);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await p.locator('.empty-state', { hasText: 'No traces yet' }).waitFor();
    assert.equal(await p.evaluate(() => localStorage.getItem('ariadne.token')), secret[0]);
    await p.close();
  } finally {
    await b.close();
    await secured.stop();
  }
});

test('no uncaught errors in the pages', () => {
  assert.deepEqual(problems, []);
});
