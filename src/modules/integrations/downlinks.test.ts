import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { forEachEngine } from '../../../test/harness.ts';
import { integration, type StandIn, startStandIn, uplink } from '../../../test/lorawan.ts';
import {
  chirpstackAck,
  chirpstackTxAck,
  chirpstackUp,
  ttsDownAck,
  ttsDownFailed,
  ttsDownNack,
  ttsDownQueued,
  ttsDownSent,
} from '../../../test/lorawan-fixtures.ts';
import type { Command } from '../../../test/replies.ts';
import { freePort } from '../../../test/throwaway.ts';
import { downlinkSettings, sendDueDownlinks } from './downlinks.ts';

const hex64 = (hex: string) => Buffer.from(hex, 'hex').toString('base64');

forEachEngine(
  'LoRaWAN downlinks',
  (t) => {
    const standIns: StandIn[] = [];
    after(async () => {
      for (const s of standIns) await s.close();
    });

    async function standIn(port = 0) {
      const s = await startStandIn(port);
      standIns.push(s);
      return s;
    }

    async function setup(
      type: 'chirpstack' | 'ttn',
      apiUrl: string,
      device: { type: string; eui: string; link: Record<string, unknown> },
    ) {
      const acct = await t().sharedAccount();
      const key = acct.live_key;
      const farm = await make.farm(t(), key, { name: 'Downlink farm' });
      const integ = await integration(t(), key, farm.id, {
        type,
        name: type,
        api_url: apiUrl,
        api_key: type === 'chirpstack' ? 'cs-api-token' : 'NNSXS.TTS-KEY',
        ...(type === 'ttn' ? { application_id: 'app1', webhook_id: 'wh1' } : {}),
      });
      const dev = await make.device(t(), key, farm.id, {
        type: device.type,
        name: 'Valve',
        serial: `eui:${device.eui}`,
      });
      const linked = await t().request('PUT', `/v1/devices/${dev.id}/lorawan`, {
        key,
        body: { integration_id: integ.id, ...device.link },
      });
      assert.equal(linked.status, 200, JSON.stringify(linked.body));
      return { key, farm, integ, device: dev };
    }

    async function queue(key: string, deviceId: string, body: Record<string, unknown>) {
      return make.posted<Command>(t(), key, `/v1/devices/${deviceId}/commands`, body);
    }

    const command = (key: string, id: string) =>
      make.fetched<Command[] | { data: Command[] }>(t(), key, `/v1/devices/${id}/commands`);
    async function commandOf(key: string, deviceId: string, commandId: string): Promise<Command> {
      const list = (await command(key, deviceId)) as { data: Command[] };
      const found = list.data.find((c) => c.id === commandId);
      assert.ok(found);
      return found;
    }

    const run = (now: number) => sendDueDownlinks(t().database.db, downlinkSettings(t().config), now);

    test('ChirpStack: a confirmed valve command is queued at /api/devices/{devEui}/queue, delivered, then done on ack and failed on a negative ack', async () => {
      const server = await standIn();
      let n = 0;
      server.answer(() => ({ status: 200, body: { id: `qi-${++n}` } }));
      const { key, farm, integ, device } = await setup('chirpstack', server.url, {
        type: 'water',
        eui: '0b0b0b0b0b0b0b0b',
        link: { preset: 'dragino-lt22222-l' },
      });
      const open = await queue(key, device.id, { command: 'valve.set', params: { position: 'open' } });
      const now = Date.now();
      assert.deepEqual(await run(now), { sent: 1, failed: 0, retry: 0, skipped: 0 });
      assert.equal(server.requests.length, 1);
      const [sent] = server.requests;
      assert.equal(sent?.method, 'POST');
      assert.equal(sent?.url, '/api/devices/0b0b0b0b0b0b0b0b/queue');
      assert.equal(sent?.headers.authorization, 'Bearer cs-api-token');
      assert.deepEqual(sent?.body, { queueItem: { confirmed: true, fPort: 2, data: hex64('030111') } });
      assert.equal((await commandOf(key, device.id, open.id)).status, 'delivered');
      // Nothing is sent twice.
      assert.deepEqual(await run(now + 1), { sent: 0, failed: 0, retry: 0, skipped: 0 });

      // txack of a confirmed downlink: still waiting for the device.
      await uplink(t(), integ, chirpstackTxAck({ devEui: '0b0b0b0b0b0b0b0b', queueItemId: 'qi-1' }), {
        event: 'txack',
      });
      assert.equal((await commandOf(key, device.id, open.id)).status, 'delivered');
      const acked = await uplink(
        t(),
        integ,
        chirpstackAck({ devEui: '0b0b0b0b0b0b0b0b', queueItemId: 'qi-1', acknowledged: true }),
        { event: 'ack' },
      );
      assert.equal(acked.body.outcome, 'downlink');
      const done = await commandOf(key, device.id, open.id);
      assert.equal(done.status, 'done');
      assert.equal(done.result?.network_server, 'acknowledged');
      assert.equal((await make.outboxEvents(t(), farm.id, 'command.done')).length, 1);

      const close = await queue(key, device.id, { command: 'valve.set', params: { position: 'closed' } });
      await run(now + 2);
      assert.deepEqual(server.requests[1]?.body, {
        queueItem: { confirmed: true, fPort: 2, data: hex64('030011') },
      });
      // A negative ack of another downlink (queued in ChirpStack's console) settles none of ours.
      const other = await uplink(
        t(),
        integ,
        chirpstackAck({
          devEui: '0b0b0b0b0b0b0b0b',
          queueItemId: 'some-other-queue-item',
          acknowledged: false,
        }),
        { event: 'ack' },
      );
      assert.equal(other.status, 200, JSON.stringify(other.body));
      assert.equal((await commandOf(key, device.id, close.id)).status, 'delivered');
      await uplink(
        t(),
        integ,
        chirpstackAck({ devEui: '0b0b0b0b0b0b0b0b', queueItemId: 'qi-2', acknowledged: false }),
        { event: 'ack' },
      );
      const nacked = await commandOf(key, device.id, close.id);
      assert.equal(nacked.status, 'failed');
      assert.match(String(nacked.result?.error), /did not acknowledge/);
      assert.equal((await make.outboxEvents(t(), farm.id, 'command.failed')).length, 1);
    });

    test('ChirpStack: an unconfirmed downlink is done on txack; an object encoder sends `object`', async () => {
      const server = await standIn();
      server.answer(() => ({ status: 200, body: { id: 'qi-tx' } }));
      const tracker = await setup('chirpstack', server.url, {
        type: 'tag',
        eui: '0c0c0c0c0c0c0c0c',
        link: { preset: 'dragino-lgt92' },
      });
      const interval = await queue(tracker.key, tracker.device.id, {
        command: 'set_report_interval',
        params: { seconds: 600 },
      });
      await run(Date.now());
      assert.deepEqual(server.requests[0]?.body, {
        queueItem: { confirmed: false, fPort: 2, data: hex64('01000258') },
      });
      await uplink(
        t(),
        tracker.integ,
        chirpstackTxAck({ devEui: '0c0c0c0c0c0c0c0c', queueItemId: 'qi-tx' }),
        { event: 'txack' },
      );
      const done = await commandOf(tracker.key, tracker.device.id, interval.id);
      assert.equal(done.status, 'done');
      assert.equal(done.result?.network_server, 'sent');

      const valve = await setup('chirpstack', server.url, {
        type: 'water',
        eui: '0d0d0d0d0d0d0d0d',
        link: {
          encoder: { 'valve.set': { f_port: 10, object: { valve: '{position}', source: 'farmstead' } } },
        },
      });
      await queue(valve.key, valve.device.id, { command: 'valve.set', params: { position: 'closed' } });
      await run(Date.now());
      assert.equal(server.requests[1]?.url, '/api/devices/0d0d0d0d0d0d0d0d/queue');
      assert.deepEqual(server.requests[1]?.body, {
        queueItem: { confirmed: true, fPort: 10, object: { valve: 'closed', source: 'farmstead' } },
      });
    });

    test('The Things Stack: pushed to …/webhooks/{webhook}/devices/{device_id}/down/push, done on down/ack, failed on down/failed', async () => {
      const server = await standIn();
      const { key, farm, integ, device } = await setup('ttn', server.url, {
        type: 'water',
        eui: '0004a30b001c0530',
        link: { preset: 'dragino-lt22222-l', remote_id: 'dev1' },
      });
      const open = await queue(key, device.id, { command: 'valve.set', params: { position: 'open' } });
      await run(Date.now());
      const [push] = server.requests;
      assert.equal(push?.url, '/api/v3/as/applications/app1/webhooks/wh1/devices/dev1/down/push');
      assert.equal(push?.headers.authorization, 'Bearer NNSXS.TTS-KEY');
      assert.deepEqual(push?.body, {
        downlinks: [
          {
            f_port: 2,
            confirmed: true,
            frm_payload: hex64('030111'),
            correlation_ids: [`farmstead:command:${open.id}`],
          },
        ],
      });
      assert.equal((await commandOf(key, device.id, open.id)).status, 'delivered');
      // down/sent of a confirmed downlink changes nothing; down/ack ends it.
      await uplink(t(), integ, ttsDownSent({ correlationIds: [`farmstead:command:${open.id}`] }));
      assert.equal((await commandOf(key, device.id, open.id)).status, 'delivered');
      const acked = await uplink(
        t(),
        integ,
        ttsDownAck({ correlationIds: [`farmstead:command:${open.id}`] }),
      );
      assert.equal(acked.body.outcome, 'downlink');
      assert.equal((await commandOf(key, device.id, open.id)).status, 'done');

      const close = await queue(key, device.id, { command: 'valve.set', params: { position: 'closed' } });
      await run(Date.now());
      await uplink(t(), integ, ttsDownFailed({ correlationIds: [`farmstead:command:${close.id}`] }));
      const failed = await commandOf(key, device.id, close.id);
      assert.equal(failed.status, 'failed');
      assert.equal(
        (failed.result?.detail as { name?: string } | undefined)?.name,
        'application_downlink_too_long',
      );
      assert.deepEqual(
        (await make.outboxEvents(t(), farm.id))
          .filter((e) => e.type.startsWith('command.'))
          .map((e) => e.type),
        ['command.queued', 'command.done', 'command.queued', 'command.failed'],
      );
    });

    test('The Things Stack: down/queued changes nothing, down/nack fails the command', async () => {
      const server = await standIn();
      const { key, integ, device } = await setup('ttn', server.url, {
        type: 'water',
        eui: '0004a30b001c0531',
        link: { preset: 'dragino-lt22222-l', remote_id: 'valve-2' },
      });
      const c = await queue(key, device.id, { command: 'valve.set', params: { position: 'open' } });
      await run(Date.now());
      assert.equal(
        server.requests[0]?.url,
        '/api/v3/as/applications/app1/webhooks/wh1/devices/valve-2/down/push',
      );
      const ids = {
        devEui: '0004A30B001C0531',
        deviceId: 'valve-2',
        correlationIds: [`farmstead:command:${c.id}`],
      };
      await uplink(t(), integ, ttsDownQueued(ids));
      assert.equal((await commandOf(key, device.id, c.id)).status, 'delivered');
      await uplink(t(), integ, ttsDownNack(ids));
      const nacked = await commandOf(key, device.id, c.id);
      assert.equal(nacked.status, 'failed');
      assert.match(String(nacked.result?.error), /did not acknowledge/);
    });

    test("The Things Stack's downlink_failed exactly as documented (no dev_eui, no received_at) fails its command; downlink messages without dev_eui find theirs", async () => {
      const server = await standIn();
      const { key, integ, device } = await setup('ttn', server.url, {
        type: 'water',
        eui: '0004a30b001c0532',
        link: { preset: 'dragino-lt22222-l', remote_id: 'dev1' },
      });
      const first = await queue(key, device.id, { command: 'valve.set', params: { position: 'open' } });
      await run(Date.now());
      // The documented message, with only our correlation id added to the failed downlink's.
      const failed = ttsDownFailed({ correlationIds: [`farmstead:command:${first.id}`] });
      assert.equal('dev_eui' in (failed.end_device_ids as object), false);
      assert.equal('received_at' in failed, false);
      const reply = await uplink(t(), integ, failed);
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      assert.deepEqual(reply.body, { ok: true, outcome: 'downlink', device_id: device.id });
      const ended = await commandOf(key, device.id, first.id);
      assert.equal(ended.status, 'failed');
      assert.equal((ended.result?.detail as { code?: number } | undefined)?.code, 3);

      // Every downlink_* message may come without dev_eui: the ack finds its command by correlation id.
      const second = await queue(key, device.id, { command: 'valve.set', params: { position: 'closed' } });
      await run(Date.now());
      const ack = ttsDownAck({ correlationIds: [`farmstead:command:${second.id}`] });
      delete (ack.end_device_ids as { dev_eui?: string }).dev_eui;
      assert.equal((await uplink(t(), integ, ack)).body.outcome, 'downlink');
      assert.equal((await commandOf(key, device.id, second.id)).status, 'done');

      // A failure naming another downlink (the Application Server's id for it, none of ours: one queued in
      // the console, say) settles none of ours, though it names this device.
      const third = await queue(key, device.id, { command: 'valve.set', params: { position: 'open' } });
      await run(Date.now());
      const another = await uplink(t(), integ, ttsDownFailed({ correlationIds: [] }));
      assert.deepEqual(another.body, { ok: true, outcome: 'ignored' });
      assert.equal((await commandOf(key, device.id, third.id)).status, 'delivered');
      // Another application's dev1 is not this device.
      const fourth = await queue(key, device.id, { command: 'valve.set', params: { position: 'closed' } });
      await run(Date.now());
      const elsewhere = ttsDownFailed({ correlationIds: [] });
      (elsewhere.end_device_ids as { application_ids: { application_id: string } }).application_ids = {
        application_id: 'another-app',
      };
      assert.deepEqual((await uplink(t(), integ, elsewhere)).body, { ok: true, outcome: 'ignored' });
      assert.equal((await commandOf(key, device.id, fourth.id)).status, 'delivered');
    });

    test("a refusal by the network server's API fails the command with the server's words", async () => {
      const server = await standIn();
      server.answer(() => ({
        status: 404,
        body: { error: 'Object does not exist (id: 0e0e0e0e0e0e0e0e)', code: 5 },
      }));
      const { key, device } = await setup('chirpstack', server.url, {
        type: 'water',
        eui: '0e0e0e0e0e0e0e0e',
        link: { preset: 'dragino-lt22222-l' },
      });
      const c = await queue(key, device.id, { command: 'valve.set', params: { position: 'open' } });
      assert.equal((await run(Date.now())).failed, 1);
      const failed = await commandOf(key, device.id, c.id);
      assert.equal(failed.status, 'failed');
      assert.equal(failed.result?.status_code, 404);
      assert.deepEqual(failed.result?.response, {
        error: 'Object does not exist (id: 0e0e0e0e0e0e0e0e)',
        code: 5,
      });
    });

    test('a command with no downlink in the encoder fails and says why', async () => {
      const server = await standIn();
      const { key, device } = await setup('chirpstack', server.url, {
        type: 'guardian',
        eui: '0f0f0f0f0f0f0f0f',
        link: { preset: 'dragino-lgt92' },
      });
      const c = await queue(key, device.id, { command: 'alarm.sound', params: { seconds: 10 } });
      await run(Date.now());
      const failed = await commandOf(key, device.id, c.id);
      assert.equal(failed.status, 'failed');
      assert.match(String(failed.result?.error), /no downlink for alarm\.sound/);
      assert.equal(server.requests.length, 0);
    });

    test('the network server unreachable: retried with backoff, then sent once it is back', async () => {
      const port = await freePort();
      const { key, device } = await setup('chirpstack', `http://127.0.0.1:${port}`, {
        type: 'water',
        eui: '1010101010101010',
        link: { preset: 'dragino-lt22222-l' },
      });
      const c = await queue(key, device.id, { command: 'valve.set', params: { position: 'open' } });
      const now = Date.now();
      assert.equal((await run(now)).retry, 1);
      const row = await t()
        .database.db.selectFrom('integration_downlinks')
        .selectAll()
        .where('command_id', '=', c.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.attempts, 1);
      assert.match(String(row.last_error), /ECONNREFUSED/);
      assert.equal((await commandOf(key, device.id, c.id)).status, 'queued');
      // Not due before the schedule's first delay (1 s here).
      assert.deepEqual(await run(now + 500), { sent: 0, failed: 0, retry: 0, skipped: 0 });
      const server = await standIn(port);
      server.answer(() => ({ status: 200, body: { id: 'qi-back' } }));
      assert.equal((await run(now + 1_000)).sent, 1);
      assert.equal(server.requests.length, 1);
      assert.equal((await commandOf(key, device.id, c.id)).status, 'delivered');
    });

    test('unreachable past the expiry: the command fails with the last error; a 503 is retried like a lost connection', async () => {
      const server = await standIn();
      server.answer(() => ({ status: 503, body: { error: 'overloaded' } }));
      const { key, device } = await setup('chirpstack', server.url, {
        type: 'water',
        eui: '1111111111111111',
        link: { preset: 'dragino-lt22222-l' },
      });
      const c = await queue(key, device.id, {
        command: 'valve.set',
        params: { position: 'open' },
        expires_in_s: 3,
      });
      const created = Date.parse(c.created_at);
      assert.equal((await run(created)).retry, 1);
      assert.equal((await run(created + 1_000)).failed, 1);
      const failed = await commandOf(key, device.id, c.id);
      assert.equal(failed.status, 'failed');
      assert.match(String(failed.result?.error), /could not be reached before the command expired/);
      assert.equal(failed.result?.attempts, 2);
      assert.equal(server.requests.length, 2);
    });

    test('a command handed out by an uplink report is sent as a downlink; the SSRF guard refuses a private api_url at send time', async () => {
      const server = await standIn();
      server.answer(() => ({ status: 200, body: { id: 'qi-up' } }));
      const { key, integ, device } = await setup('chirpstack', server.url, {
        type: 'water',
        eui: '1212121212121212',
        link: { preset: 'dragino-lt22222-l' },
      });
      const c = await queue(key, device.id, { command: 'valve.set', params: { position: 'open' } });
      await uplink(
        t(),
        integ,
        chirpstackUp({
          devEui: '1212121212121212',
          deduplicationId: 'with-command',
          object: { ACI1_mA: 4.88 },
        }),
        { event: 'up' },
      );
      const row = await t()
        .database.db.selectFrom('integration_downlinks')
        .selectAll()
        .where('command_id', '=', c.id)
        .executeTakeFirst();
      assert.ok(row, 'the report made the downlink row');
      const guarded = { ...downlinkSettings(t().config), allowPrivate: false };
      assert.equal((await sendDueDownlinks(t().database.db, guarded, Date.now())).failed, 1);
      const refused = await commandOf(key, device.id, c.id);
      assert.equal(refused.status, 'failed');
      assert.match(String(refused.result?.error), /refused: .*loopback/);
      assert.equal(server.requests.length, 0);
    });
  },
  { webhookAllowPrivate: true, webhookRetryScheduleMs: [1_000, 5_000], webhookTimeoutMs: 2_000 },
);
