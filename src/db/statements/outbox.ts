/**
 * The outbox table's statement module: its column list and its inserts (an event a change emits, a report's
 * or a group's events in one insert: modules/webhooks/emit.ts, and bulk inserts). A new column is one edit:
 * OutboxTable (db/tables/foundation.ts) and OUTBOX_COLUMNS below. The stream's sequencer sets `seq` and the
 * delivery worker `dispatched_at` (modules/stream, modules/webhooks: see ARCHITECTURE.md); the notification
 * planner reads alert events through its own cursor, `notified_at` (below; modules/notifications/plan.ts).
 */
import type { Insertable } from 'kysely';
import { isPostgres } from '../engine.ts';
import { MAX_GROUP } from '../group-commit.ts';
import { prepared } from '../prepared.ts';
import type { Db, Trx } from '../schema.ts';
import type { OutboxTable } from '../tables/foundation.ts';
import { everyColumn } from './columns.ts';

/** Every column of `outbox`. */
export const OUTBOX_COLUMNS = everyColumn<OutboxTable>()([
  'id',
  'farm_id',
  'type',
  'data',
  'created_at',
  'dispatched_at',
  'seq',
  'notified_at',
]);

/** An event as it is stored (`seq` usually left out: null until the stream sequences it). */
export type OutboxRow = Insertable<OutboxTable>;

/** Rows per INSERT of a bulk insert. */
const OUTBOX_CHUNK = 500;

/** Stores new events in the outbox, in as few INSERTs as the chunk size allows. */
export async function insertOutboxEvents(db: Db, rows: readonly OutboxRow[]): Promise<void> {
  if (rows.length === 0) return;
  if (rows.length <= MAX_GROUP) {
    // A report's events, or a group's (statement-batch.ts): built once per number of rows. Bulk inserts
    // (the sample farm, imports) are built each time, so their many sizes crowd no statement cache.
    await insertOutboxRows(db, rows);
    return;
  }
  for (let i = 0; i < rows.length; i += OUTBOX_CHUNK) {
    await db
      .insertInto('outbox')
      .values(rows.slice(i, i + OUTBOX_CHUNK))
      .execute();
  }
}

const insertOutboxRows = prepared((db, rows: readonly OutboxRow[]) => db.insertInto('outbox').values(rows));

// The notification cursor ---------------------------------------------------------------------------------

/** The events the notification planner reads: alerts opening and resolving, and farm events (`alert.escalated`). */
const NOTIFIED_TYPES = ['alert.created', 'alert.resolved', 'event.created'];

/** Events the notification planner has not read, oldest first; on PostgreSQL those no other worker holds. */
export function unnotifiedEvents(trx: Trx, limit: number) {
  let q = trx
    .selectFrom('outbox')
    .select(['id', 'farm_id', 'type', 'data', 'created_at'])
    .where('notified_at', 'is', null)
    .where('type', 'in', NOTIFIED_TYPES)
    .orderBy('id')
    .limit(limit);
  if (isPostgres(trx)) q = q.forUpdate().skipLocked();
  return q.execute();
}

/** Moves the notification cursor past these events. */
export async function markNotified(trx: Trx, ids: readonly string[], now: number): Promise<void> {
  if (ids.length === 0) return;
  await trx.updateTable('outbox').set({ notified_at: now }).where('id', 'in', ids).execute();
}
