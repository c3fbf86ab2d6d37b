import { sql } from 'kysely';
import { isPostgres } from './engine.ts';
import type { Db } from './schema.ts';

/**
 * Every PostgreSQL advisory lock key the service takes, in one list so two jobs never share a key by accident.
 * SQLite needs none: its write transactions begin IMMEDIATE and so are exclusive.
 */
export const ADVISORY_LOCK = {
  /** Creating the first account (accounts/repository.ts): one at a time across processes. */
  firstAccount: 727_001,
  /** Creating and dropping readings partitions (readings/retention.ts). */
  readingPartitions: 7_146_001,
  /** Pruning readings past their retention (readings/retention.ts). */
  readingRetention: 7_146_002,
  /** Pruning device positions past the readings' retention (positions/service.ts). */
  positionRetention: 7_146_003,
  /** Pruning old webhook deliveries and outbox rows (webhooks/retention.ts). */
  webhookRetention: 7_146_101,
  /** The device.quiet pass (alerts/quiet.ts), and settings changes that must wait for it. */
  quietPass: 7_146_201,
  /** The group.intake_drop pass (alerts/intake.ts), and settings changes that must wait for it. */
  intakePass: 7_146_202,
} as const;

export type AdvisoryLock = (typeof ADVISORY_LOCK)[keyof typeof ADVISORY_LOCK];

/**
 * Takes `key` for the rest of the transaction, waiting for a holder to finish (PostgreSQL). On SQLite a
 * no-op: the IMMEDIATE transaction already holds the database's write lock.
 */
export async function lockForTransaction(trx: Db, key: AdvisoryLock): Promise<void> {
  if (isPostgres(trx)) await sql`select pg_advisory_xact_lock(${key})`.execute(trx);
}

/**
 * Takes `key` for the rest of the transaction if nobody holds it; false (without waiting) if someone does.
 * Always true on SQLite, for the reason above.
 */
export async function tryLockForTransaction(trx: Db, key: AdvisoryLock): Promise<boolean> {
  if (!isPostgres(trx)) return true;
  const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${key}) as locked`.execute(
    trx,
  );
  return rows[0]?.locked === true;
}
