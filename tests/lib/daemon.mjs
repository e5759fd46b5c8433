// daemon.mjs: starts a live ariadned on a free loopback port with a fresh
// temporary database, for the API and browser tests.
//
//   const d = await startDaemon({ args: ['--auth'] });
//   const r = await fetch(d.url + '/api/v1/health');
//   await d.stop();
//
// The binary comes from $ARIADNED (CTest sets it), the dashboard from
// $ARIADNE_STATIC. stop() sends SIGTERM and waits for a clean exit.
//
// With $ARIADNE_TEST_PG (a PostgreSQL base URL) or $ARIADNE_TEST_PG_FILE (a
// file holding it: CTest's api_pg.* tests, tests/lib/pg_cluster.sh) each
// daemon gets a fresh PostgreSQL database instead of a SQLite file: d.db is
// then its URL. backendName() says which ('sqlite' or 'postgresql').
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, readFileSync, readdirSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { acceptedJob } from '../fixtures/api/util.mjs';

const here = dirname(fileURLToPath(import.meta.url));
export const sourceDir = process.env.ARIADNE_SOURCE_DIR || join(here, '..', '..');
// Browser tests (ARIADNE_BROWSER_TEST, set by CTest) take
// $ARIADNE_BROWSER_ARIADNED when set: deploy/test.sh gives them the Release
// build, since they test the dashboard and run one at a time; the API tests
// exercise the daemon under the sanitizers.
export const ariadned = (process.env.ARIADNE_BROWSER_TEST && process.env.ARIADNE_BROWSER_ARIADNED) ||
  process.env.ARIADNED || join(sourceDir, 'build', 'ariadned');
export const staticDir = process.env.ARIADNE_STATIC || join(sourceDir, 'static');
export const sharedData = join(sourceDir, '..', 'shared', 'data');

// The PostgreSQL cluster the tests run against, or null for SQLite.
function pgBaseUrl() {
  if (process.env.ARIADNE_TEST_PG) return process.env.ARIADNE_TEST_PG.trim();
  const file = process.env.ARIADNE_TEST_PG_FILE;
  if (!file) return null;
  try {
    return readFileSync(file, 'utf8').trim();
  } catch (e) {
    throw new Error(`ARIADNE_TEST_PG_FILE=${file}: ${e.message} (is the CTest fixture pg.start running?)`);
  }
}
const pgBase = pgBaseUrl();

export function backendName() {
  return pgBase ? 'postgresql' : 'sqlite';
}

// A fresh PostgreSQL database's URL (dropped when the test process exits),
// for `ariadned import --db URL` before a daemon serves it; null without a cluster.
export function newPgDatabase() {
  return pgBase ? pgUrl(pgDatabaseFor(null)) : null;
}

// A fresh database for `ariadned import --db` or `token create --db` before a
// daemon serves it (startDaemon({ db })): a new PostgreSQL database under
// $ARIADNE_TEST_PG, else the file DIR/NAME.
export function scratchDb(dir, name = 'test.db') {
  return newPgDatabase() ?? join(dir, name);
}

// Runs one SQL command on the cluster's maintenance database with psql;
// returns what it prints (unaligned, tuples only).
function pgAdmin(sql) {
  try {
    return execFileSync(process.env.ARIADNE_PSQL || 'psql', ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1',
      '-d', pgBase, '-c', sql], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  } catch (e) {
    throw new Error(`psql ${pgBase} -c '${sql}': ${(e.stderr || e.message).trim()}`);
  }
}

// Test databases are copies (CREATE DATABASE ... TEMPLATE) of one that
// `ariadned migrate` brought to the schema of sql/pg: migrating each new
// database costs seconds under ASan. One template per cluster and sql/pg
// contents, kept in the cluster: the first process that needs it migrates
// a database of its own and renames it (atomic; a process that loses the
// race drops its copy). The daemons still check the version at start.
let pgTemplateName = null;

function pgTemplate() {
  if (pgTemplateName) return pgTemplateName;
  const dir = join(sourceDir, 'sql', 'pg');
  const hash = createHash('sha256');
  for (const f of readdirSync(dir).sort()) hash.update(f).update(readFileSync(join(dir, f)));
  const name = `ariadne_template_${hash.digest('hex').slice(0, 16)}`;
  if (pgAdmin(`SELECT count(*) FROM pg_database WHERE datname = '${name}'`) === '0') {
    const own = `ariadne_template_${process.pid}`;
    pgAdmin(`DROP DATABASE IF EXISTS ${own}`);
    pgAdmin(`CREATE DATABASE ${own}`);
    const r = runCli(['migrate', '--db', pgUrl(own)]);
    if (r.status !== 0) throw new Error(`ariadned migrate --db ${pgUrl(own)}: ${r.stderr}`);
    try {
      pgAdmin(`ALTER DATABASE ${own} RENAME TO ${name}`);
    } catch {
      pgAdmin(`DROP DATABASE IF EXISTS ${own}`); // another process made it meanwhile
    }
  }
  pgTemplateName = name;
  return name;
}

// Databases made here and not dropped yet; a caller's dir -> its database, so
// that daemons started on one dir share one database as they share test.db.
const pgDatabases = new Set();
const pgByDir = new Map();
let pgCount = 0;

function pgDatabaseFor(dir) {
  if (dir && pgByDir.has(dir)) return pgByDir.get(dir);
  const name = `ariadne_test_${process.pid}_${++pgCount}`;
  pgAdmin(`CREATE DATABASE ${name} TEMPLATE ${pgTemplate()}`);
  pgDatabases.add(name);
  if (dir) pgByDir.set(dir, name);
  return name;
}

function pgUrl(name) {
  const u = new URL(pgBase);
  u.pathname = '/' + name;
  return u.toString();
}

function pgDrop(name) {
  pgDatabases.delete(name);
  for (const [dir, db] of pgByDir) if (db === name) pgByDir.delete(dir);
  pgAdmin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}

// Databases of a caller's dir, and of daemons not stopped with stop(), go at exit.
if (pgBase) {
  process.on('exit', () => {
    for (const name of [...pgDatabases]) {
      try { pgDrop(name); } catch (e) { process.stderr.write(`daemon.mjs: ${e.message}\n`); }
    }
  });
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

// Runs `ariadned ARGS...` to completion; returns {status, stdout, stderr}.
export function runCli(args, opts = {}) {
  try {
    const stdout = execFileSync(ariadned, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...opts });
    return { status: 0, stdout, stderr: '' };
  } catch (e) {
    return { status: e.status ?? 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

// `host` is the address to listen on (default 127.0.0.1; the tests still
// reach the daemon through 127.0.0.1, so it must accept there: 0.0.0.0).
// `backend: 'sqlite'` keeps a daemon on SQLite under $ARIADNE_TEST_PG (a test
// comparing the two backends); `db` serves an existing database (a file or a
// URL from newPgDatabase) instead of a fresh one.
export async function startDaemon({ args = [], dir = null, env = {}, host = '127.0.0.1', backend = null,
  db: givenDb = null } = {}) {
  const workDir = dir || mkdtempSync(join(tmpdir(), 'ariadne-test-'));
  const usePg = pgBase && backend !== 'sqlite' && !givenDb;
  const pgName = usePg ? pgDatabaseFor(dir) : null;
  const db = givenDb || (usePg ? pgUrl(pgName) : join(workDir, 'test.db'));
  const port = await freePort();
  // --idle-timeout 900: tests block their event loop in synchronous CLI
  // imports (runCli) for a minute or more under ASan; a keep-alive connection
  // idle that long would be shut by the daemon before fetch could notice, and
  // the next request on it fails. A test's own --idle-timeout comes later and wins.
  const child = spawn(ariadned, ['serve', '--db', db, '--listen', `${host}:${port}`,
    '--static', staticDir, '--log-level', 'warn', '--idle-timeout', '900', ...args],
    { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, ...env } });
  let exited = null;
  const exitPromise = new Promise((resolve) => child.on('exit', (code, signal) => {
    exited = { code, signal };
    resolve(exited);
  }));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 15000;
  for (;;) {
    if (exited) throw new Error(`ariadned exited early: ${JSON.stringify(exited)}`);
    try {
      const r = await fetch(url + '/api/v1/health');
      if (r.ok) break;
    } catch { /* not up yet */ }
    if (Date.now() > deadline) { child.kill('SIGKILL'); throw new Error('ariadned did not start'); }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url, port, db, dir: workDir, child,
    async stop({ keep = false } = {}) {
      if (!exited) child.kill('SIGTERM');
      let timer;
      const res = await Promise.race([exitPromise,
        new Promise((r) => { timer = setTimeout(() => r(null), 10000); })]);
      clearTimeout(timer);
      if (!res) { child.kill('SIGKILL'); await exitPromise; throw new Error('ariadned did not stop on SIGTERM'); }
      if (!keep && !dir) rmSync(workDir, { recursive: true, force: true });
      if (pgName && !keep && !dir) pgDrop(pgName);
      return res;
    },
  };
}

// Polls a job until it is finished; returns the final job object.
export async function waitJob(url, jobId, headers = {}, timeoutMs = 60000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await fetch(`${url}/api/v1/jobs/${jobId}`, { headers });
    const body = await r.json();
    if (body.status === 'succeeded' || body.status === 'failed') return body;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${body.status}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

// Waits for the job of an accepted upload (a 202 from util.mjs's call()),
// asserts that it imported exactly one trace, and returns that trace's id.
export async function importedTrace(url, res, what = 'upload') {
  const job = acceptedJob(res, what);
  const done = await waitJob(url, job.id);
  assert.equal(done.status, 'succeeded', `${what}: ${JSON.stringify(done)}`);
  assert.equal(done.trace_ids.length, 1, what);
  return done.trace_ids[0];
}

// Imports PATH into the database DB with `ariadned import` (optionally named
// NAME), asserts it succeeded and returns the first new trace's id.
export function importCli(db, path, name) {
  // Tests import the same fixture several times on purpose: an identical
  // import is refused by default (duplicate_trace, issue 15).
  const args = ['import', '--db', db, '--allow-duplicate'];
  if (name) args.push('--name', name);
  const r = runCli([...args, path]);
  assert.equal(r.status, 0, `import ${path}: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n')[0]).id;
}

// GETs PATH, asserts a 200 with a JSON body and returns that body.
export async function getOk(url, path) {
  const r = await fetch(url + path);
  const text = await r.text();
  assert.equal(r.status, 200, `${path} -> ${r.status} ${text.slice(0, 300)}`);
  assert.match(r.headers.get('content-type') || '', /^application\/json/, path);
  return JSON.parse(text);
}

