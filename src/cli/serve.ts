/**
 * `serve`: the HTTP service with its background jobs (what `npm start` runs). On an empty database it
 * creates the first account and hands its keys over once. SIGTERM/SIGINT: stop accepting, end live streams
 * and MQTT sessions at once (their clients reconnect elsewhere; app preClose hooks), let requests in flight
 * finish (Fastify's close waits for them), stop the jobs, flush usage, close the database.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import { type Database, ensureDataDir, openDatabase } from '../db/database.ts';
import { recordServerFact } from '../db/server-facts.ts';
import { bootstrapFirstAccount, type NewAccount } from '../modules/accounts/service.ts';
import { repairFutureTimes } from '../modules/ingest/clock-repair.ts';
import { createSetupLink, setupUrl } from '../modules/people/links.ts';
import { UsageCounter } from '../modules/usage/counter.ts';
import { JOBS } from '../workers/jobs.ts';
import { type RunningWorkers, startWorkers } from '../workers/runner.ts';
import { CliFailure } from './output.ts';

/** Name of the file, in the data folder, that holds the first start's keys (mode 0600). */
const FIRST_START_KEYS_FILE = 'first-start-keys.txt';

/** The first account, with the one-time link where its owner sets their email and password. */
type FirstAccount = NewAccount & { setup_url: string };

/**
 * The first account's keys and owner setup link go to a file only this user can read, not only to stdout: a service's stdout
 * usually ends up in logs that others read. On a terminal (someone trying Farmstead out) they are printed
 * too, so the first steps stay one copy-paste.
 */
function saveFirstAccount(account: FirstAccount, dataDir: string): string {
  ensureDataDir(dataDir);
  const file = path.join(dataDir, FIRST_START_KEYS_FILE);
  const text = [
    `account      ${account.account_id}`,
    `live key     ${account.live_key}`,
    `test key     ${account.test_key}`,
    `sample farm  ${account.sample_farm_id}`,
    `owner setup  ${account.setup_url}   (console sign-in: once, within 24 hours)`,
    '',
  ].join('\n');
  writeFileSync(file, text, { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}

/** `file` null: the keys file could not be written, so the keys are printed whatever the output (else lost). */
function printFirstAccount(
  account: FirstAccount,
  where: { port: number; host: string; file: string | null; showKeys: boolean },
): void {
  const line = '='.repeat(72);
  const keys =
    where.showKeys || where.file === null
      ? [
          `   live key       ${account.live_key}`,
          `   test key       ${account.test_key}   (works on the sample farm)`,
          `   owner setup    ${account.setup_url}`,
          '                  (open it to set your email and password for the console: once, within 24 hours)',
        ]
      : [
          '   keys and the owner setup link: not printed, since this output is not a terminal and may end up',
          '                  in service logs',
        ];
  const intro =
    where.file === null
      ? [
          ` The keys file (${FIRST_START_KEYS_FILE} in FARMSTEAD_DATA) could not be written, so here are the keys:`,
          " store them now; only the keys' hashes are kept, so they cannot be shown again.",
        ]
      : [
          ` Its live and test keys and the owner's setup link are in ${where.file}`,
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

/** The owner's way into the console; `cli people invite` makes another if this one is lost or expires. */
async function withOwnerSetupLink(account: NewAccount, database: Database, publicUrl: string) {
  const input = { accountId: account.account_id, email: null, role: 'owner' as const };
  const link = await createSetupLink(database.db, input, Date.now());
  return { ...account, setup_url: setupUrl(publicUrl, link.token) };
}

/** The one line a port that cannot be listened on gets (exit 1), instead of a stack. */
function portFailure(err: unknown, host: string, port: number): CliFailure | null {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code === 'EADDRINUSE') {
    return new CliFailure(
      `PORT ${port} is already in use on ${host}: stop what listens there, or set PORT to a free port.`,
    );
  }
  if (code === 'EACCES' || code === 'EADDRNOTAVAIL') {
    return new CliFailure(`PORT ${port} cannot be listened on at HOST ${host} (${code}): set PORT or HOST.`);
  }
  return null;
}

/**
 * Listens on the port and lets it go at once: a taken port is refused before anything is created (no data
 * folder, no database file), so a mistaken start leaves nothing behind and nothing running.
 */
async function checkPortFree(host: string, port: number): Promise<void> {
  const probe = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen({ host, port, exclusive: true }, resolve);
    });
  } catch (err) {
    throw portFailure(err, host, port) ?? err;
  }
  await new Promise<void>((resolve) => probe.close(() => resolve()));
}

export async function serve(): Promise<void> {
  const config = loadConfig();
  await checkPortFree(config.host, config.port);
  const database = await openDatabase(config, { backgroundCheckpoints: true });
  const usage = new UsageCounter(database.db, config.usageFlushMs);
  let workers: RunningWorkers | null = null;
  const app = await buildApp({ config, database, usage, workers: { running: () => workers !== null } });

  // Watermarks and latest values a device's wrong clock left in the future would blind alerts until then.
  const repaired = await repairFutureTimes(database.db, Date.now(), config.maxClockSkewS * 1000);
  if (repaired.watermarks + repaired.breaches + repaired.latest > 0) {
    app.log.warn(repaired, 'repaired alert watermarks and latest values stored in the future');
  }

  const created = await bootstrapFirstAccount(database);
  const first = created ? await withOwnerSetupLink(created, database, config.publicUrl) : null;
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (err) {
    // Taken between the check and now (another start at the same moment): the same line, and nothing left running.
    const failure = portFailure(err, config.host, config.port);
    if (!failure) throw err;
    await app.close();
    await usage.close();
    await database.close();
    throw failure;
  }
  // What `cli people invite` prints links with when its own environment does not say (docs/people.md).
  await recordServerFact(database.db, 'public_url', config.publicUrl, Date.now());
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
  workers = startWorkers(JOBS, { database, config, log: app.log });
  const running = workers;

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing requests in flight');
    try {
      await app.close();
      await running.stop();
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
