// lib/live_history.js: the history views b1 and b2 of the live-run page
// (Fig. 6.5; spec_pdes_dmv.md 4.2): the mean over the entities of one
// metric at every time point since the start of the run, the change points
// as numbered teal lines, and the brown vertical line of the base time of
// the base and difference matrices (e2, e3): drag it (or click the chart)
// to choose the base time, snapped to a time point.
import { LIVE } from '../colors.js';
import { tipContent, d3Tip } from './tooltip.js';
import { formatNumber } from './format.js';

const M = { left: 52, right: 20, top: 16, bottom: 24 };
const fmt = (v) => (v === null || v === undefined || Number.isNaN(v) ? '–' : formatNumber(+Number(v).toPrecision(6)));

// ctx: {metric, times[], means[] (per time index), changePoints [t_idx],
// base (t_idx | null), width, height, tip, domain, onBase(t_idx)}.
export function drawHistory(d3, holder, ctx) {
  const { width, times, means } = ctx;
  const height = ctx.height || 120;
  const n = times.length;
  const x = d3.scaleLinear().domain(n > 1 ? [times[0], times[n - 1]] : [(times[0] ?? 0) - 1, (times[0] ?? 0) + 1])
    .range([M.left, width - M.right]);
  const vals = means.filter((v) => Number.isFinite(v));
  const lo = d3.min(vals) ?? 0, hi = d3.max(vals) ?? 1;
  const y = d3.scaleLinear().domain([Math.min(0, lo), hi > lo ? hi : lo + 1]).nice().range([height - M.bottom, M.top]);
  const svg = d3.select(holder).append('svg').attr('class', 'live-history-svg').attr('width', width).attr('height', height)
    .attr('role', 'img').attr('data-metric', ctx.metric)
    .attr('aria-label', `Mean of ${ctx.metric} over the entities since the start`);
  svg.append('rect').attr('class', 'live-history-bg').attr('x', M.left).attr('y', M.top)
    .attr('width', Math.max(0, width - M.left - M.right)).attr('height', height - M.top - M.bottom);
  svg.append('g').attr('class', 'pdes-axis').attr('transform', `translate(0,${height - M.bottom})`)
    .call(d3.axisBottom(x).ticks(Math.max(2, Math.floor(width / 90))).tickFormat(d3.format('~s')));
  svg.append('g').attr('class', 'pdes-axis').attr('transform', `translate(${M.left},0)`)
    .call(d3.axisLeft(y).ticks(3).tickFormat(d3.format('~s')));
  const pts = times.map((t, i) => [x(t), Number.isFinite(means[i]) ? y(means[i]) : null]);
  svg.append('path').attr('class', 'live-history-line').attr('fill', 'none').attr('stroke', LIVE.history)
    .attr('d', d3.line().defined((p) => p[1] !== null).x((p) => p[0]).y((p) => p[1])(pts));
  const cps = (ctx.changePoints || []).map((t, k) => ({ t_idx: t, number: k + 1 })).filter((c) => c.t_idx < n);
  const cg = svg.append('g').attr('class', 'live-cps').selectAll('g').data(cps).join('g').attr('class', 'live-cp')
    .attr('data-t-idx', (c) => c.t_idx).attr('transform', (c) => `translate(${x(times[c.t_idx])},0)`);
  cg.append('line').attr('class', 'live-cp-line').attr('y1', M.top - 2).attr('y2', height - M.bottom).attr('stroke', LIVE.changePoint);
  cg.append('text').attr('class', 'live-cp-label').attr('y', M.top - 4).attr('text-anchor', 'middle').attr('fill', LIVE.changePoint)
    .text((c) => c.number);
  if (!n) return { x };
  // hover: the mean at the nearest time point; click: the base time there
  const bis = d3.bisector((t) => t).center;
  const nearest = (px) => Math.max(0, Math.min(n - 1, bis(times, x.invert(px))));
  const overlay = svg.append('rect').attr('class', 'live-history-overlay').attr('x', M.left).attr('y', M.top)
    .attr('width', Math.max(0, width - M.left - M.right)).attr('height', height - M.top - M.bottom);
  overlay.on('mousemove', (ev) => {
    const i = nearest(d3.pointer(ev, svg.node())[0]);
    ctx.tip.show(ev, tipContent(`${ctx.domain || 'time'} ${fmt(times[i])} (index ${i})`, [[`mean ${ctx.metric}`, fmt(means[i])]],
      'Click or drag the brown line to set the base time'));
  }).on('mouseleave', () => ctx.tip.hide())
    .on('click', (ev) => ctx.onBase(nearest(d3.pointer(ev, svg.node())[0])));
  const base = ctx.base === null || ctx.base === undefined ? null : Math.min(n - 1, ctx.base);
  if (base === null) return { x };
  const bg = svg.append('g').attr('class', 'live-base').attr('data-t-idx', base).attr('transform', `translate(${x(times[base])},0)`);
  bg.append('line').attr('class', 'live-base-line').attr('y1', M.top - 4).attr('y2', height - M.bottom).attr('stroke', LIVE.base);
  bg.append('text').attr('class', 'live-base-label').attr('y', M.top - 5).attr('x', 3).attr('fill', LIVE.base).text('base');
  bg.append('rect').attr('class', 'live-base-hit').attr('x', -6).attr('width', 12).attr('y', M.top - 14).attr('height', height - M.bottom - M.top + 14)
    .call(d3Tip, ctx.tip, () => tipContent(`Base time ${fmt(times[base])}`, [['Time index', String(base)], [`mean ${ctx.metric}`, fmt(means[base])]],
      'Drag to move the base time of the base and difference matrices'));
  bg.call(d3.drag()
    .on('drag', (ev) => { bg.attr('transform', `translate(${Math.max(M.left, Math.min(width - M.right, ev.x))},0)`); })
    .on('end', (ev) => ctx.onBase(nearest(ev.x))));
  return { x };
}
