/**
 * The hot tables' statement modules (src/db/statements) against the migrated tables themselves, on both
 * engines: each module's column list is exactly its table's columns (a column added by a migration but not
 * to the module, or the other way round, fails here), the device columns a report sets and reads exist, and
 * the watermark span rule gives the same start in SQL as in TypeScript.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { forEachEngine } from '../../../test/harness.ts';
import { isPostgres } from '../engine.ts';
import type { Db } from '../schema.ts';
import { ALERT_COLUMNS, spanStart, spanStartSql, WATERMARK_COLUMNS } from './alerts.ts';
import { everyColumn } from './columns.ts';
import { LATEST_COLUMNS } from './device-latest.ts';
import { POSITION_COLUMNS } from './device-positions.ts';
import { REPORTING_DEVICE_COLUMNS, TOUCH_OPTIONAL_COLUMNS } from './devices.ts';
import { OUTBOX_COLUMNS } from './outbox.ts';
import { READING_COLUMNS } from './readings.ts';

/** The table's columns as the migrated database has them, sorted. */
async function columnsOf(db: Db, table: string): Promise<string[]> {
  const rows = isPostgres(db)
    ? (
        await sql<{ name: string }>`select column_name as name from information_schema.columns
          where table_schema = current_schema() and table_name = ${table}`.execute(db)
      ).rows
    : (await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(db)).rows;
  return rows.map((r) => r.name).sort();
}

const sorted = (columns: readonly string[]) => [...columns].sort();

test('a column list missing a column of its table, or naming one it lacks, does not compile', () => {
  interface Pen {
    id: string;
    name: string;
  }
  assert.deepEqual(everyColumn<Pen>()(['id', 'name']), ['id', 'name']);
  // @ts-expect-error: `name` is missing (`npm run typecheck` fails should this compile).
  everyColumn<Pen>()(['id']);
  // @ts-expect-error: pens have no `size`.
  everyColumn<Pen>()(['id', 'name', 'size']);
});

forEachEngine('hot statements and their tables', (t) => {
  test('each statement module names exactly its table’s columns', async () => {
    const db = t().database.db;
    const modules: Array<[string, readonly string[]]> = [
      ['readings', READING_COLUMNS],
      ['device_latest', LATEST_COLUMNS],
      ['alerts', ALERT_COLUMNS],
      ['alert_watermarks', WATERMARK_COLUMNS],
      ['outbox', OUTBOX_COLUMNS],
      ['device_positions', POSITION_COLUMNS],
    ];
    for (const [table, columns] of modules) {
      assert.deepEqual(
        sorted(columns),
        await columnsOf(db, table),
        `${table}: the module and the table differ`,
      );
    }
  });

  test('the device columns a report sets and reads are the table’s', async () => {
    const real = new Set(await columnsOf(t().database.db, 'devices'));
    const used = [
      ...REPORTING_DEVICE_COLUMNS,
      ...TOUCH_OPTIONAL_COLUMNS,
      'last_seen_at',
      'report_gap_ms',
      'report_token',
      'report_token_prev',
      'state',
    ];
    assert.deepEqual(
      used.filter((c) => !real.has(c)),
      [],
    );
  });

  test('the watermark span rule starts a span at the same time in SQL as in TypeScript', async (ctx) => {
    const db = t().database.db;
    if (!isPostgres(db)) {
      ctx.skip('the SQL form runs on PostgreSQL only (SQLite moves the watermark first, then reads)');
      return;
    }
    const cases: Array<[number, number | null, number]> = [
      [1_000, null, 500],
      [1_000, 1_200, 500],
      [1_000, 1_800, 500],
      [1_000, 1_500, 500],
      [5_000, 0, 10_000],
    ];
    for (const [from, watermark, keepMs] of cases) {
      const { rows } = await sql<{ start: string }>`select ${spanStartSql(
        sql`${from}::int8`,
        sql`${watermark}::int8`,
        sql`${keepMs}::int8`,
      )} as start`.execute(db);
      assert.equal(
        Number(rows[0]?.start),
        spanStart({ metric: 'temp_c', from, keepMs }, watermark),
        `from ${from}, watermark ${watermark}, window ${keepMs}`,
      );
    }
  });
});
