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
import { api, trackSignal } from './api.js';
import { h, clear, modal } from './dom.js';
import { formatBytes, formatDate } from './lib/format.js';
import { ViewFrame, checkWindowParams, paramNamed } from './lib/view_frame.js';
import { updateParams, parseHash } from './router.js';
import { errorBox } from './settings.js';
import { noTasksBox } from './lib/errors.js';
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

// The view on screen: {view, el, controller, cleanups, rendered}, or null.
let current = null;
// The trace page on screen: {trace, view, host, body, frame, params, refused}, or null.
let page = null;

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

// History: a setParams that follows a user's input (pointer, wheel, key,
// change) made after the view started rendering adds a history entry, so
// Back undoes a zoom, a pan, a toggle; within GESTURE_MS of the previous
// entry it replaces it instead (one entry per wheel or drag gesture).
// Otherwise (the view settling its URL while it loads, after Back too), and
// with {push: false}, the URL is replaced; {push: true} always pushes.
export const GESTURE_MS = 600;
let lastInput = 0;
let lastPush = 0;
for (const type of ['pointerdown', 'wheel', 'keydown', 'change']) {
  document.addEventListener(type, (e) => { if (e.isTrusted) lastInput = Date.now(); }, { capture: true, passive: true });
}

function viewSetParams(c) {
  return (p, opts = {}) => {
    if (current !== c) return; // a view left or drawn again does not write the URL
    let push = opts.push;
    const now = Date.now();
    const acted = c.rendered && lastInput > Math.max(c.started, lastPush);
    if (push === undefined) push = acted && now - lastPush > GESTURE_MS;
    if (push || (acted && opts.push !== false)) lastPush = now;
    updateParams(p, { push });
    if (page) page.params = parseHash(location.hash).params;
  };
}

// Renders `view` into `body`, as the view on screen.
async function renderView(view, body, trace, params) {
  if (!body.isConnected) return; // a newer page replaced this one while it loaded
  disposeCurrentView();
  const c = { view, el: body, controller: new AbortController(), cleanups: [], rendered: false, started: Date.now() };
  current = c;
  const onDispose = (fn) => {
    if (current === c) c.cleanups.push(fn);
    else fn(); // disposed already (left while loading): undo at once
  };
  if (page) trackSignal(c.controller.signal, page.frame.startView((e) => refusedByServer(c, e)));
  body.setAttribute('aria-busy', 'true');
  try {
    await view.render(body, trace, { ...params }, viewSetParams(c), { signal: c.controller.signal, onDispose });
  } finally {
    c.rendered = true;
    body.removeAttribute('aria-busy');
  }
}

// A request of the view answered 400 invalid_parameter: when the message
// names a parameter of the URL, the view is drawn again without it (its
// controls stay usable) and the frame says what was refused and why.
function refusedByServer(c, e) {
  if (!page || current !== c || e.status !== 400 || e.code !== 'invalid_parameter') return;
  const params = parseHash(location.hash).params;
  const key = paramNamed(e.message, params);
  if (!key) { page.frame.showRefused([...page.refused, { key: null, value: '', message: e.message }]); return; }
  const refused = [...page.refused, { key, value: params[key], message: e.message }];
  delete params[key];
  setTimeout(() => redrawView(params, refused), 0); // after the failing view's own handlers ran
}

// Draws the view of the page on screen again with `params` (written to the
// URL, replacing it) in a fresh body, showing `refused` in the frame.
async function redrawView(params, refused = []) {
  if (!page) return;
  const p = page;
  const bad = checkWindowParams(params);
  for (const b of bad) {
    refused.push({ key: b.key, value: params[b.key], message: b.message });
    delete params[b.key];
    if (b.also) delete params[b.also];
  }
  updateParams(params);
  p.params = params;
  p.refused = refused;
  p.frame.showRefused(refused);
  const body = h('section', { class: 'view', id: 'view', 'aria-label': p.view.title });
  p.body.replaceWith(body);
  p.body = body;
  try {
    await renderView(p.view, body, p.trace, params);
  } catch (e) {
    if (body.isConnected) clear(body).appendChild(errorBox(e, `draw the ${p.view.title} view`));
  }
}

// Back/Forward between two URLs of the same trace and view: draws the view
// again with the URL's parameters, keeping the page. Returns false when the
// page on screen is not that view (app.js then renders the whole page).
export function showParams(idText, viewId, params) {
  if (!page || String(page.trace.id) !== idText || page.view.id !== (viewId || 'overview')) return false;
  if (!page.host.isConnected) return false;
  redrawView({ ...params });
  return true;
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
    body.appendChild(noTasksBox(trace.kind, `The ${known.title} view`, trace.id)); // what is missing, how to provide it
    return;
  }
  if (!view) {
    body.appendChild(h('div', { class: 'alert alert-error', role: 'alert' },
      h('strong', {}, `No view “${viewId}” for this trace`),
      h('p', {}, `The ${trace.kind} trace “${trace.name}” has the views: `,
        available.map((v, i) => [i ? ', ' : '', h('a', { href: `#/traces/${trace.id}/${v.id}` }, v.title)]), '.')));
    return;
  }
  if (page) page.frame.dispose();
  const frame = new ViewFrame({ fileStem: fileStem(trace),
    onFix: (key, value) => { const p = { ...page.params }; if (value === null) delete p[key]; else p[key] = value; redrawView(p); } });
  body.before(frame.el);
  page = { trace, view, host: el, body, frame, params: { ...params }, refused: [] };
  await redrawView({ ...params });
}

// "chol N=1 (ws)" -> "trace3-chol-N-1-ws": the downloads' file names.
function fileStem(trace) {
  const name = String(trace.name || '').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60);
  return `trace${trace.id}${name ? `-${name}` : ''}`;
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
    ['Time unit', trace.time_unit ? timeUnitMeta(trace)
      : (trace.time_unit_source || '').startsWith('not declared')
        && h('span', { id: 'trace-time-unit', class: 'muted', title: trace.time_unit_source }, 'not declared in the file')],
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
        // a live run (issue 18): its page shows it arriving, or replays it once closed
        trace.format === 'stream' ? h('a', { class: 'btn btn-primary', id: 'trace-live-link', href: `#/live/${trace.id}` },
          trace.meta && trace.meta.live === 'closed' ? 'Replay live' : 'Watch live') : null,
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
