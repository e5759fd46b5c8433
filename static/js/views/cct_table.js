// views/cct_table.js: the "Call sites" tab of a profile: every calling
// context of the CCT in a table sortable by any metric (mean over ranks, from
// GET /traces/{id}/cct), and for the selected call site CallFlow's histogram
// view of its per-rank values with the ranks in each bin (GET
// /nodes/{node}/ranks), the correlation scatter of two metrics over the
// ranks with the least-squares line and its statistics (GET /scatter), and
// the text tree of Hatchet's tree() for one rank (GET /tree), with a copy
// button. The sort, the filter and the selection live in the URL.
// Every value is shown in its metric's unit as the super graph shows it
// (lib/profile_unit.js: declared, or inferred with a note saying so); hovers
// use the dashboard tooltip (lib/tooltip.js), no SVG <title>.
import { api } from '../api.js';
import { h, clear } from '../dom.js';
import { getD3 } from '../d3.js';
import { registerView } from '../trace.js';
import { errorBox } from '../settings.js';
import { fmtValue, fmtShare, fmtPrecision, rangesText, formatNumber } from '../lib/format.js';
import { profileUnit } from '../lib/profile_unit.js';
import { createTooltip, tipContent, d3Tip } from '../lib/tooltip.js';

registerView({ id: 'callsites', title: 'Call sites', kinds: ['profile', 'events'], render: renderCallSites });

const MAX_ROWS = 400;

async function renderCallSites(el, trace, params, setParams) {
  const d3 = getD3();
  el.classList.add('ct-view');
  const st = {
    filter: params.filter ?? '0.1', sort: params.sort || '', desc: params.order !== 'asc',
    node: params.node !== undefined && /^\d+$/.test(params.node) ? Number(params.node) : null,
    metric: params.metric || '', x: params.x || '', y: params.y || '', rank: params.rank || '0',
  };
  const save = () => setParams({ filter: st.filter === '0.1' ? null : st.filter, sort: st.sort || null,
    order: st.desc ? null : 'asc', node: st.node, metric: st.metric || null, x: st.x || null, y: st.y || null,
    rank: st.rank === '0' ? null : st.rank });

  const toolbar = h('div', { class: 'ct-toolbar', role: 'group', 'aria-label': 'Call site settings' });
  const tableBox = h('div', { class: 'ct-table-wrap' });
  const note = h('p', { class: 'small muted', role: 'status' });
  const unitNote = h('p', { class: 'small muted ct-unit-note', id: 'ct-unit-note' });
  const tip = createTooltip(el, 'ct-tooltip');
  const histPanel = h('section', { class: 'panel', 'aria-labelledby': 'ct-hist-title' });
  const scatterPanel = h('section', { class: 'panel', 'aria-labelledby': 'ct-scatter-title' });
  const treePanel = h('section', { class: 'panel', 'aria-labelledby': 'ct-tree-title' });
  el.append(h('section', { class: 'panel', 'aria-label': 'Call sites' }, toolbar, note, unitNote, tableBox),
    h('div', { class: 'ct-grid' }, histPanel, scatterPanel), treePanel);

  let cct;
  try {
    cct = await api.get(`/traces/${trace.id}/cct`, { filter: Number(st.filter) / 100 || '' });
  } catch (e) {
    el.replaceChildren(errorBox(e, 'load the calling context tree'));
    return;
  }
  const metrics = cct.metrics.map((m) => m.name);
  // The unit of each metric (the root's inclusive value decides an
  // undeclared time unit, for both variants of the metric).
  const units = new Map(cct.metrics.map((m) => [m.name, profileUnit(trace, m, cct.root_inclusive)]));
  const unitOf = new Map([...units].map(([k, u]) => [k, u.unit]));
  const notes = [...new Set([...units.values()].map((u) => u.note).filter(Boolean))];
  unitNote.textContent = notes.length ? `Units: ${notes.join('; ')}.` : '';
  const incName = cct.inclusive_metric || metrics[0];
  if (!metrics.includes(st.metric)) st.metric = incName;
  if (!metrics.includes(st.sort) && st.sort !== 'name') st.sort = incName;
  if (!metrics.includes(st.x)) st.x = incName;
  if (!metrics.includes(st.y)) st.y = metrics.find((m) => m !== st.x) || st.x;
  const rows = cct.tree;
  const byId = new Map(rows.map((r) => [r.id, r]));
  if (st.node !== null && !byId.has(st.node)) st.node = null;
  if (st.node === null && rows.length) st.node = rows[0].id;

  // -- toolbar --
  const filterInput = h('input', { id: 'ct-filter', class: 'input input-narrow', type: 'number', min: 0, max: 100, step: 0.1,
    value: st.filter, onchange: (e) => {
      const v = Number(e.target.value);
      if (!Number.isFinite(v) || v < 0 || v > 100) { e.target.value = st.filter; return; }
      st.filter = String(v); save(); window.dispatchEvent(new HashChangeEvent('hashchange'));
    } });
  const search = h('input', { id: 'ct-search', class: 'input', type: 'search', placeholder: 'Function, module or file',
    oninput: () => drawTable() });
  toolbar.append(
    h('div', { class: 'sg-field' }, h('label', { for: 'ct-search' }, 'Search'), search),
    h('div', { class: 'sg-field' }, h('label', { for: 'ct-filter' }, 'Filter (% of root, inclusive)'), filterInput));

  function value(r, m) {
    const v = r.metrics && r.metrics[m];
    return v && typeof v.mean === 'number' ? v.mean : null;
  }

  function drawTable() {
    const q = search.value.trim().toLowerCase();
    let list = q ? rows.filter((r) => `${r.name} ${r.module} ${r.file}`.toLowerCase().includes(q)) : rows.slice();
    const dir = st.desc ? -1 : 1;
    if (st.sort === 'name') list.sort((a, b) => dir * a.name.localeCompare(b.name));
    else list.sort((a, b) => dir * ((value(a, st.sort) ?? -Infinity) - (value(b, st.sort) ?? -Infinity)));
    const shown = list.slice(0, MAX_ROWS);
    note.textContent = `${formatNumber(list.length)} call sites${q ? ' match' : ''} (of ${formatNumber(cct.nodes)}; `
      + `filter ${st.filter}% of the root's inclusive time) · values: mean over ${cct.processes ?? 'the'} processes`
      + (list.length > shown.length ? ` · showing the first ${MAX_ROWS}` : '');
    const header = (key, label, num) => h('th', { scope: 'col', class: num ? 'num' : null,
      'aria-sort': st.sort === key ? (st.desc ? 'descending' : 'ascending') : 'none' },
    h('button', { type: 'button', onclick: () => {
      if (st.sort === key) st.desc = !st.desc; else { st.sort = key; st.desc = key !== 'name'; }
      save(); drawTable();
    } }, label));
    const root = cct.root_inclusive;
    const hasModule = rows.some((r) => r.module), hasFile = rows.some((r) => r.file);
    clear(tableBox).appendChild(h('table', { class: 'table compact ct-table', id: 'ct-table' },
      h('thead', {}, h('tr', {}, header('name', 'Call site', false), hasModule ? h('th', { scope: 'col' }, 'Module') : null,
        hasFile ? h('th', { scope: 'col' }, 'File') : null, metrics.map((m) => header(m, `${m}${unitOf.get(m) && !isTimeUnit(unitOf.get(m)) ? ` (${unitOf.get(m)})` : ''}`, true)),
        h('th', { scope: 'col', class: 'num' }, 'Share'))),
      h('tbody', {}, shown.map((r) => h('tr', { class: r.id === st.node ? 'selected' : null, 'data-id': r.id, tabindex: 0,
        onclick: () => select(r.id), onkeydown: (e) => { if (e.key === 'Enter') select(r.id); } },
      h('td', { class: 'ct-name', title: r.name }, `${'\u2002'.repeat(Math.min(r.depth, 12))}${r.name}`),
      hasModule ? h('td', { class: 'small' }, r.module ? r.module.split('/').pop() : '—') : null,
      hasFile ? h('td', { class: 'small' }, r.file ? `${r.file.split('/').pop()}${r.line ? `:${r.line}` : ''}` : '—') : null,
      metrics.map((m) => h('td', { class: 'num' }, fmtValue(value(r, m), unitOf.get(m)))),
      h('td', { class: 'num' }, fmtShare(root > 0 ? value(r, incName) / root : NaN)))))));
  }

  function select(id) {
    st.node = id;
    save();
    for (const tr of tableBox.querySelectorAll('tbody tr')) tr.classList.toggle('selected', Number(tr.dataset.id) === id);
    drawHistogram();
    drawScatter();
  }

  // -- histogram of one node's per-rank values --
  async function drawHistogram() {
    const node = byId.get(st.node);
    const metricSel = h('select', { id: 'ct-hist-metric', class: 'input input-small', onchange: (e) => { st.metric = e.target.value; save(); drawHistogram(); } },
      metrics.map((m) => h('option', { value: m, selected: m === st.metric }, m)));
    const body = h('div', {}, h('p', { class: 'muted small' }, 'Loading…'));
    clear(histPanel).append(h('div', { class: 'sg-details-head' },
      h('h2', { id: 'ct-hist-title' }, 'Ranks of ', h('code', {}, node ? node.name : '—')),
      h('div', { class: 'sg-field' }, h('label', { for: 'ct-hist-metric' }, 'Metric'), metricSel)), body);
    if (!node) return;
    let d;
    try {
      d = await api.get(`/traces/${trace.id}/nodes/${node.id}/ranks`, { metric: st.metric, bins: 12 });
    } catch (e) { clear(body).appendChild(errorBox(e, 'load the ranks')); return; }
    const unit = unitOf.get(st.metric) || '';
    const W = 520, H = 200, m = { l: 44, r: 30, t: 10, b: 44 };
    const bins = d.histogram || [];
    const lo = bins.length ? bins[0].lo : 0, hi = bins.length ? bins[bins.length - 1].hi : 1;
    const x = d3.scaleLinear().domain([lo, hi === lo ? lo + 1 : hi]).range([m.l, W - m.r]);
    const y = d3.scaleLinear().domain([0, d3.max(bins, (b) => b.count) || 1]).nice().range([H - m.b, m.t]);
    const svg = d3.create('svg').attr('viewBox', `0 0 ${W} ${H}`).attr('width', '100%').attr('class', 'ct-hist')
      .attr('role', 'img').attr('aria-label', `Histogram of ${st.metric} over the ranks`);
    svg.append('g').attr('transform', `translate(0,${H - m.b})`).call(d3.axisBottom(x).ticks(5).tickFormat((v) => fmtValue(v, unit)));
    const maxCount = d3.max(bins, (b) => b.count) || 1;
    svg.append('g').attr('transform', `translate(${m.l},0)`).call(d3.axisLeft(y).ticks(Math.min(4, maxCount)).tickFormat(d3.format('d')));
    svg.append('text').attr('x', m.l).attr('y', H - 6).attr('class', 'sg-axis-label').text(`${st.metric} per process${axisUnit(unit)}`);
    svg.append('text').attr('transform', `translate(11 ${(m.t + H - m.b) / 2}) rotate(-90)`).attr('text-anchor', 'middle')
      .attr('class', 'sg-axis-label').text('processes');
    svg.append('g').selectAll('rect').data(bins).join('rect').attr('class', 'sg-hist-bar')
      .attr('x', (b) => x(b.lo) + 0.5).attr('width', (b) => Math.max(1, x(b.hi) - x(b.lo) - 1))
      .attr('y', (b) => y(b.count)).attr('height', (b) => y(0) - y(b.count))
      .call(d3Tip, tip, (b) => tipContent(`${fmtValue(b.lo, unit)} – ${fmtValue(b.hi, unit)}`,
        [['Processes', formatNumber(b.count)], ['Ranks', rangesText(b.ranks || [])]], null, st.metric));
    const s = d.stats || {};
    clear(body).append(svg.node(),
      h('p', { class: 'small ct-stats' }, `n = ${s.count} · min ${fmtValue(s.min, unit)} · mean ${fmtValue(s.mean, unit)} · `
        + `max ${fmtValue(s.max, unit)} · σ ${fmtValue(s.stddev, unit)} · imbalance ${Number.isFinite(s.imbalance) ? s.imbalance.toFixed(3) : '—'}`),
      h('table', { class: 'table compact' }, h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Bin'),
        h('th', { scope: 'col', class: 'num' }, 'Count'), h('th', { scope: 'col' }, 'Ranks'))),
      h('tbody', {}, bins.filter((b) => b.count > 0).map((b) => h('tr', {},
        h('td', { class: 'small' }, `${fmtValue(b.lo, unit)} – ${fmtValue(b.hi, unit)}`), h('td', { class: 'num' }, b.count),
        h('td', { class: 'ct-bin-ranks' }, rangesText(b.ranks || [])))))));
  }

  // -- scatter of two metrics over the ranks --
  async function drawScatter() {
    const node = byId.get(st.node);
    const pick = (id, key, label) => h('div', { class: 'sg-field' }, h('label', { for: id }, label),
      h('select', { id, class: 'input input-small', onchange: (e) => { st[key] = e.target.value; save(); drawScatter(); } },
        metrics.map((mm) => h('option', { value: mm, selected: mm === st[key] }, mm))));
    const body = h('div', {}, h('p', { class: 'muted small' }, 'Loading…'));
    clear(scatterPanel).append(h('div', { class: 'sg-details-head' },
      h('h2', { id: 'ct-scatter-title' }, 'Correlation over ranks'),
      h('div', { class: 'sg-inline' }, pick('ct-x', 'x', 'x'), pick('ct-y', 'y', 'y'))), body);
    if (!node) return;
    let d;
    try {
      d = await api.get(`/traces/${trace.id}/scatter`, { node: node.id, x: st.x, y: st.y });
    } catch (e) { clear(body).appendChild(errorBox(e, 'load the scatter plot')); return; }
    const W = 520, H = 220, m = { l: 56, r: 30, t: 10, b: 40 };
    const pts = d.points || [];
    const pad = (e) => (e[0] === e[1] ? [e[0] - 1, e[1] + 1] : e);
    const x = d3.scaleLinear().domain(pad(d3.extent(pts, (p) => p.x))).nice().range([m.l, W - m.r]);
    const y = d3.scaleLinear().domain(pad(d3.extent(pts, (p) => p.y))).nice().range([H - m.b, m.t]);
    const svg = d3.create('svg').attr('viewBox', `0 0 ${W} ${H}`).attr('width', '100%').attr('role', 'img')
      .attr('aria-label', `Scatter plot of ${st.y} against ${st.x} over the ranks`);
    svg.append('g').attr('transform', `translate(0,${H - m.b})`).call(d3.axisBottom(x).ticks(5).tickFormat((v) => fmtValue(v, unitOf.get(st.x))));
    svg.append('g').attr('transform', `translate(${m.l},0)`).call(d3.axisLeft(y).ticks(5).tickFormat((v) => fmtValue(v, unitOf.get(st.y))));
    svg.append('text').attr('x', W - m.r).attr('y', H - 6).attr('text-anchor', 'end').attr('class', 'sg-axis-label').text(`${st.x}${axisUnit(unitOf.get(st.x))}`);
    svg.append('text').attr('x', m.l + 4).attr('y', m.t + 8).attr('class', 'sg-axis-label').text(`${st.y}${axisUnit(unitOf.get(st.y))}`);
    const f = d.fit || {};
    if (Number.isFinite(f.slope) && Number.isFinite(f.intercept)) {
      const [x0, x1] = x.domain();
      svg.append('line').attr('class', 'ct-fit').attr('x1', x(x0)).attr('x2', x(x1))
        .attr('y1', y(f.slope * x0 + f.intercept)).attr('y2', y(f.slope * x1 + f.intercept))
        .call(d3Tip, tip, () => tipContent('Least-squares line', [['y =', `${f.slope.toPrecision(4)} x + ${f.intercept.toPrecision(4)}`],
          ['Pearson r', Number.isFinite(f.r) ? f.r.toFixed(4) : '—']]));
    }
    svg.append('g').selectAll('circle').data(pts).join('circle').attr('class', 'ct-scatter-dot')
      .attr('cx', (p) => x(p.x)).attr('cy', (p) => y(p.y)).attr('r', pts.length > 200 ? 2.5 : 4)
      .call(d3Tip, tip, (p) => tipContent(`rank ${p.rank}${p.thread ? ` thread ${p.thread}` : ''}`,
        [[st.x, fmtValue(p.x, unitOf.get(st.x))], [st.y, fmtValue(p.y, unitOf.get(st.y))]]));
    const num = (v) => fmtPrecision(v, 4);
    clear(body).append(svg.node(), h('p', { class: 'small ct-stats', id: 'ct-fit-stats' },
      `Least squares: y = ${num(f.slope)} · x + ${num(f.intercept)} · Pearson r = ${num(f.r)} · r² = ${num(f.r2)} · n = ${d.n}`));
  }

  // -- text tree --
  async function drawTree() {
    const ranks = [...new Set((await rankList()).map((p) => p))];
    const rankSel = h('select', { id: 'ct-tree-rank', class: 'input input-small', onchange: (e) => { st.rank = e.target.value; save(); drawTree(); } },
      ranks.map((r) => h('option', { value: r, selected: String(r) === st.rank }, `rank ${r}`)));
    const metricSel = h('select', { id: 'ct-tree-metric', class: 'input input-small', onchange: () => drawTree() },
      metrics.map((mm) => h('option', { value: mm, selected: mm === (treePanel.dataset.metric || incName) }, mm)));
    metricSel.addEventListener('change', () => { treePanel.dataset.metric = metricSel.value; });
    const pre = h('pre', { class: 'ct-tree', id: 'ct-tree-text', tabindex: 0 }, 'Loading…');
    const copy = h('button', { type: 'button', class: 'btn btn-small', id: 'ct-tree-copy', onclick: async () => {
      try { await navigator.clipboard.writeText(pre.textContent); copy.textContent = 'Copied'; } catch { copy.textContent = 'Copy failed'; }
      setTimeout(() => { copy.textContent = 'Copy'; }, 1500);
    } }, 'Copy');
    clear(treePanel).append(h('div', { class: 'sg-details-head' },
      h('h2', { id: 'ct-tree-title' }, 'Text tree (as Hatchet\'s tree())'),
      h('div', { class: 'sg-inline' }, metricSel, rankSel, copy)), pre);
    try {
      const t = await api.get(`/traces/${trace.id}/tree`, { format: 'json', metric: treePanel.dataset.metric || incName, rank: st.rank });
      pre.textContent = t.text;
    } catch (e) { pre.replaceWith(errorBox(e, 'export the tree')); }
  }

  let rankCache = null;
  async function rankList() {
    if (rankCache) return rankCache;
    try {
      const d = await api.get(`/traces/${trace.id}/nodes/${rows.length ? rows[0].id : 0}/ranks`, { bins: 1 });
      rankCache = [...new Set((d.ranks || []).map((r) => r.rank))].sort((a, b) => a - b);
    } catch { rankCache = [0]; }
    if (!rankCache.length) rankCache = [0];
    return rankCache;
  }

  drawTable();
  await Promise.all([drawHistogram(), drawScatter(), drawTree()]);
}

// A time unit: its values are written in s, ms or µs (fmtValue).
const isTimeUnit = (unit) => /^(s|sec|seconds|ms|msec|us|usec|µs|ns|nsec)$/i.test(unit || '');

// The unit an axis label names: time metrics' ticks carry s/ms/µs themselves.
function axisUnit(unit) {
  if (!unit) return ' (no unit recorded)';
  return isTimeUnit(unit) ? ' (time)' : ` (${unit})`;
}
