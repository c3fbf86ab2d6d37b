/**
 * An MQTT report's idempotence key (external broker, issue 48): the report handed over again by the broker
 * (DUP) is not stored again; the same bytes sent again by the device (a first hand-over) are; the key ages
 * out after its hour. Through messages.ts's handleReport, as the external broker's consumer calls it.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { device, farm } from '../../../test/factories.ts';
import { forEachEngine } from '../../../test/harness.ts';
import { pruneMqttReportKeys, REPORT_KEY_WINDOW_MS, ReportAlreadyStored } from '../ingest/service.ts';
import { handleReport } from './messages.ts';

forEachEngine('an MQTT report handed over twice', (t) => {
  test('is stored once when the broker marks it redelivered, twice when the device sent it twice', async () => {
    const { live_key: key } = await t().sharedAccount();
    const home = await farm(t(), key, { name: 'Keys farm' });
    const house = await device(t(), key, home.id);
    const db = t().database.db;
    const payload = Buffer.from(JSON.stringify({ readings: [{ metric: 'climate.nh3_ppm', value: 12 }] }));
    const digest = createHash('sha256').update(payload).digest('base64url');
    const count = async () =>
      Number(
        (
          await db
            .selectFrom('readings')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('device_id', '=', house.id)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const now = Date.now();
    const first = await handleReport(db, house.id, payload, now, {
      delivery: { digest, redelivered: false },
    });
    assert.equal(first.ok, true);
    assert.equal(await count(), 1);
    // The broker hands the same message over again (a process died before its PUBACK): not stored again.
    await assert.rejects(
      handleReport(db, house.id, payload, now + 1_000, { delivery: { digest, redelivered: true } }),
      ReportAlreadyStored,
    );
    assert.equal(await count(), 1);
    // The device sends the same bytes again on purpose: a first hand-over, stored.
    const again = await handleReport(db, house.id, payload, now + 2_000, {
      delivery: { digest, redelivered: false },
    });
    assert.equal(again.ok, true);
    assert.equal(await count(), 2);
    // An hour on, a redelivered copy no longer matches a key (the keys are pruned then too).
    const later = now + 2_000 + REPORT_KEY_WINDOW_MS + 1;
    const late = await handleReport(db, house.id, payload, later, {
      delivery: { digest, redelivered: true },
    });
    assert.equal(late.ok, true);
    assert.equal(await count(), 3);
    assert.ok((await pruneMqttReportKeys(db, later + REPORT_KEY_WINDOW_MS + 1)) >= 1);
    const left = await db
      .selectFrom('mqtt_report_keys')
      .selectAll()
      .where('device_id', '=', house.id)
      .execute();
    assert.equal(left.length, 0);
  });
});
