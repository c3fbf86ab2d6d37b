/**
 * SQLite transactions run their statements straight on the writer (src/db/sqlite-direct.ts): only while
 * `inTransaction` runs them, seeing and seen by Kysely's own statements of the same transaction, and all
 * or nothing with them; reads outside a transaction run straight on the reader.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { CompiledQuery } from 'kysely';
import { metrics } from '../lib/metrics.ts';
import { type Database, openDatabase } from './database.ts';
import { prepared } from './prepared.ts';
import type { Trx } from './schema.ts';
import { runDirect } from './sqlite-direct.ts';
import { inTransaction } from './transaction.ts';

let root: string;
let database: Database;
before(async () => {
  root = mkdtempSync(path.join(tmpdir(), 'farmstead-direct-'));
  database = await openDatabase({ dataDir: root, databaseUrl: null, pgPoolSize: 1 });
});
after(async () => {
  await database.close();
  rmSync(root, { recursive: true, force: true });
});

const accountNamed = prepared((db, q: { id: string }) =>
  db.selectFrom('accounts').select(['id', 'name']).where('id', '=', q.id),
);
const renameAccount = prepared((db, q: { id: string; name: string }) =>
  db.updateTable('accounts').set({ name: q.name }).where('id', '=', q.id).returning(['id', 'name']),
);

async function addAccount(db: Trx, id: string): Promise<void> {
  await db.insertInto('accounts').values({ id, name: 'Before', created_at: Date.now() }).execute();
}

const SELECT_ONE = CompiledQuery.raw('select 1 as one');

test('a statement runs directly only inside a transaction that inTransaction is running', async () => {
  const pragma = CompiledQuery.raw('pragma user_version');
  assert.equal(runDirect(database.db, pragma), undefined, 'outside a transaction: through Kysely');
  let kept: Trx | null = null;
  const rows = await inTransaction(database.db, async (trx) => {
    kept = trx;
    return runDirect(trx, pragma)?.rows;
  });
  assert.deepEqual(rows, [{ user_version: 0 }]);
  assert.ok(kept);
  assert.equal(runDirect(kept, SELECT_ONE), undefined, 'a finished transaction runs nothing directly');
});

test('outside a transaction a read runs directly on the reader, which sees only what is committed; a write does not', async () => {
  const read = database.db.selectFrom('accounts').select('id').where('id', '=', 'none').compile();
  assert.deepEqual(runDirect(database.db, read)?.rows, []);
  const write = database.db.updateTable('accounts').set({ name: 'x' }).where('id', '=', 'none').compile();
  assert.equal(runDirect(database.db, write), undefined, 'a write waits for the writer, through Kysely');

  await inTransaction(database.db, (trx) => addAccount(trx, 'acct_direct_3'));
  const during = await inTransaction(database.db, async (trx) => {
    await renameAccount(trx, { id: 'acct_direct_3', name: 'Uncommitted' });
    const [outside] = await accountNamed(database.db, { id: 'acct_direct_3' });
    const [inside] = await accountNamed(trx, { id: 'acct_direct_3' });
    return { outside: outside?.name, inside: inside?.name };
  });
  assert.deepEqual(during, { outside: 'Before', inside: 'Uncommitted' });
  const [afterwards] = await accountNamed(database.db, { id: 'acct_direct_3' });
  assert.equal(afterwards?.name, 'Uncommitted', 'committed, the next read sees it');
});

test("direct statements and Kysely's see each other's writes in one transaction", async () => {
  const seen = await inTransaction(database.db, async (trx) => {
    await addAccount(trx, 'acct_direct_1');
    const [read] = await accountNamed(trx, { id: 'acct_direct_1' });
    const [renamed] = await renameAccount(trx, { id: 'acct_direct_1', name: 'After' });
    const back = await trx.selectFrom('accounts').select('name').where('id', '=', 'acct_direct_1').execute();
    return { read, renamed, back };
  });
  assert.deepEqual(seen.read, { id: 'acct_direct_1', name: 'Before' });
  assert.deepEqual(seen.renamed, { id: 'acct_direct_1', name: 'After' });
  assert.deepEqual(seen.back, [{ name: 'After' }]);
});

test('a transaction that fails after a direct write stores nothing', async () => {
  await inTransaction(database.db, (trx) => addAccount(trx, 'acct_direct_2'));
  await assert.rejects(
    inTransaction(database.db, async (trx) => {
      await renameAccount(trx, { id: 'acct_direct_2', name: 'Rolled back' });
      throw new Error('the unit of work fails');
    }),
    /the unit of work fails/,
  );
  const [row] = await accountNamed(database.db, { id: 'acct_direct_2' });
  assert.equal(row?.name, 'Before');
});

test('direct statements are timed into the query metric, errors as errors', async () => {
  const count = async (outcome: string) => {
    const { values } = await metrics.dbQueries.get();
    const total = values.find(
      (v) =>
        v.metricName === 'farmstead_db_query_duration_seconds_count' &&
        v.labels.engine === 'sqlite' &&
        v.labels.outcome === outcome,
    );
    return total?.value ?? 0;
  };
  const ok = await count('ok');
  await inTransaction(database.db, async (trx) => {
    runDirect(trx, SELECT_ONE);
  });
  assert.equal(await count('ok'), ok + 3, 'BEGIN and COMMIT through Kysely, the SELECT directly');
  const failed = await count('error');
  await assert.rejects(
    inTransaction(database.db, async (trx) => {
      runDirect(trx, SELECT_ONE);
      runDirect(trx, CompiledQuery.raw('select * from no_such_table'));
    }),
    /no such table/,
  );
  assert.equal(await count('error'), failed + 1);
});

test('a prepared() statement that fails on the connection rejects its promise; it never throws at the call', async () => {
  const insertAccount = prepared((db, q: { id: string }) =>
    db.insertInto('accounts').values({ id: q.id, name: 'Twice', created_at: 0 }),
  );
  await inTransaction(database.db, async (trx) => {
    await insertAccount(trx, { id: 'acct_direct_twice' });
    let thrown: unknown = null;
    let settled: Promise<unknown> | null = null;
    try {
      settled = insertAccount(trx, { id: 'acct_direct_twice' });
    } catch (err) {
      thrown = err;
    }
    assert.equal(thrown, null, 'the call itself returns');
    await assert.rejects(settled as Promise<unknown>, /UNIQUE constraint failed/);
  });
  const [row] = await accountNamed(database.db, { id: 'acct_direct_twice' });
  assert.equal(row?.name, 'Twice', 'the first insert stands: the failed statement alone was undone');
});
