// views/supergraph.js: CallFlow's super graph of a call-graph profile as a
// Sankey diagram (spec_callflow.md 2.12-2.13, 3.1-3.2): supernodes (modules,
// functions or a module map's groups) left to right by level, node height
// proportional to inclusive time, colour by exclusive or inclusive time, the
// exclusive share hatched at the bottom of each bar (where no edge leaves),
// edges proportional to the inclusive time flowing into their target, a mini
// histogram of the per-rank inclusive times above every bar, and tooltips
// with the callers, the entry functions and the metrics.
//
// Click a node to select it: the panel below shows its metrics, its entry
// functions and callers, buttons to split it (by entry function, by caller,
// or into its functions) and the histogram of its per-rank times, which can
// be brushed to compare those ranks with the others: the view then shows the
// two super graphs, coloured by the difference of exclusive time.
//
// On an event trace (kind events: the CCT derived from the calls) the nodes
// are coloured by function by default, with the colour every view of the
// trace gives it (colors.js functionColor), and a click on a node also
// highlights its function in every view (lib/function_focus.js, `fn=` in the
// URL): the focused function's nodes stay, the others dim.
//
// The server does the graph (GET /traces/{id}/supergraph); this module does
// the layout (d3-sankey) and the drawing. Every setting lives in the URL.//
// Code map: SupergraphView holds the state and the panels (load, save,
// controls, splits, selection and details); the module-level functions
// below it do the legends and the node tooltips (nodeTip, showTip); the
// layout, the bars and the links are lib/sankey.js's, shared with the
// ensemble views.
import { api } from '../api.js';
import { h, clear, modal } from '../dom.js';
import { getD3 } from '../d3.js';
import { registerView } from '../trace.js';
import { errorBox } from '../settings.js';
import { SUPERGRAPH, heatScale, differenceScale, functionColor } from '../colors.js';
import { svg } from '../lib/svg.js';
import { fmtValue, fmtShare, rangesText, formatNumber } from '../lib/format.js';
import { createTooltip } from '../lib/tooltip.js';
import { profileUnit } from '../lib/profile_unit.js';
import { layoutGraph, hatchPattern, drawLinks, highlightLinks, drawNode } from '../lib/sankey.js';
import { getFocus, setFocus, toggleFocus, subscribe, focusFromParams } from '../lib/function_focus.js';

registerView({ id: 'supergraph', title: 'Super graph', kinds: ['profile', 'events'], render: renderSupergraph });

const DEFAULTS = { group_by: 'module', filter: '0.1', collapse: 'mean', color: 'exc' };
const SPLIT_TITLES = { entry: 'by entry function', caller: 'by caller', callsite: 'into functions' };

function parseSplits(text) {
  if (!text) return [];
  try {
    const v = JSON.parse(text);
    return Array.isArray(v) ? v.filter((s) => s && typeof s.id === 'string')
      .map((s) => ({ id: s.id, by: SPLIT_TITLES[s.by] ? s.by : 'entry' })) : [];
  } catch { return []; }
}

// ---- the view ------------------------------------------------------------------

async function renderSupergraph(el, trace, params, setParams, { signal, onDispose }) {
  const view = new SupergraphView(el, trace, params, setParams, signal);
  if (view.events && onDispose) onDispose(subscribe(() => { view.save(); view.showFocus(); view.drawFocusLegend(); }));
  await view.load();
}

// The function a node stands for on an event trace: its single entry
// function, else its name (a module or a group of functions).
const fnOf = (n) => (n.entry_functions && n.entry_functions.length === 1 ? n.entry_functions[0].name : n.name);

class SupergraphView {
  constructor(el, trace, params, setParams, signal) {
    this.d3 = getD3();
    this.trace = trace;
    this.setParams = setParams;
    this.signal = signal;
    this.events = trace.kind === 'events';
    this.defaults = this.events ? { ...DEFAULTS, color: 'fn' } : DEFAULTS;
    if (this.events) focusFromParams(params, trace.id);
    this.st = { ...this.defaults, ...params };
    if (this.st.color === 'fn' && !this.events) this.st.color = DEFAULTS.color;
    this.st.splits = parseSplits(params.split);
    this.data = null;
    el.classList.add('sg-view');
    this.status = h('span', { class: 'sg-status small muted', role: 'status', 'aria-live': 'polite' });
    this.controls = h('div', { class: 'sg-controls', role: 'group', 'aria-label': 'Super graph settings' });
    this.splitBar = h('div', { class: 'sg-splits', 'aria-label': 'Splits' });
    this.legend = h('div', { class: 'sg-legend', 'aria-label': 'Legend' });
    this.chart = h('div', { class: 'sg-chart', id: 'sg-chart' });
    this.tip = createTooltip(el, 'sg-tooltip');
    this.details = h('section', { class: 'panel sg-details', 'aria-label': 'Selected node' });
    el.append(this.controls, h('section', { class: 'panel sg-panel', 'aria-label': 'Super graph' },
      h('div', { class: 'sg-head' }, this.legend, this.status), this.splitBar, this.chart), this.details);
  }

  // The settings into the URL (defaults left out).
  save(push = false) {
    const st = this.st;
    const DEFAULTS = this.defaults;
    this.setParams({
      group_by: st.group_by === DEFAULTS.group_by ? null : st.group_by,
      map: st.group_by === 'map' ? st.map : null,
      filter: st.filter === DEFAULTS.filter ? null : st.filter,
      collapse: st.collapse === DEFAULTS.collapse ? null : st.collapse,
      color: st.color === DEFAULTS.color ? null : st.color,
      metric: st.metric || null,
      split: st.splits.length ? JSON.stringify(st.splits) : null,
      ranks: st.ranks || null,
      node: st.node || null,
      ...(this.events ? { fn: getFocus() } : {}),
    }, { push });
  }

  // The query of GET /supergraph for the current settings.
  query() {
    const st = this.st;
    return {
      group_by: st.group_by, map: st.group_by === 'map' ? st.map : '', filter: st.filter,
      collapse: st.collapse, metric: st.metric || '',
      split: st.splits.length ? JSON.stringify(st.splits) : '',
    };
  }

  async load() {
    const { st, chart } = this;
    this.status.textContent = 'Computing the super graph…';
    chart.classList.add('loading');
    try {
      this.data = await api.get(`/traces/${this.trace.id}/supergraph`, { ...this.query(), ranks: st.ranks || '' },
        { signal: this.signal });
    } catch (e) {
      chart.classList.remove('loading');
      this.status.textContent = '';
      clear(chart).appendChild(errorBox(e, 'compute the super graph'));
      return;
    }
    chart.classList.remove('loading');
    // the unit shown: declared by the profile, or inferred (lib/profile_unit.js)
    this.unit = profileUnit(this.trace, this.data.metric, this.data.root_inclusive);
    this.data.metric.unit = this.unit.unit;
    if (st.node && !this.data.nodes.some((n) => n.id === st.node)) st.node = null;
    this.drawAll();
  }

  drawAll() {
    const data = this.data;
    this.drawControls();
    this.drawSplits();
    const f = data.filter;
    this.status.textContent = `${data.nodes.length} nodes, ${data.edges.length} edges · ${formatNumber(f.kept)} of `
      + `${formatNumber(f.total)} call sites shown (filter ${f.percent}% of the root's ${f.by === 'exc' ? 'exclusive' : 'inclusive'} time)`
      + ` · ${data.processes} processes · values: ${data.collapse} over ranks`
      + ` · unit: ${this.unit.unit ? (/^1 /.test(fmtValue(1, this.unit.unit)) ? fmtValue(1, this.unit.unit).slice(2) : this.unit.unit) : 'none'}${this.unit.note ? ' (inferred)' : ''}`
      + (data.duplicates ? ` · ${data.duplicates} duplicated to avoid cycles` : '');
    clear(this.chart);
    clear(this.legend);
    this.fnLegend = null;
    if (data.brush) this.drawBrushed();
    else this.drawSingle();
    this.showFocus();
    this.drawDetails();
  }

  // ---- controls and splits ----

  drawControls() {
    const { st, data } = this;
    const reload = (push) => { this.save(push); this.load(); };
    const metrics = (data.metrics || []).map((m) => [m.name, m.name]);
    const filterInput = h('input', { id: 'sg-filter', class: 'input input-narrow', type: 'number', min: 0, max: 100,
      step: 0.1, value: st.filter, onchange: (e) => {
        const v = Number(e.target.value);
        if (!Number.isFinite(v) || v < 0 || v > 100) { e.target.value = st.filter; return; }
        st.filter = String(v); reload();
      } });
    const ranksInput = h('input', { id: 'sg-ranks', class: 'input input-narrow', type: 'text', value: st.ranks || '',
      placeholder: 'e.g. 0-3', 'aria-describedby': 'sg-ranks-help' });
    // The API takes '0-3,7': no blanks, no trailing comma.
    const applyRanks = () => { st.ranks = ranksInput.value.replace(/\s+/g, '').replace(/,+$/, ''); reload(true); };
    ranksInput.addEventListener('keydown', (e) => { if (e.key === 'Enter') applyRanks(); });
    clear(this.controls).append(
      selectField('sg-metric', 'Metric', data.metric.name, metrics, (v) => { st.metric = v; reload(); }),
      selectField('sg-color', 'Colour by', st.color,
        [...(this.events ? [['fn', 'Function']] : []), ['exc', 'Exclusive time'], ['inc', 'Inclusive time']],
        (v) => { st.color = v; this.save(); this.drawAll(); }),
      selectField('sg-group', 'Group by', st.group_by,
        [['module', 'Module'], ['name', 'Function (call graph)'], ['file', 'File'], ['map', 'Module map…']],
        async (v) => {
          if (v === 'map' && !(await this.editMap())) { this.drawControls(); return; }
          st.group_by = v; st.splits = []; st.node = null; reload(true);
        }),
      st.group_by === 'map' ? h('div', { class: 'sg-field' }, h('span', { class: 'sg-label' }, '\u00a0'),
        h('button', { type: 'button', class: 'btn btn-small', onclick: async () => {
          if (await this.editMap()) { st.splits = []; reload(true); }
        } }, 'Edit map')) : '',
      h('div', { class: 'sg-field' }, h('label', { for: 'sg-filter' }, 'Filter (% of root)'), filterInput),
      selectField('sg-collapse', 'Over ranks', st.collapse, [['mean', 'Mean'], ['max', 'Max'], ['sum', 'Sum'], ['median', 'Median']],
        (v) => { st.collapse = v; reload(); }),
      h('div', { class: 'sg-field sg-ranks' }, h('label', { for: 'sg-ranks' }, 'Compare ranks'),
        h('div', { class: 'sg-inline' }, ranksInput,
          h('button', { type: 'button', class: 'btn btn-small', onclick: applyRanks }, 'Compare'),
          st.ranks ? h('button', { type: 'button', class: 'btn btn-small', onclick: () => {
            st.ranks = ''; reload(true);
          } }, 'Clear') : null),
        h('span', { id: 'sg-ranks-help', class: 'sr-only' }, 'Ranks and ranges, or brush the histogram of a node below')));
  }

  // The module map dialog; resolves true when a valid map was applied.
  async editMap() {
    const { st } = this;
    const area = h('textarea', { id: 'sg-map-input', class: 'input mono', rows: 8, spellcheck: 'false' },
      st.map || '{\n  "MPI": ["^MPI_", "^PMPI_"],\n  "Physics": "^(Calc|Eval|Apply)"\n}');
    let ok = false;
    const res = await modal({
      title: 'Module map',
      body: h('div', { class: 'form-grid' },
        h('label', { for: 'sg-map-input' }, 'Modules and the regular expressions (POSIX extended) of their function names'),
        area, h('p', { class: 'help' }, 'The first matching rule wins; functions no rule matches keep the profile\'s module (or their name).')),
      buttons: [{ label: 'Cancel', value: null }, { label: 'Apply', value: 'ok', primary: true }],
      onSubmit: async () => {
        try {
          await api.get(`/traces/${this.trace.id}/supergraph`, { group_by: 'map', map: area.value, filter: st.filter });
          st.map = area.value;
          ok = true;
          return true;
        } catch (e) { return e.message; }
      },
    });
    return res === 'ok' && ok;
  }

  drawSplits() {
    const { st, splitBar } = this;
    clear(splitBar);
    if (!st.splits.length) { splitBar.hidden = true; return; }
    splitBar.hidden = false;
    splitBar.append(h('span', { class: 'small muted' }, 'Splits:'),
      ...st.splits.map((s, i) => h('span', { class: 'chip sg-chip' }, `${s.id} ${SPLIT_TITLES[s.by]}`,
        h('button', { type: 'button', class: 'sg-chip-x', 'aria-label': `Undo the split of ${s.id}`,
          title: 'Undo this split (and the later ones)', onclick: () => {
            st.splits = st.splits.slice(0, i); this.save(true); this.load();
          } }, '×'))),
      h('button', { type: 'button', class: 'btn btn-small', onclick: () => { st.splits = []; this.save(true); this.load(); } }, 'Reset splits'));
  }

  // ---- the graphs ----

  // One super graph coloured by exclusive or inclusive time, or on an
  // event trace by function.
  drawSingle() {
    const { d3, st, data } = this;
    if (st.color === 'fn') {
      this.fnLegend = h('div', { class: 'sg-fn-legend', id: 'sg-fn-legend', role: 'group', 'aria-label': 'Functions' });
      this.legend.append(this.fnLegend, staticLegend(), this.unitNote() || '');
      this.drawFocusLegend();
      const height = Math.max(420, Math.min(620, 120 + data.nodes.length * 14));
      this.drawGraph(this.chart, data.nodes, data.edges, {
        height, fill: (n) => functionColor(fnOf(n)), title: null, root: data.root_inclusive,
      });
      return;
    }
    const key = st.color === 'inc' ? 'inclusive' : 'exclusive';
    const max = d3.max(data.nodes.map((n) => n[key])) || 1;
    const scale = heatScale(d3, [0, max * 1.08]);
    this.legend.append(gradientLegend(scale, 0, max,
      `Colour: ${st.color === 'inc' ? 'inclusive' : 'exclusive'} time${/^time( \(inc\))?$/.test(data.metric.name) ? '' : `, ${data.metric.name.replace(/ \(inc\)$/, '')}`} (${data.collapse} over ranks)`, data.metric.unit),
    staticLegend(), this.unitNote() || '');
    const height = Math.max(420, Math.min(620, 120 + data.nodes.length * 14));
    this.drawGraph(this.chart, data.nodes, data.edges, {
      height, fill: (n) => scale(n[key]), title: null, root: data.root_inclusive,
    });
  }

  // The selected ranks' and the other ranks' graphs, coloured by the
  // difference of exclusive time.
  drawBrushed() {
    const { d3, data } = this;
    const b = data.brush;
    const diff = new Map(b.difference.map((d) => [d.id, d.exclusive]));
    const m = Math.max(b.domain[1], 1e-12);
    const scale = differenceScale(d3, [m, 0, -m]); // red: the selection spends more
    this.legend.append(divergingLegend(scale, m, data.metric.unit), staticLegend(), this.unitNote() || '');
    const meta = new Map(data.nodes.map((n) => [n.id, n]));
    for (const [side, title] of [['selected', `Selected ranks ${rangesText(b.ranks)} (${b.selected.processes} processes)`],
      ['rest', `Other ranks (${b.rest.processes} processes)`]]) {
      const nodes = b[side].nodes.map((v) => ({ ...meta.get(v.id), ...v }));
      const rootInc = d3.sum(nodes.filter((n) => n.level === 0), (n) => n.inclusive);
      const box = h('div', { class: 'sg-side', id: `sg-side-${side}` }, h('h3', { class: 'sg-side-title' }, title));
      this.chart.appendChild(box);
      this.drawGraph(box, nodes, b[side].edges, {
        height: 330, fill: (n) => scale(diff.get(n.id) || 0), root: rootInc,
        extra: (n) => [['Δ exclusive (selected − rest)', fmtValue(diff.get(n.id), data.metric.unit)]],
      });
    }
  }

  // Lays out and draws nodes/edges into `box`.
  drawGraph(box, nodesIn, edgesIn, opts) {
    const width = Math.max(640, box.clientWidth || this.chart.clientWidth || 1200);
    const unit = this.data.metric.unit;
    const { graph, columns } = layoutGraph(this.d3, nodesIn, edgesIn, width, opts.height);
    const root = svg('svg', { class: 'sg-svg', width, height: opts.height, viewBox: `0 0 ${width} ${opts.height}`, role: 'img',
      'aria-label': 'Super graph: nodes are groups of call sites, left to right from the program root' });
    box.appendChild(root);
    root.appendChild(svg('defs', {}, hatchPattern()));
    const gLinks = svg('g', { class: 'sg-links' });
    const gNodes = svg('g', { class: 'sg-nodes' });
    root.append(gLinks, gNodes);
    const tip = this.tip;
    drawLinks(this.d3, gLinks, graph.links, unit, opts.root, tip);
    for (const n of graph.nodes) {
      const g = drawNode(n, {
        selected: n.id === this.st.node, unit, columns, width, root: opts.root, fill: opts.fill(n),
      });
      g.addEventListener('mousemove', (ev) => tip.show(ev, nodeTip(n, unit, opts, (id) => this.nodeColour(id))));
      g.addEventListener('mouseleave', tip.hide);
      if (this.events) g.dataset.fn = fnOf(n);
      g.addEventListener('click', () => this.selectNode(n.id));
      g.addEventListener('keydown', (ev) => { if (ev.key === 'Enter' || ev.key === ' ') { ev.preventDefault(); this.selectNode(n.id); } });
      g.addEventListener('mouseenter', () => highlightLinks(gLinks, n.id, true));
      g.addEventListener('mouseleave', () => highlightLinks(gLinks, n.id, false));
      gNodes.appendChild(g);
    }
  }

  // Where the unit of the values comes from, when the profile does not say it.
  unitNote() {
    return this.unit.note ? h('span', { class: 'small muted sg-unit-note', id: 'sg-unit-note' }, `Unit: ${this.unit.note}.`) : null;
  }

  // The fill of node `id` as drawn (for the callers in the tooltips).
  nodeColour(id) {
    const el = this.chart.querySelector(`.sg-node[data-id="${CSS.escape(id)}"] .sg-bar`);
    return el ? el.getAttribute('fill') : SUPERGRAPH.missingNode;
  }

  // ---- selection and details ----

  // The keys of the functions drawn (event traces coloured by function):
  // a click highlights the function in every view.
  drawFocusLegend() {
    if (!this.fnLegend || !this.data) return;
    const focus = getFocus();
    const names = [...new Set(this.data.nodes.map(fnOf))];
    clear(this.fnLegend).append(h('span', { class: 'small' }, 'Colour: function'),
      ...names.map((name) => h('button', {
        type: 'button', class: `legend-item legend-fn${focus === name ? ' is-focused' : ''}${focus && focus !== name ? ' is-dimmed' : ''}`,
        'data-fn': name, 'aria-pressed': focus === name ? 'true' : 'false', title: 'Highlight this function in every view',
        onclick: () => toggleFocus(name),
      }, h('span', { class: 'swatch', style: `background:${functionColor(name)}` }), name)));
  }

  // The shared function highlight on the nodes (event traces).
  showFocus() {
    if (!this.events) return;
    const focus = getFocus();
    this.chart.dataset.focus = focus || '';
    for (const g of this.chart.querySelectorAll('.sg-node')) {
      g.classList.toggle('is-focused', focus !== null && g.dataset.fn === focus);
      g.classList.toggle('is-dimmed', focus !== null && g.dataset.fn !== focus);
    }
  }

  selectNode(id) {
    const { st } = this;
    st.node = st.node === id ? null : id;
    if (this.events) { // the node's function highlighted everywhere (cleared with the selection)
      const n = st.node && this.data.nodes.find((x) => x.id === st.node);
      setFocus(n ? fnOf(n) : null);
    }
    this.save();
    for (const g of this.chart.querySelectorAll('.sg-node')) g.classList.toggle('selected', g.dataset.id === st.node);
    this.drawDetails();
  }

  split(id, by) {
    const { st } = this;
    st.splits = [...st.splits, { id, by }];
    st.node = null;
    this.save(true);
    this.load();
  }

  async drawDetails() {
    const { st, data, details } = this;
    clear(details);
    const n = st.node && data.nodes.find((x) => x.id === st.node);
    if (!n) {
      details.append(h('p', { class: 'muted sg-hint' },
        'Click a node to see its entry functions, its callers and the distribution of its time over the ranks, ',
        'to split it, or to brush ranks and compare them with the others.'));
      return;
    }
    const unit = data.metric.unit;
    const canSplitEntry = n.entry_function_count > 1 || n.functions > 1;
    const canSplitCaller = n.caller_count > 1;
    const why = splitReasons(n, canSplitEntry, canSplitCaller);
    const hist = h('div', { class: 'sg-histogram', id: 'sg-histogram' }, h('p', { class: 'muted small' }, 'Loading the ranks…'));
    details.append(
      h('div', { class: 'sg-details-head' },
        h('div', {}, h('h2', { id: 'sg-node-title' }, n.name, ' ', h('span', { class: `sg-kind sg-kind-badge-${n.kind}` }, n.kind)),
          h('p', { class: 'small muted' }, `${n.id} · ${formatNumber(n.functions)} call site${n.functions === 1 ? '' : 's'}`
            + (n.module !== n.name ? ` · ${n.module}` : ''))),
        h('div', { class: 'sg-actions' },
          h('button', { type: 'button', class: 'btn btn-small', disabled: !canSplitEntry, id: 'sg-split-entry',
            title: why.entry || 'One node per entry function', 'aria-describedby': why.entry ? 'sg-why' : null,
            onclick: () => this.split(n.id, 'entry') }, 'Split by entry function'),
          h('button', { type: 'button', class: 'btn btn-small', disabled: !canSplitCaller, id: 'sg-split-caller',
            title: why.caller || 'One node per calling node', 'aria-describedby': why.caller ? 'sg-why' : null,
            onclick: () => this.split(n.id, 'caller') }, 'Split by caller'),
          h('button', { type: 'button', class: 'btn btn-small', disabled: n.functions < 2, id: 'sg-expand',
            title: why.expand || 'One node per function', 'aria-describedby': why.expand ? 'sg-why' : null,
            onclick: () => this.split(n.id, 'callsite') }, 'Expand functions'),
          why.text ? h('p', { class: 'disabled-why', id: 'sg-why' }, why.text) : null)),
      h('div', { class: 'sg-details-grid' },
        h('div', {},
          h('table', { class: 'kv' }, h('tbody', {},
            [['Inclusive', fmtValue(n.inclusive, unit)], ['Exclusive', fmtValue(n.exclusive, unit)],
              ['Share of the root', fmtShare(data.root_inclusive > 0 ? n.inclusive / data.root_inclusive : NaN)],
              ['Level', String(n.level)]].map(([k, v]) => h('tr', {}, h('th', { scope: 'row' }, k), h('td', {}, v))))),
          listTable('Entry functions', n.entry_function_count, ['Function', 'Inclusive', 'Exclusive'],
            (n.entry_functions || []).map((e) => [e.name, fmtValue(e.inclusive, unit), fmtValue(e.exclusive, unit)])),
          listTable('Callers', n.caller_count, ['Caller → entry', 'From node', 'Inclusive'],
            (n.callers || []).map((c) => [`${c.function} → ${c.entry}`, c.node_name, fmtValue(c.inclusive, unit)]))),
        hist));
    try {
      const d = await api.get(`/traces/${this.trace.id}/supergraph`, { ...this.query(), detail: n.id }, { signal: this.signal });
      if (st.node !== n.id) return;
      this.rankHistogram(hist, d.detail.processes, unit);
    } catch (e) {
      clear(hist).appendChild(errorBox(e, 'load the ranks of this node'));
    }
  }

  // The histogram of one node's per-process inclusive time, brushable.
  rankHistogram(box, procs, unit) {
    const { d3, st } = this;
    clear(box);
    const vals = procs.map((p) => ({ rank: p.rank, thread: p.thread, v: p.inclusive ?? 0 }));
    const W = Math.max(360, box.clientWidth || 460), H = 190, m = { l: 44, r: 12, t: 10, b: 48 };
    const ext = d3.extent(vals, (d) => d.v);
    if (ext[0] === ext[1]) { ext[0] -= Math.abs(ext[0]) * 0.05 || 1; ext[1] += Math.abs(ext[1]) * 0.05 || 1; }
    const nb = Math.min(20, Math.max(5, Math.ceil(Math.sqrt(vals.length)) * 2));
    const x = d3.scaleLinear().domain(ext).range([m.l, W - m.r]);
    const step = (ext[1] - ext[0]) / nb;
    const bins = Array.from({ length: nb }, (_, i) => ({ x0: ext[0] + i * step, x1: ext[0] + (i + 1) * step, items: [] }));
    for (const d of vals) bins[Math.min(nb - 1, Math.max(0, Math.floor((d.v - ext[0]) / step)))].items.push(d);
    const y = d3.scaleLinear().domain([0, d3.max(bins, (b) => b.items.length) || 1]).nice().range([H - m.b, m.t]);
    const root = d3.select(box).append('svg').attr('width', W).attr('height', H).attr('class', 'sg-hist-svg')
      .attr('role', 'img').attr('aria-label', 'Histogram of the inclusive time of this node over the ranks');
    root.append('g').attr('transform', `translate(0,${H - m.b})`).call(d3.axisBottom(x).ticks(5).tickFormat((v) => fmtValue(v, unit, 6)))
      .call((g) => g.selectAll('text').attr('class', 'sg-axis-text'));
    root.append('g').attr('transform', `translate(${m.l},0)`).call(d3.axisLeft(y).ticks(Math.min(4, y.domain()[1])).tickFormat(d3.format('d')));
    root.append('text').attr('x', m.l).attr('y', H - 8).attr('class', 'sg-axis-label').text('Inclusive time per rank');
    root.append('g').selectAll('rect').data(bins).join('rect')
      .attr('x', (b) => x(b.x0) + 0.5).attr('width', (b) => Math.max(0, x(b.x1) - x(b.x0) - 1))
      .attr('y', (b) => y(b.items.length)).attr('height', (b) => y(0) - y(b.items.length)).attr('class', 'sg-hist-bar')
      .append('title').text((b) => `${b.items.length} process${b.items.length === 1 ? '' : 'es'}: ranks `
        + `${rangesText(b.items.map((d) => d.rank)) || '—'}\n${fmtValue(b.x0, unit)} – ${fmtValue(b.x1, unit)}`);
    const info = h('p', { class: 'small muted sg-brush-info' }, 'Brush the histogram to select ranks.');
    const compare = h('button', { type: 'button', class: 'btn btn-small btn-primary', disabled: true, id: 'sg-compare',
      title: 'Brush the histogram first: select some ranks, not all of them' }, 'Compare with the other ranks');
    let chosen = [];
    const brush = d3.brushX().extent([[m.l, m.t], [W - m.r, H - m.b]]).on('brush end', (ev) => {
      if (!ev.selection) { chosen = []; } else {
        const [a, b] = ev.selection.map(x.invert);
        chosen = vals.filter((d) => d.v >= a && d.v <= b).map((d) => d.rank);
      }
      const all = new Set(vals.map((d) => d.rank));
      const sel = new Set(chosen);
      compare.disabled = sel.size === 0 || sel.size === all.size;
      compare.title = compare.disabled ? 'Brush the histogram first: select some ranks, not all of them' : '';
      info.textContent = sel.size ? `Ranks ${rangesText(chosen)} (${sel.size} of ${all.size})` : 'Brush the histogram to select ranks.';
    });
    root.append('g').attr('class', 'sg-brush').call(brush);
    compare.addEventListener('click', () => { st.ranks = rangesText(chosen); this.save(true); this.load(); });
    box.append(h('div', { class: 'sg-hist-foot' }, info, compare));
  }
}

// ---- controls ------------------------------------------------------------------

function selectField(id, label, value, options, onchange) {
  const s = h('select', { id, class: 'input input-small', onchange: (e) => onchange(e.target.value) },
    options.map(([v, t]) => h('option', { value: v, selected: v === value }, t)));
  return h('div', { class: 'sg-field' }, h('label', { for: id }, label), s);
}

// Why each split of node n is unavailable ('' when it is available), and one
// sentence for all of them, shown under the buttons.
function splitReasons(n, canEntry, canCaller) {
  const entry = canEntry ? '' : `Needs two entry functions or more: ${n.name} is entered through one function only`;
  const caller = canCaller ? '' : `Needs two callers or more: ${n.name} is called from ${n.caller_count ? 'one node only' : 'no node (it is a root)'}`;
  const expand = n.functions >= 2 ? '' : `Needs two functions or more: ${n.name} holds one function`;
  const off = [entry && 'split by entry function', caller && 'split by caller', expand && 'expand'].filter(Boolean);
  const text = off.length ? `Not available (${off.join(', ')}): ${[entry, caller, expand].filter(Boolean)
    .map((s) => s.replace(/^Needs /, 'needs ').replace(/: .*$/, '')).join('; ')}. `
    + `${n.name} has ${n.entry_function_count} entry function${n.entry_function_count === 1 ? '' : 's'}, `
    + `${n.caller_count} caller${n.caller_count === 1 ? '' : 's'} and ${n.functions} function${n.functions === 1 ? '' : 's'}.` : '';
  return { entry, caller, expand, text };
}

function listTable(title, total, cols, rows) {
  return h('div', { class: 'sg-list' }, h('h3', {}, `${title} (${total})`),
    rows.length === 0 ? h('p', { class: 'muted small' }, 'None (a root).')
      : h('table', { class: 'table compact' },
        h('thead', {}, h('tr', {}, cols.map((c, i) => h('th', { scope: 'col', class: i ? 'num' : null }, c)))),
        h('tbody', {}, rows.slice(0, 12).map((r) => h('tr', {}, r.map((v, i) => h('td', { class: i ? 'num' : 'name-cell' }, v)))))),
    rows.length > 12 ? h('p', { class: 'small muted' }, `${total - 12} more.`) : null);
}

// ---- layout ----------------------------------------------------------------------

// ---- tooltips ---------------------------------------------------------------------

// nodeColour(id): the fill of a caller's node.
function nodeTip(n, unit, opts, nodeColour) {
  const rows = [
    ['Inclusive', `${fmtValue(n.inclusive, unit)} (${fmtShare(opts.root > 0 ? n.inclusive / opts.root : NaN)})`],
    ['Exclusive', `${fmtValue(n.exclusive, unit)} (${fmtShare(n.inclusive > 0 ? n.exclusive / n.inclusive : NaN)} of the node)`],
  ];
  if (n.filtered > 0) rows.push(['Filtered callees', fmtValue(n.filtered, unit)]);
  if (n.histogram) rows.push(['Ranks (inclusive)', `${fmtValue(n.histogram.min, unit)} – ${fmtValue(n.histogram.max, unit)}`]);
  if (opts.extra) rows.push(...opts.extra(n));
  const callers = (n.callers || []).slice(0, 6);
  const entries = (n.entry_functions || []).slice(0, 6);
  return h('div', {},
    h('div', { class: 'tt-title' }, n.name, h('span', { class: `sg-kind sg-kind-badge-${n.kind}` }, n.kind)),
    n.module && n.module !== n.name ? h('div', { class: 'tt-sub' }, n.module) : null,
    h('table', {}, h('tbody', {}, rows.map(([k, v]) => h('tr', {}, h('th', {}, k), h('td', { class: 'num' }, v))))),
    callers.length ? h('div', { class: 'tt-section' }, h('div', { class: 'tt-head' }, `Callers (${n.caller_count})`),
      h('table', {}, h('tbody', {}, callers.map((c) => h('tr', {},
        h('th', {}, h('span', { class: 'sg-square', style: `background:${nodeColour(c.node)}` }),
          `${c.function} → ${c.entry}`), h('td', { class: 'num' }, fmtValue(c.inclusive, unit))))))) : null,
    entries.length ? h('div', { class: 'tt-section' }, h('div', { class: 'tt-head' }, `Entry functions (${n.entry_function_count})`),
      h('table', {}, h('tbody', {}, entries.map((e) => h('tr', {}, h('th', {}, e.name),
        h('td', { class: 'num' }, `${fmtValue(e.inclusive, unit)} incl.`)))))) : null,
    h('div', { class: 'tt-hint' }, 'Click to select, split or see its ranks'));
}

function staticLegend() {
  return h('div', { class: 'sg-legend-notes small muted' },
    h('span', { class: 'sg-swatch sg-swatch-hatch' }), 'exclusive share (bottom of a bar)',
    h('span', { class: 'sg-swatch sg-swatch-hist' }), 'ranks by inclusive time (mini histogram)');
}

// A horizontal colour ramp with its domain.
function gradientLegend(scale, lo, hi, title, unit) {
  const id = `sg-grad-${Math.random().toString(36).slice(2, 8)}`;
  const ramp = svg('svg', { width: 170, height: 12, class: 'sg-ramp', 'aria-hidden': 'true' });
  const grad = svg('linearGradient', { id });
  for (let i = 0; i <= 10; i++) grad.appendChild(svg('stop', { offset: `${i * 10}%`, 'stop-color': scale(lo + (hi - lo) * i / 10) }));
  const defs = svg('defs');
  defs.appendChild(grad);
  ramp.append(defs, svg('rect', { width: 170, height: 12, fill: `url(#${id})`, rx: 2 }));
  return h('div', { class: 'sg-legend-item' }, h('span', { class: 'small' }, title),
    h('span', { class: 'small muted' }, fmtValue(lo, unit)), ramp, h('span', { class: 'small muted' }, fmtValue(hi, unit)));
}

function divergingLegend(scale, m, unit) {
  const id = `sg-div-${Math.random().toString(36).slice(2, 8)}`;
  const ramp = svg('svg', { width: 170, height: 12, class: 'sg-ramp', 'aria-hidden': 'true' });
  const grad = svg('linearGradient', { id });
  for (let i = 0; i <= 10; i++) grad.appendChild(svg('stop', { offset: `${i * 10}%`, 'stop-color': scale(-m + 2 * m * i / 10) }));
  const defs = svg('defs');
  defs.appendChild(grad);
  ramp.append(defs, svg('rect', { width: 170, height: 12, fill: `url(#${id})`, rx: 2 }));
  return h('div', { class: 'sg-legend-item' }, h('span', { class: 'small' }, 'Δ exclusive time, selected − other ranks'),
    h('span', { class: 'small muted' }, fmtValue(-m, unit)), ramp, h('span', { class: 'small muted' }, `+${fmtValue(m, unit)}`));
}
