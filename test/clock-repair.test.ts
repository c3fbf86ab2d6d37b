/**
 * The start-up repair as `serve` runs it: a real server process started on a database where a device's
 * wrong clock left alert watermarks and latest values in 2030 (as an older server stored them).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openDatabase } from '../src/db/database.ts';
import { createAccount } from '../src/modules/accounts/service.ts';
import { ENGINES, testConfig } from './engines.ts';
import { startServer } from './processes.ts';

const FUTURE = Date.UTC(2030, 0, 1);

describe('serve repairs times stored in the future at start', { concurrency: true }, () => {
  for (const engine of ENGINES) {
    test(`[${engine}] watermarks and latest values in 2030 are repaired before the server takes reports`, async () => {
      const made = await testConfig(engine, {}, { migrated: true });
      const env: Record<string, string> = {
        FARMSTEAD_DATA: made.config.dataDir,
        FARMSTEAD_WEBHOOK_WORKER: '0',
      };
      if (made.config.databaseUrl) env.DATABASE_URL = made.config.databaseUrl;
      try {
        let database = await openDatabase(made.config);
        let farmId: string;
        try {
          farmId = (await createAccount(database.db, { name: 'Clock Ranch' })).sample_farm_id;
          const marks = await database.db
            .updateTable('alert_watermarks')
            .set({ at: FUTURE })
            .where('farm_id', '=', farmId)
            .executeTakeFirst();
          assert.ok(Number(marks.numUpdatedRows) > 0, 'the sample farm has watermarks to spoil');
          await database.db
            .updateTable('device_latest')
            .set({ at: FUTURE })
            .where('device_id', 'in', (eb) =>
              eb.selectFrom('devices').select('id').where('farm_id', '=', farmId),
            )
            .execute();
        } finally {
          await database.close();
        }

        const server = await startServer(env);
        await server.stop();
        assert.match(server.output.text, /repaired alert watermarks and latest values stored in the future/);

        database = await openDatabase(made.config);
        try {
          const bound = Date.now() + 300_000;
          const marks = await database.db
            .selectFrom('alert_watermarks')
            .select('at')
            .where('farm_id', '=', farmId)
            .where('at', '>', bound)
            .execute();
          assert.deepEqual(marks, [], 'no watermark in the future');
          const latest = await database.db
            .selectFrom('device_latest')
            .innerJoin('devices', 'devices.id', 'device_latest.device_id')
            .select(['device_latest.at'])
            .where('devices.farm_id', '=', farmId)
            .execute();
          assert.ok(latest.length > 0, 'latest values are kept, set back to real readings');
          assert.ok(
            latest.every((r) => Number(r.at) <= bound),
            'no latest value in the future',
          );
        } finally {
          await database.close();
        }
      } finally {
        await made.cleanup();
      }
    });
  }
});
