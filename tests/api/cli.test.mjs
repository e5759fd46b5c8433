// cli.test.mjs: the ariadned command line: --help, --version, import (its
// output, its failures leaving the database unchanged), generate, and bad
// arguments to serve (a clear error, never a hang).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, existsSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ariadned, sourceDir, startDaemon } from '../lib/daemon.mjs';
import { sqlite, junk, smallTracePath, formats, stopClean, integrityCheck } from '../fixtures/api/util.mjs';

let dir;
let fmts = [];
before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ariadne-cli-'));
  const d = await startDaemon();
  fmts = await formats(d.url);
  await stopClean(d);
});
after(() => { if (dir) rmSync(dir, { recursive: true, force: true }); });

// Runs ariadned with a time limit; a timeout is reported as status null.
function cli(args, timeout = 20000) {
  const r = spawnSync(ariadned, args, { encoding: 'utf8', timeout });
  return { status: r.status, signal: r.signal, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

function freshDb(name) {
  const db = join(dir, name);
  const r = cli(['token', 'create', '--db', db, '--name', 'seed', '--scope', 'read']);
  assert.equal(r.status, 0, `token create on a new db: ${r.stderr}`);
  return db;
}

const snapshot = (db) => sqlite(db, 'SELECT count(*) FROM traces; SELECT count(*) FROM trace_files; SELECT group_concat(id) FROM traces;');

test('--help and --version', () => {
  const h = cli(['--help']);
  assert.equal(h.status, 0, h.stderr);
  for (const word of ['serve', 'import', 'token', 'generate']) assert.ok(h.stdout.includes(word), `--help lacks ${word}`);
  const sh = cli(['serve', '--help']);
  assert.equal(sh.status, 0, sh.stderr);
  for (const word of ['--db', '--listen', '--static', '--threads', '--max-upload', '--auth', '--no-auth', '--log-level']) {
    assert.ok(sh.stdout.includes(word), `serve --help lacks ${word}`);
  }
  const v = cli(['--version']);
  assert.equal(v.status, 0, v.stderr);
  const project = /project\(ariadne VERSION ([0-9.]+)/.exec(readFileSync(join(sourceDir, 'CMakeLists.txt'), 'utf8'))[1];
  assert.ok(v.stdout.includes(project), `--version "${v.stdout.trim()}" lacks ${project}`);
  const ih = cli(['import', '--help']);
  assert.equal(ih.status, 0, ih.stderr);
  for (const word of ['--db', '--name']) assert.ok(ih.stdout.includes(word), `import --help lacks ${word}`);
});

test('unknown commands and options fail with a message', () => {
  for (const args of [['frobnicate'], ['--frobnicate'], ['import', '--frobnicate', 'x'], ['token', 'explode'],
    ['token', 'create', '--name'], ['serve', '--listen', 'not-an-address', '--db', join(dir, 's.db')],
    ['serve', '--max-upload', 'lots', '--db', join(dir, 's.db')], ['serve', '--threads', '-3', '--db', join(dir, 's.db')],
    ['serve', '--log-level', 'chatty', '--db', join(dir, 's.db')]]) {
    const r = cli(args, 5000);
    assert.notEqual(r.signal, 'SIGTERM', `ariadned ${args.join(' ')} did not exit (timed out)`);
    assert.ok(r.status !== 0 && r.status !== null, `ariadned ${args.join(' ')} -> ${r.status}`);
    assert.ok(r.stderr.trim().length > 0, `ariadned ${args.join(' ')}: no message on stderr`);
  }
  const noArgs = cli([], 5000);
  assert.notEqual(noArgs.signal, 'SIGTERM', 'ariadned without arguments hangs');
});

test('import of a nonexistent path: non-zero, message, database unchanged', () => {
  const db = freshDb('missing.db');
  const before = snapshot(db);
  const missing = join(dir, 'no', 'such', 'file.trace');
  const r = cli(['import', '--db', db, missing]);
  assert.ok(r.status !== 0 && r.status !== null, `status ${r.status}`);
  assert.ok(r.stderr.includes(missing) || r.stderr.includes('file.trace'), `stderr names the path: ${r.stderr}`);
  assert.equal(r.stdout.trim(), '', 'nothing printed on stdout');
  assert.equal(snapshot(db), before);
  assert.equal(integrityCheck(db), 'ok');
});

test('import of an unsupported file: non-zero, message, nothing stored', () => {
  const db = freshDb('junk.db');
  const before = snapshot(db);
  const f = join(dir, 'x.bin');
  writeFileSync(f, junk());
  const r = cli(['import', '--db', db, f]);
  assert.ok(r.status !== 0 && r.status !== null, `status ${r.status}`);
  assert.ok(r.stderr.trim().length > 0, 'a message on stderr');
  assert.equal(r.stdout.trim(), '');
  assert.equal(snapshot(db), before);
  const empty = join(dir, 'empty.trace');
  writeFileSync(empty, '');
  const e = cli(['import', '--db', db, empty]);
  assert.ok(e.status !== 0 && e.status !== null, `empty file: status ${e.status}`);
  assert.equal(snapshot(db), before);
  const noPath = cli(['import', '--db', db]);
  assert.ok(noPath.status !== 0 && noPath.status !== null, 'import without a path fails');
});

test('import of a Paje trace prints one JSON line per trace', (t) => {
  if (!fmts.includes('paje')) { t.skip('no paje reader in this build'); return; }
  const db = freshDb('paje.db');
  const r = cli(['import', '--db', db, '--name', 'cli small', smallTracePath]);
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines.length, 1, r.stdout);
  const j = JSON.parse(lines[0]);
  assert.ok(Number.isInteger(j.id) && j.id > 0);
  assert.equal(j.name, 'cli small');
  assert.equal(j.kind, 'tasks');
  assert.equal(sqlite(db, `SELECT name, kind, format FROM traces WHERE id=${j.id};`), 'cli small|tasks|paje');
  // The same file again is refused (issue 15), unless --allow-duplicate.
  const dup = cli(['import', '--db', db, smallTracePath]);
  assert.notEqual(dup.status, 0);
  assert.match(dup.stderr, /identical to trace \d+ \(cli small\).*\(duplicate_trace\)/);
  const again = cli(['import', '--db', db, '--allow-duplicate', smallTracePath]);
  assert.equal(again.status, 0, again.stderr);
  const j2 = JSON.parse(again.stdout.trim());
  assert.notEqual(j2.id, j.id);
  assert.equal(typeof j2.name, 'string');
  assert.ok(j2.name.length > 0, 'a default name');
  assert.equal(sqlite(db, 'SELECT count(*) FROM traces;'), '2');
});

test('generate writes a StarPU bundle', () => {
  const out = join(dir, 'bundle');
  const r = cli(['generate', '--out', out, '--tiles', '4', '--nodes', '1']);
  assert.equal(r.status, 0, r.stderr);
  for (const f of ['paje.trace', 'tasks.rec', 'dag.dot', 'manifest.json']) assert.ok(existsSync(join(out, f)), `${f} written`);
  const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'));
  assert.equal(typeof manifest, 'object');
  assert.ok(readFileSync(join(out, 'paje.trace'), 'utf8').includes('%EventDef'), 'paje.trace has a Paje header');
  assert.match(readFileSync(join(out, 'tasks.rec'), 'utf8'), /^JobId: /m);
  assert.match(readFileSync(join(out, 'dag.dot'), 'utf8'), /digraph/);
  const bad = cli(['generate', '--out', join(dir, 'bad'), '--tiles', 'many']);
  assert.ok(bad.status !== 0 && bad.status !== null, 'generate --tiles many fails');
  assert.ok(bad.stderr.trim().length > 0);
  assert.ok(!existsSync(join(dir, 'bad')) || readdirSync(join(dir, 'bad')).length === 0, 'nothing written on bad arguments');
});

test('import of a generated StarPU bundle', (t) => {
  if (!fmts.includes('starpu')) { t.skip('no starpu reader in this build'); return; }
  const out = join(dir, 'bundle2');
  const g = cli(['generate', '--out', out, '--tiles', '4', '--nodes', '2']);
  assert.equal(g.status, 0, g.stderr);
  const db = freshDb('starpu.db');
  const r = cli(['import', '--db', db, out]);
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines.length, 1, r.stdout);
  const j = JSON.parse(lines[0]);
  assert.equal(j.kind, 'tasks');
  assert.equal(sqlite(db, `SELECT format FROM traces WHERE id=${j.id};`), 'starpu');
});
