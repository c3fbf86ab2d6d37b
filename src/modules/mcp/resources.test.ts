import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { forEachEngine, type TestApp } from '../../../test/harness.ts';
import { connect, ERAS } from '../../../test/mcp.ts';
import type { Farm, NewDevice } from '../../../test/replies.ts';

async function restrictedKey(t: TestApp, parentKey: string, body: Record<string, unknown>): Promise<string> {
  const res = await t.request<{ key: string }>('POST', '/v1/keys', { key: parentKey, body });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.key;
}

/** The text of a prompt's one message. */
function promptText(result: { messages: { content: unknown }[] }): string {
  const [message] = result.messages;
  assert.ok(message, 'the prompt has a message');
  return (message.content as { text: string }).text;
}

const text = (read: { contents: unknown[] }) => {
  const [content] = read.contents as { text?: string; mimeType?: string }[];
  assert.equal(content?.mimeType, 'application/json');
  return JSON.parse(String(content?.text));
};

forEachEngine('mcp resources and prompts', (t) => {
  for (const era of ERAS) {
    test(`${era.name}: the brief, each house and the catalog are resources listed per the key's farms`, async () => {
      const acct = await t().account();
      const other = await make.posted<Farm>(t(), acct.test_key, '/v1/farms', { name: 'Back forty' });
      const house = await make.posted<NewDevice>(
        t(),
        acct.test_key,
        `/v1/farms/${acct.sample_farm_id}/devices`,
        {
          type: 'house',
          name: 'House R',
        },
      );
      const elsewhere = await make.posted<NewDevice>(t(), acct.test_key, `/v1/farms/${other.id}/devices`, {
        type: 'house',
        name: 'House Far',
      });
      // A key for the sample farm only.
      const key = await restrictedKey(t(), acct.test_key, { farms: [acct.sample_farm_id] });
      const mcp = await connect(t(), key, era);
      try {
        const { resources } = await mcp.client.listResources();
        const uris = resources.map((r) => r.uri);
        assert.ok(uris.includes('farmstead://catalog'));
        assert.ok(uris.includes(`farmstead://farms/${acct.sample_farm_id}/brief`));
        assert.ok(uris.includes(`farmstead://houses/${house.id}`));
        assert.ok(!uris.some((uri) => uri.includes(other.id) || uri.includes(elsewhere.id)), uris.join(' '));
        const { resourceTemplates } = await mcp.client.listResourceTemplates();
        assert.deepEqual(resourceTemplates.map((r) => r.uriTemplate).sort(), [
          'farmstead://farms/{farm_id}/brief',
          'farmstead://houses/{house_id}',
        ]);

        const brief = text(
          await mcp.client.readResource({ uri: `farmstead://farms/${acct.sample_farm_id}/brief` }),
        );
        assert.equal(brief.farm_id, acct.sample_farm_id);
        assert.equal(typeof brief.headline, 'string');
        const status = text(await mcp.client.readResource({ uri: `farmstead://houses/${house.id}` }));
        assert.equal(status.id, house.id);
        assert.equal(status.name, 'House R');
        const catalog = text(await mcp.client.readResource({ uri: 'farmstead://catalog' }));
        assert.ok(catalog.metrics.some((m: { name: string }) => m.name === 'feed.bin_pct'));

        // Another farm of the same account is not found through this key, brief or house.
        for (const uri of [`farmstead://farms/${other.id}/brief`, `farmstead://houses/${elsewhere.id}`]) {
          await assert.rejects(mcp.client.readResource({ uri }), /not found/i, uri);
        }
      } finally {
        await mcp.close();
      }
    });
  }

  test('a key without devices is offered no house resources', async () => {
    const acct = await t().sharedAccount();
    const key = await restrictedKey(t(), acct.test_key, { permissions: { records: 'read', alerts: 'read' } });
    const mcp = await connect(t(), key, ERAS[0]!);
    try {
      const { resourceTemplates } = await mcp.client.listResourceTemplates();
      assert.deepEqual(
        resourceTemplates.map((r) => r.uriTemplate),
        [],
      );
      const { resources } = await mcp.client.listResources();
      assert.deepEqual(
        resources.map((r) => r.uri),
        ['farmstead://catalog'],
      );
    } finally {
      await mcp.close();
    }
  });

  for (const era of ERAS) {
    test(`${era.name}: prompts for the morning check, evening lock-up and an alert name the tools in order`, async () => {
      const acct = await t().sharedAccount();
      const mcp = await connect(t(), acct.test_key, era);
      try {
        const { prompts } = await mcp.client.listPrompts();
        assert.deepEqual(prompts.map((p) => p.name).sort(), [
          'evening_lockup',
          'investigate_alert',
          'morning_check',
        ]);
        const alert = prompts.find((p) => p.name === 'investigate_alert');
        assert.deepEqual(
          alert?.arguments?.map((a) => [a.name, a.required]),
          [['alert_id', true]],
        );
        const morning = await mcp.client.getPrompt({
          name: 'morning_check',
          arguments: { farm_id: acct.sample_farm_id },
        });
        const said = promptText(morning);
        assert.match(said, new RegExp(acct.sample_farm_id));
        assert.ok(said.indexOf('farm_brief') < said.indexOf('house_status'), 'farm_brief comes first');
        const evening = await mcp.client.getPrompt({ name: 'evening_lockup', arguments: {} });
        const lockup = promptText(evening);
        assert.match(lockup, /doors_open_after_dusk/);
        assert.match(lockup, /water\.tank_pct/);
        assert.match(lockup, /house_command doors\.close/);
        const investigate = await mcp.client.getPrompt({
          name: 'investigate_alert',
          arguments: { alert_id: 'alrt_1' },
        });
        const steps = promptText(investigate);
        assert.ok(steps.indexOf('list_rules') < steps.indexOf('get_readings'));
      } finally {
        await mcp.close();
      }
    });
  }

  test('a prompt is offered only when the tools it reads with are; its change step only when it may act', async () => {
    const acct = await t().sharedAccount();
    const key = await restrictedKey(t(), acct.test_key, {
      permissions: { records: 'read', devices: 'read', alerts: 'read' },
    });
    const ro = await connect(t(), key, ERAS[1]!);
    const alertsOnly = await connect(t(), acct.test_key, ERAS[1]!, { path: '/mcp?toolsets=alerts' });
    try {
      const { prompts } = await ro.client.listPrompts();
      assert.deepEqual(prompts.map((p) => p.name).sort(), [
        'evening_lockup',
        'investigate_alert',
        'morning_check',
      ]);
      const evening = await ro.client.getPrompt({ name: 'evening_lockup', arguments: {} });
      const lockup = promptText(evening);
      assert.match(lockup, /house_status/);
      assert.doesNotMatch(lockup, /house_command/);
      // farms + alerts: no house_status or list_tasks, so only the routine those tools allow.
      assert.deepEqual(
        (await alertsOnly.client.listPrompts()).prompts.map((p) => p.name),
        [],
      );
    } finally {
      await Promise.all([ro.close(), alertsOnly.close()]);
    }
  });
});
