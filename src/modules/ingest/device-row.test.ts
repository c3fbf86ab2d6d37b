/**
 * A report's update of its device row changes no index (migration 0048): no index of `devices` holds a
 * column a report sets, and on PostgreSQL the update is a HOT one (an index on `last_seen_at` made every
 * report write seven index entries and cost PostgreSQL about a tenth more CPU: BENCHMARKS.md).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { device, farm } from '../../../test/factories.ts';
import { forEachEngine } from '../../../test/harness.ts';
import { TOUCH_OPTIONAL_COLUMNS, touchColumns } from '../../db/statements/devices.ts';
import { ingestReport } from './service.ts';

/** Every column some index of `devices` holds, read from the engine's own catalog. */
async function indexedColumns(db: Parameters<typeof ingestReport>[0], engine: string): Promise<Set<string>> {
  if (engine === 'postgres') {
    const { rows } = await sql<{ column: string }>`
      select a.attname as column from pg_index i
      join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
      where i.indrelid = 'devices'::regclass`.execute(db);
    return new Set(rows.map((r) => r.column));
  }
  const columns = new Set<string>();
  const { rows: indexes } = await sql<{
    name: string;
  }>`select name from pragma_index_list('devices')`.execute(db);
  for (const { name } of indexes) {
    const { rows } = await sql<{ name: string }>`select name from pragma_index_info(${name})`.execute(db);
    for (const r of rows) columns.add(r.name);
  }
  return columns;
}

forEachEngine("a report's device update", (t) => {
  test('no index of the devices table holds a column a report sets', async () => {
    const everything = {
      last_seen_at: 1,
      report_token: 'x',
      status_at: 1,
      battery: 1,
      lat: 1,
      lon: 1,
      firmware: '1',
    };
    // What the report statement sets (the helper's list, the one the statements use), and what a report
    // sets on the side: its state, the end of a quiet alert, a clock found skewed or right again.
    const set = [...Object.keys(touchColumns(everything)), 'state', 'quiet_level', 'clock_skewed'];
    for (const column of [...TOUCH_OPTIONAL_COLUMNS, 'status_at']) assert.ok(set.includes(column), column);
    const indexed = await indexedColumns(t().database.db, t().engine);
    assert.ok(indexed.has('farm_id'), `the catalog read found the indexes: ${[...indexed].join(', ')}`);
    assert.deepEqual(
      set.filter((column) => indexed.has(column)),
      [],
      'an index on a column every report sets makes each report write every index of the table',
    );
  });

  test('on PostgreSQL the update is a HOT one: it changes no index', async (ctx) => {
    if (t().engine !== 'postgres') return ctx.skip('PostgreSQL only');
    const acct = await t().sharedAccount();
    const f = await farm(t(), acct.live_key, { name: 'HOT' });
    const d = await device(t(), acct.live_key, f.id, { type: 'house', name: 'House' });
    const now = Date.now();
    const counts = await t()
      .database.db.transaction()
      .execute(async (trx) => {
        for (let i = 0; i < 3; i++) {
          const at = new Date(now - (3 - i) * 60_000).toISOString();
          await ingestReport(
            trx,
            { deviceId: d.id },
            {
              readings: [{ metric: 'climate.temp_c', value: 20 + i, at }],
              ...(i === 1 ? { battery: 80, lat: 51.5, lon: -0.1, firmware: '2.0' } : {}),
            },
            now,
          );
        }
        const { rows } = await sql<{ updated: string; hot: string }>`
          select pg_stat_get_xact_tuples_updated('devices'::regclass) as updated,
            pg_stat_get_xact_tuples_hot_updated('devices'::regclass) as hot`.execute(trx);
        return rows[0];
      });
    assert.ok(Number(counts?.updated) >= 3, `updated ${counts?.updated}`);
    assert.equal(Number(counts?.hot), Number(counts?.updated), 'every device update of the reports was HOT');
  });
});
