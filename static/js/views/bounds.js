// views/bounds.js: the "Bounds" tab of a task trace: how far the run is from
// the two lower bounds of the VPA 2016 paper (the area bound ABE, from the
// LP over resource types, and the critical-path bound CPE), for the whole run,
// per node and per iteration (phase), each compared with the span of what it
// covers (last end - first start: seed 001, section V-A); the LP's ideal task allocation next to the actual one (the
// paper's Fig. 3e: bars for the actual counts, bullets for the ideal ones);
// and the outlier tasks (Q3 + 1.5 IQR per type and resource type), each
// linked to the Gantt zoomed on it. Filters as in the Gantt, in the URL.
import { api } from '../api.js';
import { h, clear } from '../dom.js';
import { registerView, hasTasks } from '../trace.js';
import { typeColor } from '../colors.js';
import { svg } from '../lib/svg.js';
import { fmtTime, fmtPercent, formatNumber } from '../lib/format.js';
import { readFilters, filterQuery, filterBar, traceResources } from '../lib/filters.js';
import { analysisError } from '../lib/errors.js';

registerView({ id: 'bounds', title: 'Bounds', kinds: ['tasks'], applies: hasTasks, render: renderBounds });

async function renderBounds(el, trace, params, setParams, { signal }) {
  el.classList.add('bounds-view');
  const unit = trace.time_unit || '';
  let filters = readFilters(params);
  const content = h('div', { class: 'bounds-content', 'aria-live': 'polite' });
  const res = traceResources(trace);
  const types = Object.keys((trace.summary && trace.summary.task_types) || {}).sort();
  el.append(filterBar({ types, resources: res.resources, nodes: res.nodes, unit, filters,
    onChange: (f) => { filters = f; setParams(filterQuery(f)); load(); } }), content);
  let seq = 0;
  async function load() {
    const mine = ++seq;
    content.classList.add('is-loading');
    const q = filterQuery(filters);
    const [b, o] = await Promise.all([
      api.get(`/traces/${trace.id}/bounds`, { ...q, by: 'iteration' }, { signal }).then((x) => ({ ok: x }), (e) => ({ err: e })),
      api.get(`/traces/${trace.id}/outliers`, { ...q, limit: 200 }, { signal }).then((x) => ({ ok: x }), (e) => ({ err: e })),
    ]);
    if (mine !== seq) return;
    content.classList.remove('is-loading');
    clear(content);
    if (b.err) { content.appendChild(analysisError(b.err, 'compute the bounds')); return; }
    content.append(summaryCards(b.ok, unit), boundsTable(b.ok, unit), allocationPanel(b.ok, unit),
      o.err ? analysisError(o.err, 'find the outliers') : outliersPanel(o.ok, trace, unit));
  }
  content.appendChild(h('p', { class: 'muted' }, 'Computing the bounds…'));
  await load();
}

function gapText(span, bound) {
  if (!(bound > 0) || typeof span !== 'number') return '—';
  return `+${fmtPercent(span / bound - 1)}`;
}

function summaryCards(b, unit) {
  const best = Math.max(b.abe || 0, b.cpe || 0);
  const card = (label, value, note, cls) => h('div', { class: `stat ${cls || ''}` },
    h('div', { class: 'stat-value' }, value), h('div', { class: 'stat-label' }, label), note ? h('div', { class: 'stat-note' }, note) : null);
  return h('section', { class: 'panel', 'aria-labelledby': 'bounds-title' },
    h('h2', { id: 'bounds-title' }, 'Span and lower bounds'),
    h('div', { class: 'stat-grid' },
      card('Span', fmtTime(b.span, unit), `from the first start to the latest end (${fmtTime(b.makespan, unit)})`, 'stat-makespan'),
      card('ABE (area bound)', fmtTime(b.abe, unit), `the span is ${gapText(b.span, b.abe)} above`, 'stat-abe'),
      card('CPE (critical-path bound)', fmtTime(b.cpe, unit), `the span is ${gapText(b.span, b.cpe)} above`, 'stat-cpe'),
      card('Room for improvement', best > 0 && b.span > 0 ? `≤ ${fmtPercent(Math.max(0, 1 - best / b.span))}` : '—',
        'of the span, by the tighter bound')),
    h('p', { class: 'help' }, 'ABE: the optimal makespan if tasks could be split freely among the resource types (a linear ',
      'program over the mean duration of each task type on each resource type; dependencies ignored). CPE: the longest ',
      'path of the DAG with each task at its type\'s mean duration on its fastest resource type. Both are lower bounds ',
      'of the span of the selected tasks (with a type or time filter, of that phase).'));
}

function boundsTable(b, unit) {
  const rows = [{ label: 'Whole selection', ...b },
    ...(b.nodes || []).map((n) => ({ label: `Node ${n.node}`, ...n })),
    ...(b.iterations || []).map((it) => ({ label: it.iteration < 0 ? 'Before iteration 0' : `Iteration ${it.iteration}`, ...it }))];
  return h('section', { class: 'panel', 'aria-labelledby': 'per-node-title' },
    h('h2', { id: 'per-node-title' }, 'Per node and per iteration'),
    h('div', { class: 'table-wrap flat' }, h('table', { class: 'table compact', 'aria-label': 'Bounds per node and per iteration' },
      h('thead', {}, h('tr', {}, ['Scope', `Start (${unit})`, `Span (${unit})`, `ABE (${unit})`, `CPE (${unit})`, 'Tasks', 'Span vs ABE', 'Span vs CPE']
        .map((t, i) => h('th', { scope: 'col', class: i ? 'num' : null }, t)))),
      h('tbody', {}, rows.map((r) => h('tr', { dataset: { scope: r.label } },
        h('th', { scope: 'row' }, r.label),
        h('td', { class: 'num' }, fmtTime(r.start)), h('td', { class: 'num' }, fmtTime(r.span)),
        h('td', { class: 'num' }, fmtTime(r.abe)), h('td', { class: 'num' }, fmtTime(r.cpe)),
        h('td', { class: 'num' }, r.tasks === undefined ? '' : formatNumber(r.tasks)),
        h('td', { class: 'num' }, gapText(r.span, r.abe)), h('td', { class: 'num' }, gapText(r.span, r.cpe))))))));
}

// Fig. 3e: per resource type, one line per task type: a bar for the actual
// count and a bullet for the LP's ideal count.
function allocationPanel(b, unit) {
  const alloc = b.allocation || [];
  const byRes = new Map();
  for (const a of alloc) {
    if (!byRes.has(a.resource_type)) byRes.set(a.resource_type, []);
    byRes.get(a.resource_type).push(a);
  }
  const max = Math.max(1, ...alloc.map((a) => Math.max(a.actual || 0, a.ideal || 0)));
  const panel = h('section', { class: 'panel', 'aria-labelledby': 'alloc-title' },
    h('h2', { id: 'alloc-title' }, 'Task allocation: actual vs ideal (ABE)'));
  if (!alloc.length) { panel.appendChild(h('p', { class: 'muted' }, 'No allocation (no task in the filter).')); return panel; }
  const grid = h('div', { class: 'alloc-grid' });
  for (const [res, list] of byRes) {
    list.sort((x, y) => x.type.localeCompare(y.type));
    grid.appendChild(allocChart(res, list, max, unit));
  }
  panel.append(grid, h('p', { class: 'help' },
    h('span', { class: 'alloc-key-bar' }), ' actual number of tasks · ', h('span', { class: 'alloc-key-ideal' }),
    ' ideal number in the area-bound solution. A bar far past its bullet means this resource type ran too many tasks of this type.'));
  return panel;
}

function allocChart(res, list, max, unit) {
  const rowH = 26, labelW = 110, valueW = 150, barW = 300;
  const width = labelW + barW + valueW, height = list.length * rowH + 22;
  const s = svg('svg', { class: 'alloc-chart', width, height, role: 'img', 'aria-label': `Allocation on ${res}` });
  const x = (v) => labelW + (v / max) * barW;
  for (let t = 0; t <= 4; t++) {
    const v = (max * t) / 4;
    s.appendChild(svg('line', { class: 'alloc-grid-line', x1: x(v), x2: x(v), y1: 0, y2: height - 18 }));
    const tx = svg('text', { class: 'alloc-tick', x: x(v), y: height - 4, 'text-anchor': 'middle' });
    tx.textContent = formatNumber(Math.round(v));
    s.appendChild(tx);
  }
  list.forEach((a, i) => {
    const y = i * rowH;
    const g = svg('g', { class: 'alloc-row', 'data-type': a.type, 'data-resource': res, 'data-actual': a.actual, 'data-ideal': a.ideal });
    const lab = svg('text', { class: 'alloc-label', x: labelW - 8, y: y + rowH / 2, dy: '0.35em', 'text-anchor': 'end' });
    lab.textContent = a.type;
    g.appendChild(lab);
    g.appendChild(svg('rect', { class: 'alloc-bar', x: labelW, y: y + 6, width: Math.max(0, x(a.actual || 0) - labelW), height: rowH - 12, fill: typeColor(a.type) }));
    const ix = x(a.ideal || 0);
    g.appendChild(svg('line', { class: 'alloc-ideal-stem', x1: ix, x2: ix, y1: y + 3, y2: y + rowH - 3 }));
    g.appendChild(svg('circle', { class: 'alloc-ideal', cx: ix, cy: y + rowH / 2, r: 4.5 }));
    const val = svg('text', { class: 'alloc-value', x: labelW + barW + 8, y: y + rowH / 2, dy: '0.35em' });
    val.textContent = `${formatNumber(a.actual)} (ideal ${formatNumber(Math.round((a.ideal || 0) * 10) / 10)})`;
    g.appendChild(val);
    const title = svg('title');
    title.textContent = `${a.type} on ${res}: ${a.actual} tasks run, ${formatNumber(a.ideal)} in the ABE solution; `
      + `mean duration ${fmtTime(a.mean_duration, unit)} on ${a.workers} workers`;
    g.appendChild(title);
    s.appendChild(g);
  });
  return h('figure', { class: 'alloc-figure' }, h('figcaption', {}, `${res} (${list[0].workers ?? '?'} workers)`), s);
}

function outliersPanel(o, trace, unit) {
  const groups = o.groups || [];
  const tasks = o.tasks || [];
  const link = (t) => {
    const pad = Math.max((t.end - t.start) * 4, 1e-6);
    return `#/traces/${trace.id}/gantt?start=${+(t.start - pad).toPrecision(10)}&end=${+(t.end + pad).toPrecision(10)}`;
  };
  return h('section', { class: 'panel', 'aria-labelledby': 'outliers-title' },
    h('h2', { id: 'outliers-title' }, `Outliers: ${formatNumber(o.count)} task${o.count === 1 ? '' : 's'}`),
    h('p', { class: 'help' }, 'A task is an outlier when it lasts longer than Q3 + 1.5·IQR of the tasks of its type on its resource type; the Gantt draws outliers in a darker colour.'),
    h('div', { class: 'table-wrap flat' }, h('table', { class: 'table compact', 'aria-label': 'Outlier thresholds' },
      h('thead', {}, h('tr', {}, ['Type', 'Resource', 'Tasks', `Q1 (${unit})`, `Q3 (${unit})`, `Threshold (${unit})`, 'Outliers']
        .map((c, i) => h('th', { scope: 'col', class: i > 1 ? 'num' : null }, c)))),
      h('tbody', {}, groups.map((g) => h('tr', {},
        h('td', {}, h('span', { class: 'swatch', style: `background:${typeColor(g.type)}` }), g.type),
        h('td', {}, g.resource_type), h('td', { class: 'num' }, formatNumber(g.tasks)),
        h('td', { class: 'num' }, fmtTime(g.q1)), h('td', { class: 'num' }, fmtTime(g.q3)),
        h('td', { class: 'num' }, fmtTime(g.threshold)),
        h('td', { class: `num ${g.outliers ? 'text-error' : ''}` }, formatNumber(g.outliers))))))),
    tasks.length ? h('div', { class: 'table-wrap flat outlier-tasks' }, h('table', { class: 'table compact', 'aria-label': 'Outlier tasks' },
      h('thead', {}, h('tr', {}, ['JobId', 'Type', 'Worker', `Start (${unit})`, `Duration (${unit})`, 'vs threshold', '']
        .map((c, i) => h('th', { scope: 'col', class: i > 2 && i < 6 ? 'num' : null }, c)))),
      h('tbody', {}, tasks.slice(0, 50).map((t) => h('tr', {},
        h('td', {}, h('code', {}, t.job_id)), h('td', {}, t.type), h('td', {}, t.worker || '—'),
        h('td', { class: 'num' }, fmtTime(t.start)), h('td', { class: 'num' }, fmtTime(t.duration)),
        h('td', { class: 'num' }, t.threshold > 0 ? `×${(t.duration / t.threshold).toFixed(2)}` : '—'),
        h('td', {}, h('a', { href: link(t) }, 'show in Gantt'))))))) : null,
    tasks.length > 50 || o.count > tasks.length
      ? h('p', { class: 'muted small' }, `The 50 first of ${formatNumber(o.count)} are listed; GET /api/v1/traces/${trace.id}/outliers has them all.`) : null);
}
