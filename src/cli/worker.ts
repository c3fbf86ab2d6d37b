/**
 * `worker`: background jobs only, no HTTP. Several of these can share the webhook work on PostgreSQL
 * (deliveries are claimed with FOR UPDATE SKIP LOCKED). SIGTERM stops claiming, lets sends in flight
 * finish, then exits 0.
 */
import Fastify from 'fastify';
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { engineOf } from '../db/engine.ts';
import { loggerOptions } from '../http/logging.ts';
import { JOBS } from '../workers/jobs.ts';
import { startWorkers } from '../workers/runner.ts';

export async function worker(): Promise<void> {
  // This process exists to send webhooks and notifications, whatever FARMSTEAD_WEBHOOK_WORKER and
  // FARMSTEAD_NOTIFICATION_WORKER say for `serve` (the two share one environment file in deploy/).
  const config = { ...loadConfig(), webhookWorkerInProcess: true, notificationWorkerInProcess: true };
  const database = await openDatabase(config);
  // Fastify's logger (pino) without a server, so worker logs look like the server's.
  const log = Fastify({ logger: loggerOptions(config) }).log;
  const workers = startWorkers(JOBS, { database, config, log });
  log.info({ engine: engineOf(database.db), jobs: JOBS.map((j) => j.name) }, 'worker started');

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    log.info({ signal }, 'worker stopping: finishing deliveries in flight');
    try {
      await workers.stop();
      await database.close();
      process.exit(0);
    } catch (err) {
      log.error({ err }, 'unclean shutdown');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}
