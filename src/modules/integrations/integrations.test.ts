import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { expectError, forEachEngine, openTestAppOn } from '../../../test/harness.ts';
import { integration, readingsOf, uplink } from '../../../test/lorawan.ts';
import {
  CHIRPSTACK_INTEGRATION,
  CHIRPSTACK_LOG,
  chirpstackJoin,
  chirpstackLocation,
  chirpstackStatus,
  chirpstackUp,
  ttsUplink,
} from '../../../test/lorawan-fixtures.ts';
import type { Alert, Device, List } from '../../../test/replies.ts';
import { JOBS } from '../../workers/jobs.ts';
import type { DeviceLink, Integration, Unmatched } from './schemas.ts';
import { pruneUplinkKeys, UPLINK_KEY_DAYS } from './service.ts';

forEachEngine('LoRaWAN integrations', (t) => {
  async function farmWithKey() {
    const acct = await t().sharedAccount();
    const farm = await make.farm(t(), acct.live_key, { name: 'LoRa farm' });
    return { key: acct.live_key, farm };
  }

  test('create answers the uplink URL and secret once; reads never show the secret or the API key', async () => {
    const { key, farm } = await farmWithKey();
    const created = await integration(t(), key, farm.id, {
      type: 'ttn',
      name: 'TTN',
      api_url: 'https://1.1.1.1',
      api_key: 'NNSXS.SECRET',
      application_id: 'farm-app',
      webhook_id: 'farmstead',
    });
    assert.match(created.secret, /^lwi_[0-9A-Za-z]{32}$/);
    assert.ok(created.uplink_url.endsWith(`/v1/integrations/${created.id}/uplink`));
    assert.equal(created.api_key_set, true);
    const read = await make.fetched<Integration>(t(), key, `/v1/integrations/${created.id}`);
    assert.equal(read.secret, undefined);
    assert.ok(!JSON.stringify(read).includes('NNSXS'));
    const list = await make.fetched<List<Integration>>(t(), key, `/v1/farms/${farm.id}/integrations`);
    assert.deepEqual(
      list.data.map((i) => i.id),
      [created.id],
    );
    assert.ok(!JSON.stringify(list).includes('NNSXS') && !JSON.stringify(list).includes(created.secret));
  });

  test('api_url goes through the SSRF guard; a ttn integration with api_url needs its ids', async () => {
    const { key, farm } = await farmWithKey();
    const refused = await t().request('POST', `/v1/farms/${farm.id}/integrations`, {
      key,
      body: { type: 'chirpstack', name: 'Local', api_url: 'http://192.168.1.10:8090' },
    });
    const error = expectError(refused, 400, 'invalid_request');
    assert.equal(error.param, 'api_url');
    assert.match(error.message, /FARMSTEAD_WEBHOOK_ALLOW_PRIVATE/);
    // A login in the URL would be shown back with the integration: the key goes in api_key.
    const login = await t().request('POST', `/v1/farms/${farm.id}/integrations`, {
      key,
      body: { type: 'chirpstack', name: 'Login', api_url: 'https://user:secretpw@1.1.1.1' },
    });
    assert.equal(expectError(login, 400, 'invalid_request').param, 'api_url');
    assert.doesNotMatch(JSON.stringify(login.body), /secretpw/);
    const noIds = await t().request('POST', `/v1/farms/${farm.id}/integrations`, {
      key,
      body: { type: 'ttn', name: 'TTN', api_url: 'https://1.1.1.1' },
    });
    assert.equal(expectError(noIds, 400, 'invalid_request').param, 'application_id');
    const count = await t()
      .database.db.selectFrom('integrations')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('farm_id', '=', farm.id)
      .executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 0);
  });

  test('PATCH changes fields; rotation issues a new secret and the old one stops working', async () => {
    const { key, farm } = await farmWithKey();
    const integ = await integration(t(), key, farm.id);
    const patched = await t().request<Integration>('PATCH', `/v1/integrations/${integ.id}`, {
      key,
      body: { name: 'Renamed', api_key: 'cs-token' },
    });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.name, 'Renamed');
    assert.equal(patched.body.api_key_set, true);
    const rotated = await make.posted<Integration & { secret: string }>(
      t(),
      key,
      `/v1/integrations/${integ.id}/secret`,
      undefined,
      200,
    );
    assert.notEqual(rotated.secret, integ.secret);
    expectError(await uplink(t(), integ, chirpstackJoin(), { event: 'join' }), 401, 'unauthorized');
    assert.equal(
      (await uplink(t(), { id: integ.id, secret: rotated.secret }, chirpstackJoin(), { event: 'join' }))
        .status,
      200,
    );
    const deleted = await t().request('DELETE', `/v1/integrations/${integ.id}`, { key });
    assert.equal(deleted.status, 200);
    expectError(await t().request('GET', `/v1/integrations/${integ.id}`, { key }), 404, 'not_found');
  });

  test('a wrong or missing secret is refused with 401 and nothing is stored', async () => {
    const { key, farm } = await farmWithKey();
    const integ = await integration(t(), key, farm.id);
    const device = await make.device(t(), key, farm.id, {
      type: 'water',
      name: 'Tank',
      serial: 'eui:0101010101010101',
    });
    const body = chirpstackUp({ object: { distance: 500 } });
    expectError(await uplink(t(), integ, body, { event: 'up', secret: null }), 401, 'unauthorized');
    expectError(await uplink(t(), integ, body, { event: 'up', secret: 'lwi_wrong' }), 401, 'unauthorized');
    expectError(
      await uplink(t(), { id: 'int_unknown', secret: integ.secret }, body, { event: 'up' }),
      401,
      'unauthorized',
    );
    assert.deepEqual(await readingsOf(t(), device.id), []);
    const keys = await t()
      .database.db.selectFrom('integration_uplinks')
      .selectAll()
      .where('integration_id', '=', integ.id)
      .execute();
    assert.deepEqual(keys, []);
  });

  test('malformed bodies are refused with the Error object naming the member, and nothing is stored', async () => {
    const { key, farm } = await farmWithKey();
    const integ = await integration(t(), key, farm.id);
    const ttn = await integration(t(), key, farm.id, { type: 'ttn', name: 'TTN' });
    const device = await make.device(t(), key, farm.id, {
      type: 'water',
      name: 'Tank',
      serial: 'eui:0101010101010101',
    });
    const { deviceInfo: _drop, ...noDevice } = chirpstackUp();
    const cases: [typeof integ, unknown, string | undefined, string][] = [
      [integ, noDevice, 'up', 'deviceInfo'],
      [integ, { ...chirpstackUp(), deviceInfo: { devEui: 'not-hex' } }, 'up', 'deviceInfo.devEui'],
      [integ, { ...chirpstackUp(), fPort: 'one' }, 'up', 'fPort'],
      [integ, { ...chirpstackUp(), time: 'yesterday' }, 'up', 'time'],
      [integ, chirpstackUp(), undefined, 'event'],
      [ttn, { uplink_message: { f_port: 1 } }, undefined, 'end_device_ids'],
      [
        ttn,
        { ...ttsUplink({ devEui: '0101010101010101' }), uplink_message: { rx_metadata: 'none' } },
        undefined,
        'uplink_message.rx_metadata',
      ],
    ];
    for (const [target, body, event, param] of cases) {
      const reply = await uplink(t(), target, body, event ? { event } : {});
      const error = expectError(reply, 400, 'invalid_request');
      assert.equal(error.param, param, `${param}: ${error.message}`);
    }
    expectError(
      await t().request('POST', `/v1/integrations/${integ.id}/uplink?event=up`, {
        key: integ.secret,
        rawBody: '{"deduplicationId": ',
      }),
      400,
      'invalid_request',
    );
    assert.deepEqual(await readingsOf(t(), device.id), []);
    const unmatched = await make.fetched<{ data: Unmatched[] }>(
      t(),
      key,
      `/v1/integrations/${integ.id}/unmatched`,
    );
    assert.deepEqual(unmatched.data, []);
  });

  test('a matched uplink becomes one report at the network server time: mapped, unmapped kept, rssi/snr of the best gateway', async () => {
    const { key, farm } = await farmWithKey();
    const integ = await integration(t(), key, farm.id);
    // Bare upper-case hex in the serial matches too (the DevEUI is compared in lower case).
    const device = await make.device(t(), key, farm.id, {
      type: 'water',
      name: 'Tank',
      serial: '0101010101010101',
    });
    const reply = await uplink(
      t(),
      integ,
      chirpstackUp({
        object: { distance: 1000, battery: 87, nested: { temp: 21.5 }, label: 'ok' },
        rxInfo: [
          { rssi: -110, snr: -7 },
          { rssi: -72, snr: 9.25 },
        ],
      }),
      { event: 'up' },
    );
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.equal(reply.body.outcome, 'stored');
    assert.equal(reply.body.device_id, device.id);
    const at = Date.parse('2022-07-18T09:34:15.775Z');
    assert.deepEqual(await readingsOf(t(), device.id), [
      { metric: 'lorawan.battery', value: 87, at },
      { metric: 'lorawan.distance', value: 1000, at },
      { metric: 'lorawan.nested.temp', value: 21.5, at },
      { metric: 'lorawan.rssi', value: -72, at },
      { metric: 'lorawan.snr', value: 9.25, at },
    ]);
    const seen = await make.fetched<Device>(t(), key, `/v1/devices/${device.id}`);
    assert.ok(seen.last_seen_at !== null);
  });

  test('mapping with scale and offset; an invalid mapping is refused naming the entry', async () => {
    const { key, farm } = await farmWithKey();
    const integ = await integration(t(), key, farm.id);
    const device = await make.device(t(), key, farm.id, {
      type: 'water',
      name: 'Trough',
      serial: 'eui:0202020202020202',
    });
    for (const [mapping, param] of [
      [{ distance: { metric: 'not a name' } }, 'mapping.distance.metric'],
      [{ distance: { metric: 'water.tank_pct', scale: 0 } }, 'mapping.distance.scale'],
      [{ distance: { metric: 'water.tank_pct', set: 'battery' } }, 'mapping.distance'],
      [{ distance: { metric: 'water.tank_pct', scale: 'x' } }, 'mapping.distance.scale'],
    ] as const) {
      const refused = await t().request('PUT', `/v1/devices/${device.id}/lorawan`, {
        key,
        body: { integration_id: integ.id, mapping },
      });
      assert.equal(expectError(refused, 400, 'invalid_request').param, param);
    }
    const saved = await t().request<DeviceLink>('PUT', `/v1/devices/${device.id}/lorawan`, {
      key,
      body: {
        integration_id: integ.id,
        mapping: { 'level.mm': { metric: 'water.tank_pct', scale: -0.1, offset: 100 } },
      },
    });
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    assert.equal(saved.body.dev_eui, '0202020202020202');
    await uplink(t(), integ, chirpstackUp({ devEui: '0202020202020202', object: { level: { mm: 250 } } }), {
      event: 'up',
    });
    const readings = await readingsOf(t(), device.id);
    assert.deepEqual(
      readings.filter((r) => !r.metric.startsWith('lorawan.')).map((r) => [r.metric, r.value]),
      [['water.tank_pct', 75]],
    );
    const link = await make.fetched<DeviceLink>(t(), key, `/v1/devices/${device.id}/lorawan`);
    assert.deepEqual(link.last_uplink?.decoded, { level: { mm: 250 } });
    assert.deepEqual(link.preview.readings[0], { metric: 'water.tank_pct', value: 75 });
    const preview = await make.posted<DeviceLink>(
      t(),
      key,
      `/v1/devices/${device.id}/lorawan/preview`,
      { mapping: { 'level.mm': { metric: 'water.depth_mm' } } },
      200,
    );
    assert.deepEqual(preview.preview.readings[0], { metric: 'water.depth_mm', value: 250 });
  });

  test('an unmatched DevEUI heard once with a clock ahead is ordered as heard then: the next uplink shows its own name', async () => {
    const { key, farm } = await farmWithKey();
    const integ = await integration(t(), key, farm.id);
    const eui = '24E124713C19AAAA';
    const send = (id: string, name: string, time: string) =>
      uplink(t(), integ, chirpstackUp({ devEui: eui, deviceName: name, deduplicationId: id, time }), {
        event: 'up',
      });
    const before = Date.now();
    assert.equal((await send('w1', 'Wrong clock', '2030-01-01T00:00:00Z')).body.outcome, 'unmatched');
    assert.equal((await send('w2', 'Real name', new Date().toISOString())).body.outcome, 'unmatched');
    const [row] = (
      await make.fetched<{ data: Unmatched[] }>(t(), key, `/v1/integrations/${integ.id}/unmatched`)
    ).data;
    assert.equal(row?.device_name, 'Real name');
    assert.ok(Date.parse(String(row?.last_seen_at)) <= Date.now(), String(row?.last_seen_at));
    assert.ok(Date.parse(String(row?.first_seen_at)) >= before - 1000, String(row?.first_seen_at));
  });

  test('an unknown DevEUI is kept as unmatched and adopted as a new device with a preset in one call', async () => {
    const { key, farm } = await farmWithKey();
    const integ = await integration(t(), key, farm.id);
    const eui = '24E124713C191234';
    const first = await uplink(
      t(),
      integ,
      chirpstackUp({
        devEui: eui,
        deviceName: 'tank-north',
        deduplicationId: 'u1',
        object: { battery: 92, distance: 30 },
      }),
      { event: 'up' },
    );
    assert.equal(first.body.outcome, 'unmatched');
    await uplink(
      t(),
      integ,
      chirpstackUp({
        devEui: eui,
        deviceName: 'tank-north',
        deduplicationId: 'u2',
        time: '2022-07-18T10:00:00Z',
        object: { battery: 91, distance: 40 },
      }),
      { event: 'up' },
    );
    // Handed over late, an older uplink counts but shows nothing of its own.
    await uplink(
      t(),
      integ,
      chirpstackUp({
        devEui: eui,
        deviceName: 'tank-old-name',
        deduplicationId: 'u0',
        time: '2022-07-18T09:00:00Z',
        object: { battery: 99, distance: 10 },
      }),
      { event: 'up' },
    );
    const unmatched = await make.fetched<{ data: Unmatched[] }>(
      t(),
      key,
      `/v1/integrations/${integ.id}/unmatched`,
    );
    assert.equal(unmatched.data.length, 1);
    assert.deepEqual(unmatched.data[0], {
      dev_eui: eui.toLowerCase(),
      device_name: 'tank-north',
      profile: 'Test device-profile',
      decoded: { battery: 91, distance: 40 },
      f_port: 1,
      uplinks: 3,
      first_seen_at: '2022-07-18T09:00:00.000Z',
      last_seen_at: '2022-07-18T10:00:00.000Z',
    });
    const adopted = await make.posted<Device & { device_key: string }>(
      t(),
      key,
      `/v1/integrations/${integ.id}/unmatched/${eui}/adopt`,
      { preset: 'milesight-em500-udl' },
    );
    assert.equal(adopted.serial, `eui:${eui.toLowerCase()}`);
    assert.equal(adopted.type, 'water');
    assert.equal(adopted.name, 'tank-north');
    assert.match(adopted.device_key, /^rd_/);
    const after = await make.fetched<{ data: Unmatched[] }>(
      t(),
      key,
      `/v1/integrations/${integ.id}/unmatched`,
    );
    assert.deepEqual(after.data, []);
    const stored = await uplink(
      t(),
      integ,
      chirpstackUp({
        devEui: eui,
        deduplicationId: 'u3',
        time: '2022-07-18T11:00:00Z',
        object: { battery: 90, distance: 1000 },
      }),
      { event: 'up' },
    );
    assert.equal(stored.body.outcome, 'stored');
    const readings = await readingsOf(t(), adopted.id);
    assert.deepEqual(
      readings.filter((r) => !r.metric.startsWith('lorawan.')).map((r) => [r.metric, r.value]),
      [['water.tank_pct', 50]],
    );
    const device = await make.fetched<Device>(t(), key, `/v1/devices/${adopted.id}`);
    assert.equal(device.battery, 90);
    const carried = await make.fetched<{ data: (DeviceLink & { device_name: string })[] }>(
      t(),
      key,
      `/v1/integrations/${integ.id}/devices`,
    );
    assert.deepEqual(
      carried.data.map((d) => [d.device_name, d.preset, d.effective.source, d.preview.readings[0]]),
      [['tank-north', 'milesight-em500-udl', 'device', { metric: 'water.tank_pct', value: 50 }]],
    );
    expectError(
      await t().request('POST', `/v1/integrations/${integ.id}/unmatched/${eui}/adopt`, { key, body: {} }),
      404,
      'not_found',
    );
  });

  test('a join of an unknown device lists it; a join of a known one stores nothing', async () => {
    const { key, farm } = await farmWithKey();
    const integ = await integration(t(), key, farm.id);
    const joined = await uplink(
      t(),
      integ,
      chirpstackJoin({ devEui: '0303030303030303', deviceName: 'new-collar' }),
      { event: 'join' },
    );
    assert.equal(joined.body.outcome, 'unmatched');
    const unmatched = await make.fetched<{ data: Unmatched[] }>(
      t(),
      key,
      `/v1/integrations/${integ.id}/unmatched`,
    );
    assert.deepEqual(
      unmatched.data.map((u) => [u.dev_eui, u.device_name, u.uplinks, u.decoded]),
      [['0303030303030303', 'new-collar', 0, null]],
    );
    const known = await make.device(t(), key, farm.id, {
      type: 'tag',
      name: 'Known',
      serial: 'EUI:0A0A0A0A0A0A0A0A',
    });
    const knownJoin = await uplink(t(), integ, chirpstackJoin({ devEui: '0A0A0A0A0A0A0A0A' }), {
      event: 'join',
    });
    assert.equal(knownJoin.body.outcome, 'ignored');
    assert.equal(knownJoin.body.device_id, known.id);
    assert.deepEqual(await readingsOf(t(), known.id), []);
  });

  test('GPS fields set the position, battery fields the battery, and an alarm field becomes an event (LGT-92 preset)', async () => {
    const { key, farm } = await farmWithKey();
    const integ = await integration(t(), key, farm.id, { type: 'ttn', name: 'TTN' });
    const device = await make.device(t(), key, farm.id, {
      type: 'tag',
      name: 'Collar 7',
      serial: 'eui:0004a30b001c0530',
    });
    const put = await t().request('PUT', `/v1/devices/${device.id}/lorawan`, {
      key,
      body: { integration_id: integ.id, preset: 'dragino-lgt92' },
    });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    // The decoded output of vendor/dragino/lgt92-codec.yaml's example, with the alarm raised.
    const decoded = {
      ALARM_status: 'TRUE',
      altitude: 0,
      BatV: 3.36,
      FW: 160,
      LON: 'ON',
      latitude: 22.70626,
      longitude: 114.24252,
      MD: 'Disable',
      Pitch: 4,
      Roll: 0.75,
      hdop: 0,
    };
    const reply = await uplink(t(), integ, ttsUplink({ decoded, rx: [{ channel_rssi: -101, snr: -3.5 }] }));
    assert.equal(reply.body.outcome, 'stored', JSON.stringify(reply.body));
    const stored = await make.fetched<Device>(t(), key, `/v1/devices/${device.id}`);
    assert.equal(stored.lat, 22.70626);
    assert.equal(stored.lon, 114.24252);
    assert.equal(stored.battery, 60);
    const events = await make.farmEvents(t(), farm.id, 'tracker.alarm');
    assert.equal(events.length, 1);
    assert.equal(Number(events[0]?.at), Date.parse('2020-02-12T15:15:45.789Z'));
    const readings = await readingsOf(t(), device.id);
    assert.deepEqual(
      readings.map((r) => r.metric),
      ['lorawan.altitude', 'lorawan.rssi', 'lorawan.snr'],
    );
    assert.deepEqual(
      readings.filter((r) => r.metric !== 'lorawan.altitude').map((r) => r.value),
      [-101, -3.5],
    );
    // The device's remote id (TTS device_id) is learnt from the uplink, for downlinks.
    const link = await make.fetched<DeviceLink>(t(), key, `/v1/devices/${device.id}/lorawan`);
    assert.equal(link.remote_id, 'dev1');
  });

  test('a mapped reading opens an alert; a mapped event field opens a device alarm', async () => {
    const { key, farm } = await farmWithKey();
    const integ = await integration(t(), key, farm.id);
    const device = await make.device(t(), key, farm.id, {
      type: 'water',
      name: 'Tank 2',
      serial: 'eui:0404040404040404',
    });
    const put = await t().request('PUT', `/v1/devices/${device.id}/lorawan`, {
      key,
      body: { integration_id: integ.id, preset: 'milesight-em500-udl', mapping: null },
    });
    assert.equal(put.status, 200);
    await uplink(
      t(),
      integ,
      chirpstackUp({
        devEui: '0404040404040404',
        deduplicationId: 'low',
        object: { battery: 80, distance: 1950 },
      }),
      { event: 'up' },
    );
    const alerts = await make.fetched<List<Alert>>(t(), key, `/v1/farms/${farm.id}/alerts`);
    const low = alerts.data.find((a) => a.rule === 'water.level');
    assert.ok(low, JSON.stringify(alerts.data));
    assert.equal(low.severity, 'urgent');

    const guard = await make.device(t(), key, farm.id, {
      type: 'guardian',
      name: 'Pod',
      serial: 'eui:0505050505050505',
    });
    await t().request('PUT', `/v1/devices/${guard.id}/lorawan`, {
      key,
      body: { integration_id: integ.id, mapping: { motion: { event: 'predator.detected' } } },
    });
    await uplink(
      t(),
      integ,
      chirpstackUp({ devEui: '0505050505050505', deduplicationId: 'calm', object: { motion: 0 } }),
      { event: 'up' },
    );
    await uplink(
      t(),
      integ,
      chirpstackUp({ devEui: '0505050505050505', deduplicationId: 'fox', object: { motion: 1 } }),
      { event: 'up' },
    );
    const after = await make.fetched<List<Alert>>(t(), key, `/v1/farms/${farm.id}/alerts`);
    assert.equal(after.data.filter((a) => a.rule === 'predator.detected').length, 1);
  });

  test('the first uplinks of a device not yet linked, the same one sent at once, link it once: one stored, the rest duplicates, never a 500', async () => {
    // Before, two of these could both try to link the device, and the second failed on the DevEUI's unique
    // index (500): on PostgreSQL, about one run of this test in two.
    const { key, farm } = await farmWithKey();
    const integ = await integration(t(), key, farm.id);
    for (let round = 0; round < 40; round++) {
      const eui = `090909090909${round.toString(16).padStart(4, '0')}`;
      const device = await make.device(t(), key, farm.id, {
        type: 'water',
        name: `First ${round}`,
        serial: `eui:${eui}`,
      });
      const body = chirpstackUp({ devEui: eui, deduplicationId: `first-${round}`, object: { x: 1 } });
      const replies = await Promise.all(
        Array.from({ length: 10 }, () => uplink(t(), integ, body, { event: 'up' })),
      );
      assert.deepEqual(
        replies.map((r) => `${r.status} ${r.body.outcome}`).sort(),
        [...Array.from({ length: 9 }, () => '200 duplicate'), '200 stored'],
        `round ${round}: ${JSON.stringify(replies.map((r) => r.body))}`,
      );
      assert.equal(replies.find((r) => r.body.outcome === 'stored')?.body.device_id, device.id);
    }
  });

  test('duplicates store nothing twice: the same deduplicationId or TTS correlation id, sent again or at once', async () => {
    const { key, farm } = await farmWithKey();
    const integ = await integration(t(), key, farm.id);
    const ttn = await integration(t(), key, farm.id, { type: 'ttn', name: 'TTN' });
    const device = await make.device(t(), key, farm.id, {
      type: 'water',
      name: 'Dup',
      serial: 'eui:0606060606060606',
    });
    const body = chirpstackUp({ devEui: '0606060606060606', deduplicationId: 'same', object: { x: 1 } });
    const replies = await Promise.all(
      Array.from({ length: 6 }, () => uplink(t(), integ, body, { event: 'up' })),
    );
    assert.deepEqual(replies.map((r) => r.body.outcome).sort(), [
      'duplicate',
      'duplicate',
      'duplicate',
      'duplicate',
      'duplicate',
      'stored',
    ]);
    const again = await uplink(t(), integ, body, { event: 'up' });
    assert.equal(again.body.outcome, 'duplicate');
    assert.equal((await readingsOf(t(), device.id)).length, 3);

    const other = await make.device(t(), key, farm.id, {
      type: 'water',
      name: 'TTS dup',
      serial: 'eui:0707070707070707',
    });
    const message = ttsUplink({ devEui: '0707070707070707', correlationId: 'ABC', decoded: { y: 2 } });
    assert.equal((await uplink(t(), ttn, message)).body.outcome, 'stored');
    assert.equal((await uplink(t(), ttn, message)).body.outcome, 'duplicate');
    assert.equal(
      (
        await uplink(
          t(),
          ttn,
          ttsUplink({ devEui: '0707070707070707', correlationId: 'DEF', decoded: { y: 3 } }),
        )
      ).body.outcome,
      'stored',
    );
    assert.equal((await readingsOf(t(), other.id)).filter((r) => r.metric === 'lorawan.y').length, 2);
  });

  test('a ChirpStack status event sets the battery', async () => {
    const { key, farm } = await farmWithKey();
    const integ = await integration(t(), key, farm.id);
    const device = await make.device(t(), key, farm.id, {
      type: 'water',
      name: 'Status',
      serial: 'eui:0808080808080808',
    });
    const reply = await uplink(
      t(),
      integ,
      chirpstackStatus({ devEui: '0808080808080808', batteryLevel: 64.5 }),
      { event: 'status' },
    );
    assert.equal(reply.body.outcome, 'stored');
    assert.equal((await make.fetched<Device>(t(), key, `/v1/devices/${device.id}`)).battery, 64.5);
    assert.equal((await uplink(t(), integ, {}, { event: 'log' })).body.outcome, 'ignored');
    // On mains power (the level is 0 then): no battery to tell, nothing changed.
    const mains = chirpstackStatus({
      devEui: '0808080808080808',
      batteryLevel: 0,
      externalPowerSource: true,
    });
    mains.deduplicationId = 'b1c2d3e4-0000-4000-8000-000000000001';
    assert.equal((await uplink(t(), integ, mains, { event: 'status' })).body.outcome, 'ignored');
    assert.equal((await make.fetched<Device>(t(), key, `/v1/devices/${device.id}`)).battery, 64.5);
    // An uplink made before that status (handed over late) stores its readings at its time but leaves the
    // newer battery; one made after it sets the battery.
    const put = await t().request('PUT', `/v1/devices/${device.id}/lorawan`, {
      key,
      body: { integration_id: integ.id, preset: 'milesight-em500-udl' },
    });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    const up = (id: string, time: string, battery: number) =>
      uplink(
        t(),
        integ,
        chirpstackUp({
          devEui: '0808080808080808',
          deduplicationId: id,
          time,
          object: { battery, distance: 500 },
        }),
        { event: 'up' },
      );
    assert.equal((await up('late', '2022-07-18T09:30:00Z', 12)).body.outcome, 'stored');
    assert.equal((await make.fetched<Device>(t(), key, `/v1/devices/${device.id}`)).battery, 64.5);
    const late = (await readingsOf(t(), device.id)).find((r) => r.metric === 'water.tank_pct');
    assert.equal(Number(late?.at), Date.parse('2022-07-18T09:30:00Z'), 'its reading at its own time');
    assert.equal((await up('next', '2022-07-18T09:40:00Z', 63)).body.outcome, 'stored');
    assert.equal((await make.fetched<Device>(t(), key, `/v1/devices/${device.id}`)).battery, 63);
  });

  test("uplinks of different devices carrying the same deduplicationId are each stored: the key is the integration's, the device's and the id", async () => {
    const { key, farm } = await farmWithKey();
    const integ = await integration(t(), key, farm.id);
    const a = await make.device(t(), key, farm.id, {
      type: 'water',
      name: 'A',
      serial: 'eui:0e0e0e0e0e0e0e01',
    });
    const b = await make.device(t(), key, farm.id, {
      type: 'water',
      name: 'B',
      serial: 'eui:0e0e0e0e0e0e0e02',
    });
    // Both carry the deduplicationId of ChirpStack's documented example, as the guide's example does.
    const ofA = chirpstackUp({ devEui: '0e0e0e0e0e0e0e01', object: { x: 1 } });
    const ofB = chirpstackUp({ devEui: '0e0e0e0e0e0e0e02', object: { x: 2 } });
    assert.equal(ofA.deduplicationId, ofB.deduplicationId);
    assert.equal((await uplink(t(), integ, ofA, { event: 'up' })).body.outcome, 'stored');
    assert.equal((await uplink(t(), integ, ofB, { event: 'up' })).body.outcome, 'stored');
    assert.equal((await uplink(t(), integ, ofB, { event: 'up' })).body.outcome, 'duplicate');
    assert.deepEqual(
      (await readingsOf(t(), a.id)).filter((r) => r.metric === 'lorawan.x').map((r) => r.value),
      [1],
    );
    assert.deepEqual(
      (await readingsOf(t(), b.id)).filter((r) => r.metric === 'lorawan.x').map((r) => r.value),
      [2],
    );
    // An unknown device's uplink with that id is kept unmatched too, not taken for a duplicate.
    const unknown = chirpstackUp({ devEui: '0e0e0e0e0e0e0e03', object: { x: 3 } });
    assert.equal((await uplink(t(), integ, unknown, { event: 'up' })).body.outcome, 'unmatched');
  });

  test("a ChirpStack location event is the device's reported position; integration, log and unknown events are answered 200 and ignored", async () => {
    const { key, farm } = await farmWithKey();
    const integ = await integration(t(), key, farm.id);
    const device = await make.device(t(), key, farm.id, {
      type: 'tag',
      name: 'Collar',
      serial: 'eui:0f0f0f0f0f0f0f0f',
    });
    // ChirpStack's documented location event, for the DevEUI registered here.
    const located = chirpstackLocation({ devEui: '0f0f0f0f0f0f0f0f' });
    const reply = await uplink(t(), integ, located, { event: 'location' });
    assert.deepEqual(reply.body, { ok: true, outcome: 'stored', device_id: device.id, accepted: 0 });
    const stored = await make.fetched<Device>(t(), key, `/v1/devices/${device.id}`);
    assert.equal(stored.lat, 37.344214);
    assert.equal(stored.lon, -8.839375);
    // Kept as every reported position is (the map's track).
    const positions = await t()
      .database.db.selectFrom('device_positions')
      .select(['lat', 'lon'])
      .where('device_id', '=', device.id)
      .execute();
    assert.deepEqual(
      positions.map((p) => [Number(p.lat), Number(p.lon)]),
      [[37.344214, -8.839375]],
    );
    assert.equal((await uplink(t(), integ, located, { event: 'location' })).body.outcome, 'duplicate');
    const outside = { ...located, location: { latitude: 91, longitude: 0 } };
    expectError(await uplink(t(), integ, outside, { event: 'location' }), 400, 'invalid_request');

    for (const [event, body] of [
      ['integration', JSON.parse(CHIRPSTACK_INTEGRATION)],
      ['log', JSON.parse(CHIRPSTACK_LOG)],
      ['gateway-stats', { anything: true }],
    ] as const) {
      const ignored = await uplink(t(), integ, body, { event });
      assert.equal(ignored.status, 200, `${event}: ${JSON.stringify(ignored.body)}`);
      assert.deepEqual(ignored.body, { ok: true, outcome: 'ignored' });
    }
  });

  test('presets are listed with their sources; an unknown preset is refused', async () => {
    const { key, farm } = await farmWithKey();
    const presets = await make.fetched<{ data: { name: string; source: string }[] }>(
      t(),
      key,
      '/v1/integration-presets',
    );
    assert.ok(presets.data.length >= 6);
    for (const p of presets.data) assert.match(p.source, /TheThingsNetwork\/lorawan-devices vendor\//);
    const integ = await integration(t(), key, farm.id);
    const device = await make.device(t(), key, farm.id, {
      type: 'water',
      name: 'P',
      serial: 'eui:0909090909090909',
    });
    const refused = await t().request('PUT', `/v1/devices/${device.id}/lorawan`, {
      key,
      body: { integration_id: integ.id, preset: 'nope' },
    });
    assert.equal(expectError(refused, 400, 'invalid_request').param, 'preset');
  });

  test('integration defaults map devices without their own mapping, by name pattern; a bad default is refused', async () => {
    const { key, farm } = await farmWithKey();
    const refused = await t().request('POST', `/v1/farms/${farm.id}/integrations`, {
      key,
      body: { type: 'chirpstack', name: 'Bad', defaults: [{ device_name: 'x*', preset: 'nope' }] },
    });
    assert.equal(expectError(refused, 400, 'invalid_request').param, 'defaults[0].preset');
    const integ = await integration(t(), key, farm.id, {
      defaults: [{ device_name: 'tank-*', preset: 'milesight-em500-udl' }],
    });
    const tank = await make.device(t(), key, farm.id, {
      type: 'water',
      name: 'Tank-9',
      serial: 'eui:0c0c0c0c0c0c0c01',
    });
    const other = await make.device(t(), key, farm.id, {
      type: 'water',
      name: 'Trough',
      serial: 'eui:0c0c0c0c0c0c0c02',
    });
    for (const [eui, id] of [
      ['0c0c0c0c0c0c0c01', 'd1'],
      ['0c0c0c0c0c0c0c02', 'd2'],
    ] as const) {
      await uplink(
        t(),
        integ,
        chirpstackUp({ devEui: eui, deduplicationId: id, object: { distance: 1000, battery: 70 } }),
        { event: 'up' },
      );
    }
    const metrics = async (id: string) =>
      (await readingsOf(t(), id))
        .map((r) => r.metric)
        .filter((m) => !m.startsWith('lorawan.r') && !m.startsWith('lorawan.s'));
    assert.deepEqual(await metrics(tank.id), ['water.tank_pct']);
    assert.deepEqual(await metrics(other.id), ['lorawan.battery', 'lorawan.distance']);
    const link = await make.fetched<DeviceLink>(t(), key, `/v1/devices/${tank.id}/lorawan`);
    assert.equal(link.effective.source, 'default');
  });

  test('an uplink dated beyond FARMSTEAD_MAX_CLOCK_SKEW_S stores no reading and opens device.clock', async () => {
    const { key, farm } = await farmWithKey();
    const integ = await integration(t(), key, farm.id);
    const device = await make.device(t(), key, farm.id, {
      type: 'water',
      name: 'Skewed tank',
      serial: 'eui:0c0c0c0c0c0c0c01',
    });
    // 60 s of tolerance: 180 s ahead is refused here, though within the default 300 s.
    const strict = await openTestAppOn(t(), { maxClockSkewS: 60 });
    try {
      const ahead = await uplink(
        strict,
        integ,
        chirpstackUp({
          devEui: '0c0c0c0c0c0c0c01',
          deduplicationId: 'skew-ahead',
          time: new Date(Date.now() + 180_000).toISOString(),
          object: { distance: 500 },
        }),
        { event: 'up' },
      );
      assert.equal(ahead.status, 200, JSON.stringify(ahead.body));
      assert.equal(ahead.body.outcome, 'stored');
      assert.equal(ahead.body.accepted, 0);
      assert.deepEqual(await readingsOf(t(), device.id), []);
      const alerts = await t().request<List<Alert>>('GET', `/v1/farms/${farm.id}/alerts?status=all`, { key });
      const clock = alerts.body.data.filter((a) => a.rule === 'device.clock');
      assert.equal(clock.length, 1, JSON.stringify(alerts.body.data));
      assert.equal(clock[0]?.status, 'open');
      assert.equal(clock[0]?.subject_id, device.id);
      assert.equal(clock[0]?.title, 'Clock ahead: Skewed tank');

      const within = await uplink(
        strict,
        integ,
        chirpstackUp({
          devEui: '0c0c0c0c0c0c0c01',
          deduplicationId: 'skew-within',
          time: new Date(Date.now() + 30_000).toISOString(),
          object: { distance: 500 },
        }),
        { event: 'up' },
      );
      assert.equal(within.body.outcome, 'stored');
      assert.ok((within.body.accepted ?? 0) > 0, 'an uplink within the tolerance is stored');
      assert.ok((await readingsOf(t(), device.id)).some((r) => r.metric === 'lorawan.distance'));
    } finally {
      await strict.close();
    }
  });

  test('uplink keys are kept 7 days by the integrations.prune job; the downlink job is in the catalog', async () => {
    assert.ok(JOBS.some((job) => job.name === 'integrations.prune'));
    assert.ok(JOBS.some((job) => job.name === 'integrations.downlinks'));
    const { key, farm } = await farmWithKey();
    const integ = await integration(t(), key, farm.id);
    await make.device(t(), key, farm.id, { type: 'water', name: 'Keys', serial: 'eui:0d0d0d0d0d0d0d01' });
    const body = chirpstackUp({ devEui: '0d0d0d0d0d0d0d01', deduplicationId: 'kept', object: { x: 1 } });
    assert.equal((await uplink(t(), integ, body, { event: 'up' })).body.outcome, 'stored');
    assert.equal(await pruneUplinkKeys(t().database.db, Date.now() + 6 * 86_400_000), 0);
    assert.equal((await uplink(t(), integ, body, { event: 'up' })).body.outcome, 'duplicate');
    assert.ok((await pruneUplinkKeys(t().database.db, Date.now() + (UPLINK_KEY_DAYS + 1) * 86_400_000)) >= 1);
    const left = await t()
      .database.db.selectFrom('integration_uplinks')
      .select('dedup_key')
      .where('integration_id', '=', integ.id)
      .execute();
    assert.deepEqual(left, []);
  });

  test('a burst of 1,000 uplinks from 200 devices is stored once each', async () => {
    const { key, farm } = await farmWithKey();
    const integ = await integration(t(), key, farm.id, { name: 'Burst' });
    const devices: string[] = [];
    for (let i = 0; i < 200; i++) {
      const eui = (0x1000 + i).toString(16).padStart(16, '0');
      const d = await make.device(t(), key, farm.id, { type: 'water', name: `B${i}`, serial: `eui:${eui}` });
      devices.push(d.id);
    }
    const bodies = Array.from({ length: 1000 }, (_, n) => {
      const i = n % 200;
      const eui = (0x1000 + i).toString(16).padStart(16, '0');
      const second = Math.floor(n / 200);
      return chirpstackUp({
        devEui: eui,
        deduplicationId: `burst-${n}`,
        time: `2026-11-01T00:00:0${second}Z`,
        object: { level: n },
      });
    });
    // Every tenth uplink arrives twice.
    const sends = [...bodies, ...bodies.filter((_, n) => n % 10 === 0)];
    const replies = await Promise.all(sends.map((b) => uplink(t(), integ, b, { event: 'up' })));
    assert.ok(replies.every((r) => r.status === 200));
    assert.equal(replies.filter((r) => r.body.outcome === 'stored').length, 1000);
    assert.equal(replies.filter((r) => r.body.outcome === 'duplicate').length, 100);
    const counts = await t()
      .database.db.selectFrom('readings')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('farm_id', '=', farm.id)
      .where('metric', '=', 'lorawan.level')
      .executeTakeFirstOrThrow();
    assert.equal(Number(counts.n), 1000);
  });
});
