/**
 * The ingest ceiling: the same report rows stored through the same driver (node:sqlite, pg) with the
 * same statement the service uses (its arrays formatted as the service formats them: src/db/pg-arrays.ts)
 * and one transaction per report, but no HTTP, no validation, no
 * auth and no alert engine. What the server reaches is shown as a share of this.
 */

import path from 'node:path';
import pg from 'pg';
import { pgNumbers, pgTexts } from '../../src/db/pg-arrays.ts';
import { openSqlite } from '../../src/db/sqlite-adapter.ts';
import type { BenchDatabase } from './db.ts';
import { percentile } from './load.ts';
import { reportReadings } from './reports.ts';

export interface RawInsertResult {
  rowsPerSecond: number;
  reports: number;
  p50Ms: number;
  p99Ms: number;
}

const SQLITE_INSERT = `insert into readings (device_id, farm_id, metric, value, unit, at)
  select ?, ?, j.value ->> 0, j.value ->> 1, j.value ->> 2, j.value ->> 3 from json_each(?) as j`;
const PG_INSERT = `insert into readings (device_id, farm_id, metric, value, unit, at)
  select $1, $2, r.metric, r.value, r.unit, r.at
  from unnest($3::text[], $4::float8[], $5::text[], $6::int8[]) as r(metric, value, unit, at)`;

export async function rawInsertReference(
  database: BenchDatabase,
  devices: ReadonlyArray<{ id: string; farm_id: string }>,
  options: { durationMs: number; warmupMs?: number; origin: number; reportSize: number },
): Promise<RawInsertResult> {
  const latencies: number[] = [];
  // Counted only after the warm-up, as the server's loads are (run.ts: `measure`).
  const started = performance.now() + (options.warmupMs ?? 0);
  const deadline = started + options.durationMs;
  let rows = 0;
  const count = (t0: number, n: number) => {
    if (t0 < started) return;
    latencies.push(performance.now() - t0);
    rows += n;
  };
  if (database.engine === 'sqlite') {
    const { raw } = openSqlite(path.join(database.config.dataDir, 'farmstead.db'));
    const insert = raw.prepare(SQLITE_INSERT);
    for (let seq = 0; performance.now() < deadline; seq++) {
      for (const device of devices) {
        const t0 = performance.now();
        const readings = reportReadings(options.origin, seq, options.reportSize);
        raw.exec('BEGIN');
        insert.run(
          device.id,
          device.farm_id,
          JSON.stringify(readings.map((r) => [r.metric, r.value, r.unit, r.at])),
        );
        raw.exec('COMMIT');
        count(t0, readings.length);
      }
    }
    raw.close();
  } else {
    const pool = new pg.Pool({
      connectionString: database.config.databaseUrl ?? '',
      max: database.config.pgPoolSize,
    });
    let next = 0;
    const worker = async () => {
      const client = await pool.connect();
      try {
        while (performance.now() < deadline) {
          const i = next++;
          const device = devices[i % devices.length] as { id: string; farm_id: string };
          const t0 = performance.now();
          const readings = reportReadings(options.origin, Math.floor(i / devices.length), options.reportSize);
          await client.query('begin');
          await client.query(PG_INSERT, [
            device.id,
            device.farm_id,
            pgTexts(readings.map((r) => r.metric)),
            pgNumbers(readings.map((r) => r.value)),
            pgTexts(readings.map((r) => r.unit)),
            pgNumbers(readings.map((r) => r.at)),
          ]);
          await client.query('commit');
          count(t0, readings.length);
        }
      } finally {
        client.release();
      }
    };
    await Promise.all(Array.from({ length: database.config.pgPoolSize }, worker));
    await pool.end();
  }
  const seconds = (performance.now() - started) / 1000;
  const sorted = Float64Array.from(latencies).sort();
  return {
    rowsPerSecond: rows / seconds,
    reports: latencies.length,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
  };
}
