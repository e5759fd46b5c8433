// trace.js: the trace page (#/traces/{id}/{view}?params): a header with the
// trace's identity, one tab per analysis view that applies to its kind, and
// the selected view. Views register themselves here:
//
//   import { registerView } from '../trace.js';
//   registerView({ id: 'gantt', title: 'Gantt', kinds: ['tasks'],
//     render(el, trace, params, setParams, { signal, onDispose }) { ... },
//     dispose(el) { ... } });
//
// render() draws into `el` (it may be async; a thrown error is shown in
// place of the view). `params` are the URL parameters (strings);
// setParams(obj, {push}) writes new ones into the URL without re-rendering,
// so a copied link or a reload reopens the same view.
//
// Teardown: when the view is left (another page, another view, another
// trace) or rendered again, trace.js disposes it: it aborts `signal` (pass
// it to api.get(path, query, {signal}) so that pending requests stop), then
// runs every function given to onDispose(fn) (newest first: remove window
// and document listeners, disconnect ResizeObservers, clear timers), then
// calls the view's own dispose(el) if it has one. A view that adds a global
// listener, an observer or a timer must undo it there. `kinds` lists the
// trace kinds the view applies to (omit it for every kind); `applies(trace)`,
// if given, narrows further on the trace's summary (e.g. only traces with an
// elimination tree). Each view module
// is imported once from js/views/index.js.
import { api } from './api.js';
import { h, clear, modal } from './dom.js';
import { formatBytes, formatDate } from './lib/format.js';
import { updateParams } from './router.js';
import { errorBox } from './settings.js';
import { kindBadge, renameTrace, deleteTrace } from './traces.js';

const views = [];

// Task-trace views (Gantt, bounds, progression) need application tasks: a
// plain Paje trace (SimGrid, poti) has states only, shown by the Timeline.
export const hasTasks = (trace) => !!(trace.summary && trace.summary.tasks > 0);

export function registerView(view) {
  const { id, title, kinds, applies, render, dispose } = view || {};
  if (typeof id !== 'string' || !/^[a-z][a-z0-9-]*$/.test(id)) {
    throw new Error(`registerView: bad id ${JSON.stringify(id)} (lower-case letters, digits, '-')`);
  }
  if (typeof title !== 'string' || !title) throw new Error(`registerView(${id}): title is required`);
  if (typeof render !== 'function') throw new Error(`registerView(${id}): render must be a function`);
  if (kinds !== undefined && kinds !== null && !Array.isArray(kinds)) {
    throw new Error(`registerView(${id}): kinds must be an array of trace kinds`);
  }
  if (applies !== undefined && typeof applies !== 'function') {
    throw new Error(`registerView(${id}): applies must be a function of the trace`);
  }
  if (dispose !== undefined && typeof dispose !== 'function') {
    throw new Error(`registerView(${id}): dispose must be a function`);
  }
  if (views.some((v) => v.id === id)) throw new Error(`registerView: view ${id} is registered twice`);
  views.push({ id, title, kinds: kinds || null, applies: applies || null, render, dispose: dispose || null });
}

// The view on screen: {view, el, controller, cleanups}, or null.
let current = null;

// Tears down the view on screen (see the header). app.js calls it before it
// renders any page; renderTracePage before it renders a view.
export function disposeCurrentView() {
  const c = current;
  current = null;
  if (!c) return;
  c.controller.abort();
  for (const fn of c.cleanups.reverse()) {
    try { fn(); } catch (e) { console.warn(`dispose of the ${c.view.id} view:`, e); }
  }
  if (c.view.dispose) {
    try { c.view.dispose(c.el); } catch (e) { console.warn(`dispose of the ${c.view.id} view:`, e); }
  }
}

// Renders `view` into `body`, as the view on screen.
async function renderView(view, body, trace, params) {
  if (!body.isConnected) return; // a newer page replaced this one while it loaded
  disposeCurrentView();
  const c = { view, el: body, controller: new AbortController(), cleanups: [] };
  current = c;
  const onDispose = (fn) => {
    if (current === c) c.cleanups.push(fn);
    else fn(); // disposed already (left while loading): undo at once
  };
  await view.render(body, trace, { ...params }, (p, opts) => updateParams(p, opts),
    { signal: c.controller.signal, onDispose });
}

// The registered views that apply to `trace`, in registration order.
export function viewsFor(trace) {
  return views.filter((v) => (!v.kinds || v.kinds.includes(trace.kind)) && (!v.applies || v.applies(trace)));
}

export async function renderTracePage(el, idText, viewId, params) {
  if (!/^[1-9][0-9]*$/.test(idText)) {
    document.title = 'Bad trace id · ariadne';
    el.appendChild(errorBox(new Error(`“${idText}” is not a trace id (a positive integer).`), 'open the trace'));
    return;
  }
  let trace;
  try {
    trace = await api.get(`/traces/${idText}`);
  } catch (e) {
    document.title = 'Trace not found · ariadne';
    el.append(h('p', { class: 'breadcrumb' }, h('a', { href: '#/traces' }, '← All traces')),
      e.status === 404
        ? h('div', { class: 'panel empty-state' }, h('h1', {}, `No trace #${idText}`),
          h('p', {}, 'It may have been deleted by someone on your team.'),
          h('a', { class: 'btn btn-primary', href: '#/traces' }, 'Back to the traces'))
        : errorBox(e, `load trace #${idText}`));
    return;
  }
  const available = viewsFor(trace);
  const view = available.find((v) => v.id === viewId);
  document.title = `${trace.name} · ${view ? view.title : 'ariadne'} · ariadne`;
  el.append(traceHeader(trace), viewTabs(trace, available, viewId));
  const body = h('section', { class: 'view', id: 'view', 'aria-label': view ? view.title : 'View' });
  el.appendChild(body);
  const known = views.find((v) => v.id === viewId);
  if (!view && known && known.applies === hasTasks && trace.kind === 'tasks') {
    body.appendChild(h('div', { class: 'alert', role: 'status' },
      h('strong', {}, `No ${known.title} for this trace`),
      h('p', {}, `This trace has no task information (a plain Paje trace); the ${known.title} needs a StarPU `,
        'bundle or StarVZ CSV set. Its states by container are in the ',
        h('a', { href: `#/traces/${trace.id}/timeline` }, 'Timeline'), '.')));
    return;
  }
  if (!view) {
    body.appendChild(h('div', { class: 'alert alert-error', role: 'alert' },
      h('strong', {}, `No view “${viewId}” for this trace`),
      h('p', {}, `The ${trace.kind} trace “${trace.name}” has the views: `,
        available.map((v, i) => [i ? ', ' : '', h('a', { href: `#/traces/${trace.id}/${v.id}` }, v.title)]), '.')));
    return;
  }
  try {
    await renderView(view, body, trace, params);
  } catch (e) {
    clear(body).appendChild(errorBox(e, `draw the ${view.title} view`));
  }
}

const TIME_UNITS = [['s', 'seconds'], ['ms', 'milliseconds'], ['us', 'microseconds'], ['ns', 'nanoseconds']];

// The time unit, with how it was decided as a tooltip, and (task traces
// only: other formats fix their unit) a control to relabel it.
function timeUnitMeta(trace) {
  const unit = h('span', { id: 'trace-time-unit', class: 'time-unit',
    style: trace.time_unit_source ? 'text-decoration: underline dotted; cursor: help' : null,
    title: trace.time_unit_source ? `How it was decided: ${trace.time_unit_source}` : null },
  trace.time_unit);
  if (trace.kind !== 'tasks') return unit;
  return h('span', {}, unit, ' ', h('button', {
    type: 'button', class: 'btn btn-tiny', id: 'change-time-unit',
    title: 'Set the unit the times of this trace are in (a label: no time is rescaled)',
    onclick: async () => {
      if (await changeTimeUnit(trace)) window.dispatchEvent(new HashChangeEvent('hashchange'));
    },
  }, 'change'));
}

// A modal with the units; PATCHes the trace. Resolves true when changed.
async function changeTimeUnit(trace) {
  const select = h('select', { id: 'time-unit-select', class: 'input' },
    TIME_UNITS.map(([u, name]) => h('option', { value: u, selected: u === trace.time_unit }, `${u} (${name})`)));
  const done = await modal({
    title: 'Time unit',
    body: h('div', { class: 'form-grid' },
      h('label', { for: 'time-unit-select' }, 'The times of this trace are in'), select,
      h('p', { class: 'muted small' }, `Now: ${trace.time_unit} — ${trace.time_unit_source || 'fixed by its format'}.`,
        h('br'), 'This only relabels the times (axes, durations, rates); no number is rescaled.')),
    buttons: [{ label: 'Cancel', value: null }, { label: 'Set unit', value: 'ok', primary: true }],
    onSubmit: async () => {
      try {
        await api.patch(`/traces/${trace.id}`, { time_unit: select.value });
        return true;
      } catch (e) {
        return e.message;
      }
    },
  });
  return done === 'ok';
}

// What the import noticed (a file cut in its last line, ...), in plain view.
function importWarnings(trace) {
  const list = trace.warnings || [];
  if (!list.length) return null;
  return h('div', { class: 'alert alert-info trace-warnings', role: 'note', id: 'trace-warnings' },
    h('strong', {}, list.length === 1 ? 'Import warning' : `${list.length} import warnings`),
    h('ul', {}, list.map((w) => h('li', { title: w.code }, w.message))));
}

function traceHeader(trace) {
  const meta = [
    ['Format', trace.format],
    ['Size', formatBytes(trace.bytes)],
    ['Uploaded', formatDate(trace.created_at)],
    ['Time unit', trace.time_unit && timeUnitMeta(trace)],
    ['Id', `#${trace.id}`],
  ].filter(([, v]) => v);
  return h('header', { class: 'trace-header' },
    h('p', { class: 'breadcrumb' }, h('a', { href: '#/traces' }, 'Traces'), ' / ', trace.name),
    h('div', { class: 'page-header' },
      h('div', {},
        h('h1', { class: 'trace-title' }, trace.name, ' ', kindBadge(trace.kind)),
        h('dl', { class: 'meta' }, meta.map(([k, v]) => h('div', {}, h('dt', {}, k), h('dd', {}, v)))),
        importWarnings(trace)),
      h('div', { class: 'header-actions' },
        h('button', { type: 'button', class: 'btn', onclick: async () => {
          if (await renameTrace(trace)) window.dispatchEvent(new HashChangeEvent('hashchange'));
        } }, 'Rename'),
        h('button', { type: 'button', class: 'btn btn-danger-outline', onclick: async () => {
          if (await deleteTrace(trace)) location.hash = '#/traces';
        } }, 'Delete'))));
}

function viewTabs(trace, available, current) {
  return h('nav', { class: 'tabs', 'aria-label': 'Views of this trace' },
    available.map((v) => h('a', {
      href: `#/traces/${trace.id}/${v.id}`, class: 'tab', id: `tab-${v.id}`,
      'aria-current': v.id === current ? 'page' : null,
    }, v.title)));
}
