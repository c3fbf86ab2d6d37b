import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { expectError, forEachEngine, type Receiver, startReceiver } from '../../../test/harness.ts';
import { hmacMatches, verifyLikeAReceiver } from '../../../test/webhook-receiver.ts';
import { WEBHOOK_TEST_EVENT } from '../../domain/webhook-events.ts';
import type { WebhookDelivery } from './schemas.ts';

forEachEngine(
  'webhook test event',
  (t) => {
    const receivers: Receiver[] = [];
    after(() => Promise.all(receivers.map((r) => r.close())));
    async function receiver(status = 200): Promise<Receiver> {
      const r = await startReceiver(() => status);
      receivers.push(r);
      return r;
    }

    test('POST /v1/webhooks/{id}/test sends a signed webhook.test to that webhook and logs the delivery', async () => {
      const acct = await t().sharedAccount();
      const farm = await make.farm(t(), acct.live_key);
      const rcv = await receiver();
      const bystander = await receiver();
      // Subscribed to one event only: a test is sent whatever the webhook's events.
      const hook = await make.webhook(t(), acct.live_key, farm.id, {
        url: rcv.url,
        events: ['alert.created'],
      });
      await make.webhook(t(), acct.live_key, farm.id, { url: bystander.url, events: ['*'] });

      const res = await t().request<WebhookDelivery>('POST', `/v1/webhooks/${hook.id}/test`, {
        key: acct.live_key,
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.status, 'succeeded');
      assert.equal(res.body.event_type, WEBHOOK_TEST_EVENT);
      assert.equal(res.body.last_status_code, 200);
      assert.equal(res.body.attempts.length, 1);
      assert.equal(res.body.attempts[0]?.trigger, 'manual');

      assert.equal(rcv.requests.length, 1, 'the receiver got it before the answer');
      const [req] = rcv.requests;
      assert.ok(req);
      const signature = String(req.headers['service-signature']);
      assert.ok(hmacMatches(hook.secret, signature, req.body));
      assert.ok(await verifyLikeAReceiver(hook.secret, signature, req.body));
      assert.equal(req.headers['service-event-type'], 'webhook.test');
      assert.equal(req.headers['service-delivery-id'], res.body.id);
      const payload = JSON.parse(req.body) as {
        id: string;
        type: string;
        farm_id: string;
        data: { webhook_id: string };
      };
      assert.equal(payload.type, 'webhook.test');
      assert.equal(payload.id, res.body.event_id);
      assert.equal(payload.farm_id, farm.id);
      assert.equal(payload.data.webhook_id, hook.id);
      assert.equal(bystander.requests.length, 0, 'other webhooks of the farm get nothing');

      const log = await make.fetched<{ data: WebhookDelivery[] }>(
        t(),
        acct.live_key,
        `/v1/webhooks/${hook.id}/deliveries`,
      );
      assert.deepEqual(
        log.data.map((d) => [d.id, d.event_type, d.status]),
        [[res.body.id, 'webhook.test', 'succeeded']],
      );
      const others = await make.outboxEvents(t(), farm.id, 'webhook.test');
      assert.equal(others.length, 1);
    });

    test('a test the receiver refuses is failed at once (no retry schedule), saying why; retry sends it again', async () => {
      const acct = await t().sharedAccount();
      const farm = await make.farm(t(), acct.live_key);
      const rcv = await receiver(500);
      const hook = await make.webhook(t(), acct.live_key, farm.id, { url: rcv.url });
      const res = await t().request<WebhookDelivery>('POST', `/v1/webhooks/${hook.id}/test`, {
        key: acct.live_key,
      });
      assert.equal(res.status, 200);
      assert.equal(res.body.status, 'failed');
      assert.equal(res.body.last_status_code, 500);
      assert.match(res.body.last_error ?? '', /500/);
      assert.equal(res.body.next_attempt_at, null);
      rcv.answer(() => 204);
      const retried = await t().request<WebhookDelivery>(
        'POST',
        `/v1/webhooks/${hook.id}/deliveries/${res.body.id}/retry`,
        { key: acct.live_key },
      );
      assert.equal(retried.body.status, 'succeeded');
      assert.equal(rcv.requests.length, 2);
    });

    test('a disabled webhook is 409, another account’s is 404', async () => {
      const acct = await t().sharedAccount();
      const farm = await make.farm(t(), acct.live_key);
      const rcv = await receiver();
      const hook = await make.webhook(t(), acct.live_key, farm.id, { url: rcv.url });
      await t().request('PATCH', `/v1/webhooks/${hook.id}`, {
        key: acct.live_key,
        body: { status: 'disabled' },
      });
      expectError(
        await t().request('POST', `/v1/webhooks/${hook.id}/test`, { key: acct.live_key }),
        409,
        'conflict',
      );
      const stranger = await t().account('Stranger');
      expectError(
        await t().request('POST', `/v1/webhooks/${hook.id}/test`, { key: stranger.live_key }),
        404,
        'not_found',
      );
      assert.equal(rcv.requests.length, 0);
    });
  },
  { webhookAllowPrivate: true },
);
