/**
 * PostgreSQL: `readings` becomes a table partitioned by month (range on `at`, epoch ms), so retention
 * drops whole months instead of deleting rows one by one. A default partition takes readings outside
 * the monthly ones (far past or future device clocks); the `readings.partitions` job keeps creating
 * the coming months. The per-row foreign key to devices is replaced by a trigger on devices that
 * deletes a deleted device's readings (farm deletes cascade to devices, so they reach it too): the
 * key cost a devices lookup per inserted reading, about a quarter of the insert rate.
 *
 * SQLite keeps one table (retention deletes in small batches there) and its foreign key, which costs
 * little on an embedded database.
 */
import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../engine.ts';

/** Monthly partitions made ahead of time; the partitions job keeps this many ahead. */
const MONTHS_AHEAD = 3;
/** Existing readings older than this many months stay in the default partition (no partition per month). */
const MONTHS_BACK_MAX = 36;

function monthStart(year: number, month: number): number {
  return Date.UTC(year, month, 1);
}

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return;

  await sql`alter table readings rename to readings_unpartitioned`.execute(db);
  await sql`alter index readings_device_metric_at rename to readings_unpartitioned_device_metric_at`.execute(
    db,
  );
  await sql`alter index readings_device_at rename to readings_unpartitioned_device_at`.execute(db);

  await sql`create table readings (
    device_id text not null,
    farm_id text not null,
    metric text not null,
    value double precision not null,
    unit text,
    at bigint not null
  ) partition by range (at)`.execute(db);
  await sql`create table readings_default partition of readings default`.execute(db);

  const now = new Date();
  const oldest = await sql<{
    at: number | string | null;
  }>`select min(at) as at from readings_unpartitioned`.execute(db);
  const oldestAt = oldest.rows[0]?.at;
  let year = now.getUTCFullYear();
  let month = now.getUTCMonth();
  if (oldestAt !== null && oldestAt !== undefined) {
    const first = new Date(Math.max(Number(oldestAt), monthStart(year, month - MONTHS_BACK_MAX)));
    if (first.getTime() < monthStart(year, month)) {
      year = first.getUTCFullYear();
      month = first.getUTCMonth();
    }
  }
  const last = monthStart(now.getUTCFullYear(), now.getUTCMonth() + MONTHS_AHEAD);
  for (let from = monthStart(year, month); from <= last; from = monthStart(year, ++month)) {
    const d = new Date(from);
    const name = `readings_p${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
    const to = monthStart(d.getUTCFullYear(), d.getUTCMonth() + 1);
    await sql`create table ${sql.id(name)} partition of readings for values from (${sql.lit(from)}) to (${sql.lit(to)})`.execute(
      db,
    );
  }

  await sql`insert into readings (device_id, farm_id, metric, value, unit, at)
    select device_id, farm_id, metric, value, unit, at from readings_unpartitioned`.execute(db);
  await sql`drop table readings_unpartitioned`.execute(db);
  // The two query shapes: a device's readings newest first, and one metric of a device over time.
  await sql`create index readings_device_metric_at on readings (device_id, metric, at)`.execute(db);
  await sql`create index readings_device_at on readings (device_id, at)`.execute(db);

  await sql`create function readings_delete_for_device() returns trigger language plpgsql as $$
    begin
      delete from readings where device_id = old.id;
      return old;
    end $$`.execute(db);
  await sql`create trigger devices_delete_readings after delete on devices
    for each row execute function readings_delete_for_device()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`drop trigger if exists devices_delete_readings on devices`.execute(db);
  await sql`drop function if exists readings_delete_for_device()`.execute(db);
  await sql`alter table readings rename to readings_partitioned`.execute(db);
  await sql`create table readings (
    device_id text not null references devices(id) on delete cascade,
    farm_id text not null,
    metric text not null,
    value double precision not null,
    unit text,
    at bigint not null
  )`.execute(db);
  await sql`insert into readings select device_id, farm_id, metric, value, unit, at from readings_partitioned`.execute(
    db,
  );
  await sql`drop table readings_partitioned`.execute(db);
  await sql`create index readings_device_metric_at on readings (device_id, metric, at)`.execute(db);
  await sql`create index readings_device_at on readings (device_id, at)`.execute(db);
}
