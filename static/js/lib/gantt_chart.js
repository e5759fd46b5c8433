// lib/gantt_chart.js: the Gantt chart of a task trace (StarVZ, the VPA 2016
// paper's Fig. 3 and 5), drawn by views/gantt.js and side by side by
// js/compare.js: one row per worker grouped by node and resource type, the
// tasks coloured by type (outliers darker), the idleness of each worker at
// the right (idle = 1 - task time / span, StarVZ's; the tooltip lists the
// runtime states: Sleeping, Overhead, ...), vertical lines for the makespan,
// the area bound (ABE) and the critical-path bound (CPE), and the dynamic
// critical path as connected segments.
//
// Rows of several nodes (StarPU-MPI ranks, StarVZ's nodes): each row is
// labelled with its node and worker ("n3 CPU0"), the rows of a node sit
// under a header row ("node 3 · 1 CPU", the node's mean idleness at the
// right) whose button collapses the node to that header (opts.collapsed,
// opts.onCollapse: views/gantt.js keeps the collapsed nodes in the URL).
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
const TOP = 64;               // mark labels (2 lines of 17) + time axis (30)
const ORIGIN_H = 16;          // the origin note under the plot (lib/origin.js)
const HINT_H = 15;            // the line of hints for marks outside the window
const HEAD_H = 20;            // the header row of a node (multi-node traces)
const MIN_FONT = 11;          // no text of the chart is smaller (px)
const MARK_FONT = '600 11px system-ui, sans-serif';
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

// The label of a row: "n3 CPU0" when the trace has several nodes, else the
// worker's name.
export function rowLabel(l, multiNode) {
  return multiNode ? `n${l.node} ${l.resource}` : (l.name || l.resource);
}

function byNatural(a, b) {
  return a.localeCompare(b, 'en', { numeric: true });
}

// The row order of the dashboard: node, resource type, resource (numeric-aware).
export function sortRows(rows) {
  return [...rows].sort((a, b) => (a.node - b.node) || byNatural(a.resource_type, b.resource_type)
    || byNatural(a.resource, b.resource));
}

export class GanttChart {
  // opts: traceId, unit, filters, maxHeight (of the rows), extent (to impose
  // one, e.g. the common extent of compared traces),
  // onDomain(domain) (the chart asks for a new window), onLoad(body),
  // onError(err), label (accessible name), fixedMarks (compare.js sets the
  // lines itself), signal (an AbortSignal that cancels its requests),
  // collapsed (node numbers shown as their header only), onCollapse(nodes)
  // (the user collapsed or expanded a node), colorAlias (Map type -> the
  // type whose colour it is drawn in; compare.js).
  constructor(opts) {
    this.o = opts;
    this.unit = opts.unit || '';
    this.filters = opts.filters;
    this.domain = null;
    this.extent = null;
    this.data = null;
    this.layout = null;       // [{key, node, resource_type, resource, name}]
    this.cp = null;           // critical-path answer
    this.seq = 0;
    this.width = 0;
    this.runtime = null;      // {on, doc, byContainer}
    this.mpi = null;          // {on, doc}
    this.top = TOP;           // grows by a line when the mark labels need a third
    this.collapsed = new Set((opts.collapsed || []).map(Number));
    this.alias = opts.colorAlias || null; // Map type -> type whose colour it takes
    this.rows = [];           // every row (layout = the rows of expanded nodes)
    this.rowY = [];           // top of layout row i in the plot
    this.headers = [];        // [{node, y, rows, collapsed}] (multi-node traces)
    this.build();
  }

  build() {
    this.canvas = h('canvas', { class: 'gantt-canvas', 'aria-hidden': 'true' });
    this.svg = svg('svg', { class: 'gantt-svg', role: 'img', 'aria-label': this.o.label || 'Gantt chart' });
    this.tooltip = h('div', { class: 'gantt-tooltip', role: 'tooltip', hidden: true });
    this.status = h('div', { class: 'gantt-status', 'aria-live': 'polite' });
    this.nodesEl = h('div', { class: 'gantt-node-toggles', role: 'group', 'aria-label': 'Nodes' });
    this.el = h('div', { class: 'gantt-chart', tabindex: 0,
      'aria-label': `${this.o.label || 'Gantt chart'}: arrow keys pan, + and - zoom, 0 resets` },
    this.canvas, this.svg, this.nodesEl, this.tooltip, this.status);
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
    return { left, top: this.top, width, height: this.plotHeight || 0 };
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

  // The colour of task type `name` (compare.js may map a type to another's).
  color(name, outlier) {
    const n = (this.alias && this.alias.get(name)) || name;
    return outlier ? outlierColor(n) : typeColor(n);
  }

  setColorAlias(map) { this.alias = map; this.draw(); }

  // Collapses (or expands) node `node`; onCollapse gets the collapsed nodes.
  toggleNode(node) {
    if (this.collapsed.has(node)) this.collapsed.delete(node); else this.collapsed.add(node);
    this.applyCollapse();
    this.draw();
    if (this.o.onCollapse) this.o.onCollapse([...this.collapsed].sort((a, b) => a - b));
  }

  setCollapsed(nodes) { this.collapsed = new Set(nodes.map(Number)); this.applyCollapse(); this.draw(); }

  multiNode() { return new Set(this.rows.map((l) => l.node)).size > 1; }

  // The visible rows (layout) and the row index of each worker id.
  applyCollapse() {
    const multi = this.multiNode();
    this.layout = this.rows.filter((l) => !multi || !this.collapsed.has(l.node));
    this.rowIndexById = new Map();
    this.layout.forEach((l, i) => {
      const r = this.rowsByKey && this.rowsByKey.get(l.key);
      if (r) this.rowIndexById.set(r.id, i);
    });
  }

  // The vertical geometry at row height rh: rowY, headers, plotHeight.
  computeGeometry(rh) {
    const multi = this.multiNode();
    this.rowY = [];
    this.headers = [];
    let y = 0, i = 0, k = 0;
    while (k < this.rows.length) {
      let j = k;
      while (j < this.rows.length && this.rows[j].node === this.rows[k].node) j++;
      const node = this.rows[k].node, collapsed = multi && this.collapsed.has(node);
      if (multi) { this.headers.push({ node, y, rows: this.rows.slice(k, j), collapsed }); y += HEAD_H; }
      if (!collapsed) for (let q = k; q < j; q++, i++) { this.rowY.push(y); y += rh; }
      k = j;
    }
    this.plotHeight = Math.max(rh, y);
  }

  // The layout row at plot offset y, or -1 (a header or nothing).
  rowAt(y) {
    const rh = this.rowHeight();
    let lo = 0, hi = this.rowY.length - 1, best = -1;
    while (lo <= hi) { const m = (lo + hi) >> 1; if (this.rowY[m] <= y) { best = m; lo = m + 1; } else hi = m - 1; }
    return best >= 0 && y < this.rowY[best] + rh ? best : -1;
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
    this.rows = rows.map((r) => ({ key: rowKey(r), node: r.node, resource_type: r.resource_type,
      resource: r.resource, name: r.name }));
    this.applyCollapse();
    this.draw();
  }

  measure() {
    const w = Math.floor(this.el.clientWidth || this.el.getBoundingClientRect().width || 900);
    this.width = w;
  }

  // The row height: the visible rows share maxHeight (less the node headers),
  // between 12 px (an 11 px label fits) and 32 px.
  rowHeight() {
    const n = Math.max(1, this.layout ? this.layout.length : 1);
    const max = (this.o.maxHeight || 420) - HEAD_H * this.headerCount();
    return Math.max(12, Math.min(32, Math.floor(max / n)));
  }

  headerCount() { return this.multiNode() ? new Set(this.rows.map((l) => l.node)).size : 0; }

  scale() {
    const d3 = getD3();
    return d3.scaleLinear().domain(this.domain).range([0, this.plotBox().width]);
  }

  // ---- drawing ----
  draw() {
    if (!this.data || !this.domain || !this.layout) return;
    this.measure();
    const rh = this.rowHeight();
    this.computeGeometry(rh);
    this.top = TOP + 17 * Math.max(0, this.markLayout(this.plotBox()).lines - 2);
    const box = this.plotBox();
    this.hints = this.offscreenMarks(box);
    const height = this.top + this.plotHeight + 6 + ORIGIN_H + (this.hints.length ? HINT_H : 0);
    this.el.style.height = `${height}px`;
    this.drawCanvas(box, rh);
    this.drawOverlay(box, rh, height);
    this.drawNodeToggles(box);
    this.el.dataset.rows = this.layout.map((l) => l.key).join(',');
    this.el.dataset.rowTops = this.rowY.join(','); // top of each row in the plot (px; node headers between)
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
    for (const hd of this.headers) { g.fillStyle = GANTT.nodeHeader; g.fillRect(0, hd.y, box.width, HEAD_H); }
    this.layout.forEach((l, i) => {
      const y = this.rowY[i];
      if (i % 2 === 1) { g.fillStyle = GANTT.stripe; g.fillRect(0, y, box.width, rh); }
      const r = this.rowsByKey.get(l.key);
      if (!r) return;
      const th = rh - 2 * pad - bandH;
      if (r.mode === 'pixels' && r.pixels) this.drawPixelAggregation(g, r, x, y + pad, th, types);
      else if (r.tasks) this.drawTasks(g, r.tasks, x, y + pad, th, types, box.width);
      if (rt) this.drawRuntimeBand(g, rt, rt.byContainer.get(r.id) || [], x, y + pad + th, bandH, box.width);
    });
    this.drawGroupLines(g, box);
  }

  drawTasks(g, tasks, x, y, hgt, types, w) {
    const anomalies = this.anomalies; // regression anomalies (URL anomalies=<model>): others transparent
    for (const t of tasks) {
      const x0 = x(t.start), x1 = x(t.end);
      if (x1 < 0 || x0 > w) continue;
      const name = types[t.type];
      if (anomalies) g.globalAlpha = anomalies.has(t.job_id) ? 1 : 0.25;
      g.fillStyle = this.color(name, t.outlier);
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
        g.fillStyle = this.color(types[type]);
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
    const groups = new Map(); // node -> [top, bottom] of its rows (or its header when collapsed)
    for (const hd of this.headers) if (hd.collapsed) groups.set(hd.node, [hd.y, hd.y + HEAD_H]);
    this.layout.forEach((l, i) => {
      const gr = groups.get(l.node), y = this.rowY[i];
      if (gr) gr[1] = y + rh; else groups.set(l.node, [y, y + rh]);
    });
    const mid = (node) => { const gr = groups.get(node); return gr ? (gr[0] + gr[1]) / 2 : null; };
    const clip = `mpi-clip-${this.o.traceId}-${Math.random().toString(36).slice(2, 8)}`;
    s.append('clipPath').attr('id', clip).append('rect').attr('x', 0).attr('y', 0).attr('width', box.width).attr('height', box.height);
    const g = s.append('g').attr('class', 'mpi-links').attr('transform', `translate(${box.left},${this.top})`)
      .attr('clip-path', `url(#${clip})`).attr('data-links', doc.count).attr('data-total', doc.total);
    const segs = doc.links.map((l) => ({ l, y0: mid(l.from.node), y1: mid(l.to.node) })).filter((d) => d.y0 !== null && d.y1 !== null);
    g.selectAll('line').data(segs).join('line').attr('class', 'mpi-link')
      .attr('x1', (d) => x(d.l.start)).attr('x2', (d) => x(d.l.end)).attr('y1', (d) => d.y0).attr('y2', (d) => d.y1)
      .attr('stroke', (d) => (d.l.end < d.l.start ? TIMELINE.mpiLineBackwards : TIMELINE.mpiLine)).attr('stroke-width', 1)
      .append('title').text((d) => `${d.l.key} ${d.l.value}: rank ${d.l.from.node} → rank ${d.l.to.node}, ` +
        `${fmtTime(d.l.start)} → ${fmtTime(d.l.end, this.unit)} (${fmtTime(d.l.end - d.l.start, this.unit)})`);
  }

  drawGroupLines(g, box) {
    for (const hd of this.headers) if (hd.y > 0) { g.fillStyle = GANTT.nodeLine; g.fillRect(0, hd.y - 0.5, box.width, 1.5); }
    for (let i = 1; i < this.layout.length; i++) {
      const a = this.layout[i - 1], b = this.layout[i];
      if (a.node === b.node && a.resource_type !== b.resource_type) {
        g.fillStyle = GANTT.resourceLine; g.fillRect(0, this.rowY[i] - 0.5, box.width, 1);
      } else if (a.node !== b.node && !this.headers.length) {
        g.fillStyle = GANTT.nodeLine; g.fillRect(0, this.rowY[i] - 1, box.width, 1.5);
      }
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
    const axis = s.append('g').attr('class', 'axis axis-time').attr('transform', `translate(${box.left},${this.top - 2})`)
      .call(d3.axisTop(x).ticks(ticks).tickSizeOuter(0).tickFormat(x.tickFormat(ticks)));
    axis.select('.domain').remove();
    s.append('text').attr('class', 'axis-unit').attr('x', box.left - 8).attr('y', this.top - 12)
      .attr('text-anchor', 'end').text(`time (${this.unit})`);
    // where time 0 lies in the file (every time-based answer says it)
    const note = originNote({ kind: 'tasks', time_origin: this.data.time_origin, time_unit: this.unit });
    s.append('text').attr('class', 'axis-unit origin-note').attr('x', box.left).attr('y', this.top + box.height + 4 + ORIGIN_H - 4)
      .text(`time (${this.unit}): ${note}`);
    this.el.dataset.originNote = note;
    // grid lines
    const grid = s.append('g').attr('class', 'grid').attr('transform', `translate(${box.left},${this.top})`);
    grid.selectAll('line').data(x.ticks(ticks)).join('line')
      .attr('x1', (v) => x(v)).attr('x2', (v) => x(v)).attr('y1', 0).attr('y2', box.height);
    s.append('rect').attr('class', 'plot-frame').attr('x', box.left).attr('y', this.top)
      .attr('width', box.width).attr('height', box.height);
    this.drawMpi(s, box, rh, x);
    this.drawCriticalPath(s, box, rh, x);
    this.drawMarks(s, box, x);
    this.drawHeaders(s, box); // over the mark lines, with a halo
    this.brushLayer = s.append('g').attr('class', 'brush-layer').node();
  }

  // The row labels ("n3 CPU0" in multi-node traces, full name in the
  // tooltip), at least 11 px: when rows are thinner than 12 px only every
  // k-th row is labelled, and the first row of each resource group.
  drawLabels(s, box, rh) {
    const g = s.append('g').attr('class', 'row-labels');
    const every = rh >= 12 ? 1 : Math.ceil(12 / rh);
    const font = Math.max(MIN_FONT, Math.min(12, rh - 1));
    const multi = this.headers.length > 0;
    const cand = [];
    let groupStart = 0;
    this.layout.forEach((l, k) => {
      const prev = this.layout[k - 1];
      const first = !prev || prev.node !== l.node || prev.resource_type !== l.resource_type;
      if (first) groupStart = k;
      if ((k - groupStart) % every === 0) cand.push({ k, first });
    });
    const gap = (c, n) => this.rowY[n.k] - this.rowY[c.k];
    const shown = cand.filter((c, i) => !(cand[i + 1] && cand[i + 1].first && gap(c, cand[i + 1]) < 12));
    shown.forEach(({ k }) => {
      const l = this.layout[k];
      g.append('text').attr('class', 'row-label').attr('x', LABEL_W - 6).attr('y', this.top + this.rowY[k] + rh / 2)
        .attr('dy', '0.35em').attr('text-anchor', 'end').style('font-size', `${font}px`)
        .attr('data-row', l.key).text(rowLabel(l, multi))
        .append('title').text(`${l.name || l.resource} (node ${l.node}, ${l.resource_type})`);
    });
  }

  // The node headers: a button per node over the label column (collapse /
  // expand), and in the plot a summary of a collapsed node.
  drawNodeToggles(box) {
    clear(this.nodesEl);
    for (const hd of this.headers) {
      const types = [...new Set(hd.rows.map((l) => l.resource_type))];
      const what = types.map((t) => `${hd.rows.filter((l) => l.resource_type === t).length} ${t}`).join(', ');
      const btn = h('button', { type: 'button', class: 'gantt-node-toggle', 'aria-expanded': String(!hd.collapsed),
        title: `${hd.collapsed ? 'Expand' : 'Collapse'} node ${hd.node} (${what})`, dataset: { node: hd.node },
        style: `top:${this.top + hd.y}px;height:${HEAD_H}px;width:${LABEL_W - 4}px` },
      h('span', { class: 'gantt-node-caret', 'aria-hidden': 'true' }, hd.collapsed ? '▸' : '▾'), ` node ${hd.node}`);
      btn.addEventListener('click', (e) => { e.stopPropagation(); this.toggleNode(hd.node); });
      btn.addEventListener('pointerdown', (e) => e.stopPropagation());
      btn.addEventListener('keydown', (e) => e.stopPropagation());
      this.nodesEl.appendChild(btn);
    }
  }

  // Per node header: its workers and mean idleness (in the plot and the idle column).
  drawHeaders(s, box) {
    const g = s.append('g').attr('class', 'node-headers');
    const barMax = 22;
    for (const hd of this.headers) {
      const idles = hd.rows.map((l) => this.rowsByKey.get(l.key)).filter((r) => r && typeof r.idle === 'number').map((r) => r.idle);
      const mean = idles.length ? idles.reduce((a, b) => a + b, 0) / idles.length : null;
      const types = [...new Set(hd.rows.map((l) => l.resource_type))];
      const what = types.map((t) => `${hd.rows.filter((l) => l.resource_type === t).length} ${t}`).join(', ');
      const y = this.top + hd.y + HEAD_H / 2;
      g.append('text').attr('class', 'node-summary').attr('x', box.left + 6).attr('y', y).attr('dy', '0.35em')
        .attr('data-node', hd.node)
        .text(`node ${hd.node} · ${what}${mean !== null ? ` · mean idle ${fmtPercent(mean)}` : ''}${hd.collapsed ? ' · collapsed' : ''}`);
      if (mean === null) continue;
      const x0 = box.left + box.width + 6;
      g.append('rect').attr('class', 'idle-track').attr('x', x0).attr('y', y - 4).attr('width', barMax).attr('height', 8);
      g.append('rect').attr('class', 'idle-bar idle-bar-node').attr('x', x0).attr('y', y - 4)
        .attr('width', Math.max(0, Math.min(1, mean)) * barMax).attr('height', 8);
      g.append('text').attr('class', 'idle-value idle-node').attr('data-node', hd.node).attr('data-value', mean)
        .attr('x', x0 + barMax + 4).attr('y', y).attr('dy', '0.35em').text(fmtPercent(mean))
        .append('title').text(`node ${hd.node}: mean idle of its ${idles.length} workers (idle = 1 - task time / span of the window)`);
    }
  }

  drawIdle(s, box, rh) {
    const g = s.append('g').attr('class', 'idle-col');
    const x0 = box.left + box.width + 6;
    g.append('text').attr('class', 'idle-head').attr('x', x0).attr('y', this.top - 12).text('idle')
      .append('title').text(IDLE_DEFINITION);
    const showText = rh >= 12;
    const barMax = showText ? 22 : 34;
    this.layout.forEach((l, k) => {
      const r = this.rowsByKey.get(l.key);
      if (!r || typeof r.idle !== 'number') return;
      const y = this.top + this.rowY[k];
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

  // The label of each mark inside the window: key -> {line, anchor, text,
  // w}, the order of placement that needs the fewest lines.
  markLayout(box) {
    const marks = this.marks || (this.data && this.data.marks) || {};
    const x = this.scale(), items = [];
    for (const m of MARKS) {
      const v = marks[m.key];
      if (typeof v !== 'number' || !Number.isFinite(v)) continue;
      const px = x(v);
      if (px < -0.5 || px > box.width + 0.5) continue;
      const text = `${m.label} ${fmtTime(v)}`;
      items.push({ key: m.key, x: box.left + px, text, w: textWidth(text) + 10 });
    }
    let best = null;
    for (const order of permutations(items)) {
      const placed = [], out = new Map();
      for (const it of order) out.set(it.key, { ...it, ...placeLabel(placed, it.x, it.w, box.left, this.width - 2) });
      const lines = Math.max(0, ...[...out.values()].map((o) => o.line + 1));
      if (!best || lines < best.lines) best = { lines, out };
    }
    return best || { lines: 0, out: new Map() };
  }

  // The marks (makespan, ABE, CPE) whose value lies outside the window.
  offscreenMarks(box) {
    const marks = this.marks || (this.data && this.data.marks) || {};
    const x = this.scale();
    return MARKS.filter((m) => typeof marks[m.key] === 'number' && Number.isFinite(marks[m.key]))
      .map((m) => ({ m, v: marks[m.key], px: x(marks[m.key]) }))
      .filter((d) => d.px < -0.5 || d.px > box.width + 0.5);
  }

  // Vertical lines for CPE, ABE and makespan with labels above the axis,
  // staggered on lines when they would collide; a line starts under its
  // own label, and placeLabel keeps every line off the other labels. Marks outside
  // the window are listed on a line under the plot, never over the tasks.
  drawMarks(s, box, x) {
    const marks = this.marks || (this.data && this.data.marks) || {};
    const g = s.append('g').attr('class', 'marks');
    const layout = this.markLayout(box).out;
    for (const m of MARKS) {
      const v = marks[m.key];
      if (typeof v !== 'number' || !Number.isFinite(v)) continue;
      const px = x(v);
      const inside = px >= -0.5 && px <= box.width + 0.5;
      const mg = g.append('g').attr('class', `mark mark-${m.key}`).attr('data-mark', m.key).attr('data-value', v)
        .attr('data-x', inside ? (box.left + px).toFixed(2) : '').attr('visibility', inside ? 'visible' : 'hidden');
      mg.append('title').text(`${m.title}: ${fmtTime(v, this.unit)}`);
      if (!inside) { // hidden, kept so that every mark has its line (named under the plot)
        mg.append('line').attr('x1', box.left + px).attr('x2', box.left + px).attr('y1', this.top).attr('y2', this.top + box.height);
        continue;
      }
      const { line, anchor, text, w: wText } = layout.get(m.key);
      const lx = box.left + px;
      const ly = 13 + line * 17;
      mg.append('line').attr('x1', lx).attr('x2', lx).attr('y1', ly + 5).attr('y2', this.top + box.height);
      const label = mg.append('g').attr('class', 'mark-label').attr('data-mark', m.key)
        .attr('transform', `translate(${lx},${ly})`);
      label.append('rect').attr('x', anchor === 'middle' ? -wText / 2 : anchor === 'end' ? -wText : 0)
        .attr('y', -11).attr('width', wText).attr('height', 16).attr('rx', 3);
      label.append('text').attr('text-anchor', anchor).attr('x', anchor === 'start' ? 5 : anchor === 'end' ? -5 : 0)
        .attr('y', 1).text(text);
    }
    this.drawOffscreenHints(g, box);
  }

  // "◀ CPE 264.09" / "Makespan 9,390.9 ▶" on a line under the origin note.
  drawOffscreenHints(g, box) {
    const y = this.top + box.height + 6 + ORIGIN_H + HINT_H - 4;
    const left = this.hints.filter((d) => d.px < 0), right = this.hints.filter((d) => d.px > 0);
    const put = (list, isLeft) => {
      if (!list.length) return;
      const t = g.append('text').attr('class', 'mark-offscreen').attr('x', isLeft ? box.left : box.left + box.width)
        .attr('y', y).attr('text-anchor', isLeft ? 'start' : 'end')
        .text(isLeft ? `◀ ${list.map((d) => `${d.m.label} ${fmtTime(d.v)}`).join(' · ')}`
          : `${list.map((d) => `${d.m.label} ${fmtTime(d.v)}`).join(' · ')} ▶`);
      t.append('title').text(list.map((d) => `${d.m.title} (${fmtTime(d.v, this.unit)}) is outside the window`).join('\n'));
    };
    put(left, true);
    put(right, false);
  }

  // The dynamic critical path: each task as a bar over its row, each edge as
  // a segment from the predecessor's end to the successor's start.
  drawCriticalPath(s, box, rh, x) {
    if (!this.cp) return;
    const g = s.append('g').attr('class', 'critical-path').attr('transform', `translate(${box.left},${this.top})`)
      .attr('data-tasks', this.cp.tasks.length).attr('data-edges', this.cp.edges.length);
    const pos = new Map();
    for (const t of this.cp.tasks) {
      const row = this.rowIndexById.get(t.worker_id);
      if (row === undefined) continue;
      pos.set(t.job_id, { t, y: this.rowY[row] + rh / 2 });
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
    const idx = this.rowAt(py - box.top);
    const l = idx >= 0 ? this.layout[idx] : null;
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
        content = taskTooltip(task, types[task.type], r.name, this.unit, this.color(types[task.type]));
        this.hoverBox(box.left + x(task.start), box.left + x(task.end), box.top + this.rowY[idx], rh);
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
        h('td', {}, h('span', { class: 'swatch', style: `background:${this.color(types[ty])}` }), types[ty]),
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

function taskTooltip(task, type, worker, unit, color) {
  const rows = [
    ['JobId', task.job_id], ['Type', type], ['Worker', worker],
    ['Start', fmtTime(task.start, unit)], ['End', fmtTime(task.end, unit)],
    ['Duration', fmtTime(task.end - task.start, unit)],
    ['GFlop', typeof task.gflop === 'number' ? formatNumber(task.gflop) : '—'],
    ['Iteration', task.iteration ?? '—'],
  ];
  return [
    h('div', { class: 'tt-title' }, h('span', { class: 'swatch', style: `background:${color}` }), type,
      task.outlier ? h('span', { class: 'tt-flag' }, 'outlier') : null),
    h('table', {}, rows.map(([k, v]) => h('tr', {}, h('th', {}, k), h('td', {}, String(v))))),
  ];
}

// Where a mark label of width w at x goes: the first of line 0, 1, 2, ...
// and of the anchors middle, start (right of the line), end (left of it)
// that stays within [lo, hi], clears the labels placed (4 px apart) and
// crosses no line: a mark's line runs down from under its label, so a label
// may not cover the x of a mark labelled on a line above, nor may its own
// line cross a label placed lower.
function placeLabel(placed, x, w, lo, hi) {
  const left = (a) => (a === 'middle' ? x - w / 2 : a === 'end' ? x - w : x);
  const fits = (a) => left(a) >= lo - 0.5 && left(a) + w <= hi + 0.5;
  let anchors = ['middle', 'start', 'end'].filter(fits);
  if (!anchors.length) anchors = [x - w / 2 < lo ? 'start' : 'end'];
  const free = (x0, line) => placed.every((p) => {
    if (p.line === line) return x0 >= p.x1 + 4 || x0 + w <= p.x0 - 4;
    if (p.line < line) return p.x < x0 - 2 || p.x > x0 + w + 2;
    return x < p.x0 - 2 || x > p.x1 + 2;
  });
  for (let line = 0; line < 8; line++) {
    for (const anchor of anchors) {
      const x0 = left(anchor);
      if (free(x0, line)) { placed.push({ x0, x1: x0 + w, x, line }); return { line, anchor }; }
    }
  }
  placed.push({ x0: left(anchors[0]), x1: left(anchors[0]) + w, x, line: 8 });
  return { line: 8, anchor: anchors[0] };
}

// Every order of the items (at most 3 marks: 6 orders).
function permutations(items) {
  if (items.length <= 1) return [items];
  return items.flatMap((it, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((p) => [it, ...p]));
}

// The width of a mark label in px (its font, measured once per text).
let measureCtx = null;
const widths = new Map();
function textWidth(text) {
  if (widths.has(text)) return widths.get(text);
  if (!measureCtx) measureCtx = document.createElement('canvas').getContext('2d');
  measureCtx.font = MARK_FONT;
  const w = measureCtx.measureText(text).width || text.length * 6.8;
  widths.set(text, w);
  return w;
}
