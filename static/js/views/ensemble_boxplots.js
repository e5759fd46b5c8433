// views/ensemble_boxplots.js: the call-site correspondence view
// (spec_callflow.md 3.3 item 3, 2.8, 2.11): one horizontal boxplot per call
// site of the selected supernode, by descending max inclusive time, over
// every (run, rank) value: quartiles, whiskers to the last value inside
// 1.5 IQR, outliers as dots (tooltip: their ranks and runs), min / median /
// max labels; the target's boxplot overlaid in green. Data:
// GET /ensembles/{id}/nodes/{key}/boxplots?value=inc|exc.
import { getD3 } from '../d3.js';
import { h } from '../dom.js';
import { svg } from '../lib/svg.js';
import { fmtValue } from '../lib/format.js';
import { tipContent } from '../lib/tooltip.js';
import { swatchLegend } from '../lib/legend.js';
import { mountPanel, fetchEnsemble } from '../lib/ensemble_panel.js';
import { ENSEMBLE } from '../colors.js';

const W = 620, LABEL = 150, ROW = 46, AXIS = 30;

export function mountBoxplots(el, state) {
  return mountPanel(el, state, {
    name: 'boxplots', title: 'call-site boxplots',
    fetch: (s, signal) => fetchEnsemble(state, `/nodes/${s.node.key}/boxplots`,
      { value: s.metric === 'exclusive' ? 'exc' : 'inc' }, signal),
    draw: drawBoxplots,
  });
}

// Whisker ends: the limits 1.5 IQR beyond the quartiles, clipped to the data.
function whiskers(b, iqr) {
  const span = (b.q[3] - b.q[1]) * iqr;
  return [Math.max(b.q[0], b.q[1] - span), Math.min(b.q[4], b.q[3] + span)];
}

function boxMarks(x, b, y, hgt, colour, cls, iqr) {
  const [w0, w1] = whiskers(b, iqr), mid = y + hgt / 2;
  return svg('g', { class: cls },
    svg('line', { x1: x(w0), x2: x(b.q[1]), y1: mid, y2: mid, stroke: colour }),
    svg('line', { x1: x(b.q[3]), x2: x(w1), y1: mid, y2: mid, stroke: colour }),
    svg('line', { x1: x(w0), x2: x(w0), y1: y + 2, y2: y + hgt - 2, stroke: colour }),
    svg('line', { x1: x(w1), x2: x(w1), y1: y + 2, y2: y + hgt - 2, stroke: colour }),
    svg('rect', { x: x(b.q[1]), y, width: Math.max(1, x(b.q[3]) - x(b.q[1])), height: hgt, fill: colour, 'fill-opacity': 0.35, stroke: colour }),
    svg('line', { x1: x(b.q[2]), x2: x(b.q[2]), y1: y, y2: y + hgt, stroke: colour, 'stroke-width': 2 }));
}

function drawBoxplots(body, doc, { s, tip, unitFor }) {
  const d3 = getD3();
  const sites = doc.callsites.filter((c) => c.ensemble);
  if (!sites.length) { body.append(h('p', { class: 'ed-state' }, 'No call site of this supernode has values in the selected runs.')); return; }
  const hi = d3.max(sites, (c) => Math.max(c.ensemble.max, c.target ? c.target.max : -Infinity));
  const lo = d3.min(sites, (c) => Math.min(c.ensemble.min, c.target ? c.target.min : Infinity));
  const unit = unitFor(s.metric === 'exclusive' ? 'time' : 'time (inc)', hi).unit;
  const x = d3.scaleLinear().domain(lo < hi ? [lo, hi] : [lo - 1, hi + 1]).range([LABEL, W - 28]).nice();
  const root = svg('svg', { class: 'ed-boxplots-svg', viewBox: `0 0 ${W} ${sites.length * ROW + AXIS}`, width: '100%', role: 'group', 'aria-label': 'Boxplots per call site' });
  sites.forEach((c, i) => root.appendChild(siteRow(x, c, i * ROW, { tip, unit, iqr: doc.iqr })));
  const axis = svg('g', { transform: `translate(0,${sites.length * ROW})`, class: 'ed-axis' });
  d3.select(axis).call(d3.axisBottom(x).ticks(6).tickFormat((v) => fmtValue(v, unit, 3)));
  root.appendChild(axis);
  body.append(root, h('div', { class: 'ed-legends' },
    swatchLegend([[ENSEMBLE.ensemble, 'ensemble (every run and rank)'], [ENSEMBLE.target, 'target run']]),
    h('span', { class: 'small muted' }, `${s.metric === 'exclusive' ? 'Exclusive' : 'Inclusive'} time per (run, rank); box: quartiles, whiskers: ${doc.iqr} IQR, dots: outliers`)));
}

function siteRow(x, c, y, { tip, unit, iqr }) {
  const e = c.ensemble;
  const g = svg('g', { class: 'ed-box', 'data-name': c.name, tabindex: 0, 'aria-label': `${c.name}: median ${fmtValue(e.median, unit)}` });
  const name = c.name.length > 22 ? `${c.name.slice(0, 21)}…` : c.name;
  g.append(svg('text', { x: 4, y: y + 18, class: 'ed-label' }, name),
    boxMarks(x, e, y + 6, 16, ENSEMBLE.ensemble, 'ed-box-ensemble', iqr));
  if (c.target) g.appendChild(boxMarks(x, c.target, y + 10, 8, ENSEMBLE.target, 'ed-box-target', iqr));
  e.outliers.values.forEach((v, k) => {
    const dot = svg('circle', { cx: x(v), cy: y + 14, r: 3.5, class: 'ed-outlier', fill: ENSEMBLE.outlier });
    dot.addEventListener('mousemove', (ev) => tip.show(ev, tipContent(`${c.name}: outlier`, [
      ['Value', fmtValue(v, unit)], ['Rank', String(e.outliers.ranks[k])], ['Run (trace)', String(e.outliers.runs[k])]])));
    dot.addEventListener('mouseleave', () => tip.hide());
    g.appendChild(dot);
  });
  for (const [v, anchor] of [[e.min, 'start'], [e.median, 'middle'], [e.max, 'end']]) {
    g.appendChild(svg('text', { x: x(v), y: y + 36, 'text-anchor': anchor, class: 'ed-small' }, fmtValue(v, unit, 3)));
  }
  const content = () => tipContent(c.name, [['Min', fmtValue(e.min, unit)], ['Q1', fmtValue(e.q[1], unit)],
    ['Median', fmtValue(e.median, unit)], ['Q3', fmtValue(e.q[3], unit)], ['Max', fmtValue(e.max, unit)],
    ['Mean', fmtValue(e.mean, unit)], ['Imbalance', e.imb.toFixed(3)], ['Values', String(e.count)],
    ['Outliers', String(e.outliers.values.length)],
    ...(c.target ? [['Target median', fmtValue(c.target.median, unit)]] : [])]);
  g.addEventListener('focus', () => tip.show(g, content()));
  g.addEventListener('blur', () => tip.hide());
  g.firstChild.addEventListener('mousemove', (ev) => tip.show(ev, content()));
  g.firstChild.addEventListener('mouseleave', () => tip.hide());
  return g;
}
