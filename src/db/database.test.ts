import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { ENGINES, testConfig } from '../../test/engines.ts';
import { openDatabase } from './database.ts';
import { inGroupTransaction } from './group-commit.ts';

const modeOf = (file: string) => statSync(file).mode & 0o777;

test('SQLite: the data folder is created 0700 and the database files are 0600, also when they existed as 0644', async () => {
  const root = mkdtempSync(path.join(tmpdir(), 'farmstead-modes-'));
  try {
    const dataDir = path.join(root, 'data', 'nested');
    const fresh = await openDatabase({ dataDir, databaseUrl: null, pgPoolSize: 1 });
    await fresh.db.selectFrom('accounts').select('id').execute();
    assert.equal(modeOf(dataDir), 0o700);
    for (const name of ['farmstead.db', 'farmstead.db-wal', 'farmstead.db-shm']) {
      assert.equal(modeOf(path.join(dataDir, name)), 0o600, name);
    }
    await fresh.close();

    // An install from before this change: world-readable files in an existing folder.
    const older = path.join(root, 'older');
    const first = await openDatabase({ dataDir: older, databaseUrl: null, pgPoolSize: 1 });
    await first.close();
    chmodSync(path.join(older, 'farmstead.db'), 0o644);
    writeFileSync(path.join(older, 'farmstead.db-wal'), '');
    chmodSync(path.join(older, 'farmstead.db-wal'), 0o644);
    const reopened = await openDatabase({ dataDir: older, databaseUrl: null, pgPoolSize: 1 });
    assert.equal(modeOf(path.join(older, 'farmstead.db')), 0o600);
    assert.equal(modeOf(path.join(older, 'farmstead.db-wal')), 0o600);
    await reopened.close();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

for (const engine of ENGINES) {
  test(`[${engine}] closing the database first stores the units waiting for their group commit`, async () => {
    const made = await testConfig(engine, {}, { migrated: true });
    try {
      const database = await openDatabase(made.config);
      // Units given just before the close, as a report whose client went away is while the server stops.
      const units = Array.from({ length: 5 }, (_, i) =>
        inGroupTransaction(database.db, `key ${i}`, (trx) =>
          trx
            .insertInto('server_facts')
            .values({ name: `close ${i}`, value: 'x', updated_at: 0 })
            .execute(),
        ),
      );
      await database.close();
      const results = await Promise.allSettled(units);
      assert.deepEqual(
        results.map((r) => (r.status === 'rejected' ? String(r.reason) : r.status)),
        Array(5).fill('fulfilled'),
      );
      const reopened = await openDatabase(made.config);
      const stored = await reopened.db
        .selectFrom('server_facts')
        .select('name')
        .where('name', 'like', 'close %')
        .execute();
      await reopened.close();
      assert.equal(stored.length, 5);
    } finally {
      await made.cleanup();
    }
  });
}
