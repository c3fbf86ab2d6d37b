import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { forEachEngine } from '../../../test/harness.ts';
import { signedInPerson } from '../../../test/people.ts';
import type { Animal, BriefReply } from '../../../test/replies.ts';
import { DAY_MS, toIso } from '../../lib/time.ts';
import type { Medicine } from '../medicines/schemas.ts';
import type { Treatment } from '../treatments/schemas.ts';
import { buildBrief } from './service.ts';

forEachEngine('brief: the herd book', (t) => {
  test('milk withheld every day until it ends, its end on the day it ends; batches expiring within 30 days; low stock', async () => {
    const acct = await t().sharedAccount();
    const key = acct.live_key;
    const farmId = (await make.farm(t(), key, { name: 'Dairy Brook' })).id;
    const now = Date.now();
    const cow = (name: string, tag: string) =>
      make.posted<Animal>(t(), key, `/v1/farms/${farmId}/animals`, { species: 'cattle', name, tag });
    const daisy = await cow('Daisy', '114');
    const bess = await cow('Bess', '7');
    await cow('Clover', '112');

    const mastitis = await make.created<Medicine>(t(), key, `/v1/farms/${farmId}/medicines`, {
      name: 'Mastiplan',
      unit: 'tube',
      withdrawal: { meat_days: 3, milk_days: 4 },
    });
    // Nearly used up: 2 of 10 tubes left is a fifth of what was bought (the default line); expires in 10 days.
    await make.created(t(), key, `/v1/medicines/${mastitis.id}/batches`, {
      batch: 'MP-77',
      expiry: toIso(now + 10 * DAY_MS),
      quantity: 10,
    });
    const batch = (await make.fetched<Medicine>(t(), key, `/v1/medicines/${mastitis.id}`)).batches[0];
    assert.ok(batch);
    const given = (body: Record<string, unknown>) =>
      make.created<{ data: Treatment[] }>(t(), key, `/v1/farms/${farmId}/treatments`, {
        medicine_id: mastitis.id,
        batch_id: batch.id,
        dose: 4,
        dose_unit: 'tube',
        route: 'intramammary',
        ...body,
      });
    // Daisy treated an hour ago: milk withheld for 4 days. Bess four days ago, to the minute: her milk is clear today.
    const [daisyTreatment] = (await given({ animal_ids: [daisy.id] })).data;
    const todayStart = Math.floor(now / DAY_MS) * DAY_MS; // the farm is on UTC
    await given({ animal_ids: [bess.id], at: toIso(Math.max(todayStart, now - 60_000) - 4 * DAY_MS) });

    // A medicine with its own line, well stocked, and a batch expiring in 60 days (not listed).
    const drench = await make.created<Medicine>(t(), key, `/v1/farms/${farmId}/medicines`, {
      name: 'Cydectin',
      unit: 'ml',
      withdrawal: { meat_days: 14 },
      low_stock_at: 100,
    });
    await make.created(t(), key, `/v1/medicines/${drench.id}/batches`, {
      batch: 'CY-1',
      expiry: toIso(now + 60 * DAY_MS),
      quantity: 500,
    });
    // Never stocked: not low, just not bought.
    await make.created(t(), key, `/v1/farms/${farmId}/medicines`, {
      name: 'Spare',
      unit: 'ml',
      withdrawal: {},
    });

    const body = await make.fetched<BriefReply>(t(), key, `/v1/farms/${farmId}/brief`);
    const kinds = body.items.map((i) => i.kind);
    assert.deepEqual(kinds, ['milk_withheld', 'milk_clear', 'batch_expiring', 'medicine_low']);
    const [withheld, clear, expiring, low] = body.items;
    assert.ok(withheld && clear && expiring && low);
    assert.match(withheld.title, /^Milk from Daisy \(114\) withheld until /);
    assert.match(withheld.detail, /Mastiplan \(batch MP-77\): 4-day milk withdrawal \(label\)/);
    assert.equal(withheld.severity, 'watch');
    assert.equal(withheld.subject_id, daisy.id);
    assert.equal(withheld.ref_id, daisyTreatment?.id);
    assert.equal(withheld.at, daisyTreatment?.withdrawal_until.milk);
    assert.match(clear.title, /^Milk from Bess \(7\) can go in the tank again from \d\d:\d\d$/);
    assert.equal(clear.subject_id, bess.id);
    assert.equal(expiring.title, 'Mastiplan batch MP-77 expires in 10 days');
    assert.match(expiring.detail, /2 tube left of 10 tube/);
    assert.equal(expiring.ref_id, batch.id);
    assert.equal(low.title, 'Low stock: Mastiplan (2 tube left)');
    assert.match(low.detail, /a fifth of the 10 tube bought/);
    assert.deepEqual(
      [
        body.counts.milk_withheld,
        body.counts.milk_clear_today,
        body.counts.batches_expiring,
        body.counts.medicines_low_stock,
      ],
      [1, 1, 1, 1],
    );
    assert.match(body.headline, /^1 animal with milk withheld: Milk from Daisy/);
    assert.match(
      body.text,
      /Milk from Daisy \(114\) withheld until .*Medicine cabinet: Mastiplan batch MP-77/,
    );

    // A Spanish reader's brief: the same items, each sentence whole in Spanish; the English above unchanged.
    const spanish = await signedInPerson(t(), acct, 'owner');
    assert.equal((await spanish.request('PATCH', '/v1/me', { body: { language: 'es' } })).status, 200);
    const es = await spanish.request<BriefReply>('GET', `/v1/farms/${farmId}/brief`);
    assert.equal(es.status, 200, JSON.stringify(es.body));
    const [esWithheld, esClear, esExpiring, esLow] = es.body.items;
    assert.deepEqual(
      es.body.items.map((i) => i.kind),
      kinds,
    );
    assert.match(String(esWithheld?.title), /^Leche de Daisy \(114\) retenida hasta /);
    assert.equal(
      esWithheld?.detail,
      'Mastiplan (lote MP-77): retiro de leche de 4 días (según la etiqueta). Mantenga la leche fuera del tanque.',
    );
    assert.match(String(esClear?.title), /^La leche de Bess \(7\) puede volver al tanque desde \d\d:\d\d$/);
    assert.match(
      String(esClear?.detail),
      /^El retiro de leche por Mastiplan \(lote MP-77\) termina hoy a las \d\d:\d\d\.$/,
    );
    assert.equal(esExpiring?.title, 'El lote MP-77 de Mastiplan vence en 10 días');
    assert.equal(
      esExpiring?.detail,
      `Vence el ${toIso(now + 10 * DAY_MS)?.slice(0, 10)}; quedan 2 tube de 10 tube.`,
    );
    assert.equal(esLow?.title, 'Poca existencia: Mastiplan (quedan 2 tube)');
    assert.equal(
      esLow?.detail,
      'Quedan 2 tube en lotes sin vencer, igual o por debajo de la quinta parte de los 10 tube comprados.',
    );
    assert.match(es.body.headline, /^1 animal con la leche retenida: Leche de Daisy \(114\) retenida hasta /);
    assert.match(
      es.body.text,
      /Leche de Daisy \(114\) retenida hasta .*Botiquín: El lote MP-77 de Mastiplan vence en 10 días; Poca existencia: Mastiplan \(quedan 2 tube\)\./,
    );

    // Its own line: Cydectin at 100 ml is low once 400 ml are given; PATCH moves the line.
    const cydectinBatch = (await make.fetched<Medicine>(t(), key, `/v1/medicines/${drench.id}`)).batches[0];
    await make.created(t(), key, `/v1/farms/${farmId}/treatments`, {
      medicine_id: drench.id,
      batch_id: cydectinBatch?.id,
      animal_ids: [daisy.id, bess.id],
      dose: 200,
      dose_unit: 'ml',
      route: 'pour_on',
    });
    let lowTitles = (await make.fetched<BriefReply>(t(), key, `/v1/farms/${farmId}/brief`)).items
      .filter((i) => i.kind === 'medicine_low')
      .map((i) => i.title);
    assert.deepEqual(lowTitles, ['Low stock: Mastiplan (2 tube left)', 'Low stock: Cydectin (100 ml left)']);
    const patched = await t().request<Medicine>('PATCH', `/v1/medicines/${drench.id}`, {
      key,
      body: { low_stock_at: 50 },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.low_stock_at, 50);
    lowTitles = (await make.fetched<BriefReply>(t(), key, `/v1/farms/${farmId}/brief`)).items
      .filter((i) => i.kind === 'medicine_low')
      .map((i) => i.title);
    assert.deepEqual(lowTitles, ['Low stock: Mastiplan (2 tube left)']);

    // Day by day: Daisy's milk is withheld until the day it ends, then listed as back in the tank, then gone.
    const db = t().database.db;
    const scope = { accountId: acct.account_id, mode: 'live' as const };
    const milkOn = async (at: number) =>
      (await buildBrief(db, scope, farmId, at)).items
        .filter((i) => i.subject_id === daisy.id)
        .map((i) => i.kind);
    const ends = Date.parse(daisyTreatment?.withdrawal_until.milk ?? '');
    assert.deepEqual(await milkOn(ends - 2 * DAY_MS), ['milk_withheld']);
    assert.deepEqual(await milkOn(ends - 1), ['milk_clear']);
    assert.deepEqual(await milkOn(ends + 1), ['milk_clear']);
    assert.deepEqual(await milkOn(ends + DAY_MS), []);
    // A batch past its expiry is no longer "expiring", and its stock no longer counts.
    const later = await buildBrief(db, scope, farmId, now + 11 * DAY_MS);
    assert.ok(!later.items.some((i) => i.kind === 'batch_expiring'));
    assert.ok(later.items.some((i) => i.title === 'Low stock: Mastiplan (0 tube left)'));
  });
});
