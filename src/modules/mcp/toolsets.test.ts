import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { forEachEngine, openTestAppOn, type TestApp } from '../../../test/harness.ts';
import { baseUrl, callTool, connect, ERAS, ok } from '../../../test/mcp.ts';
import type { Alert, Animal, Farm, IngestReply, List, NewDevice, Task } from '../../../test/replies.ts';
import { TOOLS } from './server.ts';
import { DEFAULT_TOOLSETS, TOOLSETS } from './toolsets.ts';

const ALL = TOOLS.map((tool) => tool.name).sort();
/** What a connection that names no toolset is offered: the default sets, not the opt-in ones. */
const DEFAULT = DEFAULT_TOOLSETS.flatMap((set) => TOOLSETS[set] as readonly string[]).sort();
const WRITES = TOOLS.filter((tool) => tool.writes)
  .map((tool) => tool.name)
  .sort();
const READS = DEFAULT.filter((name) => !WRITES.includes(name));

async function restrictedKey(t: TestApp, parentKey: string, body: Record<string, unknown>): Promise<string> {
  const res = await t.request<{ key: string }>('POST', '/v1/keys', { key: parentKey, body });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.key;
}

async function toolNames(t: TestApp, key: string, options: Parameters<typeof connect>[3] = {}) {
  const mcp = await connect(t, key, ERAS[1]!, options);
  try {
    return (await mcp.client.listTools()).tools.map((tool) => tool.name).sort();
  } finally {
    await mcp.close();
  }
}

forEachEngine('mcp tools per permission, toolset and mode', (t) => {
  test('a full key sees every default tool; a read-only key only the reads; read-and-record no device commands', async () => {
    const acct = await t().sharedAccount();
    assert.deepEqual(await toolNames(t(), acct.test_key), DEFAULT);

    const readOnly = await restrictedKey(t(), acct.test_key, {
      permissions: { records: 'read', devices: 'read', alerts: 'read' },
    });
    assert.deepEqual(await toolNames(t(), readOnly), READS);

    // The consent page's "read and record": records and alerts written, devices only read.
    const record = await restrictedKey(t(), acct.test_key, {
      permissions: { records: 'write', devices: 'read', alerts: 'write' },
    });
    assert.deepEqual(
      await toolNames(t(), record),
      DEFAULT.filter((name) => name !== 'house_command'),
    );
  });

  test('the herdbook toolset is opt-in: not in the default list, offered when asked for by name, header or all', async () => {
    const acct = await t().sharedAccount();
    const herdbook = [...TOOLSETS.herdbook];
    assert.ok(herdbook.length > 0 && herdbook.every((name) => !DEFAULT.includes(name)));
    assert.deepEqual(
      await toolNames(t(), acct.test_key, { path: '/mcp?toolsets=herdbook' }),
      [...TOOLSETS.farms, ...herdbook].sort(),
    );
    assert.deepEqual(
      await toolNames(t(), acct.test_key, { headers: { 'x-mcp-toolsets': 'records,herdbook' } }),
      [...TOOLSETS.farms, ...TOOLSETS.records, ...herdbook].sort(),
    );
    const all = await toolNames(t(), acct.test_key, { path: '/mcp?toolsets=all' });
    assert.ok(herdbook.every((name) => all.includes(name)));
    // Not asked for, not callable.
    const mcp = await connect(t(), acct.test_key, ERAS[1]!);
    try {
      const res = await callTool(mcp.client, 'list_medicines', {}).catch((err: Error) => ({
        isError: true,
        text: err.message,
      }));
      assert.equal(res.isError, true);
      assert.match(res.text, /list_medicines/);
    } finally {
      await mcp.close();
    }
  });

  test('toolsets narrow the list, by query or by header; farms is always on', async () => {
    const acct = await t().sharedAccount();
    const expected = [...TOOLSETS.farms, ...TOOLSETS.houses, ...TOOLSETS.records].sort();
    assert.deepEqual(await toolNames(t(), acct.test_key, { path: '/mcp?toolsets=houses,records' }), expected);
    assert.deepEqual(
      await toolNames(t(), acct.test_key, { headers: { 'x-mcp-toolsets': 'records, HOUSES' } }),
      expected,
    );
    assert.deepEqual(await toolNames(t(), acct.test_key, { path: '/mcp?toolsets=all' }), ALL);
    assert.deepEqual(
      await toolNames(t(), acct.test_key, { path: '/mcp?toolsets=herdbook' }),
      [...TOOLSETS.farms, ...TOOLSETS.herdbook].sort(),
      'the herd book is opt-in: named, or all',
    );
    assert.deepEqual(await toolNames(t(), acct.test_key, { path: '/mcp?toolsets=alerts' }), [
      ...[...TOOLSETS.farms, ...TOOLSETS.alerts].sort(),
    ]);

    // With a read-only key, toolsets only narrow further.
    const readOnly = await restrictedKey(t(), acct.test_key, {
      permissions: { records: 'read', devices: 'read', alerts: 'read' },
    });
    assert.deepEqual(
      await toolNames(t(), readOnly, { path: '/mcp?toolsets=houses' }),
      [...TOOLSETS.farms, 'house_status'].sort(),
    );

    // A tool outside the toolsets cannot be called either.
    const mcp = await connect(t(), acct.test_key, ERAS[0]!, { path: '/mcp?toolsets=houses' });
    try {
      const res = await callTool(mcp.client, 'list_tasks', {}).catch((err: Error) => ({
        isError: true,
        text: err.message,
      }));
      assert.equal(res.isError, true);
      assert.match(res.text, /list_tasks/);
    } finally {
      await mcp.close();
    }
  });

  test('an unknown toolset is a 400 naming the valid ones', async () => {
    const acct = await t().sharedAccount();
    const res = await fetch(`${await baseUrl(t())}/mcp?toolsets=houses,barns`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${acct.test_key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { error: { code: string; param: string; message: string } };
    assert.equal(body.error.code, 'invalid_request');
    assert.equal(body.error.param, 'toolsets');
    assert.match(body.error.message, /"barns".*farms, alerts, records, devices, houses/);
  });

  test('a tool answer is structuredContent with a short summary; a 2025-03-26 client gets the JSON as text', async () => {
    const acct = await t().sharedAccount();
    const mcp = await connect(t(), acct.test_key, ERAS[1]!);
    let brief: Record<string, unknown>;
    try {
      const res = await callTool(mcp.client, 'farm_brief');
      assert.equal(res.isError, false, res.text);
      brief = res.data;
      assert.ok(res.text.startsWith(String(brief.headline)), res.text);
      assert.ok(res.text.length * 4 < JSON.stringify(brief).length, `summary of ${res.text.length} chars`);
      const farms = await callTool(mcp.client, 'list_farms');
      assert.match(farms.text, new RegExp(`^data: \\d+\\n- ${acct.sample_farm_id} · `));
    } finally {
      await mcp.close();
    }
    const res = await fetch(`${await baseUrl(t())}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${acct.test_key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-03-26',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'list_farms', arguments: {} },
      }),
    });
    assert.equal(res.status, 200);
    const raw = await res.text();
    const json = raw.startsWith('{') ? raw : (raw.match(/^data: (.*)$/m)?.[1] ?? '');
    const result = (
      JSON.parse(json) as { result: { content: { text: string }[]; structuredContent: unknown } }
    ).result;
    assert.deepEqual(JSON.parse(result.content[0]!.text), result.structuredContent);
  });
});

forEachEngine('mcp keys for one farm', (t) => {
  test('a key for one farm never sees another farm through any tool', async () => {
    const acct = await t().account();
    const key = acct.live_key;
    const mine = await make.posted<Farm>(t(), key, '/v1/farms', { name: 'Mine' });
    const other = await make.posted<Farm>(t(), key, '/v1/farms', { name: 'Not mine' });
    const house = await make.posted<NewDevice>(t(), key, `/v1/farms/${other.id}/devices`, {
      type: 'house',
      name: 'Far house',
    });
    await make.posted<IngestReply>(
      t(),
      house.device_key,
      '/v1/ingest',
      {
        readings: [{ metric: 'climate.nh3_ppm', value: 40 }],
      },
      200,
    );
    const animal = await make.posted<Animal>(t(), key, `/v1/farms/${other.id}/animals`, {
      species: 'cattle',
    });
    const task = await make.posted<Task>(t(), key, `/v1/farms/${other.id}/tasks`, { title: 'Far task' });
    const group = await make.group(t(), key, other.id, { name: 'Far mob' });
    const alerts = await make.fetched<List<Alert>>(t(), key, `/v1/farms/${other.id}/alerts`);
    const alert = alerts.data[0];
    assert.ok(alert, 'the far house has an alert');
    const oneFarm = await restrictedKey(t(), key, { farms: [mine.id] });

    const mcp = await connect(t(), oneFarm, ERAS[1]!, { path: '/mcp?toolsets=all' });
    try {
      const { tools } = await mcp.client.listTools();
      assert.equal(tools.length, ALL.length);
      const calls: [string, Record<string, unknown>][] = [
        ['get_animal', { animal_id: animal.id }],
        ['get_readings', { device_id: house.id }],
        ['house_status', { house_id: house.id }],
        ['house_command', { house_id: house.id, command: 'doors.close', params: { doors: 'all' } }],
        ['update_alert', { alert_id: alert.id, action: 'acknowledge' }],
        ['complete_task', { task_id: task.id }],
        ['record_weight', { animal_id: animal.id, kg: 400 }],
        ['animal_weights', { animal_id: animal.id }],
        ['group_weights', { group_id: group.id }],
        ['clear_to_sell', { animal_id: animal.id }],
        ['clear_to_sell', { group_id: group.id }],
        ['get_pedigree', { animal_id: animal.id }],
        ['mating_check', { female_id: animal.id, sire_id: animal.id }],
      ];
      // Every tool that takes farm_id, with the other farm's.
      for (const tool of tools) {
        if (tool.inputSchema.properties?.farm_id) {
          calls.push([
            tool.name,
            {
              farm_id: other.id,
              ...(tool.name === 'add_task' ? { title: 'x' } : {}),
              ...(tool.name === 'add_animal' ? { species: 'cattle' } : {}),
              ...(tool.name === 'log_event' ? { type: 'note' } : {}),
              ...(tool.name === 'house_command' ? { command: 'doors.close', params: { doors: 'all' } } : {}),
              ...(tool.name === 'give_treatment'
                ? {
                    medicine_id: 'med_01hzzzzzzzzzzzzzzzzzzzzzzz',
                    animal_ids: [animal.id],
                    dose: 5,
                    dose_unit: 'ml',
                    route: 'oral',
                  }
                : {}),
            },
          ]);
        }
      }
      for (const [name, args] of calls) {
        const res = await callTool(mcp.client, name, args);
        assert.equal(res.isError, true, `${name} answered for the other farm: ${res.text}`);
        assert.match(res.text, /Not found/, `${name}: ${res.text}`);
        assert.ok(
          !res.text.includes('Not mine') && !res.text.includes('Far '),
          `${name} names the other farm`,
        );
      }
      // And what it answers without farm_id is its own farm only.
      const brief = await ok(mcp.client, 'farm_brief');
      assert.equal(brief.farm_id, mine.id);
      const farms = await ok(mcp.client, 'list_farms');
      assert.deepEqual(
        farms.data.map((f: Farm) => f.id),
        [mine.id],
      );
    } finally {
      await mcp.close();
    }
    // Nothing changed on the other farm.
    const after = await make.fetched<Alert>(t(), key, `/v1/alerts/${alert.id}`);
    assert.equal(after.status, alert.status);
    const stillOpen = await make.fetched<Task>(t(), key, `/v1/tasks/${task.id}`);
    assert.equal(stillOpen.status, 'open');
  });
});

forEachEngine('mcp read-only mode (FARMSTEAD_MCP_READ_ONLY)', (t) => {
  let readOnlyApp: TestApp;
  before(async () => {
    readOnlyApp = await openTestAppOn(t(), { mcpReadOnly: true });
  });
  after(() => readOnlyApp.close());

  test('no write tool is listed or callable, even for a full key', async () => {
    const acct = await t().sharedAccount();
    assert.deepEqual(await toolNames(readOnlyApp, acct.test_key), READS);
    const mcp = await connect(readOnlyApp, acct.test_key, ERAS[0]!);
    try {
      const res = await callTool(mcp.client, 'add_task', { title: 'Nope' }).catch((err: Error) => ({
        isError: true,
        text: err.message,
      }));
      assert.equal(res.isError, true);
      assert.ok((await ok(mcp.client, 'list_farms')).data.length >= 1);
    } finally {
      await mcp.close();
    }
    const tasks = await t().request<{ data: { title: string }[] }>(
      'GET',
      `/v1/farms/${acct.sample_farm_id}/tasks?limit=500`,
      { key: acct.test_key },
    );
    assert.ok(!tasks.body.data.some((task) => task.title === 'Nope'), 'the refused call wrote nothing');
  });
});
