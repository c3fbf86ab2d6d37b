/**
 * Readings housekeeping, run by the background jobs `readings.partitions` and `readings.retention`.
 *
 * PostgreSQL partitions `readings` by month (migration 0006): partitions are made a few months ahead,
 * and retention drops every month that lies wholly before the cutoff, then deletes what is left
 * before it (the month the cutoff falls in, and the default partition) in small batches. SQLite keeps
 * one table and deletes in small batches only. Either way a batch is one short statement, so ingest
 * never waits long behind retention, and several processes never do the same work twice (one holds a
 * lock while the others skip the run).
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../../db/engine.ts';
import { ADVISORY_LOCK, lockForTransaction } from '../../db/locks.ts';
import type { DB, Db } from '../../db/schema.ts';
import { inTransaction, runAlone } from '../../db/transaction.ts';
import { DAY_MS } from '../../lib/time.ts';
import { type DeviceTimeTable, deleteDeviceRowsBatch, deviceIdsAfter } from './repository.ts';

/** Monthly partitions kept ready ahead of the current month. */
export const PARTITION_MONTHS_AHEAD = 3;
/** Rows one retention batch deletes at most. */
export const RETENTION_BATCH_ROWS = 2_000;

export interface ReadingPartition {
  name: string;
  /** Range of `at` (epoch ms), from inclusive to exclusive; null for the default partition. */
  from: number | null;
  to: number | null;
}

function monthStart(ms: number, addMonths = 0): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + addMonths, 1);
}

function partitionName(from: number): string {
  const d = new Date(from);
  return `readings_p${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** The partitions of `readings` (PostgreSQL), oldest first, the default partition last. */
export async function listReadingPartitions(db: Db): Promise<ReadingPartition[]> {
  if (!isPostgres(db)) return [];
  const { rows } = await sql<{ name: string; bound: string }>`
    select c.relname as name, pg_get_expr(c.relpartbound, c.oid) as bound
    from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = 'readings'::regclass`.execute(db);
  return rows
    .map((r) => {
      const match = /FROM \('?(-?\d+)'?\) TO \('?(-?\d+)'?\)/.exec(r.bound);
      return { name: r.name, from: match ? Number(match[1]) : null, to: match ? Number(match[2]) : null };
    })
    .sort((a, b) => (a.from ?? Number.POSITIVE_INFINITY) - (b.from ?? Number.POSITIVE_INFINITY));
}

/**
 * Makes sure the monthly partitions from `now`'s month to PARTITION_MONTHS_AHEAD months later exist
 * (PostgreSQL; nothing to do on SQLite). A new partition is created on its own and then attached, which
 * does not block inserts into the other partitions; readings of that month already in the default
 * partition (a device clock running ahead) move into it first. Returns the partitions created.
 */
export async function ensureReadingPartitions(db: Kysely<DB>, now: number): Promise<string[]> {
  if (!isPostgres(db)) return [];
  // Retried on a deadlock (attaching a partition meets the inserts' locks); each run re-reads what exists.
  return inTransaction(db, async (trx) => {
    await lockForTransaction(trx, ADVISORY_LOCK.readingPartitions);
    // Wait briefly for locks, never long: a queued lock request would hold up the inserts behind it.
    await sql`set local lock_timeout = '2s'`.execute(trx);
    const existing = new Set((await listReadingPartitions(trx)).map((p) => p.from));
    const created: string[] = [];
    for (let i = 0; i <= PARTITION_MONTHS_AHEAD; i++) {
      const from = monthStart(now, i);
      if (existing.has(from)) continue;
      const to = monthStart(now, i + 1);
      const name = partitionName(from);
      await sql`create table ${sql.id(name)} (like readings including defaults including constraints)`.execute(
        trx,
      );
      await sql`insert into ${sql.id(name)} select * from readings_default where at >= ${from} and at < ${to}`.execute(
        trx,
      );
      await sql`delete from readings_default where at >= ${from} and at < ${to}`.execute(trx);
      await sql`alter table readings attach partition ${sql.id(name)} for values from (${sql.lit(from)}) to (${sql.lit(to)})`.execute(
        trx,
      );
      created.push(name);
    }
    return created;
  });
}

/** The retention cutoff: raw readings before it are removed; null when readings are kept forever. */
export function retentionCutoff(retentionDays: number | null, now: number): number | null {
  return retentionDays === null ? null : now - retentionDays * DAY_MS;
}

export interface RetentionResult {
  /** Whole monthly partitions dropped (PostgreSQL). */
  droppedPartitions: string[];
  /** Rows deleted in batches. */
  deletedRows: number;
  /** False when another process held the retention lock, so this run did nothing. */
  ran: boolean;
}

function isLockTimeout(err: unknown): boolean {
  return (err as { code?: string } | null)?.code === '55P03';
}

/**
 * Drops a partition wholly before the cutoff. Dropping needs a brief exclusive lock on `readings`;
 * asking for it with a short timeout (and trying again a few times) keeps inserts from queueing
 * behind the request. Returns false when the lock could not be had (the next run tries again).
 */
async function dropPartition(db: Kysely<DB>, name: string): Promise<boolean> {
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      await db.transaction().execute(async (trx) => {
        await sql`set local lock_timeout = '100ms'`.execute(trx);
        await sql`drop table ${sql.id(name)}`.execute(trx);
      });
      return true;
    } catch (err) {
      if (!isLockTimeout(err)) throw err;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  return false;
}

/**
 * Removes raw readings older than `cutoff`: on PostgreSQL first every monthly partition wholly before
 * it (one DROP each), then, on both engines, the rest device by device in batches of `batchRows`, each
 * its own statement, yielding to the event loop in between so requests keep flowing. Stops early (at a
 * batch boundary) when `signal` aborts. The latest value per metric (`device_latest`) is kept.
 */
export async function removeOldReadings(
  db: Kysely<DB>,
  cutoff: number,
  options: { batchRows?: number; signal?: AbortSignal } = {},
): Promise<RetentionResult> {
  const batchRows = options.batchRows ?? RETENTION_BATCH_ROWS;
  const run = await runAlone(db, ADVISORY_LOCK.readingRetention, async (conn) => {
    const droppedPartitions: string[] = [];
    for (const partition of await listReadingPartitions(conn)) {
      if (options.signal?.aborted) break;
      if (partition.to !== null && partition.to <= cutoff && (await dropPartition(conn, partition.name))) {
        droppedPartitions.push(partition.name);
      }
    }
    const deletedRows = await deleteDevicesInBatches(conn, 'readings', cutoff, batchRows, options.signal);
    return { droppedPartitions, deletedRows };
  });
  return run.ran ? { ...run.value, ran: true } : { droppedPartitions: [], deletedRows: 0, ran: false };
}

/**
 * Deletes a table's rows older than `cutoff` device by device, a batch at a time (at most about `batchRows`
 * of one device's oldest), yielding between batches so the server stays responsive; stops early when
 * `signal` aborts. Readings and positions (modules/positions) are pruned through it. Answers the rows deleted.
 */
export async function deleteDevicesInBatches(
  db: Db,
  table: DeviceTimeTable,
  cutoff: number,
  batchRows: number,
  signal?: AbortSignal,
): Promise<number> {
  let deleted = 0;
  let after = '';
  for (;;) {
    const devices = await deviceIdsAfter(db, after, 500);
    for (const { id } of devices) {
      for (;;) {
        if (signal?.aborted) return deleted;
        const n = await deleteDeviceRowsBatch(db, table, id, cutoff, batchRows);
        deleted += n;
        await yieldToEventLoop();
        if (n === 0) break;
      }
    }
    const last = devices.at(-1);
    if (!last || devices.length < 500) return deleted;
    after = last.id;
  }
}
