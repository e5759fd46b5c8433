// views/progression.js: the "Progression" tab of task traces (the seed
// paper's Fig. 2-4). Per time step, one point per cluster of nodes at the
// cluster's mean progression; lines join clusters of consecutive steps that
// share nodes, as thick as the nodes they share; the nodes of minority paths
// are written beside them; every node's own metric is a faint grey line
// behind; the global ABE is a vertical dashed line and the cumulative
// per-step ABE black points on a dotted line. Below, the density of each
// step with its local minima (Fig. 3). Controls: metric, steps, bandwidth
// (a slider; the view refetches), nodes. Clicking a cluster opens the Gantt
// of its nodes over that step (#/traces/{id}/gantt?start=&end=&nodes=).
// Both panels carry a legend with the units of their axes and of the sizes
// and widths (ari-legend, lib/legend.js); every hover (groups, flows, node
// lines, ABE) uses the dashboard tooltip (lib/tooltip.js), no SVG <title>.
//
// Data: GET /api/v1/traces/{id}/progression?steps=&bandwidth=&metric=&nodes=&density=1
import { api, apiUrl } from '../api.js';
import { getD3 } from '../d3.js';
import { h, clear } from '../dom.js';
import { analysisError } from '../lib/errors.js';
import { registerView, hasTasks } from '../trace.js';
import { svg } from '../lib/svg.js';
import { fmtQuantity as fmt, fmtPercent as pct, formatNumber } from '../lib/format.js';
import { createTooltip, tipContent, hoverTip } from '../lib/tooltip.js';
import { widthLegend } from '../lib/legend.js';

registerView({ id: 'progression', title: 'Progression', kinds: ['tasks'], applies: hasTasks, render: renderProgression });

const BW_MIN = 0.001;
const BW_MAX = 0.2;
const BW_SLIDER_MAX = 200;
const MAX_DENSITY_STEPS = 60;
const MAX_LABELS = 24;
const METRICS = [
  ['weighted', 'Weighted by task cost (eq. 3)'],
  ['count', 'Completed tasks (eq. 1)'],
];

// The slider is logarithmic: position 0..BW_SLIDER_MAX <-> BW_MIN..BW_MAX.
const bwFromSlider = (p) => Number((BW_MIN * (BW_MAX / BW_MIN) ** (p / BW_SLIDER_MAX)).toPrecision(2));
const sliderFromBw = (bw) => Math.round(BW_SLIDER_MAX * Math.log(bw / BW_MIN) / Math.log(BW_MAX / BW_MIN));

// "0-5,12" -> [0,1,2,3,4,5,12]; null for an empty text; throws on junk.
export function parseNodeList(text) {
  const s = String(text || '').trim();
  if (!s || s.toLowerCase() === 'all') return null;
  const out = new Set();
  for (const part of s.split(',').map((p) => p.trim()).filter(Boolean)) {
    const m = /^(\d+)(?:\s*[-–]\s*(\d+))?$/.exec(part);
    if (!m) throw new Error(`“${part}” is not a node number or range (e.g. 0-5,12)`);
    const a = Number(m[1]), b = m[2] === undefined ? a : Number(m[2]);
    if (b < a || b - a > 100000) throw new Error(`bad range “${part}”`);
    for (let i = a; i <= b; i++) out.add(i);
  }
  return [...out].sort((x, y) => x - y);
}

// [0,1,2,3,7,9,10] -> "0–3, 7, 9, 10"; long lists are cut with "+k more".
export function formatNodeList(nodes, maxChars = 48) {
  const parts = [];
  for (let i = 0; i < nodes.length;) {
    let j = i;
    while (j + 1 < nodes.length && nodes[j + 1] === nodes[j] + 1) j++;
    if (j - i >= 2) parts.push(`${nodes[i]}–${nodes[j]}`);
    else for (let k = i; k <= j; k++) parts.push(String(nodes[k]));
    i = j + 1;
  }
  let text = '';
  for (let i = 0; i < parts.length; i++) {
    const next = text ? `${text}, ${parts[i]}` : parts[i];
    if (next.length > maxChars && i > 0) return `${text} +${countNodes(parts.slice(i))} more`;
    text = next;
  }
  return text;
}

function countNodes(parts) {
  return parts.reduce((k, p) => {
    const m = /^(\d+)–(\d+)$/.exec(p);
    return k + (m ? Number(m[2]) - Number(m[1]) + 1 : 1);
  }, 0);
}

// ---- the view ------------------------------------------------------------------

// The task weight W of the weighted metric (eq. 2), see docs/api.md.
const WEIGHTS = [
  ['starvz', 'Workers that ran the type (StarVZ)'],
  ['all_workers', 'All workers of the resource type'],
];

function readState(params) {
  const steps = Number.parseInt(params.steps, 10);
  const bw = Number(params.bandwidth);
  return {
    steps: Number.isInteger(steps) && steps >= 1 && steps <= 1000 ? steps : 20,
    bandwidth: Number.isFinite(bw) && bw >= 0.0001 && bw <= 1 ? bw : 0.01,
    metric: METRICS.some(([m]) => m === params.metric) ? params.metric : 'weighted',
    weight: WEIGHTS.some(([w]) => w === params.weight) ? params.weight : 'starvz',
    nodes: params.nodes || '',
  };
}

async function renderProgression(el, trace, params, setParams, { signal, onDispose }) {
  getD3(); // fail early, with the install hint, when d3 is missing
  el.classList.add('prog-view');
  const state = readState(params);
  const ui = buildControls(state);
  const summary = h('p', { class: 'prog-summary', 'aria-live': 'polite' });
  const notice = h('div', { class: 'prog-notice' });
  const chartHost = h('div', { class: 'prog-chart' });
  const legend = h('div', { class: 'prog-legend-host' });
  const densityLegend = h('div', { class: 'prog-legend-host' });
  const tip = createTooltip(el, 'prog-tooltip');
  const densityHost = h('div', { class: 'prog-density-grid' });
  const densityNote = h('p', { class: 'muted small prog-density-note' });
  const mainPanel = h('section', { class: 'panel prog-panel', 'aria-labelledby': 'prog-title' },
    h('div', { class: 'prog-head' },
      h('div', {}, h('h2', { id: 'prog-title' }, 'Progression of groups of nodes'), summary),
      ui.json),
    ui.toolbar, notice, chartHost, legend,
    h('p', { class: 'muted small prog-hint' },
      'Nodes are grouped per step by the local minima of a Gaussian kernel density of their progression '
      + '(bandwidth h). Click a group to open the Gantt chart of its nodes over that step.'));
  const densityPanel = h('section', { class: 'panel prog-panel', 'aria-labelledby': 'prog-density-title' },
    h('h2', { id: 'prog-density-title' }, 'Density of the progression per step'),
    h('p', { class: 'muted small' }, 'Kernel density estimate of the nodes’ progression at each step; '
      + 'blue lines are its local minima, which separate the groups; ticks are the nodes.'),
    densityNote, densityLegend, densityHost);
  el.append(mainPanel, densityPanel);

  let data = null;
  let request = 0;
  const draw = () => {
    if (!data) return;
    drawChart(chartHost, data, trace, tip);
    clear(legend).appendChild(legendBlock(data));
    clear(densityLegend).appendChild(densityLegendBlock(data));
    drawDensities(densityHost, densityNote, data, tip);
  };
  const load = async () => {
    const mine = ++request;
    let nodes;
    try {
      nodes = parseNodeList(ui.nodes.value);
      ui.nodes.setCustomValidity('');
    } catch (e) {
      ui.nodes.setCustomValidity(e.message);
      ui.nodes.reportValidity();
      return;
    }
    const query = {
      steps: state.steps, bandwidth: state.bandwidth, metric: state.metric, weight: state.weight,
      nodes: nodes ? nodes.join(',') : '', density: state.steps <= MAX_DENSITY_STEPS ? 1 : 0,
    };
    ui.json.href = apiUrl(`/traces/${trace.id}/progression`, { ...query, density: 0 });
    chartHost.setAttribute('aria-busy', 'true');
    el.dataset.loading = '1';
    try {
      const body = await api.get(`/traces/${trace.id}/progression?${new URLSearchParams(
        Object.entries(query).filter(([, v]) => v !== '')).toString()}`, undefined, { signal });
      if (mine !== request) return;
      data = body;
      clear(notice);
      summary.textContent = summaryText(body, trace);
      if (body.single_node) {
        notice.appendChild(h('div', { class: 'alert alert-info prog-single', role: 'note' },
          h('strong', {}, 'Single-node trace. '),
          `All tasks ran on node ${body.nodes[0].node}, so there is one group at every step; the view `
          + 'still shows the node’s progression against the area bounds.'));
      }
      draw();
    } catch (e) {
      if (mine !== request) return;
      data = null;
      clear(chartHost);
      clear(densityHost);
      clear(notice).appendChild(analysisError(e, 'compute the progression'));
    } finally {
      if (mine === request) {
        chartHost.removeAttribute('aria-busy');
        delete el.dataset.loading;
      }
    }
  };
  const commit = () => {
    setParams({ steps: state.steps, bandwidth: state.bandwidth, metric: state.metric,
      weight: state.weight === 'starvz' ? null : state.weight, nodes: ui.nodes.value.trim() || null });
    load();
  };
  onDispose(wireControls(ui, state, commit));

  let resizeTimer = null;
  const onResize = () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(draw, 150);
  };
  window.addEventListener('resize', onResize);
  onDispose(() => { window.removeEventListener('resize', onResize); clearTimeout(resizeTimer); });
  await load();
}

function buildControls(state) {
  const metric = h('select', { class: 'input input-small', id: 'prog-metric' },
    METRICS.map(([v, label]) => h('option', { value: v, selected: v === state.metric }, label)));
  const weight = h('select', { class: 'input input-small', id: 'prog-weight',
    title: 'Eq. 2: the weight of a task type sums 1 / mean duration over these workers' },
    WEIGHTS.map(([v, label]) => h('option', { value: v, selected: v === state.weight }, label)));
  const steps = h('input', { type: 'number', class: 'input input-narrow', id: 'prog-steps', min: 1, max: 1000,
    step: 1, value: state.steps });
  const bwOut = h('output', { class: 'prog-bw-value', for: 'prog-bandwidth', id: 'prog-bandwidth-value' },
    String(state.bandwidth));
  const bandwidth = h('input', { type: 'range', id: 'prog-bandwidth', class: 'prog-slider', min: 0,
    max: BW_SLIDER_MAX, step: 1, value: sliderFromBw(Math.min(BW_MAX, Math.max(BW_MIN, state.bandwidth))),
    'aria-valuetext': `h = ${state.bandwidth}` });
  const nodes = h('input', { type: 'text', class: 'input input-small prog-nodes', id: 'prog-nodes',
    placeholder: 'all (e.g. 0-5,12)', value: state.nodes, spellcheck: 'false' });
  const json = h('a', { class: 'btn btn-small', target: '_blank', rel: 'noopener',
    title: 'The JSON of this view (for scripts)' }, 'JSON');
  const field = (label, id, ...control) => h('div', { class: 'prog-field' },
    h('label', { for: id, class: 'prog-label' }, label), ...control);
  const toolbar = h('div', { class: 'prog-toolbar', role: 'group', 'aria-label': 'Progression settings' },
    field('Metric', 'prog-metric', metric),
    field('Weight', 'prog-weight', weight),
    field('Steps', 'prog-steps', steps),
    field('Bandwidth h', 'prog-bandwidth', bandwidth, bwOut),
    field('Nodes', 'prog-nodes', nodes));
  return { toolbar, metric, weight, steps, bandwidth, bwOut, nodes, json };
}

// Returns the function that stops its pending timer.
function wireControls(ui, state, commit) {
  ui.metric.addEventListener('change', () => { state.metric = ui.metric.value; commit(); });
  ui.weight.addEventListener('change', () => { state.weight = ui.weight.value; commit(); });
  ui.steps.addEventListener('change', () => {
    const v = Number.parseInt(ui.steps.value, 10);
    if (!(v >= 1 && v <= 1000)) { ui.steps.value = state.steps; return; }
    state.steps = v;
    commit();
  });
  let timer = null;
  ui.bandwidth.addEventListener('input', () => {
    state.bandwidth = bwFromSlider(Number(ui.bandwidth.value));
    ui.bwOut.textContent = String(state.bandwidth);
    ui.bandwidth.setAttribute('aria-valuetext', `h = ${state.bandwidth}`);
    clearTimeout(timer);
    timer = setTimeout(commit, 200); // refetch while sliding, at most every 200 ms
  });
  ui.bandwidth.addEventListener('change', () => { clearTimeout(timer); commit(); });
  ui.nodes.addEventListener('change', commit);
  ui.nodes.addEventListener('keydown', (e) => { if (e.key === 'Enter') { e.preventDefault(); commit(); } });
  return () => clearTimeout(timer);
}

function summaryText(d, trace) {
  const maxClusters = Math.max(...d.steps.map((s) => s.clusters.length));
  const makespan = d.end - d.start;
  const parts = [
    `${d.node_count} node${d.node_count === 1 ? '' : 's'}`,
    `${d.step_count} steps of ${fmt(d.step_width, d.time_unit)}`,
    `h = ${d.bandwidth}`,
    `up to ${maxClusters} group${maxClusters === 1 ? '' : 's'} per step`,
  ];
  if (d.abe.global !== null) parts.push(`global ABE ${fmt(d.abe.global, d.time_unit)} (${pct(d.abe.global / makespan)} of the ${fmt(makespan, d.time_unit)} run)`);
  return parts.join(' · ');
}

// What the y axis measures, with its unit.
function metricText(d) {
  return d.metric === 'count' ? 'share of the node’s tasks completed (%, eq. 1)'
    : 'share of the node’s work done, tasks weighted by cost (%, eq. 3)';
}

// The main chart's legend: the axes' units, then every mark, with the sizes
// and widths of 1 node and of all nodes.
function legendBlock(d) {
  const item = (icon, text) => h('span', { class: 'prog-legend-item' }, icon, text);
  const line = (cls) => svg('svg', { width: 28, height: 12, 'aria-hidden': 'true' },
    svg('line', { x1: 2, y1: 6, x2: 26, y2: 6, class: cls }));
  const dot = (r) => svg('svg', { width: 2 * r + 4, height: 2 * r + 4, 'aria-hidden': 'true' },
    svg('circle', { cx: r + 2, cy: r + 2, r, class: 'prog-cluster' }));
  const n = d.node_count, unit = d.time_unit || 'time unit not set';
  const abe = d.abe.global !== null ? ` (${fmt(d.abe.global, d.time_unit)})` : '';
  return h('div', { class: 'prog-legend ari-legend', role: 'group', 'aria-label': 'Legend' },
    h('span', { class: 'ari-legend-title prog-legend-axes' }, `x: time (${unit}) · y: ${metricText(d)}`),
    item(line('prog-lg-node'), 'one node’s progression'),
    item([dot(clusterRadius(1, n)), dot(clusterRadius(n, n))],
      `group of nodes at one step, at its mean (size: 1 to ${n} node${n === 1 ? '' : 's'})`),
    widthLegend({ title: 'nodes staying together, width:', className: 'prog-flow-key',
      items: [[flowWidth(1, n), '1 node'], [flowWidth(n, n), `${n} nodes`]] }),
    item(line('prog-lg-minor'), 'minority path, labelled with its nodes'),
    item(line('prog-lg-abe'), `global ABE${abe}`),
    item(svg('svg', { width: 28, height: 12, 'aria-hidden': 'true' },
      svg('line', { x1: 2, y1: 6, x2: 26, y2: 6, class: 'prog-cum-line' }),
      svg('circle', { cx: 14, cy: 6, r: 2.6, class: 'prog-cum-point' })),
    `cumulative per-step ABE (time, ${unit}, at which a run at the bound reaches the step’s mean)`));
}

// The density panel's legend: the axes of every small chart and their marks.
function densityLegendBlock(d) {
  const item = (icon, text) => h('span', { class: 'prog-legend-item' }, icon, text);
  const sample = (...marks) => svg('svg', { width: 28, height: 14, 'aria-hidden': 'true' }, ...marks);
  return h('div', { class: 'prog-legend ari-legend prog-density-legend', role: 'group', 'aria-label': 'Legend of the densities' },
    h('span', { class: 'ari-legend-title' }, `x: progression (%, ${d.metric === 'count' ? 'tasks completed' : 'weighted work done'}) · `
      + 'y: density of nodes (relative, each step scaled to its peak)'),
    item(sample(svg('path', { d: 'M1,13 C8,1 20,1 27,13 Z', class: 'prog-density-area' })), 'kernel density'),
    item(sample(svg('line', { x1: 14, x2: 14, y1: 1, y2: 13, class: 'prog-density-min' })), 'local minimum (splits groups)'),
    item(sample(svg('line', { x1: 14, x2: 14, y1: 7, y2: 13, class: 'prog-density-rug' })), 'one node'));
}

// ---- main chart -------------------------------------------------------------------

function drawChart(host, d, trace, tip) {
  const d3 = getD3();
  clear(host);
  const width = Math.max(560, host.clientWidth || 900);
  const height = Math.max(300, Math.min(460, Math.round(window.innerHeight * 0.52)));
  const m = { top: 18, right: 24, bottom: 44, left: 58 };
  const xEnd = Math.max(d.end, ...d.abe.cumulative.map((p) => p.time));
  const x = d3.scaleLinear().domain([d.start, xEnd]).range([m.left, width - m.right]);
  const y = d3.scaleLinear().domain([0, 1]).range([height - m.bottom, m.top]);
  const root = svg('svg', { class: 'prog-svg', width, height, viewBox: `0 0 ${width} ${height}`, role: 'img',
    'aria-label': `Progression of ${d.node_count} nodes over ${d.step_count} steps` });
  host.append(root);

  drawAxes(d3, root, x, y, width, height, m, d);
  drawNodeLines(d3, root, x, y, d, tip);
  drawAbe(root, x, y, d, height, m, tip);
  drawFlows(root, x, y, d, tip);
  drawLabels(root, x, y, d, width, m);
  drawClusters(root, x, y, d, trace, tip);
}

function drawAxes(d3, root, x, y, width, height, m, d) {
  const g = svg('g', { class: 'prog-axes' });
  for (const t of y.ticks(5)) {
    g.append(svg('line', { x1: m.left, x2: width - m.right, y1: y(t), y2: y(t), class: 'prog-grid' }),
      svg('text', { x: m.left - 8, y: y(t), dy: '0.32em', 'text-anchor': 'end', class: 'prog-tick' }, pct(t)));
  }
  for (const t of x.ticks(Math.max(4, Math.floor(width / 110)))) {
    g.append(svg('line', { x1: x(t), x2: x(t), y1: height - m.bottom, y2: height - m.bottom + 5, class: 'prog-axis' }),
      svg('text', { x: x(t), y: height - m.bottom + 18, 'text-anchor': 'middle', class: 'prog-tick' }, formatNumber(t)));
  }
  g.append(svg('line', { x1: m.left, x2: width - m.right, y1: height - m.bottom, y2: height - m.bottom, class: 'prog-axis' }),
    svg('line', { x1: m.left, x2: m.left, y1: m.top, y2: height - m.bottom, class: 'prog-axis' }),
    svg('text', { x: (m.left + width - m.right) / 2, y: height - 6, 'text-anchor': 'middle', class: 'prog-axis-title' },
      `Time (${d.time_unit})`),
    svg('text', { transform: `translate(14 ${(m.top + height - m.bottom) / 2}) rotate(-90)`, 'text-anchor': 'middle',
      class: 'prog-axis-title' }, d.metric === 'count' ? 'Progression (% tasks done, eq. 1)' : 'Progression (% weighted, eq. 3)'));
  root.appendChild(g);
}

function drawNodeLines(d3, root, x, y, d, tip) {
  const g = svg('g', { class: 'prog-nodes-lines', 'aria-hidden': 'true' });
  const line = d3.line().x((p) => x(p[0])).y((p) => y(p[1]));
  for (const n of d.nodes) {
    const pts = [[d.start, 0], ...d.steps.map((s, i) => [s.time, n.values[i]])];
    const path = svg('path', { d: line(pts), class: 'prog-node-line' });
    hoverTip(path, tip, () => tipContent(`node ${n.node}`, [['At the last step', pct(n.values[n.values.length - 1])]],
      null, 'its own progression'));
    g.appendChild(path);
  }
  root.appendChild(g);
}

function drawAbe(root, x, y, d, height, m, tip) {
  const g = svg('g', { class: 'prog-abe' });
  if (d.abe.global_time !== null) {
    const gx = x(d.abe.global_time);
    // a wider invisible line above the 1-px one takes the hover
    const hit = svg('line', { x1: gx, x2: gx, y1: m.top, y2: height - m.bottom, class: 'prog-abe-hit' });
    hoverTip(hit, tip, () => tipContent('Global ABE', [['Bound', fmt(d.abe.global, d.time_unit)]], null,
      'the area bound on the makespan'));
    g.append(svg('line', { x1: gx, x2: gx, y1: m.top, y2: height - m.bottom, class: 'prog-abe-line' }), hit,
      svg('text', { x: gx + 4, y: m.top + 10, class: 'prog-abe-label' }, 'ABE'));
  }
  const pts = [[d.start, 0], ...d.abe.cumulative.map((p) => [p.time, p.value])];
  if (pts.length > 1) {
    g.appendChild(svg('polyline', { points: pts.map(([t, v]) => `${x(t)},${y(v)}`).join(' '), class: 'prog-cum-line' }));
    for (const p of d.abe.cumulative) {
      const pt = svg('circle', { cx: x(p.time), cy: y(p.value), r: 2.6, class: 'prog-cum-point' });
      hoverTip(pt, tip, () => tipContent(`Step ${p.step}: cumulative per-step ABE`,
        [['Bound', fmt(p.bound, d.time_unit)], ['Mean progression', pct(p.value)]], null,
        `a run at the bound would reach the mean progression of step ${p.step} here`));
      g.appendChild(pt);
    }
  }
  root.appendChild(g);
}

const flowWidth = (count, total) => 1.2 + 9 * Math.sqrt(count / total);

function drawFlows(root, x, y, d, tip) {
  const g = svg('g', { class: 'prog-flows' });
  for (const f of d.flows) {
    const a = d.steps[f.step - 1], b = d.steps[f.step];
    const ca = a.clusters[f.from], cb = b.clusters[f.to];
    const ln = svg('line', {
      x1: x(a.time), y1: y(ca.mean), x2: x(b.time), y2: y(cb.mean),
      class: f.minority ? 'prog-flow prog-flow-minor' : 'prog-flow',
      'stroke-width': flowWidth(f.count, d.node_count).toFixed(2),
    });
    hoverTip(ln, tip, () => tipContent(`${f.count} node${f.count === 1 ? '' : 's'} from step ${f.step} to ${f.step + 1}`,
      [['Nodes', formatNodeList(f.nodes, 80)]], null, f.minority ? 'minority path' : null));
    g.appendChild(ln);
  }
  root.appendChild(g);
}

// The minority paths get their nodes written beside them, once per path: a
// flow is labelled when it carries fewer nodes than another flow of its step
// (the server's `minority`) or less than half of the nodes, unless it merely
// continues a flow of the previous step with the same nodes into its source.
export function labelledFlows(d) {
  const labelled = [];
  let prev = new Set(); // "to-cluster|nodes" of every flow of the previous step
  for (let s = 1; s < d.step_count; s++) {
    const cur = new Set();
    for (const f of d.flows.filter((fl) => fl.step === s)) {
      const key = f.nodes.join(',');
      const worthy = f.minority || 2 * f.count < d.node_count;
      if (worthy && !prev.has(`${f.from}|${key}`)) labelled.push(f);
      cur.add(`${f.to}|${key}`);
    }
    prev = cur;
  }
  return labelled;
}

function drawLabels(root, x, y, d, width, m) {
  const g = svg('g', { class: 'prog-labels' });
  const placed = [];
  const fits = (b) => placed.every((p) => b.x + b.w < p.x || p.x + p.w < b.x || b.y + b.h < p.y || p.y + p.h < b.y);
  for (const f of labelledFlows(d)) {
    if (placed.length >= MAX_LABELS) break; // beyond that, the tooltips list the nodes
    const a = d.steps[f.step - 1], b = d.steps[f.step];
    const x1 = x(a.time), y1 = y(a.clusters[f.from].mean), x2 = x(b.time), y2 = y(b.clusters[f.to].mean);
    const text = `${f.count === 1 ? 'node' : 'nodes'} ${formatNodeList(f.nodes, 34)}`;
    const w = text.length * 6.3 + 8, hgt = 15;
    const below = y2 >= y1; // write on the outer side of a fork
    // Where to write: left of the path's first point when it starts the
    // chart (empty space there), else beside the middle of the flow.
    const cands = [];
    if (f.step === 1 && x1 - w - 8 > m.left) cands.push({ x: x1 - w - 8, y: y1 - hgt / 2 });
    const cx = Math.min(width - m.right - w, Math.max(m.left + 2, (x1 + x2) / 2 - w / 2));
    for (const dy of [0, 16, -16, 32, -32, 48, -48]) cands.push({ x: cx, y: (y1 + y2) / 2 + (below ? 8 : -8 - hgt) + dy });
    const box = cands.map((c) => ({ ...c, w, h: hgt })).find((c) => c.y > m.top - 4 && fits(c)) || null;
    if (!box) continue; // the flow's tooltip still lists its nodes
    placed.push(box);
    const mx = (x1 + x2) / 2, my = (y1 + y2) / 2;
    const ey = my < box.y ? box.y : my > box.y + box.h ? box.y + box.h : null;
    const besideStart = box.x + box.w < x1; // left of the first point, which anchors it
    if (!besideStart && ey !== null && Math.abs(ey - my) > 6) { // a leader from a displaced label to its path
      g.appendChild(svg('line', { x1: mx, y1: my, x2: Math.min(box.x + box.w, Math.max(box.x, mx)), y2: ey,
        class: 'prog-label-leader' }));
    }
    g.append(svg('rect', { x: box.x, y: box.y, width: box.w, height: box.h, rx: 3, class: 'prog-label-bg' }),
      svg('text', { x: box.x + 4, y: box.y + 11, class: 'prog-label' }, text));
  }
  root.appendChild(g);
}

const clusterRadius = (size, total) => 3.2 + 4.5 * Math.sqrt(size / total);

function drawClusters(root, x, y, d, trace, tip) {
  const g = svg('g', { class: 'prog-clusters' });
  d.steps.forEach((s) => {
    s.clusters.forEach((c) => {
      const r = clusterRadius(c.size, d.node_count);
      const href = gantHref(trace.id, s, c);
      const node = svg('circle', {
        cx: x(s.time), cy: y(c.mean), r: r.toFixed(2), class: 'prog-cluster', tabindex: 0, role: 'link',
        'data-step': s.step, 'data-cluster': c.id, 'data-nodes': c.nodes.join(','),
        'aria-label': `Step ${s.step}, group ${c.id + 1} of ${s.clusters.length}: ${c.size} nodes (${formatNodeList(c.nodes, 60)}), mean ${pct(c.mean)}. Open its Gantt chart.`,
      });
      const open = () => { location.hash = href; };
      node.addEventListener('click', open);
      node.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); open(); } });
      hoverTip(node, tip, () => clusterTip(s, c, d));
      g.appendChild(node);
    });
  });
  root.appendChild(g);
}

function gantHref(traceId, step, cluster) {
  const q = new URLSearchParams({ start: String(step.start), end: String(step.time), nodes: cluster.nodes.join(',') });
  return `#/traces/${traceId}/gantt?${q.toString()}`;
}

// The tooltip of a group of nodes at one step.
function clusterTip(s, c, d) {
  return tipContent(`Step ${s.step} · group ${c.id + 1} of ${s.clusters.length}`, [
    [c.size === 1 ? 'Node' : `Nodes (${c.size})`, formatNodeList(c.nodes, 60)],
    ['Mean progression', pct(c.mean)],
    ['Range', `${pct(c.min)} – ${pct(c.max)}`],
    ['Tasks ending in step', formatNumber(s.completed)],
  ], 'Click to open the Gantt chart of these nodes over this step.', `${fmt(s.start, d.time_unit)} – ${fmt(s.time, d.time_unit)}`);
}

// ---- densities (Fig. 3) -------------------------------------------------------------

function drawDensities(host, note, d, tip) {
  const d3 = getD3();
  clear(host);
  if (!d.steps.length || !d.steps[0].density) {
    note.textContent = `Densities are drawn for at most ${MAX_DENSITY_STEPS} steps; choose fewer steps to see them.`;
    return;
  }
  note.textContent = '';
  const lo = Math.min(...d.steps.map((s) => s.density.x[0]));
  const hi = Math.max(...d.steps.map((s) => s.density.x[s.density.x.length - 1]));
  const cols = Math.max(2, Math.min(5, Math.floor((host.clientWidth || 1000) / 230)));
  const w = Math.floor(((host.clientWidth || 1000) - (cols - 1) * 12) / cols);
  const hgt = 96, m = { top: 6, right: 6, bottom: 16, left: 6 };
  const x = d3.scaleLinear().domain([lo, hi]).range([m.left, w - m.right]);
  d.steps.forEach((s, i) => {
    const ymax = Math.max(...s.density.y) || 1;
    const y = d3.scaleLinear().domain([0, ymax * 1.08]).range([hgt - m.bottom, m.top]);
    const area = d3.area().x((p) => x(p[0])).y0(hgt - m.bottom).y1((p) => y(p[1]));
    const pts = s.density.x.map((xv, k) => [xv, s.density.y[k]]);
    const chart = svg('svg', { width: w, height: hgt, class: 'prog-density', role: 'img',
      'aria-label': `Step ${s.step}: ${s.clusters.length} group(s), ${s.minima.length} local minima` },
      svg('path', { d: area(pts), class: 'prog-density-area' }),
      s.minima.filter((v) => v >= lo && v <= hi).map((v) =>
        svg('line', { x1: x(v), x2: x(v), y1: m.top, y2: hgt - m.bottom, class: 'prog-density-min' })),
      d.nodes.map((n) => svg('line', { x1: x(n.values[i]), x2: x(n.values[i]), y1: hgt - m.bottom, y2: hgt - m.bottom + 5,
        class: 'prog-density-rug' })),
      svg('line', { x1: m.left, x2: w - m.right, y1: hgt - m.bottom, y2: hgt - m.bottom, class: 'prog-axis' }),
      [0, 0.5, 1].filter((t) => t >= lo && t <= hi).map((t) =>
        svg('text', { x: x(t), y: hgt - 1, 'text-anchor': t === 1 ? 'end' : t === 0 ? 'start' : 'middle',
          class: 'prog-density-tick' }, pct(t))));
    hoverTip(chart, tip, () => tipContent(`Step ${s.step} · ${fmt(s.time, d.time_unit)}`, [
      ['Groups', String(s.clusters.length)],
      ['Local minima', s.minima.length ? s.minima.map((v) => pct(v)).join(', ') : 'none'],
    ], null, 'density of the nodes’ progression'));
    host.appendChild(h('figure', { class: 'prog-density-cell' },
      h('figcaption', {}, h('strong', {}, `Step ${s.step}`), ` · ${fmt(s.time, d.time_unit)} · `,
        `${s.clusters.length} group${s.clusters.length === 1 ? '' : 's'}`), chart));
  });
  host.style.setProperty('--prog-cols', cols);
}
