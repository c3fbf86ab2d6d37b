/**
 * Rate rules over batched reports: each reading is judged over its own window (start included), with
 * stored late readings counted, and two rate rules on one metric each keep their own window and side.
 * What a process keeps of a device's readings between reports (recent-readings.ts) is, after every
 * report, exactly what is stored, and a report that rolled back leaves nothing that is used.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allAlerts } from '../../../test/alert-engine.ts';
import { farm } from '../../../test/factories.ts';
import { forEachEngine } from '../../../test/harness.ts';
import { inTransaction } from '../../db/transaction.ts';
import { ingestReport } from '../ingest/service.ts';
import { keptReadings } from './recent-readings.ts';
import { moveWatermarksAndReadState } from './report-state.ts';

const T0 = Date.UTC(2026, 4, 1, 6, 0, 0);
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

forEachEngine('rate rules', (t) => {
  async function setup(rules: ReadonlyArray<Record<string, unknown>>) {
    const acct = await t().sharedAccount();
    const key = acct.live_key;
    const farmId = (await farm(t(), key)).id;
    const dev = await t().request('POST', `/v1/farms/${farmId}/devices`, {
      key,
      body: { type: 'other', name: 'Silo' },
    });
    assert.equal(dev.status, 201, JSON.stringify(dev.body));
    for (const rule of rules) {
      const res = await t().request('POST', `/v1/farms/${farmId}/rules`, { key, body: rule });
      assert.equal(res.status, 201, JSON.stringify(res.body));
    }
    const deviceKey = (dev.body as { device_key: string }).device_key;
    const deviceId = (dev.body as { id: string }).id;
    const send = async (readings: ReadonlyArray<readonly [number, number]>) => {
      const res = await t().request('POST', '/v1/ingest', {
        key: deviceKey,
        body: { readings: readings.map(([m, value]) => ({ metric: 'silo.level', value, at: at(m) })) },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    };
    return { key, farmId, deviceId, send };
  }

  test('a report with late readings reads a window back from the watermark, not from its oldest reading', async () => {
    const { farmId, deviceId, send } = await setup([
      { name: 'silo.drain', kind: 'rate', metric: 'silo.level', change: -10, window_s: 600 },
    ]);
    await send(Array.from({ length: 11 }, (_, i) => [i * 10, 100] as const)); // minutes 0–100
    const minute = (m: number) => T0 + m * 60_000;
    const read = await inTransaction(t().database.db, (trx) =>
      moveWatermarksAndReadState(trx, {
        farmId,
        deviceId,
        latest: [{ metric: 'silo.level', at: minute(101) }],
        futureBound: Date.now() + 300_000,
        subjects: [{ type: 'device', id: deviceId }],
        breaches: false,
        // As a report of minutes 1 (late) and 101 asks: a window back from minute 1.
        spans: [{ metric: 'silo.level', from: minute(1) - 600_000, keepMs: 600_000 }],
      }),
    );
    assert.equal(read.watermarks.get('silo.level'), minute(100));
    assert.equal(read.spans[0]?.from, minute(90), 'the span starts one window before the watermark');
    assert.deepEqual(read.state.stored[0], [
      [minute(90), 100],
      [minute(100), 100],
    ]);
  });

  test('rate: a batched report judges each reading over its own window; late stored readings count', async () => {
    const { key, farmId, send } = await setup([
      { name: 'silo.drain', kind: 'rate', metric: 'silo.level', change: -10, window_s: 600 },
    ]);
    // Minute 10 is 10 below minute 0, exactly one window back: it opens. Minute 11's window starts
    // after minute 0 (highest 95): -6, in the band, so the reason keeps minute 10's fall.
    await send([
      [0, 100],
      [5, 95],
      [10, 90],
      [11, 89],
    ]);
    let [alert, ...others] = await allAlerts(t(), key, farmId);
    assert.equal(others.length, 0);
    assert.equal(alert?.status, 'open');
    assert.match(alert?.reason ?? '', /fell 10 within 10 min/);
    // Minute 3 arrives late (not evaluated) but is stored: minute 12's window holds it.
    await send([
      [3, 120],
      [12, 88],
    ]);
    [alert] = await allAlerts(t(), key, farmId);
    assert.match(alert?.reason ?? '', /fell 32 within 10 min/);
    await send([[14, 87]]); // window from minute 4: highest 95, -8, in the band
    [alert] = await allAlerts(t(), key, farmId);
    assert.equal(alert?.status, 'open');
    assert.match(alert?.reason ?? '', /fell 32 within 10 min/);
    await send([[16, 92]]); // window from minute 6: highest 92, no fall
    [alert] = await allAlerts(t(), key, farmId);
    assert.equal(alert?.status, 'resolved');
    // Minute 20's window (from 10) holds minute 16's 92: -7, in the band. Minute 27's starts at 17:
    // highest 85, -5, so nothing opens (judged against minute 16 it would be -12).
    await send([
      [20, 85],
      [27, 80],
    ]);
    const after = await allAlerts(t(), key, farmId);
    assert.deepEqual(
      after.map((a) => a.status),
      ['resolved'],
    );
  });

  test('rate: a rising and a falling rule on one metric, each over its own window, in one report', async () => {
    const { key, farmId, send } = await setup([
      { name: 'silo.fill', kind: 'rate', metric: 'silo.level', change: 20, window_s: 300 },
      { name: 'silo.drain', kind: 'rate', metric: 'silo.level', change: -20, window_s: 1800 },
    ]);
    // fill (5 min): minute 20 is +0 over [15, 20], minute 22 +0 (lowest is itself), minute 24 +23 over
    // minute 22. A 30-minute window would have opened at minute 20 (+30 over minute 0) instead.
    // drain (30 min): minute 22 is -28 under minute 20 (opens), minute 24 -5 (clears).
    await send([
      [0, 10],
      [20, 40],
      [22, 12],
      [24, 35],
    ]);
    const alerts = await allAlerts(t(), key, farmId);
    const byRule = new Map(alerts.map((a) => [a.rule, a]));
    assert.equal(alerts.length, 2, JSON.stringify(alerts.map((a) => [a.rule, a.reason])));
    assert.equal(byRule.get('silo.fill')?.status, 'open');
    assert.match(byRule.get('silo.fill')?.reason ?? '', /rose 23 within 5 min/);
    assert.equal(byRule.get('silo.drain')?.status, 'resolved');
    assert.match(byRule.get('silo.drain')?.reason ?? '', /fell 28 within 30 min/);
  });

  test('what the engine keeps between reports is what is stored, and a rolled-back report leaves nothing used', async () => {
    // Readings of the last hour: what is kept answers only for readings retention cannot have removed.
    const base = Date.now() - 3_600_000;
    const minute = (m: number) => new Date(base + m * 60_000).toISOString();
    const { key, farmId, deviceId } = await setup([
      { name: 'silo.drain', kind: 'rate', metric: 'silo.level', change: -10, window_s: 600 },
    ]);
    const db = t().database.db;
    const report = (readings: ReadonlyArray<readonly [number, number]>) => ({
      readings: readings.map(([m, value]) => ({ metric: 'silo.level', value, at: minute(m) })),
    });
    const send = (readings: ReadonlyArray<readonly [number, number]>) =>
      ingestReport(db, { deviceId }, report(readings));
    const stored = async (from: number) =>
      (
        await db
          .selectFrom('readings')
          .select(['at', 'value'])
          .where('device_id', '=', deviceId)
          .where('metric', '=', 'silo.level')
          .where('at', '>=', from)
          .orderBy('at')
          .execute()
      ).map((r) => [Number(r.at), Number(r.value)]);
    const keptIsStored = async (step: string) => {
      const kept = keptReadings(deviceId, 'silo.level');
      assert.ok(kept, `${step}: something is kept`);
      assert.deepEqual(kept.rows, await stored(kept.from), step);
    };
    await send([
      [0, 100],
      [4, 100],
    ]);
    await keptIsStored('first report');
    await send([
      [6, 100],
      [2, 80],
      [8, 99],
    ]);
    await keptIsStored('a report with a late reading');
    // A report whose transaction rolls back after the engine ran: minute 9's 130 is never stored, so
    // minute 10's 95 is judged against minute 6's 100 and nothing opens. Had the engine used what the
    // rolled-back report kept, it would have judged it against 130 (-35) and opened.
    await assert.rejects(
      inTransaction(db, async (trx) => {
        await ingestReport(trx, { deviceId }, report([[9, 130]]));
        assert.ok(keptReadings(deviceId, 'silo.level')?.rows.some(([, v]) => v === 130));
        throw new Error('rolled back');
      }),
      /rolled back/,
    );
    await send([[10, 95]]);
    await keptIsStored('after a rolled-back report');
    assert.deepEqual(await allAlerts(t(), key, farmId), []);
    await send([[12, 88]]); // -12 from minute 6's 100 (window from minute 2): opens
    await keptIsStored('after an opening report');
    const [alert] = await allAlerts(t(), key, farmId);
    assert.match(alert?.reason ?? '', /fell 12 within 10 min/);
  });
});
