// lib/live_controls.js: the controls and the readout of the live-run page
// (Fig. 6.5; contract18 section 3, POST /streams/{id}/control): the two
// metrics (top, bottom), the clustered metric and k, the change-point
// target and alpha, the causality target, direction and threshold, the
// granularity, the window and the latency budgets; a change is sent at once
// (onChange(partial)) and is shared by every viewer of the run. The
// readout shows the connection, the latency from a sample's arrival to its
// message, the analyses' time and the entities processed by the
// progressive clustering and PCA within their budgets.
import { h } from '../dom.js';
import { formatNumber } from './format.js';

const field = (label, input, title) => h('label', { class: 'pdes-field live-field', title }, label, input);
const options = (values, value) => values.map((o) => (Array.isArray(o)
  ? h('option', { value: o[0], selected: String(o[0]) === String(value) }, o[1])
  : h('option', { value: o, selected: String(o) === String(value) }, o)));

// Builds the controls; returns {el, set(controls, model)}.
export function liveControls(onChange) {
  const els = {};
  const sel = (key, cls) => (els[key] = h('select', { class: `input input-small ${cls}`, 'data-control': key }));
  const numIn = (key, cls, attrs) => (els[key] = h('input', { class: `input input-narrow ${cls}`, type: 'number', 'data-control': key, ...attrs }));
  const send = (key, value) => {
    if (key.startsWith('causality.')) onChange({ causality: { [key.slice(10)]: value } });
    else if (key.startsWith('budgets.')) onChange({ budgets: { [key.slice(8)]: value } });
    else onChange({ [key]: value });
  };
  const row1 = h('div', { class: 'live-controls-row' },
    field('Top', sel('top', 'live-top'), 'Metric of the top views a1, b1, c1'),
    field('Bottom', sel('bottom', 'live-bottom'), 'Metric of the bottom views a2, b2, c2'),
    field('Cluster', sel('cluster_metric', 'live-cluster-metric'), 'Metric the progressive k-means clusters (colours of every view)'),
    field('k', numIn('k', 'live-k', { min: 1, max: 20, step: 1 }), 'Number of clusters'),
    field('CPD on', sel('cpd_target', 'live-cpd-target'), 'Which view the online change-point detection watches'),
    field('alpha', numIn('alpha', 'live-alpha', { min: 0.0001, max: 0.5, step: 0.01 }), 'Significance of the change-point detector'),
    field('Granularity', sel('granularity', 'live-granularity'), 'Entities of the behaviour, clustering and similarity views'),
    field('Window', numIn('window', 'live-window', { min: 5, max: 1000, step: 1 }), 'Time points of the behaviour views (W)'));
  const row2 = h('div', { class: 'live-controls-row' },
    field('Causality target', sel('causality.target', 'live-causality-target'), 'The metric the causality table explains (or is explained by)'),
    field('Direction', sel('causality.direction', 'live-causality-direction'), 'from: does the metric Granger-cause the target; to: does the target cause the metric'),
    field('p <', numIn('causality.threshold', 'live-causality-threshold', { min: 0.0001, max: 0.5, step: 0.01 }), 'Significance threshold of the Granger test'),
    h('span', { class: 'live-field-group', title: 'Latency budgets of the progressive analyses, per time point' }, 'Budgets (ms):',
      field('clusters', numIn('budgets.cluster_ms', 'live-budget-cluster', { min: 1, max: 5000, step: 1 })),
      field('PCA', numIn('budgets.dr_ms', 'live-budget-dr', { min: 1, max: 5000, step: 1 })),
      field('VAR', numIn('budgets.var_ms', 'live-budget-var', { min: 1, max: 5000, step: 1 }))));
  for (const [key, el] of Object.entries(els)) {
    el.addEventListener('change', () => {
      if (el.type === 'number') {
        const v = Number(el.value);
        if (!Number.isFinite(v) || v < Number(el.min) || v > Number(el.max)) { el.setCustomValidity(`from ${el.min} to ${el.max}`); el.reportValidity(); return; }
        el.setCustomValidity('');
        send(key, el.step === '1' ? Math.round(v) : v);
      } else send(key, el.value);
    });
  }
  const el = h('form', { class: 'live-controls', 'aria-label': 'Analysis settings of this run (shared by its viewers)', onsubmit: (e) => e.preventDefault() }, row1, row2);
  const fill = (select, values, value) => {
    const want = values.map((v) => (Array.isArray(v) ? v[0] : v)).join('\u0001');
    if (select.dataset.options !== want) { select.replaceChildren(...options(values, value)); select.dataset.options = want; }
    select.value = value ?? '';
  };
  const get = (c, key) => (key.includes('.') ? (c[key.split('.')[0]] || {})[key.split('.')[1]] : c[key]);
  return {
    el,
    set(c, model) {
      const metrics = model.metrics;
      for (const key of ['top', 'bottom', 'cluster_metric', 'causality.target']) {
        if (document.activeElement !== els[key]) fill(els[key], metrics, get(c, key) ?? (key === 'cluster_metric' ? get(c, 'top') : ''));
      }
      if (document.activeElement !== els.cpd_target) fill(els.cpd_target, [['top', 'top view'], ['bottom', 'bottom view']], c.cpd_target || 'top');
      if (document.activeElement !== els['causality.direction']) {
        fill(els['causality.direction'], [['from', 'metric → target'], ['to', 'target → metric']], get(c, 'causality.direction') || 'from');
      }
      if (document.activeElement !== els.granularity) fill(els.granularity, model.levels, c.granularity || model.levels[model.levels.length - 1]);
      for (const key of ['k', 'alpha', 'window', 'causality.threshold', 'budgets.cluster_ms', 'budgets.dr_ms', 'budgets.var_ms']) {
        const v = get(c, key);
        if (document.activeElement !== els[key] && v !== undefined && v !== null) els[key].value = v;
      }
    },
  };
}

const ms = (v) => (v === null || v === undefined || !Number.isFinite(Number(v)) ? '–' : `${formatNumber(+Number(v).toPrecision(3))} ms`);

// The readout line: returns {el, update(msg, status)}.
export function liveReadout() {
  const parts = {
    connection: h('span', { class: 'live-conn', 'data-connection': 'idle' }, 'not connected'),
    points: h('span', { class: 'live-points' }),
    latency: h('span', { class: 'live-latency', title: 'From the arrival of the sample at the server to its message; time of all analyses of the point' }),
    processed: h('span', { class: 'live-processed', title: 'Entities the progressive clustering and PCA processed within their budgets at the latest point' }),
    paused: h('span', { class: 'live-paused-note' }),
  };
  const el = h('div', { class: 'live-readout', role: 'status', 'aria-live': 'off' }, ...Object.values(parts));
  return {
    el,
    update(msg, st, model) {
      if (st) {
        parts.connection.dataset.connection = st.connection;
        parts.connection.textContent = { idle: 'not connected', connecting: 'connecting…', open: 'live', reconnecting: 'reconnecting…',
          closed: 'run closed', stopped: 'stopped' }[st.connection] || st.connection;
        el.dataset.received = String(st.received);
        el.dataset.applied = String(st.applied);
        el.dataset.missed = String(st.missed);
        el.dataset.paused = String(st.paused);
        parts.paused.textContent = st.paused ? `paused: ${formatNumber(st.missed)} new points not shown` : '';
      }
      if (model) parts.points.textContent = `${formatNumber(model.nPoints)} time points · ${formatNumber(model.ids.length)} entities`;
      if (!msg) return;
      el.dataset.seq = String(msg.seq);
      const lat = msg.latency || {};
      parts.latency.textContent = `latency ${ms(lat.arrival_to_send_ms)} (analyses ${ms(lat.analyses_ms)})`;
      const c = msg.clusters || {}, d = msg.dr || {};
      const p = d.processed || {};
      const clusterText = c.n ? `clustering ${formatNumber(c.processed ?? 0)} / ${formatNumber(c.n)} in ${ms(c.latency_ms)}` : 'clustering –';
      const drText = d.top_xy ? `PCA ${formatNumber(p.top ?? 0)} + ${formatNumber(p.bottom ?? 0)} / ${formatNumber(d.top_xy.length)} in ${ms(d.latency_ms)}` : 'PCA –';
      parts.processed.textContent = `entities processed: ${clusterText} · ${drText}`;
    },
  };
}
