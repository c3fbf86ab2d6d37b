/**
 * Writing one farm event, the way every module writes to the log (ingest, the alert engine, moves, the
 * records' own moves); the events service re-exports it beside the client-facing calls.
 */
import type { Db } from '../../db/schema.ts';
import { inTransaction } from '../../db/transaction.ts';
import { newId } from '../../domain/ids.ts';
import { subjectKindOfId } from '../../domain/record-kinds.ts';
import { insertRecord } from '../records/scoped.ts';
import { emitEvent } from '../webhooks/emit.ts';
import { type FarmEventRow, toFarmEvent } from './repository.ts';
import type { FarmEvent } from './schemas.ts';

export interface RecordFarmEventInput {
  type: string;
  subject_type?: string | null;
  subject_id?: string | null;
  data?: Record<string, unknown>;
  /** When it happened, epoch ms; default `now`. */
  at?: number;
}

/**
 * Writes one farm event and its `event.created` webhook event in the same transaction (the caller's
 * when `db` is one). No access check: callers have already checked the farm. Device ingest, the alert
 * engine and move logging call this; the API goes through createEvent, which checks the subject.
 */
export async function recordFarmEvent(
  db: Db,
  farmId: string,
  input: RecordFarmEventInput,
  now: number = Date.now(),
): Promise<FarmEvent> {
  const subjectId = input.subject_id ?? null;
  const row: FarmEventRow = {
    id: newId('event', now),
    farm_id: farmId,
    type: input.type,
    subject_type: input.subject_type ?? (subjectId ? subjectKindOfId(subjectId) : null),
    subject_id: subjectId,
    data: JSON.stringify(input.data ?? {}),
    at: input.at ?? now,
    created_at: now,
  };
  const run = async (trx: Db): Promise<FarmEvent> => {
    await insertRecord(trx, 'event', row);
    const event = toFarmEvent(row);
    await emitEvent(trx, farmId, 'event.created', event, now);
    return event;
  };
  return inTransaction(db, run);
}
