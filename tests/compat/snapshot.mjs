#!/usr/bin/env node
// snapshot.mjs: records every GET answer of the REST API on real data, and
// compares two recordings byte for byte, to prove that a refactor changed
// no answer.
//
//   node tests/compat/snapshot.mjs record --ariadned PATH --out DIR
//                [--data DIR] [--static DIR] [--force]
//   node tests/compat/snapshot.mjs compare DIR_A DIR_B
//
// record: imports a fixed, sorted list of real traces and profiles (the
// shared data, ../shared/data or $ARIADNE_SHARED_DATA) into a fresh
// temporary database with `ariadned import`, serves it (--no-auth, a free
// loopback port; tests/lib/daemon.mjs), uploads one small Chrome trace
// through the API (so that /jobs has a job), then GETs a fixed list of
// requests in a fixed order and writes each answer (status, content type,
// body) to DIR, one file per request, plus DIR/index.json. The bodies are
// written as the daemon sent them, except for the values of the few volatile
// keys of VOLATILE_KEYS below. Inputs that are absent are skipped with a
// printed line, and so are the requests that need them.
//
// compare: matches the two indexes' requests and compares their files byte
// for byte; prints each differing request with the first differing lines
// (JSON pretty-printed with sorted keys, for display only) and the number
// compared; exits 1 if any differ (or is missing on one side), 0 otherwise.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repoDir = resolve(here, '..', '..');

// ---------------------------------------------------------------------------
// Volatile keys. The value of any of these JSON keys (wherever it occurs, when
// it is a string or a number; null stays null, so "set or not" is still
// compared) is replaced by the placeholder. Nothing else is touched.
// ---------------------------------------------------------------------------
const PLACEHOLDER = '"<volatile>"';
const VOLATILE_KEYS = new Map([
  // GET /health: seconds since this daemon process started (wall clock).
  ['uptime_s', 'seconds since the daemon started'],
  // GET /health?check=full: age in seconds of the reused integrity-check
  // result (wall clock).
  ['integrity_age_s', 'age of the cached integrity check'],
  // <trace> and <job>: the wall-clock date of the import / of the job's
  // creation (second resolution; changes with every recording).
  ['created_at', 'wall-clock date of import or job creation'],
  // <job>: the wall-clock date the upload job ended.
  ['finished_at', 'wall-clock date a job ended'],
  // GET /version and info.version of GET /openapi.json: the build's version
  // string; an old and a new build may carry different ones by design (the
  // key occurs nowhere else in the recorded answers).
  ['version', 'version string of the build'],
]);

// ---------------------------------------------------------------------------
// Inputs, imported one `ariadned import` call each, in this (sorted) order,
// so that trace ids are stable: 15 small inputs covering every kind (task
// trace, plain Paje, profile, data movement, Chrome trace): StarVZ CSV task
// traces, real StarPU bundles (plain, MPI, qr_mumps with its elimination
// tree), a plain Paje trace, profiles (Caliper json-split, HPCToolkit, native
// .cali), data movement (Kineto GPU traces, one with nvidia-smi samples), a
// Chrome trace (Perfetto flows) and a lone hwloc topology. Labels name them
// in the request templates below.
// ---------------------------------------------------------------------------
const INPUTS = [
  ['chrome_flow_v2', 'perfetto/test/trace_processor/diff_tests/parser/parsing/flow_events_json_v2.json'],
  ['dm_fill1', 'dmvis/data/use-case-1-GEMM-fill/fill-1-row-format.json'],
  ['dm_kopt', 'dmvis/data/use-case-2-GEMM-kernel-opt-w-metrics/kernel-opt-5-0.json'],
  ['hwloc', 'starpu/hwloc-topology.xml'],
  ['paje_mardi', 'pajeng/traces/simu-mardi.trace'],
  ['prof_cali_mpi', 'hatchet/hatchet/tests/data/caliper-ordered-cali-mpi'],
  ['prof_hpctk', 'hatchet/hatchet/tests/data/hpctoolkit-cpi-database'],
  ['prof_lulesh', 'hatchet/hatchet/tests/data/caliper-lulesh-json/lulesh-annotation-profile.json'],
  ['spu_chol', 'starpu/chol_implicit_dmdas_N11520_nb24'],
  ['spu_eager', 'starpu/chol_implicit_eager_N11520_nb24'],
  ['spu_mpi', 'starpu/mpi_chol_dmdas_4ranks_N11520_nb24_slowrank1_nice2'],
  ['spu_qrm_lws', 'starpu/qrm-grad3d30-lws'],
  ['spu_qrm_prio', 'starpu/qrm-grad3d30-prio'],
  ['svz_lu', 'starvz/inst/extdata/lu_trace'],
  ['svz_qr', 'starvz/extra_data/qr_trace'],
].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));

// Uploaded through POST /api/v1/traces after the daemon started (the only
// non-GET request besides the imports): gives /jobs a job.
const UPLOAD = ['up_speedscope', 'speedscope/sample/profiles/trace-event/simple.json', 'simple.json'];

// ---------------------------------------------------------------------------
// Requests: templates where {label} is the id of that input's trace. A
// request whose trace is absent is skipped. The order is fixed.
// ---------------------------------------------------------------------------
const q = (s) => encodeURIComponent(s);

// Task traces: label, two task types, a time window, a job id to walk the
// critical path from, a node for the node filter. `set`: 'full' gets every
// parameter variant, 'nodes' the main ones and the per-node variants (MPI
// runs), 'base' the main ones; `tree`: has an elimination tree.
const TASK_TRACES = [
  { t: 'svz_lu', types: ['dgemm', 'dtrsm'], win: [100, 400], from: '0_129', node: 1, set: 'full' },
  { t: 'spu_mpi', types: ['chol_model_gemm', 'chol_model_potrf'], win: [1000, 3000], from: '0_79', node: 2, set: 'nodes' },
  { t: 'spu_chol', types: ['GEMM', 'POTRF'], win: [500, 1000], from: '72', node: 0, set: 'base' },
  { t: 'spu_eager', types: ['GEMM', 'TRSM'], win: [500, 1000], from: null, node: 0, set: 'base' },
  { t: 'spu_qrm_lws', types: ['GEQRT', 'TPMQRT'], win: [100, 300], from: '4188', node: 0, set: 'base', tree: 'full' },
  { t: 'spu_qrm_prio', types: ['GEQRT', 'TPQRT'], win: [100, 300], from: null, node: 0, set: 'base', tree: 'base' },
  { t: 'svz_qr', types: ['lapack_geqrt', 'lapack_tpmqrt'], win: [1000, 5000], from: null, node: 0, set: 'base', tree: 'base' },
];

function buildRequests() {
  const R = [];
  const add = (...urls) => { for (const u of urls) R.push(u.startsWith('/') ? u : '/api/v1/' + u); };

  // ---- meta
  add('health', 'health?check=quick', 'health?check=full', 'version', 'openapi.json', 'topology', 'tokens');
  add('traces', 'traces/', 'traces?limit=3&offset=2', 'traces?kind=tasks', 'traces?kind=profile',
    'traces?kind=datamove', 'traces?kind=pdes', 'traces?name=CHOL&sort=name', 'traces?sort=-name',
    'traces?sort=-bytes&limit=4', 'traces?sort=created_at&limit=5', 'traces?offset=100');
  for (const [label] of [...INPUTS, UPLOAD]) add(`traces/{${label}}`);
  add('jobs', 'jobs?limit=1&offset=0', 'jobs/{job}');

  // ---- task-trace analyses
  for (const tt of TASK_TRACES) {
    const t = `traces/{${tt.t}}`;
    const [a, b] = tt.types;
    const w = `start=${tt.win[0]}&end=${tt.win[1]}`;
    add(`${t}/gantt?width=200`, `${t}/gantt?states=true`, `${t}/gantt?${w}&width=500`,
      `${t}/bounds?by=iteration`, `${t}/outliers`, `${t}/timeseries?width=100`, `${t}/critical-path`,
      `${t}/anomalies`, `${t}/progression`);
    if (tt.from) add(`${t}/critical-path?from=${tt.from}`);
    if (tt.set === 'full') {
      add(`${t}/gantt`, `${t}/gantt?${w}&width=300&states=true`, `${t}/gantt?width=50&max_tasks=0`,
        `${t}/gantt?width=400&max_tasks=1000000&types=${a}`, `${t}/gantt?resources=CPU&nodes=${tt.node}&min_duration=1`,
        `${t}/bounds`, `${t}/bounds?types=${a},${b}`, `${t}/bounds?nodes=${tt.node}`, `${t}/bounds?${w}`,
        `${t}/outliers?limit=3`, `${t}/outliers?types=${a}&min_duration=0.5`,
        `${t}/timeseries?per_node=1&width=50`, `${t}/timeseries?threshold=2&${w}&width=80`,
        `${t}/iterations`, `${t}/iterations?types=${a}`, `${t}/critical-path?type=${b}`,
        `${t}/critical-path?min_gap=0.01&${w}`,
        `${t}/models`, `${t}/anomalies?model=lr&points=all&limit=20`,
        `${t}/progression?steps=5&metric=count`, `${t}/progression?step_width=250`,
        `${t}/progression?weight=all_workers`, `${t}/progression?density=1&steps=3&bandwidth=0.05&nodes=${tt.node}`,
        `${t}/aggregation`, `${t}/aggregation?p=0&slices=3`, `${t}/aggregation?p=1`,
        `${t}/aggregation?p=0.2&slices=20&${w}`, `${t}/aggregation/levels?slices=4&${w}`,
        `${t}/movements?limit=20`, `${t}/movements?${w}&limit=5`, `${t}/movement-matrix`,
        `${t}/movement-matrix?window=${tt.win[0]},${tt.win[1]}`);
    } else if (tt.set === 'nodes') {
      add(`${t}/gantt?resources=CPU&nodes=${tt.node}&min_duration=1`, `${t}/bounds`, `${t}/bounds?nodes=${tt.node}`,
        `${t}/timeseries?per_node=1&width=50`, `${t}/iterations`, `${t}/models`,
        `${t}/progression?weight=all_workers`, `${t}/progression?density=1&steps=3&bandwidth=0.05&nodes=${tt.node}`,
        `${t}/aggregation?slices=4`, `${t}/aggregation/levels?slices=4&${w}`, `${t}/movements?${w}&limit=5`,
        `${t}/movement-matrix`, `${t}/movement-matrix?window=${tt.win[0]},${tt.win[1]}`);
    } else {
      add(`${t}/iterations`, `${t}/aggregation/levels?slices=4`);
    }
    if (tt.tree) {
      add(`${t}/atree`, `${t}/tree-utilization`, `${t}/tree-memory`, `${t}/anomalies?model=flexmix`, `${t}/models`);
      if (tt.tree === 'full') {
        add(`${t}/anomalies?model=wlr&points=all&limit=30`, `${t}/anomalies?model=nlr`,
          `${t}/anomalies?model=lr_log&limit=0`, `${t}/atree?slice=50&metric=gflops`, `${t}/atree?types=${a}`,
          `${t}/tree-utilization?by=depth&slice=25`, `${t}/tree-memory?slice=10`, `${t}/aggregation?slices=5`,
          `${t}/movement-matrix`);
      }
    }
  }
  add('traces/{spu_chol}/bounds', 'traces/{spu_chol}/models', 'traces/{spu_chol}/aggregation',
    'traces/{spu_chol}/movements?limit=10', 'traces/{spu_chol}/movement-matrix');
  add('traces/{spu_qrm_lws}/tree-compare?other={spu_qrm_prio}',
    'traces/{spu_qrm_prio}/tree-compare?other={spu_qrm_lws}&slice=20&metric=gflops',
    'traces/{spu_qrm_lws}/tree-compare?other={spu_qrm_prio}&types=GEQRT');
  add('compare?traces={spu_chol},{spu_eager}', 'compare?traces={svz_lu},{spu_chol},{spu_mpi}',
    'compare?traces={spu_chol},{spu_eager}&types=GEMM&start=500&end=1500',
    'compare?traces={spu_qrm_lws},{spu_qrm_prio}&resources=CPU');

  // ---- plain Paje (no tasks: the hierarchy of containers)
  const p = 'traces/{paje_mardi}';
  add(`${p}/aggregation`, `${p}/aggregation?slices=5&p=0.7`, `${p}/aggregation?start=100&end=600&slices=8`,
    `${p}/aggregation/levels`, `${p}/movements`, `${p}/movement-matrix`, `${p}/gantt`);

  // ---- profiles
  for (const [pl, m, x, y, split, nameSplit, node, set] of [
    ['prof_lulesh', 'time', 'time', 'time (inc)', 'LagrangeLeapFrog#0', 'LagrangeLeapFrog#0', 3, 'full'],
    ['prof_hpctk', 'time', 'time', 'time (inc)', 'cpi#0', 'main#0', 5, 'full'],
    ['prof_cali_mpi', 'Total time (exc)', 'Min time/rank', 'Max time/rank', 'lulesh.cycle#0', 'lulesh.cycle#0', 2, 'base'],
  ]) {
    const t = `traces/{${pl}}`;
    add(`${t}/cct`, `${t}/cct?metric=${q(m)}&depth=1`, `${t}/nodes/${node}/ranks?bins=5&metric=${q(m)}`,
      `${t}/scatter?x=${q(x)}&y=${q(y)}&node=${node}`, `${t}/tree`, `${t}/tree?metric=${q(m)}&precision=1&format=json`,
      `${t}/supergraph`, `${t}/supergraph?group_by=name&split=${q(nameSplit)}&split_by=caller`,
      `${t}/supergraph?collapse=median&metric=${q(m)}`);
    if (set === 'full') {
      add(`${t}/cct?filter=0.05&depth=4`, `${t}/nodes/0/ranks`, `${t}/scatter?x=${q(x)}&y=${q(y)}`,
        `${t}/supergraph?filter=5&filter_by=exc`, `${t}/supergraph?split=${q(split)}`,
        `${t}/supergraph?collapse=max&bins=5`, `${t}/supergraph?detail=${q(split)}`);
    }
  }
  add('traces/{prof_lulesh}/tree?rank=3&precision=0', 'traces/{prof_lulesh}/supergraph?ranks=0-3',
    'traces/{prof_lulesh}/supergraph?ranks=1,5&collapse=sum',
    `traces/{prof_lulesh}/supergraph?map=${q('{"Physics":"^Calc","Lagrange":["^Lagrange"]}')}`,
    `traces/{prof_lulesh}/supergraph?group_by=name&split=${q('[{"id":"LagrangeLeapFrog#0","by":"callsite"}]')}`,
    'traces/{prof_lulesh}/supergraph?collapse=min&filter=50',
    'traces/{prof_hpctk}/supergraph?group_by=file', 'traces/{prof_hpctk}/supergraph?ranks=2');

  // ---- data movement and Chrome traces
  // windows in µs from the run's start (issue 14: the same windows as the
  // absolute ones 1665130858916039 + 100000.. and 1669272387721917 + 1e6..
  // used before; the two Chrome traces start at 0)
  const dm = [
    ['dm_fill1', 100000, 300000, 'full'],
    ['dm_kopt', 1000000, 5000000, 'series'],
    ['chrome_flow_v2', 1000, 3400, 'base'],
    ['up_speedscope', 2, 10, 'base'],
  ];
  for (const [l, s, e, set] of dm) {
    const t = `traces/{${l}}`;
    const w = `start=${s}&end=${e}`;
    add(`${t}/movements`, `${t}/movement-matrix`, `${t}/movement-timeline`, `${t}/movement-timeline?limit=3`,
      `${t}/clock`, `${t}/topology`, `${t}/metric-series`);
    if (set === 'full') {
      add(`${t}/movements?${w}&limit=1`, `${t}/movement-matrix?window=${s},${e}`, `${t}/movement-matrix?${w}`,
        `${t}/movement-timeline?${w}`, `${t}/clock?sectors=4&sector_width=1000`, `${t}/topology?${w}`,
        `${t}/metric-series?points=10&${w}`);
    } else if (set === 'series') {
      add(`${t}/movement-matrix?window=${s},${e}`, `${t}/metric-series?points=10&${w}`, `${t}/metric-series?points=2`);
    }
  }
  add('traces/{hwloc}/topology', 'traces/{hwloc}/topology?start=0&end=1', 'traces/{hwloc}/movements',
    'traces/{hwloc}/clock');

  // ---- errors (their bodies must stay the same too)
  add('nope', 'traces/999999', 'traces/abc', 'jobs/999999', 'traces?limit=0', 'traces?kind=bogus',
    'health?check=bogus', 'jobs?limit=5000', 'traces/999999/gantt', 'traces/999999/cct',
    'traces/{svz_lu}/gantt?width=0', 'traces/{svz_lu}/gantt?states=maybe', 'traces/{svz_lu}/gantt?types=nosuchtype',
    'traces/{svz_lu}/gantt?resources=FPGA', 'traces/{svz_lu}/bounds?by=rank', 'traces/{svz_lu}/timeseries?per_node=2',
    'traces/{svz_lu}/anomalies?model=xyz', 'traces/{svz_lu}/anomalies?points=some',
    'traces/{svz_lu}/progression?steps=5&step_width=10', 'traces/{svz_lu}/progression?nodes=99',
    'traces/{svz_lu}/critical-path?from=nosuch', 'traces/{svz_lu}/critical-path?from=0_129&type=dgemm',
    'traces/{svz_lu}/atree', 'traces/{svz_lu}/tree-compare', 'traces/{svz_qr}/tree-compare?other={spu_qrm_lws}',
    'traces/{spu_qrm_lws}/atree?metric=flops', 'traces/{spu_qrm_lws}/tree-utilization?by=rank',
    'traces/{svz_lu}/aggregation?slices=0', 'traces/{svz_lu}/aggregation?start=5&end=1',
    'traces/{paje_mardi}/progression', 'traces/{prof_lulesh}/aggregation', 'traces/{prof_lulesh}/gantt',
    'traces/{dm_fill1}/bounds', 'traces/{svz_lu}/cct', 'traces/{svz_lu}/clock',
    'compare?traces={svz_lu}', 'compare?traces={svz_lu},{svz_lu}', 'compare?traces={svz_lu},999999',
    'compare?traces={svz_lu},{prof_lulesh}', 'compare',
    'traces/{prof_lulesh}/cct?metric=nosuch', 'traces/{prof_lulesh}/nodes/9999/ranks',
    'traces/{prof_lulesh}/scatter', 'traces/{prof_lulesh}/tree?rank=99', 'traces/{prof_lulesh}/tree?format=xml',
    'traces/{prof_lulesh}/supergraph?split=nosuch%230', 'traces/{prof_lulesh}/supergraph?ranks=0-7',
    'traces/{prof_lulesh}/supergraph?map=notjson',
    'traces/{dm_fill1}/movement-matrix?window=bad', 'traces/{dm_fill1}/metric-series?points=1',
    'traces/{dm_fill1}/cct');
  return R;
}

// ---------------------------------------------------------------------------
// Normalisation: replaces, in the raw text, the scalar values of the volatile
// keys; every other byte stays as the daemon sent it.
// ---------------------------------------------------------------------------
export function normaliseBody(text) {
  try { JSON.parse(text); } catch { return text; } /* not JSON: untouched */
  const edits = [];
  let i = 0;
  const n = text.length;
  const ws = () => { while (i < n && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++; };
  const str = () => {
    const s = i++;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return text.slice(s, i);
  };
  const value = () => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++; ws();
      if (text[i] === '}') { i++; return; }
      for (;;) {
        ws();
        const key = JSON.parse(str());
        ws(); i++; /* ':' */ ws();
        const at = i, kind = text[i];
        value();
        if (VOLATILE_KEYS.has(key) && kind !== '{' && kind !== '[' && kind !== 'n') edits.push([at, i]);
        ws();
        if (text[i++] === ',') continue;
        return; /* '}' */
      }
    }
    if (c === '[') {
      i++; ws();
      if (text[i] === ']') { i++; return; }
      for (;;) {
        value(); ws();
        if (text[i++] === ',') continue;
        return; /* ']' */
      }
    }
    if (c === '"') { str(); return; }
    while (i < n && !',}] \t\n\r'.includes(text[i])) i++;
  };
  value();
  let out = text;
  for (const [s, e] of edits.reverse()) out = out.slice(0, s) + PLACEHOLDER + out.slice(e);
  return out;
}

// A file name from the request: path and query, sanitised, plus a short hash
// of the exact URL (sanitising can map two URLs to one name).
function fileName(key) {
  const s = key.replace(/^GET \/api\/v1\//, '').replace(/^(\w+) /, '$1_')
    .replace(/[^A-Za-z0-9._=,-]+/g, '_').replace(/^[_.]+/, '').slice(0, 110);
  return `${s || 'root'}.${createHash('sha1').update(key).digest('hex').slice(0, 8)}.txt`;
}

function fileText(head, body) {
  return head.join('\n') + '\n\n' + body;
}

// ---------------------------------------------------------------------------
function parseArgs(argv, spec) {
  const o = { _: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) { o._.push(a); continue; }
    const k = a.slice(2);
    if (!(k in spec)) die(`unknown option ${a}`);
    if (spec[k] === 'flag') o[k] = true;
    else { if (i + 1 >= argv.length) die(`${a} needs a value`); o[k] = argv[++i]; }
  }
  return o;
}

function die(msg) {
  console.error(`snapshot: ${msg}`);
  console.error('usage: node tests/compat/snapshot.mjs record --ariadned PATH --out DIR [--data DIR] [--static DIR] [--force]\n' +
    '       node tests/compat/snapshot.mjs compare DIR_A DIR_B');
  process.exit(2);
}

async function record(argv) {
  const o = parseArgs(argv, { ariadned: 'v', out: 'v', data: 'v', static: 'v', force: 'flag' });
  if (!o.ariadned || !o.out || o._.length) die('record needs --ariadned PATH and --out DIR');
  const bin = resolve(o.ariadned);
  if (!existsSync(bin)) die(`no ariadned at ${bin}`);
  const dataDir = resolve(o.data || process.env.ARIADNE_SHARED_DATA || join(repoDir, '..', 'shared', 'data'));
  // The dashboard's files (unused by the API requests): --static, else the
  // static/ next to the binary's build directory, else this repository's.
  const guess = resolve(dirname(bin), '..', 'static');
  const staticDir = resolve(o.static || (existsSync(guess) ? guess : join(repoDir, 'static')));
  const outDir = resolve(o.out);
  if (existsSync(outDir) && readdirSync(outDir).length) {
    if (!o.force) die(`${outDir} is not empty (use --force to replace a recording)`);
    if (!existsSync(join(outDir, 'index.json'))) die(`${outDir} is not a recording (no index.json); not clearing it`);
    const old = JSON.parse(readFileSync(join(outDir, 'index.json'), 'utf8'));
    for (const e of old.entries || []) rmSync(join(outDir, e.file), { force: true });
    rmSync(join(outDir, 'index.json'), { force: true });
  }
  mkdirSync(outDir, { recursive: true });

  // tests/lib/daemon.mjs reads the binary and the static dir from the
  // environment when it is loaded.
  process.env.ARIADNED = bin;
  process.env.ARIADNE_STATIC = staticDir;
  const { startDaemon, waitJob, runCli } = await import('../lib/daemon.mjs');

  const t0 = Date.now();
  const entries = [];
  const skipped = [];
  const seen = new Set();
  const put = (key, head, body) => {
    if (seen.has(key)) throw new Error(`duplicate request ${key}`);
    seen.add(key);
    const file = fileName(key);
    const text = fileText(head, body);
    writeFileSync(join(outDir, file), text);
    entries.push({ key, file, status: head[1], bytes: Buffer.byteLength(text) });
  };

  const workDir = mkdtempSync(join(tmpdir(), 'ariadne-compat-'));
  const db = join(workDir, 'test.db');
  const ids = {};
  let daemon = null;
  try {
    for (const [label, rel] of INPUTS) {
      const path = join(dataDir, rel);
      if (!existsSync(path)) {
        console.log(`skip input ${label}: ${path} is absent`);
        skipped.push(`input ${label}`);
        continue;
      }
      const ti = Date.now();
      const r = runCli(['import', '--quiet', '--db', db, path]);
      // The CLI's answer is part of the recording (its stderr is not: it
      // names temporary paths).
      put(`IMPORT ${label} ${rel}`, [`IMPORT ${rel}`, `exit: ${r.status}`], r.stdout);
      if (r.status !== 0) {
        console.log(`import ${label} failed (${r.status}): ${r.stderr.trim()}`);
        continue;
      }
      ids[label] = JSON.parse(r.stdout.trim().split('\n')[0]).id;
      console.log(`imported ${label} as trace ${ids[label]} (${Date.now() - ti} ms)`);
    }

    daemon = await startDaemon({ dir: workDir, args: ['--no-auth'] });
    const base = daemon.url;

    const [ulabel, urel, ufile] = UPLOAD;
    const upath = join(dataDir, urel);
    if (existsSync(upath)) {
      const r = await fetch(`${base}/api/v1/traces?filename=${ufile}&name=${ulabel}`, {
        method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: readFileSync(upath),
      });
      const text = await r.text();
      // The 202's job is racy (queued or running, progress): only the status
      // and the job's Location are recorded; the finished job is GET below.
      put(`POST /api/v1/traces?filename=${ufile}&name=${ulabel}`,
        [`POST /api/v1/traces?filename=${ufile}&name=${ulabel}`, `status: ${r.status}`,
          `location: ${r.headers.get('location')}`], '');
      if (r.status === 202) {
        const job = JSON.parse(text).job;
        const done = await waitJob(base, job.id);
        ids.job = job.id;
        if (done.status === 'succeeded' && done.trace_ids.length) ids[ulabel] = done.trace_ids[0];
        else console.log(`upload ${ulabel} failed: ${JSON.stringify(done.error)}`);
      } else {
        console.log(`upload ${ulabel} answered ${r.status}: ${text.slice(0, 200)}`);
      }
    } else {
      console.log(`skip input ${ulabel}: ${upath} is absent`);
      skipped.push(`input ${ulabel}`);
    }

    const requests = buildRequests();
    let n = 0;
    for (const tmpl of requests) {
      const missing = [];
      const url = tmpl.replace(/\{([a-z0-9_]+)\}/g, (_, l) => {
        if (ids[l] === undefined) missing.push(l);
        return String(ids[l]);
      });
      if (missing.length) {
        console.log(`skip ${tmpl}: no ${[...new Set(missing)].join(', ')}`);
        skipped.push(tmpl);
        continue;
      }
      const r = await fetch(base + url);
      const body = normaliseBody(await r.text());
      put(`GET ${url}`, [`GET ${url}`, `status: ${r.status}`, `content-type: ${r.headers.get('content-type')}`], body);
      n++;
    }
    console.log(`${n} GET requests recorded`);
  } finally {
    if (daemon) await daemon.stop({ keep: true });
    rmSync(workDir, { recursive: true, force: true });
  }
  const index = {
    tool: 'tests/compat/snapshot.mjs',
    ariadned: bin,
    data: dataDir,
    volatile_keys: [...VOLATILE_KEYS.keys()],
    placeholder: JSON.parse(PLACEHOLDER),
    inputs: Object.fromEntries(INPUTS.map(([l, rel]) => [l, { path: rel, trace: ids[l] ?? null }])),
    skipped,
    entries,
  };
  writeFileSync(join(outDir, 'index.json'), JSON.stringify(index, null, 1) + '\n');
  console.log(`recorded ${entries.length} entries into ${outDir} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

// ---------------------------------------------------------------------------
function sortKeys(v) {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    const o = {};
    for (const k of Object.keys(v).sort()) o[k] = sortKeys(v[k]);
    return o;
  }
  return v;
}

// The lines shown for a file: its head, then the body pretty-printed with
// sorted keys when it is JSON.
function displayLines(text) {
  const cut = text.indexOf('\n\n');
  const head = cut < 0 ? text : text.slice(0, cut);
  const body = cut < 0 ? '' : text.slice(cut + 2);
  let pretty = body;
  try { pretty = JSON.stringify(sortKeys(JSON.parse(body)), null, 2); } catch { /* as is */ }
  return [...head.split('\n'), '', ...pretty.split('\n')];
}

function showDiff(a, b, nameA, nameB) {
  let la = displayLines(a), lb = displayLines(b);
  let raw = false;
  if (la.length === lb.length && la.every((l, i) => l === lb[i])) {
    // Equal once parsed: key order, number spelling or whitespace differ.
    // Show the raw bytes around the first difference instead.
    raw = true;
    let i = 0;
    while (i < a.length && a[i] === b[i]) i++;
    const from = Math.max(0, i - 60);
    la = [JSON.stringify(a.slice(from, i + 60))];
    lb = [JSON.stringify(b.slice(from, i + 60))];
    console.log(`  (equal as parsed JSON: the raw bytes differ at offset ${i}: key order, number spelling or spacing;` +
      ` ${from ? '...' : ''}bytes ${from}.. shown as JSON strings)`);
  }
  let s = 0;
  while (s < la.length && s < lb.length && la[s] === lb[s]) s++;
  let ea = la.length, eb = lb.length;
  while (ea > s && eb > s && la[ea - 1] === lb[eb - 1]) { ea--; eb--; }
  const ctx = raw ? 0 : 3, max = 12;
  console.log(`  --- ${nameA}\n  +++ ${nameB}`);
  console.log(`  @@ -${s + 1},${ea - s} +${s + 1},${eb - s} @@`);
  for (let i = Math.max(0, s - ctx); i < s; i++) console.log(`   ${la[i]}`);
  for (let i = s; i < Math.min(ea, s + max); i++) console.log(`  -${la[i]}`);
  if (ea - s > max) console.log(`  -... (${ea - s - max} more lines)`);
  for (let i = s; i < Math.min(eb, s + max); i++) console.log(`  +${lb[i]}`);
  if (eb - s > max) console.log(`  +... (${eb - s - max} more lines)`);
}

function compare(argv) {
  const o = parseArgs(argv, {});
  if (o._.length !== 2) die('compare needs two recording directories');
  const [dirA, dirB] = o._.map((d) => resolve(d));
  const load = (d) => {
    const f = join(d, 'index.json');
    if (!existsSync(f)) die(`${d}: no index.json (not a recording)`);
    return JSON.parse(readFileSync(f, 'utf8'));
  };
  const ia = load(dirA), ib = load(dirB);
  const mb = new Map(ib.entries.map((e) => [e.key, e]));
  const ma = new Map(ia.entries.map((e) => [e.key, e]));
  let compared = 0, differ = 0, missing = 0;
  for (const ea of ia.entries) {
    const eb = mb.get(ea.key);
    if (!eb) { console.log(`ONLY IN A: ${ea.key}`); missing++; continue; }
    compared++;
    const a = readFileSync(join(dirA, ea.file)), b = readFileSync(join(dirB, eb.file));
    if (a.equals(b)) continue;
    differ++;
    console.log(`DIFFERS: ${ea.key}`);
    showDiff(a.toString('utf8'), b.toString('utf8'), join(dirA, ea.file), join(dirB, eb.file));
  }
  for (const eb of ib.entries) if (!ma.has(eb.key)) { console.log(`ONLY IN B: ${eb.key}`); missing++; }
  console.log(`compared ${compared} requests: ${differ} differ, ${missing} in only one recording`);
  process.exit(differ || missing ? 1 : 0);
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === 'record') await record(rest);
else if (mode === 'compare') compare(rest);
else die(mode ? `unknown mode ${mode}` : 'no mode');
