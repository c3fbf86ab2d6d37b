import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { expectError, forEachEngine } from '../../../test/harness.ts';
import { expectHiddenFromOutsiders } from '../../../test/outsiders.ts';
import type { Animal, FarmEvent, Group, List, Paddock, Task } from '../../../test/replies.ts';
import { subjectKindOfId } from '../../domain/record-kinds.ts';
import { recordFarmEvent } from './service.ts';

test('subject kinds are read from id prefixes', () => {
  assert.equal(subjectKindOfId('ani_01abc'), 'animal');
  assert.equal(subjectKindOfId('grp_01abc'), 'group');
  assert.equal(subjectKindOfId('pad_01abc'), 'paddock');
  assert.equal(subjectKindOfId('dev_01abc'), 'device');
  assert.equal(subjectKindOfId('task_01abc'), 'task');
  assert.equal(subjectKindOfId('alt_01abc'), 'alert');
  assert.equal(subjectKindOfId('north-well'), null);
  assert.equal(subjectKindOfId('_x'), null);
});

forEachEngine('farm events', (t) => {
  test('POST /v1/farms/{farm}/events logs an event with every field; GET returns it', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const animal = await t().request<Animal>('POST', `/v1/farms/${farm}/animals`, {
      key: acct.live_key,
      body: { species: 'cattle' },
    });
    const body = {
      type: 'treatment',
      subject_type: 'animal',
      subject_id: animal.body.id,
      data: { drug: 'oxytetracycline', dose_ml: 12, withdrawal_days: 28 },
      at: '2026-05-01T09:15:00+10:00',
    };
    const res = await t().request<FarmEvent>('POST', `/v1/farms/${farm}/events`, {
      key: acct.live_key,
      body,
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.match(res.body.id, /^evt_/);
    assert.deepEqual(
      { ...res.body, id: undefined, created_at: undefined },
      { ...body, farm_id: farm, at: '2026-04-30T23:15:00.000Z', id: undefined, created_at: undefined },
    );
    const got = await t().request('GET', `/v1/events/${res.body.id}`, { key: acct.live_key });
    assert.deepEqual(got.body, res.body);
  });

  test('only type is required; at defaults to now, data to {}, subject_type follows subject_id', async () => {
    const acct = await t().account();
    const farm = acct.sample_farm_id;
    const before = Date.now();
    const res = await t().request<FarmEvent>('POST', `/v1/farms/${farm}/events`, {
      key: acct.test_key,
      body: { type: 'rain' },
    });
    assert.equal(res.status, 201);
    assert.deepEqual(res.body.data, {});
    assert.equal(res.body.subject_type, null);
    assert.equal(res.body.subject_id, null);
    assert.equal(res.body.at, res.body.created_at);
    assert.ok(Date.parse(res.body.at) >= before - 1000);
    const paddock = (
      await t().request<Paddock>('POST', `/v1/farms/${farm}/paddocks`, {
        key: acct.test_key,
        body: { name: 'P' },
      })
    ).body.id;
    const inferred = await t().request<FarmEvent>('POST', `/v1/farms/${farm}/events`, {
      key: acct.test_key,
      body: { type: 'grazed', subject_id: paddock },
    });
    assert.equal(inferred.body.subject_type, 'paddock');
  });

  test('event validation errors are 400 naming the field, and write nothing', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const other = (await make.farm(t(), acct.live_key, { name: 'Other' })).id;
    const foreignAnimal = (
      await t().request<Animal>('POST', `/v1/farms/${other}/animals`, {
        key: acct.live_key,
        body: { species: 'cow' },
      })
    ).body.id;
    const foreignDevice = await make.deviceRow(t(), other);
    const cases: [unknown, string][] = [
      [{}, 'type'],
      [{ type: '' }, 'type'],
      [{ type: 4 }, 'type'],
      [{ type: 'x', data: [1] }, 'data'],
      [{ type: 'x', data: 'text' }, 'data'],
      [{ type: 'x', at: 'noon' }, 'at'],
      [{ type: 'x', at: '2026-06-31T00:00:00Z' }, 'at'],
      [{ type: 'x', subject_type: '' }, 'subject_type'],
      [{ type: 'x', subject_id: 5 }, 'subject_id'],
      [{ type: 'x', subject_type: 'animal', subject_id: 'ani_missing' }, 'subject_id'],
      [{ type: 'x', subject_type: 'group', subject_id: 'grp_missing' }, 'subject_id'],
      [{ type: 'x', subject_type: 'paddock', subject_id: 'pad_missing' }, 'subject_id'],
      [{ type: 'x', subject_type: 'task', subject_id: 'task_missing' }, 'subject_id'],
      [{ type: 'x', subject_type: 'device', subject_id: 'dev_missing' }, 'subject_id'],
      [{ type: 'x', subject_type: 'alert', subject_id: 'alt_missing' }, 'subject_id'],
      [{ type: 'x', subject_id: foreignAnimal }, 'subject_id'],
      [{ type: 'x', subject_type: 'device', subject_id: foreignDevice }, 'subject_id'],
      [{ type: 'x', subject_type: 'group', subject_id: foreignAnimal }, 'subject_id'],
      [{ type: 'x', when: 'now' }, 'when'],
    ];
    for (const [body, param] of cases) {
      const err = expectError(
        await t().request('POST', `/v1/farms/${farm}/events`, { key: acct.live_key, body }),
        400,
        'invalid_request',
      );
      assert.equal(err.param, param, JSON.stringify(body));
    }
    const list = await t().request<List<FarmEvent>>('GET', `/v1/farms/${farm}/events`, {
      key: acct.live_key,
    });
    assert.equal(list.body.data.length, 0);
    const outbox = await t()
      .database.db.selectFrom('outbox')
      .select('id')
      .where('farm_id', '=', farm)
      .execute();
    assert.equal(outbox.length, 0, 'rejected events emit nothing');
  });

  test('subjects of every known kind on the farm are accepted; unknown kinds are stored unchecked', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const key = acct.live_key;
    const ids: Record<string, string> = {
      animal: (
        await t().request<Animal>('POST', `/v1/farms/${farm}/animals`, { key, body: { species: 'cow' } })
      ).body.id,
      group: (
        await t().request<Group>('POST', `/v1/farms/${farm}/groups`, {
          key,
          body: { name: 'G', species: 'cow' },
        })
      ).body.id,
      paddock: (
        await t().request<Paddock>('POST', `/v1/farms/${farm}/paddocks`, { key, body: { name: 'P' } })
      ).body.id,
      task: (await t().request<Task>('POST', `/v1/farms/${farm}/tasks`, { key, body: { title: 'T' } })).body
        .id,
      device: await make.deviceRow(t(), farm),
      alert: await make.alertRow(t(), farm, {
        severity: 'urgent',
        severity_rank: 0,
        title: 'Predator',
        reason: 'Fox at door 3',
        rule: 'predator.detected',
      }),
    };
    for (const [kind, id] of Object.entries(ids)) {
      const res = await t().request<FarmEvent>('POST', `/v1/farms/${farm}/events`, {
        key,
        body: { type: 'note', subject_type: kind, subject_id: id },
      });
      assert.equal(res.status, 201, `${kind}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.subject_type, kind);
    }
    const free = await t().request<FarmEvent>('POST', `/v1/farms/${farm}/events`, {
      key,
      body: { type: 'repair', subject_type: 'fence', subject_id: 'east-line' },
    });
    assert.equal(free.status, 201);
    assert.equal(free.body.subject_type, 'fence');
  });

  test('PATCH updates any subset, re-checks a new subject, replaces data, rejects unknown fields', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const key = acct.live_key;
    const animal = (
      await t().request<Animal>('POST', `/v1/farms/${farm}/animals`, { key, body: { species: 'cow' } })
    ).body.id;
    const group = (
      await t().request<Group>('POST', `/v1/farms/${farm}/groups`, {
        key,
        body: { name: 'G', species: 'cow' },
      })
    ).body.id;
    const event = await t().request<FarmEvent>('POST', `/v1/farms/${farm}/events`, {
      key,
      body: { type: 'weight', subject_id: animal, data: { kg: 400, scale: 'A' }, at: '2026-01-01T00:00:00Z' },
    });
    const url = `/v1/events/${event.body.id}`;
    const patched = await t().request<FarmEvent>('PATCH', url, {
      key,
      body: { data: { kg: 402 }, at: '2026-01-02T12:00:00+01:00' },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.deepEqual(patched.body.data, { kg: 402 }, 'data is replaced as a whole');
    assert.equal(patched.body.at, '2026-01-02T11:00:00.000Z');
    assert.equal(patched.body.type, 'weight');
    assert.equal(patched.body.subject_id, animal);
    assert.deepEqual((await t().request('GET', url, { key })).body, patched.body);
    const regrouped = await t().request<FarmEvent>('PATCH', url, { key, body: { subject_id: group } });
    assert.equal(regrouped.body.subject_type, 'group', 'a new subject_id brings its own kind');
    const cleared = await t().request<FarmEvent>('PATCH', url, {
      key,
      body: { subject_id: null, subject_type: null },
    });
    assert.equal(cleared.body.subject_id, null);
    assert.equal(cleared.body.subject_type, null);
    const bad: [unknown, string][] = [
      [{ typ: 'x' }, 'typ'],
      [{ type: null }, 'type'],
      [{ at: null }, 'at'],
      [{ at: 'later' }, 'at'],
      [{ data: [] }, 'data'],
      [{ subject_id: 'ani_missing' }, 'subject_id'],
      [{ subject_type: 'animal', subject_id: group }, 'subject_id'],
      [{ created_at: '2026-01-01' }, 'created_at'],
    ];
    for (const [body, param] of bad) {
      const err = expectError(await t().request('PATCH', url, { key, body }), 400, 'invalid_request');
      assert.equal(err.param, param, JSON.stringify(body));
    }
    const del = await t().request('DELETE', url, { key });
    assert.deepEqual(del.body, { id: event.body.id, deleted: true });
    expectError(await t().request('GET', url, { key }), 404, 'not_found');
  });

  test('events only the server writes are read-only to clients: PATCH and DELETE are 409, no rename into or out of their types', async () => {
    const acct = await t().sharedAccount();
    const owner = acct.live_key;
    const farm = (await make.farm(t(), owner)).id;
    const animal = await make.animal(t(), owner, farm, { species: 'cattle' });
    // As crew are: events:write, and alerts:read so the escalation is visible (without it, it is 404).
    const crew = (
      await make.posted<{ key: string }>(t(), owner, '/v1/keys', {
        name: 'crew-like',
        permissions: { records: 'write', alerts: 'read' },
      })
    ).key;
    const escalation = await recordFarmEvent(t().database.db, farm, {
      type: 'alert.escalated',
      subject_type: 'animal',
      subject_id: animal.id,
      data: { alert_id: 'alt_x', rule: 'body_temp', from: 'watch', to: 'urgent', reason: '41.2 °C' },
    });
    const override = await recordFarmEvent(t().database.db, farm, {
      type: 'withdrawal_override',
      subject_type: 'animal',
      subject_id: animal.id,
      data: {
        action: 'status',
        from: 'active',
        status: 'sold',
        override_reason: 'vet says clear',
        animals: [],
      },
    });
    for (const event of [escalation, override]) {
      const url = `/v1/events/${event.id}`;
      for (const key of [owner, crew]) {
        for (const body of [{ data: {} }, { type: 'note' }, { at: '2026-01-01T00:00:00Z' }, {}]) {
          const refused = expectError(await t().request('PATCH', url, { key, body }), 409, 'conflict');
          assert.match(refused.message, new RegExp(`${event.type}.*cannot be edited or deleted`));
        }
        expectError(await t().request('DELETE', url, { key }), 409, 'conflict');
      }
      assert.deepEqual((await t().request('GET', url, { key: owner })).body, event, 'kept as written');
    }

    // Nor can a client log one of those types, or rename its own event into one, in any case.
    const note = await make.created<FarmEvent>(t(), crew, `/v1/farms/${farm}/events`, { type: 'note' });
    for (const type of [
      'alert.escalated',
      'withdrawal_override',
      ' Withdrawal_Override',
      'ALERT.ESCALATED',
    ]) {
      const logged = await t().request('POST', `/v1/farms/${farm}/events`, { key: crew, body: { type } });
      assert.equal(expectError(logged, 400, 'invalid_request').param, 'type', type);
      const renamed = await t().request('PATCH', `/v1/events/${note.id}`, { key: crew, body: { type } });
      assert.equal(expectError(renamed, 400, 'invalid_request').param, 'type', type);
    }
    assert.equal((await make.farmEvents(t(), farm, 'withdrawal_override')).length, 1);

    // What the server logs under types clients log too stays editable: a weight from the chute route.
    await make.posted(t(), crew, `/v1/animals/${animal.id}/weights`, { kg: 420 });
    const [weight] = await make.farmEvents(t(), farm, 'weight');
    const fixed = await t().request<FarmEvent>('PATCH', `/v1/events/${weight?.id}`, {
      key: crew,
      body: { data: { kg: 421, source: 'chute' } },
    });
    assert.equal(fixed.status, 200, JSON.stringify(fixed.body));
    assert.equal((await t().request('DELETE', `/v1/events/${weight?.id}`, { key: crew })).status, 200);
  });

  test('list filters: type, subject_id, subject_type', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const key = acct.live_key;
    const animal = (
      await t().request<Animal>('POST', `/v1/farms/${farm}/animals`, { key, body: { species: 'cow' } })
    ).body.id;
    const paddock = (
      await t().request<Paddock>('POST', `/v1/farms/${farm}/paddocks`, { key, body: { name: 'P' } })
    ).body.id;
    const add = async (body: Record<string, unknown>) =>
      (await t().request<FarmEvent>('POST', `/v1/farms/${farm}/events`, { key, body })).body.id as string;
    const a = await add({ type: 'weight', subject_id: animal, at: '2026-03-01T00:00:00Z' });
    const b = await add({ type: 'treatment', subject_id: animal, at: '2026-03-02T00:00:00Z' });
    const c = await add({ type: 'grazed', subject_id: paddock, at: '2026-03-03T00:00:00Z' });
    const d = await add({ type: 'weight', at: '2026-03-04T00:00:00Z' });
    const ids = async (query: string) =>
      (await t().request<List<FarmEvent>>('GET', `/v1/farms/${farm}/events?${query}`, { key })).body.data.map(
        (x) => x.id,
      );
    assert.deepEqual(await ids(''), [d, c, b, a], 'newest at first');
    assert.deepEqual(await ids('type=weight'), [d, a]);
    assert.deepEqual(await ids(`subject_id=${animal}`), [b, a]);
    assert.deepEqual(await ids('subject_type=paddock'), [c]);
    assert.deepEqual(await ids(`subject_type=animal&type=treatment`), [b]);
    assert.deepEqual(await ids('type=birth'), []);
    expectError(await t().request('GET', `/v1/farms/${farm}/events?kind=x`, { key }), 400, 'invalid_request');
  });

  test('events page by at (when it happened), newest first, without overlap across 130 events', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const base = Date.UTC(2026, 0, 1);
    const created: { id: string; at: string }[] = [];
    for (let i = 0; i < 130; i++) {
      // Scrambled times with many ties, logged out of order: creation order must not matter.
      const at = new Date(base + ((i * 37) % 50) * 60_000).toISOString();
      const res = await t().request<FarmEvent>('POST', `/v1/farms/${farm}/events`, {
        key: acct.live_key,
        body: { type: 'count', data: { i }, at },
      });
      assert.equal(res.status, 201);
      created.push(res.body);
    }
    const seen: string[] = [];
    let url = `/v1/farms/${farm}/events?limit=7`;
    for (let page = 0; page < 40; page++) {
      const res = await t().request<List<FarmEvent>>('GET', url, { key: acct.live_key });
      seen.push(...res.body.data.map((e) => e.id));
      if (!res.body.has_more) {
        assert.equal(res.body.next_before, null);
        break;
      }
      assert.match(res.body.next_before!, /^\d{4}-.*Z~evt_/);
      url = `/v1/farms/${farm}/events?limit=7&before=${encodeURIComponent(res.body.next_before!)}`;
    }
    assert.equal(seen.length, 130);
    assert.equal(new Set(seen).size, 130, 'no event repeated');
    const expected = [...created]
      .sort((x, y) => y.at.localeCompare(x.at) || (x.id < y.id ? 1 : -1))
      .map((e) => e.id);
    assert.deepEqual(seen, expected, 'ordered by at, ties by id');
    const cut = new Date(base + 10 * 60_000).toISOString();
    const older = await t().request<List<FarmEvent>>(
      'GET',
      `/v1/farms/${farm}/events?limit=500&before=${cut}`,
      {
        key: acct.live_key,
      },
    );
    assert.equal(older.body.data.length, created.filter((e) => e.at < cut).length);
    assert.ok(
      older.body.data.every((e) => e.at < cut),
      'a plain time returns events strictly before it',
    );
  });

  test("another account's and the other mode's events are 404 on every endpoint", async () => {
    const { owner, id } = await expectHiddenFromOutsiders(t(), {
      collection: 'events',
      createBody: { type: 'x' },
      patchBody: { type: 'y' },
    });
    assert.equal(
      (await t().request<FarmEvent>('GET', `/v1/events/${id}`, { key: owner.live_key })).body.type,
      'x',
    );
  });

  test('logging an event writes event.created to the outbox in the same transaction', async () => {
    const acct = await t().sharedAccount();
    const farm = (await make.farm(t(), acct.live_key)).id;
    const db = t().database.db;
    const outbox = async () =>
      db.selectFrom('outbox').selectAll().where('farm_id', '=', farm).orderBy('id').execute();
    const res = await t().request('POST', `/v1/farms/${farm}/events`, {
      key: acct.live_key,
      body: { type: 'birth', data: { count: 2 } },
    });
    const rows = await outbox();
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.type, 'event.created');
    assert.deepEqual(JSON.parse(rows[0]?.data ?? '{}'), res.body, 'data is the full Event');

    const direct = await recordFarmEvent(db, farm, {
      type: 'predator.seen',
      subject_type: 'device',
      subject_id: 'dev_any',
      data: { species: 'fox' },
      at: Date.UTC(2026, 4, 1),
    });
    assert.equal(direct.at, '2026-05-01T00:00:00.000Z');
    assert.equal(direct.farm_id, farm);
    const afterDirect = await outbox();
    assert.equal(afterDirect.length, 2);
    assert.deepEqual(JSON.parse(afterDirect[1]?.data ?? '{}'), direct);

    await assert.rejects(
      db.transaction().execute(async (trx) => {
        await recordFarmEvent(trx, farm, { type: 'rolled.back' });
        throw new Error('abort');
      }),
      /abort/,
    );
    assert.equal((await outbox()).length, 2, 'a rolled-back event leaves no outbox row');
    const list = await t().request<List<FarmEvent>>('GET', `/v1/farms/${farm}/events?type=rolled.back`, {
      key: acct.live_key,
    });
    assert.equal(list.body.data.length, 0, 'nor an event');

    const animal = (
      await t().request<Animal>('POST', `/v1/farms/${farm}/animals`, {
        key: acct.live_key,
        body: { species: 'cow' },
      })
    ).body.id;
    const paddock = (
      await t().request<Paddock>('POST', `/v1/farms/${farm}/paddocks`, {
        key: acct.live_key,
        body: { name: 'P' },
      })
    ).body.id;
    await t().request('PATCH', `/v1/animals/${animal}`, {
      key: acct.live_key,
      body: { paddock_id: paddock },
    });
    const types = (await outbox()).map((r) => r.type);
    assert.deepEqual(types.slice(-2), ['animal.created', 'event.created'], 'a move is an event.created too');
  });
});
