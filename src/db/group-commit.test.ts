/**
 * Group commit (src/db/group-commit.ts): units arriving together share a transaction, a failing unit
 * stores nothing while the others of its group commit, and no unit is answered before its commit. On
 * PostgreSQL the group has no savepoints: a failing unit costs the units before it a second run together,
 * itself a run alone, and the units of one key keep their order. Over HTTP: concurrent device reports
 * with one rejected among them store exactly the accepted ones.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { animalRow, device, farm } from '../../test/factories.ts';
import { forEachEngine } from '../../test/harness.ts';
import { inGroupTransaction, laneOf, MAX_GROUP, PG_LANES } from './group-commit.ts';

forEachEngine('group commit', (t) => {
  test('units together: each all or nothing, answered only once committed', async () => {
    const acct = await t().sharedAccount();
    const f = await farm(t(), acct.live_key, { name: 'Group commit' });
    const db = t().database.db;
    const name = (i: number) => `Group unit ${i}`;
    const committedNames = async () =>
      (
        await db
          .selectFrom('animals')
          .select('name')
          .where('farm_id', '=', f.id)
          .where('name', 'like', 'Group unit %')
          .execute()
      ).map((r) => r.name);
    const seenAtAnswer: number[] = [];
    let lastSawCommitted = -1;
    let nextSawCommitted = -1;
    const units = Array.from({ length: MAX_GROUP + 6 }, (_, i) =>
      inGroupTransaction(db, 'units', async (trx) => {
        await trx
          .insertInto('animals')
          .values(
            animalRow({
              id: `ani_group_${i}_${f.id}`,
              farm_id: f.id,
              account_id: acct.account_id,
              species: 'sheep',
              name: name(i),
            }),
          )
          .execute();
        // Unit 3 fails after writing: its row must not survive; the others' must.
        if (i === 3) throw new Error('unit 3 gives up');
        // SQLite: the last unit shares the transaction of the units before it in its group, so while it
        // runs, their rows are not yet committed.
        if (i === MAX_GROUP - 1) lastSawCommitted = (await committedNames()).length;
        if (i === MAX_GROUP + 5) nextSawCommitted = (await committedNames()).length;
        return i;
      }).then(async (i) => {
        // A plain read runs outside any transaction (the reader on SQLite): it sees committed data only.
        if ((await committedNames()).includes(name(i))) seenAtAnswer.push(i);
        return i;
      }),
    );
    const results = await Promise.allSettled(units);
    const rejected = results.flatMap((r, i) => (r.status === 'rejected' ? [i] : []));
    assert.deepEqual(rejected, [3]);
    assert.match(String((results[3] as PromiseRejectedResult).reason), /unit 3 gives up/);
    const stored = await committedNames();
    assert.equal(stored.length, MAX_GROUP + 5);
    assert.ok(!stored.includes(name(3)), 'the failed unit stored nothing');
    assert.equal(seenAtAnswer.length, MAX_GROUP + 5, 'every unit was committed when answered');
    // All arrived in one turn of the event loop: the first MAX_GROUP form one group, the rest the next.
    if (t().engine === 'sqlite') {
      assert.equal(lastSawCommitted, 0, 'nothing of its group had committed');
      assert.equal(nextSawCommitted, MAX_GROUP - 1, 'the first group had committed (but its failed unit)');
    }
  });

  test('PostgreSQL: one transaction a group; a failing unit runs alone, the others again together, in order', async (c) => {
    if (t().engine !== 'postgres') return c.skip('SQLite groups with savepoints (the test above)');
    const acct = await t().sharedAccount();
    const f = await farm(t(), acct.live_key, { name: 'Group commit PG' });
    const db = t().database.db;
    // Two keys on different lanes, five units each, submitted alternately in one turn; unit 3 of key
    // `a` fails after writing.
    const keys = ['a', 'b', 'c', 'd'];
    const [a, b] = keys.filter(
      (k, i) => keys.findIndex((o) => laneOf(o, PG_LANES) === laneOf(k, PG_LANES)) === i,
    );
    assert.ok(a && b, 'two keys on different lanes');
    const runs = new Map<string, number>();
    const committedOrder: string[] = [];
    const units = [0, 1, 2, 3, 4].flatMap((i) =>
      [a, b].map((key) => {
        const name = `${key}${i}`;
        return inGroupTransaction(db, key, async (trx) => {
          runs.set(name, (runs.get(name) ?? 0) + 1);
          await trx
            .insertInto('animals')
            .values(
              animalRow({
                id: `ani_pg_group_${name}_${f.id}`,
                farm_id: f.id,
                account_id: acct.account_id,
                species: 'goat',
                name: `PG group ${name}`,
              }),
            )
            .execute();
          if (name === `${a}3`) throw new Error('unit a3 gives up');
          const { rows } = await sql<{ txid: string }>`select txid_current()::text as txid`.execute(trx);
          return rows[0]?.txid ?? '';
        }).then((txid) => {
          committedOrder.push(name);
          return txid;
        });
      }),
    );
    const results = await Promise.allSettled(units);
    const txids = new Map(
      results.map((r, i) => [
        `${i % 2 === 0 ? a : b}${Math.floor(i / 2)}`,
        r.status === 'fulfilled' ? r.value : null,
      ]),
    );
    assert.equal(txids.get(`${a}3`), null, 'the failing unit was refused');
    assert.match(String((results[6] as PromiseRejectedResult).reason), /unit a3 gives up/);
    // Key b: one group, one transaction, each unit run once.
    assert.equal(new Set([0, 1, 2, 3, 4].map((i) => txids.get(`${b}${i}`))).size, 1);
    assert.deepEqual(
      [0, 1, 2, 3, 4].map((i) => runs.get(`${b}${i}`)),
      [1, 1, 1, 1, 1],
    );
    // Key a: a0–a2 ran twice (the failed try, then together again), a3 twice (in the group, then alone),
    // a4 once, in a transaction of its own after a3's.
    assert.deepEqual(
      [0, 1, 2, 3, 4].map((i) => runs.get(`${a}${i}`)),
      [2, 2, 2, 2, 1],
    );
    assert.equal(new Set([0, 1, 2].map((i) => txids.get(`${a}${i}`))).size, 1);
    assert.notEqual(txids.get(`${a}4`), txids.get(`${a}0`));
    assert.deepEqual(
      committedOrder.filter((n) => n.startsWith(a)),
      [`${a}0`, `${a}1`, `${a}2`, `${a}4`],
      "a key's units are answered in order",
    );
    const stored = await db
      .selectFrom('animals')
      .select('name')
      .where('farm_id', '=', f.id)
      .where('name', 'like', 'PG group %')
      .execute();
    assert.deepEqual(
      stored.map((r) => r.name).sort(),
      [0, 1, 2, 3, 4]
        .flatMap((i) => [`PG group ${a}${i}`, `PG group ${b}${i}`])
        .filter((n) => n !== `PG group ${a}3`)
        .sort(),
    );
  });

  test('concurrent device reports, one rejected: exactly the accepted ones are stored', async () => {
    const acct = await t().sharedAccount();
    const f = await farm(t(), acct.live_key, { name: 'Group reports' });
    const sensors = await Promise.all(
      Array.from({ length: 8 }, (_, i) => device(t(), acct.live_key, f.id, { type: 'other', name: `S${i}` })),
    );
    const at = new Date().toISOString();
    const replies = await Promise.all(
      sensors.map((s, i) =>
        t().request('POST', '/v1/ingest', {
          key: s.device_key,
          // Report 5's state is too large: the whole report is refused.
          body: {
            readings: [{ metric: 'soil.moisture_pct', value: 30 + i, at }],
            ...(i === 5 ? { state: { blob: 'x'.repeat(70_000) } } : {}),
          },
        }),
      ),
    );
    assert.deepEqual(
      replies.map((r) => r.status),
      [200, 200, 200, 200, 200, 400, 200, 200],
    );
    const stored = await t()
      .database.db.selectFrom('readings')
      .select(['device_id', 'value'])
      .where('farm_id', '=', f.id)
      .execute();
    assert.deepEqual(
      stored.map((r) => Number(r.value)).sort((a, b) => a - b),
      [30, 31, 32, 33, 34, 36, 37],
    );
  });
});
