// colors.test.mjs: the dashboard's palette (static/js/colors.js), no browser
// needed: the CIEDE2000 of tests/lib/ciede2000.mjs against the published test
// pairs; the hashed palette and the fixed colours far apart; names of one
// kernel sharing a colour; and, on each real StarPU / StarVZ run of
// ../shared/data (skipped when absent), the colours of the task types and
// state values present in the trace pairwise distinct.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { deltaE2000, colorDistance } from '../lib/ciede2000.mjs';
import { startDaemon, runCli, sharedData } from '../lib/daemon.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const staticDir = process.env.ARIADNE_STATIC || join(here, '..', '..', 'static');
const colors = await import(pathToFileURL(join(staticDir, 'js', 'colors.js')).href);
const dataDir = process.env.ARIADNE_SHARED_DATA || sharedData;

// Two task types in one trace (or a task type and a state value) must be at
// least this far apart (CIEDE2000; about 2 is a just-noticeable difference
// between large patches, 10 is clearly different even on thin Gantt bars).
const MIN_TYPES = 15;
const MIN_WITH_STATES = 10;

// Pairs of names whose colours are closer than `min` (names of one kernel
// share a colour on purpose and are not compared).
function closePairs(names, colorOf, min) {
  const out = [];
  for (let i = 0; i < names.length; i++) {
    for (let j = i + 1; j < names.length; j++) {
      const a = names[i], b = names[j];
      const ka = colors.kernelOf(a), kb = colors.kernelOf(b);
      if (ka && ka === kb) continue;
      const d = colorDistance(colorOf(a), colorOf(b));
      if (d < min) out.push(`${a} ${colorOf(a)} / ${b} ${colorOf(b)}: ΔE00 ${d.toFixed(1)}`);
    }
  }
  return out;
}

test('CIEDE2000 gives the published values (Sharma, Wu and Dalal 2005)', () => {
  const pairs = [
    [[50, 2.6772, -79.7751], [50, 0, -82.7485], 2.0425],
    [[50, 0, 0], [50, -1, 2], 2.3669],
    [[50, 2.5, 0], [73, 25, -18], 27.1492],
    [[50, 2.5, 0], [50, 3.1736, 0.5854], 1.0],
    [[60.2574, -34.0099, 36.2677], [60.4626, -34.1751, 39.4387], 1.2644],
    [[22.7233, 20.0904, -46.694], [23.0331, 14.973, -42.5619], 2.0373],
  ];
  for (const [a, b, want] of pairs) assert.ok(Math.abs(deltaE2000(a, b) - want) < 1e-4, `${a} / ${b}`);
});

test('the hashed palette is well spread and far from the fixed colours', () => {
  const pal = colors.TYPE_PALETTE;
  assert.ok(pal.length >= 16);
  const named = Object.fromEntries(pal.map((c, i) => [`palette ${i}`, c]));
  assert.deepEqual(closePairs(Object.keys(named), (n) => named[n], 13), []);
  const fixed = ['dpotrf', 'dtrsm', 'dsyrk', 'dgemm', 'dplrnt', 'dlauum', 'dtrtri', 'dtrmm', 'dsymm',
    'Sleeping', 'Idle', 'Overhead', 'Scheduling', 'FetchingInput', 'PushingOutput', 'Callback', 'Progressing',
    'Submitting task', 'Initializing', 'Deinitializing', 'Polling'];
  for (const c of pal) {
    for (const f of fixed) assert.ok(colorDistance(c, colors.typeColor(f)) >= 13, `${c} too close to ${f}`);
  }
});

test('the known kernels and runtime states are pairwise distinct, one kernel one colour', () => {
  const kernels = ['dpotrf', 'dtrsm', 'dsyrk', 'dgemm', 'dplrnt', 'dlauum', 'dtrtri', 'dtrmm', 'dsymm', 'dlacpy', 'dlaset', 'dgeadd'];
  assert.deepEqual(closePairs(kernels, colors.typeColor, MIN_TYPES), []);
  const states = ['Sleeping', 'Idle', 'Overhead', 'Scheduling', 'FetchingInput', 'PushingOutput', 'Callback',
    'Progressing', 'Submitting task', 'Initializing', 'Deinitializing', 'Polling'];
  assert.deepEqual(closePairs([...kernels.slice(0, 4), ...states], colors.stateColor, MIN_WITH_STATES), []);
  // the cases: potrf and syrk, Callback and PushingOutput
  assert.ok(colorDistance(colors.typeColor('chol_model_potrf'), colors.typeColor('chol_model_syrk')) >= MIN_TYPES);
  assert.ok(colorDistance(colors.typeColor('Callback'), colors.typeColor('PushingOutput')) >= MIN_WITH_STATES);
  for (const group of [['dpotrf', 'chol_model_potrf', 'POTRF', 'spotrf', 'chol_model_11'],
    ['dgemm', 'GEMM', 'chol_model_gemm', 'starpu_sgemm_gemm', 'dgemm_cuda']]) {
    assert.equal(new Set(group.map(colors.typeColor)).size, 1, group.join(' '));
  }
  // state and type colours agree, and a colour does not depend on the order of calls
  assert.equal(colors.stateColor('dgemm', '0 1 0'), colors.typeColor('dgemm'));
  assert.equal(colors.stateColor('Callback'), colors.typeColor('Callback'));
});

// ---- the real runs -------------------------------------------------------------
const RUNS = [
  'starpu/mpi_chol_dmdas_4ranks_N11520_nb24_slowrank1_nice2', 'starpu/chol_implicit_dmdas_N11520_nb24',
  'starpu/chol_implicit_eager_N11520_nb24', 'starpu/sgemm3d_dmda_N5760_nb12_iter3', 'starpu/qrm-grad3d30-lws',
  'starvz/inst/extdata/lu_trace',
].map((p) => join(dataDir, p)).filter((p) => existsSync(p));

let daemon;
before(async () => { if (RUNS.length) daemon = await startDaemon(); });
after(async () => { if (daemon) await daemon.stop(); });

async function get(path) {
  const r = await fetch(`${daemon.url}/api/v1${path}`);
  assert.equal(r.status, 200, path);
  return r.json();
}

for (const run of RUNS) {
  test(`the colours of the types and states of ${run.split('/').pop()} are pairwise distinct`, async () => {
    const r = runCli(['import', '--db', daemon.db, run]);
    assert.equal(r.status, 0, r.stderr);
    const id = JSON.parse(r.stdout.trim().split('\n')[0]).id;
    const types = (await get(`/traces/${id}/gantt?width=100`)).types;
    assert.ok(types.length > 0);
    assert.deepEqual(closePairs(types, colors.typeColor, MIN_TYPES), [], 'task types');
    const states = await get(`/traces/${id}/states?limit=1`);
    const paje = new Map(states.values.map((v) => [v.name, v.color]));
    const names = [...new Set([...types, ...paje.keys()])];
    assert.deepEqual(closePairs(names, (n) => colors.stateColor(n, paje.get(n)), MIN_WITH_STATES), [],
      'task types and state values (Timeline, Aggregation, the Gantt runtime band)');
  });
}
if (!RUNS.length) test('real runs', (t) => t.skip('../shared/data is absent'));
