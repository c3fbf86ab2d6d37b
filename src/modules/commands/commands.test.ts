import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { expectError, forEachEngine, type TestApp } from '../../../test/harness.ts';
import type {
  Command,
  Device,
  HouseDevice,
  HouseReply,
  Items,
  List,
  NewDevice,
  Paddock,
} from '../../../test/replies.ts';
import { HOUR_MS } from '../../lib/time.ts';
import { expireDueCommands, pollCommands } from './service.ts';

function send(t: TestApp, key: string, deviceId: string, body: unknown) {
  return t.request<Command>('POST', `/v1/devices/${deviceId}/commands`, { key, body });
}

forEachEngine('commands', (t) => {
  test('command lifecycle over HTTP: queued, delivered by poll, done with a result', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const house = await make.device(t(), acct.live_key, farm);
    const before = Date.now();
    const queued = await send(t(), acct.live_key, house.id, {
      command: 'doors.open',
      params: { doors: [1, 2] },
    });
    assert.equal(queued.status, 201, JSON.stringify(queued.body));
    const cmd = queued.body;
    assert.match(cmd.id, /^cmd_/);
    assert.equal(cmd.device_id, house.id);
    assert.equal(cmd.farm_id, farm);
    assert.equal(cmd.command, 'doors.open');
    assert.deepEqual(cmd.params, { doors: [1, 2] });
    assert.equal(cmd.status, 'queued');
    assert.equal(cmd.result, null);
    assert.equal(cmd.done_at, null);
    const expiresIn = Date.parse(cmd.expires_at) - Date.parse(cmd.created_at);
    assert.equal(expiresIn, 24 * HOUR_MS, 'commands expire after 24 h by default');
    assert.ok(Date.parse(cmd.created_at) >= before);
    assert.deepEqual((await make.outboxEvents(t(), farm, 'command.queued'))[0]?.data, cmd);

    const poll = await t().request<Items<Command>>('GET', '/v1/device/commands', { key: house.device_key });
    assert.equal(poll.status, 200);
    assert.equal(poll.body.data.length, 1);
    assert.equal(poll.body.data[0]!.id, cmd.id);
    assert.equal(poll.body.data[0]!.status, 'delivered');
    assert.ok(poll.body.data[0]!.delivered_at);
    const again = await t().request<Items<Command>>('GET', '/v1/device/commands', { key: house.device_key });
    assert.deepEqual(again.body.data, [], 'delivered once');
    const seen = await t().request<Device>('GET', `/v1/devices/${house.id}`, { key: acct.live_key });
    assert.ok(seen.body.last_seen_at, 'a poll counts as the device being seen');

    const done = await t().request<Command>('POST', `/v1/device/commands/${cmd.id}`, {
      key: house.device_key,
      body: { status: 'done', result: { opened: [1, 2] } },
    });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal(done.body.status, 'done');
    assert.deepEqual(done.body.result, { opened: [1, 2] });
    assert.ok(Date.parse(done.body.done_at!) >= Date.parse(cmd.created_at));
    assert.deepEqual((await make.outboxEvents(t(), farm, 'command.done'))[0]?.data, done.body);

    const history = await t().request<List<Command>>('GET', `/v1/devices/${house.id}/commands`, {
      key: acct.live_key,
    });
    assert.equal(history.status, 200);
    assert.deepEqual(history.body.data, [done.body]);
  });

  test('a device reporting failure stores its result and emits command.failed', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const house = await make.device(t(), acct.live_key, farm);
    const cmd = (await send(t(), acct.live_key, house.id, { command: 'move.start' })).body;
    await make.report(t(), house.device_key, {});
    const failed = await t().request<Command>('POST', `/v1/device/commands/${cmd.id}`, {
      key: house.device_key,
      body: { status: 'failed', result: { error: 'safety_edge', detail: 'obstacle' } },
    });
    assert.equal(failed.status, 200);
    assert.equal(failed.body.status, 'failed');
    assert.deepEqual(failed.body.result, { error: 'safety_edge', detail: 'obstacle' });
    assert.deepEqual((await make.outboxEvents(t(), farm, 'command.failed'))[0]?.data, failed.body);
    const noResult = (await send(t(), acct.live_key, house.id, { command: 'floor.deploy' })).body;
    await t().request('GET', '/v1/device/commands', { key: house.device_key });
    const bare = await t().request<Command>('POST', `/v1/device/commands/${noResult.id}`, {
      key: house.device_key,
      body: { status: 'done' },
    });
    assert.deepEqual(bare.body.result, {}, 'result defaults to an empty object');
  });

  test('answering a command not its own, not yet delivered or already finished is refused; nothing changes', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const a = await make.device(t(), acct.live_key, farm, { name: 'House A' });
    const b = await make.device(t(), acct.live_key, farm, { name: 'House B' });
    const other = await t().account();
    const otherFarm = (await make.farm(t(), other.live_key)).id;
    const foreign = await make.device(t(), other.live_key, otherFarm);

    const cmd = (await send(t(), acct.live_key, a.id, { command: 'lights.set', params: { mode: 'off' } }))
      .body;
    const answer = (key: string, id = cmd.id, status = 'done') =>
      t().request('POST', `/v1/device/commands/${id}`, { key, body: { status, result: { ok: true } } });

    const early = expectError(await answer(a.device_key), 409, 'conflict');
    assert.match(early.message, /not been delivered/);
    const pollB = await t().request<Items<Command>>('GET', '/v1/device/commands', { key: b.device_key });
    assert.deepEqual(pollB.body.data, [], "another device never receives this device's commands");
    await t().request('GET', '/v1/device/commands', { key: a.device_key });
    expectError(await answer(b.device_key), 404, 'not_found');
    expectError(await answer(foreign.device_key), 404, 'not_found');
    expectError(await answer(a.device_key, 'cmd_doesnotexist'), 404, 'not_found');
    const badStatus = expectError(await answer(a.device_key, cmd.id, 'delivered'), 400, 'invalid_request');
    assert.equal(badStatus.param, 'status');
    const history = await t().request<List<Command>>('GET', `/v1/devices/${a.id}/commands`, {
      key: acct.live_key,
    });
    assert.equal(history.body.data[0]!.status, 'delivered', 'refusals changed nothing');

    assert.equal((await answer(a.device_key)).status, 200);
    const twice = expectError(await answer(a.device_key, cmd.id, 'failed'), 409, 'conflict');
    assert.match(twice.message, /already done/);
    const final = await t().request<List<Command>>('GET', `/v1/devices/${a.id}/commands`, {
      key: acct.live_key,
    });
    assert.equal(final.body.data[0]!.status, 'done');
    assert.equal((await make.outboxEvents(t(), farm, 'command.done')).length, 1);
    assert.equal((await make.outboxEvents(t(), farm, 'command.failed')).length, 0);
  });

  test('commands expire: queued or delivered past expiry become failed with result.error "expired"', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const house = await make.device(t(), acct.live_key, farm);
    const db = t().database.db;
    const short = (await send(t(), acct.live_key, house.id, { command: 'floor.deploy', expires_in_s: 60 }))
      .body;
    const delivered = (
      await send(t(), acct.live_key, house.id, { command: 'floor.retract', expires_in_s: 120 })
    ).body;
    await pollCommands(db, { deviceId: house.id }, Date.parse(delivered.created_at));
    const later = (
      await send(t(), acct.live_key, house.id, { command: 'lights.set', params: { mode: 'on' } })
    ).body;
    const created = Date.parse(short.created_at);

    assert.equal(await expireDueCommands(db, created + 59_000), 0, 'nothing is due before its expiry');
    assert.equal(await expireDueCommands(db, created + 10 * 60_000), 2);
    const history = await t().request<List<Command>>('GET', `/v1/devices/${house.id}/commands`, {
      key: acct.live_key,
    });
    const byId = Object.fromEntries(history.body.data.map((c) => [c.id, c]));
    for (const id of [short.id, delivered.id]) {
      assert.equal(byId[id]!.status, 'failed');
      assert.deepEqual(byId[id]!.result, { error: 'expired' });
      assert.ok(byId[id]!.done_at);
    }
    assert.equal(byId[later.id]!.status, 'queued', 'the default expiry is a day');
    const failedEvents = await make.outboxEvents(t(), farm, 'command.failed');
    assert.deepEqual(failedEvents.map((e) => e.data.id).sort(), [short.id, delivered.id].sort());
    assert.equal(await expireDueCommands(db, created + 10 * 60_000), 0, 'each command expires once');

    const late = expectError(
      await t().request('POST', `/v1/device/commands/${delivered.id}`, {
        key: house.device_key,
        body: { status: 'done' },
      }),
      409,
      'conflict',
    );
    assert.match(late.message, /already failed/);

    // A command past its expiry is not handed out even before the sweep reaches it.
    const dayLater = Date.parse(later.created_at) + 24 * HOUR_MS + 1;
    assert.deepEqual(await pollCommands(db, { deviceId: house.id }, dayLater), []);
    assert.equal(await expireDueCommands(db, dayLater), 1);

    for (const expires_in_s of [0, 31 * 86_400, 1.5]) {
      const err = expectError(
        await send(t(), acct.live_key, house.id, { command: 'floor.deploy', expires_in_s }),
        400,
        'invalid_request',
      );
      assert.equal(err.param, 'expires_in_s');
    }
  });

  test('expiry works through many commands in batches, once even with two sweeps at once', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const device = await make.device(t(), acct.live_key, farm, { type: 'other', name: 'Relay' });
    for (let i = 0; i < 7; i++) {
      await send(t(), acct.live_key, device.id, { command: `relay.${i}`, expires_in_s: 1 });
    }
    // Two sweeps at once (as from two processes) expire and announce each command once.
    const now = Date.now() + 5_000;
    const db = t().database.db;
    const [a, b] = await Promise.all([
      expireDueCommands(db, now, { batchSize: 3 }),
      expireDueCommands(db, now, { batchSize: 3 }),
    ]);
    assert.equal(a + b, 7);
    assert.equal((await make.outboxEvents(t(), farm, 'command.failed')).length, 7);
    const left = await t().request<List<Command>>('GET', `/v1/devices/${device.id}/commands?status=queued`, {
      key: acct.live_key,
    });
    assert.deepEqual(left.body.data, []);
  });

  test('house commands: an unknown command is 400 listing the valid ones', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const house = await make.device(t(), acct.live_key, farm);
    const err = expectError(
      await send(t(), acct.live_key, house.id, { command: 'doors.explode' }),
      400,
      'invalid_request',
    );
    assert.equal(err.param, 'command');
    for (const name of ['doors.open', 'move.start', 'heaters.set', 'lights.set', 'floor.retract']) {
      assert.ok(err.message.includes(name), `lists ${name}`);
    }
  });

  test('house commands: every parameter is checked, naming it; nothing is queued on refusal', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const otherFarm = (await make.farm(t(), acct.live_key, { name: 'Other' })).id;
    const foreignPaddock = await t().request<Paddock>('POST', `/v1/farms/${otherFarm}/paddocks`, {
      key: acct.live_key,
      body: { name: 'Far field' },
    });
    assert.equal(foreignPaddock.status, 201);
    const house = await make.device(t(), acct.live_key, farm);
    const cases: [string, unknown, string][] = [
      ['doors.open', {}, 'params.doors'],
      ['doors.open', { doors: 'some' }, 'params.doors'],
      ['doors.open', { doors: [] }, 'params.doors'],
      ['doors.open', { doors: [0] }, 'params.doors[0]'],
      ['doors.open', { doors: [1, 15] }, 'params.doors[1]'],
      ['doors.close', { doors: [2, 3, 2] }, 'params.doors[2]'],
      ['doors.close', { doors: [1.5] }, 'params.doors[0]'],
      ['doors.close', { doors: ['1'] }, 'params.doors[0]'],
      ['doors.open', { doors: 'all', speed: 2 }, 'params.speed'],
      ['doors.schedule', {}, 'params'],
      ['doors.schedule', { open: '25:00' }, 'params.open'],
      ['doors.schedule', { open: '7:00' }, 'params.open'],
      ['doors.schedule', { open: 'dusk' }, 'params.open'],
      ['doors.schedule', { close: 'noon' }, 'params.close'],
      ['doors.schedule', { close: 'dawn' }, 'params.close'],
      ['move.start', { meters_per_day: 0 }, 'params.meters_per_day'],
      ['move.start', { meters_per_day: -3 }, 'params.meters_per_day'],
      ['move.start', { meters_per_day: 'fast' }, 'params.meters_per_day'],
      ['move.start', { heading_deg: 360 }, 'params.heading_deg'],
      ['move.start', { heading_deg: -1 }, 'params.heading_deg'],
      ['move.stop', { now: true }, 'params.now'],
      ['move.to_paddock', {}, 'params.paddock_id'],
      ['move.to_paddock', { paddock_id: 'pad_missing' }, 'params.paddock_id'],
      ['move.to_paddock', { paddock_id: foreignPaddock.body.id }, 'params.paddock_id'],
      ['move.to_paddock', { paddock_id: 7 }, 'params.paddock_id'],
      ['feed.dispense', {}, 'params.kg'],
      ['feed.dispense', { kg: 0 }, 'params.kg'],
      ['feed.dispense', { kg: '5' }, 'params.kg'],
      ['feed.schedule', { times: [] }, 'params.times'],
      ['feed.schedule', { times: ['7am'] }, 'params.times[0]'],
      ['feed.schedule', { times: ['06:00', '06:00'] }, 'params.times[1]'],
      ['spines.set_height', {}, 'params'],
      ['spines.set_height', { mm: -5 }, 'params.mm'],
      ['spines.set_height', { mode: 'manual' }, 'params.mode'],
      ['spines.set_height', { mm: 300, mode: 'auto' }, 'params.mode'],
      ['climate.set_mode', { mode: 'hot' }, 'params.mode'],
      ['climate.set_mode', {}, 'params.mode'],
      ['climate.set_target', { temp_c: 'warm' }, 'params.temp_c'],
      ['climate.set_target', { temp_c: 50 }, 'params.temp_c'],
      ['awnings.set', { position: 'half' }, 'params.position'],
      ['fans.set', {}, 'params'],
      ['fans.set', { tunnel: 'fast' }, 'params.tunnel'],
      ['fans.set', { ridge: 'max' }, 'params.ridge'],
      ['heaters.set', {}, 'params.mode'],
      ['heaters.set', { mode: 'warm' }, 'params.mode'],
      ['heaters.set', { mode: 'on', panels: [7] }, 'params.panels[0]'],
      ['heaters.set', { mode: 'on', panels: [0] }, 'params.panels[0]'],
      ['heaters.set', { mode: 'on', panels: 'all' }, 'params.panels'],
      ['floor.deploy', { fast: true }, 'params.fast'],
      ['floor.retract', { x: 1 }, 'params.x'],
      ['lights.set', { mode: 'dim' }, 'params.mode'],
    ];
    for (const [command, params, param] of cases) {
      const err = expectError(
        await send(t(), acct.live_key, house.id, { command, params }),
        400,
        'invalid_request',
      );
      assert.equal(err.param, param, `${command} ${JSON.stringify(params)}: ${err.message}`);
    }
    const notObject = expectError(
      await send(t(), acct.live_key, house.id, { command: 'lights.set', params: ['on'] }),
      400,
      'invalid_request',
    );
    assert.equal(notObject.param, 'params');
    expectError(await send(t(), acct.live_key, house.id, { params: { mode: 'on' } }), 400, 'invalid_request');
    const history = await t().request<List<Command>>('GET', `/v1/devices/${house.id}/commands`, {
      key: acct.live_key,
    });
    assert.deepEqual(history.body.data, [], 'nothing was queued');
  });

  test('house commands: valid commands are queued with their params; move.start stores 18 m/day by default', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const paddock = await make.paddock(t(), acct.live_key, farm, { name: 'North' });
    const house = await make.device(t(), acct.live_key, farm);
    const valid: [string, Record<string, unknown> | undefined, Record<string, unknown>][] = [
      ['doors.open', { doors: 'all' }, { doors: 'all' }],
      ['doors.close', { doors: [14, 1] }, { doors: [14, 1] }],
      ['doors.schedule', { open: 'dawn', close: '20:30' }, { open: 'dawn', close: '20:30' }],
      ['move.start', undefined, { meters_per_day: 18 }],
      ['move.start', { meters_per_day: 30, heading_deg: 270 }, { meters_per_day: 30, heading_deg: 270 }],
      ['move.stop', undefined, {}],
      ['move.to_paddock', { paddock_id: paddock.id }, { paddock_id: paddock.id }],
      ['feed.dispense', { kg: 12.5 }, { kg: 12.5 }],
      ['feed.schedule', { times: ['06:00', '17:30'] }, { times: ['06:00', '17:30'] }],
      ['spines.set_height', { mm: 250 }, { mm: 250 }],
      ['spines.set_height', { mode: 'auto' }, { mode: 'auto' }],
      ['climate.set_mode', { mode: 'winter' }, { mode: 'winter' }],
      ['climate.set_target', { temp_c: 22.5 }, { temp_c: 22.5 }],
      ['awnings.set', { position: 'closed' }, { position: 'closed' }],
      ['fans.set', { tunnel: 'on' }, { tunnel: 'on' }],
      ['heaters.set', { mode: 'on', panels: [1, 6] }, { mode: 'on', panels: [1, 6] }],
      ['floor.deploy', {}, {}],
      ['floor.retract', undefined, {}],
      ['lights.set', { mode: 'auto' }, { mode: 'auto' }],
    ];
    for (const [command, params, stored] of valid) {
      const res = await send(t(), acct.live_key, house.id, { command, ...(params ? { params } : {}) });
      assert.equal(res.status, 201, `${command}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.status, 'queued');
      assert.deepEqual(res.body.params, stored, command);
    }
  });

  test('commands for other device types follow the catalog where it defines them, else any name', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const tag = await make.device(t(), acct.live_key, farm, { type: 'tag', name: 'Tag' });
    const weather = await make.device(t(), acct.live_key, farm, { type: 'weather', name: 'Station' });
    const guardian = await make.device(t(), acct.live_key, farm, { type: 'guardian', name: 'Guard' });
    const notForTags = expectError(
      await send(t(), acct.live_key, tag.id, { command: 'doors.open', params: { doors: 'all' } }),
      400,
      'invalid_request',
    );
    assert.match(notForTags.message, /locate/);
    const interval = expectError(
      await send(t(), acct.live_key, tag.id, { command: 'set_report_interval', params: { seconds: 5 } }),
      400,
      'invalid_request',
    );
    assert.equal(interval.param, 'params.seconds');
    assert.equal((await send(t(), acct.live_key, tag.id, { command: 'locate' })).status, 201);
    const alarm = await send(t(), acct.live_key, guardian.id, { command: 'alarm.sound' });
    assert.deepEqual(alarm.body.params, { seconds: 30 }, 'catalog defaults are stored');
    const free = await send(t(), acct.live_key, weather.id, {
      command: 'calibrate.anemometer',
      params: { offset: 0.3, note: 'spring' },
    });
    assert.equal(free.status, 201);
    assert.deepEqual(free.body.params, { offset: 0.3, note: 'spring' }, 'stored as sent');
  });

  test('GET /v1/devices/{id}/commands lists the history newest first, pages and filters by status', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const device = await make.device(t(), acct.live_key, farm, { type: 'other', name: 'Relay' });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await send(t(), acct.live_key, device.id, { command: `c${i}` })).body.id);
    const seen: string[] = [];
    let url = `/v1/devices/${device.id}/commands?limit=2`;
    for (;;) {
      const page = await t().request<List<Command>>('GET', url, { key: acct.live_key });
      seen.push(...page.body.data.map((c) => c.id));
      if (!page.body.has_more) break;
      url = `/v1/devices/${device.id}/commands?limit=2&before=${encodeURIComponent(page.body.next_before!)}`;
    }
    assert.deepEqual(seen, [...ids].sort().reverse());
    await make.report(t(), device.device_key, {});
    const delivered = await t().request<List<Command>>(
      'GET',
      `/v1/devices/${device.id}/commands?status=delivered`,
      {
        key: acct.live_key,
      },
    );
    assert.equal(delivered.body.data.length, 5);
  });

  test('sample farm: a command skips the queue, returns done with simulated: true and changes the house state', async () => {
    const acct = await t().sharedAccount();
    const created = await t().request<NewDevice>('POST', `/v1/farms/${acct.sample_farm_id}/devices`, {
      key: acct.test_key,
      body: { type: 'house', name: 'Sample House' },
    });
    const house = created.body;
    const paddock = await t().request<Paddock>('POST', `/v1/farms/${acct.sample_farm_id}/paddocks`, {
      key: acct.test_key,
      body: { name: 'Clover' },
    });
    const run = async (command: string, params?: Record<string, unknown>) => {
      const res = await send(t(), acct.test_key, house.id, { command, ...(params ? { params } : {}) });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.body.status, 'done');
      assert.equal(res.body.result!.simulated, true);
      assert.ok(res.body.done_at);
      return res.body;
    };
    await run('doors.open', { doors: [1, 2, 14] });
    await run('move.start', { heading_deg: 90 });
    await run('climate.set_target', { temp_c: 26 });
    await run('climate.set_mode', { mode: 'summer' });
    await run('heaters.set', { mode: 'on', panels: [2] });
    await run('floor.deploy');
    await run('lights.set', { mode: 'on' });
    await run('fans.set', { ridge: 'on' });
    await run('awnings.set', { position: 'open' });
    await run('doors.schedule', { close: '21:15' });
    await run('spines.set_height', { mm: 180 });
    await run('feed.schedule', { times: ['17:00', '06:30'] });

    const view = await t().request<HouseReply>('GET', `/v1/houses/${house.id}`, { key: acct.test_key });
    assert.equal(view.status, 200);
    const state = view.body.state;
    assert.equal(state.doors['1'], 'open');
    assert.equal(state.doors['2'], 'open');
    assert.equal(state.doors['14'], 'open');
    assert.equal(state.doors['3'], 'closed');
    assert.deepEqual(state.move, {
      status: 'stepping',
      meters_per_day: 18,
      heading_deg: 90,
      target_paddock_id: null,
    });
    assert.deepEqual(state.climate, { mode: 'summer', target_temp_c: 26 });
    assert.equal(state.heaters.panels['2'], 'on');
    assert.equal(state.heaters.mode, 'mixed');
    assert.equal(state.floor, 'deployed');
    assert.equal(state.lights, 'on');
    assert.deepEqual(state.fans, { tunnel: 'auto', ridge: 'on' });
    assert.equal(state.awnings, 'open');
    assert.deepEqual(state.door_schedule, { open: 'dawn', close: '21:15' });
    assert.deepEqual(state.spines, { height_mm: 180, mode: 'manual' });
    assert.deepEqual(state.feed.schedule, ['06:30', '17:00']);
    assert.equal(view.body.recent_commands.length, 10, 'the view carries the last 10 commands');
    assert.equal(view.body.recent_commands[0]!.command, 'feed.schedule', 'newest first');

    await run('move.to_paddock', { paddock_id: paddock.body.id });
    await run('move.stop');
    const after = await t().request<HouseDevice>('GET', `/v1/devices/${house.id}`, { key: acct.test_key });
    assert.equal(after.body.state.move.status, 'stopped');

    const mine = (events: Array<{ data: Record<string, unknown> }>) =>
      events.filter((e) => e.data.device_id === house.id);
    assert.equal(mine(await make.outboxEvents(t(), acct.sample_farm_id, 'command.queued')).length, 0);
    assert.equal(mine(await make.outboxEvents(t(), acct.sample_farm_id, 'command.done')).length, 14);
    const poll = await t().request<Items<Command>>('GET', '/v1/device/commands', { key: house.device_key });
    assert.deepEqual(poll.body.data, [], 'nothing waits in a queue');

    const sensor = await t().request<NewDevice>('POST', `/v1/farms/${acct.sample_farm_id}/devices`, {
      key: acct.test_key,
      body: { type: 'tag', name: 'Sample tag' },
    });
    const locate = await send(t(), acct.test_key, sensor.body.id, { command: 'locate' });
    assert.equal(locate.body.status, 'done');
    assert.deepEqual(locate.body.result, { simulated: true });
  });

  test('a test-mode farm that is not the sample farm queues commands like a live one', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.test_key, { name: 'Trial' })).id;
    const house = await make.device(t(), acct.test_key, farm);
    const res = await send(t(), acct.test_key, house.id, { command: 'lights.set', params: { mode: 'on' } });
    assert.equal(res.body.status, 'queued');
  });
});
