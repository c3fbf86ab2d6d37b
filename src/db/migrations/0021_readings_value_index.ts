/**
 * One metric of a device over time is read with its values: charts, aggregates, and the alert engine's
 * rate windows with every report. The index on (device_id, metric, at) now carries the value too, so
 * those reads never visit the table (SQLite: a fourth key column; PostgreSQL: INCLUDE). It replaces the
 * old index, which serves nothing this one does not, so ingest still writes two indexes per reading.
 */
import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../engine.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) {
    await sql`create index readings_device_metric_at_value on readings (device_id, metric, at) include (value)`.execute(
      db,
    );
  } else {
    await sql`create index readings_device_metric_at_value on readings (device_id, metric, at, value)`.execute(
      db,
    );
  }
  await sql`drop index readings_device_metric_at`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`create index readings_device_metric_at on readings (device_id, metric, at)`.execute(db);
  await sql`drop index readings_device_metric_at_value`.execute(db);
}
