import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { expectError, forEachEngine } from '../../../test/harness.ts';
import type { Animal, Device, DeviceKey, Group, List, NewDevice } from '../../../test/replies.ts';
import { defaultHouseState } from '../../domain/house-state.ts';

forEachEngine('devices', (t) => {
  // Farms of their own on the one shared account: a fresh account per test would seed a sample farm each time.
  test('POST /v1/farms/{farm}/devices creates a device with every field and shows its key once', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const animal = await t().request<Animal>('POST', `/v1/farms/${farm}/animals`, {
      key: acct.live_key,
      body: { species: 'cattle', tag: 'A1' },
    });
    assert.equal(animal.status, 201, JSON.stringify(animal.body));
    const group = await t().request<Group>('POST', `/v1/farms/${farm}/groups`, {
      key: acct.live_key,
      body: { name: 'Herd', species: 'cattle' },
    });
    assert.equal(group.status, 201, JSON.stringify(group.body));
    const res = await t().request<NewDevice>('POST', `/v1/farms/${farm}/devices`, {
      key: acct.live_key,
      body: {
        type: 'bolus',
        name: 'Bolus 7',
        serial: 'SN-7',
        animal_id: animal.body.id,
        group_id: group.body.id,
        firmware: '1.2.3',
        lat: 38.9,
        lon: -92.3,
      },
    });
    assert.equal(res.status, 201);
    const device = res.body;
    assert.match(device.id, /^dev_/);
    assert.equal(device.farm_id, farm);
    assert.equal(device.type, 'bolus');
    assert.equal(device.name, 'Bolus 7');
    assert.equal(device.serial, 'SN-7');
    assert.equal(device.animal_id, animal.body.id);
    assert.equal(device.group_id, group.body.id);
    assert.equal(device.firmware, '1.2.3');
    assert.equal(device.lat, 38.9);
    assert.equal(device.lon, -92.3);
    assert.equal(device.battery, null);
    assert.deepEqual(device.state, {});
    assert.equal(device.last_seen_at, null);
    assert.match(device.created_at, /Z$/);
    assert.match(device.device_key, /^rd_[0-9A-Za-z]{32}$/, 'rd_ and 32 base62 characters (≥128 bits)');
    assert.equal(device.key_prefix, device.device_key.slice(0, 7));

    const got = await t().request<Device>('GET', `/v1/devices/${device.id}`, { key: acct.live_key });
    assert.equal(got.status, 200);
    assert.equal(got.body.device_key, undefined, 'the key is never shown again');
    const { device_key: _key, ...withoutKey } = device;
    assert.deepEqual(got.body, withoutKey);
    const list = await t().request<List<Device>>('GET', `/v1/farms/${farm}/devices`, { key: acct.live_key });
    assert.equal(list.body.data[0]!.device_key, undefined);

    const stored = await t()
      .database.db.selectFrom('devices')
      .select(['key_hash'])
      .where('id', '=', device.id)
      .executeTakeFirstOrThrow();
    assert.notEqual(stored.key_hash, device.device_key, 'only a hash is stored');
    assert.ok(!JSON.stringify(got.body).includes(stored.key_hash), 'the hash is never returned');

    const created = await make.outboxEvents(t(), farm, 'device.created');
    assert.equal(created.length, 1);
    assert.deepEqual(created[0]?.data, withoutKey, 'device.created carries the Device without its key');
  });

  test('a new house starts with the complete default house state', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const house = await make.device(t(), acct.live_key, farm, { type: 'house', name: 'House 1' });
    assert.deepEqual(house.state, defaultHouseState());
    assert.equal(Object.keys(house.state.doors).length, 14);
    assert.equal(Object.keys(house.state.heaters.panels).length, 6);
  });

  test('device validation: type must be one of the nine, name required, unknown fields rejected', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const cases: [unknown, string][] = [
      [{ name: 'x' }, 'type'],
      [{ type: 'toaster', name: 'x' }, 'type'],
      [{ type: 'house' }, 'name'],
      [{ type: 'house', name: '' }, 'name'],
      [{ type: 'house', name: 'x', lat: 91 }, 'lat'],
      [{ type: 'house', name: 'x', lon: 'east' }, 'lon'],
      [{ type: 'house', name: 'x', battery: 50 }, 'battery'],
      [{ type: 'house', name: 'x', colour: 'red' }, 'colour'],
    ];
    for (const [body, param] of cases) {
      const err = expectError(
        await t().request('POST', `/v1/farms/${farm}/devices`, { key: acct.live_key, body }),
        400,
        'invalid_request',
      );
      assert.equal(err.param, param, JSON.stringify(body));
    }
    for (const type of ['house', 'bolus', 'tag', 'band', 'guardian', 'water', 'weather', 'reader', 'other']) {
      await make.device(t(), acct.live_key, farm, { type, name: type });
    }
    const list = await t().request<List<Device>>('GET', `/v1/farms/${farm}/devices?limit=500`, {
      key: acct.live_key,
    });
    assert.equal(list.body.data.length, 9, 'all nine types accepted; rejected requests wrote nothing');
  });

  test('animal_id and group_id must exist on the same farm', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const other = (await make.farm(t(), acct.live_key, { name: 'Other' })).id;
    const animal = await t().request<Animal>('POST', `/v1/farms/${other}/animals`, {
      key: acct.live_key,
      body: { species: 'cattle' },
    });
    const group = await t().request<Group>('POST', `/v1/farms/${other}/groups`, {
      key: acct.live_key,
      body: { name: 'Flock', species: 'chicken' },
    });
    for (const body of [
      { animal_id: 'ani_missing' },
      { animal_id: animal.body.id },
      { group_id: 'grp_missing' },
      { group_id: group.body.id },
    ]) {
      const err = expectError(
        await t().request('POST', `/v1/farms/${farm}/devices`, {
          key: acct.live_key,
          body: { type: 'tag', name: 'T', ...body },
        }),
        400,
        'invalid_request',
      );
      assert.equal(err.param, Object.keys(body)[0]);
    }
    const device = await make.device(t(), acct.live_key, farm, { type: 'tag', name: 'T' });
    const patch = expectError(
      await t().request('PATCH', `/v1/devices/${device.id}`, {
        key: acct.live_key,
        body: { animal_id: animal.body.id },
      }),
      400,
      'invalid_request',
    );
    assert.equal(patch.param, 'animal_id');
  });

  test('PATCH updates any fields, null clears optional ones; DELETE returns {id, deleted}', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const animal = await t().request<Animal>('POST', `/v1/farms/${farm}/animals`, {
      key: acct.live_key,
      body: { species: 'sheep' },
    });
    const device = await make.device(t(), acct.live_key, farm, { type: 'tag', name: 'Tag', serial: 'S1' });
    const patched = await t().request<Device>('PATCH', `/v1/devices/${device.id}`, {
      key: acct.live_key,
      body: { name: 'Tag 2', animal_id: animal.body.id, serial: null, firmware: '2.0', lat: 1, lon: 2 },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.name, 'Tag 2');
    assert.equal(patched.body.animal_id, animal.body.id);
    assert.equal(patched.body.serial, null);
    assert.equal(patched.body.firmware, '2.0');
    assert.equal(patched.body.type, 'tag');
    const got = await t().request('GET', `/v1/devices/${device.id}`, { key: acct.live_key });
    assert.deepEqual(got.body, patched.body);
    const byAnimal = await t().request<List<Device>>(
      'GET',
      `/v1/farms/${farm}/devices?animal_id=${animal.body.id}`,
      {
        key: acct.live_key,
      },
    );
    assert.deepEqual(
      byAnimal.body.data.map((d) => d.id),
      [device.id],
    );

    const house = await t().request<Device>('PATCH', `/v1/devices/${device.id}`, {
      key: acct.live_key,
      body: { type: 'house' },
    });
    assert.deepEqual(house.body.state, defaultHouseState(), 'a device that becomes a house gets house state');

    const del = await t().request('DELETE', `/v1/devices/${device.id}`, { key: acct.live_key });
    assert.deepEqual(del.body, { id: device.id, deleted: true });
    expectError(
      await t().request('GET', `/v1/devices/${device.id}`, { key: acct.live_key }),
      404,
      'not_found',
    );
    expectError(
      await t().request('DELETE', `/v1/devices/${device.id}`, { key: acct.live_key }),
      404,
      'not_found',
    );
  });

  test('list filters by type, animal_id and group_id and pages newest first', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(
        (await make.device(t(), acct.live_key, farm, { type: i % 2 ? 'tag' : 'house', name: `D${i}` })).id,
      );
    }
    const tags = await t().request<List<Device>>('GET', `/v1/farms/${farm}/devices?type=tag`, {
      key: acct.live_key,
    });
    assert.deepEqual(
      tags.body.data.map((d) => d.id),
      [ids[3], ids[1]].sort().reverse(),
    );
    expectError(
      await t().request('GET', `/v1/farms/${farm}/devices?type=toaster`, { key: acct.live_key }),
      400,
      'invalid_request',
    );
    const seen: string[] = [];
    let url = `/v1/farms/${farm}/devices?limit=2`;
    for (;;) {
      const page = await t().request<List<Device>>('GET', url, { key: acct.live_key });
      seen.push(...page.body.data.map((d) => d.id));
      if (!page.body.has_more) break;
      url = `/v1/farms/${farm}/devices?limit=2&before=${encodeURIComponent(page.body.next_before!)}`;
    }
    // Ids start with their creation millisecond, so newest first is descending id order.
    assert.deepEqual(seen, [...ids].sort().reverse());
  });

  test('POST /v1/devices/{id}/key rotates the key: the new one works, the old one stops at once', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const device = await make.device(t(), acct.live_key, farm);
    assert.equal((await make.report(t(), device.device_key, {})).status, 200);
    const rotated = await t().request<DeviceKey>('POST', `/v1/devices/${device.id}/key`, {
      key: acct.live_key,
    });
    assert.equal(rotated.status, 200);
    assert.equal(rotated.body.id, device.id);
    assert.match(rotated.body.device_key, /^rd_/);
    assert.notEqual(rotated.body.device_key, device.device_key);
    expectError(await make.report(t(), device.device_key, {}), 401, 'unauthorized');
    assert.equal((await make.report(t(), rotated.body.device_key, {})).status, 200);
    const got = await t().request<Device>('GET', `/v1/devices/${device.id}`, { key: acct.live_key });
    assert.equal(got.body.key_prefix, rotated.body.device_key.slice(0, 7));
  });

  test('deleting a device revokes its key', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const device = await make.device(t(), acct.live_key, farm);
    await make.report(t(), device.device_key, { readings: [{ metric: 'feed.bin_pct', value: 50 }] });
    await t().request('DELETE', `/v1/devices/${device.id}`, { key: acct.live_key });
    expectError(await make.report(t(), device.device_key, {}), 401, 'unauthorized');
    expectError(
      await t().request('GET', '/v1/device/commands', { key: device.device_key }),
      401,
      'unauthorized',
    );
    const left = await t()
      .database.db.selectFrom('readings')
      .select('metric')
      .where('device_id', '=', device.id)
      .execute();
    assert.equal(left.length, 0, 'its readings go with it');
  });

  test('a device key cannot call API endpoints and an API key cannot call device endpoints', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const device = await make.device(t(), acct.live_key, farm);
    for (const url of [`/v1/devices/${device.id}`, `/v1/farms/${farm}/devices`, '/v1/farms']) {
      expectError(await t().request('GET', url, { key: device.device_key }), 401, 'unauthorized');
    }
    expectError(
      await t().request('POST', `/v1/devices/${device.id}/commands`, {
        key: device.device_key,
        body: { command: 'lights.set', params: { mode: 'on' } },
      }),
      401,
      'unauthorized',
    );
    for (const path of ['/ingest', '/v1/ingest']) {
      expectError(await make.report(t(), acct.live_key, {}, path), 401, 'unauthorized');
    }
    expectError(await t().request('GET', '/v1/device/commands', { key: acct.live_key }), 401, 'unauthorized');
    expectError(
      await t().request('POST', '/v1/device/commands/cmd_x', {
        key: acct.live_key,
        body: { status: 'done' },
      }),
      401,
      'unauthorized',
    );
    expectError(await make.report(t(), 'rd_notarealkey', {}), 401, 'unauthorized');
    expectError(await make.report(t(), null as unknown as string, {}), 401, 'unauthorized');
  });

  test("another account's or the other mode's device is 404 on every device endpoint", async () => {
    const a = await t().sharedAccount();
    const b = await t().account();
    const farm = (await make.farm(t(), b.live_key)).id;
    const device = await make.device(t(), b.live_key, farm);
    const calls: [string, string, unknown?][] = [
      ['GET', `/v1/devices/${device.id}`],
      ['PATCH', `/v1/devices/${device.id}`, { name: 'x' }],
      ['DELETE', `/v1/devices/${device.id}`],
      ['POST', `/v1/devices/${device.id}/key`],
      ['GET', `/v1/devices/${device.id}/readings`],
      ['GET', `/v1/devices/${device.id}/commands`],
      ['POST', `/v1/devices/${device.id}/commands`, { command: 'lights.set', params: { mode: 'on' } }],
      ['GET', `/v1/houses/${device.id}`],
      ['GET', `/v1/farms/${farm}/devices`],
      ['POST', `/v1/farms/${farm}/devices`, { type: 'tag', name: 'x' }],
      ['GET', `/v1/farms/${farm}/houses`],
    ];
    for (const key of [a.live_key, a.test_key, b.test_key]) {
      for (const [method, url, body] of calls) {
        expectError(await t().request(method, url, { key, body }), 404, 'not_found');
      }
    }
    const still = await t().request<Device>('GET', `/v1/devices/${device.id}`, { key: b.live_key });
    assert.equal(still.body.name, 'House 1', 'nothing changed');
    assert.equal((await make.report(t(), device.device_key, {})).status, 200, 'the key still works');
  });
});
