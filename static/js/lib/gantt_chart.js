// lib/gantt_chart.js: the Gantt chart of a task trace (StarVZ, the VPA 2016
// paper's Fig. 3 and 5), drawn by views/gantt.js and side by side by
// js/compare.js: one row per worker grouped by node and resource type, the
// tasks coloured by type (outliers darker), the idleness of each worker at
// the right (idle = 1 - task time / span, StarVZ's; the tooltip lists the
// runtime states: Sleeping, Overhead, ...), vertical lines for the makespan,
// the area bound (ABE) and the critical-path bound (CPE), and the dynamic
// critical path as connected segments.
//
// Level of detail, i.e. the server-side per-pixel aggregation: GET
// /traces/{id}/gantt answers the window at the drawing width, each row either
// with its tasks (mode 'tasks') or, when they are too many, with the share
// of each task type in every pixel column (mode 'pixels', see
// drawPixelAggregation and pixelAggregationTooltip). So the chart
// re-requests its window after each zoom or pan (debounced) and meanwhile
// redraws what it has at the new scale.
//
// Two optional layers (setRuntime, setMpi; views/gantt.js keeps them in the
// URL): the runtime states of each worker (GET /states on the workers'
// containers: Sleeping, Overhead, FetchingInput, ..., every state value that
// is not a task type) as a thin band under its tasks, and the MPI
// communications (GET /links) as lines from the sender's rank at the send to
// the receiver's rank at the reception, in red when the reception is stamped
// before the send (the ranks' clocks differ).
import { api } from '../api.js';
import { h, clear } from '../dom.js';
import { getD3 } from '../d3.js';
import { typeColor, outlierColor, GANTT, stateColor, TIMELINE } from '../colors.js';
import { svg } from './svg.js';
import { fmtTime, fmtPercent, formatNumber } from './format.js';
import { filterQuery } from './filters.js';
import { LABEL_W, IDLE_W } from './layout.js';
import { attachTimeInteractions } from './time_interactions.js';
import { originNote } from './origin.js';

export const DEBOUNCE_MS = 150;
const TOP = 62;               // mark labels (2 lines of 16) + time axis (30)
const ORIGIN_H = 16;          // the origin note under the plot (lib/origin.js)
const IDLE_DEFINITION = 'idle = 1 - task time / span (StarVZ): the share of the window in which the worker runs no task';
const MARKS = [
  { key: 'cpe', label: 'CPE', title: 'Critical-path bound estimation' },
  { key: 'abe', label: 'ABE', title: 'Area bound estimation' },
  { key: 'makespan', label: 'Makespan', title: 'Makespan (latest end)' },
];

// A row's idle tooltip: the idleness, then its runtime states by share.
function idleTooltip(r) {
  const states = Object.entries(r.states || {}).sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `\n  ${k}: ${fmtPercent(v)}`).join('');
  return `${r.name}: idle ${fmtPercent(r.idle)} (idle = 1 - task time / span of the window)` +
    (states ? `\nruntime states (share of the window):${states}` : '');
}

// ---- rows ---------------------------------------------------------------------

function rowKey(r) {
  return `${r.node}|${r.resource_type}|${r.resource}`;
}

function byNatural(a, b) {
  return a.localeCompare(b, 'en', { numeric: true });
}

// The row order of the dashboard: node, resource type, resource (numeric-aware).
export function sortRows(rows) {
  return [...rows].sort((a, b) => (a.node - b.node) || byNatural(a.resource_type, b.resource_type)
    || byNatural(a.resource, b.resource));
}

// The aligned row layout of several traces (union of their rows).
export function unionRows(rowLists) {
  const seen = new Map();
  for (const rows of rowLists) for (const r of rows) if (!seen.has(rowKey(r))) seen.set(rowKey(r), r);
  return sortRows([...seen.values()]).map((r) => ({ key: rowKey(r), node: r.node, resource_type: r.resource_type,
    resource: r.resource, name: r.name }));
}

export class GanttChart {
  // opts: traceId, unit, filters, maxHeight (of the rows), extent (to impose
  // one, e.g. the common extent of compared traces),
  // onDomain(domain) (the chart asks for a new window), onLoad(body),
  // onError(err), label (accessible name), fixedMarks (compare.js sets the
  // lines itself), signal (an AbortSignal that cancels its requests).
  constructor(opts) {
    this.o = opts;
    this.unit = opts.unit || '';
    this.filters = opts.filters;
    this.domain = null;
    this.extent = null;
    this.data = null;
    this.layout = null;       // [{key, node, resource_type, resource, name}]
    this.fixedLayout = false;
    this.cp = null;           // critical-path answer
    this.seq = 0;
    this.width = 0;
    this.runtime = null;      // {on, doc, byContainer}
    this.mpi = null;          // {on, doc}
    this.build();
  }

  build() {
    this.canvas = h('canvas', { class: 'gantt-canvas', 'aria-hidden': 'true' });
    this.svg = svg('svg', { class: 'gantt-svg', role: 'img', 'aria-label': this.o.label || 'Gantt chart' });
    this.tooltip = h('div', { class: 'gantt-tooltip', role: 'tooltip', hidden: true });
    this.status = h('div', { class: 'gantt-status', 'aria-live': 'polite' });
    this.el = h('div', { class: 'gantt-chart', tabindex: 0,
      'aria-label': `${this.o.label || 'Gantt chart'}: arrow keys pan, + and - zoom, 0 resets` },
    this.canvas, this.svg, this.tooltip, this.status);
    this.el.addEventListener('keydown', (e) => this.onKey(e));
    attachTimeInteractions(this.el, {
      plotBox: () => this.plotBox(),
      getDomain: () => this.domain,
      setDomain: (d) => this.requestDomain(d),
      reset: () => this.requestDomain([this.extent.start, this.extent.end]),
      onHover: (x, y) => this.hover(x, y),
      onLeave: () => this.hideTooltip(),
      brushHost: () => this.svg,
    });
  }

  plotBox() {
    const left = LABEL_W;
    const width = Math.max(50, this.width - LABEL_W - IDLE_W);
    return { left, top: TOP, width, height: this.plotHeight || 0 };
  }

  requestDomain(d) {
    const c = this.clamp(d);
    if (this.o.onDomain) this.o.onDomain(c);
    else { this.setDomain(c); this.scheduleFetch(); }
  }

  // Keeps a window inside the trace's extent and no narrower than 1e-6 of it.
  clamp([a, b]) {
    if (!this.extent) return [a, b];
    const lo = this.extent.start, hi = this.extent.end;
    const full = hi - lo;
    let span = Math.max(b - a, full * 1e-6, 1e-9);
    if (span >= full) return [lo, hi];
    if (a < lo) { a = lo; b = lo + span; }
    if (b > hi) { b = hi; a = hi - span; }
    return [a, b];
  }

  setDomain(d) {
    this.domain = d;
    this.draw();
  }

  setFilters(f) { this.filters = f; }

  // Imposes a row layout (compare: the union of several traces' rows).
  setLayout(layout, rowHeight) {
    this.layout = layout;
    this.fixedLayout = true;
    this.rowH = rowHeight;
  }

  setCriticalPath(cp) {
    this.cp = cp;
    this.draw();
  }

  // Stops the pending fetch timer and ignores the answers still in flight.
  dispose() {
    clearTimeout(this.timer);
    this.seq++;
  }

  scheduleFetch() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.fetch(), DEBOUNCE_MS);
  }

  // The makespan/ABE/CPE lines are those of the whole (filtered) run, from
  // GET /bounds, whatever the window; compare.js sets them from /compare.
  setMarks(m) { this.marks = m; this.marksKey = JSON.stringify(filterQuery(this.filters)); this.draw(); }

  async fetchMarks() {
    const key = JSON.stringify(filterQuery(this.filters));
    if (this.marksKey === key) return;
    this.marksKey = key;
    try {
      const b = await api.get(`/traces/${this.o.traceId}/bounds`, filterQuery(this.filters), { signal: this.o.signal });
      if (this.marksKey !== key) return;
      this.marks = { makespan: b.makespan, abe: b.abe, cpe: b.cpe };
    } catch {
      if (this.marksKey !== key) return;
      this.marks = null; // fall back to the gantt answer's marks
    }
    this.draw();
  }

  // Shows (on) or hides the runtime-state band / the MPI lines; fetched
  // with each window.
  setRuntime(on) { this.runtime = on ? { on: true } : null; if (on) this.fetchLayers(); else this.draw(); }

  setMpi(on) { this.mpi = on ? { on: true } : null; if (on) this.fetchLayers(); else this.draw(); }

  async fetchLayers() {
    if (!this.data || !this.domain) return;
    const seq = this.seq, box = this.plotBox();
    const win = { start: this.domain[0], end: this.domain[1] };
    const jobs = [];
    if (this.runtime) {
      const ids = (this.data.rows || []).map((r) => r.id).slice(0, 1000);
      jobs.push(api.get(`/traces/${this.o.traceId}/states`, { ...win, containers: ids.join(','), limit: 1000,
        width: Math.min(4000, Math.max(1, Math.round(box.width))) }, { signal: this.o.signal }).then((doc) => {
        if (seq !== this.seq || !this.runtime) return;
        const tasks = new Set(this.data.types || []);
        const byContainer = new Map();
        for (const r of doc.rows) { if (!byContainer.has(r.container_id)) byContainer.set(r.container_id, []); byContainer.get(r.container_id).push(r); }
        this.runtime = { on: true, doc, byContainer, isTask: doc.values.map((v) => tasks.has(v.name)) };
      }));
    }
    if (this.mpi) {
      jobs.push(api.get(`/traces/${this.o.traceId}/links`, { ...win, limit: 20000 }, { signal: this.o.signal }).then((doc) => {
        if (seq !== this.seq || !this.mpi) return;
        this.mpi = { on: true, doc };
      }));
    }
    try {
      await Promise.all(jobs);
    } catch (e) {
      if (e.name === 'AbortError') return;
      if (this.o.onLayerError) this.o.onLayerError(e);
    }
    if (seq === this.seq) { this.draw(); if (this.o.onLayers) this.o.onLayers(this); }
  }

  // Fetches the gantt of the current window at the current width.
  async fetch() {
    clearTimeout(this.timer);
    if (!this.o.fixedMarks) this.fetchMarks();
    const seq = ++this.seq;
    this.measure();
    const q = { ...filterQuery(this.filters), width: Math.min(10000, Math.max(1, Math.round(this.plotBox().width))), states: true };
    if (this.domain) { q.start = this.domain[0]; q.end = this.domain[1]; }
    const slow = setTimeout(() => { if (seq === this.seq) this.setStatus('loading'); }, 200);
    try {
      const body = await api.get(`/traces/${this.o.traceId}/gantt`, q, { signal: this.o.signal });
      if (seq !== this.seq) return null;
      this.accept(body);
      if (this.runtime || this.mpi) this.fetchLayers();
      this.setStatus('');
      if (this.o.onLoad) this.o.onLoad(body);
      return body;
    } catch (e) {
      if (seq !== this.seq) return null;
      this.setStatus('');
      if (this.o.onError) this.o.onError(e);
      else throw e;
      return null;
    } finally {
      clearTimeout(slow);
    }
  }

  setStatus(s) {
    this.status.textContent = s === 'loading' ? 'Loading…' : '';
    this.el.classList.toggle('is-loading', s === 'loading');
  }

  accept(body) {
    this.data = body;
    this.extent = this.o.extent || body.extent || this.extent;
    if (!this.domain) this.domain = [body.start, body.end];
    this.unit = body.time_unit || this.unit;
    const rows = sortRows(body.rows || []);
    for (const r of rows) {
      if (r.tasks) r.tasks.sort((a, b) => a.start - b.start);
      if (r.pixels) { // per-pixel aggregation: pixel -> [[type, share]]
        const byPx = new Map();
        for (const [px, type, share] of r.pixels.shares || []) {
          if (!byPx.has(px)) byPx.set(px, []);
          byPx.get(px).push([type, share]);
        }
        r.byPx = byPx;
      }
    }
    this.rowsByKey = new Map(rows.map((r) => [rowKey(r), r]));
    this.rowIndexById = new Map();
    if (!this.fixedLayout) {
      this.layout = rows.map((r) => ({ key: rowKey(r), node: r.node, resource_type: r.resource_type,
        resource: r.resource, name: r.name }));
    }
    this.layout.forEach((l, i) => {
      const r = this.rowsByKey.get(l.key);
      if (r) this.rowIndexById.set(r.id, i);
    });
    this.draw();
  }

  measure() {
    const w = Math.floor(this.el.clientWidth || this.el.getBoundingClientRect().width || 900);
    this.width = w;
  }

  rowHeight() {
    if (this.fixedLayout && this.rowH) return this.rowH;
    const n = Math.max(1, this.layout ? this.layout.length : 1);
    const max = this.o.maxHeight || 420;
    return Math.max(3, Math.min(32, Math.floor(max / n)));
  }

  scale() {
    const d3 = getD3();
    return d3.scaleLinear().domain(this.domain).range([0, this.plotBox().width]);
  }

  // ---- drawing ----
  draw() {
    if (!this.data || !this.domain || !this.layout) return;
    this.measure();
    const rh = this.rowHeight();
    this.plotHeight = Math.max(rh, this.layout.length * rh);
    const box = this.plotBox();
    const height = TOP + this.plotHeight + 6 + ORIGIN_H;
    this.el.style.height = `${height}px`;
    this.drawCanvas(box, rh);
    this.drawOverlay(box, rh, height);
    this.el.dataset.rows = this.layout.map((l) => l.key).join(',');
    this.el.dataset.start = String(this.domain[0]);
    this.el.dataset.end = String(this.domain[1]);
  }

  drawCanvas(box, rh) {
    const dpr = window.devicePixelRatio || 1;
    const c = this.canvas;
    c.style.left = `${box.left}px`;
    c.style.top = `${box.top}px`;
    c.style.width = `${box.width}px`;
    c.style.height = `${box.height}px`;
    c.width = Math.round(box.width * dpr);
    c.height = Math.round(box.height * dpr);
    c.dataset.rowHeight = String(rh);
    const g = c.getContext('2d');
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, box.width, box.height);
    const x = this.scale();
    const types = this.data.types || [];
    const pad = rh >= 8 ? 1 : 0;
    const rt = this.runtime && this.runtime.doc ? this.runtime : null;
    const bandH = rt ? Math.max(2, Math.round((rh - 2 * pad) * 0.3)) : 0;
    this.layout.forEach((l, i) => {
      const y = i * rh;
      if (i % 2 === 1) { g.fillStyle = GANTT.stripe; g.fillRect(0, y, box.width, rh); }
      const r = this.rowsByKey.get(l.key);
      if (!r) return;
      const th = rh - 2 * pad - bandH;
      if (r.mode === 'pixels' && r.pixels) this.drawPixelAggregation(g, r, x, y + pad, th, types);
      else if (r.tasks) this.drawTasks(g, r.tasks, x, y + pad, th, types, box.width);
      if (rt) this.drawRuntimeBand(g, rt, rt.byContainer.get(r.id) || [], x, y + pad + th, bandH, box.width);
    });
    this.drawGroupLines(g, box, rh);
  }

  drawTasks(g, tasks, x, y, hgt, types, w) {
    const anomalies = this.anomalies; // regression anomalies (URL anomalies=<model>): others transparent
    for (const t of tasks) {
      const x0 = x(t.start), x1 = x(t.end);
      if (x1 < 0 || x0 > w) continue;
      const name = types[t.type];
      if (anomalies) g.globalAlpha = anomalies.has(t.job_id) ? 1 : 0.25;
      g.fillStyle = t.outlier ? outlierColor(name) : typeColor(name);
      const left = Math.max(-1, x0), right = Math.min(w + 1, x1);
      g.fillRect(left, y, Math.max(1, right - left), hgt);
      if (right - left > 3 && hgt > 5) { // thin separator between adjacent tasks
        g.fillStyle = GANTT.taskSeparator;
        g.fillRect(right - 0.5, y, 0.5, hgt);
      }
    }
    g.globalAlpha = 1;
  }

  // A row in the server's per-pixel aggregation (mode 'pixels'): the share
  // of each task type in every pixel column, stacked from the bottom of the
  // row, at the current scale.
  drawPixelAggregation(g, r, x, y, hgt, types) {
    const d = this.data;
    const dt = (d.end - d.start) / d.width;
    for (const [px, cells] of r.byPx) {
      const x0 = x(d.start + px * dt), x1 = x(d.start + (px + 1) * dt);
      let base = y + hgt;
      for (const [type, share] of cells) {
        const hh = share * hgt;
        g.fillStyle = typeColor(types[type]);
        g.fillRect(x0, base - hh, Math.max(0.5, x1 - x0 + 0.3), hh);
        base -= hh;
      }
    }
  }

  // The runtime states of one worker (not its task states) in a band of
  // height hgt: depth 0 fills it, a nested state the lower half.
  drawRuntimeBand(g, rt, rows, x, y, hgt, w) {
    const doc = rt.doc, colors = doc.values.map((v) => stateColor(v.name, v.color));
    const band = (depth) => (depth === 0 ? [y, hgt] : [y + hgt / 2, Math.max(1, hgt / 2)]);
    for (const r of rows) {
      if (r.mode === 'states') {
        for (const [v, depth, s, e] of r.states) {
          if (rt.isTask[v]) continue;
          const x0 = Math.max(-1, x(s)), x1 = Math.min(w + 1, x(e));
          if (x1 < 0 || x0 > w) continue;
          const [by, bh] = band(depth);
          g.fillStyle = colors[v];
          g.fillRect(x0, by, Math.max(0.5, x1 - x0), bh);
        }
      } else {
        const dt = (doc.end - doc.start) / doc.width, base = new Map();
        for (const [px, depth, v, share] of r.pixels) {
          if (rt.isTask[v]) continue;
          const x0 = x(doc.start + px * dt), x1 = x(doc.start + (px + 1) * dt);
          const [by, bh] = band(depth), key = px * 1024 + depth, b = base.get(key) || 0, hh = share * bh;
          g.fillStyle = colors[v];
          g.fillRect(x0, by + bh - b - hh, Math.max(0.5, x1 - x0 + 0.3), hh);
          base.set(key, b + hh);
        }
      }
    }
  }

  // The runtime-state values drawn in the band (for the legend).
  runtimeValues() {
    const rt = this.runtime && this.runtime.doc ? this.runtime : null;
    if (!rt) return [];
    return rt.doc.values.filter((v, i) => !rt.isTask[i]);
  }

  // The MPI links as lines between the middles of the ranks' row groups.
  drawMpi(s, box, rh, x) {
    const doc = this.mpi && this.mpi.doc;
    if (!doc) return;
    const groups = new Map(); // node -> [first row, last row]
    this.layout.forEach((l, i) => { const gr = groups.get(l.node); if (gr) gr[1] = i; else groups.set(l.node, [i, i]); });
    const mid = (node) => { const gr = groups.get(node); return gr ? ((gr[0] + gr[1] + 1) / 2) * rh : null; };
    const clip = `mpi-clip-${this.o.traceId}-${Math.random().toString(36).slice(2, 8)}`;
    s.append('clipPath').attr('id', clip).append('rect').attr('x', 0).attr('y', 0).attr('width', box.width).attr('height', box.height);
    const g = s.append('g').attr('class', 'mpi-links').attr('transform', `translate(${box.left},${TOP})`)
      .attr('clip-path', `url(#${clip})`).attr('data-links', doc.count).attr('data-total', doc.total);
    const segs = doc.links.map((l) => ({ l, y0: mid(l.from.node), y1: mid(l.to.node) })).filter((d) => d.y0 !== null && d.y1 !== null);
    g.selectAll('line').data(segs).join('line').attr('class', 'mpi-link')
      .attr('x1', (d) => x(d.l.start)).attr('x2', (d) => x(d.l.end)).attr('y1', (d) => d.y0).attr('y2', (d) => d.y1)
      .attr('stroke', (d) => (d.l.end < d.l.start ? TIMELINE.mpiLineBackwards : TIMELINE.mpiLine)).attr('stroke-width', 1)
      .append('title').text((d) => `${d.l.key} ${d.l.value}: rank ${d.l.from.node} → rank ${d.l.to.node}, ` +
        `${fmtTime(d.l.start)} → ${fmtTime(d.l.end, this.unit)} (${fmtTime(d.l.end - d.l.start, this.unit)})`);
  }

  drawGroupLines(g, box, rh) {
    for (let i = 1; i < this.layout.length; i++) {
      const a = this.layout[i - 1], b = this.layout[i];
      if (a.node !== b.node) { g.fillStyle = GANTT.nodeLine; g.fillRect(0, i * rh - 1, box.width, 1.5); }
      else if (a.resource_type !== b.resource_type) { g.fillStyle = GANTT.resourceLine; g.fillRect(0, i * rh - 0.5, box.width, 1); }
    }
  }

  drawOverlay(box, rh, height) {
    const d3 = getD3();
    const s = d3.select(this.svg);
    s.attr('width', this.width).attr('height', height);
    s.selectAll('*').remove();
    const x = this.scale();
    this.drawLabels(s, box, rh);
    this.drawIdle(s, box, rh);
    // the time axis
    const ticks = Math.max(2, Math.floor(box.width / 95));
    const axis = s.append('g').attr('class', 'axis axis-time').attr('transform', `translate(${box.left},${TOP - 2})`)
      .call(d3.axisTop(x).ticks(ticks).tickSizeOuter(0).tickFormat(x.tickFormat(ticks)));
    axis.select('.domain').remove();
    s.append('text').attr('class', 'axis-unit').attr('x', box.left - 8).attr('y', TOP - 12)
      .attr('text-anchor', 'end').text(`time (${this.unit})`);
    // where time 0 lies in the file (every time-based answer says it)
    const note = originNote({ kind: 'tasks', time_origin: this.data.time_origin, time_unit: this.unit });
    s.append('text').attr('class', 'axis-unit origin-note').attr('x', box.left).attr('y', TOP + box.height + 4 + ORIGIN_H - 4)
      .text(`time (${this.unit}): ${note}`);
    this.el.dataset.originNote = note;
    // grid lines
    const grid = s.append('g').attr('class', 'grid').attr('transform', `translate(${box.left},${TOP})`);
    grid.selectAll('line').data(x.ticks(ticks)).join('line')
      .attr('x1', (v) => x(v)).attr('x2', (v) => x(v)).attr('y1', 0).attr('y2', box.height);
    s.append('rect').attr('class', 'plot-frame').attr('x', box.left).attr('y', TOP)
      .attr('width', box.width).attr('height', box.height);
    this.drawMpi(s, box, rh, x);
    this.drawCriticalPath(s, box, rh, x);
    this.drawMarks(s, box, x);
    this.brushLayer = s.append('g').attr('class', 'brush-layer').node();
  }

  drawLabels(s, box, rh) {
    const g = s.append('g').attr('class', 'row-labels');
    const every = rh >= 10 ? 1 : Math.ceil(10 / rh);
    const font = Math.max(9, Math.min(12, rh - 2));
    // node bands
    let i = 0;
    const multiNode = new Set(this.layout.map((l) => l.node)).size > 1;
    while (i < this.layout.length) {
      let j = i;
      while (j < this.layout.length && this.layout[j].node === this.layout[i].node) j++;
      const y0 = TOP + i * rh, y1 = TOP + j * rh;
      const band = g.append('g').attr('class', 'node-band');
      band.append('rect').attr('x', 2).attr('y', y0 + 1).attr('width', 16).attr('height', Math.max(1, y1 - y0 - 2)).attr('rx', 3);
      if (y1 - y0 >= 28) {
        band.append('text').attr('transform', `translate(13,${(y0 + y1) / 2}) rotate(-90)`).attr('text-anchor', 'middle')
          .text(multiNode || y1 - y0 > 50 ? `node ${this.layout[i].node}` : `${this.layout[i].node}`);
      }
      i = j;
    }
    // the first row of each node/resource group, then every `every` rows;
    // a label too close to the next group's first one is left out
    const cand = [];
    let groupStart = 0;
    this.layout.forEach((l, k) => {
      const prev = this.layout[k - 1];
      const first = !prev || prev.node !== l.node || prev.resource_type !== l.resource_type;
      if (first) groupStart = k;
      if ((k - groupStart) % every === 0) cand.push({ k, first });
    });
    const shown = cand.filter((c, i) => !(cand[i + 1] && cand[i + 1].first && (cand[i + 1].k - c.k) * rh < 9));
    shown.forEach(({ k }) => {
      const l = this.layout[k];
      g.append('text').attr('class', 'row-label').attr('x', LABEL_W - 6).attr('y', TOP + k * rh + rh / 2)
        .attr('dy', '0.35em').attr('text-anchor', 'end').style('font-size', `${font}px`)
        .attr('data-row', l.key).text(multiNode ? l.resource : (l.name || l.resource));
    });
  }

  drawIdle(s, box, rh) {
    const g = s.append('g').attr('class', 'idle-col');
    const x0 = box.left + box.width + 6;
    g.append('text').attr('class', 'idle-head').attr('x', x0).attr('y', TOP - 12).text('idle')
      .append('title').text(IDLE_DEFINITION);
    const showText = rh >= 10;
    const barMax = showText ? 22 : 34;
    this.layout.forEach((l, k) => {
      const r = this.rowsByKey.get(l.key);
      if (!r || typeof r.idle !== 'number') return;
      const y = TOP + k * rh;
      const bh = Math.max(1, Math.min(rh - 2, 8));
      g.append('rect').attr('class', 'idle-track').attr('x', x0).attr('y', y + (rh - bh) / 2).attr('width', barMax).attr('height', bh);
      g.append('rect').attr('class', 'idle-bar').attr('x', x0).attr('y', y + (rh - bh) / 2)
        .attr('width', Math.max(0, Math.min(1, r.idle)) * barMax).attr('height', bh);
      const t = g.append('text').attr('class', 'idle-value').attr('data-row', l.key).attr('data-value', r.idle)
        .attr('x', x0 + barMax + 4).attr('y', y + rh / 2).attr('dy', '0.35em').text(fmtPercent(r.idle));
      if (!showText) t.attr('visibility', 'hidden');
      t.append('title').text(idleTooltip(r));
    });
  }

  // Vertical lines for CPE, ABE and makespan with labels above the axis,
  // staggered on two lines when they would collide.
  drawMarks(s, box, x) {
    const marks = this.marks || (this.data && this.data.marks) || {};
    const g = s.append('g').attr('class', 'marks');
    const placed = [];
    for (const m of MARKS) {
      const v = marks[m.key];
      if (typeof v !== 'number' || !Number.isFinite(v)) continue;
      const px = x(v);
      const inside = px >= -0.5 && px <= box.width + 0.5;
      const mg = g.append('g').attr('class', `mark mark-${m.key}`).attr('data-mark', m.key).attr('data-value', v)
        .attr('data-x', inside ? (box.left + px).toFixed(2) : '').attr('visibility', inside ? 'visible' : 'hidden');
      mg.append('title').text(`${m.title}: ${fmtTime(v, this.unit)}`);
      if (!inside) { // a hint at the edge the mark lies beyond
        const left = px < 0;
        const hint = g.append('text').attr('class', `mark-offscreen mark-${m.key}`)
          .attr('x', left ? box.left + 2 : box.left + box.width - 2).attr('y', TOP + box.height + 0)
          .attr('dy', -3 - 12 * MARKS.indexOf(m)).attr('text-anchor', left ? 'start' : 'end')
          .text(left ? `◀ ${m.label} ${fmtTime(v)}` : `${m.label} ${fmtTime(v)} ▶`);
        hint.append('title').text(`${m.title} (${fmtTime(v, this.unit)}) is outside the window`);
      }
      mg.append('line').attr('x1', box.left + px).attr('x2', box.left + px).attr('y1', 4).attr('y2', TOP + box.height);
      const text = `${m.label} ${fmtTime(v)}`;
      const wText = text.length * 6.4 + 8;
      let lx = box.left + px;
      let anchor = 'middle';
      if (lx + wText / 2 > this.width - 2) anchor = 'end';
      if (lx - wText / 2 < box.left) anchor = 'start';
      const x0 = anchor === 'middle' ? lx - wText / 2 : anchor === 'end' ? lx - wText : lx;
      let line = 0;
      while (placed.some((p) => p.line === line && x0 < p.x1 && x0 + wText > p.x0)) line++;
      placed.push({ x0, x1: x0 + wText, line });
      // two lines above the axis, then (rarely) inside the plot's top
      const ly = line < 2 ? 12 + line * 16 : TOP + 13 + (line - 2) * 15;
      const label = mg.append('g').attr('class', 'mark-label').attr('transform', `translate(${lx},${ly})`);
      label.append('rect').attr('x', anchor === 'middle' ? -wText / 2 : anchor === 'end' ? -wText : 0)
        .attr('y', -10).attr('width', wText).attr('height', 14).attr('rx', 3);
      label.append('text').attr('text-anchor', anchor).attr('x', anchor === 'start' ? 4 : anchor === 'end' ? -4 : 0)
        .attr('y', 1).text(text);
    }
  }

  // The dynamic critical path: each task as a bar over its row, each edge as
  // a segment from the predecessor's end to the successor's start.
  drawCriticalPath(s, box, rh, x) {
    if (!this.cp) return;
    const g = s.append('g').attr('class', 'critical-path').attr('transform', `translate(${box.left},${TOP})`)
      .attr('data-tasks', this.cp.tasks.length).attr('data-edges', this.cp.edges.length);
    const pos = new Map();
    for (const t of this.cp.tasks) {
      const row = this.rowIndexById.get(t.worker_id);
      if (row === undefined) continue;
      pos.set(t.job_id, { t, y: row * rh + rh / 2 });
    }
    const clip = `cp-clip-${this.o.traceId}-${Math.random().toString(36).slice(2, 8)}`;
    s.append('clipPath').attr('id', clip).append('rect').attr('x', 0).attr('y', -2).attr('width', box.width).attr('height', box.height + 4);
    g.attr('clip-path', `url(#${clip})`);
    const segs = [];
    for (const e of this.cp.edges) {
      const a = pos.get(e.from), b = pos.get(e.to);
      if (!a || !b) continue;
      segs.push({ e, x0: x(a.t.end), y0: a.y, x1: x(b.t.start), y1: b.y });
    }
    g.selectAll('path.cp-halo').data(segs).join('path').attr('class', 'cp-halo')
      .attr('d', (d) => `M${d.x0},${d.y0}L${d.x1},${d.y1}`);
    g.selectAll('path.cp-edge').data(segs).join('path').attr('class', 'cp-edge')
      .attr('d', (d) => `M${d.x0},${d.y0}L${d.x1},${d.y1}`)
      .append('title').text((d) => `${d.e.from} → ${d.e.to}: waited ${fmtTime(d.e.gap, this.unit)}`);
    g.selectAll('line.cp-task').data([...pos.values()]).join('line').attr('class', 'cp-task')
      .attr('x1', (d) => x(d.t.start)).attr('x2', (d) => Math.max(x(d.t.start) + 2, x(d.t.end)))
      .attr('y1', (d) => d.y).attr('y2', (d) => d.y)
      .append('title').text((d) => `${d.t.job_id} ${d.t.type} on ${d.t.worker}`);
  }

  // ---- tooltips ----
  hover(px, py) {
    const box = this.plotBox();
    if (!this.data || px < box.left || px > box.left + box.width || py < box.top || py > box.top + box.height) {
      this.hideTooltip();
      return;
    }
    const rh = this.rowHeight();
    const idx = Math.floor((py - box.top) / rh);
    const l = this.layout[idx];
    const r = l && this.rowsByKey.get(l.key);
    if (!r) { this.hideTooltip(); return; }
    const x = this.scale();
    const t = x.invert(px - box.left);
    const slack = Math.abs(x.invert(3) - x.invert(0));
    const types = this.data.types || [];
    let content = null;
    if (r.mode === 'pixels' && r.byPx) {
      content = this.pixelAggregationTooltip(r, t, types);
    } else if (r.tasks) {
      const task = findTask(r.tasks, t, slack);
      if (task) {
        content = taskTooltip(task, types[task.type], r.name, this.unit);
        this.hoverBox(box.left + x(task.start), box.left + x(task.end), box.top + idx * rh, rh);
      }
    }
    if (!content) { this.hideTooltip(); return; }
    clear(this.tooltip).append(...content);
    this.tooltip.hidden = false;
    const tw = this.tooltip.offsetWidth, th = this.tooltip.offsetHeight;
    let left = px + 14, top = py + 14;
    if (left + tw > this.width) left = px - tw - 14;
    if (top + th > this.el.clientHeight + 60) top = py - th - 10;
    this.tooltip.style.left = `${Math.max(0, left)}px`;
    this.tooltip.style.top = `${Math.max(0, top)}px`;
  }

  // The tooltip of a pixel column of an aggregated row (mode 'pixels'):
  // the share of each task type in that column.
  pixelAggregationTooltip(r, t, types) {
    const d = this.data;
    const dt = (d.end - d.start) / d.width;
    const p = Math.floor((t - d.start) / dt);
    const cells = r.byPx.get(p) || [];
    const busy = cells.reduce((a, c) => a + c[1], 0);
    return [
      h('div', { class: 'tt-title' }, r.name),
      h('div', { class: 'tt-sub' }, `${fmtTime(d.start + p * dt)} – ${fmtTime(d.start + (p + 1) * dt, this.unit)} (aggregated)`),
      h('table', {}, cells.sort((a, b) => b[1] - a[1]).map(([ty, sh]) => h('tr', {},
        h('td', {}, h('span', { class: 'swatch', style: `background:${typeColor(types[ty])}` }), types[ty]),
        h('td', { class: 'num' }, fmtPercent(sh)))),
      h('tr', {}, h('td', {}, 'not running a task'), h('td', { class: 'num' }, fmtPercent(Math.max(0, 1 - busy))))),
      h('div', { class: 'tt-hint' }, 'Zoom in to see the individual tasks.'),
    ];
  }

  hideTooltip() {
    this.tooltip.hidden = true;
    this.hoverBox(0, 0, 0, 0);
  }

  // Outlines the hovered task (x1 === x0: removes the outline).
  hoverBox(x0, x1, y, hgt) {
    let r = this.svg.querySelector('rect.hover-box');
    if (x1 <= x0) { if (r) r.remove(); return; }
    if (!r) { r = svg('rect', { class: 'hover-box' }); this.svg.appendChild(r); }
    const box = this.plotBox();
    const a = Math.max(box.left, x0), b = Math.min(box.left + box.width, x1);
    r.setAttribute('x', a - 1); r.setAttribute('width', Math.max(2, b - a + 2));
    r.setAttribute('y', y - 0.5); r.setAttribute('height', hgt + 1);
  }

  onKey(e) {
    if (!this.domain || !this.extent) return;
    const [a, b] = this.domain;
    const span = b - a;
    const zoom = (f) => { const c = (a + b) / 2; this.requestDomain([c - span * f / 2, c + span * f / 2]); };
    const keys = {
      ArrowLeft: () => this.requestDomain([a - span * 0.2, b - span * 0.2]),
      ArrowRight: () => this.requestDomain([a + span * 0.2, b + span * 0.2]),
      '+': () => zoom(0.5), '=': () => zoom(0.5), '-': () => zoom(2), _: () => zoom(2),
      0: () => this.requestDomain([this.extent.start, this.extent.end]),
      Home: () => this.requestDomain([this.extent.start, this.extent.end]),
    };
    const fn = keys[e.key];
    if (fn && !e.ctrlKey && !e.metaKey && !e.altKey) { e.preventDefault(); fn(); }
  }
}

// The task under time t (or within `slack` of it) in a start-sorted row.
function findTask(tasks, t, slack) {
  let lo = 0, hi = tasks.length;
  while (lo < hi) { const m = (lo + hi) >> 1; if (tasks[m].start <= t) lo = m + 1; else hi = m; }
  let best = null, bestDist = Infinity;
  for (let i = Math.max(0, lo - 3); i < Math.min(tasks.length, lo + 2); i++) {
    const k = tasks[i];
    const dist = t < k.start ? k.start - t : t > k.end ? t - k.end : 0;
    if (dist <= slack && dist < bestDist) { best = k; bestDist = dist; }
  }
  return best;
}

function taskTooltip(task, type, worker, unit) {
  const rows = [
    ['JobId', task.job_id], ['Type', type], ['Worker', worker],
    ['Start', fmtTime(task.start, unit)], ['End', fmtTime(task.end, unit)],
    ['Duration', fmtTime(task.end - task.start, unit)],
    ['GFlop', typeof task.gflop === 'number' ? formatNumber(task.gflop) : '—'],
    ['Iteration', task.iteration ?? '—'],
  ];
  return [
    h('div', { class: 'tt-title' }, h('span', { class: 'swatch', style: `background:${typeColor(type)}` }), type,
      task.outlier ? h('span', { class: 'tt-flag' }, 'outlier') : null),
    h('table', {}, rows.map(([k, v]) => h('tr', {}, h('th', {}, k), h('td', {}, String(v))))),
  ];
}
