import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, test } from 'node:test';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { forEachEngine, type Receiver, startReceiver } from '../../../test/harness.ts';
import type { Farm, NewWebhook } from '../../../test/replies.ts';
import { deliverDueNow } from '../../../test/webhook-delivery.ts';
import { hmacMatches } from '../../../test/webhook-receiver.ts';

/** The request's headers as a library takes them: one string each. */
function flat(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]),
  );
}

forEachEngine(
  'Standard Webhooks headers',
  (t) => {
    const receivers: Receiver[] = [];
    after(() => Promise.all(receivers.map((r) => r.close())));

    test('every delivery verifies with the standardwebhooks package and with Service-Signature', async () => {
      const acct = await t().sharedAccount();
      const receiver = await startReceiver();
      receivers.push(receiver);
      const farm = await t().request<Farm>('POST', '/v1/farms', {
        key: acct.live_key,
        body: { name: 'Standard farm' },
      });
      const hook = await t().request<NewWebhook>('POST', `/v1/farms/${farm.body.id}/webhooks`, {
        key: acct.live_key,
        body: { url: receiver.url, events: ['animal.created', 'event.created'] },
      });
      const secret = hook.body.secret;
      assert.match(secret, /^whsec_[A-Za-z0-9+/]+=*$/, 'standard base64 after the prefix');
      for (const tag of ['ST-1', 'ST-2']) {
        await t().request('POST', `/v1/farms/${farm.body.id}/animals`, {
          key: acct.live_key,
          body: { species: 'goat', tag },
        });
      }
      await t().request('POST', `/v1/farms/${farm.body.id}/events`, {
        key: acct.live_key,
        body: { type: 'note', data: { text: 'é — unicode survives' } },
      });
      await deliverDueNow(t().database, t().config);
      assert.equal(receiver.requests.length, 3);
      const verifier = new StandardWebhook(secret);
      for (const request of receiver.requests) {
        const headers = flat(request.headers);
        const payload = verifier.verify(request.body, headers) as { id: string; type: string };
        assert.equal(headers['webhook-id'], payload.id);
        assert.equal(headers['webhook-id'], headers['service-event-id']);
        assert.match(headers['webhook-signature'] ?? '', /^v1,[A-Za-z0-9+/]+=*$/);
        // The same moment signs both.
        const t0 = /t=(\d+)/.exec(headers['service-signature'] ?? '')?.[1];
        assert.equal(headers['webhook-timestamp'], t0);
        assert.ok(hmacMatches(secret, headers['service-signature'] ?? '', request.body));
        // A changed body or another secret fails.
        assert.throws(() => verifier.verify(`${request.body} `, headers), /signature/i);
        const other = new StandardWebhook(`whsec_${randomBytes(32).toString('base64')}`);
        assert.throws(() => other.verify(request.body, headers), /signature/i);
      }
    });

    test('a webhook with an older URL-safe secret also gets a Standard Webhooks signature that verifies', async () => {
      const acct = await t().sharedAccount();
      const receiver = await startReceiver();
      receivers.push(receiver);
      const farm = await t().request<Farm>('POST', '/v1/farms', {
        key: acct.live_key,
        body: { name: 'Legacy secret farm' },
      });
      const hook = await t().request<NewWebhook>('POST', `/v1/farms/${farm.body.id}/webhooks`, {
        key: acct.live_key,
        body: { url: receiver.url, events: ['animal.created'] },
      });
      // A secret as they were made before: URL-safe base64, chosen to hold both - and _.
      let legacy = '';
      while (!legacy.slice(6).includes('-') || !legacy.slice(6).includes('_')) {
        legacy = `whsec_${randomBytes(32).toString('base64url')}`;
      }
      await t()
        .database.db.updateTable('webhooks')
        .set({ secret: legacy })
        .where('id', '=', hook.body.id)
        .execute();
      await t().request('POST', `/v1/farms/${farm.body.id}/animals`, {
        key: acct.live_key,
        body: { species: 'goat', tag: 'LG-1' },
      });
      await deliverDueNow(t().database, t().config);
      const [request] = receiver.requests;
      assert.ok(request);
      const headers = flat(request.headers);
      assert.throws(() => new StandardWebhook(legacy), 'the library refuses URL-safe base64 as it is');
      // As docs/webhooks.md says: the standard alphabet, and the padding back.
      const converted = `whsec_${legacy.slice(6).replace(/-/g, '+').replace(/_/g, '/')}=`;
      const payload = new StandardWebhook(converted).verify(request.body, headers) as { type: string };
      assert.equal(payload.type, 'animal.created');
      assert.ok(hmacMatches(legacy, headers['service-signature'] ?? '', request.body));
    });
  },
  { webhookAllowPrivate: true },
);
