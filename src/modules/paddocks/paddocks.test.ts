import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { expectError, forEachEngine } from '../../../test/harness.ts';
import { expectHiddenFromOutsiders } from '../../../test/outsiders.ts';
import { expectPagesNewestFirst } from '../../../test/record-pages.ts';
import type { Animal, FarmEvent, Group, List, Paddock } from '../../../test/replies.ts';

const SQUARE = {
  type: 'Polygon',
  coordinates: [
    [
      [-92.33, 38.95],
      [-92.32, 38.95],
      [-92.32, 38.96],
      [-92.33, 38.96],
      [-92.33, 38.95],
    ],
  ],
};

forEachEngine('paddocks', (t) => {
  test('POST /v1/farms/{farm}/paddocks creates a paddock with every field; GET returns it', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const body = {
      name: 'Creek bottom',
      acres: 12.5,
      geometry: SQUARE,
      rest_days_target: 45,
      last_grazed_at: '2026-05-10T18:00:00-06:00',
    };
    const res = await t().request<Paddock>('POST', `/v1/farms/${farm}/paddocks`, {
      key: acct.live_key,
      body,
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.match(res.body.id, /^pad_/);
    assert.equal(res.body.farm_id, farm);
    assert.ok(res.body.drawn_acres !== null && Math.abs(res.body.drawn_acres - 238.1) < 1, 'the drawn area');
    assert.deepEqual(
      { ...res.body, id: undefined, farm_id: undefined, created_at: undefined },
      {
        ...body,
        drawn_acres: res.body.drawn_acres,
        last_grazed_at: '2026-05-11T00:00:00.000Z',
        id: undefined,
        farm_id: undefined,
        created_at: undefined,
      },
    );
    const got = await t().request('GET', `/v1/paddocks/${res.body.id}`, { key: acct.live_key });
    assert.deepEqual(got.body, res.body);
    const bare = await t().request<Paddock>('POST', `/v1/farms/${farm}/paddocks`, {
      key: acct.live_key,
      body: { name: 'Bare' },
    });
    for (const field of ['acres', 'drawn_acres', 'geometry', 'rest_days_target', 'last_grazed_at']) {
      assert.equal(bare.body[field as keyof Paddock], null, field);
    }
  });

  test('paddock validation errors are 400 naming the field, and write nothing', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const cases: [unknown, string][] = [
      [{}, 'name'],
      [{ name: '' }, 'name'],
      [{ name: 3 }, 'name'],
      [{ name: 'P', acres: -1 }, 'acres'],
      [{ name: 'P', acres: '12' }, 'acres'],
      [{ name: 'P', geometry: [1, 2] }, 'geometry'],
      [{ name: 'P', geometry: 'polygon' }, 'geometry'],
      [{ name: 'P', rest_days_target: 'long' }, 'rest_days_target'],
      [{ name: 'P', rest_days_target: -3 }, 'rest_days_target'],
      [{ name: 'P', last_grazed_at: 'last week' }, 'last_grazed_at'],
      [{ name: 'P', last_grazed_at: '2026-02-30' }, 'last_grazed_at'],
      [{ name: 'P', grass: 'tall' }, 'grass'],
    ];
    for (const [body, param] of cases) {
      const err = expectError(
        await t().request('POST', `/v1/farms/${farm}/paddocks`, { key: acct.live_key, body }),
        400,
        'invalid_request',
      );
      assert.equal(err.param, param, JSON.stringify(body));
    }
    const list = await t().request<List<Paddock>>('GET', `/v1/farms/${farm}/paddocks`, {
      key: acct.live_key,
    });
    assert.equal(list.body.data.length, 0);
  });

  test('PATCH updates any subset, replaces geometry, clears with null, rejects unknown fields', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const key = acct.live_key;
    const paddock = await t().request<Paddock>('POST', `/v1/farms/${farm}/paddocks`, {
      key,
      body: { name: 'Hill', acres: 10, geometry: SQUARE },
    });
    const url = `/v1/paddocks/${paddock.body.id}`;
    const triangle = {
      type: 'Polygon',
      coordinates: [
        [
          [-92.3, 38.9],
          [-92.29, 38.9],
          [-92.3, 38.91],
          [-92.3, 38.9],
        ],
      ],
    };
    const patched = await t().request<Paddock>('PATCH', url, {
      key,
      body: { geometry: triangle, last_grazed_at: '2026-06-01', rest_days_target: 30 },
    });
    assert.equal(patched.status, 200);
    assert.deepEqual(patched.body.geometry, triangle, 'geometry is replaced as a whole');
    assert.equal(patched.body.last_grazed_at, '2026-06-01T00:00:00.000Z');
    assert.equal(patched.body.rest_days_target, 30);
    assert.equal(patched.body.name, 'Hill');
    assert.equal(patched.body.acres, 10);
    assert.deepEqual((await t().request('GET', url, { key })).body, patched.body);
    const cleared = await t().request<Paddock>('PATCH', url, { key, body: { geometry: null, acres: null } });
    assert.equal(cleared.body.geometry, null);
    assert.equal(cleared.body.acres, null);
    const bad: [unknown, string][] = [
      [{ acreage: 3 }, 'acreage'],
      [{ name: null }, 'name'],
      [{ acres: -2 }, 'acres'],
      [{ last_grazed_at: 'x' }, 'last_grazed_at'],
      [{ geometry: { type: 'Point', coordinates: [-92.3, 38.9] } }, 'geometry.type'],
    ];
    for (const [body, param] of bad) {
      const err = expectError(await t().request('PATCH', url, { key, body }), 400, 'invalid_request');
      assert.equal(err.param, param, JSON.stringify(body));
    }
  });

  test('DELETE clears paddock_id on animals and groups and logs a move for each, in one transaction', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const key = acct.live_key;
    const p = (
      await t().request<Paddock>('POST', `/v1/farms/${farm}/paddocks`, { key, body: { name: 'Gone' } })
    ).body.id;
    const group = (
      await t().request<Group>('POST', `/v1/farms/${farm}/groups`, {
        key,
        body: { name: 'G', species: 'cattle', paddock_id: p },
      })
    ).body.id;
    const animal = (
      await t().request<Animal>('POST', `/v1/farms/${farm}/animals`, {
        key,
        body: { species: 'cattle', paddock_id: p, group_id: group },
      })
    ).body.id;
    const del = await t().request('DELETE', `/v1/paddocks/${p}`, { key });
    assert.deepEqual(del.body, { id: p, deleted: true });
    expectError(await t().request('GET', `/v1/paddocks/${p}`, { key }), 404, 'not_found');
    const a = (await t().request<Animal>('GET', `/v1/animals/${animal}`, { key })).body;
    assert.equal(a.paddock_id, null);
    assert.equal(a.group_id, group, 'the group is kept');
    assert.equal((await t().request<Group>('GET', `/v1/groups/${group}`, { key })).body.paddock_id, null);
    const animalMoves = (
      await t().request<List<FarmEvent>>('GET', `/v1/farms/${farm}/events?subject_id=${animal}`, { key })
    ).body.data;
    assert.equal(animalMoves.length, 1);
    assert.deepEqual(animalMoves[0]!.data, {
      from: { group_id: group, paddock_id: p },
      to: { group_id: group, paddock_id: null },
      reason: 'paddock_deleted',
    });
    const groupMoves = (
      await t().request<List<FarmEvent>>('GET', `/v1/farms/${farm}/events?subject_id=${group}`, { key })
    ).body.data;
    assert.equal(groupMoves.length, 1);
    assert.deepEqual(groupMoves[0]!.data, {
      from: { paddock_id: p },
      to: { paddock_id: null },
      reason: 'paddock_deleted',
    });
    expectError(await t().request('DELETE', `/v1/paddocks/${p}`, { key }), 404, 'not_found');
  });

  test('paging backwards over 122 paddocks: newest first, no overlap', async () => {
    const { account: acct, farm } = await expectPagesNewestFirst(t(), {
      collection: 'paddocks',
      count: 122,
      limit: 11,
      body: (i) => ({ name: `P${i}` }),
    });
    expectError(
      await t().request('GET', `/v1/farms/${farm}/paddocks?name=x`, { key: acct.live_key }),
      400,
      'invalid_request',
    );
  });

  test("another account's and the other mode's paddocks are 404 on every endpoint", async () => {
    const { owner, id } = await expectHiddenFromOutsiders(t(), {
      collection: 'paddocks',
      createBody: { name: 'P' },
      patchBody: { name: 'x' },
    });
    assert.equal(
      (await t().request<Paddock>('GET', `/v1/paddocks/${id}`, { key: owner.live_key })).body.name,
      'P',
    );
  });
});
