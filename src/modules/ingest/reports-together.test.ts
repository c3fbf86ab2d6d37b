/**
 * Reports stored together (db/group-commit.ts; on PostgreSQL with their statements batched,
 * db/statement-batch.ts) answer and store exactly what the same reports store one at a time: two twin
 * farms get the same rounds of reports with the same receipt times, one farm's rounds all at once, the
 * other's one report after another, and every row the reports touch is compared (readings, device rows,
 * latest values, watermarks, breach starts, alerts, commands) along with the answers.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { animal, device, farm, keysOfOneLane } from '../../../test/factories.ts';
import { forEachEngine } from '../../../test/harness.ts';
import { inGroupTransaction } from '../../db/group-commit.ts';
import { newId } from '../../domain/ids.ts';
import { type AlertRow, insertActiveAlert } from '../alerts/repository.ts';
import { type IngestInput, ingestReport } from './service.ts';

const MINUTE = 60_000;
type Row = Record<string, unknown>;

forEachEngine('reports stored together', (t) => {
  test('reports arriving together answer and store exactly as the same reports one at a time', async () => {
    const acct = await t().sharedAccount();
    const key = acct.live_key;
    const db = t().database.db;
    const T0 = Math.floor(Date.now() / MINUTE) * MINUTE - 60 * MINUTE;
    const at = (minutes: number) => new Date(T0 + minutes * MINUTE).toISOString();

    async function twin(name: string) {
      const f = await farm(t(), key, { name });
      for (const rule of [
        { name: 'silo.drain', kind: 'rate', metric: 'silo.level', change: -10, window_s: 600 },
        {
          name: 'silage.heat',
          metric: 'silage.temp_c',
          direction: 'above',
          watch: 50,
          urgent: 60,
          clear: 45,
          for_s: 300,
        },
      ]) {
        const res = await t().request('POST', `/v1/farms/${f.id}/rules`, { key, body: rule });
        assert.equal(res.status, 201, JSON.stringify(res.body));
      }
      const cow = await animal(t(), key, f.id, { name: 'Daisy', tag: 'D1' });
      const devices = [
        await device(t(), key, f.id, { type: 'other', name: 'Silo' }),
        await device(t(), key, f.id, { type: 'other', name: 'Clamp' }),
        await device(t(), key, f.id, { type: 'house', name: 'House' }),
        await device(t(), key, f.id, { type: 'water', name: 'Tank' }),
        await device(t(), key, f.id, { type: 'bolus', name: 'Bolus', animal_id: cow.id }),
        await device(t(), key, f.id, { type: 'other', name: 'Late' }),
      ];
      const queue = async (body: unknown) => {
        const res = await t().request('POST', `/v1/devices/${devices[3]?.id}/commands`, { key, body });
        assert.equal(res.status, 201, JSON.stringify(res.body));
      };
      return { farmId: f.id, devices, queue };
    }

    // Round r's report of each device (by place), as the devices would send it.
    const reports = (r: number): IngestInput[] => [
      {
        readings: [0, 1, 2].map((i) => ({
          metric: 'silo.level',
          value: 100 - r * 15 - i * 5,
          at: at(r * 10 + i * 3),
        })),
      },
      { readings: [{ metric: 'silage.temp_c', value: r === 0 ? 40 : 55 + r, at: at(r * 10) }] },
      {
        readings: [{ metric: 'climate.temp_c', value: 20 + r * 5, at: at(r * 10) }],
        ...(r % 2 === 0 ? { battery: 90 - r, lat: 51.5 + r / 100, lon: -0.1, firmware: `1.${r}` } : {}),
        // Round 3's report was made before round 2's: its status must not replace the newer one.
        ...(r === 3 ? { at: at(15), battery: 5, lat: 51.4, lon: -0.2, firmware: '0.9' } : {}),
        state: { round: r, ...(r === 2 ? { door: null } : { door: 'open' }) },
      },
      { readings: [{ metric: 'water.level_pct', value: 80 - r, at: at(r * 10) }] },
      {
        readings: [{ metric: 'body.temp_c', value: r >= 2 ? 41.2 : 38.6, at: at(r * 10) }],
        events: r === 3 ? [{ type: 'note', data: { text: 'checked' }, at: at(r * 10) }] : [],
      },
      // Its round-3 report carries a reading from before its watermark (late) beside a new one.
      {
        readings:
          r === 3
            ? [
                { metric: 'silo.level', value: 10, at: at(5) },
                { metric: 'silo.level', value: 50, at: at(r * 10) },
              ]
            : [{ metric: 'silo.level', value: 60 - r, at: at(r * 10) }],
      },
    ];

    const together = await twin('Together');
    const alone = await twin('Alone');
    const answers = { together: [] as unknown[], alone: [] as unknown[] };
    for (let r = 0; r < 4; r++) {
      if (r === 0 || r === 2) {
        for (const f of [together, alone])
          await f.queue({ command: 'valve.set', params: { position: r === 0 ? 'open' : 'closed' } });
      }
      const now = T0 + (r * 10 + 9) * MINUTE;
      const bodies = reports(r);
      answers.together.push(
        ...(await Promise.all(
          together.devices.map((d, i) => ingestReport(db, { deviceId: d.id }, bodies[i], now)),
        )),
      );
      for (const [i, d] of alone.devices.entries()) {
        answers.alone.push(await ingestReport(db, { deviceId: d.id }, bodies[i], now));
      }
    }

    const withoutIds = (answer: unknown) => {
      const a = answer as { commands: Array<Record<string, unknown>> };
      return {
        ...a,
        commands: a.commands
          // What differs between the twins by construction: ids, the farm, when each was queued.
          .map(({ id: _i, device_id: _d, farm_id: _f, created_at: _c, expires_at: _e, ...c }) => c)
          .sort((x, y) => JSON.stringify(x.params).localeCompare(JSON.stringify(y.params))),
      };
    };
    assert.deepEqual(answers.together.map(withoutIds), answers.alone.map(withoutIds));
    assert.ok(
      answers.together.some((a) => (a as { commands: unknown[] }).commands.length > 0),
      'commands were handed out',
    );

    const stored = async (f: Awaited<ReturnType<typeof twin>>) => {
      const ids = f.devices.map((d) => d.id);
      const name = new Map(f.devices.map((d) => [d.id, d.name]));
      const named = (rows: Row[]) =>
        rows
          .map(({ device_id, ...rest }) => ({ device: name.get(String(device_id)), ...rest }) as Row)
          .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
      const devices = await db
        .selectFrom('devices')
        .select([
          'name',
          'battery',
          'lat',
          'lon',
          'firmware',
          'state',
          'last_seen_at',
          'status_at',
          'report_gap_ms',
          'quiet_level',
        ])
        .where('farm_id', '=', f.farmId)
        .orderBy('name')
        .execute();
      const alerts = await db
        .selectFrom('alerts')
        .select(['rule', 'severity', 'status', 'subject_type', 'title', 'reason', 'created_at', 'updated_at'])
        .where('farm_id', '=', f.farmId)
        .execute();
      const number = (rows: ReadonlyArray<object>): Row[] =>
        rows.map((r) =>
          Object.fromEntries(
            Object.entries(r).map(([k, v]) => [k, typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v]),
          ),
        );
      // A table's rows of the farm's devices, each named by its device, in a stable order.
      type DeviceTable =
        | 'readings'
        | 'device_latest'
        | 'alert_watermarks'
        | 'alert_breaches'
        | 'commands'
        | 'device_positions';
      const rowsOf = async (table: DeviceTable, columns: string[]) =>
        named(
          number(
            await db
              .selectFrom(table)
              .select(['device_id', ...columns] as never)
              .where('device_id', 'in', ids)
              .execute(),
          ),
        );
      return {
        readings: await rowsOf('readings', ['metric', 'value', 'unit', 'at']),
        latest: await rowsOf('device_latest', ['metric', 'value', 'at']),
        watermarks: await rowsOf('alert_watermarks', ['metric', 'at', 'prev_at']),
        breaches: await rowsOf('alert_breaches', ['rule', 'since']),
        positions: await rowsOf('device_positions', ['lat', 'lon', 'at']),
        commands: await rowsOf('commands', [
          'status',
          'delivery_attempts',
          'delivered_at',
          'redeliver_at',
          'params',
        ]),
        devices: number(devices),
        // The events each farm's changes emitted (their data name each farm's own ids).
        events: (await db.selectFrom('outbox').select('type').where('farm_id', '=', f.farmId).execute())
          .map((e) => e.type)
          .sort(),
        alerts: number(alerts).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
      };
    };
    const [mine, theirs] = [await stored(together), await stored(alone)];
    assert.deepEqual(mine, theirs);
    assert.deepEqual(
      mine.positions.map((p) => [p.lat, p.at]),
      [
        [51.4, T0 + 15 * MINUTE],
        [51.5, T0 + 9 * MINUTE],
        [51.52, T0 + 29 * MINUTE],
      ],
      "the house's positions (rounds 0 and 2, and the late one at its own time), stored together too",
    );
    // The comparison compared something: the reports opened alerts, held a breach and stored late readings.
    assert.ok(
      mine.alerts.some((a) => a.rule === 'silo.drain'),
      JSON.stringify(mine.alerts),
    );
    assert.ok(
      mine.alerts.some((a) => a.rule === 'silage.heat'),
      JSON.stringify(mine.alerts),
    );
    assert.ok(
      mine.alerts.some((a) => a.rule === 'animal.fever'),
      JSON.stringify(mine.alerts),
    );
    assert.ok(mine.readings.some((r) => r.device === 'Late' && r.value === 10));
    const house = mine.devices.find((d) => d.name === 'House');
    assert.deepEqual(
      [house?.firmware, house?.battery, house?.lat, house?.status_at],
      ['1.2', 88, 51.52, T0 + 29 * MINUTE],
      "round 2's status stands against the later report made before it",
    );
    assert.ok(
      mine.events.includes('alert.created') && mine.events.includes('event.created'),
      mine.events.join(),
    );
  });
  test('PostgreSQL: two reports of one group opening the same alert: one is opened, the other unit finds it taken', async (c) => {
    if (t().engine !== 'postgres') return c.skip("SQLite runs a group's reports one after another");
    const acct = await t().sharedAccount();
    const f = await farm(t(), acct.live_key, { name: 'One slot' });
    const db = t().database.db;
    // Two keys of one lane: one group, the two inserts one statement.
    const keys = keysOfOneLane('slot', 2);
    const now = Date.now();
    const row = (n: number): AlertRow => ({
      id: newId('alert', now + n),
      farm_id: f.id,
      severity: 'watch',
      severity_rank: 1,
      title: 'Fever',
      reason: `reading ${n}`,
      rule: 'animal.fever',
      subject_type: 'animal',
      subject_id: 'ani_same',
      status: 'open',
      created_at: now,
      updated_at: now,
      acknowledged_at: null,
      acknowledged_by: null,
      resolved_at: null,
      words: null,
    });
    const opened = await Promise.all(
      keys.map((key, n) => inGroupTransaction(db, key, (trx) => insertActiveAlert(trx, row(n)))),
    );
    assert.deepEqual(
      opened.map((o) => o?.reason ?? null),
      ['reading 0', null],
    );
    const stored = await db.selectFrom('alerts').select('reason').where('farm_id', '=', f.id).execute();
    assert.deepEqual(stored, [{ reason: 'reading 0' }]);
  });
});
