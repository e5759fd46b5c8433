// ensembles.test.mjs: ensembles in the dashboard, in headless Chromium
// against a live ariadned: the trace list shows the ensembles (RAJAPerf's
// 10 trials made by `ariadned import --ensemble` when the shared data is
// present), profiles ticked in the list become an ensemble ("Make an
// ensemble"), whose page lists the members and their parameters; a
// parameter is edited in the dialog and others set from a CSV file; a
// member is added from the stored profiles ("Add members"); the parameter
// projection draws a dot per run coloured by cluster, with the axes'
// shares of variance, and the k selector redraws it; the upload form's
// "as an ensemble named" field (shown for several files) makes an ensemble.
// Screenshots at 1366x768 go to tests/browser/screenshots/ensemble-*.png.
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
const shared = process.env.ARIADNE_SHARED_DATA || join(sourceDir, '..', 'shared', 'data');
const RAJA = join(shared, 'thicket', 'thicket', 'tests', 'data', 'rajaperf', 'lassen', 'clang10.0.1_nvcc10.2.89_1048576');
const haveRaja = existsSync(join(RAJA, '1', 'Base_CUDA-block_128.cali'));
const fixtures = join(sourceDir, 'tests', 'fixtures', 'ensemble');

let daemon, browser, page, dir;
const problems = [];

function cli(args) {
  const r = runCli(['import', '--db', join(dir, 'test.db'), '--quiet', ...args]);
  assert.equal(r.status, 0, `import ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim().split('\n').map((l) => JSON.parse(l));
}

before(async () => {
  mkdirSync(shots, { recursive: true });
  dir = mkdtempSync(join(tmpdir(), 'ariadne-ens-browser-'));
  cli(['run-8', 'run-27', 'run-64'].map((r) => join(fixtures, `${r}.cali`)));
  if (haveRaja) {
    cli(['--ensemble', 'rajaperf', ...Array.from({ length: 10 },
      (_, i) => join(RAJA, String(i + 1), 'Base_CUDA-block_128.cali'))]);
  }
  daemon = await startDaemon({ dir });
  browser = await launchChromium();
  page = await watchedPage(browser, problems);
});

after(async () => {
  if (browser) await browser.close();
  if (daemon) await daemon.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('the trace list shows the ensembles, and ticked profiles make one', async () => {
  await page.goto(`${daemon.url}/#/traces`);
  await page.waitForSelector('.ensembles-section h2');
  if (haveRaja) {
    const row = page.locator('table[aria-label="Ensembles"] tr', { hasText: 'rajaperf' });
    assert.equal((await row.locator('td.num').textContent()).trim(), '10');
  }
  await page.waitForSelector('table[aria-label="Traces"]');
  assert.equal(await page.locator('#make-ensemble').isDisabled(), true);
  for (const name of ['run-8', 'run-64']) await page.check(`input[aria-label="Select ${name} for an ensemble"]`);
  assert.match(await page.locator('#make-ensemble').textContent(), /\(2\)/);
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(shots, 'ensemble-trace-list.png') });
  await page.click('#make-ensemble');
  await page.fill('#ensemble-name', 'two runs');
  await page.click('dialog button[value="ok"]');
  await page.waitForSelector('table[aria-label="Members"]');
  assert.equal(await page.locator('h1').textContent(), 'two runs');
  const rows = page.locator('table[aria-label="Members"] tbody tr');
  assert.equal(await rows.count(), 2);
  // jobsize, problem_size and variant differ: they are shown; ranks (2 and 2) is hidden
  const heads = await page.locator('table[aria-label="Members"] th').allTextContents();
  for (const k of ['jobsize', 'problem_size', 'variant']) assert.ok(heads.includes(k), `${k} in ${heads}`);
  assert.ok(!heads.includes('ranks'));
  assert.equal((await rows.nth(1).locator('td').nth(2).textContent()).trim(), '64');
});

test('edit a parameter in the dialog and set others from a CSV', async () => {
  await page.click('button[aria-label="Edit run-8"]');
  await page.fill('dialog input[aria-label="jobsize"]', '12');
  await page.fill('dialog input[aria-label="New parameter name"]', 'threads');
  await page.fill('dialog input[aria-label="New parameter value"]', '4');
  await page.click('dialog button[value="ok"]');
  await page.waitForSelector('table[aria-label="Members"] td.source-user');
  const first = page.locator('table[aria-label="Members"] tbody tr').first();
  assert.match(await first.textContent(), /12/);
  await page.setInputFiles('#params-csv', { name: 'p.csv', mimeType: 'text/csv',
    buffer: Buffer.from('run,compiler\nrun-8,gcc\nrun-64,clang\nghost,icc\n') });
  await page.click('#params-csv-upload');
  await page.waitForSelector('.csv-result p');
  const outcome = await page.locator('.csv-result p').textContent();
  assert.match(outcome, /2 of 3 rows matched/);
  assert.match(outcome, /ghost \(line 4\)/);
  const heads = await page.locator('table[aria-label="Members"] th').allTextContents();
  assert.ok(heads.includes('compiler'));
  await page.screenshot({ path: join(shots, 'ensemble-page.png'), fullPage: true });
});

test('add a member, then the projection draws a dot per run coloured by cluster', async () => {
  await page.click('button:text("Add members")');
  const labels0 = await page.locator('dialog label').allTextContents();
  assert.ok(!labels0.some((l) => /run-8|run-64/.test(l)), `members are not offered: ${labels0}`);
  await page.check('dialog li:has-text("run-27") input[type="checkbox"]');
  await page.click('dialog button[value="ok"]');
  await page.waitForFunction(() => document.querySelectorAll('table[aria-label="Members"] tbody tr').length === 3);
  await page.waitForSelector('.projection-plot svg circle[data-trace-id]');
  assert.equal(await page.locator('.projection-plot circle[data-trace-id]').count(), 3);
  const labels = await page.locator('.projection-plot .axis-label').allTextContents();
  assert.match(labels[0], /^MDS 1 \(\d+% of variance\)$/);
  assert.match(labels[1], /^MDS 2 \(\d+% of variance\)$/);
  assert.equal(await page.locator('.projection-plot .legend text').count(), 3); // 3 runs, k = 3
  const fills = await page.locator('.projection-plot circle[data-trace-id]').evaluateAll((cs) => cs.map((c) => c.getAttribute('fill')));
  assert.equal(new Set(fills).size, 3);
  await page.locator('.projection-plot circle[data-trace-id]').first().hover();
  await page.waitForSelector('.ari-tooltip:not([hidden]) .tt-title');
  await page.selectOption('#projection-k', '2');
  await page.waitForFunction(() => document.querySelectorAll('.projection-plot .legend text').length === 2);
  await page.evaluate(() => document.querySelector('section[aria-label="Parameter projection"]').scrollIntoView());
  await page.screenshot({ path: join(shots, 'ensemble-projection.png') });
});

test('the upload form makes an ensemble of several files', async () => {
  await page.goto(`${daemon.url}/#/upload`);
  await page.waitForSelector('#upload-files');
  assert.equal(await page.locator('#upload-ensemble').isVisible(), false);
  // two json-split profiles not stored yet (a stored one would be a duplicate)
  await page.setInputFiles('#upload-files', [8, 16].map((p) => ({
    name: `p${p}.json`, mimeType: 'application/json', buffer: Buffer.from(JSON.stringify({
      data: [[3 + p, 0, 3, 0], [p, 0, p, 1]],
      columns: ['inclusive#sum#time.duration', 'mpi.rank', 'sum#time.duration', 'path'],
      column_metadata: [{ is_value: true }, { is_value: false }, { is_value: true }, { is_value: false }],
      nodes: [{ label: 'main', column: 'path' }, { label: 'work', column: 'path', parent: 0 }],
      'mpi.world.size': p,
    })),
  })));
  assert.equal(await page.locator('#upload-ensemble').isVisible(), true);
  await page.fill('#upload-ensemble', 'uploaded pair');
  await page.click('form[aria-label="Upload traces"] button[type="submit"]');
  await page.waitForSelector('.ensemble-made a');
  await page.click('.ensemble-made a');
  await page.waitForSelector('table[aria-label="Members"]');
  assert.equal(await page.locator('h1').textContent(), 'uploaded pair');
  assert.equal(await page.locator('table[aria-label="Members"] tbody tr').count(), 2);
});

test('the RAJAPerf ensemble page lists its 10 trials with their metadata',
  { skip: !haveRaja && 'no shared data (thicket)' }, async () => {
    await page.goto(`${daemon.url}/#/traces`);
    await page.click('table[aria-label="Ensembles"] a:text("rajaperf")');
    await page.waitForSelector('table[aria-label="Members"]');
    assert.equal(await page.locator('table[aria-label="Members"] tbody tr').count(), 10);
    await page.check('.panel label input[type="checkbox"]');
    const heads = await page.locator('table[aria-label="Members"] th').allTextContents();
    for (const k of ['ProblemSizeRunParam', 'variant', 'tuning', 'compiler']) assert.ok(heads.includes(k), k);
    await page.screenshot({ path: join(shots, 'ensemble-rajaperf.png') });
    await page.waitForSelector('.projection-plot svg circle[data-trace-id]');
    assert.equal(await page.locator('.projection-plot circle[data-trace-id]').count(), 10);
    await page.evaluate(() => document.querySelector('section[aria-label="Parameter projection"]').scrollIntoView());
    await page.screenshot({ path: join(shots, 'ensemble-rajaperf-projection.png') });
    assert.deepEqual(problems, []);
  });
