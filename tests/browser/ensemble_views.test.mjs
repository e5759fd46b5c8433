// ensemble_views.test.mjs: the ensemble page's linked views in headless
// Chromium against a live ariadned, on the RAJAPerf ensemble (10 trials,
// `ariadned import --ensemble`) when the shared data is present, else on the
// fixture ensemble of run-8/27/64.cali: the ensemble Sankey draws one bar per
// node of the API's graph, each with its gradient (B stops, one colour domain)
// and its border; a target run draws one green target line per node present
// in it, at (run_bin + 0.5) h / B; a text guide's bin restricts the page to
// exactly the API's bin_runs (runs= in the URL, the subset chip, the views
// refetch with runs=), and Back restores; the diff mode colours nodes on a
// scale symmetric about 0; the juxtaposed view draws 2 graphs with one
// height scale; a projection dot sets the target; nothing overflows at
// 1366x768. Screenshots: tests/browser/screenshots/ensemble-sankey*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, watchedPage, overflowingElements } from '../lib/browser.mjs';
import { startDaemon, runCli, sourceDir } from '../lib/daemon.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const shots = join(here, 'screenshots');
const shared = process.env.ARIADNE_SHARED_DATA || join(sourceDir, '..', 'shared', 'data');
const RAJA = join(shared, 'thicket', 'thicket', 'tests', 'data', 'rajaperf', 'lassen', 'clang10.0.1_nvcc10.2.89_1048576');
const haveRaja = existsSync(join(RAJA, '1', 'Base_CUDA-block_128.cali'));
const fixtures = join(sourceDir, 'tests', 'fixtures', 'ensemble');
const BINS = 20;

let daemon, browser, page, dir, ens, base;
const problems = [];

function importEnsemble(name, files) {
  const r = runCli(['import', '--db', join(dir, 'test.db'), '--quiet', '--ensemble', name, ...files]);
  assert.equal(r.status, 0, `import: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()).ensemble.id;
}

const api = async (path) => {
  const r = await fetch(`${daemon.url}/api/v1${path}`);
  assert.equal(r.status, 200, `${path}: ${r.status}`);
  return r.json();
};
const hashParams = () => new URLSearchParams(new URL(page.url()).hash.split('?')[1] || '');
const shot = (name, fullPage = false) => page.screenshot({ path: join(shots, `${name}.png`), fullPage });

before(async () => {
  mkdirSync(shots, { recursive: true });
  dir = mkdtempSync(join(tmpdir(), 'ariadne-ens-views-'));
  const id = haveRaja
    ? importEnsemble('rajaperf', Array.from({ length: 10 }, (_, i) => join(RAJA, String(i + 1), 'Base_CUDA-block_128.cali')))
    : importEnsemble('fixture', ['run-8', 'run-27', 'run-64'].map((r) => join(fixtures, `${r}.cali`)));
  daemon = await startDaemon({ dir });
  ens = await api(`/ensembles/${id}`);
  base = `/ensembles/${id}`;
  browser = await launchChromium();
  page = await watchedPage(browser, problems);
  page.on('response', (r) => { if (r.status() >= 400) problems.push(`HTTP ${r.status()} ${decodeURIComponent(r.url())}`); });
});

after(async () => {
  if (browser) await browser.close();
  if (daemon) await daemon.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// The drawn nodes: key -> {fill, stroke, height, stops: [colours], lines: [y]}.
const drawnNodes = () => page.$$eval('.es-node', (gs) => Object.fromEntries(gs.map((g) => {
  const bar = g.querySelector('.es-bar');
  const fill = bar.getAttribute('fill');
  const grad = /^url\(#(.+)\)$/.exec(fill);
  const stops = grad ? [...document.getElementById(grad[1]).querySelectorAll('stop')]
    .map((s) => [Number(s.getAttribute('offset')), s.getAttribute('stop-color')]) : [];
  return [g.dataset.key, { fill, stroke: bar.getAttribute('stroke'), height: Number(bar.getAttribute('height')), stops,
    lines: [...g.querySelectorAll('.es-target-line')].map((l) => Number(l.getAttribute('y1'))) }];
})));

test('the ensemble Sankey: a bar per node with its gradient and border', async () => {
  await page.goto(`${daemon.url}/#/ensembles/${ens.id}`);
  await page.locator('.es-node').first().waitFor();
  const g = await api(`${base}/supergraph?bins=${BINS}`);
  assert.equal(await page.locator('.es-node').count(), g.nodes.length);
  assert.equal(await page.locator('.es-link').count(), g.edges.length);
  const drawn = await drawnNodes();
  const counts = g.nodes.flatMap((n) => n.gradient.inclusive.counts);
  const [lo, hi] = [Math.min(...counts), Math.max(...counts)];
  for (const n of g.nodes) {
    const d = drawn[n.key];
    assert.ok(d, `node ${n.id} drawn`);
    assert.equal(d.stops.length, BINS, `${n.id}: one stop per bin`);
    d.stops.forEach(([offset], i) => assert.ok(Math.abs(offset - (i + 0.5) / BINS) < 1e-9));
    assert.match(d.stroke, /^rgb/, `${n.id} has a border colour`);
  }
  // one colour domain over every node: a count has one colour wherever it is
  const colourOf = new Map();
  for (const n of g.nodes) {
    n.gradient.inclusive.counts.forEach((c, i) => {
      const col = drawn[n.key].stops[i][1];
      if (!colourOf.has(c)) colourOf.set(c, col);
      assert.equal(col, colourOf.get(c), `count ${c} in ${n.id}`);
    });
  }
  if (hi > lo) assert.notEqual(colourOf.get(hi), colourOf.get(lo));
  const legend = await page.locator('.es-legend-fill').textContent();
  assert.match(legend, new RegExp(`\\)\\s*${lo}\\s*${hi}\\s*$`), `the fill legend spans ${lo}..${hi}: ${legend}`);
  // heights: inc_max, one scale
  const [a, b] = [...g.nodes].sort((x, y) => y.inc_max - x.inc_max);
  if (b && b.inc_max > 0 && drawn[b.key].height > 2) {
    assert.ok(Math.abs(drawn[a.key].height / drawn[b.key].height - a.inc_max / b.inc_max) < 0.05 * (a.inc_max / b.inc_max) + 0.5);
  }
  assert.deepEqual(await overflowingElements(page, '.es-chart, .es-jux-one, .table-wrap'), []);
  await shot('ensemble-sankey');
});

test('a target draws one green line per node present in it, at its bin', async () => {
  const target = ens.members[1].trace_id;
  await page.selectOption('#es-target', String(target));
  await page.locator('.es-target-line').first().waitFor({ state: 'attached' });
  assert.equal(hashParams().get('target'), String(target));
  const g = await api(`${base}/supergraph?bins=${BINS}&target=${target}`);
  const present = g.nodes.filter((n) => n.gradient.inclusive.run_bin[target] != null);
  assert.equal(await page.locator('.es-target-line').count(), present.length);
  const drawn = await drawnNodes();
  for (const n of present) {
    const d = drawn[n.key];
    assert.equal(d.lines.length, 1);
    assert.ok(Math.abs(d.lines[0] - ((n.gradient.inclusive.run_bin[target] + 0.5) * d.height) / BINS) < 0.01, n.id);
  }
  assert.ok(await page.locator('.es-target-link').count() > 0, 'target edges in green');
  await shot('ensemble-sankey-target');
});

test('a text guide bin restricts every view to its runs; Back restores', async () => {
  const target = ens.members[1].trace_id;
  const g = await api(`${base}/supergraph?bins=${BINS}&target=${target}`);
  // the node whose fullest non-empty bin holds fewest runs (a real subset)
  const n = g.nodes.find((x) => x.gradient.inclusive.bin_runs.some((r) => r.length > 0 && r.length < ens.members.length));
  assert.ok(n, 'a node with runs spread over bins');
  const bin = n.gradient.inclusive.bin_runs.findIndex((r) => r.length > 0 && r.length < ens.members.length);
  const runs = n.gradient.inclusive.bin_runs[bin];
  await page.click(`.es-node[data-key="${n.key}"]`); // selects it for the panels
  assert.equal(hashParams().get('node'), n.key);
  await page.focus(`.es-node[data-key="${n.key}"]`);
  await page.locator(`.es-guide-bin[data-bin="${bin}"]`).waitFor();
  assert.match(await page.locator('.es-guide').textContent(), /min .*max /s);
  const seen = [];
  const onRequest = (r) => { if (r.url().includes('/api/v1/ensembles/')) seen.push(decodeURIComponent(r.url())); };
  page.on('request', onRequest);
  await shot('ensemble-sankey-guide');
  await page.click(`.es-guide-bin[data-bin="${bin}"]`);
  await page.waitForFunction((k) => document.querySelector('#es-subset')?.textContent.startsWith(`${k} of`), runs.length);
  assert.equal(hashParams().get('runs'), runs.join(','));
  assert.match(await page.locator('#es-subset').textContent(), new RegExp(`^${runs.length} of ${ens.members.length} runs`));
  await page.waitForFunction((k) => document.querySelector('.es-status')?.textContent.includes(`${k} of`), runs.length);
  const withRuns = seen.filter((u) => u.includes(`runs=${runs.join(',')}`));
  assert.ok(withRuns.some((u) => u.includes('/supergraph?')), `the Sankey refetched with runs=: ${seen}`);
  // every detail panel that is available refetched with runs= too
  await page.waitForTimeout(800);
  const panels = await page.$$eval('.es-detail', (ps) => ps.map((p) => ({ name: p.dataset.panel, off: !!p.querySelector('.es-not-available') })));
  if (panels.some((p) => !p.off)) {
    const others = seen.filter((u) => u.includes(`runs=${runs.join(',')}`) && !u.includes('/supergraph?'));
    assert.ok(others.length > 0, `the panels ${JSON.stringify(panels)} refetched with runs=: ${seen}`);
  }
  page.off('request', onRequest);
  assert.equal(await page.locator('.es-node').count(), (await api(`${base}/supergraph?bins=${BINS}&runs=${runs.join(',')}`)).nodes.length);
  await shot('ensemble-sankey-subset');
  // Back applies the URL to the page on screen: the members table is not drawn again
  await page.evaluate(() => { document.querySelector('.page').dataset.marked = 'yes'; });
  await page.goBack();
  await page.waitForFunction(() => !document.querySelector('#es-subset') && document.querySelector('.es-node'));
  assert.equal(hashParams().get('runs'), null);
  assert.equal(hashParams().get('target'), String(target));
  await page.waitForFunction((k) => document.querySelector('.es-status')?.textContent.includes(`${k} of ${k} runs`), ens.members.length);
  assert.equal(await page.evaluate(() => document.querySelector('.page')?.dataset.marked), 'yes', 'the page was drawn again');
});

test('a call site clicked in the icicle is revealed in the Sankey, then joined again', async () => {
  await page.goto(`${daemon.url}/#/ensembles/${ens.id}`);
  await page.locator('.es-node').first().waitFor();
  const g = await api(`${base}/supergraph?bins=${BINS}`);
  const n = g.nodes.filter((x) => x.level > 0).sort((a, b) => b.functions - a.functions)[0];
  const hier = await api(`${base}/nodes/${n.key}/hierarchy?bins=${BINS}`);
  const site = hier.nodes[0];
  await page.click(`.es-node[data-key="${n.key}"]`);
  const bar = page.locator(`.ed-icicle-bar[data-path="${site.path}"]`);
  await bar.waitFor();
  await bar.click();
  await page.waitForFunction(() => new URLSearchParams(location.hash.split('?')[1] || '').get('reveal'));
  const params = hashParams();
  assert.equal(params.get('reveal'), n.id);
  assert.equal(params.get('callsite'), site.name);
  // the server's graph split by call site has the part, and it is the selected node
  const split = await api(`${base}/supergraph?bins=${BINS}&split=${encodeURIComponent(JSON.stringify([{ id: n.id, by: 'callsite' }]))}`);
  const part = split.nodes.find((x) => x.kind === 'split' && x.name === site.name && x.id.startsWith(`${n.id}=`));
  assert.ok(part, `the split graph has ${site.name}`);
  assert.equal(params.get('node'), part.key);
  await page.waitForFunction((k) => document.querySelector(`.es-node.selected[data-key="${k}"]`), part.key);
  assert.equal(await page.locator('.es-node').count(), split.nodes.length);
  // the panels follow the split graph: the icicle is the part's
  await page.locator('.ed-icicle-bar').first().waitFor();
  await shot('ensemble-sankey-reveal');
  await page.click('.es-unreveal');
  await page.waitForFunction(() => !new URLSearchParams(location.hash.split('?')[1] || '').get('reveal'));
  assert.equal(hashParams().get('node'), n.key);
  await page.waitForFunction((k) => document.querySelector(`.es-node.selected[data-key="${k}"]`), n.key);
  assert.equal(await page.locator('.es-node').count(), g.nodes.length);
});

test('diff mode colours nodes on a scale symmetric about 0', async () => {
  const [baseline, comparison] = [ens.members[0].trace_id, ens.members[ens.members.length - 1].trace_id];
  await page.selectOption('#es-target', String(baseline));
  await page.selectOption('#es-comparison', String(comparison));
  await page.locator('.es-legend-diff').waitFor();
  assert.equal(hashParams().get('comparison'), String(comparison));
  assert.match(await page.locator('#es-mode').textContent(), /diff/);
  const d = await api(`${base}/diff?baseline=${baseline}&comparison=${comparison}&value=inc`);
  assert.equal(d.domain[0], -d.domain[1]);
  const legend = await page.locator('.es-legend-diff').textContent();
  assert.match(legend, /red = comparison slower/);
  const ends = /-([\d.]+ [µm]?s)\s*\+([\d.]+ [µm]?s)/.exec(legend.replace(/.*slower/, ''));
  assert.ok(ends && ends[1] === ends[2], `symmetric legend: ${legend}`);
  const drawn = await drawnNodes();
  const extreme = d.nodes.filter((n) => n.delta != null).sort((a, b) => Math.abs(b.delta) - Math.abs(a.delta))[0];
  assert.equal(drawn[extreme.key].fill, extreme.delta < 0 ? 'rgb(185, 28, 28)' : 'rgb(21, 128, 61)',
    `${extreme.name} (delta ${extreme.delta}) at the end of the scale`);
  const zero = d.nodes.find((n) => n.delta === 0);
  if (zero) assert.equal(drawn[zero.key].fill, 'rgb(248, 250, 252)');
  await shot('ensemble-sankey-diff');
});

test('the juxtaposed super graphs share one height scale', async () => {
  await page.evaluate(() => document.querySelector('section[aria-label="Juxtaposed super graphs"]').scrollIntoView());
  await page.waitForFunction(() => document.querySelectorAll('.es-jux-svg').length === 2);
  const kys = await page.$$eval('.es-jux-svg', (ss) => ss.map((s) => Number(s.dataset.ky)));
  assert.equal(kys[0], kys[1]);
  const g = await api(`${base}/supergraph?bins=${BINS}`);
  const root = g.nodes.find((n) => n.level === 0);
  const shown = await page.$$eval('.es-jux-one', (os) => os.map((o) => Number(o.dataset.traceId)));
  const heights = await page.$$eval('.es-jux-one', (os, id) => os.map((o) =>
    Number(o.querySelector(`.sg-node[data-id="${CSS.escape(id)}"] .sg-bar`).getAttribute('height'))), root.id);
  shown.forEach((id, i) => {
    const k = g.runs.findIndex((r) => r.trace_id === id);
    assert.ok(Math.abs(heights[i] - root.inclusive.runs[k] * kys[0]) < 0.01, `root of ${id}: ${heights[i]}`);
  });
  assert.deepEqual(await overflowingElements(page, '.es-chart, .es-jux-one, .table-wrap'), []);
  await shot('ensemble-sankey-juxtaposed');
});

test('clicking a run in the projection sets the target, shift-click the comparison', async () => {
  const [a, b] = [ens.members[1].trace_id, ens.members[2].trace_id];
  await page.locator(`.projection-plot circle[data-trace-id="${a}"]`).waitFor();
  await page.click(`.projection-plot circle[data-trace-id="${a}"]`);
  await page.waitForFunction((id) => document.querySelector('#es-target').value === String(id), a);
  assert.equal(hashParams().get('target'), String(a));
  await page.click(`.projection-plot circle[data-trace-id="${b}"]`, { modifiers: ['Shift'] });
  await page.waitForFunction((id) => document.querySelector('#es-comparison').value === String(id), b);
  assert.equal(await page.locator('.projection-plot circle.proj-target').getAttribute('data-trace-id'), String(a));
  assert.equal(await page.locator('.projection-plot circle.proj-comparison').getAttribute('data-trace-id'), String(b));
  // text stays readable: no font under 11 px in the ensemble views
  const small = await page.$$eval('.es-panel text, .es-panel span, .es-panel button, .es-modebar label', (els) =>
    els.filter((e) => e.getBoundingClientRect().width > 0 && parseFloat(getComputedStyle(e).fontSize) < 11)
      .slice(0, 5).map((e) => `${e.tagName}.${e.className.baseVal ?? e.className} ${getComputedStyle(e).fontSize}`));
  assert.deepEqual(small, []);
  const missing = await page.locator('.es-not-available').count();
  const left = problems.filter((p) => !(missing > 0 && /Failed to load resource.*404/.test(p)));
  assert.deepEqual(left, []);
});
