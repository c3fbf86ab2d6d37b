import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { forEachEngine } from '../../../test/harness.ts';
import { callTool, connect, ERAS, ok } from '../../../test/mcp.ts';
import type { Animal, Group, List } from '../../../test/replies.ts';
import { localDateStart } from '../../lib/local-time.ts';
import { DAY_MS, toIso } from '../../lib/time.ts';
import type { Medicine } from '../medicines/schemas.ts';
import type { Treatment } from '../treatments/schemas.ts';

const HERDBOOK = { path: '/mcp?toolsets=herdbook' };

forEachEngine('mcp herdbook tools', (t) => {
  test('list_medicines, give_treatment to a group once per idempotency_key, clear_to_sell for an animal and the group', async () => {
    const acct = await t().sharedAccount();
    const key = acct.live_key;
    const farm = await make.farm(t(), key, { name: 'Herd Book Farm', timezone: 'America/Chicago' });
    const group = await make.posted<Group>(t(), key, `/v1/farms/${farm.id}/groups`, {
      name: 'Steers',
      species: 'cattle',
    });
    const steer = (name: string, tag: string) =>
      make.posted<Animal>(t(), key, `/v1/farms/${farm.id}/animals`, {
        species: 'cattle',
        name,
        tag,
        group_id: group.id,
      });
    const rusty = await steer('Rusty', '301');
    const bolt = await steer('Bolt', '302');
    const med = await make.created<Medicine>(t(), key, `/v1/farms/${farm.id}/medicines`, {
      name: 'Oxytet LA',
      unit: 'ml',
      withdrawal: { meat_days: 28, milk_days: 7 },
    });
    const withBatch = await make.created<Medicine>(t(), key, `/v1/medicines/${med.id}/batches`, {
      batch: 'OX-9',
      expiry: toIso(Date.now() + 200 * DAY_MS),
      quantity: 1000,
    });
    const batchId = withBatch.batches[0]?.id;

    const mcp = await connect(t(), key, ERAS[1]!, HERDBOOK);
    try {
      const medicines = await ok(mcp.client, 'list_medicines', { farm_id: farm.id });
      assert.deepEqual(
        medicines.data.map((m: Medicine) => [m.name, m.batches[0]?.remaining]),
        [['Oxytet LA', 1000]],
      );

      // Before: both clear.
      const before = await ok(mcp.client, 'clear_to_sell', { group_id: group.id });
      assert.equal(before.all_clear, true);
      assert.equal(before.clear_count, 2);

      // Rusty alone, a week ago; then the whole group today, retried with the same idempotency_key.
      await ok(mcp.client, 'give_treatment', {
        farm_id: farm.id,
        medicine_id: med.id,
        batch_id: batchId,
        animal_ids: [rusty.id],
        dose: 10,
        dose_unit: 'ml',
        route: 'injection_im',
        at: toIso(Date.now() - 7 * DAY_MS),
      });
      const args = {
        farm_id: farm.id,
        medicine_id: med.id,
        batch_id: batchId,
        group_id: group.id,
        dose: 20,
        dose_unit: 'ml',
        route: 'injection_sc',
        reason: 'foot rot',
        idempotency_key: 'c6a1f1c2-8d0e-4b8e-9a57-0d7a1f3c2b11',
      };
      const first = await ok(mcp.client, 'give_treatment', args);
      const again = await ok(mcp.client, 'give_treatment', args);
      assert.equal(first.data.length, 2);
      assert.deepEqual(
        again.data.map((tr: Treatment) => tr.id),
        first.data.map((tr: Treatment) => tr.id),
      );
      const listed = await make.fetched<List<Treatment>>(t(), key, `/v1/farms/${farm.id}/treatments`);
      assert.equal(listed.data.length, 3, 'the retry treated nobody twice');
      const stock = await make.fetched<Medicine>(t(), key, `/v1/medicines/${med.id}`);
      assert.equal(stock.batches[0]?.remaining, 1000 - 10 - 2 * 20);

      // Rusty: held until today's treatment's meat date (the later of his two), by Oxytet LA.
      const rustyMeat = first.data.find((tr: Treatment) => tr.animal_id === rusty.id)?.withdrawal_until.meat;
      const one = await callTool(mcp.client, 'clear_to_sell', { animal_id: rusty.id });
      assert.equal(one.isError, false, one.text);
      assert.equal(one.data.all_clear, false);
      assert.equal(one.data.all_clear_from, rustyMeat);
      const [rustyAnswer] = one.data.animals;
      assert.equal(rustyAnswer.clear, false);
      assert.equal(rustyAnswer.clear_from, rustyMeat);
      assert.equal(rustyAnswer.withdrawal.because[0].medicine, 'Oxytet LA');
      assert.match(one.text, /^1 not clear at .*\n- Rusty \(ani_\w+\): clear from .* \(Oxytet LA\)/);

      // The group lists every animal not clear; a day after the meat date, all are clear.
      const herd = await ok(mcp.client, 'clear_to_sell', { group_id: group.id });
      assert.equal(herd.not_clear, 2);
      assert.deepEqual(
        herd.animals.map((a: { animal_id: string }) => a.animal_id).sort(),
        [rusty.id, bolt.id].sort(),
      );
      const later = await ok(mcp.client, 'clear_to_sell', {
        group_id: group.id,
        at: toIso(Date.parse(rustyMeat) + DAY_MS),
      });
      assert.equal(later.all_clear, true);
      assert.equal(later.all_clear_from, null);
      // Clear: nothing of its withdrawal is left at `at`.
      assert.deepEqual(later.animals[0].withdrawal.because, []);
      // A day alone is that day on the farm, as a sale dated by it is checked: its start in Chicago.
      const day = toIso(Date.parse(rustyMeat) + 2 * DAY_MS).slice(0, 10);
      const onDay = await ok(mcp.client, 'clear_to_sell', { group_id: group.id, at: day });
      assert.equal(onDay.at, toIso(localDateStart(day, 'America/Chicago')));
      assert.equal(onDay.all_clear, true);

      // Neither or both of animal_id and group_id: a refusal naming the argument.
      const neither = await callTool(mcp.client, 'clear_to_sell', {});
      assert.equal(neither.isError, true);
      assert.match(neither.text, /animal_id/);
      // An agent may not override a refusal (override_reason is not an argument).
      const override = await callTool(mcp.client, 'give_treatment', {
        ...args,
        idempotency_key: undefined,
        override_reason: 'because',
      });
      assert.equal(override.isError, true);
      assert.match(override.text, /override_reason/);
    } finally {
      await mcp.close();
    }

    // A key for another farm reaches none of this farm's herd book.
    const elsewhere = await make.farm(t(), key, { name: 'Elsewhere' });
    const keyRes = await t().request<{ key: string }>('POST', '/v1/keys', {
      key,
      body: { farms: [elsewhere.id] },
    });
    assert.equal(keyRes.status, 201);
    const narrow = await connect(t(), keyRes.body.key, ERAS[1]!, HERDBOOK);
    try {
      const calls: [string, Record<string, unknown>][] = [
        ['clear_to_sell', { animal_id: rusty.id }],
        ['clear_to_sell', { group_id: group.id }],
        ['list_medicines', { farm_id: farm.id }],
        [
          'give_treatment',
          {
            farm_id: farm.id,
            medicine_id: med.id,
            animal_ids: [rusty.id],
            dose: 1,
            dose_unit: 'ml',
            route: 'oral',
          },
        ],
      ];
      for (const [name, callArgs] of calls) {
        const res = await callTool(narrow.client, name, callArgs);
        assert.equal(res.isError, true, `${name} answered for another farm: ${res.text}`);
        assert.match(res.text, /Not found/, `${name}: ${res.text}`);
        assert.ok(
          !res.text.includes('Rusty') && !res.text.includes('Oxytet'),
          `${name} names the other farm's records`,
        );
      }
    } finally {
      await narrow.close();
    }
  });
});
