// lib/live_behaviour.js: the performance-behaviour panels a1 and a2 of the
// live-run page (Fig. 6.5; spec_pdes_dmv.md 4.2): one polyline per entity
// over the sliding window of W time points of one metric, coloured by the
// progressive clustering's labels, the change points inside the window as
// numbered teal vertical lines, and the cluster legend with counts. Above
// LARGE lines the polylines go to a canvas (lib/pdes_canvas.js), the axes,
// change points and hover stay in SVG.
import { LIVE, PDES } from '../colors.js';
import { h } from '../dom.js';
import { tipContent, d3Tip } from './tooltip.js';
import { formatNumber } from './format.js';
import { LARGE, hiDpiCanvas, drawLinesCanvas, describeLines, nearestRow } from './pdes_canvas.js';

const M = { left: 52, right: 20, top: 18, bottom: 24 };
const fmt = (v) => (v === null || v === undefined || Number.isNaN(v) ? '–' : formatNumber(+Number(v).toPrecision(6)));

// block: the message's top or bottom {metric, t0, times[W], values[n][W]};
// ctx: {ids (entity of each row), nameOf, colourOf(id), labelOf(id),
// selection (Set), changePoints [t_idx], width, height, tip, domain}.
// Returns {x, cps: the change points drawn [{t_idx, number}]}.
export function drawBehaviour(d3, holder, block, ctx) {
  const { width } = ctx;
  const height = ctx.height || 170;
  const times = block.times || [];
  const W = times.length;
  const n = Math.min(ctx.ids.length, (block.values || []).length);
  const values = new Float64Array(n * W);
  for (let i = 0; i < n; i++) {
    const row = block.values[i] || [];
    for (let j = 0; j < W; j++) { const v = row[j]; values[i * W + j] = v === null || v === undefined ? NaN : v; }
  }
  const entities = ctx.ids.slice(0, n).map((id) => ({ id, name: ctx.nameOf(id) }));
  const s = { metric: block.metric, entities, values, n, l: W };
  const x = d3.scaleLinear().domain(W > 1 ? [times[0], times[W - 1]] : [(times[0] ?? 0) - 1, (times[0] ?? 0) + 1])
    .range([M.left, width - M.right]);
  const xs = Float64Array.from(times, (t) => x(t));
  let lo = Infinity, hi = -Infinity;
  for (const v of values) { if (v < lo) lo = v; if (v > hi) hi = v; }
  if (!(lo <= hi)) { lo = 0; hi = 1; }
  const y = d3.scaleLinear().domain([Math.min(0, lo), hi > lo ? hi : lo + 1]).nice().range([height - M.bottom, M.top]);
  const rows = [];
  for (let i = 0; i < n; i++) rows.push(i);
  const large = n > LARGE;
  const layers = d3.select(holder).append('div').attr('class', 'pdes-layers live-behaviour-layers').style('height', `${height}px`).node();
  const cv = large ? hiDpiCanvas(layers, width, height, 'live-behaviour-canvas') : null;
  const svg = d3.select(layers).append('svg').attr('class', 'live-behaviour-svg').attr('width', width).attr('height', height)
    .attr('role', 'img').attr('data-metric', block.metric)
    .attr('aria-label', `${block.metric}: one line per entity over the last ${W} time points`);
  svg.append('g').attr('class', 'pdes-axis').attr('transform', `translate(0,${height - M.bottom})`)
    .call(d3.axisBottom(x).ticks(Math.max(2, Math.floor(width / 90))).tickFormat(d3.format('~s')));
  svg.append('g').attr('class', 'pdes-axis').attr('transform', `translate(${M.left},0)`)
    .call(d3.axisLeft(y).ticks(4).tickFormat(d3.format('~s')));
  const chart = { s, rows, xs, y, top: M.top, bottom: height - M.bottom, left: M.left, right: width - M.right };
  const anySel = ctx.selection.size > 0;
  const colour = (id) => (anySel && !ctx.selection.has(id) ? PDES.dimmed : ctx.colourOf(id));
  const tipOf = (i) => {
    const id = entities[i].id;
    let last = NaN;
    for (let j = W - 1; j >= 0 && Number.isNaN(last); j--) last = values[i * W + j];
    return tipContent(entities[i].name, [['Cluster', ctx.labelOf(id)], [`${block.metric} (latest)`, fmt(last)]], null, block.metric);
  };
  if (large) {
    const drawn = drawLinesCanvas(cv.canvas, cv.g2, [chart], { colourOf: ctx.colourOf, selection: ctx.selection, dimmed: PDES.dimmed });
    describeLines(cv.canvas, drawn[0], n);
    const node = svg.node();
    node.addEventListener('pointermove', (ev) => {
      const [px, py] = d3.pointer(ev, node);
      const i = px >= chart.left && px <= chart.right ? nearestRow(chart, px, py) : -1;
      if (i >= 0) ctx.tip.show(ev, tipOf(i)); else ctx.tip.hide();
    });
    node.addEventListener('pointerleave', () => ctx.tip.hide());
  } else {
    const line = d3.line().defined((p) => p !== null).x((p) => p[0]).y((p) => p[1]);
    const data = rows.map((i) => {
      const pts = [];
      for (let j = 0; j < W; j++) { const v = values[i * W + j]; pts.push(Number.isNaN(v) ? null : [xs[j], y(v)]); }
      return { i, id: entities[i].id, pts, sel: ctx.selection.has(entities[i].id) };
    }).sort((a, b) => a.sel - b.sel);
    svg.append('g').attr('class', 'live-lines').selectAll('path').data(data).join('path')
      .attr('class', (r) => `pdes-line live-line${r.sel ? ' is-selected' : ''}${anySel && !r.sel ? ' is-dimmed' : ''}`)
      .attr('data-id', (r) => r.id).attr('fill', 'none').attr('stroke', (r) => colour(r.id))
      .attr('d', (r) => line(r.pts))
      .call(d3Tip, ctx.tip, (r) => tipOf(r.i));
  }
  // change points inside the window: numbered teal lines (number = rank since the start)
  const t0 = block.t0 ?? 0;
  const cps = (ctx.changePoints || []).map((t, k) => ({ t_idx: t, number: k + 1 }))
    .filter((c) => c.t_idx >= t0 && c.t_idx < t0 + W);
  const cg = svg.append('g').attr('class', 'live-cps').selectAll('g').data(cps).join('g')
    .attr('class', 'live-cp').attr('data-t-idx', (c) => c.t_idx).attr('data-number', (c) => c.number)
    .attr('transform', (c) => `translate(${xs[c.t_idx - t0]},0)`);
  cg.append('line').attr('class', 'live-cp-line').attr('y1', M.top - 2).attr('y2', height - M.bottom).attr('stroke', LIVE.changePoint);
  cg.append('text').attr('class', 'live-cp-label').attr('y', M.top - 5).attr('text-anchor', 'middle').attr('fill', LIVE.changePoint)
    .text((c) => c.number);
  cg.append('rect').attr('class', 'live-cp-hit').attr('x', -4).attr('width', 8).attr('y', M.top - 16).attr('height', height - M.bottom - M.top + 16)
    .call(d3Tip, ctx.tip, (c) => tipContent(`Change point ${c.number}`, [['Time index', String(c.t_idx)], [ctx.domain || 'time', fmt(times[c.t_idx - t0])]]));
  return { x, cps };
}

// The cluster legend with counts: one key per cluster, a click selects its
// entities (onSelect(ids)). clusters: the message's clusters block.
export function clusterLegend(clusters, ids, colourFor, onSelect) {
  if (!clusters || !clusters.labels) return h('span', { class: 'small muted' }, 'No clusters yet (the first points are still arriving).');
  const k = clusters.k || (clusters.sizes ? clusters.sizes.length : 0);
  const keys = [];
  for (let c = 0; c < k; c++) {
    const members = ids.filter((id, i) => clusters.labels[i] === c);
    const count = clusters.sizes && clusters.sizes[c] !== undefined ? clusters.sizes[c] : members.length;
    keys.push(h('button', { type: 'button', class: 'pdes-legend-key live-legend-key', 'data-cluster': c, 'data-count': count,
      title: `Select the ${count} entities of cluster ${c}`, onclick: () => onSelect(members) },
    h('span', { class: 'ari-swatch', style: `background:${colourFor(c)}` }), `cluster ${c} (${count})`));
  }
  return h('div', { class: 'pdes-legend live-legend' },
    h('span', { class: 'ari-legend-title' }, `k-means on ${clusters.metric || 'the top metric'}, k = ${k}:`), ...keys);
}
