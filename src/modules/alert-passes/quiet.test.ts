/** device.quiet: the background pass opens alerts for silent devices; their next report resolves them. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { allAlerts } from '../../../test/alert-engine.ts';
import * as make from '../../../test/factories.ts';
import { outboxEvents } from '../../../test/factories.ts';
import { forEachEngine } from '../../../test/harness.ts';
import type { ErrorReply } from '../../../test/replies.ts';
import { alertWordsOf, renderAlertReason } from '../../domain/alert-words.ts';
import { MINUTE_MS } from '../../lib/time.ts';
import type { Alert } from '../alerts/schemas.ts';
import { buildBrief } from '../brief/service.ts';
import type { Farm } from '../farms/schemas.ts';
import { ingestReport } from '../ingest/service.ts';
import { checkQuietDevices, quietLimitMs } from './quiet.ts';

const HOUR = 60 * MINUTE_MS;

test('quiet limit: max(3 × the usual interval (6 h unknown), the floor)', () => {
  assert.equal(quietLimitMs(10 * MINUTE_MS, 900), 30 * MINUTE_MS);
  assert.equal(quietLimitMs(2 * MINUTE_MS, 900), 15 * MINUTE_MS);
  assert.equal(quietLimitMs(null, 900), 6 * HOUR, 'a device with one report: 6 h, as in the brief');
  assert.equal(quietLimitMs(10 * MINUTE_MS, 7200), 2 * HOUR);
});

forEachEngine('device.quiet', (t) => {
  // Each test has its own farm and its own stretch of time, far from the others', so a pass at a test's
  // `now` only finds that test's devices silent (earlier tests' devices already have their alerts).
  let epoch = Date.UTC(2030, 0, 1);
  function clockStart(): number {
    epoch += 30 * 24 * HOUR;
    return epoch;
  }

  async function setup(devices: Array<{ type: string; name: string }>) {
    const acct = await t().sharedAccount();
    const farm = await make.farm(t(), acct.live_key, { name: 'Quiet farm' });
    const made = [];
    for (const d of devices) made.push(await make.device(t(), acct.live_key, farm.id, d));
    return { key: acct.live_key, farmId: farm.id, devices: made };
  }

  /** Reports every `everyMs` from `start`, `n` times; returns the last report's time. */
  async function reportEvery(deviceId: string, start: number, everyMs: number, n: number): Promise<number> {
    let at = start;
    for (let i = 0; i < n; i++) {
      at = start + i * everyMs;
      await ingestReport(
        t().database.db,
        { deviceId },
        { readings: [{ metric: 'device.battery_pct', value: 80 }] },
        at,
      );
    }
    return at;
  }

  const quietAlerts = async (key: string, farmId: string): Promise<Alert[]> =>
    (await allAlerts(t(), key, farmId)).filter((a) => a.rule === 'device.quiet');

  test('opens a watch alert after 3 × the usual interval, emits alert.created; the next report resolves it', async () => {
    const { key, farmId, devices } = await setup([{ type: 'water', name: 'North trough' }]);
    const trough = devices[0];
    assert.ok(trough);
    const last = await reportEvery(trough.id, clockStart(), 10 * MINUTE_MS, 4);
    const db = t().database.db;

    await checkQuietDevices(db, last + 29 * MINUTE_MS);
    assert.deepEqual(await quietAlerts(key, farmId), [], 'silent 29 min, usually every 10: not yet');

    await checkQuietDevices(db, last + 30 * MINUTE_MS);
    const [alert, ...more] = await quietAlerts(key, farmId);
    assert.ok(alert);
    assert.equal(more.length, 0);
    assert.equal(alert.severity, 'watch');
    assert.equal(alert.status, 'open');
    assert.equal(alert.subject_type, 'device');
    assert.equal(alert.subject_id, trough.id);
    assert.equal(alert.title, 'No reports from North trough');
    assert.equal(
      alert.reason,
      `North trough has sent no report for 30 min (usually every 10 min); last report ${new Date(last).toISOString()}`,
    );
    assert.deepEqual(
      (await outboxEvents(t(), farmId, 'alert.created')).map((e) => e.data),
      [alert],
      'alert.created carries the alert',
    );

    const acct = await t().sharedAccount();
    const brief = await buildBrief(db, { accountId: acct.account_id, mode: 'live' }, farmId, last + HOUR);
    assert.deepEqual(
      brief.items.filter((i) => i.subject_id === trough.id).map((i) => `${i.kind} ${i.title}`),
      ['alert No reports from North trough'],
      'the brief tells of it once, as the alert (not again as a quiet device)',
    );

    await checkQuietDevices(db, last + 5 * HOUR);
    assert.equal(
      (await quietAlerts(key, farmId)).length,
      1,
      'later passes change nothing (a trough never turns urgent)',
    );
    assert.equal((await outboxEvents(t(), farmId, 'alert.created')).length, 1);

    const back = last + 6 * HOUR;
    await ingestReport(
      db,
      { deviceId: trough.id },
      { readings: [{ metric: 'device.battery_pct', value: 79 }] },
      back,
    );
    const [resolved] = await quietAlerts(key, farmId);
    assert.equal(resolved?.status, 'resolved');
    assert.match(resolved?.reason ?? '', /— resolved: North trough reported again /);
    // The note joins the alert's words: a Spanish reader reads it too, the English rendering is the stored text.
    const words = alertWordsOf(resolved?.words);
    assert.ok(words?.note, 'the note is among the words');
    assert.equal(renderAlertReason('en', words), resolved?.reason);
    assert.match(
      String(renderAlertReason('es', words)),
      / — resuelta: North trough volvió a reportar el \d{4}-/,
    );
    assert.deepEqual(
      (await outboxEvents(t(), farmId, 'alert.resolved')).map((e) => e.data),
      [resolved],
      'alert.resolved carries the resolved alert',
    );

    await ingestReport(
      db,
      { deviceId: trough.id },
      { readings: [{ metric: 'device.battery_pct', value: 79 }] },
      back + MINUTE_MS,
    );
    assert.equal(
      (await outboxEvents(t(), farmId, 'alert.resolved')).length,
      1,
      'a later report resolves nothing more',
    );
  });

  test('a device with a short interval is quiet after 15 min; a house escalates to urgent after 6 h', async () => {
    const { key, farmId, devices } = await setup([{ type: 'house', name: 'House 3' }]);
    const house = devices[0];
    assert.ok(house);
    const last = await reportEvery(house.id, clockStart(), MINUTE_MS, 5);
    const db = t().database.db;
    await checkQuietDevices(db, last + 14 * MINUTE_MS);
    assert.equal((await quietAlerts(key, farmId)).length, 0);
    await checkQuietDevices(db, last + 15 * MINUTE_MS);
    assert.equal((await quietAlerts(key, farmId))[0]?.severity, 'watch');
    await checkQuietDevices(db, last + 6 * HOUR);
    const [urgent] = await quietAlerts(key, farmId);
    assert.equal(urgent?.severity, 'urgent');
    assert.equal(urgent?.status, 'open');
    assert.match(urgent?.reason ?? '', /a house silent 6 h or more is urgent$/);
    assert.equal(
      (await outboxEvents(t(), farmId, 'alert.created')).length,
      1,
      'escalation is not a new alert',
    );
  });

  test('a farm sets quiet_after_s per device type, or turns the rule off', async () => {
    const { key, farmId, devices } = await setup([
      { type: 'water', name: 'Trough' },
      { type: 'tag', name: 'Tag 9' },
    ]);
    const [trough, tag] = devices;
    assert.ok(trough && tag);
    const patched = await t().request<Farm>('PATCH', `/v1/farms/${farmId}`, {
      key,
      body: { settings: { rules: { 'device.quiet': { quiet_after_s: { water: 7200 } } } } },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const start = clockStart();
    const lastTrough = await reportEvery(trough.id, start, MINUTE_MS, 3);
    await reportEvery(tag.id, start, MINUTE_MS, 3);
    const db = t().database.db;
    await checkQuietDevices(db, lastTrough + HOUR);
    assert.deepEqual(
      (await quietAlerts(key, farmId)).map((a) => a.subject_id),
      [tag.id],
      'the tag (default floor) is quiet; the trough has 2 h',
    );
    await checkQuietDevices(db, lastTrough + 2 * HOUR);
    assert.equal((await quietAlerts(key, farmId)).length, 2);

    const bad = await t().request<ErrorReply>('PATCH', `/v1/farms/${farmId}`, {
      key,
      body: { settings: { rules: { 'device.quiet': { quiet_after_s: { water: 60 } } } } },
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.param, 'settings.rules.device.quiet.quiet_after_s.water');

    const off = await t().request('PATCH', `/v1/farms/${farmId}`, {
      key,
      body: { settings: { rules: { 'device.quiet': { enabled: false } } } },
    });
    assert.equal(off.status, 200);
    const tag2 = await make.device(t(), key, farmId, { type: 'tag', name: 'Tag 11' });
    const lastTag2 = await reportEvery(tag2.id, lastTrough + 3 * HOUR, MINUTE_MS, 3);
    await checkQuietDevices(db, lastTag2 + 2 * HOUR);
    assert.equal((await quietAlerts(key, farmId)).length, 2, 'rule off: no new quiet alert');
  });

  test('a device that never reported is not alerted (the brief lists it)', async () => {
    const { key, farmId } = await setup([{ type: 'tag', name: 'Never' }]);
    await checkQuietDevices(t().database.db, clockStart() + 48 * HOUR);
    assert.equal((await quietAlerts(key, farmId)).length, 0);
  });

  test('three processes running the pass at once open each alert exactly once', async (ctx) => {
    if (t().engine !== 'postgres') {
      ctx.skip('several processes share a database only on PostgreSQL');
      return;
    }
    const acct = await t().sharedAccount();
    const farm = await make.farm(t(), acct.live_key, { name: 'Three processes' });
    const start = Date.UTC(2031, 0, 1);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const d = await make.device(t(), acct.live_key, farm.id, { type: 'water', name: `Trough ${i}` });
      ids.push(d.id);
      await reportEvery(d.id, start - 20 * MINUTE_MS, 10 * MINUTE_MS, 3);
    }
    const url = t().config.databaseUrl ?? '';
    const script = path.resolve(import.meta.dirname, '../../../test/quiet-pass.ts');
    const startAt = Date.now() + 1500;
    const now = start + HOUR;
    const runs = await Promise.all(
      [0, 1, 2].map(() =>
        promisify(execFile)(process.execPath, [script, url, String(now), String(startAt)], {
          env: { PATH: process.env.PATH ?? '' },
        }),
      ),
    );
    const results = runs.map((r) => JSON.parse(r.stdout) as { ran: boolean; opened: number });
    const opened = results.reduce((n, r) => n + r.opened, 0);
    const quiet = (await allAlerts(t(), acct.live_key, farm.id)).filter((a) => a.rule === 'device.quiet');
    assert.deepEqual(quiet.map((a) => a.subject_id).sort(), [...ids].sort(), 'one alert per device');
    const created = await outboxEvents(t(), farm.id, 'alert.created');
    assert.equal(created.length, 5, 'alert.created exactly once per device');
    // The sample farm's devices share the database; only this farm's five are counted here.
    assert.ok(opened >= 5, JSON.stringify(results));
  });
});
