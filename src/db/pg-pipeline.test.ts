/**
 * A transaction's BEGIN travels with its first statement on PostgreSQL (src/db/pg-pipeline.ts), on the
 * service's own pool (`openPool`): the statement is written before BEGIN's answer comes back and still runs
 * inside the transaction; a BEGIN that fails is reported by the statement behind it, and the connection
 * serves the next transaction.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Kysely, PostgresDialect, sql } from 'kysely';
import type pg from 'pg';
import { createPgDatabase, ENGINES } from '../../test/engines.ts';
import { openPool } from './pg-driver.ts';
import { GENERIC_PLANS } from './pg-pipeline.ts';

interface Wire {
  stream: { write: (chunk: unknown, ...rest: unknown[]) => boolean };
  on(event: 'commandComplete', fn: (message: { text: string }) => void): void;
  off(event: 'commandComplete', fn: (message: { text: string }) => void): void;
}

describe('BEGIN pipelined with the first statement', {
  skip: ENGINES.includes('postgres') ? false : 'PostgreSQL not under test',
}, () => {
  let database: { url: string; drop(): Promise<void> };
  let pool: pg.Pool;
  let db: Kysely<{ crops: { id: string } }>;
  const lost: Error[] = [];

  before(async () => {
    database = await createPgDatabase();
    // One connection: every transaction below runs on the connection the test looks at.
    pool = await openPool(database.url, 1, (err) => lost.push(err));
    db = new Kysely({ dialect: new PostgresDialect({ pool }) });
    await sql`create table crops (id text primary key)`.execute(db);
  });

  after(async () => {
    await db?.destroy();
    await database?.drop();
  });

  /** The pool's one connection, given back at once. */
  async function theConnection(): Promise<pg.PoolClient> {
    const client = await pool.connect();
    client.release();
    return client;
  }

  const stored = async () =>
    (await db.selectFrom('crops').select('id').orderBy('id').execute()).map((r) => r.id);

  /**
   * Records, on the pool's one connection, each message written that matches a label's pattern
   * (`<label> written`) and each command answered (`<COMMAND> answered`), in order, until `stop()`.
   */
  async function watchWire(labels: ReadonlyArray<readonly [RegExp, string]>) {
    const wire = (await theConnection()) as unknown as { connection: Wire };
    const seen: string[] = [];
    const { stream } = wire.connection;
    const write = stream.write;
    stream.write = function (this: unknown, chunk: unknown, ...rest: unknown[]) {
      const text = Buffer.isBuffer(chunk) ? chunk.toString('latin1') : String(chunk);
      for (const [pattern, label] of labels) if (pattern.test(text)) seen.push(`${label} written`);
      return write.call(this, chunk, ...rest);
    };
    const answered = (message: { text: string }) => seen.push(`${message.text.split(' ')[0]} answered`);
    wire.connection.on('commandComplete', answered);
    return {
      seen,
      stop: () => {
        stream.write = write;
        wire.connection.off('commandComplete', answered);
      },
    };
  }

  test('the first statement is written before BEGIN is answered, and runs inside the transaction', async () => {
    const { seen, stop } = await watchWire([
      [/\bbegin\b/, 'BEGIN'],
      [/\bcrops\b/, 'INSERT'],
    ]);
    try {
      const outcome = await db
        .transaction()
        .execute(async (trx) => {
          await sql`insert into crops values ('barley')`.execute(trx);
          throw new Error('changed my mind');
        })
        .catch((err: unknown) => err);
      assert.match(String(outcome), /changed my mind/);
    } finally {
      stop();
    }
    assert.deepEqual(seen, [
      'BEGIN written',
      'INSERT written',
      'BEGIN answered',
      'INSERT answered',
      'ROLLBACK answered',
    ]);
    // Rolled back with the transaction: the insert ran inside it, not before it.
    assert.deepEqual(await stored(), []);
  });

  test("a group's generic plans setting travels behind BEGIN, answered at once as BEGIN is", async () => {
    const { seen, stop } = await watchWire([
      [/\bbegin\b/, 'BEGIN'],
      [/plan_cache_mode = force/, 'SET'],
      [/\bshow\b/, 'SHOW'],
    ]);
    let mode: unknown;
    try {
      mode = await db.transaction().execute(async (trx) => {
        await sql.raw(GENERIC_PLANS).execute(trx);
        return (await sql<{ plan_cache_mode: string }>`show plan_cache_mode`.execute(trx)).rows[0]
          ?.plan_cache_mode;
      });
    } finally {
      stop();
    }
    assert.equal(mode, 'force_generic_plan');
    assert.deepEqual(seen.slice(0, 3), ['BEGIN written', 'SET written', 'SHOW written']);
    assert.deepEqual(seen.slice(3, 6), ['BEGIN answered', 'SET answered', 'SHOW answered']);
  });

  test('a BEGIN that fails is reported by the statement behind it; the connection then serves again', async () => {
    // A connection left inside an aborted transaction refuses BEGIN (25P02), as it refuses everything but
    // its end.
    const client = await pool.connect();
    await client.query('begin');
    await client.query('select 1 / 0').catch(() => {});
    client.release();
    const failed = await db
      .transaction()
      .execute((trx) => sql`insert into crops values ('oats')`.execute(trx))
      .then(
        () => null,
        (err: unknown) => err as { code?: string },
      );
    assert.equal(failed?.code, '25P02', 'the transaction fails with BEGIN’s error');
    // The failed transaction's ROLLBACK ended the aborted one: the same connection stores the next.
    await db.transaction().execute((trx) => sql`insert into crops values ('rye')`.execute(trx));
    assert.deepEqual(await stored(), ['rye']);
    assert.equal(pool.totalCount, 1);
    assert.deepEqual(lost, []);
  });

  test('a query with a callback (pg-pool’s own pool.query) passes through, BEGIN included', async () => {
    const begun = await pool.query('begin');
    assert.equal(begun.command, 'BEGIN');
    const { rows } = await pool.query<{ n: number }>('select count(*)::int as n from crops');
    assert.deepEqual(rows, [{ n: 1 }]);
    await pool.query('rollback');
  });
});
