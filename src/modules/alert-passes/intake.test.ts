/** group.intake_drop: daily water and feed per head against the group's own trailing 7-day median. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { allAlerts } from '../../../test/alert-engine.ts';
import * as make from '../../../test/factories.ts';
import { outboxEvents } from '../../../test/factories.ts';
import { forEachEngine } from '../../../test/harness.ts';
import { alertWordsOf, renderAlertReason } from '../../domain/alert-words.ts';
import { localDayBounds } from '../../lib/local-time.ts';
import { HOUR_MS } from '../../lib/time.ts';
import { ingestReport } from '../ingest/service.ts';
import { checkIntake, judgeIntake, median } from './intake.ts';

describe('intake method', () => {
  const water = { metric: 'water.used_l', drop_pct: 25, measure: 'Water per head' };
  test('median of the trailing days; a drop of more than 25 % is a drop, within 10 % recovered', () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 2, 3]), 2.5);
    assert.equal(judgeIntake(water, [100, 100, 100, 100, 100, 100, 100, 74], 100)?.level, 'drop');
    assert.equal(
      judgeIntake(water, [100, 100, 100, 100, 100, 100, 100, 75], 100)?.level,
      'between',
      '25 % exactly',
    );
    assert.equal(judgeIntake(water, [100, 100, 100, 100, 100, 100, 100, 91], 100)?.level, 'recovered');
    assert.equal(
      judgeIntake(water, [100, 100, 100, 100, 100, 100, 100, 120], 100)?.level,
      'between',
      'well above',
    );
    assert.equal(
      judgeIntake(water, [null, null, null, null, null, 100, 100, 10], 100),
      null,
      'two days: too few',
    );
    assert.equal(
      judgeIntake(water, [100, 100, 100, 100, 100, 100, 100, null], 100),
      null,
      'no readings that day',
    );
    const v = judgeIntake(water, [50, 52, 48, 50, 51, 49, 50, 30], 200);
    assert.equal(v?.day, 0.15);
    assert.equal(v?.median, 0.25);
    assert.equal(v?.belowPct, 40);
  });
});

forEachEngine('group.intake_drop', (t) => {
  test('a week of synthetic data: a 40 % drop in water opens a watch alert about the group; a day back within 10 % resolves it', async () => {
    const acct = await t().sharedAccount();
    const key = acct.live_key;
    const tz = 'America/Chicago';
    const farm = await make.farm(t(), key, { name: 'Layer farm', timezone: tz });
    const layers = await make.group(t(), key, farm.id, {
      name: 'Layers',
      species: 'chicken',
      head_count: 200,
    });
    const house = await make.device(t(), key, farm.id, {
      type: 'house',
      name: 'House 5',
      group_id: layers.id,
    });
    const stranger = await make.device(t(), key, farm.id, { type: 'water', name: 'Other trough' });
    const db = t().database.db;

    // Days of the farm's clock from 2033-03-01 (DST starts 03-13 in Chicago: one 23-hour day inside).
    const dayStart = (i: number) => localDayBounds(Date.UTC(2033, 2, 1 + i, 18), tz).start;
    async function day(i: number, waterL: number, feedKg: number) {
      // Eight reports a day, each with the water and feed used since the last.
      for (let k = 0; k < 8; k++) {
        const at = dayStart(i) + k * 3 * HOUR_MS + 30 * 60_000;
        await ingestReport(
          db,
          { deviceId: house.id },
          {
            readings: [
              { metric: 'water.used_l', value: waterL / 8 },
              { metric: 'feed.dispensed_kg', value: feedKg / 8 },
            ],
          },
          at,
        );
      }
    }
    const daily = [50, 52, 48, 50, 51, 49, 50];
    for (const [i, w] of daily.entries()) await day(i + 6, w, 24);
    // Another device not in the group drinks nothing: it does not count.
    await ingestReport(
      db,
      { deviceId: stranger.id },
      { readings: [{ metric: 'water.used_l', value: 900 }] },
      dayStart(12),
    );

    await checkIntake(db, dayStart(13) + HOUR_MS);
    assert.deepEqual(
      (await allAlerts(t(), key, farm.id)).filter((a) => a.rule === 'group.intake_drop'),
      [],
      'a normal week',
    );

    await day(13, 30, 22); // water 40 % below, feed 8 % below
    await checkIntake(db, dayStart(14) + HOUR_MS);
    const [alert, ...more] = (await allAlerts(t(), key, farm.id)).filter(
      (a) => a.rule === 'group.intake_drop',
    );
    assert.ok(alert);
    assert.equal(more.length, 0);
    assert.equal(alert.severity, 'watch');
    assert.equal(alert.subject_type, 'group');
    assert.equal(alert.subject_id, layers.id);
    assert.equal(alert.title, 'Water per head dropped for Layers');
    assert.equal(
      alert.reason,
      'Water per head for Layers on 2033-03-14: 0.15 L, 40% below its 7-day median of 0.25 L (the rule opens at more than 25% below)',
    );
    assert.deepEqual(
      (await outboxEvents(t(), farm.id, 'alert.created')).map((e) => e.data),
      [alert],
      'alert.created carries the group alert',
    );
    await checkIntake(db, dayStart(14) + 5 * HOUR_MS);
    assert.equal(
      (await outboxEvents(t(), farm.id, 'alert.created')).length,
      1,
      'later passes that day: nothing new',
    );

    await day(14, 42, 24); // 16 % below: not yet back
    await checkIntake(db, dayStart(15) + HOUR_MS);
    assert.equal((await allAlerts(t(), key, farm.id)).find((a) => a.id === alert.id)?.status, 'open');

    await day(15, 49, 24); // back within 10 % of the median
    await checkIntake(db, dayStart(16) + HOUR_MS);
    const resolved = (await allAlerts(t(), key, farm.id)).find((a) => a.id === alert.id);
    assert.equal(resolved?.status, 'resolved');
    assert.match(resolved?.reason ?? '', /— resolved: intake on 2033-03-16 back within 10% of the median$/);
    const words = alertWordsOf(resolved?.words);
    assert.ok(words?.note, 'the note is among the words');
    assert.equal(renderAlertReason('en', words), resolved?.reason);
    assert.match(
      String(renderAlertReason('es', words)),
      / — resuelta: el consumo del 2033-03-16 volvió a quedar dentro del 10% de la mediana$/,
    );
    assert.deepEqual(
      (await outboxEvents(t(), farm.id, 'alert.resolved')).map((e) => e.data),
      [resolved],
    );
  });
});
