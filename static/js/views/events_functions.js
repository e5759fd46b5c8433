// views/events_functions.js: the "Functions" tab of an event trace (issue 19):
//   - the flat profile (GET /flat-profile): inclusive and exclusive time and
//     calls per function, sortable by any column;
//   - the time profile (GET /time-profile?bins=&normalized=): exclusive time
//     of each function per time bin as stacked areas, with the idle time;
//   - the load imbalance (GET /load-imbalance?metric=): max/mean over the
//     ranks per function, the top ranks in the tooltip;
//   - the idle time per rank (GET /idle-time): time in MPI receive and waits.
// Functions have their colour of every view (colors.js functionColor). A
// click on a function (table row, area, legend key, bar) focuses it in every
// view of the trace (lib/function_focus.js; again: clears it): the others
// dim here and in the Timeline. Every panel saves what it shows as CSV.
// URL params: sort, order, bins, norm, metric, fn.
import { api } from '../api.js';
import { h, clear } from '../dom.js';
import { registerView } from '../trace.js';
import { EVENTS, functionColor } from '../colors.js';
import { formatNumber, fmtValue, fmtTime, fmtShare, fmtPrecision } from '../lib/format.js';
import { createTooltip, tipContent } from '../lib/tooltip.js';
import { saveText, csvText } from '../lib/download.js';
import { analysisError } from '../lib/errors.js';
import { getFocus, toggleFocus, subscribe, focusFromParams } from '../lib/function_focus.js';
import { eventPanel, selectField, switchField, barsChart, stackedAreas } from '../lib/event_charts.js';

registerView({ id: 'functions', title: 'Functions', kinds: ['events'], render: renderFunctions });

const BIN_CHOICES = [10, 20, 50, 100, 200];
const SORTS = ['name', 'inclusive', 'exclusive', 'count'];
const IDLE = 'idle';

async function renderFunctions(el, trace, params, setParams, { signal, onDispose }) {
  el.classList.add('ev-view', 'ev-fn-view');
  focusFromParams(params, trace.id);
  const st = {
    sort: SORTS.includes(params.sort) ? params.sort : 'exclusive', desc: params.order !== 'asc',
    bins: BIN_CHOICES.includes(Number(params.bins)) ? Number(params.bins) : 50,
    norm: params.norm === '1', metric: params.metric === 'time.inc' ? 'time.inc' : 'time.exc',
  };
  const save = () => setParams({ sort: st.sort === 'exclusive' ? null : st.sort, order: st.desc ? null : 'asc',
    bins: st.bins === 50 ? null : st.bins, norm: st.norm ? 1 : null, metric: st.metric === 'time.exc' ? null : st.metric, fn: getFocus() });
  const tip = createTooltip(el, 'ev-tooltip');
  const unit = trace.time_unit || 'ns';
  const fmtT = (v) => fmtValue(v, unit);
  const stem = `trace${trace.id}`;
  const swatch = (name) => h('span', { class: 'swatch', style: `background:${name === IDLE ? EVENTS.idle : functionColor(name)}` });
  const dimClass = (name) => { const f = getFocus(); return f === name ? 'is-focused' : f ? 'is-dimmed' : ''; };

  const focusBar = h('div', { class: 'ev-focus-bar', role: 'status', id: 'ev-focus' });
  const flat = eventPanel({ id: 'ev-flat', title: 'Flat profile' });
  const prof = eventPanel({ id: 'ev-tprof', title: 'Time profile' });
  const imb = eventPanel({ id: 'ev-imbalance', title: 'Load imbalance' });
  const idle = eventPanel({ id: 'ev-idle', title: 'Idle time per rank' });
  el.append(focusBar, h('div', { class: 'ev-grid' }, flat.el, prof.el), h('div', { class: 'ev-grid' }, imb.el, idle.el));

  const data = { flat: null, tprof: null, imb: null, idle: null };
  const redraw = () => {
    drawFocusBar();
    if (data.flat) drawFlat();
    if (data.tprof) drawProfile();
    if (data.imb) drawImbalance();
  };
  onDispose(subscribe(() => { save(); redraw(); }));

  function drawFocusBar() {
    const f = getFocus();
    clear(focusBar).append(f
      ? h('span', {}, 'Highlighted everywhere: ', swatch(f), h('strong', { class: 'ev-focus-name' }, f), ' ',
        h('button', { type: 'button', class: 'btn btn-tiny', id: 'ev-focus-clear', onclick: () => toggleFocus(f) }, 'clear'))
      : h('span', { class: 'muted small' }, 'Click a function (row, area, bar) to highlight it in every view, the Timeline too.'));
  }

  // ---- flat profile ----
  async function loadFlat() {
    try {
      data.flat = await api.get(`/traces/${trace.id}/flat-profile`, { per: 'total' }, { signal });
    } catch (e) {
      if (e.name === 'AbortError' || e.code === 'aborted') return;
      clear(flat.body).appendChild(analysisError(e, 'load the flat profile'));
      return;
    }
    drawFlat();
  }

  function drawFlat() {
    const list = data.flat.functions.slice();
    const dir = st.desc ? -1 : 1;
    if (st.sort === 'name') list.sort((a, b) => dir * a.name.localeCompare(b.name));
    else list.sort((a, b) => dir * (a[st.sort] - b[st.sort]) || a.name.localeCompare(b.name));
    const totalExc = list.reduce((s, f) => s + f.exclusive, 0);
    flat.status.textContent = `${formatNumber(list.length)} functions · total over every location (rank × thread)`;
    const header = (key, label, num) => h('th', { scope: 'col', class: num ? 'num' : null,
      'aria-sort': st.sort === key ? (st.desc ? 'descending' : 'ascending') : 'none' },
    h('button', { type: 'button', class: 'ev-sort', 'data-sort': key, onclick: () => {
      if (st.sort === key) st.desc = !st.desc; else { st.sort = key; st.desc = key !== 'name'; }
      save(); drawFlat();
    } }, label, st.sort === key ? (st.desc ? ' ▾' : ' ▴') : ''));
    clear(flat.body).appendChild(h('div', { class: 'table-wrap ev-table-wrap ev-flat-wrap' }, h('table', { class: 'table compact ev-table', id: 'ev-flat-table' },
      h('thead', {}, h('tr', {}, header('name', 'Function', false), header('inclusive', 'Inclusive', true),
        header('exclusive', 'Exclusive', true), h('th', { scope: 'col', class: 'num' }, 'Exc. share'), header('count', 'Calls', true))),
      h('tbody', {}, list.map((f) => h('tr', { class: `ev-fn-row ${dimClass(f.name)}`, 'data-fn': f.name, tabindex: 0,
        'aria-selected': getFocus() === f.name ? 'true' : 'false',
        onclick: () => toggleFocus(f.name), onkeydown: (e) => { if (e.key === 'Enter') toggleFocus(f.name); } },
      h('td', { class: 'ev-fn-name', title: f.name }, swatch(f.name), f.name),
      h('td', { class: 'num' }, fmtT(f.inclusive)), h('td', { class: 'num' }, fmtT(f.exclusive)),
      h('td', { class: 'num' }, fmtShare(totalExc > 0 ? f.exclusive / totalExc : NaN)),
      h('td', { class: 'num' }, formatNumber(f.count))))))));
    flat.setCsv(() => saveText(`${stem}_flat_profile.csv`, csvText(['function', `inclusive_${unit}`, `exclusive_${unit}`, 'count'],
      list.map((f) => [f.name, f.inclusive, f.exclusive, f.count])), 'text/csv'));
  }

  // ---- time profile ----
  async function loadProfile() {
    clear(prof.toolbar).append(
      selectField('ev-tprof-bins', 'Bins', BIN_CHOICES.map((b) => [b, String(b)]), st.bins, (v) => { st.bins = Number(v); save(); loadProfile(); }),
      switchField('ev-tprof-norm', 'Values', [['0', 'Time'], ['1', 'Normalized']], st.norm ? '1' : '0', (v) => { st.norm = v === '1'; save(); loadProfile(); }));
    try {
      data.tprof = await api.get(`/traces/${trace.id}/time-profile`, { bins: st.bins, normalized: st.norm ? 1 : 0 }, { signal });
    } catch (e) {
      if (e.name === 'AbortError' || e.code === 'aborted') return;
      clear(prof.body).appendChild(analysisError(e, 'load the time profile'));
      return;
    }
    drawProfile();
  }

  function drawProfile() {
    const doc = data.tprof, u = doc.time_unit || unit;
    // the biggest functions at the bottom, idle on top
    const total = (s) => s.values.reduce((a, b) => a + b, 0);
    const series = doc.series.slice().sort((a, b) => total(b) - total(a));
    if (doc.idle && doc.idle.some((v) => v > 0)) series.push({ name: IDLE, values: doc.idle });
    prof.status.textContent = `Exclusive time of each function in ${doc.bins} bins of ${fmtTime(doc.bin_duration, u)}`
      + ` over ${formatNumber(doc.locations)} locations${st.norm ? ' (normalized: share of the bin’s location time)' : ''}.`;
    const body = h('div', {});
    clear(prof.body).append(body, h('div', { class: 'ari-legend ari-legend-swatches ev-fn-legend' },
      series.map((s) => h('button', { type: 'button', class: `ari-legend-key ev-fn-key ${dimClass(s.name)}`, 'data-fn': s.name,
        onclick: () => { if (s.name !== IDLE) toggleFocus(s.name); } }, swatch(s.name), s.name === IDLE ? 'idle (in no function)' : s.name))));
    stackedAreas(body, doc.edges, series, {
      colourOf: (name) => (name === IDLE ? EVENTS.idle : functionColor(name)), focus: getFocus(), tooltip: tip,
      xLabel: 'time from the trace’s start', xFormat: (v) => fmtValue(v, u, 3), yLabel: st.norm ? 'share of the bin' : 'exclusive time',
      yFormat: st.norm ? fmtShare : (v) => fmtValue(v, u, 3), label: 'time profile',
      onClick: (name) => { if (name !== IDLE) toggleFocus(name); },
      tip: (name, i) => tipContent(name === IDLE ? 'idle' : name, [
        ['Bin', `${fmtTime(doc.edges[i])} – ${fmtTime(doc.edges[i + 1], u)}`],
        [st.norm ? 'Share' : 'Exclusive time', st.norm ? fmtShare(series.find((s) => s.name === name).values[i]) : fmtValue(series.find((s) => s.name === name).values[i], u)]],
      name === IDLE ? null : 'Click: highlight in every view'),
    });
    prof.setCsv(() => saveText(`${stem}_time_profile.csv`, csvText([`bin_start_${u}`, `bin_end_${u}`, ...series.map((s) => s.name)],
      doc.edges.slice(0, -1).map((e, i) => [e, doc.edges[i + 1], ...series.map((s) => s.values[i])])), 'text/csv'));
  }

  // ---- load imbalance ----
  async function loadImbalance() {
    clear(imb.toolbar).append(selectField('ev-imb-metric', 'Metric', [['time.exc', 'exclusive time'], ['time.inc', 'inclusive time']], st.metric,
      (v) => { st.metric = v; save(); loadImbalance(); }));
    try {
      data.imb = await api.get(`/traces/${trace.id}/load-imbalance`, { metric: st.metric, top: 5 }, { signal });
    } catch (e) {
      if (e.name === 'AbortError' || e.code === 'aborted') return;
      clear(imb.body).appendChild(analysisError(e, 'load the load imbalance'));
      return;
    }
    drawImbalance();
  }

  function drawImbalance() {
    const doc = data.imb;
    const list = doc.functions.slice(0, 30);
    imb.status.textContent = `Imbalance = max / mean over the ranks of the ${doc.metric === 'time.inc' ? 'inclusive' : 'exclusive'} time; 1 is balanced.`
      + (doc.functions.length > list.length ? ` The first ${list.length} of ${doc.functions.length}.` : '');
    barsChart(imb.body, list.map((f) => ({ label: f.name, key: f.name, f, values: [f.imbalance] })),
      [{ name: 'imbalance', colourOf: (r) => functionColor(r.f.name) }], {
        labelW: 150, format: (v) => fmtPrecision(v, 3), tooltip: tip, label: 'load imbalance per function', xLabel: 'max / mean',
        isFocused: (r) => getFocus() === r.key, isDimmed: (r) => !!getFocus() && getFocus() !== r.key,
        onClick: (r) => toggleFocus(r.key),
        tip: (r) => tipContent(r.f.name, [['Imbalance', fmtPrecision(r.f.imbalance, 4)], ['Mean', fmtT(r.f.mean)], ['Max', fmtT(r.f.max)],
          ...(r.f.top_ranks || []).map((rk, i) => [`rank ${rk}`, fmtT((r.f.top_values || [])[i])])], 'Click: highlight in every view', 'the ranks with the most time'),
      });
    imb.setCsv(() => saveText(`${stem}_load_imbalance.csv`, csvText(['function', `mean_${unit}`, `max_${unit}`, 'imbalance', 'top_ranks'],
      doc.functions.map((f) => [f.name, f.mean, f.max, f.imbalance, (f.top_ranks || []).join(' ')])), 'text/csv'));
  }

  // ---- idle time per rank ----
  async function loadIdle() {
    let doc;
    try {
      doc = await api.get(`/traces/${trace.id}/idle-time`, {}, { signal });
    } catch (e) {
      if (e.name === 'AbortError' || e.code === 'aborted') return;
      clear(idle.body).appendChild(analysisError(e, 'load the idle time'));
      return;
    }
    data.idle = doc;
    idle.status.textContent = `Time in ${(doc.functions || []).join(', ')} per location.`;
    const label = (r) => `rank ${r.rank}${doc.ranks.some((x) => x.thread) ? ` · t${r.thread}` : ''}`;
    barsChart(idle.body, doc.ranks.map((r) => ({ label: label(r), key: `${r.rank}:${r.thread}`, r, values: [r.idle] })),
      [{ name: 'idle', colour: EVENTS.idleBar }], {
        labelW: 90, format: fmtT, tooltip: tip, label: 'idle time per rank', xLabel: `idle time`,
        tip: (row) => tipContent(label(row.r), [['Idle', fmtT(row.r.idle)], ['Total', fmtT(row.r.total)], ['Share', fmtShare(row.r.share)]]),
      });
    idle.setCsv(() => saveText(`${stem}_idle_time.csv`, csvText(['rank', 'thread', `idle_${unit}`, `total_${unit}`, 'share'],
      doc.ranks.map((r) => [r.rank, r.thread, r.idle, r.total, r.share])), 'text/csv'));
  }

  drawFocusBar();
  save();
  await Promise.all([loadFlat(), loadProfile(), loadImbalance(), loadIdle()]);
}
