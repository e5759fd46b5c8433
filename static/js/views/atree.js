// views/atree.js: the "Elimination tree" tab of a qr_mumps-like trace
// (Miletto's thesis, sections 4.2-4.3; /atree, /tree-utilization,
// /tree-memory and /tree-compare in docs/api.md). Panels share one time
// axis:
//   - the tree along time: one row per node in submission order, the
//     lifespan as a light-blue line, green (start) and orange (end) arrows
//     from child to parent, the computation per time slice as a
//     blue-yellow-red gradient (pruned subtrees on the parent's row at half
//     height), initialisation tasks as green rectangles, assembly tasks as
//     black half-height rectangles, anomalies as hollow dots;
//   - resource utilisation stacked per node (reused colours) or per depth;
//   - active nodes (pruned and not) and front memory;
//   - optionally the difference with another run over the same tree.
// A run whose tasks are not mapped to tree nodes (no tasks_anode.csv) gets
// an explanation of what is missing instead of empty panels.
// URL parameters: slice, metric (time|gflops), by (node|depth), other.
import { api } from '../api.js';
import { h, clear } from '../dom.js';
import { registerView } from '../trace.js';
import { ATREE, kernelColor, heatColor, divergingColor, depthColors, layerColors } from '../colors.js';
import { svg } from '../lib/svg.js';
import { fmtTime, fmtPrecision, formatNumber } from '../lib/format.js';
import { linearScale, stepTicks } from '../lib/axes.js';
import { readFilters, filterQuery, filterBar, traceResources } from '../lib/filters.js';
import { analysisError } from '../lib/errors.js';

registerView({
  id: 'atree', title: 'Elimination tree', kinds: ['tasks'],
  // only where the trace has an elimination tree
  applies: (trace) => trace.kind === 'tasks' && !!(trace.summary && trace.summary.atree_nodes > 0),
  render: renderTree,
});

const M = { l: 64, r: 16 };

// ---- axes ----------------------------------------------------------------------

function text(x, y, s, attrs = {}) {
  return svg('text', { x, y, ...attrs }, s);
}

// Grid lines (and labels) at the time ticks of x, from y0 to y1.
function timeAxis(g, x, y0, y1, unit, labels = true) {
  for (const v of stepTicks(x)) {
    g.appendChild(svg('line', { x1: x(v), x2: x(v), y1: y0, y2: y1, class: 'grid' }));
    if (labels) g.appendChild(text(x(v), y1 + 13, fmtTime(v), { 'text-anchor': 'middle', class: 'tick' }));
  }
  if (labels) g.appendChild(text(x.range()[1], y1 + 27, `time (${unit})`, { 'text-anchor': 'end', class: 'axis-label' }));
}

// ---- the view --------------------------------------------------------------------

async function renderTree(el, trace, params, setParams, { signal, onDispose }) {
  el.classList.add('atree-view');
  const unit = trace.time_unit || '';
  if (!(trace.summary && trace.summary.atree_nodes > 0)) {
    el.appendChild(h('div', { class: 'alert alert-info', role: 'alert' }, h('strong', {}, 'No elimination tree'),
      h('p', {}, 'This trace has no elimination tree (qr_mumps writes it as atree.dot; StarVZ as atree.csv), so the tree panels do not apply.')));
    return;
  }
  const num = (s, d) => { const v = Number.parseFloat(s); return Number.isFinite(v) && v > 0 ? v : d; };
  const state = {
    slice: num(params.slice, 100), metric: params.metric === 'gflops' ? 'gflops' : 'time',
    by: params.by === 'depth' ? 'depth' : 'node', other: params.other || '', filters: readFilters(params),
  };
  const writeUrl = () => setParams({ ...filterQuery(state.filters), slice: state.slice, metric: state.metric,
    by: state.by, other: state.other });
  const sliceIn = h('input', { type: 'number', class: 'input input-narrow', id: 'atree-slice', min: 0, step: 'any',
    value: String(state.slice), 'aria-label': `Time slice (${unit})` });
  const metricSel = h('select', { class: 'input input-small', id: 'atree-metric', 'aria-label': 'Computation metric' },
    h('option', { value: 'time', selected: state.metric === 'time' }, 'resource use (%)'),
    h('option', { value: 'gflops', selected: state.metric === 'gflops' }, 'GFlop per slice'));
  const bySel = h('select', { class: 'input input-small', id: 'atree-by', 'aria-label': 'Utilisation by' },
    h('option', { value: 'node', selected: state.by === 'node' }, 'per tree node'),
    h('option', { value: 'depth', selected: state.by === 'depth' }, 'per tree depth'));
  const otherSel = h('select', { class: 'input input-small', id: 'atree-other', 'aria-label': 'Compare with' },
    h('option', { value: '' }, 'no comparison'));
  const res = traceResources(trace);
  const types = Object.keys((trace.summary && trace.summary.task_types) || {}).sort();
  const host = h('div', { class: 'atree-panels', 'aria-live': 'polite' });
  const tooltip = h('div', { class: 'atree-tooltip', role: 'tooltip', hidden: true });
  el.append(
    h('div', { class: 'atree-toolbar' },
      h('label', { for: 'atree-slice', class: 'small muted' }, `slice (${unit})`), sliceIn,
      h('label', { for: 'atree-metric', class: 'small muted' }, 'colour'), metricSel,
      h('label', { for: 'atree-by', class: 'small muted' }, 'utilisation'), bySel,
      h('label', { for: 'atree-other', class: 'small muted' }, 'compare with'), otherSel),
    filterBar({ types, resources: res.resources, nodes: res.nodes, unit, filters: state.filters,
      onChange: (f) => { state.filters = f; writeUrl(); load(); } }),
    host, tooltip);
  let timer = 0;
  onDispose(() => clearTimeout(timer));
  sliceIn.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => { const v = num(sliceIn.value, 0); if (v) { state.slice = v; writeUrl(); load(); } }, 400);
  });
  metricSel.addEventListener('change', () => { state.metric = metricSel.value; writeUrl(); load(); });
  bySel.addEventListener('change', () => { state.by = bySel.value; writeUrl(); load(); });
  otherSel.addEventListener('change', () => { state.other = otherSel.value; writeUrl(); load(); });
  api.get('/traces', { limit: 200 }, { signal }).then((list) => {
    const items = (list.traces || list.items || list || []).filter((t) => t.id !== trace.id && t.kind === 'tasks');
    for (const t of items) otherSel.appendChild(h('option', { value: String(t.id), selected: String(t.id) === state.other }, `#${t.id} ${t.name}`));
  }, () => {});

  let seq = 0;
  async function load() {
    const mine = ++seq;
    host.classList.add('is-loading');
    const q = { ...filterQuery(state.filters), slice: state.slice };
    const get = (path, extra) => api.get(`/traces/${trace.id}/${path}`, { ...q, ...extra }, { signal }).then((x) => ({ ok: x }), (e) => ({ err: e }));
    const [tree, util, mem, cmp] = await Promise.all([
      get('atree', { metric: state.metric }), get('tree-utilization', { by: state.by }), get('tree-memory'),
      state.other ? get('tree-compare', { other: state.other, metric: state.metric }) : Promise.resolve(null),
    ]);
    if (mine !== seq) return;
    host.classList.remove('is-loading');
    clear(host);
    if (tree.err) { host.appendChild(analysisError(tree.err, 'draw the elimination tree')); return; }
    if (!(tree.ok.rows > 0) && tree.ok.dropped_tasks > 0) { host.appendChild(noMappingBox(trace, tree.ok)); return; }
    if (!(tree.ok.rows > 0)) {
      host.appendChild(h('div', { class: 'alert alert-info', role: 'status' }, h('strong', {}, 'No task matches these filters'),
        h('p', {}, 'Select more task types, resources or nodes, or lower the minimum duration.')));
      return;
    }
    const width = Math.max(640, host.clientWidth || el.clientWidth || 1200);
    const x = linearScale([0, tree.ok.end], [M.l, width - M.r]);
    host.appendChild(treePanel(tree.ok, x, width, unit, tooltip));
    host.appendChild(util.err ? analysisError(util.err, 'compute the utilisation') : utilPanel(util.ok, x, width, unit, tooltip));
    host.appendChild(mem.err ? analysisError(mem.err, 'compute the memory') : memoryPanel(mem.ok, x, width, unit));
    if (cmp) host.appendChild(cmp.err ? analysisError(cmp.err, 'compare the runs') : comparePanel(cmp.ok, width, unit, tooltip));
  }
  await load();
}

// The tree is known but no task is mapped to one of its nodes: say which
// file is missing and how to make it, instead of drawing empty panels.
function noMappingBox(trace, d) {
  const nodes = (trace.summary && trace.summary.atree_nodes) || 0;
  const dropped = d.dropped_tasks || 0;
  const treeFile = ((trace.files || []).find((f) => f.role === 'atree') || {}).name;
  return h('div', { class: 'alert alert-info atree-empty', role: 'status' },
    h('strong', {}, 'No task of this run is mapped to the elimination tree'),
    h('p', {}, `The tree has ${formatNumber(nodes)} nodes${treeFile ? ` (from ${treeFile})` : ''}, but none of the `
      + `${formatNumber(dropped)} tasks names its node, so there is nothing to draw on it. The panels need `,
      h('code', {}, 'tasks_anode.csv'), ' in the same folder as paje.trace and tasks.rec: one line per task with the columns ',
      h('code', {}, 'JobId'), ', ', h('code', {}, 'ANode'), ' (the node, numbered as in the tree file) and optionally ',
      h('code', {}, 'GFlop'), '.'),
    h('p', {}, 'qr_mumps runs traced with StarPU FxT produce it next to the trace (its tracing scripts map each ',
      'task to its front after ', h('code', {}, 'starpu_fxt_tool'), '). Upload the folder again with that file; ',
      'the other tabs (Gantt, bounds, ...) work without it.'),
    h('p', { class: 'small muted' }, 'README.md, section “Supported inputs”, lists the files of a StarPU folder.'));
}

function showTip(tooltip, e, parts) {
  clear(tooltip).append(...parts);
  tooltip.hidden = false;
  tooltip.style.left = `${e.pageX + 14}px`;
  tooltip.style.top = `${e.pageY + 12}px`;
}

function columns(obj) {
  const keys = Object.keys(obj);
  const n = keys.length ? obj[keys[0]].length : 0;
  const rows = [];
  for (let i = 0; i < n; i++) {
    const r = {};
    for (const k of keys) r[k] = obj[k][i];
    rows.push(r);
  }
  return rows;
}

// ---- tree panel --------------------------------------------------------------------

function treePanel(d, x, width, unit, tooltip) {
  const nodes = columns(d.nodes);
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const rows = Math.max(1, d.rows);
  const rh = Math.max(3, Math.min(18, 560 / rows));
  const top = 8, plotH = rows * rh, H = top + plotH + 34;
  const y = (pos) => top + (pos - 1) * rh;
  const root = svg('svg', { class: 'atree-svg', width, height: H, role: 'img',
    'aria-label': `Elimination tree along time: ${rows} rows` });
  const g = svg('g');
  timeAxis(g, x, top, top + plotH, unit);
  // the rotated label must fit the plot's height (a few rows leave ~100 px)
  const label = plotH >= 240 ? 'Elimination tree [submission order]' : plotH >= 120 ? 'Tree nodes [submission]' : 'Nodes';
  g.appendChild(text(14, top + plotH / 2, label, { class: 'axis-label',
    transform: `rotate(-90 14 ${top + plotH / 2})`, 'text-anchor': 'middle' }));
  // row labels every few rows
  const every = Math.ceil(13 / rh);
  for (const n of nodes) {
    if (n.position === null || n.height !== 1 || (n.position - 1) % every) continue;
    g.appendChild(text(M.l - 4, y(n.position) + rh / 2 + 3, String(n.id), { 'text-anchor': 'end', class: 'tick' }));
  }
  root.appendChild(g);
  const drawn = nodes.filter((n) => n.position !== null && n.start !== null);
  // lifespans
  const life = svg('g', { class: 'lifespan' });
  for (const n of drawn) {
    if (n.height !== 1) continue;
    const cy = y(n.position) + rh / 2;
    life.appendChild(svg('line', { x1: x(n.start), x2: x(n.end), y1: cy, y2: cy }));
  }
  root.appendChild(life);
  // computation cells
  const lim = [d.scale.min ?? 0, d.scale.max ?? 1];
  const cells = svg('g', { class: 'cells' });
  const c = d.cells;
  for (let i = 0; i < c.node.length; i++) {
    const n = byId.get(c.node[i]);
    if (!n || n.position === null) continue;
    const y0 = y(n.position) + (c.pruned[i] ? rh * 0.25 : 0);
    cells.appendChild(svg('rect', { x: x(c.x0[i]), width: Math.max(0.6, x(c.x1[i]) - x(c.x0[i])), y: y0,
      height: c.pruned[i] ? rh / 2 : rh, fill: heatColor(c.value[i], lim[0], lim[1]) }));
  }
  root.appendChild(cells);
  // init (green, full height) and assembly (black, half height) tasks
  const tasks = svg('g');
  const rects = (cols, cls, half) => {
    for (let i = 0; i < cols.node.length; i++) {
      const n = byId.get(cols.node[i]);
      if (!n || n.position === null) continue;
      tasks.appendChild(svg('rect', { class: cls, x: x(cols.start[i]), width: Math.max(0.5, x(cols.end[i]) - x(cols.start[i])),
        y: y(n.position) + (half || n.height !== 1 ? rh * 0.25 : 0), height: half || n.height !== 1 ? rh / 2 : rh }));
    }
  };
  rects(d.init, 'init-task', false);
  rects(d.assembly, 'asm-task', true);
  root.appendChild(tasks);
  // arrows child -> parent: green at the starts, orange at the ends
  const arrows = svg('g', { class: 'arrows' });
  for (const n of drawn) {
    const p = n.parent === null ? null : byId.get(n.parent);
    if (n.height !== 1 || !p || p.position === null || p.start === null || p.height !== 1) continue;
    const cy = y(n.position) + rh / 2, py = y(p.position) + rh / 2;
    arrows.appendChild(svg('line', { x1: x(n.start), y1: cy, x2: x(p.start), y2: py, stroke: ATREE.start }));
    arrows.appendChild(svg('line', { x1: x(n.end), y1: cy, x2: x(p.end), y2: py, stroke: ATREE.end }));
    arrows.appendChild(svg('circle', { cx: x(n.start), cy, r: 1.6, fill: ATREE.start }));
    arrows.appendChild(svg('circle', { cx: x(n.end), cy, r: 1.6, fill: ATREE.end }));
  }
  root.appendChild(arrows);
  // anomalies
  const an = svg('g', { class: 'anomalies' });
  for (let i = 0; i < d.anomalies.node.length; i++) {
    const n = byId.get(d.anomalies.node[i]);
    if (!n || n.position === null) continue;
    an.appendChild(svg('circle', { cx: x(d.anomalies.start[i]), cy: y(n.position) + rh / 2, r: Math.max(2.5, rh / 2.2),
      stroke: kernelColor(d.anomalies.type[i]) }));
  }
  root.appendChild(an);
  // hover: the row's node, depth, lifespan and the cell under the cursor
  const rowNode = new Map();
  for (const n of nodes) if (n.position !== null && n.height === 1) rowNode.set(n.position, n);
  const pruned = new Map();
  for (const n of nodes) if (n.type === 'pruned' && n.parent !== null) pruned.set(n.parent, (pruned.get(n.parent) || 0) + 1);
  const cellAt = new Map();
  for (let i = 0; i < c.node.length; i++) cellAt.set(`${c.node[i]}/${c.pruned[i] ? 1 : 0}/${c.slice[i]}`, c.value[i]);
  const overlay = svg('rect', { class: 'overlay', x: M.l, y: top, width: width - M.l - M.r, height: plotH });
  overlay.addEventListener('mousemove', (e) => {
    const box = root.getBoundingClientRect();
    const px = e.clientX - box.left, py = e.clientY - box.top;
    const pos = Math.floor((py - top) / rh) + 1;
    const n = rowNode.get(pos);
    if (!n) { tooltip.hidden = true; return; }
    const t = x.invert(px), k = Math.floor(t / d.slice);
    const inPruned = (py - y(pos)) / rh > 0.25 && (py - y(pos)) / rh < 0.75 && pruned.get(n.id);
    const v = cellAt.get(`${n.id}/${inPruned ? 1 : 0}/${k}`);
    const val = v === undefined ? '—' : d.metric === 'time' ? `${v.toFixed(1)} %` : `${formatNumber(v)} GFlop`;
    showTip(tooltip, e, [h('strong', {}, `node ${n.id}`), ` · depth ${n.depth}`, n.parent !== null ? ` · parent ${n.parent}` : ' · root',
      h('br'), `row ${n.position} · ${n.tasks} tasks${pruned.get(n.id) ? ` · ${pruned.get(n.id)} pruned subtrees` : ''}`,
      h('br'), `lifespan ${fmtTime(n.start)} – ${fmtTime(n.end, unit)}`,
      h('br'), `${inPruned ? 'pruned subtrees' : 'node'} at ${fmtTime(t, unit)}: ${val}`]);
    root.dataset.hoverNode = String(n.id);
  });
  overlay.addEventListener('mouseleave', () => { tooltip.hidden = true; });
  root.appendChild(overlay);
  const legend = h('div', { class: 'legend atree-legend' },
    h('span', { class: 'legend-item' }, h('span', { class: 'grad-key' }), `${d.scale.label} (${fmtPrecision(lim[0])}–${fmtPrecision(lim[1])})`),
    h('span', { class: 'legend-item' }, h('span', { class: 'swatch', style: `background:${ATREE.init};opacity:.7` }), 'initialisation'),
    h('span', { class: 'legend-item' }, h('span', { class: 'swatch swatch-half', style: `background:${ATREE.assembly};opacity:.7` }), 'assembly (child → parent)'),
    h('span', { class: 'legend-item' }, h('span', { class: 'line-key', style: `border-color:${ATREE.lifespan}` }), 'lifespan'),
    h('span', { class: 'legend-item' }, h('span', { class: 'line-key', style: `border-color:${ATREE.start}` }), 'start → parent start'),
    h('span', { class: 'legend-item' }, h('span', { class: 'line-key', style: `border-color:${ATREE.end}` }), 'end → parent end'),
    Object.entries(ATREE.kernels).map(([k, col]) => h('span', { class: 'legend-item' }, h('span', { class: 'ring', style: `border-color:${col}` }), `${k} anomaly`)));
  return h('section', { class: 'panel atree-panel', id: 'atree-tree', 'aria-label': 'Elimination tree along time' },
    h('h2', {}, 'Elimination tree along time'),
    h('p', { class: 'muted small' }, `${formatNumber(d.rows)} rows (pruned subtrees at half height on their parent's row), `,
      `${formatNumber(d.anomalies.node.length)} anomalies (${d.anomaly_model}), slice ${fmtTime(d.slice, unit)}, ${d.workers} workers`,
      d.dropped_tasks ? `, ${d.dropped_tasks} tasks outside the tree ignored` : ''),
    root, legend);
}

// ---- utilisation ---------------------------------------------------------------------

function stackedPanel({ title, series, colors, names, x, width, unit, slice, tooltip, yLabel, id }) {
  const H = 180, top = 8, plotH = H - top - 34;
  const nsl = series.length ? series[0].length : 0;
  let maxY = 0;
  for (let k = 0; k < nsl; k++) maxY = Math.max(maxY, series.reduce((s, v) => s + v[k], 0));
  const yMax = Math.max(100, Math.ceil(maxY / 10) * 10);
  const y = linearScale([0, yMax], [top + plotH, top]);
  const root = svg('svg', { class: 'atree-svg', width, height: H, role: 'img', 'aria-label': title });
  const g = svg('g');
  timeAxis(g, x, top, top + plotH, unit);
  for (const v of [0, 50, 100]) {
    g.appendChild(svg('line', { x1: M.l, x2: width - M.r, y1: y(v), y2: y(v), class: 'grid' }));
    g.appendChild(text(M.l - 4, y(v) + 3, `${v}%`, { 'text-anchor': 'end', class: 'tick' }));
  }
  g.appendChild(text(14, top + plotH / 2, yLabel, { class: 'axis-label', transform: `rotate(-90 14 ${top + plotH / 2})`, 'text-anchor': 'middle' }));
  root.appendChild(g);
  const bars = svg('g');
  for (let k = 0; k < nsl; k++) {
    let base = 0;
    const x0 = x(k * slice), x1 = x(Math.min((k + 1) * slice, x.invert(x.range()[1])));
    for (let j = series.length - 1; j >= 0; j--) { // the highest id at the bottom
      const v = series[j][k];
      if (!(v > 0)) continue;
      bars.appendChild(svg('rect', { x: x0, width: Math.max(0.5, x1 - x0 + 0.2), y: y(base + v), height: y(base) - y(base + v), fill: colors[j] }));
      base += v;
    }
  }
  root.appendChild(bars);
  const overlay = svg('rect', { class: 'overlay', x: M.l, y: top, width: width - M.l - M.r, height: plotH });
  overlay.addEventListener('mousemove', (e) => {
    const box = root.getBoundingClientRect();
    const t = x.invert(e.clientX - box.left), k = Math.floor(t / slice);
    if (k < 0 || k >= nsl) { tooltip.hidden = true; return; }
    const parts = [h('strong', {}, `${fmtTime(k * slice)} – ${fmtTime((k + 1) * slice, unit)}`)];
    let total = 0;
    series.forEach((s, j) => {
      if (s[k] > 0) { parts.push(h('br'), `${names(j, k)}: ${s[k].toFixed(1)} %`); total += s[k]; }
    });
    parts.push(h('br'), `total ${total.toFixed(1)} %`);
    showTip(tooltip, e, parts);
  });
  overlay.addEventListener('mouseleave', () => { tooltip.hidden = true; });
  root.appendChild(overlay);
  return h('section', { class: 'panel atree-panel', id, 'aria-label': title }, h('h2', {}, title), root);
}

function utilPanel(u, x, width, unit, tooltip) {
  if (u.by === 'depth') {
    const series = u.depths.map((d) => d.value);
    const colors = depthColors(series.length);
    const panel = stackedPanel({ title: 'Resource utilisation per tree depth', series, colors, x, width, unit, slice: u.slice, tooltip,
      names: (j) => `depth ${u.depths[j].depth}`, yLabel: 'Usage % depth', id: 'atree-util' });
    panel.appendChild(h('div', { class: 'legend' }, u.depths.filter((d) => d.value.some((v) => v > 0)).map((d) =>
      h('span', { class: 'legend-item' }, h('span', { class: 'swatch', style: `background:${colors[u.depths.indexOf(d)]}` }), `depth ${d.depth}`))));
    return panel;
  }
  const c = u.layers.length;
  const colors = layerColors(c);
  const panel = stackedPanel({ title: 'Resource utilisation per tree node', series: u.layers.map((l) => l.value), colors, x, width,
    unit, slice: u.slice, tooltip, names: (j, k) => `node ${u.layers[j].node[k]}`, yLabel: 'Usage % node', id: 'atree-util' });
  panel.appendChild(h('p', { class: 'muted small' }, `${c} colours: nodes whose computations do not overlap share a colour; white is idleness.`));
  return panel;
}

// ---- active nodes and memory -----------------------------------------------------------

function stepPath(ts, vs, x, y, end) {
  let d = `M${x(0)},${y(0)}`;
  let prev = 0;
  for (let i = 0; i < ts.length; i++) {
    d += `L${x(ts[i]).toFixed(1)},${y(prev).toFixed(1)}L${x(ts[i]).toFixed(1)},${y(vs[i]).toFixed(1)}`;
    prev = vs[i];
  }
  return `${d}L${x(end).toFixed(1)},${y(prev).toFixed(1)}`;
}

function memoryPanel(m, x, width, unit) {
  const H = 170, top = 8, plotH = H - top - 34;
  const wrap = h('section', { class: 'panel atree-panel', id: 'atree-memory', 'aria-label': 'Active nodes and memory' },
    h('h2', {}, 'Active nodes and front memory'));
  const one = (label, lines, yLabel, fmt) => {
    const maxV = Math.max(1, ...lines.flatMap((l) => l.v));
    const y = linearScale([0, maxV * 1.08], [top + plotH, top]);
    const root = svg('svg', { class: 'atree-svg', width, height: H, role: 'img', 'aria-label': label });
    const g = svg('g');
    timeAxis(g, x, top, top + plotH, unit);
    for (const v of stepTicks(y, 4)) {
      g.appendChild(svg('line', { x1: M.l, x2: width - M.r, y1: y(v), y2: y(v), class: 'grid' }));
      g.appendChild(text(M.l - 4, y(v) + 3, fmt(v), { 'text-anchor': 'end', class: 'tick' }));
    }
    g.appendChild(text(14, top + plotH / 2, yLabel, { class: 'axis-label', transform: `rotate(-90 14 ${top + plotH / 2})`, 'text-anchor': 'middle' }));
    root.appendChild(g);
    for (const l of lines) root.appendChild(svg('path', { d: stepPath(l.t, l.v, x, y, m.end), class: 'step-line', stroke: l.color }));
    return root;
  };
  wrap.appendChild(one('Active nodes in memory', [
    { t: m.raw.not_pruned.t, v: m.raw.not_pruned.value, color: ATREE.notPruned },
    { t: m.raw.pruned.t, v: m.raw.pruned.value, color: ATREE.pruned }], 'Active nodes', (v) => String(v)));
  wrap.appendChild(h('div', { class: 'legend' },
    h('span', { class: 'legend-item' }, h('span', { class: 'line-key', style: `border-color:${ATREE.notPruned}` }), 'not pruned'),
    h('span', { class: 'legend-item' }, h('span', { class: 'line-key', style: `border-color:${ATREE.pruned}` }), 'pruned'),
    h('span', { class: 'muted small' }, `${m.events.init_front} init_front + ${m.events.do_subtree} do_subtree, ${m.events.clean_front} clean_front`)));
  if (m.has_memory) {
    wrap.appendChild(one('Memory used by the fronts', [{ t: m.raw.memory.t, v: m.raw.memory.value, color: ATREE.memory }],
      'Memory (MB)', (v) => formatNumber(Math.round(v))));
    wrap.appendChild(h('p', { class: 'muted small' }, `peak ${formatNumber(Math.round(m.peak_mb))} MB at ${fmtTime(m.peak_time, unit)}`));
  } else {
    wrap.appendChild(h('p', { class: 'muted small' }, 'No memory information: the front tasks of this trace carry no size in their GFlop field.'));
  }
  return wrap;
}

// ---- comparison -----------------------------------------------------------------------

function comparePanel(c, width, unit, tooltip) {
  const nodes = columns(c.nodes);
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const rows = Math.max(1, c.rows);
  const rh = Math.max(3, Math.min(12, 420 / rows));
  const top = 8, plotH = rows * rh, H = top + plotH + 34;
  const x = linearScale([0, c.slower_makespan], [M.l, width - M.r]);
  const y = (pos) => top + (pos - 1) * rh;
  const root = svg('svg', { class: 'atree-svg', width, height: H, role: 'img', 'aria-label': 'Tree comparison' });
  const g = svg('g');
  timeAxis(g, x, top, top + plotH, unit);
  root.appendChild(g);
  const cells = columns(c.cells);
  const lim = c.metric === 'time' ? 100 : Math.max(1e-12, ...cells.map((r) => Math.abs(r.diff)));
  const cg = svg('g');
  for (const r of cells) {
    const n = byId.get(r.node);
    if (!n || n.position === null) continue;
    const y0 = y(n.position) + (r.pruned ? rh * 0.25 : 0);
    cg.appendChild(svg('rect', { x: x(r.slice * c.slice), width: Math.max(0.6, x((r.slice + 1) * c.slice) - x(r.slice * c.slice)), y: y0,
      height: r.pruned ? rh / 2 : rh, fill: divergingColor(r.diff, lim),
      class: r.status === 'only_faster' ? 'cmp-faster' : r.status === 'only_slower' ? 'cmp-slower' : null }));
  }
  root.appendChild(cg);
  root.appendChild(svg('line', { x1: x(c.faster_makespan), x2: x(c.faster_makespan), y1: top, y2: top + plotH, class: 'end-line' }));
  const cum = c.cumulative || [];
  const wrap = h('section', { class: 'panel atree-panel', id: 'atree-compare', 'aria-label': 'Comparison of two runs' },
    h('h2', {}, `Comparison: ${c.faster_name} (faster, ${fmtTime(c.faster_makespan, unit)}) − ${c.slower_name} (${fmtTime(c.slower_makespan, unit)})`),
    root);
  if (cum.length) {
    const ch = 90, cy = linearScale([Math.min(0, ...cum), Math.max(0, ...cum) || 1], [ch - 6, 6]);
    const cs = svg('svg', { class: 'atree-svg', width, height: ch, role: 'img', 'aria-label': 'Cumulative difference' });
    cs.appendChild(svg('line', { x1: M.l, x2: width - M.r, y1: cy(0), y2: cy(0), class: 'grid' }));
    for (let k = 0; k < cum.length; k++) {
      cs.appendChild(svg('line', { x1: x(k * c.slice), x2: x((k + 1) * c.slice), y1: cy(cum[k]), y2: cy(cum[k]),
        stroke: cum[k] >= 0 ? ATREE.ahead : ATREE.behind, 'stroke-width': 2 }));
    }
    cs.appendChild(text(M.l - 4, 12, 'cumul.', { 'text-anchor': 'end', class: 'tick' }));
    wrap.appendChild(cs);
  }
  wrap.appendChild(h('div', { class: 'legend' },
    h('span', { class: 'legend-item' }, h('span', { class: 'swatch', style: `background:${ATREE.fasterAhead}` }), 'faster run ahead'),
    h('span', { class: 'legend-item' }, h('span', { class: 'swatch', style: `background:${ATREE.slowerAhead}` }), 'slower run ahead'),
    h('span', { class: 'legend-item' }, h('span', { class: 'swatch cmp-faster-key' }), 'only the faster run (blue border)'),
    h('span', { class: 'legend-item' }, h('span', { class: 'swatch cmp-slower-key' }), 'only the slower run (red border)'),
    h('span', { class: 'legend-item' }, h('span', { class: 'line-key key-makespan' }), 'end of the faster run')));
  void tooltip;
  return wrap;
}
