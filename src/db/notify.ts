/**
 * The notification bus between processes: "something changed for device X, look in the database".
 * PostgreSQL: NOTIFY on the caller's transaction (delivered to every listening process at commit, not at
 * all on rollback) and one dedicated connection per process that LISTENs. SQLite: one process owns the
 * database, so an in-process emitter. Payloads are hints, never data: a listener always reads the
 * database, so a lost or spurious notification costs a delay or a query, never a wrong answer.
 */
import { EventEmitter } from 'node:events';
import { sql } from 'kysely';
import pg from 'pg';
import { isPostgres } from './engine.ts';
import type { Db } from './schema.ts';

/** Every channel, written once: a misspelt channel fails to compile. */
export const BUS_CHANNELS = {
  /** Payload: a device id whose commands changed (queued). */
  deviceCommands: 'farmstead_device_commands',
  /** Payload: a device id whose key was rotated or that was deleted. */
  deviceKeys: 'farmstead_device_keys',
  /** Payload: a farm id whose outbox got an event (the live stream reads it; modules/stream). */
  farmOutbox: 'farmstead_farm_outbox',
} as const;

export type BusChannel = (typeof BUS_CHANNELS)[keyof typeof BUS_CHANNELS];

// Process-wide: with SQLite every app in this process shares it. Payloads are device or farm ids (unique
// across databases), and listeners look them up in their own database, so sharing is harmless.
const local = new EventEmitter();
local.setMaxListeners(0);

/** Announces `payload` on `channel`; on PostgreSQL inside `db`'s transaction when it is one. */
export async function notify(db: Db, channel: BusChannel, payload: string): Promise<void> {
  if (isPostgres(db)) {
    await sql`select pg_notify(${channel}, ${payload})`.execute(db);
    return;
  }
  // Next turn of the event loop: a listener's query then queues behind the caller's transaction.
  setImmediate(() => local.emit(channel, payload));
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
    const next = new pg.Client({ connectionString: url });
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
