/**
 * The internal emitter. Every change that produces a webhook event calls `emitEvent` with the same
 * transaction that makes the change, so the event is stored (in the outbox) exactly when the change
 * commits; the delivery worker sends it later. Nothing is lost if the process dies in between. The farm's
 * live streams (modules/stream) hear of it on the bus, notified in the same transaction: at commit on
 * PostgreSQL, in every process, and not at all on rollback.
 */

import type { Insertable } from 'kysely';
import { BUS_CHANNELS, notify } from '../../db/notify.ts';
import type { Db } from '../../db/schema.ts';
import { type BatchKind, batchedCall } from '../../db/statement-batch.ts';
import { insertOutboxEvents } from '../../db/statements/outbox.ts';
import type { OutboxTable } from '../../db/tables/foundation.ts';
import { newId } from '../../domain/ids.ts';
import type { WebhookEventName } from '../../domain/webhook-events.ts';

export interface EmittedEvent {
  id: string;
  type: WebhookEventName;
  farm_id: string;
  created_at: number;
  data: Record<string, unknown>;
}

/** Farms already notified per transaction: one NOTIFY says "look at this farm's outbox", however many rows. */
const notifiedIn = new WeakMap<Db, Set<string>>();

/** Tells the farm's live streams, once per transaction, that its outbox grew. */
async function notifyFarm(db: Db, farmId: string): Promise<void> {
  if (db.isTransaction) {
    let farms = notifiedIn.get(db);
    if (!farms) {
      farms = new Set();
      notifiedIn.set(db, farms);
    }
    if (farms.has(farmId)) return;
    farms.add(farmId);
  }
  await notify(db, BUS_CHANNELS.farmOutbox, farmId);
}

export async function emitEvent(
  db: Db,
  farmId: string,
  type: WebhookEventName,
  data: Record<string, unknown>,
  now: number = Date.now(),
): Promise<EmittedEvent> {
  const event = { id: newId('outbox', now), type, farm_id: farmId, created_at: now, data };
  const row = { ...event, data: JSON.stringify(data), dispatched_at: null };
  await batchedCall(db, OUTBOX_BATCH, row);
  await notifyFarm(db, farmId);
  return event;
}

/** The events a group's reports emit (statement-batch.ts), in one insert. */
const OUTBOX_BATCH: BatchKind<Insertable<OutboxTable>, void> = {
  async run(db, rows) {
    await insertOutboxEvents(db, rows);
    return rows.map(() => undefined);
  },
};

/**
 * Several events in a few INSERTs (a CSV import's created animals, a background pass that opens many alerts
 * at once); each farm's live streams are told once.
 */
export async function emitEvents(
  db: Db,
  events: ReadonlyArray<{ farmId: string; type: WebhookEventName; data: Record<string, unknown> }>,
  now: number = Date.now(),
): Promise<void> {
  const rows = events.map((e) => ({
    id: newId('outbox', now),
    farm_id: e.farmId,
    type: e.type,
    data: JSON.stringify(e.data),
    created_at: now,
    dispatched_at: null,
  }));
  await insertOutboxEvents(db, rows);
  for (const farmId of new Set(rows.map((row) => row.farm_id))) await notifyFarm(db, farmId);
}
