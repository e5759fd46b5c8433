// lib/pdes_charts.js: the time charts of the Behaviour view (views/pdes.js):
// the behaviour overview (one statistic of a metric over the entities along
// time, a range brush) and the behaviour detail (one polyline per entity,
// two metrics stacked, coloured by cluster; a freeform stroke selects the
// lines it crosses; the segment boundaries A, B, C... drawn over both, and
// edited on the detail: drag, double-click to add, select + Delete).
// `d3` is getD3(); colours come from colors.js through the caller's colourOf.
import { PDES } from '../colors.js';
import { tipContent, d3Tip } from './tooltip.js';
import { segmentLabel } from './pdes_state.js';
import { formatNumber } from './format.js';

const M = { left: 58, right: 14, top: 20, bottom: 28 };

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

// Does segment p1-p2 cross segment p3-p4 (pixel coordinates)?
export function segmentsCross(p1, p2, p3, p4) {
  const d = (a, b, c) => (c[0] - a[0]) * (b[1] - a[1]) - (b[0] - a[0]) * (c[1] - a[1]);
  const d1 = d(p3, p4, p1), d2 = d(p3, p4, p2), d3 = d(p1, p2, p3), d4 = d(p1, p2, p4);
  return ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0));
}

// The polylines (arrays of [x, y], NaN gaps split) that `stroke` crosses.
export function crossedLines(lines, stroke) {
  const hit = [];
  for (const { id, pts } of lines) {
    let found = false;
    for (let i = 1; i < pts.length && !found; i++) {
      const a = pts[i - 1], b = pts[i];
      if (!a || !b) continue;
      const minx = Math.min(a[0], b[0]), maxx = Math.max(a[0], b[0]);
      for (let j = 1; j < stroke.length; j++) {
        const c = stroke[j - 1], e = stroke[j];
        if (Math.max(c[0], e[0]) < minx || Math.min(c[0], e[0]) > maxx) continue;
        if (segmentsCross(a, b, c, e)) { found = true; break; }
      }
    }
    if (found) hit.push(id);
  }
  return hit;
}

// ctx: {series: [s1, s2], visible(id), colourOf(id), labelOf(id), selection,
// cuts, selectedCut, width, tip, onStroke(ids), onCuts(cuts), onSelectCut(t|null)}.
export function drawDetail(d3, holder, ctx) {
  const { series, width } = ctx;
  const chartH = 120, gap = 26;
  const height = M.top + 2 * chartH + gap + M.bottom;
  const s0 = series[0];
  const time = s0.time;
  const x = d3.scaleLinear().domain(time.length > 1 ? [time[0], time[time.length - 1]] : [time[0] - 1, time[0] + 1])
    .range([M.left, width - M.right]);
  const svg = d3.select(holder).append('svg').attr('class', 'pdes-detail-svg').attr('width', width).attr('height', height)
    .attr('tabindex', 0).attr('role', 'img')
    .attr('aria-label', `One line per entity: ${series.map((s) => s.metric).join(' and ')}`);
  const anySel = ctx.selection.size > 0;
  const lines = [];
  series.forEach((s, k) => {
    const top = M.top + k * (chartH + gap), bottom = top + chartH;
    let lo = Infinity, hi = -Infinity;
    for (let i = 0; i < s.n; i++) {
      if (!ctx.visible(s.entities[i].id)) continue;
      for (let j = 0; j < s.l; j++) { const v = s.values[i * s.l + j]; if (v < lo) lo = v; if (v > hi) hi = v; }
    }
    if (!(lo <= hi)) { lo = 0; hi = 1; }
    const y = d3.scaleLinear().domain([Math.min(0, lo), hi > lo ? hi : lo + 1]).nice().range([bottom, top]);
    const g = svg.append('g').attr('class', 'pdes-chart').attr('data-metric', s.metric);
    g.append('g').attr('class', 'pdes-axis').attr('transform', `translate(0,${bottom})`)
      .call(d3.axisBottom(x).ticks(Math.max(2, Math.floor(width / 90))).tickFormat(tickFmt(d3)));
    g.append('g').attr('class', 'pdes-axis').attr('transform', `translate(${M.left},0)`)
      .call(d3.axisLeft(y).ticks(4).tickFormat(tickFmt(d3)));
    g.append('text').attr('class', 'pdes-axis-label').attr('x', M.left + 4).attr('y', top + 10).text(s.metric);
    const rows = [];
    for (let i = 0; i < s.n; i++) {
      const e = s.entities[i];
      if (!ctx.visible(e.id)) continue;
      const pts = [];
      for (let j = 0; j < s.l; j++) { const v = s.values[i * s.l + j]; pts.push(Number.isNaN(v) ? null : [x(time[j]), y(v)]); }
      rows.push({ id: e.id, name: e.name, pts, sel: ctx.selection.has(e.id) });
      lines.push({ id: e.id, pts });
    }
    rows.sort((a, b) => a.sel - b.sel); // the selected on top
    const line = d3.line().defined((p) => p !== null).x((p) => p[0]).y((p) => p[1]);
    g.append('g').attr('class', 'pdes-lines').selectAll('path').data(rows).join('path')
      .attr('class', (r) => `pdes-line${r.sel ? ' is-selected' : ''}${anySel && !r.sel ? ' is-dimmed' : ''}`)
      .attr('data-id', (r) => r.id).attr('fill', 'none')
      .attr('stroke', (r) => (anySel && !r.sel ? PDES.dimmed : ctx.colourOf(r.id)))
      .attr('d', (r) => line(r.pts))
      .call(d3Tip, ctx.tip, (r) => tipContent(r.name, [['Cluster', ctx.labelOf(r.id)]], 'Drag across lines to select them', s.metric));
  });
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
  node.addEventListener('pointermove', (ev) => {
    if (!stroke) return;
    stroke.push(local(ev));
    strokeG.select('path').attr('d', d3.line()(stroke));
  });
  const end = () => {
    if (!stroke) return;
    const st = stroke;
    stroke = null;
    strokeG.selectAll('*').remove();
    const len = st.length > 1 ? d3.sum(st.slice(1), (p, i) => Math.hypot(p[0] - st[i][0], p[1] - st[i][1])) : 0;
    ctx.onStroke(len < 4 ? [] : crossedLines(lines, st));
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
  const svg = d3.select(holder).append('svg').attr('class', 'pdes-scatter-svg').attr('width', width).attr('height', height)
    .attr('role', 'img').attr('aria-label', `${proj.method} projection of ${pts.length} entities`);
  const ex = d3.extent(pts, (p) => p.xy[0]), ey = d3.extent(pts, (p) => p.xy[1]);
  const span = Math.max((ex[1] - ex[0]) || 1, (ey[1] - ey[0]) || 1);
  const side = Math.min(width, height) - 2 * m;
  const cx = (ex[0] + ex[1]) / 2, cy = (ey[0] + ey[1]) / 2;
  const sx = (v) => width / 2 + (v - cx) / span * side, sy = (v) => height / 2 - (v - cy) / span * side;
  svg.append('rect').attr('class', 'pdes-scatter-bg').attr('width', width).attr('height', height);
  const anySel = ctx.selection.size > 0;
  pts.sort((a, b) => ctx.selection.has(a.id) - ctx.selection.has(b.id));
  svg.append('g').selectAll('circle').data(pts).join('circle')
    .attr('class', (p) => `pdes-dot${ctx.selection.has(p.id) ? ' is-selected' : ''}${anySel && !ctx.selection.has(p.id) ? ' is-dimmed' : ''}`)
    .attr('data-id', (p) => p.id).attr('cx', (p) => sx(p.xy[0])).attr('cy', (p) => sy(p.xy[1])).attr('r', 4)
    .attr('fill', (p) => ctx.colourOf(p.id)).attr('stroke', (p) => (ctx.selection.has(p.id) ? PDES.selected : 'none'))
    .call(d3Tip, ctx.tip, (p) => tipContent(ctx.nameOf(p.id), [['Cluster', ctx.labelOf(p.id)], ['x', fmt(p.xy[0])], ['y', fmt(p.xy[1])]], 'Drag around points to select them'));
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
  node.addEventListener('pointermove', (ev) => {
    if (!lasso) return;
    lasso.push(d3.pointer(ev, node));
    lassoG.select('path').attr('d', `${d3.line()(lasso)}Z`);
  });
  const end = () => {
    if (!lasso) return;
    const poly = lasso;
    lasso = null;
    lassoG.selectAll('*').remove();
    ctx.onLasso(poly.length < 3 ? [] : pts.filter((p) => d3.polygonContains(poly, [sx(p.xy[0]), sy(p.xy[1])])).map((p) => p.id));
  };
  node.addEventListener('pointerup', end);
  node.addEventListener('pointercancel', end);
}
