// lib/sankey.js: the Sankey drawing shared by the super graph views
// (views/supergraph.js, and the ensemble views views/ensemble_sankey.js and
// ensemble_juxtapose.js): the d3-sankey layout, the bars with their hatched
// exclusive share, mini histogram and label, the links and their tooltip.
import { SUPERGRAPH } from '../colors.js';
import { svg } from './svg.js';
import { fmtValue, fmtShare } from './format.js';
import { h } from '../dom.js';

export const NODE_W = 26;
const HIST_H = 16;         // mini histogram above each bar
const PAD = 34;            // vertical gap in a column: histogram + air
const LABEL_W = 170;       // room for the labels of the last column
const ROW = 18;            // height per node of the fullest column (sankeyHeight)

// The height of a Sankey whose fullest column holds the most nodes: ROW per
// node, between 420 and 2000 px.
export function sankeyHeight(nodes) {
  const perLevel = new Map();
  for (const n of nodes) perLevel.set(n.level, (perLevel.get(n.level) || 0) + 1);
  const most = Math.max(1, ...perLevel.values());
  return Math.max(420, Math.min(2000, most * ROW + 80));
}

// d3-sankey's layout: levels left to right, the biggest nodes first in a
// column. Returns the graph and the x of every column; the ensemble views
// pass a smaller vertical gap `pad`.
export function layoutGraph(d3, nodesIn, edgesIn, width, height, { pad = PAD } = {}) {
  const nodes = nodesIn.map((n) => ({ ...n, fixedValue: Math.max(n.inclusive || 0, 0) }));
  const ids = new Set(nodes.map((n) => n.id));
  const links = edgesIn.filter((e) => ids.has(e.source) && ids.has(e.target))
    .map((e) => ({ source: e.source, target: e.target, value: Math.max(e.weight || 0, 0) }));
  const levels = d3.max(nodes, (n) => n.level) || 0;
  const sankey = d3.sankey().nodeId((d) => d.id).nodeAlign(d3.sankeyLeft).nodeWidth(NODE_W)
    .nodePadding(pad).nodeSort((a, b) => b.inclusive - a.inclusive)
    .extent([[8, HIST_H + 10], [width - (levels > 0 ? LABEL_W : width / 2), height - 8]]);
  const graph = sankey({ nodes, links });
  const columns = [...new Set(graph.nodes.map((n) => n.x0))].sort((a, b) => a - b);
  return { graph, columns };
}

// The hatch of the exclusive share at the bottom of the bars.
export function hatchPattern() {
  return svg('pattern', { id: 'sg-hatch', width: 5, height: 5, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' },
    svg('rect', { width: 5, height: 5, fill: SUPERGRAPH.hatchFill }),
    svg('line', { x1: 0, y1: 0, x2: 0, y2: 5, stroke: SUPERGRAPH.hatchStroke, 'stroke-width': 1.6 }));
}

// ---- links -------------------------------------------------------------------------

export function drawLinks(d3, gLinks, links, unit, root, tip) {
  const linkPath = d3.sankeyLinkHorizontal();
  for (const l of links) {
    const p = svg('path', { d: linkPath(l), class: 'sg-link', 'stroke-width': Math.max(1, l.width) });
    p.__link = l;
    p.addEventListener('mousemove', (ev) => tip.show(ev, linkTip(l, unit, root)));
    p.addEventListener('mouseleave', tip.hide);
    gLinks.appendChild(p);
  }
}

export function highlightLinks(gLinks, id, on) {
  for (const p of gLinks.children) {
    const l = p.__link;
    if (l && (l.source.id === id || l.target.id === id)) p.classList.toggle('hot', on);
  }
}

// ---- nodes ---------------------------------------------------------------------------

// One node: its bar, the hatched exclusive share, the mini histogram, the label.
export function drawNode(n, { selected, unit, columns, width, root, fill }) {
  const hgt = Math.max(1, n.y1 - n.y0);
  const g = svg('g', { class: `sg-node sg-kind-${n.kind}${selected ? ' selected' : ''}`,
    transform: `translate(${n.x0},${n.y0})`, tabindex: 0, role: 'button',
    'aria-label': `${n.name}: inclusive ${fmtValue(n.inclusive, unit)}, exclusive ${fmtValue(n.exclusive, unit)}`,
    'data-id': n.id });
  g.appendChild(svg('rect', { class: 'sg-bar', width: NODE_W, height: hgt, fill }));
  const excH = n.inclusive > 0 ? Math.min(hgt, hgt * Math.max(0, n.exclusive) / n.inclusive) : 0;
  if (excH >= 0.5) {
    g.appendChild(svg('rect', { class: 'sg-exc', y: hgt - excH, width: NODE_W, height: excH, fill: 'url(#sg-hatch)' }));
  }
  miniHistogram(g, n);
  nodeLabel(g, n, hgt, columns, width, root, unit);
  return g;
}

function miniHistogram(g, n) {
  const counts = n.histogram && n.histogram.counts;
  if (!counts || !counts.length) return;
  const w = NODE_W + 14, bw = w / counts.length, max = Math.max(...counts) || 1;
  const hg = svg('g', { class: 'sg-mini', transform: `translate(${-7},${-HIST_H - 3})` });
  hg.appendChild(svg('line', { x1: 0, x2: w, y1: HIST_H, y2: HIST_H, class: 'sg-mini-axis' }));
  counts.forEach((c, i) => {
    if (!c) return;
    const bh = Math.max(1.5, (c / max) * HIST_H);
    hg.appendChild(svg('rect', { x: i * bw + 0.2, y: HIST_H - bh, width: Math.max(0.8, bw - 0.4), height: bh }));
  });
  g.appendChild(hg);
}

// The label goes right of the bar, truncated to the gap before the next
// column (the last column has the right margin).
export function nodeLabel(g, n, hgt, columns, width, root, unit) {
  const next = columns.find((x) => x > n.x0);
  const room = (next !== undefined ? next : width) - n.x1 - 12;
  const x = NODE_W + 6;
  const two = hgt >= 24;
  const t = svg('text', { class: 'sg-label', x, y: hgt / 2 + (two ? -2 : 4), 'text-anchor': 'start' });
  const maxChars = Math.max(4, Math.floor(room / 7.2));
  const name = n.name.length > maxChars ? `${n.name.slice(0, maxChars - 1)}…` : n.name;
  t.textContent = name + (n.kind === 'duplicate' ? ' ′' : '');
  g.appendChild(t);
  if (two) {
    const s = svg('text', { class: 'sg-sublabel', x, y: hgt / 2 + 12, 'text-anchor': 'start' });
    s.textContent = `${fmtShare(root > 0 ? n.inclusive / root : NaN)} · ${fmtValue(n.inclusive, unit)}`;
    g.appendChild(s);
  }
}

function linkTip(l, unit, root) {
  return h('div', {}, h('div', { class: 'tt-title' }, `${l.source.name} → ${l.target.name}`),
    h('table', {}, h('tbody', {},
      h('tr', {}, h('th', {}, 'Flow (inclusive)'), h('td', { class: 'num' }, fmtValue(l.value, unit))),
      h('tr', {}, h('th', {}, 'Share of the root'), h('td', { class: 'num' }, fmtShare(root > 0 ? l.value / root : NaN))))));
}


// ---- legends ----------------------------------------------------------------------
