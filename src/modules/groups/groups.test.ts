import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { expectError, forEachEngine } from '../../../test/harness.ts';
import { expectHiddenFromOutsiders } from '../../../test/outsiders.ts';
import { expectPagesNewestFirst } from '../../../test/record-pages.ts';
import type { Animal, FarmEvent, Group, List, Paddock } from '../../../test/replies.ts';
import { defaultGroupKind } from './service.ts';

test('default group kind: a flock of birds or sheep, otherwise a herd', () => {
  assert.equal(defaultGroupKind('chicken'), 'flock');
  assert.equal(defaultGroupKind(' Broilers '), 'flock');
  assert.equal(defaultGroupKind('Sheep'), 'flock');
  assert.equal(defaultGroupKind('cattle'), 'herd');
  assert.equal(defaultGroupKind('goat'), 'herd');
});

forEachEngine('groups', (t) => {
  test('POST /v1/farms/{farm}/groups creates a group with every field; GET returns it', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const paddock = await make.paddock(t(), acct.live_key, farm, { name: 'South' });
    const body = {
      name: 'Spring broilers',
      species: 'chicken',
      kind: 'flock',
      head_count: 450,
      hatch_date: '2026-04-01T06:00:00-05:00',
      paddock_id: paddock.id,
    };
    const res = await t().request<Group>('POST', `/v1/farms/${farm}/groups`, { key: acct.live_key, body });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.match(res.body.id, /^grp_/);
    assert.equal(res.body.farm_id, farm);
    assert.deepEqual(
      { ...res.body, id: undefined, farm_id: undefined, created_at: undefined },
      {
        ...body,
        hatch_date: '2026-04-01T11:00:00.000Z',
        id: undefined,
        farm_id: undefined,
        created_at: undefined,
      },
    );
    const got = await t().request('GET', `/v1/groups/${res.body.id}`, { key: acct.live_key });
    assert.deepEqual(got.body, res.body);
  });

  test('kind defaults by species and accepts any other value; optional fields default to null', async () => {
    const acct = await t().account();
    const farm = acct.sample_farm_id;
    const key = acct.test_key;
    const herd = await t().request<Group>('POST', `/v1/farms/${farm}/groups`, {
      key,
      body: { name: 'Cows', species: 'cattle' },
    });
    assert.equal(herd.body.kind, 'herd');
    assert.equal(herd.body.head_count, null);
    assert.equal(herd.body.hatch_date, null);
    assert.equal(herd.body.paddock_id, null);
    const flock = await t().request<Group>('POST', `/v1/farms/${farm}/groups`, {
      key,
      body: { name: 'Layers', species: 'chicken' },
    });
    assert.equal(flock.body.kind, 'flock');
    for (const kind of ['pen', 'litter', 'mob']) {
      const res = await t().request<Group>('POST', `/v1/farms/${farm}/groups`, {
        key,
        body: { name: kind, species: 'pig', kind },
      });
      assert.equal(res.body.kind, kind);
    }
  });

  test('group validation errors are 400 naming the field, and write nothing', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const other = (await make.farm(t(), acct.live_key, { name: 'Other' })).id;
    const foreignPaddock = await make.paddock(t(), acct.live_key, other, { name: 'Far' });
    const ok = { name: 'G', species: 'sheep' };
    const cases: [unknown, string][] = [
      [{ species: 'sheep' }, 'name'],
      [{ name: 'G' }, 'species'],
      [{ name: '', species: 'sheep' }, 'name'],
      [{ name: 1, species: 'sheep' }, 'name'],
      [{ name: 'G', species: 2 }, 'species'],
      [{ ...ok, kind: '' }, 'kind'],
      [{ ...ok, head_count: '10' }, 'head_count'],
      [{ ...ok, head_count: 12.5 }, 'head_count'],
      [{ ...ok, head_count: -1 }, 'head_count'],
      [{ ...ok, hatch_date: 'tuesday' }, 'hatch_date'],
      [{ ...ok, paddock_id: 'pad_missing' }, 'paddock_id'],
      [{ ...ok, paddock_id: foreignPaddock.id }, 'paddock_id'],
      [{ ...ok, size: 3 }, 'size'],
    ];
    for (const [body, param] of cases) {
      const err = expectError(
        await t().request('POST', `/v1/farms/${farm}/groups`, { key: acct.live_key, body }),
        400,
        'invalid_request',
      );
      assert.equal(err.param, param, JSON.stringify(body));
    }
    const list = await t().request<List<Group>>('GET', `/v1/farms/${farm}/groups`, { key: acct.live_key });
    assert.equal(list.body.data.length, 0);
  });

  test('PATCH updates any subset and rejects unknown fields; a paddock change logs a group move', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const key = acct.live_key;
    const p1 = (
      await t().request<Paddock>('POST', `/v1/farms/${farm}/paddocks`, { key, body: { name: 'P1' } })
    ).body.id;
    const group = await t().request<Group>('POST', `/v1/farms/${farm}/groups`, {
      key,
      body: { name: 'Ewes', species: 'sheep', head_count: 40 },
    });
    const url = `/v1/groups/${group.body.id}`;
    const patched = await t().request<Group>('PATCH', url, {
      key,
      body: { head_count: 38, kind: 'mob', paddock_id: p1, hatch_date: '2025-02-01' },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.head_count, 38);
    assert.equal(patched.body.kind, 'mob');
    assert.equal(patched.body.name, 'Ewes');
    assert.equal(patched.body.paddock_id, p1);
    assert.equal(patched.body.hatch_date, '2025-02-01T00:00:00.000Z');
    assert.deepEqual((await t().request('GET', url, { key })).body, patched.body);
    const moves = (
      await t().request<List<FarmEvent>>('GET', `/v1/farms/${farm}/events?subject_id=${group.body.id}`, {
        key,
      })
    ).body.data;
    assert.equal(moves.length, 1);
    assert.equal(moves[0]!.type, 'move');
    assert.equal(moves[0]!.subject_type, 'group');
    assert.deepEqual(moves[0]!.data, { from: { paddock_id: null }, to: { paddock_id: p1 } });
    await t().request('PATCH', url, { key, body: { name: 'Ewes 2026' } });
    const after = (
      await t().request<List<FarmEvent>>('GET', `/v1/farms/${farm}/events?subject_id=${group.body.id}`, {
        key,
      })
    ).body.data;
    assert.equal(after.length, 1, 'no move without a paddock change');
    const cleared = await t().request<Group>('PATCH', url, {
      key,
      body: { head_count: null, hatch_date: null },
    });
    assert.equal(cleared.body.head_count, null);
    assert.equal(cleared.body.hatch_date, null);

    const bad: [unknown, string][] = [
      [{ nmae: 'x' }, 'nmae'],
      [{ name: null }, 'name'],
      [{ species: null }, 'species'],
      [{ head_count: 1.5 }, 'head_count'],
      [{ hatch_date: 'nope' }, 'hatch_date'],
      [{ paddock_id: 'pad_gone' }, 'paddock_id'],
    ];
    for (const [body, param] of bad) {
      const err = expectError(await t().request('PATCH', url, { key, body }), 400, 'invalid_request');
      assert.equal(err.param, param, JSON.stringify(body));
    }
  });

  test('list filters: species, kind, paddock_id', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const key = acct.live_key;
    const p = (await t().request<Paddock>('POST', `/v1/farms/${farm}/paddocks`, { key, body: { name: 'P' } }))
      .body.id;
    const add = async (body: Record<string, unknown>) =>
      (await t().request<Group>('POST', `/v1/farms/${farm}/groups`, { key, body })).body.id as string;
    const a = await add({ name: 'A', species: 'cattle' });
    const b = await add({ name: 'B', species: 'chicken', paddock_id: p });
    const c = await add({ name: 'C', species: 'cattle', kind: 'pen', paddock_id: p });
    const ids = async (query: string) =>
      (await t().request<List<Group>>('GET', `/v1/farms/${farm}/groups?${query}`, { key })).body.data
        .map((x) => x.id)
        .sort();
    assert.deepEqual(await ids(''), [c, b, a].sort());
    assert.deepEqual(await ids('species=cattle'), [c, a].sort());
    assert.deepEqual(await ids('kind=herd'), [a]);
    assert.deepEqual(await ids('kind=flock'), [b]);
    assert.deepEqual(await ids(`paddock_id=${p}`), [c, b].sort());
    assert.deepEqual(await ids(`paddock_id=${p}&species=cattle`), [c]);
    const err = expectError(
      await t().request('GET', `/v1/farms/${farm}/groups?status=x`, { key }),
      400,
      'invalid_request',
    );
    assert.equal(err.param, 'status');
  });

  test('paging backwards over 121 groups: newest first, no overlap', async () => {
    await expectPagesNewestFirst(t(), {
      collection: 'groups',
      count: 121,
      limit: 10,
      body: (i) => ({ name: `G${i}`, species: 'cattle' }),
    });
  });

  test('DELETE clears group_id on its animals and logs a move for each, in one transaction', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const key = acct.live_key;
    const p = (await t().request<Paddock>('POST', `/v1/farms/${farm}/paddocks`, { key, body: { name: 'P' } }))
      .body.id;
    const group = (
      await t().request<Group>('POST', `/v1/farms/${farm}/groups`, {
        key,
        body: { name: 'G', species: 'cattle' },
      })
    ).body.id;
    const a1 = (
      await t().request<Animal>('POST', `/v1/farms/${farm}/animals`, {
        key,
        body: { species: 'cattle', group_id: group, paddock_id: p },
      })
    ).body.id;
    const a2 = (
      await t().request<Animal>('POST', `/v1/farms/${farm}/animals`, {
        key,
        body: { species: 'cattle', group_id: group },
      })
    ).body.id;
    const del = await t().request('DELETE', `/v1/groups/${group}`, { key });
    assert.equal(del.status, 200);
    assert.deepEqual(del.body, { id: group, deleted: true });
    expectError(await t().request('GET', `/v1/groups/${group}`, { key }), 404, 'not_found');
    const animal = (await t().request<Animal>('GET', `/v1/animals/${a1}`, { key })).body;
    assert.equal(animal.group_id, null);
    assert.equal(animal.paddock_id, p, 'the paddock is kept');
    for (const id of [a1, a2]) {
      const log = (
        await t().request<List<FarmEvent>>('GET', `/v1/farms/${farm}/events?subject_id=${id}&type=move`, {
          key,
        })
      ).body.data;
      assert.equal(log.length, 1, id);
      assert.equal(log[0]!.data.reason, 'group_deleted');
      assert.equal((log[0]!.data.from as { group_id: string }).group_id, group);
      assert.equal((log[0]!.data.to as { group_id: string | null }).group_id, null);
    }
    const filtered = await t().request<List<Animal>>('GET', `/v1/farms/${farm}/animals?group_id=${group}`, {
      key,
    });
    assert.equal(filtered.body.data.length, 0);
  });

  test("another account's and the other mode's groups are 404 on every endpoint", async () => {
    const { owner, id } = await expectHiddenFromOutsiders(t(), {
      collection: 'groups',
      createBody: { name: 'G', species: 'cattle' },
      patchBody: { name: 'x' },
    });
    const still = await t().request<Group>('GET', `/v1/groups/${id}`, { key: owner.live_key });
    assert.equal(still.body.name, 'G');
  });
});
