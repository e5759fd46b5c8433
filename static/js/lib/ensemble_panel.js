// lib/ensemble_panel.js: the frame every ensemble detail panel shares
// (views/ensemble_icicle.js, _boxplots, _histogram, _scatter): a toolbar
// (the panel's controls and a Download CSV link), the "click a node" empty
// state, loading and error states, one request at a time (a newer one
// aborts the stale one), refetching on the state keys the panel watches,
// and the unit of the ensemble's metric (from its first member).
//
//   mountPanel(el, state, { name, watch: ['node', 'runs', 'target'], needsNode: true,
//     controls: (redraw) => [elements], fetch: async (s, signal) => ({ doc, csv }),
//     draw: (body, doc, ctx) => {} })  ->  { destroy() }
import { api, apiUrl, downloadUrl } from '../api.js';
import { h, clear } from '../dom.js';
import { errorBox } from '../settings.js';
import { profileUnit } from './profile_unit.js';
import { createTooltip } from './tooltip.js';

const traces = new WeakMap(); // state -> promise of its first member's trace

// The first member's trace (its format and time unit decide the unit).
function traceOf(state) {
  if (!traces.has(state)) {
    const first = state.members[0];
    traces.set(state, first ? api.get(`/traces/${first.trace_id}`).catch(() => ({})) : Promise.resolve({}));
  }
  return traces.get(state);
}

// GET /ensembles/{id}{path}?{state's runs and target + extra} -> {doc, csv}.
export async function fetchEnsemble(state, path, extra, signal) {
  const query = state.query(extra);
  const url = `/ensembles/${state.id}${path}${query ? `?${query}` : ''}`;
  const doc = await api.get(url, {}, { signal });
  return { doc, csv: `${apiUrl(url)}${query ? '&' : '?'}format=csv` };
}

// A link that downloads a CSV with the token: {el, set(url)} (hidden
// without a url); `cls` the link's class.
export function downloadLink(label, filename, cls) {
  const status = h('span', { class: 'ed-status small muted', role: 'status' });
  const a = h('a', { class: cls, href: '#', hidden: true }, label);
  a.addEventListener('click', async (ev) => {
    ev.preventDefault();
    try {
      await downloadUrl(a.href, filename, /text\/csv/);
      status.textContent = '';
    } catch (e) { status.textContent = `Could not download: ${e.message}`; }
  });
  return { el: h('span', { class: 'ed-download' }, a, ' ', status), set: (url) => { a.href = url || '#'; a.hidden = !url; } };
}

function note(kind, text) {
  return h('div', { class: `ed-state ed-${kind}`, role: 'status' }, text);
}

export function mountPanel(el, state, spec) {
  const body = h('div', { class: 'ed-body' });
  const csv = downloadLink('Download CSV', `ensemble-${spec.name}.csv`, 'ed-csv btn btn-tiny');
  const tip = createTooltip(el);
  let ctrl = null, last = null;
  const redraw = () => { if (last) draw(last); };
  const toolbar = h('div', { class: 'ed-toolbar' }, ...(spec.controls ? spec.controls(() => refresh()) : []), csv.el);
  clear(el).append(h('div', { class: `ed-panel ed-${spec.name}` }, toolbar, body));

  async function draw(doc) {
    const trace = await traceOf(state);
    const unitFor = (metric, max) => profileUnit(trace, { name: metric, unit: '' }, max);
    clear(body);
    spec.draw(body, doc, { state, s: state.get(), tip, unitFor, redraw });
  }

  async function refresh() {
    if (ctrl) ctrl.abort();
    const s = state.get();
    if (spec.needsNode !== false && !s.node) {
      csv.set(null);
      clear(body).append(note('empty', spec.emptyText || 'Click a node in the Sankey to see its call sites here.'));
      return;
    }
    ctrl = new AbortController();
    const mine = ctrl;
    clear(body).append(note('loading', 'Loading…'));
    try {
      const { doc, csv: url } = await spec.fetch(s, mine.signal);
      if (mine.signal.aborted) return;
      last = doc;
      csv.set(url);
      await draw(doc);
    } catch (e) {
      if (e && e.code === 'aborted') return;
      csv.set(null);
      clear(body).append(errorBox(e, `load the ${spec.title || spec.name}`),
        h('p', { class: 'small muted' }, 'Choose another node or clear the run subset, then try again.'));
    }
  }

  const watch = spec.watch || ['node', 'runs', 'target', 'metric', 'reveal'];
  const off = state.subscribe((s, changed) => {
    if (changed.some((k) => watch.includes(k))) refresh();
    else if (spec.redrawOn && changed.some((k) => spec.redrawOn.includes(k))) redraw();
  });
  refresh();
  return {
    destroy() { off(); if (ctrl) ctrl.abort(); tip.hide(); clear(el); },
    refresh,
  };
}
