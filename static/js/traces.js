// traces.js: the trace list page (#/traces): a filter by name and kind, a
// sort order, pagination, and per-trace rename and delete. The filters live
// in the URL (#/traces?name=chol&kind=tasks&sort=name&page=2). Task traces
// can be ticked (2 to 6) and compared side by side (#/compare?traces=3,4).
// Ensembles are listed above the traces (ensembles.js), and ticked profiles
// can be made an ensemble ("Make an ensemble").
import { api } from './api.js';
import { h, clear, modal, confirmDialog } from './dom.js';
import { formatBytes, formatDate, formatNumber } from './lib/format.js';
import { updateParams } from './router.js';
import { errorBox } from './settings.js';
import { ensembleSection, makeEnsemble } from './ensembles.js';

const PAGE_SIZE = 25;
const COMPARE_MAX = 6;
const selected = new Map(); // id -> name of the task traces ticked for comparison
const selectedProfiles = new Map(); // id -> name of the profiles ticked for an ensemble

// Only kinds that a reader of this build produces (GET /api/v1/version lists
// the formats); a kind appears here with its first reader.
export const KINDS = {
  tasks: 'Task-based runtime traces (StarPU bundles, StarVZ CSV sets, Paje): tasks on workers over time',
  profile: 'Call-graph profiles (HPCToolkit experiment.xml, Caliper .cali and JSON, Hatchet JSON, TAU profile.N.C.T)',
  datamove: 'Data-movement traces (Chrome/Kineto/Perfetto JSON with nvidia-smi CSV and hwloc topologies): transfers between devices',
  pdes: 'Sampled simulation metrics (ROSS PDES runs, metric CSVs, live runs): metrics per entity over time',
  events: 'MPI and HPC event traces (OTF2 from Score-P, Charm++ Projections, HPCToolkit trace.db): calls, messages and collectives per rank',
};

const SORTS = [
  ['-created_at', 'Newest first'], ['created_at', 'Oldest first'],
  ['name', 'Name A–Z'], ['-name', 'Name Z–A'],
  ['-bytes', 'Largest first'], ['bytes', 'Smallest first'],
];

// Counts shown in the list, in this order of preference; others follow.
const COUNT_ORDER = ['tasks', 'states', 'containers', 'nodes', 'events', 'links', 'variables'];

export function kindBadge(kind) {
  return h('span', { class: `badge badge-${kind}`, title: KINDS[kind] || kind }, kind);
}

// The first `max` non-zero counts, e.g. "3,000 tasks · 12,000 states".
export function countsSummary(counts, max = 3) {
  if (!counts) return '';
  const keys = Object.keys(counts).filter((k) => typeof counts[k] === 'number' && counts[k] > 0);
  keys.sort((a, b) => rank(a) - rank(b));
  return keys.slice(0, max).map((k) => `${formatNumber(counts[k])} ${k}`).join(' · ');
}

function rank(key) {
  const i = COUNT_ORDER.indexOf(key);
  return i < 0 ? COUNT_ORDER.length : i;
}

function readState(params) {
  const page = Number.parseInt(params.page, 10);
  return {
    name: params.name || '',
    kind: KINDS[params.kind] ? params.kind : '',
    sort: SORTS.some(([v]) => v === params.sort) ? params.sort : '-created_at',
    page: Number.isFinite(page) && page > 0 ? page : 1,
  };
}

function stateParams(s) {
  return {
    name: s.name, kind: s.kind,
    sort: s.sort === '-created_at' ? '' : s.sort,
    page: s.page > 1 ? s.page : '',
  };
}

export async function renderTraceList(el, params) {
  document.title = 'Traces · ariadne';
  const state = readState(params);
  const results = h('div', { class: 'results', 'aria-live': 'polite' });
  const ensembles = h('div', { class: 'ensembles-slot' });
  const subtitle = h('p', { class: 'page-subtitle' }, 'Loading…');
  el.append(
    h('div', { class: 'page-header' },
      h('div', {}, h('h1', {}, 'Traces'), subtitle),
      h('a', { class: 'btn btn-primary', href: '#/upload' }, 'Upload traces')),
    ensembles,
    filterBar(state, () => reload()),
    results);
  ensembleSection().then((section) => ensembles.appendChild(section));

  async function reload() {
    updateParams(stateParams(state));
    await loadPage(results, subtitle, state, reload);
  }
  await loadPage(results, subtitle, state, reload);
}

function filterBar(state, onChange) {
  let timer = 0;
  const name = h('input', {
    id: 'filter-name', type: 'search', class: 'input', value: state.name,
    placeholder: 'Part of a name…', autocomplete: 'off',
    oninput: () => {
      clearTimeout(timer);
      timer = setTimeout(() => { state.name = name.value.trim(); state.page = 1; onChange(); }, 250);
    },
  });
  const kind = h('select', {
    id: 'filter-kind', class: 'input',
    onchange: () => { state.kind = kind.value; state.page = 1; onChange(); },
  }, h('option', { value: '' }, 'All kinds'),
  Object.keys(KINDS).map((k) => h('option', { value: k, selected: k === state.kind }, k)));
  const sort = h('select', {
    id: 'filter-sort', class: 'input',
    onchange: () => { state.sort = sort.value; state.page = 1; onChange(); },
  }, SORTS.map(([v, label]) => h('option', { value: v, selected: v === state.sort }, label)));
  return h('form', { class: 'filter-bar', role: 'search', onsubmit: (e) => e.preventDefault() },
    h('div', { class: 'field' }, h('label', { for: 'filter-name' }, 'Name'), name),
    h('div', { class: 'field' }, h('label', { for: 'filter-kind' }, 'Kind'), kind),
    h('div', { class: 'field' }, h('label', { for: 'filter-sort' }, 'Sort'), sort));
}

// Loads and shows one page of traces. When filters change faster than the
// server answers, only the answer to the latest request is shown.
async function loadPage(results, subtitle, state, reload) {
  const seq = (state.seq = (state.seq || 0) + 1);
  let body;
  try {
    body = await api.get('/traces', {
      limit: PAGE_SIZE, offset: (state.page - 1) * PAGE_SIZE,
      name: state.name, kind: state.kind, sort: state.sort,
    });
    if (seq !== state.seq) return;
  } catch (e) {
    if (seq !== state.seq) return;
    subtitle.textContent = '';
    clear(results).appendChild(errorBox(e, 'load the traces'));
    return;
  }
  const filtered = Boolean(state.name || state.kind);
  subtitle.textContent = body.total === 1 ? '1 trace' : `${formatNumber(body.total)} traces`;
  if (filtered) subtitle.textContent += ' match the filter';
  clear(results);
  if (body.traces.length === 0 && state.page > 1 && body.total > 0) {
    state.page = Math.ceil(body.total / PAGE_SIZE);
    return reload();
  }
  if (body.total === 0) {
    results.appendChild(filtered ? emptyFiltered() : emptyState());
    return;
  }
  const bar = compareBar();
  const live = await liveStates(body.traces);
  if (seq !== state.seq) return;
  results.append(bar.el, traceTable(body.traces, reload, bar.update, live), pager(body, state, reload), kindLegend());
}

function emptyState() {
  return h('div', { class: 'panel empty-state' },
    h('h2', {}, 'No traces yet — upload one or run ', h('code', {}, 'deploy/run.sh'),
      ' to load the examples'),
    h('p', {}, 'Traces uploaded here are shared with everyone who uses this server: ',
      'StarPU and Paje task traces, call-graph profiles and data-movement traces.'),
    h('a', { class: 'btn btn-primary', href: '#/upload' }, 'Upload a trace'));
}

function emptyFiltered() {
  return h('div', { class: 'panel empty-state' },
    h('h2', {}, 'No trace matches'),
    h('p', {}, 'No trace matches this name and kind. ',
      h('a', { href: '#/traces' }, 'Clear the filter'), '.'));
}

// "Compare selected (n)": enabled with 2 to 6 ticked task traces.
function compareBar() {
  const button = h('a', { class: 'btn btn-small', id: 'compare-selected', role: 'button' });
  const note = h('span', { class: 'muted small' });
  const make = h('button', { type: 'button', class: 'btn btn-small', id: 'make-ensemble',
    onclick: () => { if (selectedProfiles.size >= 2) makeEnsemble(selectedProfiles).then((ok) => ok && selectedProfiles.clear()); } });
  const update = () => {
    const p = selectedProfiles.size;
    make.textContent = `Make an ensemble (${p})`;
    make.disabled = p < 2;
    make.title = p < 2 ? 'Tick 2 or more profiles to make an ensemble of them' : [...selectedProfiles.values()].join(', ');
    make.classList.toggle('btn-primary', p >= 2);
    const n = selected.size;
    const ok = n >= 2 && n <= COMPARE_MAX;
    button.textContent = `Compare selected (${n})`;
    button.setAttribute('aria-disabled', String(!ok));
    button.classList.toggle('btn-primary', ok);
    if (ok) button.href = `#/compare?traces=${[...selected.keys()].join(',')}`;
    else button.removeAttribute('href');
    note.textContent = n === 0 ? 'Tick 2 to 6 task traces to compare them side by side.'
      : n > COMPARE_MAX ? `At most ${COMPARE_MAX} traces.` : [...selected.values()].join(', ');
  };
  update();
  return { el: h('div', { class: 'compare-bar' }, button, note, make), update };
}

function selectBox(t, onChange) {
  if (t.kind === 'profile') {
    return h('input', { type: 'checkbox', class: 'select-profile', 'aria-label': `Select ${t.name} for an ensemble`,
      checked: selectedProfiles.has(t.id),
      onchange: (e) => {
        if (e.target.checked) selectedProfiles.set(t.id, t.name); else selectedProfiles.delete(t.id);
        onChange();
      } });
  }
  if (t.kind !== 'tasks') return null;
  return h('input', { type: 'checkbox', class: 'select-trace', 'aria-label': `Select ${t.name} for comparison`,
    checked: selected.has(t.id),
    onchange: (e) => { if (e.target.checked) selected.set(t.id, t.name); else selected.delete(t.id); onChange(); } });
}

// Live runs (format "stream", issue 18): trace id -> 'open' | 'closed'
// from GET /streams; an older server without it: every stream is 'open'.
async function liveStates(traces) {
  const out = new Map();
  if (!traces.some((t) => t.format === 'stream')) return out;
  let list = null;
  try { list = await api.get('/streams'); } catch { list = null; }
  const runs = Array.isArray(list) ? list : (list && (list.streams || list.runs)) || [];
  for (const r of runs) out.set(r.trace_id ?? r.id, r.state);
  for (const t of traces) if (t.format === 'stream' && !out.has(t.id)) out.set(t.id, 'open');
  return out;
}

// The "live" badge of a live run, a link to its page (#/live/{id}); a
// closed run's says "replay".
function liveBadge(t, live) {
  if (!live.has(t.id)) return null;
  const open = live.get(t.id) !== 'closed';
  return h('a', { class: `badge badge-live${open ? '' : ' is-closed'}`, href: `#/live/${t.id}`, 'data-state': open ? 'open' : 'closed',
    title: open ? 'Samples are arriving: watch the run live' : 'The run has ended: replay it on the live page' }, open ? 'live' : 'replay');
}

function traceTable(traces, reload, onSelect, live = new Map()) {
  const head = h('thead', {}, h('tr', {},
    ['', 'Name', 'Kind', 'Format', 'Size', 'Uploaded (UTC)', 'Contents', 'Actions'].map((t, i) =>
      h('th', { scope: 'col', class: i === 4 ? 'num' : i === 0 ? 'select' : null }, t || h('span', { class: 'sr-only' }, 'Compare')))));
  const rows = traces.map((t) => h('tr', { dataset: { traceId: t.id } },
    h('td', { class: 'select' }, selectBox(t, onSelect)),
    h('td', { class: 'name' },
      h('a', { href: `#/traces/${t.id}` }, t.name), liveBadge(t, live) ? ' ' : null, liveBadge(t, live),
      t.description ? h('div', { class: 'muted small' }, t.description) : null),
    h('td', {}, kindBadge(t.kind)),
    h('td', {}, t.format || ''),
    h('td', { class: 'num' }, formatBytes(t.bytes)),
    h('td', { class: 'nowrap' }, formatDate(t.created_at).replace(' UTC', '')),
    h('td', { class: 'small' }, countsSummary(t.counts)),
    h('td', { class: 'actions' },
      h('button', { type: 'button', class: 'btn btn-small', 'aria-label': `Rename ${t.name}`,
        onclick: () => renameTrace(t).then((ok) => ok && reload()) }, 'Rename'),
      h('button', { type: 'button', class: 'btn btn-small btn-danger-outline',
        'aria-label': `Delete ${t.name}`,
        onclick: () => deleteTrace(t).then((ok) => ok && reload()) }, 'Delete'))));
  return h('div', { class: 'table-wrap' },
    h('table', { class: 'table', 'aria-label': 'Traces' }, head, h('tbody', {}, rows)));
}

function pager(body, state, reload) {
  const pages = Math.max(1, Math.ceil(body.total / PAGE_SIZE));
  const first = body.offset + 1;
  const last = body.offset + body.traces.length;
  const go = (p) => { state.page = p; reload(); };
  return h('nav', { class: 'pager', 'aria-label': 'Pages' },
    h('button', { type: 'button', class: 'btn btn-small', disabled: state.page <= 1,
      onclick: () => go(state.page - 1) }, '← Previous'),
    h('span', {}, `${formatNumber(first)}–${formatNumber(last)} of ${formatNumber(body.total)}`
      + ` · page ${state.page} of ${pages}`),
    h('button', { type: 'button', class: 'btn btn-small', disabled: state.page >= pages,
      onclick: () => go(state.page + 1) }, 'Next →'));
}

function kindLegend() {
  return h('dl', { class: 'legend', 'aria-label': 'Kinds of traces' },
    Object.entries(KINDS).map(([k, text]) => h('div', {}, h('dt', {}, kindBadge(k)), h('dd', {}, text))));
}

// Asks for a new name and PATCHes it; resolves true when renamed.
export async function renameTrace(trace) {
  const input = h('input', { id: 'rename-input', class: 'input', value: trace.name,
    maxlength: 200, required: true, autocomplete: 'off' });
  const done = await modal({
    title: 'Rename trace',
    body: h('div', { class: 'form-grid' }, h('label', { for: 'rename-input' }, 'New name'), input),
    buttons: [{ label: 'Cancel', value: null }, { label: 'Rename', value: 'ok', primary: true }],
    onSubmit: async () => {
      const name = input.value.trim();
      if (name.length < 1 || name.length > 200) return 'The name must have 1 to 200 characters.';
      try {
        await api.patch(`/traces/${trace.id}`, { name });
        return true;
      } catch (e) {
        return e.message;
      }
    },
  });
  return done === 'ok';
}

// Asks for confirmation and DELETEs the trace; resolves true when deleted.
export async function deleteTrace(trace) {
  const yes = await confirmDialog('Delete trace',
    `Delete “${trace.name}” and all its analyses for everyone on this server? This cannot be undone.`,
    'Delete', true);
  if (!yes) return false;
  try {
    await api.del(`/traces/${trace.id}`);
    return true;
  } catch (e) {
    await modal({ title: 'Delete failed', body: errorBox(e, 'delete the trace'),
      buttons: [{ label: 'Close', value: 'close', primary: true }] });
    return false;
  }
}
