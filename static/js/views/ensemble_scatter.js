// views/ensemble_scatter.js: the metric correlation view (spec_callflow.md
// 3.3 item 4): a dot per call site per run, inclusive (x) against exclusive
// (y) time; the target run's dots green; hovering a dot highlights that call
// site's dots across the runs. The endpoint covers the whole ensemble, so a
// selected supernode highlights its call sites (their contexts come from
// its /hierarchy) rather than restricting to them. Data:
// GET /ensembles/{id}/scatter (+ /nodes/{key}/hierarchy when a node is set).
import { getD3 } from '../d3.js';
import { h } from '../dom.js';
import { svg } from '../lib/svg.js';
import { fmtValue } from '../lib/format.js';
import { tipContent } from '../lib/tooltip.js';
import { swatchLegend } from '../lib/legend.js';
import { mountPanel, fetchEnsemble } from '../lib/ensemble_panel.js';
import { ENSEMBLE } from '../colors.js';

const W = 620, H = 300, M = { l: 58, r: 24, t: 10, b: 36 };

export function mountScatter(el, state) {
  return mountPanel(el, state, {
    name: 'scatter', title: 'metric correlation', needsNode: false,
    fetch: async (s, signal) => {
      const out = await fetchEnsemble(state, '/scatter', {}, signal);
      if (s.node) {
        const hier = await fetchEnsemble(state, `/nodes/${s.node.key}/hierarchy`, {}, signal);
        out.doc = { ...out.doc, selected: new Set(hier.doc.nodes.flatMap((n) => n.contexts)) };
      }
      return out;
    },
    draw: drawScatter,
  });
}

function drawScatter(body, doc, { s, tip, unitFor }) {
  const d3 = getD3();
  if (!doc.points.length) { body.append(h('p', { class: 'ed-state' }, 'No call site has both metrics in the selected runs.')); return; }
  const pathOf = new Map(doc.nodes.map((n) => [n.id, n]));
  const unit = unitFor(doc.x.metric, d3.max(doc.points, (p) => p.x)).unit;
  const x = d3.scaleLinear().domain(d3.extent(doc.points, (p) => p.x)).range([M.l, W - M.r]).nice();
  const y = d3.scaleLinear().domain(d3.extent(doc.points, (p) => p.y)).range([H - M.b, M.t]).nice();
  const root = svg('svg', { class: 'ed-scatter-svg', viewBox: `0 0 ${W} ${H}`, width: '100%', role: 'group', 'aria-label': 'Call sites per run: inclusive against exclusive time' });
  const inNode = (p) => doc.selected && doc.selected.has(pathOf.get(p.node).path);
  const colour = (p) => (p.trace_id === s.target ? ENSEMBLE.target : inNode(p) ? ENSEMBLE.highlight : ENSEMBLE.ensemble);
  const dots = svg('g', { class: 'ed-dots' });
  const order = [...doc.points].sort((a, b) => (colour(a) === ENSEMBLE.ensemble) - (colour(b) === ENSEMBLE.ensemble)).reverse();
  for (const p of order) {
    const c = svg('circle', { class: 'ed-dot', cx: x(p.x), cy: y(p.y), r: inNode(p) || p.trace_id === s.target ? 4 : 3, fill: colour(p), 'fill-opacity': doc.selected && !inNode(p) ? 0.35 : 0.8, 'data-node': p.node });
    c.addEventListener('mousemove', (ev) => { highlight(dots, p.node, true); tip.show(ev, pointTip(doc, pathOf.get(p.node), p, unit)); });
    c.addEventListener('mouseleave', () => { highlight(dots, p.node, false); tip.hide(); });
    dots.appendChild(c);
  }
  const ax = svg('g', { class: 'ed-axis', transform: `translate(0,${H - M.b})` });
  d3.select(ax).call(d3.axisBottom(x).ticks(6).tickFormat((v) => fmtValue(v, unit, 3)));
  const ay = svg('g', { class: 'ed-axis', transform: `translate(${M.l},0)` });
  d3.select(ay).call(d3.axisLeft(y).ticks(5).tickFormat((v) => fmtValue(v, unit, 3)));
  root.append(dots, ax, ay, svg('text', { x: W / 2, y: H - 2, 'text-anchor': 'middle', class: 'ed-axis-label' }, doc.x.metric),
    svg('text', { x: 12, y: H / 2, transform: `rotate(-90 12 ${H / 2})`, 'text-anchor': 'middle', class: 'ed-axis-label' }, doc.y.metric));
  body.append(root, h('div', { class: 'ed-legends' }, swatchLegend([[ENSEMBLE.ensemble, 'call site in a run'],
    ...(doc.selected ? [[ENSEMBLE.highlight, `call sites of ${s.node.name}`]] : []), ...(s.target != null ? [[ENSEMBLE.target, 'target run']] : [])]),
  h('span', { class: 'small muted' }, `${doc.points.length} dots; Pearson r = ${doc.overall.r == null ? '—' : doc.overall.r.toFixed(3)}. Hover a dot to see its call site in every run.`)));
}

function highlight(dots, node, on) {
  for (const c of dots.querySelectorAll(`circle[data-node="${node}"]`)) c.classList.toggle('ed-hover', on);
}

function pointTip(doc, n, p, unit) {
  const run = doc.runs.find((r) => r.trace_id === p.trace_id);
  return tipContent(n.name, [[doc.x.metric, fmtValue(p.x, unit)], [doc.y.metric, fmtValue(p.y, unit)],
    ['Run', run ? run.name : String(p.trace_id)], ['r across runs', n.fit.r == null ? '—' : n.fit.r.toFixed(3)]], null, n.path);
}
