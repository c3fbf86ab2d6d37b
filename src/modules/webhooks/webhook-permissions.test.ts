import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import {
  expectError,
  forEachEngine,
  type Receiver,
  startReceiver,
  type TestApp,
} from '../../../test/harness.ts';
import type { Farm, NewWebhook, Webhook } from '../../../test/replies.ts';
import { deliverDueNow } from '../../../test/webhook-delivery.ts';
import { WEBHOOK_EVENTS } from '../../domain/webhook-events.ts';

/** A key made by `parent` with these grants, on every farm of the account. */
async function keyWith(t: TestApp, parent: string, permissions: Record<string, string>): Promise<string> {
  const res = await t.request<{ key: string }>('POST', '/v1/keys', { key: parent, body: { permissions } });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.key;
}

forEachEngine(
  'webhooks send only what their creator may read',
  (t) => {
    const receivers: Receiver[] = [];
    after(() => Promise.all(receivers.map((r) => r.close())));

    async function farmOf(key: string): Promise<string> {
      const farm = await t().request<Farm>('POST', '/v1/farms', { key, body: { name: 'Side door farm' } });
      return farm.body.id;
    }

    test('a key with only webhooks:write cannot subscribe to alerts, commands, devices, animals or "*": 403 naming the event', async () => {
      const acct = await t().sharedAccount();
      const farmId = await farmOf(acct.live_key);
      const key = await keyWith(t(), acct.live_key, { webhooks: 'write' });
      expectError(await t().request('GET', `/v1/farms/${farmId}/alerts`, { key }), 403, 'forbidden');
      const url = `/v1/farms/${farmId}/webhooks`;
      const cases: Array<[string, string]> = [
        ['alert.created', 'alerts:read'],
        ['alert.resolved', 'alerts:read'],
        ['command.done', 'devices:read'],
        ['command.queued', 'devices:read'],
        ['device.created', 'devices:read'],
        ['animal.created', 'records:read'],
        ['event.created', 'records:read'],
      ];
      for (const [event, need] of cases) {
        const err = expectError(
          await t().request('POST', url, { key, body: { url: 'https://example.com/h', events: [event] } }),
          403,
          'forbidden',
        );
        assert.equal(err.param, 'events[0]');
        assert.match(err.message, new RegExp(`"${event.replace('.', '\\.')}" needs ${need}`));
      }
      for (const body of [
        { url: 'https://example.com/h' },
        { url: 'https://example.com/h', events: ['*'] },
      ]) {
        const star = expectError(await t().request('POST', url, { key, body }), 403, 'forbidden');
        assert.match(star.message, /may read none of/);
      }
      const records = await keyWith(t(), acct.live_key, { webhooks: 'write', records: 'read' });
      const second = expectError(
        await t().request('POST', url, {
          key: records,
          body: { url: 'https://example.com/h', events: ['event.created', 'alert.created'] },
        }),
        403,
        'forbidden',
      );
      assert.equal(second.param, 'events[1]', 'the refusal names the entry');
      const list = await t().request<{ data: Webhook[] }>('GET', url, { key });
      assert.deepEqual(list.body.data, [], 'nothing was created');
    });

    test('"*" from a restricted key is stored as the events it may read; an unrestricted key keeps "*"', async () => {
      const acct = await t().sharedAccount();
      const farmId = await farmOf(acct.live_key);
      const url = `/v1/farms/${farmId}/webhooks`;
      const records = await keyWith(t(), acct.live_key, { webhooks: 'write', records: 'read' });
      const made = await t().request<NewWebhook>('POST', url, {
        key: records,
        body: { url: 'https://example.com/h', events: ['*'] },
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      assert.deepEqual(made.body.events, [
        'event.created',
        'animal.created',
        'treatment.created',
        'treatment.deleted',
        'withdrawal.overridden',
        'movement.created',
        'weigh_session.imported',
        'animal.born',
      ]);
      const byDefault = await t().request<NewWebhook>('POST', url, {
        key: records,
        body: { url: 'https://example.com/h' },
      });
      assert.deepEqual(byDefault.body.events, [
        'event.created',
        'animal.created',
        'treatment.created',
        'treatment.deleted',
        'withdrawal.overridden',
        'movement.created',
        'weigh_session.imported',
        'animal.born',
      ]);
      const devices = await keyWith(t(), acct.live_key, {
        webhooks: 'write',
        devices: 'read',
        alerts: 'read',
      });
      const both = await t().request<NewWebhook>('POST', url, {
        key: devices,
        body: { url: 'https://example.com/h', events: ['*'] },
      });
      assert.deepEqual(both.body.events, [
        'alert.created',
        'alert.resolved',
        'command.queued',
        'command.done',
        'command.failed',
        'device.created',
      ]);
      const full = await t().request<NewWebhook>('POST', url, {
        key: acct.live_key,
        body: { url: 'https://example.com/h', events: ['*'] },
      });
      assert.deepEqual(full.body.events, ['*']);
      // A restricted key that reads every family still gets the concrete list: "*" would take in event
      // types added later, whatever they need.
      const readsAll = await keyWith(t(), acct.live_key, {
        webhooks: 'write',
        records: 'read',
        devices: 'read',
        alerts: 'read',
      });
      const listed = await t().request<NewWebhook>('POST', url, {
        key: readsAll,
        body: { url: 'https://example.com/h', events: ['*'] },
      });
      assert.equal(listed.body.events.length, WEBHOOK_EVENTS.length);
      assert.ok(!listed.body.events.includes('*'));
    });

    test('PATCH is checked the same way: new events, and a new url for events the key may not read', async () => {
      const acct = await t().sharedAccount();
      const farmId = await farmOf(acct.live_key);
      const records = await keyWith(t(), acct.live_key, { webhooks: 'write', records: 'read' });
      const own = await t().request<NewWebhook>('POST', `/v1/farms/${farmId}/webhooks`, {
        key: records,
        body: { url: 'https://example.com/mine', events: ['animal.created'] },
      });
      const widen = expectError(
        await t().request('PATCH', `/v1/webhooks/${own.body.id}`, {
          key: records,
          body: { events: ['animal.created', 'command.done'] },
        }),
        403,
        'forbidden',
      );
      assert.equal(widen.param, 'events[1]');
      assert.match(widen.message, /"command\.done" needs devices:read/);
      const star = await t().request<Webhook>('PATCH', `/v1/webhooks/${own.body.id}`, {
        key: records,
        body: { events: ['*'] },
      });
      assert.deepEqual(star.body.events, [
        'event.created',
        'animal.created',
        'treatment.created',
        'treatment.deleted',
        'withdrawal.overridden',
        'movement.created',
        'weigh_session.imported',
        'animal.born',
      ]);

      // Someone else's "*" webhook: the restricted key may not point it at itself.
      const theirs = await t().request<NewWebhook>('POST', `/v1/farms/${farmId}/webhooks`, {
        key: acct.live_key,
        body: { url: 'https://example.com/owner' },
      });
      const redirect = expectError(
        await t().request('PATCH', `/v1/webhooks/${theirs.body.id}`, {
          key: records,
          body: { url: 'https://example.com/thief' },
        }),
        403,
        'forbidden',
      );
      assert.match(
        redirect.message,
        /every event \("\*"\), including "alert\.created", which needs alerts:read/,
      );
      const unchanged = await t().request<Webhook>('GET', `/v1/webhooks/${theirs.body.id}`, {
        key: acct.live_key,
      });
      assert.equal(unchanged.body.url, 'https://example.com/owner');
      assert.deepEqual(unchanged.body.events, ['*']);
      const narrowed = await t().request<Webhook>('PATCH', `/v1/webhooks/${theirs.body.id}`, {
        key: records,
        body: { url: 'https://example.com/thief', events: ['animal.created'] },
      });
      assert.equal(narrowed.status, 200);
      assert.deepEqual(narrowed.body.events, ['animal.created']);
      // Status alone changes nothing a key could read.
      const disabled = await t().request<Webhook>('PATCH', `/v1/webhooks/${own.body.id}`, {
        key: records,
        body: { status: 'disabled' },
      });
      assert.equal(disabled.body.status, 'disabled');
    });

    test("a restricted key's webhook receives only the events it may read, delivered to a real receiver", async () => {
      const acct = await t().sharedAccount();
      const farmId = await farmOf(acct.live_key);
      const receiver = await startReceiver();
      receivers.push(receiver);
      const records = await keyWith(t(), acct.live_key, { webhooks: 'write', records: 'write' });
      const hook = await t().request<NewWebhook>('POST', `/v1/farms/${farmId}/webhooks`, {
        key: records,
        body: { url: receiver.url, events: ['*'] },
      });
      assert.equal(hook.status, 201, JSON.stringify(hook.body));
      // A device (devices), its command (commands) and an animal (records), made by the account's own key.
      const device = await t().request<{ id: string }>('POST', `/v1/farms/${farmId}/devices`, {
        key: acct.live_key,
        body: { name: 'Barn water', type: 'water' },
      });
      assert.equal(device.status, 201, JSON.stringify(device.body));
      const animal = await t().request<{ id: string }>('POST', `/v1/farms/${farmId}/animals`, {
        key: acct.live_key,
        body: { species: 'sheep', tag: 'SD-1' },
      });
      assert.equal(animal.status, 201);
      await deliverDueNow(t().database, t().config);
      const types = receiver.requests.map((r) => (JSON.parse(r.body) as { type: string }).type);
      assert.deepEqual(types, ['animal.created']);
    });
  },
  { webhookAllowPrivate: true },
);
