// pg_shards.test.mjs: a sharded PostgreSQL store (issue 20's check): a
// coordinator database on the fixture's cluster and two more clusters
// (tests/lib/pg_cluster.sh) registered as its shards with `ariadned shard
// add`. A few fixtures of each kind (and the StarVZ LU trace when
// ../shared/data is there) are imported into the coordinator and into a
// plain one-server database in the same order; then, with the spreading
// threshold lowered (`ariadned shard spread --rows 3`), a task trace, a
// data-movement trace and an event trace more, which are spread over both
// shards. Then:
// - traces landed on both shards (a profile's values, a PDES run's metric
//   samples and an event trace's chunks too): each shard holds trace tables, each with
//   the rows the plain database holds for that table and trace (a spread
//   trace's split by worker, container or metric, no key on two shards, the
//   same rows and rowids in all), and the coordinator has one foreign
//   partition per shard table;
// - every GET endpoint answers the sharded daemon as the plain one
//   (tests/lib/parity.mjs, pg_parity's comparison);
// - `ariadned copy` from the sharded coordinator into SQLite (read through
//   the shards) answers the spread traces' GETs as the plain database;
// - EXPLAIN (VERBOSE) of the Gantt's aggregation shows its GROUP BY in the
//   shard's Remote SQL: a query of its shape (tasks per worker, type and
//   pixel, which gives the same groups as one server), and the daemons' own
//   statement (src/store/gantt_sql.c, through `ariadned shard explain`),
//   and on a spread trace on both shards at once (Async Foreign Scan);
// - a shard that is down (its server stopped) stops only the traces it
//   holds, with 503 "unavailable" naming the shard (every GET of each
//   trace on the other shard alone answers as before); they answer as
//   before once it is back (postgres_fdw connects again);
// - deleting a trace drops its tables on its shard (a spread trace's: by
//   the next sweep, for now); an orphan table on a
//   shard is dropped by `ariadned shard sweep`; a shard holding traces
//   cannot be removed; the URL's password is printed nowhere.
// Runs under CTest's api_pg label; under plain SQLite it skips.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
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
let spreadTask = 0, spreadDm = 0, spreadEv = 0; // the spread traces' ids
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

// The trace tables of a shard ("<table>_t<id>", and "<table>_t<id>_s<k>"
// for a spread trace): [{name, table, trace, sub}].
function shardTables(url) {
  const out = psql(url, "SELECT relname FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace" +
    " AND relname ~ '_t[0-9]+(_s[0-9]+)?$' ORDER BY relname");
  return out ? out.split('\n').map((name) => {
    const m = /^(.*)_t(\d+)(_s\d+)?$/.exec(name);
    return { name, table: m[1], trace: Number(m[2]), sub: Boolean(m[3]) };
  }) : [];
}

// The row key a spread trace's table is split by (src/store/pg_publish.c).
const KEYS = { tasks: 'worker_id', states: 'container_id', variables: 'container_id', links: 'container_id',
  dm_samples: 'metric_id', events: 'container_id', state_chunks: 'container_id', event_chunks: 'container_id',
  ev_messages: 'src_container' };

const lastTrace = (db) => Number(psql(db, 'SELECT max(id) FROM traces'));

before(async () => {
  if (skip) return;
  work = mkdtempSync(join(tmpdir(), 'ariadne-shards-'));
  chmodSync(work, 0o755); // the clusters run as an unprivileged user when we are root
  for (const name of ['one', 'two']) {
    const dir = join(work, name);
    // Children of CTest's fixture cluster, when there is one: its pg.stop
    // stops them too if this test is killed before its after() (a timeout).
    const owner = process.env.ARIADNE_TEST_PG_FILE ? { PG_CLUSTER_OWNER: dirname(process.env.ARIADNE_TEST_PG_FILE) } : {};
    const url = execFileSync('bash', [clusterScript, 'start', dir], {
      encoding: 'utf8', env: { ...process.env, ...owner },
    }).trim();
    shards[name] = { dir, url };
  }
  coord = newPgDatabase();
  plain = newPgDatabase();
  for (const [name, { url }] of Object.entries(shards)) {
    const withPassword = url.replace('ariadne@', `ariadne:${PASSWORD}@`);
    await cli('shard', 'add', '--db', coord, '--name', name, '--url', withPassword);
  }
  // one or two of each kind (tasks, Paje, profile, data movement): the
  // other fixtures add requests, not checks
  const pick = ['starpu/bundle', 'starpu/starvz', 'paje/quirks.trace', 'profiles/small.cali', 'datamove/kineto_small',
    'metrics/ross', 'projections'];
  const entries = FIXTURES.filter((paths) => pick.some((p) => paths[0].includes(p)))
    .concat(existsSync(sharedData) ? REAL.slice(0, 1) : []);
  assert.equal(entries.length, pick.length + (existsSync(sharedData) ? 1 : 0));
  const t0 = Date.now();
  await Promise.all([importAll(coord, entries), importAll(plain, entries)]);
  // spread: every trace from now on with 3 rows or more (the fixtures'
  // first task trace, data-movement trace and event trace once more)
  assert.deepEqual(JSON.parse(await cli('shard', 'spread', '--db', coord)), { spread_rows: 5000000 });
  assert.deepEqual(JSON.parse(await cli('shard', 'spread', '--db', coord, '--rows', '3')), { spread_rows: 3 });
  for (const paths of [entries[0], entries.find((p) => p[0].includes('datamove')),
    entries.find((p) => p[0].includes('projections'))]) {
    for (const db of [coord, plain]) await cli('import', '--quiet', '--allow-duplicate', '--db', db, ...paths);
    if (paths[0].includes('datamove')) spreadDm = lastTrace(coord);
    else if (paths[0].includes('projections')) spreadEv = lastTrace(coord);
    else spreadTask = lastTrace(coord);
  }
  assert.ok(spreadTask > 0 && spreadDm > 0 && spreadEv > 0);
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
    const whole = tables.filter((x) => !x.sub);
    for (const t of whole) {
      assert.equal(traces[t.trace] ?? name, name, `trace ${t.trace} is on two shards`);
      traces[t.trace] = name;
    }
    // row counts: on the shard, on one server, and through the coordinator's
    // foreign partitions (one query each)
    const counts = (db, from) => psql(db, whole.map((t) => `SELECT count(*) FROM ${from(t)}`).join(' UNION ALL ') ||
      'SELECT 0 WHERE false').split('\n').map(Number);
    const here = counts(url, (t) => `"${t.name}"`);
    const one = counts(plain, (t) => `"${t.table}" WHERE trace_id = ${t.trace}`);
    const viaCoord = counts(coord, (t) => `"${t.table}" WHERE trace_id = ${t.trace}`);
    whole.forEach((t, i) => {
      assert.ok(here[i] > 0, `${name}: ${t.name} is empty`);
      assert.equal(here[i], one[i], `${name}: ${t.name} has ${here[i]} rows, one server ${one[i]}`);
      assert.equal(viaCoord[i], here[i], `${name}: ${t.name} through the coordinator`);
    });
    total += tables.length;
  }
  assert.ok(Object.keys(traces).length >= 3, 'the traces imported before the threshold was lowered are not spread');
  const foreign = Number(psql(coord, 'SELECT count(*) FROM pg_foreign_table'));
  assert.equal(foreign, total, 'one foreign partition per shard table');
  // the tables with a unique key stay on the coordinator; the profile's
  // values, the metric samples (sql/pg/021_shard_keys.sql) and an event
  // trace's calls, events and messages (022_event_shard_keys.sql) go to
  // the shards
  assert.equal(Number(psql(coord, "SELECT count(*) FROM pg_foreign_table f JOIN pg_class c ON c.oid = f.ftrelid" +
    " WHERE c.relname ~ '^(cct_nodes|ev_locations|gantt_rows)_t'")), 0);
  for (const table of ['profile_values', 'mt_values', 'events', 'state_chunks', 'event_chunks', 'message_chunks'])
    assert.ok(Object.values(shards).some(({ url }) => shardTables(url).some((t) => t.table === table)),
      `${table} of a trace on a shard`);
});

test('a trace over the threshold is spread over both shards, with the rows one server holds', { skip }, () => {
  for (const id of [spreadTask, spreadDm, spreadEv]) {
    const all = Object.entries(shards).flatMap(([name, { url }]) =>
      shardTables(url).filter((t) => t.trace === id).map((t) => ({ ...t, shard: name, url })));
    // a table without a row key (message_chunks, profile_values) is whole, on one shard
    const whole = all.filter((t) => !KEYS[t.table]);
    assert.ok(whole.every((t) => !t.sub), `trace ${id}: a table without a key is split`);
    assert.equal(new Set(whole.map((t) => t.table)).size, whole.length, `trace ${id}: a table on two shards`);
    const subs = all.filter((t) => KEYS[t.table]);
    assert.ok(subs.every((t) => t.sub), `trace ${id}: a table that is not a sub-partition`);
    assert.deepEqual([...new Set(subs.map((t) => t.shard))].sort(), ['one', 'two'], `trace ${id} is on one shard`);
    if (id === spreadEv) {
      assert.deepEqual([...new Set(subs.map((t) => t.table))].sort(), ['event_chunks', 'state_chunks']);
      assert.ok(whole.some((t) => t.table === 'message_chunks'), 'the messages on a shard');
    }
    for (const table of new Set(subs.map((t) => t.table))) {
      const key = KEYS[table];
      assert.ok(key, `${table} is spread`);
      // on the coordinator: a partitioned partition, one foreign sub-partition per shard table
      assert.equal(psql(coord, `SELECT relkind FROM pg_class WHERE relname = '${table}_t${id}'`), 'p');
      const parts = subs.filter((t) => t.table === table);
      assert.equal(Number(psql(coord, `SELECT count(*) FROM pg_inherits WHERE inhparent = '"${table}_t${id}"'::regclass`)),
        parts.length);
      // each key on one shard; the shards' rows together are one server's, rowids too
      const seen = new Set();
      const rows = [];
      for (const t of parts) {
        for (const k of psql(t.url, `SELECT DISTINCT coalesce(${key}::text, 'null') FROM "${t.name}"`).split('\n')) {
          assert.ok(!seen.has(k), `${table} key ${k} of trace ${id} on two shards`);
          seen.add(k);
        }
        rows.push(...psql(t.url, `SELECT t::text FROM "${t.name}" t`).split('\n'));
      }
      const one = psql(plain, `SELECT t::text FROM "${table}" t WHERE trace_id = ${id}`).split('\n');
      assert.deepEqual(rows.sort(), one.sort(), `${table} of trace ${id}`);
      const viaCoord = psql(coord, `SELECT t::text FROM "${table}" t WHERE trace_id = ${id}`).split('\n');
      assert.deepEqual(viaCoord.sort(), one.sort(), `${table} of trace ${id} through the coordinator`);
    }
  }
});

test('every GET answers as on one server', { skip }, async (t) => {
  const all = await parityPaths(daemons.plain.url);
  const { traces } = all;
  // CSV variants (the JSON answers' rows again, pg_parity checks them) for
  // the spread traces only
  const spread = (p) => [spreadTask, spreadDm, spreadEv].some((id) => new RegExp(`/traces/${id}(/|\\?|$)`).test(p));
  const paths = all.paths.filter((p) => !/format=csv/.test(p) || spread(p));
  const t0 = Date.now();
  const { ok200, mismatches, slowest } = await compareAnswers(daemons.plain.url, daemons.sharded.url, paths);
  t.diagnostic(`${traces.length} traces, ${paths.length} requests, ${ok200} answered 200; ` +
    `imports ${importMs} ms, requests ${Date.now() - t0} ms`);
  t.diagnostic(`slowest: ${slowest.slice(0, 5).map(([ms, p]) => `${p} ${ms} ms`).join(', ')}`);
  assert.ok(ok200 >= traces.length * 4, `requests answered 200: ${ok200} of ${paths.length}`);
  assert.deepEqual(mismatches, [], `${mismatches.length} answers differ:\n${mismatches.join('\n')}`);
});

test('ariadned copy of the sharded store into SQLite answers as one server', { skip }, async (t) => {
  const file = join(work, 'copy.db');
  const summary = JSON.parse(await cli('copy', '--quiet', '--from', coord, '--to', file));
  assert.ok(summary.rows > 0);
  const copy = await startDaemon({ db: file });
  try {
    const { paths: all } = await parityPaths(daemons.plain.url);
    const mine = (p) => [spreadTask, spreadDm, spreadEv].some((id) => new RegExp(`/traces/${id}(/|\\?|$)`).test(p));
    const paths = all.filter((p) => !/format=csv/.test(p) && (mine(p) || !p.includes('/traces/')));
    const { ok200, mismatches } = await compareAnswers(daemons.plain.url, copy.url, paths);
    t.diagnostic(`${paths.length} requests, ${ok200} answered 200`);
    assert.ok(ok200 >= 8, `requests answered 200: ${ok200} of ${paths.length}`);
    assert.deepEqual(mismatches, [], `${mismatches.length} answers differ:\n${mismatches.join('\n')}`);
  } finally {
    await stopClean(copy);
  }
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
  // a spread trace: each shard aggregates its workers, both at once
  const spread = await cli('shard', 'explain', '--db', coord, '--trace', String(spreadTask));
  assert.match(spread, /^Append/, spread);
  for (const k of [0, 1]) {
    assert.match(spread, new RegExp(`Relations: Aggregate on \\(public\\.tasks_t${spreadTask}_s${k} tasks(_\\d+)?\\)`), spread);
    assert.match(spread, new RegExp(`Remote SQL: SELECT worker_id, type, .* FROM public\\.tasks_t${spreadTask}_s${k} WHERE .* GROUP BY [\\d, ]+$`, 'm'), spread);
  }
  assert.equal(spread.match(/^ {2}-> {2}Async Foreign Scan/gm)?.length, 2, spread);
});

// The statuses of a trace's GET paths (parityPaths' list) on the sharded daemon.
async function statuses(paths) {
  const out = {};
  for (const p of paths) out[p] = (await fetch(`${daemons.sharded.url}${p}`)).status;
  return out;
}

test('a shard that is down stops only the traces it holds (503 unavailable), which answer once it is back', { skip }, async () => {
  const held = (name) => new Set(shardTables(shards[name].url).map((t) => t.trace));
  const one = held('one'), two = held('two');
  const onlyTwo = [...two].find((id) => !one.has(id));
  const onlyOne = [...one].filter((id) => !two.has(id));
  assert.ok(onlyTwo && onlyOne.length, 'a trace on each shard alone');
  const { paths } = await parityPaths(daemons.sharded.url);
  const of = (id) => paths.filter((p) => p.startsWith(`/api/v1/traces/${id}/`) || p.startsWith(`/api/v1/traces/${id}?`));
  // every trace on shard one alone: a query that opens other traces'
  // partitions (a subquery correlated on trace_id) fails them too
  const [pathsTwo, pathsOne, pathsSpread] = [of(onlyTwo), onlyOne.flatMap(of), of(spreadTask)];
  const up = await statuses([...pathsTwo, ...pathsOne, ...pathsSpread]);
  execFileSync('bash', [clusterScript, 'pause', shards.two.dir]);
  try {
    const down = await statuses([...pathsTwo, ...pathsOne, ...pathsSpread]);
    for (const p of pathsOne) assert.equal(down[p], up[p], `${p} with shard two down`);
    const unavailable = [...pathsTwo, ...pathsSpread].filter((p) => down[p] === 503);
    assert.ok(unavailable.some((p) => pathsTwo.includes(p)) && unavailable.some((p) => pathsSpread.includes(p)),
      'the traces on shard two answer 503');
    for (const p of [...pathsTwo, ...pathsSpread]) assert.ok(down[p] === up[p] || down[p] === 503, `${p}: ${down[p]}`);
    const r = await fetch(`${daemons.sharded.url}${unavailable[0]}`);
    assert.equal(r.headers.get('retry-after'), '2');
    const body = await r.json();
    assert.equal(body.error.code, 'unavailable');
    assert.match(body.error.message, /cannot be reached.*ariadne_shard_two/s);
    assert.ok(!body.error.message.includes(PASSWORD));
    assert.equal((await fetch(`${daemons.sharded.url}/api/v1/traces?limit=1000`)).status, 200);
    assert.equal((await fetch(`${daemons.sharded.url}/api/v1/health`)).status, 200);
  } finally {
    execFileSync('bash', [clusterScript, 'resume', shards.two.dir]);
  }
  assert.deepEqual(await statuses([...pathsTwo, ...pathsSpread]),
    Object.fromEntries([...pathsTwo, ...pathsSpread].map((p) => [p, up[p]])));
});

test('deleting a trace drops its tables on its shard', { skip }, async () => {
  const [name, { url }] = Object.entries(shards).find(([, s]) => shardTables(s.url).some((t) => !t.sub));
  const id = shardTables(url).find((t) => !t.sub).trace;
  const r = await fetch(`${daemons.sharded.url}/api/v1/traces/${id}`, { method: 'DELETE' });
  assert.ok(r.status === 200 || r.status === 204, `DELETE answered ${r.status}`);
  assert.deepEqual(shardTables(url).filter((t) => t.trace === id), [], `${name} keeps trace ${id}'s tables`);
  assert.equal(Number(psql(coord, `SELECT count(*) FROM pg_class WHERE relname ~ '_t${id}$'`)), 0);
  assert.equal((await fetch(`${daemons.sharded.url}/api/v1/traces/${id}`)).status, 404);
});

test('deleting a spread trace drops it from both shards', { skip }, async () => {
  const id = spreadDm;
  const r = await fetch(`${daemons.sharded.url}/api/v1/traces/${id}`, { method: 'DELETE' });
  assert.ok(r.status === 200 || r.status === 204, `DELETE answered ${r.status}`);
  assert.equal(Number(psql(coord, `SELECT count(*) FROM pg_class WHERE relname ~ '_t${id}(_s[0-9]+)?$'`)), 0);
  // the deletion (src/store/store_traces.c) drops the foreign partitions it
  // finds, not yet a spread trace's sub-partitions: their shard tables go at
  // the next sweep (or import)
  await cli('shard', 'sweep', '--db', coord);
  for (const [name, { url }] of Object.entries(shards)) {
    assert.deepEqual(shardTables(url).filter((t) => t.trace === id), [], `${name} keeps trace ${id}'s tables`);
  }
  assert.equal((await fetch(`${daemons.sharded.url}/api/v1/traces/${id}`)).status, 404);
});

test('shard sweep drops orphans only; a shard with traces stays', { skip }, async () => {
  const { url } = shards.two;
  const before = shardTables(url).length;
  psql(url, 'CREATE TABLE states_t999999 (trace_id bigint)');
  psql(url, 'CREATE TABLE tasks_t999999_s1 (trace_id bigint)');
  const swept = JSON.parse(await cli('shard', 'sweep', '--db', coord));
  assert.deepEqual(swept, { dropped: 2 });
  assert.equal(shardTables(url).length, before);
  await assert.rejects(cli('shard', 'remove', 'two', '--db', coord), /holds \d+ tables/);
});

test('the password is printed nowhere', { skip }, () => {
  assert.ok(cliOutput.length > 0);
  for (const text of cliOutput) assert.ok(!text.includes(PASSWORD), text);
  assert.ok(!psql(coord, 'SELECT json_agg(srvoptions)::text FROM pg_foreign_server').includes(PASSWORD));
});
