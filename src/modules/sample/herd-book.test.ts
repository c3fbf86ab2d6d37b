import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { forEachEngine } from '../../../test/harness.ts';
import type { Animal, BriefReply, Farm, List } from '../../../test/replies.ts';
import { DAY_MS } from '../../lib/time.ts';
import type { Medicine } from '../medicines/schemas.ts';
import type { Movement } from '../movements/schemas.ts';
import type { Treatment } from '../treatments/schemas.ts';
import { SAMPLE_HOLDING } from './herd-book.ts';

forEachEngine('sample farm: the herd book', (t) => {
  test('a holding number, a cabinet with a batch expiring, last week’s course holding Pip’s meat, Daisy’s milk withheld on the brief, movements on and off', async () => {
    const acct = await t().sharedAccount();
    const key = acct.test_key;
    const farmId = acct.sample_farm_id;
    const now = Date.now();

    const farm = await make.fetched<Farm>(t(), key, `/v1/farms/${farmId}`);
    assert.deepEqual(farm.holding, SAMPLE_HOLDING);

    const medicines = await make.fetched<List<Medicine>>(t(), key, `/v1/farms/${farmId}/medicines`);
    assert.equal(medicines.data.length, 4);
    const expiring = medicines.data
      .flatMap((m) => m.batches)
      .filter((b) => Date.parse(b.expiry) - now < 30 * DAY_MS && !b.expired);
    assert.deepEqual(
      expiring.map((b) => b.batch),
      ['OT-24117'],
    );

    const animals = await make.fetched<List<Animal>>(t(), key, `/v1/farms/${farmId}/animals?limit=100`);
    const byName = new Map(animals.data.map((a) => [a.name, a]));
    const pip = byName.get('Pip');
    const daisy = byName.get('Daisy');
    assert.ok(pip && daisy);
    // Pip's course last week: three doses two days apart, meat withheld for 28 days from the last.
    const [course] = (
      await make.fetched<List<Treatment>>(t(), key, `/v1/animals/${pip.id}/treatments`)
    ).data.filter((tr) => tr.course.doses > 1);
    assert.ok(course);
    assert.ok(now - Date.parse(course.at) <= 8 * DAY_MS, 'given last week');
    assert.ok(pip.withdrawal.meat_until && Date.parse(pip.withdrawal.meat_until) > now + 20 * DAY_MS);
    assert.equal(pip.withdrawal.meat_until, course.withdrawal_until.meat);
    assert.ok(daisy.withdrawal.milk_until && Date.parse(daisy.withdrawal.milk_until) > now);

    // The brief: Daisy's milk withheld (not Pip's: a steer gives none), the batch expiring, the pour-on low.
    const brief = await make.fetched<BriefReply>(t(), key, `/v1/farms/${farmId}/brief`);
    const milk = brief.items.filter((i) => i.kind === 'milk_withheld' || i.kind === 'milk_clear');
    assert.deepEqual(
      milk.map((i) => [i.kind, i.subject_id]),
      [['milk_withheld', daisy.id]],
    );
    assert.match(
      milk[0]?.title ?? '',
      /^Milk from Daisy \(114\) withheld until (tomorrow|\d{4}-\d\d-\d\d) \d\d:\d\d$/,
    );
    assert.match(milk[0]?.detail ?? '', /^Penicillin G Procaine \(batch PG-5521\): 4-day milk withdrawal/);
    assert.deepEqual(
      brief.items.filter((i) => i.kind === 'batch_expiring' || i.kind === 'medicine_low').map((i) => i.title),
      [
        'Oxytetracycline 200 LA batch OT-24117 expires in 18 days',
        'Low stock: Ivermectin Pour-On (168 ml left)',
      ],
    );
    assert.equal(brief.counts.milk_withheld, 1);

    const movements = await make.fetched<List<Movement>>(t(), key, `/v1/farms/${farmId}/movements`);
    assert.deepEqual(movements.data.map((m) => `${m.direction}/${m.reason}/${m.head_count}`).sort(), [
      'off/sale/3',
      'on/purchase/1',
    ]);
  });
});
