import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as make from '../../../test/factories.ts';
import { expectError, forEachEngine, type TestApp } from '../../../test/harness.ts';
import { connect, ERAS, ok } from '../../../test/mcp.ts';
import { signedInPerson } from '../../../test/people.ts';
import type { Animal, FarmEvent } from '../../../test/replies.ts';
import * as breedingZone from '../../db/migrations/0049_breeding_zone.ts';
import { localDateStart, localDateText } from '../../lib/local-time.ts';

const DAY = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const iso = (ms: number) => new Date(ms).toISOString();

async function herdFarm(t: TestApp, settings: Record<string, unknown> = {}) {
  const acct = await t.sharedAccount();
  const key = acct.live_key;
  const farm = (await make.farm(t, key, { settings })).id;
  const animal = (body: Record<string, unknown>) => make.animal(t, key, farm, { species: 'cattle', ...body });
  const log = (body: Record<string, unknown>) =>
    make.created<FarmEvent>(t, key, `/v1/farms/${farm}/events`, body);
  const get = (id: string) => make.fetched<Animal>(t, key, `/v1/animals/${id}`);
  return { acct, key, farm, animal, log, get };
}

interface Pedigree {
  animal: Animal;
  ancestors: Array<{ id: string; generation: number; name: string | null }>;
  descendants: Array<{ id: string; generation: number }>;
  inbreeding: number;
}

forEachEngine('breeding records and lineage', (t) => {
  test('a weaning logged on a group ends the fresh days of each of its females; deleting it restores them', async () => {
    const { animal, log, get, farm, key } = await herdFarm(t());
    const group = await make.group(t(), key, farm, { name: 'Cows and calves', species: 'cattle' });
    const cows = [
      await animal({ sex: 'female', group_id: group.id }),
      await animal({ sex: 'female', group_id: group.id }),
    ];
    for (const cow of cows) {
      await log({
        type: 'birth',
        subject_id: cow.id,
        at: iso(Date.now() - 20 * DAY),
        data: { offspring: [{ sex: 'male', alive: true }] },
      });
      assert.equal((await get(cow.id)).breeding?.state, 'fresh');
    }
    const weaned = await log({ type: 'weaning', subject_type: 'group', subject_id: group.id });
    for (const cow of cows) assert.equal((await get(cow.id)).breeding?.state, 'open');
    assert.equal((await t().request('DELETE', `/v1/events/${weaned.id}`, { key })).status, 200);
    for (const cow of cows)
      assert.equal((await get(cow.id)).breeding?.state, 'fresh', 'the weaning taken back');
  });

  test('a parent keeps a sex and species its offspring allow; a pregnancy check says something possible', async () => {
    const { animal, log, key } = await herdFarm(t());
    const dam = await animal({ sex: 'female', tag: 'DAM-1' });
    const sire = await animal({ sex: 'bull', tag: 'SIRE-1' });
    await animal({ sex: 'female', tag: 'CALF-1', dam_id: dam.id, sire_id: sire.id });
    for (const [id, body, param] of [
      [dam.id, { sex: 'male' }, 'sex'],
      [sire.id, { sex: 'female' }, 'sex'],
      [sire.id, { species: 'sheep' }, 'species'],
    ] as const) {
      const refused = await t().request('PATCH', `/v1/animals/${id}`, { key, body });
      assert.equal(expectError(refused, 400, 'invalid_request').param, param, JSON.stringify(body));
    }
    const doe = await animal({ species: 'goat', sex: 'female' });
    await log({
      type: 'service',
      subject_id: doe.id,
      at: iso(Date.now() - 50 * DAY),
      data: { method: 'natural' },
    });
    for (const [data, param] of [
      [{ result: 'pregnant', days_pregnant: 390 }, 'data.days_pregnant'],
      [{ result: 'pregnant', foetal_count: 0 }, 'data.foetal_count'],
    ] as const) {
      const refused = await t().request('POST', `/v1/farms/${doe.farm_id}/events`, {
        key,
        body: { type: 'pregnancy_check', subject_id: doe.id, data },
      });
      assert.equal(expectError(refused, 400, 'invalid_request').param, param);
    }
  });

  test('breeding state and due dates per species, the next heat, and a farm setting for gestation', async () => {
    const { animal, log, get, key } = await herdFarm(t());
    const now = Date.now();
    const cases = [
      ['cattle', 283],
      ['sheep', 147],
      ['goat', 150],
      ['pig', 114],
      ['horse', 340],
    ] as const;
    const served = now - 10 * DAY;
    for (const [species, gestation] of cases) {
      const female = await animal({ species, sex: 'female' });
      assert.deepEqual(female.breeding, {
        state: 'open',
        due_date: null,
        next_heat_expected: null,
        pregnancy_check_due: null,
      });
      await log({
        type: 'service',
        subject_id: female.id,
        data: { method: 'ai', sire_name: 'Bull' },
        at: iso(served),
      });
      const bred = (await get(female.id)).breeding;
      assert.equal(bred?.state, 'bred', species);
      assert.equal(bred?.due_date, day(served + gestation * DAY), species);
    }
    const bull = await animal({ sex: 'male' });
    assert.equal(bull.breeding, null, 'null for males');

    // A heat: open, the next one 21 days on (17 for sheep).
    const cow = await animal({ sex: 'female' });
    const ewe = await animal({ species: 'sheep', sex: 'female' });
    const heat = now - 2 * DAY;
    await log({ type: 'heat', subject_id: cow.id, data: { observed_by: 'eye' }, at: iso(heat) });
    await log({ type: 'heat', subject_id: ewe.id, data: { observed_by: 'device' }, at: iso(heat) });
    assert.equal((await get(cow.id)).breeding?.next_heat_expected, day(heat + 21 * DAY));
    assert.equal((await get(ewe.id)).breeding?.next_heat_expected, day(heat + 17 * DAY));

    // Pregnant on a check (due from days_pregnant), then a service that did not hold: open, next heat on its cycle.
    await log({
      type: 'service',
      subject_id: cow.id,
      data: { method: 'natural', sire_id: bull.id },
      at: iso(now - 50 * DAY),
    });
    await log({
      type: 'pregnancy_check',
      subject_id: cow.id,
      data: { result: 'pregnant', days_pregnant: 60, foetal_count: 1 },
      at: iso(now - DAY),
    });
    assert.deepEqual((await get(cow.id)).breeding, {
      state: 'pregnant',
      due_date: day(now - DAY - 60 * DAY + 283 * DAY),
      next_heat_expected: null,
      pregnancy_check_due: null,
    });
    const heifer = await animal({ sex: 'heifer' });
    await log({
      type: 'service',
      subject_id: heifer.id,
      data: { method: 'ai', sire_name: 'Bull' },
      at: iso(now - 40 * DAY),
    });
    await log({
      type: 'pregnancy_check',
      subject_id: heifer.id,
      data: { result: 'empty' },
      at: iso(now - DAY),
    });
    assert.deepEqual((await get(heifer.id)).breeding, {
      state: 'open',
      due_date: null,
      next_heat_expected: day(now - 40 * DAY + 42 * DAY),
      pregnancy_check_due: null,
    });

    // A farm's own gestation.
    const other = await herdFarm(t(), { breeding: { gestation_days: { cattle: 290 } } });
    const dairy = await other.animal({ sex: 'female' });
    await other.log({ type: 'service', subject_id: dairy.id, data: { method: 'ai' }, at: iso(served) });
    assert.equal((await other.get(dairy.id)).breeding?.due_date, day(served + 290 * DAY));
    const bad = await t().request('POST', '/v1/farms', {
      key,
      body: { name: 'x', timezone: 'UTC', settings: { breeding: { gestation_days: { cattle: 2 } } } },
    });
    assert.equal(expectError(bad, 400, 'invalid_request').param, 'settings.breeding.gestation_days.cattle');
  });

  test('breeding records are checked on write: a 400 naming the member, and nothing written', async () => {
    const { animal, farm, key, get } = await herdFarm(t());
    const cow = await animal({ sex: 'female' });
    const steer = await animal({ sex: 'steer' });
    const post = (body: Record<string, unknown>) =>
      t().request('POST', `/v1/farms/${farm}/events`, { key, body });
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ type: 'service', subject_id: cow.id, data: { method: 'embryo' } }, 'data.method'],
      [{ type: 'service', subject_id: cow.id, data: { method: 'ai', sire_id: steer.id } }, 'data.sire_id'],
      [
        { type: 'service', subject_id: cow.id, data: { method: 'ai', sire_id: 'x', sire_name: 'y' } },
        'data.sire_name',
      ],
      [{ type: 'service', subject_id: steer.id, data: { method: 'ai' } }, 'subject_id'],
      [{ type: 'pregnancy_check', subject_id: cow.id, data: { result: 'maybe' } }, 'data.result'],
      [
        { type: 'pregnancy_check', subject_id: cow.id, data: { result: 'pregnant', days_pregnant: -1 } },
        'data.days_pregnant',
      ],
      [{ type: 'heat', data: {} }, 'subject_id'],
      [{ type: 'heat', subject_id: cow.id, data: { by: 'eye' } }, 'data.by'],
      [
        { type: 'birth', subject_id: cow.id, data: { offspring: [{ sex: 'female' }] } },
        'data.offspring.0.alive',
      ],
      [{ type: 'birth', subject_id: cow.id, data: { offspring: [] } }, 'data.offspring'],
    ];
    for (const [body, param] of cases) {
      const error = expectError(await post(body), 400, 'invalid_request');
      assert.match(
        String(error.param),
        new RegExp(`^${param.replace(/\./g, '\\.').replace('\\.0\\.', '(\\.0\\.|\\[0\\]\\.)')}$`),
        JSON.stringify(body),
      );
    }
    const events = await make.fetched<{ data: FarmEvent[] }>(t(), key, `/v1/farms/${farm}/events`);
    assert.equal(events.data.length, 0, 'nothing written');
    assert.equal((await get(cow.id)).breeding?.state, 'open');
  });

  test('the spec birth event without offspring is logged as before', async () => {
    const { animal, log, farm, key } = await herdFarm(t());
    const calf = await animal({ sex: 'male' });
    const event = await log({ type: 'birth', subject_id: calf.id, data: { count: 2, anything: 'kept' } });
    assert.deepEqual(event.data, { count: 2, anything: 'kept' });
    const free = await log({ type: 'birth', data: { count: 1 } });
    assert.deepEqual(free.data, { count: 1 });
    const animals = await make.fetched<{ data: Animal[] }>(t(), key, `/v1/farms/${farm}/animals`);
    assert.equal(animals.data.length, 1, 'no animals created');
  });

  test('a birth creates its offspring linked to dam and sire, born that day, with birth weights; animal.born', async () => {
    const { animal, log, get, farm, key } = await herdFarm(t());
    const paddock = await make.paddock(t(), key, farm, { name: 'Calving' });
    const bull = await animal({ sex: 'male', name: 'Duke' });
    const cow = await animal({ sex: 'female', name: 'Daisy', paddock_id: paddock.id });
    const at = Date.now() - 3 * DAY;
    await log({
      type: 'service',
      subject_id: cow.id,
      data: { method: 'natural', sire_id: bull.id },
      at: iso(at - 283 * DAY),
    });
    const birth = await log({
      type: 'birth',
      subject_id: cow.id,
      at: iso(at),
      data: {
        assisted: true,
        offspring: [
          { sex: 'female', tag: 'C1', weight_kg: 38.5, alive: true },
          { sex: 'male', tag: 'C2', alive: false },
        ],
      },
    });
    const ids = birth.data.offspring_ids as string[];
    assert.equal(ids.length, 2);
    const [calf, stillborn] = [await get(ids[0] as string), await get(ids[1] as string)];
    assert.equal(calf.dam_id, cow.id);
    assert.equal(calf.sire_id, bull.id, 'the sire from her service');
    assert.equal(calf.birth_date, `${iso(at).slice(0, 10)}T00:00:00.000Z`, 'the day of the birth');
    assert.equal(calf.species, 'cattle');
    assert.equal(calf.paddock_id, paddock.id, 'with her dam');
    assert.deepEqual(calf.breeding, {
      state: 'open',
      due_date: null,
      next_heat_expected: null,
      pregnancy_check_due: null,
    });
    assert.equal(stillborn.status, 'dead');
    assert.equal((await get(cow.id)).breeding?.state, 'fresh');
    const weights = await make.farmEvents(t(), farm, 'weight');
    assert.deepEqual(
      weights.map((w) => [w.subject_id, w.data]),
      [[calf.id, { kg: 38.5, source: 'birth' }]],
    );
    const calfWeights = await make.fetched<{ data: Array<{ kg: number; source: string }> }>(
      t(),
      key,
      `/v1/animals/${calf.id}/weights`,
    );
    assert.deepEqual(
      calfWeights.data.map((w) => [w.kg, w.source]),
      [[38.5, 'birth']],
    );
    const born = await make.outboxEvents(t(), farm, 'animal.born');
    assert.deepEqual(
      born.map((e) => [(e.data.animal as Animal).id, e.data.dam_id, e.data.event_id]),
      [
        [calf.id, cow.id, birth.id],
        [stillborn.id, cow.id, birth.id],
      ],
    );
    // A taken EID on an offspring: a 400 or 409 naming it, and no calf or event left behind.
    await animal({ eid: '982000000000001' });
    const taken = await t().request('POST', `/v1/farms/${farm}/events`, {
      key,
      body: {
        type: 'birth',
        subject_id: cow.id,
        data: { offspring: [{ sex: 'male', eid: '982000000000001', alive: true }] },
      },
    });
    assert.equal(expectError(taken, 409, 'conflict').param, 'data.offspring[0].eid');
    assert.equal((await make.farmEvents(t(), farm, 'birth')).length, 1);
  });

  test('dam and sire on an animal are checked: a female of the same species for dam, no cycles', async () => {
    const { animal, key } = await herdFarm(t());
    const cow = await animal({ sex: 'female' });
    const bull = await animal({ sex: 'male' });
    const ewe = await animal({ species: 'sheep', sex: 'female' });
    const calf = await animal({ sex: 'female', dam_id: cow.id, sire_id: bull.id });
    assert.equal(calf.dam_id, cow.id);
    const patch = (id: string, body: Record<string, unknown>) =>
      t().request<Animal>('PATCH', `/v1/animals/${id}`, { key, body });
    assert.equal(
      expectError(await patch(calf.id, { dam_id: bull.id }), 400, 'invalid_request').param,
      'dam_id',
    );
    assert.equal(
      expectError(await patch(calf.id, { dam_id: ewe.id }), 400, 'invalid_request').param,
      'dam_id',
    );
    assert.equal(
      expectError(await patch(calf.id, { sire_id: cow.id }), 400, 'invalid_request').param,
      'sire_id',
    );
    assert.equal(
      expectError(await patch(cow.id, { dam_id: calf.id }), 400, 'invalid_request').param,
      'dam_id',
      'a cycle',
    );
    assert.equal(
      expectError(await patch(cow.id, { dam_id: cow.id }), 400, 'invalid_request').param,
      'dam_id',
    );
    assert.equal(
      expectError(await patch(calf.id, { dam_id: 'ani_nope' }), 400, 'invalid_request').param,
      'dam_id',
    );
    const outside = await patch(calf.id, { sire_name: 'Te Mania Berkley', sire_registration: 'NZ123' });
    assert.equal(outside.status, 200);
    assert.deepEqual(
      [outside.body.sire_id, outside.body.sire_name, outside.body.sire_registration],
      [null, 'Te Mania Berkley', 'NZ123'],
    );
  });

  test('the four known inbreeding coefficients come out exactly, with the mating warning', async () => {
    const { animal, key } = await herdFarm(t());
    const f = (sex: string, body: Record<string, unknown> = {}) => animal({ sex, ...body });
    const sire = await f('male');
    const dam = await f('female');
    const other = await f('female');
    const son = await f('male', { sire_id: sire.id, dam_id: dam.id });
    const daughter = await f('female', { sire_id: sire.id, dam_id: dam.id });
    const halfSister = await f('female', { sire_id: sire.id, dam_id: other.id });
    const mateA = await f('female');
    const mateB = await f('female');
    const cousinM = await f('male', { sire_id: son.id, dam_id: mateA.id });
    const cousinF = await f('female', { sire_id: (await f('male')).id, dam_id: daughter.id });
    void mateB;
    const unrelated = await f('male');
    const check = (female: string, male: string) =>
      make.fetched<{ offspring_inbreeding: number; warning: string | null }>(
        t(),
        key,
        `/v1/animals/${female}/mating-check?sire_id=${male}`,
      );
    const parentOffspring = await check(daughter.id, sire.id);
    assert.equal(parentOffspring.offspring_inbreeding, 0.25);
    assert.match(String(parentOffspring.warning), /25 %/);
    assert.equal((await check(daughter.id, son.id)).offspring_inbreeding, 0.25, 'full siblings');
    assert.equal((await check(halfSister.id, son.id)).offspring_inbreeding, 0.125, 'half siblings');
    const cousins = await check(cousinF.id, cousinM.id);
    assert.equal(cousins.offspring_inbreeding, 0.0625, 'first cousins');
    assert.match(String(cousins.warning), /6\.25 %/, 'warned at 6.25 %');
    assert.deepEqual(await check(daughter.id, unrelated.id), {
      dam_id: daughter.id,
      sire_id: unrelated.id,
      offspring_inbreeding: 0,
      warning: null,
    });
    const notFemale = await t().request('GET', `/v1/animals/${son.id}/mating-check?sire_id=${sire.id}`, {
      key,
    });
    expectError(notFemale, 400, 'invalid_request');

    // The offspring of full siblings, recorded: its pedigree says 0.25.
    const inbred = await f('female', { sire_id: son.id, dam_id: daughter.id });
    const pedigree = await make.fetched<Pedigree>(
      t(),
      key,
      `/v1/animals/${inbred.id}/pedigree?generations=2`,
    );
    assert.equal(pedigree.inbreeding, 0.25);
    // The same answers through MCP's opt-in herdbook toolset (the same service).
    const mcp = await connect(t(), key, ERAS[1]!, { path: '/mcp?toolsets=herdbook' });
    try {
      const mating = await ok(mcp.client, 'mating_check', { female_id: halfSister.id, sire_id: son.id });
      assert.equal(mating.offspring_inbreeding, 0.125);
      const viaTool = await ok(mcp.client, 'get_pedigree', { animal_id: inbred.id, generations: 2 });
      assert.equal(viaTool.inbreeding, 0.25);
      assert.equal(viaTool.ancestors.length, 4);
    } finally {
      await mcp.close();
    }
    assert.deepEqual(
      pedigree.ancestors.map((a) => [a.id, a.generation]).sort(),
      [
        [daughter.id, 1],
        [son.id, 1],
        [dam.id, 2],
        [sire.id, 2],
      ].sort(),
    );
    const top = await make.fetched<Pedigree>(t(), key, `/v1/animals/${sire.id}/pedigree?generations=2`);
    assert.deepEqual(
      top.descendants.map((d) => [d.id, d.generation]).sort(),
      [
        [son.id, 1],
        [daughter.id, 1],
        [halfSister.id, 1],
        [cousinM.id, 2],
        [cousinF.id, 2],
        [inbred.id, 2],
      ].sort(),
    );
  });

  test('calves by the same outside sire (by registration) are half siblings', async () => {
    const { animal, key } = await herdFarm(t());
    const ai = { sire_name: 'Connealy Confidence', sire_registration: 'AAA 16295688' };
    const a = await animal({ sex: 'female', ...ai });
    const b = await animal({ sex: 'male', ...ai, sire_name: 'CONNEALY CONFIDENCE 0100' });
    const check = await make.fetched<{ offspring_inbreeding: number }>(
      t(),
      key,
      `/v1/animals/${a.id}/mating-check?sire_id=${b.id}`,
    );
    assert.equal(check.offspring_inbreeding, 0.125);
    const pedigree = await make.fetched<Pedigree>(t(), key, `/v1/animals/${a.id}/pedigree`);
    assert.deepEqual(
      pedigree.ancestors.map((r) => [r.id, r.name]),
      [['outside:aaa 16295688', 'Connealy Confidence']],
    );
  });

  test('a key limited to some farms: relatives on its other farms are unknown to the pedigree, the mating check and as parents', async () => {
    const { animal, key, farm, log } = await herdFarm(t());
    const away = (await make.farm(t(), key, { name: 'Out farm' })).id;
    const there = (body: Record<string, unknown>) =>
      make.animal(t(), key, away, { species: 'cattle', ...body });
    // Lineage across the account's farms, recorded by the unrestricted key (docs/records.md "Lineage").
    const granddam = await there({ sex: 'female', name: 'Hidden Granny', tag: 'OUT-1' });
    const bull = await there({ sex: 'male', name: 'Hidden Bull', tag: 'OUT-BULL' });
    const heifer = await there({ sex: 'female', tag: 'OUT-2' });
    const ewe = await there({ species: 'sheep', sex: 'female', tag: 'OUT-EWE' });
    const cow = await animal({ sex: 'female', tag: 'HOME-COW', dam_id: granddam.id });
    const calf = await animal({ sex: 'female', tag: 'HOME-CALF', dam_id: cow.id, sire_id: bull.id });
    const awayCalf = await there({ sex: 'male', tag: 'OUT-CALF', dam_id: cow.id, sire_id: bull.id });
    const steerSon = await animal({ sex: 'male', tag: 'HOME-BULL', sire_id: bull.id });
    const lonely = await animal({ sex: 'female', tag: 'HOME-LONE' });
    await there({ sex: 'female', tag: 'OUT-LONE-CALF', dam_id: lonely.id });
    const hidden = [granddam, bull, heifer, ewe, awayCalf].map((a) => a.id);

    const limited = (
      await make.posted<{ key: string }>(t(), key, '/v1/keys', {
        name: 'home farm only',
        farms: [farm],
        permissions: { records: 'write' },
      })
    ).key;
    interface Shown {
      id: string;
      dam_id: string | null;
      sire_id: string | null;
      generation: number;
    }
    type Answer = { animal: Animal; ancestors: Shown[]; descendants: Shown[]; inbreeding: number };
    const pedigree = (who: string, id: string) =>
      make.fetched<Answer>(t(), who, `/v1/animals/${id}/pedigree?generations=3`);

    // The unrestricted key sees the whole account's pedigree, as before.
    const whole = await pedigree(key, calf.id);
    assert.deepEqual(whole.ancestors.map((a) => a.id).sort(), [cow.id, bull.id, granddam.id].sort());
    assert.equal(whole.animal.sire_id, bull.id);
    assert.deepEqual(
      (await pedigree(key, cow.id)).descendants.map((d) => d.id).sort(),
      [calf.id, awayCalf.id].sort(),
    );
    const halfSibs = `/v1/animals/${calf.id}/mating-check?sire_id=${steerSon.id}`;
    assert.equal(
      (await make.fetched<{ offspring_inbreeding: number }>(t(), key, halfSibs)).offspring_inbreeding,
      0.125,
      'half siblings by the bull on the other farm',
    );

    // The limited key: the other farm's animals are not there, not even as ids; its links are null.
    const seen = await pedigree(limited, calf.id);
    assert.deepEqual(
      seen.ancestors.map((a) => [a.id, a.dam_id, a.sire_id]),
      [[cow.id, null, null]],
    );
    assert.equal(seen.animal.dam_id, cow.id);
    assert.equal(seen.animal.sire_id, null);
    const fromCow = await pedigree(limited, cow.id);
    assert.deepEqual(
      fromCow.descendants.map((d) => [d.id, d.dam_id, d.sire_id]),
      [[calf.id, cow.id, null]],
    );
    assert.equal(fromCow.animal.dam_id, null);
    for (const answer of [seen, fromCow]) {
      const text = JSON.stringify(answer);
      for (const id of hidden) assert.ok(!text.includes(id), `no ${id} in ${text}`);
      assert.doesNotMatch(text, /Hidden|OUT-/);
    }
    assert.equal(
      (await make.fetched<{ offspring_inbreeding: number }>(t(), limited, halfSibs)).offspring_inbreeding,
      0,
      'the shared sire is unknown to this key',
    );

    // A parent or sire on the other farm answers exactly as an id that does not exist.
    const refusal = async (
      path: string,
      method: 'GET' | 'POST' | 'PATCH',
      body?: Record<string, unknown>,
    ) => {
      const error = expectError(
        await t().request(method, path, { key: limited, body }),
        400,
        'invalid_request',
      );
      return { param: error.param, message: error.message };
    };
    const asUnknown = (
      got: { param?: string; message: string },
      unknown: { param?: string; message: string },
      id: string,
    ) => assert.deepEqual(got, { ...unknown, message: unknown.message.replace('ani_nope', id) });
    const mating = (sire: string) => refusal(`/v1/animals/${cow.id}/mating-check?sire_id=${sire}`, 'GET');
    const unknownSire = await mating('ani_nope');
    // A male, a female and another species: an unrestricted key is told each apart.
    for (const id of [bull.id, heifer.id, ewe.id]) asUnknown(await mating(id), unknownSire, id);
    assert.notEqual(
      (await t().request('GET', `/v1/animals/${cow.id}/mating-check?sire_id=${heifer.id}`, { key })).status,
      200,
    );

    const create = (body: Record<string, unknown>) =>
      refusal(`/v1/farms/${farm}/animals`, 'POST', { species: 'cattle', sex: 'female', ...body });
    const unknownDam = await create({ dam_id: 'ani_nope' });
    for (const id of [granddam.id, heifer.id, ewe.id, bull.id])
      asUnknown(await create({ dam_id: id }), unknownDam, id);
    const unknownSireId = await create({ sire_id: 'ani_nope' });
    asUnknown(await create({ sire_id: bull.id }), unknownSireId, bull.id);
    const patch = (body: Record<string, unknown>) => refusal(`/v1/animals/${lonely.id}`, 'PATCH', body);
    asUnknown(await patch({ sire_id: bull.id }), await patch({ sire_id: 'ani_nope' }), bull.id);
    const service = (sire: string) =>
      refusal(`/v1/farms/${farm}/events`, 'POST', {
        type: 'service',
        subject_id: lonely.id,
        at: iso(Date.now() - DAY),
        data: { method: 'natural', sire_id: sire },
      });
    asUnknown(await service(bull.id), await service('ani_nope'), bull.id);
    assert.equal((await make.farmEvents(t(), farm, 'service')).length, 0);

    // A link stored by a key that sees both farms stays: editing the calf keeps its sire.
    const renamed = await t().request<Animal>('PATCH', `/v1/animals/${calf.id}`, {
      key: limited,
      body: { name: 'Daisy', species: 'cow' },
    });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    assert.equal((await make.fetched<Animal>(t(), key, `/v1/animals/${calf.id}`)).sire_id, bull.id);
    // A parent's sex is still held by its offspring on the other farm, which the refusal does not name.
    const male = await patch({ sex: 'male' });
    assert.equal(male.param, 'sex');
    assert.doesNotMatch(male.message, /OUT-|ani_/);
    // The unrestricted key still links across farms; the limited key may then correct that record, keeping
    // its sire, but not name another animal it does not see.
    const served = await log({
      type: 'service',
      subject_id: lonely.id,
      at: iso(Date.now() - DAY),
      data: { method: 'natural', sire_id: bull.id },
    });
    const edit = (data: Record<string, unknown>) =>
      t().request('PATCH', `/v1/events/${served.id}`, { key: limited, body: { data } });
    const noted = await edit({ method: 'natural', sire_id: bull.id, notes: 'seen with the bull' });
    assert.equal(noted.status, 200, JSON.stringify(noted.body));
    const other = await there({ sex: 'male', tag: 'OUT-BULL-2' });
    const swapped = expectError(await edit({ method: 'natural', sire_id: other.id }), 400, 'invalid_request');
    const unknown = expectError(
      await edit({ method: 'natural', sire_id: 'ani_nope' }),
      400,
      'invalid_request',
    );
    assert.deepEqual(
      { param: swapped.param, message: swapped.message },
      { param: unknown.param, message: unknown.message.replace('ani_nope', other.id) },
    );
  });

  test('a bull put in with a group serves its females; the calving calendar lists them by due date', async () => {
    const { animal, log, get, farm, key } = await herdFarm(t());
    const group = await make.group(t(), key, farm, { name: 'Spring heifers', species: 'cattle' });
    const bull = await animal({ sex: 'bull' });
    const heifers = [
      await animal({ sex: 'heifer', group_id: group.id }),
      await animal({ sex: 'heifer', group_id: group.id }),
    ];
    await animal({ sex: 'steer', group_id: group.id });
    const at = Date.now() - 270 * DAY;
    const event = await log({
      type: 'service',
      subject_id: group.id,
      at: iso(at),
      data: { method: 'bull_in', sire_id: bull.id, until: iso(at + 42 * DAY) },
    });
    assert.deepEqual([...(event.data.animal_ids as string[])].sort(), heifers.map((h) => h.id).sort());
    for (const h of heifers) assert.equal((await get(h.id)).breeding?.due_date, day(at + 283 * DAY));
    const calendar = await make.fetched<{
      data: Array<{ animal_id: string; due_date: string; overdue: boolean }>;
    }>(t(), key, `/v1/farms/${farm}/due-dates?days=30`);
    assert.deepEqual(calendar.data.map((d) => d.animal_id).sort(), heifers.map((h) => h.id).sort());
    assert.equal(calendar.data[0]?.overdue, false);
    const none = await make.fetched<{ data: unknown[] }>(t(), key, `/v1/farms/${farm}/due-dates?days=5`);
    assert.deepEqual(none.data, []);
    // A calendar asked from a later day still says overdue as of today: not yet.
    const later = await make.fetched<{ data: Array<{ overdue: boolean }> }>(
      t(),
      key,
      `/v1/farms/${farm}/due-dates?from=${day(Date.now() + 60 * DAY)}&days=5`,
    );
    assert.ok(later.data.length > 0, 'the heifers, due before that day, are listed');
    assert.ok(
      later.data.every((d) => d.overdue === false),
      JSON.stringify(later.data),
    );
  });

  test('a farm far from UTC: records dated by its days, due dates, next heats and the brief in its calendar', async () => {
    const zone = 'Pacific/Auckland';
    const { get, key } = await herdFarm(t());
    const farm = (await make.farm(t(), key, { timezone: zone })).id;
    const log = (body: Record<string, unknown>) =>
      make.created<FarmEvent>(t(), key, `/v1/farms/${farm}/events`, body);
    const cow = (name: string) => make.animal(t(), key, farm, { sex: 'female', name });
    const now = Date.now();
    const today = localDateText(now, zone);
    const plus = (date: string, days: number) =>
      new Date(Date.parse(date) + days * DAY).toISOString().slice(0, 10);
    // 08:00 on the farm, 21 days ago: the evening before in UTC.
    const morning = (date: string) => localDateStart(date, zone) + 8 * 3_600_000;
    const [served, cycling] = [await cow('Served'), await cow('Cycling')];
    const heatDay = plus(today, -21);
    await log({ type: 'heat', subject_id: cycling.id, data: {}, at: iso(morning(heatDay)) });
    assert.equal((await get(cycling.id)).breeding?.next_heat_expected, today, 'one cycle on, the farm’s day');
    // A date alone is that day on the farm: its start there, never in its future (13:00 in UTC terms).
    const serviceDay = plus(today, -40);
    const service = await log({
      type: 'service',
      subject_id: served.id,
      data: { method: 'ai' },
      at: serviceDay,
    });
    assert.equal(service.at, iso(localDateStart(serviceDay, zone)));
    const breeding = (await get(served.id)).breeding;
    assert.equal(breeding?.due_date, plus(serviceDay, 283));
    assert.equal(breeding?.pregnancy_check_due, plus(serviceDay, 35));
    const dated = await t().request<FarmEvent>('POST', `/v1/farms/${farm}/events`, {
      key,
      body: { type: 'heat', subject_id: cycling.id, data: {}, at: today },
    });
    assert.equal(dated.status, 201, JSON.stringify(dated.body));
    await t().request('DELETE', `/v1/events/${dated.body.id}`, { key });
    const calendar = await make.fetched<{
      data: Array<{ animal_id: string; due_date: string; service_date: string }>;
    }>(t(), key, `/v1/farms/${farm}/due-dates?from=${plus(serviceDay, 283)}&days=1`);
    assert.deepEqual(
      calendar.data.map((d) => [d.animal_id, d.due_date, d.service_date]),
      [[served.id, plus(serviceDay, 283), serviceDay]],
    );
    const brief = await make.fetched<{
      items: Array<{ kind: string; subject_id: string | null; detail: string }>;
    }>(t(), key, `/v1/farms/${farm}/brief`);
    const heat = brief.items.find((i) => i.kind === 'heat_expected');
    assert.equal(heat?.subject_id, cycling.id);
    const check = brief.items.find((i) => i.kind === 'pregnancy_check_due');
    assert.equal(check?.detail, `Served ${serviceDay}, 40 days ago.`);
    // A calendar from the day after her due date, without those due before it, lists her not.
    const after = await make.fetched<{ data: unknown[] }>(
      t(),
      key,
      `/v1/farms/${farm}/due-dates?from=${plus(serviceDay, 284)}&days=5&overdue=false`,
    );
    assert.deepEqual(after.data, []);
    // A record is of something done: a service next month is refused, naming at.
    const ahead = await t().request('POST', `/v1/farms/${farm}/events`, {
      key,
      body: { type: 'service', subject_id: served.id, data: { method: 'ai' }, at: plus(today, 30) },
    });
    assert.equal(expectError(ahead, 400, 'invalid_request').param, 'at');
    // A bull out on the day he went in, given as a date alone, is out at that day's end.
    const bull = await make.animal(t(), key, farm, { sex: 'bull', name: 'Bull' });
    const group = await make.group(t(), key, farm, { name: 'Heifers', species: 'cattle' });
    await make.animal(t(), key, farm, { sex: 'heifer', group_id: group.id });
    const inAt = iso(morning(plus(today, -3)) + 7 * 3_600_000);
    const bullIn = await t().request('POST', `/v1/farms/${farm}/events`, {
      key,
      body: {
        type: 'service',
        subject_type: 'group',
        subject_id: group.id,
        at: inAt,
        data: { method: 'bull_in', sire_id: bull.id, until: plus(today, -3) },
      },
    });
    assert.equal(bullIn.status, 201, JSON.stringify(bullIn.body));
    // A calf born at 02:00 on the farm (the afternoon before in UTC) is born on the farm's day.
    const birthDay = plus(today, -2);
    const birth = await log({
      type: 'birth',
      subject_id: (await cow('Calved')).id,
      at: iso(localDateStart(birthDay, zone) + 2 * 3_600_000),
      data: { offspring: [{ sex: 'female', tag: 'NZ1', alive: true }] },
    });
    const [calfId] = birth.data.offspring_ids as string[];
    assert.equal((await get(calfId as string)).birth_date, `${birthDay}T00:00:00.000Z`);
    // Treated an hour after she was born (still the day before in UTC), she is treated; two days before, not.
    const med = await make.created<{ id: string }>(t(), key, `/v1/farms/${farm}/medicines`, {
      name: 'Vitamin E',
      unit: 'ml',
      withdrawal: { meat_days: 0 },
    });
    const treat = (at: number) =>
      t().request('POST', `/v1/farms/${farm}/treatments`, {
        key,
        body: {
          medicine_id: med.id,
          animal_ids: [calfId],
          dose: 1,
          dose_unit: 'ml',
          route: 'oral',
          at: iso(at),
        },
      });
    const soon = await treat(localDateStart(birthDay, zone) + 3 * 3_600_000);
    assert.equal(soon.status, 201, JSON.stringify(soon.body));
    const before = await treat(localDateStart(birthDay, zone) - 2 * DAY);
    assert.equal(expectError(before, 400, 'invalid_request').param, 'at');
  });

  test('a state stored before its zone was kept takes its farm’s zone (migration 0049)', async () => {
    const zone = 'Pacific/Auckland';
    const { key } = await herdFarm(t());
    const farm = (await make.farm(t(), key, { timezone: zone })).id;
    const cow = await make.animal(t(), key, farm, { sex: 'female' });
    // 08:00 on the farm 21 days ago was the evening before in UTC: the old UTC days said yesterday.
    const heat = localDateStart(localDateText(Date.now() - 21 * DAY, zone), zone) + 8 * 3_600_000;
    await make.created(t(), key, `/v1/farms/${farm}/events`, {
      type: 'heat',
      subject_id: cow.id,
      at: iso(heat),
    });
    const db = t().database.db;
    const read = async () =>
      JSON.parse(
        (await db.selectFrom('animals').select('breeding').where('id', '=', cow.id).executeTakeFirstOrThrow())
          .breeding ?? 'null',
      ) as Record<string, unknown>;
    const { zone: _zone, ...older } = await read();
    await db
      .updateTable('animals')
      .set({ breeding: JSON.stringify(older) })
      .where('id', '=', cow.id)
      .execute();
    const today = localDateText(Date.now(), zone);
    assert.notEqual(
      (await make.fetched<Animal>(t(), key, `/v1/animals/${cow.id}`)).breeding?.next_heat_expected,
      today,
    );
    await breedingZone.up(db as never);
    assert.equal((await read()).zone, zone);
    assert.equal(
      (await make.fetched<Animal>(t(), key, `/v1/animals/${cow.id}`)).breeding?.next_heat_expected,
      today,
    );
  });

  test('the brief names births overdue and due within 7 days, pregnancy checks due and heats expected today', async () => {
    const { acct, animal, log, get, farm, key } = await herdFarm(t());
    const now = Date.now();
    const cow = (name: string, species = 'cattle') => animal({ species, sex: 'female', name });
    const [overdue, due, far, checked, heat, ewe] = [
      await cow('Overdue'),
      await cow('Due'),
      await cow('Far'),
      await cow('Check'),
      await cow('Heat'),
      await cow('Ewe', 'sheep'),
    ];
    const served = (id: string, daysAgo: number) =>
      log({ type: 'service', subject_id: id, data: { method: 'ai' }, at: iso(now - daysAgo * DAY) });
    await served(overdue.id, 290);
    await served(due.id, 280);
    await served(far.id, 100);
    await served(checked.id, 40);
    await log({ type: 'heat', subject_id: heat.id, data: {}, at: iso(now - 21 * DAY) });
    await served(ewe.id, 144);
    const brief = await make.fetched<{
      items: Array<{ kind: string; title: string; subject_id: string | null }>;
    }>(t(), key, `/v1/farms/${farm}/brief`);
    const items = brief.items.filter((i) =>
      ['birth_overdue', 'birth_due', 'pregnancy_check_due', 'heat_expected'].includes(i.kind),
    );
    assert.deepEqual(
      items.map((i) => [i.kind, i.subject_id]),
      [
        ['birth_overdue', overdue.id],
        ['birth_due', due.id],
        ['birth_due', ewe.id],
        ['pregnancy_check_due', checked.id],
        ['heat_expected', heat.id],
      ],
    );
    assert.equal(items[1]?.title, 'Due is due to calve');
    assert.equal(items[2]?.title, 'Ewe is due to lamb');
    // A Spanish reader: the same items in whole Spanish sentences (every species "pare").
    const spanish = await signedInPerson(t(), acct, 'owner');
    assert.equal((await spanish.request('PATCH', '/v1/me', { body: { language: 'es' } })).status, 200);
    const es = await spanish.request<{ items: Array<{ kind: string; title: string; detail: string }> }>(
      'GET',
      `/v1/farms/${farm}/brief`,
    );
    assert.equal(es.status, 200, JSON.stringify(es.body));
    const esItems = es.body.items.filter((i) =>
      ['birth_overdue', 'birth_due', 'pregnancy_check_due', 'heat_expected'].includes(i.kind),
    );
    assert.deepEqual(
      esItems.map((i) => i.title),
      [
        'Overdue tiene el parto atrasado',
        'Due está próxima a parir',
        'Ewe está próxima a parir',
        'Diagnóstico de preñez pendiente para Check',
        'Heat podría entrar en celo hoy',
      ],
    );
    assert.match(String(esItems[0]?.detail), /^Parto previsto el \d{4}-\d\d-\d\d, hace \d+ días?\.$/);
    assert.match(String(esItems[1]?.detail), /^Parto previsto el \d{4}-\d\d-\d\d\.$/);
    assert.equal(esItems[3]?.detail, `Servida el ${day(now - 40 * DAY)}, hace 40 días.`);
    assert.equal(esItems[4]?.detail, 'Un ciclo después de su último celo o servicio fallido.');
    // The Animal reads the same rule (the chute card shows it): the day the check fell due, else null.
    assert.equal((await get(checked.id)).breeding?.pregnancy_check_due, day(now - 40 * DAY + 35 * DAY));
    assert.equal((await get(far.id)).breeding?.pregnancy_check_due, null);
    assert.equal((await get(due.id)).breeding?.pregnancy_check_due, null);
  });

  test('editing or deleting a breeding record folds her state again from the records left', async () => {
    const { animal, log, get, key } = await herdFarm(t());
    const now = Date.now();
    const patch = async (id: string, body: Record<string, unknown>) => {
      const res = await t().request('PATCH', `/v1/events/${id}`, { key, body });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    };
    const remove = async (id: string) => {
      const res = await t().request('DELETE', `/v1/events/${id}`, { key });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    };
    const open = { state: 'open', due_date: null, next_heat_expected: null, pregnancy_check_due: null };

    // A service deleted: open again, no due date.
    const cow = await animal({ sex: 'female', name: 'Daisy' });
    const service = await log({
      type: 'service',
      subject_id: cow.id,
      data: { method: 'ai', sire_name: 'Bull' },
      at: iso(now - 10 * DAY),
    });
    assert.equal((await get(cow.id)).breeding?.state, 'bred');
    await remove(service.id);
    assert.deepEqual((await get(cow.id)).breeding, open);

    // A service's date moved: the due date (and the return heat) move with it.
    const second = await log({
      type: 'service',
      subject_id: cow.id,
      data: { method: 'ai' },
      at: iso(now - 10 * DAY),
    });
    assert.equal((await get(cow.id)).breeding?.due_date, day(now - 10 * DAY + 283 * DAY));
    await patch(second.id, { at: iso(now - 40 * DAY) });
    const moved = (await get(cow.id)).breeding;
    assert.equal(moved?.state, 'bred');
    assert.equal(moved?.due_date, day(now - 40 * DAY + 283 * DAY));
    assert.equal(moved?.next_heat_expected, day(now - 40 * DAY + 21 * DAY));
    assert.equal(moved?.pregnancy_check_due, day(now - 40 * DAY + 35 * DAY));
    // Moved into next month, it would no longer be a record of something done: 400, and nothing moves.
    const ahead = await t().request('PATCH', `/v1/events/${second.id}`, {
      key,
      body: { at: iso(now + 30 * DAY) },
    });
    assert.equal(expectError(ahead, 400, 'invalid_request').param, 'at');
    assert.equal((await get(cow.id)).breeding?.due_date, day(now - 40 * DAY + 283 * DAY));

    // A check `empty` deleted: bred again on the service before it.
    const empty = await log({
      type: 'pregnancy_check',
      subject_id: cow.id,
      data: { result: 'empty' },
      at: iso(now - DAY),
    });
    assert.equal((await get(cow.id)).breeding?.state, 'open');
    await remove(empty.id);
    assert.deepEqual((await get(cow.id)).breeding, moved);

    // An edit is checked as a new record is, and changes nothing when refused.
    const bad = await t().request('PATCH', `/v1/events/${second.id}`, {
      key,
      body: { data: { method: 'ivf' } },
    });
    assert.equal(expectError(bad, 400, 'invalid_request').param, 'data.method');
    const bull = await animal({ sex: 'male' });
    const onBull = await t().request('PATCH', `/v1/events/${second.id}`, {
      key,
      body: { subject_id: bull.id },
    });
    expectError(onBull, 400, 'invalid_request');
    assert.deepEqual((await get(cow.id)).breeding, moved);

    // The record moved to another female: both are folded again.
    const heifer = await animal({ sex: 'heifer' });
    await patch(second.id, { subject_id: heifer.id });
    assert.deepEqual((await get(cow.id)).breeding, open);
    assert.deepEqual((await get(heifer.id)).breeding, moved);

    // A record turned into another type (a note) no longer moves her state.
    await patch(second.id, { type: 'note', data: { text: 'logged by mistake' } });
    assert.deepEqual((await get(heifer.id)).breeding, open);

    // A birth deleted: she is bred again on her service; the calf stays, with its dam.
    const dam = await animal({ sex: 'female', name: 'Rose' });
    await log({ type: 'service', subject_id: dam.id, data: { method: 'ai' }, at: iso(now - 290 * DAY) });
    const birth = await log({
      type: 'birth',
      subject_id: dam.id,
      data: { offspring: [{ sex: 'female', tag: 'C-9', alive: true }] },
      at: iso(now - 3 * DAY),
    });
    assert.equal((await get(dam.id)).breeding?.state, 'fresh');
    const calfId = (birth.data.offspring_ids as string[])[0] as string;
    await remove(birth.id);
    assert.equal((await get(dam.id)).breeding?.state, 'bred');
    const calf = await get(calfId);
    assert.equal(calf.dam_id, dam.id);
    assert.equal(calf.status, 'active');
  });

  test('the sample farm: a cow due next week and three generations', async () => {
    const acct = await t().sharedAccount();
    const key = acct.test_key;
    const farm = acct.sample_farm_id;
    const due = await make.fetched<{ data: Array<{ name: string | null; due_date: string }> }>(
      t(),
      key,
      `/v1/farms/${farm}/due-dates?days=8`,
    );
    assert.deepEqual(
      due.data.map((d) => d.name),
      ['Juniper'],
    );
    const animals = await make.fetched<{ data: Animal[] }>(t(), key, `/v1/farms/${farm}/animals?q=fern`);
    const fern = animals.data[0] as Animal;
    const pedigree = await make.fetched<Pedigree>(t(), key, `/v1/animals/${fern.id}/pedigree?generations=3`);
    assert.deepEqual(
      pedigree.ancestors
        .filter((a) => a.generation <= 3 && a.name !== null)
        .map((a) => [a.name, a.generation]),
      [
        ['Bramble', 1],
        ['Duke', 1],
        ['Clover', 2],
        ['Hilltop Resolve 5R', 3],
        ['Willow', 3],
      ],
    );
  });
});
