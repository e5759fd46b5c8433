// sankey.test.mjs: the profile views in headless Chromium against a live
// ariadned (tests/lib/daemon.mjs): the Sankey super graph of Hatchet's
// LULESH json-split profile (or of the project's own fixture when the shared
// data is absent): nodes and edges drawn with heights proportional to
// inclusive time, a tooltip with callers and entry functions, a node split
// by its functions, rank brushing into two graphs, and the call-site table
// with its histogram, scatter and text tree. Screenshots at 1366x768 go to
// tests/browser/screenshots/.
//
// Needs `npm ci` in tests/ (playwright-core) and in static/ (d3 and
// d3-sankey into static/vendor/), and Debian's chromium (or $CHROMIUM).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, VIEWPORT } from '../lib/browser.mjs';
import { startDaemon, runCli, sourceDir } from '../lib/daemon.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const shots = join(here, 'screenshots');
const shared = process.env.ARIADNE_SHARED_DATA || join(sourceDir, '..', 'shared', 'data');
const LULESH = join(shared, 'hatchet', 'hatchet', 'tests', 'data', 'caliper-lulesh-json', 'lulesh-annotation-profile.json');
const CPI = join(shared, 'hatchet', 'hatchet', 'tests', 'data', 'hpctoolkit-cpi-database');
const MINI = join(sourceDir, 'tests', 'fixtures', 'supergraph', 'miniapp-profile.json');


let daemon, browser, page, dir;
// Groups LULESH's regions and the fixture's functions into a few modules.
const MAP = { Lagrange: '^Lagrange', Calc: '^Calc', MPI: '^MPI_', Compute: '^(compute|kernel_)' };
const ids = {};
const problems = [];

function importFile(path) {
  const r = runCli(['import', '--db', join(dir, 'test.db'), path]);
  assert.equal(r.status, 0, `import ${path}: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()).id;
}

before(async () => {
  mkdirSync(shots, { recursive: true });
  dir = mkdtempSync(join(tmpdir(), 'ariadne-sankey-'));
  ids.profile = importFile(existsSync(LULESH) ? LULESH : MINI);
  if (existsSync(CPI)) ids.cpi = importFile(CPI);
  daemon = await startDaemon({ dir });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: VIEWPORT });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/status of 400/.test(m.text())) problems.push(`console error: ${m.text()}`);
  });
});

after(async () => {
  if (browser) await browser.close();
  if (daemon) await daemon.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const shot = (name, fullPage = false) => page.screenshot({ path: join(shots, `${name}.png`), fullPage });

// The bars' heights, by node id.
const barHeights = () => page.$$eval('.sg-node', (gs) => Object.fromEntries(gs.map((g) =>
  [g.dataset.id, Number(g.querySelector('.sg-bar').getAttribute('height'))])));

test('the Sankey of the profile: nodes, edges, legend, heights by inclusive time', async () => {
  await page.goto(`${daemon.url}/#/traces/${ids.profile}/supergraph`);
  await page.locator('#tab-supergraph[aria-current="page"]').waitFor();
  await page.locator('.sg-node').first().waitFor();
  const api = await (await fetch(`${daemon.url}/api/v1/traces/${ids.profile}/supergraph`)).json();
  assert.equal(await page.locator('.sg-node').count(), api.nodes.length);
  assert.equal(await page.locator('.sg-link').count(), api.edges.filter((e) => e.weight > 0).length);
  assert.equal(await page.locator('.sg-mini').count(), api.nodes.length, 'a mini histogram on every node');
  assert.match(await page.locator('.sg-legend').textContent(), /exclusive time \(mean over ranks\)\s*0 s.*\d s/i);
  // heights are proportional to inclusive time within a column: compare the
  // two largest nodes of the same level
  const h = await barHeights();
  const byLevel = new Map();
  for (const n of api.nodes) (byLevel.get(n.level) || byLevel.set(n.level, []).get(n.level)).push(n);
  const col = [...byLevel.values()].find((ns) => ns.length >= 2 && ns[1].inclusive > 0);
  assert.ok(col, 'a level with two nodes');
  const [a, b] = col.sort((x, y) => y.inclusive - x.inclusive);
  const ratio = h[a.id] / h[b.id], want = a.inclusive / b.inclusive;
  assert.ok(Math.abs(ratio - want) / want < 0.05, `height ratio ${ratio} vs inclusive ratio ${want}`);
  await shot('sankey-profile');
});

test('a tooltip shows the metrics, callers and entry functions', async () => {
  const api = await (await fetch(`${daemon.url}/api/v1/traces/${ids.profile}/supergraph`)).json();
  const target = api.nodes.find((n) => n.level === 2) || api.nodes[1];
  await page.locator(`.sg-node[data-id="${target.id}"] .sg-bar`).hover();
  const tip = page.locator('.sg-tooltip');
  await tip.waitFor({ state: 'visible' });
  const text = await tip.textContent();
  assert.ok(text.includes(target.name), text);
  assert.match(text, /Inclusive/);
  assert.match(text, /Exclusive/);
  assert.match(text, /Callers \(1\)/);
  assert.ok(text.includes(target.callers[0].function), 'the caller function is listed');
  assert.match(text, /Entry functions/);
  await shot('sankey-tooltip');
  await page.mouse.move(2, 2);
  await tip.waitFor({ state: 'hidden' });
});

test('clicking a node selects it; expanding it splits the node into its functions', async () => {
  const api = await (await fetch(`${daemon.url}/api/v1/traces/${ids.profile}/supergraph?group_by=map&map=`
    + encodeURIComponent(JSON.stringify(MAP)))).json();
  const big = api.nodes.filter((n) => n.functions > 1).sort((x, y) => y.inclusive - x.inclusive)[0];
  assert.ok(big, 'a node with several functions');
  await page.goto(`${daemon.url}/#/traces/${ids.profile}/supergraph?group_by=map&map=`
    + encodeURIComponent(JSON.stringify(MAP)));
  await page.locator(`.sg-node[data-id="${big.id}"]`).waitFor();
  const before = await page.locator('.sg-node').count();
  await page.locator(`.sg-node[data-id="${big.id}"] .sg-bar`).click();
  await page.locator('#sg-node-title').filter({ hasText: big.name }).waitFor();
  await page.locator('.sg-hist-svg').waitFor();
  await shot('sankey-selected', true);
  await page.locator('#sg-expand').click();
  await page.locator('.sg-chip').first().waitFor();
  await page.locator(`.sg-node[data-id="${big.id}"]`).waitFor({ state: 'detached' });
  const after = await page.locator('.sg-node').count();
  assert.ok(after > before, `${after} nodes after expanding, ${before} before`);
  assert.ok(await page.locator(`.sg-node[data-id^="${big.id}="]`).count() >= 2, 'the functions are nodes now');
  assert.match(page.url(), /split=/, 'the split is in the URL');
  await shot('sankey-split');
  // undo
  await page.getByRole('button', { name: 'Reset splits' }).click();
  await page.locator(`.sg-node[data-id="${big.id}"]`).waitFor();
});

test('rank brushing draws two graphs coloured by the difference', async () => {
  await page.goto(`${daemon.url}/#/traces/${ids.profile}/supergraph?ranks=0-1`);
  await page.locator('#sg-side-selected .sg-node').first().waitFor();
  await page.locator('#sg-side-rest .sg-node').first().waitFor();
  assert.match(await page.locator('#sg-side-selected').textContent(), /Selected ranks 0-1/);
  assert.match(await page.locator('.sg-legend').textContent(), /selected − other ranks/);
  await shot('sankey-brush', true);
});

test('the call-site table sorts and shows ranks, scatter and tree', async () => {
  await page.goto(`${daemon.url}/#/traces/${ids.profile}/callsites`);
  await page.locator('#ct-table tbody tr').first().waitFor();
  const firstValues = async () => page.$$eval('#ct-table tbody tr', (trs) => trs.map((tr) => tr.dataset.id));
  const descending = await firstValues();
  await page.locator('#ct-table th[aria-sort="descending"] button').click();
  await page.locator('#ct-table th[aria-sort="ascending"]').waitFor();
  const ascending = await firstValues();
  assert.deepEqual(ascending[0], descending[descending.length - 1]);
  await page.locator('#ct-fit-stats').waitFor();
  assert.match(await page.locator('#ct-fit-stats').textContent(), /Pearson r = /);
  await page.locator('#ct-tree-text').filter({ hasText: /\d+\.\d{3} / }).waitFor();
  await shot('callsites', true);
});

test('the HPCToolkit cpi database groups by load module', { skip: !existsSync(CPI) && 'no shared data' }, async () => {
  await page.goto(`${daemon.url}/#/traces/${ids.cpi}/supergraph`);
  await page.locator('.sg-node').first().waitFor();
  assert.ok(await page.locator('.sg-node').filter({ hasText: 'libmpi' }).count() >= 1);
  await shot('sankey-cpi');
});

test('no page errors', () => {
  assert.deepEqual(problems, []);
});
