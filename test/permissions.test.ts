import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FAMILY_NAMES, PERMISSION_FAMILIES } from '../src/domain/permissions.ts';
import { TOOLS } from '../src/modules/mcp/server.ts';
import { expectError, forEachEngine, type TestApp } from './harness.ts';
import { callTool, connect, ERAS, ok } from './mcp.ts';
import type { Device, Farm, Key, List, Me, Task } from './replies.ts';

/** A key made by the account's test key with this restriction; returns the full key and its listing. */
async function restrictedKey(t: TestApp, parentKey: string, body: Record<string, unknown>) {
  const res = await t.request('POST', '/v1/keys', { key: parentKey, body });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as { id: string; key: string; farms: string[] | null; permissions: Record<string, string> };
}

/** Calls a tool that a key may not use: the server refuses it, as an error result or a protocol error. */
async function toolRefused(
  client: Parameters<typeof callTool>[0],
  name: string,
  args: Record<string, unknown>,
) {
  try {
    const res = await callTool(client, name, args);
    assert.equal(res.isError, true, `${name} should be refused, got ${res.text}`);
  } catch (err) {
    assert.match(String(err), /not found|unknown tool|-32602/i);
  }
}

forEachEngine('restricted keys and permissions', (t) => {
  test('every API-key route has an access derived at registration, naming known families', () => {
    const table = t().app.routeTable.routes;
    const apiRoutes = table.filter((r) => r.auth === 'api');
    assert.ok(apiRoutes.length > 40, `expected the whole API, got ${apiRoutes.length} routes`);
    for (const route of apiRoutes) {
      assert.ok(route.access, `${route.method} ${route.url} has no access`);
      if (route.access === 'any' || route.access === 'per-tool') continue;
      assert.ok(route.access.needs.length > 0, `${route.method} ${route.url} needs nothing`);
      for (const need of route.access.needs) {
        assert.ok(FAMILY_NAMES.includes(need.family), `${route.url}: unknown family ${need.family}`);
        assert.ok((PERMISSION_FAMILIES[need.family] as readonly string[]).includes(need.resource));
      }
    }
    const find = (method: string, url: string) => table.find((r) => r.method === method && r.url === url);
    assert.equal(find('GET', '/v1/me')?.access, 'any');
    const mcp = table.filter((r) => r.url === '/mcp');
    assert.ok(mcp.length > 0 && mcp.every((r) => r.access === 'per-tool'));
    assert.deepEqual(find('DELETE', '/v1/animals/:id')?.access, {
      needs: [{ family: 'records', resource: 'animals', access: 'delete' }],
    });
    assert.deepEqual(find('POST', '/v1/alerts/:id/acknowledge')?.access, {
      needs: [{ family: 'alerts', resource: 'alerts', access: 'write' }],
    });
  });

  test('POST /v1/keys takes farms and permissions; GET /v1/keys shows them; unrestricted keys show every family at write', async () => {
    const acct = await t().sharedAccount();
    const key = await restrictedKey(t(), acct.test_key, {
      name: 'barn display',
      farms: [acct.sample_farm_id],
      permissions: { records: 'read', devices: 'write' },
    });
    assert.deepEqual(key.farms, [acct.sample_farm_id]);
    assert.deepEqual(key.permissions, {
      records: 'read',
      devices: 'write',
      alerts: 'none',
      webhooks: 'none',
      keys: 'none',
    });
    const list = await t().request<List<Key>>('GET', '/v1/keys', { key: acct.test_key });
    const listed = list.body.data.find((k) => k.id === key.id)!;
    assert.deepEqual(listed.permissions, key.permissions);
    assert.deepEqual(listed.farms, [acct.sample_farm_id]);
    const parent = list.body.data.find((k) => k.id !== key.id)!;
    assert.equal(parent.farms, null);
    assert.deepEqual(
      parent.permissions,
      Object.fromEntries(FAMILY_NAMES.map((f) => [f, 'write'])),
      'an unrestricted key',
    );
    const bad = expectError(
      await t().request('POST', '/v1/keys', {
        key: acct.test_key,
        body: { permissions: { records: 'admin' } },
      }),
      400,
      'invalid_request',
    );
    assert.match(bad.param ?? '', /permissions/);
    const unknownFarm = expectError(
      await t().request('POST', '/v1/keys', { key: acct.test_key, body: { farms: ['farm_nope'] } }),
      400,
      'invalid_request',
    );
    assert.equal(unknownFarm.param, 'farms[0]');
  });

  test('a read-only key reads but every write is 403 forbidden naming the missing permission', async () => {
    const acct = await t().sharedAccount();
    const key = await restrictedKey(t(), acct.test_key, {
      permissions: { records: 'read', devices: 'read', alerts: 'read' },
    });
    const farm = acct.sample_farm_id;
    assert.equal((await t().request('GET', `/v1/farms/${farm}/animals`, { key: key.key })).status, 200);
    assert.equal((await t().request('GET', `/v1/farms/${farm}/brief`, { key: key.key })).status, 200);
    const write = expectError(
      await t().request('POST', `/v1/farms/${farm}/animals`, { key: key.key, body: { species: 'llama' } }),
      403,
      'forbidden',
    );
    assert.equal(write.message, 'This key lacks records:write.');
    const devices = await t().request<List<Device>>('GET', `/v1/farms/${farm}/devices`, { key: key.key });
    const house = devices.body.data.find((d) => d.type === 'house');
    const command = expectError(
      await t().request('POST', `/v1/devices/${house!.id}/commands`, {
        key: key.key,
        body: { command: 'lights.set', params: { mode: 'on' } },
      }),
      403,
      'forbidden',
    );
    assert.equal(command.message, 'This key lacks devices:write.');
    // Refused before the body is read: a malformed body still answers 403, not 400.
    expectError(
      await t().request('POST', `/v1/farms/${farm}/tasks`, { key: key.key, rawBody: '{oops' }),
      403,
      'forbidden',
    );
    const webhooks = expectError(
      await t().request('GET', `/v1/farms/${farm}/webhooks`, { key: key.key }),
      403,
      'forbidden',
    );
    assert.equal(webhooks.message, 'This key lacks webhooks:read.');
    expectError(await t().request('GET', '/v1/keys', { key: key.key }), 403, 'forbidden');
    const me = await t().request<Me>('GET', '/v1/me', { key: key.key });
    assert.equal(me.status, 200, '/v1/me needs no grant');
    assert.equal(me.body.key!.permissions.records, 'read');
    assert.equal(me.body.key!.permissions.keys, 'none');
    assert.equal(me.body.key!.farms, null);
    // Nothing was written.
    const animals = await t()
      .database.db.selectFrom('animals')
      .select('id')
      .where('farm_id', '=', farm)
      .where('species', '=', 'llama')
      .execute();
    assert.equal(animals.length, 0);
  });

  test('a key restricted to farms sees only them: other farms and their records are 404, creating farms is 403', async () => {
    const acct = await t().sharedAccount();
    const other = await t().request<Farm>('POST', '/v1/farms', {
      key: acct.test_key,
      body: { name: 'Back forty' },
    });
    const task = await t().request<Task>('POST', `/v1/farms/${other.body.id}/tasks`, {
      key: acct.test_key,
      body: { title: 'Fix the fence' },
    });
    const key = await restrictedKey(t(), acct.test_key, { farms: [acct.sample_farm_id] });
    const farms = await t().request<List<Farm>>('GET', '/v1/farms', { key: key.key });
    assert.deepEqual(
      farms.body.data.map((f) => f.id),
      [acct.sample_farm_id],
    );
    expectError(await t().request('GET', `/v1/farms/${other.body.id}`, { key: key.key }), 404, 'not_found');
    expectError(await t().request('GET', `/v1/tasks/${task.body.id}`, { key: key.key }), 404, 'not_found');
    expectError(
      await t().request('POST', `/v1/tasks/${task.body.id}/done`, { key: key.key }),
      404,
      'not_found',
    );
    const create = expectError(
      await t().request('POST', '/v1/farms', { key: key.key, body: { name: 'New' } }),
      403,
      'forbidden',
    );
    assert.match(create.message, /restricted to chosen farms/);
    assert.equal(
      (await t().request('GET', `/v1/farms/${acct.sample_farm_id}/tasks`, { key: key.key })).status,
      200,
    );
  });

  test('a key can only make or revoke keys no broader than itself', async () => {
    const acct = await t().sharedAccount();
    const manager = await restrictedKey(t(), acct.test_key, {
      farms: [acct.sample_farm_id],
      permissions: { records: 'read', keys: 'write' },
    });
    const broader = expectError(
      await t().request('POST', '/v1/keys', {
        key: manager.key,
        body: { permissions: { records: 'write' } },
      }),
      403,
      'forbidden',
    );
    assert.match(broader.message, /no more permissions than its own/);
    const inherits = await restrictedKey(t(), manager.key, { name: 'inherits' });
    assert.deepEqual(inherits.farms, [acct.sample_farm_id]);
    assert.equal(inherits.permissions.records, 'read');
    assert.equal(inherits.permissions.devices, 'none');
    const lesser = await restrictedKey(t(), manager.key, { permissions: { records: 'read' } });
    assert.equal(lesser.permissions.keys, 'none');
    const list = await t().request<List<Key>>('GET', '/v1/keys', { key: acct.test_key });
    const full = list.body.data.find((k) => k.name === 'Default test key');
    assert.equal(full?.farms, null);
    expectError(await t().request('DELETE', `/v1/keys/${full!.id}`, { key: manager.key }), 403, 'forbidden');
    assert.equal((await t().request('DELETE', `/v1/keys/${lesser.id}`, { key: manager.key })).status, 200);
  });

  test('a restricted live key does not count as the last live key', async () => {
    const acct = await t().account();
    await restrictedKey(t(), acct.live_key, { permissions: { records: 'read' } });
    const keys = await t().request<List<Key>>('GET', '/v1/keys', { key: acct.live_key });
    const full = keys.body.data.find((k) => k.mode === 'live' && k.permissions.keys === 'write');
    expectError(await t().request('DELETE', `/v1/keys/${full!.id}`, { key: acct.live_key }), 409, 'conflict');
  });

  for (const era of ERAS) {
    test(`${era.name}: MCP lists only the tools a key may use and refuses the others`, async () => {
      const acct = await t().sharedAccount();
      const readOnly = await restrictedKey(t(), acct.test_key, {
        permissions: { records: 'read', devices: 'read', alerts: 'read' },
      });
      const noDevices = await restrictedKey(t(), acct.test_key, {
        permissions: { records: 'write', alerts: 'write' },
      });
      // Every toolset, the opt-in herdbook too: the key's permissions are what narrows here.
      const all = { path: '/mcp?toolsets=all' };
      const full = await connect(t(), acct.test_key, era, all);
      const ro = await connect(t(), readOnly.key, era, all);
      const nd = await connect(t(), noDevices.key, era, all);
      try {
        const names = async (c: typeof full) => (await c.client.listTools()).tools.map((tool) => tool.name);
        assert.equal((await names(full)).length, TOOLS.length);
        const roTools = await names(ro);
        for (const write of [
          'update_alert',
          'add_animal',
          'log_event',
          'house_command',
          'add_task',
          'complete_task',
          'record_weight',
        ]) {
          assert.ok(!roTools.includes(write), `read-only key sees ${write}`);
        }
        assert.ok(roTools.includes('house_status') && roTools.includes('find_animals'));
        assert.ok(roTools.includes('animal_weights'));
        const ndTools = await names(nd);
        for (const house of ['house_status', 'house_command', 'list_devices', 'get_readings', 'farm_brief']) {
          assert.ok(!ndTools.includes(house), `key without devices sees ${house}`);
        }
        assert.ok(ndTools.includes('add_task'));
        await toolRefused(ro.client, 'add_task', { farm_id: acct.sample_farm_id, title: 'Nope' });
        const tasks = await t().request<List<Task>>(
          'GET',
          `/v1/farms/${acct.sample_farm_id}/tasks?limit=500`,
          {
            key: acct.test_key,
          },
        );
        assert.ok(!tasks.body.data.some((task) => task.title === 'Nope'), 'the refused call wrote nothing');
        await toolRefused(nd.client, 'house_status', { farm_id: acct.sample_farm_id });
        assert.ok((await ok(ro.client, 'list_farms')).data.length >= 1);
      } finally {
        await Promise.all([full.close(), ro.close(), nd.close()]);
      }
    });
  }

  test('MCP with a farm-restricted key sees only its farms', async () => {
    const acct = await t().sharedAccount();
    const other = await t().request<Farm>('POST', '/v1/farms', {
      key: acct.test_key,
      body: { name: 'Back forty' },
    });
    const key = await restrictedKey(t(), acct.test_key, { farms: [acct.sample_farm_id] });
    const mcp = await connect(t(), key.key, ERAS[0]!);
    try {
      const farms = await ok(mcp.client, 'list_farms');
      assert.deepEqual(
        farms.data.map((f: any) => f.id),
        [acct.sample_farm_id],
      );
      const res = await callTool(mcp.client, 'list_tasks', { farm_id: other.body.id });
      assert.equal(res.isError, true);
      assert.match(res.text, /Not found/);
    } finally {
      await mcp.close();
    }
  });
});
