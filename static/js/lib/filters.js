// lib/filters.js: the task filters shared by the Gantt, the comparison, the
// bounds, the regression and the elimination tree: their URL form, their
// API query and the filter bar.
import { h } from '../dom.js';
import { typeColor } from '../colors.js';

// URL params -> {types, resources, nodes, min_duration} (arrays of strings; '' = none).
export function readFilters(params) {
  const list = (s) => (s ? String(s).split(',').map((x) => x.trim()).filter(Boolean) : []);
  const md = Number.parseFloat(params.min_duration);
  return {
    types: list(params.types), resources: list(params.resources), nodes: list(params.nodes),
    min_duration: Number.isFinite(md) && md > 0 ? md : 0,
  };
}

// Filters -> API query (and URL params): empty lists are left out.
export function filterQuery(f) {
  return {
    types: f.types.join(','), resources: f.resources.join(','), nodes: f.nodes.join(','),
    min_duration: f.min_duration > 0 ? f.min_duration : '',
  };
}

export function filtersActive(f) {
  return f.types.length + f.resources.length + f.nodes.length > 0 || f.min_duration > 0;
}

// The resource types and nodes of a trace, from its summary (the import's
// worker counts) or, failing that, from gantt rows.
export function traceResources(trace, rows = []) {
  const s = trace.summary || {};
  let resources = s.workers && typeof s.workers === 'object' ? Object.keys(s.workers) : [];
  let nodes = Number.isInteger(s.nodes) && s.nodes > 0 ? [...Array(s.nodes).keys()].map(String) : [];
  if (!resources.length) resources = [...new Set(rows.map((r) => r.resource_type))];
  if (!nodes.length) nodes = [...new Set(rows.map((r) => String(r.node)))];
  return { resources: resources.sort(), nodes: nodes.sort((a, b) => a - b) };
}

// The filter bar: task-type chips (which double as the colour legend),
// resource-type and node toggles, a minimum duration. onChange(filters) is
// called after each change; an empty list means "all".
export function filterBar({ types, resources, nodes, unit, filters, onChange }) {
  const f = { ...filters, types: [...filters.types], resources: [...filters.resources], nodes: [...filters.nodes] };
  const emit = () => onChange({ ...f, types: [...f.types], resources: [...f.resources], nodes: [...f.nodes] });
  const group = (label, key, values, render) => {
    if (values.length < 1) return null;
    const boxes = values.map((v) => {
      const input = h('input', { type: 'checkbox', value: v, checked: f[key].length === 0 || f[key].includes(v) });
      input.addEventListener('change', () => {
        const on = boxes.filter((b) => b.checked).map((b) => b.value);
        if (on.length === 0) { input.checked = true; return; } // never filter everything out
        f[key] = on.length === values.length ? [] : on;
        emit();
      });
      return input;
    });
    const all = h('button', { type: 'button', class: 'btn btn-tiny', title: `Show every ${label.toLowerCase().replace(/s$/, '')}`,
      onclick: () => { for (const b of boxes) b.checked = true; f[key] = []; emit(); } }, 'All');
    return h('fieldset', { class: `fgroup fgroup-${key}` },
      h('legend', {}, label),
      values.map((v, i) => h('label', { class: 'chip' }, boxes[i], render(v))), values.length > 1 ? all : null);
  };
  let timer = 0;
  const md = h('input', { type: 'number', class: 'input input-narrow', min: 0, step: 'any', id: 'filter-min-duration',
    value: f.min_duration > 0 ? String(f.min_duration) : '', placeholder: '0' });
  md.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      const v = Number.parseFloat(md.value);
      f.min_duration = Number.isFinite(v) && v > 0 ? v : 0;
      emit();
    }, 400);
  });
  return h('div', { class: 'filter-strip', role: 'group', 'aria-label': 'Filters' },
    group('Task types', 'types', types, (t) => [h('span', { class: 'swatch', style: `background:${typeColor(t)}` }), t]),
    group('Resources', 'resources', resources, (r) => r),
    nodes.length > 1 ? group('Nodes', 'nodes', nodes, (n) => `node ${n}`) : null,
    h('div', { class: 'fgroup' },
      h('label', { for: 'filter-min-duration', class: 'fgroup-label' }, `Min. duration (${unit})`), md));
}
