import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { expectError, forEachEngine, type TestApp } from '../../../test/harness.ts';
import type { Animal, FarmEvent, List } from '../../../test/replies.ts';
import { localDateStart, localDateText } from '../../lib/local-time.ts';
import type { Medicine } from '../medicines/schemas.ts';
import type { Treatment } from './schemas.ts';

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** A farm of its own (settings as given) on the shared account, with its live key. */
async function herdFarm(t: TestApp, settings: Record<string, unknown> = {}) {
  const acct = await t.sharedAccount();
  const key = acct.live_key;
  const farm = (await make.farm(t, key, { settings })).id;
  return { key, farm };
}

function medicine(t: TestApp, key: string, farm: string, body: Record<string, unknown>) {
  return make.created<Medicine>(t, key, `/v1/farms/${farm}/medicines`, {
    name: 'Pen & Strep',
    unit: 'ml',
    ...body,
  });
}

async function batchOf(t: TestApp, key: string, medicineId: string, body: Record<string, unknown> = {}) {
  const med = await make.created<Medicine>(t, key, `/v1/medicines/${medicineId}/batches`, {
    batch: 'B-1001',
    expiry: iso(Date.now() + 365 * DAY),
    quantity: 500,
    ...body,
  });
  const newest = med.batches[0];
  assert.ok(newest);
  return newest;
}

async function treat(t: TestApp, key: string, farm: string, body: Record<string, unknown>) {
  return (
    await make.created<{ data: Treatment[] }>(t, key, `/v1/farms/${farm}/treatments`, {
      dose: 10,
      dose_unit: 'ml',
      route: 'injection_im',
      ...body,
    })
  ).data;
}

forEachEngine('herd book: medicines, treatments and withdrawal', (t) => {
  test('a medicine with its label and a batch: listed with its stock; PATCH changes the label', async () => {
    const { key, farm } = await herdFarm(t());
    const med = await medicine(t(), key, farm, {
      active_ingredient: 'oxytetracycline',
      form: 'injection',
      withdrawal: { meat_days: 28, milk_days: 0 },
      species_withdrawal: { sheep: { meat_days: 21 } },
      licensed_species: ['cattle', 'sheep'],
    });
    assert.match(med.id, /^med_/);
    assert.deepEqual(med.withdrawal, { meat_days: 28, milk_days: 0 });
    assert.deepEqual(med.licensed_species, ['cattle', 'sheep']);
    const batch = await batchOf(t(), key, med.id, {
      supplier: 'Farm Vet Supplies',
      proof_of_purchase: 'INV-77',
    });
    assert.deepEqual(
      {
        batch: batch.batch,
        quantity: batch.quantity,
        used: batch.used,
        remaining: batch.remaining,
        expired: batch.expired,
      },
      { batch: 'B-1001', quantity: 500, used: 0, remaining: 500, expired: false },
    );
    const list = await make.fetched<List<Medicine>>(t(), key, `/v1/farms/${farm}/medicines`);
    assert.deepEqual(
      list.data.map((m) => [m.id, m.batches.length]),
      [[med.id, 1]],
    );
    const patched = await t().request<Medicine>('PATCH', `/v1/medicines/${med.id}`, {
      key,
      body: { withdrawal: { meat_days: 35 }, licensed_species: null },
    });
    assert.equal(patched.status, 200);
    assert.deepEqual([patched.body.withdrawal, patched.body.licensed_species], [{ meat_days: 35 }, null]);
    const other = await t().account();
    expectError(
      await t().request('GET', `/v1/medicines/${med.id}`, { key: other.live_key }),
      404,
      'not_found',
    );
    const bad = await t().request('POST', `/v1/farms/${farm}/medicines`, {
      key,
      body: { name: 'X', unit: 'ml', withdrawal: { meat_days: -1 } },
    });
    expectError(bad, 400, 'invalid_request');
  });

  test('a medicine’s name is not blank, a species is given one period, and the unit of stock bought cannot change', async () => {
    const { key, farm } = await herdFarm(t());
    const blank = await t().request('POST', `/v1/farms/${farm}/medicines`, {
      key,
      body: { name: '   ', unit: 'ml', withdrawal: {} },
    });
    const error = expectError(blank, 400, 'invalid_request');
    assert.deepEqual([error.param, error.message], ['name', 'name must not be blank.']);
    const twice = await t().request('POST', `/v1/farms/${farm}/medicines`, {
      key,
      body: {
        name: 'Dup',
        unit: 'ml',
        withdrawal: { meat_days: 5 },
        species_withdrawal: { sheep: { meat_days: 10 }, Sheep: { meat_days: 1 } },
      },
    });
    assert.equal(expectError(twice, 400, 'invalid_request').param, 'species_withdrawal.Sheep');
    const med = await medicine(t(), key, farm, { withdrawal: { meat_days: 5 } });
    const renamed = await t().request('PATCH', `/v1/medicines/${med.id}`, { key, body: { unit: 'ML' } });
    assert.equal(renamed.status, 200, 'the same unit in another case is no change');
    await batchOf(t(), key, med.id);
    const relabelled = await t().request('PATCH', `/v1/medicines/${med.id}`, {
      key,
      body: { unit: 'tablet' },
    });
    assert.equal(expectError(relabelled, 409, 'conflict').param, 'unit');
    const movedBlank = await t().request('POST', `/v1/farms/${farm}/movements`, {
      key,
      body: { direction: 'on', at: iso(Date.now()), head_count: 2, other_holding: '  ', reason: 'purchase' },
    });
    assert.equal(expectError(movedBlank, 400, 'invalid_request').param, 'other_holding');
  });

  test('a course given to a group: a treatment per animal, withdrawal from the last dose, stock down, the log and webhooks', async () => {
    const { key, farm } = await herdFarm(t());
    const group = await make.group(t(), key, farm, { name: 'Heifers' });
    const a = await make.animal(t(), key, farm, { tag: 'H1', group_id: group.id });
    const b = await make.animal(t(), key, farm, { tag: 'H2', group_id: group.id });
    await make.animal(t(), key, farm, { tag: 'H3', group_id: group.id, status: 'sold' });
    const med = await medicine(t(), key, farm, { withdrawal: { meat_days: 10, milk_days: 0 } });
    const batch = await batchOf(t(), key, med.id);
    const at = Date.parse('2026-11-20T08:00:00Z');
    const data = await treat(t(), key, farm, {
      medicine_id: med.id,
      batch_id: batch.id,
      group_id: group.id,
      at: iso(at),
      course: { doses: 3, every_hours: 24 },
      reason: 'pneumonia',
      vet: 'J. Herriot MRCVS',
      given_by: 'Sam',
      site: 'left neck',
    });
    assert.deepEqual(
      data.map((tr) => tr.animal_id),
      [a.id, b.id],
      'one per active animal of the group',
    );
    const [first] = data;
    assert.ok(first);
    assert.equal(first.last_dose_at, iso(at + 2 * DAY));
    assert.deepEqual(
      first.withdrawal_until,
      {
        meat: iso(at + 12 * DAY),
        milk: iso(at + 2 * DAY),
        eggs: null,
      },
      'a zero milk withdrawal is recorded as zero: the last dose; no eggs period on the label: null',
    );
    assert.deepEqual(
      first.because.map((s) => [s.food, s.rule, s.days, s.batch]),
      [
        ['meat', 'label', 10, 'B-1001'],
        ['milk', 'label', 0, 'B-1001'],
      ],
    );
    const stock = await make.fetched<Medicine>(t(), key, `/v1/medicines/${med.id}`);
    assert.equal(stock.batches[0]?.used, 60, '10 ml × 3 doses × 2 animals');
    assert.equal(stock.batches[0]?.remaining, 440);

    const events = await make.farmEvents(t(), farm, 'treatment');
    assert.deepEqual(
      events.map((e) => [e.subject_id, e.data.treatment_id, e.data.medicine_id]),
      data.map((tr) => [tr.animal_id, tr.id, med.id]),
    );
    assert.equal(first.event_id, events[0]?.id);
    const hooks = await make.outboxEvents(t(), farm, 'treatment.created');
    assert.deepEqual(
      hooks.map((h) => h.data.id),
      data.map((tr) => tr.id),
    );
    const mine = await make.fetched<List<Treatment>>(t(), key, `/v1/animals/${a.id}/treatments`);
    assert.deepEqual(
      mine.data.map((tr) => tr.id),
      [first.id],
    );
    const farmList = await make.fetched<List<Treatment>>(
      t(),
      key,
      `/v1/farms/${farm}/treatments?medicine_id=${med.id}`,
    );
    assert.equal(farmList.data.length, 2);
  });

  test('the animal shows its withdrawal, and ?withdrawal=active lists the animals still inside one', async () => {
    const { key, farm } = await herdFarm(t());
    const treated = await make.animal(t(), key, farm, { tag: 'T1' });
    const clear = await make.animal(t(), key, farm, { tag: 'C1' });
    const past = await make.animal(t(), key, farm, { tag: 'P1' });
    const med = await medicine(t(), key, farm, { withdrawal: { meat_days: 28, milk_days: 4 } });
    const at = Date.now() - 3_600_000;
    await treat(t(), key, farm, { medicine_id: med.id, animal_ids: [treated.id], at: iso(at) });
    await treat(t(), key, farm, { medicine_id: med.id, animal_ids: [past.id], at: iso(at - 60 * DAY) });
    const got = await make.fetched<Animal>(t(), key, `/v1/animals/${treated.id}`);
    assert.equal(got.withdrawal.meat_until, iso(at + 28 * DAY));
    assert.equal(got.withdrawal.milk_until, iso(at + 4 * DAY));
    assert.equal(got.withdrawal.eggs_until, null);
    assert.deepEqual(
      (got.withdrawal.because as Array<{ food: string; medicine: string }>).map((s) => [s.food, s.medicine]),
      [
        ['meat', 'Pen & Strep'],
        ['milk', 'Pen & Strep'],
      ],
    );
    const pastAnimal = await make.fetched<Animal>(t(), key, `/v1/animals/${past.id}`);
    assert.deepEqual(
      pastAnimal.withdrawal,
      { meat_until: null, milk_until: null, eggs_until: null, because: [] },
      'past dates are clear',
    );
    const active = await make.fetched<List<Animal>>(t(), key, `/v1/farms/${farm}/animals?withdrawal=active`);
    assert.deepEqual(
      active.data.map((x) => x.id),
      [treated.id],
    );
    assert.ok(clear.id);
  });

  test('off-label: the cascade, ×1.5 of the label’s longest and the 28/7/14 minimums, for the foods each species gives; organic doubles', async () => {
    const { key, farm } = await herdFarm(t());
    const goat = await make.animal(t(), key, farm, { species: 'goat' });
    const organicGoat = await make.animal(t(), key, farm, { species: 'goat', fields: { organic: true } });
    const hen = await make.animal(t(), key, farm, { species: 'chicken', sex: 'female' });
    const med = await medicine(t(), key, farm, {
      withdrawal: { meat_days: 10 },
      species_withdrawal: { sheep: { meat_days: 14 } },
      licensed_species: ['cattle', 'sheep'],
    });
    const at = Date.parse('2026-11-20T08:00:00Z');
    const [plain, organic, layer] = await treat(t(), key, farm, {
      medicine_id: med.id,
      animal_ids: [goat.id, organicGoat.id, hen.id],
      at: iso(at),
    });
    assert.ok(plain && organic && layer);
    assert.deepEqual(
      plain.because.map((s) => [s.food, s.rule, s.days]),
      [
        ['meat', 'cascade', 21],
        ['milk', 'cascade_minimum', 7],
      ],
      'meat: 14 (sheep, the longest) × 1.5; milk: the UK minimum; a goat gives no eggs',
    );
    assert.deepEqual(
      layer.because.map((s) => [s.food, s.rule, s.days]),
      [
        ['meat', 'cascade', 21],
        ['eggs', 'cascade_minimum', 14],
      ],
      'a hen gives no milk: eggs take the UK minimum',
    );
    assert.deepEqual(
      organic.because.map((s) => [s.food, s.days, s.organic]),
      [
        ['meat', 42, true],
        ['milk', 14, true],
      ],
    );
    // The farm's jurisdiction and organic setting: EU eggs minimum 10, doubled.
    const patched = await t().request('PATCH', `/v1/farms/${farm}`, {
      key,
      body: { settings: { withdrawal: { jurisdiction: 'eu', organic: true } } },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const [eu] = await treat(t(), key, farm, { medicine_id: med.id, animal_ids: [hen.id], at: iso(at) });
    assert.equal(eu?.because.find((s) => s.food === 'eggs')?.days, 20);
    const bad = await t().request('PATCH', `/v1/farms/${farm}`, {
      key,
      body: { settings: { withdrawal: { jurisdiction: 'narnia' } } },
    });
    assert.equal(expectError(bad, 400, 'invalid_request').param, 'settings.withdrawal.jurisdiction');
  });

  test('a batch whose label says a day is usable through that whole day in the farm’s zone, and not the day after', async () => {
    const { key, farm } = await herdFarm(t(), {});
    await t().request('PATCH', `/v1/farms/${farm}`, { key, body: { timezone: 'Pacific/Kiritimati' } });
    const cow = await make.animal(t(), key, farm);
    const med = await medicine(t(), key, farm, { withdrawal: { meat_days: 5 } });
    // Kiritimati is UTC+14: its today began up to 14 hours before UTC's.
    const localDay = (ms: number) =>
      new Intl.DateTimeFormat('en-CA', { timeZone: 'Pacific/Kiritimati' }).format(new Date(ms));
    const today = localDay(Date.now());
    const yesterday = localDay(Date.now() - DAY);
    const good = await batchOf(t(), key, med.id, { batch: 'TODAY', expiry: today, quantity: 10 });
    assert.equal(good.expired, false, 'usable through the day its label gives');
    assert.equal(localDay(Date.parse(good.expiry)), today, 'its expiry is still that day on the farm');
    const body = { medicine_id: med.id, animal_ids: [cow.id], dose: 1, dose_unit: 'ml', route: 'oral' };
    const given = await t().request('POST', `/v1/farms/${farm}/treatments`, {
      key,
      body: { ...body, batch_id: good.id },
    });
    assert.equal(given.status, 201, JSON.stringify(given.body));
    const old = await batchOf(t(), key, med.id, { batch: 'YESTERDAY', expiry: yesterday, quantity: 10 });
    assert.equal(old.expired, true);
    const refused = await t().request('POST', `/v1/farms/${farm}/treatments`, {
      key,
      body: { ...body, batch_id: old.id },
    });
    assert.equal(expectError(refused, 400, 'invalid_request').param, 'batch_id');
  });

  test('an expired batch is refused naming batch_id, and used with override_reason (kept); stock is checked', async () => {
    const { key, farm } = await herdFarm(t());
    const cow = await make.animal(t(), key, farm);
    const med = await medicine(t(), key, farm, { withdrawal: { meat_days: 5 } });
    const expired = await batchOf(t(), key, med.id, { batch: 'OLD-1', expiry: '2025-01-01' });
    assert.equal(expired.expired, true);
    const body = {
      medicine_id: med.id,
      batch_id: expired.id,
      animal_ids: [cow.id],
      dose: 10,
      dose_unit: 'ml',
      route: 'oral',
    };
    const refused = await t().request('POST', `/v1/farms/${farm}/treatments`, { key, body });
    const error = expectError(refused, 400, 'invalid_request');
    assert.equal(error.param, 'batch_id');
    assert.match(error.message, /OLD-1.*expired/);
    const [given] = await treat(t(), key, farm, { ...body, override_reason: 'No other stock; vet approved' });
    assert.equal(given?.override_reason, 'No other stock; vet approved');
    const small = await batchOf(t(), key, med.id, { batch: 'SMALL', quantity: 5 });
    const tooMuch = await t().request('POST', `/v1/farms/${farm}/treatments`, {
      key,
      body: { ...body, batch_id: small.id },
    });
    assert.equal(expectError(tooMuch, 400, 'invalid_request').param, 'batch_id');
    const wrongUnit = await t().request('POST', `/v1/farms/${farm}/treatments`, {
      key,
      body: { ...body, batch_id: small.id, dose: 1, dose_unit: 'tablet' },
    });
    assert.equal(expectError(wrongUnit, 400, 'invalid_request').param, 'dose_unit');
    const nowhere = await t().request('POST', `/v1/farms/${farm}/treatments`, {
      key,
      body: { ...body, batch_id: undefined, animal_ids: ['ani_nope'] },
    });
    assert.equal(expectError(nowhere, 400, 'invalid_request').param, 'animal_ids[0]');
  });

  test('treatments from one batch at the same moment never take more than it holds; stock to a millionth', async () => {
    const { key, farm } = await herdFarm(t());
    const cows = await Promise.all(Array.from({ length: 6 }, () => make.animal(t(), key, farm)));
    const med = await medicine(t(), key, farm, { withdrawal: { meat_days: 5 } });
    const batch = await batchOf(t(), key, med.id, { batch: 'LAST-25', quantity: 25 });
    const answers = await Promise.all(
      cows.map((cow) =>
        t().request('POST', `/v1/farms/${farm}/treatments`, {
          key,
          body: {
            medicine_id: med.id,
            batch_id: batch.id,
            animal_ids: [cow.id],
            dose: 10,
            dose_unit: 'ml',
            route: 'oral',
          },
        }),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    assert.deepEqual(
      statuses,
      [201, 201, 400, 400, 400, 400],
      'two of 10 ml fit in 25 ml, whoever comes first',
    );
    const after = await make.fetched<Medicine>(t(), key, `/v1/medicines/${med.id}`);
    assert.deepEqual(
      after.batches.map((b) => [b.used, b.remaining]),
      [[20, 5]],
    );
    const small = await batchOf(t(), key, med.id, { batch: 'TENTHS', quantity: 0.3 });
    for (let i = 0; i < 3; i++) {
      await treat(t(), key, farm, {
        medicine_id: med.id,
        batch_id: small.id,
        animal_ids: [cows[i]?.id],
        dose: 0.1,
      });
    }
    const tenths = (await make.fetched<Medicine>(t(), key, `/v1/medicines/${med.id}`)).batches.find(
      (b) => b.batch === 'TENTHS',
    );
    assert.deepEqual([tenths?.used, tenths?.remaining], [0.3, 0]);
  });

  test('a treatment, a sale and a logged treatment are dated when done: the future and before birth are 400 naming at; a logged dose must be a number', async () => {
    const { key, farm } = await herdFarm(t());
    const calf = await make.animal(t(), key, farm, { birth_date: '2026-06-01' });
    const med = await medicine(t(), key, farm, { withdrawal: { meat_days: 5 } });
    const body = { medicine_id: med.id, animal_ids: [calf.id], dose: 1, dose_unit: 'ml', route: 'oral' };
    const ahead = iso(Date.now() + 2 * DAY);
    for (const at of [ahead, '2026-01-01T00:00:00Z']) {
      const refused = await t().request('POST', `/v1/farms/${farm}/treatments`, {
        key,
        body: { ...body, at },
      });
      assert.equal(expectError(refused, 400, 'invalid_request').param, 'at', at);
    }
    const sale = await t().request('POST', `/v1/farms/${farm}/events`, {
      key,
      body: { type: 'sale', subject_id: calf.id, at: ahead },
    });
    assert.equal(expectError(sale, 400, 'invalid_request').param, 'at');
    for (const data of [
      { medicine_id: med.id, dose: '5' },
      { medicine_id: med.id },
      { medicine_id: 7, dose: 1 },
    ]) {
      const logged = await t().request('POST', `/v1/farms/${farm}/events`, {
        key,
        body: { type: 'treatment', subject_id: calf.id, data },
      });
      const error = expectError(logged, 400, 'invalid_request');
      assert.ok(['data.dose', 'data.medicine_id'].includes(error.param ?? ''), JSON.stringify(error));
    }
    assert.equal((await make.farmEvents(t(), farm, 'treatment')).length, 0, 'nothing logged');
    const clock = await t().request('POST', `/v1/farms/${farm}/treatments`, {
      key,
      body: { ...body, at: iso(Date.now() + 60_000) },
    });
    assert.equal(clock.status, 201, 'a clock a minute fast is fine');
    // A date alone is that day on the farm: on Kiritimati (UTC+14) today's midnight UTC is this afternoon.
    const zone = 'Pacific/Kiritimati';
    const east = (await make.farm(t(), key, { timezone: zone })).id;
    const ewe = await make.animal(t(), key, east, { species: 'sheep' });
    const today = localDateText(Date.now(), zone);
    const drench = await medicine(t(), key, east, { withdrawal: { meat_days: 5 } });
    const [dated] = await treat(t(), key, east, {
      ...body,
      medicine_id: drench.id,
      animal_ids: [ewe.id],
      at: today,
    });
    assert.equal(dated?.at, iso(localDateStart(today, zone)));
  });

  test('a treatment recorded by mistake is taken back whole: stock, withdrawal and log entry; its log entry cannot be edited instead', async () => {
    const { key, farm } = await herdFarm(t());
    const cow = await make.animal(t(), key, farm, { name: 'Wrong cow' });
    const long = await medicine(t(), key, farm, { name: 'Long', withdrawal: { meat_days: 28 } });
    const short = await medicine(t(), key, farm, { name: 'Short', withdrawal: { meat_days: 3 } });
    const batch = await batchOf(t(), key, long.id, { quantity: 100 });
    const at = Date.now() - 3_600_000;
    const [mistake] = await treat(t(), key, farm, {
      medicine_id: long.id,
      batch_id: batch.id,
      animal_ids: [cow.id],
      dose: 10,
      at: iso(at),
    });
    await treat(t(), key, farm, { medicine_id: short.id, animal_ids: [cow.id], dose: 1, at: iso(at) });
    assert.ok(mistake);
    const logged = await make.farmEvents(t(), farm, 'treatment');
    const entry = logged.find((e) => e.data.treatment_id === mistake.id);
    assert.ok(entry, 'the treatment is in the log');
    for (const [method, body] of [
      ['PATCH', { data: { dose: 1 } }],
      ['DELETE', undefined],
    ] as const) {
      const refused = await t().request(method, `/v1/events/${entry.id}`, { key, body });
      const error = expectError(refused, 409, 'conflict');
      assert.match(error.message, new RegExp(`treatment ${mistake.id}`));
    }
    const gone = await t().request('DELETE', `/v1/treatments/${mistake.id}`, { key });
    assert.equal(gone.status, 200, JSON.stringify(gone.body));
    assert.equal((await t().request('GET', `/v1/treatments/${mistake.id}`, { key })).status, 404);
    const stock = (await make.fetched<Medicine>(t(), key, `/v1/medicines/${long.id}`)).batches[0];
    assert.deepEqual([stock?.used, stock?.remaining], [0, 100], 'its stock is back');
    const animal = await make.fetched<Animal>(t(), key, `/v1/animals/${cow.id}`);
    assert.equal(
      animal.withdrawal.meat_until,
      iso(at + 3 * DAY),
      'the other treatment’s 3 days stand, not the 28 taken back',
    );
    assert.equal((await t().request('GET', `/v1/events/${entry.id}`, { key })).status, 404, 'its log entry');
    const sent = await make.outboxEvents(t(), farm, 'treatment.deleted');
    assert.deepEqual(
      sent.map((o) => o.data.id),
      [mistake.id],
    );
    assert.equal((await t().request('DELETE', `/v1/treatments/${mistake.id}`, { key })).status, 404);
    // A treatment logged as "Treatment" is made one all the same, and its log entry is guarded the same way.
    const logged2 = await make.created<FarmEvent>(t(), key, `/v1/farms/${farm}/events`, {
      type: 'Treatment',
      subject_id: cow.id,
      data: { medicine_id: short.id, dose: 1 },
    });
    const edit = await t().request('PATCH', `/v1/events/${logged2.id}`, { key, body: { data: { dose: 2 } } });
    expectError(edit, 409, 'conflict');
    // Logged on a group, one log entry for two treatments: taking one back keeps the entry for the other.
    const group = await make.group(t(), key, farm, { name: 'Pair' });
    const pair = [
      await make.animal(t(), key, farm, { group_id: group.id }),
      await make.animal(t(), key, farm, { group_id: group.id }),
    ];
    const shared = await make.created<FarmEvent>(t(), key, `/v1/farms/${farm}/events`, {
      type: 'treatment',
      subject_type: 'group',
      subject_id: group.id,
      data: { medicine_id: short.id, dose: 1 },
    });
    const ids = shared.data.treatment_ids as string[];
    assert.equal(ids.length, pair.length);
    assert.equal((await t().request('DELETE', `/v1/treatments/${ids[0]}`, { key })).status, 200);
    const sharedEntry = await make.fetched<FarmEvent>(t(), key, `/v1/events/${shared.id}`);
    assert.deepEqual(sharedEntry.data.treatment_ids, [ids[1]]);
  });

  test('a sale, a slaughter and a status change inside the meat withdrawal: 409 withdrawal_active; an override is kept and sent', async () => {
    const { key, farm } = await herdFarm(t());
    const cow = await make.animal(t(), key, farm, { name: 'Bess' });
    const med = await medicine(t(), key, farm, { withdrawal: { meat_days: 28 } });
    const batch = await batchOf(t(), key, med.id, { batch: 'LOT-9' });
    const at = Date.now() - 3_600_000;
    await treat(t(), key, farm, {
      medicine_id: med.id,
      batch_id: batch.id,
      animal_ids: [cow.id],
      at: iso(at),
    });
    const ends = iso(at + 28 * DAY);

    for (const type of ['sale', 'slaughter']) {
      const refused = await t().request('POST', `/v1/farms/${farm}/events`, {
        key,
        body: { type, subject_id: cow.id, data: { buyer: 'Market' } },
      });
      const error = expectError(refused, 409, 'withdrawal_active');
      assert.ok(
        error.message.includes('Pen & Strep') &&
          error.message.includes('LOT-9') &&
          error.message.includes(ends),
        error.message,
      );
    }
    // Types and statuses are free text: any case or stray spaces still record a leaving.
    for (const type of ['Sale', 'SLAUGHTER', 'sale ']) {
      const refused = await t().request('POST', `/v1/farms/${farm}/events`, {
        key,
        body: { type, subject_id: cow.id },
      });
      expectError(refused, 409, 'withdrawal_active');
    }
    for (const status of ['slaughtered', 'Sold', ' SLAUGHTERED']) {
      const patchRefused = await t().request('PATCH', `/v1/animals/${cow.id}`, { key, body: { status } });
      expectError(patchRefused, 409, 'withdrawal_active');
    }
    assert.equal(
      (await make.fetched<Animal>(t(), key, `/v1/animals/${cow.id}`)).status,
      'active',
      'nothing written',
    );
    assert.equal((await make.farmEvents(t(), farm, 'sale')).length, 0);

    const sale = await make.created<FarmEvent>(t(), key, `/v1/farms/${farm}/events`, {
      type: 'sale',
      subject_id: cow.id,
      data: { buyer: 'Market' },
      override_reason: 'Sold as a breeding cow, not for slaughter',
    });
    assert.deepEqual(sale.data, {
      buyer: 'Market',
      override_reason: 'Sold as a breeding cow, not for slaughter',
    });
    const patched = await t().request<Animal>('PATCH', `/v1/animals/${cow.id}`, {
      key,
      body: { status: 'sold', override_reason: 'Sold as a breeding cow' },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.status, 'sold');
    const history = await make.farmEvents(t(), farm, 'withdrawal_override');
    assert.deepEqual(
      history.map((e) => [e.subject_id, e.data.status, e.data.override_reason]),
      [[cow.id, 'sold', 'Sold as a breeding cow']],
    );
    const overrides = await make.outboxEvents(t(), farm, 'withdrawal.overridden');
    assert.deepEqual(
      overrides.map((o) => [o.data.action, o.data.override_reason, o.data.event_id]),
      [
        ['sale', 'Sold as a breeding cow, not for slaughter', sale.id],
        ['status', 'Sold as a breeding cow', history[0]?.id],
      ],
    );
    const held = ((overrides[0]?.data.animals ?? []) as Array<Record<string, unknown>>)[0];
    assert.deepEqual([held?.animal_id, held?.batch, held?.meat_until], [cow.id, 'LOT-9', ends]);
  });

  test('a slaughter with an override is kept and sent; the sample farm’s reset puts its herd book back', async () => {
    const acct = await t().account();
    const farm = acct.sample_farm_id;
    const key = acct.test_key;
    const ewe = await make.animal(t(), key, farm, { species: 'sheep', tag: 'E7' });
    const med = await medicine(t(), key, farm, { withdrawal: { meat_days: 28 } });
    const batch = await batchOf(t(), key, med.id);
    await treat(t(), key, farm, { medicine_id: med.id, batch_id: batch.id, animal_ids: [ewe.id] });
    const slaughter = await make.created<FarmEvent>(t(), key, `/v1/farms/${farm}/events`, {
      type: 'slaughter',
      subject_id: ewe.id,
      override_reason: 'Casualty slaughter, carcass condemned',
    });
    assert.equal(slaughter.data.override_reason, 'Casualty slaughter, carcass condemned');
    const sent = await make.outboxEvents(t(), farm, 'withdrawal.overridden');
    assert.deepEqual(
      sent.map((o) => [o.data.action, o.data.event_id]),
      [['slaughter', slaughter.id]],
    );
    const reset = await t().request('POST', `/v1/farms/${farm}/reset`, { key });
    assert.equal(reset.status, 200, JSON.stringify(reset.body));
    const medicines = await make.fetched<List<Medicine>>(t(), key, `/v1/farms/${farm}/medicines`);
    const treatments = await make.fetched<List<Treatment>>(t(), key, `/v1/farms/${farm}/treatments`);
    // The test's medicine and treatment are gone; the sample's own herd book (sample/herd-book.ts) is back.
    assert.ok(!medicines.data.some((m) => m.id === med.id));
    assert.ok(!treatments.data.some((tr) => tr.medicine_id === med.id || tr.animal_id === ewe.id));
    assert.equal(medicines.data.length, 4);
  });

  test('a group sale lists every animal not clear; a clear animal sells with no override', async () => {
    const { key, farm } = await herdFarm(t());
    const group = await make.group(t(), key, farm, { name: 'Stores' });
    const x = await make.animal(t(), key, farm, { tag: 'X1', group_id: group.id });
    const y = await make.animal(t(), key, farm, { tag: 'Y1', group_id: group.id });
    const z = await make.animal(t(), key, farm, { tag: 'Z1', group_id: group.id });
    const med = await medicine(t(), key, farm, { withdrawal: { meat_days: 14 } });
    await treat(t(), key, farm, { medicine_id: med.id, animal_ids: [x.id, y.id] });
    const refused = await t().request('POST', `/v1/farms/${farm}/events`, {
      key,
      body: { type: 'sale', subject_id: group.id },
    });
    const error = expectError(refused, 409, 'withdrawal_active');
    assert.ok(error.message.includes(x.id) && error.message.includes(y.id), error.message);
    assert.ok(!error.message.includes(z.id), 'the clear animal is not named');
    assert.match(error.message, /2 of 3 animals/);
    await make.created(t(), key, `/v1/farms/${farm}/events`, { type: 'sale', subject_id: z.id });
    // A sale dated after the withdrawal ends is not a way round it: a sale is recorded once it has happened.
    const ahead = await t().request('POST', `/v1/farms/${farm}/events`, {
      key,
      body: { type: 'sale', subject_id: group.id, at: iso(Date.now() + 15 * DAY) },
    });
    assert.equal(expectError(ahead, 400, 'invalid_request').param, 'at');
  });

  test('the spec’s treatment event is logged as before; one naming a medicine and a dose also becomes a treatment', async () => {
    const { key, farm } = await herdFarm(t());
    const cow = await make.animal(t(), key, farm);
    const plain = await make.created<FarmEvent>(t(), key, `/v1/farms/${farm}/events`, {
      type: 'treatment',
      subject_id: cow.id,
      data: { product: 'Ivomec', dose_ml: 5 },
    });
    assert.deepEqual(plain.data, { product: 'Ivomec', dose_ml: 5 });
    assert.equal(
      (await make.fetched<List<Treatment>>(t(), key, `/v1/animals/${cow.id}/treatments`)).data.length,
      0,
    );

    const med = await medicine(t(), key, farm, { withdrawal: { meat_days: 7 } });
    const batch = await batchOf(t(), key, med.id);
    const at = '2026-11-25T09:00:00.000Z';
    const logged = await make.created<FarmEvent>(t(), key, `/v1/farms/${farm}/events`, {
      type: 'treatment',
      subject_id: cow.id,
      at,
      data: { medicine_id: med.id, batch_id: batch.id, dose: 12, route: 'injection_sc', note: 'lame' },
    });
    const [structured] = (await make.fetched<List<Treatment>>(t(), key, `/v1/animals/${cow.id}/treatments`))
      .data;
    assert.ok(structured);
    assert.deepEqual(logged.data.treatment_ids, [structured.id]);
    assert.equal(logged.data.note, 'lame');
    assert.deepEqual(
      [
        structured.event_id,
        structured.dose,
        structured.dose_unit,
        structured.route,
        structured.withdrawal_until.meat,
      ],
      [logged.id, 12, 'ml', 'injection_sc', iso(Date.parse(at) + 7 * DAY)],
    );
    assert.equal(
      (await make.farmEvents(t(), farm, 'treatment')).length,
      2,
      'the logged event is its record: no second one',
    );
    const unknown = await t().request('POST', `/v1/farms/${farm}/events`, {
      key,
      body: { type: 'treatment', subject_id: cow.id, data: { medicine_id: 'med_nope', dose: 1 } },
    });
    assert.equal(expectError(unknown, 400, 'invalid_request').param, 'data.medicine_id');
    const badRoute = await t().request('POST', `/v1/farms/${farm}/events`, {
      key,
      body: {
        type: 'treatment',
        subject_id: cow.id,
        data: { medicine_id: med.id, dose: 1, route: 'by magic' },
      },
    });
    assert.equal(expectError(badRoute, 400, 'invalid_request').param, 'data.route');
  });
});
