/**
 * No acknowledged reading is lost when the server is killed with SIGKILL in the middle of ingest. A real
 * server process (src/main.ts serve) takes reports from several devices at once; once a good number have
 * been answered 200 it is killed with `kill -9` while reports are still in flight. A restarted server must
 * come up on the same data, and every reading of every report answered 200 must be in the database; a
 * report cut off mid-way is either wholly there or wholly absent (one transaction per report).
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, test } from 'node:test';
import pg from 'pg';
import { sqliteFile } from '../src/db/database.ts';
import { createPgDatabase, ENGINES } from './engines.ts';
import { createAccountDirect, type Server, startServer } from './processes.ts';

const DEVICES = 4;
const READINGS_PER_REPORT = 5;
/** Reports answered 200 (over all devices) before the kill. */
const ACKED_BEFORE_KILL = 60;
const BASE = Date.UTC(2026, 9, 1);

async function post(server: Server, url: string, key: string, body: unknown) {
  const res = await fetch(`${server.url}${url}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

/** Report `n` of a device: readings at distinct seconds, so each stored row names its report. */
function report(n: number) {
  return {
    readings: Array.from({ length: READINGS_PER_REPORT }, (_, j) => ({
      metric: 'climate.temp_c',
      value: 20 + j,
      at: new Date(BASE + (n * READINGS_PER_REPORT + j) * 1000).toISOString(),
    })),
  };
}

// Both engines at once: most of the time is server start-up.
describe('kill -9 during ingest', { concurrency: true }, () => {
  for (const engine of ENGINES) {
    test(`${engine}: every reading answered 200 is stored after a restart; no report is stored in part`, async () => {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'farmstead-crash-'));
      const pgDatabase = engine === 'postgres' ? await createPgDatabase({ migrated: true }) : null;
      const env: Record<string, string> = {
        FARMSTEAD_DATA: dataDir,
        LOG_LEVEL: 'warn',
        FARMSTEAD_RATE_LIMIT: 'off',
        ...(pgDatabase ? { DATABASE_URL: pgDatabase.url } : {}),
      };
      let server: Server | null = null;
      try {
        const key = (await createAccountDirect(env, 'Ridge')).live_key;
        server = await startServer(env);
        const running = server;
        const farm = await post(running, '/v1/farms', key, { name: 'Ridge Farm' });
        assert.equal(farm.status, 201);
        const devices: { id: string; key: string }[] = [];
        for (let i = 0; i < DEVICES; i++) {
          const d = await post(running, `/v1/farms/${farm.body.id}/devices`, key, {
            type: 'house',
            name: `House ${i + 1}`,
          });
          assert.equal(d.status, 201);
          devices.push({ id: d.body.id as string, key: d.body.device_key as string });
        }

        // Each device reports in a loop until the server dies; what was answered 200 is acknowledged.
        const acked = new Map<string, number[]>(devices.map((d) => [d.id, []]));
        let ackedTotal = 0;
        let killed = false;
        let reachedTarget: () => void = () => {};
        const target = new Promise<void>((resolve) => {
          reachedTarget = resolve;
        });
        const loops = devices.map(async (device) => {
          for (let n = 0; !killed; n++) {
            const res = await post(running, '/v1/ingest', device.key, report(n)).catch(() => null);
            if (!res) return; // the connection died with the server: not acknowledged
            assert.equal(res.status, 200, JSON.stringify(res.body));
            acked.get(device.id)?.push(n);
            if (++ackedTotal >= ACKED_BEFORE_KILL) reachedTarget();
          }
        });
        // A loop ends before the kill only when a report went wrong (or the server died): fail at once then,
        // not when the file's timeout runs out.
        await Promise.race([target, ...loops]);
        running.child.kill('SIGKILL');
        killed = true;
        await once(running.child, 'exit');
        await Promise.all(loops);
        assert.ok(ackedTotal >= ACKED_BEFORE_KILL);

        // The restarted server comes up on the same data (SQLite recovers its WAL on open) …
        server = await startServer(env);
        const me = await fetch(`${server.url}/v1/me`, { headers: { authorization: `Bearer ${key}` } });
        assert.equal(me.status, 200);
        await server.stop();
        server = null;

        // … and holds every acknowledged reading.
        const rows = await storedReadings(engine, dataDir, pgDatabase?.url ?? null);
        for (const device of devices) {
          const stored = rows.get(device.id) ?? new Set<number>();
          const perReport = new Map<number, number>();
          for (const at of stored) {
            const n = Math.floor((at - BASE) / 1000 / READINGS_PER_REPORT);
            perReport.set(n, (perReport.get(n) ?? 0) + 1);
          }
          for (const n of acked.get(device.id) ?? []) {
            assert.equal(
              perReport.get(n),
              READINGS_PER_REPORT,
              `report ${n} of ${device.id} was acknowledged`,
            );
          }
          for (const [n, count] of perReport) {
            assert.equal(
              count,
              READINGS_PER_REPORT,
              `report ${n} of ${device.id} is stored whole or not at all`,
            );
          }
        }
      } finally {
        if (server && server.child.exitCode === null) server.child.kill('SIGKILL');
        await pgDatabase?.drop();
        rmSync(dataDir, { recursive: true, force: true });
      }
    });
  }
});

/** Device id → the times (ms) of its stored readings, read straight from the database. */
async function storedReadings(
  engine: string,
  dataDir: string,
  url: string | null,
): Promise<Map<string, Set<number>>> {
  const byDevice = new Map<string, Set<number>>();
  const add = (device: string, at: number) => {
    const set = byDevice.get(device) ?? new Set<number>();
    set.add(at);
    byDevice.set(device, set);
  };
  if (engine === 'postgres' && url) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const result = await client.query<{ device_id: string; at: string }>(
      'select device_id, at from readings',
    );
    for (const row of result.rows) add(row.device_id, Number(row.at));
    await client.end();
  } else {
    const db = new DatabaseSync(sqliteFile(dataDir));
    const rows = db.prepare('select device_id, at from readings').all() as {
      device_id: string;
      at: number;
    }[];
    for (const row of rows) add(row.device_id, Number(row.at));
    db.close();
  }
  return byDevice;
}
