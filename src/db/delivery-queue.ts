/**
 * The one leased delivery queue: anything sent "until it succeeds" (webhook deliveries, notifications,
 * LoRaWAN downlinks) is a kind of it. The queue owns
 *  - claiming: due rows are leased (`locked_until`) by one worker. PostgreSQL skips rows another worker
 *    holds (FOR UPDATE SKIP LOCKED); on SQLite the single UPDATE is atomic by itself (one writer);
 *  - attempts: the claim counts the attempt before anything is sent, so a worker killed mid-send leaves a
 *    count that shows the send in flight, and the re-send after its lease runs out is the next attempt;
 *  - the backoff schedule and the final states: succeeded, failed for good, expired (and skipped: nothing
 *    was left to send, which is not an attempt);
 *  - settling, only while the claim's lease holds: a late writer after the lease ran out (another worker
 *    has the row now) changes nothing;
 *  - pruning of settled rows, and the metrics of every outcome.
 * A kind (DeliveryKind) says only how to send one item and what the answer means; the worker loop that
 * drives kinds is workers/delivery-loop.ts. Each kind keeps its own table (their rows carry different
 * things); a QueueTable names the columns the queue works on.
 */
import {
  type Expression,
  type ExpressionBuilder,
  type Kysely,
  type RawBuilder,
  type SqlBool,
  sql,
} from 'kysely';
import { metrics } from '../lib/metrics.ts';
import { isPostgres } from './engine.ts';
import type { DB, Db } from './schema.ts';

export type QueueTableName = 'webhook_deliveries' | 'notifications' | 'integration_downlinks';

/** A final state, or `retrying` (pending again, due at `next_attempt_at`). */
export type DeliveryState = 'succeeded' | 'failed' | 'expired' | 'skipped' | 'retrying';

/** Which table a kind's items live in, and which of its columns the queue works on. */
export interface QueueTable<T extends QueueTableName = QueueTableName> {
  /** The kind's name in metrics and logs (`webhooks`, `notifications`, `downlinks`). */
  name: string;
  table: T;
  /** The row's key column. */
  key: KeyColumn & keyof DB[T];
  /** The column counting attempts made (the claim adds one). */
  attempts: AttemptsColumn & keyof DB[T];
  /** The `status` value of each state, as the table spells them. */
  statuses: { pending: string } & Record<Exclude<DeliveryState, 'retrying'>, string>;
  /** Statuses that are not final yet (never pruned). */
  open: readonly string[];
  /** Only rows of this kind that may be sent now (e.g. of an enabled webhook). */
  claimable?: (eb: ExpressionBuilder<DB, T>) => Expression<SqlBool>;
  /** A column sends are spread over (a webhook): the claim can leave out groups that have enough in flight. */
  group?: GroupColumn & keyof DB[T];
}

/** A claimed item: its key, the lease it holds (the `locked_until` written) and this attempt's number. */
export interface Leased {
  key: string;
  lease: number;
  /** This attempt's number, 1 for the first (counted by the claim). */
  attempt: number;
  /** The group it belongs to, when the queue has one. */
  group: string | null;
}

/** The key, attempt-count and group columns the queue tables spell their own way. */
type KeyColumn = 'id' | 'command_id';
type AttemptsColumn = 'attempt_count' | 'attempts';
type GroupColumn = 'webhook_id';

/** Every queue table seen through the columns the queue works on (a QueueTable says which are its). */
interface QueueView {
  status: string;
  next_attempt_at: number | null;
  locked_until: number | null;
  created_at: number;
  id: string;
  command_id: string;
  attempt_count: number;
  attempts: number;
  webhook_id: string;
}
type QueueDb = Kysely<Record<QueueTableName, QueueView>>;

function untyped(db: Db): QueueDb {
  return db as unknown as QueueDb;
}

/** The queue's columns, seen as the QueueView names them. */
interface ViewColumns {
  key: KeyColumn;
  attempts: AttemptsColumn;
  group?: GroupColumn | undefined;
}
function columnsOf(queue: { key: string; attempts: string; group?: string | undefined }): ViewColumns {
  return queue as unknown as ViewColumns;
}

/** The table's name, seen as any of the queue tables (they share the QueueView's columns). */
function tableOf(queue: { table: QueueTableName }): 'notifications' {
  return queue.table as 'notifications';
}

/** `attempts = attempts + delta`, for whichever column counts the attempts. */
function countAttempts(
  column: AttemptsColumn,
  delta: 1 | -1,
): Partial<Record<AttemptsColumn, RawBuilder<number>>> {
  return { [column]: sql<number>`${sql.ref(column)} + ${delta}` };
}

function toLeased(queue: ViewColumns, lease: number, row: Record<string, unknown>): Leased {
  return {
    key: String(row[queue.key]),
    lease,
    attempt: Number(row[queue.attempts]),
    group: queue.group ? String(row[queue.group]) : null,
  };
}

/**
 * Leases up to `limit` due items for `leaseMs`, oldest due first, counting an attempt on each; `skipGroups`
 * leaves out groups that have enough sends in flight in this process.
 */
export async function claimDue<T extends QueueTableName>(
  db: Db,
  queue: QueueTable<T>,
  options: { now: number; limit: number; leaseMs: number; skipGroups?: readonly string[] },
): Promise<Leased[]> {
  const c = columnsOf(queue);
  const { now, limit, leaseMs } = options;
  if (limit < 1) return [];
  const q = untyped(db);
  const key = c.key;
  const lease = now + leaseMs;
  let due = q
    .selectFrom(tableOf(queue))
    .select(key)
    .where('status', '=', queue.statuses.pending)
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .orderBy('next_attempt_at')
    .orderBy(key)
    .limit(limit);
  if (queue.claimable) {
    const claimable = queue.claimable as unknown as (
      eb: ExpressionBuilder<Record<QueueTableName, QueueView>, QueueTableName>,
    ) => Expression<SqlBool>;
    due = due.where(claimable);
  }
  if (c.group && options.skipGroups?.length) due = due.where(c.group, 'not in', options.skipGroups);
  if (isPostgres(db)) due = due.forUpdate().skipLocked();
  const returned: (keyof QueueView)[] = [key, c.attempts, 'next_attempt_at', ...(c.group ? [c.group] : [])];
  // The due rows as a materialized CTE, read once: as a plain `IN (subquery)` PostgreSQL may run the
  // subquery again for each row it updates, and under SKIP LOCKED each run finds other rows, so one claim
  // leased far more than `limit` (36 notifications at once where 8 slots were free).
  const claimed = await q
    .with(
      (cte) => cte('due').materialized(),
      () => due,
    )
    .updateTable(tableOf(queue))
    .set({ locked_until: lease, ...countAttempts(c.attempts, 1) })
    .where(key, 'in', (eb) => eb.selectFrom('due').select(key))
    .where('status', '=', queue.statuses.pending)
    .returning(returned)
    .execute();
  return claimed
    .sort(
      (a, b) =>
        Number(a.next_attempt_at ?? 0) - Number(b.next_attempt_at ?? 0) ||
        (String(a[key]) < String(b[key]) ? -1 : 1),
    )
    .map((row) => toLeased(c, lease, row));
}

/**
 * Leases one item whatever its status (a manual retry), counting an attempt, unless an attempt holds it
 * right now: then null.
 */
export async function claimOne<T extends QueueTableName>(
  db: Db,
  queue: QueueTable<T>,
  key: string,
  options: { now: number; leaseMs: number },
): Promise<Leased | null> {
  const c = columnsOf(queue);
  const lease = options.now + options.leaseMs;
  const row = await untyped(db)
    .updateTable(tableOf(queue))
    .set({ locked_until: lease, ...countAttempts(c.attempts, 1) })
    .where(c.key, '=', key)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', options.now)]))
    .returning([c.key, c.attempts, ...(c.group ? [c.group] : [])])
    .executeTakeFirst();
  return row ? toLeased(c, lease, row) : null;
}

/** Gives claimed items back unsent: claimable again at once, and the claim's attempt uncounted. */
export async function release<T extends QueueTableName>(
  db: Db,
  queue: QueueTable<T>,
  items: readonly Leased[],
): Promise<void> {
  const c = columnsOf(queue);
  for (const item of items) {
    await untyped(db)
      .updateTable(tableOf(queue))
      .set({ locked_until: null, ...countAttempts(c.attempts, -1) })
      .where(c.key, '=', item.key)
      .where('locked_until', '=', item.lease)
      .execute();
  }
}

/** How to retry: the delays after each attempt, and when trying stops. */
export interface RetryPolicy {
  /** Delays before the 2nd, 3rd… attempt. */
  scheduleMs: readonly number[];
  /** Past the schedule's end, its last delay repeats (else the item fails for good). */
  repeatLast?: boolean;
  /** A retry due at or after this time is not made: the item expires. */
  expiresAt?: number | null;
}

/** What a kind makes of one attempt's answer. */
export type Answer = 'succeeded' | 'retry' | 'failed' | 'skipped';

export type Step =
  | { state: Exclude<DeliveryState, 'retrying'>; next_attempt_at: null }
  | { state: 'retrying'; next_attempt_at: number };

/** The delay after attempt number `tries` (1 for the first), or undefined when the schedule has ended. */
export function retryDelay(policy: RetryPolicy, tries: number): number | undefined {
  const { scheduleMs } = policy;
  const index = policy.repeatLast ? Math.min(tries - 1, scheduleMs.length - 1) : tries - 1;
  return scheduleMs[index];
}

/**
 * The item's next step after attempt number `tries` answered `answer` at `at`: a final state, or a retry
 * on the schedule (failed for good after its last delay; expired when the retry would come too late).
 */
export function nextStep(answer: Answer, tries: number, policy: RetryPolicy, at: number): Step {
  if (answer !== 'retry') return { state: answer, next_attempt_at: null };
  const delay = retryDelay(policy, tries);
  if (delay === undefined) return { state: 'failed', next_attempt_at: null };
  const next = at + delay;
  if (policy.expiresAt != null && next >= policy.expiresAt)
    return { state: 'expired', next_attempt_at: null };
  return { state: 'retrying', next_attempt_at: next };
}

/**
 * Settles a claimed item, only while its lease holds (a late writer after the lease ran out changes
 * nothing and gets false): its status and next attempt from `step` (or, with no step, as they were: a
 * manual attempt that changes no schedule), the kind's own columns from `changes`, and the lease let go.
 * A skipped item sent nothing: the claim's attempt is taken back.
 */
export async function settle<T extends QueueTableName>(
  db: Db,
  queue: QueueTable<T>,
  item: Leased,
  step: Step | null,
  changes: Record<string, string | number | null> = {},
): Promise<boolean> {
  const c = columnsOf(queue);
  const status =
    step === null
      ? {}
      : { status: step.state === 'retrying' ? queue.statuses.pending : queue.statuses[step.state] };
  const result = await untyped(db)
    .updateTable(tableOf(queue))
    .set({
      ...(changes as Partial<QueueView>),
      ...status,
      ...(step === null ? {} : { next_attempt_at: step.next_attempt_at }),
      ...(step?.state === 'skipped' ? countAttempts(c.attempts, -1) : {}),
      locked_until: null,
    })
    .where(c.key, '=', item.key)
    .where('locked_until', '=', item.lease)
    .executeTakeFirst();
  const settled = Number(result.numUpdatedRows) === 1;
  if (settled && step) metrics.deliveryOutcomes.inc({ queue: queue.name, outcome: step.state });
  return settled;
}

/** Whether this claim's lease still holds (read inside the transaction that settles, after its locks). */
export async function leaseHolds<T extends QueueTableName>(
  db: Db,
  queue: QueueTable<T>,
  item: Leased,
): Promise<boolean> {
  const c = columnsOf(queue);
  const row = await untyped(db)
    .selectFrom(tableOf(queue))
    .select('locked_until')
    .where(c.key, '=', item.key)
    .executeTakeFirst();
  return row?.locked_until === item.lease;
}

/**
 * Deletes up to `batch` settled items created (`created_at`) before `before`, never an open one; returns
 * how many.
 */
export async function pruneSettled<T extends QueueTableName>(
  db: Db,
  queue: QueueTable<T>,
  options: { before: number; batch?: number },
): Promise<number> {
  const c = columnsOf(queue);
  const q = untyped(db);
  let old = q
    .selectFrom(tableOf(queue))
    .select(c.key)
    .where('created_at', '<', options.before)
    .where('status', 'not in', queue.open);
  if (options.batch) old = old.limit(options.batch);
  const result = await q.deleteFrom(tableOf(queue)).where(c.key, 'in', old).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * A kind of delivery: which table, how to claim (with what it needs to send loaded), how to send one item
 * and settle it by its answer. Built from the config (`webhookDeliveries(config)`…); driven by
 * workers/delivery-loop.ts, or one turn at a time by tests.
 */
export interface DeliveryKind<Item extends Leased = Leased> {
  queue: Pick<QueueTable, 'name'>;
  /** Pause between turns when nothing is due. */
  pollMs: number;
  /** Sends in flight at once per process. */
  concurrency: number;
  /** Sends in flight at once per group (a webhook), when the queue has groups. */
  perGroup?: number;
  /**
   * Work before claiming, in the same turn (outbox events fanned out into items…); returns whether more
   * of it is waiting (the next turn comes at once).
   */
  prepare?(db: Db, now: number): Promise<boolean>;
  /** Claims up to `limit` due items with what sending them needs. */
  claim(db: Db, options: { now: number; limit: number; skipGroups?: readonly string[] }): Promise<Item[]>;
  /** Gives claimed items back unsent. */
  release(db: Db, items: readonly Item[]): Promise<void>;
  /** Sends one claimed item and settles it; returns its state (null: the lease was lost meanwhile). */
  send(db: Db, item: Item, now: number): Promise<DeliveryState | null>;
}

/**
 * One turn of a kind at `now`, awaited: claims up to `limit` due items and sends them, `concurrency` at a
 * time. The worker loop (workers/delivery-loop.ts) keeps sends going continuously instead; this is the
 * turn tests and one-shot callers run with their own clock.
 */
export async function deliverDueOnce<Item extends Leased>(
  db: Db,
  kind: DeliveryKind<Item>,
  now: number,
  options: { limit?: number; concurrency?: number } = {},
): Promise<{ claimed: number; states: Partial<Record<DeliveryState | 'lost', number>> }> {
  const claimed = await kind.claim(db, { now, limit: options.limit ?? kind.concurrency });
  const states: Partial<Record<DeliveryState | 'lost', number>> = {};
  const waiting = [...claimed];
  const lanes = Array.from(
    { length: Math.min(options.concurrency ?? kind.concurrency, waiting.length) },
    async () => {
      for (let item = waiting.shift(); item; item = waiting.shift()) {
        const state = (await kind.send(db, item, now)) ?? 'lost';
        states[state] = (states[state] ?? 0) + 1;
      }
    },
  );
  await Promise.all(lanes);
  return { claimed: claimed.length, states };
}
