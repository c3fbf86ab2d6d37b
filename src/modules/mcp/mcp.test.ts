import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forEachEngine } from '../../../test/harness.ts';
import { baseUrl, callTool, connect, ERAS, ok } from '../../../test/mcp.ts';
import type { Usage } from '../../../test/replies.ts';
import { DEVICE_TYPES } from '../../domain/devices.ts';
import { HOUSE_COMMAND_NAMES } from '../../domain/house-commands.ts';
import { TOOLS } from './server.ts';
import { TOOLS_LIST_BUDGET } from './toolsets.ts';

const READ_TOOLS = [
  'list_farms',
  'farm_brief',
  'list_alerts',
  'find_animals',
  'get_animal',
  'list_groups',
  'list_paddocks',
  'list_devices',
  'get_readings',
  'house_status',
  'list_tasks',
  'get_catalog',
  'list_rules',
];
const WRITE_TOOLS = ['house_command', 'add_animal', 'log_event', 'add_task', 'complete_task', 'update_alert'];

const ALLOWED_ORIGIN = 'https://farm.example';

/** A raw JSON-RPC POST to /mcp (an initialize request unless told otherwise). */
async function post(url: string, headers: Record<string, string>, body?: unknown): Promise<Response> {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(
      body ?? {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '1' },
        },
      },
    ),
  });
}

forEachEngine(
  'mcp server',
  (t) => {
    for (const era of ERAS) {
      test(`${era.name}: the client connects statelessly and lists all 19 tools with schemas and annotations`, async () => {
        const acct = await t().sharedAccount();
        const mcp = await connect(t(), acct.test_key, era);
        try {
          assert.equal(mcp.client.getProtocolEra(), era.era);
          assert.equal(mcp.client.getServerVersion()?.name, 'farmstead');
          const listed = await mcp.client.listTools();
          const { tools } = listed;
          // The lean tool list: what a full key's agent reads before doing anything, at most 24 KB.
          const size = Buffer.byteLength(JSON.stringify(listed));
          assert.ok(size <= TOOLS_LIST_BUDGET.default, `tools/list is ${size} bytes, over the 24 KB budget`);
          assert.deepEqual(tools.map((tool) => tool.name).sort(), [...READ_TOOLS, ...WRITE_TOOLS].sort());
          const byName = new Map(tools.map((tool) => [tool.name, tool]));
          for (const tool of tools) {
            assert.ok(tool.title, `${tool.name} has a title`);
            assert.ok((tool.description ?? '').length > 30, `${tool.name} has a description for agents`);
            assert.equal(tool.inputSchema.type, 'object');
            assert.equal(tool.outputSchema?.type, 'object', `${tool.name} has an output schema`);
            const hints = tool.annotations ?? {};
            if (READ_TOOLS.includes(tool.name)) {
              assert.equal(hints.readOnlyHint, true, `${tool.name} is read-only`);
            } else {
              assert.equal(hints.readOnlyHint, false, `${tool.name} changes state`);
              assert.equal(typeof hints.destructiveHint, 'boolean', `${tool.name} destructiveHint`);
              assert.equal(typeof hints.idempotentHint, 'boolean', `${tool.name} idempotentHint`);
            }
          }
          assert.equal(byName.get('house_command')?.annotations?.destructiveHint, true);
          assert.equal(byName.get('complete_task')?.annotations?.idempotentHint, true);
          assert.equal(byName.get('add_animal')?.annotations?.idempotentHint, false);

          // Enums and ranges come from the domain registry.
          const command = byName.get('house_command')?.inputSchema as any;
          assert.deepEqual(command.properties.command.enum, [...HOUSE_COMMAND_NAMES]);
          assert.equal(command.properties.confirm.type, 'boolean');
          assert.match(byName.get('house_command')?.description ?? '', /confirm: true/);
          assert.match(byName.get('house_command')?.description ?? '', /doors\.open\(doors\)/);
          const devices = byName.get('list_devices')?.inputSchema as any;
          assert.deepEqual(devices.properties.type.enum, [...DEVICE_TYPES]);
          const readings = byName.get('get_readings')?.inputSchema as any;
          assert.deepEqual(readings.properties.interval.enum, ['1m', '5m', '1h', '1d']);
          assert.deepEqual(readings.required, ['device_id']);
          const list = byName.get('list_tasks')?.inputSchema as any;
          assert.equal(list.properties.limit.maximum, 500);
          assert.equal(list.properties.farm_id.type, 'string');
          assert.equal(list.required, undefined, 'farm_id is optional');
        } finally {
          await mcp.close();
        }
      });

      test(`${era.name}: every tool (toolsets=all, with the opt-in sets) stays within the second budget`, async () => {
        const acct = await t().sharedAccount();
        const mcp = await connect(t(), acct.test_key, era, { path: '/mcp?toolsets=all' });
        try {
          const listed = await mcp.client.listTools();
          assert.equal(listed.tools.length, TOOLS.length);
          const size = Buffer.byteLength(JSON.stringify(listed));
          assert.ok(
            size <= TOOLS_LIST_BUDGET.all,
            `tools/list?toolsets=all is ${size} bytes, over its budget`,
          );
        } finally {
          await mcp.close();
        }
      });

      test(`${era.name}: no key or a bad key is refused with 401 and a WWW-Authenticate challenge`, async () => {
        await assert.rejects(connect(t(), null, era));
        await assert.rejects(connect(t(), 'rk_live_notarealkey', era));
        const url = await baseUrl(t());
        const attempts: Record<string, string>[] = [
          {},
          { authorization: 'Bearer rk_test_unknown' },
          { authorization: 'Bearer rd_device' },
        ];
        for (const headers of attempts) {
          const res = await post(url, headers);
          assert.equal(res.status, 401);
          assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer/);
          assert.equal(((await res.json()) as any).error.code, 'unauthorized');
        }
      });
    }

    test('a browser page from another origin gets 403; its own or an allowed origin gets through', async () => {
      const acct = await t().sharedAccount();
      const url = await baseUrl(t());
      const auth = { authorization: `Bearer ${acct.test_key}` };
      for (const origin of ['https://evil.example', 'null', 'http://127.0.0.1:1']) {
        const res = await post(url, { ...auth, origin });
        assert.equal(res.status, 403, origin);
        const body = (await res.json()) as any;
        assert.equal(body.error.code, 'forbidden');
        assert.match(body.error.message, /FARMSTEAD_MCP_ALLOWED_ORIGINS/);
      }
      for (const origin of [url, ALLOWED_ORIGIN]) {
        const res = await post(url, { ...auth, origin });
        assert.equal(res.status, 200, origin);
      }
      const none = await post(url, auth);
      assert.equal(none.status, 200, 'clients that are not browsers send no Origin');
    });

    test('GET and DELETE /mcp answer 405: the server is stateless and has no SSE stream', async () => {
      const acct = await t().sharedAccount();
      const url = await baseUrl(t());
      for (const method of ['GET', 'DELETE']) {
        const res = await fetch(`${url}/mcp`, {
          method,
          headers: { authorization: `Bearer ${acct.test_key}`, accept: 'text/event-stream' },
        });
        assert.equal(res.status, 405, method);
        await res.arrayBuffer();
      }
    });

    test('the server keeps no session: every request stands alone and gets no session id', async () => {
      const acct = await t().sharedAccount();
      const url = await baseUrl(t());
      const res = await post(url, { authorization: `Bearer ${acct.test_key}` });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('mcp-session-id'), null);
      await res.arrayBuffer();
      // A tools/call with no prior initialize on this "connection" is still served.
      const call = await post(
        url,
        { authorization: `Bearer ${acct.test_key}`, 'mcp-protocol-version': '2025-06-18' },
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_farms', arguments: {} } },
      );
      assert.equal(call.status, 200);
      const text = await call.text();
      assert.match(text, /Willow Creek Farm \(sample\)/);
    });

    test('MCP calls count under the mcp surface of usage, not api', async () => {
      const acct = await t().account();
      const era = ERAS[1];
      assert.ok(era);
      const mcp = await connect(t(), acct.live_key, era);
      try {
        await ok(mcp.client, 'list_farms');
        await callTool(mcp.client, 'get_catalog');
      } finally {
        await mcp.close();
      }
      const sent = mcp.requests();
      assert.ok(sent >= 3, 'connect plus two calls');
      const usage = await t().request<Usage>('GET', '/v1/usage', { key: acct.live_key });
      assert.equal(usage.body.totals.mcp, sent, 'every MCP request is counted once');
      assert.equal(usage.body.totals.api, 1, 'only the usage call itself counts as api');
    });
  },
  { mcpAllowedOrigins: [ALLOWED_ORIGIN] },
);
