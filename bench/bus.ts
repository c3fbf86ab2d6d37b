/**
 * The bus's cost on PostgreSQL (issue 48, "The bus"): does NOTIFY at commit limit the commits of N processes?
 * A NOTIFY takes a lock over the whole database from its transaction's pre-commit until the commit's WAL
 * flush has ended, so notifying commits run one at a time. `pgbench` runs four scripts against a throwaway
 * database, with three listening connections (three Farmstead processes) draining the notifications, at 8
 * and 32 clients, each for BENCH_SECONDS:
 *
 *   plain         a report's transaction: an insert, commit (the reference)
 *   at commit     the same with pg_notify inside it (the bus before: every report that wrote an event)
 *   after, each   the insert's commit, then a short transaction of its own with the notify and
 *                 synchronous_commit off (the bus after, if every commit sent its own)
 *   after, batch  the same, one notify transaction per ten commits (the bus after, under load: a process's
 *                 commits that end while one send is in flight go together in the next; src/db/notify.ts)
 *
 *   npx node bench/bus.ts     (FARMSTEAD_BENCH_PG_URL=<admin URL>, default the local server; BENCH_SECONDS=8)
 *
 * Needs `pgbench` (Debian's postgresql-client). Never part of `npm test`.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const ADMIN_URL = process.env.FARMSTEAD_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CLIENTS = [8, 32];
const LISTENERS = 3;
const CHANNEL = 'farmstead_farm_outbox';

const INSERT = `INSERT INTO report (device, v) VALUES ('dev_' || (random() * 1000)::int, random());`;
const NOTIFY_AFTER = `BEGIN;
SET LOCAL synchronous_commit = off;
SELECT pg_notify('${CHANNEL}', 'farm_' || (random() * 10)::int);
COMMIT;`;

const SCRIPTS = {
  plain: `BEGIN;\n${INSERT}\nCOMMIT;\n`,
  'at commit': `BEGIN;\n${INSERT}\nSELECT pg_notify('${CHANNEL}', 'farm_' || (random() * 10)::int);\nCOMMIT;\n`,
  'after, each': `BEGIN;\n${INSERT}\nCOMMIT;\n${NOTIFY_AFTER}\n`,
  'after, batch': `BEGIN;\n${INSERT}\nCOMMIT;\n\\set batch random(1, 10)\n\\if :batch = 1\n${NOTIFY_AFTER}\n\\endif\n`,
} as const;

export interface BusRow {
  script: keyof typeof SCRIPTS;
  clients: number;
  tps: number;
  latency_ms: number;
  /** tps over the plain script's at the same client count. */
  ratio: number;
}

/** Runs pgbench without blocking this process: the listeners drain their notifications meanwhile. */
async function pgbench(
  url: string,
  file: string,
  clients: number,
): Promise<{ tps: number; latency_ms: number }> {
  const { stdout: out } = await promisify(execFile)(
    'pgbench',
    ['-n', '-f', file, '-c', String(clients), '-j', '2', '-T', String(SECONDS), url],
    { encoding: 'utf8' },
  );
  const tps = Number(/tps = ([\d.]+)/.exec(out)?.[1]);
  const latency = Number(/latency average = ([\d.]+) ms/.exec(out)?.[1]);
  return { tps, latency_ms: latency };
}

export async function benchBus(log: (line: string) => void = console.log): Promise<BusRow[]> {
  const name = `farmstead_bench_bus_${process.pid}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'farmstead-bus-'));
  const listeners: pg.Client[] = [];
  let heard = 0;
  try {
    const setup = new pg.Client({ connectionString: url.href });
    await setup.connect();
    await setup.query(
      'create table report (id bigserial primary key, device text, at timestamptz default now(), v double precision)',
    );
    await setup.end();
    for (let i = 0; i < LISTENERS; i++) {
      const listener = new pg.Client({ connectionString: url.href });
      await listener.connect();
      listener.on('notification', () => heard++);
      await listener.query(`listen ${CHANNEL}`);
      listeners.push(listener);
    }
    const rows: BusRow[] = [];
    for (const clients of CLIENTS) {
      let plain = 0;
      for (const [script, text] of Object.entries(SCRIPTS) as [keyof typeof SCRIPTS, string][]) {
        const file = path.join(dir, `${script.replace(/\W+/g, '-')}.sql`);
        writeFileSync(file, text);
        const result = await pgbench(url.href, file, clients);
        if (script === 'plain') plain = result.tps;
        const row = { script, clients, ...result, ratio: plain > 0 ? result.tps / plain : 0 };
        rows.push(row);
        log(
          `bus: ${clients} clients, ${script}: ${result.tps.toFixed(0)} tps, ${result.latency_ms} ms average`,
        );
      }
    }
    log(`bus: the ${LISTENERS} listeners heard ${heard} notifications`);
    return rows;
  } finally {
    for (const listener of listeners) await listener.end().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

if (import.meta.main) {
  const rows = await benchBus();
  console.table(
    rows.map((r) => ({ ...r, tps: Math.round(r.tps), ratio: `${(r.ratio * 100).toFixed(0)} %` })),
  );
}
