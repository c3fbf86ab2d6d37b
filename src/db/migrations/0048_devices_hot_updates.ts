/**
 * Every device report updates its device row (`last_seen_at`, the report token and gap). The index
 * `devices_last_seen` (0014) made each of those updates write a new entry into every index of the table
 * (seven), and on PostgreSQL it ruled out HOT updates (an update that changes no indexed column and fits
 * on its page changes no index at all). Without it, and with room left on each page (fillfactor 70), a
 * report's device update is a HOT one: PostgreSQL spent about a tenth less CPU per 1-reading report
 * (BENCHMARKS.md, eleventh session). The quiet pass, the index's one user, now reads the devices table
 * whole once a minute (100,000 devices: BENCHMARKS.md); SQLite keeps one index less up to date per report.
 */
import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../engine.ts';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop index devices_last_seen`.execute(db);
  // Existing pages fill up as rows are updated; new and moved rows leave the room.
  if (isPostgres(db)) await sql`alter table devices set (fillfactor = 70)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isPostgres(db)) await sql`alter table devices reset (fillfactor)`.execute(db);
  await sql`create index devices_last_seen on devices (last_seen_at)`.execute(db);
}
