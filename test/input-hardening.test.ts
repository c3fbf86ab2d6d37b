/**
 * Hostile input at the door (issue 13, defects 1, 6, 7, 8, 9 and 12), on both engines: every case is
 * refused with a 4xx Error object that names the offending member, and changes nothing.
 */
import assert from 'node:assert/strict';
import { connect as netConnect } from 'node:net';
import { test } from 'node:test';
import { sql } from 'kysely';
import { up as repairNonFinite } from '../src/db/migrations/0007_repair_non_finite.ts';
import { expectError, forEachEngine, type Reply, type TestApp } from './harness.ts';
import { baseUrl, callTool, connect, ERAS } from './mcp.ts';
import type { Animal, Device, Farm, FarmEvent, Group, List, NewDevice, Paddock } from './replies.ts';

/** A JSON-RPC error reply from /mcp. */
interface JsonRpcError {
  id: number;
  error: { code: number; message: string };
}

interface Place {
  key: string;
  farmId: string;
  deviceId: string;
  deviceKey: string;
  ids: Record<string, string>;
}

async function place(t: TestApp): Promise<Place> {
  const acct = await t.account();
  const key = acct.live_key;
  const post = async <T = { id: string }>(url: string, body: unknown) => {
    const res = await t.request<T>('POST', url, { key, body });
    assert.equal(res.status, 201, `${url}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const farm = await post<Farm>('/v1/farms', { name: 'Hardened' });
  const f = `/v1/farms/${farm.id}`;
  const device = await post<NewDevice>(`${f}/devices`, { type: 'house', name: 'House 1' });
  const ids = {
    farms: farm.id,
    animals: (await post(`${f}/animals`, { species: 'cattle', tag: 'A1' })).id,
    groups: (await post(`${f}/groups`, { name: 'Herd', species: 'cattle' })).id,
    paddocks: (await post(`${f}/paddocks`, { name: 'North' })).id,
    tasks: (await post(`${f}/tasks`, { title: 'Check water' })).id,
    events: (await post(`${f}/events`, { type: 'note' })).id,
    devices: device.id,
    webhooks: (await post(`${f}/webhooks`, { url: 'http://127.0.0.1:9/hooks', events: ['*'] })).id,
  };
  return { key, farmId: farm.id, deviceId: device.id, deviceKey: device.device_key, ids };
}

/** What the account's farm holds, to prove a refused request wrote nothing. */
async function farmState(t: TestApp, p: Place): Promise<string> {
  const parts: unknown[] = [];
  for (const [kind, id] of Object.entries(p.ids)) {
    parts.push((await t.request('GET', `/v1/${kind}/${id}`, { key: p.key })).body);
  }
  for (const list of ['animals', 'groups', 'paddocks', 'tasks', 'events', 'devices']) {
    parts.push((await t.request('GET', `/v1/farms/${p.farmId}/${list}?limit=500`, { key: p.key })).body);
  }
  parts.push((await t.request('GET', '/v1/farms', { key: p.key })).body);
  return JSON.stringify(parts);
}

function refused(reply: Reply, param: string, pattern: RegExp): void {
  const error = expectError(reply, 400, 'invalid_request');
  assert.equal(error.param, param, JSON.stringify(error));
  assert.match(error.message, pattern);
  assert.ok(error.message.includes(param), `the message names ${param}: ${error.message}`);
}

const HUGE = `1${'0'.repeat(400)}`;
const nest = (levels: number, leaf = '1') =>
  `${'{"a":'.repeat(levels - 1)}{"a":${leaf}}${'}'.repeat(levels - 1)}`;

forEachEngine(
  'input hardening',
  (t) => {
    test('defect 1: a non-finite number anywhere in a body is refused with 400 naming the member; nothing is written', async () => {
      const p = await place(t());
      const before = await farmState(t(), p);
      const f = `/v1/farms/${p.farmId}`;
      const cases: [string, string, string, string][] = [
        ['POST', '/v1/farms', '{"name":"x","acres":1e309}', 'acres'],
        ['PATCH', `/v1/farms/${p.farmId}`, `{"acres":${HUGE}}`, 'acres'],
        ['PATCH', `/v1/farms/${p.farmId}`, '{"settings":{"note":{"x":[1,-1e309]}}}', 'settings.note.x[1]'],
        [
          'PATCH',
          `/v1/farms/${p.farmId}`,
          '{"settings":{"rules":{"house.heat":{"watch":1e999}}}}',
          'settings.rules.house.heat.watch',
        ],
        ['POST', `${f}/paddocks`, '{"name":"p","acres":1e309}', 'acres'],
        ['PATCH', `/v1/paddocks/${p.ids.paddocks}`, '{"rest_days_target":-1e309}', 'rest_days_target'],
        [
          'PATCH',
          `/v1/paddocks/${p.ids.paddocks}`,
          '{"geometry":{"coordinates":[[1e309,2]]}}',
          'geometry.coordinates[0][0]',
        ],
        ['POST', `${f}/groups`, `{"name":"g","species":"sheep","head_count":${HUGE}}`, 'head_count'],
        ['PATCH', `/v1/animals/${p.ids.animals}`, '{"fields":{"weight":1e309}}', 'fields.weight'],
        ['POST', `${f}/events`, '{"type":"weight","data":{"kg":1e309}}', 'data.kg'],
        [
          'POST',
          `/v1/devices/${p.deviceId}/commands`,
          '{"command":"feed.dispense","params":{"kg":1e309}}',
          'params.kg',
        ],
      ];
      for (const [method, url, rawBody, param] of cases) {
        refused(await t().request(method, url, { key: p.key, rawBody }), param, /finite/);
      }
      const ingest = [
        ['{"state":{"feed":{"bin":1e309}}}', 'state.feed.bin'],
        ['{"readings":[{"metric":"feed.bin_pct","value":1e309}]}', 'readings[0].value'],
        ['{"battery":-1e309}', 'battery'],
        ['{"events":[{"type":"note","data":{"x":1e309}}]}', 'events[0].data.x'],
      ];
      for (const [rawBody, param] of ingest) {
        refused(
          await t().request('POST', '/v1/ingest', { key: p.deviceKey, rawBody }),
          param as string,
          /finite/,
        );
      }
      refused(await t().request('GET', `${f}/animals?limit=1e309`, { key: p.key }), 'limit', /limit/);
      assert.equal(await farmState(t(), p), before, 'the refused requests changed nothing');
    });

    test('defect 1: MCP arguments with a non-finite number are refused with 400 naming the argument', async () => {
      const p = await place(t());
      const rawBody = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"log_event","arguments":{"farm_id":"${p.farmId}","type":"weight","data":{"kg":1e309}}}}`;
      const res = await t().request('POST', '/mcp', {
        key: p.key,
        rawBody,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      });
      refused(res, 'params.arguments.data.kg', /finite/);
    });

    test('defect 6: 4,400-level JSON is a 400, and free-form members are capped at 32 levels and 64 KiB', async () => {
      const p = await place(t());
      const before = await farmState(t(), p);
      const deep = `${'['.repeat(4400)}${']'.repeat(4400)}`;
      refused(
        await t().request('POST', '/v1/farms', { key: p.key, rawBody: deep }),
        'body',
        /deeper than 64/,
      );
      const f = `/v1/farms/${p.farmId}`;
      const members: [string, string, string][] = [
        ['PATCH', `/v1/farms/${p.farmId}`, 'settings'],
        ['PATCH', `/v1/animals/${p.ids.animals}`, 'fields'],
        ['PATCH', `/v1/paddocks/${p.ids.paddocks}`, 'geometry'],
        ['POST', `${f}/events`, 'data'],
        ['POST', `/v1/devices/${p.deviceId}/commands`, 'params'],
      ];
      const extra: Record<string, string> = { data: '"type":"note",', params: '"command":"feed.dispense",' };
      for (const [method, url, member] of members) {
        const body = (value: string) => `{${extra[member] ?? ''}"${member}":${value}}`;
        refused(
          await t().request(method, url, { key: p.key, rawBody: body(nest(33)) }),
          member,
          /deeper than 32/,
        );
        const big = JSON.stringify({ text: 'x'.repeat(70_000) });
        refused(await t().request(method, url, { key: p.key, rawBody: body(big) }), member, /65,536/);
      }
      const state = `{"state":${nest(33)}}`;
      refused(
        await t().request('POST', '/v1/ingest', { key: p.deviceKey, rawBody: state }),
        'state',
        /deeper than 32/,
      );
      const eventData = `{"events":[{"type":"note","data":${nest(40)}}]}`;
      refused(
        await t().request('POST', '/v1/ingest', { key: p.deviceKey, rawBody: eventData }),
        'events[0].data',
        /deeper than 32/,
      );
      assert.equal(await farmState(t(), p), before);
      // 32 levels is still fine, and reads back whole.
      const ok = await t().request<Animal>('PATCH', `/v1/animals/${p.ids.animals}`, {
        key: p.key,
        rawBody: `{"fields":${nest(32)}}`,
      });
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      assert.deepEqual(ok.body.fields, JSON.parse(nest(32)));
    });

    test('defect 7: NUL and lone surrogates are refused in bodies, path ids, query values and MCP arguments', async () => {
      const p = await place(t());
      const before = await farmState(t(), p);
      refused(
        await t().request('POST', '/v1/farms', { key: p.key, body: { name: 'a\u0000b' } }),
        'name',
        /NUL/,
      );
      refused(
        await t().request('PATCH', `/v1/animals/${p.ids.animals}`, {
          key: p.key,
          body: { fields: { 'x\u0000': 1 } },
        }),
        'fields["x\\u0000"]',
        /NUL/,
      );
      refused(
        await t().request('POST', `/v1/farms/${p.farmId}/events`, {
          key: p.key,
          rawBody: '{"type":"a\\ud800"}',
        }),
        'type',
        /surrogate/,
      );
      refused(
        await t().request('POST', '/v1/ingest', { key: p.deviceKey, rawBody: '{"state":{"x":"\\udc00"}}' }),
        'state.x',
        /surrogate/,
      );
      refused(await t().request('GET', `/v1/animals/ani_%00x`, { key: p.key }), 'id', /NUL/);
      refused(await t().request('GET', `/v1/farms/${p.farmId}/animals?q=a%00`, { key: p.key }), 'q', /NUL/);
      refused(
        await t().request('GET', `/v1/farms/${p.farmId}/tasks?assignee=%ED%A0%80`, { key: p.key }),
        'assignee',
        /./,
      );
      const mcp = await t().request('POST', '/mcp', {
        key: p.key,
        body: {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'find_animals', arguments: { farm_id: p.farmId, q: 'a\u0000' } },
        },
        headers: { accept: 'application/json, text/event-stream' },
      });
      refused(mcp, 'params.arguments.q', /NUL/);
      assert.equal(await farmState(t(), p), before);
    });

    test('defect 8: empty, null or whitespace PATCH bodies are 400 naming the body on every PATCH route', async () => {
      const p = await place(t());
      const before = await farmState(t(), p);
      for (const [kind, id] of Object.entries(p.ids)) {
        for (const rawBody of ['', '   ', 'null', '"x"', '[]']) {
          const res = await t().request('PATCH', `/v1/${kind}/${id}`, {
            key: p.key,
            rawBody,
            headers: { 'content-type': 'application/json' },
          });
          refused(res, 'body', /body/);
        }
        refused(await t().request('PATCH', `/v1/${kind}/${id}`, { key: p.key }), 'body', /JSON object/);
      }
      assert.equal(await farmState(t(), p), before);
      // Action endpoints and creates whose members are all optional still take no body.
      assert.equal((await t().request('POST', '/v1/keys', { key: p.key })).status, 201);
      assert.equal((await t().request('POST', `/v1/tasks/${p.ids.tasks}/done`, { key: p.key })).status, 200);
      refused(
        await t().request('POST', `/v1/farms/${p.farmId}/tasks`, {
          key: p.key,
          rawBody: '  ',
          headers: { 'content-type': 'application/json' },
        }),
        'title',
        /required/,
      );
    });

    test('defect 9: router errors and 405s are Error objects with a fitting status', async () => {
      const p = await place(t());
      const bad = await t().request('GET', '/v1/animals/%zz', { key: p.key });
      expectError(bad, 400, 'invalid_request');
      expectError(await t().request('GET', '/v1/animals/%C0%AF', { key: p.key }), 400, 'invalid_request');
      const long = await t().request('GET', `/v1/animals/${'a'.repeat(101)}`, { key: p.key });
      assert.match(expectError(long, 414, 'uri_too_long').message, /100 characters/);
      const put = await t().request('PUT', `/v1/farms/${p.farmId}`, { key: p.key, body: {} });
      assert.match(expectError(put, 405, 'method_not_allowed').message, /GET, HEAD, PATCH/);
      assert.equal(put.headers.allow, 'DELETE, GET, HEAD, PATCH');
      expectError(await t().request('DELETE', '/v1/farms', { key: p.key }), 405, 'method_not_allowed');
      expectError(await t().request('GET', '/mcp', { key: p.key }), 405, 'method_not_allowed');
      expectError(await t().request('GET', '/v1/nothing-here', { key: p.key }), 404, 'not_found');
    });

    test('defect 9: over-long headers (431) and malformed HTTP (400) are answered with the Error object on the socket', async () => {
      const url = new URL(await baseUrl(t()));
      const raw = (request: string) =>
        new Promise<string>((resolve, reject) => {
          const socket = netConnect(Number(url.port), url.hostname, () => socket.end(request));
          let text = '';
          socket.on('data', (chunk) => {
            text += chunk.toString('utf8');
          });
          socket.on('close', () => resolve(text));
          socket.on('error', reject);
        });
      const parse = (text: string) => {
        const [head = '', body = ''] = text.split('\r\n\r\n');
        return { status: Number(head.split(' ')[1]), body: JSON.parse(body) };
      };
      const big = parse(
        await raw(`GET /v1/farms HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
      );
      assert.equal(big.status, 431);
      assert.equal(big.body.error.code, 'header_too_large');
      const junk = parse(await raw('GET /v1/farms HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'));
      assert.equal(junk.status, 400);
      assert.equal(junk.body.error.code, 'invalid_request');
    });

    test('defect 12: a 50,000-character find_animals text is an invalid argument; query strings are capped', async () => {
      const p = await place(t());
      const q = 'x'.repeat(50_000);
      const mcp = await connect(t(), p.key, ERAS[0] as (typeof ERAS)[number]);
      try {
        const res = await callTool(mcp.client, 'find_animals', { farm_id: p.farmId, q });
        assert.equal(res.isError, true);
        assert.match(res.text, /q must be at most 200 characters/);
        const ok = await callTool(mcp.client, 'find_animals', { farm_id: p.farmId, q: '100%_\\' });
        assert.equal(ok.isError, false, ok.text);
        assert.deepEqual(ok.data.data, []);
      } finally {
        await mcp.close();
      }
      refused(
        await t().request('GET', `/v1/farms/${p.farmId}/animals?q=${'x'.repeat(201)}`, { key: p.key }),
        'q',
        /200/,
      );
      refused(
        await t().request('GET', `/v1/farms/${p.farmId}/events?type=${'x'.repeat(1001)}`, { key: p.key }),
        'type',
        /1000/,
      );
    });

    test('defect 12: initialize with bad params is -32602 invalid params with a short message', async () => {
      const p = await place(t());
      for (const params of [
        { protocolVersion: 5 },
        'x',
        { protocolVersion: '2025-06-18', capabilities: {} },
      ]) {
        const res = await t().request<JsonRpcError>('POST', '/mcp', {
          key: p.key,
          body: { jsonrpc: '2.0', id: 7, method: 'initialize', params },
          headers: { accept: 'application/json, text/event-stream' },
        });
        assert.equal(res.status, 200);
        assert.equal(res.body.id, 7);
        assert.equal(res.body.error.code, -32602);
        assert.match(res.body.error.message, /^Invalid params for initialize: params/);
        assert.ok(res.body.error.message.length < 120, res.body.error.message);
      }
    });

    test('migration 0007 repairs rows already poisoned with non-finite numbers, columns and JSON alike', async () => {
      const p = await place(t());
      const db = t().database.db;
      const inf = t().engine === 'postgres' ? sql`'Infinity'::float8` : sql`9e999`;
      await sql`update farms set acres = ${inf}, settings = ${'{"rules":{},"x":[1,1e309],"y":{"z":-1e999}}'} where id = ${p.farmId}`.execute(
        db,
      );
      await sql`update paddocks set rest_days_target = ${inf} where id = ${p.ids.paddocks}`.execute(db);
      await sql`update animal_groups set head_count = ${inf} where id = ${p.ids.groups}`.execute(db);
      await sql`update animals set fields = ${`{"w":${HUGE}}`} where id = ${p.ids.animals}`.execute(db);
      await sql`update farm_events set data = ${'{"kg":1E+400}'} where id = ${p.ids.events}`.execute(db);
      await sql`update devices set battery = ${inf}, state = ${'{"feed":{"bin":1e309,"ok":1e5}}'} where id = ${p.deviceId}`.execute(
        db,
      );
      // The rows are poisoned (the defect this migration cleans up after): an infinite number stored.
      const before = await db
        .selectFrom('farms')
        .select('acres')
        .where('id', '=', p.farmId)
        .executeTakeFirst();
      assert.equal(Number.isFinite(Number(before?.acres)), false);
      // Even so a read answers with valid JSON, the infinite number as null, not a 500.
      const poisoned = await t().request<Farm>('GET', `/v1/farms/${p.farmId}`, { key: p.key });
      assert.equal(poisoned.status, 200, JSON.stringify(poisoned.body));
      assert.equal(poisoned.body.acres, null);

      // The migration as it runs on a database that was poisoned before it arrived.
      await repairNonFinite(db);

      const farm = await t().request<Farm>('GET', `/v1/farms/${p.farmId}`, { key: p.key });
      assert.equal(farm.status, 200, JSON.stringify(farm.body));
      assert.equal(farm.body.acres, null);
      assert.deepEqual(farm.body.settings, { rules: {}, x: [1, null], y: { z: null } });
      assert.equal((await t().request<List<Farm>>('GET', '/v1/farms', { key: p.key })).status, 200);
      assert.equal(
        (await t().request<Paddock>('GET', `/v1/paddocks/${p.ids.paddocks}`, { key: p.key })).body
          .rest_days_target,
        null,
      );
      assert.equal(
        (await t().request<Group>('GET', `/v1/groups/${p.ids.groups}`, { key: p.key })).body.head_count,
        null,
      );
      assert.deepEqual(
        (await t().request<Animal>('GET', `/v1/animals/${p.ids.animals}`, { key: p.key })).body.fields,
        {
          w: null,
        },
      );
      assert.deepEqual(
        (await t().request<FarmEvent>('GET', `/v1/events/${p.ids.events}`, { key: p.key })).body.data,
        {
          kg: null,
        },
      );
      const device = await t().request<Device>('GET', `/v1/devices/${p.deviceId}`, { key: p.key });
      assert.equal(device.body.battery, null);
      assert.deepEqual(device.body.state.feed, { bin: null, ok: 100000 });
      const mcp = await connect(t(), p.key, ERAS[1] as (typeof ERAS)[number]);
      try {
        const farms = await callTool(mcp.client, 'list_farms', {});
        assert.equal(farms.isError, false, farms.text);
        const devices = await callTool(mcp.client, 'list_devices', { farm_id: p.farmId });
        assert.equal(devices.isError, false, devices.text);
      } finally {
        await mcp.close();
      }
    });
  },
  { webhookAllowPrivate: true },
);
