/**
 * The live stream's queries. A farm's stream reads its outbox rows by `seq`, the number the sequencer gives
 * them in commit order (see migration 0017): outbox ids are made before their transaction commits, so a row
 * with a smaller id can commit after a larger one, and "id > last" would skip it; "seq > last" never does.
 */
import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../../db/engine.ts';
import type { DB, Db } from '../../db/schema.ts';
import { SEQ_NEVER_STREAMED } from '../../db/tables/foundation.ts';
import { inTransaction } from '../../db/transaction.ts';
import type { RoleName } from '../../domain/permissions.ts';
import type { KeyMode } from '../../lib/secrets.ts';
import type { OutboxEvent } from '../webhooks/signing.ts';

/** Rows one sequencer transaction numbers at most (a farm's first stream numbers its whole retained history). */
const SEQUENCE_BATCH = 1000;

export interface StreamRow extends OutboxEvent {
  seq: number;
}

/**
 * Numbers the farms' committed, unnumbered outbox rows in id order, after every number handed out before:
 * the lock on the one `outbox_sequence` row makes sequencers (in any process) take turns, each committing
 * before the next reads, so a farm's numbers grow in the order they become visible. Returns how many rows
 * it numbered.
 */
export async function sequenceOutbox(db: Kysely<DB>, farmIds: readonly string[]): Promise<number> {
  if (farmIds.length === 0) return 0;
  // Most calls find nothing to do: they take no lock then.
  const waiting = await db
    .selectFrom('outbox')
    .select('id')
    .where('farm_id', 'in', farmIds)
    .where('seq', 'is', null)
    .limit(1)
    .executeTakeFirst();
  if (!waiting) return 0;
  let total = 0;
  for (;;) {
    const numbered = await inTransaction(db, async (trx) => {
      let counter = trx.selectFrom('outbox_sequence').select('value').where('id', '=', 1);
      if (isPostgres(trx)) counter = counter.forUpdate();
      const base = (await counter.executeTakeFirstOrThrow()).value;
      const updated = await sql<{ seq: number }>`
        update outbox set seq = ${base} + numbered.n
        from (
          select id, row_number() over (order by id) as n from outbox
          where farm_id in (${sql.join(farmIds)}) and seq is null
          order by id limit ${SEQUENCE_BATCH}
        ) as numbered
        where outbox.id = numbered.id
        returning seq`.execute(trx);
      const seqs = updated.rows.map((r) => Number(r.seq));
      if (seqs.length === 0) return 0;
      await trx
        .updateTable('outbox_sequence')
        .set({ value: Math.max(...seqs) })
        .where('id', '=', 1)
        .execute();
      return seqs.length;
    });
    total += numbered;
    if (numbered < SEQUENCE_BATCH) return total;
  }
}

/** The farm's streamed rows after `seq`, in order. */
export function rowsAfter(db: Db, farmId: string, seq: number, limit: number): Promise<StreamRow[]> {
  return db
    .selectFrom('outbox')
    .select(['id', 'type', 'farm_id', 'created_at', 'data', 'seq'])
    .where('farm_id', '=', farmId)
    .where('seq', '>', Math.max(seq, SEQ_NEVER_STREAMED))
    .orderBy('seq')
    .limit(limit)
    .execute() as Promise<StreamRow[]>;
}

/** The position of one of the farm's streamed events, or null (unknown, pruned, another farm's, never streamed). */
export async function seqOfEvent(db: Db, farmId: string, eventId: string): Promise<number | null> {
  const row = await db
    .selectFrom('outbox')
    .select('seq')
    .where('id', '=', eventId)
    .where('farm_id', '=', farmId)
    .where('seq', '>', SEQ_NEVER_STREAMED)
    .executeTakeFirst();
  return row?.seq ?? null;
}

/** The farm's newest streamed event (where a fresh stream starts), or null when it has none. */
export async function newestEvent(db: Db, farmId: string): Promise<{ id: string; seq: number } | null> {
  const row = await db
    .selectFrom('outbox')
    .select(['id', 'seq'])
    .where('farm_id', '=', farmId)
    .where('seq', '>', SEQ_NEVER_STREAMED)
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row && row.seq !== null ? { id: row.id, seq: row.seq } : null;
}

/**
 * Whether a console session still stands as it was when its stream opened: not ended (signed out, password
 * changed, person removed), still in the same mode, its person still in the same role.
 */
export async function sessionIsActive(
  db: Db,
  session: { sessionId: string; role: RoleName },
  mode: KeyMode,
): Promise<boolean> {
  const row = await db
    .selectFrom('sessions')
    .innerJoin('people', 'people.id', 'sessions.person_id')
    .select('sessions.id')
    .where('sessions.id', '=', session.sessionId)
    .where('sessions.mode', '=', mode)
    .where('people.role', '=', session.role)
    .executeTakeFirst();
  return row !== undefined;
}

/** Whether an API key is still valid (a stream re-checks its caller while it runs). */
export async function keyIsActive(db: Db, keyId: string): Promise<boolean> {
  const row = await db
    .selectFrom('api_keys')
    .select('id')
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return row !== undefined;
}

/** A device whose last report is after a time: its id and that report's time. */
export interface DeviceReport {
  id: string;
  last_seen_at: number;
}

/** A device as a `device.reported` frame shows it. */
export interface ReportedDevice {
  id: string;
  name: string;
  type: string;
  battery: number | null;
  /** Its last position (the Map page moves its marker). */
  lat: number | null;
  lon: number | null;
  last_seen_at: number;
  /** JSON text of the device's state. */
  state: string;
}

/** The farm's devices whose last report is after `since` (epoch ms), oldest report first (ids only). */
export async function devicesReportedSince(
  db: Db,
  farmId: string,
  since: number,
  limit: number,
): Promise<DeviceReport[]> {
  const rows = await db
    .selectFrom('devices')
    .select(['id', 'last_seen_at'])
    .where('farm_id', '=', farmId)
    .where('last_seen_at', '>', since)
    .orderBy('last_seen_at')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ id: r.id, last_seen_at: Number(r.last_seen_at) }));
}

/** These devices as frames show them (their state, which can be large, read only for those sent). */
export async function reportedDevices(db: Db, ids: readonly string[]): Promise<ReportedDevice[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('devices')
    .select(['id', 'name', 'type', 'battery', 'lat', 'lon', 'last_seen_at', 'state'])
    .where('id', 'in', ids)
    .orderBy('last_seen_at')
    .execute();
  return rows.map((r) => ({ ...r, last_seen_at: Number(r.last_seen_at) }));
}

/** The latest value of every metric of these devices, by device then metric. */
export async function latestByDevice(
  db: Db,
  deviceIds: readonly string[],
): Promise<Map<string, Record<string, { value: number; unit: string | null; at: number }>>> {
  const out = new Map<string, Record<string, { value: number; unit: string | null; at: number }>>();
  if (deviceIds.length === 0) return out;
  const rows = await db
    .selectFrom('device_latest')
    .select(['device_id', 'metric', 'value', 'unit', 'at'])
    .where('device_id', 'in', deviceIds)
    .execute();
  for (const row of rows) {
    const values = out.get(row.device_id) ?? {};
    values[row.metric] = { value: Number(row.value), unit: row.unit, at: Number(row.at) };
    out.set(row.device_id, values);
  }
  return out;
}
