// ensembles.js: the ensembles of profiles in the dashboard: the section of
// the trace list that lists them (ensembleSection), the dialog that makes
// one from the ticked profiles (makeEnsemble), and the ensemble page
// #/ensembles/{id}?runs=&target=&comparison=&node=&metric=: a bar of mode
// controls (target run, compare-with run, metric, the run subset chip), the
// ensemble Sankey (views/ensemble_sankey.js), the node-detail panels
// (views/ensemble_icicle.js, _boxplots, _histogram, _scatter, loaded when
// present), the juxtaposed super graphs (views/ensemble_juxtapose.js), all
// linked through one state (lib/ensemble_state.js) kept in the URL (one
// history entry per gesture); then the members and their execution
// parameters in a table, with per-member editing (PATCH, source "user"),
// member removal, rename, delete, and a CSV of run -> parameters (POST
// .../parameters, text/csv); adding members picked from the stored profiles
// (POST .../members); the parameter projection of the runs (GET
// .../projection?k=: classical MDS, k-means clusters) as a d3 scatter
// coloured by cluster, with a k selector, where clicking a run sets the
// target (shift-click: the comparison).
// API: docs/api.md, "Ensembles of profiles".
import { api, apiUrl, getToken, ApiError } from './api.js';
import { TYPE_PALETTE } from './colors.js';
import { getD3 } from './d3.js';
import { h, clear, modal, confirmDialog } from './dom.js';
import { createTooltip, d3Tip, tipContent } from './lib/tooltip.js';
import { formatDate, formatNumber } from './lib/format.js';
import { navigate, parseHash, updateParams } from './router.js';
import { errorBox } from './settings.js';
import { createEnsembleState, stateFromParams, stateToParams } from './lib/ensemble_state.js';
import { profileUnit } from './lib/profile_unit.js';
import { mountSankey } from './views/ensemble_sankey.js';
import { mountJuxtapose } from './views/ensemble_juxtapose.js';

// ---- the section of the trace list ----

// A panel listing every ensemble (name -> its page, member count, date).
// Resolves to the element; an error of the list shows as an error box.
export async function ensembleSection() {
  const el = h('section', { class: 'ensembles-section', 'aria-label': 'Ensembles', style: 'margin-bottom: 1rem' },
    h('h2', { class: 'section-title' }, 'Ensembles'));
  let body;
  try {
    body = await api.get('/ensembles');
  } catch (e) {
    // Without a token the trace list below says so already: say it once.
    if (e.status === 401 || e.status === 403) el.hidden = true;
    else el.appendChild(h('p', { class: 'muted small' }, `The ensembles cannot be listed: ${e.message}`));
    return el;
  }
  if (body.ensembles.length === 0) {
    el.appendChild(h('p', { class: 'muted small' }, 'No ensemble yet: tick profiles below and choose ',
      h('em', {}, 'Make an ensemble'), ', or import many profiles at once with ',
      h('code', {}, 'ariadned import --ensemble NAME PATH...'), '.'));
    return el;
  }
  const rows = body.ensembles.map((e) => h('tr', { dataset: { ensembleId: e.id } },
    h('td', { class: 'name' }, h('a', { href: `#/ensembles/${e.id}` }, e.name)),
    h('td', { class: 'num' }, formatNumber(e.member_count)),
    h('td', { class: 'nowrap' }, formatDate(e.created_at).replace(' UTC', ''))));
  el.appendChild(h('div', { class: 'table-wrap' }, h('table', { class: 'table', 'aria-label': 'Ensembles' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Name'), h('th', { scope: 'col', class: 'num' }, 'Members'),
      h('th', { scope: 'col' }, 'Created (UTC)'))),
    h('tbody', {}, rows))));
  return el;
}

// Asks for a name and creates the ensemble of `profiles` (Map id -> name);
// opens its page when made. Resolves true when made.
export async function makeEnsemble(profiles) {
  const input = h('input', { id: 'ensemble-name', class: 'input', maxlength: 200, required: true,
    autocomplete: 'off', value: '' });
  const names = [...profiles.values()];
  let made = null;
  const done = await modal({
    title: 'Make an ensemble',
    body: h('div', { class: 'form-grid' },
      h('label', { for: 'ensemble-name' }, 'Name'), input,
      h('p', { class: 'muted small' }, `${names.length} profiles: ${names.slice(0, 6).join(', ')}`
        + (names.length > 6 ? ', …' : ''), '. Their execution parameters are read from each profile\'s metadata.')),
    buttons: [{ label: 'Cancel', value: null }, { label: 'Make the ensemble', value: 'ok', primary: true }],
    onSubmit: async () => {
      const name = input.value.trim();
      if (!name) return 'Give the ensemble a name.';
      try {
        made = await api.post('/ensembles', { name, members: [...profiles.keys()] });
        return true;
      } catch (e) {
        return e.message;
      }
    },
  });
  if (done !== 'ok' || !made) return false;
  navigate(['ensembles', made.id]);
  return true;
}

// ---- the ensemble page ----

let shown = null; // the ensemble page on screen, for showEnsembleParams

// Back/Forward within an ensemble page: applies the URL's parameters to the
// page on screen (its views follow the state) instead of drawing it again.
// False when that page is not on screen: the caller renders it.
export function showEnsembleParams(idText, params) {
  const page = shown && shown.el.isConnected && String(shown.ens.id) === String(idText) ? shown : null;
  if (!page || !page.state) return false;
  page.state.set(stateFromParams(params, page.ens.members));
  return true;
}

export async function renderEnsemblePage(el, id) {
  document.title = 'Ensemble · ariadne';
  let ens;
  try {
    ens = await api.get(`/ensembles/${encodeURIComponent(id)}`);
  } catch (e) {
    el.appendChild(h('section', { class: 'panel' }, errorBox(e, `load ensemble ${id}`),
      h('a', { class: 'btn', href: '#/traces' }, 'Back to the traces')));
    return;
  }
  const page = { el, ens, showConstant: false, views: [], graphs: new Map(), trace: null };
  page.initial = stateFromParams(parseHash(location.hash).params, ens.members);
  shown = page;
  draw(page);
}

function draw(page) {
  const { ens } = page;
  document.title = `${ens.name} · Ensemble · ariadne`;
  for (const v of page.views) v.destroy();
  page.views = [];
  clear(page.el).append(
    h('div', { class: 'page-header' },
      h('div', {}, h('h1', {}, ens.name),
        h('p', { class: 'page-subtitle' }, `Ensemble of ${ens.member_count} profile${ens.member_count === 1 ? '' : 's'}`
          + ` · created ${formatDate(ens.created_at)}`)),
      h('div', { class: 'actions' },
        h('button', { type: 'button', class: 'btn btn-small', onclick: () => addMembers(page) }, 'Add members'),
        h('button', { type: 'button', class: 'btn btn-small', onclick: () => renameEnsemble(page) }, 'Rename'),
        h('button', { type: 'button', class: 'btn btn-small btn-danger-outline', onclick: () => deleteEnsemble(page) },
          'Delete'),
        h('a', { class: 'btn btn-small', href: '#/traces' }, 'All traces'))),
    ...analysisSections(page),
    parameterTable(page),
    projectionPanel(page),
    csvPanel(page));
}

async function refresh(page, ens = null) {
  page.ens = ens || await api.get(`/ensembles/${page.ens.id}`);
  page.graphs.clear();
  draw(page);
}

// ---- the linked analysis views ----

// The node-detail panels of views/ (another module each, loaded when present).
const PANELS = [
  ['Icicle', 'ensemble_icicle.js', 'Supernode hierarchy'],
  ['Boxplots', 'ensemble_boxplots.js', 'Call-site correspondence'],
  ['Histogram', 'ensemble_histogram.js', 'Runtime distribution'],
  ['Scatter', 'ensemble_scatter.js', 'Metric correlation'],
];

// The state of the page's views (kept over a redraw), mirrored in the URL:
// each change a user makes is one history entry.
function makeState(page) {
  const { ens } = page;
  const prev = page.state ? stateToParams(page.state.get()) : null;
  const initial = prev ? stateFromParams(prev, ens.members) : page.initial;
  const state = createEnsembleState({ id: ens.id, members: ens.members, initial });
  updateParams(stateToParams(state.get())); // the URL without the values that were dropped
  state.subscribe((s) => updateParams(stateToParams(s), { push: true }));
  page.state = state;
  return state;
}

// The unit of the metric shown (the first member's trace tells how to read it).
function unitFor(page) {
  return (metric, maxValue) => profileUnit(page.trace || {}, { name: metric, unit: '' }, maxValue);
}

// The ensemble super graph for a query, fetched once per query (the Sankey
// and the juxtaposed view share it).
function graphLoader(page) {
  return async (query) => {
    if (!page.trace && page.ens.members.length) {
      page.trace = await api.get(`/traces/${page.ens.members[0].trace_id}`).catch(() => ({}));
    }
    const key = new URLSearchParams(query).toString();
    if (!page.graphs.has(key)) {
      const p = api.get(`/ensembles/${page.ens.id}/supergraph`, query);
      page.graphs.set(key, p);
      p.catch(() => page.graphs.delete(key));
    }
    return page.graphs.get(key);
  };
}

function analysisSections(page) {
  if (page.ens.members.length === 0) return [];
  const state = makeState(page);
  const opts = { unitFor: unitFor(page), loadGraph: graphLoader(page) };
  const sankey = h('div', { class: 'es-sankey' });
  const jux = h('div', { class: 'es-juxtapose' });
  const grid = h('div', { class: 'es-detail-grid' });
  page.views.push(mountSankey(sankey, state, opts));
  for (const panel of PANELS) grid.appendChild(detailPanel(page, panel));
  page.views.push(mountJuxtapose(jux, state, opts));
  return [
    modeBar(page),
    h('section', { class: 'panel es-panel', 'aria-label': 'Ensemble Sankey' },
      h('h2', { class: 'section-title' }, 'Ensemble super graph'),
      h('p', { class: 'muted small' }, 'Each bar is a group of call sites; its height is the largest inclusive time '
        + 'across the runs, its fill the histogram of the runs\' times (white to red: few to many runs per bin). '
        + 'Hover a bar for its text guide; click it to see it in the panels below.'), sankey),
    grid,
    h('section', { class: 'panel es-panel', 'aria-label': 'Juxtaposed super graphs' },
      h('h2', { class: 'section-title' }, 'Runs side by side'),
      h('p', { class: 'muted small' }, 'The super graphs of 2 to 4 runs with one height scale and one colour scale, '
        + 'so that bars compare across the graphs.'), jux),
  ];
}

// A panel whose view module is loaded when it exists; the page works without it.
function detailPanel(page, [name, file, title]) {
  const host = h('div', { class: 'es-detail-body' }, h('p', { class: 'muted small' }, 'Loading…'));
  const state = page.state;
  import(`./views/${file}`).then((mod) => {
    const mount = mod[`mount${name}`];
    if (typeof mount !== 'function') throw new Error(`${file} has no mount${name}`);
    if (page.state !== state) return;
    clear(host);
    page.views.push(mount(host, state));
  }).catch((e) => {
    clear(host).appendChild(h('p', { class: 'muted small es-not-available' },
      `${title}: not available in this build (${e.message}).`));
  });
  return h('section', { class: 'panel es-detail', 'aria-label': title, 'data-panel': name.toLowerCase() },
    h('h2', { class: 'section-title' }, title), host);
}

// Target, comparison, metric and the run subset chip.
function modeBar(page) {
  const bar = h('div', { class: 'es-modebar', role: 'group', 'aria-label': 'Ensemble modes' });
  const drawBar = () => clear(bar).append(...modeControls(page));
  drawBar();
  page.state.subscribe(drawBar);
  return bar;
}

function runSelect(id, label, value, members, none, onchange, disabled = false) {
  const select = h('select', { id, class: 'input input-small', disabled, onchange: (e) => onchange(e.target.value ? Number(e.target.value) : null) },
    h('option', { value: '' }, none),
    members.map((m) => h('option', { value: String(m.trace_id), selected: m.trace_id === value }, m.name)));
  return h('div', { class: 'sg-field' }, h('label', { for: id }, label), select);
}

function modeControls(page) {
  const { state } = page;
  const s = state.get();
  const members = page.ens.members;
  const mode = { ensemble: 'Ensemble summary', target: 'Target vs ensemble', diff: 'Target vs comparison (diff)' }[s.mode];
  return [
    runSelect('es-target', 'Target run', s.target, members, '— none —',
      (v) => state.set({ target: v, comparison: v == null || v === s.comparison ? null : s.comparison })),
    runSelect('es-comparison', 'Compare with (diff)', s.comparison, members.filter((m) => m.trace_id !== s.target),
      s.target == null ? 'set a target first' : '— none —', (v) => state.set({ comparison: v }), s.target == null),
    h('div', { class: 'sg-field' }, h('label', { for: 'es-metric' }, 'Metric'),
      h('select', { id: 'es-metric', class: 'input input-small', onchange: (e) => state.set({ metric: e.target.value }) },
        [['inclusive', 'Inclusive time'], ['exclusive', 'Exclusive time']].map(([v, t]) =>
          h('option', { value: v, selected: v === s.metric }, t)))),
    h('div', { class: 'sg-field' }, h('span', { class: 'sg-label' }, 'Mode'), h('span', { class: 'es-mode', id: 'es-mode' }, mode)),
    s.runs ? h('div', { class: 'sg-field' }, h('span', { class: 'sg-label' }, 'Runs shown'),
      h('span', { class: 'chip es-subset', id: 'es-subset', title: s.runs.map((r) => state.runName(r)).join(', ') },
        `${s.runs.length} of ${members.length} runs`,
        h('button', { type: 'button', class: 'btn btn-tiny', id: 'es-subset-clear', onclick: () => state.set({ runs: null }) },
          'Clear'))) : null,
  ].filter(Boolean);
}

// Keys whose value differs between members (or is missing in some).
function varyingKeys(ens) {
  return ens.parameters.filter((p) => {
    if (p.members !== ens.members.length) return true;
    const first = ens.members[0].parameters[p.key];
    return ens.members.some((m) => m.parameters[p.key] !== first);
  }).map((p) => p.key);
}

function parameterTable(page) {
  const { ens } = page;
  if (ens.members.length === 0) {
    return h('div', { class: 'panel empty-state' }, h('h2', {}, 'No member'),
      h('p', {}, 'Its profiles were deleted or removed. Tick profiles in the ', h('a', { href: '#/traces' },
        'trace list'), ' to make a new ensemble.'));
  }
  const varying = varyingKeys(ens);
  const constant = ens.parameters.map((p) => p.key).filter((k) => !varying.includes(k));
  const keys = page.showConstant ? ens.parameters.map((p) => p.key) : varying;
  const numeric = new Set(ens.numeric_parameters);
  const head = h('tr', {}, h('th', { scope: 'col' }, 'Member'), h('th', { scope: 'col', class: 'num' }, 'Trace'),
    keys.map((k) => h('th', { scope: 'col', class: numeric.has(k) ? 'num' : null, style: 'text-transform: none',
      title: numeric.has(k) ? `${k}: numeric` : `${k}: text` }, k)),
    h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Actions')));
  const rows = ens.members.map((m) => h('tr', { dataset: { traceId: m.trace_id } },
    h('td', { class: 'name nowrap' }, h('a', { href: `#/traces/${m.trace_id}` }, m.name)),
    h('td', { class: 'num' }, String(m.trace_id)),
    keys.map((k) => valueCell(m, k, numeric.has(k))),
    h('td', { class: 'actions nowrap' },
      h('button', { type: 'button', class: 'btn btn-small', 'aria-label': `Edit ${m.name}`,
        onclick: () => editMember(page, m) }, 'Edit'),
      h('button', { type: 'button', class: 'btn btn-small btn-danger-outline', 'aria-label': `Remove ${m.name}`,
        onclick: () => removeMember(page, m) }, 'Remove'))));
  const toggle = h('label', { class: 'small' }, h('input', { type: 'checkbox', checked: page.showConstant,
    onchange: (e) => { page.showConstant = e.target.checked; draw(page); } }),
  ` Show the ${constant.length} parameter${constant.length === 1 ? '' : 's'} equal for every member`);
  const note = constant.length && !page.showConstant
    ? h('p', { class: 'muted small' }, `Same for every member: ${constant.slice(0, 8).map((k) =>
      `${k} = ${ens.members[0].parameters[k]}`).join(' · ')}${constant.length > 8 ? ' · …' : ''}`) : null;
  return h('section', { class: 'panel', 'aria-label': 'Members and parameters' },
    h('h2', { class: 'section-title' }, 'Members and execution parameters'),
    h('p', { class: 'muted small' }, 'Values come from each profile\'s metadata unless edited here or set from a CSV; '
      + 'numeric parameters are right-aligned.'),
    toggle, note,
    h('div', { class: 'table-wrap' }, h('table', { class: 'table ensemble-params', 'aria-label': 'Members' },
      h('thead', {}, head), h('tbody', {}, rows))));
}

function valueCell(m, key, isNumeric) {
  const v = m.parameters[key];
  const source = m.sources[key];
  if (v === undefined) return h('td', { class: 'muted', title: 'not set' }, '—');
  return h('td', { class: `${isNumeric ? 'num ' : ''}source-${source}`, title: `${key} from ${source}` },
    v.length > 60 ? `${v.slice(0, 57)}…` : v, source !== 'metadata' ? h('sup', { class: 'muted' }, ` ${source}`) : null);
}

// A dialog with the member's name and every parameter (empty value =
// remove), plus one new parameter; PATCHes what changed.
async function editMember(page, m) {
  const keys = page.ens.parameters.map((p) => p.key);
  const name = h('input', { class: 'input', id: 'member-name', value: m.name, maxlength: 200 });
  const inputs = keys.map((k) => [k, h('input', { class: 'input', value: m.parameters[k] ?? '', 'aria-label': k })]);
  const newKey = h('input', { class: 'input', placeholder: 'new parameter', 'aria-label': 'New parameter name' });
  const newValue = h('input', { class: 'input', placeholder: 'value', 'aria-label': 'New parameter value' });
  const body = h('div', { class: 'form-grid ensemble-edit' },
    h('label', { for: 'member-name' }, 'Name in the ensemble'), name,
    inputs.map(([k, input]) => [h('label', {}, k), input]),
    newKey, newValue,
    h('p', { class: 'muted small' }, 'An empty value removes the parameter.'));
  await modal({
    title: `Edit ${m.name}`, body,
    buttons: [{ label: 'Cancel', value: null }, { label: 'Save', value: 'ok', primary: true }],
    onSubmit: async () => {
      const parameters = {};
      for (const [k, input] of inputs) {
        const v = input.value.trim();
        if (v !== (m.parameters[k] ?? '')) parameters[k] = v === '' ? null : v;
      }
      if (newKey.value.trim()) parameters[newKey.value.trim()] = newValue.value.trim() || null;
      const member = { trace_id: m.trace_id, parameters };
      if (name.value.trim() && name.value.trim() !== m.name) member.name = name.value.trim();
      try {
        await refresh(page, await api.patch(`/ensembles/${page.ens.id}`, { members: [member] }));
        return true;
      } catch (e) {
        return e.message;
      }
    },
  });
}

async function removeMember(page, m) {
  const yes = await confirmDialog('Remove member', `Remove “${m.name}” from ${page.ens.name}? The trace stays.`,
    'Remove', true);
  if (!yes) return;
  try {
    await api.del(`/ensembles/${page.ens.id}/members/${m.trace_id}`);
    await refresh(page);
  } catch (e) {
    page.el.prepend(errorBox(e, 'remove the member'));
  }
}

async function renameEnsemble(page) {
  const input = h('input', { id: 'ensemble-rename', class: 'input', value: page.ens.name, maxlength: 200 });
  await modal({
    title: 'Rename ensemble',
    body: h('div', { class: 'form-grid' }, h('label', { for: 'ensemble-rename' }, 'New name'), input),
    buttons: [{ label: 'Cancel', value: null }, { label: 'Rename', value: 'ok', primary: true }],
    onSubmit: async () => {
      try {
        await refresh(page, await api.patch(`/ensembles/${page.ens.id}`, { name: input.value.trim() }));
        return true;
      } catch (e) {
        return e.message;
      }
    },
  });
}

async function deleteEnsemble(page) {
  const yes = await confirmDialog('Delete ensemble',
    `Delete the ensemble “${page.ens.name}”? Its ${page.ens.member_count} traces stay.`, 'Delete', true);
  if (!yes) return;
  try {
    await api.del(`/ensembles/${page.ens.id}`);
    navigate(['traces']);
  } catch (e) {
    page.el.prepend(errorBox(e, 'delete the ensemble'));
  }
}

// ---- CSV of run -> parameters ----

async function postCsv(id, text) {
  const headers = { 'Content-Type': 'text/csv', Accept: 'application/json' };
  const token = getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  let res;
  try {
    res = await fetch(apiUrl(`/ensembles/${id}/parameters`), { method: 'POST', headers, body: text });
  } catch (e) {
    throw new ApiError(0, 'network_error', `Cannot reach the ariadne server (${e.message}).`);
  }
  const body = await res.json().catch(() => null);
  if (!res.ok) {
    throw new ApiError(res.status, body?.error?.code || 'http_error', body?.error?.message || `HTTP ${res.status}`);
  }
  return body;
}

function csvPanel(page) {
  const file = h('input', { type: 'file', accept: '.csv,text/csv', id: 'params-csv', class: 'input' });
  const out = h('div', { class: 'csv-result', 'aria-live': 'polite' });
  const upload = async () => {
    clear(out);
    if (!file.files.length) {
      out.appendChild(h('p', { class: 'form-error' }, 'Choose a CSV file first.'));
      return;
    }
    try {
      const res = await postCsv(page.ens.id, await file.files[0].text());
      await refresh(page, res.ensemble);
      const again = page.el.querySelector('.csv-result');
      again.appendChild(csvOutcome(res));
    } catch (e) {
      out.appendChild(errorBox(e, 'set the parameters from the CSV'));
    }
  };
  return h('section', { class: 'panel', 'aria-label': 'Parameters from a CSV' },
    h('h2', { class: 'section-title' }, 'Set parameters from a CSV'),
    h('p', { class: 'muted small' }, 'A header ', h('code', {}, 'run,param1,param2,...'), ', then one row per run; ',
      'the run is a member\'s name or trace id. An empty cell leaves that parameter as it is.'),
    h('div', { class: 'filter-bar' }, h('div', { class: 'field' }, h('label', { for: 'params-csv' }, 'CSV file'), file),
      h('button', { type: 'button', class: 'btn btn-primary', id: 'params-csv-upload', onclick: upload }, 'Upload CSV')),
    out);
}

function csvOutcome(res) {
  const unknown = res.unknown_runs || [];
  return h('p', { class: 'small' }, `${res.matched} of ${res.rows} rows matched a member; `
    + `${res.parameters_set} values set.`,
  unknown.length ? h('span', { class: 'text-error' }, ` Unknown runs: ${unknown.map((u) =>
    `${u.run} (line ${u.line})`).join(', ')}.`) : null);
}

// ---- adding members ----

// A dialog listing the stored profiles that are not members yet; the ticked
// ones are added (POST /ensembles/{id}/members {trace_ids}).
async function addMembers(page) {
  let traces;
  try {
    traces = (await api.get('/traces', { kind: 'profile', limit: 1000, sort: 'name' })).traces;
  } catch (e) {
    await modal({ title: 'Add members', body: errorBox(e, 'list the profiles'), buttons: [{ label: 'Close', value: null }] });
    return;
  }
  const members = new Set(page.ens.members.map((m) => m.trace_id));
  const free = traces.filter((t) => !members.has(t.id));
  const boxes = free.map((t) => h('input', { type: 'checkbox', value: String(t.id), id: `add-member-${t.id}` }));
  const body = free.length === 0
    ? h('p', { class: 'muted' }, 'Every stored profile is a member already.')
    : h('div', { class: 'add-members-list', style: 'max-height: 50vh; overflow: auto' },
      h('p', { class: 'muted small' }, 'Tick the profiles to add; their parameters are read from their metadata.'),
      h('ul', { class: 'plain-list', 'aria-label': 'Profiles' }, free.map((t, i) => h('li', {}, boxes[i],
        h('label', { for: `add-member-${t.id}` }, ` ${t.name} `, h('span', { class: 'muted small' }, `#${t.id}`))))));
  const done = await modal({
    title: 'Add members',
    body,
    buttons: free.length ? [{ label: 'Cancel', value: null }, { label: 'Add', value: 'ok', primary: true }]
      : [{ label: 'Close', value: null }],
    onSubmit: async () => {
      const ids = boxes.filter((b) => b.checked).map((b) => Number(b.value));
      if (!ids.length) return 'Tick at least one profile.';
      try {
        await api.post(`/ensembles/${page.ens.id}/members`, { trace_ids: ids });
        return true;
      } catch (e) {
        return e.message;
      }
    },
  });
  if (done === 'ok') await refresh(page);
}

// ---- the parameter projection ----

const PROJ = { width: 720, height: 380, margin: { top: 16, right: 170, bottom: 44, left: 56 } };
// A dot's label: the run's name, or its trace id when the name is long.
const runLabel = (r) => (r.name.length <= 16 ? r.name : `#${r.trace_id}`);

// The panel: a k selector and the scatter, loaded after the page draws.
function projectionPanel(page) {
  const plot = h('div', { class: 'projection-plot', style: 'position: relative' });
  const k = page.projectionK || 3;
  const select = h('select', { id: 'projection-k', class: 'input', style: 'width: auto',
    onchange: (e) => { page.projectionK = Number(e.target.value); loadProjection(page, plot); } },
  [1, 2, 3, 4, 5, 6, 7, 8].map((v) => h('option', { value: String(v), selected: v === k }, String(v))));
  const el = h('section', { class: 'panel', 'aria-label': 'Parameter projection' },
    h('h2', { class: 'section-title' }, 'Parameter projection'),
    h('p', { class: 'muted small' }, 'Each dot is a run: classical MDS of its per-call-site times and numeric '
      + 'parameters, each scaled to [0, 1]; colours are k-means clusters. Runs close together behave alike.'),
    h('div', { style: 'display: flex; gap: .5rem; align-items: center; justify-content: flex-start' },
      h('label', { for: 'projection-k' }, 'Clusters (k)'), select),
    plot);
  if (page.ens.members.length > 0) loadProjection(page, plot);
  return el;
}

async function loadProjection(page, plot) {
  clear(plot).appendChild(h('p', { class: 'muted small' }, 'Computing the projection…'));
  try {
    const proj = await api.get(`/ensembles/${page.ens.id}/projection`, { k: page.projectionK || 3 });
    drawProjection(clear(plot), proj, page.state);
  } catch (e) {
    clear(plot).appendChild(errorBox(e, 'compute the projection'));
  }
}

function extent(d3, values) {
  const [lo, hi] = d3.extent(values);
  const pad = hi > lo ? (hi - lo) * 0.08 : 1;
  return [lo - pad, hi + pad];
}

function drawProjection(plot, proj, state) {
  const d3 = getD3();
  const { width, height, margin } = PROJ;
  const x = d3.scaleLinear().domain(extent(d3, proj.runs.map((r) => r.x))).range([margin.left, width - margin.right]);
  const y = d3.scaleLinear().domain(extent(d3, proj.runs.map((r) => r.y))).range([height - margin.bottom, margin.top]);
  const color = (c) => TYPE_PALETTE[c % TYPE_PALETTE.length];
  const svg = d3.select(plot).append('svg').attr('viewBox', `0 0 ${width} ${height}`).attr('role', 'img')
    .attr('aria-label', `Parameter projection of ${proj.runs.length} runs in ${proj.clusters} clusters`)
    .style('max-width', `${width}px`).style('width', '100%');
  svg.append('g').attr('transform', `translate(0,${height - margin.bottom})`).call(d3.axisBottom(x).ticks(6));
  svg.append('g').attr('transform', `translate(${margin.left},0)`).call(d3.axisLeft(y).ticks(6));
  svg.append('text').attr('class', 'axis-label').attr('x', (margin.left + width - margin.right) / 2)
    .attr('y', height - 8).attr('text-anchor', 'middle').text(proj.axes[0].label);
  svg.append('text').attr('class', 'axis-label').attr('transform', 'rotate(-90)')
    .attr('x', -(margin.top + height - margin.bottom) / 2).attr('y', 14).attr('text-anchor', 'middle')
    .text(proj.axes[1].label);
  const tip = createTooltip(plot);
  svg.append('g').selectAll('circle').data(proj.runs).join('circle')
    .attr('cx', (r) => x(r.x)).attr('cy', (r) => y(r.y)).attr('r', 6)
    .attr('fill', (r) => color(r.cluster)).attr('class', 'proj-dot')
    .attr('data-trace-id', (r) => r.trace_id)
    .attr('tabindex', 0).attr('role', 'button')
    .attr('aria-label', (r) => `${r.name}: Enter sets it as the target, Shift+Enter as the comparison`)
    .on('click', (ev, r) => pickRun(state, r.trace_id, ev.shiftKey))
    .on('keydown', (ev, r) => { if (ev.key === 'Enter') pickRun(state, r.trace_id, ev.shiftKey); })
    .call(d3Tip, tip, (r) => tipContent(r.name, [['Cluster', String(r.cluster + 1)], ['Trace', `#${r.trace_id}`],
      ...Object.entries(r.parameters).slice(0, 8)], 'Click: set as target · Shift+click: compare with the target',
    `${proj.axes[0].name} ${r.x.toPrecision(3)} · ${proj.axes[1].name} ${r.y.toPrecision(3)}`));
  ringRuns(svg, state);
  state.subscribe((s, changed) => {
    if (changed.includes('target') || changed.includes('comparison')) ringRuns(svg, state);
  });
  if (proj.runs.length <= 24) { // names beside the dots while they stay readable
    svg.append('g').attr('class', 'run-labels').selectAll('text').data(proj.runs).join('text')
      .attr('x', (r) => x(r.x) + 9).attr('y', (r) => y(r.y) + 4)
      .text(runLabel);
  }
  drawLegend(svg, proj, color, width - margin.right + 16, margin.top);
  plot.appendChild(h('p', { class: 'muted small' }, `Features: ${proj.features.call_sites} call sites (${proj.metric})`
    + (proj.features.call_sites_dropped ? `, ${proj.features.call_sites_dropped} left out (absent from some runs)` : '')
    + `, parameters: ${proj.features.parameters.join(', ') || 'none'}. Seed ${proj.method.seed}.`));
}

// A run's dot: the target (click) or the comparison (shift-click; the
// target when there is none yet).
function pickRun(state, id, shift) {
  const s = state.get();
  if (shift && s.target != null && s.target !== id) state.set({ comparison: id });
  else state.set({ target: id, comparison: s.comparison === id ? null : s.comparison });
}

// Rings the target's and the comparison's dots.
function ringRuns(svg, state) {
  const s = state.get();
  svg.selectAll('circle.proj-dot')
    .classed('proj-target', (r) => r.trace_id === s.target)
    .classed('proj-comparison', (r) => r.trace_id === s.comparison);
}

function drawLegend(svg, proj, color, x0, y0) {
  const counts = new Map();
  for (const r of proj.runs) counts.set(r.cluster, (counts.get(r.cluster) || 0) + 1);
  const g = svg.append('g').attr('class', 'legend').attr('transform', `translate(${x0},${y0})`);
  [...counts.keys()].sort((a, b) => a - b).forEach((c, i) => {
    const row = g.append('g').attr('transform', `translate(0,${i * 20})`);
    row.append('circle').attr('cx', 6).attr('cy', 6).attr('r', 6).attr('fill', color(c));
    row.append('text').attr('x', 18).attr('y', 10).attr('font-size', 12)
      .text(`Cluster ${c + 1} (${counts.get(c)} run${counts.get(c) === 1 ? '' : 's'})`);
  });
}
