import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { expectError, forEachEngine } from '../../../test/harness.ts';
import { expectHiddenFromOutsiders } from '../../../test/outsiders.ts';
import { expectPagesNewestFirst } from '../../../test/record-pages.ts';
import type {
  Animal,
  ErrorReply,
  FarmEvent,
  Group,
  List,
  OpenApiDocument,
  Paddock,
} from '../../../test/replies.ts';
import * as eidMigration from '../../db/migrations/0037_eid_iso.ts';
import { findAnimalByEid } from './repository.ts';
import { createAnimal, getAnimalHistory } from './service.ts';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

forEachEngine('animals', (t) => {
  test('POST /v1/farms/{farm}/animals creates an animal with every field; GET returns it', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const group = await make.group(t(), acct.live_key, farm, { name: 'Cows', species: 'cattle' });
    const paddock = await make.paddock(t(), acct.live_key, farm, { name: 'North' });
    const body = {
      species: 'cattle',
      name: 'Bess',
      tag: 'Y-104',
      eid: '982000123456789',
      sex: 'female',
      breed: 'Angus',
      birth_date: '2023-03-01T08:30:00+02:00',
      group_id: group.id,
      paddock_id: paddock.id,
      status: 'active',
      notes: 'Calm, good mother.',
      fields: { dam: 'Daisy', weaning_kg: 245 },
      sire_name: 'Te Mania Berkley',
      sire_registration: 'NZ 1234',
    };
    const res = await t().request<Animal>('POST', `/v1/farms/${farm}/animals`, { key: acct.live_key, body });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.match(res.body.id, /^ani_/);
    assert.equal(res.body.farm_id, farm);
    assert.deepEqual(
      { ...res.body, id: undefined, farm_id: undefined, created_at: undefined },
      {
        ...body,
        eid_format: 'iso11784',
        withdrawal: { meat_until: null, milk_until: null, eggs_until: null, because: [] },
        dam_id: null,
        sire_id: null,
        breeding: { state: 'open', due_date: null, next_heat_expected: null, pregnancy_check_due: null },
        birth_date: '2023-03-01T06:30:00.000Z',
        id: undefined,
        farm_id: undefined,
        created_at: undefined,
      },
    );
    assert.match(res.body.created_at, ISO_MS);
    const got = await t().request('GET', `/v1/animals/${res.body.id}`, { key: acct.live_key });
    assert.equal(got.status, 200);
    assert.deepEqual(got.body, res.body);
  });

  test('only species is required; status defaults to active, fields to {}, the rest to null', async () => {
    const acct = await t().sharedAccount();
    const res = await t().request<Animal>('POST', `/v1/farms/${acct.sample_farm_id}/animals`, {
      key: acct.test_key,
      body: { species: 'sheep', birth_date: '2024-04-02' },
    });
    assert.equal(res.status, 201);
    assert.equal(res.body.status, 'active');
    assert.deepEqual(res.body.fields, {});
    assert.equal(res.body.birth_date, '2024-04-02T00:00:00.000Z', 'a date alone is midnight UTC');
    for (const field of ['name', 'tag', 'eid', 'sex', 'breed', 'group_id', 'paddock_id', 'notes']) {
      assert.equal(res.body[field as keyof Animal], null, field);
    }
    const sold = await t().request<Animal>('POST', `/v1/farms/${acct.sample_farm_id}/animals`, {
      key: acct.test_key,
      body: { species: 'sheep', status: 'sold' },
    });
    assert.equal(sold.body.status, 'sold');
  });

  test('create validation errors are 400 naming the field, and write nothing', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const other = (await make.farm(t(), acct.live_key, { name: 'Other farm' })).id;
    const foreignGroup = await make.group(t(), acct.live_key, other, {
      name: 'Elsewhere',
      species: 'cattle',
    });
    const foreignPaddock = await make.paddock(t(), acct.live_key, other, { name: 'Elsewhere' });
    const cases: [unknown, string][] = [
      [{}, 'species'],
      [{ species: 42 }, 'species'],
      [{ species: '' }, 'species'],
      [{ species: null }, 'species'],
      [{ species: 'cattle', name: 5 }, 'name'],
      [{ species: 'cattle', tag: true }, 'tag'],
      [{ species: 'cattle', eid: 982 }, 'eid'],
      [{ species: 'cattle', eid: '' }, 'eid'],
      [{ species: 'cattle', sex: [] }, 'sex'],
      [{ species: 'cattle', breed: {} }, 'breed'],
      [{ species: 'cattle', birth_date: 'last spring' }, 'birth_date'],
      [{ species: 'cattle', birth_date: '2024-13-45' }, 'birth_date'],
      [{ species: 'cattle', status: '' }, 'status'],
      [{ species: 'cattle', status: 3 }, 'status'],
      [{ species: 'cattle', notes: 7 }, 'notes'],
      [{ species: 'cattle', fields: [] }, 'fields'],
      [{ species: 'cattle', fields: 'x' }, 'fields'],
      [{ species: 'cattle', group_id: 'grp_missing' }, 'group_id'],
      [{ species: 'cattle', paddock_id: 'pad_missing' }, 'paddock_id'],
      [{ species: 'cattle', group_id: foreignGroup.id }, 'group_id'],
      [{ species: 'cattle', paddock_id: foreignPaddock.id }, 'paddock_id'],
      [{ species: 'cattle', colour: 'red' }, 'colour'],
    ];
    for (const [body, param] of cases) {
      const err = expectError(
        await t().request('POST', `/v1/farms/${farm}/animals`, { key: acct.live_key, body }),
        400,
        'invalid_request',
      );
      assert.equal(err.param, param, JSON.stringify(body));
    }
    const list = await t().request<List<Animal>>('GET', `/v1/farms/${farm}/animals`, { key: acct.live_key });
    assert.equal(list.body.data.length, 0, 'rejected requests wrote nothing');
  });

  test('PATCH updates any subset, clears with null, merges fields, and rejects unknown fields', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const created = await t().request<Animal>('POST', `/v1/farms/${farm}/animals`, {
      key: acct.live_key,
      body: {
        species: 'goat',
        name: 'Billy',
        tag: 'G1',
        notes: 'n',
        fields: { horns: true, colour: 'white' },
      },
    });
    const url = `/v1/animals/${created.body.id}`;
    const patched = await t().request<Animal>('PATCH', url, {
      key: acct.live_key,
      body: {
        name: 'William',
        tag: null,
        status: 'sold',
        birth_date: '2022-05-05T12:00:00-05:00',
        fields: { colour: null, weight_kg: 61 },
      },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.name, 'William');
    assert.equal(patched.body.tag, null);
    assert.equal(patched.body.status, 'sold');
    assert.equal(patched.body.species, 'goat', 'untouched fields are kept');
    assert.equal(patched.body.notes, 'n');
    assert.equal(patched.body.birth_date, '2022-05-05T17:00:00.000Z');
    assert.deepEqual(patched.body.fields, { horns: true, weight_kg: 61 });
    const got = await t().request('GET', url, { key: acct.live_key });
    assert.deepEqual(got.body, patched.body);
    const cleared = await t().request<Animal>('PATCH', url, { key: acct.live_key, body: { fields: null } });
    assert.deepEqual(cleared.body.fields, {});
    const empty = await t().request<Animal>('PATCH', url, { key: acct.live_key, body: {} });
    assert.equal(empty.status, 200);
    assert.equal(empty.body.name, 'William');

    const bad: [unknown, string][] = [
      [{ nmae: 'typo' }, 'nmae'],
      [{ species: null }, 'species'],
      [{ species: '' }, 'species'],
      [{ status: null }, 'status'],
      [{ birth_date: 'soon' }, 'birth_date'],
      [{ group_id: 'grp_nope' }, 'group_id'],
      [{ paddock_id: 'pad_nope' }, 'paddock_id'],
      [{ fields: 3 }, 'fields'],
      [{ farm_id: 'farm_x' }, 'farm_id'],
      [{ id: 'ani_x' }, 'id'],
    ];
    for (const [body, param] of bad) {
      const err = expectError(
        await t().request('PATCH', url, { key: acct.live_key, body }),
        400,
        'invalid_request',
      );
      assert.equal(err.param, param, JSON.stringify(body));
    }
    const after = await t().request('GET', url, { key: acct.live_key });
    assert.deepEqual(after.body, empty.body, 'rejected patches changed nothing');
  });

  test('DELETE returns {id, deleted: true}; the animal is gone but its history stays', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const animal = await t().request<Animal>('POST', `/v1/farms/${farm}/animals`, {
      key: acct.live_key,
      body: { species: 'pig' },
    });
    await t().request('POST', `/v1/farms/${farm}/events`, {
      key: acct.live_key,
      body: { type: 'treatment', subject_id: animal.body.id, data: { drug: 'ivermectin' } },
    });
    const del = await t().request('DELETE', `/v1/animals/${animal.body.id}`, { key: acct.live_key });
    assert.equal(del.status, 200);
    assert.deepEqual(del.body, { id: animal.body.id, deleted: true });
    expectError(
      await t().request('GET', `/v1/animals/${animal.body.id}`, { key: acct.live_key }),
      404,
      'not_found',
    );
    expectError(
      await t().request('DELETE', `/v1/animals/${animal.body.id}`, { key: acct.live_key }),
      404,
      'not_found',
    );
    const events = await t().request<List<FarmEvent>>(
      'GET',
      `/v1/farms/${farm}/events?subject_id=${animal.body.id}`,
      {
        key: acct.live_key,
      },
    );
    assert.equal(events.body.data.length, 1);
  });

  test('list filters: species, group_id, paddock_id, status, tag, eid', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const key = acct.live_key;
    const group = (
      await t().request<Group>('POST', `/v1/farms/${farm}/groups`, {
        key,
        body: { name: 'Ewes', species: 'sheep' },
      })
    ).body.id;
    const paddock = (
      await t().request<Paddock>('POST', `/v1/farms/${farm}/paddocks`, { key, body: { name: 'P1' } })
    ).body.id;
    const add = async (body: Record<string, unknown>) =>
      (await t().request<Animal>('POST', `/v1/farms/${farm}/animals`, { key, body })).body.id as string;
    const a = await add({ species: 'sheep', group_id: group, tag: 'S-1', eid: 'E1' });
    const b = await add({ species: 'sheep', paddock_id: paddock, status: 'sold', tag: 'S-2' });
    const c = await add({ species: 'cattle', group_id: group, paddock_id: paddock, eid: 'E3' });
    const ids = async (query: string) =>
      (await t().request<List<Animal>>('GET', `/v1/farms/${farm}/animals?${query}`, { key })).body.data
        .map((x) => x.id)
        .sort();
    assert.deepEqual(await ids(''), [c, b, a].sort(), 'all of them');
    assert.deepEqual(await ids('species=sheep'), [b, a].sort());
    assert.deepEqual(await ids(`group_id=${group}`), [c, a].sort());
    assert.deepEqual(await ids(`paddock_id=${paddock}`), [c, b].sort());
    assert.deepEqual(await ids('status=active'), [c, a].sort());
    assert.deepEqual(await ids('status=sold'), [b]);
    assert.deepEqual(await ids('tag=S-2'), [b]);
    assert.deepEqual(await ids('eid=E3'), [c]);
    assert.deepEqual(await ids(`species=sheep&group_id=${group}`), [a], 'filters combine');
    assert.deepEqual(await ids('species=goat'), []);
    const err = expectError(
      await t().request('GET', `/v1/farms/${farm}/animals?colour=red`, { key }),
      400,
      'invalid_request',
    );
    assert.equal(err.param, 'colour');
    expectError(
      await t().request('GET', `/v1/farms/${farm}/animals?species=`, { key }),
      400,
      'invalid_request',
    );
  });

  test('q matches name, tag, EID and breed case-insensitively; % and _ match only themselves', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const key = acct.live_key;
    const add = async (body: Record<string, unknown>) =>
      (await t().request<Animal>('POST', `/v1/farms/${farm}/animals`, { key, body })).body.id as string;
    const bess = await add({ species: 'cattle', name: 'Bessie', breed: 'Hereford' });
    const tagged = await add({ species: 'cattle', tag: 'RED-42' });
    const chipped = await add({ species: 'cattle', eid: '982000777' });
    const angus = await add({ species: 'cattle', breed: 'Black Angus', name: '100% grass_fed' });
    const ids = async (q: string) =>
      (
        await t().request<List<Animal>>('GET', `/v1/farms/${farm}/animals?q=${encodeURIComponent(q)}`, {
          key,
        })
      ).body.data
        .map((x) => x.id)
        .sort();
    assert.deepEqual(await ids('bess'), [bess], 'name, lower case');
    assert.deepEqual(await ids('HEREF'), [bess], 'breed, upper case');
    assert.deepEqual(await ids('red-4'), [tagged], 'tag');
    assert.deepEqual(await ids('0007'), [chipped], 'eid substring');
    const tagged15 = await add({ species: 'cattle', eid: '982000009991234' });
    assert.deepEqual(
      await ids('982 000009991234'),
      [tagged15],
      'an EID as printed on the tag, with its space',
    );
    assert.deepEqual(await ids('angus'), [angus]);
    assert.deepEqual(await ids('%'), [angus], '% is literal');
    assert.deepEqual(await ids('s_f'), [angus], '_ is literal');
    assert.deepEqual(await ids('_'), [angus]);
    assert.deepEqual(await ids('e'), [angus, tagged, bess].sort());
    assert.deepEqual(await ids('cattle'), [], 'species is not searched');
    await t().request('PATCH', `/v1/animals/${bess}`, { key, body: { name: 'Clover' } });
    assert.deepEqual(await ids('bess'), [], 'q follows updates');
    assert.deepEqual(await ids('CLOVER'), [bess]);
  });

  test('paging backwards over 125 animals: newest first, no overlap, nothing skipped', async () => {
    const { account: acct, farm } = await expectPagesNewestFirst(t(), {
      collection: 'animals',
      count: 125,
      limit: 9,
      body: (i) => ({ species: 'sheep', tag: `T${i}` }),
    });
    const filtered = await t().request<List<Animal>>(
      'GET',
      `/v1/farms/${farm}/animals?limit=500&species=sheep`,
      {
        key: acct.live_key,
      },
    );
    assert.equal(filtered.body.data.length, 125);
    expectError(
      await t().request('GET', `/v1/farms/${farm}/animals?limit=501`, { key: acct.live_key }),
      400,
      'invalid_request',
    );
  });

  test("another account's and the other mode's animals are 404 on every endpoint", async () => {
    const { owner, outsider, farm, id } = await expectHiddenFromOutsiders(t(), {
      collection: 'animals',
      createBody: { species: 'cattle' },
      patchBody: { name: 'x' },
    });
    const missing = await t().request<ErrorReply>('GET', '/v1/animals/ani_doesnotexist', {
      key: outsider.live_key,
    });
    const foreign = await t().request<ErrorReply>('GET', `/v1/animals/${id}`, { key: outsider.live_key });
    assert.equal(
      foreign.body.error.message.replace(id, 'ID'),
      missing.body.error.message.replace('ani_doesnotexist', 'ID'),
      'a foreign animal reads exactly like a missing one',
    );
    const still = await t().request<Animal>('GET', `/v1/animals/${id}`, { key: owner.live_key });
    assert.equal(still.body.name, null, 'nothing changed');
    const list = await t().request<List<Animal>>('GET', `/v1/farms/${farm}/animals`, { key: owner.live_key });
    assert.equal(list.body.data.length, 1, 'nothing created');
  });

  test('changing paddock_id or group_id writes one move event into the animal history', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const key = acct.live_key;
    const p1 = (
      await t().request<Paddock>('POST', `/v1/farms/${farm}/paddocks`, { key, body: { name: 'P1' } })
    ).body.id;
    const p2 = (
      await t().request<Paddock>('POST', `/v1/farms/${farm}/paddocks`, { key, body: { name: 'P2' } })
    ).body.id;
    const g1 = (
      await t().request<Group>('POST', `/v1/farms/${farm}/groups`, {
        key,
        body: { name: 'G1', species: 'cattle' },
      })
    ).body.id;
    const animal = await t().request<Animal>('POST', `/v1/farms/${farm}/animals`, {
      key,
      body: { species: 'cattle', paddock_id: p1 },
    });
    const id = animal.body.id;
    const moves = async () =>
      (
        await t().request<List<FarmEvent>>('GET', `/v1/farms/${farm}/events?type=move&subject_id=${id}`, {
          key,
        })
      ).body.data;
    assert.equal((await moves()).length, 0, 'creating an animal is not a move');

    const moved = await t().request<Animal>('PATCH', `/v1/animals/${id}`, { key, body: { paddock_id: p2 } });
    assert.equal(moved.body.paddock_id, p2);
    let log = await moves();
    assert.equal(log.length, 1);
    assert.equal(log[0]!.subject_type, 'animal');
    assert.equal(log[0]!.subject_id, id);
    assert.deepEqual(log[0]!.data, {
      from: { group_id: null, paddock_id: p1 },
      to: { group_id: null, paddock_id: p2 },
    });
    assert.match(log[0]!.at, ISO_MS);

    await t().request('PATCH', `/v1/animals/${id}`, { key, body: { group_id: g1, paddock_id: null } });
    log = await moves();
    assert.equal(log.length, 2, 'one event for a change of both');
    assert.deepEqual(log[0]!.data, {
      from: { group_id: null, paddock_id: p2 },
      to: { group_id: g1, paddock_id: null },
    });

    await t().request('PATCH', `/v1/animals/${id}`, { key, body: { group_id: g1, name: 'Same place' } });
    await t().request('PATCH', `/v1/animals/${id}`, { key, body: { notes: 'no move' } });
    assert.equal((await moves()).length, 2, 'no event when neither changes');

    const rejected = await t().request('PATCH', `/v1/animals/${id}`, {
      key,
      body: { paddock_id: 'pad_gone' },
    });
    expectError(rejected, 400, 'invalid_request');
    assert.equal((await moves()).length, 2, 'a rejected move logs nothing');

    await t().request('POST', `/v1/farms/${farm}/events`, {
      key,
      body: { type: 'weight', subject_type: 'animal', subject_id: id, data: { kg: 512 } },
    });
    const scope = { accountId: acct.account_id, mode: 'live' as const };
    const history = await getAnimalHistory(t().database.db, scope, id, 50);
    assert.deepEqual(
      history.map((e) => e.type),
      ['weight', 'move', 'move'],
      'history is the animal’s events, newest first',
    );
    assert.equal((await getAnimalHistory(t().database.db, scope, id, 1)).length, 1, 'limit applies');
    await assert.rejects(
      getAnimalHistory(t().database.db, { accountId: acct.account_id, mode: 'test' }, id, 10),
      /No animal/,
    );
  });

  test('an EID in any reader format is stored as its 15 digits, found by any of them, and a second one is a 409 naming the first', async () => {
    const acct = await t().sharedAccount();
    const key = acct.live_key;
    const farm = (await make.farm(t(), key)).id;
    const read = await t().request<Animal>('POST', `/v1/farms/${farm}/animals`, {
      key,
      body: { species: 'cattle', name: 'Read at the race', eid: 'LA 982 000001088420' },
    });
    assert.equal(read.status, 201, JSON.stringify(read.body));
    assert.equal(read.body.eid, '982000001088420');
    assert.equal(read.body.eid_format, 'iso11784');
    for (const written of [
      '982 000001088420',
      '982.000001088420',
      '982000001088420',
      'LA 982 000001088420',
    ]) {
      const found = await t().request<List<Animal>>(
        'GET',
        `/v1/farms/${farm}/animals?eid=${encodeURIComponent(written)}`,
        { key },
      );
      assert.deepEqual(
        found.body.data.map((a) => a.id),
        [read.body.id],
        `found by ${written}`,
      );
      const again = expectError(
        await t().request('POST', `/v1/farms/${farm}/animals`, {
          key,
          body: { species: 'cattle', eid: written },
        }),
        409,
        'conflict',
      );
      assert.equal(again.param, 'eid');
      assert.ok(again.message.includes(read.body.id), `the refusal names the first animal: ${again.message}`);
    }
    const own = await t().request<Animal>('POST', `/v1/farms/${farm}/animals`, {
      key,
      body: { species: 'sheep', eid: 'FLOCK-0042' },
    });
    assert.equal(own.body.eid, 'FLOCK-0042', 'not an ISO number: kept as given');
    assert.equal(own.body.eid_format, 'other');
    const patched = await t().request<Animal>('PATCH', `/v1/animals/${own.body.id}`, {
      key,
      body: { eid: '826.012345678901' },
    });
    assert.equal(patched.body.eid, '826012345678901');
    assert.equal(patched.body.eid_format, 'iso11784');
    const none = await t().request<Animal>('POST', `/v1/farms/${farm}/animals`, {
      key,
      body: { species: 'pig' },
    });
    assert.equal(none.body.eid_format, null);
    expectError(
      await t().request('POST', `/v1/farms/${farm}/animals`, { key, body: { species: 'pig', eid: '   ' } }),
      400,
      'invalid_request',
    );
    const fetched = await t().request<Animal>('GET', `/v1/animals/${read.body.id}`, { key });
    assert.equal(fetched.body.eid_format, 'iso11784');
  });

  test('EIDs stored in another written form before the rule are rewritten as 15 digits, unless that would take another animal’s', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const db = t().database.db;
    const row = (id: string, eid: string) =>
      make.animalRow({ id, farm_id: farm, account_id: acct.account_id, eid, tag: id, search_text: eid });
    await db
      .insertInto('animals')
      .values([
        row('ani_eidold1', 'LA 982 000007000001'),
        row('ani_eidold2', '982 000007000002'),
        row('ani_eidold3', '982.000007000003'),
        row('ani_eidold4', '982000007000003'),
        row('ani_eidold5', 'HERD-7'),
      ])
      .execute();
    await eidMigration.up(db as never);
    const stored = await db
      .selectFrom('animals')
      .select(['id', 'eid', 'search_text'])
      .where('id', 'like', 'ani_eidold%')
      .orderBy('id')
      .execute();
    assert.deepEqual(
      stored.map((r) => [r.id, r.eid]),
      [
        ['ani_eidold1', '982000007000001'],
        ['ani_eidold2', '982000007000002'],
        ['ani_eidold3', '982.000007000003'],
        ['ani_eidold4', '982000007000003'],
        ['ani_eidold5', 'HERD-7'],
      ],
      'the third would take the fourth’s number: left for a person to settle',
    );
    assert.equal(stored[0]?.search_text, 'ani_eidold1\n982000007000001');
    const found = await t().request<List<Animal>>('GET', `/v1/farms/${farm}/animals?eid=982%20000007000002`, {
      key: acct.live_key,
    });
    assert.deepEqual(
      found.body.data.map((a) => a.id),
      ['ani_eidold2'],
    );
  });

  test('an EID is unique among the account’s animals in a mode: 409 conflict naming eid', async () => {
    const acct = await t().sharedAccount();
    const other = await t().account();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const farm2 = (await make.farm(t(), acct.live_key, { name: 'Second farm' })).id;
    const key = acct.live_key;
    const first = await t().request<Animal>('POST', `/v1/farms/${farm}/animals`, {
      key,
      body: { species: 'cattle', eid: '982000000000001' },
    });
    assert.equal(first.status, 201);
    const same = expectError(
      await t().request('POST', `/v1/farms/${farm}/animals`, {
        key,
        body: { species: 'cattle', eid: '982000000000001' },
      }),
      409,
      'conflict',
    );
    assert.equal(same.param, 'eid');
    assert.match(same.message, /982000000000001/);
    expectError(
      await t().request('POST', `/v1/farms/${farm2}/animals`, {
        key,
        body: { species: 'cattle', eid: '982000000000001' },
      }),
      409,
      'conflict',
    );
    const otherFarm = (await make.farm(t(), other.live_key)).id;
    const elsewhere = await t().request('POST', `/v1/farms/${otherFarm}/animals`, {
      key: other.live_key,
      body: { species: 'cattle', eid: '982000000000001' },
    });
    assert.equal(elsewhere.status, 201, 'another account may use the same EID');
    const testMode = await t().request('POST', `/v1/farms/${acct.sample_farm_id}/animals`, {
      key: acct.test_key,
      body: { species: 'cattle', eid: '982000000000001' },
    });
    assert.equal(testMode.status, 201, 'test mode is separate from live');

    const second = await t().request<Animal>('POST', `/v1/farms/${farm2}/animals`, {
      key,
      body: { species: 'cattle', eid: '982000000000002' },
    });
    const patchErr = expectError(
      await t().request('PATCH', `/v1/animals/${second.body.id}`, {
        key,
        body: { eid: '982000000000001' },
      }),
      409,
      'conflict',
    );
    assert.equal(patchErr.param, 'eid');
    const own = await t().request('PATCH', `/v1/animals/${first.body.id}`, {
      key,
      body: { eid: '982000000000001', name: 'Keeps her own' },
    });
    assert.equal(own.status, 200, 'keeping its own EID is fine');
    for (let i = 0; i < 3; i++) {
      const noEid = await t().request('POST', `/v1/farms/${farm}/animals`, {
        key,
        body: { species: 'cattle' },
      });
      assert.equal(noEid.status, 201, 'animals without an EID never conflict');
    }
    await t().request('DELETE', `/v1/animals/${first.body.id}`, { key });
    const reused = await t().request('PATCH', `/v1/animals/${second.body.id}`, {
      key,
      body: { eid: '982000000000001' },
    });
    assert.equal(reused.status, 200, 'a deleted animal frees its EID');
    const list = await t().request<List<Animal>>('GET', `/v1/farms/${farm}/animals?eid=982000000000001`, {
      key,
    });
    assert.equal(list.body.data.length, 0);
  });

  test('concurrent creates with one EID: exactly one succeeds, the rest are 409 (never 500)', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        t().request('POST', `/v1/farms/${farm}/animals`, {
          key: acct.live_key,
          body: { species: 'cattle', eid: 'RACE-1' },
        }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(statuses, [201, 409, 409, 409, 409, 409]);
    for (const r of results.filter((x) => x.status === 409))
      assert.equal((r.body as ErrorReply).error.param, 'eid');
    const outbox = await t()
      .database.db.selectFrom('outbox')
      .select('id')
      .where('farm_id', '=', farm)
      .execute();
    assert.equal(outbox.length, 1, 'only the winner wrote animal.created');
  });

  test('findAnimalByEid finds the farm’s animal by EID and nothing on another farm', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const farm2 = (await make.farm(t(), acct.live_key, { name: 'Two' })).id;
    const animal = await t().request('POST', `/v1/farms/${farm}/animals`, {
      key: acct.live_key,
      body: { species: 'cattle', eid: 'EID-FIND-1' },
    });
    const db = t().database.db;
    assert.deepEqual(await findAnimalByEid(db, farm, 'EID-FIND-1'), animal.body);
    assert.equal(await findAnimalByEid(db, farm2, 'EID-FIND-1'), null);
    assert.equal(await findAnimalByEid(db, farm, 'EID-OTHER'), null);
  });

  test('creating an animal writes animal.created to the outbox in the same transaction', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const db = t().database.db;
    const outbox = async () =>
      db.selectFrom('outbox').selectAll().where('farm_id', '=', farm).orderBy('id').execute();
    const res = await t().request('POST', `/v1/farms/${farm}/animals`, {
      key: acct.live_key,
      body: { species: 'cattle', eid: 'OUTBOX-1', fields: { a: 1 } },
    });
    let rows = await outbox();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.type, 'animal.created');
    assert.deepEqual(JSON.parse(rows[0]?.data ?? '{}'), res.body, 'data is the full Animal');

    expectError(
      await t().request('POST', `/v1/farms/${farm}/animals`, {
        key: acct.live_key,
        body: { species: 'cattle', eid: 'OUTBOX-1' },
      }),
      409,
      'conflict',
    );
    expectError(
      await t().request('POST', `/v1/farms/${farm}/animals`, {
        key: acct.live_key,
        body: { species: 'cattle', group_id: 'grp_missing' },
      }),
      400,
      'invalid_request',
    );
    assert.equal((await outbox()).length, 1, 'rejected creates leave no outbox row');

    // A transaction that fails after the create rolls back the animal and its outbox row together.
    const scope = { accountId: acct.account_id, mode: 'live' as const };
    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await createAnimal(trx, scope, farm, { species: 'cattle', name: 'Rolled back' });
        throw new Error('abort');
      }),
      /abort/,
    );
    rows = await outbox();
    assert.equal(rows.length, 1);
    const list = await t().request<List<Animal>>('GET', `/v1/farms/${farm}/animals`, { key: acct.live_key });
    assert.equal(list.body.data.length, 1);
  });

  test('the OpenAPI document describes the Animal and every animal route', async () => {
    const res = await t().request<OpenApiDocument>('GET', '/openapi.json');
    const doc = res.body;
    assert.ok(doc.components.schemas.Animal!.properties!.eid);
    assert.ok(doc.paths['/v1/farms/{farm}/animals']!.get);
    assert.ok(doc.paths['/v1/farms/{farm}/animals']!.post);
    for (const method of ['get', 'patch', 'delete'])
      assert.ok(doc.paths['/v1/animals/{id}']![method], method);
  });
});
