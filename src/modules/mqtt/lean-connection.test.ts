import assert from 'node:assert/strict';
import { once } from 'node:events';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { test } from 'node:test';
import { Aedes, type Client } from 'aedes';
import { BufferList } from 'bl';
import mqttPacket from 'mqtt-packet';
import { waitFor } from '../../../test/harness.ts';
import { forgetConnectPacket, lightenConnection } from './lean-connection.ts';

type Internals = { _parser: { _list: unknown; settings: Record<string, unknown> }; _topicAliases: unknown };

test("aedes's parser with the lighter buffer list reads MQTT 5 packets arriving a byte at a time, forgets the CONNECT once logged in, and topic aliases still work", async () => {
  // Farmstead's broker takes no topic aliases (aedes's default maximum, 0); one that did must still read them.
  const broker = await Aedes.createBroker({ topicAliasMaximum: 10 });
  let client: Client | undefined;
  broker.on('clientReady', forgetConnectPacket);
  const server = createServer((socket) => {
    client = broker.handle(socket);
    lightenConnection(client);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const socket: Socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
  const parser = mqttPacket.parser({ protocolVersion: 5 });
  const packets: mqttPacket.Packet[] = [];
  parser.on('packet', (packet) => packets.push(packet));
  socket.on('data', (data) => parser.parse(data));
  /** Each packet written one byte per write, as a slow link may hand them over. */
  const send = async (packet: object) => {
    for (const byte of mqttPacket.generate(packet as mqttPacket.Packet, { protocolVersion: 5 })) {
      socket.write(Buffer.of(byte));
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  const received = (cmd: string) => waitFor(cmd.toUpperCase(), () => packets.find((p) => p.cmd === cmd));
  try {
    await send({
      cmd: 'connect',
      protocolId: 'MQTT',
      protocolVersion: 5,
      clean: true,
      clientId: 'slow-house',
      keepalive: 30,
      username: 'dev_slow',
      password: Buffer.from('rd_secret'),
      properties: { sessionExpiryInterval: 0, receiveMaximum: 20 },
    });
    assert.ok(await received('connack'), 'CONNACK');
    const internals = client as unknown as Internals;
    assert.ok(internals._parser._list instanceof BufferList, 'the list is a BufferList');
    assert.equal(typeof (internals._parser._list as { pipe?: unknown }).pipe, 'undefined', 'not a stream');
    assert.ok(!(internals._topicAliases instanceof Map), 'no alias map until an alias is set');
    assert.deepEqual(
      internals._parser.settings,
      { protocolVersion: 5 },
      'no username, password or will kept',
    );

    await send({
      cmd: 'subscribe',
      messageId: 1,
      subscriptions: [{ topic: 'farmstead/devices/dev_slow/commands', qos: 1 }],
    });
    assert.ok(await received('suback'), 'SUBACK');
    await send({
      cmd: 'publish',
      topic: 'farmstead/devices/dev_slow/commands',
      payload: Buffer.from('{"a":1}'),
      qos: 1,
      messageId: 2,
      retain: false,
      dup: false,
      properties: { userProperties: { source: 'test' }, contentType: 'application/json' },
    });
    assert.ok(await received('puback'), 'PUBACK');
    const delivered = (await received('publish')) as mqttPacket.IPublishPacket | undefined;
    assert.equal(String(delivered?.payload), '{"a":1}');
    assert.deepEqual(
      { ...delivered?.properties?.userProperties },
      { source: 'test' },
      'MQTT 5 properties parsed',
    );
    assert.equal(delivered?.properties?.contentType, 'application/json');

    // An alias set with a topic, then used alone: the message arrives on the topic it stands for.
    const alias = { cmd: 'publish', qos: 0, retain: false, dup: false } as const;
    await send({
      ...alias,
      topic: 'farmstead/devices/dev_slow/commands',
      payload: 'one',
      properties: { topicAlias: 3 },
    });
    await send({ ...alias, topic: '', payload: 'two', properties: { topicAlias: 3 } });
    const viaAlias = (await waitFor('the message sent by its alias', () =>
      packets.find((p) => p.cmd === 'publish' && String(p.payload) === 'two'),
    )) as mqttPacket.IPublishPacket;
    assert.equal(viaAlias.topic, 'farmstead/devices/dev_slow/commands', 'the alias stood for its topic');
  } finally {
    socket.destroy();
    await new Promise<void>((resolve) => broker.close(() => resolve()));
    server.close();
  }
});
