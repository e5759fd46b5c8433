// module_graph.test.mjs: static checks of the dashboard's ES modules
// (static/js), no browser needed:
//   - the import graph has no cycle;
//   - no module in js/views/ imports another view module, and js/lib/
//     imports no view;
//   - every import resolves to a file;
//   - colours are defined only in js/colors.js: no other module has a colour
//     literal ('#rrggbb', '#rgb', rgb(...), rgba(...), hsl(...)); css/ is
//     not checked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, existsSync, statSync } from 'node:fs';
import { join, dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const staticDir = process.env.ARIADNE_STATIC || join(here, '..', '..', 'static');
const jsDir = join(staticDir, 'js');

function listJs(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...listJs(p));
    else if (name.endsWith('.js')) out.push(p);
  }
  return out;
}

const rel = (p) => relative(jsDir, p).split(sep).join('/');
const files = listJs(jsDir);

// Comments removed, so that a comment may name a colour or an import.
function code(text) {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

// module (relative to js/) -> the modules it imports (relative to js/).
const graph = new Map();
for (const f of files) {
  const src = code(readFileSync(f, 'utf8'));
  const deps = [];
  for (const m of src.matchAll(/(?:^|[\s;])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;])import\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)) {
    const spec = m[1] || m[2] || m[3];
    if (!spec.startsWith('.')) continue;
    deps.push(resolve(dirname(f), spec));
  }
  graph.set(rel(f), deps.map((d) => ({ abs: d, rel: rel(d) })));
}

test('the dashboard has modules to check', () => {
  assert.ok(files.length > 10, `found ${files.length} modules in ${jsDir}`);
  assert.ok(graph.has('app.js') && graph.has('colors.js'));
});

test('every relative import resolves to a module', () => {
  const missing = [];
  for (const [from, deps] of graph) for (const d of deps) if (!existsSync(d.abs)) missing.push(`${from} -> ${d.rel}`);
  assert.deepEqual(missing, []);
});

test('the import graph has no cycle', () => {
  const state = new Map(); // 1: on the stack, 2: done
  const cycles = [];
  const visit = (n, stack) => {
    state.set(n, 1);
    stack.push(n);
    for (const { rel: d } of graph.get(n) || []) {
      if (!graph.has(d)) continue;
      if (state.get(d) === 1) cycles.push([...stack.slice(stack.indexOf(d)), d].join(' -> '));
      else if (!state.get(d)) visit(d, stack);
    }
    stack.pop();
    state.set(n, 2);
  };
  for (const n of graph.keys()) if (!state.get(n)) visit(n, []);
  assert.deepEqual(cycles, []);
});

test('views import no other view, lib/ imports no view', () => {
  const bad = [];
  for (const [from, deps] of graph) {
    for (const { rel: d } of deps) {
      if (!d.startsWith('views/')) continue;
      if (from.startsWith('views/') && from !== 'views/index.js') bad.push(`${from} -> ${d}`);
      if (from.startsWith('lib/')) bad.push(`${from} -> ${d}`);
    }
  }
  assert.deepEqual(bad, []);
});

test('colour literals live only in colors.js', () => {
  const found = [];
  for (const f of files) {
    if (rel(f) === 'colors.js') continue;
    const lines = code(readFileSync(f, 'utf8')).split('\n');
    lines.forEach((line, i) => {
      const m = line.match(/#(?:[0-9a-fA-F]{8}|[0-9a-fA-F]{6}|[0-9a-fA-F]{3,4})\b(?![-\w])|\b(?:rgba?|hsla?)\(/);
      if (m) found.push(`${rel(f)}:${i + 1}: ${m[0]}`);
    });
  }
  assert.deepEqual(found, []);
});
