import { startDaemon } from './lib/daemon.mjs';
import { parityPaths, compareAnswers } from './lib/parity.mjs';
import { stopClean } from './fixtures/api/util.mjs';
const [dbA, dbB, ids, idB] = process.argv.slice(2);
const mapB = (p) => idB ? p.replace(`/traces/${ids}`, `/traces/${idB}`) : p;
const a = await startDaemon({ db: dbA }), b = await startDaemon({ db: dbB });
try {
  const all = await parityPaths(a.url);
  const want = ids.split(',');
  const paths = all.paths.filter((p) => !/format=csv/.test(p) && want.some((id) => new RegExp(`/traces/${id}(/|\\?|$)`).test(p)));
  // time each path on each
  const rows = [];
  for (const p of paths) {
    const t = async (u) => { const t0 = performance.now(); const r = await fetch(u + p); await r.arrayBuffer(); return [performance.now() - t0, r.status]; };
    const t2 = async (u) => { const t0 = performance.now(); const r = await fetch(u + mapB(p)); await r.arrayBuffer(); return [performance.now() - t0, r.status]; };
    await t(a.url); await t2(b.url);
    const [ta, sa] = await t(a.url); const [tb, sb] = await t2(b.url);
    rows.push([tb, ta, sa, sb, p]);
  }
  rows.sort((x, y) => y[0] - x[0]);
  for (const r of rows.slice(0, 25)) console.log(`${r[1].toFixed(0).padStart(7)} ${r[0].toFixed(0).padStart(7)} ${r[2]} ${r[3]} ${r[4]}`);
  const { mismatches } = idB ? { mismatches: [] } : await compareAnswers(a.url, b.url, paths);
  console.log('mismatches', mismatches.length, mismatches.slice(0, 5).join('\n'));
} finally { await stopClean(a); await stopClean(b); }
