import type { Selectable } from 'kysely';
import type { Db } from '../../db/schema.ts';
import type { DeviceLatestTable, ReadingsTable } from '../../db/tables/devices.ts';
import { toIso } from '../../lib/time.ts';
import type { Reading } from './schemas.ts';

export type ReadingRow = Selectable<ReadingsTable>;

export function toReading(row: Pick<ReadingRow, 'metric' | 'value' | 'unit' | 'at'>): Reading {
  return { metric: row.metric, value: row.value, unit: row.unit, at: toIso(row.at) };
}

/**
 * Rows per INSERT: 6 columns × 5,000 = 30,000 bound values, under SQLite's limit (32,766) and
 * PostgreSQL's (65,535). A full report (1,000 readings) is one statement.
 */
const INSERT_CHUNK_ROWS = 5_000;

/** Stores readings with one multi-row INSERT (per 5,000 rows). */
export async function insertReadings(db: Db, rows: readonly ReadingRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_CHUNK_ROWS) {
    await db
      .insertInto('readings')
      .values(rows.slice(i, i + INSERT_CHUNK_ROWS))
      .execute();
  }
}

/**
 * Moves each (device, metric) latest value forward: a row is replaced only by a reading at the same
 * time or later, so a late report never hides a newer value. `rows` must hold one row per metric.
 */
export async function upsertLatest(db: Db, rows: readonly Selectable<DeviceLatestTable>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += INSERT_CHUNK_ROWS) {
    await db
      .insertInto('device_latest')
      .values(rows.slice(i, i + INSERT_CHUNK_ROWS))
      .onConflict((oc) =>
        oc
          .columns(['device_id', 'metric'])
          .doUpdateSet((eb) => ({
            value: eb.ref('excluded.value'),
            unit: eb.ref('excluded.unit'),
            at: eb.ref('excluded.at'),
          }))
          .where((eb) => eb('excluded.at', '>=', eb.ref('device_latest.at'))),
      )
      .execute();
  }
}
