/**
 * The notification bus between processes: "something changed for device X, look in the database".
 * PostgreSQL: NOTIFY, delivered to every listening process, and one dedicated connection per process that
 * LISTENs. SQLite: one process owns the database, so an in-process emitter. Payloads are hints, never data:
 * a listener always reads the database, so a lost or spurious notification costs a delay or a query, never
 * a wrong answer.
 *
 * A transaction run by `inTransaction` does not NOTIFY itself: its notifications are held and sent after it
 * commits (not at all on rollback), batched with those of the process's other commits in one short
 * transaction of their own (`synchronous_commit = off`: a hint lost in a crash costs a delay). A NOTIFY at
 * commit takes a lock over the whole database until the commit's WAL flush ends, so every notifying commit
 * waited for the one before: measured with pgbench (BENCHMARKS.md, "The bus"), inserts that notified in their
 * own commit ran at a sixth of plain inserts with 32 clients. A listener hears of a change a moment after its
 * commit, as before, never before it.
 */
import { EventEmitter } from 'node:events';
import { sql } from 'kysely';
import type pg from 'pg';
import { isPostgres } from './engine.ts';
import { loadPg } from './pg-driver.ts';
import type { Db } from './schema.ts';

/** Every channel, written once: a misspelt channel fails to compile. */
export const BUS_CHANNELS = {
  /** Payload: a device id whose commands changed (queued). */
  deviceCommands: 'farmstead_device_commands',
  /** Payload: a device id whose key was rotated or that was deleted. */
  deviceKeys: 'farmstead_device_keys',
  /** Payload: an API key id that was revoked (processes drop it from their key cache). */
  apiKeys: 'farmstead_api_keys',
  /** Payload: a farm id whose devices were all deleted (farm deleted or sample farm reset). */
  farmDevices: 'farmstead_farm_devices',
  /** Payload: a farm id whose outbox got an event (the live stream reads it; modules/stream). */
  farmOutbox: 'farmstead_farm_outbox',
} as const;

export type BusChannel = (typeof BUS_CHANNELS)[keyof typeof BUS_CHANNELS];

// Process-wide: with SQLite every app in this process shares it. Payloads are device or farm ids (unique
// across databases), and listeners look them up in their own database, so sharing is harmless.
const local = new EventEmitter();
local.setMaxListeners(0);

/** Notifications a transaction (run by inTransaction) made: channel → payloads, sent once it commits. */
const heldIn = new WeakMap<Db, Map<BusChannel, Set<string>>>();

/** Announces `payload` on `channel`: after `db`'s transaction commits when it is one, else at once. */
export async function notify(db: Db, channel: BusChannel, payload: string): Promise<void> {
  if (isPostgres(db)) {
    const held = db.isTransaction ? heldIn.get(db) : undefined;
    if (held) {
      let payloads = held.get(channel);
      if (!payloads) {
        payloads = new Set();
        held.set(channel, payloads);
      }
      payloads.add(payload);
      return;
    }
    // A transaction of another kind (none is today) notifies at its commit, as NOTIFY does.
    await sql`select pg_notify(${channel}, ${payload})`.execute(db);
    return;
  }
  // Next turn of the event loop: a listener's query then queues behind the caller's transaction.
  setImmediate(() => local.emit(channel, payload));
}

/**
 * For `inTransaction`: holds `trx`'s notifications, and gives the function to call once it has committed,
 * which hands them to `db`'s sender (one per database handle and process).
 */
export function holdNotifications(db: Db, trx: Db): () => void {
  if (!isPostgres(db)) return () => {};
  const held = new Map<BusChannel, Set<string>>();
  heldIn.set(trx, held);
  return () => {
    if (held.size > 0) senderFor(db).add(held);
  };
}

/**
 * Sends the notifications of the process's commits: at most one short transaction in flight; what commits
 * meanwhile waits for the next, so under load one NOTIFY transaction carries many commits' hints, each
 * channel and payload once.
 */
class Sender {
  private queued = new Map<BusChannel, Set<string>>();
  private running = false;
  private readonly db: Db;
  constructor(db: Db) {
    this.db = db;
  }

  add(held: ReadonlyMap<BusChannel, ReadonlySet<string>>): void {
    for (const [channel, payloads] of held) {
      let queued = this.queued.get(channel);
      if (!queued) {
        queued = new Set();
        this.queued.set(channel, queued);
      }
      for (const payload of payloads) queued.add(payload);
    }
    if (!this.running) void this.run();
  }

  private async run(): Promise<void> {
    this.running = true;
    try {
      while (this.queued.size > 0) {
        const batch = this.queued;
        this.queued = new Map();
        const channels: string[] = [];
        const payloads: string[] = [];
        for (const [channel, set] of batch) {
          for (const payload of set) {
            channels.push(channel);
            payloads.push(payload);
          }
        }
        try {
          await this.db.transaction().execute(async (trx) => {
            await sql`set local synchronous_commit = off`.execute(trx);
            await sql`select pg_notify(n.c, n.p) from unnest(${channels}::text[], ${payloads}::text[]) as n(c, p)`.execute(
              trx,
            );
          });
        } catch {
          // Hints: a database gone (the process closing) or a failed send costs listeners a delay only.
        }
      }
    } finally {
      this.running = false;
    }
  }
}

const senders = new WeakMap<Db, Sender>();

function senderFor(db: Db): Sender {
  let sender = senders.get(db);
  if (!sender) {
    sender = new Sender(db);
    senders.set(db, sender);
  }
  return sender;
}

export type BusHandler = (payload: string) => void;

export interface Bus {
  listen(channel: BusChannel, handler: BusHandler): Promise<void>;
  close(): Promise<void>;
}

export interface BusOptions {
  /** PostgreSQL URL; null for the in-process bus (SQLite). */
  databaseUrl: string | null;
  /** Called after the PostgreSQL connection was lost and re-established: notifications may have been missed. */
  onReconnect?: () => void;
  onError?: (err: Error) => void;
}

/** The in-process bus: what SQLite uses. */
function openLocalBus(): Bus {
  const subscribed: Array<[BusChannel, BusHandler]> = [];
  return {
    async listen(channel, handler) {
      local.on(channel, handler);
      subscribed.push([channel, handler]);
    },
    async close() {
      for (const [channel, handler] of subscribed) local.off(channel, handler);
      subscribed.length = 0;
    },
  };
}

/** One LISTEN connection, re-opened (with a growing pause) when it drops. */
function openPgBus(url: string, options: BusOptions): Bus {
  const handlers = new Map<string, BusHandler[]>();
  let client: pg.Client | null = null;
  let connecting: Promise<pg.Client> | null = null;
  let closed = false;
  let retryMs = 100;

  const connect = async (): Promise<pg.Client> => {
    const { Client } = await loadPg();
    const next = new Client({ connectionString: url });
    next.on('notification', (message) => {
      for (const handler of handlers.get(message.channel) ?? []) handler(message.payload ?? '');
    });
    next.on('error', (err) => {
      options.onError?.(err);
      if (client === next) client = null;
      next.end().catch(() => {});
      scheduleReconnect();
    });
    await next.connect();
    for (const channel of handlers.keys()) await next.query(`listen ${channel}`);
    return next;
  };

  const ensure = (): Promise<pg.Client> => {
    if (client) return Promise.resolve(client);
    connecting ??= connect().then(
      (c) => {
        connecting = null;
        if (closed) {
          void c.end().catch(() => {});
          throw new Error('bus closed');
        }
        client = c;
        retryMs = 100;
        return c;
      },
      (err: unknown) => {
        connecting = null;
        throw err;
      },
    );
    return connecting;
  };

  const scheduleReconnect = (): void => {
    if (closed) return;
    const timer = setTimeout(() => {
      ensure().then(
        () => options.onReconnect?.(),
        (err: unknown) => {
          options.onError?.(err as Error);
          scheduleReconnect();
        },
      );
    }, retryMs);
    timer.unref();
    retryMs = Math.min(retryMs * 2, 5_000);
  };

  return {
    async listen(channel, handler) {
      const known = handlers.get(channel);
      if (known) known.push(handler);
      else handlers.set(channel, [handler]);
      const c = await ensure();
      if (!known) await c.query(`listen ${channel}`);
    },
    async close() {
      closed = true;
      const c = client ?? (await connecting?.catch(() => null)) ?? null;
      client = null;
      await c?.end().catch(() => {});
    },
  };
}

/** The bus for this process: LISTEN on PostgreSQL, in-process on SQLite. */
export function openBus(options: BusOptions): Bus {
  return options.databaseUrl ? openPgBus(options.databaseUrl, options) : openLocalBus();
}
