/**
 * The array literals of src/db/pg-arrays.ts, read back by a real PostgreSQL: every element arrives as pg's
 * own formatting of the same array would bring it, including the texts that need quoting or escaping.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { createPgDatabase, ENGINES } from '../../test/engines.ts';
import { pgBools, pgNumbers, pgTexts } from './pg-arrays.ts';

describe('PostgreSQL array literals', {
  skip: ENGINES.includes('postgres') ? false : 'PostgreSQL not under test',
}, () => {
  let database: { url: string; drop(): Promise<void> };
  let client: pg.Client;

  before(async () => {
    database = await createPgDatabase();
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
  });

  after(async () => {
    await client?.end();
    await database?.drop();
  });

  /** The array as PostgreSQL reads it, once from our literal and once from pg's own formatting. */
  async function both(cast: string, literal: string, values: readonly unknown[]) {
    const { rows } = await client.query(`select $1::${cast} as ours, $2::${cast} as pgs`, [literal, values]);
    return rows[0] as { ours: unknown[]; pgs: unknown[] };
  }

  test('texts: plain, empty, null, and those that need quotes or escapes', async () => {
    const tricky = [
      'temp',
      '',
      null,
      'NULL',
      'null',
      'a,b',
      '{x}',
      ' spaced ',
      'say "hi"',
      'back\\slash',
      '\\"',
      'µS/cm °C',
      'tab\there',
      'line\nbreak',
    ];
    for (const values of [tricky, tricky.filter((v) => v !== null), ['only'], []]) {
      const { ours, pgs } = await both('text[]', pgTexts(values), values);
      assert.deepEqual(ours, values);
      assert.deepEqual(pgs, values);
    }
  });

  test('numbers: floats, big and small ones, integers, nulls', async () => {
    const floats = [0, -1.5, Math.PI, 1e-7, 1.5e21, -2.2250738585072014e-308, 5e-324, 1e300];
    const { ours } = await both('float8[]', pgNumbers(floats), floats);
    assert.deepEqual(ours, floats);
    const withNull = [21.5, null, -3];
    assert.deepEqual((await both('float8[]', pgNumbers(withNull), withNull)).ours, withNull);
    const ats = [1_790_000_000_000, 0, -86_400_000, 9_007_199_254_740_991];
    const int8 = await both('int8[]', pgNumbers(ats), ats);
    // pg reads int8 as text (it can exceed a double); both literals give the same values.
    assert.deepEqual(int8.ours, int8.pgs);
    assert.deepEqual(int8.ours.map(Number), ats);
    assert.deepEqual((await both('int4[]', pgNumbers([1, 2, 50]), [1, 2, 50])).ours, [1, 2, 50]);
    assert.deepEqual((await both('int4[]', pgNumbers([]), [])).ours, []);
  });

  test('booleans', async () => {
    const values = [true, false, false, true];
    assert.deepEqual((await both('bool[]', pgBools(values), values)).ours, values);
  });
});
