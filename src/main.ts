/**
 * Entry point. `serve` runs the service; `accounts create --name NAME [--json]` creates an account with
 * its sample farm and prints its keys; `worker` runs only the background jobs (webhook delivery included),
 * with no HTTP listener; no command, `help`, `--help` or `-h` print the usage.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import Fastify from 'fastify';
import { buildApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { ensureDataDir, openDatabase } from './db/database.ts';
import { bootstrapFirstAccount, createAccount, type NewAccount } from './modules/accounts/service.ts';
import { UsageCounter } from './modules/usage/counter.ts';
import { JOBS } from './workers/jobs.ts';
import { startWorkers } from './workers/runner.ts';

/** Name of the file, in the data folder, that holds the first start's keys (mode 0600). */
const FIRST_START_KEYS_FILE = 'first-start-keys.txt';

/**
 * The first account's keys go to a file only this user can read, not only to stdout: a service's stdout
 * usually ends up in logs that others read. On a terminal (someone trying Farmstead out) they are printed
 * too, so the first steps stay one copy-paste.
 */
function saveFirstAccount(account: NewAccount, dataDir: string): string {
  ensureDataDir(dataDir);
  const file = path.join(dataDir, FIRST_START_KEYS_FILE);
  const text = [
    `account      ${account.account_id}`,
    `live key     ${account.live_key}`,
    `test key     ${account.test_key}`,
    `sample farm  ${account.sample_farm_id}`,
    '',
  ].join('\n');
  writeFileSync(file, text, { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}

/** `file` null: the keys file could not be written, so the keys are printed whatever the output (else lost). */
function printFirstAccount(
  account: NewAccount,
  where: { port: number; host: string; file: string | null; showKeys: boolean },
): void {
  const line = '='.repeat(72);
  const keys =
    where.showKeys || where.file === null
      ? [
          `   live key       ${account.live_key}`,
          `   test key       ${account.test_key}   (works on the sample farm)`,
        ]
      : ['   keys           not printed: this output is not a terminal and may end up in service logs'];
  const intro =
    where.file === null
      ? [
          ` The keys file (${FIRST_START_KEYS_FILE} in FARMSTEAD_DATA) could not be written, so here are the keys:`,
          " store them now; only the keys' hashes are kept, so they cannot be shown again.",
        ]
      : [
          ` Its live and test keys are in ${where.file}`,
          ' (readable by this user only). Store them somewhere safe, then delete that file:',
          " only the keys' hashes are kept, so they cannot be shown again.",
        ];
  process.stdout.write(
    [
      '',
      line,
      ' Farmstead: first start. An account was created with a sample farm.',
      ...intro,
      '',
      `   account        ${account.account_id}`,
      ...keys,
      `   sample farm    ${account.sample_farm_id}`,
      '',
      ` Try: curl -H "Authorization: Bearer <test key>" http://${where.host}:${where.port}/v1/farms`,
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
  if (first) {
    let file: string | null = null;
    try {
      file = saveFirstAccount(first, config.dataDir);
    } catch (err) {
      app.log.warn({ err, dataDir: config.dataDir }, 'could not write the first start keys file');
    }
    printFirstAccount(first, {
      port: config.port,
      host: config.host,
      file,
      showKeys: process.stdout.isTTY === true,
    });
  }
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

const USAGE = `usage: npm run cli -- <command>   (npm start runs \`serve\`)

commands:
  serve                                   run the service (HTTP API, MCP, ingest, background jobs)
  accounts create --name NAME [--json]    create an account with its sample farm; prints its keys
  worker                                  run only the background jobs (webhook delivery…), no HTTP
  simulate --farm FARM [--devices N] [--transport http|mqtt] [--every 10s] [--speed 60] [--hours H] [--key rk_…]
                                          simulated devices report to a running service (README.md)
  help                                    show this text (also --help, -h, or no command)

Configuration is read from environment variables; see README.md.
`;

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return;
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
      throw new UsageError(`unknown command "${command}"\n\n${USAGE}`);
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
