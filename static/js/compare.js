// compare.js: the comparison page (#/compare?traces=1,2,3): two to six task
// traces (the VPA 2016 paper's Fig. 4 and 6), stacked at the full width (or
// side by side), with one time scale and one colour map, zoomed and panned
// together, above a table of makespan, ABE, CPE, idleness (idle = 1 - task
// time / span, mean over the workers) and outlier count per trace
// (GET /api/v1/compare). Each chart keeps its own trace's rows, in the one
// row order of the dashboard (node, resource type, worker) under node
// headers, so traces of one shape line up row for row and traces of
// different shapes line up by node and resource type.
// "Same kernel, other names": the user maps a task type to another one's
// colour (dpotrf -> chol_model_potrf; names of one known kernel already
// share a colour, colors.js). The window, the filters, the layout
// (layout=side) and the mapping (same=a:b,c:d, names URI-encoded) are in
// the URL.
import { api } from './api.js';
import { h, clear } from './dom.js';
import { updateParams } from './router.js';
import { errorBox } from './settings.js';
import { typeColor, kernelOf } from './colors.js';
import { GanttChart, DEBOUNCE_MS } from './lib/gantt_chart.js';
import { readFilters, filterQuery, filterBar } from './lib/filters.js';
import { fmtTime, fmtPercent, formatNumber } from './lib/format.js';

function parseIds(text) {
  const ids = String(text || '').split(',').map((s) => s.trim()).filter(Boolean);
  if (!ids.every((s) => /^[1-9][0-9]*$/.test(s))) return null;
  return [...new Set(ids.map(Number))];
}

// "a:b,c:d" (URI-encoded names) -> Map a -> b, only for known types.
export function parseColorMap(text, types) {
  const known = new Set(types), map = new Map();
  for (const pair of String(text || '').split(',')) {
    const [a, b] = pair.split(':').map((v) => { try { return decodeURIComponent(v || ''); } catch { return ''; } });
    if (a && b && a !== b && known.has(a) && known.has(b)) map.set(a, b);
  }
  // a chain a -> b -> c resolves to c; a cycle is dropped
  for (const [a] of map) {
    let t = map.get(a); const seen = new Set([a]);
    while (map.has(t) && !seen.has(t)) { seen.add(t); t = map.get(t); }
    if (seen.has(t)) map.delete(a); else map.set(a, t);
  }
  return map;
}

export function formatColorMap(map) {
  return [...map].map(([a, b]) => `${encodeURIComponent(a)}:${encodeURIComponent(b)}`).join(',');
}

export async function renderCompare(el, params) {
  document.title = 'Compare traces · ariadne';
  const ids = parseIds(params.traces);
  el.appendChild(h('p', { class: 'breadcrumb' }, h('a', { href: '#/traces' }, 'Traces'), ' / Compare'));
  if (!ids || ids.length < 2 || ids.length > 6) {
    el.appendChild(h('div', { class: 'panel empty-state' }, h('h1', {}, 'Choose 2 to 6 task traces to compare'),
      h('p', {}, 'Tick the traces in the list, then press “Compare selected”. ',
        'The address has the form #/compare?traces=3,4.'),
      h('a', { class: 'btn btn-primary', href: '#/traces?kind=tasks' }, 'Go to the task traces')));
    return;
  }
  let filters = readFilters(params);
  let stacked = params.layout !== 'side';
  const heading = h('div', { class: 'page-header' }, h('div', {}, h('h1', {}, `Comparing ${ids.length} traces`),
    h('p', { class: 'page-subtitle' }, 'One time scale, one colour map; each trace keeps its own rows, in the same node and resource order. Zooming one chart zooms them all.')));
  const message = h('div');
  const tableEl = h('div', { class: 'compare-table' }, h('p', { class: 'muted' }, 'Loading…'));
  const colorsEl = h('details', { class: 'panel compare-colors' });
  const filtersEl = h('div');
  const grid = h('div', { class: 'compare-grid' });
  const layoutBtn = h('button', { type: 'button', class: 'btn btn-small', 'aria-pressed': String(stacked) });
  const tools = h('div', { class: 'compare-tools' }, layoutBtn,
    h('span', { class: 'muted small' }, 'Wheel: zoom · drag: pan · shift+drag: zoom to a range · double-click: whole extent'));
  el.append(heading, filtersEl, message, tableEl);

  let cmp;
  try {
    cmp = await api.get('/compare', { traces: ids.join(','), ...filterQuery(filters) });
  } catch (e) {
    clear(tableEl);
    message.appendChild(e.code === 'no_tasks'
      ? h('div', { class: 'alert alert-info', role: 'alert' }, h('strong', {}, 'One of these traces has no tasks'),
        h('p', {}, e.message),
        h('p', {}, 'Only traces with application tasks (StarPU bundles, StarVZ CSV sets) can be compared; a plain Paje trace cannot.'))
      : errorBox(e, 'compare the traces'));
    return;
  }
  const unit = cmp.time_unit || '';
  let domain = [cmp.extent.start, cmp.extent.end];
  const ps = Number.parseFloat(params.start), pe = Number.parseFloat(params.end);
  if (Number.isFinite(ps) && Number.isFinite(pe) && ps < pe) domain = [ps, pe];
  let colorMap = parseColorMap(params.same, cmp.types || []);
  const colorOf = (t) => typeColor(colorMap.get(t) || t);
  renderTable(tableEl, cmp, unit, colorOf);
  el.append(colorsEl, tools, grid);

  const allResources = new Set(), allNodes = new Set();
  let charts = [];
  let timer = 0;
  const writeUrl = () => {
    const full = domain[0] <= cmp.extent.start && domain[1] >= cmp.extent.end;
    updateParams({ traces: ids.join(','), ...(full ? {} : { start: +domain[0].toPrecision(10), end: +domain[1].toPrecision(10) }),
      ...filterQuery(filters), layout: stacked ? '' : 'side', same: formatColorMap(colorMap) });
  };
  const setDomain = (d) => {
    domain = charts[0] ? charts[0].clamp(d) : d;
    for (const c of charts) c.setDomain(domain);
    clearTimeout(timer);
    timer = setTimeout(() => { for (const c of charts) c.fetch(); writeUrl(); }, DEBOUNCE_MS);
  };

  // each chart's lines are its trace's row of the comparison table
  const setChartMarks = () => cmp.traces.forEach((t, i) => {
    if (charts[i]) charts[i].setMarks({ makespan: t.makespan, abe: t.abe, cpe: t.cpe });
  });

  async function buildCharts() {
    clear(grid);
    grid.classList.toggle('stacked', stacked);
    grid.style.setProperty('--cols', stacked ? 1 : ids.length <= 4 ? 2 : 3);
    layoutBtn.textContent = stacked ? 'Side by side' : 'Stack vertically';
    layoutBtn.setAttribute('aria-pressed', String(stacked));
    const maxHeight = stacked ? Math.max(240, Math.min(520, Math.round((window.innerHeight - 260) / Math.min(ids.length, 2))))
      : Math.max(300, window.innerHeight - 300);
    charts = cmp.traces.map((t) => new GanttChart({
      traceId: t.id, unit, filters, extent: cmp.extent, label: `Gantt chart of ${t.name}`, onDomain: setDomain,
      fixedMarks: true, maxHeight, colorAlias: colorMap,
    }));
    setChartMarks();
    cmp.traces.forEach((t, i) => {
      const c = charts[i];
      c.domain = domain;
      grid.appendChild(h('section', { class: 'panel compare-cell', 'aria-label': t.name, dataset: { traceId: t.id } },
        h('h2', { class: 'compare-title' }, h('a', { href: `#/traces/${t.id}/gantt` }, t.name),
          h('span', { class: 'muted small' }, ` makespan ${fmtTime(t.makespan, unit)}`)),
        c.el));
    });
    // each chart keeps its own rows (GanttChart sorts them by node,
    // resource type and worker, the order shared by every chart)
    const bodies = await Promise.all(charts.map((c) => c.fetch().catch((e) => e)));
    const failed = bodies.find((b) => b instanceof Error);
    if (failed) { clear(message).appendChild(errorBox(failed, 'load a Gantt chart')); return; }
    for (const b of bodies) for (const r of b.rows) { allResources.add(r.resource_type); allNodes.add(String(r.node)); }
  }
  const onColorMap = (map) => {
    colorMap = map;
    for (const c of charts) c.setColorAlias(colorMap);
    renderTable(tableEl, cmp, unit, colorOf);
    writeUrl();
  };
  renderColorMap(colorsEl, cmp.types || [], () => colorMap, onColorMap);
  layoutBtn.addEventListener('click', () => { stacked = !stacked; writeUrl(); buildCharts(); });
  await buildCharts();
  filtersEl.appendChild(filterBar({
    types: cmp.types || [], resources: [...allResources].sort(), nodes: [...allNodes].sort((a, b) => a - b), unit, filters,
    onChange: async (f) => {
      filters = f;
      for (const c of charts) c.setFilters(f);
      writeUrl();
      try {
        cmp = await api.get('/compare', { traces: ids.join(','), ...filterQuery(filters) });
        renderTable(tableEl, cmp, unit, colorOf);
        setChartMarks();
      } catch (e) { clear(tableEl).appendChild(errorBox(e, 'compare the traces')); }
      for (const c of charts) c.fetch();
    },
  }));
  let lastW = grid.clientWidth;
  const ro = new ResizeObserver(() => {
    if (!grid.isConnected) { ro.disconnect(); return; }
    if (grid.clientWidth === lastW) return;
    lastW = grid.clientWidth;
    for (const c of charts) { c.draw(); c.scheduleFetch(); }
  });
  ro.observe(grid);
}

const IDLE_TITLE = 'idle = 1 - task time / span: per worker over the trace\'s extent (StarVZ), mean over the workers';

function renderTable(el, cmp, unit, colorOf) {
  const best = Math.min(...cmp.traces.map((t) => t.makespan));
  const cols = ['Trace', `Makespan (${unit})`, `ABE (${unit})`, `CPE (${unit})`, 'vs bound', 'Idle', 'Outliers', 'Tasks', 'Workers'];
  clear(el).append(h('div', { class: 'table-wrap' }, h('table', { class: 'table compact', 'aria-label': 'Comparison' },
    h('thead', {}, h('tr', {}, cols.map((c, i) => h('th', { scope: 'col', class: i ? 'num' : null,
      title: c === 'Idle' ? IDLE_TITLE : null }, c)))),
    h('tbody', {}, cmp.traces.map((t) => {
      const bound = Math.max(t.abe || 0, t.cpe || 0);
      return h('tr', { dataset: { traceId: t.id } },
        h('th', { scope: 'row' }, h('a', { href: `#/traces/${t.id}/gantt` }, t.name)),
        h('td', { class: `num ${t.makespan === best ? 'best' : ''}`, title: t.makespan === best ? 'shortest makespan' : null },
          fmtTime(t.makespan)),
        h('td', { class: 'num' }, fmtTime(t.abe)), h('td', { class: 'num' }, fmtTime(t.cpe)),
        h('td', { class: 'num', title: 'makespan above the tighter of ABE and CPE' },
          bound > 0 ? `+${fmtPercent(t.makespan / bound - 1)}` : '—'),
        h('td', { class: 'num', title: IDLE_TITLE }, fmtPercent(t.idle)),
        h('td', { class: 'num' }, formatNumber(t.outliers)),
        h('td', { class: 'num' }, formatNumber(t.tasks)), h('td', { class: 'num' }, formatNumber(t.workers)));
    })))),
  h('div', { class: 'legend' }, (cmp.types || []).map((t) => h('span', { class: 'legend-item' },
    h('span', { class: 'swatch', style: `background:${colorOf(t)}` }), t))));
}

// The editor of the colour mapping: per task type, "own colour" or "as
// <another type>". getMap() is the current mapping, onChange(newMap).
function renderColorMap(el, types, getMap, onChange) {
  const map = getMap();
  const byKernel = new Map();
  for (const t of types) if (kernelOf(t)) byKernel.set(kernelOf(t), [...(byKernel.get(kernelOf(t)) || []), t]);
  const auto = [...byKernel.values()].filter((l) => l.length > 1).map((l) => l.join(' = '));
  const rows = types.map((t) => {
    const sel = h('select', { class: 'input input-small', 'aria-label': `Colour of ${t}`, dataset: { type: t } },
      h('option', { value: '' }, 'its own colour'),
      types.filter((o) => o !== t).map((o) => h('option', { value: o, selected: map.get(t) === o }, `the colour of ${o}`)));
    sel.addEventListener('change', () => {
      const next = new Map(getMap());
      if (sel.value) next.set(t, sel.value); else next.delete(t);
      for (const [a, b] of next) if (b === t && sel.value) next.set(a, sel.value); // keep it one step
      onChange(next);
      renderColorMap(el, types, getMap, onChange);
    });
    const col = typeColor(map.get(t) || t);
    return h('div', { class: 'compare-color-row' },
      h('span', { class: 'swatch', style: `background:${col}` }), h('span', { class: 'compare-color-name' }, t), sel);
  });
  const open = el.open;
  clear(el).append(
    h('summary', {}, `Same kernel, other names: colours${map.size ? ` (${map.size} mapped)` : ''}`),
    h('p', { class: 'muted small' }, 'Draw a task type in the colour of another (e.g. dpotrf as chol_model_potrf) so that the traces read alike. ',
      auto.length ? `Names of one known kernel already share a colour: ${auto.join('; ')}.` : ''),
    h('div', { class: 'compare-color-grid' }, rows));
  el.open = open || map.size > 0;
}
