// views/ensemble_sankey.js: the ensemble Sankey of an ensemble of profiles
// (Ensemble CallFlow, spec_callflow.md 2.12-2.13, 3.3 item 1), drawn from
// GET /ensembles/{id}/supergraph?runs=&target=&bins= (and /diff in diff mode):
//   - node height = inc_max (the largest inclusive time across the runs);
//   - fill = a vertical gradient of the node's histogram over the runs
//     (bin 0, the fastest runs, at the top; stop i at (i + 0.5) / B), white
//     to red with ONE colour domain: [min, max] of the counts of every node;
//   - border = exc_max (or inc_max) on a blue ramp;
//   - edges scaled at both ends (spec 2.12 "Edges in the ensemble-Sankey"):
//     h_src = H(S) w / max(inc(S), sum of S's outgoing w), the same at the
//     target with its incoming edges, drawn as a band between the two;
//   - text guides: hovering or focusing a node lists, per non-empty bin, its
//     value range and its runs, with min and max at the bar's ends; clicking
//     a bin restricts every view to its runs (state.runs);
//   - target mode: the target's inclusive time as a green bar inside each
//     node, its bin as a green line at y = (run_bin + 0.5) h / B, its edges
//     green over the grey ensemble (scaled like the ensemble edge); nodes the
//     target lacks are hatched;
//   - diff mode (target = baseline, comparison): nodes filled by delta on a
//     red-white-green scale symmetric about 0 (red: the comparison is slower).
// Clicking a node selects it (state.node) for the detail panels.
//
//   const view = mountSankey(el, state, { unitFor, loadGraph }); view.destroy();
// loadGraph(query) -> the supergraph answer (shared with the juxtaposed view);
// unitFor(metricName, maxValue) -> {unit, note} (lib/profile_unit.js).
import { api, apiUrl } from '../api.js';
import { h, clear } from '../dom.js';
import { getD3 } from '../d3.js';
import { errorBox } from '../settings.js';
import { SUPERGRAPH, countScale, borderScale, ENSEMBLE } from '../colors.js';
import { svg } from '../lib/svg.js';
import { fmtValue } from '../lib/format.js';
import { createTooltip, tipContent } from '../lib/tooltip.js';
import { rampLegend, swatchLegend } from '../lib/legend.js';
import { layoutGraph, hatchPattern, nodeLabel, sankeyHeight, NODE_W } from '../lib/sankey.js';
import { graphQuery } from '../lib/ensemble_state.js';
import { downloadLink } from '../lib/ensemble_panel.js';

const PAD = 12;                 // vertical gap between nodes of a column
const TARGET_BAR_W = 6;
const DIFF_COLOURS = ENSEMBLE.diff; // comparison slower .. faster

// A link that downloads `url` with the token (the view's CSV).
function csvLink(label, url, filename) {
  const link = downloadLink(label, filename, 'es-csv');
  link.set(url);
  return link.el;
}

export function mountSankey(el, state, { unitFor, loadGraph }) {
  const view = new EnsembleSankey(el, state, unitFor, loadGraph);
  view.load();
  return { destroy: () => view.destroy() };
}

class EnsembleSankey {
  constructor(el, state, unitFor, loadGraph) {
    this.d3 = getD3();
    this.state = state;
    this.unitFor = unitFor;
    this.loadGraph = loadGraph;
    this.border = 'exclusive';
    this.seq = 0;
    this.status = h('span', { class: 'small muted es-status', role: 'status', 'aria-live': 'polite' });
    this.legend = h('div', { class: 'sg-legend es-legend', 'aria-label': 'Legend' });
    this.downloads = h('div', { class: 'es-downloads small' });
    this.chart = h('div', { class: 'es-chart', id: 'es-chart' });
    this.guide = h('aside', { class: 'es-guide', 'aria-label': 'Text guide', 'aria-live': 'polite' });
    this.tip = createTooltip(el, 'sg-tooltip');
    el.append(h('div', { class: 'sg-head' }, this.legend, h('div', { class: 'es-head-right' }, this.status, this.downloads)),
      h('div', { class: 'es-body' }, this.chart, this.guide));
    this.unsubscribe = state.subscribe((s, changed) => this.onChange(changed));
  }

  destroy() {
    this.seq++;
    this.unsubscribe();
  }

  onChange(changed) {
    const s = this.state.get();
    if (changed.includes('callsite') && s.callsite && s.node && !changed.includes('reveal')
        && !(s.reveal && s.node.id && s.node.id.startsWith(`${s.reveal.id}=`))) {
      this.reveal(s.node, s.callsite);
      return;
    }
    if (changed.some((k) => ['runs', 'target', 'comparison', 'metric', 'reveal'].includes(k))) this.load();
    else if (changed.includes('node') || changed.includes('callsite')) this.markSelected();
  }

  // The icicle's call site shown in the Sankey: its supernode split by call
  // site (every view gets the same split through the state), the part that
  // holds the call site selected. Fetches the split graph first so that the
  // views change once, to nodes that exist.
  async reveal(node, callsite) {
    const seq = ++this.seq;
    const reveal = { id: node.id, key: node.key, name: node.name, module: node.module };
    const query = { ...graphQuery(this.state),
      split: JSON.stringify([{ id: node.id, by: 'callsite' }]) };
    this.status.textContent = `Revealing ${callsite}…`;
    try {
      const data = await this.loadGraph(query);
      if (seq !== this.seq) return;
      const part = data.nodes.find((n) => n.kind === 'split' && n.name === callsite && n.id.startsWith(`${node.id}=`));
      if (!part) {
        this.seq++;
        this.markSelected();
        this.status.textContent += ` · ${callsite} is not a node of its own (filtered out: lower the filter)`;
        return;
      }
      this.state.set({ reveal, node: { id: part.id, key: part.key, name: part.name, module: part.module } });
    } catch (e) {
      if (seq === this.seq) this.status.textContent = `Could not reveal ${callsite}: ${e.message}`;
    }
  }

  // Joins the revealed supernode's call sites again, selecting it.
  unreveal() {
    const { reveal } = this.state.get();
    this.state.set({ reveal: null, callsite: null, node: reveal && reveal.key ? reveal : null });
  }

  async load() {
    const seq = ++this.seq;
    const s = this.state.get();
    const query = graphQuery(this.state);
    this.status.textContent = 'Computing the ensemble super graph…';
    this.chart.classList.add('loading');
    try {
      const data = await this.loadGraph(query);
      const diff = s.mode === 'diff' && this.inRuns(s.target) && this.inRuns(s.comparison)
        ? await api.get(`/ensembles/${this.state.id}/diff`, { ...query, target: null, baseline: s.target,
          comparison: s.comparison, value: s.metric === 'exclusive' ? 'exc' : 'inc' }) : null;
      if (seq !== this.seq) return;
      this.data = data;
      this.diff = diff;
      this.query = query;
      this.draw();
    } catch (e) {
      if (seq !== this.seq) return;
      this.status.textContent = '';
      clear(this.chart).appendChild(errorBox(e, 'compute the ensemble super graph'));
    } finally {
      if (seq === this.seq) this.chart.classList.remove('loading');
    }
  }

  // Target mode: the target's values drawn in green (not in diff mode,
  // where green means faster).
  targetMode() {
    return this.state.get().mode === 'target' && this.data.target != null;
  }

  inRuns(id) {
    const runs = this.state.get().runs;
    return id != null && (!runs || runs.includes(id));
  }

  // ---- drawing ----

  draw() {
    const { d3, data } = this;
    const s = this.state.get();
    const metric = s.metric;
    this.unit = this.unitFor(data.metric, d3.max(data.nodes, (n) => n.inc_max)).unit;
    const counts = data.nodes.flatMap((n) => n.gradient[metric].counts);
    this.fillScale = countScale(d3, counts.length ? d3.extent(counts) : [0, 1]);
    const bkey = this.border === 'inclusive' ? 'inc_max' : 'exc_max';
    this.borderScale = borderScale(d3, d3.max(data.nodes, (n) => n[bkey]));
    this.deltas = this.diff ? new Map(this.diff.nodes.map((n) => [n.id, n.delta])) : null;
    if (this.diff) {
      const m = Math.max(this.diff.domain[1], 1e-12);
      this.diffScale = d3.scaleDiverging(d3.piecewise(d3.interpolateRgb, DIFF_COLOURS)).domain([-m, 0, m]);
    }
    this.drawStatus();
    this.drawLegend();
    this.drawDownloads();
    this.drawGraph();
    this.drawGuide(null);
  }

  drawStatus() {
    const { data } = this;
    const s = this.state.get();
    const total = this.state.members.length;
    const f = data.filter;
    this.status.textContent = `${data.nodes.length} nodes, ${data.edges.length} edges · ${data.runs.length} of ${total} runs`
      + ` · ${data.metric} (${data.collapse} over ranks) · filter ${f.percent}% (${f.kept} of ${f.total} call sites)`
      + (s.mode === 'diff' && !this.diff ? ' · the diff needs the target and the comparison in the run subset' : '')
      + (s.mode === 'target' && data.target == null ? ' · the target run is not in the run subset' : '');
  }

  drawLegend() {
    const { data, unit } = this;
    const s = this.state.get();
    const [c0, c1] = this.fillScale.domain();
    const items = [];
    if (this.diff) {
      const m = this.diffScale.domain()[2];
      items.push(rampLegend({ title: `Fill: baseline − comparison (${this.diff.value === 'inc' ? 'inclusive' : 'exclusive'}): red = comparison slower`,
        colour: (t) => this.diffScale(-m + 2 * m * t), lo: fmtValue(-m, unit), hi: `+${fmtValue(m, unit)}`,
        className: 'es-legend-diff', note: `baseline ${this.state.runName(s.target)}, comparison ${this.state.runName(s.comparison)}` }));
    } else {
      items.push(rampLegend({ title: `Fill: runs per bin of ${metric(s)} time (top: fastest)`,
        colour: (t) => this.fillScale(c0 + (c1 - c0) * t), lo: String(Math.round(c0)), hi: String(Math.round(c1)),
        className: 'es-legend-fill' }));
    }
    const [b0, b1] = this.borderScale.domain();
    const select = h('select', { class: 'input input-small', id: 'es-border', 'aria-label': 'Border colour',
      onchange: (e) => { this.border = e.target.value; this.draw(); } },
    [['exclusive', 'max exclusive'], ['inclusive', 'max inclusive']].map(([v, t]) =>
      h('option', { value: v, selected: v === this.border }, t)));
    items.push(h('div', { class: 'es-border-legend' },
      rampLegend({ title: 'Border:', colour: (t) => this.borderScale(b0 + (b1 - b0) * t), lo: fmtValue(b0, unit),
        hi: fmtValue(b1, unit), className: 'es-legend-border' }), select));
    const keys = [[ENSEMBLE.ensembleBar, 'ensemble (height: max inclusive)']];
    if (this.targetMode()) keys.push([ENSEMBLE.target, `target ${this.state.runName(s.target)} (bar, bin line, edges)`]);
    items.push(swatchLegend(keys, { className: 'es-legend-keys' }));
    if (this.targetMode()) {
      items.push(h('span', { class: 'small muted es-hatch-note' }, h('span', { class: 'sg-swatch sg-swatch-hatch' }),
        ' absent from the target'));
    }
    clear(this.legend).append(...items);
  }

  drawDownloads() {
    const base = `/ensembles/${this.state.id}/supergraph`;
    clear(this.downloads).append('Download: ',
      csvLink('nodes (CSV)', apiUrl(base, { ...this.query, format: 'csv' }), `ensemble-${this.state.id}-nodes.csv`), ' ',
      csvLink('edges (CSV)', apiUrl(base, { ...this.query, format: 'csv', table: 'edges' }), `ensemble-${this.state.id}-edges.csv`));
  }

  drawGraph() {
    const { d3, data } = this;
    if (!data.nodes.length) {
      clear(this.chart).appendChild(h('p', { class: 'muted' }, 'No call site of these runs passes the filter: '
        + 'clear the run subset or choose other runs.'));
      return;
    }
    const width = Math.max(560, this.chart.clientWidth || 900);
    const height = sankeyHeight(data.nodes);
    const nodesIn = data.nodes.map((n) => ({ ...n, stats: { inclusive: n.inclusive, exclusive: n.exclusive },
      inclusive: n.inc_max, exclusive: n.exc_max }));
    const { graph, columns } = layoutGraph(d3, nodesIn, data.edges, width, height, { pad: PAD });
    const top = graph.nodes.find((n) => n.inclusive > 0);
    this.ky = top ? (top.y1 - top.y0) / top.inclusive : 0;
    const root = svg('svg', { class: 'sg-svg es-svg', width, height, viewBox: `0 0 ${width} ${height}`, role: 'img',
      'aria-label': `Ensemble super graph of ${data.runs.length} runs: node height is the largest inclusive time across the runs, `
        + 'the fill the histogram of the runs', 'data-node-count': graph.nodes.length });
    const defs = svg('defs', {}, hatchPattern());
    root.appendChild(defs);
    this.gLinks = svg('g', { class: 'sg-links es-links' });
    this.gNodes = svg('g', { class: 'sg-nodes es-nodes' });
    root.append(this.gLinks, this.gNodes);
    const edgeOf = new Map(data.edges.map((e) => [`${e.source}\u0000${e.target}`, e]));
    const bands = edgeBands(graph);
    for (const l of graph.links) this.drawEdge(l, bands.get(l), edgeOf.get(`${l.source.id}\u0000${l.target.id}`));
    graph.nodes.forEach((n, i) => this.drawNode(n, i, defs, { columns, width, root: data.nodes[0] ? data.nodes[0].inc_max : 0 }));
    clear(this.chart).appendChild(root);
    this.markSelected();
  }

  drawEdge(l, band, e) {
    const p = svg('path', { d: bandPath(band), class: 'es-link' });
    const tipOf = () => edgeTip(l, e, this.unit, this.state);
    p.addEventListener('mousemove', (ev) => this.tip.show(ev, tipOf()));
    p.addEventListener('mouseleave', this.tip.hide);
    this.gLinks.appendChild(p);
    const t = e && e.target_weight;
    if (this.targetMode() && t != null && e.weight > 0) {
      const f = t / e.weight;
      const tb = { ...band, ys1: band.ys0 + (band.ys1 - band.ys0) * f, yt1: band.yt0 + (band.yt1 - band.yt0) * f };
      const q = svg('path', { d: bandPath(tb), class: 'es-target-link', fill: ENSEMBLE.target });
      q.addEventListener('mousemove', (ev) => this.tip.show(ev, tipOf()));
      q.addEventListener('mouseleave', this.tip.hide);
      this.gLinks.appendChild(q);
    }
  }

  drawNode(n, i, defs, { columns, width, root }) {
    const s = this.state.get();
    const hgt = Math.max(1, n.y1 - n.y0);
    const g = svg('g', { class: `sg-node es-node sg-kind-${n.kind}`, transform: `translate(${n.x0},${n.y0})`, tabindex: 0,
      role: 'button', 'data-id': n.id, 'data-key': n.key,
      'aria-label': `${n.name}: largest inclusive ${fmtValue(n.inc_max, this.unit)} across the runs; Enter selects it` });
    g.appendChild(svg('rect', { class: 'es-bar', width: NODE_W, height: hgt, fill: this.nodeFill(n, i, defs),
      stroke: this.borderScale(this.border === 'inclusive' ? n.inc_max : n.exc_max) }));
    const tgt = n.target;
    if (this.targetMode()) {
      const missing = !tgt || tgt.inclusive == null;
      if (missing) {
        g.classList.add('es-missing');
        g.appendChild(svg('rect', { class: 'es-missing-fill', width: NODE_W, height: hgt, fill: 'url(#sg-hatch)' }));
      } else {
        g.appendChild(svg('rect', { class: 'es-target-bar', width: TARGET_BAR_W, height: Math.min(hgt, tgt.inclusive * this.ky),
          fill: ENSEMBLE.target }));
        const bin = n.gradient[s.metric].run_bin[String(s.target)];
        if (bin != null) {
          const y = ((bin + 0.5) * hgt) / this.data.bins;
          g.appendChild(svg('line', { class: 'es-target-line', x1: -3, x2: NODE_W + 3, y1: y, y2: y, stroke: ENSEMBLE.target }));
        }
      }
    }
    nodeLabel(g, n, hgt, columns, width, root, this.unit);
    const show = (ev) => { this.tip.show(ev, nodeTip(n, this)); this.drawGuide(n); };
    g.addEventListener('mousemove', show);
    g.addEventListener('focus', () => show(g));
    g.addEventListener('mouseleave', this.tip.hide);
    g.addEventListener('blur', this.tip.hide);
    g.addEventListener('click', () => this.select(n));
    g.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); this.select(n); }
    });
    this.gNodes.appendChild(g);
  }

  // The diff colour, or the node's own gradient of runs per bin.
  nodeFill(n, i, defs) {
    if (this.deltas) {
      const d = this.deltas.get(n.id);
      return d == null ? SUPERGRAPH.missingNode : this.diffScale(d);
    }
    const counts = n.gradient[this.state.get().metric].counts;
    const id = `es-grad-${i}`;
    const grad = svg('linearGradient', { id, x1: 0, y1: 0, x2: 0, y2: 1, class: 'es-gradient' });
    counts.forEach((c, b) => grad.appendChild(svg('stop', { offset: (b + 0.5) / counts.length, 'stop-color': this.fillScale(c) })));
    defs.appendChild(grad);
    return `url(#${id})`;
  }

  select(n) {
    const cur = this.state.get().node;
    this.state.set({ node: cur && cur.key === n.key ? null : { id: n.id, key: n.key, name: n.name, module: n.module } });
  }

  // Outlines the selected node; a call site picked in the icicle is named
  // in the status line, in its (selected) node.
  markSelected() {
    const { node, callsite } = this.state.get();
    for (const g of this.chart.querySelectorAll('.es-node')) g.classList.toggle('selected', !!node && g.dataset.key === node.key);
    if (!this.data) return;
    this.drawStatus();
    const { reveal } = this.state.get();
    if (reveal) {
      this.status.append(` · the call sites of ${reveal.name || reveal.id} are drawn apart${callsite ? `, ${callsite} outlined` : ''} `,
        h('button', { type: 'button', class: 'btn btn-small es-unreveal', onclick: () => this.unreveal() }, 'Join them again'));
    } else if (node && callsite) {
      this.status.textContent += ` · call site ${callsite} is inside ${node.name || 'the selected node'} (outlined)`;
    }
  }

  // ---- text guides ----

  // The guide of node n (null: the hint) in the side panel, and its min
  // and max at the ends of the bar.
  drawGuide(n) {
    if (n && this.guideNode === n.id) return;
    this.guideNode = n ? n.id : null;
    for (const t of this.chart.querySelectorAll('.es-guide-mark')) t.remove();
    if (!n) {
      clear(this.guide).append(h('h3', {}, 'Text guide'), h('p', { class: 'small muted' },
        'Hover or focus a node to list its runs per bin of its histogram. Click a bin to restrict every view to those runs.'));
      return;
    }
    const s = this.state.get();
    const G = n.gradient[s.metric];
    const unit = this.unit;
    const g = this.chart.querySelector(`.es-node[data-id="${CSS.escape(n.id)}"]`);
    const hgt = Math.max(1, n.y1 - n.y0);
    if (g) {
      g.appendChild(svg('text', { class: 'es-guide-mark', x: 0, y: -4 }, `min ${fmtValue(G.min, unit, 3)}`));
      g.appendChild(svg('text', { class: 'es-guide-mark', x: 0, y: hgt + 12 }, `max ${fmtValue(G.max, unit, 3)}`));
    }
    const rows = G.bin_runs.map((runs, b) => ({ runs, b })).filter((r) => r.runs.length > 0);
    clear(this.guide).append(h('h3', {}, `Text guide: ${n.name}`),
      h('p', { class: 'small muted' }, `${metric(s)} time over ${G.bin_runs.flat().length} runs, ${G.bin_runs.length} bins;`
        + ' top of the bar = min, bottom = max. Click a bin to show only its runs.'),
      h('div', { class: 'es-guide-end small' }, `min ${fmtValue(G.min, unit)}`),
      h('ol', { class: 'es-guide-bins' }, rows.map(({ runs, b }) => h('li', {},
        h('button', { type: 'button', class: 'es-guide-bin', 'data-bin': b, 'data-runs': runs.join(','),
          title: runs.map((r) => this.state.runName(r)).join(', '),
          onclick: () => this.state.set({ runs: [...runs] }) },
        h('span', { class: 'es-guide-range' }, `${fmtValue(G.edges[b], unit, 4)} – ${fmtValue(G.edges[b + 1], unit, 4)}`),
        h('span', { class: 'es-guide-runs' }, `${runs.length} run${runs.length === 1 ? '' : 's'}: ${runLabels(this.state, runs)}`))))),
      h('div', { class: 'es-guide-end small' }, `max ${fmtValue(G.max, unit)}`),
      rows.length < G.bin_runs.length ? h('p', { class: 'small muted' }, `${G.bin_runs.length - rows.length} empty bins not listed.`) : null);
  }
}

// ---- helpers ----

const metric = (s) => (s.metric === 'exclusive' ? 'exclusive' : 'inclusive');

function runLabels(state, runs) {
  const names = runs.slice(0, 4).map((r) => state.runName(r).replace(/ \(trace (\d+)\)$/, ' #$1'));
  return names.join(', ') + (runs.length > 4 ? `, +${runs.length - 4}` : '');
}

// The ends of every link, scaled to its source and target nodes
// (spec 2.12): Map link -> {xs, xt, ys0, ys1, yt0, yt1}.
function edgeBands(graph) {
  const out = new Map();
  const side = (n, links, key) => {
    const total = links.reduce((a, l) => a + l.value, 0);
    const denom = Math.max(n.inclusive, total) || 1;
    let y = n.y0;
    for (const l of links) {
      const hh = ((n.y1 - n.y0) * l.value) / denom;
      const b = out.get(l) || {};
      b[`${key}0`] = y;
      b[`${key}1`] = y + hh;
      out.set(l, b);
      y += hh;
    }
  };
  for (const n of graph.nodes) {
    side(n, n.sourceLinks, 'ys');
    side(n, n.targetLinks, 'yt');
  }
  for (const l of graph.links) Object.assign(out.get(l), { xs: l.source.x1, xt: l.target.x0 });
  return out;
}

// A band from the source's end to the target's, its thickness interpolated.
function bandPath({ xs, xt, ys0, ys1, yt0, yt1 }) {
  const xm = (xs + xt) / 2;
  return `M${xs},${ys0}C${xm},${ys0} ${xm},${yt0} ${xt},${yt0}L${xt},${yt1}C${xm},${yt1} ${xm},${ys1} ${xs},${ys1}Z`;
}

function range(st, unit) {
  return st.present ? `${fmtValue(st.min, unit)} – ${fmtValue(st.max, unit)} (mean ${fmtValue(st.mean, unit)})` : '—';
}

function nodeTip(n, view) {
  const s = view.state.get();
  const unit = view.unit;
  const N = n.presence.length;
  const rows = [
    ['Inclusive', range(n.stats.inclusive, unit)],
    ['Exclusive', range(n.stats.exclusive, unit)],
    ['Present', `${n.presence.filter(Boolean).length} of ${N} runs`],
  ];
  if (s.target != null && view.data.target != null) {
    rows.push(['Target', n.target && n.target.inclusive != null
      ? `${fmtValue(n.target.inclusive, unit)} incl. · ${fmtValue(n.target.exclusive, unit)} excl.` : 'absent from the target']);
  }
  if (view.deltas) rows.push(['Baseline − comparison', fmtValue(view.deltas.get(n.id), unit)]);
  return tipContent(n.name, rows, 'Click to select it for the panels below', n.module !== n.name ? `module ${n.module}` : null);
}

function edgeTip(l, e, unit, state) {
  const rows = e ? [
    ['Flow, max across runs', fmtValue(e.weight, unit)],
    ['Min – mean', `${fmtValue(e.weight_min, unit)} – ${fmtValue(e.weight_mean, unit)}`],
    ['Present', `${e.present} of ${e.runs.length} runs`],
  ] : [];
  if (e && state.get().target != null) rows.push(['Target', e.target_weight == null ? 'absent' : fmtValue(e.target_weight, unit)]);
  return tipContent(`${l.source.name} → ${l.target.name}`, rows);
}
