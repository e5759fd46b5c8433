// spool.test.mjs: uploads left in the spool by a crash are removed when the
// server starts, once they are older than a day; recent ones stay (another
// daemon sharing the database may be importing them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, existsSync, utimesSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, scratchDb } from '../lib/daemon.mjs';

// The default spool (cmd_serve.c): FILE.spool beside an SQLite file; for a
// PostgreSQL URL, $TMPDIR/ariadne-HOST_PORT_DB.spool (other characters as '_').
function defaultSpool(db, tmp) {
  if (!/^postgres(ql)?:\/\//.test(db)) return db + '.spool';
  const where = db.replace(/^[^:]*:\/\/([^@/]*@)?/, '').replace(/\?.*$/, '');
  return join(tmp, `ariadne-${where.replace(/[^A-Za-z0-9]/g, '_')}.spool`);
}

test('stale uploads are removed at start-up, recent ones kept', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ariadne-spool-'));
  const db = scratchDb(dir);
  const spool = defaultSpool(db, dir);
  const stale = join(spool, 'upload-stale1'), recent = join(spool, 'upload-recent1');
  mkdirSync(stale, { recursive: true });
  mkdirSync(recent);
  const twoDaysAgo = Date.now() / 1000 - 2 * 24 * 3600;
  utimesSync(stale, twoDaysAgo, twoDaysAgo);
  const d = await startDaemon({ dir, db, env: { TMPDIR: dir } });
  try {
    assert.equal(existsSync(stale), false, 'the two-day-old upload is gone');
    assert.equal(existsSync(recent), true, 'the recent upload is kept');
  } finally {
    const res = await d.stop();
    assert.equal(res.code, 0);
    rmSync(dir, { recursive: true, force: true });
  }
});
