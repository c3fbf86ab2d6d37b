import assert from 'node:assert/strict';
import { connect as connectTcp, createServer } from 'node:net';
import { test } from 'node:test';
import mqttPacket from 'mqtt-packet';
import * as make from '../../../test/factories.ts';
import { waitFor } from '../../../test/harness.ts';
import { connectDevice, connectError, forEachMqttEngine, startMqttTestApp } from '../../../test/mqtt.ts';
import type { Alert, Command, Device, DeviceKey, List } from '../../../test/replies.ts';
import type { Db } from '../../db/schema.ts';
import { topics } from './topics.ts';

async function readingRows(t: { database: { db: Db } }, deviceId: string) {
  return t.database.db
    .selectFrom('readings')
    .select(['metric', 'value', 'unit', 'at'])
    .where('device_id', '=', deviceId)
    .orderBy('metric')
    .execute();
}

forEachMqttEngine('MQTT', (t) => {
  // Every test makes a farm of its own on the one shared account: a fresh account per test would seed a
  // sample farm each time, which costs more than most of these tests.
  const tcp = () => `mqtt://127.0.0.1:${t().mqttPort}`;

  test('devices connect with their id and key (MQTT 3.1.1 and 5, TCP and WebSocket); a bad key is refused', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const device = await make.device(t(), acct.live_key, farm);
    for (const protocolVersion of [4, 5] as const) {
      const d = await connectDevice(tcp(), device.id, device.device_key, { protocolVersion });
      assert.ok(d.client.connected);
      await d.end();
    }
    const ws = await connectDevice(`${t().httpUrl.replace('http', 'ws')}/mqtt`, device.id, device.device_key);
    assert.ok(ws.client.connected, 'MQTT over WebSocket on the HTTP listener');
    await ws.end();

    const other = await make.device(t(), acct.live_key, farm, { name: 'House 2' });
    for (const [username, password] of [
      [device.id, 'rd_wrong'],
      [device.id, other.device_key],
      ['', device.device_key],
      [device.id, ''],
    ]) {
      const err = await connectError(tcp(), { username, password, protocolVersion: 4 });
      assert.ok(err, `refused: ${username} / ${password}`);
      assert.match(err.message, /Bad username or password|Not authorized/i);
    }
  });

  test('a rotated key is refused at CONNECT; a device connected when its key is rotated or it is deleted is disconnected', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const device = await make.device(t(), acct.live_key, farm);
    const connected = await connectDevice(tcp(), device.id, device.device_key, { protocolVersion: 5 });
    let closed = false;
    connected.client.on('close', () => {
      closed = true;
    });
    const rotated = await t().request<DeviceKey>('POST', `/v1/devices/${device.id}/key`, {
      key: acct.live_key,
    });
    assert.equal(rotated.status, 200);
    await waitFor('the connection to close', () => closed, 5_000);
    assert.ok(await connectError(tcp(), { username: device.id, password: device.device_key }));
    const fresh = await connectDevice(tcp(), device.id, rotated.body.device_key);
    let freshClosed = false;
    fresh.client.on('close', () => {
      freshClosed = true;
    });
    await t().request('DELETE', `/v1/devices/${device.id}`, { key: acct.live_key });
    await waitFor('the deleted device to be disconnected', () => freshClosed, 5_000);
    await fresh.end();
    await connected.end();
  });

  test('a report over MQTT stores readings and opens alerts exactly as the same body over HTTP', async () => {
    const acct = await t().sharedAccount();
    const body = {
      readings: [
        { metric: 'climate.nh3_ppm', value: 27, at: '2026-05-01T10:00:00.000Z' },
        { metric: 'feed.bin_pct', value: 55, at: '2026-05-01T10:00:00.000Z' },
      ],
      events: [{ type: 'predator.detected', data: { species: 'fox' } }],
      state: { doors: { '2': 'open' } },
      battery: 71,
    };
    const httpFarm = (await make.farm(t(), acct.live_key, { name: 'Over HTTP' })).id;
    const mqttFarm = (await make.farm(t(), acct.live_key, { name: 'Over MQTT' })).id;
    const viaHttp = await make.device(t(), acct.live_key, httpFarm);
    const viaMqtt = await make.device(t(), acct.live_key, mqttFarm);
    const http = await make.report(t(), viaHttp.device_key, body);
    assert.equal(http.status, 200);

    const d = await connectDevice(tcp(), viaMqtt.id, viaMqtt.device_key, { protocolVersion: 5 });
    await d.client.subscribeAsync(topics.reportResult(viaMqtt.id), { qos: 1 });
    await d.client.publishAsync(topics.report(viaMqtt.id), JSON.stringify(body), {
      qos: 1,
      properties: { correlationData: Buffer.from('req-1') },
    });
    const result = await d.next(topics.reportResult(viaMqtt.id));
    assert.deepEqual(result.json, http.body, 'the same answer as HTTP');
    assert.equal(result.packet.properties?.correlationData?.toString(), 'req-1', 'correlation data echoed');
    await d.end();

    assert.deepEqual(await readingRows(t(), viaMqtt.id), await readingRows(t(), viaHttp.id));
    const alerts = async (farm: string) => {
      const res = await t().request<List<Alert>>('GET', `/v1/farms/${farm}/alerts?status=all`, {
        key: acct.live_key,
      });
      return res.body.data
        .map((a) => ({ rule: a.rule, severity: a.severity, status: a.status, title: a.title }))
        .sort((a, b) => a.rule.localeCompare(b.rule));
    };
    const httpAlerts = await alerts(httpFarm);
    assert.equal(httpAlerts.length, 2);
    assert.deepEqual(await alerts(mqttFarm), httpAlerts);
    const state = async (id: string) =>
      (await t().request<Device>('GET', `/v1/devices/${id}`, { key: acct.live_key })).body;
    const [a, b] = [await state(viaHttp.id), await state(viaMqtt.id)];
    assert.deepEqual(b.state, a.state);
    assert.equal(b.battery, 71);
  });

  test('a malformed report gets the Error object on the result topic and stores nothing', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const device = await make.device(t(), acct.live_key, farm);
    const d = await connectDevice(tcp(), device.id, device.device_key, { protocolVersion: 5 });
    await d.client.subscribeAsync(topics.reportResult(device.id), { qos: 1 });
    const cases: Array<[string, string | undefined]> = [
      ['{"readings": [', undefined],
      [
        JSON.stringify({ readings: [{ metric: 'feed.bin_pct', value: 'high' }], battery: 50 }),
        'readings[0].value',
      ],
      [JSON.stringify({ colour: 'red' }), 'colour'],
      ['[1,2]', 'body'],
    ];
    for (const [i, [payload, param]] of cases.entries()) {
      await d.client.publishAsync(topics.report(device.id), payload, {
        qos: 1,
        properties: { correlationData: Buffer.from(`bad-${i}`) },
      });
      const answer = await d.next(topics.reportResult(device.id), i);
      assert.equal(answer.json.error.code, 'invalid_request', payload);
      assert.ok(answer.json.error.message.length > 0);
      if (param) assert.equal(answer.json.error.param, param);
      assert.equal(answer.packet.properties?.correlationData?.toString(), `bad-${i}`);
      // The words of the HTTP answer to the same body.
      if (payload === '[1,2]') assert.equal(answer.json.error.message, 'body must be of type object.');
    }
    assert.equal((await readingRows(t(), device.id)).length, 0);
    const got = await t().request<Device>('GET', `/v1/devices/${device.id}`, { key: acct.live_key });
    assert.equal(got.body.battery, null);
    assert.equal(got.body.last_seen_at, null);
    assert.ok(d.client.connected, 'bad input does not cost the connection');
    await d.end();
  });

  test('a command queued over REST arrives on the device topic within a second; the result topic answers it', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const device = await make.device(t(), acct.live_key, farm);
    const d = await connectDevice(tcp(), device.id, device.device_key);
    await d.client.subscribeAsync(
      [topics.commands(device.id), `farmstead/devices/${device.id}/commands/+/result/outcome`],
      {
        qos: 1,
      },
    );
    const started = Date.now();
    const queued = await t().request<Command>('POST', `/v1/devices/${device.id}/commands`, {
      key: acct.live_key,
      body: { command: 'doors.close', params: { doors: 'all' } },
    });
    assert.equal(queued.status, 201);
    const pushed = await d.next(topics.commands(device.id));
    assert.ok(Date.now() - started < 1_000, `arrived after ${Date.now() - started} ms`);
    assert.equal(pushed.packet.qos, 1);
    assert.equal(pushed.json.id, queued.body.id);
    assert.equal(pushed.json.status, 'delivered');
    assert.equal(pushed.json.delivery_attempts, 1);

    await d.client.publishAsync(
      topics.commandResult(device.id, queued.body.id),
      JSON.stringify({ status: 'done', result: { closed: 14 } }),
      { qos: 1 },
    );
    const outcome = await d.next(topics.commandOutcome(device.id, queued.body.id));
    assert.equal(outcome.json.status, 'done');
    const history = await t().request<List<Command>>('GET', `/v1/devices/${device.id}/commands`, {
      key: acct.live_key,
    });
    assert.equal(history.body.data[0]!.status, 'done');
    assert.deepEqual(history.body.data[0]!.result, { closed: 14 });

    // A second answer is refused as over HTTP (409) and changes nothing.
    await d.client.publishAsync(
      topics.commandResult(device.id, queued.body.id),
      JSON.stringify({ status: 'failed' }),
      {
        qos: 1,
      },
    );
    const again = await d.next(topics.commandOutcome(device.id, queued.body.id), 1);
    assert.equal(again.json.error.code, 'conflict');
    const after = await t().request<List<Command>>('GET', `/v1/devices/${device.id}/commands`, {
      key: acct.live_key,
    });
    assert.equal(after.body.data[0]!.status, 'done');
    await d.end();
  });

  test("topic ACLs: a device may not publish or subscribe to another device's topics", async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const mine = await make.device(t(), acct.live_key, farm);
    const theirs = await make.device(t(), acct.live_key, farm, { name: 'House 2' });
    const d = await connectDevice(tcp(), mine.id, mine.device_key, { protocolVersion: 5 });
    for (const filter of [
      topics.commands(theirs.id),
      'farmstead/devices/+/commands',
      'farmstead/#',
      '#',
      '$SYS/#',
    ]) {
      await assert.rejects(d.client.subscribeAsync(filter, { qos: 1 }), /not authorized/i, filter);
    }
    const own = await d.client.subscribeAsync(`farmstead/devices/${mine.id}/#`, { qos: 1 });
    assert.equal(own[0]?.qos, 1, 'its own subtree is allowed');

    await assert.rejects(
      d.client.publishAsync(
        topics.report(theirs.id),
        JSON.stringify({ readings: [{ metric: 'x', value: 1 }] }),
        {
          qos: 1,
        },
      ),
      /not authorized/i,
    );
    await assert.rejects(
      d.client.publishAsync(`farmstead/devices/${mine.id}/anything`, '{}', { qos: 1 }),
      /not authorized/i,
    );
    assert.equal((await readingRows(t(), theirs.id)).length, 0);

    // MQTT 3.1.1 has no refusal code for a publish: the connection is closed.
    const v4 = await connectDevice(tcp(), mine.id, mine.device_key, { protocolVersion: 4 });
    let closed = false;
    v4.client.on('close', () => {
      closed = true;
    });
    v4.client.publish(topics.report(theirs.id), JSON.stringify({ readings: [{ metric: 'x', value: 1 }] }), {
      qos: 1,
    });
    await waitFor('the v3.1.1 connection to close', () => closed, 5_000);
    assert.equal((await readingRows(t(), theirs.id)).length, 0);
    await v4.end();
    await d.end();
  });

  test("a device using another device's client id neither takes its session over nor sees its commands", async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const a = await make.device(t(), acct.live_key, farm);
    const b = await make.device(t(), acct.live_key, farm, { name: 'House 2' });
    const first = await connectDevice(tcp(), a.id, a.device_key, { clientId: 'house', clean: false });
    await first.client.subscribeAsync(topics.commands(a.id), { qos: 1 });
    let closed = false;
    first.client.on('close', () => {
      closed = true;
    });
    const second = await connectDevice(tcp(), b.id, b.device_key, { clientId: 'house', clean: false });
    await t().request('POST', `/v1/devices/${a.id}/commands`, {
      key: acct.live_key,
      body: { command: 'lights.set', params: { mode: 'on' } },
    });
    await first.next(topics.commands(a.id));
    assert.equal(closed, false, 'the first session is still connected');
    assert.equal(second.received.length, 0);
    await second.end();
    await first.end();
  });

  test('a QoS 1 report sent again with DUP after a lost PUBACK is answered again and stored once', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const device = await make.device(t(), acct.live_key, farm);
    // A raw connection, so the resend is exactly what a device sends when its PUBACK was lost.
    const socket = connectTcp(t().mqttPort, '127.0.0.1');
    const parser = mqttPacket.parser({ protocolVersion: 4 });
    const packets: any[] = [];
    parser.on('packet', (packet) => packets.push(packet));
    socket.on('data', (data) => parser.parse(data));
    const send = (packet: object) => socket.write(mqttPacket.generate(packet as mqttPacket.Packet));
    send({
      cmd: 'connect',
      protocolId: 'MQTT',
      protocolVersion: 4,
      clean: true,
      clientId: 'raw-house',
      keepalive: 30,
      username: device.id,
      password: Buffer.from(device.device_key),
    });
    await waitFor('CONNACK', () => packets.find((p) => p.cmd === 'connack' && p.returnCode === 0));
    send({
      cmd: 'subscribe',
      messageId: 1,
      subscriptions: [{ topic: topics.reportResult(device.id), qos: 0 }],
    });
    await waitFor('SUBACK', () => packets.find((p) => p.cmd === 'suback'));
    const answers = () =>
      packets.filter((p) => p.cmd === 'publish' && p.topic === topics.reportResult(device.id));
    const publish = (dup: boolean, value: number) =>
      send({
        cmd: 'publish',
        topic: topics.report(device.id),
        payload: JSON.stringify({ readings: [{ metric: 'feed.bin_pct', value }] }),
        qos: 1,
        messageId: 7,
        dup,
        retain: false,
      });
    publish(false, 40);
    await waitFor('the first answer', () => answers().length === 1);
    publish(true, 40);
    await waitFor('the answer to the resend', () => answers().length === 2);
    assert.equal(String(answers()[1].payload), String(answers()[0].payload), 'the same answer again');
    assert.equal((await readingRows(t(), device.id)).length, 1, 'stored once');
    // A client may reuse an id once acknowledged: a new message (no DUP) with id 7 is a new report.
    publish(false, 41);
    await waitFor('the third answer', () => answers().length === 3);
    assert.equal((await readingRows(t(), device.id)).length, 2);
    socket.destroy();
  });

  test('redelivery: an MQTT command not answered is pushed again after its window and on reconnect', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const device = await make.device(t(), acct.live_key, farm);
    // This device never sends PUBACK: the command counts as handed out, not answered.
    const d = await connectDevice(tcp(), device.id, device.device_key, {
      protocolVersion: 4,
      customHandleAcks: () => {},
    });
    await d.client.subscribeAsync(topics.commands(device.id), { qos: 1 });
    const queued = await t().request<Command>('POST', `/v1/devices/${device.id}/commands`, {
      key: acct.live_key,
      body: { command: 'lights.set', params: { mode: 'on' }, redeliver_after_s: 30 },
    });
    const first = await d.next(topics.commands(device.id));
    assert.equal(first.json.delivery_attempts, 1);
    t().advance(31_000);
    const second = await d.next(topics.commands(device.id), 1);
    assert.equal(second.json.id, queued.body.id);
    assert.equal(second.json.delivery_attempts, 2);
    await d.end();

    // A new clean session gets every unanswered command again, whatever the window.
    const again = await connectDevice(tcp(), device.id, device.device_key, { clean: true });
    await again.client.subscribeAsync(topics.commands(device.id), { qos: 1 });
    const third = await again.next(topics.commands(device.id));
    assert.equal(third.json.id, queued.body.id);
    assert.equal(third.json.delivery_attempts, 3);
    await again.end();
  });

  test('a flood from one device is refused past its rate and the broker stays up', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const device = await make.device(t(), acct.live_key, farm);
    const d = await connectDevice(tcp(), device.id, device.device_key);
    await d.client.subscribeAsync(topics.reportResult(device.id), { qos: 1 });
    const body = JSON.stringify({ readings: [{ metric: 'power.load_w', value: 1 }] });
    const burst = t().config.mqttRatePerSecond * 10;
    for (let i = 0; i < burst + 50; i++) d.client.publish(topics.report(device.id), body, { qos: 0 });
    await waitFor('a rate_limited answer', () =>
      d.received.find(
        (m) => m.topic === topics.reportResult(device.id) && m.json?.error?.code === 'rate_limited',
      ),
    );
    // The refusal can come back before the accepted reports commit (a device's reports queue for their
    // group transactions): wait for what was accepted, then check nothing past the rate was stored.
    await waitFor(
      'the accepted reports stored',
      async () => (await readingRows(t(), device.id)).length >= burst - 5,
    );
    const stored = (await readingRows(t(), device.id)).length;
    assert.ok(stored < burst + 50 && stored >= burst - 5, `stored ${stored}`);
    const health: any = await fetch(`${t().httpUrl}/healthz`).then((r) => r.json());
    assert.equal(health.mqtt.tcp, 'up');
    await d.end();
  });
});

test('a taken MQTT port leaves TCP down (reported by /healthz) and WebSocket up', async () => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const taken = (blocker.address() as { port: number }).port;
  const t = await startMqttTestApp('sqlite');
  try {
    assert.equal(await t.app.mqtt.listenTcp(taken, '127.0.0.1'), null);
    const health: any = await fetch(`${t.httpUrl}/healthz`).then((r) => r.json());
    assert.deepEqual(health.mqtt, { tcp: 'down', ws: 'up' });
    const acct = await t.account();
    const farm = (await make.farm(t, acct.live_key)).id;
    const device = await make.device(t, acct.live_key, farm);
    const ws = await connectDevice(`${t.httpUrl.replace('http', 'ws')}/mqtt`, device.id, device.device_key);
    assert.ok(ws.client.connected);
    await ws.end();
  } finally {
    await t.close();
    blocker.close();
  }
});
