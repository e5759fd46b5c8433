// views/gantt.js: the "Gantt" tab of a task trace: the Gantt chart
// (lib/gantt_chart.js) with its toolbar (zoom, critical path, JSON link),
// the filter bar (lib/filters.js), the legend, and under it, on the same time
// axis, the iteration and ready/submitted task panels (lib/time_panels.js).
// Toggles "Runtime states" (each worker's Sleeping, Overhead, ... as a thin
// band under its tasks) and "MPI" (the links between ranks as lines).
// The window, the filters, the critical-path settings, the toggles
// (runtime=1, mpi=1) and the collapsed nodes of a multi-node trace
// (collapsed=1,3: a history entry each, so Back expands again) live in the URL.
import { api } from '../api.js';
import { h, clear } from '../dom.js';
import { registerView, hasTasks } from '../trace.js';
import { CRITICAL_COLOR, typeColor, stateColor, TIMELINE } from '../colors.js';
import { GanttChart, DEBOUNCE_MS } from '../lib/gantt_chart.js';
import { TimePanels } from '../lib/time_panels.js';
import { readFilters, filterQuery, filterBar, traceResources } from '../lib/filters.js';
import { analysisError } from '../lib/errors.js';
import { fmtTime } from '../lib/format.js';

function parseNum(s) {
  const v = Number.parseFloat(s);
  return Number.isFinite(v) ? v : null;
}

registerView({ id: 'gantt', title: 'Gantt', kinds: ['tasks'], applies: hasTasks, render: renderGantt });

async function renderGantt(el, trace, params, setParams, { signal, onDispose }) {
  el.classList.add('gantt-view');
  const state = {
    filters: readFilters(params),
    cp: params.cp === '1', cpType: params.cp_type || '', cpGap: parseNum(params.cp_gap) || 0,
    runtime: params.runtime === '1', mpi: params.mpi === '1',
    collapsed: String(params.collapsed || '').split(',').filter((v) => /^[0-9]+$/.test(v)).map(Number),
  };
  const start = parseNum(params.start), end = parseNum(params.end);
  const unit = trace.time_unit || '';
  const message = h('div', { class: 'gantt-message' });
  const toolbarEl = h('div', { class: 'gantt-toolbar' });
  const filtersEl = h('div', { class: 'gantt-filters' });
  const chartPanel = h('section', { class: 'panel gantt-panel', 'aria-label': 'Gantt chart' });
  const legendEl = h('div', { class: 'gantt-legend' });
  const panelsEl = h('div', { class: 'time-panels-host' });
  el.append(toolbarEl, filtersEl, message, chartPanel);

  let panels = null;
  let syncTimer = 0;
  onDispose(() => clearTimeout(syncTimer));
  const writeUrl = (opts) => {
    const d = chart.domain;
    const full = chart.extent && d && d[0] <= chart.extent.start && d[1] >= chart.extent.end;
    setParams({
      ...(d && !full ? { start: +d[0].toPrecision(10), end: +d[1].toPrecision(10) } : {}),
      ...filterQuery(state.filters),
      cp: state.cp ? 1 : '', cp_type: state.cp ? state.cpType : '', cp_gap: state.cp && state.cpGap > 0 ? state.cpGap : '',
      anomalies: params.anomalies || '',
      runtime: state.runtime ? 1 : '', mpi: state.mpi ? 1 : '',
      collapsed: state.collapsed.join(','),
      ...(panels ? panels.urlParams() : {}),
    }, opts);
  };
  const onDomain = (d) => {
    chart.setDomain(d);
    if (panels) panels.setDomain(d);
    rangeText();
    clearTimeout(syncTimer);
    syncTimer = setTimeout(() => {
      chart.fetch();
      if (panels) panels.fetch();
      writeUrl();
    }, DEBOUNCE_MS);
  };
  const chart = new GanttChart({
    traceId: trace.id, unit, filters: state.filters, label: `Gantt chart of ${trace.name}`, signal,
    maxHeight: Math.max(220, Math.min(440, window.innerHeight - 380)),
    onDomain, collapsed: state.collapsed,
    onCollapse: (nodes) => { state.collapsed = nodes; writeUrl({ push: true }); },
    onError: (e) => { clear(message).appendChild(analysisError(e, 'load the Gantt chart')); },
    onLoad: () => { clear(message); },
    onLayers: () => { layersLegend(); },
    onLayerError: (e) => { layerInfo.textContent = `runtime states / MPI unavailable: ${e.message}`; },
  });
  const layerInfo = h('span', { class: 'muted small layer-info' });
  const layersLegendEl = h('div', { class: 'legend gantt-legend-items gantt-layers-legend', 'aria-label': 'Runtime states and MPI legend' });
  const layersLegend = () => {
    const items = [];
    if (state.runtime) {
      items.push(h('span', { class: 'legend-item small muted' }, 'runtime states (band under the tasks):'));
      for (const v of chart.runtimeValues()) items.push(h('span', { class: 'legend-item' }, h('span', { class: 'swatch', style: `background:${stateColor(v.name, v.color)}` }), v.name));
    }
    if (state.mpi && chart.mpi && chart.mpi.doc) {
      const d = chart.mpi.doc;
      items.push(h('span', { class: 'legend-item' }, h('span', { class: 'line-key', style: `border-color:${TIMELINE.mpiLine}` }), 'MPI message (send → receive)'),
        h('span', { class: 'legend-item' }, h('span', { class: 'line-key', style: `border-color:${TIMELINE.mpiLineBackwards}` }), 'received before sent (clock skew)'));
      layerInfo.textContent = `${d.count} of ${d.total} MPI messages in the window${d.truncated ? ' (truncated)' : ''}`;
    } else if (!state.mpi) layerInfo.textContent = '';
    clear(layersLegendEl).append(...items);
  };
  onDispose(() => chart.dispose());
  if (start !== null && end !== null && start < end) chart.domain = [start, end];
  if (params.anomalies) { // expected tasks transparent, regression anomalies opaque (views/regression.js)
    api.get(`/traces/${trace.id}/anomalies`, { model: params.anomalies, limit: 2000000 }, { signal })
      .then((a) => { chart.anomalies = new Set(a.tasks.map((t) => t.job_id)); chart.draw(); },
        (e) => { clear(message).appendChild(analysisError(e, 'load the regression anomalies')); });
  }
  chartPanel.append(chart.el, legendEl, layersLegendEl);

  chartPanel.appendChild(h('p', { class: 'muted small gantt-hint' },
    'Wheel: zoom at the cursor · drag: pan · shift+drag or drag on the time axis: zoom to a range · double-click: whole trace · keyboard (click the chart first): ← → + − 0'));
  const rangeLabel = h('span', { class: 'range-label', 'aria-live': 'polite' });
  const rangeText = () => {
    const d = chart.domain;
    rangeLabel.textContent = d ? `${fmtTime(d[0])} – ${fmtTime(d[1], unit)} (${fmtTime(d[1] - d[0], unit)})` : '';
  };

  const body = await chart.fetch().catch((e) => { clear(message).appendChild(analysisError(e, 'load the Gantt chart')); return null; });
  if (!body) { clear(toolbarEl); chartPanel.remove(); return; }
  rangeText();
  const res = traceResources(trace, body.rows);

  // toolbar: zoom buttons, critical path, API link
  const zoomBy = (f) => { const [a, b] = chart.domain; const c = (a + b) / 2, s = (b - a) * f / 2; chart.requestDomain([c - s, c + s]); };
  const cpToggle = h('input', { type: 'checkbox', id: 'cp-toggle', checked: state.cp });
  const cpType = h('select', { class: 'input input-small', id: 'cp-type', 'aria-label': 'Critical path start' },
    h('option', { value: '' }, 'from the last task'),
    (body.types || []).map((t) => h('option', { value: t, selected: t === state.cpType }, `from every ${t}`)));
  const cpGap = h('input', { type: 'number', class: 'input input-narrow', id: 'cp-gap', min: 0, step: 'any',
    value: state.cpGap > 0 ? String(state.cpGap) : '', placeholder: '0', 'aria-label': `Minimum wait (${unit})` });
  const cpInfo = h('span', { class: 'muted small cp-info' });
  const loadCp = async () => {
    cpType.disabled = cpGap.disabled = !state.cp;
    if (!state.cp) { chart.setCriticalPath(null); cpInfo.textContent = ''; writeUrl(); return; }
    cpInfo.textContent = 'computing…';
    try {
      const q = { ...filterQuery(state.filters), type: state.cpType, min_gap: state.cpGap > 0 ? state.cpGap : '' };
      const cp = await api.get(`/traces/${trace.id}/critical-path`, q, { signal });
      chart.setCriticalPath(cp);
      cpInfo.textContent = `${cp.tasks.length} tasks, ${cp.edges.length} edges, length ${fmtTime(cp.length, unit)}`;
    } catch (e) {
      chart.setCriticalPath(null);
      cpInfo.textContent = `critical path unavailable: ${e.message}`;
    }
    writeUrl();
  };
  cpToggle.addEventListener('change', () => { state.cp = cpToggle.checked; loadCp(); });
  cpType.addEventListener('change', () => { state.cpType = cpType.value; loadCp(); });
  let gapTimer = 0;
  onDispose(() => clearTimeout(gapTimer));
  cpGap.addEventListener('input', () => {
    clearTimeout(gapTimer);
    gapTimer = setTimeout(() => { const v = parseNum(cpGap.value); state.cpGap = v && v > 0 ? v : 0; loadCp(); }, 400);
  });
  const runtimeToggle = h('input', { type: 'checkbox', id: 'runtime-toggle', checked: state.runtime,
    title: 'Each worker\'s runtime states (Sleeping, Idle, Overhead, Scheduling, FetchingInput, Callback, ...) as a band under its tasks' });
  const mpiToggle = h('input', { type: 'checkbox', id: 'mpi-toggle', checked: state.mpi,
    title: 'The MPI messages between ranks as lines (GET /links)' });
  runtimeToggle.addEventListener('change', () => { state.runtime = runtimeToggle.checked; chart.setRuntime(state.runtime); layersLegend(); writeUrl(); });
  mpiToggle.addEventListener('change', () => { state.mpi = mpiToggle.checked; chart.setMpi(state.mpi); layersLegend(); writeUrl(); });
  const apiLink = h('a', { class: 'btn btn-small', target: '_blank', rel: 'noopener', title: 'The JSON of this window (for scripts)' }, 'JSON');
  const updateApiLink = () => {
    const q = new URLSearchParams(Object.entries({ ...filterQuery(state.filters), start: chart.domain[0], end: chart.domain[1], width: Math.round(chart.plotBox().width) })
      .filter(([, v]) => v !== '' && v !== undefined));
    apiLink.href = `api/v1/traces/${trace.id}/gantt?${q}`;
  };
  apiLink.addEventListener('mouseenter', updateApiLink);
  apiLink.addEventListener('focus', updateApiLink);
  clear(toolbarEl).append(
    h('div', { class: 'zoom-group', role: 'group', 'aria-label': 'Zoom' },
      h('button', { type: 'button', class: 'btn btn-small', title: 'Zoom out', 'aria-label': 'Zoom out', onclick: () => zoomBy(2) }, '−'),
      h('button', { type: 'button', class: 'btn btn-small', title: 'Zoom in', 'aria-label': 'Zoom in', onclick: () => zoomBy(0.5) }, '+'),
      h('button', { type: 'button', class: 'btn btn-small', onclick: () => chart.requestDomain([chart.extent.start, chart.extent.end]) }, 'Whole trace'),
      rangeLabel),
    h('div', { class: 'cp-group', role: 'group', 'aria-label': 'Critical path' },
      h('label', { class: 'check', for: 'cp-toggle' }, cpToggle, 'Critical path'), cpType,
      h('label', { for: 'cp-gap', class: 'small muted' }, `min. wait (${unit})`), cpGap, cpInfo),
    h('div', { class: 'layers-group', role: 'group', 'aria-label': 'Runtime layers' },
      h('label', { class: 'check', for: 'runtime-toggle' }, runtimeToggle, 'Runtime states'),
      h('label', { class: 'check', for: 'mpi-toggle' }, mpiToggle, 'MPI'), layerInfo),
    apiLink);
  if (state.runtime) chart.setRuntime(true);
  if (state.mpi) chart.setMpi(true);

  const onFilters = (f) => {
    state.filters = f;
    chart.setFilters(f);
    if (panels) panels.setFilters(f);
    chart.fetch();
    if (panels) panels.fetch();
    if (state.cp) loadCp(); else writeUrl();
  };
  filtersEl.appendChild(filterBar({ types: body.types || [], resources: res.resources, nodes: res.nodes, unit,
    filters: state.filters, onChange: onFilters }));
  legendEl.append(legend(body.types || []));

  el.appendChild(panelsEl);
  panels = new TimePanels({ traceId: trace.id, unit, filters: state.filters, domain: chart.domain,
    onDomain: (d) => chart.requestDomain(d), reset: () => chart.requestDomain([chart.extent.start, chart.extent.end]), signal });
  onDispose(() => panels.dispose());
  panelsEl.appendChild(panels.el);
  panels.fetch();
  if (state.cp) loadCp(); else { cpType.disabled = cpGap.disabled = true; }

  // redraw at the new width when the window is resized
  let lastW = chart.el.clientWidth;
  const ro = new ResizeObserver(() => {
    const w = chart.el.clientWidth;
    if (w === lastW) return;
    lastW = w;
    chart.draw();
    panels.draw();
    chart.scheduleFetch();
    panels.scheduleFetch();
  });
  ro.observe(chart.el);
  onDispose(() => ro.disconnect());
}

function legend(types) {
  return h('div', { class: 'legend gantt-legend-items', 'aria-label': 'Legend' },
    types.map((t) => h('span', { class: 'legend-item' }, h('span', { class: 'swatch', style: `background:${typeColor(t)}` }), t)),
    h('span', { class: 'legend-item' }, h('span', { class: 'swatch swatch-outlier' }), 'darker: outlier (duration > Q3 + 1.5 IQR)'),
    h('span', { class: 'legend-item' }, h('span', { class: 'line-key key-makespan' }), 'makespan'),
    h('span', { class: 'legend-item' }, h('span', { class: 'line-key key-abe' }), 'ABE (area bound)'),
    h('span', { class: 'legend-item' }, h('span', { class: 'line-key key-cpe' }), 'CPE (critical-path bound)'),
    h('span', { class: 'legend-item' }, h('span', { class: 'line-key key-cp', style: `border-color:${CRITICAL_COLOR}` }), 'critical path'),
    h('span', { class: 'legend-item' }, h('span', { class: 'swatch swatch-idle' }), 'idle = 1 - task time / span'));
}
