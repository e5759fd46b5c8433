// views/ensemble_icicle.js: the supernode hierarchy of the ensemble
// (spec_callflow.md 3.3 item 2) as an icicle: the call sites of the
// selected supernode by depth, top to bottom; a bar's width is its max
// inclusive time across the runs (children inside the parent's width), its
// fill the histogram of the runs' times (white to red, colors.js),
// its border the max exclusive time; in target mode a call site the target
// lacks is an empty dashed bar and the target's bin a green tick. Click (or
// Enter) on a call site sets state.callsite. Data:
// GET /ensembles/{id}/nodes/{key}/hierarchy.
import { getD3 } from '../d3.js';
import { h } from '../dom.js';
import { svg } from '../lib/svg.js';
import { fmtValue } from '../lib/format.js';
import { tipContent } from '../lib/tooltip.js';
import { rampLegend, swatchLegend } from '../lib/legend.js';
import { mountPanel, fetchEnsemble } from '../lib/ensemble_panel.js';
import { countScale, borderScale, ENSEMBLE } from '../colors.js';

const ROW_H = 30, GAP = 2, WIDTH = 620;
let gradientIds = 0;

export function mountIcicle(el, state) {
  return mountPanel(el, state, {
    name: 'icicle', title: 'supernode hierarchy',
    fetch: (s, signal) => fetchEnsemble(state, `/nodes/${s.node.key}/hierarchy`, {}, signal),
    draw: drawIcicle,
  });
}

// x and width of every node: children share the parent's width in
// proportion to inc_max (scaled down when they add up to more than it).
export function icicleLayout(nodes, total, width) {
  const kids = new Map(nodes.map((n) => [n.id, []]));
  const tops = [];
  for (const n of nodes) (n.parent === null ? tops : kids.get(n.parent)).push(n);
  const box = new Map();
  const place = (list, x0, w, value) => {
    const sum = list.reduce((s, n) => s + (n.inc_max || 0), 0);
    const scale = w / Math.max(sum, value || 0, 1e-300);
    let x = x0;
    for (const n of [...list].sort((a, b) => (b.inc_max || 0) - (a.inc_max || 0))) {
      const nw = (n.inc_max || 0) * scale;
      box.set(n.id, { x, w: nw });
      place(kids.get(n.id), x, nw, n.inc_max);
      x += nw;
    }
  };
  place(tops, 0, width, total);
  return box;
}

function gradientDef(d3, defs, n, metric, fill) {
  const g = n.gradient && n.gradient[metric];
  if (!g || !g.counts.length) return null;
  const id = `ed-icicle-g${++gradientIds}`;
  const grad = svg('linearGradient', { id, x1: 0, x2: 1, y1: 0, y2: 0 });
  g.counts.forEach((c, i) => grad.appendChild(svg('stop', { offset: `${((i + 0.5) / g.counts.length) * 100}%`, 'stop-color': fill(c) })));
  defs.appendChild(grad);
  return `url(#${id})`;
}

function drawIcicle(body, doc, { state, s, tip, unitFor }) {
  const d3 = getD3();
  const metric = s.metric || 'inclusive';
  const unit = unitFor(doc.metric, doc.inc_max).unit;
  if (!doc.nodes.length) { body.append(h('p', { class: 'ed-state' }, 'This supernode has no call sites in the selected runs.')); return; }
  const depth = d3.max(doc.nodes, (n) => n.depth) + 1;
  const box = icicleLayout(doc.nodes, doc.inc_max, WIDTH);
  const counts = doc.nodes.flatMap((n) => n.gradient[metric].counts);
  const fill = countScale(d3, d3.extent(counts));
  const border = borderScale(d3, d3.max(doc.nodes, (n) => n.exc_max));
  const root = svg('svg', { class: 'ed-icicle-svg', viewBox: `0 0 ${WIDTH} ${depth * ROW_H}`, width: '100%', role: 'group', 'aria-label': `Call sites of ${doc.name}` });
  const defs = root.appendChild(svg('defs'));
  for (const n of doc.nodes) root.appendChild(bar(d3, defs, n, box.get(n.id), { metric, fill, border, s, state, tip, unit, doc }));
  body.append(root, h('div', { class: 'ed-legends' },
    rampLegend({ title: 'Fill: runs per bin', colour: (t) => fill(fill.domain()[0] + t * (fill.domain()[1] - fill.domain()[0])), lo: String(fill.domain()[0]), hi: String(fill.domain()[1]) }),
    rampLegend({ title: 'Border: max exclusive', colour: (t) => border(t * border.domain()[1]), lo: fmtValue(0, unit), hi: fmtValue(border.domain()[1], unit) }),
    swatchLegend([[ENSEMBLE.target, 'target bin'], [ENSEMBLE.absent, 'absent from the target']]),
    h('span', { class: 'small muted' }, `Width: max ${metric} time across runs (${doc.name} ${fmtValue(doc.inc_max, unit)})`)));
}

function bar(d3, defs, n, b, { metric, fill, border, s, state, tip, unit, doc }) {
  const y = n.depth * ROW_H;
  const absent = s.target != null && n.target && !n.target.present;
  const g = svg('g', { class: `ed-icicle-bar${absent ? ' ed-absent' : ''}${s.callsite === n.name ? ' ed-selected' : ''}`, tabindex: 0, role: 'button',
    'data-path': n.path, 'aria-label': `${n.path}: max inclusive ${fmtValue(n.inc_max, unit)}` });
  g.appendChild(svg('rect', { x: b.x + 0.5, y: y + 0.5, width: Math.max(1, b.w - 1), height: ROW_H - GAP,
    fill: absent ? ENSEMBLE.absent : gradientDef(d3, defs, n, metric, fill) || ENSEMBLE.empty, stroke: border(n.exc_max || 0),
    'stroke-width': 2, 'stroke-dasharray': absent ? '4 3' : null }));
  const g2 = n.gradient[metric];
  const bin = s.target != null && g2.run_bin ? g2.run_bin[String(s.target)] : null;
  if (bin != null) {
    const x = b.x + ((bin + 0.5) / g2.counts.length) * b.w;
    g.appendChild(svg('line', { x1: x, x2: x, y1: y + 2, y2: y + ROW_H - GAP - 2, stroke: ENSEMBLE.target, 'stroke-width': 3 }));
  }
  if (b.w > 40) {
    const chars = Math.floor((b.w - 8) / 6.5);
    const label = n.name.length > chars ? `${n.name.slice(0, Math.max(1, chars - 1))}…` : n.name;
    g.appendChild(svg('text', { x: b.x + 4, y: y + ROW_H / 2 + 3, class: 'ed-label' }, label));
  }
  const content = () => tipContent(n.name, [
    ['Max inclusive', fmtValue(n.inc_max, unit)], ['Max exclusive', fmtValue(n.exc_max, unit)],
    ['Min inclusive', fmtValue(n.inclusive.min, unit)], ['Runs with it', `${n.inclusive.present} of ${doc.runs.length}`],
    ...(s.target != null ? [['Target inclusive', n.target.inclusive == null ? 'absent' : fmtValue(n.target.inclusive, unit)]] : [])],
  'Click to reveal this call site in the Sankey', n.path);
  g.addEventListener('mousemove', (ev) => tip.show(ev, content()));
  g.addEventListener('mouseleave', () => tip.hide());
  g.addEventListener('focus', () => tip.show(g, content()));
  g.addEventListener('blur', () => tip.hide());
  const pick = () => state.set({ callsite: n.name });
  g.addEventListener('click', pick);
  g.addEventListener('keydown', (ev) => { if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); pick(); } });
  return g;
}
