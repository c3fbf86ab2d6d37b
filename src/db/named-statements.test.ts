/**
 * Named prepared statements on PostgreSQL (src/db/named-statements.ts): what `prepared()` builds runs as a
 * named statement, parsed once per connection, while other texts stay unnamed; and when another process's
 * migration adds a column under a named `select *`, the run that meets it fails once and the connection
 * then prepares its statements afresh and sees the new column.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { createPgDatabase, ENGINES } from '../../test/engines.ts';
import { runNamed } from './named-statements.ts';
import { openPool } from './pg-driver.ts';
import { prepared } from './prepared.ts';
import type { DB } from './schema.ts';

describe('named prepared statements', {
  skip: ENGINES.includes('postgres') ? false : 'PostgreSQL not under test',
}, () => {
  let database: { url: string; drop(): Promise<void> };
  let db: Kysely<DB>;
  let pool: pg.Pool;
  let other: pg.Client;

  before(async () => {
    database = await createPgDatabase();
    // One connection, so every run below meets the same connection's statements.
    // The service's own pool (pipeline mode, BEGIN with the first statement), with one connection.
    pool = await openPool(database.url, 1, (err) => {
      throw err;
    });
    db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    other = new pg.Client({ connectionString: database.url });
    await other.connect();
    await other.query('create table crops (id text primary key, name text not null)');
    await other.query(`insert into crops values ('c1', 'barley')`);
  });

  after(async () => {
    await other?.end();
    await db?.destroy();
    await database?.drop();
  });

  const everyCrop = prepared((kdb, q: { id: string }) =>
    (kdb as unknown as Kysely<{ crops: { id: string; name: string; planted: string | null } }>)
      .selectFrom('crops')
      .selectAll()
      .where('id', '=', q.id),
  ) as unknown as (db: Kysely<DB>, q: { id: string }) => Promise<Array<Record<string, unknown>>>;

  const preparedHere = async () =>
    (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(db)).rows.map(
      (r) => r.statement,
    );

  test('a statement built once runs named; an ad-hoc query does not', async () => {
    assert.deepEqual(await everyCrop(db, { id: 'c1' }), [{ id: 'c1', name: 'barley' }]);
    assert.deepEqual(await everyCrop(db, { id: 'c1' }), [{ id: 'c1', name: 'barley' }]);
    const statements = await preparedHere();
    assert.equal(statements.filter((s) => /from "crops"/.test(s)).length, 1, statements.join('\n'));
    assert.ok(!statements.some((s) => /pg_prepared_statements/.test(s)), 'the ad-hoc query is unnamed');
  });

  test('a column added under a named select *: one run fails, then the connection prepares afresh', async () => {
    assert.deepEqual(await everyCrop(db, { id: 'c1' }), [{ id: 'c1', name: 'barley' }]);
    await other.query('alter table crops add column planted text');
    await assert.rejects(everyCrop(db, { id: 'c1' }), /cached plan must not change result type/);
    assert.deepEqual(await everyCrop(db, { id: 'c1' }), [{ id: 'c1', name: 'barley', planted: null }]);
    assert.deepEqual(await everyCrop(db, { id: 'c1' }), [{ id: 'c1', name: 'barley', planted: null }]);
  });

  test('the connection and the server disagreeing on what is prepared: one run fails, then it heals', async () => {
    const barley = { id: 'c1', name: 'barley', planted: null };
    assert.deepEqual(await everyCrop(db, { id: 'c1' }), [barley]);
    // The server forgets the statements while the connection still counts on them.
    await sql`deallocate all`.execute(db);
    await assert.rejects(everyCrop(db, { id: 'c1' }), { code: '26000' });
    assert.deepEqual(await everyCrop(db, { id: 'c1' }), [barley]);
    // The connection forgets them while the server keeps them.
    const client = (await pool.connect()) as unknown as {
      connection: { parsedStatements: Record<string, unknown> };
      release(): void;
    };
    client.connection.parsedStatements = {};
    client.release();
    await assert.rejects(everyCrop(db, { id: 'c1' }), { code: '42P05' });
    assert.deepEqual(await everyCrop(db, { id: 'c1' }), [barley]);
  });

  test('a stale plan met by two statements of one transaction: the connection still heals after it', async () => {
    assert.equal((await everyCrop(db, { id: 'c1' })).length, 1);
    await other.query('alter table crops add column sown text');
    // As a group of reports does: the first statement meets the stale plan and aborts the transaction; the
    // next one's DEALLOCATE ALL is then refused inside it.
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await assert.rejects(everyCrop(trx as unknown as Kysely<DB>, { id: 'c1' }), { code: '0A000' });
        await everyCrop(trx as unknown as Kysely<DB>, { id: 'c1' });
      }),
      { code: '25P02' },
    );
    const outcomes: string[] = [];
    for (let run = 0; run < 3; run++) {
      outcomes.push(
        await everyCrop(db, { id: 'c1' }).then(
          (rows) => `${rows.length} row, ${Object.keys(rows[0] ?? {}).join(' ')}`,
          (err: { code?: string }) => `failed ${err.code}`,
        ),
      );
    }
    assert.deepEqual(outcomes.slice(1), ['1 row, id name planted sown', '1 row, id name planted sown']);
  });

  test('raw SQL run through runNamed is named; the same text run by hand is not', async () => {
    const cropName = (id: string) =>
      sql<{ name: string }>`select name as crop_name from crops where id = ${id}`;
    assert.deepEqual(await runNamed(db, cropName('c1')), [{ crop_name: 'barley' }]);
    const statements = await preparedHere();
    assert.equal(statements.filter((s) => /as crop_name/.test(s)).length, 1, statements.join('\n'));
    const byHand = sql<{ n: number }>`select count(*)::int4 as n_by_hand from crops where id = ${'c1'}`;
    await byHand.execute(db);
    assert.ok(!(await preparedHere()).some((s) => /n_by_hand/.test(s)), 'a text run by hand stays unnamed');
  });
});
