// lib/time_panels.js: the panels under the Gantt chart (the VPA 2016
// paper's Fig. 3 b-d), on the Gantt's time axis and zoom: the iteration
// panel (one horizontal segment per outer-loop iteration, from the first
// start to the last end of its tasks), and the ready and submitted task
// counts (StarPU's variables, per-pixel min/max from the server) with the
// periods when fewer tasks were ready than workers shaded; and, picked by
// the user (URL parameter `panels`), StarVZ's other panels from
// /traces/{id}/panels: memory used per memory node (StarPU's variable, and
// from the data.rec sizes of the handles present), the memory-manager
// states per memory node, GPU and MPI transfer bandwidth, GFlop/s per node
// and resource type, each with its unit, a legend, tooltips and a CSV
// download of its series.
//
// Not a tab of its own: views/gantt.js creates a TimePanels under its chart
// and forwards its window; the panels re-request the time series for each
// new window (debounced) and redraw what they have meanwhile.
import { api } from '../api.js';
import { h, clear } from '../dom.js';
import { getD3 } from '../d3.js';
import { svg } from './svg.js';
import { fmtTime, fmtCount, fmtQuantity } from './format.js';
import { filterQuery } from './filters.js';
import { LABEL_W, IDLE_W } from './layout.js';
import { attachTimeInteractions } from './time_interactions.js';
import { parseHash, updateParams } from '../router.js';
import { typeColor, stateColor } from '../colors.js';

const ITER_H = 96;
const SERIES_H = 64;
const GAP = 8;
const DEBOUNCE_MS = 150;
const EXTRA_H = 80;
const EXTRA_IDS = ['memory', 'memory_handles', 'memory_states', 'gpu_bandwidth', 'mpi_bandwidth', 'gflops'];
const EXTRA_LABEL = { memory: 'Memory', memory_handles: 'Memory (data)', memory_states: 'Mem. manager', gpu_bandwidth: 'GPU bandwidth', mpi_bandwidth: 'MPI bandwidth', gflops: 'GFlop/s' };
const STATE_ROW_H = 18;
const STATE_TOP = 20;

export class TimePanels {
  // opts: traceId, unit, filters, domain, onDomain(d), reset(), signal (an
  // AbortSignal that cancels its requests)
  constructor(opts) {
    this.o = opts;
    this.filters = opts.filters;
    this.domain = opts.domain;
    this.iterations = null;
    this.series = null;
    this.seq = 0;
    const picked = (parseHash(location.hash).params.panels || '').split(',');
    this.extra = new Set(EXTRA_IDS.filter((id) => picked.includes(id)));
    this.extraDoc = null;
    this.picker = h('div', { class: 'panel-picker small', role: 'group', 'aria-label': 'Panels under the Gantt',
      style: 'display:flex;flex-wrap:wrap;gap:0.35rem 1rem;align-items:center;margin-bottom:0.35rem' });
    this.legendEl = h('div', { class: 'legend panel-legends small' });
    this.note = h('p', { class: 'muted small panel-note' });
    this.svgEl = svg('svg', { class: 'time-panels-svg' });
    this.tooltip = h('div', { class: 'gantt-tooltip', role: 'tooltip', hidden: true });
    this.holder = h('div', { class: 'time-panels-plot' }, this.svgEl, this.tooltip);
    this.el = h('section', { class: 'panel time-panels', 'aria-label': 'Iterations, ready and submitted tasks' },
      this.picker, this.holder, this.legendEl, this.note);
    attachTimeInteractions(this.holder, {
      plotBox: () => this.plotBox(),
      getDomain: () => this.domain,
      setDomain: (d) => opts.onDomain(d),
      reset: () => opts.reset(),
      onHover: (x, y) => this.hover(x, y),
      onLeave: () => { this.tooltip.hidden = true; },
      brushHost: () => this.svgEl,
    });
  }

  plotBox() {
    const w = this.holder.clientWidth || 900;
    return { left: LABEL_W, top: 0, width: Math.max(50, w - LABEL_W - IDLE_W), height: this.height || 0 };
  }

  setDomain(d) { this.domain = d; this.draw(); }
  setFilters(f) { this.filters = f; this.iterations = null; }

  // Stops the pending fetch timer and ignores the answers still in flight.
  dispose() {
    clearTimeout(this.timer);
    this.seq++;
  }

  scheduleFetch() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.fetch(), DEBOUNCE_MS);
  }

  async fetch() {
    clearTimeout(this.timer);
    const seq = ++this.seq;
    const q = filterQuery(this.filters);
    const width = Math.min(10000, Math.max(1, Math.round(this.plotBox().width)));
    const opts = { signal: this.o.signal };
    const jobs = [api.get(`/traces/${this.o.traceId}/timeseries`, { ...q, start: this.domain[0], end: this.domain[1], width }, opts)
      .then((b) => ({ ok: b }), (e) => ({ err: e }))];
    if (!this.iterations) {
      jobs.push(api.get(`/traces/${this.o.traceId}/iterations`, q, opts).then((b) => ({ ok: b }), (e) => ({ err: e })));
    }
    const extra = [...this.extra];
    const pq = { ...q, start: this.domain[0], end: this.domain[1], width: extra.length ? width : 1, panels: extra.length ? extra.join(',') : 'gflops' };
    const panelJob = extra.length || !this.extraDoc
      ? api.get(`/traces/${this.o.traceId}/panels`, pq, opts).then((b) => ({ ok: b }), (e) => ({ err: e })) : null;
    const [ts, it] = await Promise.all(jobs);
    const pj = panelJob ? await panelJob : null;
    if (seq !== this.seq) return;
    if (pj) {
      this.extraError = pj.err || null;
      if (pj.ok) this.extraDoc = extra.length ? pj.ok : { ...pj.ok, panels: [] };
      this.drawPicker();
    }
    this.series = ts.ok || null;
    this.seriesError = ts.err || null;
    if (it) { this.iterations = it.ok || { iterations: [] }; this.iterError = it.err || null; }
    this.draw();
  }

  draw() {
    if (!this.domain || (!this.series && !this.iterations && !this.seriesError)) return;
    const d3 = getD3();
    const box = this.plotBox();
    const x = d3.scaleLinear().domain(this.domain).range([box.left, box.left + box.width]);
    this.x = x;
    const s = d3.select(this.svgEl);
    s.selectAll('*').remove();
    let y = 6;
    const notes = [];
    const iters = (this.iterations && this.iterations.iterations) || [];
    this.iterBox = null;
    if (iters.length) { this.drawIterations(s, x, y, iters); y += ITER_H + GAP; }
    else notes.push(this.iterError ? `Iterations: ${this.iterError.message}` : 'No iteration numbers in this trace (tasks.rec Iteration or the StarVZ Iteration column).');
    this.seriesBoxes = [];
    const series = (this.series && this.series.series) || [];
    for (const name of ['ready', 'submitted']) {
      const sr = series.filter((q) => q.name === name);
      if (!sr.length || !sr.some((q) => q.points && q.points.length)) continue;
      this.drawSeries(s, x, y, name, sr[0], name === 'ready' ? this.series : null);
      y += SERIES_H + GAP;
    }
    if (this.seriesError) notes.push(`Ready/submitted tasks: ${this.seriesError.message}`);
    else if (this.series && !this.seriesBoxes.length) notes.push('This trace records no ready or submitted task counts (StarPU variables).');
    this.extraBoxes = [];
    const legends = [];
    const order = (this.extraDoc && this.extraDoc.panels ? [...this.extraDoc.panels] : [])
      .sort((a, b) => EXTRA_IDS.indexOf(a.id) - EXTRA_IDS.indexOf(b.id));
    for (const p of order) {
      if (!this.extra.has(p.id)) continue;
      const hgt = p.id === 'memory_states' ? this.drawStates(s, x, y, p) : (this.drawExtra(s, x, y, p), EXTRA_H);
      legends.push(this.extraLegend(p));
      y += hgt + GAP;
    }
    if (this.extraError) notes.push(`Panels: ${this.extraError.message}`);
    clear(this.legendEl).append(...legends);
    this.height = y;
    s.attr('width', this.holder.clientWidth).attr('height', Math.max(1, y));
    this.holder.style.height = `${Math.max(1, y)}px`;
    this.note.textContent = notes.join(' ');
    this.note.hidden = notes.length === 0;
    this.el.hidden = y <= 6 && notes.length === 0;
  }

  drawIterations(s, x, y0, iters) {
    const d3 = getD3();
    const g = s.append('g').attr('class', 'ts-panel iterations').attr('data-count', iters.length);
    const ys = d3.scaleBand().domain(iters.map((i) => i.iteration)).range([y0 + 4, y0 + ITER_H - 4]).paddingInner(0.25);
    this.iterBox = { y0, y1: y0 + ITER_H, iters, ys };
    panelFrame(g, x, y0, ITER_H, 'Iteration');
    const clipId = `clip-it-${this.o.traceId}`;
    s.append('clipPath').attr('id', clipId).append('rect').attr('x', x.range()[0]).attr('y', y0)
      .attr('width', x.range()[1] - x.range()[0]).attr('height', ITER_H);
    const inner = g.append('g').attr('clip-path', `url(#${clipId})`);
    const bh = Math.max(1, Math.min(8, ys.bandwidth()));
    inner.selectAll('rect.iter').data(iters).join('rect').attr('class', 'iter')
      .attr('data-iteration', (d) => d.iteration)
      .attr('x', (d) => x(d.start)).attr('width', (d) => Math.max(1, x(d.end) - x(d.start)))
      .attr('y', (d) => ys(d.iteration) + (ys.bandwidth() - bh) / 2).attr('height', bh);
    // a few iteration numbers on the left axis
    const step = Math.ceil(iters.length / Math.max(1, Math.floor(ITER_H / 12)));
    g.selectAll('text.tick-label').data(iters.filter((d, i) => i % step === 0)).join('text').attr('class', 'tick-label')
      .attr('x', x.range()[0] - 6).attr('y', (d) => ys(d.iteration) + ys.bandwidth() / 2).attr('dy', '0.35em')
      .attr('text-anchor', 'end').text((d) => d.iteration);
    const maxPar = maxConcurrent(iters);
    g.append('text').attr('class', 'panel-side').attr('x', x.range()[1] + 6).attr('y', y0 + 14).text(`${iters.length} it.`);
    g.append('text').attr('class', 'panel-side muted').attr('x', x.range()[1] + 6).attr('y', y0 + 28)
      .text(`≤${maxPar} at once`).append('title').text(`At most ${maxPar} iterations overlap in time`);
  }

  drawSeries(s, x, y0, name, series, ready) {
    const d3 = getD3();
    const pts = series.points.filter((p) => Array.isArray(p) && p.length >= 4);
    const g = s.append('g').attr('class', `ts-panel series-${name}`).attr('data-points', pts.length);
    const maxV = Math.max(1, d3.max(pts, (p) => p[2]) || 0, ready ? ready.threshold || 0 : 0);
    const ys = d3.scaleLinear().domain([0, maxV]).nice(3).range([y0 + SERIES_H, y0 + 4]);
    this.seriesBoxes.push({ name, y0, y1: y0 + SERIES_H, pts, ys });
    panelFrame(g, x, y0, SERIES_H, name === 'ready' ? 'Ready tasks' : 'Submitted');
    const clipId = `clip-${name}-${this.o.traceId}`;
    s.append('clipPath').attr('id', clipId).append('rect').attr('x', x.range()[0]).attr('y', y0)
      .attr('width', x.range()[1] - x.range()[0]).attr('height', SERIES_H);
    const inner = g.append('g').attr('clip-path', `url(#${clipId})`);
    if (ready) {
      inner.selectAll('rect.starved').data(ready.starved || []).join('rect').attr('class', 'starved')
        .attr('x', (d) => x(d[0])).attr('width', (d) => Math.max(1, x(d[1]) - x(d[0])))
        .attr('y', y0).attr('height', SERIES_H)
        .append('title').text((d) => `Not enough ready tasks (< ${ready.threshold}) from ${fmtTime(d[0])} to ${fmtTime(d[1], this.o.unit)}`);
      if (typeof ready.threshold === 'number') {
        inner.append('line').attr('class', 'threshold').attr('x1', x.range()[0]).attr('x2', x.range()[1])
          .attr('y1', ys(ready.threshold)).attr('y2', ys(ready.threshold));
      }
    }
    // per-pixel points: [t, min, max, last]; the band is min..max
    const dt = pts.length > 1 ? pts[1][0] - pts[0][0] : 0;
    const area = d3.area().curve(d3.curveStepAfter).x((p) => x(p[0])).y0((p) => ys(p[1])).y1((p) => ys(p[2]));
    const line = d3.line().curve(d3.curveStepAfter).x((p) => x(p[0])).y((p) => ys(p[3]));
    const ext = pts.length ? [...pts, [pts[pts.length - 1][0] + dt, ...pts[pts.length - 1].slice(1)]] : pts;
    inner.append('path').attr('class', `ts-area ts-${name}`).attr('d', area(ext));
    inner.append('path').attr('class', `ts-line ts-${name}`).attr('d', line(ext));
    const axis = g.append('g').attr('class', 'axis').attr('transform', `translate(${x.range()[0]},0)`)
      .call(d3.axisLeft(ys).ticks(3).tickSizeOuter(0).tickFormat(d3.format('~s')));
    axis.select('.domain').remove();
    if (ready) {
      const total = (ready.starved || []).reduce((a, d) => a + Math.max(0, Math.min(d[1], this.domain[1]) - Math.max(d[0], this.domain[0])), 0);
      g.append('text').attr('class', 'panel-side').attr('x', x.range()[1] + 6).attr('y', y0 + 14)
        .text(`threshold ${fmtCount(ready.threshold)}`).append('title').text('Fewer ready tasks than this (by default the number of workers in the shown rows) is shaded as starved');
      g.append('text').attr('class', `panel-side starved-share${total > 0 ? '' : ' muted'}`).attr('x', x.range()[1] + 6).attr('y', y0 + 28)
        .attr('data-value', total / (this.domain[1] - this.domain[0]))
        .text(`${Math.round(100 * total / (this.domain[1] - this.domain[0]))}% starved`);
    }
  }

  // The URL parameter of the picked panels (views/gantt.js keeps it when it
  // rewrites the URL).
  urlParams() { return { panels: [...this.extra].join(',') }; }

  // One checkbox per panel of /panels; a panel this trace lacks is disabled,
  // its reason in the tooltip.
  drawPicker() {
    const avail = (this.extraDoc && this.extraDoc.available) || [];
    const boxes = avail.map((a) => {
      const input = h('input', { type: 'checkbox', 'data-panel': a.id, checked: this.extra.has(a.id) && a.available, disabled: !a.available });
      input.addEventListener('change', () => {
        if (input.checked) this.extra.add(a.id); else this.extra.delete(a.id);
        updateParams({ ...parseHash(location.hash).params, ...this.urlParams() });
        this.fetch();
      });
      return h('label', { class: `check${a.available ? '' : ' muted'}`, title: a.available ? a.title : `${a.title}: unavailable, ${a.reason}` },
        input, EXTRA_LABEL[a.id] || a.id);
    });
    clear(this.picker).append(h('span', { class: 'muted' }, 'Panels under the Gantt (as StarVZ):'), ...boxes);
  }

  drawExtra(s, x, y0, p) {
    const d3 = getD3();
    const g = s.append('g').attr('class', `ts-panel extra-panel panel-${p.id}`).attr('data-series', p.series.length);
    const pts = p.series.flatMap((q) => q.points);
    const lo = Math.min(0, d3.min(pts, (q) => q[1]) || 0), hi = Math.max(1e-9, d3.max(pts, (q) => q[1]) || 0);
    const ys = d3.scaleLinear().domain([lo, hi]).nice(3).range([y0 + EXTRA_H, y0 + 4]);
    this.extraBoxes.push({ p, y0, y1: y0 + EXTRA_H });
    panelFrame(g, x, y0, EXTRA_H, EXTRA_LABEL[p.id] || p.id);
    if (p.unit !== (EXTRA_LABEL[p.id] || p.id)) g.append('text').attr('class', 'tick-label').attr('x', 6).attr('y', y0 + 28).text(`(${p.unit})`);
    const clipId = `clip-${p.id}-${this.o.traceId}`;
    s.append('clipPath').attr('id', clipId).append('rect').attr('x', x.range()[0]).attr('y', y0)
      .attr('width', x.range()[1] - x.range()[0]).attr('height', EXTRA_H);
    const inner = g.append('g').attr('clip-path', `url(#${clipId})`);
    const step = this.extraDoc.step;
    const line = d3.line().curve(d3.curveStepAfter).defined((q) => q !== null).x((q) => x(q[0])).y((q) => ys(q[1]));
    for (const q of p.series) {
      // a gap (step without data) breaks the line
      const path = [];
      q.points.forEach((pt, i) => {
        if (i > 0 && pt[0] - q.points[i - 1][0] > step * 1.5) path.push(null);
        path.push(pt);
      });
      if (q.points.length) path.push([q.points[q.points.length - 1][0] + step, q.points[q.points.length - 1][1]]);
      inner.append('path').attr('class', 'ts-line extra-line').attr('data-name', q.name)
        .attr('fill', 'none').attr('stroke', seriesColor(p, q)).attr('stroke-width', 1.3).attr('d', line(path));
    }
    const axis = g.append('g').attr('class', 'axis').attr('transform', `translate(${x.range()[0]},0)`)
      .call(d3.axisLeft(ys).ticks(3).tickSizeOuter(0).tickFormat(d3.format('~s')));
    axis.select('.domain').remove();
    // the panel's name and unit take the top-left corner: no tick label there
    axis.selectAll('.tick').filter((v) => ys(v) < y0 + 34).select('text').remove();
    const peak = d3.max(pts, (q) => (q.length > 3 ? q[3] : q[1]));
    g.append('text').attr('class', 'panel-side').attr('x', x.range()[1] + 6).attr('y', y0 + 14)
      .text(`${p.series.length} series`);
    if (Number.isFinite(peak)) {
      g.append('text').attr('class', 'panel-side muted').attr('x', x.range()[1] + 6).attr('y', y0 + 28)
        .text(`max ${d3.format('.3~s')(peak)}`).append('title').text(`Largest value in the window: ${peak} ${p.unit}`);
    }
  }

  // The memory-manager states (StarVZ's panel_memory_state): one row per
  // memory manager, one lane per state, a mark for each step the state
  // occupies, more opaque the larger its share of the step (a 1 % share
  // still shows). Returns the panel's height.
  drawStates(s, x, y0, p) {
    const d3 = getD3();
    const containers = [...new Set(p.series.map((q) => q.container))];
    const states = [...new Set(p.series.map((q) => q.state))].sort();
    const H = Math.max(EXTRA_H, STATE_TOP + containers.length * STATE_ROW_H + 4);
    const g = s.append('g').attr('class', 'ts-panel extra-panel panel-memory_states')
      .attr('data-series', p.series.length).attr('data-rows', containers.length);
    const rows = d3.scaleBand().domain(containers).range([y0 + STATE_TOP, y0 + STATE_TOP + containers.length * STATE_ROW_H]).paddingInner(0.15);
    const lanes = d3.scaleBand().domain(states).range([0, rows.bandwidth()]).paddingInner(0.1);
    this.extraBoxes.push({ p, y0, y1: y0 + H, rows, states });
    panelFrame(g, x, y0, H, EXTRA_LABEL[p.id]);
    const clipId = `clip-${p.id}-${this.o.traceId}`;
    s.append('clipPath').attr('id', clipId).append('rect').attr('x', x.range()[0]).attr('y', y0)
      .attr('width', x.range()[1] - x.range()[0]).attr('height', H);
    const inner = g.append('g').attr('clip-path', `url(#${clipId})`);
    const step = this.extraDoc.step;
    const w = Math.max(1, x(this.extraDoc.start + step) - x(this.extraDoc.start));
    for (const q of p.series) {
      inner.append('g').attr('class', 'mm-state').attr('data-name', q.name).attr('data-state', q.state)
        .attr('fill', stateColor(q.state, q.color))
        .selectAll('rect').data(q.points).join('rect')
        .attr('x', (pt) => x(pt[0])).attr('width', w)
        .attr('y', rows(q.container) + lanes(q.state)).attr('height', Math.max(1, lanes.bandwidth()))
        .attr('fill-opacity', (pt) => Math.min(1, 0.45 + pt[1]));
    }
    g.selectAll('text.tick-label').data(containers).join('text').attr('class', 'tick-label')
      .attr('x', x.range()[0] - 6).attr('y', (c) => rows(c) + rows.bandwidth() / 2).attr('dy', '0.35em')
      .attr('text-anchor', 'end').text((c) => c.replace('MEMMANAGER', 'MM'))
      .append('title').text((c) => c);
    const alloc = p.series.filter((q) => q.state === 'Allocating');
    const share = alloc.length ? d3.max(alloc, (q) => q.share) : null;
    g.append('text').attr('class', 'panel-side').attr('x', x.range()[1] + 6).attr('y', y0 + 14)
      .text(`${containers.length} mem. node${containers.length === 1 ? '' : 's'}`);
    if (share !== null) {
      g.append('text').attr('class', 'panel-side muted').attr('x', x.range()[1] + 6).attr('y', y0 + 28)
        .text(`alloc ≤${fmtShare(share)}`).append('title')
        .text(`Largest share of the window a memory manager spends Allocating: ${fmtShare(share)}`);
    }
    return H;
  }

  // The legend of one panel: its title, unit and aggregation, a swatch per
  // series, and the CSV download of its series.
  extraLegend(p) {
    const csv = h('a', { class: 'btn btn-small', href: '#', 'data-csv': p.id, title: `Download the series of this panel as CSV (${p.unit})` }, 'CSV');
    csv.addEventListener('click', (e) => { e.preventDefault(); downloadCsv(p, this.extraDoc, this.o); });
    return h('div', { class: 'panel-legend', 'data-panel': p.id },
      h('strong', { title: p.aggregation }, `${p.title} (${p.unit})`), ' ',
      p.id === 'memory_states'
        ? [...new Map(p.series.map((q) => [q.state, q.color]))].sort().map(([st, color]) => h('span', { class: 'legend-item', 'data-state': st },
          h('span', { class: 'swatch', style: `background:${stateColor(st, color)}` }), st))
        : p.series.map((q) => h('span', { class: 'legend-item' }, h('span', { class: 'swatch', style: `background:${seriesColor(p, q)}` }), q.name)),
      ' ', csv);
  }

  // The tooltip of the memory-manager row under the pointer: each state's
  // share of the hovered step, its count and time in the window.
  stateTip(b, t, py) {
    const c = b.rows.domain().find((name) => py >= b.rows(name) - 2 && py <= b.rows(name) + b.rows.bandwidth() + 2);
    if (!c) return null;
    const step = this.extraDoc.step;
    const t0 = this.extraDoc.start + Math.floor((t - this.extraDoc.start) / step) * step;
    const rows = b.p.series.filter((q) => q.container === c).map((q) => {
      const pt = q.points.find((r) => t >= r[0] && t < r[0] + step);
      return h('tr', {}, h('th', { style: 'white-space:nowrap' }, h('span', { class: 'swatch', style: `display:inline-block;margin-right:4px;background:${stateColor(q.state, q.color)}` }), q.state),
        h('td', { style: 'white-space:nowrap' }, fmtShare(pt ? pt[1] : 0)),
        h('td', { style: 'white-space:nowrap' }, `${fmtCount(q.count)} · ${fmtTime(q.time, this.o.unit)}`));
    });
    return [h('div', { class: 'tt-title' }, `${c}: memory manager states`),
      h('div', { class: 'tt-sub' }, `step ${fmtTime(t0)} – ${fmtTime(t0 + step, this.o.unit)}`),
      h('table', {}, h('tr', {}, h('th', {}, 'state'), h('th', { title: 'Share of the hovered step' }, 'step'), h('th', { title: 'States overlapping the window: count · time inside it' }, 'window')), rows)];
  }

  hover(px, py) {
    const box = this.plotBox();
    if (!this.x || px < box.left || px > box.left + box.width) { this.tooltip.hidden = true; return; }
    const t = this.x.invert(px);
    let content = null;
    if (this.iterBox && py >= this.iterBox.y0 && py <= this.iterBox.y1) {
      const { iters, ys } = this.iterBox;
      const it = iters.find((d) => py >= ys(d.iteration) - 2 && py <= ys(d.iteration) + ys.bandwidth() + 2
        && t >= d.start - (this.domain[1] - this.domain[0]) / 200 && t <= d.end + (this.domain[1] - this.domain[0]) / 200);
      if (it) {
        content = [h('div', { class: 'tt-title' }, `Iteration ${it.iteration}`),
          h('table', {}, h('tr', {}, h('th', {}, 'From'), h('td', {}, fmtTime(it.start, this.o.unit))),
            h('tr', {}, h('th', {}, 'To'), h('td', {}, fmtTime(it.end, this.o.unit))),
            h('tr', {}, h('th', {}, 'Span'), h('td', {}, fmtTime(it.end - it.start, this.o.unit))),
            h('tr', {}, h('th', {}, 'Tasks'), h('td', {}, String(it.tasks))),
            it.types ? h('tr', {}, h('th', {}, 'Types'), h('td', {}, Object.entries(it.types).map(([k, v]) => `${k} ${v}`).join(', '))) : null)];
      }
    }
    for (const b of this.seriesBoxes || []) {
      if (py < b.y0 || py > b.y1 || !b.pts.length) continue;
      let i = b.pts.findIndex((p) => p[0] > t) - 1;
      if (i < -1) i = b.pts.length - 1;
      const p = b.pts[Math.max(0, i)];
      content = [h('div', { class: 'tt-title' }, b.name === 'ready' ? 'Ready tasks' : 'Submitted, not completed'),
        h('div', { class: 'tt-sub' }, `at ${fmtTime(p[0], this.o.unit)}`),
        h('table', {}, h('tr', {}, h('th', {}, 'min'), h('td', {}, fmtCount(p[1]))),
          h('tr', {}, h('th', {}, 'max'), h('td', {}, fmtCount(p[2]))),
          h('tr', {}, h('th', {}, 'last'), h('td', {}, fmtCount(p[3]))))];
    }
    for (const b of this.extraBoxes || []) {
      if (py < b.y0 || py > b.y1) continue;
      if (b.rows) { content = this.stateTip(b, t, py) || content; continue; }
      const step = this.extraDoc.step;
      const rows = b.p.series.map((q) => {
        const pt = q.points.find((r) => t >= r[0] && t < r[0] + step);
        if (!pt) return null;
        const extra = pt.length > 3 && pt[2] !== pt[3] ? ` (${fmtQuantity(pt[2])} to ${fmtQuantity(pt[3])})` : '';
        return h('tr', {}, h('th', { style: 'white-space:nowrap' }, h('span', { class: 'swatch', style: `display:inline-block;margin-right:4px;background:${seriesColor(b.p, q)}` }), q.name),
          h('td', { style: 'white-space:nowrap' }, `${fmtQuantity(pt[1], b.p.unit)}${extra}`));
      }).filter(Boolean);
      const t0 = this.extraDoc.start + Math.floor((t - this.extraDoc.start) / step) * step;
      content = [h('div', { class: 'tt-title' }, b.p.title),
        h('div', { class: 'tt-sub' }, `${fmtTime(t0)} – ${fmtTime(t0 + step, this.o.unit)} · ${b.p.aggregation}`),
        rows.length ? h('table', {}, rows) : h('div', {}, 'no value in this step')];
    }
    if (!content) { this.tooltip.hidden = true; return; }
    clear(this.tooltip).append(...content);
    this.tooltip.hidden = false;
    const tw = this.tooltip.offsetWidth;
    this.tooltip.style.left = `${px + 14 + tw > this.holder.clientWidth ? px - tw - 14 : px + 14}px`;
    this.tooltip.style.top = `${Math.max(0, py - 10)}px`;
  }
}

// A share in [0, 1] as a percentage that keeps small shares readable.
function fmtShare(v) {
  const pct = 100 * v;
  return pct === 0 ? '0%' : pct < 0.01 ? '<0.01%' : pct < 10 ? `${pct.toPrecision(2)}%` : `${Math.round(pct)}%`;
}

function panelFrame(g, x, y0, height, label) {
  g.append('rect').attr('class', 'ts-frame').attr('x', x.range()[0]).attr('y', y0)
    .attr('width', x.range()[1] - x.range()[0]).attr('height', height);
  g.append('text').attr('class', 'ts-label').attr('x', 6).attr('y', y0 + 14).text(label);
}

// The largest number of iterations whose [start, end] overlap.
function maxConcurrent(iters) {
  const ev = [];
  for (const i of iters) { ev.push([i.start, 1]); ev.push([i.end, -1]); }
  ev.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let cur = 0, max = 0;
  for (const [, d] of ev) { cur += d; max = Math.max(max, cur); }
  return max;
}

// The series of a panel as CSV: one row per (series, step).
function downloadCsv(p, doc, o) {
  const cols = p.columns || ['t', 'value'];
  const head = ['series', 'node', ...cols.map((c) => (c === 't' ? `start (${doc.time_unit})` : `${c} (${p.unit})`))];
  const lines = [head.join(',')];
  for (const q of p.series) {
    for (const pt of q.points) lines.push([JSON.stringify(q.name), q.node ?? '', ...pt].join(','));
  }
  const blob = new Blob([lines.join('\n') + '\n'], { type: 'text/csv' });
  const a = h('a', { href: URL.createObjectURL(blob), download: `trace${o.traceId}-${p.id}-${doc.start}-${doc.end}.csv` });
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

// A series' colour: that of its node (the same in every panel) when each
// node has one series in the panel, else that of its name.
function seriesColor(p, q) {
  const nodes = new Set(p.series.map((r) => r.node));
  return nodes.size === p.series.length ? typeColor(`node ${q.node}`) : typeColor(q.name);
}
