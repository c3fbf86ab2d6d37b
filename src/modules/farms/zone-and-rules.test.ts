import assert from 'node:assert/strict';
import { test } from 'node:test';
import { expectError, forEachEngine } from '../../../test/harness.ts';
import type { Farm } from '../../../test/replies.ts';

forEachEngine('farms: the zone of their coordinates, and settings.rules behind the rules permission', (t) => {
  test('a farm created with lat/lon and no timezone takes the zone of its coordinates', async () => {
    const acct = await t().sharedAccount();
    const make = (body: Record<string, unknown>) =>
      t().request<Farm>('POST', '/v1/farms', { key: acct.live_key, body: { name: 'Zoned', ...body } });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ lat: 41.88, lon: -87.63 }, 'America/Chicago'],
      [{ lat: -36.85, lon: 174.76 }, 'Pacific/Auckland'],
      [{ lat: 52.52, lon: 13.405 }, 'Europe/Berlin'],
      [{ lat: 41.88, lon: -87.63, timezone: 'Europe/Paris' }, 'Europe/Paris'],
      [{ lat: 41.88 }, 'UTC'],
      [{ lat: null, lon: null }, 'UTC'],
      [{}, 'UTC'],
    ];
    for (const [body, zone] of cases) {
      const farm = await make(body);
      assert.equal(farm.status, 201, JSON.stringify(farm.body));
      assert.equal(farm.body.timezone, zone, JSON.stringify(body));
    }
    // Later coordinates do not move a farm's zone: it is the farmer's to change.
    const farm = await make({});
    const moved = await t().request<Farm>('PATCH', `/v1/farms/${farm.body.id}`, {
      key: acct.live_key,
      body: { lat: 41.88, lon: -87.63 },
    });
    assert.equal(moved.body.timezone, 'UTC');
  });

  test('a key that writes farms but not rules cannot change settings.rules (403 naming it); other settings it can', async () => {
    const acct = await t().sharedAccount();
    const made = await t().request<{ key: string }>('POST', '/v1/keys', {
      key: acct.live_key,
      body: { permissions: { records: 'write', alerts: 'read' } },
    });
    const key = made.body.key;
    const farm = await t().request<Farm>('POST', '/v1/farms', { key, body: { name: 'Rules farm' } });
    assert.equal(farm.status, 201);
    const silence = { rules: { 'water.leak': { enabled: false } } };
    const patched = expectError(
      await t().request('PATCH', `/v1/farms/${farm.body.id}`, { key, body: { settings: silence } }),
      403,
      'forbidden',
    );
    assert.equal(patched.param, 'settings.rules');
    assert.match(patched.message, /need alerts:write; this key lacks it/);
    expectError(
      await t().request('PATCH', `/v1/farms/${farm.body.id}`, { key, body: { settings: null } }),
      403,
      'forbidden',
    );
    expectError(
      await t().request('POST', '/v1/farms', { key, body: { name: 'Quiet', settings: silence } }),
      403,
      'forbidden',
    );
    const other = await t().request<Farm>('PATCH', `/v1/farms/${farm.body.id}`, {
      key,
      body: { settings: { herd_book: 'A-12' } },
    });
    assert.equal(other.status, 200, JSON.stringify(other.body));
    assert.equal(other.body.settings.herd_book, 'A-12');
    assert.equal(other.body.settings.rules, undefined, 'no rules were written');
    const owner = await t().request<Farm>('PATCH', `/v1/farms/${farm.body.id}`, {
      key: acct.live_key,
      body: { settings: silence },
    });
    assert.equal(owner.status, 200, JSON.stringify(owner.body));
  });
});
