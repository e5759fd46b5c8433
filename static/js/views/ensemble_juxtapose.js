// views/ensemble_juxtapose.js: juxtaposed super graphs of 2-4 members of an
// ensemble (spec_callflow.md 2.9, "Chapter 3 juxtaposed comparison"): the
// chosen runs' super graphs side by side with ONE height scale (pixels per
// second: the root bars are comparable) and ONE colour domain of exclusive
// time. The values are each member's own from the ensemble super graph
// (nodes[].inclusive.runs[k], exclusive.runs[k], edges[].runs[k]), so that
// node ids match across the graphs; a node or edge a member lacks (null) is
// left out of its graph. Nodes and edges are drawn with the single-run super
// graph's pieces (views/supergraph.js) so they look the same.
//
//   const view = mountJuxtapose(el, state, { unitFor, loadGraph }); view.destroy();
import { h, clear } from '../dom.js';
import { getD3 } from '../d3.js';
import { errorBox } from '../settings.js';
import { heatScale } from '../colors.js';
import { svg } from '../lib/svg.js';
import { fmtValue } from '../lib/format.js';
import { createTooltip, tipContent } from '../lib/tooltip.js';
import { rampLegend } from '../lib/legend.js';
import { layoutGraph, drawNode, drawLinks, hatchPattern, sankeyHeight } from '../lib/sankey.js';
import { graphQuery } from '../lib/ensemble_state.js';

const MAX_RUNS = 4;
const PAD = 10;

export function mountJuxtapose(el, state, { unitFor, loadGraph }) {
  const view = new Juxtapose(el, state, unitFor, loadGraph);
  view.load();
  return { destroy: () => view.destroy() };
}

class Juxtapose {
  constructor(el, state, unitFor, loadGraph) {
    this.d3 = getD3();
    this.state = state;
    this.unitFor = unitFor;
    this.loadGraph = loadGraph;
    this.chosen = null; // trace ids, or null: the target and comparison, else the first two runs
    this.seq = 0;
    this.picker = h('fieldset', { class: 'es-jux-picker' });
    this.legend = h('div', { class: 'sg-legend es-jux-legend' });
    this.grid = h('div', { class: 'es-jux-grid', id: 'es-jux-grid' });
    this.tip = createTooltip(el, 'sg-tooltip');
    el.append(this.picker, this.legend, this.grid);
    this.unsubscribe = state.subscribe((s, changed) => {
      if (changed.some((k) => ['runs', 'target', 'comparison', 'reveal'].includes(k))) this.load();
    });
  }

  destroy() {
    this.seq++;
    this.unsubscribe();
  }

  async load() {
    const seq = ++this.seq;
    this.grid.classList.add('loading');
    try {
      const data = await this.loadGraph(graphQuery(this.state));
      if (seq !== this.seq) return;
      this.data = data;
      this.draw();
    } catch (e) {
      if (seq === this.seq) clear(this.grid).appendChild(errorBox(e, 'load the super graphs of the runs'));
    } finally {
      if (seq === this.seq) this.grid.classList.remove('loading');
    }
  }

  // The runs drawn: the user's choice among the loaded runs, else the
  // target and the comparison, else the first two.
  shown() {
    const ids = this.data.runs.map((r) => r.trace_id);
    const s = this.state.get();
    const pick = (this.chosen || [s.target, s.comparison]).filter((id) => ids.includes(id));
    for (const id of ids) if (pick.length < 2 && !pick.includes(id)) pick.push(id);
    return pick.slice(0, MAX_RUNS);
  }

  draw() {
    const shown = this.shown();
    this.drawPicker(shown);
    clear(this.grid);
    clear(this.legend);
    if (shown.length < 2) {
      this.grid.appendChild(h('p', { class: 'muted small' }, 'Juxtaposing needs two runs or more: clear the run subset above.'));
      return;
    }
    const graphs = shown.map((id) => this.memberGraph(id));
    const d3 = this.d3;
    const unit = this.unitFor(this.data.metric, d3.max(graphs, (g) => g.root)).unit;
    const maxExc = d3.max(graphs.flatMap((g) => g.nodes.map((n) => n.exclusive))) || 1;
    const colour = heatScale(d3, [0, maxExc * 1.08]);
    const width = Math.max(300, Math.floor(((this.grid.clientWidth || 1000) - 16) / 2));
    const height = sankeyHeight(this.data.nodes);
    const laid = graphs.map((g) => ({ ...g, ...layoutGraph(d3, g.nodes, g.edges, width, height, { pad: PAD }) }));
    const ky = d3.min(laid, (g) => scaleOf(g.graph));
    for (const g of laid) rescale(g.graph, ky);
    this.legend.append(
      rampLegend({ title: 'Colour: exclusive time (one scale for every graph)', colour: (t) => colour(maxExc * t),
        lo: fmtValue(0, unit), hi: fmtValue(maxExc, unit) }),
      h('span', { class: 'small muted es-jux-scale' }, `Height: one scale, ${fmtValue(1 / ky, unit, 3)} per pixel;`
        + ' hatched: exclusive share'));
    for (const g of laid) this.grid.appendChild(this.drawOne(g, { width, height, ky, colour, unit }));
  }

  drawPicker(shown) {
    const runs = this.data.runs;
    const boxes = runs.map((r) => h('span', { class: 'es-jux-run small' },
      h('input', { type: 'checkbox', id: `es-jux-${r.trace_id}`, value: String(r.trace_id), checked: shown.includes(r.trace_id),
        disabled: !shown.includes(r.trace_id) && shown.length >= MAX_RUNS,
        onchange: (e) => {
          const id = Number(e.target.value);
          const next = e.target.checked ? [...shown, id] : shown.filter((x) => x !== id);
          this.chosen = next;
          this.draw();
        } }), h('label', { for: `es-jux-${r.trace_id}` }, ` ${this.state.runName(r.trace_id)}`)));
    clear(this.picker).append(h('legend', { class: 'small' }, `Runs shown (2 to ${MAX_RUNS})`), ...boxes);
  }

  // Member `id`'s own super graph from the ensemble's per-run values.
  memberGraph(id) {
    const k = this.data.runs.findIndex((r) => r.trace_id === id);
    const nodes = this.data.nodes.filter((n) => n.inclusive.runs[k] != null).map((n) => ({
      id: n.id, key: n.key, name: n.name, module: n.module, kind: n.kind, level: n.level,
      inclusive: n.inclusive.runs[k], exclusive: n.exclusive.runs[k] ?? 0,
    }));
    const edges = this.data.edges.filter((e) => e.runs[k] != null).map((e) => ({ source: e.source, target: e.target, weight: e.runs[k] }));
    const root = this.d3.sum(nodes.filter((n) => n.level === 0), (n) => n.inclusive);
    return { id, nodes, edges, root };
  }

  drawOne(g, { width, height, ky, colour, unit }) {
    const box = h('div', { class: 'es-jux-one', 'data-trace-id': g.id },
      h('h3', { class: 'sg-side-title' }, `${this.state.runName(g.id)} · root ${fmtValue(g.root, unit)}`));
    const root = svg('svg', { class: 'sg-svg es-jux-svg', width, height, viewBox: `0 0 ${width} ${height}`, role: 'img',
      'data-ky': ky, 'aria-label': `Super graph of ${this.state.runName(g.id)}` }, svg('defs', {}, hatchPattern()));
    const gLinks = svg('g', { class: 'sg-links' });
    const gNodes = svg('g', { class: 'sg-nodes' });
    root.append(gLinks, gNodes);
    drawLinks(this.d3, gLinks, g.graph.links, unit, g.root, this.tip);
    const sel = this.state.get().node;
    for (const n of g.graph.nodes) {
      const el = drawNode(n, { selected: !!sel && sel.key === n.key, unit, columns: g.columns, width, root: g.root,
        fill: colour(n.exclusive) });
      el.addEventListener('mousemove', (ev) => this.tip.show(ev, tipContent(n.name, [
        ['Inclusive', fmtValue(n.inclusive, unit)], ['Exclusive', fmtValue(n.exclusive, unit)]], 'Click to select it')));
      el.addEventListener('mouseleave', this.tip.hide);
      const pick = () => this.state.set({ node: { id: n.id, key: n.key, name: n.name, module: n.module } });
      el.addEventListener('click', pick);
      el.addEventListener('keydown', (ev) => { if (ev.key === 'Enter') pick(); });
      gNodes.appendChild(el);
    }
    box.appendChild(root);
    return box;
  }
}

// Pixels per unit of a laid-out graph.
function scaleOf(graph) {
  const n = graph.nodes.find((x) => x.value > 0);
  return n ? (n.y1 - n.y0) / n.value : Infinity;
}

// Gives every node and link the height value * ky (the common scale),
// keeping each node's top, and stacks the links at both ends again.
function rescale(graph, ky) {
  for (const n of graph.nodes) n.y1 = n.y0 + n.value * ky;
  for (const l of graph.links) l.width = l.value * ky;
  for (const n of graph.nodes) {
    let y = n.y0;
    for (const l of n.sourceLinks) { l.y0 = y + l.width / 2; y += l.width; }
    y = n.y0;
    for (const l of n.targetLinks) { l.y1 = y + l.width / 2; y += l.width; }
  }
}
