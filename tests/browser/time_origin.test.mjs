// time_origin.test.mjs: every time-axis view says where time 0 lies, in one
// wording (static/js/lib/origin.js, issue 14), in headless chromium at
// 1366x768: the Gantt, the Timeline and the Aggregation of a StarPU trace
// (the real chol run when ../shared/data is present, else a generated
// bundle) say "time from the first application task (t = … ms in the
// file)"; a plain Paje trace says "time as in the file"; the Overview gives
// the extent relative to the origin ("-675 ms (runtime start-up, before
// the first task)") instead of a bare "Start -675". Screenshots go to
// tests/browser/screenshots/.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, watchedPage } from '../lib/browser.mjs';
import { startDaemon, runCli, sharedData, sourceDir } from '../lib/daemon.mjs';
import { fmtTime } from '../../static/js/lib/format.js';

const here = dirname(fileURLToPath(import.meta.url));
const shots = join(here, 'screenshots');
const dataDir = process.env.ARIADNE_SHARED_DATA || sharedData;
const chol = join(dataDir, 'starpu', 'chol_implicit_dmdas_N11520_nb24');
const paje = join(sourceDir, 'tests', 'fixtures', 'api', 'small.trace');

let daemon, browser, page, task, plain;
const problems = [];

function importTrace(path) {
  const r = runCli(['import', '--db', daemon.db, path]);
  assert.equal(r.status, 0, `import ${path} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n')[0]).id;
}

before(async () => {
  mkdirSync(shots, { recursive: true });
  daemon = await startDaemon();
  if (existsSync(chol)) {
    task = importTrace(chol);
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'ariadne-origin-b-'));
    const g = runCli(['generate', '--out', join(dir, 'bundle'), '--tiles', '6', '--nodes', '2']);
    assert.equal(g.status, 0, g.stderr);
    task = importTrace(join(dir, 'bundle'));
  }
  plain = importTrace(paje);
  browser = await launchChromium();
  page = await watchedPage(browser, problems);
});

after(async () => {
  if (browser) await browser.close();
  if (daemon) await daemon.stop();
});

const summaryOf = async (id) => (await (await fetch(`${daemon.url}/api/v1/traces/${id}`)).json()).summary;

async function noteOf(view, id, selector) {
  await page.goto(`${daemon.url}/#/traces/${id}/${view}`);
  const loc = page.locator(selector).first();
  await loc.waitFor();
  await page.waitForTimeout(200);
  await page.screenshot({ path: join(shots, `origin-${view}-${id === task ? 'task' : 'paje'}.png`), fullPage: true });
  return (await loc.textContent()).trim();
}

test('a StarPU trace: Gantt, Timeline and Aggregation say the first task is the origin', async () => {
  const s = await summaryOf(task);
  assert.ok(s.time_origin > 0);
  const want = `time from the first application task (t = ${fmtTime(s.time_origin, 'ms')} in the file)`;
  const notes = {
    gantt: await noteOf('gantt', task, '.gantt-svg .origin-note'),
    timeline: await noteOf('timeline', task, '.origin-note'),
    aggregation: await noteOf('aggregation', task, '.agg-svg .origin-note'),
  };
  for (const [view, note] of Object.entries(notes)) assert.equal(note, `time (ms): ${want}`, view);
  assert.deepEqual(problems, []);
});

test('a plain Paje trace: times as in the file', async () => {
  const note = await noteOf('timeline', plain, '.origin-note');
  assert.match(note, /^time \(\w*\): time as in the file$/);
  assert.deepEqual(problems, []);
});

test('the Overview gives the extent relative to the origin', async () => {
  const s = await summaryOf(task);
  await page.goto(`${daemon.url}/#/traces/${task}/overview`);
  const table = page.locator('table.extent');
  await table.waitFor();
  const text = await table.textContent();
  assert.match(text, /Time origin\s*time from the first application task/);
  if (s.start < 0) assert.match(text, /Start\s*-[\d,.]+ ms \(runtime start-up, before the first task\)/);
  assert.match(text, /End\s*[\d,.]+ ms/);
  await page.screenshot({ path: join(shots, 'origin-overview.png'), fullPage: false });
  assert.deepEqual(problems, []);
});
