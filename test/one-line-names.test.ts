/**
 * Names are one line (src/calls/input-rules.ts, oneLineName): a name saved with CR/LF or other control
 * characters (a farm called `Barn\r\nBcc: …`) is kept as one line, through REST, MCP and the imports, on
 * both engines. Names go into email bodies, CSV rows and log lines, where a line break starts a new line.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as make from './factories.ts';
import { forEachEngine } from './harness.ts';
import { callTool, connect, ERAS } from './mcp.ts';
import type { Animal, Farm, Group, List, Paddock } from './replies.ts';

const BROKEN = 'Barn\r\nBcc: someone@example.com\u2028\tNorth\u0085';
const ONE_LINE = 'Barn Bcc: someone@example.com North';

forEachEngine('one-line names', (t) => {
  test('a name with CR/LF and other control characters is saved as one line (farms, groups, paddocks, animals; PATCH too)', async () => {
    const acct = await t().sharedAccount();
    const key = acct.live_key;
    const farm = await make.created<Farm>(t(), key, '/v1/farms', { name: BROKEN });
    assert.equal(farm.name, ONE_LINE);
    const f = `/v1/farms/${farm.id}`;
    assert.equal(
      (await make.created<Group>(t(), key, `${f}/groups`, { name: BROKEN, species: 'cattle' })).name,
      ONE_LINE,
    );
    assert.equal((await make.created<Paddock>(t(), key, `${f}/paddocks`, { name: BROKEN })).name, ONE_LINE);
    const animal = await make.created<Animal>(t(), key, `${f}/animals`, { species: 'cattle', name: 'Daisy' });
    const patched = await t().request<Animal>('PATCH', `/v1/animals/${animal.id}`, {
      key,
      body: { name: BROKEN },
    });
    assert.equal(patched.status, 200);
    assert.equal(patched.body.name, ONE_LINE);
    const kept = await t().request<Farm>('PATCH', f, { key, body: { name: 'Plain  name ' } });
    assert.equal(kept.body.name, 'Plain  name ', 'a name without control characters is kept as given');
    const empty = await t().request('POST', '/v1/farms', { key, body: { name: '\r\n' } });
    assert.equal(empty.status, 400, 'a name of only line breaks is empty');

    const imported = await t().request<{ data: Paddock[] }>('POST', `${f}/paddocks/import`, {
      key,
      body: {
        content: JSON.stringify({
          type: 'Feature',
          properties: { name: BROKEN },
          geometry: {
            type: 'Polygon',
            coordinates: [
              [
                [1, 1],
                [1.001, 1],
                [1.001, 1.001],
                [1, 1],
              ],
            ],
          },
        }),
      },
    });
    assert.equal(imported.status, 201, JSON.stringify(imported.body));
    assert.equal(imported.body.data[0]?.name, ONE_LINE);

    const csv = await t().request('POST', `${f}/animals/import`, {
      key,
      rawBody: `species,tag,name\ncattle,L1,"Line\r\nBreak"\n`,
      headers: { 'content-type': 'text/csv' },
    });
    assert.equal(csv.status, 200, JSON.stringify(csv.body));
    const listed = await t().request<List<Animal>>('GET', `${f}/animals?limit=100`, { key });
    assert.equal(listed.body.data.find((a) => a.tag === 'L1')?.name, 'Line Break');
  });

  test('an MCP tool’s name argument is one line too', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const mcp = await connect(t(), acct.live_key, ERAS[0] as (typeof ERAS)[number]);
    try {
      const added = await callTool(mcp.client, 'add_animal', {
        farm_id: farm,
        species: 'sheep',
        name: BROKEN,
      });
      assert.equal(added.isError, false, added.text);
      assert.equal((added.data as { name: string }).name, ONE_LINE);
    } finally {
      await mcp.close();
    }
  });
});
