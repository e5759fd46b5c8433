// views/datamove.js: the DMVis views of a data movement trace (thesis ch. 7):
// the event timeline (rows per track, events or groups coloured by category)
// with a brush that selects a window, and, for that window, the hardware
// topology as nested boxes coloured by utilisation or bytes moved with links
// whose width follows the bytes, the component-by-component byte matrix, the
// clock glyphs of the runs the user chose (URL `runs`, this trace by default)
// side by side (sectors normalised to the longest run) and the metric series
// sorted by variance. Times are µs from the run's start (its first event,
// summary.start, the origin every answer gives as time_origin): in the URL
// (`start`, `end`), on the axes and in the answers.
// Every colour ramp and width has a legend with its unit (lib/legend.js);
// hovers use the dashboard's tooltip (lib/tooltip.js), not SVG <title>s.
import { api } from '../api.js';
import { h, clear, modal } from '../dom.js';
import { getD3 } from '../d3.js';
import { registerView } from '../trace.js';
import { DATAMOVE, redScale } from '../colors.js';
import { formatBytes, fmtMicroseconds as fmtUs } from '../lib/format.js';
import { originNote } from '../lib/origin.js';
import { createTooltip, tipContent, d3Tip } from '../lib/tooltip.js';
import { rampLegend, widthLegend } from '../lib/legend.js';

const CATS = ['data_movement', 'gpu_compute', 'cpu_compute', 'runtime_api'];
const CAT_LABEL = { data_movement: 'Data movement', gpu_compute: 'GPU compute', cpu_compute: 'CPU compute', runtime_api: 'Runtime API' };
const CAT_COLOR = DATAMOVE.category;
const ROW_H = 18;
const LABEL_W = 150;

function legend() {
  return h('div', { class: 'dm-legend' }, ...CATS.map((c) => h('span', { class: 'dm-key' },
    h('span', { class: 'dm-swatch', style: `background:${CAT_COLOR[c]}` }), CAT_LABEL[c])));
}

// ---- timeline ---------------------------------------------------------------

function drawTimeline(d3, holder, data, win, onBrush, tip) {
  clear(holder);
  const tracks = data.tracks;
  const trackLabel = (id) => (tracks.find((t) => t.id === id) || {}).label || '';
  const width = Math.max(400, holder.clientWidth || 900);
  const height = 24 + tracks.length * ROW_H + 22 + 16;
  const row = new Map(tracks.map((t, i) => [t.id, i]));
  const x = d3.scaleLinear().domain([data.run_start, data.run_end]).range([LABEL_W, width - 10]);
  const svg = d3.select(holder).append('svg').attr('class', 'dm-timeline-svg').attr('width', width).attr('height', height);
  svg.append('g').selectAll('text').data(tracks).join('text').attr('class', 'dm-track-label')
    .attr('x', 4).attr('y', (t, i) => 24 + i * ROW_H + ROW_H * 0.7).text((t) => t.label)
    .each(function fit() { clipText(this, LABEL_W - 8); })
    .call(d3Tip, tip, (t) => tipContent(t.label, [], null, t.id !== t.label ? t.id : null));
  svg.append('g').selectAll('line').data(tracks).join('line').attr('class', 'dm-track-line')
    .attr('x1', LABEL_W).attr('x2', width - 10).attr('y1', (t, i) => 24 + (i + 1) * ROW_H).attr('y2', (t, i) => 24 + (i + 1) * ROW_H);
  const g = svg.append('g').attr('class', 'dm-events');
  if (data.mode === 'events') {
    const ranges = data.events.filter((e) => e.type === 'range');
    g.selectAll('rect').data(ranges).join('rect')
      .attr('x', (e) => x(e.start)).attr('width', (e) => Math.max(1, x(e.start + e.dur) - x(e.start)))
      .attr('y', (e) => 24 + row.get(e.track) * ROW_H + 2).attr('height', ROW_H - 4)
      .attr('fill', (e) => CAT_COLOR[e.category])
      .call(d3Tip, tip, (e) => tipContent(e.name, [['Category', CAT_LABEL[e.category]], ['Start', fmtUs(e.start)],
        ['Duration', fmtUs(e.dur)], ...(e.bytes ? [['Bytes', formatBytes(e.bytes)]] : [])], null, trackLabel(e.track)));
    g.selectAll('circle').data(data.events.filter((e) => e.type === 'point')).join('circle')
      .attr('cx', (e) => x(e.start)).attr('cy', (e) => 24 + row.get(e.track) * ROW_H + ROW_H / 2).attr('r', 3)
      .attr('fill', (e) => CAT_COLOR[e.category])
      .call(d3Tip, tip, (e) => tipContent(e.name, [['Category', CAT_LABEL[e.category]], ['At', fmtUs(e.start)]], null, trackLabel(e.track)));
  } else {
    const maxBusy = d3.max(data.groups, (q) => q.busy / (q.end - q.start)) || 1;
    g.selectAll('rect').data(data.groups).join('rect')
      .attr('x', (q) => x(q.start)).attr('width', (q) => Math.max(1, x(q.end) - x(q.start)))
      .attr('y', (q) => 24 + row.get(q.track) * ROW_H + 2).attr('height', ROW_H - 4)
      .attr('fill', (q) => CAT_COLOR[q.category]).attr('opacity', (q) => 0.25 + 0.75 * Math.min(1, q.busy / (q.end - q.start) / maxBusy))
      .call(d3Tip, tip, (q) => tipContent(`${q.count} events (grouped)`, [['Category', CAT_LABEL[q.category]],
        ['Interval', `${fmtUs(q.start)} – ${fmtUs(q.end)}`], ['Busy', `${fmtUs(q.busy)} (${(100 * q.busy / (q.end - q.start)).toFixed(0)} %)`]],
      'Brush a narrower window to see the events', trackLabel(q.track)));
  }
  svg.append('g').attr('transform', `translate(0,${height - 36})`)
    .call(d3.axisBottom(d3.scaleLinear().domain([data.run_start, data.run_end]).range([LABEL_W, width - 10]))
      .ticks(8).tickFormat((v) => fmtUs(v)));
  // the axis label: where time 0 lies in the file
  svg.append('text').attr('class', 'dm-note origin-note').attr('x', LABEL_W).attr('y', height - 3)
    .text(`time: ${originNote({ kind: 'datamove', time_origin: data.time_origin, time_unit: 'us' })}`);
  const brush = d3.brushX().extent([[LABEL_W, 18], [width - 10, height - 38]])
    .on('end', (ev) => {
      if (!ev.sourceEvent) return;
      if (!ev.selection) { onBrush(null); return; }
      onBrush([x.invert(ev.selection[0]), x.invert(ev.selection[1])]);
    });
  const bg = svg.append('g').attr('class', 'dm-brush').call(brush);
  if (win) bg.call(brush.move, [x(win[0]), x(win[1])]);
  if (data.mode === 'groups') {
    svg.append('text').attr('class', 'dm-note').attr('x', LABEL_W).attr('y', 12)
      .text(`${data.estimated_events} events: grouped per time bin (brush a narrower window to see them); `
        + 'opacity = busy share of the bin');
  }
}

// Shortens an SVG text with '…' until it fits `room` pixels; the full text
// stays in data-full (the tooltips show it).
function clipText(el, room) {
  el.dataset.full = el.textContent;
  while (el.getComputedTextLength && el.getComputedTextLength() > room && el.textContent.length > 2) {
    el.textContent = `${el.textContent.slice(0, -2)}…`;
  }
}

// ---- topology ---------------------------------------------------------------

const SKIP_KINDS = new Set(['PU']);

function buildTree(comps) {
  const byId = new Map(comps.map((c) => [c.id, { ...c, children: [] }]));
  let root = null;
  for (const c of byId.values()) {
    if (c.parent === null || !byId.has(c.parent)) root = root || c;
    else byId.get(c.parent).children.push(c);
  }
  const prune = (n) => {
    n.children = n.children.filter((c) => !SKIP_KINDS.has(c.kind) && !(c.kind === 'OSDev' && !c.key)).map(prune);
    return n;
  };
  return root ? prune(root) : null;
}

const leaves = (n) => (n.children.length ? n.children.reduce((a, c) => a + leaves(c), 0) : 1);

function layoutBoxes(node, x, y, w, hgt, depth, out) {
  out.push({ node, x, y, w, h: hgt, depth });
  if (!node.children.length || w < 14 || hgt < 26) return;
  const pad = 4, head = 16;
  const total = leaves(node);
  let cx = x + pad;
  const inner = w - pad * (node.children.length + 1);
  for (const c of node.children) {
    const cw = Math.max(8, inner * leaves(c) / total);
    layoutBoxes(c, cx, y + head, cw, hgt - head - pad, depth + 1, out);
    cx += cw + pad;
  }
}

function drawTopology(d3, holder, topo, mode, tip) {
  clear(holder);
  const root = buildTree(topo.components);
  if (!root) { holder.append(h('p', { class: 'muted' }, 'No topology.')); return; }
  const width = Math.max(300, holder.clientWidth || 500), height = 200;
  const boxes = [];
  layoutBoxes(root, 1, 1, width - 2, height - 2, 0, boxes);
  const maxBytes = d3.max(topo.components, (c) => c.bytes) || 1;
  const red = redScale(d3, [0, 1]);
  const value = (n) => (mode === 'bytes' ? n.bytes / maxBytes : n.utilization);
  const svg = d3.select(holder).append('svg').attr('class', 'dm-topology-svg').attr('width', width).attr('height', height);
  const g = svg.selectAll('g.dm-box').data(boxes).join('g').attr('class', 'dm-box')
    .attr('data-key', (b) => b.node.key || null);
  g.append('rect').attr('x', (b) => b.x).attr('y', (b) => b.y).attr('width', (b) => b.w).attr('height', (b) => b.h)
    .attr('fill', (b) => (b.node.key && value(b.node) !== null ? red(Math.min(1, value(b.node) || 0)) : b.depth % 2 ? DATAMOVE.boxOdd : DATAMOVE.boxEven))
    .attr('stroke', (b) => (b.node.kind === 'GPU' ? DATAMOVE.gpuStroke : DATAMOVE.boxStroke))
    .attr('stroke-width', (b) => (b.node.kind === 'GPU' ? 2 : 1));
  g.append('text').attr('x', (b) => b.x + 3).attr('y', (b) => b.y + 11).attr('class', 'dm-box-label')
    .attr('fill', (b) => (b.node.key && (value(b.node) || 0) > 0.55 ? DATAMOVE.textLight : DATAMOVE.textDark))
    .text((b) => (b.w > 40 ? b.node.name : ''))
    .each(function clip(b) { clipText(this, b.w - 6); });
  g.call(d3Tip, tip, (b) => boxTip(b.node));
  // links between keyed components, width by bytes
  const centre = new Map();
  for (const b of boxes) if (b.node.key && !centre.has(b.node.key)) centre.set(b.node.key, [b.x + b.w / 2, b.y + Math.min(b.h / 2, 40)]);
  const maxLink = d3.max(topo.links, (l) => l.bytes) || 1;
  const links = topo.links.filter((l) => l.src !== l.dst && centre.has(l.src) && centre.has(l.dst));
  svg.append('g').attr('class', 'dm-links').selectAll('path').data(links).join('path')
    .attr('d', (l) => {
      const [x0, y0] = centre.get(l.src), [x1, y1] = centre.get(l.dst);
      const bend = l.src < l.dst ? -30 : 30;
      return `M${x0},${y0} Q${(x0 + x1) / 2},${(y0 + y1) / 2 + bend} ${x1},${y1}`;
    })
    .attr('stroke-width', (l) => linkWidth(l.bytes, maxLink))
    .call(d3Tip, tip, (l) => tipContent(`${l.src} → ${l.dst}`, [['Bytes moved', formatBytes(l.bytes)],
      ...(l.bandwidth ? [['Bandwidth', `${l.bandwidth.toFixed(1)} GB/s`]] : [])]));
  holder.append(topologyLegend(d3, mode, maxBytes, maxLink, links.length > 0));
}

const linkWidth = (bytes, max) => 1.5 + 10 * Math.sqrt(bytes / max);

// The topology's colour ramp (utilisation in % or bytes) and link widths.
function topologyLegend(d3, mode, maxBytes, maxLink, hasLinks) {
  const red = redScale(d3, [0, 1]);
  const ramp = mode === 'bytes'
    ? rampLegend({ title: 'Box colour: bytes moved by the component', colour: red, lo: '0 B', hi: formatBytes(maxBytes) })
    : rampLegend({ title: 'Box colour: utilisation (nvidia-smi, mean over the window)', colour: red, lo: '0 %', hi: '100 %' });
  return h('div', { class: 'dm-legends' }, ramp, hasLinks ? widthLegend({ title: 'Link width: bytes moved',
    items: [[linkWidth(maxLink / 16, maxLink), formatBytes(maxLink / 16)], [linkWidth(maxLink, maxLink), formatBytes(maxLink)]] }) : null);
}

// The tooltip of a topology box: the full name, its bytes and utilisation.
function boxTip(n) {
  const rows = [['Kind', n.kind]];
  if (n.key) rows.push(['Bytes moved', formatBytes(n.bytes)], ['Utilisation', n.utilization === null ? 'n/a' : `${(100 * n.utilization).toFixed(1)} %`]);
  if (n.attrs && n.attrs.local_memory) rows.push(['Memory', formatBytes(n.attrs.local_memory)]);
  if (n.attrs && n.attrs.cache_size) rows.push(['Cache', formatBytes(n.attrs.cache_size)]);
  return tipContent(n.name, rows, null, n.key || null);
}

// ---- matrix -------------------------------------------------------------------

function drawMatrix(d3, holder, m, tip) {
  clear(holder);
  const n = m.components.length;
  const cell = Math.max(16, Math.min(40, Math.floor(((holder.clientWidth || 260) - 60) / Math.max(1, n))));
  const svg = d3.select(holder).append('svg').attr('class', 'dm-matrix-svg').attr('width', 60 + n * cell).attr('height', 40 + n * cell);
  const red = redScale(d3, [0, m.max_bytes || 1]);
  const cells = [];
  m.bytes.forEach((r, i) => r.forEach((v, j) => cells.push({ i, j, v, bw: m.bandwidth[i][j] })));
  svg.append('g').selectAll('rect').data(cells).join('rect').attr('class', 'dm-cell')
    .attr('x', (c) => 60 + c.j * cell).attr('y', (c) => 30 + c.i * cell).attr('width', cell - 1).attr('height', cell - 1)
    .attr('fill', (c) => (c.v > 0 ? red(c.v) : DATAMOVE.cellEmpty)).attr('stroke', DATAMOVE.cellStroke)
    .call(d3Tip, tip, (c) => tipContent(`${m.components[c.i]} → ${m.components[c.j]}`,
      [['Bytes moved', formatBytes(c.v)], ...(c.bw ? [['Bandwidth', `${c.bw.toFixed(1)} GB/s`]] : [])]));
  svg.append('g').selectAll('text').data(m.components).join('text').attr('class', 'dm-axis-label')
    .attr('x', 56).attr('y', (k, i) => 30 + i * cell + cell * 0.65).attr('text-anchor', 'end').text((k) => k);
  svg.append('g').selectAll('text').data(m.components).join('text').attr('class', 'dm-axis-label')
    .attr('x', (k, i) => 60 + i * cell + cell / 2).attr('y', 24).attr('text-anchor', 'middle').text((k) => k.replace('gpu', 'G'));
  svg.append('text').attr('class', 'dm-note').attr('x', 0).attr('y', 12).text('from ↓  to →');
  const scale = redScale(d3, [0, 1]);
  holder.append(h('div', { class: 'dm-legends' }, rampLegend({ title: 'Cell colour: bytes moved in the window',
    colour: scale, lo: '0 B', hi: formatBytes(m.max_bytes || 0), note: 'white: nothing moved' })));
}

// ---- clocks -----------------------------------------------------------------------

// One clock glyph in a size x (size + CLOCK_TEXT) box: the run's name above
// the ring and its duration below it, both outside the ring so that no
// sector covers them.
const CLOCK_TEXT = 34;
function drawClock(d3, svgSel, clock, size, label, tip, sectorWidth) {
  const r0 = size * 0.1, r1 = size / 2 - 4;
  const y = d3.scaleRadial().domain([0, clock.max_sector || 1]).range([r0, r1]);
  const g = svgSel.append('g').attr('transform', `translate(${size / 2},${size / 2 + 17})`);
  const n = clock.values.length, step = (2 * Math.PI) / n;
  clock.values.forEach((vals, s) => {
    let acc = 0;
    vals.forEach((v, c) => {
      if (v <= 0) return;
      g.append('path').attr('fill', CAT_COLOR[CATS[c]])
        .attr('d', d3.arc().innerRadius(y(acc)).outerRadius(y(acc + v)).startAngle(s * step + 0.01).endAngle((s + 1) * step - 0.01)())
        .call(d3Tip, tip, () => tipContent(`${label}: sector ${s + 1} of ${n}`, [['Sector', `${fmtUs(s * sectorWidth)} – ${fmtUs((s + 1) * sectorWidth)}`],
          [CAT_LABEL[CATS[c]], fmtUs(v)]], 'Radius: time spent per category in the sector (stacked)'));
      acc += v;
    });
  });
  g.append('circle').attr('r', r1).attr('class', 'dm-clock-rim');
  svgSel.append('text').attr('class', 'dm-clock-title').attr('x', size / 2).attr('y', 12).attr('text-anchor', 'middle').text(label)
    .each(function fit() { clipText(this, size - 4); })
    .call(d3Tip, tip, () => tipContent(label, [['Runtime', fmtUs(clock.duration)]]));
  svgSel.append('text').attr('class', 'dm-clock-label').attr('x', size / 2).attr('y', size + CLOCK_TEXT - 4)
    .attr('text-anchor', 'middle').text(fmtUs(clock.duration));
}

// The runs compared in the clock grid: the ids in the URL's `runs` (the
// user's choice, at most MAX_RUNS), the current trace first; by default the
// current trace alone, since other data-movement traces of the database may
// be unrelated runs.
const MAX_RUNS = 8;
function chosenRuns(params, trace) {
  const ids = String(params.runs || '').split(',').map(Number).filter((n) => Number.isInteger(n) && n > 0 && n !== trace.id);
  return [trace.id, ...new Set(ids)].slice(0, MAX_RUNS);
}

async function chooseRuns(trace, current) {
  const list = await api.get('/traces', { kind: 'datamove', limit: 200 });
  const others = (list.traces || list.items || []).filter((t) => t.id !== trace.id);
  if (!others.length) return null;
  const boxes = others.map((t) => h('label', { class: 'dm-run-choice' },
    h('input', { type: 'checkbox', value: String(t.id), checked: current.includes(t.id) }), ` ${t.name} (#${t.id})`));
  let chosen = null;
  const ok = await modal({
    title: 'Runs in the clock grid',
    body: h('div', { class: 'dm-run-list' }, h('p', { class: 'muted small' },
      `${trace.name} and up to ${MAX_RUNS - 1} other data-movement runs, drawn on one scale.`), ...boxes),
    buttons: [{ label: 'Cancel', value: null }, { label: 'Show', value: 'ok', primary: true }],
    onSubmit: () => {
      const ids = boxes.map((b) => b.querySelector('input')).filter((i) => i.checked).map((i) => Number(i.value));
      if (ids.length > MAX_RUNS - 1) return `Choose at most ${MAX_RUNS - 1} other runs.`;
      chosen = ids;
      return null;
    },
  });
  return ok ? chosen : null;
}

async function drawClocks(d3, holder, trace, runIds, onChoose, tip) {
  clear(holder);
  const runs = await Promise.all(runIds.map((id) => (id === trace.id ? trace : api.get(`/traces/${id}`).catch(() => null))));
  const present = runs.filter((t) => t && t.kind === 'datamove');
  const sums = await Promise.all(present.map((t) => api.get(`/traces/${t.id}/clock`).catch(() => null)));
  const maxDur = Math.max(...sums.filter(Boolean).map((c) => c.duration), 1);
  const width = Math.ceil(maxDur / 12);
  const clocks = await Promise.all(present.map((t) => api.get(`/traces/${t.id}/clock`, { sector_width: width }).catch(() => null)));
  const shown = present.map((t, i) => ({ t, c: clocks[i] })).filter((x) => x.c && x.c.duration > 0)
    .sort((a, b) => a.c.duration - b.c.duration);
  const maxSector = Math.max(...shown.map((x) => x.c.max_sector), 1);
  const size = 104;
  const wrap = h('div', { class: 'dm-clocks' });
  for (const { t, c } of shown) {
    const cell = h('a', { class: `dm-clock${t.id === trace.id ? ' current' : ''}`, href: `#/traces/${t.id}/datamove`,
      'aria-label': `${t.name}: ${fmtUs(c.duration)}` });
    wrap.append(cell);
    drawClock(d3, d3.select(cell).append('svg').attr('width', size).attr('height', size + CLOCK_TEXT),
      { ...c, max_sector: maxSector }, size, t.name, tip, width);
  }
  const missing = runIds.length - present.length;
  holder.append(wrap, h('p', { class: 'muted small' },
    `12 sectors of ${fmtUs(width)} each (the longest run / 12), clockwise from the top; radius: time per category `
    + `in a sector, up to ${fmtUs(maxSector)}; runs sorted by runtime.`,
    missing > 0 ? ` ${missing} chosen run(s) no longer exist.` : ''),
  h('button', { type: 'button', class: 'btn btn-small dm-choose-runs', onclick: onChoose }, 'Choose runs…'));
}

// ---- metrics --------------------------------------------------------------------------

function drawMetrics(d3, holder, ms, tip) {
  clear(holder);
  const series = ms.series.filter((s) => s.values.length > 1).slice(0, 6);
  if (!series.length) { holder.append(h('p', { class: 'muted small' }, 'No metric samples in this window.')); return; }
  const width = Math.max(200, holder.clientWidth || 300), sh = 30;
  const x = d3.scaleLinear().domain([ms.start, ms.end]).range([0, width - 116]);
  const svg = d3.select(holder).append('svg').attr('class', 'dm-metrics-svg').attr('width', width).attr('height', series.length * (sh + 8));
  series.forEach((s, i) => {
    const y = d3.scaleLinear().domain([s.min, s.max === s.min ? s.min + 1 : s.max]).range([sh, 2]);
    const g = svg.append('g').attr('transform', `translate(0,${i * (sh + 8)})`);
    const name = `${s.metric}${s.component ? ` (${s.component})` : ''}`;
    const info = () => tipContent(name, [['Range', `${s.min} – ${s.max}`], ['Variance', s.variance.toFixed(2)],
      ['Samples', String(s.values.length)]], null, `${fmtUs(ms.start)} – ${fmtUs(ms.end)}`);
    g.append('text').attr('class', 'dm-axis-label').attr('x', 0).attr('y', sh / 2 + 4).text(name)
      .each(function fit() { clipText(this, 104); }).call(d3Tip, tip, info);
    g.append('path').attr('class', 'dm-spark').attr('transform', 'translate(110,0)')
      .attr('d', d3.line().x((v, k) => x(s.ts[k])).y((v) => y(v))(s.values));
    g.append('rect').attr('class', 'dm-spark-hit').attr('x', 110).attr('width', width - 110).attr('height', sh).call(d3Tip, tip, info);
    g.append('text').attr('class', 'dm-spark-range').attr('x', width - 2).attr('y', 10).attr('text-anchor', 'end').text(`max ${s.max}`);
  });
}

// ---- the view ----------------------------------------------------------------------------

async function render(el, trace, params, setParams, { signal }) {
  const d3 = getD3();
  const sum = trace.summary || {};
  const run = [0, (sum.end - sum.start) || 0]; // from the run's start, as the API answers
  let win = params.start && params.end ? [Number(params.start), Number(params.end)] : null;
  let mode = params.color === 'bytes' ? 'bytes' : 'utilization';
  const info = h('p', { class: 'dm-info' });
  const tlHolder = h('div', { class: 'dm-timeline' });
  const topoHolder = h('div', { class: 'dm-topology' });
  const matrixHolder = h('div', { class: 'dm-matrix' });
  const clockHolder = h('div', { class: 'dm-clock-panel' });
  const metricHolder = h('div', { class: 'dm-metrics' });
  const modeSel = h('select', { class: 'dm-mode', 'aria-label': 'Colour the topology by' },
    h('option', { value: 'utilization' }, 'utilisation'), h('option', { value: 'bytes' }, 'bytes moved'));
  modeSel.value = mode;
  clear(el);
  const tip = createTooltip(el, 'dm-tooltip');
  el.prepend(h('div', { class: 'dm-view' },
    h('div', { class: 'dm-head' }, legend(), info),
    h('section', { class: 'panel dm-panel-timeline' }, h('h3', {}, 'Events (brush a window)'), tlHolder),
    h('div', { class: 'dm-grid' },
      h('section', { class: 'panel dm-panel-topology' }, h('h3', {}, 'Topology ', h('label', { class: 'small muted' }, 'colour: ', modeSel)), topoHolder),
      h('section', { class: 'panel dm-panel-matrix' }, h('h3', {}, 'Bytes moved'), matrixHolder),
      h('section', { class: 'panel dm-panel-side' }, h('h3', {}, 'Runs'), clockHolder, h('h3', {}, 'Metrics (by variance)'), metricHolder))));

  let topo = null;
  const windowQuery = () => (win ? { start: win[0], end: win[1] } : {});
  async function refreshWindow() {
    const q = windowQuery();
    const [m, tp, ms] = await Promise.all([api.get(`/traces/${trace.id}/movement-matrix`, q, { signal }),
      api.get(`/traces/${trace.id}/topology`, q, { signal }), api.get(`/traces/${trace.id}/metric-series`, { ...q, points: 300 }, { signal })]);
    topo = tp;
    const w = win || run;
    info.textContent = `Window ${fmtUs(w[0])} – ${fmtUs(w[1])}: ${formatBytes(m.total_bytes)} moved · ${originNote({ kind: 'datamove', time_origin: m.time_origin, time_unit: 'us' })}`;
    drawMatrix(d3, matrixHolder, m, tip);
    drawTopology(d3, topoHolder, tp, mode, tip);
    drawMetrics(d3, metricHolder, ms, tip);
    el.querySelector('.dm-view').dataset.window = w.join(',');
  }
  modeSel.addEventListener('change', () => {
    mode = modeSel.value;
    setParams({ color: mode });
    if (topo) drawTopology(d3, topoHolder, topo, mode, tip);
  });
  const tl = await api.get(`/traces/${trace.id}/movement-timeline`, undefined, { signal });
  drawTimeline(d3, tlHolder, tl, win, async (w) => {
    win = w;
    setParams(w ? { start: String(w[0]), end: String(w[1]) } : { start: null, end: null });
    await refreshWindow();
  }, tip);
  let runIds = chosenRuns(params, trace);
  const redrawClocks = () => drawClocks(d3, clockHolder, trace, runIds, async () => {
    const ids = await chooseRuns(trace, runIds);
    if (!ids) return;
    runIds = [trace.id, ...ids];
    setParams({ runs: ids.length ? ids.join(',') : null });
    await redrawClocks();
  }, tip);
  await Promise.all([refreshWindow(), redrawClocks()]);
}

registerView({ id: 'datamove', title: 'Data movement', kinds: ['datamove'], render });
