// lib/live_causality.js: the metric-causality table d of the live-run page
// (Fig. 6.5; spec_pdes_dmv.md 3.4 and 4.2): one row per metric with the
// Granger F-test p-value (direction "from": metric -> target; "to": target
// -> metric), the F statistic, the orthogonalised impulse response at
// horizon 1 (IR) and the variance decomposition (VD); significant rows
// (p < threshold) have a yellow background. Sortable by IR or VD (or p,
// metric) by clicking the column head, |value| descending first.
import { LIVE } from '../colors.js';
import { h } from '../dom.js';
import { formatNumber } from './format.js';

const num = (v) => (v === null || v === undefined || Number.isNaN(v) ? null : Number(v));
const fmt = (v) => (num(v) === null ? '–' : Math.abs(v) !== 0 && (Math.abs(v) < 1e-3 || Math.abs(v) >= 1e6) ? Number(v).toExponential(2) : formatNumber(+Number(v).toPrecision(3)));

export const CAUSALITY_COLUMNS = [
  ['metric', 'Metric', 'text'], ['p', 'p-value', 'asc'], ['f', 'F', 'desc'], ['ir1', 'IR', 'abs'], ['vd1', 'VD', 'abs'],
];

// rows sorted by key: 'ir1' and 'vd1' by |value| descending, 'p' ascending,
// 'f' descending, 'metric' by name; dir -1 reverses. Missing values last.
export function sortCausality(rows, key, dir = 1) {
  const col = CAUSALITY_COLUMNS.find((c) => c[0] === key) || CAUSALITY_COLUMNS[3];
  const val = (r) => (col[2] === 'abs' ? (num(r[key]) === null ? null : Math.abs(r[key])) : col[2] === 'text' ? String(r[key]) : num(r[key]));
  return rows.slice().sort((a, b) => {
    const va = val(a), vb = val(b);
    if (va === null || vb === null) return (va === null) - (vb === null);
    let c;
    if (col[2] === 'text') c = va.localeCompare(vb);
    else if (col[2] === 'asc') c = va - vb;
    else c = vb - va;
    return dir * c || String(a.metric).localeCompare(String(b.metric));
  });
}

// causality: the message's causality block; sort: {key, dir};
// onSort(key). Returns the table element.
export function causalityTable(causality, sort, onSort) {
  const rows = sortCausality((causality && causality.rows) || [], sort.key, sort.dir);
  const head = h('tr', {}, CAUSALITY_COLUMNS.map(([key, label]) => {
    const active = sort.key === key;
    return h('th', { scope: 'col', class: key === 'metric' ? null : 'num', 'aria-sort': active ? (sort.dir > 0 ? 'descending' : 'ascending') : null },
      h('button', { type: 'button', class: `live-sort${active ? ' is-active' : ''}`, 'data-sort': key,
        title: `Sort by ${label}${key === 'ir1' || key === 'vd1' ? ' (largest magnitude first)' : ''}; click again to reverse`,
        onclick: () => onSort(key) }, label, active ? (sort.dir > 0 ? ' ▾' : ' ▴') : ''));
  }), h('th', { scope: 'col' }, 'Significant'));
  const body = rows.map((r) => h('tr', {
    class: `live-causality-row${r.significant ? ' is-significant' : ''}`, 'data-metric': r.metric,
    style: r.significant ? `background:${LIVE.significant}` : null,
  },
  h('th', { scope: 'row', class: 'live-causality-metric' }, r.metric),
  h('td', { class: 'num', 'data-key': 'p' }, fmt(r.p)),
  h('td', { class: 'num', 'data-key': 'f' }, fmt(r.f)),
  h('td', { class: 'num', 'data-key': 'ir1', 'data-value': num(r.ir1) ?? '' }, fmt(r.ir1)),
  h('td', { class: 'num', 'data-key': 'vd1', 'data-value': num(r.vd1) ?? '' }, fmt(r.vd1)),
  h('td', {}, r.significant ? 'yes' : 'no')));
  return h('table', { class: 'table table-compact live-causality-table', 'aria-label': 'Metric causality' },
    h('thead', {}, head), h('tbody', {}, body));
}

// The causality rows as a CSV table [header, rows].
export function causalityCsv(causality) {
  const c = causality || {};
  return [['target', 'direction', 'p_order', 't_used', 'metric', 'p_value', 'f', 'ir1', 'vd1', 'significant'],
    (c.rows || []).map((r) => [c.target, c.direction, c.p, c.t_used, r.metric, r.p, r.f, r.ir1, r.vd1, r.significant ? 1 : 0])];
}
