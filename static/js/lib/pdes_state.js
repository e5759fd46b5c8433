// lib/pdes_state.js: the linked state of the Behaviour view of a
// sampled-metrics trace (views/pdes.js): the brushed range, the metrics,
// the cluster and projection settings, the segment boundaries, the entities
// filtered out, the selection and the cluster labels. Every panel listens to
// it; set() tells each listener which keys changed. The URL form (params())
// keeps everything but the selection and the labels (recomputed).
//
//   const st = new PdesState(params, summary);
//   st.on((changed) => { if (changed.has('selection')) redraw(); });
//   st.set({ range: [t0, t1] });

const METHODS = ['kmeans', 'pam', 'complete'];
const DISTANCES = ['euclidean', 'dtw', 'twed'];
const PROJECTIONS = ['mds', 'tsne'];
const STATS = ['max', 'mean', 'std'];
const COMM = ['send', 'recv', 'sum', 'max'];
export const OPTIONS = { METHODS, DISTANCES, PROJECTIONS, STATS, COMM };

const PREFERRED = ['RbTotal', 'NetworkSend', 'NetworkRecv', 'RbSec', 'NeventProcessed', 'VirtualTimeDiff'];

const num = (s) => (s !== undefined && s !== '' && Number.isFinite(Number(s)) ? Number(s) : null);
const pick = (v, list, dflt) => (list.includes(v) ? v : dflt);
const ids = (s) => new Set(String(s || '').split(',').filter((x) => /^\d+$/.test(x)).map(Number));

// The default metrics: the usual ROSS ones when present, else the first two.
export function defaultMetrics(metrics) {
  const pref = PREFERRED.filter((m) => metrics.includes(m));
  const rest = metrics.filter((m) => !pref.includes(m));
  const all = pref.concat(rest);
  return [all[0], all[1] || all[0]];
}

// The level that has the values: the finest one listed.
export function defaultLevel(summary) {
  const levels = Object.keys(summary.entities || {});
  return levels[levels.length - 1] || null;
}

export class PdesState {
  constructor(params, summary) {
    const metrics = summary.metrics || [];
    const [d1, d2] = defaultMetrics(metrics);
    const levels = Object.keys(summary.entities || {});
    const t0 = num(params.t0), t1 = num(params.t1);
    this.summary = summary;
    this.metrics = metrics;
    this.levels = levels;
    this.s = {
      range: t0 !== null && t1 !== null && t0 < t1 ? [t0, t1] : null,
      om: pick(params.om, metrics, d1),
      stat: pick(params.stat, STATS, 'max'),
      m1: pick(params.m1, metrics, d1),
      m2: pick(params.m2, metrics, d2),
      gran: pick(params.gran, levels, defaultLevel(summary)),
      method: pick(params.method, METHODS, 'kmeans'),
      k: Math.max(1, Math.min(20, Math.round(num(params.k) || 3))),
      dist: pick(params.dist, DISTANCES, 'euclidean'),
      clustered: params.cl === '1',
      proj: pick(params.proj, PROJECTIONS, 'mds'),
      projected: params.pj === '1',
      cuts: String(params.cuts || '').split(',').map(num).filter((v) => v !== null).sort((a, b) => a - b),
      hide: ids(params.hide),
      cm: pick(params.cm, COMM, 'send'),
      ring: params.ring && metrics.includes(params.ring) ? params.ring : null,
      thr: Math.max(0, Math.min(1, num(params.thr) ?? 0)),
      selection: new Set(),
      labels: null,      // Map entity id -> cluster label, or null
    };
    if (this.s.method === 'kmeans' && this.s.dist !== 'euclidean') this.s.dist = 'euclidean';
    this.listeners = [];
  }

  get(key) { return this.s[key]; }

  on(fn) { this.listeners.push(fn); return () => { this.listeners = this.listeners.filter((f) => f !== fn); }; }

  // Applies `patch` and tells the listeners the keys whose value changed.
  set(patch) {
    const changed = new Set();
    for (const [k, v] of Object.entries(patch)) {
      if (!same(this.s[k], v)) { this.s[k] = v; changed.add(k); }
    }
    if (changed.size) for (const fn of [...this.listeners]) fn(changed);
    return changed;
  }

  // True when entity `id` is not filtered out.
  visible(id) { return !this.s.hide.has(id); }

  // The URL parameters of this state.
  params() {
    const s = this.s;
    const p = { om: s.om, stat: s.stat, m1: s.m1, m2: s.m2, gran: s.gran, method: s.method, k: s.k, dist: s.dist,
      proj: s.proj, cm: s.cm, ring: s.ring || undefined, thr: s.thr ? s.thr : undefined,
      cl: s.clustered ? 1 : undefined, pj: s.projected ? 1 : undefined };
    if (s.range) { p.t0 = s.range[0]; p.t1 = s.range[1]; }
    if (s.cuts.length) p.cuts = s.cuts.join(',');
    if (s.hide.size) p.hide = [...s.hide].sort((a, b) => a - b).join(',');
    return p;
  }
}

function same(a, b) {
  if (a === b) return true;
  if (a instanceof Set && b instanceof Set) return a.size === b.size && [...a].every((x) => b.has(x));
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => x === b[i]);
  return false;
}

// Segment labels: 0 -> 'A', 25 -> 'Z', 26 -> 'AA'.
export function segmentLabel(i) {
  let s = '', n = i;
  do { s = String.fromCharCode(65 + (n % 26)) + s; n = Math.floor(n / 26) - 1; } while (n >= 0);
  return s;
}

// The segments of `time` (sorted sample times of the range) cut at the
// boundary times `cuts` (each the first time of a new segment):
// [{i0, i1, t0, t1, label}], i1 inclusive.
export function segmentsOf(time, cuts) {
  if (!time.length) return [];
  const starts = [0];
  for (const c of cuts) {
    let i = time.findIndex((t) => t >= c);
    if (i > 0 && i > starts[starts.length - 1]) starts.push(i);
  }
  return starts.map((i0, k) => {
    const i1 = k + 1 < starts.length ? starts[k + 1] - 1 : time.length - 1;
    return { i0, i1, t0: time[i0], t1: time[i1], label: segmentLabel(k) };
  });
}
