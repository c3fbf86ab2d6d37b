/**
 * Statements built once (src/db/prepared.ts): a statement is built once per engine and shape, and every
 * later call runs with its own values in place — lists of another length, a branch on a boolean, nested
 * arguments and the builder's own constants all land where they belong.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { forEachEngine } from '../../test/harness.ts';
import { checkPreparedBuilders, MAX_SHAPES, prepared } from './prepared.ts';

interface Args {
  farmId: string;
  names: string[];
  /** Only farms named like this (when given). */
  like: string | null;
  newestFirst: boolean;
  range: { from: number; to: number };
}

forEachEngine('statements built once', (t) => {
  let builds = 0;
  const findFarms = prepared((db, a: Args) => {
    builds++;
    return db
      .selectFrom('farms')
      .select([
        'id',
        'name',
        sql<number>`cast(${a.range.from} as integer) + cast(${a.range.to} as integer)`.as('sum'),
      ])
      .where('account_id', '=', a.farmId)
      .where('name', 'in', a.names)
      .where('name', '!=', 'never a farm name')
      .$if(a.like !== null, (qb) => qb.where('name', 'like', a.like ?? ''))
      .orderBy('name', a.newestFirst ? 'desc' : 'asc');
  });

  test('each call runs with its own values; a statement is built once per shape', async (ctx) => {
    // The builds are counted: the check's second build (the last test) is left out here.
    checkPreparedBuilders(false);
    ctx.after(() => checkPreparedBuilders());
    const acct = await t().account();
    const db = t().database.db;
    const account = acct.account_id;
    for (const name of ['Alpha', 'Bravo', 'Charlie']) {
      const r = await t().request('POST', '/v1/farms', { key: acct.live_key, body: { name } });
      assert.equal(r.status, 201);
    }
    const run = async (a: Partial<Args>) =>
      (
        await findFarms(db, {
          farmId: account,
          names: [],
          like: null,
          newestFirst: false,
          range: { from: 1, to: 2 },
          ...a,
        })
      ).map((r) => `${r.name}:${Number(r.sum)}`);

    builds = 0;
    assert.deepEqual(await run({ names: ['Alpha', 'Bravo'] }), ['Alpha:3', 'Bravo:3']);
    assert.deepEqual(await run({ names: ['Bravo', 'Charlie'], range: { from: 10, to: 5 } }), [
      'Bravo:15',
      'Charlie:15',
    ]);
    assert.equal(builds, 1, 'the same shape is built once');

    assert.deepEqual(await run({ names: ['Alpha', 'Bravo', 'Charlie'], newestFirst: true }), [
      'Charlie:3',
      'Bravo:3',
      'Alpha:3',
    ]);
    assert.deepEqual(await run({ names: ['Alpha', 'Bravo', 'Charlie'], like: 'B%' }), ['Bravo:3']);
    assert.deepEqual(await run({ names: ['Charlie'] }), ['Charlie:3']);
    assert.equal(builds, 4, 'another list length or boolean or null is another statement');

    assert.deepEqual(await run({ names: ['Alpha', 'Bravo', 'Charlie'], like: 'C%' }), ['Charlie:3']);
    assert.deepEqual(await run({ names: ['Alpha'], farmId: 'acct_nobody' }), []);
    assert.equal(builds, 4, 'shapes seen before are not built again');
  });

  test(`a statement keeps at most ${MAX_SHAPES} shapes: past that the oldest is built again, and every call stays right`, async (ctx) => {
    checkPreparedBuilders(false);
    ctx.after(() => checkPreparedBuilders());
    let built = 0;
    const byNames = prepared((db, names: string[]) => {
      built++;
      return db.selectFrom('farms').select('name').where('name', 'in', names);
    });
    const acct = await t().account();
    const made = await t().request('POST', '/v1/farms', { key: acct.live_key, body: { name: 'farm 0' } });
    assert.equal(made.status, 201);
    const db = t().database.db;
    const names = (n: number) => Array.from({ length: n }, (_, i) => `farm ${i}`);
    const found = async (n: number) => (await byNames(db, names(n))).map((r) => r.name);
    for (let n = 1; n <= MAX_SHAPES; n++) assert.deepEqual(await found(n), ['farm 0']);
    assert.equal(built, MAX_SHAPES);
    assert.deepEqual(await found(MAX_SHAPES), ['farm 0']);
    assert.equal(built, MAX_SHAPES, 'a kept shape is not built again');
    assert.deepEqual(await found(MAX_SHAPES + 1), ['farm 0']);
    assert.equal(built, MAX_SHAPES + 1, 'one more shape is built');
    assert.deepEqual(await found(2), ['farm 0']);
    assert.equal(built, MAX_SHAPES + 1, 'a younger shape is still kept');
    assert.deepEqual(await found(1), ['farm 0']);
    assert.equal(built, MAX_SHAPES + 2, 'the oldest shape made room and is built again');
  });

  test('a builder that looks at a value, not only the shape, fails the check the first time the value differs', async () => {
    const db = t().database.db;
    // Wrong on purpose: the text depends on the name's value, which the builder should only pass on.
    const byName = prepared((kdb, q: { name: string }) =>
      kdb
        .selectFrom('farms')
        .select('name')
        .where('name', q.name === 'Alpha' ? '=' : '!=', q.name),
    );
    // Built from placeholders: the comparison with 'Alpha' was false, so `!=` was built.
    await byName(db, { name: 'Bravo' });
    await assert.rejects(byName(db, { name: 'Alpha' }), /the builder looked at a value/);
    // A value written into the text instead of passed on is caught too.
    const limited = prepared((kdb, q: { n: number }) =>
      kdb
        .selectFrom('farms')
        .select('name')
        .limit(sql.lit(typeof q.n === 'number' ? q.n : 5)),
    );
    await assert.rejects(limited(db, { n: 7 }), /the builder looked at a value/);
  });
});
