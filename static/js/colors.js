// colors.js: the one task-type -> colour map of the dashboard, the same in
// every view and every trace, so that a dgemm is the same green in the
// Gantt, the allocation bars and a six-trace comparison.
//
// Well-known dense linear algebra kernels (Chameleon/MORSE, StarPU's
// examples, DPLASMA) get fixed colours that follow StarVZ (potrf/getrf red,
// trsm blue, syrk purple, gemm green, matrix generation orange); the
// precision letter (s, d, c, z) and the case are ignored, so "dgemm",
// "sgemm" and "GEMM" share one colour. Any other name is hashed (FNV-1a)
// into a fixed palette, so it too gets the same colour everywhere.

const KNOWN = {
  potrf: '#e41a1c', getrf: '#e41a1c', getrf_nopiv: '#e41a1c', geqrt: '#e41a1c', gelqt: '#e41a1c',
  trsm: '#377eb8', tsqrt: '#377eb8', tplqt: '#377eb8',
  syrk: '#984ea3', herk: '#984ea3', ormqr: '#984ea3', unmqr: '#984ea3', ormlq: '#984ea3', unmlq: '#984ea3',
  gemm: '#4daf4a', tsmqr: '#4daf4a', tpmqrt: '#4daf4a', tsmlq: '#4daf4a', tpmlqt: '#4daf4a',
  plgsy: '#ff7f00', plrnt: '#ff7f00', plghe: '#ff7f00', plgtr: '#ff7f00',
  lauum: '#a65628', trtri: '#f781bf', trmm: '#17becf', symm: '#bcbd22', hemm: '#bcbd22',
  lacpy: '#8c8c8c', laset: '#b3b3b3', lascal: '#b3b3b3', geadd: '#66c2a5', tradd: '#66c2a5',
  gessm: '#377eb8', tstrf: '#e41a1c', ssssm: '#4daf4a',
};

// StarPU's own example codelets (examples/cholesky, examples/lu).
const ALIASES = {
  chol_model_11: 'potrf', chol_model_21: 'trsm', chol_model_22: 'gemm',
  lu_model_11: 'getrf', lu_model_12: 'trsm', lu_model_21: 'trsm', lu_model_22: 'gemm',
  cl11: 'potrf', cl21: 'trsm', cl22: 'gemm',
};

// Colours for other names, chosen to stay clear of the fixed ones above.
const PALETTE = [
  '#1b9e77', '#d95f02', '#7570b3', '#e7298a', '#66a61e', '#e6ab02', '#a6761d', '#1f78b4',
  '#b15928', '#6a3d9a', '#fb9a99', '#cab2d6', '#b2df8a', '#fdbf6f', '#8dd3c7', '#80b1d3',
  '#bc80bd', '#fccde5', '#d9d9d9', '#ccebc5',
];

export const IDLE_COLOR = '#f3f4f6';
export const CRITICAL_COLOR = '#c026d3';

// "dgemm" -> "gemm", "GEMM" -> "gemm", "dgetrf_nopiv" -> "getrf_nopiv";
// null when the name is no known kernel.
function kernelOf(name) {
  const n = String(name).toLowerCase().trim();
  if (ALIASES[n]) return ALIASES[n];
  if (KNOWN[n]) return n;
  const m = /^(?:starpu_|chameleon_|cl_)?([sdcz])?([a-z_]+?)(?:_(?:cpu|cuda|gpu|opencl))?$/.exec(n);
  if (m && KNOWN[m[2]]) return m[2];
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
  c = k ? KNOWN[k] : PALETTE[hash(String(name)) % PALETTE.length];
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
