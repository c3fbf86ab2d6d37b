/**
 * Where an ingest report's time goes, statement by statement, without HTTP: calls the ingest service
 * (`ingestReport`) in this process for 50 house devices sending the benchmark's 100-reading reports one
 * after another, with Kysely's query log timing every statement. Prints the time per report, the SQL time
 * per report and each statement's share.
 *
 *   node bench/ingest-statements.ts [sqlite|postgres] [readings per report, default 100] [rules]
 *   (ROUNDS=n rounds of 50 reports, default 30; CONCURRENT=1 sends each round's reports at once)
 *
 * `rules`: the farm first gets the rules phase's 20 custom rules and `for_s` on every default rule
 * (bench/rules.ts), as `BENCH_PHASES=rules npm run bench` measures them over HTTP.
 *
 * SERVER_DB=1 opens the database as the server does (`openDatabase`: on SQLite the reader, and statements
 * run straight on the connections, db/sqlite-direct.ts), so the time per report is the server's; no
 * statement is timed then (the server's own query log feeds its metrics instead).
 *
 * Experiments (what the numbers in BENCHMARKS.md were measured with):
 *   SQLITE_WAL_AUTOCHECKPOINT=10000   SQLite checkpoints less often (default 1000 pages)
 *   PG_NAMED_STATEMENTS=0             PostgreSQL: no named prepared statements (the server names the
 *                                     statements it runs most: src/db/named-statements.ts)
 */
import path from 'node:path';
import { Kysely, type LogEvent, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { nameStatementsOn } from '../src/db/named-statements.ts';
import type { DB } from '../src/db/schema.ts';
import { openSqlite } from '../src/db/sqlite-adapter.ts';
import { createAccount } from '../src/modules/accounts/service.ts';
import { createDevice } from '../src/modules/devices/service.ts';
import { createFarm } from '../src/modules/farms/service.ts';
import { ingestReport } from '../src/modules/ingest/service.ts';
import { createBenchDatabase } from './lib/db.ts';
import { pastOrigin, reportReadings } from './lib/reports.ts';
import { addBenchRules } from './rules.ts';

const engine = process.argv[2] === 'postgres' ? 'postgres' : 'sqlite';
const size = Number(process.argv[3] ?? 100);
const withRules = process.argv[4] === 'rules';
const WARM_ROUNDS = 10;
const ROUNDS = Number(process.env.ROUNDS ?? 30);
/** CONCURRENT=1: each round's 50 reports at once (as 50 devices reporting together), not one at a time. */
const CONCURRENT = process.env.CONCURRENT === '1';

const stats = new Map<string, { n: number; ms: number }>();
let logging = false;
const log = (event: LogEvent) => {
  if (!logging) return;
  const key = event.query.sql.replace(/\s+/g, ' ').slice(0, 100);
  const s = stats.get(key) ?? { n: 0, ms: 0 };
  s.n++;
  s.ms += event.queryDurationMillis;
  stats.set(key, s);
};

const database = await createBenchDatabase(engine);
let db: Kysely<DB>;
let closeServerDb: (() => Promise<void>) | null = null;
if (process.env.SERVER_DB === '1') {
  const opened = await openDatabase(database.config, { migrate: false });
  db = opened.db;
  closeServerDb = opened.close;
} else if (engine === 'sqlite') {
  const { database: sqlite, raw } = openSqlite(path.join(database.config.dataDir, 'farmstead.db'));
  const checkpoint = process.env.SQLITE_WAL_AUTOCHECKPOINT;
  if (checkpoint) raw.exec(`PRAGMA wal_autocheckpoint = ${Number(checkpoint)}`);
  db = new Kysely<DB>({ dialect: new SqliteDialect({ database: sqlite }), log });
} else {
  const pool = new pg.Pool({ connectionString: database.config.databaseUrl ?? '', max: 1 });
  // As the server does (src/db/database.ts), unless PG_NAMED_STATEMENTS=0.
  if (process.env.PG_NAMED_STATEMENTS !== '0') pool.on('connect', (client) => nameStatementsOn(client));
  db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }), log });
}
try {
  await migrateToLatest(db);
  const account = await createAccount(db, { name: 'Statements' });
  const scope = { accountId: account.account_id, mode: 'live' as const };
  const farm = await createFarm(db, scope, { name: 'Farm' });
  const devices = [];
  for (let i = 0; i < 50; i++) {
    devices.push(await createDevice(db, scope, farm.id, { type: 'house', name: `House ${i + 1}` }));
  }
  if (withRules) await addBenchRules(database, account.account_id, farm.id);
  const origin = pastOrigin();
  const body = (seq: number) => ({
    readings: reportReadings(origin, seq, size).map((r) => ({
      metric: r.metric,
      value: r.value,
      at: new Date(r.at).toISOString(),
    })),
  });
  for (let seq = 0; seq < WARM_ROUNDS; seq++) {
    for (const d of devices) await ingestReport(db, { deviceId: d.id }, body(seq));
  }
  logging = true;
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  let reports = 0;
  for (let seq = WARM_ROUNDS; seq < WARM_ROUNDS + ROUNDS; seq++) {
    if (CONCURRENT) {
      await Promise.all(devices.map((d) => ingestReport(db, { deviceId: d.id }, body(seq))));
      reports += devices.length;
      continue;
    }
    for (const d of devices) {
      await ingestReport(db, { deviceId: d.id }, body(seq));
      reports++;
    }
  }
  const total = performance.now() - started;
  // This process's CPU a report: steadier than the wall time on a shared machine.
  const cpu = process.cpuUsage(cpuBefore);
  const sqlMs = [...stats.values()].reduce((a, s) => a + s.ms, 0);
  const statements = [...stats.values()].reduce((a, s) => a + s.n, 0);
  process.stdout.write(
    `${engine}, ${size}-reading reports${withRules ? ', 20 custom rules + for_s on the defaults' : ''}, ${CONCURRENT ? '50 at once' : 'one at a time'}: ${(total / reports).toFixed(3)} ms per report, CPU ${((cpu.user + cpu.system) / reports).toFixed(0)} µs ` +
      `(${Math.round((reports * size) / (total / 1000)).toLocaleString('en-US')} readings/s); ` +
      `SQL ${(sqlMs / reports).toFixed(3)} ms in ${(statements / reports).toFixed(1)} statements\n`,
  );
  for (const [text, s] of [...stats].sort((a, b) => b[1].ms - a[1].ms)) {
    process.stdout.write(
      `${(s.ms / reports).toFixed(3).padStart(7)} ms  ${(s.n / reports).toFixed(2).padStart(5)} ×  ${text}\n`,
    );
  }
} finally {
  await (closeServerDb ? closeServerDb() : db.destroy());
  await database.drop();
}
