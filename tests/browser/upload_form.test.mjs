// upload_form.test.mjs: the upload form and the empty states of issue 15,
// in headless Chromium against a live ariadned at 1366x768:
//   - the name field follows the chosen files (a name typed for one upload
//     never names the next), and is empty after an upload;
//   - a StarPU folder with logs and unknown files imports, and the outcome
//     lists the skipped files with their reasons;
//   - the same files again: "Identical to trace N (name)", Open it / Import
//     anyway, and Import anyway imports a second copy;
//   - the elimination-tree tab of a run without tasks_anode.csv explains
//     what is missing instead of drawing empty panels; a plain Paje trace's
//     Gantt tab says how to get tasks.
// Runs on tests/fixtures (no shared data needed). Screenshots go to
// tests/browser/screenshots/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, watchedPage } from '../lib/browser.mjs';
import { startDaemon, runCli, sourceDir } from '../lib/daemon.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const shots = join(here, 'screenshots');
const fixtures = join(sourceDir, 'tests', 'fixtures');
const paje = join(fixtures, 'browser', 'two_workers.trace');

let daemon, browser, page, work, runDir;
const problems = [];

before(async () => {
  mkdirSync(shots, { recursive: true });
  work = mkdtempSync(join(tmpdir(), 'ariadne-upload-form-'));
  runDir = join(work, 'chol-run');
  cpSync(join(fixtures, 'starpu', 'bundle'), runDir, { recursive: true });
  writeFileSync(join(runDir, 'starpu.log'), '[starpu][init] 3 workers\n');
  writeFileSync(join(runDir, 'slurm-4711.out'), 'job done\n');
  writeFileSync(join(runDir, 'activity.data'), '0 1\n');
  daemon = await startDaemon();
  browser = await launchChromium();
  page = await watchedPage(browser, problems);
});

after(async () => {
  if (browser) await browser.close();
  if (daemon) await daemon.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

const shot = (name) => page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
const nameField = () => page.getByLabel('Trace name (optional)');
const filesField = () => page.getByLabel('Choose files or drop them here');

async function openForm() {
  await page.goto(`${daemon.url}/#/upload`);
  await page.getByRole('heading', { name: 'Upload traces', level: 1 }).waitFor();
}

// Submits the form and waits for the outcome box; returns it.
async function submit() {
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  const outcome = page.locator('.outcome .alert');
  await outcome.waitFor({ timeout: 60000 });
  return outcome;
}

test('the name follows the chosen files, and is cleared after an upload', async () => {
  await openForm();
  await filesField().setInputFiles(paje);
  assert.equal(await nameField().inputValue(), 'two_workers', 'derived from the file');
  await nameField().fill('my first name');
  await filesField().setInputFiles(join(fixtures, 'browser', 'not_a_trace.txt'));
  assert.equal(await nameField().inputValue(), 'not_a_trace', 'new files: the typed name is replaced');
  await filesField().setInputFiles(readdirSync(runDir).map((f) => join(runDir, f)));
  assert.equal(await nameField().inputValue(), '', 'loose files: the server derives the name');
  await nameField().fill('chol run');
  const outcome = await submit();
  assert.match(await outcome.textContent(), /Imported 1 trace/);
  assert.equal(await nameField().inputValue(), '', 'after the upload the name is empty');
  assert.equal(await page.locator('.file-list li').count(), 0, 'and no file is chosen');
  assert.equal(await page.getByRole('button', { name: 'Upload', exact: true }).isDisabled(), true);
  // The skipped files are listed with their reasons; the known extra is not.
  const skipped = page.getByRole('list', { name: 'Skipped files' });
  assert.match(await skipped.textContent(), /starpu\.log — no reader recognises this file/);
  assert.match(await skipped.textContent(), /slurm-4711\.out/);
  assert.doesNotMatch(await skipped.textContent(), /activity\.data/);
  assert.equal(await page.locator('.outcome a.trace-link').textContent(), 'chol run');
  await shot('upload-01-skipped-files');
});

test('a folder chosen whole is named after the folder', async () => {
  await openForm();
  await page.locator('#upload-folder').setInputFiles(runDir);
  assert.equal(await nameField().inputValue(), 'chol-run');
  await page.locator('.file-list li', { hasText: 'starpu.log' }).waitFor();
  assert.match(await page.locator('.file-list').textContent(), /10 files, one trace/);
});

test('the same files again: identical to trace N, open it or import anyway', async () => {
  await openForm();
  await filesField().setInputFiles(readdirSync(runDir).map((f) => join(runDir, f)));
  const outcome = await submit();
  await page.locator('.duplicate-trace').waitFor();
  const text = await outcome.textContent();
  assert.match(text, /Identical to trace 1 \(chol run\)/);
  assert.equal(await page.getByRole('link', { name: 'Open it' }).getAttribute('href'), '#/traces/1');
  await shot('upload-02-duplicate');
  const total = async () => (await (await fetch(`${daemon.url}/api/v1/traces`)).json()).total;
  assert.equal(await total(), 1, 'not imported twice');
  await page.getByRole('button', { name: 'Import anyway' }).click();
  await page.locator('.outcome .alert-success').waitFor({ timeout: 60000 });
  assert.match(await page.locator('.outcome').textContent(), /Imported anyway: identical to trace 1 \(chol run\)/);
  assert.equal(await total(), 2);
  // The recent imports say which trace the refused one duplicated.
  await page.locator('.recent-jobs a', { hasText: 'trace #1 (chol run)' }).first().waitFor();
});

test('the elimination tree of a run without tasks_anode.csv says what is missing', async () => {
  await page.goto(`${daemon.url}/#/traces/1/atree`);
  const box = page.locator('.atree-empty');
  await box.waitFor();
  const text = await box.textContent();
  assert.match(text, /No task of this run is mapped to the elimination tree/);
  assert.match(text, /tasks_anode\.csv/);
  assert.match(text, /JobId.*ANode/);
  assert.equal(await page.locator('svg.atree-svg').count(), 0, 'no empty charts on placeholder axes');
  await shot('upload-03-atree-no-mapping');
});

test('a plain Paje trace explains how to get tasks', async () => {
  const r = runCli(['import', '--db', daemon.db, '--name', 'plain', paje]);
  assert.equal(r.status, 0, r.stderr);
  const id = JSON.parse(r.stdout.trim()).id;
  await page.goto(`${daemon.url}/#/traces/${id}/gantt`);
  const box = page.locator('.alert', { hasText: 'needs application tasks' });
  await box.waitFor();
  const text = await box.textContent();
  assert.match(text, /STARPU_FXT_TRACE=1/);
  assert.match(text, /starpu_fxt_tool/);
  assert.equal(await box.getByRole('link', { name: 'the Timeline tab' }).getAttribute('href'), `#/traces/${id}/timeline`);
  await shot('upload-04-no-tasks');
});

test('no uncaught errors in the pages', () => {
  assert.deepEqual(problems, []);
});
