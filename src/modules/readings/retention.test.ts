import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import pg from 'pg';
import * as make from '../../../test/factories.ts';
import { createPgDatabase, ENGINES, forEachEngine } from '../../../test/harness.ts';
import { migrateToLatest } from '../../db/migrate.ts';
import { migrations } from '../../db/migrations/index.ts';
import type { DB } from '../../db/schema.ts';
import {
  ensureReadingPartitions,
  listReadingPartitions,
  PARTITION_MONTHS_AHEAD,
  removeOldReadings,
  retentionCutoff,
} from './retention.ts';
import { latestReadings } from './service.ts';

const iso = (ms: number) => new Date(ms).toISOString();

forEachEngine('readings retention', (t) => {
  test('retention removes readings before the cutoff in small batches, keeping later ones and the latest values', async () => {
    const db = t().database.db;
    const postgres = t().engine === 'postgres';
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const one = await make.device(t(), acct.live_key, farm, { name: 'One' });
    const two = await make.device(t(), acct.live_key, farm, { name: 'Two' });
    const r = (at: number, value = 1) => ({ metric: 'water.tank_pct', value, at: iso(at) });
    await make.report(t(), one.device_key, {
      readings: [
        r(Date.UTC(2019, 5, 1)),
        ...Array.from({ length: 5 }, () => r(Date.UTC(2020, 0, 10))),
        ...Array.from({ length: 3 }, () => r(Date.UTC(2020, 1, 1))),
        r(Date.UTC(2020, 1, 10)),
        r(Date.UTC(2020, 1, 20)),
        r(Date.UTC(2020, 2, 5)),
        r(Date.UTC(2020, 3, 1), 77),
      ],
    });
    await make.report(t(), two.device_key, {
      readings: [r(Date.UTC(2020, 1, 14, 23, 59, 59, 999)), r(Date.UTC(2020, 1, 15), 55)],
    });

    if (postgres) {
      // Partitions for January to May 2020, as the partitions job would have made them then; the
      // January readings already stored (in the default partition) move into theirs.
      const created = await ensureReadingPartitions(db, Date.UTC(2020, 0, 15));
      assert.deepEqual(created, [
        'readings_p202001',
        'readings_p202002',
        'readings_p202003',
        'readings_p202004',
      ]);
      const january = await sql<{ n: number }>`select count(*)::int as n from readings_p202001`.execute(db);
      assert.equal(january.rows[0]?.n, 5);
      const stray = await sql<{
        n: number;
      }>`select count(*)::int as n from readings_default where at >= ${Date.UTC(2020, 0, 1)} and at < ${Date.UTC(2020, 4, 1)}`.execute(
        db,
      );
      assert.equal(stray.rows[0]?.n, 0);
    }

    const cutoff = Date.UTC(2020, 1, 15);
    const result = await removeOldReadings(db, cutoff, { batchRows: 2 });
    assert.equal(result.ran, true);
    if (postgres) {
      assert.deepEqual(
        result.droppedPartitions,
        ['readings_p202001'],
        'January lies wholly before the cutoff',
      );
      assert.equal(result.deletedRows, 1 + 3 + 1 + 1, '2019 (default partition), Feb 1 ×3, Feb 10, Feb 14');
      const names = (await listReadingPartitions(db)).map((p) => p.name);
      assert.ok(!names.includes('readings_p202001'));
      assert.ok(names.includes('readings_p202002') && names.includes('readings_default'));
    } else {
      assert.deepEqual(result.droppedPartitions, []);
      assert.equal(result.deletedRows, 1 + 5 + 3 + 1 + 1);
    }
    const left = await db
      .selectFrom('readings')
      .select(['device_id', 'at'])
      .where('device_id', 'in', [one.id, two.id])
      .orderBy('device_id')
      .orderBy('at')
      .execute();
    assert.deepEqual(
      left.map((row) => [row.device_id, iso(row.at)]),
      [
        [one.id, iso(Date.UTC(2020, 1, 20))],
        [one.id, iso(Date.UTC(2020, 2, 5))],
        [one.id, iso(Date.UTC(2020, 3, 1))],
        [two.id, iso(Date.UTC(2020, 1, 15))],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
    const latest = await latestReadings(db, [one.id, two.id]);
    assert.equal(latest[one.id]?.['water.tank_pct']?.value, 77);
    assert.equal(latest[two.id]?.['water.tank_pct']?.value, 55);

    const again = await removeOldReadings(db, cutoff, { batchRows: 2 });
    assert.deepEqual(again, { droppedPartitions: [], deletedRows: 0, ran: true });
  });

  test('the retention cutoff is the configured number of days before now; unset keeps everything', () => {
    const now = Date.UTC(2026, 4, 31, 12);
    assert.equal(retentionCutoff(null, now), null);
    assert.equal(retentionCutoff(30, now), Date.UTC(2026, 4, 1, 12));
  });
});

forEachEngine('readings partitions', (t) => {
  test('PostgreSQL: readings are partitioned by month, with partitions made ahead and a default', async (ctx) => {
    if (t().engine !== 'postgres') return ctx.skip('SQLite keeps one readings table');
    const db = t().database.db;
    const now = Date.now();
    assert.deepEqual(
      await ensureReadingPartitions(db, now),
      [],
      'the migration made this month and the next ones',
    );
    const partitions = await listReadingPartitions(db);
    const d = new Date(now);
    for (let i = 0; i <= PARTITION_MONTHS_AHEAD; i++) {
      const from = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + i, 1);
      const to = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + i + 1, 1);
      assert.ok(
        partitions.some((p) => p.from === from && p.to === to),
        `a partition for ${iso(from)}`,
      );
    }
    assert.ok(partitions.some((p) => p.name === 'readings_default' && p.from === null));
    // No per-row foreign key on the partitioned table: device deletes remove readings instead.
    const fks = await sql<{ n: number }>`select count(*)::int as n from pg_constraint
      where conrelid = 'readings'::regclass and contype = 'f'`.execute(db);
    assert.equal(fks.rows[0]?.n, 0);
    // A month beyond those made ahead works too: it lands in the default partition. (Ingest now refuses a
    // time that far ahead, docs/devices.md; a database may hold some from before, written here directly.)
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const device = await make.device(t(), acct.live_key, farm);
    const far = Date.UTC(d.getUTCFullYear() + 5, 0, 1);
    await db
      .insertInto('readings')
      .values({ device_id: device.id, farm_id: farm, metric: 'x', value: 1, unit: null, at: far })
      .execute();
    const inDefault = await sql<{
      n: number;
    }>`select count(*)::int as n from readings_default where device_id = ${device.id}`.execute(db);
    assert.equal(inDefault.rows[0]?.n, 1);
    // When that month's partition is made, the reading moves into it.
    const created = await ensureReadingPartitions(db, far);
    assert.ok(created.includes(`readings_p${d.getUTCFullYear() + 5}01`));
    const moved = await db.selectFrom('readings').select('at').where('device_id', '=', device.id).execute();
    assert.deepEqual(
      moved.map((r) => r.at),
      [far],
    );
  });

  test('deleting a device, or its farm, deletes its readings', async () => {
    const db = t().database.db;
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const a = await make.device(t(), acct.live_key, farm, { name: 'A' });
    const b = await make.device(t(), acct.live_key, farm, { name: 'B' });
    const readings = [{ metric: 'x', value: 1 }];
    await make.report(t(), a.device_key, { readings });
    await make.report(t(), b.device_key, { readings });
    const count = async (id: string) =>
      (await db.selectFrom('readings').select('at').where('device_id', '=', id).execute()).length;
    assert.equal(await count(a.id), 1);
    assert.equal((await t().request('DELETE', `/v1/devices/${a.id}`, { key: acct.live_key })).status, 200);
    assert.equal(await count(a.id), 0);
    assert.equal(await count(b.id), 1);
    assert.equal((await t().request('DELETE', `/v1/farms/${farm}`, { key: acct.live_key })).status, 200);
    assert.equal(await count(b.id), 0);
  });

  test('PostgreSQL: one process at a time runs retention; the others skip the run', async (ctx) => {
    if (t().engine !== 'postgres') return ctx.skip('one process per SQLite database');
    const holder = new pg.Client({ connectionString: t().config.databaseUrl ?? '' });
    await holder.connect();
    try {
      await holder.query('select pg_advisory_lock(7146002)');
      const skipped = await removeOldReadings(t().database.db, Date.UTC(2000, 0, 1));
      assert.deepEqual(skipped, { droppedPartitions: [], deletedRows: 0, ran: false });
      await holder.query('select pg_advisory_unlock(7146002)');
      const ran = await removeOldReadings(t().database.db, Date.UTC(2000, 0, 1));
      assert.equal(ran.ran, true);
    } finally {
      await holder.end();
    }
  });
});

test('PostgreSQL: migration 0006 moves existing readings into monthly partitions', async (ctx) => {
  if (!ENGINES.includes('postgres')) return ctx.skip('PostgreSQL not under test');
  const pgDb = await createPgDatabase();
  const pool = new pg.Pool({ connectionString: pgDb.url, max: 2 });
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  try {
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    const before = await migrator.migrateTo('0005_webhooks');
    assert.equal(before.error, undefined);
    // Rows as the schema stood at 0005, written directly: today's services write columns it lacks.
    const created = Date.now();
    await sql`insert into accounts (id, name, created_at) values ('acct_p', 'Before partitions', ${created})`.execute(
      db,
    );
    await sql`insert into farms (id, account_id, name, mode, timezone, settings, created_at)
      values ('farm_p', 'acct_p', 'Old farm', 'live', 'UTC', '{}', ${created})`.execute(db);
    await sql`insert into devices (id, farm_id, type, name, state, key_hash, key_prefix, created_at)
      values ('dev_p', 'farm_p', 'weather', 'Station', '{}', 'hash_p', 'rd_p', ${created})`.execute(db);
    const acct = { sample_farm_id: 'farm_p' };
    const device = { id: 'dev_p' };
    const now = new Date();
    const lastMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 10);
    const longAgo = Date.UTC(now.getUTCFullYear() - 10, 0, 1);
    const rows = [lastMonth, lastMonth + 1, longAgo].map((at) => ({
      device_id: device.id,
      farm_id: acct.sample_farm_id,
      metric: 'weather.temp_c',
      value: 12.5,
      unit: '°C',
      at,
    }));
    await db.insertInto('readings').values(rows).execute();

    await migrateToLatest(db);
    const stored = await db
      .selectFrom('readings')
      .select(['at', 'value', 'unit'])
      .where('device_id', '=', device.id)
      .orderBy('at')
      .execute();
    assert.deepEqual(
      stored.map((r) => r.at),
      [longAgo, lastMonth, lastMonth + 1],
    );
    const inLastMonth = await sql<{ n: number }>`select count(*)::int as n from ${sql.id(
      `readings_p${new Date(lastMonth).getUTCFullYear()}${String(new Date(lastMonth).getUTCMonth() + 1).padStart(2, '0')}`,
    )}`.execute(db);
    assert.equal(inLastMonth.rows[0]?.n, 2);
    const inDefault = await sql<{ n: number }>`select count(*)::int as n from readings_default`.execute(db);
    assert.equal(inDefault.rows[0]?.n, 1, 'readings older than 36 months stay in the default partition');
  } finally {
    await db.destroy();
    await pgDb.drop();
  }
});
