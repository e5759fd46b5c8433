// events.test.mjs: the views of an event trace (issue 19) on Pipit's
// ping-pong OTF2 trace (two ranks, 8 messages each way, 4177920 bytes),
// at 1366x768 in headless Chromium against a live ariadned:
//   - Timeline (views/timeline.js with lib/timeline_messages.js): the
//     messages are drawn as lines; a shift+drag zooms onto one message, whose
//     line then spans the plot and whose tooltip names sender, receiver, bytes;
//   - Communication (views/events_comm.js): the matrix cells hold 4177920
//     bytes each way, 8 messages after the switch to counts;
//   - Functions (views/events_functions.js): a click on MPI_Send in the flat
//     profile highlights it there, in the time profile and in the Timeline
//     (lib/function_focus.js, kept in the URL as fn=);
//   - the Aggregation, Super graph and Call sites tabs open without an error;
//   - Super graph (views/supergraph.js): the nodes have their function's
//     colour (MPI_Send the blue of the other views), a click on a node
//     highlights its function everywhere (fn= in the URL, the Timeline);
//   - the Timeline's first tick label keeps clear of the axis title
//     "time (ns)" when the window starts off a round number.
// Screenshots go to tests/browser/screenshots/events_*.png. Skips without
// the shared data or when this build has no OTF2 reader.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium, watchedPage } from '../lib/browser.mjs';
import { startDaemon, runCli, sharedData } from '../lib/daemon.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const shots = join(here, 'screenshots');
const dataDir = process.env.ARIADNE_SHARED_DATA || sharedData;
const PING_PONG = join(dataDir, 'pipit', 'pipit', 'tests', 'data', 'ping-pong-otf2');
const noData = existsSync(join(PING_PONG, 'traces.otf2')) ? false : `no ${PING_PONG}`;
let skip = noData; // or, once the daemon is up: this build reads no OTF2

// Pipit's otf2-tests.py: 4177920 bytes and 8 messages each way.
const BYTES_EACH_WAY = 4177920;
const MESSAGES_EACH_WAY = 8;

let daemon, browser, page, id;
const problems = [];

before(async () => {
  if (skip) return;
  mkdirSync(shots, { recursive: true });
  daemon = await startDaemon();
  const r = runCli(['import', '--db', daemon.db, '--name', 'ping-pong-otf2', PING_PONG]);
  // skip only when the build has no OTF2 reader at all (the error lists the formats it reads)
  const reads = /ariadne reads ([^(.]*)/.exec(r.stderr);
  if (r.status !== 0 && reads && !/\botf2\b/.test(reads[1])) {
    skip = `this build reads no OTF2: ${r.stderr.trim().split('\n').pop().slice(0, 200)}`;
    return;
  }
  assert.equal(r.status, 0, `import ${PING_PONG}: ${r.stderr}`);
  id = JSON.parse(r.stdout.trim().split('\n')[0]).id;
  browser = await launchChromium();
  page = await watchedPage(browser, problems);
});

after(async () => {
  if (browser) await browser.close();
  if (daemon) await daemon.stop();
});

const api = async (path) => {
  const r = await fetch(`${daemon.url}/api/v1/traces/${id}${path}`);
  assert.equal(r.status, 200, `${path}: ${await r.clone().text()}`);
  return r.json();
};

// The page coordinates of a message line's two ends (its SVG group is
// translated; the bounding box of a line has the segment's midpoint).
async function lineEnds(line) {
  const [x1, y1, x2, y2] = await Promise.all(['x1', 'y1', 'x2', 'y2'].map((a) => line.getAttribute(a).then(Number)));
  const b = await line.boundingBox();
  const dx = b.x + b.width / 2 - (x1 + x2) / 2, dy = b.y + b.height / 2 - (y1 + y2) / 2;
  return { x1: x1 + dx, y1: y1 + dy, x2: x2 + dx, y2: y2 + dy };
}

test('Timeline: messages as lines, zoom onto one message, its tooltip', { skip: noData }, async (t) => {
  if (skip) return t.skip(skip);
  const whole = await api('/timeline?width=1000');
  assert.ok(whole.messages_total >= 2 * MESSAGES_EACH_WAY, `messages_total ${whole.messages_total}`);
  await page.goto(`${daemon.url}/#/traces/${id}/timeline`);
  const chart = page.locator('.timeline-chart');
  await page.waitForFunction(() => Number(document.querySelector('.timeline-chart')?.dataset.messages) > 0);
  assert.equal(Number(await chart.getAttribute('data-rows')), whole.rows.length);
  assert.equal(Number(await chart.getAttribute('data-messages')), whole.messages.length, 'one line per message of the answer');
  await page.screenshot({ path: join(shots, 'events_timeline.png'), fullPage: true });

  // shift+drag from just before the first message's send to just after its
  // receive, again until that message's line spans most of the plot (the
  // ping-pong's messages take 0.01% of the trace: two or three drags)
  const line = page.locator('.timeline-messages line.msg-line').first();
  let ends = await lineEnds(line);
  for (let i = 0; i < 5 && Math.abs(ends.x2 - ends.x1) < 300; i++) {
    const y = (ends.y1 + ends.y2) / 2, len = Math.abs(ends.x2 - ends.x1);
    const a = Math.min(ends.x1, ends.x2) - Math.max(3, len * 0.1), b = Math.max(ends.x1, ends.x2) + Math.max(3, len * 0.1);
    const before = page.url();
    await page.keyboard.down('Shift');
    await page.mouse.move(a, y);
    await page.mouse.down();
    await page.mouse.move((a + b) / 2, y, { steps: 3 });
    await page.mouse.move(b, y, { steps: 3 });
    await page.mouse.up();
    await page.keyboard.up('Shift');
    await page.waitForURL((u) => u.href !== before && /start=.*end=/.test(u.hash));
    const hp = new URLSearchParams(page.url().split('?')[1]);
    await page.waitForFunction((s) => Math.abs(Number(document.querySelector('.timeline-chart')?.dataset.start) - s) <= 1e-8 * Math.abs(s) + 1e-3,
      Number(hp.get('start'))); // the URL keeps 10 digits
    await page.waitForTimeout(500); // the debounced fetch of the window
    ends = await lineEnds(line);
  }
  const hp = new URLSearchParams(page.url().split('?')[1]);
  const start = Number(hp.get('start')), end = Number(hp.get('end'));
  assert.ok(end - start < (whole.end - whole.start) / 1000, `zoomed window ${start}-${end}`);
  assert.ok(Math.abs(ends.x2 - ends.x1) > 300, `the zoomed message spans ${Math.abs(ends.x2 - ends.x1)} px`);
  // the window's answer holds that message, single
  const win = await api(`/timeline?start=${start}&end=${end}&width=1000`);
  const single = win.messages.filter((m) => (m.count || 1) === 1);
  assert.ok(single.length >= 1, 'a single message in the zoomed window');
  const msg = single[0];
  const detail = (await api(`/messages?start=${Math.floor(msg.send) - 1}&end=${Math.ceil(msg.send) + 1}`)).messages
    .find((m) => Math.abs(m.send_time - msg.send) <= 1);
  assert.ok(detail, 'the message in /messages');
  await page.mouse.move((ends.x1 + ends.x2) / 2, (ends.y1 + ends.y2) / 2);
  const tip = page.locator('.timeline-chart .gantt-tooltip.msg-tooltip');
  await tip.waitFor({ state: 'visible' });
  await page.waitForFunction(() => !/…/.test(document.querySelector('.msg-tooltip')?.innerText || '…')); // tag looked up
  const text = await tip.innerText();
  for (const w of ['Sender', 'Receiver', 'Bytes', 'Tag', 'Send', 'Receive', 'Duration']) assert.match(text, new RegExp(w));
  assert.match(text, new RegExp(`${msg.bytes.toLocaleString('en-US')} B`), `bytes ${msg.bytes}`);
  assert.match(text, new RegExp(`Tag\\s*${detail.tag}\\b`), `tag ${detail.tag}`);
  assert.match(text, /Process|rank|P\d/i);
  await page.screenshot({ path: join(shots, 'events_timeline_message.png'), fullPage: true });
  // a click on a state (the sender's row, left of the line) focuses its
  // function (legend and URL follow); a second click clears the focus
  const cb = await chart.boundingBox();
  await page.mouse.click(cb.x + 214, ends.y1);
  await page.waitForFunction(() => document.querySelector('.timeline-chart')?.dataset.focus);
  const focused = await chart.getAttribute('data-focus');
  await page.waitForURL((u) => u.hash.includes(`fn=${encodeURIComponent(focused).replace(/%20/g, '+')}`) || u.hash.includes(`fn=${encodeURIComponent(focused)}`));
  assert.equal(await page.locator('.timeline-view button.legend-fn.is-focused').innerText(), focused);
  await page.mouse.click(cb.x + 214, ends.y1);
  await page.waitForFunction(() => document.querySelector('.timeline-chart')?.dataset.focus === '');
  assert.deepEqual(problems, []);
});

test('Timeline: no tick label runs into the axis title', { skip: noData }, async (t) => {
  if (skip) return t.skip(skip);
  // a window starting just before a tick: centred, its label would cross
  // the plot's left edge into "time (ns)"
  await page.goto(`${daemon.url}/#/traces/${id}/timeline?start=12345678.9&end=12345999.1`);
  await page.waitForFunction(() => document.querySelectorAll('.axis-time .tick').length > 2
    && Number(document.querySelector('.timeline-chart')?.dataset.start) > 12345000);
  const boxes = await page.evaluate(() => ({
    unit: document.querySelector('.axis-unit').getBoundingClientRect().right,
    labels: [...document.querySelectorAll('.axis-time .tick text')].map((e) => e.getBoundingClientRect().left),
  }));
  assert.ok(boxes.labels.length >= 2, `${boxes.labels.length} tick labels`);
  for (const left of boxes.labels) assert.ok(left >= boxes.unit, `a tick label at ${left} px, the title ends at ${boxes.unit}`);
  await page.screenshot({ path: join(shots, 'events_timeline_ticks.png'), clip: { x: 0, y: 250, width: 1366, height: 300 } });
  assert.deepEqual(problems, []);
});

test('Communication: the matrix holds 4177920 bytes and 8 messages each way', { skip: noData }, async (t) => {
  if (skip) return t.skip(skip);
  await page.goto(`${daemon.url}/#/traces/${id}/communication`);
  const cell = (s, r) => page.locator(`#ev-matrix rect.ev-cell[data-sender="${s}"][data-receiver="${r}"]`);
  await cell(0, 1).waitFor();
  assert.equal(Number(await cell(0, 1).getAttribute('data-value')), BYTES_EACH_WAY);
  assert.equal(Number(await cell(1, 0).getAttribute('data-value')), BYTES_EACH_WAY);
  assert.equal(Number(await cell(0, 0).getAttribute('data-value')), 0);
  // the cell's tooltip
  await cell(0, 1).hover();
  const tip = page.locator('.ev-tooltip');
  await tip.waitFor({ state: 'visible' });
  assert.match(await tip.innerText(), /4,177,920 B/);
  await page.locator('#ev-hist .ev-col').first().waitFor();
  await page.locator('#ev-waits-table').waitFor();
  await page.screenshot({ path: join(shots, 'events_communication.png'), fullPage: true });
  await page.locator('#ev-kind-count').check();
  await page.waitForFunction(() => document.querySelector('#ev-matrix .ev-body')?.dataset.kind === 'count');
  assert.equal(Number(await cell(0, 1).getAttribute('data-value')), MESSAGES_EACH_WAY);
  assert.equal(Number(await cell(1, 0).getAttribute('data-value')), MESSAGES_EACH_WAY);
  await page.waitForURL(/kind=count/);
  assert.deepEqual(problems, []);
});

test('Functions: a click on MPI_Send highlights it in every view', { skip: noData }, async (t) => {
  if (skip) return t.skip(skip);
  await page.goto(`${daemon.url}/#/traces/${id}/functions`);
  const row = page.locator('#ev-flat-table tr[data-fn="MPI_Send"]');
  await row.waitFor();
  await page.locator('#ev-tprof path.ev-area').first().waitFor();
  await row.click();
  await page.waitForURL(/fn=MPI_Send/);
  assert.match(await row.getAttribute('class'), /is-focused/);
  assert.match(await page.locator('#ev-flat-table tr[data-fn="MPI_Recv"]').getAttribute('class'), /is-dimmed/);
  assert.match(await page.locator('#ev-tprof path.ev-area[data-fn="MPI_Send"]').getAttribute('class'), /is-focused/);
  assert.match(await page.locator('#ev-focus').innerText(), /MPI_Send/);
  await page.screenshot({ path: join(shots, 'events_functions.png'), fullPage: true });
  // the Timeline tab keeps the focus: MPI_Send drawn, the others dimmed
  await page.locator('#tab-timeline').click();
  await page.waitForFunction(() => document.querySelector('.timeline-chart')?.dataset.focus === 'MPI_Send');
  await page.waitForURL(/timeline\?.*fn=MPI_Send/);
  assert.equal(await page.locator('.timeline-view button.legend-fn.is-focused').innerText(), 'MPI_Send');
  await page.screenshot({ path: join(shots, 'events_timeline_focus.png'), fullPage: true });
  // a click on the area of another function moves the focus
  await page.goto(`${daemon.url}/#/traces/${id}/functions?fn=MPI_Send`);
  await page.locator('#ev-tprof .ev-fn-key[data-fn="MPI_Recv"]').click();
  await page.waitForURL(/fn=MPI_Recv/);
  assert.deepEqual(problems, []);
});

test('Super graph: nodes coloured by function, a click highlights it everywhere', { skip: noData }, async (t) => {
  if (skip) return t.skip(skip);
  await page.goto(`${daemon.url}/#/traces/${id}/supergraph`);
  const send = page.locator('.sg-node[data-fn="MPI_Send"]');
  await send.waitFor();
  // colors.js functionColor: MPI_Send is blue, MPI_Recv orange, as in the
  // Timeline and Functions tabs; the legend lists the functions
  assert.equal(await send.locator('.sg-bar').getAttribute('fill'), '#1f77b4');
  assert.equal(await page.locator('.sg-node[data-fn="MPI_Recv"] .sg-bar').getAttribute('fill'), '#ff7f0e');
  assert.equal(await page.locator('#sg-color').inputValue(), 'fn');
  assert.ok(await page.locator('#sg-fn-legend button.legend-fn[data-fn="MPI_Send"]').count() === 1);
  await send.click();
  await page.waitForURL(/fn=MPI_Send/);
  assert.match(await send.getAttribute('class'), /is-focused/);
  assert.match(await page.locator('.sg-node[data-fn="MPI_Recv"]').getAttribute('class'), /is-dimmed/);
  assert.match(await page.locator('#sg-fn-legend button.legend-fn[data-fn="MPI_Send"]').getAttribute('class'), /is-focused/);
  await page.screenshot({ path: join(shots, 'events_supergraph_focus.png'), fullPage: true });
  // the Timeline tab shows the same highlight
  await page.locator('#tab-timeline').click();
  await page.waitForFunction(() => document.querySelector('.timeline-chart')?.dataset.focus === 'MPI_Send');
  // a focus set elsewhere reaches the super graph; clicking the selected node again clears it
  await page.goto(`${daemon.url}/#/traces/${id}/supergraph?fn=MPI_Recv`);
  await page.locator('.sg-node[data-fn="MPI_Recv"].is-focused').waitFor();
  const recv = page.locator('.sg-node[data-fn="MPI_Recv"]');
  await recv.click();
  await page.waitForURL(/fn=MPI_Recv/);
  await recv.click();
  await page.waitForFunction(() => !document.querySelector('.sg-node.is-dimmed'));
  await page.waitForURL((u) => !/fn=/.test(u.hash));
  assert.deepEqual(problems, []);
});

test('Aggregation, Super graph and Call sites open on an event trace', { skip: noData }, async (t) => {
  if (skip) return t.skip(skip);
  for (const view of ['aggregation', 'supergraph', 'callsites']) {
    await page.goto(`${daemon.url}/#/traces/${id}/${view}`);
    await page.locator(`#tab-${view}[aria-current="page"]`).waitFor();
    await page.waitForFunction(() => { const v = document.querySelector('#view'); return v && !v.hasAttribute('aria-busy') && v.childElementCount > 0; });
    await page.waitForTimeout(300);
    const err = await page.locator('#view .alert-error').count();
    assert.equal(err, 0, `${view}: ${err ? await page.locator('#view .alert-error').first().innerText() : ''}`);
    await page.screenshot({ path: join(shots, `events_${view}.png`), fullPage: true });
  }
  // a block of the aggregation opens the Timeline over its interval
  await page.goto(`${daemon.url}/#/traces/${id}/aggregation`);
  const block = page.locator('.agg-blocks [data-agg]').first();
  await block.waitFor();
  await block.click();
  await page.waitForFunction(() => /\/timeline\?start=[-0-9.e]+&end=/.test(window.location.hash));
  await page.locator('#tab-timeline[aria-current="page"]').waitFor();
  assert.deepEqual(problems, []);
});
