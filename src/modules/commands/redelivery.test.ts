import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { expectError, forEachEngine } from '../../../test/harness.ts';
import type { Command, List } from '../../../test/replies.ts';
import { ingestReport } from '../ingest/service.ts';
import { answerCommand, pickUpCommands, pollCommands } from './service.ts';

forEachEngine('command redelivery', (t) => {
  // Farms of their own on the one shared account: a fresh account per test would seed a sample farm each time.
  test('a command whose ingest response was lost is handed out again after its window, counting attempts', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const device = await make.device(t(), acct.live_key, farm);
    const queued = await t().request<Command>('POST', `/v1/devices/${device.id}/commands`, {
      key: acct.live_key,
      body: { command: 'doors.close', params: { doors: 'all' } },
    });
    assert.equal(queued.body.delivery_attempts, 0);
    assert.equal(queued.body.redeliver_after_s, 60, 'the default window');
    const db = t().database.db;
    const caller = { deviceId: device.id };
    const start = Date.now();

    // The response carrying the command is lost on the way to the device.
    const lost = await ingestReport(db, caller, {}, start);
    assert.deepEqual(
      lost.commands.map((c) => [c.id, c.delivery_attempts]),
      [[queued.body.id, 1]],
    );
    assert.deepEqual(
      (await ingestReport(db, caller, {}, start + 59_000)).commands,
      [],
      'not within the window',
    );
    const again = await ingestReport(db, caller, {}, start + 61_000);
    assert.deepEqual(
      again.commands.map((c) => [c.id, c.status, c.delivery_attempts]),
      [[queued.body.id, 'delivered', 2]],
    );
    assert.equal(
      again.commands[0]?.delivered_at,
      lost.commands[0]?.delivered_at,
      'delivered_at is the first hand-out',
    );

    // A poll is a hand-out too, with its own window.
    const polled = await pollCommands(db, caller, start + 122_000);
    assert.equal(polled[0]?.delivery_attempts, 3);

    const done = await answerCommand(
      db,
      caller,
      queued.body.id,
      { status: 'done', result: { ok: 1 } },
      start + 123_000,
    );
    assert.equal(done.status, 'done');
    assert.deepEqual(
      await pickUpCommands(db, device.id, start + 600_000),
      [],
      'an answered command is not handed out',
    );
    const twice = await t().request('POST', `/v1/device/commands/${queued.body.id}`, {
      key: device.device_key,
      body: { status: 'failed' },
    });
    expectError(twice, 409, 'conflict');
    const history = await t().request<List<Command>>('GET', `/v1/devices/${device.id}/commands`, {
      key: acct.live_key,
    });
    assert.equal(history.body.data[0]!.status, 'done');
    assert.deepEqual(history.body.data[0]!.result, { ok: 1 });
    assert.equal(history.body.data[0]!.delivery_attempts, 3);
  });

  test('redeliver_after_s is per command; expired commands are never handed out again', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const device = await make.device(t(), acct.live_key, farm);
    const send = (body: Record<string, unknown>) =>
      t().request<Command>('POST', `/v1/devices/${device.id}/commands`, { key: acct.live_key, body });
    const quick = await send({ command: 'lights.set', params: { mode: 'on' }, redeliver_after_s: 5 });
    assert.equal(quick.body.redeliver_after_s, 5);
    const short = await send({ command: 'floor.deploy', expires_in_s: 8 });
    for (const redeliver_after_s of [0, 1.5, 'soon']) {
      const err = expectError(
        await send({ command: 'floor.deploy', redeliver_after_s }),
        400,
        'invalid_request',
      );
      assert.equal(err.param, 'redeliver_after_s');
    }
    const db = t().database.db;
    const start = Date.parse(short.body.created_at);
    assert.equal((await pickUpCommands(db, device.id, start + 100)).length, 2);
    const later = await pickUpCommands(db, device.id, start + 6_000);
    assert.deepEqual(
      later.map((c) => c.id),
      [quick.body.id],
      'only the command with the 5 s window is due',
    );
    const afterExpiry = await pickUpCommands(db, device.id, start + 70_000);
    assert.deepEqual(
      afterExpiry.map((c) => [c.id, c.delivery_attempts]),
      [[quick.body.id, 3]],
      'the expired command is not handed out again',
    );
  });
});
