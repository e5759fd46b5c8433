// views/overview.js: the "Overview" tab of every trace: its description
// (editable), its counts, the kind-specific summary the server computed at
// import, its input files, and how to fetch it from a script.
import { api } from '../api.js';
import { h, humanize, modal } from '../dom.js';
import { formatBytes, formatNumber, formatDate, fmtTime } from '../lib/format.js';
import { registerView } from '../trace.js';
import { extentRows } from '../lib/origin.js';

registerView({ id: 'overview', title: 'Overview', render: renderOverview });

function renderOverview(el, trace) {
  el.classList.add('overview');
  el.append(
    descriptionPanel(trace),
    countsPanel(trace.counts),
    h('div', { class: 'overview-grid' },
      summaryPanel(trace),
      h('div', {}, filesPanel(trace), identityPanel(trace))));
}

function descriptionPanel(trace) {
  const text = h('p', { class: trace.description ? 'description' : 'description muted' },
    trace.description || 'No description. Add one to tell your team what this run is (machine, commit, parameters).');
  const edit = h('button', { type: 'button', class: 'btn btn-small', onclick: async () => {
    const desc = await editDescription(trace);
    if (desc === null) return;
    trace.description = desc;
    text.textContent = desc || 'No description.';
    text.className = desc ? 'description' : 'description muted';
  } }, 'Edit description');
  return h('section', { class: 'panel description-panel', 'aria-label': 'Description' }, text, edit);
}

// Resolves with the saved description, or null when cancelled.
async function editDescription(trace) {
  const area = h('textarea', { id: 'description-input', class: 'input', rows: 5 }, trace.description || '');
  let saved = null;
  const done = await modal({
    title: 'Edit description',
    body: h('div', { class: 'form-grid' }, h('label', { for: 'description-input' }, 'Description'), area),
    buttons: [{ label: 'Cancel', value: null }, { label: 'Save', value: 'ok', primary: true }],
    onSubmit: async () => {
      try {
        const t = await api.patch(`/traces/${trace.id}`, { description: area.value.trim() });
        saved = t.description ?? area.value.trim();
        return true;
      } catch (e) {
        return e.message;
      }
    },
  });
  return done === 'ok' ? saved : null;
}

function countsPanel(counts) {
  const entries = Object.entries(counts || {}).filter(([, v]) => typeof v === 'number');
  return h('section', { class: 'panel', 'aria-labelledby': 'counts-title' },
    h('h2', { id: 'counts-title' }, 'Contents'),
    entries.length === 0 ? h('p', { class: 'muted' }, 'The server reported no counts for this trace.')
      : h('div', { class: 'stat-grid' }, entries.map(([k, v]) =>
        h('div', { class: 'stat' }, h('div', { class: 'stat-value' }, formatNumber(v)),
          h('div', { class: 'stat-label' }, humanize(k))))));
}

// Times of a trace (tasks, datamove) relative to its origin, with the
// origin said once (lib/origin.js): "-675 ms (runtime start-up, before the
// first task)" rather than a bare "Start -675".
const EXTENT_KEYS = new Set(['start', 'end', 'duration', 'time_origin']);

function hasExtent(trace) {
  const s = trace.summary;
  return (trace.kind === 'tasks' || trace.kind === 'datamove') && s && Number.isFinite(s.start) && Number.isFinite(s.end);
}

function extentTable(trace) {
  return h('table', { class: 'kv extent' }, h('tbody', {}, extentRows(trace).map(([k, v]) =>
    h('tr', {}, h('th', { scope: 'row' }, k), h('td', {}, v)))));
}

function summaryPanel(trace) {
  const summary = trace.summary;
  const keys = summary && typeof summary === 'object' ? Object.keys(summary) : [];
  const extent = hasExtent(trace);
  const rest = extent ? Object.fromEntries(keys.filter((k) => !EXTENT_KEYS.has(k)).map((k) => [k, summary[k]])) : summary;
  unitCtx.time = (summary && summary.time_unit) || trace.time_unit || '';
  return h('section', { class: 'panel overview-summary', 'aria-labelledby': 'summary-title' },
    h('h2', { id: 'summary-title' }, 'Summary'),
    keys.length === 0 ? h('p', { class: 'muted' }, 'No summary was computed for this trace.')
      : h('div', {}, extent ? extentTable(trace) : null, valueTable(rest)));
}

// Units of the summary's numbers, from their key (the datamove and task
// summaries name them so): bytes, bandwidths (GB/s) and durations in the
// trace's time unit. The time unit is the shown trace's (set by summaryPanel).
const unitCtx = { time: '' };
const TIME_KEY = /(^|_)(dur|duration|time|sector_width|busy|makespan)($|_)|^(data_movement|gpu_compute|cpu_compute|runtime_api)$/;

function withUnit(key, v) {
  const k = String(key).toLowerCase();
  if (/(^|_)bytes($|_)|memory|globalmem|^local_memory$/.test(k)) return `${formatBytes(v)}`;
  if (/_gbs$|bandwidth/.test(k)) return `${formatNumber(v)} GB/s`;
  if (unitCtx.time && TIME_KEY.test(k)) return fmtTime(v, unitCtx.time === 'us' ? 'µs' : unitCtx.time);
  return formatNumber(v);
}

// A key/value table. Only the top level's keys are field names to
// humanise; nested keys are data (kernel names, node numbers) and are shown
// as they are. An object of objects of numbers (tasks per node and type)
// becomes a matrix; arrays of objects become row tables (50 rows at most).
function valueTable(obj, nested = false, parent = '') {
  return h('table', { class: 'kv' }, h('tbody', {}, Object.entries(obj).map(([k, v]) =>
    h('tr', {}, h('th', { scope: 'row' }, nested ? k : humanize(k)), h('td', {}, valueCell(v, timeParent(parent) ? parent : k))))));
}

// Children of a time-valued object (category_time: {gpu_compute: …}) keep its unit.
const timeParent = (k) => /(^|_)time$/.test(k);

function isMatrix(v) {
  const rows = Object.values(v);
  return rows.length > 0 && rows.every((r) => r && typeof r === 'object' && !Array.isArray(r)
    && Object.values(r).every((x) => typeof x === 'number'));
}

function matrixTable(obj) {
  const cols = [...new Set(Object.values(obj).flatMap((r) => Object.keys(r)))].sort();
  return h('div', { class: 'ov-scroll' }, h('table', { class: 'table compact' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, ''), cols.map((c) => h('th', { scope: 'col', class: 'num verbatim' }, c)))),
    h('tbody', {}, Object.entries(obj).map(([k, r]) => h('tr', {}, h('th', { scope: 'row' }, k),
      cols.map((c) => h('td', { class: 'num' }, r[c] === undefined ? '—' : formatNumber(r[c]))))))));
}

function valueCell(v, key = '') {
  if (v === null || v === undefined) return h('span', { class: 'muted' }, '—');
  if (typeof v === 'number') return withUnit(key, v);
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (typeof v === 'string') return /^\d{4}-\d\d-\d\dT/.test(v) ? formatDate(v) : v;
  if (Array.isArray(v)) {
    if (v.length === 0) return h('span', { class: 'muted' }, 'none');
    if (v.every((x) => x === null || typeof x !== 'object')) return v.map(valueText).join(', ');
    return rowTable(v, key);
  }
  if (Object.keys(v).length === 0) return h('span', { class: 'muted' }, 'none');
  return isMatrix(v) ? matrixTable(v) : valueTable(v, true, key);
}

function valueText(v) {
  return typeof v === 'number' ? formatNumber(v) : String(v);
}

// Rows of objects: one row per item, or, when the items have many fields
// (device properties), one column per item so that the table stays narrow.
function rowTable(rows, key = '') {
  const cols = [...new Set(rows.flatMap((r) => (r && typeof r === 'object' ? Object.keys(r) : [])))];
  if (cols.length > 6 && rows.length <= 8) return itemColumns(rows, cols);
  const shown = rows.slice(0, 50);
  const numeric = new Set(cols.filter((c) => shown.every((r) => !r || typeof r[c] === 'number' || r[c] == null)));
  return h('div', { class: 'ov-scroll' },
    h('table', { class: 'table compact' },
      h('thead', {}, h('tr', {}, cols.map((c) => h('th', { scope: 'col', class: numeric.has(c) ? 'num' : null }, humanize(c))))),
      h('tbody', {}, shown.map((r) => h('tr', {}, cols.map((c) => {
        const x = r ? r[c] : null;
        return h('td', { class: typeof x === 'number' ? 'num' : null },
          x !== null && typeof x === 'object' ? valueCell(x, c) : typeof x === 'number' ? withUnit(timeParent(key) || key === 'values' ? 'time' : c, x) : valueText(x ?? ''));
      }))))),
    rows.length > shown.length ? h('p', { class: 'muted small' }, `${rows.length - shown.length} more rows not shown.`) : null);
}

// Items as columns, their fields as rows (a key/value list per item).
function itemColumns(rows, cols) {
  const name = (r, i) => (r && (r.name ?? r.id) !== undefined ? String(r.name ?? r.id) : `#${i + 1}`);
  return h('div', { class: 'ov-scroll' }, h('table', { class: 'table compact ov-items' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, ''), rows.map((r, i) => h('th', { scope: 'col', class: 'num verbatim' }, name(r, i))))),
    h('tbody', {}, cols.map((c) => h('tr', {}, h('th', { scope: 'row' }, humanize(c)),
      rows.map((r) => {
        const x = r ? r[c] : null;
        return h('td', { class: typeof x === 'number' ? 'num' : null }, x !== null && typeof x === 'object' ? valueCell(x, c)
          : typeof x === 'number' ? withUnit(c, x) : valueText(x ?? ''));
      }))))));
}

function filesPanel(trace) {
  const files = trace.files || [];
  return h('section', { class: 'panel', 'aria-labelledby': 'files-title' },
    h('h2', { id: 'files-title' }, 'Input files'),
    files.length === 0 ? h('p', { class: 'muted' }, 'No file list.')
      : h('table', { class: 'table compact' },
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'File'), h('th', { scope: 'col', class: 'num' }, 'Size'))),
        h('tbody', {}, files.map((f) => h('tr', {}, h('td', {}, h('code', { class: 'file-path', title: f.name }, f.name)),
          h('td', { class: 'num nowrap' }, formatBytes(f.bytes)))))));
}

function identityPanel(trace) {
  const url = `${location.origin}/api/v1/traces/${trace.id}`;
  const copy = h('button', { type: 'button', class: 'btn btn-small', onclick: async () => {
    try { await navigator.clipboard.writeText(`curl ${url}`); copy.textContent = 'Copied'; } catch { copy.textContent = 'Copy failed'; }
  } }, 'Copy');
  return h('section', { class: 'panel', 'aria-labelledby': 'identity-title' },
    h('h2', { id: 'identity-title' }, 'Identity'),
    h('table', { class: 'kv' }, h('tbody', {},
      h('tr', {}, h('th', { scope: 'row' }, 'SHA-256'), h('td', {}, h('code', { class: 'hash' }, trace.sha256 || '—'))),
      h('tr', {}, h('th', { scope: 'row' }, 'Uploaded'), h('td', {}, formatDate(trace.created_at))),
      h('tr', {}, h('th', { scope: 'row' }, 'Total size'), h('td', {}, formatBytes(trace.bytes))))),
    h('p', { class: 'help' }, 'From a script:'),
    h('div', { class: 'snippet' }, h('code', {}, `curl ${url}`), copy));
}
