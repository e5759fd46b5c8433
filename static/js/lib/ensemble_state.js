// lib/ensemble_state.js: the linked state of the ensemble analysis views
// (spec_callflow.md 3.3: "five inter-linked views and three analytic
// modes"). One state object per open ensemble page; every view reads it,
// changes it with set() and redraws from subscribe(). Fields:
//   runs        null (every member) or the trace ids of a subset (a text
//               guide's bin, a selection in the projection); sent as runs=
//   target      null or the trace id of the target run (target mode; green)
//   comparison  null or the trace id compared with the target (diff mode:
//               baseline = target, comparison = this)
//   node        null or the selected supernode {id, key, name, module}
//   callsite    null or the call site name revealed from the icicle
//   reveal      null or the supernode {id, key, name, module} whose call sites
//               are drawn apart (split by call site: sent as split= so that
//               every view has the same nodes); node is then the part
//               holding the revealed call site
//   metric      'inclusive' | 'exclusive': the metric of the gradients
//   mode        'ensemble' | 'target' | 'diff' (derived: diff when target
//               and comparison, target when target only)
// The page keeps runs, target, comparison, node (by key) and metric in its
// URL (#/ensembles/{id}?runs=..&target=..&comparison=..&node=..&metric=..):
// stateFromParams and stateToParams below convert.
const FIELDS = ['runs', 'target', 'comparison', 'node', 'callsite', 'metric', 'reveal'];

function sameRuns(a, b) {
  if (a === b) return true;
  if (!a || !b || a.length !== b.length) return false;
  return a.every((v, i) => v === b[i]);
}

function equal(key, a, b) {
  if (key === 'runs') return sameRuns(a, b);
  if (key === 'node') return (a && a.key) === (b && b.key);
  if (key === 'reveal') return (a && a.id) === (b && b.id);
  return a === b;
}

function modeOf(s) {
  if (s.target != null && s.comparison != null) return 'diff';
  return s.target != null ? 'target' : 'ensemble';
}

// createEnsembleState({ id, members: [{trace_id, name}], initial }) -> state
export function createEnsembleState({ id, members, initial = {} }) {
  let s = { runs: null, target: null, comparison: null, node: null, callsite: null, metric: 'inclusive', reveal: null };
  for (const k of FIELDS) if (initial[k] !== undefined) s[k] = initial[k];
  s.mode = modeOf(s);
  const listeners = new Set();
  const names = new Map(members.map((m) => [m.trace_id, m.name]));
  return {
    id,
    members,
    get: () => s,
    // The member's name (or "trace N").
    runName: (traceId) => names.get(traceId) || `trace ${traceId}`,
    // Applies a patch; listeners get (state, changedKeys) when anything changed.
    set(patch) {
      const next = { ...s };
      const changed = [];
      for (const k of FIELDS) {
        if (!(k in patch) || equal(k, s[k], patch[k])) continue;
        next[k] = patch[k];
        changed.push(k);
      }
      if (next.runs && next.runs.length === 0) next.runs = null;
      if (!changed.length) return;
      next.mode = modeOf(next);
      s = next;
      for (const fn of [...listeners]) fn(s, changed);
    },
    subscribe(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    // runs= and target= (when set) plus `extra`, as a query string without '?'.
    query(extra = {}) {
      const q = new URLSearchParams();
      if (s.runs) q.set('runs', s.runs.join(','));
      if (s.target != null && (!s.runs || s.runs.includes(s.target))) q.set('target', String(s.target));
      if (s.reveal) q.set('split', JSON.stringify([{ id: s.reveal.id, by: 'callsite' }]));
      for (const [k, v] of Object.entries(extra)) if (v != null && v !== '') q.set(k, String(v));
      return q.toString();
    },
  };
}

// ---- the URL form of the state (the page's hash query) ----

function idList(text, members) {
  const known = new Set(members.map((m) => m.trace_id));
  const ids = String(text || '').split(',').map(Number).filter((v) => known.has(v));
  return ids.length ? [...new Set(ids)] : null;
}

function oneId(text, members) {
  const ids = idList(text, members);
  return ids ? ids[0] : null;
}

// The initial state of a page from its hash parameters ({runs, target,
// comparison, node (a key), metric}); unknown trace ids are dropped.
export function stateFromParams(params, members) {
  const target = oneId(params.target, members);
  const comparison = target != null ? oneId(params.comparison, members) : null;
  return {
    runs: idList(params.runs, members),
    target,
    comparison: comparison === target ? null : comparison,
    node: params.node && /^[0-9a-f]{16}$/.test(params.node) ? { key: params.node } : null,
    metric: params.metric === 'exclusive' ? 'exclusive' : 'inclusive',
    reveal: params.reveal && params.reveal.length <= 512 ? { id: params.reveal } : null,
    callsite: params.reveal && params.callsite ? String(params.callsite) : null,
  };
}

// The hash parameters of a state (the defaults left out).
export function stateToParams(s) {
  return {
    runs: s.runs ? s.runs.join(',') : null,
    target: s.target,
    comparison: s.comparison,
    node: s.node ? s.node.key : null,
    metric: s.metric === 'inclusive' ? null : s.metric,
    reveal: s.reveal ? s.reveal.id : null,
    callsite: s.reveal && s.callsite ? s.callsite : null,
  };
}

// The histogram bins of the ensemble views' gradients.
export const BINS = 20;

// The super graph query of a state (runs=, target=, split=, bins=), as an
// object: one key for the graph the Sankey and the juxtaposed view share.
export function graphQuery(state) {
  return Object.fromEntries(new URLSearchParams(state.query({ bins: BINS })));
}
