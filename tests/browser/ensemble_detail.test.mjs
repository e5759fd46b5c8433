// ensemble_detail.test.mjs: the ensemble detail panels (views/ensemble_icicle.js,
// _boxplots, _histogram, _scatter) in headless Chromium against a live
// ariadned. A harness inside the live dashboard page imports the modules
// and mounts them in four ~650 px cells on a state of lib/ensemble_state.js;
// the marks are checked against the API: icicle bars = hierarchy nodes,
// boxplots = call sites, histogram bars sum to the API's samples in each
// mode, scatter dots = call sites x runs present; setting state.runs
// refetches with runs=; the "click a node" empty state; text >= 11 px and
// nothing overflowing at 1366x768. Fixture ensemble run-{8,27,64}; RAJAPerf
// too when the shared data is present. Screenshots: ensemble-detail-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, watchedPage, overflowingElements } from '../lib/browser.mjs';
import { startDaemon, runCli, sourceDir } from '../lib/daemon.mjs';
import { rajaperfDir, haveRajaperf, createEnsemble } from '../fixtures/api/ensembles.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const shots = join(here, 'screenshots');
const fixtures = join(sourceDir, 'tests', 'fixtures', 'ensemble');

let daemon, browser, page, dir;
const problems = [];
const ens = {};

function cli(args) {
  const r = runCli(['import', '--db', join(dir, 'test.db'), '--quiet', ...args]);
  assert.equal(r.status, 0, `import: ${r.stderr}`);
  return r.stdout.trim().split('\n').map((l) => JSON.parse(l));
}

before(async () => {
  mkdirSync(shots, { recursive: true });
  dir = mkdtempSync(join(tmpdir(), 'ariadne-ens-detail-'));
  const fx = cli(['run-8', 'run-27', 'run-64'].map((r) => join(fixtures, `${r}.cali`)));
  if (haveRajaperf) {
    const out = cli(['--ensemble', 'rajaperf', ...Array.from({ length: 10 },
      (_, i) => join(rajaperfDir, String(i + 1), 'Base_CUDA-block_128.cali'))]);
    ens.raja = out.pop().ensemble.id;
  }
  daemon = await startDaemon({ dir });
  ens.fixture = await createEnsemble(daemon.url, 'fixture', fx.map((t) => t.id));
  browser = await launchChromium();
  page = await watchedPage(browser, problems);
  await page.goto(`${daemon.url}/#/traces`);
  await page.waitForFunction(() => !!globalThis.d3);
});

after(async () => {
  if (browser) await browser.close();
  if (daemon) await daemon.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const api = async (path) => {
  const r = await fetch(`${daemon.url}/api/v1${path}`);
  assert.equal(r.status, 200, `${path}: ${r.status}`);
  return r.json();
};

// Mounts the four panels on a fresh state of ensemble `id` (no node yet).
async function mountHarness(id) {
  const e = await api(`/ensembles/${id}`);
  await page.evaluate(async ({ id, members }) => {
    document.getElementById('ed-harness')?.remove();
    if (globalThis.edViews) globalThis.edViews.forEach((v) => v.destroy());
    const { createEnsembleState } = await import('/js/lib/ensemble_state.js');
    const mods = await Promise.all(['icicle', 'boxplots', 'histogram', 'scatter'].map((n) => import(`/js/views/ensemble_${n}.js`)));
    const state = createEnsembleState({ id, members });
    const grid = document.createElement('div');
    grid.id = 'ed-harness';
    grid.style.cssText = 'position:absolute;inset:0;z-index:1000;background:#fff;display:grid;'
      + 'grid-template-columns:650px 650px;gap:12px;padding:12px;overflow:auto;';
    document.body.appendChild(grid);
    const names = ['Icicle', 'Boxplots', 'Histogram', 'Scatter'];
    globalThis.edViews = mods.map((m, i) => {
      const cell = document.createElement('section');
      cell.className = `ed-cell ed-cell-${names[i].toLowerCase()}`;
      grid.appendChild(cell);
      return m[`mount${names[i]}`](cell, state);
    });
    globalThis.edState = state;
  }, { id, members: e.members.map((m) => ({ trace_id: m.trace_id, name: m.name })) });
  return e;
}

const setState = (patch) => page.evaluate((p) => globalThis.edState.set(p), patch);
const count = (sel) => page.locator(sel).count();

// Waits until every panel shows marks or a state for the current query.
async function settled() {
  await page.waitForFunction(() => [...document.querySelectorAll('#ed-harness .ed-body')]
    .every((b) => b.querySelector('svg, .ed-state:not(.ed-loading), .alert')));
}

async function checkPanels(id, node, runs, what) {
  const q = runs ? `runs=${runs.join(',')}` : '';
  await settled();
  const hier = await api(`/ensembles/${id}/nodes/${node.key}/hierarchy?${q}`);
  assert.equal(await count('.ed-cell-icicle .ed-icicle-bar'), hier.nodes.length, `${what}: icicle bars`);
  const box = await api(`/ensembles/${id}/nodes/${node.key}/boxplots?${q}`);
  assert.equal(await count('.ed-cell-boxplots .ed-box'), box.callsites.filter((c) => c.ensemble).length, `${what}: boxplots`);
  const sc = await api(`/ensembles/${id}/scatter?${q}`);
  assert.equal(await count('.ed-cell-scatter .ed-dot'), sc.points.length, `${what}: scatter dots`);
  assert.ok(sc.points.length > 0);
  for (const mode of ['run', 'rank', 'callsite']) {
    await page.click(`.ed-cell-histogram .ed-mode[data-mode="${mode}"]`);
    await page.waitForFunction((m) => document.querySelector(`.ed-cell-histogram .ed-mode[data-mode="${m}"]`)
      .getAttribute('aria-pressed') === 'true' && document.querySelector('.ed-cell-histogram svg'), mode);
    const hist = await api(`/ensembles/${id}/nodes/${node.key}/histogram?mode=${mode}&${q}`);
    await page.waitForFunction((n) => [...document.querySelectorAll('.ed-cell-histogram .ed-bar')]
      .reduce((s, b) => s + Number(b.dataset.count), 0) === n, hist.samples, { timeout: 5000 });
    assert.equal(hist.counts.reduce((a, b) => a + b, 0), hist.samples, `${what}: ${mode} counts`);
  }
}

async function checkLayout(what) {
  const small = await page.evaluate(() => [...document.querySelectorAll('#ed-harness text, #ed-harness .ed-legends span')]
    .filter((t) => t.getBoundingClientRect().height > 0 && t.textContent.trim())
    .filter((t) => parseFloat(getComputedStyle(t).fontSize) * (t.ownerSVGElement
      ? t.ownerSVGElement.getBoundingClientRect().width / t.ownerSVGElement.viewBox.baseVal.width : 1) < 10.9)
    .slice(0, 3).map((t) => t.textContent));
  assert.deepEqual(small, [], `${what}: text under 11 px`);
  assert.deepEqual(await overflowingElements(page, '#ed-harness'), [], `${what}: overflow`);
  const cells = await page.evaluate(() => [...document.querySelectorAll('#ed-harness .ed-cell')]
    .filter((c) => c.scrollWidth > c.clientWidth + 1).map((c) => c.className));
  assert.deepEqual(cells, [], `${what}: a panel wider than its cell`);
}

test('empty state, then the panels of a node follow the API; runs= refetches', async () => {
  await mountHarness(ens.fixture);
  await page.waitForSelector('.ed-cell-icicle .ed-empty');
  assert.match(await page.textContent('.ed-cell-icicle .ed-empty'), /Click a node in the Sankey/);
  const g = await api(`/ensembles/${ens.fixture}/supergraph`);
  const node = g.nodes.find((n) => n.name === 'main');
  await setState({ node: { id: node.id, key: node.key, name: node.name, module: node.module }, target: g.runs[2].trace_id });
  await checkPanels(ens.fixture, node, null, 'fixture');
  assert.ok(await count('.ed-cell-boxplots .ed-box-target') > 0, 'target boxplot overlaid');
  assert.ok(await count('.ed-cell-scatter .ed-dot[fill="#16a34a"]') > 0, 'target dots green');
  await checkLayout('fixture');
  await page.screenshot({ path: join(shots, 'ensemble-detail-fixture.png') });

  const urls = [];
  const listen = (r) => urls.push(r.url());
  page.on('request', listen);
  const runs = g.runs.slice(0, 2).map((r) => r.trace_id);
  await setState({ runs, target: null });
  await checkPanels(ens.fixture, node, runs, 'fixture runs subset');
  page.off('request', listen);
  for (const ep of ['hierarchy', 'boxplots', 'histogram', 'scatter']) {
    assert.ok(urls.some((u) => u.includes(`/${ep}?`) && u.includes(`runs=${runs.join('%2C')}`)), `${ep} refetched with runs=`);
  }
  await page.click('.ed-cell-icicle .ed-icicle-bar');
  assert.equal(await page.evaluate(() => globalThis.edState.get().callsite), 'main');
  assert.deepEqual(problems, []);
});

test('RAJAPerf: the panels of the largest kernel group', { skip: !haveRajaperf && 'no shared RAJAPerf data' }, async () => {
  await mountHarness(ens.raja);
  const g = await api(`/ensembles/${ens.raja}/supergraph`);
  const node = g.nodes.filter((n) => n.level > 0).sort((a, b) => b.inc_max - a.inc_max)[0];
  await setState({ node: { id: node.id, key: node.key, name: node.name, module: node.module }, target: g.runs[0].trace_id });
  await checkPanels(ens.raja, node, null, 'rajaperf');
  await checkLayout('rajaperf');
  await page.screenshot({ path: join(shots, 'ensemble-detail-rajaperf.png') });
  assert.deepEqual(problems, []);
});
