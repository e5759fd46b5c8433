// pg_shards.test.mjs: a sharded PostgreSQL store (issue 20's check): a
// coordinator database on the fixture's cluster and two more clusters
// (tests/lib/pg_cluster.sh) registered as its shards with `ariadned shard
// add`. The fixtures (and a few real traces when ../shared/data is there)
// are imported into the coordinator and into a plain one-server database in
// the same order; then:
// - traces landed on both shards: each shard holds trace tables, each with
//   the rows the plain database holds for that table and trace, and the
//   coordinator has one foreign partition per shard table;
// - every GET endpoint answers the sharded daemon as the plain one
//   (tests/lib/parity.mjs, pg_parity's comparison);
// - EXPLAIN (VERBOSE) of the Gantt's aggregation shows its GROUP BY in the
//   shard's Remote SQL: a query of its shape (tasks per worker, type and
//   pixel, which gives the same groups as one server), and the daemons' own
//   statement (src/store/gantt_sql.c, through `ariadned shard explain`);
// - deleting a trace drops its tables on its shard; an orphan table on a
//   shard is dropped by `ariadned shard sweep`; a shard holding traces
//   cannot be removed; the URL's password is printed nowhere.
// Runs under CTest's api_pg label; under plain SQLite it skips.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
// $ARIADNE_PARITY_ARIADNED, when set, names the ariadned that imports and
// serves here instead of $ARIADNED (deploy/test.sh: the Release build, as
// for pg_parity; the sharded code paths' memory checks are the other
// api_pg files' and a run of this file with the ASan build).
if (process.env.ARIADNE_PARITY_ARIADNED) process.env.ARIADNED = process.env.ARIADNE_PARITY_ARIADNED;
const { ariadned, backendName, newPgDatabase, sharedData, sourceDir, startDaemon } = await import('../lib/daemon.mjs');
const { FIXTURES, REAL, compareAnswers, importAll, parityPaths } = await import('../lib/parity.mjs');
const { stopClean } = await import('../fixtures/api/util.mjs');

const run = promisify(execFile);
const skip = backendName() === 'postgresql' ? false
  : 'needs PostgreSQL: run under CTest label api_pg (ARIADNE_TEST_PG or ARIADNE_TEST_PG_FILE)';
const clusterScript = join(sourceDir, 'tests', 'lib', 'pg_cluster.sh');
const PASSWORD = 'not-to-be-printed-7f3a';

let work = null, coord = null, plain = null, importMs = 0;
const shards = {}; // name -> {dir, url}
const daemons = {};
const cliOutput = [];

function psql(url, sql) {
  return execFileSync(process.env.ARIADNE_PSQL || 'psql', ['-X', '-q', '-A', '-t', '-F', '|', '-v', 'ON_ERROR_STOP=1',
    '-d', url, '-c', sql], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

async function cli(...args) {
  const r = await run(ariadned, args, { maxBuffer: 1 << 24 });
  cliOutput.push(r.stdout, r.stderr);
  return r.stdout;
}

// The trace tables ("<table>_t<id>") of a shard: [{name, table, trace}].
function shardTables(url) {
  const out = psql(url, "SELECT relname FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace" +
    " AND relname ~ '_t[0-9]+$' ORDER BY relname");
  return out ? out.split('\n').map((name) => {
    const m = /^(.*)_t(\d+)$/.exec(name);
    return { name, table: m[1], trace: Number(m[2]) };
  }) : [];
}

before(async () => {
  if (skip) return;
  work = mkdtempSync(join(tmpdir(), 'ariadne-shards-'));
  chmodSync(work, 0o755); // the clusters run as an unprivileged user when we are root
  for (const name of ['one', 'two']) {
    const dir = join(work, name);
    const url = execFileSync('bash', [clusterScript, 'start', dir], { encoding: 'utf8' }).trim();
    shards[name] = { dir, url };
  }
  coord = newPgDatabase();
  plain = newPgDatabase();
  for (const [name, { url }] of Object.entries(shards)) {
    const withPassword = url.replace('ariadne@', `ariadne:${PASSWORD}@`);
    await cli('shard', 'add', '--db', coord, '--name', name, '--url', withPassword);
  }
  const real = existsSync(sharedData) ? REAL.slice(0, 3) : [];
  const entries = FIXTURES.concat(real);
  const t0 = Date.now();
  await Promise.all([importAll(coord, entries), importAll(plain, entries)]);
  importMs = Date.now() - t0;
  daemons.plain = await startDaemon({ db: plain });
  daemons.sharded = await startDaemon({ db: coord });
});

after(async () => {
  for (const d of Object.values(daemons)) await stopClean(d);
  for (const { dir } of Object.values(shards)) execFileSync('bash', [clusterScript, 'stop', dir]);
  if (work) rmSync(work, { recursive: true, force: true });
});

test('shard list names both shards, without the password', { skip }, async () => {
  const list = JSON.parse(await cli('shard', 'list', '--db', coord));
  assert.deepEqual(list.map((s) => s.name), ['one', 'two']);
  for (const s of list) {
    assert.match(s.url, /^postgresql:\/\/ariadne@127\.0\.0\.1:\d+\/ariadne$/);
    assert.ok(s.traces > 0, `shard ${s.name} holds no trace`);
  }
});

test('traces land on both shards, with the rows one server holds', { skip }, () => {
  let total = 0;
  const traces = {};
  for (const [name, { url }] of Object.entries(shards)) {
    const tables = shardTables(url);
    assert.ok(tables.length > 0, `shard ${name} holds no table`);
    for (const t of tables) {
      assert.equal(traces[t.trace] ?? name, name, `trace ${t.trace} is on two shards`);
      traces[t.trace] = name;
      const here = Number(psql(url, `SELECT count(*) FROM "${t.name}"`));
      const there = Number(psql(plain, `SELECT count(*) FROM "${t.table}" WHERE trace_id = ${t.trace}`));
      assert.ok(here > 0, `${name}: ${t.name} is empty`);
      assert.equal(here, there, `${name}: ${t.name} has ${here} rows, one server ${there}`);
      // the coordinator reads the same rows through its foreign partition
      assert.equal(Number(psql(coord, `SELECT count(*) FROM "${t.table}" WHERE trace_id = ${t.trace}`)), here);
    }
    total += tables.length;
  }
  const foreign = Number(psql(coord, 'SELECT count(*) FROM pg_foreign_table'));
  assert.equal(foreign, total, 'one foreign partition per shard table');
  // the tables with a unique key stay on the coordinator
  assert.equal(Number(psql(coord, "SELECT count(*) FROM pg_foreign_table f JOIN pg_class c ON c.oid = f.ftrelid" +
    " WHERE c.relname ~ '^(events|cct_nodes|profile_values|state_chunks)_t'")), 0);
});

test('every GET answers as on one server', { skip }, async (t) => {
  const { paths, traces } = await parityPaths(daemons.plain.url);
  const t0 = Date.now();
  const { ok200, mismatches, slowest } = await compareAnswers(daemons.plain.url, daemons.sharded.url, paths);
  t.diagnostic(`${traces.length} traces, ${paths.length} requests, ${ok200} answered 200; ` +
    `imports ${importMs} ms, requests ${Date.now() - t0} ms`);
  t.diagnostic(`slowest: ${slowest.slice(0, 5).map(([ms, p]) => `${p} ${ms} ms`).join(', ')}`);
  assert.ok(ok200 >= traces.length * 4, `requests answered 200: ${ok200} of ${paths.length}`);
  assert.deepEqual(mismatches, [], `${mismatches.length} answers differ:\n${mismatches.join('\n')}`);
});

test('the Gantt aggregation runs on the shard (EXPLAIN VERBOSE)', { skip }, () => {
  const id = Number(psql(coord, "SELECT min(trace_id) FROM tasks"));
  const [t0, t1] = psql(coord, `SELECT min(start), max("end") FROM tasks WHERE trace_id = ${id}`).split('|').map(Number);
  const px = (t1 - t0) / 200;
  // The shape of the Gantt's aggregation (src/store/gantt_sql.c): tasks of a
  // window per worker, type and pixel. A new psql session takes the
  // database's settings (partitionwise aggregation, set by `shard add`).
  const sql = `SELECT trace_id, worker_id, type, floor((start - ${t0}) / ${px}) AS p,` +
    ` sum(CASE WHEN "end" > ${t1} THEN ${t1} ELSE "end" END - start), count(*)` +
    ` FROM tasks WHERE trace_id = ${id} AND "end" >= ${t0} AND start <= ${t1} GROUP BY 1, 2, 3, 4`;
  const plan = psql(coord, `EXPLAIN (VERBOSE) ${sql}`);
  assert.match(plan, /Relations: Aggregate on/, plan);
  assert.match(plan, /Remote SQL: SELECT .*count\(\*\) FROM public\.tasks_t\d+ .*GROUP BY 1, 2, 3, 4/, plan);
  // and it gives what one server's local aggregation gives
  const order = ' ORDER BY 1, 2, 3, 4';
  assert.equal(psql(coord, sql + order), psql(plain, sql + order));
});

test('the daemons\' own Gantt statement runs on the shard (shard explain)', { skip }, async () => {
  // src/store/gantt_sql.c's statement (ari_gantt_sql_text), every worker,
  // the whole trace at 1000 pixels, as EXPLAIN (VERBOSE) EXECUTE shows it
  const id = Number(psql(coord, 'SELECT min(trace_id) FROM tasks'));
  const plan = await cli('shard', 'explain', '--db', coord, '--trace', String(id));
  assert.match(plan, /^Foreign Scan/, plan);
  assert.match(plan, /Relations: Aggregate on \(public\.tasks_t\d+ tasks\)/, plan);
  assert.match(plan, /Remote SQL: SELECT worker_id, type, .* FROM public\.tasks_t\d+ WHERE .* GROUP BY [\d, ]+$/m, plan);
  // on one server the same statement aggregates locally
  const local = await cli('shard', 'explain', '--db', plain, '--trace', String(id));
  assert.doesNotMatch(local, /Remote SQL/, local);
  assert.match(local, /Aggregate/, local);
});

test('deleting a trace drops its tables on its shard', { skip }, async () => {
  const [name, { url }] = Object.entries(shards).find(([, s]) => shardTables(s.url).length > 0);
  const id = shardTables(url)[0].trace;
  const r = await fetch(`${daemons.sharded.url}/api/v1/traces/${id}`, { method: 'DELETE' });
  assert.ok(r.status === 200 || r.status === 204, `DELETE answered ${r.status}`);
  assert.deepEqual(shardTables(url).filter((t) => t.trace === id), [], `${name} keeps trace ${id}'s tables`);
  assert.equal(Number(psql(coord, `SELECT count(*) FROM pg_class WHERE relname ~ '_t${id}$'`)), 0);
  assert.equal((await fetch(`${daemons.sharded.url}/api/v1/traces/${id}`)).status, 404);
});

test('shard sweep drops orphans only; a shard with traces stays', { skip }, async () => {
  const { url } = shards.two;
  const before = shardTables(url).length;
  psql(url, 'CREATE TABLE states_t999999 (trace_id bigint)');
  const swept = JSON.parse(await cli('shard', 'sweep', '--db', coord));
  assert.deepEqual(swept, { dropped: 1 });
  assert.equal(shardTables(url).length, before);
  await assert.rejects(cli('shard', 'remove', 'two', '--db', coord), /holds \d+ tables/);
});

test('the password is printed nowhere', { skip }, () => {
  assert.ok(cliOutput.length > 0);
  for (const text of cliOutput) assert.ok(!text.includes(PASSWORD), text);
  assert.ok(!psql(coord, 'SELECT json_agg(srvoptions)::text FROM pg_foreign_server').includes(PASSWORD));
});
