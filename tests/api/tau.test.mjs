// tau.test.mjs: TAU text profiles (profile.<node>.<context>.<thread>) as
// call-graph profiles: the files of one run uploaded together (multipart
// or an archive) become one profile with a process per file; /tree gives
// the exclusive time per node as Hatchet's tree() prints it. With
// ../shared/data, Hatchet's own oracle for tau-cpi-mpi (tests/test_tau.py).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startDaemon, sourceDir, sharedData, importedTrace } from '../lib/daemon.mjs';
import { call, uploadMultipart, uploadRaw, makeTarGz, stopClean } from '../fixtures/api/util.mjs';

const small = join(sourceDir, 'tests', 'fixtures', 'profiles', 'tau-small');
const cpi = join(process.env.ARIADNE_SHARED_DATA || sharedData, 'hatchet', 'hatchet', 'tests', 'data', 'tau-cpi-mpi');
const files = (dir, prefix) => readdirSync(dir).sort()
  .map((name) => ({ name: prefix ? `${prefix}/${name}` : name, data: readFileSync(join(dir, name)) }));

let d;
before(async () => { d = await startDaemon(); });
after(async () => { if (d) await stopClean(d); });

async function treeText(id, rank) {
  const r = await call(d.url, `/api/v1/traces/${id}/tree?metric=time&rank=${rank}`);
  assert.equal(r.status, 200, r.text);
  return r.text;
}

test('the files of a TAU run uploaded together make one profile', async () => {
  const id = await importedTrace(d.url, await uploadMultipart(d.url, files(small)), 'tau multipart');
  const t = (await call(d.url, `/api/v1/traces/${id}`)).json;
  assert.equal(t.format, 'tau');
  assert.equal(t.kind, 'profile');
  assert.equal(t.summary.processes, 2, JSON.stringify(t.summary));
  const rank0 = await treeText(id, 0);
  // Hatchet's tree(): "<value> <name> <file>"; a parent that only appears
  // inside call paths has no value of its own (nan, as in Hatchet)
  assert.match(rank0, /^100\.000 \.TAU application ?$/m);
  assert.match(rank0, /─ 300\.000 main app\.c$/m);
  assert.match(rank0, /─ 600\.000 solve solver\.c$/m);
  assert.match(rank0, /─ nan init\(\) ?$/m, 'a parent seen only inside a call path is a node');
  assert.match(rank0, /─ 50\.000 MPI_Init\(\) ?$/m);
  assert.match(await treeText(id, 1), /^80\.000 \.TAU application ?$/m);
});

test('Hatchet\'s oracle on tau-cpi-mpi (4 ranks, from an archive)', async (t) => {
  if (!existsSync(cpi)) { t.skip(`no ${cpi}`); return; }
  const id = await importedTrace(d.url, await uploadRaw(d.url, makeTarGz(files(cpi, 'tau-cpi-mpi')),
    { filename: 'tau.tar.gz' }), 'tau archive');
  const r0 = await treeText(id, 0), r1 = await treeText(id, 1);
  for (const [text, root, fin, bcast] of [[r0, '449', '4458', '218'], [r1, '419', '4894', '333']]) {
    assert.match(text, new RegExp(`^${root}\\.000 \\.TAU application ?$`, 'm'));
    assert.match(text, new RegExp(`─ ${fin}\\.000 MPI_Finalize\\(\\) ?$`, 'm'));
    assert.match(text, new RegExp(`─ ${bcast}\\.000 MPI_Bcast\\(\\) ?$`, 'm'));
  }
  const top = r0.split('\n').filter((l) => /^[├└]─ /.test(l));
  assert.equal(top.length, 7, `seven MPI calls under the root:\n${r0}`);
});

test('a file named like a TAU profile but not one is refused, naming it', async () => {
  const r = await uploadMultipart(d.url, [{ name: 'profile.0.0.0', data: Buffer.from('not a profile\n') }]);
  const job = r.json?.job;
  assert.ok(job, JSON.stringify(r.json));
  let j;
  for (let i = 0; i < 100; i++) {
    j = (await call(d.url, `/api/v1/jobs/${job.id}`)).json;
    if (j.status === 'failed' || j.status === 'succeeded') break;
    await new Promise((res) => setTimeout(res, 50));
  }
  assert.equal(j.status, 'failed');
  assert.match(j.error.message, /profile\.0\.0\.0/);
});
