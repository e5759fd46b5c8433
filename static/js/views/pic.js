// views/pic.js: the "Aggregation" tab (id 'aggregation'): pIC, the
// spatiotemporal aggregation of seed 002 (not to be confused with the Gantt's
// per-pixel level of detail, lib/gantt_chart.js): an overview of the whole trace
// in which the hierarchy (node > resource type > worker, or the Paje
// container tree) crossed with time is cut into the aggregates that keep the
// most information for a trade-off p (pIC, /aggregation; seed 002). Each
// aggregate is one block (rows: its leaves; columns: its time interval)
// filled with its state proportions stacked, in the colours of colors.js.
// A slider steps through the p breakpoints (/aggregation/levels), so every
// position is a distinct partition; the gain and loss of the current one are
// shown. Hover: the block's numbers (the dashboard tooltip, lib/tooltip.js);
// click: the Gantt of the block's workers over its interval (the Timeline over it for
// Paje and event traces). The colour key
// (lib/legend.js) says what the stacked shares are: the share, in %, of the
// block's time (summed over its rows) spent in each state.
// URL params: slices, level.
import { api } from '../api.js';
import { h, clear } from '../dom.js';
import { registerView } from '../trace.js';
import { functionColor, PIC_IDLE, PIC_IDLE_LIKE } from '../colors.js';
import { svg } from '../lib/svg.js';
import { fmtTime, fmtPercent, fmtBits, fmtSmall } from '../lib/format.js';
import { originNote } from '../lib/origin.js';
import { linearScale, evenTicks } from '../lib/axes.js';
import { analysisError } from '../lib/errors.js';
import { createTooltip, tipContent } from '../lib/tooltip.js';
import { swatchLegend } from '../lib/legend.js';

registerView({ id: 'aggregation', title: 'Aggregation', kinds: ['tasks', 'events'], render: renderPic });

const SLICE_CHOICES = [1, 5, 10, 20, 40, 80];
const IDLE_LIKE = /^(idle|sleeping|nothing)$/i;
const LABEL_COL_W = 64;     // one column of hierarchy labels per depth
const PLOT_MIN_H = 220;

// Idle-like states in greys so that the work stands out.
function valueColor(name) {
  if (IDLE_LIKE.test(name)) return /^idle$/i.test(name) ? PIC_IDLE : PIC_IDLE_LIKE;
  return functionColor(name); // typeColor, with MPI's functions fixed (event traces)
}

async function renderPic(el, trace, params, setParams, { signal, onDispose }) {
  el.classList.add('agg-view');
  const unit = trace.time_unit || '';
  let slices = SLICE_CHOICES.includes(Number(params.slices)) ? Number(params.slices) : 10;
  const sliceSelect = h('select', { id: 'agg-slices', 'aria-label': 'Time slices' },
    SLICE_CHOICES.map((s) => h('option', { value: String(s), selected: s === slices }, s === 1 ? 'none (hierarchy only)' : `${s} slices`)));
  const slider = h('input', { type: 'range', id: 'agg-p', min: '0', max: '0', step: '1', value: '0', 'aria-label': 'Level of aggregation (p)' });
  const readout = h('div', { class: 'agg-readout', 'aria-live': 'polite' });
  const legend = h('div', { class: 'agg-legend-host' });
  const chartBox = h('div', { class: 'agg-chart' });
  const tip = createTooltip(el, 'agg-tooltip');
  el.append(
    h('div', { class: 'panel agg-controls' },
      h('label', { class: 'agg-field' }, 'Time ', sliceSelect),
      h('div', { class: 'agg-slider' },
        h('span', { class: 'muted agg-end' }, 'detail'),
        slider,
        h('span', { class: 'muted agg-end' }, 'summary')),
      readout),
    legend,
    h('div', { class: 'panel agg-panel' }, chartBox),
    h('p', { class: 'muted agg-note' },
      'Each block is a group of resources during an interval, chosen to lose little information (Kullback-Leibler loss) ',
      'for a large simplification (entropy gain): p = p·gain − (1−p)·loss is maximised. Colours: share of each state. ',
      'Click a block to open its Gantt (task traces) or the Timeline over its interval.'));

  let levels = null;   // /aggregation/levels
  let seq = 0;
  const cache = new Map();

  sliceSelect.addEventListener('change', () => {
    slices = Number(sliceSelect.value);
    setParams({ slices: String(slices) });
    cache.clear();
    loadLevels(null);
  });
  let timer = null;
  onDispose(() => clearTimeout(timer));
  slider.addEventListener('input', () => {
    showLevelText();
    clearTimeout(timer);
    timer = setTimeout(() => { setParams({ slices: String(slices), level: slider.value }); draw(); }, 60);
  });

  function currentLevel() {
    return levels ? levels.levels[Number(slider.value)] : null;
  }

  function showLevelText(doc) {
    const lv = currentLevel();
    if (!lv) return;
    clear(readout).append(
      h('span', { class: 'agg-stat' }, h('b', { id: 'agg-count' }, String(lv.count)), ' aggregates'),
      h('span', { class: 'agg-stat' }, 'p = ', h('b', {}, fmtSmall(lv.p))),
      h('span', { class: 'agg-stat' }, 'gain ', h('b', {}, fmtBits(doc ? doc.gain : lv.gain))),
      h('span', { class: 'agg-stat' }, 'loss ', h('b', {}, fmtBits(doc ? doc.loss : lv.loss))),
      h('span', { class: 'agg-stat muted' }, `level ${Number(slider.value) + 1}/${levels.levels.length}`));
  }

  async function loadLevels(wanted) {
    const mine = ++seq;
    chartBox.classList.add('is-loading');
    try {
      levels = await api.get(`/traces/${trace.id}/aggregation/levels`, { slices }, { signal });
    } catch (e) {
      if (mine !== seq) return;
      chartBox.classList.remove('is-loading');
      clear(chartBox).appendChild(e.status === 409
        ? h('div', { class: 'empty-state' }, h('p', {}, 'This trace has no states to aggregate.'))
        : analysisError(e, 'compute the aggregation levels'));
      return;
    }
    if (mine !== seq) return;
    const n = levels.levels.length;
    slider.max = String(n - 1);
    // default: the coarsest level that still has more than a handful of blocks
    let pick = Number.isInteger(wanted) && wanted >= 0 && wanted < n ? wanted : -1;
    if (pick < 0) {
      const target = Math.min(40, Math.max(4, Math.round(levels.leaves.length * levels.slices / 8)));
      pick = 0;
      for (let i = 0; i < n; i++) if (levels.levels[i].count >= target) pick = i;
    }
    slider.value = String(pick);
    drawLegend();
    showLevelText();
    await draw();
  }

  // The colour key: which state each colour is, and what the stacked heights mean.
  function drawLegend() {
    clear(legend).append(swatchLegend(levels.values.map((v) => [valueColor(v), v]), {
      title: 'Fill: share of the block\'s time in each state (%, time summed over its rows; 100 % = the block)',
      className: 'agg-legend',
    }));
  }

  async function draw() {
    const lv = currentLevel();
    if (!lv) return;
    const mine = ++seq;
    let doc = cache.get(lv.p);
    if (!doc) {
      chartBox.classList.add('is-loading');
      try {
        doc = await api.get(`/traces/${trace.id}/aggregation`, { p: lv.p, slices }, { signal });
      } catch (e) {
        if (mine !== seq) return;
        chartBox.classList.remove('is-loading');
        clear(chartBox).appendChild(analysisError(e, 'aggregate the trace'));
        return;
      }
      cache.set(lv.p, doc);
    }
    if (mine !== seq) return;
    chartBox.classList.remove('is-loading');
    showLevelText(doc);
    drawChart(doc);
  }

  function drawChart(doc) {
    const nodes = doc.hierarchy;
    const depthOf = nodes.map(() => 0);
    for (let i = 1; i < nodes.length; i++) depthOf[i] = depthOf[nodes[i].parent] + 1;
    const maxDepth = Math.max(...depthOf);
    const nLeaves = doc.leaves.length;
    const width = Math.max(600, chartBox.clientWidth || 1200);
    const avail = Math.max(PLOT_MIN_H, window.innerHeight - chartBox.getBoundingClientRect().top - 60);
    const rowH = Math.max(1, Math.min(nLeaves <= 8 ? 48 : 26, avail / nLeaves));
    const plotH = rowH * nLeaves;
    const axisH = 38; // ticks, then the axis label with its origin note
    const labelW = LABEL_COL_W * Math.max(1, maxDepth) + 40;
    const plotW = width - labelW - 8;
    const x = linearScale([doc.start, doc.end], [labelW, labelW + plotW]);
    const root = svg('svg', { width, height: plotH + axisH + 4, class: 'agg-svg', role: 'img',
      'aria-label': `${doc.count} aggregates of ${nLeaves} rows over time` });

    drawLabels(root, nodes, depthOf, rowH, labelW);
    const blocks = svg('g', { class: 'agg-blocks' });
    root.appendChild(blocks);
    doc.aggregates.forEach((a, i) => blocks.appendChild(blockGroup(doc, a, i, x, rowH)));
    drawAxis(root, doc, x, plotH, plotW, labelW);
    clear(chartBox).appendChild(root);

    blocks.addEventListener('mousemove', (ev) => {
      const g = ev.target.closest('[data-agg]');
      if (!g) { tip.hide(); return; }
      tip.show(ev, blockTip(doc, doc.aggregates[Number(g.dataset.agg)]));
    });
    blocks.addEventListener('mouseleave', () => tip.hide());
    blocks.addEventListener('focusin', (ev) => {
      const g = ev.target.closest('[data-agg]');
      if (g) tip.show(g, blockTip(doc, doc.aggregates[Number(g.dataset.agg)]));
    });
    blocks.addEventListener('focusout', () => tip.hide());
    blocks.addEventListener('click', (ev) => {
      const g = ev.target.closest('[data-agg]');
      if (g) openGantt(doc, doc.aggregates[Number(g.dataset.agg)]);
    });
  }

  // One block: its proportions stacked along its longer side.
  function blockGroup(doc, a, i, x, rowH) {
    const x0 = x(a.start), x1 = x(a.end), y0 = a.leaves[0] * rowH, hgt = a.leaves[1] * rowH;
    const w = Math.max(0.5, x1 - x0);
    const g = svg('g', { 'data-agg': String(i), class: 'agg-block', tabindex: '0' });
    const vertical = hgt >= 10;
    let off = 0;
    a.proportions.forEach((share, k) => {
      if (!(share > 0)) return;
      const fill = valueColor(doc.values[k]);
      if (vertical) g.appendChild(svg('rect', { x: x0, y: y0 + off * hgt, width: w, height: share * hgt, fill }));
      else g.appendChild(svg('rect', { x: x0 + off * w, y: y0, width: share * w, height: hgt, fill }));
      off += share;
    });
    g.appendChild(svg('rect', { x: x0, y: y0, width: w, height: hgt, class: 'agg-outline' }));
    const fit = Math.floor((w - 8) / 6.2);
    if (fit >= 4 && hgt > 14) {
      const t = svg('text', { x: x0 + 4, y: y0 + 12, class: 'agg-block-label' });
      t.textContent = a.name.length > fit ? `${a.name.slice(0, fit - 1)}…` : a.name;
      g.appendChild(t);
    }
    return g;
  }

  function drawLabels(root, nodes, depthOf, rowH, labelW) {
    const g = svg('g', { class: 'agg-labels' });
    nodes.forEach((n, i) => {
      if (i === 0 && nodes.length > 1) return; // the root spans everything
      const d = depthOf[i] - (nodes.length > 1 ? 1 : 0);
      const y = n.leaves[0] * rowH, hgt = n.leaves[1] * rowH;
      const isLeaf = !nodes.some((m) => m.parent === i);
      const colX = d * LABEL_COL_W;
      const w = isLeaf ? labelW - colX - 4 : LABEL_COL_W - 2;
      g.appendChild(svg('rect', { x: colX, y: y + 0.5, width: w, height: Math.max(0.5, hgt - 1), class: `agg-band agg-band-${d % 2}` }));
      if (hgt >= 11) {
        const t = svg('text', { x: colX + 3, y: y + Math.min(hgt / 2, 12) + 4, class: 'agg-label' });
        t.textContent = n.name;
        g.appendChild(t);
      }
    });
    root.appendChild(g);
  }

  function drawAxis(root, doc, x, plotH, plotW, labelW) {
    const g = svg('g', { class: 'agg-axis' });
    g.appendChild(svg('line', { x1: labelW, x2: labelW + plotW, y1: plotH + 1, y2: plotH + 1 }));
    const n = Math.max(2, Math.min(8, Math.floor(plotW / 120)));
    evenTicks(x, n).forEach((t, i) => {
      const tx = x(t);
      g.appendChild(svg('line', { x1: tx, x2: tx, y1: plotH + 1, y2: plotH + 5 }));
      const label = svg('text', { x: tx, y: plotH + 17, 'text-anchor': i === 0 ? 'start' : i === n ? 'end' : 'middle' });
      label.textContent = fmtTime(t, unit);
      g.appendChild(label);
    });
    // the axis label: where time 0 lies in the file (every view says it the same way)
    const note = originNote({ kind: trace.kind, time_origin: doc.time_origin, time_unit: unit, has_tasks: (trace.summary || {}).tasks > 0 });
    const axisLabel = svg('text', { x: labelW, y: plotH + 33, class: 'agg-axis-label origin-note' });
    axisLabel.textContent = `time (${unit}): ${note}`;
    g.appendChild(axisLabel);
    root.appendChild(g);
  }

  // The tooltip of a block: its rows and interval, its five largest state
  // shares (% of its time), its gain and loss.
  function blockTip(doc, a) {
    const top = a.proportions.map((s, k) => [s, doc.values[k]]).filter(([s]) => s > 0)
      .sort((p, q) => q[0] - p[0]).slice(0, 5);
    const rows = top.map(([s, v]) => [h('span', { class: 'agg-tt-key' },
      h('span', { class: 'agg-swatch', style: `background:${valueColor(v)}` }), v), fmtPercent(s)]);
    rows.push(['Information gain', fmtBits(a.gain)], ['Information loss', fmtBits(a.loss)]);
    const sub = `${a.leaves[1]} row${a.leaves[1] > 1 ? 's' : ''} · ${fmtTime(a.start, unit)} – ${fmtTime(a.end, unit)} · share of time`;
    return tipContent(a.name, rows, doc.hierarchy_kind === 'workers' ? 'Click: the Gantt of these workers' : 'Click: the Timeline over this interval', sub);
  }

  function openGantt(doc, a) {
    if (doc.hierarchy_kind !== 'workers') { // Paje and event traces: their Timeline over the block's interval
      const t = new URLSearchParams({ start: String(+a.start.toPrecision(10)), end: String(+a.end.toPrecision(10)) });
      window.location.hash = `#/traces/${trace.id}/timeline?${t.toString()}`;
      return;
    }
    const leaves = doc.leaves.slice(a.leaves[0], a.leaves[0] + a.leaves[1]).map((i) => doc.hierarchy[i]);
    const nodesSet = [...new Set(leaves.map((n) => n.node))].sort((p, q) => p - q);
    const res = [...new Set(leaves.map((n) => n.resource_type))].sort();
    const allRes = [...new Set(doc.leaves.map((i) => doc.hierarchy[i].resource_type))];
    const q = new URLSearchParams({ start: String(+a.start.toPrecision(10)), end: String(+a.end.toPrecision(10)) });
    q.set('nodes', nodesSet.join(','));
    if (res.length < allRes.length) q.set('resources', res.join(','));
    window.location.hash = `#/traces/${trace.id}/gantt?${q.toString()}`;
  }

  const wanted = params.level !== undefined ? Number.parseInt(params.level, 10) : null;
  await loadLevels(wanted);
}
