/**
 * Farm `settings` and animal `fields` merge one level deep per PATCH; each PATCH is capped (64 KiB as JSON)
 * and so is the merged result as stored, as device state is (issue 34, "Growth without bound"): PATCH after
 * PATCH of new members cannot grow one record past 64 KiB. The cap names the member; a record stored larger
 * before the cap may still shrink. Every path that writes them: REST PATCH and POST, MCP add_animal, and the
 * CSV import (whose `fields` replace the stored ones, checked as a PATCH's).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { expectError, forEachEngine } from '../../../test/harness.ts';
import { connect, ERAS, refused } from '../../../test/mcp.ts';
import type { Animal, Farm } from '../../../test/replies.ts';
import { PAGE_BUDGET_BYTES } from '../../db/pagination.ts';
import { FREE_FORM_LIMITS } from '../../lib/free-form.ts';
import type { ImportResult } from '../dataio/schemas.ts';

/** A member whose JSON text (`"name":"xxx…"`) takes about `bytes`. */
const member = (bytes: number) => 'x'.repeat(bytes);
const size = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

forEachEngine('merged settings and fields are capped as stored', (t) => {
  test('farm settings: PATCHes of new members stop at 64 KiB after the merge, naming settings', async () => {
    const acct = await t().sharedAccount();
    const farm = await make.farm(t(), acct.live_key);
    const url = `/v1/farms/${farm.id}`;
    const first = await t().request<Farm>('PATCH', url, {
      key: acct.live_key,
      body: { settings: { a: member(40_000) } },
    });
    assert.equal(first.status, 200, JSON.stringify(first.body).slice(0, 300));
    // Each PATCH is well under the cap on its own; the merged result would not be.
    const second = await t().request('PATCH', url, {
      key: acct.live_key,
      body: { settings: { b: member(40_000) } },
    });
    const error = expectError(second, 400, 'invalid_request');
    assert.equal(error.param, 'settings');
    assert.match(
      error.message,
      /^settings would be 80,0\d\d bytes as JSON after this change; the most is 65,536/,
    );
    const stored = await make.fetched<Farm>(t(), acct.live_key, url);
    assert.deepEqual(Object.keys(stored.settings), ['a'], 'nothing of the refused PATCH is stored');
    // Replacing a member, or removing one to make room, is fine.
    const replaced = await t().request<Farm>('PATCH', url, {
      key: acct.live_key,
      body: { settings: { a: null, b: member(40_000) } },
    });
    assert.equal(replaced.status, 200);
    assert.deepEqual(Object.keys(replaced.body.settings), ['b']);
    assert.ok(size(replaced.body.settings) <= FREE_FORM_LIMITS.bytes);
  });

  test('PATCH after PATCH of new members cannot grow a farm past the cap', async () => {
    const acct = await t().sharedAccount();
    const farm = await make.farm(t(), acct.live_key);
    let refusedCount = 0;
    for (let i = 0; i < 20; i++) {
      const res = await t().request('PATCH', `/v1/farms/${farm.id}`, {
        key: acct.live_key,
        body: { settings: { [`m${i}`]: member(6_000) } },
      });
      if (res.status === 400) refusedCount++;
      else assert.equal(res.status, 200);
    }
    assert.equal(refusedCount, 10, 'ten members of 6 kB fit in 64 KiB, the other ten do not');
    const listed = await t().request<{ data: Farm[] }>('GET', '/v1/farms?limit=500', { key: acct.live_key });
    const stored = listed.body.data.find((f) => f.id === farm.id);
    assert.ok(stored && size(stored.settings) <= FREE_FORM_LIMITS.bytes);
  });

  test('a farm stored larger before the cap may shrink, not grow', async () => {
    const acct = await t().sharedAccount();
    const farm = await make.farm(t(), acct.live_key);
    const big = { a: member(50_000), b: member(50_000) };
    await t()
      .database.db.updateTable('farms')
      .set({ settings: JSON.stringify(big) })
      .where('id', '=', farm.id)
      .execute();
    const url = `/v1/farms/${farm.id}`;
    const grow = await t().request('PATCH', url, { key: acct.live_key, body: { settings: { c: 'more' } } });
    assert.equal(expectError(grow, 400, 'invalid_request').param, 'settings');
    const shrink = await t().request<Farm>('PATCH', url, {
      key: acct.live_key,
      body: { settings: { a: null } },
    });
    assert.equal(shrink.status, 200, 'removing a member of an oversized farm is taken');
    assert.deepEqual(Object.keys(shrink.body.settings), ['b']);
    // A PATCH of other members leaves the settings as they are.
    const renamed = await t().request<Farm>('PATCH', url, { key: acct.live_key, body: { name: 'Renamed' } });
    assert.equal(renamed.status, 200);
  });

  test('animal fields: PATCHes stop at 64 KiB after the merge, naming fields', async () => {
    const acct = await t().sharedAccount();
    const farm = await make.farm(t(), acct.live_key);
    const animal = await make.animal(t(), acct.live_key, farm.id, { fields: { a: member(40_000) } });
    const url = `/v1/animals/${animal.id}`;
    const grow = await t().request('PATCH', url, {
      key: acct.live_key,
      body: { fields: { b: member(40_000) } },
    });
    const error = expectError(grow, 400, 'invalid_request');
    assert.equal(error.param, 'fields');
    assert.match(error.message, /^fields would be 80,0\d\d bytes as JSON after this change/);
    assert.deepEqual(Object.keys((await make.fetched<Animal>(t(), acct.live_key, url)).fields), ['a']);
    const swap = await t().request<Animal>('PATCH', url, {
      key: acct.live_key,
      body: { fields: { a: null, b: member(40_000) } },
    });
    assert.equal(swap.status, 200);
    assert.deepEqual(Object.keys(swap.body.fields), ['b']);
    // One PATCH (or POST) over the cap is refused by the request's own cap, naming fields too.
    const tooBig = await t().request('POST', `/v1/farms/${farm.id}/animals`, {
      key: acct.live_key,
      body: { species: 'cattle', fields: { a: member(70_000) } },
    });
    assert.equal(expectError(tooBig, 400, 'invalid_request').param, 'fields');
  });

  test('MCP add_animal refuses fields over the cap, naming them', async () => {
    const acct = await t().account();
    const mcp = await connect(t(), acct.test_key, ERAS[0] as (typeof ERAS)[number]);
    try {
      const text = await refused(mcp.client, 'add_animal', {
        species: 'cattle',
        fields: { a: member(70_000) },
      });
      assert.match(text, /fields/);
      assert.match(text, /65,536/);
    } finally {
      await mcp.close();
    }
  });

  test('the CSV import: fields over the cap are a row error naming the row and column; a match stays capped', async () => {
    const acct = await t().sharedAccount();
    const farm = await make.farm(t(), acct.live_key);
    await make.animal(t(), acct.live_key, farm.id, { tag: 'CAP1', fields: { a: member(40_000) } });
    const cell = (value: unknown) => `"${JSON.stringify(value).replaceAll('"', '""')}"`;
    const text = [
      'species,tag,fields',
      // Matched: its fields replace the stored ones (not merged into them), so 40 kB more is fine.
      `cattle,CAP1,${cell({ b: member(40_000) })}`,
      `cattle,CAP2,${cell({ a: member(70_000) })}`,
    ].join('\n');
    const res = await t().request<ImportResult>('POST', `/v1/farms/${farm.id}/animals/import`, {
      key: acct.live_key,
      rawBody: text,
      headers: { 'content-type': 'text/csv' },
    });
    const error = expectError(res, 400, 'invalid_request');
    assert.equal(error.param, 'fields');
    assert.match(
      error.message,
      /^Nothing was imported: row 3, column fields: fields is 70,0\d\d bytes as JSON; the most is 65,536/,
    );
    const imported = await t().request<ImportResult>(
      'POST',
      `/v1/farms/${farm.id}/animals/import?skip_invalid=true`,
      { key: acct.live_key, rawBody: text, headers: { 'content-type': 'text/csv' } },
    );
    assert.equal(imported.status, 200);
    assert.equal(imported.body.updated, 1);
    const [stored] = (
      await t().request<{ data: Animal[] }>('GET', `/v1/farms/${farm.id}/animals?tag=CAP1`, {
        key: acct.live_key,
      })
    ).body.data;
    assert.deepEqual(Object.keys(stored?.fields ?? {}), ['b']);
  });
});

forEachEngine('a page of a list holds at most 2 MiB of stored text', (t) => {
  test('animals with large fields: a page ends early with a cursor, the pages and the export hold each once', async () => {
    const acct = await t().sharedAccount();
    const farm = await make.farm(t(), acct.live_key);
    const count = 40;
    for (let i = 0; i < count; i++) {
      await make.animal(t(), acct.live_key, farm.id, { tag: `BIG${i}`, fields: { a: member(60_000) } });
    }
    const seen: string[] = [];
    let url = `/v1/farms/${farm.id}/animals?limit=500`;
    const sizes: number[] = [];
    for (;;) {
      const res = await t().request<{ data: Animal[]; has_more: boolean; next_before: string | null }>(
        'GET',
        url,
        { key: acct.live_key },
      );
      assert.equal(res.status, 200);
      sizes.push(res.body.data.length);
      seen.push(...res.body.data.map((a) => a.id));
      if (!res.body.has_more) break;
      assert.ok(res.body.next_before);
      url = `/v1/farms/${farm.id}/animals?limit=500&before=${encodeURIComponent(res.body.next_before)}`;
    }
    assert.ok(sizes.length > 1, `one page of ${sizes[0]}`);
    assert.ok((sizes[0] ?? 0) < count && (sizes[0] ?? 0) * 60_000 <= PAGE_BUDGET_BYTES + 60_000, `${sizes}`);
    assert.equal(new Set(seen).size, count, 'every animal once, across pages');
    const exported = await t().app.inject({
      method: 'GET',
      url: `/v1/farms/${farm.id}/animals/export?format=ndjson`,
      headers: { authorization: `Bearer ${acct.live_key}` },
    });
    assert.equal(exported.body.trim().split('\n').length, count, 'the export reads every page');
  });
});

forEachEngine('the brief keeps only the members of a house state it reads', (t) => {
  test('a house state with 60 kB of other members: the brief reads its known members as before', async () => {
    const acct = await t().sharedAccount();
    const farm = await make.farm(t(), acct.live_key);
    const house = await make.device(t(), acct.live_key, farm.id);
    const junk = Array.from({ length: 19_000 }, () => []);
    const sent = await make.report(t(), house.device_key, {
      state: {
        junk,
        climate: { target_temp_c: 24, mode: 'summer', extra: junk.slice(0, 100) },
        feed: { schedule: ['06:00', 7, '18:00'], also: { deep: true } },
      },
    });
    assert.equal(sent.status, 200, JSON.stringify(sent.body).slice(0, 300));
    const brief = await t().request<{
      houses: {
        id: string;
        climate: { target_temp_c: number; mode: string };
        feed: { schedule: string[] };
      }[];
    }>('GET', `/v1/farms/${farm.id}/brief`, { key: acct.live_key });
    assert.equal(brief.status, 200);
    const [one] = brief.body.houses;
    assert.equal(one?.id, house.id);
    assert.equal(one?.climate.target_temp_c, 24);
    assert.equal(one?.climate.mode, 'summer');
    assert.deepEqual(one?.feed.schedule, ['06:00', '18:00']);
  });
});
