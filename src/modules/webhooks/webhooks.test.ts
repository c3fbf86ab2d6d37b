import assert from 'node:assert/strict';
import { test } from 'node:test';
import { expectError, forEachEngine } from '../../../test/harness.ts';
import type { Farm, List, NewWebhook, OpenApiDocument, Webhook } from '../../../test/replies.ts';
import { WEBHOOK_EVENTS } from '../../domain/webhook-events.ts';

const RECEIVER = 'http://127.0.0.1:9/hooks';

forEachEngine(
  'webhooks',
  (t) => {
    // Tests make a farm of their own on the one shared account (a fresh account seeds a sample farm, which
    // costs more than most of these tests); the ones about other accounts make those.
    async function liveFarm(key: string): Promise<string> {
      const farm = await t().request<Farm>('POST', '/v1/farms', { key, body: { name: 'Hook farm' } });
      return farm.body.id;
    }

    test('POST /v1/farms/{farm}/webhooks creates a webhook and returns its signing secret once, as `secret`', async () => {
      const acct = await t().sharedAccount();
      const farmId = await liveFarm(acct.live_key);
      const res = await t().request<NewWebhook>('POST', `/v1/farms/${farmId}/webhooks`, {
        key: acct.live_key,
        body: { url: RECEIVER, events: ['alert.created', 'animal.created'] },
      });
      assert.equal(res.status, 201);
      assert.match(res.body.id, /^wh_/);
      assert.equal(res.body.farm_id, farmId);
      assert.equal(res.body.url, RECEIVER);
      assert.deepEqual(res.body.events, ['alert.created', 'animal.created']);
      assert.equal(res.body.status, 'enabled');
      assert.equal(res.body.disabled_reason, null);
      assert.match(res.body.created_at, /Z$/);
      const secret: string = res.body.secret;
      // Standard base64 after whsec_, as Standard Webhooks defines the secret.
      assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      assert.ok(Buffer.from(secret.slice(6), 'base64').length * 8 >= 192, 'at least 192 bits');

      const got = await t().request('GET', `/v1/webhooks/${res.body.id}`, { key: acct.live_key });
      const { secret: _s, ...withoutSecret } = res.body;
      assert.deepEqual(got.body, withoutSecret);
      const other = await t().request<NewWebhook>('POST', `/v1/farms/${farmId}/webhooks`, {
        key: acct.live_key,
        body: { url: RECEIVER },
      });
      assert.notEqual(other.body.secret, secret, 'every webhook has its own secret');
    });

    test('the secret appears only on create: never in get, list, patch, delete, deliveries or OpenAPI', async () => {
      const acct = await t().sharedAccount();
      const farmId = await liveFarm(acct.live_key);
      const created = await t().request<NewWebhook>('POST', `/v1/farms/${farmId}/webhooks`, {
        key: acct.live_key,
        body: { url: RECEIVER, events: ['*'] },
      });
      const { id, secret } = created.body;
      const responses = [
        await t().request('GET', `/v1/webhooks/${id}`, { key: acct.live_key }),
        await t().request('GET', `/v1/farms/${farmId}/webhooks`, { key: acct.live_key }),
        await t().request('PATCH', `/v1/webhooks/${id}`, {
          key: acct.live_key,
          body: { events: ['alert.created'] },
        }),
        await t().request('GET', `/v1/webhooks/${id}/deliveries`, { key: acct.live_key }),
        await t().request('GET', '/openapi.json'),
        await t().request('DELETE', `/v1/webhooks/${id}`, { key: acct.live_key }),
      ];
      for (const res of responses) {
        assert.equal(res.status, 200);
        const text = JSON.stringify(res.body);
        assert.ok(!text.includes(secret), 'secret leaked');
        assert.ok(!/"secret":/.test(text) || (res.body as { openapi?: string }).openapi, 'no secret member');
      }
    });

    test('events defaults to ["*"]; "*" alone, one name or several are accepted and repeats dropped', async () => {
      const acct = await t().sharedAccount();
      const farmId = await liveFarm(acct.live_key);
      const url = `/v1/farms/${farmId}/webhooks`;
      const all = await t().request<NewWebhook>('POST', url, { key: acct.live_key, body: { url: RECEIVER } });
      assert.deepEqual(all.body.events, ['*']);
      const star = await t().request<NewWebhook>('POST', url, {
        key: acct.live_key,
        body: { url: RECEIVER, events: ['*'] },
      });
      assert.deepEqual(star.body.events, ['*']);
      const every = await t().request<NewWebhook>('POST', url, {
        key: acct.live_key,
        body: { url: RECEIVER, events: [...WEBHOOK_EVENTS, 'alert.created'] },
      });
      assert.equal(every.status, 201);
      assert.deepEqual(every.body.events, [...WEBHOOK_EVENTS]);
    });

    test('invalid url or events are 400 naming the bad value; nothing is created', async () => {
      const acct = await t().sharedAccount();
      const farmId = await liveFarm(acct.live_key);
      const url = `/v1/farms/${farmId}/webhooks`;
      const cases: [unknown, string, RegExp?][] = [
        [{}, 'url'],
        [{ url: '' }, 'url'],
        [{ url: 'not a url' }, 'url', /absolute URL/],
        [{ url: '/relative/path' }, 'url'],
        [{ url: 'ftp://example.com/hook' }, 'url', /http/],
        [{ url: RECEIVER, events: [] }, 'events'],
        [{ url: RECEIVER, events: ['alert.created', 'alerts.created'] }, 'events[1]', /"alerts\.created"/],
        [{ url: RECEIVER, events: ['*', 'alert.created'] }, 'events[0]', /only entry/],
        [{ url: RECEIVER, events: ['alert.created', '*'] }, 'events[1]', /only entry/],
        [{ url: RECEIVER, events: 'alert.created' }, 'events'],
        [{ url: RECEIVER, events: [42] }, 'events[0]'],
        [{ url: RECEIVER, secret: 'whsec_mine' }, 'secret'],
      ];
      for (const [body, param, message] of cases) {
        const err = expectError(
          await t().request('POST', url, { key: acct.live_key, body }),
          400,
          'invalid_request',
        );
        assert.equal(err.param, param, JSON.stringify(body));
        if (message) assert.match(err.message, message, JSON.stringify(body));
      }
      const list = await t().request<List<Webhook>>('GET', url, { key: acct.live_key });
      assert.equal(list.body.data.length, 0);
    });

    test('PATCH changes url, events and status; invalid values are 400 and change nothing', async () => {
      const acct = await t().sharedAccount();
      const farmId = await liveFarm(acct.live_key);
      const created = await t().request<NewWebhook>('POST', `/v1/farms/${farmId}/webhooks`, {
        key: acct.live_key,
        body: { url: RECEIVER, events: ['alert.created'] },
      });
      const url = `/v1/webhooks/${created.body.id}`;
      const patched = await t().request<Webhook>('PATCH', url, {
        key: acct.live_key,
        body: { url: 'http://127.0.0.1:10/other', events: ['command.done', 'command.failed'] },
      });
      assert.equal(patched.status, 200);
      assert.equal(patched.body.url, 'http://127.0.0.1:10/other');
      assert.deepEqual(patched.body.events, ['command.done', 'command.failed']);
      const disabled = await t().request<Webhook>('PATCH', url, {
        key: acct.live_key,
        body: { status: 'disabled' },
      });
      assert.equal(disabled.body.status, 'disabled');
      assert.match(disabled.body.disabled_reason!, /PATCH/);
      const enabled = await t().request<Webhook>('PATCH', url, {
        key: acct.live_key,
        body: { status: 'enabled' },
      });
      assert.equal(enabled.body.status, 'enabled');
      assert.equal(enabled.body.disabled_reason, null);
      for (const [body, param] of [
        [{ events: ['nope'] }, 'events[0]'],
        [{ url: 'mailto:x@example.com' }, 'url'],
        [{ status: 'paused' }, 'status'],
        [{ farm_id: 'farm_x' }, 'farm_id'],
      ] as const) {
        const err = expectError(
          await t().request('PATCH', url, { key: acct.live_key, body }),
          400,
          'invalid_request',
        );
        assert.equal(err.param, param);
      }
      const unchanged = await t().request('GET', url, { key: acct.live_key });
      assert.deepEqual(unchanged.body, enabled.body);
    });

    test('DELETE removes the webhook; then it is 404 everywhere', async () => {
      const acct = await t().sharedAccount();
      const farmId = await liveFarm(acct.live_key);
      const created = await t().request<NewWebhook>('POST', `/v1/farms/${farmId}/webhooks`, {
        key: acct.live_key,
        body: { url: RECEIVER },
      });
      const del = await t().request('DELETE', `/v1/webhooks/${created.body.id}`, { key: acct.live_key });
      assert.deepEqual(del.body, { id: created.body.id, deleted: true });
      for (const [method, path] of [
        ['GET', ''],
        ['PATCH', ''],
        ['DELETE', ''],
        ['GET', '/deliveries'],
      ] as const) {
        expectError(
          await t().request(method, `/v1/webhooks/${created.body.id}${path}`, {
            key: acct.live_key,
            body: method === 'PATCH' ? { events: ['*'] } : undefined,
          }),
          404,
          'not_found',
        );
      }
    });

    test("another account's webhook, or one in the other mode, is 404 like a missing one", async () => {
      const a = await t().sharedAccount();
      const b = await t().account();
      const farmId = await liveFarm(b.live_key);
      const hook = await t().request<NewWebhook>('POST', `/v1/farms/${farmId}/webhooks`, {
        key: b.live_key,
        body: { url: RECEIVER },
      });
      const id = hook.body.id;
      for (const key of [a.live_key, a.test_key, b.test_key]) {
        expectError(await t().request('GET', `/v1/webhooks/${id}`, { key }), 404, 'not_found');
        expectError(
          await t().request('PATCH', `/v1/webhooks/${id}`, { key, body: { status: 'disabled' } }),
          404,
          'not_found',
        );
        expectError(await t().request('DELETE', `/v1/webhooks/${id}`, { key }), 404, 'not_found');
        expectError(await t().request('GET', `/v1/webhooks/${id}/deliveries`, { key }), 404, 'not_found');
        expectError(
          await t().request('POST', `/v1/webhooks/${id}/deliveries/dlv_x/retry`, { key }),
          404,
          'not_found',
        );
        expectError(await t().request('GET', `/v1/farms/${farmId}/webhooks`, { key }), 404, 'not_found');
        expectError(
          await t().request('POST', `/v1/farms/${farmId}/webhooks`, { key, body: { url: RECEIVER } }),
          404,
          'not_found',
        );
      }
      const still = await t().request<Webhook>('GET', `/v1/webhooks/${id}`, { key: b.live_key });
      assert.equal(still.body.status, 'enabled');
    });

    test('a test key manages webhooks on the sample farm', async () => {
      const acct = await t().sharedAccount();
      const res = await t().request<NewWebhook>('POST', `/v1/farms/${acct.sample_farm_id}/webhooks`, {
        key: acct.test_key,
        body: { url: RECEIVER, events: ['command.done'] },
      });
      assert.equal(res.status, 201);
      const list = await t().request<List<Webhook>>('GET', `/v1/farms/${acct.sample_farm_id}/webhooks`, {
        key: acct.test_key,
      });
      assert.deepEqual(
        list.body.data.map((w) => w.id),
        [res.body.id],
      );
    });

    test('the list pages newest first with limit and before', async () => {
      const acct = await t().sharedAccount();
      const farmId = await liveFarm(acct.live_key);
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const res = await t().request<NewWebhook>('POST', `/v1/farms/${farmId}/webhooks`, {
          key: acct.live_key,
          body: { url: `${RECEIVER}/${i}` },
        });
        ids.push(res.body.id);
      }
      const seen: string[] = [];
      let url = `/v1/farms/${farmId}/webhooks?limit=2`;
      for (;;) {
        const page = await t().request<List<Webhook>>('GET', url, { key: acct.live_key });
        seen.push(...page.body.data.map((w) => w.id));
        if (!page.body.has_more) break;
        url = `/v1/farms/${farmId}/webhooks?limit=2&before=${encodeURIComponent(page.body.next_before!)}`;
      }
      // Newest first, ties within a millisecond by id: ids start with their creation time.
      assert.deepEqual(seen, [...ids].sort().reverse());
    });

    test('the OpenAPI document describes every webhooks operation and the Webhook schemas', async () => {
      const doc = (await t().request<OpenApiDocument>('GET', '/openapi.json')).body;
      const paths = doc.paths;
      assert.ok(paths['/v1/farms/{farm}/webhooks']!.get && paths['/v1/farms/{farm}/webhooks']!.post);
      assert.ok(
        paths['/v1/webhooks/{id}']!.get &&
          paths['/v1/webhooks/{id}']!.patch &&
          paths['/v1/webhooks/{id}']!.delete,
      );
      assert.ok(paths['/v1/webhooks/{id}/deliveries']!.get);
      assert.ok(paths['/v1/webhooks/{id}/deliveries/{delivery_id}/retry']!.post);
      assert.ok(doc.components.schemas.Webhook!.properties!.secret);
      assert.ok(doc.components.schemas.WebhookDelivery!.properties!.attempts);
      assert.deepEqual(paths['/v1/farms/{farm}/webhooks']!.post.tags, ['Webhooks']);
    });
  },
  { webhookAllowPrivate: true },
);

forEachEngine('webhooks (private addresses refused)', (t) => {
  test('a URL on a loopback, private, link-local or metadata address is 400 and the message says how to allow it', async () => {
    const acct = await t().account();
    const farm = await t().request<Farm>('POST', '/v1/farms', { key: acct.live_key, body: { name: 'SSRF' } });
    const url = `/v1/farms/${farm.body.id}/webhooks`;
    for (const target of [
      'http://127.0.0.1:8080/hook',
      'http://localhost:3000/hook',
      'http://[::1]/hook',
      'http://[::ffff:127.0.0.1]/hook',
      'http://10.0.0.7/hook',
      'http://192.168.0.10/hook',
      'http://169.254.169.254/latest/meta-data/',
      'http://100.64.1.1/hook',
      'http://[fd12:3456::1]/hook',
    ]) {
      const err = expectError(
        await t().request('POST', url, { key: acct.live_key, body: { url: target } }),
        400,
        'invalid_request',
      );
      assert.equal(err.param, 'url');
      assert.match(err.message, /FARMSTEAD_WEBHOOK_ALLOW_PRIVATE=1/, target);
    }
    const ok = await t().request<NewWebhook>('POST', url, {
      key: acct.live_key,
      body: { url: 'https://93.184.215.14/hook' },
    });
    assert.equal(ok.status, 201, 'a public address is accepted');
    const patch = await t().request('PATCH', `/v1/webhooks/${ok.body.id}`, {
      key: acct.live_key,
      body: { url: 'http://172.20.0.2/hook' },
    });
    assert.equal(expectError(patch, 400, 'invalid_request').param, 'url');
    assert.equal(
      (await t().request<Webhook>('GET', `/v1/webhooks/${ok.body.id}`, { key: acct.live_key })).body.url,
      'https://93.184.215.14/hook',
    );
  });
});
