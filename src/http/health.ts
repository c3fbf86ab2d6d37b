/**
 * Probes. /livez: the process answers (no I/O, so a slow database never gets a live process restarted).
 * /readyz: the database answers, every migration ran, and the background workers run (when this process
 * runs them); 503 names the failing check, so a load balancer stops sending traffic and a person sees why.
 * /healthz keeps its old answer (ok, engine, version) and adds the database check.
 */

import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Database } from '../db/database.ts';
import { engineOf } from '../db/engine.ts';
import { migrations } from '../db/migrations/index.ts';

/** What the process reports about its background workers; absent when it runs none (tests, API only). */
export interface WorkerStatus {
  running(): boolean;
}

interface Check {
  ok: boolean;
  message?: string;
}

/** A check that hangs (a dead PostgreSQL host) must still answer the probe, and in time. */
const CHECK_TIMEOUT_MS = 2_000;

async function timed(check: () => Promise<Check>): Promise<Check> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Check>((resolve) => {
    timer = setTimeout(
      () => resolve({ ok: false, message: `no answer within ${CHECK_TIMEOUT_MS} ms` }),
      CHECK_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([
      check().catch((err: unknown) => ({
        ok: false,
        message: err instanceof Error ? err.message : String(err),
      })),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

const databaseCheck = (database: Database) =>
  timed(async () => {
    await sql`select 1`.execute(database.db);
    return { ok: true };
  });

const EXPECTED_MIGRATIONS = Object.keys(migrations);

const migrationsCheck = (database: Database) =>
  timed(async () => {
    const rows = await database.db
      // biome-ignore lint/suspicious/noExplicitAny: Kysely's own bookkeeping table is not in our schema.
      .selectFrom('kysely_migration' as any)
      .select('name')
      .execute();
    const done = new Set(rows.map((r) => String((r as { name: unknown }).name)));
    const pending = EXPECTED_MIGRATIONS.filter((name) => !done.has(name));
    return pending.length === 0 ? { ok: true } : { ok: false, message: `pending: ${pending.join(', ')}` };
  });

export function registerHealth(
  app: FastifyInstance,
  opts: {
    database: Database;
    version: string;
    workers?: WorkerStatus | undefined;
    /** More members for /healthz (the MQTT listener's status). */
    healthzExtra?: () => Record<string, unknown>;
  },
): void {
  const { database } = opts;
  const route = { config: { auth: 'none' as const }, schema: { hide: true } };

  app.get('/livez', route, async () => ({ ok: true }));

  app.get('/readyz', route, async (_request, reply) => {
    const checks: Record<string, Check> = {
      database: await databaseCheck(database),
      migrations: await migrationsCheck(database),
    };
    if (opts.workers) {
      checks.workers = opts.workers.running()
        ? { ok: true }
        : { ok: false, message: 'background workers are not running' };
    }
    const failing = Object.keys(checks).filter((name) => !checks[name]?.ok);
    reply.status(failing.length === 0 ? 200 : 503);
    return { ready: failing.length === 0, failing, checks };
  });

  app.get('/healthz', route, async (_request, reply) => {
    const db = await databaseCheck(database);
    reply.status(db.ok ? 200 : 503);
    return {
      ok: db.ok,
      engine: engineOf(database.db),
      version: opts.version,
      database: db.ok ? 'ok' : db.message,
      ...opts.healthzExtra?.(),
    };
  });
}
