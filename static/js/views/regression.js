// views/regression.js: the "Regression" tab of a task trace with GFlop
// (Miletto's thesis, ch. 4; /anomalies and /models in docs/api.md): per
// (task type, resource type) group a scatter of duration against GFlop with
// the chosen model's fit (green) and 95 % prediction interval (red band),
// the anomalies (above the upper limit) in orange; the comparison table of
// R², MAE, RMSE and anomaly counts of every model (best in bold); a link to
// the Gantt with expected tasks transparent and anomalies opaque. Axes say
// their units (GFlop per task, the trace's time unit), a legend (ari-legend)
// names every mark, and hovers use the dashboard tooltip (lib/tooltip.js).
// URL parameters: model (lr, wlr, nlr, lr_log, flexmix), log (1/0).
import { api } from '../api.js';
import { h, clear } from '../dom.js';
import { registerView } from '../trace.js';
import { svg } from '../lib/svg.js';
import { fmtTime, fmtPrecision, fmtTick, formatNumber } from '../lib/format.js';
import { linearScale, logScale, stepTicks, decadeTicks } from '../lib/axes.js';
import { readFilters, filterQuery, filterBar, traceResources } from '../lib/filters.js';
import { analysisError } from '../lib/errors.js';
import { createTooltip, tipContent } from '../lib/tooltip.js';

registerView({
  id: 'regression', title: 'Regression', kinds: ['tasks'],
  // only where tasks carry a GFlop count to regress on
  applies: (trace) => trace.kind === 'tasks' && !!(trace.summary && trace.summary.gflop_tasks > 0),
  render: renderRegression,
});

const MODELS = [
  ['lr_log', 'Log-log linear (default)'], ['lr', 'Linear'], ['wlr', 'Weighted linear (1/GFlop)'],
  ['nlr', 'Nonlinear (GFlop^2/3)'], ['flexmix', 'Mixture of two log-log models (BIC)'],
];
const MODEL_LABEL = { lr: 'LR', wlr: 'WLR', nlr: 'NLR', lr_log: 'LR log', flexmix: 'Mixture' };
// Why a group cannot be fitted (the API's `reason` codes).
const NOT_FITTABLE = { single_gflop: 'every task has the same GFlop' };
const MAX_POINTS = 4000; // drawn per group (all anomalies, a sample of the others)
const W = 430, H = 290, M = { l: 58, r: 12, t: 10, b: 40 };

async function renderRegression(el, trace, params, setParams, { signal }) {
  el.classList.add('regression-view');
  const unit = trace.time_unit || '';
  const state = {
    model: MODELS.some(([m]) => m === params.model) ? params.model : 'lr_log',
    log: params.log === undefined ? null : params.log === '1',
    filters: readFilters(params),
  };
  const res = traceResources(trace);
  const types = Object.keys((trace.summary && trace.summary.task_types) || {}).sort();
  const select = h('select', { class: 'input input-small', id: 'reg-model', 'aria-label': 'Regression model' },
    MODELS.map(([v, t]) => h('option', { value: v, selected: v === state.model }, t)));
  const logBox = h('input', { type: 'checkbox', id: 'reg-log' });
  const ganttLink = h('a', { class: 'btn btn-small', id: 'reg-gantt' }, 'Anomalies in the Gantt');
  const tableHost = h('div', { class: 'reg-table-host', 'aria-live': 'polite' });
  const grid = h('div', { class: 'reg-grid' });
  const tooltip = createTooltip(el, 'reg-tooltip');
  el.append(
    h('div', { class: 'reg-toolbar' },
      h('label', { for: 'reg-model', class: 'small muted' }, 'Model'), select,
      h('label', { class: 'check', for: 'reg-log' }, logBox, 'log axes'), ganttLink),
    filterBar({ types, resources: res.resources, nodes: res.nodes, unit, filters: state.filters,
      onChange: (f) => { state.filters = f; writeUrl(); load(); } }),
    tableHost, marksLegend(unit), grid);
  const writeUrl = () => setParams({ ...filterQuery(state.filters), model: state.model,
    log: state.log === null ? '' : state.log ? 1 : 0 });
  const logAxes = () => (state.log === null ? state.model === 'lr_log' || state.model === 'flexmix' : state.log);
  select.addEventListener('change', () => { state.model = select.value; state.log = null; writeUrl(); load(); });
  logBox.addEventListener('change', () => { state.log = logBox.checked; writeUrl(); draw(); });

  let anomalies = null;
  let seq = 0;
  function draw() {
    logBox.checked = logAxes();
    ganttLink.href = `#/traces/${trace.id}/gantt?anomalies=${state.model}`;
    clear(grid);
    if (!anomalies) return;
    if (!anomalies.groups.length) {
      grid.appendChild(h('div', { class: 'alert alert-info' }, h('strong', {}, 'Nothing to model'),
        h('p', {}, 'No task of this trace (with these filters) has a positive GFlop value: the models need the ',
          'theoretical cost of each task (StarPU\'s GFlop field).')));
      return;
    }
    const byGroup = new Map();
    for (const t of anomalies.tasks) {
      const k = `${t.type}\u0000${t.resource_type}`;
      if (!byGroup.has(k)) byGroup.set(k, []);
      byGroup.get(k).push(t);
    }
    const seen = new Map();
    for (const g of anomalies.groups) {
      const k = `${g.type}\u0000${g.resource_type}`;
      if (!seen.has(k)) seen.set(k, []);
      seen.get(k).push(g);
    }
    for (const [k, fits] of seen) {
      grid.appendChild(scatter(fits, byGroup.get(k) || [], logAxes(), unit, tooltip));
    }
  }
  async function load() {
    const mine = ++seq;
    grid.classList.add('is-loading');
    const q = filterQuery(state.filters);
    const [a, m] = await Promise.all([
      api.get(`/traces/${trace.id}/anomalies`, { ...q, model: state.model, points: 'all', limit: 2000000 }, { signal })
        .then((x) => ({ ok: x }), (e) => ({ err: e })),
      api.get(`/traces/${trace.id}/models`, q, { signal }).then((x) => ({ ok: x }), (e) => ({ err: e })),
    ]);
    if (mine !== seq) return;
    grid.classList.remove('is-loading');
    clear(tableHost);
    if (a.err) { anomalies = null; clear(grid).appendChild(analysisError(a.err, 'fit the models')); return; }
    anomalies = a.ok;
    if (m.ok && m.ok.groups.length) tableHost.appendChild(modelTable(m.ok, state.model, unit));
    else if (m.err) tableHost.appendChild(analysisError(m.err, 'compare the models'));
    draw();
  }
  await load();
}

// ---- the comparison table ---------------------------------------------------

function modelTable(m, current, unit) {
  const single = ['lr', 'wlr', 'nlr', 'lr_log'];
  const head = h('tr', {}, h('th', { scope: 'col' }, 'Group'), h('th', { scope: 'col', class: 'num' }, 'Tasks'),
    single.map((s) => h('th', { scope: 'col', class: `num ${s === current ? 'is-current' : ''}`, colspan: 4 }, MODEL_LABEL[s])),
    h('th', { scope: 'col', class: `num ${current === 'flexmix' ? 'is-current' : ''}`, colspan: 2 }, 'Mixture'));
  const sub = h('tr', { class: 'sub' }, h('th', {}), h('th', {}),
    single.map(() => ['R²', `MAE (${unitText(unit)})`, `RMSE (${unitText(unit)})`, 'anom.'].map((t) => h('th', { class: 'num' }, t))),
    h('th', { class: 'num' }, 'k (BIC)'), h('th', { class: 'num' }, 'anom.'));
  const rows = m.groups.map((g) => {
    const best = g.best || {};
    const cells = single.map((s) => {
      const f = g.models[s] || {};
      if (f.fittable === false) {
        return [h('td', { class: 'num muted', colspan: 3, title: NOT_FITTABLE[f.reason] || f.reason }, 'not fittable'),
          h('td', { class: 'num anom' }, formatNumber(f.anomalies ?? 0))];
      }
      return [
        h('td', { class: `num ${best.r2 === s ? 'best' : ''}` }, fmtPrecision(f.r2_duration)),
        h('td', { class: `num ${best.mae === s ? 'best' : ''}` }, fmtPrecision(f.mae)),
        h('td', { class: `num ${best.rmse === s ? 'best' : ''}` }, fmtPrecision(f.rmse)),
        h('td', { class: 'num anom' }, formatNumber(f.anomalies ?? 0)),
      ];
    });
    const mix = g.models.flexmix || {};
    return h('tr', { dataset: { group: `${g.type}/${g.resource_type}` } },
      h('th', { scope: 'row' }, g.type, ' ', h('span', { class: 'muted small' }, g.resource_type)), h('td', { class: 'num' }, formatNumber(g.tasks)),
      cells, h('td', { class: 'num' }, mix.mixture ? String(mix.mixture.k) : '—'),
      h('td', { class: 'num anom' }, formatNumber(mix.anomalies ?? 0)));
  });
  const totals = h('tr', { class: 'totals' }, h('th', { scope: 'row' }, 'All groups'),
    h('td', { class: 'num' }, formatNumber(m.modelled)),
    single.map((s) => [h('td', { colspan: 3 }), h('td', { class: 'num anom' }, formatNumber(m.anomalies[s] ?? 0))]),
    h('td'), h('td', { class: 'num anom' }, formatNumber(m.anomalies.flexmix ?? 0)));
  return h('section', { class: 'panel reg-models', 'aria-labelledby': 'reg-models-title' },
    h('h2', { id: 'reg-models-title' }, 'Model comparison'),
    h('p', { class: 'help' }, 'Duration against theoretical GFlop per group. R², MAE and RMSE of every model on durations ',
      `(${unit}; the log-log model back-transformed), so that they compare; the best of the four single models is underlined. `,
      'A group whose tasks all have the same GFlop cannot be fitted and flags nothing. A task is an anomaly when its ',
      'duration is above the upper 95 % prediction limit of its group.'),
    h('div', { class: 'table-wrap flat' }, h('table', { class: 'table compact reg-table', 'aria-label': 'Model comparison' },
      h('thead', {}, head, sub), h('tbody', {}, rows, totals))));
}

// ---- the legend of the scatters ---------------------------------------------

const unitText = (unit) => unit || 'time unit not set';

// One key: a small SVG sample of the mark, drawn with the plot's own classes.
function markKey(sample, label) {
  return h('span', { class: 'ari-legend-key' },
    svg('svg', { width: 26, height: 14, class: 'reg-key', 'aria-hidden': 'true' }, svg('g', { class: 'reg-points' }, sample)), label);
}

// What every mark of the scatters is, and the units of their axes.
function marksLegend(unit) {
  return h('div', { class: 'ari-legend reg-legend', role: 'group', 'aria-label': 'Legend of the scatter plots' },
    h('span', { class: 'ari-legend-title' }, `x: GFlop per task · y: duration (${unitText(unit)}) ·`),
    markKey(svg('circle', { cx: 13, cy: 7, r: 2.6, class: 'pt' }), 'task (expected)'),
    markKey(svg('circle', { cx: 13, cy: 7, r: 3.4, class: 'pt anomaly' }), 'anomaly: above the upper 95 % limit'),
    markKey(svg('line', { x1: 1, x2: 25, y1: 7, y2: 7, class: 'reg-fit' }), 'model fit'),
    markKey([svg('rect', { x: 1, y: 2, width: 24, height: 10, class: 'reg-band' }),
      svg('line', { x1: 1, x2: 25, y1: 2, y2: 2, class: 'reg-limit' }),
      svg('line', { x1: 1, x2: 25, y1: 12, y2: 12, class: 'reg-limit' })], '95 % prediction interval'),
    markKey(svg('line', { x1: 1, x2: 25, y1: 7, y2: 7, class: 'reg-fit', 'stroke-dasharray': '5 3' }),
      'dashed: second mixture component'));
}

// ---- one group's scatter ------------------------------------------------------

// A scale over [lo, hi] -> [a, b], logarithmic or linear, and its ticks.
function scaleOf(lo, hi, a, b, log) {
  const scale = log ? logScale([lo, hi], [a, b]) : linearScale([lo, hi], [a, b]);
  return { scale, ticks: log ? decadeTicks(scale) : stepTicks(scale, 6, 1e-12) };
}

function extentOf(values, log) {
  let lo = Infinity, hi = -Infinity;
  for (const v of values) {
    if (typeof v !== 'number' || !Number.isFinite(v) || (log && v <= 0)) continue;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (!Number.isFinite(lo)) return [log ? 1e-3 : 0, 1];
  if (lo === hi) return log ? [lo / 2, hi * 2] : [lo - 1, hi + 1];
  if (log) return [lo / 1.2, hi * 1.2];
  const pad = (hi - lo) * 0.04;
  return [lo - pad, hi + pad];
}

// Every anomaly, and an even sample of the rest.
function sample(tasks) {
  if (tasks.length <= MAX_POINTS) return tasks;
  const anomalous = tasks.filter((t) => t.anomaly);
  const rest = tasks.filter((t) => !t.anomaly);
  const step = rest.length / Math.max(1, MAX_POINTS - anomalous.length);
  const kept = [];
  for (let i = 0; i < rest.length; i += Math.max(1, step)) kept.push(rest[Math.floor(i)]);
  return kept.concat(anomalous);
}

function pathOf(xs, ys, x, y) {
  let d = '';
  for (let i = 0; i < xs.length; i++) {
    if (!Number.isFinite(ys[i]) || !Number.isFinite(x(xs[i])) || !Number.isFinite(y(ys[i]))) continue;
    d += `${d ? 'L' : 'M'}${x(xs[i]).toFixed(1)},${y(ys[i]).toFixed(1)}`;
  }
  return d;
}

function scatter(allFits, tasks, log, unit, tooltip) {
  const first = allFits[0];
  const fits = allFits.filter((f) => f.curve); // groups that cannot be fitted have no curve
  const anomalies = tasks.filter((t) => t.anomaly).length;
  const gx = extentOf(tasks.map((t) => t.gflop), log);
  const yvals = tasks.map((t) => t.duration);
  for (const f of fits) yvals.push(...f.curve.fit, ...f.curve.upr, ...(log ? [] : f.curve.lwr));
  const gy = extentOf(yvals, log);
  const { scale: x, ticks: xTicks } = scaleOf(gx[0], gx[1], M.l, W - M.r, log);
  const { scale: y, ticks: yTicks } = scaleOf(gy[0], gy[1], H - M.b, M.t, log);
  const root = svg('svg', { class: 'reg-plot', viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: 'img',
    'aria-label': `Duration against GFlop for ${first.type} on ${first.resource_type}` });
  const clipId = `clip-${first.type}-${first.resource_type}`.replace(/[^A-Za-z0-9_-]/g, '_');
  const defs = svg('defs');
  const cp = svg('clipPath', { id: clipId });
  cp.appendChild(svg('rect', { x: M.l, y: M.t, width: W - M.l - M.r, height: H - M.t - M.b }));
  defs.appendChild(cp);
  root.appendChild(defs);
  // axes and grid
  const axes = svg('g', { class: 'axes' });
  for (const v of xTicks) {
    axes.appendChild(svg('line', { x1: x(v), x2: x(v), y1: M.t, y2: H - M.b, class: 'grid' }));
    const t = svg('text', { x: x(v), y: H - M.b + 14, 'text-anchor': 'middle' });
    t.textContent = fmtTick(v);
    axes.appendChild(t);
  }
  for (const v of yTicks) {
    axes.appendChild(svg('line', { x1: M.l, x2: W - M.r, y1: y(v), y2: y(v), class: 'grid' }));
    const t = svg('text', { x: M.l - 5, y: y(v) + 3, 'text-anchor': 'end' });
    t.textContent = fmtTick(v);
    axes.appendChild(t);
  }
  const xl = svg('text', { x: (M.l + W - M.r) / 2, y: H - 6, 'text-anchor': 'middle', class: 'axis-label' });
  xl.textContent = `GFlop per task${log ? ' (log)' : ''}`;
  const yl = svg('text', { x: 12, y: (M.t + H - M.b) / 2, 'text-anchor': 'middle', class: 'axis-label',
    transform: `rotate(-90 12 ${(M.t + H - M.b) / 2})` });
  yl.textContent = `Duration (${unitText(unit)})${log ? ' (log)' : ''}`;
  axes.append(xl, yl);
  root.appendChild(axes);
  const plot = svg('g', { 'clip-path': `url(#${clipId})` });
  // interval bands and fit lines, one per cluster
  fits.forEach((f, i) => {
    const c = f.curve;
    const upr = pathOf(c.gflop, c.upr, x, y);
    const lwrPts = c.gflop.map((g, j) => [g, c.lwr[j]]).filter(([, v]) => Number.isFinite(v) && (!log || v > 0)).reverse();
    if (upr && lwrPts.length) {
      const band = upr + lwrPts.map(([g, v]) => `L${x(g).toFixed(1)},${y(v).toFixed(1)}`).join('') + 'Z';
      plot.appendChild(svg('path', { d: band, class: 'reg-band' }));
    }
    const dash = i ? '5 3' : null;
    plot.appendChild(svg('path', { d: upr, class: 'reg-limit', 'stroke-dasharray': dash }));
    plot.appendChild(svg('path', { d: pathOf(c.gflop, c.lwr, x, y), class: 'reg-limit', 'stroke-dasharray': dash }));
    plot.appendChild(svg('path', { d: pathOf(c.gflop, c.fit, x, y), class: 'reg-fit', 'stroke-dasharray': dash }));
  });
  // points: expected first, anomalies on top
  const pts = sample(tasks).sort((a, b) => a.anomaly - b.anomaly);
  const dots = svg('g', { class: 'reg-points' });
  for (const t of pts) {
    if (log && !(t.duration > 0)) continue;
    const cls = `${t.anomaly ? 'pt anomaly' : 'pt'}${t.cluster === 2 ? ' c2' : ''}`;
    const c = svg('circle', { cx: x(t.gflop).toFixed(1), cy: y(t.duration).toFixed(1), r: t.anomaly ? 3.2 : 2.2, class: cls });
    c.__task = t;
    dots.appendChild(c);
  }
  plot.appendChild(dots);
  root.appendChild(plot);
  dots.addEventListener('mousemove', (e) => {
    const t = e.target.__task;
    if (t) tooltip.show(e, taskTip(t, unit, fits.length > 1));
    else tooltip.hide();
  });
  dots.addEventListener('mouseleave', () => tooltip.hide());
  const coef = allFits.filter((f) => !f.curve).map((f) => `${allFits.length > 1 ? `c${f.cluster}: ` : ''}not fittable (${NOT_FITTABLE[f.reason] || f.reason})`);
  coef.push(...fits.map((f) => `${fits.length > 1 ? `c${f.cluster}: ` : ''}b0 ${fmtTick(f.b0)}, b1 ${f.b1 === null ? '—' : fmtTick(f.b1)}, s ${fmtTick(f.s ?? NaN)}, R² ${f.r2 === null ? '—' : f.r2.toFixed(3)}`));
  return h('figure', { class: 'panel reg-panel', dataset: { group: `${first.type}/${first.resource_type}`, anomalies: String(anomalies) } },
    h('figcaption', {}, h('strong', {}, `${first.type} · ${first.resource_type}`),
      h('span', { class: 'reg-count' }, `${formatNumber(tasks.length)} tasks, `,
        h('span', { class: anomalies ? 'anom' : '' }, `${formatNumber(anomalies)} anomal${anomalies === 1 ? 'y' : 'ies'}`)),
      h('div', { class: 'muted small' }, coef.join(' · '))),
    root,
    tasks.length > MAX_POINTS ? h('p', { class: 'muted small' }, `${formatNumber(pts.length)} of ${formatNumber(tasks.length)} points drawn (all anomalies).`) : null);
}

// The tooltip of one task's point.
function taskTip(t, unit, clustered) {
  const rows = [['GFlop', formatNumber(t.gflop)], ['Duration', fmtTime(t.duration, unit)],
    ['Model fit', fmtTime(t.fit, unit)], ['Upper 95 % limit', fmtTime(t.upr, unit)]];
  if (t.cluster > 1 || clustered) rows.push(['Mixture component', String(t.cluster)]);
  return tipContent(`job ${t.job_id}`, rows, t.anomaly ? 'Anomaly: longer than the upper limit' : null,
    `${t.type} on ${t.worker}`);
}
