// views/ensemble_histogram.js: the runtime distribution of the selected
// supernode (spec_callflow.md 3.3 item 5) in three modes, a switch of three
// buttons: call sites (one value per call site and run), runs (one per run)
// and MPI ranks (one per run and rank); the target's histogram overlaid in
// green on the same bins. Data:
// GET /ensembles/{id}/nodes/{key}/histogram?mode=callsite|run|rank&value=.
import { getD3 } from '../d3.js';
import { h } from '../dom.js';
import { svg } from '../lib/svg.js';
import { fmtValue } from '../lib/format.js';
import { tipContent } from '../lib/tooltip.js';
import { swatchLegend } from '../lib/legend.js';
import { mountPanel, fetchEnsemble } from '../lib/ensemble_panel.js';
import { ENSEMBLE } from '../colors.js';

const W = 620, H = 220, M = { l: 48, r: 24, t: 10, b: 34 };
const MODES = [['callsite', 'Call sites'], ['run', 'Runs'], ['rank', 'MPI ranks']];

export function mountHistogram(el, state) {
  let mode = 'run';
  const buttons = MODES.map(([m, label]) => h('button', { type: 'button', class: 'btn btn-small ed-mode', 'data-mode': m, 'aria-pressed': String(m === mode) }, label));
  return mountPanel(el, state, {
    name: 'histogram', title: 'runtime distribution',
    controls: (refresh) => {
      for (const b of buttons) {
        b.addEventListener('click', () => {
          mode = b.dataset.mode;
          for (const o of buttons) o.setAttribute('aria-pressed', String(o === b));
          refresh();
        });
      }
      return [h('span', { class: 'ed-switch', role: 'group', 'aria-label': 'Count' }, h('span', { class: 'small muted' }, 'Count:'), ...buttons)];
    },
    fetch: (s, signal) => fetchEnsemble(state, `/nodes/${s.node.key}/histogram`,
      { mode, value: s.metric === 'exclusive' ? 'exc' : 'inc' }, signal),
    draw: drawHistogram,
  });
}

const WHAT = { callsite: 'call sites', run: 'runs', rank: 'MPI ranks (run, rank)' };

function drawHistogram(body, doc, { s, tip, unitFor }) {
  const d3 = getD3();
  if (!doc.samples) { body.append(h('p', { class: 'ed-state' }, 'No values for this supernode in the selected runs.')); return; }
  const unit = unitFor(doc.value === 'exc' ? 'time' : 'time (inc)', doc.max).unit;
  const x = d3.scaleLinear().domain([doc.edges[0], doc.edges[doc.edges.length - 1]]).range([M.l, W - M.r]);
  const y = d3.scaleLinear().domain([0, d3.max(doc.counts) || 1]).range([H - M.b, M.t]).nice();
  const root = svg('svg', { class: 'ed-histogram-svg', viewBox: `0 0 ${W} ${H}`, width: '100%', role: 'group', 'aria-label': `Histogram of ${WHAT[doc.mode]}` });
  doc.counts.forEach((c, i) => {
    const x0 = x(doc.edges[i]), x1 = x(doc.edges[i + 1]);
    const t = doc.target_counts ? doc.target_counts[i] : null;
    const bar = svg('rect', { class: 'ed-bar', x: x0 + 0.5, width: Math.max(0.5, x1 - x0 - 1), y: y(c), height: y(0) - y(c), fill: ENSEMBLE.ensemble, 'data-count': c });
    bar.addEventListener('mousemove', (ev) => tip.show(ev, tipContent(`${fmtValue(doc.edges[i], unit)} – ${fmtValue(doc.edges[i + 1], unit)}`,
      [[WHAT[doc.mode], String(c)], ...(t != null ? [['target', String(t)]] : [])])));
    bar.addEventListener('mouseleave', () => tip.hide());
    root.appendChild(bar);
    if (t) root.appendChild(svg('rect', { class: 'ed-target-bar', x: x0 + (x1 - x0) * 0.25, width: Math.max(0.5, (x1 - x0) * 0.5), y: y(t), height: y(0) - y(t), fill: ENSEMBLE.target, 'pointer-events': 'none' }));
  });
  const ax = svg('g', { class: 'ed-axis', transform: `translate(0,${H - M.b})` });
  d3.select(ax).call(d3.axisBottom(x).ticks(6).tickFormat((v) => fmtValue(v, unit, 3)));
  const ay = svg('g', { class: 'ed-axis', transform: `translate(${M.l},0)` });
  d3.select(ay).call(d3.axisLeft(y).tickValues(y.ticks(5).filter(Number.isInteger)).tickFormat(d3.format('~d')));
  root.append(ax, ay, svg('text', { x: W / 2, y: H - 2, 'text-anchor': 'middle', class: 'ed-axis-label' },
    `${doc.value === 'exc' ? 'Exclusive' : 'Inclusive'} time`),
  svg('text', { x: 12, y: H / 2, transform: `rotate(-90 12 ${H / 2})`, 'text-anchor': 'middle', class: 'ed-axis-label' }, `Number of ${doc.mode === 'rank' ? 'ranks' : doc.mode === 'run' ? 'runs' : 'call sites'}`));
  body.append(root, h('div', { class: 'ed-legends' },
    swatchLegend([[ENSEMBLE.ensemble, `ensemble: ${doc.samples} ${WHAT[doc.mode]}`], ...(doc.target_counts ? [[ENSEMBLE.target, 'target run']] : [])])));
}
