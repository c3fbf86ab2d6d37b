import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'csv-parse/sync';
import * as make from '../../../test/factories.ts';
import { expectError, forEachEngine, type TestApp } from '../../../test/harness.ts';
import type { Animal, Farm, FarmEvent, List } from '../../../test/replies.ts';
import { HOLDING_REGISTER_COLUMNS, MEDICINE_RECORD_COLUMNS } from '../dataio/herd-book-export.ts';
import type { Medicine } from '../medicines/schemas.ts';
import type { Treatment } from '../treatments/schemas.ts';
import type { Movement } from './schemas.ts';

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

async function herdFarm(t: TestApp, body: Record<string, unknown> = {}) {
  const acct = await t.sharedAccount();
  const key = acct.live_key;
  const farm = (await make.farm(t, key, body)).id;
  return { key, farm };
}

/** An export's text as sent (the harness would parse NDJSON as one JSON value). */
async function exportText(t: TestApp, key: string, path: string): Promise<string> {
  const res = await t.app.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${key}` } });
  assert.equal(res.statusCode, 200, res.body);
  return res.body;
}

function ndjson(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function move(t: TestApp, key: string, farm: string, body: Record<string, unknown>) {
  return t.request<Movement>('POST', `/v1/farms/${farm}/movements`, {
    key,
    body: { other_holding: '12/345/6789', at: iso(Date.now()), ...body },
  });
}

/** A cow (with this EID: one account's live animals each have their own) treated an hour ago: 28 days' meat withdrawal, milk 0, batch LOT-9. */
async function treatedCow(
  t: TestApp,
  key: string,
  farm: string,
  eid: string,
  body: Record<string, unknown> = {},
) {
  const cow = await make.animal(t, key, farm, { name: 'Bess', tag: 'UK 123456', eid });
  const med = await make.created<Medicine>(t, key, `/v1/farms/${farm}/medicines`, {
    name: 'Pen & Strep',
    unit: 'ml',
    active_ingredient: 'procaine benzylpenicillin',
    withdrawal: { meat_days: 28, milk_days: 0 },
  });
  const withBatch = await make.created<Medicine>(t, key, `/v1/medicines/${med.id}/batches`, {
    batch: 'LOT-9',
    expiry: iso(Date.now() + 365 * DAY),
    quantity: 500,
    supplier: 'Farm Vet Supplies',
    purchased_at: '2026-01-10T00:00:00Z',
    proof_of_purchase: 'INV-77',
  });
  const batch = withBatch.batches[0];
  assert.ok(batch);
  const at = Date.now() - 3_600_000;
  const given = await make.created<{ data: Treatment[] }>(t, key, `/v1/farms/${farm}/treatments`, {
    medicine_id: med.id,
    batch_id: batch.id,
    animal_ids: [cow.id],
    dose: 10,
    dose_unit: 'ml',
    route: 'injection_im',
    at: iso(at),
    course: { doses: 3, every_hours: 24 },
    reason: 'Foul in the foot',
    given_by: 'Ann Keeper',
    vet: 'J. Herriot MRCVS',
    ...body,
  });
  const [treatment] = given.data;
  assert.ok(treatment);
  return { cow, med, batch, treatment };
}

forEachEngine('herd book: movements, the holding number and the two exports', (t) => {
  test('a farm has no holding number until set; POST and PATCH set it, null clears it, a bad type is a 400', async () => {
    const { key, farm } = await herdFarm(t());
    assert.equal((await make.fetched<Farm>(t(), key, `/v1/farms/${farm}`)).holding, null);
    const set = await t().request<Farm>('PATCH', `/v1/farms/${farm}`, {
      key,
      body: { holding: { number: '12/345/6789', type: 'cph' } },
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.deepEqual(set.body.holding, { number: '12/345/6789', type: 'cph' });
    assert.deepEqual((await make.fetched<Farm>(t(), key, `/v1/farms/${farm}`)).holding, {
      number: '12/345/6789',
      type: 'cph',
    });
    const bad = await t().request('PATCH', `/v1/farms/${farm}`, {
      key,
      body: { holding: { number: 'X', type: 'parish' } },
    });
    expectError(bad, 400, 'invalid_request');
    const cleared = await t().request<Farm>('PATCH', `/v1/farms/${farm}`, { key, body: { holding: null } });
    assert.equal(cleared.body.holding, null);
    const created = await make.farm(t(), key, { holding: { number: '3ABCD123', type: 'pic' } });
    assert.deepEqual(created.holding, { number: '3ABCD123', type: 'pic' });
  });

  test('a move off inside the meat withdrawal is a 409 naming each animal not clear; with override_reason it is kept, logged and sent', async () => {
    const { key, farm } = await herdFarm(t());
    const { cow, batch, treatment } = await treatedCow(t(), key, farm, '982000001088420');
    const clear = await make.animal(t(), key, farm, { name: 'Daisy' });
    const body = {
      direction: 'off',
      animal_ids: [cow.id, clear.id],
      reason: 'sale',
      transporter: 'Hill Haulage',
      vehicle: 'AB12 CDE',
    };
    const refused = await move(t(), key, farm, body);
    const error = expectError(refused, 409, 'withdrawal_active');
    assert.ok(
      error.message.includes('1 of 2 animals') &&
        error.message.includes('Bess') &&
        error.message.includes('LOT-9') &&
        error.message.includes(treatment.withdrawal_until.meat ?? '?') &&
        !error.message.includes('Daisy'),
      error.message,
    );
    assert.equal((await make.fetched<Animal>(t(), key, `/v1/animals/${cow.id}`)).status, 'active');
    assert.equal(
      (await make.fetched<List<Movement>>(t(), key, `/v1/farms/${farm}/movements`)).data.length,
      0,
      'nothing written',
    );

    const moved = await move(t(), key, farm, {
      ...body,
      override_reason: 'Sold for breeding, not slaughter',
    });
    assert.equal(moved.status, 201, JSON.stringify(moved.body));
    assert.match(moved.body.id, /^mov_/);
    assert.equal(moved.body.override_reason, 'Sold for breeding, not slaughter');
    assert.deepEqual(moved.body.animal_ids, [cow.id, clear.id]);
    assert.equal(moved.body.head_count, 2);
    for (const id of [cow.id, clear.id]) {
      assert.equal((await make.fetched<Animal>(t(), key, `/v1/animals/${id}`)).status, 'sold');
    }
    assert.deepEqual(await make.fetched<Movement>(t(), key, `/v1/movements/${moved.body.id}`), moved.body);

    const logged = await make.farmEvents(t(), farm, 'movement');
    assert.deepEqual(
      logged.map((e) => [e.id, e.data.movement_id, e.data.override_reason]),
      [[moved.body.event_id, moved.body.id, 'Sold for breeding, not slaughter']],
    );
    const sent = await make.outboxEvents(t(), farm, 'movement.created');
    assert.deepEqual(
      sent.map((e) => e.data),
      [moved.body],
    );
    const overridden = await make.outboxEvents(t(), farm, 'withdrawal.overridden');
    assert.deepEqual(
      overridden.map((o) => [o.data.action, o.data.override_reason, o.data.event_id]),
      [['movement', 'Sold for breeding, not slaughter', moved.body.event_id]],
    );
    const held = (overridden[0]?.data.animals ?? []) as Array<Record<string, unknown>>;
    assert.deepEqual(
      held.map((a) => [a.animal_id, a.batch_id]),
      [[cow.id, batch.id]],
    );

    const register = ndjson(
      await exportText(t(), key, `/v1/farms/${farm}/holding-register/export?format=ndjson`),
    );
    assert.deepEqual(
      register.map((r) => [r.record_id, r.override_reason, r.transporter, r.vehicle, r.animal_tags]),
      [[moved.body.id, 'Sold for breeding, not slaughter', 'Hill Haulage', 'AB12 CDE', ['UK 123456', null]]],
    );
  });

  test('a move off marks each animal by its reason; a move on marks them active; a mob moves on by head count', async () => {
    const { key, farm } = await herdFarm(t());
    const statuses: Array<[string, string]> = [
      ['slaughter', 'slaughtered'],
      ['death', 'dead'],
      ['show', 'moved_off'],
      ['agistment', 'moved_off'],
    ];
    for (const [reason, status] of statuses) {
      const animal = await make.animal(t(), key, farm, { name: reason });
      const moved = await move(t(), key, farm, { direction: 'off', animal_ids: [animal.id], reason });
      assert.equal(moved.status, 201, JSON.stringify(moved.body));
      const history = await make.fetched<List<FarmEvent>>(
        t(),
        key,
        `/v1/farms/${farm}/events?subject_id=${animal.id}`,
      );
      assert.deepEqual(
        history.data.map((e) => [e.type, e.id]),
        [['movement', moved.body.event_id]],
        'one animal moved: the move is in its history',
      );
      assert.equal((await make.fetched<Animal>(t(), key, `/v1/animals/${animal.id}`)).status, status, reason);
    }
    const back = await make.animal(t(), key, farm, { name: 'Back from the show', status: 'moved_off' });
    await move(t(), key, farm, { direction: 'on', animal_ids: [back.id], reason: 'show' });
    assert.equal((await make.fetched<Animal>(t(), key, `/v1/animals/${back.id}`)).status, 'active');

    const mob = await move(t(), key, farm, {
      direction: 'on',
      head_count: 40,
      species: 'sheep',
      reason: 'purchase',
      other_holding: '3ABCD123',
    });
    assert.equal(mob.status, 201, JSON.stringify(mob.body));
    assert.deepEqual(
      [mob.body.animal_ids, mob.body.head_count, mob.body.species, mob.body.direction],
      [null, 40, 'sheep', 'on'],
    );
    // Its log entry says what the holding register says: neither edited nor deleted as a free-form event.
    const entry = `/v1/events/${mob.body.event_id}`;
    for (const [method, body] of [
      ['PATCH', { data: { head_count: 4 } }],
      ['PATCH', { type: 'note' }],
      ['DELETE', undefined],
    ] as const) {
      const refused = await t().request(method, entry, { key, ...(body ? { body } : {}) });
      assert.match(expectError(refused, 409, 'conflict').message, /holding register/);
    }
    assert.equal((await make.fetched<FarmEvent>(t(), key, entry)).data.head_count, 40);

    const both = await move(t(), key, farm, {
      direction: 'on',
      head_count: 4,
      animal_ids: [back.id],
      reason: 'purchase',
    });
    expectError(both, 400, 'invalid_request');
    const neither = await move(t(), key, farm, { direction: 'on', reason: 'purchase' });
    const error = expectError(neither, 400, 'invalid_request');
    assert.equal(error.param, 'animal_ids');
    const elsewhere = await move(t(), key, farm, {
      direction: 'off',
      animal_ids: ['ani_nope'],
      reason: 'sale',
    });
    expectError(elsewhere, 400, 'invalid_request');
    const badReason = await move(t(), key, farm, { direction: 'off', head_count: 2, reason: 'holiday' });
    expectError(badReason, 400, 'invalid_request');
  });

  test('only an animal’s latest movement sets its status; it cannot be sold twice or come back from the dead; none is dated ahead', async () => {
    const { key, farm } = await herdFarm(t());
    const ewe = await make.animal(t(), key, farm, { name: 'Late entry', species: 'sheep' });
    const bought = await move(t(), key, farm, {
      direction: 'on',
      animal_ids: [ewe.id],
      reason: 'purchase',
      at: iso(Date.now() - DAY),
    });
    assert.equal(bought.status, 201, JSON.stringify(bought.body));
    // An older sale entered late: in the register, but the purchase since is what stands.
    const older = await move(t(), key, farm, {
      direction: 'off',
      animal_ids: [ewe.id],
      reason: 'sale',
      at: iso(Date.now() - 60 * DAY),
    });
    assert.equal(older.status, 201, JSON.stringify(older.body));
    assert.equal((await make.fetched<Animal>(t(), key, `/v1/animals/${ewe.id}`)).status, 'active');

    const sold = await move(t(), key, farm, { direction: 'off', animal_ids: [ewe.id], reason: 'sale' });
    assert.equal(sold.status, 201, JSON.stringify(sold.body));
    const twice = await move(t(), key, farm, { direction: 'off', animal_ids: [ewe.id], reason: 'sale' });
    const error = expectError(twice, 409, 'conflict');
    assert.equal(error.param, 'animal_ids[0]');
    assert.match(error.message, /Late entry cannot be moved off: it is not on the holding \(status sold\)/);

    const dead = await make.animal(t(), key, farm, { name: 'Gone', status: 'dead' });
    const revived = await move(t(), key, farm, {
      direction: 'on',
      animal_ids: [dead.id],
      reason: 'purchase',
    });
    expectError(revived, 409, 'conflict');
    assert.equal((await make.fetched<Animal>(t(), key, `/v1/animals/${dead.id}`)).status, 'dead');

    const ahead = await move(t(), key, farm, {
      direction: 'off',
      animal_ids: [dead.id],
      reason: 'slaughter',
      at: iso(Date.now() + 40 * DAY),
    });
    assert.equal(expectError(ahead, 400, 'invalid_request').param, 'at');
  });

  test('the medicine record export holds every column the regulations ask for, in CSV and NDJSON', async () => {
    const { key, farm } = await herdFarm(t());
    const { cow, med, batch, treatment } = await treatedCow(t(), key, farm, '982000001088421', {
      override_reason: 'Vet said use this batch',
    });
    const csv = await exportText(t(), key, `/v1/farms/${farm}/medicine-record/export`);
    const [header] = csv.split('\n');
    assert.equal(header, MEDICINE_RECORD_COLUMNS.join(','));
    for (const column of [
      'date',
      'product',
      'quantity',
      'unit',
      'batch',
      'supplier',
      'purchased_at',
      'proof_of_purchase',
      'animal_tag',
      'animal_eid',
      'given_by',
      'vet',
      'meat_withdrawal_days',
      'milk_withdrawal_days',
      'eggs_withdrawal_days',
      'meat_withdrawal_until',
      'route',
      'reason',
      'override_reason',
    ]) {
      assert.ok(header?.split(',').includes(column), column);
    }
    const [csvRow] = parse(csv, { columns: true }) as Array<Record<string, string>>;
    assert.equal(csvRow?.milk_withdrawal_days, '0', 'a zero withdrawal is recorded as 0');

    const [row, ...more] = ndjson(
      await exportText(t(), key, `/v1/farms/${farm}/medicine-record/export?format=ndjson`),
    );
    assert.equal(more.length, 0);
    assert.deepEqual(row, {
      treatment_id: treatment.id,
      date: treatment.at,
      last_dose_at: treatment.last_dose_at,
      product: 'Pen & Strep',
      active_ingredient: 'procaine benzylpenicillin',
      medicine_id: med.id,
      quantity: 30,
      unit: 'ml',
      dose: 10,
      doses: 3,
      every_hours: 24,
      batch: 'LOT-9',
      batch_expiry: batch.expiry,
      supplier: 'Farm Vet Supplies',
      purchased_at: '2026-01-10T00:00:00.000Z',
      proof_of_purchase: 'INV-77',
      animal_id: cow.id,
      animal_tag: 'UK 123456',
      animal_eid: '982000001088421',
      animal_name: 'Bess',
      species: cow.species,
      route: 'injection_im',
      site: null,
      reason: 'Foul in the foot',
      given_by: 'Ann Keeper',
      vet: 'J. Herriot MRCVS',
      meat_withdrawal_days: 28,
      meat_withdrawal_rule: treatment.because.find((b) => b.food === 'meat')?.rule,
      meat_withdrawal_until: treatment.withdrawal_until.meat,
      milk_withdrawal_days: 0,
      milk_withdrawal_rule: treatment.because.find((b) => b.food === 'milk')?.rule,
      milk_withdrawal_until: treatment.withdrawal_until.milk,
      eggs_withdrawal_days: null,
      eggs_withdrawal_rule: null,
      eggs_withdrawal_until: null,
      override_reason: 'Vet said use this batch',
      event_id: treatment.event_id,
    });
    const later = await exportText(
      t(),
      key,
      `/v1/farms/${farm}/medicine-record/export?format=ndjson&since=${iso(Date.now() + DAY)}`,
    );
    assert.equal(later, '', 'since after the treatment: nothing');
    // The animal deleted: the record still names it, as it was when treated.
    assert.equal((await t().request('DELETE', `/v1/animals/${cow.id}`, { key })).status, 200);
    const [kept] = ndjson(
      await exportText(t(), key, `/v1/farms/${farm}/medicine-record/export?format=ndjson`),
    );
    assert.deepEqual(
      [kept?.animal_id, kept?.animal_tag, kept?.animal_eid, kept?.animal_name, kept?.species],
      [cow.id, 'UK 123456', '982000001088421', 'Bess', cow.species],
    );
  });

  test('the holding register lists movements, births and deaths newest first, within since and until', async () => {
    const { key, farm } = await herdFarm(t(), { holding: { number: '12/345/6789', type: 'cph' } });
    const calf = await make.animal(t(), key, farm, { name: 'Calf', tag: 'UK 2', species: 'cattle' });
    const d = (day: number) => `2026-03-${String(day).padStart(2, '0')}T09:00:00.000Z`;
    await make.created(t(), key, `/v1/farms/${farm}/events`, {
      type: 'birth',
      subject_id: calf.id,
      at: d(2),
    });
    const bought = (
      await move(t(), key, farm, {
        direction: 'on',
        head_count: 12,
        species: 'sheep',
        reason: 'purchase',
        other_holding: '3ABCD123',
        at: d(5),
      })
    ).body;
    await make.created(t(), key, `/v1/farms/${farm}/events`, {
      type: 'death',
      data: { head_count: 1, species: 'sheep', cause: 'Fly strike' },
      at: d(9),
    });
    const sold = (
      await move(t(), key, farm, {
        direction: 'off',
        animal_ids: [calf.id],
        reason: 'sale',
        other_holding: 'Market',
        at: d(12),
      })
    ).body;

    const csv = await exportText(t(), key, `/v1/farms/${farm}/holding-register/export`);
    assert.equal(csv.split('\n')[0], HOLDING_REGISTER_COLUMNS.join(','));
    const all = parse(csv, { columns: true }) as Array<Record<string, string>>;
    assert.deepEqual(
      all.map((r) => [r.kind, r.at, r.direction, r.reason, r.head_count, r.holding_number]),
      [
        ['movement', d(12), 'off', 'sale', '1', '12/345/6789'],
        ['death', d(9), 'off', 'death', '1', '12/345/6789'],
        ['movement', d(5), 'on', 'purchase', '12', '12/345/6789'],
        ['birth', d(2), 'on', 'birth', '1', '12/345/6789'],
      ],
    );
    assert.equal(all[0]?.record_id, sold.id);
    assert.equal(all[0]?.animal_tags, '["UK 2"]');
    assert.equal(all[2]?.record_id, bought.id);
    assert.equal(all[3]?.animal_ids, JSON.stringify([calf.id]));

    const window = ndjson(
      await exportText(
        t(),
        key,
        `/v1/farms/${farm}/holding-register/export?format=ndjson&since=${d(5)}&until=${d(12)}`,
      ),
    );
    assert.deepEqual(
      window.map((r) => [r.kind, r.at]),
      [
        ['death', d(9)],
        ['movement', d(5)],
      ],
    );
    const listed = await make.fetched<List<Movement>>(t(), key, `/v1/farms/${farm}/movements?since=${d(6)}`);
    assert.deepEqual(
      listed.data.map((m) => m.id),
      [sold.id],
    );
    const backwards = await t().request(
      'GET',
      `/v1/farms/${farm}/holding-register/export?since=${d(9)}&until=${d(2)}`,
      {
        key,
      },
    );
    expectError(backwards, 400, 'invalid_request');
  });

  test('the herd book exports put an apostrophe before a text cell a spreadsheet would run as a formula, never before a number', async () => {
    const { key, farm } = await herdFarm(t(), { holding: { number: '@12/345/6789', type: 'cph' } });
    const { treatment } = await treatedCow(t(), key, farm, '982000001088499', {
      reason: '=HYPERLINK("http://evil.example","x")',
      given_by: '+44 1234',
      vet: '-5',
      site: '@neck',
      override_reason: '\tTab',
    });
    const [record] = parse(await exportText(t(), key, `/v1/farms/${farm}/medicine-record/export`), {
      columns: true,
    }) as Array<Record<string, string>>;
    assert.equal(record?.treatment_id, treatment.id);
    assert.deepEqual(
      [record?.reason, record?.given_by, record?.vet, record?.site, record?.override_reason],
      [`'=HYPERLINK("http://evil.example","x")`, "'+44 1234", "'-5", "'@neck", "'\tTab"],
    );
    assert.deepEqual(
      [record?.quantity, record?.dose, record?.doses, record?.milk_withdrawal_days],
      ['30', '10', '3', '0'],
      'numbers as they are',
    );
    // NDJSON is not for a spreadsheet: the values as they are.
    const [row] = ndjson(
      await exportText(t(), key, `/v1/farms/${farm}/medicine-record/export?format=ndjson`),
    );
    assert.equal(row?.reason, '=HYPERLINK("http://evil.example","x")');

    await move(t(), key, farm, {
      direction: 'on',
      head_count: 2,
      species: '-sheep',
      reason: 'purchase',
      other_holding: '=1+1',
      transporter: '+Carrier',
      vehicle: '\rAB12 CDE',
    });
    const [entry] = parse(await exportText(t(), key, `/v1/farms/${farm}/holding-register/export`), {
      columns: true,
    }) as Array<Record<string, string>>;
    assert.deepEqual(
      [entry?.other_holding, entry?.transporter, entry?.vehicle, entry?.species, entry?.holding_number],
      ["'=1+1", "'+Carrier", "'\rAB12 CDE", "'-sheep", "'@12/345/6789"],
    );
    assert.equal(entry?.head_count, '2');
  });

  test('on a farm far from UTC, a day given alone is the farm’s: a movement dated by it is listed since it', async () => {
    const { key } = await herdFarm(t());
    const farm = (await make.farm(t(), key, { timezone: 'Pacific/Auckland' })).id;
    const day = '2026-03-02';
    const moved = (
      await move(t(), key, farm, {
        direction: 'on',
        head_count: 3,
        species: 'sheep',
        reason: 'purchase',
        other_holding: '3ABCD123',
        at: day,
      })
    ).body;
    // The start of 2 March in Auckland (NZDT, UTC+13): 11:00 UTC the day before.
    assert.equal(moved.at, '2026-03-01T11:00:00.000Z');
    for (const path of [`movements?since=${day}`, `holding-register/export?format=ndjson&since=${day}`]) {
      const text = await exportText(t(), key, `/v1/farms/${farm}/${path}`);
      assert.match(text, new RegExp(moved.id), path);
    }
    const before = await make.fetched<List<Movement>>(t(), key, `/v1/farms/${farm}/movements?until=${day}`);
    assert.deepEqual(before.data, [], 'until is exclusive: nothing before 2 March on the farm');
  });
});
