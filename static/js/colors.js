// colors.js: the one task-type -> colour map of the dashboard, the same in
// every view and every trace, so that a dgemm is the same green in the
// Gantt, the allocation bars and a six-trace comparison.
//
// Palette rules (static/README.md, "Colours"):
// 1. Known kernels get fixed colours that follow StarVZ (potrf/getrf red,
//    trsm blue, syrk purple, gemm green, matrix generation orange, ...). A
//    name is reduced to its kernel: the case, the precision letter (s, d, c,
//    z), a prefix (starpu_, chol_model_, ...) and a device suffix (_cpu,
//    _cuda) are ignored, so "dgemm", "GEMM", "chol_model_gemm" and
//    "starpu_sgemm_gemm" share one colour. qr_mumps's tasks (do_subtree,
//    asm, init, ...) are known too.
// 2. StarPU's runtime states (Sleeping, Overhead, FetchingInput, Callback,
//    ...) get fixed light or dark colours, distinct from the kernels' (they
//    are drawn next to tasks in the Timeline and the Aggregation views).
// 3. Any other name is hashed (FNV-1a) into PALETTE, colours picked greedily
//    to be far (CIEDE2000) from each other and from the fixed ones, so it too
//    gets the same colour everywhere.
// tests/browser/colors.test.mjs checks that the colours of the types present
// in each real trace are pairwise distinct (CIEDE2000).

const KNOWN = {
  potrf: '#e41a1c', getrf: '#e41a1c', getrf_nopiv: '#e41a1c', geqrt: '#e41a1c', gelqt: '#e41a1c', tstrf: '#e41a1c',
  trsm: '#377eb8', tsqrt: '#377eb8', tplqt: '#377eb8', tpqrt: '#377eb8', gessm: '#377eb8',
  syrk: '#984ea3', herk: '#984ea3', ormqr: '#984ea3', unmqr: '#984ea3', ormlq: '#984ea3', unmlq: '#984ea3',
  gemqrt: '#984ea3',
  gemm: '#4daf4a', tsmqr: '#4daf4a', tpmqrt: '#4daf4a', tsmlq: '#4daf4a', tpmlqt: '#4daf4a', ssssm: '#4daf4a',
  plgsy: '#ff7f00', plrnt: '#ff7f00', plghe: '#ff7f00', plgtr: '#ff7f00',
  lauum: '#a65628', trtri: '#f781bf', trmm: '#17becf', symm: '#bcbd22', hemm: '#bcbd22',
  lacpy: '#8c8c8c', laset: '#5c5c5c', lascal: '#5c5c5c', geadd: '#1b7837', tradd: '#1b7837',
  // qr_mumps (its elimination-tree tasks, next to geqrt/gemqrt/tpqrt/tpmqrt)
  init: '#ff7f00', do_subtree: '#17becf', asm: '#a65628', clean: '#8c8c8c', apply: '#f781bf', solve: '#bcbd22',
  analyse: '#1b7837',
};

// StarPU's own example codelets (examples/cholesky, examples/lu).
const ALIASES = {
  chol_model_11: 'potrf', chol_model_21: 'trsm', chol_model_22: 'gemm',
  lu_model_11: 'getrf', lu_model_12: 'trsm', lu_model_21: 'trsm', lu_model_22: 'gemm',
  cl11: 'potrf', cl21: 'trsm', cl22: 'gemm',
};

// StarPU's runtime states: greys for waiting, light tints for the runtime's
// own work (each far from the kernel colour of the same hue).
const RUNTIME_STATES = {
  sleeping: '#e5e7eb', idle: '#d2bda9', polling: '#d6d6a8', initializing: '#7a8aa6', deinitializing: '#2f3b4f',
  overhead: '#fdae6b', scheduling: '#cab2d6', fetchinginput: '#a6cee3', pushingoutput: '#b2df8a',
  callback: '#fb9a99', progressing: '#ffff99', 'submitting task': '#8dd3c7',
  // memory-node states (their own containers)
  allocating: '#543005', allocatingreuse: '#35978f', freeing: '#01665e', writingback: '#bf812d',
  reclaiming: '#dfc27d',
};

// Colours for other names: greedy max-min CIEDE2000 picks (L* 35-80,
// chroma >= 30), at least 13 from each other and from every fixed colour.
const PALETTE = [
  '#776600', '#0033ff', '#aa0044', '#bb8800', '#008888', '#bb77ff', '#ff0066', '#778844', '#ff00dd', '#00aa88',
  '#00aaff', '#555599', '#bb8866', '#33dd99', '#6666ff', '#006655', '#bb6688', '#aa00ff', '#aaaaff', '#eebb33',
];

// The hashed palette (for tests and legends; do not mutate).
export const TYPE_PALETTE = Object.freeze([...PALETTE]);

export const IDLE_COLOR = '#f3f4f6';
export const CRITICAL_COLOR = '#c026d3';

const DEVICE = new Set(['cpu', 'cuda', 'gpu', 'opencl', 'hip']);

// `name` if it is a known kernel, or without its precision letter if that is.
function knownKernel(name) {
  if (ALIASES[name]) return ALIASES[name];
  if (KNOWN[name]) return name;
  if (/^[sdcz][a-z]/.test(name) && KNOWN[name.slice(1)]) return name.slice(1);
  return null;
}

// "dgemm" -> "gemm", "GEMM" -> "gemm", "dgetrf_nopiv" -> "getrf_nopiv",
// "chol_model_potrf" -> "potrf", "starpu_sgemm_gemm" -> "gemm";
// null when the name is no known kernel. The longest known tail of the
// name's words wins.
export function kernelOf(name) {
  const n = String(name).toLowerCase().trim();
  const whole = knownKernel(n);
  if (whole) return whole;
  const words = n.split(/[^a-z0-9]+/).filter(Boolean);
  while (words.length > 1 && DEVICE.has(words[words.length - 1])) words.pop();
  for (let i = 0; i < words.length; i++) {
    const k = knownKernel(words.slice(i).join('_'));
    if (k) return k;
  }
  return null;
}

function hash(text) {
  let x = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    x ^= text.charCodeAt(i);
    x = Math.imul(x, 0x01000193) >>> 0;
  }
  return x;
}

const cache = new Map();

// The colour of task type `name` (a CSS hex colour).
export function typeColor(name) {
  let c = cache.get(name);
  if (c) return c;
  const k = kernelOf(name);
  c = k ? KNOWN[k] : RUNTIME_STATES[String(name).toLowerCase().trim()] || PALETTE[hash(String(name)) % PALETTE.length];
  cache.set(name, c);
  return c;
}

// The darker variant used for outlier tasks (about 45 % of the brightness).
export function outlierColor(name) {
  const key = `outlier:${name}`;
  let c = cache.get(key);
  if (c) return c;
  c = scale(typeColor(name), 0.45);
  cache.set(key, c);
  return c;
}

function scale(hex, f) {
  const v = Number.parseInt(hex.slice(1), 16);
  const ch = (s) => Math.round(((v >> s) & 255) * f).toString(16).padStart(2, '0');
  return `#${ch(16)}${ch(8)}${ch(0)}`;
}

// Text colour readable on `hex` (for labels drawn over task colours).
export function textOn(hex) {
  const v = Number.parseInt(hex.slice(1), 16);
  const lum = 0.299 * ((v >> 16) & 255) + 0.587 * ((v >> 8) & 255) + 0.114 * (v & 255);
  return lum > 150 ? '#111827' : '#ffffff';
}

// ---- the other colours of the views ------------------------------------------
// Every colour the dashboard draws with is defined in this module (css/app.css
// aside); tests/browser/module_graph.test.mjs checks that no other module has
// a colour literal.

// The Gantt canvas (lib/gantt_chart.js).
export const GANTT = {
  stripe: '#f7f8fa',                        // every other row
  taskSeparator: 'rgba(255,255,255,0.55)',  // between adjacent tasks
  nodeLine: '#6b7280',                      // between nodes
  nodeHeader: '#eef2f7',                    // the header row of a node
  resourceLine: '#9ca3af',                  // between resource types
};

// pIC (views/pic.js): idle-like states in greys so that the work stands out.
export const PIC_IDLE = '#d1d5db';
export const PIC_IDLE_LIKE = '#9ca3af';   // sleeping, nothing

// Data movement (views/datamove.js): event categories and the topology.
export const DATAMOVE = {
  category: { data_movement: '#d62728', gpu_compute: '#2ca02c', cpu_compute: '#8e44ad', runtime_api: '#e6b800' },
  boxEven: '#fff', boxOdd: '#f4f5f7',       // topology boxes without a value, by depth
  gpuStroke: '#2ca02c', boxStroke: '#9aa3ad',
  textDark: '#333', textLight: '#fff',
  cellEmpty: '#fff', cellStroke: '#e1e4e8',
};

// Super graph (views/supergraph.js): the hatch of the exclusive share and
// the fallback colour of a node not drawn.
export const SUPERGRAPH = {
  hatchFill: 'rgba(255,255,255,0.55)', hatchStroke: 'rgba(30,41,59,0.55)', missingNode: '#cbd5e1',
};

// Regression (views/regression.js): the legend keys (the plot itself is
// coloured by css/app.css).
export const REGRESSION = { fit: '#16a34a', limit: '#dc2626', anomaly: '#f97316' };

// Elimination tree (views/atree.js), after Miletto's thesis.
export const ATREE = {
  kernels: { geqrt: '#FF7F00', gemqrt: '#377EB8', tpqrt: '#F781BF', tpmqrt: '#A65628' },
  otherKernel: '#444',
  start: '#1B9E77', end: '#D95F02',         // child -> parent arrows
  init: '#4DAF4A', assembly: '#000', lifespan: '#9ecae1',
  notPruned: '#2563eb', pruned: '#16a34a', memory: '#7c3aed',
  ahead: '#2563eb', behind: '#dc2626',      // cumulative difference
  fasterAhead: '#1a9850', slowerAhead: '#b2182b',
};
const GREENS = ['#c7e9c0', '#a1d99b', '#74c476', '#41ab5d', '#238b45', '#006d2c', '#00441b'];
const RED_GREEN = ['#fcbba1', '#cb181d', '#a1d99b', '#006d2c'];
const MULTI = ['#fdd0a2', '#fd8d3c', '#d94801', '#c6dbef', '#6baed6', '#2171b5', '#fcbba1', '#fb6a4a', '#cb181d', '#a1d99b', '#41ab5d', '#006d2c'];
const YLORRD = ['#ffffb2', '#fed976', '#feb24c', '#fd8d3c', '#fc4e2a', '#e31a1c', '#b10026'];

// The anomaly colour of a qr_mumps kernel ("dgeqrt" -> geqrt's).
export function kernelColor(type) {
  const t = String(type).toLowerCase();
  for (const k of ['tpmqrt', 'gemqrt', 'tpqrt', 'geqrt']) if (t.includes(k)) return ATREE.kernels[k];
  return ATREE.otherKernel;
}

// The colour a fraction f of the way from hex colour a to hex colour b.
function mix(a, b, f) {
  const pa = [1, 3, 5].map((i) => parseInt(a.slice(i, i + 2), 16));
  const pb = [1, 3, 5].map((i) => parseInt(b.slice(i, i + 2), 16));
  return `rgb(${pa.map((v, i) => Math.round(v + (pb[i] - v) * f)).join(',')})`;
}

// v in [lo, hi] on blue (lo) - yellow (mid) - red (hi).
export function heatColor(v, lo, hi) {
  const f = hi > lo ? Math.max(0, Math.min(1, (v - lo) / (hi - lo))) : 1;
  return f < 0.5 ? mix('#2c7bb6', '#ffff8c', f * 2) : mix('#ffff8c', '#d7191c', (f - 0.5) * 2);
}

// v in [-lim, lim] on red (-) - grey (0) - green (+).
export function divergingColor(v, lim) {
  const f = Math.max(-1, Math.min(1, v / (lim || 1)));
  return f < 0 ? mix('#e5e7eb', '#b2182b', -f) : mix('#e5e7eb', '#1a9850', f);
}

// n colours interpolated along the stops.
function ramp(stops, n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const t = n === 1 ? 0 : i / (n - 1) * (stops.length - 1);
    const k = Math.min(stops.length - 2, Math.floor(t));
    out.push(mix(stops[k], stops[k + 1], t - k));
  }
  return out;
}

// n colours for the tree depths (yellow-orange-red, the deepest first).
export function depthColors(n) {
  return ramp(YLORRD, Math.max(2, n)).reverse();
}

// n colours for the reused layers of the tree nodes (greens when few).
export function layerColors(n) {
  return ramp(n <= 10 ? GREENS : n <= 20 ? RED_GREEN : MULTI, Math.max(2, n)).reverse();
}

// ---- d3 colour scales ----------------------------------------------------------
// `d3` is getD3() (js/d3.js); passed in so that this module needs no d3.

// White to red over `domain` (data movement: utilisation, bytes).
export function redScale(d3, domain) {
  return d3.scaleSequential(d3.interpolateReds).domain(domain);
}

// Light orange to dark red over `domain` (super graph: time).
export function heatScale(d3, domain) {
  return d3.scaleSequential(d3.interpolateOrRd).domain(domain);
}

// Red - white - blue over a three-value `domain` (super graph: difference).
export function differenceScale(d3, domain) {
  return d3.scaleDiverging(d3.interpolateRdBu).domain(domain);
}

// ---- Paje state values (views/timeline.js, the Gantt's runtime band) ---------
// StarPU's runtime states have fixed colours (RUNTIME_STATES above), so that
// Sleeping reads the same in every trace.

// The colour of state value `name`: a runtime state's or a known kernel's
// fixed colour (as in the Gantt), else the Paje colour the trace declares
// ("r g b" in [0, 1]) unless it is too light to see on white, else the
// task-type colour of the name.
export function stateColor(name, pajeColor) {
  const fixed = RUNTIME_STATES[String(name).toLowerCase().trim()];
  if (fixed) return fixed;
  if (kernelOf(name)) return typeColor(name);
  const rgb = typeof pajeColor === 'string' ? pajeColor.trim().split(/\s+/).map(Number) : [];
  if (rgb.length === 3 && rgb.every((v) => Number.isFinite(v) && v >= 0 && v <= 1)) {
    const lum = 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2];
    if (lum < 0.85) {
      return `#${rgb.map((v) => Math.round(v * 255).toString(16).padStart(2, '0')).join('')}`;
    }
  }
  return typeColor(name);
}

// The MPI communication lines drawn over the Gantt, and the timeline's frame.
// The ensemble views (spec_callflow.md 2.13): the target green, the
// ensemble grey, hovered call sites, outliers, an absent call site's empty
// bar, the diff's red (comparison slower) to green (faster).
export const ENSEMBLE = {
  target: '#16a34a',
  ensemble: '#9ca3af',
  ensembleBar: '#cbd5e1',
  highlight: '#f97316',
  outlier: '#dc2626',
  absent: '#ffffff',
  empty: '#eeeeee',
  diff: ['#b91c1c', '#f8fafc', '#15803d'],
};

const spread = ([lo, hi]) => (hi > lo ? [lo, hi] : [lo, lo + 1]);

// White to red over the gradient bin counts [lo, hi] (how many runs fall in
// a bin: spec 2.13's single-hue white-red, one domain for every node).
export function countScale(d3, domain) {
  return d3.scaleSequential(d3.interpolateReds).domain(spread(domain));
}

// Light to dark blue over [0, max] of a node's border value (exc_max).
export function borderScale(d3, max) {
  return d3.scaleSequential((t) => d3.interpolateBlues(0.25 + 0.75 * t)).domain(spread([0, max || 1]));
}

export const TIMELINE = {
  mpiLine: 'rgba(30,64,175,0.55)',
  mpiLineBackwards: 'rgba(220,38,38,0.6)', // ends before it starts (the ranks' clocks differ)
  groupLine: '#9ca3af',
  stripe: '#f7f8fa',
};

// ---- sampled metrics (views/pdes.js, lib/pdes_*.js) ----------------------------
// One categorical palette for the clusters of every PDES view (polylines,
// scatter, ring bars, legend): Tableau 10, then the hashed palette.
const CLUSTER_PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];

export const PDES = {
  unclustered: '#64748b',   // an entity before any clustering
  dimmed: '#cbd5e1',        // not selected while a selection exists
  selected: '#111827',      // the outline of selected marks
  stroke: '#dc2626',        // the freeform stroke and the lasso
  boundary: '#334155',      // segment boundaries
  boundarySelected: '#dc2626',
  overview: '#2563eb',      // the overview's line
};

// The colour of cluster `label` (0-based).
export function clusterColor(label) {
  if (!Number.isInteger(label) || label < 0) return PDES.unclustered;
  const all = CLUSTER_PALETTE.concat(PALETTE);
  return all[label % all.length];
}

// Blue (weak) to red (strong) over `domain`: the communication ribbons.
export function commScale(d3, domain) {
  const [lo, hi] = domain;
  return d3.scaleSequential((t) => d3.interpolateRdYlBu(1 - t)).domain([lo, hi > lo ? hi : lo + 1]);
}

// ---- live runs (views/live.js, lib/live_*.js; Fig. 6.5 of seed 004) ----------
// Change points are numbered teal vertical lines (a1, a2, b1, b2); the base
// time a brown draggable line (b1, b2); the live and base matrices (e1, e2)
// a grey sequential map, the differences (e3) a red-blue divergent one;
// significant causality rows (d) a yellow background.
export const LIVE = {
  changePoint: '#0d9488',   // teal
  base: '#8b5a2b',          // brown
  history: '#334155',       // the history polyline (mean over entities)
  significant: '#fef08a',   // yellow
  matrixEmpty: '#ffffff',   // a zero cell of the live and base matrices
  matrixText: '#334155',    // row and column names of the matrices
};

// White (0) to near black (max) on a square-root scale (communication is
// sparse and skewed): the live and base communication matrices.
export function liveGreyScale(d3, max) {
  return d3.scaleSequentialSqrt((t) => d3.interpolateGreys(0.04 + 0.92 * t)).domain([0, max > 0 ? max : 1]);
}

// Blue (comm(cp) < comm(base)) - white (0) - red (more): the difference matrices.
export function liveDiffScale(d3, lim) {
  const l = lim > 0 ? lim : 1;
  return d3.scaleDiverging((t) => d3.interpolateRdBu(1 - t)).domain([-l, 0, l]);
}

// ---- event traces (issue 19: views/events_*.js, the timeline's messages) -----
// A function (region) name has one colour in every view of an event trace:
// the timeline's states, the time profile's areas, the flat profile's
// swatches, the imbalance bars (the task-type map above, by name).
// MPI's functions have fixed colours (sends blue, receives orange, waits
// red, collectives purple, set-up greys, main a light tan under its callees)
// so that a small trace's few names never share a hashed colour.
export function functionColor(name) {
  const n = String(name).toLowerCase().trim();
  for (const [re, colour] of MPI_FUNCTIONS) if (re.test(n)) return colour;
  return stateColor(name, null);
}

const MPI_FUNCTIONS = [
  [/^mpi_[ibsr]?send$|^mpi_i?[bsr]send$|^mpisend$/, '#1f77b4'],
  [/^mpi_i?recv$|^mpirecv$/, '#ff7f0e'],
  [/^mpi_sendrecv/, '#17becf'],
  [/^mpi_wait/, '#d62728'],
  [/^mpi_test/, '#e377c2'],
  [/^mpi_barrier$/, '#8c564b'],
  [/^mpi_i?(all)?reduce|^mpi_i?bcast$|^mpi_i?(all)?gatherv?$|^mpi_i?alltoallv?$|^mpi_i?scatterv?$|^mpi_i?reduce_scatter/, '#9467bd'],
  [/^mpi_init/, '#94a3b8'],
  [/^mpi_finalize$/, '#475569'],
  [/^mpi_comm_rank$/, '#2ca02c'],
  [/^mpi_comm_size$/, '#bcbd22'],
  [/^(int )?main\b|^main$/, '#e7d8bf'],
];

export const EVENTS = {
  message: 'rgba(17,24,39,0.75)',          // a message line (send -> receive)
  messageBackwards: 'rgba(220,38,38,0.8)', // received before it was sent (clocks differ)
  messageHover: '#f97316',                 // the message under the pointer
  dimmed: 'rgba(255,255,255,0.72)',        // veil over the states of other functions
  focus: '#111827',                        // outline of the focused function
  sent: '#2563eb',                         // per-process bars: sent
  received: '#f59e0b',                     // per-process bars: received
  histogram: '#4b5563',                    // message-size histogram bars
  overTime: '#0d9488',                     // communication over time
  idle: '#e2e8f0',                         // time in no function (time profile)
  idleBar: '#9ca3af',                      // idle time per rank (time in waits)
  lateSender: '#dc2626',
  lateReceiver: '#7c3aed',
  matrixEmpty: '#f8fafc',                  // a zero cell of the comm matrix
  cellText: '#111827',
};

// White-ish to dark blue over [0, max]: the communication matrix (square root:
// communication is skewed).
export function matrixScale(d3, max) {
  return d3.scaleSequentialSqrt((t) => d3.interpolateBlues(0.08 + 0.92 * t)).domain([0, max > 0 ? max : 1]);
}
