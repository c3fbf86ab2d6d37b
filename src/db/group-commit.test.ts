/**
 * Group commit (src/db/group-commit.ts): units arriving together share a transaction, a failing unit
 * stores nothing while the others of its group commit, and no unit is answered before its commit. On SQLite
 * the units run in turn without savepoints, and a failure runs the group again with them. On
 * PostgreSQL a group holds one unit per key, its units' batchable calls become one statement a kind, and
 * without savepoints a failing unit costs the others a second run together and itself a run alone. Over HTTP: concurrent device reports
 * with one rejected among them store exactly the accepted ones.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { animalRow, device, farm, keysOfOneLane } from '../../test/factories.ts';
import { forEachEngine } from '../../test/harness.ts';
import { StatementCounter } from '../../test/statement-counter.ts';
import { inGroupTransaction, MAX_GROUP } from './group-commit.ts';
import { type BatchKind, batchedCall } from './statement-batch.ts';

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

  test('SQLite: a group where no unit fails runs each once without savepoints; a failure runs the group again with them, in order', async (c) => {
    if (t().engine !== 'sqlite') return c.skip('PostgreSQL: the test below');
    const acct = await t().sharedAccount();
    const f = await farm(t(), acct.live_key, { name: 'Group commit in turn' });
    const counter = new StatementCounter();
    const db = t().database.db.withPlugin(counter);
    const runs: string[] = [];
    const group = (tag: string, failing: number | null) =>
      Promise.allSettled(
        [0, 1, 2, 3].map((i) =>
          inGroupTransaction(db, i % 2 === 0 ? 'even' : 'odd', async (trx) => {
            runs.push(`${tag}${i}`);
            await trx
              .insertInto('animals')
              .values(
                animalRow({
                  id: `ani_turn_${tag}${i}_${f.id}`,
                  farm_id: f.id,
                  account_id: acct.account_id,
                  species: 'sheep',
                  name: `Turn ${tag}${i}`,
                }),
              )
              .execute();
            if (i === failing) throw new Error(`unit ${tag}${i} gives up`);
            return i;
          }),
        ),
      );
    counter.count = 0;
    const clean = await group('a', null);
    assert.deepEqual(
      clean.map((r) => r.status),
      ['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled'],
    );
    assert.deepEqual(runs, ['a0', 'a1', 'a2', 'a3'], 'each unit ran once, in the order given');
    assert.equal(counter.count, 4, 'one insert a unit, no savepoint or release');

    runs.length = 0;
    counter.count = 0;
    const failed = await group('b', 2);
    assert.deepEqual(
      failed.map((r) => r.status),
      ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
    );
    assert.deepEqual(runs, ['b0', 'b1', 'b2', 'b0', 'b1', 'b2', 'b3'], 'again from the start, in order');
    // The first run: three inserts; the second: a savepoint, an insert and a release a unit, and the
    // failed unit's rollback to its savepoint.
    assert.equal(counter.count, 3 + 4 * 3 + 1);
    const stored = await db
      .selectFrom('animals')
      .select('name')
      .where('farm_id', '=', f.id)
      .orderBy('name')
      .execute();
    assert.deepEqual(
      stored.map((r) => r.name),
      ['Turn a0', 'Turn a1', 'Turn a2', 'Turn a3', 'Turn b0', 'Turn b1', 'Turn b3'],
    );
  });

  test('PostgreSQL: one transaction a group of different keys; a failing unit runs alone, the others again together', async (c) => {
    if (t().engine !== 'postgres') return c.skip('SQLite: the tests above');
    const acct = await t().sharedAccount();
    const f = await farm(t(), acct.live_key, { name: 'Group commit PG' });
    const db = t().database.db;
    // Four keys of one lane, two units each, submitted in one turn; k1's first unit fails after writing.
    const keys = keysOfOneLane('k', 4);
    assert.equal(keys.length, 4);
    const failing = `${keys[1]}-0`;
    const runs = new Map<string, number>();
    const answered: string[] = [];
    const names = [0, 1].flatMap((i) => keys.map((key) => ({ key, name: `${key}-${i}` })));
    const results = await Promise.allSettled(
      names.map(({ key, name }) =>
        inGroupTransaction(db, key, async (trx) => {
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
          if (name === failing) throw new Error('unit gives up');
          const { rows } = await sql<{ txid: string }>`select txid_current()::text as txid`.execute(trx);
          return rows[0]?.txid ?? '';
        }).then((txid) => {
          answered.push(name);
          return txid;
        }),
      ),
    );
    const txid = new Map(
      names.map(({ name }, i) => [name, (results[i] as PromiseFulfilledResult<string>).value]),
    );
    assert.match(String((results[1] as PromiseRejectedResult).reason), /unit gives up/);
    // The first group (each key's first unit) failed once; the others then committed together, the
    // failing unit alone (refused). The second group (each key's second unit) ran once, together.
    const first = keys.map((k) => `${k}-0`).filter((n) => n !== failing);
    const second = keys.map((k) => `${k}-1`);
    assert.deepEqual(
      first.map((n) => runs.get(n)),
      [2, 2, 2],
    );
    assert.equal(runs.get(failing), 2);
    assert.deepEqual(
      second.map((n) => runs.get(n)),
      [1, 1, 1, 1],
    );
    assert.equal(new Set(first.map((n) => txid.get(n))).size, 1, 'the first group again in one transaction');
    assert.equal(new Set(second.map((n) => txid.get(n))).size, 1, 'the second group in one transaction');
    assert.notEqual(
      txid.get(first[0] as string),
      txid.get(second[0] as string),
      "a key's units never share one",
    );
    for (const key of keys.filter((k) => `${k}-0` !== failing)) {
      assert.ok(
        answered.indexOf(`${key}-0`) < answered.indexOf(`${key}-1`),
        "a key's units are answered in order",
      );
    }
    const stored = await db
      .selectFrom('animals')
      .select('name')
      .where('farm_id', '=', f.id)
      .where('name', 'like', 'PG group %')
      .execute();
    assert.deepEqual(
      stored.map((r) => r.name).sort(),
      names
        .map(({ name }) => `PG group ${name}`)
        .filter((n) => n !== `PG group ${failing}`)
        .sort(),
    );
  });

  test("PostgreSQL: a group's transaction, together or alone, runs on generic plans; other transactions keep PostgreSQL's choice", async (c) => {
    if (t().engine !== 'postgres') return c.skip('a PostgreSQL setting');
    const db = t().database.db;
    const mode = async (trx: typeof db) =>
      (await sql<{ plan_cache_mode: string }>`show plan_cache_mode`.execute(trx)).rows[0]?.plan_cache_mode;
    const [one, two] = keysOfOneLane('plans', 2) as [string, string];
    assert.equal(await inGroupTransaction(db, one, mode), 'force_generic_plan', 'a unit alone');
    const modeAndTransaction = async (trx: typeof db) => ({
      mode: await mode(trx),
      txid: (await sql<{ txid: string }>`select txid_current()::text as txid`.execute(trx)).rows[0]?.txid,
    });
    const together = await Promise.all(
      [one, two].map((key) => inGroupTransaction(db, key, modeAndTransaction)),
    );
    assert.deepEqual(
      together.map((u) => u.mode),
      ['force_generic_plan', 'force_generic_plan'],
    );
    assert.equal(together[0]?.txid, together[1]?.txid, 'the two units shared one transaction');
    // SET LOCAL: the setting ends with the group's transaction, on the connection it ran on and every other.
    assert.equal(await db.transaction().execute(mode), 'auto');
    assert.equal(await mode(db), 'auto');
  });

  test("PostgreSQL: a group batches its units' calls into one statement a kind; a failed batch runs its units alone", async (c) => {
    if (t().engine !== 'postgres') return c.skip('SQLite runs units one after another: no batches');
    const db = t().database.db;
    const keys = keysOfOneLane('b', 5);
    // Every statement the kind makes, by its arguments: a lone call is a statement of one.
    const batches: string[][] = [];
    const alone = () => batches.filter((args) => args.length === 1).length;
    // Doubles each argument in SQL; fails (division by zero) when the batch holds 'bad'.
    const double: BatchKind<string, string> = {
      async run(trx, args) {
        batches.push([...args]);
        const { rows } = await sql<{
          v: string;
        }>`select case when a = 'bad' then (1 / (length(a) - 3))::text else a || a end as v
          from unnest(${args}::text[]) with ordinality as u(a, n) order by n`.execute(trx);
        return rows.map((r) => r.v);
      },
    };
    const unit = (key: string, arg: string) =>
      inGroupTransaction(db, key, async (trx) => {
        const once = await batchedCall(trx, double, arg);
        // A unit's second call waits for every unit's first: one more batch for all.
        return batchedCall(trx, double, once);
      });
    const good = await Promise.all(keys.map((k, i) => unit(k, `x${i}`)));
    assert.deepEqual(
      good,
      keys.map((_, i) => `x${i}x${i}x${i}x${i}`),
    );
    assert.deepEqual(batches, [keys.map((_, i) => `x${i}`), keys.map((_, i) => `x${i}x${i}`)]);
    assert.equal(alone(), 0);

    batches.length = 0;
    const mixed = await Promise.allSettled(keys.map((k, i) => unit(k, i === 2 ? 'bad' : `y${i}`)));
    assert.deepEqual(
      mixed.map((r) => r.status),
      ['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
    );
    assert.match(String((mixed[2] as PromiseRejectedResult).reason), /division by zero/);
    assert.equal((mixed[0] as PromiseFulfilledResult<string>).value, 'y0y0y0y0');
    // The failed batch held all five; then each ran alone, unbatched (two calls each, the bad one one).
    assert.equal(batches.length - alone(), 1);
    assert.equal(alone(), 4 * 2 + 1);
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
