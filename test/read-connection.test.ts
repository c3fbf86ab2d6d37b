/**
 * Reads do not queue behind writes: on SQLite a statement outside a transaction that only reads runs on the
 * read connection (src/db/sqlite-routing.ts) while a write transaction holds the writer; on PostgreSQL a
 * read takes another pooled connection. Either way the read sees only what is committed, and a write is
 * seen by the next read once it has committed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  CompiledQuery,
  DummyDriver,
  Kysely,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  sql,
} from 'kysely';
import type { DB } from '../src/db/schema.ts';
import { isReadOnlyStatement } from '../src/db/sqlite-direct.ts';
import { animal, farm } from './factories.ts';
import { forEachEngine } from './harness.ts';
import type { Animal } from './replies.ts';

forEachEngine('reads beside a write transaction', (t) => {
  test('a GET answers while a long write transaction is open, with the committed data only', {
    timeout: 20_000,
  }, async () => {
    const acct = await t().sharedAccount();
    const f = await farm(t(), acct.live_key, { name: 'Read beside writes' });
    const a = await animal(t(), acct.live_key, f.id, { species: 'sheep', name: 'Before' });
    let releaseWriter = (): void => {};
    const writerMayFinish = new Promise<void>((resolve) => {
      releaseWriter = resolve;
    });
    let writing = (): void => {};
    const writeDone = new Promise<void>((resolve) => {
      writing = resolve;
    });
    const transaction = t()
      .database.db.transaction()
      .execute(async (trx) => {
        await trx.updateTable('animals').set({ name: 'After' }).where('id', '=', a.id).execute();
        writing();
        // The transaction stays open, holding the writer, until the GET below has answered.
        await writerMayFinish;
      });
    await writeDone;
    // Were reads queued behind the writer, this GET would wait for a transaction that waits for it.
    const during = await t().request<Animal>('GET', `/v1/animals/${a.id}`, { key: acct.live_key });
    releaseWriter();
    await transaction;
    assert.equal(during.status, 200);
    assert.equal(during.body.name, 'Before', 'a read sees only committed data');
    const after = await t().request<Animal>('GET', `/v1/animals/${a.id}`, { key: acct.live_key });
    assert.equal(after.body.name, 'After', 'the committed write is seen by the next read');
  });

  test('a write then a read in one request sequence: the read sees the write at once', async () => {
    const acct = await t().sharedAccount();
    const f = await farm(t(), acct.live_key, { name: 'Read your writes' });
    const a = await animal(t(), acct.live_key, f.id, { species: 'goat', name: 'One' });
    for (const name of ['Two', 'Three', 'Four']) {
      const patched = await t().request('PATCH', `/v1/animals/${a.id}`, {
        key: acct.live_key,
        body: { name },
      });
      assert.equal(patched.status, 200);
      const read = await t().request<Animal>('GET', `/v1/animals/${a.id}`, { key: acct.live_key });
      assert.equal(read.body.name, name);
    }
  });
});

test('only plain SELECTs count as reads; every other statement takes the writer', () => {
  // Kysely that compiles SQLite SQL without a database.
  const db = new Kysely<DB>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (k) => new SqliteIntrospector(k),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  });
  const reads = [
    db.selectFrom('animals').selectAll().where('id', '=', 'ani_1').compile(),
    sql`select count(*) from readings`.compile(db),
    CompiledQuery.raw('  SELECT 1'),
  ];
  const writes = [
    db.insertInto('accounts').values({ id: 'acc_1', name: 'x', created_at: 0 }).compile(),
    db.updateTable('animals').set({ name: 'x' }).where('id', '=', 'ani_1').compile(),
    db.deleteFrom('animals').where('id', '=', 'ani_1').compile(),
    sql`with x as (select 1) insert into t select * from x`.compile(db),
    CompiledQuery.raw('pragma wal_checkpoint'),
    CompiledQuery.raw('begin immediate'),
  ];
  for (const q of reads) assert.equal(isReadOnlyStatement(q), true, q.sql);
  for (const q of writes) assert.equal(isReadOnlyStatement(q), false, q.sql);
});
