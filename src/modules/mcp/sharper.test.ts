import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { forEachEngine } from '../../../test/harness.ts';
import { connect, ERAS, ok, refused } from '../../../test/mcp.ts';
import type { Farm, IngestReply, NewDevice, Task } from '../../../test/replies.ts';

/** Follows next_page hints from the first call to the last page; returns every page's data. */
async function allPages(
  client: Parameters<typeof ok>[0],
  tool: string,
  args: Record<string, unknown>,
): Promise<any[]> {
  const seen: any[] = [];
  let page = await ok(client, tool, args);
  for (let guard = 0; guard < 50; guard++) {
    seen.push(...page.data);
    if (page.next_page === null) return seen;
    assert.equal(page.has_more, true);
    const before = /before="([^"]+)"/.exec(page.next_page)?.[1];
    assert.ok(before, `next_page names before: ${page.next_page}`);
    page = await ok(client, tool, { ...args, before });
  }
  throw new Error('paging did not end');
}

forEachEngine('mcp sharper tools', (t) => {
  test('get_readings with a metric the device never reported names the ones it does', async () => {
    const acct = await t().sharedAccount();
    const farm = await make.posted<Farm>(t(), acct.test_key, '/v1/farms', { name: 'Readings farm' });
    const tank = await make.posted<NewDevice>(t(), acct.test_key, `/v1/farms/${farm.id}/devices`, {
      type: 'water',
      name: 'Tank 1',
    });
    const quiet = await make.posted<NewDevice>(t(), acct.test_key, `/v1/farms/${farm.id}/devices`, {
      type: 'water',
      name: 'Tank 2',
    });
    const ingest = await make.posted<IngestReply>(
      t(),
      tank.device_key,
      '/v1/ingest',
      {
        readings: [
          { metric: 'water.tank_pct', value: 80 },
          { metric: 'power.battery_pct', value: 90 },
        ],
      },
      200,
    );
    assert.equal(ingest.accepted, 2);
    const mcp = await connect(t(), acct.test_key, ERAS[0]!);
    try {
      const text = await refused(mcp.client, 'get_readings', {
        device_id: tank.id,
        metric: 'water.level_pct',
      });
      assert.match(text, /`metric`/);
      assert.match(text, /It reports: power\.battery_pct, water\.tank_pct\./);
      const silent = await refused(mcp.client, 'get_readings', {
        device_id: quiet.id,
        metric: 'water.tank_pct',
      });
      assert.match(silent, /has not reported any readings yet/);
      // A reported metric with nothing in the window is an empty answer, not an error.
      const empty = await ok(mcp.client, 'get_readings', {
        device_id: tank.id,
        metric: 'water.tank_pct',
        since: new Date(Date.now() + 3_600_000).toISOString(),
      });
      assert.deepEqual(empty.data, []);
    } finally {
      await mcp.close();
    }
  });

  test('find_animals matches species, breed and status in any case and names the values when none match', async () => {
    const acct = await t().sharedAccount();
    const farm = await make.posted<Farm>(t(), acct.test_key, '/v1/farms', { name: 'Animals farm' });
    for (const [species, breed, name] of [
      ['cattle', 'Angus', 'Daisy'],
      ['cattle', 'Hereford', 'Bella'],
      ['sheep', 'Merino', 'Woolly'],
    ] as const) {
      await make.posted(t(), acct.test_key, `/v1/farms/${farm.id}/animals`, { species, breed, name });
    }
    const mcp = await connect(t(), acct.test_key, ERAS[1]!);
    try {
      const cattle = await ok(mcp.client, 'find_animals', { farm_id: farm.id, species: 'Cattle' });
      assert.deepEqual(cattle.data.map((a: any) => a.name).sort(), ['Bella', 'Daisy']);
      assert.equal(cattle.note, undefined);
      const angus = await ok(mcp.client, 'find_animals', {
        farm_id: farm.id,
        breed: 'angus',
        status: 'ACTIVE',
      });
      assert.deepEqual(
        angus.data.map((a: any) => a.name),
        ['Daisy'],
      );
      const none = await ok(mcp.client, 'find_animals', {
        farm_id: farm.id,
        species: 'horse',
        breed: 'arab',
      });
      assert.deepEqual(none.data, []);
      assert.match(none.note, /species "horse" and breed "arab"/);
      assert.match(none.note, /species is one of cattle, sheep; breed is one of Angus, Hereford, Merino\./);
    } finally {
      await mcp.close();
    }
  });

  test('following next_page hints reaches every record once, even records at the same time', async () => {
    const acct = await t().sharedAccount();
    const farm = await make.posted<Farm>(t(), acct.test_key, '/v1/farms', { name: 'Paging farm' });
    const sensor = await make.posted<NewDevice>(t(), acct.test_key, `/v1/farms/${farm.id}/devices`, {
      type: 'weather',
      name: 'Station',
    });
    const at = new Date(Date.now() - 60_000).toISOString();
    const metrics = ['a.one', 'a.two', 'a.three', 'a.four', 'a.five', 'a.six', 'a.seven'];
    await make.posted<IngestReply>(
      t(),
      sensor.device_key,
      '/v1/ingest',
      { readings: metrics.map((metric, i) => ({ metric, value: i, at })) },
      200,
    );
    const tasks = await Promise.all(
      Array.from({ length: 7 }, (_, i) =>
        make.posted<Task>(t(), acct.test_key, `/v1/farms/${farm.id}/tasks`, { title: `Task ${i}` }),
      ),
    );
    const mcp = await connect(t(), acct.test_key, ERAS[0]!);
    try {
      const readings = await allPages(mcp.client, 'get_readings', { device_id: sensor.id, limit: 2 });
      assert.deepEqual(readings.map((r) => r.metric).sort(), [...metrics].sort());
      const listed = await allPages(mcp.client, 'list_tasks', { farm_id: farm.id, limit: 2 });
      assert.deepEqual(listed.map((task) => task.id).sort(), tasks.map((task) => task.id).sort());
    } finally {
      await mcp.close();
    }
  });
});
