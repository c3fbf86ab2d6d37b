/**
 * Entry point. `serve` (default) runs the service; `accounts create --name NAME [--json]` creates an
 * account with its sample farm and prints its keys; `worker` runs only the background jobs (webhook
 * delivery included), with no HTTP listener.
 */
import { parseArgs } from 'node:util';
import Fastify from 'fastify';
import { buildApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { openDatabase } from './db/database.ts';
import { bootstrapFirstAccount, createAccount, type NewAccount } from './modules/accounts/service.ts';
import { UsageCounter } from './modules/usage/counter.ts';
import { JOBS } from './workers/jobs.ts';
import { startWorkers } from './workers/runner.ts';

function printFirstAccount(account: NewAccount, port: number, host: string): void {
  const line = '='.repeat(72);
  process.stdout.write(
    [
      '',
      line,
      ' Farmstead: first start. An account was created with a sample farm.',
      ' These keys are shown ONCE; store them now (only their hashes are kept).',
      '',
      `   account        ${account.account_id}`,
      `   live key       ${account.live_key}`,
      `   test key       ${account.test_key}   (works on the sample farm)`,
      `   sample farm    ${account.sample_farm_id}`,
      '',
      ` Try: curl -H "Authorization: Bearer ${account.test_key}" http://${host}:${port}/v1/farms`,
      line,
      '',
    ].join('\n'),
  );
}

async function serve(): Promise<void> {
  const config = loadConfig();
  const database = await openDatabase(config);
  const usage = new UsageCounter(database.db, config.usageFlushMs);
  const app = await buildApp({ config, database, usage });

  const first = await bootstrapFirstAccount(database);
  await app.listen({ host: config.host, port: config.port });
  // A taken MQTT port is logged and reported by /healthz; the service runs on without MQTT over TCP.
  await app.mqtt.listenTcp(config.mqttPort, config.host);
  if (first) printFirstAccount(first, config.port, config.host);
  const workers = startWorkers(JOBS, { database, config, log: app.log });

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing requests in flight');
    try {
      await app.close();
      await workers.stop();
      await usage.close();
      await database.close();
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'unclean shutdown');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
}

async function accounts(args: string[]): Promise<void> {
  const [action, ...rest] = args;
  if (action !== 'create') throw new UsageError('usage: cli accounts create --name NAME [--json]');
  const { values } = parseArgs({
    args: rest,
    options: { name: { type: 'string' }, json: { type: 'boolean', default: false } },
    strict: true,
  });
  if (!values.name) throw new UsageError('accounts create needs --name NAME');
  const config = loadConfig();
  const database = await openDatabase(config);
  try {
    const account = await createAccount(database.db, { name: values.name });
    const out = {
      account_id: account.account_id,
      live_key: account.live_key,
      test_key: account.test_key,
      sample_farm_id: account.sample_farm_id,
    };
    process.stdout.write(
      values.json
        ? `${JSON.stringify(out)}\n`
        : `account ${out.account_id}\nlive key ${out.live_key}\ntest key ${out.test_key}\nsample farm ${out.sample_farm_id}\n`,
    );
  } finally {
    await database.close();
  }
}

/**
 * Background jobs only, no HTTP: several of these can share the webhook work on PostgreSQL (deliveries are
 * claimed with FOR UPDATE SKIP LOCKED). SIGTERM stops claiming, lets sends in flight finish, then exits 0.
 */
async function worker(args: string[]): Promise<void> {
  if (args.length > 0) throw new UsageError('usage: cli worker (configured by environment variables only)');
  // This process exists to deliver webhooks, whatever FARMSTEAD_WEBHOOK_WORKER says for `serve`.
  const config = { ...loadConfig(), webhookWorkerInProcess: true };
  const database = await openDatabase(config);
  // Fastify's logger (pino) without a server, so worker logs look like the server's.
  const log = Fastify({ logger: { level: config.logLevel } }).log;
  const workers = startWorkers(JOBS, { database, config, log });
  log.info({ engine: database.engine, jobs: JOBS.map((j) => j.name) }, 'worker started');

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

class UsageError extends Error {}

async function main(argv: string[]): Promise<void> {
  const [command = 'serve', ...rest] = argv;
  switch (command) {
    case 'serve':
      return serve();
    case 'accounts':
      return accounts(rest);
    case 'worker':
      return worker(rest);
    case 'simulate': {
      // Loaded on demand: the simulator's MQTT client is not needed to serve.
      const { simulate, SimulateUsageError } = await import('./cli/simulate.ts');
      return simulate(rest, loadConfig()).catch((err: unknown) => {
        throw err instanceof SimulateUsageError ? new UsageError(err.message) : err;
      });
    }
    default:
      throw new UsageError(`unknown command "${command}"; commands: serve, accounts create, worker`);
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof UsageError || err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
