// gantt_rows.test.mjs: the Gantt's rows and screen use on real runs of
// ../shared/data (skipped when absent), in headless Chromium at 1366x768
// and 1920x1080:
//   - the 4-rank StarPU-MPI run: rows labelled "n<node> CPU0" under one
//     header per node; collapsing a node puts collapsed=<node> in the URL,
//     survives a reload and Back expands it again;
//   - every text of the Gantt, its panels and the comparison is at least
//     11 px, nothing overflows the viewport horizontally, the page uses the
//     width of a 1920 px screen;
//   - the mark labels (makespan, ABE, CPE) overlap neither each other nor
//     another mark's line, and a mark outside the window is named under the
//     plot, not over the tasks;
//   - the comparison of runs of different shapes: each chart keeps its own
//     trace's rows, and the colour mapping lives in the URL.
// Screenshots go to tests/browser/screenshots/ (rows-*.png).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../lib/browser.mjs';
import { startDaemon, runCli, sharedData } from '../lib/daemon.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const shots = join(here, 'screenshots');
const dataDir = process.env.ARIADNE_SHARED_DATA || sharedData;
const MPI = join(dataDir, 'starpu', 'mpi_chol_dmdas_4ranks_N11520_nb24_slowrank1_nice2');
const CHOL = join(dataDir, 'starpu', 'chol_implicit_dmdas_N11520_nb24');
const LU = join(dataDir, 'starvz', 'inst', 'extdata', 'lu_trace');
const have = existsSync(MPI) && existsSync(CHOL) && existsSync(LU);
const SIZES = [{ width: 1366, height: 768 }, { width: 1920, height: 1080 }];

let daemon, browser, page;
let mpi, chol, lu;
const problems = [];

function importTrace(path) {
  const r = runCli(['import', '--db', daemon.db, path]);
  assert.equal(r.status, 0, `import ${path} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n')[0]);
}

before(async () => {
  if (!have) return;
  mkdirSync(shots, { recursive: true });
  daemon = await startDaemon();
  mpi = importTrace(MPI);
  chol = importTrace(CHOL);
  lu = importTrace(LU);
  browser = await launchChromium();
  page = await browser.newPage({ viewport: SIZES[0] });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console error: ${m.text()}`); });
});

after(async () => {
  if (browser) await browser.close();
  if (daemon) await daemon.stop();
});

async function apiGet(path) {
  const r = await fetch(`${daemon.url}/api/v1${path}`);
  assert.equal(r.status, 200, path);
  return r.json();
}

// Waits until every Gantt chart on the page has drawn and stopped loading.
async function chartsReady(n = 1) {
  await page.waitForFunction((k) => {
    const cs = [...document.querySelectorAll('.gantt-chart')];
    return cs.length >= k && cs.every((c) => c.dataset.rows !== undefined && !c.classList.contains('is-loading')
      && c.querySelector('g.marks'));
  }, n);
  await page.waitForTimeout(300);
}

const rowLabels = (scope = '') => page.locator(`${scope} .gantt-chart text.row-label`)
  .evaluateAll((els) => els.map((e) => e.childNodes[0].textContent));

// Texts (SVG and the node buttons) smaller than 11 px, and how far the page
// overflows the viewport horizontally.
async function legibility(selector) {
  return page.evaluate((sel) => {
    const small = [];
    for (const e of document.querySelectorAll(sel)) {
      if (!e.textContent.trim() || e.closest('[visibility="hidden"]') || e.getAttribute('visibility') === 'hidden') continue;
      const r = e.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      const px = parseFloat(getComputedStyle(e).fontSize);
      if (px < 11) small.push(`${e.textContent.trim().slice(0, 30)}: ${px}px`);
    }
    const doc = document.scrollingElement;
    return { small, overflow: doc.scrollWidth - window.innerWidth, main: document.querySelector('.app-main').getBoundingClientRect().width };
  }, selector);
}

function rectsOverlap(a, b) {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

// The mark labels and lines of the first chart on the page.
async function markGeometry() {
  return page.evaluate(() => {
    const c = document.querySelector('.gantt-chart');
    const box = (e) => { const r = e.getBoundingClientRect(); return { x: r.x, y: r.y, width: r.width, height: r.height }; };
    return {
      labels: [...c.querySelectorAll('g.mark-label')].map((g) => ({ key: g.dataset.mark, ...box(g.querySelector('rect')) })),
      lines: [...c.querySelectorAll('g.mark[visibility="visible"] line')].map((l) => ({ key: l.closest('g.mark').dataset.mark, ...box(l) })),
      hints: [...c.querySelectorAll('text.mark-offscreen')].map((t) => ({ text: t.textContent, ...box(t) })),
      canvas: box(c.querySelector('canvas')),
    };
  });
}

test('the rows of the 4-rank MPI run are labelled by node and worker, a node collapses, the URL keeps it', async (t) => {
  if (!have) return t.skip('../shared/data is absent');
  await page.setViewportSize(SIZES[0]);
  await page.goto(`${daemon.url}/#/traces/${mpi.id}/gantt`);
  await chartsReady();
  assert.deepEqual(await rowLabels(), ['n0 CPU0', 'n1 CPU0', 'n2 CPU0', 'n3 CPU0']);
  const toggles = page.locator('.gantt-node-toggle');
  assert.equal(await toggles.count(), 4);
  assert.deepEqual(await toggles.evaluateAll((els) => els.map((e) => e.textContent.trim())),
    ['▾ node 0', '▾ node 1', '▾ node 2', '▾ node 3']);
  // the node headers do not overlap each other
  const boxes = await toggles.evaluateAll((els) => els.map((e) => { const r = e.getBoundingClientRect(); return { x: r.x, y: r.y, width: r.width, height: r.height }; }));
  for (let i = 1; i < boxes.length; i++) assert.ok(!rectsOverlap(boxes[i - 1], boxes[i]), `headers ${i - 1} and ${i} overlap`);
  await page.screenshot({ path: join(shots, 'rows-mpi-gantt.png'), fullPage: true });

  await page.getByRole('button', { name: 'node 1' }).click();
  await page.waitForFunction(() => /[?&]collapsed=1(&|$)/.test(location.hash));
  assert.deepEqual(await rowLabels(), ['n0 CPU0', 'n2 CPU0', 'n3 CPU0']);
  assert.equal(await page.locator('.gantt-node-toggle[data-node="1"]').getAttribute('aria-expanded'), 'false');
  await page.reload();
  await chartsReady();
  assert.deepEqual(await rowLabels(), ['n0 CPU0', 'n2 CPU0', 'n3 CPU0'], 'a reload keeps node 1 collapsed');
  await page.screenshot({ path: join(shots, 'rows-mpi-collapsed.png'), fullPage: true });
  await page.goBack();
  await page.waitForFunction(() => !/[?&]collapsed=/.test(location.hash));
  await chartsReady();
  assert.deepEqual(await rowLabels(), ['n0 CPU0', 'n1 CPU0', 'n2 CPU0', 'n3 CPU0'], 'Back expands node 1 again');
});

test('mark labels overlap neither each other nor the other lines; marks outside the window go under the plot', async (t) => {
  if (!have) return t.skip('../shared/data is absent');
  for (const id of [mpi.id, chol.id, lu.id]) {
    await page.goto(`${daemon.url}/#/traces/${id}/gantt`);
    await chartsReady();
    const g = await markGeometry();
    assert.equal(g.labels.length, 3, 'makespan, ABE and CPE are in the whole window');
    for (let i = 0; i < g.labels.length; i++) {
      for (let j = i + 1; j < g.labels.length; j++) {
        assert.ok(!rectsOverlap(g.labels[i], g.labels[j]), `trace ${id}: labels ${g.labels[i].key} and ${g.labels[j].key} overlap`);
      }
      for (const l of g.lines) {
        if (l.key === g.labels[i].key) continue;
        assert.ok(!rectsOverlap({ ...l, width: Math.max(1, l.width) }, g.labels[i]),
          `trace ${id}: the ${l.key} line crosses the ${g.labels[i].key} label`);
      }
    }
  }
  // a window before the bounds: the marks are named under the plot, not over it
  const b = await apiGet(`/traces/${mpi.id}/bounds`);
  await page.goto(`${daemon.url}/#/traces/${mpi.id}/gantt?start=0&end=${b.cpe / 2}`);
  await chartsReady();
  const g = await markGeometry();
  assert.equal(g.labels.length, 0);
  assert.ok(g.hints.length >= 1 && /Makespan/.test(g.hints.map((h) => h.text).join(' ')));
  for (const h of g.hints) assert.ok(h.y >= g.canvas.y + g.canvas.height, `hint "${h.text}" is under the plot`);
  await page.screenshot({ path: join(shots, 'rows-marks-offscreen.png'), fullPage: true });
});

test('labels are at least 11 px and nothing overflows, at 1366x768 and 1920x1080', async (t) => {
  if (!have) return t.skip('../shared/data is absent');
  for (const size of SIZES) {
    await page.setViewportSize(size);
    for (const id of [lu.id, mpi.id]) {
      await page.goto(`${daemon.url}/#/traces/${id}/gantt`);
      await chartsReady();
      await page.waitForSelector('.time-panels-svg text');
      const l = await legibility('.gantt-view svg text, .gantt-node-toggle');
      assert.deepEqual(l.small, [], `trace ${id} at ${size.width}: texts under 11 px`);
      assert.ok(l.overflow <= 0, `trace ${id} at ${size.width}: the page overflows by ${l.overflow}px`);
      assert.ok(l.main >= size.width - 40, `the page uses the width (${l.main}px of ${size.width})`);
    }
    await page.screenshot({ path: join(shots, `rows-gantt-${size.width}.png`), fullPage: true });
    await page.goto(`${daemon.url}/#/compare?traces=${lu.id},${chol.id},${mpi.id}`);
    await chartsReady(3);
    const l = await legibility('.compare-cell svg text, .gantt-node-toggle');
    assert.deepEqual(l.small, [], `compare at ${size.width}: texts under 11 px`);
    assert.ok(l.overflow <= 0, `compare at ${size.width}: the page overflows by ${l.overflow}px`);
    const widths = await page.locator('.compare-cell canvas').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().width));
    for (const w of widths) assert.ok(w >= size.width * 0.6, `a compared chart is ${w}px wide at ${size.width}`);
    await page.screenshot({ path: join(shots, `rows-compare-${size.width}.png`), fullPage: true });
  }
  await page.setViewportSize(SIZES[0]);
});

test('compared traces of different shapes keep their own rows; a type maps to another colour in the URL', async (t) => {
  if (!have) return t.skip('../shared/data is absent');
  await page.goto(`${daemon.url}/#/compare?traces=${lu.id},${chol.id},${mpi.id}`);
  await chartsReady(3);
  const rows = await page.locator('.compare-cell .gantt-chart').evaluateAll((els) => els.map((e) => e.dataset.rows.split(',')));
  const own = [];
  for (const id of [lu.id, chol.id, mpi.id]) own.push((await apiGet(`/traces/${id}/gantt?width=100`)).rows.length);
  assert.deepEqual(rows.map((r) => r.length), own, 'each chart has its own trace\'s rows');
  assert.deepEqual(await rowLabels('.compare-cell:nth-child(3)'), ['n0 CPU0', 'n1 CPU0', 'n2 CPU0', 'n3 CPU0']);
  assert.deepEqual(await rowLabels('.compare-cell:nth-child(2)'), ['CPU0', 'CPU1']);
  // dplrnt drawn in dgemm's colour
  await page.locator('details.compare-colors summary').click();
  const swatch = () => page.locator('.compare-table .legend-item', { hasText: /^dplrnt$/ }).locator('.swatch')
    .evaluate((e) => getComputedStyle(e).backgroundColor);
  const gemm = await page.locator('.compare-table .legend-item', { hasText: /^dgemm$/ }).locator('.swatch')
    .evaluate((e) => getComputedStyle(e).backgroundColor);
  assert.notEqual(await swatch(), gemm);
  await page.getByLabel('Colour of dplrnt').selectOption('dgemm');
  await page.waitForFunction(() => /[?&]same=dplrnt%3Adgemm/.test(location.hash));
  assert.equal(await swatch(), gemm);
  await page.reload();
  await chartsReady(3);
  assert.equal(await page.getByLabel('Colour of dplrnt').inputValue(), 'dgemm', 'the mapping survives a reload');
  assert.equal(await swatch(), gemm);
  await page.screenshot({ path: join(shots, 'rows-compare-mapped.png'), fullPage: true });
  assert.deepEqual(problems, []);
});

if (!have) test('real runs', (t) => t.skip('../shared/data is absent'));
