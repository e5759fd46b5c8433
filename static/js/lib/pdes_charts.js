// lib/pdes_charts.js: the time charts of the Behaviour view (views/pdes.js):
// the behaviour overview (one statistic of a metric over the entities along
// time, a range brush) and the behaviour detail (one polyline per entity,
// two metrics stacked, coloured by cluster; a freeform stroke selects the
// lines it crosses; the segment boundaries A, B, C... drawn over both, and
// edited on the detail: drag, double-click to add, select + Delete).
// `d3` is getD3(); colours come from colors.js through the caller's colourOf.
// Above LARGE lines or dots, the marks go to a canvas (lib/pdes_canvas.js).
import { PDES } from '../colors.js';
import { tipContent, d3Tip } from './tooltip.js';
import { segmentLabel } from './pdes_state.js';
import { formatNumber } from './format.js';
import { LARGE, hiDpiCanvas, drawLinesCanvas, describeLines, crossedRows, nearestRow, drawDotsCanvas, segmentsCross } from './pdes_canvas.js';

export { segmentsCross, crossedRows, LARGE };

const M = { left: 58, right: 14, top: 20, bottom: 28 };
// The horizontal margins of a time chart: its plot is the width minus these.
export const CHART_MARGINS = M.left + M.right;

const fmt = (v) => (v === null || v === undefined || Number.isNaN(v) ? '–' : formatNumber(v));
const tickFmt = (d3) => d3.format('~s');

// ---- overview ---------------------------------------------------------------

// data: the /overview answer; range: [t0, t1] | null; onBrush([t0, t1] | null).
export function drawOverview(d3, holder, { data, range, cuts, width, onBrush, tip }) {
  const height = 140;
  const svg = d3.select(holder).append('svg').attr('class', 'pdes-overview-svg')
    .attr('width', width).attr('height', height).attr('role', 'img')
    .attr('aria-label', `${data.stat} of ${data.metric} over the entities along ${data.time_domain}`);
  const pts = data.time.map((t, i) => [t, data.value[i]]);
  const x = d3.scaleLinear().domain(d3.extent(data.time)).range([M.left, width - M.right]);
  const vals = data.value.filter((v) => v !== null);
  const y = d3.scaleLinear().domain([Math.min(0, d3.min(vals) ?? 0), d3.max(vals) ?? 1]).nice().range([height - M.bottom, M.top]);
  svg.append('g').attr('class', 'pdes-axis').attr('transform', `translate(0,${height - M.bottom})`)
    .call(d3.axisBottom(x).ticks(Math.max(2, Math.floor(width / 90))).tickFormat(tickFmt(d3)));
  svg.append('g').attr('class', 'pdes-axis').attr('transform', `translate(${M.left},0)`)
    .call(d3.axisLeft(y).ticks(4).tickFormat(tickFmt(d3)));
  svg.append('text').attr('class', 'pdes-axis-label').attr('x', M.left).attr('y', 12)
    .text(`${data.stat} of ${data.metric} over ${data.entities} ${data.granularity}s`);
  svg.append('text').attr('class', 'pdes-axis-label').attr('x', width - M.right).attr('y', height - 2)
    .attr('text-anchor', 'end').text(data.time_domain);
  svg.append('path').attr('class', 'pdes-overview-line').attr('fill', 'none').attr('stroke', PDES.overview)
    .attr('d', d3.line().defined((p) => p[1] !== null).x((p) => x(p[0])).y((p) => y(p[1]))(pts));
  drawCutLines(svg, x, cuts, M.top, height - M.bottom);
  const brush = d3.brushX().extent([[M.left, M.top], [width - M.right, height - M.bottom]])
    .on('end', (ev) => {
      if (!ev.sourceEvent) return;
      onBrush(ev.selection ? [x.invert(ev.selection[0]), x.invert(ev.selection[1])] : null);
    });
  const bg = svg.append('g').attr('class', 'pdes-brush').call(brush);
  if (range) bg.call(brush.move, [Math.max(M.left, x(range[0])), Math.min(width - M.right, x(range[1]))]);
  // hover: the value at the nearest time point
  const bis = d3.bisector((p) => p[0]).center;
  bg.select('.overlay').on('mousemove.tip', (ev) => {
    const [px] = d3.pointer(ev);
    const p = pts[bis(pts, x.invert(px))];
    if (p) tip.show(ev, tipContent(`${data.time_domain} ${fmt(p[0])}`, [[`${data.stat} of ${data.metric}`, fmt(p[1])]], 'Drag to select a range for the other views'));
  }).on('mouseleave.tip', () => tip.hide());
  return { x, brush, brushGroup: bg };
}

function drawCutLines(svg, x, cuts, y0, y1) {
  svg.append('g').attr('class', 'pdes-cuts').selectAll('line').data(cuts.filter((c) => c >= x.domain()[0] && c <= x.domain()[1]))
    .join('line').attr('class', 'pdes-cut-line').attr('x1', (c) => x(c)).attr('x2', (c) => x(c))
    .attr('y1', y0).attr('y2', y1).attr('stroke', PDES.boundary);
}

// ---- detail -----------------------------------------------------------------

// ctx: {series: [s1, s2], visible(id), colourOf(id), labelOf(id), selection,
// cuts, selectedCut, width, tip, onStroke(ids), onCuts(cuts), onSelectCut(t|null)}.
// Above LARGE visible lines per chart the polylines go to a canvas under
// the SVG (lib/pdes_canvas.js); the stroke selection is computed from the
// values and the scales in both cases.
export function drawDetail(d3, holder, ctx) {
  const started = performance.now();
  const { series, width } = ctx;
  const chartH = 120, gap = 26;
  const height = M.top + 2 * chartH + gap + M.bottom;
  const s0 = series[0];
  const time = s0.time;
  const x = d3.scaleLinear().domain(time.length > 1 ? [time[0], time[time.length - 1]] : [time[0] - 1, time[0] + 1])
    .range([M.left, width - M.right]);
  const xs = Float64Array.from(time, (t) => x(t));
  const rowsOf = (s) => { const r = []; for (let i = 0; i < s.n; i++) if (ctx.visible(s.entities[i].id)) r.push(i); return r; };
  const large = series.some((s) => rowsOf(s).length > LARGE);
  const layers = d3.select(holder).append('div').attr('class', 'pdes-layers').style('height', `${height}px`).node();
  const cv = large ? hiDpiCanvas(layers, width, height, 'pdes-detail-canvas') : null;
  const svg = d3.select(layers).append('svg').attr('class', `pdes-detail-svg${large ? ' is-large' : ''}`).attr('width', width).attr('height', height)
    .attr('tabindex', 0).attr('role', 'img')
    .attr('aria-label', `One line per entity: ${series.map((s) => s.metric).join(' and ')}`);
  const anySel = ctx.selection.size > 0;
  const charts = [];
  series.forEach((s, k) => {
    const top = M.top + k * (chartH + gap), bottom = top + chartH;
    const rows = rowsOf(s);
    let lo = Infinity, hi = -Infinity;
    for (const i of rows) {
      for (let j = 0; j < s.l; j++) { const v = s.values[i * s.l + j]; if (v < lo) lo = v; if (v > hi) hi = v; }
    }
    if (!(lo <= hi)) { lo = 0; hi = 1; }
    const y = d3.scaleLinear().domain([Math.min(0, lo), hi > lo ? hi : lo + 1]).nice().range([bottom, top]);
    const chart = { s, rows, xs, y, top, bottom, left: M.left, right: width - M.right };
    charts.push(chart);
    const g = svg.append('g').attr('class', 'pdes-chart').attr('data-metric', s.metric);
    g.append('g').attr('class', 'pdes-axis').attr('transform', `translate(0,${bottom})`)
      .call(d3.axisBottom(x).ticks(Math.max(2, Math.floor(width / 90))).tickFormat(tickFmt(d3)));
    g.append('g').attr('class', 'pdes-axis').attr('transform', `translate(${M.left},0)`)
      .call(d3.axisLeft(y).ticks(4).tickFormat(tickFmt(d3)));
    g.append('text').attr('class', 'pdes-axis-label').attr('x', M.left + 4).attr('y', top + 10).text(s.metric);
    if (large) return;
    const data = rows.map((i) => {
      const e = s.entities[i], pts = [];
      for (let j = 0; j < s.l; j++) { const v = s.values[i * s.l + j]; pts.push(Number.isNaN(v) ? null : [xs[j], y(v)]); }
      return { id: e.id, name: e.name, pts, sel: ctx.selection.has(e.id) };
    });
    data.sort((a, b) => a.sel - b.sel); // the selected on top
    const line = d3.line().defined((p) => p !== null).x((p) => p[0]).y((p) => p[1]);
    g.append('g').attr('class', 'pdes-lines').selectAll('path').data(data).join('path')
      .attr('class', (r) => `pdes-line${r.sel ? ' is-selected' : ''}${anySel && !r.sel ? ' is-dimmed' : ''}`)
      .attr('data-id', (r) => r.id).attr('fill', 'none')
      .attr('stroke', (r) => (anySel && !r.sel ? PDES.dimmed : ctx.colourOf(r.id)))
      .attr('d', (r) => line(r.pts))
      .call(d3Tip, ctx.tip, (r) => tipContent(r.name, [['Cluster', ctx.labelOf(r.id)]], 'Drag across lines to select them', s.metric));
  });
  if (large) {
    const drawn = drawLinesCanvas(cv.canvas, cv.g2, charts, { colourOf: ctx.colourOf, selection: ctx.selection, dimmed: PDES.dimmed });
    describeLines(cv.canvas, drawn[0], charts[0].rows.length);
    cv.canvas.dataset.columns = String(s0.l);
    cv.canvas.dataset.drawMs = String(Math.round(performance.now() - started));
  }
  // the freeform stroke
  const strokeG = svg.append('g').attr('class', 'pdes-stroke-layer');
  const overlay = svg.insert('rect', '.pdes-chart').attr('class', 'pdes-overlay')
    .attr('x', M.left).attr('y', M.top).attr('width', width - M.left - M.right).attr('height', 2 * chartH + gap);
  let stroke = null;
  const node = svg.node();
  const local = (ev) => d3.pointer(ev, node);
  node.addEventListener('pointerdown', (ev) => {
    if (ev.button !== 0 || ev.target.closest('.pdes-cut')) return;
    stroke = [local(ev)];
    node.setPointerCapture(ev.pointerId);
    strokeG.selectAll('*').remove();
    strokeG.append('path').attr('class', 'pdes-stroke').attr('stroke', PDES.stroke).attr('fill', 'none');
  });
  let hover = 0;
  node.addEventListener('pointermove', (ev) => {
    if (!stroke) { if (large && !hover) hover = requestAnimationFrame(() => { hover = 0; hoverLine(ev); }); return; }
    stroke.push(local(ev));
    strokeG.select('path').attr('d', d3.line()(stroke));
  });
  // on a canvas, the tooltip names the line nearest the pointer
  const hoverLine = (ev) => {
    const [px, py] = local(ev);
    for (const ch of charts) {
      const i = px >= ch.left && px <= ch.right ? nearestRow(ch, px, py) : -1;
      if (i >= 0) {
        const e = ch.s.entities[i];
        ctx.tip.show(ev, tipContent(e.name, [['Cluster', ctx.labelOf(e.id)]], 'Drag across lines to select them', ch.s.metric));
        return;
      }
    }
    ctx.tip.hide();
  };
  node.addEventListener('pointerleave', () => { if (large) ctx.tip.hide(); });
  const end = () => {
    if (!stroke) return;
    const st = stroke;
    stroke = null;
    strokeG.selectAll('*').remove();
    const len = st.length > 1 ? d3.sum(st.slice(1), (p, i) => Math.hypot(p[0] - st[i][0], p[1] - st[i][1])) : 0;
    ctx.onStroke(len < 4 ? [] : crossedRows(charts, st));
  };
  node.addEventListener('pointerup', end);
  node.addEventListener('pointercancel', end);
  // segment boundaries (snapped to sample times)
  const snap = (t) => time[d3.bisector((v) => v).center(time, t)];
  node.addEventListener('dblclick', (ev) => {
    const [px] = local(ev);
    if (px < M.left || px > width - M.right) return;
    const t = snap(x.invert(px));
    if (t > time[0] && !ctx.cuts.includes(t)) ctx.onCuts([...ctx.cuts, t].sort((a, b) => a - b), t);
  });
  node.addEventListener('keydown', (ev) => {
    if ((ev.key === 'Delete' || ev.key === 'Backspace') && ctx.selectedCut !== null) {
      ev.preventDefault();
      ctx.onCuts(ctx.cuts.filter((c) => c !== ctx.selectedCut), null);
    }
  });
  const inRange = ctx.cuts.filter((c) => c > time[0] && c <= time[time.length - 1]);
  const yTop = M.top - 14, yBot = M.top + 2 * chartH + gap;
  // segment letters
  const bounds = [time[0], ...inRange, time[time.length - 1]];
  svg.append('g').attr('class', 'pdes-seg-labels').selectAll('text').data(bounds.slice(0, -1)).join('text')
    .attr('class', 'pdes-seg-label').attr('x', (b, i) => (x(b) + x(bounds[i + 1])) / 2).attr('y', yTop + 8)
    .attr('text-anchor', 'middle').text((b, i) => segmentLabel(i));
  const cutG = svg.append('g').attr('class', 'pdes-cuts').selectAll('g').data(inRange).join('g')
    .attr('class', (c) => `pdes-cut${c === ctx.selectedCut ? ' is-selected' : ''}`).attr('data-time', (c) => c)
    .attr('transform', (c) => `translate(${x(c)},0)`);
  cutG.append('line').attr('class', 'pdes-cut-line').attr('y1', yTop).attr('y2', yBot)
    .attr('stroke', (c) => (c === ctx.selectedCut ? PDES.boundarySelected : PDES.boundary));
  cutG.append('rect').attr('class', 'pdes-cut-hit').attr('x', -5).attr('width', 10).attr('y', yTop).attr('height', yBot - yTop)
    .call(d3Tip, ctx.tip, (c) => tipContent(`Boundary at ${fmt(c)}`, [], 'Drag to move; click, then Delete to remove'));
  cutG.call(d3.drag()
    .on('start', function start() { d3.select(this).classed('is-dragging', true); })
    .on('drag', function move(ev) { d3.select(this).attr('transform', `translate(${Math.max(M.left, Math.min(width - M.right, ev.x))},0)`); })
    .on('end', function stop(ev, c) {
      d3.select(this).classed('is-dragging', false);
      const t = snap(x.invert(ev.x));
      if (Math.abs(ev.x - x(c)) < 3) { ctx.onSelectCut(c === ctx.selectedCut ? null : c); node.focus(); return; }
      const next = ctx.cuts.filter((v) => v !== c);
      if (t > time[0] && !next.includes(t)) next.push(t);
      ctx.onCuts(next.sort((a, b) => a - b), t);
    }));
  overlay.lower();
  return { x };
}

// ---- similarity scatter --------------------------------------------------------

// proj: the /projection answer; ctx: {visible, colourOf, labelOf, nameOf,
// selection, width, tip, onLasso(ids)}.
export function drawScatter(d3, holder, proj, ctx) {
  const { width } = ctx;
  const height = Math.min(360, Math.max(240, width * 0.8));
  const m = 14;
  const pts = proj.entities.map((id, i) => ({ id: typeof id === 'object' ? id.id : id, xy: proj.xy[i] }))
    .filter((p) => ctx.visible(p.id) && p.xy && Number.isFinite(p.xy[0]) && Number.isFinite(p.xy[1]));
  const ex = d3.extent(pts, (p) => p.xy[0]), ey = d3.extent(pts, (p) => p.xy[1]);
  const span = Math.max((ex[1] - ex[0]) || 1, (ey[1] - ey[0]) || 1);
  const side = Math.min(width, height) - 2 * m;
  const cx = (ex[0] + ex[1]) / 2, cy = (ey[0] + ey[1]) / 2;
  const sx = (v) => width / 2 + (v - cx) / span * side, sy = (v) => height / 2 - (v - cy) / span * side;
  for (const p of pts) { p.px = sx(p.xy[0]); p.py = sy(p.xy[1]); }
  const large = pts.length > LARGE;
  const layers = d3.select(holder).append('div').attr('class', 'pdes-layers').style('height', `${height}px`).node();
  const cv = large ? hiDpiCanvas(layers, width, height, 'pdes-scatter-canvas') : null;
  const svg = d3.select(layers).append('svg').attr('class', `pdes-scatter-svg${large ? ' is-large' : ''}`).attr('width', width).attr('height', height)
    .attr('role', 'img').attr('aria-label', `${proj.method} projection of ${pts.length} entities`);
  if (!large) svg.append('rect').attr('class', 'pdes-scatter-bg').attr('width', width).attr('height', height);
  const anySel = ctx.selection.size > 0;
  pts.sort((a, b) => ctx.selection.has(a.id) - ctx.selection.has(b.id));
  const tipOf = (p) => tipContent(ctx.nameOf(p.id), [['Cluster', ctx.labelOf(p.id)], ['x', fmt(p.xy[0])], ['y', fmt(p.xy[1])]], 'Drag around points to select them');
  if (large) {
    drawDotsCanvas(cv.canvas, cv.g2, pts, { colourOf: ctx.colourOf, selection: ctx.selection, outline: PDES.selected });
  } else {
    svg.append('g').selectAll('circle').data(pts).join('circle')
      .attr('class', (p) => `pdes-dot${ctx.selection.has(p.id) ? ' is-selected' : ''}${anySel && !ctx.selection.has(p.id) ? ' is-dimmed' : ''}`)
      .attr('data-id', (p) => p.id).attr('cx', (p) => p.px).attr('cy', (p) => p.py).attr('r', 4)
      .attr('fill', (p) => ctx.colourOf(p.id)).attr('stroke', (p) => (ctx.selection.has(p.id) ? PDES.selected : 'none'))
      .call(d3Tip, ctx.tip, tipOf);
  }
  const lassoG = svg.append('g');
  let lasso = null;
  const node = svg.node();
  node.addEventListener('pointerdown', (ev) => {
    if (ev.button !== 0) return;
    lasso = [d3.pointer(ev, node)];
    node.setPointerCapture(ev.pointerId);
    lassoG.selectAll('*').remove();
    lassoG.append('path').attr('class', 'pdes-lasso').attr('stroke', PDES.stroke);
  });
  // on a canvas, the tooltip names the dot nearest the pointer (within 6 px)
  let hover = 0;
  const hoverDot = (ev) => {
    const [px, py] = d3.pointer(ev, node);
    let best = null, bestD = 36;
    for (const p of pts) { const d = (p.px - px) ** 2 + (p.py - py) ** 2; if (d <= bestD) { bestD = d; best = p; } }
    if (best) ctx.tip.show(ev, tipOf(best)); else ctx.tip.hide();
  };
  node.addEventListener('pointerleave', () => { if (large) ctx.tip.hide(); });
  node.addEventListener('pointermove', (ev) => {
    if (!lasso) { if (large && !hover) hover = requestAnimationFrame(() => { hover = 0; hoverDot(ev); }); return; }
    lasso.push(d3.pointer(ev, node));
    lassoG.select('path').attr('d', `${d3.line()(lasso)}Z`);
  });
  const end = () => {
    if (!lasso) return;
    const poly = lasso;
    lasso = null;
    lassoG.selectAll('*').remove();
    ctx.onLasso(poly.length < 3 ? [] : pts.filter((p) => d3.polygonContains(poly, [p.px, p.py])).map((p) => p.id));
  };
  node.addEventListener('pointerup', end);
  node.addEventListener('pointercancel', end);
}
