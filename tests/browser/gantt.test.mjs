// gantt.test.mjs: drives the task-trace views in headless Chromium against a
// live ariadned (tests/lib/daemon.mjs): the Gantt of the StarVZ LU sample
// (or, without /work/shared/data, a generated 2-node Cholesky bundle), its
// makespan/ABE/CPE lines against GET /bounds before and after a wheel zoom,
// the zoom window in the URL after a reload, a task tooltip, the critical
// path against GET /critical-path, the ready/submitted and iteration panels,
// the Bounds tab, the comparison of two traces reached from the trace list,
// and the message for a trace without tasks. Screenshots go to
// tests/browser/screenshots/.
//
// Needs `npm ci` in tests/ (playwright-core) and in static/ (d3 into
// static/vendor/), and Debian's chromium (or $CHROMIUM).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, VIEWPORT } from '../lib/browser.mjs';
import { startDaemon, runCli, sourceDir, sharedData } from '../lib/daemon.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const shots = join(here, 'screenshots');
const dataDir = process.env.ARIADNE_SHARED_DATA || sharedData;
const luSample = join(dataDir, 'starvz', 'inst', 'extdata', 'lu_trace');
const pajeFixture = join(sourceDir, 'tests', 'fixtures', 'browser', 'two_workers.trace');


let daemon, browser, page;
let main, other, plain; // {id, name}
const problems = [];

// Imports PATH; returns the first trace it created.
function importTrace(path, name) {
  const r = runCli(['import', '--db', daemon.db, ...(name ? ['--name', name] : []), path]);
  assert.equal(r.status, 0, `import ${path} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n')[0]);
}

function generate(dir, args) {
  const r = runCli(['generate', '--out', dir, ...args]);
  assert.equal(r.status, 0, `generate failed: ${r.stderr}`);
  return dir;
}

async function apiGet(path) {
  const r = await fetch(`${daemon.url}/api/v1${path}`);
  const body = await r.json();
  assert.equal(r.status, 200, `${path}: ${JSON.stringify(body)}`);
  return body;
}

async function shot(p, name) {
  await p.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
}

before(async () => {
  mkdirSync(shots, { recursive: true });
  daemon = await startDaemon();
  main = existsSync(luSample)
    ? importTrace(luSample, 'LU sample (StarVZ)')
    : importTrace(generate(join(daemon.dir, 'chol8'), ['--tiles', '8', '--nodes', '2']), 'cholesky 8x8 (generated)');
  other = importTrace(generate(join(daemon.dir, 'chol6'), ['--tiles', '6', '--nodes', '2', '--seed', '2']),
    'cholesky 6x6 (generated)');
  const formats = (await apiGet('/version')).formats || [];
  if (formats.includes('paje')) plain = importTrace(pajeFixture, 'plain paje');
  browser = await launchChromium();
  page = await browser.newPage({ viewport: VIEWPORT });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/Failed to load resource: the server responded with a status of 409/.test(m.text())) {
      problems.push(`console error: ${m.text()}`);
    }
  });
});

after(async () => {
  if (browser) await browser.close();
  if (daemon) await daemon.stop();
});

// The chart's window and the drawn marks, read from the page: each visible
// mark's line position against the position its value has on the canvas.
async function readChart(p, scope = '.gantt-view') {
  return p.evaluate((sel) => {
    const chart = document.querySelector(`${sel} .gantt-chart`);
    const canvas = chart.querySelector('canvas.gantt-canvas').getBoundingClientRect();
    const start = Number(chart.dataset.start), end = Number(chart.dataset.end);
    const marks = {};
    for (const g of chart.querySelectorAll('g.mark')) {
      const v = Number(g.dataset.value);
      const line = g.querySelector('line').getBoundingClientRect();
      marks[g.dataset.mark] = {
        value: v, visible: g.getAttribute('visibility') !== 'hidden',
        drawnX: line.left + line.width / 2, expectedX: canvas.left + (v - start) / (end - start) * canvas.width,
      };
    }
    return { start, end, rows: chart.dataset.rows.split(','), marks, canvas: { x: canvas.left, y: canvas.top, w: canvas.width, h: canvas.height },
      rowHeight: Number(chart.querySelector('canvas').dataset.rowHeight),
      rowTops: (chart.dataset.rowTops || '').split(',').map(Number), loading: chart.classList.contains('is-loading') };
  }, scope);
}

function assertMarks(chart, bounds, { needVisible }) {
  for (const key of ['makespan', 'abe', 'cpe']) {
    const m = chart.marks[key];
    assert.ok(m, `the ${key} line is drawn`);
    assert.ok(Math.abs(m.value - bounds[key]) <= 1e-6 * Math.max(1, Math.abs(bounds[key])),
      `${key}: drawn ${m.value}, /bounds says ${bounds[key]}`);
    const inside = bounds[key] >= chart.start && bounds[key] <= chart.end;
    assert.equal(m.visible, inside, `${key} is shown exactly when it is in the window`);
    if (m.visible) assert.ok(Math.abs(m.drawnX - m.expectedX) < 1.5, `${key} line at x=${m.drawnX}, expected ${m.expectedX}`);
  }
  for (const key of needVisible) assert.equal(chart.marks[key].visible, true, `${key} is in the window`);
}

// Waits until the chart shows the window the URL names and is done loading.
async function settled(p) {
  await p.waitForFunction(() => {
    const c = document.querySelector('.gantt-view .gantt-chart');
    const q = new URLSearchParams(location.hash.split('?')[1] || '');
    return c && !c.classList.contains('is-loading') && q.get('start') !== null
      && Math.abs(Number(q.get('start')) - Number(c.dataset.start)) < 1e-6 * Math.max(1, Math.abs(Number(c.dataset.start)));
  }, null, { timeout: 10000 });
  await p.waitForTimeout(400); // the debounced request, then its drawing
}

let bounds;

test('the Gantt draws the makespan, ABE and CPE of /bounds, also after a wheel zoom', async () => {
  bounds = await apiGet(`/traces/${main.id}/bounds?by=iteration`);
  assert.ok(bounds.makespan > 0 && bounds.abe > 0 && bounds.cpe > 0, JSON.stringify(bounds));
  await page.goto(`${daemon.url}/#/traces/${main.id}/gantt`);
  await page.locator('.gantt-view .gantt-chart g.mark-makespan').waitFor();
  assert.equal(await page.locator('nav.tabs a[aria-current="page"]').textContent(), 'Gantt');
  const full = await readChart(page);
  assert.ok(full.rows.length > 0, 'rows are drawn');
  assertMarks(full, bounds, { needVisible: ['makespan', 'abe', 'cpe'] });
  assert.ok(await page.locator('.gantt-view text.idle-value').count() >= full.rows.length / 2, 'idle shares at the right');
  await page.locator('.time-panels g.iterations').waitFor();
  await page.locator('.time-panels g.series-ready').waitFor();
  await shot(page, '10-gantt');

  // zoom in around the CPE line, which stays where it is
  const mx = full.marks.cpe.drawnX;
  await page.mouse.move(mx, full.canvas.y + full.canvas.h / 2);
  await page.mouse.wheel(0, -300);
  await settled(page);
  const zoomed = await readChart(page);
  assert.ok(zoomed.end - zoomed.start < 0.8 * (full.end - full.start), `zoomed in: ${zoomed.start}..${zoomed.end}`);
  assertMarks(zoomed, bounds, { needVisible: ['cpe'] });
  const url = page.url();
  assert.match(url, /start=-?[\d.]+/);
  assert.match(url, /end=[\d.]+/);
  await shot(page, '11-gantt-zoomed');

  // the URL reopens the same window
  await page.reload();
  await page.locator('.gantt-view .gantt-chart g.mark-makespan').waitFor({ state: 'attached' });
  await page.waitForFunction(() => !document.querySelector('.gantt-chart').classList.contains('is-loading'));
  const again = await readChart(page);
  assert.ok(Math.abs(again.start - zoomed.start) < 1e-6 * Math.max(1, Math.abs(zoomed.start)), 'same start after reload');
  assert.ok(Math.abs(again.end - zoomed.end) < 1e-6 * Math.max(1, zoomed.end), 'same end after reload');
});

test('hovering a task shows its JobId, type, worker and duration', async () => {
  const c = await readChart(page);
  const g = await apiGet(`/traces/${main.id}/gantt?start=${c.start}&end=${c.end}&width=${Math.round(c.canvas.w)}`);
  let target = null;
  for (const r of g.rows) {
    const idx = c.rows.indexOf(`${r.node}|${r.resource_type}|${r.resource}`);
    if (idx < 0 || r.mode !== 'tasks') continue;
    for (const t of r.tasks) {
      const a = Math.max(t.start, c.start), b = Math.min(t.end, c.end);
      if ((b - a) / (c.end - c.start) * c.canvas.w >= 8) { target = { t, r, idx, mid: (a + b) / 2 }; break; }
    }
    if (target) break;
  }
  assert.ok(target, 'a task wide enough to hover in the window');
  const x = c.canvas.x + (target.mid - c.start) / (c.end - c.start) * c.canvas.w;
  const y = c.canvas.y + c.rowTops[target.idx] + c.rowHeight / 2; // node headers sit between the rows
  await page.mouse.move(x, y);
  const tip = page.locator('.gantt-view .gantt-chart .gantt-tooltip');
  await tip.waitFor({ state: 'visible' });
  const text = await tip.textContent();
  const type = g.types[target.t.type];
  assert.match(text, new RegExp(`JobId\\s*${target.t.job_id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  assert.match(text, new RegExp(`Type\\s*${type}`));
  assert.match(text, new RegExp(`Worker\\s*${target.r.name}`));
  const dur = target.t.end - target.t.start;
  const shown = /Duration\s*(-?[\d,.]+)/.exec(text);
  assert.ok(shown, `a duration in: ${text}`);
  assert.ok(Math.abs(Number(shown[1].replace(/,/g, '')) - dur) <= Math.max(0.06, dur * 1e-3), `duration ${shown[1]} vs ${dur}`);
  await shot(page, '12-gantt-tooltip');
  await page.mouse.move(5, 5);
  await tip.waitFor({ state: 'hidden' });
});

test('the critical path overlays the tasks and edges of /critical-path', async () => {
  await page.getByRole('button', { name: 'Whole trace' }).click();
  await page.waitForTimeout(500);
  const cp = await apiGet(`/traces/${main.id}/critical-path`);
  assert.ok(cp.tasks.length > 0);
  await page.getByRole('checkbox', { name: 'Critical path' }).check();
  const layer = page.locator('.gantt-view g.critical-path');
  await layer.waitFor();
  assert.equal(Number(await layer.getAttribute('data-tasks')), cp.tasks.length);
  assert.equal(await layer.locator('line.cp-task').count(), cp.tasks.length, 'every path task is on a shown row');
  assert.equal(await layer.locator('path.cp-edge').count(), cp.edges.length);
  await page.waitForFunction(() => /[?&]cp=1/.test(location.hash));
  assert.match(await page.locator('.cp-info').textContent(), new RegExp(`${cp.tasks.length} tasks`));
  await shot(page, '13-gantt-critical-path');
  await page.getByRole('checkbox', { name: 'Critical path' }).uncheck();
  await layer.waitFor({ state: 'detached' });
});

test('a filter narrows the Gantt and goes into the URL', async () => {
  const types = (await apiGet(`/traces/${main.id}/gantt?width=100`)).types;
  const drop = types[0];
  await page.locator('.fgroup-types label.chip', { hasText: drop }).locator('input').uncheck();
  await page.waitForFunction((t) => {
    const q = new URLSearchParams(location.hash.split('?')[1] || '');
    return q.get('types') && !q.get('types').split(',').includes(t);
  }, drop);
  const g = await apiGet(`/traces/${main.id}/gantt?width=100&types=${types.slice(1).join(',')}`);
  assert.deepEqual(g.rows.map((r) => `${r.node}|${r.resource_type}|${r.resource}`).sort(), (await readChart(page)).rows.slice().sort());
  await page.locator('.fgroup-types button', { hasText: 'All' }).click();
  await page.waitForFunction(() => !/[?&]types=/.test(location.hash));
});

test('the Bounds tab shows the bounds and the ideal vs actual allocation', async () => {
  await page.goto(`${daemon.url}/#/traces/${main.id}/bounds`);
  await page.getByRole('heading', { name: 'Task allocation: actual vs ideal (ABE)' }).waitFor();
  assert.equal(await page.locator('g.alloc-row').count(), bounds.allocation.length);
  const table = 'table[aria-label="Bounds per node and per iteration"] tbody tr';
  assert.match(await page.locator(table).first().textContent(), /Whole selection/);
  assert.equal(await page.locator(table).count(), 1 + bounds.nodes.length + bounds.iterations.length);
  assert.ok(bounds.iterations.length > 0, 'the generated trace has iterations');
  await page.getByRole('heading', { name: /^Outliers: / }).waitFor();
  await shot(page, '14-bounds');
});

test('two traces ticked in the list open with one scale, each with its own rows', async () => {
  await page.goto(`${daemon.url}/#/traces?kind=tasks`);
  await page.getByLabel(`Select ${main.name} for comparison`).check();
  await page.getByLabel(`Select ${other.name} for comparison`).check();
  await page.getByRole('button', { name: 'Compare selected (2)' }).click();
  await page.waitForFunction(() => location.hash.startsWith('#/compare?traces='));
  const cmp = await apiGet(`/compare?traces=${[main.id, other.id].join(',')}`);
  const table = page.locator('table[aria-label="Comparison"] tbody tr');
  await table.nth(1).waitFor();
  assert.equal(await table.count(), 2);
  const charts = page.locator('.compare-cell .gantt-chart');
  await page.waitForFunction(() => document.querySelectorAll('.compare-cell .gantt-chart g.mark-makespan').length === 2);
  const info = await charts.evaluateAll((els) => els.map((e) => ({ start: Number(e.dataset.start), end: Number(e.dataset.end), rows: e.dataset.rows })));
  assert.equal(info.length, 2);
  assert.equal(info[0].start, cmp.extent.start);
  assert.equal(info[0].end, cmp.extent.end);
  assert.deepEqual(info[0].start, info[1].start, 'one time scale');
  assert.deepEqual(info[0].end, info[1].end, 'one time scale');
  for (const [i, t] of [main, other].entries()) { // each chart keeps its own trace's rows (compare.js)
    const own = (await apiGet(`/traces/${t.id}/gantt?width=100`)).rows.length;
    assert.equal(info[i].rows.split(',').length, own, `${t.name}: its own ${own} rows`);
  }
  for (const t of cmp.traces) {
    const tr = page.locator(`table[aria-label="Comparison"] tbody tr[data-trace-id="${t.id}"]`);
    assert.match(await tr.textContent(), new RegExp(t.name.replace(/[()]/g, '.')));
  }
  await shot(page, '15-compare');
  // zooming one chart zooms both
  await page.locator('.compare-cell canvas').first().scrollIntoViewIfNeeded(); // the charts are stacked, full width
  const box = await page.locator('.compare-cell canvas').first().boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.wheel(0, -250);
  await page.waitForFunction(() => /[?&]start=/.test(location.hash));
  await page.waitForTimeout(500);
  const zoomed = await charts.evaluateAll((els) => els.map((e) => [Number(e.dataset.start), Number(e.dataset.end)]));
  assert.deepEqual(zoomed[0], zoomed[1]);
  assert.ok(zoomed[0][1] - zoomed[0][0] < cmp.extent.end - cmp.extent.start);
});

test('a trace without tasks explains why there is no Gantt', async (t) => {
  if (!plain) return t.skip('this server has no paje reader');
  await page.goto(`${daemon.url}/#/traces/${plain.id}/gantt`);
  await page.locator('.alert', { hasText: 'The Gantt view needs application tasks' }).waitFor(); // and how to get them (lib/errors.js)
  assert.match(await page.locator('.alert').first().textContent(), /STARPU_FXT_TRACE=1/);
  assert.equal(await page.locator('.gantt-view .gantt-chart').count(), 0);
  await shot(page, '16-gantt-no-tasks');
});

test('no uncaught errors in the pages', () => {
  assert.deepEqual(problems, []);
});
