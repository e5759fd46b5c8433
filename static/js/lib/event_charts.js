// lib/event_charts.js: the small charts of the event-trace tabs
// (views/events_comm.js, views/events_functions.js), in SVG with d3 scales
// and the dashboard tooltip:
//   eventPanel({id, title, note})        a panel: title, toolbar, body, CSV button
//   barsChart(host, rows, opts)         horizontal bars, one or several series per row
//   columnsChart(host, edges, values, opts)  a histogram over bin edges
//   stackedAreas(host, edges, series, opts)  stacked areas over time bins
// Colours come from the caller (colors.js); sizes follow the host's width.
import { h, clear } from '../dom.js';
import { getD3 } from '../d3.js';
import { svg } from './svg.js';
import { fmtTick } from './format.js';

const FONT = 11;
const COMPACT_H = 420; // the bars' height at most when there are many rows

// A panel with a title, a toolbar (controls go in `toolbar`), a status line,
// the chart `body`, and a CSV button calling onCsv() when it is set.
export function eventPanel({ id, title, note = null }) {
  const toolbar = h('div', { class: 'ev-toolbar', role: 'group', 'aria-label': `${title}: settings` });
  const status = h('div', { class: 'small muted ev-status', role: 'status' });
  const body = h('div', { class: 'ev-body' });
  const csv = h('button', { type: 'button', class: 'btn btn-small ev-csv', id: `${id}-csv`, title: 'What this panel shows, as CSV', disabled: true }, 'CSV');
  const el = h('section', { class: 'panel ev-panel', id, 'aria-labelledby': `${id}-title` },
    h('div', { class: 'ev-head' }, h('h2', { id: `${id}-title` }, title), toolbar, csv),
    note ? h('p', { class: 'small muted' }, note) : null, status, body);
  const p = { el, toolbar, status, body, onCsv: null };
  csv.addEventListener('click', () => { if (p.onCsv) p.onCsv(); });
  p.setCsv = (fn) => { p.onCsv = fn; csv.disabled = !fn; };
  return p;
}

// A labelled <select> for a toolbar.
export function selectField(id, label, options, value, onChange) {
  const narrow = options.every(([, text]) => String(text).length <= 6);
  const sel = h('select', { id, class: narrow ? 'input input-narrow' : 'input', onchange: (e) => onChange(e.target.value) },
    options.map(([v, text]) => h('option', { value: v, selected: String(v) === String(value) }, text)));
  return h('div', { class: 'sg-field' }, h('label', { for: id }, label), sel);
}

// A segmented switch (radio buttons) for a toolbar.
export function switchField(name, label, options, value, onChange) {
  return h('div', { class: 'sg-field' }, h('span', { class: 'sg-label' }, label),
    h('div', { class: 'ev-switch', role: 'radiogroup', 'aria-label': label },
      options.map(([v, text]) => h('label', { class: 'ev-switch-opt' },
        h('input', { type: 'radio', name, value: v, id: `${name}-${v}`, checked: v === value, onchange: () => onChange(v) }), text))));
}

const widthOf = (host, min = 260) => Math.max(min, Math.floor(host.clientWidth || host.parentElement?.clientWidth || 600));

// Horizontal bars: rows [{label, values: [v per series], key}], series
// [{name, colour}] (or colourOf(row, i)), drawn side by side per row.
// opts: format(v), tip(row, i) -> content, onClick(row), isDimmed(row),
// isFocused(row), xLabel, tooltip, labelW.
export function barsChart(host, rows, series, opts = {}) {
  const d3 = getD3();
  clear(host);
  if (!rows.length) { host.appendChild(h('p', { class: 'muted small' }, opts.empty || 'Nothing to show.')); return; }
  // many rows (ranks): thinner bars within COMPACT_H pixels, a label every few rows
  const compact = rows.length > 24;
  const W = widthOf(host), labelW = opts.labelW || 130, right = 60, top = 24;
  const barH = compact ? Math.max(1, Math.floor(COMPACT_H / rows.length / series.length)) : series.length > 1 ? 9 : 14;
  const gap = compact ? (barH * series.length >= 4 ? 1 : 0) : 6;
  const rowH = series.length * barH + gap, H = top + rows.length * rowH + 6;
  const labelEvery = compact ? Math.ceil(13 / rowH) : 1;
  const max = d3.max(rows, (r) => d3.max(r.values)) || 1;
  const x = d3.scaleLinear().domain([0, max]).range([0, W - labelW - right]).nice();
  const s = d3.select(host).append(() => svg('svg', { width: W, height: H, class: 'ev-chart ev-bars', role: 'img', 'aria-label': opts.label || 'bars' }));
  const ticks = Math.max(2, Math.floor((W - labelW - right) / 90));
  s.append('g').attr('class', 'axis').attr('transform', `translate(${labelW},${top - 4})`)
    .call(d3.axisTop(x).ticks(ticks).tickFormat(opts.format || fmtTick).tickSizeOuter(0));
  if (opts.xLabel) s.append('text').attr('class', 'axis-unit').attr('x', 4).attr('y', 10).text(opts.xLabel);
  const g = s.append('g').selectAll('g').data(rows).join('g')
    .attr('class', (r) => `ev-bar-row${opts.isFocused && opts.isFocused(r) ? ' is-focused' : ''}${opts.isDimmed && opts.isDimmed(r) ? ' is-dimmed' : ''}`)
    .attr('transform', (r, i) => `translate(0,${top + i * rowH})`)
    .attr('data-key', (r) => r.key ?? r.label);
  g.append('text').attr('class', 'ev-bar-label').attr('x', labelW - 6).attr('y', (series.length * barH) / 2).attr('dy', '0.35em')
    .attr('text-anchor', 'end').style('font-size', `${FONT}px`)
    .text((r, i) => (i % labelEvery ? '' : r.label.length > 20 ? `${r.label.slice(0, 19)}…` : r.label));
  series.forEach((se, k) => {
    g.append('rect').attr('class', 'ev-bar').attr('x', labelW).attr('y', k * barH).attr('height', barH - 1)
      .attr('width', (r) => Math.max(r.values[k] > 0 ? 1 : 0, x(r.values[k] || 0)))
      .attr('fill', (r, i) => (se.colourOf ? se.colourOf(r, i) : se.colour));
  });
  g.append('text').attr('class', 'ev-bar-value').attr('x', (r) => labelW + x(d3.max(r.values) || 0) + 4)
    .attr('y', (series.length * barH) / 2).attr('dy', '0.35em').style('font-size', `${FONT}px`)
    .text((r) => (series.length === 1 && !compact ? (opts.format || fmtTick)(r.values[0]) : ''));
  // the whole row is the hover and click target
  g.append('rect').attr('class', 'ev-hit').attr('x', 0).attr('y', -gap / 2).attr('width', W).attr('height', rowH)
    .attr('fill', 'transparent').style('cursor', opts.onClick ? 'pointer' : null)
    .on('mousemove', (ev, r) => opts.tooltip && opts.tip && opts.tooltip.show(ev, opts.tip(r)))
    .on('mouseleave', () => opts.tooltip && opts.tooltip.hide())
    .on('click', (ev, r) => opts.onClick && opts.onClick(r));
}

// The x and y axes of a chart of size W x H with margins m, and their
// labels (opts.xLabel at the bottom right, opts.yLabel at the top left).
function chartAxes(s, x, y, W, H, m, opts) {
  const d3 = getD3();
  s.append('g').attr('class', 'axis').attr('transform', `translate(0,${H - m.b})`)
    .call(d3.axisBottom(x).ticks(Math.max(2, Math.floor((W - m.l) / 90))).tickFormat(opts.xFormat || fmtTick).tickSizeOuter(0));
  s.append('g').attr('class', 'axis').attr('transform', `translate(${m.l},0)`)
    .call(d3.axisLeft(y).ticks(5).tickFormat(opts.yFormat || fmtTick).tickSizeOuter(0));
  if (opts.xLabel) s.append('text').attr('class', 'axis-unit').attr('x', W - m.r).attr('y', H - 4).attr('text-anchor', 'end').text(opts.xLabel);
  if (opts.yLabel) s.append('text').attr('class', 'axis-unit').attr('x', 4).attr('y', 10).text(opts.yLabel);
}

// A histogram: bins [edges[i], edges[i+1]) with values[i]. opts: colour,
// xFormat, yFormat, xLabel, yLabel, tip(i) -> content, tooltip.
export function columnsChart(host, edges, values, opts = {}) {
  const d3 = getD3();
  clear(host);
  if (!values.length) { host.appendChild(h('p', { class: 'muted small' }, opts.empty || 'Nothing to show.')); return; }
  const W = widthOf(host), H = opts.height || 220, m = { l: 62, r: 14, t: 14, b: 36 };
  const x = d3.scaleLinear().domain([edges[0], edges[edges.length - 1] > edges[0] ? edges[edges.length - 1] : edges[0] + 1]).range([m.l, W - m.r]);
  const y = d3.scaleLinear().domain([0, d3.max(values) || 1]).nice().range([H - m.b, m.t]);
  const s = d3.select(host).append(() => svg('svg', { width: W, height: H, class: 'ev-chart ev-columns', role: 'img', 'aria-label': opts.label || 'histogram' }));
  chartAxes(s, x, y, W, H, m, opts);
  s.append('g').selectAll('rect').data(values).join('rect').attr('class', 'ev-col')
    .attr('x', (v, i) => x(edges[i]) + 0.5).attr('width', (v, i) => Math.max(1, x(edges[i + 1]) - x(edges[i]) - 1))
    .attr('y', (v) => y(v)).attr('height', (v) => Math.max(0, y(0) - y(v))).attr('fill', opts.colour)
    .attr('data-i', (v, i) => i);
  // full-height hover targets per bin
  s.append('g').selectAll('rect').data(values).join('rect').attr('class', 'ev-hit')
    .attr('x', (v, i) => x(edges[i])).attr('width', (v, i) => Math.max(1, x(edges[i + 1]) - x(edges[i])))
    .attr('y', m.t).attr('height', H - m.b - m.t).attr('fill', 'transparent')
    .on('mousemove', (ev, v) => { const i = values.indexOf(v); if (opts.tooltip && opts.tip) opts.tooltip.show(ev, opts.tip(hitIndex(ev, x, edges, i))); })
    .on('mouseleave', () => opts.tooltip && opts.tooltip.hide());
}

// The bin under the pointer (several bins may hold the same value).
function hitIndex(ev, x, edges, fallback) {
  const rect = ev.currentTarget.ownerSVGElement.getBoundingClientRect();
  const t = x.invert(ev.clientX - rect.left);
  for (let i = 0; i < edges.length - 1; i++) if (t >= edges[i] && t <= edges[i + 1]) return i;
  return fallback;
}

// Stacked areas over time bins: series [{name, values}] stacked in order;
// opts: colourOf(name), focus (a name or null: others dimmed), onClick(name),
// tip(name, i) -> content, tooltip, yFormat, yLabel, xLabel, xFormat.
export function stackedAreas(host, edges, series, opts = {}) {
  const d3 = getD3();
  clear(host);
  if (!series.length || edges.length < 2) { host.appendChild(h('p', { class: 'muted small' }, opts.empty || 'Nothing to show.')); return; }
  const W = widthOf(host), H = opts.height || 260, m = { l: 62, r: 14, t: 14, b: 36 };
  const n = edges.length - 1, mids = d3.range(n).map((i) => (edges[i] + edges[i + 1]) / 2);
  const stack = d3.stack().keys(series.map((s, k) => k)).value((i, k) => series[k].values[i] || 0)(d3.range(n));
  const top = d3.max(stack.length ? stack[stack.length - 1] : [], (d) => d[1]) || 1;
  const x = d3.scaleLinear().domain([edges[0], edges[n]]).range([m.l, W - m.r]);
  const y = d3.scaleLinear().domain([0, opts.yMax || top]).nice().range([H - m.b, m.t]);
  const s = d3.select(host).append(() => svg('svg', { width: W, height: H, class: 'ev-chart ev-areas', role: 'img', 'aria-label': opts.label || 'stacked areas' }));
  chartAxes(s, x, y, W, H, m, opts);
  // step areas: each bin is flat over its width, as the histogram it is
  const pts = (layer) => {
    const out = [];
    for (let i = 0; i < n; i++) out.push([edges[i], layer[i]], [edges[i + 1], layer[i]]);
    return out;
  };
  const area = d3.area().x((p) => x(p[0])).y0((p) => y(p[1][0])).y1((p) => y(p[1][1]));
  s.append('g').selectAll('path').data(stack).join('path')
    .attr('class', (layer) => {
      const name = series[layer.key].name;
      return `ev-area${opts.focus === name ? ' is-focused' : ''}${opts.focus && opts.focus !== name ? ' is-dimmed' : ''}`;
    })
    .attr('data-fn', (layer) => series[layer.key].name)
    .attr('d', (layer) => area(pts(layer)))
    .attr('fill', (layer) => opts.colourOf(series[layer.key].name))
    .style('cursor', opts.onClick ? 'pointer' : null)
    .on('mousemove', (ev, layer) => {
      if (!opts.tooltip || !opts.tip) return;
      const rect = ev.currentTarget.ownerSVGElement.getBoundingClientRect();
      const t = x.invert(ev.clientX - rect.left);
      const i = Math.max(0, Math.min(n - 1, d3.bisectRight(edges, t) - 1));
      opts.tooltip.show(ev, opts.tip(series[layer.key].name, i));
    })
    .on('mouseleave', () => opts.tooltip && opts.tooltip.hide())
    .on('click', (ev, layer) => opts.onClick && opts.onClick(series[layer.key].name));
  host.dataset.bins = String(n);
  host.dataset.mids = String(mids.length);
}
